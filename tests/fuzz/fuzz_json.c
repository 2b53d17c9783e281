/*
 * Fuzz utf8_json_text, the request bodies' fast JSON text of a string,
 * against jansson, which it stands in for: for any bytes, the same text
 * byte for byte, or both refuse them (not UTF-8) and the buffer keeps
 * what it held.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct buf got = BUF_INIT;
	json_t *str = json_stringn(s, size);
	char *text = NULL;
	int rc;

	if (buf_puts(&got, "<") < 0)
		abort();
	rc = utf8_json_text(&got, s, size);
	if (!str) {
		if (rc >= 0 || got.len != 1)
			abort();
	} else {
		size_t n;

		if (!(text = json_dumps(str, JSON_COMPACT | JSON_ENCODE_ANY)))
			abort();
		n = strlen(text);
		if (rc < 0 || got.len != n - 1 || memcmp(got.ptr + 1, text + 1, n - 2))
			abort();
	}
	free(text);
	json_decref(str);
	buf_release(&got);
	return 0;
}
