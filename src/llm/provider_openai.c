/*
 * OpenAI's chat completions API, which OpenAI-compatible servers (vLLM,
 * llama.cpp's server, Ollama, LM Studio, routers) speak too.
 */
#include "provider.h"
#include "status.h"

#include <string.h>

static json_t *response_format(const struct question *q)
{
	if (q->structured == MODEL_STRUCTURED_JSON_SCHEMA && q->schema)
		return json_pack("{s:s, s:{s:s, s:b, s:O}}", "type", "json_schema", "json_schema",
				 "name", q->schema_name, "strict", 1, "schema", q->schema);
	if (q->structured != MODEL_STRUCTURED_NONE)
		return json_pack("{s:s}", "type", "json_object");
	return NULL;
}

/*
 * The system message, then one user message whose text starts with the
 * shared part: the prefix every request of a check has in common, which
 * is what OpenAI's automatic prompt cache (and vLLM's and llama.cpp's
 * prefix caches) can reuse.
 */
static int openai_body(json_t **out, const struct question *q)
{
	struct buf user = BUF_INIT;
	json_t *body = NULL;
	int error;

	*out = NULL;
	if ((error = provider_user_text(&user, q)) < 0)
		return error;
	body = json_pack("{s:s, s:[{s:s, s:s}, {s:s, s:s}]}", "model", q->model, "messages", "role",
			 "system", "content", q->system, "role", "user", "content", user.ptr);
	buf_release(&user);
	if (!body ||
	    (q->structured != MODEL_STRUCTURED_NONE &&
	     !provider_set(body, "response_format", response_format(q))) ||
	    (q->temperature && !provider_set(body, "temperature", json_real(LLM_TEMPERATURE))) ||
	    !provider_set(body, q->cap_param, json_integer(q->cap)) ||
	    (q->effort && !provider_set(body, "reasoning_effort", json_string(q->effort))) ||
	    (q->cache_key && !provider_set(body, "prompt_cache_key", json_string(q->cache_key))) ||
	    (q->stream && !provider_set(body, "stream", json_true())) ||
	    (q->stream && q->stream_usage &&
	     !provider_set(body, "stream_options", json_pack("{s:b}", "include_usage", 1)))) {
		json_decref(body);
		return error_set(RL_ERROR, "cannot build the request (is the prompt valid UTF-8?)");
	}
	*out = body;
	return 0;
}

static int openai_headers(struct llm_call *call, const char *key)
{
	return key ? llm_call_header(call, "Authorization: Bearer %s", key) : 0;
}

static long count(json_t *object, const char *key)
{
	json_t *v = json_object_get(object, key);

	return json_is_integer(v) && json_integer_value(v) > 0 ? (long)json_integer_value(v) : 0;
}

/* prompt_tokens counts the cached ones too (prompt_tokens_details.cached_tokens). */
static void read_usage(struct usage *out, json_t *usage)
{
	if (!json_is_object(usage))
		return;
	out->tokens_in = count(usage, "prompt_tokens");
	out->tokens_cached = count(json_object_get(usage, "prompt_tokens_details"), "cached_tokens");
	out->tokens_out = count(usage, "completion_tokens");
}

/* A structured-output model may decline: message.refusal instead of content. */
static int refusal(struct reading *out, json_t *message)
{
	json_t *why = json_object_get(message, "refusal");

	if (!json_is_string(why))
		return 0;
	free(out->error);
	out->error = strdup(json_string_value(why));
	return error_set(RL_EPARSE, "the model declined to answer: %.200s", json_string_value(why));
}

/* The answer stopped at the output cap. */
static bool cut_off(json_t *choice)
{
	const char *why = json_string_value(json_object_get(choice, "finish_reason"));

	return why && !strcmp(why, "length");
}

static int openai_whole(struct reading *out, json_t *root)
{
	json_t *choice = json_array_get(json_object_get(root, "choices"), 0);
	json_t *message = json_object_get(choice, "message");
	json_t *content = json_object_get(message, "content");

	read_usage(&out->usage, json_object_get(root, "usage"));
	out->truncated = cut_off(choice);
	if (!json_is_string(content))
		return refusal(out, message) < 0 ? RL_EPARSE :
			error_set(RL_EPARSE, "the server's answer has no choices[0].message.content");
	return buf_puts(&out->text, json_string_value(content));
}

/* A chat.completion.chunk: a piece of the text; the last one may carry the usage. */
static int openai_event(struct reading *out, const char *event, json_t *data)
{
	json_t *choice = json_array_get(json_object_get(data, "choices"), 0);
	json_t *delta = json_object_get(choice, "delta");
	json_t *piece = json_object_get(delta, "content"), *err = json_object_get(data, "error");

	(void)event;
	out->truncated |= cut_off(choice);
	/* Some servers (Foundry Local) put "error": null in every chunk. */
	if (err && !json_is_null(err)) {
		json_t *msg = json_is_object(err) ? json_object_get(err, "message") : err;

		return error_set(RL_ERROR, "the server broke off the answer: %.200s",
				 json_is_string(msg) ? json_string_value(msg) : "an error");
	}
	if (json_is_object(json_object_get(data, "usage")))
		read_usage(&out->usage, json_object_get(data, "usage"));
	if (json_is_string(json_object_get(delta, "refusal")))
		return refusal(out, delta);
	return json_is_string(piece) ? buf_puts(&out->text, json_string_value(piece)) : 0;
}

const struct provider_ops provider_openai = {
	"chat/completions", openai_body, openai_headers, openai_whole, openai_event,
};
