/*
 * bun.lock (Bun 1.2 and later): JSONC, comments and trailing commas
 * allowed. "workspaces" maps each workspace's folder ("" the root) to its
 * dependencies, devDependencies, optionalDependencies and
 * peerDependencies: the direct ones. "packages" maps each installed path
 * ("react", "@babel/core", "a/b" for b under a) to an array whose first
 * item is "name@version" and, for a package from a registry, whose third
 * is an object with its own dependencies. A workspace's, a link's, a
 * path's or git's ("name@workspace:...", "name@github:...") has no version
 * OSV knows.
 */
#include "lock_internal.h"
#include "lock_json.h"

#include <string.h>

static bool is_dependency_field(struct span key)
{
	return span_eq(key, "dependencies") || span_eq(key, "devDependencies") ||
	       span_eq(key, "optionalDependencies") || span_eq(key, "peerDependencies");
}

static void read_names(struct json_pull *r, struct lock *lock, size_t pkg)
{
	struct span key;

	if (!json_pull_object(r))
		return json_pull_skip(r);
	while (json_pull_member(r, &key) && !lock_failed(lock)) {
		if (pkg == SIZE_MAX)
			lock_root(lock, key.p, (size_t)(key.end - key.p));
		else
			lock_edge(lock, pkg, key.p, (size_t)(key.end - key.p));
		json_pull_skip(r);
	}
}

static void read_workspaces(struct json_pull *r, struct lock *lock)
{
	struct span key;

	if (!json_pull_object(r))
		return json_pull_fail(r, "\"workspaces\" is not an object");
	while (json_pull_member(r, &key) && !lock_failed(lock)) {
		if (!json_pull_object(r)) {
			json_pull_skip(r);
			continue;
		}
		while (json_pull_member(r, &key) && !lock_failed(lock)) {
			if (is_dependency_field(key))
				read_names(r, lock, SIZE_MAX);
			else
				json_pull_skip(r);
		}
	}
}

/* "name@version" (a scoped name's first "@" is its own): the package, with no version unless it is one. */
static size_t add_package(struct lock *lock, struct span id)
{
	const char *p, *at = NULL;

	for (p = id.p + 1; p < id.end; p++)
		if (*p == '@')
			at = p;
	if (!at)
		return lock_add(lock, id.p, (size_t)(id.end - id.p), NULL, 0);
	if (memchr(at + 1, ':', (size_t)(id.end - at - 1)) || at + 1 == id.end)
		return lock_add(lock, id.p, (size_t)(at - id.p), NULL, 0);
	return lock_add(lock, id.p, (size_t)(at - id.p), at + 1, (size_t)(id.end - at - 1));
}

/* One entry of "packages": [ "name@version", registry, { dependencies }, integrity ]. */
static void read_package(struct json_pull *r, struct lock *lock)
{
	struct span value, key;
	size_t item = 0, pkg = SIZE_MAX;

	if (!json_pull_array(r))
		return json_pull_fail(r, "a package that is not an array");
	while (json_pull_item(r) && !lock_failed(lock)) {
		if (item == 0 && json_pull_string(r, &value)) {
			pkg = add_package(lock, value);
		} else if (item > 0 && pkg != SIZE_MAX && json_pull_peek(r) == '{') {
			json_pull_object(r);
			while (json_pull_member(r, &key) && !lock_failed(lock)) {
				if (is_dependency_field(key) && !span_eq(key, "devDependencies"))
					read_names(r, lock, pkg);
				else
					json_pull_skip(r);
			}
		} else {
			if (item == 0)
				return json_pull_fail(r, "a package whose first item is not \"name@version\"");
			json_pull_skip(r);
		}
		item++;
	}
}

void lock_read_bun(struct lock *lock, const char *text, size_t len)
{
	struct json_pull r;
	struct span key;

	json_pull_init(&r, text, len, true);
	if (!json_pull_object(&r) && !r.failed)
		json_pull_fail(&r, "not a JSON object");
	while (!r.failed && json_pull_member(&r, &key) && !lock_failed(lock)) {
		if (span_eq(key, "workspaces")) {
			read_workspaces(&r, lock);
		} else if (span_eq(key, "packages")) {
			if (!json_pull_object(&r)) {
				json_pull_fail(&r, "\"packages\" is not an object");
				break;
			}
			while (json_pull_member(&r, &key) && !lock_failed(lock))
				read_package(&r, lock);
		} else {
			json_pull_skip(&r);
		}
	}
	if (!r.failed && !json_pull_end(&r))
		json_pull_fail(&r, "text after the end of the object");
	if (r.failed)
		lock_malformed(lock, "not valid JSONC, %s", r.why);
	json_pull_release(&r);
}
