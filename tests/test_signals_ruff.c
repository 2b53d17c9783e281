/*
 * ruff's output, as ruff itself printed it: every format revline reads
 * (json, json-lines, SARIF, concise, full) from ruff's own snapshot files
 * (tests/fixtures/signals/ruff, see its README for the commits and paths):
 * 0.16.4's command-line tests, which run the ruff binary, and the emitters'
 * snapshots of 0.4.7 and 0.0.270, for what older versions print. A test of
 * signals.c's ruff path, apart from test_signals.c.
 */
#include "testlib.h"

#include "signals.h"
#include "status.h"

#include <string.h>

#define RUFF TEST_FIXTURES "/signals/ruff"

struct want {
	const char *file, *code, *message;
	int line, column, end_line, end_column;
};

static struct signal_list parse(const char *name, int format)
{
	struct buf text = BUF_INIT;
	struct signal_list list;

	test_read(&text, RUFF, name);
	if (signals_parse(&list, text.ptr, text.len, format, NULL) < 0)
		fail_msg("%s: %s", name, error_message());
	buf_release(&text);
	return list;
}

static void assert_read(const char *name, enum signal_format format, const struct want *want, size_t n)
{
	struct signal_list list = parse(name, -1);
	size_t i;

	assert_int_equal(list.format, format);
	if (list.nproblems)
		fail_msg("%s: line %d, field %s: %s", name, list.problems[0].line,
			 list.problems[0].field ? list.problems[0].field : "-", list.problems[0].message);
	assert_int_equal(list.count, n);
	for (i = 0; i < n; i++) {
		const struct signal *s = &list.items[i];

		assert_string_equal(s->tool, "ruff");
		assert_string_equal(s->severity, "error");
		assert_string_equal(s->file, want[i].file);
		assert_string_equal(s->code, want[i].code);
		assert_string_equal(s->message, want[i].message);
		assert_int_equal(s->line, want[i].line);
		assert_int_equal(s->column, want[i].column);
		assert_int_equal(s->end_line, want[i].end_line);
		assert_int_equal(s->end_column, want[i].end_column);
	}
	signal_list_release(&list);
	/* Named, the format reads the same. */
	list = parse(name, (int)format);
	assert_int_equal(list.count, n);
	assert_int_equal(list.nproblems, 0);
	signal_list_release(&list);
}

#define SYNTAX "Cannot use `match` statement on Python 3.9 (syntax was added in Python 3.10)"

/* ruff 0.16.4 on input.py: F401 (fixable), F821, and a syntax error. */
static const struct want v016_json[] = {
	{ "[TMP]/input.py", "F401", "`os` imported but unused", 1, 8, 1, 10 },
	{ "[TMP]/input.py", "F821", "Undefined name `y`", 2, 5, 2, 6 },
	{ "[TMP]/input.py", "invalid-syntax", SYNTAX, 3, 1, 3, 6 },
};
/* Its text gives the path as given and no end. */
static const struct want v016_text[] = {
	{ "input.py", "F401", "`os` imported but unused", 1, 8, 0, 0 },
	{ "input.py", "F821", "Undefined name `y`", 2, 5, 0, 0 },
	{ "input.py", "invalid-syntax", SYNTAX, 3, 1, 0, 0 },
};

static void test_ruff_0_16(void **state)
{
	(void)state;
	assert_read("0.16.4/output.json", SIGNAL_RUFF, v016_json, 3);
	assert_read("0.16.4/output.jsonl", SIGNAL_RUFF, v016_json, 3);
	assert_read("0.16.4/output.sarif", SIGNAL_SARIF, v016_json, 3);
	/* "[*]" is not part of the message; "invalid-syntax:" is the code. */
	assert_read("0.16.4/concise.txt", SIGNAL_RUFF_TEXT, v016_text, 3);
	/* The header line, then " --> input.py:1:8"; the source and "help:" skipped. */
	assert_read("0.16.4/full.txt", SIGNAL_RUFF_TEXT, v016_text, 3);
}

/* The emitters' fib.py and undef.py, in 0.4.7 and 0.0.270. */
static const struct want old_json[] = {
	{ "fib.py", "F401", "`os` imported but unused", 1, 8, 1, 10 },
	{ "fib.py", "F841", "Local variable `x` is assigned to but never used", 6, 5, 6, 6 },
	{ "undef.py", "F821", "Undefined name `a`", 1, 4, 1, 5 },
};
static const struct want old_text[] = {
	{ "fib.py", "F401", "`os` imported but unused", 1, 8, 0, 0 },
	{ "fib.py", "F841", "Local variable `x` is assigned to but never used", 6, 5, 0, 0 },
	{ "undef.py", "F821", "Undefined name `a`", 1, 4, 0, 0 },
};

