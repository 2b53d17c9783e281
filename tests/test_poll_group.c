/* The poll group: the one way the engine's busy modules are waited on. */
#include "testlib.h"

#include "poll_group.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#define MANY 40

struct reader {
	int fds[2];
	int reads, steps;
	int order;              /* when it stepped, from a shared counter */
	int *counter;
	struct poll_member *leave;      /* another member to take out during the step */
	struct poll_group *free_group;  /* a group to free during the step */
	struct poll_member self;
	int timeout;
};

static int reader_fds(void *ctx, struct pollfd *out, int max)
{
	struct reader *r = ctx;

	if (max < 1)
		return 0;
	out->fd = r->fds[0];
	out->events = POLLIN;
	out->revents = 0;
	return 1;
}

static int reader_timeout(void *ctx)
{
	return ((struct reader *)ctx)->timeout;
}

static int reader_step(void *ctx, const struct pollfd *fds, int n)
{
	struct reader *r = ctx;
	char c;

	r->steps++;
	if (r->counter)
		r->order = ++*r->counter;
	if (r->leave)
		poll_group_leave(r->leave);
	if (r->free_group) {
		poll_group_free(r->free_group);
		r->free_group = NULL;
	}
	if (n == 1 && fds[0].fd == r->fds[0] && (fds[0].revents & POLLIN) && read(r->fds[0], &c, 1) == 1)
		r->reads++;
	return 0;
}

static void reader_init(struct reader *r, int *counter)
{
	memset(r, 0, sizeof(*r));
	assert_int_equal(pipe(r->fds), 0);
	r->counter = counter;
	r->timeout = -1;
	r->self = (struct poll_member){ reader_fds, reader_timeout, reader_step, r, NULL, 0, 0 };
}

