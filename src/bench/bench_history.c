/* The benchmark's runs with their figures, for stats and the TUI's stats view. */
#include "bench_history.h"
#include "array.h"
#include "bench_run.h"
#include "status.h"
#include "store_bench.h"

#include <stdlib.h>
#include <string.h>

struct runs_read {
	struct bench_history_run *items;
	size_t count, alloc;
};

static int run_take(const struct store_bench_run *r, void *ctx)
{
	struct runs_read *rr = ctx;
	struct bench_history_run *h;

	if (ARRAY_GROW(rr->items, rr->alloc, rr->count + 1) < 0)
		return RL_ENOMEM;
	h = &rr->items[rr->count++];
	memset(h, 0, sizeof(*h));
	h->id = r->id;
	h->cases = r->cases;
	h->started_at = r->started_at;
	if (!(h->config = strdup(r->config ? r->config : "")) || !(h->status = strdup(r->status ? r->status : "")))
		return error_nomem();
	return 0;
}

static int run_score(struct bench_history_run *h, struct store *store)
{
	struct score_case *results = NULL;
	size_t n = 0, i;
	int error;

	if ((error = bench_run_results(&results, &n, store, h->id)) < 0)
		return error;
	for (i = 0; i < n && !error; i++)
		error = score_summary_add(&h->summary, &results[i]);
	bench_run_results_free(results, n);
	return error;
}

int bench_history(struct bench_history_run **out, size_t *count, struct store *store,
		  const struct history_scope *scope, size_t limit)
{
	struct runs_read rr = { 0 };
	size_t i;
	int error = store_bench_runs(store, scope, limit, run_take, &rr);

	for (i = 0; !error && i < rr.count; i++)
		error = run_score(&rr.items[i], store);
	if (error < 0) {
		bench_history_free(rr.items, rr.count);
		rr.items = NULL;
		rr.count = 0;
	}
	*out = rr.items;
	*count = rr.count;
	return error;
}

void bench_history_free(struct bench_history_run *runs, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++) {
		free(runs[i].config);
		free(runs[i].status);
		score_summary_release(&runs[i].summary);
	}
	free(runs);
}
