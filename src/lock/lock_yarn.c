/*
 * yarn.lock. Berry (Yarn 2 and later, with "__metadata:") is YAML: each
 * entry's key lists the ranges it resolves ("lodash@npm:^4.17.0,
 * lodash@npm:^4.17.21"), its resolution says what ("lodash@npm:4.17.21"),
 * version and dependencies follow; the workspaces ("@workspace:") are the
 * project's own, and their dependencies the direct ones. Classic (Yarn 1,
 * "# yarn lockfile v1") is a format of its own, read as Yarn's
 * lockfile parser reads it: lines of two-space indentation; an entry's
 * header lists its patterns, quoted or bare, comma-separated, ending in
 * ":"; a property is a key and a value (a string, quoted with JSON's
 * escapes, or bare), or a key and ":" before a block indented one level
 * more (dependencies, optionalDependencies). Classic records no direct
 * ones: package.json does (lock_read_manifest).
 */
#include "lock_internal.h"
#include "lock_yaml.h"

#include <string.h>

/* "@scope/name@^1.2", "name@npm:^1.2": the name, up to the last "@" that is not the first character. */
static struct span pattern_name(struct span s)
{
	const char *p, *at = NULL;
	struct span name = s;

	for (p = s.p + 1; p < s.end; p++)
		if (*p == '@') {
			at = p;
			break;
		}
	if (at)
		name.end = at;
	return name;
}

/* ------------------------------------------------------------------ berry */

/* Not a registry's version: the project's own workspaces, links, portals and paths. */
static bool berry_local(const char *resolution)
{
	return strstr(resolution, "@workspace:") || strstr(resolution, "@link:") || strstr(resolution, "@portal:") ||
	       strstr(resolution, "@file:");
}

/* One entry: yarn writes version, then resolution (which names the package), then dependencies. */
static void berry_entry(struct yaml_pull *y, struct lock *lock)
{
	struct span field, value, name;
	char resolution[2 * DEPS_SPEC_MAX + 2] = "", version[DEPS_SPEC_MAX + 1] = "";
	size_t pkg = SIZE_MAX, n;

	if (!yaml_pull_mapping(y))
		return;
	while (yaml_pull_key(y, &field) && !lock_failed(lock)) {
		if (span_eq(field, "version") && yaml_pull_scalar(y, &value)) {
			if ((n = (size_t)(value.end - value.p)) > DEPS_SPEC_MAX)
				return lock_malformed(lock, "a version longer than %d bytes", DEPS_SPEC_MAX);
			memcpy(version, value.p, n);
			version[n] = '\0';
		} else if (span_eq(field, "resolution") && pkg == SIZE_MAX && yaml_pull_scalar(y, &value)) {
			if ((n = (size_t)(value.end - value.p)) >= sizeof(resolution))
				return lock_malformed(lock, "a resolution longer than %zu bytes", sizeof(resolution) - 1);
			memcpy(resolution, value.p, n);
			resolution[n] = '\0';
			name = pattern_name((struct span){ resolution, resolution + n });
			pkg = lock_add(lock, name.p, (size_t)(name.end - name.p), NULL, 0);
		} else if ((span_eq(field, "dependencies") || span_eq(field, "peerDependencies")) &&
			   pkg != SIZE_MAX && yaml_pull_mapping(y)) {
			while (yaml_pull_key(y, &name) && !lock_failed(lock)) {
				if (strstr(resolution, "@workspace:"))
					lock_root(lock, name.p, (size_t)(name.end - name.p));
				lock_edge(lock, pkg, name.p, (size_t)(name.end - name.p));
				yaml_pull_skip(y);
			}
		} else {
			yaml_pull_skip(y);
		}
	}
	if (pkg != SIZE_MAX && *version && !berry_local(resolution))
		lock_set_version(lock, pkg, version, strlen(version));
}

static void read_berry(struct lock *lock, const char *text, size_t len)
{
	struct yaml_pull y;
	struct span key;

	if (yaml_pull_init(&y, text, len) && yaml_pull_document(&y)) {
		while (yaml_pull_key(&y, &key) && !lock_failed(lock)) {
			if (span_eq(key, "__metadata"))
				yaml_pull_skip(&y);
			else
				berry_entry(&y, lock);
		}
	}
	if (y.failed && !lock_failed(lock))
		lock_malformed(lock, "not valid YAML, %s", y.why);
	yaml_pull_release(&y);
}

