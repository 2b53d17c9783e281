/* History: checks, fixes and the statistics on a seeded history; interrupted checks. */
#include "testlib.h"
#include "testlib/store.h"

#include "history.h"
#include "status.h"
#include "store.h"
#include "store_sql.h"
#include "store_backend.h"

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


/* This clone's history: the scope of a path. */
static const struct history_scope *at(const char *path)
{
	static struct history_scope scope;

	scope = (struct history_scope){ .path = path };
	return &scope;
}

static char *tmp;               /* a fresh directory for each test: also the repository's path */
static char *where;             /* the store's location: a new database each test (testlib/store.h) */

static int setup(void **state)
{
	(void)state;
	tmp = test_tmpdir("history");
	where = test_store_location(tmp, "revline.db");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	test_rmtree(tmp);
	free(tmp);
	free(where);
	tmp = where = NULL;
	return 0;
}

static struct store *open_ok(void)
{
	return test_store_open(where);
}

/*
 * SQL with sqlite3_mprintf's formats (%Q: a quoted string or NULL), only
 * to write the text: it runs through the store, on either backend.
 */
static void sql_ok(struct store *store, const char *fmt, ...)
{
	va_list ap;
	char *sql;

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	test_store_exec(store, sql, 0);
	sqlite3_free(sql);
}

static int64_t int_of(struct store *store, const char *fmt, ...)
{
	int64_t value;
	va_list ap;
	char *sql;

	va_start(ap, fmt);
	sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	value = test_store_int(store, sql, 0);
	sqlite3_free(sql);
	return value;
}

static char *text_of(struct store *store, const char *sql, int64_t id)
{
	return test_store_text(store, sql, id);
}

/*
 * The seeded history. Five checks on branch "feature" of this repository
 * (tmp), three rules each; A = attention, C = compliant; the number is the
 * rule's own findings:
 *
 *          errors  no-todo  sql
 *     C1   A 2     A 1      A 1
 *     C2   A 1     C        A 1
 *     C3   C       A 1      C
 *     C4   A 1     C        A 1     (and a merged finding of errors in the report)
 *     C5   C       C        C       (left running, by this process)
 *
 * Violations: errors 3, no-todo 2, sql 2 (C1's only sql finding is marked
 * false positive below: no violation); 7 in all.
 * Findings (reduced = 0): errors 4, no-todo 2, sql 3; the merged one is not counted.
 *
 * Fixes (violation_fixes), in this order (ids 1 to 7):
 *     F1  no-todo  C1 -> C2  CODE_CHANGE          60 s
 *     F2  errors   C2 -> C3  CODE_CHANGE         200 s   incorrect, then correct: counted
 *     F3  sql      C2 -> C3  THREADLINE_CHANGED  400 s
 *     F4  no-todo  C3 -> C4  CODE_CHANGE        4000 s
 *     F5  errors   C4 -> C5  THREADLINE_DELETED 90000 s
 *     F6  sql      C4 -> C5  CODE_CHANGE         no time
 *     F7  errors   C1 -> C2  CODE_CHANGE         100 s   correct, then incorrect: not counted
 *     F8  sql      C1 -> C2  CODE_CHANGE          30 s   of C1's sql violation, marked false
 *                                                         positive since: no fix, not listed
 *
 * Counted fixes: F1-F6 = 6; incorrect 1. Fix rate 6 / 7.
 * Timed: 60, 200, 400, 4000, 90000 (5). Average 94660 / 5 = 18932 s.
 * p95 by nearest rank: ceil(0.95 * 5) = 5th smallest = 90000.
 * Buckets: < 5 min {60, 200} 2; 5-60 min {400} 1; 1-24 h {4000} 1; > 24 h {90000} 1.
 * Types: CODE_CHANGE {F1, F2, F4, F6} 4, THREADLINE_CHANGED {F3} 1, THREADLINE_DELETED {F5} 1.
 * Per rule fixes: errors {F2, F5} 2, no-todo {F1, F4} 2, sql {F3, F6} 2.
 * Fix rates: errors 2/3, no-todo 2/2 = 1, sql 2/2 = 1.
 *
 * False-positive feedback:
 *     errors finding of C1, twice (counts once: the later one is the latest word)
 *     errors finding of C2, then accepted (lifted: 0)
 *     sql finding of C1 (1), and a sql one whose finding is gone (finding NULL: 1)
 *     no-todo: a reject only (0)
 * False positives: errors 1 (rate 1/4), no-todo 0 (0/2), sql 2 (2/3).
 *
 * Elsewhere: another repository with an errors violation, a finding, a fix
 * and a false positive (one of its two findings), none of which may show here.
 */
#define NCHECKS 5
#define NRULES 3

static const char *const rule_ids[NRULES] = { "errors", "no-todo", "sql" };
static const char status_grid[NCHECKS][NRULES] = {
	{ 'A', 'A', 'A' }, { 'A', 'C', 'A' }, { 'C', 'A', 'C' }, { 'A', 'C', 'A' }, { 'C', 'C', 'C' },
};
static const int finding_grid[NCHECKS][NRULES] = {
	{ 2, 1, 1 }, { 1, 0, 1 }, { 0, 1, 0 }, { 1, 0, 1 }, { 0, 0, 0 },
};

#define T0 1700000000000LL
#define MINUTE 60000LL

struct seed {
	int64_t checks[NCHECKS];
	int64_t threadlines[NCHECKS][NRULES];
	int64_t findings[NCHECKS][NRULES][2];   /* ids of the rule's findings */
	int64_t repo, other_repo;
	int64_t other_check;
};

static struct rule rule_make(const char *id)
{
	struct rule r = {
		.id = (char *)id, .name = (char *)id, .severity = SEV_MAJOR, .kind = RULE_LLM,
		.content = (char *)"---\nid: x\n---\nA rule.\n", .source = "repository",
	};
	static char paths[NRULES][64];
	size_t i;

	for (i = 0; i < NRULES; i++)
		if (!strcmp(id, rule_ids[i])) {
			snprintf(paths[i], sizeof(paths[i]), "threadlines/%s.md", id);
			r.path = paths[i];
		}
	return r;
}

static int64_t check_begin(struct store *store, const char *repo, int64_t created)
{
	struct check_record r = {
		.repo_path = repo, .branch = "feature", .base_label = "main",
		.head_label = "working tree", .target = "main..working tree",
		.diff = "", .diff_len = 0, .created_ms = created,
	};
	int64_t id = 0;

	if (store_check_begin(store, &id, &r) < 0)
		fail_msg("store_check_begin: %s", error_message());
	return id;
}

