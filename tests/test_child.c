/* Child processes: argv and shell, input and output without blocking, caps, timeout, cancel, environment. */
#include "testlib.h"

#include "child.h"
#include "clock.h"
#include "poll_group.h"
#include "secret.h"
#include "status.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Wait for it (at most 10 s), failing the test when it does not end. */
static void wait_done(struct child *child)
{
	int64_t until = clock_ms() + 10000;

	while (!child_done(child) && clock_ms() < until)
		assert_int_equal(child_wait(child, 100), 0);
	assert_true(child_done(child));
}

static struct child *run_argv(const char *const *argv, struct child_options *opts)
{
	struct child *child = NULL;

	opts->argv = argv;
	if (child_start(&child, opts, NULL) < 0)
		fail_msg("child_start: %s", error_message());
	return child;
}

static void test_argv_output_status(void **state)
{
	const char *const argv[] = { "sh", "-c", "printf 'out\\n'; printf 'err\\n' >&2; exit 3", NULL };
	struct child_options opts = { 0 };
	struct child *child = run_argv(argv, &opts);

	(void)state;
	wait_done(child);
	assert_int_equal(child->state, CHILD_EXITED);
	assert_int_equal(child_exit_code(child), 3);
	assert_int_equal(child_signal(child), 0);
	assert_string_equal(child_out(child)->ptr, "out\n");
	assert_string_equal(child_err(child)->ptr, "err\n");
	child_free(child);
}

static void test_shell_args_and_dir(void **state)
{
	const char *const args[] = { "a file", "it's \"quoted\"", "$HOME" };
	struct child_options opts = { .shell = "pwd; printf '[%s]\\n' \"$@\"; echo \"$0\"", .shell_name = "me",
				      .args = args, .nargs = 3, .dir = "/" };
	struct child *child = NULL;

	(void)state;
	assert_int_equal(child_start(&child, &opts, NULL), 0);
	wait_done(child);
	assert_int_equal(child_exit_code(child), 0);
	assert_string_equal(child_out(child)->ptr, "/\n[a file]\n[it's \"quoted\"]\n[$HOME]\nme\n");
	child_free(child);
}

/* A megabyte in and out at once: neither side waits for the other to finish. */
static void test_input_both_ways(void **state)
{
	const char *const argv[] = { "cat", NULL };
	struct child_options opts = { .input = true };
	struct child *child;
	size_t n = 1 << 20, i;
	char *data = malloc(n);

	(void)state;
	assert_non_null(data);
	for (i = 0; i < n; i++)
		data[i] = (char)('a' + i % 26);
	child = run_argv(argv, &opts);
	assert_int_equal(child_write(child, data, n), 0);
	assert_true(child_input_pending(child) > 0);
	child_input_close(child);
	wait_done(child);
	assert_int_equal(child_exit_code(child), 0);
	assert_int_equal(child_out(child)->len, n);
	assert_memory_equal(child_out(child)->ptr, data, n);
	assert_int_equal(child_input_pending(child), 0);
	child_free(child);
	free(data);
}

/* A child that reads nothing and exits: the input left over is dropped, and no SIGPIPE kills us. */
static void test_input_refused(void **state)
{
	const char *const argv[] = { "true", NULL };
	struct child_options opts = { .input = true };
	struct child *child;
	char big[65536];

	(void)state;
	memset(big, 'x', sizeof(big));
	child = run_argv(argv, &opts);
	for (int i = 0; i < 16; i++)
		assert_int_equal(child_write(child, big, sizeof(big)), 0);
	wait_done(child);
	assert_int_equal(child_exit_code(child), 0);
	assert_int_equal(child_input_pending(child), 0);
	child_free(child);
}

static void test_caps(void **state)
{
	const char *const argv[] = { "sh", "-c", "head -c 100000 /dev/zero; head -c 5000 /dev/zero >&2", NULL };
	struct child_options opts = { .out_max = 1000, .err_max = 10 };
	struct child *child = run_argv(argv, &opts);

	(void)state;
	wait_done(child);
	assert_int_equal(child_exit_code(child), 0);       /* it was read to the end: it finished */
	assert_int_equal(child_out(child)->len, 1000);
	assert_int_equal(child_err(child)->len, 10);
	assert_true(child_out_truncated(child));
	child_free(child);
}

/* A stream: a full buffer waits for the owner to drain it, and nothing is lost. */
static void test_stream(void **state)
{
	const char *const argv[] = { "sh", "-c", "seq 1 20000", NULL };
	struct child_options opts = { .out_max = 4096, .out_stream = true };
	struct child *child = run_argv(argv, &opts);
	struct buf all = BUF_INIT;
	int64_t until = clock_ms() + 10000;
	char *expect;

	(void)state;
	while (!child_done(child) && clock_ms() < until) {
		assert_int_equal(child_wait(child, 100), 0);
		assert_true(child_out(child)->len <= 4096 + 65536);
		buf_put(&all, child_out(child)->ptr ? child_out(child)->ptr : "", child_out(child)->len);
		child_out_drop(child, child_out(child)->len);
	}
	assert_true(child_done(child));
	buf_put(&all, child_out(child)->ptr ? child_out(child)->ptr : "", child_out(child)->len);
	assert_false(child_out_truncated(child));
	expect = test_capture("/", "seq 1 20000");
	assert_string_equal(all.ptr, expect);
	free(expect);
	buf_release(&all);
	child_free(child);
}

