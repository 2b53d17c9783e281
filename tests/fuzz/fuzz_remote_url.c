/*
 * Fuzz the remote URL's normal form. Besides not crashing: a form is never
 * longer than the URL plus "file:" and has no control character; a
 * password in a URL's userinfo, before any host, never shows.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "remote_url.h"

#define SECRET "Zq9s3cretQz"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_hidden(const char *fmt, const char *text)
{
	struct buf out = BUF_INIT;
	char *in;

	if (asprintf(&in, fmt, text) < 0)
		abort();
	if (remote_url_normalize(&out, in) == 0 && strstr(out.ptr, SECRET)) {
		fprintf(stderr, "shown: [%s] as [%s]\n", in, out.ptr);
		abort();
	}
	buf_release(&out);
	free(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf out = BUF_INIT;
	char *text = strndup((const char *)data, size);
	size_t i;

	if (!text)
		abort();
	if (remote_url_normalize(&out, text) == 0) {
		if (!out.ptr || out.len > strlen(text) + 5)
			abort();
		for (i = 0; i < out.len; i++)
			if ((unsigned char)out.ptr[i] < 0x20 || out.ptr[i] == 0x7f)
				abort();
	}
	if (!strstr(text, SECRET) && !strpbrk(text, "@/?#")) {
		check_hidden("https://u:" SECRET "@%s/r.git", text);
		check_hidden("ssh://git:" SECRET "@%s:22/r", text);
	}
	buf_release(&out);
	free(text);
	return 0;
}
