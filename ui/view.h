#ifndef REVLINE_VIEW_H
#define REVLINE_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "request.h"
#include "tui_curses.h"

struct tui;
struct view;

/*
 * What each view (one file each under ui/) provides, as tig does. The
 * generic part (view.c) moves the cursor, scrolls and searches line by
 * line; a view handles what is its own and leaves the rest.
 */
struct view_ops {
	const char *name;
	/* The main keys, "key what|key what", said in the status bar while the
	 * view has the focus (as lazygit does), the first ones first. */
	const char *keys;
	/* Set up the view's private data when the UI starts; 0 or -1. */
	int (*init)(struct view *view);
	/* Recompute view->lines (and anything derived) before drawing. */
	void (*prepare)(struct view *view);
	/* Draw line `line` of the view at the window's current row. */
	void (*draw_line)(struct view *view, size_t line, int row, bool selected);
	/* The title bar's text. */
	void (*title)(struct view *view, struct buf *out);
	/* Handle a request; false leaves it to the generic handling. */
	bool (*request)(struct view *view, enum request request);
	/* Whether a line matches the search (NULL: the view cannot be searched). */
	bool (*matches)(struct view *view, size_t line, const char *needle, bool icase);
	/* Search beyond the view's lines (the diff view goes on to other files). */
	bool (*search_more)(struct view *view, int direction);
	/* The cursor moved to another line. */
	void (*selected)(struct view *view);
	/* The new-side line at the cursor (0: none) and its screen row (the
	 * diff view): where the view stays when the diff is made again. */
	int (*place)(struct view *view, int *row);
	void (*free)(struct view *view);
};

struct view {
	const struct view_ops *ops;
	struct tui *tui;
	WINDOW *title_win;      /* one line above the body, NULL for none */
	WINDOW *win;            /* the body */
	int height, width;      /* of the body */
	size_t lines;           /* in the view */
	size_t lineno;          /* the cursor */
	size_t offset;          /* the first line shown */
	int col;                /* horizontal scroll */
	bool dirty;             /* needs drawing */
	bool focused;
	bool has_cursor;        /* false: the view scrolls, with no selected line */
	void *data;
};

/* Place the view: title at y (when it has one) and the body below. */
void view_place(struct view *view, int y, int x, int height, int width, bool title);
void view_draw(struct view *view);
/* The generic requests: movement, paging, scrolling, search repeat. */
bool view_request(struct view *view, enum request request);
/* Put the cursor on a line and scroll it into view. */
void view_select(struct view *view, size_t line);
/* Put a line at the top (used to show a hunk with its context). */
void view_scroll_to(struct view *view, size_t line);
/* Search from the cursor; direction 1 or -1. Past the last line (the first
 * going back) it goes on with search_more if the view has it, else it wraps
 * around to the other end, as less and tig do. False when nothing matched. */
bool view_search(struct view *view, int direction);
/* The first match from line `first` on (direction 1) or back (-1), to the
 * end without wrapping, selected. False when there is none. */
bool view_search_from(struct view *view, size_t first, int direction);
/* Mark for drawing. */
void view_dirty(struct view *view);
void view_release(struct view *view);

#endif
