/*
 * Dependency bumps: file roles, version reading, ordering per ecosystem and
 * classification as tables; every manifest format on both sides of a
 * change (tests/fixtures/deps/<kind>/{old,new}); bots told by branch and
 * subject; Dependabot's lock-only bumps; breaking changes from the
 * messages; dependency-only changes; the merge confidence and its reason;
 * the prompt section as text.
 */
#include "testlib.h"

#include "deps.h"
#include "version.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURES TEST_FIXTURES "/deps"
#define COUNT(a) (sizeof(a) / sizeof(*(a)))

/* ------------------------------------------------------------------------
 * Helpers
 */

/* One package as the analysis must give it (from/to the specs, the versions they name). */
struct want {
	const char *name, *from, *to;
	enum deps_bump bump;
	const char *from_version, *to_version;
	bool downgrade;
};

static void check_str(const char *got, const char *want, const char *what, const char *name, int line)
{
	if (!got && !want)
		return;
	if (!got || !want || strcmp(got, want))
		fail_msg("line %d: %s: %s is \"%s\", expected \"%s\"", line, name, what, got ? got : "(null)",
			 want ? want : "(null)");
}

static void check_packages(const struct deps_analysis *an, enum deps_ecosystem eco, const char *manifest,
			   const struct want *want, size_t n, int line)
{
	size_t i;

	for (i = 0; i < an->npackages && i < n; i++) {
		const struct deps_package *p = &an->packages[i];

		check_str(p->name, want[i].name, "name", want[i].name, line);
		check_str(p->from, want[i].from, "from", want[i].name, line);
		check_str(p->to, want[i].to, "to", want[i].name, line);
		check_str(p->from_version, want[i].from_version, "from_version", want[i].name, line);
		check_str(p->to_version, want[i].to_version, "to_version", want[i].name, line);
		if (p->bump != want[i].bump)
			fail_msg("line %d: %s: bump %s, expected %s", line, p->name, deps_bump_name(p->bump),
				 deps_bump_name(want[i].bump));
		if (p->downgrade != want[i].downgrade)
			fail_msg("line %d: %s: downgrade %d", line, p->name, p->downgrade);
		if (p->breaking != (want[i].bump == BUMP_MAJOR))
			fail_msg("line %d: %s: breaking %d", line, p->name, p->breaking);
		assert_int_equal(p->ecosystem, eco);
		check_str(p->manifest, manifest, "manifest", want[i].name, line);
		assert_int_equal(p->nadvisories, 0);
	}
	if (an->npackages != n) {
		for (i = 0; i < an->npackages; i++)
			fprintf(stderr, "  got %s: %s -> %s (%s)\n", an->packages[i].name,
				an->packages[i].from ? an->packages[i].from : "-",
				an->packages[i].to ? an->packages[i].to : "-", deps_bump_name(an->packages[i].bump));
		fail_msg("line %d: %zu packages, expected %zu", line, an->npackages, n);
	}
}

static void analyze(struct deps_analysis *an, const struct deps_file *files, size_t n, const char *branch,
		    const char *messages)
{
	if (deps_analyze(an, files, n, branch, messages) < 0)
		fail_msg("deps_analyze: %s", error_message());
}

/* One manifest changed from old to new text (NULL: the file is new or deleted). */
static void analyze_texts(struct deps_analysis *an, const char *path, const char *old, const char *new)
{
	struct deps_file file = { .path = path, .old_text = old, .old_len = old ? strlen(old) : 0, .new_text = new, .new_len = new ? strlen(new) : 0 };

	analyze(an, &file, 1, NULL, NULL);
}

static char *fixture(const char *dir, const char *side, const char *name)
{
	struct buf path = BUF_INIT, text = BUF_INIT;

	buf_printf(&path, "%s/%s/%s/%s", FIXTURES, dir, side, name);
	if (buf_read_file(&text, path.ptr) < 0)
		fail_msg("%s", error_message());
	buf_release(&path);
	return buf_detach(&text);
}

/* The fixture pair dir/{old,new}/name as the change of path. */
static void check_fixture(const char *dir, const char *name, const char *path, enum deps_ecosystem eco,
			  const struct want *want, size_t n, int line)
{
	char *old = fixture(dir, "old", name), *new = fixture(dir, "new", name);
	struct deps_analysis an;

	analyze_texts(&an, path, old, new);
	assert_int_equal(an.manifests, 1);
	assert_int_equal(an.files, 1);
	assert_true(an.dependency_only);
	assert_int_equal(an.ecosystems, 1u << eco);
	check_packages(&an, eco, path, want, n, line);
	deps_analysis_release(&an);
	free(old);
	free(new);
}

/* ------------------------------------------------------------------------
 * Names and file roles
 */

/* A manifest that cannot be read is said, with the side and the line, and none of its dependencies is made up. */
static void test_malformed_manifest(void **state)
{
	struct deps_analysis an;

	(void)state;
	analyze_texts(&an, "web/package.json", "{\"dependencies\": {\"lodash\": \"4.17.20\"}}",
		      "{\"dependencies\": {\n  \"lodash\": \"4.17.21\",\n}}");
	assert_int_equal(an.npackages, 0);
	assert_int_equal(an.nproblems, 1);
	assert_non_null(strstr(an.problems[0], "web/package.json (new side): not valid JSON, line 3"));
	assert_non_null(strstr(an.problems[0], "its dependencies are left out"));
	deps_analysis_release(&an);
	analyze_texts(&an, "package.json", "[1, 2]", "{\"dependencies\": {\"lodash\": \"4.17.21\"}}");
	assert_int_equal(an.npackages, 0);
	assert_int_equal(an.nproblems, 1);
	assert_non_null(strstr(an.problems[0], "package.json (old side): not a JSON object"));
	deps_analysis_release(&an);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(deps_ecosystem_name(ECO_NPM), "npm");
	assert_string_equal(deps_ecosystem_name(ECO_CARGO), "cargo");
	assert_string_equal(deps_ecosystem_osv(ECO_CARGO), "crates.io");
	assert_string_equal(deps_ecosystem_osv(ECO_GO), "Go");
	assert_string_equal(deps_ecosystem_osv(ECO_PIP), "PyPI");
	assert_string_equal(deps_ecosystem_osv(ECO_RUBYGEMS), "RubyGems");
	assert_string_equal(deps_ecosystem_name(ECO_COUNT), "unknown");
	assert_string_equal(deps_bump_name(BUMP_PATCH), "patch");
	assert_string_equal(deps_bump_name(BUMP_REMOVED), "removed");
	assert_string_equal(deps_bump_name(BUMP_UNKNOWN), "unknown");
	assert_string_equal(deps_bump_name((enum deps_bump)99), "unknown");
	assert_string_equal(deps_confidence_name(CONFIDENCE_MEDIUM), "medium");
	assert_string_equal(deps_confidence_name((enum deps_confidence)7), "unknown");
}

static const struct {
	const char *path;
	enum deps_file_kind kind;
	enum deps_ecosystem eco;
} file_rows[] = {
	{ "package.json", DEPS_FILE_MANIFEST, ECO_NPM },
	{ "web/app/package.json", DEPS_FILE_MANIFEST, ECO_NPM },
	{ "package-lock.json", DEPS_FILE_LOCK, ECO_NPM },
	{ "npm-shrinkwrap.json", DEPS_FILE_LOCK, ECO_NPM },
	{ "web/yarn.lock", DEPS_FILE_LOCK, ECO_NPM },
	{ "pnpm-lock.yaml", DEPS_FILE_LOCK, ECO_NPM },
	{ "go.mod", DEPS_FILE_MANIFEST, ECO_GO },
	{ "tools/go.sum", DEPS_FILE_LOCK, ECO_GO },
	{ "Cargo.toml", DEPS_FILE_MANIFEST, ECO_CARGO },
	{ "crates/core/Cargo.toml", DEPS_FILE_MANIFEST, ECO_CARGO },
	{ "Cargo.lock", DEPS_FILE_LOCK, ECO_CARGO },
	{ "requirements.txt", DEPS_FILE_MANIFEST, ECO_PIP },
	{ "requirements-dev.txt", DEPS_FILE_MANIFEST, ECO_PIP },
	{ "requirements_test.txt", DEPS_FILE_MANIFEST, ECO_PIP },
	{ "api/requirements.txt", DEPS_FILE_MANIFEST, ECO_PIP },
	{ "requirements/base.txt", DEPS_FILE_MANIFEST, ECO_PIP },
	{ "api/requirements/prod.txt", DEPS_FILE_MANIFEST, ECO_PIP },
	{ "pyproject.toml", DEPS_FILE_MANIFEST, ECO_PIP },
	{ "Pipfile.lock", DEPS_FILE_LOCK, ECO_PIP },
	{ "poetry.lock", DEPS_FILE_LOCK, ECO_PIP },
	{ "Gemfile", DEPS_FILE_MANIFEST, ECO_RUBYGEMS },
	{ "Gemfile.lock", DEPS_FILE_LOCK, ECO_RUBYGEMS },
	/* issue 14 item 18: the other current lock files (and Bundler's gems.rb) */
	{ "uv.lock", DEPS_FILE_LOCK, ECO_PIP },
	{ "svc/pdm.lock", DEPS_FILE_LOCK, ECO_PIP },
	{ "bun.lock", DEPS_FILE_LOCK, ECO_NPM },
	{ "web/bun.lockb", DEPS_FILE_LOCK, ECO_NPM },
	{ "go.work.sum", DEPS_FILE_LOCK, ECO_GO },
	{ "gems.locked", DEPS_FILE_LOCK, ECO_RUBYGEMS },
	{ "gems.rb", DEPS_FILE_MANIFEST, ECO_RUBYGEMS },
	{ "uv.toml", DEPS_FILE_OTHER, ECO_COUNT },
	{ "src/main.c", DEPS_FILE_OTHER, ECO_COUNT },
	{ "README.md", DEPS_FILE_OTHER, ECO_COUNT },
	{ "requirements.in", DEPS_FILE_OTHER, ECO_COUNT },
	{ "docs/requirements.md", DEPS_FILE_OTHER, ECO_COUNT },
	{ "my-requirements/base.txt", DEPS_FILE_OTHER, ECO_COUNT },
	{ "notes.txt", DEPS_FILE_OTHER, ECO_COUNT },
	{ "package.json.bak", DEPS_FILE_OTHER, ECO_COUNT },
	{ "Gemfile.local", DEPS_FILE_OTHER, ECO_COUNT },
	{ "cargo.toml", DEPS_FILE_OTHER, ECO_COUNT },
	{ "", DEPS_FILE_OTHER, ECO_COUNT },
};

static void test_file_kinds(void **state)
{
	enum deps_ecosystem eco;
	size_t i;

	(void)state;
	for (i = 0; i < COUNT(file_rows); i++) {
		eco = ECO_COUNT;
		if (deps_file_kind(file_rows[i].path, &eco) != file_rows[i].kind || eco != file_rows[i].eco)
			fail_msg("%s: kind %d, ecosystem %d", file_rows[i].path,
				 deps_file_kind(file_rows[i].path, &eco), eco);
		assert_int_equal(deps_file_kind(file_rows[i].path, NULL), file_rows[i].kind);
	}
	assert_int_equal(deps_file_kind(NULL, &eco), DEPS_FILE_OTHER);
}

/* ------------------------------------------------------------------------
 * Versions (version.h): reading, ordering per ecosystem, classification
 */

