/*
 * The request cycle (ask.h): its settings, the requests a question becomes
 * (the prompt laid out for prompt caches, the answer's schema, streaming),
 * streamed answers read for both providers, and refusals over real HTTP
 * against the fake server: what a 400 names is left out once, and only
 * what was sent is.
 */
#include "testlib.h"
#include "fakellm/fakellm.h"

#include "ask.h"
#include "config.h"
#include "llm.h"
#include "repo.h"
#include "schema.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

static void clear_env(void)
{
	unsetenv("REVLINE_PROVIDER");
	unsetenv("REVLINE_BASE_URL");
	unsetenv("OPENAI_BASE_URL");
	unsetenv("REVLINE_MODEL");
	unsetenv("OPENAI_API_KEY");
	unsetenv("ANTHROPIC_API_KEY");
}

static int setup(void **state)
{
	(void)state;
	clear_env();
	setenv("HOME", "/nonexistent-revline-home", 1);
	unsetenv("XDG_CONFIG_HOME");
	/* revline's own model table, from the source tree. */
	setenv("REVLINE_DATADIR", TEST_SOURCE_DIR "/share", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	return 0;
}

/* The settings of a provider: "openai" or "anthropic", at url (NULL: the provider's API). */
static void config_for(struct llm_config *c, const char *provider, const char *url)
{
	clear_env();
	setenv("REVLINE_PROVIDER", provider, 1);
	setenv(strcmp(provider, "anthropic") ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY", "test-key-123", 1);
	if (url)
		setenv("REVLINE_BASE_URL", url, 1);
	assert_int_equal(llm_config_load(c, NULL), 0);
}

/* --- settings -------------------------------------------------------------- */

static void options_with(struct asker_options *out, const char *dir, const char *git_config, int want)
{
	struct repo *repo = NULL;
	struct config *config = NULL;

	test_sh_ok(dir, "git config --unset-all revline.stream; git config --unset-all revline.warmCache; %s",
		   git_config);
	assert_int_equal(repo_open(&repo, dir), 0);
	assert_int_equal(config_open(&config, repo), 0);
	assert_int_equal(asker_options_load(out, config), want);
	config_free(config);
	repo_free(repo);
}

static void test_options(void **state)
{
	char *dir = test_repo_new("askopts");
	struct asker_options o;

	(void)state;
	/* Nothing set: streamed, warming where it pays. */
	options_with(&o, dir, "true", 0);
	assert_false(o.no_stream);
	assert_int_equal(o.warm, WARM_AUTO);
	assert_int_equal(asker_options_load(&o, NULL), 0);
	assert_false(o.no_stream);

	options_with(&o, dir, "git config revline.stream false", 0);
	assert_true(o.no_stream);
	options_with(&o, dir, "git config revline.stream true", 0);
	assert_false(o.no_stream);
	options_with(&o, dir, "git config revline.stream maybe", RL_ECONFIG);
	assert_non_null(strstr(error_message(), "revline.stream"));

	options_with(&o, dir, "git config revline.warmCache true", 0);
	assert_int_equal(o.warm, WARM_ON);
	options_with(&o, dir, "git config revline.warmCache FALSE", 0);
	assert_int_equal(o.warm, WARM_OFF);
	options_with(&o, dir, "git config revline.warmCache auto", 0);
	assert_int_equal(o.warm, WARM_AUTO);
	options_with(&o, dir, "git config revline.warmCache sometimes", RL_ECONFIG);
	assert_string_equal(error_message(), "revline.warmCache is 'sometimes': use auto, true or false");
	test_rmtree(dir);
	free(dir);
}

/* --- the requests ------------------------------------------------------------ */

static json_t *body_of(const struct llm_config *c, const struct asker_options *o, enum schema_kind kind,
		       const char *model, const char *shared, const char *tail)
{
	struct ask_spec spec = { kind, model, NULL, "the system", shared, tail, 100, false, NULL };
	struct llm_call call;
	json_t *body;

	assert_int_equal(ask_call_build(&call, c, o, &spec), 0);
	body = json_loads(call.body, 0, NULL);
	assert_non_null(body);
	llm_call_release(&call);
	return body;
}

static const char *user_text(json_t *body)
{
	return json_string_value(json_object_get(json_array_get(json_object_get(body, "messages"), 1),
						 "content"));
}

static void test_openai_request(void **state)
{
	struct llm_config c;
	struct asker_options o = { 0 }, whole = { .no_stream = true };
	json_t *a, *b, *other, *format;
	const char *key;

	(void)state;
	config_for(&c, "openai", NULL);
	a = body_of(&c, &o, SCHEMA_MAP, "gpt-5-mini", "THE CHANGE", "rule a");
	b = body_of(&c, &o, SCHEMA_MAP, "gpt-5-mini", "THE CHANGE", "rule b");
	other = body_of(&c, &o, SCHEMA_MAP, "gpt-5-mini", "ANOTHER CHANGE", "rule a");

	/* The shared part first, then the question's own. */
	assert_string_equal(user_text(a), "THE CHANGE\n\nrule a");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(a, "messages"), 0),
							      "content")), "the system");
	/* One prompt_cache_key per shared part. */
	key = json_string_value(json_object_get(a, "prompt_cache_key"));
	assert_non_null(key);
	assert_int_equal(strlen(key), strlen("revline-") + 16);
	assert_int_equal(strncmp(key, "revline-", 8), 0);
	assert_string_equal(key, json_string_value(json_object_get(b, "prompt_cache_key")));
	assert_string_not_equal(key, json_string_value(json_object_get(other, "prompt_cache_key")));
	/* Streamed, with the usage at the end. */
	assert_true(json_is_true(json_object_get(a, "stream")));
	assert_true(json_is_true(json_object_get(json_object_get(a, "stream_options"), "include_usage")));
	/* The answer's schema, strict: the one the answer parser checks. */
	format = json_object_get(a, "response_format");
	assert_string_equal(json_string_value(json_object_get(format, "type")), "json_schema");
	format = json_object_get(format, "json_schema");
	assert_string_equal(json_string_value(json_object_get(format, "name")), "review_answer");
	assert_true(json_is_true(json_object_get(format, "strict")));
	assert_true(json_equal(json_object_get(format, "schema"), (json_t *)schema_get(SCHEMA_MAP)));
	json_decref(a);
	json_decref(b);
	json_decref(other);

	/* No shared part: no cache key; not streamed when revline.stream is false. */
	a = body_of(&c, &whole, SCHEMA_REDUCE, "gpt-5-mini", NULL, "merge these");
	assert_string_equal(user_text(a), "merge these");
	assert_null(json_object_get(a, "prompt_cache_key"));
	assert_null(json_object_get(a, "stream"));
	assert_null(json_object_get(a, "stream_options"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(a, "response_format"),
									      "json_schema"), "name")), "merged_review");
	json_decref(a);
	llm_config_release(&c);
}

