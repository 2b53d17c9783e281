/*
 * OpenAI's chat completions API, which OpenAI-compatible servers (vLLM,
 * llama.cpp's server, Ollama, LM Studio, routers) speak too.
 */
#include "provider.h"
#include "status.h"
#include "tools.h"

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

/* A tool the model may call: a function whose parameters are its arguments' schema. */
static json_t *function_of(const char *name, const char *description, const json_t *parameters)
{
	return json_pack("{s:s, s:{s:s, s:s, s:O}}", "type", "function", "function", "name", name,
			 "description", description, "parameters", parameters);
}

/*
 * Not strict: a caller's schema may leave arguments optional (strict mode
 * wants every property required), and OpenAI does not hold parallel calls
 * to a strict schema anyway; the arguments are checked as they come.
 * parallel_tool_calls is left at its default (on): the reasoning models
 * refuse the parameter, and revline bounds the calls a turn itself.
 */
static bool add_tools(json_t *body, const struct question *q)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; list && i < q->tools->count; i++)
		if (json_array_append_new(list, function_of(q->tools->defs[i].name, q->tools->defs[i].description,
							    q->tools->defs[i].parameters)) < 0) {
			json_decref(list);
			return false;
		}
	return provider_set(body, "tools", list) &&
		provider_set(body, "tool_choice", json_string(q->choice == TOOL_CHOICE_ANSWER ? "none" : "auto"));
}

/* The model's calls as it made them, then one tool message per call. */
static bool add_turn(json_t *messages, const struct turn *t)
{
	json_t *calls = json_array(), *assistant;
	size_t i;

	for (i = 0; calls && i < t->ncalls; i++)
		if (json_array_append_new(calls, json_pack("{s:s, s:s, s:{s:s, s:s}}", "id", t->calls[i].id,
							   "type", "function", "function", "name",
							   t->calls[i].name, "arguments",
							   t->calls[i].arguments)) < 0)
			break;
	if (!calls || i < t->ncalls) {
		json_decref(calls);
		return false;
	}
	assistant = json_pack("{s:s, s:s?, s:o}", "role", "assistant", "content", t->text, "tool_calls", calls);
	if (!assistant || json_array_append_new(messages, assistant) < 0)
		return false;
	for (i = 0; i < t->ncalls; i++)
		if (json_array_append_new(messages, json_pack("{s:s, s:s, s:s%}", "role", "tool", "tool_call_id",
							      t->calls[i].id, "content",
							      t->calls[i].result.ptr ? t->calls[i].result.ptr : "",
							      t->calls[i].result.len)) < 0)
			return false;
	return true;
}

static bool add_conversation(json_t *body, const struct question *q)
{
	json_t *messages = json_object_get(body, "messages");
	const struct conversation *c = q->conversation;
	size_t i;

	for (i = 0; c && i < c->nturns; i++)
		if (!add_turn(messages, &c->turns[i]))
			return false;
	return !c || !c->note ||
		json_array_append_new(messages, json_pack("{s:s, s:s}", "role", "user", "content", c->note)) == 0;
}

/*
 * The system message, then one user message whose text starts with the
 * shared part: the prefix every request of a check has in common, which
 * is what OpenAI's automatic prompt cache (and vLLM's and llama.cpp's
 * prefix caches) can reuse. Tool turns follow, the conversation growing
 * only at its end, so that each turn's request begins with the last's.
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
	if (!body || !add_conversation(body, q) || (q->tools && !add_tools(body, q)) ||
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

/* A call whole (message.tool_calls[i]) or a piece of one (delta.tool_calls[i]). */
static int read_call(struct reading *out, json_t *piece, long fallback)
{
	json_t *fn = json_object_get(piece, "function"), *index = json_object_get(piece, "index");
	const char *args = json_string_value(json_object_get(fn, "arguments"));
	struct reading_call *call;
	int error;

	if (!json_is_object(piece))
		return 0;
	if ((error = reading_call_at(&call, out, json_is_integer(index) ? (long)json_integer_value(index) :
				     fallback)) < 0 || !call)
		return error;
	if ((error = reading_call_name(call, json_string_value(json_object_get(piece, "id")),
				       json_string_value(json_object_get(fn, "name")))) < 0)
		return error;
	return args ? reading_call_append(call, args, strlen(args)) : 0;
}

static int read_calls(struct reading *out, json_t *calls)
{
	json_t *piece;
	size_t i;
	int error = 0;

	json_array_foreach(calls, i, piece)
		if ((error = read_call(out, piece, (long)i)) < 0)
			break;
	return error;
}

static int openai_whole(struct reading *out, json_t *root)
{
	json_t *choice = json_array_get(json_object_get(root, "choices"), 0);
	json_t *message = json_object_get(choice, "message");
	json_t *content = json_object_get(message, "content");
	int error;

	read_usage(&out->usage, json_object_get(root, "usage"));
	out->truncated = cut_off(choice);
	if ((error = read_calls(out, json_object_get(message, "tool_calls"))) < 0)
		return error;
	if (!json_is_string(content) && out->ncalls)
		return 0;
	if (!json_is_string(content))
		return refusal(out, message) < 0 ? RL_EPARSE :
			error_set(RL_EPARSE, "the server's answer has no choices[0].message.content");
	return buf_puts(&out->text, json_string_value(content));
}

/*
 * A chat.completion.chunk: a piece of the text, or of tool calls (each
 * piece names its call's index; the first also its id and name, the
 * others carry more of its arguments); the last one may carry the usage.
 */
static int openai_event(struct reading *out, const char *event, json_t *data)
{
	json_t *choice = json_array_get(json_object_get(data, "choices"), 0);
	json_t *delta = json_object_get(choice, "delta");
	json_t *piece = json_object_get(delta, "content"), *err = json_object_get(data, "error");
	int error;

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
	if ((error = read_calls(out, json_object_get(delta, "tool_calls"))) < 0)
		return error;
	return json_is_string(piece) ? buf_puts(&out->text, json_string_value(piece)) : 0;
}

const struct provider_ops provider_openai = {
	"chat/completions", openai_body, openai_headers, openai_whole, openai_event,
};
