/* The diff model: parsing and printing git's text, libgit2 builds, filters. */
#include "testlib.h"

#include "diff.h"
#include "repo.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *fixture;       /* a repository with commits "base" and "change" */

/* Every kind of change git's diff can show, between two commits. */
static void fixture_build(const char *dir)
{
	struct buf text = BUF_INIT;
	int i;

	for (i = 1; i <= 60; i++)
		buf_printf(&text, i % 15 == 1 ? "int function_%d(void)\n{\n" : "\tline %d;\n", i);
	test_write_str(dir, "src/main.c", text.ptr);
	buf_clear(&text);
	for (i = 1; i <= 30; i++)
		buf_printf(&text, "rename me, line %d\n", i);
	test_write_str(dir, "old/name.txt", text.ptr);
	test_write_str(dir, "exact/move.txt", "moved without changes\nsecond line\n");
	test_write(dir, "bin/logo.png", "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01", 20);
	test_write_str(dir, "crlf.txt", "one\r\ntwo\r\nthree\r\n");
	test_write_str(dir, "latin1.txt", "caf\xe9\nna\xefve\n");
	test_write_str(dir, "noeol.txt", "no newline at the end");
	test_write_str(dir, "eol.txt", "a newline at the end\n");
	test_write_str(dir, "mode.sh", "#!/bin/sh\necho hi\n");
	test_write_str(dir, "kind", "a regular file\n");
	test_write_str(dir, "gone.txt", "to be deleted\n");
	test_write_str(dir, "space name.txt", "spaces in the name\n");
	test_write_str(dir, "t\xc3\xa9st.txt", "accent in the name\n");
	test_write_str(dir, "copy-source.txt", "a file that will be copied\nwith two lines\n");
	test_commit(dir, "base");
	test_sh_ok(dir, "git tag base");

	buf_clear(&text);
	for (i = 1; i <= 60; i++) {
		if (i == 5 || i == 50)
			buf_printf(&text, "\tchanged %d;\n", i);
		buf_printf(&text, i % 15 == 1 ? "int function_%d(void)\n{\n" : "\tline %d;\n", i);
	}
	test_write_str(dir, "src/main.c", text.ptr);
	test_sh_ok(dir, "mkdir -p new && git mv old/name.txt new/name.txt && "
		   "sed -i 's/line 3$/line three/; s/line 20$/line twenty/' new/name.txt && "
		   "mkdir -p moved && git mv exact/move.txt moved/move.txt && "
		   "printf '\\211PNG\\r\\n\\032\\n\\000\\000\\000\\rIHDR\\000\\000\\000\\002' > bin/logo.png && "
		   "printf 'one\\r\\n2\\r\\nthree\\r\\n' > crlf.txt && "
		   "printf 'caf\\351\\nna\\357ve\\nd\\351j\\340\\n' > latin1.txt && "
		   "printf 'no newline at the end\\nnow there is' > noeol.txt && "
		   "printf 'a newline at the end\\nno longer' > eol.txt && "
		   "chmod +x mode.sh && rm kind && ln -s mode.sh kind && git rm -q gone.txt && "
		   "echo 'spaces, changed' >> 'space name.txt' && echo changed >> 't\303\251st.txt' && "
		   "cp copy-source.txt copy-dest.txt && echo 'a new file' > added.txt && : > empty.txt");
	test_commit(dir, "change");
	test_sh_ok(dir, "git tag change");
	buf_release(&text);
}

static int setup(void **state)
{
	(void)state;
	fixture = test_repo_new("diff");
	fixture_build(fixture);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	test_rmtree(fixture);
	free(fixture);
	return 0;
}

static void assert_same_text(const char *what, const char *expected, size_t elen,
			     const char *actual, size_t alen)
{
	size_t i = 0;

	if (elen == alen && !memcmp(expected, actual, elen))
		return;
	while (i < elen && i < alen && expected[i] == actual[i])
		i++;
	fail_msg("%s: texts differ at byte %zu (lengths %zu and %zu):\nexpected: %.60s\nactual:   %.60s",
		 what, i, elen, alen, expected + (i > 20 ? i - 20 : 0), actual + (i > 20 ? i - 20 : 0));
}

