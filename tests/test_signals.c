/*
 * Linter output read into signals: every format on output captured from the
 * real tools (tests/fixtures/signals, see its README), detection, malformed
 * input reported and skipped, paths made relative to the working tree, and
 * the installed tools run live on the sample sources.
 */
#include "testlib.h"

#include "signals.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURES TEST_FIXTURES "/signals"
#define COUNT(a) (sizeof(a) / sizeof(*(a)))

struct expect {
	const char *file;
	int line, column, end_line, end_column;
	const char *severity, *code, *message, *url;
};

static struct signal_list parse_text(const char *text, int format, const char *tool)
{
	struct signal_list list;

	if (signals_parse(&list, text, strlen(text), format, tool) < 0)
		fail_msg("parse failed: %s\n%s", error_message(), text);
	return list;
}

static struct signal_list parse_fixture(const char *name, int format, const char *tool)
{
	struct buf text = BUF_INIT;
	struct signal_list list;

	test_read(&text, FIXTURES, name);
	if (signals_parse(&list, text.ptr, text.len, format, tool) < 0)
		fail_msg("%s: %s", name, error_message());
	buf_release(&text);
	return list;
}

static void assert_no_problems(const struct signal_list *list)
{
	if (list->nproblems)
		fail_msg("unexpected problem: line %d, field %s: %s", list->problems[0].line,
			 list->problems[0].field ? list->problems[0].field : "(none)", list->problems[0].message);
}

static void assert_signal(const struct signal *s, const char *tool, const struct expect *want)
{
	assert_string_equal(s->tool, tool);
	assert_string_equal(s->file, want->file);
	assert_int_equal(s->line, want->line);
	assert_int_equal(s->column, want->column);
	assert_int_equal(s->end_line, want->end_line);
	assert_int_equal(s->end_column, want->end_column);
	assert_string_equal(s->severity, want->severity);
	assert_string_equal(s->code, want->code);
	assert_string_equal(s->message, want->message);
	if (want->url)
		assert_string_equal(s->url, want->url);
	else
		assert_null(s->url);
	assert_int_equal(s->id, 0);
}

static void assert_signals(const struct signal_list *list, const char *tool, const struct expect *want,
			   size_t n)
{
	size_t i;

	assert_no_problems(list);
	assert_int_equal(list->count, n);
	for (i = 0; i < n; i++)
		assert_signal(&list->items[i], tool, &want[i]);
}

/* A fixture read with detection: its format, and exactly these signals. */
static void check_fixture(const char *name, const char *tool_arg, enum signal_format format, const char *tool,
			  const struct expect *want, size_t n)
{
	struct signal_list list = parse_fixture(name, -1, tool_arg);

	assert_int_equal(list.format, format);
	assert_signals(&list, tool, want, n);
	signal_list_release(&list);
}

/* The problem at i names this line or field and says something containing text. */
static void assert_problem(const struct signal_list *list, size_t i, int line, const char *field,
			   const char *text)
{
	const struct signal_problem *p;

	if (i >= list->nproblems)
		fail_msg("problem %zu expected, %zu found", i, list->nproblems);
	p = &list->problems[i];
	assert_int_equal(p->line, line);
	if (field)
		assert_string_equal(p->field, field);
	else
		assert_null(p->field);
	if (!strstr(p->message, text))
		fail_msg("problem %zu says \"%s\", not \"%s\"", i, p->message, text);
}

/* ------------------------------------------------------------ formats */

static void test_format_names(void **state)
{
	enum signal_format f;
	int i;

	(void)state;
	for (i = 0; i < SIGNAL_FORMAT_COUNT; i++) {
		assert_true(signal_format_parse(&f, signal_format_name((enum signal_format)i)));
		assert_int_equal(f, i);
	}
	assert_string_equal(signal_format_name(SIGNAL_MYPY_JSON), "mypy-json");
	assert_string_equal(signal_format_tool(SIGNAL_MYPY_JSON), "mypy");
	assert_string_equal(signal_format_tool(SIGNAL_GCC), "gcc");
	assert_true(signal_format_parse(&f, "clang") && f == SIGNAL_GCC);
	assert_true(signal_format_parse(&f, "cppcheck") && f == SIGNAL_GCC);
	assert_true(signal_format_parse(&f, "pycodestyle") && f == SIGNAL_FLAKE8);
	assert_true(signal_format_parse(&f, "SARIF") && f == SIGNAL_SARIF);
	assert_false(signal_format_parse(&f, "pylint"));
	assert_false(signal_format_parse(&f, NULL));
	assert_string_equal(signal_format_name(SIGNAL_FORMAT_COUNT), "unknown");
}

static const struct expect ruff_want[] = {
	{ "/home/ana/shop/src/sample.py", 2, 8, 2, 10, "error", "F401", "`os` imported but unused",
	  "https://docs.astral.sh/ruff/rules/unused-import" },
	{ "/home/ana/shop/src/sample.py", 8, 26, 8, 28, "error", "B006",
	  "Do not use mutable data structures for argument defaults",
	  "https://docs.astral.sh/ruff/rules/mutable-argument-default" },
	{ "/home/ana/shop/src/sample.py", 14, 17, 14, 21, "error", "E711",
	  "Comparison to `None` should be `cond is None`", "https://docs.astral.sh/ruff/rules/none-comparison" },
	{ "/home/ana/shop/src/sample.py", 23, 5, 23, 11, "error", "E722", "Do not use bare `except`",
	  "https://docs.astral.sh/ruff/rules/bare-except" },
	{ "/home/ana/shop/src/sample.py", 42, 1, 42, 12, "error", "F821", "Undefined name `reveal_type`",
	  "https://docs.astral.sh/ruff/rules/undefined-name" },
};

static void test_ruff(void **state)
{
	struct signal_list list;

	(void)state;
	check_fixture("ruff.json", NULL, SIGNAL_RUFF, "ruff", ruff_want, COUNT(ruff_want));

	/* A syntax error has no code. */
	list = parse_text("[{\"code\": null, \"filename\": \"a.py\", \"message\": \"SyntaxError: Expected ')'\", "
			  "\"location\": {\"row\": 3, \"column\": 7}, \"end_location\": {\"row\": 3, \"column\": 8}, "
			  "\"fix\": null, \"noqa_row\": null, \"url\": null}]", SIGNAL_RUFF, NULL);
	assert_int_equal(list.count, 1);
	assert_string_equal(list.items[0].code, "");
	assert_null(list.items[0].url);
	assert_int_equal(list.items[0].line, 3);
	signal_list_release(&list);
}

static const struct expect flake8_want[] = {
	{ "src/sample.py", 2, 1, 0, 0, "error", "F401", "'os' imported but unused", NULL },
	{ "src/sample.py", 14, 14, 0, 0, "error", "E711", "comparison to None should be 'if cond is None:'", NULL },
	{ "src/sample.py", 23, 5, 0, 0, "error", "E722", "do not use bare 'except'", NULL },
	{ "src/sample.py", 42, 1, 0, 0, "error", "F821", "undefined name 'reveal_type'", NULL },
};

static void test_flake8(void **state)
{
	struct signal_list list;

	(void)state;
	check_fixture("flake8.txt", NULL, SIGNAL_FLAKE8, "flake8", flake8_want, COUNT(flake8_want));

	/*
	 * pycodestyle's warnings, another tool's name, CRLF, colons in paths
	 * (ruff's concise text, with its fix mark, is ruff-text: test_signals_ruff.c).
	 */
	list = parse_text("x.py:3:80: W291 trailing whitespace\r\n"
			  "C:\\src\\a.py:1:1: E265 block comment should start with '# '\r\n"
			  "v1:2/b.py:4:1: E302 expected 2 blank lines, found 1\r\n", -1, "pycodestyle");
	assert_no_problems(&list);
	assert_int_equal(list.count, 3);
	assert_string_equal(list.items[1].file, "C:\\src\\a.py");
	assert_string_equal(list.items[2].file, "v1:2/b.py");
	assert_int_equal(list.items[2].line, 4);
	assert_string_equal(list.items[0].tool, "pycodestyle");
	assert_string_equal(list.items[0].severity, "warning");
	assert_string_equal(list.items[0].message, "trailing whitespace");
	signal_list_release(&list);
}

#define MYPY_28 "Unsupported operand types for + (\"int\" and \"str\")"
#define MYPY_31 "Incompatible default for argument \"factor\" (default has type \"None\", " \
	"argument has type \"int\")"
