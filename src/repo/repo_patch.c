/*
 * A file's patch whose header revline writes, in git's order (builtin_diff
 * and fill_metainfo in git's diff.c), for what libgit2's own diff of a
 * delta does not give as git does, or gives only by reading a big binary
 * file whole:
 *
 *   diff --git a/path b/path
 *   new file mode M | deleted file mode M | old mode M, new mode N
 *   index a..b[ M]             (when the contents differ; M when the modes agree)
 *   --- / +++ and hunks, or "Binary files ... differ"
 *
 * The hunks are libgit2's, from the two contents read here. repo_diff.c
 * comes here for an empty work-tree file (libgit2 1.5 aborts on its patch
 * when a filter applied), an unmerged path (libgit2 has no text for it) and
 * a binary file told from its first bytes.
 */
#include "repo_patch.h"
#include "repo_content.h"
#include "status.h"

#include <errno.h>
#include <fcntl.h>
#include <git2/sys/filter.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* git's FIRST_FEW_BYTES: a NUL among them makes a file binary. */
#define PROBE_BYTES 8000
/*
 * Smaller sides are diffed whole without probing first: reading them costs
 * less than the look-ups that tell without reading.
 */
#define PROBE_MIN_SIZE (1024 * 1024)

static bool is_regular(uint32_t mode)
{
	return (mode & 0170000) == 0100000;
}

static bool kind_differs(const git_diff_file *old, const git_diff_file *new)
{
	return old->mode && new->mode && (old->mode & 0170000) != (new->mode & 0170000);
}

static int put_names(struct buf *out, const char *path)
{
	int error;

	if ((error = buf_puts(out, "diff --git ")) < 0 || (error = buf_put_quoted(out, "a/", path)) < 0 ||
	    (error = buf_putc(out, ' ')) < 0 || (error = buf_put_quoted(out, "b/", path)) < 0)
		return error;
	return buf_putc(out, '\n');
}

/* The header down to the "index" line, which has full ids (repo_diff.c abbreviates them). */
static int put_header(struct buf *out, const git_diff_file *old, const git_diff_file *new,
		      const git_oid *old_id, const git_oid *new_id)
{
	char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];
	int error;

	if ((error = put_names(out, old->mode ? old->path : new->path)) < 0)
		return error;
	if (!old->mode)
		error = buf_printf(out, "new file mode %06o\n", new->mode);
	else if (!new->mode)
		error = buf_printf(out, "deleted file mode %06o\n", old->mode);
	else if (old->mode != new->mode)
		error = buf_printf(out, "old mode %06o\nnew mode %06o\n", old->mode, new->mode);
	if (error < 0 || git_oid_equal(old_id, new_id))
		return error;
	git_oid_tostr(a, sizeof(a), old_id);
	git_oid_tostr(b, sizeof(b), new_id);
	return old->mode == new->mode ? buf_printf(out, "index %s..%s %06o\n", a, b, old->mode) :
		buf_printf(out, "index %s..%s\n", a, b);
}

static int io_fail(const char *path, const char *what)
{
	const git_error *e = git_error_last();

	return error_set(RL_EIO, "%s: cannot %s: %s", path, what, e && e->message ? e->message : "libgit2 error");
}

/* Whether the object database holds the side's blob (a work-tree side's id may be only a hash). */
static bool has_blob(git_repository *git, const git_diff_file *side, size_t *size)
{
	git_odb *odb = NULL;
	git_object_t type;
	bool found;

	if (!(side->flags & GIT_DIFF_FLAG_VALID_ID) || git_repository_odb(&odb, git) < 0)
		return false;
	found = git_odb_read_header(size, &type, odb, &side->id) == 0 && type == GIT_OBJECT_BLOB;
	git_odb_free(odb);
	if (!found)
		git_error_clear();
	return found;
}

/* A side's content as git would hash it; empty when the side is absent. */
static int side_content(git_buf *out, git_repository *git, const git_diff_file *side)
{
	if (!side->mode)
		return 0;
	return repo_content_of(out, git, side) < 0 ? io_fail(side->path, "read it") : 0;
}

/* A side's id: its own, or the hash of its content (zero when absent). */
static int side_id(git_oid *out, const git_diff_file *side, const git_buf *content)
{
	memset(out, 0, sizeof(*out));
	if (!side->mode)
		return 0;
	if (side->flags & GIT_DIFF_FLAG_VALID_ID) {
		git_oid_cpy(out, &side->id);
		return 0;
	}
	return git_odb_hash(out, content->ptr ? content->ptr : "", content->size, GIT_OBJECT_BLOB) < 0 ?
		io_fail(side->path, "hash it") : 0;
}

