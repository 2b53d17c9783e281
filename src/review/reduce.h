#ifndef REVLINE_REDUCE_H
#define REVLINE_REDUCE_H

#include <stddef.h>

#include "buf.h"
#include "result.h"

/*
 * The reduce step (map-reduce seed): one synthesis call that deduplicates,
 * resolves conflicts and prioritises the findings of every rule, and the
 * programmatic fallback that is always there when the call fails or is
 * turned off. Either way each merged finding keeps the evidence of the
 * findings it came from, and from_rules names their rules.
 */

struct reduce_context {
	const char *target;     /* what is compared */
	size_t files;           /* files changed */
	const char *intent;     /* branch and commit messages, or NULL */
};

/* The reduce prompt (template share/prompts/reduce.md) for these findings. */
int reduce_prompt(struct buf *system, struct buf *user, const struct finding *findings,
		  size_t count, const struct reduce_context *context);

/*
 * The report from the reduce call's answer. RL_EPARSE (quoting the
 * problem) when it cannot be used; the caller then falls back.
 */
int reduce_parse(struct report *out, const char *text, size_t len,
		 const struct finding *findings, size_t count);

/*
 * The programmatic reduce: findings merged by file and overlapping lines
 * when they come from the same rule or have similar titles, the highest
 * severity kept, ordered by severity, with an overall severity. reason
 * says why it ran ("the reduce call failed: ...") or is NULL.
 */
int reduce_fallback(struct report *out, const struct finding *findings, size_t count,
		    const char *reason);

/* clean, minor-issues, needs-work or critical, from the findings' severities. */
const char *reduce_overall(const struct finding *findings, size_t count);

#endif
