#ifndef REVLINE_REPO_RENAME_H
#define REVLINE_REPO_RENAME_H

/* Inside the engine: the patch of a file revline paired as a rename (rename.h). */

#include "buf.h"
#include "repo_patch.h"

#include <git2.h>
#include <stdbool.h>

/*
 * git's text of a rename from old to new, similar in percent: "diff --git", the mode lines, "similarity index",
 * "rename from/to", then (when the contents differ) the index line and the
 * hunks or "Binary files ... differ" as libgit2 makes them.
 */
int rename_patch_text(struct buf *out, git_repository *git, const git_diff_file *old,
		      const git_diff_file *new, unsigned similarity);

/* Its added and removed lines, whether it is binary, the sizes. */
int rename_patch_count(struct patch_count *out, git_repository *git, const git_diff_file *old,
		       const git_diff_file *new);

#endif
