/* Opening repositories and resolving what to review. */
#include "testlib.h"

#include "repo.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *dir;           /* main (3 commits), feature (2 more), upstream set */
static char *cwd;

static char *rev(const char *name)
{
	char *out = test_capture(dir, "git rev-parse %s", name);

	out[strcspn(out, "\n")] = '\0';
	return out;
}

static int setup(void **state)
{
	(void)state;
	cwd = getcwd(NULL, 0);
	dir = test_repo_new("repo");
	test_write_str(dir, "a.txt", "one\n");
	test_commit(dir, "one");
	test_write_str(dir, "sub/dir/b.txt", "two\n");
	test_commit(dir, "two");
	test_sh_ok(dir, "git checkout -q -b feature");
	test_write_str(dir, "a.txt", "one\nfeature\n");
	test_commit(dir, "feature one");
	test_write_str(dir, "c.txt", "three\n");
	test_commit(dir, "feature two");
	test_sh_ok(dir, "git checkout -q main");
	test_write_str(dir, "main.txt", "main moved on\n");
	test_commit(dir, "main three");
	test_sh_ok(dir, "git checkout -q feature && git branch -q --set-upstream-to=main");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (chdir(cwd) != 0)
		return -1;
	test_rmtree(dir);
	free(dir);
	free(cwd);
	return 0;
}

static struct repo *open_at(const char *path)
{
	struct repo *repo = NULL;

	if (repo_open(&repo, path) < 0)
		fail_msg("cannot open %s: %s", path ? path : "the current directory", error_message());
	return repo;
}

static void test_open_from_subdirectory(void **state)
{
	char *sub;
	struct repo *repo;

	(void)state;
	assert_true(asprintf(&sub, "%s/sub/dir", dir) > 0);
	repo = open_at(sub);
	assert_non_null(strstr(repo->workdir, dir));
	assert_string_equal(repo->branch, "feature");
	assert_string_equal(repo->name, strrchr(dir, '/') + 1);
	/* The current directory is used when no path is given. */
	assert_int_equal(chdir(sub), 0);
	repo_free(repo);
	repo = open_at(NULL);
	assert_string_equal(repo->branch, "feature");
	assert_int_equal(chdir(cwd), 0);
	repo_free(repo);
	free(sub);
}

static void test_open_worktree(void **state)
{
	char *wt;
	struct repo *repo;
	struct target t;
	struct target_spec spec = { 0 };
	struct diff *diff = NULL;

	(void)state;
	assert_true(asprintf(&wt, "%s-wt", dir) > 0);
	test_sh_ok(dir, "git worktree add -q -b other '%s' main", wt);
	test_write_str(wt, "main.txt", "changed in the worktree\n");
	repo = open_at(wt);
	assert_string_equal(repo->branch, "other");
	assert_int_equal(repo_resolve(&t, repo, &spec), 0);
	assert_int_equal(repo_diff(&diff, repo, &t), 0);
	assert_int_equal(diff->nfiles, 1);
	assert_string_equal(diff->files[0].path, "main.txt");
	diff_free(diff);
	target_release(&t);
	repo_free(repo);
	test_sh_ok(dir, "git worktree remove --force '%s'", wt);
	free(wt);
}

static void test_not_a_repository(void **state)
{
	char *empty = test_tmpdir("norepo");
	struct repo *repo = NULL;

	(void)state;
	assert_int_equal(repo_open(&repo, empty), RL_ENOTREPO);
	assert_null(repo);
	assert_non_null(strstr(error_message(), "not a git repository"));
	assert_non_null(strstr(error_message(), empty));
	test_rmtree(empty);
	free(empty);
}

static void resolve_ok(struct target *t, struct repo *repo, const struct target_spec *spec)
{
	if (repo_resolve(t, repo, spec) < 0)
		fail_msg("resolve failed: %s", error_message());
}

