/*
 * Gemfile.lock and gems.locked (Bundler's LockfileParser): sections that
 * start at column 0 (GEM, GIT, PATH, PLUGIN SOURCE, PLATFORMS,
 * DEPENDENCIES, RUBY VERSION, BUNDLED WITH, CHECKSUMS). A source
 * section's "specs:" lists each gem at four spaces, "name (version)" or
 * "name (version-platform)", and its dependencies under it at six, "name
 * (requirements)"; DEPENDENCIES lists the Gemfile's at two spaces, "name",
 * "name!" or "name (requirements)": the direct ones. A PATH gem is the
 * project's own: no version RubyGems knows.
 */
#include "lock_internal.h"

#include <string.h>

enum section { S_OTHER, S_GEM, S_GIT, S_PATH, S_DEPENDENCIES };

static enum section section_of(const char *p, const char *e)
{
	struct span s = { p, e };

	while (s.end > s.p && (s.end[-1] == '\r' || s.end[-1] == ' '))
		s.end--;
	if ((size_t)(s.end - s.p) == 3 && !memcmp(s.p, "GEM", 3))
		return S_GEM;
	if ((size_t)(s.end - s.p) == 3 && !memcmp(s.p, "GIT", 3))
		return S_GIT;
	if ((size_t)(s.end - s.p) == 4 && !memcmp(s.p, "PATH", 4))
		return S_PATH;
	if ((size_t)(s.end - s.p) == 12 && !memcmp(s.p, "DEPENDENCIES", 12))
		return S_DEPENDENCIES;
	return S_OTHER;
}

static size_t indent_of(const char *p, const char *e)
{
	const char *q = p;

	while (q < e && *q == ' ')
		q++;
	return (size_t)(q - p);
}

/* "name (version)" at p: the name, and the text in parentheses (empty when there are none). */
static bool spec_line(const char *p, const char *e, struct span *name, struct span *paren)
{
	const char *q;

	while (e > p && (e[-1] == '\r' || e[-1] == ' '))
		e--;
	for (q = p; q < e && *q != ' ' && *q != '('; q++)
		;
	name->p = p;
	name->end = q;
	paren->p = paren->end = q;
	while (q < e && *q == ' ')
		q++;
	if (q < e) {
		if (*q != '(' || e[-1] != ')')
			return false;
		paren->p = q + 1;
		paren->end = e - 1;
	}
	/* "rails!": pinned to a source in the Gemfile. */
	if (name->end > name->p && name->end[-1] == '!')
		name->end--;
	return name->end > name->p;
}

/* "1.16.0-x86_64-linux" -> "1.16.0": RubyGems versions have no "-" (Bundler writes the platform after one). */
static size_t version_len(struct span v)
{
	const char *dash = memchr(v.p, '-', (size_t)(v.end - v.p));

	return (size_t)((dash ? dash : v.end) - v.p);
}

void lock_read_gemfile(struct lock *lock, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *e;
	enum section section = S_OTHER;
	struct span name, paren;
	size_t line = 0, indent, pkg = SIZE_MAX;

	for (; p < end && !lock_failed(lock); p = next_line(e, end)) {
		e = line_end(p, end);
		line++;
		if (skip_blank(p, e) == e)
			continue;
		if (!(indent = indent_of(p, e))) {
			section = section_of(p, e);
			pkg = SIZE_MAX;
			continue;
		}
		if (section == S_OTHER || (section != S_DEPENDENCIES && indent == 2))
			continue;
		if (!spec_line(p + indent, e, &name, &paren)) {
			lock_malformed(lock, "line %zu is not \"name (version)\"", line);
			return;
		}
		if (section == S_DEPENDENCIES) {
			if (indent == 2)
				lock_root(lock, name.p, (size_t)(name.end - name.p));
		} else if (indent == 4) {
			if (section == S_PATH || paren.p == paren.end)
				pkg = lock_add(lock, name.p, (size_t)(name.end - name.p), NULL, 0);
			else
				pkg = lock_add(lock, name.p, (size_t)(name.end - name.p), paren.p, version_len(paren));
		} else if (indent == 6 && pkg != SIZE_MAX) {
			lock_edge(lock, pkg, name.p, (size_t)(name.end - name.p));
		}
	}
}
