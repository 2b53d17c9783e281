/*
 * The findings pane: every rule of the check with its live state, and its
 * findings under it as they arrive; or, once the reduce step has landed,
 * the merged report (r switches).
 */
#include "array.h"
#include "context.h"
#include "depreview.h"
#include "draw.h"
#include "status.h"
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum frow_kind { FROW_RULE, FROW_FINDING, FROW_TEXT };

struct frow {
	enum frow_kind kind;
	size_t rule;                    /* for rule rows and a rule's findings */
	const struct finding *finding;  /* for finding rows */
	char *text;                     /* for text rows */
	enum style style;
};

struct findings_view {
	struct frow *rows;
	size_t nrows, alloc;
	/* What the cursor is on, kept across rebuilds. */
	bool report;
	size_t rule;
	long finding;                   /* index among the rule's (or the report's) findings, -1 */
	int id_width;                   /* the rule id column: the longest id, within reason */
};

static bool utf8(void)
{
	return MB_CUR_MAX > 1;
}

static struct frow *row_add(struct findings_view *fv, enum frow_kind kind)
{
	if (ARRAY_GROW(fv->rows, fv->alloc, fv->nrows + 1) < 0)
		return NULL;
	memset(&fv->rows[fv->nrows], 0, sizeof(struct frow));
	fv->rows[fv->nrows].kind = kind;
	return &fv->rows[fv->nrows++];
}

