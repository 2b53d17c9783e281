/* One review's life cycle: options, new and free, the start, the poll group, waiting, cancelling, retrying, events, what a front end reads. */
#include "check_state.h"
#include "clock.h"
#include "config.h"
#include "scope.h"
#include "status.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_BUDGET 24000

int check_event_push(struct check *c, enum check_event_kind kind, size_t rule)
{
	struct check_event *ev = queue_push(&c->events);

	if (!ev)
		return error_nomem();
	*ev = (struct check_event){ kind, rule };
	return 0;
}

bool check_next_event(struct check *c, struct check_event *out)
{
	return queue_pop(&c->events, out);
}

/*
 * A store failure never stops the check: the first one is kept and said
 * (CHECK_STORE_FAILED), and the check stores nothing more but its end,
 * which then cannot be 'complete'. A full or broken database fails the
 * same way again, and a locked one would hold every later write for the
 * busy timeout.
 */
void check_store_failed(struct check *c)
{
	if (c->store_error)
		return;
	c->store_error = strdup(error_message());
	check_event_push(c, CHECK_STORE_FAILED, 0);
}

/* Whether to read from and write to the store: there is one and it has not failed. */
bool check_storing(const struct check *c)
{
	return c->opts.store && !c->store_error;
}

static int advisories_load(struct check_options *options, struct config *config)
{
	struct advisory_options adv = { 0 };
	char *url = NULL;
	bool on;
	int error;

	if ((error = config_get_bool(&on, config, "revline.advisories")) == 0)
		options->no_advisories = !on;
	else if (error != RL_ENOTFOUND)
		return error;
	if ((error = advisory_options_load(&adv, &url, config)) < 0)
		return error;
	snprintf(options->osv_url, sizeof(options->osv_url), "%s", url ? url : "");
	free(url);
	return 0;
}

int check_options_load(struct check_options *options, struct config *config)
{
	bool reduce;
	long budget;
	char *ignore = NULL;
	int error;

	if ((error = sched_options_load(&options->sched, config)) < 0 ||
	    (error = asker_options_load(&options->ask, config)) < 0)
		return error;
	if ((error = config_get_integer(&budget, config, "revline.tokenBudget", 1000, 10000000)) == 0)
		options->token_budget = budget;
	else if (error != RL_ENOTFOUND)
		return error;
	if ((error = config_get_bool(&reduce, config, "revline.reduce")) == 0)
		options->no_reduce = !reduce;
	else if (error != RL_ENOTFOUND)
		return error;
	if ((error = config_get_bool(&options->allow_partial, config, "revline.allowPartial")) < 0 &&
	    error != RL_ENOTFOUND)
		return error;
	if ((error = rules_builtin_load(&options->builtin_rules, config)) < 0)
		return error;
	if ((error = config_get_integer(&budget, config, "revline.confirmTokens", 1, LONG_MAX)) == 0)
		options->confirm_tokens = budget;
	else if (error != RL_ENOTFOUND)
		return error;
	if ((error = config_get(&ignore, config, "revline.ignore")) == 0) {
		snprintf(options->ignore_file, sizeof(options->ignore_file), "%s", ignore);
		free(ignore);
	} else if (error != RL_ENOTFOUND) {
		return error;
	}
	if ((error = standards_enabled(&reduce, config)) < 0)
		return error;
	options->no_standards = !reduce;
	if ((error = check_context_load(options, config)) < 0)
		return error;
	return advisories_load(options, config);
}

int check_new(struct check **out, struct repo *repo, const struct target *target,
	      struct diff *diff, const struct check_options *options)
{
	struct check *c = calloc(1, sizeof(*c));
	const struct queue events = QUEUE_INIT(struct check_event);

	*out = NULL;
	if (!c)
		return error_nomem();
	c->repo = repo;
	c->target = target;
	c->diff = diff_dup(diff);
	c->events = events;
	c->opts = *options;
	if (c->opts.token_budget <= 0)
		c->opts.token_budget = DEFAULT_BUDGET;
	if (!c->opts.environment)
		c->opts.environment = "local";
	c->status = "running";
	if ((options->store_error && !(c->store_error = strdup(options->store_error))) ||
	    (!options->group && poll_group_new(&c->own_group) < 0)) {
		free(c->store_error);
		diff_free(c->diff);
		free(c);
		return error_nomem();
	}
	c->group = options->group ? options->group : c->own_group;
	repo_blob_cache_hold(repo);
	*out = c;
	return 0;
}

