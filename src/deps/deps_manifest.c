/* Manifests read into their dependencies (depmap.c): npm, Go, PyPI's requirements, RubyGems, Composer; the TOML ones in manifest_toml.c. */
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

static bool span_is(struct span s, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(s.end - s.p) == n && !memcmp(s.p, word, n);
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

/* ------------------------------------------------------------------ PyPI */

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
	depmap_requirement(map, "requirements", p, (size_t)(end - p));
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
			depmap_nomem(map);
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
		depmap_nomem(map);
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
 * The deepest nesting of brackets and braces outside strings, counted in
 * one pass before jansson (which recurses) is handed the text, so that it
 * is never given 100,000 levels. False with the line of the first bracket
 * past the limit. (tomlc17 bounds its own: deps_toml_parse.)
 */
static bool depth_ok(const char *text, size_t len, size_t *line)
{
	const char *p = text, *end = text + len;
	int depth = 0;

	while (p < end) {
		if (*p == '"') {
			p = json_string_end(p, end);
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
static bool manifest_ok(struct depmap *map, enum deps_ecosystem eco, const char *text, size_t len)
{
	const char *nul = memchr(text, '\0', len);
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
	if ((eco == ECO_NPM || eco == ECO_COMPOSER) && !depth_ok(text, len, &line))
		return depmap_malformed(map, "nested deeper than %d levels, line %zu", DEPS_DEPTH_MAX, line), false;
	return true;
}

void depmap_read(struct depmap *map, const char *path, enum deps_ecosystem eco, const char *text,
			  size_t len)
{
	map->eco = eco;
	if (!text || !manifest_ok(map, eco, text, len))
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
		depmap_read_toml(map, true, text, len);
		break;
	case ECO_PIP:
		if (!strcmp(base_name(path), "pyproject.toml"))
			depmap_read_toml(map, false, text, len);
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