#define MYPY_31_NOTES "\nPEP 484 prohibits implicit Optional. Accordingly, mypy has changed its default to " \
	"no_implicit_optional=True\nUse https://github.com/hauntsaninja/no_implicit_optional to automatically " \
	"upgrade your codebase"
#define MYPY_41 "Incompatible types in assignment (expression has type \"str\", variable has type \"int\")"

static const struct expect mypy_want[] = {
	{ "src/sample.py", 28, 0, 0, 0, "error", "operator", MYPY_28, NULL },
	{ "src/sample.py", 31, 0, 0, 0, "error", "assignment", MYPY_31 MYPY_31_NOTES, NULL },
	{ "src/sample.py", 41, 0, 0, 0, "error", "assignment", MYPY_41, NULL },
	{ "src/sample.py", 42, 0, 0, 0, "note", "", "Revealed type is \"builtins.int\"", NULL },
};

/* With columns and ends; the JSON output gives the same (its columns are 0-based). */
static const struct expect mypy_columns_want[] = {
	{ "src/sample.py", 28, 26, 28, 29, "error", "operator", MYPY_28, NULL },
	{ "src/sample.py", 31, 37, 31, 41, "error", "assignment", MYPY_31 MYPY_31_NOTES, NULL },
	{ "src/sample.py", 41, 14, 41, 21, "error", "assignment", MYPY_41, NULL },
	{ "src/sample.py", 42, 13, 42, 18, "note", "", "Revealed type is \"builtins.int\"", NULL },
};

static void test_mypy(void **state)
{
	struct signal_list list;

	(void)state;
	/* The notes after the error on line 31 are part of it; the one on line 42 stands alone. */
	check_fixture("mypy.txt", NULL, SIGNAL_MYPY, "mypy", mypy_want, COUNT(mypy_want));

	/* --show-error-context lines ("In function") say where, they are no signals. */
	check_fixture("mypy-columns.txt", NULL, SIGNAL_MYPY, "mypy", mypy_columns_want, COUNT(mypy_columns_want));

	/* An error about a whole file; a note about another line than the error before it. */
	list = parse_text("pkg/__init__.py: error: Duplicate module named \"pkg\"  [misc]\n"
			  "a.py:3: error: Name \"x\" is not defined  [name-defined]\n"
			  "a.py:9: note: \"f\" defined here\n"
			  "Found 2 errors in 2 files (checked 2 source files)\n", SIGNAL_MYPY, NULL);
	assert_no_problems(&list);
	assert_int_equal(list.count, 3);
	assert_int_equal(list.items[0].line, 0);
	assert_string_equal(list.items[0].code, "misc");
	assert_string_equal(list.items[1].message, "Name \"x\" is not defined");
	assert_string_equal(list.items[2].severity, "note");
	assert_int_equal(list.items[2].line, 9);
	signal_list_release(&list);
}

static void test_mypy_json(void **state)
{
	struct expect want[COUNT(mypy_columns_want)];
	struct signal_list list;

	(void)state;
	memcpy(want, mypy_columns_want, sizeof(want));
	want[3].code = "misc";       /* the JSON names the note's code */
	check_fixture("mypy.json", NULL, SIGNAL_MYPY_JSON, "mypy", want, COUNT(want));

	/*
	 * mypy 1.11's lines had no end and no severity; a syntax error comes as
	 * text even with --output json; -1 is mypy's unknown.
	 */
	list = parse_text("{\"file\": \"m.py\", \"line\": 5, \"column\": 0, \"message\": \"Too many arguments\", "
			  "\"hint\": null, \"code\": \"call-arg\"}\n"
			  "bad.py:1: error: Invalid syntax  [syntax]\n"
			  "{\"file\": \"n.py\", \"line\": -1, \"column\": -1, \"message\": \"m\", \"hint\": \"h\", "
			  "\"code\": null, \"severity\": \"note\"}\n", -1, NULL);
	assert_int_equal(list.format, SIGNAL_MYPY_JSON);
	assert_no_problems(&list);
	assert_int_equal(list.count, 3);
	assert_int_equal(list.items[0].column, 1);
	assert_int_equal(list.items[0].end_column, 0);
	assert_string_equal(list.items[0].severity, "error");
	assert_string_equal(list.items[1].file, "bad.py");
	assert_string_equal(list.items[1].code, "syntax");
	assert_int_equal(list.items[2].line, 0);
	assert_int_equal(list.items[2].column, 0);
	assert_string_equal(list.items[2].message, "m\nh");
	assert_string_equal(list.items[2].code, "");
	signal_list_release(&list);
}

/* Both lists hold the same signals, in the same order. */
static void assert_same_signals(const struct signal_list *a, const struct signal_list *b)
{
	size_t i;

	assert_no_problems(a);
	assert_no_problems(b);
	assert_int_equal(a->count, b->count);
	for (i = 0; i < a->count; i++) {
		const struct expect want = {
			a->items[i].file, a->items[i].line, a->items[i].column, a->items[i].end_line,
			a->items[i].end_column, a->items[i].severity, a->items[i].code, a->items[i].message, NULL,
		};

		assert_signal(&b->items[i], a->items[i].tool, &want);
	}
}

static void test_mypy_pretty(void **state)
{
	struct signal_list plain = parse_fixture("bottle-mypy.txt", -1, NULL);
	struct signal_list pretty = parse_fixture("bottle-mypy-pretty.txt", -1, NULL);

	(void)state;
	/*
	 * --pretty wraps the messages at 80 columns (the code alone on a line,
	 * after a line that ends with a space, at line 83) and adds the source
	 * line with a marker: read, they are the plain output's signals.
	 */
	assert_int_equal(pretty.format, SIGNAL_MYPY);
	assert_int_equal(plain.count, 38);
	assert_same_signals(&plain, &pretty);
	assert_int_equal(pretty.items[3].line, 83);
	assert_string_equal(pretty.items[3].code, "assignment");
	assert_string_equal(pretty.items[3].message,
			    "Incompatible import of \"json_dumps\" (imported name has type \"Callable[[Any, "
			    "DefaultNamedArg(bool, 'skipkeys'), DefaultNamedArg(bool, 'ensure_ascii'), "
			    "DefaultNamedArg(bool, 'check_circular'), DefaultNamedArg(bool, 'allow_nan'), "
			    "DefaultNamedArg(Optional[Type[JSONEncoder]], 'cls'), DefaultNamedArg(Union[None, int, str], "
			    "'indent'), DefaultNamedArg(Optional[Tuple[str, str]], 'separators'), "
			    "DefaultNamedArg(Optional[Callable[[Any], Any]], 'default'), DefaultNamedArg(bool, "
			    "'sort_keys'), KwArg(Any)], str]\", local name has type \"Callable[[Any, bool, int, bool, "
			    "bool, bool, int], str]\")");
	assert_string_equal(pretty.items[5].message, "By default the bodies of untyped functions are not checked, "
			    "consider using --check-untyped-defs");
	assert_string_equal(pretty.items[5].severity, "note");
	signal_list_release(&plain);
	signal_list_release(&pretty);

	/*
	 * OctoPrint: a message over four lines, source lines cut with "...",
	 * and notes indented as mypy prints them (overload variants, the
	 * signatures of a superclass and a subclass).
	 */
	plain = parse_fixture("octoprint-mypy.txt", -1, NULL);
	pretty = parse_fixture("octoprint-mypy-pretty.txt", -1, NULL);
	assert_int_equal(plain.count, 8);
	assert_same_signals(&plain, &pretty);
	assert_string_equal(pretty.items[0].code, "override");
	assert_string_equal(pretty.items[0].message,
			    "Signature of \"_get_files_zip\" incompatible with supertype \"DynamicZipBundleHandler\"\n"
			    "     Superclass:\n"
			    "         def _get_files_zip(self, files: Any) -> Any\n"
			    "     Subclass:\n"
			    "         def _get_files_zip(self, storage: str, files: Dict[Any, Any]) -> Any");
	assert_string_equal(pretty.items[1].message,
			    "No overload variant of \"__add__\" of \"list\" matches argument type \"Dict[str, Any]\"\n"
			    "Possible overload variants:\n"
			    "    def __add__(self, List[Any], /) -> List[Any]\n"
			    "    def [_S] __add__(self, List[_S], /) -> List[Union[_S, Any]]");
	assert_int_equal(pretty.items[3].line, 6032);
	assert_string_equal(pretty.items[3].message,
			    "Incompatible types in assignment (expression has type "
			    "\"Union[int, str, bytes, PathLike[str], PathLike[bytes]]\", variable has type \"str\")");
	/* The note in typeshed is about another file: a signal of its own. */
	assert_string_equal(pretty.items[5].file, "/usr/lib/python3/dist-packages/mypy/typeshed/stdlib/io.pyi");
	assert_string_equal(pretty.items[5].severity, "note");
	signal_list_release(&plain);
	signal_list_release(&pretty);

	/*
	 * An error about a whole file has no source line and this one no code
	 * (mypy 1.0.1 on two packages of the same name, as printed); what is
	 * not a wrapped message (a crash's traceback) stays out of the one
	 * before it.
	 */
	pretty = parse_text("b/pkg/__init__.py: error: Duplicate module named \"pkg\" (also at\n"
			    "\"a/pkg/__init__.py\")\n"
			    "b/pkg/__init__.py: note: See https://mypy.readthedocs.io/en/stable/running_mypy.html"
			    "#mapping-file-paths-to-modules for more info\n"
			    "Found 1 error in 1 file (errors prevented further checking)\n", SIGNAL_MYPY, NULL);
	assert_no_problems(&pretty);
	assert_int_equal(pretty.count, 1);
	assert_int_equal(pretty.items[0].line, 0);
	assert_string_equal(pretty.items[0].message, "Duplicate module named \"pkg\" (also at \"a/pkg/__init__.py\")\n"
			    "See https://mypy.readthedocs.io/en/stable/running_mypy.html#mapping-file-paths-to-modules "
			    "for more info");
	signal_list_release(&pretty);
	pretty = parse_text("a.py:3: error: INTERNAL ERROR -- Please try using mypy master on GitHub:\n"
			    "https://mypy.readthedocs.io/en/stable/common_issues.html#using-a-development-mypy-build\n"
			    "Traceback (most recent call last):\n"
			    "  File \"mypy/checker.py\", line 585, in accept\n"
			    "    stmt.accept(self)\n"
			    "RuntimeError: boom\n"
			    "a.py:4: error: Wrapped\n"
			    "message  [misc]\n"
			    "    x = 1\n"
			    "    ^\n"
			    "a.py:5: error: Wrapped without a code\n"
			    "at all\n"
			    "    y = 2\n"
			    "    ^~~\n"
			    "Found 3 errors in 1 file (checked 1 source file)\n", SIGNAL_MYPY, NULL);
	assert_no_problems(&pretty);
	assert_int_equal(pretty.count, 3);
	assert_string_equal(pretty.items[0].message, "INTERNAL ERROR -- Please try using mypy master on GitHub:");
	assert_string_equal(pretty.items[1].message, "Wrapped message");
	assert_string_equal(pretty.items[1].code, "misc");
	assert_string_equal(pretty.items[2].message, "Wrapped without a code at all");
	assert_string_equal(pretty.items[2].code, "");
	signal_list_release(&pretty);
}

