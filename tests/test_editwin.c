/* Edit windows: the table, each window kind, the context parts, every language. */
#include "testlib.h"

#include "editwin.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shipped table, loaded through the data directory once for the group. */
static struct editwin_table *shipped;
static char *xdg_home;

/* ------------------------------------------------------------------------
 * Helpers
 */

static char *fixture(const char *name)
{
	struct buf path = BUF_INIT, text = BUF_INIT;

	buf_printf(&path, "%s/editwin/%s", TEST_FIXTURES, name);
	if (buf_read_file(&text, path.ptr) < 0)
		fail_msg("%s", error_message());
	buf_release(&path);
	return buf_detach(&text);
}

/* The line of text that holds needle: fixtures mark the lines tests talk about. */
static int at(const char *text, const char *needle)
{
	const char *hit = strstr(text, needle), *p;
	int line = 1;

	if (!hit)
		fail_msg("no line holds '%s'", needle);
	for (p = text; p < hit; p++)
		line += *p == '\n';
	return line;
}

static struct editwin_spec spec_of(enum editwin_kind kind, int lines, unsigned context)
{
	struct editwin_spec spec = { kind, lines, context, NULL, false, true, false };

	return spec;
}

static void build(struct editwin *w, const struct editwin_spec *spec, const char *path, const char *text,
		  int line, int end, const char *message)
{
	if (editwin_build(w, spec, path, text, strlen(text), line, end, message) < 0)
		fail_msg("%s line %d: %s", path, line, error_message());
}

static void check_window(const struct editwin *w, enum editwin_kind kind, int first, int last,
			 const char *where, int at_line)
{
	if (w->kind != kind || w->first != first || w->last != last)
		fail_msg("line %d: window %s %d-%d, expected %s %d-%d (%s)", at_line,
			 editwin_kind_name(w->kind), w->first, w->last, editwin_kind_name(kind), first, last,
			 where);
}

#define assert_window(w, kind, first, last) check_window(w, kind, first, last, #first " " #last, __LINE__)

/* Build the windows of a line (no end, no message), check the edit window, release. */
static void check_builds(const struct editwin_spec *spec, const char *path, const char *text, int line,
			 enum editwin_kind kind, int first, int last, const char *where, int at_line)
{
	struct editwin w;

	build(&w, spec, path, text, line, 0, NULL);
	check_window(&w, kind, first, last, where, at_line);
	editwin_release(&w);
}

