/* The model table: rows, problems with path:line, the user's rows first, the default. */
#include "testlib.h"

#include "models.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct model_info *lookup(const struct models *m, const char *provider, const char *model)
{
	const struct model_info *info = NULL;

	assert_int_equal(models_lookup(&info, m, provider, model), 0);
	assert_non_null(info);
	return info;
}

static struct models *parse(const char *text)
{
	struct models *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	assert_int_equal(models_parse(m, text, strlen(text), "t.tsv"), 0);
	return m;
}

static void test_rows(void **state)
{
	struct models *m = parse(
		"# a comment\n"
		"\n"
		"gpt-5-mini\topenai\tno\tmax_completion_tokens\tjson_schema\tyes\t400000\t1024\t0.25\t0.025\t2.00\tyes\n"
		"gpt-5*  openai  no  max_completion_tokens  json_schema  yes  -  1024  -  -  -  no\r\n"
		"claude-haiku-4-5*\tanthropic\tyes\tmax_tokens\tjson_schema\tno\t200000\t4096\t1\t0.10\t5\n"
		"*:*\tany\tyes\tmax_tokens\tnone\tno\t-\t-\t-\t-\t-\n");
	const struct model_info *info;

	(void)state;
	assert_int_equal(m->count, 4);
	assert_int_equal(m->nproblems, 0);
	info = lookup(m, "openai", "gpt-5-mini");
	assert_string_equal(info->pattern, "gpt-5-mini");
	assert_false(info->temperature);
	assert_int_equal(info->max_param, MODEL_MAX_COMPLETION_TOKENS);
	assert_int_equal(info->structured, MODEL_STRUCTURED_JSON_SCHEMA);
	assert_true(info->reasoning_effort);
	assert_int_equal(info->context_window, 400000);
	assert_int_equal(info->cache_min, 1024);
	assert_true(info->price_input > 0.2499 && info->price_input < 0.2501);
	assert_true(info->price_cached > 0.02499 && info->price_cached < 0.02501);
	assert_true(info->price_output > 1.999 && info->price_output < 2.001);
	assert_true(info->tools);
	assert_int_equal(info->line, 3);
	/* First match wins: the snapshot falls to the family's row, which knows no price. */
	info = lookup(m, "openai", "gpt-5-mini-2025-08-07");
	assert_string_equal(info->pattern, "gpt-5*");
	assert_true(info->price_input < 0);
	assert_int_equal(info->context_window, 0);
	assert_false(info->tools);
	/* A row of eleven columns, written before the tools column, takes none. */
	assert_false(lookup(m, "anthropic", "claude-haiku-4-5")->tools);
	/* A router's name is matched by its last part, and case does not count. */
	assert_string_equal(lookup(m, "openai", "openai/GPT-5-mini")->pattern, "gpt-5-mini");
	/* The provider must match: an Anthropic row is not an OpenAI-compatible server's. */
	assert_string_equal(lookup(m, "anthropic", "claude-haiku-4-5")->pattern, "claude-haiku-4-5*");
	assert_ptr_equal(lookup(m, "openai", "claude-haiku-4-5"), &models_default);
	assert_string_equal(lookup(m, "openai", "qwen2.5-coder:7b")->pattern, "*:*");
	assert_int_equal(lookup(m, "openai", "qwen2.5-coder:7b")->structured, MODEL_STRUCTURED_NONE);
	models_free(m);
}

static void test_unknown_model_gets_the_default(void **state)
{
	struct models *m = parse("gpt-5*\topenai\tno\tmax_completion_tokens\tjson_schema\tyes\t-\t-\t-\t-\t-\n");
	const struct model_info *info;

	(void)state;
	info = lookup(m, "openai", "fake-model");
	assert_ptr_equal(info, &models_default);
	assert_true(info->temperature);
	assert_int_equal(info->max_param, MODEL_MAX_TOKENS);
	assert_int_equal(info->structured, MODEL_STRUCTURED_JSON_OBJECT);
	assert_false(info->reasoning_effort);
	assert_false(info->tools);
	assert_true(info->price_input < 0 && info->price_output < 0);
	/* No table, no name, a name too long to be one: the default, never a crash. */
	assert_ptr_equal(lookup(NULL, "openai", "gpt-5"), &models_default);
	assert_ptr_equal(lookup(m, "openai", ""), &models_default);
	{
		char name[700];

		memset(name, 'g', sizeof(name) - 1);
		name[sizeof(name) - 1] = '\0';
		assert_ptr_equal(lookup(m, "openai", name), &models_default);
	}
	models_free(m);
}

