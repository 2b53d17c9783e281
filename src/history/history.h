#ifndef REVLINE_HISTORY_H
#define REVLINE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"
#include "usage.h"

/*
 * The history of one repository, read from the store: its checks, the
 * fixes fix detection found, and the figures of the violation-fix seed
 * (section 6). The scope is a repository by its path as the store keeps
 * it (repos.path: the working tree, or the git directory of a bare
 * repository, without a trailing slash); history_repo_key makes it.
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
 */

/* A check as history lists it. */
struct history_check {
	int64_t id;
	int64_t created_ms;             /* unix ms */
	int64_t finished_ms;            /* 0 while running */
	int64_t duration_ms;            /* -1 when unknown (running, interrupted) */
	char *branch;
	char *target;                   /* may be NULL */
	char *status;                   /* running, complete, partial, failed, cancelled, interrupted */
	char *overall_severity;         /* NULL before the report */
	long rules;                     /* rules taking part */
	long findings;                  /* the report's findings (the rules' own without one) */
	long attention;                 /* rules whose result is 'attention' */
	/*
	 * What its requests billed (cost negative when not known). A running
	 * or interrupted check has no totals yet: its rules' results that were
	 * not answered from the cache are summed.
	 */
	struct usage usage;
};

/* The fix feedback in force on a fix: the latest fix_correct or fix_incorrect. */
enum history_fix_feedback {
	HISTORY_FIX_UNRATED,
	HISTORY_FIX_CORRECT,
	HISTORY_FIX_INCORRECT,
};

struct history_fix {
	int64_t id;
	int64_t violation_check_id, fix_check_id;
	int64_t created_ms;
	char *rule_id;                  /* threadline_id */
	char *rule_file;                /* threadline_file_path */
	char **files;                   /* file_references */
	size_t nfiles;
	char *fix_type;                 /* CODE_CHANGE, THREADLINE_CHANGED, THREADLINE_DELETED */
	char *explanation;
	char *method;                   /* llm_analysis or deterministic */
	bool timed;                     /* whether seconds is known */
	int64_t seconds;                /* time between the two checks */
	enum history_fix_feedback feedback;
};

/* A violation: a rule whose result in a check was 'attention'. */
struct history_violation {
	int64_t id;                     /* the check_results row */
	int64_t threadline_row;         /* the check_threadlines row, which a fix names */
	char *rule_id;
	char *rule_file;
	char *severity;                 /* the rule's: nitpick, minor, major, critical */
	char *reasoning;                /* why it needed attention; may be NULL */
	long findings;                  /* the rule's own findings in the check */
	char **files;                   /* file references, then the findings' other files */
	size_t nfiles;
	int64_t fix_id;                 /* the fix found for it (the latest), 0 when none */
	char *fix_type;                 /* that fix's type, NULL when none */
	enum history_fix_feedback fix_feedback;
};

enum history_bucket { BUCKET_5MIN, BUCKET_1H, BUCKET_24H, BUCKET_MORE, BUCKET_COUNT };
enum history_fix_type { FIX_CODE_CHANGE, FIX_THREADLINE_CHANGED, FIX_THREADLINE_DELETED,
			FIX_TYPE_COUNT };

struct history_rule_stats {
	char *rule_id;
	long violations, fixes;
	double fix_rate;
	long findings, false_positives;
	double false_positive_rate;
};

struct history_stats {
	long checks;
	long violations;
	long fixes;                     /* not marked incorrect */
	long incorrect;                 /* marked incorrect, left out of every other figure */
	double fix_rate;
	long timed;                     /* fixes with a time */
	double average_seconds;         /* 0 when none is timed */
	int64_t p95_seconds;            /* 0 when none is timed */
	long buckets[BUCKET_COUNT];
	long fix_types[FIX_TYPE_COUNT];
	struct history_rule_stats *rules;       /* most violations first, then by id */
	size_t nrules, rules_alloc;
	/*
	 * What the checks billed, as history_check counts each: the cost is
	 * the sum over the checks whose cost is known, negative when none of
	 * the checks that billed tokens has one; unpriced counts the checks
	 * that billed tokens at a cost not known (made before revline kept
	 * costs, or of a model without prices).
	 */
	struct usage usage;
	long unpriced;
};

/* The store's key of a repository path: the path without trailing slashes. */
char *history_repo_key(const char *path);

/* The newest limit checks of the repository (0: all), newest first. */
int history_checks(struct history_check **out, size_t *count, struct store *store,
		   const char *repo, size_t limit);
void history_checks_free(struct history_check *checks, size_t count);

/* The repository's fixes, newest first; only rule_id's when it is not NULL. */
int history_fixes(struct history_fix **out, size_t *count, struct store *store,
		  const char *repo, const char *rule_id);
void history_fixes_free(struct history_fix *fixes, size_t count);

/* A check's violations: the most severe first, then by rule id. */
int history_violations(struct history_violation **out, size_t *count, struct store *store,
		       int64_t check_id);
void history_violations_free(struct history_violation *violations, size_t count);

/* One fix by its id (free it with history_fixes_free(fix, 1)); RL_ENOTFOUND when there is none. */
int history_fix_lookup(struct history_fix **out, struct store *store, int64_t fix_id);

/* Where the store stands, so that a view reads the history again only when it has changed. */
struct history_version {
	int64_t data;                   /* PRAGMA data_version: other connections' commits */
	int64_t changes;                /* rows this connection has written */
};

/*
 * Whether this process or another one has written to the store since
 * *version was taken; takes it anew. A failure to tell counts as a change.
 */
bool history_changed(struct history_version *version, struct store *store);

int history_stats(struct history_stats *out, struct store *store, const char *repo);
void history_stats_release(struct history_stats *stats);

/* A rule's figures in stats, added (zero) when new; NULL when memory ran out. */
struct history_rule_stats *history_rule_entry(struct history_stats *stats, const char *rule_id);

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
