/*
 * Security advisories from the OSV API, bounded and fail-open (advisory.h):
 * the packages' versions asked in batches (POST {base}/v1/querybatch),
 * pages followed, then each advisory's details fetched once (GET
 * {base}/v1/vulns/{id}), all through a scheduler of our own driven from
 * the caller's loop, under one budget. The packages' advisories are
 * filled at the end, from what came in: a batch that failed leaves its
 * packages without advisories, a detail that did not come leaves its
 * advisory shown by id; each is counted in the message of
 * advisory_error().
 */
#include "advisory_state.h"
#include "clock.h"

#include "array.h"
#include "buf.h"
#include "config.h"
#include "deps_text.h"
#include "sched.h"
#include "status.h"

#include <jansson.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OSV_URL "https://api.osv.dev"
#define DEFAULT_MAX_PACKAGES 500
#define DEFAULT_MAX_DETAILS 100
#define DEFAULT_BATCH 200
/* OSV refuses a querybatch of more queries ("Too many queries"). */
#define OSV_BATCH_MAX 1000
#define DEFAULT_REQUEST_S 5.0
#define DEFAULT_TOTAL_S 15.0
/* Transfers at once: a few batches, then the details ten at a time. */
#define CONCURRENCY 10
/* Budgets beyond a day are taken for mistakes (and keep the sums integral). */
#define SECONDS_MAX 86400.0

/* --- options ------------------------------------------------------------- */

int advisory_options_load(struct advisory_options *options, char **base_url, struct config *config)
{
	char *value = NULL;
	int error;

	memset(options, 0, sizeof(*options));
	*base_url = NULL;
	/* REVLINE_OSV_URL, or revline.osvUrl from the user's config or a trusted .revline. */
	if ((error = config_get(&value, config, "revline.osvUrl")) < 0) {
		if (error != RL_ENOTFOUND)
			return error;
		value = NULL;
	}
	if (!value || !*value) {
		free(value);
		value = strdup(OSV_URL);
	}
	if (!value)
		return error_nomem();
	*base_url = value;
	options->base_url = value;
	return 0;
}

/* --- which packages ------------------------------------------------------ */

/* Direct packages first, then the majors, then by name; the analysis's order among equals. */
static int package_order(const void *a, const void *b)
{
	const struct deps_package *p = *(const struct deps_package *const *)a;
	const struct deps_package *q = *(const struct deps_package *const *)b;
	int cmp;

	if ((p->relation == RELATION_TRANSITIVE) != (q->relation == RELATION_TRANSITIVE))
		return p->relation == RELATION_TRANSITIVE ? 1 : -1;
	if ((p->bump == BUMP_MAJOR) != (q->bump == BUMP_MAJOR))
		return p->bump == BUMP_MAJOR ? -1 : 1;
	if ((cmp = strcmp(p->name ? p->name : "", q->name ? q->name : "")) != 0)
		return cmp;
	return p < q ? -1 : p > q;
}

static bool wanted(const struct deps_package *p)
{
	return p->name && *p->name && (unsigned)p->ecosystem < ECO_COUNT &&
		(p->from_version || p->to_version);
}

/* By ecosystem, name and version, then the order asked: the first of equals is the one sent. */
static int query_order(const void *a, const void *b)
{
	const struct query *p = *(const struct query *const *)a, *q = *(const struct query *const *)b;
	int cmp;

	if (p->package->ecosystem != q->package->ecosystem)
		return p->package->ecosystem < q->package->ecosystem ? -1 : 1;
	if ((cmp = strcmp(p->package->name, q->package->name)) || (cmp = strcmp(p->version, q->version)))
		return cmp;
	return p < q ? -1 : p > q;
}

