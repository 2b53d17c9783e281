/*
 * One side of a manifest as the readers fill it (deps_manifest.h): its
 * entries, each in the table it is declared in, with its version or else
 * its source; names as their ecosystem matches them (PEP 503 for pip);
 * PEP 508 requirements, which requirements.txt and pyproject.toml share;
 * and one entry a name for the comparison of the sides.
 */
#include "deps_manifest.h"
#include "array.h"
#include "status.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct span trim(const char *p, const char *end)
{
	struct span s;

	while (p < end && (is_blank(*p) || *p == '\n'))
		p++;
	while (end > p && (is_blank(end[-1]) || end[-1] == '\n'))
		end--;
	s.p = p;
	s.end = end;
	return s;
}

size_t deps_pep503_into(char *out, const char *name, size_t len)
{
	char *o = out;
	size_t i;

	for (i = 0; i < len; i++) {
		if (is_one_of(name[i], "-_.")) {
			if (o == out || o[-1] != '-')
				*o++ = '-';
		} else {
			*o++ = (char)tolower((unsigned char)name[i]);
		}
	}
	*o = '\0';
	return (size_t)(o - out);
}

/* PEP 503: lower case, runs of "-", "_" and "." one "-". */
static char *pep503(const char *name, size_t len)
{
	char *out = malloc(len + 1);

	if (out)
		deps_pep503_into(out, name, len);
	return out;
}

bool deps_same_name(const char *a, const char *b)
{
	char *x = pep503(a, strlen(a)), *y = pep503(b, strlen(b));
	bool same = x && y && !strcmp(x, y);

	free(x);
	free(y);
	return same;
}

/* Specs that differ only in spaces are the same spec. */
bool deps_same_spec(const char *a, const char *b)
{
	if (!a || !b)
		return !a && !b;
	for (;;) {
		while (isspace((unsigned char)*a))
			a++;
		while (isspace((unsigned char)*b))
			b++;
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++;
		b++;
	}
}

/* --------------------------------------------------------------- entries */

void depmap_release(struct depmap *map)
{
	size_t i;

	for (i = 0; i < map->n; i++) {
		free(map->items[i].name);
		free(map->items[i].key);
		free(map->items[i].table);
		free(map->items[i].version);
		buf_release(&map->items[i].source);
	}
	free(map->items);
	memset(map, 0, sizeof(*map));
}

void *depmap_nomem(struct depmap *map)
{
	if (!map->error)
		map->error = error_nomem();
	return NULL;
}

/* The side cannot be read: the first reason is kept, and the reader stops adding. */
void *depmap_malformed(struct depmap *map, const char *fmt, ...)
{
	va_list ap;

	if (!map->malformed) {
		va_start(ap, fmt);
		vsnprintf(map->why, sizeof(map->why), fmt, ap);
		va_end(ap);
		map->malformed = true;
	}
	return NULL;
}

static struct dep *dep_add(struct depmap *map, const char *table, const char *name, size_t len)
{
	struct dep *dep;

	if (map->n >= DEPS_ENTRIES_MAX)
		return depmap_malformed(map, "more than %d dependencies", DEPS_ENTRIES_MAX);
	if (len > DEPS_SPEC_MAX)
		return depmap_malformed(map, "a dependency name longer than %d bytes", DEPS_SPEC_MAX);
	if (ARRAY_GROW(map->items, map->alloc, map->n + 1) < 0)
		return depmap_nomem(map);
	dep = &map->items[map->n];
	memset(dep, 0, sizeof(*dep));
	dep->order = map->n;
	dep->name = strndup(name, len);
	dep->key = map->eco == ECO_PIP ? pep503(name, len) : strndup(name, len);
	dep->table = strdup(table);
	map->n++;
	if (!dep->name || !dep->key || !dep->table)
		return depmap_nomem(map);
	return dep;
}

/* The entry for name in table, added when it is not there yet. */
struct dep *dep_entry(struct depmap *map, const char *table, const char *name, size_t len)
{
	size_t i;

	if (map->error || map->malformed)
		return NULL;
	for (i = map->n; i-- > 0;)
		if (strlen(map->items[i].name) == len && !memcmp(map->items[i].name, name, len) &&
		    !strcmp(map->items[i].table, table))
			return &map->items[i];
	return dep_add(map, table, name, len);
}