static void test_bad_rows_are_problems_and_skipped(void **state)
{
	struct models *m = parse(
		"good-a\tany\tyes\tmax_tokens\tnone\tno\t-\t-\t-\t-\t-\n"
		"short\tany\tyes\n"
		"x\tgemini\tyes\tmax_tokens\tnone\tno\t-\t-\t-\t-\t-\n"
		"x\tany\tmaybe\tmax_tokens\tnone\tno\t-\t-\t-\t-\t-\n"
		"x\tany\tyes\tmax_output\tnone\tno\t-\t-\t-\t-\t-\n"
		"x\tany\tyes\tmax_tokens\tjson\tno\t-\t-\t-\t-\t-\n"
		"x\tany\tyes\tmax_tokens\tnone\tno\t12k\t-\t-\t-\t-\n"
		"x\tany\tyes\tmax_tokens\tnone\tno\t-\t-\t$1\t-\t-\n"
		"x\tany\tyes\tmax_tokens\tnone\tno\t-\t-\t1,5\t-\t-\n"
		"[x\tany\tyes\tmax_tokens\tnone\tno\t-\t-\t-\t-\t-\n"
		"x\tany\tyes\tmax_tokens\tnone\tno\t-\t-\t-\t-\t-\tsometimes\n"
		"x\tany\tyes\tmax_tokens\tnone\tno\t-\t-\t-\t-\t-\tno\textra\n"
		"good-b\tany\tyes\tmax_tokens\tnone\tno\t-\t-\t-\t-\t-\n");
	static const char *const expected[] = {
		"t.tsv:2: 3 columns where 11 are needed",
		"t.tsv:3: provider is 'gemini': use openai, anthropic or any",
		"t.tsv:4: temperature is 'maybe': use no or yes",
		"t.tsv:5: max-tokens is 'max_output': use max_tokens or max_completion_tokens",
		"t.tsv:6: structured is 'json': use none, json_object or json_schema",
		"t.tsv:7: context is '12k'",
		"t.tsv:8: input is '$1'",
		"t.tsv:9: input is '1,5'",
		"t.tsv:10: pattern '[x'",
		"t.tsv:11: tools is 'sometimes': use no or yes",
		"t.tsv:12: more than 12 columns",
	};
	size_t i;

	(void)state;
	assert_int_equal(m->count, 2);
	assert_string_equal(m->rows[0].pattern, "good-a");
	assert_string_equal(m->rows[1].pattern, "good-b");
	assert_int_equal(m->rows[1].line, 13);
	assert_int_equal(m->nproblems, sizeof(expected) / sizeof(expected[0]));
	for (i = 0; i < m->nproblems; i++) {
		if (strncmp(m->problems[i], expected[i], strlen(expected[i])))
			fail_msg("problem %zu: expected '%s...', got '%s'", i, expected[i], m->problems[i]);
		assert_non_null(strstr(m->problems[i], "the row is left out"));
	}
	models_free(m);
}

static void test_bounds(void **state)
{
	struct buf text = BUF_INIT;
	struct models *m;
	size_t i;

	(void)state;
	for (i = 0; i < MODELS_ROWS_MAX + 5; i++)
		assert_int_equal(buf_printf(&text, "m%zu\tany\tyes\tmax_tokens\tnone\tno\t-\t-\t-\t-\t-\n", i), 0);
	m = parse(text.ptr);
	assert_int_equal(m->count, MODELS_ROWS_MAX);
	assert_int_equal(m->nproblems, 1);
	assert_non_null(strstr(m->problems[0], "more than 1000 rows"));
	models_free(m);
	/* Many bad rows keep a bounded list of problems and count the rest. */
	buf_clear(&text);
	for (i = 0; i < MODELS_PROBLEMS_MAX + 30; i++)
		assert_int_equal(buf_puts(&text, "bad\n"), 0);
	m = parse(text.ptr);
	assert_int_equal(m->count, 0);
	assert_int_equal(m->nproblems, MODELS_PROBLEMS_MAX);
	assert_int_equal(m->dropped, 30);
	models_free(m);
	buf_release(&text);
}

