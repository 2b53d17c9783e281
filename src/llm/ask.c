/* The request cycle (ask.h). */
#include "ask.h"
#include "body_splice.h"
#include "hash.h"
#include "refusal.h"
#include "array.h"
#include "queue.h"
#include "clock.h"
#include "answer.h"
#include "config.h"
#include "secret.h"
#include "status.h"
#include "store.h"

#include <limits.h>
#include <git2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* A question is asked again without a refused parameter at most this often. */
#define REFUSALS_MAX 6
/*
 * The questions held for a warming one go at its first streamed event, or
 * once it has had about the time a provider takes to read its shared part
 * (WARM_HOLD_PER_1K ms per 1,000 tokens, from WARM_HOLD_MIN to
 * WARM_HOLD_MAX ms), whichever comes first: a warming question that hangs,
 * or a reasoning model that thinks long before its first token, delays the
 * others by that much at most.
 */
#define WARM_HOLD_PER_1K 100
#define WARM_HOLD_MIN 500
#define WARM_HOLD_MAX 5000

struct ask {
	uint64_t id, task;      /* task: the scheduler's, 0 while none runs */
	void *user;
	enum schema_kind kind;
	char *model, *effort, *system, *shared, *tail;
	char key[41];           /* the result cache's */
	char group[17];         /* the shared part's hash, "" without one */
	char group_id[HASH_HEX_SIZE];   /* all of it: the cache key holds it in place of the shared part */
	size_t weight;
	unsigned refused;       /* left out of this question */
	int attempts, refusals;
	size_t seen;            /* bytes of the stream counted */
	long streamed;
	bool started, got_byte, held, warming, stream;
	int64_t sent_ms;        /* when its current transfer began (monotonic) */
	long hold_ms;           /* warming: the longest the others wait for it */
	struct usage usage;     /* of its requests so far */
	/* Tools (tools.h): the set (NULL without), what became of it, the turns. */
	struct tool_set *tools;
	enum ask_tools_use tools_use;
	struct conversation conv;
	struct tool_log log;
	int turns;              /* requests whose calls ran */
	size_t tool_bytes;      /* of their results */
	bool final;             /* a bound was reached: the model must answer now */
	bool no_keep;           /* its answer is not kept in the result cache */
	char stop[160];         /* the bound reached, or "" */
};

struct asker {
	const struct llm_config *llm;
	const struct provider_ops *ops;
	struct asker_options options;
	struct sched *sched;
	struct store *store;
	struct ask **live;
	size_t nlive, live_cap;
	struct queue events;     /* of struct ask_event */
	struct refusal_memory refusals;
	struct strings warmed;  /* shared parts whose first question got its first byte */
	struct body_splice splice;      /* the last shared part, encoded once for its bodies */
	bool splicing;          /* splice has its token */
	uint64_t last_id;
	struct poll_member member;      /* takes the scheduler's events in the poll group */
};

static const char *const warm_names[] = {
#define WARM_NAME(id, name) name,
	WARM_LIST(WARM_NAME)
#undef WARM_NAME
};

int asker_options_load(struct asker_options *out, struct config *config)
{
	char *value = NULL;
	bool stream = true;
	size_t i;
	int error = 0;

	memset(out, 0, sizeof(*out));
	if (!config)
		return 0;
	if ((error = config_get_bool(&stream, config, "revline.stream")) == 0)
		out->no_stream = !stream;
	else if (error != RL_ENOTFOUND)
		return error;
	if ((error = config_get(&value, config, "revline.warmCache")) == RL_ENOTFOUND)
		return 0;
	if (error < 0)
		return error;
	for (i = 0; i < sizeof(warm_names) / sizeof(warm_names[0]) && strcasecmp(value, warm_names[i]); i++)
		;
	if (i < sizeof(warm_names) / sizeof(warm_names[0]))
		out->warm = (enum warm_mode)i;
	else
		error = error_set(RL_ECONFIG, "revline.warmCache is '%.40s': use auto, true or false", value);
	free(value);
	return error;
}

/* --- events ---------------------------------------------------------------- */

static struct ask_event *event_push(struct asker *a, const struct ask *q, enum ask_status status)
{
	struct ask_event *ev = queue_push(&a->events);

	if (!ev)
		return NULL;
	ev->id = q->id;
	ev->user = q->user;
	ev->status = status;
	ev->attempts = q->attempts;
	ev->streamed = q->streamed;
	ev->tools = q->tools_use;
	ev->tool_turns = q->turns;
	return ev;
}

/* A settling event takes the question's record of its calls. */
static void event_calls(struct ask_event *ev, struct ask *q)
{
	ev->tool_calls_dropped = q->log.dropped;
	tool_log_take(&ev->tool_calls, &ev->ntool_calls, &q->log);
	snprintf(ev->tools_stop, sizeof(ev->tools_stop), "%s", q->stop);
}

