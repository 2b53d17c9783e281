/* Feedback: rows and their copies, suppression, the retrieval query, BM25 examples, the prompt text. */
#include "testlib.h"
#include "testlib/store.h"

#include "diff.h"
#include "feedback.h"
#include "finding.h"
#include "result.h"
#include "rules.h"
#include "status.h"
#include "store.h"
#include "store_sql.h"
#include "store_backend.h"
#include "store_feedback.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *tmp;               /* a fresh directory for each test */
static struct store *store;     /* a new database: a file in it, or on PostgreSQL (testlib/store.h) */

static int setup(void **state)
{
	char *where;

	(void)state;
	tmp = test_tmpdir("feedback");
	where = test_store_location(tmp, "revline.db");
	store = test_store_open(where);
	free(where);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	store_close(store);
	store = NULL;
	test_rmtree(tmp);
	free(tmp);
	tmp = NULL;
	return 0;
}

/* A finding as a check stores it: its own check, its rule's row, its fingerprint. */
struct seed {
	const char *rule, *file;
	int line;
	const char *title, *issue, *code;
};

static int64_t seed_check(const char *repo)
{
	struct check_record r = { .repo_path = repo, .branch = "main", .target = "working tree" };
	int64_t check = 0;

	if (store_check_begin(store, &check, &r) < 0)
		fail_msg("store_check_begin: %s", error_message());
	return check;
}

static int64_t seed_in(const char *repo, const struct seed *s)
{
	struct rule rule = {
		.id = (char *)s->rule, .name = (char *)s->rule, .severity = SEV_MAJOR,
		.kind = RULE_LLM, .content = "", .path = "rules/r.md", .source = "--rules",
	};
	struct finding f = {
		.rule_id = (char *)s->rule, .file = (char *)s->file, .line = s->line,
		.end_line = s->line, .severity = SEV_MAJOR, .title = (char *)s->title,
		.issue = (char *)s->issue, .evidence = { .code_examined = (char *)s->code },
		.verified = true,
	};
	struct rule_result result = { .rule = &rule, .status = RULE_ATTENTION, .findings = &f,
				      .nfindings = 1 };
	int64_t check = seed_check(repo);

	finding_fingerprint(&f);
	if (store_rule_add(store, &result.id, check, &rule) < 0 ||
	    store_result_put(store, check, &result) < 0)
		fail_msg("seeding a finding: %s", error_message());
	return f.id;
}

static int64_t seed(const struct seed *s)
{
	return seed_in(tmp, s);
}

static int64_t mark(int64_t finding, enum feedback_kind kind, const char *note)
{
	int64_t id = 0;

	if (feedback_on_finding(&id, store, finding, kind, note) < 0)
		fail_msg("feedback_on_finding %lld: %s", (long long)finding, error_message());
	assert_true(id > 0);
	return id;
}

/* One row of sql (:id bound), read through the store on either backend; the caller finalizes it. */
static struct store_stmt *row_of(const char *sql, int64_t id)
{
	return test_store_row(store, sql, id);
}

static int64_t int_of(const char *sql, int64_t id)
{
	return test_store_int(store, sql, id);
}

static void exec_ok(const char *sql)
{
	test_store_exec(store, sql, 0);
}

static void assert_col(struct store_stmt *stmt, int col, const char *expected)
{
	const char *text = store_column_text(stmt, col);

	if (!expected) {
		if (text)
			fail_msg("column %d: expected NULL, got '%s'", col, text);
		return;
	}
	if (!text)
		fail_msg("column %d: expected '%s', got NULL", col, expected);
	assert_string_equal((const char *)text, expected);
}

static const struct seed shell = {
	"injection", "app.py", 5, "Shell injection", "shell=True with a caller's string",
	"return subprocess.call(cmd, shell=True)",
};

