/* The terminal UI: screen setup, layout, the event loop and key dispatch. */
#include "tui.h"
#include "clock.h"
#include "config.h"
#include "draw.h"
#include "repo.h"
#include "script.h"
#include "status.h"
#include "outside.h"
#include "watch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct view_ops *const view_ops[] = {
#define VIEW_OPS_ENTRY(id, ops) &ops,
	VIEW_LIST(VIEW_OPS_ENTRY)
#undef VIEW_OPS_ENTRY
};

static WINDOW *status_win;
static SCREEN *screen;
static FILE *null_out, *null_in;
/* Where the mouse wheel last turned (the pane under the pointer). */
static struct view *wheel_view;

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
static bool lower_shown(const struct tui *tui)
{
	return tui_review_shown(tui) || tui_signals_shown(tui);
}

/* The view that takes keys now. */
static struct view *active_view(struct tui *tui)
{
	if (tui->overlay)
		return tui->overlay;
	if (diff_empty(tui) && !lower_shown(tui))
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
static size_t panes(struct tui *tui, struct view **out)
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
	size_t i, n = panes(tui, list);

	if (tui->focus)
		tui->focus->focused = false;
	tui->focus = view;
	view->focused = true;
	for (i = 0; i < n; i++)
		view_dirty(list[i]);
}

/* The keys the status bar has no room for, said once (at 80 columns, say). */
static void keys_message(struct tui *tui, const struct view *view)
{
	struct buf text = BUF_INIT;
	const char *k;

	for (k = view->ops->keys; *k; k++)
		buf_puts(&text, *k == '|' ? "  " : (char[]){ *k, 0 });
	tui_message(tui, false, "%s: %s", view->ops->name, text.ptr ? text.ptr : "");
	buf_release(&text);
}

static void focus_next(struct tui *tui)
{
	struct view *list[4];
	size_t i, n = panes(tui, list);

	for (i = 0; i < n && list[i] != tui->focus; i++)
		;
	tui_set_focus(tui, list[(i + 1) % n]);
	if (tui->focus->ops->keys && statusbar_keys_cut(tui, COLS))
		keys_message(tui, tui->focus);
}

static void redraw_all(struct tui *tui);

/* The focus stays on a pane that is on screen. */
static void focus_keep(struct tui *tui)
{
	struct view *list[4];
	size_t i, n = panes(tui, list);

	for (i = 0; i < n; i++)
		if (list[i] == tui->focus)
			return;
	tui_set_focus(tui, n > 1 && tui->focus == &tui->views[VIEW_FIX] ? list[n - 1] :
		      n > 1 && tui->focus != &tui->views[VIEW_FILES] ? list[1] : list[0]);
}

