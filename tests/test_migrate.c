/*
 * store_migrate (revline db migrate): a SQLite history with a row in every
 * table copied into a target store (a SQLite file; a PostgreSQL database
 * as unit/test_migrate-pg, testlib/store.h), whose ids differ from the
 * source's: every table of the schema is one the copy knows, references
 * point at the target's rows, bytes stay bytes, a check still running is
 * left for later, a repository there already is the same row, a second
 * run copies nothing, and a copy stopped in the middle of a table goes on
 * where it stopped with no row twice.
 */
#include "testlib.h"
#include "testlib/store.h"

#include "status.h"
#include "store.h"
#include "store_migrate.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *tmp;
static char *source_path, *target_path;
static struct store *source, *target;

/* What the copy said of each table, by name. */
struct figures {
	struct store_migrate_table tables[32];
	size_t count;
};

static int setup(void **state)
{
	(void)state;
	tmp = test_tmpdir("migrate");
	if (asprintf(&source_path, "%s/source.db", tmp) < 0)
		fail();
	source = test_store_open(source_path);
	target_path = test_store_location(tmp, "target.db");
	target = test_store_open(target_path);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	store_close(source);
	store_close(target);
	source = target = NULL;
	test_rmtree(tmp);
	free(tmp);
	free(source_path);
	free(target_path);
	tmp = source_path = target_path = NULL;
	return 0;
}

static void progress(void *arg, const struct store_migrate_table *table)
{
	struct figures *f = arg;

	assert_true(f->count < sizeof(f->tables) / sizeof(f->tables[0]));
	f->tables[f->count++] = *table;
}

static const struct store_migrate_table *figures_of(const struct figures *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->count; i++)
		if (!strcmp(f->tables[i].name, name))
			return &f->tables[i];
	fail_msg("no figures for %s", name);
	return NULL;
}

static void migrate_ok(struct figures *f)
{
	memset(f, 0, sizeof(*f));
	if (store_migrate(target, source, progress, f) < 0)
		fail_msg("store_migrate: %s", error_message());
}

static int64_t count_of(struct store *store, const char *table)
{
	char sql[128];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table);
	return test_store_int(store, sql, 0);
}