static void chunk_release(struct chunk *k)
{
	free(k->system);
	free(k->shared);
	free(k->tail);
	free(k->error);
	repo_tools_free(k->tools);
	k->tools = NULL;
	answer_release(&k->answer);
}

void check_free(struct check *c)
{
	size_t i, k;

	if (!c)
		return;
	repo_blob_cache_release(c->repo);
	poll_group_leave(&c->member);
	asker_free(c->asker);
	depreview_free(c->deps);
	check_context_release(c);
	check_parts_free(c);
	for (i = 0; c->skip && i < c->diff->nfiles; i++)
		free(c->skip[i]);
	free(c->skip);
	free(c->skip_local);
	glob_list_free(c->ignore);
	free(c->wants);
	free(c->nwanted);
	strings_free(&c->notes);
	for (i = 0; i < c->nstates; i++) {
		for (k = 0; k < c->states[i].nchunks; k++) {
			chunk_release(c->states[i].chunks[k]);
			free(c->states[i].chunks[k]);
		}
		free(c->states[i].chunks);
		free(c->states[i].context);
		free(c->states[i].examples);
		rule_result_release(&c->states[i].result);
	}
	free(c->states);
	chunk_release(&c->reduce);
	findings_free(c->reduce_input, c->nreduce_input);
	report_release(&c->report);
	rules_release(&c->rules);
	queue_release(&c->events);
	free(c->intent);
	standards_release(&c->standards);
	free(c->standards_files);
	free(c->store_error);
	poll_group_free(c->own_group);
	diff_free(c->diff);
	free(c);
}

/* The check's rules, in one transaction; their rows' ids are the results'. */
static int rules_store(struct check *c)
{
	const struct rule **rules = calloc(c->nstates ? c->nstates : 1, sizeof(*rules));
	int64_t *ids = calloc(c->nstates ? c->nstates : 1, sizeof(*ids));
	size_t i;
	int error;

	if (!rules || !ids) {
		error = error_nomem();
		goto done;
	}
	for (i = 0; i < c->nstates; i++)
		rules[i] = c->states[i].result.rule;
	if ((error = store_rules_add(c->opts.store, ids, c->id, rules, c->nstates)) == 0)
		for (i = 0; i < c->nstates; i++)
			c->states[i].result.id = ids[i];
done:
	free(rules);
	free(ids);
	return error;
}

static int check_store_begin(struct check *c)
{
	struct buf text = BUF_INIT;
	struct check_record rec = { 0 };
	int error = 0;

	if (!check_storing(c))
		return 0;
	if ((error = diff_print(&text, c->diff)) < 0)
		goto done;
	rec.repo_path = c->repo->workdir ? c->repo->workdir : c->repo->gitdir;
	rec.repo_name = c->repo->name;
	rec.remote = c->repo->remote;
	rec.branch = c->repo->branch;
	rec.environment = c->opts.environment;
	rec.base_label = c->target->base_label;
	rec.base_oid = c->target->base_oid;
	rec.head_label = c->target->head_label;
	rec.head_oid = c->target->head_oid;
	rec.target = c->target->description;
	rec.diff = text.ptr ? text.ptr : "";
	rec.diff_len = text.len;
	rec.files = c->diff->nfiles;
	rec.additions = c->diff->additions;
	rec.deletions = c->diff->deletions;
	/* A database that refuses the check (full, locked, read-only, damaged) leaves it unstored, not undone. */
	if (store_check_begin(c->opts.store, &c->id, &rec) < 0) {
		check_store_failed(c);
		goto done;
	}
	if (rules_store(c) < 0)
		check_store_failed(c);
done:
	buf_release(&text);
	return error;
}

static const char *model_of(const struct check *c, const struct rule *rule)
{
	return rule && rule->model ? rule->model : c->opts.llm->map_model;
}