/* Show a diff made again: path (NULL: the file shown) at line. */
static void diff_adopt(struct tui *tui, struct diff *diff, const char *path, int line, int row)
{
	struct diff **grown;
	char *keep = NULL;
	long index;

	if (!path && tui->file < tui->diff->nfiles)
		path = tui->diff->files[tui->file].path;
	if ((path && !(keep = strdup(path))) ||
	    !(grown = realloc(tui->diffs, (tui->ndiffs + 1) * sizeof(*grown)))) {
		diff_free(diff);
		free(keep);
		return;
	}
	/* The old diff stays: a check may still be reading it. */
	tui->diffs = grown;
	tui->diffs[tui->ndiffs++] = diff;
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
	watch_reset(tui->watch);
	tui_layout(tui);
	focus_keep(tui);
	redraw_all(tui);
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

int tui_diff_refresh(struct tui *tui, struct diff *diff)
{
	int row = 0, line = diff_view_place(&tui->views[VIEW_DIFF], &row);

	if (!diff && repo_diff(&diff, tui->repo, tui->target) < 0) {
		tui_message(tui, true, "The working tree changed, but the diff cannot be read again: %s",
			    error_message());
		diff_free(diff);
		return -1;
	}
	diff_adopt(tui, diff, NULL, line, line > 0 ? row + 1 : 0);
	return 0;
}

/* I: untracked files in the diff (as --untracked) or out of it again. */
static void untracked_toggle(struct tui *tui)
{
	if (tui->target->side != SIDE_WORKDIR) {
		tui_message(tui, true, "Untracked files are only in a diff against the working tree");
		return;
	}
	tui->target->untracked = !tui->target->untracked;
	tui_diff_reload(tui, NULL, 0);
	tui_message(tui, false, tui->target->untracked ? "Untracked files are in the diff (I leaves them out)" :
		    "Untracked files are left out (I takes them in)");
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
	return COLS >= (lower_shown(tui) ? 100 : 70);
}

/* The line between the panes side by side: no window covers it. */
static void separator_draw(struct tui *tui)
{
	const struct view *files = &tui->views[VIEW_FILES];
	int y, x = files->width;

	if (tui->overlay || (diff_empty(tui) && !lower_shown(tui)) || !side_by_side(tui))
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
	bool review = lower_shown(tui);
	struct view *findings = lower_left(tui);
	struct view *evidence = lower_right(tui);

	if (rows < 2)
		rows = 2;
	if (status_win)
		delwin(status_win);
	status_win = newwin(1, cols, LINES - 1, 0);
	keypad(status_win, TRUE);
	nodelay(status_win, TRUE);
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

void tui_draw(struct tui *tui)
{
	int i;

	struct view *list[4];
	size_t n;

	if (tui->overlay) {
		if (tui->overlay->dirty)
			view_draw(tui->overlay);
	} else if (diff_empty(tui) && !lower_shown(tui)) {
		if (tui->views[VIEW_EMPTY].dirty)
			view_draw(&tui->views[VIEW_EMPTY]);
	} else {
		for (n = panes(tui, list), i = 0; i < (int)n; i++)
			if (list[i]->dirty)
				view_draw(list[i]);
	}
	if (tui->status_dirty) {
		statusbar_draw(tui, status_win, COLS);
		tui->status_dirty = false;
	}
	doupdate();
	review_drawn(&tui->review);
}

static void redraw_all(struct tui *tui)
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

void tui_redraw(struct tui *tui)
{
	redraw_all(tui);
}

static void prompt_start(struct tui *tui, enum prompt_kind kind)
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
	prompt_start(tui, PROMPT_NOTE);
}

/* The note is asked for; an empty one is fine. */
static void note_done(struct tui *tui, const char *note)
{
	const struct finding *f = tui->prompt_finding;

	tui->prompt_finding = NULL;
	if (!f)
		return;
	if (review_judge(&tui->review, f, FEEDBACK_FALSE_POSITIVE, *note ? note : NULL) < 0)
		tui_message(tui, true, "%s", error_message());
	else
		tui_message(tui, false, "Finding %lld marked false positive: hidden when it comes back",
			    (long long)f->id);
}

/*
 * Search the view; a match reached by going past the end (or the start)
 * says so, as less, vim and tig do. The diff pane's place is a file and a line.
 */
static bool search_step(struct tui *tui, struct view *view, int direction)
{
	bool diff = view == &tui->views[VIEW_DIFF];
	size_t file = diff ? tui->file : 0, line = view->lineno;

	if (!view_search(view, direction))
		return false;
	if (diff && tui->file != file ? (direction > 0) == (tui->file < file) :
	    direction > 0 ? view->lineno <= line : view->lineno >= line)
		tui_message(tui, false, direction > 0 ? "search hit BOTTOM, continuing at TOP" :
			    "search hit TOP, continuing at BOTTOM");
	return true;
}

static void search_run(struct tui *tui, const char *needle)
{
	struct view *view = active_view(tui);
	const char *p;

	snprintf(tui->search.needle, sizeof(tui->search.needle), "%s", needle);
	tui->search.icase = true;
	for (p = needle; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			tui->search.icase = false;
	tui->search.active = *needle != '\0';
	view_dirty(&tui->views[VIEW_DIFF]);
	if (!tui->search.active)
		return;
	if (!search_step(tui, view, 1)) {
		tui_message(tui, true, "No match for '%s'", needle);
		tui->search.active = false;
	}
}

/* UTF-8 of a character typed at the prompt. */
static void prompt_add(struct tui *tui, int key)
{
	char bytes[8];
	mbstate_t state;
	size_t n;

	memset(&state, 0, sizeof(state));
	n = wcrtomb(bytes, (wchar_t)key, &state);
	if (n != (size_t)-1 && tui->prompt.len + n < 1000)
		buf_put(&tui->prompt, bytes, n);
}

static void prompt_key(struct tui *tui, int key)
{
	tui->status_dirty = true;
	if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		tui->prompting = false;
		if (tui->prompt_kind == PROMPT_NOTE)
			note_done(tui, tui->prompt.ptr ? tui->prompt.ptr : "");
		else
			search_run(tui, tui->prompt.ptr ? tui->prompt.ptr : "");
	} else if (key == KEY_ESC) {
		tui->prompting = false;
		tui->prompt_finding = NULL;
	} else if (key == KEY_BACKSPACE || key == 127 || key == KEY_CTRL('h')) {
		while (tui->prompt.len && (tui->prompt.ptr[tui->prompt.len - 1] & 0xc0) == 0x80)
			tui->prompt.len--;
		if (tui->prompt.len)
			tui->prompt.len--;
		tui->prompt.ptr[tui->prompt.len] = '\0';
	} else if (key == KEY_CTRL('u')) {
		buf_clear(&tui->prompt);
	} else if (key >= ' ' && key != 127 && key < KEY_MIN) {
		prompt_add(tui, key);
	}
}

/* Panes came or went. */
static void panes_changed(struct tui *tui)
{
	tui_layout(tui);
	focus_keep(tui);
	redraw_all(tui);
}

/* s: the signals and fix panes in the place of findings and evidence, or back. */
static void signals_toggle(struct tui *tui)
{
	tui->fixes.pane = !tui->fixes.pane;
	if (tui->fixes.pane) {
		fixes_reload(&tui->fixes);
		panes_changed(tui);
		tui_set_focus(tui, &tui->views[VIEW_SIGNALS]);
	} else {
		if (tui->focus == &tui->views[VIEW_SIGNALS])
			tui_set_focus(tui, tui_review_shown(tui) ? &tui->views[VIEW_FINDINGS] :
				      &tui->views[VIEW_FILES]);
		panes_changed(tui);
	}
}

/* F: a fix of the finding under the findings pane's cursor, shown in the fix pane. */
static void fix_finding(struct tui *tui)
{
	const struct finding *f = tui_review_shown(tui) && !tui_signals_shown(tui) ?
		findings_current(tui, NULL) : NULL;

	if (!f) {
		tui_message(tui, true, tui_signals_shown(tui) ? "F fixes a finding: s goes back to the findings" :
			    tui_review_shown(tui) ? "Move to a finding first" :
			    "No findings yet: press c to check the diff");
		return;
	}
	if (fixes_ask_finding(&tui->fixes, f) < 0)
		return;
	if (!tui->fixes.fix_pane) {
		tui->fixes.fix_pane = true;
		panes_changed(tui);
	}
	/* There a and x apply and reject the fix; in the findings pane they judge the finding. */
	tui_set_focus(tui, &tui->views[VIEW_FIX]);
}

/* c: a diff whose files changed since it was read is read again first, and the user told. */
static void check_start_fresh(struct tui *tui)
{
	bool stale;

	tui_renames_finish(tui);
	stale = watch_stale(tui->watch) && tui_diff_refresh(tui, NULL) == 0;
	if (review_start(&tui->review) < 0)
		return;
	tui_layout(tui);
	redraw_all(tui);
	if (stale)
		tui_message(tui, false, "Files changed since the diff was read: the check is of the diff read again");
}

static bool global_request(struct tui *tui, struct view *view, enum request request)
{
	switch (request) {
	case REQ_QUIT:
		tui->quit = true;
		return true;
	case REQ_HELP:
		tui_overlay(tui, &tui->views[VIEW_HELP]);
		return true;
	case REQ_HISTORY:
		tui_overlay(tui, &tui->views[VIEW_HISTORY]);
		return true;
	case REQ_STATS:
		tui_overlay(tui, &tui->views[VIEW_STATS]);
		return true;
	case REQ_DEPS:
		tui_overlay(tui, &tui->views[VIEW_DEPS]);
		return true;
	case REQ_APPLIED:
		tui_overlay(tui, &tui->views[VIEW_APPLIED]);
		return true;
	case REQ_FIX_CORRECT: case REQ_FIX_INCORRECT:
		tui_message(tui, true, "Fixes are marked in history: H, a check, then a fixed violation");
		return true;
	case REQ_BACK:
		return true;
	case REQ_SWITCH_PANE:
		if (!diff_empty(tui) || lower_shown(tui))
			focus_next(tui);
		return true;
	case REQ_CHECK:
		check_start_fresh(tui);
		return true;
	case REQ_EDIT:
		outside_edit(tui);
		return true;
	case REQ_COPY:
		outside_copy(tui);
		return true;
	case REQ_RELOAD:
		if (tui_diff_refresh(tui, NULL) == 0)
			tui_message(tui, false, "The diff is read again (%zu file%s)", tui->diff->nfiles,
				    tui->diff->nfiles == 1 ? "" : "s");
		return true;
	case REQ_RETRY:
		review_retry(&tui->review);
		return true;
	case REQ_UNTRACKED:
		untracked_toggle(tui);
		return true;
	case REQ_ACCEPT: case REQ_REJECT: case REQ_UNDO:
		/* The fix shown, from the signals and fix panes (u from any pane). */
		if (tui_fix_shown(tui) && (request == REQ_UNDO || view == &tui->views[VIEW_SIGNALS] ||
					   view == &tui->views[VIEW_FIX] || !tui_review_shown(tui)))
			return tui->views[VIEW_FIX].ops->request(&tui->views[VIEW_FIX], request);
		if (request == REQ_UNDO) {
			fixes_undo(&tui->fixes, NULL);
			return true;
		}
		/* fall through */
	case REQ_FALSE_POSITIVE:
		/* From any pane: the finding selected in the findings pane (the one in evidence). */
		if (tui_review_shown(tui))
			return tui->views[VIEW_FINDINGS].ops->request(&tui->views[VIEW_FINDINGS], request);
		tui_message(tui, true, "No findings yet: press c to check the diff");
		return true;
	case REQ_NEXT_FILE: case REQ_PREV_FILE:
		if (diff_empty(tui))
			return true;
		if (request == REQ_NEXT_FILE ? tui->file + 1 < tui->diff->nfiles : tui->file > 0)
			tui_open_file(tui, request == REQ_NEXT_FILE ? tui->file + 1 : tui->file - 1);
		else
			tui_message(tui, false, request == REQ_NEXT_FILE ? "Last file" : "First file");
		return true;
	case REQ_SIGNALS:
		signals_toggle(tui);
		return true;
	case REQ_LINT:
		if (fixes_lint(&tui->fixes, NULL) == 0 && !tui_signals_shown(tui))
			signals_toggle(tui);
		return true;
	case REQ_FIX_FINDING:
		fix_finding(tui);
		return true;
	case REQ_SEARCH:
		prompt_start(tui, PROMPT_SEARCH);
		return true;
	case REQ_CANCEL:
		if (tui->search.active) {
			tui->search.active = false;
			view_dirty(&tui->views[VIEW_DIFF]);
			view_dirty(&tui->views[VIEW_FILES]);
			tui->status_dirty = true;   /* the status bar shows the search */
		} else if (review_running(&tui->review)) {
			review_cancel(&tui->review);
		} else if (fixes_linting(&tui->fixes) || fixes_busy(&tui->fixes)) {
			fixes_cancel(&tui->fixes);
		} else if (tui_fix_shown(tui) && !tui_signals_shown(tui)) {
			tui->fixes.fix_pane = false;
			panes_changed(tui);
		}
		return true;
	case REQ_TOGGLE_HIDDEN:
		tui->review.show_hidden = !tui->review.show_hidden;
		tui_message(tui, false, tui->review.show_hidden ?
			    "Showing unverified and suppressed findings" :
			    "Hiding unverified and suppressed findings");
		view_dirty(&tui->views[VIEW_FINDINGS]);
		view_dirty(&tui->views[VIEW_DIFF]);
		return true;
	case REQ_REPORT:
		tui->review.show_report = !tui->review.show_report;
		tui->views[VIEW_FINDINGS].lineno = tui->views[VIEW_FINDINGS].offset = 0;
		view_dirty(&tui->views[VIEW_FINDINGS]);
		view_dirty(&tui->views[VIEW_EVIDENCE]);
		return true;
	case REQ_NEXT: case REQ_PREV:
		/* Without a search, n and N move by hunks from the files pane too. */
		if (!tui->search.active && view == &tui->views[VIEW_FILES])
			return tui->views[VIEW_DIFF].ops->request(&tui->views[VIEW_DIFF], request);
		if (tui->search.active && !search_step(tui, view, request == REQ_NEXT ? 1 : -1))
			tui_message(tui, true, "No match for '%s'", tui->search.needle);
		return tui->search.active;
	case REQ_REDRAW:
		redraw_all(tui);
		return true;
	default:
		return false;
	}
}

void tui_key(struct tui *tui, int key)
{
	struct view *view;
	enum request request;

	if (key == KEY_RESIZE) {
		tui_layout(tui);
		redraw_all(tui);
		return;
	}
	if (key == KEY_FOCUS_IN) {
		/* Back from the editor's window: what changed there shows now. */
		watch_look(tui->watch);
		return;
	}
	if (tui->prompting) {
		prompt_key(tui, key);
		return;
	}
	if (tui->message[0]) {
		tui->message[0] = '\0';
		tui->status_dirty = true;
	}
	request = request_of_key(key);
	if (request == REQ_NONE) {
		tui_message(tui, true, "No action for key '%s' (press ? for help)", key_name(key));
		return;
	}
	view = active_view(tui);
	if ((request == REQ_WHEEL_UP || request == REQ_WHEEL_DOWN) && wheel_view && !tui->overlay &&
	    (!diff_empty(tui) || lower_shown(tui)))
		view = wheel_view;
	if (view->ops->request && view->ops->request(view, request))
		return;
	if (global_request(tui, view, request))
		return;
	view_request(view, request);
}

/* The pane under a mouse event, for the wheel. */
static struct view *view_at(struct tui *tui, int y, int x)
{
	int i;

	struct view *list[4];
	size_t n = panes(tui, list);

	for (i = 0; i < (int)n; i++) {
		struct view *v = list[i];
		int top, left;

		if (!v->win)
			continue;
		getbegyx(v->win, top, left);
		if (y >= top - 1 && y < top + v->height && x >= left && x < left + v->width)
			return v;
	}
	return NULL;
}

static int mouse_key(struct tui *tui)
{
	MEVENT event;

	if (getmouse(&event) != OK)
		return -1;
	wheel_view = view_at(tui, event.y, event.x);
	if (event.bstate & BUTTON4_PRESSED)
		return KEY_WHEEL_UP;
#ifdef BUTTON5_PRESSED
	if (event.bstate & BUTTON5_PRESSED)
		return KEY_WHEEL_DOWN;
#endif
	if ((event.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)) && wheel_view && !tui->overlay) {
		int top, left;

		getbegyx(wheel_view->win, top, left);
		(void)left;
		tui_set_focus(tui, wheel_view);
		if (event.y >= top)
			view_select(wheel_view, wheel_view->offset + (size_t)(event.y - top));
	}
	return -1;
}

