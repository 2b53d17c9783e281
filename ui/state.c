/*
 * The UI's state that every part of it may change: the status bar's
 * message, which panes are on screen and where, the focus, the diff shown
 * and the place in it. It calls no module above it (review, fixes, the
 * watcher, the views' own code): those call it, and what it must tell
 * them goes through the callbacks in struct tui and the views' ops.
 */
#include "tui.h"
#include "draw.h"
#include "repo.h"
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tui_message(struct tui *tui, bool error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tui->message, sizeof(tui->message), fmt, ap);
	va_end(ap);
	tui->message_error = error;
	tui->status_dirty = true;
}

static bool diff_empty(const struct tui *tui)
{
	return tui->diff->nfiles == 0;
}

/* Whether panes beside the files and the diff are on screen (a review, or signals). */
bool tui_lower_shown(const struct tui *tui)
{
	return tui_review_shown(tui) || tui_signals_shown(tui);
}

/* The view that takes keys now. */
struct view *tui_active_view(struct tui *tui)
{
	if (tui->overlay)
		return tui->overlay;
	if (diff_empty(tui) && !tui_lower_shown(tui))
		return &tui->views[VIEW_EMPTY];
	return tui->focus;
}

bool tui_review_shown(const struct tui *tui)
{
	return tui->review.check != NULL;
}

bool tui_signals_shown(const struct tui *tui)
{
	return tui->fixes.pane;
}

bool tui_fix_shown(const struct tui *tui)
{
	return tui->fixes.pane || (tui->fixes.fix_pane && tui_review_shown(tui));
}

/* The pane under the files: signals, findings, or none. */
static struct view *lower_left(struct tui *tui)
{
	if (tui_signals_shown(tui))
		return &tui->views[VIEW_SIGNALS];
	return tui_review_shown(tui) ? &tui->views[VIEW_FINDINGS] : NULL;
}

/* The pane under the diff: a fix, the evidence, or none. */
static struct view *lower_right(struct tui *tui)
{
	if (tui_fix_shown(tui))
		return &tui->views[VIEW_FIX];
	return tui_review_shown(tui) ? &tui->views[VIEW_EVIDENCE] : NULL;
}

/* The panes on screen, in the order Tab visits them. */
size_t tui_panes(struct tui *tui, struct view **out)
{
	size_t n = 0;

	out[n++] = &tui->views[VIEW_FILES];
	if (lower_left(tui))
		out[n++] = lower_left(tui);
	out[n++] = &tui->views[VIEW_DIFF];
	if (lower_right(tui))
		out[n++] = lower_right(tui);
	return n;
}

void tui_set_focus(struct tui *tui, struct view *view)
{
	struct view *list[4];
	size_t i, n = tui_panes(tui, list);

	if (tui->focus)
		tui->focus->focused = false;
	tui->focus = view;
	view->focused = true;
	for (i = 0; i < n; i++)
		view_dirty(list[i]);
}

/* The focus stays on a pane that is on screen. */
void tui_focus_keep(struct tui *tui)
{
	struct view *list[4];
	size_t i, n = tui_panes(tui, list);

	for (i = 0; i < n; i++)
		if (list[i] == tui->focus)
			return;
	tui_set_focus(tui, n > 1 && tui->focus == &tui->views[VIEW_FIX] ? list[n - 1] :
		      n > 1 && tui->focus != &tui->views[VIEW_FILES] ? list[1] : list[0]);
}

/* Show a diff made again: path (NULL: the file shown) at line. */
static void diff_adopt(struct tui *tui, struct diff *diff, const char *path, int line, int row)
{
	char *keep = NULL;
	long index;

	if (!path && tui->file < tui->diff->nfiles)
		path = tui->diff->files[tui->file].path;
	if (path && !(keep = strdup(path))) {
		diff_free(diff);
		return;
	}
	/*
	 * The old diff goes with the UI's reference, its arena with it; a
	 * check or a dependency review that still reads it holds its own.
	 */
	diff_free(tui->diff);
	tui->diff = diff;
	tui->diff_serial++;
	tui->counted = 0;
	if (tui->counter)
		loop_wake(tui->counter);
	index = keep ? diff_find_file(diff, keep) : -1;
	tui->file = index >= 0 ? (size_t)index : 0;
	tui->views[VIEW_FILES].lineno = tui->views[VIEW_FILES].offset = 0;
	if (diff->nfiles)
		view_select(&tui->views[VIEW_FILES], tui->file);
	if (index >= 0 && line > 0) {
		tui->goto_line = line;
		tui->goto_row = row;
	}
	free(keep);
	tui_untracked_count(tui);
	if (tui->diff_changed)
		tui->diff_changed(tui);
	tui_layout(tui);
	tui_focus_keep(tui);
	tui_redraw(tui);
}

