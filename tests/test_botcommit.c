/*
 * Dependency bots' commit lines (src/deps/botcommit.c) with the line ends
 * real messages have: GitHub keeps a pull request body's CRLF in a squash
 * merge's message, so Dependabot's body lines reach the reader with a CR
 * at their end (paperless-ngx's messages in tests/fixtures/deps/messages,
 * byte for byte); a lone CR ends a line too. And the shapes of a group of
 * one ("Bump X in the G group") and of the metadata block every Dependabot
 * message ends with. The whole messages through deps_analyze: a lock-only
 * group bump gives each of its transitions, as the same message with LF.
 */
#include "testlib.h"

#include "botcommit.h"
#include "deps.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MESSAGES TEST_FIXTURES "/deps/messages"
#define COUNT(a) (sizeof(a) / sizeof(*(a)))

static void span_is(struct botcommit_span s, const char *want, const char *what, const char *line)
{
	size_t n = (size_t)(s.end - s.p);

	if (n != strlen(want) || memcmp(s.p, want, n))
		fail_msg("%s: %s is \"%.*s\", not \"%s\"", line, what, (int)n, s.p, want);
}

/* A line as the caller gives it: [line, line + strlen(line)), its line end included. */
static int dependabot(struct botcommit_bump *b, const char *line)
{
	return botcommit_dependabot(b, line, line + strlen(line));
}

static const struct {
	const char *line, *name, *from, *to;
} transitions[] = {
	/* paperless-ngx #8257's body line, as the caller splitting at LF leaves it */
	{ "Updates `watchdog` from 5.0.3 to 6.0.0\r", "watchdog", "5.0.3", "6.0.0" },
	{ "Updates `watchdog` from 5.0.3 to 6.0.0\r\n", "watchdog", "5.0.3", "6.0.0" },
	{ "Updates `watchdog` from 5.0.3 to 6.0.0", "watchdog", "5.0.3", "6.0.0" },
	{ "Bumps [cryptography](https://github.com/pyca/cryptography) from 44.0.0 to 44.0.1.\r", "cryptography",
	  "44.0.0", "44.0.1" },
	{ "Chore(deps): Bump django from 5.1.3 to 5.1.4 (#8445)\r", "django", "5.1.3", "5.1.4" },
	{ "Bump express from 4.18.2 to 5.0.0 in /web\r", "express", "4.18.2", "5.0.0" },
	{ "Update rubocop requirement from ~> 1.50 to ~> 1.56\r", "rubocop", "~> 1.50", "~> 1.56" },
	/* a lone CR ends the line as well: what follows it is not part of it */
	{ "Bump lodash from 4.17.20 to 4.17.21\rSigned-off-by: dependabot[bot]", "lodash", "4.17.20", "4.17.21" },
	{ "Updates `semver` from 5.7.1 to 5.7.2\r\r\n", "semver", "5.7.1", "5.7.2" },
};

static void test_transitions(void **state)
{
	struct botcommit_bump b;
	size_t i;

	(void)state;
	for (i = 0; i < COUNT(transitions); i++) {
		if (dependabot(&b, transitions[i].line) != 2)
			fail_msg("row %zu: no transition in \"%s\"", i, transitions[i].line);
		span_is(b.name, transitions[i].name, "the name", transitions[i].line);
		span_is(b.from, transitions[i].from, "from", transitions[i].line);
		span_is(b.to, transitions[i].to, "to", transitions[i].line);
	}
	/* A CR inside "in /dir" ends the directory too. */
	assert_int_equal(dependabot(&b, "Bump express from 4.18.2 to 5.0.0 in /web\r\n"), 2);
	span_is(b.dir, "/web", "the directory", "in /web");
}

static const struct {
	const char *line;
	int kind;
} kinds[] = {
	/* a group of one: its versions only in the body (paperless-ngx #8257, #13537) */
	{ "Chore(deps): Bump watchdog in the major-versions group (#8257)", 1 },
	{ "Chore(deps): Bump aiohttp in the uv group across 1 directory (#13537)\r", 1 },
	{ "Bump rapidfuzz in the small-changes group", 1 },
	{ "Bumps the major-versions group with 1 update: [watchdog](https://github.com/gorakhargosh/watchdog).\r",
	  0 },
	{ "Chore(deps): Bump the small-changes group with 3 updates (#7460)\r", 1 },
	/* the metadata block every Dependabot message ends with (paperless-ngx #11394: no versions elsewhere) */
	{ "updated-dependencies:", 1 },
	{ "updated-dependencies:\r", 1 },
	{ "updated-dependencies:  \r\n", 1 },
	{ "updated-dependencies: nltk", 0 },
	{ "- dependency-name: watchdog\r", 0 },
	/* what people write */
	{ "Bump version in the docs", 0 },
	{ "Bump limits in the group chat", 0 },
	{ "Bump pytest in the test group and fix the fixtures", 0 },
	{ "Bump version to 2.0\r", 0 },
	{ "bump lodash\r\n", 0 },
	{ "\r", 0 },
	{ "", 0 },
};

