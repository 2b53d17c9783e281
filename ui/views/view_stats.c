/*
 * Statistics, full screen: the figures of `revline stats`, with bar charts
 * of the time to fix and of the fix types drawn in the terminal, a table
 * per rule, and the benchmark's newest runs. Read again whenever the store
 * has changed (a fix marked incorrect in history shows here at once).
 */
#include "bench_history.h"
#include "draw.h"
#include "history.h"
#include "lines.h"
#include "status.h"
#include "tui.h"
#include "usage.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_WIDTH 13          /* the totals' labels */
#define BENCH_RUNS_SHOWN 5      /* as revline stats */

struct stats_view {
	bool loaded;
	struct history_version version;
	char *repo;                     /* the store's key of the repository */
	struct history_stats stats;
	struct bench_history_run *runs;         /* the benchmark's newest runs */
	size_t nruns;
	char error[512];                /* why the statistics could not be read */
	struct lines lines;
};

struct bar {
	const char *label;
	long value;
};

static void reread(struct stats_view *sv, struct tui *tui)
{
	bool changed = history_changed(&sv->version, tui->review.store);

	if (sv->loaded && !changed)
		return;
	history_stats_release(&sv->stats);
	bench_history_free(sv->runs, sv->nruns);
	sv->runs = NULL;
	sv->nruns = 0;
	sv->error[0] = '\0';
	sv->loaded = true;
	if (!sv->repo &&
	    !(sv->repo = history_repo_key(tui->repo->workdir ? tui->repo->workdir : tui->repo->gitdir)))
		snprintf(sv->error, sizeof(sv->error), "out of memory");
	else if (history_stats(&sv->stats, tui->review.store, &(struct history_scope){ .path = sv->repo }) < 0 ||
		 bench_history(&sv->runs, &sv->nruns, tui->review.store, &(struct history_scope){ .path = sv->repo },
			       BENCH_RUNS_SHOWN) < 0)
		snprintf(sv->error, sizeof(sv->error), "%s", error_message());
}

/*
 * A bar value / max of width columns: full blocks and an eighth block for
 * what is left in a UTF-8 locale, '#' otherwise. A value above zero always
 * shows.
 */
static void bar_add(struct lines *l, enum style style, long value, long max, int width)
{
	static const char *const eighths[8] = {
		"", "\xe2\x96\x8f", "\xe2\x96\x8e", "\xe2\x96\x8d", "\xe2\x96\x8c", "\xe2\x96\x8b",
		"\xe2\x96\x8a", "\xe2\x96\x89",
	};
	bool utf8 = MB_CUR_MAX > 1;
	long per = utf8 ? 8 : 1, units, i;
	struct buf text = BUF_INIT;

	if (value <= 0 || max <= 0 || width <= 0)
		return;
	units = (long)((double)value / (double)max * (double)(width * per) + 0.5);
	if (units < 1)
		units = 1;
	for (i = 0; i < units / per; i++)
		buf_puts(&text, utf8 ? "\xe2\x96\x88" : "#");
	buf_puts(&text, eighths[units % per]);
	if (text.ptr)
		lines_add(l, style, "%s", text.ptr);
	buf_release(&text);
}

static void heading(struct lines *l, const char *text)
{
	lines_row(l, -1);
	lines_row(l, -1);
	lines_add(l, STYLE_DEFAULT, " ");
	lines_add(l, STYLE_HELP_GROUP, "%s", text);
}

/* A bar chart: label, count, share of the total, and the bar scaled to the largest. */
static void chart(struct lines *l, const struct bar *bars, size_t n, int label_w, int width)
{
	long max = 0, total = 0;
	int count_w = 1, bar_w, w;
	char count[32];
	size_t i;

	for (i = 0; i < n; i++) {
		total += bars[i].value;
		max = bars[i].value > max ? bars[i].value : max;
		w = snprintf(count, sizeof(count), "%ld", bars[i].value);
		count_w = w > count_w ? w : count_w;
	}
	/* "   LABEL  COUNT  PCT%  BAR", one column spare. */
	bar_w = width - (3 + label_w + 2 + count_w + 2 + 4 + 2) - 1;
	for (i = 0; i < n; i++) {
		lines_row(l, -1);
		lines_add(l, STYLE_DEFAULT, "   ");
		lines_pad(l, STYLE_DEFAULT, bars[i].label, label_w + 2);
		lines_add(l, STYLE_DEFAULT, "%*ld  %3.0f%%  ", count_w, bars[i].value,
			  total ? 100.0 * (double)bars[i].value / (double)total : 0.0);
		bar_add(l, STYLE_RULE_OK, bars[i].value, max, bar_w < 8 ? 8 : bar_w);
	}
}

