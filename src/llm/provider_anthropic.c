/*
 * Anthropic's messages API. Structured answers come from a forced tool
 * whose input_schema is the answer's schema; the prompt cache is written
 * at a cache_control breakpoint put at the end of the shared part.
 */
#include "provider.h"
#include "status.h"

#include <string.h>

#define TOOL_DESCRIPTION "Report the answer. Call this tool exactly once with the whole answer."

static json_t *user_content(const struct question *q)
{
	json_t *shared;

	if (!q->shared)
		return json_string(q->tail);
	shared = json_pack("{s:s, s:s}", "type", "text", "text", q->shared);
	if (shared && q->cache_breakpoint &&
	    !provider_set(shared, "cache_control", json_pack("{s:s}", "type", "ephemeral"))) {
		json_decref(shared);
		return NULL;
	}
	return shared ? json_pack("[o, {s:s, s:s}]", shared, "type", "text", "text", q->tail) : NULL;
}

static bool add_tool(json_t *body, const struct question *q)
{
	if (q->structured != MODEL_STRUCTURED_JSON_SCHEMA || !q->schema)
		return true;
	return provider_set(body, "tools", json_pack("[{s:s, s:s, s:O}]", "name", q->schema_name,
						      "description", TOOL_DESCRIPTION,
						      "input_schema", q->schema)) &&
		provider_set(body, "tool_choice", json_pack("{s:s, s:s}", "type", "tool", "name",
							    q->schema_name));
}

static int anthropic_body(json_t **out, const struct question *q)
{
	json_t *body = json_pack("{s:s, s:s, s:[{s:s, s:o*}]}", "model", q->model, "system", q->system,
				 "messages", "role", "user", "content", user_content(q));

	*out = NULL;
	if (!body || !json_object_get(json_array_get(json_object_get(body, "messages"), 0), "content") ||
	    !add_tool(body, q) ||
	    (q->temperature && !provider_set(body, "temperature", json_real(LLM_TEMPERATURE))) ||
	    !provider_set(body, "max_tokens", json_integer(q->cap)) ||
	    (q->stream && !provider_set(body, "stream", json_true()))) {
		json_decref(body);
		return error_set(RL_ERROR, "cannot build the request (is the prompt valid UTF-8?)");
	}
	*out = body;
	return 0;
}

static int anthropic_headers(struct llm_call *call, const char *key)
{
	int error = llm_call_header(call, "anthropic-version: %s", "2023-06-01");

	return !error && key ? llm_call_header(call, "x-api-key: %s", key) : error;
}

static long count(json_t *object, const char *key)
{
	json_t *v = json_object_get(object, key);

	return json_is_integer(v) && json_integer_value(v) > 0 ? (long)json_integer_value(v) : 0;
}

/*
 * input_tokens is only what came after the last breakpoint: all the input
 * is that, plus what was read from the cache and what was written to it.
 * A streamed message_delta may repeat the input side; a count it leaves
 * out stays as message_start said.
 */
static void read_usage(struct usage *out, json_t *usage)
{
	long in, read, written;

	if (!json_is_object(usage))
		return;
	in = json_object_get(usage, "input_tokens") ? count(usage, "input_tokens") :
		out->tokens_in - out->tokens_cached - out->tokens_cache_write;
	read = json_object_get(usage, "cache_read_input_tokens") ?
		count(usage, "cache_read_input_tokens") : out->tokens_cached;
	written = json_object_get(usage, "cache_creation_input_tokens") ?
		count(usage, "cache_creation_input_tokens") : out->tokens_cache_write;
	out->tokens_in = in + read + written;
	out->tokens_cached = read;
	out->tokens_cache_write = written;
	if (json_object_get(usage, "output_tokens"))
		out->tokens_out = count(usage, "output_tokens");
}

/* The text blocks, or the forced tool's input as JSON text. */
/* The answer stopped at the output cap (a message, or a message_delta's delta). */
static bool cut_off(json_t *object)
{
	const char *why = json_string_value(json_object_get(object, "stop_reason"));

	return why && !strcmp(why, "max_tokens");
}

static int anthropic_whole(struct reading *out, json_t *root)
{
	json_t *content = json_object_get(root, "content"), *part;
	size_t i;
	int error = 0;

	read_usage(&out->usage, json_object_get(root, "usage"));
	out->truncated = cut_off(root);
	if (!json_is_array(content))
		return error_set(RL_EPARSE, "the server's answer has no content");
	json_array_foreach(content, i, part) {
		const char *type = json_string_value(json_object_get(part, "type"));

		if (type && !strcmp(type, "tool_use") && json_is_object(json_object_get(part, "input"))) {
			char *text = json_dumps(json_object_get(part, "input"), JSON_COMPACT);

			buf_clear(&out->text);
			error = text ? buf_puts(&out->text, text) : error_nomem();
			free(text);
			return error;
		}
		if (type && !strcmp(type, "text") && json_is_string(json_object_get(part, "text")) &&
		    (error = buf_puts(&out->text, json_string_value(json_object_get(part, "text")))) < 0)
			return error;
	}
	return out->text.len ? 0 : error_set(RL_EPARSE, "the server's answer has no content text");
}

static int anthropic_event(struct reading *out, const char *event, json_t *data)
{
	const char *type = json_string_value(json_object_get(data, "type"));
	json_t *delta = json_object_get(data, "delta");

	if (!type)
		type = event ? event : "";
	if (!strcmp(type, "error")) {
		json_t *msg = json_object_get(json_object_get(data, "error"), "message");

		return error_set(RL_ERROR, "the server broke off the answer: %.200s",
				 json_is_string(msg) ? json_string_value(msg) : "an error");
	}
	if (!strcmp(type, "message_start"))
		read_usage(&out->usage, json_object_get(json_object_get(data, "message"), "usage"));
	else if (!strcmp(type, "message_delta")) {
		out->truncated |= cut_off(delta);
		read_usage(&out->usage, json_object_get(data, "usage"));
	}
	else if (!strcmp(type, "content_block_delta") && json_is_string(json_object_get(delta, "text")))
		return buf_puts(&out->text, json_string_value(json_object_get(delta, "text")));
	else if (!strcmp(type, "content_block_delta") &&
		 json_is_string(json_object_get(delta, "partial_json")))
		return buf_puts(&out->text, json_string_value(json_object_get(delta, "partial_json")));
	return 0;
}

const struct provider_ops provider_anthropic = {
	"messages", anthropic_body, anthropic_headers, anthropic_whole, anthropic_event,
};
