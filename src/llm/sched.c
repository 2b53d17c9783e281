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
#include "sched.h"
#include "array.h"
#include "queue.h"
#include "clock.h"
#include "secret.h"

#include "buf.h"
#include "config.h"
#include "status.h"

#include <curl/curl.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#ifndef REVLINE_VERSION
#define REVLINE_VERSION "0"
#endif

/* A runaway server must not eat the memory: no answer is larger. */
#define BODY_MAX ((size_t)64 << 20)
/* Connecting never takes longer than this, whatever the task's timeout. */
#define CONNECT_TIMEOUT_MS 15000L
/* How often sockets that did not fit in the caller's pollfds are checked. */
#define UNLISTED_POLL_MS 10
/* Delays are kept below a year so that they convert to integers safely. */
#define DELAY_MAX_S (365.0 * 24 * 3600)
/* The part of an error answer quoted to the user. */
#define EXCERPT_MAX 200

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

/* What one finished transfer came to. */
struct attempt {
	CURLcode result;
	long http;
	long os_errno;
	bool connected;
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

/* splitmix64: good enough for jitter, and its state is the scheduler's. */
static uint64_t prng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double prng_unit(uint64_t *state)
{
	return (double)(prng_next(state) >> 11) * 0x1.0p-53;
}

static uint64_t prng_seed(const void *salt)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^
		(uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)salt;
}

void sched_options_init(struct sched_options *options)
{
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

/* --- the URL and messages the user sees ---------------------------------- */

/* Messages are cut to fit the event's error text: that is expected. */
__attribute__((format(printf, 3, 4)))
static void say(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out, size, fmt, ap);
	va_end(ap);
}

/*
 * The URL as it may be shown: without user:password@ and without the
 * query, where some providers take their key.
 */
static void url_for_user(char *out, size_t size, const char *url)
{
	const char *host = strstr(url, "://"), *after, *p;
	size_t authority, path;

	host = host ? host + 3 : url;
	authority = strcspn(host, "/?#");
	after = host;
	for (p = host; p < host + authority; p++)
		if (*p == '@')
			after = p + 1;
	path = strcspn(after, "?#");
	say(out, size, "%.*s%.*s", (int)(host - url), url, (int)path, after);
}

/* Seconds as people write them: "30", "0.5", "138". */
static void seconds_for_user(char *out, size_t size, long ms)
{
	if (ms % 1000 == 0)
		say(out, size, "%ld", ms / 1000);
	else if (ms < 10000)
		say(out, size, "%.1f", ms / 1000.0);
	else
		say(out, size, "%.0f", ms / 1000.0);
}

/*
 * The start of an error answer on one line: control characters and runs
 * of blanks become one space, and a cut never splits a UTF-8 character.
 */
