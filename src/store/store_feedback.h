#ifndef REVLINE_STORE_FEEDBACK_H
#define REVLINE_STORE_FEEDBACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "store.h"

/*
 * Feedback as the store keeps it (table feedback, searched by BM25 through
 * feedback_fts). Each call is one transaction of its own. The kinds,
 * X(ID, name as stored):
 */
#define FEEDBACK_LIST(X) \
	X(FEEDBACK_FALSE_POSITIVE, "false_positive") \
	X(FEEDBACK_ACCEPT,         "accept") \
	X(FEEDBACK_REJECT,         "reject") \
	X(FEEDBACK_FIX_CORRECT,    "fix_correct") \
	X(FEEDBACK_FIX_INCORRECT,  "fix_incorrect")

enum feedback_kind {
#define FEEDBACK_ENUM(id, name) id,
	FEEDBACK_LIST(FEEDBACK_ENUM)
#undef FEEDBACK_ENUM
};

const char *feedback_kind_name(enum feedback_kind kind);

/* A past feedback as an example for a rule's prompt. */
struct feedback_example {
	enum feedback_kind kind;
	char *file;
	char *title;
	char *issue;
	char *code;
	char *note;
	double score;           /* BM25, lower is better */
};

void feedback_examples_free(struct feedback_example *examples, size_t count);

/*
 * A row of feedback on a stored finding, with a copy of what it is about
 * (rule, fingerprint, file, title, issue, code: a finding stored without a
 * fingerprint gets the one a check would give it). RL_ENOTFOUND for an
 * unknown finding.
 */
int store_feedback_on_finding(int64_t *id, struct store *store, int64_t finding_id,
			      enum feedback_kind kind, const char *note);

/* A row of feedback on a detected fix, with its rule and first file; RL_ENOTFOUND for an unknown fix. */
int store_feedback_on_fix(int64_t *id, struct store *store, int64_t fix_id,
			  enum feedback_kind kind, const char *note);

/* "rule, file:line" of a feedback (the line while its finding is stored); RL_ENOTFOUND for none. */
int store_feedback_describe(struct buf *out, struct store *store, int64_t id);

/* For each fingerprint, whether the latest word on it (false_positive, accept, reject) is false_positive. */
int store_feedback_false_positives(bool *out, struct store *store, const char *const *fingerprints, size_t count);

/* A list of examples and what it asks for: up to max of one kind. */
struct feedback_examples {
	enum feedback_kind kind;
	size_t max;
	struct feedback_example *items;
	size_t count, alloc;
};

void feedback_examples_release(struct feedback_examples *list);

/*
 * Each list filled with the rule's feedback of its kind still in force
 * (no later word on its fingerprint), most like query first (BM25 over
 * file, title, issue, code and note), or the most recent first for an
 * empty query or one the full-text search cannot read. All lists in one
 * statement (two when the search refuses the query); a list of max 0 asks
 * nothing, and a list of the same kind as another gets the same rows.
 */
int store_feedback_similar(struct feedback_examples *lists, size_t nlists, struct store *store,
			   const char *rule_id, const char *query);

/* Whether the rule has any feedback at all (in force or not): without, no query need be made for it. */
int store_feedback_any(bool *out, struct store *store, const char *rule_id);

#endif
