/* A run of the benchmark: each case a check of the fix reversed, scored and stored as it ends. */
#include "bench_run.h"
#include "array.h"
#include "queue.h"
#include "status.h"
#include "store_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One case's check and what it stands on. */
struct case_check {
	struct target target;
	struct diff *whole, *diff;
	struct check *check;
	size_t index;           /* the case's, into the cases given */
	bool running;
};

struct bench_run {
	struct repo *repo;
	const struct bench_case *const *cases;
	size_t count, next;
	struct check_options opts;
	int tolerance;
	struct store *store;
	int64_t run_id;
	struct poll_group *group;       /* every case's check in it */
	struct sched_share share;       /* the checks' requests at once, together */
	struct case_check *slots;       /* the cases reviewed at once */
	size_t nslots;
	bool cancelled;
	struct score_case *results;
	bool *have;
	struct queue events;
	char *store_error;
};

static void case_close(struct case_check *cc)
{
	check_free(cc->check);
	diff_free(cc->diff);
	diff_free(cc->whole);
	target_release(&cc->target);
	memset(cc, 0, sizeof(*cc));
}

static int target_fill(struct target *t, const struct bench_case *bc)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->base_oid, sizeof(t->base_oid), "%s", bc->commit);
	snprintf(t->head_oid, sizeof(t->head_oid), "%s", bc->parent);
	t->side = SIDE_TREE;
	if (asprintf(&t->base_label, "fix %.7s", bc->commit) < 0)
		t->base_label = NULL;
	if (asprintf(&t->head_label, "before fix %.7s", bc->commit) < 0)
		t->head_label = NULL;
	if (asprintf(&t->description, "fix %.7s reversed (%.7s..%.7s)", bc->commit, bc->commit, bc->parent) < 0)
		t->description = NULL;
	return t->base_label && t->head_label && t->description ? 0 : error_nomem();
}

/* The reversed change of the fix's code files, and its check (not started). */
static int case_open(struct case_check *cc, struct repo *repo, const struct bench_case *bc,
		     const struct check_options *opts)
{
	const char **paths = calloc(bc->nfiles ? bc->nfiles : 1, sizeof(*paths));
	size_t i;
	int error;

	memset(cc, 0, sizeof(*cc));
	if (!paths)
		return error_nomem();
	for (i = 0; i < bc->nfiles; i++)
		paths[i] = bc->files[i].path;
	if ((error = target_fill(&cc->target, bc)) < 0 || (error = repo_diff(&cc->whole, repo, &cc->target)) < 0 ||
	    (error = diff_filter_files(&cc->diff, cc->whole, paths, bc->nfiles)) < 0)
		goto done;
	if (!cc->diff->nfiles) {
		error = error_set(RL_ENOTFOUND, "fix %.12s: its files are not in its reversed change (%s)",
				  bc->commit, bc->nfiles ? bc->files[0].path : "no file");
		goto done;
	}
	error = check_new(&cc->check, repo, &cc->target, cc->diff, opts);
done:
	free(paths);
	if (error < 0)
		case_close(cc);
	return error;
}

static void options_of(struct check_options *out, const struct check_options *from, struct poll_group *group)
{
	*out = *from;
	out->environment = "bench";
	out->no_reduce = true;
	out->group = group;
}

int bench_run_new(struct bench_run **out, struct repo *repo, const struct bench_case *const *cases, size_t count,
		  const struct bench_run_options *o)
{
	struct bench_run *run = calloc(1, sizeof(*run));
	size_t jobs = o->jobs > 0 ? (size_t)o->jobs : 1;

	*out = NULL;
	if (!run || !(run->results = calloc(count ? count : 1, sizeof(*run->results))) ||
	    !(run->have = calloc(count ? count : 1, sizeof(*run->have))) ||
	    !(run->slots = calloc(jobs, sizeof(*run->slots))) || poll_group_new(&run->group) < 0) {
		bench_run_free(run);
		return error_nomem();
	}
	run->nslots = jobs;
	run->repo = repo;
	run->cases = cases;
	run->count = count;
	options_of(&run->opts, o->check, run->group);
	/* --concurrency bounds the requests of the cases reviewed at once, together. */
	run->share.limit = run->opts.sched.concurrency > 0 ? run->opts.sched.concurrency : 1;
	run->opts.sched.share = &run->share;
	run->tolerance = o->tolerance >= 0 ? o->tolerance : SCORE_TOLERANCE;
	run->store = o->store;
	run->run_id = o->run_id;
	run->events = (struct queue)QUEUE_INIT(struct bench_event);
	*out = run;
	return 0;
}

