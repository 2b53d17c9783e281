/*
 * Anthropic's messages API. Structured answers come from a forced tool
 * whose input_schema is the answer's schema; the prompt cache is written
 * at a cache_control breakpoint put at the end of the shared part. With
 * tools, the answer's tool is offered among them and the model made to
 * call one (tool_choice any) until it answers; each turn appends the
 * model's content and a user message of tool_result blocks, with a
 * breakpoint at the end of the last two such messages (the previous
 * request's end, read; this one's, written): three of the four allowed.
 */
#include "provider.h"
#include "status.h"
#include "tools.h"

#include <stdlib.h>
#include <string.h>

#define TOOL_DESCRIPTION "Report the answer. Call this tool exactly once with the whole answer."

static json_t *ephemeral(void)
{
	return json_pack("{s:s}", "type", "ephemeral");
}

static json_t *user_content(const struct question *q)
{
	json_t *shared;

	if (!q->shared)
		return json_string(q->tail);
	shared = json_pack("{s:s, s:s}", "type", "text", "text", q->shared);
	if (shared && q->cache_breakpoint && !provider_set(shared, "cache_control", ephemeral())) {
		json_decref(shared);
		return NULL;
	}
	return shared ? json_pack("[o, {s:s, s:s}]", shared, "type", "text", "text", q->tail) : NULL;
}

static json_t *tool_of(const char *name, const char *description, const json_t *schema)
{
	return json_pack("{s:s, s:s, s:O}", "name", name, "description", description, "input_schema", schema);
}

/* The forced answer tool alone. */
static bool add_answer_tool(json_t *body, const struct question *q)
{
	if (q->structured != MODEL_STRUCTURED_JSON_SCHEMA || !q->schema)
		return true;
	return provider_set(body, "tools", json_pack("[o]", tool_of(q->schema_name, TOOL_DESCRIPTION, q->schema))) &&
		provider_set(body, "tool_choice", json_pack("{s:s, s:s}", "type", "tool", "name",
							    q->schema_name));
}

/*
 * The caller's tools, then the answer's when the answer is a tool: the
 * model must call one of them (any) until it answers; told to answer, it
 * must call the answer's (or, without one, none).
 */
static json_t *tool_choice(const struct question *q, bool answer_tool)
{
	if (q->choice == TOOL_CHOICE_ANSWER)
		return answer_tool ? json_pack("{s:s, s:s}", "type", "tool", "name", q->schema_name) :
			json_pack("{s:s}", "type", "none");
	return json_pack("{s:s}", "type", answer_tool ? "any" : "auto");
}

static bool add_tools(json_t *body, const struct question *q)
{
	bool answer_tool = q->structured == MODEL_STRUCTURED_JSON_SCHEMA && q->schema;
	json_t *list;
	size_t i;

	if (!q->tools)
		return add_answer_tool(body, q);
	list = json_array();
	for (i = 0; list && i < q->tools->count; i++)
		if (json_array_append_new(list, tool_of(q->tools->defs[i].name, q->tools->defs[i].description,
							q->tools->defs[i].parameters)) < 0)
			break;
	if (list && i == q->tools->count && answer_tool)
		json_array_append_new(list, tool_of(q->schema_name, TOOL_DESCRIPTION, q->schema));
	if (!list || i < q->tools->count || json_array_size(list) != q->tools->count + answer_tool) {
		json_decref(list);
		return false;
	}
	return provider_set(body, "tools", list) && provider_set(body, "tool_choice", tool_choice(q, answer_tool));
}

/* The model's content as it was: its text (when any), then its calls. */
static json_t *assistant_of(const struct turn *t)
{
	json_t *content = json_array();
	size_t i;

	if (content && t->text && *t->text &&
	    json_array_append_new(content, json_pack("{s:s, s:s}", "type", "text", "text", t->text)) < 0)
		goto fail;
	for (i = 0; content && i < t->ncalls; i++)
		if (json_array_append_new(content, json_pack("{s:s, s:s, s:s, s:O}", "type", "tool_use", "id",
							      t->calls[i].id, "name", t->calls[i].name, "input",
							      t->calls[i].input)) < 0)
			goto fail;
	return content ? json_pack("{s:s, s:o}", "role", "assistant", "content", content) : NULL;
fail:
	json_decref(content);
	return NULL;
}

static json_t *results_of(const struct turn *t)
{
	json_t *content = json_array();
	size_t i;

	for (i = 0; content && i < t->ncalls; i++) {
		const struct turn_call *c = &t->calls[i];
		json_t *block = json_pack("{s:s, s:s, s:s%}", "type", "tool_result", "tool_use_id", c->id,
					  "content", c->result.ptr ? c->result.ptr : "", c->result.len);

		if (!block || (c->error && !provider_set(block, "is_error", json_true())) ||
		    json_array_append_new(content, block) < 0) {
			json_decref(content);
			return NULL;
		}
	}
	return content ? json_pack("{s:s, s:o}", "role", "user", "content", content) : NULL;
}

/* A cache breakpoint on the last block of a message's content. */
static bool mark_end(json_t *message)
{
	json_t *content = json_object_get(message, "content");

	return provider_set(json_array_get(content, json_array_size(content) - 1), "cache_control", ephemeral());
}