/* The "diff" attribute: 1 binary (unset: -diff, binary), -1 text (set), 0 unspecified or a driver. */
static int attr_binary(git_repository *git, const char *path)
{
	const char *value;

	if (git_attr_get(&value, git, GIT_ATTR_CHECK_FILE_THEN_INDEX, path, "diff") < 0) {
		git_error_clear();
		return 0;
	}
	return GIT_ATTR_IS_FALSE(value) ? 1 : GIT_ATTR_IS_TRUE(value) ? -1 : 0;
}

/* libgit2's patch of two contents (NULL: an absent side), the attributes applied. */
static int contents_patch(git_patch **out, git_repository *git, const git_diff_file *old,
			  const git_diff_file *new, const git_buf *a, const git_buf *b)
{
	git_diff_options opts;
	int attr = attr_binary(git, old->mode ? old->path : new->path);

	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_INDENT_HEURISTIC | (attr > 0 ? GIT_DIFF_FORCE_BINARY : 0) |
		(attr < 0 ? GIT_DIFF_FORCE_TEXT : 0);
	opts.id_abbrev = GIT_OID_HEXSZ;
	if (git_patch_from_buffers(out, old->mode ? (a->ptr ? a->ptr : "") : NULL, a->size, old->path,
				   new->mode ? (b->ptr ? b->ptr : "") : NULL, b->size, new->path, &opts) < 0)
		return io_fail(new->mode ? new->path : old->path, "compute the diff");
	return 0;
}

/* libgit2's text from its "---" or "Binary files" line on (its header is replaced). */
static int put_body(struct buf *out, git_patch *patch, const char *path)
{
	git_buf text = { 0 };
	const char *body = NULL;
	int error = 0;

	if (git_patch_to_buf(&text, patch) < 0)
		return io_fail(path, "compute the diff");
	if (text.size)
		body = memmem(text.ptr, text.size, "\n--- ", 5);
	if (!body && text.size)
		body = memmem(text.ptr, text.size, "\nBinary files ", 14);
	if (body)
		error = buf_put(out, body + 1, text.size - (size_t)(body + 1 - text.ptr));
	git_buf_dispose(&text);
	return error;
}

static const git_diff_file *absent_of(git_diff_file *absent, const git_diff_file *side)
{
	memset(absent, 0, sizeof(*absent));
	absent->path = side->path;
	return absent;
}

int patch_sides_text(struct buf *out, git_repository *git, const git_diff_file *old, const git_diff_file *new)
{
	git_buf a = { 0 }, b = { 0 };
	git_oid old_id, new_id;
	git_patch *patch = NULL;
	git_diff_file none;
	int error;

	/* A file and a link are two things to git: the one deleted, the other created. */
	if (kind_differs(old, new)) {
		error = patch_sides_text(out, git, old, absent_of(&none, old));
		return error < 0 ? error : patch_sides_text(out, git, absent_of(&none, new), new);
	}
	if ((error = side_content(&a, git, old)) < 0 || (error = side_content(&b, git, new)) < 0 ||
	    (error = side_id(&old_id, old, &a)) < 0 || (error = side_id(&new_id, new, &b)) < 0)
		goto done;
	if (git_oid_equal(&old_id, &new_id) && old->mode == new->mode)
		goto done;
	if ((error = put_header(out, old, new, &old_id, &new_id)) < 0 || git_oid_equal(&old_id, &new_id))
		goto done;
	if ((error = contents_patch(&patch, git, old, new, &a, &b)) == 0)
		error = put_body(out, patch, new->mode ? new->path : old->path);
done:
	git_patch_free(patch);
	git_buf_dispose(&a);
	git_buf_dispose(&b);
	return error;
}

int patch_sides_count(struct patch_count *out, git_repository *git, const git_diff_file *old,
		      const git_diff_file *new)
{
	git_buf a = { 0 }, b = { 0 };
	git_oid old_id, new_id;
	git_patch *patch = NULL;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = side_content(&a, git, old)) < 0 || (error = side_content(&b, git, new)) < 0 ||
	    (error = side_id(&old_id, old, &a)) < 0 || (error = side_id(&new_id, new, &b)) < 0 ||
	    git_oid_equal(&old_id, &new_id))
		goto done;
	if ((error = contents_patch(&patch, git, old, new, &a, &b)) < 0)
		goto done;
	git_patch_line_stats(NULL, &out->additions, &out->deletions, patch);
	if (git_patch_get_delta(patch)->flags & GIT_DIFF_FLAG_BINARY) {
		out->binary = true;
		out->old_size = a.size;
		out->new_size = b.size;
	}
