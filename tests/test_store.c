/*
 * The store: schema, migrations (version 1 to 2 with its data), a check's
 * round trip, crashes, concurrent writers, and corrupt or unreadable files
 * refused and left as they were.
 */
#include "testlib.h"
#include "testlib/store.h"

#include "config.h"
#include "status.h"
#include "store.h"
#include "store_sql.h"
#include "store_backend.h"
#include "usage.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *tmp;               /* a fresh directory for each test */

static int setup(void **state)
{
	(void)state;
	tmp = test_tmpdir("store");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	test_rmtree(tmp);
	free(tmp);
	tmp = NULL;
	return 0;
}

static char *path_in(const char *rel)
{
	char *path;

	if (asprintf(&path, "%s/%s", tmp, rel) < 0)
		fail_msg("out of memory");
	return path;
}

static struct store *open_ok(const char *path)
{
	struct store *store = NULL;

	if (store_open(&store, path) < 0)
		fail_msg("store_open %s: %s", path, error_message());
	return store;
}

/* A second, plain connection: what the store wrote, read back with SQL. */
static sqlite3 *plain_open(const char *path)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		fail_msg("sqlite3_open %s: %s", path, sqlite3_errmsg(db));
	sqlite3_busy_timeout(db, 5000);
	return db;
}

/* One row of a query with at most one parameter (?1 = id); the caller finalizes it. */
static sqlite3_stmt *row_of(sqlite3 *db, const char *sql, int64_t id)
{
	sqlite3_stmt *stmt = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_bind_parameter_count(stmt) > 0)
		sqlite3_bind_int64(stmt, 1, id);
	if (sqlite3_step(stmt) != SQLITE_ROW)
		fail_msg("no row for %s (%lld): %s", sql, (long long)id, sqlite3_errmsg(db));
	return stmt;
}

static int64_t int_of(sqlite3 *db, const char *sql, int64_t id)
{
	sqlite3_stmt *stmt = row_of(db, sql, id);
	int64_t value = sqlite3_column_int64(stmt, 0);

	sqlite3_finalize(stmt);
	return value;
}

static char *text_of(sqlite3 *db, const char *sql, int64_t id)
{
	sqlite3_stmt *stmt = row_of(db, sql, id);
	const unsigned char *text = sqlite3_column_text(stmt, 0);
	char *value = text ? strdup((const char *)text) : NULL;

	sqlite3_finalize(stmt);
	return value;
}

static void assert_col_text(sqlite3_stmt *stmt, int col, const char *expected)
{
	const unsigned char *text = sqlite3_column_text(stmt, col);

	if (!expected) {
		if (sqlite3_column_type(stmt, col) != SQLITE_NULL)
			fail_msg("column %s: expected NULL, got '%s'",
				 sqlite3_column_name(stmt, col), (const char *)text);
		return;
	}
	if (!text)
		fail_msg("column %s: expected '%s', got NULL", sqlite3_column_name(stmt, col), expected);
	assert_string_equal((const char *)text, expected);
}

/* --- the same through the store's statements, on either backend (testlib/store.h) --- */

/* A second connection to the location, for reading what the store wrote. */
static struct store *s_open(const char *where)
{
	return test_store_open(where);
}

static int64_t s_int_of(struct store *db, const char *sql, int64_t id)
{
	return test_store_int(db, sql, id);
}

static char *s_text_of(struct store *db, const char *sql, int64_t id)
{
	return test_store_text(db, sql, id);
}

/* A statement that returns no row: 0, or the store's failure. */
static int s_exec(struct store *db, const char *sql)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_prepare(db, &stmt, sql)) < 0)
		return error;
	error = store_step_done(stmt);
	store_finalize(stmt);
	return error;
}

static void s_col_text(struct store_stmt *stmt, int col, const char *expected)
{
	const char *text = store_column_text(stmt, col);

	if (!expected) {
		if (!store_column_is_null(stmt, col))
			fail_msg("column %d: expected NULL, got '%s'", col, text);
		return;
	}
	if (!text)
		fail_msg("column %d: expected '%s', got NULL", col, expected);
	assert_string_equal(text, expected);
}

static json_t *s_col_json(struct store_stmt *stmt, int col)
{
	const char *text = store_column_text(stmt, col);
	json_error_t err;
	json_t *value;

	if (!text)
		fail_msg("column %d is NULL", col);
	if (!(value = json_loads(text, 0, &err)))
		fail_msg("column %d is not JSON (%s): %s", col, err.text, text);
	return value;
}

static void s_col_strings(struct store_stmt *stmt, int col, const char *const *items, size_t count)
{
	json_t *array = s_col_json(stmt, col);
	size_t i;

	assert_true(json_is_array(array));
	assert_int_equal(json_array_size(array), count);
	for (i = 0; i < count; i++)
		assert_string_equal(json_string_value(json_array_get(array, i)), items[i]);
	json_decref(array);
}

/* A bytes column holding exactly len bytes of data. */
static void assert_blob(struct store_stmt *stmt, int col, const void *data, size_t len)
{
	size_t got = 0;
	const void *bytes = store_column_blob(stmt, col, &got);

	assert_int_equal(got, len);
	if (len)
		assert_memory_equal(bytes, data, len);
}

static void assert_json_text(json_t *object, const char *key, const char *expected)
{
	json_t *value = json_object_get(object, key);

	if (!expected) {
		assert_true(json_is_null(value));
		return;
	}
	assert_true(json_is_string(value));
	assert_string_equal(json_string_value(value), expected);
}

/* The fixtures: a check, two rules, their results and findings, the report. */

static char *llm_patterns[] = { "src/**/*.c", "include/*.h" };
static char *llm_context[] = { "docs/errors.md" };
static char *refs_a[] = { "src/a.c", "src/b.c" };
static char *merged_from[] = { "errors", "no-todo" };
static char *must_fix[] = { "Unchecked malloc in src/a.c:10" };

static const char diff_text[] = "diff --git a/src/a.c b/src/a.c\n+\tp = malloc(n);\n";

static struct check_record record_new(const char *branch, int64_t created_ms)
{
	struct check_record r = {
		.repo_path = NULL, .repo_name = NULL, .branch = branch, .environment = NULL,
		.base_label = "main", .base_oid = "1111111111111111111111111111111111111111",
		.head_label = "working tree", .head_oid = "2222222222222222222222222222222222222222",
		.target = "working tree against main",
		.diff = diff_text, .diff_len = sizeof(diff_text) - 1,
		.files = 1, .additions = 1, .deletions = 0, .created_ms = created_ms,
	};

	r.repo_path = tmp;
	return r;
}

static struct rule rule_llm(void)
{
	struct rule r = {
		.id = "errors", .name = "Error handling", .version = "2",
		.severity = SEV_MAJOR, .category = "reliability",
		.patterns = llm_patterns, .npatterns = 2,
		.context_files = llm_context, .ncontext = 1,
		.model = "small-model", .kind = RULE_LLM,
		.body = "Check every allocation.\n",
		.content = "---\nid: errors\nversion: 2\n---\nCheck every allocation.\n",
		.path = "threadlines/errors.md", .source = "repository",
	};

	return r;
}

static struct rule rule_local(void)
{
	struct rule r = {
		.id = "no-todo", .name = "no-todo", .severity = SEV_MINOR,
		.pattern = "TODO", .kind = RULE_LOCAL,
		.content = "---\nid: no-todo\npattern: TODO\n---\nNo TODOs.\n",
		.path = "/usr/share/revline/rules/no-todo.md", .source = "built-in",
	};

	return r;
}

static struct finding finding_new(const char *rule, const char *file, int line, const char *title)
{
	struct finding f = {
		.rule_id = (char *)rule, .file = (char *)file, .line = line, .end_line = line + 2,
		.severity = SEV_MAJOR, .category = "reliability", .title = (char *)title,
		.issue = "malloc's result is used unchecked", .suggestion = "check for NULL",
		.evidence = {
			.code_examined = "p = malloc(n);\nmemcpy(p, s, n);", .range_start = line,
			.range_end = line + 2, .method = "read the function", .checked_elsewhere = true,
			.where_checked = "callers in src/b.c", .impact = false,
		},
		.verified = true, .verify_note = "found at the line given",
	};

	memset(f.fingerprint, 'a', 40);
	f.fingerprint[40] = '\0';
	return f;
}

/* Begin a check with the two rules; the rules' ids are returned. */
static int64_t begin_with_rules(struct store *store, const struct rule *a, const struct rule *b,
				int64_t *id_a, int64_t *id_b)
{
	struct check_record r = record_new("feature", 1700000000123);
	int64_t check = 0;

	if (store_check_begin(store, &check, &r) < 0)
		fail_msg("store_check_begin: %s", error_message());
	if (store_rule_add(store, id_a, check, a) < 0 || store_rule_add(store, id_b, check, b) < 0)
		fail_msg("store_rule_add: %s", error_message());
	return check;
}

static void test_schema_created(void **state)
{
	static const char *const tables[] = {
		"bench_cases", "bench_results", "bench_runs", "check_dependencies", "check_diffs", "check_packages",
		"check_results", "check_threadlines", "checks", "context_blobs", "context_indexers", "context_reads", "context_sent", "context_tags",
		"feedback", "feedback_fts", "feedback_fts_config", "feedback_fts_data", "feedback_fts_docsize",
		"feedback_fts_idx", "findings", "fix_detection_claims", "fix_detection_runs", "llm_cache",
		"llm_refusals", "migrated_rows", "repos", "signal_fixes", "signal_runs", "signals",
		"sqlite_sequence", "violation_fixes",
	};
	static const char *const indexes[] = {
		"bench_runs_repo", "check_packages_check", "checks_author", "checks_consecutive", "context_tags_name", "feedback_fingerprint", "feedback_fix",
		"feedback_rule", "findings_check", "findings_fingerprint", "findings_rule", "findings_threadline",
		"fix_detection_claims_previous", "fix_detection_runs_check", "llm_cache_last_used", "repos_remote",
		"signal_fixes_file", "signal_fixes_finding", "signal_fixes_signal", "signal_runs_repo_tool", "signals_file",
		"signals_run", "violation_fixes_fix_type",
		"violation_fixes_threadline", "violation_fixes_time_between",
		"violation_fixes_violation_check",
	};
	char *path = path_in("new/deeper/revline.db"), *dir = path_in("new"), *mode;
	struct store *store = open_ok(path);
	sqlite3_stmt *stmt;
	struct stat st;
	sqlite3 *db;
	size_t i;

	(void)state;
	assert_string_equal(store_path(store), path);
	assert_int_equal(store_version(store), 11);
	assert_int_equal(int_of(store_db(store), "PRAGMA foreign_keys", 0), 1);
	/* NORMAL is 1. */
	assert_int_equal(int_of(store_db(store), "PRAGMA synchronous", 0), 1);
	/* The directories made are private, and so is the file (it holds diffs). */
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	db = plain_open(path);
	assert_int_equal(int_of(db, "PRAGMA user_version", 0), 11);
	mode = text_of(db, "PRAGMA journal_mode", 0);
	assert_string_equal(mode, "wal");
	free(mode);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' "
					    "ORDER BY name", -1, &stmt, NULL), SQLITE_OK);
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
		assert_col_text(stmt, 0, tables[i]);
	}
	assert_int_equal(sqlite3_step(stmt), SQLITE_DONE);
	sqlite3_finalize(stmt);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'index' "
					    "AND sql IS NOT NULL ORDER BY name", -1, &stmt, NULL), SQLITE_OK);
	for (i = 0; i < sizeof(indexes) / sizeof(indexes[0]); i++) {
		assert_int_equal(sqlite3_step(stmt), SQLITE_ROW);
		assert_col_text(stmt, 0, indexes[i]);
	}
	assert_int_equal(sqlite3_step(stmt), SQLITE_DONE);
	sqlite3_finalize(stmt);
	sqlite3_close(db);
	store_close(store);
	free(path);
	free(dir);

	/* In memory: nothing to create, the same schema. */
	store = open_ok(":memory:");
	assert_int_equal(store_version(store), 11);
	store_close(store);
}

