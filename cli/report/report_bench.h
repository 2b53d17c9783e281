#ifndef REVLINE_REPORT_BENCH_H
#define REVLINE_REPORT_BENCH_H

#include <stdio.h>

#include "bench_case.h"
#include "compare.h"
#include "mine.h"
#include "score.h"

/* The outputs of `revline bench`: the cases, a run's figures, two runs side by side; text and JSON. */

/* One configuration's run, for the reports. */
struct bench_report_run {
	int64_t run_id;
	const char *label;              /* as the user gave it, or "configured" */
	const char *config;             /* bench_config_key's */
	const struct score_case *results;
	size_t nresults;
	struct score_summary summary;
};

/* The case of a stored result, by id (NULL when it is not in the set). */
const struct bench_case *bench_report_case(const struct bench_cases *cases, int64_t id);

void report_bench_list_text(FILE *out, const struct bench_cases *cases, const struct mine_stats *mined,
			    const char *mined_with);
int report_bench_list_json(FILE *out, const struct bench_cases *cases, const struct mine_stats *mined,
			   const char *mined_with);
/* A case's line as it ends: "  3/20  1a2b3c4  caught   2 on the fix's lines, 1 elsewhere   fix: ...". */
void report_bench_case_text(FILE *out, const struct bench_case *c, const struct score_case *r, size_t n,
			    size_t of);
void report_bench_run_text(FILE *out, const struct bench_report_run *run, int tolerance);
void report_bench_compare_text(FILE *out, const struct bench_report_run *a, const struct bench_report_run *b,
			       const struct compare *cmp);
int report_bench_json(FILE *out, const struct bench_cases *cases, const struct bench_report_run *runs, size_t nruns,
		      const struct compare *cmp, int tolerance);

#endif