static void total_row(struct lines *l, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void total_row(struct lines *l, const char *label, const char *fmt, ...)
{
	char text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	lines_row(l, -1);
	lines_add(l, STYLE_DEFAULT, " ");
	lines_pad(l, STYLE_LABEL, label, LABEL_WIDTH);
	lines_add(l, STYLE_DEFAULT, "%s", text);
}

static void totals_rows(struct lines *l, const struct history_stats *s)
{
	char average[32], p95[32];

	total_row(l, "Checks", "%ld", s->checks);
	total_row(l, "Violations", "%ld", s->violations);
	total_row(l, "Fixes", "%ld", s->fixes);
	total_row(l, "Incorrect", "%ld", s->incorrect);
	lines_add(l, STYLE_RULE_MUTED, "  fixes marked incorrect, left out of every other figure");
	total_row(l, "Fix rate", "%.1f%%", s->fix_rate * 100);
	if (!s->timed) {
		total_row(l, "Time to fix", "- (no fix with a time yet)");
		return;
	}
	history_duration_text(average, sizeof(average), s->average_seconds);
	history_duration_text(p95, sizeof(p95), (double)s->p95_seconds);
	total_row(l, "Time to fix", "average %s, p95 %s (%ld fix%s with a time)", average, p95,
		  s->timed, s->timed == 1 ? "" : "es");
}

/* What the checks billed, the cost estimated from the model table, and how many checks at a cost not known. */
static void usage_rows(struct lines *l, const struct history_stats *s)
{
	struct buf text = BUF_INIT;
	char cost[32];

	if (usage_tokens_text(&text, &s->usage) == 0)
		total_row(l, "Tokens", "%s", text.ptr);
	buf_release(&text);
	usage_cost_text(cost, sizeof(cost), s->usage.cost_usd);
	if (s->unpriced && s->usage.cost_usd >= 0)
		total_row(l, "Est. cost", "%s (and %ld check%s of unknown cost)", cost, s->unpriced,
			  s->unpriced == 1 ? "" : "s");
	else
		total_row(l, "Est. cost", "%s", cost);
}

static void charts_rows(struct lines *l, const struct history_stats *s, int width)
{
	struct bar times[BUCKET_COUNT], types[FIX_TYPE_COUNT];
	int i, label_w = 0;

	for (i = 0; i < BUCKET_COUNT; i++)
		times[i] = (struct bar){ history_bucket_name((enum history_bucket)i), s->buckets[i] };
	for (i = 0; i < FIX_TYPE_COUNT; i++)
		types[i] = (struct bar){ history_fix_type_name((enum history_fix_type)i), s->fix_types[i] };
	/* One label column for both charts, so that their bars line up. */
	for (i = 0; i < FIX_TYPE_COUNT; i++)
		if ((int)strlen(types[i].label) > label_w)
			label_w = (int)strlen(types[i].label);
	heading(l, "Time to fix");
	chart(l, times, BUCKET_COUNT, label_w, width);
	heading(l, "Fix types");
	chart(l, types, FIX_TYPE_COUNT, label_w, width);
}

static void rules_rows(struct lines *l, const struct history_stats *s)
{
	int rule_w = 4;
	size_t i;

	heading(l, "Per rule");
	if (!s->nrules) {
		lines_row(l, -1);
		lines_add(l, STYLE_DEFAULT, "   ");
		lines_add(l, STYLE_EMPTY_TITLE, "No violations or findings yet.");
		return;
	}
	for (i = 0; i < s->nrules; i++)
		if (text_width(s->rules[i].rule_id, strlen(s->rules[i].rule_id)) > rule_w)
			rule_w = text_width(s->rules[i].rule_id, strlen(s->rules[i].rule_id));
	lines_row(l, -1);
	lines_add(l, STYLE_DEFAULT, " ");
	lines_pad(l, STYLE_LABEL, "rule", rule_w + 2);
	lines_add(l, STYLE_LABEL, "violations  fixes  fix rate  findings  false pos.  fp rate");
	for (i = 0; i < s->nrules; i++) {
		const struct history_rule_stats *r = &s->rules[i];

		lines_row(l, -1);
		lines_add(l, STYLE_DEFAULT, " ");
		lines_pad(l, STYLE_DEFAULT, r->rule_id, rule_w + 2);
		lines_add(l, STYLE_DEFAULT, "%10ld  %5ld  %7.1f%%  %8ld  %10ld  %6.1f%%", r->violations,
			  r->fixes, r->fix_rate * 100, r->findings, r->false_positives,
			  r->false_positive_rate * 100);
	}
}

/* The benchmark's newest runs (revline bench): caught, rate, noise, precision, cost, configuration. */
static void bench_rows(struct lines *l, const struct bench_history_run *runs, size_t n)
{
	size_t i;

	heading(l, "Benchmark (revline bench)");
	lines_row(l, -1);
	lines_add(l, STYLE_DEFAULT, " ");
	if (!n) {
		lines_add(l, STYLE_EMPTY_TITLE, "No run yet: revline bench measures the review on this repository's fixes.");
		return;
	}
	lines_add(l, STYLE_LABEL, "  run  status      caught    rate  noise/case  precision        cost  configuration");
	for (i = 0; i < n; i++) {
		struct score_texts t;

		score_texts_make(&t, &runs[i].summary);
		lines_row(l, -1);
		lines_add(l, STYLE_DEFAULT, " %5lld  %-9s  %8s  %6s  %10s  %9s  %10s  ", (long long)runs[i].id,
			  runs[i].status, t.caught, t.rate, t.noise, t.precision, t.cost);
		lines_add(l, STYLE_DEFAULT, "%s", runs[i].config);
	}
}

static void stats_prepare(struct view *view)
{
	struct stats_view *sv = view->data;
	struct tui *tui = view->tui;

	lines_clear(&sv->lines);
	if (tui->review.store)
		reread(sv, tui);
	if (!tui->review.store) {
		lines_row(&sv->lines, -1);
		lines_add(&sv->lines, STYLE_DEFAULT, " ");
		lines_add(&sv->lines, STYLE_RULE_FAILED, "No statistics: %s",
			  tui->review.error[0] ? tui->review.error : "no database");
	} else if (sv->error[0]) {
		lines_row(&sv->lines, -1);
		lines_add(&sv->lines, STYLE_DEFAULT, " ");
		lines_add(&sv->lines, STYLE_RULE_FAILED, "Cannot read the statistics: %s", sv->error);
	} else {
		totals_rows(&sv->lines, &sv->stats);
		usage_rows(&sv->lines, &sv->stats);
		charts_rows(&sv->lines, &sv->stats, view->width);
		rules_rows(&sv->lines, &sv->stats);
		bench_rows(&sv->lines, sv->runs, sv->nruns);
	}
	view->lines = sv->lines.nrows;
}

static void stats_draw_line(struct view *view, size_t line, int row, bool selected)
{
	(void)row;
	lines_draw(&((struct stats_view *)view->data)->lines, view, line, selected);
}

static void stats_title(struct view *view, struct buf *out)
{
	buf_printf(out, "Statistics of repository %s  (q: close)", view->tui->repo->name);
}

static bool stats_request(struct view *view, enum request request)
{
	struct stats_view *sv = view->data;

	switch (request) {
	case REQ_QUIT: case REQ_CANCEL: case REQ_STATS: case REQ_BACK:
		sv->loaded = false;
		tui_overlay(view->tui, NULL);
		return true;
	case REQ_HELP: case REQ_HISTORY: case REQ_DEPS:
		/* Another full-screen view takes this one's place. */
		sv->loaded = false;
		return false;
	default:
		return false;
	}
}

static bool stats_matches(struct view *view, size_t line, const char *needle, bool icase)
{
	return lines_match(&((struct stats_view *)view->data)->lines, line, needle, icase);
}

static int stats_init(struct view *view)
{
	view->data = calloc(1, sizeof(struct stats_view));
	view->has_cursor = false;
	return view->data ? 0 : -1;
}

static void stats_free(struct view *view)
{
	struct stats_view *sv = view->data;

	if (sv) {
		history_stats_release(&sv->stats);
		bench_history_free(sv->runs, sv->nruns);
		lines_release(&sv->lines);
		free(sv->repo);
	}
	free(sv);
	view->data = NULL;
}

const struct view_ops stats_view_ops = {
	.name = "stats",
	.keys = "q close",
	.init = stats_init,
	.prepare = stats_prepare,
	.draw_line = stats_draw_line,
	.title = stats_title,
	.request = stats_request,
	.matches = stats_matches,
	.free = stats_free,
};
