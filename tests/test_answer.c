/* Rule answers as models really send them. */
#include "testlib.h"

#include "answer.h"
#include "status.h"

#include <string.h>

static struct rule rule = {
	.id = "injection", .name = "No injection", .severity = SEV_MAJOR, .category = "security",
};

static struct map_answer parse_ok(const char *text)
{
	struct map_answer a;

	if (answer_parse(&a, text, strlen(text), &rule) < 0)
		fail_msg("parse failed: %s\n%s", error_message(), text);
	return a;
}

static void test_full_answer(void **state)
{
	struct map_answer a = parse_ok(
		"{\"status\":\"attention\",\"reasoning\":\"r\",\"file_references\":[\"src/a.py\"],"
		"\"findings\":[{\"file\":\"./src/a.py\",\"line\":12,\"end_line\":14,\"severity\":\"critical\","
		"\"title\":\"SQL built from input\",\"issue\":\"i\",\"suggestion\":\"s\",\"verification\":"
		"{\"code_examined\":\"q = f'{x}'\",\"line_range_examined\":[2,22],\"verification_method\":\"m\","
		"\"checked_for_handling_elsewhere\":true,\"where_checked\":\"callers\",\"is_impact_finding\":false}}]}");

	(void)state;
	assert_int_equal(a.status, RULE_ATTENTION);
	assert_string_equal(a.reasoning, "r");
	assert_int_equal(a.nrefs, 1);
	assert_int_equal(a.nfindings, 1);
	assert_string_equal(a.findings[0].file, "src/a.py");
	assert_string_equal(a.findings[0].rule_id, "injection");
	assert_int_equal(a.findings[0].line, 12);
	assert_int_equal(a.findings[0].end_line, 14);
	assert_int_equal(a.findings[0].severity, SEV_CRITICAL);
	assert_string_equal(a.findings[0].category, "security");
	assert_string_equal(a.findings[0].evidence.code_examined, "q = f'{x}'");
	assert_int_equal(a.findings[0].evidence.range_start, 2);
	assert_int_equal(a.findings[0].evidence.range_end, 22);
	assert_true(a.findings[0].evidence.checked_elsewhere);
	assert_string_equal(a.findings[0].evidence.where_checked, "callers");
	answer_release(&a);
}

static void test_prose_fences_and_missing_fields(void **state)
{
	struct map_answer a = parse_ok(
		"Let me check the rule.\n\n```json\n{\"status\": \"attention\", \"findings\": "
		"[{\"file\": \"b.c\", \"line\": \"7\", \"severity\": \"urgent\"}]}\n```\nThat's all.");

	(void)state;
	assert_int_equal(a.status, RULE_ATTENTION);
	assert_int_equal(a.nfindings, 1);
	assert_int_equal(a.findings[0].line, 7);
	assert_int_equal(a.findings[0].end_line, 7);
	/* An unknown severity, no title: the rule's. */
	assert_int_equal(a.findings[0].severity, SEV_MAJOR);
	assert_string_equal(a.findings[0].title, "No injection");
	assert_null(a.findings[0].evidence.code_examined);
	answer_release(&a);

	a = parse_ok("{\"status\": \"Compliant\"}");
	assert_int_equal(a.status, RULE_COMPLIANT);
	assert_int_equal(a.nfindings, 0);
	answer_release(&a);
	a = parse_ok("{\"status\": \"not relevant\", \"reasoning\": \"docs only\"}");
	assert_int_equal(a.status, RULE_NOT_RELEVANT);
	answer_release(&a);
	/* No status: taken from the findings. */
	a = parse_ok("{\"findings\": [{\"file\": \"x.c\", \"line\": 1, \"snippet\": \"int x;\"}]}");
	assert_int_equal(a.status, RULE_ATTENTION);
	assert_string_equal(a.findings[0].evidence.code_examined, "int x;");
	answer_release(&a);
}

/* The map-reduce seed's own answer: a bare array of violations. */
static void test_bare_array(void **state)
{
	struct map_answer a = parse_ok("[]");

	(void)state;
	assert_int_equal(a.status, RULE_COMPLIANT);
	answer_release(&a);
	a = parse_ok("[{\"file\": \"a.ts\", \"line\": 3, \"snippet\": \"catch (e) {}\", \"issue\": \"swallowed\"}]");
	assert_int_equal(a.status, RULE_ATTENTION);
	assert_int_equal(a.nfindings, 1);
	assert_string_equal(a.findings[0].issue, "swallowed");
	answer_release(&a);
}

/* A threadline-style answer: no findings, but path:line references. */
static void test_threadline_references(void **state)
{
	struct map_answer a = parse_ok(
		"{\"status\": \"attention\", \"reasoning\": \"The query in src/db/users.py:42 and "
		"`src/db/users.py:42` again, plus lib/util.js:7-9, are built by hand (see RFC:1).\","
		"\"file_references\": [\"src/db/users.py:42\", \"api/server.go:100\"]}");

	(void)state;
	assert_int_equal(a.status, RULE_ATTENTION);
	assert_int_equal(a.nfindings, 3);
	assert_string_equal(a.findings[0].file, "src/db/users.py");
	assert_int_equal(a.findings[0].line, 42);
	assert_string_equal(a.findings[1].file, "lib/util.js");
	assert_int_equal(a.findings[1].line, 7);
	assert_int_equal(a.findings[1].end_line, 9);
	assert_string_equal(a.findings[2].file, "api/server.go");
	assert_non_null(strstr(a.findings[0].issue, "built by hand"));
	answer_release(&a);
}

static void assert_unusable(const char *text, const char *message)
{
	struct map_answer a;

	assert_int_equal(answer_parse(&a, text, strlen(text), &rule), RL_EPARSE);
	if (!strstr(error_message(), message))
		fail_msg("expected '%s' in '%s'", message, error_message());
}

static void test_unusable_answers(void **state)
{
	(void)state;
	assert_unusable("I could not review this change.", "no JSON object: \"I could not review");
	assert_unusable("{\"status\": \"maybe\"}", "status is \"maybe\"");
	assert_unusable("{\"findings\": \"none\"}", "\"findings\" is not a list");
	assert_unusable("{\"findings\": [{\"line\": 3}]}", "a finding has no \"file\"");
	assert_unusable("{\"model\": \"x\"}", "none of \"status\", \"findings\" or \"reasoning\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_answer),
		cmocka_unit_test(test_prose_fences_and_missing_fields),
		cmocka_unit_test(test_bare_array),
		cmocka_unit_test(test_threadline_references),
		cmocka_unit_test(test_unusable_answers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