static const struct expect bandit_want[] = {
	{ "src/sample.py", 3, 0, 3, 0, "LOW", "B404",
	  "Consider possible security implications associated with subprocess module.",
	  "https://bandit.readthedocs.io/en/latest/blacklists/blacklist_imports.html#b404-import-subprocess" },
	{ "src/sample.py", 36, 0, 36, 0, "HIGH", "B602",
	  "subprocess call with shell=True identified, security issue.",
	  "https://bandit.readthedocs.io/en/latest/plugins/b602_subprocess_popen_with_shell_equals_true.html" },
	{ "src/sample.py", 38, 0, 38, 0, "LOW", "B101",
	  "Use of assert detected. The enclosed code will be removed when compiling to optimised byte code.",
	  "https://bandit.readthedocs.io/en/latest/plugins/b101_assert_used.html" },
};

static void test_bandit(void **state)
{
	struct signal_list list;

	(void)state;
	check_fixture("bandit.json", NULL, SIGNAL_BANDIT, "bandit", bandit_want, COUNT(bandit_want));

	/* Newer bandits give 0-based column offsets; files they could not read are problems. */
	list = parse_text("{\"errors\": [{\"filename\": \"broken.py\","
			  " \"reason\": \"syntax error while parsing AST from file\"}],"
			  " \"results\": [{\"filename\": \"a.py\", \"line_number\": 4, \"line_range\": [4, 5, 6],"
			  " \"col_offset\": 4, \"end_col_offset\": 40, \"issue_text\": \"t\", \"issue_severity\": \"MEDIUM\","
			  " \"issue_confidence\": \"HIGH\", \"test_id\": \"B608\", \"test_name\": \"hardcoded_sql_expressions\","
			  " \"more_info\": \"https://bandit.invalid/b608\"}]}", -1, NULL);
	assert_int_equal(list.count, 1);
	assert_int_equal(list.items[0].column, 5);
	assert_int_equal(list.items[0].end_line, 6);
	assert_int_equal(list.items[0].end_column, 41);
	assert_string_equal(list.items[0].severity, "MEDIUM");
	assert_int_equal(list.nproblems, 1);
	assert_problem(&list, 0, 0, "errors[0]", "bandit could not scan broken.py: syntax error");
	signal_list_release(&list);
}

#define SC_URL(n) "https://www.shellcheck.net/wiki/SC" #n
#define SC2086(l, c, e) { "src/sample.sh", l, c, l, e, "info", "SC2086", \
	"Double quote to prevent globbing and word splitting.", SC_URL(2086) }

/* -f json counts a tab as 8 columns (line 11); -f json1 as one. */
static const struct expect shellcheck_want[] = {
	SC2086(5, 9, 13),
	SC2086(9, 4, 8),
	SC2086(9, 9, 14),
	{ "src/sample.sh", 10, 10, 10, 20, "error", "SC2045", "Iterating over ls output is fragile. Use globs.",
	  SC_URL(2045) },
	{ "src/sample.sh", 10, 10, 10, 20, "style", "SC2006",
	  "Use $(...) notation instead of legacy backticks `...`.", SC_URL(2006) },
	SC2086(10, 14, 19),
	SC2086(11, 14, 16),
	{ "src/sample.sh", 13, 1, 13, 9, "warning", "SC2164",
	  "Use 'cd ... || exit' or 'cd ... || return' in case cd fails.", SC_URL(2164) },
	SC2086(13, 4, 9),
};

static void test_shellcheck(void **state)
{
	struct expect json1[COUNT(shellcheck_want)];

	(void)state;
	check_fixture("shellcheck.json", NULL, SIGNAL_SHELLCHECK, "shellcheck", shellcheck_want,
		      COUNT(shellcheck_want));
	memcpy(json1, shellcheck_want, sizeof(json1));
	json1[6].column = 7;
	json1[6].end_column = 9;
	check_fixture("shellcheck-json1.json", NULL, SIGNAL_SHELLCHECK, "shellcheck", json1, COUNT(json1));
}

static const struct expect gcc_want[] = {
	{ "src/sample.c", 13, 19, 0, 0, "warning", "-Wsign-compare",
	  "comparison of integer expressions of different signedness: ‘int’ and ‘unsigned int’", NULL },
	{ "src/sample.c", 15, 13, 0, 0, "warning", "-Wparentheses",
	  "suggest parentheses around assignment used as truth value", NULL },
	{ "src/sample.c", 16, 26, 0, 0, "warning", "-Wformat=",
	  "format ‘%s’ expects argument of type ‘char *’, but argument 2 has type ‘int’", NULL },
	{ "src/sample.c", 17, 24, 0, 0, "error", "",
	  "‘missing_factor’ undeclared (first use in this function)\n"
	  "each undeclared identifier is reported only once for each function it appears in", NULL },
	{ "src/sample.c", 10, 13, 0, 0, "warning", "-Wunused-variable", "unused variable ‘unused’", NULL },
	{ "src/sample.c", 8, 26, 0, 0, "warning", "-Wunused-parameter", "unused parameter ‘factor’", NULL },
	{ "src/sample.c", 18, 1, 0, 0, "warning", "-Wreturn-type",
	  "control reaches end of non-void function", NULL },
	{ "src/sample.c", 3, 12, 0, 0, "warning", "-Wunused-function",
	  "‘unused_helper’ defined but not used", NULL },
};

static const struct expect clang_want[] = {
	{ "src/sample.c", 15, 12, 0, 0, "warning", "-Wparentheses",
	  "using the result of an assignment as a condition without parentheses\n"
	  "place parentheses around the assignment to silence this warning\n"
	  "use '==' to turn this assignment into an equality comparison", NULL },
	{ "src/sample.c", 16, 18, 0, 0, "warning", "-Wformat",
	  "format specifies type 'char *' but the argument has type 'int'", NULL },
	{ "src/sample.c", 17, 17, 0, 0, "error", "", "use of undeclared identifier 'missing_factor'", NULL },
	{ "src/sample.c", 8, 26, 0, 0, "warning", "-Wunused-parameter", "unused parameter 'factor'", NULL },
	{ "src/sample.c", 13, 12, 0, 0, "warning", "-Wsign-compare",
	  "comparison of integers of different signs: 'int' and 'unsigned int'", NULL },
};

