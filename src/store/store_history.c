/*
 * The history of a repository as the store keeps it: its checks, the
 * fixes found, a check's violations, and the counts its figures are made
 * of (history.h defines them).
 */
#include "store_history.h"
#include "store_sql.h"
#include "array.h"
#include "status.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

void history_checks_free(struct history_check *checks, size_t count)
{
	size_t i;

	for (i = 0; checks && i < count; i++) {
		free(checks[i].branch);
		free(checks[i].target);
		free(checks[i].status);
		free(checks[i].overall_severity);
		free(checks[i].author);
		free(checks[i].host);
		free(checks[i].path);
	}
	free(checks);
}

static void files_free(char **files, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		free(files[i]);
	free(files);
}

void history_fixes_free(struct history_fix *fixes, size_t count)
{
	size_t i;

	for (i = 0; fixes && i < count; i++) {
		files_free(fixes[i].files, fixes[i].nfiles);
		free(fixes[i].rule_id);
		free(fixes[i].rule_file);
		free(fixes[i].fix_type);
		free(fixes[i].explanation);
		free(fixes[i].method);
	}
	free(fixes);
}

void history_violations_free(struct history_violation *violations, size_t count)
{
	size_t i;

	for (i = 0; violations && i < count; i++) {
		files_free(violations[i].files, violations[i].nfiles);
		free(violations[i].rule_id);
		free(violations[i].rule_file);
		free(violations[i].severity);
		free(violations[i].reasoning);
		free(violations[i].fix_type);
	}
	free(violations);
}

struct history_rule_stats *history_rule_entry(struct history_stats *stats, const char *rule_id)
{
	struct history_rule_stats *r;
	size_t i;

	for (i = 0; i < stats->nrules; i++)
		if (!strcmp(stats->rules[i].rule_id, rule_id))
			return &stats->rules[i];
	if (ARRAY_GROW(stats->rules, stats->rules_alloc, stats->nrules + 1) < 0)
		return NULL;
	r = &stats->rules[stats->nrules];
	memset(r, 0, sizeof(*r));
	if (!(r->rule_id = strdup(rule_id)))
		return NULL;
	stats->nrules++;
	return r;
}

/* A text column as a new string; NULL stays NULL. false when memory ran out. */
static bool column_dup(char **out, struct store_stmt *stmt, int col)
{
	return store_column_dup(out, stmt, col) == 0;
}

/* A step that gives a row or the end; anything else is the store's error. */
static int step_row(struct store_stmt *stmt, bool *row)
{
	int rc = store_step(stmt);

	*row = rc == STORE_ROW;
	return rc == STORE_ROW || rc == STORE_DONE ? 0 : rc;
}

/*
 * Each row of a prepared and bound statement read into a new, zeroed
 * element of *items by read; the statement is finalized.
 * On failure *items keeps what was read, the failing element included, for
 * the caller to free.
 */
static int rows_read(void **items, size_t *count, size_t size, struct store_stmt *stmt,
		     int (*read)(void *item, struct store_stmt *stmt))
{
	size_t alloc = *count;
	bool row = true;
	void *item;
	int error;

	while (!(error = step_row(stmt, &row)) && row) {
		if ((error = array_grow(items, &alloc, *count + 1, size)) < 0)
			break;
		/* Counted before it is read: a half-read element is freed with the rest. */
		item = (char *)*items + *count * size;
		memset(item, 0, size);
		(*count)++;
		if ((error = read(item, stmt)) < 0)
			break;
	}
	store_finalize(stmt);
	return error;
}

/*
 * What check c billed: tokens in, out, cached, cache writes, cost (NULL:
 * not known). A check that has not finished (running, interrupted) has no
 * totals yet: its results that did not come from the cache are summed,
 * and its cost is not known when one of them that billed tokens has none.
 */
#define LIVE_CHECK "c.status IN ('running', 'interrupted')"
#define LIVE_SUM(expr) \
	"(SELECT " expr " FROM check_results r JOIN check_threadlines t ON " \
	"t.id = r.check_threadline_id WHERE t.check_id = c.id AND r.cached = 0)"