#define SCHEMA_SQL "SELECT group_concat(sql, ';') FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%'"

static void test_reopen_is_idempotent(void **state)
{
	char *path = path_in("revline.db"), *schema, *again;
	struct check_record r = record_new("main", 0);
	struct store *store = open_ok(path);
	int64_t check = 0;
	sqlite3 *db;

	(void)state;
	assert_int_equal(store_check_begin(store, &check, &r), 0);
	db = plain_open(path);
	/*
	 * The tables the schema made; not SQLite's statistics, which PRAGMA
	 * optimize may start (empty) when a connection closes.
	 */
	schema = text_of(db, SCHEMA_SQL, 0);
	sqlite3_close(db);
	store_close(store);

	store = open_ok(path);
	assert_int_equal(store_version(store), 11);
	store_close(store);
	store = open_ok(path);
	db = plain_open(path);
	again = text_of(db, SCHEMA_SQL, 0);
	assert_string_equal(again, schema);
	free(again);
	assert_int_equal(int_of(db, "SELECT count(*) FROM checks", 0), 1);
	assert_int_equal(int_of(db, "SELECT count(*) FROM repos", 0), 1);
	sqlite3_close(db);
	store_close(store);
	free(schema);
	free(path);
}

static void test_newer_database_refused(void **state)
{
	char *path = path_in("revline.db"), *mode;
	struct store *store = open_ok(path);
	sqlite3 *db;

	(void)state;
	store_close(store);
	db = plain_open(path);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 12", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);

	store = NULL;
	assert_int_equal(store_open(&store, path), RL_EIO);
	assert_null(store);
	assert_non_null(strstr(error_message(), path));
	assert_non_null(strstr(error_message(), "newer revline"));
	assert_non_null(strstr(error_message(), "version 12"));
	/* Left as it was, journal mode included. */
	db = plain_open(path);
	assert_int_equal(int_of(db, "PRAGMA user_version", 0), 12);
	assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_open(&store, path), RL_EIO);
	db = plain_open(path);
	mode = text_of(db, "PRAGMA journal_mode", 0);
	assert_string_equal(mode, "delete");
	free(mode);
	sqlite3_close(db);
	free(path);
}

/* A file's bytes, for comparing before and after. */
static void file_bytes(struct buf *out, const char *path)
{
	buf_clear(out);
	if (buf_read_file(out, path) < 0)
		fail_msg("cannot read %s: %s", path, error_message());
}

/* Nothing was made beside the database either: no journal, no WAL. */
static void assert_no_side_files(const char *path)
{
	static const char *const suffixes[] = { "-wal", "-shm", "-journal" };
	struct stat st;
	char *side;
	size_t i;

	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		assert_true(asprintf(&side, "%s%s", path, suffixes[i]) > 0);
		if (stat(side, &st) == 0)
			fail_msg("%s was created", side);
		free(side);
	}
}

static void test_not_a_database(void **state)
{
	char *path = path_in("revline.db");
	struct buf before = BUF_INIT, after = BUF_INIT;
	struct store *store = NULL;
	char garbage[8192];
	size_t i;

	(void)state;
	/* Not a database at all; then bytes with no header, long enough to be read as pages. */
	test_write_str(tmp, "revline.db", "this is not a database, but it is long enough to be read as one "
		       "by SQLite, which wants a hundred bytes of header before it complains.\n");
	assert_int_equal(store_open(&store, path), RL_EIO);
	assert_null(store);
	assert_non_null(strstr(error_message(), path));
	assert_non_null(strstr(error_message(), "not a database"));
	for (i = 0; i < sizeof(garbage); i++)
		garbage[i] = (char)((i * 131 + 7) % 251);
	test_write(tmp, "revline.db", garbage, sizeof(garbage));
	file_bytes(&before, path);
	assert_int_equal(store_open(&store, path), RL_EIO);
	assert_non_null(strstr(error_message(), path));
	/* Twice: a first refusal must not have "repaired" it into something else. */
	assert_int_equal(store_open(&store, path), RL_EIO);
	file_bytes(&after, path);
	assert_int_equal(after.len, before.len);
	assert_memory_equal(after.ptr, before.ptr, before.len);
	assert_no_side_files(path);
	buf_release(&before);
	buf_release(&after);
	free(path);
}

/* The child's half of an unreadable file: as nobody, refused with the path named. */
static void unreadable_child(const char *path)
{
	struct store *store = NULL;

	if (setgid(65534) < 0 || setuid(65534) < 0)
		_exit(77);
	if (store_open(&store, path) != RL_EIO || store || !strstr(error_message(), path) ||
	    !strstr(error_message(), "Permission denied")) {
		fprintf(stderr, "child: store_open said: %s\n", error_message());
		_exit(1);
	}
	_exit(0);
}

