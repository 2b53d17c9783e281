/*
 * Checks as the store keeps them: the repository's row, a check's begin
 * (with its diff and process), its rules, each rule's result and findings,
 * the timeouts chosen, and the finish with the reduced report.
 */
#include "store.h"
#include "store_sql.h"
#include "store_process.h"
#include "array.h"
#include "clock.h"
#include "status.h"
#include "utf8.h"

#include <jansson.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A rowid, or NULL for 0 (a merged finding has no rule row). */
static void bind_id(struct store_stmt *stmt, const char *name, int64_t id)
{
	if (!id)
		store_bind_null(stmt, name);
	else
		store_bind_int(stmt, name, id);
}

/* Run one statement with a single :id parameter. */
static int exec_id(struct store *store, const char *sql, int64_t id)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_prepare(store, &stmt, sql)) < 0)
		return error;
	store_bind_int(stmt, ":id", id);
	error = store_step_done(stmt);
	store_finalize(stmt);
	return error;
}

int store_check_timeout(struct store *store, int64_t check_id, double base, double chosen, const char *reason)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_prepare(store, &stmt, "UPDATE checks SET timeout_base = :base, "
				   "timeout_chosen = :chosen, timeout_reason = :reason WHERE id = :id")) < 0)
		return error;
	store_bind_int(stmt, ":id", check_id);
	store_bind_double(stmt, ":base", base);
	store_bind_double(stmt, ":chosen", chosen);
	store_bind_text(stmt, ":reason", reason);
	error = store_step_done(stmt);
	store_finalize(stmt);
	return error;
}

/* Serialise and release a value built by the helpers below (NULL: memory ran out). */
static int json_out(char **out, json_t *value)
{
	*out = value ? json_dumps(value, JSON_COMPACT) : NULL;
	json_decref(value);
	return *out ? 0 : error_nomem();
}

static int json_strings(char **out, char *const *items, size_t count)
{
	json_t *array = json_array();
	size_t i;

	for (i = 0; array && i < count; i++)
		if (json_array_append_new(array, utf8_json(items[i])) < 0) {
			json_decref(array);
			array = NULL;
		}
	return json_out(out, array);
}

/* line_range_examined: [start, end], or null when the model gave none. */
static json_t *json_range(const struct evidence *ev)
{
	if (!ev->range_start && !ev->range_end)
		return json_null();
	return json_pack("[ii]", ev->range_start, ev->range_end);
}

static int json_evidence(char **out, const struct evidence *ev)
{
	json_t *object = json_object();

	/* json_object_set_new takes the value even when it fails. */
	if (object &&
	    (json_object_set_new(object, "code_examined", utf8_json(ev->code_examined)) < 0 ||
	     json_object_set_new(object, "line_range_examined", json_range(ev)) < 0 ||
	     json_object_set_new(object, "verification_method", utf8_json(ev->method)) < 0 ||
	     json_object_set_new(object, "checked_for_handling_elsewhere",
				 json_boolean(ev->checked_elsewhere)) < 0 ||
	     json_object_set_new(object, "where_checked", utf8_json(ev->where_checked)) < 0 ||
	     json_object_set_new(object, "is_impact_finding", json_boolean(ev->impact)) < 0)) {
		json_decref(object);
		object = NULL;
	}
	return json_out(out, object);
}

/*
 * The repository's row, made on first sight. The path is the key; a
 * trailing slash (libgit2's workdir has one) does not make another repo.
 * The remote (remote_url.h), when given, is kept up to date: it is what
 * `--repo` finds the clones of one repository by.
 */
static int repo_id(struct store *store, int64_t *id, const char *path, const char *name, const char *remote,
		   int64_t now)
{
	struct store_stmt *ins = NULL, *sel = NULL;
	size_t len = strlen(path);
	char *key = NULL, *base;
	int error, rc;

	while (len > 1 && path[len - 1] == '/')
		len--;
	if (!(key = strndup(path, len)))
		return error_nomem();
	base = strrchr(key, '/');
	if (!name)
		name = base && base[1] ? base + 1 : key;
	if ((error = store_prepare(store, &ins,
				   "INSERT INTO repos (path, name, remote, created_at) VALUES (:path, :name, "
				   ":remote, :now) ON CONFLICT (path) DO UPDATE SET name = excluded.name, "
				   "remote = coalesce(excluded.remote, repos.remote) WHERE repos.name <> "
				   "excluded.name OR coalesce(repos.remote, '') <> coalesce(excluded.remote, "
				   "repos.remote, '')")) < 0 ||
	    (error = store_prepare(store, &sel, "SELECT id FROM repos WHERE path = :path")) < 0)
		goto done;
	store_bind_text(ins, ":path", key);
	store_bind_text(ins, ":name", name);
	store_bind_text(ins, ":remote", remote);
	store_bind_int(ins, ":now", now);
	store_bind_text(sel, ":path", key);
	if ((error = store_step_done(ins)) < 0)
		goto done;
	if ((rc = store_step(sel)) != STORE_ROW) {
		error = rc < 0 ? rc : error_set(RL_ERROR, "%s: the row of %s is missing", store_path(store), key);
		goto done;
	}
	*id = store_column_int64(sel, 0);
done:
	store_finalize(ins);
	store_finalize(sel);
	free(key);
	return error;
}

