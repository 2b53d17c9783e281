/* Manifests and lock files read into their dependencies: npm, Go, Cargo, Poetry, PyPI, RubyGems. */
#include "deps.h"
#include "array.h"
#include "deps_manifest.h"
#include "botcommit.h"
#include "status.h"
#include "utf8.h"
#include "version.h"
#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Blanks, line breaks and # comments: the space between the items of a TOML array. */
static const char *skip_space(const char *p, const char *end)
{
	for (;;) {
		while (p < end && (is_blank(*p) || *p == '\n'))
			p++;
		if (p >= end || *p != '#')
			return p;
		p = line_end(p, end);
	}
}

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

static bool span_is(struct span s, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(s.end - s.p) == n && !memcmp(s.p, word, n);
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

static void *nomem(struct depmap *map)
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
		return nomem(map);
	dep = &map->items[map->n];
	memset(dep, 0, sizeof(*dep));
	dep->order = map->n;
	dep->name = strndup(name, len);
	dep->key = map->eco == ECO_PIP ? pep503(name, len) : strndup(name, len);
	dep->table = strdup(table);
	map->n++;
	if (!dep->name || !dep->key || !dep->table)
		return nomem(map);
	return dep;
}

/* The entry for name in table, added when it is not there yet. */
static struct dep *dep_entry(struct depmap *map, const char *table, const char *name, size_t len)
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
static void dep_set_version(struct depmap *map, struct dep *dep, const char *spec, size_t len)
{
	struct span s = trim(spec, spec + len);

	if (dep->version)
		return;
	if ((size_t)(s.end - s.p) > DEPS_SPEC_MAX) {
		depmap_malformed(map, "the version of %.64s is longer than %d bytes", dep->name, DEPS_SPEC_MAX);
		return;
	}
	if (!(dep->version = strndup(s.p, (size_t)(s.end - s.p))))
		nomem(map);
}

static void dep_add_source(struct depmap *map, struct dep *dep, const char *key, const char *sep,
			   const char *value, size_t len)
{
	if (buf_printf(&dep->source, "%s%s%s%.*s", dep->source.len ? ", " : "", key, sep, (int)len, value) < 0)
		nomem(map);
}

const char *dep_spec(const struct dep *dep)
{
	if (dep->version)
		return dep->version;
	return dep->source.len ? dep->source.ptr : NULL;
}

/* ------------------------------------------------------------------- npm */

static const char *const npm_sections[] = {
	"dependencies", "devDependencies", "peerDependencies", "optionalDependencies",
};

/* The end of the JSON string that starts at p, its closing quote included. */
static const char *json_string_end(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\' && p + 1 < end)
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return end;
}

/* composer.json's require and require-dev; platform requirements (php, ext-*) are no packages. */
static const char *const composer_sections[] = { "require", "require-dev" };

static void read_json_sections(struct depmap *map, const char *text, size_t len, const char *const *sections,
			       size_t nsections)
{
	json_error_t err;
	json_t *root = json_loadb(text, len, 0, &err), *deps, *value;
	const char *name;
	struct dep *dep;
	size_t i;

	if (!json_is_object(root)) {
		map->malformed = true;
		if (root)
			snprintf(map->why, sizeof(map->why), "not a JSON object");
		else
			snprintf(map->why, sizeof(map->why), "not valid JSON, line %d, column %d: %s", err.line,
				 err.column, err.text);
		goto done;
	}
	for (i = 0; i < nsections; i++) {
		if (!json_is_object(deps = json_object_get(root, sections[i])))
			continue;
		json_object_foreach(deps, name, value) {
			if (!json_is_string(value) || (map->eco == ECO_COMPOSER && !strchr(name, '/')))
				continue;
			if (!(dep = dep_entry(map, sections[i], name, strlen(name))))
				goto done;
			dep_set_version(map, dep, json_string_value(value), json_string_length(value));
		}
	}
done:
	json_decref(root);
}

/* ----------------------------------------------------------------- go.mod */

#define GO_FIELDS 4

