/*
 * revline bench's engine without a model: which messages and paths make a
 * case, a case's lines and the tolerance, the figures over many cases, the
 * paired comparison, the configuration spec and --since. The run itself,
 * over the fake server and a real repository, is tests/cli/t_bench.sh.
 */
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_case.h"
#include "bench_config.h"
#include "compare.h"
#include "fixcommit.h"
#include "mine.h"
#include "score.h"
#include "status.h"

struct message_case {
	const char *message;
	enum fixcommit_why why;
	bool skip;
};

static const struct message_case messages[] = {
	{ "Fix crash when the name is empty", FIXCOMMIT_WORD, false },
	{ "fix(parser): handle a trailing comma", FIXCOMMIT_WORD, false },
	{ "Handle empty input\n\nFixes #123", FIXCOMMIT_ISSUE, false },
	{ "Handle empty input\n\nThis closes #9 and fixes GH-12.", FIXCOMMIT_ISSUE, false },
	{ "Bump flit_core\n\nFixes: 0109e496f (\"use uv\").", FIXCOMMIT_FIXES_TAG, false },
	{ "Restore the timeout default (regression in 1.2)", FIXCOMMIT_REGRESSION, false },
	{ "Avoid a use-after-free bug in the parser", FIXCOMMIT_BUG, false },
	{ "Revert \"Add the cache\"\n\nThis reverts commit 0123456789abcdef0123.", FIXCOMMIT_REVERT, false },
	{ "Revert \"Revert \\\"Add the cache\\\"\"", FIXCOMMIT_REVERT, true },
	{ "Fix typo in README", FIXCOMMIT_WORD, true },
	{ "fix docs for the CLI", FIXCOMMIT_WORD, true },
	{ "fix(deps): update dependency lodash to v4.17.21", FIXCOMMIT_WORD, true },
	{ "Add a prefix option", FIXCOMMIT_NONE, false },       /* "prefix" is not "fix" */
	{ "Improve debug output", FIXCOMMIT_NONE, false },      /* nor "debug" "bug" */
	{ "Add the cache", FIXCOMMIT_NONE, false },
	{ "", FIXCOMMIT_NONE, false },
};

static void test_classify(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(messages) / sizeof(messages[0]); i++) {
		struct fixcommit fx;

		fixcommit_classify(&fx, messages[i].message, strlen(messages[i].message));
		if (fx.why != messages[i].why || (fx.skip != NULL) != messages[i].skip)
			fail_msg("'%s': why %s, skip %s", messages[i].message, fixcommit_why_name(fx.why),
				 fx.skip ? fx.skip : "no");
	}
}

static void test_revert_names_commit(void **state)
{
	static const char msg[] = "Revert \"x\"\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.\n";
	struct fixcommit fx;

	(void)state;
	fixcommit_classify(&fx, msg, strlen(msg));
	assert_string_equal(fx.reverts, "0123456789abcdef0123456789abcdef01234567");
}

static void test_bots_and_paths(void **state)
{
	(void)state;
	assert_true(fixcommit_bot("dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com"));
	assert_true(fixcommit_bot("Renovate Bot", "bot@renovateapp.com"));
	assert_false(fixcommit_bot("Ana", "ana@example.com"));
	assert_int_equal(fixcommit_path_kind("src/flask/app.py"), PATH_CODE);
	assert_int_equal(fixcommit_path_kind("lib/http.c"), PATH_CODE);
	assert_int_equal(fixcommit_path_kind("tests/test_app.py"), PATH_TEST);
	assert_int_equal(fixcommit_path_kind("pkg/server_test.go"), PATH_TEST);
	assert_int_equal(fixcommit_path_kind("web/app.spec.ts"), PATH_TEST);
	assert_int_equal(fixcommit_path_kind("docs/api.rst"), PATH_DOC);
	assert_int_equal(fixcommit_path_kind("CHANGES"), PATH_DOC);
	assert_int_equal(fixcommit_path_kind("README.md"), PATH_DOC);
	assert_int_equal(fixcommit_path_kind("pyproject.toml"), PATH_CONFIG);
	assert_int_equal(fixcommit_path_kind(".github/workflows/ci.yml"), PATH_CONFIG);
	assert_int_equal(fixcommit_path_kind("uv.lock"), PATH_CONFIG);
}

