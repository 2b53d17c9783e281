/* A check in the terminal UI: the engine driven from the UI's loop. */
#include "review.h"
#include "array.h"
#include "clock.h"
#include "config.h"
#include "models.h"
#include "usage.h"
#include "status.h"
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SPINNER_MS 100

int review_init(struct review *r, struct tui *tui)
{
	struct buf path = BUF_INIT;

	memset(r, 0, sizeof(*r));
	r->tui = tui;
	if (config_open(&r->config, tui->repo) < 0 || llm_config_load(&r->llm, r->config) < 0 ||
	    store_default_path(&path, r->config) < 0 || store_open(&r->store, path.ptr) < 0 ||
	    store_author_load(r->store, r->config) < 0) {
		snprintf(r->error, sizeof(r->error), "%s", error_message());
		store_close(r->store);
		r->store = NULL;
	}
	buf_release(&path);
	return 0;
}

void review_release(struct review *r)
{
	/* Quitting mid-check keeps what arrived: the check is stored as cancelled. */
	if (review_running(r))
		check_cancel(r->check);
	fixdetect_free(r->fixes);
	check_free(r->check);
	store_close(r->store);
	llm_config_release(&r->llm);
	config_free(r->config);
	free(r->marks);
	memset(r, 0, sizeof(*r));
}

int64_t review_fixes_unfinished(const struct review *r)
{
	return r->fixes && !fixdetect_done(r->fixes) ? check_id(r->check) : 0;
}

bool review_running(const struct review *r)
{
	return r->check && !check_done(r->check);
}

static void dirty_panes(struct tui *tui)
{
	view_dirty(&tui->views[VIEW_FINDINGS]);
	view_dirty(&tui->views[VIEW_EVIDENCE]);
	view_dirty(&tui->views[VIEW_DIFF]);
	if (tui->overlay)
		view_dirty(tui->overlay);
	tui->status_dirty = true;
}

/* Fix detection runs in this process once the check is done, so history shows it live. */
static void fixes_start(struct review *r)
{
	struct fixdetect_options opts = { .llm = &r->llm, .group = &r->tui->loop.group, .once = true };

	fixdetect_free(r->fixes);
	r->fixes = NULL;
	if (!r->store || !check_id(r->check))
		return;
	if (sched_options_load(&opts.sched, r->config) < 0 || asker_options_load(&opts.ask, r->config) < 0 ||
	    fixdetect_new(&r->fixes, r->store, check_id(r->check), &opts) < 0 ||
	    fixdetect_start(r->fixes) < 0) {
		tui_message(r->tui, true, "fix detection: %s", error_message());
		fixdetect_free(r->fixes);
		r->fixes = NULL;
	}
}

/* The loop's figures of this check join those of the earlier ones. */
static void stats_check_done(struct review *r)
{
	const struct loop_stats *l = &r->tui->loop.stats;

	if (l->busy_max_us > r->stats.loop.busy_max_us)
		r->stats.loop.busy_max_us = l->busy_max_us;
	r->stats.loop.busy_sum_us += l->busy_sum_us;
	r->stats.loop.stretches += l->stretches;
	r->stats.checks++;
}

void review_drawn(struct review *r)
{
	int64_t took;

	if (!r->stats.settled_at_us)
		return;
	took = clock_us() - r->stats.settled_at_us;
	if (took > r->stats.to_screen_max_us)
		r->stats.to_screen_max_us = took;
	r->stats.to_screen_sum_us += took * r->stats.settled;
	r->stats.to_screen_count += r->stats.settled;
	r->stats.settled_at_us = 0;
	r->stats.settled = 0;
}

