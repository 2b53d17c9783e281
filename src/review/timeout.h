#ifndef REVLINE_TIMEOUT_H
#define REVLINE_TIMEOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "sched.h"

/*
 * The adaptive timeout (the dependency seed's Feature 2, Layer 3): the
 * base a check's requests get, from the size and kind of the change. The
 * scheduler then gives each request more for its size (sched.h); this
 * chooses what that grows from.
 *
 * - A dependency-only change (manifests and lock files, or a bot's bump)
 *   needs less reading: half the base, but not under 30 s (nor over the base).
 * - A small change (at most 10 files and 500 changed lines) keeps the base.
 * - A larger one gets more, in proportion, up to 1.5 times the base at 50
 *   files or 2,000 changed lines.
 * - Whatever the change, never over the scheduler's ceiling on a request,
 *   SCHED_REQUEST_TIMEOUT_MAX_S (900 s), even when the base is set higher:
 *   the reason then says the base was cut.
 */
#define TIMEOUT_SMALL_FILES     10
#define TIMEOUT_SMALL_LINES     500
#define TIMEOUT_LARGE_FILES     50
#define TIMEOUT_LARGE_LINES     2000
#define TIMEOUT_LARGE_FACTOR    1.5
#define TIMEOUT_LARGE_CAP       SCHED_REQUEST_TIMEOUT_MAX_S
#define TIMEOUT_DEPS_FLOOR      30.0

struct timeout_choice {
	double base;            /* seconds, as configured */
	double chosen;          /* seconds, what the check's requests grow from */
	char reason[160];       /* "dependency-only change: half of 120 s", "62 files, 3,100 lines: 1.5 x 120 s" */
};

void timeout_choose(struct timeout_choice *out, double base, size_t files, size_t lines,
		    bool dependency_only);

#endif
