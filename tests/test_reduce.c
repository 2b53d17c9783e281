/* The reduce step: the synthesis answer and the programmatic fallback. */
#include "testlib.h"

#include "reduce.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

static struct finding make(const char *rule, const char *file, int line, int end, enum severity sev,
			   const char *title, bool verified)
{
	struct finding f = { 0 };

	f.rule_id = strdup(rule);
	f.file = strdup(file);
	f.line = line;
	f.end_line = end;
	f.severity = sev;
	f.title = strdup(title);
	f.issue = strdup("issue");
	f.verified = verified;
	f.verify_note = strdup(verified ? "the quoted code is at lines" : "not found");
	f.evidence.code_examined = strdup(title);
	finding_fingerprint(&f);
	return f;
}

static struct finding input[6];
static size_t ninput;

static int setup(void **state)
{
	(void)state;
	input[0] = make("injection", "src/db.py", 10, 12, SEV_MAJOR, "SQL built from user input", true);
	input[1] = make("input-validation", "src/db.py", 11, 11, SEV_CRITICAL, "User input reaches SQL unvalidated", true);
	input[2] = make("injection", "src/db.py", 40, 40, SEV_MINOR, "Shell command from a variable", true);
	input[3] = make("error-handling", "src/app.c", 5, 5, SEV_NITPICK, "Return value ignored", true);
	input[4] = make("error-handling", "src/app.c", 7, 7, SEV_MINOR, "Error not propagated", true);
	input[5] = make("resource-leaks", "src/app.c", 6, 6, SEV_MAJOR, "File handle leaked on error", true);
	ninput = 6;
	return 0;
}

static int teardown(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < ninput; i++)
		finding_release(&input[i]);
	return 0;
}

static void test_fallback_merges_and_orders(void **state)
{
	struct report r;

	(void)state;
	assert_int_equal(reduce_fallback(&r, input, ninput, "the reduce call failed: HTTP 500"), 0);
	assert_false(r.synthesized);
	assert_string_equal(r.fallback_reason, "the reduce call failed: HTTP 500");
	/*
	 * 0 and 1 overlap with similar titles (user input, SQL) -> one, critical;
	 * 3 and 4 are the same rule three lines apart -> one; 5 is another rule with
	 * another title at the same place -> kept; 2 is far away -> kept.
	 */
	assert_int_equal(r.nfindings, 4);
	assert_int_equal(r.findings[0].severity, SEV_CRITICAL);
	assert_string_equal(r.findings[0].file, "src/db.py");
	assert_int_equal(r.findings[0].line, 10);
	assert_int_equal(r.findings[0].end_line, 12);
	assert_int_equal(r.findings[0].nfrom, 2);
	assert_string_equal(r.findings[0].from_rules[0], "injection");
	assert_string_equal(r.findings[0].from_rules[1], "input-validation");
	assert_int_equal(r.findings[1].severity, SEV_MAJOR);
	assert_string_equal(r.findings[1].rule_id, "resource-leaks");
	assert_int_equal(r.findings[2].severity, SEV_MINOR);
	assert_string_equal(r.findings[2].file, "src/app.c");
	assert_int_equal(r.findings[2].line, 5);
	assert_int_equal(r.findings[2].end_line, 7);
	assert_int_equal(r.findings[3].severity, SEV_MINOR);
	assert_int_equal(r.findings[3].line, 40);
	/* The evidence stays with the merged finding. */
	assert_true(r.findings[0].verified);
	assert_string_equal(r.findings[0].evidence.code_examined, "SQL built from user input");
	assert_string_equal(r.overall_severity, "critical");
	assert_string_equal(r.summary, "Found 4 issues across 2 files (1 critical, 1 major, 2 minor).");
	report_release(&r);

	assert_int_equal(reduce_fallback(&r, NULL, 0, NULL), 0);
	assert_string_equal(r.overall_severity, "clean");
	assert_string_equal(r.summary, "No issues found.");
	report_release(&r);
	assert_string_equal(reduce_overall(&input[3], 2), "minor-issues");
	assert_string_equal(reduce_overall(&input[2], 4), "needs-work");
}