static void test_case_lines(void **state)
{
	struct bench_case c = { 0 }, back = { 0 };
	struct buf where = BUF_INIT;
	char *json = NULL;

	(void)state;
	assert_int_equal(bench_case_add_range(&c, "a.c", 10, 12), 0);
	assert_int_equal(bench_case_add_range(&c, "a.c", 13, 14), 0);   /* touching: merged */
	assert_int_equal(bench_case_add_range(&c, "a.c", 40, 40), 0);
	assert_int_equal(bench_case_add_range(&c, "b.c", 1, 2), 0);
	assert_int_equal(bench_case_where(&where, &c), 0);
	assert_string_equal(where.ptr, "a.c:10-14,40; b.c:1-2");
	/* Within 3 lines of 10-14 catches; 4 lines away does not; another file never. */
	assert_true(bench_case_hits(&c, "a.c", 17, 17, 3));
	assert_true(bench_case_hits(&c, "a.c", 1, 7, 3));
	assert_false(bench_case_hits(&c, "a.c", 18, 30, 3));
	assert_true(bench_case_hits(&c, "a.c", 18, 30, 4));
	assert_false(bench_case_hits(&c, "c.c", 10, 10, 3));
	assert_false(bench_case_hits(&c, "a.c", 0, 0, 3));
	assert_int_equal(bench_case_lines_json(&json, &c), 0);
	assert_string_equal(json, "[{\"path\":\"a.c\",\"lines\":[[10,14],[40,40]]},{\"path\":\"b.c\",\"lines\":[[1,2]]}]");
	assert_int_equal(bench_case_lines_parse(&back, json, strlen(json)), 0);
	assert_int_equal(back.nfiles, 2);
	assert_int_equal(back.files[0].ranges[1].start, 40);
	json[0] = '\0';
	{
		static const char bad[] = "[{\"path\":\"x\",\"lines\":[[5,2]]}]";

		assert_int_equal(bench_case_lines_parse(&back, bad, strlen(bad)), RL_EPARSE);
	}
	assert_non_null(strstr(error_message(), "x: range 1"));
	assert_int_equal(bench_case_lines_parse(&back, "{}", 2), RL_EPARSE);
	free(json);
	buf_release(&where);
	bench_case_release(&c);
	bench_case_release(&back);
}

