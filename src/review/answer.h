#ifndef REVLINE_ANSWER_H
#define REVLINE_ANSWER_H

#include <stddef.h>

#include "result.h"
#include "rules.h"

/*
 * A rule's answer (DESIGN §7): status, reasoning, file references and
 * findings with their verification evidence. The parser takes what models
 * really send: prose around the JSON, code fences, missing optional
 * fields, a bare array of findings, and threadline-style answers with no
 * findings at all, whose findings then come from the path:line references
 * in the reasoning and file_references.
 *
 * An answer comes from a model or a server the user does not control, so
 * what it may cost is bounded, and every bound is linear in its size:
 *
 * - ANSWER_TEXT_MAX: a longer answer is refused (RL_EPARSE saying its
 *   size), neither parsed nor cached, so the raw answer stored in the
 *   database is at most this.
 * - ANSWER_FINDINGS_MAX findings per answer (a rule split in parts gets
 *   this per part), the first in the answer's order; the rest are dropped
 *   and counted: the reasoning ends with "N more findings not shown".
 * - ANSWER_REFS_MAX file references, each at most ANSWER_REF_BYTES; the
 *   rest are counted in the same way ("N more file references not shown").
 * - ANSWER_FIELD_MAX bytes per text field (the reasoning, and a finding's
 *   file, title, issue, suggestion, category, quoted code, verification
 *   method and where it checked), cut at a UTF-8 character boundary and
 *   marked "[... N bytes cut]".
 * - A finding made from a path:line reference gets as its issue the
 *   reasoning when that is at most ANSWER_REF_ISSUE_MAX, else the line of
 *   it around the reference, cut to that: never a copy of a long reasoning
 *   per reference.
 */
#define ANSWER_TEXT_MAX         ((size_t)1 << 20)
#define ANSWER_FINDINGS_MAX     200
#define ANSWER_REFS_MAX         100
#define ANSWER_REF_BYTES        1024
#define ANSWER_FIELD_MAX        8192
#define ANSWER_REF_ISSUE_MAX    512

struct map_answer {
	enum rule_status status;        /* compliant, attention or not_relevant */
	char *reasoning;
	char **file_references;
	size_t nrefs;
	struct finding *findings;
	size_t nfindings;
	size_t findings_dropped;        /* over ANSWER_FINDINGS_MAX (distinct references, for those) */
	size_t refs_dropped;            /* over ANSWER_REFS_MAX */
};

/*
 * Parse an answer for a rule (whose id, severity and category fill what the
 * answer leaves out). RL_EPARSE with a message that quotes the problem when
 * the answer cannot be used.
 */
int answer_parse(struct map_answer *out, const char *text, size_t len, const struct rule *rule);
void answer_release(struct map_answer *answer);

/* RL_EPARSE, saying the size and the bound, for an answer over ANSWER_TEXT_MAX. */
int answer_size_check(size_t len);

#endif
