#ifndef REVLINE_BENCH_RUN_H
#define REVLINE_BENCH_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_case.h"
#include "check.h"
#include "score.h"

/*
 * A run of the benchmark: the cases reviewed in turn, jobs of them at once
 * (their checks in one poll group, their requests bounded together by the
 * check options' concurrency), each a
 * check (check.h: the same request cycle, cache, concurrency, deadline
 * and refusals as `revline check`) of the fix reversed, made in memory
 * from the two commits' trees (the working tree, the index and the
 * branches are never touched), over the fix's code files only, stored as
 * a check of the environment "bench" (history and stats leave those
 * out) with the programmatic reduce. Each case is scored as it ends and
 * its outcome stored under the run at once, so that a run cut short
 * resumes with the cases it has not done.
 */
struct bench_run_options {
	const struct check_options *check;      /* every case's check is made from it */
	int tolerance;                          /* SCORE_TOLERANCE when negative */
	struct store *store;                    /* where outcomes go (with run_id); NULL: nowhere */
	int64_t run_id;
	int jobs;                               /* cases reviewed at once (1 when not positive) */
};

enum bench_event_kind {
	BENCH_CASE_STARTED,
	BENCH_CASE_DONE,        /* bench_run_result has its outcome */
	BENCH_STORE_FAILED,     /* an outcome could not be stored (bench_run_store_error); the run goes on */
};

struct bench_event {
	enum bench_event_kind kind;
	size_t index;           /* into the cases given */
};

struct bench_run;

/* cases (not copied) and repo must outlive the run. */
int bench_run_new(struct bench_run **out, struct repo *repo, const struct bench_case *const *cases, size_t count,
		  const struct bench_run_options *options);
void bench_run_free(struct bench_run *run);
/* Start the next cases in the free slots, wait up to max_ms on their checks and step them. */
int bench_run_wait(struct bench_run *run, int max_ms);
bool bench_run_next_event(struct bench_run *run, struct bench_event *out);
/* Stop: the running cases' checks are cancelled and the cases left undone (a resume runs them). */
void bench_run_cancel(struct bench_run *run);
bool bench_run_done(const struct bench_run *run);
/* A case's outcome, NULL until it has one. */
const struct score_case *bench_run_result(const struct bench_run *run, size_t index);
/* How many cases are running, and the time of the one running longest. */
size_t bench_run_running(const struct bench_run *run, long *longest_ms);
const char *bench_run_store_error(const struct bench_run *run);

/*
 * The tokens a case's check would send (check_estimate), its diff made
 * and its rules loaded as the run would.
 */
int bench_estimate(long *tokens, struct repo *repo, const struct bench_case *c, const struct check_options *options);

/* A stored run's outcomes, case by case. */
int bench_run_results(struct score_case **out, size_t *count, struct store *store, int64_t run_id);
void bench_run_results_free(struct score_case *results, size_t count);

#endif
