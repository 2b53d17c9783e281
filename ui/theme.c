/*
 * Colour themes: the built-in themes, the theme file parser and the curses
 * side (colour pairs and attributes per style).
 *
 * The file format is documented at the top of themes/default-dark. The
 * parser and loader make no curses calls (the fuzz target and the tests
 * rely on that); only theme_apply, theme_attr and theme_style_of do.
 */
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#include "theme.h"
#include "datadir.h"
#include "status.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

/* Colour numbers as theme files name them; -1 is the terminal's default. */
enum {
	DEF = -1, BLACK, RED, GREEN, YELLOW, BLUE, MAGENTA, CYAN, WHITE,
};

/* More bad lines than this in one file are counted but not each reported:
 * a binary file passed as a theme should not bury the screen in messages. */
#define MAX_REPORTED 20
/* A word quoted in a message is cut to this many bytes. */
#define SHOWN_MAX 32

static const char *const style_names[STYLE_COUNT] = {
#define STYLE_NAME(id, name, letter) [id] = name,
	STYLE_LIST(STYLE_NAME)
#undef STYLE_NAME
};

static const char style_letters[STYLE_COUNT] = {
#define STYLE_LETTER(id, name, letter) [id] = letter,
	STYLE_LIST(STYLE_LETTER)
#undef STYLE_LETTER
};

const char *style_name(enum style style)
{
	if ((int)style < 0 || (int)style >= STYLE_COUNT)
		return "?";
	return style_names[style];
}

char style_letter(enum style style)
{
	if ((int)style < 0 || (int)style >= STYLE_COUNT)
		return '?';
	return style_letters[style];
}

/* ---- built-in themes ---- */

/* { fg, bg, fg8, bg8, attrs }: the 256-colour value, then its fallback. */
#define S(fg, fg8, bg, bg8, attrs) { fg, bg, fg8, bg8, attrs, false }
#define B THEME_BOLD
#define I THEME_ITALIC
#define U THEME_UNDERLINE

/* Keep in step with themes/default-dark (test_theme compares the two). */
static const struct style_def default_dark[STYLE_COUNT] = {
	[STYLE_DEFAULT]       = S(DEF, DEF, DEF, DEF, 0),
	[STYLE_CURSOR]        = S(231, BLACK, 31, CYAN, B),
	[STYLE_CURSOR_BLUR]   = S(255, BLACK, 240, WHITE, 0),
	[STYLE_TITLE_FOCUS]   = S(231, WHITE, 25, BLUE, B),
	[STYLE_TITLE_BLUR]    = S(250, WHITE, 237, BLACK, 0),
	[STYLE_STATUS]        = S(252, DEF, 235, DEF, 0),
	[STYLE_STATUS_ERROR]  = S(231, WHITE, 124, RED, B),
	[STYLE_FILE_ADDED]    = S(114, GREEN, DEF, DEF, 0),
	[STYLE_FILE_MODIFIED] = S(179, YELLOW, DEF, DEF, 0),
	[STYLE_FILE_DELETED]  = S(210, RED, DEF, DEF, 0),
	[STYLE_FILE_RENAMED]  = S(176, MAGENTA, DEF, DEF, 0),
	[STYLE_COUNT_ADD]     = S(114, GREEN, DEF, DEF, 0),
	[STYLE_COUNT_DEL]     = S(210, RED, DEF, DEF, 0),
	[STYLE_FILE_HEADER]   = S(231, WHITE, DEF, DEF, B),
	[STYLE_HUNK_HEADER]   = S(74, CYAN, DEF, DEF, 0),
	[STYLE_DIFF_ADD]      = S(114, GREEN, DEF, DEF, 0),
	[STYLE_DIFF_DEL]      = S(210, RED, DEF, DEF, 0),
	[STYLE_DIFF_CONTEXT]  = S(DEF, DEF, DEF, DEF, 0),
	[STYLE_LINE_NUMBER]   = S(243, DEF, DEF, DEF, 0),
	[STYLE_DELIMITER]     = S(239, DEF, DEF, DEF, 0),
	[STYLE_SEARCH_MATCH]  = S(16, BLACK, 220, YELLOW, B),
	[STYLE_SPECIAL]       = S(140, MAGENTA, DEF, DEF, 0),
	[STYLE_HELP_GROUP]    = S(222, YELLOW, DEF, DEF, B),
	[STYLE_HELP_KEY]      = S(81, CYAN, DEF, DEF, B),
	[STYLE_EMPTY_TITLE]   = S(245, DEF, DEF, DEF, I),
	[STYLE_SEV_CRITICAL]  = S(196, RED, DEF, DEF, B),
	[STYLE_SEV_MAJOR]     = S(209, RED, DEF, DEF, 0),
	[STYLE_SEV_MINOR]     = S(221, YELLOW, DEF, DEF, 0),
	[STYLE_SEV_NITPICK]   = S(246, DEF, DEF, DEF, 0),
	[STYLE_RULE_RUNNING]  = S(81, CYAN, DEF, DEF, 0),
	[STYLE_RULE_OK]       = S(114, GREEN, DEF, DEF, 0),
	[STYLE_RULE_ATTENTION] = S(221, YELLOW, DEF, DEF, B),
	[STYLE_RULE_FAILED]   = S(203, RED, DEF, DEF, B),
	[STYLE_RULE_MUTED]    = S(243, DEF, DEF, DEF, 0),
	[STYLE_MARK]          = S(177, MAGENTA, DEF, DEF, B),
	[STYLE_LABEL]         = S(110, BLUE, DEF, DEF, B),
};

