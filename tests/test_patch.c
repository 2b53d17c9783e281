/*
 * Fixes applied to files: the apply corpus in tests/fixtures/patch (each
 * case taken, re-indented, applied to a copy, undone, compared byte for
 * byte), the refusals, atomic writes and previews.
 */
#include "testlib.h"

#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>
#include "patch.h"
#include "status.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define CORPUS TEST_FIXTURES "/patch"

/* Bytes shown with their line ends and tabs, so that a mismatch can be read. */
static void print_bytes(const char *label, const char *p, size_t n)
{
	size_t i;

	print_message("%s (%zu bytes):\n", label, n);
	for (i = 0; i < n; i++) {
		if (p[i] == '\r')
			print_message("\\r");
		else if (p[i] == '\t')
			print_message("\\t");
		else if (p[i] == '\n')
			print_message("\\n\n");
		else
			print_message("%c", p[i]);
	}
	print_message("[end]\n");
}

static void assert_bytes(const char *what, const char *got, size_t got_len, const char *want,
			 size_t want_len)
{
	if (got_len == want_len && !memcmp(got, want, got_len))
		return;
	print_bytes("expected", want, want_len);
	print_bytes("got", got, got_len);
	fail_msg("%s: not the expected bytes", what);
}

static void assert_file(const char *what, const char *dir, const char *rel, const char *want, size_t len)
{
	struct buf got = BUF_INIT;

	test_read(&got, dir, rel);
	assert_bytes(what, got.ptr ? got.ptr : "", got.len, want, len);
	buf_release(&got);
}

/* Nothing but the named files in a directory: no temporary file left behind. */
static void assert_only(const char *dir, const char *const *names, size_t n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t i;

	assert_non_null(d);
	while ((e = readdir(d))) {
		bool known = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");

		for (i = 0; i < n; i++)
			known = known || !strcmp(e->d_name, names[i]);
		if (!known) {
			closedir(d);
			fail_msg("%s: unexpected file %s", dir, e->d_name);
		}
	}
	closedir(d);
}

static void read_fixture(struct buf *out, const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (buf_read_file(out, path) < 0)
		fail_msg("%s", error_message());
}

/* The extension of the case's before.EXT. */
static void case_ext(char *out, size_t size, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	assert_non_null(d);
	*out = '\0';
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "before.", 7))
			snprintf(out, size, "%s", e->d_name + 7);
	closedir(d);
	assert_true(*out);
}

/*
 * One case: take the snippet, re-indent the answer, apply it to a copy in a
 * throw-away working tree, compare with expected.EXT, undo, compare with
 * before.EXT. Re-indenting the snippet's own dedented text must give the
 * snippet back: what the model leaves alone stays as it was.
 */
static void test_case(void **state)
{
	const char *name = *state;
	char dir[4096], ext[64], rel[4200], file[128];
	struct buf before = BUF_INIT, answer = BUF_INIT, expected = BUF_INIT, repl = BUF_INIT,
		   same = BUF_INIT, preview = BUF_INIT;
	struct patch_snippet snippet;
	struct patch_undo undo;
	json_error_t jerr;
	json_t *meta;
	char *tmp;
	int first, last;
	bool ends_file;

	snprintf(dir, sizeof(dir), "%s/%s", CORPUS, name);
	snprintf(rel, sizeof(rel), "%s/case.json", dir);
	if (!(meta = json_load_file(rel, 0, &jerr)))
		fail_msg("%s: %s", rel, jerr.text);
	first = (int)json_integer_value(json_object_get(meta, "first"));
	last = (int)json_integer_value(json_object_get(meta, "last"));
	assert_true(first > 0 && last >= first);
	assert_non_null(json_string_value(json_object_get(meta, "tests")));
	/* A fix of how the file ends (W292, W391), as the table's final-newline says. */
	ends_file = json_is_true(json_object_get(meta, "ends_file"));
	json_decref(meta);
	case_ext(ext, sizeof(ext), dir);
	snprintf(file, sizeof(file), "before.%s", ext);
	read_fixture(&before, dir, file);
	snprintf(file, sizeof(file), "expected.%s", ext);
	read_fixture(&expected, dir, file);
	read_fixture(&answer, dir, "answer.txt");
	snprintf(rel, sizeof(rel), "src/case.%s", ext);

	assert_int_equal(patch_snippet_take(&snippet, rel, before.ptr, before.len, first, last), 0);
	assert_int_equal(patch_reindent(&same, &snippet, snippet.dedented, strlen(snippet.dedented)), 0);
	assert_bytes("the dedented snippet, re-indented", same.ptr ? same.ptr : "", same.len,
		     snippet.text, snippet.len);
	snippet.ends_file = ends_file;
	assert_int_equal(patch_reindent(&repl, &snippet, answer.ptr, answer.len), 0);
	assert_int_equal(patch_preview(&preview, &snippet, before.ptr, before.len,
				       repl.ptr ? repl.ptr : "", repl.len), 0);
	assert_true(preview.len > 0);

	tmp = test_tmpdir("patch");
	test_write(tmp, rel, before.ptr, before.len);
	if (patch_apply(&undo, tmp, &snippet, repl.ptr ? repl.ptr : "", repl.len) < 0)
		fail_msg("%s: %s", name, error_message());
	assert_file("the fixed file", tmp, rel, expected.ptr, expected.len);
	assert_int_equal(patch_undo(tmp, &undo), 0);
	assert_file("the file after undo", tmp, rel, before.ptr, before.len);
	snprintf(file, sizeof(file), "case.%s", ext);
	snprintf(rel, sizeof(rel), "%s/src", tmp);
	assert_only(rel, (const char *const[]){ file }, 1);

	patch_undo_release(&undo);
	patch_snippet_release(&snippet);
	test_rmtree(tmp);
	free(tmp);
	buf_release(&before);
	buf_release(&answer);
	buf_release(&expected);
	buf_release(&repl);
	buf_release(&same);
	buf_release(&preview);
}