static void excerpt(char *out, size_t size, const char *body, size_t len)
{
	size_t i, n = 0;
	bool blank = true;

	for (i = 0; i < len && n + 1 < size && n < EXCERPT_MAX; i++) {
		unsigned char c = (unsigned char)body[i];

		if (c < 0x20 || c == 0x7f || c == ' ') {
			if (!blank)
				out[n++] = ' ';
			blank = true;
			continue;
		}
		out[n++] = (char)c;
		blank = false;
	}
	/* Cut inside a character: drop its first bytes too. */
	if (i < len && ((unsigned char)body[i] & 0xc0) == 0x80) {
		while (n > 0 && ((unsigned char)out[n - 1] & 0xc0) == 0x80)
			n--;
		if (n > 0)
			n--;
	}
	while (n > 0 && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
}

static void describe_http(char *out, size_t size, const struct task *task,
			  const char *url, long http)
{
	char text[EXCERPT_MAX + 1];
	struct buf tmp = BUF_INIT;
	/* Redacted whole before it is cut: a cut could leave half a key that no redaction finds. */
	const char *body = secret_scrub(&tmp, task->answer.ptr ? task->answer.ptr : "");

	excerpt(text, sizeof(text), body, strlen(body));
	buf_release(&tmp);
	if (http >= 300 && http < 400)
		say(out, size, "HTTP %ld from %s: a redirect, which revline "
		    "does not follow; check the URL", http, url);
	else if (text[0])
		say(out, size, "HTTP %ld: %s", http, text);
	else
		say(out, size, "HTTP %ld from %s", http, url);
}

static void describe_write_failure(char *out, size_t size, const struct task *task,
				   const char *url)
{
	if (task->write_failure == WRITE_TOO_BIG)
		say(out, size, "the answer from %s is larger than %zu MiB",
		    url, BODY_MAX >> 20);
	else
		say(out, size, "out of memory reading the answer from %s", url);
}

static bool is_tls_failure(CURLcode rc)
{
	return rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CONNECT_ERROR ||
		rc == CURLE_SSL_CACERT_BADFILE || rc == CURLE_SSL_CERTPROBLEM ||
		rc == CURLE_SSL_ISSUER_ERROR || rc == CURLE_SSL_PINNEDPUBKEYNOTMATCH;
}


/* The longest a streamed request may take in all. */
static long task_ceiling_ms(const struct task *task)
{
	return task->ceiling_ms;
}

static void describe_transfer(char *out, size_t size, const struct task *task,
			      const char *url, const struct attempt *a)
{
	const char *why = task->curl_error[0] ? task->curl_error :
		curl_easy_strerror(a->result);
	char secs[32];

	if (a->result == CURLE_COULDNT_CONNECT && a->os_errno == ECONNREFUSED) {
		say(out, size, "connection refused by %s", url);
	} else if (a->result == CURLE_COULDNT_CONNECT) {
		say(out, size, "could not connect to %s: %s", url, why);
	} else if (a->result == CURLE_OPERATION_TIMEDOUT && !a->connected) {
		seconds_for_user(secs, sizeof(secs),
				 task->timeout_ms < CONNECT_TIMEOUT_MS ?
				 task->timeout_ms : CONNECT_TIMEOUT_MS);
		say(out, size, "could not connect to %s within %s s", url, secs);
	} else if (a->result == CURLE_OPERATION_TIMEDOUT && task->stream &&
		   clock_ms() - task->attempt_start + 1000 < task_ceiling_ms(task)) {
		seconds_for_user(secs, sizeof(secs), task->timeout_ms);
		say(out, size, "no byte for %s s (the answer stalled)", secs);
	} else if (a->result == CURLE_OPERATION_TIMEDOUT && task->stream) {
		seconds_for_user(secs, sizeof(secs), task_ceiling_ms(task));
		say(out, size, "the answer was still coming after %s s, the ceiling of a request "
		    "(revline.ceiling)", secs);
	} else if (a->result == CURLE_OPERATION_TIMEDOUT) {
		seconds_for_user(secs, sizeof(secs), task->timeout_ms);
		say(out, size, "no answer within %s s", secs);
	} else if (a->result == CURLE_COULDNT_RESOLVE_HOST) {
		say(out, size, "could not resolve the host of %s: %s", url, why);
	} else if (a->result == CURLE_WRITE_ERROR && task->write_failure) {
		describe_write_failure(out, size, task, url);
	} else if (is_tls_failure(a->result)) {
		say(out, size, "TLS with %s failed: %s", url, why);
	} else if (a->result == CURLE_PARTIAL_FILE) {
		say(out, size, "the answer from %s was cut short: %s", url, why);
	} else if (a->result == CURLE_GOT_NOTHING || a->result == CURLE_RECV_ERROR ||
		   a->result == CURLE_SEND_ERROR) {
		say(out, size, "the connection to %s broke: %s", url, why);
	} else {
		say(out, size, "the request to %s failed: %s", url, why);
	}
}

/* The message of a settled task; the number of attempts always fits. */
static void describe(char *out, size_t size, const struct task *task,
		     const struct attempt *a)
{
	char url[160], attempts[32] = "";
	size_t room;

	url_for_user(url, sizeof(url), task->url);
	if (task->attempts > 1)
		say(attempts, sizeof(attempts), " (%d attempts)", task->attempts);
	room = size - strlen(attempts);
	if (a->result == CURLE_OK)
		describe_http(out, room, task, url, a->http);
	else
		describe_transfer(out, room, task, url, a);
	memcpy(out + strlen(out), attempts, strlen(attempts) + 1);
}

/* --- tasks --------------------------------------------------------------- */

static void task_free(struct sched *sched, struct task *task)
{
	if (!task)
		return;
	if (task->easy) {
		if (task->state == TASK_RUNNING) {
			curl_multi_remove_handle(sched->multi, task->easy);
			sched->running--;
		}
		curl_easy_cleanup(task->easy);
	}
	curl_slist_free_all(task->headers);
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
static void task_remove(struct sched *sched, struct task *task)
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
		list = curl_slist_append(task->headers, request->headers[i]);
		if (!list)
			return error_nomem();
		task->headers = list;
	}
	/*
	 * Without this, curl asks large POSTs to wait for "100 Continue",
	 * which costs a second with servers that never send it.
	 */
	if (!has_header(task->headers, "Expect")) {
		list = curl_slist_append(task->headers, "Expect:");
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

static size_t on_write(char *data, size_t size, size_t nmemb, void *userp)
{
	struct task *task = userp;
	size_t len = size * nmemb;

	if (len > BODY_MAX - task->answer.len) {
		task->write_failure = WRITE_TOO_BIG;
		return 0;
	}
	if (buf_put(&task->answer, data, len) < 0) {
		task->write_failure = WRITE_NOMEM;
		return 0;
	}
	task->last_byte = clock_ms();
	return len;
}

static CURLcode easy_set_protocols(CURL *easy)
{
#if LIBCURL_VERSION_NUM >= 0x075500
	return curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	return curl_easy_setopt(easy, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
}

/*
 * Cancelling a transfer that is still resolving its host name would
 * otherwise wait for the resolver thread: a slow DNS would freeze the UI.
 */
static CURLcode easy_set_quick_exit(CURL *easy)
{
#if LIBCURL_VERSION_NUM >= 0x075700
	return curl_easy_setopt(easy, CURLOPT_QUICK_EXIT, 1L);
#else
	(void)easy;
	return CURLE_OK;
#endif
}

/*
 * One easy handle per task, kept across its attempts. TLS verification
 * stays as libcurl has it (on), and redirects are not followed: a POST
 * that is redirected is a wrong URL to report, not to chase.
 */
static int task_make_easy(struct task *task)
{
	CURL *easy = curl_easy_init();

	if (!easy)
		return error_nomem();
	if (curl_easy_setopt(easy, CURLOPT_URL, task->url) ||
	    curl_easy_setopt(easy, CURLOPT_PRIVATE, (void *)task) ||
	    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, task->headers) ||
	    curl_easy_setopt(easy, CURLOPT_POST, 1L) ||
	    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, task->body) ||
	    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)task->body_len) ||
	    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_write) ||
	    curl_easy_setopt(easy, CURLOPT_WRITEDATA, (void *)task) ||
	    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, task->curl_error) ||
	    curl_easy_setopt(easy, CURLOPT_USERAGENT, "revline/" REVLINE_VERSION) ||
	    curl_easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "") ||
	    curl_easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L) ||
	    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L) ||
	    curl_easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L) ||
	    easy_set_protocols(easy) || easy_set_quick_exit(easy)) {
		curl_easy_cleanup(easy);
		return error_set(RL_ERROR, "libcurl refused the options of a request");
	}
	task->easy = easy;
	return 0;
}

