/*
 * libFuzzer target: the theme file parser on arbitrary bytes. Only the
 * parser runs (no curses): it must not crash, read out of bounds or leak,
 * and whatever it accepts must leave every colour in range.
 */
#include <stdint.h>
#include <stdlib.h>

#include "theme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct theme theme;
	struct buf errors = BUF_INIT;
	int bad;

	theme_default(&theme);
	bad = theme_parse(&theme, (const char *)data, size, "fuzz", &errors);
	if (bad < 0 || (bad > 0 && !errors.ptr))
		abort();
	for (int i = 0; i < STYLE_COUNT; i++) {
		const struct style_def *s = &theme.styles[i];

		if (s->fg < -1 || s->fg > 255 || s->bg < -1 || s->bg > 255 ||
		    s->fg8 < -1 || s->fg8 > 15 || s->bg8 < -1 || s->bg8 > 15)
			abort();
	}
	buf_release(&errors);
	return 0;
}
