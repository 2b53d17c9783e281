/*
 * What fix detection reads and writes in the store (store_violations.h),
 * on a real SQLite file: the previous consecutive check, a check's
 * violations and their files, a rule as a check stored it, fixes kept and
 * dropped, and the runs.
 */
#include "testlib.h"
#include "testlib/store.h"

#include "finding.h"
#include "result.h"
#include "rules.h"
#include "status.h"
#include "store.h"
#include "store_sql.h"
#include "store_backend.h"
#include "store_violations.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *tmp;               /* a fresh directory for each test: also the repository's path */
static struct store *store;     /* a new database: a file in it, or on PostgreSQL (testlib/store.h) */
static char *where;             /* its location */

static int setup(void **state)
{
	(void)state;
	tmp = test_tmpdir("store_violations");
	where = test_store_location(tmp, "revline.db");
	store = test_store_open(where);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	store_close(store);
	store = NULL;
	free(where);
	where = NULL;
	test_rmtree(tmp);
	free(tmp);
	tmp = NULL;
	return 0;
}

static int64_t check_new(const char *branch, const char *environment, int64_t created_ms)
{
	struct check_record r = { .repo_path = tmp, .branch = branch, .environment = environment,
				  .target = "working tree", .created_ms = created_ms };
	int64_t check = 0;

	if (store_check_begin(store, &check, &r) < 0)
		fail_msg("store_check_begin: %s", error_message());
	return check;
}

static char *c_patterns[] = { "*.c", "src/**", "*.c" };

static struct rule rule_of(const char *id, const char *path)
{
	return (struct rule){ .id = (char *)id, .name = (char *)id, .version = "2", .severity = SEV_MAJOR,
			      .kind = RULE_LLM, .content = "# rule\n", .path = (char *)path,
			      .source = "--rules", .patterns = c_patterns, .npatterns = 3 };
}

static struct finding finding_of(const char *rule, const char *file, const char *title)
{
	struct finding f = { .rule_id = (char *)rule, .file = (char *)file, .line = 3, .end_line = 3,
			     .severity = SEV_MAJOR, .title = (char *)title, .issue = "issue", .verified = true,
			     .evidence = { .code_examined = (char *)title } };

	finding_fingerprint(&f);
	return f;
}

/* A rule of a check and its settled result; returns its row. */
static int64_t result_new(int64_t check, const struct rule *rule, enum rule_status status,
			  char **refs, size_t nrefs, struct finding *findings, size_t nfindings)
{
	struct rule_result r = { .rule = rule, .status = status, .reasoning = "because",
				 .file_references = refs, .nrefs = nrefs, .findings = findings,
				 .nfindings = nfindings, .cost_usd = -1 };

	if (store_rule_add(store, &r.id, check, rule) < 0 || store_result_put(store, check, &r) < 0)
		fail_msg("storing %s: %s", rule->id, error_message());
	return r.id;
}

static int64_t int_of(const char *sql, int64_t id)
{
	return test_store_int(store, sql, id);
}

static char *text_of(const char *sql, int64_t id)
{
	return test_store_text(store, sql, id);
}

/* The previous check is the latest before on the same branch and environment; a tie goes by id. */
static void test_check_pair(void **state)
{
	int64_t first = check_new("main", NULL, 1000);
	int64_t other_branch = check_new("topic", NULL, 1500);
	int64_t same_time_before = check_new("main", NULL, 2000);
	int64_t ci = check_new("main", "ci", 1800);
	int64_t now = check_new("main", NULL, 2000);
	struct check_pair pair;

	(void)state;
	(void)other_branch;
	(void)ci;
	assert_int_equal(store_check_pair(&pair, store, now), 0);
	assert_int_equal(pair.previous_id, same_time_before);
	assert_int_equal(pair.previous_ms, 2000);
	assert_int_equal(pair.created_ms, 2000);
	assert_string_equal(pair.environment, "local");
	assert_string_equal(pair.workdir, tmp);
	check_pair_release(&pair);

	assert_int_equal(store_check_pair(&pair, store, same_time_before), 0);
	assert_int_equal(pair.previous_id, first);
	assert_int_equal(pair.previous_ms, 1000);
	check_pair_release(&pair);

	assert_int_equal(store_check_pair(&pair, store, first), 0);
	assert_int_equal(pair.previous_id, 0);
	check_pair_release(&pair);

	assert_int_equal(store_check_pair(&pair, store, now + 100), RL_ENOTFOUND);
	assert_null(pair.environment);
	assert_non_null(strstr(error_message(), "no check"));
}

