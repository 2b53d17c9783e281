#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "diff.h"
#include "repo.h"
#include "rules.h"
#include "status.h"

/* -------------------------------------------------------------------------
 * Helpers
 */

/* Every problem as "path:line: message" lines, "(fatal)" marked. */
static char *problems_text(const struct rule_set *set)
{
	struct buf out = BUF_INIT;
	size_t i;

	buf_puts(&out, "");
	for (i = 0; i < set->nproblems; i++) {
		const struct rule_problem *p = &set->problems[i];

		buf_printf(&out, "%s:%d: %s%s\n", p->path, p->line, p->message,
			   p->fatal ? " (fatal)" : "");
	}
	return buf_detach(&out);
}

static void assert_problems(const struct rule_set *set, const char *want)
{
	char *got = problems_text(set);

	if (strcmp(got, want))
		fail_msg("problems differ\n--- expected\n%s--- got\n%s", want, got);
	free(got);
}

/* Parse text as the file "r.md"; the problems are checked against want. */
static int parse_expect(struct rule *rule, const char *text, const char *want)
{
	struct rule_set set = { 0 };
	int rc = rule_parse(rule, "r.md", text, strlen(text), &set);

	assert_problems(&set, want);
	rules_release(&set);
	return rc;
}

/* The one problem a bad rule gives, and that it is refused. */
static void assert_bad(const char *text, const char *want)
{
	struct rule rule;

	assert_int_equal(parse_expect(&rule, text, want), RL_EPARSE);
	assert_null(rule.id);
	rule_release(&rule);
}

/* A good rule with a warning, or none. */
static void assert_good(const char *text, const char *want)
{
	struct rule rule;

	assert_int_equal(parse_expect(&rule, text, want), 0);
	rule_release(&rule);
}

static char *tmp_path(const char *dir, const char *rel)
{
	char *path;

	if (asprintf(&path, "%s/%s", dir, rel) < 0)
		fail_msg("out of memory");
	return path;
}

static const char good_body[] = "# Title\n\nThe standard.\n";

static void write_rule(const char *dir, const char *rel, const char *id)
{
	char *text;

	if (asprintf(&text, "---\nid: %s\n---\n%s", id, good_body) < 0)
		fail_msg("out of memory");
	test_write_str(dir, rel, text);
	free(text);
}

/*
 * Rules found in dirs only: no user or built-in rules unless asked (then
 * every built-in rule, as revline.builtinRules=all).
 */
static void load(struct rule_set *set, const char *workdir, const char *const *extra,
		 size_t nextra, bool user, bool builtin)
{
	struct rules_options options = { .extra_dirs = extra, .nextra = nextra, .workdir = workdir,
					 .no_user = !user, .builtin = RULES_BUILTIN_ALL,
					 .no_builtin = !builtin };

	assert_int_equal(rules_load(set, &options), 0);
}

static const struct rule *find(const struct rule_set *set, const char *id)
{
	const struct rule *rule = rules_find(set, id);

	if (!rule)
		fail_msg("no rule '%s' was loaded", id);
	return rule;
}

/* -------------------------------------------------------------------------
 * The two seed formats
 */

static void test_threadline_format(void **state)
{
	static const char text[] =
		"---\n"
		"id: error-handling\n"
		"version: 1.0\n"
		"patterns:\n"
		"  - \"**/*.ts\"\n"
		"  - \"!**/*.test.ts\"\n"
		"context_files: [schema.sql, docs/errors.md]\n"
		"---\n"
		"# Error handling\n\nBody.\n";
	struct rule rule;

	(void)state;
	assert_int_equal(parse_expect(&rule, text, ""), 0);
	assert_string_equal(rule.id, "error-handling");
	assert_string_equal(rule.name, "error-handling");
	assert_string_equal(rule.version, "1.0");
	assert_int_equal(rule.severity, SEV_MAJOR);
	assert_null(rule.category);
	assert_null(rule.model);
	assert_null(rule.pattern);
	assert_null(rule.regex);
	assert_int_equal(rule.kind, RULE_LLM);
	assert_int_equal(rule.npatterns, 2);
	assert_string_equal(rule.patterns[0], "**/*.ts");
	assert_string_equal(rule.patterns[1], "!**/*.test.ts");
	assert_int_equal(rule.ncontext, 2);
	assert_string_equal(rule.context_files[0], "schema.sql");
	assert_string_equal(rule.context_files[1], "docs/errors.md");
	assert_string_equal(rule.body, "# Error handling\n\nBody.\n");
	assert_string_equal(rule.content, text);
	assert_string_equal(rule.path, "r.md");
	rule_release(&rule);
}

static void test_reasoning_effort(void **state)
{
	struct rule rule;

	(void)state;
	assert_int_equal(parse_expect(&rule, "---\nid: deep\nreasoning_effort: high\n---\nLook hard.\n", ""), 0);
	assert_string_equal(rule.reasoning_effort, "high");
	rule_release(&rule);
	/* A value no model takes is left out, with a note; the rule still runs. */
	assert_int_equal(parse_expect(&rule, "---\nid: deep\nreasoning_effort: extreme\n---\nLook.\n",
				      "r.md:3: reasoning_effort 'extreme' is not one of minimal, low, medium or "
				      "high: it is left out\n"), 0);
	assert_null(rule.reasoning_effort);
	rule_release(&rule);
	assert_int_equal(parse_expect(&rule, "---\nid: local\npattern: TODO\nreasoning_effort: low\n---\nNo TODO.\n",
				      "r.md:4: reasoning_effort is not used: a rule with a pattern runs locally, "
				      "without the LLM\n"), 0);
	rule_release(&rule);
}

static void test_rule_format(void **state)
{
	static const char seed[] =
		"---\n"
		"id: error-handling\n"
		"name: Proper Error Handling\n"
		"severity: critical\n"
		"category: reliability\n"
		"applies-to: [\"*.ts\", \"*.js\"]\n"
		"model: haiku  # optional: override model for this rule\n"
		"---\n"
		"\n"
		"# Error Handling Rule\n";
	struct rule rule;

	(void)state;
	assert_int_equal(parse_expect(&rule, seed, ""), 0);
	assert_string_equal(rule.name, "Proper Error Handling");
	assert_int_equal(rule.severity, SEV_CRITICAL);
	assert_string_equal(rule.category, "reliability");
	assert_string_equal(rule.model, "haiku");
	assert_null(rule.version);
	assert_int_equal(rule.npatterns, 2);
	assert_string_equal(rule.patterns[1], "*.js");
	assert_string_equal(rule.body, "\n# Error Handling Rule\n");
	assert_true(rule_applies(&rule, "src/a.ts"));
	assert_false(rule_applies(&rule, "src/a.py"));
	rule_release(&rule);
}

static void test_aliases_and_single_values(void **state)
{
	struct rule rule;

	(void)state;
	assert_int_equal(parse_expect(&rule,
		"---\nid: a\napplies-to: \"src/**/*.py\"\ncontext-files: docs/style.md\n"
		"severity: Minor\nversion: '2'\n---\nBody\n", ""), 0);
	assert_int_equal(rule.npatterns, 1);
	assert_string_equal(rule.patterns[0], "src/**/*.py");
	assert_int_equal(rule.ncontext, 1);
	assert_string_equal(rule.context_files[0], "docs/style.md");
	assert_int_equal(rule.severity, SEV_MINOR);
	assert_string_equal(rule.version, "2");
	rule_release(&rule);

	/* Empty lists and nulls are "not given". */
	assert_int_equal(parse_expect(&rule,
		"---\nid: b\npatterns: []\ncontext_files:\nname: ~\ncategory: null\n---\nBody\n", ""), 0);
	assert_int_equal(rule.npatterns, 0);
	assert_int_equal(rule.ncontext, 0);
	assert_string_equal(rule.name, "b");
	assert_null(rule.category);
	assert_true(rule_applies(&rule, "anything/at/all.c"));
	rule_release(&rule);
}