static void test_default_uses_merge_base_with_upstream(void **state)
{
	struct repo *repo = open_at(dir);
	struct target_spec spec = { 0 };
	struct target t;
	char *base = rev("main~1");

	(void)state;
	resolve_ok(&t, repo, &spec);
	assert_string_equal(t.base_oid, base);
	assert_int_equal(t.side, SIDE_WORKDIR);
	assert_string_equal(t.base_label, "merge base with main");
	assert_string_equal(t.head_label, "working tree");
	assert_non_null(strstr(t.description, "merge base with main ("));
	target_release(&t);
	repo_free(repo);
	free(base);
}

static void test_default_without_upstream_is_head(void **state)
{
	struct repo *repo;
	struct target_spec spec = { 0 };
	struct target t;
	char *head;

	(void)state;
	test_sh_ok(dir, "git branch -q --unset-upstream");
	repo = open_at(dir);
	head = rev("HEAD");
	resolve_ok(&t, repo, &spec);
	assert_string_equal(t.base_oid, head);
	assert_string_equal(t.base_label, "HEAD");
	target_release(&t);
	repo_free(repo);
	free(head);
	test_sh_ok(dir, "git branch -q --set-upstream-to=main");
}

static void test_staged_base_and_ranges(void **state)
{
	struct repo *repo = open_at(dir);
	struct target_spec spec = { .staged = true };
	struct target t;
	char *head = rev("HEAD"), *main = rev("main"), *mb = rev("main~1"), *one = rev("main~2");

	(void)state;
	resolve_ok(&t, repo, &spec);
	assert_string_equal(t.base_oid, head);
	assert_int_equal(t.side, SIDE_INDEX);
	assert_string_equal(t.head_label, "index");
	target_release(&t);

	spec = (struct target_spec){ .base = "main~2" };
	resolve_ok(&t, repo, &spec);
	assert_string_equal(t.base_oid, one);
	assert_int_equal(t.side, SIDE_WORKDIR);
	target_release(&t);

	spec = (struct target_spec){ .range = "main..feature" };
	resolve_ok(&t, repo, &spec);
	assert_string_equal(t.base_oid, main);
	assert_string_equal(t.head_oid, head);
	assert_int_equal(t.side, SIDE_TREE);
	{
		char expect[64];

		snprintf(expect, sizeof(expect), "main (%.7s)..feature", main);
		assert_string_equal(t.description, expect);
	}
	target_release(&t);

	spec = (struct target_spec){ .range = "main...feature" };
	resolve_ok(&t, repo, &spec);
	assert_string_equal(t.base_oid, mb);
	assert_string_equal(t.head_oid, head);
	target_release(&t);

	/* An empty side means HEAD, as in git. */
	spec = (struct target_spec){ .range = "main.." };
	resolve_ok(&t, repo, &spec);
	assert_string_equal(t.head_oid, head);
	target_release(&t);

	repo_free(repo);
	free(head);
	free(main);
	free(mb);
	free(one);
}

static void test_bad_refs_and_usage(void **state)
{
	struct repo *repo = open_at(dir);
	struct target_spec spec = { .base = "no-such-ref" };
	struct target t;

	(void)state;
	assert_int_equal(repo_resolve(&t, repo, &spec), RL_EBADREF);
	assert_string_equal(error_message(), "unknown revision 'no-such-ref'");
	spec = (struct target_spec){ .range = "main..nope" };
	assert_int_equal(repo_resolve(&t, repo, &spec), RL_EBADREF);
	assert_string_equal(error_message(), "unknown revision 'nope'");
	spec = (struct target_spec){ .range = "main..feature", .staged = true };
	assert_int_equal(repo_resolve(&t, repo, &spec), RL_EUSAGE);
	spec = (struct target_spec){ .staged = true, .untracked = true };
	assert_int_equal(repo_resolve(&t, repo, &spec), RL_EUSAGE);
	assert_non_null(strstr(error_message(), "--untracked"));
	repo_free(repo);
}

static size_t count_diff(struct repo *repo, const struct target_spec *spec, const char *path)
{
	struct target t;
	struct diff *diff = NULL;
	size_t n;

	resolve_ok(&t, repo, spec);
	assert_int_equal(repo_diff(&diff, repo, &t), 0);
	n = diff->nfiles;
	if (path) {
		long i = diff_find_file(diff, path);

		assert_true(i >= 0);
		assert_int_equal(diff->files[i].status, DIFF_ADDED);
		assert_int_equal(diff_file_load(diff, (size_t)i), 0);
		assert_int_equal(diff->files[i].additions, 2);
	}
	diff_free(diff);
	target_release(&t);
	return n;
}

