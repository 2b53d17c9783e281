#include "draw.h"
#include "utf8.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define TABSTOP 8
#define RUN_MAX 256

/* A run of characters in one style, flushed with one curses call. */
struct run {
	WINDOW *win;
	wchar_t text[RUN_MAX + 1];
	int n;
	attr_t attrs;
};

static void run_flush(struct run *run)
{
	if (!run->n)
		return;
	run->text[run->n] = L'\0';
	wattrset(run->win, run->attrs);
	waddnwstr(run->win, run->text, run->n);
	run->n = 0;
}

static void run_add(struct run *run, wchar_t c, attr_t attrs)
{
	if (run->n && (run->attrs != attrs || run->n == RUN_MAX))
		run_flush(run);
	run->attrs = attrs;
	run->text[run->n++] = c;
}

static bool utf8_locale(void)
{
	return MB_CUR_MAX > 1;
}

/* One displayed unit: what it shows, how wide it is and whether it is special. */
struct glyph {
	wchar_t text[3];
	int width;
	bool special;
	size_t bytes;
};

static void glyph_next(struct glyph *g, const char *s, size_t len, size_t i, int col)
{
	unsigned char c = (unsigned char)s[i];
	uint32_t cp;
	size_t n;
	int w;

	memset(g, 0, sizeof(*g));
	g->bytes = 1;
	if (c == '\t') {
		g->width = TABSTOP - col % TABSTOP;
		g->text[0] = L' ';
		return;
	}
	if (c == '\r' && i + 1 == len) {
		g->width = 0;
		return;
	}
	if (c < 0x20 || c == 0x7f) {
		g->text[0] = L'^';
		g->text[1] = c == 0x7f ? L'?' : (wchar_t)(c + '@');
		g->width = 2;
		g->special = true;
		return;
	}
	if (c < 0x80) {
		g->text[0] = (wchar_t)c;
		g->width = 1;
		return;
	}
	n = utf8_decode(&cp, s + i, len - i);
	w = n ? wcwidth((wchar_t)cp) : -1;
	if (n)
		g->bytes = n;
	if (w < 0 || !utf8_locale()) {
		g->text[0] = utf8_locale() ? (wchar_t)0xfffd : L'?';
		g->width = 1;
		g->special = true;
		return;
	}
	g->text[0] = (wchar_t)cp;
	g->width = w;
}

int text_width(const char *s, size_t len)
{
	struct glyph g;
	size_t i = 0;
	int col = 0;

	while (i < len) {
		glyph_next(&g, s, len, i, col);
		col += g.width;
		i += g.bytes;
	}
	return col;
}

size_t text_tail(const char *s, size_t len, int cols)
{
	int total = text_width(s, len), col = 0;
	struct glyph g;
	size_t i = 0;

	while (i < len && total - col > cols) {
		glyph_next(&g, s, len, i, col);
		col += g.width;
		i += g.bytes;
	}
	return i;
}

/* How many bytes of s fit in cols columns. */
static size_t head_bytes(const char *s, size_t len, int cols)
{
	size_t i = 0, n;
	uint32_t cp;
	int col = 0, w;

	while (i < len) {
		if (!(n = utf8_decode(&cp, s + i, len - i)))
			n = 1;
		w = text_width(s + i, n);
		if (col + w > cols)
			break;
		col += w;
		i += n;
	}
	return i;
}

size_t text_break(const char *s, size_t len, int cols)
{
	size_t fit = head_bytes(s, len, cols), cut;
	uint32_t cp;

	if (fit == len)
		return len;
	for (cut = fit; cut > 0 && s[cut] != ' '; cut--)
		;
	if (cut)
		return cut;
	if (fit)
		return fit;     /* no space: the word is cut */
	/* A character wider than the row goes whole, never a part of it. */
	cut = utf8_decode(&cp, s, len);
	return cut ? cut : 1;
}

static const char *find(const char *s, size_t len, const char *needle, size_t nlen, bool icase)
{
	size_t i;

	if (!nlen || nlen > len)
		return NULL;
	for (i = 0; i + nlen <= len; i++) {
		if (icase ? !strncasecmp(s + i, needle, nlen) : !memcmp(s + i, needle, nlen))
			return s + i;
	}
	return NULL;
}

bool text_contains(const char *s, size_t len, const char *needle, bool icase)
{
	return find(s, len, needle, strlen(needle), icase) != NULL;
}

