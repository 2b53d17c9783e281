#ifndef REVLINE_ADVISORY_H
#define REVLINE_ADVISORY_H

#include <stdbool.h>
#include <stddef.h>

#include "deps.h"
#include "poll_group.h"

/*
 * Security advisories for the packages of a dependency analysis, direct
 * and transitive, from the OSV API (https://api.osv.dev by default;
 * revline.osvUrl or REVLINE_OSV_URL change it), in two rounds:
 *
 * - POST {base}/v1/querybatch: each package's old version and new
 *   version, batch_size queries to a request (OSV takes up to 1,000),
 *   the batches at once. OSV answers each query with the ids of the
 *   advisories that affect that version, in the order asked; a query it
 *   answers in pages (next_page_token) is asked again in a later batch,
 *   up to ADVISORY_PAGES_MAX pages.
 * - GET {base}/v1/vulns/{id}: each advisory once, for its summary,
 *   severity and aliases; at most max_details of them, those of the
 *   packages first in the order asked (the new version's before the old
 *   one's).
 *
 * An advisory that affects the old version and not the new one is fixed
 * by the bump; one that affects the new version and not the old one (or
 * a package added) is brought by it; one that affects both is still
 * open.
 *
 * Bounded and fail-open (the seed's Pattern 4): at most max_packages
 * packages (direct ones first, then the majors, then by name), at most
 * ADVISORY_VULNS_MAX advisories kept for one version, 5 s per request,
 * 15 s in all for both rounds; no retries. Whatever goes wrong (no
 * network, a 500, a bad answer, the budget spent) leaves those packages
 * without advisories, or those advisories without their details (shown
 * by id, severity unknown), and says so in advisory_error(); it never
 * fails the review. Never blocks: driven from the caller's loop like the
 * scheduler, whose requests it uses.
 */
#define ADVISORY_PAGES_MAX 5
#define ADVISORY_VULNS_MAX 100

struct advisory_options {
	const char *base_url;           /* NULL: https://api.osv.dev */
	size_t max_packages;            /* 0: 500 */
	size_t max_details;             /* advisories whose details are fetched; 0: 100 */
	size_t batch_size;              /* queries in one querybatch request; 0: 200 (at most 1,000) */
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
/* Send the first requests; nothing to look up is done at once. */
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
/*
 * How many packages were looked up, and what went wrong ("3 of 8 lookups
 * failed: timeout"; "12 of 140 advisories not looked up: at most 100
 * are, shown by id"), or NULL.
 */
size_t advisory_checked(const struct advisory *advisory);
const char *advisory_error(const struct advisory *advisory);

#endif
