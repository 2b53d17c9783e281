/* A child process that never blocks its parent: pipes, caps, a timeout, a clean environment. */
#include "child.h"
#include "clock.h"
#include "status.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXIT_POLL_MS 20                 /* after its output closed, until it exits */
#define READ_CHUNK 65536

extern char **environ;

static child_secret_fn *secret_test;

void child_secret_set(child_secret_fn *fn)
{
	secret_test = fn;
}

/* --- the environment -------------------------------------------------------- */

static bool env_secret(const char *entry)
{
	static const char *const names[] = { "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PGPASSWORD", "REVLINE_DB" };
	const char *eq = strchr(entry, '=');
	size_t i, n;

	if (!eq)
		return false;
	n = (size_t)(eq - entry);
	for (i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (strlen(names[i]) == n && !memcmp(names[i], entry, n))
			return true;
	return secret_test && secret_test(eq + 1, strlen(eq + 1));
}

char **child_env_clean(void)
{
	size_t n = 0, k = 0, i;
	char **env;

	while (environ && environ[n])
		n++;
	if (!(env = calloc(n + 1, sizeof(*env))))
		return NULL;
	for (i = 0; i < n; i++) {
		if (env_secret(environ[i]))
			continue;
		if (!(env[k++] = strdup(environ[i]))) {
			child_env_free(env);
			return NULL;
		}
	}
	return env;
}

void child_env_free(char **env)
{
	size_t i;

	for (i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

/* --- finding the program ------------------------------------------------------ */

int child_which(struct buf *out, const char *name)
{
	const char *path = getenv("PATH"), *p, *end;

	buf_clear(out);
	if (!*name)
		return error_set(RL_ENOTFOUND, "no program named");
	if (strchr(name, '/')) {
		if (access(name, X_OK) < 0)
			return error_set(RL_ENOTFOUND, "%s: %s", name, strerror(errno));
		return buf_puts(out, name);
	}
	for (p = path && *path ? path : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		buf_clear(out);
		if (buf_printf(out, "%.*s/%s", (int)(end - p), end == p ? "." : p, name) < 0)
			return -1;
		if (access(out->ptr, X_OK) == 0)
			return 0;
	}
	buf_clear(out);
	return error_set(RL_ENOTFOUND, "%s is not on PATH", name);
}

/* --- starting it -------------------------------------------------------------- */

static int pipe_parent_nonblock(int fds[2], int parent_end)
{
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	return fcntl(fds[parent_end], F_SETFL, O_NONBLOCK);
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static void child_exec(const char *path, char *const *argv, char *const *env, const char *dir,
		       int in, int out, int err)
{
	struct sigaction dfl;
	sigset_t none;

	setpgid(0, 0);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGPIPE, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if ((dir && chdir(dir) < 0) || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(127);
	execve(path, argv, env);
	_exit(127);
}

/* The argv the child runs: its own, or sh -c COMMAND NAME ARGS... */
static char **argv_of(const struct child_options *opts)
{
	size_t n = 0, i;
	char **argv;

	if (opts->argv) {
		while (opts->argv[n])
			n++;
		if (!(argv = calloc(n + 1, sizeof(*argv))))
			return NULL;
		memcpy(argv, opts->argv, n * sizeof(*argv));
		return argv;
	}
	if (!(argv = calloc(opts->nargs + 5, sizeof(*argv))))
		return NULL;
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = (char *)opts->shell;
	argv[3] = (char *)(opts->shell_name ? opts->shell_name : "revline");
	for (i = 0; i < opts->nargs; i++)
		argv[4 + i] = (char *)opts->args[i];
	return argv;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int member_fds(void *ctx, struct pollfd *out, int max)
{
	return child_fds(ctx, out, max);
}

static int member_timeout(void *ctx)
{
	return child_timeout(ctx);
}

static int member_step(void *ctx, const struct pollfd *fds, int n)
{
	return child_step(ctx, fds, n);
}

static struct child *child_new(const struct child_options *opts)
{
	struct child *child = calloc(1, sizeof(*child));

	if (!child)
		return NULL;
	child->pid = -1;
	child->in = child->out = child->err = -1;
	child->out_max = opts->out_max ? opts->out_max : CHILD_OUT_MAX;
	child->err_max = opts->err_max ? opts->err_max : CHILD_ERR_MAX;
	child->out_stream = opts->out_stream;
	child->member.fds = member_fds;
	child->member.timeout = member_timeout;
	child->member.step = member_step;
	child->member.ctx = child;
	return child;
}

/* Fork and exec with the pipes made; the parent keeps its ends. */
static int child_fork(struct child *child, const char *path, char **argv, char **env, const char *dir,
		      bool input)
{
	int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, perr[2] = { -1, -1 }, error = 0;

	if ((input ? pipe_parent_nonblock(pin, 1) : (pin[0] = open("/dev/null", O_RDONLY | O_CLOEXEC))) < 0 ||
	    pipe_parent_nonblock(pout, 0) < 0 || pipe_parent_nonblock(perr, 0) < 0 ||
	    (child->pid = fork()) < 0) {
		error = error_set(RL_EIO, "cannot run %s: %s", path, strerror(errno));
		goto done;
	}
	if (child->pid == 0)
		child_exec(path, argv, env, dir, pin[0], pout[1], perr[1]);
	setpgid(child->pid, child->pid);        /* either side may win the race */
	child->in = pin[1];
	child->out = pout[0];
	child->err = perr[0];
	pin[1] = pout[0] = perr[0] = -1;
done:
	close_fd(&pin[0]);
	close_fd(&pin[1]);
	close_fd(&pout[0]);
	close_fd(&pout[1]);
	close_fd(&perr[0]);
	close_fd(&perr[1]);
	return error;
}

int child_start(struct child **out, const struct child_options *opts, struct poll_group *group)
{
	struct child *child = child_new(opts);
	struct buf path = BUF_INIT;
	char **argv = NULL, **env = NULL;
	int error;

	*out = NULL;
	if (!child)
		return error_nomem();
	if ((error = opts->argv ? child_which(&path, opts->argv[0]) : buf_puts(&path, "/bin/sh")) < 0)
		goto done;
	if (!(argv = argv_of(opts)) || !(env = child_env_clean())) {
		error = error_nomem();
		goto done;
	}
	if ((error = child_fork(child, path.ptr, argv, env, opts->dir, opts->input)) < 0)
		goto done;
	child->started_ms = clock_ms();
	child->deadline_ms = opts->timeout_ms > 0 ? child->started_ms + opts->timeout_ms : 0;
	if (group)
		error = poll_group_join(group, &child->member);
done:
	child_env_free(env);
	free(argv);
	buf_release(&path);
	if (error < 0) {
		child_free(child);
		return error;
	}
	*out = child;
	return 0;
}

/* --- running it ------------------------------------------------------------------ */

/* Kill the whole group and reap it (a killed child exits at once). */
static void child_kill(struct child *child, enum child_state state)
{
	if (child->state != CHILD_RUNNING)
		return;
	if (child->pid > 0) {
		kill(-child->pid, SIGKILL);
		kill(child->pid, SIGKILL);
		while (waitpid(child->pid, &child->wstatus, 0) < 0 && errno == EINTR)
			;
	}
	child->state = state;
	close_fd(&child->in);
	close_fd(&child->out);
	close_fd(&child->err);
}

void child_free(struct child *child)
{
	if (!child)
		return;
	poll_group_leave(&child->member);
	child_kill(child, CHILD_CANCELLED);
	buf_release(&child->input);
	buf_release(&child->stdout_text);
	buf_release(&child->stderr_text);
	free(child);
}

int child_write(struct child *child, const void *data, size_t len)
{
	if (child->in < 0)
		return child->state == CHILD_RUNNING && !child->input_close ?
			error_set(RL_EIO, "the program has closed its input") : 0;
	if (child->input_at && (child->input_at == child->input.len || child->input_at >= READ_CHUNK)) {
		/* What was written goes, so that a steady stream does not grow the buffer. */
		memmove(child->input.ptr, child->input.ptr + child->input_at, child->input.len - child->input_at);
		child->input.len -= child->input_at;
		child->input.ptr[child->input.len] = '\0';
		child->input_at = 0;
	}
	return buf_put(&child->input, data, len);
}

size_t child_input_pending(const struct child *child)
{
	return child->in < 0 ? 0 : child->input.len - child->input_at;
}

void child_input_close(struct child *child)
{
	child->input_close = true;
	if (child->in >= 0 && child_input_pending(child) == 0)
		close_fd(&child->in);
}

const struct buf *child_out(const struct child *child)
{
	return &child->stdout_text;
}

const struct buf *child_err(const struct child *child)
{
	return &child->stderr_text;
}

void child_out_drop(struct child *child, size_t n)
{
	struct buf *b = &child->stdout_text;

	if (n >= b->len) {
		buf_clear(b);
		return;
	}
	memmove(b->ptr, b->ptr + n, b->len - n);
	b->len -= n;
	b->ptr[b->len] = '\0';
}

bool child_out_truncated(const struct child *child)
{
	return child->out_truncated;
}

bool child_done(const struct child *child)
{
	return child->state != CHILD_RUNNING;
}

int child_exit_code(const struct child *child)
{
	if (child->state == CHILD_RUNNING || !WIFEXITED(child->wstatus) || child->state != CHILD_EXITED)
		return -1;
	return WEXITSTATUS(child->wstatus);
}

int child_signal(const struct child *child)
{
	if (child->state == CHILD_RUNNING || !WIFSIGNALED(child->wstatus))
		return 0;
	return WTERMSIG(child->wstatus);
}

void child_cancel(struct child *child)
{
	child_kill(child, CHILD_CANCELLED);
}

/* A write that cannot raise SIGPIPE in this process: the child may close its input at any time. */
static ssize_t write_quiet(int fd, const void *data, size_t len)
{
	sigset_t pipe_set, old, pending;
	struct timespec zero = { 0, 0 };
	bool was_pending;
	ssize_t n;
	int e;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	n = write(fd, data, len);
	e = errno;
	if (n < 0 && e == EPIPE && !was_pending)
		sigtimedwait(&pipe_set, NULL, &zero);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return n;
}

static void input_write(struct child *child)
{
	ssize_t n;

	while (child->in >= 0 && child_input_pending(child)) {
		n = write_quiet(child->in, child->input.ptr + child->input_at, child_input_pending(child));
		if (n > 0) {
			child->input_at += (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		close_fd(&child->in);   /* it closed its input: what is left is not for it */
	}
	if (child->in >= 0 && child->input_close)
		close_fd(&child->in);
}

static bool out_full(const struct child *child)
{
	return child->out_stream && child->stdout_text.len >= child->out_max;
}

static void output_read(struct child *child, int *fd, struct buf *text, size_t max, bool *truncated)
{
	char chunk[READ_CHUNK];
	ssize_t n;

	while (*fd >= 0 && !(fd == &child->out && out_full(child))) {
		size_t want = sizeof(chunk);

		if (fd == &child->out && child->out_stream && max - text->len < want)
			want = max - text->len;         /* a stream takes no more than it keeps */
		n = read(*fd, chunk, want);
		if (n > 0) {
			size_t room = text->len < max ? max - text->len : 0, keep = (size_t)n < room ? (size_t)n : room;

			if (keep && buf_put(text, chunk, keep) < 0)
				keep = 0;
			if (keep < (size_t)n)
				*truncated = true;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		close_fd(fd);
	}
}

int child_fds(struct child *child, struct pollfd *out, int max)
{
	int n = 0;

	if (child->state != CHILD_RUNNING)
		return 0;
	if (child->in >= 0 && child_input_pending(child) && n < max)
		out[n++] = (struct pollfd){ child->in, POLLOUT, 0 };
	if (child->out >= 0 && !out_full(child) && n < max)
		out[n++] = (struct pollfd){ child->out, POLLIN, 0 };
	if (child->err >= 0 && n < max)
		out[n++] = (struct pollfd){ child->err, POLLIN, 0 };
	return n;
}

int child_timeout(struct child *child)
{
	int64_t left;

	if (child->state != CHILD_RUNNING)
		return -1;
	if (child->out < 0 && child->err < 0)
		return EXIT_POLL_MS;
	if (!child->deadline_ms)
		return -1;
	left = child->deadline_ms - clock_ms();
	return left < 0 ? 0 : (int)(left > 1000000 ? 1000000 : left);
}

int child_step(struct child *child, const struct pollfd *fds, int n)
{
	(void)fds;
	(void)n;
	if (child->state != CHILD_RUNNING)
		return 0;
	input_write(child);
	output_read(child, &child->out, &child->stdout_text, child->out_max, &child->out_truncated);
	output_read(child, &child->err, &child->stderr_text, child->err_max, &child->err_truncated);
	if (child->out < 0 && child->err < 0 && waitpid(child->pid, &child->wstatus, WNOHANG) == child->pid) {
		child->state = CHILD_EXITED;
		close_fd(&child->in);
		return 0;
	}
	if (child->deadline_ms && clock_ms() >= child->deadline_ms)
		child_kill(child, CHILD_TIMEOUT);
	return 0;
}

int child_wait(struct child *child, int max_ms)
{
	if (child->state != CHILD_RUNNING)
		return 0;
	return poll_member_wait(&child->member, max_ms);
}
