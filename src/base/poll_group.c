#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "poll_group.h"
#include "status.h"

int poll_sooner(int a, int b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}

int poll_group_new(struct poll_group **out)
{
	if (!(*out = calloc(1, sizeof(**out))))
		return error_nomem();
	return 0;
}

void poll_group_release(struct poll_group *group)
{
	size_t i;

	if (!group)
		return;
	for (i = 0; i < group->count; i++)
		if (group->members[i])
			group->members[i]->group = NULL;
	free(group->members);
	free(group->fds);
	memset(group, 0, sizeof(*group));
}

/*
 * A group freed by one of its members' steps (a module that made its own
 * group and is freed when its work ends) goes when the step is over: its
 * members leave at once, so that the step skips them.
 */
void poll_group_free(struct poll_group *group)
{
	size_t i;

	if (!group)
		return;
	if (group->stepping) {
		for (i = 0; i < group->count; i++)
			if (group->members[i]) {
				group->members[i]->group = NULL;
				group->members[i] = NULL;
			}
		group->doomed = true;
		return;
	}
	poll_group_release(group);
	free(group);
}

int poll_group_join(struct poll_group *group, struct poll_member *member)
{
	int error;

	if (member->group == group)
		return 0;
	poll_group_leave(member);
	if ((error = ARRAY_GROW(group->members, group->alloc, group->count + 1)) < 0)
		return error;
	group->members[group->count++] = member;
	member->group = group;
	member->first = member->nfds = 0;
	return 0;
}

/* Close the gaps members left during a step. */
static void compact(struct poll_group *group)
{
	size_t i, n = 0;

	for (i = 0; i < group->count; i++)
		if (group->members[i])
			group->members[n++] = group->members[i];
	group->count = n;
}

void poll_group_leave(struct poll_member *member)
{
	struct poll_group *group = member->group;
	size_t i;

	if (!group)
		return;
	member->group = NULL;
	for (i = 0; i < group->count; i++)
		if (group->members[i] == member)
			group->members[i] = NULL;
	if (!group->stepping)
		compact(group);
}

int poll_group_fds(struct poll_group *group, struct pollfd *out, int max)
{
	size_t i;
	int n = 0;

	for (i = 0; i < group->count; i++) {
		struct poll_member *m = group->members[i];

		m->first = n;
		m->nfds = m->fds && n < max ? m->fds(m->ctx, out + n, max - n) : 0;
		if (m->nfds < 0)
			m->nfds = 0;
		n += m->nfds;
	}
	return n;
}

int poll_group_timeout(struct poll_group *group)
{
	size_t i;
	int t = -1;

	for (i = 0; i < group->count; i++) {
		struct poll_member *m = group->members[i];

		if (m->timeout)
			t = poll_sooner(t, m->timeout(m->ctx));
	}
	return t;
}

int poll_group_step(struct poll_group *group, const struct pollfd *fds, int n)
{
	size_t i, count = group->count;
	int error = 0, e;

	group->stepping++;
	/* Members that join during the step wait for the next one. */
	for (i = 0; i < count; i++) {
		struct poll_member *m = group->members[i];
		int first, nfds;

		if (!m)
			continue;
		first = m->first < n ? m->first : n;
		nfds = m->first + m->nfds <= n ? m->nfds : n - first;
		m->nfds = 0;
		if ((e = m->step(m->ctx, fds ? fds + first : NULL, fds ? nfds : 0)) < 0 && !error)
			error = e;
	}
	if (!--group->stepping) {
		if (group->doomed) {
			group->doomed = false;
			poll_group_free(group);
			return error;
		}
		compact(group);
	}
	return error;
}

int poll_group_wait(struct poll_group *group, int max_ms)
{
	size_t room = 16;
	int n, timeout, ready, i, error;

	for (;;) {
		if ((error = ARRAY_GROW(group->fds, group->fds_alloc, room)) < 0)
			return error;
		n = poll_group_fds(group, group->fds, (int)group->fds_alloc);
		if ((size_t)n < group->fds_alloc)
			break;
		room = group->fds_alloc * 2;    /* full: a member may have had more */
	}
	timeout = poll_sooner(poll_group_timeout(group), max_ms);
	ready = poll(group->fds, (nfds_t)n, timeout);
	if (ready < 0 && errno != EINTR)
		return error_set(RL_EIO, "waiting for the network or a linter failed: %s", strerror(errno));
	if (ready <= 0)
		for (i = 0; i < n; i++)
			group->fds[i].revents = 0;
	return poll_group_step(group, group->fds, n);
}

int poll_member_wait(struct poll_member *member, int max_ms)
{
	struct pollfd fds[POLL_MEMBER_FDS];
	int n = member->fds ? member->fds(member->ctx, fds, POLL_MEMBER_FDS) : 0, i;
	int timeout = poll_sooner(member->timeout ? member->timeout(member->ctx) : -1, max_ms);

	if (n < 0)
		n = 0;
	if (poll(fds, (nfds_t)n, timeout) <= 0)
		for (i = 0; i < n; i++)
			fds[i].revents = 0;
	return member->step(member->ctx, fds, n);
}
