/*
 * libFuzzer target: an answer's body as a server may send it, whole (JSON)
 * or streamed (server-sent events), read by both providers' readers
 * (ask_read_body with the OpenAI and the Anthropic ops); then its tool
 * calls, assembled from their pieces, run as a turn (tool_turn_run, with
 * a tool set of two tools) and the next request's body built from the
 * conversation in both shapes (and a body without tools). Nothing may crash, read past the bytes
 * given or leak; an answer read has a text and counts that are never
 * negative, a failure says why; the calls kept, their arguments and the
 * results stay within their bounds, every call is answered once under an
 * id of its own, and the body is JSON.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "schema.h"
#include "status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_reading(const struct reading *r)
{
	const struct usage *u = &r->usage;
	size_t i;

	if (!r->text.ptr && r->text.len)
		abort();
	if (r->text.ptr && strlen(r->text.ptr) > r->text.len)
		abort();
	if (u->tokens_in < 0 || u->tokens_cached < 0 || u->tokens_cache_write < 0 || u->tokens_out < 0)
		abort();
	if (r->ncalls > READING_CALLS_MAX)
		abort();
	for (i = 0; i < r->ncalls; i++)
		if (r->calls[i].arguments.len > TOOLS_ARGS_MAX)
			abort();
}

static void read_with(const struct provider_ops *ops, const char *body, size_t size)
{
	struct reading r;
	int error = ask_read_body(&r, ops, body, size);

	if (error == 0)
		check_reading(&r);
	else if (error > 0 || !error_message()[0])
		abort();
	reading_release(&r);
}

/* Each tool gives back more than a result may hold, so that the cut is exercised too. */
static int run(struct tool_output *out, void *ctx, const char *name, const json_t *args, size_t max)
{
	size_t i;

	(void)ctx;
	(void)args;
	if (strcmp(name, "read_file") && strcmp(name, "search"))
		abort();
	for (i = 0; i < max + 40; i++)
		if (buf_putc(&out->text, (char)('a' + i % 26)) < 0)
			return RL_ENOMEM;
	out->error = name[0] == 's';
	return 0;
}

static const struct ask_tool defs[] = {
	{ "read_file", "Read a file.", "{\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\"}}}" },
	{ "search", "Search.", "{\"type\": \"object\"}" },
};

static void check_turn(const struct conversation *conv, const struct tool_log *log, const struct reading *r,
		       const struct tool_set *set, size_t used)
{
	const struct turn *t = &conv->turns[0];
	size_t i, j;

	if (conv->nturns != 1 || t->ncalls != r->ncalls || log->count != r->ncalls || used > set->limits.bytes_max)
		abort();
	for (i = 0; i < t->ncalls; i++) {
		if (!t->calls[i].id || !t->calls[i].arguments || !json_is_object(t->calls[i].input) ||
		    t->calls[i].result.len > set->limits.result_max + 64)
			abort();
		for (j = 0; j < i; j++)
			if (!strcmp(t->calls[i].id, t->calls[j].id))
				abort();
	}
}

/* The next request of the conversation, in one provider's shape: JSON, or a failure that says why. */
static void body_with(const struct provider_ops *ops, const struct tool_set *set, const struct conversation *conv)
{
	struct question q;
	json_t *body = NULL;
	char *text;

	memset(&q, 0, sizeof(q));
	q.model = "m";
	q.system = "system";
	q.shared = "shared";
	q.tail = "tail";
	q.schema_name = schema_name(SCHEMA_MAP);
	q.schema = schema_get(SCHEMA_MAP);
	q.structured = MODEL_STRUCTURED_JSON_SCHEMA;
	q.cap_param = "max_tokens";
	q.cap = 100;
	q.cache_breakpoint = true;
	q.tools = set;
	q.conversation = conv;
	q.choice = conv && conv->note ? TOOL_CHOICE_ANSWER : TOOL_CHOICE_AUTO;
	if (ops->body(&body, &q) < 0) {
		if (!error_message()[0])
			abort();
		return;
	}
	if (!(text = json_dumps(body, JSON_COMPACT)))
		abort();
	free(text);
	json_decref(body);
}

static void turn_with(const struct provider_ops *ops, const char *body, size_t size)
{
	struct ask_tools spec = { defs, 2, run, NULL, NULL, { 2, 3, 300, 700 } };
	struct conversation conv = { 0 };
	struct tool_log log = { 0 };
	struct tool_set *set = NULL;
	struct reading r;
	size_t used = 0;

	if (reading_read(&r, ops, body, size) == 0 && r.ncalls && tool_set_new(&set, &spec, "review_answer") == 0) {
		if (tool_turn_run(&conv, &log, set, &r, 1, &used) < 0)
			abort();
		check_turn(&conv, &log, &r, set, used);
		body_with(&provider_openai, set, &conv);
		if (conversation_note(&conv, "the limit of 2 tool turns") < 0)
			abort();
		body_with(&provider_anthropic, set, &conv);
	}
	/* A question without tools (none given, or refused): the same bodies as before tools. */
	body_with(ops, NULL, NULL);
	tool_set_free(set);
	conversation_release(&conv);
	tool_log_release(&log);
	reading_release(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact copy, not NUL-terminated: the readers must keep within size. */
	char *body = malloc(size ? size : 1);

	if (!body)
		return 0;
	memcpy(body, data, size);
	read_with(&provider_openai, body, size);
	read_with(&provider_anthropic, body, size);
	turn_with(&provider_openai, body, size);
	turn_with(&provider_anthropic, body, size);
	free(body);
	return 0;
}
