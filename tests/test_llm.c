/* Providers: settings, requests, answers, JSON in answers. */
#include "testlib.h"

#include "ask.h"
#include "config.h"
#include "llm.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

/* The request a question is first sent as (json: revline.jsonMode). */
static int build(struct llm_call *call, struct llm_config *c, const char *model, const char *user,
		 bool json, const char *effort)
{
	struct ask_spec spec = { SCHEMA_MAP, model, effort, "sys", NULL, user, 10, false, NULL };
	struct asker_options whole = { .no_stream = true };
	bool was = c->json_mode;
	int error;

	c->json_mode = json;
	error = ask_call_build(call, c, &whole, &spec);
	c->json_mode = was;
	return error;
}

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

static void test_no_provider(void **state)
{
	struct llm_config c;

	(void)state;
	clear_env();
	assert_int_equal(llm_config_load(&c, NULL), 0);
	assert_int_equal(c.provider, PROVIDER_NONE);
	assert_int_equal(build(&(struct llm_call){ 0 }, &c, "m", "u", true, NULL), RL_ECONFIG);
	assert_non_null(strstr(error_message(), "OPENAI_API_KEY"));
	llm_config_release(&c);
}

static void test_openai_from_key_and_base_url(void **state)
{
	struct llm_config c;
	struct llm_call call;
	size_t i;
	bool auth = false;

	(void)state;
	clear_env();
	setenv("OPENAI_API_KEY", "sk-test-secret", 1);
	assert_int_equal(llm_config_load(&c, NULL), 0);
	assert_int_equal(c.provider, PROVIDER_OPENAI);
	assert_string_equal(c.base_url, "https://api.openai.com/v1");
	assert_string_equal(c.model, "gpt-5-mini");
	assert_string_equal(c.key_source, "OPENAI_API_KEY");
	assert_int_equal(build(&call, &c, "gpt-x", "user \"quoted\"", true, NULL), 0);
	assert_string_equal(call.url, "https://api.openai.com/v1/chat/completions");
	for (i = 0; i < call.nheaders; i++)
		auth |= !strcmp(call.headers[i], "Authorization: Bearer sk-test-secret");
	assert_true(auth);
	assert_non_null(strstr(call.body, "\"response_format\":{\"type\":\"json_object\"}"));
	assert_non_null(strstr(call.body, "\"model\":\"gpt-x\""));
	assert_non_null(strstr(call.body, "user \\\"quoted\\\""));
	/* The key is in the header only, never in the body. */
	assert_null(strstr(call.body, "sk-test-secret"));
	llm_call_release(&call);
	assert_int_equal(build(&call, &c, "gpt-x", "user", false, NULL), 0);
	assert_null(strstr(call.body, "response_format"));
	llm_call_release(&call);
	llm_config_release(&c);

	/* A local server: a base URL and no key is an OpenAI-compatible provider. */
	clear_env();
	setenv("OPENAI_BASE_URL", "http://localhost:11434/v1/", 1);
	setenv("REVLINE_MODEL", "llama3", 1);
	assert_int_equal(llm_config_load(&c, NULL), 0);
	assert_int_equal(c.provider, PROVIDER_OPENAI);
	assert_string_equal(c.base_url, "http://localhost:11434/v1");
	assert_string_equal(c.model, "llama3");
	assert_string_equal(c.reduce_model, "llama3");
	assert_null(c.api_key);
	llm_config_release(&c);
}

static void test_anthropic(void **state)
{
	struct llm_config c;
	struct llm_call call;
	struct reading reply;
	const char *body = "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"status\\\":\\\"compliant\\\"}\"}],"
		"\"usage\":{\"input_tokens\":120,\"output_tokens\":7}}";
	size_t i;
	bool key = false, version = false;

	(void)state;
	clear_env();
	setenv("ANTHROPIC_API_KEY", "ak-secret", 1);
	assert_int_equal(llm_config_load(&c, NULL), 0);
	assert_int_equal(c.provider, PROVIDER_ANTHROPIC);
	assert_string_equal(c.model, "claude-haiku-4-5");
	assert_int_equal(build(&call, &c, c.model, "user", true, NULL), 0);
	assert_string_equal(call.url, "https://api.anthropic.com/v1/messages");
	for (i = 0; i < call.nheaders; i++) {
		key |= !strcmp(call.headers[i], "x-api-key: ak-secret");
		version |= !strncmp(call.headers[i], "anthropic-version: ", 19);
	}
	assert_true(key && version);
	assert_non_null(strstr(call.body, "\"max_tokens\":4096"));
	assert_non_null(strstr(call.body, "\"system\":\"sys\""));
	assert_non_null(strstr(call.body, "\"temperature\":0.2"));
	/* Anthropic takes no reasoning_effort (its thinking is a token budget). */
	assert_null(strstr(call.body, "reasoning_effort"));
	llm_call_release(&call);
	assert_int_equal(ask_read_body(&reply, &provider_anthropic, body, strlen(body)), 0);
	assert_string_equal(reply.text.ptr, "{\"status\":\"compliant\"}");
	assert_int_equal(reply.usage.tokens_in, 120);
	assert_int_equal(reply.usage.tokens_out, 7);
	reading_release(&reply);
	llm_config_release(&c);
}