static void assert_roundtrip(const char *what, const char *text)
{
	struct buf out = BUF_INIT;
	struct diff *diff = NULL;

	if (diff_from_text(&diff, text, strlen(text)) < 0)
		fail_msg("%s: parse failed: %s", what, error_message());
	assert_int_equal(diff_print(&out, diff), 0);
	assert_same_text(what, text, strlen(text), out.ptr ? out.ptr : "", out.len);
	buf_release(&out);
	diff_free(diff);
}

static void test_roundtrip_fixture(void **state)
{
	static const char *const flags[] = {
		"", "--binary", "-C --find-copies-harder", "--no-renames", "-U0", "-U12",
		"--no-prefix", "--src-prefix=i/ --dst-prefix=w/", "-R", "--function-context",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		char *text = test_capture(fixture, "git diff %s base change", flags[i]);
		char what[64];

		snprintf(what, sizeof(what), "git diff %s", flags[i]);
		assert_true(strlen(text) > 1000);
		assert_roundtrip(what, text);
		free(text);
	}
}

static struct diff *parse_fixture(const char *flags)
{
	char *text = test_capture(fixture, "git diff %s base change", flags);
	struct diff *diff = NULL;

	assert_int_equal(diff_from_text(&diff, text, strlen(text)), 0);
	free(text);
	return diff;
}

static const struct diff_file *file_named(const struct diff *diff, const char *path)
{
	long i = diff_find_file(diff, path);

	if (i < 0)
		fail_msg("no file %s in the diff", path);
	return &diff->files[i];
}

static void test_model_fields(void **state)
{
	struct diff *diff = parse_fixture("-C --find-copies-harder");
	const struct diff_file *f;

	(void)state;
	f = file_named(diff, "new/name.txt");
	assert_int_equal(f->status, DIFF_RENAMED);
	assert_string_equal(f->old_path, "old/name.txt");
	assert_true(f->similarity >= 90 && f->similarity < 100);
	assert_int_equal(f->additions, 2);
	assert_int_equal(f->deletions, 2);

	f = file_named(diff, "moved/move.txt");
	assert_int_equal(f->status, DIFF_RENAMED);
	assert_int_equal(f->similarity, 100);
	assert_int_equal(f->nhunks, 0);

	f = file_named(diff, "copy-dest.txt");
	assert_int_equal(f->status, DIFF_COPIED);
	assert_string_equal(f->old_path, "copy-source.txt");

	f = file_named(diff, "bin/logo.png");
	assert_true(f->flags & DIFF_FILE_BINARY);
	assert_int_equal(f->additions + f->deletions, 0);

	f = file_named(diff, "kind");
	assert_int_equal(f->status, DIFF_TYPECHANGE);
	assert_int_equal(f->old_mode, 0100644);
	assert_int_equal(f->new_mode, 0120000);
	assert_int_equal(f->nhunks, 2);
	assert_non_null(f->header2);

	f = file_named(diff, "mode.sh");
	assert_int_equal(f->status, DIFF_MODIFIED);
	assert_int_equal(f->old_mode, 0100644);
	assert_int_equal(f->new_mode, 0100755);

	f = file_named(diff, "gone.txt");
	assert_int_equal(f->status, DIFF_DELETED);
	assert_int_equal(f->new_mode, 0);
	f = file_named(diff, "empty.txt");
	assert_int_equal(f->status, DIFF_ADDED);
	assert_int_equal(f->nhunks, 0);

	f = file_named(diff, "space name.txt");
	assert_int_equal(f->additions, 1);
	f = file_named(diff, "t\xc3\xa9st.txt");
	assert_int_equal(f->status, DIFF_MODIFIED);

	/* The old last line lacked a newline; the new one lacks it too. */
	f = file_named(diff, "noeol.txt");
	assert_int_equal(f->nlines, 3);
	assert_true(f->lines[0].flags & DIFF_LINE_NO_EOL);
	assert_int_equal(f->lines[0].origin, '-');
	assert_true(f->lines[2].flags & DIFF_LINE_NO_EOL);
	assert_int_equal(f->lines[2].new_lineno, 2);

	/* A CRLF line keeps its CR. */
	f = file_named(diff, "crlf.txt");
	assert_int_equal(f->lines[1].origin, '-');
	assert_int_equal(f->lines[1].len, 4);
	assert_memory_equal(f->lines[1].text, "two\r", 4);

	/* Line numbers: the line added before "line 50" of main.c. */
	f = file_named(diff, "src/main.c");
	assert_int_equal(f->nhunks, 2);
	{
		const struct diff_hunk *h = &f->hunks[1];
		uint32_t k;
		bool found = false;

		for (k = 0; k < h->nlines; k++) {
			const struct diff_line *l = &f->lines[h->first_line + k];

			if (l->origin == '+') {
				assert_memory_equal(l->text, "\tchanged 50;", l->len);
				assert_int_equal(l->old_lineno, -1);
				assert_int_equal(l->new_lineno, 55);
				found = true;
			}
		}
		assert_true(found);
		assert_non_null(strstr(h->header, "int function_46(void)"));
	}
	diff_free(diff);
}

