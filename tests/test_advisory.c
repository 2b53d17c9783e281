/*
 * The advisory lookup against a fake OSV API (the fake LLM server's path
 * rules) over real HTTP: advisories fixed by a bump and still open,
 * severities from the database and from CVSS vectors, empty answers,
 * failures of one package among others, the per-request timeout, the
 * total budget, the package cap, and the options. The analyses are built
 * by hand: only their types come from deps.h. Budgets are small, and
 * times are checked as sanity bounds.
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

#define MAX_PACKAGES 16
#define DRIVE_LIMIT_MS 10000

struct fixture {
	struct fakellm fake;
	struct deps_package packages[MAX_PACKAGES];
	struct deps_analysis analysis;
	struct advisory_options options;
	struct advisory *adv;
	json_t *rules;
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
	fx->options.request_timeout = 3;
	fx->options.total_timeout = 5;
	*state = fx;
	return 0;
}

static void package_release(struct deps_package *p)
{
	size_t i;

	for (i = 0; i < p->nadvisories; i++) {
		free(p->advisories[i].id);
		free(p->advisories[i].summary);
		free(p->advisories[i].severity);
	}
	free(p->advisories);
	free(p->name);
	free(p->manifest);
	free(p->from);
	free(p->to);
	free(p->from_version);
	free(p->to_version);
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	size_t i;

	advisory_free(fx->adv);
	for (i = 0; i < fx->analysis.npackages; i++)
		package_release(&fx->packages[i]);
	json_decref(fx->rules);
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

/* A rule for the query of one package (and version, when not NULL). */
static json_t *rule(struct fixture *fx, const char *name, const char *version)
{
	char n[256], v[256];
	json_t *match = json_array(), *r;

	snprintf(n, sizeof(n), "\"name\":\"%s\"", name);
	json_array_append_new(match, json_string(n));
	if (version) {
		snprintf(v, sizeof(v), "\"version\":\"%s\"", version);
		json_array_append_new(match, json_string(v));
	}
	r = json_pack("{s:s, s:o}", "match_path", "/v1/query", "match", match);
	assert_non_null(r);
	json_array_append_new(fx->rules, r);
	return r;
}

/* The answer to one package and version, as OSV's JSON (single quotes). */
static json_t *answer(struct fixture *fx, const char *name, const char *version, const char *body)
{
	json_t *r = rule(fx, name, version);

	json_object_set_new(r, "body", J(body));
	return r;
}

/* Start the server with the rules so far, and {} for every other query. */
static void serve(struct fixture *fx)
{
	json_t *script;
	char *text;

	json_array_append_new(fx->rules, J("{'match_path': '/v1/query', 'body': {}}"));
	script = json_pack("{s:O}", "rules", fx->rules);
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

/* The OSV queries the server saw (its end lines may still be on their way). */
static json_t *queries(struct fixture *fx)
{
	json_t *all = fakellm_requests(&fx->fake), *q = json_array(), *rec;
	size_t i;

	json_array_foreach(all, i, rec)
		if (!strcmp(json_string_value(json_object_get(rec, "path")), "/v1/query"))
			json_array_append(q, rec);
	json_decref(all);
	return q;
}

/* --- answers ------------------------------------------------------------- */

static void test_fixed_and_open(void **state)
{
	struct fixture *fx = *state;
	struct deps_package *lodash, *express;
	const struct deps_advisory *a;
	json_t *reqs, *rec;
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
	       "{'id': 'CVE-2022-9', 'summary': 'The same, by its CVE'}]}");
	answer(fx, "express", "5.0.0",
	       "{'vulns': [{'id': 'GHSA-open', 'summary': 'Open redirect',"
	       " 'database_specific': {'severity': 'CRITICAL'}}]}");
	serve(fx);
	start(fx);
	drive(fx);
	assert_null(advisory_error(fx->adv));
	assert_int_equal(advisory_checked(fx->adv), 2);

	/* Open in the new version first, then those the bump fixes. */
	assert_int_equal(lodash->nadvisories, 3);
	assert_string_equal(lodash->advisories[0].id, "GHSA-both");
	assert_false(lodash->advisories[0].fixed);
	assert_string_equal(lodash->advisories[0].severity, "medium");
	assert_string_equal(lodash->advisories[1].id, "CVE-2022-9");
	assert_false(lodash->advisories[1].fixed);
	a = find(lodash, "GHSA-fixed");
	assert_true(a->fixed);
	assert_string_equal(a->severity, "high");
	assert_string_equal(a->summary, "Prototype pollution");
	/* Known by an alias in the new answer: not fixed, and not twice. */
	for (i = 0; i < lodash->nadvisories; i++)
		assert_string_not_equal(lodash->advisories[i].id, "GHSA-alias");

	assert_int_equal(express->nadvisories, 1);
	assert_string_equal(express->advisories[0].id, "GHSA-open");
	assert_false(express->advisories[0].fixed);
	assert_string_equal(express->advisories[0].severity, "critical");
	assert_string_equal(express->advisories[0].summary, "Open redirect");

	/* One POST per package and side, in OSV's shape, as JSON. */
	reqs = queries(fx);
	assert_int_equal(json_array_size(reqs), 4);
	json_array_foreach(reqs, i, rec) {
		json_t *body = json_object_get(rec, "body");

		assert_string_equal(json_string_value(json_object_get(rec, "method")), "POST");
		assert_string_equal(json_string_value(json_object_get(rec, "content_type")),
				    "application/json");
		assert_string_equal(json_string_value(json_object_get(
			json_object_get(body, "package"), "ecosystem")), "npm");
		assert_non_null(json_string_value(json_object_get(json_object_get(body, "package"),
								   "name")));
		assert_non_null(json_string_value(json_object_get(body, "version")));
	}
	json_decref(reqs);
}