/* One rule's settled result with n findings; their ids go to ids. */
static void result_put(struct store *store, int64_t check, const struct rule *rule, char status,
		       int n, int64_t *ids)
{
	struct finding f[2];
	struct rule_result res = {
		.rule = rule, .status = status == 'A' ? RULE_ATTENTION : RULE_COMPLIANT,
		.findings = f, .nfindings = (size_t)n,
	};
	char *refs[] = { (char *)"src/a.c" };
	int i;

	memset(f, 0, sizeof(f));
	for (i = 0; i < n; i++) {
		f[i].rule_id = rule->id;
		f[i].file = (char *)"src/a.c";
		f[i].line = 10 + i;
		f[i].severity = SEV_MAJOR;
		f[i].title = (char *)"a problem";
		f[i].verified = true;
	}
	if (status == 'A') {
		res.file_references = refs;
		res.nrefs = 1;
	}
	if (store_result_put(store, check, &res) < 0)
		fail_msg("store_result_put: %s", error_message());
	for (i = 0; i < n; i++)
		ids[i] = f[i].id;
}

static void checks_seed(struct store *store, struct seed *s)
{
	struct rule rules[NRULES];
	struct finding merged = { .rule_id = (char *)"errors", .file = (char *)"src/a.c",
				  .line = 10, .severity = SEV_MAJOR, .title = (char *)"merged" };
	struct report report = { .overall_severity = (char *)"needs-work", .findings = &merged,
				 .nfindings = 1 };
	int c, r;

	for (r = 0; r < NRULES; r++)
		rules[r] = rule_make(rule_ids[r]);
	for (c = 0; c < NCHECKS; c++) {
		s->checks[c] = check_begin(store, tmp, T0 + c * 10 * MINUTE);
		for (r = 0; r < NRULES; r++)
			if (store_rule_add(store, &s->threadlines[c][r], s->checks[c], &rules[r]) < 0)
				fail_msg("store_rule_add: %s", error_message());
		for (r = 0; r < NRULES; r++)
			result_put(store, s->checks[c], &rules[r], status_grid[c][r], finding_grid[c][r],
				   s->findings[c][r]);
		if (c < 3)
			assert_int_equal(store_check_finish(store, s->checks[c], "complete", 1000 + c,
							    NULL, NULL), 0);
		else if (c == 3)
			assert_int_equal(store_check_finish(store, s->checks[c], "partial", 65000,
							    NULL, &report), 0);
	}
	s->repo = int_of(store, "SELECT repo_id FROM checks WHERE id = %lld", (long long)s->checks[0]);
}

static void fix_insert(struct store *store, const struct seed *s, int from, int rule,
		       const char *type, int64_t seconds)
{
	char time[32] = "NULL";

	if (seconds >= 0)
		snprintf(time, sizeof(time), "%lld", (long long)seconds);
	sql_ok(store, "INSERT INTO violation_fixes (violation_check_id, fix_check_id, "
	       "violation_threadline_id, threadline_id, threadline_file_path, file_references, "
	       "fix_type, explanation, time_between_checks_seconds, detection_method, created_at) "
	       "VALUES (%lld, %lld, %lld, %Q, 'threadlines/' || %Q || '.md', "
	       "'[\"src/a.c\", \"src/b.c\"]', %Q, 'It was fixed.\nTwo lines.', %s, "
	       "'deterministic', %lld)", (long long)s->checks[from], (long long)s->checks[from + 1],
	       (long long)s->threadlines[from][rule], rule_ids[rule], rule_ids[rule], type, time,
	       (long long)(T0 + (from + 1) * 10 * MINUTE + 5000));
}

static void feedback_insert(struct store *store, int64_t finding, int64_t fix, int64_t repo,
			    const char *kind, const char *rule, int64_t when)
{
	sql_ok(store, "INSERT INTO feedback (finding_id, fix_id, repo_id, kind, rule_id, created_at) "
	       "VALUES (nullif(%lld, 0), nullif(%lld, 0), nullif(%lld, 0), %Q, %Q, %lld)",
	       (long long)finding, (long long)fix, (long long)repo, kind, rule, (long long)when);
}

/* Another repository's history, which must not show in this one's. */
static void elsewhere_seed(struct store *store, struct seed *s)
{
	struct rule errors = rule_make("errors");
	int64_t threadline = 0, finding[2] = { 0, 0 }, later;

	s->other_check = check_begin(store, "/elsewhere/other/", T0);
	assert_int_equal(store_rule_add(store, &threadline, s->other_check, &errors), 0);
	result_put(store, s->other_check, &errors, 'A', 2, finding);
	assert_int_equal(store_check_finish(store, s->other_check, "complete", 1, NULL, NULL), 0);
	later = check_begin(store, "/elsewhere/other", T0 + MINUTE);
	assert_int_equal(store_check_finish(store, later, "complete", 1, NULL, NULL), 0);
	sql_ok(store, "INSERT INTO violation_fixes (violation_check_id, fix_check_id, "
	       "violation_threadline_id, threadline_id, threadline_file_path, fix_type, "
	       "explanation, time_between_checks_seconds, created_at) VALUES (%lld, %lld, %lld, "
	       "'errors', 'threadlines/errors.md', 'CODE_CHANGE', 'elsewhere', 1, %lld)",
	       (long long)s->other_check, (long long)later, (long long)threadline, (long long)T0);
	s->other_repo = int_of(store, "SELECT repo_id FROM checks WHERE id = %lld",
			       (long long)s->other_check);
	feedback_insert(store, finding[0], 0, s->other_repo, "false_positive", "errors", T0);
	/* Without a repository: placed by its finding's check. */
	feedback_insert(store, finding[0], 0, 0, "false_positive", "errors", T0 + 1);
}

