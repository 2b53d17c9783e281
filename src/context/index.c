/* The repository index of one side: its life, its steps, listing the files and reading the store. */
#include "index_state.h"
#include "array.h"
#include "child.h"
#include "clock.h"
#include "glob.h"
#include "repo_files.h"
#include "scope.h"
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define PROBE_TIMEOUT_MS 5000
#define STORE_SLICE 400         /* blobs asked about in one step */
#define ARENA_BLOCK (256u << 10)
#define DAY_MS (24 * 3600 * 1000LL)

/* What the index adds to ctags's identity: a change tags every blob again. */
#define INDEX_READING "index 1: words filter 2 (16 bits a word, 6 probes, xxh3); file max %zu"

static int member_fds(void *ctx, struct pollfd *out, int max);
static int member_timeout(void *ctx);
static int member_step(void *ctx, const struct pollfd *fds, int n);

const char *index_strdup(struct index *index, const char *s)
{
	return arena_strndup(&index->arena, s ? s : "", s ? strlen(s) : 0);
}

void index_note_add(struct index *index, const char *fmt, ...)
{
	va_list ap;

	if (index->note.len)
		buf_puts(&index->note, "; ");
	va_start(ap, fmt);
	buf_vprintf(&index->note, fmt, ap);
	va_end(ap);
}

void index_store_lost(struct index *index)
{
	if (!index->opts.store)
		return;
	index_note_add(index, "the index is not kept in the store: %s", error_message());
	error_clear();
	index->opts.store = NULL;
}

/* revline.ignore's patterns, read as a check reads them. */
static int ignore_load(struct index *index, const char *file)
{
	struct buf text = BUF_INIT;
	int error;

	if (!file || !*file)
		return 0;
	if ((error = repo_read_workdir(&text, index->opts.repo, file, 0)) < 0)
		error = error_set(RL_ECONFIG, "revline.ignore names %s, which cannot be read: %s", file,
				  error_message());
	else if ((error = scope_ignore_parse(&index->ignore, text.ptr ? text.ptr : "", text.len)) < 0)
		error = error_set(RL_ECONFIG, "%s (revline.ignore): %s", file, error_message());
	buf_release(&text);
	return error;
}

int index_new(struct index **out, const struct index_options *opts)
{
	struct index *index = calloc(1, sizeof(*index));
	int error = 0;

	*out = NULL;
	if (!index)
		return error_nomem();
	index->opts = *opts;
	index->opts.ignore_file = NULL;         /* read now; the options' strings are not kept */
	index->opts.ctags = NULL;
	/* The target's sides (its labels are not used): the caller's may go. */
	index->target = *opts->target;
	index->target.base_label = index->target.head_label = index->target.description = NULL;
	index->opts.target = &index->target;
	if (!index->opts.file_max)
		index->opts.file_max = INDEX_FILE_MAX;
	arena_init(&index->arena, ARENA_BLOCK);
	index->complete = true;
	if (opts->ctags && !(index->ctags_setting = strdup(opts->ctags)))
		error = error_nomem();
	if (error < 0 || (error = ignore_load(index, opts->ignore_file)) < 0) {
		index_free(index);
		return error;
	}
	*out = index;
	return 0;
}

void index_free(struct index *index)
{
	if (!index)
		return;
	poll_group_leave(&index->member);
	poll_group_free(index->own_group);
	child_free(index->probe);
	index_tag_release(index);
	index_built_release(index);
	repo_files_free(index->listing);
	glob_list_free(index->ignore);
	tags_program_release(&index->program);
	free(index->ctags_setting);
	free(index->message);
	free(index->files);
	free(index->file_slot);
	free(index->slots);
	free(index->protos);
	free(index->pending);
	free(index->batch);
	free(index->batch_tags);
	buf_release(&index->note);
	buf_release(&index->scratch);
	arena_release(&index->arena);
	free(index);
}

/* --- ctags: found and asked its version ----------------------------------------------- */

