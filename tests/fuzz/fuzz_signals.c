/*
 * libFuzzer target: the linter output readers on arbitrary bytes, detected
 * and as each format in turn, then relativized and copied. Nothing may
 * crash, read out of bounds or leak; every signal kept is complete and
 * every problem names its line or its field.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "signals.h"
#include "status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct signal_list *list)
{
	struct signal copy;
	size_t i;

	for (i = 0; i < list->count; i++) {
		const struct signal *s = &list->items[i];

		if (!s->tool || !s->code || !s->message || !s->severity || !s->file || s->line < 0 ||
		    s->column < 0 || s->end_line < 0 || s->end_column < 0)
			abort();
		if (signal_copy(&copy, s) == 0)
			signal_release(&copy);
	}
	for (i = 0; i < list->nproblems; i++)
		if (!list->problems[i].message || (!list->problems[i].field && list->problems[i].line <= 0))
			abort();
}

static void parse(const uint8_t *data, size_t size, int format)
{
	struct signal_list list;
	int rc = signals_parse(&list, (const char *)data, size, format, format == SIGNAL_GCC ? "clang" : NULL);

	if (rc == 0) {
		if (format >= 0 && (int)list.format != format)
			abort();
		check(&list);
		if (signals_relativize(&list, "/work/repo", "sub/dir") != 0)
			abort();
		check(&list);
	} else if (rc != RL_EPARSE && rc != RL_ENOMEM) {
		abort();
	} else if (list.count || list.items || list.nproblems) {
		abort();
	}
	signal_list_release(&list);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum signal_format format;
	int f;

	if (signals_detect(&format, (const char *)data, size) == 0 && (unsigned)format >= SIGNAL_FORMAT_COUNT)
		abort();
	for (f = -1; f < SIGNAL_FORMAT_COUNT; f++)
		parse(data, size, f);
	return 0;
}
