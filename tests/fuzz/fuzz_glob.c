/*
 * Fuzz the glob matcher: the input is a pattern, a NUL or a newline, then
 * a path. Besides not crashing and not hanging, a few properties must hold
 * whatever the pattern, and short ASCII patterns without braces or classes
 * must agree with the same rules written as a POSIX regular expression,
 * and the shortcuts of a compiled pattern must agree with its NFA (the
 * pattern with its letters written as one-member classes, "[a]", which
 * leaves no literal for a shortcut).
 */
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "glob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *copy(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	/* A NUL inside either part would only shorten the string. */
	return s;
}

static bool oracle_fits(const char *pattern, const char *path)
{
	const char *s;

	if (strlen(pattern) > 16 || strlen(path) > 32 || path[0] == '/')
		return false;
	for (s = pattern; *s; s++)
		if ((unsigned char)*s >= 0x80 || *s == '[' || *s == '{')
			return false;
	for (s = path; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

/*
 * The brace-free pattern p as an extended regular expression, in re; false
 * when nothing is left of it or it ends in a lone backslash (it matches
 * nothing).
 */
static bool oracle_regex(const char *p, char *re)
{
	size_t n = strlen(p), i, j;
	bool anchored = false, dir_only = false;

	while (n >= 2 && p[0] == '.' && p[1] == '/') {
		p += 2;
		n -= 2;
	}
	if (n && p[0] == '/') {
		anchored = true;
		p++;
		n--;
	}
	while (n && p[n - 1] == '/') {
		dir_only = true;
		n--;
	}
	if (!n)
		return false;
	/* A trailing backslash (escaping nothing) is malformed: git's wildmatch matches nothing. */
	for (i = n; i > 0 && p[i - 1] == '\\'; i--)
		;
	if ((n - i) % 2)
		return false;
	anchored |= memchr(p, '/', n) != NULL;
	strcpy(re, anchored ? "^" : "^(.*/)?");
	for (i = 0; i < n; i++) {
		if (p[i] == '*') {
			for (j = i; j < n && p[j] == '*'; j++)
				;
			if (j - i == 1) {
				strcat(re, "[^/]*");
			} else if ((i == 0 || p[i - 1] == '/') && j < n && p[j] == '/') {
				strcat(re, "(.*/)?");
				j++;
			} else {
				strcat(re, ".*");
			}
			i = j - 1;
			continue;
		}
		if (p[i] == '?') {
			strcat(re, "[^/]");
			continue;
		}
		if (p[i] == '\\' && i + 1 < n)
			i++;
		if (strchr(".^$*+?()[]{}|\\", p[i]))
			strcat(re, "\\");
		strncat(re, &p[i], 1);
	}
	strcat(re, dir_only ? "/.*$" : "(/.*)?$");
	return true;
}

static void oracle_check(const char *pattern, const char *path, bool hit)
{
	char re[16 * 8 + 32];
	regex_t rx;
	bool want;

	if (!oracle_fits(pattern, path))
		return;
	if (!path[0] || !oracle_regex(pattern, re)) {
		want = false;
	} else {
		if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
			abort();
		want = !regexec(&rx, path, 0, NULL, 0);
		regfree(&rx);
	}
	if (want != hit)
		abort();
}

/* The pattern as the NFA alone reads it, or NULL when that form would not mean the same. */
static char *nfa_form(const char *pattern)
{
	size_t n = strlen(pattern), i, k = 0;
	char *out;

	if (strpbrk(pattern, "[]\\"))
		return NULL;
	if (!(out = malloc(3 * n + 1)))
		abort();
	for (i = 0; i < n; i++) {
		char c = pattern[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') {
			out[k++] = '[';
			out[k++] = c;
			out[k++] = ']';
		} else {
			out[k++] = c;
		}
	}
	out[k] = '\0';
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t split = 0, path_at;
	char *pattern, *path, *negated, *nfa;
	const char *list[3];
	bool hit;

	while (split < size && data[split] != '\0' && data[split] != '\n')
		split++;
	path_at = split < size ? split + 1 : size;
	pattern = copy(data, split);
	path = copy(data + path_at, size - path_at);
	negated = malloc(split + 2);
	if (!negated)
		abort();
	negated[0] = '!';
	memcpy(negated + 1, pattern, split + 1);

	glob_check(pattern);
	hit = glob_match(pattern, path);
	oracle_check(pattern, path, hit);
	if ((nfa = nfa_form(pattern)) != NULL && glob_match(nfa, path) != hit)
		abort();
	free(nfa);

	/* One pattern in a list is the pattern alone, unless it is negated. */
	list[0] = pattern;
	if (pattern[0] != '!' && glob_match_list(list, 1, path) != hit)
		abort();
	/* The last match wins: excluding what was included leaves nothing. */
	list[1] = negated;
	if (glob_match_list(list, 2, path))
		abort();
	/* And including it again brings it back. */
	list[2] = pattern;
	if (pattern[0] != '!' && glob_match_list(list, 3, path) != hit)
		abort();
	/* Nothing matches an empty path. */
	if (glob_match(pattern, ""))
		abort();

	free(negated);
	free(pattern);
	free(path);
	return 0;
}
