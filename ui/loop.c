#include "loop.h"
#include "array.h"
#include "clock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The stretch since the last wait ended: dispatch, idle work and drawing. */
static void stretch_end(struct loop *loop)
{
	int64_t busy;

	if (!loop->woke_us)
		return;
	busy = clock_us() - loop->woke_us;
	if (busy > loop->stats.busy_max_us)
		loop->stats.busy_max_us = busy;
	loop->stats.busy_sum_us += busy;
	loop->stats.stretches++;
}

struct loop_source *loop_add(struct loop *loop, const struct loop_source *source)
{
	struct loop_source *s;

	if (loop->nsources == LOOP_MAX_SOURCES)
		return NULL;
	s = &loop->sources[loop->nsources++];
	*s = *source;
	return s;
}

void loop_release(struct loop *loop)
{
	poll_group_release(&loop->group);
	free(loop->fds);
	loop->fds = NULL;
	loop->fds_alloc = 0;
}

void loop_wake(struct loop_source *source)
{
	source->idle_pending = source->idle != NULL;
}

bool loop_busy(const struct loop *loop)
{
	int i;

	for (i = 0; i < loop->nsources; i++)
		if (loop->sources[i].idle_pending)
			return true;
	return false;
}

static int wait_time(struct loop *loop, int max_wait)
{
	int i, wait = poll_sooner(max_wait, poll_group_timeout(&loop->group));

	if (loop_busy(loop))
		return 0;
	for (i = 0; i < loop->nsources; i++) {
		struct loop_source *s = &loop->sources[i];

		if (s->timeout)
			wait = poll_sooner(wait, s->timeout(s->ctx));
	}
	return wait;
}

/*
 * The engine's descriptors (the group's), then the sources', with room for
 * all of them; *engine is how many are the group's.
 */
static int fds_fill(struct loop *loop, int *engine, int first[], int count[])
{
	size_t room = 16;
	int i, n;

	for (;;) {
		if (ARRAY_GROW(loop->fds, loop->fds_alloc, room + LOOP_SOURCE_FDS * LOOP_MAX_SOURCES) < 0)
			return -1;
		n = *engine = poll_group_fds(&loop->group, loop->fds, (int)loop->fds_alloc);
		if ((size_t)n + LOOP_SOURCE_FDS * LOOP_MAX_SOURCES < loop->fds_alloc)
			break;
		room = loop->fds_alloc * 2;
	}
	for (i = 0; i < loop->nsources; i++) {
		struct loop_source *s = &loop->sources[i];

		first[i] = n;
		count[i] = s->fds ? s->fds(s->ctx, loop->fds + n, LOOP_SOURCE_FDS) : 0;
		n += count[i];
	}
	return n;
}

static bool run_idle(struct loop *loop)
{
	int i;

	for (i = 0; i < loop->nsources; i++) {
		struct loop_source *s = &loop->sources[i];

		if (s->idle_pending) {
			s->idle_pending = s->idle(s->ctx);
			return true;
		}
	}
	return false;
}

void loop_step(struct loop *loop, int max_wait)
{
	int first[LOOP_MAX_SOURCES], count[LOOP_MAX_SOURCES];
	int i, engine = 0, n = fds_fill(loop, &engine, first, count), ready;

	if (n < 0)
		n = engine = 0;
	stretch_end(loop);
	ready = poll(loop->fds, (nfds_t)n, wait_time(loop, max_wait));
	loop->woke_us = clock_us();
	if (ready < 0 && errno != EINTR)
		ready = 0;
	if (ready <= 0)
		for (i = 0; i < n; i++)
			loop->fds[i].revents = 0;
	/* The engine first, so that the sources show what it just did. */
	poll_group_step(&loop->group, loop->fds, engine);
	for (i = 0; i < loop->nsources; i++) {
		struct loop_source *s = &loop->sources[i];

		/* Sources are dispatched after every wait, even with nothing
		 * ready: a timer may be due and a resize may have interrupted. */
		if (s->dispatch)
			s->dispatch(s->ctx, loop->fds + first[i], count[i]);
	}
	if (ready <= 0)
		run_idle(loop);
}

void loop_drain(struct loop *loop)
{
	while (run_idle(loop))
		;
}