/* The store's key of what indexes: ctags's identity with the index's own reading. */
static void indexer_key(struct index *index)
{
	struct buf text = BUF_INIT;

	buf_printf(&text, "%s; " INDEX_READING, index->program.identity ? index->program.identity : "",
		   index->opts.file_max);
	snprintf(index->indexer, sizeof(index->indexer), "%016llx",
		 (unsigned long long)XXH3_64bits(text.ptr ? text.ptr : "", text.len));
	if (index->opts.store && store_context_indexer(index->opts.store, index->indexer, text.ptr) < 0)
		index_store_lost(index);
	buf_release(&text);
}

static void probe_done(struct index *index, const char *why)
{
	if (why) {
		index_note_add(index, "%s", why);
		index->have_ctags = false;
		if (tags_program_none(&index->program) < 0)
			error_clear();
	}
	child_free(index->probe);
	index->probe = NULL;
	index->probed = true;
	indexer_key(index);
}

static int probe_start(struct index *index)
{
	const char *argv[3] = { NULL, "--version", NULL };
	struct child_options opts = { .argv = argv, .dir = "/", .out_max = 64 << 10, .timeout_ms = PROBE_TIMEOUT_MS };

	if (tags_program_find(&index->program, index->ctags_setting) < 0) {
		probe_done(index, error_message());
		error_clear();
		return 0;
	}
	argv[0] = index->program.path;
	if (child_start(&index->probe, &opts, NULL) < 0) {
		probe_done(index, error_message());
		error_clear();
	}
	return 0;
}

static void probe_step(struct index *index)
{
	const struct buf *out;

	child_step(index->probe, NULL, 0);
	if (!child_done(index->probe))
		return;
	out = child_out(index->probe);
	if (index->probe->state == CHILD_TIMEOUT) {
		char why[256];

		snprintf(why, sizeof(why), "%s --version did not answer in %d s", index->program.path,
			 PROBE_TIMEOUT_MS / 1000);
		probe_done(index, why);
	} else if (tags_program_check(&index->program, out->ptr ? out->ptr : "", out->len) < 0) {
		probe_done(index, error_message());
		error_clear();
	} else {
		index->have_ctags = true;
		probe_done(index, NULL);
	}
}

/* --- listing ------------------------------------------------------------------------- */

/* Why a path is left out of the index, or NULL. */
static const char *excluded(const struct index *index, const struct repo_file *f)
{
	if (glob_list_matches(index->ignore, f->path))
		return "ignored (revline.ignore)";
	if (f->linguist)
		return f->linguist;
	return scope_minified_name(f->path);
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(((const struct index_file *)a)->path, ((const struct index_file *)b)->path);
}

static int slot_cmp(const void *a, const void *b)
{
	return strcmp(((const struct blob_slot *)a)->id, ((const struct blob_slot *)b)->id);
}

struct blob_slot *index_slot_find(struct index *index, const char *id)
{
	struct blob_slot key;

	snprintf(key.id, sizeof(key.id), "%s", id);
	return bsearch(&key, index->slots, index->nslots, sizeof(key), slot_cmp);
}

/* The distinct blobs of the files, and each file's. */
static int slots_make(struct index *index)
{
	size_t i, n = 0;

	if (!(index->slots = calloc(index->nfiles + 1, sizeof(*index->slots))) ||
	    !(index->file_slot = calloc(index->nfiles + 1, sizeof(size_t))))
		return error_nomem();
	for (i = 0; i < index->nfiles; i++)
		if (*index->files[i].blob) {
			memcpy(index->slots[n].id, index->files[i].blob, sizeof(index->slots[n].id));
			index->slots[n].file = i;
			index->slots[n++].size = index->files[i].size;
		}
	qsort(index->slots, n, sizeof(*index->slots), slot_cmp);
	for (i = 0; i < n; i++)
		if (!index->nslots || strcmp(index->slots[index->nslots - 1].id, index->slots[i].id))
			index->slots[index->nslots++] = index->slots[i];
	for (i = 0; i < index->nfiles; i++) {
		struct blob_slot *s = *index->files[i].blob ? index_slot_find(index, index->files[i].blob) : NULL;

		index->file_slot[i] = s ? (size_t)(s - index->slots) : NO_SLOT;
		if (s)
			s->file = i;
	}
	index->stats.blobs = index->nslots;
	return 0;
}

