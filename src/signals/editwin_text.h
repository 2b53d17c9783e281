#ifndef REVLINE_EDITWIN_TEXT_H
#define REVLINE_EDITWIN_TEXT_H

/* Inside the edit windows: characters, words and the lines of a text, shared by the scanners. */

#include "status.h"

#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * Characters and words
 */

static inline bool is_ident(char c)
{
	/* Bytes of UTF-8 sequences count: Python and JavaScript allow them in names. */
	return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static inline const char *skip_blanks(const char *p, const char *e)
{
	while (p < e && is_blank(*p))
		p++;
	return p;
}

static inline const char *word_end(const char *p, const char *e)
{
	while (p < e && is_ident(*p))
		p++;
	return p;
}

/* Whether [p, e) starts with the whole word w. */
static inline bool word_is(const char *p, const char *e, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(e - p) >= n && !memcmp(p, w, n) && (p + n == e || !is_ident(p[n]));
}

/* Whether [s, e) holds w as a whole word. */
static inline bool has_word_in(const char *s, const char *e, const char *w)
{
	size_t n = strlen(w);
	const char *p;

	for (p = s; (size_t)(e - p) >= n; p++)
		if (!memcmp(p, w, n) && (p == s || !is_ident(p[-1])) && (p + n == e || !is_ident(p[n])))
			return true;
	return false;
}

static inline bool has_word(const char *s, const char *w)
{
	return has_word_in(s, s + strlen(s), w);
}

static inline bool in_list(const char *p, size_t len, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == len && !memcmp(*list, p, len))
			return true;
	return false;
}

static inline int min_int(int a, int b)
{
	return a < b ? a : b;
}

static inline int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* ------------------------------------------------------------------------
 * Lines of the text
 */

struct text {
	const char *s;
	size_t len;
	int n;
	size_t *at;     /* at[i]: where line i starts (1-based); at[n + 1]: one past line n's end */
};

static inline int text_init(struct text *t, const char *s, size_t len)
{
	const char *p, *e = s + len;
	size_t count = 0;
	int line = 1;

	t->s = s;
	t->len = len;
	for (p = s; p < e && (p = memchr(p, '\n', (size_t)(e - p))); p++)
		count++;
	count += len && s[len - 1] != '\n';
	if (count > INT_MAX / 2)
		return error_set(RL_EUSAGE, "the file has too many lines for an edit window");
	t->n = (int)count;
	if (!(t->at = malloc((count + 2) * sizeof(size_t))))
		return error_nomem();
	t->at[1] = 0;
	for (p = s; p < e && (p = memchr(p, '\n', (size_t)(e - p))); p++)
		t->at[++line] = (size_t)(p - s) + 1;
	if (len && s[len - 1] != '\n')
		t->at[t->n + 1] = len + 1;
	return 0;
}

static inline const char *line_start(const struct text *t, int i)
{
	return t->s + t->at[i];
}

/* Just past the line's last character, before its newline. */
static inline const char *line_end(const struct text *t, int i)
{
	return t->s + t->at[i + 1] - 1;
}

/* The line that holds offset off. */
static inline int line_of(const struct text *t, size_t off)
{
	int lo = 1, hi = t->n;

	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;

		if (t->at[mid] <= off)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

#endif