/* An answer into the result cache; the first failure stops the asker's use of the store. */
static void keep(struct asker *a, struct ask_event *ev)
{
	if (!ev->keep_model || !a->store)
		return;
	if (store_cache_keep(a->store, ev->keep_key, provider_name(a->llm->provider), ev->keep_model,
			     ev->text, &ev->usage) < 0) {
		ev->store_failed = true;
		a->store = NULL;
	}
}

bool asker_next(struct asker *a, struct ask_event *out)
{
	if (!queue_pop(&a->events, out))
		return false;
	keep(a, out);
	return true;
}

void ask_event_release(struct ask_event *event)
{
	if (event) {
		free(event->text);
		free(event->keep_model);
		ask_tool_calls_free(event->tool_calls, event->ntool_calls);
		event->text = NULL;
		event->keep_model = NULL;
		event->tool_calls = NULL;
		event->ntool_calls = 0;
	}
}

/* --- questions ----------------------------------------------------------- */

static void ask_clear(struct ask *q)
{
	free(q->model);
	free(q->effort);
	free(q->system);
	free(q->shared);
	free(q->tail);
	tool_set_free(q->tools);
	conversation_release(&q->conv);
	tool_log_release(&q->log);
}

static void ask_free(struct ask *q)
{
	if (!q)
		return;
	ask_clear(q);
	free(q);
}

static int live_add(struct asker *a, struct ask *q)
{
	int error;

	if ((error = ARRAY_GROW(a->live, a->live_cap, a->nlive + 1)) < 0)
		return error;
	a->live[a->nlive++] = q;
	return 0;
}

static void live_remove(struct asker *a, struct ask *q)
{
	size_t i;

	for (i = 0; i < a->nlive; i++)
		if (a->live[i] == q) {
			memmove(a->live + i, a->live + i + 1, (a->nlive - i - 1) * sizeof(*a->live));
			a->nlive--;
			break;
		}
	ask_free(q);
}

static struct ask *live_by_task(struct asker *a, uint64_t task)
{
	size_t i;

	for (i = 0; i < a->nlive; i++)
		if (a->live[i]->task == task)
			return a->live[i];
	return NULL;
}

/* The most parts a key is made of (cache_key's). */
#define KEY_PARTS_MAX 9

/* The hash of the parts, each ended by a NUL (so that no two lists of parts run together alike). */
static int hash_text(char out[HASH_HEX_SIZE], const char *const *parts, size_t n)
{
	struct hash_part pieces[2 * KEY_PARTS_MAX];
	size_t i;

	if (n > KEY_PARTS_MAX)
		return error_set(RL_ERROR, "a key of %zu parts (at most %d)", n, KEY_PARTS_MAX);
	for (i = 0; i < n; i++) {
		pieces[2 * i] = (struct hash_part){ parts[i], parts[i] ? strlen(parts[i]) : 0 };
		pieces[2 * i + 1] = (struct hash_part){ "", 1 };
	}
	return hash_blob(out, pieces, 2 * i);
}

/*
 * The result cache's key: what was asked, of whom, how. The system
 * message and the shared part count through the group's id, which holds
 * them (group_set), so that the shared part, most of a request, is hashed
 * once. A question that offers tools adds the set's definitions, bounds
 * and the state of what they read (tools.h), so that an answer read from
 * other files is never the one found; without a state it is not kept at
 * all.
 */
static int cache_key(struct asker *a, struct ask *q)
{
	const char *parts[] = { schema_kind_name(q->kind), provider_name(a->llm->provider),
				a->llm->base_url, q->model, q->effort, q->shared ? "" : q->system,
				q->shared ? q->group_id : "", q->tail, NULL };
	struct buf tools = BUF_INIT;
	bool offered = q->tools_use == ASK_TOOLS_OFFERED;
	int error = offered ? tool_set_identity(&tools, q->tools) : 0;

	if (error < 0)
		return error;
	parts[8] = tools.ptr;
	error = hash_text(q->key, parts, sizeof(parts) / sizeof(parts[0]) - !offered);
	q->no_keep = offered && !q->tools->state;
	buf_release(&tools);
	return error;
}

/* --- building a question ------------------------------------------------ */

/* The answer's cap: a model that reasons counts its reasoning in it (OpenAI's advice). */
static long output_cap(const struct llm_config *c, const struct model_info *info)
{
	return info->reasoning_effort && c->max_tokens < LLM_REASONING_CAP ? LLM_REASONING_CAP :
		c->max_tokens;
}