static int input_fds(void *ctx, struct pollfd *out, int max)
{
	(void)ctx;
	if (max < 1)
		return 0;
	out->fd = STDIN_FILENO;
	out->events = POLLIN;
	return 1;
}

/*
 * Focus events (xterm's mode 1004, also tmux's and most terminals'): the
 * terminal says ESC [ I when its window gets the focus, ESC [ O when it
 * loses it. The codes curses gives for the two, or 0.
 */
static int focus_codes[2];
static bool focus_reported;

static int focus_code(const char *seq, int code)
{
	int known = key_defined(seq);

	if (known > 0)
		return known;
	return define_key(seq, code) == OK ? code : 0;
}

void tui_focus_events(bool on)
{
	if (!focus_reported)
		return;
	fputs(on ? "\033[?1004h" : "\033[?1004l", stdout);
	fflush(stdout);
}

static void input_dispatch(void *ctx, const struct pollfd *fds, int n)
{
	struct tui *tui = ctx;
	wint_t wch;
	int rc;

	(void)fds;
	(void)n;
	/* Read every key that is waiting, then draw once. */
	while (!tui->quit && (rc = wget_wch(status_win, &wch)) != ERR) {
		int key = (int)wch;

		if (rc == KEY_CODE_YES && key == KEY_MOUSE && (key = mouse_key(tui)) < 0)
			continue;
		if (rc == KEY_CODE_YES && focus_codes[1] > 0 && key == focus_codes[1])
			continue;
		if (rc == KEY_CODE_YES && focus_codes[0] > 0 && key == focus_codes[0])
			key = KEY_FOCUS_IN;
		tui_key(tui, key);
	}
}

