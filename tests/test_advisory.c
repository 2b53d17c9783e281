/*
 * The advisory lookup against a fake OSV API (the fake LLM server's path
 * rules) over real HTTP: the versions asked in batches (/v1/querybatch,
 * one result per query in the order asked), pages followed, each
 * advisory's details fetched once (/v1/vulns/ID); advisories fixed,
 * brought and still open, severities from the database and from CVSS
 * vectors, empty answers, a batch or a detail that fails among others,
 * answers that are no answers, the per-request timeout, the total budget,
 * the caps on packages, pages and details, and the options. The analyses
 * are built by hand: only their types come from deps.h. Budgets are
 * small, and times are checked as sanity bounds.
 */
#include "testlib.h"
#include "fakellm/fakellm.h"

#include "advisory.h"
#include "config.h"
#include "repo.h"
#include "status.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#define MAX_PACKAGES 1100
#define COUNT(a) (sizeof(a) / sizeof(*(a)))
#define DRIVE_LIMIT_MS 10000

struct fixture {
	struct fakellm fake;
	struct deps_package packages[MAX_PACKAGES];
	struct deps_analysis analysis;
	struct advisory_options options;
	struct advisory *adv;
	json_t *rules;          /* rules before the batch's: faults, details */
	json_t *results;        /* the batch rule's entries: one per package and version */
	json_t *records;        /* id -> the record GET /v1/vulns/ID answers */
	int64_t started;        /* ms, when advisory_start was called */
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->analysis.packages = fx->packages;
	fx->rules = json_array();
	fx->results = json_array();
	fx->records = json_object();
	fx->options.request_timeout = 3;
	fx->options.total_timeout = 5;
	*state = fx;
	return 0;
}

static void package_release(struct deps_package *p)
{
	deps_advisories_release(p);
	free(p->name);
	free(p->manifest);
	free(p->from);
	free(p->to);
	free(p->from_version);
	free(p->to_version);
	free(p->via);
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	size_t i;

	advisory_free(fx->adv);
	for (i = 0; i < fx->analysis.npackages; i++)
		package_release(&fx->packages[i]);
	json_decref(fx->rules);
	json_decref(fx->results);
	json_decref(fx->records);
	fakellm_stop(&fx->fake);
	free(fx);
	return 0;
}

static char *dup_or_null(const char *s)
{
	char *copy = s ? strdup(s) : NULL;

	if (s && !copy)
		fail_msg("out of memory");
	return copy;
}

static struct deps_package *add_package(struct fixture *fx, enum deps_ecosystem eco,
					const char *name, const char *from, const char *to,
					enum deps_bump bump)
{
	struct deps_package *p;

	assert_true(fx->analysis.npackages < MAX_PACKAGES);
	p = &fx->packages[fx->analysis.npackages++];
	p->ecosystem = eco;
	p->name = dup_or_null(name);
	p->manifest = dup_or_null("package.json");
	p->from = dup_or_null(from);
	p->to = dup_or_null(to);
	p->from_version = dup_or_null(from);
	p->to_version = dup_or_null(to);
	p->bump = bump;
	p->breaking = bump == BUMP_MAJOR;
	return p;
}

/* JSON written with single quotes, for readability here. */
static json_t *J(const char *text)
{
	char *copy = strdup(text), *p;
	json_error_t err;
	json_t *value;

	assert_non_null(copy);
	for (p = copy; *p; p++)
		if (*p == '\'')
			*p = '"';
	value = json_loads(copy, JSON_DECODE_ANY, &err);
	if (!value)
		fail_msg("bad JSON in the test: %s: %s", err.text, copy);
	free(copy);
	return value;
}

/* What a query of one package (and version, when not NULL) holds, as the fake server matches it. */
static json_t *match_of(const char *name, const char *version)
{
	char n[256], v[256];
	json_t *match = json_array();

	snprintf(n, sizeof(n), "\"name\":\"%s\"", name);
	json_array_append_new(match, json_string(n));
	if (version) {
		snprintf(v, sizeof(v), "\"version\":\"%s\"", version);
		json_array_append_new(match, json_string(v));
	}
	return match;
}

/* The batch result of one package and version, as is. */
static void result(struct fixture *fx, const char *name, const char *version, json_t *value)
{
	json_array_append_new(fx->results, json_pack("{s:o, s:o}", "match", match_of(name, version),
						     "result", value));
}

/*
 * The advisories of one package and version, as OSV's records (single
 * quotes): the batch answers their ids, /v1/vulns/ID each record. A body
 * that is no list of records with ids is the batch's result as is.
 */
static void answer(struct fixture *fx, const char *name, const char *version, const char *body)
{
	json_t *value = J(body), *vulns = json_object_get(value, "vulns"), *ids = json_array(), *rec;
	size_t i;

	json_array_foreach(vulns, i, rec) {
		const char *id = json_string_value(json_object_get(rec, "id"));

		if (!id) {
			json_decref(ids);
			result(fx, name, version, value);
			return;
		}
		json_array_append_new(ids, json_pack("{s:s, s:s}", "id", id, "modified", "2024-05-01T00:00:00Z"));
		json_object_set(fx->records, id, rec);
	}
	if (json_is_array(vulns))
		json_object_set_new(value, "vulns", ids);
	else
		json_decref(ids);
	result(fx, name, version, value);
}

/* A rule of its own, tried before the batch's and the details' (single quotes). */
static json_t *rule(struct fixture *fx, const char *text)
{
	json_t *r = J(text);

	json_array_append_new(fx->rules, r);
	return r;
}

/* A rule for the batch that holds this package (and version). */
static json_t *batch_rule(struct fixture *fx, const char *name, const char *version)
{
	json_t *r = json_pack("{s:s, s:o}", "match_path", "/v1/querybatch", "match", match_of(name, version));

	json_array_append_new(fx->rules, r);
	return r;
}

static int longer_first(const void *a, const void *b)
{
	return (int)strlen(*(const char *const *)b) - (int)strlen(*(const char *const *)a);
}

/* Start the server: the rules so far, the details (a longer id first: paths match by substring), the batch. */
static void serve(struct fixture *fx)
{
	const char *ids[256], *id;
	json_t *script, *rules = json_copy(fx->rules), *rec;
	size_t i, n = 0;
	char path[256], *text;

	json_object_foreach(fx->records, id, rec) {
		assert_true(n < 256);
		ids[n++] = id;
	}
	qsort(ids, n, sizeof(*ids), longer_first);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/v1/vulns/%s", ids[i]);
		json_array_append_new(rules, json_pack("{s:s, s:O}", "match_path", path, "body",
						       json_object_get(fx->records, ids[i])));
	}
	json_array_append_new(rules, json_pack("{s:s, s:O}", "match_path", "/v1/querybatch", "results",
					       fx->results));
	script = json_pack("{s:o}", "rules", rules);
	text = json_dumps(script, JSON_COMPACT);
	assert_non_null(text);
	fakellm_start(&fx->fake, text);
	free(text);
	json_decref(script);
	fx->options.base_url = fx->fake.url;
}

