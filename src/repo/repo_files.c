/* The files of one side of a target with their blob ids, listed in slices. */
#include "repo_files.h"
#include "array.h"
#include "clock.h"
#include "repo_attr.h"
#include "status.h"
#include "worktree_scan.h"

#include <errno.h>
#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>


enum source { FROM_TREE, FROM_INDEX, FROM_WORKDIR };
enum phase { LISTING, UNTRACKED, ATTRIBUTES, LINGUIST, LISTED };

struct frame {
	git_tree *tree;
	size_t at;
	char *prefix;           /* "dir/sub/" or "" */
};

struct repo_files {
	struct repo *repo;
	enum source source;
	enum phase phase;
	size_t max;
	bool untracked;
	struct frame *stack;    /* the tree walk */
	size_t depth, stack_alloc;
	git_index *index;       /* the index and the working tree */
	size_t at;
	struct scan_options scan;       /* the index's time, for git's stat cache (worktree_scan.h) */
	struct repo_file *items;
	size_t count, alloc;
	struct strings attr_dirs;       /* folders whose .gitattributes speak of linguist ("" the root) */
	bool attr_all;                  /* a repository-wide attributes file does */
	struct buf scratch;
};

static int git_fail(const char *what)
{
	const git_error *e = git_error_last();

	return error_set(RL_EIO, "%s: %s", what, e && e->message ? e->message : "libgit2 error");
}

void repo_blob_id(char out[41], const void *data, size_t len)
{
	git_oid oid;

	if (git_odb_hash(&oid, data, len, GIT_OBJECT_BLOB) < 0)
		memset(&oid, 0, sizeof(oid));
	git_oid_tostr(out, 41, &oid);
}

bool repo_blob_binary(const void *data, size_t len)
{
	return git_blob_data_is_binary(data, len) == 1;
}

static struct repo_file *file_add(struct repo_files *files, const char *prefix, const char *name)
{
	struct repo_file *f;
	size_t n = strlen(prefix), m = strlen(name);

	if (ARRAY_GROW(files->items, files->alloc, files->count + 1) < 0)
		return NULL;
	f = &files->items[files->count];
	memset(f, 0, sizeof(*f));
	if (!(f->path = malloc(n + m + 1))) {
		error_nomem();
		return NULL;
	}
	memcpy(f->path, prefix, n);
	memcpy(f->path + n, name, m + 1);
	files->count++;
	return f;
}

/* --- starting ------------------------------------------------------------- */

static int tree_push(struct repo_files *files, git_tree *tree, const char *prefix)
{
	struct frame *fr;

	if (ARRAY_GROW(files->stack, files->stack_alloc, files->depth + 1) < 0) {
		git_tree_free(tree);
		return -1;
	}
	fr = &files->stack[files->depth];
	fr->tree = tree;
	fr->at = 0;
	if (!(fr->prefix = strdup(prefix))) {
		git_tree_free(tree);
		return error_nomem();
	}
	files->depth++;
	return 0;
}

static int tree_start(struct repo_files *files, const char *commit_hex)
{
	git_oid oid;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	int error;

	if (!*commit_hex)
		return 0;       /* the empty tree */
	if (git_oid_fromstr(&oid, commit_hex) < 0 || git_commit_lookup(&commit, files->repo->git, &oid) < 0 ||
	    git_commit_tree(&tree, commit) < 0) {
		git_commit_free(commit);
		return git_fail(commit_hex);
	}
	git_commit_free(commit);
	error = tree_push(files, tree, "");
	return error;
}

static int listing_index_open(struct repo_files *files)
{
	if (git_repository_index(&files->index, files->repo->git) < 0 || git_index_read(files->index, false) < 0)
		return git_fail("cannot read the index");
	files->scan.filemode = true;
	scan_index_time(&files->scan, files->index);
	return 0;
}

