/* Prompt templates: placeholders, sections, fences, overrides. */
#include "testlib.h"

#include "prompt.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

static void render_ok(struct buf *sys, struct buf *user, const char *text,
		      const struct prompt_var *vars, size_t n)
{
	buf_clear(sys);
	buf_clear(user);
	if (prompt_render_text(sys, user, text, strlen(text), "t.md", vars, n) < 0)
		fail_msg("render failed: %s", error_message());
}

static void test_placeholders_and_sections(void **state)
{
	const struct prompt_var vars[] = {
		{ "name", "error-handling" }, { "empty", "" }, { "unset", NULL }, { "body", "B" },
	};
	struct buf sys = BUF_INIT, user = BUF_INIT;

	(void)state;
	render_ok(&sys, &user, "<<<system>>>\nYou check {{name}}.\n<<<user>>>\nRule {{name}}\n"
		  "{{#empty}}\nnever\n{{/empty}}\n{{#body}}\nbody: {{body}}\n{{/body}}\nend {{unset}}.\n",
		  vars, 4);
	assert_string_equal(sys.ptr, "You check error-handling.");
	assert_string_equal(user.ptr, "Rule error-handling\nbody: B\nend .");
	/* Inline sections and nesting. */
	render_ok(&sys, &user, "<<<system>>>\ns\n<<<user>>>\na{{#body}} [{{#name}}{{name}}{{/name}}]{{/body}}b", vars, 4);
	assert_string_equal(user.ptr, "a [error-handling]b");
	buf_release(&sys);
	buf_release(&user);
}

/* A Latin-1 file's diff must not fail the rule: JSON takes only UTF-8. */
static void test_invalid_utf8_is_replaced(void **state)
{
	const struct prompt_var vars[] = { { "diff", "+caf\xe9 \xc3\xa9\n" } };
	struct buf sys = BUF_INIT, user = BUF_INIT;

	(void)state;
	render_ok(&sys, &user, "<<<system>>>\ns\xff\n<<<user>>>\n{{diff}}", vars, 1);
	assert_string_equal(sys.ptr, "s\xef\xbf\xbd");
	assert_string_equal(user.ptr, "+caf\xef\xbf\xbd \xc3\xa9");
	buf_release(&sys);
	buf_release(&user);
}

static void assert_render_error(const char *text, const char *message)
{
	const struct prompt_var vars[] = { { "known", "k" } };
	struct buf sys = BUF_INIT, user = BUF_INIT;

	assert_int_equal(prompt_render_text(&sys, &user, text, strlen(text), "prompts/x.md", vars, 1),
			 RL_EPARSE);
	assert_string_equal(error_message(), message);
	buf_release(&sys);
	buf_release(&user);
}

static void test_errors_name_the_line(void **state)
{
	(void)state;
	assert_render_error("<<<system>>>\ns\n<<<user>>>\nline\n{{unknwon}}\n",
			    "prompts/x.md:5: unknown placeholder {{unknwon}}");
	assert_render_error("<<<system>>>\ns\n<<<user>>>\n{{#known}}\nno end\n",
			    "prompts/x.md:4: unclosed section {{known}}");
	assert_render_error("<<<system>>>\n{{known\n<<<user>>>\n", "prompts/x.md:2: unclosed {{}}");
	assert_render_error("<<<user>>>\nonly\n",
			    "prompts/x.md: a template needs a <<<system>>> line and then a <<<user>>> line");
}

static void test_fence_is_longer_than_any_backtick_run(void **state)
{
	struct buf out = BUF_INIT;

	(void)state;
	prompt_fence(&out, "diff", "+code\n", 6);
	assert_string_equal(out.ptr, "```diff\n+code\n```\n");
	buf_clear(&out);
	prompt_fence(&out, NULL, "a ``` b\n````x", 13);
	assert_string_equal(out.ptr, "`````\na ``` b\n````x\n`````\n");
	buf_release(&out);
}

