/*
 * Security advisories from the OSV API, bounded and fail-open: one POST
 * {base}/v1/query per package and side (old version, new version) through
 * a scheduler of our own, driven from the caller's loop. A package's
 * advisories are filled once both of its answers are in; a request that
 * fails, or that the budget leaves unfinished, leaves its package without
 * them and is counted in the message of advisory_error().
 */
#include "advisory.h"
#include "clock.h"

#include "buf.h"
#include "config.h"
#include "sched.h"
#include "status.h"

#include <jansson.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define OSV_URL "https://api.osv.dev"
#define DEFAULT_MAX_PACKAGES 10
#define DEFAULT_REQUEST_S 5.0
#define DEFAULT_TOTAL_S 15.0
/* Transfers at once: the default ten packages, both sides, in two rounds. */
#define CONCURRENCY 10
/* A summary taken from "details" is its first line, cut to this. */
#define SUMMARY_MAX 200
/* Advisories kept from one answer (one version of one package). */
#define VULNS_MAX 100
/* Budgets beyond a day are taken for mistakes (and keep the sums integral). */
#define SECONDS_MAX 86400.0

enum side { SIDE_OLD, SIDE_NEW };

enum query_state {
	QUERY_NONE,             /* no version on this side: not asked */
	QUERY_PENDING,
	QUERY_OK,
	QUERY_FAILED,           /* an HTTP error, no answer, a bad answer */
	QUERY_LATE,             /* cancelled when the budget ran out */
	QUERY_CANCELLED,        /* cancelled by the caller */
};

struct item;

struct query {
	struct item *item;
	enum query_state state;
	json_t *vulns;          /* the answer's "vulns" array, or NULL for none */
	char *failure;          /* why it failed: "HTTP 500: ..." */
};

struct item {
	struct deps_package *package;
	struct query side[2];
	bool settled;
};

struct advisory {
	struct deps_analysis *analysis;
	char *url;              /* {base}/v1/query */
	size_t max_packages;
	double request_s, total_s;

	struct item *items;
	size_t nitems;

	struct sched *sched;
	struct poll_group *group;       /* given to advisory_new (NULL: the scheduler's own) */
	struct poll_member member;      /* takes the scheduler's events */
	int64_t deadline;       /* CLOCK_MONOTONIC ms */
	size_t pending;         /* queries not settled */
	bool started, done, expired;

	size_t checked, failed, late, cancelled;
	char *broken;           /* why the transport stopped, when it did */
	char *error;
};

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

/* The majors first, then by name; the manifest order among equals. */
static int package_order(const void *a, const void *b)
{
	const struct deps_package *p = *(const struct deps_package *const *)a;
	const struct deps_package *q = *(const struct deps_package *const *)b;
	int cmp;

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
	if (n > adv->max_packages)
		n = adv->max_packages;
	adv->items = n ? calloc(n, sizeof(*adv->items)) : NULL;
	if (n && !adv->items) {
		free(order);
		return error_nomem();
	}
	for (i = 0; i < n; i++) {
		adv->items[i].package = order[i];
		adv->items[i].side[SIDE_OLD].item = &adv->items[i];
		adv->items[i].side[SIDE_NEW].item = &adv->items[i];
	}
	adv->nitems = n;
	free(order);
	return 0;
}

/* --- life ---------------------------------------------------------------- */

static double seconds_or(double value, double fallback)
{
	if (!(value > 0))
		return fallback;
	return value < SECONDS_MAX ? value : SECONDS_MAX;
}

static int make_url(struct advisory *adv, const char *base)
{
	struct buf url = BUF_INIT;
	size_t len;

	if (!base || !*base)
		base = OSV_URL;
	len = strlen(base);
	while (len > 0 && base[len - 1] == '/')
		len--;
	if (buf_put(&url, base, len) < 0 || buf_puts(&url, "/v1/query") < 0) {
		buf_release(&url);
		return error_nomem();
	}
	adv->url = buf_detach(&url);
	return 0;
}