static void test_untracked_and_staged_diffs(void **state)
{
	struct repo *repo = open_at(dir);
	struct target_spec head = { .base = "HEAD" }, untracked = { .base = "HEAD", .untracked = true };
	struct target_spec staged = { .staged = true };

	(void)state;
	test_write_str(dir, "new/untracked.txt", "new\nfile\n");
	test_write_str(dir, "c.txt", "three\nedited\n");
	test_write_str(dir, "staged.txt", "staged\n");
	test_sh_ok(dir, "git add staged.txt");
	assert_int_equal(count_diff(repo, &head, NULL), 2);            /* c.txt, staged.txt */
	assert_int_equal(count_diff(repo, &untracked, "new/untracked.txt"), 3);
	assert_int_equal(count_diff(repo, &staged, NULL), 1);          /* staged.txt only */
	test_sh_ok(dir, "git reset -q && git checkout -q -- . && rm -rf new staged.txt");
	repo_free(repo);
}

static void test_unborn_branch(void **state)
{
	char *fresh = test_repo_new("unborn");
	struct repo *repo;
	struct target_spec spec = { 0 };
	struct target t;
	struct diff *diff = NULL;

	(void)state;
	test_write_str(fresh, "first.txt", "first\n");
	test_sh_ok(fresh, "git add first.txt");
	repo = open_at(fresh);
	assert_string_equal(repo->branch, "main (no commits yet)");
	resolve_ok(&t, repo, &spec);
	assert_string_equal(t.base_oid, "");
	assert_string_equal(t.base_label, "empty tree");
	assert_int_equal(repo_diff(&diff, repo, &t), 0);
	assert_int_equal(diff->nfiles, 1);
	assert_int_equal(diff->files[0].status, DIFF_ADDED);
	diff_free(diff);
	target_release(&t);
	repo_free(repo);
	test_rmtree(fresh);
	free(fresh);
}

static void test_bare_repository_needs_a_range(void **state)
{
	char *bare;
	struct repo *repo;
	struct target_spec spec = { 0 };
	struct target t;

	(void)state;
	assert_true(asprintf(&bare, "%s-bare.git", dir) > 0);
	test_sh_ok(dir, "git clone -q --bare . '%s'", bare);
	repo = open_at(bare);
	assert_int_equal(repo_resolve(&t, repo, &spec), RL_EUSAGE);
	assert_non_null(strstr(error_message(), "bare repository"));
	spec.range = "main~1..main";
	resolve_ok(&t, repo, &spec);
	target_release(&t);
	repo_free(repo);
	test_sh_ok(dir, "rm -rf '%s'", bare);
	free(bare);
}

/*
 * repo_diff_start lists the files before any pairing (a rename is an
 * addition and a deletion); the first slice pairs identical contents, the
 * rest pairs by score; each new model keeps what the older one counted and
 * prints what repo_diff prints.
 */