void bench_run_free(struct bench_run *run)
{
	size_t i;

	if (!run)
		return;
	for (i = 0; run->slots && i < run->nslots; i++)
		case_close(&run->slots[i]);
	free(run->slots);
	poll_group_free(run->group);
	for (i = 0; run->results && i < run->count; i++)
		score_case_release(&run->results[i]);
	free(run->results);
	free(run->have);
	queue_release(&run->events);
	free(run->store_error);
	free(run);
}

static void event_push(struct bench_run *run, enum bench_event_kind kind, size_t index)
{
	struct bench_event *ev = queue_push(&run->events);

	if (ev)
		*ev = (struct bench_event){ kind, index };
}

static void outcome_store(struct bench_run *run, const struct score_case *c, size_t index)
{
	struct store_bench_result r = {
		c->case_id, c->check_id, score_outcome_name(c->outcome), c->hits, c->noise, c->unverified,
		c->usage.tokens_in, c->usage.tokens_cached, c->usage.tokens_out, c->usage.cost_usd, c->ms,
		c->error, c->detail,
	};

	if (!run->store || !run->run_id || run->store_error)
		return;
	if (store_bench_result_put(run->store, run->run_id, &r) < 0) {
		run->store_error = strdup(error_message());
		event_push(run, BENCH_STORE_FAILED, index);
	}
}

/* The case has its outcome: kept, stored, said. */
static void case_settle(struct bench_run *run, size_t index)
{
	outcome_store(run, &run->results[index], index);
	run->have[index] = true;
	event_push(run, BENCH_CASE_DONE, index);
}

/* A case that could not be reviewed: an error outcome with why. */
static void case_fail(struct bench_run *run, size_t index)
{
	struct score_case *c = &run->results[index];

	score_case_release(c);
	c->case_id = run->cases[index]->id;
	c->outcome = SCORE_ERROR;
	c->usage.cost_usd = 0;
	c->error = strdup(error_message());
	case_settle(run, index);
}

/* The next case in a free slot. */
static void case_start(struct bench_run *run, struct case_check *slot)
{
	size_t index = run->next++;

	event_push(run, BENCH_CASE_STARTED, index);
	if (case_open(slot, run->repo, run->cases[index], &run->opts) < 0) {
		case_fail(run, index);
		return;
	}
	if (check_start(slot->check) < 0) {
		case_fail(run, index);
		case_close(slot);
		return;
	}
	slot->index = index;
	slot->running = true;
}

static void case_end(struct bench_run *run, struct case_check *slot)
{
	size_t index = slot->index;

	slot->running = false;
	if (!run->cancelled) {
		if (score_check(&run->results[index], run->cases[index], slot->check, run->tolerance) < 0)
			case_fail(run, index);
		else
			case_settle(run, index);
	}
	case_close(slot);
}

/* Whether a running case has something to take without waiting (events, its end). */
static bool cases_ready(struct bench_run *run)
{
	size_t i;

	for (i = 0; i < run->nslots; i++)
		if (run->slots[i].running && check_ready(run->slots[i].check))
			return true;
	return false;
}