int review_stats_write(const struct review *r, const char *path)
{
	const struct review_stats *s = &r->stats;
	FILE *fp = fopen(path, "w");
	int rc;

	if (!fp)
		return -1;
	fprintf(fp, "{\"checks\": %ld, \"loop_stretches\": %ld, \"loop_busy_max_us\": %lld, "
		"\"loop_busy_sum_us\": %lld, \"answers_drawn\": %ld, \"to_screen_max_us\": %lld, "
		"\"to_screen_sum_us\": %lld}\n", s->checks, s->loop.stretches,
		(long long)s->loop.busy_max_us, (long long)s->loop.busy_sum_us, s->to_screen_count,
		(long long)s->to_screen_max_us, (long long)s->to_screen_sum_us);
	rc = ferror(fp) ? -1 : 0;
	return fclose(fp) == 0 ? rc : -1;
}

/* A rule file the check skipped, "path:line: message", said in the status bar; false when none. */
static bool broken_rule_message(struct review *r, const char *before)
{
	const struct rule_set *rules = check_rules(r->check);
	size_t i, fatal = 0;
	const struct rule_problem *p = NULL;
	char line[16];

	for (i = 0; i < rules->nproblems; i++)
		if (rules->problems[i].fatal && fatal++ == 0)
			p = &rules->problems[i];
	if (!p)
		return false;
	line[0] = '\0';
	if (p->line > 0)
		snprintf(line, sizeof(line), ":%d", p->line);
	tui_message(r->tui, true, "%s%s%s: %s (rule skipped%s; revline rules --lint)", before, p->path,
		    line, p->message, fatal > 1 ? ", and more" : "");
	return true;
}

/* "Check 4 partial: 3 findings, 1 rule failed (R retries it; r shows the report)". */
static void done_message(struct review *r)
{
	struct review_counts n;
	size_t found = check_report(r->check)->nfindings;
	char before[64];

	review_count(r, &n);
	snprintf(before, sizeof(before), "Check %lld %s: ", (long long)check_id(r->check), check_status(r->check));
	if (!check_store_error(r->check) && !n.failed && broken_rule_message(r, before))
		return;
	if (check_store_error(r->check))
		tui_message(r->tui, true, "Check %s: %zu finding%s, NOT STORED: %s", check_status(r->check),
			    found, found == 1 ? "" : "s", check_store_error(r->check));
	else if (n.failed)
		tui_message(r->tui, n.failed == n.rules,
			    "Check %lld %s: %zu finding%s, %zu rule%s failed (R retries %s; r shows the %s)",
			    (long long)check_id(r->check), check_status(r->check), found, found == 1 ? "" : "s",
			    n.failed, n.failed == 1 ? "" : "s", n.failed == 1 ? "it" : "them",
			    r->show_report ? "rules" : "report");
	else
		tui_message(r->tui, false, "Check %lld %s: %zu finding%s (r shows the %s)",
			    (long long)check_id(r->check), check_status(r->check), found, found == 1 ? "" : "s",
			    r->show_report ? "rules" : "report");
}

static void check_events(struct review *r, int64_t arrived)
{
	struct check_event ev;
	struct tui *tui = r->tui;

	while (r->check && check_next_event(r->check, &ev)) {
		dirty_panes(tui);
		if (ev.kind == CHECK_RULE_SETTLED) {
			if (!r->stats.settled_at_us)
				r->stats.settled_at_us = arrived;
			r->stats.settled++;
		}
		if (ev.kind == CHECK_STORE_FAILED)
			tui_message(tui, true, "Not stored: %s", check_store_error(r->check));
		if (ev.kind != CHECK_DONE)
			continue;
		stats_check_done(r);
		done_message(r);
		fixes_start(r);
	}
	while (r->fixes) {
		struct fixdetect_event fev;

		if (!fixdetect_next_event(r->fixes, &fev))
			break;
		dirty_panes(tui);
	}
}

static int source_timeout(void *ctx)
{
	struct review *r = ctx;
	int t = -1;

	/* The spinner and the elapsed seconds of running rules. */
	if (review_running(r))
		t = poll_sooner(t, SPINNER_MS);
	return t;
}