/* The listing is complete: the files the index keeps, by path. */
static int files_take(struct index *index)
{
	const struct repo_file *list;
	size_t n, i;

	list = repo_files_list(index->listing, &n);
	if (!(index->files = calloc(n + 1, sizeof(*index->files))))
		return error_nomem();
	for (i = 0; i < n; i++) {
		struct index_file *f = &index->files[index->nfiles];

		if (excluded(index, &list[i])) {
			index->stats.excluded++;
			continue;
		}
		if (!(f->path = index_strdup(index, list[i].path)))
			return error_nomem();
		memcpy(f->blob, list[i].blob, sizeof(f->blob));
		f->size = list[i].size;
		f->workdir = list[i].workdir;
		f->untracked = list[i].untracked;
		f->state = *f->blob ? INDEX_UNTAGGED : INDEX_LARGE;
		f->why = *f->blob ? "not indexed" : "larger than the index reads";
		index->nfiles++;
	}
	if (index->nfiles)
		qsort(index->files, index->nfiles, sizeof(*index->files), path_cmp);
	repo_files_free(index->listing);
	index->listing = NULL;
	index->stats.files = index->nfiles;
	return slots_make(index);
}

static int list_step(struct index *index, int64_t until)
{
	int done, error;

	if (!index->listing &&
	    (error = repo_files_start(&index->listing, index->opts.repo, index->opts.target, index->opts.old_side,
				      index->opts.file_max)) < 0)
		return error;
	if ((done = repo_files_step(index->listing, until - clock_us())) <= 0)
		return done;
	if ((error = files_take(index)) < 0)
		return error;
	index->stats.list_ms = clock_ms() - index->started_ms;
	index->phase = P_PROBE;
	index->at = 0;
	return 0;
}

/* --- the store ----------------------------------------------------------------------------- */

static enum index_file_state state_of(const char *state)
{
	if (!strcmp(state, "tagged"))
		return INDEX_TAGGED;
	if (!strcmp(state, "binary"))
		return INDEX_BINARY;
	if (!strcmp(state, "large"))
		return INDEX_LARGE;
	if (!strcmp(state, "generated"))
		return INDEX_GENERATED;
	return INDEX_UNTAGGED;
}

static int blob_known(void *ctx, const struct store_context_blob *b)
{
	struct index *index = ctx;
	struct blob_slot *s = index_slot_find(index, b->blob);
	void *words;

	if (!s || s->known)
		return 0;
	s->known = s->done = true;
	s->state = state_of(b->state);
	s->why = s->state == INDEX_TAGGED ? NULL : index_strdup(index, b->detail ? b->detail : b->state);
	s->ntags = b->ntags;
	s->size = (uint64_t)b->size;
	s->stale = b->indexed_at < clock_wall_ms() - DAY_MS;
	if (b->words && b->words_len && (words = arena_alloc(&index->arena, b->words_len, 1))) {
		memcpy(words, b->words, b->words_len);
		s->words = words;
		s->words_len = b->words_len;
	}
	index->stats.stored++;
	return 0;
}

/* A blob's tags come together: its slot is looked up once. */
static int tag_known(void *ctx, const char *blob, const struct tag *tag)
{
	struct index *index = ctx;
	struct blob_slot *s = index->last_slot;

	if (!s || strcmp(s->id, blob))
		s = index->last_slot = index_slot_find(index, blob);
	return s ? index_proto_add(index, s, tag) : 0;
}

