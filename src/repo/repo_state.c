/*
 * What git has in progress in the repository (a merge, a rebase, a
 * cherry-pick, a revert, ...) and the kind of each path it could not merge.
 */
#include "repo.h"
#include "repo_state.h"

#include <git2.h>

const char *repo_in_progress(struct repo *repo)
{
	switch (git_repository_state(repo->git)) {
	case GIT_REPOSITORY_STATE_MERGE:
		return "merge";
	case GIT_REPOSITORY_STATE_REBASE:
	case GIT_REPOSITORY_STATE_REBASE_INTERACTIVE:
	case GIT_REPOSITORY_STATE_REBASE_MERGE:
	case GIT_REPOSITORY_STATE_APPLY_MAILBOX_OR_REBASE:
		return "rebase";
	case GIT_REPOSITORY_STATE_CHERRYPICK:
	case GIT_REPOSITORY_STATE_CHERRYPICK_SEQUENCE:
		return "cherry-pick";
	case GIT_REPOSITORY_STATE_REVERT:
	case GIT_REPOSITORY_STATE_REVERT_SEQUENCE:
		return "revert";
	case GIT_REPOSITORY_STATE_APPLY_MAILBOX:
		return "am";
	case GIT_REPOSITORY_STATE_BISECT:
		return "bisect";
	default:
		return NULL;
	}
}

enum diff_conflict repo_conflict_of(git_index *index, const char *path)
{
	const git_index_entry *ancestor = NULL, *ours = NULL, *theirs = NULL;

	if (!index || git_index_conflict_get(&ancestor, &ours, &theirs, index, path) < 0)
		return DIFF_CONFLICT_NONE;
	/* The stages held, as a mask: the enum's values (diff.h). */
	return (enum diff_conflict)((ancestor ? 1 : 0) | (ours ? 2 : 0) | (theirs ? 4 : 0));
}
