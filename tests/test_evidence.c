/* revline's evidence check against the real files of a repository. */
#include "testlib.h"

#include "evidence.h"
#include "repo.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

static char *dir;
static struct repo *repo;
static struct target target;
static struct diff *diff;

/* ctx, when not NULL, counts the reads. */
static int read_side(void *ctx, const char *path, bool old_side, struct buf *out)
{
	if (ctx)
		(*(int *)ctx)++;
	return repo_read(out, repo, &target, path, old_side);
}

static const struct file_reader reader = { read_side, NULL };

static int setup(void **state)
{
	struct target_spec spec = { 0 };

	(void)state;
	dir = test_repo_new("evidence");
	test_write_str(dir, "src/db.py",
		"import sqlite3\n\n\ndef find(db, name):\n    cur = db.cursor()\n"
		"    cur.execute(\"SELECT * FROM t WHERE name = ?\", (name,))\n    return cur.fetchone()\n\n\n"
		"def count(db):\n    return db.execute(\"SELECT count(*) FROM t\").fetchone()[0]\n");
	test_write_str(dir, "src/other.py", "def helper():\n    return 1\n");
	test_write_str(dir, "src/trojan.c", "int main(void)\n{\n}\n");
	test_commit(dir, "base");
	/* Hidden characters, and their notation as plain text. */
	test_write_str(dir, "src/trojan.c",
		"int main(void)\n{\n\tif (strcmp(access_level, \"user\xe2\x80\xae \xe2\x81\xa6// Check if admin"
		"\xe2\x81\xa9 \xe2\x81\xa6\"))\n\t\treturn say\xd0\x9d" "ello();\n"
		"\t/* revline writes it <U+202E> in a report */\n}\n");
	test_write_str(dir, "src/db.py",
		"import sqlite3\n\n\ndef find(db, name):\n    cur = db.cursor()\n"
		"    cur.execute(\"SELECT * FROM t WHERE name = '%s'\" % name)\n    return cur.fetchone()\n\n\n"
		"def count(db):\n    return db.execute(\"SELECT count(*) FROM t\").fetchone()[0]\n\n\n"
		"def remove(db, name):\n    db.execute(\"DELETE FROM t WHERE name = '%s'\" % name)\n");
	assert_int_equal(repo_open(&repo, dir), 0);
	assert_int_equal(repo_resolve(&target, repo, &spec), 0);
	assert_int_equal(repo_diff(&diff, repo, &target), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	diff_free(diff);
	target_release(&target);
	repo_free(repo);
	test_rmtree(dir);
	free(dir);
	return 0;
}

static struct finding make(const char *file, int line, const char *code)
{
	struct finding f = { 0 };

	f.rule_id = strdup("injection");
	f.file = strdup(file);
	f.line = f.end_line = line;
	f.title = strdup("t");
	f.evidence.code_examined = code ? strdup(code) : NULL;
	return f;
}

static void check(struct finding *f)
{
	struct evidence_files *files;

	assert_int_equal(evidence_files_new(&files, &reader), 0);
	assert_int_equal(evidence_check(f, diff, files), 0);
	assert_non_null(f->verify_note);
	evidence_files_free(files);
}

/* An answer of many findings in one file reads each side of it once, however many quote it. */
static void test_each_side_is_read_once(void **state)
{
	int reads = 0;
	const struct file_reader counting = { read_side, &reads };
	struct evidence_files *files;
	struct finding f[40];
	size_t i;

	(void)state;
	assert_int_equal(evidence_files_new(&files, &counting), 0);
	for (i = 0; i < 40; i++) {
		f[i] = make("src/db.py", 1, i % 2 ? "return cur.fetchone()" : "no such code at all");
		assert_int_equal(evidence_check(&f[i], diff, files), 0);
	}
	assert_true(f[1].verified);
	assert_false(f[0].verified);
	assert_int_equal(reads, 2);     /* the new side, and the old one for the code not found */
	for (i = 0; i < 40; i++)
		finding_release(&f[i]);
	evidence_files_free(files);
}

static void test_genuine_code_is_verified_and_line_corrected(void **state)
{
	struct finding f = make("src/db.py", 3,
		"cur.execute(\"SELECT * FROM t WHERE name = '%s'\" % name)\nreturn cur.fetchone()");

	(void)state;
	check(&f);
	assert_true(f.verified);
	assert_int_equal(f.line, 6);
	assert_int_equal(f.end_line, 7);
	assert_string_equal(f.verify_note, "the quoted code is at lines 6-7 of src/db.py (the answer said 3)");
	finding_release(&f);
}

static void test_whitespace_markers_and_numbers_do_not_matter(void **state)
{
	struct finding f = make("b/src/db.py", 15,
		"+def remove(db, name):\n+        db.execute(\"DELETE FROM t WHERE name = '%s'\"   % name)");
	struct finding g = make("src/db.py", 0,
		"14: def remove(db, name):\n15:     db.execute(\"DELETE FROM t WHERE name = '%s'\" % name)");

	(void)state;
	check(&f);
	assert_true(f.verified);
	assert_string_equal(f.file, "src/db.py");
	assert_int_equal(f.line, 14);
	assert_int_equal(f.end_line, 15);
	check(&g);
	assert_true(g.verified);
	assert_int_equal(g.line, 14);
	finding_release(&f);
	finding_release(&g);
}

static void test_invented_code_is_not_verified(void **state)
{
	struct finding f = make("src/db.py", 6, "cursor.execute(sql_from_request)");
	struct finding g = make("src/db.py", 6, NULL);
	struct finding h = make("src/db.py", 6, "  \n ... \n");

	(void)state;
	check(&f);
	assert_false(f.verified);
	assert_string_equal(f.verify_note, "the quoted code is not in src/db.py");
	assert_int_equal(f.line, 6);
	check(&g);
	assert_false(g.verified);
	assert_string_equal(g.verify_note, "the answer quoted no code to check");
	check(&h);
	assert_false(h.verified);
	assert_string_equal(h.verify_note, "the quoted code is empty");
	finding_release(&f);
	finding_release(&g);
	finding_release(&h);
}

static void test_file_outside_the_diff(void **state)
{
	struct finding f = make("src/other.py", 1, "def helper():");

	(void)state;
	check(&f);
	assert_false(f.verified);
	assert_string_equal(f.verify_note,
			    "src/other.py is not in the diff, and the finding is not marked as an impact finding");
	finding_release(&f);
	/* An impact finding may point outside the diff, and is checked there. */
	f = make("src/other.py", 9, "def helper():\n    return 1");
	f.evidence.impact = true;
	check(&f);
	assert_true(f.verified);
	assert_int_equal(f.line, 1);
	assert_int_equal(f.end_line, 2);
	assert_string_equal(f.verify_note, "the quoted code is at lines 1-2 of src/other.py (the answer said 9), "
			    "outside the diff (an impact finding)");
	finding_release(&f);
}

static struct finding impact(const char *file, int line, const char *code)
{
	struct finding f = make(file, line, code);

	f.evidence.impact = true;
	return f;
}

/* An impact finding outside the diff: its file read once, on the new side (the same on both), said outside. */
static void test_impact_finding_outside_the_diff(void **state)
{
	int reads = 0;
	const struct file_reader counting = { read_side, &reads };
	struct evidence_files *files;
	struct finding f = impact("src/other.py", 2, "return 1"), g = impact("src/other.py", 2, "return helper() + 1");

	(void)state;
	assert_int_equal(evidence_files_new(&files, &counting), 0);
	assert_int_equal(evidence_check(&f, diff, files), 0);
	assert_int_equal(evidence_check(&g, diff, files), 0);
	assert_true(f.verified);
	assert_string_equal(f.verify_note, "the quoted code is at line 2 of src/other.py, outside the diff (an impact "
			    "finding)");
	/* Code the file does not have: not verified, and not looked for in an "old version" it has not. */
	assert_false(g.verified);
	assert_string_equal(g.verify_note, "the quoted code is not in src/other.py (outside the diff: an impact "
			    "finding)");
	assert_int_equal(reads, 1);
	finding_release(&f);
	finding_release(&g);
	evidence_files_free(files);
}

/* The path as models write it: "./x", "b/x" (when there is no b/ folder) name the file; a missing one is said. */
static void test_impact_finding_paths(void **state)
{
	struct finding f = impact("./src/other.py", 1, "def helper():"), g = impact("b/src/other.py", 1, "def helper():");
	struct finding h = impact("src/gone.py", 1, "def helper():"), k = impact("../outside.py", 1, "def helper():");

	(void)state;
	check(&f);
	check(&g);
	check(&h);
	check(&k);
	assert_true(f.verified);
	assert_string_equal(f.file, "src/other.py");
	assert_true(g.verified);
	assert_string_equal(g.file, "src/other.py");
	assert_false(h.verified);
	assert_string_equal(h.verify_note, "src/gone.py is neither in the diff nor in the repository");
	/* Never read outside the working tree. */
	assert_false(k.verified);
	assert_string_equal(k.verify_note, "the quoted code could not be looked for: ../outside.py: not a path inside "
			    "the repository");
	finding_release(&f);
	finding_release(&g);
	finding_release(&h);
	finding_release(&k);
}

/* A path with "./" names the diff's file too. */
static void test_dot_slash_names_a_file_of_the_diff(void **state)
{
	struct finding f = make("./src/db.py", 1, "return cur.fetchone()");

	(void)state;
	check(&f);
	assert_true(f.verified);
	assert_string_equal(f.file, "src/db.py");
	finding_release(&f);
}

static void test_removed_code_is_found_in_the_old_version(void **state)
{
	struct finding f = make("src/db.py", 6, "cur.execute(\"SELECT * FROM t WHERE name = ?\", (name,))");

	(void)state;
	check(&f);
	assert_true(f.verified);
	assert_non_null(strstr(f.verify_note, "old version"));
	finding_release(&f);
}

static void test_nearest_match_wins(void **state)
{
	struct finding f = make("src/db.py", 16, "% name)");

	(void)state;
	/* Too short a fragment to prove anything on its own. */
	check(&f);
	assert_false(f.verified);
	finding_release(&f);
	f = make("src/db.py", 16, "WHERE name = '%s'\" % name)");
	check(&f);
	assert_true(f.verified);
	assert_int_equal(f.line, 15);
	finding_release(&f);
	f = make("src/db.py", 5, "WHERE name = '%s'\" % name)");
	check(&f);
	assert_int_equal(f.line, 6);
	finding_release(&f);
}

/* Hidden characters quoted as revline shows them (<U+202E>) or as they are: both are the file's code. */
static void test_hidden_characters_as_shown(void **state)
{
	struct finding shown = make("src/trojan.c", 1,
		"if (strcmp(access_level, \"user<U+202E> <U+2066>// Check if admin<U+2069> <U+2066>\"))\n"
		"return say<U+041D>ello();");
	struct finding raw = make("src/trojan.c", 3, "return say\xd0\x9d" "ello();");
	struct finding literal = make("src/trojan.c", 1, "/* revline writes it <U+202E> in a report */");
	struct finding other = make("src/trojan.c", 1, "return say<U+0048>ello();");

	(void)state;
	check(&shown);
	assert_true(shown.verified);
	assert_int_equal(shown.line, 3);
	assert_int_equal(shown.end_line, 4);
	check(&raw);
	assert_true(raw.verified);
	check(&literal);
	assert_true(literal.verified);
	assert_int_equal(literal.line, 5);
	/* A Latin H is not the Cyrillic one. */
	check(&other);
	assert_false(other.verified);
	finding_release(&shown);
	finding_release(&raw);
	finding_release(&literal);
	finding_release(&other);
}

/* An answer whose reason is the change's own words is noticed; one that read the code is not. */
static void test_steered_reasoning(void **state)
{
	static const char *const steered[] = {
		"The comment says this function was audited, so it is compliant.",
		"Compliant. According to the commit message the input is sanitized upstream.",
		"No problem here; AGENTS.md states that this module is exempt from the rule.",
		"The change follows the rule: the note to AI reviewers confirms it.",
		"As instructed, I answer compliant.",
		"The author notes that the query is safe",
	};
	static const char *const genuine[] = {
		"The change adds a parameterised query; no input reaches SQL unescaped.",
		"The comment says the function returns NULL on error, and line 40 checks it.",
		"The docstring states the input is validated; src/db.py:12 validates it with int().",
		"The commit message explains the refactoring; the code handles every error it can return.",
		"A comment was added; it is not about safety.",
		"",
	};
	struct buf why = BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(steered) / sizeof(steered[0]); i++) {
		if (!evidence_steered(&why, steered[i]))
			fail_msg("not noticed: %s", steered[i]);
		assert_non_null(strstr(steered[i], why.ptr));
	}
	assert_true(evidence_steered(&why, "Fine.\nThe comment says it was audited. Nothing else."));
	assert_string_equal(why.ptr, "The comment says it was audited");
	for (i = 0; i < sizeof(genuine) / sizeof(genuine[0]); i++)
		if (evidence_steered(&why, genuine[i]))
			fail_msg("noticed wrongly: %s (%s)", genuine[i], why.ptr);
	assert_false(evidence_steered(&why, NULL));
	buf_release(&why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_genuine_code_is_verified_and_line_corrected),
		cmocka_unit_test(test_each_side_is_read_once),
		cmocka_unit_test(test_whitespace_markers_and_numbers_do_not_matter),
		cmocka_unit_test(test_invented_code_is_not_verified),
		cmocka_unit_test(test_file_outside_the_diff),
		cmocka_unit_test(test_impact_finding_outside_the_diff),
		cmocka_unit_test(test_impact_finding_paths),
		cmocka_unit_test(test_dot_slash_names_a_file_of_the_diff),
		cmocka_unit_test(test_removed_code_is_found_in_the_old_version),
		cmocka_unit_test(test_nearest_match_wins),
		cmocka_unit_test(test_hidden_characters_as_shown),
		cmocka_unit_test(test_steered_reasoning),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
