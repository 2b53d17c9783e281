/*
 * The check's dependency phase (depreview.h) on a real git repository: the
 * manifests of the diff read on both sides and analysed, their advisories
 * looked up from the fake server standing in for OSV (over real HTTP),
 * fail-open when it fails, the prompt section, and the analysis kept in
 * the real SQLite store with a check.
 */
#include "testlib.h"
#include "testlib/store.h"
#include "fakellm/fakellm.h"

#include "depreview.h"
#include "repo.h"
#include "status.h"
#include "store.h"

#include <stdlib.h>
#include <string.h>

struct fixture {
	struct fakellm fake;
	char *repo_dir, *tmp, *db_path;
	struct repo *repo;
	struct target target;
	struct diff *diff;
	struct depreview *dr;
	struct store *store;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	test_env_private();
	fx->repo_dir = test_repo_new("depreview");
	fx->tmp = test_tmpdir("depreviewdb");
	fx->db_path = test_store_location(fx->tmp, "revline.db");
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	depreview_free(fx->dr);
	diff_free(fx->diff);
	target_release(&fx->target);
	repo_free(fx->repo);
	store_close(fx->store);
	fakellm_stop(&fx->fake);
	test_rmtree(fx->repo_dir);
	test_rmtree(fx->tmp);
	free(fx->repo_dir);
	free(fx->tmp);
	free(fx->db_path);
	free(fx);
	return 0;
}

static const char package_old[] =
	"{\n  \"name\": \"shop\",\n  \"version\": \"1.0.0\",\n  \"dependencies\": {\n"
	"    \"express\": \"^4.18.2\",\n    \"lodash\": \"4.17.20\"\n  },\n"
	"  \"devDependencies\": {\n    \"jest\": \"~29.6.0\"\n  }\n}\n";

static const char package_new[] =
	"{\n  \"name\": \"shop\",\n  \"version\": \"1.0.0\",\n  \"dependencies\": {\n"
	"    \"express\": \"^5.0.0\",\n    \"lodash\": \"4.17.21\",\n    \"left-pad\": \"1.3.0\"\n  }\n}\n";

/* OSV's answers: lodash 4.17.20 has a HIGH advisory (fixed by the bump); express 5.0.0 a moderate one. */
static const char osv_script[] =
	"{\"rules\": ["
	"{\"match_path\": \"/v1/querybatch\", \"results\": ["
	"{\"match\": [\"\\\"lodash\\\"\", \"\\\"4.17.20\\\"\"], \"result\": {\"vulns\": [{\"id\": \"GHSA-35jh-r3h4-6jhm\"}]}},"
	"{\"match\": [\"\\\"express\\\"\", \"\\\"5.0.0\\\"\"], \"result\": {\"vulns\": [{\"id\": \"GHSA-test-expr-0001\"}]}}]},"
	"{\"match_path\": \"/v1/vulns/GHSA-35jh-r3h4-6jhm\", \"body\": {\"id\": \"GHSA-35jh-r3h4-6jhm\", "
	"\"summary\": \"Command Injection in lodash\", \"database_specific\": {\"severity\": \"HIGH\"}}},"
	"{\"match_path\": \"/v1/vulns/GHSA-test-expr-0001\", \"body\": {\"id\": \"GHSA-test-expr-0001\", "
	"\"summary\": \"Open redirect in express\", \"database_specific\": {\"severity\": \"MODERATE\"}}}"
	"]}";

/* The base commit with package.json and app.js; the working tree bumps, adds and removes. */
static void repo_npm(struct fixture *fx, bool code_too)
{
	test_write_str(fx->repo_dir, "package.json", package_old);
	test_write_str(fx->repo_dir, "app.js", "module.exports = 1;\n");
	test_commit(fx->repo_dir, "base");
	test_write_str(fx->repo_dir, "package.json", package_new);
	if (code_too)
		test_write_str(fx->repo_dir, "app.js", "module.exports = 2;\n");
}