static void test_on_finding_copies(void **state)
{
	struct finding f = {
		.rule_id = "injection", .file = "app.py", .title = "Shell injection",
		.evidence = { .code_examined = "return subprocess.call(cmd, shell=True)" },
	};
	int64_t finding = seed(&shell), id, again;
	struct store_stmt *stmt;

	(void)state;
	finding_fingerprint(&f);
	id = mark(finding, FEEDBACK_FALSE_POSITIVE, "cmd is a constant list");
	stmt = row_of("SELECT fb.finding_id, fb.fix_id, fb.repo_id = c.repo_id, fb.kind, fb.note, "
		      "fb.rule_id, fb.fingerprint, fb.file, fb.title, fb.issue, fb.code, "
		      "fb.created_at > 1600000000000 FROM feedback fb JOIN findings f ON "
		      "f.id = fb.finding_id JOIN checks c ON c.id = f.check_id WHERE fb.id = :id", id);
	assert_int_equal(store_column_int64(stmt, 0), finding);
	assert_int_equal(store_column_is_null(stmt, 1), true);
	assert_int_equal(store_column_int(stmt, 2), 1);
	assert_col(stmt, 3, "false_positive");
	assert_col(stmt, 4, "cmd is a constant list");
	assert_col(stmt, 5, "injection");
	assert_col(stmt, 6, f.fingerprint);
	assert_col(stmt, 7, "app.py");
	assert_col(stmt, 8, "Shell injection");
	assert_col(stmt, 9, "shell=True with a caller's string");
	assert_col(stmt, 10, "return subprocess.call(cmd, shell=True)");
	assert_int_equal(store_column_int(stmt, 11), 1);
	store_finalize(stmt);

	/* The full-text index follows the table (SQLite: its triggers; PostgreSQL: a generated column). */
	if (test_store_pg())
		assert_int_equal(int_of("SELECT id FROM feedback WHERE search @@ "
					"plainto_tsquery('simple', 'subprocess')", 0), id);
	else
		assert_int_equal(int_of("SELECT rowid FROM feedback_fts WHERE feedback_fts MATCH 'subprocess'", 0), id);

	/* Twice is two rows; an empty note is none. */
	again = mark(finding, FEEDBACK_ACCEPT, "");
	assert_true(again > id);
	assert_int_equal(int_of("SELECT count(*) FROM feedback WHERE finding_id = :id", finding), 2);
	assert_int_equal(int_of("SELECT note IS NULL FROM feedback WHERE id = :id", again), 1);

	/* The copy outlives the finding and its check. */
	exec_ok("DELETE FROM checks");
	stmt = row_of("SELECT finding_id, title, code FROM feedback WHERE id = :id", id);
	assert_int_equal(store_column_is_null(stmt, 0), true);
	assert_col(stmt, 1, "Shell injection");
	assert_col(stmt, 2, "return subprocess.call(cmd, shell=True)");
	store_finalize(stmt);
}

/* A finding stored without a fingerprint gets the one a check would have given it. */
static void test_on_finding_without_fingerprint(void **state)
{
	struct finding f = {
		.rule_id = "injection", .file = "app.py", .title = "Shell injection",
		.evidence = { .code_examined = "return subprocess.call(cmd, shell=True)" },
	};
	int64_t finding = seed(&shell), id;
	struct store_stmt *stmt;
	bool suppressed = false;

	(void)state;
	finding_fingerprint(&f);
	exec_ok("UPDATE findings SET fingerprint = NULL");
	id = mark(finding, FEEDBACK_FALSE_POSITIVE, NULL);
	stmt = row_of("SELECT fingerprint FROM feedback WHERE id = :id", id);
	assert_col(stmt, 0, f.fingerprint);
	store_finalize(stmt);
	assert_int_equal(feedback_suppressed(&suppressed, store, f.fingerprint), 0);
	assert_true(suppressed);
}

static int64_t seed_fix(int64_t finding)
{
	int64_t check = int_of("SELECT check_id FROM findings WHERE id = :id", finding);
	int64_t threadline = int_of("SELECT check_threadline_id FROM findings WHERE id = :id", finding);
	int64_t later = seed_check(tmp);
	char sql[512];

	snprintf(sql, sizeof(sql),
		 "INSERT INTO violation_fixes (violation_check_id, fix_check_id, "
		 "violation_threadline_id, threadline_id, threadline_file_path, file_references, "
		 "fix_type, explanation, created_at) VALUES (%lld, %lld, %lld, 'injection', "
		 "'rules/r.md', '[\"app.py\", \"lib/run.py\"]', 'CODE_CHANGE', 'shell=False now', 1) "
		 "RETURNING id", (long long)check, (long long)later, (long long)threadline);
	return int_of(sql, 0);
}

static void test_on_fix(void **state)
{
	int64_t finding = seed(&shell), fix = seed_fix(finding), id = 0, wrong = 0;
	struct buf about = BUF_INIT;
	struct store_stmt *stmt;
	bool suppressed = true;

	(void)state;
	assert_int_equal(feedback_on_fix(&id, store, fix, true, "yes"), 0);
	stmt = row_of("SELECT fb.fix_id, fb.finding_id, fb.kind, fb.note, fb.rule_id, fb.file, "
		      "fb.fingerprint, fb.repo_id = (SELECT repo_id FROM checks LIMIT 1) "
		      "FROM feedback fb WHERE fb.id = :id", id);
	assert_int_equal(store_column_int64(stmt, 0), fix);
	assert_int_equal(store_column_is_null(stmt, 1), true);
	assert_col(stmt, 2, "fix_correct");
	assert_col(stmt, 3, "yes");
	assert_col(stmt, 4, "injection");
	assert_col(stmt, 5, "app.py");
	assert_col(stmt, 6, NULL);
	assert_int_equal(store_column_int(stmt, 7), 1);
	store_finalize(stmt);
	assert_int_equal(feedback_describe(&about, store, id), 0);
	assert_string_equal(about.ptr, "injection, app.py");

	assert_int_equal(feedback_on_fix(&wrong, store, fix, false, NULL), 0);
	assert_int_equal(int_of("SELECT kind = 'fix_incorrect' AND note IS NULL FROM feedback "
				"WHERE id = :id", wrong), 1);
	/* A fix's feedback says nothing about suppression. */
	assert_int_equal(feedback_suppressed(&suppressed, store, "0123"), 0);
	assert_false(suppressed);
	buf_release(&about);
}