static int name_order(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t corpus_list(char ***out)
{
	DIR *d = opendir(CORPUS);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		assert_non_null(names);
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), name_order);
	*out = names;
	return n;
}

/* A throw-away working tree with one file in it, and the snippet of its lines first..last. */
struct tree {
	char *dir;
	struct patch_snippet snippet;
	struct buf repl;
};

static const char SAMPLE[] = "def f(x):\n    y = x\n    return y\n";

static void tree_make(struct tree *t, const char *rel, const char *text, int first, int last,
		      const char *answer)
{
	memset(t, 0, sizeof(*t));
	t->dir = test_tmpdir("patch");
	test_write_str(t->dir, rel, text);
	assert_int_equal(patch_snippet_take(&t->snippet, rel, text, strlen(text), first, last), 0);
	assert_int_equal(patch_reindent(&t->repl, &t->snippet, answer, strlen(answer)), 0);
}

static void tree_free(struct tree *t)
{
	patch_snippet_release(&t->snippet);
	buf_release(&t->repl);
	test_sh(t->dir, "chmod -R u+w .");
	test_rmtree(t->dir);
	free(t->dir);
}

static void test_snippet_fields(void **state)
{
	const char text[] = "class A:\r\n    def f(self):\r\n\r\n        return 1\r\n    x = 2\r\n";
	const char tail[] = "int f(void)\r\n{\r\n\treturn 0;\r\n}";
	struct patch_snippet s;
	char *want;

	(void)state;
	assert_int_equal(patch_snippet_take(&s, "a.py", text, strlen(text), 2, 4), 0);
	assert_int_equal(s.first, 2);
	assert_int_equal(s.last, 4);
	assert_int_equal(s.start, 10);
	assert_int_equal(s.end, 48);
	assert_string_equal(s.text, "    def f(self):\r\n\r\n        return 1\r\n");
	assert_int_equal(s.len, strlen(s.text));
	assert_string_equal(s.indent, "    ");
	assert_string_equal(s.dedented, "def f(self):\n\n    return 1\n");
	assert_true(s.crlf);
	assert_int_equal(s.unit, 4);
	/* The whole file's id: XXH64 and the size. */
	assert_int_equal(asprintf(&want, "xxh64:%016" PRIx64 ":%zu", (uint64_t)XXH64(text, strlen(text), 0),
				  strlen(text)), (int)strlen("xxh64::") + 16 + 2);
	assert_string_equal(s.file_id, want);
	free(want);
	patch_snippet_release(&s);

	/* One line at the end of a file without a final newline: the file's line ends and unit. */
	assert_int_equal(patch_snippet_take(&s, "b.c", tail, strlen(tail), 4, 4), 0);
	assert_string_equal(s.text, "}");
	assert_true(s.crlf);
	assert_int_equal(s.unit, PATCH_UNIT_TABS);
	patch_snippet_release(&s);

	/* A byte order mark stays out, even when it is all the line has. */
	assert_int_equal(patch_snippet_take(&s, "c.py", "\xEF\xBB\xBF", 3, 1, 1), 0);
	assert_int_equal(s.start, 3);
	assert_int_equal(s.len, 0);
	assert_string_equal(s.dedented, "");
	patch_snippet_release(&s);
}

static void test_snippet_outside_the_file(void **state)
{
	struct patch_snippet s;

	(void)state;
	assert_int_equal(patch_snippet_take(&s, "a.py", SAMPLE, strlen(SAMPLE), 3, 4), RL_EUSAGE);
	assert_non_null(strstr(error_message(), "a.py"));
	assert_non_null(strstr(error_message(), "3 lines"));
	assert_int_equal(patch_snippet_take(&s, "a.py", SAMPLE, strlen(SAMPLE), 0, 1), RL_EUSAGE);
	assert_int_equal(patch_snippet_take(&s, "a.py", SAMPLE, strlen(SAMPLE), 2, 1), RL_EUSAGE);
	assert_int_equal(patch_snippet_take(&s, "a.py", "", 0, 1, 1), RL_EUSAGE);
	assert_null(s.text);
}