static const struct expect cppcheck_want[] = {
	{ "src/sample.c", 15, 12, 0, 0, "style", "knownConditionTrueFalse",
	  "Condition 'value=5' is always true", NULL },
	{ "src/sample.c", 16, 3, 0, 0, "warning", "invalidPrintfArgType_s",
	  "%s in format string (no. 1) requires 'char *' but the argument type is 'signed int'.", NULL },
	{ "src/sample.c", 10, 6, 0, 0, "style", "unusedVariable", "Unused variable: unused", NULL },
	{ "src/sample.c", 3, 0, 0, 0, "style", "unusedFunction",
	  "The function 'unused_helper' is never used.", NULL },
	{ "nofile", 0, 0, 0, 0, "information", "missingIncludeSystem",
	  "Cppcheck cannot find all the include files (use --check-config for details)", NULL },
};

static void test_gcc_clang_cppcheck(void **state)
{
	(void)state;
	/* Context, source echo and carets are skipped; the note at the error's line joins it. */
	check_fixture("gcc.txt", NULL, SIGNAL_GCC, "gcc", gcc_want, COUNT(gcc_want));
	check_fixture("clang.txt", "clang", SIGNAL_GCC, "clang", clang_want, COUNT(clang_want));
	check_fixture("cppcheck.txt", "cppcheck", SIGNAL_GCC, "cppcheck", cppcheck_want, COUNT(cppcheck_want));
}

static void test_gcc_variants(void **state)
{
	/*
	 * Colours and URLs as gcc writes them to a terminal, -Werror in both
	 * spellings, headers, a note elsewhere.
	 */
	struct signal_list list = parse_text(
		"In file included from main.c:1:\n"
		"\033[01m\033[Kinc/a.h:4:7:\033[m\033[K \033[01;31m\033[Kerror: \033[m\033[Kunused variable "
		"‘x’ [\033[01;31m\033[K\033]8;;"
		"https://gcc.gnu.org/onlinedocs/gcc/Warning-Options.html#index-Wunused-variable"
		"\033\\-Werror=unused-variable\033]8;;\033\\\033[m\033[K]\n"
		"b.c:9:3: error: unused variable 'y' [-Werror,-Wunused-variable]\n"
		"b.c:12:5: warning: 'old' is deprecated [-Wdeprecated-declarations,Deprecations]\n"
		"b.h:2:6: note: 'old' has been explicitly marked deprecated here\n"
		"b.c:14:1: fatal error: zzz.h: No such file or directory\n"
		"cc1: all warnings being treated as errors\n"
		"compilation terminated.\n", -1, NULL);

	(void)state;
	assert_int_equal(list.format, SIGNAL_GCC);
	assert_no_problems(&list);
	assert_int_equal(list.count, 4);
	assert_string_equal(list.items[0].file, "inc/a.h");
	assert_string_equal(list.items[0].code, "-Wunused-variable");
	assert_string_equal(list.items[0].message, "unused variable ‘x’");
	assert_string_equal(list.items[1].code, "-Wunused-variable");
	assert_string_equal(list.items[2].code, "-Wdeprecated-declarations");
	/* The note in another file joins the warning before it, with its place. */
	assert_string_equal(list.items[2].message,
			    "'old' is deprecated\nb.h:2:6: note: 'old' has been explicitly marked deprecated here");
	assert_string_equal(list.items[3].severity, "fatal error");
	assert_string_equal(list.items[3].message, "zzz.h: No such file or directory");
	signal_list_release(&list);

	/* A note with no diagnostic before it stands alone. */
	list = parse_text("a.c:1:5: note: previous declaration of 'f' with type 'int(void)'\n", -1, NULL);
	assert_int_equal(list.count, 1);
	assert_string_equal(list.items[0].severity, "note");
	signal_list_release(&list);
}

#define DOOM_PREVIOUS(name, l, v) { "doomtype.h", l, 0, 0, 0, "warning", "", "\"" name "\" redefined\n" \
	"/usr/include/values.h:" #v ": note: this is the location of the previous definition", NULL }

/*
 * DOOM: its header's warnings come from every file that includes it, the
 * notes gcc prints after a warning (in another file, after "In file
 * included from", a fall-through's "here"), a message with the newlines of
 * a format string, and a macro's -Wmisleading-indentation placed where the
 * macro is expanded, as gcc's -fdiagnostics-format=json places it (and its
 * "...this statement" too).
 */
static void test_gcc_groups(void **state)
{
	static const struct expect want[] = {
		{ "am_map.c", 461, 5, 0, 0, "warning", "-Wmissing-field-initializers",
		  "missing initializer for field ‘data2’ of ‘event_t’\nd_event.h:48:17: note: ‘data2’ declared here",
		  NULL },
		{ "am_map.c", 520, 9, 0, 0, "warning", "-Wmisleading-indentation",
		  "this ‘if’ clause does not guard...\n"
		  "z_zone.h:74:7: note: in definition of macro ‘Z_ChangeTag’\n"
		  "...this statement, but the latter is misleadingly indented as if it were guarded by the ‘if’\n"
		  "z_zone.h:76:11: note: in definition of macro ‘Z_ChangeTag’", NULL },
		DOOM_PREVIOUS("MAXSHORT", 45, 43),
		DOOM_PREVIOUS("MAXINT", 48, 44),
		DOOM_PREVIOUS("MINLONG", 55, 41),
		{ "p_maputl.c", 28, 1, 0, 0, "warning", "-Wunused-const-variable=", "‘rcsid’ defined but not used", NULL },
		{ "r_bsp.c", 26, 1, 0, 0, "warning", "-Wunused-const-variable=", "‘rcsid’ defined but not used", NULL },
		{ "d_englsh.h", 47, 25, 0, 0, "warning", "-Wformat-overflow=",
		  "‘'?\n\npress y or n.’ directive writing 17 bytes into a region of size between 15 and 38\n"
		  "in definition of macro ‘QLPROMPT’\n"
		  "format string is defined here\n"
		  "m_menu.c:741:5: note: ‘sprintf’ output between 60 and 83 bytes into a destination of size 80", NULL },
		{ "p_ceilng.c", 91, 17, 0, 0, "warning", "-Wimplicit-fallthrough=",
		  "this statement may fall through\np_ceilng.c:93:15: note: here", NULL },
	};
	struct signal_list list = parse_fixture("doom-gcc.txt", -1, NULL);
	size_t i, j, found = 0;

	(void)state;
	assert_int_equal(list.format, SIGNAL_GCC);
	assert_no_problems(&list);
	/* 54 errors and warnings, 6 of them doomtype.h's again for r_bsp.c; no note alone. */
	assert_int_equal(list.count, 48);
	for (i = 0; i < list.count; i++) {
		assert_string_not_equal(list.items[i].severity, "note");
		for (j = 0; j < i; j++)
			if (!strcmp(list.items[i].file, list.items[j].file) && list.items[i].line == list.items[j].line &&
			    !strcmp(list.items[i].message, list.items[j].message))
				fail_msg("%s:%d read twice", list.items[i].file, list.items[i].line);
		for (j = 0; j < COUNT(want); j++)
			if (!strcmp(list.items[i].file, want[j].file) && list.items[i].line == want[j].line) {
				assert_signal(&list.items[i], "gcc", &want[j]);
				found++;
			}
	}
	assert_int_equal(found, COUNT(want));
	signal_list_release(&list);
}

/*
 * A warning in a macro's body, in a macro expanded in another, and in a
 * macro's argument. gcc's JSON places the first at 8:17 (the outer
 * expansion) and the second at 9:17 (where SAME is expanded, which its text
 * does not say; the line is the same). clang places them there itself.
 */