static void test_unknown_ids(void **state)
{
	int64_t finding = seed(&shell), id = 7;

	(void)state;
	assert_int_equal(feedback_on_finding(&id, store, finding + 100, FEEDBACK_ACCEPT, NULL),
			 RL_ENOTFOUND);
	assert_int_equal(id, 0);
	assert_non_null(strstr(error_message(), "no finding 101 in "));
	assert_non_null(strstr(error_message(), "'revline check'"));
	id = 7;
	assert_int_equal(feedback_on_fix(&id, store, 42, true, NULL), RL_ENOTFOUND);
	assert_int_equal(id, 0);
	assert_non_null(strstr(error_message(), "no fix 42 in "));
	/* A fix's kind is no word on a finding. */
	assert_int_equal(feedback_on_finding(&id, store, finding, FEEDBACK_FIX_CORRECT, NULL),
			 RL_EUSAGE);
	assert_string_equal(error_message(), "feedback on a finding is false_positive, accept or "
			    "reject, not fix_correct");
	assert_int_equal(int_of("SELECT count(*) FROM feedback", 0), 0);
}

static void test_suppression_follows_latest(void **state)
{
	int64_t finding = seed(&shell), other = seed(&(struct seed){
		"injection", "app.py", 9, "Eval", "eval of input", "eval(text)" });
	char *fp = NULL, *other_fp = NULL;
	struct store_stmt *stmt;
	bool s = true;

	(void)state;
	stmt = row_of("SELECT (SELECT fingerprint FROM findings WHERE id = :id), "
		      "(SELECT fingerprint FROM findings WHERE id = :id + 1)", finding);
	fp = strdup(store_column_text(stmt, 0));
	other_fp = strdup(store_column_text(stmt, 1));
	store_finalize(stmt);
	assert_int_equal(other, finding + 1);
	assert_string_not_equal(fp, other_fp);

	assert_int_equal(feedback_suppressed(&s, store, fp), 0);
	assert_false(s);
	mark(finding, FEEDBACK_FALSE_POSITIVE, NULL);
	assert_int_equal(feedback_suppressed(&s, store, fp), 0);
	assert_true(s);
	assert_int_equal(feedback_suppressed(&s, store, other_fp), 0);
	assert_false(s);
	/* A later accept lifts it, a later false positive puts it back, a reject lifts it again. */
	mark(finding, FEEDBACK_ACCEPT, NULL);
	assert_int_equal(feedback_suppressed(&s, store, fp), 0);
	assert_false(s);
	mark(finding, FEEDBACK_FALSE_POSITIVE, NULL);
	assert_int_equal(feedback_suppressed(&s, store, fp), 0);
	assert_true(s);
	mark(finding, FEEDBACK_REJECT, NULL);
	assert_int_equal(feedback_suppressed(&s, store, fp), 0);
	assert_false(s);
	/* The same code found again (a later check) is the same fingerprint. */
	mark(seed(&shell), FEEDBACK_FALSE_POSITIVE, NULL);
	assert_int_equal(feedback_suppressed(&s, store, fp), 0);
	assert_true(s);
	/* No fingerprint, nothing to suppress. */
	assert_int_equal(feedback_suppressed(&s, store, ""), 0);
	assert_false(s);
	assert_int_equal(feedback_suppressed(&s, store, NULL), 0);
	assert_false(s);
	free(fp);
	free(other_fp);
}

static void test_describe(void **state)
{
	int64_t id = mark(seed(&shell), FEEDBACK_REJECT, NULL);
	struct buf about = BUF_INIT;

	(void)state;
	assert_int_equal(feedback_describe(&about, store, id), 0);
	assert_string_equal(about.ptr, "injection, app.py:5");
	/* Without its finding: no line. */
	exec_ok("DELETE FROM checks");
	assert_int_equal(feedback_describe(&about, store, id), 0);
	assert_string_equal(about.ptr, "injection, app.py");
	assert_int_equal(feedback_describe(&about, store, id + 1), RL_ENOTFOUND);
	buf_release(&about);
}

static struct diff *diff_of(const char *text)
{
	struct diff *diff = NULL;

	if (diff_from_text(&diff, text, strlen(text)) < 0)
		fail_msg("diff_from_text: %s", error_message());
	return diff;
}

static char *py_patterns[] = { "*.py", "*.c", "*.json", "*.png" };

static const struct rule py_rule = {
	.id = "injection", .name = "injection", .patterns = py_patterns, .npatterns = 4,
};

