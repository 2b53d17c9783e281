/*
 * Dependency bumps. Each side of a manifest is read into entries (name ->
 * spec), the two sides are matched by name, and each transition is
 * classified in its ecosystem's terms (version.c). Every manifest format has a small reader of its own
 * that knows only as much of the format as dependencies need: TOML for
 * Cargo.toml and pyproject.toml, go.mod's directives, requirement lines,
 * the Gemfile's gem calls, and package.json through jansson. Lock files are
 * never read (the seed's Anti-Pattern 1): their paths only tell the
 * ecosystem, and Dependabot's subjects give the bumps only they show.
 */
#include "deps.h"
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

#define COUNT(a) (sizeof(a) / sizeof(*(a)))

/* ------------------------------------------------------------------ names */

static const struct {
	const char *name, *osv;
} ecosystem_names[] = {
#define DEPS_ECO_ROW(id, name, osv) [id] = { name, osv },
	DEPS_ECOSYSTEMS(DEPS_ECO_ROW)
#undef DEPS_ECO_ROW
};

static const char *const bump_names[] = {
#define DEPS_BUMP_ROW(id, name) [id] = name,
	DEPS_BUMPS(DEPS_BUMP_ROW)
#undef DEPS_BUMP_ROW
};

static const char *const confidence_names[] = {
#define DEPS_CONF_ROW(id, name) [id] = name,
	DEPS_CONFIDENCES(DEPS_CONF_ROW)
#undef DEPS_CONF_ROW
};

const char *deps_ecosystem_name(enum deps_ecosystem eco)
{
	return (unsigned)eco < ECO_COUNT ? ecosystem_names[eco].name : "unknown";
}

const char *deps_ecosystem_osv(enum deps_ecosystem eco)
{
	return (unsigned)eco < ECO_COUNT ? ecosystem_names[eco].osv : "unknown";
}

const char *deps_bump_name(enum deps_bump bump)
{
	return (unsigned)bump < COUNT(bump_names) ? bump_names[bump] : "unknown";
}

const char *deps_confidence_name(enum deps_confidence confidence)
{
	return (unsigned)confidence < COUNT(confidence_names) ? confidence_names[confidence] : "unknown";
}

/* ------------------------------------------------------------------ files */

static const struct {
	const char *name;
	enum deps_file_kind kind;
	enum deps_ecosystem eco;
} known_files[] = {
	{ "package.json", DEPS_FILE_MANIFEST, ECO_NPM },
	{ "package-lock.json", DEPS_FILE_LOCK, ECO_NPM },
	{ "npm-shrinkwrap.json", DEPS_FILE_LOCK, ECO_NPM },
	{ "yarn.lock", DEPS_FILE_LOCK, ECO_NPM },
	{ "pnpm-lock.yaml", DEPS_FILE_LOCK, ECO_NPM },
	{ "bun.lock", DEPS_FILE_LOCK, ECO_NPM },
	{ "bun.lockb", DEPS_FILE_LOCK, ECO_NPM },
	{ "go.mod", DEPS_FILE_MANIFEST, ECO_GO },
	{ "go.sum", DEPS_FILE_LOCK, ECO_GO },
	{ "go.work.sum", DEPS_FILE_LOCK, ECO_GO },
	{ "Cargo.toml", DEPS_FILE_MANIFEST, ECO_CARGO },
	{ "Cargo.lock", DEPS_FILE_LOCK, ECO_CARGO },
	{ "pyproject.toml", DEPS_FILE_MANIFEST, ECO_PIP },
	{ "Pipfile.lock", DEPS_FILE_LOCK, ECO_PIP },
	{ "poetry.lock", DEPS_FILE_LOCK, ECO_PIP },
	{ "uv.lock", DEPS_FILE_LOCK, ECO_PIP },
	{ "pdm.lock", DEPS_FILE_LOCK, ECO_PIP },
	{ "Gemfile", DEPS_FILE_MANIFEST, ECO_RUBYGEMS },
	{ "Gemfile.lock", DEPS_FILE_LOCK, ECO_RUBYGEMS },
	{ "gems.rb", DEPS_FILE_MANIFEST, ECO_RUBYGEMS },
	{ "gems.locked", DEPS_FILE_LOCK, ECO_RUBYGEMS },
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* requirements.txt, requirements-dev.txt, and any .txt in a requirements/ directory. */
static bool is_requirements(const char *path, const char *base)
{
	static const char dir[] = "requirements/";
	size_t n = strlen(base), d = sizeof(dir) - 1;

	if (n < 5 || strcmp(base + n - 4, ".txt"))
		return false;
	if (!strncmp(base, "requirements", 12))
		return true;
	return (size_t)(base - path) >= d && !strncmp(base - d, dir, d) &&
	       ((size_t)(base - path) == d || base[-(ptrdiff_t)d - 1] == '/');
}

enum deps_file_kind deps_file_kind(const char *path, enum deps_ecosystem *eco)
{
	const char *base;
	size_t i;

	if (!path)
		return DEPS_FILE_OTHER;
	base = base_name(path);
	for (i = 0; i < COUNT(known_files); i++)
		if (!strcmp(base, known_files[i].name)) {
			if (eco)
				*eco = known_files[i].eco;
			return known_files[i].kind;
		}
	if (is_requirements(path, base)) {
		if (eco)
			*eco = ECO_PIP;
		return DEPS_FILE_MANIFEST;
	}
	return DEPS_FILE_OTHER;
}

/* ----------------------------------------------------------------- bumps */

enum deps_bump deps_classify(enum deps_ecosystem eco, const char *from, const char *to)
{
	struct version a, b;

	if (!version_parse(&a, eco, from) || !version_parse(&b, eco, to))
		return BUMP_UNKNOWN;
	return version_distance(&a, &b);
}

/* ------------------------------------------------------------------- text */

struct span {
	const char *p, *end;
};

static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

/* The start of the line after the one that ends at e (its newline, or the end). */
static const char *next_line(const char *e, const char *end)
{
	return e < end ? e + 1 : end;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && is_blank(*p))
		p++;
	return p;
}

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

