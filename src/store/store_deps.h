#ifndef REVLINE_STORE_DEPS_H
#define REVLINE_STORE_DEPS_H

#include <stddef.h>
#include <stdint.h>

struct store;
struct deps_analysis;

/*
 * A check's dependency analysis (check_dependencies, replaced when there
 * is one already, and a check_packages row per package with its
 * advisories), in one transaction: checked is how many packages were
 * looked up, advisories_error why some were not (NULL: none).
 */
int store_deps_put(struct store *store, int64_t check_id, const struct deps_analysis *analysis,
		   size_t checked, const char *advisories_error);

#endif
