#include "testlib.h"

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"
#include "theme.h"

static const char *const shipped[] = {
	"default-dark", "light", "solarized-dark", "high-contrast", "mono",
};

/* A theme no real file or built-in can produce, so "set by the file" shows. */
static void poison(struct theme *theme)
{
	memset(theme, 0, sizeof(*theme));
	for (int i = 0; i < STYLE_COUNT; i++) {
		theme->styles[i] = (struct style_def){ 99, 99, 99, 99, 0x7f, false };
	}
}

static int parse(struct theme *theme, const char *text, struct buf *errors)
{
	return theme_parse(theme, text, strlen(text), "t", errors);
}

/* Parse one line over the default theme; returns the style it set. */
static struct style_def parse_one(const char *line)
{
	struct theme theme;
	struct buf errors = BUF_INIT;
	int bad;

	theme_default(&theme);
	bad = parse(&theme, line, &errors);
	if (bad != 0)
		fail_msg("'%s': %s", line, errors.ptr);
	buf_release(&errors);
	return theme.styles[STYLE_DIFF_ADD];
}

static void assert_style(struct style_def got, short fg, short fg8, short bg, short bg8,
			 unsigned attrs)
{
	assert_int_equal(got.fg, fg);
	assert_int_equal(got.fg8, fg8);
	assert_int_equal(got.bg, bg);
	assert_int_equal(got.bg8, bg8);
	assert_int_equal(got.attrs, attrs);
}

static void assert_same_styles(const struct theme *a, const struct theme *b, const char *what)
{
	for (int i = 0; i < STYLE_COUNT; i++) {
		const struct style_def *x = &a->styles[i], *y = &b->styles[i];

		if (x->fg != y->fg || x->bg != y->bg || x->fg8 != y->fg8 || x->bg8 != y->bg8 ||
		    x->attrs != y->attrs)
			fail_msg("%s: style %s differs: %d/%d %d/%d %#x vs %d/%d %d/%d %#x", what,
				 style_name((enum style)i), x->fg, x->fg8, x->bg, x->bg8, x->attrs,
				 y->fg, y->fg8, y->bg, y->bg8, y->attrs);
	}
	assert_int_equal(a->mono, b->mono);
}

static void read_theme(struct buf *out, const char *name)
{
	char *path;

	if (asprintf(&path, "%s/themes/%s", TEST_SOURCE_DIR, name) < 0)
		fail_msg("out of memory");
	buf_clear(out);
	if (buf_read_file(out, path) < 0)
		fail_msg("%s", error_message());
	free(path);
}

/* ---- names ---- */

static void test_style_names(void **state)
{
	(void)state;
	assert_string_equal(style_name(STYLE_DEFAULT), "default");
	assert_string_equal(style_name(STYLE_DIFF_ADD), "diff-add");
	assert_string_equal(style_name(STYLE_EMPTY_TITLE), "empty-title");
	assert_int_equal(style_letter(STYLE_DIFF_DEL), '-');
	assert_int_equal(style_letter(STYLE_CURSOR), 'C');
	assert_string_equal(style_name(STYLE_COUNT), "?");
	assert_string_equal(style_name((enum style)-1), "?");
	assert_int_equal(style_letter(STYLE_COUNT), '?');
}

/* ---- colours ---- */

static void test_colour_forms(void **state)
{
	(void)state;
	assert_style(parse_one("color diff-add default default"), -1, -1, -1, -1, 0);
	assert_style(parse_one("color diff-add black white"), 0, 0, 7, 7, 0);
	assert_style(parse_one("color diff-add red green"), 1, 1, 2, 2, 0);
	assert_style(parse_one("color diff-add yellow blue"), 3, 3, 4, 4, 0);
	assert_style(parse_one("color diff-add magenta cyan"), 5, 5, 6, 6, 0);
	assert_style(parse_one("color diff-add bright-black bright-white"), 8, 8, 15, 15, 0);
	assert_style(parse_one("color diff-add bright-red bright-cyan"), 9, 9, 14, 14, 0);
	assert_style(parse_one("color diff-add color0 color255"), 0, 0, 255, 7, 0);
	assert_style(parse_one("color diff-add color9 12"), 9, 9, 12, 12, 0);
	assert_style(parse_one("color diff-add 0 007"), 0, 0, 7, 7, 0);
	assert_style(parse_one("color diff-add 196 21"), 196, 1, 21, 4, 0);
}