/*
 * Attention results only, by rule id, with their references and then their
 * verified findings' files, each once. A result whose findings revline could not
 * verify (all hidden as unverified) is no violation; one verified finding
 * among unverified ones makes it one.
 */
static void test_violations_of_check(void **state)
{
	struct rule a = rule_of("a-rule", "rules/a.md"), b = rule_of("b-rule", "rules/b.md"),
		    c = rule_of("c-rule", "rules/c.md"), d = rule_of("d-rule", "rules/d.md");
	char *refs[] = { "x.c", "y.c", "x.c" };
	struct finding fa[] = { finding_of("a-rule", "z.c", "one"), finding_of("a-rule", "y.c", "two"),
				finding_of("a-rule", NULL, "three"), finding_of("a-rule", "w.c", "four") };
	struct finding fd[] = { finding_of("d-rule", "z.c", "made up"), finding_of("d-rule", "y.c", "also") };
	int64_t check = check_new("main", NULL, 1000), empty = check_new("main", NULL, 2000), row_a, row_c;
	struct stored_violation *v = NULL;
	size_t n = 99;

	(void)state;
	fa[2].verified = fa[3].verified = false;
	fd[0].verified = fd[1].verified = false;
	row_c = result_new(check, &c, RULE_ATTENTION, NULL, 0, NULL, 0);
	result_new(check, &b, RULE_COMPLIANT, refs, 1, NULL, 0);
	row_a = result_new(check, &a, RULE_ATTENTION, refs, 3, fa, 4);
	result_new(check, &d, RULE_ATTENTION, NULL, 0, fd, 2);

	assert_int_equal(store_violations_of_check(&v, &n, store, check), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].threadline_row, row_a);
	assert_string_equal(v[0].rule_id, "a-rule");
	assert_string_equal(v[0].rule_path, "rules/a.md");
	assert_string_equal(v[0].rule_version, "2");
	assert_string_equal(v[0].reasoning, "because");
	assert_int_equal(v[0].nfiles, 3);
	assert_string_equal(v[0].files[0], "x.c");
	assert_string_equal(v[0].files[1], "y.c");
	assert_string_equal(v[0].files[2], "z.c");
	assert_int_equal(v[1].threadline_row, row_c);
	assert_int_equal(v[1].nfiles, 0);
	stored_violations_free(v, n);

	assert_int_equal(store_violations_of_check(&v, &n, store, empty), 0);
	assert_int_equal(n, 0);
	assert_null(v);
}

/* Patterns as stored (order and repeats kept), its result, its verified findings' fingerprints each once. */
static void test_rule_in_check(void **state)
{
	struct rule a = rule_of("a-rule", "rules/a.md"), unsettled = rule_of("u-rule", "rules/u.md");
	struct finding fa[] = { finding_of("a-rule", "z.c", "one"), finding_of("a-rule", "z.c", "one"),
				finding_of("a-rule", "y.c", "two"), finding_of("a-rule", "y.c", "unverified") };
	int64_t check = check_new("main", NULL, 1000), row, urow = 0;
	struct stored_rule r;

	(void)state;
	fa[3].verified = false;
	row = result_new(check, &a, RULE_ATTENTION, NULL, 0, fa, 4);
	assert_int_equal(store_rule_add(store, &urow, check, &unsettled), 0);

	assert_int_equal(store_rule_in_check(&r, store, check, "a-rule", "rules/a.md"), 0);
	assert_true(r.present);
	assert_int_equal(r.row, row);
	assert_string_equal(r.content, "# rule\n");
	assert_string_equal(r.status, "attention");
	assert_int_equal(r.patterns.count, 3);
	assert_string_equal(r.patterns.items[0], "*.c");
	assert_string_equal(r.patterns.items[1], "src/**");
	assert_string_equal(r.patterns.items[2], "*.c");
	assert_int_equal(r.fingerprints.count, 2);
	assert_true(strings_has(&r.fingerprints, fa[0].fingerprint));
	assert_true(strings_has(&r.fingerprints, fa[2].fingerprint));
	stored_rule_release(&r);

	/* Found by id and path both: the same id from another file is another rule. */
	assert_int_equal(store_rule_in_check(&r, store, check, "a-rule", "rules/other.md"), 0);
	assert_false(r.present);
	assert_int_equal(r.patterns.count, 0);
	assert_int_equal(r.fingerprints.count, 0);
	stored_rule_release(&r);

	assert_int_equal(store_rule_in_check(&r, store, check, "u-rule", "rules/u.md"), 0);
	assert_true(r.present);
	assert_int_equal(r.row, urow);
	assert_null(r.status);
	assert_int_equal(r.fingerprints.count, 0);
	stored_rule_release(&r);
}

