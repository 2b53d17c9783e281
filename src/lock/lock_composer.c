/*
 * composer.lock (JSON): "packages" and "packages-dev", arrays of packages
 * with name, version ("v6.4.3", "1.2.0", "dev-main") and "require" (and
 * "require-dev" for nothing installed). Platform requirements (php,
 * ext-*, lib-*, composer-*) are no packages. No direct ones: those are
 * composer.json's require and require-dev (lock_read_manifest).
 */
#include "lock_internal.h"
#include "lock_json.h"

#include <string.h>

static bool is_platform(struct span name)
{
	return !memchr(name.p, '/', (size_t)(name.end - name.p));
}

static void read_require(struct json_pull *r, struct lock *lock, size_t pkg)
{
	struct span key;

	if (!json_pull_object(r))
		return json_pull_skip(r);
	while (json_pull_member(r, &key) && !lock_failed(lock)) {
		if (!is_platform(key))
			lock_edge(lock, pkg, key.p, (size_t)(key.end - key.p));
		json_pull_skip(r);
	}
}

static void read_package(struct json_pull *r, struct lock *lock)
{
	struct span key, value;
	size_t pkg = SIZE_MAX;

	if (!json_pull_object(r))
		return json_pull_fail(r, "a package that is not an object");
	/* The name comes first in every composer.lock; a package without one is not read. */
	while (json_pull_member(r, &key) && !lock_failed(lock)) {
		if (span_eq(key, "name") && pkg == SIZE_MAX && json_pull_string(r, &value))
			pkg = lock_add(lock, value.p, (size_t)(value.end - value.p), NULL, 0);
		else if (span_eq(key, "version") && pkg != SIZE_MAX && json_pull_string(r, &value))
			lock_set_version(lock, pkg, value.p, (size_t)(value.end - value.p));
		else if (span_eq(key, "require") && pkg != SIZE_MAX)
			read_require(r, lock, pkg);
		else
			json_pull_skip(r);
	}
	if (pkg == SIZE_MAX && !r->failed && !lock_failed(lock))
		lock_malformed(lock, "a package without a name before its other fields");
}

void lock_read_composer(struct lock *lock, const char *text, size_t len)
{
	struct json_pull r;
	struct span key;

	json_pull_init(&r, text, len, false);
	if (!json_pull_object(&r) && !r.failed)
		json_pull_fail(&r, "not a JSON object");
	while (!r.failed && json_pull_member(&r, &key) && !lock_failed(lock)) {
		if (span_eq(key, "packages") || span_eq(key, "packages-dev")) {
			if (!json_pull_array(&r)) {
				json_pull_fail(&r, "\"packages\" is not an array");
				break;
			}
			while (json_pull_item(&r) && !lock_failed(lock))
				read_package(&r, lock);
		} else {
			json_pull_skip(&r);
		}
	}
	if (!r.failed && !json_pull_end(&r))
		json_pull_fail(&r, "text after the end of the object");
	if (r.failed)
		lock_malformed(lock, "not valid JSON, %s", r.why);
	json_pull_release(&r);
}
