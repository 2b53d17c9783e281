#ifndef REVLINE_STORE_HISTORY_H
#define REVLINE_STORE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"
#include "usage.h"

/*
 * The history of a repository as the store keeps it, in the terms of
 * history.h (which defines violations, fixes and their figures). A
 * repository is its key (history_repo_key). Lists come back whole or not
 * at all.
 */

/*
 * Whose history: this clone's (path, history_repo_key), or with remote
 * every clone of the repository, however each reached it (remote_url.h's
 * form); with author only what that author did (the checks they ran, the
 * fixes found in their checks, the feedback they gave).
 */
struct history_scope {
	const char *path;
	const char *remote;             /* NULL: the clone at path */
	const char *author;             /* NULL: anyone's */
};

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
	char *author;                   /* who ran it (git's user.email), NULL when not known */
	char *host;                     /* on which machine, NULL when not known */
	char *path;                     /* the clone's path on it */
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

/* A rule's own finding, what a list of findings to choose from shows (the id `revline feedback` takes). */
struct history_finding {
	int64_t id;
	char *rule_id;
	char *file;                     /* may be NULL */
	int line;
	char *severity;
	char *title;                    /* may be NULL */
};

enum history_bucket { BUCKET_5MIN, BUCKET_1H, BUCKET_24H, BUCKET_MORE, BUCKET_COUNT };
enum history_fix_type { FIX_CODE_CHANGE, FIX_THREADLINE_CHANGED, FIX_THREADLINE_DELETED,
			FIX_TYPE_COUNT };

struct history_rule_stats {
	char *rule_id;
	long violations, fixes;
	double fix_rate;
	long findings;                  /* verified by revline against the file */
	long unverified;                /* hidden as unverified: no violation, counted apart */
	long false_positives;
	double false_positive_rate;
};

struct history_stats {
	long checks;
	long violations;
	long unverified;                /* findings hidden as unverified, in no other figure */
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

void history_checks_free(struct history_check *checks, size_t count);
void history_fixes_free(struct history_fix *fixes, size_t count);
void history_violations_free(struct history_violation *violations, size_t count);
void history_findings_free(struct history_finding *findings, size_t count);

/* A rule's figures in stats, added (zero) when new; NULL when memory ran out. */
struct history_rule_stats *history_rule_entry(struct history_stats *stats, const char *rule_id);

/* Where the store stands, so that a view reads the history again only when it has changed. */
struct history_version {
	int64_t data;                   /* other connections' commits (SQLite: PRAGMA data_version; PostgreSQL: a sequence) */
	int64_t changes;                /* rows this connection has written */
};

/* The newest limit checks of the repository (0: all), newest first. */
int store_history_checks(struct history_check **out, size_t *count, struct store *store,
			 const struct history_scope *scope, size_t limit);

/* The repository's fixes, newest first; only rule_id's when it is not NULL. */
int store_history_fixes(struct history_fix **out, size_t *count, struct store *store,
			const struct history_scope *scope, const char *rule_id);

/*
 * The newest limit findings of the repository's checks (0: all), newest
 * first: the rules' own (a report's merged finding shows one of them).
 */
int store_history_findings(struct history_finding **out, size_t *count, struct store *store,
			   const char *repo, size_t limit);

/* One fix by its id; RL_ENOTFOUND when there is none. */
int store_history_fix(struct history_fix **out, struct store *store, int64_t fix_id);

/* A check's violations, the most severe first, then by rule id, with the latest fix of each. */
int store_history_violations(struct history_violation **out, size_t *count, struct store *store,
			     int64_t check_id);

/* Where the store stands now; data is -1 when it cannot be told. */
int store_history_version(struct history_version *out, struct store *store);

/*
 * In one transaction: the scope's number of checks, violations, each
 * rule's violations, findings and false positives (in out->rules), usage
 * and unpriced checks, and its fixes (for the caller's figures). Nothing
 * when the scope has no check.
 */
int store_history_counts(struct history_stats *out, struct history_fix **fixes, size_t *nfixes,
			 struct store *store, const struct history_scope *scope);

#endif
