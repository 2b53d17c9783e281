/*
 * Fuzz revline bench's parsers: the first byte picks one, the rest is its
 * input. The commit-message classifier (a message is untrusted: any bytes,
 * any length; what it says must agree with itself: a fix marked skip is a
 * fix, a revert names at most 40 hex digits); a case's stored lines (read
 * back, written again, read again: the same); a configuration spec; a
 * --since date or age; and a path's kind. Nothing may crash or leak.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench_case.h"
#include "bench_config.h"
#include "fixcommit.h"
#include "mine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void classify(const char *text, size_t len)
{
	struct fixcommit fx;
	size_t i;

	fixcommit_classify(&fx, text, len);
	if (fx.skip && fx.why == FIXCOMMIT_NONE)
		abort();
	for (i = 0; fx.reverts[i]; i++)
		if (i >= 40 || !isxdigit((unsigned char)fx.reverts[i]))
			abort();
	if (*fx.reverts && fx.why != FIXCOMMIT_REVERT)
		abort();
	(void)fixcommit_bot(text, text);
}

static void lines(const char *text, size_t len)
{
	struct bench_case a = { 0 }, b = { 0 };
	char *json = NULL, *again = NULL;

	if (bench_case_lines_parse(&a, text, len) == 0) {
		if (bench_case_lines_json(&json, &a) < 0 || bench_case_lines_parse(&b, json, strlen(json)) < 0 ||
		    bench_case_lines_json(&again, &b) < 0 || strcmp(json, again))
			abort();
	}
	free(json);
	free(again);
	bench_case_release(&a);
	bench_case_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bench_config cfg;
	char *text;
	int64_t since;

	if (!size)
		return 0;
	if (!(text = malloc(size)))
		abort();
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	switch (data[0] % 5) {
	case 0: classify(text, size - 1); break;
	case 1: lines(text, size - 1); break;
	case 2: (void)bench_config_parse(&cfg, text); break;
	case 3: (void)mine_since_parse(&since, text, 1700000000); break;
	default: (void)fixcommit_path_kind(text); break;
	}
	free(text);
	return 0;
}
