/* Trusted .revline files, and what an untrusted one may set. */
#include "testlib.h"

#include "config.h"
#include "repo.h"
#include "status.h"
#include "trust.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int setup(void **state)
{
	*state = test_home_new("trust");
	return 0;
}

static int teardown(void **state)
{
	return test_home_free(*state);
}

static void test_hash(void **state)
{
	char hex[TRUST_HASH_SIZE];

	(void)state;
	assert_int_equal(trust_hash(hex, "abc", 3), 0);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	assert_int_equal(trust_hash(hex, "", 0), 0);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_record_check_revoke(void **state)
{
	const char *path = "/some/repo/.revline";
	char a[TRUST_HASH_SIZE], b[TRUST_HASH_SIZE];
	enum trust_state st;
	bool had;

	(void)state;
	trust_hash(a, "one", 3);
	trust_hash(b, "two", 3);
	assert_int_equal(trust_check(&st, path, a), 0);
	assert_int_equal(st, TRUST_NONE);
	assert_int_equal(trust_record(path, a), 0);
	assert_int_equal(trust_check(&st, path, a), 0);
	assert_int_equal(st, TRUST_TRUSTED);
	assert_int_equal(trust_check(&st, path, b), 0);
	assert_int_equal(st, TRUST_CHANGED);
	/* Another path with the same content is not trusted by this record. */
	assert_int_equal(trust_check(&st, "/other/repo/.revline", a), 0);
	assert_int_equal(st, TRUST_NONE);
	assert_int_equal(trust_revoke(&had, path), 0);
	assert_true(had);
	assert_int_equal(trust_revoke(&had, path), 0);
	assert_false(had);
	assert_int_equal(trust_check(&st, path, a), 0);
	assert_int_equal(st, TRUST_NONE);
	assert_int_equal(trust_record(path, "not-a-hash"), RL_EUSAGE);
}

static struct config *open_here(struct test_home *f, struct repo **repo)
{
	struct config *config = NULL;

	assert_int_equal(chdir(f->repo), 0);
	assert_int_equal(repo_open(repo, NULL), 0);
	assert_int_equal(config_open(&config, *repo), 0);
	return config;
}

static void test_untrusted_then_trusted(void **state)
{
	struct test_home *f = *state;
	const struct config_revline *file;
	struct repo *repo = NULL;
	struct config *config;
	char *value = NULL;
	long n;

	test_write_str(f->repo, ".revline", "[revline]\n\tbaseUrl = http://evil.example/v1\n"
		       "\ttheme = light\n\tconcurrency = 3\n[revline \"lint\"]\n\truff = touch x\n");
	test_sh_ok(f->repo, "git config revline.baseUrl http://mine.example/v1");
	config = open_here(f, &repo);
	file = config_revline(config);
	assert_non_null(file);
	assert_int_equal(file->trust, TRUST_NONE);
	assert_string_equal(file->sensitive, "revline.baseUrl, revline.lint.ruff");
	assert_null(file->unread);
	assert_int_equal(config_get(&value, config, "revline.baseUrl"), 0);
	assert_string_equal(value, "http://mine.example/v1");
	free(value);
	assert_int_equal(config_get(&value, config, "revline.lint.ruff"), RL_ENOTFOUND);
	assert_int_equal(config_get(&value, config, "revline.theme"), 0);
	assert_string_equal(value, "light");
	free(value);
	assert_int_equal(config_get_integer(&n, config, "revline.concurrency", 1, 64), 0);
	assert_int_equal(n, 3);
	/* A key that is not classified cannot be read at all. */
	assert_int_equal(config_get(&value, config, "revline.somethingNew"), RL_EUSAGE);
	assert_non_null(strstr(error_message(), "CONFIG_KEYS"));
	assert_int_equal(trust_record(file->path, file->hash), 0);
	config_free(config);

	assert_int_equal(config_open(&config, repo), 0);
	assert_int_equal(config_revline(config)->trust, TRUST_TRUSTED);
	assert_int_equal(config_get(&value, config, "revline.baseUrl"), 0);
	assert_string_equal(value, "http://evil.example/v1");
	free(value);
	assert_int_equal(config_get(&value, config, "revline.lint.ruff"), 0);
	assert_string_equal(value, "touch x");
	free(value);
	config_free(config);

	test_write_str(f->repo, ".revline", "[revline]\n\tbaseUrl = http://evil.example/v2\n");
	assert_int_equal(config_open(&config, repo), 0);
	assert_int_equal(config_revline(config)->trust, TRUST_CHANGED);
	assert_int_equal(config_get(&value, config, "revline.baseUrl"), 0);
	assert_string_equal(value, "http://mine.example/v1");
	free(value);
	config_free(config);
	repo_free(repo);
}

/* Who the user is comes from the user's own config, never from a .revline, trusted or not. */
static void test_identity_never_from_revline(void **state)
{
	struct test_home *f = *state;
	struct repo *repo = NULL;
	struct config *config;
	char *value = NULL;

	(void)state;
	unsetenv("GIT_AUTHOR_EMAIL");
	test_write_str(f->repo, ".revline", "[user]\n\temail = mallory@evil.example\n");
	test_sh_ok(f->repo, "git config --unset-all user.email; true");
	config = open_here(f, &repo);
	assert_int_equal(config_get(&value, config, "user.email"), RL_ENOTFOUND);
	assert_int_equal(trust_record(config_revline(config)->path, config_revline(config)->hash), 0);
	config_free(config);
	assert_int_equal(config_open(&config, repo), 0);
	assert_int_equal(config_revline(config)->trust, TRUST_TRUSTED);
	assert_int_equal(config_get(&value, config, "user.email"), RL_ENOTFOUND);
	test_sh_ok(f->repo, "git config user.email alice@example.com");
	config_free(config);
	assert_int_equal(config_open(&config, repo), 0);
	assert_int_equal(config_get(&value, config, "user.email"), 0);
	assert_string_equal(value, "alice@example.com");
	free(value);
	/* git's own order: the environment's author first. */
	setenv("GIT_AUTHOR_EMAIL", "bob@example.com", 1);
	assert_int_equal(config_get(&value, config, "user.email"), 0);
	assert_string_equal(value, "bob@example.com");
	free(value);
	unsetenv("GIT_AUTHOR_EMAIL");
	config_free(config);
	repo_free(repo);
}

static void test_theme_path(void **state)
{
	struct test_home *f = *state;
	struct repo *repo = NULL;
	struct config *config;
	char *value = NULL;

	test_write_str(f->repo, ".revline", "[revline]\n\ttheme = ../../etc/theme\n");
	config = open_here(f, &repo);
	assert_string_equal(config_revline(config)->sensitive, "revline.theme");
	assert_int_equal(config_get(&value, config, "revline.theme"), RL_ENOTFOUND);
	config_free(config);
	repo_free(repo);
}

static void test_not_read(void **state)
{
	struct test_home *f = *state;
	struct repo *repo = NULL;
	struct config *config;
	char *value = NULL, big[CONFIG_REVLINE_MAX + 2];

	test_sh_ok(f->repo, "printf '[revline]\\n\\tconcurrency = 3\\n' >../elsewhere && ln -s ../elsewhere .revline");
	config = open_here(f, &repo);
	assert_non_null(strstr(config_revline(config)->unread, "is a symbolic link"));
	assert_int_equal(config_get(&value, config, "revline.concurrency"), RL_ENOTFOUND);
	config_free(config);

	test_sh_ok(f->repo, "rm .revline ../elsewhere && printf '[revline]\\n\\tconcurrency = 3\\n"
		   "  [ IncludeIf \"gitdir:/\"]\\n\\tpath = /dev/zero\\n' >.revline");
	assert_int_equal(config_open(&config, repo), 0);
	assert_non_null(strstr(config_revline(config)->unread, "[include]"));
	assert_int_equal(config_get(&value, config, "revline.concurrency"), RL_ENOTFOUND);
	config_free(config);

	memset(big, '#', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	test_write_str(f->repo, ".revline", big);
	assert_int_equal(config_open(&config, repo), 0);
	assert_non_null(strstr(config_revline(config)->unread, "larger than 64 KiB"));
	config_free(config);

	test_sh_ok(f->repo, "rm .revline && mkfifo .revline");
	assert_int_equal(config_open(&config, repo), 0);
	assert_non_null(strstr(config_revline(config)->unread, "FIFO"));
	config_free(config);

	/* The .revline/ folder of rules is no file to read, and nothing to say. */
	test_sh_ok(f->repo, "rm .revline && mkdir -p .revline/rules");
	assert_int_equal(config_open(&config, repo), 0);
	assert_null(config_revline(config));
	config_free(config);
	repo_free(repo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash),
		cmocka_unit_test_setup_teardown(test_record_check_revoke, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untrusted_then_trusted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity_never_from_revline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_theme_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_read, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