static void test_unreadable_refused(void **state)
{
	char *path = path_in("revline.db"), *dir = path_in("a-directory.db");
	struct buf before = BUF_INIT, after = BUF_INIT;
	struct store *store = open_ok(path);
	struct check_record r = record_new("main", 0);
	int64_t check = 0;
	int status;
	pid_t pid;

	(void)state;
	assert_int_equal(store_check_begin(store, &check, &r), 0);
	store_close(store);
	file_bytes(&before, path);
	assert_int_equal(chmod(path, 0), 0);
	if (geteuid() != 0) {
		assert_int_equal(store_open(&store, path), RL_EIO);
		assert_null(store);
		assert_non_null(strstr(error_message(), path));
		assert_non_null(strstr(error_message(), "Permission denied"));
	} else {
		/* Root reads anything: try as nobody, who can reach the directory but not the file. */
		assert_int_equal(chmod(tmp, 0755), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0)
			unreadable_child(path);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		if (WEXITSTATUS(status) == 77)
			print_message("cannot become nobody: the permission case is not tested\n");
		else
			assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_int_equal(chmod(path, 0600), 0);
	file_bytes(&after, path);
	assert_int_equal(after.len, before.len);
	assert_memory_equal(after.ptr, before.ptr, before.len);

	/* A directory where the file should be. */
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(store_open(&store, dir), RL_EIO);
	assert_non_null(strstr(error_message(), dir));
	buf_release(&before);
	buf_release(&after);
	free(path);
	free(dir);
}

/*
 * Schema version 1 exactly as revline made it: a copy of migrations[0],
 * which never changes once released (later versions append a script).
 */
static const char v1_schema[] =
	"CREATE TABLE repos (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	path TEXT NOT NULL UNIQUE,\n"
	"	name TEXT NOT NULL,\n"
	"	created_at INTEGER NOT NULL\n"
	");\n"
	"CREATE TABLE checks (\n"
	"	id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
	"	repo_id INTEGER NOT NULL REFERENCES repos(id) ON DELETE CASCADE,\n"
	"	branch TEXT NOT NULL,\n"
	"	environment TEXT NOT NULL DEFAULT 'local',\n"
	"	base_label TEXT,\n"
	"	base_oid TEXT,\n"
	"	head_label TEXT,\n"
	"	head_oid TEXT,\n"
	"	target TEXT,\n"
	"	status TEXT NOT NULL DEFAULT 'running'\n"
	"		CHECK (status IN ('running', 'complete', 'partial', 'failed', 'cancelled')),\n"
	"	created_at INTEGER NOT NULL,\n"
	"	finished_at INTEGER,\n"
	"	duration_ms INTEGER CHECK (duration_ms >= 0),\n"
	"	rule_count INTEGER NOT NULL DEFAULT 0 CHECK (rule_count >= 0),\n"
	"	finding_count INTEGER NOT NULL DEFAULT 0 CHECK (finding_count >= 0),\n"
	"	summary TEXT,\n"
	"	overall_severity TEXT\n"
	"		CHECK (overall_severity IN ('clean', 'minor-issues', 'needs-work', 'critical')),\n"
	"	must_fix TEXT NOT NULL DEFAULT '[]' CHECK (json_type(must_fix) = 'array'),\n"
	"	synthesized INTEGER CHECK (synthesized IN (0, 1)),\n"
	"	fallback_reason TEXT,\n"
	"	requests INTEGER NOT NULL DEFAULT 0 CHECK (requests >= 0),\n"
	"	cache_hits INTEGER NOT NULL DEFAULT 0 CHECK (cache_hits >= 0),\n"
	"	tokens_in INTEGER NOT NULL DEFAULT 0 CHECK (tokens_in >= 0),\n"
	"	tokens_out INTEGER NOT NULL DEFAULT 0 CHECK (tokens_out >= 0),\n"
	"	CHECK ((status = 'running') = (finished_at IS NULL))\n"
	");\n"
	"CREATE INDEX checks_consecutive ON checks (repo_id, branch, environment, created_at);\n"
	"CREATE TABLE check_diffs (\n"
	"	check_id INTEGER PRIMARY KEY REFERENCES checks(id) ON DELETE CASCADE,\n"
	"	diff BLOB NOT NULL,\n"
	"	files INTEGER NOT NULL DEFAULT 0 CHECK (files >= 0),\n"
	"	additions INTEGER NOT NULL DEFAULT 0 CHECK (additions >= 0),\n"
	"	deletions INTEGER NOT NULL DEFAULT 0 CHECK (deletions >= 0)\n"
	");\n"
	"CREATE TABLE check_threadlines (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	check_id INTEGER NOT NULL REFERENCES checks(id) ON DELETE CASCADE,\n"
	"	threadline_id TEXT NOT NULL,\n"
	"	threadline_file_path TEXT NOT NULL,\n"
	"	threadline_version TEXT,\n"
	"	threadline_content TEXT NOT NULL,\n"
	"	threadline_patterns TEXT NOT NULL DEFAULT '[]'\n"
	"		CHECK (json_type(threadline_patterns) = 'array'),\n"
	"	context_files TEXT NOT NULL DEFAULT '[]' CHECK (json_type(context_files) = 'array'),\n"
	"	kind TEXT NOT NULL CHECK (kind IN ('llm', 'local')),\n"
	"	model TEXT,\n"
	"	severity TEXT NOT NULL CHECK (severity IN ('nitpick', 'minor', 'major', 'critical')),\n"
	"	source TEXT,\n"
	"	UNIQUE (check_id, threadline_id)\n"
	");\n"
	"CREATE TABLE check_results (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	check_threadline_id INTEGER NOT NULL UNIQUE\n"
	"		REFERENCES check_threadlines(id) ON DELETE CASCADE,\n"
	"	status TEXT NOT NULL CHECK (status IN ('compliant', 'attention', 'not_relevant',\n"
	"		'error', 'timeout', 'skipped')),\n"
	"	reasoning TEXT,\n"
	"	file_references TEXT NOT NULL DEFAULT '[]'\n"
	"		CHECK (json_type(file_references) = 'array'),\n"
	"	error TEXT,\n"
	"	cached INTEGER NOT NULL DEFAULT 0 CHECK (cached IN (0, 1)),\n"
	"	attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),\n"
	"	duration_ms INTEGER NOT NULL DEFAULT 0 CHECK (duration_ms >= 0),\n"
	"	tokens_in INTEGER NOT NULL DEFAULT 0 CHECK (tokens_in >= 0),\n"
	"	tokens_out INTEGER NOT NULL DEFAULT 0 CHECK (tokens_out >= 0),\n"
	"	chunks INTEGER NOT NULL DEFAULT 0 CHECK (chunks >= 0),\n"
	"	created_at INTEGER NOT NULL\n"
	");\n"
	"CREATE TABLE findings (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	check_id INTEGER NOT NULL REFERENCES checks(id) ON DELETE CASCADE,\n"
	"	check_threadline_id INTEGER REFERENCES check_threadlines(id) ON DELETE CASCADE,\n"
	"	rule_id TEXT,\n"
	"	file TEXT,\n"
	"	line INTEGER NOT NULL DEFAULT 0 CHECK (line >= 0),\n"
	"	end_line INTEGER NOT NULL DEFAULT 0 CHECK (end_line >= 0),\n"
	"	severity TEXT NOT NULL CHECK (severity IN ('nitpick', 'minor', 'major', 'critical')),\n"
	"	category TEXT,\n"
	"	title TEXT,\n"
	"	issue TEXT,\n"
	"	suggestion TEXT,\n"
	"	evidence TEXT NOT NULL DEFAULT '{}' CHECK (json_type(evidence) = 'object'),\n"
	"	verified INTEGER NOT NULL DEFAULT 0 CHECK (verified IN (0, 1)),\n"
	"	verify_note TEXT,\n"
	"	fingerprint TEXT,\n"
	"	suppressed INTEGER NOT NULL DEFAULT 0 CHECK (suppressed IN (0, 1)),\n"
	"	from_rules TEXT NOT NULL DEFAULT '[]' CHECK (json_type(from_rules) = 'array'),\n"
	"	reduced INTEGER NOT NULL DEFAULT 0 CHECK (reduced IN (0, 1)),\n"
	"	created_at INTEGER NOT NULL,\n"
	"	CHECK ((reduced = 1) = (check_threadline_id IS NULL))\n"
	");\n"
	"CREATE INDEX findings_fingerprint ON findings (fingerprint);\n"
	"CREATE INDEX findings_check ON findings (check_id);\n"
	"CREATE INDEX findings_rule ON findings (rule_id);\n"
	"CREATE INDEX findings_threadline ON findings (check_threadline_id);\n"
	"CREATE TABLE llm_cache (\n"
	"	key TEXT PRIMARY KEY,\n"
	"	provider TEXT NOT NULL,\n"
	"	model TEXT NOT NULL,\n"
	"	answer TEXT NOT NULL,\n"
	"	tokens_in INTEGER NOT NULL DEFAULT 0 CHECK (tokens_in >= 0),\n"
	"	tokens_out INTEGER NOT NULL DEFAULT 0 CHECK (tokens_out >= 0),\n"
	"	created_at INTEGER NOT NULL,\n"
	"	last_used_at INTEGER NOT NULL,\n"
	"	hits INTEGER NOT NULL DEFAULT 0 CHECK (hits >= 0)\n"
	");\n"
	"CREATE INDEX llm_cache_last_used ON llm_cache (last_used_at);\n";

/*
 * A version 1 database with a row in every table: a complete check with
 * two rules, results and findings (one merged), a check left running, a
 * failed one, and check 4 deleted (so the id sequence is ahead of the ids).
 */
static const char v1_data[] =
	"INSERT INTO repos VALUES (1, '/work/repo', 'repo', 1000);\n"
	"INSERT INTO checks (id, repo_id, branch, environment, base_label, base_oid, head_label, "
	"head_oid, target, status, created_at, finished_at, duration_ms, rule_count, finding_count, "
	"summary, overall_severity, must_fix, synthesized, fallback_reason, requests, cache_hits, "
	"tokens_in, tokens_out) VALUES "
	"(1, 1, 'main', 'local', 'HEAD', 'aaaa', 'working tree', NULL, 'HEAD..working tree', "
	"'complete', 2000, 2500, 500, 2, 1, 'One problem.', 'needs-work', '[\"fix it\"]', 1, NULL, "
	"3, 1, 900, 80),\n"
	"(2, 1, 'main', 'local', 'HEAD', 'aaaa', 'working tree', NULL, NULL, 'running', 3000, NULL, "
	"NULL, 0, 0, NULL, NULL, '[]', NULL, NULL, 0, 0, 0, 0),\n"
	"(3, 1, 'feature', 'local', NULL, NULL, NULL, NULL, NULL, 'failed', 4000, 4100, 100, 1, 0, "
	"NULL, NULL, '[]', NULL, 'the reduce call failed', 1, 0, 10, 0),\n"
	"(4, 1, 'gone', 'local', NULL, NULL, NULL, NULL, NULL, 'cancelled', 5000, 5001, 1, 0, 0, "
	"NULL, NULL, '[]', NULL, NULL, 0, 0, 0, 0);\n"
	"DELETE FROM checks WHERE id = 4;\n"
	"INSERT INTO check_diffs VALUES (1, X'2B6869', 1, 1, 0), (2, X'', 0, 0, 0), (3, X'00FF', 1, 0, 1);\n"
	"INSERT INTO check_threadlines VALUES "
	"(1, 1, 'errors', 'threadlines/errors.md', '2', 'content', '[\"*.c\"]', '[]', 'llm', 'm', "
	"'major', 'repository'),\n"
	"(2, 1, 'no-todo', '/usr/share/revline/rules/no-todo.md', NULL, 'c', '[]', '[]', 'local', "
	"NULL, 'minor', 'built-in'),\n"
	"(3, 2, 'errors', 'threadlines/errors.md', '2', 'content', '[]', '[]', 'llm', NULL, "
	"'major', 'repository');\n"
	"INSERT INTO check_results VALUES "
	"(1, 1, 'attention', 'r', '[\"a.c\"]', NULL, 0, 1, 400, 900, 80, 1, 2400),\n"
	"(2, 2, 'compliant', NULL, '[]', NULL, 1, 0, 0, 0, 0, 1, 2100),\n"
	"(3, 3, 'attention', 'r', '[]', NULL, 0, 1, 10, 1, 1, 1, 3100);\n"
	"INSERT INTO findings (id, check_id, check_threadline_id, rule_id, file, line, end_line, "
	"severity, title, evidence, fingerprint, from_rules, reduced, created_at) VALUES "
	"(1, 1, 1, 'errors', 'a.c', 3, 4, 'major', 't', '{}', 'fp1', '[]', 0, 2400),\n"
	"(2, 1, NULL, 'errors', 'a.c', 3, 4, 'major', 'merged', '{}', NULL, '[\"errors\"]', 1, 2500),\n"
	"(3, 2, 3, 'errors', 'b.c', 1, 1, 'minor', 'running', '{}', 'fp3', '[]', 0, 3100);\n"
	"INSERT INTO llm_cache VALUES ('key', 'openai', 'm', '{}', 1, 2, 1000, 2000, 3);\n"
	"PRAGMA user_version = 1;\n";

static void v1_make(const char *path)
{
	sqlite3 *db = NULL;
	char *message = NULL;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
		fail_msg("sqlite3_open %s: %s", path, sqlite3_errmsg(db));
	/* As revline 0.1 left it: WAL, foreign keys on while writing. */
	if (sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON", NULL, NULL, &message) ||
	    sqlite3_exec(db, v1_schema, NULL, NULL, &message) ||
	    sqlite3_exec(db, v1_data, NULL, NULL, &message))
		fail_msg("making a version 1 database: %s", message);
	sqlite3_close(db);
}

/* Every row of a query as text, a line per row, columns split by '|'. */
static char *rows_text(sqlite3 *db, const char *sql)
{
	struct buf out = BUF_INIT;
	sqlite3_stmt *stmt = NULL;
	int i;

	if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	while (sqlite3_step(stmt) == SQLITE_ROW) {
		for (i = 0; i < sqlite3_column_count(stmt); i++) {
			const unsigned char *text = sqlite3_column_type(stmt, i) == SQLITE_BLOB ? NULL :
				sqlite3_column_text(stmt, i);

			if (sqlite3_column_type(stmt, i) == SQLITE_BLOB)
				buf_printf(&out, "%sblob:%d", i ? "|" : "", sqlite3_column_bytes(stmt, i));
			else
				buf_printf(&out, "%s%s", i ? "|" : "", text ? (const char *)text : "NULL");
		}
		buf_putc(&out, '\n');
	}
	sqlite3_finalize(stmt);
	return buf_detach(&out);
}

/* What version 1 had, read the same way before and after migrating. */
static const char *const v1_dumps[] = {
	/* 7 added the remote. */
	"SELECT id, path, name, created_at FROM repos ORDER BY id",
	/* status and finished_at aside: the check left running is marked when opened. */
	"SELECT id, repo_id, branch, environment, base_label, base_oid, head_label, head_oid, target, "
	"created_at, duration_ms, rule_count, finding_count, summary, overall_severity, must_fix, "
	"synthesized, fallback_reason, requests, cache_hits, tokens_in, tokens_out FROM checks ORDER BY id",
	"SELECT id, status, finished_at FROM checks WHERE id <> 2 ORDER BY id",
	"SELECT check_id, hex(diff), files, additions, deletions FROM check_diffs ORDER BY check_id",
	/* The columns of version 1 (4 added timeout_ms). */
	"SELECT id, check_id, threadline_id, threadline_file_path, threadline_version, threadline_content, "
	"threadline_patterns, context_files, kind, model, severity, source FROM check_threadlines ORDER BY id",
	/* 5 added the cached tokens, cache writes and cost. */
	"SELECT id, check_threadline_id, status, reasoning, file_references, error, cached, attempts, "
	"duration_ms, tokens_in, tokens_out, chunks, created_at FROM check_results ORDER BY id",
	"SELECT * FROM findings ORDER BY id",
	"SELECT key, provider, model, answer, tokens_in, tokens_out, created_at, last_used_at, hits "
	"FROM llm_cache ORDER BY key",
};

#define NDUMPS (sizeof(v1_dumps) / sizeof(v1_dumps[0]))

/* Each table that holds a reference, and the table it must still point at. */
static void assert_references(sqlite3 *db)
{
	static const char *const pairs[][2] = {
		{ "checks", "repos" }, { "check_diffs", "checks" }, { "check_threadlines", "checks" },
		{ "check_results", "check_threadlines" }, { "findings", "checks" },
		{ "violation_fixes", "checks" }, { "fix_detection_runs", "checks" },
		{ "feedback", "findings" },
	};
	char sql[160];
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM pragma_foreign_key_list('%s') "
			 "WHERE \"table\" = '%s'", pairs[i][0], pairs[i][1]);
		if (int_of(db, sql, 0) < 1)
			fail_msg("%s no longer references %s", pairs[i][0], pairs[i][1]);
	}
	assert_int_equal(int_of(db, "SELECT count(*) FROM pragma_foreign_key_check", 0), 0);
	/* No table points at the rebuilt table's temporary name. */
	assert_int_equal(int_of(db, "SELECT count(*) FROM sqlite_master WHERE sql LIKE '%checks_v2%'", 0), 0);
}

/*
 * A database of version 6 (a version 11 one with what 7 to 11 added taken away)
 * with fix detection runs: version 7 claims the pairs whose run is done,
 * and no other; every row is kept, the new columns empty.
 */