int advisory_new(struct advisory **out, struct deps_analysis *analysis,
		 const struct advisory_options *options, struct poll_group *group)
{
	struct advisory *adv;
	int error;

	*out = NULL;
	adv = calloc(1, sizeof(*adv));
	if (!adv)
		return error_nomem();
	adv->analysis = analysis;
	adv->group = group;
	adv->max_packages = options && options->max_packages ? options->max_packages :
		DEFAULT_MAX_PACKAGES;
	adv->request_s = seconds_or(options ? options->request_timeout : 0, DEFAULT_REQUEST_S);
	adv->total_s = seconds_or(options ? options->total_timeout : 0, DEFAULT_TOTAL_S);
	if ((error = make_url(adv, options ? options->base_url : NULL)) < 0 ||
	    (error = select_items(adv)) < 0) {
		advisory_free(adv);
		return error;
	}
	*out = adv;
	return 0;
}

void advisory_free(struct advisory *adv)
{
	size_t i;

	if (!adv)
		return;
	poll_group_leave(&adv->member);
	sched_free(adv->sched);
	for (i = 0; i < adv->nitems; i++) {
		json_decref(adv->items[i].side[SIDE_OLD].vulns);
		json_decref(adv->items[i].side[SIDE_NEW].vulns);
		free(adv->items[i].side[SIDE_OLD].failure);
		free(adv->items[i].side[SIDE_NEW].failure);
	}
	free(adv->items);
	free(adv->url);
	free(adv->broken);
	free(adv->error);
	free(adv);
}

/* --- the advisories of a package ----------------------------------------- */


/* CVSS 3.1's Roundup: up to one decimal, without floating-point surprises. */
static double cvss_roundup(double x)
{
	long i = (long)(x * 100000.0 + 0.5);

	if (i % 10000 == 0)
		return (double)i / 100000.0;
	return (double)(i / 10000 + 1) / 10.0;
}

static double power(double x, int n)
{
	double r = 1;

	while (n-- > 0)
		r *= x;
	return r;
}

struct cvss_metric {
	const char *name;
	const char *letters;
	double values[4];
};

/* The base metrics; PR's values are for an unchanged scope (changed below). */
static const struct cvss_metric cvss_metrics[] = {
	{ "AV", "NALP", { 0.85, 0.62, 0.55, 0.2 } },
	{ "AC", "LH",   { 0.77, 0.44 } },
	{ "PR", "NLH",  { 0.85, 0.62, 0.27 } },
	{ "UI", "NR",   { 0.85, 0.62 } },
	{ "S",  "UC",   { 0, 1 } },
	{ "C",  "HLN",  { 0.56, 0.22, 0 } },
	{ "I",  "HLN",  { 0.56, 0.22, 0 } },
	{ "A",  "HLN",  { 0.56, 0.22, 0 } },
};
#define NMETRICS (sizeof(cvss_metrics) / sizeof(cvss_metrics[0]))
enum { M_AV, M_AC, M_PR, M_UI, M_S, M_C, M_I, M_A };

/* One "NAME:V" of a vector into its metric's slot; others are ignored. */
static bool cvss_metric(double *values, int *letters, const char *part, size_t len)
{
	size_t i, name_len;
	const char *pos;

	for (i = 0; i < NMETRICS; i++) {
		name_len = strlen(cvss_metrics[i].name);
		if (len != name_len + 2 || strncmp(part, cvss_metrics[i].name, name_len) ||
		    part[name_len] != ':')
			continue;
		pos = strchr(cvss_metrics[i].letters, part[name_len + 1]);
		if (!pos || !*pos)
			return false;
		letters[i] = (int)(pos - cvss_metrics[i].letters);
		values[i] = cvss_metrics[i].values[letters[i]];
	}
	return true;
}

