/*
 * package-lock.json and npm-shrinkwrap.json, lockfile versions 1, 2 and 3
 * (npm's docs, "package-lock.json"). Versions 2 and 3 have "packages",
 * keyed by the folder each package is installed in ("node_modules/a",
 * "node_modules/a/node_modules/b"; "" is the root and other folders are
 * workspaces, whose dependencies are the direct ones); version 1 has
 * "dependencies", nested as node_modules is, with each package's
 * "requires". A version 2 file has both: "packages" speaks.
 */
#include "lock_internal.h"
#include "lock_json.h"

#include <string.h>

static const char *const dependency_fields[] = {
	"dependencies", "devDependencies", "optionalDependencies", "peerDependencies",
};

static bool is_dependency_field(struct span key, bool dev)
{
	size_t i;

	for (i = 0; i < COUNT(dependency_fields); i++)
		if ((dev || i != 1) && span_eq(key, dependency_fields[i]))
			return true;
	return false;
}

/* The keys of an object of dependencies: roots (pkg SIZE_MAX) or a package's edges. */
static void read_names(struct json_pull *r, struct lock *lock, size_t pkg)
{
	struct span key;

	if (!json_pull_object(r)) {
		json_pull_skip(r);
		return;
	}
	while (json_pull_member(r, &key) && !lock_failed(lock)) {
		if (pkg == SIZE_MAX)
			lock_root(lock, key.p, (size_t)(key.end - key.p));
		else
			lock_edge(lock, pkg, key.p, (size_t)(key.end - key.p));
		json_pull_skip(r);
	}
}

/* "node_modules/a/node_modules/@s/b" -> "@s/b"; NULL for a folder that is not in node_modules. */
static const char *installed_name(struct span path)
{
	const char *p, *name = NULL;
	static const char nm[] = "node_modules/";
	size_t n = sizeof(nm) - 1;

	for (p = path.p; (size_t)(path.end - p) > n; p++)
		if (!memcmp(p, nm, n) && (p == path.p || p[-1] == '/'))
			name = p + n;
	return name;
}

/* One entry of "packages": a package, or the root or a workspace, whose dependencies are direct. */
static void read_entry(struct json_pull *r, struct lock *lock, struct span path)
{
	const char *name = installed_name(path);
	size_t pkg = SIZE_MAX;
	struct span key, value;

	if (name && (pkg = lock_add(lock, name, (size_t)(path.end - name), NULL, 0)) == SIZE_MAX)
		return;
	if (name)
		lock->items[pkg].nested = name - path.p > (ptrdiff_t)strlen("node_modules/");
	if (!json_pull_object(r)) {
		json_pull_fail(r, "a package entry that is not an object");
		return;
	}
	while (json_pull_member(r, &key) && !lock_failed(lock)) {
		if (name && span_eq(key, "version") && json_pull_string(r, &value))
			lock_set_version(lock, pkg, value.p, (size_t)(value.end - value.p));
		else if (is_dependency_field(key, !name))
			read_names(r, lock, pkg);
		else
			json_pull_skip(r);
	}
}

static void read_packages(struct json_pull *r, struct lock *lock)
{
	struct span key;
	char path[4 * DEPS_SPEC_MAX];
	size_t n;

	if (!json_pull_object(r))
		return json_pull_fail(r, "\"packages\" is not an object");
	while (json_pull_member(r, &key) && !lock_failed(lock)) {
		/* The key is overwritten by the entry's own keys: kept here. */
		n = (size_t)(key.end - key.p);
		if (n >= sizeof(path))
			return lock_malformed(lock, "a package path longer than %zu bytes", sizeof(path) - 1);
		memcpy(path, key.p, n);
		read_entry(r, lock, (struct span){ path, path + n });
	}
}

/* Version 1's "dependencies": each package with its "requires", and those installed under it (nested). */
static void read_v1(struct json_pull *r, struct lock *lock, bool nested)
{
	struct span key, value;
	size_t pkg;

	if (!json_pull_object(r))
		return json_pull_fail(r, "\"dependencies\" is not an object");
	while (json_pull_member(r, &key) && !lock_failed(lock)) {
		if ((pkg = lock_add(lock, key.p, (size_t)(key.end - key.p), NULL, 0)) == SIZE_MAX)
			return;
		lock->items[pkg].nested = nested;
		if (!json_pull_object(r))
			return json_pull_fail(r, "a dependency that is not an object");
		while (json_pull_member(r, &key) && !lock_failed(lock)) {
			if (span_eq(key, "version") && json_pull_string(r, &value))
				lock_set_version(lock, pkg, value.p, (size_t)(value.end - value.p));
			else if (span_eq(key, "requires") && json_pull_peek(r) == '{')
				read_names(r, lock, pkg);
			else if (span_eq(key, "dependencies"))
				read_v1(r, lock, true);
			else
				json_pull_skip(r);
		}
	}
}

/* Forget what "dependencies" gave: "packages" came after it. */
static void lock_clear(struct lock *lock)
{
	lock->n = 0;
	lock->npending = 0;
	lock->nroots = 0;
}

void lock_read_npm(struct lock *lock, const char *text, size_t len)
{
	struct json_pull r;
	struct span key;
	bool packages = false, v1 = false;

	json_pull_init(&r, text, len, false);
	if (!json_pull_object(&r)) {
		if (!r.failed)
			json_pull_fail(&r, "not a JSON object");
		goto done;
	}
	while (json_pull_member(&r, &key) && !lock_failed(lock)) {
		if (span_eq(key, "packages")) {
			if (v1)
				lock_clear(lock);
			packages = true;
			read_packages(&r, lock);
		} else if (span_eq(key, "dependencies") && !packages) {
			v1 = true;
			read_v1(&r, lock, false);
		} else {
			json_pull_skip(&r);
		}
	}
	if (!r.failed && !json_pull_end(&r))
		json_pull_fail(&r, "text after the end of the object");
done:
	if (r.failed && !lock->error)
		lock_malformed(lock, "not valid JSON, %s", r.why);
	json_pull_release(&r);
}