static void source_dispatch(void *ctx, const struct pollfd *fds, int n)
{
	struct review *r = ctx;
	/* The answers came with the wait that just ended. */
	int64_t arrived = r->tui->loop.woke_us ? r->tui->loop.woke_us : clock_us();

	(void)fds;
	(void)n;
	if (r->check) {
		if (review_running(r)) {
			view_dirty(&r->tui->views[VIEW_FINDINGS]);
			r->tui->status_dirty = true;
		}
	}
	check_events(r, arrived);
}

static void source_add(struct review *r)
{
	const struct loop_source source = { NULL, source_timeout, source_dispatch, NULL, r, false };

	if (!r->source)
		r->source = loop_add(&r->tui->loop, &source);
}

/* revline.confirmTokens: the first c over it says the estimate and its cost; c again runs the check. */
static bool confirm_wanted(struct review *r, struct check *c, const struct check_options *opts)
{
	const struct model_info *info;
	char count[32], cost[32];
	long tokens;

	if (r->confirm_asked || opts->confirm_tokens <= 0 || r->llm.provider == PROVIDER_NONE ||
	    check_estimate(&tokens, c) < 0 || tokens <= opts->confirm_tokens)
		return false;
	models_lookup(&info, r->llm.models, provider_name(r->llm.provider), r->llm.map_model);
	usage_count_text(count, sizeof(count), tokens);
	usage_cost_text(cost, sizeof(cost), models_cost(info, tokens, 0, 0, 0));
	tui_message(r->tui, true, "This check would send about %s tokens (%s), over revline.confirmTokens: "
		    "c again runs it", count, cost);
	r->confirm_asked = true;
	return true;
}

/* What the check leaves out: the first note, how many more, the untracked files. */
static void scope_message(struct review *r)
{
	size_t notes = check_nnotes(r->check), untracked = check_untracked(r->check);
	char more[64] = "", left[96] = "";

	if (!notes && !untracked)
		return;
	if (notes > 1)
		snprintf(more, sizeof(more), " and %zu more", notes - 1);
	if (untracked)
		snprintf(left, sizeof(left), "%s%zu untracked file%s not reviewed (I adds %s)",
			 notes ? "; " : "", untracked, untracked == 1 ? "" : "s", untracked == 1 ? "it" : "them");
	tui_message(r->tui, false, "Checking: %s%s%s", notes ? check_note(r->check, 0) : "", more, left);
}

int review_start(struct review *r)
{
	struct check_options opts = { 0 };
	struct tui *tui = r->tui;
	struct check *c = NULL;

	if (!tui->diff->nfiles) {
		struct buf what = BUF_INIT;

		/* A check of nothing would say "0 findings" of a change it never saw. */
		tui_empty_summary(tui, &what);
		tui_message(tui, false, "Nothing to check: %s", what.ptr ? what.ptr : "");
		buf_release(&what);
		return RL_EUSAGE;
	}
	opts.llm = &r->llm;
	/* A database that would not open does not stop the review; the status bar says it is not kept. */
	opts.store = r->store;
	if (!r->store)
		opts.store_error = r->error[0] ? r->error : "no database";
	opts.group = &tui->loop.group;
	if (check_options_load(&opts, r->config) < 0 ||
	    check_new(&c, tui->repo, tui->target, tui->diff, &opts) < 0)
		goto fail;
	/* Asked, not started: the check on screen stays, the next c runs this one. */
	if (confirm_wanted(r, c, &opts)) {
		check_free(c);
		return RL_EUSAGE;
	}
	r->confirm_asked = false;
	if (review_running(r))
		check_cancel(r->check);
	fixdetect_free(r->fixes);
	r->fixes = NULL;
	check_free(r->check);
	r->check = c;
	if (check_start(c) < 0)
		goto fail;
	scope_message(r);
	broken_rule_message(r, "");
	source_add(r);
	memset(&tui->loop.stats, 0, sizeof(tui->loop.stats));
	check_events(r, clock_us());
	dirty_panes(tui);
	return 0;
fail:
	tui_message(tui, true, "Cannot check: %s", error_message());
	if (r->check == c)
		r->check = NULL;
	check_free(c);
	return error_status();
}