/* A history with a row in every table, ids from 1; check 3 still runs in this process. */
static void history_fill(void)
{
	static const char *const rows[] = {
		"INSERT INTO repos (id, path, name, created_at) VALUES (1, '/src/repo', 'repo', 1)",
		"INSERT INTO checks (id, repo_id, branch, status, created_at, finished_at, summary, author) VALUES "
		"(1, 1, 'main', 'complete', 10, 11, 'first', 'ana@example.com'), "
		"(2, 1, 'main', 'complete', 20, 21, 'second', 'ana@example.com')",
		"INSERT INTO check_diffs (check_id, diff, files) VALUES (1, X'00010203', 1), (2, X'ff', 1)",
		"INSERT INTO check_threadlines (id, check_id, threadline_id, threadline_file_path, threadline_content, "
		"kind, severity) VALUES (1, 1, 'inj', 'rules/inj.md', 'no shells', 'llm', 'major'), "
		"(2, 2, 'inj', 'rules/inj.md', 'no shells', 'llm', 'major'), "
		"(3, 3, 'inj', 'rules/inj.md', 'no shells', 'llm', 'major')",
		"INSERT INTO check_results (check_threadline_id, status, created_at) VALUES (1, 'attention', 1), "
		"(2, 'compliant', 2), (3, 'attention', 3)",
		"INSERT INTO findings (id, check_id, check_threadline_id, severity, title, fingerprint, reduced, "
		"created_at) VALUES (1, 1, 1, 'major', 'injection here', 'fp1', 0, 1), "
		"(2, 1, NULL, 'major', 'injection here', 'fp1', 1, 1), (3, 3, 3, 'major', 'later', 'fp3', 0, 3)",
		"INSERT INTO violation_fixes (id, violation_check_id, fix_check_id, violation_threadline_id, threadline_id, "
		"threadline_file_path, fix_type, explanation, created_at) VALUES (1, 1, 2, 1, 'inj', 'rules/inj.md', "
		"'CODE_CHANGE', 'gone', 5)",
		"INSERT INTO fix_detection_runs (id, check_id, previous_check_id, status, started_at) "
		"VALUES (1, 2, 1, 'done', 5)",
		"INSERT INTO fix_detection_claims (check_id, previous_check_id, run_id, claimed_at) VALUES (2, 1, 1, 5)",
		"INSERT INTO feedback (id, finding_id, fix_id, repo_id, kind, title, issue, created_at) "
		"VALUES (1, 1, 1, 1, 'false_positive', 'injection here', 'quoted argument', 6)",
		"INSERT INTO signal_runs (id, repo_id, tool, format, source, created_at) "
		"VALUES (1, 1, 'flake8', 'flake8', 'import', 7)",
		"INSERT INTO signals (id, run_id, tool, message, file) VALUES (1, 1, 'flake8', 'E711', 'a.py')",
		"INSERT INTO signal_fixes (repo_id, signal_id, finding_id, file, first_line, last_line, window, status, "
		"file_id, before, after, created_at) VALUES (1, 1, 1, 'a.py', 1, 2, 'w', 'applied', 'f', X'00ff00', "
		"X'01', 8)",
		"INSERT INTO check_dependencies (check_id, dependency_only, confidence, reason) VALUES (1, 0, 'high', 'r')",
		"INSERT INTO check_packages (check_id, ecosystem, name, bump, breaking, downgrade) "
		"VALUES (1, 'pypi', 'requests', 'minor', 0, 0)",
		"INSERT INTO llm_cache (key, provider, model, answer, created_at, last_used_at) "
		"VALUES ('k1', 'openai', 'm', 'an answer', 1, 1)",
		"INSERT INTO llm_refusals (server, model, param, refused_at) VALUES ('s', 'm', 'temperature', 1)",
		"INSERT INTO context_indexers (id, identity, created_at) VALUES ('0123456789abcdef', 'ctags', 1)",
		"INSERT INTO context_blobs (indexer, blob, size, state, tags, words, indexed_at) VALUES "
		"('0123456789abcdef', 'aaaa', 10, 'tagged', 1, X'0080ff00', 1)",
		"INSERT INTO context_tags (indexer, blob, seq, name, kind, line, end_line, language) VALUES "
		"('0123456789abcdef', 'aaaa', 0, 'main', 'function', 1, 3, 'C')",
		"INSERT INTO context_sent (check_id, part, seq, kind, symbol, path, first_line, last_line, refs) VALUES "
		"(1, 1, 0, 'callers', 'verify', 'web/api.py', 4, 8, 2)",
		"INSERT INTO context_reads (check_threadline_id, seq, turn, tool, arguments, result_bytes, error) VALUES "
		"(1, 0, 1, 'read_file', '{\"path\": \"a.py\"}', 120, NULL)",
		"INSERT INTO bench_cases (id, repo_id, commit_oid, parent_oid, subject, why, committed_at, lines, "
		"expected, mined_at) VALUES (1, 1, 'c1', 'p1', 'fix it', 'fix', 1, 2, '[]', 1)",
		"INSERT INTO bench_runs (id, repo_id, config, status, cases, started_at) VALUES "
		"(1, 1, 'model=m', 'done', 1, 1)",
		"INSERT INTO bench_results (run_id, case_id, check_id, outcome) VALUES (1, 1, 1, 'caught')",
	};
	char running[256];
	size_t i;

	/* This process runs it, so the open below does not take it for interrupted. */
	snprintf(running, sizeof(running), "INSERT INTO checks (id, repo_id, branch, status, created_at, pid) "
		 "VALUES (3, 1, 'main', 'running', 30, %ld)", (long)getpid());
	for (i = 0; i < 2; i++)
		test_store_exec(source, rows[i], 0);
	test_store_exec(source, running, 0);
	for (i = 2; i < sizeof(rows) / sizeof(rows[0]); i++)
		test_store_exec(source, rows[i], 0);
}

/* The target's ids are not the source's: another repository and check first. */
static void target_fill(void)
{
	test_store_exec(target, "INSERT INTO repos (path, name, created_at) VALUES ('/elsewhere', 'other', 1)", 0);
	test_store_exec(target, "INSERT INTO checks (repo_id, branch, status, created_at, finished_at) "
			"SELECT id, 'dev', 'complete', 1, 2 FROM repos", 0);
}

static void test_tables_all_known(void **state)
{
	struct figures f;
	size_t i;

	(void)state;
	/* store_migrate refuses a schema with a table its list lacks: an empty copy passes that check on both sides. */
	migrate_ok(&f);
	for (i = 0; store_migrate_table_at(i); i++)
		assert_int_equal(figures_of(&f, store_migrate_table_at(i))->copied, 0);
	assert_int_equal(f.count, i);
	test_store_exec(source, "CREATE TABLE extra (id INTEGER PRIMARY KEY)", 0);
	assert_int_equal(store_migrate(target, source, NULL, NULL), RL_ERROR);
	assert_non_null(strstr(error_message(), "does not know how to copy its table extra"));
}