/* A repository's diff of a target, built by libgit2, with what it needs. */
struct built {
	struct repo *repo;
	struct target target;
	struct diff *diff;
	char *cwd;
};

static void built_open(struct built *b, const char *dir, const struct target_spec *spec)
{
	b->cwd = getcwd(NULL, 0);
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(repo_open(&b->repo, NULL), 0);
	if (repo_resolve(&b->target, b->repo, spec) < 0)
		fail_msg("resolve failed: %s", error_message());
	assert_int_equal(repo_diff(&b->diff, b->repo, &b->target), 0);
}

static void built_close(struct built *b)
{
	diff_free(b->diff);
	target_release(&b->target);
	repo_free(b->repo);
	assert_int_equal(chdir(b->cwd), 0);
	free(b->cwd);
}

/* libgit2's build of a target prints exactly what git diff prints. */
static void assert_build_matches(const char *dir, const struct target_spec *spec, const char *git_args)
{
	char *expected = test_capture(dir, "git diff --no-color --no-ext-diff %s", git_args);
	struct buf out = BUF_INIT;
	struct built b;

	built_open(&b, dir, spec);
	assert_int_equal(diff_print(&out, b.diff), 0);
	assert_same_text(git_args, expected, strlen(expected), out.ptr ? out.ptr : "", out.len);
	buf_release(&out);
	built_close(&b);
	free(expected);
}

/* A reference taken (a check's, a dependency review's) keeps the diff and its arena after the maker's free. */
static void test_dup_holds(void **state)
{
	struct diff *diff = NULL, *held;
	struct diff_file *f = NULL;

	(void)state;
	assert_int_equal(diff_new(&diff), 0);
	assert_int_equal(diff_file_add(&f, diff, DIFF_MODIFIED, "src/a.c", "src/a.c", 0100644, 0100644), 0);
	assert_int_equal(diff->refs, 1);
	held = diff_dup(diff);
	assert_ptr_equal(held, diff);
	assert_int_equal(held->refs, 2);
	diff_free(diff);
	/* Still there: its one reference left, the path in its arena readable (ASan says so otherwise). */
	assert_int_equal(held->refs, 1);
	assert_string_equal(held->files[0].path, "src/a.c");
	diff_free(held);
	assert_null(diff_dup(NULL));
}

static void test_build_range(void **state)
{
	struct target_spec spec = { .range = "base..change" };

	(void)state;
	assert_build_matches(fixture, &spec, "base change");
	spec.range = "change..base";
	assert_build_matches(fixture, &spec, "change base");
	spec.range = "base...change";
	assert_build_matches(fixture, &spec, "base...change");
}

static void test_build_worktree(void **state)
{
	char *dir = test_repo_new("worktree");
	struct target_spec spec = { 0 };

	(void)state;
	fixture_build(dir);
	/* Staged and unstaged changes on top of "change", a staged rename included. */
	test_sh_ok(dir, "echo staged >> added.txt && git add added.txt && "
		   "git mv src/main.c src/app.c && echo more >> src/app.c && "
		   "printf 'x\\r\\ny\\r\\n' >> crlf.txt && rm 'space name.txt' && "
		   "chmod -x mode.sh && echo untracked > untracked.txt && "
		   /* staged, then put back as it was: git shows nothing against HEAD */
		   "echo staged >> eol.txt && git add eol.txt && git show HEAD:eol.txt > eol.txt");
	assert_build_matches(dir, &spec, "HEAD");
	spec.staged = true;
	assert_build_matches(dir, &spec, "--cached");
	spec.staged = false;
	spec.base = "base";
	assert_build_matches(dir, &spec, "base");
	test_rmtree(dir);
	free(dir);
}

/*
 * Empty work-tree files where a text attribute applies: libgit2 1.5 aborted
 * in git_patch_free on them (issue 14); git's text, intent-to-add entries
 * left out of the index's diff, as git diff --cached does.
 */