void tui_diff_reload(struct tui *tui, const char *path, int line)
{
	struct diff *diff = NULL;

	if (repo_diff(&diff, tui->repo, tui->target) < 0) {
		tui_message(tui, true, "The file changed, but the diff cannot be read again: %s", error_message());
		diff_free(diff);
		return;
	}
	diff_adopt(tui, diff, path, line, 0);
}

void tui_untracked_count(struct tui *tui)
{
	long was = tui->untracked;
	size_t n = 0;

	if (!diff_empty(tui)) {
		tui->untracked = -1;
	} else if (repo_untracked_count(&n, tui->repo, tui->target) < 0) {
		/* Not counted: the screen says they are left out, without a number. */
		error_clear();
		tui->untracked = -1;
	} else {
		tui->untracked = (long)n;
	}
	if (tui->untracked != was) {
		view_dirty(&tui->views[VIEW_EMPTY]);
		view_dirty(&tui->views[VIEW_DIFF]);
	}
}

void tui_untracked_text(struct tui *tui, struct buf *out)
{
	if (tui->target->side != SIDE_WORKDIR)
		return;
	/* With untracked files in the diff (I, --untracked), an empty one has none. */
	if (tui->target->untracked || tui->untracked == 0)
		buf_puts(out, "no untracked files");
	else if (tui->untracked < 0)
		buf_puts(out, "untracked files are left out (I adds them)");
	else
		buf_printf(out, "%ld untracked file%s (I adds %s)", tui->untracked,
			   tui->untracked == 1 ? "" : "s", tui->untracked == 1 ? "it" : "them");
}

void tui_empty_summary(struct tui *tui, struct buf *out)
{
	buf_printf(out, "%s: no changes", tui->target->description);
	if (tui->target->side == SIDE_WORKDIR)
		buf_puts(out, "; ");
	tui_untracked_text(tui, out);
}

int tui_diff_refresh(struct tui *tui, struct diff *diff)
{
	struct view *pane = &tui->views[VIEW_DIFF];
	int row = 0, line = pane->ops->place ? pane->ops->place(pane, &row) : 0;

	if (!diff && repo_diff(&diff, tui->repo, tui->target) < 0) {
		tui_message(tui, true, "The working tree changed, but the diff cannot be read again: %s",
			    error_message());
		diff_free(diff);
		return -1;
	}
	diff_adopt(tui, diff, NULL, line, line > 0 ? row + 1 : 0);
	return 0;
}

void tui_show_line(struct tui *tui, const char *path, int line)
{
	long index = diff_find_file(tui->diff, path);

	if (index < 0) {
		tui_message(tui, true, "%s is not in the diff", path);
		return;
	}
	tui_open_file(tui, (size_t)index);
	tui->goto_line = line > 0 ? line : 1;
	view_dirty(&tui->views[VIEW_DIFF]);
	tui_set_focus(tui, &tui->views[VIEW_DIFF]);
}

void tui_peek_line(struct tui *tui, const char *path, int line)
{
	long index = path ? diff_find_file(tui->diff, path) : -1;

	if (index < 0)
		return;
	tui_open_file(tui, (size_t)index);
	tui->goto_line = line > 0 ? line : 1;
	tui->goto_row = 0;
	view_dirty(&tui->views[VIEW_DIFF]);
}

void tui_overlay(struct tui *tui, struct view *view)
{
	tui->overlay = view;
	if (view)
		view->offset = view->lineno = 0;
	tui_layout(tui);
}

void tui_open_file(struct tui *tui, size_t index)
{
	if (index >= tui->diff->nfiles)
		return;
	tui->file = index;
	view_select(&tui->views[VIEW_FILES], index);
	view_dirty(&tui->views[VIEW_DIFF]);
}

/* A review's four panes side by side need 100 columns; below, they are stacked. */
static bool side_by_side(const struct tui *tui)
{
	return COLS >= (tui_lower_shown(tui) ? 100 : 70);
}