/* The body a model gets, parsed, for the checks below. */
static json_t *body_for(const struct llm_config *c, const char *model, const char *effort)
{
	struct llm_call call;
	json_error_t error;
	json_t *body;

	assert_int_equal(build(&call, (struct llm_config *)c, model, "user", true, effort), 0);
	body = json_loads(call.body, 0, &error);
	assert_non_null(body);
	llm_call_release(&call);
	return body;
}

static void test_body_follows_the_model_table(void **state)
{
	struct llm_config c;
	json_t *body;

	(void)state;
	clear_env();
	setenv("OPENAI_API_KEY", "sk-test", 1);
	assert_int_equal(llm_config_load(&c, NULL), 0);
	assert_null(c.reasoning_effort);

	/* A reasoning model: no temperature (HTTP 400 from OpenAI), max_completion_tokens. */
	body = body_for(&c, "gpt-5-mini", NULL);
	assert_null(json_object_get(body, "temperature"));
	assert_null(json_object_get(body, "max_tokens"));
	assert_int_equal(json_integer_value(json_object_get(body, "max_completion_tokens")),
			 LLM_REASONING_CAP);
	assert_null(json_object_get(body, "reasoning_effort"));
	json_decref(body);
	/* An effort is sent to a model that takes one. */
	body = body_for(&c, "gpt-5-mini", "low");
	assert_string_equal(json_string_value(json_object_get(body, "reasoning_effort")), "low");
	json_decref(body);
	body = body_for(&c, "o4-mini-2025-04-16", "high");
	assert_string_equal(json_string_value(json_object_get(body, "reasoning_effort")), "high");
	assert_null(json_object_get(body, "temperature"));
	json_decref(body);

	/* gpt-4o-mini keeps temperature and max_tokens, and gets no effort. */
	body = body_for(&c, "gpt-4o-mini", "low");
	assert_true(json_real_value(json_object_get(body, "temperature")) > 0.19);
	assert_int_equal(json_integer_value(json_object_get(body, "max_tokens")), 4096);
	assert_null(json_object_get(body, "max_completion_tokens"));
	assert_null(json_object_get(body, "reasoning_effort"));
	json_decref(body);

	/* A model no row names: what revline always sent, and now a cap. */
	body = body_for(&c, "fake-model", "high");
	assert_true(json_real_value(json_object_get(body, "temperature")) > 0.19);
	assert_int_equal(json_integer_value(json_object_get(body, "max_tokens")), 4096);
	assert_null(json_object_get(body, "reasoning_effort"));
	assert_string_equal(json_string_value(json_object_get(json_object_get(body, "response_format"),
							      "type")), "json_object");
	json_decref(body);
	llm_config_release(&c);

	/* The configured effort, and a rule's that wins over it. */
	{
		char *dir = test_repo_new("llmeffort");
		struct repo *repo = NULL;
		struct config *config = NULL;

		test_sh_ok(dir, "git config revline.reasoningEffort minimal");
		assert_int_equal(repo_open(&repo, dir), 0);
		assert_int_equal(config_open(&config, repo), 0);
		assert_int_equal(llm_config_load(&c, config), 0);
		assert_string_equal(c.reasoning_effort, "minimal");
		body = body_for(&c, "gpt-5-nano", NULL);
		assert_string_equal(json_string_value(json_object_get(body, "reasoning_effort")), "minimal");
		json_decref(body);
		body = body_for(&c, "gpt-5-nano", "medium");
		assert_string_equal(json_string_value(json_object_get(body, "reasoning_effort")), "medium");
		json_decref(body);
		body = body_for(&c, "gpt-4.1", NULL);
		assert_null(json_object_get(body, "reasoning_effort"));
		json_decref(body);
		llm_config_release(&c);
		/* A value no model takes is refused, naming the key and the values. */
		test_sh_ok(dir, "git config revline.reasoningEffort extreme");
		config_free(config);
		assert_int_equal(config_open(&config, repo), 0);
		assert_int_equal(llm_config_load(&c, config), RL_ECONFIG);
		assert_non_null(strstr(error_message(), "revline.reasoningEffort is 'extreme': use minimal"));
		config_free(config);
		repo_free(repo);
		test_rmtree(dir);
		free(dir);
	}
}

