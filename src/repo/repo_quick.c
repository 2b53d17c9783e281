/*
 * The working tree's diff listed as git lists it, before libgit2 has: the
 * index's changes against the base tree (libgit2's tree-to-index diff, on
 * a second thread) and one lstat per index entry (worktree_scan.c), joined
 * path by path. A file whose stat data the index recorded is the index's;
 * one with other times but the same size is hashed, as libgit2 does.
 *
 * The list is what the first screen needs; the text of a file comes from
 * libgit2's diff of the 64 files around it (exactly what the whole diff
 * would print). The first rename step makes libgit2's whole diff, and the
 * model made from it then replaces this one, its counts kept
 * (repo_diff.c): everything after that is as if this listing had not been.
 */
#include "repo_diff_internal.h"
#include "diff.h"
#include "repo_content.h"
#include "status.h"
#include "worktree_scan.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define QUICK_WINDOW 64

struct quick_source {
	struct repo *repo;
	struct target target;           /* the target's sides; its description owned */
	struct diff **windows;          /* libgit2's models of QUICK_WINDOW files each, made when read */
	size_t nwindows;
	struct git_shared *full;        /* libgit2's whole diff, once made */
};

/* A path's side: its mode (0: none) and its id, when known. */
struct side {
	uint32_t mode;
	git_oid id;
	bool known;
};

/* What the listing works from. */
struct listing {
	struct repo *repo;
	const struct target *target;
	git_index *index;
	struct scan_entry *entries;
	size_t n;
	git_diff *staged;
	int staged_error;
	struct diff *diff;
};

static void source_free(void *ctx)
{
	struct quick_source *q = ctx;
	size_t i;

	for (i = 0; i < q->nwindows; i++)
		diff_free(q->windows[i]);
	free(q->windows);
	if (q->full)
		diff_shared_release(q->full);
	free(q->target.description);
	free(q);
}

bool quick_is(const struct diff *diff)
{
	return diff->source.free == source_free;
}

struct git_shared *quick_shared(const struct diff *diff)
{
	return ((struct quick_source *)diff->source.ctx)->full;
}

int quick_shared_make(struct git_shared **out, struct diff *diff)
{
	struct quick_source *q = diff->source.ctx;
	int error = 0;

	if (!q->full)
		error = diff_shared_make(&q->full, q->repo, &q->target, NULL);
	*out = q->full;
	return error;
}

/* libgit2's model of the window that holds file index: the window's paths only. */
static int window_of(struct diff **out, struct quick_source *q, struct diff *diff, size_t index)
{
	size_t w = index / QUICK_WINDOW, first = w * QUICK_WINDOW, i, n;
	char *paths[QUICK_WINDOW];
	git_strarray list = { paths, 0 };
	struct git_shared *sh = NULL;
	int error;

	if (!q->windows && !(q->windows = calloc((diff->nfiles + QUICK_WINDOW - 1) / QUICK_WINDOW,
						 sizeof(*q->windows))))
		return error_nomem();
	q->nwindows = (diff->nfiles + QUICK_WINDOW - 1) / QUICK_WINDOW;
	if ((*out = q->windows[w]))
		return 0;
	n = diff->nfiles - first < QUICK_WINDOW ? diff->nfiles - first : QUICK_WINDOW;
	for (i = 0; i < n; i++)
		paths[i] = (char *)diff->files[first + i].path;
	list.count = n;
	if ((error = diff_shared_make(&sh, q->repo, &q->target, &list)) < 0)
		return error;
	error = diff_shared_model(&q->windows[w], sh, NULL);
	diff_shared_release(sh);
	*out = q->windows[w];
	return error;
}

/* What a file libgit2 sees no change in counts: nothing (its text is empty too). */
static const struct diff_file unchanged = { .flags = DIFF_FILE_COUNTED | DIFF_FILE_BINARY_KNOWN };

/* The window holding file index of the listing, and its file there (*at -1: libgit2 sees no change in it). */
static int window_file(struct diff **window, long *at, void *ctx, struct diff *diff, size_t index)
{
	int error;

	if ((error = window_of(window, ctx, diff, index)) < 0)
		return error;
	*at = diff_find_file(*window, diff->files[index].path);
	return 0;
}

static int source_count(void *ctx, struct diff *diff, size_t index)
{
	struct diff *window;
	long at;
	int error;

	if ((error = window_file(&window, &at, ctx, diff, index)) < 0 ||
	    (at >= 0 && (error = diff_file_count(window, (size_t)at)) < 0))
		return error;
	diff_file_counts_copy(diff, &diff->files[index], at >= 0 ? &window->files[at] : &unchanged);
	return 0;
}