static const struct {
	enum deps_ecosystem eco;
	const char *spec;
	bool ok;
	const char *text;
} parse_rows[] = {
	{ ECO_NPM, "1.2.3", true, "1.2.3" },
	{ ECO_NPM, "^1.2.3", true, "1.2.3" },
	{ ECO_NPM, "~1.2", true, "1.2.0" },
	{ ECO_NPM, "~> 7.0.4", true, "7.0.4" },
	{ ECO_NPM, ">=2.0,<3", true, "2.0.0" },
	{ ECO_NPM, ">= 5.0, < 7", true, "5.0.0" },
	{ ECO_NPM, "<3, >=2.1", true, "2.1.0" },
	{ ECO_NPM, "!=1.5, >=1.2", true, "1.2.0" },
	{ ECO_NPM, "<2", false, "" },
	{ ECO_NPM, "<=2.0", false, "" },
	{ ECO_NPM, "==1.2.*", true, "1.2.0" },
	{ ECO_NPM, "~=1.4.2", true, "1.4.2" },
	{ ECO_NPM, "=1.2.3", true, "1.2.3" },
	{ ECO_NPM, "===1.0", true, "1.0.0" },
	{ ECO_NPM, "> 1.2", true, "1.2.0" },
	{ ECO_NPM, "v1.2.3", true, "1.2.3" },
	{ ECO_NPM, "=v2.0.0", true, "2.0.0" },
	{ ECO_NPM, "V3", true, "3.0.0" },
	{ ECO_NPM, "4.x", true, "4.0.0" },
	{ ECO_NPM, "4.X.x", true, "4.0.0" },
	{ ECO_NPM, "1.2.x", true, "1.2.0" },
	{ ECO_NPM, "2.*", true, "2.0.0" },
	{ ECO_NPM, "*", false, "" },
	{ ECO_NPM, "x", false, "" },
	{ ECO_NPM, "", false, "" },
	{ ECO_NPM, "   ", false, "" },
	{ ECO_NPM, "latest", false, "" },
	{ ECO_NPM, "next", false, "" },
	{ ECO_NPM, "vendor", false, "" },
	{ ECO_NPM, "git+https://github.com/a/b.git#v1.2.3", false, "" },
	{ ECO_NPM, "github:user/repo#v1.0.0", false, "" },
	{ ECO_NPM, "file:../x", false, "" },
	{ ECO_NPM, "npm:jest@^29.1.0", true, "29.1.0" },
	{ ECO_NPM, "npm:@scope/pkg@2.0.0", true, "2.0.0" },
	{ ECO_NPM, "npm:pkg", false, "" },
	{ ECO_NPM, "workspace:^1.2.0", true, "1.2.0" },
	{ ECO_NPM, "workspace:*", false, "" },
	{ ECO_NPM, "1.2.3-rc.1+build.5", true, "1.2.3-rc.1" },
	{ ECO_NPM, "1.2.3+build", true, "1.2.3" },
	{ ECO_NPM, "1.0.0-alpha-1.x", true, "1.0.0-alpha-1.x" },
	{ ECO_NPM, "v0.0.0-20230101120000-abcdef123456", true, "0.0.0-20230101120000-abcdef123456" },
	{ ECO_NPM, "v1.2.4-0.20230101120000-abcdef123456", true, "1.2.4-0.20230101120000-abcdef123456" },
	{ ECO_NPM, "v2.0.0+incompatible", true, "2.0.0" },
	{ ECO_NPM, "1.0.0rc1", true, "1.0.0-rc1" },
	{ ECO_NPM, "2.0b1", true, "2.0.0-b1" },
	{ ECO_NPM, "1.0.dev3", true, "1.0.0-dev3" },
	{ ECO_NPM, "1.0.post1", true, "1.0.0" },
	{ ECO_NPM, "7.1.0.beta1", true, "7.1.0-beta1" },
	{ ECO_NPM, "1.2.3.4", true, "1.2.3.4" },
	{ ECO_NPM, "1.2.3 - 2.3.4", true, "1.2.3" },
	{ ECO_NPM, "^1.2.3 || ^2.0.0", true, "1.2.3" },
	{ ECO_NPM, "(>=1.0)", true, "1.0.0" },
	{ ECO_NPM, "1.0.0-", true, "1.0.0" },
	{ ECO_NPM, "2023.10.1", true, "2023.10.1" },
	{ ECO_NPM, "99999999999999999999", false, "" },
	{ ECO_NPM, "1.0.0-this-is-a-very-long-pre-release-identifier-that-goes-on-and-on-and-on", true,
	  "1.0.0-this-is-a-very-long-pre-release-identifier-that-goes-on-and-on-and-on" },
	{ ECO_NPM, "1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16.17", false, "" },
	{ ECO_GO, "v1.2.3", true, "1.2.3" },
	{ ECO_GO, "v2.0.0+incompatible", true, "2.0.0" },
	{ ECO_CARGO, "0.2", true, "0.2.0" },
	/* Issue 14.15: Rails' security releases, certifi, types-setuptools keep their fourth component. */
	{ ECO_RUBYGEMS, "6.1.4.1", true, "6.1.4.1" },
	{ ECO_RUBYGEMS, "~> 6.1.4.1", true, "6.1.4.1" },
	{ ECO_PIP, "==2022.5.18.1", true, "2022.5.18.1" },
	{ ECO_PIP, ">=65.6.0.1", true, "65.6.0.1" },
	/* Issue 14.16: the largest lower bound; exclusions alone name no version. */
	{ ECO_RUBYGEMS, "~> 7.1, >= 7.1.2", true, "7.1.2" },
	{ ECO_RUBYGEMS, ">= 7.1.2, ~> 7.1", true, "7.1.2" },
	{ ECO_RUBYGEMS, ">= 6.0, < 7", true, "6.0" },
	{ ECO_RUBYGEMS, "!= 1.0.3, != 1.0.4", false, "" },
	{ ECO_PIP, ">=1.0rc1,>=1.0a5", true, "1.0rc1" },
	/* Issue 14.17: each ecosystem's own spellings, as written. */
	{ ECO_RUBYGEMS, "7.1.0.beta1", true, "7.1.0.beta1" },
	{ ECO_RUBYGEMS, "1.0.0-rc1", true, "1.0.0-rc1" },
	{ ECO_RUBYGEMS, "1.0..1", false, "" },
	{ ECO_RUBYGEMS, "1.0_1", false, "" },
	{ ECO_PIP, "==1.0rc1", true, "1.0rc1" },
	{ ECO_PIP, "==1!2.0", true, "1!2.0" },
	{ ECO_PIP, "==1.0-1", true, "1.0-1" },
	{ ECO_PIP, "==1.0.post1", true, "1.0.post1" },
	{ ECO_PIP, "==1.0.dev3", true, "1.0.dev3" },
	{ ECO_PIP, "==v1.0", true, "1.0" },
	{ ECO_PIP, "==1.2.*", true, "1.2" },
	{ ECO_PIP, "==1.0+ubuntu.1", true, "1.0+ubuntu.1" },
	{ ECO_PIP, "==1.0.0-rc.1", true, "1.0.0-rc.1" },
	{ ECO_PIP, "==1.0-alpha_2.post-3-dev4", true, "1.0-alpha_2.post-3-dev4" },
	{ ECO_PIP, "==1.0foo", false, "" },
	{ ECO_PIP, "==1.0+", false, "" },
	{ ECO_PIP, "==1.0+a.", false, "" },
	{ ECO_PIP, "==x!1.0", false, "" },
	{ ECO_PIP, "==latest", false, "" },
};

static void test_version_parse(void **state)
{
	struct version v;
	size_t i;
	bool ok;

	(void)state;
	for (i = 0; i < COUNT(parse_rows); i++) {
		ok = version_parse(&v, parse_rows[i].eco, parse_rows[i].spec);
		if (ok != parse_rows[i].ok || strcmp(v.text, parse_rows[i].text))
			fail_msg("%s \"%s\": read %d as \"%s\"", deps_ecosystem_name(parse_rows[i].eco),
				 parse_rows[i].spec, ok, v.text);
	}
	assert_false(version_parse(&v, ECO_NPM, NULL));
}

/* Each list is in order, each before the next but those marked equal ("=" before the text). */
static const char *const semver_order[] = {
	"0.0.0-20230101120000-abcdef123456",
	"0.0.0-20230801120000-fedcba654321",
	"0.0.0",
	"0.9.9",
	"1.0.0-alpha",
	"1.0.0-alpha.1",
	"1.0.0-alpha.beta",
	"1.0.0-beta",
	"1.0.0-beta.2",
	"1.0.0-beta.11",
	"1.0.0-rc.1",
	"=1.0.0-rc.01",
	"1.0.0",
	"=v1.0.0+build.1",
	"1.0.1",
	"1.9.0",
	"1.10.0",
	"2.0.0-rc.1",
	"2.0.0-rc.99999999999999999999999",
	"2.0.0-rc.x",
	"2.0.0",
	"10.0.0",
	NULL,
};

/*
 * PEP 440's order, as packaging sorts it (rules learned from PEP 440's
 * "Summary of permitted suffixes and relative ordering" and
 * pypa/packaging's tests/test_version.py; the list is ours): a dev
 * release of a release before its pre-releases, a < b < rc (c, pre,
 * preview the same), post releases after, local versions after their
 * public one (numbers after words), epochs first of all.
 */
static const char *const pep440_order[] = {
	"1.0.dev456",
	"1.0a1",
	"=1.0alpha1",
	"=1.0.a.1",
	"1.0a2.dev456",
	"1.0a12.dev456",
	"1.0a12",
	"1.0b1.dev456",
	"1.0b2",
	"1.0b2.post345.dev456",
	"1.0b2.post345",
	"1.0b2-346",
	"1.0c1.dev456",
	"1.0c1",
	"=1.0rc1",
	"=1.0pre1",
	"1.0rc2",
	"1.0c3",
	"1.0rc9",
	"1.0rc10",
	"1.0",
	"=1.0.0",
	"=v1.0",
	"1.0-1",
	"=1.0.post1",
	"=1.0.rev1",
	"1.0.post456.dev34",
	"1.0.post456",
	"1.0.0.1",
	"1.1.dev1",
	"1.2",
	"1.2+123abc",
	"1.2+123abc456",
	"1.2+abc",
	"=1.2+ABC",
	"1.2+abc123",
	"1.2+abc123def",
	"1.2+1234.abc",
	"1.2+123456",
	"1.2.r32+123456",
	"1.2.rev33+123456",
	"2022.5.18",
	"2022.5.18.1",
	"1!0.1",
	"1!1.0b2.post345.dev456",
	"1!1.0",
	NULL,
};

/*
 * Gem::Version's order (rules learned from Gem::Version#<=> and
 * rubygems' test/rubygems/test_gem_version.rb; the list is ours): a
 * letter segment makes a pre-release, before any number in its place;
 * letters compare as text ("dev" after "a"); trailing zeros do not count;
 * "-" reads as ".pre.".
 */
static const char *const gem_order[] = {
	"0.0.beta",
	"0.beta.1",
	"=0.0.beta.1",
	"1.0.a",
	"1.0.a2",
	"1.0.a10",
	"1.0.b1",
	"1.0.dev",
	"1.0.0-rc1",
	"=1.0.0.pre.rc1",
	"1.0.rc1",
	"1.0",
	"=1.0.0",
	"1.8.2.a",
	"1.8.2.a9",
	"1.8.2.a10",
	"1.8.2.b",
	"1.8.2",
	"5.a",
	"5.0.0.rc2",
	"5.x",
	"6.1.4",
	"6.1.4.1",
	"6.1.4.2",
	"6.1.5",
	"7.1.0.beta1",
	"7.1.0.rc1",
	"7.1.0",
	NULL,
};

static void check_order(enum deps_ecosystem eco, const char *const *rows)
{
	struct version a, b;
	size_t i, j, ri, rj;
	int c;

	/* rank: the index of the first of a run of equals */
	for (i = 0; rows[i]; i++)
		for (j = 0; rows[j]; j++) {
			for (ri = i; ri && rows[ri][0] == '='; ri--)
				;
			for (rj = j; rj && rows[rj][0] == '='; rj--)
				;
			if (!version_read(&a, eco, rows[i] + (rows[i][0] == '='), strlen(rows[i] + (rows[i][0] == '='))) ||
			    !version_read(&b, eco, rows[j] + (rows[j][0] == '='), strlen(rows[j] + (rows[j][0] == '='))))
				fail_msg("%s: %s or %s not read", deps_ecosystem_name(eco), rows[i], rows[j]);
			c = version_compare(&a, &b);
			if ((c < 0) != (ri < rj) || (c > 0) != (ri > rj))
				fail_msg("%s: %s vs %s: %d", deps_ecosystem_name(eco), rows[i], rows[j], c);
		}
}

