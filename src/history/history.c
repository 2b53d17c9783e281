#include "history.h"
#include "store_sql.h"
#include "status.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const bucket_names[BUCKET_COUNT] = {
	"< 5 min", "5-60 min", "1-24 h", "> 24 h",
};

static const char *const fix_type_names[FIX_TYPE_COUNT] = {
	"CODE_CHANGE", "THREADLINE_CHANGED", "THREADLINE_DELETED",
};

const char *history_bucket_name(enum history_bucket bucket)
{
	return bucket < BUCKET_COUNT ? bucket_names[bucket] : "?";
}

const char *history_fix_type_name(enum history_fix_type type)
{
	return type < FIX_TYPE_COUNT ? fix_type_names[type] : "?";
}

const char *history_fix_feedback_name(enum history_fix_feedback feedback)
{
	switch (feedback) {
	case HISTORY_FIX_CORRECT: return "correct";
	case HISTORY_FIX_INCORRECT: return "incorrect";
	case HISTORY_FIX_UNRATED: break;
	}
	return "none";
}

char *history_repo_key(const char *path)
{
	size_t len = strlen(path);

	/* As the store keys repos: "/" alone stays. */
	while (len > 1 && path[len - 1] == '/')
		len--;
	return strndup(path, len);
}

/* One decimal without a trailing ".0": 2.5, 3. The value is not negative. */
static void tenths(char *out, size_t size, double value, const char *unit)
{
	long t = (long)(value * 10 + 0.5);

	if (t % 10)
		snprintf(out, size, "%ld.%ld %s", t / 10, t % 10, unit);
	else
		snprintf(out, size, "%ld %s", t / 10, unit);
}

void history_duration_text(char *out, size_t size, double seconds)
{
	if (seconds < 0)
		seconds = 0;
	if (seconds < 59.5)
		snprintf(out, size, "%.0f s", seconds);
	else if (seconds < 3570)        /* what would round to 60 min is 1 h */
		snprintf(out, size, "%.0f min", seconds / 60);
	else if (seconds < 86400)
		tenths(out, size, seconds / 3600, "h");
	else
		tenths(out, size, seconds / 86400, "d");
}

/* A text column as a new string; NULL stays NULL. false when memory ran out. */
static bool column_dup(char **out, sqlite3_stmt *stmt, int col)
{
	const unsigned char *text;

	*out = NULL;
	if (sqlite3_column_type(stmt, col) == SQLITE_NULL)
		return true;
	/* NULL now means SQLite ran out of memory converting it. */
	if (!(text = sqlite3_column_text(stmt, col)))
		return false;
	*out = strdup((const char *)text);
	return *out != NULL;
}

/* A step that gives a row or the end; anything else is the store's error. */
static int step_row(struct store *store, sqlite3_stmt *stmt, bool *row)
{
	int rc = sqlite3_step(stmt);

	*row = rc == SQLITE_ROW;
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : store_fail(store, rc);
}

/* Binding with a sticky status, as the store does. */


/* Grow an array by one element; false when memory ran out. */
static bool grow(void **items, size_t count, size_t size)
{
	void *grown = realloc(*items, (count + 1) * size);

	if (!grown)
		return false;
	*items = grown;
	memset((char *)grown + count * size, 0, size);
	return true;
}

/*
 * Each row of a prepared statement (bound with the sticky status rc) read
 * into a new, zeroed element of *items by read; the statement is finalized.
 * On failure *items keeps what was read, the failing element included, for
 * the caller to free.
 */