static void test_renames_in_the_background(void **state)
{
	char *rdir = test_repo_new("renames");
	struct repo *repo;
	struct target_spec spec = { .range = "HEAD~1..HEAD" };
	struct target t;
	struct diff *first = NULL, *exact = NULL, *all = NULL, *whole = NULL;
	struct buf a = BUF_INIT, b = BUF_INIT;
	int i, rc;

	(void)state;
	test_write_str(rdir, "same.txt", "identical\ncontent\n");
	test_write_str(rdir, "edited.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n");
	test_write_str(rdir, "kept.txt", "kept\n");
	test_commit(rdir, "base");
	test_sh_ok(rdir, "git mv same.txt moved.txt && git mv edited.txt renamed.txt && "
		   "echo 11 >>renamed.txt && echo more >>kept.txt && git add -A");
	test_commit(rdir, "moves");
	repo = open_at(rdir);
	resolve_ok(&t, repo, &spec);
	assert_int_equal(repo_diff_start(&first, repo, &t), 0);
	assert_false(repo_diff_renames_done(first));
	assert_int_equal(first->nfiles, 5);
	for (i = 0; i < (int)first->nfiles; i++)
		assert_int_equal(diff_file_count(first, (size_t)i), 0);
	/* The first slice pairs the identical contents, whatever its budget. */
	assert_int_equal(repo_diff_renames_step(first, 0), 0);
	assert_true(repo_diff_renames_exact(first));
	assert_int_equal(repo_diff_renamed(&exact, first), 0);
	assert_int_equal(exact->nfiles, 4);
	assert_int_equal(exact->files[2].status, DIFF_RENAMED);
	assert_string_equal(exact->files[2].old_path, "same.txt");
	assert_string_equal(exact->files[2].path, "moved.txt");
	assert_int_equal(exact->files[2].similarity, 100);
	/* Counted before: kept.txt's count is known in the new model. */
	assert_string_equal(exact->files[1].path, "kept.txt");
	assert_true(exact->files[1].flags & DIFF_FILE_COUNTED);
	assert_int_equal(exact->files[1].additions, 1);
	while ((rc = repo_diff_renames_step(first, 1000)) == 0)
		;
	assert_int_equal(rc, 1);
	assert_true(repo_diff_renames_done(exact));
	assert_int_equal(repo_diff_renamed(&all, exact), 0);
	assert_int_equal(all->nfiles, 3);
	assert_int_equal(all->files[2].status, DIFF_RENAMED);
	assert_string_equal(all->files[2].old_path, "edited.txt");
	assert_int_equal(all->files[2].similarity, 87);
	/* The same text as the diff made at once; the models go in any order. */
	diff_free(first);
	diff_free(exact);
	assert_int_equal(repo_diff(&whole, repo, &t), 0);
	assert_int_equal(diff_print(&a, all), 0);
	assert_int_equal(diff_print(&b, whole), 0);
	assert_string_equal(a.ptr, b.ptr);
	assert_non_null(strstr(a.ptr, "similarity index 87%\nrename from edited.txt\nrename to renamed.txt\n"));
	buf_release(&a);
	buf_release(&b);
	diff_free(all);
	diff_free(whole);
	target_release(&t);
	repo_free(repo);
	test_rmtree(rdir);
	free(rdir);
}

/* A file's whole text, loaded. */
static char *file_text(struct diff *diff, const char *path)
{
	long i = diff_find_file(diff, path);
	struct buf out = BUF_INIT;

	if (i < 0)
		fail_msg("%s is not in the diff", path);
	if (diff_file_print(&out, diff, (size_t)i) < 0)
		fail_msg("%s: %s", path, error_message());
	return buf_detach(&out);
}

static const struct diff_file *file_of(struct diff *diff, const char *path)
{
	long i = diff_find_file(diff, path);

	if (i < 0 || diff_file_count(diff, (size_t)i) < 0)
		fail_msg("%s: not in the diff or not counted", path);
	return &diff->files[i];
}

/* A merge stopped on four kinds of conflict, made by git. */
static char *conflicted_repo(void)
{
	char *mdir = test_repo_new("merge");

	test_write_str(mdir, "uu.txt", "a\nb\nc\n");
	test_write_str(mdir, "du.txt", "x\n");
	test_write_str(mdir, "ud.txt", "y\n");
	test_write_str(mdir, "clean.txt", "clean\n");
	test_commit(mdir, "base");
	test_sh_ok(mdir, "git checkout -q -b side && printf 'a\\nB-side\\nc\\n' >uu.txt && echo side >du.txt && "
		   "git rm -q ud.txt && echo side-aa >aa.txt && echo merged >>clean.txt && git add -A");
	test_commit(mdir, "side");
	test_sh_ok(mdir, "git checkout -q main && printf 'a\\nB-main\\nc\\n' >uu.txt && git rm -q du.txt && "
		   "echo main >ud.txt && echo main-aa >aa.txt && git add -A");
	test_commit(mdir, "main");
	assert_int_not_equal(test_sh(mdir, "git merge -q side >/dev/null 2>&1"), 0);
	return mdir;
}

