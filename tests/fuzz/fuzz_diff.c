/*
 * The unified-diff parser on arbitrary bytes. Whatever parses must print,
 * and the printed text must parse again to the same text (printing is a
 * fixed point), and filtering must not break it.
 */
#include "diff.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const patterns[] = { "**/*.c", "!a/**" };
	struct diff *diff = NULL, *again = NULL, *filtered = NULL;
	struct buf first = BUF_INIT, second = BUF_INIT;

	if (diff_from_text(&diff, (const char *)data, size) < 0)
		return 0;
	if (diff_print(&first, diff) < 0)
		abort();
	if (diff_from_text(&again, first.ptr ? first.ptr : "", first.len) < 0)
		abort();
	if (diff_print(&second, again) < 0 || first.len != second.len ||
	    (first.len && memcmp(first.ptr, second.ptr, first.len)))
		abort();
	if (diff_filter_patterns(&filtered, diff, patterns, 2) < 0)
		abort();
	diff_free(filtered);
	diff_free(again);
	diff_free(diff);
	buf_release(&first);
	buf_release(&second);
	return 0;
}