static void test_local_rule(void **state)
{
	struct rule rule;

	(void)state;
	assert_int_equal(parse_expect(&rule,
		"---\nid: no-todo\nseverity: nitpick\npattern: '\\bTODO\\b'\n---\n", ""), 0);
	assert_int_equal(rule.kind, RULE_LOCAL);
	assert_string_equal(rule.pattern, "\\bTODO\\b");
	assert_non_null(rule.regex);
	assert_string_equal(rule.body, "");
	rule_release(&rule);
}

static void test_crlf_bom_and_delimiters(void **state)
{
	struct rule rule;

	(void)state;
	assert_int_equal(parse_expect(&rule,
		"\xef\xbb\xbf---\r\nid: crlf\r\nseverity: minor\r\n--- \r\nBody\r\n", ""), 0);
	assert_string_equal(rule.id, "crlf");
	assert_int_equal(rule.severity, SEV_MINOR);
	assert_string_equal(rule.body, "Body\r\n");
	rule_release(&rule);

	/* A line "---" inside a YAML block value would end the front matter: "----" does not. */
	assert_int_equal(parse_expect(&rule, "---\nid: x\nname: |\n  ----\n---\nB", ""), 0);
	assert_string_equal(rule.name, "----\n");
	assert_string_equal(rule.body, "B");
	rule_release(&rule);
}

static void test_example(void **state)
{
	struct rule rule;

	(void)state;
	assert_int_equal(parse_expect(&rule, rules_example, ""), 0);
	assert_string_equal(rule.id, "error-messages");
	assert_string_equal(rule.version, "1.0.0");
	assert_int_equal(rule.kind, RULE_LLM);
	assert_int_equal(rule.severity, SEV_MINOR);
	assert_true(rule.npatterns >= 1);
	assert_true(rule_applies(&rule, "src/main.go"));
	assert_false(rule_applies(&rule, "tests/main.go"));
	assert_false(rule_applies(&rule, "README.md"));
	assert_non_null(strstr(rule.body, "## Good"));
	assert_non_null(strstr(rule.body, "## Bad"));
	rule_release(&rule);
}

/* -------------------------------------------------------------------------
 * Validation: every problem with its line and exact text
 */

static void test_front_matter_problems(void **state)
{
	(void)state;
	assert_bad("# Just markdown\n",
		"r.md:1: no front matter: a rule file starts with a line '---', then YAML (id: my-rule, "
		"severity: major, ...), then a line '---' and the standard in markdown (fatal)\n");
	assert_bad("",
		"r.md:1: no front matter: a rule file starts with a line '---', then YAML (id: my-rule, "
		"severity: major, ...), then a line '---' and the standard in markdown (fatal)\n");
	assert_bad("---\nid: x\n\n# Body\n",
		"r.md:1: the front matter is not closed: add a line '---' after the YAML (fatal)\n");
	assert_bad("---\n---\nBody\n",
		"r.md:1: the front matter is empty: it needs at least an id (id: my-rule) (fatal)\n");
	assert_bad("---\n- a\n- b\n---\nBody\n",
		"r.md:2: the front matter must be keys and values (id: my-rule), not a list (fatal)\n");
	assert_bad("---\njust text\n---\nBody\n",
		"r.md:2: the front matter must be keys and values (id: my-rule), not plain text (fatal)\n");
	{
		static const char nul[] = "---\nid: x\n---\nline\nbad \0 byte\n";
		struct rule_set set = { 0 };
		struct rule rule;

		assert_int_equal(rule_parse(&rule, "r.md", nul, sizeof(nul) - 1, &set), RL_EPARSE);
		assert_problems(&set, "r.md:5: the file has a NUL byte: a rule file is text "
				"(UTF-8 markdown) (fatal)\n");
		assert_string_equal(error_message(), "r.md:5: the file has a NUL byte: a rule file is "
				    "text (UTF-8 markdown)");
		rules_release(&set);
	}
}

static void test_yaml_problems(void **state)
{
	(void)state;
	assert_bad("---\nid: x\nseverity: major\npatterns: [\"*.c\"\n---\nBody\n",
		"r.md:5: invalid YAML: did not find expected ',' or ']' while parsing a flow sequence: "
		"check the indentation, and quote values that contain ': ' or start with one of "
		"[ ] { } * & ! | > ' \" % @ ` (fatal)\n");
	assert_bad("---\nid: x\nname: a: b\n---\nBody\n",
		"r.md:3: invalid YAML: mapping values are not allowed in this context: check the "
		"indentation, and quote values that contain ': ' or start with one of "
		"[ ] { } * & ! | > ' \" % @ ` (fatal)\n");
	assert_bad("---\nid: x\nname: \xff\xfe\n---\nBody\n",
		"r.md:3: the front matter is not valid UTF-8 (invalid leading UTF-8 octet): save the "
		"file as UTF-8 (fatal)\n");
	assert_bad("---\nid: x\nid: y\n---\nBody\n",
		"r.md:3: 'id' is given twice (also on line 2): keep one (fatal)\n");
	assert_bad("---\nid: x\npatterns: [a]\napplies-to: [b]\n---\nBody\n",
		"r.md:4: 'applies-to' is another name for 'patterns', given on line 3: keep one (fatal)\n");
}

static void test_id_problems(void **state)
{
	(void)state;
	assert_bad("---\nname: Nameless\n---\nBody\n",
		"r.md:1: no id: add one to the front matter, such as 'id: error-handling' (letters, "
		"digits, '-', '_' and '.') (fatal)\n");
	assert_bad("---\nid:\n---\nBody\n",
		"r.md:2: id is empty: give the rule a short name such as 'id: error-handling' (fatal)\n");
	assert_bad("---\nid: ''\n---\nBody\n",
		"r.md:2: id is empty: give the rule a short name such as 'id: error-handling' (fatal)\n");
	assert_bad("---\nseverity: minor\nid: [a, b]\n---\nBody\n",
		"r.md:3: id must be text, not a list (fatal)\n");
	assert_bad("---\nid: {a: b}\n---\nBody\n",
		"r.md:2: id must be text, not a mapping (key: value) (fatal)\n");
	assert_bad("---\nid: Error Handling!\n---\nBody\n",
		"r.md:2: id 'Error Handling!' is not a plain name: use letters, digits, '-', '_' and "
		"'.' only, such as 'error-handling' (fatal)\n");
	assert_bad("---\nid: \"a/b\"\n---\nBody\n",
		"r.md:2: id 'a/b' is not a plain name: use letters, digits, '-', '_' and '.' only, "
		"such as 'a-b' (fatal)\n");
	assert_bad("---\nid: \"a\\0b\"\n---\nBody\n",
		"r.md:2: id holds a NUL character: remove it (fatal)\n");
	assert_good("---\nid: 42\n---\nBody\n", "");
	assert_good("---\nid: v1.2_rule-X\n---\nBody\n", "");
}