static void test_build_empty_worktree_files(void **state)
{
	char *dir = test_repo_new("empty");
	struct target_spec spec = { 0 };

	(void)state;
	test_sh_ok(dir, "printf '* text=auto\\n' > .gitattributes && printf 'a\\nb\\n' > f.txt && "
		   "printf 'x' > nonl.txt && printf 'x\\n' > exe.sh && chmod +x exe.sh && : > e.txt && "
		   "git add -A && git commit -q -m base && : > f.txt && : > nonl.txt && : > exe.sh && "
		   "chmod -x exe.sh && chmod +x e.txt && : > ita.txt && echo new > ita2.txt && "
		   "git add -N ita.txt ita2.txt");
	assert_build_matches(dir, &spec, "HEAD");
	spec.staged = true;
	assert_build_matches(dir, &spec, "--cached");
	test_rmtree(dir);
	free(dir);
}

struct numstat {
	char path[256];
	long add, del;
};

/* git diff --numstat -z: "A\tD\tpath\0" or "A\tD\t\0old\0new\0". */
static size_t numstat_read(struct numstat *out, size_t max, const char *dir, const char *args)
{
	char *text = test_capture(dir, "git diff --numstat -z %s | tr '\\0' '\\n'", args);
	char *line = text, *next;
	size_t n = 0;

	while (line && *line && n < max) {
		struct numstat *ns = &out[n++];
		char *tab;

		next = strchr(line, '\n');
		*next++ = '\0';
		ns->add = line[0] == '-' ? -1 : strtol(line, NULL, 10);
		tab = strchr(line, '\t');
		ns->del = tab[1] == '-' ? -1 : strtol(tab + 1, NULL, 10);
		tab = strchr(tab + 1, '\t');
		if (!tab[1]) {
			next = strchr(next, '\n') + 1;  /* skip the old name */
			snprintf(ns->path, sizeof(ns->path), "%.*s", (int)(strchr(next, '\n') - next), next);
			next = strchr(next, '\n') + 1;
		} else {
			snprintf(ns->path, sizeof(ns->path), "%s", tab + 1);
		}
		line = next;
	}
	free(text);
	return n;
}

static void test_counts_match_numstat(void **state)
{
	struct numstat ns[64];
	struct target_spec spec = { .range = "base..change" };
	struct built b;
	size_t n, i;

	(void)state;
	n = numstat_read(ns, 64, fixture, "base change");
	built_open(&b, fixture, &spec);
	assert_int_equal(b.diff->nfiles, n);
	for (i = 0; i < n; i++) {
		long k = diff_find_file(b.diff, ns[i].path);
		const struct diff_file *f;

		if (k < 0)
			fail_msg("numstat path %s is not in the model", ns[i].path);
		assert_int_equal(diff_file_count(b.diff, (size_t)k), 0);
		f = &b.diff->files[k];
		if (ns[i].add < 0) {
			assert_true(f->flags & DIFF_FILE_BINARY);
		} else {
			assert_int_equal(f->additions, ns[i].add);
			assert_int_equal(f->deletions, ns[i].del);
		}
	}
	assert_true(diff_counted(b.diff));
	built_close(&b);
}

/* The file list is there at once; hunks come when a file is loaded. */
static void test_lazy_loading(void **state)
{
	struct target_spec spec = { .range = "base..change" };
	struct built b;
	struct diff *diff;
	long k;
	size_t i;

	(void)state;
	built_open(&b, fixture, &spec);
	diff = b.diff;
	for (i = 0; i < diff->nfiles; i++)
		assert_false(diff->files[i].flags & DIFF_FILE_LOADED);
	k = diff_find_file(diff, "src/main.c");
	assert_true(k >= 0);
	assert_int_equal(diff_file_load(diff, (size_t)k), 0);
	assert_true(diff->files[k].flags & DIFF_FILE_LOADED);
	assert_int_equal(diff->files[k].nhunks, 2);
	assert_int_equal(diff->counted, 1);
	for (i = 0; i < diff->nfiles; i++)
		if ((long)i != k)
			assert_false(diff->files[i].flags & DIFF_FILE_LOADED);
	built_close(&b);
}

