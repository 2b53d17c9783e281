/* Git config text read for the line a key is set on, and the dotted name git refuses. */
#include "config_text.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define SECTION_MAX 256

struct walk {
	const char *p, *end;
	size_t line;
	/* The keys' prefix as libgit2 names it ("revline", "revline.Sub"); "" when there is none. */
	char section[SECTION_MAX];
};

/* A variable found: true stops the walk. */
typedef bool (*walk_visit)(const struct walk *w, const char *name, size_t len, void *arg);

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_key_char(char c)
{
	return is_alpha(c) || (c >= '0' && c <= '9') || c == '-';
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static void skip_blanks(struct walk *w)
{
	while (w->p < w->end && is_blank(*w->p))
		w->p++;
}

/* To the end of the line, its newline left for the walk. */
static void skip_to_eol(struct walk *w)
{
	const char *nl = memchr(w->p, '\n', (size_t)(w->end - w->p));

	w->p = nl ? nl : w->end;
}

static bool section_add(struct walk *w, size_t *n, char c)
{
	if (*n + 1 >= sizeof(w->section))
		return false;
	w->section[(*n)++] = c;
	w->section[*n] = '\0';
	return true;
}

/* The quoted subsection of [section "sub"], after the blanks: \" and \\ as git reads them. */
static bool read_subsection(struct walk *w, size_t *n)
{
	if (w->p >= w->end || *w->p != '"' || !section_add(w, n, '.'))
		return false;
	for (w->p++; w->p < w->end && *w->p != '"'; w->p++) {
		if (*w->p == '\n' || (*w->p == '\\' && (++w->p >= w->end || *w->p == '\n')))
			return false;
		if (!section_add(w, n, *w->p))
			return false;
	}
	if (w->p >= w->end || ++w->p >= w->end || *w->p != ']')
		return false;
	w->p++;
	return true;
}

/* A header from its '['; false (the section unknown) when git would not read it. */
static bool read_header(struct walk *w)
{
	size_t n = 0;

	w->section[0] = '\0';
	for (w->p++; w->p < w->end && (is_key_char(*w->p) || *w->p == '.'); w->p++)
		if (!section_add(w, &n, lower(*w->p)))
			break;
	if (!n || w->p >= w->end)
		goto bad;
	if (*w->p == ']') {
		w->p++;
		return true;
	}
	if (!is_blank(*w->p))
		goto bad;
	skip_blanks(w);
	if (read_subsection(w, &n))
		return true;
bad:
	w->section[0] = '\0';
	return false;
}

/* A value from after the name to its end: quotes, escapes, a comment, lines continued with a backslash. */
static void skip_value(struct walk *w)
{
	bool quoted = false;

	while (w->p < w->end && *w->p != '\n') {
		char c = *w->p++;

		if (c == '"') {
			quoted = !quoted;
		} else if (c == '\\' && w->p < w->end) {
			if (*w->p == '\r' && w->p + 1 < w->end && w->p[1] == '\n')
				w->p++;
			if (*w->p == '\n')
				w->line++;
			w->p++;
		} else if (!quoted && (c == '#' || c == ';')) {
			skip_to_eol(w);
		}
	}
}

/* A variable from its first letter (dots taken too, to be named); true when the visit stopped the walk. */
static bool read_variable(struct walk *w, walk_visit visit, void *arg)
{
	const char *name = w->p;

	while (w->p < w->end && (is_key_char(*w->p) || *w->p == '.'))
		w->p++;
	if (w->section[0] && visit(w, name, (size_t)(w->p - name), arg))
		return true;
	skip_blanks(w);
	if (w->p < w->end && *w->p == '=')
		skip_value(w);
	else
		skip_to_eol(w);
	return false;
}

static void walk_text(const char *text, size_t len, walk_visit visit, void *arg)
{
	struct walk w = { text, text + len, 1, "" };

	while (w.p < w.end) {
		skip_blanks(&w);
		if (w.p >= w.end)
			break;
		if (*w.p == '\n') {
			w.line++;
			w.p++;
		} else if (*w.p == '[') {
			if (!read_header(&w))
				skip_to_eol(&w);
		} else if (is_alpha(*w.p)) {
			if (read_variable(&w, visit, arg))
				return;
		} else {
			skip_to_eol(&w);
		}
	}
}

struct line_search {
	const char *key;
	size_t line;
};

static bool line_visit(const struct walk *w, const char *name, size_t len, void *arg)
{
	struct line_search *s = arg;
	size_t n = strlen(w->section);

	if (strncmp(s->key, w->section, n) || s->key[n] != '.' || strlen(s->key + n + 1) != len ||
	    strncasecmp(s->key + n + 1, name, len) || memchr(name, '.', len))
		return false;
	s->line = w->line;
	return false;
}

size_t config_text_line(const char *text, size_t len, const char *key)
{
	struct line_search s = { key, 0 };

	walk_text(text, len, line_visit, &s);
	return s.line;
}

struct dotted_search {
	char *section, *name;
	size_t ssize, nsize, line;
};

static bool dotted_visit(const struct walk *w, const char *name, size_t len, void *arg)
{
	struct dotted_search *s = arg;

	if (!memchr(name, '.', len))
		return false;
	snprintf(s->section, s->ssize, "%s", w->section);
	snprintf(s->name, s->nsize, "%.*s", (int)len, name);
	s->line = w->line;
	return true;
}

size_t config_text_dotted(char *section, size_t ssize, char *name, size_t nsize, const char *text, size_t len)
{
	struct dotted_search s = { section, name, ssize, nsize, 0 };

	if (ssize)
		*section = '\0';
	if (nsize)
		*name = '\0';
	walk_text(text, len, dotted_visit, &s);
	return s.line;
}