/* The words of a go.mod line, up to its // comment; parentheses are words of their own. */
static size_t go_fields(const char *p, const char *end, struct span *f, size_t max)
{
	size_t n = 0;
	char quote;

	while (n < max) {
		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p >= end || (end - p >= 2 && p[0] == '/' && p[1] == '/'))
			break;
		f[n].p = p;
		if (*p == '(' || *p == ')') {
			f[n++].end = ++p;
		} else if (*p == '"' || *p == '`') {
			quote = *p++;
			for (f[n].p = p; p < end && *p != quote; p++)
				;
			f[n++].end = p;
			if (p < end)
				p++;
		} else {
			while (p < end && !isspace((unsigned char)*p) && *p != '(' && *p != ')' &&
			       !(end - p >= 2 && p[0] == '/' && p[1] == '/'))
				p++;
			f[n++].end = p;
		}
	}
	return n;
}

/* A require line's comment says "indirect" (go.mod's "// indirect", "// indirect; reason"). */
static bool go_indirect(const char *p, const char *end)
{
	const char *c = memmem(p, (size_t)(end - p), "//", 2);

	if (!c)
		return false;
	c = skip_blank(c + 2, end);
	return end - c >= 8 && !memcmp(c, "indirect", 8) && (end - c == 8 || is_one_of(c[8], "; \t\r"));
}

static void go_require(struct depmap *map, struct span path, struct span version, bool indirect)
{
	struct dep *dep = dep_entry(map, "require", path.p, (size_t)(path.end - path.p));

	if (dep) {
		dep->indirect = indirect;
		dep_set_version(map, dep, version.p, (size_t)(version.end - version.p));
	}
}

/*
 * require lines and blocks; replace, exclude, retract and the other
 * blocks are passed over (a replace does change what is built, but the
 * require line still says which version is asked for).
 */
static void read_gomod(struct depmap *map, const char *text, size_t len)
{
	enum { TOP, REQUIRE, OTHER } block = TOP;
	const char *p = text, *end = text + len, *e;
	struct span f[GO_FIELDS];
	size_t n;

	for (; p < end && !map->error; p = next_line(e, end)) {
		e = line_end(p, end);
		if (!(n = go_fields(p, e, f, GO_FIELDS)))
			continue;
		if (block != TOP) {
			if (span_is(f[0], ")"))
				block = TOP;
			else if (block == REQUIRE && n >= 2)
				go_require(map, f[0], f[1], go_indirect(f[1].end, e));
		} else if (n >= 2 && span_is(f[1], "(")) {
			block = span_is(f[0], "require") ? REQUIRE : OTHER;
		} else if (n >= 3 && span_is(f[0], "require")) {
			go_require(map, f[1], f[2], go_indirect(f[2].end, e));
		}
	}
}

/* ------------------------------------------------------------------- TOML */

/*
 * Enough TOML for dependency tables: tables and dotted keys, strings of
 * the four kinds, arrays and inline tables across lines, comments. What it
 * cannot read it passes over, a line at a time.
 */
#define TOML_PARTS 16
#define TOML_PART 128

struct toml_key {
	char part[TOML_PARTS][TOML_PART];
	size_t n;
};

typedef void toml_value_fn(void *ctx, const struct toml_key *path, const char *v, const char *vend);
typedef void toml_pair_fn(void *ctx, const struct toml_key *key, const char *v, const char *vend);
typedef void toml_item_fn(void *ctx, const char *v, const char *vend);

/* The end of the string that starts at p, its closing quote included; one not closed ends with its line. */
static const char *toml_string_end(const char *p, const char *end)
{
	char quote = *p;

	if (end - p >= 3 && p[1] == quote && p[2] == quote) {
		for (p += 3; p < end; p++) {
			if (quote == '"' && *p == '\\' && p + 1 < end)
				p++;
			else if (end - p >= 3 && p[0] == quote && p[1] == quote && p[2] == quote)
				return p + 3;
		}
		return end;
	}
	for (p++; p < end && *p != '\n'; p++) {
		if (quote == '"' && *p == '\\' && p + 1 < end && p[1] != '\n')
			p++;
		else if (*p == quote)
			return p + 1;
	}
	return p;
}

/* The end of the value that starts at p: a string, an array or inline table (across lines), or a bare word. */
static const char *toml_value_end(const char *p, const char *end)
{
	const char *start = p;
	int depth = 0;

	if (p >= end)
		return p;
	if (*p == '"' || *p == '\'')
		return toml_string_end(p, end);
	if (*p != '[' && *p != '{') {
		while (p < end && !is_one_of(*p, ",]}#\n"))
			p++;
		while (p > start && is_blank(p[-1]))
			p--;
		return p;
	}
	while (p < end) {
		if (*p == '"' || *p == '\'') {
			p = toml_string_end(p, end);
			continue;
		}
		if (*p == '#') {
			p = line_end(p, end);
			continue;
		}
		if (*p == '[' || *p == '{')
			depth++;
		else if ((*p == ']' || *p == '}') && --depth == 0)
			return p + 1;
		p++;
	}
	return end;
}