/* Background counting of +/- lines, a few milliseconds at a time. */
static bool counter_idle(void *ctx)
{
	struct tui *tui = ctx;
	int64_t start = clock_ms();

	while (tui->counted < tui->diff->nfiles) {
		diff_file_count(tui->diff, tui->counted++);
		if (clock_ms() - start >= 8)
			break;
	}
	tui->status_dirty = true;
	return tui->counted < tui->diff->nfiles;
}

/* The diff again, with the renames known so far, shown where the user was. */
static void renames_show(struct tui *tui)
{
	struct diff *diff = NULL;

	if (repo_diff_renamed(&diff, tui->diff) < 0) {
		tui_message(tui, true, "The renames cannot be shown: %s", error_message());
		return;
	}
	tui_diff_refresh(tui, diff);
}

/*
 * Rename pairing in the background, a few milliseconds at a time: the list
 * shows the identical-content renames after the first slice, the others
 * when all are known.
 */
static bool renamer_idle(void *ctx)
{
	struct tui *tui = ctx;
	bool exact;
	int rc;

	if (repo_diff_renames_done(tui->diff))
		return false;
	exact = repo_diff_renames_exact(tui->diff);
	if ((rc = repo_diff_renames_step(tui->diff, 8000)) < 0) {
		tui_message(tui, true, "Renames are not detected: %s", error_message());
		return false;
	}
	if (rc == 1 || (!exact && repo_diff_renames_exact(tui->diff)))
		renames_show(tui);
	return rc == 0;
}

