/*
 * Violation-fix detection (fixdetect.h) between two real checks of a real
 * git repository, stored in the real SQLite store, with the fake LLM
 * server over real HTTP answering both the checks' map requests and the
 * detection's questions: a violation of check 1 gone in check 2 is a code
 * change, a changed rule or a deleted rule, with the time between the
 * checks; the same findings again are not fixed; running twice records
 * each fix once.
 */
#include "testlib.h"
#include "testlib/store.h"
#include "fakellm/fakellm.h"

#include "check.h"
#include "fixdetect.h"
#include "llm.h"
#include "repo.h"
#include "sched.h"
#include "status.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>

struct fixture {
	struct fakellm fake;
	char *repo_dir, *tmp, *db_path;
	struct llm_config llm;
	struct store *store;
	struct fixdetect *fd;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	test_env_private();
	fx->repo_dir = test_repo_new("fixdetect");
	fx->tmp = test_tmpdir("fixdetectdb");
	fx->db_path = test_store_location(fx->tmp, "revline.db");
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	fixdetect_free(fx->fd);
	store_close(fx->store);
	llm_config_release(&fx->llm);
	fakellm_stop(&fx->fake);
	test_rmtree(fx->repo_dir);
	test_rmtree(fx->tmp);
	free(fx->repo_dir);
	free(fx->tmp);
	free(fx->db_path);
	free(fx);
	return 0;
}

static void open_all(struct fixture *fx, const char *script)
{
	char base[96];

	fakellm_start(&fx->fake, script);
	snprintf(base, sizeof(base), "%s/v1", fx->fake.url);
	setenv("REVLINE_BASE_URL", base, 1);
	assert_int_equal(llm_config_load(&fx->llm, NULL), 0);
	assert_int_equal(store_open(&fx->store, fx->db_path), 0);
}

/* A whole check of the working tree against HEAD with the repository's rules, stored; its id. */
static int64_t check_run(struct fixture *fx)
{
	struct check_options opts = { 0 };
	struct target_spec spec = { 0 };
	struct target target = { 0 };
	struct repo *repo = NULL;
	struct diff *diff = NULL;
	struct check *c = NULL;
	struct check_event ev;
	int64_t id;
	int rounds = 0;

	assert_int_equal(repo_open(&repo, fx->repo_dir), 0);
	assert_int_equal(repo_resolve(&target, repo, &spec), 0);
	assert_int_equal(repo_diff(&diff, repo, &target), 0);
	sched_options_init(&opts.sched);
	opts.sched.retries = 0;
	assert_int_equal(asker_options_load(&opts.ask, NULL), 0);
	opts.no_builtin = true;
	opts.no_advisories = true;
	opts.no_reduce = true;
	opts.llm = &fx->llm;
	opts.store = fx->store;
	assert_int_equal(check_new(&c, repo, &target, diff, &opts), 0);
	assert_int_equal(check_start(c), 0);
	while (!check_done(c)) {
		assert_true(check_wait(c, 100) >= 0);
		while (check_next_event(c, &ev))
			;
		assert_true(++rounds < 300);
	}
	assert_true(check_stored(c));
	id = check_id(c);
	check_free(c);
	diff_free(diff);
	target_release(&target);
	repo_free(repo);
	return id;
}

/* Run fix detection for a check to its end. */
static void detect(struct fixture *fx, int64_t check)
{
	struct fixdetect_options o = { 0 };
	struct fixdetect_event ev;
	size_t settled = 0;
	bool done = false;
	int rounds = 0;

	fixdetect_free(fx->fd);
	fx->fd = NULL;
	o.llm = &fx->llm;
	sched_options_init(&o.sched);
	o.sched.retries = 0;
	assert_int_equal(asker_options_load(&o.ask, NULL), 0);
	assert_int_equal(fixdetect_new(&fx->fd, fx->store, check, &o), 0);
	assert_int_equal(fixdetect_start(fx->fd), 0);
	while (!done) {
		while (fixdetect_next_event(fx->fd, &ev)) {
			settled += ev.kind == FIXDETECT_SETTLED;
			done |= ev.kind == FIXDETECT_DONE;
		}
		if (done)
			break;
		assert_true(fixdetect_wait(fx->fd, 100) >= 0);
		assert_true(++rounds < 300);
	}
	assert_true(fixdetect_done(fx->fd));
	assert_int_equal(settled, fixdetect_count(fx->fd));
}