static void test_macros(void **state)
{
	static const struct expect gcc_macros[] = {
		{ "src/macros.c", 8, 17, 0, 0, "warning", "-Wshift-count-overflow",
		  "left shift count >= width of type\n"
		  "src/macros.c:2:23: note: in definition of macro ‘SHIFT’\n"
		  "src/macros.c:3:18: note: in definition of macro ‘SCALE’", NULL },
		{ "src/macros.c", 9, 24, 0, 0, "warning", "-Wshift-count-overflow",
		  "left shift count >= width of type\nsrc/macros.c:4:17: note: in definition of macro ‘SAME’", NULL },
	};
	static const struct expect clang_macros[] = {
		{ "src/macros.c", 8, 10, 0, 0, "warning", "-Wshift-count-overflow",
		  "shift count >= width of type\n"
		  "src/macros.c:3:18: note: expanded from macro 'SCALE'\n"
		  "src/macros.c:2:23: note: expanded from macro 'SHIFT'", NULL },
		{ "src/macros.c", 9, 17, 0, 0, "warning", "-Wshift-count-overflow",
		  "shift count >= width of type\nsrc/macros.c:4:17: note: expanded from macro 'SAME'", NULL },
	};
	struct signal_list list;

	(void)state;
	check_fixture("gcc-macros.txt", NULL, SIGNAL_GCC, "gcc", gcc_macros, COUNT(gcc_macros));
	check_fixture("clang-macros.txt", "clang", SIGNAL_GCC, "clang", clang_macros, COUNT(clang_macros));

	/* DOOM through clang: a cast in a macro, at each place it is expanded. */
	list = parse_fixture("doom-clang.txt", -1, "clang");
	assert_no_problems(&list);
	assert_int_equal(list.count, 4);
	assert_int_equal(list.items[0].line, 58);
	assert_int_equal(list.items[0].column, 2);
	assert_string_equal(list.items[0].message, "cast to smaller integer type 'int' from 'byte *' (aka 'unsigned char *')\n"
			    "p_saveg.c:40:36: note: expanded from macro 'PADSAVEP'");
	assert_string_equal(list.items[2].message, "cast to smaller integer type 'int' from 'state_t *'");
	signal_list_release(&list);
}

static void test_clang_tidy(void **state)
{
	/* Its checks' names are the codes; the notes join the warning they follow, as gcc's. */
	struct signal_list list = parse_fixture("clang-tidy.txt", -1, NULL);

	(void)state;
	assert_int_equal(list.format, SIGNAL_GCC);
	assert_no_problems(&list);
	assert_int_equal(list.count, 4);
	assert_string_equal(list.items[0].code, "bugprone-easily-swappable-parameters");
	assert_int_equal(list.items[0].line, 8);
	assert_int_equal(list.items[0].column, 11);
	assert_string_equal(list.items[0].message,
			    "2 adjacent parameters of 'scale' of similar type ('int') are easily swapped by mistake\n"
			    "the first parameter in the range is 'value'\n"
			    "the last parameter in the range is 'factor'");
	assert_string_equal(list.items[1].code, "readability-braces-around-statements");
	assert_int_equal(list.items[2].line, 15);
	assert_string_equal(list.items[3].code, "clang-diagnostic-error");
	assert_string_equal(list.items[3].severity, "error");
	signal_list_release(&list);
	list = parse_text("a.c:3:1: warning: x [clang-analyzer-core.NonNullParamChecker]\n"
			  "a.c:4:1: warning: y [bugprone-branch-clone,-warnings-as-errors]\n"
			  "a.c:5:1: warning: z [not a code]\n", -1, NULL);
	assert_int_equal(list.count, 3);
	assert_string_equal(list.items[0].code, "clang-analyzer-core.NonNullParamChecker");
	assert_string_equal(list.items[1].code, "bugprone-branch-clone");
	assert_string_equal(list.items[2].code, "");
	assert_string_equal(list.items[2].message, "z [not a code]");
	signal_list_release(&list);

	/*
	 * kilo: the Padding check's message is over eleven lines, the check's
	 * name at the end of the last (as in clang-tidy's --export-fixes, with
	 * the spaces at the ends of the lines); the analyzer's path notes join
	 * the warning they explain.
	 */
	list = parse_fixture("kilo-clang-tidy.txt", -1, "clang-tidy");
	assert_no_problems(&list);
	assert_int_equal(list.count, 5);
	assert_string_equal(list.items[0].code, "clang-analyzer-optin.performance.Padding");
	assert_int_equal(list.items[0].line, 81);
	assert_string_equal(list.items[0].message,
			    "Excessive padding in 'struct erow' (8 padding bytes, where 0 is optimal). \n"
			    "Optimal fields order: \nchars, \nrender, \nhl, \nidx, \nsize, \nrsize, \nhl_oc, \n"
			    "consider reordering the fields or adding explicit padding members\n"
			    "Excessive padding in 'struct erow' (8 padding bytes, where 0 is optimal). Optimal fields "
			    "order: chars, render, hl, idx, size, rsize, hl_oc, consider reordering the fields or adding "
			    "explicit padding members");
	assert_string_equal(list.items[3].code, "clang-analyzer-optin.portability.UnixAPI");
	assert_non_null(strstr(list.items[3].message, "Call to 'realloc' has an allocation size of 0 bytes\n"
			       "kilo.c:1292:9: note: Assuming 'argc' is equal to 2\n"));
	signal_list_release(&list);

	/* A line that ends with brackets and has a caret line under it is source, not message. */
	list = parse_text("a.c:3:9: error: use of undeclared identifier 'n'\n"
			  "    return t [n];\n"
			  "              ^\n"
			  "a.c:4:1: warning: two\n"
			  "lines [-Wx]\n", -1, NULL);
	assert_no_problems(&list);
	assert_int_equal(list.count, 2);
	assert_string_equal(list.items[0].message, "use of undeclared identifier 'n'");
	assert_string_equal(list.items[0].code, "");
	assert_string_equal(list.items[1].message, "two\nlines");
	assert_string_equal(list.items[1].code, "-Wx");
	signal_list_release(&list);
}

static const struct expect sarif_spec_want[] = {
	{ "/home/ana/shop/src/sample.c", 13, 6, 13, 19, "error", "EX001",
	  "'value' (int) is compared with 'limit' (unsigned int).", "https://examplelint.invalid/rules/EX001" },
	{ "/home/ana/shop/src/sample.c", 10, 6, 0, 0, "note", "EX002", "Variable 'unused' is never used in 'scale'.",
	  "https://examplelint.invalid/rules/EX002" },
	{ "/home/ana/shop/src/app main.c", 1, 0, 0, 0, "warning", "EX003",
	  "Function 'main' has no documentation comment.", NULL },
	{ "/home/ana/shop/tests/test_sample.py", 4, 5, 0, 13, "note", "EX002", "Variable 'expected' is never used.",
	  "https://examplelint.invalid/rules/EX002" },
	{ "lib/util.c", 11, 23, 0, 0, "warning", "R9", "Magic number 10.", NULL },
};

static void test_sarif(void **state)
{
	struct signal_list list = parse_fixture("sarif-spec.sarif", -1, NULL);
	const char *base;
	char *root;
	size_t i;

	(void)state;
	/*
	 * Each run's driver is the tool; base URIs, artifact indexes, file://
	 * and %20, the rule's level and message strings, kind "pass" skipped.
	 */
	assert_int_equal(list.format, SIGNAL_SARIF);
	assert_no_problems(&list);
	assert_int_equal(list.count, COUNT(sarif_spec_want));
	for (i = 0; i < COUNT(sarif_spec_want); i++)
		assert_signal(&list.items[i], i < 4 ? "examplelint" : "second-tool", &sarif_spec_want[i]);
	signal_list_release(&list);

	/* revline's own report: %SRCROOT% is the repository it ran in. */
	list = parse_fixture("revline.sarif", -1, NULL);
	assert_no_problems(&list);
	assert_int_equal(list.count, 4);
	base = list.items[0].file;
	assert_true(base[0] == '/' && strstr(base, "/notes.txt"));
	root = strndup(base, strlen(base) - strlen("/notes.txt"));
	assert_int_equal(signals_relativize(&list, root, NULL), 0);
	assert_string_equal(list.items[0].tool, "revline");
	assert_string_equal(list.items[0].file, "notes.txt");
	assert_string_equal(list.items[0].code, "conflict-markers");
	assert_string_equal(list.items[0].severity, "error");
	assert_string_equal(list.items[0].message,
			    "No merge conflict markers: An added line matches the pattern of conflict-markers.");
	assert_int_equal(list.items[1].line, 5);
	assert_string_equal(list.items[3].file, "app/handler.py");
	assert_string_equal(list.items[3].severity, "warning");
	assert_int_equal(list.items[3].line, 5);
	assert_int_equal(list.items[3].end_line, 6);
	assert_null(list.items[3].url);
	free(root);
	signal_list_release(&list);

	/* A tool given by the caller wins over the driver's name. */
	list = parse_fixture("sarif-spec.sarif", SIGNAL_SARIF, "codeql");
	assert_string_equal(list.items[4].tool, "codeql");
	signal_list_release(&list);
}