static void reader_close(struct reader *r)
{
	close(r->fds[0]);
	close(r->fds[1]);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

/* Every member's descriptors in one wait, however many; each gets its own back. */
static void test_many_members_one_wait(void **state)
{
	struct poll_group group = POLL_GROUP_INIT;
	struct reader r[MANY];
	int counter = 0, i;

	(void)state;
	for (i = 0; i < MANY; i++) {
		reader_init(&r[i], &counter);
		assert_int_equal(poll_group_join(&group, &r[i].self), 0);
	}
	/* Joining twice changes nothing. */
	assert_int_equal(poll_group_join(&group, &r[0].self), 0);
	assert_int_equal(group.count, MANY);
	for (i = 0; i < MANY; i += 3)
		assert_int_equal(write(r[i].fds[1], "x", 1), 1);
	assert_int_equal(poll_group_wait(&group, 5000), 0);
	for (i = 0; i < MANY; i++) {
		assert_int_equal(r[i].reads, i % 3 == 0);
		assert_int_equal(r[i].steps, 1);
		/* In the order they joined: the lower layers first. */
		assert_int_equal(r[i].order, i + 1);
	}
	for (i = 0; i < MANY; i++)
		reader_close(&r[i]);
	poll_group_release(&group);
	assert_null(r[0].self.group);
}

/* A member may leave (be freed) in a step: one not yet stepped is not stepped. */
static void test_leave_during_step(void **state)
{
	struct poll_group group = POLL_GROUP_INIT;
	struct reader a, b, c;
	int counter = 0;

	(void)state;
	reader_init(&a, &counter);
	reader_init(&b, &counter);
	reader_init(&c, &counter);
	a.leave = &b.self;
	poll_group_join(&group, &a.self);
	poll_group_join(&group, &b.self);
	poll_group_join(&group, &c.self);
	assert_int_equal(write(c.fds[1], "x", 1), 1);
	assert_int_equal(poll_group_wait(&group, 1000), 0);
	assert_int_equal(a.steps, 1);
	assert_int_equal(b.steps, 0);
	assert_null(b.self.group);
	/* c still got its own descriptor, not b's. */
	assert_int_equal(c.reads, 1);
	assert_int_equal(group.count, 2);
	reader_close(&a);
	reader_close(&b);
	reader_close(&c);
	poll_group_release(&group);
}

/*
 * A module that made its own group may be freed by a step of that group
 * (its work done): the group goes when the step ends, the members after
 * the one that freed it are not stepped. ASan tells a use after free.
 */
static void test_group_freed_during_step(void **state)
{
	struct poll_group *group = NULL;
	struct reader a, b;

	(void)state;
	reader_init(&a, NULL);
	reader_init(&b, NULL);
	assert_int_equal(poll_group_new(&group), 0);
	poll_group_join(group, &a.self);
	poll_group_join(group, &b.self);
	a.free_group = group;
	assert_int_equal(write(b.fds[1], "x", 1), 1);
	assert_int_equal(poll_group_wait(group, 1000), 0);
	assert_int_equal(a.steps, 1);
	assert_int_equal(b.steps, 0);
	assert_null(a.self.group);
	assert_null(b.self.group);
	reader_close(&a);
	reader_close(&b);
}

/* The soonest timeout bounds the wait; a member's -1 does not. */
static void test_timeouts(void **state)
{
	struct poll_group group = POLL_GROUP_INIT;
	struct reader a, b;
	double start;

	(void)state;
	reader_init(&a, NULL);
	reader_init(&b, NULL);
	a.timeout = -1;
	b.timeout = 30;
	poll_group_join(&group, &a.self);
	poll_group_join(&group, &b.self);
	assert_int_equal(poll_group_timeout(&group), 30);
	start = now_ms();
	assert_int_equal(poll_group_wait(&group, -1), 0);
	assert_true(now_ms() - start < 2000);
	assert_int_equal(b.steps, 1);
	/* The caller's limit is the sooner one. */
	b.timeout = 60000;
	start = now_ms();
	assert_int_equal(poll_group_wait(&group, 20), 0);
	assert_true(now_ms() - start < 2000);
	assert_int_equal(poll_sooner(-1, 5), 5);
	assert_int_equal(poll_sooner(7, -1), 7);
	assert_int_equal(poll_sooner(-1, -1), -1);
	reader_close(&a);
	reader_close(&b);
	poll_group_release(&group);
}

/* One member alone: the others are not stepped (a leaf waited on from inside a step). */
static void test_member_wait_alone(void **state)
{
	struct poll_group group = POLL_GROUP_INIT;
	struct reader a, b;

	(void)state;
	reader_init(&a, NULL);
	reader_init(&b, NULL);
	poll_group_join(&group, &a.self);
	poll_group_join(&group, &b.self);
	assert_int_equal(write(a.fds[1], "x", 1), 1);
	assert_int_equal(write(b.fds[1], "x", 1), 1);
	assert_int_equal(poll_member_wait(&a.self, 1000), 0);
	assert_int_equal(a.reads, 1);
	assert_int_equal(b.steps, 0);
	reader_close(&a);
	reader_close(&b);
	poll_group_release(&group);
}

/* A group of one's own: made, joined, freed with its members still in it. */
static void test_own_group(void **state)
{
	struct poll_group *group = NULL;
	struct reader a;

	(void)state;
	reader_init(&a, NULL);
	assert_int_equal(poll_group_new(&group), 0);
	assert_int_equal(group->count, 0);
	poll_group_join(group, &a.self);
	assert_int_equal(group->count, 1);
	poll_group_free(group);
	assert_null(a.self.group);
	poll_group_leave(&a.self);     /* in none: nothing */
	reader_close(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_members_one_wait),
		cmocka_unit_test(test_leave_during_step),
		cmocka_unit_test(test_group_freed_during_step),
		cmocka_unit_test(test_timeouts),
		cmocka_unit_test(test_member_wait_alone),
		cmocka_unit_test(test_own_group),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