static const char mixed_diff[] =
	"diff --git a/src/auth/login.py b/src/auth/login.py\n"
	"index 1111111..2222222 100644\n"
	"--- a/src/auth/login.py\n"
	"+++ b/src/auth/login.py\n"
	"@@ -1,3 +1,5 @@\n"
	" import os\n"
	"+def check_password(user_name, password):\n"
	"+    token = make_token(user_name)\n"
	"+    return verify_token(token, password) and user_name\n"
	"-removed_name = removed_call()\n"
	" x = 1\n"
	"diff --git a/lib/util.c b/lib/util.c\n"
	"index 1111111..2222222 100644\n"
	"--- a/lib/util.c\n"
	"+++ b/lib/util.c\n"
	"@@ -1 +1,5 @@\n"
	"+static int parse_header(const char *header_text)\n"
	"+{\n"
	"+\treturn header_text != NULL; /* 0x1fff ab __ */\n"
	"+}\n"
	" int y;\n"
	"diff --git a/package-lock.json b/package-lock.json\n"
	"index 1111111..2222222 100644\n"
	"--- a/package-lock.json\n"
	"+++ b/package-lock.json\n"
	"@@ -1 +1 @@\n"
	"-{\"lockfileVersion\": 2}\n"
	"+{\"lockfileVersion\": 3, \"lock_only_word\": 1}\n"
	"diff --git a/img/logo.png b/img/logo.png\n"
	"new file mode 100644\n"
	"index 0000000..3333333\n"
	"Binary files /dev/null and b/img/logo.png differ\n"
	"diff --git a/docs/notes.txt b/docs/notes.txt\n"
	"index 1111111..2222222 100644\n"
	"--- a/docs/notes.txt\n"
	"+++ b/docs/notes.txt\n"
	"@@ -1 +1 @@\n"
	"-old\n"
	"+unrelated_words unrelated_words\n";

static void test_query_signals(void **state)
{
	struct diff *diff = diff_of(mixed_diff);
	struct buf q = BUF_INIT;

	(void)state;
	/*
	 * Paths (src, auth, login, lib, util), languages (python and py, c),
	 * then identifiers by use: user_name 3, password, token and
	 * header_text 2, the rest once in order of appearance. Not: keywords
	 * (def, return, and, static, int, const, char, NULL), removed lines, the
	 * lock file, the binary file, a file the rule does not apply to, words
	 * under three characters and the tail of a number.
	 */
	assert_int_equal(feedback_query(&q, diff, &py_rule), 0);
	assert_string_equal(q.ptr, "\"src\" OR \"auth\" OR \"login\" OR \"lib\" OR \"util\" OR "
			    "\"python\" OR \"py\" OR \"c\" OR \"user_name\" OR \"password\" OR "
			    "\"token\" OR \"header_text\" OR \"check_password\" OR \"make_token\" OR "
			    "\"verify_token\" OR \"parse_header\"");
	buf_release(&q);
	diff_free(diff);
}

static void test_query_limits_and_quotes(void **state)
{
	struct buf text = BUF_INIT, q = BUF_INIT;
	struct diff *diff;
	int i, k;

	(void)state;
	/* A path with a double quote (git quotes it), and 14 identifiers used 14..1 times. */
	buf_puts(&text, "diff --git \"a/we\\\"ird/Tool.Test.rb\" \"b/we\\\"ird/Tool.Test.rb\"\n"
		 "index 1111111..2222222 100644\n"
		 "--- \"a/we\\\"ird/Tool.Test.rb\"\n"
		 "+++ \"b/we\\\"ird/Tool.Test.rb\"\n"
		 "@@ -0,0 +1,14 @@\n");
	for (i = 0; i < 14; i++) {
		buf_putc(&text, '+');
		for (k = 0; k <= 13 - i; k++)
			buf_printf(&text, "word%c ", 'a' + i);
		buf_puts(&text, "self end\n");
	}
	diff = diff_of(text.ptr);
	assert_int_equal(feedback_query(&q, diff, NULL), 0);
	assert_string_equal(q.ptr, "\"we\"\"ird\" OR \"Tool.Test\" OR \"ruby\" OR \"rb\" OR "
			    "\"worda\" OR \"wordb\" OR \"wordc\" OR \"wordd\" OR \"worde\" OR "
			    "\"wordf\" OR \"wordg\" OR \"wordh\" OR \"wordi\" OR \"wordj\" OR "
			    "\"wordk\" OR \"wordl\"");
	diff_free(diff);

	/* Nothing to ask: only a lock file and a binary one. */
	diff = diff_of("diff --git a/yarn.lock b/yarn.lock\n"
		       "index 1111111..2222222 100644\n"
		       "--- a/yarn.lock\n"
		       "+++ b/yarn.lock\n"
		       "@@ -1 +1 @@\n"
		       "-lodash_old\n"
		       "+lodash_new\n"
		       "diff --git a/a.bin b/a.bin\n"
		       "index 1111111..2222222 100644\n"
		       "Binary files a/a.bin and b/a.bin differ\n");
	assert_int_equal(feedback_query(&q, diff, NULL), 0);
	assert_string_equal(q.ptr, "");
	diff_free(diff);
	buf_release(&text);
	buf_release(&q);
}