/* ------------------------------------------------------------ detection */

static void test_detect(void **state)
{
	static const struct {
		const char *fixture;
		enum signal_format format;
	} fixtures[] = {
		{ "ruff.json", SIGNAL_RUFF }, { "flake8.txt", SIGNAL_FLAKE8 }, { "mypy.txt", SIGNAL_MYPY },
		{ "mypy-columns.txt", SIGNAL_MYPY }, { "mypy.json", SIGNAL_MYPY_JSON }, { "bandit.json", SIGNAL_BANDIT },
		{ "revline.sarif", SIGNAL_SARIF }, { "sarif-spec.sarif", SIGNAL_SARIF }, { "gcc.txt", SIGNAL_GCC },
		{ "clang.txt", SIGNAL_GCC }, { "cppcheck.txt", SIGNAL_GCC }, { "shellcheck.json", SIGNAL_SHELLCHECK },
		{ "shellcheck-json1.json", SIGNAL_SHELLCHECK }, { "bottle-mypy-pretty.txt", SIGNAL_MYPY },
		{ "octoprint-mypy-pretty.txt", SIGNAL_MYPY }, { "doom-gcc.txt", SIGNAL_GCC },
		{ "doom-clang.txt", SIGNAL_GCC }, { "kilo-clang-tidy.txt", SIGNAL_GCC },
	};
	static const struct {
		const char *text;
		enum signal_format format;
	} texts[] = {
		/* ruff and shellcheck both say [] when all is well. */
		{ "[]\n", SIGNAL_RUFF },
		{ "\xef\xbb\xbf[{\"file\": \"a.sh\", \"line\": 1, \"level\": \"info\", \"code\": 2086, "
		  "\"message\": \"m\"}]",
		  SIGNAL_SHELLCHECK },
		{ "{\"comments\": []}", SIGNAL_SHELLCHECK },
		{ "{\"results\": [], \"errors\": [], \"metrics\": {}}", SIGNAL_BANDIT },
		{ "{\"version\": \"2.1.0\", \"runs\": []}", SIGNAL_SARIF },
		{ "{\"file\": \"a.py\", \"line\": 1, \"column\": 0, \"message\": \"m\", \"hint\": null, \"code\": null}\n",
		  SIGNAL_MYPY_JSON },
		/* A syntax error comes as text before mypy's JSON lines. */
		{ "a.py:1: error: Invalid syntax  [syntax]\n{\"file\": \"b.py\", \"line\": 2, \"message\": \"m\"}\n"
		  "{\"file\": \"b.py\", \"line\": 3, \"message\": \"m\"}\n", SIGNAL_MYPY_JSON },
		/* mypy with columns looks like gcc but for the path and the code's brackets. */
		{ "a.py:3:5: error: Name \"x\" is not defined  [name-defined]\n", SIGNAL_MYPY },
		{ "a.c:3:5: error: 'x' undeclared\n", SIGNAL_GCC },
		{ "\033[01m\033[Ka.c:3:5:\033[m\033[K \033[01;35m\033[Kwarning: \033[m\033[Kunused [-Wunused]\n",
		  SIGNAL_GCC },
		{ "a.py:3:5: E225 missing whitespace around operator\r\n", SIGNAL_FLAKE8 },
	};
	static const char *const unknown[] = {
		"", "   \n\n", "hello world\nnothing to see here\n", "{\"name\": \"x\"}", "[1, 2, 3]",
		"[{\"filename\": \"a.py\", \"code\": \"F401\",", "{\"file\": \"a.py\"",
	};
	enum signal_format f;
	struct buf text = BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < COUNT(fixtures); i++) {
		buf_clear(&text);
		test_read(&text, FIXTURES, fixtures[i].fixture);
		if (signals_detect(&f, text.ptr, text.len) < 0)
			fail_msg("%s: %s", fixtures[i].fixture, error_message());
		if (f != fixtures[i].format)
			fail_msg("%s read as %s", fixtures[i].fixture, signal_format_name(f));
	}
	buf_release(&text);
	for (i = 0; i < COUNT(texts); i++) {
		if (signals_detect(&f, texts[i].text, strlen(texts[i].text)) < 0)
			fail_msg("%s: %s", texts[i].text, error_message());
		if (f != texts[i].format)
			fail_msg("%s read as %s", texts[i].text, signal_format_name(f));
	}
	for (i = 0; i < COUNT(unknown); i++) {
		assert_int_equal(signals_detect(&f, unknown[i], strlen(unknown[i])), RL_EPARSE);
		assert_non_null(strstr(error_message(), "known formats: ruff, flake8, mypy, mypy-json, bandit, "
				       "sarif, gcc, shellcheck"));
	}
	signals_detect(&f, unknown[5], strlen(unknown[5]));
	assert_non_null(strstr(error_message(), "does not parse"));
}

/* ------------------------------------------------------ malformed input */

static void test_text_problems(void **state)
{
	struct signal_list list = parse_text(
		"src/a.py:1:1: F401 'os' imported but unused\n"
		"src/a.py:2:x: E501 line too long\n"
		"src/a.py:3:5: line too long\n"
		"src/a.py:4:1: E302\n"
		"some noise that is no diagnostic\n"
		"src/a.py:99999999999:1: E501 line too long\n"
		"src/a.py:7:2: W291 trailing whitespace\n"
		"src/a.py:8:1:2:3: E111 indentation is not a multiple of four\n"
		"src/a.py:9\n", SIGNAL_FLAKE8, NULL);

	(void)state;
	assert_int_equal(list.count, 2);
	assert_int_equal(list.items[0].line, 1);
	assert_int_equal(list.items[1].line, 7);
	assert_int_equal(list.nproblems, 6);
	assert_problem(&list, 0, 2, NULL, "no code after the location");
	assert_problem(&list, 1, 3, NULL, "no code after the location");
	assert_problem(&list, 2, 4, NULL, "no message after the code E302");
	assert_problem(&list, 3, 6, NULL, "too large");
	assert_problem(&list, 4, 8, NULL, "4 numbers after the path");
	assert_problem(&list, 5, 9, NULL, "no code after the location");
	signal_list_release(&list);

	list = parse_text("a.py:1: error: fine  [misc]\n"
			  "a.py:2: oops: what is this\n"
			  "a.py:3:4:5: error: three numbers\n"
			  "a.py:4: error:\n"
			  "a.py:5: note: alone\n", SIGNAL_MYPY, NULL);
	assert_int_equal(list.count, 2);
	assert_int_equal(list.nproblems, 3);
	assert_problem(&list, 0, 2, NULL, "no error:, warning: or note:");
	assert_problem(&list, 1, 3, NULL, "3 numbers");
	assert_problem(&list, 2, 4, NULL, "no message after error:");
	signal_list_release(&list);

	list = parse_text("a.c:3:4: whatever happened here\n"
			  "a.c:5:1:\n"
			  "a.c:6:2: warning: kept [-Wall]\n", SIGNAL_GCC, NULL);
	assert_int_equal(list.count, 1);
	assert_int_equal(list.items[0].line, 6);
	assert_int_equal(list.nproblems, 2);
	assert_problem(&list, 0, 1, NULL, "no error:, warning: or note:");
	assert_problem(&list, 1, 2, NULL, "no error:, warning: or note:");
	signal_list_release(&list);

	/* mypy's JSON lines: a broken line and a bad field name their line. */
	list = parse_text("{\"file\": \"a.py\", \"line\": 1, \"message\": \"ok\"}\n"
			  "{\"file\": \"a.py\", \"line\": 2, \n"
			  "{\"file\": \"a.py\", \"column\": 3, \"message\": \"no line\"}\n"
			  "{\"file\": \"a.py\", \"line\": \"4\", \"message\": \"string line\"}\n"
			  "[1]\n"
			  "{\"file\": \"a.py\", \"line\": 6, \"message\": \"ok too\"}\n", SIGNAL_MYPY_JSON, NULL);
	assert_int_equal(list.count, 2);
	assert_string_equal(list.items[1].message, "ok too");
	assert_int_equal(list.nproblems, 4);
	assert_problem(&list, 0, 2, NULL, "not a JSON object");
	assert_problem(&list, 1, 3, "line", "missing");
	assert_problem(&list, 2, 4, "line", "expected a whole number, found a string");
	assert_problem(&list, 3, 5, NULL, "expected a JSON object, found a list");
	signal_list_release(&list);
}

