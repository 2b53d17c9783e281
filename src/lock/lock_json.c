/* JSON and JSONC pulled value by value, for the lock file readers (lock_json.h). */
#include "lock_internal.h"
#include "lock_json.h"

#include <stdio.h>
#include <string.h>

void json_pull_init(struct json_pull *r, const char *text, size_t len, bool jsonc)
{
	memset(r, 0, sizeof(*r));
	r->text = r->p = text;
	r->end = text + len;
	r->jsonc = jsonc;
}

void json_pull_release(struct json_pull *r)
{
	buf_release(&r->key);
	buf_release(&r->value);
}

void json_pull_fail(struct json_pull *r, const char *what)
{
	const char *p, *line = r->text;
	size_t n = 1;

	if (r->failed)
		return;
	r->failed = true;
	for (p = r->text; p < r->p && (p = memchr(p, '\n', (size_t)(r->p - p))); p++, n++)
		line = p + 1;
	snprintf(r->why, sizeof(r->why), "line %zu, column %zu: %s", n, (size_t)(r->p - line) + 1, what);
}

/* Blanks, and in JSONC comments. */
static void space(struct json_pull *r)
{
	const char *e;

	for (;;) {
		while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
			r->p++;
		if (!r->jsonc || r->end - r->p < 2 || r->p[0] != '/')
			return;
		if (r->p[1] == '/') {
			r->p = line_end(r->p, r->end);
		} else if (r->p[1] == '*') {
			e = memmem(r->p + 2, (size_t)(r->end - r->p - 2), "*/", 2);
			if (!e) {
				json_pull_fail(r, "a comment that is not closed");
				r->p = r->end;
				return;
			}
			r->p = e + 2;
		} else {
			return;
		}
	}
}

char json_pull_peek(struct json_pull *r)
{
	if (r->failed)
		return 0;
	space(r);
	return r->p < r->end ? *r->p : 0;
}

static bool open_container(struct json_pull *r, char c)
{
	if (json_pull_peek(r) != c)
		return false;
	if (r->depth == LOCK_JSON_DEPTH) {
		json_pull_fail(r, "nested deeper than 512 levels");
		return false;
	}
	r->p++;
	r->kind[r->depth] = c;
	r->more[r->depth++] = false;
	return true;
}

bool json_pull_object(struct json_pull *r)
{
	return open_container(r, '{');
}

bool json_pull_array(struct json_pull *r)
{
	return open_container(r, '[');
}

static int hex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static bool read_u4(struct json_pull *r, const char *p, unsigned *out)
{
	int i, h;

	*out = 0;
	if (r->end - p < 4)
		return false;
	for (i = 0; i < 4; i++) {
		if ((h = hex(p[i])) < 0)
			return false;
		*out = *out << 4 | (unsigned)h;
	}
	return true;
}

