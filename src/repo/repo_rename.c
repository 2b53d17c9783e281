/*
 * The patch of a rename that revline found (rename.c): libgit2 diffs the two
 * contents; the header is written here in git's order (builtin_diff and
 * fill_metainfo in git's diff.c):
 *
 *   diff --git a/old b/new
 *   old mode / new mode        (when the modes differ)
 *   similarity index N%
 *   rename from old / rename to new
 *   index a..b[ mode]          (when the contents differ)
 *   --- / +++ and hunks, or "Binary files ... differ"
 */
#include "repo_rename.h"
#include "repo_content.h"
#include "status.h"

#include <string.h>

/* The patch of the two contents; it reads a and b, which live as long as it. */
static int patch_of(git_patch **out, git_buf *a, git_buf *b, git_repository *git,
		    const git_diff_file *old, const git_diff_file *new)
{
	git_diff_options opts;
	int rc = -1;

	*out = NULL;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_INDENT_HEURISTIC;
	opts.id_abbrev = GIT_OID_HEXSZ;         /* abbreviated as git does, in repo_diff.c */
	if (repo_content_of(a, git, old) == 0 && repo_content_of(b, git, new) == 0)
		rc = git_patch_from_buffers(out, a->ptr, a->size, old->path, b->ptr, b->size, new->path, &opts);
	if (rc < 0) {
		const git_error *e = git_error_last();

		return error_set(RL_EIO, "%s: cannot compute the diff: %s", new->path,
				 e && e->message ? e->message : "libgit2 error");
	}
	return 0;
}

/* The index line and what follows it in libgit2's text, with git's mode suffix. */
static int put_body(struct buf *out, const char *text, size_t len, const git_diff_file *old,
		    const git_diff_file *new)
{
	const char *index = NULL, *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (n > 6 && !strncmp(p, "index ", 6)) {
			index = p;
			break;
		}
		p += n + (nl ? 1 : 0);
	}
	if (!index)
		return 0;
	{
		const char *nl = memchr(index, '\n', (size_t)(end - index));
		const char *space = memchr(index + 6, ' ', (size_t)((nl ? nl : end) - index - 6));
		size_t n = (size_t)((space ? space : nl ? nl : end) - index);
		int error = buf_put(out, index, n);

		if (!error && old->mode == new->mode)
			error = buf_printf(out, " %06o", old->mode);
		if (!error)
			error = buf_putc(out, '\n');
		if (!error && nl)
			error = buf_put(out, nl + 1, (size_t)(end - nl - 1));
		return error;
	}
}

int rename_patch_text(struct buf *out, git_repository *git, const git_diff_file *old,
		      const git_diff_file *new, unsigned similarity)
{
	git_patch *patch = NULL;
	git_buf text = { 0 }, a = { 0 }, b = { 0 };
	int error;

	if ((error = buf_puts(out, "diff --git ")) < 0 || (error = buf_put_quoted(out, "a/", old->path)) < 0 ||
	    (error = buf_putc(out, ' ')) < 0 || (error = buf_put_quoted(out, "b/", new->path)) < 0 ||
	    (error = buf_putc(out, '\n')) < 0)
		return error;
	if (old->mode != new->mode &&
	    (error = buf_printf(out, "old mode %06o\nnew mode %06o\n", old->mode, new->mode)) < 0)
		return error;
	if ((error = buf_printf(out, "similarity index %u%%\n", similarity)) < 0 ||
	    (error = buf_put_quoted(out, "rename from ", old->path)) < 0 ||
	    (error = buf_put_quoted(out, "\nrename to ", new->path)) < 0 || (error = buf_putc(out, '\n')) < 0)
		return error;
	if ((error = patch_of(&patch, &a, &b, git, old, new)) < 0)
		goto done;
	if (patch && git_patch_to_buf(&text, patch) < 0)
		error = error_set(RL_EIO, "%s: cannot compute the diff", new->path);
	else if (text.size)
		error = put_body(out, text.ptr, text.size, old, new);
done:
	git_buf_dispose(&text);
	git_patch_free(patch);
	git_buf_dispose(&a);
	git_buf_dispose(&b);
	return error;
}

int rename_patch_count(struct patch_count *out, git_repository *git, const git_diff_file *old,
		       const git_diff_file *new)
{
	git_patch *patch = NULL;
	git_buf a = { 0 }, b = { 0 };
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = patch_of(&patch, &a, &b, git, old, new)) == 0 && patch) {
		git_patch_line_stats(NULL, &out->additions, &out->deletions, patch);
		out->binary = (git_patch_get_delta(patch)->flags & GIT_DIFF_FLAG_BINARY) != 0;
		/* git's stat gives a binary rename's sizes only when the contents differ. */
		if (out->binary && (a.size != b.size || (a.size && memcmp(a.ptr, b.ptr, a.size)))) {
			out->old_size = a.size;
			out->new_size = b.size;
		}
	}
	git_patch_free(patch);
	git_buf_dispose(&a);
	git_buf_dispose(&b);
	return error;
}