static const struct violation *violation_of(struct fixture *fx, const char *rule)
{
	size_t i;

	for (i = 0; i < fixdetect_count(fx->fd); i++)
		if (!strcmp(fixdetect_violation(fx->fd, i)->rule_id, rule))
			return fixdetect_violation(fx->fd, i);
	fail_msg("no violation of %s", rule);
	return NULL;
}

static char *sql_text(struct fixture *fx, const char *fmt, ...)
{
	char *sql, *out;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&sql, fmt, ap) < 0)
		fail_msg("out of memory");
	va_end(ap);
	out = test_store_query(fx->db_path, sql);
	free(sql);
	return out;
}

static void assert_sql(struct fixture *fx, const char *want, const char *sql)
{
	char *got = sql_text(fx, "%s", sql);

	if (strcmp(got, want))
		fail_msg("%s: got '%s', want '%s'", sql, got, want);
	free(got);
}

/* The requests the server saw whose body holds text. */
static size_t requests_with(struct fakellm *fake, const char *text)
{
	json_t *all = fakellm_requests(fake);
	size_t i, n = 0;

	for (i = 0; i < json_array_size(all); i++) {
		char *body = json_dumps(json_object_get(json_array_get(all, i), "body"), 0);

		n += body && strstr(body, text) != NULL;
		free(body);
	}
	json_decref(all);
	return n;
}

static void rule_file(struct fixture *fx, const char *id, const char *patterns)
{
	char rel[128], text[512];

	snprintf(rel, sizeof(rel), ".revline/rules/%s.md", id);
	snprintf(text, sizeof(text), "---\nid: %s\nseverity: major\npatterns: [%s]\n---\n# The %s rule\n\n"
		 "Check the change for %s problems.\n", id, patterns, id, id);
	test_write_str(fx->repo_dir, rel, text);
}

#define FINDING(file, line, title, code) \
	"{\"file\": \"" file "\", \"line\": " #line ", \"severity\": \"major\", \"title\": \"" title "\", " \
	"\"issue\": \"i\", \"suggestion\": \"s\", \"verification\": {\"code_examined\": \"" code "\", " \
	"\"line_range_examined\": [1, 5], \"verification_method\": \"read\", " \
	"\"checked_for_handling_elsewhere\": true}}"

#define ATTENTION(finding) "{\"status\": \"attention\", \"reasoning\": \"found\", \"findings\": [" finding "]}"
#define COMPLIANT "{\"status\": \"compliant\", \"reasoning\": \"fine\", \"findings\": []}"

static const char script[] =
	"{\"rules\": ["
	/* The checks' map requests: the first check, then the second. */
	"{\"match\": \"Rule codefix:\", \"then\": [{\"answer\": "
	ATTENTION(FINDING("app.py", 5, "Shell injection", "return subprocess.call(cmd, shell=True)"))
	"}, {\"answer\": " COMPLIANT "}]},"
	"{\"match\": \"Rule rulechg:\", \"answer\": "
	ATTENTION(FINDING("app.py", 5, "Shell call", "return subprocess.call(cmd, shell=True)")) "},"
	"{\"match\": \"Rule ruledel:\", \"answer\": "
	ATTENTION(FINDING("util.py", 2, "Eval", "return eval(data)")) "},"
	"{\"match\": \"Rule same:\", \"answer\": "
	ATTENTION(FINDING("util.py", 2, "Eval of input", "return eval(data)")) "},"
	/* The detection's questions, one per violation that needs judgement. */
	"{\"match\": \"Threadline ID: codefix\", \"answer\": {\"was_fixed\": true, \"fix_type\": \"CODE_CHANGE\", "
	"\"explanation\": \"shell=True was removed from run()\", \"evidence\": {\"files\": [\"app.py\"]}}},"
	"{\"match\": [\"Threadline ID: rulechg\", \"**/*.sql\"], \"answer\": {\"was_fixed\": true, "
	"\"fix_type\": \"THREADLINE_CHANGED\", \"explanation\": \"the rule now covers SQL files only\", "
	"\"evidence\": null}}"
	"]}";

/*
 * Check 1 sees four violations; then the code is fixed for codefix, the
 * rule rulechg narrowed to SQL files, the rule ruledel deleted, and same's
 * code left as it was; check 2; then fix detection.
 */