static void reindent_is(const char *file, int first, int last, const char *answer, const char *want)
{
	struct patch_snippet s;
	struct buf out = BUF_INIT;

	assert_int_equal(patch_snippet_take(&s, "x", file, strlen(file), first, last), 0);
	assert_int_equal(patch_reindent(&out, &s, answer, strlen(answer)), 0);
	assert_bytes(answer, out.ptr ? out.ptr : "", out.len, want, strlen(want));
	buf_release(&out);
	patch_snippet_release(&s);
}

static void test_reindent_fences(void **state)
{
	(void)state;
	/* A fence that opens the answer and never closes: the end was cut off. */
	reindent_is(SAMPLE, 2, 2, "```python\ny = x + 1\n", "    y = x + 1\n");
	/* A fence line in the middle of code with no closing one is code. */
	reindent_is(SAMPLE, 2, 2, "s = '''\n```\n'''\n", "    s = '''\n    ```\n    '''\n");
	/* Inline code is not a fence; a longer fence closes only with as many. */
	reindent_is(SAMPLE, 2, 2, "````\n```\ny = 1\n````\n", "    ```\n    y = 1\n");
	reindent_is(SAMPLE, 2, 2, "```y = x```\n", "    ```y = x```\n");
	/* Only the first block. */
	reindent_is(SAMPLE, 2, 2, "```\ny = 2\n```\nor\n```\ny = 3\n```\n", "    y = 2\n");
}

static void test_reindent_blank_lines_and_ends(void **state)
{
	(void)state;
	/* Blank lines inside the answer stay empty in a file that leaves them empty. */
	reindent_is(SAMPLE, 2, 3, "y = x\n\nreturn y\n", "    y = x\n\n    return y\n");
	/* A line of whitespace only is indented like code. */
	reindent_is(SAMPLE, 2, 3, "y = x\n  \nreturn y\n", "    y = x\n      \n    return y\n");
	/* The answer's CRLF ends do not double in a CRLF file, nor leak into an LF one. */
	reindent_is("a\r\nb\r\n", 1, 1, "c\r\nd\r\n", "c\r\nd\r\n");
	reindent_is(SAMPLE, 2, 2, "y = 1\r\nz = 2\r\n", "    y = 1\n    z = 2\n");
	/* A snippet of blank lines only keeps its end after the answer. */
	reindent_is("a\n\n\nb\n", 2, 3, "import os\n", "import os\n\n");
}

/*
 * The end of an answer that has more blank lines than the snippet had: a
 * fix that moves its window's last lines away (E402) leaves them there on
 * purpose. They are kept while safe: not at the end of the file, never a
 * longer run than the file has.
 */
static void test_reindent_answer_blank_lines_at_the_end(void **state)
{
	/* An import moved up from the window's end; the file separates with two blank lines. */
	const char *e402 = "import os\n\n\ndef f():\n    return os\nimport sys\ndef g():\n    return sys\n";
	/* The same window in a file with one blank line at most. */
	const char *tight = "import os\n\ndef f():\n    return os\nimport sys\ndef g():\n    return sys\n";
	/* One blank line just after the window already. */
	const char *after = "import os\n\n\ndef f():\n    return os\nimport sys\n\ndef g():\n    return sys\n";

	(void)state;
	reindent_is(e402, 1, 6, "import os\nimport sys\n\n\ndef f():\n    return os\n\n\n",
		    "import os\nimport sys\n\n\ndef f():\n    return os\n\n\n");
	/* Three stray newlines where the file has runs of one: the snippet's end. */
	reindent_is(tight, 1, 5, "import os\nimport sys\n\ndef f():\n    return os\n\n\n\n",
		    "import os\nimport sys\n\ndef f():\n    return os\n");
	/* Two more with the one after the window would make three: the snippet's end. */
	reindent_is(after, 1, 6, "import os\nimport sys\n\n\ndef f():\n    return os\n\n\n",
		    "import os\nimport sys\n\n\ndef f():\n    return os\n");
	/* One more with the one after: two, as the file has. */
	reindent_is(after, 1, 6, "import os\nimport sys\n\n\ndef f():\n    return os\n\n",
		    "import os\nimport sys\n\n\ndef f():\n    return os\n\n");
	/* At the end of the file, blank lines would be W391: the snippet's end. */
	reindent_is(e402, 6, 8, "import sys\ndef g():\n    return sys\n\n\n", "import sys\ndef g():\n    return sys\n");
	/* Fewer than the snippet's are a slip: the snippet's are kept (as 17-trailing-blank-lines). */
	reindent_is(e402, 1, 3, "import os\n\n", "import os\n\n\n");
	/*
	 * The window's last line still ends the answer: one line end more is a
	 * slip, whatever the file's blank lines allow (46-e261-answer-extra-line-end).
	 */
	reindent_is(e402, 4, 5, "def f():\n    return os\n\n", "def f():\n    return os\n");
	/* ... fixed in its spaces (E261 on the window's last line), */
	reindent_is("def f(x):\n    y = x # why\n    return y\n\n\ndef g():\n    pass\n", 1, 2,
		    "def f(x):\n    y = x  # why\n\n", "def f(x):\n    y = x  # why\n");
	/* ... or edited; or deleted: not moved up, so no gap to keep. */
	reindent_is(e402, 4, 5, "def f():\n    return os.name\n\n", "def f():\n    return os.name\n");
	reindent_is(e402, 4, 6, "def f():\n    return os\n\n", "def f():\n    return os\n");
}