/* The first version wins: a second one for the same entry is a mistake of the file's. */
void dep_set_version(struct depmap *map, struct dep *dep, const char *spec, size_t len)
{
	struct span s = trim(spec, spec + len);

	if (dep->version)
		return;
	if ((size_t)(s.end - s.p) > DEPS_SPEC_MAX) {
		depmap_malformed(map, "the version of %.64s is longer than %d bytes", dep->name, DEPS_SPEC_MAX);
		return;
	}
	if (!(dep->version = strndup(s.p, (size_t)(s.end - s.p))))
		depmap_nomem(map);
}

void dep_add_source(struct depmap *map, struct dep *dep, const char *key, const char *sep,
		    const char *value, size_t len)
{
	if (buf_printf(&dep->source, "%s%s%s%.*s", dep->source.len ? ", " : "", key, sep, (int)len, value) < 0)
		depmap_nomem(map);
}

const char *dep_spec(const struct dep *dep)
{
	if (dep->version)
		return dep->version;
	return dep->source.len ? dep->source.ptr : NULL;
}

/* ------------------------------------------------------------------ PyPI */

/* A PEP 508 requirement: "requests[socks]>=2.0,<3; python_version>'3.8'", "x @ https://...". */
struct requirement {
	struct span name, spec;
	bool direct;            /* "name @ url": no version */
};

static bool pep508_parse(const char *s, size_t len, struct requirement *r)
{
	const char *p = skip_blank(s, s + len), *end = s + len, *q, *h;

	for (r->name.p = p; p < end && (isalnum((unsigned char)*p) || is_one_of(*p, "-_.")); p++)
		;
	r->name.end = p;
	if (p == r->name.p || !isalnum((unsigned char)*r->name.p))
		return false;
	p = skip_blank(p, end);
	if (p < end && *p == '[') {
		q = memchr(p, ']', (size_t)(end - p));
		p = skip_blank(q ? q + 1 : end, end);
	}
	/* Anything else after the name is a URL or a path ("git+https://...", "./pkg"), not a requirement. */
	if (p < end && !is_one_of(*p, "<>=!~@;("))
		return false;
	r->direct = p < end && *p == '@';
	if (!(q = memchr(p, ';', (size_t)(end - p))))
		q = end;
	/* pip-compile's "--hash=..." options follow the version. */
	for (h = p; h + 1 < q; h++)
		if (h[0] == '-' && h[1] == '-') {
			q = h;
			break;
		}
	r->spec = trim(p, q);
	if (r->spec.end - r->spec.p >= 2 && *r->spec.p == '(' && r->spec.end[-1] == ')')
		r->spec = trim(r->spec.p + 1, r->spec.end - 1);
	return true;
}

void depmap_requirement(struct depmap *map, const char *table, const char *s, size_t len)
{
	struct requirement r;
	struct dep *dep;

	if (!pep508_parse(s, len, &r))
		return;
	if (!(dep = dep_entry(map, table, r.name.p, (size_t)(r.name.end - r.name.p))))
		return;
	if (r.direct)
		dep_add_source(map, dep, "", "", r.spec.p, (size_t)(r.spec.end - r.spec.p));
	else if (r.spec.end > r.spec.p)
		dep_set_version(map, dep, r.spec.p, (size_t)(r.spec.end - r.spec.p));
}

/* --------------------------------------------------------- the sides */

static int dep_order(const void *x, const void *y)
{
	const struct dep *a = *(const struct dep *const *)x, *b = *(const struct dep *const *)y;
	int c = strcmp(a->key, b->key);

	if (c)
		return c;
	/* Of one name's entries, one with a version speaks for it. */
	if (!a->version != !b->version)
		return a->version ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

/*
 * One entry per name, sorted by name: the first with a version (package.json's
 * dependencies before devDependencies, [dependencies] before [dev-dependencies]),
 * else the first.
 */
int depmap_representatives(const struct depmap *map, struct dep ***out, size_t *n)
{
	struct dep **v;
	size_t i, k = 0;

	*out = NULL;
	*n = 0;
	if (!map->n)
		return 0;
	if (!(v = malloc(map->n * sizeof(*v))))
		return error_nomem();
	for (i = 0; i < map->n; i++)
		v[i] = &map->items[i];
	qsort(v, map->n, sizeof(*v), dep_order);
	for (i = 0; i < map->n; i++)
		if (!k || strcmp(v[k - 1]->key, v[i]->key))
			v[k++] = v[i];
	*out = v;
	*n = k;
	return 0;
}
