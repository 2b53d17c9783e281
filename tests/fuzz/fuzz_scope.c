/*
 * Fuzz the revline.ignore parser: any bytes either give patterns that are
 * each well formed (glob_check), not empty and without a newline, or
 * RL_EPARSE and nothing; matching a path with the result never fails.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "glob.h"
#include "scope.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char **patterns = NULL;
	size_t n = 0, i;

	if (scope_patterns_parse(&patterns, &n, (const char *)data, size) < 0) {
		if (patterns || n)
			abort();
		return 0;
	}
	for (i = 0; i < n; i++) {
		const char *p = patterns[i][0] == '!' ? patterns[i] + 1 : patterns[i];

		if (!*patterns[i] || strchr(patterns[i], '\n') || glob_check(p) < 0)
			abort();
	}
	glob_match_list((const char *const *)patterns, n, "src/a/b.min.js");
	scope_patterns_free(patterns, n);
	return 0;
}