static int rows_read(void **items, size_t *count, size_t size, struct store *store,
		     sqlite3_stmt *stmt, int rc, int (*read)(void *item, sqlite3_stmt *stmt))
{
	bool row = true;
	void *item;
	int error;

	if (rc != SQLITE_OK) {
		error = store_fail(store, rc);
		goto done;
	}
	while (!(error = step_row(store, stmt, &row)) && row) {
		if (!grow(items, *count, size)) {
			error = error_nomem();
			break;
		}
		/* Counted before it is read: a half-read element is freed with the rest. */
		item = (char *)*items + *count * size;
		(*count)++;
		if ((error = read(item, stmt)) < 0)
			break;
	}
done:
	sqlite3_finalize(stmt);
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
	LIVE_SUM("CASE WHEN sum(r.cost_usd IS NULL AND r.tokens_in + r.tokens_out > 0) > 0 " \
		 "THEN NULL ELSE coalesce(sum(r.cost_usd), 0) END") " ELSE c.cost_usd END"
#define CHECK_USAGE \
	LIVE_OR("tokens_in") ", " LIVE_OR("tokens_out") ", " LIVE_OR("tokens_cached") ", " \
	LIVE_OR("tokens_cache_write") ", " LIVE_COST

/*
 * A violation: a rule result 'attention' (of check_threadlines t, results r)
 * that is not all false positive: it has no finding, or one finding that
 * was neither suppressed (marked false positive before the check) nor
 * marked false positive since (the latest finding feedback on it, or on a
 * finding with its fingerprint: the report's merged copy, a later check's).
 */
#define VIOLATION \
	"(r.status = 'attention' AND (NOT EXISTS (SELECT 1 FROM findings f WHERE " \
	"f.check_threadline_id = t.id) OR EXISTS (SELECT 1 FROM findings f WHERE " \
	"f.check_threadline_id = t.id AND f.suppressed = 0 AND (SELECT l.kind FROM feedback l " \
	"WHERE (l.finding_id = f.id OR l.fingerprint = f.fingerprint) AND " \
	"l.kind IN ('false_positive', 'accept', 'reject') " \
	"ORDER BY l.created_at DESC, l.id DESC LIMIT 1) IS NOT 'false_positive')))"

/* The checks: the rules and attention counts are live, so an interrupted check has them too. */
static const char checks_sql[] =
	"SELECT c.id, c.created_at, c.finished_at, c.duration_ms, c.branch, c.target, c.status, "
	"c.overall_severity, "
	"(SELECT count(*) FROM check_threadlines t WHERE t.check_id = c.id), "
	"CASE WHEN c.status IN ('running', 'interrupted') THEN (SELECT count(*) FROM findings f "
	"WHERE f.check_id = c.id AND f.reduced = 0) ELSE c.finding_count END, "
	"(SELECT count(*) FROM check_results r JOIN check_threadlines t ON "
	"t.id = r.check_threadline_id WHERE t.check_id = c.id AND " VIOLATION "), "
	CHECK_USAGE " "
	"FROM checks c JOIN repos p ON p.id = c.repo_id WHERE p.path = :repo "
	"ORDER BY c.created_at DESC, c.id DESC LIMIT :limit";

/* The five columns of CHECK_USAGE from col on. */
static void usage_read(struct usage *u, sqlite3_stmt *stmt, int col)
{
	u->tokens_in = (long)sqlite3_column_int64(stmt, col);
	u->tokens_out = (long)sqlite3_column_int64(stmt, col + 1);
	u->tokens_cached = (long)sqlite3_column_int64(stmt, col + 2);
	u->tokens_cache_write = (long)sqlite3_column_int64(stmt, col + 3);
	u->cost_usd = store_column_cost(stmt, col + 4);
}

static int check_read(void *item, sqlite3_stmt *stmt)
{
	struct history_check *c = item;

	c->id = sqlite3_column_int64(stmt, 0);
	c->created_ms = sqlite3_column_int64(stmt, 1);
	c->finished_ms = sqlite3_column_int64(stmt, 2);
	c->duration_ms = sqlite3_column_type(stmt, 3) == SQLITE_NULL ? -1 :
		sqlite3_column_int64(stmt, 3);
	c->rules = (long)sqlite3_column_int64(stmt, 8);
	c->findings = (long)sqlite3_column_int64(stmt, 9);
	c->attention = (long)sqlite3_column_int64(stmt, 10);
	usage_read(&c->usage, stmt, 11);
	if (!column_dup(&c->branch, stmt, 4) || !column_dup(&c->target, stmt, 5) ||
	    !column_dup(&c->status, stmt, 6) || !column_dup(&c->overall_severity, stmt, 7))
		return error_nomem();
	return 0;
}

int history_checks(struct history_check **out, size_t *count, struct store *store,
		   const char *repo, size_t limit)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc = SQLITE_OK;

	*out = NULL;
	*count = 0;
	if ((error = store_prepare(store, &stmt, checks_sql)) < 0)
		return error;
	store_bind_text(&rc, stmt, ":repo", repo);
	/* LIMIT -1: no limit. */
	store_bind_int(&rc, stmt, ":limit", limit ? (int64_t)limit : -1);
	if ((error = rows_read((void **)out, count, sizeof(**out), store, stmt, rc, check_read)) < 0) {
		history_checks_free(*out, *count);
		*out = NULL;
		*count = 0;
	}
	return error;
}