/*
 * The attempt's time: the task's timeout (a streamed one's ceiling), or
 * the time left before the deadline when that is shorter.
 * CURLOPT_TIMEOUT_MS bounds the whole transfer, connecting and reading
 * alike, so a server that drips a byte a second is cut there as surely as
 * one that never answers. A streamed answer's idle time is watched here
 * (cut_idle), not with libcurl's low-speed limit: that one averages the
 * speed over the last seconds, the request's upload included, so that a
 * server that never answered was cut seconds after its idle time, and a
 * pause longer than it went unnoticed after a burst.
 */
static int task_set_timeouts(struct sched *sched, struct task *task, int64_t now)
{
	long ms = task->stream ? task->ceiling_ms : task->timeout_ms;

	task->deadline_bound = false;
	if (sched->deadline_at && sched->deadline_at - now < ms) {
		ms = sched->deadline_at - now < 1 ? 1 : (long)(sched->deadline_at - now);
		task->deadline_bound = true;
	}
	if (curl_easy_setopt(task->easy, CURLOPT_TIMEOUT_MS, ms) ||
	    curl_easy_setopt(task->easy, CURLOPT_CONNECTTIMEOUT_MS,
			     ms < CONNECT_TIMEOUT_MS ? ms : CONNECT_TIMEOUT_MS))
		return error_set(RL_ERROR, "libcurl refused the timeout of a request");
	return 0;
}

/* --- events -------------------------------------------------------------- */

