#include "utf8.h"
#include "status.h"

#include <string.h>

size_t utf8_decode(uint32_t *cp, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t c, min;
	size_t n, i;

	if (!len)
		return 0;
	c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0)
		n = 2, c &= 0x1f, min = 0x80;
	else if ((c & 0xf0) == 0xe0)
		n = 3, c &= 0x0f, min = 0x800;
	else if ((c & 0xf8) == 0xf0)
		n = 4, c &= 0x07, min = 0x10000;
	else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

bool utf8_valid(const char *s, size_t len)
{
	size_t i = 0, n;
	uint32_t cp;

	while (i < len) {
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		if (!(n = utf8_decode(&cp, s + i, len - i)))
			return false;
		i += n;
	}
	return true;
}

/* A byte's JSON escape: \X (2 bytes) or \u00XX (6). */
static size_t json_escape(char esc[6], unsigned char c)
{
	static const char hex[] = "0123456789ABCDEF";

	esc[0] = '\\';
	switch (c) {
	case '"': case '\\': esc[1] = (char)c; return 2;
	case '\b': esc[1] = 'b'; return 2;
	case '\f': esc[1] = 'f'; return 2;
	case '\n': esc[1] = 'n'; return 2;
	case '\r': esc[1] = 'r'; return 2;
	case '\t': esc[1] = 't'; return 2;
	}
	memcpy(esc + 1, "u00", 3);
	esc[4] = hex[c >> 4];
	esc[5] = hex[c & 15];
	return 6;
}

int utf8_json_text(struct buf *out, const char *s, size_t len)
{
	size_t i = 0, start = 0, was = out->len, n;
	uint32_t cp;
	int error = 0;

	if (!len)
		return 0;
	while (i < len && !error) {
		unsigned char c = (unsigned char)s[i];
		char esc[6];

		if (c >= 0x80) {
			if (!(n = utf8_decode(&cp, s + i, len - i))) {
				out->len = was;
				if (out->ptr)
					out->ptr[was] = '\0';
				return error_set(RL_EPARSE, "not UTF-8 at byte %zu", i);
			}
			i += n;
		} else if (c >= 0x20 && c != '"' && c != '\\') {
			i++;
		} else {
			if ((error = buf_put(out, s + start, i - start)) == 0)
				error = buf_put(out, esc, json_escape(esc, c));
			start = ++i;
		}
	}
	return error ? error : buf_put(out, s + start, len - start);
}

int utf8_sanitize(struct buf *out, const char *s, size_t len)
{
	size_t i = 0, start = 0, n;
	uint32_t cp;
	int error = 0;

	while (i < len && !error) {
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		if ((n = utf8_decode(&cp, s + i, len - i))) {
			i += n;
			continue;
		}
		error = buf_put(out, s + start, i - start);
		if (!error)
			error = buf_puts(out, "\xef\xbf\xbd");
		start = ++i;
	}
	if (!error)
		error = buf_put(out, s + start, len - start);
	return error;
}

static bool cp_bidi(uint32_t cp)
{
	return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

static bool cp_hidden(uint32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp_bidi(cp);
}

bool utf8_hides(uint32_t cp)
{
	return cp_bidi(cp) || (cp >= 0x200b && cp <= 0x200d) || cp == 0x2060 || cp == 0xfeff;
}

static int visible_byte(struct buf *out, unsigned char c)
{
	char caret[2] = { '^', c == 0x7f ? '?' : (char)(c + '@') };

	return buf_put(out, caret, 2);
}

int utf8_visible(struct buf *out, const char *s, size_t len)
{
	size_t i = 0, start = 0, n;
	uint32_t cp;
	int error = 0;

	while (i < len && !error) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f) {
			i++;
			continue;
		}
		if (c == '\n' || c == '\t') {
			i++;
			continue;
		}
		n = c < 0x80 ? 1 : utf8_decode(&cp, s + i, len - i);
		if (n > 1 && !cp_hidden(cp)) {
			i += n;
			continue;
		}
		error = buf_put(out, s + start, i - start);
		if (error)
			break;
		if (c < 0x80)
			error = visible_byte(out, c);
		else if (n)
			error = buf_printf(out, "<U+%04X>", (unsigned)cp);
		else
			error = buf_puts(out, "\xef\xbf\xbd");
		i += n ? n : 1;
		start = i;
	}
	if (!error)
		error = buf_put(out, s + start, len - start);
	return error;
}