static void start(struct fixture *fx)
{
	assert_int_equal(advisory_new(&fx->adv, &fx->analysis, &fx->options, NULL), 0);
	fx->started = now_ms();
	assert_int_equal(advisory_start(fx->adv), 0);
}

/*
 * A front end's loop: wait on the lookup's poll group for as long as its
 * timeout says, and step it. The timeout never reaches past the budget.
 * Returns the ms it took.
 */
static long drive(struct fixture *fx)
{
	int64_t deadline = fx->started + (int64_t)(fx->options.total_timeout * 1000);

	while (!advisory_done(fx->adv)) {
		int timeout = advisory_timeout(fx->adv);

		assert_true(timeout >= 0);
		assert_true(now_ms() + timeout <= deadline + 2);
		assert_int_equal(advisory_wait(fx->adv, -1), 0);
		assert_true(now_ms() - fx->started < DRIVE_LIMIT_MS);
	}
	assert_int_equal(advisory_timeout(fx->adv), -1);
	return (long)(now_ms() - fx->started);
}

static const struct deps_advisory *find(const struct deps_package *p, const char *id)
{
	size_t i;

	for (i = 0; i < p->nadvisories; i++)
		if (!strcmp(p->advisories[i].id, id))
			return &p->advisories[i];
	fail_msg("%s has no advisory %s", p->name, id);
	return NULL;
}

static void assert_prefix(const char *text, const char *prefix)
{
	if (!text || strncmp(text, prefix, strlen(prefix)))
		fail_msg("'%s' does not begin with '%s'", text ? text : "(null)", prefix);
}

static void assert_contains(const char *text, const char *part)
{
	if (!text || !strstr(text, part))
		fail_msg("'%s' does not hold '%s'", text ? text : "(null)", part);
}

/* The requests the server saw whose path holds this (their end lines may still be on their way). */
static json_t *requests_to(struct fixture *fx, const char *path)
{
	json_t *all = fakellm_requests(&fx->fake), *out = json_array(), *rec;
	size_t i;

	json_array_foreach(all, i, rec)
		if (strstr(json_string_value(json_object_get(rec, "path")), path))
			json_array_append(out, rec);
	json_decref(all);
	return out;
}

/* Every query of every batch the server saw, in the order sent. */
static json_t *queries(struct fixture *fx)
{
	json_t *batches = requests_to(fx, "/v1/querybatch"), *out = json_array(), *rec;
	size_t i;

	json_array_foreach(batches, i, rec)
		json_array_extend(out, json_object_get(json_object_get(rec, "body"), "queries"));
	json_decref(batches);
	return out;
}

static size_t count_to(struct fixture *fx, const char *path)
{
	json_t *reqs = requests_to(fx, path);
	size_t n = json_array_size(reqs);

	json_decref(reqs);
	return n;
}

/* --- answers ------------------------------------------------------------- */

static void test_fixed_brought_and_open(void **state)
{
	struct fixture *fx = *state;
	struct deps_package *lodash, *express;
	const struct deps_advisory *a;
	json_t *reqs, *rec, *qs;
	size_t i;

	lodash = add_package(fx, ECO_NPM, "lodash", "4.17.20", "4.17.21", BUMP_PATCH);
	express = add_package(fx, ECO_NPM, "express", "4.18.2", "5.0.0", BUMP_MAJOR);
	answer(fx, "lodash", "4.17.20",
	       "{'vulns': ["
	       "{'id': 'GHSA-fixed', 'summary': 'Prototype pollution', 'aliases': ['CVE-2021-1'],"
	       " 'database_specific': {'severity': 'HIGH'}},"
	       "{'id': 'GHSA-both', 'summary': 'ReDoS', 'database_specific': {'severity': 'MODERATE'}},"
	       "{'id': 'GHSA-alias', 'aliases': ['CVE-2022-9'], 'summary': 'Named otherwise later'}]}");
	answer(fx, "lodash", "4.17.21",
	       "{'vulns': ["
	       "{'id': 'GHSA-both', 'summary': 'ReDoS', 'database_specific': {'severity': 'MODERATE'}},"
	       "{'id': 'CVE-2022-9', 'summary': 'The same, by its CVE'},"
	       "{'id': 'GHSA-new', 'summary': 'Brought by 4.17.21', 'database_specific': {'severity': 'LOW'}}]}");
	answer(fx, "express", "5.0.0",
	       "{'vulns': [{'id': 'GHSA-open', 'summary': 'Open redirect',"
	       " 'database_specific': {'severity': 'CRITICAL'}}]}");
	answer(fx, "express", "4.18.2",
	       "{'vulns': [{'id': 'GHSA-open', 'summary': 'Open redirect',"
	       " 'database_specific': {'severity': 'CRITICAL'}}]}");
	serve(fx);
	start(fx);
	drive(fx);
	assert_null(advisory_error(fx->adv));
	assert_int_equal(advisory_checked(fx->adv), 2);

	/* The new version's first (brought, or still open), then those the bump fixes. */
	assert_int_equal(lodash->nadvisories, 4);
	assert_string_equal(lodash->advisories[0].id, "GHSA-both");
	assert_false(lodash->advisories[0].fixed);
	assert_false(lodash->advisories[0].introduced);
	assert_string_equal(lodash->advisories[0].severity, "medium");
	assert_string_equal(lodash->advisories[1].id, "CVE-2022-9");
	assert_false(lodash->advisories[1].fixed);
	/* Known to the old version by an alias: still open, not brought. */
	assert_false(lodash->advisories[1].introduced);
	a = find(lodash, "GHSA-new");
	assert_true(a->introduced);
	assert_false(a->fixed);
	assert_string_equal(a->severity, "low");
	a = find(lodash, "GHSA-fixed");
	assert_true(a->fixed);
	assert_false(a->introduced);
	assert_string_equal(a->severity, "high");
	assert_string_equal(a->summary, "Prototype pollution");
	/* Known by an alias in the new answer: not fixed, and not twice. */
	for (i = 0; i < lodash->nadvisories; i++)
		assert_string_not_equal(lodash->advisories[i].id, "GHSA-alias");

	assert_int_equal(express->nadvisories, 1);
	assert_string_equal(express->advisories[0].id, "GHSA-open");
	assert_false(express->advisories[0].fixed);
	assert_false(express->advisories[0].introduced);
	assert_string_equal(express->advisories[0].severity, "critical");
	assert_string_equal(express->advisories[0].summary, "Open redirect");

	/* One batch of the four versions, in OSV's shape, as JSON. */
	reqs = requests_to(fx, "/v1/querybatch");
	assert_int_equal(json_array_size(reqs), 1);
	rec = json_array_get(reqs, 0);
	assert_string_equal(json_string_value(json_object_get(rec, "method")), "POST");
	assert_string_equal(json_string_value(json_object_get(rec, "content_type")), "application/json");
	qs = json_object_get(json_object_get(rec, "body"), "queries");
	assert_int_equal(json_array_size(qs), 4);
	json_array_foreach(qs, i, rec) {
		assert_string_equal(json_string_value(json_object_get(json_object_get(rec, "package"), "ecosystem")),
				    "npm");
		assert_non_null(json_string_value(json_object_get(json_object_get(rec, "package"), "name")));
		assert_non_null(json_string_value(json_object_get(rec, "version")));
		assert_null(json_object_get(rec, "page_token"));
	}
	/* The major first: express's versions, then lodash's, the old before the new. */
	assert_string_equal(json_string_value(json_object_get(json_array_get(qs, 0), "version")), "4.18.2");
	assert_string_equal(json_string_value(json_object_get(json_array_get(qs, 3), "version")), "4.17.21");
	json_decref(reqs);

	/* Each advisory's details once, by GET, GHSA-both and GHSA-open too. */
	reqs = requests_to(fx, "/v1/vulns/");
	assert_int_equal(json_array_size(reqs), 6);
	json_array_foreach(reqs, i, rec) {
		assert_string_equal(json_string_value(json_object_get(rec, "method")), "GET");
		assert_true(json_is_null(json_object_get(rec, "body")));
	}
	json_decref(reqs);
	assert_int_equal(count_to(fx, "/v1/vulns/GHSA-both"), 1);
	assert_int_equal(count_to(fx, "/v1/vulns/GHSA-open"), 1);
}