int check_chunk_submit(struct check *c, struct chunk *k, const char *model)
{
	uint64_t id;
	/* A map request asks with its rule's reasoning effort; the reduce, with the configured one. */
	struct ask_spec spec = {
		k == &c->reduce ? SCHEMA_REDUCE : SCHEMA_MAP, model,
		k == &c->reduce ? NULL : c->states[k->rule].result.rule->reasoning_effort,
		k->system, k->shared, k->tail, k->weight, c->opts.no_cache, k,
	};
	struct ask_tools tools;
	bool offered = false;
	int error = k == &c->reduce ? 0 : check_context_tools(&tools, &offered, c, k);

	if (!error)
		error = offered ? ask_submit_tools(c->asker, &id, &spec, &tools) : ask_submit(c->asker, &id, &spec);

	if (!error)
		k->ask = id;
	return error;
}

/* The longest a request of the rule may take, for its status; kept with the rule. */
static void rule_timeout(struct check *c, size_t index)
{
	struct rule_state *s = &c->states[index];
	long most = 0, ms;
	size_t k;

	for (k = 0; k < s->nchunks; k++)
		if ((ms = sched_task_timeout_ms(&c->opts.sched, s->chunks[k]->weight)) > most)
			most = ms;
	/* Kept with the rule's result (store_result_put). */
	s->result.timeout_ms = most;
}

static int start_rule(struct check *c, size_t index)
{
	struct rule_state *s = &c->states[index];
	const struct rule *rule = s->result.rule;
	size_t k;
	int error;

	/* A rule that reads the commit messages has them to read even when no file of the change is its. */
	if (!check_rule_files(c, rule) && !rule_reads_texts(rule))
		return check_settle_as(c, index, RULE_NOT_RELEVANT, NULL);
	if (rule->kind == RULE_LOCAL)
		return check_run_local(c, index);
	if (c->opts.llm->provider == PROVIDER_NONE)
		return check_settle_as(c, index, RULE_SKIPPED, llm_setup_hint);
	if ((error = check_plan_rule(c, index)) < 0)
		return check_settle_as(c, index, RULE_ERROR, error_message());
	rule_timeout(c, index);
	for (k = 0; k < s->nchunks; k++)
		if ((error = check_chunk_submit(c, s->chunks[k], model_of(c, rule))) < 0)
			check_chunk_fail(c, s->chunks[k], RULE_ERROR, error_message());
	return 0;
}

/* The dependency phase is over: its analysis kept and announced, the rules started. */
static int rules_begin(struct check *c)
{
	size_t i;
	int error = 0;

	c->rules_started = true;
	if (check_storing(c) && c->id && depreview_store(c->deps, c->opts.store, c->id) < 0)
		check_store_failed(c);
	if (depreview_found(c->deps))
		check_event_push(c, CHECK_DEPENDENCIES, 0);
	for (i = 0; i < c->nstates && !error; i++)
		if (c->states[i].result.status == RULE_QUEUED)
			error = start_rule(c, i);
	if (!error)
		check_advance(c);
	return error;
}

/* Local pattern rules need no advisory and no server: they run at once, while the advisories are looked up. */
static int locals_begin(struct check *c)
{
	size_t i;
	int error = 0;

	for (i = 0; i < c->nstates && !error; i++)
		if (c->states[i].result.rule->kind == RULE_LOCAL)
			error = start_rule(c, i);
	return error;
}

/* The change's size and kind choose the base timeout (timeout.h) before the scheduler is made. */
static void timeout_pick(struct check *c)
{
	size_t i, lines = 0;

	for (i = 0; i < c->diff->nfiles; i++)
		if (diff_file_count(c->diff, i) == 0)
			lines += c->diff->files[i].additions + c->diff->files[i].deletions;
	timeout_choose(&c->timeout, c->opts.sched.timeout, c->diff->nfiles, lines,
		       depreview_dependency_only(c->deps));
	c->opts.sched.timeout = c->timeout.chosen;
	if (check_storing(c) && c->id &&
	    store_check_timeout(c->opts.store, c->id, c->timeout.base, c->timeout.chosen, c->timeout.reason) < 0)
		check_store_failed(c);
}

/* Read and analyse the manifests; a failure leaves the check without dependency analysis. */
static int deps_begin(struct check *c)
{
	struct depreview_options o = { .advisories = !c->opts.no_advisories,
				       .advisory = { .base_url = c->opts.osv_url[0] ? c->opts.osv_url : NULL },
				       .group = c->group };
	int error;

	if ((error = depreview_new(&c->deps, c->repo, c->target, c->diff, &o)) < 0)
		return error;
	if (depreview_start(c->deps) < 0) {
		if (error_status() == RL_ENOMEM)
			return RL_ENOMEM;
		depreview_cancel(c->deps);
	}
	return 0;
}