int repo_files_start(struct repo_files **out, struct repo *repo, const struct target *target, bool old_side,
		     size_t max)
{
	struct repo_files *files = calloc(1, sizeof(*files));
	int error;

	*out = NULL;
	if (!files)
		return error_nomem();
	files->repo = repo;
	files->max = max;
	files->source = old_side || target->side == SIDE_TREE ? FROM_TREE :
		target->side == SIDE_INDEX ? FROM_INDEX : FROM_WORKDIR;
	files->untracked = !old_side && target->side == SIDE_WORKDIR && target->untracked;
	if (files->source == FROM_WORKDIR && !repo->workdir)
		error = error_set(RL_EUSAGE, "a bare repository has no working tree");
	else if (files->source == FROM_TREE)
		error = tree_start(files, old_side ? target->base_oid : target->head_oid);
	else
		error = listing_index_open(files);
	if (error < 0) {
		repo_files_free(files);
		return error;
	}
	*out = files;
	return 0;
}

void repo_files_free(struct repo_files *files)
{
	size_t i;

	if (!files)
		return;
	for (i = 0; i < files->depth; i++) {
		git_tree_free(files->stack[i].tree);
		free(files->stack[i].prefix);
	}
	free(files->stack);
	git_index_free(files->index);
	for (i = 0; i < files->count; i++)
		free(files->items[i].path);
	free(files->items);
	strings_free(&files->attr_dirs);
	buf_release(&files->scratch);
	free(files);
}

const struct repo_file *repo_files_list(const struct repo_files *files, size_t *count)
{
	*count = files->count;
	return files->items;
}

/* --- a commit's tree --------------------------------------------------------- */

static int tree_entry(struct repo_files *files, const struct frame *fr, const git_tree_entry *e)
{
	const char *name = git_tree_entry_name(e);
	git_filemode_t mode = git_tree_entry_filemode(e);
	struct repo_file *f;
	git_tree *sub = NULL;

	if (!strcasecmp(name, ".git"))
		return 0;
	if (mode == GIT_FILEMODE_TREE) {
		struct buf prefix = BUF_INIT;
		int error;

		if (git_tree_lookup(&sub, files->repo->git, git_tree_entry_id(e)) < 0)
			return git_fail(name);
		if ((error = buf_printf(&prefix, "%s%s/", fr->prefix, name)) == 0)
			error = tree_push(files, sub, prefix.ptr);
		else
			git_tree_free(sub);
		buf_release(&prefix);
		return error;
	}
	if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE)
		return 0;       /* a link, a submodule */
	if (!(f = file_add(files, fr->prefix, name)))
		return -1;
	git_oid_tostr(f->blob, sizeof(f->blob), git_tree_entry_id(e));
	return 0;
}

static int tree_step(struct repo_files *files, int64_t until)
{
	int error;

	while (files->depth && clock_us() < until) {
		struct frame *fr = &files->stack[files->depth - 1];

		if (fr->at >= git_tree_entrycount(fr->tree)) {
			git_tree_free(fr->tree);
			free(fr->prefix);
			files->depth--;
			continue;
		}
		/* tree_entry may grow the stack: fr is not used after it. */
		if ((error = tree_entry(files, fr, git_tree_entry_byindex(fr->tree, fr->at++))) < 0)
			return error;
	}
	return files->depth == 0;
}

/* --- the index and the working tree ---------------------------------------------- */

/* Whether git's stat cache vouches for the file: unchanged since it was staged, and not racily so. */
static bool stat_clean(const struct repo_files *files, const git_index_entry *e, const struct stat *st)
{
	struct scan_entry entry;

	if (GIT_INDEX_ENTRY_STAGE(e) != 0 || (e->flags_extended & GIT_INDEX_ENTRY_INTENT_TO_ADD))
		return false;
	scan_entry_of(&entry, e);
	scan_judge(&entry, st, &files->scan);
	return entry.state == SCAN_CLEAN;
}

/* A file read to know its id: the working tree's bytes, hashed (or listed without an id when too large). */
static int workdir_hash(struct repo_files *files, struct repo_file *f)
{
	int error;

	f->workdir = true;
	buf_clear(&files->scratch);
	if ((error = repo_read_workdir(&files->scratch, files->repo, f->path, files->max)) == 0) {
		repo_blob_id(f->blob, files->scratch.ptr ? files->scratch.ptr : "", files->scratch.len);
		f->size = files->scratch.len;
	} else if (error == RL_EPARSE) {
		error_clear();
		return 0;       /* too large: listed with its size, without an id */
	}
	return error;
}