static void test_one_side_only(void **state)
{
	struct fixture *fx = *state;
	struct deps_package *added, *removed, *unread;
	json_t *qs, *q;
	size_t i;

	added = add_package(fx, ECO_PIP, "requests", NULL, "2.0.0", BUMP_ADDED);
	removed = add_package(fx, ECO_CARGO, "openssl", "0.10.1", NULL, BUMP_REMOVED);
	unread = add_package(fx, ECO_GO, "example.com/mod", NULL, NULL, BUMP_UNKNOWN);
	answer(fx, "requests", "2.0.0", "{'vulns': [{'id': 'PYSEC-1', 'summary': 'Leak'}]}");
	answer(fx, "openssl", "0.10.1", "{'vulns': [{'id': 'RUSTSEC-1', 'summary': 'UAF'}]}");
	serve(fx);
	start(fx);
	drive(fx);
	assert_null(advisory_error(fx->adv));
	assert_int_equal(advisory_checked(fx->adv), 2);
	assert_int_equal(added->nadvisories, 1);
	assert_false(added->advisories[0].fixed);
	/* A package added brings what its version has. */
	assert_true(added->advisories[0].introduced);
	assert_string_equal(added->advisories[0].severity, "unknown");
	assert_int_equal(removed->nadvisories, 1);
	assert_true(removed->advisories[0].fixed);
	assert_int_equal(unread->nadvisories, 0);

	/* Two queries only, with OSV's names of the ecosystems. */
	qs = queries(fx);
	assert_int_equal(json_array_size(qs), 2);
	json_array_foreach(qs, i, q) {
		json_t *package = json_object_get(q, "package");
		const char *name = json_string_value(json_object_get(package, "name"));

		assert_string_equal(json_string_value(json_object_get(package, "ecosystem")),
				    !strcmp(name, "requests") ? "PyPI" : "crates.io");
	}
	json_decref(qs);
}

/* A vuln with one CVSS v3 vector (the id says its base score). */
static json_t *cvss_vuln(const char *id, const char *type, const char *vector)
{
	json_t *v = json_pack("{s:s, s:[{s:s, s:s}]}", "id", id, "severity", "type", type,
			      "score", vector);

	assert_non_null(v);
	return v;
}