static void test_colour_fallbacks(void **state)
{
	(void)state;
	assert_style(parse_one("color diff-add 114/green 235/black"), 114, 2, 235, 0, 0);
	assert_style(parse_one("color diff-add 243/default default/blue"), 243, -1, -1, 4, 0);
	assert_style(parse_one("color diff-add color114/2 color17/color4"), 114, 2, 17, 4, 0);
	assert_style(parse_one("color diff-add 231/bright-white 16/bright-black"),
		     231, 15, 16, 8, 0);
	/* A fallback past 15 is itself brought down to a basic colour. */
	assert_style(parse_one("color diff-add 114/196 default/46"), 114, 1, -1, 2, 0);
	/* A colour up to 15 is its own fallback. */
	assert_style(parse_one("color diff-add bright-green 5"), 10, 10, 5, 5, 0);
}

struct nearest_case {
	int colour;
	short basic;
};

static void test_nearest_colour(void **state)
{
	static const struct nearest_case cases[] = {
		/* pure cube corners */
		{ 16, COLOR_BLACK }, { 196, COLOR_RED }, { 46, COLOR_GREEN },
		{ 226, COLOR_YELLOW }, { 21, COLOR_BLUE }, { 201, COLOR_MAGENTA },
		{ 51, COLOR_CYAN }, { 231, COLOR_WHITE },
		/* light colours keep their hue (plain RGB distance makes them white) */
		{ 114, COLOR_GREEN }, { 210, COLOR_RED }, { 222, COLOR_YELLOW },
		{ 176, COLOR_MAGENTA }, { 74, COLOR_CYAN },
		/* dark ones too */
		{ 22, COLOR_GREEN }, { 52, COLOR_RED }, { 17, COLOR_BLUE },
		/* the Solarized accents */
		{ 136, COLOR_YELLOW }, { 166, COLOR_RED }, { 160, COLOR_RED },
		{ 125, COLOR_MAGENTA }, { 61, COLOR_BLUE }, { 37, COLOR_CYAN },
		{ 64, COLOR_YELLOW },
		/* greys: by lightness */
		{ 232, COLOR_BLACK }, { 234, COLOR_BLACK }, { 243, COLOR_BLACK },
		{ 244, COLOR_WHITE }, { 255, COLOR_WHITE }, { 59, COLOR_BLACK },
		{ 145, COLOR_WHITE },
	};
	char line[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct style_def got;

		snprintf(line, sizeof(line), "color diff-add %d color%d", cases[i].colour,
			 cases[i].colour);
		got = parse_one(line);
		if (got.fg8 != cases[i].basic || got.bg8 != cases[i].basic)
			fail_msg("colour %d: fallback %d, expected %d", cases[i].colour, got.fg8,
				 cases[i].basic);
		assert_int_equal(got.fg, cases[i].colour);
	}
}

/* ---- attributes and layout ---- */

static void test_attributes(void **state)
{
	(void)state;
	assert_style(parse_one("color diff-add red default bold"), 1, 1, -1, -1, THEME_BOLD);
	assert_style(parse_one("color diff-add red default dim reverse underline"), 1, 1, -1,
		     -1, THEME_DIM | THEME_REVERSE | THEME_UNDERLINE);
	assert_style(parse_one("color diff-add red default italic standout blink"), 1, 1, -1,
		     -1, THEME_ITALIC | THEME_STANDOUT | THEME_BLINK);
	assert_style(parse_one("color diff-add red default normal"), 1, 1, -1, -1, 0);
	assert_style(parse_one("color diff-add red default bold bold normal"), 1, 1, -1, -1,
		     THEME_BOLD);
}

static void test_layout(void **state)
{
	struct theme theme;
	struct buf errors = BUF_INIT;
	const char text[] = "\xef\xbb\xbf# a comment\n"
			    "\n"
			    "   \t  \n"
			    "  # an indented comment\n"
			    "color\tdiff-add\t \t114/green  default   bold # trailing comment\r\n"
			    "color diff-del red default #no space before\r\n"
			    "color hunk-header cyan default";

	(void)state;
	theme_default(&theme);
	assert_int_equal(parse(&theme, text, &errors), 0);
	assert_null(errors.ptr);
	assert_style(theme.styles[STYLE_DIFF_ADD], 114, 2, -1, -1, THEME_BOLD);
	assert_true(theme.styles[STYLE_DIFF_ADD].set);
	assert_style(theme.styles[STYLE_DIFF_DEL], 1, 1, -1, -1, 0);
	assert_style(theme.styles[STYLE_HUNK_HEADER], 6, 6, -1, -1, 0);
	assert_false(theme.styles[STYLE_CURSOR].set);
	buf_release(&errors);
}

static void test_later_line_wins(void **state)
{
	(void)state;
	assert_style(parse_one("color diff-add red default bold\n"
			       "color diff-add green default\n"),
		     2, 2, -1, -1, 0);
}

