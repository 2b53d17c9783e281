/*
 * The repository index (index.h) on real git repositories made here, with
 * the real universal-ctags and a real store (SQLite; PostgreSQL as
 * unit/test_index-pg): definitions of Python, C, JavaScript, TypeScript,
 * Go, Rust, Java and Ruby files by name, file and line; a second build
 * that tags nothing, a changed file tagged again, other sides sharing the
 * blobs; hostile files never read (a FIFO, links out of the tree, a
 * submodule) or not tagged (binary, huge, a 1 MB line, generated,
 * vendored, ignored); ctags missing; a deadline and a cancel.
 */
#include "testlib.h"
#include "testlib/store.h"

#include "clock.h"
#include "index.h"
#include "repo.h"
#include "status.h"
#include "store.h"
#include "store_context.h"
#include "tags.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *dir, *db_path;
static struct store *store;
static struct repo *repo;

static const char *const sources[][2] = {
	{ "py/app.py", "import os\n\ndef top(x):\n    return helper(x)\n\nclass Box:\n    def open(self):\n"
		       "        return top(1)\n" },
	{ "c/m.c", "static int helper(int a)\n{\n\treturn a;\n}\n\nint api(void)\n{\n\treturn helper(1);\n}\n" },
	{ "c/m.h", "#define TWICE(x) ((x) * 2)\n#define LIMIT 10\nint api(void);\n" },
	{ "web/app.js", "function run(a) {\n  return a;\n}\nclass View {\n  draw() {\n    return run(1);\n  }\n}\n" },
	{ "web/t.ts", "export function typed(a: number): number {\n  return a;\n}\n" },
	{ "go/main.go", "package main\n\nfunc Serve(p int) int {\n\treturn p\n}\n" },
	{ "rs/lib.rs", "pub fn parse(s: &str) -> usize {\n    s.len()\n}\n\nimpl Parser {\n    fn step(&self) {\n"
		       "        parse(\"x\");\n    }\n}\n" },
	{ "java/A.java", "class A {\n    int size(int n) {\n        return n;\n    }\n}\n" },
	{ "rb/r.rb", "module M\n  def self.go(x)\n    x\n  end\nend\n" },
	{ "README.md", "# top\n\nNot a definition.\n" },
};

static int setup(void **state)
{
	char *tmp;
	size_t i;

	(void)state;
	dir = test_repo_new("index");
	for (i = 0; i < sizeof(sources) / sizeof(*sources); i++)
		test_write_str(dir, sources[i][0], sources[i][1]);
	test_commit(dir, "first");
	tmp = test_tmpdir("index-db");
	db_path = test_store_location(tmp, "revline.db");
	free(tmp);
	store = test_store_open(db_path);
	if (repo_open(&repo, dir) < 0)
		fail_msg("repo_open: %s", error_message());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	repo_free(repo);
	store_close(store);
	test_rmtree(dir);
	free(dir);
	free(db_path);
	return 0;
}

/* An index of the target's side, built to the end (at most 30 s). */
static struct index *build_with(const struct target_spec *spec, struct index_options *opts)
{
	struct target target = { 0 };
	struct index *index;

	if (repo_resolve(&target, repo, spec) < 0)
		fail_msg("repo_resolve: %s", error_message());
	opts->repo = repo;
	opts->target = &target;
	index = test_index_build(opts);
	target_release(&target);
	return index;
}

static struct index *build(const struct target_spec *spec)
{
	struct index_options opts = { .store = store };
	struct target_spec none = { 0 };

	return build_with(spec ? spec : &none, &opts);
}

static const struct def *only(const struct index *index, const char *name)
{
	size_t n;
	const struct def *const *defs = index_lookup(index, name, &n);

	if (n != 1)
		fail_msg("%zu definitions of %s", n, name);
	return defs[0];
}

