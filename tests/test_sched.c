/*
 * The scheduler against the fake LLM server over real HTTP: limits, order,
 * per-task timeouts, retries with backoff and Retry-After, faults,
 * cancellation, events. Times are checked only as sanity bounds (lower
 * bounds where a delay is the point, generous upper bounds elsewhere).
 */
#include "testlib.h"
#include "fakellm/fakellm.h"

#include "sched.h"
#include "secret.h"
#include "status.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#define SECRET "sk-test-SECRET-1234"
#define MAX_EVENTS 128
#define DRIVE_LIMIT_MS 15000

struct fixture {
	struct fakellm fake;
	struct sched *sched;
	struct sched_options options;
	struct sched_event events[MAX_EVENTS];
	size_t nevents;
	size_t max_running;
	bool use_wait;          /* drive with sched_wait instead of our own poll */
	int fds_room;           /* pollfds offered to sched_fds */
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	sched_options_init(&fx->options);
	fx->options.backoff = 0.02;
	fx->fds_room = 16;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	size_t i;

	sched_free(fx->sched);
	for (i = 0; i < fx->nevents; i++)
		sched_event_release(&fx->events[i]);
	fakellm_stop(&fx->fake);
	free(fx);
	return 0;
}

/* The server with a script, and a scheduler with the fixture's options. */
static void start(struct fixture *fx, const char *script)
{
	fakellm_start(&fx->fake, script);
	assert_int_equal(sched_new(&fx->sched, &fx->options, NULL), 0);
}

static uint64_t add_to(struct fixture *fx, const char *url, const char *tag, size_t weight)
{
	const char *headers[] = { "Content-Type: application/json",
				  "Authorization: Bearer " SECRET };
	struct sched_request req = { 0 };
	char body[256];
	uint64_t id;

	snprintf(body, sizeof(body),
		 "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"%s\"}]}", tag);
	req.url = url;
	req.headers = headers;
	req.nheaders = 2;
	req.body = body;
	req.body_len = strlen(body);
	req.weight = weight;
	assert_int_equal(sched_add(fx->sched, &id, &req, (void *)tag), 0);
	return id;
}

static uint64_t add(struct fixture *fx, const char *tag, size_t weight)
{
	char url[128];

	snprintf(url, sizeof(url), "%s/v1/chat/completions", fx->fake.url);
	return add_to(fx, url, tag, weight);
}

static void take_events(struct fixture *fx)
{
	struct sched_event ev;

	while (sched_next(fx->sched, &ev)) {
		assert_true(fx->nevents < MAX_EVENTS);
		/* Request headers carry the key: no error text may quote them. */
		assert_null(strstr(ev.error, "SECRET"));
		if (ev.body)
			assert_int_equal(ev.body[ev.body_len], '\0');
		fx->events[fx->nevents++] = ev;
	}
}

/* One turn of a front end's loop: sched_fds, poll, sched_step. */
static void turn(struct fixture *fx)
{
	struct pollfd fds[16];
	int n, timeout;

	if (fx->use_wait) {
		assert_int_equal(sched_wait(fx->sched, 100), 0);
	} else {
		n = sched_fds(fx->sched, fds, fx->fds_room);
		timeout = sched_timeout(fx->sched);
		if (timeout < 0 || timeout > 100)
			timeout = 100;
		assert_true(poll(fds, (nfds_t)n, timeout) >= 0);
		assert_int_equal(sched_step(fx->sched, fds, n), 0);
	}
	if (sched_running(fx->sched) > fx->max_running)
		fx->max_running = sched_running(fx->sched);
	assert_true(sched_running(fx->sched) <= (size_t)fx->options.concurrency);
	take_events(fx);
}

static void drive(struct fixture *fx)
{
	double limit = now_ms() + DRIVE_LIMIT_MS;

	while (sched_pending(fx->sched) > 0) {
		turn(fx);
		if (now_ms() > limit)
			fail_msg("the scheduler did not settle within %d ms", DRIVE_LIMIT_MS);
	}
	take_events(fx);
}

/* The settled event of a task (there must be exactly one). */
static const struct sched_event *settled(struct fixture *fx, uint64_t id)
{
	const struct sched_event *found = NULL;
	size_t i;

	for (i = 0; i < fx->nevents; i++) {
		if (fx->events[i].task != id || fx->events[i].status == SCHED_STARTED)
			continue;
		assert_null(found);
		found = &fx->events[i];
	}
	if (!found)
		fail_msg("task %llu did not settle", (unsigned long long)id);
	return found;
}

static size_t event_index(struct fixture *fx, uint64_t id, enum sched_status status)
{
	size_t i;

	for (i = 0; i < fx->nevents; i++)
		if (fx->events[i].task == id && fx->events[i].status == status)
			return i;
	fail_msg("no event %d for task %llu", status, (unsigned long long)id);
	return 0;
}

static size_t count_started(struct fixture *fx, uint64_t id)
{
	size_t i, n = 0;

	for (i = 0; i < fx->nevents; i++)
		n += fx->events[i].task == id && fx->events[i].status == SCHED_STARTED;
	return n;
}