void tui_renames_finish(struct tui *tui)
{
	int rc = 0;

	if (repo_diff_renames_done(tui->diff))
		return;
	while ((rc = repo_diff_renames_step(tui->diff, INT64_MAX / 4)) == 0)
		;
	if (rc < 0)
		tui_message(tui, true, "Renames are not detected: %s", error_message());
	else
		renames_show(tui);
}

static int screen_open(bool headless)
{
	const char *term = getenv("TERM");

	if (!term || !*term)
		term = headless ? "xterm-256color" : "vt100";
	if (headless) {
		const char *size = getenv("REVLINE_SCREEN_SIZE");
		int cols = 80, rows = 24;
		char value[16];

		if (size)
			sscanf(size, "%dx%d", &cols, &rows);
		snprintf(value, sizeof(value), "%d", cols);
		setenv("COLUMNS", value, 1);
		snprintf(value, sizeof(value), "%d", rows);
		setenv("LINES", value, 1);
		null_out = fopen("/dev/null", "w");
		null_in = fopen("/dev/null", "r");
		screen = newterm(term, null_out, null_in);
	} else {
		screen = newterm(NULL, stdout, stdin);
	}
	if (!screen)
		return error_set(RL_ERROR, "cannot start the terminal UI (TERM=%s)", term);
	set_term(screen);
	cbreak();
	noecho();
	nonl();
	curs_set(0);
	set_escdelay(25);
	keypad(stdscr, TRUE);
	if (!headless) {
		mousemask(BUTTON4_PRESSED | BUTTON1_CLICKED | BUTTON1_PRESSED
#ifdef BUTTON5_PRESSED
			  | BUTTON5_PRESSED
#endif
			  , NULL);
		mouseinterval(0);
		focus_codes[0] = focus_code("\033[I", KEY_MAX + 101);
		focus_codes[1] = focus_code("\033[O", KEY_MAX + 102);
		focus_reported = focus_codes[0] > 0;
		tui_focus_events(true);
	}
	return 0;
}

