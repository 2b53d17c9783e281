#ifndef REVLINE_REPO_FILES_H
#define REVLINE_REPO_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "repo.h"

/*
 * The files of one side of a target, each with the id of its content (a
 * git blob id), listed in slices so that a front end's loop never waits for
 * a whole repository:
 *
 *   a commit's tree (SIDE_TREE, and the old side): its blobs;
 *   the index (SIDE_INDEX): its entries at stage 0;
 *   the working tree (SIDE_WORKDIR): the index's entries as the working tree
 *     has them, the index's id where git's stat cache says the file did not
 *     change since it was staged (size, times, inode, and not racily clean:
 *     changed in the same instant the index was written), the file read and
 *     hashed otherwise; with target->untracked, the untracked files that are
 *     not ignored.
 *
 * Only regular files: a symbolic link (the file it names is listed under its
 * own path when tracked), a submodule, a FIFO, a socket, a device or a
 * directory is not, and neither is any path through a ".git". Each file
 * says whether .gitattributes marks it linguist-generated or
 * linguist-vendored (repo_linguist, asked only under the folders whose
 * attributes files speak of linguist at all: asking for every file of a
 * 4,000-file repository costs half a second).
 */

struct repo_file {
	char *path;
	char blob[41];          /* its content's id; "" when it was larger than max and not read */
	uint64_t size;          /* its size when known without reading it (0: not known) */
	const char *linguist;   /* "linguist-generated", "linguist-vendored" or NULL */
	bool workdir;           /* its content is the working tree's file, not a blob of the object database */
	bool untracked;
};

struct repo_files;

/*
 * A listing of the target's new side, or of its base tree with old_side.
 * Files larger than max bytes (0: any) that must be read to know their id
 * are listed without it.
 */
int repo_files_start(struct repo_files **out, struct repo *repo, const struct target *target, bool old_side,
		     size_t max);
/* A slice of about budget_us microseconds: 1 when the list is complete, 0 when work remains, < 0 on error. */
int repo_files_step(struct repo_files *files, int64_t budget_us);
/* The files listed so far, in the order of the index or the tree (by path). */
const struct repo_file *repo_files_list(const struct repo_files *files, size_t *count);
void repo_files_free(struct repo_files *files);

/*
 * A listed file's content: the working tree's file (through
 * repo_read_workdir: never out of the tree) or its blob. RL_EPARSE when it
 * is larger than max bytes (0: any size).
 */
int repo_file_read(struct buf *out, struct repo *repo, const struct repo_file *file, size_t max);

/*
 * The folders that hold the index's tracked files (relative to the top of
 * the working tree, without the top itself), each given to each once in
 * the index's order, as the path's first len bytes; each's negative return
 * stops the walk and is returned. For a watcher: a save to any tracked file
 * happens in one of them.
 */
int repo_tracked_dirs(struct repo *repo, int (*each)(void *ctx, const char *path, size_t len), void *ctx);

/* The blob id git gives these bytes (41 bytes: 40 hex digits and a NUL). */
void repo_blob_id(char out[41], const void *data, size_t len);

/* Whether git takes these bytes for a binary file's (libgit2's git_blob_data_is_binary). */
bool repo_blob_binary(const void *data, size_t len);

#endif
