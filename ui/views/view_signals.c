/*
 * The signals pane (s), in the findings pane's place: the linters'
 * diagnostics on the changed lines (v: all of them), each with the state
 * of its fix. Enter asks for a fix of the signal under the cursor; the fix
 * pane beside shows it.
 */
#include "draw.h"
#include "clock.h"
#include "lines.h"
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STATE_WIDTH 12          /* "⠋ asking 12s", "still there" */

struct signals_view {
	struct lines lines;
	int64_t selected;               /* the signal under the cursor, kept across reloads */
};

/* The widest location ("src/main.c:22") on show, within reason. */
static int place_width(const struct fixes *fx, int most)
{
	char place[600];
	int w = 0, n;
	size_t i;

	for (i = 0; i < fx->nshown; i++) {
		const struct signal *s = &fx->signals.items[fx->shown[i]];

		n = snprintf(place, sizeof(place), "%s:%d", s->file, s->line);
		n = text_width(place, (size_t)n);
		if (n > w)
			w = n;
	}
	return w > most ? most : w;
}

static void signal_row(struct lines *l, struct fixes *fx, size_t index, int place_w)
{
	const struct signal *s = &fx->signals.items[index];
	char state[64], place[600];
	enum style style;

	fixes_label(state, sizeof(state), fixes_entry_of(fx, s->id, 0), fixes_stored(fx, index), &style);
	snprintf(place, sizeof(place), "%s:%d", s->file, s->line);
	lines_row(l, (long)index);
	lines_add(l, STYLE_DEFAULT, " ");
	lines_pad(l, style, state, STATE_WIDTH + 1);
	lines_pad(l, STYLE_FILE_MODIFIED, place, place_w + 2);
	if (*s->code)
		lines_add(l, STYLE_RULE_ATTENTION, "%s  ", s->code);
	lines_add(l, STYLE_DEFAULT, "%.*s", (int)strcspn(s->message, "\n"), s->message);
}

/* The hint wraps: at 80 columns the pane is narrower than it. */
static void empty_row(struct lines *l, const struct fixes *fx, int width)
{
	char text[160];

	if (fx->signals.count)
		snprintf(text, sizeof(text), "No signals on the changed lines (v shows all %zu)",
			 fx->signals.count);
	else
		snprintf(text, sizeof(text), "No signals yet: L runs the linters "
			 "(revline signals --import FILE reads their output)");
	lines_wrap(l, STYLE_EMPTY_TITLE, text, 1, width - 1);
}

static void signals_prepare(struct view *view)
{
	struct signals_view *sv = view->data;
	struct fixes *fx = &view->tui->fixes;
	int place_w = place_width(fx, 28);
	size_t i;

	lines_clear(&sv->lines);
	for (i = 0; i < fx->nshown; i++)
		signal_row(&sv->lines, fx, fx->shown[i], place_w);
	if (!fx->nshown)
		empty_row(&sv->lines, fx, view->width);
	view->lines = sv->lines.nrows;
	/* The cursor stays on its signal when the list changes. */
	for (i = 0; i < fx->nshown; i++)
		if (fx->signals.items[fx->shown[i]].id == sv->selected && i != view->lineno) {
			view_select(view, i);
			break;
		}
	if (view->lineno >= view->lines)
		view->lineno = view->lines ? view->lines - 1 : 0;
}

const struct signal *signals_current(struct tui *tui, size_t *index)
{
	struct view *view = &tui->views[VIEW_SIGNALS];
	struct signals_view *sv = view->data;
	struct fixes *fx = &tui->fixes;
	long tag = view->lineno < sv->lines.nrows ? lines_tag(&sv->lines, view->lineno) : -1;

	/* Before the pane was drawn: the first on show. */
	if (!sv->lines.nrows && fx->nshown)
		tag = (long)fx->shown[0];
	if (tag < 0 || (size_t)tag >= fx->signals.count)
		return NULL;
	if (index)
		*index = (size_t)tag;
	return &fx->signals.items[tag];
}

static void signals_draw_line(struct view *view, size_t line, int row, bool selected)
{
	(void)row;
	lines_draw(&((struct signals_view *)view->data)->lines, view, line, selected);
}

static void signals_title(struct view *view, struct buf *out)
{
	struct fixes *fx = &view->tui->fixes;

	if (fx->show_all)
		buf_printf(out, "Signals  %zu, all (v: on changed lines only)", fx->signals.count);
	else
		buf_printf(out, "Signals  %zu on changed lines, %zu in all", fx->nshown, fx->signals.count);
	if (fixes_linting(fx)) {
		long ms = (long)((clock_us() - fx->lint_started_us) / 1000);

		buf_printf(out, "  %s linters running %lds", draw_spinner(ms), ms / 1000);
	}
}

/* Enter: ask for a fix, unless one is on show to be applied or undone. */
static void enter(struct view *view)
{
	struct tui *tui = view->tui;
	const struct signal *s = signals_current(tui, NULL);
	struct fixes_entry *e = s ? fixes_entry_of(&tui->fixes, s->id, 0) : NULL;
	enum fix_state state = e ? fix_state(e->fix) : FIX_FAILED;

	if (!s) {
		tui_message(tui, true, "No signal here: L runs the linters");
		return;
	}
	if (e && ((state == FIX_PROPOSED && !fix_error(e->fix)) || state == FIX_APPLIED)) {
		tui_message(tui, false, state == FIX_APPLIED ? "Fix %lld is applied: u undoes it" :
			    "Fix %lld is proposed: a applies it, x rejects it", (long long)fix_id(e->fix));
		return;
	}
	fixes_ask_signal(&tui->fixes, s);
}

static bool signals_request(struct view *view, enum request request)
{
	struct fixes *fx = &view->tui->fixes;

	switch (request) {
	case REQ_ENTER:
		enter(view);
		return true;
	case REQ_TOGGLE_HIDDEN:
		fx->show_all = !fx->show_all;
		fixes_refilter(fx);
		tui_message(view->tui, false, fx->show_all ? "Showing every signal" :
			    "Showing the signals on changed lines");
		return true;
	default:
		return false;
	}
}

static void signals_selected(struct view *view)
{
	struct signals_view *sv = view->data;
	const struct signal *s = signals_current(view->tui, NULL);

	sv->selected = s ? s->id : 0;
	view_dirty(&view->tui->views[VIEW_FIX]);
	if (s && view->focused)
		tui_peek_line(view->tui, s->file, s->line);
}

static bool signals_matches(struct view *view, size_t line, const char *needle, bool icase)
{
	return lines_match(&((struct signals_view *)view->data)->lines, line, needle, icase);
}

static int signals_init(struct view *view)
{
	view->data = calloc(1, sizeof(struct signals_view));
	view->has_cursor = true;
	return view->data ? 0 : -1;
}

static void signals_free(struct view *view)
{
	struct signals_view *sv = view->data;

	if (sv)
		lines_release(&sv->lines);
	free(sv);
	view->data = NULL;
}

const struct view_ops signals_view_ops = {
	.name = "signals",
	.keys = "Enter ask fix|a apply|x reject|u undo|v all|L lint|e edit",
	.init = signals_init,
	.prepare = signals_prepare,
	.draw_line = signals_draw_line,
	.title = signals_title,
	.request = signals_request,
	.matches = signals_matches,
	.selected = signals_selected,
	.free = signals_free,
};
