#ifndef REVLINE_STORE_SIGNALS_H
#define REVLINE_STORE_SIGNALS_H

#include <stdint.h>

struct store;
struct signal;
struct signal_list;

/*
 * Linters' signals (signal_runs, signals). repo is a repository's key
 * (history_repo_key of its working tree).
 *
 * A tool's run or import: its signal_runs row (source "import" or "run",
 * origin a path or a command, the list's format and problems) and the
 * list's signals, in one transaction; each signal's id is set.
 */
int store_signals_put(int64_t *run_id, struct store *store, const char *repo, const char *tool,
		      const char *source, const char *origin, struct signal_list *list);

/* The repository's current signals (each tool's latest run), by file, line and column. */
int store_signals_current(struct signal_list *out, struct store *store, const char *repo);

/* One signal of the repository by id; RL_ENOTFOUND (no message) when it has none such. */
int store_signal_get(struct signal *out, struct store *store, const char *repo, int64_t id);

#endif
