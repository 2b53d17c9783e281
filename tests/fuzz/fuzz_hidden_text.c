/*
 * Fuzz what reads text meant to fool a reviewer: the hidden-text check on a
 * line, the evidence it writes, a prompt's data block, and the reading of
 * an answer's reasoning. The first byte picks whether the line begins its
 * file; the rest is the line. Besides not crashing, what they say must
 * agree with the input: every hit lies in the line; the evidence, read
 * back, is the line (when the line names no character itself); a data
 * block closes once, at its end, with a tag the text does not hold.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "evidence.h"
#include "hidden_text.h"
#include "prompt.h"
#include "utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_block(const char *text, size_t len)
{
	struct buf out = BUF_INIT;
	char close[40];
	const char *tag, *p;
	size_t i;

	if (prompt_data(&out, "fuzz", text, len) < 0)
		abort();
	tag = out.ptr + 1 + strlen(PROMPT_DATA_TAG);
	memcpy(close, "</" PROMPT_DATA_TAG, 2 + strlen(PROMPT_DATA_TAG));
	memcpy(close + 2 + strlen(PROMPT_DATA_TAG), tag, 12);
	memcpy(close + 14 + strlen(PROMPT_DATA_TAG), ">", 2);
	p = memmem(out.ptr, out.len, close, strlen(close));
	if (!p || p + strlen(close) != out.ptr + out.len)
		abort();
	for (i = 0; i + 12 <= len; i++)
		if (!strncasecmp(text + i, tag, 12))
			abort();
	buf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hidden_hit hits[HIDDEN_HITS_MAX];
	struct hidden_finding hf;
	struct buf back = BUF_INIT, why = BUF_INIT;
	const char *line = (const char *)data + 1;
	char *text;
	size_t len, n, i;

	if (!size)
		return 0;
	len = size - 1;
	n = hidden_text_scan(hits, HIDDEN_HITS_MAX, line, len, data[0] & 1, data[0] & 2);
	for (i = 0; i < n; i++)
		if (hits[i].at > len || hits[i].len > len - hits[i].at || !hits[i].len)
			abort();
	if (n) {
		if (hidden_text_describe(&hf, line, len, hits, n, SEV_MAJOR, data[0] & 2) < 0)
			abort();
		if (!hf.title.len || !hf.issue.len || !hf.suggestion)
			abort();
		if (len <= 400 && !memmem(line, len, "<U+", 3)) {
			if (utf8_unreveal(&back, hf.code.ptr ? hf.code.ptr : "", hf.code.len) < 0 ||
			    back.len != len || memcmp(back.ptr ? back.ptr : "", line, len))
				abort();
		}
		hidden_finding_release(&hf);
	}
	check_block(line, len);
	if (!(text = strndup(line, len)))
		abort();
	evidence_steered(&why, text);
	free(text);
	buf_release(&back);
	buf_release(&why);
	return 0;
}
