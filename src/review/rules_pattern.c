/*
 * rules_pattern: the local rules, a PCRE2 expression checked on added lines
 * without the LLM.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include "rules.h"
#include "rules_internal.h"
#include "diff.h"
#include "status.h"

#include <pcre2.h>
#include <string.h>

/*
 * Backtracking steps per line: a pattern that blows up on one long line
 * (minified code) gives up on that line instead of stalling the check.
 */
#define RULE_MATCH_LIMIT 1000000

int rule_pattern_compile(struct rule *rule)
{
	PCRE2_UCHAR message[256];
	PCRE2_SIZE offset;
	int code;

	/* No PCRE2_UTF: added lines are bytes and need not be UTF-8. */
	rule->regex = pcre2_compile((PCRE2_SPTR)rule->pattern, strlen(rule->pattern), 0, &code, &offset,
				    NULL);
	if (rule->regex)
		return 0;
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

int rule_match_local(const struct rule *rule, const struct diff_file *file,
		     void (*found)(int line, const char *text, size_t len, void *ctx), void *ctx)
{
	pcre2_match_data *data = NULL;
	pcre2_match_context *limits = NULL;
	uint32_t i;
	int count = 0;

	if (!rule->regex)
		return error_set(RL_EUSAGE, "rule '%s' has no pattern to check locally", rule->id);
	if (!(data = pcre2_match_data_create_from_pattern(rule->regex, NULL)) ||
	    !(limits = pcre2_match_context_create(NULL))) {
		count = error_nomem();
		goto done;
	}
	pcre2_set_match_limit(limits, RULE_MATCH_LIMIT);
	for (i = 0; i < file->nlines; i++) {
		const struct diff_line *line = &file->lines[i];
		const char *text = line->text ? line->text : "";
		size_t len = line->len;

		if (line->origin != '+')
			continue;
		/* A CRLF file's lines end in '\r'; '$' should still mean the end of the line. */
		if (len && text[len - 1] == '\r')
			len--;
		/*
		 * Any failure is "no match": a line too costly for the pattern, or one
		 * that is not UTF-8 for a pattern that asked for (*UTF).
		 */
		if (pcre2_match(rule->regex, (PCRE2_SPTR)text, len, 0, 0, data, limits) < 0)
			continue;
		count++;
		if (found)
			found(line->new_lineno, text, len, ctx);
	}
done:
	pcre2_match_data_free(data);
	pcre2_match_context_free(limits);
	return count;
}