static void test_migrate_v6_claims(void **state)
{
	static const char *const undo_v7[] = {
		"ALTER TABLE check_dependencies DROP COLUMN claims", "ALTER TABLE check_packages DROP COLUMN claimed",
		"ALTER TABLE check_packages DROP COLUMN lock", "ALTER TABLE check_packages DROP COLUMN via",
		"ALTER TABLE check_packages DROP COLUMN relation",
		"DROP TABLE bench_results", "DROP TABLE bench_runs", "DROP TABLE bench_cases",
		"DROP TABLE context_reads", "DROP TABLE context_sent", "ALTER TABLE check_results DROP COLUMN context",
		"DROP TABLE context_tags", "DROP TABLE context_blobs", "DROP TABLE context_indexers",
		"DROP TABLE fix_detection_claims", "DROP TABLE migrated_rows", "DROP INDEX checks_author",
		"DROP INDEX repos_remote", "ALTER TABLE repos DROP COLUMN remote",
		"ALTER TABLE checks DROP COLUMN author", "ALTER TABLE checks DROP COLUMN host",
		"ALTER TABLE feedback DROP COLUMN author", "ALTER TABLE feedback DROP COLUMN host",
		"ALTER TABLE signal_fixes DROP COLUMN author", "ALTER TABLE signal_fixes DROP COLUMN host",
		"ALTER TABLE fix_detection_runs DROP COLUMN host", "PRAGMA user_version = 6",
	};
	char *path = path_in("revline.db");
	struct store *store = open_ok(path);
	struct check_record r = record_new("feature", 0);
	int64_t checks[4];
	char *runs;
	sqlite3 *db;
	size_t i;

	(void)state;
	for (i = 0; i < 4; i++)
		assert_int_equal(store_check_begin(store, &checks[i], &r), 0);
	store_close(store);
	db = plain_open(path);
	for (i = 0; i < sizeof(undo_v7) / sizeof(undo_v7[0]); i++)
		if (sqlite3_exec(db, undo_v7[i], NULL, NULL, NULL) != SQLITE_OK)
			fail_msg("%s: %s", undo_v7[i], sqlite3_errmsg(db));
	/* Done twice for one pair (by hand), done for another, failed for a third, done without a previous check. */
	runs = sqlite3_mprintf(
		"INSERT INTO fix_detection_runs (id, check_id, previous_check_id, status, started_at) VALUES "
		"(1, %lld, %lld, 'done', 100), (2, %lld, %lld, 'done', 200), (3, %lld, %lld, 'done', 300), "
		"(4, %lld, %lld, 'failed', 400), (5, %lld, NULL, 'done', 500)",
		(long long)checks[1], (long long)checks[0], (long long)checks[1], (long long)checks[0],
		(long long)checks[2], (long long)checks[1], (long long)checks[3], (long long)checks[2],
		(long long)checks[0]);
	assert_int_equal(sqlite3_exec(db, runs, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_free(runs);
	sqlite3_close(db);

	store = open_ok(path);
	db = store_db(store);
	assert_int_equal(store_version(store), 11);
	assert_int_equal(int_of(db, "SELECT count(*) FROM fix_detection_claims", 0), 2);
	assert_int_equal(int_of(db, "SELECT run_id FROM fix_detection_claims WHERE check_id = :id", checks[1]), 2);
	assert_int_equal(int_of(db, "SELECT run_id FROM fix_detection_claims WHERE check_id = :id", checks[2]), 3);
	assert_int_equal(int_of(db, "SELECT count(*) FROM fix_detection_runs", 0), 5);
	assert_int_equal(int_of(db, "SELECT count(*) FROM checks WHERE author IS NULL AND host IS NULL", 0), 4);
	assert_int_equal(int_of(db, "SELECT count(*) FROM pragma_foreign_key_check", 0), 0);
	store_close(store);
	free(path);
}

static void test_migrate_v1(void **state)
{
	char *path = path_in("old/revline.db"), *before[NDUMPS], *after;
	struct check_record r = record_new("main", 0);
	struct store *store;
	int64_t check = 0;
	size_t i;
	sqlite3 *db;

	(void)state;
	test_sh_ok(tmp, "mkdir old");
	v1_make(path);
	db = plain_open(path);
	for (i = 0; i < NDUMPS; i++)
		before[i] = rows_text(db, v1_dumps[i]);
	sqlite3_close(db);

	store = open_ok(path);
	assert_int_equal(store_version(store), 11);
	db = store_db(store);
	assert_int_equal(int_of(db, "PRAGMA foreign_keys", 0), 1);
	for (i = 0; i < NDUMPS; i++) {
		after = rows_text(db, v1_dumps[i]);
		assert_string_equal(after, before[i]);
		free(after);
		free(before[i]);
	}
	assert_references(db);
	/* The new columns are empty for old checks; the one left running was interrupted. */
	assert_int_equal(int_of(db, "SELECT count(*) FROM checks WHERE pid IS NULL AND pid_start IS NULL", 0), 3);
	assert_int_equal(int_of(db, "SELECT count(*) FROM checks WHERE id = 2 AND status = 'interrupted' "
				"AND finished_at IS NOT NULL", 0), 1);
	/* Old rows billed no cached token that is known, at a cost not known. */
	assert_int_equal(int_of(db, "SELECT count(*) FROM checks WHERE tokens_cached = 0 AND "
				"tokens_cache_write = 0 AND cost_usd IS NULL", 0), 3);
	assert_int_equal(int_of(db, "SELECT count(*) FROM check_results WHERE tokens_cached = 0 AND "
				"tokens_cache_write = 0 AND cost_usd IS NULL", 0),
			 int_of(db, "SELECT count(*) FROM check_results", 0));
	assert_int_equal(int_of(db, "SELECT count(*) FROM llm_cache WHERE tokens_cached = 0 AND "
				"tokens_cache_write = 0", 0), int_of(db, "SELECT count(*) FROM llm_cache", 0));
	assert_int_equal(int_of(db, "SELECT count(*) FROM pragma_table_info('signal_fixes') WHERE "
				"name IN ('tokens_cached', 'cost_usd')", 0), 2);
	assert_int_not_equal(sqlite3_exec(db, "UPDATE checks SET cost_usd = -1 WHERE id = 1",
					  NULL, NULL, NULL), SQLITE_OK);
	assert_int_not_equal(sqlite3_exec(db, "UPDATE checks SET status = 'bogus' WHERE id = 1",
					  NULL, NULL, NULL), SQLITE_OK);
	assert_non_null(strstr(sqlite3_errmsg(db), "CHECK constraint failed"));
	/* AUTOINCREMENT still remembers the deleted check 4. */
	r.repo_path = "/work/repo";
	assert_int_equal(store_check_begin(store, &check, &r), 0);
	assert_int_equal(check, 5);
	assert_int_equal(int_of(db, "SELECT count(*) FROM repos", 0), 1);
	/* The cascades still run: a check takes its rules, results, findings and diff with it. */
	assert_int_equal(sqlite3_exec(db, "DELETE FROM checks WHERE id = 1", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(int_of(db, "SELECT (SELECT count(*) FROM check_threadlines WHERE check_id = 1) + "
				"(SELECT count(*) FROM check_results WHERE id IN (1, 2)) + "
				"(SELECT count(*) FROM findings WHERE check_id = 1) + "
				"(SELECT count(*) FROM check_diffs WHERE check_id = 1)", 0), 0);
	assert_int_equal(int_of(db, "SELECT count(*) FROM findings", 0), 1);
	store_close(store);
	free(path);
}

static void check_round_trip_check_row(struct store *db, int64_t check, const char *repo_path)
{
	struct store_stmt *stmt = test_store_row(db,
		"SELECT r.path, r.name, c.branch, c.environment, c.base_label, c.base_oid, "
		"c.head_label, c.head_oid, c.target, c.status, c.created_at, c.finished_at, "
		"d.diff, d.files, d.additions, d.deletions "
		"FROM checks c JOIN repos r ON r.id = c.repo_id JOIN check_diffs d ON d.check_id = c.id "
		"WHERE c.id = :id", check);

	s_col_text(stmt, 0, repo_path);
	s_col_text(stmt, 1, strrchr(repo_path, '/') + 1);
	s_col_text(stmt, 2, "feature");
	s_col_text(stmt, 3, "local");
	s_col_text(stmt, 4, "main");
	s_col_text(stmt, 5, "1111111111111111111111111111111111111111");
	s_col_text(stmt, 6, "working tree");
	s_col_text(stmt, 7, "2222222222222222222222222222222222222222");
	s_col_text(stmt, 8, "working tree against main");
	s_col_text(stmt, 9, "running");
	assert_int_equal(store_column_int64(stmt, 10), 1700000000123);
	assert_int_equal(store_column_is_null(stmt, 11), true);
	assert_blob(stmt, 12, diff_text, sizeof(diff_text) - 1);
	assert_int_equal(store_column_int(stmt, 13), 1);
	assert_int_equal(store_column_int(stmt, 14), 1);
	assert_int_equal(store_column_int(stmt, 15), 0);
	store_finalize(stmt);
}

static void check_round_trip_rules(struct store *db, int64_t id_a, int64_t id_b, int64_t check)
{
	static const char *const patterns[] = { "src/**/*.c", "include/*.h" };
	static const char *const context[] = { "docs/errors.md" };
	const char *sql = "SELECT check_id, threadline_id, threadline_file_path, threadline_version, "
		"threadline_content, threadline_patterns, context_files, kind, model, severity, source "
		"FROM check_threadlines WHERE id = :id";
	struct rule a = rule_llm(), b = rule_local();
	struct store_stmt *stmt = test_store_row(db, sql, id_a);

	assert_int_equal(store_column_int64(stmt, 0), check);
	s_col_text(stmt, 1, "errors");
	s_col_text(stmt, 2, "threadlines/errors.md");
	s_col_text(stmt, 3, "2");
	s_col_text(stmt, 4, a.content);
	s_col_strings(stmt, 5, patterns, 2);
	s_col_strings(stmt, 6, context, 1);
	s_col_text(stmt, 7, "llm");
	s_col_text(stmt, 8, "small-model");
	s_col_text(stmt, 9, "major");
	s_col_text(stmt, 10, "repository");
	store_finalize(stmt);

	stmt = test_store_row(db, sql, id_b);
	s_col_text(stmt, 1, "no-todo");
	s_col_text(stmt, 2, b.path);
	s_col_text(stmt, 3, NULL);
	s_col_text(stmt, 4, b.content);
	s_col_strings(stmt, 5, NULL, 0);
	s_col_strings(stmt, 6, NULL, 0);
	s_col_text(stmt, 7, "local");
	s_col_text(stmt, 8, NULL);
	s_col_text(stmt, 9, "minor");
	s_col_text(stmt, 10, "built-in");
	store_finalize(stmt);
}

static void check_round_trip_results(struct store *db, int64_t id_a, int64_t id_b)
{
	static const char *const refs[] = { "src/a.c", "src/b.c" };
	const char *sql = "SELECT status, reasoning, file_references, error, cached, attempts, "
		"duration_ms, tokens_in, tokens_out, chunks, created_at, tokens_cached, "
		"tokens_cache_write, cost_usd FROM check_results WHERE check_threadline_id = :id";
	struct store_stmt *stmt = test_store_row(db, sql, id_a);
	int64_t now = (int64_t)time(NULL) * 1000;

	s_col_text(stmt, 0, "attention");
	s_col_text(stmt, 1, "two allocations are unchecked");
	s_col_strings(stmt, 2, refs, 2);
	s_col_text(stmt, 3, NULL);
	assert_int_equal(store_column_int(stmt, 4), 0);
	assert_int_equal(store_column_int(stmt, 5), 2);
	assert_int_equal(store_column_int(stmt, 6), 4321);
	assert_int_equal(store_column_int(stmt, 7), 1500);
	assert_int_equal(store_column_int(stmt, 8), 300);
	assert_int_equal(store_column_int(stmt, 9), 3);
	assert_in_range(store_column_int64(stmt, 10), now - 60000, now + 60000);
	assert_int_equal(store_column_int(stmt, 11), 1024);
	assert_int_equal(store_column_int(stmt, 12), 128);
	assert_true(store_column_double(stmt, 13) == 0.00375);
	store_finalize(stmt);

	stmt = test_store_row(db, sql, id_b);
	s_col_text(stmt, 0, "compliant");
	s_col_text(stmt, 1, NULL);
	s_col_strings(stmt, 2, NULL, 0);
	assert_int_equal(store_column_int(stmt, 4), 1);
	assert_int_equal(store_column_int(stmt, 11), 0);
	assert_int_equal(store_column_is_null(stmt, 13), true);
	store_finalize(stmt);
}

/* A stored finding against the struct it came from. */
static void check_finding_row(struct store *db, const struct finding *f, int64_t check, int64_t threadline)
{
	struct store_stmt *stmt = test_store_row(db,
		"SELECT check_id, check_threadline_id, rule_id, file, line, end_line, severity, "
		"category, title, issue, suggestion, evidence, verified, verify_note, fingerprint, "
		"suppressed, from_rules, reduced FROM findings WHERE id = :id", f->id);
	const char *from[8];
	json_t *ev, *range;
	size_t i;

	assert_int_equal(store_column_int64(stmt, 0), check);
	if (threadline)
		assert_int_equal(store_column_int64(stmt, 1), threadline);
	else
		assert_int_equal(store_column_is_null(stmt, 1), true);
	s_col_text(stmt, 2, f->rule_id);
	s_col_text(stmt, 3, f->file);
	assert_int_equal(store_column_int(stmt, 4), f->line);
	assert_int_equal(store_column_int(stmt, 5), f->end_line);
	s_col_text(stmt, 6, severity_name(f->severity));
	s_col_text(stmt, 7, f->category);
	s_col_text(stmt, 8, f->title);
	s_col_text(stmt, 9, f->issue);
	s_col_text(stmt, 10, f->suggestion);
	ev = s_col_json(stmt, 11);
	assert_true(json_is_object(ev));
	assert_int_equal(json_object_size(ev), 6);
	assert_json_text(ev, "code_examined", f->evidence.code_examined);
	range = json_object_get(ev, "line_range_examined");
	if (f->evidence.range_start || f->evidence.range_end) {
		assert_int_equal(json_array_size(range), 2);
		assert_int_equal(json_integer_value(json_array_get(range, 0)), f->evidence.range_start);
		assert_int_equal(json_integer_value(json_array_get(range, 1)), f->evidence.range_end);
	} else {
		assert_true(json_is_null(range));
	}
	assert_json_text(ev, "verification_method", f->evidence.method);
	assert_true(json_is_boolean(json_object_get(ev, "checked_for_handling_elsewhere")));
	assert_int_equal(json_is_true(json_object_get(ev, "checked_for_handling_elsewhere")),
			 f->evidence.checked_elsewhere);
	assert_json_text(ev, "where_checked", f->evidence.where_checked);
	assert_int_equal(json_is_true(json_object_get(ev, "is_impact_finding")), f->evidence.impact);
	json_decref(ev);
	assert_int_equal(store_column_int(stmt, 12), f->verified);
	s_col_text(stmt, 13, f->verify_note);
	s_col_text(stmt, 14, f->fingerprint[0] ? f->fingerprint : NULL);
	assert_int_equal(store_column_int(stmt, 15), f->suppressed);
	for (i = 0; i < f->nfrom; i++)
		from[i] = f->from_rules[i];
	s_col_strings(stmt, 16, from, f->nfrom);
	assert_int_equal(store_column_int(stmt, 17), threadline ? 0 : 1);
	store_finalize(stmt);
}

static void test_check_round_trip(void **state)
{
	static const char *const must[] = { "Unchecked malloc in src/a.c:10" };
	char *path = test_store_location(tmp, "revline.db");
	struct store *store = open_ok(path);
	struct rule a = rule_llm(), b = rule_local();
	struct finding fa[2], merged[1];
	struct rule_result ra = { 0 }, rb = { 0 };
	struct check_stats stats = { .requests = 7, .cache_hits = 2, .tokens_in = 9000, .tokens_out = 800,
				     .tokens_cached = 6144, .tokens_cache_write = 1024, .cost_usd = 0.0125 };
	struct report report = { 0 };
	int64_t check, id_a = 0, id_b = 0;
	struct store_stmt *stmt;
	struct store *db;

	(void)state;
	check = begin_with_rules(store, &a, &b, &id_a, &id_b);
	assert_true(check > 0 && id_a > 0 && id_b > id_a);

	fa[0] = finding_new("errors", "src/a.c", 10, "Unchecked malloc");
	fa[1] = finding_new("errors", "src/b.c", 3, "Unchecked realloc");
	/* No evidence at all, and code that is not UTF-8 (a Latin-1 file). */
	memset(&fa[1].evidence, 0, sizeof(fa[1].evidence));
	fa[1].evidence.impact = true;
	fa[1].fingerprint[0] = '\0';
	fa[1].verified = false;
	fa[1].verify_note = NULL;
	fa[1].suppressed = true;
	fa[1].severity = SEV_NITPICK;
	ra = (struct rule_result){
		.rule = &a, .id = id_a, .status = RULE_ATTENTION, .attempts = 2, .duration_ms = 4321,
		.reasoning = "two allocations are unchecked", .file_references = refs_a, .nrefs = 2,
		.findings = fa, .nfindings = 2, .tokens_in = 1500, .tokens_out = 300, .chunks = 3,
		.chunks_done = 3, .tokens_cached = 1024, .tokens_cache_write = 128, .cost_usd = 0.00375,
	};
	/* Found by the rule's id when the caller did not keep the row id; its cost is not known. */
	rb = (struct rule_result){ .rule = &b, .status = RULE_COMPLIANT, .cached = true, .chunks = 1,
				   .cost_usd = -1 };
	assert_int_equal(store_result_put(store, check, &ra), 0);
	assert_int_equal(store_result_put(store, check, &rb), 0);
	assert_true(fa[0].id > 0 && fa[1].id > fa[0].id);
	assert_int_equal(rb.id, id_b);

	/* Read while the check is running, then again once finished. */
	db = s_open(path);
	check_round_trip_check_row(db, check, tmp);

	merged[0] = finding_new("errors", "src/a.c", 10, "Unchecked allocations");
	merged[0].from_rules = merged_from;
	merged[0].nfrom = 2;
	merged[0].severity = SEV_CRITICAL;
	report = (struct report){
		.summary = "One critical problem.", .overall_severity = "critical",
		.must_fix = must_fix, .nmust_fix = 1, .findings = merged, .nfindings = 1,
		.synthesized = true,
	};
	assert_int_equal(store_check_finish(store, check, "complete", 5678, &stats, &report), 0);
	assert_true(merged[0].id > fa[1].id);

	check_round_trip_rules(db, id_a, id_b, check);
	check_round_trip_results(db, id_a, id_b);
	check_finding_row(db, &fa[0], check, id_a);
	check_finding_row(db, &fa[1], check, id_a);
	check_finding_row(db, &merged[0], check, 0);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM findings WHERE check_id = :id", check), 3);

	stmt = test_store_row(db, "SELECT status, finished_at - created_at > 0, duration_ms, rule_count, "
		      "finding_count, summary, overall_severity, must_fix, synthesized, fallback_reason, "
		      "requests, cache_hits, tokens_in, tokens_out, tokens_cached, tokens_cache_write, "
		      "cost_usd FROM checks WHERE id = :id", check);
	s_col_text(stmt, 0, "complete");
	assert_int_equal(store_column_int(stmt, 1), 1);
	assert_int_equal(store_column_int(stmt, 2), 5678);
	assert_int_equal(store_column_int(stmt, 3), 2);
	assert_int_equal(store_column_int(stmt, 4), 1);
	s_col_text(stmt, 5, "One critical problem.");
	s_col_text(stmt, 6, "critical");
	s_col_strings(stmt, 7, must, 1);
	assert_int_equal(store_column_int(stmt, 8), 1);
	s_col_text(stmt, 9, NULL);
	assert_int_equal(store_column_int(stmt, 10), 7);
	assert_int_equal(store_column_int(stmt, 11), 2);
	assert_int_equal(store_column_int(stmt, 12), 9000);
	assert_int_equal(store_column_int(stmt, 13), 800);
	assert_int_equal(store_column_int(stmt, 14), 6144);
	assert_int_equal(store_column_int(stmt, 15), 1024);
	assert_true(store_column_double(stmt, 16) == 0.0125);
	store_finalize(stmt);
	store_close(db);
	store_close(store);
	free(path);
}

/* A retried rule replaces its result and findings; finishing twice replaces the report. */
static void test_put_again_replaces(void **state)
{
	char *path = test_store_location(tmp, "revline.db");
	struct store *store = open_ok(path);
	struct rule a = rule_llm(), b = rule_local();
	struct finding f[3];
	struct rule_result r = { 0 };
	struct report report = { 0 };
	int64_t check, id_a = 0, id_b = 0;
	struct store *db;
	char *text;

	(void)state;
	check = begin_with_rules(store, &a, &b, &id_a, &id_b);
	f[0] = finding_new("errors", "src/a.c", 1, "first");
	f[1] = finding_new("errors", "src/a.c", 2, "second");
	r = (struct rule_result){ .rule = &a, .id = id_a, .status = RULE_TIMEOUT, .error = "timed out" };
	assert_int_equal(store_result_put(store, check, &r), 0);
	r = (struct rule_result){ .rule = &a, .id = id_a, .status = RULE_ATTENTION,
				  .findings = f, .nfindings = 2 };
	assert_int_equal(store_result_put(store, check, &r), 0);
	/* Run a third time, found by the rule's id: one finding, which replaces both. */
	f[2] = finding_new("errors", "src/a.c", 3, "third");
	r = (struct rule_result){ .rule = &a, .status = RULE_ATTENTION, .findings = &f[2], .nfindings = 1,
				  .timeout_ms = 9000 };
	assert_int_equal(store_result_put(store, check, &r), 0);
	assert_int_equal(r.id, id_a);
	/* The other rule's first result leaves the first rule's alone. */
	r = (struct rule_result){ .rule = &b, .id = id_b, .status = RULE_COMPLIANT };
	assert_int_equal(store_result_put(store, check, &r), 0);
	report = (struct report){ .findings = f, .nfindings = 2, .overall_severity = "needs-work",
				  .fallback_reason = "the reduce call failed" };
	assert_int_equal(store_check_finish(store, check, "partial", 10, NULL, &report), 0);
	report.nfindings = 1;
	assert_int_equal(store_check_finish(store, check, "partial", 20, NULL, &report), 0);

	db = s_open(path);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM check_results", 0), 2);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM check_results WHERE status = 'attention' "
				"AND error IS NULL AND check_threadline_id = :id", id_a), 1);
	assert_int_equal(s_int_of(db, "SELECT timeout_ms FROM check_threadlines WHERE id = :id", id_a), 9000);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM findings WHERE reduced = 0", 0), 1);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM findings WHERE title <> 'third' AND reduced = 0", 0), 0);
	text = s_text_of(db, "SELECT title FROM findings WHERE reduced = 0 AND check_threadline_id = :id", id_a);
	assert_string_equal(text, "third");
	free(text);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM findings WHERE reduced = 1", 0), 1);
	assert_int_equal(s_int_of(db, "SELECT finding_count FROM checks WHERE id = :id", check), 1);
	assert_int_equal(s_int_of(db, "SELECT synthesized FROM checks WHERE id = :id", check), 0);
	assert_int_equal(s_int_of(db, "SELECT duration_ms FROM checks WHERE id = :id", check), 20);
	store_close(db);
	store_close(store);
	free(path);
}