static void test_ruff_older(void **state)
{
	(void)state;
	/* No "severity" in 0.4.7: error, as ruff's SARIF said. */
	assert_read("0.4.7/output.json", SIGNAL_RUFF, old_json, 3);
	assert_read("0.4.7/output.jsonl", SIGNAL_RUFF, old_json, 3);
	/* The concise line with the source after it (lines "  |" like gcc's echo). */
	assert_read("0.4.7/full.txt", SIGNAL_RUFF_TEXT, old_text, 3);
	/* Keys in another order, no url, "applicability": "Suggested". */
	assert_read("0.0.270/output.json", SIGNAL_RUFF, old_json, 3);
	assert_read("0.0.270/full.txt", SIGNAL_RUFF_TEXT, old_text, 3);
}

static void test_ruff_lines_alone(void **state)
{
	const char *one = "{\"cell\":null,\"code\":\"F821\",\"end_location\":{\"column\":6,\"row\":2},"
		"\"filename\":\"a.py\",\"fix\":null,\"location\":{\"column\":5,\"row\":2},"
		"\"message\":\"Undefined name `y`\",\"noqa_row\":2,\"severity\":\"error\",\"url\":null}\n";
	const char *concise = "a.py:2:5: F821 Undefined name `y`\nFound 1 error.\n";
	const char *older_syntax = "a.py:3:1: SyntaxError: Expected an expression\nFound 1 error.\n";
	struct signal_list list;
	enum signal_format f;

	(void)state;
	/* json-lines with one diagnostic is one JSON document: still ruff's. */
	assert_int_equal(signals_detect(&f, one, strlen(one)), 0);
	assert_int_equal(f, SIGNAL_RUFF);
	assert_int_equal(signals_parse(&list, one, strlen(one), -1, NULL), 0);
	assert_int_equal(list.count, 1);
	assert_string_equal(list.items[0].code, "F821");
	signal_list_release(&list);
	/* Nothing fixable, but ruff's summary line names it. */
	assert_int_equal(signals_detect(&f, concise, strlen(concise)), 0);
	assert_int_equal(f, SIGNAL_RUFF_TEXT);
	/* Before "invalid-syntax": "SyntaxError:", with no code, as its JSON had none. */
	assert_int_equal(signals_parse(&list, older_syntax, strlen(older_syntax), SIGNAL_RUFF_TEXT, NULL), 0);
	assert_int_equal(list.count, 1);
	assert_string_equal(list.items[0].code, "");
	assert_string_equal(list.items[0].message, "SyntaxError: Expected an expression");
	assert_int_equal(list.nproblems, 0);
	signal_list_release(&list);
	/* flake8's own lines stay flake8's. */
	assert_int_equal(signals_detect(&f, "a.py:2:5: F821 undefined name 'y'\n", 34), 0);
	assert_int_equal(f, SIGNAL_FLAKE8);
}

static void test_ruff_text_problems(void **state)
{
	const char *text = "F401 `os` imported but unused\n  --> a.py:1\n"       /* no column */
		"  --> a.py:1:8\n"                                                /* no header before */
		"a.py:2:5: 12 not a code\n"
		"E501 Line too long (90 > 88)\n --> a.py:3:89\n";
	struct signal_list list;

	(void)state;
	assert_int_equal(signals_parse(&list, text, strlen(text), SIGNAL_RUFF_TEXT, NULL), 0);
	assert_int_equal(list.count, 1);
	assert_string_equal(list.items[0].code, "E501");
	assert_int_equal(list.items[0].line, 3);
	assert_int_equal(list.items[0].column, 89);
	/* " --> a.py:1" is no place of ruff's: skipped as source would be. */
	assert_int_equal(list.nproblems, 2);
	assert_int_equal(list.problems[0].line, 3);
	assert_int_equal(list.problems[1].line, 4);
	signal_list_release(&list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ruff_0_16),
		cmocka_unit_test(test_ruff_older),
		cmocka_unit_test(test_ruff_lines_alone),
		cmocka_unit_test(test_ruff_text_problems),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
