/*
 * A fix of one signal (fix.h) against the fake LLM server over real HTTP,
 * in a real git working tree with the real SQLite store: the edit window
 * sent, the answer put back with the file's indentation and line ends, the
 * file replaced atomically, undo restoring the bytes, and a file changed
 * since refused. One test runs flake8 for the recheck when it is installed.
 * One asks in a front end's poll group while the repository index is
 * built: the request waits for it, the rest of the group goes on, and it
 * carries the definition its window calls.
 */
#include "testlib.h"
#include "testlib/store.h"
#include "fakellm/fakellm.h"

#include "clock.h"
#include "config.h"
#include "fix.h"
#include "llm.h"
#include "poll_group.h"
#include "repo.h"
#include "sched.h"
#include "signals.h"
#include "status.h"
#include "store.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct fixture {
	struct fakellm fake;
	char *repo_dir, *tmp, *db_path;
	struct repo *repo;
	struct llm_config llm;
	struct store *store;
	struct fix_options opts;
	struct fix *fix;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	test_env_private();
	fx->repo_dir = test_repo_new("fix");
	fx->tmp = test_tmpdir("fixdb");
	fx->db_path = test_store_location(fx->tmp, "revline.db");
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	fix_free(fx->fix);
	store_close(fx->store);
	llm_config_release(&fx->llm);
	repo_free(fx->repo);
	fakellm_stop(&fx->fake);
	test_rmtree(fx->repo_dir);
	test_rmtree(fx->tmp);
	free(fx->repo_dir);
	free(fx->tmp);
	free(fx->db_path);
	free(fx);
	return 0;
}

/* Start the server with the script and open the repository, the store and the provider. */
static void open_all(struct fixture *fx, const char *script)
{
	char base[96];

	fakellm_start(&fx->fake, script);
	snprintf(base, sizeof(base), "%s/v1", fx->fake.url);
	setenv("REVLINE_BASE_URL", base, 1);
	assert_int_equal(llm_config_load(&fx->llm, NULL), 0);
	assert_int_equal(store_open(&fx->store, fx->db_path), 0);
	assert_int_equal(repo_open(&fx->repo, fx->repo_dir), 0);
	sched_options_init(&fx->opts.sched);
	fx->opts.sched.retries = 0;
	assert_int_equal(asker_options_load(&fx->opts.ask, NULL), 0);
	fx->opts.workdir = fx->repo->workdir;
	fx->opts.store = fx->store;
	fx->opts.llm = &fx->llm;
}

/* Ask for the fix of a signal and wait until the answer is in. */
static void ask(struct fixture *fx, const char *tool, const char *code, const char *message,
		const char *file, int line)
{
	struct signal s = { 0 };

	s.tool = (char *)tool;
	s.code = (char *)code;
	s.message = (char *)message;
	s.severity = (char *)"error";
	s.file = (char *)file;
	s.line = line;
	s.column = 1;
	assert_int_equal(fix_new_signal(&fx->fix, &fx->opts, &s), 0);
	assert_int_equal(fix_start(fx->fix), 0);
	assert_int_equal(fix_state(fx->fix), FIX_ASKING);
	while (fix_state(fx->fix) == FIX_ASKING)
		assert_true(fix_wait(fx->fix, 200) >= 0);
}

/* Wait for the recheck (or the reading of the file's signals) to end. */
static void settle(struct fixture *fx)
{
	int rounds = 0;

	while (fix_busy(fx->fix)) {
		assert_true(fix_wait(fx->fix, 200) >= 0);
		assert_true(++rounds < 300);
	}
}

static char *sql_text(struct fixture *fx, const char *fmt, long long id)
{
	char sql[512];

	snprintf(sql, sizeof(sql), fmt, id);
	return test_store_query(fx->db_path, sql);
}

static void assert_row(struct fixture *fx, const char *column, const char *want)
{
	char fmt[128], *got;

	snprintf(fmt, sizeof(fmt), "SELECT %s FROM signal_fixes WHERE id = %%lld", column);
	got = sql_text(fx, fmt, (long long)fix_id(fx->fix));
	if (strcmp(got, want))
		fail_msg("signal_fixes.%s is '%s', want '%s'", column, got, want);
	free(got);
}

static void assert_file(struct fixture *fx, const char *rel, const char *want)
{
	struct buf b = BUF_INIT;

	test_read(&b, fx->repo_dir, rel);
	if (b.len != strlen(want) || memcmp(b.ptr, want, b.len))
		fail_msg("%s is:\n%.*s\nwant:\n%s", rel, (int)b.len, b.ptr ? b.ptr : "", want);
	buf_release(&b);
}

