/*
 * The diff model built from libgit2, lazily: the file list comes from the
 * deltas at once; a file's text is generated and parsed when first needed.
 */
#include "repo.h"
#include "array.h"
#include "rename.h"
#include "repo_attr.h"
#include "repo_content.h"
#include "repo_patch.h"
#include "repo_diff_internal.h"
#include "repo_rename.h"
#include "repo_state.h"
#include "similarity.h"
#include "status.h"

#include <git2.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the models made from one libgit2 diff share (see repo_diff_renamed). */
struct git_shared {
	git_diff *diff;
	git_repository *git;
	struct delta_entry *entries;    /* the deltas shown, in order */
	size_t nentries;
	struct rename *renames;         /* pairs deletions (sources) with additions */
	size_t *src_entry, *dst_entry;  /* a rename candidate's entry */
	size_t nsrc, ndst;
	size_t src_alloc, dst_alloc;
	int abbrev;             /* the "index" line's ids: git's length (see repo_abbrev) */
	bool workdir;           /* the new side is the working tree */
	const char *in_progress;        /* see struct diff */
	struct unmerged *unmerged;      /* the conflicted deltas, in delta order */
	size_t nunmerged;
	int refs;
};

/*
 * An unmerged path: its kind, and the sides revline diffs for it. The old
 * side is the target's base tree's file, the new side the working tree's
 * (when the new side is the index, it has none: libgit2's delta says
 * nothing either, and git prints "* Unmerged path").
 */
struct unmerged {
	size_t delta;
	enum diff_conflict kind;
	git_diff_file old, new;
};

struct delta_entry {
	size_t delta;
	bool pair;              /* a type change: this delta and the next */
	size_t candidate;       /* its index among the rename sources or destinations */
};

struct git_source {
	struct git_shared *shared;
	git_diff *diff;
	git_repository *git;
	size_t *first;          /* per model file: its delta (a type change's deletion) */
	size_t *second;         /* a type change's addition, which git prints second */
	unsigned char *ndeltas; /* 1, or 2 for a type change; 0 for a rename */
	int abbrev;             /* the "index" line's ids: git's length (see repo_abbrev) */
	bool workdir;           /* the new side is the working tree */
};

void diff_shared_release(struct git_shared *sh)
{
	if (!sh || --sh->refs > 0)
		return;
	rename_free(sh->renames);
	git_diff_free(sh->diff);
	free(sh->unmerged);
	free(sh->entries);
	free(sh->src_entry);
	free(sh->dst_entry);
	free(sh);
}

static void source_free(void *ctx)
{
	struct git_source *src = ctx;

	diff_shared_release(src->shared);
	free(src->first);
	free(src->second);
	free(src->ndeltas);
	free(src);
}

static int patch_fail(const char *path)
{
	const git_error *e = git_error_last();

	return error_set(RL_EIO, "%s: cannot compute the diff: %s", path,
			 e && e->message ? e->message : "libgit2 error");
}

static bool side_line(const char *line, size_t n)
{
	return n > 4 && (!strncmp(line, "--- ", 4) || !strncmp(line, "+++ ", 4));
}

/*
 * libgit2's patch text differs from git's in a few small ways; mend them so
 * the model prints git's text byte for byte. The rename score is git's (see
 * similarity.h); git ends a "---" or "+++" line whose path has a space with
 * a tab (so that GNU patch reads the whole name); git leaves those two lines
 * out when a file has no hunks (an empty new file, a pure rename); and git
 * cuts a hunk header's function context to 80 bytes before it trims its
 * blanks (libgit2 trims first).
 */
#define FUNC_CONTEXT_MAX 80

/*
 * A hunk header's length without the blanks git's cut would have trimmed:
 * only when the context is all 80 bytes. A shorter context that ends in a
 * blank was cut inside a character, whose bytes were dropped after the
 * trim: git keeps the blank then.
 */
static size_t hunk_header_len(const char *line, size_t n)
{
	const char *end = memmem(line + 2, n - 2, "@@", 2);
	size_t start;

	if (!end)
		return n;
	start = (size_t)(end - line) + 3;
	if (n < start || n - start != FUNC_CONTEXT_MAX)
		return n;
	while (n > start && line[n - 1] && strchr(" \t\v\f\r", line[n - 1]))
		n--;
	return n;
}

/* "index <old>..<new>[ mode]" with full ids (libgit2's), abbreviated as git does. */
static int put_index_line(struct buf *out, const struct git_source *src, const char *line, size_t n)
{
	char old[41], new[41], a[41], b[41];

	if (n < 6 + 40 + 2 + 40 || memcmp(line + 6 + 40, "..", 2) != 0)
		return buf_put(out, line, n) ? RL_ENOMEM : buf_putc(out, '\n');
	memcpy(old, line + 6, 40);
	memcpy(new, line + 6 + 42, 40);
	old[40] = new[40] = '\0';
	if (repo_abbrev(a, src->git, old, src->abbrev) < 0 || repo_abbrev(b, src->git, new, src->abbrev) < 0)
		return buf_put(out, line, n) ? RL_ENOMEM : buf_putc(out, '\n');
	return buf_printf(out, "index %s..%s%.*s\n", a, b, (int)(n - 88), line + 88);
}