static void screen_close(void)
{
	if (status_win)
		delwin(status_win);
	status_win = NULL;
	if (screen) {
		tui_focus_events(false);
		focus_reported = false;
		endwin();
		delscreen(screen);
		screen = NULL;
	}
	if (null_out)
		fclose(null_out);
	if (null_in)
		fclose(null_in);
	null_out = null_in = NULL;
}

/* The theme: --theme, REVLINE_THEME, git config revline.theme, default-dark; NO_COLOR wins. */
static void theme_choose(struct tui *tui, const struct tui_options *options)
{
	const char *no_color = getenv("NO_COLOR");
	struct config *config = NULL;
	struct buf errors = BUF_INIT;
	char *name = NULL;

	if (no_color && *no_color) {
		theme_mono(&tui->theme);
	} else {
		if (options && options->theme)
			name = strdup(options->theme);
		else if (config_open(&config, tui->repo) == 0)
			config_get(&name, config, "revline.theme");
		theme_load(&tui->theme, name ? name : "default-dark", &errors);
		if (!has_colors())
			tui->theme.mono = true;
	}
	if (!tui->theme.mono) {
		start_color();
		use_default_colors();
	}
	theme_apply(&tui->theme);
	if (errors.len) {
		char *nl = memchr(errors.ptr, '\n', errors.len);

		tui_message(tui, true, "%.*s%s", nl ? (int)(nl - errors.ptr) : (int)errors.len,
			    errors.ptr, nl && (size_t)(nl - errors.ptr) + 1 < errors.len ? " (and more)" : "");
	}
	buf_release(&errors);
	free(name);
	config_free(config);
}