/* The last request's user message. */
static char *last_user_text(struct fixture *fx)
{
	json_t *all = fakellm_requests(&fx->fake);
	json_t *msgs = json_object_get(json_object_get(json_array_get(all, json_array_size(all) - 1), "body"),
				       "messages");
	char *out = strdup(json_string_value(json_object_get(json_array_get(msgs, 1), "content")));

	json_decref(all);
	return out;
}

/* Temporary files an apply might have left beside the file. */
static size_t leftovers(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	while (d && (e = readdir(d)))
		n += strstr(e->d_name, ".revline-") != NULL;
	if (d)
		closedir(d);
	return n;
}

static const char class_py[] =
	"import os\n"
	"\n"
	"\n"
	"class A:\n"
	"    def check(self, x):\n"
	"        for i in range(3):\n"
	"            if x == None:\n"
	"                return i\n"
	"        return -1\n";

static const char class_py_fixed[] =
	"import os\n"
	"\n"
	"\n"
	"class A:\n"
	"    def check(self, x):\n"
	"        for i in range(3):\n"
	"            if x is None:\n"
	"                return i\n"
	"        return -1\n";

/* The snippet's lines without their common indentation (4 spaces), fixed. */
#define CLASS_ANSWER "{\"rules\": [{\"match\": \"E711\", \"answer\": {\"fixed_code\": " \
	"\"def check(self, x):\\n    for i in range(3):\\n        if x is None:\\n" \
	"            return i\\n    return -1\\n\", \"explanation\": \"is None\"}}]}"

/* --- the window sent, the answer applied in the file's shape ------------------ */

static void test_window_sent_and_applied(void **state)
{
	struct fixture *fx = *state;
	struct stat before, after;
	char *user, *path;

	test_write_str(fx->repo_dir, "app.py", class_py);
	test_commit(fx->repo_dir, "base");
	open_all(fx, CLASS_ANSWER);
	assert_int_equal(asprintf(&path, "%s/app.py", fx->repo_dir) > 0, 1);
	assert_int_equal(chmod(path, 0751), 0);
	assert_int_equal(stat(path, &before), 0);

	ask(fx, "flake8", "E711", "comparison to None should be 'if cond is None:'", "app.py", 7);
	assert_int_equal(fix_state(fx->fix), FIX_PROPOSED);
	/* E711 is lines:1 in the table, widened to 2 either side: lines 5-9, sent without their indentation. */
	assert_string_equal(fix_window(fx->fix), "lines 5-9");
	user = last_user_text(fx);
	assert_non_null(strstr(user, "Problem reported by flake8: E711 at line 7"));
	assert_non_null(strstr(user, "The snippet to fix: lines 5-9"));
	assert_non_null(strstr(user, "```python\ndef check(self, x):\n    for i in range(3):\n        if x == None:\n"
			       "            return i\n    return -1\n```"));
	/* The context is numbered, as in the file. */
	assert_non_null(strstr(user, "    7 |             if x == None:"));
	assert_null(strstr(user, "class A:\n    def check"));
	free(user);
	/* The preview is the file's own diff; the row has the proposal; the file is untouched. */
	assert_non_null(strstr(fix_preview(fx->fix), "-            if x == None:\n+            if x is None:\n"));
	assert_row(fx, "status", "proposed");
	assert_row(fx, "first_line || '-' || last_line", "5-9");
	assert_file(fx, "app.py", class_py);

	assert_int_equal(fix_apply(fx->fix), 0);
	assert_int_equal(fix_state(fx->fix), FIX_APPLIED);
	/* The indentation is put back: the file is the original with one line fixed. */
	assert_file(fx, "app.py", class_py_fixed);
	/* Replaced by a rename (a new inode), with its mode, and nothing left beside it. */
	assert_int_equal(stat(path, &after), 0);
	assert_true(after.st_ino != before.st_ino);
	assert_int_equal(after.st_mode & 07777, 0751);
	assert_int_equal(leftovers(fx->repo_dir), 0);
	assert_row(fx, "status", "applied");
	assert_row(fx, "applied_at IS NOT NULL", "1");

	/* The recheck runs flake8 again on the file: E711 is gone, F401 (os) was there before. */
	settle(fx);
	if (test_sh(fx->repo_dir, "command -v flake8 >/dev/null") == 0) {
		if (fix_recheck(fx->fix) != RECHECK_GONE)
			fail_msg("recheck %s: %s", fix_recheck_name(fix_recheck(fx->fix)),
				 fix_recheck_detail(fx->fix) ? fix_recheck_detail(fx->fix) : "");
		assert_row(fx, "recheck", "gone");
	}
	free(path);
}