static size_t examples_of(struct feedback_example **ex, const char *rule, enum feedback_kind kind,
			  const char *query, size_t max)
{
	size_t n = 7;

	if (feedback_examples(ex, &n, store, rule, kind, query, max) < 0)
		fail_msg("feedback_examples: %s", error_message());
	return n;
}

/* Three false positives of one rule, far apart in path, language and code. */
static const struct seed sql_fp = {
	"injection", "app/db/query.py", 12, "SQL built from input",
	"the query is formatted with the user's name",
	"cursor.execute(sql_text % user_name)",
};
static const struct seed html_fp = {
	"injection", "web/views/render.ts", 30, "HTML injection",
	"the comment is written as HTML", "element.innerHTML = comment_body;",
};
static const struct seed eval_fp = {
	"injection", "tools/deploy.sh", 4, "Eval of arguments", "eval runs its arguments",
	"eval \"$deploy_args\"",
};

static const char ts_diff[] =
	"diff --git a/web/views/list.ts b/web/views/list.ts\n"
	"index 1111111..2222222 100644\n"
	"--- a/web/views/list.ts\n"
	"+++ b/web/views/list.ts\n"
	"@@ -1 +1,2 @@\n"
	" const a = 1;\n"
	"+row.innerHTML = comment_body.trim();\n";

static void test_examples_rank(void **state)
{
	struct feedback_example *ex = NULL;
	struct diff *diff = diff_of(ts_diff);
	struct buf q = BUF_INIT;
	size_t n = 0;

	(void)state;
	mark(seed(&sql_fp), FEEDBACK_FALSE_POSITIVE, NULL);
	mark(seed(&html_fp), FEEDBACK_FALSE_POSITIVE, "sanitised by the template");
	mark(seed(&eval_fp), FEEDBACK_FALSE_POSITIVE, NULL);
	assert_int_equal(feedback_query(&q, diff, NULL), 0);
	assert_string_equal(q.ptr, "\"web\" OR \"views\" OR \"list\" OR \"typescript\" OR \"ts\" OR "
			    "\"row\" OR \"innerHTML\" OR \"comment_body\" OR \"trim\"");
	n = examples_of(&ex, "injection", FEEDBACK_FALSE_POSITIVE,
			q.ptr, 3);
	/* Only the one that shares terms: the others match nothing. */
	assert_int_equal(n, 1);
	assert_int_equal(ex[0].kind, FEEDBACK_FALSE_POSITIVE);
	assert_string_equal(ex[0].file, "web/views/render.ts");
	assert_string_equal(ex[0].title, "HTML injection");
	assert_string_equal(ex[0].issue, "the comment is written as HTML");
	assert_string_equal(ex[0].code, "element.innerHTML = comment_body;");
	assert_string_equal(ex[0].note, "sanitised by the template");
	assert_true(ex[0].score < 0);
	feedback_examples_free(ex, n);

	/* Terms of all three: the one most like the query first. */
	n = examples_of(&ex, "injection", FEEDBACK_FALSE_POSITIVE,
			"\"deploy_args\" OR \"eval\" OR \"tools\" OR \"user_name\"", 3);
	assert_int_equal(n, 2);
	assert_string_equal(ex[0].file, "tools/deploy.sh");
	assert_string_equal(ex[1].file, "app/db/query.py");
	assert_null(ex[1].note);
	assert_true(ex[0].score < ex[1].score);
	feedback_examples_free(ex, n);
	buf_release(&q);
	diff_free(diff);
}

static void test_examples_filters(void **state)
{
	struct feedback_example *ex = NULL;
	int64_t html = seed(&html_fp), again;
	size_t n = 0;

	(void)state;
	/* Another rule's false positive and this rule's accepted finding, both matching. */
	mark(seed(&(struct seed){ "xss", "web/views/render.ts", 30, "XSS", "unescaped",
				  "element.innerHTML = comment_body;" }), FEEDBACK_FALSE_POSITIVE, NULL);
	mark(seed(&(struct seed){ "injection", "web/views/page.ts", 3, "Accepted one", "real",
				  "page.innerHTML = user_text;" }), FEEDBACK_ACCEPT, NULL);
	/* Marked twice (and found again in a later check): one example. */
	mark(html, FEEDBACK_FALSE_POSITIVE, "first");
	again = seed(&html_fp);
	mark(again, FEEDBACK_FALSE_POSITIVE, "second");
	n = examples_of(&ex, "injection", FEEDBACK_FALSE_POSITIVE,
			"\"innerHTML\"", 3);
	assert_int_equal(n, 1);
	assert_string_equal(ex[0].title, "HTML injection");
	assert_string_equal(ex[0].note, "second");
	feedback_examples_free(ex, n);

	n = examples_of(&ex, "injection", FEEDBACK_ACCEPT,
			"\"innerHTML\"", 3);
	assert_int_equal(n, 1);
	assert_string_equal(ex[0].title, "Accepted one");
	assert_int_equal(ex[0].kind, FEEDBACK_ACCEPT);
	feedback_examples_free(ex, n);

	/* Accepted later: no longer a false positive, now an accepted example. */
	mark(again, FEEDBACK_ACCEPT, "it was real after all");
	n = examples_of(&ex, "injection", FEEDBACK_FALSE_POSITIVE,
			"\"innerHTML\"", 3);
	assert_int_equal(n, 0);
	assert_null(ex);
	n = examples_of(&ex, "injection", FEEDBACK_ACCEPT,
			"\"innerHTML\"", 3);
	assert_int_equal(n, 2);
	feedback_examples_free(ex, n);
}

