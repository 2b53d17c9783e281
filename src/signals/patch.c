/*
 * Fixes applied to files: the ids of files, previews, atomic writes and
 * undo. The snippets, and the answers put back in their shape, are
 * patch_text.c's.
 */
#include "patch.h"
#include "status.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
/* The hashing state on the stack: xxHash declares it for this. */
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

/* What names a temporary file of an apply: .NAME.revline-XXXXXX beside the file. */
#define LEFTOVER_MARK ".revline-"

/*
 * A file's contents in pieces (the file after a change is the bytes
 * before it, the replacement, the bytes after it), so that neither the
 * id nor the write needs the whole new file copied into one buffer.
 */
struct span {
	const char *ptr;
	size_t len;
};

#define ID_PREFIX "xxh64:"

static void id_of(char out[PATCH_ID_SIZE], const struct span *s, size_t n)
{
	XXH64_state_t state;
	size_t i, total = 0;

	XXH64_reset(&state, 0);
	for (i = 0; i < n; i++) {
		XXH64_update(&state, s[i].ptr, s[i].len);
		total += s[i].len;
	}
	snprintf(out, PATCH_ID_SIZE, ID_PREFIX "%016" PRIx64 ":%zu", (uint64_t)XXH64_digest(&state), total);
}

void patch_file_id(char out[PATCH_ID_SIZE], const char *data, size_t len)
{
	struct span s = { data, len };

	id_of(out, &s, 1);
}

/* An id stored by an older revline: the git blob id, 40 hex digits. */
static bool id_is_blob(const char *id)
{
	size_t n = strspn(id, "0123456789abcdef");

	return n == 40 && !id[n];
}

static bool blob_matches(const char *id, const struct span *s, size_t n)
{
	struct buf all = BUF_INIT;
	char hex[GIT_OID_HEXSZ + 1];
	git_oid oid;
	size_t i;
	bool same = false;

	for (i = 0; i < n; i++)
		if (buf_put(&all, s[i].ptr, s[i].len) < 0)
			goto done;
	git_libgit2_init();
	if (git_odb_hash(&oid, all.ptr ? all.ptr : "", all.len, GIT_OBJECT_BLOB) == 0)
		same = !strcmp(git_oid_tostr(hex, sizeof(hex), &oid), id);
	git_libgit2_shutdown();
done:
	buf_release(&all);
	return same;
}

/*
 * Whether some contents have this id, in the id's own kind. The size in
 * the id is compared first: a file of another size is not read through.
 * An empty or unknown id matches nothing.
 */
static bool id_matches(const char *id, const struct span *s, size_t n)
{
	char now[PATCH_ID_SIZE];
	const char *size;
	size_t i, total = 0;

	if (id_is_blob(id))
		return blob_matches(id, s, n);
	if (strncmp(id, ID_PREFIX, strlen(ID_PREFIX)) || !(size = strchr(id + strlen(ID_PREFIX), ':')))
		return false;
	for (i = 0; i < n; i++)
		total += s[i].len;
	if (strtoull(size + 1, NULL, 10) != total)
		return false;
	id_of(now, s, n);
	return !strcmp(now, id);
}

static int snippet_fits(const struct patch_snippet *s, const char *text, size_t len)
{
	if (s->start > s->end || s->end > len || s->end - s->start != s->len ||
	    memcmp(text + s->start, s->text, s->len))
		return error_set(RL_ECONFLICT, "%s changed since the fix was proposed; ask for the fix again",
				 s->path);
	return 0;
}

/*
 * The bytes a replacement takes the place of: the snippet's, and, when it
 * deletes the last lines of a file that ends without a newline, the line
 * end before them, so that the file still ends without one.
 */
static void range_of(size_t *from, size_t *to, const struct patch_snippet *s, const char *text,
		     size_t len, size_t rlen)
{
	*from = s->start;
	*to = s->end;
	if (rlen || s->end != len || !s->len || s->text[s->len - 1] == '\n' || !s->start ||
	    text[s->start - 1] != '\n')
		return;
	*from = s->start - 1;
	if (*from && text[*from - 1] == '\r')
		(*from)--;
}

static int bytes_splice(struct buf *out, const char *text, size_t len, size_t from, size_t to,
			const char *r, size_t rlen)
{
	int error;

	if ((error = buf_grow(out, from + rlen + (len - to))) < 0)
		return error;
	buf_put(out, text, from);
	buf_put(out, r, rlen);
	return buf_put(out, text + to, len - to);
}