int store_repo_id(struct store *store, int64_t *id, const char *path, const char *name)
{
	int error;

	if ((error = store_begin(store)) < 0)
		return error;
	return store_end(store, repo_id(store, id, path, name, NULL, clock_wall_ms()));
}

/* A check records its process, so a later run can tell whether it still runs. */
static void bind_process(struct store_stmt *stmt)
{
	int64_t start = process_start(getpid());

	store_bind_int(stmt, ":pid", getpid());
	if (start >= 0)         /* unbound is NULL: no /proc, no start time */
		store_bind_int(stmt, ":pid_start", start);
}

static int check_insert(struct store *store, int64_t *id, int64_t repo, const struct check_record *r,
			int64_t created)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_prepare(store, &stmt,
				   "INSERT INTO checks (repo_id, branch, environment, base_label, base_oid, "
				   "head_label, head_oid, target, status, created_at, pid, pid_start, author, "
				   "host) VALUES (:repo, :branch, coalesce(:environment, 'local'), :base_label, "
				   ":base_oid, :head_label, :head_oid, :target, 'running', :created, :pid, "
				   ":pid_start, :author, :host) RETURNING id")) < 0)
		return error;
	bind_process(stmt);
	store_bind_writer(stmt);
	store_bind_int(stmt, ":repo", repo);
	store_bind_text(stmt, ":branch", r->branch);
	store_bind_text(stmt, ":environment", r->environment);
	store_bind_text(stmt, ":base_label", r->base_label);
	store_bind_text(stmt, ":base_oid", r->base_oid);
	store_bind_text(stmt, ":head_label", r->head_label);
	store_bind_text(stmt, ":head_oid", r->head_oid);
	store_bind_text(stmt, ":target", r->target);
	store_bind_int(stmt, ":created", created);
	error = store_step_id(stmt, id);
	store_finalize(stmt);
	return error;
}

/* The diff as a BLOB: it is bytes from the files, not necessarily UTF-8. */
static int diff_insert(struct store *store, int64_t check_id, const struct check_record *r)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_prepare(store, &stmt,
				   "INSERT INTO check_diffs (check_id, diff, files, additions, deletions) "
				   "VALUES (:id, :diff, :files, :additions, :deletions)")) < 0)
		return error;
	store_bind_int(stmt, ":id", check_id);
	store_bind_blob(stmt, ":diff", r->diff, r->diff_len);
	store_bind_int(stmt, ":files", (int64_t)r->files);
	store_bind_int(stmt, ":additions", (int64_t)r->additions);
	store_bind_int(stmt, ":deletions", (int64_t)r->deletions);
	error = store_step_done(stmt);
	store_finalize(stmt);
	return error;
}

int store_check_diff(struct buf *out, struct store *store, int64_t check_id)
{
	struct store_stmt *stmt = NULL;
	const void *diff;
	size_t len = 0;
	int error, rc;

	buf_clear(out);
	if ((error = buf_put(out, "", 0)) < 0 ||
	    (error = store_prepare(store, &stmt, "SELECT diff FROM check_diffs WHERE check_id = :id")) < 0)
		return error;
	store_bind_int(stmt, ":id", check_id);
	rc = store_step(stmt);
	if (rc == STORE_ROW && (diff = store_column_blob(stmt, 0, &len)))
		error = buf_put(out, diff, len);
	else if (rc < 0)
		error = rc;
	store_finalize(stmt);
	return error;
}

int store_check_begin(struct store *store, int64_t *id, const struct check_record *record)
{
	int64_t created = record->created_ms ? record->created_ms : clock_wall_ms(), repo = 0, check = 0;
	int error;

	*id = 0;
	if (!record->repo_path || !record->branch)
		return error_set(RL_EUSAGE, "%s: a check needs a repository path and a branch", store_path(store));
	if (record->diff_len && !record->diff)
		return error_set(RL_EUSAGE, "%s: a diff length without a diff", store_path(store));
	if ((error = store_begin(store)) < 0)
		return error;
	if (!(error = repo_id(store, &repo, record->repo_path, record->repo_name, record->remote, created)) &&
	    !(error = check_insert(store, &check, repo, record, created)))
		error = diff_insert(store, check, record);
	if (!(error = store_end(store, error)))
		*id = check;
	return error;
}

