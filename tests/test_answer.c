/* Rule answers as models really send them. */
#include "testlib.h"

#include "answer.h"
#include "buf.h"
#include "status.h"
#include "utf8.h"

#include <string.h>
#include <time.h>

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

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct map_answer parse_buf(struct buf *text)
{
	struct map_answer a = parse_ok(text->ptr);

	buf_release(text);
	return a;
}

/* 2,000 findings: the first 200 are kept, in order, and the rest counted in the reasoning. */
static void test_findings_are_capped(void **state)
{
	struct buf text = BUF_INIT;
	struct map_answer a;
	int i;

	(void)state;
	buf_puts(&text, "{\"status\": \"attention\", \"reasoning\": \"many\", \"findings\": [");
	for (i = 0; i < 2000; i++)
		buf_printf(&text, "%s{\"file\": \"a.c\", \"line\": %d, \"title\": \"T%d\"}", i ? "," : "", i + 1, i);
	buf_puts(&text, "]}");
	a = parse_buf(&text);
	assert_int_equal(a.nfindings, ANSWER_FINDINGS_MAX);
	assert_int_equal(a.findings_dropped, 2000 - ANSWER_FINDINGS_MAX);
	assert_string_equal(a.findings[0].title, "T0");
	assert_string_equal(a.findings[199].title, "T199");
	assert_string_equal(a.reasoning, "many\n\n1800 more findings not shown (an answer keeps its first 200)");
	answer_release(&a);

	/* A bare array, no reasoning: the note is the reasoning. */
	buf_puts(&text, "[");
	for (i = 0; i < 201; i++)
		buf_printf(&text, "%s{\"file\": \"a.c\", \"line\": 1}", i ? "," : "");
	buf_puts(&text, "]");
	a = parse_buf(&text);
	assert_int_equal(a.nfindings, 200);
	assert_string_equal(a.reasoning, "1 more finding not shown (an answer keeps its first 200)");
	answer_release(&a);
}

/* 5,000 references: 100 kept, each at most ANSWER_REF_BYTES, the rest counted. */
static void test_references_are_capped(void **state)
{
	struct buf text = BUF_INIT;
	struct map_answer a;
	int i;

	(void)state;
	buf_puts(&text, "{\"status\": \"compliant\", \"file_references\": [\"");
	for (i = 0; i < 5000; i++)
		buf_putc(&text, 'x');
	buf_puts(&text, "\"");
	for (i = 1; i < 5000; i++)
		buf_printf(&text, ", \"src/f%d.c\"", i);
	buf_puts(&text, "]}");
	a = parse_buf(&text);
	assert_int_equal(a.nrefs, ANSWER_REFS_MAX);
	assert_int_equal(a.refs_dropped, 5000 - ANSWER_REFS_MAX);
	assert_int_equal(strlen(a.file_references[0]), ANSWER_REF_BYTES + strlen(" [... 3976 bytes cut]"));
	assert_non_null(strstr(a.file_references[0], " [... 3976 bytes cut]"));
	assert_string_equal(a.file_references[99], "src/f99.c");
	assert_string_equal(a.reasoning, "4900 more file references not shown (an answer keeps its first 100)");
	assert_int_equal(a.nfindings, 0);
	answer_release(&a);
}

/* Every text field is cut at ANSWER_FIELD_MAX on a character boundary, and says so. */
static void test_fields_are_cut_at_a_character(void **state)
{
	static const char *const fields[] = { "reasoning", "title", "issue", "suggestion", "category",
					      "code_examined", "file" };
	struct buf text = BUF_INIT, big = BUF_INIT;
	struct map_answer a;
	const char *got[7];
	size_t i;

	(void)state;
	/* One ASCII byte, then two-byte characters: byte 8,192 is inside one. */
	buf_putc(&big, 'a');
	for (i = 0; i < 10000; i++)
		buf_puts(&big, "\xc3\xa9");
	buf_printf(&text, "{\"status\": \"attention\", \"reasoning\": \"%s\", \"findings\": [{\"file\": \"%s\", "
		   "\"title\": \"%s\", \"issue\": \"%s\", \"suggestion\": \"%s\", \"category\": \"%s\", "
		   "\"verification\": {\"code_examined\": \"%s\"}}]}",
		   big.ptr, big.ptr, big.ptr, big.ptr, big.ptr, big.ptr, big.ptr);
	a = parse_buf(&text);
	got[0] = a.reasoning;
	got[1] = a.findings[0].title;
	got[2] = a.findings[0].issue;
	got[3] = a.findings[0].suggestion;
	got[4] = a.findings[0].category;
	got[5] = a.findings[0].evidence.code_examined;
	got[6] = a.findings[0].file;
	for (i = 0; i < 7; i++) {
		if (strcmp(got[i] + ANSWER_FIELD_MAX - 1, " [... 11810 bytes cut]"))
			fail_msg("%s: ends with '%s'", fields[i], got[i] + ANSWER_FIELD_MAX - 1);
		assert_true(utf8_valid(got[i], strlen(got[i])));
		assert_memory_equal(got[i], big.ptr, ANSWER_FIELD_MAX - 1);
	}
	answer_release(&a);
	buf_release(&big);
}

/*
 * A long reasoning full of path:line references: 200 findings, each with
 * the reference's own line as its issue (never a copy of the whole
 * reasoning), the distinct rest counted, repeats counted once.
 */