static void test_empty_text(void **state)
{
	struct theme theme, expect;
	struct buf errors = BUF_INIT;

	(void)state;
	theme_default(&theme);
	theme_default(&expect);
	assert_int_equal(theme_parse(&theme, "", 0, "t", &errors), 0);
	assert_int_equal(theme_parse(&theme, NULL, 0, "t", &errors), 0);
	assert_int_equal(parse(&theme, "\n\n# only comments\n", NULL), 0);
	assert_null(errors.ptr);
	assert_same_styles(&theme, &expect, "empty");
}

/* ---- errors ---- */

struct error_case {
	const char *line;
	const char *message;
};

static const struct error_case error_cases[] = {
	{ "colr diff-add red default",
	  "expected 'color' at the start of the line, found 'colr'" },
	{ "mono", "expected 'color' at the start of the line, found 'mono'" },
	{ "color", "missing style name (the form is: color STYLE FG BG [ATTR ...])" },
	{ "color # comment", "missing style name (the form is: color STYLE FG BG [ATTR ...])" },
	{ "color diff-ad green default", "unknown style 'diff-ad' (did you mean 'diff-add'?)" },
	{ "color Diff-Add green default", "unknown style 'Diff-Add' (did you mean 'diff-add'?)" },
	{ "color frobnicate green default",
	  "unknown style 'frobnicate' (themes/default-dark sets every style there is)" },
	{ "color diff-add", "missing foreground colour for 'diff-add'" },
	{ "color diff-add green", "missing background colour for 'diff-add'" },
	{ "color diff-add green # no background", "missing background colour for 'diff-add'" },
	{ "color diff-add gren default", "unknown colour 'gren' (did you mean 'green'?)" },
	{ "color diff-add green defualt", "unknown colour 'defualt' (did you mean 'default'?)" },
	{ "color diff-add brightred default",
	  "unknown colour 'brightred' (did you mean 'bright-red'?)" },
	{ "color diff-add purple default",
	  "unknown colour 'purple' (use default, black..white, bright-black..bright-white "
	  "or 0-255)" },
	{ "color diff-add -1 default",
	  "unknown colour '-1' (use default, black..white, bright-black..bright-white "
	  "or 0-255)" },
	{ "color diff-add color default",
	  "unknown colour 'color' (use default, black..white, bright-black..bright-white "
	  "or 0-255)" },
	{ "color diff-add 256 default", "colour '256' is out of range (0-255)" },
	{ "color diff-add color300 default", "colour 'color300' is out of range (0-255)" },
	{ "color diff-add 99999999999999999999 default",
	  "colour '99999999999999999999' is out of range (0-255)" },
	{ "color diff-add 114/ default", "missing fallback colour after '/' in '114/'" },
	{ "color diff-add /green default", "missing colour before '/' in '/green'" },
	{ "color diff-add / default", "missing colour before '/' in '/'" },
	{ "color diff-add 114/gren default", "unknown colour 'gren' (did you mean 'green'?)" },
	{ "color diff-add 114/green/red default",
	  "unknown colour 'green/red' (use default, black..white, bright-black..bright-white "
	  "or 0-255)" },
	{ "color diff-add green 300/black", "colour '300' is out of range (0-255)" },
	{ "color diff-add green default blod", "unknown attribute 'blod' (did you mean 'bold'?)" },
	{ "color diff-add green default bold underlined",
	  "unknown attribute 'underlined' (did you mean 'underline'?)" },
	{ "color diff-add green default sparkly",
	  "unknown attribute 'sparkly' (use bold, dim, reverse, underline, italic, standout, "
	  "blink or normal)" },
	/* What a message quotes is made safe for a terminal and kept short. */
	{ "color diff-add gr\x1b[31mn default",
	  "unknown colour 'gr\\x1b[31mn' (use default, black..white, "
	  "bright-black..bright-white or 0-255)" },
	{ "color diff-add a\xc2\x9b" "2J default",
	  "unknown colour 'a\\xc2\\x9b2J' (use default, black..white, "
	  "bright-black..bright-white or 0-255)" },
	{ "color xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx red default",
	  "unknown style 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' (themes/default-dark sets every "
	  "style there is)" },
};

static void test_error_messages(void **state)
{
	struct buf errors = BUF_INIT, expect = BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++) {
		struct theme theme, before;

		theme_default(&theme);
		theme_default(&before);
		buf_clear(&errors);
		buf_clear(&expect);
		buf_printf(&expect, "t:1: %s\n", error_cases[i].message);
		if (parse(&theme, error_cases[i].line, &errors) != 1)
			fail_msg("'%s' was not one bad line", error_cases[i].line);
		assert_string_equal(errors.ptr, expect.ptr);
		/* The bad line changed nothing. */
		assert_same_styles(&theme, &before, error_cases[i].line);
	}
	buf_release(&errors);
	buf_release(&expect);
}

