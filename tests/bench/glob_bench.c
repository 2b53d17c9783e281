/*
 * The unit benchmark of glob matching (src/base/glob.h): the built-in
 * rules' patterns, each rule's list compiled once, matched against every
 * path of a list, as a check scopes its files; the same once more with the
 * patterns compiled at each call (glob_match_list), as they were before.
 *
 *     glob_bench [PATHS_FILE] [--seconds S]
 *
 * PATHS_FILE holds one repository path a line (`git ls-files > paths`);
 * without it, 5,000 paths made up in the shapes of a real tree. The rules
 * are revline's built-in ones, found as revline finds them (REVLINE_DATADIR,
 * or beside the program). Prints the figures as one line of JSON: paths,
 * rules, patterns, path-pattern matches a second compiled and not, the
 * ratio, and how many (path, rule) pairs were selected (both ways agree, or
 * it fails).
 */
#include "clock.h"
#include "glob.h"
#include "rules.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MADE_UP 5000

/* The paths of the file, or made-up ones. */
static char **paths_read(size_t *n, const char *file)
{
	static const char *const dirs[] = { "src/", "lib/vtls/", "tests/unit/", "docs/examples/", "web/app/",
					    "vendor/x/", "test/", "scripts/", "" };
	static const char *const names[] = { "main.c", "util.h", "test_api.py", "index.ts", "app.test.js",
					     "README.md", "Makefile", "schema.sql", "lib.rs", "server.go",
					     "style.min.js", "fr.po", "logo.pdf", "openapi.yaml", "build.sh" };
	char **paths = NULL, line[4096];
	size_t alloc = 0;
	FILE *f = file ? fopen(file, "r") : NULL;

	*n = 0;
	if (file && !f)
		return NULL;
	while (f ? fgets(line, sizeof(line), f) != NULL : *n < MADE_UP) {
		if (f)
			line[strcspn(line, "\n")] = '\0';
		else
			snprintf(line, sizeof(line), "%sm%zu/%s", dirs[*n % 9], *n % 97, names[(*n / 9) % 15]);
		if (*n == alloc && !(paths = realloc(paths, (alloc = alloc ? 2 * alloc : 1024) * sizeof(*paths))))
			break;
		if (!(paths[(*n)++] = strdup(line)))
			break;
	}
	if (f)
		fclose(f);
	return paths;
}

/* Every rule against every path, rounds times; how many pairs were selected in one round. */
static size_t run(const struct rule_set *set, char **paths, size_t n, int rounds, bool compiled)
{
	size_t selected = 0, r, i;
	int round;

	for (round = 0; round < rounds; round++)
		for (r = 0; r < set->count; r++) {
			const struct rule *rule = &set->rules[r];

			if (!rule->npatterns)
				continue;
			for (i = 0; i < n; i++) {
				bool on = compiled ? glob_list_matches(rule->globs, paths[i]) :
					glob_match_list((const char *const *)rule->patterns, rule->npatterns, paths[i]);

				selected += round == 0 && on;
			}
		}
	return selected;
}

/* Path-pattern matches a second, rounds doubled until a run takes the seconds; the pairs selected. */
static double rate(size_t *selected, const struct rule_set *set, char **paths, size_t n, size_t patterns,
		   double seconds, bool compiled)
{
	int rounds = 1;

	for (;;) {
		int64_t start = clock_us();
		double took;

		*selected = run(set, paths, n, rounds, compiled);
		took = (double)(clock_us() - start) / 1e6;
		if (took >= seconds || rounds >= (1 << 20))
			return (double)rounds * (double)n * (double)patterns / (took > 0 ? took : 1e-9);
		rounds *= 2;
	}
}

int main(int argc, char **argv)
{
	struct rules_options opts = { .no_user = true, .builtin = RULES_BUILTIN_ALL };
	struct rule_set set = { 0 };
	const char *file = NULL;
	double seconds = 1.0, fast, slow;
	size_t n = 0, i, patterns = 0, with = 0, picked_fast, picked_slow;
	char **paths;
	int a;

	for (a = 1; a < argc; a++)
		if (!strcmp(argv[a], "--seconds") && a + 1 < argc)
			seconds = atof(argv[++a]);
		else
			file = argv[a];
	if (!(paths = paths_read(&n, file)) || !n) {
		fprintf(stderr, "glob_bench: no paths read from %s\n", file ? file : "(made up)");
		return 1;
	}
	if (rules_load(&set, &opts) < 0 || !set.count) {
		fprintf(stderr, "glob_bench: the built-in rules were not found (set REVLINE_DATADIR)\n");
		return 1;
	}
	for (i = 0; i < set.count; i++) {
		patterns += set.rules[i].npatterns;
		with += set.rules[i].npatterns > 0;
	}
	fast = rate(&picked_fast, &set, paths, n, patterns, seconds, true);
	slow = rate(&picked_slow, &set, paths, n, patterns, seconds / 4, false);
	printf("{\"paths\": %zu, \"rules\": %zu, \"patterns\": %zu, \"compiled_per_s\": %.0f, "
	       "\"per_call_per_s\": %.0f, \"speedup\": %.1f, \"selected\": %zu}\n",
	       n, with, patterns, fast, slow, fast / slow, picked_fast);
	rules_release(&set);
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	if (picked_fast != picked_slow) {
		fprintf(stderr, "glob_bench: compiled and per-call matching disagree (%zu and %zu pairs)\n",
			picked_fast, picked_slow);
		return 1;
	}
	return 0;
}