static void test_synthesis_answer(void **state)
{
	const char *answer =
		"```json\n{\"summary\": \"Two real problems.\", \"overallSeverity\": \"critical\","
		"\"mustFix\": [\"SQL injection in find\"], \"findings\": ["
		"{\"id\": \"m1\", \"severity\": \"critical\", \"category\": \"security\", \"file\": \"src/db.py\","
		" \"line\": 99, \"title\": \"SQL injection\", \"issue\": \"merged issue\", \"suggestion\": \"bind\","
		" \"fromRules\": [\"injection\", \"input-validation\"], \"sources\": [\"f1\", \"f2\"]},"
		"{\"id\": \"m2\", \"severity\": \"major\", \"file\": \"src/app.c\", \"line\": 6,"
		" \"title\": \"Leak\", \"fromRules\": [\"resource-leaks\"]},"
		"{\"id\": \"m3\", \"severity\": \"critical\", \"file\": \"src/nowhere.c\", \"line\": 1,"
		" \"title\": \"Invented\", \"sources\": [\"f99\"]}]}\n```";
	struct report r;
	size_t i;

	(void)state;
	assert_int_equal(reduce_parse(&r, answer, strlen(answer), input, ninput), 0);
	assert_true(r.synthesized);
	assert_string_equal(r.summary, "Two real problems.");
	assert_string_equal(r.overall_severity, "critical");
	assert_int_equal(r.nmust_fix, 1);
	/* m1 (from f1, f2), m2 (matched by place: f6), f3, f4, f5 kept; m3 invented: dropped. */
	assert_int_equal(r.nfindings, 5);
	assert_string_equal(r.findings[0].title, "SQL injection");
	assert_string_equal(r.findings[0].issue, "merged issue");
	/* The place and the evidence are the verified source's, not the answer's line 99. */
	assert_int_equal(r.findings[0].line, 10);
	assert_string_equal(r.findings[0].evidence.code_examined, "SQL built from user input");
	assert_int_equal(r.findings[0].nfrom, 2);
	assert_string_equal(r.findings[1].title, "Leak");
	assert_string_equal(r.findings[1].rule_id, "resource-leaks");
	for (i = 0; i < r.nfindings; i++)
		assert_string_not_equal(r.findings[i].title, "Invented");
	report_release(&r);
}

static void test_unusable_synthesis(void **state)
{
	struct report r;

	(void)state;
	assert_int_equal(reduce_parse(&r, "Sorry, I can't.", 15, input, ninput), RL_EPARSE);
	assert_int_equal(reduce_parse(&r, "{\"summary\": \"x\"}", 16, input, ninput), RL_EPARSE);
	assert_string_equal(error_message(), "the reduce answer has no \"findings\" list");
	assert_int_equal(reduce_parse(&r, "{\"findings\": []}", 16, input, ninput), RL_EPARSE);
	assert_string_equal(error_message(), "the reduce answer has no \"summary\"");
}

static void test_prompt(void **state)
{
	struct reduce_context ctx = { "HEAD..working tree", 3, "Branch: fix-sql" };
	struct buf sys = BUF_INIT, user = BUF_INIT;

	(void)state;
	assert_int_equal(reduce_prompt(&sys, &user, input, ninput, &ctx), 0);
	assert_non_null(strstr(sys.ptr, "synthesizing"));
	assert_non_null(strstr(user.ptr, "6 findings from 4 rules"));
	assert_non_null(strstr(user.ptr, "## src/db.py"));
	assert_non_null(strstr(user.ptr, "- f1 [injection] line 10 (major): issue"));
	assert_non_null(strstr(user.ptr, "```\nSQL built from user input\n```"));
	assert_non_null(strstr(user.ptr, "Branch: fix-sql"));
	assert_non_null(strstr(user.ptr, "\"sources\""));
	buf_release(&sys);
	buf_release(&user);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fallback_merges_and_orders),
		cmocka_unit_test(test_synthesis_answer),
		cmocka_unit_test(test_unusable_synthesis),
		cmocka_unit_test(test_prompt),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
