/* The adaptive timeout: the seed's Layer 3 as a table. */
#include "testlib.h"

#include "timeout.h"

#include <string.h>

struct row {
	double base;
	size_t files, lines;
	bool deps;
	double chosen;
	const char *reason;     /* a part of it */
};

static const struct row rows[] = {
	/* Dependency-only: half, not under 30 s, never over the base. */
	{ 120, 2, 40, true, 60, "dependency-only change" },
	{ 600, 3, 900, true, 300, "of the base 600 s" },
	{ 40, 1, 2, true, 30, "dependency-only" },
	{ 20, 1, 2, true, 20, "dependency-only" },
	/* Small: the base. */
	{ 120, 1, 1, false, 120, "1 file, 1 changed line: the base 120 s" },
	{ 120, 10, 500, false, 120, "the base" },
	{ 120, 0, 0, false, 120, "the base" },
	/* Larger: in proportion to the further of files and lines, up to 1.5x at 50 files or 2,000 lines. */
	{ 120, 11, 10, false, 121.5, "11 files" },
	{ 120, 30, 10, false, 150, "1.25 x" },
	{ 120, 50, 10, false, 180, "1.50 x" },
	{ 120, 5000, 10, false, 180, "1.50 x" },
	{ 120, 3, 1250, false, 150, "1250 changed lines" },
	{ 120, 3, 2000, false, 180, "1.50" },
	{ 120, 30, 2000, false, 180, "1.50" },
	/* The ceiling: 900 s, the scheduler's, even when the base is higher. */
	{ 800, 100, 100000, false, 900, "1.12 x" },
	{ 1000, 100, 100000, false, 900, "the base 1000 s is over the ceiling: 900 s" },
	{ 86400, 1, 1, false, SCHED_REQUEST_TIMEOUT_MAX_S, "over the ceiling" },
	{ 4000, 1, 1, true, 900, "dependency-only" },
};

static void test_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct timeout_choice t;

		timeout_choose(&t, rows[i].base, rows[i].files, rows[i].lines, rows[i].deps);
		if (t.chosen < rows[i].chosen - 0.001 || t.chosen > rows[i].chosen + 0.001)
			fail_msg("row %zu: chose %.3f s, expected %.3f s (%s)", i, t.chosen, rows[i].chosen, t.reason);
		if (!strstr(t.reason, rows[i].reason))
			fail_msg("row %zu: reason '%s' lacks '%s'", i, t.reason, rows[i].reason);
		assert_true(t.base == rows[i].base);
	}
}

/* However large the prompt, one request never gets more than the ceiling. */
static void test_request_ceiling(void **state)
{
	struct sched_options o;

	(void)state;
	sched_options_init(&o);
	assert_int_equal(sched_task_timeout_ms(&o, 0), 120000);
	assert_int_equal(sched_task_timeout_ms(&o, 65536), 240000);
	assert_int_equal(sched_task_timeout_ms(&o, (size_t)100 << 20), 900000);
	assert_int_equal(sched_task_timeout_ms(&o, SIZE_MAX), 900000);
	o.timeout = 86400;
	assert_int_equal(sched_task_timeout_ms(&o, 0), (long)(SCHED_REQUEST_TIMEOUT_MAX_S * 1000));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_request_ceiling),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