static void test_one_side_only(void **state)
{
	struct fixture *fx = *state;
	struct deps_package *added, *removed, *unread;
	json_t *reqs, *rec;
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
	assert_string_equal(added->advisories[0].severity, "unknown");
	assert_int_equal(removed->nadvisories, 1);
	assert_true(removed->advisories[0].fixed);
	assert_int_equal(unread->nadvisories, 0);

	/* Two requests only, with OSV's names of the ecosystems. */
	reqs = queries(fx);
	assert_int_equal(json_array_size(reqs), 2);
	json_array_foreach(reqs, i, rec) {
		json_t *package = json_object_get(json_object_get(rec, "body"), "package");
		const char *name = json_string_value(json_object_get(package, "name"));

		assert_string_equal(json_string_value(json_object_get(package, "ecosystem")),
				    !strcmp(name, "requests") ? "PyPI" : "crates.io");
	}
	json_decref(reqs);
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
	json_object_set_new(rule(fx, "sev", "1.0.1"), "body", json_pack("{s:o}", "vulns", vulns));
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
	answer(fx, "clean", NULL, "{}");
	/* What OSV might say for none, too. */
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
}

/* --- failures ------------------------------------------------------------ */

static void test_http_error_for_one_package(void **state)
{
	struct fixture *fx = *state;
	struct deps_package *a, *b, *c;
	const char *error;
	json_t *reqs;

	a = add_package(fx, ECO_NPM, "alpha", "1.0.0", "1.0.1", BUMP_PATCH);
	b = add_package(fx, ECO_NPM, "beta", "2.0.0", "2.0.1", BUMP_PATCH);
	c = add_package(fx, ECO_NPM, "gamma", "3.0.0", "3.0.1", BUMP_PATCH);
	answer(fx, "alpha", "1.0.0", "{'vulns': [{'id': 'A-1', 'summary': 'a'}]}");
	json_object_set_new(answer(fx, "beta", "2.0.1", "{'code': 13, 'message': 'internal'}"),
			    "status", json_integer(500));
	answer(fx, "beta", "2.0.0", "{'vulns': [{'id': 'B-1', 'summary': 'b'}]}");
	answer(fx, "gamma", "3.0.1", "{'vulns': [{'id': 'C-1', 'summary': 'c'}]}");
	serve(fx);
	start(fx);
	drive(fx);
	assert_int_equal(advisory_checked(fx->adv), 2);
	assert_int_equal(a->nadvisories, 1);
	assert_true(a->advisories[0].fixed);
	assert_int_equal(b->nadvisories, 0);
	assert_int_equal(c->nadvisories, 1);
	assert_false(c->advisories[0].fixed);
	error = advisory_error(fx->adv);
	assert_non_null(error);
	assert_prefix(error, "advisories: 1 of 3 lookups failed (beta 2.0.1: HTTP 500");
	/* No retry: the budget is for other packages. */
	reqs = queries(fx);
	assert_int_equal(json_array_size(reqs), 6);
	json_decref(reqs);
}

