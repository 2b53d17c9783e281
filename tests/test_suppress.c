#include "testlib.h"

#include <stdlib.h>
#include <string.h>

#include "suppress.h"

/* "revline: ignore" comments, in the comment syntaxes people write. */
struct ignore_case {
	const char *line;
	const char *rule;
	bool ignores;
};

static const struct ignore_case cases[] = {
	{ "x = run(cmd)  # revline: ignore injection", "injection", true },
	{ "x = run(cmd)  # revline: ignore injection", "logging", false },
	{ "x = run(cmd)  # revline: ignore", "anything", true },
	{ "// revline: ignore injection, sql-injection", "sql-injection", true },
	{ "// revline: ignore injection,sql-injection", "sql-injection", true },
	{ "/* revline: ignore injection */", "injection", true },
	{ "/* revline: ignore */", "injection", true },
	{ "<!-- revline: ignore -->", "markup", true },
	{ "<!-- revline: ignore a11y -->", "markup", false },
	{ "-- revline:ignore sql", "sql", true },
	{ "; revline: ignore   spaced.rule_1 , other", "other", true },
	{ "# revline: ignore injection sql", "sql", false },       /* the list ends at a word without a comma */
	{ "# revline: ignored injection", "injection", false },    /* not the word */
	{ "# revline: ignoreinjection", "injection", false },
	{ "# revline ignore injection", "injection", false },      /* no colon */
	{ "# noqa: revline: ignore injection", "injection", true },
	{ "# revline: ignore injection-extra", "injection", false },
	{ "", "injection", false },
};

static void test_lines(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool got = suppress_line_ignores(cases[i].line, strlen(cases[i].line), cases[i].rule);

		if (got != cases[i].ignores)
			fail_msg("'%s' for %s: %d, expected %d", cases[i].line, cases[i].rule, got, cases[i].ignores);
	}
}

static int read_text(void *ctx, const char *path, bool old_side, struct buf *out)
{
	(void)old_side;
	if (strcmp(path, "app.py"))
		return -8;
	return buf_puts(out, (const char *)ctx);
}

/* On the finding's line or the one above; for a merged finding, every rule it came from. */
static void test_findings(void **state)
{
	static const char text[] =
		"import os\n"
		"# revline: ignore shell\n"
		"os.system(cmd)\n"
		"os.system(other)  # revline: ignore shell, paths\n"
		"\n"
		"os.system(third)\n";
	const struct file_reader reader = { read_text, (void *)text };
	struct suppress_files *files = NULL;
	struct finding f = { 0 };
	char *from[2] = { (char *)"shell", (char *)"paths" };

	(void)state;
	assert_int_equal(suppress_files_new(&files, &reader), 0);
	f.rule_id = (char *)"shell";
	f.file = (char *)"app.py";
	f.line = 3;
	assert_int_equal(suppress_inline(&f, files), 0);
	assert_true(f.suppressed);
	assert_string_equal(f.suppressed_by, "revline: ignore at line 2");
	free(f.suppressed_by);
	f.suppressed_by = NULL;
	f.suppressed = false;
	f.line = 6;                     /* two lines below: not suppressed */
	assert_int_equal(suppress_inline(&f, files), 0);
	assert_false(f.suppressed);
	f.rule_id = (char *)"paths";
	f.line = 3;                     /* the comment above names another rule */
	assert_int_equal(suppress_inline(&f, files), 0);
	assert_false(f.suppressed);
	f.from_rules = from;
	f.nfrom = 2;
	f.line = 4;
	assert_int_equal(suppress_inline(&f, files), 0);
	assert_true(f.suppressed);
	assert_string_equal(f.suppressed_by, "revline: ignore at line 4");
	free(f.suppressed_by);
	f.suppressed_by = NULL;
	f.suppressed = false;
	f.line = 3;                     /* only shell is ignored there: the merged finding stays */
	assert_int_equal(suppress_inline(&f, files), 0);
	assert_false(f.suppressed);
	f.file = (char *)"gone.py";     /* unreadable: nothing suppressed */
	assert_int_equal(suppress_inline(&f, files), 0);
	assert_false(f.suppressed);
	suppress_files_free(files);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_findings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