static void test_copy(void **state)
{
	struct figures f;
	char *text;

	(void)state;
	history_fill();
	target_fill();
	migrate_ok(&f);
	assert_int_equal(figures_of(&f, "repos")->copied, 1);
	assert_int_equal(figures_of(&f, "checks")->copied, 2);
	assert_int_equal(figures_of(&f, "check_threadlines")->copied, 2);
	assert_int_equal(figures_of(&f, "check_threadlines")->left, 1);
	assert_int_equal(figures_of(&f, "findings")->copied, 2);
	assert_int_equal(figures_of(&f, "findings")->left, 1);
	assert_int_equal(count_of(target, "checks"), 3);
	assert_int_equal(count_of(target, "repos"), 2);
	/* Every table had a row to copy. */
	for (size_t i = 0; store_migrate_table_at(i); i++)
		assert_true(figures_of(&f, store_migrate_table_at(i))->copied > 0);

	/* References point at the target's rows. */
	text = test_store_text(target, "SELECT r.path FROM checks c JOIN repos r ON r.id = c.repo_id "
			       "WHERE c.summary = 'second'", 0);
	assert_string_equal(text, "/src/repo");
	free(text);
	assert_int_equal(test_store_int(target, "SELECT count(*) FROM findings f JOIN check_threadlines t "
					"ON t.id = f.check_threadline_id WHERE t.check_id = f.check_id", 0), 1);
	assert_int_equal(test_store_int(target, "SELECT count(*) FROM violation_fixes v JOIN check_threadlines t "
					"ON t.id = v.violation_threadline_id JOIN checks c ON c.id = v.fix_check_id "
					"WHERE t.check_id = v.violation_check_id AND c.summary = 'second'", 0), 1);
	assert_int_equal(test_store_int(target, "SELECT count(*) FROM fix_detection_claims k JOIN "
					"fix_detection_runs r ON r.id = k.run_id AND r.check_id = k.check_id", 0), 1);
	assert_int_equal(test_store_int(target, "SELECT count(*) FROM feedback b JOIN findings f ON f.id = b.finding_id "
					"JOIN violation_fixes v ON v.id = b.fix_id JOIN repos r ON r.id = b.repo_id "
					"WHERE r.path = '/src/repo' AND f.title = 'injection here'", 0), 1);
	assert_int_equal(test_store_int(target, "SELECT count(*) FROM signal_fixes x JOIN signals s ON s.id = x.signal_id "
					"JOIN signal_runs r ON r.id = s.run_id AND r.repo_id = x.repo_id", 0), 1);
	assert_int_equal(test_store_int(target, "SELECT count(*) FROM context_sent s JOIN checks c ON c.id = s.check_id "
					"WHERE c.summary = 'first' AND s.symbol = 'verify'", 0), 1);
	assert_int_equal(test_store_int(target, "SELECT count(*) FROM context_reads r JOIN check_threadlines t "
					"ON t.id = r.check_threadline_id JOIN checks c ON c.id = t.check_id "
					"WHERE c.summary = 'first' AND r.tool = 'read_file'", 0), 1);
	text = test_store_text(target, "SELECT c.author FROM check_dependencies d JOIN checks c ON c.id = d.check_id", 0);
	assert_string_equal(text, "ana@example.com");
	free(text);

	/* Bytes stay bytes; the copied feedback is found by text (FTS5's triggers; the generated tsvector). */
	text = test_store_text(target, TEST_SQL("SELECT hex(d.diff) FROM check_diffs d JOIN checks c ON c.id = d.check_id "
						"WHERE c.summary = 'first'",
						"SELECT upper(encode(d.diff, 'hex')) FROM check_diffs d JOIN checks c "
						"ON c.id = d.check_id WHERE c.summary = 'first'"), 0);
	assert_string_equal(text, "00010203");
	free(text);
	assert_int_equal(test_store_int(target, "SELECT length(before) FROM signal_fixes", 0), 3);
	text = test_store_text(target, TEST_SQL("SELECT hex(words) FROM context_blobs",
						"SELECT upper(encode(words, 'hex')) FROM context_blobs"), 0);
	assert_string_equal(text, "0080FF00");
	free(text);
	text = test_store_text(target, "SELECT t.name FROM context_tags t JOIN context_blobs b ON b.blob = t.blob "
			       "AND b.indexer = t.indexer WHERE t.end_line = 3", 0);
	assert_string_equal(text, "main");
	free(text);
	assert_int_equal(test_store_int(target, TEST_SQL("SELECT count(*) FROM feedback_fts WHERE feedback_fts MATCH 'quoted'",
							 "SELECT count(*) FROM feedback WHERE search @@ "
							 "to_tsquery('simple', 'quoted')"), 0), 1);

	/* The source is named by this machine and the file's real path. */
	{
		struct buf id = BUF_INIT;
		char host[256] = "", expect[1024], *real = realpath(source_path, NULL);

		assert_non_null(real);
		assert_int_equal(store_migrate_source(&id, source), 0);
		gethostname(host, sizeof(host) - 1);
		snprintf(expect, sizeof(expect), "%s:%s", host, real);
		assert_string_equal(id.ptr, expect);
		assert_int_equal(test_store_int(target, "SELECT count(DISTINCT source) FROM migrated_rows", 0), 1);
		free(real);
		buf_release(&id);
	}
}

