/* What git would hash for a side of a diff: the blob, or the working-tree file as git reads it. */
#include "repo_content.h"
#include "buf.h"

#include <limits.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * A working-tree file's content as git would hash it, read by revline rather
 * than by libgit2 (which opens a path without looking at what it is): a
 * symbolic link is its target's name, never what it points to; anything but
 * a regular file is refused without being opened (see buf_read_regular).
 */
int repo_workdir_content(git_buf *out, git_repository *git, const char *rel, uint32_t mode)
{
	git_filter_list *filters = NULL;
	struct buf path = BUF_INIT, text = BUF_INIT;
	char target[PATH_MAX];
	ssize_t n;
	int rc = -1;

	if (!git_repository_workdir(git) ||
	    buf_printf(&path, "%s%s", git_repository_workdir(git), rel) < 0)
		goto done;
	if ((mode & 0170000) == 0120000) {
		if ((n = readlink(path.ptr, target, sizeof(target))) >= 0)
			rc = git_buf_set(out, target, (size_t)n);
		goto done;
	}
	if (buf_read_regular(&text, path.ptr, rel, 0) < 0)
		goto done;
	/* Nothing stays nothing through any filter; libgit2 1.5 mishandles an empty one (repo_diff.c). */
	if (!text.len) {
		rc = git_buf_set(out, "", 0);
		goto done;
	}
	if (git_filter_list_load(&filters, git, NULL, rel, GIT_FILTER_TO_ODB, 0) < 0)
		goto done;
	rc = filters ? git_filter_list_apply_to_buffer(out, filters, text.ptr ? text.ptr : "", text.len) :
		git_buf_set(out, text.ptr ? text.ptr : "", text.len);
done:
	git_filter_list_free(filters);
	buf_release(&text);
	buf_release(&path);
	return rc;
}

int repo_content_of(git_buf *out, git_repository *git, const git_diff_file *side)
{
	git_blob *blob = NULL;
	int rc;

	if ((side->flags & GIT_DIFF_FLAG_VALID_ID) && git_blob_lookup(&blob, git, &side->id) == 0) {
		rc = git_buf_set(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
		git_blob_free(blob);
		return rc;
	}
	return repo_workdir_content(out, git, side->path, side->mode);
}

bool repo_path_safe(const char *path)
{
	const char *p = path;

	if (!*path || *path == '/')
		return false;
	while (p) {
		if (!strncmp(p, "..", 2) && (p[2] == '/' || !p[2]))
			return false;
		p = strchr(p, '/');
		if (p)
			p++;
	}
	return true;
}

bool repo_workdir_reachable(git_repository *git, const char *rel)
{
	struct buf path = BUF_INIT;
	struct stat st;
	const char *c = rel, *end = NULL;
	bool ok = repo_path_safe(rel) && git_repository_workdir(git) &&
		buf_puts(&path, git_repository_workdir(git)) == 0;
	size_t root = path.len;

	for (; ok && c; c = end ? end + 1 : NULL) {
		end = strchr(c, '/');
		ok = !(end ? (size_t)(end - c) == 4 : strlen(c) == 4) || strncasecmp(c, ".git", 4) != 0;
		if (ok && end) {
			path.len = root;
			ok = buf_put(&path, rel, (size_t)(end - rel)) == 0 && lstat(path.ptr, &st) == 0 &&
				S_ISDIR(st.st_mode);
		}
	}
	buf_release(&path);
	return ok;
}
