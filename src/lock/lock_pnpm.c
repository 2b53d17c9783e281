/*
 * pnpm-lock.yaml, lockfile versions 5 to 9. The direct dependencies are
 * each importer's (importers: ".": dependencies: name: { specifier,
 * version }), or, in a version 5 or 6 file of one project, the top
 * level's dependencies, devDependencies and optionalDependencies. The
 * packages are the keys of "packages" and, from version 9, "snapshots":
 * "/name@1.2.3(peer@4.5.6)" (version 6), "name@1.2.3(peer@4.5.6)"
 * (version 9), "/name/1.2.3_peer@4.5.6" (version 5), each with its
 * dependencies and optionalDependencies.
 */
#include "lock_internal.h"
#include "lock_yaml.h"

#include <string.h>

static bool is_dependency_section(struct span key)
{
	return span_eq(key, "dependencies") || span_eq(key, "devDependencies") ||
	       span_eq(key, "optionalDependencies");
}

/* The names of a mapping of dependencies: roots (pkg SIZE_MAX) or a package's edges. */
static void read_names(struct yaml_pull *y, struct lock *lock, size_t pkg)
{
	struct span key;

	if (!yaml_pull_mapping(y))
		return;
	while (yaml_pull_key(y, &key) && !lock_failed(lock)) {
		if (pkg == SIZE_MAX)
			lock_root(lock, key.p, (size_t)(key.end - key.p));
		else
			lock_edge(lock, pkg, key.p, (size_t)(key.end - key.p));
		yaml_pull_skip(y);
	}
}

/* An importer: its sections of direct dependencies. */
static void read_importer(struct yaml_pull *y, struct lock *lock)
{
	struct span key;

	if (!yaml_pull_mapping(y))
		return;
	while (yaml_pull_key(y, &key) && !lock_failed(lock)) {
		if (is_dependency_section(key))
			read_names(y, lock, SIZE_MAX);
		else
			yaml_pull_skip(y);
	}
}

static void read_importers(struct yaml_pull *y, struct lock *lock)
{
	struct span key;

	if (!yaml_pull_mapping(y))
		return;
	while (yaml_pull_key(y, &key) && !lock_failed(lock))
		read_importer(y, lock);
}

/* A package's key into its name and version: false for what is no registry's version ("link:", "file:"). */
static bool package_key(struct span k, struct span *name, struct span *version)
{
	const char *p, *at = NULL, *slash = NULL;

	if (k.p < k.end && *k.p == '/')
		k.p++;
	/* The peers in parentheses (6, 9) or after "_" (5) are no part of the version. */
	for (p = k.p; p < k.end && *p != '('; p++)
		;
	k.end = p;
	for (p = k.p + 1; p < k.end; p++)
		if (*p == '@')
			at = p;
	if (!at) {
		/* Version 5: "name/1.2.3", "@scope/name/1.2.3_peer@1". */
		for (p = k.p + 1; p < k.end; p++)
			if (*p == '/')
				slash = p;
		if (!slash)
			return false;
		at = slash;
		for (p = at; p < k.end && *p != '_'; p++)
			;
		k.end = p;
	}
	name->p = k.p;
	name->end = at;
	version->p = at + 1;
	version->end = k.end;
	return name->end > name->p && version->end > version->p && !memchr(version->p, ':', (size_t)(version->end - version->p));
}

static void read_packages(struct yaml_pull *y, struct lock *lock)
{
	struct span key, name, version, field;
	size_t pkg;

	if (!yaml_pull_mapping(y))
		return;
	while (yaml_pull_key(y, &key) && !lock_failed(lock)) {
		if (!package_key(key, &name, &version)) {
			yaml_pull_skip(y);
			continue;
		}
		if ((pkg = lock_add(lock, name.p, (size_t)(name.end - name.p), version.p,
				    (size_t)(version.end - version.p))) == SIZE_MAX || !yaml_pull_mapping(y))
			continue;
		while (yaml_pull_key(y, &field) && !lock_failed(lock)) {
			if (span_eq(field, "dependencies") || span_eq(field, "optionalDependencies"))
				read_names(y, lock, pkg);
			else
				yaml_pull_skip(y);
		}
	}
}

/* One document's sections. */
static void read_document(struct yaml_pull *y, struct lock *lock)
{
	struct span key;

	while (yaml_pull_key(y, &key) && !lock_failed(lock)) {
		if (span_eq(key, "importers"))
			read_importers(y, lock);
		else if (is_dependency_section(key))
			read_names(y, lock, SIZE_MAX);
		else if (span_eq(key, "packages") || span_eq(key, "snapshots"))
			read_packages(y, lock);
		else
			yaml_pull_skip(y);
	}
}

void lock_read_pnpm(struct lock *lock, const char *text, size_t len)
{
	struct yaml_pull y;

	/* pnpm 11 writes two documents: its own tools' packages, then the project's. */
	if (yaml_pull_init(&y, text, len))
		while (!lock_failed(lock) && yaml_pull_document(&y))
			read_document(&y, lock);
	if (y.failed && !lock_failed(lock))
		lock_malformed(lock, "not valid YAML, %s", y.why);
	yaml_pull_release(&y);
}