/* Real diffs: every commit of revline's own history, parsed and built. */
static void test_own_history(void **state)
{
	char *list, *c, *next;
	int checked = 0;

	(void)state;
	if (test_sh(TEST_SOURCE_DIR, "git rev-parse --git-dir >/dev/null 2>&1") != 0) {
		print_message("not a git checkout; skipping the history round trip\n");
		return;
	}
	list = test_capture(TEST_SOURCE_DIR, "git rev-list --no-merges --max-count=150 HEAD");
	for (c = list; c && *c; c = next) {
		char range[100], *text;
		struct target_spec spec = { .range = range };

		next = strchr(c, '\n');
		*next++ = '\0';
		if (test_sh(TEST_SOURCE_DIR, "git rev-parse -q --verify %s^ >/dev/null", c) != 0)
			continue;
		text = test_capture(TEST_SOURCE_DIR, "git diff --no-color --no-ext-diff %s^ %s", c, c);
		assert_roundtrip(c, text);
		free(text);
		snprintf(range, sizeof(range), "%s^..%s", c, c);
		{
			char args[100];

			snprintf(args, sizeof(args), "%s^ %s", c, c);
			assert_build_matches(TEST_SOURCE_DIR, &spec, args);
		}
		checked++;
	}
	print_message("checked %d commits of revline's history\n", checked);
	free(list);
}

/*
 * A hunk header's function context is the line cut to 80 bytes: git trims
 * the blanks the cut leaves, but not those before a character the cut
 * split (it drops the split character's bytes). libgit2 trims before it
 * cuts. Found on revline's own history: a screen dump's line with a box
 * drawing character (3 bytes) at bytes 79 to 81.
 */
static void test_hunk_context_cut(void **state)
{
	char *dir = test_repo_new("context");
	struct target_spec spec = { .range = "HEAD^..HEAD" };
	int pad;

	(void)state;
	for (pad = 68; pad <= 75; pad++) {
		test_sh_ok(dir, "{ printf 'Report%%*s' %d ''; printf 'X \342\224\202YYYY\n'; "
			   "for i in $(seq 1 20); do echo \"    l$i\"; done; } >f%d.txt && "
			   "{ printf 'Report%%*s' %d ''; printf 'X  YYYY\n'; "
			   "for i in $(seq 1 20); do echo \"    l$i\"; done; } >g%d.txt", pad, pad, pad, pad);
	}
	test_commit(dir, "base");
	test_sh_ok(dir, "sed -i 's/^    l15$/changed/' f*.txt g*.txt");
	test_commit(dir, "change");
	assert_build_matches(dir, &spec, "HEAD^ HEAD");
	test_rmtree(dir);
	free(dir);
}

static void test_plain_unified(void **state)
{
	const char *text =
		"--- old/file.c\t2024-01-01 10:00:00.000000000 +0000\n"
		"+++ new/file.c\t2024-01-02 10:00:00.000000000 +0000\n"
		"@@ -1,3 +1,3 @@\n"
		" a\n"
		"--- not a header: a removed line\n"
		"+b\n"
		" c\n"
		"--- /dev/null\n"
		"+++ b/created.txt\n"
		"@@ -0,0 +1 @@\n"
		"+new\n";
	struct diff *diff = NULL;

	(void)state;
	assert_roundtrip("plain", text);
	assert_int_equal(diff_from_text(&diff, text, strlen(text)), 0);
	assert_int_equal(diff->nfiles, 2);
	assert_string_equal(diff->files[0].path, "new/file.c");
	assert_string_equal(diff->files[0].old_path, "old/file.c");
	assert_int_equal(diff->files[0].deletions, 1);
	assert_memory_equal(diff->files[0].lines[1].text, "-- not a header: a removed line", 31);
	assert_int_equal(diff->files[1].status, DIFF_ADDED);
	assert_string_equal(diff->files[1].path, "created.txt");
	diff_free(diff);
}

static void assert_parse_error(const char *text, const char *message)
{
	struct diff *diff = NULL;

	assert_int_equal(diff_from_text(&diff, text, strlen(text)), RL_EPARSE);
	assert_null(diff);
	if (!strstr(error_message(), message))
		fail_msg("expected '%s' in '%s'", message, error_message());
}

static void test_parse_errors(void **state)
{
	(void)state;
	assert_parse_error("hello\nworld\n", "no diff found");
	assert_parse_error("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n",
			   "diff line 6: the diff ends inside a hunk");
	assert_parse_error("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n-b\n",
			   "diff line 6");
	assert_parse_error("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -a +1 @@\n",
			   "diff line 4: malformed hunk header");
	assert_parse_error("diff --cc file\n", "combined diffs");
	assert_parse_error("diff --git a/x b/x\n--- a/x\nrename\n", "without a '+++' line");
	/* Empty text is an empty diff, not an error. */
	{
		struct diff *diff = NULL;

		assert_int_equal(diff_from_text(&diff, "", 0), 0);
		assert_int_equal(diff->nfiles, 0);
		diff_free(diff);
	}
}

