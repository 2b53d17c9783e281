#ifndef REVLINE_FEEDBACK_H
#define REVLINE_FEEDBACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "diff.h"
#include "rules.h"
#include "store.h"
#include "store_feedback.h"

/*
 * Feedback: what the user said of findings (a false positive, accepted,
 * rejected) and of detected fixes (correct or not). A finding marked false
 * positive is suppressed when it comes back (same fingerprint: rule id,
 * path, normalised code), and a rule's prompt carries the past false
 * positives most like the change as examples not to report, and accepted
 * findings as examples to keep. The kinds and struct feedback_example
 * are store_feedback.h's.
 *
 * Each call that reads or writes the store is its own transaction
 * (store_begin): not to be called inside one.
 */

/*
 * Feedback on a stored finding (by its id): a copy of what it is about
 * (rule, fingerprint, file, title, issue, code) goes with it, so it
 * outlives the check. RL_ENOTFOUND names an unknown id; RL_EUSAGE for a
 * fix kind.
 */
int feedback_on_finding(int64_t *id, struct store *store, int64_t finding_id,
			enum feedback_kind kind, const char *note);

/* Feedback on a detected fix (violation_fixes id): correct or incorrect. */
int feedback_on_fix(int64_t *id, struct store *store, int64_t fix_id, bool correct,
		    const char *note);

/*
 * What a feedback (by its id) is about, for messages: "injection, app.py:5"
 * (the rule, the file and, while the finding is stored, its line).
 */
int feedback_describe(struct buf *out, struct store *store, int64_t id);

/*
 * Whether the latest feedback on this fingerprint marks it a false positive
 * (a later accept or reject lifts it).
 */
int feedback_suppressed(bool *out, struct store *store, const char *fingerprint);
/* The same for many findings at once (one query): marks suppressed those whose latest word is false_positive. */
struct finding;
int feedback_suppress(struct store *store, struct finding *findings, size_t count);

/*
 * The retrieval query for a rule's part of a change, from several signals
 * (the retrieval seed): the paths and directory names of the files, their
 * languages, and the identifiers most used on the added lines. As FTS5
 * query text (terms quoted and OR-ed), empty when there is nothing to ask.
 */
int feedback_query(struct buf *out, struct diff *diff, const struct rule *rule);

/*
 * Up to max feedback of one kind on a rule's findings, most like the query
 * first (BM25 over file, title, issue, code and note); with an empty query,
 * the most recent.
 */
int feedback_examples(struct feedback_example **out, size_t *count, struct store *store,
		      const char *rule_id, enum feedback_kind kind, const char *query, size_t max);

/*
 * The {{examples}} text of a rule's prompt: up to 3 past false positives
 * (not to report) and up to 2 accepted findings (to keep reporting), code
 * in fenced blocks. Empty when there are none.
 */
int feedback_prompt_examples(struct buf *out, struct store *store, struct diff *diff,
			     const struct rule *rule);

#endif
