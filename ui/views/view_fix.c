/*
 * The fix pane, in the evidence pane's place: the signal under the
 * signals pane's cursor (or, after F, the finding under the findings
 * pane's) with its fix: the spinner while it is asked for, then the
 * explanation and the change as a diff; a applies it, x rejects it, u
 * undoes it, and after an apply what the linter says now.
 */
#include "draw.h"
#include "clock.h"
#include "finding.h"
#include "lines.h"
#include "patch.h"
#include "tui.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fix_view {
	struct lines lines;
	const void *shown;              /* the subject shown, to keep the scroll */
	struct fixes_entry *entry;      /* its fix this session, or NULL */
	int64_t stored;                 /* else a stored applied fix of it (u undoes it), or 0 */
	const struct patch_snippet *peeked;     /* the window the diff pane was moved to */
};

/* What the pane is about: a signal, or a finding. */
struct subject {
	const struct signal *signal;
	size_t index;                   /* of the signal */
	const struct finding *finding;
};

static bool subject_of(struct subject *out, struct tui *tui)
{
	memset(out, 0, sizeof(*out));
	if (tui_signals_shown(tui))
		out->signal = signals_current(tui, &out->index);
	else if (tui_review_shown(tui))
		out->finding = findings_current(tui, NULL);
	return out->signal || out->finding;
}

static void blank(struct lines *l)
{
	lines_row(l, -1);
}

