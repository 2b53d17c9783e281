/*
 * The LLM cache (answers by key, with what they billed) and what servers
 * refused of a model.
 */
#include "store.h"
#include "store_sql.h"
#include "clock.h"
#include "status.h"
#include "usage.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static int cache_read(struct store *store, const char *key, char **answer, struct usage *usage)
{
	sqlite3_stmt *stmt = NULL;
	const unsigned char *text;
	int error, rc = SQLITE_OK;

	if ((error = store_prepare(store, &stmt, "SELECT answer, tokens_in, tokens_out, tokens_cached, "
				   "tokens_cache_write FROM llm_cache WHERE key = :key")) < 0)
		return error;
	store_bind_text(&rc, stmt, ":key", key);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc == SQLITE_DONE) {
		error = error_set(RL_ENOTFOUND, "no cached answer");
		goto done;
	}
	if (rc != SQLITE_ROW) {
		error = store_fail(store, rc);
		goto done;
	}
	text = sqlite3_column_text(stmt, 0);
	if (!(*answer = strdup(text ? (const char *)text : ""))) {
		error = error_nomem();
		goto done;
	}
	usage->tokens_in = (long)sqlite3_column_int64(stmt, 1);
	usage->tokens_out = (long)sqlite3_column_int64(stmt, 2);
	usage->tokens_cached = (long)sqlite3_column_int64(stmt, 3);
	usage->tokens_cache_write = (long)sqlite3_column_int64(stmt, 4);
	/* Not kept: the model table prices the tokens (the row names the model). */
	usage->cost_usd = -1;
done:
	sqlite3_finalize(stmt);
	return error;
}

static int cache_touch(struct store *store, const char *key, int64_t now)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc = SQLITE_OK;

	if ((error = store_prepare(store, &stmt, "UPDATE llm_cache SET hits = hits + 1, "
				   "last_used_at = :now WHERE key = :key")) < 0)
		return error;
	store_bind_int(&rc, stmt, ":now", now);
	store_bind_text(&rc, stmt, ":key", key);
	error = store_step_done(store, stmt, rc);
	sqlite3_finalize(stmt);
	return error;
}

/* A write transaction from the start: a read upgraded to a write may fail busy without waiting. */
int store_cache_fetch(struct store *store, const char *key, char **answer, struct usage *usage)
{
	struct usage unused;
	int error;

	*answer = NULL;
	if (!usage)
		usage = &unused;
	if ((error = store_begin(store)) < 0)
		return error;
	if (!(error = cache_read(store, key, answer, usage)))
		error = cache_touch(store, key, clock_wall_ms());
	if ((error = store_end(store, error)) < 0) {
		free(*answer);
		*answer = NULL;
	}
	return error;
}

int store_cache_keep(struct store *store, const char *key, const char *provider,
		     const char *model, const char *answer, const struct usage *usage)
{
	sqlite3_stmt *stmt = NULL;
	int64_t now = clock_wall_ms();
	int error, rc = SQLITE_OK;

	if ((error = store_begin(store)) < 0)
		return error;
	if ((error = store_prepare(store, &stmt,
				   "INSERT OR REPLACE INTO llm_cache (key, provider, model, answer, "
				   "tokens_in, tokens_out, tokens_cached, tokens_cache_write, created_at, "
				   "last_used_at, hits) VALUES (:key, :provider, :model, :answer, :tokens_in, "
				   ":tokens_out, :tokens_cached, :tokens_cache_write, :now, :now, 0)")) < 0)
		goto done;
	store_bind_text(&rc, stmt, ":key", key);
	store_bind_text(&rc, stmt, ":provider", provider);
	store_bind_text(&rc, stmt, ":model", model);
	store_bind_text(&rc, stmt, ":answer", answer);
	store_bind_int(&rc, stmt, ":tokens_in", usage->tokens_in);
	store_bind_int(&rc, stmt, ":tokens_out", usage->tokens_out);
	store_bind_int(&rc, stmt, ":tokens_cached", usage->tokens_cached);
	store_bind_int(&rc, stmt, ":tokens_cache_write", usage->tokens_cache_write);
	store_bind_int(&rc, stmt, ":now", now);
	error = store_step_done(store, stmt, rc);
done:
	sqlite3_finalize(stmt);
	return store_end(store, error);
}

int store_refusal_put(struct store *store, const char *server, const char *model, const char *param)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc = SQLITE_OK;

	if ((error = store_begin(store)) < 0)
		return error;
	if ((error = store_prepare(store, &stmt, "INSERT OR REPLACE INTO llm_refusals (server, model, param, "
				   "refused_at) VALUES (:server, :model, :param, :now)")) < 0)
		goto done;
	store_bind_text(&rc, stmt, ":server", server);
	store_bind_text(&rc, stmt, ":model", model);
	store_bind_text(&rc, stmt, ":param", param);
	store_bind_int(&rc, stmt, ":now", clock_wall_ms());
	error = store_step_done(store, stmt, rc);
done:
	sqlite3_finalize(stmt);
	return store_end(store, error);
}

int store_refusals_get(struct buf *out, struct store *store, const char *server, const char *model)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc = SQLITE_OK;

	if ((error = store_prepare(store, &stmt, "SELECT param FROM llm_refusals WHERE server = :server AND "
				   "model = :model ORDER BY param")) < 0)
		return error;
	store_bind_text(&rc, stmt, ":server", server);
	store_bind_text(&rc, stmt, ":model", model);
	if (rc != SQLITE_OK)
		error = store_fail(store, rc);
	while (!error && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
		error = buf_printf(out, "%s%s", out->len ? "," : "", (const char *)sqlite3_column_text(stmt, 0));
	if (!error && rc != SQLITE_DONE)
		error = store_fail(store, rc);
	sqlite3_finalize(stmt);
	return error;
}