#define LIVE_OR(column) \
	"CASE WHEN " LIVE_CHECK " THEN " LIVE_SUM("coalesce(sum(r." column "), 0)") " ELSE c." column " END"
#define LIVE_COST \
	"CASE WHEN " LIVE_CHECK " THEN " \
	LIVE_SUM("CASE WHEN sum(CASE WHEN r.cost_usd IS NULL AND r.tokens_in + r.tokens_out > 0 " \
		 "THEN 1 ELSE 0 END) > 0 " \
		 "THEN NULL ELSE coalesce(sum(r.cost_usd), 0) END") " ELSE c.cost_usd END"
#define CHECK_USAGE \
	LIVE_OR("tokens_in") ", " LIVE_OR("tokens_out") ", " LIVE_OR("tokens_cached") ", " \
	LIVE_OR("tokens_cache_write") ", " LIVE_COST

/*
 * The scope (struct history_scope) of a query, over repos p and checks c:
 * this clone's path, or every clone with the remote; the author's only.
 */
#define SCOPE_REPO(p) \
	"((CAST(:remote AS TEXT) IS NULL AND " p ".path = :repo) OR " p ".remote = :remote)"
#define SCOPE_AUTHOR(c) "(CAST(:author AS TEXT) IS NULL OR " c ".author = :author)"
/* The benchmark's checks (environment "bench": bench_run.h) are in no history or figure of it. */
#define SCOPE(p, c) SCOPE_REPO(p) " AND " SCOPE_AUTHOR(c) " AND " c ".environment <> 'bench'"

static void scope_bind(struct store_stmt *stmt, const struct history_scope *scope)
{
	store_bind_text(stmt, ":repo", scope->path);
	store_bind_text(stmt, ":remote", scope->remote);
	store_bind_text(stmt, ":author", scope->author);
}

/* The checks: the rules and attention counts are live, so an interrupted check has them too. */
static const char checks_sql[] =
	"SELECT c.id, c.created_at, c.finished_at, c.duration_ms, c.branch, c.target, c.status, "
	"c.overall_severity, "
	"(SELECT count(*) FROM check_threadlines t WHERE t.check_id = c.id), "
	"CASE WHEN c.status IN ('running', 'interrupted') THEN (SELECT count(*) FROM findings f "
	"WHERE f.check_id = c.id AND f.reduced = 0) ELSE c.finding_count END, "
	"(SELECT count(*) FROM check_results r JOIN check_threadlines t ON "
	"t.id = r.check_threadline_id WHERE t.check_id = c.id AND " STORE_VIOLATION "), "
	CHECK_USAGE ", c.author, c.host, p.path "
	"FROM checks c JOIN repos p ON p.id = c.repo_id WHERE " SCOPE("p", "c") " "
	"ORDER BY c.created_at DESC, c.id DESC LIMIT :limit";

/* The five columns of CHECK_USAGE from col on. */
static void usage_read(struct usage *u, struct store_stmt *stmt, int col)
{
	u->tokens_in = (long)store_column_int64(stmt, col);
	u->tokens_out = (long)store_column_int64(stmt, col + 1);
	u->tokens_cached = (long)store_column_int64(stmt, col + 2);
	u->tokens_cache_write = (long)store_column_int64(stmt, col + 3);
	u->cost_usd = store_column_cost(stmt, col + 4);
}

static int check_read(void *item, struct store_stmt *stmt)
{
	struct history_check *c = item;

	c->id = store_column_int64(stmt, 0);
	c->created_ms = store_column_int64(stmt, 1);
	c->finished_ms = store_column_int64(stmt, 2);
	c->duration_ms = store_column_is_null(stmt, 3) ? -1 :
		store_column_int64(stmt, 3);
	c->rules = (long)store_column_int64(stmt, 8);
	c->findings = (long)store_column_int64(stmt, 9);
	c->attention = (long)store_column_int64(stmt, 10);
	usage_read(&c->usage, stmt, 11);
	if (!column_dup(&c->branch, stmt, 4) || !column_dup(&c->target, stmt, 5) ||
	    !column_dup(&c->status, stmt, 6) || !column_dup(&c->overall_severity, stmt, 7) ||
	    !column_dup(&c->author, stmt, 16) || !column_dup(&c->host, stmt, 17) ||
	    !column_dup(&c->path, stmt, 18))
		return error_nomem();
	return 0;
}