static void history_seed(struct store *store, struct seed *s)
{
	int64_t when = T0 + 100 * MINUTE;

	checks_seed(store, s);
	fix_insert(store, s, 0, 1, "CODE_CHANGE", 60);                  /* F1 */
	fix_insert(store, s, 1, 0, "CODE_CHANGE", 200);                 /* F2 */
	fix_insert(store, s, 1, 2, "THREADLINE_CHANGED", 400);          /* F3 */
	fix_insert(store, s, 2, 1, "CODE_CHANGE", 4000);                /* F4 */
	fix_insert(store, s, 3, 0, "THREADLINE_DELETED", 90000);        /* F5 */
	fix_insert(store, s, 3, 2, "CODE_CHANGE", -1);                  /* F6 */
	fix_insert(store, s, 0, 0, "CODE_CHANGE", 100);                 /* F7 */
	fix_insert(store, s, 0, 2, "CODE_CHANGE", 30);                  /* F8 */
	assert_int_equal(int_of(store, "SELECT max(id) FROM violation_fixes"), 8);
	/* Fix feedback: the latest wins. */
	feedback_insert(store, 0, 2, s->repo, "fix_incorrect", "errors", when);
	feedback_insert(store, 0, 2, s->repo, "fix_correct", "errors", when + 1);
	feedback_insert(store, 0, 7, s->repo, "fix_correct", "errors", when);
	feedback_insert(store, 0, 7, s->repo, "fix_incorrect", "errors", when + 1);
	/* Finding feedback. */
	feedback_insert(store, s->findings[0][0][0], 0, s->repo, "false_positive", "errors", when);
	feedback_insert(store, s->findings[0][0][0], 0, s->repo, "false_positive", "errors", when + 1);
	feedback_insert(store, s->findings[1][0][0], 0, s->repo, "false_positive", "errors", when);
	feedback_insert(store, s->findings[1][0][0], 0, s->repo, "accept", "errors", when + 1);
	feedback_insert(store, s->findings[0][2][0], 0, s->repo, "false_positive", "sql", when);
	feedback_insert(store, 0, 0, s->repo, "false_positive", "sql", when);
	feedback_insert(store, s->findings[0][1][0], 0, s->repo, "reject", "no-todo", when);
	elsewhere_seed(store, s);
}

static void assert_near(double actual, double expected)
{
	if (actual < expected - 1e-9 || actual > expected + 1e-9)
		fail_msg("expected %.12g, got %.12g", expected, actual);
}

static void assert_rule(const struct history_rule_stats *r, const char *id, long violations,
			long fixes, long findings, long false_positives)
{
	assert_string_equal(r->rule_id, id);
	assert_int_equal(r->violations, violations);
	assert_int_equal(r->fixes, fixes);
	assert_near(r->fix_rate, (double)fixes / (double)violations);
	assert_int_equal(r->findings, findings);
	assert_int_equal(r->false_positives, false_positives);
	assert_near(r->false_positive_rate, (double)false_positives / (double)findings);
}

static void test_stats(void **state)
{
	struct store *store = open_ok();
	struct history_stats st;
	struct seed s;

	(void)state;
	history_seed(store, &s);
	assert_int_equal(history_stats(&st, store, at(tmp)), 0);
	assert_int_equal(st.checks, 5);
	assert_int_equal(st.violations, 7);
	assert_int_equal(st.fixes, 6);
	assert_int_equal(st.incorrect, 1);
	assert_near(st.fix_rate, 6.0 / 7.0);
	assert_int_equal(st.timed, 5);
	assert_near(st.average_seconds, 18932.0);
	assert_int_equal(st.p95_seconds, 90000);
	assert_int_equal(st.buckets[BUCKET_5MIN], 2);
	assert_int_equal(st.buckets[BUCKET_1H], 1);
	assert_int_equal(st.buckets[BUCKET_24H], 1);
	assert_int_equal(st.buckets[BUCKET_MORE], 1);
	assert_int_equal(st.fix_types[FIX_CODE_CHANGE], 4);
	assert_int_equal(st.fix_types[FIX_THREADLINE_CHANGED], 1);
	assert_int_equal(st.fix_types[FIX_THREADLINE_DELETED], 1);
	/* Most violations first, then by id. */
	assert_int_equal(st.nrules, 3);
	assert_rule(&st.rules[0], "errors", 3, 2, 4, 1);
	assert_rule(&st.rules[1], "no-todo", 2, 2, 2, 0);
	assert_rule(&st.rules[2], "sql", 2, 2, 3, 2);
	history_stats_release(&st);

	/* The other repository: one violation, its fix of 1 s, one false positive (not two). */
	assert_int_equal(history_stats(&st, store, at("/elsewhere/other")), 0);
	assert_int_equal(st.checks, 2);
	assert_int_equal(st.violations, 1);
	assert_int_equal(st.fixes, 1);
	assert_near(st.average_seconds, 1);
	assert_int_equal(st.nrules, 1);
	assert_string_equal(st.rules[0].rule_id, "errors");
	assert_int_equal(st.rules[0].violations, 1);
	assert_int_equal(st.rules[0].findings, 2);
	assert_int_equal(st.rules[0].false_positives, 1);
	history_stats_release(&st);

	/* A repository never seen: all zero, rates 0 (not NaN). */
	assert_int_equal(history_stats(&st, store, at("/never/seen")), 0);
	assert_int_equal(st.checks, 0);
	assert_int_equal(st.violations, 0);
	assert_near(st.fix_rate, 0);
	assert_int_equal(st.timed, 0);
	assert_int_equal(st.nrules, 0);
	history_stats_release(&st);
	store_close(store);
}

