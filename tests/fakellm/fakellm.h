#ifndef REVLINE_FAKELLM_H
#define REVLINE_FAKELLM_H

/*
 * The fake LLM server (fake_llm.py beside this file) from a cmocka test:
 * start it on a free port with a script, read its log, stop it. Header-only
 * (static inline) so that any test can include "fakellm/fakellm.h" without
 * a change to the build; jansson comes with the engine.
 */
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct fakellm {
	pid_t pid;
	int port;
	char *dir;              /* script.json, log.jsonl, port, stderr */
	char url[64];           /* http://127.0.0.1:PORT, no trailing slash */
};

static inline char *fakellm_path(const struct fakellm *f, const char *name)
{
	char *path;

	if (asprintf(&path, "%s/%s", f->dir, name) < 0)
		fail_msg("out of memory");
	return path;
}

static inline void fakellm_exec(const struct fakellm *f)
{
	char *script = fakellm_path(f, "script.json"), *log = fakellm_path(f, "log.jsonl");
	char *port = fakellm_path(f, "port"), *err = fakellm_path(f, "stderr");
	int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
	}
	execlp("python3", "python3", TEST_SOURCE_DIR "/tests/fakellm/fake_llm.py",
	       "--script", script, "--log", log, "--port-file", port, (char *)NULL);
	_exit(127);
}

/* Start the server with a script (JSON text); fails the test when it cannot. */
static inline void fakellm_start(struct fakellm *f, const char *script)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	struct buf text = BUF_INIT;
	int i, status;

	memset(f, 0, sizeof(*f));
	f->dir = test_tmpdir("fakellm");
	test_write_str(f->dir, "script.json", script);
	f->pid = fork();
	if (f->pid < 0)
		fail_msg("fork: %s", strerror(errno));
	if (f->pid == 0)
		fakellm_exec(f);
	for (i = 0; i < 1000; i++) {
		char *port = fakellm_path(f, "port");
		bool ready = access(port, R_OK) == 0;

		free(port);
		if (ready)
			break;
		if (waitpid(f->pid, &status, WNOHANG) == f->pid) {
			f->pid = 0;
			test_read(&text, f->dir, "stderr");
			fail_msg("the fake LLM server exited: %s", text.ptr ? text.ptr : "");
		}
		nanosleep(&tick, NULL);
	}
	test_read(&text, f->dir, "port");
	f->port = atoi(text.ptr ? text.ptr : "0");
	buf_release(&text);
	assert_true(f->port > 0);
	snprintf(f->url, sizeof(f->url), "http://127.0.0.1:%d", f->port);
}

static inline void fakellm_stop(struct fakellm *f)
{
	if (f->pid > 0) {
		kill(f->pid, SIGTERM);
		waitpid(f->pid, NULL, 0);
		f->pid = 0;
	}
	if (f->dir) {
		test_rmtree(f->dir);
		free(f->dir);
		f->dir = NULL;
	}
}

/*
 * The requests the server saw, in arrival order: a JSON array of objects
 * (n, method, path, start, end, status, fault, rule, step, model,
 * response_format, body_bytes, authorization, user_agent, body...), each
 * the last line logged for its n.
 */
static inline json_t *fakellm_requests(const struct fakellm *f)
{
	char *path = fakellm_path(f, "log.jsonl");
	FILE *in = fopen(path, "r");
	json_t *all = json_array();
	char *line = NULL;
	size_t cap = 0;

	while (in && getline(&line, &cap, in) > 0) {
		json_t *rec = json_loads(line, 0, NULL);
		json_int_t n = json_integer_value(json_object_get(rec, "n"));

		if (rec && n >= 1) {
			while ((json_int_t)json_array_size(all) < n)
				json_array_append_new(all, json_object());
			json_object_update(json_array_get(all, (size_t)n - 1), rec);
		}
		json_decref(rec);
	}
	free(line);
	if (in)
		fclose(in);
	free(path);
	return all;
}

static inline double fakellm_number(const json_t *rec, const char *key)
{
	return json_number_value(json_object_get(rec, key));
}

/* The most requests in progress at one moment (an unfinished one never ends). */
static inline int fakellm_max_concurrency(const json_t *requests)
{
	size_t i, j, n = json_array_size(requests);
	int best = 0;

	/* At each arrival, count who else was in progress: n is small in tests. */
	for (i = 0; i < n; i++) {
		double t = fakellm_number(json_array_get(requests, i), "start");
		int now = 0;

		for (j = 0; j < n; j++) {
			const json_t *r = json_array_get(requests, j);
			const json_t *end = json_object_get(r, "end");

			if (fakellm_number(r, "start") <= t &&
			    (!json_is_number(end) || json_number_value(end) > t))
				now++;
		}
		if (now > best)
			best = now;
	}
	return best;
}

#endif