static const char *content_of(const json_t *rec)
{
	json_t *msgs = json_object_get(json_object_get(rec, "body"), "messages");

	return json_string_value(json_object_get(json_array_get(msgs, 0), "content"));
}

static double gap_s(const json_t *requests, size_t before, size_t after)
{
	return fakellm_number(json_array_get(requests, after), "start") -
		fakellm_number(json_array_get(requests, before), "end");
}

/* A port nothing listens on: bound, then closed. */
static int closed_port(void)
{
	struct sockaddr_in addr = { 0 };
	socklen_t len = sizeof(addr);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&addr, &len), 0);
	port = ntohs(addr.sin_port);
	close(fd);
	return port;
}

static void test_one_task(void **state)
{
	struct fixture *fx = *state;
	const struct sched_event *ev;
	json_t *log, *rec;
	uint64_t id;

	start(fx, "{\"default\": {\"answer\": \"hello from the fake\"}}");
	id = add(fx, "one", 10);
	assert_int_equal(sched_pending(fx->sched), 1);
	drive(fx);
	assert_int_equal(fx->nevents, 2);
	assert_int_equal(fx->events[0].status, SCHED_STARTED);
	assert_int_equal(fx->events[0].task, id);
	assert_string_equal(fx->events[0].user, "one");
	ev = settled(fx, id);
	assert_int_equal(ev->status, SCHED_DONE);
	assert_int_equal(ev->http_status, 200);
	assert_int_equal(ev->attempts, 1);
	assert_string_equal(ev->error, "");
	assert_string_equal(ev->user, "one");
	assert_non_null(strstr(ev->body, "hello from the fake"));
	assert_int_equal(strlen(ev->body), ev->body_len);
	assert_int_equal(sched_pending(fx->sched), 0);

	log = fakellm_requests(&fx->fake);
	assert_int_equal(json_array_size(log), 1);
	rec = json_array_get(log, 0);
	assert_string_equal(json_string_value(json_object_get(rec, "authorization")), "present");
	assert_string_equal(json_string_value(json_object_get(rec, "path")), "/v1/chat/completions");
	assert_string_equal(json_string_value(json_object_get(rec, "method")), "POST");
	assert_string_equal(json_string_value(json_object_get(rec, "content_type")), "application/json");
	assert_true(!strncmp(json_string_value(json_object_get(rec, "user_agent")), "revline/", 8));
	assert_string_equal(content_of(rec), "one");
	json_decref(log);
}

static void test_limit_is_held_and_used(void **state)
{
	struct fixture *fx = *state;
	char tags[20][8];
	uint64_t ids[20];
	double t0, wall;
	json_t *log;
	int i;

	fx->options.concurrency = 4;
	start(fx, "{\"default\": {\"answer\": \"ok\", \"latency_ms\": 200}}");
	for (i = 0; i < 20; i++) {
		snprintf(tags[i], sizeof(tags[i]), "t%d", i);
		ids[i] = add(fx, tags[i], 100);
	}
	t0 = now_ms();
	drive(fx);
	wall = now_ms() - t0;
	for (i = 0; i < 20; i++)
		assert_int_equal(settled(fx, ids[i])->status, SCHED_DONE);
	log = fakellm_requests(&fx->fake);
	assert_int_equal(json_array_size(log), 20);
	assert_int_equal(fakellm_max_concurrency(log), 4);
	assert_int_equal(fx->max_running, 4);
	/* Ideal: 5 rounds of 200 ms. Only a sanity bound. */
	assert_true(wall >= 1000 * 0.95);
	assert_true(wall <= 3 * 1000);
	json_decref(log);
}

static void test_largest_first(void **state)
{
	struct fixture *fx = *state;
	static const char *const want[] = { "w500a", "w500b", "w30", "w20", "w10" };
	json_t *log;
	size_t i;

	fx->options.concurrency = 1;
	start(fx, "{\"default\": {\"answer\": \"ok\", \"latency_ms\": 20}}");
	add(fx, "w10", 10);
	add(fx, "w500a", 500);
	add(fx, "w30", 30);
	add(fx, "w500b", 500);
	add(fx, "w20", 20);
	drive(fx);
	log = fakellm_requests(&fx->fake);
	assert_int_equal(json_array_size(log), 5);
	for (i = 0; i < 5; i++)
		assert_string_equal(content_of(json_array_get(log, i)), want[i]);
	json_decref(log);
}

static void test_retry_after_is_honoured(void **state)
{
	struct fixture *fx = *state;
	const struct sched_event *ev;
	json_t *log;
	uint64_t id;

	start(fx, "{\"rules\": [{\"then\": ["
	      "{\"status\": 429, \"headers\": {\"Retry-After\": \"1\"}},"
	      "{\"answer\": \"at last\"}]}]}");
	id = add(fx, "limited", 0);
	drive(fx);
	ev = settled(fx, id);
	assert_int_equal(ev->status, SCHED_DONE);
	assert_int_equal(ev->attempts, 2);
	assert_int_equal(count_started(fx, id), 1);
	assert_non_null(strstr(ev->body, "at last"));
	assert_true(ev->duration_ms >= 1000);
	log = fakellm_requests(&fx->fake);
	assert_int_equal(json_array_size(log), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(log, 0), "status")), 429);
	/* Not the 20 ms backoff: the server's second. */
	assert_true(gap_s(log, 0, 1) >= 0.99);
	json_decref(log);
}