static void test_merge_conflict(void **state)
{
	char *mdir = conflicted_repo(), *text;
	struct repo *repo = open_at(mdir);
	struct target_spec work = { 0 }, staged = { .staged = true }, range = { .range = "HEAD~1..HEAD" };
	struct target t;
	struct diff *diff = NULL;

	(void)state;
	assert_string_equal(repo_in_progress(repo), "merge");
	resolve_ok(&t, repo, &work);
	assert_int_equal(repo_diff(&diff, repo, &t), 0);
	assert_string_equal(diff->in_progress, "merge");
	assert_true(diff->unmerged_text);
	assert_int_equal(diff->nfiles, 5);
	assert_int_equal(diff_unmerged(diff), 4);
	/* Both modified: the working tree's file against HEAD ("ours"), its markers added lines. */
	assert_int_equal(file_of(diff, "uu.txt")->conflict, DIFF_BOTH_MODIFIED);
	assert_int_equal(file_of(diff, "uu.txt")->status, DIFF_MODIFIED);
	assert_int_equal(file_of(diff, "uu.txt")->additions, 4);
	assert_int_equal(file_of(diff, "uu.txt")->deletions, 0);
	text = file_text(diff, "uu.txt");
	assert_non_null(strstr(text, "+<<<<<<< HEAD\n B-main\n+=======\n+B-side\n+>>>>>>> side\n"));
	assert_true(diff_line_added(diff, "uu.txt", 2));
	free(text);
	assert_int_equal(file_of(diff, "aa.txt")->conflict, DIFF_BOTH_ADDED);
	/* Deleted by us, kept in the tree with their text: a new file against HEAD. */
	assert_int_equal(file_of(diff, "du.txt")->conflict, DIFF_DELETED_BY_US);
	assert_int_equal(file_of(diff, "du.txt")->status, DIFF_ADDED);
	assert_int_equal(file_of(diff, "du.txt")->additions, 1);
	/* Deleted by them, ours kept as HEAD has it: nothing to show but the conflict. */
	assert_int_equal(file_of(diff, "ud.txt")->conflict, DIFF_DELETED_BY_THEM);
	text = file_text(diff, "ud.txt");
	assert_string_equal(text, "* Unmerged path ud.txt\n");
	free(text);
	assert_int_equal(file_of(diff, "clean.txt")->conflict, DIFF_CONFLICT_NONE);
	assert_string_equal(diff_conflict_code(DIFF_DELETED_BY_THEM), "UD");
	assert_string_equal(diff_conflict_name(DIFF_BOTH_ADDED), "both added");
	diff_free(diff);
	target_release(&t);

	/* The index holds no version of them: git's line, and nothing to review. */
	resolve_ok(&t, repo, &staged);
	assert_int_equal(repo_diff(&diff, repo, &t), 0);
	assert_string_equal(diff->in_progress, "merge");
	assert_false(diff->unmerged_text);
	text = file_text(diff, "uu.txt");
	assert_string_equal(text, "* Unmerged path uu.txt\n");
	free(text);
	assert_int_equal(file_of(diff, "uu.txt")->additions, 0);
	diff_free(diff);
	target_release(&t);

	/* Two commits: the working tree's state is no part of it. */
	resolve_ok(&t, repo, &range);
	assert_int_equal(repo_diff(&diff, repo, &t), 0);
	assert_null(diff->in_progress);
	assert_int_equal(diff_unmerged(diff), 0);
	diff_free(diff);
	target_release(&t);

	/* Resolved and added: an ordinary change again. */
	test_sh_ok(mdir, "printf 'a\\nB-both\\nc\\n' >uu.txt && git add uu.txt");
	resolve_ok(&t, repo, &work);
	assert_int_equal(repo_diff(&diff, repo, &t), 0);
	assert_int_equal(file_of(diff, "uu.txt")->conflict, DIFF_CONFLICT_NONE);
	assert_int_equal(diff_unmerged(diff), 3);
	diff_free(diff);
	target_release(&t);
	test_sh_ok(mdir, "git merge --abort");
	assert_null(repo_in_progress(repo));
	repo_free(repo);
	test_rmtree(mdir);
	free(mdir);
}

