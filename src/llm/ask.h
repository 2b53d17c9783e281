#ifndef REVLINE_ASK_H
#define REVLINE_ASK_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llm.h"
#include "provider.h"
#include "schema.h"
#include "sched.h"
#include "tools.h"

/*
 * The request cycle: one LLM question from its prompt to the answer's
 * text, for the map and reduce steps, fixes and fix detection alike.
 *
 * A question is first looked up in the result cache (the store's
 * llm_cache). Otherwise its body is built for the model's row in the
 * model table (models.h) by the provider's backend (provider.h): the
 * answer's schema as structured output, an output cap always, streamed
 * (server-sent events) unless revline.stream is false. The scheduler
 * (sched.h) sends it with its retries, backoff and Retry-After. A server
 * that refuses a parameter by name with HTTP 400 (temperature, max_tokens,
 * reasoning_effort, json_schema, json_object, stream...) is asked once
 * more without it, and that is remembered for the server and model: for
 * this run, and in the store for the next (store_refusal_*). Structured
 * output falls back json_schema -> json_object -> the prompt alone.
 *
 * Questions that begin with the same shared part (a check's map requests)
 * are laid out for prompt caches: the shared part first, the rest after;
 * OpenAI gets a prompt_cache_key per shared part, Anthropic a cache_control
 * breakpoint after it. A provider writes its cache only once it has read
 * a prompt, so with warming on, the first question of each shared part
 * goes alone and the others of that part wait for its first streamed
 * byte.
 *
 * A question may offer tools (tools.h): to a model the model table marks
 * as taking them, its request offers the caller's read-only tools, the
 * model's calls are run by the caller's executor and their results sent
 * back in a further request, until the model answers (still held to the
 * answer's schema) or a bound is reached. A server that refuses tools is
 * asked again without them, and that is remembered like the other
 * refusals. What became of the tools and every call is in the event.
 *
 * It never blocks: it and its scheduler are members of the front end's
 * poll group (poll_group.h), which waits and steps them; events come from
 * asker_next.
 */

struct store;
struct asker;

/* When to warm the prompt cache first: X(ID, setting). */
#define WARM_LIST(X) \
	X(WARM_AUTO, "auto") \
	X(WARM_ON,   "true") \
	X(WARM_OFF,  "false")

enum warm_mode {
#define WARM_ENUM(id, name) id,
	WARM_LIST(WARM_ENUM)
#undef WARM_ENUM
};

/* All zero: the defaults. */
struct asker_options {
	bool no_stream;         /* revline.stream false */
	enum warm_mode warm;    /* revline.warmCache (default auto: where the
				 * model's row gives a cacheable minimum the
				 * shared part reaches) */
};

struct config;
/* The defaults, then revline.stream and revline.warmCache; RL_ECONFIG names a bad one. */
int asker_options_load(struct asker_options *out, struct config *config);

struct ask_spec {
	enum schema_kind kind;  /* the answer's schema, and the cache key's */
	const char *model;
	const char *effort;     /* NULL: the configured one */
	const char *system;
	const char *shared;     /* the part shared with other questions, or NULL */
	const char *tail;       /* the question's own part (the whole user message when no shared) */
	size_t weight;          /* the prompt's bytes: the scheduler's order and timeout */
	bool no_cache;          /* do not read the result cache (the answer is still kept) */
	void *user;
};

enum ask_status {
	ASK_STARTED,            /* not settled: its first transfer began */
	ASK_PROGRESS,           /* not settled: more of the streamed answer came */
	ASK_DONE,               /* the answer's text */
	ASK_ERROR,              /* an HTTP error, a refused request, a broken answer... */
	ASK_TIMEOUT,
	ASK_CANCELLED,
};

