/*
 * Definitions from universal-ctags (tags.h): its JSON lines read within
 * bounds, end lines from braces, the program found and checked (and
 * missing), a real ctags session over a small file of each language, and a
 * fake ctags that crashes, hangs and misreads, where each bad file fails
 * alone.
 */
#include "testlib.h"

#include "clock.h"
#include "status.h"
#include "tags.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- the reader ----------------------------------------------------------------- */

struct files {
	struct tag_list lists[8];
	char *errors[8];
	size_t count;
};

static int done(void *ctx, struct tag_list *tags, const char *error)
{
	struct files *f = ctx;

	assert_true(f->count < 8);
	f->lists[f->count] = *tags;
	memset(tags, 0, sizeof(*tags));
	f->errors[f->count] = error ? strdup(error) : NULL;
	f->count++;
	return 0;
}

static void files_release(struct files *f)
{
	for (size_t i = 0; i < f->count; i++) {
		tag_list_release(&f->lists[i]);
		free(f->errors[i]);
	}
	memset(f, 0, sizeof(*f));
}

/* The text fed a byte at a time, then all at once: the same result. */
static void feed(struct files *f, const char *text, size_t len, size_t piece)
{
	struct tags_reader r = { BUF_INIT, false, { 0 } };
	size_t at;

	for (at = 0; at < len; at += piece)
		assert_int_equal(tags_reader_feed(&r, text + at, at + piece <= len ? piece : len - at, done, f), 0);
	tags_reader_release(&r);
}

static void test_reader(void **state)
{
	const char *text =
		"{\"_type\": \"program\", \"name\": \"Universal Ctags\", \"version\": \"5.9.0\"}\n"
		"{\"_type\": \"tag\", \"name\": \"foo\", \"path\": \"a.py\", \"language\": \"Python\", \"line\": 1, "
		"\"kind\": \"function\", \"signature\": \"(x)\", \"end\": 2}\n"
		"{\"_type\": \"tag\", \"name\": \"bar\", \"line\": 7, \"kind\": \"function\", \"file\": true, \"end\": 3}\n"
		"not json at all\n"
		"{\"_type\": \"tag\", \"name\": \"bad\\nname\", \"line\": 1, \"kind\": \"function\"}\n"
		"{\"_type\": \"tag\", \"name\": \"noline\", \"kind\": \"function\"}\n"
		"{\"_type\": \"tag\", \"name\": \"far\", \"line\": 99999999999, \"kind\": \"function\"}\n"
		"{\"_type\": \"completed\", \"command\": \"generate-tags\"}\n"
		"{\"_type\": \"error\", \"message\": \"invalid json\", \"fatal\": true}\n";
	struct files f = { 0 };
	size_t piece;

	(void)state;
	for (piece = 1; piece <= strlen(text); piece = piece * 3 + 1) {
		feed(&f, text, strlen(text), piece);
		assert_int_equal(f.count, 2);
		assert_int_equal(f.lists[0].count, 2);
		assert_int_equal(f.lists[0].dropped, 4);
		assert_string_equal(f.lists[0].items[0].name, "foo");
		assert_string_equal(f.lists[0].items[0].kind, "function");
		assert_string_equal(f.lists[0].items[0].signature, "(x)");
		assert_string_equal(f.lists[0].items[0].language, "Python");
		assert_string_equal(f.lists[0].items[0].scope, "");
		assert_int_equal(f.lists[0].items[0].line, 1);
		assert_int_equal(f.lists[0].items[0].end, 2);
		/* An end before the line is no end; "file": true is its file's only. */
		assert_int_equal(f.lists[0].items[1].end, 0);
		assert_int_equal(f.lists[0].items[1].flags, TAG_FILE_SCOPE);
		assert_null(f.errors[0]);
		assert_string_equal(f.errors[1], "ctags: invalid json");
		files_release(&f);
	}
}