static int put_git_text(struct buf *out, const struct git_source *src, const char *text, size_t len,
			unsigned similarity)
{
	bool hunks = len >= 3 && (!strncmp(text, "@@ ", 3) || memmem(text, len, "\n@@ ", 4));
	bool in_hunks = false, index = false;
	size_t i = 0;
	int error = 0;

	while (i < len && !error) {
		const char *line = text + i, *nl = memchr(line, '\n', len - i);
		size_t n = nl ? (size_t)(nl - line) : len - i;

		i += n + (nl ? 1 : 0);
		if (!strncmp(line, "@@ ", 3)) {
			in_hunks = true;
			n = hunk_header_len(line, n);
		} else if (in_hunks) {
			;
		} else if (n > 6 && !strncmp(line, "index ", 6)) {
			index = true;
			error = put_index_line(out, src, line, n);
			continue;
		} else if (!index && n > 13 && !strncmp(line, "Binary files ", 13)) {
			continue;
		} else if (side_line(line, n) && !hunks) {
			continue;
		} else if (similarity && n > 17 && !strncmp(line, "similarity index ", 17)) {
			error = buf_printf(out, "similarity index %u%%\n", similarity);
			continue;
		} else if (side_line(line, n) && line[4] != '"' && memchr(line + 4, ' ', n - 4) &&
			   line[n - 1] != '\t') {
			error = buf_put(out, line, n) ? RL_ENOMEM : buf_puts(out, "\t\n");
			continue;
		}
		error = buf_put(out, line, n);
		if (!error && nl)
			error = buf_putc(out, '\n');
	}
	return error;
}

/*
 * libgit2 1.5 (Debian 12's) frees a static buffer when a 0-byte work-tree
 * file went through a filter (any text or eol attribute, core.autocrlf):
 * git_patch_free aborts (fixed in 1.6). So libgit2 is never asked for the
 * patch of an empty work-tree file: repo_patch.c diffs the old blob against
 * nothing and writes the header with the real modes and ids.
 */
