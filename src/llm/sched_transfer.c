/* The scheduler's transfers: starting them, finishing them, retrying, the deadline, and what the user is told of them. */
#include "sched_state.h"
#include "clock.h"
#include "secret.h"
#include "status.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef REVLINE_VERSION
#define REVLINE_VERSION "0"
#endif

/* A runaway server must not eat the memory: no answer is larger. */
#define BODY_MAX ((size_t)64 << 20)

/* Connecting never takes longer than this, whatever the task's timeout. */
#define CONNECT_TIMEOUT_MS 15000L

/* The part of an error answer quoted to the user. */
#define EXCERPT_MAX 200

/* What one finished transfer came to. */
struct attempt {
	CURLcode result;
	long http;
	long os_errno;
	bool connected;
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
		libcurl.easy_strerror(a->result);
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

/* --- events -------------------------------------------------------------- */

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
void sched_settle(struct sched *sched, struct task *task, enum sched_status status,
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
	sched_task_remove(sched, task);
}

/* --- starting and finishing transfers ------------------------------------ */

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
	return libcurl.easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	return libcurl.easy_setopt(easy, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
}

/*
 * Cancelling a transfer that is still resolving its host name would
 * otherwise wait for the resolver thread: a slow DNS would freeze the UI.
 */
static CURLcode easy_set_quick_exit(CURL *easy)
{
#if LIBCURL_VERSION_NUM >= 0x075700
	return libcurl.easy_setopt(easy, CURLOPT_QUICK_EXIT, 1L);
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
	CURL *easy = libcurl.easy_init();

	if (!easy)
		return error_nomem();
	if (libcurl.easy_setopt(easy, CURLOPT_URL, task->url) ||
	    libcurl.easy_setopt(easy, CURLOPT_PRIVATE, (void *)task) ||
	    libcurl.easy_setopt(easy, CURLOPT_HTTPHEADER, task->headers) ||
	    (task->get ? libcurl.easy_setopt(easy, CURLOPT_HTTPGET, 1L) :
	     libcurl.easy_setopt(easy, CURLOPT_POST, 1L) ||
	     libcurl.easy_setopt(easy, CURLOPT_POSTFIELDS, task->body) ||
	     libcurl.easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)task->body_len)) ||
	    libcurl.easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_write) ||
	    libcurl.easy_setopt(easy, CURLOPT_WRITEDATA, (void *)task) ||
	    libcurl.easy_setopt(easy, CURLOPT_ERRORBUFFER, task->curl_error) ||
	    libcurl.easy_setopt(easy, CURLOPT_USERAGENT, "revline/" REVLINE_VERSION) ||
	    libcurl.easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "") ||
	    libcurl.easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L) ||
	    libcurl.easy_setopt(easy, CURLOPT_NOSIGNAL, 1L) ||
	    libcurl.easy_setopt(easy, CURLOPT_TCP_KEEPALIVE, 1L) ||
	    easy_set_protocols(easy) || easy_set_quick_exit(easy)) {
		libcurl.easy_cleanup(easy);
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
 * (sched_cut_idle), not with libcurl's low-speed limit: that one averages the
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
	if (libcurl.easy_setopt(task->easy, CURLOPT_TIMEOUT_MS, ms) ||
	    libcurl.easy_setopt(task->easy, CURLOPT_CONNECTTIMEOUT_MS,
			     ms < CONNECT_TIMEOUT_MS ? ms : CONNECT_TIMEOUT_MS))
		return error_set(RL_ERROR, "libcurl refused the timeout of a request");
	return 0;
}