/* Open the repository's diff (working tree against HEAD) and run the phase to its end. */
static long review(struct fixture *fx, bool advisories, const char *osv_url)
{
	struct depreview_options o = { .advisories = advisories, .advisory = { .base_url = osv_url } };
	struct target_spec spec = { 0 };
	struct timespec t0, t1;
	int rounds = 0;

	assert_int_equal(repo_open(&fx->repo, fx->repo_dir), 0);
	assert_int_equal(repo_resolve(&fx->target, fx->repo, &spec), 0);
	assert_int_equal(repo_diff(&fx->diff, fx->repo, &fx->target), 0);
	assert_int_equal(depreview_new(&fx->dr, fx->repo, &fx->target, fx->diff, &o), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(depreview_start(fx->dr), 0);
	while (!depreview_done(fx->dr)) {
		assert_int_equal(depreview_wait(fx->dr, 100), 0);
		assert_true(++rounds < 400);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
}

static const struct deps_package *package(struct fixture *fx, const char *name)
{
	const struct deps_analysis *a = depreview_analysis(fx->dr);
	size_t i;

	for (i = 0; i < a->npackages; i++)
		if (!strcmp(a->packages[i].name, name))
			return &a->packages[i];
	fail_msg("no package %s", name);
	return NULL;
}

/* How many package versions OSV was asked about (the queries of its batches), and how many advisories' details. */
static size_t osv_queries(struct fixture *fx, size_t *details)
{
	json_t *all, *rec;
	size_t i, n = 0, d = 0;

	if (!fx->fake.dir)
		return 0;
	all = fakellm_requests(&fx->fake);
	json_array_foreach(all, i, rec) {
		const char *path = json_string_value(json_object_get(rec, "path"));

		if (!strcmp(path, "/v1/querybatch"))
			n += json_array_size(json_object_get(json_object_get(rec, "body"), "queries"));
		d += !strncmp(path, "/v1/vulns/", 10);
	}
	json_decref(all);
	if (details)
		*details = d;
	return n;
}

static char *sql_text(struct fixture *fx, const char *sql)
{
	return test_store_query(fx->db_path, sql);
}

static void assert_sql(struct fixture *fx, const char *want, const char *sql)
{
	char *got = sql_text(fx, sql);

	if (strcmp(got, want))
		fail_msg("%s: got '%s', want '%s'", sql, got, want);
	free(got);
}

/* A check in the store for the analysis to be kept with. */
static int64_t check_row(struct fixture *fx)
{
	struct check_record r = {
		.repo_path = fx->repo->workdir, .repo_name = "depreview", .branch = "main",
		.base_label = "HEAD", .head_label = "working tree", .target = "HEAD..working tree",
		.diff = "", .diff_len = 0,
	};
	int64_t id = 0;

	assert_int_equal(store_open(&fx->store, fx->db_path), 0);
	if (store_check_begin(fx->store, &id, &r) < 0)
		fail_msg("store_check_begin: %s", error_message());
	return id;
}

static void test_manifest_change_with_advisories(void **state)
{
	struct fixture *fx = *state;
	const struct deps_analysis *a;
	const struct deps_package *p;
	const char *section;
	char sql[256];
	size_t details;
	int64_t id;

	repo_npm(fx, true);
	fakellm_start(&fx->fake, osv_script);
	review(fx, true, fx->fake.url);

	a = depreview_analysis(fx->dr);
	assert_true(depreview_found(fx->dr));
	/* app.js changed too: not a dependency-only change. */
	assert_false(depreview_dependency_only(fx->dr));
	assert_int_equal(a->npackages, 4);
	p = package(fx, "lodash");
	assert_string_equal(p->from, "4.17.20");
	assert_string_equal(p->to, "4.17.21");
	assert_string_equal(p->manifest, "package.json");
	assert_int_equal(p->bump, BUMP_PATCH);
	assert_int_equal(p->nadvisories, 1);
	assert_string_equal(p->advisories[0].id, "GHSA-35jh-r3h4-6jhm");
	assert_string_equal(p->advisories[0].severity, "high");
	assert_true(p->advisories[0].fixed);              /* the old version has it, the new one not */
	p = package(fx, "express");
	assert_int_equal(p->bump, BUMP_MAJOR);
	assert_true(p->breaking);
	assert_int_equal(p->nadvisories, 1);
	assert_string_equal(p->advisories[0].severity, "medium");
	assert_false(p->advisories[0].fixed);             /* the new version has it */
	p = package(fx, "left-pad");
	assert_int_equal(p->bump, BUMP_ADDED);
	assert_null(p->from);
	p = package(fx, "jest");
	assert_int_equal(p->bump, BUMP_REMOVED);
	assert_null(p->to);
	/* A high advisory makes the merge confidence low, and the reason names it. */
	assert_int_equal(a->confidence, CONFIDENCE_LOW);
	assert_non_null(strstr(a->reason, "GHSA-35jh-r3h4-6jhm"));
	assert_true(depreview_checked(fx->dr) >= 3);
	assert_null(depreview_error(fx->dr));
	/* Both sides of a bumped package were asked about, in one batch; each advisory's details once. */
	assert_int_equal(osv_queries(fx, &details), 6);
	assert_int_equal(details, 2);

	/* The map prompts' section. */
	section = depreview_section(fx->dr);
	assert_non_null(strstr(section, "# Dependencies"));
	assert_non_null(strstr(section, "express"));
	assert_non_null(strstr(section, "GHSA-test-expr-0001"));

	/* Kept with a check. */
	id = check_row(fx);
	assert_int_equal(depreview_store(fx->dr, fx->store, id), 0);
	snprintf(sql, sizeof(sql), "SELECT confidence || ' ' || dependency_only || ' ' || ecosystems FROM "
		 "check_dependencies WHERE check_id = %lld", (long long)id);
	assert_sql(fx, "low 0 [\"npm\"]", sql);
	snprintf(sql, sizeof(sql), TEST_SQL("SELECT group_concat(name || ':' || bump || ':' || breaking, ' ') FROM "
		 "(SELECT * FROM check_packages WHERE check_id = %lld ORDER BY name)",
		 "SELECT string_agg(name || ':' || bump || ':' || breaking, ' ' ORDER BY name) FROM "
		 "check_packages WHERE check_id = %lld"), (long long)id);
	assert_sql(fx, "express:major:1 jest:removed:0 left-pad:added:0 lodash:patch:0", sql);
	snprintf(sql, sizeof(sql), TEST_SQL("SELECT json_extract(advisories, '$[0].id') || ' ' || "
		 "json_extract(advisories, '$[0].fixed') FROM check_packages WHERE check_id = %lld "
		 "AND name = 'lodash'", "SELECT (advisories::json->0->>'id') || ' ' || CASE WHEN "
		 "(advisories::json->0->>'fixed')::boolean THEN 1 ELSE 0 END FROM check_packages WHERE "
		 "check_id = %lld AND name = 'lodash'"), (long long)id);
	assert_sql(fx, "GHSA-35jh-r3h4-6jhm 1", sql);
}

static void test_osv_failing_is_fail_open(void **state)
{
	struct fixture *fx = *state;
	long took;

	repo_npm(fx, false);
	/* Every query fails; one hangs past the request timeout the lookup allows. */
	fakellm_start(&fx->fake, "{\"rules\": ["
		      "{\"match_path\": \"/v1/querybatch\", \"fault\": \"hang\"}]}");
	took = review(fx, true, fx->fake.url);
	/* Bounded by the 15 s budget. */
	assert_true(took < 16000);
	assert_true(depreview_found(fx->dr));
	assert_true(depreview_dependency_only(fx->dr));
	assert_int_equal(depreview_analysis(fx->dr)->npackages, 4);
	assert_int_equal(package(fx, "lodash")->nadvisories, 0);
	assert_non_null(depreview_error(fx->dr));
	assert_non_null(strstr(depreview_section(fx->dr), "lodash"));
}

static void test_advisories_off(void **state)
{
	struct fixture *fx = *state;

	repo_npm(fx, true);
	fakellm_start(&fx->fake, osv_script);
	review(fx, false, fx->fake.url);
	assert_int_equal(depreview_analysis(fx->dr)->npackages, 4);
	assert_int_equal(osv_queries(fx, NULL), 0);
	assert_string_equal(depreview_error(fx->dr), "advisories not looked up (revline.advisories is false)");
	assert_int_equal(package(fx, "lodash")->nadvisories, 0);
}

static void test_no_manifest_nothing_found(void **state)
{
	struct fixture *fx = *state;
	int64_t id;
	char sql[256];

	test_write_str(fx->repo_dir, "app.js", "module.exports = 1;\n");
	test_commit(fx->repo_dir, "base");
	test_write_str(fx->repo_dir, "app.js", "module.exports = 2;\n");
	fakellm_start(&fx->fake, osv_script);
	review(fx, true, fx->fake.url);
	assert_false(depreview_found(fx->dr));
	assert_false(depreview_dependency_only(fx->dr));
	assert_string_equal(depreview_section(fx->dr), "");
	assert_int_equal(osv_queries(fx, NULL), 0);
	id = check_row(fx);
	assert_int_equal(depreview_store(fx->dr, fx->store, id), 0);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM check_dependencies WHERE check_id = %lld", (long long)id);
	assert_sql(fx, "0", sql);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	if (test_store_skip())
		return PG_SKIP;
	const struct CMUnitTest tests[] = {
		T(test_manifest_change_with_advisories),
		T(test_osv_failing_is_fail_open),
		T(test_advisories_off),
		T(test_no_manifest_nothing_found),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