static void test_severities(void **state)
{
	struct fixture *fx = *state;
	struct deps_package *p;
	static const char *const vectors[][3] = {
		{ "V-9.8", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "critical" },
		{ "V-10", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H", "critical" },
		{ "V-9.9", "CVSS:3.0/AV:N/AC:L/PR:L/UI:N/S:C/C:H/I:H/A:H", "critical" },
		{ "V-9.1", "CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:C/C:H/I:H/A:H", "critical" },
		{ "V-9.0", "CVSS:3.1/AV:N/AC:L/PR:L/UI:R/S:C/C:H/I:H/A:H", "critical" },
		{ "V-8.9", "CVSS:3.1/AV:N/AC:L/PR:L/UI:R/S:C/C:H/I:H/A:L", "high" },
		{ "V-8.8", "CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H", "high" },
		{ "V-7.5", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N", "high" },
		{ "V-7.0", "CVSS:3.1/AV:L/AC:H/PR:L/UI:N/S:U/C:H/I:H/A:H", "high" },
		{ "V-6.9", "CVSS:3.1/AV:N/AC:L/PR:H/UI:R/S:C/C:H/I:L/A:N", "medium" },
		/* Temporal metrics are no part of the base score. */
		{ "V-6.1", "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N/E:P/RL:O", "medium" },
		{ "V-4.0", "CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:C/C:L/I:N/A:N", "medium" },
		{ "V-3.9", "CVSS:3.1/AV:N/AC:H/PR:H/UI:R/S:U/C:L/I:L/A:L", "low" },
		{ "V-0", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N", "low" },
		{ "V3-BAD-VALUE", "CVSS:3.1/AV:Q/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "unknown" },
		{ "V3-SHORT", "CVSS:3.1/AV:N/AC:L", "unknown" },
		{ "V2", "AV:N/AC:L/Au:N/C:P/I:P/A:P", "unknown" },
	};
	static const char *const named[][2] = {
		{ "DB-LOW", "low" },            /* the database wins over the vector */
		{ "DB-MEDIUM", "medium" },
		{ "DB-ODD", "high" },           /* an unknown name: the vector decides */
		{ "V4-ONLY", "unknown" },
		{ "NONE", "unknown" },
	};
	json_t *vulns = json_array(), *v;
	char *text, *c;
	size_t i;

	for (i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++)
		json_array_append_new(vulns, cvss_vuln(vectors[i][0], strcmp(vectors[i][0], "V2") ?
						       "CVSS_V3" : "CVSS_V2", vectors[i][1]));
	v = cvss_vuln("DB-LOW", "CVSS_V3", vectors[0][1]);
	json_object_set_new(v, "database_specific", J("{'severity': 'LOW'}"));
	json_array_append_new(vulns, v);
	json_array_append_new(vulns, J("{'id': 'DB-MEDIUM', 'database_specific': {'severity': 'medium'}}"));
	v = cvss_vuln("DB-ODD", "CVSS_V3", vectors[7][1]);
	json_object_set_new(v, "database_specific", J("{'severity': 'SEVERE'}"));
	json_array_append_new(vulns, v);
	json_array_append_new(vulns, cvss_vuln("V4-ONLY", "CVSS_V4", "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/"
					       "VC:H/VI:H/VA:H/SC:N/SI:N/SA:N"));
	json_array_append_new(vulns, J("{'id': 'NONE', 'details': '\\n  First line.\\nMore.'}"));

	p = add_package(fx, ECO_NPM, "sev", "1.0.0", "1.0.1", BUMP_PATCH);
	v = json_pack("{s:o}", "vulns", vulns);
	text = json_dumps(v, JSON_COMPACT);
	json_decref(v);
	for (c = text; *c; c++)
		if (*c == '"')
			*c = '\'';
	answer(fx, "sev", "1.0.1", text);
	free(text);
	fx->options.max_details = 50;
	serve(fx);
	start(fx);
	drive(fx);
	assert_null(advisory_error(fx->adv));
	assert_int_equal(p->nadvisories, sizeof(vectors) / sizeof(vectors[0]) +
			 sizeof(named) / sizeof(named[0]));
	for (i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++)
		if (strcmp(find(p, vectors[i][0])->severity, vectors[i][2]))
			fail_msg("%s: %s, not %s", vectors[i][0], find(p, vectors[i][0])->severity,
				 vectors[i][2]);
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (strcmp(find(p, named[i][0])->severity, named[i][1]))
			fail_msg("%s: %s, not %s", named[i][0], find(p, named[i][0])->severity,
				 named[i][1]);
	assert_string_equal(find(p, "NONE")->summary, "First line.");
	assert_string_equal(find(p, "V-10")->summary, "");
}

static void test_empty_answer(void **state)
{
	struct fixture *fx = *state;
	struct deps_package *p = add_package(fx, ECO_NPM, "clean", "1.0.0", "1.1.0", BUMP_MINOR);

	/* Advisories from an earlier lookup do not survive a new one. */
	p->advisories = calloc(1, sizeof(*p->advisories));
	p->advisories[0].id = strdup("OLD");
	p->nadvisories = 1;
	/* What OSV says for none: an empty object, or an empty or null list. */
	answer(fx, "clean", NULL, "{}");
	answer(fx, "listed", NULL, "{'vulns': []}");
	answer(fx, "nulled", NULL, "{'vulns': null}");
	add_package(fx, ECO_NPM, "listed", "1.0.0", "1.1.0", BUMP_MINOR);
	add_package(fx, ECO_NPM, "nulled", "1.0.0", "1.1.0", BUMP_MINOR);
	serve(fx);
	start(fx);
	drive(fx);
	assert_null(advisory_error(fx->adv));
	assert_int_equal(advisory_checked(fx->adv), 3);
	assert_int_equal(p->nadvisories, 0);
	assert_null(p->advisories);
	assert_int_equal(fx->packages[1].nadvisories, 0);
	assert_int_equal(fx->packages[2].nadvisories, 0);
	assert_int_equal(count_to(fx, "/v1/vulns/"), 0);
}

/* The same package and version in two places (two lock files) is asked once and filled in both. */
static void test_asked_once(void **state)
{
	struct fixture *fx = *state;
	struct deps_package *a, *b;
	json_t *qs;

	a = add_package(fx, ECO_NPM, "minimist", "1.2.5", "1.2.8", BUMP_PATCH);
	b = add_package(fx, ECO_NPM, "minimist", "1.2.5", "1.2.6", BUMP_PATCH);
	b->relation = RELATION_TRANSITIVE;
	answer(fx, "minimist", "1.2.5", "{'vulns': [{'id': 'GHSA-xvch-5gv4-984h', 'summary': 'Prototype Pollution',"
	       " 'database_specific': {'severity': 'CRITICAL'}}]}");
	serve(fx);
	start(fx);
	drive(fx);
	assert_null(advisory_error(fx->adv));
	assert_int_equal(advisory_checked(fx->adv), 2);
	qs = queries(fx);
	assert_int_equal(json_array_size(qs), 3);
	json_decref(qs);
	assert_int_equal(a->nadvisories, 1);
	assert_true(a->advisories[0].fixed);
	assert_int_equal(b->nadvisories, 1);
	assert_true(b->advisories[0].fixed);
	assert_string_equal(b->advisories[0].severity, "critical");
}

/* --- batches and pages --------------------------------------------------- */

/* Queries in batches of batch_size (OSV takes 1,000 at most), each answered in the order asked. */
static void test_batches(void **state)
{
	struct fixture *fx = *state;
	json_t *reqs;
	char name[32];
	size_t i;

	for (i = 0; i < 600; i++) {
		snprintf(name, sizeof(name), "pkg-%03zu", i);
		add_package(fx, ECO_NPM, name, "1.0.0", "1.0.1", BUMP_PATCH);
	}
	/* One of the last, so that its result's place in its batch matters. */
	answer(fx, "pkg-599", "1.0.0", "{'vulns': [{'id': 'GHSA-last', 'summary': 'fixed late'}]}");
	answer(fx, "pkg-000", "1.0.1", "{'vulns': [{'id': 'GHSA-first', 'summary': 'open early'}]}");
	fx->options.max_packages = 600;
	fx->options.batch_size = 5000;
	serve(fx);
	start(fx);
	drive(fx);
	assert_null(advisory_error(fx->adv));
	assert_int_equal(advisory_checked(fx->adv), 600);
	reqs = requests_to(fx, "/v1/querybatch");
	assert_int_equal(json_array_size(reqs), 2);
	assert_int_equal(json_array_size(json_object_get(json_object_get(json_array_get(reqs, 0), "body"),
							 "queries")), 1000);
	assert_int_equal(json_array_size(json_object_get(json_object_get(json_array_get(reqs, 1), "body"),
							 "queries")), 200);
	json_decref(reqs);
	assert_int_equal(fx->packages[599].nadvisories, 1);
	assert_true(fx->packages[599].advisories[0].fixed);
	assert_int_equal(fx->packages[0].nadvisories, 1);
	assert_false(fx->packages[0].advisories[0].fixed);
	for (i = 1; i < 599; i++)
		assert_int_equal(fx->packages[i].nadvisories, 0);

	/* The default: 200 queries a batch, 500 packages. */
	advisory_free(fx->adv);
	fx->options.max_packages = 0;
	fx->options.batch_size = 0;
	start(fx);
	drive(fx);
	assert_int_equal(advisory_checked(fx->adv), 500);
	assert_string_equal(advisory_error(fx->adv), "100 of 600 packages not looked up: at most 500 are");
	assert_int_equal(count_to(fx, "/v1/querybatch"), 2 + 5);
}

static void test_pages(void **state)
{
	struct fixture *fx = *state;
	struct deps_package *paged, *endless;
	json_t *reqs, *qs;
	size_t i;

	paged = add_package(fx, ECO_NPM, "paged", "1.0.0", "2.0.0", BUMP_MAJOR);
	endless = add_package(fx, ECO_NPM, "endless", "1.0.0", "1.0.1", BUMP_PATCH);
	/* The next pages first: their queries hold the first page's too. */
	answer(fx, "paged\",\"ecosystem\":\"npm\"},\"version\":\"1.0.0\",\"page_token\":\"p2", NULL,
	       "{'vulns': [{'id': 'GHSA-page-two', 'summary': 'second page'}]}");
	answer(fx, "paged", "1.0.0", "{'vulns': [{'id': 'GHSA-page-one', 'summary': 'first page'}],"
	       " 'next_page_token': 'p2'}");
	json_array_append_new(fx->results, J("{'match': ['\\\"endless\\\"', 'page_token'],"
					     " 'result': {'vulns': [{'id': 'GHSA-more'}], 'next_page_token': 'again'}}"));
	json_array_append_new(fx->results, J("{'match': ['\\\"endless\\\"', '1.0.0'],"
					     " 'result': {'vulns': [{'id': 'GHSA-more'}], 'next_page_token': 'again'}}"));
	json_object_set_new(fx->records, "GHSA-more", J("{'id': 'GHSA-more', 'summary': 'more'}"));
	serve(fx);
	start(fx);
	drive(fx);
	assert_int_equal(advisory_checked(fx->adv), 2);
	assert_int_equal(paged->nadvisories, 2);
	assert_true(find(paged, "GHSA-page-one")->fixed);
	assert_true(find(paged, "GHSA-page-two")->fixed);
	assert_string_equal(find(paged, "GHSA-page-two")->summary, "second page");
	assert_int_equal(endless->nadvisories, 1);
	/* A query paged beyond the pages read is said, never silently cut. */
	assert_string_equal(advisory_error(fx->adv), "1 version with more advisories than the 100 kept "
			    "or 5 pages read (endless 1.0.0)");

	/* The pages in batches of their own, with their tokens. */
	reqs = requests_to(fx, "/v1/querybatch");
	assert_int_equal(json_array_size(reqs), 5);
	qs = json_object_get(json_object_get(json_array_get(reqs, 1), "body"), "queries");
	assert_int_equal(json_array_size(qs), 2);
	for (i = 0; i < 2; i++)
		assert_non_null(json_string_value(json_object_get(json_array_get(qs, i), "page_token")));
	for (i = 2; i < 5; i++) {
		qs = json_object_get(json_object_get(json_array_get(reqs, i), "body"), "queries");
		assert_int_equal(json_array_size(qs), 1);
		assert_string_equal(json_string_value(json_object_get(json_array_get(qs, 0), "page_token")), "again");
	}
	json_decref(reqs);
	assert_int_equal(count_to(fx, "/v1/vulns/GHSA-more"), 1);
}

/* --- details ------------------------------------------------------------- */

static void test_details_cap(void **state)
{
	struct fixture *fx = *state;
	struct deps_package *direct, *deep;

	deep = add_package(fx, ECO_NPM, "deep", "1.0.0", "1.0.1", BUMP_PATCH);
	deep->relation = RELATION_TRANSITIVE;
	direct = add_package(fx, ECO_NPM, "direct", "1.0.0", "1.0.1", BUMP_PATCH);
	answer(fx, "deep", "1.0.0", "{'vulns': [{'id': 'D-1', 'summary': 'd1', 'database_specific': {'severity': 'HIGH'}},"
	       " {'id': 'D-2', 'summary': 'd2'}]}");
	answer(fx, "direct", "1.0.0", "{'vulns': [{'id': 'A-1', 'summary': 'fixed one'}]}");
	answer(fx, "direct", "1.0.1", "{'vulns': [{'id': 'A-2', 'summary': 'open one'}]}");
	fx->options.max_details = 2;
	serve(fx);
	start(fx);
	drive(fx);
	assert_int_equal(advisory_checked(fx->adv), 2);
	/* The direct package's first, its new version's before its old one's. */
	assert_string_equal(find(direct, "A-2")->summary, "open one");
	assert_string_equal(find(direct, "A-1")->summary, "fixed one");
	/* The others are shown by id, their severity unknown, and the message says so. */
	assert_int_equal(deep->nadvisories, 2);
	assert_string_equal(find(deep, "D-1")->severity, "unknown");
	assert_string_equal(find(deep, "D-1")->summary, "");
	assert_true(find(deep, "D-1")->fixed);
	assert_string_equal(advisory_error(fx->adv), "2 of 4 advisories not looked up: at most 2 are "
			    "(those are shown by id, severity unknown)");
	assert_int_equal(count_to(fx, "/v1/vulns/"), 2);
	assert_int_equal(count_to(fx, "/v1/vulns/D-"), 0);
}

static void test_detail_failures(void **state)
{
	struct fixture *fx = *state;
	struct deps_package *p;
	long ms;

	fx->options.request_timeout = 0.5;
	fx->options.total_timeout = 3;
	p = add_package(fx, ECO_NPM, "p", "1.0.0", "1.0.1", BUMP_PATCH);
	answer(fx, "p", "1.0.1", "{'vulns': [{'id': 'OK-1', 'summary': 'fine'}, {'id': 'GONE-1'}, {'id': 'HANG-1'},"
	       " {'id': 'ODD-1'}, {'id': 'HTML-1'}]}");
	rule(fx, "{'match_path': '/v1/vulns/GONE-1', 'status': 404, 'body': {'code': 5, 'message': 'Bug not found.'}}");
	rule(fx, "{'match_path': '/v1/vulns/HANG-1', 'fault': 'hang'}");
	rule(fx, "{'match_path': '/v1/vulns/ODD-1', 'body': {'id': 'OTHER-1', 'summary': 'not the one asked'}}");
	rule(fx, "{'match_path': '/v1/vulns/HTML-1', 'fault': 'non_json'}");
	serve(fx);
	start(fx);
	ms = drive(fx);
	assert_true(ms >= 450 && ms < 2500);
	/* The package's advisories are in; those whose details did not come are shown by id. */
	assert_int_equal(advisory_checked(fx->adv), 1);
	assert_int_equal(p->nadvisories, 5);
	assert_string_equal(find(p, "OK-1")->summary, "fine");
	assert_string_equal(find(p, "GONE-1")->severity, "unknown");
	assert_string_equal(find(p, "ODD-1")->summary, "");
	assert_prefix(advisory_error(fx->adv), "4 of 5 advisories could not be looked up (GONE-1: HTTP 404");
	assert_contains(advisory_error(fx->adv), "(those are shown by id, severity unknown)");
}

/* --- failures ------------------------------------------------------------ */

static void test_batch_http_error(void **state)
{
	struct fixture *fx = *state;
	struct deps_package *a, *b, *c;

	a = add_package(fx, ECO_NPM, "alpha", "1.0.0", "1.0.1", BUMP_PATCH);
	b = add_package(fx, ECO_NPM, "beta", "2.0.0", "2.0.1", BUMP_PATCH);
	c = add_package(fx, ECO_NPM, "gamma", "3.0.0", "3.0.1", BUMP_PATCH);
	json_object_set_new(batch_rule(fx, "beta", NULL), "status", json_integer(500));
	json_object_set_new(json_array_get(fx->rules, 0), "body", J("{'code': 13, 'message': 'internal'}"));
	answer(fx, "alpha", "1.0.0", "{'vulns': [{'id': 'A-1', 'summary': 'a'}]}");
	answer(fx, "beta", "2.0.0", "{'vulns': [{'id': 'B-1', 'summary': 'b'}]}");
	answer(fx, "gamma", "3.0.1", "{'vulns': [{'id': 'C-1', 'summary': 'c'}]}");
	/* A package to a batch: one failing leaves the others their advisories. */
	fx->options.batch_size = 2;
	serve(fx);
	start(fx);
	drive(fx);
	assert_int_equal(advisory_checked(fx->adv), 2);
	assert_int_equal(a->nadvisories, 1);
	assert_true(a->advisories[0].fixed);
	assert_int_equal(b->nadvisories, 0);
	assert_int_equal(c->nadvisories, 1);
	assert_false(c->advisories[0].fixed);
	assert_prefix(advisory_error(fx->adv), "1 of 3 lookups failed (beta 2.0.0: HTTP 500");
	/* No retry: the budget is for other packages. */
	assert_int_equal(count_to(fx, "/v1/querybatch"), 3);
	assert_int_equal(count_to(fx, "/v1/vulns/B-1"), 0);
}

static void test_bad_answers(void **state)
{
	struct fixture *fx = *state;
	struct deps_package *fine;
	const char *error;
	size_t i;

	add_package(fx, ECO_NPM, "garbled", "1.0.0", "1.0.1", BUMP_PATCH);
	add_package(fx, ECO_NPM, "short", "1.0.0", "1.0.1", BUMP_PATCH);
	add_package(fx, ECO_NPM, "wrong", "1.0.0", "1.0.1", BUMP_PATCH);
	add_package(fx, ECO_NPM, "noid", "1.0.0", "1.0.1", BUMP_PATCH);
	add_package(fx, ECO_NPM, "pathy", "1.0.0", "1.0.1", BUMP_PATCH);
	add_package(fx, ECO_NPM, "tokened", "1.0.0", "1.0.1", BUMP_PATCH);
	fine = add_package(fx, ECO_NPM, "zfine", "1.0.0", "1.0.1", BUMP_PATCH);
	/* Whole batches that are no answers: not JSON, or fewer results than queries. */
	json_object_set_new(batch_rule(fx, "garbled", NULL), "body", json_string("{\"results\": [tru"));
	json_object_set_new(batch_rule(fx, "short", NULL), "body", J("{'results': [{}]}"));
	/* Results that are no results: the rest of their batch is read. */
	answer(fx, "wrong", "1.0.1", "{'vulns': 'none'}");
	answer(fx, "noid", NULL, "{'vulns': [{'summary': 'who?'}]}");
	answer(fx, "pathy", "1.0.0", "{'vulns': [{'id': '../../etc/passwd'}]}");
	result(fx, "tokened", "1.0.0", J("{'vulns': [], 'next_page_token': 7}"));
	answer(fx, "zfine", "1.0.1", "{'vulns': [{'id': 'F-1'}]}");
	fx->options.batch_size = 2;
	serve(fx);
	start(fx);
	drive(fx);
	assert_int_equal(advisory_checked(fx->adv), 1);
	for (i = 0; i < 6; i++)
		assert_int_equal(fx->packages[i].nadvisories, 0);
	assert_int_equal(fine->nadvisories, 1);
	error = advisory_error(fx->adv);
	assert_prefix(error, "6 of 7 lookups failed (garbled 1.0.0: the answer is not a JSON object");
	assert_int_equal(count_to(fx, "/v1/vulns/"), 1);
}

static void test_bad_answer_messages(void **state)
{
	struct fixture *fx = *state;
	static const char *const cases[][2] = {
		{ "{'results': [{}]}", "short 1.0.0: the answer has 1 results for 2 queries" },
		{ "{'results': 'no'}", "short 1.0.0: the answer has no list of results" },
		{ "{'results': [{'vulns': 'x'}, {}]}", "short 1.0.0: the answer's vulns is not a list" },
		{ "{'results': [{}, {'vulns': [{'id': 'a/b'}]}]}", "short 1.0.1: an advisory id that cannot be one (a/b)" },
		{ "{'results': [[], {}]}", "short 1.0.0: a result of the answer is not an object" },
		{ "{'results': [{'vulns': [{'summary': 'x'}]}, {}]}", "short 1.0.0: a vuln of the answer has no id" },
		{ "{'results': [{'vulns': [{'id': 'GHSA-0123456789-0123456789-0123456789-0123456789-0123456789-0123456789-"
		  "0123456789-0123456789-0123456789'}]}, {}]}",
		  "short 1.0.0: an advisory id that cannot be one (GHSA-0123456789-0123456789-0123456789-01...)" },
		{ "{'results': [{'vulns': [], 'next_page_token': ['x']}, {}]}",
		  "short 1.0.0: the answer's next_page_token is not one" },
	};
	size_t i;

	add_package(fx, ECO_NPM, "short", "1.0.0", "1.0.1", BUMP_PATCH);
	json_object_set_new(batch_rule(fx, "short", NULL), "then", json_array());
	for (i = 0; i < COUNT(cases); i++)
		json_array_append_new(json_object_get(json_array_get(fx->rules, 0), "then"),
				      json_pack("{s:o}", "body", J(cases[i][0])));
	serve(fx);
	for (i = 0; i < COUNT(cases); i++) {
		advisory_free(fx->adv);
		start(fx);
		drive(fx);
		assert_contains(advisory_error(fx->adv), cases[i][1]);
	}
}

static void test_connection_refused(void **state)
{
	struct fixture *fx = *state;
	struct sockaddr_in addr = { 0 };
	socklen_t len = sizeof(addr);
	char url[64];
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	long ms;

	/* A port that was free a moment ago: nobody listens there. */
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&addr, &len), 0);
	close(fd);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", ntohs(addr.sin_port));
	fx->options.base_url = url;
	add_package(fx, ECO_NPM, "offline", "1.0.0", "2.0.0", BUMP_MAJOR);
	start(fx);
	ms = drive(fx);
	assert_true(ms < 2000);
	assert_int_equal(advisory_checked(fx->adv), 0);
	assert_contains(advisory_error(fx->adv), "1 of 1 lookups failed (offline");
	assert_contains(advisory_error(fx->adv), "connection refused");
	assert_int_equal(fx->packages[0].nadvisories, 0);
}

static void test_hang_hits_request_timeout(void **state)
{
	struct fixture *fx = *state;
	struct deps_package *stuck, *fine;
	long ms;

	fx->options.request_timeout = 0.4;
	fx->options.total_timeout = 5;
	fx->options.batch_size = 2;
	stuck = add_package(fx, ECO_NPM, "stuck", "1.0.0", "1.0.1", BUMP_PATCH);
	fine = add_package(fx, ECO_NPM, "fine", "1.0.0", "1.0.1", BUMP_PATCH);
	json_object_set_new(batch_rule(fx, "stuck", NULL), "fault", json_string("hang"));
	answer(fx, "fine", "1.0.1", "{'vulns': [{'id': 'F-1'}]}");
	serve(fx);
	start(fx);
	ms = drive(fx);
	assert_true(ms >= 350 && ms < 2000);
	assert_int_equal(advisory_checked(fx->adv), 1);
	assert_int_equal(stuck->nadvisories, 0);
	assert_int_equal(fine->nadvisories, 1);
	assert_contains(advisory_error(fx->adv), "1 of 2 lookups failed (stuck 1.0.0: no answer within 0.4 s)");
}

static void test_total_budget(void **state)
{
	struct fixture *fx = *state;
	long ms;

	fx->options.request_timeout = 5;
	fx->options.total_timeout = 1;
	fx->options.batch_size = 4;
	add_package(fx, ECO_NPM, "slow-a", "1.0.0", "1.0.1", BUMP_PATCH);
	add_package(fx, ECO_NPM, "slow-b", "1.0.0", "1.0.1", BUMP_PATCH);
	/* Last by name: in a batch of its own, answered at once. */
	add_package(fx, ECO_NPM, "zquick", "1.0.0", "1.0.1", BUMP_PATCH);
	json_object_set_new(batch_rule(fx, "slow-a", NULL), "latency_ms", json_integer(3000));
	json_object_set_new(json_array_get(fx->rules, 0), "body", J("{'results': [{}, {}, {}, {}]}"));
	answer(fx, "zquick", "1.0.0", "{'vulns': [{'id': 'Q-1'}]}");
	serve(fx);
	start(fx);
	ms = drive(fx);
	assert_true(ms >= 950 && ms <= 1200);
	assert_int_equal(advisory_checked(fx->adv), 1);
	assert_int_equal(fx->packages[0].nadvisories, 0);
	assert_int_equal(fx->packages[1].nadvisories, 0);
	assert_int_equal(fx->packages[2].nadvisories, 1);
	/* Its details came in while the others' batch was still out. */
	assert_string_equal(fx->packages[2].advisories[0].severity, "unknown");
	assert_true(fx->packages[2].advisories[0].fixed);
	assert_int_equal(count_to(fx, "/v1/vulns/Q-1"), 1);
	assert_string_equal(advisory_error(fx->adv), "2 of 3 lookups did not finish within 1 s");
}

/* The budget covers the details too: those not in by then are shown by id. */
static void test_budget_spent_on_details(void **state)
{
	struct fixture *fx = *state;
	struct deps_package *p;
	long ms;

	fx->options.total_timeout = 0.8;
	p = add_package(fx, ECO_NPM, "p", "1.0.0", "1.0.1", BUMP_PATCH);
	answer(fx, "p", "1.0.1", "{'vulns': [{'id': 'QUICK-1', 'summary': 'quick'}, {'id': 'SLOW-1', 'summary': 'slow'}]}");
	json_object_set_new(rule(fx, "{'match_path': '/v1/vulns/SLOW-1', 'body': {'id': 'SLOW-1'}}"), "latency_ms",
			    json_integer(3000));
	serve(fx);
	start(fx);
	ms = drive(fx);
	assert_true(ms >= 750 && ms <= 1100);
	assert_int_equal(advisory_checked(fx->adv), 1);
	assert_int_equal(p->nadvisories, 2);
	assert_string_equal(find(p, "QUICK-1")->summary, "quick");
	assert_string_equal(find(p, "SLOW-1")->severity, "unknown");
	assert_string_equal(advisory_error(fx->adv), "1 of 2 advisories not looked up within 0.8 s "
			    "(it is shown by id, severity unknown)");
}

static void test_budget_with_wait(void **state)
{
	struct fixture *fx = *state;
	int64_t t0;
	long ms;

	fx->options.total_timeout = 0.5;
	fx->options.batch_size = 2;
	add_package(fx, ECO_NPM, "slow", "1.0.0", "1.0.1", BUMP_PATCH);
	add_package(fx, ECO_NPM, "broken", "1.0.0", "1.0.1", BUMP_PATCH);
	json_object_set_new(batch_rule(fx, "slow", NULL), "latency_ms", json_integer(3000));
	json_object_set_new(json_array_get(fx->rules, 0), "body", J("{'results': [{}, {}]}"));
	json_object_set_new(batch_rule(fx, "broken", NULL), "status", json_integer(503));
	serve(fx);
	start(fx);
	t0 = now_ms();
	/* advisory_wait never waits past the budget, whatever it is asked. */
	while (!advisory_done(fx->adv))
		assert_int_equal(advisory_wait(fx->adv, 60000), 0);
	ms = (long)(now_ms() - t0);
	assert_true(ms >= 400 && ms <= 800);
	/* The first failure in the packages' order names the package. */
	assert_prefix(advisory_error(fx->adv), "1 of 2 lookups failed (broken 1.0.0: HTTP 503");
	assert_contains(advisory_error(fx->adv), "); 1 of 2 lookups did not finish within 0.5 s");
	assert_int_equal(advisory_wait(fx->adv, 100), 0);
}

static void test_cancel(void **state)
{
	struct fixture *fx = *state;

	add_package(fx, ECO_NPM, "slow", "1.0.0", "1.0.1", BUMP_PATCH);
	json_object_set_new(batch_rule(fx, "slow", NULL), "latency_ms", json_integer(3000));
	json_object_set_new(json_array_get(fx->rules, 0), "body", J("{'results': [{}, {}]}"));
	serve(fx);
	start(fx);
	assert_int_equal(advisory_wait(fx->adv, 50), 0);
	assert_false(advisory_done(fx->adv));
	advisory_cancel(fx->adv);
	assert_true(advisory_done(fx->adv));
	assert_string_equal(advisory_error(fx->adv), "1 of 1 lookups were cancelled");
	assert_int_equal(fx->packages[0].nadvisories, 0);
	advisory_cancel(fx->adv);
}

/* --- limits and options -------------------------------------------------- */

static void test_cap_order(void **state)
{
	struct fixture *fx = *state;
	static const char *const names[] = {
		"kiwi", "apple", "zeta-major", "banana", "lime", "cherry", "mango",
		"yak-major", "date", "fig", "grape", "xray-major", "deep-major", "aaa-deep",
	};
	json_t *qs, *q;
	size_t i;
	char seen[COUNT(names)] = { 0 };

	for (i = 0; i < COUNT(names); i++) {
		bool major = strstr(names[i], "major") != NULL;
		struct deps_package *p = add_package(fx, ECO_NPM, names[i], "1.0.0", major ? "2.0.0" : "1.1.0",
						     major ? BUMP_MAJOR : BUMP_MINOR);

		if (strstr(names[i], "deep"))
			p->relation = RELATION_TRANSITIVE;
	}
	fx->options.max_packages = 10;
	serve(fx);
	start(fx);
	drive(fx);
	assert_int_equal(advisory_checked(fx->adv), 10);
	assert_string_equal(advisory_error(fx->adv), "4 of 14 packages not looked up: at most 10 are");
	qs = queries(fx);
	assert_int_equal(json_array_size(qs), 20);
	json_array_foreach(qs, i, q) {
		const char *name = json_string_value(json_object_get(json_object_get(q, "package"), "name"));
		size_t j;

		for (j = 0; j < COUNT(names); j++)
			if (!strcmp(names[j], name))
				seen[j]++;
	}
	json_decref(qs);
	/* Direct ones first, the majors first among them, then by name: not lime, mango, nor the transitive ones. */
	for (i = 0; i < COUNT(names); i++) {
		bool left_out = !strcmp(names[i], "lime") || !strcmp(names[i], "mango") || strstr(names[i], "deep");

		if (seen[i] != (left_out ? 0 : 2))
			fail_msg("%s was asked %d times", names[i], seen[i]);
	}

	/* A smaller cap. */
	advisory_free(fx->adv);
	fx->options.max_packages = 2;
	start(fx);
	drive(fx);
	assert_int_equal(advisory_checked(fx->adv), 2);
}

static void test_nothing_to_look_up(void **state)
{
	struct fixture *fx = *state;

	fx->options.base_url = "http://127.0.0.1:1";
	start(fx);
	assert_true(advisory_done(fx->adv));
	assert_int_equal(advisory_timeout(fx->adv), -1);
	assert_int_equal(advisory_wait(fx->adv, 0), 0);
	assert_int_equal(advisory_wait(fx->adv, 1000), 0);
	assert_int_equal(advisory_checked(fx->adv), 0);
	assert_null(advisory_error(fx->adv));
	assert_int_equal(advisory_start(fx->adv), RL_EUSAGE);
	advisory_free(fx->adv);
	fx->adv = NULL;

	/* Packages without a version on either side are not looked up. */
	add_package(fx, ECO_NPM, "git-dep", NULL, NULL, BUMP_UNKNOWN);
	start(fx);
	assert_true(advisory_done(fx->adv));
	assert_int_equal(advisory_checked(fx->adv), 0);
	assert_null(advisory_error(fx->adv));
	advisory_free(fx->adv);

	/* No analysis at all. */
	assert_int_equal(advisory_new(&fx->adv, NULL, NULL, NULL), 0);
	assert_int_equal(advisory_start(fx->adv), 0);
	assert_true(advisory_done(fx->adv));
}

static void test_options_load(void **state)
{
	struct advisory_options o;
	struct repo *repo = NULL;
	struct config *config = NULL;
	char *url = NULL, *dir;

	(void)state;
	unsetenv("REVLINE_OSV_URL");
	assert_int_equal(advisory_options_load(&o, &url, NULL), 0);
	assert_string_equal(url, "https://api.osv.dev");
	assert_ptr_equal(o.base_url, url);
	assert_int_equal(o.max_packages, 0);
	assert_int_equal(o.max_details, 0);
	assert_int_equal(o.batch_size, 0);
	free(url);

	dir = test_repo_new("osvcfg");
	test_sh_ok(dir, "git config revline.osvUrl http://osv.example:8080");
	assert_int_equal(repo_open(&repo, dir), 0);
	assert_int_equal(config_open(&config, repo), 0);
	assert_int_equal(advisory_options_load(&o, &url, config), 0);
	assert_string_equal(url, "http://osv.example:8080");
	free(url);

	/* The environment wins; an empty one does not count. */
	setenv("REVLINE_OSV_URL", "http://127.0.0.1:9999/osv", 1);
	assert_int_equal(advisory_options_load(&o, &url, config), 0);
	assert_string_equal(url, "http://127.0.0.1:9999/osv");
	assert_string_equal(o.base_url, "http://127.0.0.1:9999/osv");
	free(url);
	setenv("REVLINE_OSV_URL", "", 1);
	assert_int_equal(advisory_options_load(&o, &url, config), 0);
	assert_string_equal(url, "http://osv.example:8080");
	free(url);
	unsetenv("REVLINE_OSV_URL");

	config_free(config);
	repo_free(repo);
	test_rmtree(dir);
	free(dir);
}

/* The URL from the environment reaches the requests, with its path and without a double slash. */
static void test_env_url_is_used(void **state)
{
	struct fixture *fx = *state;
	struct advisory_options o;
	char *url = NULL, base[96];
	json_t *reqs;

	add_package(fx, ECO_NPM, "pathy", "1.0.0", "1.0.1", BUMP_PATCH);
	answer(fx, "pathy", "1.0.1", "{'vulns': [{'id': 'P-1'}]}");
	json_array_append_new(fx->rules, J("{'match_path': '/mirror/v1/vulns/P-1', 'body': {'id': 'P-1', 'summary': 'mirrored'}}"));
	serve(fx);
	snprintf(base, sizeof(base), "%s/mirror/", fx->fake.url);
	setenv("REVLINE_OSV_URL", base, 1);
	assert_int_equal(advisory_options_load(&o, &url, NULL), 0);
	unsetenv("REVLINE_OSV_URL");
	o.total_timeout = 5;
	assert_int_equal(advisory_new(&fx->adv, &fx->analysis, &o, NULL), 0);
	free(url);      /* the lookup keeps its own copy */
	fx->started = now_ms();
	fx->options.total_timeout = 5;
	assert_int_equal(advisory_start(fx->adv), 0);
	drive(fx);
	assert_null(advisory_error(fx->adv));
	assert_string_equal(fx->packages[0].advisories[0].summary, "mirrored");
	reqs = fakellm_requests(&fx->fake);
	assert_int_equal(json_array_size(reqs), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(reqs, 0), "path")),
			    "/mirror/v1/querybatch");
	assert_string_equal(json_string_value(json_object_get(json_array_get(reqs, 1), "path")),
			    "/mirror/v1/vulns/P-1");
	json_decref(reqs);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_fixed_brought_and_open),
		T(test_one_side_only),
		T(test_severities),
		T(test_empty_answer),
		T(test_asked_once),
		T(test_batches),
		T(test_pages),
		T(test_details_cap),
		T(test_detail_failures),
		T(test_batch_http_error),
		T(test_bad_answers),
		T(test_bad_answer_messages),
		T(test_connection_refused),
		T(test_hang_hits_request_timeout),
		T(test_total_budget),
		T(test_budget_spent_on_details),
		T(test_budget_with_wait),
		T(test_cancel),
		T(test_cap_order),
		T(test_nothing_to_look_up),
		T(test_options_load),
		T(test_env_url_is_used),
	};

	/* Requests to the fake server must not go through a proxy. */
	unsetenv("http_proxy");
	unsetenv("HTTP_PROXY");
	unsetenv("all_proxy");
	unsetenv("ALL_PROXY");
	setenv("no_proxy", "*", 1);
	setenv("NO_PROXY", "*", 1);
	setenv("HOME", "/nonexistent-revline-home", 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