static void test_reader_bounds(void **state)
{
	struct buf text = BUF_INIT;
	struct files f = { 0 };
	char sig[1000];
	size_t i;

	(void)state;
	/* A line over the bound is skipped to its end, whatever it holds. */
	buf_puts(&text, "{\"_type\": \"tag\", \"name\": \"long\", \"line\": 1, \"kind\": \"function\", \"signature\": \"");
	for (i = 0; i < TAGS_LINE_MAX; i++)
		buf_putc(&text, 'x');
	buf_puts(&text, "\"}\n");
	/* A signature over TAGS_TEXT_MAX is cut where no character is split (é is 2 bytes). */
	for (i = 0; i + 2 < sizeof(sig); i += 2)
		memcpy(sig + i, "\xc3\xa9", 2);
	sig[i] = '\0';
	buf_printf(&text, "{\"_type\": \"tag\", \"name\": \"cut\", \"line\": 2, \"kind\": \"f\", \"signature\": \"%s\", "
		   "\"scope\": \"a\\tb\"}\n", sig);
	/* More than a file's bound of tags: counted, not kept. */
	for (i = 0; i < TAGS_PER_FILE_MAX + 5; i++)
		buf_printf(&text, "{\"_type\": \"tag\", \"name\": \"t%zu\", \"line\": 3, \"kind\": \"v\"}\n", i);
	buf_puts(&text, "{\"_type\": \"completed\", \"command\": \"generate-tags\"}\n");
	feed(&f, text.ptr, text.len, 4096);
	assert_int_equal(f.count, 1);
	assert_int_equal(f.lists[0].count, TAGS_PER_FILE_MAX);
	assert_int_equal(f.lists[0].dropped, 1 + 6);
	assert_string_equal(f.lists[0].items[0].name, "cut");
	assert_int_equal(strlen(f.lists[0].items[0].signature), TAGS_TEXT_MAX);
	assert_string_equal(f.lists[0].items[0].scope, "a b");
	files_release(&f);
	buf_release(&text);
}

static void test_fill_ends(void **state)
{
	const char *js = "function f(a) {\n  if (a) { return '}'; }\n  return a; // }\n}\n"
			 "class K {\n  m() {\n    return `${1}}`;\n  }\n}\nconst re = /}/;\n";
	const char *rs = "pub fn f(a: i32) -> i32 {\n    let s = \"}\";\n    a\n}\nimpl S {\n    fn m(&self) {}\n}\n";
	struct tag_list list = { 0 };

	(void)state;
	assert_int_equal(tag_list_add(&list, "f", "function", NULL, "(a)", "JavaScript", 1, 0, 0), 0);
	assert_int_equal(tag_list_add(&list, "K", "class", NULL, NULL, "JavaScript", 5, 0, 0), 0);
	assert_int_equal(tag_list_add(&list, "m", "method", "K", "()", "JavaScript", 6, 0, 0), 0);
	assert_int_equal(tag_list_add(&list, "re", "constant", NULL, NULL, "JavaScript", 10, 0, 0), 0);
	assert_int_equal(tags_fill_ends(&list, js, strlen(js)), 0);
	assert_int_equal(list.items[0].end, 4);
	assert_int_equal(list.items[1].end, 9);
	assert_int_equal(list.items[2].end, 8);
	assert_int_equal(list.items[3].end, 0);         /* a constant has no body */
	tag_list_release(&list);

	assert_int_equal(tag_list_add(&list, "f", "function", NULL, NULL, "Rust", 1, 0, 0), 0);
	assert_int_equal(tag_list_add(&list, "S", "implementation", NULL, NULL, "Rust", 5, 0, 0), 0);
	assert_int_equal(tag_list_add(&list, "m", "method", "S", NULL, "Rust", 6, 0, 0), 0);
	/* An end ctags gave stays. */
	assert_int_equal(tag_list_add(&list, "g", "function", NULL, NULL, "Python", 1, 3, 0), 0);
	assert_int_equal(tags_fill_ends(&list, rs, strlen(rs)), 0);
	assert_int_equal(list.items[0].end, 4);
	assert_int_equal(list.items[1].end, 7);
	assert_int_equal(list.items[2].end, 6);
	assert_int_equal(list.items[3].end, 3);
	tag_list_release(&list);
}

/* --- the program --------------------------------------------------------------------- */