static void test_kinds(void **state)
{
	struct botcommit_bump b;
	size_t i;

	(void)state;
	for (i = 0; i < COUNT(kinds); i++)
		if (dependabot(&b, kinds[i].line) != kinds[i].kind)
			fail_msg("row %zu: \"%s\" is not of kind %d", i, kinds[i].line, kinds[i].kind);
}

static void test_renovate(void **state)
{
	static const char *const yes[] = {
		"Update dependency express to v5\r", "chore(deps): update dependency express to v5.0.0\r\n",
		"Update actions/checkout action to v4\rmore", "Lock file maintenance\r",
		"chore(deps): update dependency @smithy/util-stream to v4.8.1 (main) (#45338)\r",
	};
	static const char *const no[] = { "Update README\r", "Update bundler to 4.0.12\r\n", "\r\n" };
	size_t i;

	(void)state;
	for (i = 0; i < COUNT(yes); i++)
		if (!botcommit_renovate(yes[i], yes[i] + strlen(yes[i])))
			fail_msg("not read as Renovate's: \"%s\"", yes[i]);
	for (i = 0; i < COUNT(no); i++)
		if (botcommit_renovate(no[i], no[i] + strlen(no[i])))
			fail_msg("read as Renovate's: \"%s\"", no[i]);
}

/* ------------------------------------------------------------ whole messages */

struct pkg {
	const char *name, *from, *to;
	enum deps_bump bump;
};

static char *message(const char *name)
{
	struct buf text = BUF_INIT;

	test_read(&text, MESSAGES, name);
	return buf_detach(&text);
}

/* The message with its CRs taken out: what the same commit would say with LF line ends. */
static char *lf_only(const char *text)
{
	char *out = malloc(strlen(text) + 1), *q = out;

	assert_non_null(out);
	for (; *text; text++)
		if (*text != '\r')
			*q++ = *text;
	*q = '\0';
	return out;
}

static void analyze_is(const char *text, const char *const *paths, size_t npaths, const struct pkg *want,
		       size_t n, const char *what)
{
	struct deps_file files[4];
	struct deps_analysis an;
	size_t i;

	memset(files, 0, sizeof(files));
	for (i = 0; i < npaths; i++)
		files[i].path = paths[i];
	if (deps_analyze(&an, files, npaths, NULL, text) < 0)
		fail_msg("%s: %s", what, error_message());
	if (!an.bot || strcmp(an.bot, "dependabot"))
		fail_msg("%s: the bot is %s", what, an.bot ? an.bot : "none");
	/* No lock file text: each bump the message names is a claim, none a package. */
	if (an.npackages || an.nclaims != n)
		fail_msg("%s: %zu packages and %zu claims, not 0 and %zu", what, an.npackages, an.nclaims, n);
	for (i = 0; i < n; i++) {
		char said[256];

		snprintf(said, sizeof(said), "the commit message says %s %s -> %s;", want[i].name, want[i].from,
			 want[i].to);
		if (strncmp(an.claims[i], said, strlen(said)))
			fail_msg("%s: claim %zu is \"%s\", not \"%s ...\"", what, i, an.claims[i], said);
	}
	deps_analysis_release(&an);
}

static void test_group_bodies(void **state)
{
	static const char *const lock[] = { "Pipfile.lock" }, *const both[] = { "Pipfile", "Pipfile.lock" };
	static const struct pkg small[] = {
		{ "nltk", "3.8.1", "3.8.2", BUMP_PATCH },
		{ "rapidfuzz", "3.9.5", "3.9.6", BUMP_PATCH },
		{ "watchdog", "4.0.1", "4.0.2", BUMP_PATCH },
	};
	static const struct pkg major[] = { { "watchdog", "5.0.3", "6.0.0", BUMP_MAJOR } };
	char *text = message("paperless-ngx-7460.txt"), *lf = lf_only(text);

	(void)state;
	/* The fixture is GitHub's: the body's lines end in CRLF. */
	assert_non_null(strstr(text, "Updates `nltk` from 3.8.1 to 3.8.2\r\n"));
	analyze_is(text, lock, 1, small, COUNT(small), "#7460 as GitHub wrote it (CRLF)");
	analyze_is(lf, lock, 1, small, COUNT(small), "#7460 with LF");
	free(text);
	free(lf);
	text = message("paperless-ngx-8257.txt");
	lf = lf_only(text);
	assert_non_null(strstr(text, "Updates `watchdog` from 5.0.3 to 6.0.0\r\n"));
	analyze_is(text, both, 2, major, COUNT(major), "#8257 as GitHub wrote it (CRLF)");
	analyze_is(lf, both, 2, major, COUNT(major), "#8257 with LF");
	free(text);
	free(lf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transitions),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_renovate),
		cmocka_unit_test(test_group_bodies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
