/*
 * The scheduler, over libcurl's multi interface in its socket form (the
 * model of curl's hiperfifo and ephiperfifo examples): libcurl tells us
 * through CURLMOPT_SOCKETFUNCTION which sockets it wants watched and
 * through CURLMOPT_TIMERFUNCTION when it next needs a call, and we tell it
 * what happened with curl_multi_socket_action. Nothing here waits: the
 * caller's loop polls what sched_fds lists for as long as sched_timeout
 * allows, then calls sched_step. Only sched_wait blocks, for callers
 * without a loop of their own.
 *
 * A task is QUEUED until it gets a slot, RUNNING while its transfer is in
 * the multi handle, and WAITING between attempts; a waiting task holds no
 * slot. Settled tasks leave the table at once: their event carries all
 * that is left of them.
 *
 * The deadline is the one clock over all of that: each attempt's libcurl
 * timeout is cut to the time left, no retry waits past it, and the step
 * that finds it passed settles whatever is left.
 */
#include "sched_state.h"
#include "array.h"
#include "clock.h"
#include "config.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* The seed of the retries' jitter (prng_unit in sched_transfer.c). */
static uint64_t prng_seed(const void *salt)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^
		(uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)salt;
}

void sched_options_init(struct sched_options *options)
{
	memset(options, 0, sizeof(*options));
	options->concurrency = 5;
	options->timeout = 120;
	options->retries = 2;
	options->backoff = 1;
	options->backoff_max = 30;
	options->retry_after_max = SCHED_RETRY_AFTER_MAX_S;
	options->deadline = 0;
	options->deadline_spent = 0;
	options->ceiling = SCHED_REQUEST_TIMEOUT_MAX_S;
}

int sched_options_load(struct sched_options *options, struct config *config)
{
	long n;
	double s;
	int error;

	sched_options_init(options);
	if (!config)
		return 0;
	if ((error = config_get_integer(&n, config, "revline.concurrency", 1, 64)) == 0)
		options->concurrency = (int)n;
	else if (error != RL_ENOTFOUND)
		return error;
	if ((error = config_get_number(&s, config, "revline.timeout", 0.001, 86400)) == 0)
		options->timeout = s;
	else if (error != RL_ENOTFOUND)
		return error;
	if ((error = config_get_integer(&n, config, "revline.retries", 0, 10)) == 0)
		options->retries = (int)n;
	else if (error != RL_ENOTFOUND)
		return error;
	if ((error = config_get_number(&s, config, "revline.deadline", 0, 86400)) == 0)
		options->deadline = s;
	else if (error != RL_ENOTFOUND)
		return error;
	if ((error = config_get_number(&s, config, "revline.ceiling", 1, SCHED_REQUEST_TIMEOUT_MAX_S)) == 0)
		options->ceiling = s;
	else if (error != RL_ENOTFOUND)
		return error;
	return 0;
}

/* --- tasks --------------------------------------------------------------- */

static void task_free(struct sched *sched, struct task *task)
{
	if (!task)
		return;
	if (task->easy) {
		if (task->state == TASK_RUNNING) {
			libcurl.multi_remove_handle(sched->multi, task->easy);
			sched_running_add(sched, -1);
		}
		libcurl.easy_cleanup(task->easy);
	}
	libcurl.slist_free_all(task->headers);
	buf_release(&task->answer);
	free(task->url);
	free(task->body);
	free(task);
}

static struct task *task_find(struct sched *sched, uint64_t id)
{
	size_t i;

	for (i = 0; i < sched->ntasks; i++)
		if (sched->tasks[i]->id == id)
			return sched->tasks[i];
	return NULL;
}

/* Out of the table, keeping the order of the rest. */
void sched_task_remove(struct sched *sched, struct task *task)
{
	size_t i;

	for (i = 0; i < sched->ntasks; i++)
		if (sched->tasks[i] == task)
			break;
	if (i == sched->ntasks)
		return;
	memmove(sched->tasks + i, sched->tasks + i + 1,
		(sched->ntasks - i - 1) * sizeof(*sched->tasks));
	sched->ntasks--;
	task_free(sched, task);
}

/* A huge prompt must not buy hours: the growth stops at the ceiling. */
long sched_task_timeout_ms(const struct sched_options *options, size_t weight)
{
	double ms = options->timeout * 1000.0 * (1.0 + (double)weight / 65536.0);

	if (!(ms <= SCHED_REQUEST_TIMEOUT_MAX_S * 1000.0))
		ms = SCHED_REQUEST_TIMEOUT_MAX_S * 1000.0;
	return ms < 1.0 ? 1 : (long)ms;
}

static bool has_header(const struct curl_slist *list, const char *name)
{
	size_t len = strlen(name);

	for (; list; list = list->next)
		if (!strncasecmp(list->data, name, len) && list->data[len] == ':')
			return true;
	return false;
}

