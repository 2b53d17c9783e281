#ifndef REVLINE_BENCH_HISTORY_H
#define REVLINE_BENCH_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "score.h"
#include "store.h"
#include "store_history.h"

/* The benchmark's runs as `stats` and the TUI's stats view show them: each with its figures. */
struct bench_history_run {
	int64_t id;
	char *config, *status;
	int cases;                      /* it set out to review */
	int64_t started_at;             /* ms */
	struct score_summary summary;   /* of the outcomes it has */
};

/* The newest limit runs of the scope (0: all). */
int bench_history(struct bench_history_run **out, size_t *count, struct store *store,
		  const struct history_scope *scope, size_t limit);
void bench_history_free(struct bench_history_run *runs, size_t count);

#endif