/* No such process, or a zombie waiting for a parent that is not ours (a container's init may not reap). */
static bool gone(pid_t pid)
{
	char path[64], text[512], *close_paren;
	FILE *f;
	size_t n;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return true;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	close_paren = strrchr(text, ')');
	return close_paren && close_paren[1] == ' ' && close_paren[2] == 'Z';
}

static void test_timeout_and_cancel(void **state)
{
	const char *const argv[] = { "sleep", "30", NULL };
	struct child_options opts = { .timeout_ms = 200 };
	struct child *child = run_argv(argv, &opts);
	int64_t start = clock_ms();
	pid_t pid = child->pid;

	(void)state;
	wait_done(child);
	assert_true(clock_ms() - start < 5000);
	assert_int_equal(child->state, CHILD_TIMEOUT);
	assert_int_equal(child_exit_code(child), -1);
	assert_int_equal(child_signal(child), SIGKILL);
	assert_true(gone(pid));
	child_free(child);

	/* Cancel kills its whole group (the shell's own child too) and reaps it. */
	{
		const char *const sh[] = { "sh", "-c", "sleep 30 & echo $!; wait", NULL };
		struct child_options o = { 0 };
		pid_t inner;

		child = run_argv(sh, &o);
		while (!strchr(child_out(child)->ptr ? child_out(child)->ptr : "", '\n'))
			assert_int_equal(child_wait(child, 1000), 0);
		inner = (pid_t)atoi(child_out(child)->ptr);
		pid = child->pid;
		child_cancel(child);
		assert_int_equal(child->state, CHILD_CANCELLED);
		assert_true(child_done(child));
		assert_true(gone(pid));
		for (int i = 0; i < 100 && !gone(inner); i++)
			usleep(10000);
		assert_true(gone(inner));
		child_free(child);
	}
}

static void test_not_found(void **state)
{
	const char *const argv[] = { "no-such-program-revline", NULL };
	struct child_options opts = { .argv = argv };
	struct child *child = (struct child *)1;

	(void)state;
	assert_int_equal(child_start(&child, &opts, NULL), RL_ENOTFOUND);
	assert_null(child);
	assert_non_null(strstr(error_message(), "no-such-program-revline is not on PATH"));
}

static void test_environment_clean(void **state)
{
	const char *const argv[] = { "env", NULL };
	struct child_options opts = { 0 };
	struct child *child;

	(void)state;
	setenv("OPENAI_API_KEY", "sk-test-environment-key", 1);
	setenv("ANTHROPIC_API_KEY", "sk-ant-another", 1);
	setenv("REVLINE_TEST_COPY", "prefix sk-command-key-1234567 suffix", 1);
	setenv("REVLINE_TEST_KEEP", "kept", 1);
	assert_int_equal(secret_add("sk-command-key-1234567"), 0);
	child = run_argv(argv, &opts);
	wait_done(child);
	assert_int_equal(child_exit_code(child), 0);
	assert_null(strstr(child_out(child)->ptr, "OPENAI_API_KEY"));
	assert_null(strstr(child_out(child)->ptr, "ANTHROPIC_API_KEY"));
	assert_null(strstr(child_out(child)->ptr, "sk-command-key"));
	assert_non_null(strstr(child_out(child)->ptr, "REVLINE_TEST_KEEP=kept\n"));
	assert_non_null(strstr(child_out(child)->ptr, "PATH="));
	child_free(child);
	secret_clear();
	unsetenv("OPENAI_API_KEY");
	unsetenv("ANTHROPIC_API_KEY");
	unsetenv("REVLINE_TEST_COPY");
	unsetenv("REVLINE_TEST_KEEP");
}

/* A member of a group: the group's wait steps it with the others. */
static void test_in_group(void **state)
{
	const char *const argv[] = { "sh", "-c", "sleep 0.1; echo done", NULL };
	struct child_options opts = { .argv = argv };
	struct poll_group group = POLL_GROUP_INIT;
	struct child *child = NULL;
	int64_t until = clock_ms() + 10000;

	(void)state;
	assert_int_equal(child_start(&child, &opts, &group), 0);
	assert_ptr_equal(child->member.group, &group);
	while (!child_done(child) && clock_ms() < until)
		assert_int_equal(poll_group_wait(&group, 1000), 0);
	assert_string_equal(child_out(child)->ptr, "done\n");
	child_free(child);
	assert_int_equal(group.count, 0);
	poll_group_release(&group);
}

static void test_which(void **state)
{
	struct buf path = BUF_INIT;

	(void)state;
	assert_int_equal(child_which(&path, "sh"), 0);
	assert_true(path.ptr[0] == '/' && strstr(path.ptr, "/sh"));
	assert_int_equal(child_which(&path, "/nonexistent/prog"), RL_ENOTFOUND);
	buf_release(&path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv_output_status),
		cmocka_unit_test(test_shell_args_and_dir),
		cmocka_unit_test(test_input_both_ways),
		cmocka_unit_test(test_input_refused),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_timeout_and_cancel),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_environment_clean),
		cmocka_unit_test(test_in_group),
		cmocka_unit_test(test_which),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