struct ask_event {
	uint64_t id;
	void *user;
	enum ask_status status;
	char *text;             /* ASK_DONE: the answer (the JSON text for a forced tool) */
	struct usage usage;     /* ASK_DONE: what it billed (a cached answer: what it billed then) */
	bool cached;            /* ASK_DONE from the result cache: no request made */
	int attempts;           /* transfers made, refusals' retries included */
	long streamed;          /* events of the answer received so far (about a token each) */
	long http_status;
	bool store_failed;      /* keeping the answer in the store failed (error_message says why);
				 * the asker then stops using the store */
	char *keep_model;       /* ASK_DONE, answered now: kept as the event is taken (internal) */
	char keep_key[41];
	char error[320];        /* what went wrong, for the user */
	/* Tools (tools.h), settled events: */
	enum ask_tools_use tools;       /* what became of them (ASK_TOOLS_NONE without) */
	int tool_turns;                 /* requests whose calls ran (ASK_PROGRESS: so far) */
	struct ask_tool_call *tool_calls;       /* every call the model made, in order */
	size_t ntool_calls;
	size_t tool_calls_dropped;      /* calls past READING_CALLS_MAX in one answer: not kept */
	char tools_stop[160];           /* the bound that ended the calls ("the limit of 6 tool
					 * turns"), or "" */
};

/*
 * llm and store (may be NULL) must outlive the asker. It and its scheduler
 * join group (poll_group.h; NULL: a group of their own).
 */
int asker_new(struct asker **out, const struct llm_config *llm, const struct sched_options *sched,
	      const struct asker_options *options, struct store *store, struct poll_group *group);
/* Cancels everything; no more events. */
void asker_free(struct asker *asker);
/* Stop reading and writing the store (after it failed). */
void asker_drop_store(struct asker *asker);

/*
 * Ask. A cached answer settles at once (its ASK_DONE is the next event).
 * *id identifies the question in its events.
 */
int ask_submit(struct asker *asker, uint64_t *id, const struct ask_spec *spec);
/*
 * Ask, offering tools (tools.h; NULL: none, as ask_submit): copied and
 * checked (RL_EUSAGE names what is wrong), but the executor's ctx must
 * outlive the question.
 */
int ask_submit_tools(struct asker *asker, uint64_t *id, const struct ask_spec *spec,
		     const struct ask_tools *tools);
/*
 * Which attempt a question is at (its transfers, refusals' retries
 * included, 1 for the first) and how long the running one has gone (ms;
 * -1 while it waits). RL_ENOTFOUND when it is not being asked.
 */
int ask_attempt(int *attempt, long *elapsed_ms, struct asker *asker, uint64_t id);
void asker_cancel_all(struct asker *asker);

/* Send at once what the scheduler can start, and take its events (no wait). */
int asker_run(struct asker *asker);
/* Wait up to max_ms on the asker's poll group, and step it. */
int asker_wait(struct asker *asker, int max_ms);
/*
 * The next event. An answer is kept in the result cache as its event is
 * taken, not as it arrives, so that a store that hangs (locked) holds the
 * events taken after it, not those that arrived with it.
 */
bool asker_next(struct asker *asker, struct ask_event *out);
void ask_event_release(struct ask_event *event);

/* The scheduler underneath, for its deadline and timeouts. */
struct sched *asker_sched(struct asker *asker);

/* The request a question would be sent as, for the first time (for tests and benchmarks). */
int ask_call_build(struct llm_call *out, const struct llm_config *llm, const struct asker_options *options,
		   const struct ask_spec *spec);
/* The same, offering tools to a model that takes them. */
int ask_call_build_tools(struct llm_call *out, const struct llm_config *llm, const struct asker_options *options,
			 const struct ask_spec *spec, const struct ask_tools *tools);

/*
 * The text of a streamed or whole answer body, by the provider's shape (for
 * tests and fuzzing): a tool call in it is the forced answer tool's, its
 * arguments the text; r->calls keeps the calls.
 */
int ask_read_body(struct reading *out, const struct provider_ops *ops, const char *body, size_t len);

#endif
