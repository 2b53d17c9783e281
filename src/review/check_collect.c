/* What a check comes to: the requests' answers, each rule's result, the reduce call and the end. */
#include "check_state.h"
#include "suppress.h"
#include "clock.h"
#include "evidence.h"
#include "feedback.h"
#include "reduce.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int file_reader_read(void *ctx, const char *path, bool old_side, struct buf *out)
{
	struct check *c = ctx;

	return repo_read(out, c->repo, c->target, path, old_side);
}

/* The evidence check, the fingerprint, an inline "revline: ignore", and what reviewers said of it before. */
static void findings_verify(struct check *c, struct finding *f, size_t n)
{
	const struct file_reader reader = { file_reader_read, c };
	struct evidence_files *files = NULL;
	struct suppress_files *ignores = NULL;
	size_t i;

	if (evidence_files_new(&files, &reader) < 0 || suppress_files_new(&ignores, &reader) < 0) {
		evidence_files_free(files);
		return;
	}
	for (i = 0; i < n; i++) {
		/* A local rule's finding outside the diff (a commit message) comes verified by revline's own reading. */
		if (!f[i].verified)
			evidence_check(&f[i], c->diff, files);
		finding_fingerprint(&f[i]);
		if (suppress_inline(&f[i], ignores) < 0)
			error_clear();
	}
	if (check_storing(c) && feedback_suppress(c->opts.store, f, n) < 0)
		check_store_failed(c);
	suppress_files_free(ignores);
	evidence_files_free(files);
}

static void rule_settle(struct check *c, size_t index)
{
	struct rule_state *s = &c->states[index];

	findings_verify(c, s->result.findings, s->result.nfindings);
	if (s->started_ms)
		s->result.duration_ms = (long)(clock_ms() - s->started_ms);
	/* Stored before the front end hears of it: what is shown is kept, even if the process dies next. */
	if (check_storing(c) && c->id && store_result_put(c->opts.store, c->id, &s->result) < 0)
		check_store_failed(c);
	c->unsettled--;
	check_event_push(c, CHECK_RULE_SETTLED, index);
}

int check_settle_as(struct check *c, size_t index, enum rule_status status, const char *why)
{
	struct rule_state *s = &c->states[index];

	s->result.status = status;
	if (why && !(s->result.error = strdup(why)))
		return error_nomem();
	rule_settle(c, index);
	return 0;
}

struct local_ctx {
	struct rule_result *r;
	size_t *alloc;          /* the room of r->findings */
	int error;
};

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void local_found(const struct rule_match *m, void *arg)
{
	struct local_ctx *ctx = arg;
	struct rule_result *r = ctx->r;
	struct finding *f;

	if (ctx->error || ARRAY_GROW(r->findings, *ctx->alloc, r->nfindings + 1) < 0) {
		ctx->error = RL_ENOMEM;
		return;
	}
	f = &r->findings[r->nfindings++];
	memset(f, 0, sizeof(*f));
	f->rule_id = strdup(r->rule->id);
	f->file = strdup(m->file);
	f->line = f->end_line = m->line;
	f->severity = m->severity;
	f->category = dup_or_null(r->rule->category);
	f->title = strdup(m->title ? m->title : r->rule->name);
	if (m->issue)
		f->issue = strdup(m->issue);
	else if (asprintf(&f->issue, "An added line matches the pattern of %s.", r->rule->id) < 0)
		f->issue = NULL;
	f->suggestion = dup_or_null(m->suggestion);
	f->evidence.code_examined = strndup(m->code, m->len);
	f->evidence.range_start = f->evidence.range_end = m->line;
	f->evidence.method = dup_or_null(m->method);
	/* A commit message is no file of the diff: revline read it itself, which is the evidence. */
	if (m->outside) {
		f->verified = true;
		if (asprintf(&f->verify_note, FINDING_IN_MESSAGE "%s, line %d", m->file, m->line) < 0)
			f->verify_note = NULL;
	}
	if (!f->rule_id || !f->file || !f->title || !f->issue || !f->evidence.code_examined ||
	    (m->outside && !f->verify_note))
		ctx->error = RL_ENOMEM;
}