static void test_retry_after_is_capped(void **state)
{
	struct fixture *fx = *state;
	json_t *log;
	uint64_t id;

	fx->options.retry_after_max = 0.2;
	start(fx, "{\"rules\": [{\"then\": ["
	      "{\"status\": 503, \"headers\": {\"Retry-After\": \"100000\"}},"
	      "{\"answer\": \"ok\"}]}]}");
	id = add(fx, "overloaded", 0);
	drive(fx);
	assert_int_equal(settled(fx, id)->status, SCHED_DONE);
	assert_int_equal(settled(fx, id)->attempts, 2);
	log = fakellm_requests(&fx->fake);
	assert_true(gap_s(log, 0, 1) >= 0.19);
	assert_true(gap_s(log, 0, 1) < 5);
	json_decref(log);
}

static void test_server_errors_are_retried_with_backoff(void **state)
{
	struct fixture *fx = *state;
	const struct sched_event *ev;
	json_t *log;
	uint64_t id;

	fx->options.backoff = 0.1;
	start(fx, "{\"rules\": [{\"match\": \"flaky\", \"then\": ["
	      "{\"status\": 500, \"times\": 2}, {\"answer\": \"third time\"}]}]}");
	id = add(fx, "flaky", 0);
	drive(fx);
	ev = settled(fx, id);
	assert_int_equal(ev->status, SCHED_DONE);
	assert_int_equal(ev->attempts, 3);
	assert_int_equal(ev->http_status, 200);
	log = fakellm_requests(&fx->fake);
	assert_int_equal(json_array_size(log), 3);
	/* 100 ms then 200 ms, each within 25% jitter. */
	assert_true(gap_s(log, 0, 1) >= 0.074);
	assert_true(gap_s(log, 1, 2) >= 0.149);
	assert_true(gap_s(log, 1, 2) < 2);
	json_decref(log);
}

static void test_backoff_is_capped(void **state)
{
	struct fixture *fx = *state;
	json_t *log;
	uint64_t id;

	fx->options.backoff = 0.1;
	fx->options.backoff_max = 0.1;
	fx->options.retries = 4;
	start(fx, "{\"rules\": [{\"then\": [{\"status\": 502, \"times\": 4}, {\"answer\": \"ok\"}]}]}");
	id = add(fx, "capped", 0);
	drive(fx);
	assert_int_equal(settled(fx, id)->attempts, 5);
	log = fakellm_requests(&fx->fake);
	/* Uncapped, the last gap would be 0.8 s +-25%: capped, it stays near 0.1 s. */
	assert_true(gap_s(log, 3, 4) >= 0.074);
	assert_true(gap_s(log, 3, 4) < 0.5);
	json_decref(log);
}

/* A server that quotes the key back: the error's excerpt never holds it, nor half of it. */
static void test_client_error_hides_the_key(void **state)
{
	struct fixture *fx = *state;
	const struct sched_event *ev;
	uint64_t id;

	secret_add("sk-quoted-0123456789abcdef");
	start(fx, "{\"rules\": [{\"status\": 401, \"error\": \"Incorrect API key provided: "
		  "sk-quoted-0123456789abcdef. You can find your key at ...\"}]}");
	id = add(fx, "denied", 0);
	drive(fx);
	ev = settled(fx, id);
	assert_int_equal(ev->http_status, 401);
	assert_null(strstr(ev->error, "sk-quoted"));
	assert_non_null(strstr(ev->error, SECRET_MARKER));
	secret_clear();
}

static void test_client_error_is_final(void **state)
{
	struct fixture *fx = *state;
	const struct sched_event *ev;
	json_t *log;
	uint64_t id;

	start(fx, "{\"rules\": [{\"status\": 401, \"error\": \"Incorrect API key provided\"}]}");
	id = add(fx, "denied", 0);
	drive(fx);
	ev = settled(fx, id);
	assert_int_equal(ev->status, SCHED_HTTP_ERROR);
	assert_int_equal(ev->http_status, 401);
	assert_int_equal(ev->attempts, 1);
	assert_true(!strncmp(ev->error, "HTTP 401: ", 10));
	assert_non_null(strstr(ev->error, "Incorrect API key provided"));
	assert_non_null(strstr(ev->body, "authentication_error"));
	log = fakellm_requests(&fx->fake);
	assert_int_equal(json_array_size(log), 1);
	json_decref(log);
}

static void test_bad_request_is_not_retried(void **state)
{
	struct fixture *fx = *state;
	const struct sched_event *ev;
	uint64_t id;

	start(fx, "{\"rules\": [{\"status\": 400}]}");
	id = add(fx, "bad", 0);
	drive(fx);
	ev = settled(fx, id);
	assert_int_equal(ev->status, SCHED_HTTP_ERROR);
	assert_int_equal(ev->http_status, 400);
	assert_int_equal(ev->attempts, 1);
	assert_true(ev->duration_ms < 1000);
}