static bool is_one_of(char c, const char *set)
{
	return c && strchr(set, c);
}

/* PEP 503: lower case, runs of "-", "_" and "." one "-". */
static char *pep503(const char *name, size_t len)
{
	char *out = malloc(len + 1), *o = out;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i < len; i++) {
		if (is_one_of(name[i], "-_.")) {
			if (o == out || o[-1] != '-')
				*o++ = '-';
		} else {
			*o++ = (char)tolower((unsigned char)name[i]);
		}
	}
	*o = '\0';
	return out;
}

static bool same_name(const char *a, const char *b)
{
	char *x = pep503(a, strlen(a)), *y = pep503(b, strlen(b));
	bool same = x && y && !strcmp(x, y);

	free(x);
	free(y);
	return same;
}

/* Specs that differ only in spaces are the same spec. */
static bool same_spec(const char *a, const char *b)
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

/* One dependency as one side of a manifest declares it. */
struct dep {
	char *name;
	char *key;              /* what the sides are matched by: PEP 503 for pip, the name otherwise */
	char *table;            /* the table it is in: attributes of one entry meet there */
	char *version;          /* the version spec, or NULL */
	struct buf source;      /* git, path, ... as written, when there is no version */
	size_t order;
};

struct depmap {
	struct dep *items;
	size_t n, cap;
	enum deps_ecosystem eco;
	int error;              /* the first failure (memory): the reader stops adding */
	bool malformed;         /* the text could not be read at all: the manifest is skipped */
	char why[256];          /* and why, with the line when known */
};