/* The shipped templates render with the variables revline gives them. */
static void test_shipped_templates(void **state)
{
	const struct prompt_var map[] = {
		{ "rule_id", "injection" }, { "rule_name", "No injection" }, { "severity", "major" },
		{ "category", "security" }, { "rule_body", "BODY" }, { "intent", "Branch: x" },
		{ "chunk", "part 1 of 2" }, { "files", "a.c" }, { "diff", "```diff\n+x\n```\n" },
		{ "context_files", NULL }, { "examples", NULL },
		{ "dependencies", "## Dependencies\n\nDo not review lock files line by line." },
		{ "rule_files", NULL }, { "cut", "the hunk of a.c at line 1 has 9000 lines; only the first 10 are shown" },
		{ "standards", "## AGENTS.md\n\nLog through house_logger." }, { "standards_files", "AGENTS.md" },
		{ "context", "## Where the definitions this change touches are used\n\nCALLERS" },
		{ "context_more", "MORE CALLERS" },
	};
	struct buf sys = BUF_INIT, user = BUF_INIT, shared = BUF_INIT, tail = BUF_INIT;

	(void)state;
	assert_int_equal(prompt_render(&sys, &user, "map", map, sizeof(map) / sizeof(map[0])), 0);
	/* The project's standards, named, before the change (in the part every rule shares). */
	assert_non_null(strstr(user.ptr, "instructions for its coding agents (AGENTS.md)"));
	assert_true(strstr(user.ptr, "Log through house_logger.") < strstr(user.ptr, "+x"));
	/* The dependency section, when the change has one, goes in after the diff. */
	assert_non_null(strstr(user.ptr, "## Dependencies"));
	assert_true(strstr(user.ptr, "## Dependencies") > strstr(user.ptr, "+x"));
	/* What was cut to fit the budget is said right after the diff. */
	assert_non_null(strstr(user.ptr, "cut to fit the request: the hunk of a.c at line 1"));
	assert_true(strstr(user.ptr, "cut to fit the request") > strstr(user.ptr, "+x"));
	/* Cache-friendly: the rule comes last, after the change, and nowhere before it. */
	assert_null(strstr(sys.ptr, "injection"));
	assert_non_null(strstr(user.ptr, "# Rule injection: No injection"));
	assert_true(strstr(user.ptr, "# Rule injection") > strstr(user.ptr, "## Dependencies"));
	assert_true(strstr(user.ptr, "BODY") > strstr(user.ptr, "No evidence, no finding."));
	assert_non_null(strstr(user.ptr, "understand the intent first"));
	assert_non_null(strstr(user.ptr, "What the diff is for"));
	assert_non_null(strstr(user.ptr, "code_examined"));
	assert_non_null(strstr(user.ptr, "No evidence, no finding."));
	assert_non_null(strstr(user.ptr, "This is part 1 of 2 of the change"));
	assert_null(strstr(user.ptr, "Context files"));
	assert_null(strstr(user.ptr, "{{"));
	/* Kept apart, the shared part holds nothing of the rule, and the two make the whole. */
	buf_clear(&sys);
	assert_int_equal(prompt_render_parts(&sys, &shared, &tail, "map", map, sizeof(map) / sizeof(map[0])), 0);
	assert_null(strstr(shared.ptr, "injection"));
	assert_null(strstr(shared.ptr, "BODY"));
	assert_non_null(strstr(shared.ptr, "Log through house_logger."));
	/* The context pack is shared too: after the change, before the rule. */
	assert_non_null(strstr(shared.ptr, "# Context from the repository"));
	assert_true(strstr(shared.ptr, "CALLERS") > strstr(shared.ptr, "+x"));
	assert_null(strstr(tail.ptr, "\nCALLERS"));
	/* More for a rule that asks for it: in its own part, after the rule. */
	assert_non_null(strstr(tail.ptr, "MORE CALLERS"));
	assert_null(strstr(shared.ptr, "MORE CALLERS"));
	assert_non_null(strstr(tail.ptr, "BODY"));
	assert_int_equal(strncmp(user.ptr, shared.ptr, shared.len), 0);
	assert_string_equal(user.ptr + shared.len + 2, tail.ptr);
	buf_release(&sys);
	buf_release(&user);
	buf_release(&shared);
	buf_release(&tail);
}

static void test_user_override(void **state)
{
	char *dir = test_tmpdir("prompts");
	char *xdg;
	const struct prompt_var vars[] = { { "rule_id", "r" } };
	struct buf sys = BUF_INIT, user = BUF_INIT;

	(void)state;
	test_write_str(dir, "revline/prompts/map.md", "<<<system>>>\nmine\n<<<user>>>\nrule {{rule_id}}\n");
	xdg = getenv("XDG_CONFIG_HOME") ? strdup(getenv("XDG_CONFIG_HOME")) : NULL;
	setenv("XDG_CONFIG_HOME", dir, 1);
	assert_int_equal(prompt_render(&sys, &user, "map", vars, 1), 0);
	assert_string_equal(sys.ptr, "mine");
	assert_string_equal(user.ptr, "rule r");
	if (xdg)
		setenv("XDG_CONFIG_HOME", xdg, 1);
	else
		unsetenv("XDG_CONFIG_HOME");
	free(xdg);
	buf_release(&sys);
	buf_release(&user);
	test_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_placeholders_and_sections),
		cmocka_unit_test(test_errors_name_the_line),
		cmocka_unit_test(test_invalid_utf8_is_replaced),
		cmocka_unit_test(test_fence_is_longer_than_any_backtick_run),
		cmocka_unit_test(test_shipped_templates),
		cmocka_unit_test(test_user_override),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