int draw_text(WINDOW *win, int width, int skip, const char *s, size_t len,
	      const struct text_style *style)
{
	struct run run = { .win = win };
	size_t nlen = style->needle ? strlen(style->needle) : 0;
	const char *match = nlen ? find(s, len, style->needle, nlen, style->icase) : NULL;
	struct glyph g;
	size_t i = 0;
	int col = 0, drawn = 0;

	while (i < len && drawn < width) {
		attr_t attrs;
		int k;

		glyph_next(&g, s, len, i, col);
		if (match && s + i >= match + nlen)
			match = find(s + i, len - i, style->needle, nlen, style->icase);
		attrs = match && s + i >= match ? style->match : g.special ? style->special : style->attrs;
		if (g.width == 0 && g.text[0] && drawn > 0 && col >= skip) {
			run_add(&run, g.text[0], attrs);  /* a combining mark joins the previous cell */
		} else if (col + g.width > skip && drawn + g.width <= width && col >= skip) {
			for (k = 0; g.text[k] && k < 2; k++)
				run_add(&run, g.text[k], attrs);
			for (k = g.text[0] == L' ' ? 1 : 0; g.text[0] == L' ' && k < g.width; k++)
				run_add(&run, L' ', attrs);
			drawn += g.width;
		} else if (col + g.width > skip) {
			/* Cut by an edge: show the visible part as blanks. */
			int visible = col < skip ? col + g.width - skip : width - drawn;

			for (k = 0; k < visible && drawn < width; k++, drawn++)
				run_add(&run, L' ', attrs);
		}
		col += g.width;
		i += g.bytes;
	}
	run_flush(&run);
	return drawn;
}

int draw_str(WINDOW *win, int width, const char *s, attr_t attrs)
{
	struct text_style style = { attrs, attrs, attrs, NULL, false };

	return draw_text(win, width, 0, s, strlen(s), &style);
}

const char *draw_ellipsis(void)
{
	return utf8_locale() ? "\xe2\x80\xa6" : "~";
}

int draw_parts(WINDOW *win, int width, int skip, const struct draw_part *parts, size_t n)
{
	const struct text_style *last = NULL;
	int total = 0, room, used = 0, w;
	size_t i;

	if (width <= 0)
		return 0;
	for (i = 0; i < n; i++)
		total += text_width(parts[i].text, parts[i].len);
	/* A single column has no room for text and the mark: it stays as it is. */
	room = total - skip > width && width >= 2 ? width - 1 : width;
	for (i = 0; i < n && used < room; i++) {
		w = text_width(parts[i].text, parts[i].len);
		if (skip >= w) {
			skip -= w;
			continue;
		}
		last = parts[i].style;
		used += draw_text(win, room - used, skip, parts[i].text, parts[i].len, parts[i].style);
		skip = 0;
	}
	if (room == width || !last)
		return used;
	/* A wide character that did not fit left its columns blank. */
	draw_fill(win, room - used, last->attrs);
	return room + draw_str(win, 1, draw_ellipsis(), last->attrs);
}

int draw_str_cut(WINDOW *win, int width, const char *s, attr_t attrs)
{
	struct text_style style = { attrs, attrs, attrs, NULL, false };
	struct draw_part part = { s, strlen(s), &style };

	return draw_parts(win, width, 0, &part, 1);
}

int draw_str_mid(WINDOW *win, int width, const char *s, attr_t attrs)
{
	size_t len = strlen(s);
	int head;

	if (width < 5 || text_width(s, len) <= width)
		return draw_str_cut(win, width, s, attrs);
	/* The start and the end say most of an id: "debug-l…python". */
	head = width / 2;
	head = draw_str(win, head, s, attrs);
	head += draw_str(win, 1, draw_ellipsis(), attrs);
	return head + draw_str(win, width - head, s + text_tail(s, len, width - head), attrs);
}

void draw_fill(WINDOW *win, int width, attr_t attrs)
{
	struct run run = { .win = win };

	while (width-- > 0)
		run_add(&run, L' ', attrs);
	run_flush(&run);
}

const char *draw_spinner(long ms)
{
	static const char *const utf8[] = { "\xe2\xa0\x8b", "\xe2\xa0\x99", "\xe2\xa0\xb9",
		"\xe2\xa0\xb8", "\xe2\xa0\xbc", "\xe2\xa0\xb4", "\xe2\xa0\xa6", "\xe2\xa0\xa7",
		"\xe2\xa0\x87", "\xe2\xa0\x8f" };
	static const char *const ascii[] = { "|", "/", "-", "\\" };

	if (ms < 0)
		ms = 0;
	return MB_CUR_MAX > 1 ? utf8[(ms / 100) % 10] : ascii[(ms / 100) % 4];
}