/* The base score of a CVSS 3.0 or 3.1 vector; false when it is not one. */
static bool cvss3_score(double *out, const char *vector)
{
	double v[NMETRICS], iss, impact, exploit, base;
	int letters[NMETRICS];
	const char *p;
	size_t i, len;
	bool changed;

	if (strncmp(vector, "CVSS:3.", 7))
		return false;
	for (i = 0; i < NMETRICS; i++)
		letters[i] = -1;
	for (p = strchr(vector, '/'); p && *p; p += len) {
		p++;
		len = strcspn(p, "/");
		if (!cvss_metric(v, letters, p, len))
			return false;
	}
	for (i = 0; i < NMETRICS; i++)
		if (letters[i] < 0)
			return false;
	changed = letters[M_S] == 1;
	if (changed && letters[M_PR] > 0)
		v[M_PR] = letters[M_PR] == 1 ? 0.68 : 0.5;
	iss = 1 - (1 - v[M_C]) * (1 - v[M_I]) * (1 - v[M_A]);
	impact = changed ? 7.52 * (iss - 0.029) - 3.25 * power(iss - 0.02, 15) : 6.42 * iss;
	exploit = 8.22 * v[M_AV] * v[M_AC] * v[M_PR] * v[M_UI];
	base = (changed ? 1.08 : 1.0) * (impact + exploit);
	*out = impact <= 0 ? 0 : cvss_roundup(base < 10 ? base : 10);
	return true;
}

static const char *band(double score)
{
	return score >= 9 ? "critical" : score >= 7 ? "high" : score >= 4 ? "medium" : "low";
}

static const char *named_severity(const char *s)
{
	static const char *const names[][2] = {
		{ "CRITICAL", "critical" }, { "HIGH", "high" }, { "MODERATE", "medium" },
		{ "MEDIUM", "medium" }, { "LOW", "low" },
	};
	size_t i;

	for (i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i][0]))
			return names[i][1];
	return NULL;
}

/* database_specific.severity, else a CVSS v3 vector's base score, else unknown. */
static const char *severity_of(const json_t *vuln)
{
	const char *named = named_severity(json_string_value(
		json_object_get(json_object_get(vuln, "database_specific"), "severity")));
	const json_t *entry;
	size_t i;
	double score;

	if (named)
		return named;
	json_array_foreach(json_object_get(vuln, "severity"), i, entry) {
		const char *type = json_string_value(json_object_get(entry, "type"));
		const char *vector = json_string_value(json_object_get(entry, "score"));

		if (type && vector && !strncmp(type, "CVSS_V3", 7) && cvss3_score(&score, vector))
			return band(score);
	}
	return "unknown";
}

/* The summary, else the first line of the details, cut on a character. */
static char *summary_of(const json_t *vuln)
{
	const char *s = json_string_value(json_object_get(vuln, "summary"));
	size_t len;

	if (!s || !*s)
		s = json_string_value(json_object_get(vuln, "details"));
	if (!s)
		return strdup("");
	s += strspn(s, " \t\r\n");
	len = strcspn(s, "\r\n");
	if (len > SUMMARY_MAX) {
		len = SUMMARY_MAX;
		while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--;
	}
	return strndup(s, len);
}

static bool names_vuln(const json_t *vuln, const char *id)
{
	const json_t *alias;
	size_t i;

	if (!strcmp(json_string_value(json_object_get(vuln, "id")), id))
		return true;
	json_array_foreach(json_object_get(vuln, "aliases"), i, alias)
		if (json_is_string(alias) && !strcmp(json_string_value(alias), id))
			return true;
	return false;
}