static void test_checks(void **state)
{
	struct store *store = open_ok();
	struct history_check *checks = NULL;
	size_t count = 0;
	struct seed s;

	(void)state;
	history_seed(store, &s);
	assert_int_equal(history_checks(&checks, &count, store, at(tmp), 3), 0);
	assert_int_equal(count, 3);
	/* Newest first: C5 (running), C4, C3. */
	assert_int_equal(checks[0].id, s.checks[4]);
	assert_string_equal(checks[0].status, "running");
	assert_int_equal(checks[0].duration_ms, -1);
	assert_int_equal(checks[0].finished_ms, 0);
	assert_int_equal(checks[0].rules, 3);
	assert_int_equal(checks[0].attention, 0);
	assert_int_equal(checks[0].findings, 0);
	assert_null(checks[0].overall_severity);
	assert_int_equal(checks[0].created_ms, T0 + 40 * MINUTE);
	/* C4: partial, with the report's one merged finding. */
	assert_int_equal(checks[1].id, s.checks[3]);
	assert_string_equal(checks[1].status, "partial");
	assert_int_equal(checks[1].duration_ms, 65000);
	assert_int_equal(checks[1].findings, 1);
	assert_int_equal(checks[1].attention, 2);
	assert_string_equal(checks[1].overall_severity, "needs-work");
	assert_string_equal(checks[1].branch, "feature");
	assert_string_equal(checks[1].target, "main..working tree");
	assert_true(checks[1].finished_ms > 0);
	/* C3: without a report, the rules' own findings. */
	assert_int_equal(checks[2].id, s.checks[2]);
	assert_int_equal(checks[2].findings, 1);
	assert_int_equal(checks[2].attention, 1);
	assert_int_equal(checks[2].duration_ms, 1002);
	history_checks_free(checks, count);

	/* 0: all of them; another repository's are not here. */
	assert_int_equal(history_checks(&checks, &count, store, at(tmp), 0), 0);
	assert_int_equal(count, NCHECKS);
	assert_int_equal(checks[4].id, s.checks[0]);
	/* Its sql violation's one finding is marked false positive: not a violation. */
	assert_int_equal(checks[4].attention, 2);
	assert_int_equal(checks[4].findings, 4);
	history_checks_free(checks, count);
	assert_int_equal(history_checks(&checks, &count, store, at("/never/seen"), 0), 0);
	assert_int_equal(count, 0);
	assert_null(checks);
	store_close(store);
}

/*
 * A rule whose findings revline could not verify (hidden as unverified) is
 * no violation: not in the check's attention count, the violations, or the
 * statistics, where its findings are counted apart.
 */
static void test_unverified(void **state)
{
	struct store *store = open_ok();
	struct history_violation *v = NULL;
	struct history_check *checks = NULL;
	struct rule errors = rule_make("errors"), sql = rule_make("sql");
	struct history_stats st;
	int64_t check, ids[2], sql_ids[2];
	size_t count = 0;
	struct seed s;

	(void)state;
	history_seed(store, &s);
	check = check_begin(store, tmp, T0 + 60 * MINUTE);
	assert_int_equal(store_rule_add(store, &ids[0], check, &errors), 0);
	assert_int_equal(store_rule_add(store, &ids[0], check, &sql), 0);
	result_put(store, check, &errors, 'A', 2, ids);
	result_put(store, check, &sql, 'A', 2, sql_ids);
	/* errors: both unverified; sql: one of two unverified (still a violation). */
	sql_ok(store, "UPDATE findings SET verified = 0 WHERE id IN (%lld, %lld, %lld)", (long long)ids[0],
	       (long long)ids[1], (long long)sql_ids[1]);
	assert_int_equal(store_check_finish(store, check, "complete", 10, NULL, NULL), 0);

	assert_int_equal(history_checks(&checks, &count, store, at(tmp), 1), 0);
	assert_int_equal(count, 1);
	assert_int_equal(checks[0].id, check);
	assert_int_equal(checks[0].attention, 1);
	history_checks_free(checks, count);
	assert_int_equal(history_violations(&v, &count, store, check), 0);
	assert_int_equal(count, 1);
	assert_string_equal(v[0].rule_id, "sql");
	history_violations_free(v, count);

	/* The seed's 7 violations and one more; the seed's findings and sql's verified one. */
	assert_int_equal(history_stats(&st, store, at(tmp)), 0);
	assert_int_equal(st.violations, 8);
	assert_int_equal(st.unverified, 3);
	assert_rule(&st.rules[0], "errors", 3, 2, 4, 1);
	assert_int_equal(st.rules[0].unverified, 2);
	assert_rule(&st.rules[1], "sql", 3, 2, 4, 2);
	assert_int_equal(st.rules[1].unverified, 1);
	history_stats_release(&st);
	store_close(store);
}

static void test_fixes(void **state)
{
	static const int64_t order[] = { 6, 5, 4, 3, 2, 7, 1 };
	struct store *store = open_ok();
	struct history_fix *fixes = NULL;
	size_t count = 0, i;
	struct seed s;

	(void)state;
	history_seed(store, &s);
	assert_int_equal(history_fixes(&fixes, &count, store, at(tmp), NULL), 0);
	/* Newest fix check first; within one check, the later fix first. */
	assert_int_equal(count, 7);
	for (i = 0; i < count; i++)
		assert_int_equal(fixes[i].id, order[i]);
	/* F6: no time. */
	assert_false(fixes[0].timed);
	assert_string_equal(fixes[0].rule_id, "sql");
	assert_string_equal(fixes[0].rule_file, "threadlines/sql.md");
	assert_string_equal(fixes[0].fix_type, "CODE_CHANGE");
	assert_string_equal(fixes[0].method, "deterministic");
	assert_string_equal(fixes[0].explanation, "It was fixed.\nTwo lines.");
	assert_int_equal(fixes[0].violation_check_id, s.checks[3]);
	assert_int_equal(fixes[0].fix_check_id, s.checks[4]);
	assert_int_equal(fixes[0].nfiles, 2);
	assert_string_equal(fixes[0].files[0], "src/a.c");
	assert_string_equal(fixes[0].files[1], "src/b.c");
	assert_int_equal(fixes[0].feedback, HISTORY_FIX_UNRATED);
	assert_int_equal(fixes[0].created_ms, T0 + 40 * MINUTE + 5000);
	/* F5: 90000 s. */
	assert_true(fixes[1].timed);
	assert_int_equal(fixes[1].seconds, 90000);
	assert_string_equal(fixes[1].fix_type, "THREADLINE_DELETED");
	/* F2 was marked incorrect, then correct; F7 the other way round. */
	assert_int_equal(fixes[4].feedback, HISTORY_FIX_CORRECT);
	assert_int_equal(fixes[5].feedback, HISTORY_FIX_INCORRECT);
	history_fixes_free(fixes, count);

	/* F8 fixed a violation marked false positive since: not listed. */
	assert_int_equal(history_fixes(&fixes, &count, store, at(tmp), "sql"), 0);
	assert_int_equal(count, 2);
	assert_int_equal(fixes[0].id, 6);
	assert_int_equal(fixes[1].id, 3);
	history_fixes_free(fixes, count);
	assert_int_equal(history_fixes(&fixes, &count, store, at(tmp), "nosuch"), 0);
	assert_int_equal(count, 0);
	history_fixes_free(fixes, count);
	assert_int_equal(history_fixes(&fixes, &count, store, at("/elsewhere/other"), NULL), 0);
	assert_int_equal(count, 1);
	assert_int_equal(fixes[0].id, 9);
	assert_int_equal(fixes[0].nfiles, 0);
	assert_string_equal(fixes[0].method, "llm_analysis");
	history_fixes_free(fixes, count);
	store_close(store);
}

