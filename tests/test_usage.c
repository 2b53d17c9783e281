/* What requests billed, as every front end says it. */
#include "testlib.h"

#include "result.h"
#include "usage.h"

#include <string.h>

static void assert_count(long n, const char *want)
{
	char text[32];

	usage_count_text(text, sizeof(text), n);
	assert_string_equal(text, want);
}

static void test_counts(void **state)
{
	char small[5];

	(void)state;
	assert_count(0, "0");
	assert_count(999, "999");
	assert_count(1000, "1,000");
	assert_count(12345, "12,345");
	assert_count(1234567, "1,234,567");
	assert_count(-4321, "-4,321");
	/* Cut where the room ends, always terminated. */
	usage_count_text(small, sizeof(small), 1234567);
	assert_string_equal(small, "1,23");
	usage_count_text(small, 1, 12);
	assert_string_equal(small, "");
}

static void assert_cost(double cost, const char *want)
{
	char text[32];

	usage_cost_text(text, sizeof(text), cost);
	assert_string_equal(text, want);
}

static void test_costs(void **state)
{
	(void)state;
	assert_cost(-1, "cost unknown");
	assert_cost(0, "$0");
	assert_cost(0.00001, "<$0.0001");
	assert_cost(0.0042, "~$0.0042");
	assert_cost(0.12345, "~$0.1235");
	assert_cost(0.99999, "~$1.00");
	assert_cost(12.345, "~$12.35");
}

static void assert_text(const struct usage *u, const char *want)
{
	struct buf text = BUF_INIT;

	assert_int_equal(usage_text(&text, u), 0);
	assert_string_equal(text.ptr, want);
	buf_release(&text);
}

static void test_text(void **state)
{
	struct usage openai = { 12345, 9984, 0, 1234, 0.0042 };
	struct usage anthropic = { 20000, 15000, 4000, 500, 0.01 };
	struct usage one_write = { 10, 0, 1, 2, -1 };
	struct usage none = { 0, 0, 0, 0, 0 };
	struct buf text = BUF_INIT;

	(void)state;
	assert_text(&openai, "12,345 tokens in (9,984 cached), 1,234 out, ~$0.0042");
	assert_text(&anthropic, "20,000 tokens in (15,000 cached, 4,000 cache writes), 500 out, ~$0.0100");
	assert_text(&one_write, "10 tokens in (0 cached, 1 cache write), 2 out, cost unknown");
	assert_text(&none, "0 tokens in, 0 out, $0");
	assert_int_equal(usage_tokens_text(&text, &anthropic), 0);
	assert_string_equal(text.ptr, "20,000 tokens in (15,000 cached, 4,000 cache writes), 500 out");
	buf_release(&text);
	assert_true(usage_billed(&openai));
	assert_false(usage_billed(&none));
}

static void test_of_result_and_stats(void **state)
{
	struct rule_result r = { .tokens_in = 7, .tokens_cached = 5, .tokens_cache_write = 1,
				 .tokens_out = 3, .cost_usd = 0.5 };
	struct check_stats s = { .requests = 2, .tokens_in = 70, .tokens_cached = 50,
				 .tokens_cache_write = 10, .tokens_out = 30, .cost_usd = -1 };
	struct usage u;

	(void)state;
	usage_of_result(&u, &r);
	assert_int_equal(u.tokens_in, 7);
	assert_int_equal(u.tokens_cached, 5);
	assert_int_equal(u.tokens_cache_write, 1);
	assert_int_equal(u.tokens_out, 3);
	assert_true(u.cost_usd == 0.5);
	usage_of_stats(&u, &s);
	assert_int_equal(u.tokens_in, 70);
	assert_int_equal(u.tokens_cached, 50);
	assert_int_equal(u.tokens_cache_write, 10);
	assert_int_equal(u.tokens_out, 30);
	assert_true(u.cost_usd < 0);
}

static void assert_stats_text(const struct check_stats *st, const char *want)
{
	struct buf text = BUF_INIT;

	assert_int_equal(usage_stats_text(&text, st), 0);
	assert_string_equal(text.ptr, want);
	buf_release(&text);
}

static void test_stats_text(void **state)
{
	struct check_stats asked = { .requests = 14, .cache_hits = 2, .tokens_in = 12345,
				     .tokens_cached = 9984, .tokens_out = 1234, .cost_usd = 0.0042 };
	struct check_stats one = { .requests = 1, .tokens_in = 10, .tokens_out = 2, .cost_usd = -1 };
	struct check_stats all_cached = { .cache_hits = 1, .cost_usd = 0 };
	struct check_stats local = { .cost_usd = -1 };

	(void)state;
	assert_stats_text(&asked, "14 requests, 2 answers from the cache (no cost); "
			  "12,345 tokens in (9,984 cached), 1,234 out, ~$0.0042");
	assert_stats_text(&one, "1 request, none from the cache; 10 tokens in (0 cached), 2 out, cost unknown");
	assert_stats_text(&all_cached, "0 requests, 1 answer from the cache (no cost); 0 tokens in, 0 out, $0");
	assert_stats_text(&local, "no LLM request");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_costs),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_of_result_and_stats),
		cmocka_unit_test(test_stats_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
