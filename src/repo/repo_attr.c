/*
 * Attributes (gitattributes) read as libgit2 reads them: the files that
 * hold for the whole repository, whether any file a set of paths is under
 * can say a thing at all (so that libgit2 need not be asked path by path,
 * a realpath and a stat of each folder every time), and GitHub's
 * linguist-generated and linguist-vendored.
 */
#include "repo.h"
#include "repo_attr.h"
#include "array.h"
#include "buf.h"
#include "status.h"

#include <errno.h>
#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int repo_attr_global(struct strings *out, git_repository *git)
{
	git_config *config = NULL;
	git_buf value = { 0 }, system = { 0 };
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
	struct buf path = BUF_INIT;
	char *dirs, *dir, *save = NULL;
	int error;

	/* $GIT_DIR/info/attributes, then core.attributesFile (or its default), then the system's. */
	if ((error = buf_printf(&path, "%sinfo/attributes", git_repository_commondir(git))) < 0 ||
	    (error = strings_take(out, buf_detach(&path))) < 0)
		goto done;
	if (git_repository_config_snapshot(&config, git) == 0 &&
	    git_config_get_path(&value, config, "core.attributesFile") == 0)
		error = buf_puts(&path, value.ptr);
	else if (xdg && *xdg)
		error = buf_printf(&path, "%s/git/attributes", xdg);
	else if (home)
		error = buf_printf(&path, "%s/.config/git/attributes", home);
	if (error < 0 || (path.len && (error = strings_take(out, buf_detach(&path))) < 0))
		goto done;
	git_error_clear();
	/* The system's directories as libgit2 searches them ("/etc" unless set). */
	if (git_libgit2_opts(GIT_OPT_GET_SEARCH_PATH, GIT_CONFIG_LEVEL_SYSTEM, &system) < 0 || !system.ptr)
		error = strings_add(out, "/etc/gitattributes");
	else if (!(dirs = strdup(system.ptr)))
		error = error_nomem();
	else {
		for (dir = strtok_r(dirs, ":", &save); dir && !error; dir = strtok_r(NULL, ":", &save))
			if ((error = buf_printf(&path, "%s/gitattributes", dir)) == 0)
				error = strings_take(out, buf_detach(&path));
		free(dirs);
	}
done:
	git_error_clear();
	git_buf_dispose(&system);
	git_buf_dispose(&value);
	git_config_free(config);
	buf_release(&path);
	return error;
}

bool repo_attr_text_silent(const char *text, size_t len, const char *const *words)
{
	size_t i;

	for (i = 0; text && words[i]; i++)
		if (memmem(text, len, words[i], strlen(words[i])))
			return false;
	return true;
}

/* A file of attributes by path: silent when it is not there; not when it cannot be read. */
static bool file_silent(const char *path, const char *const *words)
{
	struct buf text = BUF_INIT;
	struct stat st;
	bool silent;

	if (stat(path, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR;
	silent = buf_read_regular(&text, path, NULL, REPO_ATTR_MAX) == 0 && repo_attr_text_silent(text.ptr, text.len, words);
	error_clear();
	buf_release(&text);
	return silent;
}

/* The index's file of attributes by path: silent when it has none. */
static bool entry_silent(git_repository *git, git_index *index, const char *path, const char *const *words)
{
	const git_index_entry *entry = index ? git_index_get_bypath(index, path, 0) : NULL;
	git_blob *blob = NULL;
	bool silent;

	if (!entry)
		return true;
	if (git_blob_lookup(&blob, git, &entry->id) < 0) {
		git_error_clear();
		return false;
	}
	silent = git_blob_rawsize(blob) <= REPO_ATTR_MAX &&
		repo_attr_text_silent(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), words);
	git_blob_free(blob);
	return silent;
}

/* A folder of a path ("", "a/", "a/b/"), pointing into the path. */
struct folder {
	const char *at;
	size_t len;
};

static int folder_cmp(const void *a, const void *b)
{
	const struct folder *x = a, *y = b;
	int c = memcmp(x->at, y->at, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Every folder of the paths, once. */
static int folders_of(struct folder **out, size_t *count, const char *const *paths, size_t n)
{
	struct folder *dirs = NULL;
	size_t i, k = 0, w = 0, alloc = 0;
	const char *s;
	int error = 0;

	for (i = 0; i < n && !error; i++) {
		if (!paths[i])
			continue;
		if ((error = ARRAY_GROW(dirs, alloc, k + 1)) == 0)
			dirs[k++] = (struct folder){ paths[i], 0 };
		for (s = strchr(paths[i], '/'); s && !error; s = strchr(s + 1, '/'))
			if ((error = ARRAY_GROW(dirs, alloc, k + 1)) == 0)
				dirs[k++] = (struct folder){ paths[i], (size_t)(s + 1 - paths[i]) };
	}
	if (error) {
		free(dirs);
		return error;
	}
	if (k)
		qsort(dirs, k, sizeof(*dirs), folder_cmp);
	for (i = 0; i < k; i++)
		if (!w || folder_cmp(&dirs[w - 1], &dirs[i]))
			dirs[w++] = dirs[i];
	*out = dirs;
	*count = w;
	return 0;
}

int repo_attr_silent(bool *out, git_repository *git, const char *const *paths, size_t n,
		     const char *const *words)
{
	struct strings global = STRINGS_INIT;
	struct folder *dirs = NULL;
	struct buf path = BUF_INIT;
	git_index *index = NULL;
	const char *workdir = git_repository_workdir(git);
	size_t i, ndirs = 0;
	int error;

	*out = false;
	if ((error = repo_attr_global(&global, git)) < 0 || (error = folders_of(&dirs, &ndirs, paths, n)) < 0)
		goto done;
	if (git_repository_index(&index, git) < 0)
		git_error_clear();
	*out = true;
	for (i = 0; i < global.count && *out; i++)
		*out = file_silent(global.items[i], words);
	for (i = 0; i < ndirs && *out; i++) {
		buf_clear(&path);
		if ((error = buf_printf(&path, "%.*s.gitattributes", (int)dirs[i].len, dirs[i].at)) < 0)
			break;
		*out = entry_silent(git, index, path.ptr, words);
		buf_clear(&path);
		if (*out && workdir && (error = buf_printf(&path, "%s%.*s.gitattributes", workdir,
							     (int)dirs[i].len, dirs[i].at)) < 0)
			break;
		if (*out && workdir)
			*out = file_silent(path.ptr, words);
	}
done:
	if (error)
		*out = false;
	git_index_free(index);
	strings_free(&global);
	buf_release(&path);
	free(dirs);
	return error;
}

int repo_linguist(const char **out, struct repo *repo, const char *path)
{
	static const char *const names[] = { "linguist-generated", "linguist-vendored" };
	const char *value;
	size_t i;

	*out = NULL;
	for (i = 0; i < 2; i++) {
		if (git_attr_get(&value, repo->git, GIT_ATTR_CHECK_FILE_THEN_INDEX, path, names[i]) < 0)
			return error_set(RL_EIO, "cannot read the attributes of %s", path);
		if (GIT_ATTR_IS_TRUE(value)) {
			*out = names[i];
			return 0;
		}
	}
	return 0;
}