/* A fix of how the file ends: one line end after the last line, whatever the answer and the snippet end with. */
static void reindent_end_is(const char *file, int first, int last, const char *answer, const char *want)
{
	struct patch_snippet s;
	struct buf out = BUF_INIT;

	assert_int_equal(patch_snippet_take(&s, "x", file, strlen(file), first, last), 0);
	s.ends_file = true;
	assert_int_equal(patch_reindent(&out, &s, answer, strlen(answer)), 0);
	assert_bytes(answer, out.ptr ? out.ptr : "", out.len, want, strlen(want));
	buf_release(&out);
	patch_snippet_release(&s);
}

static void test_reindent_file_end(void **state)
{
	(void)state;
	reindent_end_is("a = 1\nb = 2", 1, 2, "a = 1\nb = 2", "a = 1\nb = 2\n");
	reindent_end_is("a = 1\nb = 2", 1, 2, "a = 1\nb = 2\n\n", "a = 1\nb = 2\n");
	reindent_end_is("a = 1\nb = 2\n\n\n", 1, 4, "a = 1\nb = 2\n", "a = 1\nb = 2\n");
	reindent_end_is("a = 1\r\nb = 2\r\n  \r\n", 1, 3, "a = 1\nb = 2\n\n", "a = 1\r\nb = 2\r\n");
	/* Indented: the base comes back, the end is one line end. */
	reindent_end_is("def f():\n    return 1", 2, 2, "return 1", "    return 1\n");
	/* A snippet that does not reach the end keeps its own end. */
	reindent_end_is("a = 1\n\nb = 2\n", 1, 2, "a = 1\n", "a = 1\n\n");
}

/* A replacement that is the bytes it replaces: refused, nothing written, nothing left behind. */
static void test_apply_refuses_no_change(void **state)
{
	struct patch_undo undo;
	struct tree t;

	(void)state;
	tree_make(&t, "a.py", SAMPLE, 2, 2, "y = x\n");
	assert_int_equal(patch_apply(&undo, t.dir, &t.snippet, t.repl.ptr, t.repl.len), RL_EUSAGE);
	assert_string_equal(error_message(), "a.py: the fix changes nothing; nothing was written");
	assert_null(undo.path);
	assert_file("the file", t.dir, "a.py", SAMPLE, strlen(SAMPLE));
	assert_only(t.dir, (const char *[]){ "a.py" }, 1);
	tree_free(&t);
}

static void test_preview_exact(void **state)
{
	const char *want =
		"diff --git a/src/case.py b/src/case.py\n"
		"index 9adfaab..bc4e0d6 100644\n"
		"--- a/src/case.py\n"
		"+++ b/src/case.py\n"
		"@@ -4,6 +4,6 @@ import os\n"
		" def load(path):\n"
		"     if not os.path.exists(path):\n"
		"         return None\n"
		"-    with open(path) as f:\n"
		"+    with open(path, encoding=\"utf-8\") as f:\n"
		"         data = f.read()\n"
		"     return data\n";
	struct buf before = BUF_INIT, answer = BUF_INIT, repl = BUF_INIT, diff = BUF_INIT;
	struct patch_snippet s;

	(void)state;
	read_fixture(&before, CORPUS "/01-lines-python", "before.py");
	read_fixture(&answer, CORPUS "/01-lines-python", "answer.txt");
	assert_int_equal(patch_snippet_take(&s, "src/case.py", before.ptr, before.len, 7, 8), 0);
	assert_int_equal(patch_reindent(&repl, &s, answer.ptr, answer.len), 0);
	assert_int_equal(patch_preview(&diff, &s, before.ptr, before.len, repl.ptr, repl.len), 0);
	assert_bytes("the preview", diff.ptr, diff.len, want, strlen(want));

	/* An executable's "index" line says 100755, as git's does; nothing else changes. */
	buf_clear(&diff);
	s.executable = true;
	assert_int_equal(patch_preview(&diff, &s, before.ptr, before.len, repl.ptr, repl.len), 0);
	assert_non_null(strstr(diff.ptr, " 100755\n--- a/src/case.py\n"));
	assert_null(strstr(diff.ptr, "100644"));
	assert_int_equal(diff.len, strlen(want));
	s.executable = false;

	/* Nothing changed: no diff. Another text than the snippet's: a conflict. */
	buf_clear(&diff);
	assert_int_equal(patch_preview(&diff, &s, before.ptr, before.len, s.text, s.len), 0);
	assert_int_equal(diff.len, 0);
	assert_int_equal(patch_preview(&diff, &s, SAMPLE, strlen(SAMPLE), "x\n", 2), RL_ECONFLICT);
	patch_snippet_release(&s);
	buf_release(&before);
	buf_release(&answer);
	buf_release(&repl);
	buf_release(&diff);
}