/* The file's text is the window's (its arena lives as long as this model). */
static int source_load(void *ctx, struct diff *diff, size_t index)
{
	struct diff_file *file = &diff->files[index];
	const struct diff_file *from;
	struct diff *window;
	long at;
	int error;

	if ((error = window_file(&window, &at, ctx, diff, index)) < 0 ||
	    (at >= 0 && (error = diff_file_load(window, (size_t)at)) < 0))
		return error;
	if (at < 0) {
		file->header = "";
		diff_file_counts_copy(diff, file, &unchanged);
		file->flags |= DIFF_FILE_LOADED;
		return 0;
	}
	from = &window->files[at];
	file->status = from->status;
	file->old_mode = from->old_mode;
	file->new_mode = from->new_mode;
	file->header = from->header;
	file->header_len = from->header_len;
	file->header2 = from->header2;
	file->header2_len = from->header2_len;
	file->split_hunk = from->split_hunk;
	file->hunks = from->hunks;
	file->nhunks = from->nhunks;
	file->lines = from->lines;
	file->nlines = from->nlines;
	diff_file_counts_copy(diff, file, from);
	file->flags |= DIFF_FILE_LOADED | (from->flags & DIFF_FILE_BINARY);
	return 0;
}

/* The settings the listing follows as libgit2 does; false for those it leaves to libgit2. */
static bool settings_of(bool *filemode, git_repository *git)
{
	git_config *config = NULL;
	int value;
	bool ok;

	*filemode = true;
	if (git_repository_config_snapshot(&config, git) < 0) {
		git_error_clear();
		return false;
	}
	if (git_config_get_bool(&value, config, "core.filemode") == 0)
		*filemode = value != 0;
	ok = !(git_config_get_bool(&value, config, "core.symlinks") == 0 && !value) &&
		!(git_config_get_bool(&value, config, "core.ignorecase") == 0 && value);
	git_error_clear();
	git_config_free(config);
	return ok;
}

static bool has_dot_git(const char *path)
{
	const char *c;

	for (c = path; c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL)
		if (!strncasecmp(c, ".git", 4) && (c[4] == '/' || !c[4]))
			return true;
	return false;
}

/* The index's entries to scan; false when one is for libgit2 (a conflict, a submodule, an odd path). */
static int entries_of(bool *ok, struct listing *l)
{
	size_t i;

	l->n = git_index_entrycount(l->index);
	if (!(l->entries = calloc(l->n ? l->n : 1, sizeof(*l->entries))))
		return error_nomem();
	for (i = 0, *ok = true; i < l->n && *ok; i++) {
		const git_index_entry *e = git_index_get_byindex(l->index, i);

		*ok = !git_index_entry_stage(e) && e->mode != GIT_FILEMODE_COMMIT && repo_path_safe(e->path) &&
			!has_dot_git(e->path);
		scan_entry_of(&l->entries[i], e);
	}
	return 0;
}

/* The scan's side job, on its second thread: libgit2 touches nothing else meanwhile. */
static void staged_job(void *ctx)
{
	struct listing *l = ctx;

	l->staged_error = diff_staged(&l->staged, l->repo->git, l->target, l->index);
}

/* The working tree's file as libgit2 hashes it (filters applied). */
static bool workdir_id(git_oid *out, git_repository *git, const char *path, uint32_t mode)
{
	git_buf text = { 0 };
	bool ok = repo_workdir_content(&text, git, path, mode) == 0 &&
		git_odb_hash(out, text.ptr, text.size, GIT_OBJECT_BLOB) == 0;

	git_buf_dispose(&text);
	git_error_clear();
	return ok;
}

/*
 * The working tree's side of an index entry: the index's id when its stat
 * data vouches for the file; otherwise unknown, and hashed by file_add
 * only where libgit2 would hash it (unsure) and the base has a file of
 * the same mode to compare with.
 */
static struct side workdir_side(struct listing *l, size_t i)
{
	const struct scan_entry *e = &l->entries[i];
	struct side w = { e->wt_mode, { { 0 } }, false };

	if (e->state == SCAN_MISSING)
		return (struct side){ 0 };
	if (e->state == SCAN_CLEAN) {
		w.id = git_index_get_byindex(l->index, i)->id;
		w.known = true;
	}
	return w;
}

static bool same_kind(uint32_t a, uint32_t b)
{
	return (a & 0170000) == (b & 0170000);
}

/*
 * A path's file in the listing from its base tree's side and its working
 * tree's, libgit2's verdicts kept: the same id and mode is no change; a
 * working-tree file whose content is not known is hashed when libgit2
 * would hash it (its stat data unsure, or the index differing from the
 * base: staged), else it is a change.
 */
