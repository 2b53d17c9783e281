/* Linters: which run, their processes and output, failures, and the signals kept. */
#include "testlib.h"
#include "testlib/store.h"

#include "config.h"
#include "lint.h"
#include "repo.h"
#include "signals.h"
#include "status.h"
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmp, *bin, *old_path;
static struct store *store;

/* A fake tool on PATH: a script that prints what it is given and a canned answer. */
static void fake_tool(const char *name, const char *body)
{
	char rel[256], text[4096], path[4096];

	snprintf(rel, sizeof(rel), "bin/%s", name);
	snprintf(text, sizeof(text), "#!/bin/sh\n%s\n", body);
	test_write_str(tmp, rel, text);
	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	assert_int_equal(chmod(path, 0755), 0);
}

static int setup(void **state)
{
	char *path;

	(void)state;
	tmp = test_tmpdir("lint");
	test_sh_ok(tmp, "mkdir -p bin work/src && printf 'x = 1\\n' >work/src/a.py && "
		   "printf 'echo $1\\n' >work/run.sh && printf 'int x;\\n' >work/m.c");
	if (asprintf(&bin, "%s/bin", tmp) < 0)
		fail_msg("out of memory");
	/* Before PATH is the fakes' only: PostgreSQL's server starts through bash (testlib/store.h). */
	path = test_store_location(tmp, "revline.db");
	old_path = strdup(getenv("PATH"));
	/* Only the fake tools: no real linter is found (the fakes use shell builtins). */
	setenv("PATH", bin, 1);
	if (store_open(&store, path) < 0)
		fail_msg("store_open: %s", error_message());
	free(path);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	setenv("PATH", old_path, 1);
	free(old_path);
	store_close(store);
	test_rmtree(tmp);
	free(tmp);
	free(bin);
	return 0;
}

static const struct lint_result *result_of(struct lint *lint, enum linter which)
{
	size_t i;

	for (i = 0; i < lint_count(lint); i++)
		if (lint_result(lint, i)->linter == which)
			return lint_result(lint, i);
	fail_msg("no result for %s", linter_name(which));
	return NULL;
}

static struct lint *run_lint(const char *const *files, size_t n, const char *only)
{
	struct lint *lint = NULL;
	char work[4096];

	snprintf(work, sizeof(work), "%s/work/", tmp);
	if (lint_new(&lint, work, NULL, files, n, only) < 0 || lint_start(lint, NULL) < 0)
		fail_msg("lint: %s", error_message());
	while (!lint_done(lint))
		assert_int_equal(lint_wait(lint, 1000), 0);
	return lint;
}

static void test_installed_and_files(void **state)
{
	static const char *const files[] = { "src/a.py", "run.sh", "m.c" };
	const struct lint_result *r;
	struct lint *lint;

	(void)state;
	fake_tool("flake8", "for f; do case $f in -*) ;; *) echo \"$f:1:1: F401 'os' imported but unused\";; "
		  "esac; done");
	fake_tool("shellcheck", "echo '{\"comments\": []}'; echo \"$@\" >\"$0.args\"");
	lint = run_lint(files, 3, NULL);
	/* ruff, mypy, bandit and cppcheck are not on PATH here. */
	assert_int_equal(result_of(lint, LINT_RUFF)->status, LINT_NOT_INSTALLED);
	assert_int_equal(result_of(lint, LINT_MYPY)->status, LINT_NOT_INSTALLED);
	assert_int_equal(result_of(lint, LINT_CPPCHECK)->status, LINT_NOT_INSTALLED);
	r = result_of(lint, LINT_FLAKE8);
	assert_int_equal(r->status, LINT_DONE);
	assert_int_equal(r->nfiles, 1);         /* only the Python file */
	assert_int_equal(r->signals.count, 1);
	assert_string_equal(r->signals.items[0].file, "src/a.py");
	assert_string_equal(r->signals.items[0].code, "F401");
	assert_string_equal(r->signals.items[0].tool, "flake8");
	r = result_of(lint, LINT_SHELLCHECK);
	assert_int_equal(r->status, LINT_DONE);
	assert_int_equal(r->signals.count, 0);
	lint_free(lint);
	{
		struct buf args = BUF_INIT;

		test_read(&args, tmp, "bin/shellcheck.args");
		assert_string_equal(args.ptr, "-f json1 run.sh\n");
		buf_release(&args);
	}
}

