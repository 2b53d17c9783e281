#ifndef REVLINE_POLL_GROUP_H
#define REVLINE_POLL_GROUP_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The one way the engine waits, after curl's multi interface: a front end
 * owns a poll group (the TUI's loop, the CLI's command) and every busy
 * module joins it while it lives: the scheduler with its transfers'
 * sockets, a linter run with its pipes, and the modules above them (the
 * request cycle, a check, a fix, fix detection, the dependency review)
 * with no descriptor, only to take their events. One wait polls every
 * member's descriptors together; then each member steps, in the order they
 * joined. A member may join or leave (be freed) during a step.
 *
 * A module given no group makes one of its own, so that its *_wait works
 * alone (a test, a command that runs one thing).
 */
struct poll_group;

struct poll_member {
	/* Fill up to max descriptors to wait on; returns how many (NULL: none). */
	int (*fds)(void *ctx, struct pollfd *out, int max);
	/* Milliseconds until it needs a step without any event, or -1 (NULL: -1). */
	int (*timeout)(void *ctx);
	/* After the wait: its own descriptors with revents filled in (n may be 0). */
	int (*step)(void *ctx, const struct pollfd *fds, int n);
	void *ctx;
	/* The group's: where it is and how many of the last descriptors were its. */
	struct poll_group *group;
	int first, nfds;
};

struct poll_group {
	struct poll_member **members;
	size_t count, alloc;
	struct pollfd *fds;             /* poll_group_wait's */
	size_t fds_alloc;
	int stepping;                   /* inside poll_group_step: leaving members only clear their slot */
	bool doomed;                    /* freed by a step: it goes when the step ends */
};

#define POLL_GROUP_INIT { NULL, 0, 0, NULL, 0, 0, false }

/*
 * A group of its own for a module given none, freed by poll_group_free
 * (when a member's step frees it, it goes as the step ends).
 */
int poll_group_new(struct poll_group **out);
void poll_group_free(struct poll_group *group);
void poll_group_release(struct poll_group *group);

/* The member (which must outlive its membership) joins; joining twice does nothing. */
int poll_group_join(struct poll_group *group, struct poll_member *member);
/* The member leaves its group (nothing when it is in none). */
void poll_group_leave(struct poll_member *member);

/* Every member's descriptors, up to max; remembers whose are whose. */
int poll_group_fds(struct poll_group *group, struct pollfd *out, int max);
/* The soonest of the members' timeouts (-1: none). */
int poll_group_timeout(struct poll_group *group);
/* Step every member with its part of fds (as poll_group_fds filled them); the first error. */
int poll_group_step(struct poll_group *group, const struct pollfd *fds, int n);
/* Wait at most max_ms (-1: the members' own timeouts only) and step. */
int poll_group_wait(struct poll_group *group, int max_ms);
/*
 * Wait on one member alone (at most POLL_MEMBER_FDS descriptors) and step
 * it: for a leaf (a linter run) that must finish before the caller goes
 * on, without stepping the rest of the group from inside one of its steps.
 */
#define POLL_MEMBER_FDS 64
int poll_member_wait(struct poll_member *member, int max_ms);

/* The sooner of two timeouts in milliseconds, -1 meaning none. */
int poll_sooner(int a, int b);

#endif