static int task_copy_headers(struct task *task, const struct sched_request *request)
{
	struct curl_slist *list;
	size_t i;

	for (i = 0; i < request->nheaders; i++) {
		/* Never quote the header itself: it may be an API key. */
		if (strpbrk(request->headers[i], "\r\n"))
			return error_set(RL_EUSAGE, "request header %zu contains a line break", i + 1);
		list = libcurl.slist_append(task->headers, request->headers[i]);
		if (!list)
			return error_nomem();
		task->headers = list;
	}
	/*
	 * Without this, curl asks large POSTs to wait for "100 Continue",
	 * which costs a second with servers that never send it.
	 */
	if (!has_header(task->headers, "Expect")) {
		list = libcurl.slist_append(task->headers, "Expect:");
		if (!list)
			return error_nomem();
		task->headers = list;
	}
	return 0;
}

static int task_new(struct task **out, const struct sched_options *options,
		    const struct sched_request *request, void *user)
{
	struct task *task;
	int error = 0;

	*out = NULL;
	task = calloc(1, sizeof(*task));
	if (!task)
		return error_nomem();
	task->user = user;
	task->weight = request->weight;
	task->timeout_ms = sched_task_timeout_ms(options, request->weight);
	task->stream = request->stream;
	task->get = request->get;
	task->ceiling_ms = (long)(options->ceiling * 1000.0 + 0.5);
	if (task->stream && task->timeout_ms > task->ceiling_ms)
		task->timeout_ms = task->ceiling_ms;
	task->url = strdup(request->url);
	task->body = malloc(request->body_len + 1);
	if (!task->url || !task->body) {
		error = error_nomem();
		goto done;
	}
	if (request->body_len)
		memcpy(task->body, request->body, request->body_len);
	task->body[request->body_len] = '\0';
	task->body_len = request->body_len;
	error = task_copy_headers(task, request);
done:
	if (error < 0)
		task_free(NULL, task);
	else
		*out = task;
	return error;
}

/* Each push after this cannot fail: a settled task always has its event. */
static int events_reserve(struct sched *sched, size_t extra)
{
	return queue_reserve(&sched->events, extra);
}

/* --- the interface ------------------------------------------------------- */

static int options_check(const struct sched_options *o)
{
	if (o->concurrency < 1)
		return error_set(RL_EUSAGE, "the concurrency must be at least 1, not %d",
				 o->concurrency);
	if (!(o->timeout > 0))
		return error_set(RL_EUSAGE, "the timeout must be more than 0 seconds");
	if (o->retries < 0)
		return error_set(RL_EUSAGE, "the number of retries cannot be negative");
	if (!(o->backoff >= 0) || !(o->backoff_max >= 0) || !(o->retry_after_max >= 0))
		return error_set(RL_EUSAGE, "retry delays cannot be negative");
	if (!(o->deadline >= 0) || o->deadline > DELAY_MAX_S)
		return error_set(RL_EUSAGE, "the deadline must be from 0 (none) to a year, not %g s",
				 o->deadline);
	if (!(o->deadline_spent >= 0))
		return error_set(RL_EUSAGE, "the time spent of the deadline cannot be negative");
	return 0;
}

/* --- in the poll group ----------------------------------------------------- */

static int member_fds(void *ctx, struct pollfd *out, int max)
{
	return sched_fds(ctx, out, max);
}

static int member_timeout(void *ctx)
{
	struct sched *sched = ctx;

	/* Events not yet taken: whoever takes them steps next, at once. */
	return sched->events.count ? 0 : sched_timeout(sched);
}

static int member_step(void *ctx, const struct pollfd *fds, int n)
{
	return sched_step(ctx, fds, n);
}

static int group_join(struct sched *sched, struct poll_group *group)
{
	int error;

	if (!group && (error = poll_group_new(&sched->own_group)) < 0)
		return error;
	sched->member.fds = member_fds;
	sched->member.timeout = member_timeout;
	sched->member.step = member_step;
	sched->member.ctx = sched;
	return poll_group_join(group ? group : sched->own_group, &sched->member);
}