/* What the repository's .revline may not do until trusted: said where the user looks. */
static void revline_note(struct tui *tui)
{
	struct config *config = NULL;
	struct buf note = BUF_INIT;

	if (config_open(&config, tui->repo) == 0 && config_revline_note(&note, config) == 0 && note.len)
		tui_message(tui, true, "%s", note.ptr);
	buf_release(&note);
	config_free(config);
	error_clear();
}

static int views_init(struct tui *tui)
{
	int i;

	for (i = 0; i < VIEW_COUNT; i++) {
		tui->views[i].ops = view_ops[i];
		tui->views[i].tui = tui;
		tui->views[i].dirty = true;
		if (view_ops[i]->init && view_ops[i]->init(&tui->views[i]) < 0)
			return error_nomem();
	}
	return 0;
}

static void run_loop(struct tui *tui)
{
	while (!tui->quit) {
		tui_draw(tui);
		if (tui->script) {
			loop_drain(&tui->loop);
			tui_draw(tui);
			if (!script_step(tui->script, tui))
				break;
			continue;
		}
		loop_step(&tui->loop, -1);
	}
}

int tui_run(struct repo *repo, struct target *target, struct diff *diff,
	    struct tui_options *options)
{
	struct tui tui = { .repo = repo, .target = target, .diff = diff };
	const struct loop_source input = { input_fds, NULL, input_dispatch, NULL, &tui, false };
	const struct loop_source counter = { NULL, NULL, NULL, counter_idle, &tui, false };
	const struct loop_source renamer = { NULL, NULL, NULL, renamer_idle, &tui, false };
	const char *script_path = getenv("REVLINE_SCRIPT");
	int rc = 0, i;

	if (script_path && *script_path && script_load(&tui.script, script_path) < 0) {
		fprintf(stderr, "revline: %s\n", error_message());
		return 2;
	}
	if (!tui.script && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		fprintf(stderr, "revline: the terminal UI needs a terminal; "
			"use 'revline diff' or 'revline check' in scripts\n");
		script_free(tui.script);
		return 2;
	}
	if (screen_open(tui.script != NULL) < 0 || views_init(&tui) < 0) {
		for (i = 0; i < VIEW_COUNT; i++)
			view_release(&tui.views[i]);
		screen_close();
		fprintf(stderr, "revline: %s\n", error_message());
		buf_release(&tui.prompt);
		script_free(tui.script);
		return 2;
	}
	theme_choose(&tui, options);
	revline_note(&tui);
	review_init(&tui.review, &tui);
	fixes_init(&tui.fixes, &tui);
	tui_set_focus(&tui, &tui.views[VIEW_FILES]);
	tui_layout(&tui);
	if (!tui.script)
		tui.input = loop_add(&tui.loop, &input);
	tui.renamer = loop_add(&tui.loop, &renamer);
	loop_wake(tui.renamer);
	tui.counter = loop_add(&tui.loop, &counter);
	loop_wake(tui.counter);
	if (watch_new(&tui.watch, &tui) == 0) {
		struct loop_source watcher = watch_source(tui.watch);

		loop_add(&tui.loop, &watcher);
	}
	if (options && options->check)
		tui_renames_finish(&tui);
	if (options && options->check && review_start(&tui.review) == 0)
		tui_layout(&tui);
	run_loop(&tui);
	rc = tui.exit_status;
	if (options)
		options->fixes_left = review_fixes_unfinished(&tui.review);
	if (getenv("REVLINE_LOOP_STATS") && *getenv("REVLINE_LOOP_STATS"))
		review_stats_write(&tui.review, getenv("REVLINE_LOOP_STATS"));
	/* Fixes first: a fix cancelled on the way out is stored as such. */
	fixes_release(&tui.fixes);
	review_release(&tui.review);
	watch_free(tui.watch);
	loop_release(&tui.loop);
	for (i = 0; i < (int)tui.ndiffs; i++)
		diff_free(tui.diffs[i]);
	free(tui.diffs);
	/* Windows go before the screen that owns them. */
	for (i = 0; i < VIEW_COUNT; i++)
		view_release(&tui.views[i]);
	screen_close();
	buf_release(&tui.prompt);
	script_free(tui.script);
	return rc;
}
