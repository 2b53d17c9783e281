/*
 * libFuzzer target: edit windows over arbitrary text at arbitrary lines,
 * and the table parser over arbitrary rows. Nothing may crash, read out of
 * bounds or leak, and every window must keep its promises: inside the
 * file, around the signal's lines, the minimums, the context around the
 * edit window, parts in file order and clear of the edit window.
 *
 * The input: a header of 8 bytes, a message up to a NUL, then the text.
 *   0  the language (its low bits pick a path); high bit: parse the rest as a table
 *   1  the window kind     2  +-N     3  the context flags
 *   4-5  the line (big-endian; values past the file test the refusal)
 *   6-7  how far end_line is past line (0: none)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "editwin.h"
#include "status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const paths[] = {
	"f.py", "f.c", "f.cpp", "f.js", "f.ts", "f.go", "f.rs", "F.java", "f.txt",
};
#define NPATHS (sizeof(paths) / sizeof(paths[0]))

static int count_lines(const char *text, size_t len)
{
	size_t i;
	int n = 0;

	for (i = 0; i < len; i++)
		n += text[i] == '\n';
	return n + (len && text[len - 1] != '\n');
}

static void check(const struct editwin *w, int n, int line, int end)
{
	size_t i;

	if (w->first < 1 || w->last > n || w->first > line || w->last < end)
		abort();
	if (w->first > (line - EDITWIN_MIN_EDIT < 1 ? 1 : line - EDITWIN_MIN_EDIT) ||
	    w->last < (end + EDITWIN_MIN_EDIT > n ? n : end + EDITWIN_MIN_EDIT))
		abort();
	if (w->context_first > w->first || w->context_last < w->last || w->context_first < 1 ||
	    w->context_last > n)
		abort();
	if (w->context_first > (line - EDITWIN_MIN_CONTEXT < 1 ? 1 : line - EDITWIN_MIN_CONTEXT) ||
	    w->context_last < (end + EDITWIN_MIN_CONTEXT > n ? n : end + EDITWIN_MIN_CONTEXT))
		abort();
	for (i = 0; i < w->nparts; i++) {
		const struct editwin_part *p = &w->parts[i];

		if (p->first < 1 || p->last > n || p->first > p->last)
			abort();
		if (!(p->last < w->first || p->first > w->last))
			abort();
		if (i && w->parts[i - 1].first > p->first)
			abort();
		if (!strcmp(editwin_context_label(p->what), "?"))
			abort();
	}
}

static void fuzz_table(const uint8_t *data, size_t size)
{
	static const char *const codes[] = { "F401", "UP006", "override", "", "x" };
	struct editwin_table *table;
	struct editwin_spec spec;
	size_t i;

	if (editwin_table_parse(&table, (const char *)data, size, "fuzz.tsv") < 0) {
		if (table || !*error_message())
			abort();
		return;
	}
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		editwin_lookup(&spec, table, i % 2 ? NULL : "ruff", codes[i], "self.x \"UserID\"");
		if ((unsigned)spec.kind > EDITWIN_SKIP || (spec.known && !spec.why))
			abort();
	}
	editwin_table_free(table);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct editwin_spec spec;
	struct editwin w;
	const uint8_t *nul;
	char *message;
	const char *text;
	size_t mlen, len;
	int n, line, end, error;

	if (size < 8)
		return 0;
	if (data[0] & 0x80) {
		fuzz_table(data + 1, size - 1);
		return 0;
	}
	nul = memchr(data + 8, '\0', size - 8);
	mlen = nul ? (size_t)(nul - (data + 8)) : 0;
	if (!(message = malloc(mlen + 1)))
		abort();
	memcpy(message, data + 8, mlen);
	message[mlen] = '\0';
	text = (const char *)data + 8 + (nul ? mlen + 1 : 0);
	len = size - (size_t)((const uint8_t *)text - data);

	memset(&spec, 0, sizeof(spec));
	spec.kind = (enum editwin_kind)(data[1] % (EDITWIN_SKIP + 1));
	spec.lines = (int8_t)data[2];
	spec.context = data[3];
	n = count_lines(text, len);
	line = (data[4] << 8) | data[5];
	/* Mostly a line of the file; now and then one past it, to be refused. */
	if (n && !(data[4] & 0x80))
		line = 1 + line % n;
	end = data[6] || data[7] ? line + ((data[6] << 8) | data[7]) % 64 : 0;

	error = editwin_build(&w, &spec, paths[data[0] % NPATHS], text, len, line, end, message);
	if (error == 0) {
		if (spec.kind == EDITWIN_SKIP || line < 1 || line > n)
			abort();
		check(&w, n, line, end ? (end > n ? n : end) : line);
	} else if (error != RL_EUSAGE || w.parts || w.nparts) {
		abort();
	}
	editwin_release(&w);
	free(message);
	return 0;
}