static void test_version_order(void **state)
{
	(void)state;
	check_order(ECO_NPM, semver_order);
	check_order(ECO_GO, semver_order);
	check_order(ECO_CARGO, semver_order);
	check_order(ECO_PIP, pep440_order);
	check_order(ECO_RUBYGEMS, gem_order);
}

static const struct {
	enum deps_ecosystem eco;
	const char *from, *to;
	enum deps_bump bump;
	bool downgrade;
} classify_rows[] = {
	{ ECO_NPM, "1.2.3", "1.2.4", BUMP_PATCH, false },
	{ ECO_NPM, "1.2.3", "1.3.0", BUMP_MINOR, false },
	{ ECO_NPM, "1.2.3", "2.0.0", BUMP_MAJOR, false },
	{ ECO_NPM, "^1.2.3", "^1.4.0", BUMP_MINOR, false },
	{ ECO_NPM, "~1.2.3", "~1.2.9", BUMP_PATCH, false },
	{ ECO_NPM, "1.2.3", "1.2.3", BUMP_PATCH, false },
	{ ECO_NPM, "^1.2.3", "~1.2.3", BUMP_PATCH, false },
	{ ECO_NPM, "0.3.1", "0.4.0", BUMP_MAJOR, false },
	{ ECO_NPM, "0.3.1", "0.3.2", BUMP_PATCH, false },
	{ ECO_NPM, "^0.2", "^0.2.1", BUMP_PATCH, false },
	{ ECO_NPM, "0.0.3", "0.0.4", BUMP_MAJOR, false },
	{ ECO_NPM, "0.0.3", "0.1.0", BUMP_MAJOR, false },
	{ ECO_NPM, "0.0.0", "0.0.1", BUMP_MAJOR, false },
	{ ECO_NPM, "0.9.9", "1.0.0", BUMP_MAJOR, false },
	{ ECO_NPM, "0.7.0", "0.17.0", BUMP_MAJOR, false },
	{ ECO_NPM, "1.0.0-rc.1", "1.0.0", BUMP_PATCH, false },
	{ ECO_NPM, "1.0.0-alpha", "1.0.0-beta", BUMP_PATCH, false },
	{ ECO_NPM, "1.0.0", "1.0.0-rc.1", BUMP_PATCH, true },
	{ ECO_NPM, "1.0.0", "2.0.0-rc.1", BUMP_MAJOR, false },
	{ ECO_NPM, "2.0.0", "1.9.0", BUMP_MAJOR, true },
	{ ECO_NPM, "1.9.0", "1.8.0", BUMP_MINOR, true },
	{ ECO_NPM, "1.2.4", "1.2.3", BUMP_PATCH, true },
	{ ECO_NPM, "v1.2.3", "v1.2.4", BUMP_PATCH, false },
	{ ECO_NPM, "=v1.0.0", "v1.1.0", BUMP_MINOR, false },
	{ ECO_NPM, "4.x", "5.x", BUMP_MAJOR, false },
	{ ECO_NPM, "4.x", "4.17.21", BUMP_MINOR, false },
	{ ECO_NPM, "1.x", "1.2.x", BUMP_MINOR, false },
	{ ECO_NPM, "*", "1.0.0", BUMP_UNKNOWN, false },
	{ ECO_NPM, "latest", "1.0.0", BUMP_UNKNOWN, false },
	{ ECO_NPM, "1.0.0", "latest", BUMP_UNKNOWN, false },
	{ ECO_NPM, "git+https://github.com/a/b.git#v1", "git+https://github.com/a/b.git#v2", BUMP_UNKNOWN, false },
	{ ECO_NPM, "", "1.0.0", BUMP_UNKNOWN, false },
	{ ECO_NPM, NULL, "1.0.0", BUMP_UNKNOWN, false },
	{ ECO_NPM, ">=2.0,<3", ">=2.1,<3", BUMP_MINOR, false },
	{ ECO_NPM, ">=1.2,<2", ">=1.2,<3", BUMP_PATCH, false },
	{ ECO_NPM, "~> 7.0.4", "~> 7.1", BUMP_MINOR, false },
	{ ECO_NPM, ">= 5.0, < 7", ">= 6.0, < 8", BUMP_MAJOR, false },
	{ ECO_NPM, "~=1.4.2", "~=1.4.5", BUMP_PATCH, false },
	{ ECO_NPM, "==1.0.0rc1", "==1.0.0", BUMP_PATCH, false },
	{ ECO_NPM, "==2.0b1", "==2.0", BUMP_PATCH, false },
	{ ECO_NPM, "7.1.0.beta1", "7.1.0", BUMP_PATCH, false },
	{ ECO_NPM, "v0.0.0-20230101120000-abcdef123456", "v0.0.0-20230801120000-fedcba654321", BUMP_PATCH, false },
	{ ECO_NPM, "v0.0.0-20230801120000-fedcba654321", "v0.0.0-20230101120000-abcdef123456", BUMP_PATCH, true },
	{ ECO_NPM, "v0.0.0-20230101120000-abcdef123456", "v0.1.0", BUMP_MAJOR, false },
	{ ECO_NPM, "v1.2.4-0.20230101120000-abcdef123456", "v1.2.4", BUMP_PATCH, false },
	{ ECO_NPM, "v20.10.24+incompatible", "v24.0.5+incompatible", BUMP_MAJOR, false },
	{ ECO_NPM, "v2.0.0+incompatible", "v2.0.1+incompatible", BUMP_PATCH, false },
	{ ECO_NPM, "1.0.0+build.1", "1.0.0+build.2", BUMP_PATCH, false },
	{ ECO_NPM, "npm:jest@^28.0.0", "npm:jest@^29.0.0", BUMP_MAJOR, false },
	{ ECO_NPM, "1.2.3.4", "1.2.3.5", BUMP_PATCH, false },
	{ ECO_NPM, "2023.10.1", "2024.1.0", BUMP_MAJOR, false },
	{ ECO_NPM, "^1.2.3 || ^2.0.0", "^2.0.0 || ^3.0.0", BUMP_MAJOR, false },
	/* Issue 14.15: Rails 6.1.4.1 -> 6.1.4.2 (rails/rails Gemfile.lock), and back. */
	{ ECO_RUBYGEMS, "6.1.4.1", "6.1.4.2", BUMP_PATCH, false },
	{ ECO_RUBYGEMS, "~> 6.1.4.2", "~> 6.1.4.1", BUMP_PATCH, true },
	{ ECO_RUBYGEMS, "6.1.4.7", "6.1.5", BUMP_PATCH, false },
	{ ECO_PIP, "==2022.5.18", "==2022.5.18.1", BUMP_PATCH, false },
	{ ECO_PIP, "==65.6.0.1", "==65.6.0", BUMP_PATCH, true },
	/* Issue 14.16 */
	{ ECO_RUBYGEMS, "~> 7.1, >= 7.1.2", "~> 7.1, >= 7.1.3", BUMP_PATCH, false },
	{ ECO_RUBYGEMS, "~> 7.1, >= 7.1.2", "~> 7.1", BUMP_PATCH, true },
	{ ECO_RUBYGEMS, "!= 1.0.3, != 1.0.4", "!= 1.0.3", BUMP_UNKNOWN, false },
	/* Issue 14.17: PEP 440 and Gem::Version, not SemVer. */
	{ ECO_PIP, "==1.0rc9", "==1.0rc10", BUMP_PATCH, false },
	{ ECO_PIP, "==1.0.dev1", "==1.0a1", BUMP_PATCH, false },
	{ ECO_PIP, "==1.0", "==1.0-1", BUMP_PATCH, false },
	{ ECO_PIP, "==1.0.post1", "==1.0", BUMP_PATCH, true },
	{ ECO_PIP, "==2.0", "==1!1.0", BUMP_MAJOR, false },
	{ ECO_PIP, "==1!1.0", "==2.0", BUMP_MAJOR, true },
	{ ECO_PIP, "==1.0+local.2", "==1.0+local.10", BUMP_PATCH, false },
	{ ECO_RUBYGEMS, "7.1.0.beta1", "7.1.0.rc1", BUMP_PATCH, false },
	{ ECO_RUBYGEMS, "1.0.a", "1.0.dev", BUMP_PATCH, false },
	{ ECO_RUBYGEMS, "1.0.0.rc9", "1.0.0.rc10", BUMP_PATCH, false },
	{ ECO_GO, "v1.2.3", "v1.2.4", BUMP_PATCH, false },
	{ ECO_GO, "v2.0.0+incompatible", "v1.9.0", BUMP_MAJOR, true },
};

static void test_classify(void **state)
{
	struct version a, b;
	enum deps_bump bump;
	bool downgrade;
	size_t i;

	(void)state;
	assert_true(COUNT(classify_rows) >= 40);
	for (i = 0; i < COUNT(classify_rows); i++) {
		bump = deps_classify(classify_rows[i].eco, classify_rows[i].from, classify_rows[i].to);
		downgrade = version_parse(&a, classify_rows[i].eco, classify_rows[i].from) &&
			    version_parse(&b, classify_rows[i].eco, classify_rows[i].to) && version_compare(&b, &a) < 0;
		if (bump != classify_rows[i].bump || downgrade != classify_rows[i].downgrade)
			fail_msg("%s -> %s: %s%s, expected %s%s", classify_rows[i].from ? classify_rows[i].from : "(null)",
				 classify_rows[i].to, deps_bump_name(bump), downgrade ? " (downgrade)" : "",
				 deps_bump_name(classify_rows[i].bump),
				 classify_rows[i].downgrade ? " (downgrade)" : "");
	}
}

/* ------------------------------------------------------------------------
 * Manifests
 */

static const struct want npm_want[] = {
	{ "@scope/tool", "0.3.1", "0.4.0", BUMP_MAJOR, "0.3.1", "0.4.0", false },
	{ "axios", "1.4.0+build.7", "1.5.0+build.1", BUMP_MINOR, "1.4.0", "1.5.0", false },
	{ "dayjs", NULL, "^1.11.9", BUMP_ADDED, NULL, "1.11.9", false },
	{ "debug", "*", "^4.3.4", BUMP_UNKNOWN, NULL, "4.3.4", false },
	{ "eslint", "8.40.0", "8.39.0", BUMP_MINOR, "8.40.0", "8.39.0", true },
	{ "express", "^4.18.2", "^5.0.0", BUMP_MAJOR, "4.18.2", "5.0.0", false },
	{ "fsevents", "~2.3.2", "~2.3.3", BUMP_PATCH, "2.3.2", "2.3.3", false },
	{ "jest-alias", "npm:jest@^28.1.0", "npm:jest@^29.0.0", BUMP_MAJOR, "28.1.0", "29.0.0", false },
	{ "left-pad", "1.3.0", NULL, BUMP_REMOVED, "1.3.0", NULL, false },
	/* dependencies speak for a name also in devDependencies */
	{ "lodash", "4.17.20", "4.17.21", BUMP_PATCH, "4.17.20", "4.17.21", false },
	{ "moment", "2.x", "2.29.4", BUMP_MINOR, "2.0.0", "2.29.4", false },
	{ "my-fork", "git+https://github.com/ana/my-fork.git#v1.0.0", "git+https://github.com/ana/my-fork.git#v1.1.0",
	  BUMP_UNKNOWN, NULL, NULL, false },
	{ "next", "13.4.0-canary.1", "13.4.0", BUMP_PATCH, "13.4.0-canary.1", "13.4.0", false },
	{ "react", "~17.0.2", "^18.2.0", BUMP_MAJOR, "17.0.2", "18.2.0", false },
	{ "react-dom", "^17.0.0", "^18.0.0", BUMP_MAJOR, "17.0.0", "18.0.0", false },
	{ "semver", ">=7.5.0 <8.0.0", ">=7.5.4 <8.0.0", BUMP_PATCH, "7.5.0", "7.5.4", false },
	{ "tiny", "0.0.3", "0.0.4", BUMP_MAJOR, "0.0.3", "0.0.4", false },
	{ "typescript", "^5.0.4", "^5.1.3", BUMP_MINOR, "5.0.4", "5.1.3", false },
	{ "uuid", "v8.3.2", "v9.0.0", BUMP_MAJOR, "8.3.2", "9.0.0", false },
};