static void test_error_keeps_value(void **state)
{
	struct theme theme, expect;
	struct buf errors = BUF_INIT;
	const char text[] = "# a theme\n"
			    "color diff-add 1 2 bold\n"
			    "color diff-del gren default\n"
			    "\n"
			    "color diff-add 3 4 blod\n"
			    "color hunk-header cyan\n"
			    "color cursor red blue reverse\n";

	(void)state;
	theme_default(&theme);
	theme_default(&expect);
	assert_int_equal(theme_parse(&theme, text, strlen(text), "my/theme", &errors), 3);
	assert_string_equal(errors.ptr,
			    "my/theme:3: unknown colour 'gren' (did you mean 'green'?)\n"
			    "my/theme:5: unknown attribute 'blod' (did you mean 'bold'?)\n"
			    "my/theme:6: missing background colour for 'hunk-header'\n");
	/* diff-add keeps what line 2 gave it, the others their default. */
	assert_style(theme.styles[STYLE_DIFF_ADD], 1, 1, 2, 2, THEME_BOLD);
	assert_true(theme.styles[STYLE_DIFF_ADD].set);
	assert_style(theme.styles[STYLE_DIFF_DEL], expect.styles[STYLE_DIFF_DEL].fg,
		     expect.styles[STYLE_DIFF_DEL].fg8, expect.styles[STYLE_DIFF_DEL].bg,
		     expect.styles[STYLE_DIFF_DEL].bg8, expect.styles[STYLE_DIFF_DEL].attrs);
	assert_false(theme.styles[STYLE_DIFF_DEL].set);
	assert_false(theme.styles[STYLE_HUNK_HEADER].set);
	assert_style(theme.styles[STYLE_CURSOR], 1, 1, 4, 4, THEME_REVERSE);
	buf_release(&errors);
}

static void test_error_count_capped(void **state)
{
	struct theme theme;
	struct buf text = BUF_INIT, errors = BUF_INIT;
	const char *p;
	int lines = 0;

	(void)state;
	for (int i = 0; i < 25; i++)
		buf_puts(&text, "nonsense\n");
	theme_default(&theme);
	/* Errors with no file name still say where. */
	assert_int_equal(theme_parse(&theme, text.ptr, text.len, NULL, &errors), 25);
	for (p = errors.ptr; (p = strchr(p, '\n')); p++)
		lines++;
	assert_int_equal(lines, 21);
	assert_non_null(strstr(errors.ptr, "theme:20: expected 'color'"));
	assert_null(strstr(errors.ptr, "theme:21:"));
	assert_non_null(strstr(errors.ptr, "\ntheme: 5 more bad lines not shown\n"));
	buf_release(&text);
	buf_release(&errors);
}

static void test_binary_input(void **state)
{
	struct theme theme;
	struct buf errors = BUF_INIT;
	const char text[] = "color diff-add \0red default\n\xff\xfe\n";

	(void)state;
	theme_default(&theme);
	assert_int_equal(theme_parse(&theme, text, sizeof(text) - 1, "t", &errors), 2);
	assert_string_equal(errors.ptr,
			    "t:1: unknown colour '\\x00red' (did you mean 'red'?)\n"
			    "t:2: expected 'color' at the start of the line, found '\xff\xfe'\n");
	buf_release(&errors);
}

/* ---- mono ---- */

static void test_mono_flag(void **state)
{
	struct theme theme;
	struct buf errors = BUF_INIT;

	(void)state;
	theme_default(&theme);
	assert_false(theme.mono);
	theme_mono(&theme);
	assert_true(theme.mono);
	assert_string_equal(theme.name, "mono");
	/* Attributes alone keep a theme mono; one colour makes it a colour one. */
	assert_int_equal(parse(&theme, "color diff-add default default underline\n", &errors), 0);
	assert_true(theme.mono);
	assert_int_equal(parse(&theme, "color diff-add default 235/default\n", &errors), 0);
	assert_false(theme.mono);
	assert_int_equal(parse(&theme, "color diff-add default default\n", &errors), 0);
	assert_true(theme.mono);
	/* Over the default theme, a file of default colours is not mono: the
	 * styles it leaves out keep their colours. */
	theme_default(&theme);
	assert_int_equal(parse(&theme, "color diff-add default default bold\n", &errors), 0);
	assert_false(theme.mono);
	buf_release(&errors);
}

