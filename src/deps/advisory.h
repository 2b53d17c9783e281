#ifndef REVLINE_ADVISORY_H
#define REVLINE_ADVISORY_H

#include <stdbool.h>
#include <stddef.h>

#include "deps.h"
#include "poll_group.h"

/*
 * Security advisories for the packages of a dependency analysis, from the
 * OSV API (https://api.osv.dev by default; revline.osvUrl or
 * REVLINE_OSV_URL change it): for each package, POST {base}/v1/query with
 * its ecosystem, name and version, for the old version and for the new
 * one; an advisory that affects the old and not the new is fixed by the
 * bump, one that affects the new is still open.
 *
 * Bounded and fail-open (the seed's Pattern 4): at most 10 packages (the
 * majors first, then by name), 5 s per request, 15 s in all; no retries
 * past the budget. Whatever goes wrong (no network, a 500, a bad answer,
 * the budget spent) leaves those packages without advisories and says so
 * in advisory_error(); it never fails the review. Never blocks: driven
 * from the caller's loop like the scheduler, whose requests it uses.
 */
struct advisory_options {
	const char *base_url;           /* NULL: https://api.osv.dev */
	size_t max_packages;            /* 0: 10 */
	double request_timeout;         /* seconds; 0: 5 */
	double total_timeout;           /* seconds; 0: 15 */
};

struct config;
/* The options from git config revline.osvUrl and REVLINE_OSV_URL (which wins); config may be NULL. */
int advisory_options_load(struct advisory_options *options, char **base_url, struct config *config);

struct advisory;

/*
 * A lookup for the analysis's packages with a version on either side (it
 * must outlive the lookup). It joins group (poll_group.h) as it starts
 * (NULL: a group of its own).
 */
int advisory_new(struct advisory **out, struct deps_analysis *analysis, const struct advisory_options *options,
		 struct poll_group *group);
void advisory_free(struct advisory *advisory);
/* Send the requests; nothing to look up is done at once. */
int advisory_start(struct advisory *advisory);
/* Milliseconds until the lookup needs a step (the budget's end at the latest), or -1. */
int advisory_timeout(struct advisory *advisory);
/* Wait on its poll group (never past the budget) and step it. */
int advisory_wait(struct advisory *advisory, int max_ms);
/* The poll group it is in (once started). */
struct poll_group *advisory_group(struct advisory *advisory);
/* Every answer is in, or the budget is spent: the packages' advisories are filled. */
bool advisory_done(const struct advisory *advisory);
void advisory_cancel(struct advisory *advisory);
/* How many packages were looked up, and what went wrong ("3 of 8 lookups failed: timeout"), or NULL. */
size_t advisory_checked(const struct advisory *advisory);
const char *advisory_error(const struct advisory *advisory);

#endif
