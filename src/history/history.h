#ifndef REVLINE_HISTORY_H
#define REVLINE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"
#include "store_history.h"
#include "usage.h"

/*
 * The history of one repository, read from the store: its checks, the
 * fixes fix detection found, and the figures of the violation-fix seed
 * (section 6). The scope is a repository by its path as the store keeps
 * it (repos.path: the working tree, or the git directory of a bare
 * repository, without a trailing slash; history_repo_key makes it), or
 * in a team's store every clone of a repository by its remote, and
 * possibly one author's part (struct history_scope).
 *
 * Definitions:
 *  - A violation is a check_results row with status 'attention': one per
 *    rule per check, unless every finding of it is a false positive
 *    (suppressed when the check ran, or marked false positive since, as
 *    the latest word on it).
 *  - A fix is a violation_fixes row, unless the latest fix feedback on it
 *    (fix_correct or fix_incorrect) is fix_incorrect: such a fix is
 *    counted apart (incorrect) and nowhere else.
 *  - Fix rate: fixes / violations, 0 when there is no violation.
 *  - Time to fix: violation_fixes.time_between_checks_seconds, over the
 *    fixes that have one (timed). Average; p95 by nearest rank (the
 *    smallest value with at least 95% of the values at or below it).
 *    Buckets as in the seed: < 300 s, 300-3599 s, 3600-86399 s, >= 86400 s
 *    (a negative time, from a clock set back, is in the first).
 *  - Per rule (threadline_id): violations and fixes as above; findings are
 *    the rule's own findings rows (reduced = 0) in the repository's checks;
 *    false positives are feedback rows of kind false_positive on the rule
 *    in the repository, at most one per finding, and only when it is still
 *    the latest word on that finding (a later accept or reject lifts it);
 *    false-positive rate: false positives / findings, 0 without findings.
 *  - Usage: a check's tokens and estimated cost as its requests billed
 *    them (answers from revline's cache bill nothing); a cost not known
 *    is NULL in the store and negative here.
 *
 * The structures and their free functions are store_history.h's.
 */


/* The store's key of a repository path: the path without trailing slashes. */
char *history_repo_key(const char *path);

/* The newest limit checks of the scope (store_history.h; 0: all), newest first. */
int history_checks(struct history_check **out, size_t *count, struct store *store,
		   const struct history_scope *scope, size_t limit);

/* The scope's fixes, newest first; only rule_id's when it is not NULL. */
int history_fixes(struct history_fix **out, size_t *count, struct store *store,
		  const struct history_scope *scope, const char *rule_id);

/* The newest limit findings of the repository's checks (0: all), newest first (see store_history_findings). */
int history_findings(struct history_finding **out, size_t *count, struct store *store,
		     const char *repo, size_t limit);

/* A check's violations: the most severe first, then by rule id. */
int history_violations(struct history_violation **out, size_t *count, struct store *store,
		       int64_t check_id);

/* One fix by its id (free it with history_fixes_free(fix, 1)); RL_ENOTFOUND when there is none. */
int history_fix_lookup(struct history_fix **out, struct store *store, int64_t fix_id);


/*
 * Whether this process or another one has written to the store since
 * *version was taken; takes it anew. A failure to tell counts as a change.
 */
bool history_changed(struct history_version *version, struct store *store);

int history_stats(struct history_stats *out, struct store *store, const struct history_scope *scope);
void history_stats_release(struct history_stats *stats);

/*
 * The statistics of a list of times (seconds): average, p95 by nearest
 * rank, and buckets. Sorts the list.
 */
void history_times(struct history_stats *out, int64_t *seconds, size_t count);

/* Names as stored and shown. */
const char *history_bucket_name(enum history_bucket bucket);     /* "< 5 min" ... */
const char *history_fix_type_name(enum history_fix_type type);   /* "CODE_CHANGE" ... */
const char *history_fix_feedback_name(enum history_fix_feedback feedback);

/*
 * A time for people: "45 s", "4 min", "2.5 h", "3 d" (seconds below a
 * minute, whole minutes below an hour, tenths of hours below a day, then
 * tenths of days; ".0" dropped).
 */
void history_duration_text(char *out, size_t size, double seconds);

#endif