static void test_languages(void **state)
{
	struct index *index = build(NULL);
	const struct def *d;
	size_t n;

	(void)state;
	assert_true(index_complete(index));
	assert_null(index_note(index));
	assert_int_equal(index_stats(index)->files, 10);
	d = only(index, "open");
	assert_string_equal(d->file->path, "py/app.py");
	assert_string_equal(d->scope, "Box");
	assert_int_equal(d->line, 7);
	assert_int_equal(d->end, 8);
	assert_true(d->flags & DEF_CALLABLE);
	d = only(index, "helper");
	assert_string_equal(d->file->path, "c/m.c");
	assert_int_equal(d->flags, DEF_FILE_SCOPE | DEF_CALLABLE);
	/* api: the function in m.c; its prototype in m.h is no definition. */
	assert_string_equal(only(index, "api")->file->path, "c/m.c");
	assert_true(only(index, "TWICE")->flags & DEF_CALLABLE);
	assert_false(only(index, "LIMIT")->flags & DEF_CALLABLE);
	assert_int_equal(only(index, "run")->end, 3);           /* JavaScript: from braces */
	assert_int_equal(only(index, "typed")->end, 3);
	assert_string_equal(only(index, "Serve")->language, "Go");
	assert_int_equal(only(index, "parse")->end, 3);
	assert_int_equal(only(index, "step")->end, 8);
	assert_string_equal(only(index, "size")->scope, "A");
	assert_string_equal(only(index, "go")->language, "Ruby");
	/* Markdown headings are no definitions: the one "top" is Python's. */
	assert_string_equal(only(index, "top")->file->path, "py/app.py");
	assert_null(index_lookup(index, "nothing_of_that_name", &n));
	assert_int_equal(n, 0);

	/* The whole function around a line, innermost first. */
	d = index_enclosing(index, "web/app.js", 6, true);
	assert_non_null(d);
	assert_string_equal(d->name, "draw");
	d = index_enclosing(index, "web/app.js", 6, false);
	assert_string_equal(d->name, "draw");
	assert_string_equal(index_enclosing(index, "rs/lib.rs", 7, true)->name, "step");
	assert_string_equal(index_enclosing(index, "py/app.py", 8, true)->name, "open");
	assert_string_equal(index_enclosing(index, "py/app.py", 8, false)->name, "open");
	assert_null(index_enclosing(index, "py/app.py", 2, true));
	assert_null(index_enclosing(index, "no/such.c", 1, false));
	index_free(index);
}

static void test_incremental(void **state)
{
	struct target_spec staged = { .staged = true }, range = { .range = "HEAD~1..HEAD" };
	struct index *index = build(NULL);
	size_t blobs = index_stats(index)->blobs, defs = index_stats(index)->defs;

	(void)state;
	assert_int_equal(index_stats(index)->tagged, blobs);
	assert_int_equal(index_stats(index)->stored, 0);
	index_free(index);

	/* Again: the store has every blob; nothing is tagged. */
	index = build(NULL);
	assert_int_equal(index_stats(index)->tagged, 0);
	assert_int_equal(index_stats(index)->stored, blobs);
	assert_int_equal(index_stats(index)->defs, defs);
	index_free(index);

	/* A changed file is tagged again, alone. */
	test_write_str(dir, "py/app.py", "def top(x):\n    return x\n\ndef added(y):\n    return top(y)\n");
	index = build(NULL);
	assert_int_equal(index_stats(index)->tagged, 1);
	assert_int_equal(only(index, "added")->line, 4);
	assert_int_equal(index_lookup(index, "open", &blobs) ? blobs : 0, 0);
	index_free(index);

	/* Staged, then committed: the index's and the commit's sides have that blob already. */
	test_sh_ok(dir, "git add py/app.py");
	index = build(&staged);
	assert_int_equal(index_stats(index)->tagged, 0);
	assert_int_equal(only(index, "added")->line, 4);
	index_free(index);
	test_commit(dir, "second");
	index = build(&range);
	assert_int_equal(index_stats(index)->tagged, 0);
	assert_string_equal(only(index, "added")->file->path, "py/app.py");
	index_free(index);
	{
		/* The base side of the range: the first commit's file. */
		struct index_options opts = { .store = store, .old_side = true };

		index = build_with(&range, &opts);
		assert_int_equal(index_stats(index)->tagged, 0);
		assert_string_equal(only(index, "open")->file->path, "py/app.py");
		index_free(index);
	}
}

