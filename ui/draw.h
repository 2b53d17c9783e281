#ifndef REVLINE_DRAW_H
#define REVLINE_DRAW_H

#include <stdbool.h>
#include <stddef.h>

#include "tui_curses.h"

/*
 * Drawing text as it should look, whatever its bytes: tabs expanded to
 * stops every 8 columns, control characters as ^X, invalid UTF-8 and
 * unprintable characters as U+FFFD in the special style, wide characters
 * never split at either edge, a CR that ends a CRLF line not shown.
 */
struct text_style {
	attr_t attrs;           /* ordinary text (colour pair included) */
	attr_t special;         /* ^X, U+FFFD */
	attr_t match;           /* search matches */
	const char *needle;     /* highlight its occurrences, or NULL */
	bool icase;             /* match case-insensitively */
};

/*
 * Draw at the window's cursor, at most width columns, skipping the first
 * skip columns of the text (horizontal scrolling). Returns the columns
 * drawn.
 */
int draw_text(WINDOW *win, int width, int skip, const char *s, size_t len,
	      const struct text_style *style);
/* Same, for a NUL-terminated string in one style. */
int draw_str(WINDOW *win, int width, const char *s, attr_t attrs);

/* A piece of a row in its own style (draw_parts). */
struct draw_part {
	const char *text;
	size_t len;
	const struct text_style *style;
};

/*
 * The one way a row is cut: its parts side by side from column skip on,
 * in at most width columns; when they go on past the width, the last
 * column shows an ellipsis (~ without UTF-8) in the style of the part cut.
 * Returns the columns drawn. Every pane draws its rows through it (or
 * draw_str_cut), so that no text is cut without saying so.
 */
int draw_parts(WINDOW *win, int width, int skip, const struct draw_part *parts, size_t n);
/* Same, for one NUL-terminated string in one style (titles, the status bar, rows). */
int draw_str_cut(WINDOW *win, int width, const char *s, attr_t attrs);
/* Same, cut in the middle (rule ids, paths: their start and end are kept). */
int draw_str_mid(WINDOW *win, int width, const char *s, attr_t attrs);
/* The mark of text cut: an ellipsis, or ~ without UTF-8. */
const char *draw_ellipsis(void);
/* Fill width columns with spaces. */
void draw_fill(WINDOW *win, int width, attr_t attrs);
/* A spinner's frame after ms milliseconds (braille dots, or |/-\ without UTF-8). */
const char *draw_spinner(long ms);
/* The columns the text takes when drawn. */
int text_width(const char *s, size_t len);
/*
 * The byte offset where the last cols columns of s start, so that a long
 * path can be shown by its tail.
 */
size_t text_tail(const char *s, size_t len, int cols);
/*
 * Where to break len bytes of text into a row of cols columns: at the last
 * space that fits, else (one long word) after as much as fits, never inside
 * a character. The one way prose is wrapped.
 */
size_t text_break(const char *s, size_t len, int cols);
/* Whether needle occurs in s; icase for smart-case searches. */
bool text_contains(const char *s, size_t len, const char *needle, bool icase);

#endif
