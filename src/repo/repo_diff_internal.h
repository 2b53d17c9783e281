#ifndef REVLINE_REPO_DIFF_INTERNAL_H
#define REVLINE_REPO_DIFF_INTERNAL_H

/*
 * Inside the engine: the working tree's diff listed before libgit2 has
 * listed it (repo_quick.c), and what it shares with repo_diff.c.
 */

#include "repo.h"

#include <git2.h>
#include <stdbool.h>

/* libgit2's diff of a target and what the models made from it share (repo_diff.c). */
struct git_shared;

/*
 * libgit2's diff of target, limited to paths (exact paths; NULL: all of
 * them, renames prepared), its unmerged paths and the entries to show.
 */
int diff_shared_make(struct git_shared **out, struct repo *repo, const struct target *target,
		     const git_strarray *paths);
void diff_shared_release(struct git_shared *sh);
/* A model of the shared diff with the renames paired so far; prev's counts kept. */
int diff_shared_model(struct diff **out, struct git_shared *sh, const struct diff *prev);
/* The index's changes against the target's base tree (libgit2's tree-to-index diff). */
int diff_staged(git_diff **out, git_repository *git, const struct target *t, git_index *index);

/*
 * The diff of the working tree (no untracked files) listed from the index
 * and one lstat per entry, as git lists it; each file's text still comes
 * from libgit2, for 64 files at a time. *out is NULL when the repository
 * is one the listing leaves to libgit2 (conflicts, submodules, a
 * case-insensitive or link-less core setting, a stat that failed).
 */
int quick_start(struct diff **out, struct repo *repo, const struct target *target);
bool quick_is(const struct diff *diff);
/* libgit2's whole diff of the same target, once made (NULL before). */
struct git_shared *quick_shared(const struct diff *diff);
/* libgit2's whole diff, made now if it was not (with the renames to pair). */
int quick_shared_make(struct git_shared **out, struct diff *diff);

#endif