int review_retry(struct review *r)
{
	if (!r->check) {
		tui_message(r->tui, true, "No check to retry: press c to start one");
		return RL_EUSAGE;
	}
	if (check_retry(r->check) < 0) {
		tui_message(r->tui, true, "%s", error_message());
		return error_status();
	}
	fixdetect_free(r->fixes);
	r->fixes = NULL;
	memset(&r->tui->loop.stats, 0, sizeof(r->tui->loop.stats));
	check_events(r, clock_us());
	dirty_panes(r->tui);
	return 0;
}

void review_cancel(struct review *r)
{
	if (!review_running(r))
		return;
	check_cancel(r->check);
	check_events(r, clock_us());
	tui_message(r->tui, false, "Check cancelled; what arrived is kept (R re-runs the rest)");
	dirty_panes(r->tui);
}

int review_mark_of(const struct review *r, int64_t finding)
{
	size_t i;

	for (i = r->nmarks; i > 0; i--)
		if (r->marks[i - 1].finding == finding)
			return (int)r->marks[i - 1].kind;
	return -1;
}

bool review_hidden(const struct finding *f)
{
	return !f->verified || f->suppressed;
}

bool review_shows(const struct review *r, const struct finding *f)
{
	return r->show_hidden || !review_hidden(f);
}

int review_judge(struct review *r, const struct finding *f, enum feedback_kind kind, const char *note)
{
	int64_t id;
	int error;

	if (!r->store || !f->id)
		return error_set(RL_EUSAGE, "this finding is not stored, so it cannot be marked");
	if ((error = feedback_on_finding(&id, r->store, f->id, kind, note)) < 0)
		return error;
	if ((error = ARRAY_GROW(r->marks, r->marks_alloc, r->nmarks + 1)) < 0)
		return error;
	r->marks[r->nmarks++] = (struct review_mark){ f->id, kind };
	dirty_panes(r->tui);
	return 0;
}

int review_severity_at(const struct review *r, const char *path, int line)
{
	size_t i, k;
	int most = -1;

	for (i = 0; r->check && i < check_nresults(r->check); i++) {
		const struct rule_result *res = check_result(r->check, i);

		for (k = 0; k < res->nfindings; k++) {
			const struct finding *f = &res->findings[k];

			if (review_shows(r, f) && line >= f->line && line <= f->end_line &&
			    !strcmp(f->file, path) && (int)f->severity > most)
				most = (int)f->severity;
		}
	}
	return most;
}

/* One finding the findings pane may list, counted as shown or hidden. */
static void count_finding(const struct review *r, const struct finding *f, struct review_counts *out)
{
	if (review_shows(r, f))
		out->shown++;
	else
		out->hidden++;
	if (review_hidden(f)) {
		out->unverified += !f->verified;
		out->suppressed += f->verified && f->suppressed;
	}
}

void review_count(const struct review *r, struct review_counts *out)
{
	const struct report *rep;
	size_t i, k;

	memset(out, 0, sizeof(*out));
	if (!r->check)
		return;
	out->rules = check_nresults(r->check);
	out->tokens = check_stats(r->check)->tokens_in + check_stats(r->check)->tokens_out;
	rep = r->show_report && check_done(r->check) ? check_report(r->check) : NULL;
	for (i = 0; rep && i < rep->nfindings; i++)
		count_finding(r, &rep->findings[i], out);
	for (i = 0; i < out->rules; i++) {
		const struct rule_result *res = check_result(r->check, i);

		out->settled += rule_status_settled(res->status);
		out->running += res->status == RULE_RUNNING;
		out->failed += res->status == RULE_ERROR || res->status == RULE_TIMEOUT;
		/*
		 * The report lists, with v, the rules' hidden findings: the check
		 * leaves them out of the merge (the UI never asks it to keep them).
		 */
		for (k = 0; k < res->nfindings && (!r->show_report || rep); k++)
			if (!r->show_report || review_hidden(&res->findings[k]))
				count_finding(r, &res->findings[k], out);
	}
}