#define assert_builds(spec, path, text, line, kind, first, last) \
	check_builds(spec, path, text, line, kind, first, last, #first " " #last, __LINE__)

/* The parts, as "what:first-last what:first-last". */
static void parts_text(struct buf *out, const struct editwin *w)
{
	size_t i;

	buf_clear(out);
	for (i = 0; i < w->nparts; i++)
		buf_printf(out, "%s%s:%d-%d", i ? " " : "", editwin_context_name(w->parts[i].what),
			   w->parts[i].first, w->parts[i].last);
	if (!out->ptr)
		buf_puts(out, "");
}

static void check_parts(const struct editwin *w, const char *want, int at_line)
{
	struct buf got = BUF_INIT;

	parts_text(&got, w);
	if (strcmp(got.ptr, want))
		fail_msg("line %d: parts '%s', expected '%s'", at_line, got.ptr, want);
	buf_release(&got);
}

#define assert_parts(w, want) check_parts(w, want, __LINE__)

static void check_parts_of(int at_line, const struct editwin_spec *spec, const char *path, const char *text,
			   int line, const char *message, const char *want, ...)
	__attribute__((format(printf, 7, 8)));

/* Build the windows of a line, compare the parts with a printf-made list, release. */
static void check_parts_of(int at_line, const struct editwin_spec *spec, const char *path, const char *text,
			   int line, const char *message, const char *want, ...)
{
	struct buf expected = BUF_INIT;
	struct editwin w;
	va_list ap;

	va_start(ap, want);
	buf_vprintf(&expected, want, ap);
	va_end(ap);
	build(&w, spec, path, text, line, 0, message);
	check_parts(&w, expected.ptr ? expected.ptr : "", at_line);
	editwin_release(&w);
	buf_release(&expected);
}

#define assert_parts_of(spec, path, text, line, message, ...) \
	check_parts_of(__LINE__, spec, path, text, line, message, __VA_ARGS__)
#define NO_PARTS "%s", ""

static char *fmt(const char *format, ...) __attribute__((format(printf, 1, 2)));

static char *fmt(const char *format, ...)
{
	struct buf out = BUF_INIT;
	va_list ap;

	va_start(ap, format);
	buf_vprintf(&out, format, ap);
	va_end(ap);
	return buf_detach(&out);
}

/* The invariants of every window. */
static void assert_sane(const struct editwin *w, int nlines, int line, int end)
{
	size_t i;

	assert_true(w->first >= 1 && w->last <= nlines && w->first <= w->last);
	assert_true(w->first <= line && w->last >= end);
	assert_true(w->context_first <= w->first && w->context_last >= w->last);
	for (i = 0; i < w->nparts; i++) {
		assert_true(w->parts[i].first >= 1 && w->parts[i].last <= nlines);
		assert_true(w->parts[i].last < w->first || w->parts[i].first > w->last);
		if (i)
			assert_true(w->parts[i - 1].first <= w->parts[i].first);
	}
}

/* ------------------------------------------------------------------------
 * The table
 */

/* The seed's tables, row by row: the code, its window, lines and context as the seed has them. */
static const struct seed_row {
	const char *tool, *code;
	enum editwin_kind kind;
	int lines;
	unsigned context;       /* the row's own context, the standard context aside */
} seed_rows[] = {
	{ "ruff", "F401", EDITWIN_IMPORTS, 0, CTX_IMPORTS },
	{ "ruff", "F541", EDITWIN_LINES, 1, 0 },
	{ "ruff", "F601", EDITWIN_LINES, 3, 0 },
	{ "ruff", "F811", EDITWIN_LINES, 5, CTX_PREVIOUS_DEF },
	{ "ruff", "F821", EDITWIN_LINES, 5, CTX_IMPORTS | CTX_CONSTANTS },
	{ "ruff", "F823", EDITWIN_FUNCTION, 0, CTX_FUNCTION },
	{ "ruff", "F841", EDITWIN_LINES, 3, CTX_FUNCTION },
	{ "ruff", "F901", EDITWIN_LINES, 1, 0 },
	{ "ruff", "E402", EDITWIN_IMPORTS, 0, CTX_IMPORTS },
	{ "ruff", "E701", EDITWIN_LINES, 1, 0 },
	{ "ruff", "E702", EDITWIN_LINES, 1, 0 },
	{ "ruff", "E711", EDITWIN_LINES, 1, 0 },
	{ "ruff", "E712", EDITWIN_LINES, 1, 0 },
	{ "ruff", "E721", EDITWIN_LINES, 1, 0 },
	{ "ruff", "E722", EDITWIN_TRY, 0, CTX_TRY },
	{ "ruff", "E731", EDITWIN_LINES, 3, 0 },
	{ "ruff", "I001", EDITWIN_IMPORTS, 0, CTX_IMPORTS },
	{ "ruff", "UP006", EDITWIN_LINES, 3, 0 },
	{ "ruff", "B002", EDITWIN_LINES, 5, CTX_CLASS },
	{ "ruff", "B006", EDITWIN_LINES, 3, CTX_SIGNATURE },
	{ "ruff", "B007", EDITWIN_LINES, 1, 0 },
	{ "ruff", "B011", EDITWIN_LINES, 1, 0 },
	{ "ruff", "B015", EDITWIN_LINES, 3, 0 },
	{ "ruff", "B016", EDITWIN_LINES, 1, 0 },
	{ "mypy", "var-annotated", EDITWIN_LINES, 7, 0 },
	{ "mypy", "arg-type", EDITWIN_LINES, 7, 0 },
	{ "mypy", "return-value", EDITWIN_FUNCTION, 0, 0 },
	{ "mypy", "assignment", EDITWIN_LINES, 5, 0 },
	{ "mypy", "attr-defined", EDITWIN_LINES, 7, 0 },
	{ "mypy", "union-attr", EDITWIN_FUNCTION, 0, 0 },
	{ "mypy", "call-arg", EDITWIN_LINES, 7, 0 },
	{ "mypy", "index", EDITWIN_LINES, 5, 0 },
	{ "mypy", "operator", EDITWIN_LINES, 5, 0 },
	{ "mypy", "name-defined", EDITWIN_LINES, 5, CTX_IMPORTS | CTX_CONSTANTS },
	{ "mypy", "annotation-unchecked", EDITWIN_LINES, 7, 0 },
	{ "mypy", "override", EDITWIN_SKIP, 0, 0 },
};
#define NSEED (sizeof(seed_rows) / sizeof(seed_rows[0]))
/* The seed's 36 table rows, C901 from its module constants section, W292 and W391. */
#define TABLE_ROWS (NSEED + 3)

static void test_shipped_table_has_every_seed_row(void **state)
{
	struct editwin_spec spec;
	size_t i;

	(void)state;
	assert_int_equal(NSEED, 36);
	assert_int_equal(editwin_table_count(shipped), TABLE_ROWS);
	for (i = 0; i < NSEED; i++) {
		const struct seed_row *row = &seed_rows[i];

		editwin_lookup(&spec, shipped, row->tool, row->code, "a message");
		if (!spec.known || spec.kind != row->kind || (row->lines && spec.lines != row->lines) ||
		    spec.context != (row->context | EDITWIN_STANDARD_CONTEXT) || !spec.why || !*spec.why)
			fail_msg("%s %s: known %d kind %s lines %d context %#x", row->tool, row->code,
				 spec.known, editwin_kind_name(spec.kind), spec.lines, spec.context);
	}
	editwin_lookup(&spec, shipped, "ruff", "C901", "`f` is too complex (12 > 10)");
	assert_true(spec.known);
	assert_int_equal(spec.kind, EDITWIN_FUNCTION);
	assert_int_equal(spec.context, CTX_CONSTANTS | EDITWIN_STANDARD_CONTEXT);
	editwin_lookup(&spec, shipped, "mypy", "override", NULL);
	assert_string_equal(spec.why, "Too complex: requires cross-file parent class lookup");
}

static void test_lookup_tools_prefixes_and_default(void **state)
{
	struct editwin_spec spec;

	(void)state;
	/* flake8 shares pyflakes' codes; mypy has no F401. */
	editwin_lookup(&spec, shipped, "flake8", "F401", "'os' imported but unused");
	assert_true(spec.known);
	assert_int_equal(spec.kind, EDITWIN_IMPORTS);
	/* An unused import may be deleted; a comparison to None may not. */
	assert_true(spec.deletes);
	editwin_lookup(&spec, shipped, "flake8", "E711", "comparison to None");
	assert_false(spec.deletes);
	editwin_lookup(&spec, shipped, "mypy", "F401", "");
	assert_false(spec.known);
	assert_false(spec.deletes);
	/* Tools and codes compare without case. */
	editwin_lookup(&spec, shipped, "Ruff", "up035", "");
	assert_true(spec.known);
	assert_int_equal(spec.lines, 3);
	/* Unknown codes: +-3, the standard context, no rationale. */
	editwin_lookup(&spec, shipped, "ruff", "ZZ999", "");
	assert_false(spec.known);
	assert_int_equal(spec.kind, EDITWIN_LINES);
	assert_int_equal(spec.lines, EDITWIN_DEFAULT_LINES);
	assert_int_equal(spec.context, EDITWIN_STANDARD_CONTEXT);
	assert_null(spec.why);
	editwin_lookup(&spec, NULL, "ruff", "F401", NULL);
	assert_false(spec.known);
	editwin_lookup(&spec, shipped, "ruff", "", NULL);
	assert_false(spec.known);
	/* A NULL tool matches any row. */
	editwin_lookup(&spec, shipped, NULL, "union-attr", NULL);
	assert_true(spec.known);
	assert_int_equal(spec.kind, EDITWIN_FUNCTION);
}

static void test_lookup_longest_prefix_and_exact(void **state)
{
	const char *text = "x\tUP*\tlines:1\t-\tany\nx\tUP0*\tlines:2\t-\tlonger\nx\tUP006\tlines:4\t-\texact\n"
		"x\t*\tlines:9\t-\tevery other code of x\n";
	struct editwin_table *table;
	struct editwin_spec spec;

	(void)state;
	assert_int_equal(editwin_table_parse(&table, text, strlen(text), "t.tsv"), 0);
	assert_int_equal(editwin_table_count(table), 4);
	editwin_lookup(&spec, table, "x", "UP006", NULL);
	assert_int_equal(spec.lines, 4);
	editwin_lookup(&spec, table, "x", "UP007", NULL);
	assert_int_equal(spec.lines, 2);
	editwin_lookup(&spec, table, "x", "UP100", NULL);
	assert_int_equal(spec.lines, 1);
	editwin_lookup(&spec, table, "x", "E501", NULL);
	assert_int_equal(spec.lines, 9);
	assert_string_equal(spec.why, "every other code of x");
	editwin_lookup(&spec, table, "y", "UP006", NULL);
	assert_false(spec.known);
	editwin_table_free(table);
}

static void test_conditional_context(void **state)
{
	struct editwin_spec spec;

	(void)state;
	/* class? needs self. in the message. */
	editwin_lookup(&spec, shipped, "mypy", "attr-defined", "\"Account\" has no attribute \"rate\"");
	assert_false(spec.context & CTX_CLASS);
	editwin_lookup(&spec, shipped, "mypy", "attr-defined", "Cannot access self.rate");
	assert_true(spec.context & CTX_CLASS);
	/* type-aliases? needs a CamelCase type. */
	editwin_lookup(&spec, shipped, "mypy", "arg-type",
		       "Argument 1 to \"load\" has incompatible type \"str\"; expected \"UserID\"");
	assert_true(spec.context & CTX_TYPE_ALIASES);
	editwin_lookup(&spec, shipped, "mypy", "arg-type",
		       "Argument 1 to \"load\" has incompatible type \"str\"; expected \"int\"");
	assert_false(spec.context & CTX_TYPE_ALIASES);
	/* typing's own names and the sentence's first word are no custom types. */
	editwin_lookup(&spec, shipped, "mypy", "return-value",
		       "Incompatible return value type (got \"Optional[int]\", expected \"List[str]\")");
	assert_false(spec.context & CTX_TYPE_ALIASES);
	/* Quoted, one capital is enough; unquoted, it takes a second one. */
	editwin_lookup(&spec, shipped, "mypy", "union-attr",
			"Item \"None\" of \"Optional[User]\" has no attribute \"id\"");
	assert_true(spec.context & CTX_TYPE_ALIASES);
	editwin_lookup(&spec, shipped, "mypy", "union-attr", "expected UserId, got str");
	assert_true(spec.context & CTX_TYPE_ALIASES);
	editwin_lookup(&spec, shipped, "mypy", "union-attr", "Something about Users here");
	assert_false(spec.context & CTX_TYPE_ALIASES);
	/* assignment: both conditions, independently. */
	editwin_lookup(&spec, shipped, "mypy", "assignment",
		       "Incompatible types in assignment (expression has type \"str\", variable has type \"UserID\")");
	assert_int_equal(spec.context & (CTX_CLASS | CTX_TYPE_ALIASES), CTX_TYPE_ALIASES);
	editwin_lookup(&spec, shipped, "mypy", "assignment", "self.count is \"int\", not \"str\"");
	assert_int_equal(spec.context & (CTX_CLASS | CTX_TYPE_ALIASES), CTX_CLASS);
	editwin_lookup(&spec, shipped, "mypy", "assignment", NULL);
	assert_int_equal(spec.context & (CTX_CLASS | CTX_TYPE_ALIASES), 0);
	/* B002's class context has no condition. */
	editwin_lookup(&spec, shipped, "ruff", "B002", "no self here");
	assert_true(spec.context & CTX_CLASS);
}

static void assert_parse_error_n(const char *text, size_t len, const char *message)
{
	struct editwin_table *table = (struct editwin_table *)&table;

	assert_int_equal(editwin_table_parse(&table, text, len, "signals/t.tsv"), RL_EPARSE);
	assert_null(table);
	assert_string_equal(error_message(), message);
}

static void assert_parse_error(const char *text, const char *message)
{
	assert_parse_error_n(text, strlen(text), message);
}

static void test_malformed_rows_name_file_and_line(void **state)
{
	static const char with_nul[] = "ok\tA\tskip\t-\tfine\nruff\tF\0\tfunction\t-\twhy\n";

	(void)state;
	assert_parse_error("# c\n\nruff\tF401\timports\n",
			   "signals/t.tsv:3: expected 5 or 6 columns separated by tabs (tools, code, window, "
			   "context, why, and fix when it says delete), found 3");
	assert_parse_error("ruff\tF401\timports\t-\twhy\tdelete\textra\n",
			   "signals/t.tsv:1: expected 5 or 6 columns separated by tabs (tools, code, window, "
			   "context, why, and fix when it says delete), found 7");
	assert_parse_error("ruff\tF401\timports\t-\twhy\textra\n",
			   "signals/t.tsv:1: unknown fix 'extra' (delete, final-newline or -)");
	assert_parse_error("ruff\tF401\tblock\t-\twhy\n",
			   "signals/t.tsv:1: unknown window 'block' (lines:N, function, imports, try or skip)");
	assert_parse_error("ruff\tF401\tlines:0\t-\twhy\n",
			   "signals/t.tsv:1: bad line count in 'lines:0' (lines:N, N from 1 to 999)");
	assert_parse_error("ruff\tF401\tlines:x\t-\twhy\n",
			   "signals/t.tsv:1: bad line count in 'lines:x' (lines:N, N from 1 to 999)");
	assert_parse_error("ruff\tF401\tlines\t-\twhy\n",
			   "signals/t.tsv:1: unknown window 'lines' (lines:N, function, imports, try or skip)");
	assert_parse_error("ruff\tF401\tfunction\tclasses\twhy\n",
			   "signals/t.tsv:1: unknown context 'classes' (imports, function, try, class, "
			   "type-aliases, constants, signature, previous-definition, or -)");
	assert_parse_error("ruff\tF401\tfunction\timports?\twhy\n",
			   "signals/t.tsv:1: 'imports?' cannot be conditional: only class? (when the "
			   "message mentions self.) and type-aliases? (when it names a CamelCase type) can");
	assert_parse_error("ruff\tF401\tfunction\t\twhy\n",
			   "signals/t.tsv:1: the context column is empty (write - for none)");
	assert_parse_error("ruff\tF401\tfunction\t-\t \n",
			   "signals/t.tsv:1: the why column is empty: say why this window");
	assert_parse_error("ruff\tF*01\tfunction\t-\twhy\n",
			   "signals/t.tsv:1: bad code 'F*01' (a code, or a prefix ending in *)");
	assert_parse_error("ruff,\tF401\tfunction\t-\twhy\n",
			   "signals/t.tsv:1: an empty tool name in the tools column");
	assert_parse_error("ru ff\tF401\tfunction\t-\twhy\n", "signals/t.tsv:1: bad tool name 'ru ff'");
	assert_parse_error("ruff,flake8\tF401\tfunction\t-\twhy\n\nflake8\tf401\tlines:2\t-\tagain\n",
			   "signals/t.tsv:3: f401 is already on line 1");
	assert_parse_error_n(with_nul, sizeof(with_nul) - 1, "signals/t.tsv:2: the row holds a NUL byte");
}

static void test_table_format_details(void **state)
{
	const char *text = "# header\r\n  # indented comment\r\n\r\n ruff , flake8 \t F401 \t lines:2 \t "
		"class? , constants \t why\r\nmypy\tF401\tlines:4\t-\tmypy's own";
	struct editwin_table *table;
	struct editwin_spec spec;

	(void)state;
	assert_int_equal(editwin_table_parse(&table, text, strlen(text), NULL), 0);
	assert_int_equal(editwin_table_count(table), 2);
	editwin_lookup(&spec, table, "flake8", "F401", "self.x");
	assert_int_equal(spec.lines, 2);
	assert_int_equal(spec.context, CTX_CLASS | CTX_CONSTANTS | EDITWIN_STANDARD_CONTEXT);
	assert_string_equal(spec.why, "why");
	editwin_lookup(&spec, table, "mypy", "F401", NULL);
	assert_int_equal(spec.lines, 4);
	editwin_table_free(table);
	assert_int_equal(editwin_table_parse(&table, "", 0, NULL), 0);
	assert_int_equal(editwin_table_count(table), 0);
	editwin_table_free(table);
	assert_int_equal(editwin_table_count(NULL), 0);
	editwin_table_free(NULL);
}

static void test_load_reports_file_and_line(void **state)
{
	struct editwin_table *table;
	char *path = fmt("%s/editwin/bad-row.tsv", TEST_FIXTURES), *want;

	(void)state;
	assert_int_equal(editwin_table_load(&table, path), RL_EPARSE);
	assert_null(table);
	want = fmt("%s:5: unknown window 'block' (lines:N, function, imports, try or skip)", path);
	assert_string_equal(error_message(), want);
	free(want);
	free(path);
	path = fmt("%s/editwin/no-such.tsv", TEST_FIXTURES);
	assert_true(editwin_table_load(&table, path) < 0);
	assert_non_null(strstr(error_message(), "no-such.tsv"));
	free(path);
}

/* A table in the user's config directory wins over the shipped one. */
static void test_user_table_wins(void **state)
{
	struct editwin_table *table;
	struct editwin_spec spec;

	(void)state;
	test_write_str(xdg_home, "revline/signals/edit-windows.tsv", "ruff\tF401\tlines:9\t-\tmine\n");
	assert_int_equal(editwin_table_default(&table), 0);
	assert_int_equal(editwin_table_count(table), 1);
	editwin_lookup(&spec, table, "ruff", "F401", NULL);
	assert_int_equal(spec.lines, 9);
	editwin_table_free(table);
	test_sh_ok(xdg_home, "rm -r revline");
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(editwin_kind_name(EDITWIN_TRY), "try");
	assert_string_equal(editwin_kind_name((enum editwin_kind)99), "?");
	assert_string_equal(editwin_context_name(CTX_PREVIOUS_DEF), "previous-definition");
	assert_string_equal(editwin_context_label(CTX_TYPE_ALIASES), "Type aliases");
	assert_string_equal(editwin_context_label((enum editwin_context)0x4000), "?");
	assert_int_equal(editwin_language("a/b.py"), LANG_PYTHON);
	assert_int_equal(editwin_language("stubs/x.pyi"), LANG_PYTHON);
	assert_int_equal(editwin_language("x.C"), LANG_BRACES);
	assert_int_equal(editwin_language("src/main.rs"), LANG_BRACES);
	assert_int_equal(editwin_language("web/app.tsx"), LANG_BRACES);
	assert_int_equal(editwin_language("cmd/main.go"), LANG_BRACES);
	assert_int_equal(editwin_language("A.java"), LANG_BRACES);
	assert_int_equal(editwin_language("README.md"), LANG_OTHER);
	assert_int_equal(editwin_language("Makefile"), LANG_OTHER);
	assert_int_equal(editwin_language("dir.py/file"), LANG_OTHER);
	assert_int_equal(editwin_language(".py"), LANG_OTHER);
	assert_int_equal(editwin_language(NULL), LANG_OTHER);
}

/* ------------------------------------------------------------------------
 * Line windows and the minimums
 */

static char *numbered(int n)
{
	struct buf text = BUF_INIT;
	int i;

	for (i = 1; i <= n; i++)
		buf_printf(&text, "x%d = %d\n", i, i);
	return buf_detach(&text);
}

static void test_lines_and_minimums(void **state)
{
	char *text = numbered(40);
	struct editwin_spec spec = spec_of(EDITWIN_LINES, 5, 0);
	struct editwin w;

	(void)state;
	build(&w, &spec, "m.py", text, 20, 0, NULL);
	assert_window(&w, EDITWIN_LINES, 15, 25);
	assert_int_equal(w.context_first, 10);
	assert_int_equal(w.context_last, 30);
	editwin_release(&w);
	/* A range: +-N around line..end_line; the context +-10 around it. */
	build(&w, &spec, "m.py", text, 20, 23, NULL);
	assert_window(&w, EDITWIN_LINES, 15, 28);
	assert_int_equal(w.context_first, 10);
	assert_int_equal(w.context_last, 33);
	editwin_release(&w);
	/* +-1 is raised to the minimum +-2. */
	spec.lines = 1;
	assert_builds(&spec, "m.py", text, 20, EDITWIN_LINES, 18, 22);
	/* Clamped to the file. */
	build(&w, &spec, "m.py", text, 1, 0, NULL);
	assert_window(&w, EDITWIN_LINES, 1, 3);
	assert_int_equal(w.context_first, 1);
	assert_int_equal(w.context_last, 11);
	editwin_release(&w);
	build(&w, &spec, "m.py", text, 40, 0, NULL);
	assert_window(&w, EDITWIN_LINES, 38, 40);
	assert_int_equal(w.context_first, 30);
	assert_int_equal(w.context_last, 40);
	editwin_release(&w);
	/* An end past the file is cut to its last line. */
	build(&w, &spec, "m.py", text, 39, 45, NULL);
	assert_window(&w, EDITWIN_LINES, 37, 40);
	editwin_release(&w);
	/* The default spec (NULL): +-3. */
	assert_builds(NULL, "notes.txt", text, 20, EDITWIN_LINES, 17, 23);
	/* Huge counts do not overflow. */
	spec.lines = 2000000000;
	assert_builds(&spec, "m.py", text, 20, EDITWIN_LINES, 1, 40);
	free(text);
}

static void test_unknown_code_gets_three_lines(void **state)
{
	char *text = numbered(30);
	struct editwin_spec spec;
	struct editwin w;

	(void)state;
	editwin_lookup(&spec, shipped, "ruff", "Q000", "Single quotes found but double quotes preferred");
	build(&w, &spec, "q.py", text, 15, 0, spec.why);
	assert_window(&w, EDITWIN_LINES, 12, 18);
	assert_int_equal(w.context_first, 5);
	assert_int_equal(w.context_last, 25);
	editwin_release(&w);
	free(text);
}

/*
 * W292 and W391 (bottle's test/example_settings.py and test/__init__.py,
 * flake8 5.0.4): the row says final-newline, and the window reaches the end
 * of the file, whatever line the signal is on.
 */
static void test_final_newline_window_reaches_the_end(void **state)
{
	const char *settings = "A = {\n    \"B\": {\n        \"C\": 3\n    }\n}";
	char *text = numbered(30);
	struct editwin_spec spec;
	struct editwin w;

	(void)state;
	editwin_lookup(&spec, shipped, "flake8", "W292", "no newline at end of file");
	assert_true(spec.known);
	assert_true(spec.ends_file);
	assert_false(spec.deletes);
	build(&w, &spec, "test/example_settings.py", settings, 5, 0, NULL);
	assert_window(&w, EDITWIN_LINES, 3, 5);
	editwin_release(&w);
	editwin_lookup(&spec, shipped, "ruff", "W391", "Too many newlines at end of file");
	assert_true(spec.ends_file);
	/* ruff reports W391 where the extra newlines start: the window still ends with the file. */
	build(&w, &spec, "m.py", text, 20, 0, NULL);
	assert_window(&w, EDITWIN_LINES, 18, 30);
	editwin_release(&w);
	editwin_lookup(&spec, shipped, "flake8", "E711", "comparison to None");
	assert_false(spec.ends_file);
	free(text);
}

static void test_bad_lines_and_skip(void **state)
{
	struct editwin_spec spec = spec_of(EDITWIN_LINES, 3, 0);
	struct editwin w;

	(void)state;
	assert_int_equal(editwin_build(&w, &spec, "a.py", "x = 1\n", 6, 2, 0, NULL), RL_EUSAGE);
	assert_string_equal(error_message(), "line 2 is outside a.py (1 line)");
	assert_int_equal(editwin_build(&w, &spec, "a.py", "x = 1\n", 6, 0, 0, NULL), RL_EUSAGE);
	assert_int_equal(editwin_build(&w, &spec, "a.py", "", 0, 1, 0, NULL), RL_EUSAGE);
	assert_string_equal(error_message(), "line 1 is outside a.py (0 lines)");
	assert_int_equal(editwin_build(&w, &spec, "a.py", "a\nb\nc\n", 6, 3, 2, NULL), RL_EUSAGE);
	assert_string_equal(error_message(), "the signal ends on line 2, before it starts (line 3)");
	assert_int_equal(w.nparts, 0);
	assert_null(w.parts);
	/* mypy's override is skipped, with the table's reason. */
	editwin_lookup(&spec, shipped, "mypy", "override",
			"Signature of \"f\" incompatible with supertype \"Base\"");
	assert_int_equal(editwin_build(&w, &spec, "a.py", "x = 1\n", 6, 1, 0, NULL), RL_EUSAGE);
	assert_string_equal(error_message(),
			    "this signal is not fixed in one window: Too complex: requires cross-file parent class lookup");
	/* A last line without a newline is a line. */
	spec = spec_of(EDITWIN_LINES, 3, 0);
	build(&w, &spec, "a.py", "a\nb", 2, 0, NULL);
	assert_window(&w, EDITWIN_LINES, 1, 2);
	editwin_release(&w);
	editwin_release(NULL);
}

/* ------------------------------------------------------------------------
 * Python scopes
 */

static void test_python_function(void **state)
{
	char *py = fixture("scopes.py");
	struct editwin_spec spec = spec_of(EDITWIN_FUNCTION, 0, 0);
	struct editwin w;
	int fetch_first = at(py, "@decorate\n@decorate"), fetch_last = at(py, "    return text");

	(void)state;
	/* Decorators, async def, a multi-line signature; the comment after the body is left out. */
	build(&w, &spec, "scopes.py", py, at(py, "return await get(url)"), 0, NULL);
	assert_window(&w, EDITWIN_FUNCTION, fetch_first, fetch_last);
	assert_int_equal(at(py, "    # a comment after the body") - fetch_last, 2);
	editwin_release(&w);
	/* A def inside a docstring or a triple-quoted string starts nothing. */
	assert_builds(&spec, "scopes.py", py, at(py, "def fake()"), EDITWIN_FUNCTION, fetch_first,
			fetch_last);
	assert_builds(&spec, "scopes.py", py, at(py, "def also_fake"), EDITWIN_FUNCTION,
			fetch_first, fetch_last);
	/* On the def line itself, on a decorator, in the signature's second line. */
	assert_builds(&spec, "scopes.py", py, at(py, "async def fetch"), EDITWIN_FUNCTION,
			fetch_first, fetch_last);
	/* (the minimum +-2 reaches above the decorator) */
	assert_builds(&spec, "scopes.py", py, fetch_first, EDITWIN_FUNCTION, fetch_first - 2, fetch_last);
	assert_builds(&spec, "scopes.py", py, at(py, "retries=MAX_RETRIES"), EDITWIN_FUNCTION,
			fetch_first, fetch_last);
	/* The module docstring's "def" is not a function either. */
	build(&w, &spec, "scopes.py", py, at(py, "def not_a_function"), 0, NULL);
	assert_int_equal(w.kind, EDITWIN_LINES);
	editwin_release(&w);
	free(py);
}

static void test_python_nesting_and_classes(void **state)
{
	char *py = fixture("scopes.py");
	struct editwin_spec spec = spec_of(EDITWIN_FUNCTION, 0, 0);
	struct editwin w;

	(void)state;
	/* The innermost function: inner in outer, outer around inner. */
	assert_builds(&spec, "scopes.py", py, at(py, "# inner-body"), EDITWIN_FUNCTION, at(py,
			"# inner-body") - 2, at(py, "# inner-body") + 2);
	assert_builds(&spec, "scopes.py", py, at(py, "# outer-body"), EDITWIN_FUNCTION, at(py,
			"def outer"), at(py, "    return value") + 1);
	/* A method: not the class. */
	spec.context = CTX_FUNCTION;
	build(&w, &spec, "scopes.py", py, at(py, "# method-body"), 0, NULL);
	assert_window(&w, EDITWIN_FUNCTION, at(py, "# method-body") - 2, at(py, "# method-body") + 2);
	assert_true(at(py, "def deposit") >= w.first && at(py, "return self.balance") <= w.last);
	spec.context = 0;
	editwin_release(&w);
	/* A class body outside any method has no function: +-3 lines. */
	assert_builds(&spec, "scopes.py", py, at(py, "# class-body"), EDITWIN_LINES, at(py,
			"# class-body") - 3, at(py, "# class-body") + 3);
	/* Module level: lines, +-spec.lines when it has some. */
	spec.lines = 4;
	assert_builds(&spec, "scopes.py", py, at(py, "lower_name = 1"), EDITWIN_LINES, at(py,
			"lower_name = 1") - 4, at(py, "lower_name = 1") + 4);
	free(py);
}

static void test_python_tabs_and_spaces(void **state)
{
	char *py = fixture("scopes.py");
	const char *mixed = "def a():\n        x = 0\n\tif x:\n\t\ty = 1\n\t\ty = 2\n\t\ty = 3\n\treturn y\n"
		"\n\ndef b():\n  return 2\n";
	struct editwin_spec spec = spec_of(EDITWIN_FUNCTION, 0, 0);

	(void)state;
	assert_builds(&spec, "scopes.py", py, at(py, "# tab-body"), EDITWIN_FUNCTION, at(py,
			"def tabbed"), at(py, "\treturn x"));
	/* A tab is eight columns: eight spaces are as deep as a tab. */
	assert_builds(&spec, "m.py", mixed, 2, EDITWIN_FUNCTION, 1, 7);
	assert_builds(&spec, "m.py", mixed, 5, EDITWIN_FUNCTION, 1, 7);
	free(py);
}

static void test_python_function_edges(void **state)
{
	const char *text =
		"def one(): return 1\n"                 /* 1 */
		"x = [\n"                               /* 2 */
		"    1,\n"                              /* 3 */
		"def broken():\n"                       /* 4: brackets left open */
		"    return 2\n"                        /* 5 */
		"\n"                                    /* 6 */
		"def joined(a, \\\n"                    /* 7 */
		"           b):\n"                      /* 8 */
		"    s = 'it''s \\\n"                   /* 9 */
		"def not_here'\n"                       /* 10 */
		"    return s\n"                        /* 11 */
		"class C:\n"                            /* 12 */
		"    def m(self):\n"                    /* 13 */
		"        class Inner:\n"                /* 14 */
		"            z = 1\n"                   /* 15 */
		"        return Inner\n";               /* 16 */
	struct editwin_spec spec = spec_of(EDITWIN_FUNCTION, 0, 0);

	(void)state;
	assert_builds(&spec, "e.py", text, 1, EDITWIN_FUNCTION, 1, 3);
	assert_builds(&spec, "e.py", text, 5, EDITWIN_FUNCTION, 3, 7);
	assert_builds(&spec, "e.py", text, 10, EDITWIN_FUNCTION, 7, 12);
	/* A class inside a method is still in the method. */
	assert_builds(&spec, "e.py", text, 15, EDITWIN_FUNCTION, 13, 16);
}

static void test_python_try(void **state)
{
	char *py = fixture("scopes.py");
	struct editwin_spec spec = spec_of(EDITWIN_TRY, 0, 0);
	int first = at(py, "        try:"), last = at(py, "log(attempt)");

	(void)state;
	/* Inside the try, in the function: the whole statement, every clause. */
	assert_builds(&spec, "scopes.py", py, at(py, "return await get(url)"), EDITWIN_TRY, first - 1, last);
	/* E722 is reported on the except line. */
	assert_builds(&spec, "scopes.py", py, at(py, "        except:"), EDITWIN_TRY, first, last);
	assert_builds(&spec, "scopes.py", py, at(py, "continue"), EDITWIN_TRY, first, last);
	/* The line below the try block is not inside it. */
	assert_builds(&spec, "scopes.py", py, at(py, "after_the_try"), EDITWIN_LINES, at(py,
			"after_the_try") - 3, at(py, "after_the_try") + 3);
	free(py);
}

static void test_python_try_edges(void **state)
{
	const char *text =
		"try:\n"                        /* 1 */
		"    def f():\n"                /* 2 */
		"        x = 1\n"               /* 3 */
		"        try:\n"                /* 4 */
		"            a()\n"             /* 5 */
		"        except ValueError:\n"  /* 6 */
		"            pass\n"            /* 7 */
		"        except:\n"             /* 8 */
		"            raise\n"           /* 9 */
		"        else:\n"               /* 10 */
		"            b()\n"             /* 11 */
		"\n"                            /* 12 */
		"        if a:\n"               /* 13 */
		"            pass\n"            /* 14 */
		"        else:\n"               /* 15 */
		"            c()\n"             /* 16 */
		"except Exception:\n"           /* 17 */
		"    pass\n";                   /* 18 */
	struct editwin_spec spec = spec_of(EDITWIN_TRY, 0, 0);
	struct editwin w;

	(void)state;
	assert_builds(&spec, "t.py", text, 9, EDITWIN_TRY, 4, 11);
	assert_builds(&spec, "t.py", text, 11, EDITWIN_TRY, 4, 13);
	/* A blank line after the try, an else of an if: not in a try of the function. */
	build(&w, &spec, "t.py", text, 12, 0, NULL);
	assert_int_equal(w.kind, EDITWIN_LINES);
	editwin_release(&w);
	build(&w, &spec, "t.py", text, 16, 0, NULL);
	assert_int_equal(w.kind, EDITWIN_LINES);
	editwin_release(&w);
	/* The try around the whole def is not the try of a line in the def. */
	build(&w, &spec, "t.py", text, 3, 0, NULL);
	assert_int_equal(w.kind, EDITWIN_LINES);
	editwin_release(&w);
	/* ...but it is the def line's. */
	assert_builds(&spec, "t.py", text, 2, EDITWIN_TRY, 1, 18);
	assert_builds(&spec, "t.py", text, 17, EDITWIN_TRY, 1, 18);
}

static void test_python_imports(void **state)
{
	char *py = fixture("scopes.py");
	struct editwin_spec spec = spec_of(EDITWIN_IMPORTS, 0, 0);
	struct editwin w;
	int first = at(py, "from __future__"), last = at(py, "    import json");

	(void)state;
	/* __future__, comments, a multi-line from-import, a try/except ImportError guard. */
	assert_builds(&spec, "scopes.py", py, at(py, "import sys"), EDITWIN_IMPORTS, first, last);
	assert_builds(&spec, "scopes.py", py, at(py, "    TypedDict,"), EDITWIN_IMPORTS, first, last);
	/* Not an import, not in the block: lines. */
	build(&w, &spec, "scopes.py", py, at(py, "lower_name"), 0, NULL);
	assert_int_equal(w.kind, EDITWIN_LINES);
	editwin_release(&w);
	free(py);
}

static void test_python_imports_late_and_local(void **state)
{
	const char *text =
		"\"\"\"Doc.\"\"\"\n"                    /* 1 */
		"import os\n"                           /* 2 */
		"\n"                                    /* 3 */
		"if TYPE_CHECKING:\n"                   /* 4 */
		"    from a import B\n"                 /* 5 */
		"\n"                                    /* 6 */
		"sys.path.insert(0, '.')\n"             /* 7 */
		"x = 1\n"                               /* 8 */
		"y = 2\n"                               /* 9 */
		"import late  # E402\n"                 /* 10 */
		"import later\n"                        /* 11 */
		"\n"                                    /* 12 */
		"def f():\n"                            /* 13 */
		"    a = 1\n"                           /* 14 */
		"    b = 2\n"                           /* 15 */
		"    c = 3\n"                           /* 16 */
		"    import json\n"                     /* 17 */
		"    # why\n"                           /* 18 */
		"    import re\n"                       /* 19 */
		"    d = 4\n"                           /* 20 */
		"    e = 5\n"                           /* 21 */
		"    return json, re\n";                /* 22 */
	struct editwin_spec spec = spec_of(EDITWIN_IMPORTS, 0, 0);

	(void)state;
	assert_builds(&spec, "l.py", text, 5, EDITWIN_IMPORTS, 2, 7);
	/* E402: the late import with the top block, so that it can move up. */
	assert_builds(&spec, "l.py", text, 10, EDITWIN_IMPORTS, 2, 12);
	/* An import in a function: the imports around it there. */
	assert_builds(&spec, "l.py", text, 19, EDITWIN_IMPORTS, 17, 21);
}

static void test_python_imports_block_limits(void **state)
{
	/* No imports at the top: a late import stands alone. */
	const char *none = "x = 1\ny = 2\nz = 3\nw = 4\nimport a\nimport b\nv = 5\nu = 6\nt = 7\n";
	struct editwin_spec spec = spec_of(EDITWIN_IMPORTS, 0, 0);

	(void)state;
	assert_builds(&spec, "n.py", none, 5, EDITWIN_IMPORTS, 3, 7);
	assert_builds(&spec, "n.py", none, 2, EDITWIN_LINES, 1, 5);
}

/* ------------------------------------------------------------------------
 * Context parts
 */

static void test_standard_context_and_cutting(void **state)
{
	char *py = fixture("scopes.py");
	struct editwin_spec spec;
	struct editwin w;
	char *want;
	int line = at(py, "return await get(url)");

	(void)state;
	/* F841 (+-3, function): the function around the window, cut in two; the imports; the try
	 * is inside the function's part. */
	editwin_lookup(&spec, shipped, "ruff", "F841", "Local variable `x` is assigned to but never used");
	build(&w, &spec, "scopes.py", py, line, 0, NULL);
	assert_window(&w, EDITWIN_LINES, line - 3, line + 3);
	want = fmt("imports:%d-%d function:%d-%d function:%d-%d", at(py, "from __future__"),
		   at(py, "    import json"), at(py, "@decorate\n@decorate"), line - 4, line + 4,
		   at(py, "    return text"));
	assert_parts(&w, want);
	assert_sane(&w, at(py, "\treturn x"), line, line);
	free(want);
	editwin_release(&w);
	/* E722: the try is the window; the function is left around it. */
	editwin_lookup(&spec, shipped, "ruff", "E722", "Do not use bare `except`");
	build(&w, &spec, "scopes.py", py, at(py, "        except:"), 0, NULL);
	assert_window(&w, EDITWIN_TRY, at(py, "        try:"), at(py, "log(attempt)"));
	want = fmt("imports:%d-%d function:%d-%d function:%d-%d", at(py, "from __future__"),
		   at(py, "    import json"), at(py, "@decorate\n@decorate"), at(py, "        try:") - 1,
		   at(py, "log(attempt)") + 1, at(py, "    return text"));
	assert_parts(&w, want);
	free(want);
	editwin_release(&w);
	/* F401 on an import: the imports are the window, not a part. */
	editwin_lookup(&spec, shipped, "ruff", "F401", "`os` imported but unused");
	build(&w, &spec, "scopes.py", py, at(py, "import os"), 0, NULL);
	assert_int_equal(w.kind, EDITWIN_IMPORTS);
	assert_parts(&w, "");
	editwin_release(&w);
	free(py);
}

static void test_class_context(void **state)
{
	char *py = fixture("scopes.py");
	struct editwin_spec spec;
	int line = at(py, "# method-body");

	(void)state;
	editwin_lookup(&spec, shipped, "mypy", "attr-defined",
			"\"Account\" has no attribute \"rate\"; self.rate");
	spec.context &= ~(unsigned)EDITWIN_STANDARD_CONTEXT;
	spec.lines = 2;
	/* Decorator, signature and docstring; the annotations; not RATE = 2, not the methods. */
	assert_parts_of(&spec, "scopes.py", py, line, NULL,
			"class:%d-%d class:%d-%d", at(py, "@dataclass"), at(py, "\"\"\"An account"),
			at(py, "owner: str"), at(py, "balance: int = 0"));
	/* Without self. in the message, no class. */
	editwin_lookup(&spec, shipped, "mypy", "attr-defined", "\"Account\" has no attribute \"rate\"");
	spec.context &= ~(unsigned)EDITWIN_STANDARD_CONTEXT;
	assert_parts_of(&spec, "scopes.py", py, line, NULL, NO_PARTS);
	/* Outside a class there is none. */
	spec = spec_of(EDITWIN_LINES, 2, CTX_CLASS);
	assert_parts_of(&spec, "scopes.py", py, at(py, "# outer-body"), NULL, NO_PARTS);
	free(py);
}

static void test_type_aliases_and_constants(void **state)
{
	char *py = fixture("scopes.py");
	struct editwin_spec spec;
	int line = at(py, "# outer-body");

	(void)state;
	editwin_lookup(&spec, shipped, "mypy", "arg-type",
		       "Argument 1 to \"fetch\" has incompatible type \"str\"; expected \"UserID\"");
	spec.context &= ~(unsigned)EDITWIN_STANDARD_CONTEXT;
	assert_parts_of(&spec, "scopes.py", py, line, NULL,
			"type-aliases:%d-%d type-aliases:%d-%d type-aliases:%d-%d", at(py, "UserID = NewType"),
			at(py, "MaybeKey"), at(py, "class Movie"), at(py, "    title: str"),
			at(py, "class Greeter"), at(py, "def greet"));
	/* F821: module constants (not T = TypeVar, not lower case) and the imports. */
	editwin_lookup(&spec, shipped, "ruff", "F821", "Undefined name `MAX_RETRY`");
	spec.context &= ~(unsigned)(CTX_FUNCTION | CTX_TRY);
	assert_parts_of(&spec, "scopes.py", py, line, NULL,
			"imports:%d-%d constants:%d-%d", at(py, "from __future__"), at(py, "    import json"),
			at(py, "MAX_RETRIES = 3"), at(py, "DEFAULT_NAME"));
	free(py);
}

static void test_signature_and_previous_definition(void **state)
{
	const char *text =
		"import os\n"                           /* 1 */
		"from x import (a,\n"                   /* 2 */
		"    path)\n"                           /* 3 */
		"\n"                                    /* 4 */
		"@cache\n"                              /* 5 */
		"def load(name):\n"                     /* 6 */
		"    return name\n"                     /* 7 */
		"\n"                                    /* 8 */
		"\n"                                    /* 9 */
		"\n"                                    /* 10 */
		"\n"                                    /* 11 */
		"\n"                                    /* 12 */
		"\n"                                    /* 13 */
		"def load(name, cache=True):\n"         /* 14 */
		"    return name\n"                     /* 15 */
		"\n"                                    /* 16 */
		"\n"                                    /* 17 */
		"\n"                                    /* 18 */
		"\n"                                    /* 19 */
		"def save(items,\n"                     /* 20 */
		"         seen=[],\n"                   /* 21 */
		"         more={}):\n"                  /* 22 */
		"    a = 1\n"                           /* 23 */
		"    b = 2\n"                           /* 24 */
		"    c = 3\n"                           /* 25 */
		"    d = 4\n"                           /* 26 */
		"    e = 5\n"                           /* 27 */
		"    return items\n"                    /* 28 */
		"\n"                                    /* 29 */
		"\n"                                    /* 30 */
		"import path\n";                        /* 31 */
	struct editwin_spec spec = spec_of(EDITWIN_LINES, 2, CTX_PREVIOUS_DEF);
	struct editwin w;

	(void)state;
	/* F811 names the line (ruff and pyflakes wordings): the whole decorated def there. */
	assert_parts_of(&spec, "p.py", text, 14, "Redefinition of unused `load` from line 6",
			"previous-definition:5-7");
	assert_parts_of(&spec, "p.py", text, 14, "redefinition of unused 'load' from line 5",
			"previous-definition:5-7");
	/* Without a line: the nearest definition above, a multi-line import here. */
	assert_parts_of(&spec, "p.py", text, 31, "redefinition of unused 'path'", "previous-definition:2-3");
	assert_parts_of(&spec, "p.py", text, 14, "redefinition of unused 'load'", "previous-definition:5-7");
	assert_parts_of(&spec, "p.py", text, 14, "redefinition of something", NO_PARTS);
	/* B006 on a default in a long signature: the signature's lines outside the window. */
	spec = spec_of(EDITWIN_LINES, 1, CTX_SIGNATURE);
	build(&w, &spec, "p.py", text, 22, 0, "Do not use mutable data structures for argument defaults");
	assert_window(&w, EDITWIN_LINES, 20, 24);
	assert_parts(&w, "");
	editwin_release(&w);
	assert_parts_of(&spec, "p.py", text, 27, NULL, "signature:20-22");
	/* The function holds the signature: one part, not both. */
	spec.context |= CTX_FUNCTION;
	assert_parts_of(&spec, "p.py", text, 27, NULL, "function:20-24");
}

static void test_python_crlf(void **state)
{
	const char *text = "import os\r\n\r\ndef f(a):\r\n    try:\r\n        g()\r\n    except:\r\n"
		"        pass\r\n    return a\r\n";
	struct editwin_spec spec = spec_of(EDITWIN_TRY, 0, EDITWIN_STANDARD_CONTEXT);
	struct editwin w;

	(void)state;
	build(&w, &spec, "c.py", text, 6, 0, NULL);
	assert_window(&w, EDITWIN_TRY, 4, 8);
	assert_parts(&w, "imports:1-1 function:3-3");
	editwin_release(&w);
}

/* ------------------------------------------------------------------------
 * Brace languages
 */

static void test_c_functions_and_includes(void **state)
{
	char *c = fixture("sample.c");
	struct editwin_spec spec = spec_of(EDITWIN_FUNCTION, 0, 0);
	struct editwin w;

	(void)state;
	/* From the signature's first line to the closing brace; braces in strings, chars and
	 * comments ignored. */
	assert_builds(&spec, "sample.c", c, at(c, "body-if"), EDITWIN_FUNCTION, at(c,
			"static struct point *point_new"), at(c, "point-new-end") + 1);
	/* A macro's block inside a function: the function. */
	assert_builds(&spec, "sample.c", c, at(c, "macro-block"), EDITWIN_FUNCTION, at(c,
			"int count_braces"), at(c, "return n;") + 1);
	/* Outside any function: lines. */
	build(&w, &spec, "sample.c", c, at(c, "top-level"), 0, NULL);
	assert_int_equal(w.kind, EDITWIN_LINES);
	editwin_release(&w);
	/* The includes, with the #ifdef among them; not the include guard. */
	spec = spec_of(EDITWIN_IMPORTS, 0, 0);
	assert_builds(&spec, "sample.c", c, at(c, "windows.h"), EDITWIN_IMPORTS, at(c, "stdio.h"),
			at(c, "local.h"));
	spec = spec_of(EDITWIN_LINES, 2, EDITWIN_STANDARD_CONTEXT | CTX_SIGNATURE);
	build(&w, &spec, "sample.c", c, at(c, "body-if"), 0, NULL);
	{
		char *want = fmt("imports:%d-%d function:%d-%d function:%d-%d", at(c, "stdio.h"),
				at(c, "local.h"),
				 at(c, "static struct point *point_new"), at(c, "body-if") - 3,
				 at(c, "body-if") + 3, at(c, "point-new-end") + 1);

		assert_parts(&w, want);
		free(want);
	}
	editwin_release(&w);
	free(c);
}

static void test_cpp_try_and_raw_strings(void **state)
{
	char *cpp = fixture("sample.cpp");
	struct editwin_spec spec = spec_of(EDITWIN_TRY, 0, 0);

	(void)state;
	assert_builds(&spec, "sample.cpp", cpp, at(cpp, "cpp-catch"), EDITWIN_TRY, at(cpp,
			"\ttry {"), at(cpp, "cpp-catch") + 2);
	spec = spec_of(EDITWIN_FUNCTION, 0, 0);
	assert_builds(&spec, "sample.cpp", cpp, at(cpp, "cpp-try"), EDITWIN_FUNCTION, at(cpp,
			"int parse"), at(cpp, "cpp-catch") + 2);
	free(cpp);
}

static void test_javascript(void **state)
{
	char *js = fixture("sample.js");
	struct editwin_spec spec = spec_of(EDITWIN_TRY, 0, 0);
	struct editwin w;

	(void)state;
	/* try { } catch { } finally { }, from the try body and from the catch body. */
	assert_builds(&spec, "sample.js", js, at(js, "try-body"), EDITWIN_TRY, at(js,
			"  try {") - 1, at(js, "done();") + 1);
	assert_builds(&spec, "sample.js", js, at(js, "catch-body"), EDITWIN_TRY, at(js, "  try {"),
			at(js, "done();") + 1);
	spec = spec_of(EDITWIN_FUNCTION, 0, 0);
	assert_builds(&spec, "sample.js", js, at(js, "try-body"), EDITWIN_FUNCTION, at(js,
			"export function load"), at(js, "done();") + 2);
	/* An arrow function with object literals inside. */
	assert_builds(&spec, "sample.js", js, at(js, "arrow-body"), EDITWIN_FUNCTION, at(js,
			"const handler") - 1, at(js, "return obj;") + 1);
	/* The innermost: an arrow passed to a call after return. */
	assert_builds(&spec, "sample.js", js, at(js, "inner-arrow"), EDITWIN_FUNCTION, at(js,
			"inner-arrow") - 2, at(js, "inner-arrow") + 2);
	/* A method. */
	spec = spec_of(EDITWIN_LINES, 2, CTX_FUNCTION);
	build(&w, &spec, "sample.js", js, at(js, "get(key)"), 0, NULL);
	assert_window(&w, EDITWIN_LINES, at(js, "get(key)") - 2, at(js, "get(key)") + 2);
	{
		char *want = fmt("function:%d-%d", at(js, "get(key)") + 3, at(js, "inner-arrow") + 2);

		assert_parts(&w, want);
		free(want);
	}
	editwin_release(&w);
	/* Imports: 'use strict' before, a multi-line import, require(). */
	spec = spec_of(EDITWIN_IMPORTS, 0, 0);
	assert_builds(&spec, "sample.js", js, at(js, "  join,"), EDITWIN_IMPORTS, at(js,
			"import fs"), at(js, "require('util')"));
	free(js);
}

static void test_go(void **state)
{
	char *go = fixture("sample.go");
	struct editwin_spec spec = spec_of(EDITWIN_FUNCTION, 0, 0);

	(void)state;
	/* A method; an if with an init statement is no function; runes and raw strings. */
	assert_builds(&spec, "sample.go", go, at(go, "go-if"), EDITWIN_FUNCTION, at(go,
			"func (s *Server)"), at(go, "go-method") + 1);
	/* A closure: the innermost function. */
	assert_builds(&spec, "sample.go", go, at(go, "go-closure"), EDITWIN_FUNCTION, at(go,
			"go func()") - 1, at(go, "go-closure") + 2);
	spec = spec_of(EDITWIN_IMPORTS, 0, 0);
	/* import ( ... ): four lines, and the +-2 minimum reaches one past them. */
	assert_builds(&spec, "sample.go", go, at(go, "\"strings\""), EDITWIN_IMPORTS, at(go,
			"import ("), at(go, "import (") + 4);
	free(go);
}

static void test_rust(void **state)
{
	char *rs = fixture("sample.rs");
	struct editwin_spec spec = spec_of(EDITWIN_FUNCTION, 0, 0);

	(void)state;
	/* Lifetimes are no char literals, raw strings and nested comments hide their braces,
	 * attributes belong to the fn. */
	assert_builds(&spec, "sample.rs", rs, at(rs, "rs-raw"), EDITWIN_FUNCTION, at(rs,
			"#[inline]"), at(rs, "self.name") + 1);
	/* Match arms are no functions. */
	assert_builds(&spec, "sample.rs", rs, at(rs, "rs-match"), EDITWIN_FUNCTION, at(rs,
			"fn main"), at(rs, "_ => {}") + 2);
	spec = spec_of(EDITWIN_IMPORTS, 0, 0);
	assert_builds(&spec, "sample.rs", rs, at(rs, "Read,"), EDITWIN_IMPORTS, at(rs,
			"use std::collections"), at(rs, "};") + 1);
	free(rs);
}

static void test_java(void **state)
{
	char *java = fixture("Sample.java");
	struct editwin_spec spec = spec_of(EDITWIN_TRY, 0, 0);
	struct editwin w;

	(void)state;
	assert_builds(&spec, "Sample.java", java, at(java, "java-catch"), EDITWIN_TRY, at(java,
			"        try {"), at(java, "cleanup();") + 1);
	/* Annotations belong to the method; a text block's brace is text. */
	spec = spec_of(EDITWIN_FUNCTION, 0, 0);
	assert_builds(&spec, "Sample.java", java, at(java, "java-try"), EDITWIN_FUNCTION, at(java,
			"@Override"), at(java, "cleanup();") + 2);
	/* An anonymous class's method, not the class. */
	assert_builds(&spec, "Sample.java", java, at(java, "java-anon"), EDITWIN_FUNCTION, at(java,
			"java-anon") - 2, at(java, "java-anon") + 2);
	spec = spec_of(EDITWIN_IMPORTS, 0, 0);
	spec = spec_of(EDITWIN_IMPORTS, 0, CTX_IMPORTS);
	assert_builds(&spec, "Sample.java", java, at(java, "java.util.Map"), EDITWIN_IMPORTS,
			at(java, "java.util.List") - 1, at(java, "java.util.Map") + 2);
	/* Seen from the class: the block is a part. */
	build(&w, &spec, "Sample.java", java, at(java, "java-anon"), 0, NULL);
	{
		char *want = fmt("imports:%d-%d", at(java, "java.util.List"), at(java, "java.util.Map"));

		assert_parts(&w, want);
		free(want);
	}
	editwin_release(&w);
	free(java);
}

static void test_braces_fallbacks(void **state)
{
	const char *text = "int a;\nint b;\nint c;\nint d;\nint e;\nint f;\nint g;\n";
	struct editwin_spec spec = spec_of(EDITWIN_TRY, 0,
			EDITWIN_STANDARD_CONTEXT | CTX_CLASS | CTX_CONSTANTS);
	struct editwin w;

	(void)state;
	build(&w, &spec, "x.c", text, 4, 0, "self.x MAX");
	assert_window(&w, EDITWIN_LINES, 1, 7);
	assert_parts(&w, "");
	editwin_release(&w);
	/* Another language: lines whatever the kind. */
	spec = spec_of(EDITWIN_FUNCTION, 0, EDITWIN_STANDARD_CONTEXT);
	build(&w, &spec, "x.sh", "f() {\n  a\n  b\n  c\n  d\n}\n", 3, 0, NULL);
	assert_window(&w, EDITWIN_LINES, 1, 6);
	assert_parts(&w, "");
	editwin_release(&w);
}

/* Every line of every fixture, every kind, all the context: the invariants hold. */
static void test_every_line_of_every_fixture(void **state)
{
	static const char *const files[] = {
		"scopes.py", "sample.c", "sample.cpp", "sample.js", "sample.go", "sample.rs", "Sample.java",
	};
	static const enum editwin_kind kinds[] = { EDITWIN_LINES, EDITWIN_FUNCTION, EDITWIN_IMPORTS,
			EDITWIN_TRY };
	size_t f, k;

	(void)state;
	for (f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		char *text = fixture(files[f]);
		int n = 0, line;
		const char *p;

		for (p = text; *p; p++)
			n += *p == '\n';
		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			for (line = 1; line <= n; line++) {
				struct editwin_spec spec = spec_of(kinds[k], 1, 0xff);
				struct editwin w;

				build(&w, &spec, files[f], text, line, 0, "self.x `load` UserID from line 3");
				assert_sane(&w, n, line, line);
				editwin_release(&w);
			}
		free(text);
	}
}

/* ------------------------------------------------------------------------
 * The group: the shipped table through the data directory, as the program finds it
 */

static int setup(void **state)
{
	(void)state;
	/* Tests run without REVLINE_DATADIR: the build stages share/signals beside the binary. */
	unsetenv("REVLINE_DATADIR");
	xdg_home = test_tmpdir("editwin-xdg");
	setenv("XDG_CONFIG_HOME", xdg_home, 1);
	if (editwin_table_default(&shipped) < 0) {
		fprintf(stderr, "the shipped table: %s\n", error_message());
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	editwin_table_free(shipped);
	test_rmtree(xdg_home);
	free(xdg_home);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_table_has_every_seed_row),
		cmocka_unit_test(test_lookup_tools_prefixes_and_default),
		cmocka_unit_test(test_lookup_longest_prefix_and_exact),
		cmocka_unit_test(test_conditional_context),
		cmocka_unit_test(test_malformed_rows_name_file_and_line),
		cmocka_unit_test(test_table_format_details),
		cmocka_unit_test(test_load_reports_file_and_line),
		cmocka_unit_test(test_user_table_wins),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_lines_and_minimums),
		cmocka_unit_test(test_unknown_code_gets_three_lines),
		cmocka_unit_test(test_bad_lines_and_skip),
		cmocka_unit_test(test_final_newline_window_reaches_the_end),
		cmocka_unit_test(test_python_function),
		cmocka_unit_test(test_python_nesting_and_classes),
		cmocka_unit_test(test_python_tabs_and_spaces),
		cmocka_unit_test(test_python_function_edges),
		cmocka_unit_test(test_python_try),
		cmocka_unit_test(test_python_try_edges),
		cmocka_unit_test(test_python_imports),
		cmocka_unit_test(test_python_imports_late_and_local),
		cmocka_unit_test(test_python_imports_block_limits),
		cmocka_unit_test(test_standard_context_and_cutting),
		cmocka_unit_test(test_class_context),
		cmocka_unit_test(test_type_aliases_and_constants),
		cmocka_unit_test(test_signature_and_previous_definition),
		cmocka_unit_test(test_python_crlf),
		cmocka_unit_test(test_c_functions_and_includes),
		cmocka_unit_test(test_cpp_try_and_raw_strings),
		cmocka_unit_test(test_javascript),
		cmocka_unit_test(test_go),
		cmocka_unit_test(test_rust),
		cmocka_unit_test(test_java),
		cmocka_unit_test(test_braces_fallbacks),
		cmocka_unit_test(test_every_line_of_every_fixture),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
