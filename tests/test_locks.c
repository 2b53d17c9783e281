/*
 * Lock files read for what they say: real lock files of real repositories
 * (tests/fixtures/deps/locks/<format>/{old,new}.lock, with the manifest
 * beside them where the lock file does not name the direct packages;
 * SOURCES there says from which commit of which repository), one pair per
 * format, each analysed as a change and its transitions checked: version,
 * bump, direct or transitive, and through which direct dependency. Then a
 * Dependabot commit whose lock file moves more than its message says (and
 * a message that lies), and the bounds.
 */
#include "testlib.h"

#include "buf.h"
#include "deps.h"
#include "lock.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

#define LOCKS TEST_FIXTURES "/deps/locks"

static char *read_text(const char *dir, const char *name, bool must)
{
	struct buf path = BUF_INIT, text = BUF_INIT;

	buf_printf(&path, "%s/%s/%s", LOCKS, dir, name);
	if (buf_read_file(&text, path.ptr) < 0) {
		if (must)
			fail_msg("%s", error_message());
		buf_release(&text);
	}
	buf_release(&path);
	return buf_detach(&text);
}

struct want {
	const char *name, *from, *to;
	enum deps_bump bump;
	enum deps_relation relation;
	const char *via;
};

/* The fixture pair of dir as the change of path (the manifest beside it on both sides), against want. */
static void check_pair(const char *dir, const char *path, const char *messages, const struct want *want, size_t n,
		       struct deps_analysis *an)
{
	char *old = read_text(dir, "old.lock", true), *new = read_text(dir, "new.lock", true);
	char *manifest = read_text(dir, "manifest", false);
	struct deps_file file = { .path = path, .old_text = old, .old_len = strlen(old), .new_text = new,
				  .new_len = strlen(new), .manifest_old = manifest, .manifest_new = manifest,
				  .manifest_old_len = manifest ? strlen(manifest) : 0,
				  .manifest_new_len = manifest ? strlen(manifest) : 0 };
	size_t i;

	if (deps_analyze(an, &file, 1, NULL, messages) < 0)
		fail_msg("%s: %s", dir, error_message());
	if (an->nproblems)
		fail_msg("%s: %s", dir, an->problems[0]);
	if (an->npackages != n) {
		for (i = 0; i < an->npackages; i++)
			print_message("%s: %s %s -> %s\n", dir, an->packages[i].name, an->packages[i].from,
				      an->packages[i].to);
		fail_msg("%s: %zu packages, not %zu", dir, an->npackages, n);
	}
	for (i = 0; i < n; i++) {
		const struct deps_package *p = &an->packages[i];

		if (strcmp(p->name, want[i].name) || (p->from ? strcmp(p->from, want[i].from ? want[i].from : "") : !!want[i].from) ||
		    (p->to ? strcmp(p->to, want[i].to ? want[i].to : "") : !!want[i].to) || p->bump != want[i].bump ||
		    p->relation != want[i].relation ||
		    (p->via ? !want[i].via || strcmp(p->via, want[i].via) : !!want[i].via))
			fail_msg("%s row %zu: %s %s -> %s %s %s via %s; want %s %s -> %s %s %s via %s", dir, i, p->name,
				 p->from ? p->from : "-", p->to ? p->to : "-", deps_bump_name(p->bump),
				 deps_relation_name(p->relation), p->via ? p->via : "-", want[i].name,
				 want[i].from ? want[i].from : "-", want[i].to ? want[i].to : "-",
				 deps_bump_name(want[i].bump), deps_relation_name(want[i].relation),
				 want[i].via ? want[i].via : "-");
		assert_string_equal(p->lock, path);
		assert_string_equal(p->manifest, path);
	}
	free(old);
	free(new);
	free(manifest);
}

#define D RELATION_DIRECT
#define T RELATION_TRANSITIVE