static bool add_conversation(json_t *body, const struct question *q)
{
	json_t *messages = json_object_get(body, "messages"), *last = NULL;
	const struct conversation *c = q->conversation;
	size_t i;

	for (i = 0; c && i < c->nturns; i++) {
		json_t *results;

		if (json_array_append_new(messages, assistant_of(&c->turns[i])) < 0 ||
		    json_array_append_new(messages, (results = results_of(&c->turns[i]))) < 0)
			return false;
		if (q->cache_breakpoint && i + 2 >= c->nturns && !mark_end(results))
			return false;
		last = results;
	}
	return !last || !c->note ||
		json_array_append_new(json_object_get(last, "content"),
				      json_pack("{s:s, s:s}", "type", "text", "text", c->note)) == 0;
}

static int anthropic_body(json_t **out, const struct question *q)
{
	json_t *body = json_pack("{s:s, s:s, s:[{s:s, s:o*}]}", "model", q->model, "system", q->system,
				 "messages", "role", "user", "content", user_content(q));

	*out = NULL;
	if (!body || !json_object_get(json_array_get(json_object_get(body, "messages"), 0), "content") ||
	    !add_tools(body, q) || !add_conversation(body, q) ||
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

/* The answer stopped at the output cap (a message, or a message_delta's delta). */
static bool cut_off(json_t *object)
{
	const char *why = json_string_value(json_object_get(object, "stop_reason"));

	return why && !strcmp(why, "max_tokens");
}

/* A streamed tool_use block begins: its input ({}) comes in the deltas. */
static int read_tool_use_start(struct reading *out, json_t *block, long index)
{
	struct reading_call *call;
	int error;

	if ((error = reading_call_at(&call, out, index)) < 0 || !call)
		return error;
	return reading_call_name(call, json_string_value(json_object_get(block, "id")),
				 json_string_value(json_object_get(block, "name")));
}

/* A tool_use block whole: a call, its input as JSON text. */
static int read_tool_use(struct reading *out, json_t *part, long index)
{
	struct reading_call *call;
	char *text;
	int error;

	if ((error = reading_call_at(&call, out, index)) < 0 || !call)
		return error;
	if ((error = reading_call_name(call, json_string_value(json_object_get(part, "id")),
				       json_string_value(json_object_get(part, "name")))) < 0)
		return error;
	if (!json_object_get(part, "input"))
		return 0;
	if (!(text = json_dumps(json_object_get(part, "input"), JSON_COMPACT | JSON_ENCODE_ANY)))
		return error_nomem();
	error = reading_call_append(call, text, strlen(text));
	free(text);
	return error;
}

/* The text blocks, and the tool_use blocks as calls (the forced tool's among them). */
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

		if (type && !strcmp(type, "tool_use") && (error = read_tool_use(out, part, (long)i)) < 0)
			return error;
		if (type && !strcmp(type, "text") && json_is_string(json_object_get(part, "text")) &&
		    (error = buf_puts(&out->text, json_string_value(json_object_get(part, "text")))) < 0)
			return error;
	}
	return out->text.len || out->ncalls ? 0 : error_set(RL_EPARSE, "the server's answer has no content text");
}

/* The call a content block began, or NULL. */
static struct reading_call *call_of_block(struct reading *r, json_t *data)
{
	json_t *index = json_object_get(data, "index");
	size_t i;

	for (i = 0; json_is_integer(index) && i < r->ncalls; i++)
		if (r->calls[i].index == (long)json_integer_value(index))
			return &r->calls[i];
	return NULL;
}

/*
 * A piece of a tool_use block's input: its call's, once a
 * content_block_start began it; a piece of no call's (a server that
 * streams a forced tool's input alone) is the answer's text.
 */
static int read_partial(struct reading *out, json_t *data, const char *piece)
{
	struct reading_call *call = call_of_block(out, data);

	if (call)
		return reading_call_append(call, piece, strlen(piece));
	if (out->ncalls || out->calls_dropped)
		return 0;
	return buf_puts(&out->text, piece);
}

static int anthropic_event(struct reading *out, const char *event, json_t *data)
{
	const char *type = json_string_value(json_object_get(data, "type"));
	json_t *delta = json_object_get(data, "delta"), *block = json_object_get(data, "content_block");
	json_t *index = json_object_get(data, "index");
	const char *kind = json_string_value(json_object_get(block, "type"));

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
	else if (!strcmp(type, "content_block_start") && json_is_integer(index) && kind &&
		 !strcmp(kind, "tool_use"))
		return read_tool_use_start(out, block, (long)json_integer_value(index));
	else if (!strcmp(type, "content_block_delta") && json_is_string(json_object_get(delta, "text")))
		return buf_puts(&out->text, json_string_value(json_object_get(delta, "text")));
	else if (!strcmp(type, "content_block_delta") &&
		 json_is_string(json_object_get(delta, "partial_json")))
		return read_partial(out, data, json_string_value(json_object_get(delta, "partial_json")));
	return 0;
}

const struct provider_ops provider_anthropic = {
	"messages", anthropic_body, anthropic_headers, anthropic_whole, anthropic_event,
};