static void depmap_release(struct depmap *map)
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
static void *malformed(struct depmap *map, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void *malformed(struct depmap *map, const char *fmt, ...)
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
	struct dep *dep, *items;
	size_t cap;

	if (map->n >= DEPS_ENTRIES_MAX)
		return malformed(map, "more than %d dependencies", DEPS_ENTRIES_MAX);
	if (len > DEPS_SPEC_MAX)
		return malformed(map, "a dependency name longer than %d bytes", DEPS_SPEC_MAX);
	if (map->n == map->cap) {
		cap = map->cap ? map->cap * 2 : 16;
		if (!(items = realloc(map->items, cap * sizeof(*items))))
			return nomem(map);
		map->items = items;
		map->cap = cap;
	}
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
		malformed(map, "the version of %.64s is longer than %d bytes", dep->name, DEPS_SPEC_MAX);
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

static const char *dep_spec(const struct dep *dep)
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

static void read_npm(struct depmap *map, const char *text, size_t len)
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
	for (i = 0; i < COUNT(npm_sections); i++) {
		if (!json_is_object(deps = json_object_get(root, npm_sections[i])))
			continue;
		json_object_foreach(deps, name, value) {
			if (!json_is_string(value))
				continue;
			if (!(dep = dep_entry(map, npm_sections[i], name, strlen(name))))
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

static void go_require(struct depmap *map, struct span path, struct span version)
{
	struct dep *dep = dep_entry(map, "require", path.p, (size_t)(path.end - path.p));

	if (dep)
		dep_set_version(map, dep, version.p, (size_t)(version.end - version.p));
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
				go_require(map, f[0], f[1]);
		} else if (n >= 2 && span_is(f[1], "(")) {
			block = span_is(f[0], "require") ? REQUIRE : OTHER;
		} else if (n >= 3 && span_is(f[0], "require")) {
			go_require(map, f[1], f[2]);
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
		return malformed(map, "larger than %d MiB", DEPS_MANIFEST_MAX / (1024 * 1024)), false;
	if (nul)
		return malformed(map, "a NUL byte, line %zu", line_of(text, nul)), false;
	if (!utf8_valid(text, len)) {
		const char *p = text;
		uint32_t cp;
		size_t n;

		while ((n = utf8_decode(&cp, p, (size_t)(text + len - p))))
			p += n;
		return malformed(map, "not valid UTF-8, line %zu", line_of(text, p)), false;
	}
	if ((eco == ECO_NPM || !strcmp(base, "Cargo.toml") || !strcmp(base, "pyproject.toml")) &&
	    !depth_ok(text, len, eco != ECO_NPM, &line))
		return malformed(map, "nested deeper than %d levels, line %zu", DEPS_DEPTH_MAX, line), false;
	return true;
}

static void read_manifest(struct depmap *map, const char *path, enum deps_ecosystem eco, const char *text,
			  size_t len)
{
	map->eco = eco;
	if (!text || !manifest_ok(map, path, eco, text, len))
		return;
	switch (eco) {
	case ECO_NPM:
		read_npm(map, text, len);
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
static int representatives(const struct depmap *map, struct dep ***out, size_t *n)
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

/* ------------------------------------------------------------- packages */

/* One side of a transition: absent (added or removed), a version spec, or a source that is no version. */
struct side {
	const char *spec;
	bool present, versioned;
};

static struct side side_of(const struct dep *dep)
{
	struct side s = { NULL, false, false };

	if (dep) {
		s.spec = dep_spec(dep);
		s.present = true;
		s.versioned = dep->version != NULL;
	}
	return s;
}

struct analysis {
	struct deps_analysis *out;
	size_t cap;
};

void deps_advisories_release(struct deps_package *p)
{
	size_t i;

	for (i = 0; i < p->nadvisories; i++) {
		free(p->advisories[i].id);
		free(p->advisories[i].summary);
		free(p->advisories[i].severity);
	}
	free(p->advisories);
	p->advisories = NULL;
	p->nadvisories = 0;
}

static void package_release(struct deps_package *p)
{
	free(p->name);
	free(p->manifest);
	free(p->from);
	free(p->to);
	free(p->from_version);
	free(p->to_version);
	deps_advisories_release(p);
	memset(p, 0, sizeof(*p));
}

static void package_remove(struct deps_analysis *out, size_t i)
{
	package_release(&out->packages[i]);
	memmove(&out->packages[i], &out->packages[i + 1], (out->npackages - i - 1) * sizeof(*out->packages));
	out->npackages--;
}

static char *dup_or_null(const char *s, bool *failed)
{
	char *copy;

	if (!s)
		return NULL;
	if (!(copy = strdup(s)))
		*failed = true;
	return copy;
}

/* The version a spec names, as the manifest writes it ("6.1.4.1", "1.0rc1"), or NULL. */
static char *version_text(const struct side *s, enum deps_ecosystem eco, struct version *v, bool *read,
			  bool *failed)
{
	*read = s->versioned && version_parse(v, eco, s->spec);
	return *read ? dup_or_null(v->text, failed) : NULL;
}

static int package_add(struct analysis *a, enum deps_ecosystem eco, const char *name, const char *manifest,
		       struct side from, struct side to)
{
	struct deps_analysis *out = a->out;
	struct deps_package *p, *packages;
	struct version fv, tv;
	bool failed = false, from_read, to_read;
	size_t cap;

	if (out->npackages == a->cap) {
		cap = a->cap ? a->cap * 2 : 8;
		if (!(packages = realloc(out->packages, cap * sizeof(*packages))))
			return error_nomem();
		out->packages = packages;
		a->cap = cap;
	}
	p = &out->packages[out->npackages++];
	memset(p, 0, sizeof(*p));
	p->ecosystem = eco;
	p->name = dup_or_null(name, &failed);
	p->manifest = dup_or_null(manifest, &failed);
	p->from = dup_or_null(from.spec, &failed);
	p->to = dup_or_null(to.spec, &failed);
	p->from_version = version_text(&from, eco, &fv, &from_read, &failed);
	p->to_version = version_text(&to, eco, &tv, &to_read, &failed);
	if (!from.present)
		p->bump = BUMP_ADDED;
	else if (!to.present)
		p->bump = BUMP_REMOVED;
	else
		p->bump = from.versioned && to.versioned ? deps_classify(eco, from.spec, to.spec) : BUMP_UNKNOWN;
	p->downgrade = from.present && to.present && from_read && to_read && version_compare(&tv, &fv) < 0;
	return failed ? error_nomem() : 0;
}

/*
 * A Go module's major version 2 and later is part of its path
 * ("github.com/x/y/v2", "gopkg.in/yaml.v3"): the length of the path
 * without it, which names the module across majors.
 */
static size_t go_base_len(const char *name)
{
	size_t n = strlen(name), i = n;

	while (i && isdigit((unsigned char)name[i - 1]))
		i--;
	if (i == n || i < 2 || name[i - 1] != 'v' || (name[i - 2] != '/' && name[i - 2] != '.'))
		return n;
	return i - 2;
}

static bool go_same_module(const char *a, const char *b)
{
	size_t n = go_base_len(a);

	return n == go_base_len(b) && !strncmp(a, b, n);
}

static int go_pair(struct analysis *a, size_t removed, size_t added)
{
	struct deps_package *r = &a->out->packages[removed], *n = &a->out->packages[added];
	struct side from = { r->from, true, r->from != NULL }, to = { n->to, true, n->to != NULL };
	int error;

	if ((error = package_add(a, ECO_GO, a->out->packages[added].name, a->out->packages[added].manifest,
				 from, to)) < 0)
		return error;
	package_remove(a->out, removed > added ? removed : added);
	package_remove(a->out, removed > added ? added : removed);
	return 0;
}

/*
 * A module removed under one major's path and added under another's is one
 * bump. The pair's transition goes to the end; position i is looked at
 * again, as the next package has moved into it.
 */
static int go_pair_majors(struct analysis *a, size_t start)
{
	struct deps_package *p;
	size_t i = start, j;
	int error;

	while (i < a->out->npackages) {
		for (j = start; a->out->packages[i].bump == BUMP_REMOVED && j < a->out->npackages; j++) {
			p = &a->out->packages[j];
			if (p->bump == BUMP_ADDED && go_same_module(p->name, a->out->packages[i].name))
				break;
		}
		if (a->out->packages[i].bump != BUMP_REMOVED || j == a->out->npackages) {
			i++;
			continue;
		}
		if ((error = go_pair(a, i, j)) < 0)
			return error;
	}
	return 0;
}

/* By name as people read them: "black" before "Django". */
static int package_by_name(const void *x, const void *y)
{
	const char *a = ((const struct deps_package *)x)->name, *b = ((const struct deps_package *)y)->name;
	int c = strcasecmp(a, b);

	return c ? c : strcmp(a, b);
}

/* The two sides matched by name: what changed, what came, what went. */
static int compare_sides(struct analysis *a, const struct deps_file *file, enum deps_ecosystem eco,
			 struct dep **old, size_t nold, struct dep **new, size_t nnew)
{
	size_t i = 0, j = 0;
	int c, error = 0;

	while (!error && (i < nold || j < nnew)) {
		c = i == nold ? 1 : j == nnew ? -1 : strcmp(old[i]->key, new[j]->key);
		if (c < 0) {
			error = package_add(a, eco, old[i]->name, file->path, side_of(old[i]), side_of(NULL));
			i++;
		} else if (c > 0) {
			error = package_add(a, eco, new[j]->name, file->path, side_of(NULL), side_of(new[j]));
			j++;
		} else {
			if (!same_spec(dep_spec(old[i]), dep_spec(new[j])) || !old[i]->version != !new[j]->version)
				error = package_add(a, eco, new[j]->name, file->path, side_of(old[i]),
						    side_of(new[j]));
			i++;
			j++;
		}
	}
	return error;
}

int deps_problem_add(struct deps_analysis *out, const char *path, const char *side, const char *why)
{
	char **grown = realloc(out->problems, (out->nproblems + 1) * sizeof(*grown));
	struct buf text = BUF_INIT;

	if (!grown)
		return error_nomem();
	out->problems = grown;
	if (buf_printf(&text, "%s (%s side): %s; its dependencies are left out", path, side, why) < 0)
		return error_nomem();
	out->problems[out->nproblems++] = buf_detach(&text);
	return 0;
}

static int compare_manifest(struct analysis *a, const struct deps_file *file, enum deps_ecosystem eco)
{
	struct depmap old = { .n = 0 }, new = { .n = 0 };
	struct dep **o = NULL, **n = NULL;
	size_t no, nn, start = a->out->npackages;
	int error;

	read_manifest(&old, file->path, eco, file->old_text, file->old_len);
	read_manifest(&new, file->path, eco, file->new_text, file->new_len);
	if ((error = old.error ? old.error : new.error) < 0)
		goto done;
	/* A side that cannot be read would make every dependency look added or removed: said, and skipped. */
	if (old.malformed || new.malformed) {
		error = deps_problem_add(a->out, file->path, old.malformed ? "old" : "new",
				    old.malformed ? old.why : new.why);
		goto done;
	}
	if ((error = representatives(&old, &o, &no)) < 0 || (error = representatives(&new, &n, &nn)) < 0)
		goto done;
	if ((error = compare_sides(a, file, eco, o, no, n, nn)) < 0)
		goto done;
	if (eco == ECO_GO && (error = go_pair_majors(a, start)) < 0)
		goto done;
	if (a->out->npackages > start)
		qsort(a->out->packages + start, a->out->npackages - start, sizeof(*a->out->packages),
		      package_by_name);
done:
	free(o);
	free(n);
	depmap_release(&old);
	depmap_release(&new);
	return error;
}

/* ----------------------------------------------------------------- bots */

static bool in_dir(const char *path, struct botcommit_span dir)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	return n == (size_t)(dir.end - dir.p) && (!n || !memcmp(path, dir.p, n));
}

/*
 * The ecosystem of a bump only a lock file shows: of the lock files in its
 * directory ("in /web"; the root without one), or else of all of them, or
 * else of the manifests; they must agree. The path is the file it is put on.
 */
static bool lock_ecosystem(const struct deps_file *files, size_t n, struct botcommit_span dir, enum deps_ecosystem *eco,
			   const char **path)
{
	enum deps_ecosystem e;
	enum deps_file_kind kind;
	bool found, ambiguous;
	int pass;
	size_t i;

	for (pass = 0; pass < 4; pass++) {
		found = ambiguous = false;
		for (i = 0; i < n; i++) {
			kind = deps_file_kind(files[i].path, &e);
			if (kind != (pass < 2 ? DEPS_FILE_LOCK : DEPS_FILE_MANIFEST))
				continue;
			if (pass % 2 == 0 && !in_dir(files[i].path, dir))
				continue;
			if (!found) {
				*eco = e;
				*path = files[i].path;
				found = true;
			} else if (e != *eco) {
				ambiguous = true;
			}
		}
		if (found)
			return !ambiguous;
	}
	return false;
}

/* A Dependabot transition no manifest shows: the lock file alone moved it. */
static int lock_only_bump(struct analysis *a, const struct botcommit_bump *b, const struct deps_file *files,
			  size_t nfiles)
{
	char *name = strndup(b->name.p, (size_t)(b->name.end - b->name.p));
	char *from = strndup(b->from.p, (size_t)(b->from.end - b->from.p));
	char *to = strndup(b->to.p, (size_t)(b->to.end - b->to.p));
	struct botcommit_span dir = b->dir;
	enum deps_ecosystem eco;
	const char *path;
	int error = 0;
	size_t i;

	if (!name || !from || !to) {
		error = error_nomem();
		goto done;
	}
	for (i = 0; i < a->out->npackages; i++)
		if (same_name(a->out->packages[i].name, name))
			goto done;
	while (dir.p < dir.end && *dir.p == '/')
		dir.p++;
	while (dir.end > dir.p && dir.end[-1] == '/')
		dir.end--;
	if (lock_ecosystem(files, nfiles, dir, &eco, &path))
		error = package_add(a, eco, name, path, (struct side){ from, true, true },
				    (struct side){ to, true, true });
done:
	free(name);
	free(from);
	free(to);
	return error;
}

static int set_bot(struct deps_analysis *out, const char *bot)
{
	if (out->bot)
		return 0;
	return (out->bot = strdup(bot)) ? 0 : error_nomem();
}

static bool bot_branch(const char *branch, const char *bot)
{
	size_t n = strlen(bot);

	if (!strncmp(branch, "refs/heads/", 11))
		branch += 11;
	return !strncmp(branch, bot, n) && branch[n] == '/';
}

static int read_messages(struct analysis *a, const char *branch, const char *messages,
			 const struct deps_file *files, size_t nfiles)
{
	const char *p, *end, *e;
	struct botcommit_bump b;
	int kind, error = 0;

	if (branch && bot_branch(branch, "dependabot"))
		error = set_bot(a->out, "dependabot");
	else if (branch && bot_branch(branch, "renovate"))
		error = set_bot(a->out, "renovate");
	if (!messages)
		return error;
	end = messages + strlen(messages);
	for (p = messages; !error && p < end; p = next_line(e, end)) {
		e = line_end(p, end);
		p = skip_blank(p, e);
		if ((kind = botcommit_dependabot(&b, p, e))) {
			if (!(error = set_bot(a->out, "dependabot")) && kind == 2)
				error = lock_only_bump(a, &b, files, nfiles);
		} else if (botcommit_renovate(p, e)) {
			error = set_bot(a->out, "renovate");
		}
	}
	return error;
}

/* ------------------------------------------------------------- breaking */

static const char *find_ci(const char *p, const char *end, const char *needle)
{
	size_t n = strlen(needle);

	for (; (size_t)(end - p) >= n; p++)
		if (!strncasecmp(p, needle, n))
			return p;
	return NULL;
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_';
}

/* name stands as a word of its own in [p, end) ("@types/express" does not name express). */
static bool names_package(const char *p, const char *end, const char *name)
{
	size_t n = strlen(name);
	const char *start = p, *hit;

	if (!n)
		return false;
	for (; (hit = find_ci(p, end, name)); p = hit + 1) {
		if (hit != start && (name_char(hit[-1]) || is_one_of(hit[-1], "./@")))
			continue;
		/* "lodash-es" and "lodash.merge" are other packages; "lodash." ends a sentence. */
		if (hit + n < end && (name_char(hit[n]) || (hit[n] == '.' && hit + n + 1 < end &&
							    isalnum((unsigned char)hit[n + 1]))))
			continue;
		return true;
	}
	return false;
}

static bool blank_line(const char *p, const char *e)
{
	return skip_blank(p, e) == e;
}

/*
 * Breaking: a major bump, or a paragraph of the messages that says
 * BREAKING (in capitals) or "breaking change" (any case) and names the package.
 */
static void mark_breaking(struct deps_analysis *out, const char *messages)
{
	const char *p, *e, *end, *start;
	size_t i;

	for (i = 0; i < out->npackages; i++)
		out->packages[i].breaking = out->packages[i].bump == BUMP_MAJOR;
	if (!messages)
		return;
	end = messages + strlen(messages);
	for (p = messages; p < end;) {
		while (p < end && blank_line(p, e = line_end(p, end)))
			p = next_line(e, end);
		for (start = p; p < end && !blank_line(p, e = line_end(p, end));)
			p = next_line(e, end);
		if (start >= p || (!memmem(start, (size_t)(p - start), "BREAKING", 8) &&
				   !find_ci(start, p, "breaking change")))
			continue;
		for (i = 0; i < out->npackages; i++)
			if (!out->packages[i].breaking && names_package(start, p, out->packages[i].name))
				out->packages[i].breaking = true;
	}
}

/* ----------------------------------------------------------- the analysis */

void deps_analysis_release(struct deps_analysis *analysis)
{
	size_t i;

	for (i = 0; i < analysis->npackages; i++)
		package_release(&analysis->packages[i]);
	free(analysis->packages);
	free(analysis->bot);
	free(analysis->reason);
	for (i = 0; i < analysis->nproblems; i++)
		free(analysis->problems[i]);
	free(analysis->problems);
	memset(analysis, 0, sizeof(*analysis));
}

int deps_analyze(struct deps_analysis *out, const struct deps_file *files, size_t nfiles,
		 const char *branch, const char *messages)
{
	struct analysis a = { out, 0 };
	enum deps_ecosystem eco;
	enum deps_file_kind kind;
	size_t i, known;
	int error = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < nfiles; i++) {
		out->files++;
		if ((kind = deps_file_kind(files[i].path, &eco)) == DEPS_FILE_OTHER)
			continue;
		out->ecosystems |= 1u << eco;
		if (kind == DEPS_FILE_LOCK) {
			out->locks++;
			continue;
		}
		out->manifests++;
		if ((error = compare_manifest(&a, &files[i], eco)) < 0)
			goto done;
	}
	if ((error = read_messages(&a, branch, messages, files, nfiles)) < 0)
		goto done;
	mark_breaking(out, messages);
	known = out->manifests + out->locks;
	out->dependency_only = out->files && (known == out->files || (out->bot && 2 * known > out->files));
	error = deps_confidence_compute(out);
done:
	if (error < 0)
		deps_analysis_release(out);
	return error;
}

/* ------------------------------------------------------------ confidence */

/* Phrases that make a reason: "a", "a and b", "a, b and c", "a, b, c and 2 more". */
struct phrases {
	char **v;
	size_t n, cap;
};

static int phrase_add(struct phrases *list, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int phrase_add(struct phrases *list, const char *fmt, ...)
{
	struct buf text = BUF_INIT;
	char **v;
	va_list ap;
	int error;

	if (list->n == list->cap) {
		if (!(v = realloc(list->v, (list->cap ? list->cap * 2 : 4) * sizeof(*v))))
			return error_nomem();
		list->v = v;
		list->cap = list->cap ? list->cap * 2 : 4;
	}
	va_start(ap, fmt);
	error = buf_vprintf(&text, fmt, ap);
	va_end(ap);
	if (error < 0)
		return error;
	if (!(list->v[list->n] = buf_detach(&text)))
		return error_nomem();
	list->n++;
	return 0;
}

static void phrases_release(struct phrases *list)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		free(list->v[i]);
	free(list->v);
	memset(list, 0, sizeof(*list));
}

#define REASON_NAMES 3

static int phrases_join(struct buf *out, const struct phrases *list)
{
	size_t i, shown = list->n > REASON_NAMES ? REASON_NAMES : list->n;
	int error = 0;

	for (i = 0; i < shown && !error; i++)
		error = buf_printf(out, "%s%s", !i ? "" : i + 1 == shown && shown == list->n ? " and " : ", ",
				   list->v[i]);
	if (!error && shown < list->n)
		error = buf_printf(out, " and %zu more", list->n - shown);
	return error;
}

/* Critical advisories first, then high ones, each "critical advisory GHSA-x in lodash". */
static int severe_phrases(struct phrases *list, const struct deps_analysis *an)
{
	static const char *const levels[] = { "critical", "high" };
	const struct deps_advisory *adv;
	size_t l, i, k;
	int error = 0;

	for (l = 0; l < COUNT(levels); l++)
		for (i = 0; i < an->npackages; i++)
			for (k = 0; k < an->packages[i].nadvisories && !error; k++) {
				adv = &an->packages[i].advisories[k];
				if (adv->severity && !strcasecmp(adv->severity, levels[l]))
					error = phrase_add(list, "%s advisory %s in %s", levels[l],
							   adv->id ? adv->id : "(no id)", an->packages[i].name);
			}
	return error;
}

static int other_phrases(struct phrases *majors, struct phrases *advisories, const struct deps_analysis *an)
{
	const struct deps_advisory *adv;
	const char *sev;
	size_t i, k;
	int error = 0;

	for (i = 0; i < an->npackages && !error; i++)
		if (an->packages[i].bump == BUMP_MAJOR)
			error = phrase_add(majors, "%s", an->packages[i].name);
	for (i = 0; i < an->npackages; i++)
		for (k = 0; k < an->packages[i].nadvisories && !error; k++) {
			adv = &an->packages[i].advisories[k];
			sev = adv->severity && *adv->severity && strcasecmp(adv->severity, "unknown") ? adv->severity
												      : NULL;
			error = phrase_add(advisories, "%s%sadvisory %s in %s", sev ? sev : "", sev ? " " : "",
					   adv->id ? adv->id : "(no id)", an->packages[i].name);
		}
	return error;
}

/* Why the confidence is high: which bumps, and what could not be compared. */
static int high_reason(struct buf *out, const struct deps_analysis *an)
{
	struct phrases unknown = { NULL, 0, 0 };
	size_t i, patch = 0, minor = 0;
	int error = 0;

	if (!an->npackages)
		return buf_puts(out, "no dependency changes");
	for (i = 0; i < an->npackages && !error; i++) {
		patch += an->packages[i].bump == BUMP_PATCH;
		minor += an->packages[i].bump == BUMP_MINOR;
		if (an->packages[i].bump == BUMP_UNKNOWN)
			error = phrase_add(&unknown, "%s", an->packages[i].name);
	}
	if (!error && patch + minor == an->npackages)
		error = buf_printf(out, "%s bump%s, no advisories",
				   patch && minor ? "patch and minor" : patch ? "patch" : "minor",
				   an->npackages > 1 ? "s" : "");
	else if (!error)
		error = buf_puts(out, "no major bumps, no advisories");
	if (!error && unknown.n && !(error = buf_puts(out, "; versions of ")) &&
	    !(error = phrases_join(out, &unknown)))
		error = buf_puts(out, " not comparable");
	phrases_release(&unknown);
	return error;
}

int deps_confidence_compute(struct deps_analysis *analysis)
{
	struct phrases high = { NULL, 0, 0 }, majors = { NULL, 0, 0 }, advisories = { NULL, 0, 0 };
	struct buf reason = BUF_INIT;
	int error;

	if ((error = severe_phrases(&high, analysis)) < 0 ||
	    (error = other_phrases(&majors, &advisories, analysis)) < 0)
		goto done;
	if (high.n) {
		analysis->confidence = CONFIDENCE_LOW;
		error = phrases_join(&reason, &high);
	} else if (majors.n || advisories.n) {
		analysis->confidence = CONFIDENCE_MEDIUM;
		if (majors.n && !(error = buf_printf(&reason, "major version bump%s in ", majors.n > 1 ? "s" : "")))
			error = phrases_join(&reason, &majors);
		if (!error && advisories.n && !(error = buf_puts(&reason, majors.n ? "; " : "")))
			error = phrases_join(&reason, &advisories);
	} else {
		analysis->confidence = CONFIDENCE_HIGH;
		error = high_reason(&reason, analysis);
	}
	if (error < 0)
		goto done;
	free(analysis->reason);
	if (!(analysis->reason = buf_detach(&reason)))
		error = error_nomem();
done:
	buf_release(&reason);
	phrases_release(&high);
	phrases_release(&majors);
	phrases_release(&advisories);
	return error;
}

/* ----------------------------------------------------------------- prompt */

/* Text on one line of markdown: line breaks and control characters become spaces; in a cell, pipes are escaped. */
static int put_text(struct buf *out, const char *s, bool cell)
{
	int error = 0;

	if (!s || !*s)
		return buf_puts(out, cell ? "-" : "");
	for (; *s && !error; s++) {
		if (cell && *s == '|')
			error = buf_puts(out, "\\|");
		else
			error = buf_putc(out, (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s);
	}
	return error;
}

/* "bumps 2 dependencies, adds 1 and removes 1" */
static int put_counts(struct buf *out, const struct deps_analysis *an)
{
	static const char *const verbs[] = { "bumps", "adds", "removes" };
	size_t count[3] = { 0, 0, 0 }, i, parts = 0, done = 0;
	int error = 0;

	for (i = 0; i < an->npackages; i++)
		count[an->packages[i].bump == BUMP_ADDED ? 1 : an->packages[i].bump == BUMP_REMOVED ? 2 : 0]++;
	for (i = 0; i < 3; i++)
		parts += count[i] > 0;
	for (i = 0; i < 3 && !error; i++) {
		if (!count[i])
			continue;
		error = buf_printf(out, "%s%s %zu%s", !done ? "" : done + 1 == parts ? " and " : ", ", verbs[i],
				   count[i], done ? "" : count[i] == 1 ? " dependency" : " dependencies");
		done++;
	}
	return error;
}

static int put_ecosystems(struct buf *out, const struct deps_analysis *an)
{
	bool seen[ECO_COUNT] = { false };
	size_t i, n = 0;
	int error = 0;

	for (i = 0; i < an->npackages; i++)
		if ((unsigned)an->packages[i].ecosystem < ECO_COUNT)
			seen[an->packages[i].ecosystem] = true;
	for (i = 0; i < ECO_COUNT && !error; i++)
		if (seen[i])
			error = buf_printf(out, "%s%s", n++ ? ", " : " (",
					   deps_ecosystem_name((enum deps_ecosystem)i));
	if (!error && n)
		error = buf_putc(out, ')');
	return error;
}

static int put_advisory_count(struct buf *out, const struct deps_package *p)
{
	size_t i, fixed = 0;

	if (!p->nadvisories)
		return buf_puts(out, "none");
	for (i = 0; i < p->nadvisories; i++)
		fixed += p->advisories[i].fixed;
	if (!fixed)
		return buf_printf(out, "%zu open", p->nadvisories);
	if (fixed == p->nadvisories)
		return buf_printf(out, "%zu fixed", fixed);
	return buf_printf(out, "%zu fixed, %zu open", fixed, p->nadvisories - fixed);
}

static int put_row(struct buf *out, const struct deps_package *p)
{
	int error;

	if ((error = buf_puts(out, "| ")) < 0 || (error = put_text(out, p->name, true)) < 0 ||
	    (error = buf_printf(out, " | %s | ", deps_ecosystem_name(p->ecosystem))) < 0 ||
	    (error = put_text(out, p->from, true)) < 0 || (error = buf_puts(out, " | ")) < 0 ||
	    (error = put_text(out, p->to, true)) < 0 ||
	    (error = buf_printf(out, " | %s%s | ", deps_bump_name(p->bump),
				p->downgrade ? " (downgrade)" : "")) < 0 ||
	    (error = put_advisory_count(out, p)) < 0)
		return error;
	return buf_printf(out, " | %s |\n", p->breaking ? "yes" : "no");
}

static int put_advisories(struct buf *out, const struct deps_analysis *an)
{
	const struct deps_advisory *adv;
	const struct deps_package *p;
	bool any = false;
	size_t i, k;
	int error = 0;

	for (i = 0; i < an->npackages && !error; i++)
		for (p = &an->packages[i], k = 0; k < p->nadvisories && !error; k++) {
			adv = &p->advisories[k];
			if (!any && (error = buf_puts(out, "\nAdvisories:\n\n")) < 0)
				break;
			any = true;
			if ((error = buf_puts(out, "- ")) < 0 || (error = put_text(out, adv->id, false)) < 0 ||
			    (error = buf_puts(out, " in ")) < 0 || (error = put_text(out, p->name, false)) < 0 ||
			    (error = buf_printf(out, " (%s, %s): ", adv->severity ? adv->severity : "unknown",
						adv->fixed ? "fixed by this change" : "still open")) < 0 ||
			    (error = put_text(out, adv->summary, false)) < 0)
				break;
			error = buf_putc(out, '\n');
		}
	return error;
}

static int put_confidence(struct buf *out, const struct deps_analysis *an)
{
	const char *name = deps_confidence_name(an->confidence);
	int error = buf_puts(out, "\nMerge confidence: ");

	for (; *name && !error; name++)
		error = buf_putc(out, (char)toupper((unsigned char)*name));
	if (!error && an->reason && *an->reason)
		error = buf_printf(out, " (%s)", an->reason);
	return error ? error : buf_putc(out, '\n');
}

static const char *bot_title(const char *bot)
{
	return !strcmp(bot, "dependabot") ? "Dependabot" : !strcmp(bot, "renovate") ? "Renovate" : bot;
}

int deps_prompt_section(struct buf *out, const struct deps_analysis *analysis)
{
	size_t i;
	int error;

	buf_clear(out);
	if ((error = buf_put(out, "", 0)) < 0 || !analysis->npackages)
		return error;
	if ((error = buf_puts(out, "## Dependencies\n\nThis change ")) < 0 ||
	    (error = put_counts(out, analysis)) < 0 || (error = put_ecosystems(out, analysis)) < 0)
		return error;
	if (analysis->bot && (error = buf_printf(out, ", made by %s", bot_title(analysis->bot))) < 0)
		return error;
	if ((error = buf_puts(out, ". Review it with a dependency-specific focus.\n\n"
				   "| name | ecosystem | from | to | bump | advisories | breaking |\n"
				   "|---|---|---|---|---|---|---|\n")) < 0)
		return error;
	for (i = 0; i < analysis->npackages; i++)
		if ((error = put_row(out, &analysis->packages[i])) < 0)
			return error;
	if ((error = put_advisories(out, analysis)) < 0)
		return error;
	if ((error = buf_puts(out, "\nFocus on: breaking API changes in the code that uses them, deprecated usage, "
				   "security advisories, and lock file consistency.\n"
				   "Do not review lock files line by line.\n")) < 0)
		return error;
	return put_confidence(out, analysis);
}

bool deps_is_lock_file(const char *path)
{
	const char *base = strrchr(path, '/');
	enum deps_ecosystem eco;

	base = base ? base + 1 : path;
	return deps_file_kind(path, &eco) == DEPS_FILE_LOCK || !strcmp(base, "composer.lock");
}