static enum model_structured structured_mode(const struct llm_config *llm, const struct model_info *info,
					     unsigned refused)
{
	enum model_structured mode = llm->json_mode ? info->structured : MODEL_STRUCTURED_NONE;

	if (mode == MODEL_STRUCTURED_JSON_SCHEMA && (refused & BIT(REFUSED_JSON_SCHEMA)))
		mode = MODEL_STRUCTURED_JSON_OBJECT;
	/* Anthropic has no JSON mode: the forced tool or the prompt alone. */
	if (mode == MODEL_STRUCTURED_JSON_OBJECT &&
	    ((refused & BIT(REFUSED_JSON_OBJECT)) || llm->provider == PROVIDER_ANTHROPIC))
		mode = MODEL_STRUCTURED_NONE;
	return mode;
}

static const char *cap_param(const struct model_info *info, unsigned refused)
{
	bool completion = info->max_param == MODEL_MAX_COMPLETION_TOKENS;

	if (completion && (refused & BIT(REFUSED_MAX_COMPLETION_TOKENS)))
		completion = false;
	else if (!completion && (refused & BIT(REFUSED_MAX_TOKENS)))
		completion = true;
	return completion ? "max_completion_tokens" : "max_tokens";
}

static void question_make(struct question *out, char cache_key[32], const struct llm_config *llm,
			  const struct ask *q, const struct model_info *info)
{
	unsigned refused = q->refused;
	bool anthropic = llm->provider == PROVIDER_ANTHROPIC;

	memset(out, 0, sizeof(*out));
	out->model = q->model;
	out->system = q->system;
	out->shared = q->shared;
	out->tail = q->tail;
	out->schema_name = schema_name(q->kind);
	out->schema = schema_get(q->kind);
	out->structured = structured_mode(llm, info, refused);
	out->temperature = info->temperature && !(refused & BIT(REFUSED_TEMPERATURE));
	out->cap_param = cap_param(info, refused);
	out->cap = output_cap(llm, info);
	out->effort = info->reasoning_effort && !(refused & BIT(REFUSED_EFFORT)) ? q->effort : NULL;
	snprintf(cache_key, 32, "revline-%s", q->group);
	out->cache_key = !anthropic && q->shared && !(refused & BIT(REFUSED_CACHE_KEY)) ? cache_key : NULL;
	out->cache_breakpoint = anthropic && !(refused & BIT(REFUSED_CACHE_CONTROL));
	out->stream = q->stream && !(refused & BIT(REFUSED_STREAM));
	out->stream_usage = !anthropic && !(refused & BIT(REFUSED_STREAM_OPTIONS));
	out->tools = q->tools_use == ASK_TOOLS_OFFERED ? q->tools : NULL;
	out->conversation = &q->conv;
	out->choice = q->final ? TOOL_CHOICE_ANSWER : TOOL_CHOICE_AUTO;
}

/* The name of the tool that carries the answer, where the answer is a forced tool (Anthropic). */
static const char *answer_tool(const struct llm_config *llm, const struct question *question)
{
	return llm->provider == PROVIDER_ANTHROPIC && question->structured == MODEL_STRUCTURED_JSON_SCHEMA &&
		question->schema ? question->schema_name : NULL;
}

/* splice: the asker's, for a body whose shared part its last body had too; NULL builds it whole. */
static int call_build(struct llm_call *call, struct question *question, const struct llm_config *llm,
		      const struct ask *q, struct body_splice *splice)
{
	const struct provider_ops *ops = llm->provider == PROVIDER_ANTHROPIC ? &provider_anthropic :
		&provider_openai;
	const struct model_info *info;
	char key[32];
	struct buf url = BUF_INIT;
	int error;

	memset(call, 0, sizeof(*call));
	models_lookup(&info, llm->models, provider_name(llm->provider), q->model);
	question_make(question, key, llm, q, info);
	if ((error = body_splice_build(&call->body, &call->body_len, splice, ops, question)) < 0)
		return error;
	question->cache_key = NULL;     /* key[] ends here */
	if ((error = buf_printf(&url, "%s/%s", llm->base_url, ops->path)) < 0)
		goto fail;
	call->url = buf_detach(&url);
	if ((error = llm_call_header(call, "Content-Type: %s", "application/json")) < 0 ||
	    (error = ops->headers(call, llm->api_key)) < 0)
		goto fail;
	return 0;
fail:
	llm_call_release(call);
	return error;
}

/* Hand the question to the scheduler. */
static int send_question(struct asker *a, struct ask *q)
{
	struct sched_request req = { 0 };
	struct question question;
	struct llm_call call;
	int error;

	q->refused |= refusal_get(&a->refusals, a->store, a->llm->base_url, q->model);
	if ((error = call_build(&call, &question, a->llm, q, a->splicing ? &a->splice : NULL)) < 0)
		return error;
	req.url = call.url;
	req.headers = (const char *const *)call.headers;
	req.nheaders = call.nheaders;
	req.body = call.body;
	req.body_len = call.body_len;
	req.weight = q->weight + q->conv.bytes;
	req.stream = question.stream;
	q->seen = 0;
	q->held = false;
	error = sched_add(a->sched, &q->task, &req, q);
	llm_call_release(&call);
	return error;
}