/* The line between the panes side by side: no window covers it. */
static void separator_draw(struct tui *tui)
{
	const struct view *files = &tui->views[VIEW_FILES];
	int y, x = files->width;

	if (tui->overlay || (diff_empty(tui) && !tui_lower_shown(tui)) || !side_by_side(tui))
		return;
	for (y = 0; y < LINES - 1; y++) {
		wmove(stdscr, y, x);
		draw_str(stdscr, 1, MB_CUR_MAX > 1 ? "\xe2\x94\x82" : "|", theme_attr(STYLE_DELIMITER));
	}
	wnoutrefresh(stdscr);
}

/* Two panes stacked in a column, the upper top rows high (all of them without a lower). */
static void place_rows(struct view *upper, struct view *lower, int y, int x, int rows, int cols, int top)
{
	if (!lower)
		top = rows;
	view_place(upper, y, x, top, cols, true);
	if (lower)
		view_place(lower, y + top, x, rows - top, cols, true);
}

/* The same with the upper getting share percent of the rows, at least 3. */
static void place_column(struct view *upper, struct view *lower, int y, int x, int rows, int cols,
			 int share)
{
	int top = rows * share / 100;

	if (top < 3)
		top = rows > 6 ? 3 : rows / 2;
	place_rows(upper, lower, y, x, rows, cols, top);
}

/*
 * Side by side when there is room, stacked when not; the findings pane goes
 * under the files and the evidence under the diff once a check started. A
 * full-screen view takes the whole body. The status bar is the last line.
 */
void tui_layout(struct tui *tui)
{
	int rows = LINES - 1, cols = COLS, files_w;
	bool review = tui_lower_shown(tui);
	struct view *findings = lower_left(tui);
	struct view *evidence = lower_right(tui);

	if (rows < 2)
		rows = 2;
	if (tui->status_win)
		delwin(tui->status_win);
	tui->status_win = newwin(1, cols, LINES - 1, 0);
	keypad(tui->status_win, TRUE);
	nodelay(tui->status_win, TRUE);
	tui->status_dirty = true;
	if (tui->overlay || (diff_empty(tui) && !review)) {
		struct view *full = tui->overlay ? tui->overlay : &tui->views[VIEW_EMPTY];

		view_place(full, 0, 0, rows, cols, true);
		full->focused = true;
		return;
	}
	if (side_by_side(tui)) {
		/* Findings need more room than file names. */
		files_w = cols * (review ? 42 : 30) / 100;
		files_w = files_w < 24 ? 24 : files_w > (review ? 72 : 50) ? (review ? 72 : 50) : files_w;
		place_column(&tui->views[VIEW_FILES], findings, 0, 0, rows, files_w, 40);
		place_column(&tui->views[VIEW_DIFF], evidence, 0, files_w + 1, rows, cols - files_w - 1, 62);
		/* Drawn again: a full-screen view, when it closes, leaves its text there. */
		separator_draw(tui);
	} else if (review) {
		int files_h = rows / 6 < 3 ? 3 : rows / 6, findings_h = rows / 4;

		view_place(&tui->views[VIEW_FILES], 0, 0, files_h, cols, true);
		view_place(findings, files_h, 0, findings_h, cols, true);
		place_column(&tui->views[VIEW_DIFF], evidence, files_h + findings_h, 0,
			     rows - files_h - findings_h, cols, 60);
	} else {
		int files_h = rows / 3 < 3 ? (rows < 6 ? rows / 2 : 3) : rows / 3;

		place_rows(&tui->views[VIEW_FILES], &tui->views[VIEW_DIFF], 0, 0, rows, cols, files_h);
	}
	if (tui->focus)
		tui->focus->focused = true;
}

void tui_redraw(struct tui *tui)
{
	int i;

	clearok(curscr, TRUE);
	touchwin(stdscr);
	wnoutrefresh(stdscr);
	separator_draw(tui);
	for (i = 0; i < VIEW_COUNT; i++)
		view_dirty(&tui->views[i]);
	tui->status_dirty = true;
}

void tui_prompt_start(struct tui *tui, enum prompt_kind kind)
{
	tui->prompting = true;
	tui->prompt_kind = kind;
	buf_clear(&tui->prompt);
	buf_puts(&tui->prompt, "");
	tui->status_dirty = true;
}

void tui_prompt_note(struct tui *tui, const struct finding *finding)
{
	tui->prompt_finding = finding;
	tui_prompt_start(tui, PROMPT_NOTE);
}