#define M(attrs) S(DEF, DEF, DEF, DEF, attrs)
#define REV THEME_REVERSE
#define DIM THEME_DIM

/*
 * Keep in step with themes/mono. Without colour, added and removed lines
 * differ by weight (bold, dim), the focused cursor and title by bold on a
 * reverse bar, and a search match is underlined so that it still shows
 * inside the reverse cursor line.
 */
static const struct style_def mono[STYLE_COUNT] = {
	[STYLE_DEFAULT]       = M(0),
	[STYLE_CURSOR]        = M(REV | B),
	[STYLE_CURSOR_BLUR]   = M(REV),
	[STYLE_TITLE_FOCUS]   = M(REV | B),
	[STYLE_TITLE_BLUR]    = M(REV),
	[STYLE_STATUS]        = M(0),
	[STYLE_STATUS_ERROR]  = M(REV | B),
	[STYLE_FILE_ADDED]    = M(B),
	[STYLE_FILE_MODIFIED] = M(0),
	[STYLE_FILE_DELETED]  = M(DIM),
	[STYLE_FILE_RENAMED]  = M(I),
	[STYLE_COUNT_ADD]     = M(B),
	[STYLE_COUNT_DEL]     = M(DIM),
	[STYLE_FILE_HEADER]   = M(B | U),
	[STYLE_HUNK_HEADER]   = M(U),
	[STYLE_DIFF_ADD]      = M(B),
	[STYLE_DIFF_DEL]      = M(DIM),
	[STYLE_DIFF_CONTEXT]  = M(0),
	[STYLE_LINE_NUMBER]   = M(DIM),
	[STYLE_DELIMITER]     = M(DIM),
	[STYLE_SEARCH_MATCH]  = M(THEME_STANDOUT | U),
	[STYLE_SPECIAL]       = M(I),
	[STYLE_HELP_GROUP]    = M(B | U),
	[STYLE_HELP_KEY]      = M(B),
	[STYLE_EMPTY_TITLE]   = M(DIM),
	[STYLE_SEV_CRITICAL]  = M(B | U),
	[STYLE_SEV_MAJOR]     = M(B),
	[STYLE_SEV_MINOR]     = M(0),
	[STYLE_SEV_NITPICK]   = M(DIM),
	[STYLE_RULE_RUNNING]  = M(B),
	[STYLE_RULE_OK]       = M(0),
	[STYLE_RULE_ATTENTION] = M(B),
	[STYLE_RULE_FAILED]   = M(B | U),
	[STYLE_RULE_MUTED]    = M(DIM),
	[STYLE_MARK]          = M(B | I),
	[STYLE_LABEL]         = M(B),
};