static void test_filters(void **state)
{
	struct diff *diff = parse_fixture("-C --find-copies-harder"), *out = NULL;
	const char *const files[] = { "src/main.c", "old/name.txt" };
	const char *const ts[] = { "**/*.txt", "!**/name.txt" };
	const char *const seed[] = { "**/*.c" };
	char **paths = NULL;
	size_t n, i;

	(void)state;
	/* By files: a renamed file is found by its old name too. */
	assert_int_equal(diff_filter_files(&out, diff, files, 2), 0);
	assert_int_equal(out->nfiles, 2);
	assert_string_equal(out->files[0].path, "new/name.txt");
	assert_string_equal(out->files[1].path, "src/main.c");
	assert_int_equal(out->files[1].nhunks, 2);
	diff_free(out);

	/* By patterns, with an exclusion. */
	assert_int_equal(diff_filter_patterns(&out, diff, ts, 2), 0);
	for (i = 0; i < out->nfiles; i++) {
		assert_non_null(strstr(out->files[i].path, ".txt"));
		assert_string_not_equal(out->files[i].path, "new/name.txt");
	}
	assert_true(out->nfiles >= 6);
	diff_free(out);

	assert_int_equal(diff_filter_patterns(&out, diff, seed, 1), 0);
	assert_int_equal(out->nfiles, 1);
	assert_string_equal(out->files[0].path, "src/main.c");
	diff_free(out);

	/* No match: an empty diff. */
	assert_int_equal(diff_filter_patterns(&out, diff, (const char *const[]){ "*.rs" }, 1), 0);
	assert_int_equal(out->nfiles, 0);
	diff_free(out);

	assert_int_equal(diff_extract_files(&paths, &n, diff, false), 0);
	assert_int_equal(n, diff->nfiles);
	diff_free_paths(paths, n);
	assert_int_equal(diff_extract_files(&paths, &n, diff, true), 0);
	assert_true(n > diff->nfiles);  /* renames and copies add their old paths */
	for (i = 0; i < n; i++)
		if (!strcmp(paths[i], "old/name.txt"))
			break;
	assert_true(i < n);
	diff_free_paths(paths, n);
	diff_free(diff);
}

/* Linters get text files only: never a link (it may lead to /dev/zero or ~/.ssh) or a submodule. */
static void test_text_files_skip_links(void **state)
{
	const char *text =
		"diff --git a/a.py b/a.py\nnew file mode 100644\nindex 0000000..1111111\n"
		"--- /dev/null\n+++ b/a.py\n@@ -0,0 +1 @@\n+x = 1\n"
		"diff --git a/key b/key\nnew file mode 120000\nindex 0000000..2222222\n"
		"--- /dev/null\n+++ b/key\n@@ -0,0 +1 @@\n+/home/me/.ssh/id_rsa\n\\ No newline at end of file\n"
		"diff --git a/sub b/sub\nnew file mode 160000\nindex 0000000..3333333\n"
		"--- /dev/null\n+++ b/sub\n@@ -0,0 +1 @@\n+Subproject commit 3333333333333333333333333333333333333333\n";
	struct diff *diff = NULL;
	char **files = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(diff_from_text(&diff, text, strlen(text)), 0);
	assert_int_equal(diff->nfiles, 3);
	assert_int_equal(diff_text_files(&files, &n, diff), 0);
	assert_int_equal(n, 1);
	assert_string_equal(files[0], "a.py");
	diff_free_paths(files, n);
	diff_free(diff);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_fixture),
		cmocka_unit_test(test_model_fields),
		cmocka_unit_test(test_dup_holds),
		cmocka_unit_test(test_build_range),
		cmocka_unit_test(test_build_worktree),
		cmocka_unit_test(test_build_empty_worktree_files),
		cmocka_unit_test(test_counts_match_numstat),
		cmocka_unit_test(test_lazy_loading),
		cmocka_unit_test(test_own_history),
		cmocka_unit_test(test_hunk_context_cut),
		cmocka_unit_test(test_plain_unified),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_text_files_skip_links),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