/* --- CRLF and tabs -------------------------------------------------------------- */

static void test_crlf_and_tabs_kept(void **state)
{
	struct fixture *fx = *state;
	static const char before[] =
		"int f(int a) {\r\n"
		"\tint b = a;\r\n"
		"\tb += 1;\r\n"
		"\tb += 2;\r\n"
		"\tif (b == 0)\r\n"
		"\t\tb = 1;\r\n"
		"\tb += 3;\r\n"
		"\tb += 4;\r\n"
		"\tb += 5;\r\n"
		"\tb += 6;\r\n"
		"\treturn b;\r\n"
		"}\r\n";
	static const char fixed[] =
		"int f(int a) {\r\n"
		"\tint b = a;\r\n"
		"\tb += 1;\r\n"
		"\tb += 2;\r\n"
		"\tif (b == 0) {\r\n"
		"\t\tb = 1;\r\n"
		"\t}\r\n"
		"\tb += 3;\r\n"
		"\tb += 4;\r\n"
		"\tb += 5;\r\n"
		"\tb += 6;\r\n"
		"\treturn b;\r\n"
		"}\r\n";
	char *user;

	test_write_str(fx->repo_dir, "f.c", before);
	test_commit(fx->repo_dir, "base");
	/* The answer in plain \n line ends and without the snippet's common tab. */
	open_all(fx, "{\"rules\": [{\"match\": \"braces\", \"answer\": {\"fixed_code\": "
		 "\"b += 1;\\nb += 2;\\nif (b == 0) {\\n\\tb = 1;\\n}\\nb += 3;\\nb += 4;\\nb += 5;\\n\", "
		 "\"explanation\": \"braces\"}}]}");
	ask(fx, "mytool", "X1", "add braces", "f.c", 6);
	assert_int_equal(fix_state(fx->fix), FIX_PROPOSED);
	/* A code not in the table: 3 lines either side. */
	assert_string_equal(fix_window(fx->fix), "lines 3-9");
	user = last_user_text(fx);
	/* Sent dedented and with \n line ends. */
	assert_non_null(strstr(user, "```c\nb += 1;\nb += 2;\nif (b == 0)\n\tb = 1;\nb += 3;\nb += 4;\nb += 5;\n```"));
	assert_null(strstr(user, "\r"));
	free(user);
	assert_int_equal(fix_apply(fx->fix), 0);
	/* Every line keeps its CRLF, the new ones get it, and the tab is put back before each. */
	assert_file(fx, "f.c", fixed);
	settle(fx);
	assert_int_equal(fix_recheck(fx->fix), RECHECK_NOT_RUN);
}

/* --- undo ------------------------------------------------------------------------ */

static void test_undo_restores_the_bytes(void **state)
{
	struct fixture *fx = *state;
	/* No final newline and a stray CR: undo gives back the exact bytes, whatever they are. */
	static const char before[] =
		"import os\n\n\nclass A:\n    def check(self, x):\n        for i in range(3):\n"
		"            if x == None:\r\n                return i\n        return -1";
	struct fix_record *records = NULL;
	size_t count = 0;
	int64_t undone = 0;
	char *status;

	test_write_str(fx->repo_dir, "app.py", before);
	test_commit(fx->repo_dir, "base");
	open_all(fx, "{\"rules\": [{\"match\": \"E711\", \"answer\": {\"fixed_code\": "
		 "\"def check(self, x):\\n    for i in range(3):\\n        if x is None:\\n"
		 "            return i\\n    return -1\", \"explanation\": \"is None\"}}]}");
	ask(fx, "flake8", "E711", "comparison to None should be 'if cond is None:'", "app.py", 7);
	assert_string_equal(fix_window(fx->fix), "lines 5-9");
	assert_int_equal(fix_state(fx->fix), FIX_PROPOSED);
	assert_int_equal(fix_apply(fx->fix), 0);
	settle(fx);
	{
		struct buf now = BUF_INIT;

		test_read(&now, fx->repo_dir, "app.py");
		assert_non_null(strstr(now.ptr, "if x is None:"));
		assert_true(now.len != sizeof(before) - 1 || memcmp(now.ptr, before, now.len));
		buf_release(&now);
	}
	assert_int_equal(fix_undo(fx->fix), 0);
	assert_int_equal(fix_state(fx->fix), FIX_UNDONE);
	assert_file(fx, "app.py", before);
	assert_row(fx, "status", "undone");

	/* Applied again, then undone from the store alone (another session): the same bytes. */
	assert_int_equal(fix_apply(fx->fix), 0);
	settle(fx);
	assert_int_equal(fix_applied(&records, &count, fx->store, fx->repo->workdir), 0);
	assert_int_equal(count, 1);
	assert_int_equal(records[0].id, fix_id(fx->fix));
	assert_string_equal(records[0].file, "app.py");
	fix_records_free(records, count);
	assert_int_equal(fix_undo_stored(&undone, fx->store, fx->repo->workdir, 0), 0);
	assert_int_equal(undone, fix_id(fx->fix));
	assert_file(fx, "app.py", before);
	status = sql_text(fx, "SELECT status FROM signal_fixes WHERE id = %lld", (long long)undone);
	assert_string_equal(status, "undone");
	free(status);
	/* Nothing left to undo. */
	assert_int_equal(fix_undo_stored(&undone, fx->store, fx->repo->workdir, 0), RL_ENOTFOUND);
}

