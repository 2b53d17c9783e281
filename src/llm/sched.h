#ifndef REVLINE_SCHED_H
#define REVLINE_SCHED_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "poll_group.h"

/*
 * The scheduler: HTTP requests (one per task) run over libcurl's multi
 * interface under a concurrency limit, the largest task first, each with a
 * timeout that grows with its size, retried with exponential backoff and
 * jitter (honouring Retry-After on 429 and 503; never on other 4xx).
 *
 * Every wait is bounded. A request never gets more than
 * SCHED_REQUEST_TIMEOUT_MAX_S, whatever its size (libcurl's CURLOPT_TIMEOUT_MS
 * bounds the whole transfer, so a server that answers a byte a second is
 * cut there too); Retry-After is honoured up to retry_after_max; and with a
 * deadline, everything still queued, running or waiting when it passes
 * settles at once as SCHED_TIMEOUT ("the check's deadline of N s passed"),
 * and a retry whose wait would end past it is not waited for: the task
 * settles at once, saying so.
 *
 * It never blocks. The caller's event loop asks for the descriptors to
 * wait on (sched_fds) and how long it may wait (sched_timeout), polls, and
 * hands the results to sched_step, which moves transfers on, starts queued
 * tasks and collects the finished ones. Each settled task gives one event
 * (sched_next); a task that starts its first transfer also gives a
 * SCHED_STARTED event, so a front end can show it running.
 */

struct sched;

/* The longest one request may take, whatever its size: 15 minutes. */
#define SCHED_REQUEST_TIMEOUT_MAX_S 900.0
/* Retry-After is honoured up to this by default (a longer one waits this long). */
#define SCHED_RETRY_AFTER_MAX_S 60.0

/*
 * A bound on the transfers of several schedulers together (revline bench
 * --jobs: its cases' checks), beside each one's concurrency. Its owner
 * makes it with running 0 and keeps it until every scheduler given it is
 * freed.
 */
struct sched_share {
	int limit;              /* >= 1 */
	int running;
};

struct sched_options {
	int concurrency;        /* transfers at once, >= 1 (default 5) */
	struct sched_share *share;      /* a bound shared with other schedulers, or NULL */
	double timeout;         /* seconds for a small task (default 120); a task of
				 * W bytes gets timeout * (1 + W / 65536), at most
				 * SCHED_REQUEST_TIMEOUT_MAX_S */
	int retries;            /* further attempts after the first (default 2) */
	double backoff;         /* seconds before the first retry (default 1), doubled
				 * each time, with up to 25% jitter either way */
	double backoff_max;     /* at most this long between attempts (default 30) */
	double retry_after_max; /* Retry-After is honoured up to this (default 60) */
	double deadline;        /* seconds from sched_new within which every task
				 * settles, however many attempts it made (0: none,
				 * the default) */
	double deadline_spent;  /* seconds of it already gone at sched_new (a check's
				 * preparation), so that it bounds the whole check */
	double ceiling;         /* seconds a streamed request may take in all
				 * (default and most SCHED_REQUEST_TIMEOUT_MAX_S) */
};

/*
 * The timeout of one request of weight bytes under these options, in
 * milliseconds (at most SCHED_REQUEST_TIMEOUT_MAX_S; the deadline may cut
 * a given attempt shorter).
 */
long sched_task_timeout_ms(const struct sched_options *options, size_t weight);

/* The defaults above. */
void sched_options_init(struct sched_options *options);

/*
 * The defaults, then the settings revline.concurrency (1-64),
 * revline.timeout (seconds; a streamed request's idle time), revline.retries
 * (0-10), revline.ceiling (seconds, 1-900) and revline.deadline
 * (seconds, 0 for none); RL_ECONFIG names a bad one. config may be NULL.
 */
struct config;
int sched_options_load(struct sched_options *options, struct config *config);

struct sched_request {
	const char *url;
	const char *const *headers;     /* "Name: value"; copied */
	size_t nheaders;
	const char *body;               /* POSTed as is; copied */
	size_t body_len;
	size_t weight;                  /* the prompt's size in bytes: order and timeout */
	bool get;                       /* a GET (body and body_len must be NULL and 0), else a POST */
	bool stream;                    /* the answer streams: its timeout is an idle
					 * time (no byte for that long), the whole
					 * request bounded by the ceiling */
};

enum sched_status {
	SCHED_STARTED,          /* not settled: the first transfer began */
	SCHED_DONE,             /* an HTTP 2xx answer */
	SCHED_HTTP_ERROR,       /* an HTTP error that is final (4xx, or 5xx after the retries) */
	SCHED_FAILED,           /* no answer (connection refused, reset...) after the retries */
	SCHED_TIMEOUT,          /* the last attempt ran out of time, or the deadline passed */
	SCHED_CANCELLED,
};

struct sched_event {
	uint64_t task;
	void *user;
	enum sched_status status;
	long http_status;       /* of the last attempt, 0 when none */
	char *body;             /* the last answer's body (NUL-terminated), or NULL */
	size_t body_len;
	int attempts;           /* transfers made */
	long duration_ms;       /* from the first start to the settling */
	char error[256];        /* what went wrong, for the user */
};

/*
 * The scheduler joins group (poll_group.h) with its transfers' sockets, or
 * a group of its own when group is NULL; it leaves at sched_free.
 */
int sched_new(struct sched **out, const struct sched_options *options, struct poll_group *group);
/* Cancels everything still pending; no events are given. */
void sched_free(struct sched *sched);
/* The poll group it is in. */
struct poll_group *sched_group(struct sched *sched);

/* Queue a task; *id identifies it in events. */
int sched_add(struct sched *sched, uint64_t *id, const struct sched_request *request, void *user);
/* Cancel a queued or running task: it settles as SCHED_CANCELLED. */
void sched_cancel(struct sched *sched, uint64_t id);
void sched_cancel_all(struct sched *sched);

/* Descriptors to wait on (up to max); returns how many were filled. */
int sched_fds(struct sched *sched, struct pollfd *out, int max);
/* Milliseconds until sched_step must run even without events, or -1. */
int sched_timeout(struct sched *sched);
/* Move everything on; fds are what sched_fds gave, with revents set. */
int sched_step(struct sched *sched, const struct pollfd *fds, int n);
/* The next event, if any; release it with sched_event_release. */
bool sched_next(struct sched *sched, struct sched_event *out);
void sched_event_release(struct sched_event *event);

/*
 * What a running task's current attempt has received so far (a streamed
 * answer's first events): valid until the next sched_step. RL_ENOTFOUND
 * when the task is not running.
 */
int sched_peek(const char **body, size_t *len, struct sched *sched, uint64_t id);

/*
 * Which attempt a task is at (1 for the first) and how long the running
 * one has gone, in ms (-1 while it waits to retry or is queued).
 * RL_ENOTFOUND when the task is settled or unknown.
 */
int sched_attempt(int *attempt, long *elapsed_ms, struct sched *sched, uint64_t id);

/* Tasks not settled yet (queued, running or waiting to retry). */
size_t sched_pending(const struct sched *sched);
/* Transfers running now (never more than the concurrency). */
size_t sched_running(const struct sched *sched);

/* Milliseconds left before the deadline (0 once it passed), or -1 without one. */
long sched_deadline_left_ms(const struct sched *sched);
/* Whether the deadline settled a task (cut it short or refused it a wait). */
bool sched_deadline_passed(const struct sched *sched);

/*
 * For callers without their own loop (the CLI): wait up to max_ms for
 * something to happen and step once. Returns 0 or a negative status.
 */
int sched_wait(struct sched *sched, int max_ms);

#endif