static void test_formats(void **state)
{
	static const struct {
		const char *dir, *path;
		struct want want[8];
		size_t n;
	} rows[] = {
		/* astral-sh/uv's uv-trampoline drops syn, textwrap and thiserror, with what they pulled in */
		{ "cargo", "crates/uv-trampoline/Cargo.lock", {
			{ "syn", "3.0.3", NULL, BUMP_REMOVED, D, NULL },
			{ "textwrap", "0.16.2", NULL, BUMP_REMOVED, D, NULL },
			{ "smawk", "0.3.2", NULL, BUMP_REMOVED, T, "textwrap" },
			{ "unicode-linebreak", "0.1.5", NULL, BUMP_REMOVED, T, "textwrap" },
			{ "unicode-width", "0.2.2", NULL, BUMP_REMOVED, T, "textwrap" },
			{ "thiserror", "2.0.17", NULL, BUMP_REMOVED, D, NULL },
			{ "thiserror-impl", "2.0.17", NULL, BUMP_REMOVED, T, "thiserror" } }, 7 },
		{ "composer", "composer.lock", {
			{ "composer/metadata-minifier", "1.0.0", "1.0.1", BUMP_PATCH, D, NULL },
			{ "justinrainbow/json-schema", "6.9.0", "6.10.0", BUMP_MINOR, D, NULL } }, 2 },
		/* rails' releaser: sigstore-cli's bump pulls sigstore along and adds logger */
		{ "gemfile", "tools/releaser/Gemfile.lock", {
			{ "sigstore-cli", "0.2.1", "0.2.2", BUMP_PATCH, D, NULL },
			{ "logger", NULL, "1.7.0", BUMP_ADDED, T, "sigstore-cli" },
			{ "sigstore", "0.2.1", "0.2.2", BUMP_PATCH, T, "sigstore-cli" } }, 3 },
		/* go.sum alone: an indirect module (go.mod's "// indirect") */
		{ "gosum", "go.sum", {
			{ "github.com/cli/go-internal", "v0.0.0-20241023114740-7e305b22223e",
			  "v0.0.0-20241024130215-fa3c22e38b9b", BUMP_PATCH, T, NULL } }, 1 },
		/* lockfile version 1 */
		{ "npm-v3", ".github/actions/download-exe/package-lock.json", {
			{ "@zeit/ncc", NULL, "0.21.0", BUMP_ADDED, D, NULL } }, 1 },
		{ "pdm", "tests/fixtures/projects/demo-package/pdm.lock", {
			{ "flask", "1.1.2", "1.1.4", BUMP_PATCH, D, NULL } }, 1 },
		/* Pipfile.lock records no graph: transitive, through nothing named */
		{ "pipfile", "examples/Pipfile.lock", {
			{ "packaging", "25.0", "26.0", BUMP_MAJOR, T, NULL },
			{ "pytest", "9.0.1", "9.0.3", BUMP_PATCH, D, NULL } }, 2 },
		/* uv's own record of the project: idna moves under anyio */
		{ "uv", "test/packages/built-by-uv/uv.lock", {
			{ "idna", "3.10", "3.15", BUMP_MINOR, T, "anyio" } }, 1 },
		/* pnpm's own, lockfile 6.0: a direct bump brings its platform packages along */
		{ "pnpm-v6", "pnpm-lock.yaml", {
			{ "@reflink/reflink", "0.1.11", "0.1.12", BUMP_PATCH, D, NULL },
			{ "@reflink/reflink-darwin-arm64", "0.1.11", "0.1.12", BUMP_PATCH, T, "@reflink/reflink" },
			{ "@reflink/reflink-darwin-x64", "0.1.11", "0.1.12", BUMP_PATCH, T, "@reflink/reflink" },
			{ "@reflink/reflink-win32-arm64-msvc", "0.1.11", "0.1.12", BUMP_PATCH, T, "@reflink/reflink" },
			{ "@reflink/reflink-win32-x64-msvc", "0.1.11", "0.1.12", BUMP_PATCH, T, "@reflink/reflink" } }, 5 },
		/* pnpm 11's, lockfile 9.0 in two documents: fast-uri moves under ajv, under the sbom package's dependency */
		{ "pnpm-v9", "pnpm-lock.yaml", {
			{ "fast-uri", "3.1.3", "3.1.4", BUMP_PATCH, T, "@cyclonedx/cyclonedx-library" } }, 1 },
		/*
		 * hono drops undici from package.json: its 6.27.0 goes; the 6.21.3
		 * that @octokit/action pulls in, hoisted in its place, was there before
		 */
		{ "bun", "bun.lock", {
			{ "undici", "6.27.0", NULL, BUMP_REMOVED, D, NULL } }, 1 },
		{ "yarn-classic", "benchmarks/routers/yarn.lock", {
			{ "radix3", NULL, "1.0.1", BUMP_ADDED, D, NULL } }, 1 },
	};
	struct deps_analysis an;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		check_pair(rows[i].dir, rows[i].path, NULL, rows[i].want, rows[i].n, &an);
		deps_analysis_release(&an);
	}
}