/* --- a file changed since ---------------------------------------------------------- */

static void test_changed_file_refused(void **state)
{
	struct fixture *fx = *state;
	/* The user's edit, made while the fix was being asked for (the window's line changed). */
	static const char edited[] =
		"import os\n"
		"\n"
		"\n"
		"class A:\n"
		"    def check(self, x):\n"
		"        for i in range(3):\n"
		"            if x == None or x == 0:\n"
		"                return i\n"
		"        return -1\n";
	char *status;

	test_write_str(fx->repo_dir, "app.py", class_py);
	test_commit(fx->repo_dir, "base");
	open_all(fx, CLASS_ANSWER);
	ask(fx, "flake8", "E711", "comparison to None should be 'if cond is None:'", "app.py", 7);
	assert_string_equal(fix_window(fx->fix), "lines 5-9");
	assert_int_equal(fix_state(fx->fix), FIX_PROPOSED);
	test_write_str(fx->repo_dir, "app.py", edited);
	assert_int_equal(fix_apply(fx->fix), RL_ECONFLICT);
	assert_non_null(fix_error(fx->fix));
	/* The user's edit is intact; the fix is still only proposed. */
	assert_file(fx, "app.py", edited);
	assert_int_equal(fix_state(fx->fix), FIX_PROPOSED);
	assert_row(fx, "status", "proposed");
	assert_row(fx, "applied_at IS NULL", "1");
	assert_int_equal(leftovers(fx->repo_dir), 0);

	/* An edit elsewhere in the file (the same window bytes) is refused too: the file is not the one asked about. */
	test_write_str(fx->repo_dir, "app.py", class_py);
	test_sh_ok(fx->repo_dir, "printf '# added\\n' >> app.py");
	assert_int_equal(fix_apply(fx->fix), RL_ECONFLICT);
	{
		struct buf now = BUF_INIT;

		test_read(&now, fx->repo_dir, "app.py");
		assert_non_null(strstr(now.ptr, "if x == None:"));
		assert_non_null(strstr(now.ptr, "# added\n"));
		buf_release(&now);
	}

	/* Back as it was: the apply goes through; then an edit refuses the undo, leaving the file alone. */
	test_write_str(fx->repo_dir, "app.py", class_py);
	assert_int_equal(fix_apply(fx->fix), 0);
	settle(fx);
	assert_file(fx, "app.py", class_py_fixed);
	test_sh_ok(fx->repo_dir, "printf '# mine\\n' >> app.py");
	assert_int_equal(fix_undo(fx->fix), RL_ECONFLICT);
	assert_int_equal(fix_state(fx->fix), FIX_APPLIED);
	status = sql_text(fx, "SELECT status FROM signal_fixes WHERE id = %lld", (long long)fix_id(fx->fix));
	assert_string_equal(status, "applied");
	free(status);
	{
		struct buf now = BUF_INIT;

		test_read(&now, fx->repo_dir, "app.py");
		assert_non_null(strstr(now.ptr, "if x is None:"));
		assert_non_null(strstr(now.ptr, "# mine\n"));
		buf_release(&now);
	}
}

/* --- a failed call ------------------------------------------------------------------- */

static void test_failed_call_fails_the_fix(void **state)
{
	struct fixture *fx = *state;

	test_write_str(fx->repo_dir, "app.py", class_py);
	test_commit(fx->repo_dir, "base");
	open_all(fx, "{\"rules\": [{\"match\": \"E711\", \"status\": 400, \"error\": \"bad request from the fake\"}]}");
	ask(fx, "flake8", "E711", "comparison to None should be 'if cond is None:'", "app.py", 7);
	assert_string_equal(fix_window(fx->fix), "lines 5-9");
	assert_int_equal(fix_state(fx->fix), FIX_FAILED);
	assert_non_null(strstr(fix_error(fx->fix), "bad request from the fake"));
	assert_row(fx, "status", "failed");
	assert_int_equal(fix_apply(fx->fix), RL_EUSAGE);
	assert_file(fx, "app.py", class_py);
}

