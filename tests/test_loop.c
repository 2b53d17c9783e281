/* The UI's event loop: descriptors, timeouts and idle work together. */
#include "testlib.h"

#include "loop.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

struct pipe_source {
	int fds[2];
	int reads;
	char got[64];
};

static int pipe_fds(void *ctx, struct pollfd *out, int max)
{
	struct pipe_source *ps = ctx;

	assert_true(max >= 1);
	out->fd = ps->fds[0];
	out->events = POLLIN;
	return 1;
}

static void pipe_dispatch(void *ctx, const struct pollfd *fds, int n)
{
	struct pipe_source *ps = ctx;
	ssize_t got;

	assert_int_equal(n, 1);
	if (!(fds[0].revents & POLLIN))
		return;
	got = read(ps->fds[0], ps->got, sizeof(ps->got) - 1);
	assert_true(got > 0);
	ps->got[got] = '\0';
	ps->reads++;
}

struct idle_work {
	int slices;
	int remaining;
};

static bool idle_slice(void *ctx)
{
	struct idle_work *w = ctx;

	w->slices++;
	return --w->remaining > 0;
}

struct timer {
	int due_in;
	int fired;
};

static int timer_timeout(void *ctx)
{
	return ((struct timer *)ctx)->due_in;
}

static void timer_dispatch(void *ctx, const struct pollfd *fds, int n)
{
	struct timer *t = ctx;

	(void)fds;
	(void)n;
	t->fired++;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static void test_descriptor_is_dispatched(void **state)
{
	struct loop loop = { 0 };
	struct pipe_source ps = { 0 };
	const struct loop_source src = { pipe_fds, NULL, pipe_dispatch, NULL, &ps, false };

	(void)state;
	assert_int_equal(pipe(ps.fds), 0);
	assert_non_null(loop_add(&loop, &src));
	assert_int_equal(write(ps.fds[1], "hello", 5), 5);
	loop_step(&loop, 1000);
	assert_int_equal(ps.reads, 1);
	assert_string_equal(ps.got, "hello");
	/* Nothing ready: the wait ends at the limit and nothing is read. */
	loop_step(&loop, 10);
	assert_int_equal(ps.reads, 1);
	close(ps.fds[0]);
	close(ps.fds[1]);
	loop_release(&loop);
}

/* The engine's busy modules join the loop's poll group: their descriptors are waited on with the terminal's. */
static int member_fds(void *ctx, struct pollfd *out, int max)
{
	return pipe_fds(ctx, out, max);
}

static int member_step(void *ctx, const struct pollfd *fds, int n)
{
	pipe_dispatch(ctx, fds, n);
	return 0;
}

static void test_engine_member_shares_the_wait(void **state)
{
	struct loop loop = { 0 };
	struct pipe_source ui = { 0 }, engine = { 0 };
	const struct loop_source src = { pipe_fds, NULL, pipe_dispatch, NULL, &ui, false };
	struct poll_member member = { member_fds, NULL, member_step, &engine, NULL, 0, 0 };
	double start;

	(void)state;
	assert_int_equal(pipe(ui.fds), 0);
	assert_int_equal(pipe(engine.fds), 0);
	assert_non_null(loop_add(&loop, &src));
	assert_int_equal(poll_group_join(&loop.group, &member), 0);
	/* The engine's answer ends the wait, which would otherwise last 5 s. */
	assert_int_equal(write(engine.fds[1], "answer", 6), 6);
	start = now_ms();
	loop_step(&loop, 5000);
	assert_true(now_ms() - start < 2000);
	assert_int_equal(engine.reads, 1);
	assert_string_equal(engine.got, "answer");
	assert_int_equal(ui.reads, 0);
	/* And a key is read in the same wait as it. */
	assert_int_equal(write(engine.fds[1], "more", 4), 4);
	assert_int_equal(write(ui.fds[1], "k", 1), 1);
	loop_step(&loop, 5000);
	assert_int_equal(engine.reads, 2);
	assert_int_equal(ui.reads, 1);
	/* Gone from the group, it is no longer waited on. */
	poll_group_leave(&member);
	assert_int_equal(write(engine.fds[1], "late", 4), 4);
	loop_step(&loop, 10);
	assert_int_equal(engine.reads, 2);
	close(ui.fds[0]);
	close(ui.fds[1]);
	close(engine.fds[0]);
	close(engine.fds[1]);
	loop_release(&loop);
}

/* Idle work runs one slice per step and never makes the loop wait. */
static void test_idle_runs_in_slices_without_waiting(void **state)
{
	struct loop loop = { 0 };
	struct pipe_source ps = { 0 };
	struct idle_work work = { 0, 5 };
	const struct loop_source pipe_src = { pipe_fds, NULL, pipe_dispatch, NULL, &ps, false };
	const struct loop_source idle_src = { NULL, NULL, NULL, idle_slice, &work, false };
	struct loop_source *idle;
	double start;
	int i;

	(void)state;
	assert_int_equal(pipe(ps.fds), 0);
	loop_add(&loop, &pipe_src);
	idle = loop_add(&loop, &idle_src);
	loop_wake(idle);
	assert_true(loop_busy(&loop));
	start = now_ms();
	for (i = 0; i < 5; i++)
		loop_step(&loop, 5000);
	assert_true(now_ms() - start < 1000);  /* it did not wait 5 s a step */
	assert_int_equal(work.slices, 5);
	assert_false(loop_busy(&loop));
	/* Input that arrives while work remains is still read at once. */
	work.remaining = 3;
	loop_wake(idle);
	assert_int_equal(write(ps.fds[1], "key", 3), 3);
	loop_step(&loop, 5000);
	assert_int_equal(ps.reads, 1);
	loop_drain(&loop);
	assert_false(loop_busy(&loop));
	close(ps.fds[0]);
	close(ps.fds[1]);
	loop_release(&loop);
}

/* A source's timeout shortens the wait; every source is dispatched after it. */
static void test_timeout_bounds_the_wait(void **state)
{
	struct loop loop = { 0 };
	struct timer t = { 20, 0 };
	const struct loop_source src = { NULL, timer_timeout, timer_dispatch, NULL, &t, false };
	double start;

	(void)state;
	loop_add(&loop, &src);
	start = now_ms();
	loop_step(&loop, -1);
	assert_true(now_ms() - start < 2000);
	assert_int_equal(t.fired, 1);
	loop_release(&loop);
}

static void test_sources_are_limited(void **state)
{
	struct loop loop = { 0 };
	const struct loop_source src = { 0 };
	int i;

	(void)state;
	for (i = 0; i < LOOP_MAX_SOURCES; i++)
		assert_non_null(loop_add(&loop, &src));
	assert_null(loop_add(&loop, &src));
	loop_release(&loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descriptor_is_dispatched),
		cmocka_unit_test(test_engine_member_shares_the_wait),
		cmocka_unit_test(test_idle_runs_in_slices_without_waiting),
		cmocka_unit_test(test_timeout_bounds_the_wait),
		cmocka_unit_test(test_sources_are_limited),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