static void test_conflict_when_the_file_changed(void **state)
{
	const char *later = "def f(x):\n    y = x  # edited\n    return y\n";
	struct patch_undo undo;
	struct tree t;

	(void)state;
	tree_make(&t, "a.py", SAMPLE, 2, 2, "y = x + 1\n");
	test_write_str(t.dir, "a.py", later);
	assert_int_equal(patch_apply(&undo, t.dir, &t.snippet, t.repl.ptr, t.repl.len), RL_ECONFLICT);
	assert_string_equal(error_message(), "a.py changed since the fix was proposed; ask for the fix again");
	assert_null(undo.path);
	assert_file("the file changed by someone else", t.dir, "a.py", later, strlen(later));
	assert_only(t.dir, (const char *const[]){ "a.py" }, 1);
	tree_free(&t);
}

static void test_undo_refused_after_a_later_edit(void **state)
{
	const char *later = "def f(x):\n    y = x + 1\n    return y  # edited\n";
	struct patch_undo undo;
	struct tree t;

	(void)state;
	tree_make(&t, "a.py", SAMPLE, 2, 2, "y = x + 1\n");
	assert_int_equal(patch_apply(&undo, t.dir, &t.snippet, t.repl.ptr, t.repl.len), 0);
	assert_int_equal(undo.offset, 10);
	assert_string_equal(undo.before, "    y = x\n");
	assert_string_equal(undo.after, "    y = x + 1\n");
	assert_string_equal(undo.id_before, t.snippet.file_id);
	test_write_str(t.dir, "a.py", later);
	assert_int_equal(patch_undo(t.dir, &undo), RL_ECONFLICT);
	assert_non_null(strstr(error_message(), "a.py changed since the fix was applied"));
	assert_file("the file edited after the fix", t.dir, "a.py", later, strlen(later));
	patch_undo_release(&undo);
	tree_free(&t);
}

static void test_symlink_file_refused(void **state)
{
	struct patch_undo undo;
	struct buf out = BUF_INIT;
	struct tree t;

	(void)state;
	tree_make(&t, "real.py", SAMPLE, 2, 2, "y = 0\n");
	test_sh_ok(t.dir, "ln -s real.py link.py");
	free(t.snippet.path);
	t.snippet.path = strdup("link.py");
	assert_int_equal(patch_apply(&undo, t.dir, &t.snippet, t.repl.ptr, t.repl.len), RL_EUSAGE);
	assert_non_null(strstr(error_message(), "link.py: a symbolic link"));
	assert_int_equal(patch_read(&out, NULL, t.dir, "link.py"), RL_EUSAGE);
	assert_file("the link's target", t.dir, "real.py", SAMPLE, strlen(SAMPLE));
	buf_release(&out);
	tree_free(&t);
}

static void test_symlinked_directory_outside_refused(void **state)
{
	char *outside = test_tmpdir("patch-outside");
	struct patch_undo undo;
	struct buf out = BUF_INIT;
	struct tree t;

	(void)state;
	tree_make(&t, "lib/a.py", SAMPLE, 2, 2, "y = 0\n");
	test_write_str(outside, "a.py", SAMPLE);
	test_sh_ok(t.dir, "rm -r lib && ln -s '%s' lib", outside);
	assert_int_equal(patch_apply(&undo, t.dir, &t.snippet, t.repl.ptr, t.repl.len), RL_EUSAGE);
	assert_non_null(strstr(error_message(), "lib/a.py: its directory leads outside the working tree"));
	assert_int_equal(patch_read(&out, NULL, t.dir, "lib/a.py"), RL_EUSAGE);
	assert_file("the file outside", outside, "a.py", SAMPLE, strlen(SAMPLE));
	assert_only(outside, (const char *const[]){ "a.py" }, 1);
	buf_release(&out);
	tree_free(&t);
	test_rmtree(outside);
	free(outside);
}

