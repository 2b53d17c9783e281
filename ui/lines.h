#ifndef REVLINE_LINES_H
#define REVLINE_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "theme.h"

/*
 * Rows of styled text that a view builds before drawing (history, stats):
 * each row is a run of parts, each part in its own style, and carries a
 * tag saying what it stands for (an index, or -1 for plain text). Memory
 * that runs out drops text, never a row's bookkeeping.
 */
struct lines_part {
	enum style style;
	size_t start, len;      /* in text */
};

struct lines_row {
	size_t first, nparts;   /* in parts */
	long tag;
};

struct lines {
	struct buf text;
	struct lines_part *parts;
	size_t nparts, parts_alloc;
	struct lines_row *rows;
	size_t nrows, rows_alloc;
};

struct view;

/* Empty, keeping the memory. */
void lines_clear(struct lines *lines);
void lines_release(struct lines *lines);
/* Start a row. */
void lines_row(struct lines *lines, long tag);
/* Add text to the last row. */
void lines_add(struct lines *lines, enum style style, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Add text, then spaces in the default style up to width columns (longer text is kept whole). */
void lines_pad(struct lines *lines, enum style style, const char *text, int width);
/* Prose in rows of at most width columns after indent spaces, broken at spaces; its newlines kept. */
void lines_wrap(struct lines *lines, enum style style, const char *text, int indent, int width);
/* A row's tag, or -1 past the end. */
long lines_tag(const struct lines *lines, size_t row);
/* Draw a row at the window's cursor, scrolled by view->col; in the cursor style when selected. */
void lines_draw(const struct lines *lines, struct view *view, size_t row, bool selected);
bool lines_match(const struct lines *lines, size_t row, const char *needle, bool icase);

#endif