static void test_json_problems(void **state)
{
	struct signal_list list = parse_text(
		"[{\"filename\": \"a.py\", \"code\": \"F401\", \"message\": \"m\","
		"  \"location\": {\"row\": \"two\", \"column\": 1}},"
		" {\"filename\": \"b.py\", \"code\": \"E501\", \"message\": \"long\","
		"  \"location\": {\"row\": 3, \"column\": 80},"
		"  \"end_location\": {\"row\": 3, \"column\": 99}},"
		" 7,"
		" {\"code\": \"X1\", \"message\": \"no file\", \"location\": {\"row\": 1, \"column\": 1}},"
		" {\"filename\": \"c.py\", \"code\": 5, \"message\": \"m\", \"location\": {\"row\": -2, \"column\": 1}}]",
		SIGNAL_RUFF, NULL);

	(void)state;
	assert_int_equal(list.count, 1);
	assert_string_equal(list.items[0].file, "b.py");
	assert_int_equal(list.items[0].end_column, 99);
	assert_int_equal(list.nproblems, 5);
	assert_problem(&list, 0, 0, "[0].location.row", "expected a whole number, found a string");
	assert_problem(&list, 1, 0, "[2]", "expected an object, found a number");
	assert_problem(&list, 2, 0, "[3].filename", "missing");
	assert_problem(&list, 3, 0, "[4].code", "expected a string, found a number");
	assert_problem(&list, 4, 0, "[4].location.row", "out of range: -2");
	signal_list_release(&list);

	list = parse_text("{\"results\": [{\"filename\": \"a.py\", \"line_number\": 1, \"issue_text\": \"t\"},"
			  " {\"filename\": \"a.py\", \"line_number\": \"x\", \"issue_text\": \"t\"},"
			  " {\"filename\": \"a.py\", \"line_number\": 3},"
			  " {\"filename\": \"a.py\", \"line_number\": 4, \"issue_text\": \"t\", \"line_range\": [4, null]}],"
			  " \"errors\": []}", -1, NULL);
	assert_int_equal(list.format, SIGNAL_BANDIT);
	assert_int_equal(list.count, 1);
	assert_string_equal(list.items[0].severity, "UNDEFINED");
	assert_int_equal(list.nproblems, 3);
	assert_problem(&list, 0, 0, "results[1].line_number", "expected a whole number");
	assert_problem(&list, 1, 0, "results[2].issue_text", "missing");
	assert_problem(&list, 2, 0, "results[3].line_range[1]", "expected a line number, found null");
	signal_list_release(&list);

	list = parse_text("{\"comments\": [{\"file\": \"a.sh\", \"line\": 2, \"level\": \"info\","
			  " \"code\": \"SC1000\", "
			  "\"message\": \"m\"}, {\"file\": \"a.sh\", \"line\": -3, \"level\": \"info\", \"code\": 2086, "
			  "\"message\": \"m\"}, {\"file\": \"a.sh\", \"line\": 4, \"code\": [1], \"message\": \"m\"}]}",
			  -1, NULL);
	assert_int_equal(list.count, 1);
	assert_string_equal(list.items[0].code, "SC1000");
	assert_null(list.items[0].url);
	assert_int_equal(list.nproblems, 2);
	assert_problem(&list, 0, 0, "comments[1].line", "out of range: -3");
	assert_problem(&list, 1, 0, "comments[2].code", "expected a number, found a list");
	signal_list_release(&list);

	list = parse_text(
		"{\"version\": \"2.1.0\", \"runs\": [{\"tool\": {\"driver\": {\"name\": \"t\"}}, \"results\": ["
		"{\"ruleId\": \"A\", \"message\": {\"text\": \"kept\"}, \"locations\": [{\"physicalLocation\": "
		"  {\"artifactLocation\": {\"uri\": \"a.c\"}, \"region\": {\"startLine\": 2}}}]},"
		"{\"ruleId\": \"A\", \"message\": {\"text\": \"m\"}, \"locations\": [{\"physicalLocation\": "
		"  {\"artifactLocation\": {\"uri\": \"a.c\"}, \"region\": {\"startLine\": \"x\"}}}]},"
		"{\"ruleId\": \"A\", \"locations\": [{\"physicalLocation\": {\"artifactLocation\": {\"uri\": \"a.c\"}}}]},"
		"{\"ruleId\": \"A\", \"message\": {\"text\": \"nowhere\"}},"
		"{\"ruleId\": \"A\", \"message\": {\"id\": \"nope\"}, \"locations\": [{\"physicalLocation\": "
		"  {\"artifactLocation\": {\"uri\": \"a.c\"}}}]},"
		"{\"ruleId\": \"A\", \"message\": {\"text\": \"m\"}, \"locations\": [{\"physicalLocation\": "
		"  {\"artifactLocation\": {\"uriBaseId\": \"SRC\"}}}]}"
		"]}, {\"tool\": {\"driver\": {\"name\": \"u\"}}, \"results\": {}}, 3]}", -1, NULL);
	assert_int_equal(list.count, 1);
	assert_string_equal(list.items[0].message, "kept");
	assert_string_equal(list.items[0].file, "a.c");
	assert_int_equal(list.nproblems, 7);
	assert_problem(&list, 0, 0, "runs[0].results[1].locations[0].physicalLocation.region.startLine",
		       "expected a whole number, found a string");
	assert_problem(&list, 1, 0, "runs[0].results[2].message.text", "missing");
	assert_problem(&list, 2, 0, "runs[0].results[3].locations", "no file location");
	assert_problem(&list, 3, 0, "runs[0].results[4].message.id",
		       "\"nope\" is not among the rule's messageStrings");
	assert_problem(&list, 4, 0, "runs[0].results[5].locations[0].physicalLocation.artifactLocation.uri",
		       "missing");
	assert_problem(&list, 5, 0, "runs[1].results", "expected a list, found an object");
	assert_problem(&list, 6, 0, "runs[2]", "expected an object, found a number");
	signal_list_release(&list);

	/* The format is given and the document is of another shape: a problem, not a failure. */
	list = parse_text("{\"runs\": []}", SIGNAL_RUFF, NULL);
	assert_int_equal(list.count, 0);
	assert_problem(&list, 0, 0, "$", "expected a list, found an object");
	signal_list_release(&list);
	list = parse_text("[]", SIGNAL_BANDIT, NULL);
	assert_problem(&list, 0, 0, "$", "expected bandit's report object");
	signal_list_release(&list);
}

static void test_unreadable(void **state)
{
	struct signal_list list;
	const char *broken = "[{\"filename\": \"a.py\", \"code\": \"F401\",";

	(void)state;
	assert_int_equal(signals_parse(&list, broken, strlen(broken), SIGNAL_RUFF, NULL), RL_EPARSE);
	assert_non_null(strstr(error_message(), "the ruff output is not valid JSON"));
	assert_int_equal(list.count, 0);
	assert_null(list.items);
	assert_int_equal(signals_parse(&list, broken, strlen(broken), -1, NULL), RL_EPARSE);
	assert_int_equal(signals_parse(&list, "x", 1, SIGNAL_FORMAT_COUNT, NULL), RL_EUSAGE);
	assert_int_equal(signals_parse(&list, "plain words\n", 12, -1, NULL), RL_EPARSE);
	assert_non_null(strstr(error_message(), "no line looks like a diagnostic"));
}

static void test_empty(void **state)
{
	static const char *const empties[] = { "", "\n", "  \r\n\t\n" };
	struct signal_list list;
	size_t i;
	int f;

	(void)state;
	for (i = 0; i < COUNT(empties); i++) {
		for (f = -1; f < SIGNAL_FORMAT_COUNT; f++) {
			assert_int_equal(signals_parse(&list, empties[i], strlen(empties[i]), f, NULL), 0);
			assert_int_equal(list.count, 0);
			assert_int_equal(list.nproblems, 0);
			assert_int_equal(list.format, f < 0 ? SIGNAL_FORMAT_COUNT : f);
			signal_list_release(&list);
		}
	}
	/* Nothing to tell the format from: the tool's, when it names one. */
	assert_int_equal(signals_parse(&list, "", 0, -1, "cppcheck"), 0);
	assert_int_equal(list.format, SIGNAL_GCC);
	signal_list_release(&list);
}

/* ------------------------------------------------------------ relativize */