/*
 * The store's cache stays bounded: blobs found in use after a day get their time renewed, and
 * when a build records something new, what nothing recorded or found for INDEX_KEEP_DAYS goes.
 */
static void test_cache_bounded(void **state)
{
	struct index *index = build(NULL);
	size_t blobs = index_stats(index)->blobs;

	(void)state;
	assert_int_equal(index_stats(index)->pruned, 0);
	index_free(index);
	/* Forty days pass, and another indexer (an older ctags) left a blob then. */
	test_store_exec(store, "UPDATE context_blobs SET indexed_at = indexed_at - 3456000000", 0);
	assert_int_equal(store_context_indexer(store, "0ldindexer000000", "ctags 5.8"), 0);
	test_store_exec(store, "INSERT INTO context_blobs (indexer, blob, size, state, indexed_at) VALUES "
			"('0ldindexer000000', 'feed', 1, 'large', 1000)", 0);
	test_store_exec(store, "UPDATE context_indexers SET created_at = 1000 WHERE id = '0ldindexer000000'", 0);

	/* Nothing new: every blob in use is renewed, nothing is pruned. */
	index = build(NULL);
	assert_int_equal(index_stats(index)->renewed, blobs);
	assert_int_equal(index_stats(index)->pruned, 0);
	index_free(index);

	/* A file changes: its new blob is recorded and the old indexer's blob goes with its indexer. */
	test_write_str(dir, "py/app.py", "def top(x):\n    return x * 2\n");
	index = build(NULL);
	assert_int_equal(index_stats(index)->tagged, 1);
	assert_int_equal(index_stats(index)->renewed, 0);
	assert_int_equal(index_stats(index)->pruned, 1);
	index_free(index);
	assert_int_equal(test_store_int(store, "SELECT count(*) FROM context_indexers WHERE id = '0ldindexer000000'", 0), 0);
	/* The blobs of the tree as it was (renewed a moment ago) are all kept. */
	assert_int_equal(test_store_int(store, "SELECT count(*) FROM context_blobs", 0), (int64_t)blobs + 1);
}

static const struct index_file *file_of(const struct index *index, const char *path)
{
	const struct index_file *f = index_file(index, path);

	if (!f)
		fail_msg("%s is not in the index", path);
	return f;
}

