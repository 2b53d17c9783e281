/*
 * The store's typed functions for linters' signals, fixes and a check's
 * dependencies (store_signals.h, store_fixes.h, store_deps.h), on a real
 * SQLite file: what they keep, what they read back, and what they refuse
 * leaving the rows as they were.
 */
#include "testlib.h"
#include "testlib/store.h"

#include "deps.h"
#include "finding.h"
#include "fix.h"
#include "patch.h"
#include "result.h"
#include "rules.h"
#include "signals.h"
#include "status.h"
#include "store.h"
#include "store_deps.h"
#include "store_fixes.h"
#include "store_signals.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *tmp;               /* a fresh directory for each test; also the repository's key */
static char *db_path;           /* a new database: a file in tmp, or on PostgreSQL (testlib/store.h) */
static struct store *store;

static int setup(void **state)
{
	(void)state;
	tmp = test_tmpdir("store_signals");
	db_path = test_store_location(tmp, "revline.db");
	store = test_store_open(db_path);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	store_close(store);
	store = NULL;
	test_rmtree(tmp);
	free(tmp);
	free(db_path);
	tmp = db_path = NULL;
	return 0;
}

/* --- reading what was stored, through a store's statements (either backend) --- */

static int64_t int_of(const char *sql, int64_t id)
{
	return test_store_int(store, sql, id);
}

/* The column as text ("(null)" for NULL), compared. */
static void assert_text_of(const char *sql, int64_t id, const char *expected)
{
	char *text = test_store_text(store, sql, id);

	assert_string_equal(text ? text : "(null)", expected);
	free(text);
}

/* --- signals -------------------------------------------------------------- */

static struct signal signal_of(const char *tool, const char *code, const char *file, int line)
{
	struct signal s = {
		.tool = (char *)tool, .code = (char *)code, .message = (char *)"a message", .severity = (char *)"error",
		.file = (char *)file, .line = line, .column = 4, .end_line = line, .end_column = 9,
	};

	return s;
}

static int64_t signals_put(const char *repo, const char *tool, struct signal *items, size_t count)
{
	struct signal_list list = { .format = SIGNAL_RUFF, .items = items, .count = count };
	int64_t run = 0;

	if (store_signals_put(&run, store, repo, tool, "run", "ruff check", &list) < 0)
		fail_msg("store_signals_put: %s", error_message());
	return run;
}

static void test_signals_round_trip(void **state)
{
	struct signal ruff[2] = { signal_of("ruff", "F401", "b.py", 3), signal_of("ruff", "E501", "a.py", 10) };
	struct signal mypy[1] = { signal_of("mypy", "arg-type", "c.py", 1) };
	struct signal again[1] = { signal_of("ruff", "F841", "b.py", 5) };
	struct signal_problem problem = { 7, (char *)"code", (char *)"missing" };
	struct signal_list list = { .format = SIGNAL_RUFF, .items = ruff, .count = 2, .problems = &problem,
				    .nproblems = 1 };
	struct signal_list now;
	struct signal one;
	int64_t run = 0;

	(void)state;
	ruff[1].url = (char *)"https://docs.astral.sh/ruff/rules/line-too-long";
	assert_int_equal(store_signals_put(&run, store, tmp, "ruff", "import", "ruff.json", &list), 0);
	assert_true(run > 0);
	assert_true(ruff[0].id > 0 && ruff[1].id > ruff[0].id);
	assert_int_equal(int_of("SELECT signals FROM signal_runs WHERE id = :id", run), 2);
	assert_text_of(TEST_SQL("SELECT json_extract(problems, '$[0].message') FROM signal_runs WHERE id = :id",
				"SELECT problems::json->0->>'message' FROM signal_runs WHERE id = :id"), run, "missing");
	assert_text_of("SELECT source || ' ' || origin || ' ' || format FROM signal_runs WHERE id = :id", run,
		       "import ruff.json ruff");
	signals_put(tmp, "mypy", mypy, 1);

	/* By file, line and column, every tool's latest run. */
	assert_int_equal(store_signals_current(&now, store, tmp), 0);
	assert_int_equal(now.count, 3);
	assert_string_equal(now.items[0].file, "a.py");
	assert_string_equal(now.items[0].url, "https://docs.astral.sh/ruff/rules/line-too-long");
	assert_int_equal(now.items[0].column, 4);
	assert_int_equal(now.items[0].end_column, 9);
	assert_string_equal(now.items[1].code, "F401");
	assert_int_equal(now.items[1].id, ruff[0].id);
	assert_string_equal(now.items[2].tool, "mypy");
	signal_list_release(&now);

	/* A new run of ruff replaces its signals; mypy's stay. */
	signals_put(tmp, "ruff", again, 1);
	assert_int_equal(store_signals_current(&now, store, tmp), 0);
	assert_int_equal(now.count, 2);
	assert_string_equal(now.items[0].code, "F841");
	assert_string_equal(now.items[1].code, "arg-type");
	signal_list_release(&now);

	/* An older signal is still there by id, in its repository only. */
	assert_int_equal(store_signal_get(&one, store, tmp, ruff[1].id), 0);
	assert_string_equal(one.code, "E501");
	assert_int_equal(one.line, 10);
	signal_release(&one);
	assert_int_equal(store_signal_get(&one, store, "/elsewhere", ruff[1].id), RL_ENOTFOUND);
	assert_int_equal(store_signal_get(&one, store, tmp, again[0].id + 100), RL_ENOTFOUND);
	assert_int_equal(store_signals_current(&now, store, "/elsewhere"), 0);
	assert_int_equal(now.count, 0);
	signal_list_release(&now);
}