static void text_row(struct lines *l, enum style style, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void text_row(struct lines *l, enum style style, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	lines_row(l, -1);
	lines_add(l, style, "%s", text);
}

static void signal_rows(struct lines *l, const struct signal *s, int width)
{
	lines_row(l, -1);
	lines_add(l, STYLE_FILE_HEADER, "%s", *s->code ? s->code : "(no code)");
	if (s->column > 0)
		lines_add(l, STYLE_DEFAULT, "  %s:%d:%d", s->file, s->line, s->column);
	else
		lines_add(l, STYLE_DEFAULT, "  %s:%d", s->file, s->line);
	lines_add(l, STYLE_DEFAULT, "  %s %s  #%lld", s->tool, s->severity ? s->severity : "", (long long)s->id);
	lines_wrap(l, STYLE_DEFAULT, s->message, 2, width);
}

static void finding_rows(struct lines *l, const struct finding *f, int width)
{
	lines_row(l, -1);
	lines_add(l, STYLE_FILE_HEADER, "%s", f->title ? f->title : "(no title)");
	text_row(l, STYLE_DEFAULT, "%s  %s:%d  rule %s  #%lld", severity_name(f->severity), f->file, f->line,
		 f->rule_id, (long long)f->id);
	if (f->suggestion)
		lines_wrap(l, STYLE_DEFAULT, f->suggestion, 2, width);
}

/* The proposal's hunks, coloured as the diff pane colours them (the file is named above). */
static void preview_rows(struct lines *l, const char *preview)
{
	const char *p = preview;

	while (p && *p) {
		size_t len = strcspn(p, "\n");
		enum style style = *p == '+' ? STYLE_DIFF_ADD : *p == '-' ? STYLE_DIFF_DEL :
			*p == '@' ? STYLE_HUNK_HEADER : STYLE_DIFF_CONTEXT;
		bool header = !strncmp(p, "diff --git ", 11) || !strncmp(p, "index ", 6) ||
			!strncmp(p, "--- ", 4) || !strncmp(p, "+++ ", 4);

		if (!header) {
			lines_row(l, -1);
			lines_add(l, style, "%.*s", (int)len, p);
		}
		p += len + (p[len] == '\n');
	}
}

static void state_rows(struct lines *l, struct fixes_entry *e, bool finding, int width)
{
	struct fix *fix = e->fix;
	long ms = (long)((clock_us() - e->started_us) / 1000);
	const char *again = finding ? "F asks again" : "Enter asks again";
	long long id = (long long)fix_id(fix);
	size_t ndefs;

	switch (fix_state(fix)) {
	case FIX_ASKING:
		text_row(l, STYLE_RULE_RUNNING, "%s Asking for a fix of %s... %lds (Esc stops)", draw_spinner(ms),
			 fix_window(fix), ms / 1000);
		return;
	case FIX_FAILED:
		text_row(l, STYLE_RULE_FAILED, "Fix %lld failed: %s (%s)", id,
			 fix_error(fix) ? fix_error(fix) : "no answer", again);
		return;
	case FIX_PROPOSED:
		if (fix_error(fix))
			text_row(l, STYLE_RULE_FAILED, "Fix %lld not applied: %s (%s)", id, fix_error(fix), again);
		else
			text_row(l, STYLE_RULE_ATTENTION, "Fix %lld of %s proposed: a applies it, x rejects it", id,
				 fix_window(fix));
		break;
	case FIX_APPLIED:
		text_row(l, STYLE_RULE_OK, "Fix %lld of %s applied: u undoes it", id, fix_window(fix));
		if (fix_recheck(fix) == RECHECK_RUNNING)
			text_row(l, STYLE_RULE_RUNNING, "%s The linter looks at the file again", draw_spinner(ms));
		else if (fix_recheck_detail(fix))
			text_row(l, fix_recheck(fix) == RECHECK_STILL ? STYLE_RULE_FAILED :
				 fix_recheck(fix) == RECHECK_NEW ? STYLE_RULE_ATTENTION : STYLE_RULE_OK,
				 "Recheck: %s", fix_recheck_detail(fix));
		break;
	case FIX_REJECTED:
		text_row(l, STYLE_RULE_MUTED, "Fix %lld of %s rejected: a applies it anyway, %s", id,
			 fix_window(fix), again);
		break;
	case FIX_UNDONE:
		text_row(l, STYLE_RULE_MUTED, "Fix %lld of %s undone: a applies it again, %s", id,
			 fix_window(fix), again);
		break;
	}
	if (fix_definitions(fix, &ndefs))
		text_row(l, STYLE_RULE_MUTED, "Asked with %zu definition%s from the repository", ndefs, ndefs == 1 ? "" : "s");
	if (fix_explanation(fix) && *fix_explanation(fix))
		lines_wrap(l, STYLE_DEFAULT, fix_explanation(fix), 2, width);
	blank(l);
	if (fix_preview(fix) && *fix_preview(fix))
		preview_rows(l, fix_preview(fix));
	else
		text_row(l, STYLE_RULE_MUTED, "(no change: the answer leaves the lines as they are)");
}

/* A fix of an earlier session, from the store. */
static void stored_rows(struct lines *l, struct fix_view *fv, const struct fix_summary *sum)
{
	char label[64];
	enum style style;

	fixes_label(label, sizeof(label), NULL, sum, &style);
	text_row(l, style, "Fix %lld %s, earlier%s", (long long)sum->id, label,
		 sum->state == FIX_APPLIED ? ": u undoes it, Enter asks again" : ": Enter asks again");
	if (sum->state == FIX_APPLIED)
		fv->stored = sum->id;
}

/* Once a fix's window is known, the diff pane shows its first line. */
static void peek_window(struct fix_view *fv, struct tui *tui)
{
	const struct patch_snippet *snippet = fv->entry ? fix_snippet(fv->entry->fix) : NULL;

	if (!snippet || snippet == fv->peeked)
		return;
	fv->peeked = snippet;
	tui_peek_line(tui, snippet->path, snippet->first);
}

static void fixpane_prepare(struct view *view)
{
	struct fix_view *fv = view->data;
	struct tui *tui = view->tui;
	struct fixes *fx = &tui->fixes;
	struct subject sub;
	const struct fix_summary *sum = NULL;
	const void *shown = NULL;

	lines_clear(&fv->lines);
	fv->entry = NULL;
	fv->stored = 0;
	if (!subject_of(&sub, tui)) {
		text_row(&fv->lines, STYLE_EMPTY_TITLE, tui_signals_shown(tui) ? "Move to a signal to fix it." :
			 "Move to a finding to fix it.");
	} else {
		if (sub.signal) {
			signal_rows(&fv->lines, sub.signal, view->width);
			fv->entry = fixes_entry_of(fx, sub.signal->id, 0);
			sum = fixes_stored(fx, sub.index);
			shown = sub.signal;
		} else {
			finding_rows(&fv->lines, sub.finding, view->width);
			fv->entry = fixes_entry_of(fx, 0, sub.finding->id);
			shown = sub.finding;
		}
		blank(&fv->lines);
		if (fv->entry)
			state_rows(&fv->lines, fv->entry, sub.finding != NULL, view->width);
		else if (sum && sum->id)
			stored_rows(&fv->lines, fv, sum);
		else
			text_row(&fv->lines, STYLE_EMPTY_TITLE, sub.signal ? "No fix yet: Enter asks the LLM for one." :
				 "No fix yet: F asks the LLM for one.");
	}
	if (shown != fv->shown)
		view->offset = view->lineno = view->col = 0;
	fv->shown = shown;
	view->lines = fv->lines.nrows;
	peek_window(fv, tui);
}

static void fixpane_draw_line(struct view *view, size_t line, int row, bool selected)
{
	(void)row;
	lines_draw(&((struct fix_view *)view->data)->lines, view, line, selected);
}

static void fixpane_title(struct view *view, struct buf *out)
{
	struct fix_view *fv = view->data;

	if (fv->entry && fix_id(fv->entry->fix))
		buf_printf(out, "Fix %lld", (long long)fix_id(fv->entry->fix));
	else
		buf_puts(out, "Fix");
}

static bool fixpane_request(struct view *view, enum request request)
{
	struct fix_view *fv = view->data;
	struct tui *tui = view->tui;

	/* What is shown may be out of date when the cursor moved since the last draw. */
	fixpane_prepare(view);
	switch (request) {
	case REQ_ACCEPT:
		fixes_apply(&tui->fixes, fv->entry);
		return true;
	case REQ_REJECT:
		fixes_reject(&tui->fixes, fv->entry);
		return true;
	case REQ_UNDO:
		if (!fv->entry && fv->stored)
			fixes_undo_stored(&tui->fixes, fv->stored);
		else
			fixes_undo(&tui->fixes, fv->entry);
		return true;
	case REQ_ENTER:
		/* Ask again, for the signal or the finding shown. */
		if (tui_signals_shown(tui))
			return tui->views[VIEW_SIGNALS].ops->request(&tui->views[VIEW_SIGNALS], request);
		if (findings_current(tui, NULL))
			fixes_ask_finding(&tui->fixes, findings_current(tui, NULL));
		return true;
	default:
		return false;
	}
}

static bool fixpane_matches(struct view *view, size_t line, const char *needle, bool icase)
{
	return lines_match(&((struct fix_view *)view->data)->lines, line, needle, icase);
}

static int fixpane_init(struct view *view)
{
	view->data = calloc(1, sizeof(struct fix_view));
	view->has_cursor = false;
	return view->data ? 0 : -1;
}

static void fixpane_free(struct view *view)
{
	struct fix_view *fv = view->data;

	if (fv)
		lines_release(&fv->lines);
	free(fv);
	view->data = NULL;
}

const struct view_ops fix_view_ops = {
	.name = "fix",
	.keys = "a apply|x reject|u undo|h l scroll|Esc close",
	.init = fixpane_init,
	.prepare = fixpane_prepare,
	.draw_line = fixpane_draw_line,
	.title = fixpane_title,
	.request = fixpane_request,
	.matches = fixpane_matches,
	.free = fixpane_free,
};
