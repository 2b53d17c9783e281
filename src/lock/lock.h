#ifndef REVLINE_LOCK_H
#define REVLINE_LOCK_H

/*
 * Lock files read for what they say: one side of a lock file read into
 * the packages it resolves (name and exact version), which of them are
 * direct (the lock file's own record of its root's dependencies, or the
 * manifest beside it), and the graph between them where the lock file
 * records it, so that a transitive package can be traced to the direct
 * dependency that pulls it in. Each format has a real reader (lock_*.c):
 * JSON through lock_json.h, YAML through libyaml, TOML through the
 * vendored tomlc17, and yarn.lock classic, go.sum and Gemfile.lock by
 * their own grammars.
 *
 * Bounded: a side larger than LOCK_TEXT_MAX bytes, with a NUL byte or
 * bytes that are not UTF-8, nested deeper than LOCK_JSON_DEPTH, resolving
 * more than LOCK_PACKAGES_MAX packages or recording more than
 * LOCK_EDGES_MAX dependencies between them is not read: it is named,
 * with why, and its packages are left out. Linear in the size of the
 * text; memory is the packages', not the text's.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "deps.h"
#include "deps_text.h"

#define LOCK_TEXT_MAX (64 * 1024 * 1024)
#define LOCK_PACKAGES_MAX 200000
#define LOCK_EDGES_MAX 2000000

struct lock_package {
	const char *name;       /* as the lock file writes it */
	const char *key;        /* what the sides are matched by: PEP 503 for pip, lower case for Composer, else the name */
	const char *version;    /* the exact version resolved */
	size_t edges, nedges;   /* its dependencies' keys: lock->edges[edges .. edges + nedges), once finished */
	size_t id;              /* the order it was read in */
	bool direct;            /* the lock file says its root depends on it */
	bool nested;            /* installed under another package (npm's node_modules/a/node_modules/b): never direct */
};

struct lock {
	enum deps_ecosystem eco;
	struct arena arena;     /* the strings */
	struct lock_package *items;
	size_t n, alloc;
	const char **edges;
	size_t nedges;
	struct lock_edge { size_t from; const char *key; } *pending;    /* as read, before lock_finish */
	size_t npending, pending_alloc;
	const char **rootkeys;  /* what lock_root was given */
	size_t nroots, roots_alloc;
	bool roots;             /* the lock file records which packages are direct */
	int error;              /* out of memory: the reader stops */
	bool malformed;         /* the side could not be read */
	char why[256];          /* and why, with the line when known */
};

/* The lock files read: the ecosystem of path's name, or false. */
bool lock_file_known(const char *path, enum deps_ecosystem *eco);
/*
 * The manifest beside a lock file that names its direct dependencies when
 * the lock file does not ("package.json" for yarn.lock, "pyproject.toml"
 * for poetry.lock, "Pipfile", "composer.json", "go.mod" for go.sum), or
 * NULL when the lock file records them itself.
 */
const char *lock_manifest_name(const char *path);

void lock_init(struct lock *lock, enum deps_ecosystem eco);
void lock_release(struct lock *lock);

/* One side of the lock file at path (its text need not end in NUL). */
void lock_read(struct lock *lock, const char *path, const char *text, size_t len);
/* Mark the packages the manifest beside it names as direct (see lock_manifest_name). */
void lock_read_manifest(struct lock *lock, const char *path, const char *text, size_t len);

/* The key of a name in the lock's ecosystem (struct lock_package's key), in its arena; NULL: out of memory. */
const char *lock_key(struct lock *lock, const char *name, size_t len);
/* The packages of key: [*first, *first + count), or count 0. */
size_t lock_find(const struct lock *lock, const char *key, size_t *first);

/*
 * The direct dependency through which each package is pulled in, by the
 * shortest way from the direct ones (the first by name among equals):
 * via[i] is the key of a direct package, its own for a direct one, or
 * NULL when the graph does not reach it. NULL when the lock records no
 * graph. Freed by the caller.
 */
int lock_via(const char ***out, const struct lock *lock);

/* One package's transition between the two sides of a lock file (lock_diff.c). */
struct lock_change {
	const char *name;       /* as the new side writes it (the old side for one removed) */
	const char *key;
	const char *from, *to;  /* the exact versions; NULL for one added (from) or removed (to) */
	enum deps_relation relation;
	const char *via;        /* a transitive one's direct dependency that pulls it in, or NULL */
};

struct lock_changes {
	struct lock_change *items;
	size_t n, alloc;
};

/*
 * What moved from old to new: per package, the versions only one side has
 * are paired into transitions (in version order, each with the next one
 * of its major line when the counts differ), and what is left over is
 * added or removed. The strings are the locks': they must outlive it.
 */
int lock_diff(struct lock_changes *out, const struct lock *old, const struct lock *new);
void lock_changes_release(struct lock_changes *changes);

#endif
