/*
 * The LLM cache (answers by key, with what they billed) and what servers
 * refused of a model.
 */
#include "store.h"
#include "store_sql.h"
#include "clock.h"
#include "status.h"
#include "usage.h"

#include <stdlib.h>
#include <string.h>

/*
 * The answer and what it billed, counting the hit in the same statement:
 * one round trip, no transaction (a single statement is atomic on both
 * backends), under the store's lock for its connection.
 */
static int cache_read(struct store *store, const char *key, char **answer, struct usage *usage)
{
	struct store_stmt *stmt = NULL;
	const char *text;
	int error, rc;

	if ((error = store_prepare(store, &stmt, "UPDATE llm_cache SET hits = hits + 1, last_used_at = :now "
				   "WHERE key = :key RETURNING answer, tokens_in, tokens_out, tokens_cached, "
				   "tokens_cache_write")) < 0)
		return error;
	store_bind_int(stmt, ":now", clock_wall_ms());
	store_bind_text(stmt, ":key", key);
	rc = store_step(stmt);
	if (rc == STORE_DONE) {
		error = error_set(RL_ENOTFOUND, "no cached answer");
		goto done;
	}
	if (rc != STORE_ROW) {
		error = rc;
		goto done;
	}
	text = store_column_text(stmt, 0);
	if (!(*answer = strdup(text ? text : ""))) {
		error = error_nomem();
		goto done;
	}
	usage->tokens_in = (long)store_column_int64(stmt, 1);
	usage->tokens_out = (long)store_column_int64(stmt, 2);
	usage->tokens_cached = (long)store_column_int64(stmt, 3);
	usage->tokens_cache_write = (long)store_column_int64(stmt, 4);
	/* Not kept: the model table prices the tokens (the row names the model). */
	usage->cost_usd = -1;
	/* RETURNING's row is out before the statement has finished: run it to its end. */
	if ((rc = store_step(stmt)) < 0)
		error = rc;
done:
	store_finalize(stmt);
	return error;
}

int store_cache_fetch(struct store *store, const char *key, char **answer, struct usage *usage)
{
	struct usage unused;
	int error;

	*answer = NULL;
	if (!usage)
		usage = &unused;
	store_lock(store);
	error = cache_read(store, key, answer, usage);
	store_unlock(store);
	if (error < 0) {
		free(*answer);
		*answer = NULL;
	}
	return error;
}

int store_cache_keep(struct store *store, const char *key, const char *provider,
		     const char *model, const char *answer, const struct usage *usage)
{
	struct store_stmt *stmt = NULL;
	int64_t now = clock_wall_ms();
	int error;

	if ((error = store_begin(store)) < 0)
		return error;
	if ((error = store_prepare(store, &stmt,
				   "INSERT INTO llm_cache (key, provider, model, answer, tokens_in, "
				   "tokens_out, tokens_cached, tokens_cache_write, created_at, last_used_at, "
				   "hits) VALUES (:key, :provider, :model, :answer, :tokens_in, :tokens_out, "
				   ":tokens_cached, :tokens_cache_write, :now, :now, 0) ON CONFLICT (key) DO "
				   "UPDATE SET provider = excluded.provider, model = excluded.model, "
				   "answer = excluded.answer, tokens_in = excluded.tokens_in, "
				   "tokens_out = excluded.tokens_out, tokens_cached = excluded.tokens_cached, "
				   "tokens_cache_write = excluded.tokens_cache_write, created_at = "
				   "excluded.created_at, last_used_at = excluded.last_used_at, hits = 0")) < 0)
		goto done;
	store_bind_text(stmt, ":key", key);
	store_bind_text(stmt, ":provider", provider);
	store_bind_text(stmt, ":model", model);
	store_bind_text(stmt, ":answer", answer);
	store_bind_int(stmt, ":tokens_in", usage->tokens_in);
	store_bind_int(stmt, ":tokens_out", usage->tokens_out);
	store_bind_int(stmt, ":tokens_cached", usage->tokens_cached);
	store_bind_int(stmt, ":tokens_cache_write", usage->tokens_cache_write);
	store_bind_int(stmt, ":now", now);
	error = store_step_done(stmt);
done:
	store_finalize(stmt);
	return store_end(store, error);
}

int store_refusal_put(struct store *store, const char *server, const char *model, const char *param)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_begin(store)) < 0)
		return error;
	if ((error = store_prepare(store, &stmt, "INSERT INTO llm_refusals (server, model, param, refused_at) "
				   "VALUES (:server, :model, :param, :now) ON CONFLICT (server, model, param) "
				   "DO UPDATE SET refused_at = excluded.refused_at")) < 0)
		goto done;
	store_bind_text(stmt, ":server", server);
	store_bind_text(stmt, ":model", model);
	store_bind_text(stmt, ":param", param);
	store_bind_int(stmt, ":now", clock_wall_ms());
	error = store_step_done(stmt);
done:
	store_finalize(stmt);
	return store_end(store, error);
}

int store_refusals_get(struct buf *out, struct store *store, const char *server, const char *model)
{
	struct store_stmt *stmt = NULL;
	int error, rc = STORE_DONE;

	if ((error = store_prepare(store, &stmt, "SELECT param FROM llm_refusals WHERE server = :server AND "
				   "model = :model ORDER BY param")) < 0)
		return error;
	store_bind_text(stmt, ":server", server);
	store_bind_text(stmt, ":model", model);
	while (!error && (rc = store_step(stmt)) == STORE_ROW)
		error = buf_printf(out, "%s%s", out->len ? "," : "", store_column_text(stmt, 0));
	if (!error && rc != STORE_DONE)
		error = rc;
	store_finalize(stmt);
	return error;
}