static void test_hostile(void **state)
{
	struct index_options opts = { .store = store, .ignore_file = ".revlineignore" };
	struct target_spec none = { 0 };
	struct buf big = BUF_INIT, text = BUF_INIT;
	struct index *index;
	int64_t start;
	size_t i;

	(void)state;
	/* Over INDEX_FILE_MAX; then a line of a megabyte (just under it). */
	for (i = 0; big.len <= INDEX_FILE_MAX; i++)
		buf_printf(&big, "int big_%zu(void) { return %zu; }\n", i, i);
	test_write(dir, "huge.c", big.ptr, big.len);
	buf_clear(&big);
	buf_puts(&big, "var minified=1;");
	while (big.len < 1000000)
		buf_puts(&big, "function m(){return 1}");
	buf_puts(&big, "\n");
	test_write(dir, "long.js", big.ptr, big.len);
	test_write(dir, "bin.dat", "int bin_def(void)\0\1\2", 20);
	test_write_str(dir, "gen.py", "# @generated by a tool\ndef gen_def():\n    pass\n");
	test_write_str(dir, "vendor/lib.py", "def vendored_def():\n    pass\n");
	test_write_str(dir, "skip/me.py", "def ignored_def():\n    pass\n");
	test_write_str(dir, "x.min.js", "function minified_def(){}\n");
	test_write_str(dir, ".gitattributes", "vendor/** linguist-vendored\n");
	test_write_str(dir, ".revlineignore", "skip/\n");
	test_write_str(dir, "we\nird.py", "def weird_def():\n    pass\n");
	test_write_str(dir, "piped.py", "def piped_def():\n    pass\n");
	test_write_str(dir, "linked.py", "def linked_def():\n    pass\n");
	test_sh_ok(dir, "ln -s /etc/passwd passwd.py && mkdir sub && git add -A && "
		   "git update-index --add --cacheinfo 160000,1111111111111111111111111111111111111111,sub && "
		   "git commit -q -m hostile && test \"$(git ls-files -s sub | cut -c1-6)\" = 160000");
	/* In the working tree: a FIFO and a link out of the tree where tracked files were. */
	test_sh_ok(dir, "rm piped.py linked.py && mkfifo piped.py && ln -s /etc/hostname linked.py");
	start = clock_ms();
	index = build_with(&none, &opts);
	assert_true(clock_ms() - start < 20000);
	assert_int_equal(file_of(index, "huge.c")->state, INDEX_LARGE);
	assert_int_equal(file_of(index, "long.js")->state, INDEX_GENERATED);
	assert_non_null(strstr(file_of(index, "long.js")->why, "minified (line 1 has"));
	assert_int_equal(file_of(index, "bin.dat")->state, INDEX_BINARY);
	assert_int_equal(file_of(index, "gen.py")->state, INDEX_GENERATED);
	assert_int_equal(file_of(index, "we\nird.py")->state, INDEX_TAGGED);
	assert_string_equal(only(index, "weird_def")->file->path, "we\nird.py");
	assert_int_equal(index_file_read(&text, index, file_of(index, "we\nird.py")), 0);
	assert_string_equal(text.ptr, "def weird_def():\n    pass\n");
	assert_int_equal(index_file_read(&text, index, file_of(index, "bin.dat")), RL_EPARSE);
	for (i = 0; i < 7; i++) {
		static const char *const gone[] = { "vendor/lib.py", "skip/me.py", "x.min.js", "piped.py", "linked.py",
						    "passwd.py", "sub" };
		assert_null(index_file(index, gone[i]));
	}
	{
		static const char *const never[] = { "big_1", "minified", "bin_def", "gen_def", "vendored_def",
						     "ignored_def", "minified_def", "piped_def", "linked_def" };
		size_t n;

		for (i = 0; i < sizeof(never) / sizeof(*never); i++)
			if (index_lookup(index, never[i], &n) || n)
				fail_msg("%s was indexed", never[i]);
	}
	assert_int_equal(index_stats(index)->excluded, 3);
	index_free(index);
	buf_release(&big);
	buf_release(&text);
}

static void test_untracked(void **state)
{
	struct target_spec untracked = { .untracked = true }, plain = { 0 };
	struct index *index;

	(void)state;
	test_write_str(dir, "new/fresh.go", "package new\n\nfunc Fresh() {}\n");
	index = build(&plain);
	assert_null(index_file(index, "new/fresh.go"));
	index_free(index);
	index = build(&untracked);
	assert_true(file_of(index, "new/fresh.go")->untracked);
	assert_string_equal(only(index, "Fresh")->file->path, "new/fresh.go");
	index_free(index);
}

