#include "loop.h"
#include "clock.h"

#include <errno.h>
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
	if (loop->nsources == LOOP_MAX_SOURCES)
		return NULL;
	loop->sources[loop->nsources] = *source;
	return &loop->sources[loop->nsources++];
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
	int i, wait = max_wait;

	if (loop_busy(loop))
		return 0;
	for (i = 0; i < loop->nsources; i++) {
		struct loop_source *s = &loop->sources[i];
		int t = s->timeout ? s->timeout(s->ctx) : -1;

		if (t >= 0 && (wait < 0 || t < wait))
			wait = t;
	}
	return wait;
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
	struct pollfd fds[LOOP_MAX_FDS];
	int first[LOOP_MAX_SOURCES], count[LOOP_MAX_SOURCES];
	int i, n = 0, ready;

	for (i = 0; i < loop->nsources; i++) {
		struct loop_source *s = &loop->sources[i];

		first[i] = n;
		count[i] = s->fds ? s->fds(s->ctx, fds + n, LOOP_MAX_FDS - n) : 0;
		n += count[i];
	}
	stretch_end(loop);
	ready = poll(fds, (nfds_t)n, wait_time(loop, max_wait));
	loop->woke_us = clock_us();
	if (ready < 0 && errno != EINTR)
		ready = 0;
	for (i = 0; i < loop->nsources; i++) {
		struct loop_source *s = &loop->sources[i];

		/* Sources are dispatched after every wait, even with nothing
		 * ready: a timer may be due and a resize may have interrupted. */
		if (s->dispatch)
			s->dispatch(s->ctx, fds + first[i], count[i]);
	}
	if (ready <= 0)
		run_idle(loop);
}

void loop_drain(struct loop *loop)
{
	while (run_idle(loop))
		;
}

int loop_min_timeout(int a, int b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}