done:
	git_patch_free(patch);
	git_buf_dispose(&a);
	git_buf_dispose(&b);
	return error;
}

/* The first bytes of a blob: streamed from a loose object, else read whole (as git reads it). */
static int blob_prefix(char *buf, size_t *len, git_repository *git, const git_oid *id)
{
	git_odb *odb = NULL;
	git_odb_stream *stream = NULL;
	git_odb_object *object = NULL;
	git_object_t type;
	size_t size;
	int n = 0, error = 0;

	*len = 0;
	if (git_repository_odb(&odb, git) < 0)
		return io_fail("the object database", "open");
	if (git_odb_open_rstream(&stream, &size, &type, odb, id) == 0) {
		while (*len < PROBE_BYTES && (n = git_odb_stream_read(stream, buf + *len, PROBE_BYTES - *len)) > 0)
			*len += (size_t)n;
		error = n < 0 ? io_fail("a blob", "read") : 0;
		git_odb_stream_free(stream);
	} else if (git_odb_read(&object, odb, id) == 0) {
		*len = git_odb_object_size(object) < PROBE_BYTES ? git_odb_object_size(object) : PROBE_BYTES;
		memcpy(buf, git_odb_object_data(object), *len);
		git_odb_object_free(object);
	} else {
		error = io_fail("a blob", "read");
	}
	git_odb_free(odb);
	return error;
}

/*
 * Whether a work-tree file's bytes are what git hashes: with no filter; or,
 * when its first bytes hold a NUL (nul), with only the end-of-line filter
 * deciding for itself (text=auto, or core.autocrlf with no text or eol
 * attribute), which leaves a binary file as it is. An explicit text or eol
 * attribute converts anything; ident, or a filter driver, may change any byte.
 */
static bool workfile_raw(git_repository *git, const char *path, bool nul)
{
	git_filter_list *filters = NULL;
	const char *text = NULL, *eol = NULL;
	bool raw;

	if (git_filter_list_load(&filters, git, NULL, path, GIT_FILTER_TO_ODB, 0) < 0) {
		git_error_clear();
		return false;
	}
	if (!filters)
		return true;
	raw = nul && git_filter_list_length(filters) == 1 && git_filter_list_contains(filters, "crlf") &&
		git_attr_get(&text, git, GIT_ATTR_CHECK_FILE_THEN_INDEX, path, "text") == 0 &&
		git_attr_get(&eol, git, GIT_ATTR_CHECK_FILE_THEN_INDEX, path, "eol") == 0 &&
		((GIT_ATTR_IS_UNSPECIFIED(text) && GIT_ATTR_IS_UNSPECIFIED(eol)) ||
		 (GIT_ATTR_HAS_VALUE(text) && !strcmp(text, "auto")));
	git_filter_list_free(filters);
	return raw;
}