/* How many commits' messages a check that reads them reads: as many as a review could ever be about. */
#define LOCAL_COMMITS_MAX 200

/* The commit messages of the change, for a local rule that reads them. */
static int local_texts(struct check *c, struct local_ctx *ctx, size_t index)
{
	struct repo_commits commits;
	struct rule_text *texts = NULL;
	char (*names)[16] = NULL;
	size_t i;
	int error;

	if ((error = repo_commits(&commits, c->repo, c->target, LOCAL_COMMITS_MAX)) < 0)
		return error;
	if (commits.count && (!(texts = calloc(commits.count, sizeof(*texts))) ||
			      !(names = calloc(commits.count, sizeof(*names))))) {
		error = error_nomem();
		goto done;
	}
	for (i = 0; i < commits.count; i++) {
		snprintf(names[i], sizeof(names[i]), "commit %s", commits.items[i].id);
		texts[i] = (struct rule_text){ names[i], commits.items[i].message };
	}
	error = rule_match_texts(c->states[index].result.rule, texts, commits.count, local_found, ctx);
done:
	free(texts);
	free(names);
	repo_commits_release(&commits);
	return error < 0 ? error : 0;
}

/* A local rule runs at once, offline: on the added lines, and on the commit messages when it reads them. */
int check_run_local(struct check *c, size_t index)
{
	struct rule_result *r = &c->states[index].result;
	struct local_ctx ctx = { r, &c->states[index].findings_alloc, 0 };
	size_t i;
	int error;

	for (i = 0; i < c->diff->nfiles && !ctx.error; i++) {
		if (!check_rule_wants(c, r->rule, &c->diff->files[i]))
			continue;
		if ((error = diff_file_load(c->diff, i)) < 0)
			return error;
		if ((error = rule_match_local(r->rule, &c->diff->files[i], local_found, &ctx)) < 0)
			return check_settle_as(c, index, RULE_ERROR, error_message());
	}
	if (!ctx.error && rule_reads_texts(r->rule) && (error = local_texts(c, &ctx, index)) < 0)
		return check_settle_as(c, index, RULE_ERROR, error_message());
	if (ctx.error)
		return error_nomem();
	return check_settle_as(c, index, r->nfindings ? RULE_ATTENTION : RULE_COMPLIANT, NULL);
}

static void rule_collect(struct check *c, size_t index);

static void chunk_settled(struct check *c, struct chunk *k)
{
	struct rule_state *s = &c->states[k->rule];

	k->settled = true;
	if (++s->settled == s->nchunks)
		rule_collect(c, k->rule);
}

void check_chunk_fail(struct check *c, struct chunk *k, enum rule_status status, const char *why)
{
	k->status = status;
	free(k->error);
	k->error = strdup(why);
	chunk_settled(c, k);
}

static void reduce_answer(struct check *c, const char *text, size_t len);

static void chunk_answer(struct check *c, struct chunk *k, const char *text, size_t len)
{
	if (k == &c->reduce) {
		reduce_answer(c, text, len);
		return;
	}
	if (answer_parse(&k->answer, text, len, c->states[k->rule].result.rule) < 0) {
		struct buf why = BUF_INIT;

		buf_printf(&why, "the answer cannot be used: %s", error_message());
		check_chunk_fail(c, k, RULE_ERROR, why.ptr);
		buf_release(&why);
		return;
	}
	k->status = k->answer.status;
	chunk_settled(c, k);
}

static int strings_append(char ***items, size_t *count, size_t *alloc, char **more, size_t nmore)
{
	if (!nmore)
		return 0;
	if (ARRAY_GROW(*items, *alloc, *count + nmore) < 0)
		return RL_ENOMEM;
	memcpy(*items + *count, more, nmore * sizeof(char *));
	*count += nmore;
	return 0;
}