static void test_flake8_only_without_ruff(void **state)
{
	static const char *const files[] = { "src/a.py" };
	struct lint *lint;

	(void)state;
	fake_tool("flake8", "echo 'src/a.py:1:1: F401 x'");
	fake_tool("ruff", "echo '[]'");
	lint = run_lint(files, 1, NULL);
	assert_int_equal(result_of(lint, LINT_RUFF)->status, LINT_DONE);
	assert_int_equal(result_of(lint, LINT_FLAKE8)->status, LINT_NO_FILES);
	lint_free(lint);
	/* Asked for by name, flake8 runs. */
	lint = run_lint(files, 1, "flake8");
	assert_int_equal(lint_count(lint), 1);
	assert_int_equal(result_of(lint, LINT_FLAKE8)->status, LINT_DONE);
	lint_free(lint);
}

static void test_failures(void **state)
{
	static const char *const files[] = { "src/a.py" };
	const struct lint_result *r;
	struct lint *lint = NULL;
	char work[4096];

	(void)state;
	fake_tool("flake8", "echo 'flake8: cannot read the configuration' >&2; exit 3");
	lint = run_lint(files, 1, "flake8");
	r = result_of(lint, LINT_FLAKE8);
	assert_int_equal(r->status, LINT_FAILED);
	assert_int_equal(r->exit_code, 3);
	assert_string_equal(r->message, "flake8 exited with status 3: flake8: cannot read the configuration");
	lint_free(lint);
	/* Exit 1 with signals is the normal "found something". */
	fake_tool("flake8", "echo 'src/a.py:1:1: F401 x'; exit 1");
	lint = run_lint(files, 1, "flake8");
	assert_int_equal(result_of(lint, LINT_FLAKE8)->status, LINT_DONE);
	lint_free(lint);
	/* Not installed and asked for by name: said at once. */
	snprintf(work, sizeof(work), "%s/work/", tmp);
	assert_int_equal(lint_new(&lint, work, NULL, files, 1, "mypy"), RL_ECONFIG);
	assert_non_null(strstr(error_message(), "mypy is not installed"));
	assert_int_equal(lint_new(&lint, work, NULL, files, 1, "pylint"), RL_EUSAGE);
	assert_null(lint);
}

static void test_cancel(void **state)
{
	static const char *const files[] = { "src/a.py" };
	struct lint *lint = NULL;
	char work[4096];

	(void)state;
	fake_tool("flake8", "exec /bin/sleep 30");
	snprintf(work, sizeof(work), "%s/work/", tmp);
	assert_int_equal(lint_new(&lint, work, NULL, files, 1, "flake8"), 0);
	assert_int_equal(lint_start(lint, NULL), 0);
	lint_wait(lint, 100);
	assert_false(lint_done(lint));
	lint_cancel(lint);
	assert_true(lint_done(lint));
	assert_int_equal(lint_result(lint, 0)->status, LINT_FAILED);
	lint_free(lint);
}

/* The user's command from git config, with the files where it says {files}. */
static void test_user_command(void **state)
{
	static const char *const files[] = { "src/a.py" };
	struct config *config = NULL;
	struct repo *repo = NULL;
	struct lint *lint = NULL;
	char work[4096];

	(void)state;
	setenv("PATH", old_path, 1);
	test_sh_ok(tmp, "cd work && git init -q && git config revline.lint.mypy "
		   "\"printf '%%s:2: error: Bad {files} [misc]\\\\n' {files}\"");
	setenv("PATH", bin, 1);
	snprintf(work, sizeof(work), "%s/work", tmp);
	if (repo_open(&repo, work) < 0 || config_open(&config, repo) < 0)
		fail_msg("%s", error_message());
	assert_int_equal(lint_new(&lint, repo->workdir, config, files, 1, "mypy"), 0);
	assert_int_equal(lint_start(lint, NULL), 0);
	while (!lint_done(lint))
		lint_wait(lint, 1000);
	assert_int_equal(lint_result(lint, 0)->status, LINT_DONE);
	assert_int_equal(lint_result(lint, 0)->signals.count, 1);
	assert_string_equal(lint_result(lint, 0)->signals.items[0].code, "misc");
	assert_int_equal(lint_result(lint, 0)->signals.items[0].line, 2);
	lint_free(lint);
	config_free(config);
	repo_free(repo);
}

static void parse_ok(struct signal_list *out, const char *text, const char *tool)
{
	if (signals_parse(out, text, strlen(text), -1, tool) < 0)
		fail_msg("signals_parse: %s", error_message());
}

