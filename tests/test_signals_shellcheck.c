/*
 * shellcheck's -f gcc output, as shellcheck printed it (tests/fixtures/signals,
 * see its README): gcc's shape, but its info and style levels are written
 * as "note:", each a finding with its code, so that none joins the
 * diagnostic before it as a compiler's notes do. From the sample script and
 * from pi-hole's pihole script (every finding a note, two at one place),
 * compared with shellcheck's own JSON of the same script, and mixed with a
 * compiler's real output, whose notes still join. A test of the gcc reader's
 * shellcheck path, apart from test_signals.c.
 */
#include "testlib.h"

#include "signals.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURES TEST_FIXTURES "/signals"
#define COUNT(a) (sizeof(a) / sizeof(*(a)))
#define SC_URL(n) "https://www.shellcheck.net/wiki/SC" #n

struct want {
	int line, column;
	const char *severity, *code, *message, *url;
};

static struct signal_list parse(const char *text, size_t len, int format, const char *tool)
{
	struct signal_list list;

	if (signals_parse(&list, text, len, format, tool) < 0)
		fail_msg("parse failed: %s\n%s", error_message(), text);
	if (list.nproblems)
		fail_msg("unexpected problem at line %d: %s", list.problems[0].line, list.problems[0].message);
	return list;
}

static struct signal_list parse_fixture(const char *name, int format, const char *tool)
{
	struct buf text = BUF_INIT;
	struct signal_list list;

	test_read(&text, FIXTURES, name);
	list = parse(text.ptr, text.len, format, tool);
	buf_release(&text);
	return list;
}

static void assert_list(const struct signal_list *list, const char *tool, const char *file,
			const struct want *want, size_t n)
{
	size_t i;

	assert_int_equal(list->count, n);
	for (i = 0; i < n; i++) {
		const struct signal *s = &list->items[i];

		assert_string_equal(s->tool, tool);
		assert_string_equal(s->file, file);
		assert_int_equal(s->line, want[i].line);
		assert_int_equal(s->column, want[i].column);
		assert_int_equal(s->end_line, 0);
		assert_int_equal(s->end_column, 0);
		assert_string_equal(s->severity, want[i].severity);
		assert_string_equal(s->code, want[i].code);
		assert_string_equal(s->message, want[i].message);
		assert_string_equal(s->url, want[i].url);
	}
}

#define DQ "Double quote to prevent globbing and word splitting."
#define SC2086(l, c) { l, c, "note", "SC2086", DQ, SC_URL(2086) }
#define BRACES "Prefer putting braces around variable references even when not strictly required."
#define SC2250(l, c) { l, c, "note", "SC2250", BRACES, SC_URL(2250) }

/* A tab counts as one column, as in -f json1 (line 11). */
static const struct want sample_want[] = {
	SC2086(5, 9),
	SC2086(9, 4),
	SC2086(9, 9),
	{ 10, 10, "error", "SC2045", "Iterating over ls output is fragile. Use globs.", SC_URL(2045) },
	{ 10, 10, "note", "SC2006", "Use $(...) notation instead of legacy backticks `...`.", SC_URL(2006) },
	SC2086(10, 14),
	SC2086(11, 7),
	{ 13, 1, "warning", "SC2164", "Use 'cd ... || exit' or 'cd ... || return' in case cd fails.",
	  SC_URL(2164) },
	SC2086(13, 4),
};

static const struct want pihole_want[] = {
	SC2250(85, 13),
	SC2250(86, 13),
	SC2250(87, 13),
	SC2086(177, 22),
	SC2250(178, 12),
	SC2086(193, 22),
	SC2250(194, 12),
	{ 246, 15, "note", "SC2004", "$/${} is unnecessary on arithmetic variables.", SC_URL(2004) },
	SC2086(324, 59),
	SC2086(335, 59),
	SC2086(355, 22),
	SC2250(357, 12),
	SC2086(382, 8),
	SC2250(384, 20),
	SC2086(414, 11),
	SC2250(414, 11),
	SC2250(593, 9),
};

static void test_detected(void **state)
{
	struct signal_list list;

	(void)state;
	/* The notes after an error and a warning at their lines are findings of their own. */
	list = parse_fixture("shellcheck-gcc.txt", -1, NULL);
	assert_int_equal(list.format, SIGNAL_SHELLCHECK_GCC);
	assert_string_equal(signal_format_name(list.format), "shellcheck-gcc");
	assert_list(&list, "shellcheck", "src/sample.sh", sample_want, COUNT(sample_want));
	signal_list_release(&list);

	/* Notes only, one after another, two at the same place: 17 signals, not 1. */
	list = parse_fixture("pihole-shellcheck-gcc.txt", -1, NULL);
	assert_int_equal(list.format, SIGNAL_SHELLCHECK_GCC);
	assert_list(&list, "shellcheck", "pihole", pihole_want, COUNT(pihole_want));
	signal_list_release(&list);
}

static void test_said(void **state)
{
	enum signal_format format;
	struct signal_list list;

	(void)state;
	assert_true(signal_format_parse(&format, "shellcheck-gcc") && format == SIGNAL_SHELLCHECK_GCC);
	/* Read as gcc's (--format gcc), under any tool's name: the notes are still shellcheck's. */
	list = parse_fixture("pihole-shellcheck-gcc.txt", SIGNAL_GCC, NULL);
	assert_int_equal(list.format, SIGNAL_GCC);
	assert_list(&list, "gcc", "pihole", pihole_want, COUNT(pihole_want));
	signal_list_release(&list);
	list = parse_fixture("shellcheck-gcc.txt", SIGNAL_GCC, "shellcheck");
	assert_list(&list, "shellcheck", "src/sample.sh", sample_want, COUNT(sample_want));
	signal_list_release(&list);
	list = parse_fixture("shellcheck-gcc.txt", SIGNAL_SHELLCHECK_GCC, "mylint");
	assert_list(&list, "mylint", "src/sample.sh", sample_want, COUNT(sample_want));
	signal_list_release(&list);
}