static void test_bad_json(void **state)
{
	struct fixture *fx = *state;
	struct deps_package *a, *b, *c, *d;
	const char *error;

	a = add_package(fx, ECO_NPM, "garbled", "1.0.0", "1.0.1", BUMP_PATCH);
	b = add_package(fx, ECO_NPM, "wrong", "1.0.0", "1.0.1", BUMP_PATCH);
	c = add_package(fx, ECO_NPM, "noid", "1.0.0", "1.0.1", BUMP_PATCH);
	d = add_package(fx, ECO_NPM, "fine", "1.0.0", "1.0.1", BUMP_PATCH);
	json_object_set_new(rule(fx, "garbled", "1.0.1"), "body", json_string("{\"vulns\": [tru"));
	answer(fx, "garbled", "1.0.0", "{'vulns': [{'id': 'G-1'}]}");
	answer(fx, "wrong", "1.0.1", "{'vulns': 'none'}");
	answer(fx, "noid", NULL, "{'vulns': [{'summary': 'who?'}]}");
	answer(fx, "fine", "1.0.1", "{'vulns': [{'id': 'F-1'}]}");
	serve(fx);
	start(fx);
	drive(fx);
	assert_int_equal(advisory_checked(fx->adv), 1);
	assert_int_equal(a->nadvisories, 0);
	assert_int_equal(b->nadvisories, 0);
	assert_int_equal(c->nadvisories, 0);
	assert_int_equal(d->nadvisories, 1);
	error = advisory_error(fx->adv);
	assert_non_null(error);
	assert_prefix(error, "advisories: 3 of 4 lookups failed (garbled 1.0.1: "
		      "the answer is not a JSON object");
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
	assert_non_null(strstr(advisory_error(fx->adv), "1 of 1 lookups failed (offline"));
	assert_non_null(strstr(advisory_error(fx->adv), "connection refused"));
	assert_int_equal(fx->packages[0].nadvisories, 0);
}

static void test_hang_hits_request_timeout(void **state)
{
	struct fixture *fx = *state;
	struct deps_package *stuck, *fine;
	long ms;

	fx->options.request_timeout = 0.4;
	fx->options.total_timeout = 5;
	stuck = add_package(fx, ECO_NPM, "stuck", "1.0.0", "1.0.1", BUMP_PATCH);
	fine = add_package(fx, ECO_NPM, "fine", "1.0.0", "1.0.1", BUMP_PATCH);
	json_object_set_new(rule(fx, "stuck", "1.0.1"), "fault", json_string("hang"));
	answer(fx, "fine", "1.0.1", "{'vulns': [{'id': 'F-1'}]}");
	serve(fx);
	start(fx);
	ms = drive(fx);
	assert_true(ms >= 350 && ms < 2000);
	assert_int_equal(advisory_checked(fx->adv), 1);
	assert_int_equal(stuck->nadvisories, 0);
	assert_int_equal(fine->nadvisories, 1);
	if (!strstr(advisory_error(fx->adv), "1 of 2 lookups failed (stuck 1.0.1: no answer within 0.4 s)"))
		fail_msg("error: %s", advisory_error(fx->adv));
}

static void test_total_budget(void **state)
{
	struct fixture *fx = *state;
	long ms;
	size_t i;

	fx->options.request_timeout = 5;
	fx->options.total_timeout = 1;
	add_package(fx, ECO_NPM, "slow-a", "1.0.0", "1.0.1", BUMP_PATCH);
	add_package(fx, ECO_NPM, "slow-b", "1.0.0", "1.0.1", BUMP_PATCH);
	add_package(fx, ECO_NPM, "quick", "1.0.0", "1.0.1", BUMP_PATCH);
	for (i = 0; i < 2; i++) {
		json_t *r = answer(fx, i ? "slow-b" : "slow-a", NULL,
				   "{'vulns': [{'id': 'S-1'}]}");

		json_object_set_new(r, "latency_ms", json_integer(3000));
	}
	answer(fx, "quick", "1.0.0", "{'vulns': [{'id': 'Q-1'}]}");
	serve(fx);
	start(fx);
	ms = drive(fx);
	assert_true(ms >= 950 && ms <= 1200);
	assert_int_equal(advisory_checked(fx->adv), 1);
	assert_int_equal(fx->packages[0].nadvisories, 0);
	assert_int_equal(fx->packages[1].nadvisories, 0);
	assert_int_equal(fx->packages[2].nadvisories, 1);
	assert_string_equal(advisory_error(fx->adv),
			    "advisories: 2 of 3 lookups did not finish within 1 s");
}

