/* What every view shares: placement, drawing, movement, search. */
#include "view.h"
#include "draw.h"
#include "theme.h"
#include "tui.h"

#include <string.h>

void view_place(struct view *view, int y, int x, int height, int width, bool title)
{
	if (view->title_win)
		delwin(view->title_win);
	if (view->win)
		delwin(view->win);
	view->title_win = title ? newwin(1, width, y, x) : NULL;
	if (title) {
		y++;
		height--;
	}
	if (height < 1)
		height = 1;
	view->win = newwin(height, width, y, x);
	view->height = height;
	view->width = width;
	view_select(view, view->lineno);
	view->dirty = true;
}

void view_dirty(struct view *view)
{
	view->dirty = true;
}

static void title_draw(struct view *view)
{
	struct buf text = BUF_INIT;
	attr_t attrs = theme_attr(view->focused ? STYLE_TITLE_FOCUS : STYLE_TITLE_BLUR);
	int used;

	view->ops->title(view, &text);
	wmove(view->title_win, 0, 0);
	used = draw_str_cut(view->title_win, view->width, text.ptr ? text.ptr : "", attrs);
	draw_fill(view->title_win, view->width - used, attrs);
	wnoutrefresh(view->title_win);
	buf_release(&text);
}

void view_draw(struct view *view)
{
	int row;

	if (!view->win)
		return;
	if (view->ops->prepare)
		view->ops->prepare(view);
	if (view->lineno >= view->lines && view->lines)
		view->lineno = view->lines - 1;
	if (view->title_win)
		title_draw(view);
	werase(view->win);
	for (row = 0; row < view->height; row++) {
		size_t line = view->offset + (size_t)row;

		wmove(view->win, row, 0);
		if (line < view->lines)
			view->ops->draw_line(view, line, row,
					     view->has_cursor && line == view->lineno);
	}
	wnoutrefresh(view->win);
	view->dirty = false;
}

void view_scroll_to(struct view *view, size_t line)
{
	size_t max_offset = view->lines > (size_t)view->height ?
		view->lines - (size_t)view->height : 0;

	view->offset = line < max_offset ? line : max_offset;
	view->dirty = true;
}

void view_select(struct view *view, size_t line)
{
	size_t old = view->lineno;

	if (view->lines && line >= view->lines)
		line = view->lines - 1;
	view->lineno = line;
	if (view->lineno < view->offset)
		view->offset = view->lineno;
	else if (view->lineno >= view->offset + (size_t)view->height)
		view->offset = view->lineno - (size_t)view->height + 1;
	view->dirty = true;
	if (old != view->lineno && view->ops->selected)
		view->ops->selected(view);
}

/* A view without a cursor scrolls its text instead. */
static void scroll_by(struct view *view, long delta)
{
	long offset = (long)view->offset + delta;
	long max = (long)view->lines - view->height;

	if (offset > max)
		offset = max;
	if (offset < 0)
		offset = 0;
	view->offset = (size_t)offset;
	view->dirty = true;
	/* The cursor stays on screen; view_select tells the view it moved. */
	if (!view->has_cursor)
		view->lineno = view->offset;
	else if (view->lineno < view->offset)
		view_select(view, view->offset);
	else if (view->lineno >= view->offset + (size_t)view->height)
		view_select(view, view->offset + (size_t)view->height - 1);
}

static void move_by(struct view *view, long delta)
{
	long line = (long)view->lineno + delta;

	if (!view->has_cursor) {
		scroll_by(view, delta);
		return;
	}
	if (line < 0)
		line = 0;
	if (view->lines && line >= (long)view->lines)
		line = (long)view->lines - 1;
	/* Paging moves the text with the cursor, as in a pager. */
	if (delta > 1 || delta < -1) {
		long offset = (long)view->offset + delta;
		long max = (long)view->lines - view->height;

		view->offset = (size_t)(offset > max ? (max > 0 ? max : 0) : offset < 0 ? 0 : offset);
	}
	view_select(view, (size_t)line);
}

bool view_request(struct view *view, enum request request)
{
	long page = view->height > 1 ? view->height - 1 : 1;

	switch (request) {
	case REQ_MOVE_UP: move_by(view, -1); return true;
	case REQ_MOVE_DOWN: move_by(view, 1); return true;
	case REQ_PAGE_UP: move_by(view, -page); return true;
	case REQ_PAGE_DOWN: move_by(view, page); return true;
	case REQ_MOVE_FIRST: move_by(view, -(long)view->lines); return true;
	case REQ_MOVE_LAST: move_by(view, (long)view->lines); return true;
	case REQ_WHEEL_UP: scroll_by(view, -3); return true;
	case REQ_WHEEL_DOWN: scroll_by(view, 3); return true;
	case REQ_SCROLL_LEFT:
		view->col = view->col > 8 ? view->col - 8 : 0;
		view->dirty = true;
		return true;
	case REQ_SCROLL_RIGHT:
		view->col += 8;
		view->dirty = true;
		return true;
	default:
		return false;
	}
}

bool view_search_from(struct view *view, size_t first, int direction)
{
	const struct search *search = &view->tui->search;
	size_t line;

	if (!view->ops->matches)
		return false;
	/* Going back past line 0 wraps to SIZE_MAX, past the last line: the loop ends. */
	for (line = first; line < view->lines; line = direction > 0 ? line + 1 : line - 1)
		if (view->ops->matches(view, line, search->needle, search->icase)) {
			view_select(view, line);
			return true;
		}
	return false;
}

bool view_search(struct view *view, int direction)
{
	size_t n = view->lines, next;

	if (!view->ops->matches)
		return false;
	if (direction > 0)
		next = view->lineno + 1;
	else
		next = view->lineno < n ? view->lineno - 1 : n - 1;
	if (view_search_from(view, next, direction))
		return true;
	if (view->ops->search_more)
		return view->ops->search_more(view, direction);
	/* Wrapped around: from the other end, up to the line the search left. */
	return n && view_search_from(view, direction > 0 ? 0 : n - 1, direction);
}

void view_release(struct view *view)
{
	if (view->ops && view->ops->free)
		view->ops->free(view);
	if (view->title_win)
		delwin(view->title_win);
	if (view->win)
		delwin(view->win);
	view->title_win = view->win = NULL;
}
