#ifndef REVLINE_SCHED_STATE_H
#define REVLINE_SCHED_STATE_H

/*
 * Inside the scheduler (sched.h): its state, shared by sched.c (the
 * interface, the poll group, the tasks), sched_transfer.c (transfers
 * started, finished, retried) and sched_socket.c (sockets and the timer).
 */

#include "sched.h"
#include "buf.h"
#include "poll_group.h"
#include "queue.h"

#include "curl_lib.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Delays are kept below a year so that they convert to integers safely. */
#define DELAY_MAX_S (365.0 * 24 * 3600)

enum task_state { TASK_QUEUED, TASK_RUNNING, TASK_WAITING };
enum write_failure { WRITE_OK, WRITE_TOO_BIG, WRITE_NOMEM };

struct task {
	uint64_t id;
	void *user;
	enum task_state state;
	char *url;
	struct curl_slist *headers;
	char *body;
	size_t body_len;
	size_t weight;
	long timeout_ms;        /* the whole request's; a streamed one's idle time */
	long ceiling_ms;        /* a streamed request's whole time */
	bool stream;            /* timed by its idle time, under the ceiling */
	bool get;               /* a GET: the body is not sent */
	bool deadline_bound;    /* this attempt's timeout is the time left before the deadline */
	CURL *easy;
	struct buf answer;
	enum write_failure write_failure;
	int attempts;
	long last_http;         /* of the last finished attempt */
	int64_t first_start;
	int64_t attempt_start;
	int64_t last_byte;      /* a streamed attempt's last byte received, or its start */
	int64_t ready_at;       /* 0 when queued; when a waiting task may go */
	char curl_error[CURL_ERROR_SIZE];
};

struct watched {
	curl_socket_t fd;
	int what;               /* CURL_POLL_IN, CURL_POLL_OUT or CURL_POLL_INOUT */
};

struct sched {
	struct sched_options options;
	CURLM *multi;
	uint64_t prng;
	uint64_t last_id;
	int64_t deadline_at;    /* on the monotonic clock, or 0: none */
	bool deadline_hit;      /* the deadline settled a task */

	struct task **tasks;    /* unsettled, in the order they were added */
	size_t ntasks, tasks_cap;
	size_t running;

	struct watched *sockets;
	size_t nsockets, sockets_cap;
	int64_t timer_at;       /* curl's timer on the monotonic clock, or -1 */
	bool fds_short;         /* sched_fds could not list every socket */
	struct pollfd *unlisted_fds;
	size_t unlisted_cap;

	struct poll_member member;      /* in the front end's poll group */
	struct poll_group *own_group;   /* the group made when none was given */

	/* A FIFO with room reserved in sched_add, so pushing never fails. */
	struct queue events;     /* of struct sched_event */
};

/* sched.c */

/* Out of the table, keeping the order of the rest, and freed. */
void sched_task_remove(struct sched *sched, struct task *task);

/* sched_transfer.c */

/* The one settled event of a task, which then leaves the table. */
void sched_settle(struct sched *sched, struct task *task, enum sched_status status,
		   long http, bool with_body, const char *error);
/* Out of the multi handle, if it is in it; the task stays in the table. */
void sched_task_stop(struct sched *sched, struct task *task);
/* A transfer more (1) or less (-1), counted against the concurrency and the share. */
void sched_running_add(struct sched *sched, int delta);
/* Whether a transfer may start: a slot free here and in the share. */
bool sched_slot_free(const struct sched *sched);
/* How soon a scheduler held back by its share only looks again for a slot. */
#define SCHED_SHARE_POLL_MS 20
/* Tasks into the free slots, the largest first. */
void sched_start_ready(struct sched *sched);
/* The transfers libcurl finished: each settles or waits to retry. */
void sched_collect_finished(struct sched *sched);
/* Streamed answers idle for too long are cut. */
void sched_cut_idle(struct sched *sched);
/* When a running streamed attempt's idle time runs out, or -1. */
int64_t sched_idle_at(const struct task *task);
/* Everything left once the deadline passed settles as out of time. */
void sched_expire_at_deadline(struct sched *sched);

/* sched_socket.c: libcurl's CURLMOPT_SOCKETFUNCTION and CURLMOPT_TIMERFUNCTION */

int sched_on_socket(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp);
int sched_on_timer(CURLM *multi, long timeout_ms, void *userp);

#endif
