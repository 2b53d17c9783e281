/*
 * The driver of bench_locks.py: a check's dependency phase over a range of
 * a repository (src/deps/depreview.h, advisories off), as `revline check`
 * runs it: the diff's file list, both sides of each manifest and lock file
 * read from git, the lock files read into packages and matched into
 * transitions. One line of JSON: the times of the diff and of the
 * dependency phase, and what it found.
 *
 *     lock_bench REPO A..B [--list]
 *
 * --list writes each package found on standard error, one a line.
 */
#include "clock.h"
#include "depreview.h"
#include "diff.h"
#include "repo.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct target_spec spec = { 0 };
	struct depreview_options opts = { .advisories = false };
	struct repo *repo = NULL;
	struct target target = { 0 };
	struct diff *diff = NULL;
	struct depreview *dr = NULL;
	const struct deps_analysis *an;
	size_t i, transitive = 0;
	int64_t start, diffed;
	int rc = 1;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "--list"))) {
		fprintf(stderr, "usage: lock_bench REPO A..B [--list]\n");
		return 2;
	}
	spec.range = argv[2];
	start = clock_us();
	if (repo_open(&repo, argv[1]) < 0 || repo_resolve(&target, repo, &spec) < 0 ||
	    repo_diff(&diff, repo, &target) < 0) {
		fprintf(stderr, "lock_bench: %s\n", error_message());
		goto done;
	}
	diffed = clock_us();
	if (depreview_new(&dr, repo, &target, diff, &opts) < 0 || depreview_start(dr) < 0) {
		fprintf(stderr, "lock_bench: %s\n", error_message());
		goto done;
	}
	while (!depreview_done(dr))
		if (depreview_wait(dr, 1000) < 0) {
			fprintf(stderr, "lock_bench: %s\n", error_message());
			goto done;
		}
	an = depreview_analysis(dr);
	for (i = 0; i < an->npackages; i++)
		transitive += an->packages[i].relation == RELATION_TRANSITIVE;
	printf("{\"ms\": %.1f, \"diff_ms\": %.1f, \"deps_ms\": %.1f, \"packages\": %zu, \"transitive\": %zu, "
	       "\"problems\": %zu}\n", (double)(clock_us() - start) / 1000.0, (double)(diffed - start) / 1000.0,
	       (double)(clock_us() - diffed) / 1000.0, an->npackages, transitive, an->nproblems);
	for (i = 0; i < an->nproblems; i++)
		fprintf(stderr, "lock_bench: %s\n", an->problems[i]);
	for (i = 0; argc == 4 && i < an->npackages; i++)
		fprintf(stderr, "%s %s %s -> %s %s %s%s%s\n", an->packages[i].manifest, an->packages[i].name,
			an->packages[i].from ? an->packages[i].from : "-", an->packages[i].to ? an->packages[i].to : "-",
			deps_bump_name(an->packages[i].bump), deps_relation_name(an->packages[i].relation),
			an->packages[i].via ? " via " : "", an->packages[i].via ? an->packages[i].via : "");
	rc = 0;
done:
	depreview_free(dr);
	diff_free(diff);
	target_release(&target);
	repo_free(repo);
	return rc;
}
