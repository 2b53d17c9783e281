/*
 * The UI's application layer: a key's request goes to the view that takes
 * keys (the focused pane, or a full-screen view) and, when the view leaves
 * it, to the requests of the whole UI here; and the screen is drawn. It
 * drives the modules (review, fixes, the watcher, outside programs) and the
 * views; none of them calls it.
 */
#include "app.h"
#include "background.h"
#include "outside.h"
#include "status.h"
#include "tui.h"
#include "watch.h"

#include <stdio.h>
#include <string.h>
#include <wchar.h>

static bool diff_empty(const struct tui *tui)
{
	return tui->diff->nfiles == 0;
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
	size_t i, n = tui_panes(tui, list);

	for (i = 0; i < n && list[i] != tui->focus; i++)
		;
	tui_set_focus(tui, list[(i + 1) % n]);
	if (tui->focus->ops->keys && statusbar_keys_cut(tui, COLS))
		keys_message(tui, tui->focus);
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
		    "Untracked files are left out (I adds them)");
}

void tui_draw(struct tui *tui)
{
	int i;

	struct view *list[4];
	size_t n;

	if (tui->overlay) {
		if (tui->overlay->dirty)
			view_draw(tui->overlay);
	} else if (diff_empty(tui) && !tui_lower_shown(tui)) {
		if (tui->views[VIEW_EMPTY].dirty)
			view_draw(&tui->views[VIEW_EMPTY]);
	} else {
		for (n = tui_panes(tui, list), i = 0; i < (int)n; i++)
			if (list[i]->dirty)
				view_draw(list[i]);
	}
	if (tui->status_dirty) {
		statusbar_draw(tui, tui->status_win, COLS);
		tui->status_dirty = false;
	}
	doupdate();
	review_drawn(&tui->review);
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
	struct view *view = tui_active_view(tui);
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
	tui_focus_keep(tui);
	tui_redraw(tui);
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
	tui_redraw(tui);
	if (stale)
		tui_message(tui, false, "Files changed since the diff was read: the check is of the diff read again");
}

static void quit(struct tui *tui)
{
	tui->quit = true;
}

/* The full-screen views that requests open. */
static const struct {
	enum request request;
	enum view_id view;
} overlays[] = {
	{ REQ_HELP, VIEW_HELP },
	{ REQ_HISTORY, VIEW_HISTORY },
	{ REQ_STATS, VIEW_STATS },
	{ REQ_DEPS, VIEW_DEPS },
	{ REQ_APPLIED, VIEW_APPLIED },
};

static bool overlay_open(struct tui *tui, struct view *view, enum request request)
{
	size_t i;

	(void)view;
	for (i = 0; i < sizeof(overlays) / sizeof(overlays[0]); i++)
		if (overlays[i].request == request)
			tui_overlay(tui, &tui->views[overlays[i].view]);
	return true;
}

static void fix_mark(struct tui *tui)
{
	tui_message(tui, true, "Fixes are marked in history: H, a check, then a fixed violation");
}

/* Backspace goes back a level in history; elsewhere it does nothing. */
static void back(struct tui *tui)
{
	(void)tui;
}

static void switch_pane(struct tui *tui)
{
	if (!diff_empty(tui) || tui_lower_shown(tui))
		focus_next(tui);
}

static void reload(struct tui *tui)
{
	if (tui_diff_refresh(tui, NULL) == 0)
		tui_message(tui, false, "The diff is read again (%zu file%s)", tui->diff->nfiles,
			    tui->diff->nfiles == 1 ? "" : "s");
}

static void retry(struct tui *tui)
{
	review_retry(&tui->review);
}

/* f, and a or x in the findings pane: the finding selected there (the one in evidence), from any pane. */
static bool finding_request(struct tui *tui, struct view *view, enum request request)
{
	struct view *findings = &tui->views[VIEW_FINDINGS];

	(void)view;
	if (tui_review_shown(tui))
		return findings->ops->request(findings, request);
	tui_message(tui, true, "No findings yet: press c to check the diff");
	return true;
}

/* a, x and u: the fix shown, from the signals and fix panes (u from any pane); else the finding. */
static bool fix_request(struct tui *tui, struct view *view, enum request request)
{
	struct view *fix = &tui->views[VIEW_FIX];

	if (tui_fix_shown(tui) && (request == REQ_UNDO || view == &tui->views[VIEW_SIGNALS] ||
				   view == fix || !tui_review_shown(tui)))
		return fix->ops->request(fix, request);
	if (request == REQ_UNDO) {
		fixes_undo(&tui->fixes, NULL);
		return true;
	}
	return finding_request(tui, view, request);
}

static bool file_step(struct tui *tui, struct view *view, enum request request)
{
	(void)view;
	if (diff_empty(tui))
		return true;
	if (request == REQ_NEXT_FILE ? tui->file + 1 < tui->diff->nfiles : tui->file > 0)
		tui_open_file(tui, request == REQ_NEXT_FILE ? tui->file + 1 : tui->file - 1);
	else
		tui_message(tui, false, request == REQ_NEXT_FILE ? "Last file" : "First file");
	return true;
}