static bool is_empty_workfile(const struct git_source *src, const git_diff_delta *delta)
{
	struct buf path = BUF_INIT;
	struct stat st;
	bool empty;

	if (!src->workdir || delta->status == GIT_DELTA_DELETED ||
	    (delta->new_file.mode & 0170000) != 0100000 || !git_repository_workdir(src->git))
		return false;
	empty = buf_printf(&path, "%s%s", git_repository_workdir(src->git), delta->new_file.path) == 0 &&
		lstat(path.ptr, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0;
	buf_release(&path);
	return empty;
}

static const struct unmerged *unmerged_find(const struct git_shared *sh, size_t delta)
{
	size_t lo = 0, hi = sh->nunmerged;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sh->unmerged[mid].delta == delta)
			return &sh->unmerged[mid];
		if (sh->unmerged[mid].delta < delta)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * An unmerged path's text: the working tree's file against the base, as
 * `git diff <base>` shows it; else git's line for it (`git diff --cached`).
 * The base is the side to show the conflict against: by default HEAD,
 * which is "ours" (stage 2) in a merge, a rebase, a cherry-pick or a
 * revert, so the markers and "their" lines are added lines, what the
 * conflict-markers rule and the LLM rules look at. A combined diff (`git
 * diff`'s "diff --cc") would show them against both parents at once, in a
 * form no rule reads.
 */
static int unmerged_text(struct buf *out, const struct git_source *src, const struct unmerged *u)
{
	int error = 0;
	size_t len = out->len;

	if (src->workdir)
		error = patch_sides_text(out, src->git, &u->old, &u->new);
	if (!error && out->len == len)
		error = buf_printf(out, "* Unmerged path %s\n", u->old.path);
	return error;
}

/* One delta's text as git prints it. */
static int delta_text(struct buf *out, const struct git_source *src, size_t d, unsigned similarity)
{
	const git_diff_delta *delta = git_diff_get_delta(src->diff, d);
	struct patch_count probe;
	struct buf raw = BUF_INIT;
	git_patch *patch = NULL;
	git_buf text = { 0 };
	int error;

	if (delta->status == GIT_DELTA_CONFLICTED)
		error = unmerged_text(&raw, src, unmerged_find(src->shared, d));
	else if (is_empty_workfile(src, delta))
		error = patch_sides_text(&raw, src->git, &delta->old_file, &delta->new_file);
	else if ((error = patch_binary_probe(&probe, src->git, &delta->old_file, &delta->new_file)) > 0)
		error = patch_binary_text(&raw, src->git, &delta->old_file, &delta->new_file);
	else if (!error && (git_patch_from_diff(&patch, src->diff, d) < 0 || git_patch_to_buf(&text, patch) < 0))
		error = patch_fail(delta->new_file.path);
	if (!error)
		error = raw.ptr ? put_git_text(out, src, raw.ptr, raw.len, similarity) :
			put_git_text(out, src, text.ptr ? text.ptr : "", text.size, similarity);
	git_buf_dispose(&text);
	git_patch_free(patch);
	buf_release(&raw);
	return error;
}

/* One delta's counts; a binary file known from its first bytes is not read whole. */
static int delta_count(struct patch_count *out, const struct git_source *src, size_t d)
{
	const git_diff_delta *delta = git_diff_get_delta(src->diff, d);
	const struct unmerged *u;
	git_patch *patch = NULL;
	bool known_same;
	int error;

	memset(out, 0, sizeof(*out));
	if (delta->status == GIT_DELTA_CONFLICTED) {
		u = unmerged_find(src->shared, d);
		return src->workdir ? patch_sides_count(out, src->git, &u->old, &u->new) : 0;
	}
	if (is_empty_workfile(src, delta))
		return patch_sides_count(out, src->git, &delta->old_file, &delta->new_file);
	if ((error = patch_binary_probe(out, src->git, &delta->old_file, &delta->new_file)) != 0)
		return error < 0 ? error : 0;
	/*
	 * git's stat gives a binary file's sizes unless both ids are known and
	 * the same (a work-tree side whose stat changed has none): told before
	 * the patch, which hashes that side into the delta.
	 */
	known_same = (delta->old_file.flags & delta->new_file.flags & GIT_DIFF_FLAG_VALID_ID) &&
		git_oid_equal(&delta->old_file.id, &delta->new_file.id);
	if (git_patch_from_diff(&patch, src->diff, d) < 0)
		return patch_fail(delta->new_file.path);
	if (patch) {
		const git_diff_delta *done = git_patch_get_delta(patch);

		git_patch_line_stats(NULL, &out->additions, &out->deletions, patch);
		if (done->flags & GIT_DIFF_FLAG_BINARY) {
			out->binary = true;
			if (!known_same) {
				out->old_size = done->old_file.size;
				out->new_size = done->new_file.size;
			}
		}
	}
	git_patch_free(patch);
	return 0;
}

/*
 * A file's two sides when both are regular files (not a type change, an
 * addition or a deletion, nor an unmerged path): the first delta's old
 * side, the last one's new side (a rename revline paired has two).
 */
static bool file_sides(const git_diff_file **old, const git_diff_file **new, const struct git_source *src,
		       size_t index)
{
	const git_diff_delta *first = git_diff_get_delta(src->diff, src->first[index]);
	const git_diff_delta *last = src->ndeltas[index] ? first : git_diff_get_delta(src->diff, src->second[index]);

	if (src->ndeltas[index] > 1 || first->status == GIT_DELTA_CONFLICTED)
		return false;
	*old = &first->old_file;
	*new = &last->new_file;
	return ((*old)->mode & 0170000) == 0100000 && ((*new)->mode & 0170000) == 0100000;
}

/* Whether both sides' ids are known and the same: a pure rename, a mode change. */
static bool same_content(const struct git_source *src, size_t index)
{
	const git_diff_file *old, *new;

	return file_sides(&old, &new, src, index) && !git_oid_is_zero(&old->id) && git_oid_equal(&old->id, &new->id);
}

/*
 * A file whose content did not change (a pure rename, a mode change) has no
 * text to tell whether it is binary; git's --numstat says "-\t-" and its
 * --stat "Bin" all the same: the same rule decides here, for the count and
 * for the loaded file. *out is left as it is for other files.
 */
static int unchanged_binary(bool *out, const struct git_source *src, size_t index)
{
	const git_diff_file *old, *new;

	return file_sides(&old, &new, src, index) ? patch_binary_same(out, src->git, old, new) : 0;
}

static int source_load(void *ctx, struct diff *diff, size_t index)
{
	struct git_source *src = ctx;
	struct diff_file *file = &diff->files[index];
	struct buf all = BUF_INIT;
	unsigned char i;
	bool binary = false;
	int error = 0;

	if (!src->ndeltas[index]) {
		struct buf renamed = BUF_INIT;

		error = rename_patch_text(&renamed, src->git,
					  &git_diff_get_delta(src->diff, src->first[index])->old_file,
					  &git_diff_get_delta(src->diff, src->second[index])->new_file,
					  file->similarity);
		if (!error)
			error = put_git_text(&all, src, renamed.ptr ? renamed.ptr : "", renamed.len, file->similarity);
		buf_release(&renamed);
	}
	for (i = 0; i < src->ndeltas[index] && !error; i++)
		error = delta_text(&all, src, i ? src->second[index] : src->first[index], file->similarity);
	if (!error)
		error = diff_file_parse(diff, file, all.ptr ? all.ptr : "", all.len);
	if (!error && !file->nhunks && !(file->flags & DIFF_FILE_BINARY) &&
	    (error = unchanged_binary(&binary, src, index)) == 0 && binary)
		file->flags |= DIFF_FILE_BINARY;
	buf_release(&all);
	return error;
}

static int source_count(void *ctx, struct diff *diff, size_t index)
{
	struct git_source *src = ctx;
	struct diff_file *file = &diff->files[index];
	struct patch_count sum = { 0 }, one;
	unsigned char i;
	int error;

	if (!src->ndeltas[index] &&
	    (error = rename_patch_count(&sum, src->git,
					&git_diff_get_delta(src->diff, src->first[index])->old_file,
					&git_diff_get_delta(src->diff, src->second[index])->new_file)) < 0)
		return error;
	for (i = 0; i < src->ndeltas[index]; i++) {
		if ((error = delta_count(&one, src, i ? src->second[index] : src->first[index])) < 0)
			return error;
		/* A type change: the deletion's old side, the creation's new side. */
		sum.additions += one.additions;
		sum.deletions += one.deletions;
		sum.binary |= one.binary;
		sum.old_size += one.old_size;
		sum.new_size += one.new_size;
	}
	if (!sum.additions && !sum.deletions && same_content(src, index) &&
	    (error = unchanged_binary(&sum.binary, src, index)) < 0)
		return error;
	file->additions = (uint32_t)sum.additions;
	file->deletions = (uint32_t)sum.deletions;
	if (sum.binary) {
		file->flags |= DIFF_FILE_BINARY;
		file->old_size = sum.old_size;
		file->new_size = sum.new_size;
	}
	file->flags |= DIFF_FILE_COUNTED | DIFF_FILE_BINARY_KNOWN;
	diff->counted++;
	diff->additions += sum.additions;
	diff->deletions += sum.deletions;
	return 0;
}

static enum diff_status status_of(git_delta_t status)
{
	switch (status) {
	case GIT_DELTA_ADDED: case GIT_DELTA_UNTRACKED: return DIFF_ADDED;
	case GIT_DELTA_DELETED: return DIFF_DELETED;
	case GIT_DELTA_RENAMED: return DIFF_RENAMED;
	case GIT_DELTA_COPIED: return DIFF_COPIED;
	case GIT_DELTA_TYPECHANGE: return DIFF_TYPECHANGE;
	default: return DIFF_MODIFIED;
	}
}

static bool is_added(const git_diff_delta *d)
{
	return d->status == GIT_DELTA_ADDED || d->status == GIT_DELTA_UNTRACKED;
}

/* A deletion and an addition of one path with different kinds (file, link). */
static bool is_typechange_pair(const git_diff_delta *a, const git_diff_delta *b)
{
	if (a->status != GIT_DELTA_DELETED) {
		const git_diff_delta *t = a;

		a = b;
		b = t;
	}
	return a->status == GIT_DELTA_DELETED && is_added(b) &&
		!strcmp(a->old_file.path, b->new_file.path) &&
		(a->old_file.mode & 0170000) != (b->new_file.mode & 0170000);
}

/*
 * libgit2 keeps a working-tree file whose mode went back to what the base
 * had (chmod +x committed, then chmod -x) as a change with nothing in it;
 * git shows nothing. Such a delta has equal modes and a new side whose
 * content was never hashed. When the index entry agrees with the base,
 * libgit2 compared the working tree with the index itself and its verdict
 * stands, so nothing is read; otherwise (rare) the file is hashed.
 */
static bool is_unchanged(git_repository *git, git_index *index, const git_diff_delta *delta)
{
	const git_index_entry *entry;
	git_buf text = { 0 };
	git_oid oid;
	bool same;

	if (delta->status != GIT_DELTA_MODIFIED || delta->old_file.mode != delta->new_file.mode)
		return false;
	if (delta->new_file.flags & GIT_DIFF_FLAG_VALID_ID)
		return git_oid_equal(&delta->old_file.id, &delta->new_file.id);
	if (!index)
		return false;
	entry = git_index_get_bypath(index, delta->new_file.path, 0);
	if (entry && entry->mode == delta->old_file.mode && git_oid_equal(&entry->id, &delta->old_file.id))
		return false;
	if (repo_workdir_content(&text, git, delta->new_file.path, delta->new_file.mode) < 0)
		return false;
	same = git_odb_hash(&oid, text.ptr, text.size, GIT_OBJECT_BLOB) == 0 &&
		git_oid_equal(&oid, &delta->old_file.id);
	git_buf_dispose(&text);
	return same;
}

/*
 * An entry `git add -N` made: the index holds the empty blob for it, flagged
 * intent-to-add, and git leaves it out of the index's diff (`git diff
 * --cached`); against the working tree it is a new file with its content.
 */
static bool is_intent_to_add(git_index *index, const git_diff_delta *delta)
{
	const git_index_entry *entry;

	if (!index || delta->status != GIT_DELTA_ADDED)
		return false;
	entry = git_index_get_bypath(index, delta->new_file.path, 0);
	return entry && (entry->flags_extended & GIT_INDEX_ENTRY_INTENT_TO_ADD);
}

/* An unmerged path: added, deleted or modified by what its sides hold (see struct unmerged). */
static int file_from_unmerged(struct diff *diff, struct git_source *src, size_t d)
{
	const struct unmerged *u = unmerged_find(src->shared, d);
	enum diff_status status = DIFF_MODIFIED;
	struct diff_file *file;
	int error;

	if (src->workdir && !u->old.mode && u->new.mode)
		status = DIFF_ADDED;
	else if (src->workdir && u->old.mode && !u->new.mode)
		status = DIFF_DELETED;
	else if (u->old.mode && u->new.mode && (u->old.mode & 0170000) != (u->new.mode & 0170000))
		status = DIFF_TYPECHANGE;
	if ((error = diff_file_add(&file, diff, status, u->old.path, u->old.path, u->old.mode, u->new.mode)) < 0)
		return error;
	file->conflict = u->kind;
	src->first[diff->nfiles - 1] = src->second[diff->nfiles - 1] = d;
	src->ndeltas[diff->nfiles - 1] = 1;
	return 0;
}

static int file_from_delta(struct diff *diff, struct git_source *src, size_t d, bool pair)
{
	const git_diff_delta *delta = git_diff_get_delta(src->diff, d);
	const git_diff_delta *next = pair ? git_diff_get_delta(src->diff, d + 1) : NULL;
	size_t del = d, add = d + 1;

	if (delta->status == GIT_DELTA_CONFLICTED)
		return file_from_unmerged(diff, src, d);
	if (pair && delta->status != GIT_DELTA_DELETED) {
		const git_diff_delta *t = delta;

		delta = next;
		next = t;
		del = d + 1;
		add = d;
	}
	struct diff_file *file;
	enum diff_status status = pair ? DIFF_TYPECHANGE : status_of(delta->status);
	uint32_t new_mode = pair ? next->new_file.mode : delta->new_file.mode;
	int error;

	error = diff_file_add(&file, diff, status, delta->old_file.path,
			      status == DIFF_DELETED ? delta->old_file.path : delta->new_file.path,
			      status == DIFF_ADDED ? 0 : delta->old_file.mode,
			      status == DIFF_DELETED ? 0 : new_mode);
	if (error < 0)
		return error;
	if (delta->flags & GIT_DIFF_FLAG_BINARY)
		file->flags |= DIFF_FILE_BINARY | DIFF_FILE_BINARY_KNOWN;
	else if (delta->flags & GIT_DIFF_FLAG_NOT_BINARY)
		file->flags |= DIFF_FILE_BINARY_KNOWN;
	src->first[diff->nfiles - 1] = del;
	src->second[diff->nfiles - 1] = add;
	src->ndeltas[diff->nfiles - 1] = pair ? 2 : 1;
	return 0;
}

/* A rename revline paired (rename.c): the deletion's old side, the addition's new side. */
static int file_from_rename(struct diff *diff, struct git_source *src, size_t del, size_t add,
			    unsigned score)
{
	const git_diff_file *old = &git_diff_get_delta(src->diff, del)->old_file;
	const git_diff_file *new = &git_diff_get_delta(src->diff, add)->new_file;
	struct diff_file *file;
	int error;

	if ((error = diff_file_add(&file, diff, DIFF_RENAMED, old->path, new->path, old->mode, new->mode)) < 0)
		return error;
	file->similarity = score * 100 / SIMILARITY_MAX;
	src->first[diff->nfiles - 1] = del;
	src->second[diff->nfiles - 1] = add;
	src->ndeltas[diff->nfiles - 1] = 0;
	return 0;
}

static bool is_deleted(const git_diff_delta *d)
{
	return d->status == GIT_DELTA_DELETED;
}

/*
 * The model's files, in git's order: a rename where its new path is, its
 * deletion left out. The pairs are those known so far.
 */
static int files_from_entries(struct diff *diff, struct git_source *src)
{
	struct git_shared *sh = src->shared;
	size_t n = sh->nentries ? sh->nentries : 1, e;
	int error = 0;

	src->first = calloc(n, sizeof(*src->first));
	src->second = calloc(n, sizeof(*src->second));
	src->ndeltas = calloc(n, 1);
	if (!src->first || !src->second || !src->ndeltas)
		return error_nomem();
	for (e = 0; e < sh->nentries && !error; e++) {
		const struct delta_entry *entry = &sh->entries[e];
		const git_diff_delta *delta = git_diff_get_delta(src->diff, entry->delta);
		size_t from = RENAME_NONE;
		unsigned score = 0;

		if (!entry->pair && entry->candidate != RENAME_NONE && sh->renames) {
			if (is_deleted(delta) && rename_used(sh->renames, entry->candidate))
				continue;
			if (!is_deleted(delta))
				from = rename_source(sh->renames, entry->candidate, &score);
		}
		if (from != RENAME_NONE)
			error = file_from_rename(diff, src, sh->entries[sh->src_entry[from]].delta,
						 entry->delta, score);
		else
			error = file_from_delta(diff, src, entry->delta, entry->pair);
	}
	return error;
}

static int entry_add(struct git_shared *sh, size_t d, bool pair)
{
	const git_diff_delta *delta = git_diff_get_delta(sh->diff, d);
	struct delta_entry *entry = &sh->entries[sh->nentries];
	int error = 0;

	*entry = (struct delta_entry){ d, pair, RENAME_NONE };
	if (!pair && is_deleted(delta) &&
	    !(error = ARRAY_GROW(sh->src_entry, sh->src_alloc, sh->nsrc + 1))) {
		entry->candidate = sh->nsrc;
		sh->src_entry[sh->nsrc++] = sh->nentries;
	} else if (!pair && is_added(delta) &&
		   !(error = ARRAY_GROW(sh->dst_entry, sh->dst_alloc, sh->ndst + 1))) {
		entry->candidate = sh->ndst;
		sh->dst_entry[sh->ndst++] = sh->nentries;
	}
	sh->nentries++;
	return error;
}

/* The deltas to show (type change halves joined, unchanged files left out). */
static int entries_of(struct git_shared *sh, enum target_side side)
{
	size_t n = git_diff_num_deltas(sh->diff), d;
	git_index *index = NULL;
	int error = 0;

	if (!(sh->entries = calloc(n ? n : 1, sizeof(*sh->entries))))
		return error_nomem();
	if (side != SIDE_TREE && git_repository_index(&index, sh->git) < 0)
		index = NULL;
	for (d = 0; d < n && !error; d++) {
		bool pair = d + 1 < n && is_typechange_pair(git_diff_get_delta(sh->diff, d),
							    git_diff_get_delta(sh->diff, d + 1));

		if (!pair && (is_unchanged(sh->git, index, git_diff_get_delta(sh->diff, d)) ||
			      (side == SIDE_INDEX && is_intent_to_add(index, git_diff_get_delta(sh->diff, d)))))
			continue;
		error = entry_add(sh, d, pair);
		if (pair)
			d++;
	}
	git_index_free(index);
	return error;
}

static int read_side(void *ctx, git_buf *out, const git_diff_file *file)
{
	return repo_content_of(out, ctx, file);
}

/* The rename detection over the deletions and additions (nothing computed yet). */
static int renames_of(struct git_shared *sh)
{
	const git_diff_file **srcs = calloc(sh->nsrc ? sh->nsrc : 1, sizeof(*srcs));
	const git_diff_file **dsts = calloc(sh->ndst ? sh->ndst : 1, sizeof(*dsts));
	struct rename_options opts = { 0, 0, read_side, sh->git };
	size_t i;
	int32_t limit;
	git_config *config = NULL;
	int error = error_nomem();

	if (srcs && dsts) {
		for (i = 0; i < sh->nsrc; i++)
			srcs[i] = &git_diff_get_delta(sh->diff, sh->entries[sh->src_entry[i]].delta)->old_file;
		for (i = 0; i < sh->ndst; i++)
			dsts[i] = &git_diff_get_delta(sh->diff, sh->entries[sh->dst_entry[i]].delta)->new_file;
		if (git_repository_config_snapshot(&config, sh->git) == 0 &&
		    git_config_get_int32(&limit, config, "diff.renameLimit") == 0 && limit > 0)
			opts.limit = (size_t)limit;
		git_config_free(config);
		error = rename_new(&sh->renames, sh->git, srcs, sh->nsrc, dsts, sh->ndst, &opts);
	}
	free(srcs);
	free(dsts);
	return error;
}

static int tree_of(git_tree **out, git_repository *git, const char *hex);

/* The old side of an unmerged path: the base tree's file, if it has one. */
static void unmerged_old(git_diff_file *old, git_tree *base, const char *path)
{
	git_tree_entry *entry = NULL;

	memset(old, 0, sizeof(*old));
	old->path = path;
	if (!base || git_tree_entry_bypath(&entry, base, path) < 0) {
		git_error_clear();
		return;
	}
	if (git_tree_entry_type(entry) == GIT_OBJECT_BLOB) {
		old->mode = git_tree_entry_filemode(entry);
		git_oid_cpy(&old->id, git_tree_entry_id(entry));
		old->flags = GIT_DIFF_FLAG_VALID_ID | GIT_DIFF_FLAG_EXISTS;
	}
	git_tree_entry_free(entry);
}

/*
 * The new side of an unmerged path in the working tree: the file there, a
 * symbolic link or none (a directory, or nothing). Its mode is git's: the
 * executable bit, unless core.fileMode is false (then the old side's).
 */
static void unmerged_new(git_diff_file *new, git_repository *git, const git_diff_file *old, bool filemode)
{
	struct buf path = BUF_INIT;
	struct stat st;

	if (buf_printf(&path, "%s%s", git_repository_workdir(git), old->path) == 0 && lstat(path.ptr, &st) == 0) {
		if (S_ISLNK(st.st_mode))
			new->mode = GIT_FILEMODE_LINK;
		else if (S_ISREG(st.st_mode) && !filemode && (old->mode & 0170000) == 0100000)
			new->mode = old->mode;
		else if (S_ISREG(st.st_mode))
			new->mode = st.st_mode & 0100 ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
		new->size = new->mode ? (uint64_t)st.st_size : 0;
		new->flags = new->mode ? GIT_DIFF_FLAG_EXISTS : 0;
	}
	buf_release(&path);
}

/* The unmerged paths (libgit2's conflicted deltas): their kinds from the index, their sides. */
static int unmerged_of(struct git_shared *sh, const struct target *t)
{
	size_t n = git_diff_num_deltas(sh->diff), d, alloc = 0;
	git_index *index = NULL;
	git_tree *base = NULL;
	git_config *config = NULL;
	int filemode = 1, error = 0;

	for (d = 0; d < n && !error; d++) {
		const git_diff_delta *delta = git_diff_get_delta(sh->diff, d);
		struct unmerged *u;

		if (delta->status != GIT_DELTA_CONFLICTED)
			continue;
		if (!index && (git_repository_index(&index, sh->git) < 0 ||
			       (error = tree_of(&base, sh->git, t->base_oid)) < 0)) {
			error = error ? error : patch_fail("the index");
			break;
		}
		if (!config && git_repository_config_snapshot(&config, sh->git) == 0 &&
		    git_config_get_bool(&filemode, config, "core.filemode") < 0)
			filemode = 1;
		if ((error = ARRAY_GROW(sh->unmerged, alloc, sh->nunmerged + 1)) < 0)
			break;
		u = &sh->unmerged[sh->nunmerged++];
		u->delta = d;
		u->kind = repo_conflict_of(index, delta->old_file.path);
		unmerged_old(&u->old, base, delta->old_file.path);
		memset(&u->new, 0, sizeof(u->new));
		u->new.path = u->old.path;
		/* The index's path is not checked by libgit2: it is read only when it is in the tree. */
		if (sh->workdir && repo_workdir_reachable(sh->git, u->old.path))
			unmerged_new(&u->new, sh->git, &u->old, filemode != 0);
	}
	git_error_clear();
	git_config_free(config);
	git_tree_free(base);
	git_index_free(index);
	return error;
}

static int tree_of(git_tree **out, git_repository *git, const char *hex)
{
	git_oid oid;
	git_commit *commit = NULL;
	int error;

	*out = NULL;
	if (!*hex)
		return 0;
	if (git_oid_fromstr(&oid, hex) < 0 || git_commit_lookup(&commit, git, &oid) < 0)
		return error_set(RL_EBADREF, "cannot read commit %s", hex);
	error = git_commit_tree(out, commit) < 0 ? error_set(RL_EIO, "cannot read the tree of %s", hex) : 0;
	git_commit_free(commit);
	return error;
}

static int git_diff_of(git_diff **out, git_repository *git, const struct target *t, const git_strarray *paths)
{
	git_diff_options opts;
	git_tree *base = NULL, *head = NULL;
	int error, rc;

	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_INDENT_HEURISTIC;
	if (paths) {
		opts.pathspec = *paths;
		opts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	}
	opts.id_abbrev = GIT_OID_HEXSZ;         /* abbreviated as git does, in put_index_line */
	if (t->untracked)
		opts.flags |= GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS |
			GIT_DIFF_SHOW_UNTRACKED_CONTENT;
	if ((error = tree_of(&base, git, t->base_oid)) < 0 ||
	    (error = tree_of(&head, git, t->side == SIDE_TREE ? t->head_oid : "")) < 0)
		goto done;
	if (t->side == SIDE_TREE)
		rc = git_diff_tree_to_tree(out, git, base, head, &opts);
	else if (t->side == SIDE_INDEX)
		rc = git_diff_tree_to_index(out, git, base, NULL, &opts);
	else
		rc = git_diff_tree_to_workdir_with_index(out, git, base, &opts);
	if (rc < 0) {
		const git_error *e = git_error_last();

		error = error_set(RL_EIO, "cannot compute the diff of %s: %s", t->description,
				  e && e->message ? e->message : "libgit2 error");
		goto done;
	}
done:
	git_tree_free(base);
	git_tree_free(head);
	return error;
}

/*
 * Whether no attributes file along the diff's paths can say how a file is
 * diffed: none names "diff" or "binary" (the macro that unsets it). Every
 * path's diff driver is then git's default.
 */
static int diff_attr_silent(bool *out, git_repository *git, git_diff *diff)
{
	static const char *const words[] = { "diff", "binary", NULL };
	size_t n = git_diff_num_deltas(diff), d;
	const char **paths = malloc((2 * n + 1) * sizeof(*paths));
	int error;

	*out = false;
	if (!paths)
		return error_nomem();
	for (d = 0; d < n; d++) {
		paths[2 * d] = git_diff_get_delta(diff, d)->old_file.path;
		paths[2 * d + 1] = git_diff_get_delta(diff, d)->new_file.path;
	}
	error = repo_attr_silent(out, git, paths, 2 * n, words);
	free(paths);
	return error;
}

/*
 * The libgit2 diff. Between two trees, when no attributes file can say how
 * a file is diffed (diff_attr_silent), it is made on the handle without
 * the work tree (repo_objects): libgit2 looks up every patch's diff
 * driver, and with a work tree that is a realpath of the file and a stat
 * of each of its folders, 12% of revline diff's time on a big range; the
 * answer is git's default driver either way.
 */
static int diff_made(struct git_shared *sh, struct repo *repo, const struct target *t, const git_strarray *paths)
{
	git_repository *plain;
	bool quiet = false;
	int error;

	if (t->side != SIDE_TREE || (plain = repo_objects(repo)) == repo->git)
		return git_diff_of(&sh->diff, repo->git, t, paths);
	if (git_diff_of(&sh->diff, plain, t, paths) == 0 &&
	    (error = diff_attr_silent(&quiet, repo->git, sh->diff)) < 0)
		return error;
	if (quiet)
		return 0;
	error_clear();
	git_diff_free(sh->diff);
	sh->diff = NULL;
	return git_diff_of(&sh->diff, repo->git, t, paths);
}

int diff_staged(git_diff **out, git_repository *git, const struct target *t, git_index *index)
{
	git_tree *base = NULL;
	int error;

	*out = NULL;
	if ((error = tree_of(&base, git, t->base_oid)) < 0)
		return error;
	if (git_diff_tree_to_index(out, git, base, index, NULL) < 0)
		error = patch_fail("the index");
	git_tree_free(base);
	return error;
}

/* What a quick listing (repo_quick.c) counted, for the same files by path: both are in path order. */
static void counts_keep_by_path(struct diff *diff, const struct diff *prev)
{
	size_t i = 0, j = 0;

	while (i < diff->nfiles && j < prev->nfiles) {
		struct diff_file *file = &diff->files[i];
		const struct diff_file *was = &prev->files[j];
		int cmp = strcmp(file->path, was->path);

		if (cmp) {
			i += cmp < 0;
			j += cmp > 0;
			continue;
		}
		if (file->status == was->status && !strcmp(file->old_path, was->old_path) &&
		    file->old_mode == was->old_mode && file->new_mode == was->new_mode &&
		    (was->flags & DIFF_FILE_COUNTED))
			diff_file_counts_copy(diff, file, was);
		i++;
		j++;
	}
}

/* What was counted in prev stays known for the files that are the same in diff. */
static int counts_keep(struct diff *diff, const struct diff *prev)
{
	const struct git_source *a = prev->source.ctx, *b = diff->source.ctx;
	size_t n, i, *at;

	if (quick_is(prev)) {
		counts_keep_by_path(diff, prev);
		return 0;
	}
	n = git_diff_num_deltas(a->diff);
	if (!(at = malloc((n ? n : 1) * sizeof(*at))))
		return error_nomem();
	for (i = 0; i < n; i++)
		at[i] = SIZE_MAX;
	for (i = 0; i < prev->nfiles; i++)
		if (a->ndeltas[i] && (prev->files[i].flags & DIFF_FILE_COUNTED))
			at[a->first[i]] = i;
	for (i = 0; i < diff->nfiles; i++) {
		const struct diff_file *was;
		struct diff_file *file = &diff->files[i];

		if (!b->ndeltas[i] || at[b->first[i]] == SIZE_MAX)
			continue;
		was = &prev->files[at[b->first[i]]];
		diff_file_counts_copy(diff, file, was);
	}
	free(at);
	return 0;
}

/* A model of the shared diff with the pairs known so far (what prev counted kept). */
int diff_shared_model(struct diff **out, struct git_shared *sh, const struct diff *prev)
{
	struct git_source *src = calloc(1, sizeof(*src));
	struct diff *diff = NULL;
	int error;

	*out = NULL;
	if (!src)
		return error_nomem();
	src->shared = sh;
	sh->refs++;
	src->diff = sh->diff;
	src->git = sh->git;
	src->abbrev = sh->abbrev;
	src->workdir = sh->workdir;
	if ((error = diff_new(&diff)) < 0) {
		source_free(src);
		return error;
	}
	diff->source.load = source_load;
	diff->source.count = source_count;
	diff->source.free = source_free;
	diff->source.ctx = src;
	diff->in_progress = sh->in_progress;
	diff->unmerged_text = sh->workdir;
	if ((error = files_from_entries(diff, src)) < 0 || (prev && (error = counts_keep(diff, prev)) < 0)) {
		diff_free(diff);
		return error;
	}
	*out = diff;
	return 0;
}

int diff_shared_make(struct git_shared **out, struct repo *repo, const struct target *target,
		     const git_strarray *paths)
{
	struct git_shared *sh = calloc(1, sizeof(*sh));
	int error;

	*out = NULL;
	if (!sh)
		return error_nomem();
	sh->git = repo->git;
	sh->refs = 1;
	sh->abbrev = repo_abbrev_len(repo->git);
	sh->workdir = target->side == SIDE_WORKDIR;
	sh->in_progress = target->side == SIDE_TREE ? NULL : repo_in_progress(repo);
	if ((error = diff_made(sh, repo, target, paths)) == 0 &&
	    (error = unmerged_of(sh, target)) == 0 &&
	    (error = entries_of(sh, target->side)) == 0 &&
	    (paths || (error = renames_of(sh)) == 0)) {
		*out = sh;
		return 0;
	}
	diff_shared_release(sh);
	return error;
}

static int diff_start(struct diff **out, struct repo *repo, const struct target *target)
{
	struct git_shared *sh;
	int error;

	*out = NULL;
	if ((error = diff_shared_make(&sh, repo, target, NULL)) < 0)
		return error;
	error = diff_shared_model(out, sh, NULL);
	diff_shared_release(sh);
	return error;
}

int repo_diff_start(struct diff **out, struct repo *repo, const struct target *target)
{
	int error;

	if ((error = quick_start(out, repo, target)) < 0 || *out)
		return error;
	return diff_start(out, repo, target);
}

bool repo_diff_quick(const struct diff *diff)
{
	return quick_is(diff);
}

/* The shared diff: a quick listing's once made (NULL before). */
static struct git_shared *shared_of(const struct diff *diff)
{
	if (quick_is(diff))
		return quick_shared(diff);
	return diff->source.free == source_free ? ((struct git_source *)diff->source.ctx)->shared : NULL;
}

int repo_diff_renames_step(struct diff *diff, int64_t budget_us)
{
	struct git_shared *sh = shared_of(diff);
	int error;

	if (!sh && quick_is(diff)) {
		/* libgit2's listing first, in one go; the pairing in the next slices. */
		if ((error = quick_shared_make(&sh, diff)) < 0)
			return error;
		return !sh->renames || rename_done(sh->renames) ? 1 : 0;
	}
	if (!sh || !sh->renames)
		return 1;
	return rename_step(sh->renames, budget_us);
}

bool repo_diff_renames_done(const struct diff *diff)
{
	struct git_shared *sh = shared_of(diff);

	if (!sh && quick_is(diff))
		return false;
	return !sh || !sh->renames || rename_done(sh->renames);
}

bool repo_diff_renames_pending(const struct diff *diff)
{
	bool deleted = false, added = false;
	size_t i;

	if (repo_diff_renames_done(diff))
		return false;
	for (i = 0; i < diff->nfiles && !(deleted && added); i++) {
		deleted |= diff->files[i].status == DIFF_DELETED;
		added |= diff->files[i].status == DIFF_ADDED;
	}
	return deleted && added;
}

bool repo_diff_renames_exact(struct diff *diff)
{
	struct git_shared *sh = shared_of(diff);

	if (!sh && quick_is(diff))
		return false;
	return !sh || !sh->renames || rename_exact_done(sh->renames);
}

int repo_diff_renamed(struct diff **out, struct diff *diff)
{
	struct git_shared *sh = shared_of(diff);
	int error;

	*out = NULL;
	if (!sh && quick_is(diff) && (error = quick_shared_make(&sh, diff)) < 0)
		return error;
	if (!sh)
		return error_set(RL_EUSAGE, "this diff was not made by repo_diff");
	return diff_shared_model(out, sh, diff);
}

int repo_diff(struct diff **out, struct repo *repo, const struct target *target)
{
	struct diff *first = NULL;
	struct git_shared *sh;
	int error;

	*out = NULL;
	if ((error = diff_start(&first, repo, target)) < 0)
		return error;
	sh = shared_of(first);
	if (!sh->nsrc || !sh->ndst) {
		*out = first;
		return 0;
	}
	if ((error = rename_run(sh->renames)) == 0)
		error = repo_diff_renamed(out, first);
	diff_free(first);
	return error;
}

int repo_untracked_count(size_t *out, struct repo *repo, const struct target *target)
{
	git_status_options opts;
	git_status_list *list = NULL;
	size_t i, n;

	*out = 0;
	if (target->side != SIDE_WORKDIR || target->untracked || !repo->workdir)
		return 0;
	git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
	opts.show = GIT_STATUS_SHOW_WORKDIR_ONLY;
	opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
	if (git_status_list_new(&list, repo->git, &opts) < 0)
		return error_set(RL_EIO, "cannot list the untracked files");
	n = git_status_list_entrycount(list);
	for (i = 0; i < n; i++)
		*out += (git_status_byindex(list, i)->status & GIT_STATUS_WT_NEW) != 0;
	git_status_list_free(list);
	return 0;
}
