/*
 * go.sum: "module version hash" lines, and "module version/go.mod hash"
 * for the go.mod files that module graph pruning consulted. A module
 * whose code is hashed (a line without "/go.mod") is one the build
 * downloads; those are its packages. go.sum records no graph and no
 * direct ones: go.mod's requirements without "// indirect" are direct
 * (lock_read_manifest), and since Go 1.17 go.mod lists the indirect ones
 * too, which the manifest comparison reads as transitive.
 */
#include "lock_internal.h"

#include <string.h>

/* The next blank-separated word of [*pp, end). */
static struct span word(const char **pp, const char *end)
{
	const char *p = *pp;
	struct span w;

	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	w.p = p;
	while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
		p++;
	w.end = p;
	*pp = p;
	return w;
}

void lock_read_gosum(struct lock *lock, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *e, *q;
	struct span module, version, hash;
	size_t line = 0;

	for (; p < end && !lock_failed(lock); p = next_line(e, end)) {
		e = line_end(p, end);
		line++;
		q = p;
		module = word(&q, e);
		if (module.p == module.end)
			continue;
		version = word(&q, e);
		hash = word(&q, e);
		if (version.p == version.end || hash.p == hash.end || word(&q, e).p != e ||
		    version.p[0] != 'v' || memchr(hash.p, ':', (size_t)(hash.end - hash.p)) == NULL) {
			lock_malformed(lock, "line %zu is not \"module version hash\"", line);
			return;
		}
		if (version.end - version.p > 7 && !memcmp(version.end - 7, "/go.mod", 7))
			continue;
		lock_add(lock, module.p, (size_t)(module.end - module.p), version.p, (size_t)(version.end - version.p));
	}
}
