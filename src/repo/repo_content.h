#ifndef REVLINE_REPO_CONTENT_H
#define REVLINE_REPO_CONTENT_H

/* Inside the engine: the contents the diff and the rename pairing read. */

#include <git2.h>
#include <stdbool.h>
#include <stdint.h>

/* A side's content as git would hash it: the blob, or the working-tree file filtered. */
int repo_content_of(git_buf *out, git_repository *git, const git_diff_file *side);

/*
 * A working-tree file's content as git would hash it (rel to the working
 * tree, mode its mode): a symbolic link is its target's name; anything but
 * a regular file is refused without being opened. -1 on failure.
 */
int repo_workdir_content(git_buf *out, git_repository *git, const char *rel, uint32_t mode);

/* A repository path that cannot leave the working tree by its spelling: relative, no "..". */
bool repo_path_safe(const char *path);
/*
 * Whether the working tree's file at rel is reached without leaving it: a
 * safe spelling, and every directory on the way a directory (not a link),
 * none of them .git. libgit2 reads an index's paths without checking them.
 */
bool repo_workdir_reachable(git_repository *git, const char *rel);

#endif