static void test_mono_usable(void **state)
{
	struct theme theme;
	const struct style_def *s;

	(void)state;
	theme_mono(&theme);
	s = theme.styles;
	for (int i = 0; i < STYLE_COUNT; i++) {
		assert_int_equal(s[i].fg, -1);
		assert_int_equal(s[i].bg, -1);
		assert_int_equal(s[i].fg8, -1);
		assert_int_equal(s[i].bg8, -1);
	}
	/* Added, removed and context lines all differ. */
	assert_int_not_equal(s[STYLE_DIFF_ADD].attrs, s[STYLE_DIFF_DEL].attrs);
	assert_int_not_equal(s[STYLE_DIFF_ADD].attrs, s[STYLE_DIFF_CONTEXT].attrs);
	assert_int_not_equal(s[STYLE_DIFF_DEL].attrs, s[STYLE_DIFF_CONTEXT].attrs);
	/* The cursor is a reverse bar, and the focused one differs from the others. */
	assert_true(s[STYLE_CURSOR].attrs & THEME_REVERSE);
	assert_true(s[STYLE_CURSOR_BLUR].attrs & THEME_REVERSE);
	assert_int_not_equal(s[STYLE_CURSOR].attrs, s[STYLE_CURSOR_BLUR].attrs);
	assert_int_not_equal(s[STYLE_TITLE_FOCUS].attrs, s[STYLE_TITLE_BLUR].attrs);
	/* A search match shows inside the reverse cursor bar. */
	assert_true(s[STYLE_SEARCH_MATCH].attrs & THEME_UNDERLINE);
	assert_int_not_equal(s[STYLE_HUNK_HEADER].attrs, s[STYLE_DIFF_CONTEXT].attrs);
	assert_int_not_equal(s[STYLE_FILE_ADDED].attrs, s[STYLE_FILE_DELETED].attrs);
}

/* ---- the shipped files ---- */

static void test_default_matches_file(void **state)
{
	struct theme file, builtin;
	struct buf text = BUF_INIT, errors = BUF_INIT;

	(void)state;
	read_theme(&text, "default-dark");
	poison(&file);
	assert_int_equal(theme_parse(&file, text.ptr, text.len, "default-dark", &errors), 0);
	theme_default(&builtin);
	assert_same_styles(&file, &builtin, "default-dark");
	assert_false(builtin.mono);
	assert_string_equal(builtin.name, "default-dark");
	buf_release(&text);
	buf_release(&errors);
}

static void test_mono_matches_file(void **state)
{
	struct theme file, builtin;
	struct buf text = BUF_INIT, errors = BUF_INIT;

	(void)state;
	read_theme(&text, "mono");
	poison(&file);
	assert_int_equal(theme_parse(&file, text.ptr, text.len, "mono", &errors), 0);
	theme_mono(&builtin);
	assert_same_styles(&file, &builtin, "mono");
	assert_true(file.mono);
	buf_release(&text);
	buf_release(&errors);
}

static void test_shipped_themes_complete(void **state)
{
	struct buf text = BUF_INIT, errors = BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		struct theme theme;

		read_theme(&text, shipped[i]);
		poison(&theme);
		buf_clear(&errors);
		if (theme_parse(&theme, text.ptr, text.len, shipped[i], &errors) != 0)
			fail_msg("%s", errors.ptr);
		for (int s = 0; s < STYLE_COUNT; s++) {
			if (!theme.styles[s].set)
				fail_msg("%s does not set %s", shipped[i],
					 style_name((enum style)s));
			/* Fallbacks are basic colours (or the default). */
			assert_in_range(theme.styles[s].fg8 + 1, 0, 8);
			assert_in_range(theme.styles[s].bg8 + 1, 0, 8);
		}
		assert_int_equal(theme.mono, strcmp(shipped[i], "mono") == 0);
	}
	buf_release(&text);
	buf_release(&errors);
}

/* In every colour theme the styles that must stand apart do, in 256 colours
 * and in the fallback alike. */
static void test_shipped_themes_distinct(void **state)
{
	static const enum style pairs[][2] = {
		{ STYLE_DIFF_ADD, STYLE_DIFF_DEL },
		{ STYLE_DIFF_ADD, STYLE_DIFF_CONTEXT },
		{ STYLE_DIFF_DEL, STYLE_DIFF_CONTEXT },
		{ STYLE_CURSOR, STYLE_DEFAULT },
		{ STYLE_CURSOR, STYLE_CURSOR_BLUR },
		{ STYLE_CURSOR_BLUR, STYLE_DEFAULT },
		{ STYLE_TITLE_FOCUS, STYLE_TITLE_BLUR },
		{ STYLE_HUNK_HEADER, STYLE_DIFF_CONTEXT },
		{ STYLE_SEARCH_MATCH, STYLE_CURSOR },
		{ STYLE_SEARCH_MATCH, STYLE_DEFAULT },
	};
	struct buf text = BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		struct theme theme;

		read_theme(&text, shipped[i]);
		theme_default(&theme);
		assert_int_equal(theme_parse(&theme, text.ptr, text.len, shipped[i], NULL), 0);
		for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) {
			const struct style_def *a = &theme.styles[pairs[p][0]];
			const struct style_def *b = &theme.styles[pairs[p][1]];
			bool same256 = a->fg == b->fg && a->bg == b->bg && a->attrs == b->attrs;
			bool same8 = a->fg8 == b->fg8 && a->bg8 == b->bg8 && a->attrs == b->attrs;

			if (same256 || same8)
				fail_msg("%s: %s and %s look the same%s", shipped[i],
					 style_name(pairs[p][0]), style_name(pairs[p][1]),
					 same256 ? "" : " with 8 colours");
		}
	}
	buf_release(&text);
}

