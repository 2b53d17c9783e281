#ifndef REVLINE_STORE_HISTORY_H
#define REVLINE_STORE_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "history.h"
#include "store.h"

/*
 * The history of a repository as the store keeps it, in the terms of
 * history.h (which defines violations, fixes and their figures). A
 * repository is its key (history_repo_key). Lists come back whole or not
 * at all; free them with history.h's functions.
 */

/* The newest limit checks of the repository (0: all), newest first. */
int store_history_checks(struct history_check **out, size_t *count, struct store *store,
			 const char *repo, size_t limit);

/* The repository's fixes, newest first; only rule_id's when it is not NULL. */
int store_history_fixes(struct history_fix **out, size_t *count, struct store *store,
			const char *repo, const char *rule_id);

/* One fix by its id; RL_ENOTFOUND when there is none. */
int store_history_fix(struct history_fix **out, struct store *store, int64_t fix_id);

/* A check's violations, the most severe first, then by rule id, with the latest fix of each. */
int store_history_violations(struct history_violation **out, size_t *count, struct store *store,
			     int64_t check_id);

/* Where the store stands now; data is -1 when it cannot be told. */
int store_history_version(struct history_version *out, struct store *store);

/*
 * In one transaction: the repository's number of checks, violations, each
 * rule's violations, findings and false positives (in out->rules), usage
 * and unpriced checks, and its fixes (for the caller's figures). Nothing
 * when the store has never seen the repository.
 */
int store_history_counts(struct history_stats *out, struct history_fix **fixes, size_t *nfixes,
			 struct store *store, const char *repo);

#endif