static void text_row(struct findings_view *fv, enum style style, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void text_row(struct findings_view *fv, enum style style, const char *fmt, ...)
{
	struct frow *row = row_add(fv, FROW_TEXT);
	struct buf text = BUF_INIT;
	va_list ap;

	if (!row)
		return;
	va_start(ap, fmt);
	buf_vprintf(&text, fmt, ap);
	va_end(ap);
	row->text = buf_detach(&text);
	row->style = style;
}

/* The rows' texts go before the rows are built again. */
static void rows_clear(struct findings_view *fv)
{
	size_t i;

	for (i = 0; i < fv->nrows; i++)
		free(fv->rows[i].text);
	fv->nrows = 0;
}

/* Text wrapped into rows of the pane's width, after a space. */
static void wrapped_rows(struct findings_view *fv, const char *text, int width, enum style style)
{
	const char *p = text;

	if (width < 20)
		width = 20;
	while (p && *p) {
		size_t len = strcspn(p, "\n"), cut = text_break(p, len, width - 1);

		text_row(fv, style, " %.*s", (int)cut, p);
		p += cut;
		while (cut < len && *p == ' ')
			p++;
		if (*p == '\n')
			p++;
	}
}

static void rules_rows(struct findings_view *fv, struct view *view)
{
	const struct review *r = &view->tui->review;
	size_t i, k;

	for (i = 0; i < check_nresults(r->check); i++) {
		const struct rule_result *res = check_result(r->check, i);
		struct frow *row = row_add(fv, FROW_RULE);

		if (!row)
			return;
		row->rule = i;
		for (k = 0; k < res->nfindings; k++) {
			if (!review_shows(r, &res->findings[k]) || !(row = row_add(fv, FROW_FINDING)))
				continue;
			row->rule = i;
			row->finding = &res->findings[k];
		}
	}
}

/* "8 of 14 rules did not run: review incomplete", as check says it. */
static void incomplete_row(struct findings_view *fv, const struct check *check)
{
	struct buf text = BUF_INIT;

	if (check_incomplete_text(&text, check) == 0 && text.len)
		text_row(fv, STYLE_RULE_FAILED, " %s", text.ptr);
	buf_release(&text);
}

/* "Merged by revline, overall clean in the rules that ran (review cancelled)": the verdict as check says it. */
static void overall_row(struct findings_view *fv, const struct check *check, const char *by)
{
	struct buf text = BUF_INIT;

	if (check_overall_text(&text, check) == 0)
		text_row(fv, STYLE_LABEL, " %s, overall %s", by, text.ptr);
	buf_release(&text);
}

/* With v, the rules' findings the report left out (unverified, suppressed), under their own heading. */
static void left_out_rows(struct findings_view *fv, const struct review *r)
{
	size_t i, k;
	bool heading = false;

	for (i = 0; i < check_nresults(r->check); i++) {
		const struct rule_result *res = check_result(r->check, i);

		for (k = 0; k < res->nfindings; k++) {
			struct frow *row;

			if (!review_hidden(&res->findings[k]))
				continue;
			if (!heading)
				text_row(fv, STYLE_LABEL, " Left out of the report (v hides):");
			heading = true;
			if (!(row = row_add(fv, FROW_FINDING)))
				return;
			row->rule = i;
			row->finding = &res->findings[k];
		}
	}
}

static void report_rows(struct findings_view *fv, struct view *view)
{
	const struct review *r = &view->tui->review;
	const struct report *rep = check_report(r->check);
	size_t i;

	if (!check_done(r->check)) {
		text_row(fv, STYLE_EMPTY_TITLE, " The report comes when every rule has settled (r: the rules).");
		return;
	}
	/* What did not run first: the verdict after it may be cut at a narrow pane's edge. */
	incomplete_row(fv, r->check);
	overall_row(fv, r->check, rep->synthesized ? "Synthesized report" : "Merged by revline");
	if (rep->summary)
		wrapped_rows(fv, rep->summary, view->width, STYLE_DEFAULT);
	if (rep->fallback_reason)
		wrapped_rows(fv, rep->fallback_reason, view->width, STYLE_RULE_MUTED);
	for (i = 0; i < rep->nmust_fix; i++)
		text_row(fv, STYLE_SEV_CRITICAL, " must fix: %s", rep->must_fix[i]);
	for (i = 0; i < rep->nfindings; i++) {
		struct frow *row;

		if (!review_shows(r, &rep->findings[i]) || !(row = row_add(fv, FROW_FINDING)))
			continue;
		row->rule = (size_t)-1;
		row->finding = &rep->findings[i];
	}
	if (r->show_hidden)
		left_out_rows(fv, r);
}

/* The row the cursor was on before a rebuild. */
static size_t find_cursor(const struct findings_view *fv, const struct review *r)
{
	size_t i;

	for (i = 0; i < fv->nrows; i++) {
		const struct frow *row = &fv->rows[i];

		if (fv->report || row->rule != fv->rule)
			continue;
		if (fv->finding < 0 && row->kind == FROW_RULE)
			return i;
		if (row->kind == FROW_FINDING &&
		    (size_t)fv->finding < check_result(r->check, fv->rule)->nfindings &&
		    row->finding == &check_result(r->check, fv->rule)->findings[fv->finding])
			return i;
	}
	return fv->report ? (size_t)fv->finding : 0;
}

static int id_width(const struct review *r, int width)
{
	size_t i, longest = 4;

	for (i = 0; r->check && i < check_nresults(r->check); i++)
		if (strlen(check_result(r->check, i)->rule->id) > longest)
			longest = strlen(check_result(r->check, i)->rule->id);
	return (int)longest + 1 < width / 2 ? (int)longest + 1 : width / 2;
}

static void findings_prepare(struct view *view)
{
	struct findings_view *fv = view->data;
	struct review *r = &view->tui->review;

	rows_clear(fv);
	fv->id_width = id_width(r, view->width);
	if (!r->check)
		text_row(fv, STYLE_EMPTY_TITLE, " Press c to check the diff against the rules.");
	else if (r->show_report)
		report_rows(fv, view);
	else
		rules_rows(fv, view);
	view->lines = fv->nrows;
	if (r->check && fv->report == r->show_report && !r->show_report)
		view->lineno = find_cursor(fv, r);
	fv->report = r->show_report;
}

/* Remember what the cursor is on, so that rows arriving above do not move it. */
static void findings_selected(struct view *view)
{
	struct findings_view *fv = view->data;
	const struct frow *row;
	const struct rule_result *res;

	if (view->lineno >= fv->nrows || !view->tui->review.check)
		return;
	row = &fv->rows[view->lineno];
	fv->rule = row->rule;
	fv->finding = -1;
	if (row->kind == FROW_FINDING && row->rule != (size_t)-1) {
		res = check_result(view->tui->review.check, row->rule);
		fv->finding = (long)(row->finding - res->findings);
	} else if (fv->report) {
		fv->finding = (long)view->lineno;
	}
	view_dirty(&view->tui->views[VIEW_EVIDENCE]);
}

/* A retried rule: "attempt 2/3, 12s/24s", the attempt's own time against its timeout. */
static bool retry_text(char *out, size_t size, const struct check *check, size_t i, long ms)
{
	const struct rule_result *res = check_result(check, i);
	int attempt, of;
	long took;

	if (!check_rule_attempt(check, i, &attempt, &of, &took))
		return false;
	if (took < 0)
		snprintf(out, size, "%s attempt %d/%d, waiting to retry", draw_spinner(ms), attempt, of);
	else
		snprintf(out, size, "%s attempt %d/%d, %lds/%lds", draw_spinner(ms), attempt, of, took / 1000,
			 (res->timeout_ms + 999) / 1000);
	return true;
}

/* ", 2 hidden": the rule's findings not listed under it (until v). */
static const char *hidden_text(char *out, size_t size, const struct review *r, const struct rule_result *res)
{
	size_t k, n = 0;

	for (k = 0; k < res->nfindings; k++)
		n += !review_shows(r, &res->findings[k]);
	if (!n)
		return "";
	snprintf(out, size, ", %zu hidden", n);
	return out;
}

/* Whether an LLM rule waits for the context pack (the repository's index is being built): they start together. */
static bool context_pending(const struct check *check, const struct rule_result *res)
{
	struct check_context_view v;

	check_context_view(&v, check);
	return !v.built && res->rule->kind == RULE_LLM;
}

static const char *state_text(char *out, size_t size, const struct review *r, size_t i, enum style *style)
{
	const struct rule_result *res = check_result(r->check, i);
	long ms = res->duration_ms;
	char hidden[32];

	switch (res->status) {
	case RULE_QUEUED:
		*style = STYLE_RULE_MUTED;
		/* What it waits for: the dependency phase's advisories, then the repository's index. */
		snprintf(out, size, "%s %s", utf8() ? "\xc2\xb7" : ".",
			 check_deps_pending(r->check) && !depreview_done(check_deps(r->check)) ?
			 "queued: advisories first" : check_deps_pending(r->check) && context_pending(r->check, res) ?
			 "queued: reading the repository first" : "queued");
		break;
	case RULE_RUNNING:
		ms = check_rule_elapsed_ms(r->check, i);
		*style = STYLE_RULE_RUNNING;
		if (retry_text(out, size, r->check, i, ms))
			break;
		/* With the most it may take (the adaptive timeout), and what has streamed in. */
		if (check_rule_streamed(r->check, i) > 0)
			snprintf(out, size, "%s running %lds, %ld tok", draw_spinner(ms), ms / 1000,
				 check_rule_streamed(r->check, i));
		else
			snprintf(out, size, "%s running %lds/%lds", draw_spinner(ms), ms / 1000,
				 (res->timeout_ms + 999) / 1000);
		break;
	case RULE_COMPLIANT:
		*style = STYLE_RULE_OK;
		snprintf(out, size, "%s compliant %.1fs%s", utf8() ? "\xe2\x9c\x93" : "+", ms / 1000.0,
			 res->cached ? " cached" : "");
		break;
	case RULE_ATTENTION:
		*style = STYLE_RULE_ATTENTION;
		snprintf(out, size, "! %zu finding%s%s %.1fs%s", res->nfindings, res->nfindings == 1 ? "" : "s",
			 hidden_text(hidden, sizeof(hidden), r, res), ms / 1000.0, res->cached ? " cached" : "");
		break;
	case RULE_NOT_RELEVANT:
		*style = STYLE_RULE_MUTED;
		snprintf(out, size, "- not relevant");
		break;
	case RULE_SKIPPED:
		*style = STYLE_RULE_MUTED;
		snprintf(out, size, "- skipped: no LLM configured");
		break;
	default:
		*style = STYLE_RULE_FAILED;
		/* Stopped by the user: not a failure of the rule or the server. */
		if (res->error && !strcmp(res->error, "cancelled")) {
			*style = STYLE_RULE_MUTED;
			snprintf(out, size, "- cancelled");
			break;
		}
		snprintf(out, size, "%s %s: %s", utf8() ? "\xe2\x9c\x97" : "x",
			 res->status == RULE_TIMEOUT ? "timed out" : "failed", res->error ? res->error : "");
		break;
	}
	return out;
}

static enum style severity_style(enum severity s)
{
	return s == SEV_CRITICAL ? STYLE_SEV_CRITICAL : s == SEV_MAJOR ? STYLE_SEV_MAJOR :
		s == SEV_MINOR ? STYLE_SEV_MINOR : STYLE_SEV_NITPICK;
}

static const char *mark_text(int mark)
{
	switch (mark) {
	case FEEDBACK_FALSE_POSITIVE: return " [false positive]";
	case FEEDBACK_ACCEPT: return " [accepted]";
	case FEEDBACK_REJECT: return " [rejected]";
	default: return "";
	}
}

static int place_width(int room, const char *place)
{
	int w = text_width(place, strlen(place));

	return w <= room / 2 ? w : room / 2 > 10 ? room / 2 : 10;
}

/* A part of a finding's row in one style (draw_parts cuts the row, saying so). */
static size_t part_add(struct draw_part *parts, struct text_style *styles, size_t n, const char *text,
		       attr_t attrs)
{
	if (!*text)
		return n;
	styles[n] = (struct text_style){ attrs, attrs, attrs, NULL, false };
	parts[n] = (struct draw_part){ text, strlen(text), &styles[n] };
	return n + 1;
}

static void draw_finding(struct view *view, const struct finding *f, bool selected, attr_t cursor)
{
	const struct review *r = &view->tui->review;
	struct text_style styles[5];
	struct draw_part parts[5];
	struct buf place = BUF_INIT;
	char sev[16];
	size_t n = 0;
	int used = 0;

	snprintf(sev, sizeof(sev), "  %-8s ", severity_name(f->severity));
	used = draw_str(view->win, view->width, sev, selected ? cursor : theme_attr(severity_style(f->severity)));
	buf_printf(&place, "%s:%d  ", f->file, f->line);
	/* In a narrow pane the place gives way (its middle goes), not the title. */
	if (place.ptr)
		used += draw_str_mid(view->win, place_width(view->width - used, place.ptr), place.ptr,
				     selected ? cursor : theme_attr(STYLE_LINE_NUMBER));
	buf_release(&place);
	/* A problem in code the change did not touch (a caller it breaks): said before the title, which may be cut. */
	if (f->evidence.impact)
		n = part_add(parts, styles, n, "impact: ", selected ? cursor : theme_attr(STYLE_LABEL));
	n = part_add(parts, styles, n, f->title ? f->title : "", selected ? cursor : theme_attr(STYLE_DEFAULT));
	if (!f->verified)
		n = part_add(parts, styles, n, " (unverified)", selected ? cursor : theme_attr(STYLE_RULE_MUTED));
	if (f->suppressed)
		n = part_add(parts, styles, n, f->suppressed_by ? " (ignored inline)" : " (false positive before)",
			     selected ? cursor : theme_attr(STYLE_RULE_MUTED));
	n = part_add(parts, styles, n, mark_text(review_mark_of(r, f->id)),
		     selected ? cursor : theme_attr(STYLE_MARK));
	used += draw_parts(view->win, view->width - used, 0, parts, n);
	draw_fill(view->win, view->width - used, selected ? cursor : theme_attr(STYLE_DEFAULT));
}

/* A rule's state, then what it was given of the repository (cut at the pane's edge, saying so). */
static int draw_rule_state(struct view *view, size_t rule, const char *state, attr_t attrs, attr_t muted, int width)
{
	struct text_style styles[2] = { { attrs, attrs, attrs, NULL, false }, { muted, muted, muted, NULL, false } };
	struct buf context = BUF_INIT;
	struct draw_part parts[2] = { { state, strlen(state), &styles[0] } };
	size_t n = 1;
	int used;

	if (buf_puts(&context, "  ") == 0 && context_rule_row(&context, view->tui->review.check, rule) == 0 &&
	    context.len > 2)
		parts[n++] = (struct draw_part){ context.ptr, context.len, &styles[1] };
	used = draw_parts(view->win, width, 0, parts, n);
	buf_release(&context);
	return used;
}

static void findings_draw_line(struct view *view, size_t line, int row, bool selected)
{
	struct findings_view *fv = view->data;
	const struct frow *fr = &fv->rows[line];
	attr_t cursor = theme_attr(view->focused ? STYLE_CURSOR : STYLE_CURSOR_BLUR);
	char state[512];
	enum style style = STYLE_DEFAULT;
	int used = 0;

	(void)row;
	if (fr->kind == FROW_FINDING) {
		draw_finding(view, fr->finding, selected, cursor);
		return;
	}
	if (fr->kind == FROW_TEXT) {
		used = draw_str_cut(view->win, view->width, fr->text ? fr->text : "",
				    selected ? cursor : theme_attr(fr->style));
	} else {
		const struct rule_result *res = check_result(view->tui->review.check, fr->rule);
		int w = fv->id_width < view->width ? fv->id_width : view->width;

		state_text(state, sizeof(state), &view->tui->review, fr->rule, &style);
		used = draw_str_mid(view->win, w - 1, res->rule->id, selected ? cursor : theme_attr(STYLE_DEFAULT));
		draw_fill(view->win, w - used, selected ? cursor : theme_attr(STYLE_DEFAULT));
		used = w + draw_rule_state(view, fr->rule, state, selected ? cursor : theme_attr(style),
					   selected ? cursor : theme_attr(STYLE_RULE_MUTED), view->width - w);
	}
	draw_fill(view->win, view->width - used, selected ? cursor : theme_attr(STYLE_DEFAULT));
}

static void findings_title(struct view *view, struct buf *out)
{
	const struct review *r = &view->tui->review;
	struct review_counts n;

	review_count(r, &n);
	/* Exactly the findings listed; what is not, apart and by kind (each finding once). */
	buf_printf(out, "%s  %zu shown", r->show_report ? "Report" : "Findings", n.shown);
	if (!n.unverified && !n.suppressed)
		return;
	if (r->show_hidden)
		buf_puts(out, "  incl. ");
	else if (n.unverified && n.suppressed)
		buf_printf(out, "  %zu hidden: ", n.hidden);
	else
		buf_puts(out, "  ");
	if (n.unverified)
		buf_printf(out, "%zu unverified", n.unverified);
	if (n.unverified && n.suppressed)
		buf_puts(out, ", ");
	if (n.suppressed)
		buf_printf(out, "%zu suppressed", n.suppressed);
	if (!r->show_hidden && !(n.unverified && n.suppressed))
		buf_puts(out, " hidden");
	buf_puts(out, r->show_hidden ? " (v hides)" : " (v shows)");
}

const struct finding *findings_current(struct tui *tui, size_t *rule)
{
	struct view *view = &tui->views[VIEW_FINDINGS];
	struct findings_view *fv = view->data;
	const struct frow *row;

	if (!tui->review.check || view->lineno >= fv->nrows)
		return NULL;
	row = &fv->rows[view->lineno];
	if (rule)
		*rule = row->rule;
	return row->kind == FROW_FINDING ? row->finding : NULL;
}

static bool judge(struct view *view, enum feedback_kind kind)
{
	struct tui *tui = view->tui;
	const struct finding *f = findings_current(tui, NULL);

	if (!f) {
		tui_message(tui, true, "Put the cursor on a finding first");
		return true;
	}
	if (kind == FEEDBACK_FALSE_POSITIVE) {
		tui_prompt_note(tui, f);
		return true;
	}
	if (review_judge(&tui->review, f, kind, NULL) < 0)
		tui_message(tui, true, "%s", error_message());
	else
		tui_message(tui, false, "Finding %lld %s", (long long)f->id,
			    kind == FEEDBACK_ACCEPT ? "accepted" : "rejected");
	return true;
}

static bool findings_request(struct view *view, enum request request)
{
	const struct finding *f;

	switch (request) {
	case REQ_ENTER:
		if ((f = findings_current(view->tui, NULL)))
			tui_show_line(view->tui, f->file, f->line);
		return true;
	case REQ_FALSE_POSITIVE: return judge(view, FEEDBACK_FALSE_POSITIVE);
	case REQ_ACCEPT: return judge(view, FEEDBACK_ACCEPT);
	case REQ_REJECT: return judge(view, FEEDBACK_REJECT);
	default: return false;
	}
}

static bool findings_matches(struct view *view, size_t line, const char *needle, bool icase)
{
	struct findings_view *fv = view->data;
	const struct frow *row = &fv->rows[line];
	const char *text = row->kind == FROW_TEXT ? row->text : row->kind == FROW_FINDING ?
		row->finding->title : check_result(view->tui->review.check, row->rule)->rule->id;

	return text && text_contains(text, strlen(text), needle, icase);
}

static int findings_view_init(struct view *view)
{
	struct findings_view *fv = calloc(1, sizeof(*fv));

	if (!fv)
		return -1;
	fv->finding = -1;
	view->data = fv;
	view->has_cursor = true;
	return 0;
}

static void findings_view_free(struct view *view)
{
	struct findings_view *fv = view->data;

	if (fv) {
		rows_clear(fv);
		free(fv->rows);
	}
	free(fv);
	view->data = NULL;
}

const struct view_ops findings_view_ops = {
	.name = "findings",
	.keys = "Enter line|a accept|x reject|f false positive|F fix|y copy|r report",
	.init = findings_view_init,
	.prepare = findings_prepare,
	.draw_line = findings_draw_line,
	.title = findings_title,
	.request = findings_request,
	.matches = findings_matches,
	.selected = findings_selected,
	.free = findings_view_free,
};