static void test_again(void **state)
{
	struct figures f;
	size_t i;

	(void)state;
	history_fill();
	migrate_ok(&f);
	migrate_ok(&f);
	for (i = 0; store_migrate_table_at(i); i++) {
		const struct store_migrate_table *t = figures_of(&f, store_migrate_table_at(i));

		assert_int_equal(t->copied, 0);
		assert_true(t->present > 0);
	}
	assert_int_equal(figures_of(&f, "findings")->left, 1);
	assert_int_equal(count_of(target, "checks"), 2);
	assert_int_equal(count_of(target, "findings"), 2);

	/* The running check is done now: the next run copies it and what it holds. */
	test_store_exec(source, "UPDATE checks SET status = 'complete', finished_at = 40 WHERE id = 3", 0);
	migrate_ok(&f);
	assert_int_equal(figures_of(&f, "checks")->copied, 1);
	assert_int_equal(figures_of(&f, "check_threadlines")->copied, 1);
	assert_int_equal(figures_of(&f, "findings")->copied, 1);
	assert_int_equal(figures_of(&f, "findings")->present, 2);
	assert_int_equal(count_of(target, "findings"), 3);
}

static void test_same_repository(void **state)
{
	struct figures f;
	int64_t id;

	(void)state;
	test_store_exec(target, "INSERT INTO repos (path, name, created_at) VALUES ('/elsewhere', 'other', 1)", 0);
	test_store_exec(target, "INSERT INTO repos (path, name, created_at) VALUES ('/src/repo', 'repo', 1)", 0);
	id = test_store_int(target, "SELECT id FROM repos WHERE path = '/src/repo'", 0);
	history_fill();
	migrate_ok(&f);
	assert_int_equal(figures_of(&f, "repos")->copied, 0);
	assert_int_equal(figures_of(&f, "repos")->present, 1);
	assert_int_equal(count_of(target, "repos"), 2);
	assert_int_equal(test_store_int(target, "SELECT count(*) FROM checks WHERE repo_id = :id", id), 2);
}

/* A copy stopped after its first transaction of findings (a trigger refuses the 251st). */
static void test_resume(void **state)
{
	struct figures f;

	(void)state;
	history_fill();
	test_store_exec(source, "INSERT INTO findings (check_id, check_threadline_id, severity, title, created_at) "
			"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500) "
			"SELECT 1, 1, 'minor', 'bulk ' || i, i FROM n", 0);
	if (test_store_pg()) {
		test_store_exec(target, "CREATE FUNCTION stop_copy() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
				"IF (SELECT count(*) FROM findings) >= 250 THEN RAISE EXCEPTION 'no more findings'; "
				"END IF; RETURN NEW; END $$", 0);
		test_store_exec(target, "CREATE TRIGGER stop_copy BEFORE INSERT ON findings FOR EACH ROW "
				"EXECUTE FUNCTION stop_copy()", 0);
	} else {
		test_store_exec(target, "CREATE TRIGGER stop_copy BEFORE INSERT ON findings WHEN "
				"(SELECT count(*) FROM findings) >= 250 BEGIN SELECT RAISE(ABORT, 'no more findings'); END", 0);
	}
	memset(&f, 0, sizeof(f));
	assert_true(store_migrate(target, source, progress, &f) < 0);
	assert_non_null(strstr(error_message(), "copying findings: "));
	assert_non_null(strstr(error_message(), "no more findings"));
	/* The first transaction stays, with its map; the second is gone whole. */
	assert_int_equal(count_of(target, "findings"), 200);
	assert_int_equal(test_store_int(target, "SELECT count(*) FROM migrated_rows WHERE tbl = 'findings'", 0), 200);
	assert_int_equal(count_of(target, "feedback"), 0);

	test_store_exec(target, TEST_SQL("DROP TRIGGER stop_copy", "DROP TRIGGER stop_copy ON findings"), 0);
	migrate_ok(&f);
	assert_int_equal(figures_of(&f, "findings")->present, 200);
	assert_int_equal(figures_of(&f, "findings")->copied, 302);
	assert_int_equal(count_of(target, "findings"), 502);
	assert_int_equal(test_store_int(target, "SELECT count(DISTINCT title) FROM findings WHERE title LIKE 'bulk %'", 0),
			 500);
	assert_int_equal(count_of(target, "feedback"), 1);
}

static void test_same_database(void **state)
{
	struct store *again = test_store_open(source_path);

	(void)state;
	assert_int_equal(store_migrate(again, source, NULL, NULL), RL_EUSAGE);
	assert_non_null(strstr(error_message(), "is the database to copy from"));
	store_close(again);
}

int main(void)
{
	if (test_store_skip())
		return PG_SKIP;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tables_all_known, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_repository, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_database, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