static void test_server_error_after_retries(void **state)
{
	struct fixture *fx = *state;
	const struct sched_event *ev;
	uint64_t id;

	start(fx, "{\"rules\": [{\"status\": 503, \"error\": \"overloaded\"}]}");
	id = add(fx, "down", 0);
	drive(fx);
	ev = settled(fx, id);
	assert_int_equal(ev->status, SCHED_HTTP_ERROR);
	assert_int_equal(ev->http_status, 503);
	assert_int_equal(ev->attempts, 3);
	assert_non_null(strstr(ev->error, "HTTP 503: "));
	assert_non_null(strstr(ev->error, "overloaded"));
	assert_non_null(strstr(ev->error, "(3 attempts)"));
}

static void test_hang_times_out(void **state)
{
	struct fixture *fx = *state;
	const struct sched_event *ev;
	json_t *log;
	uint64_t id;

	fx->options.timeout = 0.5;
	fx->options.retries = 1;
	start(fx, "{\"rules\": [{\"fault\": \"hang\"}]}");
	id = add(fx, "hang", 0);
	drive(fx);
	ev = settled(fx, id);
	assert_int_equal(ev->status, SCHED_TIMEOUT);
	assert_int_equal(ev->attempts, 2);
	assert_int_equal(ev->http_status, 0);
	assert_null(ev->body);
	assert_string_equal(ev->error, "no answer within 0.5 s (2 attempts)");
	assert_true(ev->duration_ms >= 1000);
	assert_true(ev->duration_ms < 4000);
	log = fakellm_requests(&fx->fake);
	assert_int_equal(json_array_size(log), 2);
	json_decref(log);
}

static void test_hang_on_a_reused_connection(void **state)
{
	struct fixture *fx = *state;
	uint64_t first, second;

	fx->options.timeout = 0.4;
	fx->options.retries = 0;
	fx->options.concurrency = 1;
	start(fx, "{\"rules\": [{\"match\": \"second\", \"fault\": \"hang\"}],"
	      " \"default\": {\"answer\": \"ok\"}}");
	first = add(fx, "first", 2);
	second = add(fx, "second", 1);
	drive(fx);
	assert_int_equal(settled(fx, first)->status, SCHED_DONE);
	assert_int_equal(settled(fx, second)->status, SCHED_TIMEOUT);
	assert_string_equal(settled(fx, second)->error, "no answer within 0.4 s");
}

static void test_timeout_grows_with_weight(void **state)
{
	struct fixture *fx = *state;
	uint64_t small, large;

	fx->options.timeout = 0.3;
	fx->options.retries = 0;
	fx->options.concurrency = 2;
	start(fx, "{\"default\": {\"answer\": \"slow\", \"latency_ms\": 600}}");
	small = add(fx, "small", 0);
	large = add(fx, "large", 3 * 65536);    /* 1.2 s */
	drive(fx);
	assert_int_equal(settled(fx, small)->status, SCHED_TIMEOUT);
	assert_int_equal(settled(fx, large)->status, SCHED_DONE);
}

static void test_reset_fails_after_retries(void **state)
{
	struct fixture *fx = *state;
	const struct sched_event *ev;
	json_t *log;
	uint64_t id;

	start(fx, "{\"rules\": [{\"fault\": \"reset\"}]}");
	id = add(fx, "reset", 0);
	drive(fx);
	ev = settled(fx, id);
	assert_int_equal(ev->status, SCHED_FAILED);
	assert_int_equal(ev->attempts, 3);
	assert_non_null(strstr(ev->error, fx->fake.url));
	assert_non_null(strstr(ev->error, "(3 attempts)"));
	log = fakellm_requests(&fx->fake);
	assert_int_equal(json_array_size(log), 3);
	json_decref(log);
}

static void test_truncated_answer_is_retried(void **state)
{
	struct fixture *fx = *state;
	const struct sched_event *ev;
	uint64_t once, always;

	fx->options.retries = 1;
	start(fx, "{\"rules\": ["
	      "{\"match\": \"once\", \"then\": [{\"fault\": \"truncate\"}, {\"answer\": \"whole\"}]},"
	      "{\"match\": \"always\", \"fault\": \"truncate\"}]}");
	once = add(fx, "once", 0);
	always = add(fx, "always", 0);
	drive(fx);
	ev = settled(fx, once);
	assert_int_equal(ev->status, SCHED_DONE);
	assert_int_equal(ev->attempts, 2);
	assert_non_null(strstr(ev->body, "whole"));
	ev = settled(fx, always);
	assert_int_equal(ev->status, SCHED_FAILED);
	assert_int_equal(ev->attempts, 2);
	assert_non_null(strstr(ev->error, "cut short"));
}

static void test_connection_refused(void **state)
{
	struct fixture *fx = *state;
	const struct sched_event *ev;
	char url[128], want[192];
	uint64_t id;

	fx->options.retries = 1;
	start(fx, "{}");
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/v1/chat/completions", closed_port());
	id = add_to(fx, url, "nobody", 0);
	drive(fx);
	ev = settled(fx, id);
	assert_int_equal(ev->status, SCHED_FAILED);
	assert_int_equal(ev->attempts, 2);
	assert_int_equal(ev->http_status, 0);
	snprintf(want, sizeof(want), "connection refused by %s (2 attempts)", url);
	assert_string_equal(ev->error, want);
}