/* A run the table refuses (an unknown source) keeps none of its signals, and the error names the file. */
static void test_signals_put_refused(void **state)
{
	struct signal items[2] = { signal_of("ruff", "F401", "b.py", 3), signal_of("ruff", "E501", "a.py", 10) };
	struct signal_list list = { .format = SIGNAL_RUFF, .items = items, .count = 2 };
	int64_t run = 7;

	(void)state;
	assert_int_equal(store_signals_put(&run, store, tmp, "ruff", "guess", "ruff check", &list), RL_EIO);
	assert_int_equal(run, 0);
	assert_non_null(strstr(error_message(), store_path(store)));
	assert_int_equal(int_of("SELECT count(*) FROM signal_runs WHERE :id = :id", 0), 0);
	assert_int_equal(int_of("SELECT count(*) FROM signals WHERE :id = :id", 0), 0);
}

/* --- fixes ---------------------------------------------------------------- */

static struct patch_snippet snippet = {
	.path = (char *)"b.py", .first = 3, .last = 3, .start = 10, .end = 16, .text = (char *)"x = 1\n", .len = 6,
	.file_id = "xxh64:0123456789abcdef:16",
};

static int64_t fix_add(const char *repo, int64_t signal_id, const char *file)
{
	const struct fix_row row = {
		.signal_id = signal_id, .tool = "ruff", .code = "F401", .message = "unused", .file = file,
		.first = 3, .last = 3, .window = "lines 3-3", .snippet = &snippet, .model = "small-model",
	};
	int64_t id = 0;

	if (store_fix_add(&id, store, repo, &row) < 0)
		fail_msg("store_fix_add: %s", error_message());
	return id;
}

static struct patch_undo undo_of(const char *path)
{
	struct patch_undo u = {
		.path = (char *)path, .offset = 10, .before = (char *)"x = 1\n", .after = (char *)"x = 2\n",
		.before_len = 6, .after_len = 6, .id_before = "xxh64:0123456789abcdef:16",
		.id_after = "xxh64:fedcba9876543210:16",
	};

	return u;
}

static void fix_pending(int64_t id, const char *path)
{
	struct patch_undo u = undo_of(path);

	assert_int_equal(store_fix_proposed(store, id, "x = 2\n", 6, "set it", "-x = 1\n+x = 2\n"), 0);
	assert_int_equal(store_fix_pending(store, id, &u), 0);
}

static void assert_latest(int64_t signal_id, int64_t id, enum fix_state state, bool pending)
{
	struct fix_summary s;
	bool is_pending = !pending;

	assert_int_equal(store_fix_latest(&s, &is_pending, store, signal_id, 0), 0);
	assert_int_equal(s.id, id);
	assert_int_equal(s.state, state);
	assert_int_equal(is_pending, pending);
}

struct write_calls {
	int calls;
	int error;              /* what the write returns */
};

static int write_counted(void *payload)
{
	struct write_calls *w = payload;

	w->calls++;
	return w->error ? error_set(w->error, "the write failed") : 0;
}

