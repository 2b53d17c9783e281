/*
 * Python's lock files. poetry.lock, uv.lock and pdm.lock are TOML, each an
 * array of [[package]] tables with name and version: Poetry's
 * dependencies are the keys of [package.dependencies], uv's the names of
 * its dependencies (and optional- and dev-dependencies) tables, PDM's
 * PEP 508 requirement strings. uv records the workspace's own packages
 * (source editable or virtual), whose dependencies are the direct ones;
 * Poetry and PDM do not (pyproject.toml says). Pipfile.lock is JSON: the
 * "default" and "develop" objects, each package's "version" "==1.2.3", no
 * graph; the direct ones are in the Pipfile (TOML).
 */
#include "lock_internal.h"
#include "deps_manifest.h"
#include "lock_json.h"
#include "tomlc17.h"

#include <string.h>

enum python_lock { POETRY, UV, PDM };

static size_t len_of(toml_datum_t d)
{
	return d.type == TOML_STRING ? (size_t)d.u.str.len : 0;
}

/* A package's dependencies in uv's shape: [{ name = "x" }, ...]. */
static void uv_edges(struct lock *lock, size_t pkg, toml_datum_t list, bool root)
{
	toml_datum_t name;
	int i;

	if (list.type != TOML_ARRAY)
		return;
	for (i = 0; i < list.u.arr.size; i++) {
		name = toml_get(list.u.arr.elem[i], "name");
		if (list.u.arr.elem[i].type != TOML_TABLE || name.type != TOML_STRING)
			continue;
		if (root)
			lock_root(lock, name.u.s, len_of(name));
		lock_edge(lock, pkg, name.u.s, len_of(name));
	}
}

/* uv's [package.optional-dependencies] and [package.dev-dependencies]: tables of such lists. */
static void uv_groups(struct lock *lock, size_t pkg, toml_datum_t table, bool root)
{
	int i;

	if (table.type != TOML_TABLE)
		return;
	for (i = 0; i < table.u.tab.size; i++)
		uv_edges(lock, pkg, table.u.tab.value[i], root);
}

/* A uv package that is the project or a workspace member: its source is editable or virtual. */
static bool uv_member(toml_datum_t source)
{
	return source.type == TOML_TABLE &&
	       (toml_get(source, "editable").type == TOML_STRING || toml_get(source, "virtual").type == TOML_STRING);
}

/* A uv package that is no registry's: a path, a directory, a git checkout, a URL (OSV knows PyPI's). */
static bool uv_local(toml_datum_t source)
{
	return source.type == TOML_TABLE && toml_get(source, "registry").type != TOML_STRING;
}

static void pdm_edges(struct lock *lock, size_t pkg, toml_datum_t list)
{
	toml_datum_t d;
	size_t n;
	int i;

	if (list.type != TOML_ARRAY)
		return;
	for (i = 0; i < list.u.arr.size; i++) {
		d = list.u.arr.elem[i];
		if (d.type == TOML_STRING && (n = lock_pep508_name(d.u.s, len_of(d))))
			lock_edge(lock, pkg, d.u.s, n);
	}
}

static void poetry_edges(struct lock *lock, size_t pkg, toml_datum_t table)
{
	int i;

	if (table.type != TOML_TABLE)
		return;
	for (i = 0; i < table.u.tab.size; i++)
		lock_edge(lock, pkg, table.u.tab.key[i], (size_t)table.u.tab.len[i]);
}

static void read_package(struct lock *lock, enum python_lock kind, toml_datum_t p, int index)
{
	toml_datum_t name = toml_get(p, "name"), version = toml_get(p, "version"), source = toml_get(p, "source");
	bool member = kind == UV && uv_member(source);
	size_t pkg;

	if (p.type != TOML_TABLE || name.type != TOML_STRING) {
		lock_malformed(lock, "package %d has no name", index + 1);
		return;
	}
	/* The project itself, and what no registry serves, have no version OSV knows. */
	if (member || (kind == UV && uv_local(source)) || version.type != TOML_STRING)
		pkg = lock_add(lock, name.u.s, len_of(name), NULL, 0);
	else
		pkg = lock_add(lock, name.u.s, len_of(name), version.u.s, len_of(version));
	if (pkg == SIZE_MAX)
		return;
	if (kind == POETRY) {
		poetry_edges(lock, pkg, toml_get(p, "dependencies"));
	} else if (kind == PDM) {
		pdm_edges(lock, pkg, toml_get(p, "dependencies"));
	} else {
		uv_edges(lock, pkg, toml_get(p, "dependencies"), member);
		uv_groups(lock, pkg, toml_get(p, "optional-dependencies"), member);
		uv_groups(lock, pkg, toml_get(p, "dev-dependencies"), member);
	}
}