/* A fix found again replaces the first (same row); a violation found not fixed loses it. */
static void test_fix_put_and_drop(void **state)
{
	struct rule a = rule_of("a-rule", "rules/a.md");
	char *refs[] = { "x.c" };
	int64_t before = check_new("main", NULL, 1000), after = check_new("main", NULL, 61000);
	int64_t id = 0, again = 0;
	struct stored_violation *v = NULL;
	struct fix_record fix;
	size_t n = 0;
	char *text;

	(void)state;
	result_new(before, &a, RULE_ATTENTION, refs, 1, NULL, 0);
	assert_int_equal(store_violations_of_check(&v, &n, store, before), 0);
	assert_int_equal(n, 1);
	fix = (struct fix_record){
		.violation_check = before, .fix_check = after, .threadline_row = v->threadline_row,
		.rule_id = v->rule_id, .rule_path = v->rule_path, .rule_version = v->rule_version,
		.files = v->files, .nfiles = v->nfiles, .fix_type = "CODE_CHANGE",
		.explanation = "guarded", .method = "llm_analysis", .seconds = 60,
	};
	assert_int_equal(store_fix_put(&id, store, &fix), 0);
	assert_true(id > 0);
	assert_int_equal(int_of("SELECT time_between_checks_seconds FROM violation_fixes WHERE id = :id", id), 60);
	text = text_of("SELECT file_references FROM violation_fixes WHERE id = :id", id);
	assert_string_equal(text, "[\"x.c\"]");
	free(text);

	fix.fix_type = "THREADLINE_CHANGED";
	fix.method = "deterministic";
	assert_int_equal(store_fix_put(&again, store, &fix), 0);
	assert_int_equal(again, id);
	text = text_of("SELECT fix_type || ' ' || detection_method FROM violation_fixes WHERE id = :id", id);
	assert_string_equal(text, "THREADLINE_CHANGED deterministic");
	free(text);
	assert_int_equal(int_of("SELECT count(*) FROM violation_fixes WHERE fix_check_id = :id", after), 1);

	assert_int_equal(store_fix_drop(store, after, v->threadline_row), 0);
	assert_int_equal(int_of("SELECT count(*) FROM violation_fixes WHERE fix_check_id = :id", after), 0);
	/* Nothing to drop is no failure. */
	assert_int_equal(store_fix_drop(store, after, v->threadline_row), 0);

	/* A fix of a check that does not exist breaks a reference: the store says so, naming itself. */
	fix.fix_check = after + 100;
	assert_true(store_fix_put(&id, store, &fix) < 0);
	assert_int_equal(id, 0);
	assert_non_null(strstr(error_message(), store_path(store)));
	stored_violations_free(v, n);
}

/* A run is running from its begin, with this process, and has its figures from its finish. */
static void test_detection_run(void **state)
{
	int64_t first = check_new("main", NULL, 1000), second = check_new("main", NULL, 2000), run = 0;
	const struct detection_figures figures = {
		.status = "done", .violations = 3, .analysed = 3, .detected = 1, .deterministic = 1,
		.calls = 2, .errors = 1, .error_log = "[\"a-rule: failed\"]", .started_ms = 0,
	};
	char *text;

	(void)state;
	assert_int_equal(store_detection_begin(&run, store, first, 0, false), 0);
	assert_true(run > 0);
	assert_int_equal(int_of("SELECT previous_check_id IS NULL AND status = 'running' AND pid > 0 "
				"FROM fix_detection_runs WHERE id = :id", run), 1);
	assert_int_equal(store_detection_finish(store, run, &(struct detection_figures){ .status = "done" }), 0);
	text = text_of("SELECT error_log FROM fix_detection_runs WHERE id = :id", run);
	assert_string_equal(text, "[]");
	free(text);

	assert_int_equal(store_detection_begin(&run, store, second, first, false), 0);
	assert_int_equal(int_of("SELECT previous_check_id FROM fix_detection_runs WHERE id = :id", run), first);
	assert_int_equal(store_detection_finish(store, run, &figures), 0);
	text = text_of("SELECT status || ' ' || violations || ' ' || analysed || ' ' || detected || ' ' || "
		       "deterministic || ' ' || llm_calls || ' ' || errors || ' ' || error_log "
		       "FROM fix_detection_runs WHERE id = :id", run);
	assert_string_equal(text, "done 3 3 1 1 2 1 [\"a-rule: failed\"]");
	free(text);
	assert_true(int_of("SELECT finished_at FROM fix_detection_runs WHERE id = :id", run) > 0);
	assert_true(int_of("SELECT duration_ms FROM fix_detection_runs WHERE id = :id", run) > 0);
}