static void test_examples_recent_and_limits(void **state)
{
	struct feedback_example *ex = NULL;
	size_t n = 0;

	(void)state;
	mark(seed(&sql_fp), FEEDBACK_FALSE_POSITIVE, NULL);
	mark(seed(&html_fp), FEEDBACK_FALSE_POSITIVE, NULL);
	mark(seed(&eval_fp), FEEDBACK_FALSE_POSITIVE, NULL);

	/* No query: the most recent first. */
	n = examples_of(&ex, "injection", FEEDBACK_FALSE_POSITIVE,
			"", 3);
	assert_int_equal(n, 3);
	assert_string_equal(ex[0].file, "tools/deploy.sh");
	assert_string_equal(ex[1].file, "web/views/render.ts");
	assert_string_equal(ex[2].file, "app/db/query.py");
	assert_true(ex[0].score == 0);
	feedback_examples_free(ex, n);
	n = examples_of(&ex, "injection", FEEDBACK_FALSE_POSITIVE,
			NULL, 2);
	assert_int_equal(n, 2);
	feedback_examples_free(ex, n);

	/* A query FTS5 rejects falls back to the most recent, without an error. */
	error_clear();
	n = examples_of(&ex, "injection", FEEDBACK_FALSE_POSITIVE,
			"AND OR (", 2);
	assert_int_equal(n, 2);
	assert_string_equal(ex[0].file, "tools/deploy.sh");
	assert_string_equal(ex[1].file, "web/views/render.ts");
	feedback_examples_free(ex, n);

	/* max limits the matches too, and 0 asks for none. */
	n = examples_of(&ex, "injection", FEEDBACK_FALSE_POSITIVE,
			"\"eval\" OR \"innerHTML\" OR \"cursor\"", 2);
	assert_int_equal(n, 2);
	feedback_examples_free(ex, n);
	n = examples_of(&ex, "injection", FEEDBACK_FALSE_POSITIVE,
			"\"eval\"", 0);
	assert_int_equal(n, 0);
	n = examples_of(&ex, "other", FEEDBACK_FALSE_POSITIVE,
			"\"eval\"", 3);
	assert_int_equal(n, 0);
}

/* The store's search fills several lists at once, each with its kind, its limit, what is in force. */
static void test_store_similar_lists(void **state)
{
	struct feedback_examples lists[] = {
		{ .kind = FEEDBACK_FALSE_POSITIVE, .max = 1 },
		{ .kind = FEEDBACK_ACCEPT, .max = 5 },
		{ .kind = FEEDBACK_REJECT, .max = 0 },
	};

	(void)state;
	mark(seed(&sql_fp), FEEDBACK_FALSE_POSITIVE, NULL);
	mark(seed(&eval_fp), FEEDBACK_FALSE_POSITIVE, NULL);
	mark(seed(&html_fp), FEEDBACK_ACCEPT, "right");
	/* The later word on eval's fingerprint lifts its false positive. */
	mark(seed(&eval_fp), FEEDBACK_ACCEPT, NULL);

	assert_int_equal(store_feedback_similar(lists, 3, store, "injection",
						"\"cursor\" OR \"innerHTML\" OR \"eval\""), 0);
	assert_int_equal(lists[0].count, 1);
	assert_int_equal(lists[0].items[0].kind, FEEDBACK_FALSE_POSITIVE);
	assert_string_equal(lists[0].items[0].file, "app/db/query.py");
	assert_true(lists[0].items[0].score < 0);
	assert_int_equal(lists[1].count, 2);
	assert_int_equal(lists[1].items[0].kind, FEEDBACK_ACCEPT);
	assert_int_equal(lists[1].items[1].kind, FEEDBACK_ACCEPT);
	assert_int_equal(lists[2].count, 0);
	feedback_examples_release(&lists[0]);
	feedback_examples_release(&lists[1]);
	assert_null(lists[0].items);
	assert_int_equal(lists[0].count, 0);

	/* A query FTS5 cannot read: each list falls back to the most recent of its kind. */
	assert_int_equal(store_feedback_similar(lists, 2, store, "injection", "AND OR ("), 0);
	assert_int_equal(lists[0].count, 1);
	assert_string_equal(lists[0].items[0].file, "app/db/query.py");
	assert_int_equal(lists[1].count, 2);
	assert_string_equal(lists[1].items[0].file, "tools/deploy.sh");
	assert_string_equal(lists[1].items[1].file, "web/views/render.ts");
	assert_string_equal(lists[1].items[1].note, "right");
	feedback_examples_release(&lists[0]);
	feedback_examples_release(&lists[1]);
}