static void test_reference_findings_are_bounded(void **state)
{
	struct buf text = BUF_INIT;
	struct map_answer a;
	size_t i;

	(void)state;
	buf_puts(&text, "{\"status\": \"attention\", \"reasoning\": \"");
	for (i = 1; i <= 600; i++)
		buf_printf(&text, "src/m.c:%zu is wrong. src/m.c:%zu again.\\n", i, i);
	buf_puts(&text, "\", \"file_references\": [\"src/m.c:1\", \"src/z.c:5\"]}");
	a = parse_buf(&text);
	assert_int_equal(a.nfindings, ANSWER_FINDINGS_MAX);
	/* Line 1-600 of m.c within the reasoning's 8 KB, and z.c:5. */
	assert_string_equal(a.findings[0].file, "src/m.c");
	assert_int_equal(a.findings[0].line, 1);
	assert_int_equal(a.findings[199].line, 200);
	assert_string_equal(a.findings[7].issue, "src/m.c:8 is wrong. src/m.c:8 again.");
	for (i = 0; i < a.nfindings; i++)
		assert_true(strlen(a.findings[i].issue) <= ANSWER_REF_ISSUE_MAX + 6);
	assert_true(a.findings_dropped > 0);
	assert_non_null(strstr(a.reasoning, " more findings not shown (an answer keeps its first 200)"));
	answer_release(&a);

	/* One long line: the issue is the part around the reference, marked cut on both sides. */
	buf_puts(&text, "{\"status\": \"attention\", \"reasoning\": \"");
	for (i = 0; i < 3000; i++)
		buf_putc(&text, 'x');
	buf_puts(&text, " see lib/q.py:12 here ");
	for (i = 0; i < 3000; i++)
		buf_putc(&text, 'y');
	buf_puts(&text, "\"}");
	a = parse_buf(&text);
	assert_int_equal(a.nfindings, 1);
	assert_non_null(strstr(a.findings[0].issue, " see lib/q.py:12 here "));
	assert_true(!strncmp(a.findings[0].issue, "...xxx", 6));
	assert_non_null(strstr(a.findings[0].issue, "yyy..."));
	assert_int_equal(strlen(a.findings[0].issue), ANSWER_REF_ISSUE_MAX + 6);
	answer_release(&a);

	/* A short reasoning is still every finding's issue; repeats make one finding. */
	a = parse_ok("{\"status\": \"attention\", \"reasoning\": \"a.c:1 a.c:1 a.c:2\"}");
	assert_int_equal(a.nfindings, 2);
	assert_int_equal(a.findings_dropped, 0);
	assert_string_equal(a.findings[1].issue, "a.c:1 a.c:1 a.c:2");
	answer_release(&a);
}

/* Digits past any line number are no reference (and no overflow). */
static void test_huge_line_numbers(void **state)
{
	struct map_answer a = parse_ok("{\"status\": \"attention\", \"reasoning\": "
				       "\"a.c:99999999999999999999 b.c:7-99999999999999999999 c.c:3-2\"}");

	(void)state;
	assert_int_equal(a.nfindings, 2);
	assert_string_equal(a.findings[0].file, "b.c");
	assert_int_equal(a.findings[0].end_line, 7);
	assert_int_equal(a.findings[1].end_line, 3);
	answer_release(&a);
}

/* Over ANSWER_TEXT_MAX: refused, saying the size. */
static void test_answer_too_large(void **state)
{
	struct buf text = BUF_INIT;
	struct map_answer a;

	(void)state;
	buf_puts(&text, "{\"status\": \"compliant\", \"reasoning\": \"");
	while (text.len < ANSWER_TEXT_MAX)
		buf_puts(&text, "xxxxxxxxxxxxxxxx");
	buf_puts(&text, "\"}");
	assert_int_equal(answer_parse(&a, text.ptr, text.len, &rule), RL_EPARSE);
	assert_non_null(strstr(error_message(), "more than revline reads (1048576)"));
	assert_int_equal(answer_size_check(ANSWER_TEXT_MAX), 0);
	buf_release(&text);
}

/*
 * The work is linear: the hostile shapes at 700 KB each parse in well
 * under a second (quadratic work made them minutes, or gigabytes).
 */
static void test_hostile_shapes_are_fast(void **state)
{
	static const char *const shapes[] = { "[", "{\"a\":", "{\"a\":[", "a.c:1 ", "x:1", "```\n" };
	struct map_answer a;
	struct buf text = BUF_INIT;
	size_t i;
	double t0;

	(void)state;
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		buf_clear(&text);
		if (!strcmp(shapes[i], "a.c:1 ") || !strcmp(shapes[i], "x:1"))
			buf_puts(&text, "{\"status\": \"attention\", \"reasoning\": \"");
		while (text.len < 700 * 1024)
			buf_puts(&text, shapes[i]);
		if (text.ptr[0] == '{' && strcmp(shapes[i], "{\"a\":") && strcmp(shapes[i], "{\"a\":["))
			buf_puts(&text, "\"}");
		t0 = now_s();
		if (answer_parse(&a, text.ptr, text.len, &rule) == 0)
			answer_release(&a);
		/*
		 * A guard against the quadratic search that took half a minute,
		 * not a speed target (bench_answer.sh measures): a loaded machine
		 * under ASan takes over a second, never ten.
		 */
		if (now_s() - t0 > 10.0)
			fail_msg("'%s' x %zu bytes took %.2f s", shapes[i], text.len, now_s() - t0);
	}
	buf_release(&text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_answer),
		cmocka_unit_test(test_prose_fences_and_missing_fields),
		cmocka_unit_test(test_bare_array),
		cmocka_unit_test(test_threadline_references),
		cmocka_unit_test(test_unusable_answers),
		cmocka_unit_test(test_findings_are_capped),
		cmocka_unit_test(test_references_are_capped),
		cmocka_unit_test(test_fields_are_cut_at_a_character),
		cmocka_unit_test(test_reference_findings_are_bounded),
		cmocka_unit_test(test_huge_line_numbers),
		cmocka_unit_test(test_answer_too_large),
		cmocka_unit_test(test_hostile_shapes_are_fast),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
