/* Rows of styled text built before drawing, for the history and stats views. */
#include "lines.h"
#include "array.h"
#include "draw.h"
#include "utf8.h"
#include "view.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void lines_clear(struct lines *lines)
{
	buf_clear(&lines->text);
	lines->nparts = 0;
	lines->nrows = 0;
}

void lines_release(struct lines *lines)
{
	buf_release(&lines->text);
	free(lines->parts);
	free(lines->rows);
	memset(lines, 0, sizeof(*lines));
}

void lines_row(struct lines *lines, long tag)
{
	if (ARRAY_GROW(lines->rows, lines->rows_alloc, lines->nrows + 1) < 0)
		return;
	lines->rows[lines->nrows++] = (struct lines_row){ lines->nparts, 0, tag };
}

/* The text from start to the end of the buffer becomes a part of the last row. */
static void part_end(struct lines *lines, enum style style, size_t start)
{
	struct lines_row *row = lines->nrows ? &lines->rows[lines->nrows - 1] : NULL;

	if (!row || lines->text.len <= start ||
	    ARRAY_GROW(lines->parts, lines->parts_alloc, lines->nparts + 1) < 0)
		return;
	lines->parts[lines->nparts++] = (struct lines_part){ style, start, lines->text.len - start };
	row->nparts++;
}

void lines_add(struct lines *lines, enum style style, const char *fmt, ...)
{
	size_t start = lines->text.len;
	va_list ap;

	va_start(ap, fmt);
	if (buf_vprintf(&lines->text, fmt, ap) < 0)
		lines->text.len = start;
	va_end(ap);
	part_end(lines, style, start);
}

void lines_pad(struct lines *lines, enum style style, const char *text, int width)
{
	int pad = width - text_width(text, strlen(text));

	lines_add(lines, style, "%s", text);
	if (pad > 0)
		lines_add(lines, STYLE_DEFAULT, "%*s", pad, "");
}

void lines_wrap(struct lines *lines, enum style style, const char *text, int indent, int width)
{
	int room = width - indent > 16 ? width - indent : 16;
	const char *p = text;

	while (p && *p) {
		size_t len = strcspn(p, "\n"), cut = text_break(p, len, room);

		lines_row(lines, -1);
		lines_add(lines, style, "%*s%.*s", indent, "", (int)cut, p);
		p += cut;
		while (cut < len && *p == ' ')
			p++;
		/* The end of the line, or spaces that ended it after a break. */
		if (*p == '\n')
			p++;
	}
}

long lines_tag(const struct lines *lines, size_t row)
{
	return row < lines->nrows ? lines->rows[row].tag : -1;
}

#define LINES_PARTS_STACK 16

void lines_draw(const struct lines *lines, struct view *view, size_t row, bool selected)
{
	const struct lines_row *r = &lines->rows[row];
	attr_t cursor = theme_attr(view->focused ? STYLE_CURSOR : STYLE_CURSOR_BLUR);
	struct text_style stack_styles[LINES_PARTS_STACK], *styles = stack_styles;
	struct draw_part stack_parts[LINES_PARTS_STACK], *parts = stack_parts;
	size_t i, n = r->nparts;
	int used;

	if (n > LINES_PARTS_STACK) {
		styles = malloc(n * sizeof(*styles));
		parts = malloc(n * sizeof(*parts));
		/* Memory that runs out drops text (the parts past the first ones). */
		if (!styles || !parts) {
			free(styles);
			free(parts);
			styles = stack_styles;
			parts = stack_parts;
			n = LINES_PARTS_STACK;
		}
	}
	for (i = 0; i < n; i++) {
		const struct lines_part *part = &lines->parts[r->first + i];
		attr_t attrs = selected ? cursor : theme_attr(part->style);

		styles[i] = (struct text_style){ attrs, selected ? cursor : theme_attr(STYLE_SPECIAL), attrs,
						 NULL, false };
		parts[i] = (struct draw_part){ lines->text.ptr + part->start, part->len, &styles[i] };
	}
	used = draw_parts(view->win, view->width, view->col, parts, n);
	draw_fill(view->win, view->width - used, selected ? cursor : theme_attr(STYLE_DEFAULT));
	if (parts != stack_parts) {
		free(styles);
		free(parts);
	}
}

bool lines_match(const struct lines *lines, size_t row, const char *needle, bool icase)
{
	const struct lines_row *r = &lines->rows[row];
	size_t i;

	for (i = 0; i < r->nparts; i++) {
		const struct lines_part *part = &lines->parts[r->first + i];

		if (text_contains(lines->text.ptr + part->start, part->len, needle, icase))
			return true;
	}
	return false;
}