static void test_symlinked_directory_inside_allowed(void **state)
{
	struct patch_undo undo;
	struct tree t;

	(void)state;
	tree_make(&t, "src/a.py", SAMPLE, 2, 2, "y = 0\n");
	test_sh_ok(t.dir, "ln -s src alias");
	free(t.snippet.path);
	t.snippet.path = strdup("alias/a.py");
	assert_int_equal(patch_apply(&undo, t.dir, &t.snippet, t.repl.ptr, t.repl.len), 0);
	assert_file("the file through the alias", t.dir, "src/a.py", "def f(x):\n    y = 0\n    return y\n", 33);
	assert_int_equal(patch_undo(t.dir, &undo), 0);
	assert_file("the file after undo", t.dir, "src/a.py", SAMPLE, strlen(SAMPLE));
	patch_undo_release(&undo);
	tree_free(&t);
}

static void test_paths_outside_refused(void **state)
{
	static const char *paths[] = { "../a.py", "src/../../a.py", "..", "src/..", ".git/config", "" };
	char *parent;
	struct buf out = BUF_INIT;
	struct patch_undo undo;
	struct tree t;
	size_t i;

	(void)state;
	tree_make(&t, "src/a.py", SAMPLE, 2, 2, "y = 0\n");
	for (i = 0; i < sizeof(paths) / sizeof(*paths); i++) {
		assert_int_equal(patch_read(&out, NULL, t.dir, paths[i]), RL_EUSAGE);
		assert_non_null(strstr(error_message(), paths[i]));
	}
	assert_non_null(strstr(error_message(), "give a path inside the working tree"));
	assert_int_equal(patch_read(&out, NULL, t.dir, "../a.py"), RL_EUSAGE);
	assert_string_equal(error_message(), "../a.py: '..' leads outside the working tree; "
			    "give the file's path inside it");

	/* An absolute path, even one that names the very file. */
	if (asprintf(&parent, "%s/src/a.py", t.dir) < 0)
		fail();
	free(t.snippet.path);
	t.snippet.path = parent;
	assert_int_equal(patch_apply(&undo, t.dir, &t.snippet, t.repl.ptr, t.repl.len), RL_EUSAGE);
	assert_non_null(strstr(error_message(), "an absolute path"));
	assert_file("the file", t.dir, "src/a.py", SAMPLE, strlen(SAMPLE));
	assert_int_equal(out.len, 0);
	tree_free(&t);
}

static void test_missing_and_not_regular(void **state)
{
	struct buf out = BUF_INIT;
	bool executable = true;
	struct tree t;

	(void)state;
	tree_make(&t, "a.py", SAMPLE, 2, 2, "y = 0\n");
	test_sh_ok(t.dir, "mkdir dir && mkfifo fifo");
	assert_int_equal(patch_read(&out, NULL, t.dir, "gone.py"), RL_ENOTFOUND);
	assert_string_equal(error_message(), "gone.py: no such file in the working tree");
	assert_int_equal(patch_read(&out, NULL, t.dir, "nodir/gone.py"), RL_ENOTFOUND);
	assert_int_equal(patch_read(&out, NULL, t.dir, "dir"), RL_EUSAGE);
	assert_non_null(strstr(error_message(), "dir: not a regular file"));
	assert_int_equal(patch_read(&out, NULL, t.dir, "fifo"), RL_EUSAGE);
	assert_int_equal(patch_read(&out, &executable, t.dir, "a.py"), 0);
	assert_bytes("patch_read", out.ptr, out.len, SAMPLE, strlen(SAMPLE));
	assert_false(executable);
	test_sh_ok(t.dir, "chmod 755 a.py");
	buf_clear(&out);
	assert_int_equal(patch_read(&out, &executable, t.dir, "a.py"), 0);
	assert_true(executable);
	buf_release(&out);
	tree_free(&t);
}

