/* Settings: the keys revline knows, those it does not (named with where they are set), and git config text. */
#include "testlib.h"

#include "config.h"
#include "config_text.h"
#include "datadir.h"
#include "repo.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int setup(void **state)
{
	*state = test_home_new("config");
	return 0;
}

static int teardown(void **state)
{
	return test_home_free(*state);
}

static size_t line_of(const char *text, const char *key)
{
	return config_text_line(text, strlen(text), key);
}

/* The line a key is set on, read as git reads the text. */
static void test_text_line(void **state)
{
	const char *text =
		"# a comment with revline.theme = x\n"                  /* 1 */
		"[core]\n"                                              /* 2 */
		"\ttheme = not-ours\n"                                  /* 3 */
		"[revline]\n"                                           /* 4 */
		"\tconcurency = 3 ; a comment\n"                        /* 5 */
		"\tbaseUrl = \"http://a#b\" # the # is quoted\n"        /* 6 */
		"\tmodel = one \\\n"                                    /* 7 */
		"\ttheme = continued, not a key\n"                      /* 8 */
		"\tTheme = light\n"                                     /* 9 */
		"[revline \"Lint\"] ruff = a\n"                         /* 10 */
		"[revline \"lint\"]\n"                                  /* 11 */
		"\truff = b\r\n"                                        /* 12 */
		"[Revline.Old]\n"                                       /* 13 */
		"\tkey\n"                                               /* 14 */
		"[revline \"we\\\"ird\"]\n"                             /* 15 */
		"\tname = x\n"                                          /* 16 */
		"\tconcurency = 4\n";                                   /* 17 */

	(void)state;
	assert_int_equal(line_of(text, "core.theme"), 3);
	assert_int_equal(line_of(text, "revline.concurency"), 5);
	assert_int_equal(line_of(text, "revline.baseurl"), 6);
	assert_int_equal(line_of(text, "revline.model"), 7);
	/* A continued value's next line is no key; the last definition is the one git takes. */
	assert_int_equal(line_of(text, "revline.theme"), 9);
	/* The subsection as written, the name after its header on the same line. */
	assert_int_equal(line_of(text, "revline.Lint.ruff"), 10);
	assert_int_equal(line_of(text, "revline.lint.ruff"), 12);
	/* The old [section.sub] form is lower case; a bool without '='. */
	assert_int_equal(line_of(text, "revline.old.key"), 14);
	assert_int_equal(line_of(text, "revline.we\"ird.name"), 16);
	assert_int_equal(line_of(text, "revline.nothere"), 0);
	assert_int_equal(line_of(text, "revline"), 0);
	/* A header git would not read hides what follows it. */
	assert_int_equal(line_of("[revline \"open\n\tx = 1\n", "revline.open.x"), 0);
	assert_int_equal(line_of("[ revline]\n\tx = 1\n", "revline.x"), 0);
	assert_int_equal(line_of("[revline \"a\"x]\n\tx = 1\n", "revline.a.x"), 0);
	/* No NUL needed at the end. */
	assert_int_equal(config_text_line("[revline]\nx=1", 14, "revline.x"), 2);
	assert_int_equal(config_text_line("[revline]\nx=1", 12, "revline.x"), 2);
	assert_int_equal(config_text_line("", 0, "revline.x"), 0);
}

/* The dotted name git refuses, with its section. */
static void test_text_dotted(void **state)
{
	char section[64], name[64];
	const char *text = "[revline]\n\tconcurrency = 3\n\tlint.flake8 = flake8 {files}\n";

	(void)state;
	assert_int_equal(config_text_dotted(section, sizeof(section), name, sizeof(name), text, strlen(text)), 3);
	assert_string_equal(section, "revline");
	assert_string_equal(name, "lint.flake8");
	text = "[revline \"x\"] a.b = 1\n";
	assert_int_equal(config_text_dotted(section, sizeof(section), name, sizeof(name), text, strlen(text)), 1);
	assert_string_equal(section, "revline.x");
	assert_string_equal(name, "a.b");
	text = "[revline]\n\tmodel = a.b.c\n# lint.flake8 = x\n";
	assert_int_equal(config_text_dotted(section, sizeof(section), name, sizeof(name), text, strlen(text)), 0);
	assert_string_equal(name, "");
	/* Cut to size, never past it. */
	text = "[revline]\nabcdefghij.klm = 1\n";
	assert_int_equal(config_text_dotted(section, 4, name, 5, text, strlen(text)), 2);
	assert_string_equal(section, "rev");
	assert_string_equal(name, "abcd");
}

