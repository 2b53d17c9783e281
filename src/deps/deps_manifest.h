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
/* Out of memory: the first failure is kept, and the reader stops adding (NULL). */
void *depmap_nomem(struct depmap *map);

void *depmap_malformed(struct depmap *map, const char *fmt, ...);

const char *dep_spec(const struct dep *dep);

void depmap_read(struct depmap *map, const char *path, enum deps_ecosystem eco, const char *text,
			  size_t len);

/* The readers' own: the entry for name in table (added when it is not there yet; NULL when it cannot be). */
struct dep *dep_entry(struct depmap *map, const char *table, const char *name, size_t len);
/* The first version wins: a second one for the same entry is a mistake of the file's. */
void dep_set_version(struct depmap *map, struct dep *dep, const char *spec, size_t len);
/* What says where it comes from when no version does: "git = url", appended with ", ". */
void dep_add_source(struct depmap *map, struct dep *dep, const char *key, const char *sep,
		    const char *value, size_t len);
/* A PEP 508 requirement ("requests[socks]>=2.0,<3; python_version>'3.8'", "x @ url") into table. */
void depmap_requirement(struct depmap *map, const char *table, const char *s, size_t len);

/*
 * TOML, through the vendored tomlc17 (manifest_toml.c), the manifests' and
 * the lock files' one reader: 0 with the document in *out (freed with
 * deps_toml_free), 1 when the text is not TOML (why says where and what:
 * "not valid TOML, line 3: missing key", "nested deeper than 30 levels,
 * line 2"), or an error (out of memory).
 */
struct toml_result_t;
int deps_toml_parse(struct toml_result_t **out, const char *text, size_t len, char *why, size_t size);
void deps_toml_free(struct toml_result_t *result);
/* Cargo.toml (cargo) or pyproject.toml: their dependency tables (a text that is not TOML is malformed). */
void depmap_read_toml(struct depmap *map, bool cargo, const char *text, size_t len);

/*
 * One entry per name, sorted by name: the first with a version (package.json's
 * dependencies before devDependencies, [dependencies] before [dev-dependencies]),
 * else the first.
 */
int depmap_representatives(const struct depmap *map, struct dep ***out, size_t *n);

#endif
