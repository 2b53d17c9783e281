#ifndef REVLINE_CHILD_H
#define REVLINE_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "poll_group.h"

/*
 * The one way the engine runs another program: a child process that never
 * blocks its parent. It is a poll-group member (poll_group.h) with its
 * pipes, or it is stepped by the module that owns it (child_fds,
 * child_timeout, child_step from that module's own member, as a linter run
 * steps its linters).
 *
 * The program runs from argv (no shell; argv[0] found on PATH unless it
 * holds a '/'), or as a shell command: sh -c COMMAND NAME ARGS..., the
 * arguments in "$@", so that nothing is quoted by hand. It runs in its own
 * process group in dir, with an environment without revline's secrets
 * (child_env_clean). What is queued with child_write goes to its standard
 * input as the pipe takes it (no input: /dev/null). Its standard output and
 * error are kept up to their caps; past a cap the rest is read and dropped
 * (truncated says so), or, for a stream the owner drains with
 * child_out_drop, no more is read until there is room again. After
 * timeout_ms it is killed (CHILD_TIMEOUT); child_cancel kills it at once.
 * Every child is reaped: the state says how it ended.
 */

struct child_options {
	const char *const *argv;        /* NULL-terminated; or NULL with shell */
	const char *shell;              /* a shell command (sh -c), args in "$@" */
	const char *shell_name;         /* its $0 (default "revline") */
	const char *const *args;        /* the shell command's arguments */
	size_t nargs;
	const char *dir;                /* where it runs; NULL: here */
	bool input;                     /* a pipe to its standard input (else /dev/null) */
	size_t out_max, err_max;        /* what is kept of each (0: CHILD_OUT_MAX, CHILD_ERR_MAX) */
	bool out_stream;                /* a full stdout waits for child_out_drop instead of dropping */
	int timeout_ms;                 /* 0: none */
};

#define CHILD_OUT_MAX (64u << 20)
#define CHILD_ERR_MAX (64u << 10)

enum child_state {
	CHILD_RUNNING,
	CHILD_EXITED,           /* it exited, or a signal ended it: child_exit_code, child_signal */
	CHILD_TIMEOUT,          /* killed after timeout_ms */
	CHILD_CANCELLED,        /* killed by child_cancel */
};

struct child {
	enum child_state state;
	pid_t pid;
	int in, out, err;               /* the parent's ends; -1 once closed */
	struct buf input;               /* queued for its standard input */
	size_t input_at;                /* how much of input was written */
	bool input_close;               /* close its standard input once input is written */
	struct buf stdout_text, stderr_text;
	size_t out_max, err_max;
	bool out_stream, out_truncated, err_truncated;
	int wstatus;
	int64_t started_ms, deadline_ms;
	struct poll_member member;      /* its callbacks; in a group when it joined one */
};

/*
 * Start it; group NULL: its owner steps it (or child_wait does). A program
 * that is not found or cannot run is RL_ENOTFOUND / RL_EIO naming it, and
 * no child is made. The environment is cleaned in the parent, before the
 * fork.
 */
int child_start(struct child **out, const struct child_options *opts, struct poll_group *group);
/* Kill it if it still runs, reap it, close and free everything. */
void child_free(struct child *child);

/* Queue bytes for its standard input (options.input); written as the pipe takes them. */
int child_write(struct child *child, const void *data, size_t len);
/* How many queued bytes it has not read yet. */
size_t child_input_pending(const struct child *child);
/* Close its standard input once what is queued is written (end of input). */
void child_input_close(struct child *child);

/* What it printed so far (kept up to the caps). */
const struct buf *child_out(const struct child *child);
const struct buf *child_err(const struct child *child);
/* The first n bytes of its output handled by the owner (a stream): dropped, making room. */
void child_out_drop(struct child *child, size_t n);
bool child_out_truncated(const struct child *child);

/* Whether it ended (exited, killed) and its output is all read. */
bool child_done(const struct child *child);
/* Its exit status, or -1 when a signal ended it (or it did not end). */
int child_exit_code(const struct child *child);
/* The signal that ended it, or 0. */
int child_signal(const struct child *child);
/* Kill it (its whole process group) and reap it: CHILD_CANCELLED. */
void child_cancel(struct child *child);

/* For an owner that steps it from its own poll-group member. */
int child_fds(struct child *child, struct pollfd *out, int max);
int child_timeout(struct child *child);
int child_step(struct child *child, const struct pollfd *fds, int n);
/* Wait up to max_ms for it alone (not the rest of its group) and step it. */
int child_wait(struct child *child, int max_ms);

/*
 * The program's full path: name itself when it holds a '/' (and may be
 * run), else the first executable NAME on PATH (/usr/bin:/bin without
 * one). RL_ENOTFOUND when there is none.
 */
int child_which(struct buf *out, const char *name);

/*
 * The environment a child gets: this process's, without the variables
 * that carry revline's secrets (OPENAI_API_KEY, ANTHROPIC_API_KEY,
 * PGPASSWORD, REVLINE_DB: a key, or a database location with its
 * password) and without any variable whose value holds a secret the
 * process knows (child_secret_set). A NULL-terminated array the caller
 * frees with child_env_free.
 */
char **child_env_clean(void);
void child_env_free(char **env);

/* Whether a text holds one of the process's secrets: secret.c registers it with its first secret. */
typedef bool child_secret_fn(const char *s, size_t len);
void child_secret_set(child_secret_fn *fn);

#endif
