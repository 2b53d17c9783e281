#ifndef REVLINE_STORE_VIOLATIONS_H
#define REVLINE_STORE_VIOLATIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "array.h"
#include "buf.h"
#include "store.h"

/*
 * What fix detection reads and writes (fixdetect.h): a check and the one
 * before it, the violations of a check, a rule as a check stored it, the
 * fixes found (violation_fixes) and each run (fix_detection_runs). Each
 * write is one transaction of its own.
 */

/* A check, and the previous consecutive one: same repository, branch and environment. */
struct check_pair {
	char *environment;
	char *workdir;                  /* the repository's path, for rule files */
	char *host;                     /* the machine the check ran on; with workdir, its clone */
	int64_t created_ms;
	int64_t previous_id;            /* 0: none */
	int64_t previous_ms;
};

/* RL_ENOTFOUND for an unknown check. */
int store_check_pair(struct check_pair *out, struct store *store, int64_t check_id);
void check_pair_release(struct check_pair *pair);

/* A violation as a check stored it (STORE_VIOLATION): a rule whose result was 'attention', on a verified finding. */
struct stored_violation {
	int64_t threadline_row;         /* its check_threadlines id */
	char *rule_id;
	char *rule_path;
	char *rule_version;
	char *reasoning;
	char **files;                   /* the result's references, then its verified findings' files, each once */
	size_t nfiles;
};

void stored_violations_free(struct stored_violation *violations, size_t count);

/* The violations of a check, by rule id; whole or nothing. */
int store_violations_of_check(struct stored_violation **out, size_t *count, struct store *store,
			      int64_t check_id);

/* A rule as one check stored it, found by id and file path as the seed matches them. */
struct stored_rule {
	bool present;                   /* false: not in that check */
	int64_t row;                    /* its check_threadlines id */
	char *content;
	struct strings patterns;
	char *status;                   /* its result, or NULL */
	struct strings fingerprints;    /* of its verified findings, each once */
};

int store_rule_in_check(struct stored_rule *out, struct store *store, int64_t check_id,
			const char *rule_id, const char *rule_path);
void stored_rule_release(struct stored_rule *rule);

/* A fix found: a violation of one check gone in a later one. */
struct fix_record {
	int64_t violation_check, fix_check;
	int64_t threadline_row;         /* the violation's check_threadlines id */
	const char *rule_id, *rule_path, *rule_version;
	char *const *files;
	size_t nfiles;
	const char *fix_type;           /* CODE_CHANGE, THREADLINE_CHANGED, THREADLINE_DELETED */
	const char *explanation;
	const char *evidence;           /* JSON text, or NULL */
	const char *method;             /* deterministic, llm_analysis */
	long seconds;                   /* between the two checks */
};

/*
 * Record a fix; one an earlier run found for the same violation (same fix
 * check and rule row) is replaced. *id is its row.
 */
int store_fix_put(int64_t *id, struct store *store, const struct fix_record *fix);

/* A violation found not fixed by fix_check loses the fix an earlier run may have stored. */
int store_fix_drop(struct store *store, int64_t fix_check, int64_t threadline_row);

/*
 * A run of fix detection for check_id begins (status running, this
 * process); previous 0: none. With claim, the pair is claimed first, so
 * that of two clients racing for it one runs it: *run_id is 0 when the
 * pair is another run's (running, or done).
 */
int store_detection_begin(int64_t *run_id, struct store *store, int64_t check_id, int64_t previous_id,
			  bool claim);

/* How a run ended. */
struct detection_figures {
	const char *status;             /* done, failed */
	size_t violations, analysed, detected, deterministic, calls, errors;
	const char *error_log;          /* a JSON array of texts; NULL: none */
	int64_t started_ms;
};

int store_detection_finish(struct store *store, int64_t run_id, const struct detection_figures *figures);

#endif
