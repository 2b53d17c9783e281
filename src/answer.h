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
 */
struct map_answer {
	enum rule_status status;        /* compliant, attention or not_relevant */
	char *reasoning;
	char **file_references;
	size_t nrefs;
	struct finding *findings;
	size_t nfindings;
};

/*
 * Parse an answer for a rule (whose id, severity and category fill what the
 * answer leaves out). RL_EPARSE with a message that quotes the problem when
 * the answer cannot be used.
 */
int answer_parse(struct map_answer *out, const char *text, size_t len, const struct rule *rule);
void answer_release(struct map_answer *answer);

#endif