/* Statements SQLite began (a trigger's own, "-- ...", left out). */
static int statement_seen(unsigned type, void *ctx, void *p, void *x)
{
	const char *sql = x;

	(void)type;
	(void)p;
	if (strncmp(sql, "--", 2))
		(*(int *)ctx)++;
	return 0;
}

/* Count the statements of what runs until the next call; on PostgreSQL (no sqlite3 handle) nothing is counted. */
static void statements_count(int *count)
{
	*count = 0;
	if (store_db(store))
		sqlite3_trace_v2(store_db(store), SQLITE_TRACE_STMT, statement_seen, count);
}

static void statements_stop(void)
{
	if (store_db(store))
		sqlite3_trace_v2(store_db(store), 0, NULL, NULL);
}

/* Findings that share one, two or three of the query's terms, of a kind. */
static int64_t seed_terms(const char *file, const char *code, enum feedback_kind kind)
{
	return mark(seed(&(struct seed){ "injection", file, 1, "Greek letters", "letters", code }), kind, NULL);
}

static void assert_files(const struct feedback_examples *list, size_t count, const char *const *files)
{
	size_t i;

	assert_int_equal(list->count, count);
	for (i = 0; i < count; i++) {
		assert_int_equal(list->items[i].kind, list->kind);
		assert_string_equal(list->items[i].file, files[i]);
	}
}

/* One statement for all the kinds, each kind up to its own list's max, in its own order; refused: the recent ones. */
static void test_store_similar_one_statement(void **state)
{
	struct feedback_examples lists[] = {
		{ .kind = FEEDBACK_ACCEPT, .max = 1 },
		{ .kind = FEEDBACK_REJECT, .max = 0 },
		{ .kind = FEEDBACK_FALSE_POSITIVE, .max = 2 },
	};
	int statements = 0;
	size_t i;

	(void)state;
	/* Made in an order neither ranking follows: ids fp1 < fp3 < ac3 < fp2 < ac1 < rj3 < ac2. */
	seed_terms("fp1.c", "alpha", FEEDBACK_FALSE_POSITIVE);
	seed_terms("fp3.c", "alpha beta gamma", FEEDBACK_FALSE_POSITIVE);
	seed_terms("ac3.c", "alpha beta gamma", FEEDBACK_ACCEPT);
	seed_terms("fp2.c", "alpha beta", FEEDBACK_FALSE_POSITIVE);
	seed_terms("ac1.c", "alpha", FEEDBACK_ACCEPT);
	seed_terms("rj3.c", "alpha beta gamma", FEEDBACK_REJECT);
	seed_terms("ac2.c", "alpha beta", FEEDBACK_ACCEPT);

	statements_count(&statements);
	assert_int_equal(store_feedback_similar(lists, 3, store, "injection",
						"\"alpha\" OR \"beta\" OR \"gamma\""), 0);
	statements_stop();
	assert_int_equal(statements, store_db(store) ? 1 : 0);
	assert_files(&lists[0], 1, (const char *const[]){ "ac3.c" });
	assert_files(&lists[1], 0, NULL);
	assert_files(&lists[2], 2, (const char *const[]){ "fp3.c", "fp2.c" });
	assert_true(lists[2].items[0].score < lists[2].items[1].score);
	for (i = 0; i < 3; i++)
		feedback_examples_release(&lists[i]);

	/* Refused: the match, then the most recent of each kind, by its own max. */
	statements_count(&statements);
	assert_int_equal(store_feedback_similar(lists, 3, store, "injection", "AND OR ("), 0);
	statements_stop();
	assert_int_equal(statements, store_db(store) ? 2 : 0);
	assert_files(&lists[0], 1, (const char *const[]){ "ac2.c" });
	assert_files(&lists[1], 0, NULL);
	assert_files(&lists[2], 2, (const char *const[]){ "fp2.c", "fp3.c" });
	assert_true(lists[0].items[0].score == 0);
	for (i = 0; i < 3; i++)
		feedback_examples_release(&lists[i]);

	/* No query: one statement, the most recent; nothing asked (max 0 only): none. */
	statements_count(&statements);
	assert_int_equal(store_feedback_similar(lists, 3, store, "injection", ""), 0);
	assert_int_equal(store_feedback_similar(lists + 1, 1, store, "injection", "\"alpha\""), 0);
	statements_stop();
	assert_int_equal(statements, store_db(store) ? 1 : 0);
	assert_files(&lists[0], 1, (const char *const[]){ "ac2.c" });
	assert_files(&lists[1], 0, NULL);
	assert_files(&lists[2], 2, (const char *const[]){ "fp2.c", "fp3.c" });
	for (i = 0; i < 3; i++)
		feedback_examples_release(&lists[i]);
}