/*
 * A check's rules in one call, more than one statement's worth: each id is
 * the row of its own rule. A failure in a later statement stores none.
 */
#define MANY_RULES 70
static void test_rules_add_many(void **state)
{
	char *path = test_store_location(tmp, "revline.db");
	struct store *store = open_ok(path);
	struct check_record record = record_new("feature", 1700000000123);
	struct rule rules[MANY_RULES];
	const struct rule *list[MANY_RULES];
	char names[MANY_RULES][16], contents[MANY_RULES][32];
	int64_t ids[MANY_RULES], check = 0, other = 0;
	struct store_stmt *stmt;
	size_t i, j;

	(void)state;
	assert_int_equal(store_check_begin(store, &check, &record), 0);
	for (i = 0; i < MANY_RULES; i++) {
		/* Named against their order, local and LLM rules mixed. */
		snprintf(names[i], sizeof(names[i]), "rule-%02zu", MANY_RULES - i);
		snprintf(contents[i], sizeof(contents[i]), "content of %zu", i);
		rules[i] = i % 3 ? rule_llm() : rule_local();
		rules[i].id = names[i];
		rules[i].content = contents[i];
		list[i] = &rules[i];
	}
	assert_int_equal(store_rules_add(store, ids, check, list, MANY_RULES), 0);
	for (i = 0; i < MANY_RULES; i++) {
		assert_true(ids[i] > 0);
		for (j = 0; j < i; j++)
			assert_true(ids[j] != ids[i]);
		stmt = test_store_row(store, "SELECT check_id, threadline_id, threadline_content, kind FROM "
				      "check_threadlines WHERE id = :id", ids[i]);
		assert_int_equal(store_column_int64(stmt, 0), check);
		s_col_text(stmt, 1, names[i]);
		s_col_text(stmt, 2, contents[i]);
		s_col_text(stmt, 3, i % 3 ? "llm" : "local");
		store_finalize(stmt);
	}
	assert_int_equal(s_int_of(store, "SELECT count(*) FROM check_threadlines WHERE check_id = :id", check),
			 MANY_RULES);

	/* The last statement fails (a rule twice): the rows of the first ones go too. */
	assert_int_equal(store_check_begin(store, &other, &record), 0);
	rules[MANY_RULES - 1].id = names[0];
	assert_int_equal(store_rules_add(store, ids, other, list, MANY_RULES), RL_EIO);
	for (i = 0; i < MANY_RULES; i++)
		assert_int_equal(ids[i], 0);
	assert_int_equal(s_int_of(store, "SELECT count(*) FROM check_threadlines WHERE check_id = :id", other), 0);
	/* A rule without an id is refused before anything is written. */
	rules[MANY_RULES - 1].id = NULL;
	ids[0] = 1;
	assert_int_equal(store_rules_add(store, ids, other, list, MANY_RULES), RL_EUSAGE);
	assert_int_equal(ids[0], 0);
	assert_int_equal(s_int_of(store, "SELECT count(*) FROM check_threadlines WHERE check_id = :id", other), 0);
	store_close(store);
	free(path);
}