static void test_npm(void **state)
{
	(void)state;
	check_fixture("npm", "package.json", "web/package.json", ECO_NPM, npm_want, COUNT(npm_want), __LINE__);
}

static void test_npm_edges(void **state)
{
	static const struct want added[] = {
		{ "a", NULL, "1.0.0", BUMP_ADDED, NULL, "1.0.0", false },
		{ "b", NULL, "latest", BUMP_ADDED, NULL, NULL, false },
	};
	static const struct want removed[] = {
		{ "a", "1.0.0", NULL, BUMP_REMOVED, "1.0.0", NULL, false },
	};
	static const struct want spaced[] = {
		{ "a", ">=1.0.0 <2", ">=1.0.0 <3", BUMP_PATCH, "1.0.0", "1.0.0", false },
	};
	struct deps_analysis an;

	(void)state;
	/* A new package.json: everything is added. */
	analyze_texts(&an, "package.json", NULL, "{\"dependencies\": {\"b\": \"latest\", \"a\": \"1.0.0\"}}");
	check_packages(&an, ECO_NPM, "package.json", added, COUNT(added), __LINE__);
	deps_analysis_release(&an);
	/* A deleted one: everything is removed; values that are no strings are passed over. */
	analyze_texts(&an, "package.json", "{\"dependencies\": {\"a\": \"1.0.0\", \"n\": 5, \"o\": {}}}", NULL);
	check_packages(&an, ECO_NPM, "package.json", removed, COUNT(removed), __LINE__);
	deps_analysis_release(&an);
	/* Spaces alone are no change; an upper bound alone is a spec change on the same version: patch. */
	analyze_texts(&an, "package.json", "{\"dependencies\": {\"a\": \">=1.0.0 <2\", \"c\": \"^1.0.0\"}}",
		      "{\"dependencies\": {\"a\": \">=1.0.0 <3\", \"c\": \" ^1.0.0 \"}}");
	check_packages(&an, ECO_NPM, "package.json", spaced, COUNT(spaced), __LINE__);
	deps_analysis_release(&an);
	/* A side that is not JSON: the manifest says nothing (rather than everything added). */
	analyze_texts(&an, "package.json", "{\"dependencies\": {\"a\": \"1.0.0\"", "{\"dependencies\": {}}");
	check_packages(&an, ECO_NPM, "package.json", NULL, 0, __LINE__);
	assert_int_equal(an.manifests, 1);
	deps_analysis_release(&an);
	analyze_texts(&an, "package.json", "[1, 2]", "{\"dependencies\": {\"a\": \"1\"}}");
	check_packages(&an, ECO_NPM, "package.json", NULL, 0, __LINE__);
	deps_analysis_release(&an);
}

static const struct want go_want[] = {
	{ "github.com/docker/docker", "v20.10.24+incompatible", "v24.0.5+incompatible", BUMP_MAJOR, "20.10.24",
	  "24.0.5", false },
	{ "github.com/gin-gonic/gin", "v1.9.0", "v1.9.1", BUMP_PATCH, "1.9.0", "1.9.1", false },
	{ "github.com/go-redis/redis/v8", "v8.11.5", NULL, BUMP_REMOVED, "8.11.5", NULL, false },
	{ "github.com/google/uuid", "v1.3.0", "v1.4.0", BUMP_MINOR, "1.3.0", "1.4.0", false },
	{ "github.com/new/thing", NULL, "v0.1.0", BUMP_ADDED, NULL, "0.1.0", false },
	{ "github.com/old/gone", "v1.0.0", NULL, BUMP_REMOVED, "1.0.0", NULL, false },
	{ "github.com/redis/go-redis/v9", NULL, "v9.0.5", BUMP_ADDED, NULL, "9.0.5", false },
	{ "github.com/stretchr/testify", "v1.8.2", "v1.8.4", BUMP_PATCH, "1.8.2", "1.8.4", false },
	/* a major's new module path is the same module */
	{ "github.com/x/lib/v2", "v1.5.0", "v2.0.0", BUMP_MAJOR, "1.5.0", "2.0.0", false },
	{ "golang.org/x/exp", "v0.0.0-20230101120000-abcdef123456", "v0.0.0-20230801120000-fedcba654321", BUMP_PATCH,
	  "0.0.0-20230101120000-abcdef123456", "0.0.0-20230801120000-fedcba654321", false },
	{ "golang.org/x/net", "v0.7.0", "v0.17.0", BUMP_MAJOR, "0.7.0", "0.17.0", false },
	{ "gopkg.in/yaml.v3", "v2.4.0", "v3.0.1", BUMP_MAJOR, "2.4.0", "3.0.1", false },
};

static void test_go(void **state)
{
	(void)state;
	check_fixture("go", "go.mod", "go.mod", ECO_GO, go_want, COUNT(go_want), __LINE__);
}

static void test_go_edges(void **state)
{
	static const struct want want[] = {
		{ "example.com/quoted", "v1.0.0", "v1.1.0", BUMP_MINOR, "1.0.0", "1.1.0", false },
		{ "example.com/single", "v1.0.0", "v1.0.1", BUMP_PATCH, "1.0.0", "1.0.1", false },
	};
	struct deps_analysis an;

	(void)state;
	/* Quoted paths, require( without a space, CRLF, blocks of other directives, comments everywhere. */
	analyze_texts(&an, "go.mod",
		      "module m\r\nrequire(\r\n\t\"example.com/quoted\" v1.0.0 // indirect\r\n)\r\n"
		      "require example.com/single v1.0.0\r\nretract (\r\n\tv1.0.0\r\n)\r\n"
		      "// require example.com/comment v1.0.0\r\nreplace example.com/single v1.0.0 => ./single\r\n",
		      "module m\r\nrequire(\r\n\t\"example.com/quoted\" v1.1.0\r\n)\r\n"
		      "require example.com/single v1.0.1\r\nretract (\r\n\tv1.0.1\r\n)\r\n"
		      "// require example.com/comment v2.0.0\r\nreplace example.com/single v1.0.1 => ./single\r\n");
	check_packages(&an, ECO_GO, "go.mod", want, COUNT(want), __LINE__);
	deps_analysis_release(&an);
}

static const struct want cargo_want[] = {
	{ "cc", "1.0.79", "1.0.83", BUMP_PATCH, "1.0.79", "1.0.83", false },
	{ "clap", "4.2.0", "4.4.0", BUMP_MINOR, "4.2.0", "4.4.0", false },
	{ "criterion", "0.4", "0.5", BUMP_MAJOR, "0.4.0", "0.5.0", false },
	{ "forked", "git = https://github.com/ana/forked, tag = v0.1.0", "git = https://github.com/ana/forked, tag = v0.2.0",
	  BUMP_UNKNOWN, NULL, NULL, false },
	{ "log", "~0.4.17", "~0.4.20", BUMP_PATCH, "0.4.17", "0.4.20", false },
	{ "mylib", "path = ../mylib", "path = ../mylib2", BUMP_UNKNOWN, NULL, NULL, false },
	{ "nix", "0.26.2", "0.27.1", BUMP_MAJOR, "0.26.2", "0.27.1", false },
	{ "quoted-name", "2.0.0", "2.1.0", BUMP_MINOR, "2.0.0", "2.1.0", false },
	{ "rand", "0.8.5", "0.9.0-alpha.1", BUMP_MAJOR, "0.8.5", "0.9.0-alpha.1", false },
	{ "regex", "=1.8.1", "=1.9.0", BUMP_MINOR, "1.8.1", "1.9.0", false },
	{ "renamed", "0.2", "0.3", BUMP_MAJOR, "0.2.0", "0.3.0", false },
	{ "reqwest", "0.11.17", "0.11.20", BUMP_PATCH, "0.11.17", "0.11.20", false },
	{ "serde", "1.0.160", "1.0.188", BUMP_PATCH, "1.0.160", "1.0.188", false },
	{ "tempfile", NULL, "3", BUMP_ADDED, NULL, "3.0.0", false },
	{ "thiserror", "1.0.40", "1.0.48", BUMP_PATCH, "1.0.40", "1.0.48", false },
	{ "tokio", "1.28", "1.32", BUMP_MINOR, "1.28.0", "1.32.0", false },
};

static void test_cargo(void **state)
{
	(void)state;
	check_fixture("cargo", "Cargo.toml", "crates/shop/Cargo.toml", ECO_CARGO, cargo_want, COUNT(cargo_want),
		      __LINE__);
}

static void test_cargo_edges(void **state)
{
	static const struct want want[] = {
		{ "libc", "0.2.140", "0.2.147", BUMP_PATCH, "0.2.140", "0.2.147", false },
		{ "local", "path = \"../local\"", "1.0", BUMP_UNKNOWN, NULL, "1.0.0", false },
		{ "shared", "workspace = true", "2.0", BUMP_UNKNOWN, NULL, "2.0.0", false },
		{ "winapi", "0.3.8", "0.3.9", BUMP_PATCH, "0.3.8", "0.3.9", false },
	};
	struct deps_analysis an;

	(void)state;
	/*
	 * [target."cfg(...)".dependencies.NAME] tables, dev_dependencies, a literal
	 * path string, workspace = true, [[bin]] arrays of tables, [patch] ignored.
	 */
	analyze_texts(&an, "Cargo.toml",
		      "[[bin]]\nname = \"x\"\n[target.\"cfg(windows)\".dependencies.winapi]\nversion = \"0.3.8\"\n"
		      "[dev_dependencies]\nlocal = { path = '\"../local\"' }\nshared = { workspace = true }\n"
		      "[target.'cfg(target_os = \"linux\")'.dependencies]\nlibc = \"0.2.140\"\n"
		      "[patch.crates-io]\nlibc = { git = \"https://github.com/rust-lang/libc\" }\n",
		      "[[bin]]\nname = \"y\"\n[target.\"cfg(windows)\".dependencies.winapi]\nversion = \"0.3.9\"\n"
		      "[dev_dependencies]\nlocal = \"1.0\"\nshared = \"2.0\"\n"
		      "[target.'cfg(target_os = \"linux\")'.dependencies]\nlibc = \"0.2.147\"\n"
		      "[patch.crates-io]\nlibc = { git = \"https://github.com/me/libc\" }\n");
	check_packages(&an, ECO_CARGO, "Cargo.toml", want, COUNT(want), __LINE__);
	deps_analysis_release(&an);

	/* A side that is not TOML (a key without a value) is named with tomlc17's line and reason. */
	analyze_texts(&an, "Cargo.toml", "[dependencies]\nserde = \"1.0.1\"\n",
		      "[dependencies]\nserde = \"1.0.2\"\nbroken =\nx = \"2\"\n");
	assert_int_equal(an.npackages, 0);
	assert_int_equal(an.nproblems, 1);
	if (!strstr(an.problems[0], "Cargo.toml (new side): not valid TOML, line 3: "))
		fail_msg("problem: %s", an.problems[0]);
	deps_analysis_release(&an);
}

static const struct want requirements_want[] = {
	{ "black", "==23.1.0", "==23.7.0", BUMP_MINOR, "23.1.0", "23.7.0", false },
	{ "celery", "~=5.2.7", "~=5.3.1", BUMP_MINOR, "5.2.7", "5.3.1", false },
	{ "Django", "==4.1.7", "==4.2.4", BUMP_MINOR, "4.1.7", "4.2.4", false },
	/* PEP 503: Flask_SQLAlchemy is flask-sqlalchemy; the new side's spelling is shown */
	{ "flask-sqlalchemy", "==3.0.3", "==3.1.1", BUMP_MINOR, "3.0.3", "3.1.1", false },
	{ "httpx", NULL, ">=0.24", BUMP_ADDED, NULL, "0.24", false },
	{ "mylib", "@ https://example.com/mylib-1.0.tar.gz", "@ https://example.com/mylib-1.1.tar.gz", BUMP_UNKNOWN,
	  NULL, NULL, false },
	{ "numpy", "==1.24.2", "==1.26.0", BUMP_MINOR, "1.24.2", "1.26.0", false },
	{ "pre-pkg", "==1.0.0rc1", "==1.0.0", BUMP_PATCH, "1.0.0rc1", "1.0.0", false },
	{ "requests", ">=2.28,<3", ">=2.31.0,<3", BUMP_MINOR, "2.28", "2.31.0", false },
	{ "ruby-style", "==0.9", "==1.0", BUMP_MAJOR, "0.9", "1.0", false },
	{ "six", "==1.16.0", NULL, BUMP_REMOVED, "1.16.0", NULL, false },
	{ "urllib3", "==1.26.15", "==2.0.4", BUMP_MAJOR, "1.26.15", "2.0.4", false },
};