/* Each push after this cannot fail: a settled task always has its event. */
static int events_reserve(struct sched *sched, size_t extra)
{
	return queue_reserve(&sched->events, extra);
}

static struct sched_event *event_push(struct sched *sched, const struct task *task,
				      enum sched_status status)
{
	struct sched_event *event = queue_push(&sched->events);

	event->task = task->id;
	event->user = task->user;
	event->status = status;
	event->attempts = task->attempts;
	return event;
}

/* The one settled event of a task, which then leaves the table. */
static void settle(struct sched *sched, struct task *task, enum sched_status status,
		   long http, bool with_body, const char *error)
{
	struct sched_event *event = event_push(sched, task, status);

	event->http_status = http;
	if (with_body) {
		event->body_len = task->answer.len;
		event->body = buf_detach(&task->answer);
		if (!event->body)
			event->body_len = 0;
	}
	if (task->attempts)
		event->duration_ms = (long)(clock_ms() - task->first_start);
	say(event->error, sizeof(event->error), "%s", error);
	task_remove(sched, task);
}

/* --- starting and finishing transfers ------------------------------------ */

static int task_start(struct sched *sched, struct task *task, int64_t now)
{
	if ((!task->easy && task_make_easy(task) < 0) || task_set_timeouts(sched, task, now) < 0)
		return -1;
	buf_clear(&task->answer);
	task->write_failure = WRITE_OK;
	task->curl_error[0] = '\0';
	task->last_http = 0;
	if (curl_multi_add_handle(sched->multi, task->easy) != CURLM_OK)
		return error_set(RL_ERROR, "libcurl could not start the request");
	task->state = TASK_RUNNING;
	sched->running++;
	task->attempts++;
	task->attempt_start = now;
	task->last_byte = now;
	if (task->attempts == 1) {
		task->first_start = now;
		event_push(sched, task, SCHED_STARTED);
	}
	return 0;
}

/* The largest task that may start now; the first added among equals. */
static struct task *next_ready(struct sched *sched, int64_t now)
{
	struct task *best = NULL;
	size_t i;

	for (i = 0; i < sched->ntasks; i++) {
		struct task *task = sched->tasks[i];

		if (task->state == TASK_RUNNING || task->ready_at > now)
			continue;
		if (!best || task->weight > best->weight)
			best = task;
	}
	return best;
}

static void start_ready(struct sched *sched)
{
	int64_t now = clock_ms();
	struct task *task;
	char url[160], error[256];

	while (sched->running < (size_t)sched->options.concurrency &&
	       (task = next_ready(sched, now))) {
		if (task_start(sched, task, now) == 0)
			continue;
		url_for_user(url, sizeof(url), task->url);
		say(error, sizeof(error), "could not start the request to %s: %s",
		    url, error_message());
		settle(sched, task, SCHED_FAILED, 0, false, error);
	}
}

/* Errors that no retry can mend: a wrong URL, an untrusted certificate... */
static bool is_final_error(CURLcode rc)
{
	switch (rc) {
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
	case CURLE_NOT_BUILT_IN:
	case CURLE_BAD_FUNCTION_ARGUMENT:
	case CURLE_OUT_OF_MEMORY:
	case CURLE_WRITE_ERROR:
	case CURLE_TOO_MANY_REDIRECTS:
	case CURLE_LOGIN_DENIED:
	case CURLE_BAD_CONTENT_ENCODING:
	case CURLE_FILESIZE_EXCEEDED:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
		return true;
	default:
		return false;
	}
}

static bool is_retryable(const struct attempt *a)
{
	if (a->result == CURLE_OK)
		return a->http == 429 || (a->http >= 500 && a->http <= 599);
	return !is_final_error(a->result);
}

static enum sched_status final_status(const struct attempt *a)
{
	if (a->result == CURLE_OK)
		return a->http >= 200 && a->http <= 299 ? SCHED_DONE : SCHED_HTTP_ERROR;
	return a->result == CURLE_OPERATION_TIMEDOUT ? SCHED_TIMEOUT : SCHED_FAILED;
}

static double min_double(double a, double b)
{
	return a < b ? a : b;
}

/*
 * Retry-After on 429 and 503 (libcurl reads both of its forms), capped;
 * else the backoff, doubled for each attempt made, with up to 25% jitter
 * either way so that tasks failing together do not return together.
 * *asked is the Retry-After in seconds, 0 when there was none.
 */