/* Whether a list of vulns has this one, by its id or an alias. */
static bool has_vuln(const json_t *vulns, const json_t *vuln)
{
	const json_t *other, *alias;
	size_t i, j;

	json_array_foreach(vulns, i, other) {
		if (names_vuln(other, json_string_value(json_object_get(vuln, "id"))))
			return true;
		json_array_foreach(json_object_get(vuln, "aliases"), j, alias)
			if (json_is_string(alias) && names_vuln(other, json_string_value(alias)))
				return true;
	}
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

static int add_advisory(struct deps_package *p, const json_t *vuln, bool fixed)
{
	struct deps_advisory *a = &p->advisories[p->nadvisories];
	const char *id = json_string_value(json_object_get(vuln, "id"));

	if (already(p, id))
		return 0;
	a->id = strdup(id);
	a->summary = summary_of(vuln);
	a->severity = strdup(severity_of(vuln));
	a->fixed = fixed;
	p->nadvisories++;
	if (!a->id || !a->summary || !a->severity)
		return error_nomem();
	return 0;
}

/* Those still open in the new version first, then those the bump fixes. */
static int fill(struct item *item)
{
	struct deps_package *p = item->package;
	const json_t *old = item->side[SIDE_OLD].vulns, *new = item->side[SIDE_NEW].vulns;
	const json_t *vuln;
	size_t i, n = json_array_size(old) + json_array_size(new);
	int error = 0;

	deps_advisories_release(p);
	if (!n)
		return 0;
	p->advisories = calloc(n, sizeof(*p->advisories));
	if (!p->advisories)
		return error_nomem();
	json_array_foreach(new, i, vuln)
		if (!error)
			error = add_advisory(p, vuln, false);
	json_array_foreach(old, i, vuln)
		if (!error && !has_vuln(new, vuln))
			error = add_advisory(p, vuln, true);
	if (error < 0)
		deps_advisories_release(p);
	return error;
}

/* --- answers ------------------------------------------------------------- */

/* The vulns of an answer (kept), or false with why it is not one. */
static bool read_answer(struct query *q, const struct sched_event *ev, char *why, size_t size)
{
	json_error_t jerr;
	json_t *root = json_loadb(ev->body ? ev->body : "", ev->body_len, 0, &jerr);
	json_t *vulns = json_object_get(root, "vulns"), *vuln;
	size_t i;
	bool ok = false;

	if (!json_is_object(root)) {
		snprintf(why, size, "the answer is not a JSON object%s%s",
			 root ? "" : ": ", root ? "" : jerr.text);
		goto done;
	}
	if (vulns && !json_is_array(vulns) && !json_is_null(vulns)) {
		snprintf(why, size, "the answer's vulns is not a list");
		goto done;
	}
	/*
	 * A version with more advisories than any real one has is an answer to
	 * distrust, and matching old against new is quadratic: only the first
	 * VULNS_MAX are kept.
	 */
	while (json_array_size(vulns) > VULNS_MAX)
		json_array_remove(vulns, json_array_size(vulns) - 1);
	json_array_foreach(vulns, i, vuln) {
		if (!json_is_string(json_object_get(vuln, "id"))) {
			snprintf(why, size, "a vuln of the answer has no id");
			goto done;
		}
	}
	q->vulns = json_incref(vulns);
	ok = true;
done:
	json_decref(root);
	return ok;
}

static bool settled(const struct query *q)
{
	return q->state != QUERY_PENDING;
}

static bool any(const struct item *item, enum query_state state)
{
	return item->side[SIDE_OLD].state == state || item->side[SIDE_NEW].state == state;
}

/* Both sides are in: fill the package, or count why not. */
static int item_settle(struct advisory *adv, struct item *item)
{
	if (item->settled || !settled(&item->side[SIDE_OLD]) || !settled(&item->side[SIDE_NEW]))
		return 0;
	item->settled = true;
	if (any(item, QUERY_FAILED))
		adv->failed++;
	else if (any(item, QUERY_LATE))
		adv->late++;
	else if (any(item, QUERY_CANCELLED))
		adv->cancelled++;
	else {
		adv->checked++;
		return fill(item);
	}
	return 0;
}

static int on_event(struct advisory *adv, const struct sched_event *ev)
{
	struct query *q = ev->user;
	char why[256];
	int error = 0, e;

	if (ev->status == SCHED_STARTED || q->state != QUERY_PENDING)
		return 0;
	adv->pending--;
	if (ev->status == SCHED_DONE && read_answer(q, ev, why, sizeof(why))) {
		q->state = QUERY_OK;
	} else if (ev->status == SCHED_CANCELLED && !adv->broken) {
		q->state = adv->expired ? QUERY_LATE : QUERY_CANCELLED;
	} else {
		q->state = QUERY_FAILED;
		q->failure = strdup(ev->status == SCHED_DONE ? why :
				    ev->status == SCHED_CANCELLED ? adv->broken : ev->error);
		if (!q->failure)
			error = error_nomem();
	}
	e = item_settle(adv, q->item);
	return error ? error : e;
}

static int drain(struct advisory *adv)
{
	struct sched_event ev;
	int error = 0, e;

	while (sched_next(adv->sched, &ev)) {
		e = on_event(adv, &ev);
		if (error == 0)
			error = e;
		sched_event_release(&ev);
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

	for (i = 0; i < adv->nitems; i++) {
		for (side = SIDE_OLD; side <= SIDE_NEW; side++) {
			q = &adv->items[i].side[side];
			if (q->state == QUERY_FAILED)
				return buf_printf(out, "%s %s: %s", q->item->package->name,
						  side == SIDE_OLD ? q->item->package->from_version :
						  q->item->package->to_version,
						  q->failure ? q->failure : "?");
		}
	}
	return buf_puts(out, "?");
}

/* "advisories: 1 of 10 lookups failed (...); 4 of 10 lookups did not finish within 15 s" */
static int compose_error(struct advisory *adv)
{
	struct buf text = BUF_INIT;
	const char *sep = "advisories: ";
	int error = 0;

	if (!adv->failed && !adv->late && !adv->cancelled)
		return 0;
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
	if (!error && adv->cancelled)
		error = buf_printf(&text, "%s%zu of %zu lookups were cancelled", sep,
				   adv->cancelled, adv->nitems);
	if (error < 0) {
		buf_release(&text);
		return error_nomem();
	}
	free(adv->error);
	adv->error = buf_detach(&text);
	return 0;
}

static int finish(struct advisory *adv)
{
	if (adv->done)
		return 0;
	adv->done = true;
	return compose_error(adv);
}

/* Cancel what is left (late when the budget ran out) and finish. */
static int stop(struct advisory *adv, bool expired)
{
	int error;

	adv->expired = expired;
	if (adv->sched)
		sched_cancel_all(adv->sched);
	error = adv->sched ? drain(adv) : 0;
	if (error == 0)
		error = finish(adv);
	return error;
}

/* After each turn: everything in, or the budget spent. */
static int after_turn(struct advisory *adv, int error)
{
	int e = drain(adv);

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
	return 0;
}

/* --- running ------------------------------------------------------------- */

static int submit(struct advisory *adv, struct query *q, const char *version)
{
	static const char *const headers[] = {
		"Content-Type: application/json", "Accept: application/json",
	};
	const struct deps_package *p = q->item->package;
	struct sched_request req = { 0 };
	uint64_t task;
	json_t *body = json_pack("{s{ssss}ss}", "package", "name", p->name, "ecosystem",
				 deps_ecosystem_osv(p->ecosystem), "version", version);
	char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
	int error;

	json_decref(body);
	if (!text)
		return error_nomem();
	req.url = adv->url;
	req.headers = headers;
	req.nheaders = sizeof(headers) / sizeof(headers[0]);
	req.body = text;
	req.body_len = strlen(text);
	error = sched_add(adv->sched, &task, &req, q);
	free(text);
	if (error == 0) {
		q->state = QUERY_PENDING;
		adv->pending++;
	}
	return error;
}

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
	size_t i;
	int error;

	if (adv->started)
		return error_set(RL_EUSAGE, "the advisory lookup has already started");
	adv->started = true;
	adv->deadline = clock_ms() + (int64_t)(adv->total_s * 1000.0 + 0.5);
	if (!adv->nitems)
		return finish(adv);
	if ((error = open_sched(adv)) < 0 || (error = member_join(adv)) < 0)
		return error;
	for (i = 0; i < adv->nitems; i++) {
		struct item *item = &adv->items[i];

		deps_advisories_release(item->package);
		if (item->package->from_version &&
		    (error = submit(adv, &item->side[SIDE_OLD], item->package->from_version)) < 0)
			return error;
		if (item->package->to_version &&
		    (error = submit(adv, &item->side[SIDE_NEW], item->package->to_version)) < 0)
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