static void test_anthropic_request(void **state)
{
	struct llm_config c;
	struct asker_options o = { 0 };
	json_t *body, *content, *tool;

	(void)state;
	config_for(&c, "anthropic", NULL);
	body = body_of(&c, &o, SCHEMA_MAP, "claude-haiku-4-5", "THE CHANGE", "rule a");
	assert_string_equal(json_string_value(json_object_get(body, "system")), "the system");
	/* Two blocks: the shared part with the cache breakpoint, then the question's own. */
	content = json_object_get(json_array_get(json_object_get(body, "messages"), 0), "content");
	assert_int_equal(json_array_size(content), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(content, 0), "text")), "THE CHANGE");
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_array_get(content, 0),
									      "cache_control"), "type")), "ephemeral");
	assert_string_equal(json_string_value(json_object_get(json_array_get(content, 1), "text")), "rule a");
	assert_null(json_object_get(json_array_get(content, 1), "cache_control"));
	/* The answer as a forced tool's input, with the answer's schema. */
	tool = json_array_get(json_object_get(body, "tools"), 0);
	assert_string_equal(json_string_value(json_object_get(tool, "name")), "review_answer");
	assert_true(json_equal(json_object_get(tool, "input_schema"), (json_t *)schema_get(SCHEMA_MAP)));
	assert_string_equal(json_string_value(json_object_get(json_object_get(body, "tool_choice"), "type")),
			    "tool");
	assert_string_equal(json_string_value(json_object_get(json_object_get(body, "tool_choice"), "name")),
			    "review_answer");
	/* Streamed; Anthropic has neither stream_options nor a cache key nor JSON mode. */
	assert_true(json_is_true(json_object_get(body, "stream")));
	assert_null(json_object_get(body, "stream_options"));
	assert_null(json_object_get(body, "prompt_cache_key"));
	assert_null(json_object_get(body, "response_format"));
	assert_true(json_integer_value(json_object_get(body, "max_tokens")) > 0);
	json_decref(body);
	llm_config_release(&c);
}

/* --- streamed answers ------------------------------------------------------ */

static int read_text(struct reading *r, const struct provider_ops *ops, const char *body)
{
	return ask_read_body(r, ops, body, strlen(body));
}