static void test_fix_round_trip(void **state)
{
	struct signal s[1] = { signal_of("ruff", "F401", "b.py", 3) };
	struct write_calls w = { 0, 0 };
	struct fix_record *records = NULL;
	struct patch_undo u;
	struct fix_summary none;
	size_t count = 9;
	int64_t id, found = 0;
	bool pending;

	(void)state;
	signals_put(tmp, "ruff", s, 1);
	assert_int_equal(store_fix_latest(&none, &pending, store, s[0].id, 0), RL_ENOTFOUND);
	id = fix_add(tmp, s[0].id, "b.py");
	assert_true(id > 0);
	assert_latest(s[0].id, id, FIX_ASKING, false);
	assert_int_equal(int_of("SELECT length(before) FROM signal_fixes WHERE id = :id", id), 6);
	assert_int_equal(int_of("SELECT byte_offset FROM signal_fixes WHERE id = :id", id), 10);
	assert_text_of("SELECT model || ' ' || \"window\" FROM signal_fixes WHERE id = :id", id, "small-model lines 3-3");

	/* Pending: applied without applied_at, not yet an applied fix. */
	fix_pending(id, "b.py");
	assert_latest(s[0].id, id, FIX_APPLIED, true);
	assert_text_of(TEST_SQL("SELECT CAST(after AS TEXT) || preview FROM signal_fixes WHERE id = :id",
				"SELECT convert_from(after, 'UTF8') || preview FROM signal_fixes WHERE id = :id"), id,
		       "x = 2\n-x = 1\n+x = 2\n");
	assert_int_equal(store_fixes_applied(&records, &count, store, tmp), 0);
	assert_int_equal(count, 0);
	store_fix_records_free(records, count);
	assert_int_equal(store_fix_applied_find(&found, store, tmp, 0), RL_ENOTFOUND);

	/* Written: the row is complete. */
	assert_int_equal(store_fix_write(store, id, FIX_PROPOSED, write_counted, &w), 0);
	assert_int_equal(w.calls, 1);
	assert_latest(s[0].id, id, FIX_APPLIED, false);
	assert_int_equal(store_fix_recheck(store, id, RECHECK_GONE, "ruff no longer reports F401"), 0);
	assert_int_equal(store_fixes_applied(&records, &count, store, tmp), 0);
	assert_int_equal(count, 1);
	assert_int_equal(records[0].id, id);
	assert_string_equal(records[0].file, "b.py");
	assert_string_equal(records[0].window, "lines 3-3");
	assert_int_equal(records[0].recheck, RECHECK_GONE);
	assert_string_equal(records[0].recheck_detail, "ruff no longer reports F401");
	assert_true(records[0].applied_at > 0);
	store_fix_records_free(records, count);
	assert_int_equal(store_fix_applied_find(&found, store, tmp, 0), 0);
	assert_int_equal(found, id);
	assert_int_equal(store_fix_applied_find(&found, store, tmp, id + 1), RL_ENOTFOUND);
	assert_int_equal(store_fix_applied_find(&found, store, "/elsewhere", 0), RL_ENOTFOUND);

	/* The undo record comes back byte for byte. */
	assert_int_equal(store_fix_undo_get(&u, store, id), 0);
	assert_string_equal(u.path, "b.py");
	assert_int_equal(u.offset, 10);
	assert_int_equal(u.before_len, 6);
	assert_memory_equal(u.before, "x = 1\n", 6);
	assert_memory_equal(u.after, "x = 2\n", 6);
	assert_string_equal(u.id_after, "xxh64:fedcba9876543210:16");
	patch_undo_release(&u);
	assert_int_equal(store_fix_undo_get(&u, store, id + 1), RL_ENOTFOUND);

	w.calls = 0;
	assert_int_equal(store_fix_undo(store, id, write_counted, &w), 0);
	assert_int_equal(w.calls, 1);
	assert_latest(s[0].id, id, FIX_UNDONE, false);
	assert_int_equal(store_fix_applied_find(&found, store, tmp, 0), RL_ENOTFOUND);
}