static void test_program_check(void **state)
{
	struct tags_program p = { .path = strdup("/usr/bin/ctags") };
	const char *exuberant = "Exuberant Ctags 5.8, Copyright (C) 1996-2009 Darren Hiebert\n";
	const char *nojson = "Universal Ctags 5.9.0, Copyright (C) 2015 Universal Ctags Team\n"
			     "  Optional compiled features: +wildcards, +regex, +iconv\n";
	const char *good = "Universal Ctags 5.9.0, Copyright (C) 2015 Universal Ctags Team\n"
			   "Universal Ctags is derived from Exuberant Ctags.\n"
			   "  Optional compiled features: +wildcards, +regex, +json, +interactive, +sandbox, +yaml\n";

	(void)state;
	assert_int_equal(tags_program_check(&p, exuberant, strlen(exuberant)), RL_ECONFIG);
	assert_non_null(strstr(error_message(), "/usr/bin/ctags is not Universal Ctags (it says \"Exuberant Ctags 5.8\")"));
	assert_non_null(strstr(error_message(), "apt-get install universal-ctags"));
	assert_int_equal(tags_program_check(&p, nojson, strlen(nojson)), RL_ECONFIG);
	assert_non_null(strstr(error_message(), "without JSON output or its interactive mode"));
	assert_int_equal(tags_program_check(&p, good, strlen(good)), 0);
	assert_string_equal(p.version, "Universal Ctags 5.9.0");
	assert_true(p.sandbox);
	assert_non_null(strstr(p.identity, "Universal Ctags 5.9.0; --options=NONE --_interactive=sandbox"));
	assert_int_equal(tags_program_none(&p), 0);
	assert_non_null(strstr(p.identity, "no ctags"));
	tags_program_release(&p);
}

static void test_program_missing(void **state)
{
	struct tags_program p;
	char *old = strdup(getenv("PATH")), *tmp = test_tmpdir("tags-missing");

	(void)state;
	setenv("PATH", tmp, 1);
	assert_int_equal(tags_program_find(&p, NULL), RL_ENOTFOUND);
	assert_string_equal(error_message(), TAGS_MISSING);
	assert_int_equal(tags_program_find(&p, "/nowhere/ctags"), RL_ENOTFOUND);
	assert_non_null(strstr(error_message(), "revline.ctags names /nowhere/ctags, which cannot be run"));
	setenv("PATH", old, 1);
	assert_int_equal(tags_program_find(&p, NULL), 0);
	assert_true(p.path[0] == '/');
	tags_program_release(&p);
	test_rmtree(tmp);
	free(tmp);
	free(old);
}

/* --- sessions --------------------------------------------------------------------------- */

/* Send every file, step until each has come back (at most 60 s). */
static void session_run(struct tags_program *p, const char *const *paths, const char *const *texts, size_t n,
			struct tags_result *out)
{
	struct tags_session *s = NULL;
	int64_t until = clock_ms() + 60000;
	size_t got = 0, i;

	assert_int_equal(tags_session_start(&s, p), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(tags_session_send(s, 100 + i, paths[i], texts[i], strlen(texts[i])), 0);
	assert_int_equal(tags_session_pending(s), n);
	while (got < n && clock_ms() < until) {
		struct pollfd fds[8];
		int nfds = tags_session_fds(s, fds, 8), t = tags_session_timeout(s);

		poll(fds, (nfds_t)nfds, t < 0 || t > 200 ? 200 : t);
		assert_int_equal(tags_session_step(s), 0);
		while (got < n && tags_session_next(s, &out[got]) == 1) {
			assert_int_equal(out[got].id, 100 + got);
			got++;
		}
	}
	assert_int_equal(got, n);
	tags_session_free(s);
}

static const struct tag *tag_named(const struct tag_list *list, const char *name)
{
	for (size_t i = 0; i < list->count; i++)
		if (!strcmp(list->items[i].name, name))
			return &list->items[i];
	fail_msg("no tag %s", name);
	return NULL;
}

static struct tags_program real_ctags(void)
{
	struct tags_program p;
	char *version;