static int task_start(struct sched *sched, struct task *task, int64_t now)
{
	if ((!task->easy && task_make_easy(task) < 0) || task_set_timeouts(sched, task, now) < 0)
		return -1;
	buf_clear(&task->answer);
	task->write_failure = WRITE_OK;
	task->curl_error[0] = '\0';
	task->last_http = 0;
	if (libcurl.multi_add_handle(sched->multi, task->easy) != CURLM_OK)
		return error_set(RL_ERROR, "libcurl could not start the request");
	task->state = TASK_RUNNING;
	sched_running_add(sched, 1);
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

void sched_start_ready(struct sched *sched)
{
	int64_t now = clock_ms();
	struct task *task;
	char url[160], error[256];

	while (sched_slot_free(sched) && (task = next_ready(sched, now))) {
		if (task_start(sched, task, now) == 0)
			continue;
		url_for_user(url, sizeof(url), task->url);
		say(error, sizeof(error), "could not start the request to %s: %s",
		    url, error_message());
		sched_settle(sched, task, SCHED_FAILED, 0, false, error);
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
	    libcurl.easy_getinfo(task->easy, CURLINFO_RETRY_AFTER, &after) == CURLE_OK &&
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
	libcurl.easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &a->http);
	libcurl.easy_getinfo(easy, CURLINFO_OS_ERRNO, &a->os_errno);
	libcurl.easy_getinfo(easy, CURLINFO_CONNECT_TIME_T, &connect_us);
	libcurl.easy_getinfo(easy, CURLINFO_REQUEST_SIZE, &request_size);
	/* A reused connection has no connect time, but its request was sent. */
	a->connected = connect_us > 0 || request_size > 0;
	if (result != CURLE_OK)
		a->http = 0;
}

/* Out of the multi handle, if it is in it; the task stays in the table. */
void sched_task_stop(struct sched *sched, struct task *task)
{
	if (task->state != TASK_RUNNING)
		return;
	libcurl.multi_remove_handle(sched->multi, task->easy);
	sched_running_add(sched, -1);
	task->state = TASK_WAITING;
}

void sched_running_add(struct sched *sched, int delta)
{
	sched->running += delta;
	if (sched->options.share)
		sched->options.share->running += delta;
}

bool sched_slot_free(const struct sched *sched)
{
	const struct sched_share *share = sched->options.share;

	return sched->running < (size_t)sched->options.concurrency && (!share || share->running < share->limit);
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
	sched_task_stop(sched, task);
	sched_settle(sched, task, SCHED_TIMEOUT, task->last_http, false, error);
}

/* Queued, running or waiting, everything left once the deadline passed is out of time. */
void sched_expire_at_deadline(struct sched *sched)
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
	sched_settle(sched, task, SCHED_TIMEOUT, a->http, true, error);
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
	sched_settle(sched, task, final_status(&a), a.http, a.result == CURLE_OK, error);
}

void sched_collect_finished(struct sched *sched)
{
	CURLMsg *msg;
	int left;

	while ((msg = libcurl.multi_info_read(sched->multi, &left))) {
		CURL *easy = msg->easy_handle;
		CURLcode result = msg->data.result;
		char *priv = NULL;
		struct task *task;

		if (msg->msg != CURLMSG_DONE)
			continue;
		/* msg dies with the removal: everything was read above. */
		libcurl.easy_getinfo(easy, CURLINFO_PRIVATE, &priv);
		task = (struct task *)priv;
		libcurl.multi_remove_handle(sched->multi, easy);
		task->state = TASK_WAITING;
		sched_running_add(sched, -1);
		task_finished(sched, task, result);
	}
}

/* When a running streamed attempt's idle time runs out, or -1. */
int64_t sched_idle_at(const struct task *task)
{
	return task->state == TASK_RUNNING && task->stream ? task->last_byte + task->timeout_ms : -1;
}

/* A streamed answer from which no byte came for its idle time is cut: the attempt timed out. */
void sched_cut_idle(struct sched *sched)
{
	int64_t now = clock_ms();
	size_t i = 0;

	while (i < sched->ntasks) {
		struct task *task = sched->tasks[i];

		if (sched_idle_at(task) < 0 || now < sched_idle_at(task)) {
			i++;
			continue;
		}
		/* It is no longer running: it settles (and leaves the table) or waits to retry. */
		sched_task_stop(sched, task);
		task->deadline_bound = false;
		task_finished(sched, task, CURLE_OPERATION_TIMEDOUT);
	}
}