/* ---- loading ---- */

static char *user_dir;

static int setup_dirs(void **state)
{
	(void)state;
	user_dir = test_tmpdir("theme");
	setenv("XDG_CONFIG_HOME", user_dir, 1);
	setenv("REVLINE_DATADIR", TEST_SOURCE_DIR, 1);
	return 0;
}

static int teardown_dirs(void **state)
{
	(void)state;
	test_rmtree(user_dir);
	free(user_dir);
	user_dir = NULL;
	return 0;
}

static void test_load_by_name(void **state)
{
	struct buf errors = BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		struct theme theme;

		assert_int_equal(theme_load(&theme, shipped[i], &errors), 0);
		assert_null(errors.ptr);
		assert_string_equal(theme.name, shipped[i]);
		for (int s = 0; s < STYLE_COUNT; s++)
			assert_true(theme.styles[s].set);
	}
	buf_release(&errors);
}

static void test_load_solarized(void **state)
{
	struct theme theme;
	struct buf errors = BUF_INIT;

	(void)state;
	assert_int_equal(theme_load(&theme, "solarized-dark", &errors), 0);
	assert_false(theme.mono);
	assert_style(theme.styles[STYLE_DEFAULT], 244, -1, 234, -1, 0);
	assert_style(theme.styles[STYLE_DIFF_ADD], 64, COLOR_GREEN, 234, -1, 0);
	assert_style(theme.styles[STYLE_DIFF_DEL], 160, COLOR_RED, 234, -1, 0);
	buf_release(&errors);
}

static void test_load_mono_file(void **state)
{
	struct theme theme, builtin;
	struct buf errors = BUF_INIT;

	(void)state;
	assert_int_equal(theme_load(&theme, "mono", &errors), 0);
	theme_mono(&builtin);
	assert_same_styles(&theme, &builtin, "loaded mono");
	assert_true(theme.mono);
	buf_release(&errors);
}

static void test_load_missing(void **state)
{
	struct theme theme, builtin;
	struct buf errors = BUF_INIT, expect = BUF_INIT;

	(void)state;
	assert_int_equal(theme_load(&theme, "no-such-theme", &errors), RL_ENOTFOUND);
	buf_printf(&expect, "theme 'no-such-theme' not found (looked in %s/revline/themes and "
		   "%s/themes); using the default theme\n", user_dir, TEST_SOURCE_DIR);
	assert_string_equal(errors.ptr, expect.ptr);
	theme_default(&builtin);
	assert_same_styles(&theme, &builtin, "missing");
	assert_string_equal(theme.name, "default-dark");
	/* No errors buffer: still no crash, still the default. */
	assert_int_equal(theme_load(&theme, "no-such-theme", NULL), RL_ENOTFOUND);
	assert_same_styles(&theme, &builtin, "missing");
	buf_release(&errors);
	buf_release(&expect);
}

static void test_load_no_name(void **state)
{
	struct theme theme, builtin;
	struct buf errors = BUF_INIT;

	(void)state;
	theme_default(&builtin);
	assert_int_equal(theme_load(&theme, NULL, &errors), 0);
	assert_same_styles(&theme, &builtin, "NULL");
	assert_int_equal(theme_load(&theme, "", &errors), 0);
	assert_same_styles(&theme, &builtin, "empty");
	assert_null(errors.ptr);
	buf_release(&errors);
}