static struct config *open_here(struct test_home *f, struct repo **repo)
{
	struct config *config = NULL;

	assert_int_equal(chdir(f->repo), 0);
	assert_int_equal(repo_open(repo, NULL), 0);
	assert_int_equal(config_open(&config, *repo), 0);
	return config;
}

/* Every key set that revline does not read is named with where it is set, and a guess. */
static void test_unknown(void **state)
{
	struct test_home *f = *state;
	const struct strings *unknown;
	struct repo *repo = NULL;
	struct config *config;
	struct buf want = BUF_INIT, note = BUF_INIT;
	char *value = NULL;
	size_t i;

	test_write_str(f->home, ".gitconfig", "[user]\n\tname = me\n[revline]\n\tconcurency = 3\n\tmodel = m\n");
	test_sh_ok(f->repo, "git config revline.lnt.ruff 'ruff check' && git config revline.lint 'x'");
	test_write_str(f->repo, ".revline", "[revline]\n\ttheme = light\n[revline \"Lint\"]\n\tflake8 = x\n"
		       "[lint]\n\tmypy = y\n[core]\n\teditor = vi\n[revline]\n\twarmcache = true\n");
	config = open_here(f, &repo);
	unknown = config_unknown(config);
	for (i = 0; i < unknown->count; i++)
		print_message("%s\n", unknown->items[i]);
	assert_int_equal(unknown->count, 6);
	buf_printf(&want, "revline.concurency: unknown setting; did you mean revline.concurrency? "
		   "(set in %s/.gitconfig:4)", f->home);
	assert_true(strings_has(unknown, want.ptr));
	buf_clear(&want);
	buf_printf(&want, "revline.lnt.ruff: unknown setting; did you mean revline.lint.ruff? (set in %s/.git/config:",
		   f->repo);
	for (i = 0; i < unknown->count && strncmp(unknown->items[i], want.ptr, want.len); i++)
		;
	assert_true(i < unknown->count);
	for (i = 0; i < unknown->count && !strstr(unknown->items[i], "revline.lint: unknown setting; did you mean "
						   "revline.lint.NAME, a key of [revline \"lint\"]?"); i++)
		;
	assert_true(i < unknown->count);
	/* The subsection is compared as written: [revline "Lint"] is not read as [revline "lint"]. */
	buf_clear(&want);
	buf_printf(&want, "revline.Lint.flake8: unknown setting; did you mean revline.lint.flake8? "
		   "(set in %s/.revline:4)", f->repo);
	assert_true(strings_has(unknown, want.ptr));
	assert_int_equal(config_get(&value, config, "revline.lint.flake8"), RL_ENOTFOUND);
	/* Another section of a .revline is not read; one that would be a setting under revline is guessed. */
	buf_clear(&want);
	buf_printf(&want, "lint.mypy: not read: a .revline sets only revline's keys; did you mean revline.lint.mypy? "
		   "(set in %s/.revline:6)", f->repo);
	assert_true(strings_has(unknown, want.ptr));
	buf_clear(&want);
	buf_printf(&want, "core.editor: not read: a .revline sets only revline's keys (set in %s/.revline:8)",
		   f->repo);
	assert_true(strings_has(unknown, want.ptr));
	/* Known keys in any case are not named; the user's other sections are theirs. */
	for (i = 0; i < unknown->count; i++) {
		assert_null(strstr(unknown->items[i], "warmcache"));
		assert_null(strstr(unknown->items[i], "user.name"));
		assert_null(strstr(unknown->items[i], "revline.model"));
		assert_null(strstr(unknown->items[i], "revline.theme"));
	}
	/* The note: the first, and how many more; the .revline's trust first. */
	assert_int_equal(config_revline_note(&note, config), 0);
	assert_non_null(strstr(note.ptr, unknown->items[0]));
	assert_non_null(strstr(note.ptr, "; 5 more unknown (revline doctor lists them)"));
	assert_null(strchr(note.ptr, '\n'));
	config_free(config);

	/* Nothing unknown: nothing said. */
	test_write_str(f->home, ".gitconfig", "[revline]\n\tconcurrency = 3\n");
	test_sh_ok(f->repo, "rm .revline && git config --remove-section revline && git config --remove-section revline.lnt");
	assert_int_equal(config_open(&config, repo), 0);
	assert_int_equal(config_unknown(config)->count, 0);
	assert_int_equal(config_revline_note(&note, config), 0);
	assert_int_equal(note.len, 0);
	config_free(config);
	assert_int_equal(config_unknown(NULL)->count, 0);
	buf_release(&note);
	buf_release(&want);
	repo_free(repo);
}