/*
 * A listener whose queue is full: the kernel drops the next SYN, so a
 * connection neither succeeds nor is refused.
 */
static int full_listener(int *port, int clients[4])
{
	struct sockaddr_in addr = { 0 };
	socklen_t len = sizeof(addr);
	int fd = socket(AF_INET, SOCK_STREAM, 0), i;

	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(listen(fd, 0), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&addr, &len), 0);
	*port = ntohs(addr.sin_port);
	for (i = 0; i < 4; i++) {
		clients[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		connect(clients[i], (struct sockaddr *)&addr, sizeof(addr));
	}
	return fd;
}

static void test_connect_timeout(void **state)
{
	struct fixture *fx = *state;
	const struct sched_event *ev;
	int listener, clients[4], port, i;
	char url[128], want[192];
	uint64_t id;

	fx->options.timeout = 0.3;
	fx->options.retries = 0;
	start(fx, "{}");
	listener = full_listener(&port, clients);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/v1/chat/completions", port);
	id = add_to(fx, url, "unreachable", 0);
	drive(fx);
	for (i = 0; i < 4; i++)
		close(clients[i]);
	close(listener);
	ev = settled(fx, id);
	assert_int_equal(ev->status, SCHED_TIMEOUT);
	snprintf(want, sizeof(want), "could not connect to %s within 0.3 s", url);
	assert_string_equal(ev->error, want);
}

static void test_url_secrets_stay_out_of_errors(void **state)
{
	struct fixture *fx = *state;
	char url[160];
	uint64_t id;

	fx->options.retries = 0;
	start(fx, "{}");
	snprintf(url, sizeof(url), "http://user:" SECRET "@127.0.0.1:%d/v1/x?key=" SECRET,
		 closed_port());
	id = add_to(fx, url, "secret", 0);
	drive(fx);
	assert_int_equal(settled(fx, id)->status, SCHED_FAILED);
	assert_non_null(strstr(settled(fx, id)->error, "/v1/x"));
}

static void test_cancel_queued_and_running(void **state)
{
	struct fixture *fx = *state;
	uint64_t slow, queued, fast;
	double t0, limit;
	json_t *log;

	fx->options.concurrency = 1;
	start(fx, "{\"rules\": [{\"match\": \"slow\", \"answer\": \"late\", \"latency_ms\": 3000}],"
	      " \"default\": {\"answer\": \"ok\"}}");
	t0 = now_ms();          /* after the fake server's start, which a loaded machine makes slow */
	limit = t0 + 5000;
	slow = add(fx, "slow", 300);
	queued = add(fx, "queued", 200);
	fast = add(fx, "fast", 100);
	/* Until the slow one has reached the server. */
	do {
		turn(fx);
		log = fakellm_requests(&fx->fake);
		if (json_array_size(log) > 0)
			break;
		json_decref(log);
		assert_true(now_ms() < limit);
	} while (1);
	json_decref(log);
	assert_int_equal(sched_running(fx->sched), 1);
	sched_cancel(fx->sched, queued);
	sched_cancel(fx->sched, slow);
	sched_cancel(fx->sched, slow);          /* twice: nothing more */
	sched_cancel(fx->sched, 9999);          /* unknown: nothing */
	assert_int_equal(sched_running(fx->sched), 0);
	assert_int_equal(sched_pending(fx->sched), 1);
	drive(fx);
	assert_int_equal(settled(fx, queued)->status, SCHED_CANCELLED);
	assert_int_equal(settled(fx, queued)->attempts, 0);
	assert_int_equal(count_started(fx, queued), 0);
	assert_int_equal(settled(fx, slow)->status, SCHED_CANCELLED);
	assert_int_equal(settled(fx, slow)->attempts, 1);
	assert_int_equal(settled(fx, fast)->status, SCHED_DONE);
	assert_true(event_index(fx, queued, SCHED_CANCELLED) < event_index(fx, fast, SCHED_STARTED));
	assert_true(now_ms() - t0 < 2500);      /* the slow answer was not awaited */
}

static void test_cancel_waiting(void **state)
{
	struct fixture *fx = *state;
	const struct sched_event *ev;
	double limit = now_ms() + 5000;
	uint64_t id;

	fx->options.backoff = 10;
	start(fx, "{\"rules\": [{\"status\": 500}]}");
	id = add(fx, "waiting", 0);
	do {
		turn(fx);
		assert_true(now_ms() < limit);
	} while (fx->nevents == 0 || sched_running(fx->sched) > 0);
	assert_int_equal(sched_pending(fx->sched), 1);
	/* Waiting for its backoff, it holds no slot. */
	assert_int_equal(sched_running(fx->sched), 0);
	assert_true(sched_timeout(fx->sched) > 5000);
	sched_cancel_all(fx->sched);
	take_events(fx);
	ev = settled(fx, id);
	assert_int_equal(ev->status, SCHED_CANCELLED);
	assert_int_equal(ev->attempts, 1);
	assert_int_equal(ev->http_status, 500);
	assert_string_equal(ev->error, "cancelled");
	assert_int_equal(sched_pending(fx->sched), 0);
}