static void test_no_ctags(void **state)
{
	char *old = strdup(getenv("PATH")), *empty = test_tmpdir("index-path");
	struct index *index;
	size_t n;

	(void)state;
	setenv("PATH", empty, 1);
	index = build(NULL);
	setenv("PATH", old, 1);
	assert_non_null(index_note(index));
	assert_non_null(strstr(index_note(index), TAGS_MISSING));
	assert_int_equal(index_stats(index)->defs, 0);
	assert_null(index_lookup(index, "top", &n));
	/* The files are there, readable, with their words: a word search still works. */
	assert_int_equal(file_of(index, "py/app.py")->state, INDEX_UNTAGGED);
	assert_non_null(file_of(index, "py/app.py")->words);
	assert_true(index_complete(index));
	index_free(index);
	/* With ctags back, the blobs are tagged (what was kept without it is another indexer's). */
	index = build(NULL);
	assert_null(index_note(index));
	assert_int_equal(index_stats(index)->tagged, index_stats(index)->blobs);
	index_free(index);
	test_rmtree(empty);
	free(empty);
	free(old);
}

static void test_deadline_and_cancel(void **state)
{
	struct index_options opts = { .store = store, .deadline_ms = 1 };
	struct target_spec none = { 0 };
	struct target target = { 0 };
	struct index *index;

	(void)state;
	index = build_with(&none, &opts);
	assert_false(index_complete(index));
	assert_non_null(strstr(index_note(index), "the index stopped at its deadline"));
	index_free(index);

	assert_int_equal(repo_resolve(&target, repo, &none), 0);
	opts.deadline_ms = 0;
	opts.repo = repo;
	opts.target = &target;
	assert_int_equal(index_new(&index, &opts), 0);
	assert_int_equal(index_start(index, NULL), 0);
	index_cancel(index);
	assert_true(index_done(index));
	assert_false(index_complete(index));
	assert_non_null(strstr(index_note(index), "cancelled"));
	index_free(index);
	target_release(&target);
}

static void test_bad_ignore_and_no_store(void **state)
{
	struct index_options opts = { .ignore_file = "missing-ignore" };
	struct target_spec none = { 0 };
	struct target target = { 0 };
	struct index *index = (struct index *)1;

	(void)state;
	assert_int_equal(repo_resolve(&target, repo, &none), 0);
	opts.repo = repo;
	opts.target = &target;
	assert_int_equal(index_new(&index, &opts), RL_ECONFIG);
	assert_null(index);
	assert_non_null(strstr(error_message(), "revline.ignore names missing-ignore, which cannot be read"));
	target_release(&target);

	/* Without a store: every blob tagged, every time. */
	opts.ignore_file = NULL;
	index = build_with(&none, &opts);
	assert_int_equal(index_stats(index)->tagged, index_stats(index)->blobs);
	assert_string_equal(only(index, "Serve")->file->path, "go/main.go");
	index_free(index);
	index = build_with(&none, &opts);
	assert_int_equal(index_stats(index)->tagged, index_stats(index)->blobs);
	index_free(index);
}

/* Joined to a group of the caller's: it steps with the group, a slice at a time. */
static void test_in_group(void **state)
{
	struct index_options opts = { .store = store };
	struct target_spec none = { 0 };
	struct target target = { 0 };
	struct poll_group group = POLL_GROUP_INIT;
	struct index *index;
	int steps = 0;

	(void)state;
	assert_int_equal(repo_resolve(&target, repo, &none), 0);
	opts.repo = repo;
	opts.target = &target;
	assert_int_equal(index_new(&index, &opts), 0);
	assert_int_equal(index_start(index, &group), 0);
	while (!index_done(index) && steps < 10000) {
		int64_t start = clock_ms();

		assert_int_equal(poll_group_wait(&group, 1000), 0);
		/* A slice is a few milliseconds (a loaded machine may stretch it). */
		assert_true(clock_ms() - start < 1000 + 2000);
		steps++;
	}
	assert_true(index_done(index));
	assert_true(steps > 1);
	assert_string_equal(only(index, "Serve")->file->path, "go/main.go");
	index_free(index);
	assert_int_equal(group.count, 0);
	poll_group_release(&group);
	target_release(&target);
}

int main(void)
{
	if (test_store_skip())
		return PG_SKIP;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_languages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_incremental, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untracked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_ctags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deadline_and_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_ignore_and_no_store, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_group, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