/* --- warming the prompt cache -------------------------------------------- */

static bool warmed(const struct asker *a, const char *group)
{
	return strings_has(&a->warmed, group);
}

/*
 * Whether the first question of its shared part goes alone: where a cache
 * the shared part reaches pays for it, and for a model the table does not
 * know, so that what its server refuses is learnt from one question, not
 * refused to all of them at once.
 */
static bool warm_wanted(const struct asker *a, const struct ask *q)
{
	const struct model_info *info;

	if (!q->shared || a->options.warm == WARM_OFF)
		return false;
	if (a->options.warm == WARM_ON)
		return true;
	models_lookup(&info, a->llm->models, provider_name(a->llm->provider), q->model);
	if (q->stream && info == &models_default)
		return true;
	return q->stream && info->cache_min > 0 && llm_tokens(strlen(q->shared)) >= info->cache_min;
}

/* The shared part is in the provider's cache: the questions waiting for it go. */
static int warm_release(struct asker *a, const char *group)
{
	size_t i;
	int error = 0;

	if (warmed(a, group))
		return 0;
	if ((error = strings_add(&a->warmed, group)) < 0)
		return error;
	for (i = 0; i < a->nlive && !error; i++) {
		if (strcmp(a->live[i]->group, group))
			continue;
		a->live[i]->warming = false;
		if (a->live[i]->held)
			error = send_question(a, a->live[i]);
	}
	return error;
}

/* Whether another question of its group is warming the cache now. */
static bool warm_pending(const struct asker *a, const struct ask *q)
{
	size_t i;

	for (i = 0; i < a->nlive; i++)
		if (a->live[i] != q && a->live[i]->warming && !strcmp(a->live[i]->group, q->group))
			return true;
	return false;
}

/* --- submitting ---------------------------------------------------------- */

/* What the tokens cost at the model's prices (negative when the table has none). */
static void usage_price(struct usage *usage, const struct llm_config *llm, const char *model)
{
	const struct model_info *info;

	models_lookup(&info, llm->models, provider_name(llm->provider), model);
	usage->cost_usd = models_cost(info, usage->tokens_in, usage->tokens_cached,
				      usage->tokens_cache_write, usage->tokens_out);
}

static int from_cache(struct asker *a, struct ask *q, bool *hit)
{
	struct ask_event *ev;
	struct usage usage = { 0 };
	char *answer = NULL;

	*hit = false;
	if (!a->store || store_cache_fetch(a->store, q->key, &answer, &usage) < 0)
		return 0;
	if (!(ev = event_push(a, q, ASK_DONE))) {
		free(answer);
		return error_nomem();
	}
	ev->text = answer;
	ev->cached = true;
	ev->usage = usage;
	usage_price(&ev->usage, a->llm, q->model);
	*hit = true;
	return 0;
}

/*
 * The question's tools: checked and copied whatever the model, offered to
 * one the model table marks as taking tools unless its server refused
 * them before.
 */
static int tools_choose(struct ask *q, const struct ask_tools *spec, const struct llm_config *llm,
			unsigned refused)
{
	const struct model_info *info;
	int error;

	if (!spec)
		return 0;
	if ((error = tool_set_new(&q->tools, spec, schema_name(q->kind))) < 0)
		return error;
	models_lookup(&info, llm->models, provider_name(llm->provider), q->model);
	q->tools_use = !info->tools ? ASK_TOOLS_NOT_TAKEN :
		(refused & BIT(REFUSED_TOOLS)) ? ASK_TOOLS_REFUSED : ASK_TOOLS_OFFERED;
	return 0;
}

static int ask_copy(struct ask *q, const struct ask_spec *spec, const struct llm_config *llm)
{
	const char *effort = spec->effort ? spec->effort : llm->reasoning_effort;

	q->kind = spec->kind;
	q->user = spec->user;
	q->weight = spec->weight;
	if (!(q->model = strdup(spec->model)) || (effort && !(q->effort = strdup(effort))) ||
	    !(q->system = strdup(spec->system)) || !(q->tail = strdup(spec->tail)) ||
	    (spec->shared && !(q->shared = strdup(spec->shared))))
		return error_nomem();
	return 0;
}

/*
 * The questions whose requests begin with the same bytes, for the prompt
 * cache (its key) and warming: the same model, system and shared part,
 * and the same tools offered (which come first on the providers' side).
 */