int store_history_checks(struct history_check **out, size_t *count, struct store *store,
			 const struct history_scope *scope, size_t limit)
{
	struct store_stmt *stmt = NULL;
	int error;

	*out = NULL;
	*count = 0;
	if ((error = store_prepare(store, &stmt, checks_sql)) < 0)
		return error;
	scope_bind(stmt, scope);
	/* No limit: the most rows there can be (LIMIT -1 is SQLite's own). */
	store_bind_int(stmt, ":limit", limit ? (int64_t)limit : INT64_MAX);
	if ((error = rows_read((void **)out, count, sizeof(**out), stmt, check_read)) < 0) {
		history_checks_free(*out, *count);
		*out = NULL;
		*count = 0;
	}
	return error;
}

/*
 * The fixes of the repository, by their fix check's time. The feedback in
 * force is the latest fix_correct or fix_incorrect on the fix.
 */
/* The fix feedback in force on the fix with this id (a column name). */
#define FIX_FEEDBACK(fix) \
	"(SELECT b.kind FROM feedback b WHERE b.fix_id = " fix " AND b.kind IN ('fix_correct', " \
	"'fix_incorrect') ORDER BY b.created_at DESC, b.id DESC LIMIT 1)"

#define FIX_COLUMNS \
	"SELECT f.id, f.violation_check_id, f.fix_check_id, f.created_at, f.threadline_id, " \
	"f.threadline_file_path, f.file_references, f.fix_type, f.explanation, " \
	"f.detection_method, f.time_between_checks_seconds, " FIX_FEEDBACK("f.id") " " \
	"FROM violation_fixes f "

/* A fix of a violation later marked false positive is no fix: it is left out. */
static const char fixes_sql[] = FIX_COLUMNS
	"JOIN checks c ON c.id = f.fix_check_id "
	"JOIN repos p ON p.id = c.repo_id WHERE " SCOPE("p", "c") " AND "
	"(CAST(:rule AS TEXT) IS NULL OR f.threadline_id = :rule) AND EXISTS (SELECT 1 FROM check_threadlines t "
	"JOIN check_results r ON r.check_threadline_id = t.id WHERE t.id = f.violation_threadline_id "
	"AND " STORE_VIOLATION ") "
	"ORDER BY c.created_at DESC, f.id DESC";

static const char fix_sql[] = FIX_COLUMNS "WHERE f.id = :id";

/*
 * The strings of a JSON array (file_references: the schema checks it is an
 * array) added to a list, each once.
 */
static int files_read(struct strings *files, const char *text)
{
	json_t *array = text ? json_loads(text, 0, NULL) : NULL;
	size_t i;
	int error = 0;

	for (i = 0; i < json_array_size(array) && !error; i++) {
		const char *file = json_string_value(json_array_get(array, i));

		if (file)
			error = strings_add_unique(files, file);
	}
	json_decref(array);
	return error;
}

/*
 * The files of a JSON array column, each once, as a list its owner frees
 * (also when reading failed half-way).
 */
static int files_take(char ***files, size_t *count, struct store_stmt *stmt, int col)
{
	struct strings list = STRINGS_INIT;
	int error;

	error = files_read(&list, store_column_text(stmt, col));
	*files = list.items;
	*count = list.count;
	return error;
}

static enum history_fix_feedback feedback_read(struct store_stmt *stmt, int col)
{
	const char *kind = store_column_text(stmt, col);

	if (!kind)
		return HISTORY_FIX_UNRATED;
	return !strcmp((const char *)kind, "fix_incorrect") ? HISTORY_FIX_INCORRECT :
		HISTORY_FIX_CORRECT;
}

