#ifndef REVLINE_STORE_BENCH_H
#define REVLINE_STORE_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"
#include "store_history.h"

/*
 * The benchmark as the store keeps it (schema version 10): a repository's
 * cases (the set in use, and those excluded), its runs, and each case's
 * outcome in a run. The expected lines and a result's detail are JSON
 * text the caller makes and reads (bench_case.h, score.h).
 */
struct store_bench_case {
	int64_t id;
	const char *commit, *parent, *subject, *why;
	int64_t committed_at;   /* seconds */
	int lines;
	const char *expected;   /* JSON */
	bool excluded;
};

/*
 * The repository's case set becomes these (inserted, or found by their
 * commit: what the user excluded stays excluded); the others are kept
 * for the runs that used them, out of the set. mined_with says how they
 * were mined ("--max 50 --seed 0"). ids[i] gets each case's row.
 */
int store_bench_cases_put(struct store *store, int64_t *ids, int64_t repo_id, const struct store_bench_case *cases,
			  size_t count, const char *mined_with);
/* The set in use, newest first (excluded ones too); what it was mined with in *mined_with (may be NULL). */
int store_bench_cases_get(struct store *store, int64_t repo_id, char **mined_with,
			  int (*each)(const struct store_bench_case *c, void *ctx), void *ctx);
/*
 * Exclude (or include again) the case of the set whose commit starts with
 * prefix (4 to 40 hex digits); *commit gets its whole id. RL_ENOTFOUND
 * when none is, RL_EUSAGE when more than one.
 */
int store_bench_exclude(struct store *store, char commit[41], int64_t repo_id, const char *prefix, bool excluded);

/* A run of the cases with one configuration (config: "model=gpt-5-mini context=pack"). */
struct store_bench_run {
	int64_t id;
	const char *config, *provider, *model, *status;
	int cases, tolerance;
	int64_t started_at, finished_at;        /* ms; finished 0 while running */
};

int store_bench_run_begin(struct store *store, int64_t *id, int64_t repo_id, const struct store_bench_run *run);
/* status: done, cancelled or failed. */
int store_bench_run_end(struct store *store, int64_t run_id, const char *status);
/* The latest run of this configuration that did not finish (running or cancelled): 0 in *id when none. */
int store_bench_run_unfinished(struct store *store, int64_t *id, int64_t repo_id, const char *config);
/* The runs of the repositories a history scope holds (its author's when it has one), newest first, at most limit (0: all). */
int store_bench_runs(struct store *store, const struct history_scope *scope, size_t limit,
		     int (*each)(const struct store_bench_run *run, void *ctx), void *ctx);

/* A case's outcome in a run. */
struct store_bench_result {
	int64_t case_id, check_id;      /* check 0: not stored */
	const char *outcome;            /* caught, missed, error */
	int hits, noise, unverified;
	long tokens_in, tokens_cached, tokens_out;
	double cost_usd;                /* negative: not known */
	long ms;
	const char *error;              /* why the case could not be reviewed; NULL */
	const char *detail;             /* JSON */
};

int store_bench_result_put(struct store *store, int64_t run_id, const struct store_bench_result *result);
int store_bench_results(struct store *store, int64_t run_id,
			int (*each)(const struct store_bench_result *result, void *ctx), void *ctx);

#endif