static bool bare_key_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_';
}

static void key_part(struct toml_key *key, const char *s, const char *e)
{
	size_t n = (size_t)(e - s);

	if (n >= TOML_PART)
		n = TOML_PART - 1;
	memcpy(key->part[key->n], s, n);
	key->part[key->n][n] = '\0';
	key->n++;
}

/* A dotted key at *pp (bare and quoted parts); false when there is none, or too many parts. */
static bool toml_read_key(const char **pp, const char *end, struct toml_key *key)
{
	const char *p = *pp, *s, *e;

	key->n = 0;
	for (;;) {
		p = skip_blank(p, end);
		if (p >= end)
			break;
		if (*p == '"' || *p == '\'') {
			e = toml_string_end(p, end);
			s = p + 1;
			p = e;
			if (e > s && e[-1] == s[-1])
				e--;
		} else {
			for (s = p; p < end && bare_key_char(*p); p++)
				;
			if ((e = p) == s)
				break;
		}
		if (key->n == TOML_PARTS)
			return false;
		key_part(key, s, e);
		p = skip_blank(p, end);
		if (p >= end || *p != '.')
			break;
		p++;
	}
	*pp = p;
	return key->n > 0;
}

static bool toml_join(struct toml_key *out, const struct toml_key *a, const struct toml_key *b)
{
	if (a->n + b->n > TOML_PARTS)
		return false;
	memcpy(out->part, a->part, a->n * sizeof(*a->part));
	memcpy(out->part + a->n, b->part, b->n * sizeof(*b->part));
	out->n = a->n + b->n;
	return true;
}

/* Every key = value of the document, with its full path (table, then key). */
static void toml_read(const char *text, size_t len, toml_value_fn *fn, void *ctx)
{
	const char *p = text, *end = text + len, *v, *vend;
	struct toml_key table = { .n = 0 }, key, path;
	bool table_ok = true;

	while (p < end) {
		p = skip_blank(p, end);
		if (p < end && *p == '[') {
			p += end - p >= 2 && p[1] == '[' ? 2 : 1;
			table_ok = toml_read_key(&p, end, &table);
		} else if (p < end && *p != '#' && toml_read_key(&p, end, &key)) {
			p = skip_blank(p, end);
			if (p < end && *p == '=') {
				v = skip_blank(p + 1, end);
				vend = toml_value_end(v, end);
				if (table_ok && toml_join(&path, &table, &key))
					fn(ctx, &path, v, vend);
				p = vend;
			}
		}
		p = line_end(p, end);
		if (p < end)
			p++;
	}
}

/* Past the opening bracket, and the closing one when it is there. */
static struct span toml_inside(const char *v, const char *vend, char open, char close)
{
	struct span s = { v, v };

	if (vend - v < 1 || *v != open)
		return s;
	s.p = v + 1;
	s.end = vend - v >= 2 && vend[-1] == close ? vend - 1 : vend;
	return s;
}

static void toml_each_pair(const char *v, const char *vend, toml_pair_fn *fn, void *ctx)
{
	struct span in = toml_inside(v, vend, '{', '}');
	const char *p = in.p, *q, *qend;
	struct toml_key key;

	while (p < in.end) {
		p = skip_space(p, in.end);
		if (p >= in.end || !toml_read_key(&p, in.end, &key))
			break;
		p = skip_blank(p, in.end);
		if (p >= in.end || *p != '=')
			break;
		q = skip_blank(p + 1, in.end);
		qend = toml_value_end(q, in.end);
		fn(ctx, &key, q, qend);
		p = skip_space(qend, in.end);
		if (p >= in.end || *p != ',')
			break;
		p++;
	}
}

static void toml_each_item(const char *v, const char *vend, toml_item_fn *fn, void *ctx)
{
	struct span in = toml_inside(v, vend, '[', ']');
	const char *p = in.p, *q;

	while (p < in.end) {
		p = skip_space(p, in.end);
		if (p >= in.end || (q = toml_value_end(p, in.end)) == p)
			break;
		fn(ctx, p, q);
		p = skip_space(q, in.end);
		if (p >= in.end || *p != ',')
			break;
		p++;
	}
}