/* The next slice of slots to ask the store about (those that want, in ids), or 0 at the end. */
static size_t slice_ids(struct index *index, const char **ids, bool tags)
{
	size_t n = 0;

	for (; index->at < index->nslots && n < STORE_SLICE; index->at++) {
		const struct blob_slot *s = &index->slots[index->at];

		if (!tags || (s->known && s->state == INDEX_TAGGED && s->ntags))
			ids[n++] = s->id;
	}
	return n;
}

/* The stored blobs found in use whose time is old get it renewed, so that pruning keeps them. */
static void stale_renew(struct index *index)
{
	const char **ids;
	size_t i, n = 0;

	if (!(ids = calloc(index->nslots + 1, sizeof(*ids)))) {
		error_nomem();
		index_store_lost(index);
		return;
	}
	for (i = 0; i < index->nslots; i++)
		if (index->slots[i].known && index->slots[i].stale)
			ids[n++] = index->slots[i].id;
	if (n && store_context_touch(index->opts.store, index->indexer, ids, n) < 0)
		index_store_lost(index);
	else
		index->stats.renewed = n;
	free(ids);
}

/* After a build that recorded new blobs: what nothing recorded or found for INDEX_KEEP_DAYS goes. */
static void store_prune(struct index *index)
{
	int64_t removed = 0;

	if (!index->opts.store || !index->stats.tagged)
		return;
	if (store_context_prune(index->opts.store, clock_wall_ms() - INDEX_KEEP_DAYS * DAY_MS, &removed) < 0)
		index_store_lost(index);
	else
		index->stats.pruned = (size_t)removed;
}

static int stored_step(struct index *index, int64_t until)
{
	const char *ids[STORE_SLICE];
	bool tags = index->phase == P_LOAD;
	size_t n;
	int error = 0;

	while (index->opts.store && !error && clock_us() < until && index->at < index->nslots) {
		n = slice_ids(index, ids, tags);
		error = tags ? store_context_tags(index->opts.store, index->indexer, ids, n, tag_known, index) :
			store_context_blobs(index->opts.store, index->indexer, ids, n, blob_known, index);
	}
	if (error < 0)
		index_store_lost(index);        /* and tag what it would have given */
	if (index->opts.store && index->at < index->nslots)
		return 0;
	index->at = 0;
	if (index->phase == P_LOOKUP && index->opts.store)
		stale_renew(index);
	index->phase++;
	if (index->phase == P_TAG) {
		index->stats.store_ms = clock_ms() - index->phase_ms;
		index->phase_ms = clock_ms();
	}
	return 0;
}

/* --- the steps -------------------------------------------------------------------------------- */

static void finish(struct index *index)
{
	store_prune(index);
	if (index_build(index) < 0) {
		index->status = error_status();
		free(index->message);
		index->message = strdup(error_message());
		error_clear();
	}
	index->stats.total_ms = clock_ms() - index->started_ms;
	index->phase = P_DONE;
}

/* Stop where it is (a deadline, a cancel, a failure): the rest is built from what is known. */
static void cut_short(struct index *index, const char *why)
{
	size_t left = 0, i;

	child_free(index->probe);
	index->probe = NULL;
	if (index->phase == P_TAG && index_batch_flush(index) < 0)
		index_store_lost(index);
	index_tag_release(index);
	for (i = 0; i < index->nslots; i++) {
		struct blob_slot *slot = &index->slots[i];

		if (!slot->done) {
			left++;
		} else if (slot->state == INDEX_TAGGED && slot->ntags && !slot->count) {
			/* Known, but its tags were not read yet: as unknown. */
			slot->state = INDEX_UNTAGGED;
			slot->why = "its definitions were not read from the store before the index stopped";
			left++;
		}
	}
	index->complete = false;
	if (left)
		index_note_add(index, "%s: %zu of %zu files' contents were not indexed", why, left, index->nslots);
	else if (index->phase < P_LOOKUP)
		index_note_add(index, "%s while listing the files", why);
	finish(index);
}

