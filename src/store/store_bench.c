/* The benchmark's cases, runs and results: bench_cases, bench_runs, bench_results. */
#include "store_bench.h"
#include "store_sql.h"
#include "clock.h"
#include "status.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int case_put(struct store *store, struct store_stmt *ins, struct store_stmt *sel, int64_t *id,
		    int64_t repo_id, const struct store_bench_case *c, const char *mined_with, int64_t now)
{
	int error;

	store_bind_int(ins, ":repo", repo_id);
	store_bind_text(ins, ":commit", c->commit);
	store_bind_text(ins, ":parent", c->parent);
	store_bind_text(ins, ":subject", c->subject ? c->subject : "");
	store_bind_text(ins, ":why", c->why ? c->why : "");
	store_bind_int(ins, ":committed", c->committed_at);
	store_bind_int(ins, ":lines", c->lines);
	store_bind_text(ins, ":expected", c->expected);
	store_bind_text(ins, ":mined_with", mined_with ? mined_with : "");
	store_bind_int(ins, ":now", now);
	if ((error = store_step_done(ins)) < 0)
		return error;
	(void)store;
	store_bind_int(sel, ":repo", repo_id);
	store_bind_text(sel, ":commit", c->commit);
	if ((error = store_step(sel)) == STORE_ROW)
		*id = store_column_int64(sel, 0);
	store_reset(sel);
	return error < 0 ? error : 0;
}

int store_bench_cases_put(struct store *store, int64_t *ids, int64_t repo_id, const struct store_bench_case *cases,
			  size_t count, const char *mined_with)
{
	struct store_stmt *off = NULL, *ins = NULL, *sel = NULL;
	int64_t now = clock_wall_ms();
	size_t i;
	int error;

	if ((error = store_begin(store)) < 0)
		return error;
	if ((error = store_prepare(store, &off, "UPDATE bench_cases SET active = 0 WHERE repo_id = :repo")) < 0 ||
	    (error = store_prepare(store, &ins, "INSERT INTO bench_cases (repo_id, commit_oid, parent_oid, subject, "
				   "why, committed_at, lines, expected, active, mined_with, mined_at) VALUES (:repo, "
				   ":commit, :parent, :subject, :why, :committed, :lines, :expected, 1, :mined_with, "
				   ":now) ON CONFLICT (repo_id, commit_oid) DO UPDATE SET parent_oid = "
				   "excluded.parent_oid, subject = excluded.subject, why = excluded.why, "
				   "committed_at = excluded.committed_at, lines = excluded.lines, expected = "
				   "excluded.expected, active = 1, mined_with = excluded.mined_with, mined_at = "
				   "excluded.mined_at")) < 0 ||
	    (error = store_prepare(store, &sel, "SELECT id FROM bench_cases WHERE repo_id = :repo AND "
				   "commit_oid = :commit")) < 0)
		goto done;
	store_bind_int(off, ":repo", repo_id);
	if ((error = store_step_done(off)) < 0)
		goto done;
	for (i = 0; i < count && !error; i++)
		error = case_put(store, ins, sel, &ids[i], repo_id, &cases[i], mined_with, now);
done:
	store_finalize(off);
	store_finalize(ins);
	store_finalize(sel);
	return store_end(store, error);
}

int store_bench_cases_get(struct store *store, int64_t repo_id, char **mined_with,
			  int (*each)(const struct store_bench_case *c, void *ctx), void *ctx)
{
	struct store_stmt *stmt = NULL;
	int error;

	if (mined_with)
		*mined_with = NULL;
	if ((error = store_prepare(store, &stmt, "SELECT id, commit_oid, parent_oid, subject, why, committed_at, "
				   "lines, expected, excluded, mined_with FROM bench_cases WHERE repo_id = :repo AND "
				   "active = 1 ORDER BY committed_at DESC, id")) < 0)
		return error;
	store_bind_int(stmt, ":repo", repo_id);
	while ((error = store_step(stmt)) == STORE_ROW) {
		struct store_bench_case c = {
			store_column_int64(stmt, 0), store_column_text(stmt, 1), store_column_text(stmt, 2),
			store_column_text(stmt, 3), store_column_text(stmt, 4), store_column_int64(stmt, 5),
			store_column_int(stmt, 6), store_column_text(stmt, 7), store_column_int(stmt, 8) != 0,
		};

		if (mined_with && !*mined_with && (error = store_column_dup(mined_with, stmt, 9)) < 0)
			break;
		if (!c.commit || !c.parent || !c.expected) {
			error = error_set(RL_EPARSE, "%s: a bench case with no commit or lines (row %lld)",
					  store_path(store), (long long)c.id);
			break;
		}
		if ((error = each(&c, ctx)) < 0)
			break;
	}
	store_finalize(stmt);
	return error < 0 ? error : 0;
}