/* The same findings as shellcheck's own JSON (json1: a tab is one column there too). */
static void test_as_json(void **state)
{
	struct signal_list gcc = parse_fixture("shellcheck-gcc.txt", -1, NULL);
	struct signal_list json = parse_fixture("shellcheck-json1.json", -1, NULL);
	size_t i;

	(void)state;
	assert_int_equal(json.format, SIGNAL_SHELLCHECK);
	assert_int_equal(gcc.count, json.count);
	for (i = 0; i < gcc.count; i++) {
		const struct signal *g = &gcc.items[i], *j = &json.items[i];

		assert_string_equal(g->tool, j->tool);
		assert_string_equal(g->file, j->file);
		assert_int_equal(g->line, j->line);
		assert_int_equal(g->column, j->column);
		assert_string_equal(g->code, j->code);
		assert_string_equal(g->message, j->message);
		assert_string_equal(g->url, j->url);
		/* JSON's info and style are both "note:" in gcc's shape. */
		if (strcmp(j->severity, "info") && strcmp(j->severity, "style"))
			assert_string_equal(g->severity, j->severity);
		else
			assert_string_equal(g->severity, "note");
	}
	signal_list_release(&gcc);
	signal_list_release(&json);
}

/*
 * A build's log with both tools' lines (make lint): gcc's own notes (the
 * undeclared identifier's, of gcc.txt) still join their error; shellcheck's
 * do not, whatever came before them.
 */
static void test_mixed(void **state)
{
	struct buf text = BUF_INIT, shell = BUF_INIT;
	struct signal_list list;
	size_t i, errors = 0;

	(void)state;
	test_read(&text, FIXTURES, "gcc.txt");
	test_read(&shell, FIXTURES, "shellcheck-gcc.txt");
	assert_int_equal(buf_put(&text, shell.ptr, shell.len), 0);
	list = parse(text.ptr, text.len, SIGNAL_GCC, NULL);
	assert_int_equal(list.count, 8 + COUNT(sample_want));
	for (i = 0; i < list.count; i++) {
		const struct signal *s = &list.items[i];

		if (!strcmp(s->file, "src/sample.c") && s->line == 17) {
			errors++;
			assert_string_equal(s->message, "‘missing_factor’ undeclared (first use in this function)\n"
					    "each undeclared identifier is reported only once for each function it appears in");
		}
		if (!strcmp(s->file, "src/sample.sh"))
			assert_null(strchr(s->message, '\n'));
	}
	assert_int_equal(errors, 1);
	signal_list_release(&list);
	buf_release(&text);
	buf_release(&shell);
}

/* Not shellcheck's code: "SC" and four digits, nothing more. */
static void test_not_codes(void **state)
{
	struct signal_list list;
	static const char text[] =
		"a.c:3:5: warning: w [-Wunused]\n"
		"a.c:3:5: note: n1 [SC20860]\n"
		"a.c:3:5: note: n2 [SC208]\n"
		"a.c:3:5: note: n3 [sc2086]\n"
		"a.sh:4:1: note: n4 [SC2086]\n";

	(void)state;
	list = parse(text, strlen(text), -1, NULL);
	assert_int_equal(list.format, SIGNAL_GCC);
	assert_int_equal(list.count, 2);
	/* Joined, as a compiler's notes: their bracketed words are cut as codes are. */
	assert_string_equal(list.items[0].message, "w\nn1\nn2\nn3");
	assert_string_equal(list.items[1].code, "SC2086");
	assert_string_equal(list.items[1].url, SC_URL(2086));
	signal_list_release(&list);
}

/* shellcheck run here, if it is installed: its gcc output reads as its json1. */
static void test_live(void **state)
{
	char *dir = test_tmpdir("shellcheck-gcc");
	char *gcc_out, *json_out;
	struct signal_list gcc, json;
	size_t i;

	(void)state;
	if (test_sh(dir, "command -v shellcheck >/dev/null 2>&1") != 0) {
		print_message("skipping the live test of shellcheck -f gcc: not installed\n");
		goto done;
	}
	test_sh_ok(dir, "mkdir -p src && cp '%s'/src/sample.sh src/", FIXTURES);
	gcc_out = test_capture(dir, "shellcheck -f gcc src/sample.sh; true");
	json_out = test_capture(dir, "shellcheck -f json1 src/sample.sh; true");
	gcc = parse(gcc_out, strlen(gcc_out), -1, NULL);
	json = parse(json_out, strlen(json_out), -1, NULL);
	assert_int_equal(gcc.format, SIGNAL_SHELLCHECK_GCC);
	assert_true(gcc.count > 1);
	assert_int_equal(gcc.count, json.count);
	for (i = 0; i < gcc.count; i++) {
		assert_string_equal(gcc.items[i].code, json.items[i].code);
		assert_int_equal(gcc.items[i].line, json.items[i].line);
		assert_int_equal(gcc.items[i].column, json.items[i].column);
	}
	signal_list_release(&gcc);
	signal_list_release(&json);
	free(gcc_out);
	free(json_out);
done:
	test_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detected),
		cmocka_unit_test(test_said),
		cmocka_unit_test(test_as_json),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_not_codes),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