static int member_join(struct check *c);
static int phases_stepped(struct check *c);

int check_start(struct check *c)
{
	int error;

	c->started_ms = clock_ms();
	if ((error = check_prepare(c)) < 0)
		return error;
	if ((error = check_store_begin(c)) < 0 || (error = deps_begin(c)) < 0 ||
	    (error = check_context_begin(c)) < 0)
		return error;
	timeout_pick(c);
	/* The deadline bounds the whole check: what preparing it took is spent. */
	c->opts.sched.deadline_spent = (double)(clock_ms() - c->started_ms) / 1000.0;
	if ((error = asker_new(&c->asker, c->opts.llm, &c->opts.sched, &c->opts.ask,
			       check_storing(c) ? c->opts.store : NULL, c->group)) < 0 ||
	    (error = member_join(c)) < 0)
		return error;
	if ((error = locals_begin(c)) < 0)
		return error;
	return phases_stepped(c);
}

/* The request cycle's events, after sending what took the freed slots. */
static int drain(struct check *c, int error)
{
	struct ask_event ev;

	/* New requests go out before the slower work on the answers. */
	if (!error && sched_timeout(asker_sched(c->asker)) == 0)
		error = asker_run(c->asker);
	while (asker_next(c->asker, &ev)) {
		check_handle_event(c, &ev);
		ask_event_release(&ev);
		check_advance(c);
	}
	return error;
}

/* The advisories came in (or their budget ran out) and the context is made: the rules start. */
static int phases_stepped(struct check *c)
{
	bool ready = false;
	int error;

	if (c->rules_started || !depreview_done(c->deps))
		return 0;
	if ((error = check_context_ready(c, &ready)) < 0 || !ready)
		return error;
	return rules_begin(c);
}

/* The deadline passed while the advisories were looked up or the context built: the rules start, to time out at once. */
static void deps_deadline(struct check *c)
{
	if (!c->rules_started && sched_deadline_left_ms(asker_sched(c->asker)) == 0) {
		depreview_cancel(c->deps);
		check_context_cancel(c);
	}
}

static int member_step(void *ctx, const struct pollfd *fds, int n)
{
	struct check *c = ctx;
	int error;

	(void)fds;
	(void)n;
	if (!c->asker || c->done)
		return 0;
	if (!c->rules_started) {
		deps_deadline(c);
		if ((error = phases_stepped(c)) < 0)
			return error;
	}
	return drain(c, 0);
}

static int member_timeout(void *ctx)
{
	struct check *c = ctx;

	if (c->events.count)
		return 0;
	if (!c->asker || c->done || c->rules_started)
		return -1;
	return (int)sched_deadline_left_ms(asker_sched(c->asker));
}

/* The check joins its poll group after the request cycle: it takes their events in the same step. */
static int member_join(struct check *c)
{
	c->member.timeout = member_timeout;
	c->member.step = member_step;
	c->member.ctx = c;
	return poll_group_join(c->group, &c->member);
}

bool check_ready(const struct check *c)
{
	return !c->asker || c->done || c->events.count;
}

int check_wait(struct check *c, int max_ms)
{
	return check_ready(c) ? 0 : poll_group_wait(c->group, max_ms);
}

void check_cancel(struct check *c)
{
	if (c->done || !c->asker)
		return;
	c->cancelled = true;
	/* Cancelled while the advisories were looked up: the rules start, to be cancelled at once. */
	if (!c->rules_started) {
		depreview_cancel(c->deps);
		check_context_cancel(c);
		phases_stepped(c);
	}
	asker_cancel_all(c->asker);
	drain(c, 0);
}

static bool failed(enum rule_status status)
{
	return status == RULE_ERROR || status == RULE_TIMEOUT;
}

/* A failed rule back to the start: its chunks, findings and status gone. */
static void rule_reset(struct check *c, size_t index)
{
	struct rule_state *s = &c->states[index];
	const struct rule *rule = s->result.rule;
	int64_t id = s->result.id;
	size_t k;

	for (k = 0; k < s->nchunks; k++) {
		chunk_release(s->chunks[k]);
		free(s->chunks[k]);
	}
	free(s->chunks);
	free(s->context);
	free(s->examples);
	rule_result_release(&s->result);
	memset(s, 0, sizeof(*s));
	s->result.rule = rule;
	s->result.id = id;
	s->result.status = RULE_QUEUED;
	c->unsettled++;
}

