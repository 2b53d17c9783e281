/* Linters' signals: signal_runs and signals. */
#include "store_signals.h"
#include "store_sql.h"
#include "array.h"
#include "clock.h"
#include "signals.h"
#include "status.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* The input's problems, as a JSON array of {line, field, message}. */
static char *problems_json(const struct signal_list *list)
{
	json_t *array = json_array();
	char *text;
	size_t i;

	for (i = 0; array && i < list->nproblems; i++) {
		const struct signal_problem *p = &list->problems[i];

		json_array_append_new(array, json_pack("{s:i, s:s?, s:s}", "line", p->line, "field", p->field,
						       "message", p->message ? p->message : ""));
	}
	text = array ? json_dumps(array, JSON_COMPACT) : NULL;
	json_decref(array);
	return text;
}

static int run_insert(int64_t *run_id, struct store *store, int64_t repo_id, const char *tool,
		      const char *source, const char *origin, const struct signal_list *list)
{
	struct store_stmt *stmt = NULL;
	char *problems = problems_json(list);
	int error;

	if (!problems)
		return error_nomem();
	if ((error = store_prepare(store, &stmt, "INSERT INTO signal_runs (repo_id, tool, format, source, origin, "
				   "signals, problems, created_at) VALUES (:repo, :tool, :format, :source, :origin, "
				   ":signals, :problems, :now) RETURNING id")) < 0)
		goto done;
	store_bind_int(stmt, ":repo", repo_id);
	store_bind_text(stmt, ":tool", tool);
	store_bind_text(stmt, ":format", signal_format_name(list->format));
	store_bind_text(stmt, ":source", source);
	store_bind_text(stmt, ":origin", origin);
	store_bind_int(stmt, ":signals", (int64_t)list->count);
	store_bind_text(stmt, ":problems", problems);
	store_bind_int(stmt, ":now", clock_wall_ms());
	error = store_step_id(stmt, run_id);
done:
	store_finalize(stmt);
	free(problems);
	return error;
}

static int positive(int n)
{
	return n > 0 ? n : 0;
}

static int signal_insert(struct store_stmt *stmt, int64_t run_id, struct signal *s)
{
	store_bind_int(stmt, ":run", run_id);
	store_bind_text(stmt, ":tool", s->tool ? s->tool : "");
	store_bind_text(stmt, ":code", s->code ? s->code : "");
	store_bind_text(stmt, ":message", s->message ? s->message : "");
	store_bind_text(stmt, ":severity", s->severity);
	store_bind_text(stmt, ":file", s->file ? s->file : "");
	store_bind_int(stmt, ":line", positive(s->line));
	store_bind_int(stmt, ":col", positive(s->column));
	store_bind_int(stmt, ":end_line", positive(s->end_line));
	store_bind_int(stmt, ":end_col", positive(s->end_column));
	store_bind_text(stmt, ":url", s->url);
	return store_step_id(stmt, &s->id);
}

int store_signals_put(int64_t *run_id, struct store *store, const char *repo, const char *tool,
		      const char *source, const char *origin, struct signal_list *list)
{
	struct store_stmt *stmt = NULL;
	int64_t repo_id = 0;
	size_t i;
	int error;

	*run_id = 0;
	if ((error = store_repo_id(store, &repo_id, repo, NULL)) < 0 || (error = store_begin(store)) < 0)
		return error;
	if ((error = run_insert(run_id, store, repo_id, tool, source, origin, list)) < 0 ||
	    (error = store_prepare(store, &stmt, "INSERT INTO signals (run_id, tool, code, message, severity, "
				   "file, line, col, end_line, end_col, url) VALUES (:run, :tool, :code, :message, "
				   ":severity, :file, :line, :col, :end_line, :end_col, :url) RETURNING id")) < 0)
		goto done;
	for (i = 0; i < list->count && !error; i++)
		error = signal_insert(stmt, *run_id, &list->items[i]);
done:
	store_finalize(stmt);
	return store_end(store, error);
}

static char *column_text(struct store_stmt *stmt, int i)
{
	const char *text = store_column_text(stmt, i);

	return text ? strdup(text) : NULL;
}

#define SIGNAL_COLUMNS "s.id, s.tool, s.code, s.message, s.severity, s.file, s.line, s.col, " \
	"s.end_line, s.end_col, s.url"

static int signal_read(struct signal *out, struct store_stmt *stmt)
{
	memset(out, 0, sizeof(*out));
	out->id = store_column_int64(stmt, 0);
	out->tool = column_text(stmt, 1);
	out->code = column_text(stmt, 2);
	out->message = column_text(stmt, 3);
	out->severity = column_text(stmt, 4);
	out->file = column_text(stmt, 5);
	out->line = store_column_int(stmt, 6);
	out->column = store_column_int(stmt, 7);
	out->end_line = store_column_int(stmt, 8);
	out->end_column = store_column_int(stmt, 9);
	out->url = column_text(stmt, 10);
	if (!out->tool || !out->code || !out->message || !out->file) {
		signal_release(out);
		return error_nomem();
	}
	return 0;
}

int store_signals_current(struct signal_list *out, struct store *store, const char *repo)
{
	struct store_stmt *stmt = NULL;
	size_t alloc = 0;
	int error, rc;

	memset(out, 0, sizeof(*out));
	if ((error = store_prepare(store, &stmt, "SELECT " SIGNAL_COLUMNS " FROM signals s JOIN signal_runs r "
				   "ON r.id = s.run_id JOIN repos p ON p.id = r.repo_id WHERE p.path = :repo AND "
				   "r.id = (SELECT max(id) FROM signal_runs l WHERE l.repo_id = r.repo_id AND "
				   "l.tool = r.tool) ORDER BY s.file, s.line, s.col, s.id")) < 0)
		goto done;
	store_bind_text(stmt, ":repo", repo);
	while ((rc = store_step(stmt)) == STORE_ROW) {
		if ((error = ARRAY_GROW(out->items, alloc, out->count + 1)) < 0 ||
		    (error = signal_read(&out->items[out->count], stmt)) < 0)
			goto done;
		out->count++;
	}
	if (rc != STORE_DONE)
		error = rc;
done:
	store_finalize(stmt);
	if (error < 0)
		signal_list_release(out);
	return error;
}

int store_signal_get(struct signal *out, struct store *store, const char *repo, int64_t id)
{
	struct store_stmt *stmt = NULL;
	int error, rc;

	memset(out, 0, sizeof(*out));
	if ((error = store_prepare(store, &stmt, "SELECT " SIGNAL_COLUMNS " FROM signals s JOIN signal_runs r "
				   "ON r.id = s.run_id JOIN repos p ON p.id = r.repo_id WHERE s.id = :id "
				   "AND p.path = :repo")) < 0)
		goto done;
	store_bind_int(stmt, ":id", id);
	store_bind_text(stmt, ":repo", repo);
	if ((rc = store_step(stmt)) == STORE_ROW)
		error = signal_read(out, stmt);
	else
		error = rc == STORE_DONE ? RL_ENOTFOUND : rc;
done:
	store_finalize(stmt);
	return error;
}