static void test_load_user_override(void **state)
{
	struct theme theme, builtin;
	struct buf errors = BUF_INIT;

	(void)state;
	test_write_str(user_dir, "revline/themes/light", "# mine\ncolor diff-add 1 2 bold\n");
	test_write_str(user_dir, "revline/themes/mine",
		       "color diff-del 9 default\ncolor cursr red blue\n");
	assert_int_equal(theme_load(&theme, "light", &errors), 0);
	theme_default(&builtin);
	/* The user's file, over the default theme (not over the shipped light). */
	assert_style(theme.styles[STYLE_DIFF_ADD], 1, 1, 2, 2, THEME_BOLD);
	assert_style(theme.styles[STYLE_TITLE_FOCUS], builtin.styles[STYLE_TITLE_FOCUS].fg,
		     builtin.styles[STYLE_TITLE_FOCUS].fg8, builtin.styles[STYLE_TITLE_FOCUS].bg,
		     builtin.styles[STYLE_TITLE_FOCUS].bg8,
		     builtin.styles[STYLE_TITLE_FOCUS].attrs);
	assert_string_equal(theme.name, "light");

	/* A user's own theme; its errors name its full path. */
	buf_clear(&errors);
	assert_int_equal(theme_load(&theme, "mine", &errors), 1);
	assert_style(theme.styles[STYLE_DIFF_DEL], 9, 9, -1, -1, 0);
	{
		struct buf expect = BUF_INIT;

		buf_printf(&expect, "%s/revline/themes/mine:2: unknown style 'cursr' (did you "
			   "mean 'cursor'?)\n", user_dir);
		assert_string_equal(errors.ptr, expect.ptr);
		buf_release(&expect);
	}
	test_sh_ok(user_dir, "rm -r revline");
	buf_release(&errors);
}

static void test_load_path(void **state)
{
	struct theme theme;
	struct buf errors = BUF_INIT, expect = BUF_INIT;
	char *path;

	(void)state;
	test_write_str(user_dir, "elsewhere/my theme", "color diff-add 2 default\nbad\n");
	if (asprintf(&path, "%s/elsewhere/my theme", user_dir) < 0)
		fail_msg("out of memory");
	assert_int_equal(theme_load(&theme, path, &errors), 1);
	assert_style(theme.styles[STYLE_DIFF_ADD], 2, 2, -1, -1, 0);
	assert_string_equal(theme.name, "my theme");
	buf_printf(&expect, "%s:2: expected 'color' at the start of the line, found 'bad'\n",
		   path);
	assert_string_equal(errors.ptr, expect.ptr);

	/* A path is never looked up in the theme directories. */
	buf_clear(&errors);
	assert_int_equal(theme_load(&theme, "./light", &errors), RL_ENOTFOUND);
	assert_string_equal(errors.ptr, "cannot load theme: ./light: No such file or directory; "
			    "using the default theme\n");
	assert_string_equal(theme.name, "default-dark");
	/* Nor is a directory a theme. */
	buf_clear(&errors);
	assert_true(theme_load(&theme, TEST_SOURCE_DIR "/themes/", &errors) < 0);
	assert_non_null(strstr(errors.ptr, "cannot load theme: "));
	free(path);
	buf_release(&errors);
	buf_release(&expect);
}

/* ---- curses ---- */

static SCREEN *open_screen(const char *term, FILE **out, FILE **in)
{
	SCREEN *screen;

	*out = fopen("/dev/null", "w");
	*in = fopen("/dev/null", "r");
	assert_non_null(*out);
	assert_non_null(*in);
	screen = newterm(term, *out, *in);
	if (!screen)
		fail_msg("no terminfo entry for %s", term);
	set_term(screen);
	if (has_colors())
		start_color();
	return screen;
}

static void close_screen(SCREEN *screen, FILE *out, FILE *in)
{
	endwin();
	delscreen(screen);
	fclose(out);
	fclose(in);
}

static void assert_pair(enum style style, short fg, short bg)
{
	short got_fg, got_bg;

	assert_int_equal(PAIR_NUMBER(theme_attr(style)), style + 1);
	assert_int_equal(pair_content((short)(style + 1), &got_fg, &got_bg), OK);
	if (got_fg != fg || got_bg != bg)
		fail_msg("%s: pair %d,%d, expected %d,%d", style_name(style), got_fg, got_bg, fg,
			 bg);
}

static void test_apply_256(void **state)
{
	FILE *out, *in;
	SCREEN *screen = open_screen("xterm-256color", &out, &in);
	struct theme theme;

	(void)state;
	assert_true(COLORS >= 256);
	theme_default(&theme);
	theme_apply(&theme);
	assert_pair(STYLE_DIFF_ADD, 114, -1);
	assert_pair(STYLE_CURSOR, 231, 31);
	assert_pair(STYLE_DEFAULT, -1, -1);
	assert_true(theme_attr(STYLE_CURSOR) & A_BOLD);
	assert_false(theme_attr(STYLE_DIFF_ADD) & A_BOLD);
	assert_true(theme_attr(STYLE_EMPTY_TITLE) & A_ITALIC);
	for (int i = 0; i < STYLE_COUNT; i++) {
		unsigned long attrs = theme_attr((enum style)i);

		assert_int_equal(theme_style_of(attrs & ~A_COLOR, (short)PAIR_NUMBER(attrs)), i);
	}
	assert_int_equal(theme_style_of(A_NORMAL, 0), -1);
	assert_int_equal(theme_style_of(A_NORMAL, STYLE_COUNT + 1), -1);
	assert_int_equal(theme_attr(STYLE_COUNT), A_NORMAL);
	close_screen(screen, out, in);
}