/* The queries to send, in the items' order, each package and version once (the others point at it). */
static int queries_list(struct advisory *adv)
{
	struct query **all = calloc(2 * adv->nitems + 1, sizeof(*all));
	size_t i, n = 0;
	int side;

	if (!all || !(adv->asked = calloc(2 * adv->nitems + 1, sizeof(*adv->asked)))) {
		free(all);
		return error_nomem();
	}
	for (i = 0; i < adv->nitems; i++)
		for (side = SIDE_OLD; side <= SIDE_NEW; side++)
			if (adv->items[i].side[side].version)
				all[n++] = &adv->items[i].side[side];
	qsort(all, n, sizeof(*all), query_order);
	for (i = 1; i < n; i++)
		if (all[i]->package->ecosystem == all[i - 1]->package->ecosystem &&
		    !strcmp(all[i]->package->name, all[i - 1]->package->name) &&
		    !strcmp(all[i]->version, all[i - 1]->version))
			all[i]->same = all[i - 1]->same ? all[i - 1]->same : all[i - 1];
	for (i = 0; i < adv->nitems; i++)
		for (side = SIDE_OLD; side <= SIDE_NEW; side++)
			if (adv->items[i].side[side].version && !adv->items[i].side[side].same)
				adv->asked[adv->nasked++] = &adv->items[i].side[side];
	free(all);
	return 0;
}

static int select_items(struct advisory *adv)
{
	struct deps_analysis *analysis = adv->analysis;
	struct deps_package **order;
	size_t i, n = 0;

	if (!analysis || !analysis->npackages)
		return 0;
	order = calloc(analysis->npackages, sizeof(*order));
	if (!order)
		return error_nomem();
	for (i = 0; i < analysis->npackages; i++)
		if (wanted(&analysis->packages[i]))
			order[n++] = &analysis->packages[i];
	qsort(order, n, sizeof(*order), package_order);
	if (n > adv->max_packages) {
		adv->over = n - adv->max_packages;
		n = adv->max_packages;
	}
	adv->items = n ? calloc(n, sizeof(*adv->items)) : NULL;
	if (n && !adv->items) {
		free(order);
		return error_nomem();
	}
	for (i = 0; i < n; i++) {
		struct item *item = &adv->items[i];

		item->package = order[i];
		item->side[SIDE_OLD].package = item->side[SIDE_NEW].package = order[i];
		item->side[SIDE_OLD].version = order[i]->from_version;
		item->side[SIDE_NEW].version = order[i]->to_version;
	}
	adv->nitems = n;
	free(order);
	return queries_list(adv);
}

/* --- life ---------------------------------------------------------------- */

static double seconds_or(double value, double fallback)
{
	if (!(value > 0))
		return fallback;
	return value < SECONDS_MAX ? value : SECONDS_MAX;
}

static int make_urls(struct advisory *adv, const char *base)
{
	struct buf url = BUF_INIT;
	size_t len;

	if (!base || !*base)
		base = OSV_URL;
	len = strlen(base);
	while (len > 0 && base[len - 1] == '/')
		len--;
	if (!(adv->base = strndup(base, len)) || buf_printf(&url, "%s/v1/querybatch", adv->base) < 0) {
		buf_release(&url);
		return error_nomem();
	}
	adv->batch_url = buf_detach(&url);
	return 0;
}

int advisory_new(struct advisory **out, struct deps_analysis *analysis,
		 const struct advisory_options *options, struct poll_group *group)
{
	static const struct advisory_options none = { 0 };
	struct advisory *adv;
	int error;

	*out = NULL;
	if (!options)
		options = &none;
	adv = calloc(1, sizeof(*adv));
	if (!adv)
		return error_nomem();
	adv->analysis = analysis;
	adv->group = group;
	adv->max_packages = options->max_packages ? options->max_packages : DEFAULT_MAX_PACKAGES;
	adv->max_details = options->max_details ? options->max_details : DEFAULT_MAX_DETAILS;
	adv->batch_size = options->batch_size ? options->batch_size : DEFAULT_BATCH;
	if (adv->batch_size > OSV_BATCH_MAX)
		adv->batch_size = OSV_BATCH_MAX;
	adv->request_s = seconds_or(options->request_timeout, DEFAULT_REQUEST_S);
	adv->total_s = seconds_or(options->total_timeout, DEFAULT_TOTAL_S);
	if ((error = make_urls(adv, options->base_url)) < 0 || (error = select_items(adv)) < 0) {
		advisory_free(adv);
		return error;
	}
	*out = adv;
	return 0;
}

static void query_release(struct query *q)
{
	size_t i;

	for (i = 0; i < q->nids; i++)
		free(q->ids[i]);
	free(q->ids);
	free(q->page_token);
	free(q->failure);
}

