#ifndef REVLINE_FIXDETECT_H
#define REVLINE_FIXDETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ask.h"
#include "llm.h"
#include "sched.h"
#include "store.h"

/*
 * Violation-fix detection (the violation-fix seed, for a local program):
 * after a check is stored, the violations of the previous consecutive check
 * (same clone, branch and environment) are looked at one by one:
 * was each fixed, and how (CODE_CHANGE, THREADLINE_CHANGED,
 * THREADLINE_DELETED)? What needs no judgement is decided without a call
 * (a rule gone with its file is THREADLINE_DELETED; the same findings
 * again are not fixed); the rest are asked of the LLM in parallel through
 * the scheduler, one request per violation, with both checks' diffs
 * filtered by each check's patterns, the rule file's own diff and both
 * stored rule contents. Fixes go to violation_fixes, the run to
 * fix_detection_runs; a failed call is logged there and the others go on.
 * Like a check it never blocks: drive it with fds/timeout/step.
 */

/* What happened to one violation. X(ID, name). */
#define OUTCOME_LIST(X) \
	X(OUTCOME_PENDING,   "pending") \
	X(OUTCOME_FIXED,     "fixed") \
	X(OUTCOME_NOT_FIXED, "not fixed") \
	X(OUTCOME_SKIPPED,   "skipped") \
	X(OUTCOME_FAILED,    "failed")

enum outcome {
#define OUTCOME_ENUM(id, name) id,
	OUTCOME_LIST(OUTCOME_ENUM)
#undef OUTCOME_ENUM
};

const char *outcome_name(enum outcome outcome);

struct violation {
	int64_t threadline_row;         /* the previous check's check_threadlines id */
	char *rule_id;
	char *rule_path;
	char *rule_version;
	char **files;                   /* file references and the findings' files */
	size_t nfiles;
	char *reasoning;
	enum outcome outcome;
	const char *method;             /* "deterministic" or "llm_analysis" */
	char *fix_type;                 /* when fixed */
	char *explanation;              /* why fixed, or not, or why skipped */
	char *evidence;                 /* the answer's evidence, JSON text, or NULL */
	char *error;                    /* when failed */
	int64_t fix_id;                 /* the violation_fixes row, when fixed */
	/* For the request. */
	char *system, *user;
	char key[41];
	bool json_mode;
	int attempts;
};

struct fixdetect_options {
	struct llm_config *llm;         /* provider none: only deterministic decisions */
	struct sched_options sched;
	struct asker_options ask;
	bool no_cache;
	/*
	 * Claim the pair of checks first (what runs after a check does): when
	 * another client has it, running or done, this run does nothing
	 * (fixdetect_elsewhere). By hand it runs again regardless.
	 */
	bool once;
	struct poll_group *group;       /* the front end's poll group (NULL: one of its own) */
};

enum fixdetect_event_kind {
	FIXDETECT_SETTLED,              /* a violation has its outcome */
	FIXDETECT_DONE,                 /* every violation settled; the run is stored */
};

struct fixdetect_event {
	enum fixdetect_event_kind kind;
	size_t violation;
};

struct fixdetect;

int fixdetect_new(struct fixdetect **out, struct store *store, int64_t check_id,
		  const struct fixdetect_options *options);
void fixdetect_free(struct fixdetect *fd);
/*
 * Find the previous check and its violations, decide what needs no call,
 * and queue the rest. RL_ENOTFOUND for an unknown check.
 */
int fixdetect_start(struct fixdetect *fd);
/* Wait up to max_ms on its poll group and step it. */
int fixdetect_wait(struct fixdetect *fd, int max_ms);
bool fixdetect_next_event(struct fixdetect *fd, struct fixdetect_event *out);
bool fixdetect_done(const struct fixdetect *fd);

int64_t fixdetect_previous(const struct fixdetect *fd);     /* 0: no previous check */
long fixdetect_seconds(const struct fixdetect *fd);        /* between the two checks */
size_t fixdetect_count(const struct fixdetect *fd);
const struct violation *fixdetect_violation(const struct fixdetect *fd, size_t index);
int64_t fixdetect_run_id(const struct fixdetect *fd);
/* With once: whether another client had the pair, so that this run did nothing. */
bool fixdetect_elsewhere(const struct fixdetect *fd);
/* Violations fixed, and failed calls, so far. */
size_t fixdetect_fixed(const struct fixdetect *fd);
size_t fixdetect_errors(const struct fixdetect *fd);

#endif