static int fix_read(void *item, struct store_stmt *stmt)
{
	struct history_fix *f = item;

	f->id = store_column_int64(stmt, 0);
	f->violation_check_id = store_column_int64(stmt, 1);
	f->fix_check_id = store_column_int64(stmt, 2);
	f->created_ms = store_column_int64(stmt, 3);
	f->timed = !store_column_is_null(stmt, 10);
	f->seconds = store_column_int64(stmt, 10);
	f->feedback = feedback_read(stmt, 11);
	if (!column_dup(&f->rule_id, stmt, 4) || !column_dup(&f->rule_file, stmt, 5) ||
	    !column_dup(&f->fix_type, stmt, 7) || !column_dup(&f->explanation, stmt, 8) ||
	    !column_dup(&f->method, stmt, 9))
		return error_nomem();
	return files_take(&f->files, &f->nfiles, stmt, 6);
}

int store_history_fixes(struct history_fix **out, size_t *count, struct store *store,
			const struct history_scope *scope, const char *rule_id)
{
	struct store_stmt *stmt = NULL;
	int error;

	*out = NULL;
	*count = 0;
	if ((error = store_prepare(store, &stmt, fixes_sql)) < 0)
		return error;
	scope_bind(stmt, scope);
	store_bind_text(stmt, ":rule", rule_id);
	if ((error = rows_read((void **)out, count, sizeof(**out), stmt, fix_read)) < 0) {
		history_fixes_free(*out, *count);
		*out = NULL;
		*count = 0;
	}
	return error;
}

void history_findings_free(struct history_finding *findings, size_t count)
{
	size_t i;

	for (i = 0; findings && i < count; i++) {
		free(findings[i].rule_id);
		free(findings[i].file);
		free(findings[i].severity);
		free(findings[i].title);
	}
	free(findings);
}

/* A report's merged finding (reduced) has no rule of its own: it shows the rule's finding it came from. */
static const char findings_sql[] =
	"SELECT f.id, f.rule_id, f.file, f.line, f.severity, f.title FROM findings f "
	"JOIN checks c ON c.id = f.check_id JOIN repos p ON p.id = c.repo_id "
	"WHERE p.path = :repo AND f.reduced = 0 AND c.environment <> 'bench' ORDER BY f.id DESC LIMIT :limit";

static int finding_read(void *item, struct store_stmt *stmt)
{
	struct history_finding *f = item;

	f->id = store_column_int64(stmt, 0);
	f->line = store_column_int(stmt, 3);
	if (!column_dup(&f->rule_id, stmt, 1) || !column_dup(&f->file, stmt, 2) ||
	    !column_dup(&f->severity, stmt, 4) || !column_dup(&f->title, stmt, 5))
		return error_nomem();
	return 0;
}

int store_history_findings(struct history_finding **out, size_t *count, struct store *store,
			   const char *repo, size_t limit)
{
	struct store_stmt *stmt = NULL;
	int error;

	*out = NULL;
	*count = 0;
	if ((error = store_prepare(store, &stmt, findings_sql)) < 0)
		return error;
	store_bind_text(stmt, ":repo", repo);
	store_bind_int(stmt, ":limit", limit ? (int64_t)limit : INT64_MAX);
	if ((error = rows_read((void **)out, count, sizeof(**out), stmt, finding_read)) < 0) {
		history_findings_free(*out, *count);
		*out = NULL;
		*count = 0;
	}
	return error;
}

int store_history_fix(struct history_fix **out, struct store *store, int64_t fix_id)
{
	struct history_fix *fix = NULL;
	struct store_stmt *stmt = NULL;
	bool row = false;
	int error;

	*out = NULL;
	if ((error = store_prepare(store, &stmt, fix_sql)) < 0)
		return error;
	store_bind_int(stmt, ":id", fix_id);
	if ((error = step_row(stmt, &row)) < 0)
		goto done;
	if (!row) {
		error = error_set(RL_ENOTFOUND, "no fix %lld in %s", (long long)fix_id, store_path(store));
		goto done;
	}
	if (!(fix = calloc(1, sizeof(*fix)))) {
		error = error_nomem();
		goto done;
	}
	error = fix_read(fix, stmt);
done:
	store_finalize(stmt);
	if (error < 0) {
		history_fixes_free(fix, 1);
		return error;
	}
	*out = fix;
	return 0;
}