/* A work-tree file that is a regular file (not followed if a link): its size, its first bytes. */
static int workfile_prefix(uint64_t *size, char *buf, size_t *len, git_repository *git, const char *rel)
{
	struct buf path = BUF_INIT;
	struct stat st;
	ssize_t n = 0;
	int fd = -1, rc = -1;

	*len = 0;
	if (!git_repository_workdir(git) || buf_printf(&path, "%s%s", git_repository_workdir(git), rel) < 0)
		goto done;
	if (!buf) {
		rc = lstat(path.ptr, &st) == 0 && S_ISREG(st.st_mode) ? 0 : -1;
		goto done;
	}
	fd = open(path.ptr, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto done;
	while (*len < PROBE_BYTES &&
	       ((n = read(fd, buf + *len, PROBE_BYTES - *len)) > 0 || (n < 0 && errno == EINTR)))
		*len += n > 0 ? (size_t)n : 0;
	rc = n < 0 ? -1 : 0;
done:
	if (rc == 0)
		*size = (uint64_t)st.st_size;
	if (fd >= 0)
		close(fd);
	buf_release(&path);
	return rc;
}

/*
 * A side's size and, when probe is set, whether its first bytes hold a NUL
 * (*nul): 0, or 1 when this side cannot be told without reading it whole
 * (not a regular file; a work-tree file a filter may change).
 */
static int side_probe(uint64_t *size, bool *nul, git_repository *git, const git_diff_file *side, bool probe)
{
	char buf[PROBE_BYTES];
	size_t blob_size, len = 0;
	int rc;

	*size = 0;
	*nul = false;
	if (!side->mode)
		return 0;
	if (!is_regular(side->mode))
		return 1;
	if (has_blob(git, side, &blob_size)) {
		*size = blob_size;
		if (probe && (rc = blob_prefix(buf, &len, git, &side->id)) < 0)
			return rc;
		*nul = len && memchr(buf, '\0', len);
		return 0;
	}
	if (workfile_prefix(size, probe ? buf : NULL, &len, git, side->path) < 0)
		return 1;
	*nul = len && memchr(buf, '\0', len);
	return !probe || workfile_raw(git, side->path, *nul) ? 0 : 1;
}

int patch_binary_probe(struct patch_count *out, git_repository *git, const git_diff_file *old,
		       const git_diff_file *new)
{
	uint64_t old_size, new_size;
	bool old_nul, new_nul;
	int attr, rc;

	memset(out, 0, sizeof(*out));
	if ((old->mode && !is_regular(old->mode)) || (new->mode && !is_regular(new->mode)))
		return 0;
	if ((rc = side_probe(&old_size, &old_nul, git, old, false)) != 0 ||
	    (rc = side_probe(&new_size, &new_nul, git, new, false)) != 0)
		return rc < 0 ? rc : 0;
	if (old_size < PROBE_MIN_SIZE && new_size < PROBE_MIN_SIZE)
		return 0;
	if ((attr = attr_binary(git, old->mode ? old->path : new->path)) < 0)
		return 0;
	if (!attr && ((rc = side_probe(&old_size, &old_nul, git, old, true)) != 0 ||
		      (rc = side_probe(&new_size, &new_nul, git, new, true)) != 0))
		return rc < 0 ? rc : 0;
	if (!attr && !old_nul && !new_nul)
		return 0;
	out->binary = true;
	if (!(old->mode && new->mode && (old->flags & new->flags & GIT_DIFF_FLAG_VALID_ID) &&
	      git_oid_equal(&old->id, &new->id))) {
		out->old_size = old_size;
		out->new_size = new_size;
	}
	return 1;
}

/*
 * Whether git calls one side binary: its own "diff" attribute, else a NUL
 * among its first 8,000 bytes as git hashes them (read whole only when a
 * filter may change them).
 */
static int side_binary(bool *out, git_repository *git, const git_diff_file *side)
{
	git_buf content = { 0 };
	uint64_t size;
	int attr, rc;

	*out = false;
	if (!side->mode || !is_regular(side->mode))
		return 0;
	if ((attr = attr_binary(git, side->path)) != 0) {
		*out = attr > 0;
		return 0;
	}
	if ((rc = side_probe(&size, out, git, side, true)) <= 0)
		return rc;
	if ((rc = side_content(&content, git, side)) == 0)
		*out = content.size && memchr(content.ptr, '\0', content.size < PROBE_BYTES ? content.size : PROBE_BYTES);
	git_buf_dispose(&content);
	return rc;
}

int patch_binary_same(bool *out, git_repository *git, const git_diff_file *old, const git_diff_file *new)
{
	int error;

	if ((error = side_binary(out, git, old)) < 0 || *out)
		return error;
	return side_binary(out, git, new);
}

int patch_binary_text(struct buf *out, git_repository *git, const git_diff_file *old,
		      const git_diff_file *new)
{
	git_oid old_id, new_id;
	const git_diff_file *sides[2] = { old, new };
	git_oid *ids[2] = { &old_id, &new_id };
	int i, error;

	for (i = 0; i < 2; i++) {
		memset(ids[i], 0, sizeof(*ids[i]));
		if (!sides[i]->mode)
			continue;
		/*
		 * libgit2 (1.5's diff_delta__from_two) copies the id it hashed a
		 * work-tree file for, to see whether it changed, without the
		 * valid flag: an id that is not zero is that hash.
		 */
		if ((sides[i]->flags & GIT_DIFF_FLAG_VALID_ID) || !git_oid_is_zero(&sides[i]->id))
			git_oid_cpy(ids[i], &sides[i]->id);
		else if (git_repository_hashfile(ids[i], git, sides[i]->path, GIT_OBJECT_BLOB, NULL) < 0)
			return io_fail(sides[i]->path, "hash it");
	}
	if ((error = put_header(out, old, new, &old_id, &new_id)) < 0 || git_oid_equal(&old_id, &new_id))
		return error;
	if ((error = buf_puts(out, "Binary files ")) < 0 ||
	    (error = old->mode ? buf_put_quoted(out, "a/", old->path) : buf_puts(out, "/dev/null")) < 0 ||
	    (error = buf_puts(out, " and ")) < 0 ||
	    (error = new->mode ? buf_put_quoted(out, "b/", new->path) : buf_puts(out, "/dev/null")) < 0)
		return error;
	return buf_puts(out, " differ\n");
}