static int file_add(struct listing *l, const char *path, struct side t, struct side w, bool hash)
{
	struct diff_file *file;
	enum diff_status status = DIFF_MODIFIED;

	if (!t.mode && !w.mode)
		return 0;
	if (!t.mode) {
		status = DIFF_ADDED;
	} else if (!w.mode) {
		status = DIFF_DELETED;
	} else if (!same_kind(t.mode, w.mode)) {
		status = DIFF_TYPECHANGE;
	} else if (t.mode == w.mode) {
		if (!w.known && hash)
			w.known = workdir_id(&w.id, l->repo->git, path, w.mode);
		if (w.known && git_oid_equal(&t.id, &w.id))
			return 0;
	}
	return diff_file_add(&file, l->diff, status, path, path, t.mode, w.mode);
}

/* A delta's path: the new side's, the old side's for a deletion. */
static const char *delta_path(const git_diff_delta *d)
{
	return d->status == GIT_DELTA_DELETED ? d->old_file.path : d->new_file.path;
}

/* The base tree's side from the deltas of one path (a type change has two). */
static struct side tree_side(const git_diff_delta *a, const git_diff_delta *b)
{
	const git_diff_delta *d = a->status != GIT_DELTA_ADDED ? a : b;

	if (!d || d->status == GIT_DELTA_ADDED)
		return (struct side){ 0 };
	return (struct side){ d->old_file.mode, d->old_file.id, true };
}

/* The index's entries and the staged deltas, joined in path order. */
static int files_of(struct listing *l)
{
	size_t i = 0, d = 0, nd = git_diff_num_deltas(l->staged);
	int error = 0;

	while (!error && (i < l->n || d < nd)) {
		const git_diff_delta *a = d < nd ? git_diff_get_delta(l->staged, d) : NULL;
		const git_diff_delta *b = d + 1 < nd ? git_diff_get_delta(l->staged, d + 1) : NULL;
		const char *path = i < l->n ? l->entries[i].path : NULL;
		int cmp = !a ? -1 : !path ? 1 : strcmp(path, delta_path(a));
		const git_index_entry *entry;
		struct side t;

		if (b && a && strcmp(delta_path(a), delta_path(b)))
			b = NULL;
		if (cmp > 0) {
			/* Out of the index: deleted, whatever the working tree has. */
			error = file_add(l, delta_path(a), tree_side(a, b), (struct side){ 0 }, true);
			d += b ? 2 : 1;
			continue;
		}
		entry = git_index_get_byindex(l->index, i);
		if (cmp == 0)
			t = tree_side(a, b);
		else if (entry->flags_extended & GIT_INDEX_ENTRY_INTENT_TO_ADD)
			t = (struct side){ 0 };
		else
			t = (struct side){ entry->mode, entry->id, true };
		error = file_add(l, path, t, workdir_side(l, i), cmp == 0 || l->entries[i].state == SCAN_UNSURE);
		i++;
		if (cmp == 0)
			d += b ? 2 : 1;
	}
	return error;
}

static int model_of(struct diff **out, struct listing *l)
{
	struct quick_source *q = calloc(1, sizeof(*q));
	int error;

	*out = NULL;
	if (!q)
		return error_nomem();
	q->repo = l->repo;
	q->target = *l->target;
	q->target.base_label = q->target.head_label = NULL;
	if (!(q->target.description = strdup(l->target->description ? l->target->description : ""))) {
		free(q);
		return error_nomem();
	}
	l->diff->source.load = source_load;
	l->diff->source.count = source_count;
	l->diff->source.free = source_free;
	l->diff->source.ctx = q;
	l->diff->in_progress = repo_in_progress(l->repo);
	l->diff->unmerged_text = true;
	if ((error = files_of(l)) == 0) {
		*out = l->diff;
		l->diff = NULL;
	}
	return error;
}

int quick_start(struct diff **out, struct repo *repo, const struct target *target)
{
	struct listing l = { repo, target, NULL, NULL, 0, NULL, 0, NULL };
	struct scan_options opts = { 0 };
	bool ok = target->side == SIDE_WORKDIR && !target->untracked && repo->workdir &&
		settings_of(&opts.filemode, repo->git);
	int error = 0;

	*out = NULL;
	if (!ok || git_repository_index(&l.index, repo->git) < 0 || git_index_read(l.index, false) < 0 ||
	    git_index_has_conflicts(l.index) || (error = entries_of(&ok, &l)) < 0 || !ok)
		goto done;
	scan_index_time(&opts, l.index);
	opts.side = staged_job;
	opts.side_ctx = &l;
	if (worktree_scan(l.entries, l.n, repo->workdir, &opts) < 0 || l.staged_error < 0 ||
	    (error = diff_new(&l.diff)) < 0)
		goto done;
	error = model_of(out, &l);
done:
	if (error != RL_ENOMEM)
		error = 0;
	/* Not listed here: libgit2 lists it (repo_diff.c), and says what fails. */
	error_clear();
	git_error_clear();
	diff_free(l.diff);
	git_diff_free(l.staged);
	git_index_free(l.index);
	free(l.entries);
	return error;
}
