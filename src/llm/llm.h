#ifndef REVLINE_LLM_H
#define REVLINE_LLM_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/*
 * LLM providers and their settings. Each provider's request and answer
 * shapes are its backend's (provider.h); the request cycle is ask.h's.
 * X(ID, name).
 */
#define PROVIDER_LIST(X) \
	X(PROVIDER_NONE,      "none") \
	X(PROVIDER_OPENAI,    "openai") \
	X(PROVIDER_ANTHROPIC, "anthropic")

enum provider {
#define PROVIDER_ENUM(id, name) id,
	PROVIDER_LIST(PROVIDER_ENUM)
#undef PROVIDER_ENUM
};

const char *provider_name(enum provider provider);

struct config;
struct models;

/*
 * The settings (DESIGN §10): REVLINE_PROVIDER (revline.provider),
 * REVLINE_BASE_URL or OPENAI_BASE_URL (revline.baseUrl), REVLINE_MODEL
 * (revline.model), revline.mapModel, revline.reduceModel (both default to the
 * model), revline.reasoningEffort, and the key from OPENAI_API_KEY or
 * ANTHROPIC_API_KEY or the output of revline.apiKeyCommand. Without a
 * provider setting, one is chosen from what is set (a key or a base URL);
 * with nothing set the provider is none. The key lives only in memory.
 */
struct llm_config {
	enum provider provider;
	char *base_url;         /* without a trailing slash */
	char *model;
	char *map_model;        /* the rules' requests (a cheap model), unless a rule names one */
	char *reduce_model;     /* the reduce step's (the best model) */
	char *api_key;          /* NULL when none; never written anywhere */
	const char *key_source; /* where the key came from, for `doctor` */
	bool json_mode;         /* ask for a JSON response format (OpenAI) */
	long max_tokens;        /* the answer's limit, always sent */
	char *reasoning_effort; /* revline.reasoningEffort, or NULL (the model's default) */
	struct models *models;  /* what each model takes (models.h) */
};

/* The temperature sent to a model that takes one: steady answers. */
#define LLM_TEMPERATURE 0.2
/* The cap for a model that reasons (its reasoning counts in it): OpenAI's advice. */
#define LLM_REASONING_CAP 25000

int llm_config_load(struct llm_config *out, struct config *config);
void llm_config_release(struct llm_config *config);
/* One of the settings' strings (base_url, model, ...) replaced by a copy of value. */
int llm_config_set(char **field, const char *value);
/* openai, anthropic or none, in any case: false for another name. */
bool provider_parse(enum provider *out, const char *name);
/*
 * The settings moved to another provider (revline bench --compare
 * provider=...): base_url, or the provider's own; its default model for
 * the map and reduce steps; its key (ANTHROPIC_API_KEY or OPENAI_API_KEY,
 * else revline.apiKeyCommand), the old one wiped.
 */
int llm_config_switch(struct llm_config *config, enum provider provider, const char *base_url,
		      struct config *settings);

/* One line that says how to configure a provider. */
extern const char llm_setup_hint[];

/* An HTTP request as the request cycle (ask.h) hands it to the scheduler. */
struct llm_call {
	char *url;
	char **headers;         /* "Name: value" (one may hold the key: never print them) */
	size_t nheaders;
	size_t headers_alloc;
	char *body;
	size_t body_len;
};

/* Add the header fmt % value ("x-api-key: %s"). */
int llm_call_header(struct llm_call *call, const char *fmt, const char *value);
void llm_call_release(struct llm_call *call);

/* The error message an HTTP error body carries, for the user ("model not found"). */
void llm_error_text(struct buf *out, long http_status, const char *body, size_t len);

/*
 * The JSON value (an object or an array) in a model's answer that may wrap
 * it in prose or in code fences. RL_EPARSE with a message quoting the
 * answer's start when there is none.
 */
int llm_extract_json(json_t **out, const char *text, size_t len);

/*
 * Whether the provider answers: GET {base}/models with the key, waiting
 * up to timeout_s. The message says what happened ("HTTP 200 in 85 ms",
 * "connection refused"); 0 when it answered with 2xx. Blocks: for
 * `revline doctor` only.
 */
int llm_ping(struct buf *message, const struct llm_config *config, long timeout_s);

/* A rough token count: what a prompt of this many bytes costs. */
long llm_tokens(size_t bytes);

#endif