static void test_openai_stream(void **state)
{
	const char *stream =
		"data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}],\"usage\":null}\n\n"
		"data: {\"choices\":[{\"delta\":{\"content\":\"{\\\"status\\\": \"}}],\"usage\":null}\n\n"
		"data:{\"choices\":[{\"delta\":{\"content\":\"\\\"compliant\\\"}\"}}],\"usage\":null}\r\n\r\n"
		": a comment line\n\n"
		"data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":null}\n\n"
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":2048,\"completion_tokens\":9,"
		"\"prompt_tokens_details\":{\"cached_tokens\":1920}}}\n\n"
		"data: [DONE]\n\n";
	struct reading r;

	(void)state;
	assert_int_equal(read_text(&r, &provider_openai, stream), 0);
	assert_string_equal(r.text.ptr, "{\"status\": \"compliant\"}");
	assert_int_equal(r.usage.tokens_in, 2048);
	assert_int_equal(r.usage.tokens_cached, 1920);
	assert_int_equal(r.usage.tokens_out, 9);
	reading_release(&r);

	/* "error": null (Foundry Local's chunks) is no error. */
	assert_int_equal(read_text(&r, &provider_openai,
				   "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"}}],\"error\":null}\n\n"
				   "data: [DONE]\n\n"), 0);
	assert_string_equal(r.text.ptr, "ok");
	reading_release(&r);

	/* An error in the middle of the stream, a refusal, a stream without text. */
	assert_int_equal(read_text(&r, &provider_openai,
				   "data: {\"choices\":[{\"delta\":{\"content\":\"{\"}}]}\n\n"
				   "data: {\"error\":{\"message\":\"server overloaded\"}}\n\n"), RL_ERROR);
	assert_string_equal(error_message(), "the server broke off the answer: server overloaded");
	reading_release(&r);
	assert_int_equal(read_text(&r, &provider_openai,
				   "data: {\"choices\":[{\"delta\":{\"refusal\":\"I will not.\"}}]}\n\n"), RL_EPARSE);
	assert_non_null(strstr(error_message(), "declined to answer: I will not."));
	reading_release(&r);
	assert_int_equal(read_text(&r, &provider_openai, "data: [DONE]\n\n"), RL_EPARSE);
	assert_string_equal(error_message(), "the streamed answer ended without any text");
	reading_release(&r);
	assert_int_equal(read_text(&r, &provider_openai, "data: {not json}\n\n"), RL_EPARSE);
	assert_string_equal(error_message(), "the stream holds an event that is not JSON: \"{not json}\"");
	reading_release(&r);
	/* A quote never reads past the bytes given. */
	assert_int_equal(ask_read_body(&r, &provider_openai, "<html>cut here", 6), RL_EPARSE);
	assert_string_equal(error_message(), "the server's answer is not JSON: \"<html>\"");
	reading_release(&r);
}

static void test_anthropic_stream(void **state)
{
	const char *text =
		"event: message_start\n"
		"data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":12,"
		"\"cache_creation_input_tokens\":100,\"cache_read_input_tokens\":4096,\"output_tokens\":1}}}\n\n"
		"event: content_block_start\n"
		"data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
		"event: ping\ndata: {\"type\":\"ping\"}\n\n"
		"event: content_block_delta\n"
		"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n\n"
		"event: content_block_delta\n"
		"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\", world\"}}\n\n"
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
		"event: message_delta\n"
		"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":50}}\n\n"
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
	const char *tool =
		"event: message_start\n"
		"data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":7,\"output_tokens\":1}}}\n\n"
		"event: content_block_delta\n"
		"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\","
		"\"partial_json\":\"{\\\"status\\\": \\\"comp\"}}\n\n"
		"event: content_block_delta\n"
		"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\","
		"\"partial_json\":\"liant\\\"}\"}}\n\n"
		/* The newer API repeats the input side in message_delta. */
		"event: message_delta\n"
		"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"input_tokens\":7,"
		"\"cache_read_input_tokens\":0,\"output_tokens\":20}}\n\n";
	struct reading r;

	(void)state;
	assert_int_equal(read_text(&r, &provider_anthropic, text), 0);
	assert_string_equal(r.text.ptr, "Hello, world");
	/* Every input token: after the breakpoint, read from the cache, written to it. */
	assert_int_equal(r.usage.tokens_in, 12 + 4096 + 100);
	assert_int_equal(r.usage.tokens_cached, 4096);
	assert_int_equal(r.usage.tokens_cache_write, 100);
	assert_int_equal(r.usage.tokens_out, 50);
	reading_release(&r);

	assert_int_equal(read_text(&r, &provider_anthropic, tool), 0);
	assert_string_equal(r.text.ptr, "{\"status\": \"compliant\"}");
	assert_int_equal(r.usage.tokens_in, 7);
	assert_int_equal(r.usage.tokens_out, 20);
	reading_release(&r);

	assert_int_equal(read_text(&r, &provider_anthropic,
				   "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
				   "\"message\":\"Overloaded\"}}\n\n"), RL_ERROR);
	assert_string_equal(error_message(), "the server broke off the answer: Overloaded");
	reading_release(&r);
}

/* --- refusals, over HTTP ------------------------------------------------- */