/*
 * An INSERT of rows rows into table, its parameters named :column_row
 * (bind_text_at, bind_int_at), returning the columns named.
 */
static int rows_sql(struct buf *sql, const char *table, const char *const *columns, size_t ncolumns,
		    size_t rows, const char *returning)
{
	size_t r, k;
	int error = buf_printf(sql, "INSERT INTO %s (", table);

	for (k = 0; k < ncolumns && !error; k++)
		error = buf_printf(sql, "%s%s", k ? ", " : "", columns[k]);
	if (!error)
		error = buf_puts(sql, ") VALUES ");
	for (r = 0; r < rows && !error; r++) {
		error = buf_puts(sql, r ? ", (" : "(");
		for (k = 0; k < ncolumns && !error; k++)
			error = buf_printf(sql, "%s:%s_%zu", k ? ", " : "", columns[k], r);
		if (!error)
			error = buf_putc(sql, ')');
	}
	return error ? error : buf_printf(sql, " RETURNING %s", returning);
}

static void bind_text_at(struct store_stmt *stmt, const char *column, size_t row, const char *value)
{
	char name[64];

	snprintf(name, sizeof(name), ":%s_%zu", column, row);
	store_bind_text(stmt, name, value);
}

static void bind_int_at(struct store_stmt *stmt, const char *column, size_t row, int64_t value)
{
	char name[64];

	snprintf(name, sizeof(name), ":%s_%zu", column, row);
	store_bind_int(stmt, name, value);
}

/*
 * The check's rules go in rows of at most RULES_CHUNK a statement: one
 * round trip for a check's rules on a server, well under every backend's
 * limit of parameters (11 a row). Each row comes back with its rule's id,
 * which gives the rule its row: (check_id, threadline_id) is unique.
 */
#define RULES_CHUNK 32
static const char *const rule_columns[] = {
	"check_id", "threadline_id", "threadline_file_path", "threadline_version", "threadline_content",
	"threadline_patterns", "context_files", "kind", "model", "severity", "source",
};
#define RULE_COLUMNS (sizeof(rule_columns) / sizeof(rule_columns[0]))

/* Row r of the statement: the rule. */
static int rule_bind(struct store_stmt *stmt, size_t r, int64_t check_id, const struct rule *rule)
{
	char *patterns = NULL, *context = NULL;
	int error;

	if ((error = json_strings(&patterns, rule->patterns, rule->npatterns)) < 0 ||
	    (error = json_strings(&context, rule->context_files, rule->ncontext)) < 0)
		goto done;
	bind_int_at(stmt, "check_id", r, check_id);
	bind_text_at(stmt, "threadline_id", r, rule->id);
	bind_text_at(stmt, "threadline_file_path", r, rule->path ? rule->path : "");
	bind_text_at(stmt, "threadline_version", r, rule->version);
	bind_text_at(stmt, "threadline_content", r, rule->content ? rule->content : "");
	bind_text_at(stmt, "threadline_patterns", r, patterns);
	bind_text_at(stmt, "context_files", r, context);
	bind_text_at(stmt, "kind", r, rule->kind == RULE_LOCAL ? "local" : "llm");
	bind_text_at(stmt, "model", r, rule->model);
	bind_text_at(stmt, "severity", r, severity_name(rule->severity));
	bind_text_at(stmt, "source", r, rule->source);
done:
	free(patterns);
	free(context);
	return error;
}

/* The new rows' ids, each to the rule of its threadline_id (RETURNING's order is not promised). */
static int rule_ids_take(struct store *store, struct store_stmt *stmt, int64_t *ids,
			 const struct rule *const *rules, size_t n)
{
	const char *rule;
	size_t got = 0, i;
	int rc;

	while ((rc = store_step(stmt)) == STORE_ROW) {
		rule = store_column_text(stmt, 1);
		for (i = 0; i < n && (ids[i] || !rule || strcmp(rules[i]->id, rule)); i++)
			;
		if (i == n)
			return error_set(RL_EIO, "%s: an inserted rule's row is none of the rules inserted (%s)",
					 store_path(store), rule ? rule : "(no id)");
		ids[i] = store_column_int64(stmt, 0);
		got++;
	}
	if (rc < 0)
		return rc;
	if (got != n)
		return error_set(RL_EIO, "%s: %zu rules inserted, %zu ids returned", store_path(store), n, got);
	return 0;
}

static int rules_chunk(struct store *store, int64_t *ids, int64_t check_id, const struct rule *const *rules,
		       size_t n)
{
	struct store_stmt *stmt = NULL;
	struct buf sql = BUF_INIT;
	size_t r;
	int error;

	if ((error = rows_sql(&sql, "check_threadlines", rule_columns, RULE_COLUMNS, n, "id, threadline_id")) < 0 ||
	    (error = store_prepare(store, &stmt, sql.ptr)) < 0)
		goto done;
	for (r = 0; r < n && !error; r++)
		error = rule_bind(stmt, r, check_id, rules[r]);
	if (!error)
		error = rule_ids_take(store, stmt, ids, rules, n);
done:
	store_finalize(stmt);
	buf_release(&sql);
	return error;
}

