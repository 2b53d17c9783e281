/*
 * References (refs.h) by the word search over an index's side, on a real
 * repository with the real ctags: call sites across files and languages,
 * whole words only, the definitions' own lines left out (or kept), the
 * bounds per name and in all, names that are no word, files whose word
 * filter rules them out never read, line text and column, CRLF.
 */
#include "testlib.h"

#include "clock.h"
#include "index.h"
#include "refs.h"
#include "repo.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir;
static struct repo *repo;
static struct index *index_;

static int setup(void **state)
{
	struct target_spec none = { 0 };
	struct target target = { 0 };
	struct index_options opts = { 0 };
	struct buf many = BUF_INIT;
	int i;

	(void)state;
	dir = test_repo_new("refs");
	test_write_str(dir, "lib/util.c", "int parse_value(const char *s)\n{\n\treturn s[0];\n}\n\n"
		       "int parse_value_fast(const char *s)\n{\n\treturn parse_value(s);\n}\n");
	test_write_str(dir, "app/main.c", "#include \"util.h\"\nint main(void)\n{\n\t/* parse_value here */\n"
		       "\treturn parse_value(\"1\") + parse_value(\"2\") + my_parse_value;\n}\n");
	test_write_str(dir, "tools/run.py", "from lib import parse_value\r\n\r\ndef run():\r\n"
		       "    return parse_value('x')\r\n");
	test_write_str(dir, "web/caf\xc3\xa9.js", "function \xc3\xa9t\xc3\xa9() { return 1; }\nconst x = \xc3\xa9t\xc3\xa9();\n");
	for (i = 0; i < 40; i++) {
		char path[64];

		snprintf(path, sizeof(path), "other/f%02d.txt", i);
		test_write_str(dir, path, "nothing to see in this file at all\n");
	}
	for (i = 0; i < 120; i++)
		buf_printf(&many, "hot();\n");
	test_write(dir, "many.c", many.ptr, many.len);
	test_commit(dir, "first");
	buf_release(&many);
	if (repo_open(&repo, dir) < 0 || repo_resolve(&target, repo, &none) < 0)
		fail_msg("%s", error_message());
	opts.repo = repo;
	opts.target = &target;
	if (index_new(&index_, &opts) < 0 || index_start(index_, NULL) < 0 || index_wait(index_, -1) < 0)
		fail_msg("%s", error_message());
	assert_true(index_done(index_));
	target_release(&target);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	index_free(index_);
	repo_free(repo);
	test_rmtree(dir);
	free(dir);
	return 0;
}

/* "path:line:column symbol| text" a reference a line. */
static char *listing(const struct refs *refs, const char *const *names)
{
	struct buf out = BUF_INIT;
	size_t i;

	for (i = 0; i < refs->count; i++)
		buf_printf(&out, "%s:%u:%u %s| %s\n", refs->items[i].file->path, refs->items[i].line, refs->items[i].column,
			   names[refs->items[i].symbol], refs->items[i].text);
	return out.ptr ? buf_detach(&out) : strdup("");
}

static void test_call_sites(void **state)
{
	const char *const names[] = { "parse_value" };
	struct refs refs;
	char *got;

	(void)state;
	assert_int_equal(refs_find(&refs, index_, names, 1, NULL), 0);
	got = listing(&refs, names);
	/* Whole words only (not parse_value_fast, not my_parse_value); once a line; the definition's line left out. */
	assert_string_equal(got,
			    "app/main.c:4:5 parse_value| \t/* parse_value here */\n"
			    "app/main.c:5:9 parse_value| \treturn parse_value(\"1\") + parse_value(\"2\") + my_parse_value;\n"
			    "lib/util.c:8:9 parse_value| \treturn parse_value(s);\n"
			    "tools/run.py:1:17 parse_value| from lib import parse_value\n"
			    "tools/run.py:4:12 parse_value|     return parse_value('x')\n");
	free(got);
	assert_true(refs.complete);
	assert_int_equal(refs.per_symbol[0], 5);
	/* The 40 other files hold none of its words: not read. */
	assert_true(refs.files_read <= 5);
	refs_release(&refs);
}

static void test_definitions_kept(void **state)
{
	const char *const names[] = { "parse_value_fast", "\xc3\xa9t\xc3\xa9" };
	struct refs_options opts = { .definitions = true };
	struct refs refs;
	char *got;

	(void)state;
	assert_int_equal(refs_find(&refs, index_, names, 2, &opts), 0);
	got = listing(&refs, names);
	assert_string_equal(got, "lib/util.c:6:5 parse_value_fast| int parse_value_fast(const char *s)\n"
			    "web/caf\xc3\xa9.js:1:10 \xc3\xa9t\xc3\xa9| function \xc3\xa9t\xc3\xa9() { return 1; }\n"
			    "web/caf\xc3\xa9.js:2:11 \xc3\xa9t\xc3\xa9| const x = \xc3\xa9t\xc3\xa9();\n");
	free(got);
	refs_release(&refs);

	/* Without the definitions, the UTF-8 name's call alone. */
	assert_int_equal(refs_find(&refs, index_, names + 1, 1, NULL), 0);
	assert_int_equal(refs.count, 1);
	assert_int_equal(refs.items[0].line, 2);
	refs_release(&refs);
}

static void test_bounds(void **state)
{
	const char *const names[] = { "hot", "parse_value", "a.b", "", "9lives" };
	struct refs_options opts = { .per_symbol = 10 };
	struct refs refs;

	(void)state;
	assert_int_equal(refs_find(&refs, index_, names, 5, &opts), 0);
	assert_int_equal(refs.per_symbol[0], 10);
	assert_int_equal(refs.per_symbol[1], 5);
	assert_int_equal(refs.per_symbol[2] + refs.per_symbol[3] + refs.per_symbol[4], 0);
	assert_false(refs.complete);
	refs_release(&refs);

	opts.per_symbol = 0;
	opts.total = 7;
	assert_int_equal(refs_find(&refs, index_, names, 2, &opts), 0);
	assert_int_equal(refs.count, 7);
	assert_false(refs.complete);
	refs_release(&refs);

	/* A deadline passed: nothing read. */
	opts.total = 0;
	opts.deadline_ms = 1;
	assert_int_equal(refs_find(&refs, index_, names, 2, &opts), 0);
	assert_int_equal(refs.files_read, 0);
	assert_false(refs.complete);
	refs_release(&refs);

	{
		const char *lots[REFS_SYMBOLS_MAX + 1];

		for (size_t i = 0; i <= REFS_SYMBOLS_MAX; i++)
			lots[i] = "x";
		assert_int_equal(refs_find(&refs, index_, lots, REFS_SYMBOLS_MAX + 1, NULL), RL_EUSAGE);
		refs_release(&refs);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_call_sites),
		cmocka_unit_test(test_definitions_kept),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests_name("refs", tests, setup, teardown);
}