/* A write that failed puts the row back; one another revline settled is not written at all. */
static void test_fix_write_refused(void **state)
{
	struct signal s[2] = { signal_of("ruff", "F401", "b.py", 3), signal_of("ruff", "E501", "a.py", 3) };
	struct write_calls w = { 0, RL_ECONFLICT };
	int64_t a, b;

	(void)state;
	signals_put(tmp, "ruff", s, 2);
	a = fix_add(tmp, s[0].id, "b.py");
	fix_pending(a, "b.py");
	assert_int_equal(store_fix_write(store, a, FIX_PROPOSED, write_counted, &w), RL_ECONFLICT);
	assert_int_equal(w.calls, 1);
	assert_latest(s[0].id, a, FIX_PROPOSED, false);
	assert_int_equal(int_of("SELECT applied_at IS NULL FROM signal_fixes WHERE id = :id", a), 1);

	b = fix_add(tmp, s[1].id, "a.py");
	fix_pending(b, "a.py");
	assert_int_equal(store_fix_failed(store, b, "settled elsewhere"), 0);
	w = (struct write_calls){ 0, 0 };
	assert_int_equal(store_fix_write(store, b, FIX_PROPOSED, write_counted, &w), RL_ECONFLICT);
	assert_int_equal(w.calls, 0);
	assert_non_null(strstr(error_message(), "another revline settled the record"));
	assert_latest(s[1].id, b, FIX_FAILED, false);
	assert_text_of("SELECT error FROM signal_fixes WHERE id = :id", b, "settled elsewhere");

	/* An undo that fails leaves the row applied. */
	assert_int_equal(store_fix_rejected(store, a), 0);
	assert_latest(s[0].id, a, FIX_REJECTED, false);
	w = (struct write_calls){ 0, RL_ECONFLICT };
	assert_int_equal(store_fix_undo(store, a, write_counted, &w), RL_ECONFLICT);
	assert_latest(s[0].id, a, FIX_REJECTED, false);
}

static int judged;

/* The fix is in b.py's file; the others' files say it is not. */
static int judge(struct buf *why, const char *workdir, const struct patch_undo *undo)
{
	judged++;
	if (strcmp(workdir, tmp) && strcmp(workdir, "/elsewhere"))
		fail_msg("judged in %s", workdir);
	if (!strcmp(undo->path, "b.py"))
		return 0;
	return buf_printf(why, "interrupted before %s was written", undo->path);
}

static void test_fixes_settle(void **state)
{
	struct signal s[3] = { signal_of("ruff", "F401", "b.py", 3), signal_of("ruff", "E501", "a.py", 3),
			       signal_of("ruff", "E501", "c.py", 3) };
	int64_t a, b, c;
	size_t settled = 9;

	(void)state;
	judged = 0;
	signals_put(tmp, "ruff", s, 2);
	signals_put("/elsewhere", "ruff", s + 2, 1);
	a = fix_add(tmp, s[0].id, "b.py");
	b = fix_add(tmp, s[1].id, "a.py");
	c = fix_add("/elsewhere", s[2].id, "c.py");
	fix_pending(a, "b.py");
	fix_pending(b, "a.py");
	fix_pending(c, "c.py");

	assert_int_equal(store_fixes_settle(&settled, store, 0, tmp, judge), 0);
	assert_int_equal(settled, 2);
	assert_int_equal(judged, 2);
	assert_latest(s[0].id, a, FIX_APPLIED, false);
	assert_latest(s[1].id, b, FIX_FAILED, false);
	assert_text_of("SELECT error FROM signal_fixes WHERE id = :id", b, "interrupted before a.py was written");
	assert_latest(s[2].id, c, FIX_APPLIED, true);

	/* Nothing left there: the judge is not asked. */
	assert_int_equal(store_fixes_settle(&settled, store, 0, tmp, judge), 0);
	assert_int_equal(settled, 0);
	assert_int_equal(judged, 2);
	assert_int_equal(store_fixes_settle(&settled, store, a, NULL, judge), 0);
	assert_int_equal(settled, 0);
	assert_int_equal(store_fixes_settle(&settled, store, c, NULL, judge), 0);
	assert_int_equal(settled, 1);
	assert_latest(s[2].id, c, FIX_FAILED, false);
}