int check_retry(struct check *c)
{
	size_t i, n = 0;
	int error = 0;

	if (!c->done)
		return error_set(RL_EUSAGE, "the check is still running");
	for (i = 0; i < c->nstates; i++)
		n += failed(c->states[i].result.status);
	if (!n)
		return error_set(RL_EUSAGE, "no rule failed or timed out");
	c->done = c->cancelled = c->reducing = false;
	c->status = "running";
	report_release(&c->report);
	findings_free(c->reduce_input, c->nreduce_input);
	c->reduce_input = NULL;
	c->nreduce_input = 0;
	chunk_release(&c->reduce);
	memset(&c->reduce, 0, sizeof(c->reduce));
	for (i = 0; i < c->nstates; i++)
		if (failed(c->states[i].result.status))
			rule_reset(c, i);
	for (i = 0; i < c->nstates && !error; i++)
		if (c->states[i].result.status == RULE_QUEUED)
			error = start_rule(c, i);
	check_advance(c);
	return error;
}

bool check_done(const struct check *c)
{
	return c->done;
}

size_t check_nresults(const struct check *c)
{
	return c->nstates;
}

const struct rule_result *check_result(const struct check *c, size_t index)
{
	return &c->states[index].result;
}

long check_rule_streamed(const struct check *c, size_t index)
{
	return c->states[index].result.tokens_streamed;
}

long check_rule_elapsed_ms(const struct check *c, size_t index)
{
	const struct rule_state *s = &c->states[index];

	return s->started_ms ? (long)(clock_ms() - s->started_ms) : 0;
}

bool check_rule_attempt(const struct check *c, size_t index, int *attempt, int *of, long *elapsed_ms)
{
	const struct rule_state *s = &c->states[index];
	size_t k;

	*attempt = 0;
	*elapsed_ms = -1;
	*of = c->opts.sched.retries + 1;
	for (k = 0; k < s->nchunks; k++) {
		int n;
		long ms;

		if (s->chunks[k]->settled || !s->chunks[k]->ask ||
		    ask_attempt(&n, &ms, c->asker, s->chunks[k]->ask) < 0 || n <= *attempt)
			continue;
		*attempt = n;
		*elapsed_ms = ms;
	}
	return *attempt > 1;
}

const struct rule_set *check_rules(const struct check *c)
{
	return &c->rules;
}

const struct diff *check_diff(const struct check *c)
{
	return c->diff;
}

const struct report *check_report(const struct check *c)
{
	return &c->report;
}

const struct check_stats *check_stats(const struct check *c)
{
	return &c->stats;
}

const char *check_status(const struct check *c)
{
	return c->status;
}

int64_t check_id(const struct check *c)
{
	return c->id;
}

long check_duration_ms(const struct check *c)
{
	return c->done ? c->duration_ms : (long)(clock_ms() - c->started_ms);
}

size_t check_unverified(const struct check *c)
{
	size_t i, k, n = 0;

	for (i = 0; i < c->nstates; i++)
		for (k = 0; k < c->states[i].result.nfindings; k++)
			n += !c->states[i].result.findings[k].verified;
	return n;
}

const char *check_store_error(const struct check *c)
{
	return c->store_error;
}

size_t check_nnotes(const struct check *c)
{
	return c->notes.count;
}

const char *check_note(const struct check *c, size_t index)
{
	return index < c->notes.count ? c->notes.items[index] : NULL;
}

size_t check_untracked(const struct check *c)
{
	return c->untracked;
}

bool check_deadline_passed(const struct check *c)
{
	return c->asker && sched_deadline_passed(asker_sched(c->asker));
}

bool check_stored(const struct check *c)
{
	return c->opts.store && c->id && !c->store_error;
}

const struct depreview *check_deps(const struct check *c)
{
	return c->deps;
}

bool check_deps_pending(const struct check *c)
{
	return c->deps && !c->rules_started;
}

const struct timeout_choice *check_timeout_choice(const struct check *c)
{
	return &c->timeout;
}