#undef S
#undef B
#undef I
#undef U
#undef M
#undef REV
#undef DIM

static void set_name(struct theme *theme, const char *name, size_t len)
{
	if (len >= sizeof(theme->name))
		len = sizeof(theme->name) - 1;
	memcpy(theme->name, name, len);
	theme->name[len] = '\0';
}

void theme_default(struct theme *out)
{
	memset(out, 0, sizeof(*out));
	set_name(out, "default-dark", strlen("default-dark"));
	memcpy(out->styles, default_dark, sizeof(out->styles));
	out->mono = false;
}

void theme_mono(struct theme *out)
{
	memset(out, 0, sizeof(*out));
	set_name(out, "mono", strlen("mono"));
	memcpy(out->styles, mono, sizeof(out->styles));
	out->mono = true;
}

/* ---- nearest basic colour ---- */

/* The RGB of an xterm palette entry (16-231 the 6x6x6 cube, then greys). */
static void xterm_rgb(int n, int rgb[3])
{
	static const unsigned char basic[16][3] = {
		{ 0, 0, 0 }, { 205, 0, 0 }, { 0, 205, 0 }, { 205, 205, 0 },
		{ 0, 0, 238 }, { 205, 0, 205 }, { 0, 205, 205 }, { 229, 229, 229 },
		{ 127, 127, 127 }, { 255, 0, 0 }, { 0, 255, 0 }, { 255, 255, 0 },
		{ 92, 92, 255 }, { 255, 0, 255 }, { 0, 255, 255 }, { 255, 255, 255 },
	};
	static const unsigned char level[6] = { 0, 95, 135, 175, 215, 255 };

	if (n < 16) {
		for (int i = 0; i < 3; i++)
			rgb[i] = basic[n][i];
	} else if (n < 232) {
		n -= 16;
		rgb[0] = level[n / 36];
		rgb[1] = level[n / 6 % 6];
		rgb[2] = level[n % 6];
	} else {
		rgb[0] = rgb[1] = rgb[2] = 8 + 10 * (n - 232);
	}
}

/*
 * The basic colour (0-7) closest to a palette entry. The six chromatic
 * basic colours are the six hue sextants, so the hue picks one; greys go
 * to black or white by lightness. Plain RGB distance would send every
 * light colour (114, 210) to white, losing exactly the green and red that
 * an 8-colour fallback is there to keep.
 */
static short nearest_basic(int n)
{
	static const short by_sextant[6] = { RED, YELLOW, GREEN, CYAN, BLUE, MAGENTA };
	int rgb[3], max, min, range, hue;

	if (n < 0)
		return DEF;
	if (n < 8)
		return (short)n;
	xterm_rgb(n, rgb);
	max = rgb[0] > rgb[1] ? rgb[0] : rgb[1];
	max = max > rgb[2] ? max : rgb[2];
	min = rgb[0] < rgb[1] ? rgb[0] : rgb[1];
	min = min < rgb[2] ? min : rgb[2];
	range = max - min;
	/* The cube's steps are at least 40 apart: below that it is a grey. */
	if (range < 32)
		return max + min >= 256 ? WHITE : BLACK;
	if (max == rgb[0])
		hue = 60 * (rgb[1] - rgb[2]) / range;
	else if (max == rgb[1])
		hue = 120 + 60 * (rgb[2] - rgb[0]) / range;
	else
		hue = 240 + 60 * (rgb[0] - rgb[1]) / range;
	if (hue < 0)
		hue += 360;
	return by_sextant[(hue + 30) / 60 % 6];
}

/* ---- theme files ---- */

struct word {
	const char *s;
	size_t len;
};