int utf8_reveal(struct buf *out, const char *s, size_t len)
{
	size_t i = 0, start = 0, n;
	uint32_t cp;
	int error = 0;

	while (i < len && !error) {
		/* Every character utf8_hides begins with 0xe2 or 0xef. */
		if ((unsigned char)s[i] != 0xe2 && (unsigned char)s[i] != 0xef) {
			i++;
			continue;
		}
		if (!(n = utf8_decode(&cp, s + i, len - i)) || !utf8_hides(cp)) {
			i += n ? n : 1;
			continue;
		}
		if ((error = buf_put(out, s + start, i - start)) == 0)
			error = buf_printf(out, "<U+%04X>", (unsigned)cp);
		start = i += n;
	}
	if (!error)
		error = buf_put(out, s + start, len - start);
	return error;
}

/* The UTF-8 bytes of a character (not a surrogate, at most U+10FFFF). */
static int char_put(struct buf *out, uint32_t cp)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (char)(0xf0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return buf_put(out, b, n);
}

/* "<U+XXXX>" at s: its length (8 to 10) and the character, or 0. */
static size_t notation_at(uint32_t *cp, const char *s, size_t len)
{
	size_t i = 3;

	if (len < 8 || memcmp(s, "<U+", 3))
		return 0;
	for (*cp = 0; i < len && i < 3 + 6 && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'A' && s[i] <= 'F') ||
						(s[i] >= 'a' && s[i] <= 'f')); i++)
		*cp = *cp * 16 + (uint32_t)(s[i] <= '9' ? s[i] - '0' : (s[i] | 0x20) - 'a' + 10);
	if (i < 3 + 4 || i >= len || s[i] != '>' || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return i + 1;
}

int utf8_unreveal(struct buf *out, const char *s, size_t len)
{
	size_t i = 0, start = 0, n;
	uint32_t cp;
	int error = 0;

	while (i < len && !error) {
		if (s[i] != '<' || !(n = notation_at(&cp, s + i, len - i))) {
			i++;
			continue;
		}
		if ((error = buf_put(out, s + start, i - start)) == 0)
			error = char_put(out, cp);
		start = i += n;
	}
	if (!error)
		error = buf_put(out, s + start, len - start);
	return error;
}

int base64_encode(struct buf *out, const unsigned char *s, size_t len)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i;
	int error = 0;

	for (i = 0; i + 2 < len && !error; i += 3) {
		char q[4] = {
			digits[s[i] >> 2], digits[((s[i] & 3) << 4) | (s[i + 1] >> 4)],
			digits[((s[i + 1] & 15) << 2) | (s[i + 2] >> 6)], digits[s[i + 2] & 63],
		};
		error = buf_put(out, q, 4);
	}
	if (!error && len - i == 1) {
		char q[4] = { digits[s[i] >> 2], digits[(s[i] & 3) << 4], '=', '=' };
		error = buf_put(out, q, 4);
	} else if (!error && len - i == 2) {
		char q[4] = { digits[s[i] >> 2], digits[((s[i] & 3) << 4) | (s[i + 1] >> 4)],
			      digits[(s[i + 1] & 15) << 2], '=' };
		error = buf_put(out, q, 4);
	}
	return error;
}

json_t *utf8_jsonn(const char *s, size_t len)
{
	struct buf clean = BUF_INIT;
	json_t *value;

	if (utf8_valid(s, len))
		return json_stringn(s, len);
	if (utf8_sanitize(&clean, s, len) < 0)
		return NULL;
	value = json_stringn(clean.ptr ? clean.ptr : "", clean.len);
	buf_release(&clean);
	return value;
}

json_t *utf8_json(const char *s)
{
	return s ? utf8_jsonn(s, strlen(s)) : json_null();
}

size_t text_distance(const char *a, size_t alen, const char *b)
{
	size_t row[32], blen = strlen(b), i, j;

	if (alen >= 24 || blen >= 31)
		return SIZE_MAX;
	for (j = 0; j <= blen; j++)
		row[j] = j;
	for (i = 1; i <= alen; i++) {
		size_t diag = row[0];
		char x = a[i - 1] >= 'A' && a[i - 1] <= 'Z' ? a[i - 1] + 32 : a[i - 1];

		row[0] = i;
		for (j = 1; j <= blen; j++) {
			size_t up = row[j];
			bool same = x == b[j - 1] || (x == '_' && b[j - 1] == '-') ||
				    (x == '-' && b[j - 1] == '_');
			size_t best = diag + !same;

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[blen];
}

void text_guess_init(struct text_guess *g, const char *typed, size_t len)
{
	g->typed = typed;
	g->len = len;
	g->distance = SIZE_MAX;
	g->best = NULL;
	g->index = 0;
}

void text_guess_try(struct text_guess *g, const char *candidate, size_t index)
{
	size_t d = text_distance(g->typed, g->len, candidate);

	if (d < g->distance) {
		g->distance = d;
		g->best = candidate;
		g->index = index;
	}
}

const char *text_guess_result(const struct text_guess *g)
{
	return g->best && g->distance <= (g->len > 4 ? 2u : 1u) ? g->best : NULL;
}