static void test_field_problems(void **state)
{
	(void)state;
	assert_bad("---\nid: x\nseverity: high\n---\nBody\n",
		"r.md:3: severity 'high' is not one of critical, major, minor, nitpick (fatal)\n");
	assert_bad("---\nid: x\nseverity: [major]\n---\nBody\n",
		"r.md:3: severity must be text, not a list (fatal)\n");
	assert_bad("---\nid: x\nname: [a]\n---\nBody\n",
		"r.md:3: name must be text, not a list (fatal)\n");
	assert_bad("---\nid: x\nversion: {major: 1}\n---\nBody\n",
		"r.md:3: version must be text, not a mapping (key: value) (fatal)\n");
	assert_bad("---\nid: x\npatterns:\n  src: '*.c'\n---\nBody\n",
		"r.md:4: patterns must be a list (patterns: [\"a\", \"b\"]) or a single value, not a "
		"mapping (fatal)\n");
	assert_bad("---\nid: x\napplies-to:\n  - '*.c'\n  - [a, b]\n---\nBody\n",
		"r.md:5: applies-to: item 2 is a list: write one value per item (fatal)\n");
	assert_bad("---\nid: x\npatterns:\n  - '*.c'\n  - 'src/[ab'\n---\nBody\n",
		"r.md:5: patterns: bad glob 'src/[ab': unclosed '[' at column 5 (fatal)\n");
	assert_bad("---\nid: x\npatterns: ['*.c', '']\n---\nBody\n",
		"r.md:3: patterns: an empty glob matches no file: remove it (fatal)\n");
	assert_bad("---\nid: x\ncontext_files: [/etc/passwd]\n---\nBody\n",
		"r.md:3: context_files: '/etc/passwd' is an absolute path: context files are inside the "
		"repository, relative to its root (such as docs/errors.md) (fatal)\n");
	assert_bad("---\nid: x\ncontext-files:\n  - docs/a.md\n  - docs/../../secret\n---\nBody\n",
		"r.md:5: context-files: 'docs/../../secret' leaves the repository with '..': context "
		"files are inside it, relative to its root (fatal)\n");
	assert_bad("---\nid: x\ncontext_files: '~/notes.md'\n---\nBody\n",
		"r.md:3: context_files: '~/notes.md' is an absolute path: context files are inside the "
		"repository, relative to its root (such as docs/errors.md) (fatal)\n");
	assert_good("---\nid: x\ncontext_files: [a..b/c.md, .github/x.md]\n---\nBody\n", "");
	assert_bad("---\nid: x\npattern: 'catch\\s*\\(('\n---\n",
		"r.md:3: pattern does not compile: missing closing parenthesis at offset 11: fix the "
		"PCRE2 expression (in YAML, put it in single quotes so that backslashes stay as "
		"written) (fatal)\n");
	assert_bad("---\nid: x\npattern: ''\n---\n",
		"r.md:3: pattern is empty: give a PCRE2 expression, or remove the key to have the LLM "
		"review the rule (fatal)\n");
}

static void test_body_problems(void **state)
{
	(void)state;
	assert_bad("---\nid: x\nseverity: minor\n---\n",
		"r.md:4: the rule has no body: write the standard below the front matter (what to look "
		"for, good and bad examples); the LLM reviews against it (fatal)\n");
	assert_bad("---\nid: x\n---\n\n  \n\t\n",
		"r.md:3: the rule has no body: write the standard below the front matter (what to look "
		"for, good and bad examples); the LLM reviews against it (fatal)\n");
	/* A local rule needs no body; the match itself is the finding. */
	assert_good("---\nid: x\npattern: a\n---\n", "");
}

static void test_warnings(void **state)
{
	struct rule rule;

	(void)state;
	assert_int_equal(parse_expect(&rule, "---\nid: x\nseverty: minor\ncontext_file: a.md\n"
				      "colour: blue\n---\nBody\n",
		"r.md:3: unknown key 'severty' (did you mean 'severity'?), ignored; known keys: id, "
		"name, version, severity, category, patterns (or applies-to), context_files (or "
		"context-files), context, model, reasoning_effort, pattern, check\n"
		"r.md:4: unknown key 'context_file' (did you mean 'context_files'?), ignored; known "
		"keys: id, name, version, severity, category, patterns (or applies-to), context_files "
		"(or context-files), context, model, reasoning_effort, pattern, check\n"
		"r.md:5: unknown key 'colour', ignored (a typo?); known keys: id, name, version, "
		"severity, category, patterns (or applies-to), context_files (or context-files), "
		"context, model, reasoning_effort, pattern, check\n"), 0);
	assert_string_equal(rule.id, "x");
	assert_int_equal(rule.severity, SEV_MAJOR);  /* the misspelt key did nothing */
	rule_release(&rule);

	assert_good("---\nid: x\npattern: a\nmodel: gpt-4o\ncontext_files: [a.md]\n---\n",
		"r.md:4: model is not used: a rule with a pattern runs locally, without the LLM\n"
		"r.md:5: context_files is not used: a rule with a pattern runs locally, without the LLM\n");
	assert_good("---\nid: x\npatterns: ['!docs/**']\n---\nBody\n",
		"r.md:3: patterns has only exclusions ('!...'), so the rule applies to no file: start "
		"the list with what to include, such as '**'\n");
}

static void test_every_problem_reported(void **state)
{
	struct rule rule;

	(void)state;
	/* All problems at once, so one lint run is enough to fix a file. */
	assert_int_equal(parse_expect(&rule,
		"---\nid: Bad Id\nseverity: high\nlevel: 3\npatterns: ['[']\n---\n",
		"r.md:2: id 'Bad Id' is not a plain name: use letters, digits, '-', '_' and '.' only, "
		"such as 'bad-id' (fatal)\n"
		"r.md:3: severity 'high' is not one of critical, major, minor, nitpick (fatal)\n"
		"r.md:4: unknown key 'level', ignored (a typo?); known keys: id, name, version, severity, "
		"category, patterns (or applies-to), context_files (or context-files), context, model, reasoning_effort, pattern, check\n"
		"r.md:5: patterns: bad glob '[': unclosed '[' at column 1 (fatal)\n"
		"r.md:6: the rule has no body: write the standard below the front matter (what to look "
		"for, good and bad examples); the LLM reviews against it (fatal)\n"), RL_EPARSE);
	assert_string_equal(error_message(), "r.md:2: id 'Bad Id' is not a plain name: use letters, "
			    "digits, '-', '_' and '.' only, such as 'bad-id'");
	rule_release(&rule);
}

static void test_long_values_clipped(void **state)
{
	struct rule_set set = { 0 };
	struct buf text = BUF_INIT;
	struct rule rule;
	int i;

	(void)state;
	buf_puts(&text, "---\nid: x\nseverity: ");
	for (i = 0; i < 500; i++)
		buf_putc(&text, 'h');
	buf_puts(&text, "\n---\nBody\n");
	assert_int_equal(rule_parse(&rule, "r.md", text.ptr, text.len, &set), RL_EPARSE);
	assert_int_equal(set.nproblems, 1);
	assert_true(strlen(set.problems[0].message) < 200);
	assert_non_null(strstr(set.problems[0].message, "hhh...'"));
	rules_release(&set);
	buf_release(&text);
}

/* -------------------------------------------------------------------------
 * Loading
 */

static char *xdg_home;