/* The working tree's file for an index entry; a path that is not a regular file there is left out. */
static int workdir_entry(struct repo_files *files, const git_index_entry *e)
{
	struct repo_file *f;
	struct stat st;
	int error;

	if (files->count && !strcmp(files->items[files->count - 1].path, e->path))
		return 0;       /* a conflict's other stages */
	buf_clear(&files->scratch);
	if (buf_printf(&files->scratch, "%s%s", files->repo->workdir, e->path) < 0)
		return -1;
	if (lstat(files->scratch.ptr, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;       /* deleted, or a link, a FIFO, a folder now */
	if (!(f = file_add(files, "", e->path)))
		return -1;
	f->size = (uint64_t)st.st_size;
	if (stat_clean(files, e, &st)) {
		f->workdir = true;
		git_oid_tostr(f->blob, sizeof(f->blob), &e->id);
		return 0;
	}
	if ((error = workdir_hash(files, f)) < 0) {
		/* Gone or turned into something else since lstat: not on this side. */
		free(f->path);
		files->count--;
		error_clear();
	}
	return 0;
}

static int index_step(struct repo_files *files, int64_t until)
{
	size_t n = git_index_entrycount(files->index);
	int error;

	while (files->at < n && clock_us() < until) {
		const git_index_entry *e = git_index_get_byindex(files->index, files->at++);
		unsigned type = e->mode & 0170000;

		if (type != 0100000 || repo_path_in_git(e->path))
			continue;       /* a link, a submodule */
		if (files->source == FROM_WORKDIR) {
			if ((error = workdir_entry(files, e)) < 0)
				return error;
		} else if (GIT_INDEX_ENTRY_STAGE(e) == 0) {
			struct repo_file *f = file_add(files, "", e->path);

			if (!f)
				return -1;
			git_oid_tostr(f->blob, sizeof(f->blob), &e->id);
			f->size = e->file_size;
		}
	}
	return files->at >= n;
}

/* The untracked files that are not ignored, read and hashed (one slice: git's status walks at once). */
static int untracked_list(struct repo_files *files)
{
	git_status_options opts;
	git_status_list *list = NULL;
	size_t i, n;
	int error = 0;

	git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
	opts.show = GIT_STATUS_SHOW_WORKDIR_ONLY;
	opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS;
	if (git_status_list_new(&list, files->repo->git, &opts) < 0)
		return git_fail("cannot list the untracked files");
	n = git_status_list_entrycount(list);
	for (i = 0; i < n && !error; i++) {
		const git_status_entry *s = git_status_byindex(list, i);
		const char *path = s->index_to_workdir ? s->index_to_workdir->new_file.path : NULL;
		struct repo_file *f;
		struct stat st;

		if (!(s->status & GIT_STATUS_WT_NEW) || !path || repo_path_in_git(path))
			continue;
		buf_clear(&files->scratch);
		if (buf_printf(&files->scratch, "%s%s", files->repo->workdir, path) < 0)
			error = -1;
		else if (lstat(files->scratch.ptr, &st) == 0 && S_ISREG(st.st_mode) && (f = file_add(files, "", path))) {
			f->untracked = true;
			f->size = (uint64_t)st.st_size;
			if (workdir_hash(files, f) < 0) {
				free(f->path);
				files->count--;
				error_clear();
			}
		}
	}
	git_status_list_free(list);
	return error;
}

/* --- linguist attributes ---------------------------------------------------------- */

static const char *const linguist_words[] = { "linguist-", NULL };

/*
 * Whether an attributes file that holds for the whole repository
 * (info/attributes, the user's, the system's) speaks of linguist, or
 * cannot be read.
 */
static bool attributes_global(struct repo_files *files)
{
	bool silent;

	if (repo_attr_silent(&silent, files->repo->git, NULL, 0, linguist_words) < 0) {
		error_clear();
		return true;
	}
	return !silent;
}

/* Which folders' .gitattributes (as this side has them) speak of linguist. */
static int attributes_find(struct repo_files *files)
{
	struct buf text = BUF_INIT;
	size_t i, n;
	int error = 0;

	files->attr_all = attributes_global(files);
	for (i = 0; i < files->count && !files->attr_all && !error; i++) {
		const struct repo_file *f = &files->items[i];
		const char *base = strrchr(f->path, '/');

		base = base ? base + 1 : f->path;
		if (strcmp(base, ".gitattributes") || !*f->blob)
			continue;
		buf_clear(&text);
		if (repo_file_read(&text, files->repo, f, REPO_ATTR_MAX) < 0) {
			error_clear();
			continue;
		}
		if (repo_attr_text_silent(text.ptr, text.len, linguist_words))
			continue;
		n = (size_t)(base - f->path);
		{
			char *dir = strndup(f->path, n);

			error = dir ? strings_take(&files->attr_dirs, dir) : error_nomem();
		}
	}
	buf_release(&text);
	return error;
}

static bool under_attributes(const struct repo_files *files, const char *path)
{
	size_t i;

	if (files->attr_all)
		return true;
	for (i = 0; i < files->attr_dirs.count; i++)
		if (!strncmp(path, files->attr_dirs.items[i], strlen(files->attr_dirs.items[i])))
			return true;
	return false;
}

static int linguist_step(struct repo_files *files, int64_t until)
{
	int error;

	if (!files->attr_all && !files->attr_dirs.count)
		return 1;
	while (files->at < files->count && clock_us() < until) {
		struct repo_file *f = &files->items[files->at++];

		if (under_attributes(files, f->path) && (error = repo_linguist(&f->linguist, files->repo, f->path)) < 0)
			return error;
	}
	return files->at >= files->count;
}

int repo_files_step(struct repo_files *files, int64_t budget_us)
{
	int64_t until = clock_us() + budget_us;
	int done;

	while (files->phase != LISTED) {
		switch (files->phase) {
		case LISTING:
			done = files->source == FROM_TREE ? tree_step(files, until) : index_step(files, until);
			break;
		case UNTRACKED:
			done = files->untracked ? untracked_list(files) : 0;
			done = done < 0 ? done : 1;
			break;
		case ATTRIBUTES:
			done = attributes_find(files);
			files->at = 0;
			done = done < 0 ? done : 1;
			break;
		default:
			done = linguist_step(files, until);
			break;
		}
		if (done < 0)
			return done;
		if (!done)
			return 0;
		files->phase++;
		if (clock_us() >= until && files->phase != LISTED)
			return 0;
	}
	return 1;
}

int repo_file_read(struct buf *out, struct repo *repo, const struct repo_file *file, size_t max)
{
	git_oid oid;
	git_blob *blob = NULL;
	int error;

	if (file->workdir)
		return repo_read_workdir(out, repo, file->path, max);
	/* Through the handle the diffs were made on: a blob they read may be in its cache (repo_blob_cache_hold). */
	if (git_oid_fromstr(&oid, file->blob) < 0 ||
	    git_blob_lookup(&blob, repo->objects ? repo->objects : repo->git, &oid) < 0)
		return error_set(RL_ENOTFOUND, "%s: blob %.12s is not in the repository", file->path, file->blob);
	if (max && (size_t)git_blob_rawsize(blob) > max)
		error = error_set(RL_EPARSE, "%s: larger than %zu bytes", file->path, max);
	else
		error = buf_put(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	return error;
}

int repo_tracked_dirs(struct repo *repo, int (*each)(void *ctx, const char *path, size_t len), void *ctx)
{
	git_index *index = NULL;
	const char *prev = NULL;
	size_t prev_len = 0, i, n;
	int error = 0;

	if (git_repository_index(&index, repo->git) < 0 || git_index_read(index, false) < 0) {
		git_index_free(index);
		return git_fail("cannot read the index");
	}
	n = git_index_entrycount(index);
	for (i = 0; i < n && !error; i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);
		const char *slash = e ? strrchr(e->path, '/') : NULL;

		if (!slash || (prev && prev_len == (size_t)(slash - e->path) && !memcmp(prev, e->path, prev_len)))
			continue;
		prev = e->path;
		prev_len = (size_t)(slash - e->path);
		error = each(ctx, e->path, prev_len);
	}
	git_index_free(index);
	return error;
}