static const char py_diff[] =
	"diff --git a/app.py b/app.py\n"
	"index 1111111..2222222 100644\n"
	"--- a/app.py\n"
	"+++ b/app.py\n"
	"@@ -1,2 +1,2 @@\n"
	" def run(cmd):\n"
	"-    return subprocess.call(cmd)\n"
	"+    return subprocess.call(cmd, shell=True)\n";

static void test_prompt_examples(void **state)
{
	struct diff *diff = diff_of(py_diff);
	struct buf out = BUF_INIT;
	const char *expected =
		"Findings of this rule that reviewers marked as false positives; do not report "
		"findings like these:\n"
		"\n"
		"File: app.py\n"
		"Title: Shell injection\n"
		"Issue: shell=True with a caller's string\n"
		"Reviewer's note: cmd is a constant list\n"
		"```python\n"
		"return subprocess.call(cmd, shell=True)\n"
		"```\n"
		"\n"
		"File: lib/docs.py\n"
		"Title: Shell in a docstring\n"
		"Issue: a shell command in the help text\n"
		"````python\n"
		"HELP = \"```sh\\nsubprocess.call(cmd, shell=True)\\n```\"\n"
		"````\n"
		"\n"
		"Findings of this rule that reviewers confirmed; keep reporting problems like these:\n"
		"\n"
		"File: app/jobs.py\n"
		"Title: Shell with input\n"
		"Issue: the job name reaches the shell\n"
		"```python\n"
		"subprocess.call(\"run \" + job_name, shell=True)\n"
		"```\n";

	(void)state;
	/* None yet: empty. */
	assert_int_equal(feedback_prompt_examples(&out, store, diff, &py_rule), 0);
	assert_string_equal(out.ptr, "");

	mark(seed(&shell), FEEDBACK_FALSE_POSITIVE, "cmd is a constant list");
	mark(seed(&(struct seed){ "injection", "lib/docs.py", 2, "Shell in a docstring",
				  "a shell command in the help text",
				  "HELP = \"```sh\\nsubprocess.call(cmd, shell=True)\\n```\"" }),
	     FEEDBACK_FALSE_POSITIVE, NULL);
	mark(seed(&(struct seed){ "injection", "app/jobs.py", 7, "Shell with input",
				  "the job name reaches the shell",
				  "subprocess.call(\"run \" + job_name, shell=True)" }), FEEDBACK_ACCEPT, NULL);
	/* Not shown: another rule's, and one that shares nothing with the change. */
	mark(seed(&(struct seed){ "other", "app.py", 5, "Other rule", "x",
				  "return subprocess.call(cmd, shell=True)" }), FEEDBACK_FALSE_POSITIVE, NULL);
	mark(seed(&eval_fp), FEEDBACK_FALSE_POSITIVE, NULL);
	assert_int_equal(feedback_prompt_examples(&out, store, diff, &py_rule), 0);
	assert_string_equal(out.ptr, expected);
	buf_release(&out);
	diff_free(diff);
}

/* At most 3 false positives and 2 accepted findings, however many match. */
static void test_prompt_examples_caps(void **state)
{
	struct diff *diff = diff_of(py_diff);
	struct buf out = BUF_INIT;
	const char *p;
	char title[32], code[32];
	int i, files = 0;

	(void)state;
	for (i = 0; i < 5; i++) {
		snprintf(title, sizeof(title), "Shell %d", i);
		snprintf(code, sizeof(code), "ok(%d)", i);
		mark(seed(&(struct seed){ "injection", "app.py", i + 1, title, "x",
					  title }), FEEDBACK_FALSE_POSITIVE, NULL);
		mark(seed(&(struct seed){ "injection", "app.py", i + 1, title, "x", code }),
		     FEEDBACK_ACCEPT, NULL);
	}
	assert_int_equal(feedback_prompt_examples(&out, store, diff, &py_rule), 0);
	for (p = out.ptr; (p = strstr(p, "File: ")); p++)
		files++;
	assert_int_equal(files, 5);
	buf_release(&out);
	diff_free(diff);
}

int main(void)
{
	if (test_store_skip())
		return PG_SKIP;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_on_finding_copies, setup, teardown),
		cmocka_unit_test_setup_teardown(test_on_finding_without_fingerprint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_on_fix, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_suppression_follows_latest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_describe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_query_signals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_query_limits_and_quotes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_examples_rank, setup, teardown),
		cmocka_unit_test_setup_teardown(test_examples_filters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_examples_recent_and_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_similar_lists, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_similar_one_statement, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prompt_examples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prompt_examples_caps, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
