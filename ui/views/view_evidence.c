/*
 * The evidence pane: everything about the finding under the findings
 * pane's cursor — what it says, the code the model examined and how it
 * verified the issue, and revline's own verdict — or about the rule.
 */
#include "array.h"
#include "context.h"
#include "draw.h"
#include "tui.h"
#include "timeout.h"
#include "usage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct erow {
	enum style style;
	char *text;
	bool code;              /* shown as it is, scrolled sideways */
};

struct evidence_view {
	struct erow *rows;
	size_t nrows, alloc;
	const void *shown;      /* the finding or rule shown, to keep the scroll */
	int width;              /* of the pane, for wrapping */
};

static void rows_clear(struct evidence_view *ev)
{
	size_t i;

	for (i = 0; i < ev->nrows; i++)
		free(ev->rows[i].text);
	ev->nrows = 0;
}

static void row_add(struct evidence_view *ev, enum style style, bool code, const char *text, size_t len)
{
	if (ARRAY_GROW(ev->rows, ev->alloc, ev->nrows + 1) < 0)
		return;
	ev->rows[ev->nrows].style = style;
	ev->rows[ev->nrows].code = code;
	if ((ev->rows[ev->nrows].text = strndup(text, len)))
		ev->nrows++;
}

/*
 * Text in rows of the pane's width, broken at spaces, each row after indent
 * spaces, the rows after the first after more; its newlines kept.
 */
static void rows_wrap(struct evidence_view *ev, enum style style, const char *text, int indent, int more)
{
	struct buf row = BUF_INIT;
	const char *p = text;
	bool first = true;

	while (p && *p) {
		int pad = first ? indent : more, room = ev->width - pad;
		size_t len = strcspn(p, "\n"), cut = room >= 16 ? text_break(p, len, room) : len;

		buf_clear(&row);
		buf_printf(&row, "%*s%.*s", pad, "", (int)cut, p);
		row_add(ev, style, false, row.ptr ? row.ptr : "", row.len);
		p += cut;
		while (cut < len && *p == ' ')
			p++;
		if (*p == '\n')
			p++;
		first = false;
	}
	buf_release(&row);
}

static void line(struct evidence_view *ev, enum style style, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A line of the pane; longer than the pane, it goes on in rows indented by two. */
static void line(struct evidence_view *ev, enum style style, const char *fmt, ...)
{
	struct buf text = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&text, fmt, ap);
	va_end(ap);
	rows_wrap(ev, style, text.ptr ? text.ptr : "", 0, 2);
	buf_release(&text);
}

/* Prose, indented by two. */
static void wrapped(struct evidence_view *ev, const char *text, enum style style)
{
	rows_wrap(ev, style, text, 2, 2);
}

/* Code keeps its lines and spacing. */
static void code_rows(struct evidence_view *ev, const char *code)
{
	const char *p = code;

	while (p && *p) {
		size_t len = strcspn(p, "\n");

		row_add(ev, STYLE_DIFF_CONTEXT, true, p, len);
		p += len + (p[len] == '\n');
	}
}

static const char *mark_name(enum feedback_kind kind)
{
	switch (kind) {
	case FEEDBACK_FALSE_POSITIVE: return "false positive";
	case FEEDBACK_ACCEPT: return "accepted";
	case FEEDBACK_REJECT: return "rejected";
	default: return feedback_kind_name(kind);
	}
}

/* One item or read a row (or more, wrapped, the rows after it indented further). */
static void context_row(struct evidence_view *ev, enum style style, const struct buf *text)
{
	rows_wrap(ev, style, text->ptr ? text->ptr : "", 2, 6);
}

static void item_row(struct evidence_view *ev, const struct pack_item *it)
{
	struct buf text = BUF_INIT;

	if (context_item_text(&text, it) == 0)
		context_row(ev, STYLE_DEFAULT, &text);
	buf_release(&text);
}

/* The reads of a rule's model (with a finding, only those of the files that concern it): rows, or only counted. */
static size_t read_rows(struct evidence_view *ev, const struct rule_result *res, const struct finding *concerns,
			bool draw)
{
	struct buf text = BUF_INIT, path = BUF_INIT;
	size_t i, n = 0;

	for (i = 0; i < res->nreads; i++) {
		buf_clear(&text);
		if (check_context_read_text(&text, &path, &res->reads[i]) < 0)
			break;
		if (concerns && !check_context_path_concerns(path.ptr, concerns))
			continue;
		if (draw)
			context_row(ev, res->reads[i].error ? STYLE_RULE_FAILED : STYLE_DEFAULT, &text);
		n++;
	}
	buf_release(&text);
	buf_release(&path);
	return n;
}