/*
 * prettier's website/yarn.lock (berry), Dependabot's ff05f79437: a
 * transitive security bump (follow-redirects, GHSA-r4q5-vmmm-2653), whose
 * message names follow-redirects alone while the lock file moves
 * brace-expansion too. Both are shown, under the direct dependency that
 * pulls them in; the message's claim matches and adds nothing.
 */
static void test_transitive_security_bump(void **state)
{
	static const struct want want[] = {
		{ "brace-expansion", "1.1.13", "1.1.14", BUMP_PATCH, T, "@docusaurus/core" },
		{ "follow-redirects", "1.15.11", "1.16.0", BUMP_MINOR, T, "@docusaurus/core" },
	};
	char *message = read_text("yarn-berry", "message", true);
	struct deps_analysis an;

	(void)state;
	check_pair("yarn-berry", "website/yarn.lock", message, want, 2, &an);
	assert_string_equal(an.bot, "dependabot");
	assert_int_equal(an.nclaims, 0);
	assert_null(an.packages[0].claimed);
	assert_null(an.packages[1].claimed);
	deps_analysis_release(&an);
	free(message);
}

/* A message that lies: a version the lock file does not have, and a package it does not move. */
static void test_message_lies(void **state)
{
	static const struct want want[] = {
		{ "brace-expansion", "1.1.13", "1.1.14", BUMP_PATCH, T, "@docusaurus/core" },
		{ "follow-redirects", "1.15.11", "1.16.0", BUMP_MINOR, T, "@docusaurus/core" },
	};
	struct deps_analysis an;

	(void)state;
	check_pair("yarn-berry", "website/yarn.lock",
		   "Bump follow-redirects from 1.15.11 to 1.17.0\n\n"
		   "Updates `lodash` from 4.17.20 to 4.17.21\n", want, 2, &an);
	assert_null(an.packages[0].claimed);
	assert_string_equal(an.packages[1].claimed, "1.15.11 -> 1.17.0");
	assert_int_equal(an.nclaims, 1);
	assert_string_equal(an.claims[0], "the commit message says lodash 4.17.20 -> 4.17.21; no manifest or lock "
			    "file of the change moves lodash");
	deps_analysis_release(&an);
}

/* A side that cannot be read is named, with why, and none of its packages is shown. */
static void test_unreadable(void **state)
{
	static const struct {
		const char *path, *text, *why;
	} rows[] = {
		{ "package-lock.json", "{\"packages\": {\"node_modules/a\": {\"version\": \"1.0.0\",}}}",
		  "not valid JSON, line 1, column 53: expected a key in quotes" },
		{ "Cargo.lock", "[[package]]\nname = \"a\"\nversion = \"1\nx", "not valid TOML" },
		{ "pnpm-lock.yaml", "packages:\n  a@1.0.0: [\n", "not valid YAML" },
		{ "go.sum", "golang.org/x/net v0.1.0\n", "line 1 is not \"module version hash\"" },
		{ "yarn.lock", "a@^1:\n      version \"1.0.0\"\n", "line 2: an indentation that is not 0, 2 or 4 spaces" },
		{ "bun.lock", "{ \"packages\": { \"a\": [\"a@1.0.0\"] } /* open", "not valid JSONC" },
	};
	const char *ok = "{}";
	struct deps_analysis an;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		struct deps_file file = { .path = rows[i].path, .old_text = ok, .old_len = 2, .new_text = rows[i].text,
					  .new_len = strlen(rows[i].text) };

		if (!strcmp(rows[i].path, "go.sum") || !strcmp(rows[i].path, "yarn.lock"))
			file.old_text = "", file.old_len = 0;
		if (!strcmp(rows[i].path, "Cargo.lock") || !strcmp(rows[i].path, "pnpm-lock.yaml"))
			file.old_text = "", file.old_len = 0;
		assert_int_equal(deps_analyze(&an, &file, 1, NULL, NULL), 0);
		assert_int_equal(an.npackages, 0);
		if (an.nproblems != 1 || !strstr(an.problems[0], rows[i].why) || !strstr(an.problems[0], "(new side)"))
			fail_msg("%s: %s", rows[i].path, an.nproblems ? an.problems[0] : "no problem");
		deps_analysis_release(&an);
	}
}

/*
 * A manifest's row and its lock file's transition are one, matched by the
 * ecosystem's names: PEP 503 for pip (pyproject's Django is poetry.lock's
 * django), case for Composer; a second version of a name in the lock
 * file is a row of its own.
 */