static int group_set(struct ask *q)
{
	struct buf tools = BUF_INIT;
	const char *parts[] = { q->model, q->system, q->shared, NULL };
	bool offered = q->tools_use == ASK_TOOLS_OFFERED;
	int error;

	if (!q->shared)
		return 0;
	if (offered && (error = tool_set_identity(&tools, q->tools)) < 0)
		return error;
	parts[3] = tools.ptr;
	if ((error = hash_text(q->group_id, parts, offered ? 4 : 3)) == 0)
		memcpy(q->group, q->group_id, 16);
	buf_release(&tools);
	return error;
}

/* Send it now, or hold it while another question of its shared part warms the cache. */
static int ask_start(struct asker *a, struct ask *q)
{
	if (warm_wanted(a, q) && !warmed(a, q->group) && warm_pending(a, q)) {
		q->held = true;
		return 0;
	}
	q->warming = warm_wanted(a, q) && !warmed(a, q->group);
	q->hold_ms = llm_tokens(strlen(q->shared ? q->shared : "")) * WARM_HOLD_PER_1K / 1000;
	q->hold_ms = q->hold_ms < WARM_HOLD_MIN ? WARM_HOLD_MIN : q->hold_ms > WARM_HOLD_MAX ? WARM_HOLD_MAX :
		q->hold_ms;
	return send_question(a, q);
}

int ask_submit(struct asker *a, uint64_t *id, const struct ask_spec *spec)
{
	return ask_submit_tools(a, id, spec, NULL);
}

int ask_submit_tools(struct asker *a, uint64_t *id, const struct ask_spec *spec, const struct ask_tools *tools)
{
	struct ask *q = calloc(1, sizeof(*q));
	bool hit = false;
	int error;

	*id = 0;
	if (!q)
		return error_nomem();
	if (a->llm->provider == PROVIDER_NONE) {
		ask_free(q);
		return error_set(RL_ECONFIG, "%s", llm_setup_hint);
	}
	if ((error = ask_copy(q, spec, a->llm)) < 0 ||
	    (error = tools_choose(q, tools, a->llm,
				  tools ? refusal_get(&a->refusals, a->store, a->llm->base_url, q->model) : 0)) < 0 ||
	    (error = group_set(q)) < 0 || (error = cache_key(a, q)) < 0)
		goto fail;
	q->id = ++a->last_id;
	q->stream = !a->options.no_stream;
	if (!spec->no_cache && !q->no_keep && (error = from_cache(a, q, &hit)) < 0)
		goto fail;
	if (hit) {
		*id = q->id;
		ask_free(q);
		return 0;
	}
	if ((error = live_add(a, q)) < 0)
		goto fail;
	*id = q->id;
	if ((error = ask_start(a, q)) < 0) {
		live_remove(a, q);
		*id = 0;
	}
	return error;
fail:
	ask_free(q);
	return error;
}

int ask_call_build(struct llm_call *out, const struct llm_config *llm, const struct asker_options *options,
		   const struct ask_spec *spec)
{
	return ask_call_build_tools(out, llm, options, spec, NULL);
}

int ask_call_build_tools(struct llm_call *out, const struct llm_config *llm, const struct asker_options *options,
			 const struct ask_spec *spec, const struct ask_tools *tools)
{
	struct question question;
	struct ask q = { 0 };
	int error;

	memset(out, 0, sizeof(*out));
	if (llm->provider == PROVIDER_NONE)
		return error_set(RL_ECONFIG, "%s", llm_setup_hint);
	q.stream = !options || !options->no_stream;
	if ((error = ask_copy(&q, spec, llm)) == 0 && (error = tools_choose(&q, tools, llm, 0)) == 0 &&
	    (error = group_set(&q)) == 0)
		error = call_build(out, &question, llm, &q, NULL);
	ask_clear(&q);
	return error;
}

/* --- reading answers ----------------------------------------------------- */

/*
 * The answer in a reading's calls: the call of the answer's tool (tool,
 * Anthropic's forced tool), its arguments the answer's JSON text; without
 * tools offered (any), the first call, whatever the name a server gave
 * the forced tool. Whether there was one.
 */
static int answer_take(bool *found, struct reading *r, const char *tool, bool any)
{
	size_t i;

	*found = false;
	for (i = 0; i < r->ncalls; i++)
		if (any || (tool && r->calls[i].name && !strcmp(r->calls[i].name, tool))) {
			buf_clear(&r->text);
			*found = true;
			return r->calls[i].arguments.len ?
				buf_put(&r->text, r->calls[i].arguments.ptr, r->calls[i].arguments.len) : 0;
		}
	return 0;
}

