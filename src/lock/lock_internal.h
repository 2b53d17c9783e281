#ifndef REVLINE_LOCK_INTERNAL_H
#define REVLINE_LOCK_INTERNAL_H

/* Inside the lock file readers (lock.c and lock_*.c): how a reader fills a struct lock. */

#include "lock.h"

void lock_malformed(struct lock *lock, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool lock_failed(const struct lock *lock);
/* A package (its index), version NULL when it has none (a link, a workspace member); SIZE_MAX when the reader must stop. */
size_t lock_add(struct lock *lock, const char *name, size_t nlen, const char *version, size_t vlen);
/* The version of package pkg, when it came after its dependencies (the first one stays). */
void lock_set_version(struct lock *lock, size_t pkg, const char *version, size_t len);
/* A dependency of package pkg, by name. */
void lock_edge(struct lock *lock, size_t pkg, const char *name, size_t len);
/* A package the root depends on, by name: those of that name are direct. */
void lock_root(struct lock *lock, const char *name, size_t len);
/* Sort by key and version, mark the direct ones, gather each one's dependencies (lock_read does it). */
int lock_finish(struct lock *lock);

/* A TOML side parsed by tomlc17 (NULL and the lock malformed when it is not TOML); free with deps_toml_free (deps_manifest.h). */
struct toml_result_t;
struct toml_result_t *lock_toml_parse(struct lock *lock, const char *text, size_t len);
/* A PEP 508 requirement's name ("requests[socks]>=2; ..." -> "requests"): its length at s, 0 when none. */
size_t lock_pep508_name(const char *s, size_t len);

/* The readers, one per format family (lock_*.c). */
void lock_read_npm(struct lock *lock, const char *text, size_t len);
void lock_read_yarn(struct lock *lock, const char *text, size_t len);
void lock_read_pnpm(struct lock *lock, const char *text, size_t len);
void lock_read_bun(struct lock *lock, const char *text, size_t len);
void lock_read_python(struct lock *lock, const char *base, const char *text, size_t len);
/* Pipfile's [packages] and [dev-packages], the direct ones of Pipfile.lock. */
void lock_read_pipfile(struct lock *lock, const char *text, size_t len);
void lock_read_cargo(struct lock *lock, const char *text, size_t len);
void lock_read_gosum(struct lock *lock, const char *text, size_t len);
void lock_read_gemfile(struct lock *lock, const char *text, size_t len);
void lock_read_composer(struct lock *lock, const char *text, size_t len);

#endif
