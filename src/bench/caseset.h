#ifndef REVLINE_CASESET_H
#define REVLINE_CASESET_H

#include <stdint.h>

#include "bench_case.h"
#include "store.h"

/*
 * A repository's set of cases in the store, so that a later run reviews
 * the same ones: saved as mined (what the user excluded stays excluded),
 * read back (empty when none was saved).
 */
int caseset_save(struct store *store, int64_t repo_id, struct bench_cases *cases, const char *mined_with);
int caseset_load(struct bench_cases *out, char **mined_with, struct store *store, int64_t repo_id);

#endif