/* The answer's text and calls, with the key a server may have echoed taken out. */
static int read_reply(struct reading *out, const struct provider_ops *ops, const char *body, size_t len)
{
	int error = reading_read(out, ops, body, len);
	size_t i;

	if (error)
		return error;
	secret_redact(&out->text);
	for (i = 0; i < out->ncalls; i++)
		secret_redact(&out->calls[i].arguments);
	return 0;
}

int ask_read_body(struct reading *out, const struct provider_ops *ops, const char *body, size_t len)
{
	bool found;
	int error = read_reply(out, ops, body, len);

	return error ? error : answer_take(&found, out, NULL, true);
}

static void settle_error(struct asker *a, struct ask *q, enum ask_status status, long http,
			 const char *why)
{
	struct ask_event *ev = event_push(a, q, status);

	if (ev) {
		ev->http_status = http;
		snprintf(ev->error, sizeof(ev->error), "%s", why);
		event_calls(ev, q);
	}
	if (q->warming)
		warm_release(a, q->group);
	live_remove(a, q);
}

/* An answer the output cap cut off is no answer: say so, and what to set. */
static int cut_off_error(const struct asker *a, const struct ask *q)
{
	const struct model_info *info;
	long cap;

	models_lookup(&info, a->llm->models, provider_name(a->llm->provider), q->model);
	cap = output_cap(a->llm, info);
	return error_set(RL_EPARSE, "the model hit its output limit (%ld tokens) before the answer was "
			 "complete: raise it (git config revline.maxTokens %ld) or narrow the rule", cap, cap * 2);
}

static void usage_add(struct usage *sum, const struct usage *more)
{
	sum->tokens_in += more->tokens_in;
	sum->tokens_cached += more->tokens_cached;
	sum->tokens_cache_write += more->tokens_cache_write;
	sum->tokens_out += more->tokens_out;
}

/*
 * The bound the turn just run reached, in q->stop, or false: the turns,
 * the bytes of results, or the deadline, which the next turn (about as
 * long as this one, twice for the answer after it) would not fit.
 */
static bool bound_reached(struct asker *a, struct ask *q, long turn_ms)
{
	const struct ask_tool_limits *l = &q->tools->limits;
	long left = sched_deadline_left_ms(a->sched);

	if (q->turns >= l->turns)
		snprintf(q->stop, sizeof(q->stop), "the limit of %d tool turns", l->turns);
	else if (q->tool_bytes >= l->bytes_max)
		snprintf(q->stop, sizeof(q->stop), "the limit of %zu bytes of tool results", l->bytes_max);
	else if (left >= 0 && left < 2 * turn_ms)
		snprintf(q->stop, sizeof(q->stop), "the check's deadline (%ld s left)", left / 1000);
	else
		return false;
	return true;
}

/* Run the model's calls and ask again with their results; at a bound, for the answer alone. */
static int tool_turn(struct asker *a, struct ask *q, struct reading *r, long turn_ms)
{
	int error;

	if (q->final)
		return error_set(RL_ERROR, "the model still called tools after %s was reached (%d tool turns, "
				 "%zu calls): it gave no answer", q->stop, q->turns, q->log.count);
	q->turns++;
	if ((error = tool_turn_run(&q->conv, &q->log, q->tools, r, q->turns, &q->tool_bytes)) < 0)
		return error;
	if (bound_reached(a, q, turn_ms)) {
		q->final = true;
		if ((error = conversation_note(&q->conv, q->stop)) < 0)
			return error;
	}
	if (!event_push(a, q, ASK_PROGRESS))
		return error_nomem();
	q->seen = 0;
	return send_question(a, q);
}

/* The answer read: its text, or the calls of a turn to run. */
static int read_answer(struct reading *r, bool *calls, struct asker *a, struct ask *q,
		       const struct sched_event *sev)
{
	const struct model_info *info;
	struct question question;
	char key[32];
	bool found = false;
	int error;

	*calls = false;
	models_lookup(&info, a->llm->models, provider_name(a->llm->provider), q->model);
	question_make(&question, key, a->llm, q, info);
	if ((error = read_reply(r, a->ops, sev->body ? sev->body : "", sev->body_len)) < 0 ||
	    (error = answer_take(&found, r, answer_tool(a->llm, &question), !question.tools)) < 0)
		return error;
	usage_add(&q->usage, &r->usage);
	if (!found && r->ncalls) {
		*calls = true;
		return 0;
	}
	if ((error = answer_size_check(r->text.len)) < 0 || (r->truncated && (error = cut_off_error(a, q)) < 0))
		return error;
	return 0;
}

