#include "testlib.h"

#include <string.h>

#include "remote_url.h"
#include "status.h"

struct url_case {
	const char *url;
	const char *identity;           /* NULL: refused */
};

static const struct url_case cases[] = {
	/* One repository, however each clone reached it. */
	{ "https://github.com/org/repo.git", "github.com/org/repo" },
	{ "https://github.com/org/repo", "github.com/org/repo" },
	{ "https://github.com/org/repo/", "github.com/org/repo" },
	{ "https://GitHub.COM/org/repo.git/", "github.com/org/repo" },
	{ "git@github.com:org/repo.git", "github.com/org/repo" },
	{ "github.com:org/repo", "github.com/org/repo" },
	{ "ssh://git@github.com/org/repo.git", "github.com/org/repo" },
	{ "ssh://git@github.com:22/org/repo", "github.com/org/repo" },
	{ "git+ssh://git@github.com/org/repo", "github.com/org/repo" },
	{ "git://github.com/org/repo.git", "github.com/org/repo" },
	{ "https://github.com:443/org//repo.git", "github.com/org/repo" },
	/* Credentials never stay: a token, a password, a user. */
	{ "https://x-access-token:ghp_S3CRET@github.com/org/repo.git", "github.com/org/repo" },
	{ "https://alice:p%40ss@gitlab.example.com/group/sub/proj.git", "gitlab.example.com/group/sub/proj" },
	{ "https://alice@bitbucket.org/team/proj.git", "bitbucket.org/team/proj" },
	{ "https://u:p@host/r.git?private_token=S3CRET#frag", "host/r" },
	/* A port that is not the scheme's own says which server. */
	{ "ssh://git@git.example.com:2222/proj.git", "git.example.com:2222/proj" },
	{ "http://localhost:8080/r", "localhost:8080/r" },
	{ "https://[::1]:8443/r.git", "[::1]:8443/r" },
	{ "ssh://host/~alice/proj.git", "host/~alice/proj" },
	{ "https://host", "host" },
	/* Local remotes. */
	{ "/srv/git/proj.git", "file:/srv/git/proj" },
	{ "/srv/git/proj/", "file:/srv/git/proj" },
	{ "file:///srv/git/proj.git", "file:/srv/git/proj" },
	{ "file://localhost/srv/git/proj", "file:/srv/git/proj" },
	{ "../proj", "file:../proj" },
	{ "./a:b", "file:./a:b" },
	/* Refused. */
	{ "", NULL },
	{ "https://github.com/org/\nrepo", NULL },
	{ "https://\x1b[31m/x", NULL },
	{ "https:///path", NULL },
	{ "https://user@/path", NULL },
	{ ":path", "file::path" },
};

static void test_cases(void **state)
{
	struct buf out = BUF_INIT;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = remote_url_normalize(&out, cases[i].url);

		if (!cases[i].identity) {
			if (rc != RL_EPARSE)
				fail_msg("%s: accepted as %s", cases[i].url, out.ptr);
			/* The message never repeats the URL, which may hold a token. */
			assert_null(strstr(error_message(), "github"));
			continue;
		}
		if (rc < 0)
			fail_msg("%s: refused: %s", cases[i].url, error_message());
		if (strcmp(out.ptr, cases[i].identity))
			fail_msg("%s: %s, not %s", cases[i].url, out.ptr, cases[i].identity);
		assert_null(strstr(out.ptr, "S3CRET"));
		assert_null(strstr(out.ptr, "@"));
	}
	buf_release(&out);
}

static void test_too_long(void **state)
{
	struct buf out = BUF_INIT;
	char url[REMOTE_URL_MAX + 2];

	(void)state;
	memset(url, 'a', sizeof(url) - 1);
	url[sizeof(url) - 1] = '\0';
	assert_int_equal(remote_url_normalize(&out, url), RL_EPARSE);
	url[REMOTE_URL_MAX] = '\0';
	assert_int_equal(remote_url_normalize(&out, url), 0);
	buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_too_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