static int put_utf8(struct buf *b, unsigned cp)
{
	char s[4];
	size_t n;

	if (cp < 0x80) {
		s[0] = (char)cp, n = 1;
	} else if (cp < 0x800) {
		s[0] = (char)(0xc0 | cp >> 6), s[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
	} else if (cp < 0x10000) {
		s[0] = (char)(0xe0 | cp >> 12), s[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		s[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
	} else {
		s[0] = (char)(0xf0 | cp >> 18), s[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		s[2] = (char)(0x80 | (cp >> 6 & 0x3f)), s[3] = (char)(0x80 | (cp & 0x3f)), n = 4;
	}
	return buf_put(b, s, n);
}

/* One escape at r->p (past the backslash) into b; false when it is not one. */
static bool read_escape(struct json_pull *r, struct buf *b)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k = r->p < r->end ? memchr(from, *r->p, sizeof(from) - 1) : NULL;
	unsigned cp, lo;

	if (k) {
		r->p++;
		return buf_putc(b, to[k - from]) == 0 || (r->nomem = true, false);
	}
	if (r->p >= r->end || *r->p != 'u' || !read_u4(r, r->p + 1, &cp))
		return false;
	r->p += 5;
	if (cp >= 0xd800 && cp < 0xdc00) {
		if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u' || !read_u4(r, r->p + 2, &lo) ||
		    lo < 0xdc00 || lo >= 0xe000)
			return false;
		r->p += 6;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	} else if (cp >= 0xdc00 && cp < 0xe000) {
		return false;
	}
	return put_utf8(b, cp) == 0 || (r->nomem = true, false);
}

/* The string at r->p: a span of the text when it has no escape, else decoded into b. */
static bool read_string(struct json_pull *r, struct buf *b, struct span *out)
{
	const char *start = ++r->p, *run;

	for (; r->p < r->end && *r->p != '"' && *r->p != '\\'; r->p++)
		if ((unsigned char)*r->p < 0x20)
			return json_pull_fail(r, "a control character in a string"), false;
	if (r->p < r->end && *r->p == '"') {
		out->p = start;
		out->end = r->p++;
		return true;
	}
	buf_clear(b);
	if (buf_put(b, start, (size_t)(r->p - start)) < 0)
		return r->nomem = true, json_pull_fail(r, "out of memory"), false;
	while (r->p < r->end && *r->p != '"') {
		if (*r->p == '\\') {
			r->p++;
			if (!read_escape(r, b))
				return json_pull_fail(r, r->nomem ? "out of memory" : "a bad escape in a string"), false;
			continue;
		}
		for (run = r->p; r->p < r->end && *r->p != '"' && *r->p != '\\'; r->p++)
			if ((unsigned char)*r->p < 0x20)
				return json_pull_fail(r, "a control character in a string"), false;
		if (buf_put(b, run, (size_t)(r->p - run)) < 0)
			return r->nomem = true, json_pull_fail(r, "out of memory"), false;
	}
	if (r->p >= r->end)
		return json_pull_fail(r, "a string that is not closed"), false;
	r->p++;
	out->p = b->ptr ? b->ptr : "";
	out->end = out->p + b->len;
	return true;
}

/* Before the next item of the open container: the comma, or its end (left). False at the end. */
static bool next_item(struct json_pull *r, char close)
{
	bool *more;

	if (r->failed || !r->depth)
		return false;
	more = &r->more[r->depth - 1];
	if (json_pull_peek(r) == close) {
		r->p++;
		r->depth--;
		return false;
	}
	if (*more) {
		if (json_pull_peek(r) != ',')
			return json_pull_fail(r, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'"), false;
		r->p++;
		if (r->jsonc && json_pull_peek(r) == close) {
			r->p++;
			r->depth--;
			return false;
		}
	}
	*more = true;
	if (!json_pull_peek(r))
		return json_pull_fail(r, "the text ends inside a value"), false;
	return true;
}

static bool member_into(struct json_pull *r, struct buf *b, struct span *key)
{
	if (!next_item(r, '}'))
		return false;
	if (json_pull_peek(r) != '"')
		return json_pull_fail(r, "expected a key in quotes"), false;
	if (!read_string(r, b, key))
		return false;
	if (json_pull_peek(r) != ':')
		return json_pull_fail(r, "expected ':'"), false;
	r->p++;
	if (!json_pull_peek(r))
		return json_pull_fail(r, "the text ends inside a value"), false;
	return true;
}

bool json_pull_member(struct json_pull *r, struct span *key)
{
	return member_into(r, &r->key, key);
}

bool json_pull_item(struct json_pull *r)
{
	return next_item(r, ']');
}

bool json_pull_string(struct json_pull *r, struct span *out)
{
	if (json_pull_peek(r) != '"')
		return false;
	return read_string(r, &r->value, out);
}

static bool digits(struct json_pull *r)
{
	const char *start = r->p;

	while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
		r->p++;
	return r->p > start;
}

static void scalar(struct json_pull *r)
{
	static const char *const words[] = { "true", "false", "null" };
	size_t i, n;

	for (i = 0; i < 3; i++) {
		n = strlen(words[i]);
		if ((size_t)(r->end - r->p) >= n && !memcmp(r->p, words[i], n)) {
			r->p += n;
			return;
		}
	}
	if (r->p < r->end && *r->p == '-')
		r->p++;
	if (r->p < r->end && *r->p == '0')
		r->p++;
	else if (!digits(r))
		return json_pull_fail(r, "expected a value");
	if (r->p < r->end && *r->p == '.' && (r->p++, !digits(r)))
		return json_pull_fail(r, "a number without digits after '.'");
	if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
		r->p++;
		if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
			r->p++;
		if (!digits(r))
			return json_pull_fail(r, "a number without digits in its exponent");
	}
}

/* Iterative: the containers of the value are entered and left on the reader's own stack. */
void json_pull_skip(struct json_pull *r)
{
	size_t base = r->depth;
	struct span s;
	char c;

	for (;;) {
		c = json_pull_peek(r);
		if (c == '{' || c == '[') {
			if (!open_container(r, c))
				return;
		} else if (c == '"') {
			if (!read_string(r, &r->value, &s))
				return;
		} else if (c) {
			scalar(r);
		} else {
			json_pull_fail(r, "the text ends inside a value");
		}
		/* The value is read: on to the next one inside what was opened here, closing what ends. */
		while (!r->failed && r->depth > base &&
		       !(r->kind[r->depth - 1] == '{' ? member_into(r, &r->value, &s) : json_pull_item(r)))
			;
		if (r->failed || r->depth <= base)
			return;
	}
}

bool json_pull_end(struct json_pull *r)
{
	return !json_pull_peek(r) && !r->failed;
}