int store_rules_add(struct store *store, int64_t *ids, int64_t check_id, const struct rule *const *rules,
		    size_t count)
{
	size_t at, n, i;
	int error;

	for (i = 0; i < count; i++) {
		ids[i] = 0;
		if (!rules[i] || !rules[i]->id)
			return error_set(RL_EUSAGE, "%s: a rule without an id", store_path(store));
	}
	if ((error = store_begin(store)) < 0)
		return error;
	for (at = 0; at < count && !error; at += n) {
		n = count - at < RULES_CHUNK ? count - at : RULES_CHUNK;
		error = rules_chunk(store, ids + at, check_id, rules + at, n);
	}
	if ((error = store_end(store, error)) < 0)
		for (i = 0; i < count; i++)
			ids[i] = 0;
	return error;
}

int store_rule_add(struct store *store, int64_t *id, int64_t check_id, const struct rule *rule)
{
	return store_rules_add(store, id, check_id, &rule, 1);
}

/*
 * Findings go in rows of at most FINDINGS_CHUNK a statement: one round
 * trip for a rule's findings on a server, well under every backend's
 * limit of parameters (19 a row).
 */
#define FINDINGS_CHUNK 32
static const char *const finding_columns[] = {
	"check_id", "check_threadline_id", "rule_id", "file", "line", "end_line", "severity", "category", "title",
	"issue", "suggestion", "evidence", "verified", "verify_note", "fingerprint", "suppressed", "from_rules",
	"reduced", "created_at",
};
#define FINDING_COLUMNS (sizeof(finding_columns) / sizeof(finding_columns[0]))

/* Row r of the statement: the finding; threadline 0 is the report's merged finding. */
static int finding_bind(struct store_stmt *stmt, size_t r, int64_t check_id, int64_t threadline,
			const struct finding *f, int64_t now)
{
	char *evidence = NULL, *from = NULL, name[64];
	int error;

	if ((error = json_evidence(&evidence, &f->evidence)) < 0 ||
	    (error = json_strings(&from, f->from_rules, f->nfrom)) < 0)
		goto done;
	bind_int_at(stmt, "check_id", r, check_id);
	snprintf(name, sizeof(name), ":check_threadline_id_%zu", r);
	bind_id(stmt, name, threadline);
	bind_text_at(stmt, "rule_id", r, f->rule_id);
	bind_text_at(stmt, "file", r, f->file);
	bind_int_at(stmt, "line", r, f->line);
	bind_int_at(stmt, "end_line", r, f->end_line);
	bind_text_at(stmt, "severity", r, severity_name(f->severity));
	bind_text_at(stmt, "category", r, f->category);
	bind_text_at(stmt, "title", r, f->title);
	bind_text_at(stmt, "issue", r, f->issue);
	bind_text_at(stmt, "suggestion", r, f->suggestion);
	bind_text_at(stmt, "evidence", r, evidence);
	bind_int_at(stmt, "verified", r, f->verified);
	bind_text_at(stmt, "verify_note", r, f->verify_note);
	bind_text_at(stmt, "fingerprint", r, f->fingerprint[0] ? f->fingerprint : NULL);
	bind_int_at(stmt, "suppressed", r, f->suppressed);
	bind_text_at(stmt, "from_rules", r, from);
	bind_int_at(stmt, "reduced", r, !threadline);
	bind_int_at(stmt, "created_at", r, now);
done:
	free(evidence);
	free(from);
	return error;
}