/*
 * The previous check is this clone's: a check another machine stored at
 * the same path (a team's store) is not compared with; one from before
 * version 7 (no host) still is.
 */
static void test_check_pair_same_clone(void **state)
{
	int64_t legacy = check_new("main", NULL, 1000), mine = check_new("main", NULL, 2000);
	int64_t theirs = check_new("main", NULL, 3000), now = check_new("main", NULL, 4000);
	struct check_pair pair;

	(void)state;
	assert_int_equal(int_of("SELECT CASE WHEN host IS NOT NULL AND host <> '' THEN 1 ELSE 0 END "
				"FROM checks WHERE id = :id", mine), 1);
	test_store_exec(store, "UPDATE checks SET host = 'elsewhere' WHERE id = :id", theirs);
	test_store_exec(store, "UPDATE checks SET host = NULL WHERE id = :id", legacy);
	assert_int_equal(store_check_pair(&pair, store, now), 0);
	assert_int_equal(pair.previous_id, mine);
	check_pair_release(&pair);
	assert_int_equal(store_check_pair(&pair, store, mine), 0);
	assert_int_equal(pair.previous_id, legacy);
	check_pair_release(&pair);
	/* The other machine's next check compares with its own. */
	assert_int_equal(store_check_pair(&pair, store, theirs), 0);
	assert_int_equal(pair.previous_id, legacy);
	check_pair_release(&pair);
}

/*
 * Claimed, a pair runs once: a second client racing for it (another
 * connection to the same database) gets no run while the first runs and
 * after it is done; a failed run gives the claim up; a claim an hour old
 * without a run done is taken over. By hand (no claim) it always runs.
 */
static void test_detection_claim(void **state)
{
	int64_t first = check_new("main", NULL, 1000), second = check_new("main", NULL, 2000);
	int64_t run = 0, other_run = 0;
	struct store *other = test_store_open(where);

	(void)state;
	assert_int_equal(store_detection_begin(&run, store, second, first, true), 0);
	assert_true(run > 0);
	assert_int_equal(store_detection_begin(&other_run, other, second, first, true), 0);
	assert_int_equal(other_run, 0);
	assert_int_equal(store_detection_finish(store, run, &(struct detection_figures){ .status = "done" }), 0);
	assert_int_equal(store_detection_begin(&other_run, other, second, first, true), 0);
	assert_int_equal(other_run, 0);
	assert_int_equal(int_of("SELECT count(*) FROM fix_detection_runs WHERE check_id = :id", second), 1);
	assert_int_equal(int_of("SELECT run_id FROM fix_detection_claims WHERE check_id = :id", second), run);

	/* By hand. */
	assert_int_equal(store_detection_begin(&other_run, other, second, first, false), 0);
	assert_true(other_run > run);
	assert_int_equal(store_detection_finish(other, other_run, &(struct detection_figures){ .status = "failed" }), 0);
	/* A failed run by hand held no claim: the done one's stays. */
	assert_int_equal(int_of("SELECT run_id FROM fix_detection_claims WHERE check_id = :id", second), run);

	/* A failed run gives its claim up. */
	test_store_exec(store, "DELETE FROM fix_detection_claims WHERE check_id = :id", second);
	assert_int_equal(store_detection_begin(&run, store, second, first, true), 0);
	assert_true(run > 0);
	assert_int_equal(store_detection_finish(store, run, &(struct detection_figures){ .status = "failed" }), 0);
	assert_int_equal(int_of("SELECT count(*) FROM fix_detection_claims WHERE check_id = :id", second), 0);
	assert_int_equal(store_detection_begin(&other_run, other, second, first, true), 0);
	assert_true(other_run > 0);

	/* That client died on another machine: an hour on, its claim is taken over. */
	assert_int_equal(store_detection_begin(&run, store, second, first, true), 0);
	assert_int_equal(run, 0);
	test_store_exec(store, "UPDATE fix_detection_claims SET claimed_at = claimed_at - 3600001 "
			"WHERE check_id = :id", second);
	assert_int_equal(store_detection_begin(&run, store, second, first, true), 0);
	assert_true(run > other_run);
	store_close(other);
}

int main(void)
{
	if (test_store_skip())
		return PG_SKIP;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_check_pair, setup, teardown),
		cmocka_unit_test_setup_teardown(test_violations_of_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rule_in_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fix_put_and_drop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detection_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_pair_same_clone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detection_claim, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