static void test_provider_setting_and_key_command(void **state)
{
	char *dir = test_repo_new("llmcfg");
	struct repo *repo = NULL;
	struct config *config = NULL;
	struct llm_config c;

	(void)state;
	clear_env();
	test_sh_ok(dir, "git config revline.provider openai && git config revline.model cfg-model && "
		   "git config revline.apiKeyCommand 'echo from-command; echo second-line' && "
		   "git config revline.reduceModel big-model");
	assert_int_equal(repo_open(&repo, dir), 0);
	assert_int_equal(config_open(&config, repo), 0);
	assert_int_equal(llm_config_load(&c, config), 0);
	assert_int_equal(c.provider, PROVIDER_OPENAI);
	assert_string_equal(c.model, "cfg-model");
	assert_string_equal(c.reduce_model, "big-model");
	assert_string_equal(c.api_key, "from-command");
	assert_string_equal(c.key_source, "revline.apiKeyCommand");
	llm_config_release(&c);
	/* The environment wins over git config. */
	setenv("REVLINE_MODEL", "env-model", 1);
	assert_int_equal(llm_config_load(&c, config), 0);
	assert_string_equal(c.model, "env-model");
	llm_config_release(&c);
	/* A failing command is an error that says what to do, without output. */
	test_sh_ok(dir, "git config revline.apiKeyCommand false");
	config_free(config);
	assert_int_equal(config_open(&config, repo), 0);
	assert_int_equal(llm_config_load(&c, config), RL_ECONFIG);
	assert_non_null(strstr(error_message(), "revline.apiKeyCommand failed"));
	setenv("REVLINE_PROVIDER", "gemini", 1);
	assert_int_equal(llm_config_load(&c, config), RL_ECONFIG);
	assert_non_null(strstr(error_message(), "unknown provider 'gemini'"));
	clear_env();
	config_free(config);
	repo_free(repo);
	test_rmtree(dir);
	free(dir);
}

static void test_reply_errors(void **state)
{
	struct reading reply;
	struct buf text = BUF_INIT;
	const char *ok = "{\"choices\":[{\"message\":{\"content\":\"hi\"}}],\"usage\":{\"prompt_tokens\":3,"
		"\"completion_tokens\":1}}";

	(void)state;
	assert_int_equal(ask_read_body(&reply, &provider_openai, ok, strlen(ok)), 0);
	assert_string_equal(reply.text.ptr, "hi");
	assert_int_equal(reply.usage.tokens_in, 3);
	reading_release(&reply);
	assert_int_equal(ask_read_body(&reply, &provider_openai, "<html>oops</html>", 17), RL_EPARSE);
	assert_string_equal(error_message(), "the server's answer is not JSON: \"<html>oops</html>\"");
	reading_release(&reply);
	assert_int_equal(ask_read_body(&reply, &provider_openai, "{\"id\":1}", 8), RL_EPARSE);
	assert_non_null(strstr(error_message(), "choices[0].message.content"));
	reading_release(&reply);
	{
		const char *body = "{\"error\":{\"message\":\"model 'x' not found\"}}";

		llm_error_text(&text, 404, body, strlen(body));
	}
	assert_string_equal(text.ptr, "HTTP 404: model 'x' not found");
	buf_clear(&text);
	llm_error_text(&text, 502, "Bad Gateway", 11);
	assert_string_equal(text.ptr, "HTTP 502: Bad Gateway");
	buf_release(&text);
}

static void assert_json(const char *text, const char *key, const char *value)
{
	json_t *v = NULL;

	if (llm_extract_json(&v, text, strlen(text)) < 0)
		fail_msg("no JSON found in: %s (%s)", text, error_message());
	assert_string_equal(json_string_value(json_object_get(v, key)), value);
	json_decref(v);
}

static void test_extract_json(void **state)
{
	json_t *v = NULL;

	(void)state;
	assert_json("{\"status\":\"ok\"}", "status", "ok");
	assert_json("  \n{\"status\":\"ok\"}  \n", "status", "ok");
	assert_json("Sure! Here is the review:\n```json\n{\"status\":\"fence\"}\n```\nHope it helps.",
		    "status", "fence");
	assert_json("```\n{\"status\":\"plain fence\"}\n```", "status", "plain fence");
	assert_json("I think {this} is fine. {\"status\": \"prose\", \"note\": \"a } inside\"} done",
		    "status", "prose");
	assert_json("{\"status\":\"first\"}\nand then more text {\"x\":1}", "status", "first");
	assert_int_equal(llm_extract_json(&v, "[{\"file\":\"a.c\"}]", 16), 0);
	assert_true(json_is_array(v));
	json_decref(v);
	assert_int_equal(llm_extract_json(&v, "No JSON here at all.", 20), RL_EPARSE);
	assert_string_equal(error_message(), "the answer holds no JSON object: \"No JSON here at all.\"");
	assert_int_equal(llm_extract_json(&v, "{\"status\": \"cut", 15), RL_EPARSE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_provider),
		cmocka_unit_test(test_openai_from_key_and_base_url),
		cmocka_unit_test(test_anthropic),
		cmocka_unit_test(test_body_follows_the_model_table),
		cmocka_unit_test(test_provider_setting_and_key_command),
		cmocka_unit_test(test_reply_errors),
		cmocka_unit_test(test_extract_json),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