/* A string value's text, escapes read: 1, or 0 when v is not a string. */
static int toml_string(struct buf *out, const char *v, const char *vend)
{
	const char *p, *end;
	char quote;
	size_t q = 1;
	int error = 0;

	buf_clear(out);
	if (vend <= v || (*v != '"' && *v != '\''))
		return 0;
	quote = *v;
	if (vend - v >= 6 && v[1] == quote && v[2] == quote)
		q = 3;
	p = v + q;
	end = vend - v >= (ptrdiff_t)(2 * q) && vend[-1] == quote ? vend - q : vend;
	/* A newline right after the opening quotes of a multi-line string is not part of it. */
	if (q == 3 && p < end && *p == '\n')
		p++;
	for (; p < end && !error; p++) {
		if (quote == '"' && *p == '\\' && p + 1 < end) {
			p++;
			error = buf_putc(out, *p == 'n' ? '\n' : *p == 't' ? '\t' : *p);
		} else {
			error = buf_putc(out, *p);
		}
	}
	if (!error && !(error = buf_grow(out, 0)))
		out->ptr[out->len] = '\0';
	return error < 0 ? error : 1;
}

/* ------------------------------------------------- Cargo.toml and Poetry */

/* Attributes of a dependency that say where it comes from when no version does. */
static const char *const source_keys[] = {
	"git", "branch", "tag", "rev", "path", "url", "registry", "workspace",
};