/* The words of one line, up to a '#' that starts a word. */
struct scan {
	const char *p, *end;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool next_word(struct scan *scan, struct word *word)
{
	while (scan->p < scan->end && is_space(*scan->p))
		scan->p++;
	if (scan->p == scan->end || *scan->p == '#')
		return false;
	word->s = scan->p;
	while (scan->p < scan->end && !is_space(*scan->p))
		scan->p++;
	word->len = (size_t)(scan->p - word->s);
	return true;
}

static bool word_is(const struct word *word, const char *s)
{
	return strlen(s) == word->len && memcmp(word->s, s, word->len) == 0;
}

/* A C0 or C1 control character (C1 as UTF-8: C2 80 to C2 9F) at s[i]. */
static size_t control_len(const struct word *word, size_t i)
{
	unsigned char c = (unsigned char)word->s[i];

	if (c < 0x20 || c == 0x7f)
		return 1;
	if (c == 0xc2 && i + 1 < word->len && (unsigned char)word->s[i + 1] >= 0x80 &&
	    (unsigned char)word->s[i + 1] <= 0x9f)
		return 2;
	return 0;
}

/*
 * A word as a message quotes it: control characters escaped (the message
 * goes to a terminal, which would act on them) and long words cut.
 */
static const char *shown(const struct word *word, char out[SHOWN_MAX * 4 + 4])
{
	size_t i, n = 0, ctl = 0;

	for (i = 0; i < word->len && i < SHOWN_MAX; i++) {
		unsigned char c = (unsigned char)word->s[i];

		if (ctl == 0)
			ctl = control_len(word, i);
		if (ctl > 0) {
			n += (size_t)sprintf(out + n, "\\x%02x", c);
			ctl--;
		} else {
			out[n++] = (char)c;
		}
	}
	if (i < word->len) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
	return out;
}

/* Edit distance, for "did you mean"; words are short. */
static size_t distance(const struct word *word, const char *s)
{
	size_t row[SHOWN_MAX + 1], slen = strlen(s), i, j;

	for (j = 0; j <= slen; j++)
		row[j] = j;
	for (i = 1; i <= word->len; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (j = 1; j <= slen; j++) {
			size_t up = row[j], best = diag + (word->s[i - 1] != s[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[slen];
}

/* The closest of names to a misspelt word, if one is close enough. */
static const char *suggest(const struct word *word, const char *const *names, size_t count)
{
	const char *best = NULL;
	size_t best_dist = 3;

	if (word->len > SHOWN_MAX)
		return NULL;
	for (size_t i = 0; i < count; i++) {
		size_t d;

		if (strlen(names[i]) > SHOWN_MAX)
			continue;
		d = distance(word, names[i]);
		/* "red" for "x" would be no help: the distance must leave
		 * at least half of the word in place. */
		if (d < best_dist && d * 2 <= strlen(names[i])) {
			best = names[i];
			best_dist = d;
		}
	}
	return best;
}

/* Index i names colour i - 1: "default" is -1, "bright-black" 8. */
static const char *const colour_words[] = {
	"default", "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
	"bright-black", "bright-red", "bright-green", "bright-yellow", "bright-blue",
	"bright-magenta", "bright-cyan", "bright-white",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *name;
	unsigned bits;
} attr_words[] = {
	{ "bold", THEME_BOLD }, { "dim", THEME_DIM }, { "reverse", THEME_REVERSE },
	{ "underline", THEME_UNDERLINE }, { "italic", THEME_ITALIC },
	{ "standout", THEME_STANDOUT }, { "blink", THEME_BLINK }, { "normal", 0 },
};

/* Digits only; large values saturate (they are out of range either way). */
static bool parse_number(const char *s, size_t len, int *out)
{
	int n = 0;

	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		n = n * 10 + (s[i] - '0');
		if (n > 9999)
			n = 9999;
	}
	*out = n;
	return true;
}

/* One colour value, no slash: a name, colorN or N. */
static bool parse_value(const struct word *word, short *out, struct buf *msg)
{
	char tmp[SHOWN_MAX * 4 + 4];
	const char *hint;
	int n;

	for (size_t i = 0; i < COUNT(colour_words); i++) {
		if (word_is(word, colour_words[i])) {
			*out = (short)(i - 1);
			return true;
		}
	}
	if (parse_number(word->s, word->len, &n) ||
	    (word->len > 5 && memcmp(word->s, "color", 5) == 0 &&
	     parse_number(word->s + 5, word->len - 5, &n))) {
		if (n <= 255) {
			*out = (short)n;
			return true;
		}
		buf_printf(msg, "colour '%s' is out of range (0-255)", shown(word, tmp));
		return false;
	}
	buf_printf(msg, "unknown colour '%s'", shown(word, tmp));
	if ((hint = suggest(word, colour_words, COUNT(colour_words))))
		buf_printf(msg, " (did you mean '%s'?)", hint);
	else
		buf_puts(msg, " (use default, black..white, bright-black..bright-white or 0-255)");
	return false;
}

/* A colour field: VALUE or VALUE/FALLBACK. */
static bool parse_colour(const struct word *word, short *c256, short *c8, struct buf *msg)
{
	const char *slash = memchr(word->s, '/', word->len);
	struct word primary = *word, fallback;
	char tmp[SHOWN_MAX * 4 + 4];
	short value = DEF;

	if (slash) {
		primary.len = (size_t)(slash - word->s);
		fallback.s = slash + 1;
		fallback.len = word->len - primary.len - 1;
		if (primary.len == 0) {
			buf_printf(msg, "missing colour before '/' in '%s'", shown(word, tmp));
			return false;
		}
		if (fallback.len == 0) {
			buf_printf(msg, "missing fallback colour after '/' in '%s'",
				   shown(word, tmp));
			return false;
		}
	}
	if (!parse_value(&primary, c256, msg))
		return false;
	if (slash && !parse_value(&fallback, &value, msg))
		return false;
	/* The fallback is for 8 or 16 colours, so it never goes past 15. */
	value = slash ? value : *c256;
	*c8 = value > 15 ? nearest_basic(value) : value;
	return true;
}

static bool parse_attr(const struct word *word, unsigned *attrs, struct buf *msg)
{
	const char *names[COUNT(attr_words)];
	char tmp[SHOWN_MAX * 4 + 4];
	const char *hint;

	for (size_t i = 0; i < COUNT(attr_words); i++) {
		names[i] = attr_words[i].name;
		if (word_is(word, attr_words[i].name)) {
			*attrs |= attr_words[i].bits;
			return true;
		}
	}
	buf_printf(msg, "unknown attribute '%s'", shown(word, tmp));
	if ((hint = suggest(word, names, COUNT(names))))
		buf_printf(msg, " (did you mean '%s'?)", hint);
	else
		buf_puts(msg, " (use bold, dim, reverse, underline, italic, standout, blink "
			 "or normal)");
	return false;
}

static bool parse_style(const struct word *word, enum style *style, struct buf *msg)
{
	char tmp[SHOWN_MAX * 4 + 4];
	const char *hint;

	for (int i = 0; i < STYLE_COUNT; i++) {
		if (word_is(word, style_names[i])) {
			*style = (enum style)i;
			return true;
		}
	}
	buf_printf(msg, "unknown style '%s'", shown(word, tmp));
	if ((hint = suggest(word, style_names, STYLE_COUNT)))
		buf_printf(msg, " (did you mean '%s'?)", hint);
	else
		buf_puts(msg, " (themes/default-dark sets every style there is)");
	return false;
}

/*
 * One line. A bad line changes nothing: the style is only written once the
 * whole line has been read. Returns false with the reason in msg.
 */
static bool parse_line(struct theme *theme, const char *line, size_t len, struct buf *msg)
{
	struct scan scan = { line, line + len };
	struct style_def def = { 0 };
	char tmp[SHOWN_MAX * 4 + 4];
	enum style style;
	struct word word;

	if (!next_word(&scan, &word))
		return true;
	if (!word_is(&word, "color")) {
		buf_printf(msg, "expected 'color' at the start of the line, found '%s'",
			   shown(&word, tmp));
		return false;
	}
	if (!next_word(&scan, &word)) {
		buf_puts(msg, "missing style name (the form is: color STYLE FG BG [ATTR ...])");
		return false;
	}
	if (!parse_style(&word, &style, msg))
		return false;
	if (!next_word(&scan, &word)) {
		buf_printf(msg, "missing foreground colour for '%s'", style_names[style]);
		return false;
	}
	if (!parse_colour(&word, &def.fg, &def.fg8, msg))
		return false;
	if (!next_word(&scan, &word)) {
		buf_printf(msg, "missing background colour for '%s'", style_names[style]);
		return false;
	}
	if (!parse_colour(&word, &def.bg, &def.bg8, msg))
		return false;
	while (next_word(&scan, &word)) {
		if (!parse_attr(&word, &def.attrs, msg))
			return false;
	}
	def.set = true;
	theme->styles[style] = def;
	return true;
}

/* A theme is mono when nothing in it has a colour (documented in
 * themes/default-dark): then it is drawn without colour pairs at all. */
static bool all_default(const struct theme *theme)
{
	for (int i = 0; i < STYLE_COUNT; i++) {
		const struct style_def *s = &theme->styles[i];

		if (s->fg != DEF || s->bg != DEF || s->fg8 != DEF || s->bg8 != DEF)
			return false;
	}
	return true;
}

int theme_parse(struct theme *theme, const char *text, size_t len, const char *filename,
		struct buf *errors)
{
	const char *p = text, *end = text ? text + len : NULL;
	struct buf msg = BUF_INIT;
	unsigned long lineno = 0;
	int bad = 0;

	if (!filename)
		filename = "theme";
	if (!text)
		p = end = "";
	/* An editor's byte order mark is not a word. */
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;

		lineno++;
		buf_clear(&msg);
		if (!parse_line(theme, p, (size_t)(eol - p), &msg)) {
			if (++bad <= MAX_REPORTED && errors)
				buf_printf(errors, "%s:%lu: %s\n", filename, lineno,
					   msg.ptr ? msg.ptr : "bad line");
		}
		p = nl ? nl + 1 : end;
	}
	if (bad > MAX_REPORTED && errors)
		buf_printf(errors, "%s: %d more bad lines not shown\n", filename,
			   bad - MAX_REPORTED);
	buf_release(&msg);
	theme->mono = all_default(theme);
	return bad;
}

/* Where a named theme was looked for, for the message when it is not found. */
static void looked_in(struct buf *out)
{
	struct buf dir = BUF_INIT;

	if (datadir_user(&dir, "themes") == 0)
		buf_printf(out, "%s and ", dir.ptr);
	if (datadir_find(&dir, "themes") == 0)
		buf_printf(out, "%s", dir.ptr);
	else
		buf_puts(out, "revline's themes directory, which was not found "
			 "(set REVLINE_DATADIR)");
	buf_release(&dir);
}

/*
 * Returns the number of bad lines (0: all good), or a negative status when
 * the theme could not be read; either way errors says what went wrong and
 * out holds a theme that can be used.
 */
int theme_load(struct theme *out, const char *name, struct buf *errors)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	const char *base;
	int error;

	theme_default(out);
	if (!name || !*name)
		return 0;
	if (strchr(name, '/')) {
		if ((error = buf_puts(&path, name)) < 0)
			goto done;
	} else if (datadir_file(&path, "themes", name) < 0) {
		error = error_set(RL_ENOTFOUND, "theme '%s' not found", name);
		if (errors) {
			buf_printf(errors, "theme '%s' not found (looked in ", name);
			looked_in(errors);
			buf_puts(errors, "); using the default theme\n");
		}
		goto done;
	}
	if ((error = buf_read_file(&text, path.ptr)) < 0) {
		if (errors)
			buf_printf(errors, "cannot load theme: %s; using the default theme\n",
				   error_message());
		goto done;
	}
	error = theme_parse(out, text.ptr ? text.ptr : "", text.len, path.ptr, errors);
	base = strrchr(name, '/');
	base = base ? base + 1 : name;
	set_name(out, base, strlen(base));
done:
	buf_release(&path);
	buf_release(&text);
	return error;
}

/* ---- curses ---- */

static unsigned long style_attrs[STYLE_COUNT];
static bool colour_in_use;
/* Whether colour -1 (the terminal's own) can be used in a pair. */
static bool default_colours;

static unsigned long curses_attrs(unsigned attrs)
{
	unsigned long out = A_NORMAL;

	if (attrs & THEME_BOLD)
		out |= A_BOLD;
	if (attrs & THEME_DIM)
		out |= A_DIM;
	if (attrs & THEME_REVERSE)
		out |= A_REVERSE;
	if (attrs & THEME_UNDERLINE)
		out |= A_UNDERLINE;
#ifdef A_ITALIC
	if (attrs & THEME_ITALIC)
		out |= A_ITALIC;
#endif
	if (attrs & THEME_STANDOUT)
		out |= A_STANDOUT;
	if (attrs & THEME_BLINK)
		out |= A_BLINK;
	return out;
}

/* A theme colour as this terminal can show it. */
static short terminal_colour(short c256, short c8, bool is_fg)
{
	short c = COLORS >= 256 ? c256 : c8;

	/* bright-red on an 8-colour terminal: red is the best it has. */
	if (c >= 8 && COLORS < 16)
		c -= 8;
	if (c >= COLORS)
		c = nearest_basic(c);
	if (c < 0 && !default_colours)
		c = is_fg ? COLOR_WHITE : COLOR_BLACK;
	return c;
}

void theme_apply(const struct theme *theme)
{
	struct theme fallback;

	colour_in_use = !theme->mono && has_colors() && COLORS >= 8 &&
			COLOR_PAIRS > STYLE_COUNT;
	if (!colour_in_use) {
		/* A colour theme says nothing about how to tell styles apart
		 * without colour; the mono theme does. */
		if (!theme->mono) {
			theme_mono(&fallback);
			theme = &fallback;
		}
		for (int i = 0; i < STYLE_COUNT; i++)
			style_attrs[i] = curses_attrs(theme->styles[i].attrs);
		return;
	}
	/* Asked on every call, not once: it belongs to the current screen,
	 * and a program (the tests do) may make more than one. */
	default_colours = use_default_colors() == OK;
	for (int i = 0; i < STYLE_COUNT; i++) {
		const struct style_def *s = &theme->styles[i];
		short fg = terminal_colour(s->fg, s->fg8, true);
		short bg = terminal_colour(s->bg, s->bg8, false);

		style_attrs[i] = curses_attrs(s->attrs);
		if (init_pair((short)(i + 1), fg, bg) == OK)
			style_attrs[i] |= (unsigned long)COLOR_PAIR(i + 1);
	}
}

unsigned long theme_attr(enum style style)
{
	if ((int)style < 0 || (int)style >= STYLE_COUNT)
		return A_NORMAL;
	return style_attrs[style];
}

int theme_style_of(unsigned long attrs, short pair)
{
	const unsigned long mask = A_BOLD | A_DIM | A_REVERSE | A_UNDERLINE | A_STANDOUT |
				   A_BLINK
#ifdef A_ITALIC
				   | A_ITALIC
#endif
				   ;

	if (colour_in_use)
		return pair >= 1 && pair <= STYLE_COUNT ? pair - 1 : -1;
	/* Without colour only the attributes tell; styles that share them
	 * (most are plain) read as the first, the default. */
	for (int i = 0; i < STYLE_COUNT; i++) {
		if ((style_attrs[i] & mask) == (attrs & mask))
			return i;
	}
	return -1;
}