static void test_events_in_settle_order(void **state)
{
	struct fixture *fx = *state;
	uint64_t slow, fast;

	fx->options.concurrency = 2;
	start(fx, "{\"rules\": [{\"match\": \"tortoise\", \"answer\": \"s\", \"latency_ms\": 500}],"
	      " \"default\": {\"answer\": \"f\", \"latency_ms\": 20}}");
	slow = add(fx, "tortoise", 1000);
	fast = add(fx, "hare", 1);
	drive(fx);
	assert_int_equal(fx->nevents, 4);
	assert_true(event_index(fx, slow, SCHED_STARTED) < event_index(fx, fast, SCHED_STARTED));
	assert_true(event_index(fx, fast, SCHED_DONE) < event_index(fx, slow, SCHED_DONE));
	assert_true(settled(fx, slow)->duration_ms >= 500);
}

static void test_sched_wait_drives_alone(void **state)
{
	struct fixture *fx = *state;
	uint64_t ids[6];
	int i;

	fx->use_wait = true;
	fx->options.concurrency = 3;
	start(fx, "{\"rules\": [{\"match\": \"odd\", \"status\": 404}],"
	      " \"default\": {\"answer\": \"ok\", \"latency_ms\": 50}}");
	for (i = 0; i < 6; i++)
		ids[i] = add(fx, i % 2 ? "odd" : "even", 0);
	drive(fx);
	for (i = 0; i < 6; i++)
		assert_int_equal(settled(fx, ids[i])->status, i % 2 ? SCHED_HTTP_ERROR : SCHED_DONE);
	assert_int_equal(sched_wait(fx->sched, 1000), 0);      /* idle: at once */
}

static void test_too_few_pollfds(void **state)
{
	struct fixture *fx = *state;
	uint64_t ids[4];
	int i;

	fx->fds_room = 1;
	fx->options.concurrency = 4;
	start(fx, "{\"default\": {\"answer\": \"ok\", \"latency_ms\": 100}}");
	for (i = 0; i < 4; i++)
		ids[i] = add(fx, "room", 0);
	drive(fx);
	for (i = 0; i < 4; i++)
		assert_int_equal(settled(fx, ids[i])->status, SCHED_DONE);
}

static void test_large_answer(void **state)
{
	struct fixture *fx = *state;
	const struct sched_event *ev;
	struct buf script = BUF_INIT;
	uint64_t id;
	int i;

	buf_puts(&script, "{\"default\": {\"body\": \"");
	for (i = 0; i < 30000; i++)
		buf_puts(&script, "0123456789");
	buf_puts(&script, "\"}}");
	start(fx, script.ptr);
	buf_release(&script);
	id = add(fx, "big", 0);
	drive(fx);
	ev = settled(fx, id);
	assert_int_equal(ev->status, SCHED_DONE);
	assert_int_equal(ev->body_len, 300000);
	assert_int_equal(strlen(ev->body), 300000);
}

static void test_odd_answers_are_the_callers_to_judge(void **state)
{
	struct fixture *fx = *state;
	uint64_t html, shape;

	start(fx, "{\"rules\": [{\"match\": \"html\", \"fault\": \"non_json\"},"
	      " {\"match\": \"shape\", \"fault\": \"wrong_shape\"}]}");
	html = add(fx, "html", 0);
	shape = add(fx, "shape", 0);
	drive(fx);
	assert_int_equal(settled(fx, html)->status, SCHED_DONE);
	assert_non_null(strstr(settled(fx, html)->body, "<html>"));
	assert_int_equal(settled(fx, shape)->status, SCHED_DONE);
	assert_null(strstr(settled(fx, shape)->body, "\"choices\""));
}

static size_t count_requests(struct fixture *fx)
{
	json_t *log = fakellm_requests(&fx->fake);
	size_t n = json_array_size(log);

	json_decref(log);
	return n;
}

static void test_free_with_work_in_flight(void **state)
{
	struct fixture *fx = *state;
	double limit = now_ms() + 5000;

	fx->options.concurrency = 2;
	fx->options.backoff = 10;
	start(fx, "{\"rules\": [{\"match\": \"hang\", \"fault\": \"hang\"},"
	      " {\"match\": \"fail\", \"status\": 500}]}");
	add(fx, "hang1", 4);
	add(fx, "fail", 3);
	add(fx, "hang2", 2);
	add(fx, "queued", 1);
	/* Two running, one waiting for its backoff, one queued. */
	do {
		turn(fx);
		assert_true(now_ms() < limit);
	} while (sched_running(fx->sched) != 2 || count_requests(fx) < 3);
	assert_int_equal(sched_pending(fx->sched), 4);
	sched_free(fx->sched);  /* silently; ASan checks that nothing leaks */
	fx->sched = NULL;
}