static void test_load_user_rows_first(void **state)
{
	char *home = test_tmpdir("models");
	char *config = NULL, *data = NULL, *big = NULL;
	struct models *m;
	const struct model_info *info;

	(void)state;
	assert_true(asprintf(&config, "%s/config", home) > 0 && asprintf(&data, "%s/data", home) > 0);
	setenv("XDG_CONFIG_HOME", config, 1);
	setenv("REVLINE_DATADIR", data, 1);
	test_sh_ok(home, "mkdir -p config/revline data");
	test_write_str(config, "revline/models.tsv",
		       "# mine: gpt-5-mini behind my gateway takes temperature\n"
		       "gpt-5-mini\topenai\tyes\tmax_tokens\tjson_object\tno\t-\t-\t-\t-\t-\n"
		       "oops\n");
	test_write_str(data, "models.tsv",
		       "gpt-5-mini\topenai\tno\tmax_completion_tokens\tjson_schema\tyes\t400000\t1024\t0.25\t0.025\t2\n"
		       "gpt-5-nano\topenai\tno\tmax_completion_tokens\tjson_schema\tyes\t400000\t1024\t0.05\t0.005\t0.4\n");
	assert_int_equal(models_load(&m), 0);
	assert_int_equal(m->count, 3);
	info = lookup(m, "openai", "gpt-5-mini");
	assert_true(info->temperature);
	assert_non_null(strstr(info->path, "config/revline/models.tsv"));
	assert_int_equal(info->line, 2);
	info = lookup(m, "openai", "gpt-5-nano");
	assert_false(info->temperature);
	assert_non_null(strstr(info->path, "data/./models.tsv"));
	assert_int_equal(m->nproblems, 1);
	assert_non_null(strstr(m->problems[0], "config/revline/models.tsv:3: 1 column where 11"));
	models_free(m);

	/* A table too big is not read, and says so; revline's own still counts. */
	assert_non_null(big = malloc(MODELS_FILE_MAX + 2));
	memset(big, '#', MODELS_FILE_MAX + 1);
	big[MODELS_FILE_MAX + 1] = '\0';
	test_write_str(config, "revline/models.tsv", big);
	assert_int_equal(models_load(&m), 0);
	assert_int_equal(m->count, 2);
	assert_int_equal(m->nproblems, 1);
	assert_non_null(strstr(m->problems[0], "larger than 256 KB"));
	models_free(m);

	/* No table anywhere: no rows, no problem. */
	test_sh_ok(home, "rm -r config data && mkdir data");
	assert_int_equal(models_load(&m), 0);
	assert_int_equal(m->count + m->nproblems, 0);
	models_free(m);
	test_rmtree(home);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("REVLINE_DATADIR");
	free(big);
	free(config);
	free(data);
	free(home);
}

/* revline's own table parses whole, and says what the issue asks of today's models. */
static void test_shipped_table(void **state)
{
	struct buf text = BUF_INIT;
	struct models *m = calloc(1, sizeof(*m));
	const struct model_info *info;

	(void)state;
	assert_non_null(m);
	assert_int_equal(buf_read_file(&text, TEST_SOURCE_DIR "/share/models.tsv"), 0);
	assert_int_equal(models_parse(m, text.ptr, text.len, "share/models.tsv"), 0);
	if (m->nproblems)
		fail_msg("%s", m->problems[0]);
	assert_true(m->count >= 20);
	assert_false(lookup(m, "openai", "gpt-5-mini")->temperature);
	assert_int_equal(lookup(m, "openai", "o3")->max_param, MODEL_MAX_COMPLETION_TOKENS);
	assert_true(lookup(m, "openai", "o4-mini")->reasoning_effort);
	info = lookup(m, "openai", "gpt-4o-mini");
	assert_true(info->temperature);
	assert_int_equal(info->max_param, MODEL_MAX_TOKENS);
	assert_false(info->reasoning_effort);
	assert_int_equal(lookup(m, "anthropic", "claude-haiku-4-5")->cache_min, 4096);
	assert_int_equal(lookup(m, "anthropic", "claude-3-5-haiku-latest")->cache_min, 2048);
	assert_true(lookup(m, "openai", "llama3.1:8b")->temperature);
	/* Who takes tools: the hosted families and the local ones that call them; not the unknown tag. */
	assert_true(lookup(m, "openai", "gpt-5-mini")->tools);
	assert_true(lookup(m, "anthropic", "claude-sonnet-4-5")->tools);
	assert_true(lookup(m, "openai", "qwen2.5-coder:14b")->tools);
	assert_false(lookup(m, "openai", "deepseek-r1:8b")->tools);
	assert_false(lookup(m, "openai", "mistral:7b")->tools);
	models_free(m);
	buf_release(&text);
}