static int phase_step(struct index *index, int64_t until)
{
	switch (index->phase) {
	case P_LIST:
		/* ctags says its version while the files are listed. */
		if (!index->probe && !index->probed)
			probe_start(index);
		if (index->probe)
			probe_step(index);
		return list_step(index, until);
	case P_PROBE:
		if (index->probe)
			probe_step(index);
		if (index->probed) {
			index->phase = P_LOOKUP;
			index->phase_ms = clock_ms();
		}
		return 0;
	case P_LOOKUP:
	case P_LOAD:
		return stored_step(index, until);
	case P_TAG:
		if (index_tag_step(index, until) == 1) {
			index->stats.tag_ms = clock_ms() - index->phase_ms;
			index->phase = P_BUILD;
		}
		return 0;
	case P_BUILD:
		finish(index);
		return 0;
	default:
		return 0;
	}
}

static int member_step(void *ctx, const struct pollfd *fds, int n)
{
	struct index *index = ctx;
	int64_t until = clock_us() + INDEX_SLICE_MS * 1000;
	enum phase before;
	int error = 0;

	(void)fds;
	(void)n;
	while (index->phase != P_DONE && !error) {
		if (index->opts.deadline_ms && clock_ms() >= index->opts.deadline_ms) {
			cut_short(index, "the index stopped at its deadline");
			break;
		}
		before = index->phase;
		error = phase_step(index, until);
		if (clock_us() >= until || (index->phase == before && (index->phase == P_PROBE || index_tag_waiting(index))))
			break;
	}
	if (error < 0) {
		index->status = error;
		free(index->message);
		index->message = strdup(error_message());
		error_clear();
		cut_short(index, "the index stopped");
	}
	return 0;
}

static int member_fds(void *ctx, struct pollfd *out, int max)
{
	struct index *index = ctx;

	if (index->probe && index->phase <= P_PROBE)
		return child_fds(index->probe, out, max);
	return index->session && index->phase == P_TAG ? tags_session_fds(index->session, out, max) : 0;
}

static int member_timeout(void *ctx)
{
	struct index *index = ctx;
	int t = 0;

	if (index->phase == P_DONE)
		return -1;
	if (index->phase == P_PROBE)
		t = index->probe ? child_timeout(index->probe) : 0;
	else if (index->phase == P_TAG && index_tag_waiting(index))
		t = tags_session_timeout(index->session);
	if (index->opts.deadline_ms) {
		int64_t left = index->opts.deadline_ms - clock_ms();

		t = poll_sooner(t, left < 0 ? 0 : (int)(left > 1000000 ? 1000000 : left));
	}
	return t;
}

int index_start(struct index *index, struct poll_group *group)
{
	int error;

	if (!group && (error = poll_group_new(&index->own_group)) < 0)
		return error;
	index->member.fds = member_fds;
	index->member.timeout = member_timeout;
	index->member.step = member_step;
	index->member.ctx = index;
	index->started_ms = clock_ms();
	return poll_group_join(group ? group : index->own_group, &index->member);
}

int index_wait(struct index *index, int max_ms)
{
	int64_t until = max_ms < 0 ? -1 : clock_ms() + max_ms;
	int error = 0;

	while (!error && index->phase != P_DONE && index->member.group) {
		int64_t left = until < 0 ? -1 : until - clock_ms();

		if (until >= 0 && left <= 0)
			break;
		error = poll_group_wait(index->member.group, (int)left);
	}
	return error;
}

bool index_done(const struct index *index)
{
	return index->phase == P_DONE;
}

void index_cancel(struct index *index)
{
	if (index->phase != P_DONE)
		cut_short(index, "the index was cancelled");
}

int index_status(const struct index *index)
{
	return index->status;
}

const char *index_message(const struct index *index)
{
	return index->message;
}

bool index_complete(const struct index *index)
{
	return index->phase == P_DONE && index->complete;
}

const char *index_note(const struct index *index)
{
	return index->note.len ? index->note.ptr : NULL;
}

const struct index_stats *index_stats(const struct index *index)
{
	return &index->stats;
}