	if (tags_program_find(&p, NULL) < 0)
		fail_msg("%s", error_message());
	version = test_capture("/", "%s --version", p.path);
	if (tags_program_check(&p, version, strlen(version)) < 0)
		fail_msg("%s", error_message());
	free(version);
	return p;
}

static void test_session_languages(void **state)
{
	static const char *const paths[] = { "a/app.py", "src/m.c", "web/app.js", "cmd/main.go", "src/lib.rs",
					     "src/A.java", "lib/r.rb", "name\nwith newline.ts" };
	static const char *const texts[] = {
		"def top(x):\n    return x\n\nclass Box:\n    def open(self):\n        pass\n",
		"static int helper(int a)\n{\n\treturn a;\n}\n\nint api(void)\n{\n\treturn helper(1);\n}\n",
		"function run(a) {\n  return a;\n}\nclass View {\n  draw() {\n    return 1;\n  }\n}\n",
		"package main\n\nfunc Serve(p int) int {\n\treturn p\n}\n",
		"pub fn parse(s: &str) -> usize {\n    s.len()\n}\n",
		"class A {\n    int size(int n) {\n        return n;\n    }\n}\n",
		"module M\n  def self.go(x)\n    x\n  end\nend\n",
		"export function ts(a: number): number {\n  return a;\n}\n",
	};
	struct tags_program p = real_ctags();
	struct tags_result r[8];
	const struct tag *t;
	size_t i;

	(void)state;
	session_run(&p, paths, texts, 8, r);
	for (i = 0; i < 8; i++) {
		assert_null(r[i].error);
		assert_int_equal(tags_fill_ends(&r[i].tags, texts[i], strlen(texts[i])), 0);
	}
	t = tag_named(&r[0].tags, "open");
	assert_string_equal(t->language, "Python");
	assert_string_equal(t->scope, "Box");
	assert_int_equal(t->line, 5);
	assert_int_equal(t->end, 6);
	t = tag_named(&r[1].tags, "helper");
	assert_int_equal(t->flags, TAG_FILE_SCOPE);
	assert_int_equal(t->end, 4);
	assert_int_equal(tag_named(&r[1].tags, "api")->flags, 0);
	assert_int_equal(tag_named(&r[2].tags, "run")->end, 3);         /* from braces: ctags gives none */
	assert_int_equal(tag_named(&r[2].tags, "draw")->end, 7);
	assert_string_equal(tag_named(&r[3].tags, "Serve")->language, "Go");
	assert_int_equal(tag_named(&r[3].tags, "Serve")->end, 5);
	assert_int_equal(tag_named(&r[4].tags, "parse")->end, 3);
	assert_string_equal(tag_named(&r[5].tags, "size")->scope, "A");
	assert_int_equal(tag_named(&r[5].tags, "size")->end, 4);
	assert_string_equal(tag_named(&r[6].tags, "go")->language, "Ruby");
	assert_int_equal(tag_named(&r[7].tags, "ts")->end, 3);
	for (i = 0; i < 8; i++)
		tags_result_release(&r[i]);
	tags_program_release(&p);
}

/*
 * A fake ctags in Python that speaks the interactive protocol: a file
 * holding CRASH kills it, HANG makes it sleep, GARBLE makes it say its
 * command was wrong; any other file's first word is its one tag.
 */
static const char fake[] =
	"#!/usr/bin/env python3\n"
	"import json, os, signal, sys, time\n"
	"if '--version' in sys.argv:\n"
	"    print('Universal Ctags 9.9.9, Copyright (C) fake\\n  Optional compiled features: +json, +interactive')\n"
	"    sys.exit(0)\n"
	"inp = sys.stdin.buffer\n"
	"print(json.dumps({'_type': 'program', 'name': 'Universal Ctags'}), flush=True)\n"
	"while True:\n"
	"    line = inp.readline()\n"
	"    if not line:\n"
	"        sys.exit(0)\n"
	"    cmd = json.loads(line)\n"
	"    text = inp.read(cmd['size'])\n"
	"    if b'CRASH' in text:\n"
	"        os.kill(os.getpid(), signal.SIGSEGV)\n"
	"    if b'HANG' in text:\n"
	"        time.sleep(60)\n"
	"    if b'GARBLE' in text:\n"
	"        print(json.dumps({'_type': 'error', 'message': 'invalid json', 'fatal': True}), flush=True)\n"
	"        continue\n"
	"    word = text.split()[0].decode() if text.split() else 'empty'\n"
	"    print(json.dumps({'_type': 'tag', 'name': word, 'line': 1, 'kind': 'function', 'language': 'C'}))\n"
	"    print(json.dumps({'_type': 'completed', 'command': 'generate-tags'}), flush=True)\n";

static void test_session_failures(void **state)
{
	static const char *const paths[] = { "a.c", "b.c", "c.c", "d.c", "e.c", "f.c" };
	static const char *const texts[] = { "alpha", "beta CRASH", "gamma", "delta HANG", "GARBLE", "zeta" };
	char *tmp = test_tmpdir("tags-fake"), path[4096], *version;
	struct tags_program p = { 0 };
	struct tags_result r[6];
	int64_t start;

	(void)state;
	test_write_str(tmp, "ctags", fake);
	snprintf(path, sizeof(path), "%s/ctags", tmp);
	assert_int_equal(chmod(path, 0755), 0);
	assert_int_equal(tags_program_find(&p, path), 0);
	version = test_capture("/", "%s --version", path);
	assert_int_equal(tags_program_check(&p, version, strlen(version)), 0);
	assert_false(p.sandbox);
	/* Long enough for Python to start on a loaded machine, short enough for the test. */
	p.file_timeout_ms = 3000;
	start = clock_ms();
	session_run(&p, paths, texts, 6, r);
	assert_true(clock_ms() - start < 20000);
	assert_null(r[0].error);
	assert_string_equal(r[0].tags.items[0].name, "alpha");
	assert_non_null(strstr(r[1].error, "ctags crashed on this file (Segmentation fault)"));
	assert_null(r[2].error);
	assert_string_equal(r[2].tags.items[0].name, "gamma");
	assert_non_null(strstr(r[3].error, "ctags took more than 3.0 s on this file and was stopped"));
	assert_string_equal(r[4].error, "ctags: invalid json");
	assert_null(r[5].error);
	assert_string_equal(r[5].tags.items[0].name, "zeta");
	for (size_t i = 0; i < 6; i++)
		tags_result_release(&r[i]);
	tags_program_release(&p);
	free(version);
	test_rmtree(tmp);
	free(tmp);
}

/* A ctags that fails on everything: after TAGS_RESTARTS the rest fail at once, no hang. */
static void test_session_gives_up(void **state)
{
	const char *paths[TAGS_RESTARTS + 5], *texts[TAGS_RESTARTS + 5];
	char *tmp = test_tmpdir("tags-fake"), path[4096];
	struct tags_program p = { 0 };
	struct tags_result r[TAGS_RESTARTS + 5];
	size_t i, n = TAGS_RESTARTS + 5;

	(void)state;
	test_write_str(tmp, "ctags", fake);
	snprintf(path, sizeof(path), "%s/ctags", tmp);
	assert_int_equal(chmod(path, 0755), 0);
	assert_int_equal(tags_program_find(&p, path), 0);
	p.version = strdup("fake");
	for (i = 0; i < n; i++) {
		paths[i] = "x.c";
		texts[i] = "CRASH";
	}
	session_run(&p, paths, texts, n, r);
	for (i = 0; i < n; i++) {
		assert_non_null(r[i].error);
		assert_int_equal(r[i].tags.count, 0);
	}
	assert_non_null(strstr(r[n - 1].error, "the others were not tagged"));
	for (i = 0; i < n; i++)
		tags_result_release(&r[i]);
	tags_program_release(&p);
	test_rmtree(tmp);
	free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader),
		cmocka_unit_test(test_reader_bounds),
		cmocka_unit_test(test_fill_ends),
		cmocka_unit_test(test_program_check),
		cmocka_unit_test(test_program_missing),
		cmocka_unit_test(test_session_languages),
		cmocka_unit_test(test_session_failures),
		cmocka_unit_test(test_session_gives_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