/* The answer's findings and file references move to the rule's result (the answer keeps them when there is no room). */
static void answer_take(struct rule_state *s, struct map_answer *answer)
{
	struct rule_result *r = &s->result;

	if (answer->nfindings && ARRAY_GROW(r->findings, s->findings_alloc, r->nfindings + answer->nfindings) == 0) {
		memcpy(r->findings + r->nfindings, answer->findings, answer->nfindings * sizeof(*r->findings));
		r->nfindings += answer->nfindings;
		free(answer->findings);
		answer->findings = NULL;
		answer->nfindings = 0;
	}
	if (strings_append(&r->file_references, &r->nrefs, &s->refs_alloc, answer->file_references,
			   answer->nrefs) == 0) {
		free(answer->file_references);
		answer->file_references = NULL;
		answer->nrefs = 0;
	}
}

/*
 * Why a verdict that clears the change (compliant, not relevant) is not to
 * be trusted: its reason is the change's own words (evidence_steered);
 * else NULL. An answer that reports problems may quote those words to
 * report them.
 */
static char *unverified(enum rule_status status, const char *reasoning)
{
	struct buf why = BUF_INIT, text = BUF_INIT;

	if ((status == RULE_COMPLIANT || status == RULE_NOT_RELEVANT) && evidence_steered(&why, reasoning))
		buf_printf(&text, "unverified: the answer gives the change's own words as its reason, not code "
			   "it read (\"%s\")", why.ptr);
	buf_release(&why);
	return text.len ? buf_detach(&text) : NULL;
}

/* The rule's result is the union of its chunks'. */
static void rule_collect(struct check *c, size_t index)
{
	struct rule_state *s = &c->states[index];
	struct rule_result *r = &s->result;
	bool timeout = false, failed = false, attention = false, relevant = false, cached = true;
	struct buf reasoning = BUF_INIT, errors = BUF_INIT;
	size_t i;

	for (i = 0; i < s->nchunks; i++) {
		struct chunk *k = s->chunks[i];

		timeout |= k->status == RULE_TIMEOUT;
		failed |= k->status == RULE_ERROR;
		attention |= k->status == RULE_ATTENTION;
		relevant |= k->status == RULE_COMPLIANT || k->status == RULE_ATTENTION;
		cached &= k->cached;
		r->attempts += k->attempts;
		r->tokens_in += k->tokens_in;
		r->tokens_cached += k->tokens_cached;
		r->tokens_cache_write += k->tokens_cache_write;
		r->tokens_out += k->tokens_out;
		r->cost_usd = r->cost_usd < 0 || k->cost_usd < 0 ? -1 : r->cost_usd + k->cost_usd;
		if (k->error && s->nchunks > 1)
			buf_printf(&errors, "%spart %d of %d: %s", errors.len ? "; " : "", k->part,
				   k->parts, k->error);
		else if (k->error)
			buf_puts(&errors, k->error);
		if (k->answer.reasoning && s->nchunks > 1)
			buf_printf(&reasoning, "%sPart %d of %d: %s", reasoning.len ? "\n\n" : "",
				   k->part, k->parts, k->answer.reasoning);
		else if (k->answer.reasoning)
			buf_puts(&reasoning, k->answer.reasoning);
		r->findings_dropped += k->answer.findings_dropped;
		answer_take(s, &k->answer);
	}
	r->status = timeout ? RULE_TIMEOUT : failed ? RULE_ERROR : attention ? RULE_ATTENTION :
		relevant ? RULE_COMPLIANT : RULE_NOT_RELEVANT;
	r->cached = cached;
	r->reasoning = reasoning.len ? buf_detach(&reasoning) : NULL;
	r->error = errors.len ? buf_detach(&errors) : unverified(r->status, r->reasoning);
	buf_release(&reasoning);
	buf_release(&errors);
	rule_settle(c, index);
}

static bool reduce_wanted(const struct check *c, const struct finding *f)
{
	return (!f->suppressed || c->opts.show_suppressed) && (f->verified || c->opts.show_unverified);
}