void history_checks_free(struct history_check *checks, size_t count)
{
	size_t i;

	for (i = 0; checks && i < count; i++) {
		free(checks[i].branch);
		free(checks[i].target);
		free(checks[i].status);
		free(checks[i].overall_severity);
	}
	free(checks);
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
	"JOIN repos p ON p.id = c.repo_id WHERE p.path = :repo AND "
	"(:rule IS NULL OR f.threadline_id = :rule) AND EXISTS (SELECT 1 FROM check_threadlines t "
	"JOIN check_results r ON r.check_threadline_id = t.id WHERE t.id = f.violation_threadline_id "
	"AND " VIOLATION ") "
	"ORDER BY c.created_at DESC, f.id DESC";

static const char fix_sql[] = FIX_COLUMNS "WHERE f.id = :id";

/*
 * The strings of a JSON array (file_references: the schema checks it is an
 * array) added to a list, each once.
 */
static int files_read(char ***files, size_t *count, const char *text)
{
	json_t *array = text ? json_loads(text, 0, NULL) : NULL;
	size_t i, k, n = json_array_size(array);
	char **grown;
	int error = 0;

	if (n) {
		if (!(grown = realloc(*files, (*count + n) * sizeof(**files)))) {
			error = error_nomem();
			goto done;
		}
		*files = grown;
	}
	for (i = 0; i < n; i++) {
		const char *file = json_string_value(json_array_get(array, i));

		for (k = 0; file && k < *count && strcmp((*files)[k], file); k++)
			;
		if (!file || k < *count)
			continue;
		if (!((*files)[*count] = strdup(file))) {
			error = error_nomem();
			goto done;
		}
		(*count)++;
	}
done:
	json_decref(array);
	return error;
}

static void files_free(char **files, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		free(files[i]);
	free(files);
}

static enum history_fix_feedback feedback_read(sqlite3_stmt *stmt, int col)
{
	const unsigned char *kind = sqlite3_column_text(stmt, col);

	if (!kind)
		return HISTORY_FIX_UNRATED;
	return !strcmp((const char *)kind, "fix_incorrect") ? HISTORY_FIX_INCORRECT :
		HISTORY_FIX_CORRECT;
}

static int fix_read(void *item, sqlite3_stmt *stmt)
{
	struct history_fix *f = item;

	f->id = sqlite3_column_int64(stmt, 0);
	f->violation_check_id = sqlite3_column_int64(stmt, 1);
	f->fix_check_id = sqlite3_column_int64(stmt, 2);
	f->created_ms = sqlite3_column_int64(stmt, 3);
	f->timed = sqlite3_column_type(stmt, 10) != SQLITE_NULL;
	f->seconds = sqlite3_column_int64(stmt, 10);
	f->feedback = feedback_read(stmt, 11);
	if (!column_dup(&f->rule_id, stmt, 4) || !column_dup(&f->rule_file, stmt, 5) ||
	    !column_dup(&f->fix_type, stmt, 7) || !column_dup(&f->explanation, stmt, 8) ||
	    !column_dup(&f->method, stmt, 9))
		return error_nomem();
	return files_read(&f->files, &f->nfiles, (const char *)sqlite3_column_text(stmt, 6));
}

int history_fixes(struct history_fix **out, size_t *count, struct store *store,
		  const char *repo, const char *rule_id)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc = SQLITE_OK;

	*out = NULL;
	*count = 0;
	if ((error = store_prepare(store, &stmt, fixes_sql)) < 0)
		return error;
	store_bind_text(&rc, stmt, ":repo", repo);
	store_bind_text(&rc, stmt, ":rule", rule_id);
	if ((error = rows_read((void **)out, count, sizeof(**out), store, stmt, rc, fix_read)) < 0) {
		history_fixes_free(*out, *count);
		*out = NULL;
		*count = 0;
	}
	return error;
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

int history_fix_lookup(struct history_fix **out, struct store *store, int64_t fix_id)
{
	struct history_fix *fix = NULL;
	sqlite3_stmt *stmt = NULL;
	bool row = false;
	int error, rc = SQLITE_OK;

	*out = NULL;
	if ((error = store_prepare(store, &stmt, fix_sql)) < 0)
		return error;
	store_bind_int(&rc, stmt, ":id", fix_id);
	if (rc != SQLITE_OK) {
		error = store_fail(store, rc);
		goto done;
	}
	if ((error = step_row(store, stmt, &row)) < 0)
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
	sqlite3_finalize(stmt);
	if (error < 0) {
		history_fixes_free(fix, 1);
		return error;
	}
	*out = fix;
	return 0;
}

/*
 * A check's violations with their findings' files and the latest fix
 * found for each (fix detection may have been run again on a check).
 */
static const char violations_sql[] =
	"SELECT r.id, t.id, t.threadline_id, t.threadline_file_path, t.severity, r.reasoning, "
	"(SELECT count(*) FROM findings f WHERE f.check_threadline_id = t.id AND f.reduced = 0), "
	"r.file_references, (SELECT json_group_array(file) FROM (SELECT DISTINCT f.file FROM "
	"findings f WHERE f.check_threadline_id = t.id AND f.file IS NOT NULL ORDER BY f.file)), "
	"x.id, x.fix_type, " FIX_FEEDBACK("x.id") " FROM check_results r JOIN check_threadlines t ON t.id = r.check_threadline_id "
	"LEFT JOIN violation_fixes x ON x.id = (SELECT max(y.id) FROM violation_fixes y "
	"WHERE y.violation_threadline_id = t.id) "
	"WHERE t.check_id = :check AND " VIOLATION " ORDER BY CASE t.severity "
	"WHEN 'critical' THEN 0 WHEN 'major' THEN 1 WHEN 'minor' THEN 2 ELSE 3 END, t.threadline_id";

static int violation_read(void *item, sqlite3_stmt *stmt)
{
	struct history_violation *v = item;
	int error;

	v->id = sqlite3_column_int64(stmt, 0);
	v->threadline_row = sqlite3_column_int64(stmt, 1);
	v->findings = (long)sqlite3_column_int64(stmt, 6);
	v->fix_id = sqlite3_column_int64(stmt, 9);
	v->fix_feedback = feedback_read(stmt, 11);
	if (!column_dup(&v->rule_id, stmt, 2) || !column_dup(&v->rule_file, stmt, 3) ||
	    !column_dup(&v->severity, stmt, 4) || !column_dup(&v->reasoning, stmt, 5) ||
	    !column_dup(&v->fix_type, stmt, 10))
		return error_nomem();
	if ((error = files_read(&v->files, &v->nfiles, (const char *)sqlite3_column_text(stmt, 7))) < 0)
		return error;
	return files_read(&v->files, &v->nfiles, (const char *)sqlite3_column_text(stmt, 8));
}

int history_violations(struct history_violation **out, size_t *count, struct store *store,
		       int64_t check_id)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc = SQLITE_OK;

	*out = NULL;
	*count = 0;
	if ((error = store_prepare(store, &stmt, violations_sql)) < 0)
		return error;
	store_bind_int(&rc, stmt, ":check", check_id);
	if ((error = rows_read((void **)out, count, sizeof(**out), store, stmt, rc, violation_read)) < 0) {
		history_violations_free(*out, *count);
		*out = NULL;
		*count = 0;
	}
	return error;
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

bool history_changed(struct history_version *version, struct store *store)
{
	struct history_version now = { 0, sqlite3_total_changes(store_db(store)) };
	sqlite3_stmt *stmt = NULL;
	bool row = false, changed;

	if (store_prepare(store, &stmt, "PRAGMA data_version") < 0)
		return true;
	if (step_row(store, stmt, &row) < 0 || !row)
		now.data = -1;
	else
		now.data = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	changed = now.data < 0 || now.data != version->data || now.changes != version->changes;
	*version = now;
	return changed;
}

static int compare_seconds(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static enum history_bucket bucket_of(int64_t seconds)
{
	if (seconds < 300)
		return BUCKET_5MIN;
	if (seconds < 3600)
		return BUCKET_1H;
	if (seconds < 86400)
		return BUCKET_24H;
	return BUCKET_MORE;
}

void history_times(struct history_stats *out, int64_t *seconds, size_t count)
{
	double sum = 0;
	size_t i, rank;

	out->timed = (long)count;
	out->average_seconds = 0;
	out->p95_seconds = 0;
	memset(out->buckets, 0, sizeof(out->buckets));
	if (!count)
		return;
	qsort(seconds, count, sizeof(*seconds), compare_seconds);
	for (i = 0; i < count; i++) {
		sum += (double)seconds[i];
		out->buckets[bucket_of(seconds[i])]++;
	}
	out->average_seconds = sum / (double)count;
	/* Nearest rank: ceil(0.95 n), in integers so that 0.95 * 20 is exactly 19. */
	rank = (95 * count + 99) / 100;
	out->p95_seconds = seconds[rank - 1];
}

/* The rule's entry, added when new; NULL when memory ran out. */
static struct history_rule_stats *rule_entry(struct history_stats *stats, const char *rule_id)
{
	struct history_rule_stats *r;
	size_t i;

	for (i = 0; i < stats->nrules; i++)
		if (!strcmp(stats->rules[i].rule_id, rule_id))
			return &stats->rules[i];
	if (!grow((void **)&stats->rules, stats->nrules, sizeof(*stats->rules)))
		return NULL;
	r = &stats->rules[stats->nrules];
	if (!(r->rule_id = strdup(rule_id)))
		return NULL;
	stats->nrules++;
	return r;
}

enum rule_count { COUNT_VIOLATIONS, COUNT_FINDINGS, COUNT_FALSE_POSITIVES };

/* Per rule, grouped: (rule id, count) rows. The whole-repository total is the sum. */
static const char *const rule_count_sql[] = {
	[COUNT_VIOLATIONS] =
	"SELECT t.threadline_id, count(*) FROM check_results r JOIN check_threadlines t ON "
	"t.id = r.check_threadline_id JOIN checks c ON c.id = t.check_id "
	"WHERE c.repo_id = :repo AND " VIOLATION " GROUP BY t.threadline_id",
	[COUNT_FINDINGS] =
	"SELECT f.rule_id, count(*) FROM findings f JOIN checks c ON c.id = f.check_id "
	"WHERE c.repo_id = :repo AND f.reduced = 0 AND f.rule_id IS NOT NULL GROUP BY f.rule_id",
	/*
	 * A false positive is the latest word on its finding (later feedback of
	 * the finding kinds lifts it), so a finding counts once. Feedback whose
	 * finding is gone counts by itself. Feedback without a repository is
	 * placed by its finding's check.
	 */
	[COUNT_FALSE_POSITIVES] =
	"SELECT b.rule_id, count(*) FROM feedback b WHERE b.kind = 'false_positive' AND "
	"b.rule_id IS NOT NULL AND coalesce(b.repo_id, (SELECT c.repo_id FROM findings f "
	"JOIN checks c ON c.id = f.check_id WHERE f.id = b.finding_id)) = :repo AND "
	"(b.finding_id IS NULL OR NOT EXISTS (SELECT 1 FROM feedback l WHERE "
	"l.finding_id = b.finding_id AND l.kind IN ('false_positive', 'accept', 'reject') AND "
	"(l.created_at, l.id) > (b.created_at, b.id))) GROUP BY b.rule_id",
};

static long *count_field(struct history_rule_stats *r, enum rule_count which)
{
	switch (which) {
	case COUNT_VIOLATIONS: return &r->violations;
	case COUNT_FINDINGS: return &r->findings;
	case COUNT_FALSE_POSITIVES: break;
	}
	return &r->false_positives;
}

static int rule_counts(struct history_stats *stats, struct store *store, int64_t repo,
		       enum rule_count which)
{
	struct history_rule_stats *r;
	sqlite3_stmt *stmt = NULL;
	bool row = true;
	int error, rc = SQLITE_OK;

	if ((error = store_prepare(store, &stmt, rule_count_sql[which])) < 0)
		return error;
	store_bind_int(&rc, stmt, ":repo", repo);
	if (rc != SQLITE_OK) {
		error = store_fail(store, rc);
		goto done;
	}
	while (!(error = step_row(store, stmt, &row)) && row) {
		const char *rule_id = (const char *)sqlite3_column_text(stmt, 0);

		/* The queries leave out NULL ids: NULL here is memory running out. */
		if (!rule_id || !(r = rule_entry(stats, rule_id))) {
			error = error_nomem();
			break;
		}
		*count_field(r, which) = (long)sqlite3_column_int64(stmt, 1);
		if (which == COUNT_VIOLATIONS)
			stats->violations += r->violations;
	}
done:
	sqlite3_finalize(stmt);
	return error;
}

/* The repository's row and its number of checks; repo 0 when the store has never seen it. */
static int repo_find(struct store *store, int64_t *repo, long *checks, const char *path)
{
	sqlite3_stmt *stmt = NULL;
	bool row = false;
	int error, rc = SQLITE_OK;

	*repo = 0;
	*checks = 0;
	if ((error = store_prepare(store, &stmt, "SELECT p.id, (SELECT count(*) FROM checks c "
				   "WHERE c.repo_id = p.id) FROM repos p WHERE p.path = :path")) < 0)
		return error;
	store_bind_text(&rc, stmt, ":path", path);
	if (rc != SQLITE_OK)
		error = store_fail(store, rc);
	else if (!(error = step_row(store, stmt, &row)) && row) {
		*repo = sqlite3_column_int64(stmt, 0);
		*checks = (long)sqlite3_column_int64(stmt, 1);
	}
	sqlite3_finalize(stmt);
	return error;
}

static enum history_fix_type fix_type_of(const char *name)
{
	int i;

	for (i = 0; i < FIX_TYPE_COUNT; i++)
		if (name && !strcmp(name, fix_type_names[i]))
			return (enum history_fix_type)i;
	return FIX_TYPE_COUNT;
}

/* The fixes' figures: counts, types, times, and each rule's fixes. */
static int fix_figures(struct history_stats *stats, const struct history_fix *fixes, size_t count)
{
	struct history_rule_stats *r;
	enum history_fix_type type;
	int64_t *seconds = NULL;
	size_t i, timed = 0;

	if (count && !(seconds = calloc(count, sizeof(*seconds))))
		return error_nomem();
	for (i = 0; i < count; i++) {
		if (fixes[i].feedback == HISTORY_FIX_INCORRECT) {
			stats->incorrect++;
			continue;
		}
		stats->fixes++;
		if ((type = fix_type_of(fixes[i].fix_type)) < FIX_TYPE_COUNT)
			stats->fix_types[type]++;
		if (fixes[i].timed)
			seconds[timed++] = fixes[i].seconds;
		if (!(r = rule_entry(stats, fixes[i].rule_id))) {
			free(seconds);
			return error_nomem();
		}
		r->fixes++;
	}
	history_times(stats, seconds, timed);
	free(seconds);
	return 0;
}

static double rate(long part, long whole)
{
	return whole > 0 ? (double)part / (double)whole : 0;
}

static int compare_rules(const void *a, const void *b)
{
	const struct history_rule_stats *x = a, *y = b;

	if (x->violations != y->violations)
		return x->violations > y->violations ? -1 : 1;
	return strcmp(x->rule_id, y->rule_id);
}

static void rates_compute(struct history_stats *stats)
{
	size_t i;

	stats->fix_rate = rate(stats->fixes, stats->violations);
	for (i = 0; i < stats->nrules; i++) {
		struct history_rule_stats *r = &stats->rules[i];

		r->fix_rate = rate(r->fixes, r->violations);
		r->false_positive_rate = rate(r->false_positives, r->findings);
	}
	if (stats->nrules)
		qsort(stats->rules, stats->nrules, sizeof(*stats->rules), compare_rules);
}

/*
 * The checks' usage summed: the cost over the checks that know theirs,
 * the number of checks that billed tokens without one, and of those with one.
 */
static const char usage_sql[] =
	"SELECT coalesce(sum(i), 0), coalesce(sum(o), 0), coalesce(sum(ca), 0), coalesce(sum(w), 0), "
	"sum(cost), coalesce(sum(cost IS NULL AND i + o > 0), 0), "
	"coalesce(sum(cost IS NOT NULL AND i + o > 0), 0) FROM (SELECT "
	LIVE_OR("tokens_in") " AS i, " LIVE_OR("tokens_out") " AS o, " LIVE_OR("tokens_cached") " AS ca, "
	LIVE_OR("tokens_cache_write") " AS w, " LIVE_COST " AS cost FROM checks c WHERE c.repo_id = :repo)";

static int usage_total(struct history_stats *stats, struct store *store, int64_t repo)
{
	sqlite3_stmt *stmt = NULL;
	bool row = false;
	int error, rc = SQLITE_OK;

	if ((error = store_prepare(store, &stmt, usage_sql)) < 0)
		return error;
	store_bind_int(&rc, stmt, ":repo", repo);
	if (rc != SQLITE_OK)
		error = store_fail(store, rc);
	else if (!(error = step_row(store, stmt, &row)) && row) {
		usage_read(&stats->usage, stmt, 0);
		stats->unpriced = (long)sqlite3_column_int64(stmt, 5);
		/* No cost known (NULL), or none of the checks that billed knows one: the total is not known. */
		if (stats->usage.cost_usd < 0 || (stats->unpriced && !sqlite3_column_int64(stmt, 6)))
			stats->usage.cost_usd = stats->unpriced ? -1 : 0;
	}
	sqlite3_finalize(stmt);
	return error;
}

static int stats_read(struct history_stats *stats, struct store *store, const char *path)
{
	struct history_fix *fixes = NULL;
	size_t nfixes = 0;
	int64_t repo = 0;
	int error;

	if ((error = repo_find(store, &repo, &stats->checks, path)) < 0 || !repo)
		return error;
	if ((error = history_fixes(&fixes, &nfixes, store, path, NULL)) < 0)
		return error;
	if (!(error = rule_counts(stats, store, repo, COUNT_VIOLATIONS)) &&
	    !(error = rule_counts(stats, store, repo, COUNT_FINDINGS)) &&
	    !(error = rule_counts(stats, store, repo, COUNT_FALSE_POSITIVES)) &&
	    !(error = usage_total(stats, store, repo)))
		error = fix_figures(stats, fixes, nfixes);
	history_fixes_free(fixes, nfixes);
	return error;
}

/*
 * The queries in one transaction, so that the figures agree with each
 * other while checks are being written. It is the store's write
 * transaction (its lock keeps the shared connection whole), held for a
 * few reads only.
 */
int history_stats(struct history_stats *out, struct store *store, const char *repo)
{
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = store_begin(store)) < 0)
		return error;
	error = store_end(store, stats_read(out, store, repo));
	if (error < 0) {
		history_stats_release(out);
		return error;
	}
	rates_compute(out);
	return 0;
}

void history_stats_release(struct history_stats *stats)
{
	size_t i;

	for (i = 0; i < stats->nrules; i++)
		free(stats->rules[i].rule_id);
	free(stats->rules);
	memset(stats, 0, sizeof(*stats));
}