/* Three cases: caught, missed with noise, an error; the error is in no rate. */
static void test_summary(void **state)
{
	struct score_summary s = { 0 };
	struct score_case cases[] = {
		{ 1, 0, SCORE_CAUGHT, 2, 1, 0, { 100, 40, 0, 10, 0.01 }, 1000, NULL,
		  (char *)"{\"rules\":{\"bugs\":[1,1,2,1,0]},\"severities\":{\"major\":[0,1,2,0,0],\"minor\":[0,0,0,1,0]}}" },
		{ 2, 0, SCORE_MISSED, 0, 3, 1, { 100, 0, 0, 10, 0.01 }, 500, NULL,
		  (char *)"{\"rules\":{\"bugs\":[1,0,0,3,1]},\"severities\":{\"minor\":[0,0,0,3,1]}}" },
		{ 3, 0, SCORE_ERROR, 0, 0, 0, { 0, 0, 0, 0, 0 }, 10, (char *)"failed", (char *)"{}" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++)
		assert_int_equal(score_summary_add(&s, &cases[i]), 0);
	assert_int_equal(s.cases, 3);
	assert_int_equal(s.errors, 1);
	assert_int_equal(s.all.cases, 2);
	assert_true(fabs(score_catch_rate(&s.all) - 0.5) < 1e-12);
	assert_true(fabs(score_noise_per_case(&s.all) - 2.0) < 1e-12);
	assert_true(fabs(score_precision(&s.all) - 2.0 / 6.0) < 1e-12);
	assert_int_equal(s.nrules, 1);
	assert_int_equal(s.rules[0].t.caught, 1);
	assert_int_equal(s.rules[0].t.noise, 4);
	assert_int_equal(s.severities[SEV_MAJOR].caught, 1);
	assert_int_equal(s.severities[SEV_MINOR].noise, 4);
	assert_true(fabs(s.usage.cost_usd - 0.02) < 1e-12);
	assert_int_equal(s.usage.tokens_cached, 40);
	score_summary_release(&s);
	/* A detail that is not the shape is refused, naming it. */
	cases[0].detail = (char *)"{\"rules\":{\"bugs\":[1,2]}}";
	assert_int_equal(score_summary_add(&s, &cases[0]), RL_EPARSE);
	assert_non_null(strstr(error_message(), "bugs"));
	score_summary_release(&s);
}

static void test_sign_test(void **state)
{
	(void)state;
	assert_true(fabs(compare_sign_test(0, 5) - 0.0625) < 1e-12);
	assert_true(fabs(compare_sign_test(1, 5) - 0.375) < 1e-12);
	assert_true(fabs(compare_sign_test(2, 4) - 1.0) < 1e-12);
	assert_true(fabs(compare_sign_test(0, 10) - 2.0 / 1024) < 1e-12);
	assert_true(compare_sign_test(0, 0) == 1.0);
}

static void test_compare(void **state)
{
	struct compare_pair pairs[20];
	struct compare c, again;
	size_t i;

	(void)state;
	/* B catches 8 more than A of 20 and A none more: a clear difference. */
	for (i = 0; i < 20; i++)
		pairs[i] = (struct compare_pair){ i < 4, i < 12, 1, i < 10 ? 0 : 2 };
	compare_pairs(&c, pairs, 20, 1);
	assert_int_equal(c.pairs, 20);
	assert_int_equal(c.both, 4);
	assert_int_equal(c.only_b, 8);
	assert_int_equal(c.only_a, 0);
	assert_int_equal(c.neither, 8);
	assert_true(fabs(c.catch_diff - 0.4) < 1e-12);
	assert_true(fabs(c.p_value - 2.0 / 256) < 1e-12);
	assert_true(c.catch_low > 0 && c.catch_low <= c.catch_diff && c.catch_diff <= c.catch_high);
	assert_true(fabs(c.noise_diff - 0.0) < 1e-12);
	assert_true(c.noise_low < 0 && c.noise_high > 0);
	/* The same seed, the same interval. */
	compare_pairs(&again, pairs, 20, 1);
	assert_true(again.catch_low == c.catch_low && again.catch_high == c.catch_high);
	compare_pairs(&c, pairs, 0, 1);
	assert_true(c.p_value == 1.0 && c.pairs == 0);
}

static void test_config(void **state)
{
	struct bench_config cfg;

	(void)state;
	assert_int_equal(bench_config_parse(&cfg, "model=gpt-5-mini, context=pack ,effort=low"), 0);
	assert_string_equal(cfg.model, "gpt-5-mini");
	assert_string_equal(cfg.effort, "low");
	assert_int_equal(cfg.context, CONTEXT_PACK);
	assert_int_equal(bench_config_parse(&cfg, "model=a,model=b"), RL_EUSAGE);
	assert_non_null(strstr(error_message(), "model is given twice"));
	assert_int_equal(bench_config_parse(&cfg, "context=all"), RL_EUSAGE);
	assert_non_null(strstr(error_message(), "tools, pack or none"));
	assert_int_equal(bench_config_parse(&cfg, "gpt-5-mini"), RL_EUSAGE);
	assert_int_equal(bench_config_parse(&cfg, "model="), RL_EUSAGE);
	assert_int_equal(bench_config_parse(&cfg, ""), RL_EUSAGE);
	assert_int_equal(bench_config_parse(&cfg, "provider=Anthropic,url=http://127.0.0.1:9/v1"), 0);
	assert_int_equal(cfg.provider, PROVIDER_ANTHROPIC);
	assert_string_equal(cfg.url, "http://127.0.0.1:9/v1");
	assert_string_equal(cfg.model, "");
	assert_int_equal(cfg.context, -1);
	assert_int_equal(bench_config_parse(&cfg, "context=none"), 0);
	assert_int_equal(cfg.provider, -1);
	assert_int_equal(bench_config_parse(&cfg, "provider=none"), RL_EUSAGE);
	assert_non_null(strstr(error_message(), "openai or anthropic"));
	assert_int_equal(bench_config_parse(&cfg, "provider=gemini"), RL_EUSAGE);
	assert_int_equal(bench_config_parse(&cfg, "url=ftp://example.com"), RL_EUSAGE);
	assert_non_null(strstr(error_message(), "not an http:// or https:// address"));
	assert_int_equal(bench_config_parse(&cfg, "url=https://me:sk-secret@example.com/v1"), RL_EUSAGE);
	assert_non_null(strstr(error_message(), "holds a user or password"));
	assert_null(strstr(error_message(), "sk-secret"));
	assert_int_equal(bench_config_parse(&cfg, "url=https://example.com/v1/a@b"), 0);
}

static void test_since(void **state)
{
	int64_t t;

	(void)state;
	assert_int_equal(mine_since_parse(&t, "2024-01-31", 0), 0);
	assert_int_equal(t, 1706659200);
	assert_int_equal(mine_since_parse(&t, "90 days ago", 100000000), 0);
	assert_int_equal(t, 100000000 - 90 * 86400);
	assert_int_equal(mine_since_parse(&t, "6 months", 100000000), 0);
	assert_int_equal(t, 100000000 - 180 * 86400);
	assert_int_equal(mine_since_parse(&t, "1y", 100000000), 0);
	assert_int_equal(t, 100000000 - 365 * 86400);
	assert_int_equal(mine_since_parse(&t, "soon", 0), RL_EUSAGE);
	assert_int_equal(mine_since_parse(&t, "2024-13-01", 0), RL_EUSAGE);
	assert_int_equal(mine_since_parse(&t, "3 days later", 0), RL_EUSAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_revert_names_commit),
		cmocka_unit_test(test_bots_and_paths),
		cmocka_unit_test(test_case_lines),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_sign_test),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_since),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