struct asked {
	struct ask_event done;          /* the settling event */
	json_t *requests;               /* what the server saw */
};

/* Ask one question of the fake server and wait for it to settle. */
static void ask_one(struct asker *a, const char *model, const char *shared, struct ask_event *out)
{
	struct ask_spec spec = { SCHEMA_MAP, model, NULL, "sys", shared, "the rule", 100, true, NULL };
	uint64_t id;

	assert_int_equal(ask_submit(a, &id, &spec), 0);
	test_ask_end(a, out, NULL);
	assert_int_equal(out->id, id);
}

static json_t *request_body(json_t *requests, size_t i)
{
	return json_object_get(json_array_get(requests, i), "body");
}

static void test_refusals(void **state)
{
	/*
	 * A server that refuses what it does not know: stream_options (a
	 * strict proxy), prompt_cache_key; a 400 that names nothing sent; a
	 * refused temperature on a model that was never sent one.
	 */
	const char *script =
		"{\"stream\": true, \"rules\": ["
		" {\"match\": \"no-such-model\", \"status\": 400, \"error\": \"The model 'no-such-model' does not exist\"},"
		" {\"match\": \"gpt-5-mini\", \"status\": 400, \"body\": {\"error\": {\"message\":"
		"  \"Unsupported value: 'temperature' does not support 0.2\", \"param\": \"temperature\"}}},"
		" {\"match\": \"\\\"stream_options\\\"\", \"status\": 400, \"body\": {\"error\": {\"message\":"
		"  \"Unrecognized request argument supplied: stream_options\", \"type\": \"invalid_request_error\","
		"  \"param\": null}}},"
		" {\"match\": \"\\\"prompt_cache_key\\\"\", \"status\": 400, \"body\": {\"detail\":"
		"  \"Extra inputs are not permitted: prompt_cache_key\"}}],"
		" \"default\": {\"answer\": {\"status\": \"compliant\"}, \"chunk_chars\": 5}}";
	struct fakellm f;
	struct llm_config c;
	struct asker *a;
	struct ask_event ev;
	struct sched_options so;
	char url[96];
	json_t *requests;

	(void)state;
	fakellm_start(&f, script);
	snprintf(url, sizeof(url), "%s/v1", f.url);
	config_for(&c, "openai", url);
	sched_options_init(&so);
	so.retries = 0;
	assert_int_equal(asker_new(&a, &c, &so, NULL, NULL, NULL), 0);

	/* Refused twice (stream_options, then prompt_cache_key), answered streamed the third time. */
	ask_one(a, "my-model", "the change", &ev);
	assert_int_equal(ev.status, ASK_DONE);
	assert_string_equal(ev.text, "{\"status\": \"compliant\"}");
	assert_int_equal(ev.attempts, 3);
	ask_event_release(&ev);
	requests = fakellm_requests(&f);
	assert_int_equal(json_array_size(requests), 3);
	assert_non_null(json_object_get(request_body(requests, 0), "stream_options"));
	assert_null(json_object_get(request_body(requests, 1), "stream_options"));
	assert_true(json_is_true(json_object_get(request_body(requests, 1), "stream")));
	assert_non_null(json_object_get(request_body(requests, 1), "prompt_cache_key"));
	assert_null(json_object_get(request_body(requests, 2), "prompt_cache_key"));
	assert_true(json_is_true(json_object_get(request_body(requests, 2), "stream")));
	json_decref(requests);

	/* Remembered for the model: the next question is sent without either at once. */
	ask_one(a, "my-model", "another change", &ev);
	assert_int_equal(ev.status, ASK_DONE);
	assert_int_equal(ev.attempts, 1);
	ask_event_release(&ev);

	/* A 400 that names nothing the question sent is an error, not a retry. */
	ask_one(a, "no-such-model", NULL, &ev);
	assert_int_equal(ev.status, ASK_ERROR);
	assert_int_equal(ev.attempts, 1);
	assert_int_equal(ev.http_status, 400);
	assert_non_null(strstr(ev.error, "does not exist"));
	ask_event_release(&ev);

	/* temperature refused of a model that was sent none (gpt-5-mini): nothing to leave out. */
	ask_one(a, "gpt-5-mini", NULL, &ev);
	assert_int_equal(ev.status, ASK_ERROR);
	assert_int_equal(ev.attempts, 1);
	ask_event_release(&ev);
	requests = fakellm_requests(&f);
	assert_int_equal(json_array_size(requests), 6);
	assert_null(json_object_get(request_body(requests, 5), "temperature"));
	json_decref(requests);

	asker_free(a);
	llm_config_release(&c);
	fakellm_stop(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_openai_request),
		cmocka_unit_test(test_anthropic_request),
		cmocka_unit_test(test_openai_stream),
		cmocka_unit_test(test_anthropic_stream),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
