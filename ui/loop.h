#ifndef REVLINE_LOOP_H
#define REVLINE_LOOP_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "poll_group.h"

/*
 * The UI's one event loop, in the manner of curl's multi interface. It
 * owns the poll group (poll_group.h) that the engine's busy modules join
 * (the scheduler's transfers, the linters' pipes, and the check, fixes and
 * fix detection above them), and the UI's own sources (the terminal, the
 * watcher, the panes that show the engine's events). Each says which
 * descriptors it waits on and how long it may wait; the loop polls them
 * all together, steps the group, then dispatches the sources, which so
 * show what the engine just did. Work that has no descriptor runs in short
 * idle slices, so nothing ever blocks the screen.
 */
struct loop_source {
	/* Fill up to max descriptors to wait on; returns how many. */
	int (*fds)(void *ctx, struct pollfd *out, int max);
	/* Milliseconds until the source needs a call without any event, or -1. */
	int (*timeout)(void *ctx);
	/* After the wait: the descriptors it asked for, with revents filled in. */
	void (*dispatch)(void *ctx, const struct pollfd *fds, int n);
	/* One short slice of background work; true while work remains. */
	bool (*idle)(void *ctx);
	void *ctx;
	bool idle_pending;
};

#define LOOP_MAX_SOURCES 8
#define LOOP_SOURCE_FDS 8       /* descriptors a source may wait on */

/* How long the loop went between two waits: the time input waits unread. */
struct loop_stats {
	int64_t busy_max_us;            /* the longest stretch */
	int64_t busy_sum_us;
	long stretches;
};

struct loop {
	struct loop_source sources[LOOP_MAX_SOURCES];
	int nsources;
	int64_t woke_us;                /* when the last wait ended (clock_us) */
	struct loop_stats stats;
	struct poll_group group;        /* the engine's busy modules */
	struct pollfd *fds;
	size_t fds_alloc;
};

void loop_release(struct loop *loop);



/* Returns a pointer that stays valid while the loop lives, or NULL when full. */
struct loop_source *loop_add(struct loop *loop, const struct loop_source *source);
/* Mark that a source has idle work (its idle() is called until it returns false). */
void loop_wake(struct loop_source *source);
/* Whether any source has idle work. */
bool loop_busy(const struct loop *loop);
/*
 * Wait (at most max_wait ms, -1 without limit, and never when idle work is
 * pending) and dispatch; then run one idle slice when nothing was ready.
 */
void loop_step(struct loop *loop, int max_wait);
/* Run idle work until none remains (headless tests). */
void loop_drain(struct loop *loop);

#endif