static void assert_violation(const struct history_violation *v, const char *rule, long findings,
			     int64_t fix_id, const char *fix_type)
{
	assert_string_equal(v->rule_id, rule);
	assert_int_equal(v->findings, findings);
	assert_int_equal(v->fix_id, fix_id);
	if (fix_type)
		assert_string_equal(v->fix_type, fix_type);
	else
		assert_null(v->fix_type);
}

static void test_violations(void **state)
{
	struct store *store = open_ok();
	struct history_violation *v = NULL;
	size_t count = 0;
	struct seed s;

	(void)state;
	history_seed(store, &s);
	/*
	 * C1: two violations; errors by F7 (marked incorrect: still its fix),
	 * no-todo by F1; sql's one finding was marked false positive: none.
	 */
	assert_int_equal(history_violations(&v, &count, store, s.checks[0]), 0);
	assert_int_equal(count, 2);
	assert_violation(&v[0], "errors", 2, 7, "CODE_CHANGE");
	assert_violation(&v[1], "no-todo", 1, 1, "CODE_CHANGE");
	assert_int_equal(v[1].fix_feedback, HISTORY_FIX_UNRATED);
	assert_int_equal(v[0].fix_feedback, HISTORY_FIX_INCORRECT);
	assert_int_equal(v[0].threadline_row, s.threadlines[0][0]);
	assert_string_equal(v[0].rule_file, "threadlines/errors.md");
	assert_string_equal(v[0].severity, "major");
	assert_null(v[0].reasoning);
	/* The reference and the findings' file are the same: once. */
	assert_int_equal(v[0].nfiles, 1);
	assert_string_equal(v[0].files[0], "src/a.c");
	assert_int_equal(v[0].id, int_of(store, "SELECT id FROM check_results WHERE "
					  "check_threadline_id = %lld", (long long)s.threadlines[0][0]));
	history_violations_free(v, count);

	/* C2: errors by F2, sql by F3. */
	assert_int_equal(history_violations(&v, &count, store, s.checks[1]), 0);
	assert_int_equal(count, 2);
	assert_violation(&v[0], "errors", 1, 2, "CODE_CHANGE");
	assert_violation(&v[1], "sql", 1, 3, "THREADLINE_CHANGED");
	assert_int_equal(v[0].fix_feedback, HISTORY_FIX_CORRECT);
	history_violations_free(v, count);

	/* C5 has none; an unknown check neither. */
	assert_int_equal(history_violations(&v, &count, store, s.checks[4]), 0);
	assert_int_equal(count, 0);
	assert_null(v);
	assert_int_equal(history_violations(&v, &count, store, 9999), 0);
	assert_int_equal(count, 0);
	store_close(store);
}

/* The most severe first; the findings' other files after the references; the latest fix. */
static void test_violations_order(void **state)
{
	struct store *store = open_ok();
	struct rule errors = rule_make("errors"), sql = rule_make("sql");
	struct history_violation *v = NULL;
	int64_t check, later, rows[2], ids[2];
	size_t count = 0;
	int i;

	(void)state;
	errors.severity = SEV_MINOR;
	sql.severity = SEV_CRITICAL;
	check = check_begin(store, tmp, T0);
	assert_int_equal(store_rule_add(store, &rows[0], check, &errors), 0);
	assert_int_equal(store_rule_add(store, &rows[1], check, &sql), 0);
	result_put(store, check, &errors, 'A', 2, ids);
	sql_ok(store, "UPDATE findings SET file = 'src/z.c' WHERE id = %lld", (long long)ids[1]);
	result_put(store, check, &sql, 'A', 1, ids);
	sql_ok(store, "UPDATE check_results SET reasoning = 'Because.' WHERE check_threadline_id = %lld",
	       (long long)rows[1]);
	assert_int_equal(store_check_finish(store, check, "complete", 1, NULL, NULL), 0);
	/* Fix detection ran twice for sql: against two later checks. */
	for (i = 0; i < 2; i++) {
		later = check_begin(store, tmp, T0 + (i + 1) * MINUTE);
		assert_int_equal(store_check_finish(store, later, "complete", 1, NULL, NULL), 0);
		sql_ok(store, "INSERT INTO violation_fixes (violation_check_id, fix_check_id, "
		       "violation_threadline_id, threadline_id, threadline_file_path, fix_type, "
		       "explanation, created_at) VALUES (%lld, %lld, %lld, 'sql', 'threadlines/sql.md', "
		       "%Q, 'x', %lld)", (long long)check, (long long)later, (long long)rows[1],
		       i ? "THREADLINE_DELETED" : "CODE_CHANGE", (long long)T0);
	}
	assert_int_equal(history_violations(&v, &count, store, check), 0);
	assert_int_equal(count, 2);
	assert_violation(&v[0], "sql", 1, 2, "THREADLINE_DELETED");
	assert_string_equal(v[0].severity, "critical");
	assert_string_equal(v[0].reasoning, "Because.");
	assert_violation(&v[1], "errors", 2, 0, NULL);
	assert_string_equal(v[1].severity, "minor");
	assert_int_equal(v[1].nfiles, 2);
	assert_string_equal(v[1].files[0], "src/a.c");
	assert_string_equal(v[1].files[1], "src/z.c");
	history_violations_free(v, count);
	store_close(store);
}

static void test_fix_lookup(void **state)
{
	struct store *store = open_ok();
	struct history_fix *fix = NULL;
	struct seed s;

	(void)state;
	history_seed(store, &s);
	assert_int_equal(history_fix_lookup(&fix, store, 5), 0);
	assert_int_equal(fix->id, 5);
	assert_string_equal(fix->rule_id, "errors");
	assert_string_equal(fix->fix_type, "THREADLINE_DELETED");
	assert_int_equal(fix->violation_check_id, s.checks[3]);
	assert_int_equal(fix->fix_check_id, s.checks[4]);
	assert_true(fix->timed);
	assert_int_equal(fix->seconds, 90000);
	assert_int_equal(fix->nfiles, 2);
	assert_int_equal(fix->feedback, HISTORY_FIX_UNRATED);
	history_fixes_free(fix, 1);
	/* The feedback in force: F7 was marked correct, then incorrect. */
	assert_int_equal(history_fix_lookup(&fix, store, 7), 0);
	assert_int_equal(fix->feedback, HISTORY_FIX_INCORRECT);
	history_fixes_free(fix, 1);
	assert_int_equal(history_fix_lookup(&fix, store, 99), RL_ENOTFOUND);
	assert_null(fix);
	assert_non_null(strstr(error_message(), "no fix 99"));
	store_close(store);
}

