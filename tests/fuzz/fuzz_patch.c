/*
 * Fixes on arbitrary bytes: a snippet taken from any text and line range,
 * any answer put back in its shape, and the preview of the change. The
 * input is two bytes that choose the lines, then the file's text, a NUL,
 * and the model's answer.
 */
#include "patch.h"

#include <git2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Held for the run, as the program holds it with a repository open: start-up is not what is fuzzed. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	git_libgit2_init();
	return 0;
}

static int lines_in(const char *text, size_t len)
{
	int n = 0;
	size_t i;

	for (i = 0; i < len; i++)
		n += text[i] == '\n';
	return n + (len && text[len - 1] != '\n');
}

/* What reindenting keeps whatever the answer: the snippet's end, with or without a line end. */
static void check_end(const struct patch_snippet *s, const struct buf *r)
{
	bool ended = s->len && s->text[s->len - 1] == '\n';

	if (r->len && ended != (r->ptr[r->len - 1] == '\n'))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct patch_snippet s;
	struct buf repl = BUF_INIT, same = BUF_INIT, diff = BUF_INIT;
	const char *text, *answer, *nul;
	size_t len, alen;
	int lines, first, last;

	if (size < 2)
		return 0;
	text = (const char *)data + 2;
	len = size - 2;
	nul = memchr(text, '\0', len);
	answer = nul ? nul + 1 : "";
	alen = nul ? len - (size_t)(answer - text) : 0;
	len = nul ? (size_t)(nul - text) : len;
	if (!(lines = lines_in(text, len)))
		return 0;
	first = 1 + data[0] % lines;
	last = first + data[1] % (lines - first + 1);
	if (patch_snippet_take(&s, "f.py", text, len, first, last) < 0)
		abort();
	if (s.end - s.start != s.len || memcmp(text + s.start, s.text, s.len))
		abort();
	if (patch_reindent(&same, &s, s.dedented, strlen(s.dedented)) < 0 ||
	    patch_reindent(&repl, &s, answer, alen) < 0)
		abort();
	check_end(&s, &same);
	check_end(&s, &repl);
	if (patch_preview(&diff, &s, text, len, repl.ptr ? repl.ptr : "", repl.len) < 0)
		abort();
	patch_snippet_release(&s);
	buf_release(&repl);
	buf_release(&same);
	buf_release(&diff);
	return 0;
}
