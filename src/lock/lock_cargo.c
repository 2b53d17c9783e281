/*
 * Cargo.lock (TOML; versions 1 to 4): an array of [[package]] tables with
 * name, version, source and dependencies, each "name", "name version" or
 * "name version (source)". A package without a source is the workspace's
 * own: its dependencies are the direct ones, and it has no version that
 * crates.io knows. Version 1's [root] table is such a package.
 */
#include "lock_internal.h"
#include "deps_manifest.h"
#include "tomlc17.h"

#include <string.h>

static void read_package(struct lock *lock, toml_datum_t p, bool root, int index)
{
	toml_datum_t name = toml_get(p, "name"), version = toml_get(p, "version"), deps = toml_get(p, "dependencies");
	bool member = root || toml_get(p, "source").type != TOML_STRING;
	size_t pkg, n;
	int i;

	if (p.type != TOML_TABLE || name.type != TOML_STRING) {
		lock_malformed(lock, "package %d has no name", index + 1);
		return;
	}
	if (member || version.type != TOML_STRING)
		pkg = lock_add(lock, name.u.s, (size_t)name.u.str.len, NULL, 0);
	else
		pkg = lock_add(lock, name.u.s, (size_t)name.u.str.len, version.u.s, (size_t)version.u.str.len);
	for (i = 0; pkg != SIZE_MAX && deps.type == TOML_ARRAY && i < deps.u.arr.size; i++) {
		toml_datum_t d = deps.u.arr.elem[i];

		if (d.type != TOML_STRING)
			continue;
		/* The name is the first word. */
		n = strcspn(d.u.s, " ");
		if (member)
			lock_root(lock, d.u.s, n);
		lock_edge(lock, pkg, d.u.s, n);
	}
}

void lock_read_cargo(struct lock *lock, const char *text, size_t len)
{
	struct toml_result_t *doc = lock_toml_parse(lock, text, len);
	toml_datum_t packages, root;
	int i;

	if (!doc)
		return;
	packages = toml_get(doc->toptab, "package");
	if (packages.type != TOML_ARRAY && packages.type != TOML_UNKNOWN)
		lock_malformed(lock, "\"package\" is not an array of tables");
	if ((root = toml_get(doc->toptab, "root")).type == TOML_TABLE)
		read_package(lock, root, true, -1);
	for (i = 0; packages.type == TOML_ARRAY && i < packages.u.arr.size && !lock_failed(lock); i++)
		read_package(lock, packages.u.arr.elem[i], false, i);
	deps_toml_free(doc);
}