/* The finding a fix is of: found in its repository's checks only. */
static void test_fix_finding(void **state)
{
	struct rule rule = {
		.id = "errors", .name = "Error handling", .severity = SEV_MAJOR, .pattern = "malloc",
		.kind = RULE_LOCAL, .content = "---\nid: errors\n---\n", .path = "threadlines/errors.md",
		.source = "repository",
	};
	struct finding f = {
		.rule_id = (char *)"errors", .file = (char *)"src/a.c", .line = 10, .end_line = 12,
		.severity = SEV_CRITICAL, .title = (char *)"unchecked malloc", .issue = (char *)"p may be NULL",
		.suggestion = (char *)"check it",
	};
	struct check_record r = {
		.repo_path = tmp, .branch = "feature", .base_label = "main", .head_label = "working tree",
		.target = "working tree against main", .diff = "", .files = 1,
	};
	struct rule_result result = { .rule = &rule, .status = RULE_ATTENTION, .findings = &f, .nfindings = 1 };
	struct finding got;
	int64_t check = 0;

	(void)state;
	memset(f.fingerprint, 'a', 40);
	assert_int_equal(store_check_begin(store, &check, &r), 0);
	assert_int_equal(store_rule_add(store, &result.id, check, &rule), 0);
	assert_int_equal(store_result_put(store, check, &result), 0);
	assert_true(f.id > 0);

	assert_int_equal(store_fix_finding(&got, store, tmp, f.id), 0);
	assert_int_equal(got.id, f.id);
	assert_string_equal(got.file, "src/a.c");
	assert_int_equal(got.line, 10);
	assert_int_equal(got.end_line, 12);
	assert_string_equal(got.rule_id, "errors");
	assert_int_equal(got.severity, SEV_CRITICAL);
	assert_string_equal(got.title, "unchecked malloc");
	assert_string_equal(got.issue, "p may be NULL");
	assert_string_equal(got.suggestion, "check it");
	finding_release(&got);
	assert_int_equal(store_fix_finding(&got, store, "/elsewhere", f.id), RL_ENOTFOUND);
	assert_int_equal(store_fix_finding(&got, store, tmp, f.id + 1), RL_ENOTFOUND);
}

/* --- dependencies --------------------------------------------------------- */

static int64_t check_new(void)
{
	struct check_record r = {
		.repo_path = tmp, .branch = "dependabot/npm/express", .base_label = "main",
		.head_label = "working tree", .target = "working tree against main", .diff = "", .files = 1,
	};
	int64_t check = 0;

	if (store_check_begin(store, &check, &r) < 0)
		fail_msg("store_check_begin: %s", error_message());
	return check;
}