static int id_order(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The new rows' ids, to their findings: under the store's write lock the
 * rows of one statement get ids in the order of its VALUES (SQLite's rowid
 * and PostgreSQL's identity both count up), so the sorted ids are the
 * findings' in order; RETURNING's own order is not promised.
 */
static int ids_take(struct store_stmt *stmt, struct finding *findings, size_t n)
{
	int64_t ids[FINDINGS_CHUNK];
	size_t got = 0, i;
	int rc;

	while ((rc = store_step(stmt)) == STORE_ROW)
		if (got < n)
			ids[got++] = store_column_int64(stmt, 0);
	if (rc < 0)
		return rc;
	if (got != n)
		return error_set(RL_EIO, "%zu findings inserted, %zu ids returned", n, got);
	qsort(ids, n, sizeof(*ids), id_order);
	for (i = 0; i < n; i++)
		findings[i].id = ids[i];
	return 0;
}

static int findings_chunk(struct store *store, int64_t check_id, int64_t threadline, struct finding *findings,
			  size_t n, int64_t now)
{
	struct store_stmt *stmt = NULL;
	struct buf sql = BUF_INIT;
	size_t r;
	int error;

	if ((error = rows_sql(&sql, "findings", finding_columns, FINDING_COLUMNS, n, "id")) < 0 ||
	    (error = store_prepare(store, &stmt, sql.ptr)) < 0)
		goto done;
	for (r = 0; r < n && !error; r++)
		error = finding_bind(stmt, r, check_id, threadline, &findings[r], now);
	if (!error)
		error = ids_take(stmt, findings, n);
done:
	store_finalize(stmt);
	buf_release(&sql);
	return error;
}

static int findings_insert(struct store *store, int64_t check_id, int64_t threadline,
			   struct finding *findings, size_t count, int64_t now)
{
	size_t at, n;
	int error = 0;

	for (at = 0; at < count && !error; at += n) {
		n = count - at < FINDINGS_CHUNK ? count - at : FINDINGS_CHUNK;
		error = findings_chunk(store, check_id, threadline, findings + at, n, now);
	}
	return error;
}

/* After a rollback the ids handed out are not real. */
static void findings_forget(struct finding *findings, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		findings[i].id = 0;
}

static int result_insert(struct store *store, int64_t threadline, const struct rule_result *r,
			 int64_t now)
{
	struct store_stmt *stmt = NULL;
	char *refs = NULL;
	int error;

	if ((error = json_strings(&refs, r->file_references, r->nrefs)) < 0)
		return error;
	if ((error = store_prepare(store, &stmt,
				   "INSERT INTO check_results (check_threadline_id, status, reasoning, "
				   "file_references, error, cached, attempts, duration_ms, tokens_in, "
				   "tokens_out, tokens_cached, tokens_cache_write, cost_usd, chunks, "
				   "context, created_at) VALUES (:threadline, :status, :reasoning, :refs, :error, "
				   ":cached, :attempts, :duration, :tokens_in, :tokens_out, :tokens_cached, "
				   ":tokens_cache_write, :cost_usd, :chunks, :context, :now)")) < 0)
		goto done;
	store_bind_int(stmt, ":threadline", threadline);
	store_bind_text(stmt, ":status", rule_status_name(r->status));
	store_bind_text(stmt, ":reasoning", r->reasoning);
	store_bind_text(stmt, ":refs", refs);
	store_bind_text(stmt, ":error", r->error);
	store_bind_int(stmt, ":cached", r->cached);
	store_bind_int(stmt, ":attempts", r->attempts);
	store_bind_int(stmt, ":duration", r->duration_ms);
	store_bind_int(stmt, ":tokens_in", r->tokens_in);
	store_bind_int(stmt, ":tokens_out", r->tokens_out);
	store_bind_int(stmt, ":tokens_cached", r->tokens_cached);
	store_bind_int(stmt, ":tokens_cache_write", r->tokens_cache_write);
	store_bind_cost(stmt, ":cost_usd", r->cost_usd);
	store_bind_int(stmt, ":chunks", r->chunks);
	store_bind_text(stmt, ":context", r->context);
	store_bind_int(stmt, ":now", now);
	error = store_step_done(stmt);
done:
	store_finalize(stmt);
	free(refs);
	return error;
}

/*
 * The rule's row in this check, with the longest a request of it could
 * take, in one statement: result->id when set (checked to be of this
 * check by the same UPDATE), else found by the rule's id. *had: the rule
 * has a result already (it was run again), so that its first result
 * costs no DELETE.
 */
#define MARK_SQL "UPDATE check_threadlines SET timeout_ms = :ms WHERE check_id = :check AND "
#define MARK_RETURNING " RETURNING id, EXISTS (SELECT 1 FROM check_results WHERE " \
	"check_threadline_id = check_threadlines.id)"

static int threadline_mark(struct store *store, int64_t *out, bool *had, int64_t check_id,
			   const struct rule_result *result)
{
	const char *rule = result->rule ? result->rule->id : NULL;
	struct store_stmt *stmt = NULL;
	int error, rc;

	if ((error = store_prepare(store, &stmt, result->id ? MARK_SQL "id = :id" MARK_RETURNING :
				   MARK_SQL "threadline_id = :rule" MARK_RETURNING)) < 0)
		return error;
	store_bind_int(stmt, ":ms", result->timeout_ms);
	store_bind_int(stmt, ":check", check_id);
	if (result->id)
		store_bind_int(stmt, ":id", result->id);
	else
		store_bind_text(stmt, ":rule", rule);
	if ((rc = store_step(stmt)) == STORE_ROW) {
		*out = store_column_int64(stmt, 0);
		*had = store_column_int(stmt, 1) != 0;
	} else if (rc < 0) {
		error = rc;
	} else if (result->id) {
		error = error_set(RL_ENOTFOUND, "%s: check %lld has no rule %lld", store_path(store),
				  (long long)check_id, (long long)result->id);
	} else {
		error = error_set(RL_ENOTFOUND, "%s: check %lld has no rule %s", store_path(store),
				  (long long)check_id, rule ? rule : "(no id)");
	}
	store_finalize(stmt);
	return error;
}

/*
 * Putting a rule's result again (a retried rule) replaces the earlier
 * result and its findings: the latest settling is the one that counts.
 */
static int result_forget(struct store *store, int64_t threadline)
{
	int error = exec_id(store, "DELETE FROM check_results WHERE check_threadline_id = :id", threadline);

	if (!error)
		error = exec_id(store, "DELETE FROM context_reads WHERE check_threadline_id = :id", threadline);
	return error ? error : exec_id(store, "DELETE FROM findings WHERE check_threadline_id = :id", threadline);
}

/* What the rule's model read with the tools, a row a call. */
static int reads_insert(struct store *store, int64_t threadline, const struct rule_read *reads, size_t n)
{
	struct store_stmt *stmt = NULL;
	size_t i;
	int error = 0;

	if (!n)
		return 0;
	if ((error = store_prepare(store, &stmt, "INSERT INTO context_reads (check_threadline_id, seq, turn, tool, "
				   "arguments, result_bytes, error, shown) VALUES (:threadline, :seq, :turn, :tool, "
				   ":arguments, :bytes, :error, :shown)")) < 0)
		return error;
	for (i = 0; i < n && !error; i++) {
		store_bind_int(stmt, ":threadline", threadline);
		store_bind_int(stmt, ":seq", (int64_t)i);
		store_bind_int(stmt, ":turn", reads[i].turn);
		store_bind_text(stmt, ":tool", reads[i].tool ? reads[i].tool : "");
		store_bind_text(stmt, ":arguments", reads[i].arguments);
		store_bind_int(stmt, ":bytes", (int64_t)reads[i].result_bytes);
		store_bind_text(stmt, ":error", reads[i].error);
		store_bind_text(stmt, ":shown", reads[i].shown);
		if ((error = store_step_done(stmt)) == 0)
			store_reset(stmt);
	}
	store_finalize(stmt);
	return error;
}

int store_context_sent(struct store *store, int64_t check_id, int part, const struct store_context_item *items,
		       size_t n)
{
	struct store_stmt *stmt = NULL;
	size_t i;
	int error;

	if (!n)
		return 0;
	if ((error = store_begin(store)) < 0)
		return error;
	if ((error = store_prepare(store, &stmt, "INSERT INTO context_sent (check_id, part, seq, kind, symbol, path, "
				   "first_line, last_line, refs) VALUES (:check, :part, :seq, :kind, :symbol, :path, "
				   ":first, :last, :refs)")) < 0)
		return store_end(store, error);
	for (i = 0; i < n && !error; i++) {
		store_bind_int(stmt, ":check", check_id);
		store_bind_int(stmt, ":part", part);
		store_bind_int(stmt, ":seq", (int64_t)i);
		store_bind_text(stmt, ":kind", items[i].kind);
		store_bind_text(stmt, ":symbol", items[i].symbol);
		store_bind_text(stmt, ":path", items[i].path);
		store_bind_int(stmt, ":first", items[i].first_line);
		store_bind_int(stmt, ":last", items[i].last_line);
		store_bind_int(stmt, ":refs", items[i].refs);
		if ((error = store_step_done(stmt)) == 0)
			store_reset(stmt);
	}
	store_finalize(stmt);
	return store_end(store, error);
}

int store_result_put(struct store *store, int64_t check_id, struct rule_result *result)
{
	int64_t threadline = 0, now = clock_wall_ms();
	bool had = false;
	int error;

	if (!rule_status_settled(result->status))
		return error_set(RL_EUSAGE, "%s: rule %s has not settled (%s)", store_path(store),
				 result->rule && result->rule->id ? result->rule->id : "(no id)",
				 rule_status_name(result->status));
	if ((error = store_begin(store)) < 0)
		return error;
	if (!(error = threadline_mark(store, &threadline, &had, check_id, result)) && had)
		error = result_forget(store, threadline);
	if (!error && !(error = result_insert(store, threadline, result, now)) &&
	    !(error = reads_insert(store, threadline, result->reads, result->nreads)))
		error = findings_insert(store, check_id, threadline, result->findings,
					result->nfindings, now);
	if ((error = store_end(store, error)) < 0)
		findings_forget(result->findings, result->nfindings);
	else
		result->id = threadline;
	return error;
}

static bool one_of(const char *s, const char *const *names, size_t count)
{
	size_t i;

	for (i = 0; s && i < count; i++)
		if (!strcmp(s, names[i]))
			return true;
	return false;
}

static int finish_check_args(struct store *store, const char *status, const struct report *report)
{
	static const char *const statuses[] = { "complete", "partial", "failed", "cancelled" };
	static const char *const overall[] = { "clean", "minor-issues", "needs-work", "critical" };

	if (!one_of(status, statuses, sizeof(statuses) / sizeof(statuses[0])))
		return error_set(RL_EUSAGE, "%s: a check cannot finish as '%s'", store_path(store),
				 status ? status : "(null)");
	if (report && report->overall_severity &&
	    !one_of(report->overall_severity, overall, sizeof(overall) / sizeof(overall[0])))
		return error_set(RL_EUSAGE, "%s: unknown overall severity '%s'", store_path(store),
				 report->overall_severity);
	return 0;
}

/*
 * finding_count is the report's findings when there is a report, else the
 * rules' own findings (a failed or cancelled check).
 */
static int check_update(struct store *store, int64_t check_id, const char *status, long duration_ms,
			const struct check_stats *stats, const struct report *report, int64_t now)
{
	/* No statistics: nothing is known of what was billed. */
	static const struct check_stats none = { .cost_usd = -1 };
	struct store_stmt *stmt = NULL;
	char *must_fix = NULL;
	int error;

	if (!stats)
		stats = &none;
	if (report && (error = json_strings(&must_fix, report->must_fix, report->nmust_fix)) < 0)
		return error;
	if ((error = store_prepare(store, &stmt,
				   "UPDATE checks SET status = :status, finished_at = :now, "
				   "duration_ms = :duration, rule_count = (SELECT count(*) FROM "
				   "check_threadlines WHERE check_id = :id), finding_count = CASE WHEN "
				   ":has_report = 1 THEN :nfindings ELSE (SELECT count(*) FROM findings WHERE "
				   "check_id = :id AND reduced = 0) END, summary = :summary, "
				   "overall_severity = :overall, must_fix = coalesce(:must_fix, '[]'), "
				   "synthesized = :synthesized, fallback_reason = :fallback, "
				   "requests = :requests, cache_hits = :cache_hits, tokens_in = :tokens_in, "
				   "tokens_out = :tokens_out, tokens_cached = :tokens_cached, "
				   "tokens_cache_write = :tokens_cache_write, cost_usd = :cost_usd "
				   "WHERE id = :id")) < 0)
		goto done;
	store_bind_int(stmt, ":id", check_id);
	store_bind_text(stmt, ":status", status);
	store_bind_int(stmt, ":now", now);
	store_bind_int(stmt, ":duration", duration_ms);
	store_bind_int(stmt, ":has_report", report != NULL);
	store_bind_int(stmt, ":nfindings", report ? (int64_t)report->nfindings : 0);
	store_bind_text(stmt, ":summary", report ? report->summary : NULL);
	store_bind_text(stmt, ":overall", report ? report->overall_severity : NULL);
	store_bind_text(stmt, ":must_fix", must_fix);
	if (report)     /* unbound is NULL: no report, no synthesis either way */
		store_bind_int(stmt, ":synthesized", report->synthesized);
	store_bind_text(stmt, ":fallback", report ? report->fallback_reason : NULL);
	store_bind_int(stmt, ":requests", stats->requests);
	store_bind_int(stmt, ":cache_hits", stats->cache_hits);
	store_bind_int(stmt, ":tokens_in", stats->tokens_in);
	store_bind_int(stmt, ":tokens_out", stats->tokens_out);
	store_bind_int(stmt, ":tokens_cached", stats->tokens_cached);
	store_bind_int(stmt, ":tokens_cache_write", stats->tokens_cache_write);
	store_bind_cost(stmt, ":cost_usd", stats->cost_usd);
	if ((error = store_step_done(stmt)) < 0)
		goto done;
	if (!store_changes(stmt))
		error = error_set(RL_ENOTFOUND, "%s: no check %lld", store_path(store), (long long)check_id);
done:
	store_finalize(stmt);
	free(must_fix);
	return error;
}

/*
 * Finishing again (a check resumed and finished later) replaces the
 * earlier report's merged findings.
 */
int store_check_finish(struct store *store, int64_t check_id, const char *status,
		       long duration_ms, const struct check_stats *stats, struct report *report)
{
	int64_t now = clock_wall_ms();
	int error;

	if ((error = finish_check_args(store, status, report)) < 0)
		return error;
	if ((error = store_begin(store)) < 0)
		return error;
	if (!(error = check_update(store, check_id, status, duration_ms, stats, report, now)) &&
	    !(error = exec_id(store, "DELETE FROM findings WHERE check_id = :id AND reduced = 1",
			      check_id)) && report)
		error = findings_insert(store, check_id, 0, report->findings, report->nfindings, now);
	if ((error = store_end(store, error)) < 0 && report)
		findings_forget(report->findings, report->nfindings);
	return error;
}

/* --- a stored check's findings, read back ---------------------------------- */

static char *json_text(json_t *object, const char *key)
{
	const char *s = json_string_value(json_object_get(object, key));

	return s ? strdup(s) : NULL;
}

static void evidence_read(struct evidence *ev, const char *text)
{
	json_t *root = text ? json_loads(text, 0, NULL) : NULL, *range;

	if (!root)
		return;
	ev->code_examined = json_text(root, "code_examined");
	ev->method = json_text(root, "verification_method");
	ev->where_checked = json_text(root, "where_checked");
	ev->checked_elsewhere = json_is_true(json_object_get(root, "checked_for_handling_elsewhere"));
	ev->impact = json_is_true(json_object_get(root, "is_impact_finding"));
	range = json_object_get(root, "line_range_examined");
	ev->range_start = (int)json_integer_value(json_array_get(range, 0));
	ev->range_end = (int)json_integer_value(json_array_get(range, 1));
	json_decref(root);
}

static int finding_read(struct finding *f, struct store_stmt *stmt)
{
	const char *severity = store_column_text(stmt, 4);
	int error;

	memset(f, 0, sizeof(*f));
	f->id = store_column_int64(stmt, 0);
	f->line = store_column_int(stmt, 2);
	f->end_line = store_column_int(stmt, 3);
	if (severity)
		severity_parse(&f->severity, severity);
	f->verified = store_column_int(stmt, 9) != 0;
	f->suppressed = store_column_int(stmt, 11) != 0;
	if ((error = store_column_dup(&f->rule_id, stmt, 1)) < 0 || (error = store_column_dup(&f->file, stmt, 5)) < 0 ||
	    (error = store_column_dup(&f->title, stmt, 6)) < 0 || (error = store_column_dup(&f->issue, stmt, 7)) < 0 ||
	    (error = store_column_dup(&f->suggestion, stmt, 8)) < 0 || (error = store_column_dup(&f->verify_note, stmt, 12)) < 0 ||
	    (error = store_column_dup(&f->category, stmt, 13)) < 0)
		return error;
	if (store_column_text(stmt, 14))
		snprintf(f->fingerprint, sizeof(f->fingerprint), "%s", store_column_text(stmt, 14));
	evidence_read(&f->evidence, store_column_text(stmt, 10));
	return 0;
}

/* The check: the one named (of this repository), or the repository's latest. */
static const char check_of_repo_sql[] =
	"SELECT c.id FROM checks c JOIN repos r ON r.id = c.repo_id WHERE r.path = :repo AND "
	"(:id = 0 OR c.id = :id) ORDER BY c.id DESC LIMIT 1";

static const char check_findings_sql[] =
	"SELECT id, rule_id, line, end_line, severity, file, title, issue, suggestion, verified, evidence, "
	"suppressed, verify_note, category, fingerprint FROM findings WHERE check_id = :check AND reduced = 0 "
	"ORDER BY CASE severity WHEN 'critical' THEN 0 WHEN 'major' THEN 1 WHEN 'minor' THEN 2 ELSE 3 END, "
	"file, line, id";

static int check_of_repo(int64_t *out, struct store *store, const char *repo, int64_t id)
{
	struct store_stmt *stmt = NULL;
	int error, rc;

	if ((error = store_prepare(store, &stmt, check_of_repo_sql)) < 0)
		return error;
	store_bind_text(stmt, ":repo", repo);
	store_bind_int(stmt, ":id", id);
	if ((rc = store_step(stmt)) == STORE_ROW)
		*out = store_column_int64(stmt, 0);
	else if (rc == STORE_DONE)
		error = id ? error_set(RL_ENOTFOUND, "no check %lld in this repository", (long long)id) :
			error_set(RL_ENOTFOUND, "no check of this repository yet");
	else
		error = rc;
	store_finalize(stmt);
	return error;
}

int store_check_findings(struct finding **out, size_t *count, int64_t *check_id, struct store *store,
			 const char *repo)
{
	struct store_stmt *stmt = NULL;
	size_t alloc = 0;
	int error, rc;

	*out = NULL;
	*count = 0;
	if ((error = check_of_repo(check_id, store, repo, *check_id)) < 0 ||
	    (error = store_prepare(store, &stmt, check_findings_sql)) < 0)
		return error;
	store_bind_int(stmt, ":check", *check_id);
	while ((rc = store_step(stmt)) == STORE_ROW) {
		if ((error = ARRAY_GROW(*out, alloc, *count + 1)) < 0)
			break;
		if ((error = finding_read(&(*out)[(*count)++], stmt)) < 0)
			break;
	}
	if (!error && rc != STORE_DONE)
		error = rc;
	store_finalize(stmt);
	if (error < 0) {
		findings_free(*out, *count);
		*out = NULL;
		*count = 0;
	}
	return error;
}