static void test_budget_with_wait(void **state)
{
	struct fixture *fx = *state;
	int64_t t0;
	long ms;

	fx->options.total_timeout = 0.5;
	add_package(fx, ECO_NPM, "slow", "1.0.0", "1.0.1", BUMP_PATCH);
	add_package(fx, ECO_NPM, "broken", "1.0.0", "1.0.1", BUMP_PATCH);
	json_object_set_new(answer(fx, "slow", NULL, "{}"), "latency_ms", json_integer(3000));
	json_object_set_new(answer(fx, "broken", NULL, "{}"), "status", json_integer(503));
	serve(fx);
	start(fx);
	t0 = now_ms();
	/* advisory_wait never waits past the budget, whatever it is asked. */
	while (!advisory_done(fx->adv))
		assert_int_equal(advisory_wait(fx->adv, 60000), 0);
	ms = (long)(now_ms() - t0);
	assert_true(ms >= 400 && ms <= 800);
	/* The first failure in the packages' order names the package. */
	assert_prefix(advisory_error(fx->adv), "advisories: 1 of 2 lookups failed (broken 1.0.0: HTTP 503");
	if (!strstr(advisory_error(fx->adv), "); 1 of 2 lookups did not finish within 0.5 s"))
		fail_msg("error: %s", advisory_error(fx->adv));
	assert_int_equal(advisory_wait(fx->adv, 100), 0);
}

static void test_cancel(void **state)
{
	struct fixture *fx = *state;

	add_package(fx, ECO_NPM, "slow", "1.0.0", "1.0.1", BUMP_PATCH);
	json_object_set_new(answer(fx, "slow", NULL, "{}"), "latency_ms", json_integer(3000));
	serve(fx);
	start(fx);
	assert_int_equal(advisory_wait(fx->adv, 50), 0);
	assert_false(advisory_done(fx->adv));
	advisory_cancel(fx->adv);
	assert_true(advisory_done(fx->adv));
	assert_string_equal(advisory_error(fx->adv), "advisories: 1 of 1 lookups were cancelled");
	assert_int_equal(fx->packages[0].nadvisories, 0);
	advisory_cancel(fx->adv);
}

/* --- limits and options -------------------------------------------------- */

static void test_cap_majors_first(void **state)
{
	struct fixture *fx = *state;
	static const char *const names[] = {
		"kiwi", "apple", "zeta-major", "banana", "lime", "cherry", "mango",
		"yak-major", "date", "fig", "grape", "xray-major",
	};
	json_t *reqs, *rec;
	size_t i;
	char seen[MAX_PACKAGES] = { 0 };

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		add_package(fx, ECO_NPM, names[i], "1.0.0", strstr(names[i], "major") ? "2.0.0" : "1.1.0",
			    strstr(names[i], "major") ? BUMP_MAJOR : BUMP_MINOR);
	serve(fx);
	start(fx);
	drive(fx);
	assert_null(advisory_error(fx->adv));
	assert_int_equal(advisory_checked(fx->adv), 10);
	reqs = queries(fx);
	assert_int_equal(json_array_size(reqs), 20);
	json_array_foreach(reqs, i, rec) {
		const char *name = json_string_value(json_object_get(json_object_get(
			json_object_get(rec, "body"), "package"), "name"));
		size_t j;

		for (j = 0; j < sizeof(names) / sizeof(names[0]); j++)
			if (!strcmp(names[j], name))
				seen[j]++;
	}
	json_decref(reqs);
	/* The three majors, then the first seven by name: not lime, mango. */
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		bool left_out = !strcmp(names[i], "lime") || !strcmp(names[i], "mango");

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
	reqs = fakellm_requests(&fx->fake);
	assert_int_equal(json_array_size(reqs), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(reqs, 0), "path")),
			    "/mirror/v1/query");
	json_decref(reqs);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_fixed_and_open),
		T(test_one_side_only),
		T(test_severities),
		T(test_empty_answer),
		T(test_http_error_for_one_package),
		T(test_bad_json),
		T(test_connection_refused),
		T(test_hang_hits_request_timeout),
		T(test_total_budget),
		T(test_budget_with_wait),
		T(test_cancel),
		T(test_cap_majors_first),
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