static void on_done(struct asker *a, struct ask *q, const struct sched_event *sev)
{
	struct reading r;
	struct ask_event *ev;
	bool calls;

	if (q->warming)
		warm_release(a, q->group);
	if (read_answer(&r, &calls, a, q, sev) < 0 || (calls && tool_turn(a, q, &r, sev->duration_ms) < 0)) {
		reading_release(&r);
		settle_error(a, q, ASK_ERROR, sev->http_status, error_message());
		return;
	}
	if (calls) {
		reading_release(&r);
		return;
	}
	usage_price(&q->usage, a->llm, q->model);
	if ((ev = event_push(a, q, ASK_DONE))) {
		ev->text = buf_detach(&r.text);
		ev->usage = q->usage;
		ev->http_status = sev->http_status;
		ev->keep_model = q->no_keep ? NULL : strdup(q->model);
		memcpy(ev->keep_key, q->key, sizeof(ev->keep_key));
		event_calls(ev, q);
	}
	reading_release(&r);
	live_remove(a, q);
}

/*
 * A refused parameter: asked again without it, once, and remembered.
 * Tools are refused only of a first request (a later one carries the
 * turns); the answer then read none, and is cached as one without tools.
 */
static bool retry_refused(struct asker *a, struct ask *q, const struct sched_event *sev)
{
	const struct model_info *info;
	struct question question;
	char key[32];
	unsigned bit;

	if (sev->status != SCHED_HTTP_ERROR || q->refusals >= REFUSALS_MAX)
		return false;
	models_lookup(&info, a->llm->models, provider_name(a->llm->provider), q->model);
	question_make(&question, key, a->llm, q, info);
	if (!(bit = refusal_of(&question, question.tools && !q->conv.nturns, sev->http_status, sev->body,
			       sev->body_len)) || (q->refused & bit))
		return false;
	q->refused |= bit;
	q->refusals++;
	refusal_learn(&a->refusals, a->store, a->llm->base_url, q->model, bit);
	if (bit == BIT(REFUSED_TOOLS)) {
		q->tools_use = ASK_TOOLS_REFUSED;
		/* Its requests now begin as a question's that offers none. */
		if (group_set(q) < 0 || cache_key(a, q) < 0)
			return false;
	}
	q->task = 0;
	return send_question(a, q) == 0;
}

static void on_settled(struct asker *a, struct ask *q, const struct sched_event *sev)
{
	struct buf why = BUF_INIT;

	q->attempts += sev->attempts;
	q->task = 0;
	if (sev->status == SCHED_DONE) {
		on_done(a, q, sev);
		return;
	}
	if (retry_refused(a, q, sev))
		return;
	if (sev->status == SCHED_HTTP_ERROR)
		llm_error_text(&why, sev->http_status, sev->body, sev->body_len);
	else
		buf_puts(&why, sev->status == SCHED_CANCELLED ? "cancelled" : sev->error);
	settle_error(a, q, sev->status == SCHED_TIMEOUT ? ASK_TIMEOUT :
		     sev->status == SCHED_CANCELLED ? ASK_CANCELLED : ASK_ERROR,
		     sev->http_status, why.ptr ? why.ptr : "failed");
	buf_release(&why);
}

static void on_sched_event(struct asker *a, const struct sched_event *sev)
{
	struct ask *q = live_by_task(a, sev->task);

	if (!q)
		return;
	if (sev->status != SCHED_STARTED) {
		on_settled(a, q, sev);
		return;
	}
	q->sent_ms = clock_ms();
	if (!q->started) {
		q->started = true;
		event_push(a, q, ASK_STARTED);
	}
}

/* Milliseconds until a warming question's hold runs out, or -1 when none is warming. */
static int64_t warm_hold_left(const struct asker *a)
{
	int64_t left = -1, now = clock_ms();
	size_t i;

	for (i = 0; i < a->nlive; i++) {
		const struct ask *q = a->live[i];
		int64_t l;

		if (!q->warming || !q->sent_ms)
			continue;
		l = q->sent_ms + q->hold_ms - now;
		l = l < 0 ? 0 : l;
		left = left < 0 || l < left ? l : left;
	}
	return left;
}

/* The holds that ran out let their questions go. */
static int warm_expire(struct asker *a)
{
	int64_t now = clock_ms();
	size_t i;
	int error = 0;

	for (i = 0; i < a->nlive && !error; i++)
		if (a->live[i]->warming && a->live[i]->sent_ms && now - a->live[i]->sent_ms >= a->live[i]->hold_ms)
			error = warm_release(a, a->live[i]->group);
	return error;
}

/* Complete "data:" lines in text[from, to): the stream's events, about a token each. */
static long count_events(const char *text, size_t from, size_t to, size_t *seen)
{
	const char *p = text + from, *end = text + to, *nl;
	long n = 0;

	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		bool done = nl - p >= 12 && !memcmp(p, "data: [DONE]", 12);

		if (nl - p >= 5 && !memcmp(p, "data:", 5) && !done)
			n++;
		p = nl + 1;
	}
	*seen = (size_t)(p - text);
	return n;
}