int sched_new(struct sched **out, const struct sched_options *options, struct poll_group *group)
{
	struct sched *sched;
	struct sched_options defaults;
	int error = 0;

	*out = NULL;
	if (!options) {
		sched_options_init(&defaults);
		options = &defaults;
	}
	if (options_check(options) < 0)
		return error_status();
	if ((error = curl_lib_load()) < 0)
		return error;
	/* Reference-counted, and thread-safe in the libcurl we require. */
	if (libcurl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return error_set(RL_ERROR, "libcurl could not be initialised");
	sched = calloc(1, sizeof(*sched));
	if (!sched) {
		libcurl.global_cleanup();
		return error_nomem();
	}
	sched->events.size = sizeof(struct sched_event);
	sched->options = *options;
	sched->timer_at = -1;
	if (options->deadline > 0)
		sched->deadline_at = clock_ms() + (int64_t)((options->deadline - options->deadline_spent) * 1000.0 + 0.5);
	sched->prng = prng_seed(sched);
	sched->multi = libcurl.multi_init();
	if (!sched->multi ||
	    libcurl.multi_setopt(sched->multi, CURLMOPT_SOCKETFUNCTION, sched_on_socket) ||
	    libcurl.multi_setopt(sched->multi, CURLMOPT_SOCKETDATA, (void *)sched) ||
	    libcurl.multi_setopt(sched->multi, CURLMOPT_TIMERFUNCTION, sched_on_timer) ||
	    libcurl.multi_setopt(sched->multi, CURLMOPT_TIMERDATA, (void *)sched)) {
		error = error_set(RL_ERROR, "libcurl could not make a multi handle");
		goto done;
	}
	error = group_join(sched, group);
done:
	if (error < 0)
		sched_free(sched);
	else
		*out = sched;
	return error;
}

void sched_free(struct sched *sched)
{
	size_t i;

	if (!sched)
		return;
	/* Handles leave the multi handle before it goes (task_free does it). */
	for (i = 0; i < sched->ntasks; i++)
		task_free(sched, sched->tasks[i]);
	sched->ntasks = 0;
	if (sched->multi)
		libcurl.multi_cleanup(sched->multi);
	for (i = 0; i < sched->events.count; i++)
		free(((struct sched_event *)queue_at(&sched->events, i))->body);
	queue_release(&sched->events);
	poll_group_leave(&sched->member);
	poll_group_free(sched->own_group);
	free(sched->tasks);
	free(sched->sockets);
	free(sched->unlisted_fds);
	free(sched);
	libcurl.global_cleanup();
}

int sched_add(struct sched *sched, uint64_t *id, const struct sched_request *request,
	      void *user)
{
	struct task *task = NULL;
	int error;

	*id = 0;
	if (!request || !request->url || !request->url[0])
		return error_set(RL_EUSAGE, "a request needs a URL");
	if (!request->body && request->body_len)
		return error_set(RL_EUSAGE, "a request body of %zu bytes is missing",
				 request->body_len);
	if (request->get && request->body_len)
		return error_set(RL_EUSAGE, "a GET request has no body");
	if (request->nheaders && !request->headers)
		return error_set(RL_EUSAGE, "the request's headers are missing");
	/* Room now for every event still to come, so that none is ever lost. */
	error = ARRAY_GROW(sched->tasks, sched->tasks_cap, sched->ntasks + 1);
	if (error < 0 || (error = events_reserve(sched, 2 * (sched->ntasks + 1))) < 0)
		return error;
	error = task_new(&task, &sched->options, request, user);
	if (error < 0)
		return error;
	task->id = ++sched->last_id;
	sched->tasks[sched->ntasks++] = task;
	*id = task->id;
	return 0;
}

static void cancel_task(struct sched *sched, struct task *task)
{
	sched_task_stop(sched, task);
	sched_settle(sched, task, SCHED_CANCELLED, task->last_http, false, "cancelled");
}

void sched_cancel(struct sched *sched, uint64_t id)
{
	struct task *task = task_find(sched, id);

	if (task)
		cancel_task(sched, task);
}

void sched_cancel_all(struct sched *sched)
{
	while (sched->ntasks)
		cancel_task(sched, sched->tasks[0]);
}

int sched_peek(const char **body, size_t *len, struct sched *sched, uint64_t id)
{
	struct task *task = task_find(sched, id);

	*body = NULL;
	*len = 0;
	if (!task || task->state != TASK_RUNNING)
		return RL_ENOTFOUND;
	*body = task->answer.ptr;
	*len = task->answer.len;
	return 0;
}

int sched_attempt(int *attempt, long *elapsed_ms, struct sched *sched, uint64_t id)
{
	struct task *task = task_find(sched, id);

	*attempt = 0;
	*elapsed_ms = -1;
	if (!task)
		return RL_ENOTFOUND;
	if (task->state == TASK_RUNNING) {
		*attempt = task->attempts;
		*elapsed_ms = (long)(clock_ms() - task->attempt_start);
	} else {
		*attempt = task->attempts + 1;
	}
	return 0;
}

bool sched_next(struct sched *sched, struct sched_event *out)
{
	return queue_pop(&sched->events, out);
}

void sched_event_release(struct sched_event *event)
{
	if (!event)
		return;
	free(event->body);
	event->body = NULL;
	event->body_len = 0;
}

size_t sched_pending(const struct sched *sched)
{
	return sched->ntasks;
}

size_t sched_running(const struct sched *sched)
{
	return sched->running;
}

long sched_deadline_left_ms(const struct sched *sched)
{
	int64_t left;

	if (!sched->deadline_at)
		return -1;
	left = sched->deadline_at - clock_ms();
	return left > 0 ? (long)left : 0;
}

bool sched_deadline_passed(const struct sched *sched)
{
	return sched->deadline_hit;
}

struct poll_group *sched_group(struct sched *sched)
{
	return sched->member.group;
}

int sched_wait(struct sched *sched, int max_ms)
{
	if (!sched->ntasks && !sched->events.count)
		return 0;
	/* What is waiting to be read comes first. */
	return poll_group_wait(sched->member.group, sched->events.count ? 0 : max_ms);
}