/*
 * libgit2 gives two buffers' diff the mode of a plain file: an executable's
 * "index" line is made to say 100755, as git's does (the header's, before
 * the first "---").
 */
static void mode_executable(struct buf *out, size_t from)
{
	char *p = out->ptr + from, *end = out->ptr + out->len, *eol;

	for (; p < end && (eol = memchr(p, '\n', (size_t)(end - p))); p = eol + 1) {
		if (!strncmp(p, "--- ", 4) || !strncmp(p, "@@ ", 3))
			return;
		if (!strncmp(p, "index ", 6) && eol - p > 7 && !memcmp(eol - 7, " 100644", 7)) {
			memcpy(eol - 7, " 100755", 7);
			return;
		}
	}
}

int patch_preview(struct buf *out, const struct patch_snippet *snippet, const char *text, size_t len,
		  const char *replacement, size_t rlen)
{
	git_diff_options opts;
	git_patch *patch = NULL;
	git_buf diff = { 0 };
	struct buf next = BUF_INIT;
	size_t from, to;
	int error;

	if ((error = snippet_fits(snippet, text, len)) < 0)
		return error;
	range_of(&from, &to, snippet, text, len, rlen);
	if ((error = bytes_splice(&next, text, len, from, to, replacement, rlen)) < 0)
		return error;
	git_libgit2_init();
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.context_lines = 3;
	if (git_patch_from_buffers(&patch, text, len, snippet->path, next.ptr, next.len, snippet->path,
				   &opts) < 0 || git_patch_to_buf(&diff, patch) < 0) {
		const git_error *e = git_error_last();

		error = error_set(RL_ERROR, "%s: cannot compute the diff: %s", snippet->path,
				  e && e->message ? e->message : "libgit2 error");
		goto done;
	}
	if ((error = buf_put(out, diff.ptr, diff.size)) == 0 && snippet->executable)
		mode_executable(out, out->len - diff.size);
done:
	git_buf_dispose(&diff);
	git_patch_free(patch);
	git_libgit2_shutdown();
	buf_release(&next);
	return error;
}

/* A working-tree file a fix may write: where it really is, and what it is now. */
struct target {
	char *dir;              /* its real directory */
	char *full;             /* dir/name */
	struct stat st;
};

static void target_release(struct target *t)
{
	free(t->dir);
	free(t->full);
	memset(t, 0, sizeof(*t));
}

/* A path that cannot leave the working tree by its spelling, nor go into .git. */
static int path_check(const char *path)
{
	const char *p = path, *slash;
	size_t n;

	if (!*path)
		return error_set(RL_EUSAGE, "no file named: give a path inside the working tree");
	if (*path == '/')
		return error_set(RL_EUSAGE, "%s: an absolute path; give the file's path inside the working tree",
				 path);
	for (;; p = slash + 1) {
		slash = strchr(p, '/');
		n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 2 && !memcmp(p, "..", 2))
			return error_set(RL_EUSAGE, "%s: '..' leads outside the working tree; "
					 "give the file's path inside it", path);
		if (n == 4 && !memcmp(p, ".git", 4))
			return error_set(RL_EUSAGE, "%s: inside .git, which is not the working tree", path);
		if (!slash)
			break;
	}
	if (!n)
		return error_set(RL_EUSAGE, "%s: a directory, not a file", path);
	return 0;
}

static int open_fail(const char *path, int err)
{
	if (err == ENOENT || err == ENOTDIR)
		return error_set(RL_ENOTFOUND, "%s: no such file in the working tree", path);
	if (err == ELOOP)
		return error_set(RL_EUSAGE, "%s: a symbolic link; revline does not write through links: "
				 "fix the file it points to", path);
	return error_set(RL_EIO, "%s: %s", path, strerror(err));
}

/* Where the file's directory really is; it must be inside the (real) working tree. */
static int target_dir(struct target *t, const char *workdir, const char *path)
{
	char root[PATH_MAX], dir[PATH_MAX];
	struct buf parent = BUF_INIT;
	const char *slash = strrchr(path, '/');
	size_t n;
	int error = 0;

	if (!realpath(workdir, root))
		return error_set(RL_EIO, "%s: cannot open the working tree: %s", workdir, strerror(errno));
	if ((error = buf_printf(&parent, "%s/%.*s", root, slash ? (int)(slash - path) : 0, path)) < 0)
		return error;
	if (!realpath(parent.ptr, dir)) {
		error = open_fail(path, errno);
		goto done;
	}
	n = strlen(root);
	if (n > 1 && (strncmp(dir, root, n) || (dir[n] != '/' && dir[n]))) {
		error = error_set(RL_EUSAGE, "%s: its directory leads outside the working tree (to %s); "
				  "revline only writes inside it", path, dir);
		goto done;
	}
	if (!(t->dir = strdup(dir))) {
		error = error_nomem();
		goto done;
	}
	buf_clear(&parent);
	if ((error = buf_printf(&parent, "%s/%s", dir, slash ? slash + 1 : path)) < 0)
		goto done;
	t->full = buf_detach(&parent);
done:
	buf_release(&parent);
	return error;
}