/* What the running streams brought since the last step. */
static int watch_streams(struct asker *a)
{
	size_t i;
	int error = 0;

	for (i = 0; i < a->nlive && !error; i++) {
		struct ask *q = a->live[i];
		const char *body;
		size_t len;
		long n;

		if (!q->task || sched_peek(&body, &len, a->sched, q->task) < 0 || len <= q->seen)
			continue;
		q->got_byte = true;
		if ((n = count_events(body, q->seen, len, &q->seen)) <= 0)
			continue;
		/* The answer began (not an error's body): the prompt is read, and was taken. */
		if (q->warming)
			error = warm_release(a, q->group);
		q->streamed += n;
		if (!error && !event_push(a, q, ASK_PROGRESS))
			error = error_nomem();
	}
	return error;
}

static int drain(struct asker *a, int error)
{
	struct sched_event sev;

	if (!error)
		error = watch_streams(a);
	if (!error)
		error = warm_expire(a);
	while (sched_next(a->sched, &sev)) {
		on_sched_event(a, &sev);
		sched_event_release(&sev);
	}
	return error;
}

/* --- the loop ------------------------------------------------------------ */

static int member_timeout(void *ctx)
{
	struct asker *a = ctx;
	int64_t hold = warm_hold_left(a);

	if (a->events.count)
		return 0;
	return hold < 0 ? -1 : hold > INT_MAX ? INT_MAX : (int)hold;
}

static int member_step(void *ctx, const struct pollfd *fds, int n)
{
	(void)fds;
	(void)n;
	return drain(ctx, 0);
}

int asker_new(struct asker **out, const struct llm_config *llm, const struct sched_options *sched,
	      const struct asker_options *options, struct store *store, struct poll_group *group)
{
	struct asker *a = calloc(1, sizeof(*a));
	const struct queue events = QUEUE_INIT(struct ask_event);
	int error;

	*out = NULL;
	if (!a)
		return error_nomem();
	a->events = events;
	a->llm = llm;
	a->ops = llm->provider == PROVIDER_ANTHROPIC ? &provider_anthropic : &provider_openai;
	a->store = store;
	if (options)
		a->options = *options;
	a->member.timeout = member_timeout;
	a->member.step = member_step;
	a->member.ctx = a;
	/* Without random bytes, every body is built whole. */
	a->splicing = body_splice_init(&a->splice) == 0;
	error_clear();
	/* After the scheduler: its events are taken in the same step. */
	if ((error = sched_new(&a->sched, sched, group)) < 0 ||
	    (error = poll_group_join(sched_group(a->sched), &a->member)) < 0) {
		sched_free(a->sched);
		free(a);
		return error;
	}
	*out = a;
	return 0;
}

void asker_free(struct asker *a)
{
	size_t i;

	if (!a)
		return;
	poll_group_leave(&a->member);
	sched_free(a->sched);
	for (i = 0; i < a->nlive; i++)
		ask_free(a->live[i]);
	for (i = 0; i < a->events.count; i++)
		ask_event_release(queue_at(&a->events, i));
	strings_free(&a->warmed);
	body_splice_release(&a->splice);
	refusal_memory_release(&a->refusals);
	free(a->live);
	queue_release(&a->events);
	free(a);
}

void asker_drop_store(struct asker *a)
{
	a->store = NULL;
}

int ask_attempt(int *attempt, long *elapsed_ms, struct asker *a, uint64_t id)
{
	size_t i;
	int error;

	*attempt = 0;
	*elapsed_ms = -1;
	for (i = 0; i < a->nlive; i++) {
		const struct ask *q = a->live[i];

		if (q->id != id || !q->task)
			continue;
		if ((error = sched_attempt(attempt, elapsed_ms, a->sched, q->task)) < 0)
			return error;
		*attempt += q->attempts;
		return 0;
	}
	return RL_ENOTFOUND;
}

void asker_cancel_all(struct asker *a)
{
	size_t i = a->nlive;

	while (i-- > 0)
		if (i < a->nlive && !a->live[i]->task)
			settle_error(a, a->live[i], ASK_CANCELLED, 0, "cancelled");
	sched_cancel_all(a->sched);
	drain(a, 0);
}

int asker_run(struct asker *a)
{
	return drain(a, sched_step(a->sched, NULL, 0));
}

int asker_wait(struct asker *a, int max_ms)
{
	int64_t hold = warm_hold_left(a);

	if (a->events.count)
		return 0;
	if (hold >= 0 && (max_ms < 0 || hold < max_ms))
		max_ms = (int)hold;
	return poll_group_wait(sched_group(a->sched), max_ms);
}

struct sched *asker_sched(struct asker *a)
{
	return a->sched;
}
