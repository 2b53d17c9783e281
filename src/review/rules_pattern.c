/*
 * rules_pattern: the local rules, a PCRE2 expression checked on added lines
 * without the LLM, or a check of revline's own (RULE_CHECK_LIST) with it.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include "rules.h"
#include "rules_internal.h"
#include "diff.h"
#include "hidden_text.h"
#include "status.h"

#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Backtracking steps per line: a pattern that blows up on one long line
 * (minified code) gives up on that line instead of stalling the check.
 */
#define RULE_MATCH_LIMIT 1000000

/* Where a line is: the first of its file (a byte order mark is allowed there), in code, outside the diff. */
struct line_place {
	bool first;
	bool code;
	bool outside;
};

int rule_pattern_compile(struct rule *rule)
{
	PCRE2_UCHAR message[256];
	PCRE2_SIZE offset;
	int code;

	/* No PCRE2_UTF: added lines are bytes and need not be UTF-8. */
	rule->regex = pcre2_compile((PCRE2_SPTR)rule->pattern, strlen(rule->pattern), 0, &code, &offset,
				    NULL);
	if (rule->regex) {
		/* Matched on every added line: compiled to machine code where PCRE2 can (else interpreted). */
		pcre2_jit_compile(rule->regex, PCRE2_JIT_COMPLETE);
		return 0;
	}
	if (code == PCRE2_ERROR_NOMEMORY || code == PCRE2_ERROR_HEAPLIMIT)
		return error_nomem();
	pcre2_get_error_message(code, message, sizeof(message));
	return error_set(RL_EPARSE, "%s at offset %zu", (const char *)message, (size_t)offset);
}

void rule_pattern_free(struct rule *rule)
{
	pcre2_code_free(rule->regex);
	rule->regex = NULL;
}

enum rule_check rule_check_find(const char *name)
{
	static const char *const names[] = {
#define RULE_CHECK_NAME(id, name, method) name,
		RULE_CHECK_LIST(RULE_CHECK_NAME)
#undef RULE_CHECK_NAME
	};
	size_t i;

	for (i = 1; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i], name))
			return (enum rule_check)i;
	return RULE_CHECK_NONE;
}

const char *rule_check_name(enum rule_check check)
{
	switch (check) {
#define RULE_CHECK_CASE(id, name, method) case id: return name;
	RULE_CHECK_LIST(RULE_CHECK_CASE)
#undef RULE_CHECK_CASE
	case RULE_CHECK_COUNT: break;
	}
	return "";
}

static const char *check_method(enum rule_check check)
{
	switch (check) {
#define RULE_CHECK_METHOD(id, name, method) case id: return method;
	RULE_CHECK_LIST(RULE_CHECK_METHOD)
#undef RULE_CHECK_METHOD
	case RULE_CHECK_COUNT: break;
	}
	return "";
}

bool rule_reads_texts(const struct rule *rule)
{
	return rule->check == RULE_CHECK_HIDDEN_TEXT;
}

/* What one rule's matching needs, made once for all its lines. */
struct matcher {
	const struct rule *rule;
	pcre2_match_data *data;
	pcre2_match_context *limits;
	rule_found_fn found;
	void *ctx;
	char *method;           /* a pattern rule's: "local check: the pattern /.../ on the added lines" */
};

static int matcher_open(struct matcher *m, const struct rule *rule, rule_found_fn found, void *ctx)
{
	memset(m, 0, sizeof(*m));
	m->rule = rule;
	m->found = found;
	m->ctx = ctx;
	if (!rule->regex && rule->check == RULE_CHECK_NONE)
		return error_set(RL_EUSAGE, "rule '%s' has no pattern to check locally", rule->id);
	if (rule->regex && (!(m->data = pcre2_match_data_create_from_pattern(rule->regex, NULL)) ||
			    !(m->limits = pcre2_match_context_create(NULL))))
		return error_nomem();
	if (m->limits)
		pcre2_set_match_limit(m->limits, RULE_MATCH_LIMIT);
	if (rule->check == RULE_CHECK_NONE &&
	    asprintf(&m->method, "local check: the pattern /%s/ on the added lines", rule->pattern) < 0) {
		m->method = NULL;
		return error_nomem();
	}
	return 0;
}

static void matcher_close(struct matcher *m)
{
	pcre2_match_data_free(m->data);
	pcre2_match_context_free(m->limits);
	free(m->method);
}