/* Each tool's latest run or import counts; ids come back; other repositories stay apart. */
static void test_store_current(void **state)
{
	struct signal_list a = { 0 }, b = { 0 }, c = { 0 }, now = { 0 };
	struct signal one;
	int64_t run;
	size_t runs;

	(void)state;
	parse_ok(&a, "src/a.py:1:1: F401 'os' imported but unused\nsrc/a.py:3:5: E711 comparison to None\n",
		 "flake8");
	assert_int_equal(lint_store(&run, store, "/w/repo/", "flake8", "run", "flake8", &a), 0);
	assert_true(run > 0 && a.items[0].id > 0 && a.items[1].id == a.items[0].id + 1);
	parse_ok(&b, "[{\"file\": \"m.sh\", \"line\": 2, \"endLine\": 2, \"column\": 6, \"endColumn\": 8, "
		 "\"level\": \"info\", \"code\": 2086, \"message\": \"Double quote\"}]", NULL);
	assert_int_equal(lint_import(&runs, store, "/w/repo", "sc.json", NULL, &b), 0);
	assert_int_equal(runs, 1);
	assert_int_equal(lint_current(&now, store, "/w/repo"), 0);
	assert_int_equal(now.count, 3);
	assert_string_equal(now.items[0].file, "m.sh");
	assert_string_equal(now.items[0].code, "SC2086");
	assert_string_equal(now.items[1].code, "F401");
	signal_list_release(&now);

	/* flake8 again, with one signal: the earlier run no longer counts. */
	parse_ok(&c, "src/a.py:3:5: E711 comparison to None\n", "flake8");
	assert_int_equal(lint_store(&run, store, "/w/repo", "flake8", "run", "flake8", &c), 0);
	assert_int_equal(lint_current(&now, store, "/w/repo"), 0);
	assert_int_equal(now.count, 2);
	assert_string_equal(now.items[1].code, "E711");
	assert_int_equal(now.items[1].id, c.items[0].id);
	signal_list_release(&now);

	/* By id, in its repository only. */
	assert_int_equal(lint_signal(&one, store, "/w/repo", a.items[0].id), 0);
	assert_string_equal(one.message, "'os' imported but unused");
	assert_int_equal(one.line, 1);
	signal_release(&one);
	assert_int_equal(lint_signal(&one, store, "/w/other", a.items[0].id), RL_ENOTFOUND);
	assert_int_equal(lint_current(&now, store, "/w/other"), 0);
	assert_int_equal(now.count, 0);
	signal_list_release(&now);
	signal_list_release(&a);
	signal_list_release(&b);
	signal_list_release(&c);
}

/* A SARIF file of two tools is two runs; an empty import clears its tool. */
static void test_import_tools(void **state)
{
	static const char sarif[] =
		"{\"version\": \"2.1.0\", \"runs\": ["
		"{\"tool\": {\"driver\": {\"name\": \"alpha\"}}, \"results\": [{\"ruleId\": \"A1\", "
		"\"message\": {\"text\": \"one\"}, \"locations\": [{\"physicalLocation\": {\"artifactLocation\": "
		"{\"uri\": \"x.c\"}, \"region\": {\"startLine\": 3}}}]}]},"
		"{\"tool\": {\"driver\": {\"name\": \"beta\"}}, \"results\": [{\"ruleId\": \"B1\", "
		"\"message\": {\"text\": \"two\"}, \"locations\": [{\"physicalLocation\": {\"artifactLocation\": "
		"{\"uri\": \"y.c\"}, \"region\": {\"startLine\": 4}}}]}]}]}";
	struct signal_list list = { 0 }, empty = { 0 }, now = { 0 };
	size_t runs;

	(void)state;
	parse_ok(&list, sarif, NULL);
	assert_int_equal(lint_import(&runs, store, "/w/s", "both.sarif", NULL, &list), 0);
	assert_int_equal(runs, 2);
	assert_true(list.items[0].id > 0 && list.items[1].id > 0);
	assert_int_equal(lint_current(&now, store, "/w/s"), 0);
	assert_int_equal(now.count, 2);
	signal_list_release(&now);
	assert_int_equal(signals_parse(&empty, "", 0, -1, "alpha"), 0);
	assert_int_equal(lint_import(&runs, store, "/w/s", "none", "alpha", &empty), 0);
	assert_int_equal(lint_current(&now, store, "/w/s"), 0);
	assert_int_equal(now.count, 1);
	assert_string_equal(now.items[0].tool, "beta");
	signal_list_release(&now);
	signal_list_release(&empty);
	signal_list_release(&list);
}

int main(void)
{
	if (test_store_skip())
		return PG_SKIP;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_installed_and_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flake8_only_without_ruff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_command, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_current, setup, teardown),
		cmocka_unit_test_setup_teardown(test_import_tools, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