static void set_files(struct signal_list *list, const char *const *files, size_t n)
{
	size_t i;

	memset(list, 0, sizeof(*list));
	list->items = calloc(n, sizeof(*list->items));
	for (i = 0; i < n; i++)
		list->items[i].file = strdup(files[i]);
	list->count = n;
}

static void assert_files(const struct signal_list *list, const char *const *files)
{
	size_t i;

	for (i = 0; i < list->count; i++)
		if (strcmp(list->items[i].file, files[i]))
			fail_msg("signal %zu: \"%s\", expected \"%s\"", i, list->items[i].file, files[i]);
}

static void test_relativize(void **state)
{
	static const char *const from_root[] = {
		"/home/ana/shop/src/sample.py", "./src/a.py", "src/../lib/b.py", "/home/ana/shop/./src/../src/f.py",
		"/usr/include/stdio.h", "/home/ana/shopping/x.py", "../elsewhere/y.py", "nofile", "",
		"/home/ana/shop", "src//g.py",
	};
	static const char *const from_root_want[] = {
		"src/sample.py", "src/a.py", "lib/b.py", "src/f.py",
		"/usr/include/stdio.h", "/home/ana/shopping/x.py", "../elsewhere/y.py", "nofile", "",
		"/home/ana/shop", "src/g.py",
	};
	static const char *const from_pkg[] = {
		"mod.py", "./sub/./d.py", "../lib/c.py", "../../other/e.py", "/home/ana/shop/pkg/h.py", "..",
	};
	static const char *const from_pkg_want[] = {
		"pkg/mod.py", "pkg/sub/d.py", "lib/c.py", "../../other/e.py", "pkg/h.py", "..",
	};
	struct signal_list list;

	(void)state;
	set_files(&list, from_root, COUNT(from_root));
	assert_int_equal(signals_relativize(&list, "/home/ana/shop/", "/home/ana/shop"), 0);
	assert_files(&list, from_root_want);
	signal_list_release(&list);

	/* The tool ran in a subdirectory, given absolute or from the working tree. */
	set_files(&list, from_pkg, COUNT(from_pkg));
	assert_int_equal(signals_relativize(&list, "/home/ana/shop", "/home/ana/shop/pkg/"), 0);
	assert_files(&list, from_pkg_want);
	signal_list_release(&list);
	set_files(&list, from_pkg, COUNT(from_pkg));
	assert_int_equal(signals_relativize(&list, "/home/ana/shop", "./pkg"), 0);
	assert_files(&list, from_pkg_want);
	signal_list_release(&list);

	/* Once relative, again changes nothing. */
	set_files(&list, from_root_want, COUNT(from_root_want));
	assert_int_equal(signals_relativize(&list, "/home/ana/shop", NULL), 0);
	assert_files(&list, from_root_want);
	signal_list_release(&list);

	set_files(&list, from_pkg, 1);
	assert_int_equal(signals_relativize(&list, "/home/ana/shop", "/tmp"), RL_EUSAGE);
	assert_non_null(strstr(error_message(), "outside the working tree"));
	assert_int_equal(signals_relativize(&list, "/home/ana/shop", "../x"), RL_EUSAGE);
	assert_int_equal(signals_relativize(&list, "shop", NULL), RL_EUSAGE);
	assert_string_equal(list.items[0].file, "mod.py");
	signal_list_release(&list);

	/* The root of the file system as the working tree. */
	set_files(&list, from_pkg, 1);
	assert_int_equal(signals_relativize(&list, "/", "/srv/app"), 0);
	assert_string_equal(list.items[0].file, "srv/app/mod.py");
	signal_list_release(&list);
}

static void test_copy(void **state)
{
	struct signal_list list = parse_fixture("ruff.json", -1, NULL);
	struct signal copy;

	(void)state;
	assert_int_equal(signal_copy(&copy, &list.items[0]), 0);
	signal_list_release(&list);
	assert_string_equal(copy.tool, "ruff");
	assert_string_equal(copy.code, "F401");
	assert_string_equal(copy.url, "https://docs.astral.sh/ruff/rules/unused-import");
	assert_int_equal(copy.end_column, 10);
	signal_release(&copy);
	assert_null(copy.file);

	list = parse_fixture("gcc.txt", -1, NULL);
	assert_int_equal(signal_copy(&copy, &list.items[3]), 0);
	assert_null(copy.url);
	assert_string_equal(copy.code, "");
	signal_release(&copy);
	signal_list_release(&list);
}

/* ------------------------------------------------------------ live tools */

struct live {
	const char *tool;               /* the program that must be installed */
	const char *command;
	enum signal_format format;
	const char *code;               /* a signal it must report ... */
	int line;                       /* ... at this line of the sample */
	const char *file;
};

static const struct live live_tools[] = {
	{ "flake8", "flake8 src/sample.py", SIGNAL_FLAKE8, "F401", 2, "src/sample.py" },
	{ "mypy", "mypy --cache-dir=/dev/null --show-column-numbers src/sample.py", SIGNAL_MYPY, "operator", 28,
	  "src/sample.py" },
	{ "bandit", "bandit -q -f json src/sample.py 2>/dev/null", SIGNAL_BANDIT, "B602", 36, "src/sample.py" },
	{ "shellcheck", "shellcheck -f json src/sample.sh", SIGNAL_SHELLCHECK, "SC2045", 10, "src/sample.sh" },
	{ "shellcheck", "shellcheck -f json1 src/sample.sh", SIGNAL_SHELLCHECK, "SC2164", 13, "src/sample.sh" },
	{ "gcc", "gcc -Wall -Wextra -c src/sample.c -o /dev/null 2>&1", SIGNAL_GCC, "-Wsign-compare", 13,
	  "src/sample.c" },
	{ "clang", "clang -Wall -Wextra -c src/sample.c -o /dev/null 2>&1", SIGNAL_GCC, "-Wparentheses", 15,
	  "src/sample.c" },
	{ "cppcheck", "cppcheck -q --enable=all --template='{file}:{line}:{column}: {severity}: {message} [{id}]' "
	  "src/sample.c 2>&1", SIGNAL_GCC, "unusedVariable", 10, "src/sample.c" },
};

static void live_run(const char *dir, const struct live *t)
{
	char *out = test_capture(dir, "cd sub && { %s; true; }", t->command);
	struct signal_list list;
	size_t i;

	if (signals_parse(&list, out, strlen(out), -1, NULL) < 0)
		fail_msg("%s: %s\n%s", t->command, error_message(), out);
	assert_int_equal(list.format, t->format);
	assert_no_problems(&list);
	assert_int_equal(signals_relativize(&list, dir, "sub"), 0);
	for (i = 0; i < list.count; i++)
		if (!strcmp(list.items[i].code, t->code) && list.items[i].line == t->line) {
			assert_string_equal(list.items[i].file, t->file);
			break;
		}
	if (i == list.count)
		fail_msg("%s: no %s at line %d in\n%s", t->command, t->code, t->line, out);
	print_message("%s: %zu signals\n", t->command, list.count);
	signal_list_release(&list);
	free(out);
}

static void test_live_tools(void **state)
{
	char *dir = test_tmpdir("signals");
	size_t i;

	(void)state;
	/* The tools run in sub/ of the tree, so the paths they print gain "sub/". */
	test_sh_ok(dir, "mkdir -p sub/src && cp '%s'/src/sample.py '%s'/src/sample.sh '%s'/src/sample.c sub/src/",
		   FIXTURES, FIXTURES, FIXTURES);
	for (i = 0; i < COUNT(live_tools); i++) {
		struct live t = live_tools[i];
		char file[64];

		if (test_sh(dir, "command -v %s >/dev/null 2>&1", t.tool) != 0) {
			print_message("skipping the live test of %s: not installed\n", t.tool);
			continue;
		}
		snprintf(file, sizeof(file), "sub/%s", t.file);
		t.file = file;
		live_run(dir, &t);
	}
	test_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_names),
		cmocka_unit_test(test_ruff),
		cmocka_unit_test(test_flake8),
		cmocka_unit_test(test_mypy),
		cmocka_unit_test(test_mypy_json),
		cmocka_unit_test(test_mypy_pretty),
		cmocka_unit_test(test_bandit),
		cmocka_unit_test(test_shellcheck),
		cmocka_unit_test(test_gcc_clang_cppcheck),
		cmocka_unit_test(test_gcc_variants),
		cmocka_unit_test(test_gcc_groups),
		cmocka_unit_test(test_macros),
		cmocka_unit_test(test_clang_tidy),
		cmocka_unit_test(test_sarif),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_text_problems),
		cmocka_unit_test(test_json_problems),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_relativize),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_live_tools),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