/* Whether one of the finding's rules was given the pack's item. */
static bool finding_given(const struct check *c, const struct finding *f, size_t item)
{
	size_t r;

	for (r = 0; r < check_nresults(c); r++)
		if (context_finding_of(f, check_result(c, r)) && check_context_rule_sent(c, r, item))
			return true;
	return false;
}

/* The items or reads of the finding's rules that concern it: rows, or only counted. */
static size_t concern_rows(struct evidence_view *ev, const struct check *c, const struct finding *f, bool items,
			   bool draw)
{
	struct check_context_view v;
	size_t i, n = 0;

	check_context_view(&v, c);
	for (i = 0; items && v.pack && i < v.pack->count; i++)
		if (finding_given(c, f, i) && check_context_item_concerns(c, i, f)) {
			if (draw)
				item_row(ev, &v.pack->items[i]);
			n++;
		}
	for (i = 0; !items && i < check_nresults(c); i++)
		if (context_finding_of(f, check_result(c, i)))
			n += read_rows(ev, check_result(c, i), f, draw);
	return n;
}

/*
 * What the model had of the finding's file, or of the files it names: the
 * pack's items its rules were given there, and their reads of them.
 */
static void finding_context_rows(struct evidence_view *ev, const struct check *c, const struct finding *f)
{
	size_t r, given = 0, reads = 0, items, read;
	const char *off = NULL;
	bool any = false;

	for (r = 0; r < check_nresults(c); r++) {
		const struct rule_result *res = check_result(c, r);

		if (!context_finding_of(f, res) || !res->context)
			continue;
		any = true;
		given += context_rule_items(c, r);
		reads += res->nreads;
		if (!strcmp(res->context, "off"))
			off = context_off_reason(c, r) ? context_off_reason(c, r) : "not asked with it";
	}
	if (!any)
		return;
	if (!given && !reads) {
		line(ev, STYLE_LABEL, "Context on this finding: %s (%s)", off ? "off" : "none",
		     off ? off : "its rule was given nothing of the repository");
		return;
	}
	items = concern_rows(ev, c, f, true, false);
	read = concern_rows(ev, c, f, false, false);
	/* Reads are said where its rules' models made some (with tools). */
	if (!items && !read) {
		line(ev, STYLE_LABEL, "Context on this finding: none of the %zu item%s%s its rule had", given,
		     given == 1 ? "" : "s", reads ? " and reads" : "");
		return;
	}
	if (reads)
		line(ev, STYLE_LABEL, "Context on this finding: %zu item%s, %zu read%s", items, items == 1 ? "" : "s",
		     read, read == 1 ? "" : "s");
	else
		line(ev, STYLE_LABEL, "Context on this finding: %zu item%s", items, items == 1 ? "" : "s");
	concern_rows(ev, c, f, true, true);
	concern_rows(ev, c, f, false, true);
}

static void finding_rows(struct evidence_view *ev, struct view *view, const struct finding *f)
{
	const struct review *r = &view->tui->review;
	const struct evidence *e = &f->evidence;
	char rules[512] = "", place[300];
	size_t i;
	int mark = review_mark_of(r, f->id);

	for (i = 0; i < f->nfrom; i++)
		snprintf(rules + strlen(rules), sizeof(rules) - strlen(rules), "%s%s", i ? ", " : "",
			 f->from_rules[i]);
	line(ev, STYLE_FILE_HEADER, "%s", f->title ? f->title : "(no title)");
	if (f->end_line > f->line)
		snprintf(place, sizeof(place), "%s:%d-%d", f->file, f->line, f->end_line);
	else
		snprintf(place, sizeof(place), "%s:%d", f->file, f->line);
	line(ev, STYLE_DEFAULT, "%s  %s  rule %s%s%s%s  #%lld", severity_name(f->severity), place,
	     f->rule_id, f->nfrom > 1 ? " (merged from " : "", f->nfrom > 1 ? rules : "",
	     f->nfrom > 1 ? ")" : "", (long long)f->id);
	if (e->impact)
		line(ev, STYLE_LABEL, "Impact: a problem in %s, in code the change did not touch", f->file);
	line(ev, f->verified ? STYLE_RULE_OK : STYLE_RULE_FAILED, "revline: %s",
	     f->verified ? "verified" : "NOT verified");
	wrapped(ev, f->verify_note ? f->verify_note : "", f->verified ? STYLE_RULE_OK : STYLE_RULE_FAILED);
	if (f->suppressed)
		line(ev, STYLE_MARK, "marked false positive before (hidden unless v)");
	if (mark >= 0)
		line(ev, STYLE_MARK, "your mark: %s", mark_name((enum feedback_kind)mark));
	if (f->issue) {
		line(ev, STYLE_LABEL, "Issue");
		wrapped(ev, f->issue, STYLE_DEFAULT);
	}
	if (f->suggestion) {
		line(ev, STYLE_LABEL, "Suggestion");
		wrapped(ev, f->suggestion, STYLE_DEFAULT);
	}
	if (e->range_start || e->range_end)
		line(ev, STYLE_LABEL, "Code examined (lines %d-%d)", e->range_start, e->range_end);
	else
		line(ev, STYLE_LABEL, "Code examined");
	if (e->code_examined && *e->code_examined)
		code_rows(ev, e->code_examined);
	else
		line(ev, STYLE_RULE_MUTED, "  (none given)");
	line(ev, STYLE_LABEL, "How it was verified");
	wrapped(ev, e->method ? e->method : "(not said)", STYLE_DEFAULT);
	line(ev, STYLE_LABEL, "Handling elsewhere checked: %s%s%s", e->checked_elsewhere ? "yes" : "no",
	     e->where_checked ? ", " : "", e->where_checked ? e->where_checked : "");
	line(ev, STYLE_LABEL, "Impact finding (outside the diff): %s", e->impact ? "yes" : "no");
	finding_context_rows(ev, view->tui->review.check, f);
}