/* A change is this connection's writes or another process's commits, not reads. */
static void test_changed(void **state)
{
	struct store *store = open_ok();
	struct history_version version = { 0, 0 };
	struct history_check *checks = NULL;
	struct store *other;
	size_t count = 0;

	(void)state;
	history_changed(&version, store);
	assert_false(history_changed(&version, store));
	assert_int_equal(history_checks(&checks, &count, store, at(tmp), 0), 0);
	history_checks_free(checks, count);
	assert_false(history_changed(&version, store));
	check_begin(store, tmp, T0);
	assert_true(history_changed(&version, store));
	assert_false(history_changed(&version, store));

	/* Another connection's commit. */
	other = open_ok();
	test_store_exec(other, "UPDATE checks SET branch = 'other'", 0);
	store_close(other);
	assert_true(history_changed(&version, store));
	assert_false(history_changed(&version, store));
	store_close(store);
}

static void test_times(void **state)
{
	int64_t twenty[20], one[] = { 42 }, mixed[] = { 86400, -5, 299, 300, 3599, 3600, 86399 };
	struct history_stats st = { 0 };
	int i;

	(void)state;
	history_times(&st, NULL, 0);
	assert_int_equal(st.timed, 0);
	assert_near(st.average_seconds, 0);
	assert_int_equal(st.p95_seconds, 0);
	/* 1..20 in reverse: 95% of 20 is 19 values, so p95 is the 19th smallest. */
	for (i = 0; i < 20; i++)
		twenty[i] = 20 - i;
	history_times(&st, twenty, 20);
	assert_int_equal(st.p95_seconds, 19);
	assert_near(st.average_seconds, 10.5);
	history_times(&st, one, 1);
	assert_int_equal(st.p95_seconds, 42);
	/* The bucket edges, and a negative time in the first. */
	history_times(&st, mixed, 7);
	assert_int_equal(st.buckets[BUCKET_5MIN], 2);
	assert_int_equal(st.buckets[BUCKET_1H], 2);
	assert_int_equal(st.buckets[BUCKET_24H], 2);
	assert_int_equal(st.buckets[BUCKET_MORE], 1);
	assert_int_equal(st.p95_seconds, 86400);
}

static void test_duration_text(void **state)
{
	static const struct { double seconds; const char *text; } cases[] = {
		{ 0, "0 s" }, { 45, "45 s" }, { 59.4, "59 s" }, { 59.6, "1 min" }, { 200, "3 min" },
		{ 240, "4 min" }, { 3569, "59 min" }, { 3599, "1 h" }, { 4000, "1.1 h" },
		{ 9000, "2.5 h" }, { 18932, "5.3 h" }, { 86399, "24 h" }, { 90000, "1 d" },
		{ 129600, "1.5 d" }, { -3, "0 s" },
	};
	char text[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		history_duration_text(text, sizeof(text), cases[i].seconds);
		assert_string_equal(text, cases[i].text);
	}
}

static void test_repo_key(void **state)
{
	char *key;

	(void)state;
	key = history_repo_key("/home/me/repo/");
	assert_string_equal(key, "/home/me/repo");
	free(key);
	key = history_repo_key("/home/me/repo");
	assert_string_equal(key, "/home/me/repo");
	free(key);
	key = history_repo_key("/");
	assert_string_equal(key, "/");
	free(key);
}

/* Field 22 of /proc/PID/stat, read here independently of the store. */
static int64_t start_time_of(pid_t pid)
{
	unsigned long long start = 0;
	struct buf text = BUF_INIT;
	char path[64];
	const char *p;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (buf_read_file(&text, path) < 0)
		fail_msg("cannot read %s", path);
	p = strrchr(text.ptr, ')');
	assert_non_null(p);
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
		   "%*d %*d %llu", &start) != 1)
		fail_msg("cannot parse %s", text.ptr);
	buf_release(&text);
	return (int64_t)start;
}

static const char *status_of(struct store *store, int64_t check)
{
	static char status[32];
	char *text = text_of(store, "SELECT status FROM checks WHERE id = :id", check);

	snprintf(status, sizeof(status), "%s", text);
	free(text);
	return status;
}