static void test_apply_8(void **state)
{
	FILE *out, *in;
	SCREEN *screen = open_screen("xterm", &out, &in);
	struct theme theme;
	struct buf errors = BUF_INIT;

	(void)state;
	assert_int_equal(COLORS, 8);
	theme_default(&theme);
	assert_int_equal(parse(&theme, "color special bright-red bright-black\n"
				       "color help-key 196 default\n", &errors), 0);
	theme_apply(&theme);
	assert_pair(STYLE_DIFF_ADD, COLOR_GREEN, -1);
	assert_pair(STYLE_CURSOR, COLOR_BLACK, COLOR_CYAN);
	assert_pair(STYLE_SPECIAL, COLOR_RED, COLOR_BLACK);
	assert_pair(STYLE_HELP_KEY, COLOR_RED, -1);
	close_screen(screen, out, in);
	buf_release(&errors);
}

static void test_apply_mono(void **state)
{
	FILE *out, *in;
	SCREEN *screen = open_screen("xterm-256color", &out, &in);
	struct theme theme;

	(void)state;
	theme_mono(&theme);
	theme_apply(&theme);
	for (int i = 0; i < STYLE_COUNT; i++)
		assert_int_equal(theme_attr((enum style)i) & A_COLOR, 0);
	assert_int_equal(theme_attr(STYLE_CURSOR), A_REVERSE | A_BOLD);
	assert_int_equal(theme_attr(STYLE_DIFF_ADD), A_BOLD);
	assert_int_equal(theme_attr(STYLE_DIFF_DEL), A_DIM);
	assert_int_equal(theme_style_of(A_REVERSE | A_BOLD, 0), STYLE_CURSOR);
	assert_int_equal(theme_style_of(A_DIM, 0), STYLE_FILE_DELETED);
	assert_int_equal(theme_style_of(A_NORMAL, 0), STYLE_DEFAULT);
	assert_int_equal(theme_style_of(A_BLINK, 0), -1);
	close_screen(screen, out, in);
}

/* A colour theme on a terminal without colour is drawn as the mono theme. */
static void test_apply_no_colours(void **state)
{
	FILE *out, *in;
	SCREEN *screen = open_screen("vt100", &out, &in);
	struct theme theme;

	(void)state;
	assert_false(has_colors());
	theme_default(&theme);
	theme_apply(&theme);
	assert_int_equal(theme_attr(STYLE_CURSOR), A_REVERSE | A_BOLD);
	assert_int_equal(theme_attr(STYLE_DIFF_ADD), A_BOLD);
	assert_int_equal(theme_attr(STYLE_DIFF_DEL), A_DIM);
	close_screen(screen, out, in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_style_names),
		cmocka_unit_test(test_colour_forms),
		cmocka_unit_test(test_colour_fallbacks),
		cmocka_unit_test(test_nearest_colour),
		cmocka_unit_test(test_attributes),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_later_line_wins),
		cmocka_unit_test(test_empty_text),
		cmocka_unit_test(test_error_messages),
		cmocka_unit_test(test_error_keeps_value),
		cmocka_unit_test(test_error_count_capped),
		cmocka_unit_test(test_binary_input),
		cmocka_unit_test(test_mono_flag),
		cmocka_unit_test(test_mono_usable),
		cmocka_unit_test(test_default_matches_file),
		cmocka_unit_test(test_mono_matches_file),
		cmocka_unit_test(test_shipped_themes_complete),
		cmocka_unit_test(test_shipped_themes_distinct),
		cmocka_unit_test(test_load_by_name),
		cmocka_unit_test(test_load_solarized),
		cmocka_unit_test(test_load_mono_file),
		cmocka_unit_test(test_load_missing),
		cmocka_unit_test(test_load_no_name),
		cmocka_unit_test(test_load_user_override),
		cmocka_unit_test(test_load_path),
		cmocka_unit_test(test_apply_256),
		cmocka_unit_test(test_apply_8),
		cmocka_unit_test(test_apply_mono),
		cmocka_unit_test(test_apply_no_colours),
	};

	return cmocka_run_group_tests_name("theme", tests, setup_dirs, teardown_dirs);
}