/*
 * The pattern on a line: whether it matches, and where. Any failure is "no
 * match": a line too costly for the pattern, or one that is not UTF-8 for
 * a pattern that asked for (*UTF).
 */
static bool pattern_at(struct matcher *m, const char *text, size_t len, size_t *at, size_t *end)
{
	PCRE2_SIZE *v;

	if (!m->rule->regex || pcre2_match(m->rule->regex, (PCRE2_SPTR)text, len, 0, 0, m->data, m->limits) < 0)
		return false;
	v = pcre2_get_ovector_pointer(m->data);
	*at = v[0] <= len ? v[0] : len;
	*end = v[1] >= *at && v[1] <= len ? v[1] : *at;
	return true;
}

/* A line of a rule with a check of its own: what the check finds, and the pattern's words as one more hit. */
static int line_check(struct matcher *m, const char *where, int line, const char *text, size_t len,
		      const struct line_place *place)
{
	struct hidden_hit hits[HIDDEN_HITS_MAX];
	struct hidden_finding hf;
	size_t n = hidden_text_scan(hits, HIDDEN_HITS_MAX - 1, text, len, place->first, place->code), at, end;
	int error;

	if (pattern_at(m, text, len, &at, &end))
		hits[n++] = (struct hidden_hit){ HIDDEN_ADDRESSED, at, end - at, 0 };
	if (!n)
		return 0;
	if ((error = hidden_text_describe(&hf, text, len, hits, n, m->rule->severity, place->code)) < 0)
		return error;
	if (m->found)
		m->found(&(struct rule_match){ where, line, hf.code.ptr ? hf.code.ptr : "", hf.code.len,
					       hf.severity, hf.title.ptr, hf.issue.ptr, hf.suggestion,
					       check_method(m->rule->check), place->outside }, m->ctx);
	hidden_finding_release(&hf);
	return 1;
}

/* One line: a match of the pattern, or of the rule's check; 1 when found, 0 when not. */
static int line_match(struct matcher *m, const char *where, int line, const char *text, size_t len,
		      const struct line_place *place)
{
	size_t at, end;

	/* A CRLF file's lines end in '\r'; '$' should still mean the end of the line. */
	if (len && text[len - 1] == '\r')
		len--;
	if (m->rule->check != RULE_CHECK_NONE)
		return line_check(m, where, line, text, len, place);
	if (!pattern_at(m, text, len, &at, &end))
		return 0;
	if (m->found)
		m->found(&(struct rule_match){ where, line, text, len, m->rule->severity, NULL, NULL, NULL,
					       m->method, place->outside }, m->ctx);
	return 1;
}

int rule_match_local(const struct rule *rule, const struct diff_file *file, rule_found_fn found, void *ctx)
{
	struct matcher m;
	struct line_place place = { false, !hidden_text_prose(file->path), false };
	uint32_t i;
	int count = 0, error;

	if ((error = matcher_open(&m, rule, found, ctx)) < 0) {
		matcher_close(&m);
		return error;
	}
	for (i = 0; i < file->nlines; i++) {
		const struct diff_line *line = &file->lines[i];

		if (line->origin != '+')
			continue;
		place.first = line->new_lineno == 1;
		if ((error = line_match(&m, file->path, line->new_lineno, line->text ? line->text : "", line->len,
					&place)) < 0) {
			count = error;
			break;
		}
		count += error;
	}
	matcher_close(&m);
	return count;
}

int rule_match_texts(const struct rule *rule, const struct rule_text *texts, size_t ntexts, rule_found_fn found,
		     void *ctx)
{
	const struct line_place place = { false, false, true };
	struct matcher m;
	size_t i;
	int count = 0, error = 0;

	if (!rule_reads_texts(rule))
		return 0;
	if ((error = matcher_open(&m, rule, found, ctx)) < 0) {
		matcher_close(&m);
		return error;
	}
	for (i = 0; i < ntexts && !error; i++) {
		const char *p = texts[i].text ? texts[i].text : "";
		int line = 1;

		while (*p && !error) {
			size_t len = strcspn(p, "\n");

			if ((error = line_match(&m, texts[i].name, line++, p, len, &place)) > 0)
				count += error, error = 0;
			p += len + (p[len] == '\n');
		}
	}
	matcher_close(&m);
	return error < 0 ? error : count;
}