/* A child that waits for its pipe to close. */
static pid_t sleeper(int *fd)
{
	int gate[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(gate), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(gate[1]);
		if (read(gate[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(gate[0]);
	*fd = gate[1];
	return pid;
}

static void test_mark_interrupted(void **state)
{
	struct store *store = open_ok();
	int64_t ours, dead, no_pid, reused, finished, alive, now;
	pid_t child, other;
	size_t count = 99;
	int status, fd;

	(void)state;
	/* A check records this process and when it started. */
	ours = check_begin(store, tmp, 0);
	assert_int_equal(int_of(store, "SELECT pid FROM checks WHERE id = %lld", (long long)ours), getpid());
	assert_int_equal(int_of(store, "SELECT pid_start FROM checks WHERE id = %lld", (long long)ours),
			 start_time_of(getpid()));

	/* A child that has exited and been reaped: its pid names no process. */
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	assert_int_equal(waitpid(child, &status, 0), child);
	dead = check_begin(store, tmp, 0);
	sql_ok(store, "UPDATE checks SET pid = %d WHERE id = %lld", (int)child, (long long)dead);
	/* No pid at all (a check from schema version 1). */
	no_pid = check_begin(store, tmp, 0);
	sql_ok(store, "UPDATE checks SET pid = NULL, pid_start = NULL WHERE id = %lld", (long long)no_pid);
	/* Our pid with another start time: the pid was reused by us. */
	reused = check_begin(store, tmp, 0);
	sql_ok(store, "UPDATE checks SET pid_start = pid_start + 1 WHERE id = %lld", (long long)reused);
	/* A finished check of a dead process is left alone. */
	finished = check_begin(store, tmp, 0);
	sql_ok(store, "UPDATE checks SET pid = %d WHERE id = %lld", (int)child, (long long)finished);
	assert_int_equal(store_check_finish(store, finished, "complete", 1, NULL, NULL), 0);
	/* Another live process. */
	other = sleeper(&fd);
	alive = check_begin(store, tmp, 0);
	sql_ok(store, "UPDATE checks SET pid = %d, pid_start = %lld WHERE id = %lld", (int)other,
	       (long long)start_time_of(other), (long long)alive);

	now = (int64_t)time(NULL) * 1000;
	assert_int_equal(store_mark_interrupted(store, &count), 0);
	assert_int_equal(count, 3);
	assert_string_equal(status_of(store, ours), "running");
	assert_string_equal(status_of(store, alive), "running");
	assert_string_equal(status_of(store, dead), "interrupted");
	assert_string_equal(status_of(store, no_pid), "interrupted");
	assert_string_equal(status_of(store, reused), "interrupted");
	assert_string_equal(status_of(store, finished), "complete");
	assert_in_range(int_of(store, "SELECT finished_at FROM checks WHERE id = %lld", (long long)dead),
			now - 60000, now + 60000);
	assert_int_equal(int_of(store, "SELECT count(*) FROM checks WHERE finished_at IS NULL"), 2);
	assert_int_equal(store_mark_interrupted(store, &count), 0);
	assert_int_equal(count, 0);

	/* The other process ends: the next open marks its check. */
	close(fd);
	assert_int_equal(waitpid(other, &status, 0), other);
	store_close(store);
	store = open_ok();
	assert_string_equal(status_of(store, alive), "interrupted");
	assert_string_equal(status_of(store, ours), "running");
	store_close(store);
}

/* An interrupted check in history: what it had, no duration. */
static void test_interrupted_in_history(void **state)
{
	struct store *store = open_ok();
	struct rule errors = rule_make("errors");
	struct history_check *checks = NULL;
	int64_t check, threadline = 0, ids[2];
	size_t count = 0;

	(void)state;
	check = check_begin(store, tmp, T0);
	assert_int_equal(store_rule_add(store, &threadline, check, &errors), 0);
	result_put(store, check, &errors, 'A', 2, ids);
	sql_ok(store, "UPDATE checks SET pid = NULL WHERE id = %lld", (long long)check);
	store_close(store);
	store = open_ok();
	assert_int_equal(history_checks(&checks, &count, store, at(tmp), 0), 0);
	assert_int_equal(count, 1);
	assert_string_equal(checks[0].status, "interrupted");
	assert_int_equal(checks[0].rules, 1);
	assert_int_equal(checks[0].attention, 1);
	assert_int_equal(checks[0].findings, 2);
	assert_int_equal(checks[0].duration_ms, -1);
	assert_true(checks[0].finished_ms > 0);
	history_checks_free(checks, count);
	store_close(store);
}

/* A settled result of rule with what it billed; cached: from revline's cache. */
static void usage_put(struct store *store, int64_t check, const struct rule *rule, bool cached,
		      long in, long cached_in, long out, double cost)
{
	int64_t threadline = 0;
	struct rule_result res = {
		.rule = rule, .status = RULE_COMPLIANT, .cached = cached, .tokens_in = in,
		.tokens_cached = cached_in, .tokens_out = out, .cost_usd = cost,
	};

	assert_int_equal(store_rule_add(store, &threadline, check, rule), 0);
	res.id = threadline;
	if (store_result_put(store, check, &res) < 0)
		fail_msg("store_result_put: %s", error_message());
}

static void assert_cost(double actual, double expected)
{
	if (actual < expected - 1e-12 || actual > expected + 1e-12)
		fail_msg("cost %.12f, expected %.12f", actual, expected);
}

/*
 * What checks billed: a finished check's totals as stored; a running one's
 * summed from its results, those from revline's cache left out; a cost not
 * known makes the check's unknown, and is counted apart in the total.
 *
 *     A  complete  10,000 in (8,000 cached), 500 out, $0.002
 *     B  complete  3,000 in (1,000 cache writes), 100 out, cost not known
 *     C  complete  nothing billed (finished without statistics)
 *     D  running   errors: 400 in (100 cached), 40 out, $0.0001; sql: cached (999 in, 99 out)
 *     E  running   errors: 50 in, 5 out, cost not known
 */
static void test_usage(void **state)
{
	struct store *store = open_ok();
	struct rule errors = rule_make("errors"), sql = rule_make("sql");
	struct check_stats a = { .requests = 3, .tokens_in = 10000, .tokens_cached = 8000,
				 .tokens_out = 500, .cost_usd = 0.002 };
	struct check_stats b = { .requests = 1, .tokens_in = 3000, .tokens_cache_write = 1000,
				 .tokens_out = 100, .cost_usd = -1 };
	struct history_check *checks = NULL;
	struct history_stats st;
	int64_t id[5];
	size_t count = 0;
	int i;

	(void)state;
	for (i = 0; i < 5; i++)
		id[i] = check_begin(store, tmp, T0 + i * MINUTE);
	assert_int_equal(store_check_finish(store, id[0], "complete", 1, &a, NULL), 0);
	assert_int_equal(store_check_finish(store, id[1], "complete", 1, &b, NULL), 0);
	assert_int_equal(store_check_finish(store, id[2], "complete", 1, NULL, NULL), 0);
	usage_put(store, id[3], &errors, false, 400, 100, 40, 0.0001);
	usage_put(store, id[3], &sql, true, 999, 0, 99, 0.5);
	usage_put(store, id[4], &errors, false, 50, 0, 5, -1);

	assert_int_equal(history_checks(&checks, &count, store, at(tmp), 0), 0);
	assert_int_equal(count, 5);
	/* Newest first: E, D, C, B, A. */
	assert_string_equal(checks[0].status, "running");
	assert_int_equal(checks[0].usage.tokens_in, 50);
	assert_true(checks[0].usage.cost_usd < 0);
	assert_int_equal(checks[1].usage.tokens_in, 400);
	assert_int_equal(checks[1].usage.tokens_cached, 100);
	assert_int_equal(checks[1].usage.tokens_out, 40);
	assert_cost(checks[1].usage.cost_usd, 0.0001);
	assert_int_equal(checks[2].usage.tokens_in, 0);
	assert_true(checks[2].usage.cost_usd < 0);
	assert_false(usage_billed(&checks[2].usage));
	assert_int_equal(checks[3].usage.tokens_in, 3000);
	assert_int_equal(checks[3].usage.tokens_cache_write, 1000);
	assert_int_equal(checks[3].usage.tokens_out, 100);
	assert_true(checks[3].usage.cost_usd < 0);
	assert_int_equal(checks[4].usage.tokens_in, 10000);
	assert_int_equal(checks[4].usage.tokens_cached, 8000);
	assert_int_equal(checks[4].usage.tokens_cache_write, 0);
	assert_int_equal(checks[4].usage.tokens_out, 500);
	assert_cost(checks[4].usage.cost_usd, 0.002);
	history_checks_free(checks, count);

	/* The total: the known costs of A and D; B and E billed at a cost not known. */
	assert_int_equal(history_stats(&st, store, at(tmp)), 0);
	assert_int_equal(st.usage.tokens_in, 10000 + 3000 + 400 + 50);
	assert_int_equal(st.usage.tokens_cached, 8000 + 100);
	assert_int_equal(st.usage.tokens_cache_write, 1000);
	assert_int_equal(st.usage.tokens_out, 500 + 100 + 40 + 5);
	assert_cost(st.usage.cost_usd, 0.0021);
	assert_int_equal(st.unpriced, 2);
	history_stats_release(&st);

	/* Once no check that billed knows its cost, neither does the total. */
	sql_ok(store, "UPDATE checks SET cost_usd = NULL WHERE id = %lld", (long long)id[0]);
	sql_ok(store, "UPDATE check_results SET cost_usd = NULL");
	assert_int_equal(history_stats(&st, store, at(tmp)), 0);
	assert_true(st.usage.cost_usd < 0);
	assert_int_equal(st.unpriced, 4);
	history_stats_release(&st);

	/* A repository without checks billed nothing, at no cost. */
	assert_int_equal(history_stats(&st, store, at("/never/seen")), 0);
	assert_int_equal(st.usage.tokens_in, 0);
	assert_cost(st.usage.cost_usd, 0);
	assert_int_equal(st.unpriced, 0);
	history_stats_release(&st);
	store_close(store);
}

/*
 * A team's store: two clones of one repository (reached by ssh and by
 * https: one remote), by two authors, and another repository. --repo finds
 * both clones' checks, fixes and figures; --author one person's; the
 * default stays this clone's.
 */
static void test_scope(void **state)
{
	struct store *store = open_ok();
	struct history_check *checks = NULL;
	struct history_stats st = { 0 };
	struct history_fix *fixes = NULL;
	struct rule rule = rule_make(rule_ids[0]);
	struct check_record r = { .branch = "main", .diff = "", .created_ms = 1000 };
	const struct { const char *path, *remote, *author; char status; } made[] = {
		{ "/home/alice/proj", "github.com/org/proj", "alice@example.com", 'A' },
		{ "/home/alice/proj", "github.com/org/proj", "alice@example.com", 'C' },
		{ "/home/bob/proj", "github.com/org/proj", "bob@example.com", 'A' },
		{ "/home/bob/other", "github.com/org/other", "bob@example.com", 'A' },
	};
	struct history_scope team = { .path = "/home/alice/proj", .remote = "github.com/org/proj" };
	int64_t ids[4], id = 0, finding[1];
	size_t i, count = 0;

	(void)state;
	for (i = 0; i < 4; i++) {
		r.repo_path = made[i].path;
		r.remote = made[i].remote;
		r.created_ms = 1000 * (int64_t)(i + 1);
		if (store_check_begin(store, &ids[i], &r) < 0)
			fail_msg("store_check_begin: %s", error_message());
		if (store_rule_add(store, &id, ids[i], &rule) < 0)
			fail_msg("store_rule_add: %s", error_message());
		result_put(store, ids[i], &rule, made[i].status, made[i].status == 'A', finding);
	}
	sql_ok(store, "UPDATE checks SET author = CASE WHEN repo_id IN (SELECT id FROM repos WHERE "
	       "path LIKE '/home/alice/%%') THEN 'alice@example.com' ELSE 'bob@example.com' END");
	sql_ok(store, "INSERT INTO violation_fixes (violation_check_id, fix_check_id, violation_threadline_id, "
	       "threadline_id, threadline_file_path, fix_type, explanation, created_at) SELECT %lld, %lld, "
	       "t.id, t.threadline_id, 'threadlines/x.md', 'CODE_CHANGE', 'fixed', 0 FROM check_threadlines t "
	       "WHERE t.check_id = %lld", (long long)ids[0], (long long)ids[1], (long long)ids[0]);

	assert_int_equal(history_checks(&checks, &count, store, at("/home/alice/proj"), 0), 0);
	assert_int_equal(count, 2);
	history_checks_free(checks, count);
	assert_int_equal(history_checks(&checks, &count, store, &team, 0), 0);
	assert_int_equal(count, 3);
	assert_int_equal(checks[0].id, ids[2]);
	assert_string_equal(checks[0].author, "bob@example.com");
	assert_string_equal(checks[0].path, "/home/bob/proj");
	history_checks_free(checks, count);
	team.author = "bob@example.com";
	assert_int_equal(history_checks(&checks, &count, store, &team, 0), 0);
	assert_int_equal(count, 1);
	history_checks_free(checks, count);
	assert_int_equal(history_fixes(&fixes, &count, store, &team, NULL), 0);
	assert_int_equal(count, 0);
	team.author = "alice@example.com";
	assert_int_equal(history_fixes(&fixes, &count, store, &team, NULL), 0);
	assert_int_equal(count, 1);
	history_fixes_free(fixes, count);

	team.author = NULL;
	assert_int_equal(history_stats(&st, store, &team), 0);
	assert_int_equal(st.checks, 3);
	assert_int_equal(st.violations, 2);
	assert_int_equal(st.fixes, 1);
	history_stats_release(&st);
	memset(&st, 0, sizeof(st));
	team.author = "bob@example.com";
	assert_int_equal(history_stats(&st, store, &team), 0);
	assert_int_equal(st.checks, 1);
	assert_int_equal(st.violations, 1);
	assert_int_equal(st.fixes, 0);
	history_stats_release(&st);
	store_close(store);
}

int main(void)
{
	if (test_store_skip())
		return PG_SKIP;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unverified, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fixes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_violations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_violations_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fix_lookup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed, setup, teardown),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_duration_text),
		cmocka_unit_test(test_repo_key),
		cmocka_unit_test_setup_teardown(test_mark_interrupted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interrupted_in_history, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scope, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