static int read_all(struct buf *out, int fd, const char *path, size_t hint)
{
	ssize_t n;
	int error;

	if ((error = buf_grow(out, hint + 1)) < 0)
		return error;
	for (;;) {
		if (out->cap - out->len < 2 && (error = buf_grow(out, out->cap)) < 0)
			return error;
		n = read(fd, out->ptr + out->len, out->cap - out->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return error_set(RL_EIO, "%s: cannot read it: %s", path, strerror(errno));
		if (n == 0)
			break;
		out->len += (size_t)n;
	}
	out->ptr[out->len] = '\0';
	return 0;
}

/*
 * Open the file without following a link, and check that what was opened
 * is a regular file: a FIFO must not block us, a device must not be read.
 */
static int target_read(struct target *t, struct buf *out, const char *workdir, const char *path)
{
	struct stat st;
	int fd = -1, error;

	memset(t, 0, sizeof(*t));
	if ((error = path_check(path)) < 0 || (error = target_dir(t, workdir, path)) < 0)
		goto done;
	if (lstat(t->full, &st) < 0) {
		error = open_fail(path, errno);
		goto done;
	}
	if (S_ISLNK(st.st_mode)) {
		error = open_fail(path, ELOOP);
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		error = error_set(RL_EUSAGE, "%s: not a regular file; revline only fixes files", path);
		goto done;
	}
	if ((fd = open(t->full, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0) {
		error = open_fail(path, errno);
		goto done;
	}
	if (fstat(fd, &t->st) < 0 || !S_ISREG(t->st.st_mode) || t->st.st_ino != st.st_ino ||
	    t->st.st_dev != st.st_dev) {
		error = error_set(RL_ECONFLICT, "%s changed while revline read it; try again", path);
		goto done;
	}
	error = read_all(out, fd, path, (size_t)t->st.st_size);
done:
	if (fd >= 0)
		close(fd);
	if (error < 0)
		target_release(t);
	return error;
}

int patch_read(struct buf *out, bool *executable, const char *workdir, const char *path)
{
	struct target t;
	int error = target_read(&t, out, workdir, path);

	if (executable)
		*executable = error == 0 && (t.st.st_mode & S_IXUSR);
	target_release(&t);
	return error;
}

static int write_all(int fd, const char *data, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Make a rename in the directory last; it has happened, so a failure here changes nothing. */
static void dir_sync(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return;
	(void)fsync(fd);
	close(fd);
}

/*
 * Replace the file's bytes all at once: a temporary file beside it (a
 * dotfile, so that tools watching the tree skip it), written, synced and
 * given the file's mode and owner, renamed over it. Whatever fails, the
 * temporary file goes and the file is as it was.
 */
static int target_write(const struct target *t, const char *path, const struct span *data, size_t n)
{
	struct buf tmp = BUF_INIT;
	const char *name = strrchr(t->full, '/') + 1;
	size_t i;
	int fd, error = 0, failed = 0;

	if ((error = buf_printf(&tmp, "%s/.%.200s" LEFTOVER_MARK "XXXXXX", t->dir, name)) < 0)
		return error;
	if ((fd = mkostemp(tmp.ptr, O_CLOEXEC)) < 0) {
		error = error_set(RL_EIO, "cannot write %s: cannot create a file in its directory: %s; "
				  "the file is unchanged", path, strerror(errno));
		goto done;
	}
	/*
	 * Root fixing someone's file should leave it theirs. Others cannot give
	 * a file away; theirs becomes their own, as with any editor's save.
	 */
	if (t->st.st_uid != geteuid() || t->st.st_gid != getegid()) {
		if (fchown(fd, t->st.st_uid, t->st.st_gid) < 0 && geteuid() == 0) {
			error = error_set(RL_EIO, "cannot write %s: cannot keep its owner: %s; the file is unchanged",
					  path, strerror(errno));
			close(fd);
			unlink(tmp.ptr);
			goto done;
		}
	}
	for (i = 0; i < n && !failed; i++)
		failed = write_all(fd, data[i].ptr, data[i].len);
	if (failed || fchmod(fd, t->st.st_mode & 07777) < 0 || fsync(fd) < 0) {
		error = error_set(RL_EIO, "cannot write %s: %s; the file is unchanged", path, strerror(errno));
		close(fd);
		unlink(tmp.ptr);
		goto done;
	}
	if (close(fd) < 0 || rename(tmp.ptr, t->full) < 0) {
		error = error_set(RL_EIO, "cannot write %s: %s; the file is unchanged", path, strerror(errno));
		unlink(tmp.ptr);
		goto done;
	}
	dir_sync(t->dir);
done:
	buf_release(&tmp);
	return error;
}

static int copy_of(char **out, const char *data, size_t len)
{
	struct buf b = BUF_INIT;
	int error = buf_put(&b, data, len);

	*out = error ? NULL : buf_detach(&b);
	return error;
}

/* An apply read and checked, not written yet. */
struct patch_pending {
	struct target t;
	struct buf now;                 /* the file as read */
	char *path;
	struct span next[3];            /* the file as it will be: now's head, the replacement, now's tail */
	char *replacement;
};

void patch_pending_free(struct patch_pending *p)
{
	if (!p)
		return;
	target_release(&p->t);
	buf_release(&p->now);
	free(p->path);
	free(p->replacement);
	free(p);
}

/* The file after replacing from..to of text with r: three pieces, nothing copied. */
static void spans_spliced(struct span out[3], const char *text, size_t len, size_t from, size_t to,
			  const char *r, size_t rlen)
{
	out[0] = (struct span){ text, from };
	out[1] = (struct span){ r, rlen };
	out[2] = (struct span){ text + to, len - to };
}

/*
 * One reading of the file and two digests: the conflict check (the file
 * as it is now against the snippet's id) and the id of the file to be.
 */
int patch_prepare(struct patch_pending **out, struct patch_undo *undo, const char *workdir,
		  const struct patch_snippet *snippet, const char *replacement, size_t len)
{
	struct patch_pending *p;
	struct span now;
	size_t from, to;
	int error;

	*out = NULL;
	memset(undo, 0, sizeof(*undo));
	if (!(p = calloc(1, sizeof(*p))))
		return error_nomem();
	if ((error = target_read(&p->t, &p->now, workdir, snippet->path)) < 0)
		goto done;
	now = (struct span){ p->now.ptr, p->now.len };
	if (!id_matches(snippet->file_id, &now, 1)) {
		error = error_set(RL_ECONFLICT, "%s changed since the fix was proposed; ask for the fix again",
				  snippet->path);
		goto done;
	}
	if ((error = snippet_fits(snippet, p->now.ptr, p->now.len)) < 0)
		goto done;
	range_of(&from, &to, snippet, p->now.ptr, p->now.len, len);
	if (len == to - from && !memcmp(replacement, p->now.ptr + from, len)) {
		error = error_set(RL_EUSAGE, "%s: the fix changes nothing; nothing was written", snippet->path);
		goto done;
	}
	undo->offset = from;
	undo->before_len = to - from;
	undo->after_len = len;
	if ((error = copy_of(&undo->path, snippet->path, strlen(snippet->path))) < 0 ||
	    (error = copy_of(&undo->before, p->now.ptr + from, to - from)) < 0 ||
	    (error = copy_of(&undo->after, replacement, len)) < 0 ||
	    (error = copy_of(&p->path, snippet->path, strlen(snippet->path))) < 0 ||
	    (error = copy_of(&p->replacement, replacement, len)) < 0)
		goto done;
	/* The check passed: the file's id now is the snippet's. */
	memcpy(undo->id_before, snippet->file_id, PATCH_ID_SIZE);
	spans_spliced(p->next, p->now.ptr, p->now.len, from, to, p->replacement, len);
	id_of(undo->id_after, p->next, 3);
done:
	if (error < 0) {
		patch_undo_release(undo);
		patch_pending_free(p);
		return error;
	}
	*out = p;
	return 0;
}

int patch_pending_write(struct patch_pending *p)
{
	return target_write(&p->t, p->path, p->next, 3);
}

int patch_apply(struct patch_undo *out, const char *workdir, const struct patch_snippet *snippet,
		const char *replacement, size_t len)
{
	struct patch_pending *p;
	int error;

	if ((error = patch_prepare(&p, out, workdir, snippet, replacement, len)) < 0)
		return error;
	if ((error = patch_pending_write(p)) < 0)
		patch_undo_release(out);
	patch_pending_free(p);
	return error;
}

/* Whether text holds the record's bytes at its offset, and is then the whole file the id names. */
static bool side_holds(const char *text, size_t len, const struct patch_undo *u, const char *bytes,
		       size_t n, const char *id)
{
	struct span all = { text, len };

	return u->offset <= len && n <= len - u->offset && !memcmp(text + u->offset, bytes, n) &&
	       id_matches(id, &all, 1);
}

static enum patch_side side_of(const char *text, size_t len, const struct patch_undo *u)
{
	if (side_holds(text, len, u, u->after, u->after_len, u->id_after))
		return PATCH_AFTER;
	if (side_holds(text, len, u, u->before, u->before_len, u->id_before))
		return PATCH_BEFORE;
	return PATCH_NEITHER;
}

int patch_side(enum patch_side *out, const char *workdir, const struct patch_undo *undo)
{
	struct buf now = BUF_INIT;
	struct target t;
	int error;

	*out = PATCH_NEITHER;
	if ((error = target_read(&t, &now, workdir, undo->path)) == 0)
		*out = side_of(now.ptr, now.len, undo);
	target_release(&t);
	buf_release(&now);
	return error;
}

/* A temporary file of target_write's for name: ".NAME.revline-" and mkostemp's six characters. */
static bool leftover_of(const char *entry, const char *name)
{
	size_t n = strnlen(name, 200), mark = strlen(LEFTOVER_MARK);

	return entry[0] == '.' && !strncmp(entry + 1, name, n) &&
	       !strncmp(entry + 1 + n, LEFTOVER_MARK, mark) && strlen(entry + 1 + n + mark) == 6;
}

int patch_leftovers_remove(size_t *removed, const char *workdir, const char *path)
{
	struct target t = { 0 };
	struct dirent *e;
	struct stat st;
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	DIR *dir = NULL;
	int error;

	*removed = 0;
	if ((error = path_check(path)) < 0 || (error = target_dir(&t, workdir, path)) < 0)
		goto done;
	if (!(dir = opendir(t.dir))) {
		error = error_set(RL_EIO, "%s: cannot list its directory: %s", path, strerror(errno));
		goto done;
	}
	while ((e = readdir(dir)))
		if (leftover_of(e->d_name, name) && fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode) && unlinkat(dirfd(dir), e->d_name, 0) == 0)
			(*removed)++;
done:
	if (dir)
		closedir(dir);
	target_release(&t);
	return error;
}

/* A stored record that does not lead from the file back to the original: never guess. */
static int record_mismatch(const char *path)
{
	return error_set(RL_EUSAGE, "the record of the fix to %s does not match the file; "
			 "revline left it as it is", path);
}

int patch_undo(const char *workdir, const struct patch_undo *undo)
{
	struct buf now = BUF_INIT;
	struct span prev[3], all;
	struct target t;
	int error;

	if ((error = target_read(&t, &now, workdir, undo->path)) < 0)
		goto done;
	all = (struct span){ now.ptr, now.len };
	if (!id_matches(undo->id_after, &all, 1)) {
		/* An undo interrupted after its write: the file is already as it was. */
		if (side_of(now.ptr, now.len, undo) == PATCH_BEFORE)
			goto done;
		error = error_set(RL_ECONFLICT, "%s changed since the fix was applied; revline left it as it is: "
				  "undo the fix by hand", undo->path);
		goto done;
	}
	if (undo->offset > now.len || undo->after_len > now.len - undo->offset ||
	    memcmp(now.ptr + undo->offset, undo->after, undo->after_len)) {
		error = record_mismatch(undo->path);
		goto done;
	}
	spans_spliced(prev, now.ptr, now.len, undo->offset, undo->offset + undo->after_len, undo->before,
		      undo->before_len);
	if (!id_matches(undo->id_before, prev, 3)) {
		error = record_mismatch(undo->path);
		goto done;
	}
	error = target_write(&t, undo->path, prev, 3);
done:
	target_release(&t);
	buf_release(&now);
	return error;
}

void patch_undo_release(struct patch_undo *undo)
{
	free(undo->path);
	free(undo->before);
	free(undo->after);
	memset(undo, 0, sizeof(*undo));
}