static void two_checks(struct fixture *fx, int64_t *first, int64_t *second)
{
	test_write_str(fx->repo_dir, "app.py",
		       "import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd)\n");
	test_write_str(fx->repo_dir, "util.py", "def load(data):\n    return data\n");
	rule_file(fx, "codefix", "\"**/*.py\"");
	rule_file(fx, "rulechg", "\"**/*.py\"");
	rule_file(fx, "ruledel", "\"**/*.py\"");
	rule_file(fx, "same", "\"**/*.py\"");
	test_commit(fx->repo_dir, "base");
	test_write_str(fx->repo_dir, "app.py",
		       "import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(cmd, shell=True)\n");
	test_write_str(fx->repo_dir, "util.py", "def load(data):\n    return eval(data)\n");
	open_all(fx, script);
	*first = check_run(fx);
	assert_int_equal(requests_with(&fx->fake, "Rule "), 4);

	test_write_str(fx->repo_dir, "app.py",
		       "import subprocess\n\n\ndef run(cmd):\n    return subprocess.call(list(cmd))\n");
	rule_file(fx, "rulechg", "\"**/*.sql\"");
	test_sh_ok(fx->repo_dir, "rm .revline/rules/ruledel.md");
	*second = check_run(fx);
	/* The first check an hour earlier: the time to fix is the checks' distance. */
	free(sql_text(fx, "UPDATE checks SET created_at = created_at - 3600000 WHERE id = %lld RETURNING id",
		      (long long)*first));
}

static void test_classified_with_time_to_fix(void **state)
{
	struct fixture *fx = *state;
	const struct violation *v;
	int64_t first, second;
	char sql[512], *text;

	two_checks(fx, &first, &second);
	detect(fx, second);

	assert_int_equal(fixdetect_previous(fx->fd), first);
	assert_true(fixdetect_seconds(fx->fd) >= 3600 && fixdetect_seconds(fx->fd) < 3700);
	assert_int_equal(fixdetect_count(fx->fd), 4);
	assert_int_equal(fixdetect_fixed(fx->fd), 3);
	assert_int_equal(fixdetect_errors(fx->fd), 0);

	v = violation_of(fx, "codefix");
	assert_int_equal(v->outcome, OUTCOME_FIXED);
	assert_string_equal(v->fix_type, "CODE_CHANGE");
	assert_string_equal(v->method, "llm_analysis");
	v = violation_of(fx, "rulechg");
	assert_int_equal(v->outcome, OUTCOME_FIXED);
	assert_string_equal(v->fix_type, "THREADLINE_CHANGED");
	assert_string_equal(v->method, "llm_analysis");
	/* A deleted rule and the same findings again are decided without a call. */
	v = violation_of(fx, "ruledel");
	assert_int_equal(v->outcome, OUTCOME_FIXED);
	assert_string_equal(v->fix_type, "THREADLINE_DELETED");
	assert_string_equal(v->method, "deterministic");
	v = violation_of(fx, "same");
	assert_int_equal(v->outcome, OUTCOME_NOT_FIXED);
	assert_string_equal(v->method, "deterministic");
	assert_int_equal(requests_with(&fx->fake, "Threadline ID: ruledel"), 0);
	assert_int_equal(requests_with(&fx->fake, "Threadline ID: same"), 0);
	assert_int_equal(requests_with(&fx->fake, "Threadline ID: codefix"), 1);

	/* The question about a changed rule carries the rule file's own diff and both contents. */
	assert_int_equal(requests_with(&fx->fake, "+patterns: [\\\"**/*.sql\\\"]"), 1);
	assert_int_equal(requests_with(&fx->fake, "-patterns: [\\\"**/*.py\\\"]"), 1);

	/* The store: one row per fix, with its type, the two checks and the time between them. */
	snprintf(sql, sizeof(sql), TEST_SQL("SELECT group_concat(threadline_id || ':' || fix_type || ':' || "
		 "detection_method || ':' || violation_check_id || ':' || (time_between_checks_seconds / 60), ' ') "
		 "FROM (SELECT * FROM violation_fixes WHERE fix_check_id = %lld ORDER BY threadline_id)",
		 "SELECT string_agg(threadline_id || ':' || fix_type || ':' || detection_method || ':' || "
		 "violation_check_id || ':' || (time_between_checks_seconds / 60), ' ' ORDER BY threadline_id) "
		 "FROM violation_fixes WHERE fix_check_id = %lld"), (long long)second);
	text = sql_text(fx, "%s", sql);
	{
		char want[512];

		snprintf(want, sizeof(want), "codefix:CODE_CHANGE:llm_analysis:%lld:60 "
			 "rulechg:THREADLINE_CHANGED:llm_analysis:%lld:60 "
			 "ruledel:THREADLINE_DELETED:deterministic:%lld:60",
			 (long long)first, (long long)first, (long long)first);
		assert_string_equal(text, want);
	}
	free(text);
	snprintf(sql, sizeof(sql), "SELECT status || ' ' || violations || ' ' || detected || ' ' || deterministic "
		 "|| ' ' || llm_calls || ' ' || errors FROM fix_detection_runs WHERE check_id = %lld",
		 (long long)second);
	assert_sql(fx, "done 4 3 2 2 0", sql);
}

