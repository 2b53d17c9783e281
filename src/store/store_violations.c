/*
 * What fix detection reads and writes: a check and the previous
 * consecutive one, the violations of a check, a rule as a check stored
 * it, the fixes found, and the runs.
 */
#include "store_violations.h"
#include "store_sql.h"
#include "clock.h"
#include "status.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void check_pair_release(struct check_pair *pair)
{
	free(pair->environment);
	free(pair->workdir);
	free(pair->host);
	memset(pair, 0, sizeof(*pair));
}

/* The check's repository, branch, environment, time, path and machine. */
static int pair_read(struct check_pair *out, int64_t *repo, char **branch, struct store *store,
		     int64_t check_id)
{
	struct store_stmt *stmt = NULL;
	int error, rc;

	if ((error = store_prepare(store, &stmt,
				   "SELECT c.repo_id, c.branch, c.environment, c.created_at, r.path, c.host "
				   "FROM checks c JOIN repos r ON r.id = c.repo_id WHERE c.id = :id")) < 0)
		return error;
	store_bind_int(stmt, ":id", check_id);
	rc = store_step(stmt);
	if (rc != STORE_ROW) {
		error = rc == STORE_DONE ? error_set(RL_ENOTFOUND, "no check %lld in %s (see 'revline history')",
						      (long long)check_id, store_path(store)) :
			rc;
		goto done;
	}
	*repo = store_column_int64(stmt, 0);
	out->created_ms = store_column_int64(stmt, 3);
	if (!(error = store_column_dup(branch, stmt, 1)) &&
	    !(error = store_column_dup(&out->environment, stmt, 2)) &&
	    !(error = store_column_dup(&out->workdir, stmt, 4)))
		error = store_column_dup(&out->host, stmt, 5);
done:
	store_finalize(stmt);
	return error;
}

static int previous_read(struct check_pair *out, struct store *store, int64_t check_id, int64_t repo,
			 const char *branch)
{
	struct store_stmt *stmt = NULL;
	int error, rc;

	if ((error = store_prepare(store, &stmt,
				   "SELECT id, created_at FROM checks WHERE repo_id = :repo AND branch = :branch "
				   "AND environment = :environment AND (CAST(:host AS TEXT) IS NULL OR host IS NULL "
				   "OR host = :host) AND (created_at < :created OR (created_at = :created AND "
				   "id < :id)) ORDER BY created_at DESC, id DESC LIMIT 1")) < 0)
		return error;
	store_bind_text(stmt, ":host", out->host);
	store_bind_int(stmt, ":repo", repo);
	store_bind_text(stmt, ":branch", branch);
	store_bind_text(stmt, ":environment", out->environment);
	store_bind_int(stmt, ":created", out->created_ms);
	store_bind_int(stmt, ":id", check_id);
	rc = store_step(stmt);
	if (rc == STORE_ROW) {
		out->previous_id = store_column_int64(stmt, 0);
		out->previous_ms = store_column_int64(stmt, 1);
	} else if (rc != STORE_DONE) {
		error = rc;
	}
	store_finalize(stmt);
	return error;
}

int store_check_pair(struct check_pair *out, struct store *store, int64_t check_id)
{
	char *branch = NULL;
	int64_t repo = 0;
	int error;

	memset(out, 0, sizeof(*out));
	if (!(error = pair_read(out, &repo, &branch, store, check_id)))
		error = previous_read(out, store, check_id, repo, branch);
	free(branch);
	if (error < 0)
		check_pair_release(out);
	return error;
}

/*
 * The strings of a JSON array text added to a list (each once when
 * unique); anything else adds nothing.
 */
static int json_strings_add(struct strings *list, const char *text, bool unique)
{
	json_t *array = text ? json_loads(text, 0, NULL) : NULL;
	size_t i;
	int error = 0;

	for (i = 0; i < json_array_size(array) && !error; i++)
		if (json_is_string(json_array_get(array, i)))
			error = (unique ? strings_add_unique : strings_add)(list,
									json_string_value(json_array_get(array, i)));
	json_decref(array);
	return error;
}

/* Each row's text column 0 added to a list, each once; the statement is finalized. */
static int column_strings(struct strings *list, struct store_stmt *stmt)
{
	int error = 0, rc;

	while (!error && (rc = store_step(stmt)) == STORE_ROW)
		error = store_column_text(stmt, 0) ?
			strings_add_unique(list, store_column_text(stmt, 0)) : error_nomem();
	if (!error && rc != STORE_DONE)
		error = rc;
	store_finalize(stmt);
	return error;
}