/* Where the value config_get takes is set; the keys under a prefix. */
static void test_where(void **state)
{
	struct test_home *f = *state;
	struct strings names = STRINGS_INIT;
	struct repo *repo = NULL;
	struct config *config;
	struct buf where = BUF_INIT, want = BUF_INIT;

	test_write_str(f->home, ".gitconfig", "[revline]\n\ttheme = light\n\tmodel = mine\n"
		       "[revline \"lint\"]\n\truff = a\n\tpylint = b\n");
	test_sh_ok(f->repo, "git config revline.Theme mono");
	test_write_str(f->repo, ".revline", "[revline]\n\n\tmodel = theirs\n[revline \"lint\"]\n\tmypy = c\n");
	config = open_here(f, &repo);
	/* The repository's config wins over the global one. */
	assert_int_equal(config_where(&where, config, "revline.theme"), 0);
	buf_printf(&want, "%s/.git/config:", f->repo);
	assert_memory_equal(where.ptr, want.ptr, want.len);
	/* An untrusted .revline's model does not count: the user's is the one taken. */
	assert_int_equal(config_where(&where, config, "revline.model"), 0);
	buf_clear(&want);
	buf_printf(&want, "%s/.gitconfig:3", f->home);
	assert_string_equal(where.ptr, want.ptr);
	assert_int_equal(config_where(&where, config, "revline.timeout"), RL_ENOTFOUND);
	assert_int_equal(config_where(&where, NULL, "revline.theme"), RL_ENOTFOUND);
	assert_int_equal(config_keys_under(&names, config, "revline.lint."), 0);
	assert_int_equal(names.count, 3);
	assert_true(strings_has(&names, "revline.lint.ruff"));
	assert_true(strings_has(&names, "revline.lint.pylint"));
	assert_true(strings_has(&names, "revline.lint.mypy"));
	strings_free(&names);
	config_free(config);
	buf_release(&want);
	buf_release(&where);
	repo_free(repo);
}

/* A .revline with a dotted name: the section that makes it right, with its line. */
static void test_dotted_revline(void **state)
{
	struct test_home *f = *state;
	struct repo *repo = NULL;
	struct config *config = NULL;
	struct buf want = BUF_INIT;

	test_write_str(f->repo, ".revline", "[revline]\n\tconcurrency = 3\n\tlint.flake8 = flake8 {files}\n");
	assert_int_equal(chdir(f->repo), 0);
	assert_int_equal(repo_open(&repo, NULL), 0);
	assert_int_equal(config_open(&config, repo), RL_ECONFIG);
	buf_printf(&want, "%s/.revline:3: 'lint.flake8' under [revline]: a name cannot have a dot; write "
		   "[revline \"lint\"] and under it flake8 = ...", f->repo);
	assert_string_equal(error_message(), want.ptr);
	/* Another refusal keeps libgit2's words, with the file. */
	test_write_str(f->repo, ".revline", "[revline\n");
	assert_int_equal(config_open(&config, repo), RL_ECONFIG);
	assert_non_null(strstr(error_message(), "/.revline: "));
	assert_null(config);
	buf_release(&want);
	repo_free(repo);
}

/* The themes there are: the user's and revline's, sorted, each once. */
static void test_datadir_names(void **state)
{
	struct test_home *f = *state;
	struct strings names = STRINGS_INIT;
	char *data = test_tmpdir("config-data");

	test_write_str(data, "themes/zeta", "");
	test_write_str(data, "themes/alpha", "");
	test_write_str(data, "themes/.hidden", "");
	test_sh_ok(data, "mkdir -p themes/folder");
	test_write_str(f->home, ".config/revline/themes/mine", "");
	test_write_str(f->home, ".config/revline/themes/alpha", "");
	setenv("REVLINE_DATADIR", data, 1);
	assert_int_equal(datadir_names(&names, "themes"), 0);
	assert_int_equal(names.count, 3);
	assert_string_equal(names.items[0], "alpha");
	assert_string_equal(names.items[1], "mine");
	assert_string_equal(names.items[2], "zeta");
	strings_free(&names);
	assert_int_equal(datadir_names(&names, "nothing-of-this-kind"), 0);
	assert_int_equal(names.count, 0);
	unsetenv("REVLINE_DATADIR");
	test_rmtree(data);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_line),
		cmocka_unit_test(test_text_dotted),
		cmocka_unit_test_setup_teardown(test_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_where, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dotted_revline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_datadir_names, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