/*
 * A check's violations with their result's files and the latest fix found
 * for each (fix detection may have been run again on a check); their
 * findings' files are added after (violations_files).
 */
static const char violations_sql[] =
	"SELECT r.id, t.id, t.threadline_id, t.threadline_file_path, t.severity, r.reasoning, "
	"(SELECT count(*) FROM findings f WHERE f.check_threadline_id = t.id AND f.reduced = 0), "
	"r.file_references, x.id, x.fix_type, " FIX_FEEDBACK("x.id") " FROM check_results r JOIN check_threadlines t ON t.id = r.check_threadline_id "
	"LEFT JOIN violation_fixes x ON x.id = (SELECT max(y.id) FROM violation_fixes y "
	"WHERE y.violation_threadline_id = t.id) "
	"WHERE t.check_id = :check AND " STORE_VIOLATION " ORDER BY CASE t.severity "
	"WHEN 'critical' THEN 0 WHEN 'major' THEN 1 WHEN 'minor' THEN 2 ELSE 3 END, t.threadline_id";

static int violation_read(void *item, struct store_stmt *stmt)
{
	struct history_violation *v = item;

	v->id = store_column_int64(stmt, 0);
	v->threadline_row = store_column_int64(stmt, 1);
	v->findings = (long)store_column_int64(stmt, 6);
	v->fix_id = store_column_int64(stmt, 8);
	v->fix_feedback = feedback_read(stmt, 10);
	if (!column_dup(&v->rule_id, stmt, 2) || !column_dup(&v->rule_file, stmt, 3) ||
	    !column_dup(&v->severity, stmt, 4) || !column_dup(&v->reasoning, stmt, 5) ||
	    !column_dup(&v->fix_type, stmt, 9))
		return error_nomem();
	return files_take(&v->files, &v->nfiles, stmt, 7);
}

/* A violation's verified findings' files, in order, added to its own, each once. */
static int finding_files(struct history_violation *v, struct store_stmt *stmt)
{
	struct strings files = { v->files, v->nfiles, v->nfiles };
	const char *file;
	int error = 0, rc;

	store_bind_int(stmt, ":row", v->threadline_row);
	while (!error && (rc = store_step(stmt)) == STORE_ROW)
		error = (file = store_column_text(stmt, 0)) ? strings_add_unique(&files, file) : error_nomem();
	if (!error && rc < 0)
		error = rc;
	store_reset(stmt);
	v->files = files.items;
	v->nfiles = files.count;
	return error;
}

static int violations_files(struct history_violation *list, size_t count, struct store *store)
{
	struct store_stmt *stmt = NULL;
	size_t i;
	int error;

	if ((error = store_prepare(store, &stmt, "SELECT DISTINCT file FROM findings WHERE "
				   "check_threadline_id = :row AND verified = 1 AND file IS NOT NULL ORDER BY file")) < 0)
		return error;
	for (i = 0; i < count && !error; i++)
		error = finding_files(&list[i], stmt);
	store_finalize(stmt);
	return error;
}

int store_history_violations(struct history_violation **out, size_t *count, struct store *store,
		       int64_t check_id)
{
	struct store_stmt *stmt = NULL;
	int error;

	*out = NULL;
	*count = 0;
	if ((error = store_prepare(store, &stmt, violations_sql)) < 0)
		return error;
	store_bind_int(stmt, ":check", check_id);
	if ((error = rows_read((void **)out, count, sizeof(**out), stmt, violation_read)) < 0 ||
	    (error = violations_files(*out, *count, store)) < 0) {
		history_violations_free(*out, *count);
		*out = NULL;
		*count = 0;
	}
	return error;
}

int store_history_version(struct history_version *out, struct store *store)
{
	out->changes = 0;
	out->data = -1;
	return store_data_version(store, &out->data, &out->changes);
}

