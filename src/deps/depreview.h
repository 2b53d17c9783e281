#ifndef REVLINE_DEPREVIEW_H
#define REVLINE_DEPREVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "advisory.h"
#include "deps.h"

/*
 * A check's dependency phase: the manifests of the change read on both
 * sides of the target and analysed (deps), their advisories looked up
 * (advisory, bounded and fail-open), the merge confidence worked out, the
 * section the map prompts carry, and the analysis kept with the check.
 * A member of the front end's poll group; the check's rules start when it is done,
 * at most the advisory budget (15 s) after it started.
 */
struct repo;
struct target;
struct diff;
struct store;

struct depreview_options {
	bool advisories;                /* look them up (false: the analysis only) */
	struct advisory_options advisory;
	struct poll_group *group;       /* the front end's (NULL: the lookup's own) */
};

struct depreview;

/* repo and target must outlive the review; it holds a reference to the diff (diff_dup). */
int depreview_new(struct depreview **out, struct repo *repo, const struct target *target,
		  struct diff *diff, const struct depreview_options *options);
void depreview_free(struct depreview *dr);

/* Read and analyse the manifests; start the lookup when there are packages. */
int depreview_start(struct depreview *dr);
/* Wait up to max_ms on its poll group and step it. */
int depreview_wait(struct depreview *dr, int max_ms);
bool depreview_done(const struct depreview *dr);
void depreview_cancel(struct depreview *dr);

const struct deps_analysis *depreview_analysis(const struct depreview *dr);
/* Whether there is anything to show: packages, a bot's change, a claim of its message, or a file that could not be read. */
bool depreview_found(const struct depreview *dr);
/* The change is only dependencies (the adaptive timeout's shorter case). */
bool depreview_dependency_only(const struct depreview *dr);
/* The map prompts' section ("" when nothing was found); valid once done. */
const char *depreview_section(const struct depreview *dr);
/* Packages looked up, and why some were not ("not looked up: ..."), or NULL. */
size_t depreview_checked(const struct depreview *dr);
const char *depreview_error(const struct depreview *dr);

/* Keep the analysis with a check (check_dependencies, check_packages); nothing when nothing was found. */
int depreview_store(struct depreview *dr, struct store *store, int64_t check_id);

#endif