static void test_requirements(void **state)
{
	(void)state;
	check_fixture("requirements", "requirements.txt", "api/requirements.txt", ECO_PIP, requirements_want,
		      COUNT(requirements_want), __LINE__);
	/* Any requirements*.txt, and any .txt under requirements/, is read the same way. */
	check_fixture("requirements", "requirements.txt", "requirements/prod.txt", ECO_PIP, requirements_want,
		      COUNT(requirements_want), __LINE__);
	check_fixture("requirements", "requirements.txt", "requirements-dev.txt", ECO_PIP, requirements_want,
		      COUNT(requirements_want), __LINE__);
}

static void test_requirements_edges(void **state)
{
	static const struct want want[] = {
		{ "a", "==1.0", "==2.0", BUMP_MAJOR, "1.0", "2.0", false },
		/* legacy parentheses are taken off */
		{ "b", ">=1.0", ">=1.1", BUMP_MINOR, "1.0", "1.1", false },
		{ "c", "==1.0", "==1.0.1", BUMP_PATCH, "1.0", "1.0.1", false },
		{ "d", ">=1.0,!=1.5", ">=1.0,!=1.6", BUMP_PATCH, "1.0", "1.0", false },
		{ "e", "==1.0.post1", "==1.0", BUMP_PATCH, "1.0.post1", "1.0", true },
	};
	struct deps_analysis an;

	(void)state;
	/* Continuations, legacy parentheses, tabs, CRLF, the first of two marker lines, options with values. */
	analyze_texts(&an, "requirements.txt",
		      "a==1.0\r\nb (>=1.0)\r\nc\\\n==1.0\nd>=1.0,!=1.5\n\te==1.0.post1\n--hash sha256:x\n"
		      "a==9.0 ; python_version < '3'\n#a==0.1\n-c constraints.txt\n",
		      "a==2.0\r\nb (>=1.1)\r\nc\\\n==1.0.1\nd>=1.0,!=1.6\n\te==1.0\n--hash sha256:y\n"
		      "a==9.0 ; python_version < '3'\n#a==0.2\n-c constraints.txt\n");
	check_packages(&an, ECO_PIP, "requirements.txt", want, COUNT(want), __LINE__);
	deps_analysis_release(&an);
}

static const struct want pyproject_want[] = {
	/* no version before: the change cannot be measured */
	{ "attrs", NULL, ">=23.1", BUMP_UNKNOWN, NULL, "23.1", false },
	{ "mypy", "==1.3.0", "==1.5.1", BUMP_MINOR, "1.3.0", "1.5.1", false },
	{ "pydantic", ">=1.10,<2", ">=2.0,<3", BUMP_MAJOR, "1.10", "2.0", false },
	{ "pytest", ">=7.0", ">=7.4", BUMP_MINOR, "7.0", "7.4", false },
	{ "requests", ">=2.0", ">=2.31", BUMP_MINOR, "2.0", "2.31", false },
	{ "ruff", "==0.0.270", "==0.1.0", BUMP_MAJOR, "0.0.270", "0.1.0", false },
};

static const struct want poetry_want[] = {
	{ "black", "^23.1", "^23.7", BUMP_MINOR, "23.1", "23.7", false },
	{ "django", "^4.1", "^5.0", BUMP_MAJOR, "4.1", "5.0", false },
	{ "mylib", "git = https://github.com/ana/mylib.git, branch = main",
	  "git = https://github.com/ana/mylib.git, branch = develop", BUMP_UNKNOWN, NULL, NULL, false },
	{ "numpy", ">=1.21,<1.25", ">=1.22,<1.26", BUMP_MINOR, "1.21", "1.22", false },
	{ "pytest", "^7.2", "^7.4", BUMP_MINOR, "7.2", "7.4", false },
	{ "requests", "^2.28", "^2.31", BUMP_MINOR, "2.28", "2.31", false },
	{ "star", "*", "^2.0", BUMP_UNKNOWN, NULL, "2.0", false },
};

static void test_pyproject(void **state)
{
	(void)state;
	check_fixture("pyproject", "pyproject.toml", "pyproject.toml", ECO_PIP, pyproject_want,
		      COUNT(pyproject_want), __LINE__);
	check_fixture("poetry", "pyproject.toml", "svc/pyproject.toml", ECO_PIP, poetry_want, COUNT(poetry_want),
		      __LINE__);
}

static void test_pyproject_edges(void **state)
{
	static const struct want want[] = {
		{ "extra-tool", "==1.0", "==1.1", BUMP_MINOR, "1.0", "1.1", false },
		{ "rich", "==13.0", "==13.4", BUMP_MINOR, "13.0", "13.4", false },
		{ "toml-pkg", "==2.0", "==3.0", BUMP_MAJOR, "2.0", "3.0", false },
	};
	struct deps_analysis an;

	(void)state;
	/*
	 * Dotted keys under [project], literal and multi-line strings holding
	 * brackets and quotes, comments between items, a trailing comma,
	 * tables in dependency-groups, Poetry's table form.
	 */
	analyze_texts(&an, "pyproject.toml",
		      "[project]\ndescription = '''has ] and \" and\n[project.optional-dependencies]'''\n"
		      "optional-dependencies.cli = [\n  # a comment, \"x==9\"\n  'rich==13.0',\n]\n"
		      "[dependency-groups]\ndev = [{include-group = \"cli\"}, \"extra_tool==1.0\"]\n"
		      "[tool.poetry.dependencies.toml-pkg]\nversion = \"==2.0\"\n",
		      "[project]\ndescription = '''has ] and \" and\n[project.optional-dependencies]'''\n"
		      "optional-dependencies.cli = [\n  # a comment, \"x==9\"\n  'rich==13.4',\n]\n"
		      "[dependency-groups]\ndev = [{include-group = \"cli\"}, \"extra-tool==1.1\"]\n"
		      "[tool.poetry.dependencies.toml-pkg]\nversion = \"==3.0\"\n");
	check_packages(&an, ECO_PIP, "pyproject.toml", want, COUNT(want), __LINE__);
	deps_analysis_release(&an);
}

static const struct want gems_want[] = {
	{ "bootsnap", NULL, ">= 1.4.4", BUMP_UNKNOWN, NULL, "1.4.4", false },
	{ "devise", "github: heartcombo/devise, branch: main", "github: heartcombo/devise, branch: v4.9", BUMP_UNKNOWN,
	  NULL, NULL, false },
	{ "nokogiri", "1.14.3", "1.15.4", BUMP_MINOR, "1.14.3", "1.15.4", false },
	{ "puma", ">= 5.0, < 7", ">= 6.0, < 7", BUMP_MAJOR, "5.0", "6.0", false },
	{ "rails", "~> 7.0.4", "~> 7.1.0", BUMP_MINOR, "7.0.4", "7.1.0", false },
	{ "redis", "4.8.1", "5.0.7", BUMP_MAJOR, "4.8.1", "5.0.7", false },
	{ "rspec-rails", "~> 6.0.0", "~> 6.1.0", BUMP_MINOR, "6.0.0", "6.1.0", false },
	{ "rubocop", NULL, NULL, BUMP_ADDED, NULL, NULL, false },
	{ "sass-rails", ">= 6", NULL, BUMP_REMOVED, "6", NULL, false },
	{ "sidekiq", "7.1.0.beta1", "7.1.0", BUMP_PATCH, "7.1.0.beta1", "7.1.0", false },
};

static void test_gemfile(void **state)
{
	(void)state;
	check_fixture("gems", "Gemfile", "Gemfile", ECO_RUBYGEMS, gems_want, COUNT(gems_want), __LINE__);
}

/*
 * Issue 14, items 15 and 16, from real Gemfiles: Rails' security release
 * 6.1.4.1 -> 6.1.4.2 (rails/rails 72af19ac584) and back; Rails' own sqlite3
 * line (rails/rails 64169655c72: "< 1.6.4" -> "~> 1.6", ">= 1.6.6"), whose
 * largest lower bound is 1.6.6; requirements as an array, as a public
 * Gemfile writes simplecov's ([">= 0.18.0", "< 0.22.0"]), and exclusions
 * alone, which name no version but are still a change. Gems' versions are
 * as written, and gems.rb reads as a Gemfile.
 */
static void test_gemfile_requirements(void **state)
{
	static const struct want want[] = {
		{ "rack", "!= 1.0.3, != 1.0.4", "!= 1.0.3", BUMP_UNKNOWN, NULL, NULL, false },
		{ "rails", "6.1.4.1", "6.1.4.2", BUMP_PATCH, "6.1.4.1", "6.1.4.2", false },
		{ "simplecov", ">= 0.18.0, < 0.22.0", ">= 0.18.5, < 0.23", BUMP_PATCH, "0.18.0", "0.18.5", false },
		{ "sqlite3", "< 1.6.4", "~> 1.6, >= 1.6.6", BUMP_UNKNOWN, NULL, "1.6.6", false },
	};
	static const struct want back[] = {
		{ "rails", "6.1.4.2", "6.1.4.1", BUMP_PATCH, "6.1.4.2", "6.1.4.1", true },
	};
	struct deps_analysis an;

	(void)state;
	analyze_texts(&an, "Gemfile",
		      "gem \"rails\", \"6.1.4.1\"\ngem \"sqlite3\", \"< 1.6.4\"\n"
		      "gem \"simplecov\", [\">= 0.18.0\", \"< 0.22.0\"]\ngem 'rack', ['!= 1.0.3', '!= 1.0.4'], require: false\n",
		      "gem \"rails\", \"6.1.4.2\"\ngem \"sqlite3\", \"~> 1.6\", \">= 1.6.6\"\n"
		      "gem \"simplecov\", [\">= 0.18.5\", \"< 0.23\"]\ngem 'rack', ['!= 1.0.3'], require: false\n");
	check_packages(&an, ECO_RUBYGEMS, "Gemfile", want, COUNT(want), __LINE__);
	deps_analysis_release(&an);
	analyze_texts(&an, "gems.rb", "gem \"rails\", \"6.1.4.2\"\n", "gem \"rails\", \"6.1.4.1\"\n");
	check_packages(&an, ECO_RUBYGEMS, "gems.rb", back, COUNT(back), __LINE__);
	deps_analysis_release(&an);
}

/* Two manifests: each one's packages together, in the order of the files, then by name. */
static void test_manifest_order(void **state)
{
	struct deps_file files[] = {
		{ .path = "b/package.json", .old_text = "{\"dependencies\":{\"z\":\"1.0.0\",\"a\":\"1.0.0\"}}",
		  .new_text = "{\"dependencies\":{\"z\":\"1.0.1\",\"a\":\"2.0.0\"}}" },
		{ .path = "src/index.js" },
		{ .path = "a/package.json", .old_text = "{\"dependencies\":{\"m\":\"1.0.0\"}}",
		  .new_text = "{\"dependencies\":{\"m\":\"1.1.0\"}}" },
	};
	struct deps_analysis an;
	size_t i;

	(void)state;
	for (i = 0; i < COUNT(files); i++) {
		files[i].old_len = files[i].old_text ? strlen(files[i].old_text) : 0;
		files[i].new_len = files[i].new_text ? strlen(files[i].new_text) : 0;
	}
	analyze(&an, files, COUNT(files), NULL, NULL);
	assert_int_equal(an.npackages, 3);
	assert_string_equal(an.packages[0].name, "a");
	assert_string_equal(an.packages[0].manifest, "b/package.json");
	assert_string_equal(an.packages[1].name, "z");
	assert_string_equal(an.packages[2].name, "m");
	assert_string_equal(an.packages[2].manifest, "a/package.json");
	assert_int_equal(an.manifests, 2);
	assert_int_equal(an.locks, 0);
	assert_int_equal(an.files, 3);
	assert_false(an.dependency_only);
	assert_int_equal(an.ecosystems, 1u << ECO_NPM);
	assert_null(an.bot);
	deps_analysis_release(&an);
}