int bench_run_wait(struct bench_run *run, int max_ms)
{
	struct check_event ev;
	size_t i, running = 0;

	for (i = 0; i < run->nslots; i++) {
		struct case_check *slot = &run->slots[i];

		if (!slot->running && !run->cancelled && run->next < run->count)
			case_start(run, slot);
		running += slot->running;
	}
	if (!running)
		return 0;
	if (!cases_ready(run))
		poll_group_wait(run->group, max_ms);
	for (i = 0; i < run->nslots; i++) {
		struct case_check *slot = &run->slots[i];

		if (!slot->running)
			continue;
		while (check_next_event(slot->check, &ev))
			;
		if (check_done(slot->check))
			case_end(run, slot);
	}
	return 0;
}

bool bench_run_next_event(struct bench_run *run, struct bench_event *out)
{
	return queue_pop(&run->events, out);
}

void bench_run_cancel(struct bench_run *run)
{
	size_t i;

	run->cancelled = true;
	for (i = 0; i < run->nslots; i++)
		if (run->slots[i].running)
			check_cancel(run->slots[i].check);
}

static size_t cases_running(const struct bench_run *run)
{
	size_t i, n = 0;

	for (i = 0; i < run->nslots; i++)
		n += run->slots[i].running;
	return n;
}

bool bench_run_done(const struct bench_run *run)
{
	return !cases_running(run) && (run->cancelled || run->next >= run->count) && !run->events.count;
}

const struct score_case *bench_run_result(const struct bench_run *run, size_t index)
{
	return index < run->count && run->have[index] ? &run->results[index] : NULL;
}

size_t bench_run_running(const struct bench_run *run, long *longest_ms)
{
	size_t i;

	*longest_ms = 0;
	for (i = 0; i < run->nslots; i++)
		if (run->slots[i].running && check_duration_ms(run->slots[i].check) > *longest_ms)
			*longest_ms = check_duration_ms(run->slots[i].check);
	return cases_running(run);
}

const char *bench_run_store_error(const struct bench_run *run)
{
	return run->store_error;
}

int bench_estimate(long *tokens, struct repo *repo, const struct bench_case *c, const struct check_options *o)
{
	struct check_options opts;
	struct case_check cc;
	int error;

	*tokens = 0;
	options_of(&opts, o, o->group);
	if ((error = case_open(&cc, repo, c, &opts)) < 0)
		return error;
	error = check_estimate(tokens, cc.check);
	case_close(&cc);
	return error;
}

/* --- a stored run's outcomes --------------------------------------------------- */

struct results_read {
	struct score_case *items;
	size_t count, alloc;
};

static int result_take(const struct store_bench_result *r, void *ctx)
{
	struct results_read *rr = ctx;
	struct score_case *c;

	if (ARRAY_GROW(rr->items, rr->alloc, rr->count + 1) < 0)
		return RL_ENOMEM;
	c = &rr->items[rr->count];
	memset(c, 0, sizeof(*c));
	if (!score_outcome_parse(&c->outcome, r->outcome))
		return error_set(RL_EPARSE, "a stored bench result has the outcome '%s'", r->outcome ? r->outcome : "");
	c->case_id = r->case_id;
	c->check_id = r->check_id;
	c->hits = r->hits;
	c->noise = r->noise;
	c->unverified = r->unverified;
	c->usage.tokens_in = r->tokens_in;
	c->usage.tokens_cached = r->tokens_cached;
	c->usage.tokens_out = r->tokens_out;
	c->usage.cost_usd = r->cost_usd;
	c->ms = r->ms;
	rr->count++;
	if ((r->error && !(c->error = strdup(r->error))) || !(c->detail = strdup(r->detail ? r->detail : "{}")))
		return error_nomem();
	return 0;
}

int bench_run_results(struct score_case **out, size_t *count, struct store *store, int64_t run_id)
{
	struct results_read rr = { 0 };
	int error = store_bench_results(store, run_id, result_take, &rr);

	if (error < 0) {
		bench_run_results_free(rr.items, rr.count);
		rr.items = NULL;
		rr.count = 0;
	}
	*out = rr.items;
	*count = rr.count;
	return error;
}

void bench_run_results_free(struct score_case *results, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		score_case_release(&results[i]);
	free(results);
}
