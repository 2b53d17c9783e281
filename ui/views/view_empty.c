/* The "nothing to review" screen: what was compared, what it left out, and what to try. */
#include "draw.h"
#include "tui.h"

#include <stdio.h>
#include <string.h>

/* Lines of the text; the one of the untracked files only against the working tree. */
#define EMPTY_LINES 10
#define UNTRACKED_LINE 4

static size_t empty_lines(const struct tui *tui)
{
	return tui->target->side == SIDE_WORKDIR ? EMPTY_LINES : EMPTY_LINES - 1;
}

static void empty_text(struct tui *tui, size_t line, struct buf *out, enum style *style)
{
	*style = STYLE_DEFAULT;
	if (line >= UNTRACKED_LINE && tui->target->side != SIDE_WORKDIR)
		line++;
	switch (line) {
	case 0:
		buf_puts(out, "Nothing to review");
		*style = STYLE_EMPTY_TITLE;
		break;
	case 2:
		buf_printf(out, "%s on %s", tui->repo->name, tui->repo->branch);
		break;
	case 3:
		buf_printf(out, "%s: no changes", tui->target->description);
		break;
	case UNTRACKED_LINE:
		tui_untracked_text(tui, out);
		break;
	case 6:
		buf_puts(out, "Try another target:");
		break;
	case 7:
		buf_puts(out, tui->target->side == SIDE_INDEX ?
			 "the working tree (without --staged), --base REF, or a range A..B." :
			 "--staged for the index, --base REF, or a range A..B.");
		break;
	case 9:
		buf_puts(out, "Press q to quit, ? for help.");
		break;
	}
}

static int empty_init(struct view *view)
{
	view->has_cursor = false;
	return 0;
}

static void empty_refresh(struct view *view)
{
	view->lines = (size_t)view->height;
}

static void empty_draw_line(struct view *view, size_t line, int row, bool selected)
{
	long n = (long)empty_lines(view->tui), top = (view->height - n) / 2;
	struct buf text = BUF_INIT;
	enum style style = STYLE_DEFAULT;
	int width, left, used = 0;

	(void)selected;
	if (top < 0)
		top = 0;
	if ((long)line >= top && (long)line < top + n)
		empty_text(view->tui, (size_t)((long)line - top), &text, &style);
	width = text.ptr ? text_width(text.ptr, text.len) : 0;
	left = width < view->width ? (view->width - width) / 2 : 0;
	draw_fill(view->win, left, theme_attr(STYLE_DEFAULT));
	used = left;
	if (text.ptr)
		used += draw_str_cut(view->win, view->width - used, text.ptr, theme_attr(style));
	draw_fill(view->win, view->width - used, theme_attr(STYLE_DEFAULT));
	buf_release(&text);
	(void)row;
}

static void empty_title(struct view *view, struct buf *out)
{
	(void)view;
	buf_puts(out, "revline");
}

const struct view_ops empty_view_ops = {
	.name = "empty",
	.keys = "I untracked|s signals|L lint|H history|? help",
	.init = empty_init,
	.prepare = empty_refresh,
	.draw_line = empty_draw_line,
	.title = empty_title,
};