enum rule_count { COUNT_VIOLATIONS, COUNT_FINDINGS, COUNT_UNVERIFIED, COUNT_FALSE_POSITIVES };

/* Per rule, grouped: (rule id, count) rows. The whole-repository total is the sum. */
static const char *const rule_count_sql[] = {
	[COUNT_VIOLATIONS] =
	"SELECT t.threadline_id, count(*) FROM check_results r JOIN check_threadlines t ON "
	"t.id = r.check_threadline_id JOIN checks c ON c.id = t.check_id JOIN repos p ON "
	"p.id = c.repo_id WHERE " SCOPE("p", "c") " AND " STORE_VIOLATION " GROUP BY t.threadline_id",
	/* Findings are those revline verified; what it hid as unverified is counted apart. */
	[COUNT_FINDINGS] =
	"SELECT f.rule_id, count(*) FROM findings f JOIN checks c ON c.id = f.check_id JOIN repos p "
	"ON p.id = c.repo_id WHERE " SCOPE("p", "c") " AND f.reduced = 0 AND f.rule_id IS NOT NULL "
	"AND f.verified = 1 GROUP BY f.rule_id",
	[COUNT_UNVERIFIED] =
	"SELECT f.rule_id, count(*) FROM findings f JOIN checks c ON c.id = f.check_id JOIN repos p "
	"ON p.id = c.repo_id WHERE " SCOPE("p", "c") " AND f.reduced = 0 AND f.rule_id IS NOT NULL "
	"AND f.verified = 0 GROUP BY f.rule_id",
	/*
	 * A false positive is the latest word on its finding (later feedback of
	 * the finding kinds lifts it), so a finding counts once. Feedback whose
	 * finding is gone counts by itself. Feedback without a repository is
	 * placed by its finding's check. By an author: the feedback they gave.
	 */
	[COUNT_FALSE_POSITIVES] =
	"SELECT b.rule_id, count(*) FROM feedback b WHERE b.kind = 'false_positive' AND "
	"b.rule_id IS NOT NULL AND coalesce(b.repo_id, (SELECT c.repo_id FROM findings f "
	"JOIN checks c ON c.id = f.check_id WHERE f.id = b.finding_id)) IN (SELECT p.id FROM repos p "
	"WHERE " SCOPE_REPO("p") ") AND " SCOPE_AUTHOR("b") " AND "
	"(b.finding_id IS NULL OR NOT EXISTS (SELECT 1 FROM feedback l WHERE "
	"l.finding_id = b.finding_id AND l.kind IN ('false_positive', 'accept', 'reject') AND "
	"(l.created_at, l.id) > (b.created_at, b.id))) GROUP BY b.rule_id",
};

static long *count_field(struct history_rule_stats *r, enum rule_count which)
{
	switch (which) {
	case COUNT_VIOLATIONS: return &r->violations;
	case COUNT_FINDINGS: return &r->findings;
	case COUNT_UNVERIFIED: return &r->unverified;
	case COUNT_FALSE_POSITIVES: break;
	}
	return &r->false_positives;
}

static int rule_counts(struct history_stats *stats, struct store *store, const struct history_scope *scope,
		       enum rule_count which)
{
	struct history_rule_stats *r;
	struct store_stmt *stmt = NULL;
	bool row = true;
	int error;

	if ((error = store_prepare(store, &stmt, rule_count_sql[which])) < 0)
		return error;
	scope_bind(stmt, scope);
	while (!(error = step_row(stmt, &row)) && row) {
		const char *rule_id = store_column_text(stmt, 0);

		/* The queries leave out NULL ids: NULL here is memory running out. */
		if (!rule_id || !(r = history_rule_entry(stats, rule_id))) {
			error = error_nomem();
			break;
		}
		*count_field(r, which) = (long)store_column_int64(stmt, 1);
		if (which == COUNT_VIOLATIONS)
			stats->violations += r->violations;
		if (which == COUNT_UNVERIFIED)
			stats->unverified += r->unverified;
	}
	store_finalize(stmt);
	return error;
}