static bool hex_prefix(const char *s)
{
	size_t n = strlen(s), i;

	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return n >= 4 && n <= 40;
}

int store_bench_exclude(struct store *store, char commit[41], int64_t repo_id, const char *prefix, bool excluded)
{
	struct store_stmt *sel = NULL, *upd = NULL;
	int64_t id = 0;
	int error, n = 0;

	if (!hex_prefix(prefix))
		return error_set(RL_EUSAGE, "'%s' is not a commit id (4 to 40 hex digits, as bench --list shows)",
				 prefix);
	if ((error = store_begin(store)) < 0)
		return error;
	if ((error = store_prepare(store, &sel, "SELECT id, commit_oid FROM bench_cases WHERE repo_id = :repo "
				   "AND active = 1 AND commit_oid LIKE lower(CAST(:prefix AS TEXT)) || '%'")) < 0 ||
	    (error = store_prepare(store, &upd, "UPDATE bench_cases SET excluded = :excluded WHERE id = :id")) < 0)
		goto done;
	store_bind_int(sel, ":repo", repo_id);
	store_bind_text(sel, ":prefix", prefix);
	while ((error = store_step(sel)) == STORE_ROW && ++n == 1) {
		id = store_column_int64(sel, 0);
		snprintf(commit, 41, "%s", store_column_text(sel, 1) ? store_column_text(sel, 1) : "");
	}
	if (error < 0)
		goto done;
	if (n == 0) {
		error = error_set(RL_ENOTFOUND, "no case of the benchmark is commit %s: bench --list shows them", prefix);
		goto done;
	}
	if (n > 1) {
		error = error_set(RL_EUSAGE, "commit %s is ambiguous among the cases: give more of its digits", prefix);
		goto done;
	}
	store_bind_int(upd, ":excluded", excluded);
	store_bind_int(upd, ":id", id);
	error = store_step_done(upd);
done:
	store_finalize(sel);
	store_finalize(upd);
	return store_end(store, error);
}

int store_bench_run_begin(struct store *store, int64_t *id, int64_t repo_id, const struct store_bench_run *run)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_begin(store)) < 0)
		return error;
	if ((error = store_prepare(store, &stmt, "INSERT INTO bench_runs (repo_id, config, provider, model, status, "
				   "cases, tolerance, started_at, author, host) VALUES (:repo, :config, :provider, "
				   ":model, 'running', :cases, :tolerance, :now, :author, :host) RETURNING id")) == 0) {
		store_bind_int(stmt, ":repo", repo_id);
		store_bind_text(stmt, ":config", run->config);
		store_bind_text(stmt, ":provider", run->provider);
		store_bind_text(stmt, ":model", run->model);
		store_bind_int(stmt, ":cases", run->cases);
		store_bind_int(stmt, ":tolerance", run->tolerance);
		store_bind_int(stmt, ":now", clock_wall_ms());
		store_bind_writer(stmt);
		error = store_step_id(stmt, id);
	}
	store_finalize(stmt);
	return store_end(store, error);
}

int store_bench_run_end(struct store *store, int64_t run_id, const char *status)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_begin(store)) < 0)
		return error;
	if ((error = store_prepare(store, &stmt, "UPDATE bench_runs SET status = :status, finished_at = :now "
				   "WHERE id = :id")) == 0) {
		store_bind_text(stmt, ":status", status);
		store_bind_int(stmt, ":now", clock_wall_ms());
		store_bind_int(stmt, ":id", run_id);
		error = store_step_done(stmt);
	}
	store_finalize(stmt);
	return store_end(store, error);
}

int store_bench_run_unfinished(struct store *store, int64_t *id, int64_t repo_id, const char *config)
{
	struct store_stmt *stmt = NULL;
	int error;

	*id = 0;
	if ((error = store_prepare(store, &stmt, "SELECT id FROM bench_runs WHERE repo_id = :repo AND config = "
				   ":config AND status IN ('running', 'cancelled') ORDER BY id DESC LIMIT 1")) < 0)
		return error;
	store_bind_int(stmt, ":repo", repo_id);
	store_bind_text(stmt, ":config", config);
	if ((error = store_step(stmt)) == STORE_ROW)
		*id = store_column_int64(stmt, 0);
	store_finalize(stmt);
	return error < 0 ? error : 0;
}