static void read_toml_lock(struct lock *lock, enum python_lock kind, const char *text, size_t len)
{
	struct toml_result_t *doc = lock_toml_parse(lock, text, len);
	toml_datum_t packages;
	int i;

	if (!doc)
		return;
	packages = toml_get(doc->toptab, "package");
	if (packages.type != TOML_ARRAY && packages.type != TOML_UNKNOWN)
		lock_malformed(lock, "\"package\" is not an array of tables");
	for (i = 0; packages.type == TOML_ARRAY && i < packages.u.arr.size && !lock_failed(lock); i++)
		read_package(lock, kind, packages.u.arr.elem[i], i);
	deps_toml_free(doc);
}

/* ------------------------------------------------------------ Pipfile.lock */

static void pipfile_section(struct json_pull *r, struct lock *lock)
{
	struct span key, value;
	size_t pkg;

	if (!json_pull_object(r))
		return json_pull_skip(r);
	while (json_pull_member(r, &key) && !lock_failed(lock)) {
		if ((pkg = lock_add(lock, key.p, (size_t)(key.end - key.p), NULL, 0)) == SIZE_MAX)
			return;
		if (!json_pull_object(r)) {
			json_pull_skip(r);
			continue;
		}
		while (json_pull_member(r, &key)) {
			/* "==2.31.0"; a package from git or a path has none. */
			if (span_eq(key, "version") && json_pull_string(r, &value)) {
				if (value.end - value.p > 2 && !memcmp(value.p, "==", 2))
					value.p += 2 + (value.end - value.p > 3 && value.p[2] == '=');
				lock_set_version(lock, pkg, value.p, (size_t)(value.end - value.p));
			} else {
				json_pull_skip(r);
			}
		}
	}
}

static void read_pipfile_lock(struct lock *lock, const char *text, size_t len)
{
	struct json_pull r;
	struct span key;

	json_pull_init(&r, text, len, false);
	if (!json_pull_object(&r)) {
		if (!r.failed)
			json_pull_fail(&r, "not a JSON object");
	}
	while (!r.failed && json_pull_member(&r, &key) && !lock_failed(lock)) {
		if (span_eq(key, "default") || span_eq(key, "develop"))
			pipfile_section(&r, lock);
		else
			json_pull_skip(&r);
	}
	if (!r.failed && !json_pull_end(&r))
		json_pull_fail(&r, "text after the end of the object");
	if (r.failed)
		lock_malformed(lock, "not valid JSON, %s", r.why);
	json_pull_release(&r);
}

void lock_read_python(struct lock *lock, const char *base, const char *text, size_t len)
{
	if (!strcmp(base, "Pipfile.lock"))
		read_pipfile_lock(lock, text, len);
	else
		read_toml_lock(lock, !strcmp(base, "uv.lock") ? UV : !strcmp(base, "pdm.lock") ? PDM : POETRY, text, len);
}

void lock_read_pipfile(struct lock *lock, const char *text, size_t len)
{
	static const char *const sections[] = { "packages", "dev-packages" };
	struct toml_result_t *doc = lock_toml_parse(lock, text, len);
	toml_datum_t table;
	size_t s;
	int i;

	if (!doc)
		return;
	for (s = 0; s < COUNT(sections); s++) {
		table = toml_get(doc->toptab, sections[s]);
		for (i = 0; table.type == TOML_TABLE && i < table.u.tab.size; i++)
			lock_root(lock, table.u.tab.key[i], (size_t)table.u.tab.len[i]);
	}
	deps_toml_free(doc);
}