static void test_deps_put(void **state)
{
	struct deps_advisory advisory = { (char *)"GHSA-1234", (char *)"prototype pollution", (char *)"high", true, false };
	struct deps_advisory brought = { (char *)"GHSA-5678", (char *)"redirect", (char *)"medium", false, true };
	char *claims[1] = { (char *)"the commit message says lodash 4.17.20 -> 4.17.21; no manifest or lock file "
				    "of the change moves lodash" };
	struct deps_package packages[3] = {
		{ .ecosystem = ECO_NPM, .name = (char *)"express", .manifest = (char *)"package.json",
		  .from = (char *)"^4.18.0", .to = (char *)"^5.0.0", .bump = BUMP_MAJOR, .breaking = true,
		  .advisories = &advisory, .nadvisories = 1 },
		{ .ecosystem = ECO_PIP, .name = (char *)"requests", .manifest = (char *)"requirements.txt",
		  .to = (char *)"2.32.0", .bump = BUMP_ADDED },
		{ .ecosystem = ECO_NPM, .name = (char *)"follow-redirects", .manifest = (char *)"website/yarn.lock",
		  .from = (char *)"1.15.11", .to = (char *)"1.16.0", .bump = BUMP_MINOR,
		  .relation = RELATION_TRANSITIVE, .via = (char *)"@docusaurus/core", .lock = (char *)"website/yarn.lock",
		  .claimed = (char *)"1.15.11 -> 1.17.0", .advisories = &brought, .nadvisories = 1 },
	};
	struct deps_analysis a = {
		.packages = packages, .npackages = 3, .ecosystems = (1u << ECO_NPM) | (1u << ECO_PIP),
		.bot = (char *)"dependabot", .dependency_only = true, .confidence = CONFIDENCE_LOW,
		.reason = (char *)"major version bump in express", .claims = claims, .nclaims = 1,
	};
	int64_t check;

	(void)state;
	check = check_new();
	assert_int_equal(store_deps_put(store, check, &a, 2, NULL), 0);
	assert_text_of("SELECT ecosystems || ' ' || bot || ' ' || confidence || ' ' || advisories_checked || ' ' || "
		       "coalesce(advisories_error, '-') FROM check_dependencies WHERE check_id = :id", check,
		       "[\"npm\",\"pip\"] dependabot low 2 -");
	assert_int_equal(int_of("SELECT count(*) FROM check_packages WHERE check_id = :id", check), 3);
	assert_text_of(TEST_SQL("SELECT json_extract(advisories, '$[0].id') || ' ' || bump || ' ' || breaking FROM "
				"check_packages WHERE check_id = :id AND name = 'express'",
				"SELECT (advisories::json->0->>'id') || ' ' || bump || ' ' || breaking FROM "
				"check_packages WHERE check_id = :id AND name = 'express'"), check, "GHSA-1234 major 1");
	assert_text_of("SELECT coalesce(from_spec, '-') || ' ' || to_spec || ' ' || ecosystem || ' ' || advisories "
		       "FROM check_packages WHERE check_id = :id AND name = 'requests'", check, "- 2.32.0 pip []");
	/* What the lock file says: relation, via, the lock file, the claim; an advisory the bump brings. */
	assert_text_of("SELECT relation || ' ' || coalesce(via, '-') || ' ' || coalesce(lock, '-') || ' ' || "
		       "coalesce(claimed, '-') FROM check_packages WHERE check_id = :id AND name = 'express'", check,
		       "direct - - -");
	assert_text_of("SELECT relation || ' ' || via || ' ' || lock || ' ' || claimed FROM check_packages "
		       "WHERE check_id = :id AND name = 'follow-redirects'", check,
		       "transitive @docusaurus/core website/yarn.lock 1.15.11 -> 1.17.0");
	assert_text_of(TEST_SQL("SELECT json_extract(advisories, '$[0].introduced') || ' ' || "
				"json_extract(advisories, '$[0].fixed') FROM check_packages WHERE check_id = :id "
				"AND name = 'follow-redirects'",
				"SELECT (advisories::json->0->>'introduced') || ' ' || (advisories::json->0->>'fixed') "
				"FROM check_packages WHERE check_id = :id AND name = 'follow-redirects'"), check,
		       TEST_SQL("1 0", "true false"));
	assert_text_of(TEST_SQL("SELECT json_extract(claims, '$[0]') FROM check_dependencies WHERE check_id = :id",
				"SELECT claims::json->>0 FROM check_dependencies WHERE check_id = :id"), check,
		       claims[0]);

	/* The summary is replaced, not doubled. */
	a.npackages = 0;
	assert_int_equal(store_deps_put(store, check, &a, 1, "not looked up: offline"), 0);
	assert_int_equal(int_of("SELECT count(*) FROM check_dependencies WHERE check_id = :id", check), 1);
	assert_text_of("SELECT advisories_error FROM check_dependencies WHERE check_id = :id", check,
		       "not looked up: offline");
}

/* A package the table refuses (no name) takes the whole analysis with it. */
static void test_deps_put_is_whole(void **state)
{
	struct deps_package packages[2] = {
		{ .ecosystem = ECO_NPM, .name = (char *)"express", .manifest = (char *)"package.json",
		  .to = (char *)"^5.0.0", .bump = BUMP_ADDED },
		{ .ecosystem = ECO_NPM, .name = NULL, .manifest = (char *)"package.json", .bump = BUMP_REMOVED },
	};
	struct deps_analysis a = { .packages = packages, .npackages = 2, .confidence = CONFIDENCE_MEDIUM };
	int64_t check;

	(void)state;
	check = check_new();
	assert_int_equal(store_deps_put(store, check, &a, 0, NULL), RL_EIO);
	assert_non_null(strstr(error_message(), store_path(store)));
	assert_int_equal(int_of("SELECT count(*) FROM check_dependencies WHERE check_id = :id", check), 0);
	assert_int_equal(int_of("SELECT count(*) FROM check_packages WHERE check_id = :id", check), 0);
}

int main(void)
{
	if (test_store_skip())
		return PG_SKIP;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_signals_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signals_put_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fix_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fix_write_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fixes_settle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fix_finding, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deps_put, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deps_put_is_whole, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