static void test_mode_kept(void **state)
{
	struct patch_undo undo;
	struct stat st;
	char path[4096];
	struct tree t;

	(void)state;
	tree_make(&t, "run.py", SAMPLE, 2, 2, "y = 0\n");
	snprintf(path, sizeof(path), "%s/run.py", t.dir);
	assert_int_equal(chmod(path, 0755), 0);
	assert_int_equal(patch_apply(&undo, t.dir, &t.snippet, t.repl.ptr, t.repl.len), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(patch_undo(t.dir, &undo), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_only(t.dir, (const char *const[]){ "run.py" }, 1);
	patch_undo_release(&undo);
	tree_free(&t);
}

/*
 * A write that fails halfway (the file size limit, which binds root too):
 * the original is intact, no temporary file is left, the message says so.
 */
static void test_failed_write_leaves_the_file(void **state)
{
	struct rlimit old, small;
	struct patch_undo undo;
	struct buf big = BUF_INIT, answer = BUF_INIT;
	struct tree t;
	int i, rc;

	(void)state;
	for (i = 0; i < 4096; i++)
		buf_printf(&answer, "y = %d\n", i);
	tree_make(&t, "a.py", SAMPLE, 2, 2, answer.ptr);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small = old;
	small.rlim_cur = 4096;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	rc = patch_apply(&undo, t.dir, &t.snippet, t.repl.ptr, t.repl.len);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(rc, RL_EIO);
	assert_non_null(strstr(error_message(), "cannot write a.py"));
	assert_non_null(strstr(error_message(), "the file is unchanged"));
	assert_null(undo.before);
	assert_file("the file after a failed write", t.dir, "a.py", SAMPLE, strlen(SAMPLE));
	assert_only(t.dir, (const char *const[]){ "a.py" }, 1);
	buf_release(&big);
	buf_release(&answer);
	tree_free(&t);
}

static void test_read_only_directory_leaves_the_file(void **state)
{
	struct patch_undo undo;
	struct tree t;

	(void)state;
	if (geteuid() == 0)
		skip();         /* root writes in a read-only directory all the same */
	tree_make(&t, "src/a.py", SAMPLE, 2, 2, "y = 0\n");
	test_sh_ok(t.dir, "chmod a-w src");
	assert_int_equal(patch_apply(&undo, t.dir, &t.snippet, t.repl.ptr, t.repl.len), RL_EIO);
	assert_non_null(strstr(error_message(), "the file is unchanged"));
	assert_file("the file in a read-only directory", t.dir, "src/a.py", SAMPLE, strlen(SAMPLE));
	test_sh_ok(t.dir, "chmod u+w src");
	assert_only(t.dir, (const char *const[]){ "src" }, 1);
	tree_free(&t);
}

/* A file's id is XXH64 (seed 0) and the size: the published values, xxhsum's sanity buffer included. */
static void test_file_id(void **state)
{
	unsigned char sanity[222];
	uint64_t gen = 2654435761ULL;
	char id[PATCH_ID_SIZE];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sanity); i++) {
		sanity[i] = (unsigned char)(gen >> 56);
		gen *= 11400714785074694797ULL;
	}
	patch_file_id(id, "", 0);
	assert_string_equal(id, "xxh64:ef46db3751d8e999:0");
	patch_file_id(id, "abc", 3);
	assert_string_equal(id, "xxh64:44bc2cf5ad770999:3");
	patch_file_id(id, (const char *)sanity, sizeof(sanity));
	assert_string_equal(id, "xxh64:b641ae8cb691c174:222");
}

/* patch_prepare reads and checks, and writes nothing; patch_pending_write writes. */
static void test_prepare_writes_nothing(void **state)
{
	const char *after = "def f(x):\n    y = x + 1\n    return y\n";
	struct patch_pending *p;
	struct patch_undo undo;
	enum patch_side side;
	struct tree t;
	char id[PATCH_ID_SIZE];

	(void)state;
	tree_make(&t, "a.py", SAMPLE, 2, 2, "y = x + 1\n");
	assert_int_equal(patch_prepare(&p, &undo, t.dir, &t.snippet, t.repl.ptr, t.repl.len), 0);
	assert_file("the file after patch_prepare", t.dir, "a.py", SAMPLE, strlen(SAMPLE));
	assert_only(t.dir, (const char *[]){ "a.py" }, 1);
	patch_file_id(id, after, strlen(after));
	assert_string_equal(undo.id_after, id);
	assert_int_equal(patch_side(&side, t.dir, &undo), 0);
	assert_int_equal(side, PATCH_BEFORE);
	assert_int_equal(patch_pending_write(p), 0);
	patch_pending_free(p);
	assert_file("the file after patch_pending_write", t.dir, "a.py", after, strlen(after));
	assert_int_equal(patch_side(&side, t.dir, &undo), 0);
	assert_int_equal(side, PATCH_AFTER);
	test_write_str(t.dir, "a.py", "something else\n");
	assert_int_equal(patch_side(&side, t.dir, &undo), 0);
	assert_int_equal(side, PATCH_NEITHER);
	patch_undo_release(&undo);
	tree_free(&t);
}

/* An undo whose write happened but whose record did not: doing it again succeeds and changes nothing. */
static void test_undo_twice(void **state)
{
	struct patch_undo undo;
	struct tree t;

	(void)state;
	tree_make(&t, "a.py", SAMPLE, 2, 2, "y = x + 1\n");
	assert_int_equal(patch_apply(&undo, t.dir, &t.snippet, t.repl.ptr, t.repl.len), 0);
	assert_int_equal(patch_undo(t.dir, &undo), 0);
	assert_file("undone", t.dir, "a.py", SAMPLE, strlen(SAMPLE));
	assert_int_equal(patch_undo(t.dir, &undo), 0);
	assert_file("undone again", t.dir, "a.py", SAMPLE, strlen(SAMPLE));
	patch_undo_release(&undo);
	tree_free(&t);
}