void advisory_free(struct advisory *adv)
{
	size_t i;

	if (!adv)
		return;
	poll_group_leave(&adv->member);
	sched_free(adv->sched);
	for (i = 0; i < adv->nitems; i++) {
		query_release(&adv->items[i].side[SIDE_OLD]);
		query_release(&adv->items[i].side[SIDE_NEW]);
	}
	for (i = 0; i < adv->ndetails; i++) {
		free(adv->details[i]->id);
		free(adv->details[i]->summary);
		json_decref(adv->details[i]->aliases);
		free(adv->details[i]->failure);
		free(adv->details[i]);
	}
	for (i = 0; i < adv->nrequests; i++) {
		free(adv->requests[i]->queries);
		free(adv->requests[i]);
	}
	free(adv->requests);
	free(adv->details);
	free(adv->asked);
	free(adv->items);
	free(adv->base);
	free(adv->batch_url);
	free(adv->broken);
	free(adv->error);
	free(adv);
}

/* --- the advisories of a package ----------------------------------------- */


static struct vuln *vuln_find(const struct advisory *adv, const char *id)
{
	bool found;
	size_t at = advisory_vuln_place(adv, id, &found);

	return found ? adv->details[at] : NULL;
}

/* The query that was asked for this one's package and version, when it was asked (else NULL). */
static const struct query *answered(const struct query *q)
{
	return !q->version ? NULL : q->same ? q->same : q;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* How many advisories the queries answered name, each once. */
static int vulns_count(struct advisory *adv)
{
	char **ids;
	size_t i, k, n = 0;

	for (i = 0; i < adv->nasked; i++)
		n += adv->asked[i]->state == ST_OK ? adv->asked[i]->nids : 0;
	if (!n)
		return 0;
	if (!(ids = calloc(n, sizeof(*ids))))
		return error_nomem();
	for (i = 0, n = 0; i < adv->nasked; i++)
		for (k = 0; adv->asked[i]->state == ST_OK && k < adv->asked[i]->nids; k++)
			ids[n++] = adv->asked[i]->ids[k];
	qsort(ids, n, sizeof(*ids), by_string);
	for (i = 0; i < n; i++)
		adv->nvulns += !i || strcmp(ids[i - 1], ids[i]);
	free(ids);
	return 0;
}

static bool aliases_name(const json_t *aliases, const char *id)
{
	const json_t *alias;
	size_t i;

	json_array_foreach(aliases, i, alias)
		if (!strcmp(json_string_value(alias), id))
			return true;
	return false;
}

static const json_t *aliases_of(const struct advisory *adv, const char *id)
{
	const struct vuln *v = vuln_find(adv, id);

	return v ? v->aliases : NULL;
}

/* Whether the advisories of q have this one: by its id, or by an alias either way. */
static bool query_has(const struct advisory *adv, const struct query *q, const char *id)
{
	const json_t *aliases = aliases_of(adv, id);
	size_t i;

	for (i = 0; q && i < q->nids; i++)
		if (!strcmp(q->ids[i], id) || aliases_name(aliases, q->ids[i]) ||
		    aliases_name(aliases_of(adv, q->ids[i]), id))
			return true;
	return false;
}

static bool already(const struct deps_package *p, const char *id)
{
	size_t i;

	for (i = 0; i < p->nadvisories; i++)
		if (!strcmp(p->advisories[i].id, id))
			return true;
	return false;
}

static int add_advisory(const struct advisory *adv, struct deps_package *p, const char *id, bool fixed,
			bool introduced)
{
	struct deps_advisory *a = &p->advisories[p->nadvisories];
	const struct vuln *v = vuln_find(adv, id);

	/* While the lookup runs, an advisory shows once its details are in (or will not come). */
	if (already(p, id) || (!adv->done && v && v->state == ST_PENDING))
		return 0;
	a->id = strdup(id);
	a->summary = strdup(v && v->summary ? v->summary : "");
	a->severity = strdup(v && v->severity ? v->severity : "unknown");
	a->fixed = fixed;
	a->introduced = introduced;
	p->nadvisories++;
	if (!a->id || !a->summary || !a->severity)
		return error_nomem();
	return 0;
}

/* Those of the new version first (brought by the bump, or still open), then those the bump fixes. */
static int fill(const struct advisory *adv, struct item *item)
{
	struct deps_package *p = item->package;
	const struct query *old = answered(&item->side[SIDE_OLD]), *new = answered(&item->side[SIDE_NEW]);
	size_t i, n = (old ? old->nids : 0) + (new ? new->nids : 0);
	int error = 0;

	deps_advisories_release(p);
	if (!n)
		return 0;
	if (!(p->advisories = calloc(n, sizeof(*p->advisories))))
		return error_nomem();
	for (i = 0; new && i < new->nids && !error; i++)
		error = add_advisory(adv, p, new->ids[i], false, !query_has(adv, old, new->ids[i]));
	for (i = 0; old && i < old->nids && !error; i++)
		if (!query_has(adv, new, old->ids[i]))
			error = add_advisory(adv, p, old->ids[i], true, false);
	if (error < 0)
		deps_advisories_release(p);
	return error;
}

/* Whether both sides of a package are in. */
static bool item_answered(const struct item *item)
{
	const struct query *old = answered(&item->side[SIDE_OLD]), *new = answered(&item->side[SIDE_NEW]);

	return (!old || old->state == ST_OK) && (!new || new->state == ST_OK);
}

/* While the lookup runs: the packages whose answers are in get their advisories, with the details in so far. */
static int items_refill(struct advisory *adv)
{
	size_t i;
	int error = 0;

	for (i = 0; i < adv->nitems && !error; i++)
		if (item_answered(&adv->items[i]))
			error = fill(adv, &adv->items[i]);
	return error;
}

/* What became of a package's lookup: the worst of its sides. */
static enum state item_state(const struct advisory *adv, const struct item *item)
{
	static const enum state worst[] = { ST_FAILED, ST_LATE, ST_CANCELLED };
	const struct query *q[2] = { answered(&item->side[SIDE_OLD]), answered(&item->side[SIDE_NEW]) };
	size_t i;
	int side;

	for (side = 0; side < 2; side++)
		if (q[side] && q[side]->state == ST_PENDING)
			return adv->expired ? ST_LATE : ST_CANCELLED;
	for (i = 0; i < COUNT(worst); i++)
		for (side = 0; side < 2; side++)
			if (q[side] && q[side]->state == worst[i])
				return worst[i];
	return ST_OK;
}

/* Each package its advisories, or counted among those whose lookup did not come through. */
static int items_settle(struct advisory *adv)
{
	size_t i;
	int error = 0;

	for (i = 0; i < adv->nitems && !error; i++) {
		switch (item_state(adv, &adv->items[i])) {
		case ST_FAILED: adv->failed++; break;
		case ST_LATE: adv->late++; break;
		case ST_CANCELLED: adv->cancelled++; break;
		default:
			adv->checked++;
			error = fill(adv, &adv->items[i]);
		}
	}
	return error;
}

/* --- the end ------------------------------------------------------------- */

/* The first failure in the packages' order (the old side first), for the message. */
static int first_failure(struct buf *out, const struct advisory *adv)
{
	const struct query *q;
	size_t i;
	int side;

	for (i = 0; i < adv->nitems; i++)
		for (side = SIDE_OLD; side <= SIDE_NEW; side++)
			if ((q = answered(&adv->items[i].side[side])) && q->state == ST_FAILED)
				return buf_printf(out, "%s %s: %s", q->package->name, q->version,
						  q->failure ? q->failure : "?");
	return buf_puts(out, "?");
}

/* Package and version of the first query cut short, and how many were. */
static int cut_short(struct buf *out, const char *sep, const struct advisory *adv)
{
	const struct query *first = NULL;
	size_t i, n = 0;

	for (i = 0; i < adv->nasked; i++)
		if (adv->asked[i]->cut && adv->asked[i]->state == ST_OK) {
			first = first ? first : adv->asked[i];
			n++;
		}
	if (!n)
		return 0;
	return buf_printf(out, "%s%zu version%s with more advisories than the %d kept or %d pages read (%s %s)", sep,
			  n, n == 1 ? "" : "s", ADVISORY_VULNS_MAX, ADVISORY_PAGES_MAX, first->package->name,
			  first->version);
}

/*
 * "5 of 40 advisories could not be looked up (GHSA-x: HTTP 404); 3 of 40
 * advisories not looked up within 15 s (those are shown by id, ...)":
 * what is not asked was left out by the cap, or by the stop.
 */
static int details_missed(struct buf *out, const char *sep, const struct advisory *adv)
{
	size_t count[ST_CANCELLED + 1] = { 0 }, i, missed, unasked = adv->nvulns - adv->ndetails;
	const struct vuln *failed = NULL;
	bool capped = adv->ndetails >= adv->max_details;
	int error = 0;

	for (i = 0; i < adv->ndetails; i++) {
		count[adv->details[i]->state]++;
		if (adv->details[i]->state == ST_FAILED && !failed)
			failed = adv->details[i];
	}
	if (!capped)
		count[adv->expired ? ST_LATE : ST_CANCELLED] += unasked;
	if (!(missed = adv->nvulns - count[ST_OK]))
		return 0;
	if (failed) {
		error = buf_printf(out, "%s%zu of %zu advisories could not be looked up (%s: %s)", sep,
				   count[ST_FAILED], adv->nvulns, failed->id, failed->failure ? failed->failure : "?");
		sep = "; ";
	}
	if (!error && count[ST_LATE]) {
		error = buf_printf(out, "%s%zu of %zu advisories not looked up within %g s", sep, count[ST_LATE],
				   adv->nvulns, adv->total_s);
		sep = "; ";
	}
	if (!error && count[ST_CANCELLED]) {
		error = buf_printf(out, "%s%zu of %zu advisories' lookups were cancelled", sep, count[ST_CANCELLED],
				   adv->nvulns);
		sep = "; ";
	}
	if (!error && capped && unasked)
		error = buf_printf(out, "%s%zu of %zu advisories not looked up: at most %zu are", sep, unasked,
				   adv->nvulns, adv->max_details);
	if (error)
		return error;
	return buf_printf(out, " (%s shown by id, severity unknown)", missed == 1 ? "it is" : "those are");
}

/* "1 of 10 lookups failed (...); 4 of 10 lookups did not finish within 15 s" */
static int compose_error(struct advisory *adv)
{
	struct buf text = BUF_INIT;
	const char *sep = "";
	int error = 0;

	if (adv->failed) {
		error = buf_printf(&text, "%s%zu of %zu lookups failed (", sep, adv->failed, adv->nitems);
		if (!error)
			error = first_failure(&text, adv);
		if (!error)
			error = buf_putc(&text, ')');
		sep = "; ";
	}
	if (!error && adv->late) {
		error = buf_printf(&text, "%s%zu of %zu lookups did not finish within %g s", sep,
				   adv->late, adv->nitems, adv->total_s);
		sep = "; ";
	}
	if (!error && adv->cancelled) {
		error = buf_printf(&text, "%s%zu of %zu lookups were cancelled", sep, adv->cancelled, adv->nitems);
		sep = "; ";
	}
	if (!error && (error = cut_short(&text, sep, adv)) == 0 && text.len)
		sep = "; ";
	if (!error && (error = details_missed(&text, sep, adv)) == 0 && text.len)
		sep = "; ";
	if (!error && adv->over)
		error = buf_printf(&text, "%s%zu of %zu packages not looked up: at most %zu are", sep, adv->over,
				   adv->nitems + adv->over, adv->max_packages);
	if (error < 0) {
		buf_release(&text);
		return error_nomem();
	}
	free(adv->error);
	adv->error = text.len ? buf_detach(&text) : NULL;
	buf_release(&text);
	return 0;
}

static int finish(struct advisory *adv)
{
	int error;

	if (adv->done)
		return 0;
	adv->done = true;
	if ((error = vulns_count(adv)) < 0 || (error = items_settle(adv)) < 0)
		return error;
	return compose_error(adv);
}

/* Cancel what is left (late when the budget ran out) and finish. */
static int stop(struct advisory *adv, bool expired)
{
	int error;

	adv->expired = expired;
	adv->stopping = true;
	if (adv->sched)
		sched_cancel_all(adv->sched);
	error = adv->sched ? advisory_drain(adv) : 0;
	if (error == 0)
		error = finish(adv);
	return error;
}

/* After each turn: everything in, or the budget spent. */
static int after_turn(struct advisory *adv, int error)
{
	int e = advisory_drain(adv);

	if (error == 0)
		error = e;
	if (error == RL_ENOMEM)
		return error;
	if (error < 0) {
		/* The transport broke: what is left fails, the caller goes on. */
		adv->broken = strdup(error_message());
		if (!adv->broken)
			return error_nomem();
		return stop(adv, false);
	}
	if (!adv->pending)
		return finish(adv);
	if (clock_ms() >= adv->deadline)
		return stop(adv, true);
	/* A front end shows the advisories as they come. */
	if (adv->changed) {
		adv->changed = false;
		return items_refill(adv);
	}
	return 0;
}

/* --- running ------------------------------------------------------------- */

static int open_sched(struct advisory *adv)
{
	struct sched_options o;

	sched_options_init(&o);
	o.concurrency = CONCURRENCY;
	/* One attempt each: a request never outlives its timeout, nor the budget. */
	o.timeout = adv->request_s;
	o.retries = 0;
	return sched_new(&adv->sched, &o, adv->group);
}

static bool running(const struct advisory *adv)
{
	return adv->started && !adv->done && adv->sched;
}

static int until_deadline(const struct advisory *adv)
{
	int64_t left = adv->deadline - clock_ms();

	if (left <= 0)
		return 0;
	return left > INT_MAX ? INT_MAX : (int)left;
}

static int member_timeout(void *ctx)
{
	struct advisory *adv = ctx;

	return running(adv) ? until_deadline(adv) : -1;
}

static int member_step(void *ctx, const struct pollfd *fds, int n)
{
	struct advisory *adv = ctx;

	(void)fds;
	(void)n;
	return running(adv) ? after_turn(adv, 0) : 0;
}

/* After the scheduler, in its group: the answers are taken in the step that brought them. */
static int member_join(struct advisory *adv)
{
	adv->member.timeout = member_timeout;
	adv->member.step = member_step;
	adv->member.ctx = adv;
	return poll_group_join(sched_group(adv->sched), &adv->member);
}

int advisory_start(struct advisory *adv)
{
	size_t i, n;
	int error;

	if (adv->started)
		return error_set(RL_EUSAGE, "the advisory lookup has already started");
	adv->started = true;
	adv->deadline = clock_ms() + (int64_t)(adv->total_s * 1000.0 + 0.5);
	/* Advisories from an earlier lookup do not survive this one. */
	for (i = 0; i < adv->nitems; i++)
		deps_advisories_release(adv->items[i].package);
	if (!adv->nasked)
		return finish(adv);
	if ((error = open_sched(adv)) < 0 || (error = member_join(adv)) < 0)
		return error;
	for (i = 0; i < adv->nasked; i += n) {
		n = adv->nasked - i < adv->batch_size ? adv->nasked - i : adv->batch_size;
		if ((error = advisory_batch_send(adv, adv->asked + i, n)) < 0)
			return error;
	}
	/* The transfers begin now rather than at the caller's first turn. */
	return after_turn(adv, sched_step(adv->sched, NULL, 0));
}

int advisory_timeout(struct advisory *adv)
{
	return running(adv) ? poll_sooner(sched_timeout(adv->sched), until_deadline(adv)) : -1;
}

int advisory_wait(struct advisory *adv, int max_ms)
{
	int left;

	if (!running(adv))
		return 0;
	left = until_deadline(adv);
	if (max_ms < 0 || max_ms > left)
		max_ms = left;
	return poll_group_wait(sched_group(adv->sched), max_ms);
}

struct poll_group *advisory_group(struct advisory *adv)
{
	return adv->sched ? sched_group(adv->sched) : adv->group;
}

bool advisory_done(const struct advisory *adv)
{
	return adv->done;
}

void advisory_cancel(struct advisory *adv)
{
	if (!adv->started) {
		adv->started = true;
		adv->done = true;
		return;
	}
	if (!adv->done)
		stop(adv, false);
}

size_t advisory_checked(const struct advisory *adv)
{
	return adv->checked;
}

const char *advisory_error(const struct advisory *adv)
{
	return adv->error;
}
