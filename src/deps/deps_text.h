#ifndef REVLINE_DEPS_TEXT_H
#define REVLINE_DEPS_TEXT_H

/* Inside the dependency code: spans and lines of a manifest's or a message's text. */

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof(*(a)))

static inline const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* ------------------------------------------------------------------- text */

struct span {
	const char *p, *end;
};

static inline bool span_eq(struct span s, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(s.end - s.p) == n && !memcmp(s.p, word, n);
}

static inline const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

/* The start of the line after the one that ends at e (its newline, or the end). */
static inline const char *next_line(const char *e, const char *end)
{
	return e < end ? e + 1 : end;
}

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static inline const char *skip_blank(const char *p, const char *end)
{
	while (p < end && is_blank(*p))
		p++;
	return p;
}

static inline bool is_one_of(char c, const char *set)
{
	return c && strchr(set, c);
}

#endif