static int reduce_collect(struct check *c)
{
	size_t i, k, n = 0;
	int error = 0;

	for (i = 0; i < c->nstates; i++)
		n += c->states[i].result.nfindings;
	if (!(c->reduce_input = calloc(n + 1, sizeof(struct finding))))
		return error_nomem();
	for (i = 0; i < c->nstates && !error; i++) {
		const struct rule_result *r = &c->states[i].result;

		for (k = 0; k < r->nfindings && !error; k++) {
			const struct finding *f = &r->findings[k];

			if (!reduce_wanted(c, f))
				continue;
			if ((error = finding_copy(&c->reduce_input[c->nreduce_input], f)) == 0)
				c->nreduce_input++;
		}
	}
	return error;
}

/* Rule files too broken to load: each is a rule the check skipped. */
static size_t rules_broken(const struct check *c)
{
	size_t i, n = 0;

	for (i = 0; i < c->rules.nproblems; i++)
		n += c->rules.problems[i].fatal;
	return n;
}

static const char *final_status(const struct check *c)
{
	size_t i, ok = 0, bad = 0, skipped = rules_broken(c);

	if (c->cancelled)
		return "cancelled";
	for (i = 0; i < c->nstates; i++) {
		enum rule_status s = c->states[i].result.status;

		ok += s == RULE_COMPLIANT || s == RULE_ATTENTION || s == RULE_NOT_RELEVANT;
		bad += s == RULE_ERROR || s == RULE_TIMEOUT;
		skipped += s == RULE_SKIPPED;
	}
	if (bad && !ok)
		return "failed";
	return bad || skipped ? "partial" : "complete";
}

size_t check_not_run(const struct check *c, size_t *total)
{
	size_t i, n = rules_broken(c);

	*total = c->nstates + n;
	for (i = 0; i < c->nstates; i++) {
		enum rule_status s = c->states[i].result.status;

		n += s == RULE_ERROR || s == RULE_TIMEOUT || s == RULE_SKIPPED;
	}
	return n;
}

int check_incomplete_text(struct buf *out, const struct check *c)
{
	size_t total, n = check_not_run(c, &total);

	buf_clear(out);
	if (c->cancelled && !n)
		return buf_puts(out, "review cancelled after every rule answered: the findings merged by revline");
	if (c->cancelled)
		return buf_printf(out, "review cancelled: %zu of %zu rule%s did not run", n, total,
				  total == 1 ? "" : "s");
	if (!n)
		return 0;
	return buf_printf(out, "%zu of %zu rule%s did not run: review incomplete", n, total,
			  total == 1 ? "" : "s");
}

static bool not_run(enum rule_status s)
{
	return s == RULE_ERROR || s == RULE_TIMEOUT || s == RULE_SKIPPED;
}

static bool same_reason(const struct rule_result *a, const struct rule_result *b)
{
	return a->status == b->status && !strcmp(a->error ? a->error : "", b->error ? b->error : "");
}

/* The rules from index on that did not run for the same reason as the one at index, if it is its first. */
static int reason_line(struct buf *out, const struct check *c, size_t index)
{
	const struct rule_result *r = &c->states[index].result, *o;
	size_t k, n = 0;
	int error = 0;

	for (k = 0; k < index; k++)
		if (not_run(c->states[k].result.status) && same_reason(&c->states[k].result, r))
			return 0;
	buf_puts(out, "- ");
	for (k = index; k < c->nstates; k++) {
		o = &c->states[k].result;
		if (not_run(o->status) && same_reason(o, r))
			buf_printf(out, "%s%s", n++ ? ", " : "", o->rule->id);
	}
	if (n > 1)
		buf_printf(out, " (%zu rules)", n);
	error = buf_printf(out, ": %s%s%s\n", r->status == RULE_TIMEOUT ? "timed out" :
			   r->status == RULE_SKIPPED ? "skipped" : "failed", r->error ? ": " : "",
			   r->error ? r->error : "");
	return error;
}