void stored_violations_free(struct stored_violation *violations, size_t count)
{
	size_t i, k;

	for (i = 0; violations && i < count; i++) {
		struct stored_violation *v = &violations[i];

		for (k = 0; k < v->nfiles; k++)
			free(v->files[k]);
		free(v->files);
		free(v->rule_id);
		free(v->rule_path);
		free(v->rule_version);
		free(v->reasoning);
	}
	free(violations);
}

/* The violation's files: its result's references and its findings' files. */
static int violation_files(struct stored_violation *v, struct store *store, const char *refs)
{
	struct strings files = STRINGS_INIT;
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = json_strings_add(&files, refs, true)) < 0 ||
	    (error = store_prepare(store, &stmt,
				   "SELECT DISTINCT file FROM findings WHERE check_threadline_id = :row "
				   "AND verified = 1 AND file IS NOT NULL ORDER BY file")) < 0)
		goto done;
	store_bind_int(stmt, ":row", v->threadline_row);
	error = column_strings(&files, stmt);
done:
	v->files = files.items;
	v->nfiles = files.count;
	return error;
}

static int violation_read(struct stored_violation *v, struct store *store, struct store_stmt *stmt)
{
	char *refs = NULL;
	int error;

	v->threadline_row = store_column_int64(stmt, 0);
	if (!(error = store_column_dup(&v->rule_id, stmt, 1)) &&
	    !(error = store_column_dup(&v->rule_path, stmt, 2)) &&
	    !(error = store_column_dup(&v->rule_version, stmt, 3)) &&
	    !(error = store_column_dup(&refs, stmt, 4)) &&
	    !(error = store_column_dup(&v->reasoning, stmt, 5)))
		error = !v->rule_id || !v->rule_path ? error_nomem() : violation_files(v, store, refs);
	free(refs);
	return error;
}

int store_violations_of_check(struct stored_violation **out, size_t *count, struct store *store,
			      int64_t check_id)
{
	struct stored_violation *list = NULL;
	struct store_stmt *stmt = NULL;
	size_t n = 0, alloc = 0;
	int error, rc;

	*out = NULL;
	*count = 0;
	if ((error = store_prepare(store, &stmt,
				   "SELECT t.id, t.threadline_id, t.threadline_file_path, t.threadline_version, "
				   "r.file_references, r.reasoning FROM check_threadlines t JOIN check_results r "
				   "ON r.check_threadline_id = t.id WHERE t.check_id = :check AND "
				   STORE_VIOLATION " ORDER BY t.threadline_id")) < 0)
		return error;
	store_bind_int(stmt, ":check", check_id);
	while (!error && (rc = store_step(stmt)) == STORE_ROW) {
		if ((error = ARRAY_GROW(list, alloc, n + 1)) < 0)
			break;
		/* Counted before it is read: a half-read violation is freed with the rest. */
		memset(&list[n], 0, sizeof(*list));
		error = violation_read(&list[n++], store, stmt);
	}
	if (!error && rc != STORE_DONE)
		error = rc;
	store_finalize(stmt);
	if (error < 0) {
		stored_violations_free(list, n);
		return error;
	}
	*out = list;
	*count = n;
	return 0;
}

void stored_rule_release(struct stored_rule *rule)
{
	free(rule->content);
	free(rule->status);
	strings_free(&rule->patterns);
	strings_free(&rule->fingerprints);
	memset(rule, 0, sizeof(*rule));
}

static int fingerprints_read(struct stored_rule *rule, struct store *store)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_prepare(store, &stmt, "SELECT DISTINCT fingerprint FROM findings WHERE "
				   "check_threadline_id = :row AND verified = 1 AND fingerprint IS NOT NULL")) < 0)
		return error;
	store_bind_int(stmt, ":row", rule->row);
	return column_strings(&rule->fingerprints, stmt);
}

static int rule_read(struct stored_rule *out, struct store *store, int64_t check_id,
		     const char *rule_id, const char *rule_path)
{
	struct store_stmt *stmt = NULL;
	char *patterns = NULL;
	int error, rc;

	if ((error = store_prepare(store, &stmt,
				   "SELECT t.id, t.threadline_content, t.threadline_patterns, r.status "
				   "FROM check_threadlines t LEFT JOIN check_results r ON r.check_threadline_id = t.id "
				   "WHERE t.check_id = :check AND t.threadline_id = :rule AND "
				   "t.threadline_file_path = :path")) < 0)
		return error;
	store_bind_int(stmt, ":check", check_id);
	store_bind_text(stmt, ":rule", rule_id);
	store_bind_text(stmt, ":path", rule_path);
	rc = store_step(stmt);
	if (rc == STORE_DONE)
		goto done;
	if (rc != STORE_ROW) {
		error = rc;
		goto done;
	}
	out->present = true;
	out->row = store_column_int64(stmt, 0);
	if (!(error = store_column_dup(&out->content, stmt, 1)) &&
	    !(error = store_column_dup(&patterns, stmt, 2)) &&
	    !(error = store_column_dup(&out->status, stmt, 3)))
		error = json_strings_add(&out->patterns, patterns, false);
done:
	store_finalize(stmt);
	free(patterns);
	return error;
}