static void test_manifest_and_lock_as_one(void **state)
{
	static const char *const pyproject[2] = {
		"[tool.poetry.dependencies]\npython = \"^3.10\"\nDjango = \"^4.2.1\"\n",
		"[tool.poetry.dependencies]\npython = \"^3.10\"\nDjango = \"^4.2.7\"\n" };
	static const char *const poetry[2] = {
		"[[package]]\nname = \"django\"\nversion = \"4.2.1\"\n\n[[package]]\nname = \"sqlparse\"\nversion = \"0.4.3\"\n",
		"[[package]]\nname = \"django\"\nversion = \"4.2.7\"\n\n[[package]]\nname = \"sqlparse\"\nversion = \"0.4.4\"\n" };
	static const char *const pkg[2] = { "{\"dependencies\": {\"lodash\": \"^4.17.20\"}}",
					    "{\"dependencies\": {\"lodash\": \"^4.17.21\"}}" };
	static const char *const npm[2] = {
		"{\"lockfileVersion\": 3, \"packages\": {\"\": {\"dependencies\": {\"lodash\": \"^4.17.20\"}}, "
		"\"node_modules/lodash\": {\"version\": \"4.17.20\"}, "
		"\"node_modules/a/node_modules/lodash\": {\"version\": \"3.10.0\"}, \"node_modules/a\": {\"version\": \"1.0.0\"}}}",
		"{\"lockfileVersion\": 3, \"packages\": {\"\": {\"dependencies\": {\"lodash\": \"^4.17.21\"}}, "
		"\"node_modules/lodash\": {\"version\": \"4.17.21\"}, "
		"\"node_modules/a/node_modules/lodash\": {\"version\": \"3.10.1\"}, \"node_modules/a\": {\"version\": \"1.0.0\"}}}" };
	struct deps_file files[4] = {
		{ .path = "pyproject.toml", .old_text = pyproject[0], .new_text = pyproject[1] },
		{ .path = "poetry.lock", .old_text = poetry[0], .new_text = poetry[1],
		  .manifest_old = pyproject[0], .manifest_new = pyproject[1] },
		{ .path = "web/package.json", .old_text = pkg[0], .new_text = pkg[1] },
		{ .path = "web/package-lock.json", .old_text = npm[0], .new_text = npm[1] },
	};
	struct deps_analysis an;
	size_t i, lodash = 0;

	(void)state;
	for (i = 0; i < 4; i++) {
		files[i].old_len = strlen(files[i].old_text);
		files[i].new_len = strlen(files[i].new_text);
		files[i].manifest_old_len = files[i].manifest_old ? strlen(files[i].manifest_old) : 0;
		files[i].manifest_new_len = files[i].manifest_new ? strlen(files[i].manifest_new) : 0;
	}
	assert_int_equal(deps_analyze(&an, files, 4, NULL, NULL), 0);
	for (i = 0; i < an.npackages; i++) {
		const struct deps_package *p = &an.packages[i];

		if (!strcmp(p->name, "Django")) {
			assert_string_equal(p->manifest, "pyproject.toml");
			assert_string_equal(p->lock, "poetry.lock");
			assert_string_equal(p->from_version, "4.2.1");
			assert_string_equal(p->to_version, "4.2.7");
			assert_int_equal(p->relation, RELATION_DIRECT);
		} else if (!strcmp(p->name, "django")) {
			fail_msg("django is a row of its own beside pyproject's Django");
		} else if (!strcmp(p->name, "lodash") && p->manifest && !strcmp(p->manifest, "web/package.json")) {
			assert_string_equal(p->from_version, "4.17.20");
			assert_string_equal(p->to_version, "4.17.21");
			lodash++;
		} else if (!strcmp(p->name, "lodash")) {
			assert_string_equal(p->manifest, "web/package-lock.json");
			assert_string_equal(p->from, "3.10.0");
			assert_string_equal(p->to, "3.10.1");
			assert_int_equal(p->relation, RELATION_TRANSITIVE);
			lodash++;
		}
	}
	if (lodash != 2)
		for (i = 0; i < an.npackages; i++)
			print_message("%s %s %s -> %s (%s)\n", an.packages[i].name, an.packages[i].manifest,
				      an.packages[i].from, an.packages[i].to, deps_relation_name(an.packages[i].relation));
	assert_int_equal(lodash, 2);
	deps_analysis_release(&an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_transitive_security_bump),
		cmocka_unit_test(test_message_lies),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_manifest_and_lock_as_one),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