static void lint(struct tui *tui)
{
	if (fixes_lint(&tui->fixes, NULL) == 0 && !tui_signals_shown(tui))
		signals_toggle(tui);
}

static void search_prompt(struct tui *tui)
{
	tui_prompt_start(tui, PROMPT_SEARCH);
}

/* Esc: the search, else a check, the linters or a fix running, else the fix pane. */
static void cancel(struct tui *tui)
{
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
}

static void hidden_toggle(struct tui *tui)
{
	tui->review.show_hidden = !tui->review.show_hidden;
	tui_message(tui, false, tui->review.show_hidden ?
		    "Showing unverified and suppressed findings" :
		    "Hiding unverified and suppressed findings");
	view_dirty(&tui->views[VIEW_FINDINGS]);
	view_dirty(&tui->views[VIEW_DIFF]);
}

static void report_toggle(struct tui *tui)
{
	tui->review.show_report = !tui->review.show_report;
	tui->views[VIEW_FINDINGS].lineno = tui->views[VIEW_FINDINGS].offset = 0;
	view_dirty(&tui->views[VIEW_FINDINGS]);
	view_dirty(&tui->views[VIEW_EVIDENCE]);
}

/* n and N: the next match of a search; without one, hunks, from the files pane too. */
static bool match_step(struct tui *tui, struct view *view, enum request request)
{
	struct view *diff = &tui->views[VIEW_DIFF];

	if (!tui->search.active && view == &tui->views[VIEW_FILES])
		return diff->ops->request(diff, request);
	if (tui->search.active && !search_step(tui, view, request == REQ_NEXT ? 1 : -1))
		tui_message(tui, true, "No match for '%s'", tui->search.needle);
	return tui->search.active;
}

/*
 * What the whole UI does with a request the view left: run it (it is then
 * done), or handle it (false leaves it to the view's generic handling).
 * Requests not here are movement, the generic handling's.
 */
struct global_request {
	void (*run)(struct tui *tui);
	bool (*handle)(struct tui *tui, struct view *view, enum request request);
};

static const struct global_request global_requests[REQ_COUNT] = {
	[REQ_QUIT]           = { .run = quit },
	[REQ_HELP]           = { .handle = overlay_open },
	[REQ_HISTORY]        = { .handle = overlay_open },
	[REQ_STATS]          = { .handle = overlay_open },
	[REQ_DEPS]           = { .handle = overlay_open },
	[REQ_APPLIED]        = { .handle = overlay_open },
	[REQ_FIX_CORRECT]    = { .run = fix_mark },
	[REQ_FIX_INCORRECT]  = { .run = fix_mark },
	[REQ_BACK]           = { .run = back },
	[REQ_SWITCH_PANE]    = { .run = switch_pane },
	[REQ_CHECK]          = { .run = check_start_fresh },
	[REQ_EDIT]           = { .run = outside_edit },
	[REQ_COPY]           = { .run = outside_copy },
	[REQ_RELOAD]         = { .run = reload },
	[REQ_RETRY]          = { .run = retry },
	[REQ_UNTRACKED]      = { .run = untracked_toggle },
	[REQ_ACCEPT]         = { .handle = fix_request },
	[REQ_REJECT]         = { .handle = fix_request },
	[REQ_UNDO]           = { .handle = fix_request },
	[REQ_FALSE_POSITIVE] = { .handle = finding_request },
	[REQ_NEXT_FILE]      = { .handle = file_step },
	[REQ_PREV_FILE]      = { .handle = file_step },
	[REQ_SIGNALS]        = { .run = signals_toggle },
	[REQ_LINT]           = { .run = lint },
	[REQ_FIX_FINDING]    = { .run = fix_finding },
	[REQ_SEARCH]         = { .run = search_prompt },
	[REQ_CANCEL]         = { .run = cancel },
	[REQ_TOGGLE_HIDDEN]  = { .run = hidden_toggle },
	[REQ_REPORT]         = { .run = report_toggle },
	[REQ_NEXT]           = { .handle = match_step },
	[REQ_PREV]           = { .handle = match_step },
	[REQ_REDRAW]         = { .run = tui_redraw },
};

static bool global_request(struct tui *tui, struct view *view, enum request request)
{
	const struct global_request *g;

	if ((size_t)request >= REQ_COUNT)
		return false;
	g = &global_requests[request];
	if (g->run) {
		g->run(tui);
		return true;
	}
	return g->handle && g->handle(tui, view, request);
}

void tui_key(struct tui *tui, int key)
{
	struct view *view;
	enum request request;

	if (key == KEY_RESIZE) {
		tui_layout(tui);
		tui_redraw(tui);
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
	view = tui_active_view(tui);
	if ((request == REQ_WHEEL_UP || request == REQ_WHEEL_DOWN) && tui->wheel_view && !tui->overlay &&
	    (!diff_empty(tui) || tui_lower_shown(tui)))
		view = tui->wheel_view;
	if (view->ops->request && view->ops->request(view, request))
		return;
	if (global_request(tui, view, request))
		return;
	view_request(view, request);
}