static bool is_source_key(const char *key, const char *const *keys, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

struct entry_ctx {
	struct depmap *map;
	struct dep *dep;
	struct buf text;
	bool done;
};

static void dep_attribute(struct entry_ctx *e, const char *attr, const char *v, const char *vend)
{
	int is_string = toml_string(&e->text, v, vend);
	struct span raw = trim(v, vend);

	if (is_string < 0) {
		nomem(e->map);
	} else if (!strcmp(attr, "version")) {
		if (is_string)
			dep_set_version(e->map, e->dep, e->text.ptr, e->text.len);
	} else if (is_source_key(attr, source_keys, COUNT(source_keys))) {
		/* "package" (a rename) and "features" do not change which version is used. */
		if (is_string)
			dep_add_source(e->map, e->dep, attr, " = ", e->text.ptr, e->text.len);
		else
			dep_add_source(e->map, e->dep, attr, " = ", raw.p, (size_t)(raw.end - raw.p));
	}
}

static void entry_pair(void *ctx, const struct toml_key *key, const char *v, const char *vend)
{
	if (key->n == 1)
		dep_attribute(ctx, key->part[0], v, vend);
}

/* Poetry's multiple constraints, [{ version = "<2", python = "<3.8" }, ...]: the first one speaks. */
static void entry_first_table(void *ctx, const char *v, const char *vend)
{
	struct entry_ctx *e = ctx;

	if (e->done || *v != '{')
		return;
	e->done = true;
	toml_each_pair(v, vend, entry_pair, e);
}

/*
 * path is a dependency table's parts (the first "table" of them), the
 * dependency's name, and maybe an attribute: name = "1.2", name = { ... },
 * name.version = "1.2", or [dependencies.name] with version = "1.2".
 */
static void table_entry(struct depmap *map, const struct toml_key *path, size_t table, const char *v,
			const char *vend)
{
	struct entry_ctx e = { map, NULL, BUF_INIT, false };
	struct buf id = BUF_INIT;
	const char *name = path->part[table];
	size_t i;

	for (i = 0; i < table; i++)
		if (buf_printf(&id, "%s%s", i ? "." : "", path->part[i]) < 0)
			goto nomem;
	if (!(e.dep = dep_entry(map, id.ptr, name, strlen(name))))
		goto done;
	if (path->n == table + 2) {
		dep_attribute(&e, path->part[table + 1], v, vend);
	} else if (path->n == table + 1) {
		switch (toml_string(&e.text, v, vend)) {
		case 1:
			dep_set_version(map, e.dep, e.text.ptr, e.text.len);
			break;
		case 0:
			if (v < vend && *v == '{')
				toml_each_pair(v, vend, entry_pair, &e);
			else if (v < vend && *v == '[')
				toml_each_item(v, vend, entry_first_table, &e);
			break;
		default:
			goto nomem;
		}
	}
	goto done;
nomem:
	nomem(map);
done:
	buf_release(&e.text);
	buf_release(&id);
}

static bool is_cargo_table_word(const char *s)
{
	return !strcmp(s, "dependencies") || !strcmp(s, "dev-dependencies") || !strcmp(s, "build-dependencies") ||
	       !strcmp(s, "dev_dependencies") || !strcmp(s, "build_dependencies");
}

/* How many leading parts of path name a Cargo dependency table, or 0. */
static size_t cargo_table(const struct toml_key *path)
{
	if (path->n >= 2 && is_cargo_table_word(path->part[0]))
		return 1;
	if (path->n >= 3 && !strcmp(path->part[0], "workspace") && !strcmp(path->part[1], "dependencies"))
		return 2;
	if (path->n >= 4 && !strcmp(path->part[0], "target") && is_cargo_table_word(path->part[2]))
		return 3;
	return 0;
}

static void cargo_value(void *ctx, const struct toml_key *path, const char *v, const char *vend)
{
	size_t table = cargo_table(path);

	if (table && path->n <= table + 2)
		table_entry(ctx, path, table, v, vend);
}

/* [tool.poetry.dependencies], [tool.poetry.dev-dependencies], [tool.poetry.group.X.dependencies]. */
static size_t poetry_table(const struct toml_key *path)
{
	if (path->n < 4 || strcmp(path->part[0], "tool") || strcmp(path->part[1], "poetry"))
		return 0;
	if (!strcmp(path->part[2], "dependencies") || !strcmp(path->part[2], "dev-dependencies"))
		return 3;
	if (path->n >= 6 && !strcmp(path->part[2], "group") && !strcmp(path->part[4], "dependencies"))
		return 5;
	return 0;
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

static void add_requirement(struct depmap *map, const char *table, const char *s, size_t len)
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

static void requirement_line(struct depmap *map, const char *s, size_t len)
{
	const char *p, *end = s + len;

	/* A comment starts at "#" after a blank (a URL's "#egg=" is not one). */
	for (p = s; p < end; p++)
		if (*p == '#' && (p == s || is_blank(p[-1]))) {
			end = p;
			break;
		}
	p = skip_blank(s, end);
	/* Options: -r other.txt, -e path, --index-url ... */
	if (p >= end || *p == '-')
		return;
	add_requirement(map, "requirements", p, (size_t)(end - p));
}

static void read_requirements(struct depmap *map, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *e, *le;
	struct buf line = BUF_INIT;
	bool more;

	while (p < end && !map->error) {
		e = line_end(p, end);
		for (le = e; le > p && le[-1] == '\r'; le--)
			;
		more = le > p && le[-1] == '\\';
		if (buf_put(&line, p, (size_t)(le - p) - more) < 0) {
			nomem(map);
			break;
		}
		p = next_line(e, end);
		/* A backslash at the end joins the next line. */
		if (more && p < end)
			continue;
		requirement_line(map, line.ptr, line.len);
		buf_clear(&line);
	}
	buf_release(&line);
}

struct pep621_ctx {
	struct depmap *map;
	const char *table;
	struct buf text;
};

static void pep621_item(void *ctx, const char *v, const char *vend)
{
	struct pep621_ctx *c = ctx;
	int is_string = toml_string(&c->text, v, vend);

	if (is_string < 0)
		nomem(c->map);
	else if (is_string)
		add_requirement(c->map, c->table, c->text.ptr, c->text.len);
}

static bool path_is(const struct toml_key *path, size_t n, const char *a, const char *b)
{
	return path->n == n && !strcmp(path->part[0], a) && (!b || !strcmp(path->part[1], b));
}

/*
 * [project] dependencies and optional-dependencies (PEP 621), [dependency-groups]
 * (PEP 735), and Poetry's tables; Poetry's "python" is the interpreter.
 */
static void pyproject_value(void *ctx, const struct toml_key *path, const char *v, const char *vend)
{
	struct pep621_ctx c = { ctx, NULL, BUF_INIT };
	size_t table;

	if (path_is(path, 2, "project", "dependencies"))
		c.table = "project.dependencies";
	else if (path_is(path, 3, "project", "optional-dependencies"))
		c.table = "project.optional-dependencies";
	else if (path_is(path, 2, "dependency-groups", NULL))
		c.table = "dependency-groups";
	if (c.table) {
		toml_each_item(v, vend, pep621_item, &c);
		buf_release(&c.text);
		return;
	}
	if ((table = poetry_table(path)) && path->n <= table + 2 && strcasecmp(path->part[table], "python"))
		table_entry(ctx, path, table, v, vend);
}

/* ---------------------------------------------------------------- Gemfile */

/* Options of gem that name a source instead of a version. */
static const char *const gem_source_keys[] = {
	"git", "github", "gitlab", "bitbucket", "path", "branch", "tag", "ref",
};

/* A Ruby string literal at *pp, its text between the quotes; false when there is none. */
static bool ruby_string(const char **pp, const char *end, struct span *out)
{
	const char *p = *pp;
	char quote;

	if (p >= end || (*p != '\'' && *p != '"'))
		return false;
	quote = *p++;
	for (out->p = p; p < end && *p != quote; p++)
		if (*p == '\\' && p + 1 < end)
			p++;
	out->end = p;
	*pp = p < end ? p + 1 : p;
	return true;
}

static bool ruby_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* An option's key: "key:" or ":key =>". */
static bool gem_option(const char **pp, const char *end, struct span *key)
{
	const char *p = *pp;
	bool symbol = p < end && *p == ':';

	if (symbol)
		p++;
	for (key->p = p; p < end && ruby_ident_char(*p); p++)
		;
	if ((key->end = p) == key->p)
		return false;
	if (symbol) {
		p = skip_blank(p, end);
		if (end - p < 2 || p[0] != '=' || p[1] != '>')
			return false;
		p += 2;
	} else if (p >= end || *p != ':' || (end - p >= 2 && p[1] == ':')) {
		return false;
	} else {
		p++;
	}
	*pp = skip_blank(p, end);
	return true;
}

/* Past an option's value that is not a string: to the next comma outside brackets. */
static const char *ruby_skip_value(const char *p, const char *end)
{
	struct span s;
	int depth = 0;

	while (p < end && *p != '#' && (depth || *p != ',')) {
		if (ruby_string(&p, end, &s))
			continue;
		if (is_one_of(*p, "[{("))
			depth++;
		else if (is_one_of(*p, "]})") && depth)
			depth--;
		p++;
	}
	return p;
}

static bool span_in(struct span s, const char *const *words, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (span_is(s, words[i]))
			return true;
	return false;
}

/* An array of requirements ("[">= 6.0", "< 7"]") at *pp, each added to versions as a separate one. */
static int gem_requirements(struct buf *versions, const char **pp, const char *end)
{
	const char *p = skip_blank(*pp + 1, end);
	struct span s;
	int error = 0;

	while (!error && ruby_string(&p, end, &s)) {
		error = buf_printf(versions, "%s%.*s", versions->len ? ", " : "", (int)(s.end - s.p), s.p);
		p = skip_blank(p, end);
		if (p < end && *p == ',')
			p = skip_blank(p + 1, end);
	}
	*pp = p < end && *p == ']' ? p + 1 : ruby_skip_value(p, end);
	return error;
}

/* gem 'name', 'version', ..., option: value, ... (the arguments after "gem"). */
static void gem_line(struct depmap *map, const char *p, const char *end)
{
	struct buf versions = BUF_INIT, source = BUF_INIT;
	struct span name, s, key;
	bool options = false;
	struct dep *dep;
	int error = 0;

	if (!ruby_string(&p, end, &name) || name.p == name.end)
		return;
	for (;;) {
		p = skip_blank(p, end);
		if (p >= end || *p != ',')
			break;
		p = skip_blank(p + 1, end);
		if (!options && ruby_string(&p, end, &s)) {
			error = buf_printf(&versions, "%s%.*s", versions.len ? ", " : "", (int)(s.end - s.p), s.p);
		} else if (!options && p < end && *p == '[') {
			error = gem_requirements(&versions, &p, end);
		} else if (!gem_option(&p, end, &key)) {
			break;
		} else {
			options = true;
			if (!ruby_string(&p, end, &s))
				p = ruby_skip_value(p, end);
			else if (span_in(key, gem_source_keys, COUNT(gem_source_keys)))
				error = buf_printf(&source, "%s%.*s: %.*s", source.len ? ", " : "",
						   (int)(key.end - key.p), key.p, (int)(s.end - s.p), s.p);
		}
		if (error < 0)
			break;
	}
	if (error < 0) {
		nomem(map);
	} else if ((dep = dep_entry(map, "gems", name.p, (size_t)(name.end - name.p)))) {
		if (versions.len)
			dep_set_version(map, dep, versions.ptr, versions.len);
		else if (source.len)
			dep_add_source(map, dep, "", "", source.ptr, source.len);
	}
	buf_release(&versions);
	buf_release(&source);
}

static void read_gemfile(struct depmap *map, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *e;

	for (; p < end && !map->error; p = next_line(e, end)) {
		e = line_end(p, end);
		p = skip_blank(p, e);
		if (e - p < 4 || memcmp(p, "gem", 3) || !is_one_of(p[3], " \t("))
			continue;
		p = skip_blank(p + 3, e);
		if (p < e && *p == '(')
			p = skip_blank(p + 1, e);
		gem_line(map, p, e);
	}
}

/* ------------------------------------------------------------- manifests */

/* The line of p, for problems. */
static size_t line_of(const char *text, const char *p)
{
	size_t line = 1;

	while ((text = memchr(text, '\n', (size_t)(p - text))))
		line++, text++;
	return line;
}

/*
 * The deepest nesting of brackets and braces outside strings and comments,
 * counted in one pass before any reader sees the text, so that no reader
 * (jansson recurses) is handed 100,000 levels. False with the line of the
 * first bracket past the limit.
 */
static bool depth_ok(const char *text, size_t len, bool toml, size_t *line)
{
	const char *p = text, *end = text + len;
	int depth = 0;

	while (p < end) {
		if (*p == '"' || (toml && *p == '\'')) {
			p = toml ? toml_string_end(p, end) : json_string_end(p, end);
			continue;
		}
		if (toml && *p == '#') {
			p = line_end(p, end);
			continue;
		}
		if ((*p == '[' || *p == '{') && ++depth > DEPS_DEPTH_MAX) {
			*line = line_of(text, p);
			return false;
		}
		if ((*p == ']' || *p == '}') && depth > 0)
			depth--;
		p++;
	}
	return true;
}

/* What every side must be before a reader sees it (see deps.h). */
static bool manifest_ok(struct depmap *map, const char *path, enum deps_ecosystem eco, const char *text,
			size_t len)
{
	const char *nul = memchr(text, '\0', len), *base = base_name(path);
	size_t line;

	if (len > DEPS_MANIFEST_MAX)
		return depmap_malformed(map, "larger than %d MiB", DEPS_MANIFEST_MAX / (1024 * 1024)), false;
	if (nul)
		return depmap_malformed(map, "a NUL byte, line %zu", line_of(text, nul)), false;
	if (!utf8_valid(text, len)) {
		const char *p = text;
		uint32_t cp;
		size_t n;

		while ((n = utf8_decode(&cp, p, (size_t)(text + len - p))))
			p += n;
		return depmap_malformed(map, "not valid UTF-8, line %zu", line_of(text, p)), false;
	}
	if ((eco == ECO_NPM || eco == ECO_COMPOSER || !strcmp(base, "Cargo.toml") || !strcmp(base, "pyproject.toml")) &&
	    !depth_ok(text, len, eco != ECO_NPM && eco != ECO_COMPOSER, &line))
		return depmap_malformed(map, "nested deeper than %d levels, line %zu", DEPS_DEPTH_MAX, line), false;
	return true;
}

void depmap_read(struct depmap *map, const char *path, enum deps_ecosystem eco, const char *text,
			  size_t len)
{
	map->eco = eco;
	if (!text || !manifest_ok(map, path, eco, text, len))
		return;
	switch (eco) {
	case ECO_NPM:
		read_json_sections(map, text, len, npm_sections, COUNT(npm_sections));
		break;
	case ECO_COMPOSER:
		read_json_sections(map, text, len, composer_sections, COUNT(composer_sections));
		break;
	case ECO_GO:
		read_gomod(map, text, len);
		break;
	case ECO_CARGO:
		toml_read(text, len, cargo_value, map);
		break;
	case ECO_PIP:
		if (!strcmp(base_name(path), "pyproject.toml"))
			toml_read(text, len, pyproject_value, map);
		else
			read_requirements(map, text, len);
		break;
	case ECO_RUBYGEMS:
		read_gemfile(map, text, len);
		break;
	case ECO_COUNT:
		break;
	}
}

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