/* --- the definitions of the repository, once the index is built --------------------- */

static void test_definitions_after_the_index(void **state)
{
	struct fixture *fx = *state;
	struct poll_group *group = NULL;
	struct config *config = NULL;
	const struct fix_definition *defs;
	struct signal s = { 0 };
	json_t *requests;
	size_t n;
	int64_t started, until;
	char *user, *slow;

	if (test_sh(fx->repo_dir, "ctags --version 2>/dev/null | grep -q 'Universal Ctags'") != 0)
		skip();
	test_write_str(fx->repo_dir, "shapes.py", "def area(width, height):\n    return width * height\n");
	test_write_str(fx->repo_dir, "app.py", "from shapes import area\n\n\ndef report(w, h):\n"
		       "    total = area(w, h)\n    if total == None:\n        return 0\n    return total\n");
	test_commit(fx->repo_dir, "base");
	/* The working tree changes its signature; a ctags that takes 0.6 s to start, each time. */
	test_write_str(fx->repo_dir, "shapes.py", "def area(shape, *, unit=\"m2\"):\n    return shape.size\n");
	assert_int_equal(asprintf(&slow, "%s/slow-ctags", fx->tmp) > 0, 1);
	test_write_str(fx->tmp, "slow-ctags", "#!/bin/sh\nsleep 0.6\nexec ctags \"$@\"\n");
	assert_int_equal(chmod(slow, 0755), 0);
	test_sh_ok(fx->repo_dir, "git config revline.ctags '%s'", slow);
	open_all(fx, "{\"rules\": [{\"match\": \"E711\", \"answer\": {\"fixed_code\": "
		 "\"total = area(w, h)\\nif total is None:\\n    return 0\\n\", \"explanation\": \"is None\"}}]}");
	assert_int_equal(config_open(&config, fx->repo), 0);
	assert_int_equal(poll_group_new(&group), 0);
	fx->opts.config = config;
	fx->opts.group = group;

	s.tool = (char *)"flake8";
	s.code = (char *)"E711";
	s.message = (char *)"comparison to None";
	s.file = (char *)"app.py";
	s.line = 6;
	assert_int_equal(fix_new_signal(&fx->fix, &fx->opts, &s), 0);
	started = clock_ms();
	assert_int_equal(fix_start(fx->fix), 0);
	assert_true(clock_ms() - started < 400);
	/* The group is stepped while ctags sleeps: the fix waits to ask, and says nothing sent yet. */
	until = clock_ms() + 300;
	while (clock_ms() < until)
		assert_true(poll_group_wait(group, 50) >= 0);
	assert_int_equal(fix_state(fx->fix), FIX_ASKING);
	requests = fakellm_requests(&fx->fake);
	assert_int_equal(json_array_size(requests), 0);
	json_decref(requests);
	assert_null(fix_definitions(fx->fix, &n));
	assert_int_equal(n, 0);

	until = clock_ms() + 30000;
	while (fix_state(fx->fix) == FIX_ASKING && clock_ms() < until)
		assert_true(poll_group_wait(group, 200) >= 0);
	assert_int_equal(fix_state(fx->fix), FIX_PROPOSED);
	assert_null(fix_context_note(fx->fix));
	defs = fix_definitions(fx->fix, &n);
	assert_int_equal(n, 1);
	assert_string_equal(defs[0].name, "area");
	assert_string_equal(defs[0].path, "shapes.py");
	assert_int_equal(defs[0].line, 1);
	user = last_user_text(fx);
	assert_non_null(strstr(user, "Definitions the code above uses, from the repository"));
	assert_non_null(strstr(user, "    1  def area(shape, *, unit=\"m2\"):\n"));
	free(user);

	fix_free(fx->fix);
	fx->fix = NULL;
	poll_group_free(group);
	config_free(config);
	free(slow);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	if (test_store_skip())
		return PG_SKIP;
	const struct CMUnitTest tests[] = {
		T(test_window_sent_and_applied),
		T(test_crlf_and_tabs_kept),
		T(test_undo_restores_the_bytes),
		T(test_changed_file_refused),
		T(test_failed_call_fails_the_fix),
		T(test_definitions_after_the_index),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