/* What the store refuses before touching the database, and unknown rows. */
static void test_bad_arguments(void **state)
{
	char *path = test_store_location(tmp, "revline.db");
	struct store *store = open_ok(path);
	struct rule a = rule_llm(), b = rule_local(), c = rule_llm();
	struct rule_result r = { .rule = &a, .status = RULE_RUNNING };
	struct report report = { .overall_severity = "fine" };
	int64_t check, id_a = 0, id_b = 0;
	struct store *db;

	(void)state;
	check = begin_with_rules(store, &a, &b, &id_a, &id_b);
	assert_int_equal(store_result_put(store, check, &r), RL_EUSAGE);
	assert_non_null(strstr(error_message(), "has not settled"));
	c.id = "unknown";
	r = (struct rule_result){ .rule = &c, .status = RULE_COMPLIANT };
	assert_int_equal(store_result_put(store, check, &r), RL_ENOTFOUND);
	assert_non_null(strstr(error_message(), "no rule unknown"));
	/* A row id from another check is not this check's. */
	r = (struct rule_result){ .rule = &a, .id = id_a, .status = RULE_COMPLIANT };
	assert_int_equal(store_result_put(store, check + 1, &r), RL_ENOTFOUND);
	assert_int_equal(store_check_finish(store, check, "running", 0, NULL, NULL), RL_EUSAGE);
	assert_int_equal(store_check_finish(store, check, "complete", 0, NULL, &report), RL_EUSAGE);
	assert_non_null(strstr(error_message(), "'fine'"));
	assert_int_equal(store_check_finish(store, check + 100, "failed", 0, NULL, NULL), RL_ENOTFOUND);
	/* The same rule twice in one check. */
	assert_int_equal(store_rule_add(store, &id_a, check, &a), RL_EIO);
	assert_int_equal(id_a, 0);
	assert_non_null(strstr(error_message(), TEST_SQL("UNIQUE constraint failed", "violates unique constraint")));

	/* Without a report the rules' own findings are counted. */
	assert_int_equal(store_check_finish(store, check, "failed", 3, NULL, NULL), 0);
	db = s_open(path);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM checks WHERE status = 'failed' AND "
				"synthesized IS NULL AND finding_count = 0 AND summary IS NULL", 0), 1);
	store_close(db);
	store_close(store);
	free(path);
}

static void test_foreign_keys(void **state)
{
	char *path = test_store_location(tmp, "revline.db");
	struct store *store = open_ok(path);
	struct rule a = rule_llm(), b = rule_local();
	struct finding f = finding_new("errors", "src/a.c", 1, "x");
	struct rule_result r = { 0 };
	int64_t check, id_a = 0, id_b = 0, id = 1;
	struct store *db;

	(void)state;
	assert_int_equal(store_rule_add(store, &id, 4242, &a), RL_EIO);
	assert_int_equal(id, 0);
	assert_non_null(strstr(error_message(), path));
	assert_non_null(strstr(error_message(), TEST_SQL("FOREIGN KEY constraint failed",
							   "violates foreign key constraint")));

	check = begin_with_rules(store, &a, &b, &id_a, &id_b);
	r = (struct rule_result){ .rule = &a, .id = id_a, .status = RULE_ATTENTION,
				  .findings = &f, .nfindings = 1 };
	assert_int_equal(store_result_put(store, check, &r), 0);
	assert_int_equal(store_check_finish(store, check, "complete", 1, NULL, NULL), 0);

	/* Deleting a check takes everything of it; deleting the repo takes its checks. */
	db = s_open(path);
	if (!test_store_pg())
		assert_int_equal(s_exec(db, "PRAGMA foreign_keys = ON"), 0);
	assert_int_not_equal(s_exec(db, "INSERT INTO findings (check_id, severity, reduced, "
					  "created_at) VALUES (999, 'major', 1, 0)"), 0);
	assert_int_equal(s_exec(db, "DELETE FROM checks"), 0);
	assert_int_equal(s_int_of(db, "SELECT (SELECT count(*) FROM check_diffs) + (SELECT count(*) "
				"FROM check_threadlines) + (SELECT count(*) FROM check_results) + "
				"(SELECT count(*) FROM findings)", 0), 0);
	store_close(db);
	check = begin_with_rules(store, &a, &b, &id_a, &id_b);
	assert_int_equal(s_exec(store, "DELETE FROM repos"), 0);
	assert_int_equal(s_int_of(store, "SELECT count(*) FROM checks", 0), 0);
	assert_int_equal(s_int_of(store, "SELECT count(*) FROM check_threadlines", 0), 0);
	store_close(store);
	free(path);
}

/* Another writer holding the lock too long: the message names the file; nothing is left open. */
/* The cache's answer and its tokens in and out (NULL: not wanted). */
static int cache_get(struct store *store, const char *key, char **answer, long *in, long *out)
{
	struct usage usage = { 0 };
	int error = store_cache_fetch(store, key, answer, &usage);

	if (!error && in)
		*in = usage.tokens_in;
	if (!error && out)
		*out = usage.tokens_out;
	return error;
}

static int cache_put(struct store *store, const char *key, const char *provider, const char *model,
		     const char *answer, long in, long out)
{
	struct usage usage = { .tokens_in = in, .tokens_out = out };

	return store_cache_keep(store, key, provider, model, answer, &usage);
}

static void test_locked_names_file(void **state)
{
	char *path = path_in("revline.db"), *message;
	struct store *store = open_ok(path);
	struct check_record r = record_new("main", 0);
	int64_t check = 1;
	sqlite3 *db = plain_open(path);

	(void)state;
	sqlite3_busy_timeout(store_db(store), 50);      /* not the 5 s a user gets */
	assert_int_equal(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(store_check_begin(store, &check, &r), RL_EIO);
	assert_int_equal(check, 0);
	assert_true(asprintf(&message, "%s: database is locked (another process held it longer than 5 s; "
			     "let it finish and run again)", path) > 0);
	assert_string_equal(error_message(), message);
	free(message);
	assert_int_equal(cache_put(store, "k", "p", "m", "a", 0, 0), RL_EIO);
	assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(store_check_begin(store, &check, &r), 0);
	assert_true(sqlite3_get_autocommit(store_db(store)));
	sqlite3_close(db);
	store_close(store);
	free(path);
}

/* Two checks in the same millisecond still have an order: (created_at, id). */
static void test_consecutive_checks(void **state)
{
	const char *previous =
		"SELECT p.id FROM checks c JOIN checks p ON p.repo_id = c.repo_id AND "
		"p.branch = c.branch AND p.environment = c.environment AND "
		"(p.created_at, p.id) < (c.created_at, c.id) WHERE c.id = :id "
		"ORDER BY p.created_at DESC, p.id DESC LIMIT 1";
	char *path = test_store_location(tmp, "revline.db");
	struct store *store = open_ok(path);
	struct check_record r = record_new("feature", 1700000000000);
	struct buf plan = BUF_INIT, sql = BUF_INIT;
	sqlite3_stmt *stmt;
	int64_t first = 0, second = 0, other = 0, third = 0, now = (int64_t)time(NULL) * 1000;
	struct store *db = store;

	(void)state;
	assert_int_equal(store_check_begin(store, &first, &r), 0);
	assert_int_equal(store_check_begin(store, &second, &r), 0);
	r.branch = "main";
	assert_int_equal(store_check_begin(store, &other, &r), 0);
	r.branch = "feature";
	r.repo_path = "/elsewhere/repo/";   /* the trailing slash is the same repo */
	assert_int_equal(store_check_begin(store, &third, &r), 0);
	r.repo_path = "/elsewhere/repo";
	r.created_ms = 0;
	assert_int_equal(store_check_begin(store, &third, &r), 0);

	assert_int_equal(s_int_of(db, previous, second), first);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM repos", 0), 2);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM repos WHERE path = '/elsewhere/repo' "
				"AND name = 'repo'", 0), 1);
	assert_in_range(s_int_of(db, "SELECT created_at FROM checks WHERE id = :id", third),
			now - 60000, now + 60000);
	assert_int_equal(s_int_of(db, previous, third), third - 1);
	/* The query uses the index made for it: SQLite's plan (PostgreSQL scans a table this small). */
	if (test_store_pg())
		goto done;
	buf_printf(&sql, "EXPLAIN QUERY PLAN %s", previous);
	assert_int_equal(sqlite3_prepare_v2(store_db(store), sql.ptr, -1, &stmt, NULL), SQLITE_OK);
	sqlite3_bind_int64(stmt, 1, second);
	while (sqlite3_step(stmt) == SQLITE_ROW)
		buf_printf(&plan, "%s\n", (const char *)sqlite3_column_text(stmt, 3));
	sqlite3_finalize(stmt);
	if (!plan.ptr || !strstr(plan.ptr, "checks_consecutive"))
		fail_msg("the plan does not use checks_consecutive:\n%s", plan.ptr);