static int64_t retry_delay_ms(struct sched *sched, const struct task *task, long http,
			      curl_off_t *asked)
{
	const struct sched_options *o = &sched->options;
	curl_off_t after = 0;
	double s;
	int i;

	*asked = 0;
	if ((http == 429 || http == 503) &&
	    curl_easy_getinfo(task->easy, CURLINFO_RETRY_AFTER, &after) == CURLE_OK &&
	    after > 0) {
		*asked = after;
		s = min_double((double)after, o->retry_after_max);
	} else {
		s = o->backoff;
		for (i = 1; i < task->attempts && s < o->backoff_max; i++)
			s *= 2;
		s *= 0.75 + 0.5 * prng_unit(&sched->prng);
		s = min_double(s, o->backoff_max);
	}
	return (int64_t)(min_double(s, DELAY_MAX_S) * 1000.0 + 0.5);
}

static void attempt_read(struct attempt *a, CURL *easy, CURLcode result)
{
	curl_off_t connect_us = 0;
	long request_size = 0;

	memset(a, 0, sizeof(*a));
	a->result = result;
	curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &a->http);
	curl_easy_getinfo(easy, CURLINFO_OS_ERRNO, &a->os_errno);
	curl_easy_getinfo(easy, CURLINFO_CONNECT_TIME_T, &connect_us);
	curl_easy_getinfo(easy, CURLINFO_REQUEST_SIZE, &request_size);
	/* A reused connection has no connect time, but its request was sent. */
	a->connected = connect_us > 0 || request_size > 0;
	if (result != CURLE_OK)
		a->http = 0;
}

/* Out of the multi handle, if it is in it; the task stays in the table. */
static void task_stop(struct sched *sched, struct task *task)
{
	if (task->state != TASK_RUNNING)
		return;
	curl_multi_remove_handle(sched->multi, task->easy);
	sched->running--;
	task->state = TASK_WAITING;
}

static void deadline_text(char *out, size_t size, const struct sched *sched)
{
	seconds_for_user(out, size, (long)(sched->options.deadline * 1000.0 + 0.5));
}

/* The deadline ended the task: it settles as timed out, saying so. */
static void settle_at_deadline(struct sched *sched, struct task *task)
{
	char secs[32], error[256];

	deadline_text(secs, sizeof(secs), sched);
	say(error, sizeof(error), "the check's deadline of %s s passed", secs);
	sched->deadline_hit = true;
	task_stop(sched, task);
	settle(sched, task, SCHED_TIMEOUT, task->last_http, false, error);
}

/* Queued, running or waiting, everything left once the deadline passed is out of time. */
static void expire_at_deadline(struct sched *sched)
{
	if (!sched->deadline_at || clock_ms() < sched->deadline_at)
		return;
	while (sched->ntasks)
		settle_at_deadline(sched, sched->tasks[0]);
}

/*
 * A retry that could only start after the deadline is not waited for. When
 * the server asked for the wait, that is the reason given; otherwise the
 * attempt's own failure is, as when the retries run out.
 */
static bool retry_past_deadline(struct sched *sched, struct task *task, const struct attempt *a,
				int64_t ready_at, curl_off_t asked)
{
	char secs[32], error[256];

	if (!sched->deadline_at || ready_at < sched->deadline_at)
		return false;
	sched->deadline_hit = true;
	if (!asked)
		return false;
	deadline_text(secs, sizeof(secs), sched);
	say(error, sizeof(error), "HTTP %ld: the server asked to retry after %lld s, past the "
	    "check's deadline of %s s", a->http, (long long)asked, secs);
	settle(sched, task, SCHED_TIMEOUT, a->http, true, error);
	return true;
}

static void task_finished(struct sched *sched, struct task *task, CURLcode result)
{
	struct attempt a;
	char error[256];
	curl_off_t asked;
	int64_t ready_at;

	attempt_read(&a, task->easy, result);
	task->last_http = a.http;
	if (a.result == CURLE_OPERATION_TIMEDOUT && task->deadline_bound) {
		settle_at_deadline(sched, task);
		return;
	}
	if (is_retryable(&a) && task->attempts <= sched->options.retries) {
		ready_at = clock_ms() + retry_delay_ms(sched, task, a.http, &asked);
		if (retry_past_deadline(sched, task, &a, ready_at, asked))
			return;
		if (!sched->deadline_at || ready_at < sched->deadline_at) {
			task->state = TASK_WAITING;
			task->ready_at = ready_at;
			return;
		}
	}
	if (final_status(&a) == SCHED_DONE)
		error[0] = '\0';
	else
		describe(error, sizeof(error), task, &a);
	settle(sched, task, final_status(&a), a.http, a.result == CURLE_OK, error);
}