int store_rule_in_check(struct stored_rule *out, struct store *store, int64_t check_id,
			const char *rule_id, const char *rule_path)
{
	int error;

	memset(out, 0, sizeof(*out));
	if (!(error = rule_read(out, store, check_id, rule_id, rule_path)) && out->present)
		error = fingerprints_read(out, store);
	if (error < 0)
		stored_rule_release(out);
	return error;
}

/* A fix's files as a JSON array text. */
static int files_json(char **out, const struct fix_record *fix)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; list && i < fix->nfiles; i++)
		json_array_append_new(list, json_string(fix->files[i]));
	*out = list ? json_dumps(list, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	json_decref(list);
	return *out ? 0 : error_nomem();
}

static int fix_insert(int64_t *id, struct store *store, const struct fix_record *fix, const char *files)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_prepare(store, &stmt,
				   "INSERT INTO violation_fixes (violation_check_id, fix_check_id, "
				   "violation_threadline_id, threadline_id, threadline_file_path, threadline_version, "
				   "file_references, fix_type, explanation, evidence, time_between_checks_seconds, "
				   "detection_method, created_at) VALUES (:violation_check, :fix_check, :row, :rule, "
				   ":path, :version, :files, :type, :explanation, :evidence, :seconds, :method, :now) "
				   "ON CONFLICT (fix_check_id, violation_threadline_id) DO UPDATE SET "
				   "fix_type = excluded.fix_type, explanation = excluded.explanation, evidence = "
				   "excluded.evidence, detection_method = excluded.detection_method RETURNING id")) < 0)
		return error;
	store_bind_int(stmt, ":violation_check", fix->violation_check);
	store_bind_int(stmt, ":fix_check", fix->fix_check);
	store_bind_int(stmt, ":row", fix->threadline_row);
	store_bind_text(stmt, ":rule", fix->rule_id);
	store_bind_text(stmt, ":path", fix->rule_path);
	store_bind_text(stmt, ":version", fix->rule_version);
	store_bind_text(stmt, ":files", files);
	store_bind_text(stmt, ":type", fix->fix_type);
	store_bind_text(stmt, ":explanation", fix->explanation ? fix->explanation : "");
	store_bind_text(stmt, ":evidence", fix->evidence);
	store_bind_int(stmt, ":seconds", fix->seconds);
	store_bind_text(stmt, ":method", fix->method);
	store_bind_int(stmt, ":now", clock_wall_ms());
	error = store_step_id(stmt, id);
	store_finalize(stmt);
	return error;
}

int store_fix_put(int64_t *id, struct store *store, const struct fix_record *fix)
{
	char *files = NULL;
	int64_t row = 0;
	int error;

	*id = 0;
	if ((error = files_json(&files, fix)) < 0 || (error = store_begin(store)) < 0)
		goto done;
	error = fix_insert(&row, store, fix, files);
	if (!(error = store_end(store, error)))
		*id = row;
done:
	free(files);
	return error;
}

int store_fix_drop(struct store *store, int64_t fix_check, int64_t threadline_row)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_begin(store)) < 0)
		return error;
	if ((error = store_prepare(store, &stmt, "DELETE FROM violation_fixes WHERE fix_check_id = :check "
				   "AND violation_threadline_id = :row")) < 0)
		goto done;
	store_bind_int(stmt, ":check", fix_check);
	store_bind_int(stmt, ":row", threadline_row);
	error = store_step_done(stmt);
done:
	store_finalize(stmt);
	return store_end(store, error);
}

/*
 * Take the pair's claim: false in *mine when another client holds it. A
 * claim is given up when its run failed (store_detection_finish drops it)
 * or when it is older than CLAIM_STALE_MS without a run done (a client
 * that died on another machine).
 */
#define CLAIM_STALE_MS (60 * 60 * 1000)