static void test_usage_errors(void **state)
{
	struct fixture *fx = *state;
	struct sched_options o;
	struct sched_request req = { 0 };
	const char *headers[] = { "Authorization: Bearer " SECRET "\r\nX-Evil: 1" };
	uint64_t id = 42;

	sched_options_init(&o);
	assert_int_equal(o.concurrency, 5);
	assert_true(o.timeout == 120 && o.retries == 2 && o.backoff == 1);
	assert_true(o.backoff_max == 30 && o.retry_after_max == SCHED_RETRY_AFTER_MAX_S);
	assert_true(SCHED_RETRY_AFTER_MAX_S == 60 && o.deadline == 0);
	o.deadline = -1;
	assert_int_equal(sched_new(&fx->sched, &o, NULL), RL_EUSAGE);
	assert_null(fx->sched);
	o.deadline = 0;
	o.concurrency = 0;
	assert_int_equal(sched_new(&fx->sched, &o, NULL), RL_EUSAGE);
	assert_null(fx->sched);
	assert_int_equal(sched_new(&fx->sched, NULL, NULL), 0);
	assert_int_equal(sched_add(fx->sched, &id, &req, NULL), RL_EUSAGE);
	assert_int_equal(id, 0);
	req.url = "http://127.0.0.1:1/";
	req.headers = headers;
	req.nheaders = 1;
	assert_int_equal(sched_add(fx->sched, &id, &req, NULL), RL_EUSAGE);
	assert_null(strstr(error_message(), "SECRET"));
	assert_int_equal(sched_pending(fx->sched), 0);
	assert_int_equal(sched_timeout(fx->sched), -1);
}

/* libcurl's CURLOPT_TIMEOUT_MS bounds the whole transfer: a byte every 100 ms does not keep it alive. */
static void test_drip_times_out(void **state)
{
	struct fixture *fx = *state;
	const struct sched_event *ev;
	uint64_t id;

	fx->options.timeout = 0.5;
	fx->options.retries = 0;
	start(fx, "{\"rules\": [{\"fault\": \"drip\", \"drip_ms\": 100}]}");
	id = add(fx, "drip", 0);
	drive(fx);
	ev = settled(fx, id);
	assert_int_equal(ev->status, SCHED_TIMEOUT);
	assert_string_equal(ev->error, "no answer within 0.5 s");
	assert_true(ev->duration_ms >= 450);
	assert_true(ev->duration_ms < 2000);
}

static void assert_deadline(const struct sched_event *ev, const char *error)
{
	assert_int_equal(ev->status, SCHED_TIMEOUT);
	assert_string_equal(ev->error, error);
}

/*
 * The deadline settles what hangs, drips, waits for a retry or waits for a
 * slot, long before their own timeouts; what answered in time is kept.
 */
static void test_deadline_ends_everything_left(void **state)
{
	struct fixture *fx = *state;
	uint64_t hang, drip, fast, flaky, queued;
	double t0;

	fx->options.timeout = 60;
	fx->options.retries = 10;
	fx->options.backoff = 0.3;
	fx->options.backoff_max = 0.3;
	fx->options.concurrency = 4;
	fx->options.deadline = 1.0;
	start(fx, "{\"rules\": [{\"match\": \"hang\", \"fault\": \"hang\"},"
	      " {\"match\": \"drip\", \"fault\": \"drip\", \"drip_ms\": 100},"
	      " {\"match\": \"flaky\", \"status\": 500},"
	      " {\"match\": \"queued\", \"fault\": \"hang\"}],"
	      " \"default\": {\"answer\": \"in time\", \"latency_ms\": 100}}");
	t0 = now_ms();   /* the deadline counts from sched_new, after the server is up */
	hang = add(fx, "hang", 5);
	drip = add(fx, "drip", 4);
	flaky = add(fx, "flaky", 3);
	queued = add(fx, "queued", 0);
	fast = add(fx, "fast", 2);
	drive(fx);
	assert_true(now_ms() - t0 >= 950);
	assert_true(now_ms() - t0 < 2500);
	assert_int_equal(settled(fx, fast)->status, SCHED_DONE);
	assert_non_null(strstr(settled(fx, fast)->body, "in time"));
	assert_deadline(settled(fx, hang), "the check's deadline of 1 s passed");
	assert_deadline(settled(fx, drip), "the check's deadline of 1 s passed");
	/* The queued task got the fast one's slot and hung until the deadline. */
	assert_deadline(settled(fx, queued), "the check's deadline of 1 s passed");
	/* 500s retried every 0.3 s until the next try would fall past the deadline. */
	assert_int_equal(settled(fx, flaky)->status, SCHED_HTTP_ERROR);
	assert_true(settled(fx, flaky)->attempts >= 2 && settled(fx, flaky)->attempts <= 4);
	assert_true(sched_deadline_passed(fx->sched));
	assert_int_equal(sched_deadline_left_ms(fx->sched), 0);
}