/* A record stored by an older revline holds git blob ids: its undo still works, and still checks. */
static void test_undo_of_a_blob_id_record(void **state)
{
	struct patch_undo undo;
	struct tree t;
	char *before, *after;

	(void)state;
	tree_make(&t, "a.py", SAMPLE, 2, 2, "y = x + 1\n");
	before = test_capture(t.dir, "git hash-object a.py");
	assert_int_equal(patch_apply(&undo, t.dir, &t.snippet, t.repl.ptr, t.repl.len), 0);
	after = test_capture(t.dir, "git hash-object a.py");
	assert_non_null(before);
	assert_non_null(after);
	before[strcspn(before, "\n")] = after[strcspn(after, "\n")] = '\0';
	snprintf(undo.id_before, sizeof(undo.id_before), "%s", before);
	snprintf(undo.id_after, sizeof(undo.id_after), "%s", before);
	assert_int_equal(patch_undo(t.dir, &undo), RL_ECONFLICT);
	snprintf(undo.id_after, sizeof(undo.id_after), "%s", after);
	assert_int_equal(patch_undo(t.dir, &undo), 0);
	assert_file("undone from blob ids", t.dir, "a.py", SAMPLE, strlen(SAMPLE));
	free(before);
	free(after);
	patch_undo_release(&undo);
	tree_free(&t);
}

/* What a kill before the rename leaves beside the file goes; nothing else does. */
static void test_leftovers_removed(void **state)
{
	const char *kept[] = { "a.py", ".a.py.revline-toolong", ".b.py.revline-ABC123", "dir" };
	size_t removed;
	struct tree t;

	(void)state;
	tree_make(&t, "a.py", SAMPLE, 2, 2, "y = x + 1\n");
	test_write_str(t.dir, ".a.py.revline-ABC123", "half");
	test_write_str(t.dir, ".a.py.revline-toolong", "not ours");
	test_write_str(t.dir, ".b.py.revline-ABC123", "another file's");
	test_sh_ok(t.dir, "mkdir dir && mkdir .a.py.revline-DIR123");
	assert_int_equal(patch_leftovers_remove(&removed, t.dir, "a.py"), 0);
	assert_int_equal(removed, 1);
	test_sh_ok(t.dir, "rmdir .a.py.revline-DIR123");
	assert_only(t.dir, kept, 4);
	assert_int_equal(patch_leftovers_remove(&removed, t.dir, "../a.py"), RL_EUSAGE);
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_snippet_fields),
		cmocka_unit_test(test_snippet_outside_the_file),
		cmocka_unit_test(test_reindent_fences),
		cmocka_unit_test(test_reindent_blank_lines_and_ends),
		cmocka_unit_test(test_reindent_answer_blank_lines_at_the_end),
		cmocka_unit_test(test_reindent_file_end),
		cmocka_unit_test(test_apply_refuses_no_change),
		cmocka_unit_test(test_preview_exact),
		cmocka_unit_test(test_conflict_when_the_file_changed),
		cmocka_unit_test(test_undo_refused_after_a_later_edit),
		cmocka_unit_test(test_symlink_file_refused),
		cmocka_unit_test(test_symlinked_directory_outside_refused),
		cmocka_unit_test(test_symlinked_directory_inside_allowed),
		cmocka_unit_test(test_paths_outside_refused),
		cmocka_unit_test(test_missing_and_not_regular),
		cmocka_unit_test(test_mode_kept),
		cmocka_unit_test(test_failed_write_leaves_the_file),
		cmocka_unit_test(test_read_only_directory_leaves_the_file),
		cmocka_unit_test(test_file_id),
		cmocka_unit_test(test_prepare_writes_nothing),
		cmocka_unit_test(test_undo_twice),
		cmocka_unit_test(test_undo_of_a_blob_id_record),
		cmocka_unit_test(test_leftovers_removed),
	};
	struct CMUnitTest *corpus;
	char **names;
	size_t n = corpus_list(&names), i;
	int failed;

	/* The apply corpus: one test per case directory, named after it. */
	if (n < 30) {
		fprintf(stderr, "%s: %zu cases, at least 30 expected\n", CORPUS, n);
		return 1;
	}
	corpus = calloc(n, sizeof(*corpus));
	for (i = 0; i < n; i++) {
		corpus[i].name = names[i];
		corpus[i].test_func = test_case;
		corpus[i].initial_state = names[i];
	}
	failed = _cmocka_run_group_tests("apply corpus", corpus, n, NULL, NULL);
	failed += cmocka_run_group_tests(fixed, NULL, NULL);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(corpus);
	return failed;
}