/* What the rule's requests billed; a cached answer billed it when it was asked, and nothing now. */
static void usage_row(struct evidence_view *ev, const struct rule_result *res)
{
	struct buf text = BUF_INIT;
	struct usage usage;

	usage_of_result(&usage, res);
	if (usage_text(&text, &usage) == 0)
		line(ev, STYLE_DEFAULT, "%s%s", res->cached ? "no cost now; when asked: " : "", text.ptr);
	buf_release(&text);
}

/* What the check's pack came to: found, sent, how long, what the budget left out, why there is none. */
static void pack_row(struct evidence_view *ev, const struct check *c)
{
	struct check_context_view v;
	struct buf text = BUF_INIT;
	size_t i, sent = 0;

	check_context_view(&v, c);
	for (i = 0; v.pack && i < v.pack->count; i++)
		sent += check_context_sent(c, i);
	if (v.pack)
		buf_printf(&text, "the check's pack: %zu item%s found, %zu sent, built in %lld ms", v.pack->count,
			   v.pack->count == 1 ? "" : "s", sent, (long long)(v.index_ms + v.pack_ms));
	if (v.left)
		buf_printf(&text, "; %zu left out for the budget (revline.contextTokens)", v.left);
	if (v.note)
		buf_printf(&text, "%s%s", text.len ? "; " : "", v.note);
	if (text.len)
		rows_wrap(ev, STYLE_RULE_MUTED, text.ptr, 2, 4);
	buf_release(&text);
}

/* What the rule was given of the repository (the pack's items its requests carried) and what its model read. */
static void rule_context_rows(struct evidence_view *ev, const struct check *c, size_t index)
{
	const struct rule_result *res = check_result(c, index);
	struct check_context_view v;
	size_t i, n = context_rule_items(c, index);

	if (!res->context)
		return;
	check_context_view(&v, c);
	if (!strcmp(res->context, "off")) {
		line(ev, STYLE_LABEL, "Context from the repository: off (%s)",
		     context_off_reason(c, index) ? context_off_reason(c, index) : "not asked with it");
		return;
	}
	if (!strcmp(res->context, "nothing found"))
		line(ev, STYLE_LABEL, "Context from the repository: nothing found for its files");
	else
		line(ev, STYLE_LABEL, "Context from the repository (%s): %zu item%s", res->context, n,
		     n == 1 ? "" : "s");
	for (i = 0; v.pack && i < v.pack->count; i++)
		if (check_context_rule_sent(c, index, i))
			item_row(ev, &v.pack->items[i]);
	if (res->rule->context == RULE_CONTEXT_DEEP)
		line(ev, STYLE_RULE_MUTED, "  and, as its front matter says context: deep, the items the shared budget "
		     "left out");
	pack_row(ev, c);
	if (res->nreads) {
		line(ev, STYLE_LABEL, "Read with tools: %zu call%s", res->nreads, res->nreads == 1 ? "" : "s");
		read_rows(ev, res, NULL, true);
	}
}