done:
	buf_release(&plan);
	buf_release(&sql);
	store_close(store);
	free(path);
}

/* Results put before a crash are all there after it; the next open marks the check interrupted. */
static void test_crash_keeps_results(void **state)
{
	char *path = test_store_location(tmp, "revline.db");
	struct store *store;
	struct store *db;
	pid_t pid;
	int status;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rule a = rule_llm(), b = rule_local();
		struct finding fa[2] = { finding_new("errors", "src/a.c", 1, "one"),
					 finding_new("errors", "src/a.c", 9, "two") };
		struct finding fb = finding_new("no-todo", "src/b.c", 4, "TODO left");
		struct rule_result ra = { .rule = &a, .status = RULE_ATTENTION, .findings = fa,
					  .nfindings = 2 };
		struct rule_result rb = { .rule = &b, .status = RULE_ATTENTION, .findings = &fb,
					  .nfindings = 1 };
		struct check_record r = record_new("feature", 0);
		int64_t check = 0, id = 0;

		store = NULL;
		if (store_open(&store, path) < 0 || store_check_begin(store, &check, &r) < 0 ||
		    store_rule_add(store, &id, check, &a) < 0 || store_rule_add(store, &id, check, &b) < 0 ||
		    store_result_put(store, check, &ra) < 0 || store_result_put(store, check, &rb) < 0) {
			fprintf(stderr, "child: %s\n", error_message());
			_exit(2);
		}
		_exit(1);               /* no finish, no close */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);

	/* Opening again finds the process gone: the check was interrupted, its results kept. */
	store = open_ok(path);
	db = store;
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM checks WHERE status = 'interrupted' AND "
				"finished_at IS NOT NULL AND pid = :id", pid), 1);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM check_threadlines", 0), 2);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM check_results WHERE status = 'attention'", 0), 2);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM findings WHERE reduced = 0", 0), 3);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM findings f JOIN check_threadlines t ON "
				"t.id = f.check_threadline_id WHERE t.threadline_id = f.rule_id", 0), 3);
	assert_int_equal(s_int_of(db, "SELECT length(diff) FROM check_diffs", 0), sizeof(diff_text) - 1);
	store_close(store);
	free(path);
}

/*
 * A team's store: a check says who wrote it, from which machine, and of
 * which repository (its remote). A check another machine runs is that
 * machine's to mark: its process number means nothing here, even when no
 * such process runs.
 */
static void test_other_machine_running(void **state)
{
	char *path = test_store_location(tmp, "revline.db");
	struct store *store = open_ok(path);
	struct check_record r = record_new("feature", 0);
	int64_t theirs = 0, mine = 0;
	size_t marked = 0;
	char *text;

	(void)state;
	/* Who writes: git's author (no repository here: the environment's); where: this machine. */
	setenv("GIT_AUTHOR_EMAIL", "alice@example.com", 1);
	assert_int_equal(store_author_load(store, NULL), 0);
	unsetenv("GIT_AUTHOR_EMAIL");
	r.remote = "github.com/org/repo";
	assert_int_equal(store_check_begin(store, &theirs, &r), 0);
	r.remote = NULL;        /* a clone whose remote cannot be read keeps the one known */
	assert_int_equal(store_check_begin(store, &mine, &r), 0);
	text = test_store_text(store, "SELECT c.author || ' ' || r.remote FROM checks c JOIN repos r ON "
			       "r.id = c.repo_id WHERE c.id = :id", mine);
	assert_string_equal(text, "alice@example.com github.com/org/repo");
	free(text);
	assert_int_equal(s_int_of(store, "SELECT count(*) FROM checks WHERE host IS NOT NULL AND host <> '' "
				  "AND id = :id", mine), 1);
	/* pid 2^31-1 runs nowhere here. */
	test_store_exec(store, "UPDATE checks SET pid = 2147483647, pid_start = NULL, host = 'elsewhere' "
			"WHERE id = :id", theirs);
	test_store_exec(store, "UPDATE checks SET pid = 2147483647, pid_start = NULL WHERE id = :id", mine);
	assert_int_equal(store_mark_interrupted(store, &marked), 0);
	assert_int_equal(marked, 1);
	assert_int_equal(s_int_of(store, "SELECT CASE WHEN status = 'running' THEN 1 ELSE 0 END FROM checks "
				  "WHERE id = :id", theirs), 1);
	assert_int_equal(s_int_of(store, "SELECT CASE WHEN status = 'interrupted' THEN 1 ELSE 0 END FROM checks "
				  "WHERE id = :id", mine), 1);
	store_close(store);
	free(path);
}

#define WRITER_CHECKS 50

/* A child process: WRITER_CHECKS whole checks; exit 0, or 1 with the message on stderr. */
static void writer(const char *path, const char *branch, int start)
{
	struct store *store = NULL;
	struct rule a = rule_llm();
	char buf;
	int i;

	/* Wait for the parent to let both go at once. */
	if (read(start, &buf, 1) < 0 || store_open(&store, path) < 0)
		goto fail;
	for (i = 0; i < WRITER_CHECKS; i++) {
		struct check_record r = record_new(branch, 0);
		struct finding f = finding_new("errors", "src/a.c", i + 1, "unchecked");
		struct finding m = finding_new("errors", "src/a.c", i + 1, "merged");
		struct rule_result res = { .rule = &a, .status = RULE_ATTENTION, .findings = &f,
					   .nfindings = 1 };
		struct report report = { .summary = "s", .overall_severity = "needs-work",
					 .findings = &m, .nfindings = 1, .synthesized = true };
		char key[64];
		int64_t check = 0, id = 0;

		snprintf(key, sizeof(key), "%s-%d", branch, i);
		if (store_check_begin(store, &check, &r) < 0 || store_rule_add(store, &id, check, &a) < 0 ||
		    store_result_put(store, check, &res) < 0 ||
		    store_check_finish(store, check, "complete", 1, NULL, &report) < 0 ||
		    cache_put(store, key, "openai", "m", "answer", 1, 2) < 0)
			goto fail;
	}
	store_close(store);
	_exit(0);
fail:
	fprintf(stderr, "writer %s: %s\n", branch, error_message());
	_exit(1);
}

static void test_two_writers(void **state)
{
	char *path = test_store_location(tmp, "shared/revline.db");
	pid_t pids[2];
	int gate[2], i, status;
	struct store *db;

	(void)state;
	assert_int_equal(pipe(gate), 0);
	for (i = 0; i < 2; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			close(gate[1]);
			writer(path, i ? "two" : "one", gate[0]);
		}
	}
	close(gate[0]);
	close(gate[1]);         /* both read end-of-file: go */
	for (i = 0; i < 2; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}

	db = s_open(path);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM repos", 0), 1);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM checks WHERE status = 'complete' "
				"AND rule_count = 1 AND finding_count = 1", 0), 2 * WRITER_CHECKS);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM checks WHERE branch = 'one'", 0), WRITER_CHECKS);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM check_diffs", 0), 2 * WRITER_CHECKS);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM check_threadlines", 0), 2 * WRITER_CHECKS);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM check_results", 0), 2 * WRITER_CHECKS);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM findings WHERE reduced = 0", 0), 2 * WRITER_CHECKS);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM findings WHERE reduced = 1", 0), 2 * WRITER_CHECKS);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM llm_cache", 0), 2 * WRITER_CHECKS);
	store_close(db);
	free(path);
}

static void test_cache(void **state)
{
	char *path = test_store_location(tmp, "revline.db"), *answer = (char *)"untouched";
	struct store *store = open_ok(path);
	long in = -1, out = -1;
	struct store *db = store;

	(void)state;
	assert_int_equal(cache_get(store, "k1", &answer, &in, &out), RL_ENOTFOUND);
	assert_null(answer);
	assert_int_equal(in, -1);
	assert_int_equal(cache_put(store, "k1", "anthropic", "claude", "{\"ok\":true}", 120, 30), 0);
	assert_int_equal(cache_get(store, "k1", &answer, &in, &out), 0);
	assert_string_equal(answer, "{\"ok\":true}");
	assert_int_equal(in, 120);
	assert_int_equal(out, 30);
	free(answer);
	/* The token counts are optional. */
	assert_int_equal(cache_get(store, "k1", &answer, NULL, NULL), 0);
	free(answer);
	assert_int_equal(s_int_of(db, "SELECT hits FROM llm_cache WHERE key = 'k1'", 0), 2);
	assert_int_equal(s_int_of(db, "SELECT last_used_at >= created_at AND provider = 'anthropic' "
				"AND model = 'claude' FROM llm_cache WHERE key = 'k1'", 0), 1);
	/* Putting again replaces the answer and starts the count again. */
	assert_int_equal(cache_put(store, "k1", "anthropic", "claude", "second", 1, 2), 0);
	assert_int_equal(cache_get(store, "k1", &answer, &in, &out), 0);
	assert_string_equal(answer, "second");
	assert_int_equal(in, 1);
	free(answer);
	assert_int_equal(s_int_of(db, "SELECT hits FROM llm_cache WHERE key = 'k1'", 0), 1);
	assert_int_equal(s_int_of(db, "SELECT count(*) FROM llm_cache", 0), 1);
	store_close(store);
	free(path);
}

/* The cache keeps the cached tokens and cache writes an answer billed when it was asked. */
static void test_cache_usage(void **state)
{
	char *path = test_store_location(tmp, "revline.db"), *answer = NULL;
	struct store *store = open_ok(path);
	struct usage kept = { .tokens_in = 12345, .tokens_cached = 9984, .tokens_cache_write = 256,
			      .tokens_out = 1234, .cost_usd = 0.5 }, back = { 0 };

	(void)state;
	assert_int_equal(store_cache_fetch(store, "k", &answer, &back), RL_ENOTFOUND);
	assert_null(answer);
	assert_int_equal(store_cache_keep(store, "k", "openai", "gpt-5-mini", "{}", &kept), 0);
	assert_int_equal(store_cache_fetch(store, "k", &answer, &back), 0);
	assert_string_equal(answer, "{}");
	free(answer);
	assert_int_equal(back.tokens_in, 12345);
	assert_int_equal(back.tokens_cached, 9984);
	assert_int_equal(back.tokens_cache_write, 256);
	assert_int_equal(back.tokens_out, 1234);
	/* The cost is not kept: the model table prices the tokens again. */
	assert_true(back.cost_usd < 0);
	assert_int_equal(store_cache_fetch(store, "k", &answer, NULL), 0);
	free(answer);
	assert_int_equal(s_int_of(store, "SELECT hits FROM llm_cache WHERE key = 'k'", 0), 2);
	store_close(store);
	free(path);
}

