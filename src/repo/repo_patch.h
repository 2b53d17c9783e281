#ifndef REVLINE_REPO_PATCH_H
#define REVLINE_REPO_PATCH_H

/*
 * Inside the engine: a file's patch whose header revline writes (see
 * repo_patch.c), for what libgit2's own diff cannot give as git does, or
 * only by reading a big binary file whole.
 *
 * A side is a git_diff_file: absent when its mode is 0; its content the
 * blob when it has a valid id and the object database holds it, else the
 * working-tree file at its path.
 */

#include "buf.h"

#include <git2.h>
#include <stdbool.h>
#include <stdint.h>

struct patch_count {
	size_t additions, deletions;
	bool binary;
	uint64_t old_size, new_size;    /* a binary file's (0 and 0 when the contents are the same) */
};

/*
 * git's text of old against new (path the same on both sides): the header,
 * then libgit2's hunks or "Binary files ... differ" of the two contents.
 * Nothing when they are the same; a deletion then a creation when one is a
 * file and the other a symbolic link. The "index" line carries full ids.
 */
int patch_sides_text(struct buf *out, git_repository *git, const git_diff_file *old,
		     const git_diff_file *new);
/* Its added and removed lines, whether it is binary, the sizes. */
int patch_sides_count(struct patch_count *out, git_repository *git, const git_diff_file *old,
		      const git_diff_file *new);

/*
 * Whether a file is binary, told as git tells it (a "binary" or "-diff"
 * attribute; a NUL in a side's first 8,000 bytes) without reading either
 * side whole: 1 when it is (*out: no lines, binary, the sizes), 0 when
 * that cannot be told so and the caller diffs the contents (small files,
 * where reading them costs less; text; a filter that changes the bytes; a
 * link or a submodule), < 0 on error.
 */
int patch_binary_probe(struct patch_count *out, git_repository *git, const git_diff_file *old,
		       const git_diff_file *new);
/*
 * Whether a file whose content did not change (a pure rename, a mode
 * change) is binary, as git's --numstat and --stat say it ("-\t-", "Bin"):
 * either side's "binary" or "-diff" attribute, else a NUL in its first
 * 8,000 bytes. Its patch has no content to tell it by.
 */
int patch_binary_same(bool *out, git_repository *git, const git_diff_file *old, const git_diff_file *new);
/*
 * The text of a file patch_binary_probe found binary: the header and
 * "Binary files ... differ", reading nothing but a working-tree side that
 * has no id yet (hashed, as git hashes it for its "index" line).
 */
int patch_binary_text(struct buf *out, git_repository *git, const git_diff_file *old,
		      const git_diff_file *new);

#endif