static int setup(void **state)
{
	(void)state;
	xdg_home = test_tmpdir("rules-xdg");
	setenv("XDG_CONFIG_HOME", xdg_home, 1);
	setenv("REVLINE_DATADIR", TEST_SOURCE_DIR, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	test_rmtree(xdg_home);
	free(xdg_home);
	return 0;
}

/* A .revline settings file means .revline/rules cannot be there: nothing to report. */
static void test_revline_file_is_no_rules_folder(void **state)
{
	char *repo = test_tmpdir("rules-revline-file");
	struct rule_set set = { 0 };

	(void)state;
	test_write_str(repo, ".revline", "[revline]\n\tconcurrency = 2\n");
	write_rule(repo, "threadlines/mine.md", "mine");
	load(&set, repo, NULL, 0, false, false);
	assert_problems(&set, "");
	assert_non_null(find(&set, "mine"));
	rules_release(&set);
	test_rmtree(repo);
	free(repo);
}

static void test_search_order(void **state)
{
	char *repo = test_tmpdir("rules-order"), *extra = test_tmpdir("rules-extra");
	char *user = tmp_path(xdg_home, "revline/rules");
	const char *dirs[] = { extra };
	struct rule_set set = { 0 };
	const struct rule *r;
	char *path;

	(void)state;
	test_write_str(repo, "threadlines/errors.md",
		"---\nid: error-handling\nseverity: minor\n---\nOurs.\n");
	write_rule(repo, "threadlines/mine.md", "mine");
	write_rule(repo, ".revline/rules/revline.md", "revline-dir");
	write_rule(repo, ".github/cr-rules/cr.md", "cr-dir");
	write_rule(xdg_home, "revline/rules/personal.md", "personal");
	write_rule(xdg_home, "revline/rules/override.md", "injection");
	write_rule(extra, "mine.md", "mine");

	load(&set, repo, dirs, 1, true, true);
	assert_problems(&set, "");

	r = find(&set, "error-handling");
	assert_string_equal(r->source, "repository");
	assert_string_equal(r->path, "threadlines/errors.md");
	assert_int_equal(r->severity, SEV_MINOR);
	r = find(&set, "mine");
	assert_string_equal(r->source, "--rules");
	if (asprintf(&path, "%s/mine.md", extra) < 0)
		fail_msg("out of memory");
	assert_string_equal(r->path, path);
	free(path);
	assert_string_equal(find(&set, "revline-dir")->path, ".revline/rules/revline.md");
	assert_string_equal(find(&set, "cr-dir")->path, ".github/cr-rules/cr.md");
	r = find(&set, "personal");
	assert_string_equal(r->source, "user");
	if (asprintf(&path, "%s/personal.md", user) < 0)
		fail_msg("out of memory");
	assert_string_equal(r->path, path);
	free(path);
	assert_string_equal(find(&set, "injection")->source, "user");
	r = find(&set, "concurrency");
	assert_string_equal(r->source, "built-in");
	assert_non_null(strstr(r->path, "/rules/concurrency.md"));
	assert_true(r->path[0] == '/');
	/* The order is the search order: --rules, repository, user, built-in. */
	assert_string_equal(set.rules[0].id, "mine");
	assert_string_equal(set.rules[set.count - 1].source, "built-in");
	rules_release(&set);

	/* Without the user's and built-in rules, only the directories given. */
	load(&set, repo, NULL, 0, false, false);
	assert_int_equal(set.count, 4);
	assert_null(rules_find(&set, "personal"));
	assert_null(rules_find(&set, "concurrency"));
	rules_release(&set);

	/* Outside a repository: user and built-in rules. */
	load(&set, NULL, NULL, 0, true, true);
	assert_string_equal(find(&set, "error-handling")->source, "built-in");
	assert_string_equal(find(&set, "personal")->source, "user");
	assert_null(rules_find(&set, "mine"));
	rules_release(&set);

	test_rmtree(repo);
	test_rmtree(extra);
	free(repo);
	free(extra);
	free(user);
}

static void test_extra_dir_in_repository(void **state)
{
	char *repo = test_tmpdir("rules-inrepo"), *dir = tmp_path(repo, "review/rules/");
	char *file = tmp_path(repo, "one.md"), *missing = tmp_path(repo, "nope");
	const char *dirs[] = { dir, file, missing };
	struct rule_set set = { 0 };
	char *want;

	(void)state;
	write_rule(repo, "review/rules/a.md", "a");
	write_rule(repo, "one.md", "one");
	load(&set, repo, dirs, 3, false, false);
	assert_string_equal(find(&set, "a")->path, "review/rules/a.md");
	assert_string_equal(find(&set, "one")->path, "one.md");
	if (asprintf(&want, "%s:0: --rules: no such directory (fatal)\n", missing) < 0)
		fail_msg("out of memory");
	assert_problems(&set, want);
	free(want);
	rules_release(&set);
	test_rmtree(repo);
	free(repo);
	free(dir);
	free(file);
	free(missing);
}

static void test_duplicates(void **state)
{
	char *repo = test_tmpdir("rules-dup"), *a = test_tmpdir("rules-a"), *b = test_tmpdir("rules-b");
	const char *dirs[] = { a, b };
	struct rule_set set = { 0 };
	struct buf want = BUF_INIT;

	(void)state;
	/* Within one directory: the second file is an error. */
	write_rule(repo, "threadlines/a.md", "same");
	test_write_str(repo, "threadlines/b.md", "---\nseverity: minor\nid: same\n---\nBody\n");
	/* Across the repository's directories: a note; the first wins. */
	write_rule(repo, ".github/cr-rules/dup.md", "cross");
	write_rule(repo, "threadlines/cross.md", "cross");
	/* Across --rules directories too; and --rules over the repository is silent. */
	write_rule(a, "x.md", "extra");
	write_rule(b, "x.md", "extra");
	write_rule(a, "over.md", "cross");

	load(&set, repo, dirs, 2, false, false);
	buf_printf(&want, "%s/x.md:2: id 'extra' is also used by %s/x.md, which wins (it is "
		   "searched first), so this file is left out: give one of them another id\n", b, a);
	buf_puts(&want, "threadlines/b.md:3: id 'same' is already used by threadlines/a.md: give "
		 "this rule another id (fatal)\n");
	assert_problems(&set, want.ptr);
	assert_string_equal(find(&set, "same")->path, "threadlines/a.md");
	assert_string_equal(find(&set, "cross")->source, "--rules");
	assert_int_equal(set.count, 3);
	rules_release(&set);

	/* Without the --rules directories the repository's own duplicate shows. */
	load(&set, repo, NULL, 0, false, false);
	assert_problems(&set,
		"threadlines/b.md:3: id 'same' is already used by threadlines/a.md: give this rule "
		"another id (fatal)\n"
		".github/cr-rules/dup.md:2: id 'cross' is also used by threadlines/cross.md, which wins "
		"(it is searched first), so this file is left out: give one of them another id\n");
	assert_string_equal(find(&set, "cross")->path, "threadlines/cross.md");
	rules_release(&set);

	buf_release(&want);
	test_rmtree(repo);
	test_rmtree(a);
	test_rmtree(b);
	free(repo);
	free(a);
	free(b);
}

static void test_recursive_and_skipped(void **state)
{
	char *repo = test_tmpdir("rules-tree");
	struct rule_set set = { 0 };

	(void)state;
	write_rule(repo, "threadlines/b.md", "b");
	write_rule(repo, "threadlines/a/z.md", "az");
	write_rule(repo, "threadlines/a/deeper/y.MD", "ay");
	write_rule(repo, "threadlines/a.md", "a");
	test_write_str(repo, "threadlines/README.md", "# How we write rules\n");
	test_write_str(repo, "threadlines/sub/readme.md", "# Nothing\n");
	test_write_str(repo, "threadlines/notes.txt", "not a rule\n");
	write_rule(repo, "threadlines/.drafts/d.md", "draft");
	write_rule(repo, "threadlines/.hidden.md", "hidden");
	/* A bad rule in the middle never stops the others. */
	test_write_str(repo, "threadlines/a/bad.md", "---\nid: [\n---\n");
	test_write_str(repo, "threadlines/a/c.md", "no front matter\n");
	test_sh_ok(repo, "ln -s ../elsewhere threadlines/dangling.md && ln -s a threadlines/loop");

	load(&set, repo, NULL, 0, false, false);
	assert_int_equal(set.count, 4);
	/* Entries sorted by name, directories read where they sort ("a" before "a.md"). */
	assert_string_equal(set.rules[0].id, "ay");
	assert_string_equal(set.rules[1].id, "az");
	assert_string_equal(set.rules[2].id, "a");
	assert_string_equal(set.rules[3].id, "b");
	assert_string_equal(find(&set, "ay")->path, "threadlines/a/deeper/y.MD");
	assert_int_equal(set.nproblems, 2);
	assert_string_equal(set.problems[0].path, "threadlines/a/bad.md");
	assert_int_equal(set.problems[0].line, 3);
	assert_true(set.problems[0].fatal);
	assert_string_equal(set.problems[1].path, "threadlines/a/c.md");
	assert_int_equal(set.problems[1].line, 1);
	rules_release(&set);
	test_rmtree(repo);
	free(repo);
}

static void test_unreadable_and_large(void **state)
{
	char *repo = test_tmpdir("rules-large");
	struct rule_set set = { 0 };
	char *big = malloc(1024 * 1024 + 2);

	(void)state;
	memset(big, 'x', 1024 * 1024 + 1);
	memcpy(big, "---\nid: big\n---\n", 16);
	test_write(repo, "threadlines/big.md", big, 1024 * 1024 + 1);
	write_rule(repo, "threadlines/ok.md", "ok");
	load(&set, repo, NULL, 0, false, false);
	assert_problems(&set, "threadlines/big.md:0: is larger than 1 MiB: skipped; keep the standard "
			"to a page, and put long material in context_files (fatal)\n");
	assert_int_equal(set.count, 1);
	rules_release(&set);
	free(big);
	test_rmtree(repo);
	free(repo);
}

/* -------------------------------------------------------------------------
 * Using the rules
 */

static void test_applies(void **state)
{
	struct rule rule;

	(void)state;
	assert_int_equal(parse_expect(&rule, "---\nid: x\npatterns: ['**/*.ts', '!**/*.test.ts']\n"
				      "---\nBody\n", ""), 0);
	assert_true(rule_applies(&rule, "a.ts"));
	assert_true(rule_applies(&rule, "src/deep/a.ts"));
	assert_false(rule_applies(&rule, "src/a.test.ts"));
	assert_false(rule_applies(&rule, "src/a.js"));
	rule_release(&rule);
}

struct hits {
	int lines[16];
	char text[16][64];
	int n;
};

static void record(const struct rule_match *m, void *ctx)
{
	struct hits *hits = ctx;

	if (hits->n < 16) {
		hits->lines[hits->n] = m->line;
		snprintf(hits->text[hits->n], sizeof(hits->text[0]), "%.*s", (int)m->len, m->code);
		hits->n++;
	}
}

/* The added lines of a one-file diff that a rule's pattern matches. */
static int match(const struct rule *rule, const char *path, const char *added, struct hits *hits)
{
	struct buf text = BUF_INIT;
	struct diff *diff = NULL;
	const char *s;
	int n, count = 0;

	for (s = added; *s; s++)
		count += *s == '\n';
	buf_printf(&text, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -1,2 +1,%d @@\n"
		   " context line\n-removed line\n", path, path, path, path, count + 1);
	for (s = added; *s; ) {
		const char *eol = strchr(s, '\n');

		buf_printf(&text, "+%.*s\n", (int)(eol - s), s);
		s = eol + 1;
	}
	if (diff_from_text(&diff, text.ptr, text.len) < 0)
		fail_msg("diff: %s\n%s", error_message(), text.ptr);
	memset(hits, 0, sizeof(*hits));
	n = rule_match_local(rule, &diff->files[0], record, hits);
	diff_free(diff);
	buf_release(&text);
	return n;
}

static void test_match_local(void **state)
{
	struct rule rule, llm;
	struct hits hits;
	struct buf text = BUF_INIT;
	struct diff *diff = NULL;

	(void)state;
	assert_int_equal(parse_expect(&rule, "---\nid: x\npattern: 'TODO$'\n---\n", ""), 0);
	assert_int_equal(match(&rule, "a.c", "one\nfix TODO\nTODO later\nand TODO\n", &hits), 2);
	assert_int_equal(hits.lines[0], 3);
	assert_string_equal(hits.text[0], "fix TODO");
	assert_int_equal(hits.lines[1], 5);

	/* Context and removed lines are never matched; CRLF endings still end the line. */
	buf_puts(&text, "diff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1,2 +1,2 @@\n"
		 " TODO\n-TODO\n+x TODO\r\n");
	assert_int_equal(diff_from_text(&diff, text.ptr, text.len), 0);
	memset(&hits, 0, sizeof(hits));
	assert_int_equal(rule_match_local(&rule, &diff->files[0], record, &hits), 1);
	assert_int_equal(hits.lines[0], 2);
	assert_string_equal(hits.text[0], "x TODO");
	assert_int_equal(rule_match_local(&rule, &diff->files[0], NULL, NULL), 1);
	diff_free(diff);
	buf_release(&text);

	/* Bytes that are not UTF-8 are matched as bytes. */
	assert_int_equal(match(&rule, "a.c", "caf\xe9 TODO\n", &hits), 1);
	rule_release(&rule);

	/* A pattern that backtracks forever gives up on the line, not on the check. */
	assert_int_equal(parse_expect(&rule, "---\nid: x\npattern: '^(a+)+$'\n---\n", ""), 0);
	assert_int_equal(match(&rule, "a.c", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\naaaa\n", &hits), 1);
	assert_int_equal(hits.lines[0], 3);
	rule_release(&rule);

	assert_int_equal(parse_expect(&llm, "---\nid: y\n---\nBody\n", ""), 0);
	assert_int_equal(match(&llm, "a.c", "x\n", &hits), RL_EUSAGE);
	rule_release(&llm);
}

/* -------------------------------------------------------------------------
 * The built-in rules
 */

static void load_builtin(struct rule_set *set)
{
	load(set, NULL, NULL, 0, false, true);
	assert_problems(set, "");
}

/* -------------------------------------------------------------------------
 * Which built-in rules run
 */

/* Every case of the policy, on rules made by hand. */
static void test_policy(void **state)
{
	static const char *const named[] = { "named" };
	static const struct {
		const char *source, *id;
		enum rule_kind kind;
		enum rules_builtin builtin;
		bool no_builtin, own;
		enum rule_why want;
	} cases[] = {
		/* The default: all, until the repository has rules of its own. */
		{ "built-in", "x", RULE_LLM, RULES_BUILTIN_AUTO, false, false, RULE_ON_NO_OWN },
		{ "built-in", "x", RULE_LOCAL, RULES_BUILTIN_AUTO, false, false, RULE_ON_NO_OWN },
		{ "built-in", "x", RULE_LLM, RULES_BUILTIN_AUTO, false, true, RULE_OFF_OWN },
		{ "built-in", "x", RULE_LOCAL, RULES_BUILTIN_AUTO, false, true, RULE_ON_LOCAL },
		/* all, local, none: whether the repository has rules or not. */
		{ "built-in", "x", RULE_LLM, RULES_BUILTIN_ALL, false, true, RULE_ON_ALL },
		{ "built-in", "x", RULE_LOCAL, RULES_BUILTIN_ALL, false, false, RULE_ON_ALL },
		{ "built-in", "x", RULE_LLM, RULES_BUILTIN_LOCAL, false, false, RULE_OFF_LOCAL },
		{ "built-in", "x", RULE_LOCAL, RULES_BUILTIN_LOCAL, false, true, RULE_ON_LOCAL },
		{ "built-in", "x", RULE_LLM, RULES_BUILTIN_NONE, false, false, RULE_OFF_NONE },
		{ "built-in", "x", RULE_LOCAL, RULES_BUILTIN_NONE, false, true, RULE_OFF_NONE },
		/* --no-builtin wins over the setting; --rule ID over both. */
		{ "built-in", "x", RULE_LOCAL, RULES_BUILTIN_ALL, true, false, RULE_OFF_FLAG },
		{ "built-in", "named", RULE_LLM, RULES_BUILTIN_AUTO, false, true, RULE_ON_NAMED },
		{ "built-in", "named", RULE_LLM, RULES_BUILTIN_NONE, true, false, RULE_ON_NAMED },
		/* Only built-in rules are ever off. */
		{ "repository", "x", RULE_LLM, RULES_BUILTIN_NONE, true, true, RULE_ON },
		{ "--rules", "x", RULE_LLM, RULES_BUILTIN_LOCAL, false, true, RULE_ON },
		{ "user", "x", RULE_LLM, RULES_BUILTIN_AUTO, false, true, RULE_ON },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rule rule = { .id = (char *)cases[i].id, .kind = cases[i].kind,
				     .source = cases[i].source };
		struct rules_options o = { .builtin = cases[i].builtin, .no_builtin = cases[i].no_builtin,
					   .named = named, .nnamed = 1 };
		enum rule_why got = rules_policy(&rule, &o, cases[i].own);

		if (got != cases[i].want)
			fail_msg("case %zu: %s %s rule, builtinRules=%s%s, own %d: %s, expected %s", i,
				 cases[i].source, cases[i].kind == RULE_LLM ? "LLM" : "local",
				 rules_builtin_name(cases[i].builtin), cases[i].no_builtin ? " --no-builtin" : "",
				 cases[i].own, rule_why_text(got), rule_why_text(cases[i].want));
		assert_int_equal(rule_why_on(got), got < RULE_OFF_OWN);
	}
	assert_true(rule_why_on(RULE_ON_LOCAL));
	assert_false(rule_why_on(RULE_OFF_OWN));
	assert_string_equal(rule_why_text(RULE_OFF_OWN), "built-in LLM rule, off: the repository has "
			    "rules of its own (revline.builtinRules=all to run it)");
	assert_string_equal(rule_why_text(RULE_OFF_NONE), "built-in rule, off: revline.builtinRules=none");
}

/* The counts of a loaded set: on and off, by kind, and the built-in ones marked. */
static void count_rules(const struct rule_set *set, size_t *own, size_t *llm_on, size_t *local_on,
			size_t *off)
{
	size_t i;

	*own = *llm_on = *local_on = *off = 0;
	for (i = 0; i < set->count; i++) {
		const struct rule *r = &set->rules[i];

		if (strcmp(r->source, "built-in"))
			(*own)++;
		else if (!rule_why_on(r->why))
			(*off)++;
		else if (r->kind == RULE_LLM)
			(*llm_on)++;
		else
			(*local_on)++;
	}
}

static void policy_load(struct rule_set *set, const char *workdir, const char *const *extra,
			size_t nextra, enum rules_builtin builtin, bool keep_off)
{
	struct rules_options o = { .extra_dirs = extra, .nextra = nextra, .workdir = workdir,
				   .no_user = false, .builtin = builtin, .keep_off = keep_off };

	assert_int_equal(rules_load(set, &o), 0);
}

/* rules_load applies the policy: the rules it turns off are left out, or kept marked. */
static void test_policy_load(void **state)
{
	char *bare = test_tmpdir("policy-bare"), *repo = test_tmpdir("policy-repo");
	char *extra = test_tmpdir("policy-extra");
	const char *dirs[] = { extra };
	struct rule_set set = { 0 };
	size_t own, llm, local, off;
	const struct rules_options named_opts = { .workdir = repo, .named = (const char *[]){ "injection" },
						  .nnamed = 1 };
	char *user = tmp_path(xdg_home, "revline/rules");

	(void)state;
	/* No rules of its own (a user's rule is not the repository's): every built-in rule. */
	test_rmtree(user);
	write_rule(xdg_home, "revline/rules/personal.md", "personal");
	policy_load(&set, bare, NULL, 0, RULES_BUILTIN_AUTO, false);
	count_rules(&set, &own, &llm, &local, &off);
	assert_false(set.own);
	assert_int_equal(own, 1);
	assert_int_equal(llm, 8);
	assert_int_equal(local, 7);
	assert_int_equal(set.off, 0);
	assert_int_equal(find(&set, "error-handling")->why, RULE_ON_NO_OWN);
	rules_release(&set);

	/* A rule of its own: the built-in LLM rules are left out, the local ones stay. */
	write_rule(repo, ".revline/rules/ours.md", "ours");
	policy_load(&set, repo, NULL, 0, RULES_BUILTIN_AUTO, false);
	count_rules(&set, &own, &llm, &local, &off);
	assert_true(set.own);
	assert_int_equal(own, 2);
	assert_int_equal(llm, 0);
	assert_int_equal(local, 7);
	assert_int_equal(set.off, 8);
	assert_null(rules_find(&set, "error-handling"));
	assert_int_equal(find(&set, "conflict-markers")->why, RULE_ON_LOCAL);
	assert_int_equal(find(&set, "ours")->why, RULE_ON);
	rules_release(&set);

	/* Listed: kept, and marked why. */
	policy_load(&set, repo, NULL, 0, RULES_BUILTIN_AUTO, true);
	count_rules(&set, &own, &llm, &local, &off);
	assert_int_equal(off, 8);
	assert_int_equal(set.off, 8);
	assert_int_equal(find(&set, "error-handling")->why, RULE_OFF_OWN);
	rules_release(&set);

	/* Each setting. */
	policy_load(&set, repo, NULL, 0, RULES_BUILTIN_ALL, false);
	count_rules(&set, &own, &llm, &local, &off);
	assert_true(llm == 8 && local == 7 && set.off == 0);
	rules_release(&set);
	policy_load(&set, bare, NULL, 0, RULES_BUILTIN_LOCAL, false);
	count_rules(&set, &own, &llm, &local, &off);
	assert_true(llm == 0 && local == 7 && set.off == 8);
	rules_release(&set);
	policy_load(&set, bare, NULL, 0, RULES_BUILTIN_NONE, true);
	count_rules(&set, &own, &llm, &local, &off);
	assert_true(own == 1 && llm == 0 && local == 0 && off == 15 && set.off == 15);
	assert_int_equal(find(&set, "conflict-markers")->why, RULE_OFF_NONE);
	rules_release(&set);

	/* --rules counts as rules of its own. */
	write_rule(extra, "given.md", "given");
	policy_load(&set, bare, dirs, 1, RULES_BUILTIN_AUTO, false);
	assert_true(set.own);
	assert_null(rules_find(&set, "injection"));
	rules_release(&set);

	/* A rule named by --rule runs whatever the policy. */
	assert_int_equal(rules_load(&set, &named_opts), 0);
	assert_int_equal(find(&set, "injection")->why, RULE_ON_NAMED);
	assert_null(rules_find(&set, "error-handling"));
	rules_release(&set);

	test_rmtree(user);
	test_rmtree(bare);
	test_rmtree(repo);
	test_rmtree(extra);
	free(user);
	free(bare);
	free(repo);
	free(extra);
}

/* revline.builtinRules from git config: each value, any case; another is a clear error. */
static void test_policy_setting(void **state)
{
	static const char *const values[] = { "auto", "all", "LOCAL", "None" };
	char *dir = test_repo_new("policy-setting");
	struct repo *repo = NULL;
	struct config *config = NULL;
	enum rules_builtin got;
	size_t i;

	(void)state;
	assert_int_equal(repo_open(&repo, dir), 0);
	assert_int_equal(config_open(&config, repo), 0);
	got = RULES_BUILTIN_NONE;
	assert_int_equal(rules_builtin_load(&got, config), 0);
	assert_int_equal(got, RULES_BUILTIN_AUTO);
	config_free(config);
	for (i = 0; i < 4; i++) {
		test_sh_ok(dir, "git config revline.builtinRules %s", values[i]);
		assert_int_equal(config_open(&config, repo), 0);
		assert_int_equal(rules_builtin_load(&got, config), 0);
		assert_int_equal(got, (enum rules_builtin)i);
		config_free(config);
	}
	/* A .revline sets it too, untrusted: it only chooses among revline's own rules. */
	test_sh_ok(dir, "git config --unset revline.builtinRules");
	test_write_str(dir, ".revline", "[revline]\n\tbuiltinRules = local\n");
	assert_int_equal(config_open(&config, repo), 0);
	assert_int_equal(rules_builtin_load(&got, config), 0);
	assert_int_equal(got, RULES_BUILTIN_LOCAL);
	config_free(config);
	test_write_str(dir, ".revline", "[revline]\n\tbuiltinRules = some\n");
	assert_int_equal(config_open(&config, repo), 0);
	assert_int_equal(rules_builtin_load(&got, config), RL_ECONFIG);
	assert_string_equal(error_message(), "revline.builtinRules is 'some': it takes auto, all, "
			    "local or none (git config revline.builtinRules, or .revline)");
	config_free(config);
	repo_free(repo);
	test_rmtree(dir);
	free(dir);
}

static void test_builtin_rules_clean(void **state)
{
	static const char *const expected[] = {
		"error-handling", "injection", "secrets-handling", "resource-leaks",
		"input-validation", "api-compatibility", "sensitive-logging", "concurrency",
		"conflict-markers", "private-keys-and-cloud-keys", "debug-leftovers-js",
		"debug-leftovers-python", "debug-leftovers-rust", "debug-leftovers-go",
	};
	struct rule_set set = { 0 };
	size_t i;

	(void)state;
	load_builtin(&set);
	assert_true(set.count >= 10);
	for (i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
		find(&set, expected[i]);
	for (i = 0; i < set.count; i++) {
		const struct rule *r = &set.rules[i];

		assert_string_equal(r->source, "built-in");
		assert_non_null(r->version);
		assert_non_null(r->category);
		assert_true(strcmp(r->name, r->id) != 0);
		if (r->kind == RULE_LLM) {
			if (!strstr(r->body, "## What to look for") || !strstr(r->body, "## Good") ||
			    !strstr(r->body, "## Bad") || !strstr(r->body, "## Do not flag") ||
			    !strstr(r->body, "```"))
				fail_msg("%s lacks a section of the standard", r->path);
			assert_true(r->npatterns > 0);
		} else {
			assert_true(strstr(r->body, "Not flagged") != NULL);
		}
	}
	/* Code rules are about code, not documentation. */
	assert_true(rule_applies(find(&set, "injection"), "src/db/query.py"));
	assert_false(rule_applies(find(&set, "injection"), "docs/sql.md"));
	assert_false(rule_applies(find(&set, "injection"), "tests/test_query.py"));
	assert_true(rule_applies(find(&set, "secrets-handling"), "config/.env.production"));
	assert_true(rule_applies(find(&set, "secrets-handling"), "deploy/docker-compose.prod.yml"));
	assert_true(rule_applies(find(&set, "api-compatibility"), "api/user.proto"));
	assert_true(rule_applies(find(&set, "debug-leftovers-js"), "web/src/app.tsx"));
	assert_false(rule_applies(find(&set, "debug-leftovers-js"), "scripts/build.js"));
	assert_true(rule_applies(find(&set, "conflict-markers"), "any/file.txt"));
	assert_false(rule_applies(find(&set, "private-keys-and-cloud-keys"), "Cargo.lock"));
	rules_release(&set);
}

/* How many of the lines the built-in rule flags; each line is its own sample. */
static int flagged(const struct rule_set *set, const char *id, const char *path, const char *lines)
{
	struct hits hits;

	return match(find(set, id), path, lines, &hits);
}

static void test_builtin_conflict_markers(void **state)
{
	struct rule_set set = { 0 };

	(void)state;
	load_builtin(&set);
	assert_int_equal(flagged(&set, "conflict-markers", "a.c",
		"<<<<<<" "< HEAD\n"
		"|||||||" " merged common ancestors\n"
		">>>>>>>" " feature/x\n"
		"<<<<<<" "<\n"), 4);
	/* The separator alone is a heading underline more often than a marker. */
	assert_int_equal(flagged(&set, "conflict-markers", "a.py",
		"Example\n"
		"=======" "\n"
		"==========\n"
		"=======text\n"
		"  <<<<<<" "< HEAD\n"
		"x = a <<<<<<< b\n"
		"<<<<<<<<" " HEAD\n"
		"// =======\n"), 0);
	rules_release(&set);
}

static void test_builtin_keys(void **state)
{
	struct rule_set set = { 0 };
	const char *id = "private-keys-and-cloud-keys";

	(void)state;
	load_builtin(&set);
	/* Real shapes, split in the source so that this file is not flagged itself. */
	assert_int_equal(flagged(&set, id, "k.pem", "-----BEGIN RSA PRIVATE" " KEY-----\n"), 1);
	assert_int_equal(flagged(&set, id, "k", "-----BEGIN OPENSSH PRIVATE" " KEY-----\n"), 1);
	assert_int_equal(flagged(&set, id, "k", "-----BEGIN PRIVATE" " KEY-----\n"), 1);
	assert_int_equal(flagged(&set, id, "k", "-----BEGIN PGP PRIVATE" " KEY BLOCK-----\n"), 1);
	assert_int_equal(flagged(&set, id, "sa.json", "  \"private_key\": \"-----BEGIN PRIVATE"
		" KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n\",\n"), 1);
	assert_int_equal(flagged(&set, id, ".env", "KEY=\"-----BEGIN EC PRIVATE" " KEY----- "
		"MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5oEh\"\n"), 1);
	assert_int_equal(flagged(&set, id, "a.py", "key = \"AKIA" "Q3EGRS7DLMBV2XNZ\"\n"), 1);
	assert_int_equal(flagged(&set, id, "a.env", "AWS_ACCESS_KEY_ID=ASIA" "Y34FZKBOKMUTVV7A\n"), 1);
	assert_int_equal(flagged(&set, id, "a.yml", "token: ghp_" "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A\n"), 1);
	assert_int_equal(flagged(&set, id, "a.yml", "token: gho_" "16C7e42F292c6912E7710c838347Ae178B4a\n"), 1);
	assert_int_equal(flagged(&set, id, "a.sh", "export GH=github_pat_" "11ABCDEFG0a1b2c3d4e5f6_"
		"a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0u1V2w3X4y5Z6a7B8c9D\n"), 1);
	assert_int_equal(flagged(&set, id, "a.js", "const t = 'xoxb-" "2048203948-20394820394-"
		"aB3dE5fG7hJ9kL1mN3pQ5rS7';\n"), 1);
	assert_int_equal(flagged(&set, id, "a.js", "key: \"AIza" "SyD9xQ2-kP7vB3nL8mR4tW6yZ1cF5hJ0aEq\",\n"), 1);
	assert_int_equal(flagged(&set, id, "a.rb", "Stripe.api_key = 'sk_" "live_4eC39HqLyjWDarjtT1zdp7dc'\n"), 1);
	assert_int_equal(flagged(&set, id, "a.txt", "glpat-" "Zq3xT8vN2mK5pR7wY1cB\n"), 1);

	/* Obvious non-secrets. */
	assert_int_equal(flagged(&set, id, "README.md",
		"aws_access_key_id = AKIA" "IOSFODNN7EXAMPLE\n"
		"-----BEGIN PUBLIC KEY-----\n"
		"PEM_HEADER = \"-----BEGIN RSA PRIVATE" " KEY-----\"\n"
		"when your file has '-----BEGIN RSA PRIVATE" " KEY-----' and\n"
		"key=\"-----BEGIN PRIVATE" " KEY-----\\\\nXXXX\\\\nXXXX\"\n"
		"-----BEGIN CERTIFICATE-----\n"
		"token: ghp_" "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"
		"token: ghp_your_token_here\n"
		"SLACK_TOKEN=xoxb-your-token\n"
		"SLACK_TOKEN=xoxb-" "000000000000-000000000000-xxxxxxxxxxxxxxxxxxxxxxxx\n"
		"key = AIza" "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX\n"
		"AKIA is the prefix of an access key id\n"
		"const AKIAFOO = 1; THISISAKIAQ3EGRS7DLMBV2XNZAB\n"
		"publishable: pk_" "live_4eC39HqLyjWDarjtT1zdp7dc\n"
		"hash = 0c8f3b1e4aba4b4a0c66e7dc3f6e37cb92e6b91b\n"
		"uuid = 123e4567-e89b-12d3-a456-426614174000\n"), 0);
	rules_release(&set);
}

static void test_builtin_debug_leftovers(void **state)
{
	struct rule_set set = { 0 };

	(void)state;
	load_builtin(&set);
	assert_int_equal(flagged(&set, "debug-leftovers-js", "a.ts",
		"console.log(user);\n"
		"  console.debug('x', y)\n"
		"if (x) { console.table(rows); }\n"
		"debugger;\n"
		"    debugger\n"), 5);
	assert_int_equal(flagged(&set, "debug-leftovers-js", "a.ts",
		"console.error('failed', err);\n"
		"console.warn('deprecated');\n"
		"// console.log(x)\n"
		" * console.log in a doc comment\n"
		"logger.log(x);\n"
		"myconsole.log(x);\n"
		"const debuggerEnabled = true;\n"), 0);

	/* A minified bundle is one huge line: not something a person left in. */
	{
		struct buf line = BUF_INIT;
		int i;

		for (i = 0; i < 60; i++)
			buf_puts(&line, "var a=b(c);");
		buf_puts(&line, "console.log(x);\n");
		assert_int_equal(flagged(&set, "debug-leftovers-js", "app.bundle.js", line.ptr), 0);
		buf_release(&line);
	}

	assert_int_equal(flagged(&set, "debug-leftovers-python", "a.py",
		"import pdb; pdb.set_trace()\n"
		"    breakpoint()\n"
		"from ipdb import set_trace\n"
		"print(\"DEBUG\", rows)\n"
		"print(f'>>> {x}')\n"
		"print('XXX here')\n"), 6);
	assert_int_equal(flagged(&set, "debug-leftovers-python", "a.py",
		"print(\"Usage: tool FILE\")\n"
		"print(f\"{n} files\")\n"
		"# breakpoint()\n"
		"log.debug(\"x\")\n"
		"sys.breakpointhook = hook\n"
		"print(\"debugging tips: ...\")\n"
		"print('*** not found ***')\n"
		"print(\"-----------------------\", file=sys.stderr)\n"), 0);

	assert_int_equal(flagged(&set, "debug-leftovers-rust", "a.rs",
		"let x = dbg!(a + b);\n"
		"    dbg!(&config);\n"
		"std::dbg!(x);\n"), 3);
	assert_int_equal(flagged(&set, "debug-leftovers-rust", "a.rs",
		"/// let x = dbg!(y);\n"
		"tracing::debug!(x);\n"
		"my_dbg!(x);\n"), 0);

	assert_int_equal(flagged(&set, "debug-leftovers-go", "a.go",
		"fmt.Println(\"DEBUG\", x)\n"
		"\tfmt.Printf(\">>> %v\\n\", v)\n"
		"fmt.Fprintf(os.Stderr, \"XXX here\")\n"
		"spew.Dump(resp)\n"), 4);
	assert_int_equal(flagged(&set, "debug-leftovers-go", "a.go",
		"fmt.Println(\"usage: tool FILE\")\n"
		"fmt.Fprintf(w, \"DEBUG mode is %v\", on)\n"
		"// fmt.Println(\"DEBUG\")\n"
		"fmt.Println(\"----- results -----\")\n"
		"slog.Debug(\"x\")\n"), 0);
	rules_release(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threadline_format),
		cmocka_unit_test(test_rule_format),
		cmocka_unit_test(test_reasoning_effort),
		cmocka_unit_test(test_aliases_and_single_values),
		cmocka_unit_test(test_local_rule),
		cmocka_unit_test(test_crlf_bom_and_delimiters),
		cmocka_unit_test(test_example),
		cmocka_unit_test(test_front_matter_problems),
		cmocka_unit_test(test_yaml_problems),
		cmocka_unit_test(test_id_problems),
		cmocka_unit_test(test_field_problems),
		cmocka_unit_test(test_body_problems),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_every_problem_reported),
		cmocka_unit_test(test_long_values_clipped),
		cmocka_unit_test(test_search_order),
		cmocka_unit_test(test_revline_file_is_no_rules_folder),
		cmocka_unit_test(test_extra_dir_in_repository),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_recursive_and_skipped),
		cmocka_unit_test(test_unreadable_and_large),
		cmocka_unit_test(test_applies),
		cmocka_unit_test(test_match_local),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_policy_load),
		cmocka_unit_test(test_policy_setting),
		cmocka_unit_test(test_builtin_rules_clean),
		cmocka_unit_test(test_builtin_conflict_markers),
		cmocka_unit_test(test_builtin_keys),
		cmocka_unit_test(test_builtin_debug_leftovers),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
