#ifndef REVLINE_REPO_STATE_H
#define REVLINE_REPO_STATE_H

/* Inside the engine: an unmerged path's kind, for the diff model. */

#include "diff.h"

#include <git2.h>

/* The kind of conflict the index holds for path (DIFF_CONFLICT_NONE when none). */
enum diff_conflict repo_conflict_of(git_index *index, const char *path);

#endif