static char *saved_env(const char *name)
{
	const char *value = getenv(name);

	return value ? strdup(value) : NULL;
}

static void restore_env(const char *name, char *value)
{
	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
	free(value);
}

static void assert_default_path(struct config *config, const char *expected)
{
	struct buf out = BUF_INIT;

	buf_puts(&out, "left over");
	if (store_default_path(&out, config) < 0)
		fail_msg("store_default_path: %s", error_message());
	assert_string_equal(out.ptr, expected);
	buf_release(&out);
}

static void test_default_path(void **state)
{
	char *db = saved_env("REVLINE_DB"), *xdg = saved_env("XDG_DATA_HOME"), *home = saved_env("HOME");
	char *nosystem = saved_env("GIT_CONFIG_NOSYSTEM"), *expected;
	struct config *config = NULL;
	struct buf out = BUF_INIT;

	(void)state;
	setenv("HOME", tmp, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("REVLINE_DB", "/data/elsewhere.db", 1);
	setenv("XDG_DATA_HOME", "/xdg", 1);
	assert_default_path(NULL, "/data/elsewhere.db");
	unsetenv("REVLINE_DB");
	assert_default_path(NULL, "/xdg/revline/revline.db");
	/* A relative XDG_DATA_HOME is not a valid one (the XDG spec). */
	setenv("XDG_DATA_HOME", "relative", 1);
	assert_true(asprintf(&expected, "%s/.local/share/revline/revline.db", tmp) > 0);
	assert_default_path(NULL, expected);
	unsetenv("XDG_DATA_HOME");
	assert_default_path(NULL, expected);
	free(expected);

	/* git config revline.db, ~ for the home directory; the environment still wins. */
	test_write_str(tmp, ".gitconfig", "[revline]\n\tdb = ~/dbs/from-git.db\n");
	assert_int_equal(config_open(&config, NULL), 0);
	assert_true(asprintf(&expected, "%s/dbs/from-git.db", tmp) > 0);
	assert_default_path(config, expected);
	free(expected);
	setenv("REVLINE_DB", "/data/env.db", 1);
	assert_default_path(config, "/data/env.db");
	config_free(config);

	unsetenv("REVLINE_DB");
	unsetenv("HOME");
	assert_int_equal(store_default_path(&out, NULL), RL_ENOTFOUND);
	assert_non_null(strstr(error_message(), "REVLINE_DB"));
	buf_release(&out);

	restore_env("REVLINE_DB", db);
	restore_env("XDG_DATA_HOME", xdg);
	restore_env("HOME", home);
	restore_env("GIT_CONFIG_NOSYSTEM", nosystem);
}

static void test_diff_bytes_survive(void **state)
{
	/* Latin-1, an invalid sequence, a NUL and a lone continuation byte. */
	static const char bytes[] = "diff --git a/l1.txt b/l1.txt\n+caf\xe9\n+\xc3\x28\n+a\0b\n+\x80\xff\xfe\n";
	char *path = test_store_location(tmp, "revline.db");
	struct store *store = open_ok(path);
	struct check_record r = record_new("main", 0);
	struct buf read = BUF_INIT;
	int64_t check = 0, empty = 0;
	struct store_stmt *stmt;
	struct store *db;

	(void)state;
	r.diff = bytes;
	r.diff_len = sizeof(bytes) - 1;
	assert_int_equal(store_check_begin(store, &check, &r), 0);
	r.diff = NULL;
	r.diff_len = 0;
	assert_int_equal(store_check_begin(store, &empty, &r), 0);
	/* Read back as they were, through the typed function too; no check, no diff. */
	assert_int_equal(store_check_diff(&read, store, check), 0);
	assert_int_equal(read.len, sizeof(bytes) - 1);
	assert_memory_equal(read.ptr, bytes, sizeof(bytes) - 1);
	assert_int_equal(store_check_diff(&read, store, empty), 0);
	assert_int_equal(read.len, 0);
	assert_string_equal(read.ptr, "");
	assert_int_equal(store_check_diff(&read, store, check + 100), 0);
	assert_int_equal(read.len, 0);
	buf_release(&read);
	store_close(store);

	db = s_open(path);
	stmt = test_store_row(db, TEST_SQL("SELECT typeof(diff), diff FROM check_diffs WHERE check_id = :id",
				     "SELECT pg_typeof(diff)::text, diff FROM check_diffs WHERE check_id = :id"), check);
	s_col_text(stmt, 0, TEST_SQL("blob", "bytea"));
	assert_blob(stmt, 1, bytes, sizeof(bytes) - 1);
	store_finalize(stmt);
	assert_int_equal(s_int_of(db, "SELECT length(diff) FROM check_diffs WHERE check_id = :id", empty), 0);
	store_close(db);
	free(path);
}

/* Non-UTF-8 text in JSON columns becomes U+FFFD, so the JSON stays valid. */
static void test_json_columns_stay_valid(void **state)
{
	char *path = test_store_location(tmp, "revline.db"), *refs[] = { "caf\xe9.c" };
	struct store *store = open_ok(path);
	struct rule a = rule_llm(), b = rule_local();
	struct finding f = finding_new("errors", "caf\xe9.c", 1, "latin-1");
	struct rule_result r = { 0 };
	int64_t check, id_a = 0, id_b = 0;
	char *code;

	(void)state;
	f.evidence.code_examined = "x = \"\xe9\";";
	check = begin_with_rules(store, &a, &b, &id_a, &id_b);
	r = (struct rule_result){ .rule = &a, .status = RULE_ATTENTION, .file_references = refs,
				  .nrefs = 1, .findings = &f, .nfindings = 1 };
	assert_int_equal(store_result_put(store, check, &r), 0);
	code = s_text_of(store, TEST_SQL("SELECT json_extract(evidence, '$.code_examined') FROM findings "
					 "WHERE id = :id", "SELECT evidence::json->>'code_examined' FROM findings "
					 "WHERE id = :id"), f.id);
	assert_string_equal(code, "x = \"\xef\xbf\xbd\";");
	free(code);
	code = s_text_of(store, TEST_SQL("SELECT json_extract(file_references, '$[0]') FROM check_results",
					 "SELECT file_references::json->>0 FROM check_results"), 0);
	assert_string_equal(code, "caf\xef\xbf\xbd.c");
	free(code);
	store_close(store);
	free(path);
}

/* PostgreSQL: the schema made at once at the latest version, its tables and indexes, found again. */
static void test_schema_created_pg(void **state)
{
	static const char *const tables[] = {
		"bench_cases", "bench_results", "bench_runs", "check_dependencies", "check_diffs", "check_packages",
		"check_results", "check_threadlines", "checks", "context_blobs", "context_indexers", "context_reads", "context_sent", "context_tags", "feedback",
		"findings", "fix_detection_claims", "fix_detection_runs", "llm_cache",
		"llm_refusals", "migrated_rows", "repos", "revline_schema_version", "signal_fixes", "signal_runs",
		"signals", "violation_fixes",
	};
	char *where = test_store_location(tmp, "revline.db"), *names;
	struct store *store = open_ok(where), *again;
	struct buf want = BUF_INIT;
	size_t i;

	(void)state;
	assert_null(store_db(store));
	assert_string_equal(store_path(store), where);
	assert_int_equal(store_version(store), 11);
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		buf_printf(&want, "%s%s", i ? "," : "", tables[i]);
	names = s_text_of(store, "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables "
			  "WHERE schemaname = current_schema()", 0);
	assert_string_equal(names, want.ptr);
	free(names);
	assert_int_equal(s_int_of(store, "SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() "
				  "AND indexname IN ('checks_consecutive', 'feedback_search', 'signal_fixes_file', "
				  "'violation_fixes_time_between')", 0), 4);
	/* Opened again, nothing is made twice. */
	again = open_ok(where);
	assert_int_equal(store_version(again), 11);
	assert_int_equal(s_int_of(again, "SELECT count(*) FROM revline_schema_version", 0), 1);
	store_close(again);
	store_close(store);
	buf_release(&want);
	free(where);
}

/* PostgreSQL: a schema version this revline does not know is refused, naming the setting; nothing changes. */
static void test_newer_database_refused_pg(void **state)
{
	char *where = test_store_location(tmp, "revline.db");
	struct store *store = open_ok(where), *refused = NULL;

	(void)state;
	assert_int_equal(s_exec(store, "UPDATE revline_schema_version SET version = 12"), 0);
	assert_int_equal(store_open(&refused, where), RL_EIO);
	assert_null(refused);
	assert_non_null(strstr(error_message(), where));
	assert_non_null(strstr(error_message(), "newer revline"));
	assert_non_null(strstr(error_message(), "version 12"));
	assert_non_null(strstr(error_message(), "revline.db"));
	assert_int_equal(s_int_of(store, "SELECT version FROM revline_schema_version", 0), 12);
	store_close(store);
	free(where);
}

/* Two clients that start on an empty database at once make the schema once. */
static void test_migrate_once_pg(void **state)
{
	char *where = test_store_location(tmp, "revline.db");
	struct store *store;
	pid_t pids[4];
	int gate[2], i, status;

	(void)state;
	assert_int_equal(pipe(gate), 0);
	for (i = 0; i < 4; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			char c;

			close(gate[1]);
			store = NULL;
			if (read(gate[0], &c, 1) < 0 || store_open(&store, where) < 0) {
				fprintf(stderr, "client %d: %s\n", i, error_message());
				_exit(1);
			}
			store_close(store);
			_exit(0);
		}
	}
	close(gate[0]);
	close(gate[1]);
	for (i = 0; i < 4; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	store = open_ok(where);
	assert_int_equal(store_version(store), 11);
	assert_int_equal(s_int_of(store, "SELECT count(*) FROM revline_schema_version", 0), 1);
	store_close(store);
	free(where);
}

/*
 * On SQLite the whole list; on PostgreSQL (REVLINE_TEST_DB=postgres,
 * testlib/store.h) those that are not about SQLite's file (its modes, its
 * pragmas, damaged or unreadable files, version 1 migrated, its lock), and
 * PostgreSQL's own.
 */
int main(void)
{
	const struct CMUnitTest sqlite_tests[] = {
		cmocka_unit_test_setup_teardown(test_schema_created, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reopen_is_idempotent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer_database_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_a_database, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_v6_claims, setup, teardown),
		cmocka_unit_test_setup_teardown(test_locked_names_file, setup, teardown),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_check_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_put_again_replaces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rules_add_many, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_keys, setup, teardown),
		cmocka_unit_test_setup_teardown(test_consecutive_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_keeps_results, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_machine_running, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_writers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_usage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_diff_bytes_survive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_columns_stay_valid, setup, teardown),
	};
	const struct CMUnitTest pg_tests[] = {
		cmocka_unit_test_setup_teardown(test_schema_created_pg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer_database_refused_pg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrate_once_pg, setup, teardown),
	};
	int failed;

	if (test_store_skip())
		return PG_SKIP;
	if (test_store_pg())
		failed = cmocka_run_group_tests_name("postgresql", pg_tests, NULL, NULL);
	else
		failed = cmocka_run_group_tests_name("sqlite", sqlite_tests, NULL, NULL);
	return failed | cmocka_run_group_tests(tests, NULL, NULL);
}