static void test_twice_records_once(void **state)
{
	struct fixture *fx = *state;
	int64_t first, second;
	char sql[256];
	size_t calls;

	two_checks(fx, &first, &second);
	detect(fx, second);
	calls = requests_with(&fx->fake, "Threadline ID:");
	detect(fx, second);
	assert_int_equal(fixdetect_fixed(fx->fd), 3);
	/* The answers come from the cache the second time: no new question. */
	assert_int_equal(requests_with(&fx->fake, "Threadline ID:"), calls);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM violation_fixes WHERE fix_check_id = %lld",
		 (long long)second);
	assert_sql(fx, "3", sql);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM violation_fixes WHERE fix_check_id = %lld "
		 "AND threadline_id = 'codefix'", (long long)second);
	assert_sql(fx, "1", sql);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM fix_detection_runs WHERE check_id = %lld",
		 (long long)second);
	assert_sql(fx, "2", sql);

	/* The first check has no previous one: nothing to detect, a run recorded all the same. */
	detect(fx, first);
	assert_int_equal(fixdetect_previous(fx->fd), 0);
	assert_int_equal(fixdetect_count(fx->fd), 0);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM violation_fixes WHERE fix_check_id = %lld",
		 (long long)first);
	assert_sql(fx, "0", sql);
}

static void test_failed_call_is_logged(void **state)
{
	struct fixture *fx = *state;
	struct fixdetect_options o = { 0 };
	int64_t first, second;
	char sql[256];

	two_checks(fx, &first, &second);
	/* The server gone: the two questions fail; the deterministic decisions stand. */
	fakellm_stop(&fx->fake);
	detect(fx, second);
	assert_int_equal(violation_of(fx, "codefix")->outcome, OUTCOME_FAILED);
	assert_non_null(violation_of(fx, "codefix")->error);
	assert_int_equal(violation_of(fx, "ruledel")->outcome, OUTCOME_FIXED);
	assert_int_equal(fixdetect_errors(fx->fd), 2);
	snprintf(sql, sizeof(sql), TEST_SQL("SELECT json_array_length(error_log) || ' ' || errors FROM "
		 "fix_detection_runs WHERE check_id = %lld", "SELECT json_array_length(error_log::json) || ' ' || "
		 "errors FROM fix_detection_runs WHERE check_id = %lld"), (long long)second);
	assert_sql(fx, "2 2", sql);
	snprintf(sql, sizeof(sql), TEST_SQL("SELECT group_concat(threadline_id) FROM violation_fixes WHERE "
		 "fix_check_id = %lld", "SELECT string_agg(threadline_id, ',') FROM violation_fixes WHERE "
		 "fix_check_id = %lld"), (long long)second);
	assert_sql(fx, "ruledel", sql);

	/* An unknown check is refused. */
	fixdetect_free(fx->fd);
	fx->fd = NULL;
	o.llm = &fx->llm;
	sched_options_init(&o.sched);
	assert_int_equal(fixdetect_new(&fx->fd, fx->store, 999999, &o), 0);
	assert_int_equal(fixdetect_start(fx->fd), RL_ENOTFOUND);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	if (test_store_skip())
		return PG_SKIP;
	const struct CMUnitTest tests[] = {
		T(test_classified_with_time_to_fix),
		T(test_twice_records_once),
		T(test_failed_call_is_logged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
