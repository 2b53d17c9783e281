#include "testlib.h"
#include "ask.h"
#include "index.h"
#include "status.h"
#include "clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int commit_counter;

char *test_tmpdir(const char *tag)
{
	const char *tmp = getenv("TMPDIR");
	char *path;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	if (asprintf(&path, "%s/revline-%s-XXXXXX", tmp, tag) < 0)
		fail_msg("out of memory");
	if (!mkdtemp(path))
		fail_msg("mkdtemp %s failed", path);
	return path;
}

void test_rmtree(const char *dir)
{
	char *cmd;

	if (!dir || strncmp(dir, "/tmp", 4) != 0 || strstr(dir, "revline-") == NULL)
		return;
	if (asprintf(&cmd, "rm -rf '%s'", dir) < 0)
		return;
	if (system(cmd) != 0)
		print_message("could not remove %s\n", dir);
	free(cmd);
}

static char *command_line(const char *dir, const char *fmt, va_list ap)
{
	struct buf cmd = BUF_INIT;

	buf_printf(&cmd,
		"cd '%s' && export GIT_CONFIG_NOSYSTEM=1 HOME='%s' "
		"GIT_AUTHOR_NAME='Test Author' GIT_AUTHOR_EMAIL=author@example.com "
		"GIT_COMMITTER_NAME='Test Author' GIT_COMMITTER_EMAIL=author@example.com "
		"GIT_AUTHOR_DATE='@%d +0000' GIT_COMMITTER_DATE='@%d +0000' && ",
		dir, dir, 1700000000 + commit_counter * 60, 1700000000 + commit_counter * 60);
	buf_vprintf(&cmd, fmt, ap);
	return buf_detach(&cmd);
}

int test_sh(const char *dir, const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int status;

	va_start(ap, fmt);
	cmd = command_line(dir, fmt, ap);
	va_end(ap);
	status = system(cmd);
	free(cmd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void test_sh_ok(const char *dir, const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int status;

	va_start(ap, fmt);
	cmd = command_line(dir, fmt, ap);
	va_end(ap);
	status = system(cmd);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("command failed (%d): %s", status, cmd);
	free(cmd);
}

char *test_capture(const char *dir, const char *fmt, ...)
{
	struct buf out = BUF_INIT;
	char chunk[65536];
	va_list ap;
	char *cmd;
	FILE *fp;
	size_t n;

	va_start(ap, fmt);
	cmd = command_line(dir, fmt, ap);
	va_end(ap);
	fp = popen(cmd, "r");
	if (!fp)
		fail_msg("popen failed: %s", cmd);
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		buf_put(&out, chunk, n);
	if (pclose(fp) != 0)
		fail_msg("command failed: %s", cmd);
	free(cmd);
	return buf_detach(&out);
}

void test_write(const char *dir, const char *rel, const void *data, size_t len)
{
	char *path, *slash;
	FILE *fp;

	if (asprintf(&path, "%s/%s", dir, rel) < 0)
		fail_msg("out of memory");
	for (slash = strchr(path + strlen(dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	fp = fopen(path, "wb");
	if (!fp)
		fail_msg("cannot write %s", path);
	if (len && fwrite(data, 1, len, fp) != len)
		fail_msg("short write to %s", path);
	fclose(fp);
	free(path);
}

void test_write_str(const char *dir, const char *rel, const char *text)
{
	test_write(dir, rel, text, strlen(text));
}

void test_read(struct buf *out, const char *dir, const char *rel)
{
	char *path;

	if (asprintf(&path, "%s/%s", dir, rel) < 0)
		fail_msg("out of memory");
	if (buf_read_file(out, path) < 0)
		fail_msg("cannot read %s", path);
	free(path);
}

char *test_repo_new(const char *tag)
{
	char *dir = test_tmpdir(tag);

	test_sh_ok(dir, "git init -q -b main . && git config user.name 'Test Author' && "
		"git config user.email author@example.com && git config core.autocrlf false");
	return dir;
}

void test_commit(const char *dir, const char *message)
{
	test_sh_ok(dir, "git add -A && git commit -q --allow-empty -m '%s'", message);
	commit_counter++;
}

void test_env_private(void)
{
	static const char *const unset[] = {
		"XDG_CONFIG_HOME", "REVLINE_PROVIDER", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL",
		"REVLINE_OSV_URL", "REVLINE_DEADLINE",
	};
	size_t i;

	for (i = 0; i < sizeof(unset) / sizeof(unset[0]); i++)
		unsetenv(unset[i]);
	setenv("HOME", "/nonexistent-revline-home", 1);
	setenv("REVLINE_DATADIR", TEST_SOURCE_DIR "/share", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("OPENAI_API_KEY", "sk-test", 1);
	setenv("REVLINE_MODEL", "fake-model", 1);
}

struct test_home *test_home_new(const char *tag)
{
	struct test_home *h = calloc(1, sizeof(*h));
	char path[4096];

	snprintf(path, sizeof(path), "%s-home", tag);
	h->home = test_tmpdir(path);
	h->repo = test_repo_new(tag);
	h->saved_cwd = getcwd(NULL, 0);
	snprintf(path, sizeof(path), "%s/.config", h->home);
	setenv("HOME", h->home, 1);
	setenv("XDG_CONFIG_HOME", path, 1);
	snprintf(path, sizeof(path), "%s/.local/share", h->home);
	setenv("XDG_DATA_HOME", path, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	unsetenv("REVLINE_BASE_URL");
	unsetenv("REVLINE_THEME");
	unsetenv("REVLINE_CONCURRENCY");
	return h;
}

int test_home_free(struct test_home *h)
{
	int rc = chdir(h->saved_cwd);

	test_rmtree(h->home);
	test_rmtree(h->repo);
	free(h->home);
	free(h->repo);
	free(h->saved_cwd);
	free(h);
	return rc < 0 ? -1 : 0;
}

void test_ask_end(struct asker *a, struct ask_event *out, int *progress_turns)
{
	int64_t until = clock_ms() + 60000;
	struct ask_event ev;
	int last = 0;

	for (;;) {
		while (asker_next(a, &ev)) {
			if (ev.status != ASK_STARTED && ev.status != ASK_PROGRESS) {
				*out = ev;
				if (progress_turns)
					*progress_turns = last;
				return;
			}
			if (ev.status == ASK_PROGRESS && ev.tool_turns > last)
				last = ev.tool_turns;
			ask_event_release(&ev);
		}
		assert_true(clock_ms() < until);
		assert_int_equal(asker_wait(a, 100), 0);
	}
}

struct index *test_index_build(const struct index_options *opts)
{
	struct index *index = NULL;
	int64_t until = clock_ms() + 30000;

	if (index_new(&index, opts) < 0 || index_start(index, NULL) < 0)
		fail_msg("index: %s", error_message());
	while (!index_done(index) && clock_ms() < until)
		assert_int_equal(index_wait(index, 1000), 0);
	assert_true(index_done(index));
	if (index_status(index) < 0)
		fail_msg("index: %s", index_message(index));
	return index;
}