/* The number of checks in the scope. */
static int checks_count(struct store *store, long *checks, const struct history_scope *scope)
{
	struct store_stmt *stmt = NULL;
	bool row = false;
	int error;

	*checks = 0;
	if ((error = store_prepare(store, &stmt, "SELECT count(*) FROM checks c JOIN repos p ON "
				   "p.id = c.repo_id WHERE " SCOPE("p", "c"))) < 0)
		return error;
	scope_bind(stmt, scope);
	if (!(error = step_row(stmt, &row)) && row)
		*checks = (long)store_column_int64(stmt, 0);
	store_finalize(stmt);
	return error;
}

/*
 * The checks' usage summed: the cost over the checks that know theirs,
 * the number of checks that billed tokens without one, and of those with one.
 */
static const char usage_sql[] =
	"SELECT coalesce(sum(i), 0), coalesce(sum(o), 0), coalesce(sum(ca), 0), coalesce(sum(w), 0), "
	"sum(cost), coalesce(sum(CASE WHEN cost IS NULL AND i + o > 0 THEN 1 ELSE 0 END), 0), "
	"coalesce(sum(CASE WHEN cost IS NOT NULL AND i + o > 0 THEN 1 ELSE 0 END), 0) FROM (SELECT "
	LIVE_OR("tokens_in") " AS i, " LIVE_OR("tokens_out") " AS o, " LIVE_OR("tokens_cached") " AS ca, "
	LIVE_OR("tokens_cache_write") " AS w, " LIVE_COST " AS cost FROM checks c JOIN repos p ON "
	"p.id = c.repo_id WHERE " SCOPE("p", "c") ") u";

static int usage_total(struct history_stats *stats, struct store *store, const struct history_scope *scope)
{
	struct store_stmt *stmt = NULL;
	bool row = false;
	int error;

	if ((error = store_prepare(store, &stmt, usage_sql)) < 0)
		return error;
	scope_bind(stmt, scope);
	if (!(error = step_row(stmt, &row)) && row) {
		usage_read(&stats->usage, stmt, 0);
		stats->unpriced = (long)store_column_int64(stmt, 5);
		/* No cost known (NULL), or none of the checks that billed knows one: the total is not known. */
		if (stats->usage.cost_usd < 0 || (stats->unpriced && !store_column_int64(stmt, 6)))
			stats->usage.cost_usd = stats->unpriced ? -1 : 0;
	}
	store_finalize(stmt);
	return error;
}

/*
 * The queries in one transaction, so that the figures agree with each
 * other while checks are being written. It is the store's write
 * transaction (its lock keeps the shared connection whole), held for a
 * few reads only.
 */
static int counts_read(struct history_stats *stats, struct history_fix **fixes, size_t *nfixes,
		       struct store *store, const struct history_scope *scope)
{
	int error;

	if ((error = checks_count(store, &stats->checks, scope)) < 0 || !stats->checks)
		return error;
	if ((error = store_history_fixes(fixes, nfixes, store, scope, NULL)) < 0)
		return error;
	if (!(error = rule_counts(stats, store, scope, COUNT_VIOLATIONS)) &&
	    !(error = rule_counts(stats, store, scope, COUNT_FINDINGS)) &&
	    !(error = rule_counts(stats, store, scope, COUNT_UNVERIFIED)) &&
	    !(error = rule_counts(stats, store, scope, COUNT_FALSE_POSITIVES)))
		error = usage_total(stats, store, scope);
	return error;
}

int store_history_counts(struct history_stats *out, struct history_fix **fixes, size_t *nfixes,
			 struct store *store, const struct history_scope *scope)
{
	int error;

	*fixes = NULL;
	*nfixes = 0;
	if ((error = store_begin(store)) < 0)
		return error;
	if ((error = store_end(store, counts_read(out, fixes, nfixes, store, scope))) < 0) {
		history_fixes_free(*fixes, *nfixes);
		*fixes = NULL;
		*nfixes = 0;
	}
	return error;
}