static void collect_finished(struct sched *sched)
{
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(sched->multi, &left))) {
		CURL *easy = msg->easy_handle;
		CURLcode result = msg->data.result;
		char *priv = NULL;
		struct task *task;

		if (msg->msg != CURLMSG_DONE)
			continue;
		/* msg dies with the removal: everything was read above. */
		curl_easy_getinfo(easy, CURLINFO_PRIVATE, &priv);
		task = (struct task *)priv;
		curl_multi_remove_handle(sched->multi, easy);
		task->state = TASK_WAITING;
		sched->running--;
		task_finished(sched, task, result);
	}
}

/* When a running streamed attempt's idle time runs out, or -1. */
static int64_t idle_at(const struct task *task)
{
	return task->state == TASK_RUNNING && task->stream ? task->last_byte + task->timeout_ms : -1;
}

/* A streamed answer from which no byte came for its idle time is cut: the attempt timed out. */
static void cut_idle(struct sched *sched)
{
	int64_t now = clock_ms();
	size_t i = 0;

	while (i < sched->ntasks) {
		struct task *task = sched->tasks[i];

		if (idle_at(task) < 0 || now < idle_at(task)) {
			i++;
			continue;
		}
		/* It is no longer running: it settles (and leaves the table) or waits to retry. */
		task_stop(sched, task);
		task->deadline_bound = false;
		task_finished(sched, task, CURLE_OPERATION_TIMEDOUT);
	}
}

/* --- sockets and the timer ----------------------------------------------- */

static struct watched *socket_find(struct sched *sched, curl_socket_t fd)
{
	size_t i;

	for (i = 0; i < sched->nsockets; i++)
		if (sched->sockets[i].fd == fd)
			return &sched->sockets[i];
	return NULL;
}

static int on_socket(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp)
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

static int on_timer(CURLM *multi, long timeout_ms, void *userp)
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
	CURLMcode rc = curl_multi_socket_action(sched->multi, fd, mask, &still_running);

	if (rc != CURLM_OK && rc != CURLM_BAD_SOCKET)
		return error_set(RL_ERROR, "libcurl: %s", curl_multi_strerror(rc));
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
	/* Reference-counted, and thread-safe in the libcurl we require. */
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return error_set(RL_ERROR, "libcurl could not be initialised");
	sched = calloc(1, sizeof(*sched));
	if (!sched) {
		curl_global_cleanup();
		return error_nomem();
	}
	sched->events.size = sizeof(struct sched_event);
	sched->options = *options;
	sched->timer_at = -1;
	if (options->deadline > 0)
		sched->deadline_at = clock_ms() + (int64_t)((options->deadline - options->deadline_spent) * 1000.0 + 0.5);
	sched->prng = prng_seed(sched);
	sched->multi = curl_multi_init();
	if (!sched->multi ||
	    curl_multi_setopt(sched->multi, CURLMOPT_SOCKETFUNCTION, on_socket) ||
	    curl_multi_setopt(sched->multi, CURLMOPT_SOCKETDATA, (void *)sched) ||
	    curl_multi_setopt(sched->multi, CURLMOPT_TIMERFUNCTION, on_timer) ||
	    curl_multi_setopt(sched->multi, CURLMOPT_TIMERDATA, (void *)sched)) {
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
		curl_multi_cleanup(sched->multi);
	for (i = 0; i < sched->events.count; i++)
		free(((struct sched_event *)queue_at(&sched->events, i))->body);
	queue_release(&sched->events);
	poll_group_leave(&sched->member);
	poll_group_free(sched->own_group);
	free(sched->tasks);
	free(sched->sockets);
	free(sched->unlisted_fds);
	free(sched);
	curl_global_cleanup();
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
	task_stop(sched, task);
	settle(sched, task, SCHED_CANCELLED, task->last_http, false, "cancelled");
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

/* When the next task may start, or -1: none can start before a slot frees. */
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
		at = earliest(at, idle_at(sched->tasks[i]));
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
	collect_finished(sched);
	cut_idle(sched);
	expire_at_deadline(sched);
	start_ready(sched);
	return error;
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