/* ------------------------------------------------------------------------
 * Bots, lock-only bumps, breaking changes, dependency-only changes
 */

static const struct {
	const char *branch, *messages, *bot;
} bot_rows[] = {
	{ "dependabot/npm_and_yarn/lodash-4.17.21", NULL, "dependabot" },
	{ "refs/heads/dependabot/go_modules/golang.org/x/net-0.17.0", "", "dependabot" },
	{ "renovate/lodash-4.x", NULL, "renovate" },
	{ "refs/heads/renovate/major-react-monorepo", NULL, "renovate" },
	{ "feature/dependabot-things", NULL, NULL },
	{ "renovate", NULL, NULL },
	{ "main", "Fix the login page", NULL },
	{ NULL, "Bump lodash from 4.17.20 to 4.17.21", "dependabot" },
	{ NULL, "Bump lodash from 4.17.20 to 4.17.21 in /web", "dependabot" },
	{ NULL, "build(deps-dev): bump eslint from 8.40.0 to 8.41.0", "dependabot" },
	{ NULL, "chore(deps): Bump the npm_and_yarn group across 1 directory with 2 updates", "dependabot" },
	{ NULL, "Fix the build\n\nBumps [lodash](https://github.com/lodash/lodash) from 4.17.20 to 4.17.21.",
	  "dependabot" },
	{ NULL, "Update dependency express to v5", "renovate" },
	{ NULL, "chore(deps): update dependency express to v5.0.0", "renovate" },
	{ NULL, "fix(deps): update module github.com/gin-gonic/gin to v1.9.1", "renovate" },
	{ NULL, "Update rust crate serde to v1.0.188", "renovate" },
	{ NULL, "Update babel monorepo to v7.22.5", "renovate" },
	{ NULL, "chore(deps): update all non-major dependencies", "renovate" },
	{ NULL, "Lock file maintenance", "renovate" },
	{ NULL, "Update README", NULL },
	{ NULL, "Update dependency docs", NULL },
	{ NULL, "Bump version to 2.0", NULL },
	{ NULL, "bump lodash", NULL },
	{ NULL, "Update the monorepo tooling", NULL },
	{ "renovate/lodash", "Bump lodash from 1.0.0 to 2.0.0", "renovate" },
	{ "main", "Refactor the parser\n\nUpdate dependency express to v5\n", "renovate" },
	/*
	 * Issue 14 item 19: Renovate's defaults (lib/config/options: "{{action}}
	 * {{topic}} {{extra}}", the topics of its managers and datasources), as
	 * renovatebot/renovate's own history has them, and Dependabot's titles
	 * (dependabot-core's MessageBuilder, PrNamePrefixer and their spec).
	 */
	{ NULL, "chore(deps): update dependency @smithy/util-stream to v4.8.1 (main) (#45338)", "renovate" },
	{ NULL, "fix(deps): update ghcr.io/renovatebot/base-image docker tag to v13.86.6 (main) (#45293)", "renovate" },
	{ NULL, "chore(deps): update python:3.13 docker digest to 9255d19 (#33054)", "renovate" },
	{ NULL, "chore(deps): update codecov/codecov-action action to v1.5.2 (#10421)", "renovate" },
	{ NULL, "chore(deps): update node.js to d7bd3e3 (#21398)", "renovate" },
	{ NULL, "build(deps): update opentelemetry-js monorepo (#28513)", "renovate" },
	{ NULL, "chore(deps): update linters to v8 (major)", "renovate" },
	{ NULL, "Update actions/checkout digest to b4ffde6", "renovate" },
	{ NULL, "Update actions/checkout action to v4", "renovate" },
	{ NULL, "Update postgres docker tag to v16", "renovate" },
	{ NULL, "Update all non-major dependencies", "renovate" },
	{ NULL, "Update module golang.org/x/net to v0.23.0 [SECURITY]", "renovate" },
	{ NULL, "Update rust crate serde to 1.0", "renovate" },
	{ NULL, "chore(deps) Update Rust crate tokio to v1.35.0", "renovate" },
	{ NULL, "Update dependency np to version 2.16.0 (#1214)", "renovate" },
	{ NULL, "fix(deps): roll back dependency got to v9.3.0", "renovate" },
	{ NULL, "Replace dependency node-sass with sass v1", "renovate" },
	{ NULL, "Pin dependencies", "renovate" },
	{ NULL, "docker-compose(deps): Bump postgres from 15.4 to 16.0", "dependabot" },
	{ NULL, "[Security] Bump nokogiri from 1.14.3 to 1.15.4", "dependabot" },
	{ NULL, "\xe2\xac\x86\xef\xb8\x8f\xf0\x9f\x94\x92 Bump business from 1.4.0 to 1.5.0", "dependabot" },
	{ NULL, "Upgrade: Bump business from 1.4.0 to 1.5.0", "dependabot" },
	{ NULL, "Bump business, business2 and business3", "dependabot" },
	{ NULL, "Bump business in /frontend", "dependabot" },
	{ NULL, "Bump business across 2 directories", "dependabot" },
	{ NULL, "Update business requirement from ~> 1.4.0 to ~> 1.5.0", "dependabot" },
	{ NULL, "Update requirements for business and business2", "dependabot" },
	{ NULL, "Bump rails from 7.0.4 to 7.0.5 in /app in the bundler group", "dependabot" },
	/* what people write (rails/rails' history): no bot */
	{ NULL, "Update bundler to 4.0.12", NULL },
	{ NULL, "Update changelog links to 7-1-stable", NULL },
	{ NULL, "Update remaining migration version 7.2 to 8.0 [ci-skip]", NULL },
	{ NULL, "Update the `.node-version` file conditionally generated for new applications to 22.21.1", NULL },
	{ NULL, "Bump rubocop from 1.43.0 to 1.44.1 and fix offenses", NULL },
	{ NULL, "Replace dependency tracker with ripper based tracker", NULL },
	{ NULL, "Update to Rails 7.1", NULL },
	{ NULL, "Update linters", NULL },
};

static void test_bots(void **state)
{
	struct deps_analysis an;
	size_t i;

	(void)state;
	for (i = 0; i < COUNT(bot_rows); i++) {
		analyze(&an, NULL, 0, bot_rows[i].branch, bot_rows[i].messages);
		check_str(an.bot, bot_rows[i].bot, "bot", bot_rows[i].messages ? bot_rows[i].messages : bot_rows[i].branch,
			  (int)i);
		assert_int_equal(an.npackages, 0);
		assert_false(an.dependency_only);
		deps_analysis_release(&an);
	}
}

struct lock_row {
	const char *paths[4];
	const char *messages;
	const char *name, *manifest, *from, *to;
	enum deps_ecosystem eco;
	enum deps_bump bump;
};

static const struct lock_row lock_rows[] = {
	/* the lock file alone changed: the subject gives the transition */
	{ { "package-lock.json" }, "Bump lodash from 4.17.20 to 4.17.21", "lodash", "package-lock.json", "4.17.20",
	  "4.17.21", ECO_NPM, BUMP_PATCH },
	{ { "go.sum", "web/yarn.lock" }, "Bump express from 4.18.2 to 5.0.0 in /web", "express", "web/yarn.lock",
	  "4.18.2", "5.0.0", ECO_NPM, BUMP_MAJOR },
	{ { "go.sum", "web/yarn.lock" }, "Bump golang.org/x/net from 0.7.0 to 0.17.0", "golang.org/x/net", "go.sum",
	  "0.7.0", "0.17.0", ECO_GO, BUMP_MAJOR },
	{ { "Cargo.lock" }, "build(deps): bump serde from 1.0.160 to 1.0.188", "serde", "Cargo.lock", "1.0.160",
	  "1.0.188", ECO_CARGO, BUMP_PATCH },
	{ { "app/Gemfile.lock" }, "Bump nokogiri from 1.14.3 to 1.15.4 in /app/", "nokogiri", "app/Gemfile.lock",
	  "1.14.3", "1.15.4", ECO_RUBYGEMS, BUMP_MINOR },
	/*
	 * Issue 14 item 18: the current lock files, each alone. uv.lock was not
	 * known, so the bump Dependabot's uv ecosystem (GA in March 2025) makes
	 * was lost where the same one with poetry.lock was read.
	 */
	{ { "uv.lock" }, "Bump jinja2 from 3.1.4 to 3.1.5", "jinja2", "uv.lock", "3.1.4", "3.1.5", ECO_PIP, BUMP_PATCH },
	{ { "svc/pdm.lock" }, "Bump jinja2 from 3.1.4 to 3.1.5 in /svc", "jinja2", "svc/pdm.lock", "3.1.4", "3.1.5",
	  ECO_PIP, BUMP_PATCH },
	{ { "Pipfile.lock" }, "Bump django from 4.2.16 to 4.2.17", "django", "Pipfile.lock", "4.2.16", "4.2.17", ECO_PIP,
	  BUMP_PATCH },
	{ { "bun.lock" }, "Bump vite from 5.4.10 to 6.0.0", "vite", "bun.lock", "5.4.10", "6.0.0", ECO_NPM, BUMP_MAJOR },
	{ { "bun.lockb" }, "Bump vite from 5.4.10 to 5.4.12", "vite", "bun.lockb", "5.4.10", "5.4.12", ECO_NPM,
	  BUMP_PATCH },
	{ { "pnpm-lock.yaml" }, "Bump vite from 5.4.10 to 5.4.12", "vite", "pnpm-lock.yaml", "5.4.10", "5.4.12", ECO_NPM,
	  BUMP_PATCH },
	{ { "go.work.sum" }, "Bump golang.org/x/crypto from 0.30.0 to 0.31.0", "golang.org/x/crypto", "go.work.sum",
	  "0.30.0", "0.31.0", ECO_GO, BUMP_MAJOR },
	{ { "gems.locked" }, "Bump rails from 6.1.4.1 to 6.1.4.2", "rails", "gems.locked", "6.1.4.1", "6.1.4.2",
	  ECO_RUBYGEMS, BUMP_PATCH },
	/* a body's sentence goes on after the version (dependabot-core's MessageBuilder) */
	{ { "package-lock.json" },
	  "Bump the npm group\n\nBumps [express](https://github.com/expressjs/express) from 4.18.2 to 4.19.2. "
	  "**This update includes a security fix.**\n",
	  "express", "package-lock.json", "4.18.2", "4.19.2", ECO_NPM, BUMP_MINOR },
	/* no lock file in /web: all of them, when they agree */
	{ { "poetry.lock" }, "Bump urllib3 from 1.26.15 to 2.0.4 in /web", "urllib3", "poetry.lock", "1.26.15", "2.0.4",
	  ECO_PIP, BUMP_MAJOR },
	/* the body's lines, grouped updates */
	{ { "package-lock.json" },
	  "Bump the npm group with 1 update\n\nBumps [@babel/core](https://github.com/babel/babel) from 7.22.1 to "
	  "7.22.5.\n- [Release notes](https://github.com/babel/babel/releases)",
	  "@babel/core", "package-lock.json", "7.22.1", "7.22.5", ECO_NPM, BUMP_PATCH },
	{ { "package-lock.json" }, "Bump the npm group\n\nUpdates `semver` from 5.7.1 to 5.7.2\n", "semver",
	  "package-lock.json", "5.7.1", "5.7.2", ECO_NPM, BUMP_PATCH },
	/* no lock file at all: the manifest tells the ecosystem */
	{ { "requirements.txt" }, "Bump certifi from 2022.12.7 to 2023.7.22", "certifi", "requirements.txt",
	  "2022.12.7", "2023.7.22", ECO_PIP, BUMP_MAJOR },
	/* nothing tells the ecosystem (a workflow), or the lock files disagree: a claim all the same */
	{ { ".github/workflows/ci.yml" }, "Bump actions/checkout from 3 to 4", NULL, NULL, NULL, NULL, ECO_COUNT,
	  BUMP_UNKNOWN },
	{ { "package-lock.json", "Cargo.lock" }, "Bump lodash from 4.17.20 to 4.17.21", NULL, NULL, NULL, NULL,
	  ECO_COUNT, BUMP_UNKNOWN },
	{ { NULL }, "Bump lodash from 4.17.20 to 4.17.21", NULL, NULL, NULL, NULL, ECO_COUNT, BUMP_UNKNOWN },
};