int check_not_run_lines(struct buf *out, const struct check *c)
{
	size_t i;
	int error = 0;

	buf_clear(out);
	for (i = 0; i < c->nstates && !error; i++)
		if (not_run(c->states[i].result.status))
			error = reason_line(out, c, i);
	for (i = 0; i < c->rules.nproblems && !error; i++) {
		const struct rule_problem *p = &c->rules.problems[i];

		if (!p->fatal)
			continue;
		buf_printf(out, "- %s", p->path);
		if (p->line)
			buf_printf(out, ":%d", p->line);
		error = buf_printf(out, ": the rule file could not be loaded: %s\n", p->message);
	}
	return error;
}

static bool check_whole(const struct check *c)
{
	size_t total;

	return !c->cancelled && !check_not_run(c, &total);
}

int check_overall_text(struct buf *out, const struct check *c)
{
	const char *overall = c->report.overall_severity ? c->report.overall_severity : "clean";

	buf_clear(out);
	if (check_whole(c))
		return buf_puts(out, overall);
	return buf_printf(out, "%s in the rules that ran (review %s)", overall,
			  c->cancelled ? "cancelled" : "incomplete");
}

/* A report of nothing found says what it covers when the review is not whole. */
static void summary_scope(struct check *c)
{
	char *summary;

	if (c->report.nfindings || check_whole(c) || !(summary = strdup("No issues found by the rules that ran.")))
		return;
	free(c->report.summary);
	c->report.summary = summary;
}

/*
 * The status the store records: a check whose results were not all stored
 * is at best partial there, whatever the review itself came to.
 */
static const char *stored_status(const struct check *c)
{
	return c->store_error && !strcmp(c->status, "complete") ? "partial" : c->status;
}

/*
 * The end is written even after a failure (the fault may have passed), so
 * the record says partial rather than running; if it fails too, the check
 * stays 'running' until the next open marks it interrupted.
 */
static void check_finish(struct check *c)
{
	c->duration_ms = (long)(clock_ms() - c->started_ms);
	c->status = final_status(c);
	summary_scope(c);
	if (c->opts.store && c->id && store_check_finish(c->opts.store, c->id, stored_status(c), c->duration_ms,
							 &c->stats, &c->report) < 0)
		check_store_failed(c);
	c->done = true;
	check_event_push(c, CHECK_DONE, 0);
}

static void reduce_fall_back(struct check *c, const char *reason)
{
	report_release(&c->report);
	if (reduce_fallback(&c->report, c->reduce_input, c->nreduce_input, reason) < 0)
		c->report.summary = strdup(error_message());
	check_finish(c);
}

static void reduce_answer(struct check *c, const char *text, size_t len)
{
	struct buf why = BUF_INIT;

	report_release(&c->report);
	if (reduce_parse(&c->report, text, len, c->reduce_input, c->nreduce_input) == 0) {
		check_finish(c);
		return;
	}
	buf_printf(&why, "the reduce answer cannot be used: %s", error_message());
	reduce_fall_back(c, why.ptr);
	buf_release(&why);
}

static void reduce_start(struct check *c)
{
	struct reduce_context ctx = { c->target->description, c->diff->nfiles, c->intent };
	struct buf sys = BUF_INIT, user = BUF_INIT;

	if (reduce_collect(c) < 0) {
		reduce_fall_back(c, error_message());
		return;
	}
	if (c->nreduce_input < 2 || c->cancelled) {
		reduce_fall_back(c, NULL);
		return;
	}
	if (c->opts.no_reduce || c->opts.llm->provider == PROVIDER_NONE) {
		reduce_fall_back(c, c->opts.no_reduce ? "the reduce call is off (revline.reduce)" :
				 "no LLM is configured");
		return;
	}
	if (reduce_prompt(&sys, &user, c->reduce_input, c->nreduce_input, &ctx) < 0) {
		reduce_fall_back(c, error_message());
		goto done;
	}
	c->reduce = (struct chunk){ .check = c };
	c->reduce.system = buf_detach(&sys);
	c->reduce.tail = buf_detach(&user);
	c->reduce.weight = strlen(c->reduce.system) + strlen(c->reduce.tail);
	c->reducing = true;
	if (check_chunk_submit(c, &c->reduce, c->opts.llm->reduce_model) < 0) {
		reduce_fall_back(c, error_message());
		goto done;
	}
	check_event_push(c, CHECK_REDUCE_STARTED, 0);
done:
	buf_release(&sys);
	buf_release(&user);
}