int store_bench_runs(struct store *store, const struct history_scope *scope, size_t limit,
		     int (*each)(const struct store_bench_run *run, void *ctx), void *ctx)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_prepare(store, &stmt, "SELECT b.id, config, provider, model, status, cases, tolerance, "
				   "started_at, coalesce(finished_at, 0) FROM bench_runs b JOIN repos p ON p.id = "
				   "b.repo_id WHERE ((CAST(:remote AS TEXT) IS NULL AND p.path = :repo) OR p.remote = "
				   ":remote) AND (CAST(:author AS TEXT) IS NULL OR b.author = :author) "
				   "ORDER BY b.id DESC LIMIT :limit")) < 0)
		return error;
	store_bind_text(stmt, ":repo", scope->path);
	store_bind_text(stmt, ":remote", scope->remote);
	store_bind_text(stmt, ":author", scope->author);
	store_bind_int(stmt, ":limit", limit ? (int64_t)limit : INT64_MAX);
	while ((error = store_step(stmt)) == STORE_ROW) {
		struct store_bench_run r = {
			store_column_int64(stmt, 0), store_column_text(stmt, 1), store_column_text(stmt, 2),
			store_column_text(stmt, 3), store_column_text(stmt, 4), store_column_int(stmt, 5),
			store_column_int(stmt, 6), store_column_int64(stmt, 7), store_column_int64(stmt, 8),
		};

		if ((error = each(&r, ctx)) < 0)
			break;
	}
	store_finalize(stmt);
	return error < 0 ? error : 0;
}

int store_bench_result_put(struct store *store, int64_t run_id, const struct store_bench_result *r)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_begin(store)) < 0)
		return error;
	if ((error = store_prepare(store, &stmt, "INSERT INTO bench_results (run_id, case_id, check_id, outcome, "
				   "hits, noise, unverified, tokens_in, tokens_cached, tokens_out, cost_usd, ms, error, "
				   "detail) VALUES (:run, :case, :check, :outcome, :hits, :noise, :unverified, :in, "
				   ":cached, :out, :cost, :ms, :error, :detail) ON CONFLICT (run_id, case_id) DO UPDATE "
				   "SET check_id = excluded.check_id, outcome = excluded.outcome, hits = excluded.hits, "
				   "noise = excluded.noise, unverified = excluded.unverified, tokens_in = "
				   "excluded.tokens_in, tokens_cached = excluded.tokens_cached, tokens_out = "
				   "excluded.tokens_out, cost_usd = excluded.cost_usd, ms = excluded.ms, error = "
				   "excluded.error, detail = excluded.detail")) == 0) {
		store_bind_int(stmt, ":run", run_id);
		store_bind_int(stmt, ":case", r->case_id);
		if (r->check_id)
			store_bind_int(stmt, ":check", r->check_id);
		store_bind_text(stmt, ":outcome", r->outcome);
		store_bind_int(stmt, ":hits", r->hits);
		store_bind_int(stmt, ":noise", r->noise);
		store_bind_int(stmt, ":unverified", r->unverified);
		store_bind_int(stmt, ":in", r->tokens_in);
		store_bind_int(stmt, ":cached", r->tokens_cached);
		store_bind_int(stmt, ":out", r->tokens_out);
		store_bind_cost(stmt, ":cost", r->cost_usd);
		store_bind_int(stmt, ":ms", r->ms);
		store_bind_text(stmt, ":error", r->error);
		store_bind_text(stmt, ":detail", r->detail ? r->detail : "{}");
		error = store_step_done(stmt);
	}
	store_finalize(stmt);
	return store_end(store, error);
}

int store_bench_results(struct store *store, int64_t run_id,
			int (*each)(const struct store_bench_result *result, void *ctx), void *ctx)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_prepare(store, &stmt, "SELECT case_id, coalesce(check_id, 0), outcome, hits, noise, "
				   "unverified, tokens_in, tokens_cached, tokens_out, cost_usd, ms, error, detail "
				   "FROM bench_results WHERE run_id = :run ORDER BY case_id")) < 0)
		return error;
	store_bind_int(stmt, ":run", run_id);
	while ((error = store_step(stmt)) == STORE_ROW) {
		struct store_bench_result r = {
			store_column_int64(stmt, 0), store_column_int64(stmt, 1), store_column_text(stmt, 2),
			store_column_int(stmt, 3), store_column_int(stmt, 4), store_column_int(stmt, 5),
			(long)store_column_int64(stmt, 6), (long)store_column_int64(stmt, 7),
			(long)store_column_int64(stmt, 8), store_column_cost(stmt, 9),
			(long)store_column_int64(stmt, 10), store_column_text(stmt, 11), store_column_text(stmt, 12),
		};

		if ((error = each(&r, ctx)) < 0)
			break;
	}
	store_finalize(stmt);
	return error < 0 ? error : 0;
}
