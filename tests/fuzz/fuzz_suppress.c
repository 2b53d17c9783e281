/*
 * Fuzz the "revline: ignore" comment reader: the input is a rule id, a
 * newline, then a line. Besides not crashing, what it says must agree with
 * itself: a line that ignores a name no rule can have ignores every rule,
 * and a bare "revline: ignore" added to a line without one ignores any.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "suppress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	char rule[64], *line;
	size_t rule_len, line_len;

	if (!nl)
		return 0;
	rule_len = (size_t)(nl - data);
	if (!rule_len || rule_len >= sizeof(rule))
		return 0;
	memcpy(rule, data, rule_len);
	rule[rule_len] = '\0';
	line_len = size - rule_len - 1;
	if (!(line = malloc(line_len + 64 + rule_len)))
		abort();
	memcpy(line, nl + 1, line_len);
	/* Any line: no crash, and every rule ignored means this one too. */
	if (suppress_line_ignores(line, line_len, "\x01no-such-rule\x01") &&
	    !suppress_line_ignores(line, line_len, rule)) {
		/* Only when the line lists rules: "\x01..." is never an id, so a list cannot hold it. */
		abort();
	}
	/* A bare comment added at the end ignores any rule. */
	if (!memmem(line, line_len, "revline:", 8)) {
		memcpy(line + line_len, " # revline: ignore", 18);
		if (!suppress_line_ignores(line, line_len + 18, rule))
			abort();
	}
	free(line);
	return 0;
}