static void assert_usd(double got, double want)
{
	if (got < want - 1e-12 || got > want + 1e-12)
		fail_msg("cost %.12f, expected %.12f", got, want);
}

/*
 * The cost of a request by hand: gpt-5-mini bills 0.25 / 0.025 / 2.00 USD
 * per million input / cached / output tokens, claude-haiku-4-5 1.00 / 0.10
 * / 5.00 with cache writes at 1.25 x 1.00.
 */
static void test_cost(void **state)
{
	struct models *m = parse(
		"gpt-5-mini\topenai\tno\tmax_completion_tokens\tjson_schema\tyes\t400000\t1024\t0.25\t0.025\t2.00\n"
		"claude-haiku-4-5*\tanthropic\tyes\tmax_tokens\tjson_schema\tno\t200000\t4096\t1\t0.10\t5\n"
		"half*\tany\tyes\tmax_tokens\tjson_schema\tno\t-\t-\t0.5\t-\t1.5\n"
		"free*\tany\tyes\tmax_tokens\tjson_schema\tno\t-\t-\t0\t0\t0\n");
	const struct model_info *mini = lookup(m, "openai", "gpt-5-mini");
	const struct model_info *haiku = lookup(m, "anthropic", "claude-haiku-4-5");
	const struct model_info *half = lookup(m, "openai", "half-model");

	(void)state;
	/* 12,345 in of which 9,984 cached, 1,234 out: 2,361 x 0.25 + 9,984 x 0.025 + 1,234 x 2.00, per million. */
	assert_usd(models_cost(mini, 12345, 9984, 0, 1234), (2361 * 0.25 + 9984 * 0.025 + 1234 * 2.00) / 1e6);
	assert_usd(models_cost(mini, 1000000, 0, 0, 0), 0.25);
	assert_usd(models_cost(mini, 0, 0, 0, 1000000), 2.00);
	assert_usd(models_cost(mini, 0, 0, 0, 0), 0);
	/* Anthropic: 20,000 in = 1,000 uncached + 15,000 read + 4,000 written (at 1.25 USD). */
	assert_usd(models_cost(haiku, 20000, 15000, 4000, 500),
		   (1000 * 1.00 + 15000 * 0.10 + 4000 * 1.25 + 500 * 5.00) / 1e6);
	/* More cached than in (a server that counts apart): no uncached part, never a negative one. */
	assert_usd(models_cost(mini, 100, 300, 0, 0), 300 * 0.025 / 1e6);
	/* A price that is needed and not known makes the cost unknown; one not needed does not. */
	assert_usd(models_cost(half, 1000, 0, 0, 1000), (1000 * 0.5 + 1000 * 1.5) / 1e6);
	assert_true(models_cost(half, 1000, 10, 0, 1000) < 0);
	assert_usd(models_cost(half, 1000, 0, 10, 0), (990 * 0.5 + 10 * 0.5 * 1.25) / 1e6);
	assert_true(models_cost(&models_default, 1, 0, 0, 0) < 0);
	assert_true(models_cost(&models_default, 0, 0, 0, 1) < 0);
	assert_usd(models_cost(&models_default, 0, 0, 0, 0), 0);
	/* A local model priced at 0 costs 0, not an unknown. */
	assert_usd(models_cost(lookup(m, "openai", "free-model"), 5000, 100, 0, 500), 0);
	models_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_unknown_model_gets_the_default),
		cmocka_unit_test(test_bad_rows_are_problems_and_skipped),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_load_user_rows_first),
		cmocka_unit_test(test_shipped_table),
		cmocka_unit_test(test_cost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
