#ifndef REVLINE_REPO_RENAME_H
#define REVLINE_REPO_RENAME_H

/* Inside the engine: the patch of a file revline paired as a rename (rename.h). */

#include "buf.h"

#include <git2.h>
#include <stdbool.h>

/*
 * git's text of a rename from old to new, similar in percent: "diff --git", the mode lines, "similarity index",
 * "rename from/to", then (when the contents differ) the index line and the
 * hunks or "Binary files ... differ" as libgit2 makes them.
 */
int rename_patch_text(struct buf *out, git_repository *git, const git_diff_file *old,
		      const git_diff_file *new, unsigned similarity);

/* Its added and removed lines, and whether it is binary. */
int rename_patch_count(size_t *adds, size_t *dels, bool *binary, git_repository *git,
		       const git_diff_file *old, const git_diff_file *new);

#endif
