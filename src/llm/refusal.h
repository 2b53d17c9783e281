#ifndef REVLINE_REFUSAL_H
#define REVLINE_REFUSAL_H

#include <stdbool.h>
#include <stddef.h>

#include "provider.h"

/*
 * What servers refuse of a model (for the request cycle, ask.c): the
 * parameter a 400 (or 422) answer names, of those a question sent, and
 * what was learnt, remembered per server (its base URL) and model, for
 * the run and in the store (store_refusal_*) for the next.
 */

/* What a server may refuse by name, in the order a refusal is matched: X(ID, name). */
#define REFUSED_LIST(X) \
	X(REFUSED_TEMPERATURE,           "temperature") \
	X(REFUSED_MAX_TOKENS,            "max_tokens") \
	X(REFUSED_MAX_COMPLETION_TOKENS, "max_completion_tokens") \
	X(REFUSED_EFFORT,                "reasoning_effort") \
	X(REFUSED_CACHE_KEY,             "prompt_cache_key") \
	X(REFUSED_STREAM_OPTIONS,        "stream_options") \
	X(REFUSED_STREAM,                "stream") \
	X(REFUSED_CACHE_CONTROL,         "cache_control") \
	X(REFUSED_TOOLS,                 "tools") \
	X(REFUSED_JSON_SCHEMA,           "json_schema") \
	X(REFUSED_JSON_OBJECT,           "json_object")

enum refused_bit {
#define REFUSED_ENUM(id, name) id##_BIT,
	REFUSED_LIST(REFUSED_ENUM)
#undef REFUSED_ENUM
	REFUSED_COUNT
};

#define BIT(id) (1u << id##_BIT)

struct store;

struct refusal_memory {
	struct quirk *quirks;
	size_t count, alloc;
};

/*
 * The parameter of those q sent that a 400 (or 422) answer refuses by
 * name, as a bit, or 0: the error's param field first, then its message.
 * tools_sent: q offered tools on its first request (a server that does
 * not take them says so in many ways: Ollama's "does not support tools",
 * vLLM's "auto" tool choice that needs a flag).
 */
unsigned refusal_of(const struct question *q, bool tools_sent, long http, const char *body, size_t len);

/* What this run, or an earlier one (store, may be NULL), learnt server refuses of model. */
unsigned refusal_get(struct refusal_memory *m, struct store *store, const char *server, const char *model);
/* Remember that server refused bit of model, for this run and in store (may be NULL). */
void refusal_learn(struct refusal_memory *m, struct store *store, const char *server, const char *model,
		   unsigned bit);
void refusal_memory_release(struct refusal_memory *m);

#endif