/* A task waiting for a slot when the deadline passes settles without a request. */
static void test_deadline_settles_queued(void **state)
{
	struct fixture *fx = *state;
	uint64_t hang, queued;

	fx->options.concurrency = 1;
	fx->options.deadline = 0.5;
	start(fx, "{\"rules\": [{\"fault\": \"hang\"}]}");
	hang = add(fx, "hang", 1);
	queued = add(fx, "queued", 0);
	assert_true(sched_deadline_left_ms(fx->sched) > 0);
	assert_true(sched_deadline_left_ms(fx->sched) <= 500);
	assert_false(sched_deadline_passed(fx->sched));
	drive(fx);
	assert_deadline(settled(fx, hang), "the check's deadline of 0.5 s passed");
	assert_deadline(settled(fx, queued), "the check's deadline of 0.5 s passed");
	assert_int_equal(settled(fx, queued)->attempts, 0);
	assert_int_equal(count_started(fx, queued), 0);
	assert_int_equal(count_requests(fx), 1);
}

/* A task added after the deadline settles at the next step, without a request. */
static void test_deadline_already_passed(void **state)
{
	struct fixture *fx = *state;
	uint64_t late;

	fx->options.deadline = 0.1;
	start(fx, "{\"default\": {\"answer\": \"too late\"}}");
	usleep(150000);
	late = add(fx, "late", 0);
	assert_int_equal(sched_timeout(fx->sched), 0);
	drive(fx);
	assert_deadline(settled(fx, late), "the check's deadline of 0.1 s passed");
	assert_int_equal(count_requests(fx), 0);
}

/* Retry-After past the deadline is not waited for: the task ends at once, saying why. */
static void test_retry_after_past_the_deadline(void **state)
{
	struct fixture *fx = *state;
	const struct sched_event *ev;
	double t0;
	uint64_t id;

	fx->options.deadline = 5;
	start(fx, "{\"rules\": [{\"status\": 429, \"headers\": {\"Retry-After\": \"100000\"}}]}");
	t0 = now_ms();   /* after the fake server's start, which a loaded machine makes slow */
	id = add(fx, "limited", 0);
	drive(fx);
	ev = settled(fx, id);
	assert_int_equal(ev->status, SCHED_TIMEOUT);
	assert_int_equal(ev->http_status, 429);
	assert_int_equal(ev->attempts, 1);
	assert_string_equal(ev->error, "HTTP 429: the server asked to retry after 100000 s, "
			    "past the check's deadline of 5 s");
	assert_true(now_ms() - t0 < 2000);
	assert_true(sched_deadline_passed(fx->sched));
	assert_int_equal(count_requests(fx), 1);
}

/* A wait that ends before the deadline is made; the deadline alone cuts nothing. */
static void test_retry_after_within_the_deadline(void **state)
{
	struct fixture *fx = *state;
	uint64_t id;

	fx->options.deadline = 10;
	fx->options.retry_after_max = 0.3;
	start(fx, "{\"rules\": [{\"then\": ["
	      "{\"status\": 429, \"headers\": {\"Retry-After\": \"100000\"}},"
	      "{\"answer\": \"ok\"}]}]}");
	id = add(fx, "limited", 0);
	drive(fx);
	assert_int_equal(settled(fx, id)->status, SCHED_DONE);
	assert_int_equal(settled(fx, id)->attempts, 2);
	assert_false(sched_deadline_passed(fx->sched));
}

static void test_fake_llm_self_test(void **state)
{
	(void)state;
	/* Its failures said (its passes left out). */
	assert_int_equal(test_sh("/", "out=$(python3 '%s/tests/fakellm/t_fake_llm.py' 2>&1) || "
				 "{ printf '%%s\\n' \"$out\" | grep -v '^ok: ' >&2; exit 1; }",
				 TEST_SOURCE_DIR), 0);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_one_task),
		T(test_limit_is_held_and_used),
		T(test_largest_first),
		T(test_retry_after_is_honoured),
		T(test_retry_after_is_capped),
		T(test_server_errors_are_retried_with_backoff),
		T(test_backoff_is_capped),
		T(test_client_error_is_final),
		T(test_client_error_hides_the_key),
		T(test_bad_request_is_not_retried),
		T(test_server_error_after_retries),
		T(test_hang_times_out),
		T(test_hang_on_a_reused_connection),
		T(test_timeout_grows_with_weight),
		T(test_reset_fails_after_retries),
		T(test_truncated_answer_is_retried),
		T(test_connection_refused),
		T(test_connect_timeout),
		T(test_url_secrets_stay_out_of_errors),
		T(test_cancel_queued_and_running),
		T(test_cancel_waiting),
		T(test_events_in_settle_order),
		T(test_sched_wait_drives_alone),
		T(test_too_few_pollfds),
		T(test_large_answer),
		T(test_odd_answers_are_the_callers_to_judge),
		T(test_free_with_work_in_flight),
		T(test_usage_errors),
		T(test_drip_times_out),
		T(test_deadline_ends_everything_left),
		T(test_deadline_settles_queued),
		T(test_deadline_already_passed),
		T(test_retry_after_past_the_deadline),
		T(test_retry_after_within_the_deadline),
		T(test_fake_llm_self_test),
	};

	/* Requests to the fake server must not go through a proxy. */
	unsetenv("http_proxy");
	unsetenv("HTTP_PROXY");
	unsetenv("all_proxy");
	unsetenv("ALL_PROXY");
	setenv("no_proxy", "*", 1);
	setenv("NO_PROXY", "*", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
