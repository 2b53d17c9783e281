/* The output boundary of the CLI's text: control characters made visible. */
#include "term.h"
#include "buf.h"
#include "utf8.h"

#include <stdarg.h>
#include <string.h>

void term_write(FILE *out, const char *s, size_t len)
{
	struct buf clean = BUF_INIT;

	if (!s)
		return;
	if (utf8_visible(&clean, s, len) == 0 && clean.len)
		fwrite(clean.ptr, 1, clean.len, out);
	buf_release(&clean);
}

void term_puts(FILE *out, const char *s)
{
	if (s)
		term_write(out, s, strlen(s));
}

void term_vprintf(FILE *out, const char *fmt, va_list ap)
{
	struct buf text = BUF_INIT;

	if (buf_vprintf(&text, fmt, ap) == 0)
		term_write(out, text.ptr, text.len);
	buf_release(&text);
}

void term_printf(FILE *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	term_vprintf(out, fmt, ap);
	va_end(ap);
}
