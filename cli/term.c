/* The output boundary of the CLI's text: control characters made visible. */
#include "term.h"
#include "buf.h"
#include "secret.h"
#include "utf8.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

void term_write(FILE *out, const char *s, size_t len)
{
	struct buf clean = BUF_INIT;

	if (!s)
		return;
	if (utf8_visible(&clean, s, len) == 0 && clean.len) {
		secret_redact(&clean);
		fwrite(clean.ptr, 1, clean.len, out);
	}
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

static int chars(const char *s, size_t len)
{
	int n = 0;
	size_t i;

	for (i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

int term_width(const char *s)
{
	struct buf clean = BUF_INIT;
	int width;

	if (!s)
		return 0;
	width = utf8_visible(&clean, s, strlen(s)) == 0 ? chars(clean.ptr, clean.len) : chars(s, strlen(s));
	buf_release(&clean);
	return width;
}

void term_pad(FILE *out, const char *s, int width)
{
	int pad = width - term_width(s);

	term_puts(out, s);
	while (pad-- > 0)
		fputc(' ', out);
}

void term_column(FILE *out, const char *s, int column)
{
	bool first = true;
	const char *eol;
	size_t len;

	while (s && *s) {
		eol = s + strcspn(s, "\n");
		len = (size_t)(eol - s);
		if (len && s[len - 1] == '\r')
			len--;
		if (len) {
			if (!first)
				fprintf(out, "\n%*s", column, "");
			term_write(out, s, len);
			first = false;
		}
		s = *eol ? eol + 1 : eol;
	}
}

void term_md_cell(FILE *out, const char *s)
{
	struct buf text = BUF_INIT;

	for (; s && *s; s++) {
		if (*s == '\n' || *s == '\r')
			buf_putc(&text, ' ');
		else if (*s == '|')
			buf_puts(&text, "\\|");
		else
			buf_putc(&text, *s);
	}
	term_write(out, text.ptr, text.len);
	buf_release(&text);
}
