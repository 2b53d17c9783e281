#ifndef REVLINE_DEPS_MANIFEST_H
#define REVLINE_DEPS_MANIFEST_H

/* Inside the dependency code: a manifest or lock file read into its dependencies. */

#include "deps.h"
#include "deps_text.h"

/* One dependency as one side of a manifest declares it. */
struct dep {
	char *name;
	char *key;              /* what the sides are matched by: PEP 503 for pip, the name otherwise */
	char *table;            /* the table it is in: attributes of one entry meet there */
	char *version;          /* the version spec, or NULL */
	struct buf source;      /* git, path, ... as written, when there is no version */
	size_t order;
	bool indirect;          /* go.mod's "// indirect": a requirement only others need */
};

struct depmap {
	struct dep *items;
	size_t n, alloc;
	enum deps_ecosystem eco;
	int error;              /* the first failure (memory): the reader stops adding */
	bool malformed;         /* the text could not be read at all: the manifest is skipped */
	char why[256];          /* and why, with the line when known */
};

bool deps_same_name(const char *a, const char *b);
/* A name as PEP 503 normalizes it ("Foo_Bar.baz" -> "foo-bar-baz") into out (len + 1 bytes); its length. */
size_t deps_pep503_into(char *out, const char *name, size_t len);

/* Specs that differ only in spaces are the same spec. */
bool deps_same_spec(const char *a, const char *b);

void depmap_release(struct depmap *map);

void *depmap_malformed(struct depmap *map, const char *fmt, ...);

const char *dep_spec(const struct dep *dep);

void depmap_read(struct depmap *map, const char *path, enum deps_ecosystem eco, const char *text,
			  size_t len);

/*
 * One entry per name, sorted by name: the first with a version (package.json's
 * dependencies before devDependencies, [dependencies] before [dev-dependencies]),
 * else the first.
 */
int depmap_representatives(const struct depmap *map, struct dep ***out, size_t *n);

#endif