static int claim_take(bool *mine, struct store *store, int64_t check_id, int64_t previous_id, int64_t now)
{
	struct store_stmt *drop = NULL, *ins = NULL;
	int error;

	if ((error = store_prepare(store, &drop, "DELETE FROM fix_detection_claims WHERE check_id = :check "
				   "AND previous_check_id = :previous AND claimed_at < :stale AND NOT EXISTS "
				   "(SELECT 1 FROM fix_detection_runs r WHERE r.id = fix_detection_claims.run_id "
				   "AND r.status = 'done')")) < 0 ||
	    (error = store_prepare(store, &ins, "INSERT INTO fix_detection_claims (check_id, "
				   "previous_check_id, claimed_at) VALUES (:check, :previous, :now) "
				   "ON CONFLICT DO NOTHING")) < 0)
		goto done;
	store_bind_int(drop, ":check", check_id);
	store_bind_int(drop, ":previous", previous_id);
	store_bind_int(drop, ":stale", now - CLAIM_STALE_MS);
	store_bind_int(ins, ":check", check_id);
	store_bind_int(ins, ":previous", previous_id);
	store_bind_int(ins, ":now", now);
	if ((error = store_step_done(drop)) < 0 || (error = store_step_done(ins)) < 0)
		goto done;
	*mine = store_changes(ins) == 1;
done:
	store_finalize(drop);
	store_finalize(ins);
	return error;
}

static int claim_name_run(struct store *store, int64_t check_id, int64_t previous_id, int64_t run_id)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_prepare(store, &stmt, "UPDATE fix_detection_claims SET run_id = :run "
				   "WHERE check_id = :check AND previous_check_id = :previous")) < 0)
		return error;
	store_bind_int(stmt, ":run", run_id);
	store_bind_int(stmt, ":check", check_id);
	store_bind_int(stmt, ":previous", previous_id);
	error = store_step_done(stmt);
	store_finalize(stmt);
	return error;
}

static int run_insert(int64_t *run_id, struct store *store, int64_t check_id, int64_t previous_id, int64_t now)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_prepare(store, &stmt,
				   "INSERT INTO fix_detection_runs (check_id, previous_check_id, status, "
				   "started_at, pid, host) VALUES (:check, :previous, 'running', :now, :pid, "
				   ":host) RETURNING id")) < 0)
		return error;
	store_bind_writer(stmt);
	store_bind_int(stmt, ":check", check_id);
	if (previous_id)        /* unbound is NULL: no previous check */
		store_bind_int(stmt, ":previous", previous_id);
	store_bind_int(stmt, ":now", now);
	store_bind_int(stmt, ":pid", (int64_t)getpid());
	error = store_step_id(stmt, run_id);
	store_finalize(stmt);
	return error;
}

int store_detection_begin(int64_t *run_id, struct store *store, int64_t check_id, int64_t previous_id,
			  bool claim)
{
	int64_t now = clock_wall_ms();
	bool mine = true;
	int error;

	*run_id = 0;
	if ((error = store_begin(store)) < 0)
		return error;
	if (claim && previous_id && (error = claim_take(&mine, store, check_id, previous_id, now)) < 0)
		goto done;
	if (!mine)
		goto done;
	if ((error = run_insert(run_id, store, check_id, previous_id, now)) < 0)
		goto done;
	if (claim && previous_id)
		error = claim_name_run(store, check_id, previous_id, *run_id);
done:
	if ((error = store_end(store, error)) < 0)
		*run_id = 0;
	return error;
}

int store_detection_finish(struct store *store, int64_t run_id, const struct detection_figures *figures)
{
	struct store_stmt *stmt = NULL;
	int64_t now = clock_wall_ms();
	int error;

	if ((error = store_begin(store)) < 0)
		return error;
	if ((error = store_prepare(store, &stmt,
				   "UPDATE fix_detection_runs SET status = :status, violations = :violations, "
				   "analysed = :analysed, detected = :detected, deterministic = :deterministic, "
				   "llm_calls = :calls, errors = :errors, error_log = :log, finished_at = :now, "
				   "duration_ms = :duration WHERE id = :id")) < 0)
		goto done;
	store_bind_int(stmt, ":id", run_id);
	store_bind_text(stmt, ":status", figures->status);
	store_bind_int(stmt, ":violations", (int64_t)figures->violations);
	store_bind_int(stmt, ":analysed", (int64_t)figures->analysed);
	store_bind_int(stmt, ":detected", (int64_t)figures->detected);
	store_bind_int(stmt, ":deterministic", (int64_t)figures->deterministic);
	store_bind_int(stmt, ":calls", (int64_t)figures->calls);
	store_bind_int(stmt, ":errors", (int64_t)figures->errors);
	store_bind_text(stmt, ":log", figures->error_log ? figures->error_log : "[]");
	store_bind_int(stmt, ":now", now);
	store_bind_int(stmt, ":duration", now - figures->started_ms);
	if ((error = store_step_done(stmt)) < 0 || strcmp(figures->status, "failed"))
		goto done;
	/* A failed run gives its claim up: the next client may try the pair again. */
	store_finalize(stmt);
	if (!(error = store_prepare(store, &stmt, "DELETE FROM fix_detection_claims WHERE run_id = :id"))) {
		store_bind_int(stmt, ":id", run_id);
		error = store_step_done(stmt);
	}
done:
	store_finalize(stmt);
	return store_end(store, error);
}