static void test_lock_only_bumps(void **state)
{
	struct deps_file files[4];
	struct deps_analysis an;
	size_t i, n;

	(void)state;
	for (i = 0; i < COUNT(lock_rows); i++) {
		memset(files, 0, sizeof(files));
		for (n = 0; n < 4 && lock_rows[i].paths[n]; n++)
			files[n].path = lock_rows[i].paths[n];
		analyze(&an, files, n, NULL, lock_rows[i].messages);
		check_str(an.bot, "dependabot", "bot", lock_rows[i].messages, (int)i);
		/* No lock file text to hold it against: the message's bump is a claim, never a package. */
		if (an.npackages)
			fail_msg("row %zu: %s found", i, an.packages[0].name);
		if (!lock_rows[i].name) {
			assert_int_equal(an.nclaims, 1);
		} else {
			char said[256];

			snprintf(said, sizeof(said), "the commit message says %s %s -> %s; no manifest or lock file of "
				 "the change moves %s", lock_rows[i].name, lock_rows[i].from, lock_rows[i].to,
				 lock_rows[i].name);
			assert_int_equal(an.nclaims, 1);
			assert_string_equal(an.claims[0], said);
		}
		assert_true(an.dependency_only || !n || !strcmp(files[0].path, ".github/workflows/ci.yml"));
		deps_analysis_release(&an);
	}
	/* a requirement, as Dependabot's library updates write it (MessageBuilder#library_pr_name) */
	{
		struct deps_file lock = { .path = "Gemfile.lock" };

		analyze(&an, &lock, 1, NULL, "Update rubocop requirement from ~> 1.50 to ~> 1.56");
		check_str(an.bot, "dependabot", "bot", "requirement", __LINE__);
		assert_int_equal(an.npackages, 0);
		assert_int_equal(an.nclaims, 1);
		assert_string_equal(an.claims[0], "the commit message says rubocop ~> 1.50 -> ~> 1.56; no manifest or "
				    "lock file of the change moves rubocop");
		deps_analysis_release(&an);
	}
}

/* A subject for a package the manifest shows adds nothing: the manifest's transition stands; werkzeug, which no file shows, is a claim. */
static void test_lock_only_not_twice(void **state)
{
	const char *old = "Flask==2.0.0\n", *new = "Flask==2.3.2\n";
	struct deps_file files[] = {
		{ .path = "requirements.txt", .old_text = old, .old_len = strlen(old), .new_text = new, .new_len = strlen(new) },
		{ .path = "Pipfile.lock", .old_text = NULL, .old_len = 0, .new_text = NULL, .new_len = 0 },
	};
	static const struct want want[] = {
		{ "Flask", "==2.0.0", "==2.3.2", BUMP_MINOR, "2.0.0", "2.3.2", false },
	};
	struct deps_analysis an, view;

	(void)state;
	analyze(&an, files, COUNT(files), "dependabot/pip/flask-2.3.2",
		"Bump flask from 2.0.0 to 2.3.2\n\nBumps [flask](https://github.com/pallets/flask) from 2.0.0 to 2.3.2."
		"\n\nUpdates `werkzeug` from 2.0.0 to 2.3.6\nUpdates `werkzeug` from 2.0.0 to 2.3.6");
	assert_int_equal(an.npackages, 1);
	view = an;
	check_packages(&view, ECO_PIP, "requirements.txt", want, 1, __LINE__);
	assert_null(an.packages[0].claimed);
	assert_int_equal(an.nclaims, 1);
	assert_string_equal(an.claims[0], "the commit message says werkzeug 2.0.0 -> 2.3.6; no manifest or lock file "
			    "of the change moves werkzeug");
	assert_int_equal(an.manifests, 1);
	assert_int_equal(an.locks, 1);
	assert_int_equal(an.ecosystems, 1u << ECO_PIP);
	assert_true(an.dependency_only);
	deps_analysis_release(&an);
}

static const struct {
	const char *messages;
	bool lodash, lodash_es;
} breaking_rows[] = {
	{ NULL, false, false },
	{ "Bump lodash from 4.17.20 to 4.17.21\n\nBREAKING: lodash drops Node 10.", true, false },
	{ "Bump lodash\n\nlodash: this is a Breaking Change for users of _.template", true, false },
	{ "Upgrade lodash and lodash-es\n\nBREAKING CHANGES\n- lodash-es: named exports only", false, true },
	/* BREAKING in another paragraph than the one that names the package */
	{ "Bump lodash from 4.17.20 to 4.17.21\n\nBREAKING: drops Node 10.", false, false },
	{ "Bump lodash\n   \t\nBREAKING: drops Node 10.", false, false },
	/* neither capitals nor "breaking change" */
	{ "lodash: Breaking news, nothing broke", false, false },
	{ "lodash: breaking\nchange across lines is not the phrase", false, false },
	/* names inside other names do not count */
	{ "BREAKING: @types/lodash and lodash.merge and my-lodash changed", false, false },
	{ "BREAKING: [lodash](https://github.com/lodash/lodash) changed", true, false },
	{ "Bumps [lodash-es](https://x) from 4.17.20 to 4.17.21.\n<h2>BREAKING CHANGES</h2>", false, true },
};

static void test_breaking(void **state)
{
	const char *old = "{\"dependencies\":{\"lodash\":\"4.17.20\",\"lodash-es\":\"4.17.20\",\"react\":\"17.0.0\"}}";
	const char *new = "{\"dependencies\":{\"lodash\":\"4.17.21\",\"lodash-es\":\"4.17.21\",\"react\":\"18.0.0\"}}";
	struct deps_file file = { .path = "package.json", .old_text = old, .old_len = strlen(old), .new_text = new, .new_len = strlen(new) };
	struct deps_analysis an;
	size_t i;

	(void)state;
	for (i = 0; i < COUNT(breaking_rows); i++) {
		analyze(&an, &file, 1, NULL, breaking_rows[i].messages);
		assert_int_equal(an.npackages, 3);
		assert_string_equal(an.packages[0].name, "lodash");
		if (an.packages[0].breaking != breaking_rows[i].lodash ||
		    an.packages[1].breaking != breaking_rows[i].lodash_es)
			fail_msg("row %zu: lodash %d, lodash-es %d", i, an.packages[0].breaking,
				 an.packages[1].breaking);
		/* a major bump is breaking whatever the messages say */
		assert_true(an.packages[2].breaking);
		deps_analysis_release(&an);
	}
}

static const struct {
	const char *paths[5];
	const char *branch;
	bool dependency_only;
	size_t manifests, locks;
} only_rows[] = {
	{ { "package.json", "package-lock.json" }, NULL, true, 1, 1 },
	{ { "go.mod", "go.sum", "Cargo.toml", "Cargo.lock" }, NULL, true, 2, 2 },
	{ { "yarn.lock" }, NULL, true, 0, 1 },
	{ { "package.json", "package-lock.json", "src/app.js" }, NULL, false, 1, 1 },
	/* a bot's change: more than half */
	{ { "package.json", "package-lock.json", "src/app.js" }, "dependabot/npm_and_yarn/x-1.0", true, 1, 1 },
	{ { "package.json", "src/a.js", "src/b.js" }, "renovate/x", false, 1, 0 },
	{ { "package.json", "src/a.js" }, "renovate/x", false, 1, 0 },
	{ { "src/a.js" }, NULL, false, 0, 0 },
	{ { NULL }, "renovate/x", false, 0, 0 },
};

static void test_dependency_only(void **state)
{
	struct deps_file files[5];
	struct deps_analysis an;
	size_t i, n;

	(void)state;
	for (i = 0; i < COUNT(only_rows); i++) {
		memset(files, 0, sizeof(files));
		for (n = 0; n < 5 && only_rows[i].paths[n]; n++)
			files[n].path = only_rows[i].paths[n];
		analyze(&an, files, n, only_rows[i].branch, NULL);
		if (an.dependency_only != only_rows[i].dependency_only)
			fail_msg("row %zu: dependency_only %d", i, an.dependency_only);
		assert_int_equal(an.manifests, only_rows[i].manifests);
		assert_int_equal(an.locks, only_rows[i].locks);
		assert_int_equal(an.files, n);
		deps_analysis_release(&an);
	}
}

/* ------------------------------------------------------------------------
 * Confidence and the prompt
 */

struct pkg_row {
	const char *name;
	enum deps_bump bump;
	const char *advisories[3][2];   /* id, severity */
};

/* An analysis made by hand, with advisories as the lookup would fill them. */
static void make_analysis(struct deps_analysis *an, const struct pkg_row *rows, size_t n)
{
	size_t i, k;

	memset(an, 0, sizeof(*an));
	an->packages = calloc(n ? n : 1, sizeof(*an->packages));
	assert_non_null(an->packages);
	an->npackages = n;
	for (i = 0; i < n; i++) {
		struct deps_package *p = &an->packages[i];

		p->ecosystem = ECO_NPM;
		p->name = strdup(rows[i].name);
		p->manifest = strdup("package.json");
		p->from = strdup("1.0.0");
		p->to = strdup("2.0.0");
		p->bump = rows[i].bump;
		p->breaking = rows[i].bump == BUMP_MAJOR;
		for (k = 0; k < 3 && rows[i].advisories[k][0]; k++)
			;
		p->nadvisories = k;
		p->advisories = calloc(k ? k : 1, sizeof(*p->advisories));
		for (k = 0; k < p->nadvisories; k++) {
			p->advisories[k].id = strdup(rows[i].advisories[k][0]);
			p->advisories[k].severity = strdup(rows[i].advisories[k][1]);
			p->advisories[k].summary = strdup("summary");
			p->advisories[k].fixed = k % 2 == 0;
		}
	}
}

static const struct {
	struct pkg_row rows[5];
	size_t n;
	enum deps_confidence confidence;
	const char *reason;
} confidence_rows[] = {
	{ { { 0 } }, 0, CONFIDENCE_HIGH, "no dependency changes" },
	{ { { "lodash", BUMP_PATCH, { { 0 } } } }, 1, CONFIDENCE_HIGH, "patch bump, no advisories" },
	{ { { "a", BUMP_PATCH, { { 0 } } }, { "b", BUMP_PATCH, { { 0 } } } }, 2, CONFIDENCE_HIGH,
	  "patch bumps, no advisories" },
	{ { { "a", BUMP_MINOR, { { 0 } } } }, 1, CONFIDENCE_HIGH, "minor bump, no advisories" },
	{ { { "a", BUMP_PATCH, { { 0 } } }, { "b", BUMP_MINOR, { { 0 } } } }, 2, CONFIDENCE_HIGH,
	  "patch and minor bumps, no advisories" },
	{ { { "a", BUMP_PATCH, { { 0 } } }, { "b", BUMP_ADDED, { { 0 } } } }, 2, CONFIDENCE_HIGH,
	  "no major bumps, no advisories" },
	{ { { "a", BUMP_UNKNOWN, { { 0 } } }, { "b", BUMP_REMOVED, { { 0 } } }, { "c", BUMP_UNKNOWN, { { 0 } } } }, 3,
	  CONFIDENCE_HIGH, "no major bumps, no advisories; versions of a and c not comparable" },
	{ { { "express", BUMP_MAJOR, { { 0 } } }, { "lodash", BUMP_PATCH, { { 0 } } } }, 2, CONFIDENCE_MEDIUM,
	  "major version bump in express" },
	{ { { "a", BUMP_MAJOR, { { 0 } } }, { "b", BUMP_MAJOR, { { 0 } } }, { "c", BUMP_MAJOR, { { 0 } } },
	    { "d", BUMP_MAJOR, { { 0 } } }, { "e", BUMP_MAJOR, { { 0 } } } },
	  5, CONFIDENCE_MEDIUM, "major version bumps in a, b, c and 2 more" },
	{ { { "a", BUMP_MAJOR, { { 0 } } }, { "b", BUMP_MAJOR, { { 0 } } } }, 2, CONFIDENCE_MEDIUM,
	  "major version bumps in a and b" },
	{ { { "x", BUMP_PATCH, { { "GHSA-aaaa-bbbb-cccc", "medium" } } } }, 1, CONFIDENCE_MEDIUM,
	  "medium advisory GHSA-aaaa-bbbb-cccc in x" },
	{ { { "x", BUMP_PATCH, { { "PYSEC-2023-1", "unknown" }, { "GHSA-low", "low" } } } }, 1, CONFIDENCE_MEDIUM,
	  "advisory PYSEC-2023-1 in x and low advisory GHSA-low in x" },
	{ { { "express", BUMP_MAJOR, { { 0 } } }, { "x", BUMP_PATCH, { { "GHSA-m", "moderate" } } } }, 2,
	  CONFIDENCE_MEDIUM, "major version bump in express; moderate advisory GHSA-m in x" },
	{ { { "lodash", BUMP_PATCH, { { "GHSA-xxxx", "critical" } } } }, 1, CONFIDENCE_LOW,
	  "critical advisory GHSA-xxxx in lodash" },
	/* critical before high, whatever the order of packages; fixed or open alike */
	{ { { "a", BUMP_MAJOR, { { "GHSA-h", "HIGH" }, { "GHSA-m", "medium" } } },
	    { "b", BUMP_PATCH, { { "CVE-2023-1", "Critical" } } } },
	  2, CONFIDENCE_LOW, "critical advisory CVE-2023-1 in b and high advisory GHSA-h in a" },
};

