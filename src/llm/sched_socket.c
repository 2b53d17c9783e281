/* The scheduler's sockets and curl's timer: what the poll group waits on, for how long, and what its step does. */
#include "sched_state.h"
#include "array.h"
#include "clock.h"
#include "status.h"

#include <limits.h>
#include <stdlib.h>

/* How often sockets that did not fit in the caller's pollfds are checked. */
#define UNLISTED_POLL_MS 10

/* --- sockets and the timer ----------------------------------------------- */

static struct watched *socket_find(struct sched *sched, curl_socket_t fd)
{
	size_t i;

	for (i = 0; i < sched->nsockets; i++)
		if (sched->sockets[i].fd == fd)
			return &sched->sockets[i];
	return NULL;
}

int sched_on_socket(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp)
{
	struct sched *sched = userp;
	struct watched *w = socket_find(sched, fd);

	(void)easy;
	(void)socketp;
	if (what == CURL_POLL_REMOVE) {
		if (w)
			*w = sched->sockets[--sched->nsockets];
		return 0;
	}
	if (!w) {
		if (ARRAY_GROW(sched->sockets, sched->sockets_cap, sched->nsockets + 1) < 0)
			return -1;      /* libcurl fails the transfers */
		w = &sched->sockets[sched->nsockets++];
		w->fd = fd;
	}
	w->what = what;
	return 0;
}

int sched_on_timer(CURLM *multi, long timeout_ms, void *userp)
{
	struct sched *sched = userp;

	(void)multi;
	sched->timer_at = timeout_ms < 0 ? -1 : clock_ms() + timeout_ms;
	return 0;
}

static short poll_events(int what)
{
	short events = 0;

	if (what == CURL_POLL_IN || what == CURL_POLL_INOUT)
		events |= POLLIN;
	if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT)
		events |= POLLOUT;
	return events;
}

static int curl_mask(short revents)
{
	int mask = 0;

	if (revents & (POLLIN | POLLPRI | POLLHUP))
		mask |= CURL_CSELECT_IN;
	if (revents & POLLOUT)
		mask |= CURL_CSELECT_OUT;
	if (revents & (POLLERR | POLLNVAL))
		mask |= CURL_CSELECT_ERR;
	return mask;
}

static int multi_act(struct sched *sched, curl_socket_t fd, int mask)
{
	int still_running;
	CURLMcode rc = libcurl.multi_socket_action(sched->multi, fd, mask, &still_running);

	if (rc != CURLM_OK && rc != CURLM_BAD_SOCKET)
		return error_set(RL_ERROR, "libcurl: %s", libcurl.multi_strerror(rc));
	return 0;
}

static int socket_act(struct sched *sched, const struct pollfd *pfd)
{
	/* An earlier action in this step may have closed it. */
	if (!pfd->revents || !socket_find(sched, pfd->fd))
		return 0;
	return multi_act(sched, pfd->fd, curl_mask(pfd->revents));
}

static bool listed(const struct pollfd *fds, int n, curl_socket_t fd)
{
	int i;

	for (i = 0; i < n; i++)
		if (fds[i].fd == fd)
			return true;
	return false;
}

/*
 * When the caller's array was too small, the sockets left out are looked
 * at here without waiting, and sched_timeout brings us back soon.
 */
static int act_on_unlisted(struct sched *sched, const struct pollfd *fds, int n)
{
	struct pollfd *p;
	size_t i, m = 0;
	int error = 0;

	if (ARRAY_GROW(sched->unlisted_fds, sched->unlisted_cap, sched->nsockets) < 0)
		return RL_ENOMEM;
	p = sched->unlisted_fds;
	for (i = 0; i < sched->nsockets; i++) {
		if (listed(fds, n, sched->sockets[i].fd))
			continue;
		p[m].fd = sched->sockets[i].fd;
		p[m].events = poll_events(sched->sockets[i].what);
		p[m].revents = 0;
		m++;
	}
	if (!m || poll(p, (nfds_t)m, 0) <= 0)
		return 0;
	for (i = 0; i < m && !error; i++)
		error = socket_act(sched, &p[i]);
	return error;
}

int sched_fds(struct sched *sched, struct pollfd *out, int max)
{
	size_t i, n = 0;

	for (i = 0; i < sched->nsockets && (int)n < max; i++, n++) {
		out[n].fd = sched->sockets[i].fd;
		out[n].events = poll_events(sched->sockets[i].what);
		out[n].revents = 0;
	}
	sched->fds_short = n < sched->nsockets;
	return (int)n;
}

/*
 * When the next task may start, or -1: none can start before a slot frees
 * here. A slot the share holds back is looked for again soon: another
 * scheduler frees it.
 */
static int64_t next_start_at(const struct sched *sched)
{
	int64_t at = -1;
	size_t i;

	if (sched->running >= (size_t)sched->options.concurrency)
		return -1;
	for (i = 0; i < sched->ntasks; i++) {
		const struct task *task = sched->tasks[i];

		if (task->state != TASK_RUNNING && (at < 0 || task->ready_at < at))
			at = task->ready_at;
	}
	if (at >= 0 && !sched_slot_free(sched) && at < clock_ms() + SCHED_SHARE_POLL_MS)
		at = clock_ms() + SCHED_SHARE_POLL_MS;
	return at;
}

static int64_t earliest(int64_t a, int64_t b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}

int sched_timeout(struct sched *sched)
{
	int64_t now = clock_ms();
	size_t i;
	int64_t at = earliest(next_start_at(sched), sched->timer_at);

	if (sched->fds_short && sched->nsockets)
		at = earliest(at, now + UNLISTED_POLL_MS);
	if (sched->deadline_at && sched->ntasks)
		at = earliest(at, sched->deadline_at);
	for (i = 0; i < sched->ntasks; i++)
		at = earliest(at, sched_idle_at(sched->tasks[i]));
	if (at < 0)
		return -1;
	if (at <= now)
		return 0;
	return at - now > INT_MAX ? INT_MAX : (int)(at - now);
}

int sched_step(struct sched *sched, const struct pollfd *fds, int n)
{
	int error = 0, i;

	for (i = 0; i < n && !error; i++)
		error = socket_act(sched, &fds[i]);
	if (!error && sched->fds_short)
		error = act_on_unlisted(sched, fds, n);
	if (!error && sched->timer_at >= 0 && sched->timer_at <= clock_ms())
		error = multi_act(sched, CURL_SOCKET_TIMEOUT, 0);
	/* Finished transfers free their slots for the next tasks at once. */
	sched_collect_finished(sched);
	sched_cut_idle(sched);
	sched_expire_at_deadline(sched);
	sched_start_ready(sched);
	return error;
}
