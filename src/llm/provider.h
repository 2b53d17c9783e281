#ifndef REVLINE_PROVIDER_H
#define REVLINE_PROVIDER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "llm.h"
#include "models.h"
#include "usage.h"

/*
 * The providers, one file each behind one interface, as curl's lib/vtls
 * has one file per TLS backend: each shapes a question into its API's
 * request body and reads its answers, whole or streamed (server-sent
 * events). What to send (which parameters, which structured mode) is
 * decided by the request cycle (ask.h); a provider only writes it its way.
 */

struct tool_set;
struct conversation;

/* What the model may do with the tools of a question this turn. */
enum tool_choice {
	TOOL_CHOICE_AUTO,       /* call tools or answer (Anthropic with a forced answer tool: call one) */
	TOOL_CHOICE_ANSWER,     /* a bound was reached: no more calls, the answer now */
};

/* One question, as the request cycle decided to ask it. */
struct question {
	const char *model;
	const char *system;
	const char *shared;     /* what every request of a check begins with, or NULL */
	const char *tail;       /* this request's own part, after the shared one */
	const char *schema_name;
	const json_t *schema;   /* the answer's JSON schema */
	enum model_structured structured;
	bool temperature;       /* send LLM_TEMPERATURE */
	const char *cap_param;  /* "max_tokens" or "max_completion_tokens" */
	long cap;               /* the answer's cap, always sent */
	const char *effort;     /* reasoning_effort, or NULL */
	const char *cache_key;  /* OpenAI's prompt_cache_key, or NULL */
	bool cache_breakpoint;  /* Anthropic: cache_control after the shared part (and at the
				 * conversation's end) */
	bool stream;
	bool stream_usage;      /* OpenAI: stream_options.include_usage */
	/*
	 * The tools offered (tools.h), or NULL; the turns so far, after the
	 * user message, in order (the conversation only grows at its end);
	 * and what the model may do now. With a forced answer tool
	 * (Anthropic's json_schema), it is offered among the others, the
	 * model told to call one of them.
	 */
	const struct tool_set *tools;
	const struct conversation *conversation;
	enum tool_choice choice;
};

/* A tool call being read (whole, or assembled from a stream's pieces). */
struct reading_call {
	long index;             /* OpenAI's tool_calls[].index, Anthropic's content block index */
	char *id;
	char *name;
	struct buf arguments;   /* the JSON text of the arguments, as the model wrote it */
	bool cut;               /* longer than TOOLS_ARGS_MAX: the rest was dropped */
};

/* An answer being read: its text (or the forced tool's JSON), its tool calls, and usage. */
struct reading {
	struct buf text;
	struct usage usage;
	char *error;            /* an error the server sent in the stream, or a refusal */
	bool truncated;         /* cut off by the output cap (finish_reason length, stop_reason max_tokens) */
	struct reading_call *calls;     /* in the order they began */
	size_t ncalls, calls_alloc;
	size_t calls_dropped;   /* calls past READING_CALLS_MAX, not kept */
	long dropped_index;     /* the last of them (its pieces are not counted again) */
};

/* The most tool calls one answer's reading keeps; the others are counted only. */
#define READING_CALLS_MAX 128

struct provider_ops {
	const char *path;       /* after the base URL */
	/* The request body. */
	int (*body)(json_t **out, const struct question *q);
	/* The headers besides Content-Type (llm_call_header); key may be NULL. */
	int (*headers)(struct llm_call *call, const char *key);
	/* A whole (not streamed) answer. RL_EPARSE names what is missing. */
	int (*whole)(struct reading *out, json_t *root);
	/* One server-sent event (event may be NULL; data parsed). */
	int (*event)(struct reading *out, const char *event, json_t *data);
};

extern const struct provider_ops provider_openai;
extern const struct provider_ops provider_anthropic;

/* Shared by the backends: set key on body; false when it could not be made. */
bool provider_set(json_t *body, const char *key, json_t *value);
/* The whole user message: the shared part, a blank line, the tail. */
int provider_user_text(struct buf *out, const struct question *q);

/*
 * An answer's body, whole (JSON) or streamed (server-sent events), read by
 * the provider's ops into out: its text and its tool calls (reading.c).
 */
int reading_read(struct reading *out, const struct provider_ops *ops, const char *body, size_t len);
/*
 * The call at index (begun by an earlier piece), or a new one; *out is NULL
 * when the reading holds READING_CALLS_MAX already (the call is counted).
 */
int reading_call_at(struct reading_call **out, struct reading *r, long index);
/* Set a call's id or name (the first one given stays). */
int reading_call_name(struct reading_call *call, const char *id, const char *name);
/* Append a piece of a call's arguments, up to TOOLS_ARGS_MAX. */
int reading_call_append(struct reading_call *call, const char *piece, size_t len);
void reading_release(struct reading *r);

#endif