static void test_confidence(void **state)
{
	struct deps_analysis an;
	size_t i;

	(void)state;
	for (i = 0; i < COUNT(confidence_rows); i++) {
		make_analysis(&an, confidence_rows[i].rows, confidence_rows[i].n);
		if (deps_confidence_compute(&an) < 0)
			fail_msg("%s", error_message());
		if (an.confidence != confidence_rows[i].confidence || strcmp(an.reason, confidence_rows[i].reason))
			fail_msg("row %zu: %s (%s), expected %s (%s)", i, deps_confidence_name(an.confidence), an.reason,
				 deps_confidence_name(confidence_rows[i].confidence), confidence_rows[i].reason);
		/* again: the reason is replaced, not added to */
		assert_int_equal(deps_confidence_compute(&an), 0);
		assert_string_equal(an.reason, confidence_rows[i].reason);
		deps_analysis_release(&an);
	}
}

/* deps_analyze computes the confidence before any advisory is in. */
static void test_confidence_from_analysis(void **state)
{
	const char *old = "[dependencies]\nserde = \"1.0.1\"\n", *new = "[dependencies]\nserde = \"2.0.0\"\n";
	struct deps_analysis an;

	(void)state;
	analyze_texts(&an, "Cargo.toml", old, new);
	assert_int_equal(an.confidence, CONFIDENCE_MEDIUM);
	assert_string_equal(an.reason, "major version bump in serde");
	deps_analysis_release(&an);
	analyze(&an, NULL, 0, NULL, NULL);
	assert_int_equal(an.confidence, CONFIDENCE_HIGH);
	assert_string_equal(an.reason, "no dependency changes");
	deps_analysis_release(&an);
}

/* effect: 'f' fixed by the bump, 'b' brought by it, 'o' still open. */
static void add_advisory(struct deps_package *p, const char *id, const char *severity, char effect,
			 const char *summary)
{
	struct deps_advisory *a = realloc(p->advisories, (p->nadvisories + 1) * sizeof(*a));

	assert_non_null(a);
	p->advisories = a;
	a = &p->advisories[p->nadvisories++];
	a->id = strdup(id);
	a->severity = strdup(severity);
	a->summary = strdup(summary);
	a->fixed = effect == 'f';
	a->introduced = effect == 'b';
}

static void test_prompt_section(void **state)
{
	const char *old = "{\"dependencies\":{\"express\":\"^4.18.2\",\"lodash\":\"4.17.20\",\"left-pad\":\"1.3.0\"}}";
	const char *new = "{\"dependencies\":{\"express\":\"^5.0.0\",\"lodash\":\"4.17.21\",\"odd\":\"1 || 2\"}}";
	struct deps_file files[] = {
		{ .path = "package.json", .old_text = old, .old_len = strlen(old), .new_text = new, .new_len = strlen(new) },
		{ .path = "package-lock.json", .old_text = NULL, .old_len = 0, .new_text = NULL, .new_len = 0 },
	};
	struct buf out = BUF_INIT;
	struct deps_analysis an;

	(void)state;
	analyze(&an, files, COUNT(files), "dependabot/npm_and_yarn/multi", NULL);
	assert_int_equal(an.npackages, 4);
	add_advisory(&an.packages[2], "GHSA-35jh-r3h4-6jhm", "high", 'f', "Command Injection\nin lodash");
	add_advisory(&an.packages[2], "GHSA-p6mc-m468-83gw", "medium", 'o', "Prototype | Pollution");
	add_advisory(&an.packages[0], "GHSA-rv95-896h-c2vc", "medium", 'b', "Open Redirect in express");
	assert_int_equal(deps_confidence_compute(&an), 0);
	assert_int_equal(deps_prompt_section(&out, &an), 0);
	assert_string_equal(out.ptr,
			    "## Dependencies\n"
			    "\n"
			    "This change bumps 2 dependencies, adds 1 and removes 1 (npm), made by Dependabot. "
			    "Review it with a dependency-specific focus.\n"
			    "\n"
			    "| name | relation | ecosystem | from | to | bump | advisories | breaking |\n"
			    "|---|---|---|---|---|---|---|---|\n"
			    "| express | direct | npm | ^4.18.2 | ^5.0.0 | major | 1 brought | yes |\n"
			    "| left-pad | direct | npm | 1.3.0 | - | removed | none | no |\n"
			    "| lodash | direct | npm | 4.17.20 | 4.17.21 | patch | 1 fixed, 1 open | no |\n"
			    "| odd | direct | npm | - | 1 \\|\\| 2 | added | none | no |\n"
			    "\n"
			    "Advisories:\n"
			    "\n"
			    "- GHSA-rv95-896h-c2vc in express 5.0.0 (medium, brought by this bump): Open Redirect in express\n"
			    "- GHSA-35jh-r3h4-6jhm in lodash 4.17.20 (high, fixed by this bump): Command Injection in lodash\n"
			    "- GHSA-p6mc-m468-83gw in lodash 4.17.21 (medium, still open): Prototype | Pollution\n"
			    "\n"
			    "Focus on: breaking API changes in the code that uses them, deprecated usage, security "
			    "advisories, and lock file consistency.\n"
			    "Do not review lock files line by line.\n"
			    "\n"
			    "Merge confidence: LOW (high advisory GHSA-35jh-r3h4-6jhm in lodash)\n");
	deps_analysis_release(&an);

	/* A single patch bump, no bot, no advisories. */
	old = "gem 'rails', '7.0.4'\n";
	new = "gem 'rails', '7.0.5'\n";
	files[0] = (struct deps_file){ .path = "Gemfile", .old_text = old, .old_len = strlen(old), .new_text = new, .new_len = strlen(new) };
	analyze(&an, files, 1, NULL, NULL);
	assert_int_equal(deps_prompt_section(&out, &an), 0);
	assert_string_equal(out.ptr,
			    "## Dependencies\n"
			    "\n"
			    "This change bumps 1 dependency (rubygems). Review it with a dependency-specific focus.\n"
			    "\n"
			    "| name | relation | ecosystem | from | to | bump | advisories | breaking |\n"
			    "|---|---|---|---|---|---|---|---|\n"
			    "| rails | direct | rubygems | 7.0.4 | 7.0.5 | patch | none | no |\n"
			    "\n"
			    "Focus on: breaking API changes in the code that uses them, deprecated usage, security "
			    "advisories, and lock file consistency.\n"
			    "Do not review lock files line by line.\n"
			    "\n"
			    "Merge confidence: HIGH (patch bump, no advisories)\n");
	deps_analysis_release(&an);

	/* No packages: nothing, even for a bot's change; what was in the buffer is gone. */
	analyze(&an, files + 1, 1, "renovate/x", "Lock file maintenance");
	assert_string_equal(an.bot, "renovate");
	assert_int_equal(deps_prompt_section(&out, &an), 0);
	assert_non_null(out.ptr);
	assert_string_equal(out.ptr, "");
	deps_analysis_release(&an);
	buf_release(&out);
}

/* A downgrade and a pre-release in the table, and three ecosystems in the sentence. */
static void test_prompt_mixed(void **state)
{
	const char *npm_old = "{\"devDependencies\":{\"eslint\":\"8.40.0\"}}";
	const char *npm_new = "{\"devDependencies\":{\"eslint\":\"8.39.0\"}}";
	const char *go_old = "require golang.org/x/exp v0.0.0-20230101120000-abcdef123456\n";
	const char *go_new = "require golang.org/x/exp v0.0.0-20230801120000-fedcba654321\n";
	const char *pip_new = "requests==2.31.0\n";
	struct deps_file files[] = {
		{ .path = "package.json", .old_text = npm_old, .old_len = strlen(npm_old), .new_text = npm_new, .new_len = strlen(npm_new) },
		{ .path = "go.mod", .old_text = go_old, .old_len = strlen(go_old), .new_text = go_new, .new_len = strlen(go_new) },
		{ .path = "requirements.txt", .old_text = NULL, .old_len = 0, .new_text = pip_new, .new_len = strlen(pip_new) },
	};
	struct buf out = BUF_INIT;
	struct deps_analysis an;

	(void)state;
	analyze(&an, files, COUNT(files), NULL, NULL);
	assert_int_equal(deps_prompt_section(&out, &an), 0);
	if (!strstr(out.ptr, "This change bumps 2 dependencies and adds 1 (npm, go, pip). ") ||
	    !strstr(out.ptr, "| eslint | direct | npm | 8.40.0 | 8.39.0 | minor (downgrade) | none | no |\n") ||
	    !strstr(out.ptr, "| golang.org/x/exp | direct | go | v0.0.0-20230101120000-abcdef123456 | "
			     "v0.0.0-20230801120000-fedcba654321 | patch | none | no |\n") ||
	    !strstr(out.ptr, "| requests | direct | pip | - | ==2.31.0 | added | none | no |\n") ||
	    !strstr(out.ptr, "Merge confidence: HIGH (no major bumps, no advisories)\n") || strstr(out.ptr, "Advisories"))
		fail_msg("%s", out.ptr);
	deps_analysis_release(&an);
	buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_file_kinds),
		cmocka_unit_test(test_version_parse),
		cmocka_unit_test(test_version_order),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_npm),
		cmocka_unit_test(test_npm_edges),
		cmocka_unit_test(test_go),
		cmocka_unit_test(test_go_edges),
		cmocka_unit_test(test_cargo),
		cmocka_unit_test(test_cargo_edges),
		cmocka_unit_test(test_requirements),
		cmocka_unit_test(test_requirements_edges),
		cmocka_unit_test(test_pyproject),
		cmocka_unit_test(test_pyproject_edges),
		cmocka_unit_test(test_gemfile),
		cmocka_unit_test(test_gemfile_requirements),
		cmocka_unit_test(test_manifest_order),
		cmocka_unit_test(test_bots),
		cmocka_unit_test(test_lock_only_bumps),
		cmocka_unit_test(test_lock_only_not_twice),
		cmocka_unit_test(test_breaking),
		cmocka_unit_test(test_dependency_only),
		cmocka_unit_test(test_confidence),
		cmocka_unit_test(test_confidence_from_analysis),
		cmocka_unit_test(test_prompt_section),
		cmocka_unit_test(test_prompt_mixed),
		cmocka_unit_test(test_malformed_manifest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