/* ---------------------------------------------------------------- classic */

struct classic {
	struct lock *lock;
	size_t line;
	struct buf text;        /* a quoted string, unescaped */
};

/* A string token at *pp: quoted (JSON's escapes) or bare, up to a blank, ":" or ","; false when there is none. */
static bool classic_string(struct classic *c, const char **pp, const char *end, struct span *out)
{
	const char *p = *pp;

	if (p < end && *p == '"') {
		buf_clear(&c->text);
		for (p++; p < end && *p != '"'; p++) {
			if (*p == '\\' && p + 1 < end)
				p++;
			if (buf_putc(&c->text, *p) < 0)
				return false;
		}
		if (p >= end)
			return false;
		*pp = p + 1;
		out->p = c->text.ptr ? c->text.ptr : "";
		out->end = out->p + c->text.len;
		return true;
	}
	for (out->p = p; p < end && *p != ' ' && *p != ':' && *p != ',' && *p != '\r'; p++)
		;
	out->end = p;
	*pp = p;
	return p > out->p;
}

static bool fail(struct classic *c, const char *what)
{
	lock_malformed(c->lock, "line %zu: %s", c->line, what);
	return false;
}

/* An entry's header: its patterns, comma-separated, and ":". The package is named by the first. */
static bool classic_header(struct classic *c, const char *p, const char *e, size_t *pkg)
{
	struct span s, name;
	bool first = true;

	for (;;) {
		if (!classic_string(c, &p, e, &s))
			return fail(c, "an entry without a package pattern");
		if (first) {
			name = pattern_name(s);
			*pkg = lock_add(c->lock, name.p, (size_t)(name.end - name.p), NULL, 0);
			first = false;
		}
		p = skip_blank(p, e);
		if (p < e && *p == ',') {
			p = skip_blank(p + 1, e);
			continue;
		}
		if (p < e && *p == ':' && skip_blank(p + 1, e) == e)
			return *pkg != SIZE_MAX;
		return fail(c, "an entry's patterns that do not end in \":\"");
	}
}

static void read_classic(struct lock *lock, const char *text, size_t len)
{
	struct classic c = { lock, 0, BUF_INIT };
	const char *p = text, *end = text + len, *e, *q;
	size_t indent, pkg = SIZE_MAX;
	struct span key, value;
	bool in_deps = false;

	for (; p < end && !lock_failed(lock); p = next_line(e, end)) {
		e = line_end(p, end);
		c.line++;
		for (q = p; q < e && *q == ' '; q++)
			;
		indent = (size_t)(q - p);
		if (q == e || *q == '#' || skip_blank(q, e) == e)
			continue;
		if (indent % 2 || indent > 4) {
			fail(&c, "an indentation that is not 0, 2 or 4 spaces");
			break;
		}
		if (indent == 0) {
			in_deps = false;
			if (!classic_header(&c, q, e, &pkg))
				break;
			continue;
		}
		if (pkg == SIZE_MAX || (indent == 4 && !in_deps)) {
			fail(&c, "a property outside an entry");
			break;
		}
		if (!classic_string(&c, &q, e, &key)) {
			fail(&c, "a property without a key");
			break;
		}
		if (indent == 4) {
			lock_edge(lock, pkg, key.p, (size_t)(key.end - key.p));
			continue;
		}
		in_deps = false;
		if (q < e && *q == ':') {
			in_deps = span_eq(key, "dependencies") || span_eq(key, "optionalDependencies");
			continue;
		}
		q = skip_blank(q, e);
		if (span_eq(key, "version") && classic_string(&c, &q, e, &value))
			lock_set_version(lock, pkg, value.p, (size_t)(value.end - value.p));
	}
	buf_release(&c.text);
}

/* Berry's lock file has its __metadata at the top (after comments). */
static bool is_berry(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *e;

	for (; p < end; p = next_line(e, end)) {
		e = line_end(p, end);
		if (skip_blank(p, e) == e || *p == '#')
			continue;
		return e - p >= 11 && !memcmp(p, "__metadata:", 11);
	}
	return false;
}

void lock_read_yarn(struct lock *lock, const char *text, size_t len)
{
	if (is_berry(text, len))
		read_berry(lock, text, len);
	else
		read_classic(lock, text, len);
}