/* After every state change: when the last rule settles, reduce (local rules may settle before the others start). */
void check_advance(struct check *c)
{
	if (c->rules_started && !c->unsettled && !c->reducing && !c->done)
		reduce_start(c);
}

static void on_started(struct check *c, struct chunk *k)
{
	struct rule_state *s;

	if (k == &c->reduce)
		return;
	s = &c->states[k->rule];
	if (!s->started_ms) {
		s->started_ms = clock_ms();
		s->result.status = RULE_RUNNING;
		check_event_push(c, CHECK_RULE_STARTED, k->rule);
	}
}

/* Costs add up; one not known makes the sum not known. */
static double cost_add(double sum, double cost)
{
	return sum < 0 || cost < 0 ? -1 : sum + cost;
}

static void on_done(struct check *c, struct chunk *k, const struct ask_event *ev)
{
	k->cached = ev->cached;
	k->tokens_in += ev->usage.tokens_in;
	k->tokens_cached += ev->usage.tokens_cached;
	k->tokens_cache_write += ev->usage.tokens_cache_write;
	k->tokens_out += ev->usage.tokens_out;
	k->cost_usd = cost_add(k->cost_usd, ev->usage.cost_usd);
	if (ev->cached) {
		c->stats.cache_hits++;
	} else {
		c->stats.tokens_in += ev->usage.tokens_in;
		c->stats.tokens_cached += ev->usage.tokens_cached;
		c->stats.tokens_cache_write += ev->usage.tokens_cache_write;
		c->stats.tokens_out += ev->usage.tokens_out;
		c->stats.cost_usd = cost_add(c->stats.cost_usd, ev->usage.cost_usd);
	}
	chunk_answer(c, k, ev->text, strlen(ev->text));
}

static void on_failed(struct check *c, struct chunk *k, const struct ask_event *ev)
{
	if (k == &c->reduce) {
		struct buf reason = BUF_INIT;

		buf_printf(&reason, "the reduce call failed: %s", ev->error);
		reduce_fall_back(c, reason.ptr);
		buf_release(&reason);
		return;
	}
	check_chunk_fail(c, k, ev->status == ASK_TIMEOUT ? RULE_TIMEOUT : RULE_ERROR, ev->error);
}

/* A rule's streamed answers so far, summed over its requests. */
static void on_progress(struct check *c, struct chunk *k, const struct ask_event *ev)
{
	struct rule_state *s;
	size_t i;

	k->streamed = ev->streamed;
	if (k == &c->reduce)
		return;
	s = &c->states[k->rule];
	for (i = 0, s->result.tokens_streamed = 0; i < s->nchunks; i++)
		s->result.tokens_streamed += s->chunks[i]->streamed;
	check_event_push(c, CHECK_RULE_PROGRESS, k->rule);
}

void check_handle_event(struct check *c, const struct ask_event *ev)
{
	struct chunk *k = ev->user;

	if (ev->status == ASK_STARTED) {
		on_started(c, k);
		return;
	}
	if (ev->status == ASK_PROGRESS) {
		on_progress(c, k, ev);
		return;
	}
	k->attempts += ev->attempts;
	c->stats.requests += ev->attempts;
	if (k != &c->reduce)
		check_context_reads(c, k, ev);
	if (ev->store_failed) {
		check_store_failed(c);
		asker_drop_store(c->asker);
	}
	if (ev->status == ASK_DONE)
		on_done(c, k, ev);
	else
		on_failed(c, k, ev);
}