static void rule_rows(struct evidence_view *ev, struct view *view, size_t index)
{
	const struct check *c = view->tui->review.check;
	const struct rule_result *res = check_result(c, index);
	const struct rule *rule = res->rule;

	if (strcmp(rule->name, rule->id))
		line(ev, STYLE_FILE_HEADER, "%s  %s", rule->id, rule->name);
	else
		line(ev, STYLE_FILE_HEADER, "%s", rule->id);
	line(ev, STYLE_DEFAULT, "%s, %s rule, %s; %s", rule_status_name(res->status),
	     rule->kind == RULE_LOCAL ? "local" : "LLM", severity_name(rule->severity), rule->path);
	if (rule_status_settled(res->status) && res->status != RULE_NOT_RELEVANT && res->status != RULE_SKIPPED) {
		line(ev, STYLE_DEFAULT, "%.1fs, %d request%s%s, %zu finding%s", res->duration_ms / 1000.0,
		     res->attempts, res->attempts == 1 ? "" : "s", res->cached ? " (cached)" : "",
		     res->nfindings, res->nfindings == 1 ? "" : "s");
		usage_row(ev, res);
	}
	if (res->timeout_ms)
		line(ev, STYLE_DEFAULT, "a request may take %lds (%s)", (res->timeout_ms + 999) / 1000,
		     check_timeout_choice(c)->reason);
	if (res->error) {
		line(ev, STYLE_LABEL, res->status == RULE_SKIPPED ? "Why skipped" : "What went wrong");
		wrapped(ev, res->error, STYLE_RULE_FAILED);
	}
	if (res->reasoning) {
		line(ev, STYLE_LABEL, "Reasoning");
		wrapped(ev, res->reasoning, STYLE_DEFAULT);
	}
	rule_context_rows(ev, c, index);
}

static void evidence_prepare(struct view *view)
{
	struct evidence_view *ev = view->data;
	struct tui *tui = view->tui;
	size_t rule = (size_t)-1;
	const struct finding *f = findings_current(tui, &rule);
	const void *shown = f ? (const void *)f : tui->review.check && rule != (size_t)-1 ?
		(const void *)check_result(tui->review.check, rule) : NULL;

	rows_clear(ev);
	ev->width = view->width;
	if (f)
		finding_rows(ev, view, f);
	else if (shown)
		rule_rows(ev, view, rule);
	else
		line(ev, STYLE_EMPTY_TITLE, "Move to a finding to see its evidence.");
	if (shown != ev->shown)
		view->offset = view->lineno = view->col = 0;
	ev->shown = shown;
	view->lines = ev->nrows;
}

static void evidence_draw_line(struct view *view, size_t index, int row, bool selected)
{
	struct evidence_view *ev = view->data;
	const struct erow *er = &ev->rows[index];
	struct text_style ts = { theme_attr(er->style), theme_attr(STYLE_SPECIAL),
				 theme_attr(STYLE_SEARCH_MATCH),
				 view->tui->search.active ? view->tui->search.needle : NULL,
				 view->tui->search.icase };
	int used = 0;

	struct draw_part part = { er->text, strlen(er->text), &ts };

	(void)row;
	(void)selected;
	/* Code is scrolled sideways (h, l), prose is wrapped; either says where it is cut. */
	if (er->code)
		used = draw_str(view->win, view->width, "  ", theme_attr(STYLE_DEFAULT));
	used += draw_parts(view->win, view->width - used, er->code ? view->col : 0, &part, 1);
	draw_fill(view->win, view->width - used, theme_attr(STYLE_DEFAULT));
}

static void evidence_title(struct view *view, struct buf *out)
{
	(void)view;
	buf_puts(out, "Evidence");
}

static bool evidence_request(struct view *view, enum request request)
{
	/* The jump acts on the finding shown here (the marks do from any pane). */
	if (request == REQ_ENTER) {
		struct view *findings = &view->tui->views[VIEW_FINDINGS];

		return findings->ops->request(findings, request);
	}
	return false;
}

static bool evidence_matches(struct view *view, size_t index, const char *needle, bool icase)
{
	struct evidence_view *ev = view->data;

	return text_contains(ev->rows[index].text, strlen(ev->rows[index].text), needle, icase);
}

static int evidence_init(struct view *view)
{
	view->data = calloc(1, sizeof(struct evidence_view));
	view->has_cursor = false;
	return view->data ? 0 : -1;
}

static void evidence_view_free(struct view *view)
{
	struct evidence_view *ev = view->data;

	if (ev) {
		rows_clear(ev);
		free(ev->rows);
	}
	free(ev);
	view->data = NULL;
}

const struct view_ops evidence_view_ops = {
	.name = "evidence",
	.keys = "a accept|x reject|f false positive|F fix|y copy",
	.init = evidence_init,
	.prepare = evidence_prepare,
	.draw_line = evidence_draw_line,
	.title = evidence_title,
	.request = evidence_request,
	.matches = evidence_matches,
	.free = evidence_view_free,
};
