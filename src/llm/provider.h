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
	bool cache_breakpoint;  /* Anthropic: cache_control after the shared part */
	bool stream;
	bool stream_usage;      /* OpenAI: stream_options.include_usage */
};

/* An answer being read: its text (or the forced tool's JSON) and usage. */
struct reading {
	struct buf text;
	struct usage usage;
	char *error;            /* an error the server sent in the stream, or a refusal */
	bool truncated;         /* cut off by the output cap (finish_reason length, stop_reason max_tokens) */
};

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

void reading_release(struct reading *r);

#endif