/*
 * A big binary file is told from its size and first bytes: "Bin X -> Y"
 * counts, and git's "Binary files" text, for a blob (a range, the index)
 * and for a work-tree file.
 */
static void test_big_binary(void **state)
{
	char *bdir = test_repo_new("binary"), *text, *git_text;
	struct repo *repo;
	struct target_spec range = { .range = "HEAD~1..HEAD" }, work = { 0 };
	struct target t;
	struct diff *diff = NULL;
	const struct diff_file *f;

	(void)state;
	test_write_str(bdir, "small.txt", "small\n");
	test_commit(bdir, "base");
	/* 2 MiB: a NUL in its first bytes, then text (git reads no further). */
	test_sh_ok(bdir, "{ printf 'head\\0'; yes 'a line of text' | head -c 2097147; } >big.bin");
	test_commit(bdir, "big");
	repo = open_at(bdir);
	resolve_ok(&t, repo, &range);
	assert_int_equal(repo_diff(&diff, repo, &t), 0);
	f = file_of(diff, "big.bin");
	assert_true(f->flags & DIFF_FILE_BINARY);
	assert_int_equal(f->old_size, 0);
	assert_int_equal(f->new_size, 2097152);
	assert_int_equal(f->additions + f->deletions, 0);
	text = file_text(diff, "big.bin");
	git_text = test_capture(bdir, "git diff HEAD~1 HEAD -- big.bin");
	assert_string_equal(text, git_text);
	free(text);
	free(git_text);
	diff_free(diff);
	target_release(&t);

	/* Changed in the work tree, same size: both sides' sizes, the new one hashed for its id. */
	test_sh_ok(bdir, "{ printf 'HEAD\\0'; yes 'a line of text' | head -c 2097147; } >big.bin");
	resolve_ok(&t, repo, &work);
	assert_int_equal(repo_diff(&diff, repo, &t), 0);
	f = file_of(diff, "big.bin");
	assert_true(f->flags & DIFF_FILE_BINARY);
	assert_int_equal(f->old_size, 2097152);
	assert_int_equal(f->new_size, 2097152);
	text = file_text(diff, "big.bin");
	git_text = test_capture(bdir, "git diff HEAD -- big.bin");
	assert_string_equal(text, git_text);
	free(text);
	free(git_text);
	diff_free(diff);
	target_release(&t);

	/* A big file whose first 8,000 bytes hold no NUL is text to git, whatever comes after. */
	test_sh_ok(bdir, "{ yes 'text' | head -c 9000; printf '\\0'; yes 'more' | head -c 2000000; } >late.dat");
	test_sh_ok(bdir, "git checkout -q big.bin && git add late.dat");
	resolve_ok(&t, repo, &work);
	assert_int_equal(repo_diff(&diff, repo, &t), 0);
	f = file_of(diff, "late.dat");
	assert_false(f->flags & DIFF_FILE_BINARY);
	git_text = test_capture(bdir, "git diff HEAD --numstat -- late.dat");
	assert_int_equal((long)f->additions, strtol(git_text, NULL, 10));
	free(git_text);
	diff_free(diff);
	target_release(&t);
	repo_free(repo);
	test_rmtree(bdir);
	free(bdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_from_subdirectory),
		cmocka_unit_test(test_open_worktree),
		cmocka_unit_test(test_not_a_repository),
		cmocka_unit_test(test_default_uses_merge_base_with_upstream),
		cmocka_unit_test(test_default_without_upstream_is_head),
		cmocka_unit_test(test_staged_base_and_ranges),
		cmocka_unit_test(test_bad_refs_and_usage),
		cmocka_unit_test(test_untracked_and_staged_diffs),
		cmocka_unit_test(test_unborn_branch),
		cmocka_unit_test(test_bare_repository_needs_a_range),
		cmocka_unit_test(test_renames_in_the_background),
		cmocka_unit_test(test_merge_conflict),
		cmocka_unit_test(test_big_binary),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
