/*
 * The context pack (pack.h) of changes in real git repositories made here,
 * over both sides' real indexes (universal-ctags, a real store): the stale
 * callers of a definition whose signature changed, nearest first and tests
 * last, never the lines the diff shows; a definition that is gone; the
 * whole function around a hunk; the definitions the changed lines use; a
 * part's text ranked and cut to its budget, saying what was left out.
 */
#include "testlib.h"
#include "testlib/store.h"

#include "clock.h"
#include "diff.h"
#include "index.h"
#include "pack.h"
#include "repo.h"
#include "status.h"
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dir, *db_path;
static struct store *store;
static struct repo *repo;

static const char auth_py[] =
	"import hmac\n"
	"\n"
	"from tokens import make_token\n"
	"\n"
	"\n"
	"def verify(user, token):\n"
	"    \"\"\"True when the token is the user's.\"\"\"\n"
	"    expected = make_token(user)\n"
	"    return hmac.compare_digest(expected, token)\n"
	"\n"
	"\n"
	"def legacy_check(user):\n"
	"    return user is not None\n";

static const char tokens_py[] =
	"import hashlib\n"
	"\n"
	"\n"
	"def make_token(user, salt=b\"revline\"):\n"
	"    \"\"\"A token for the user, from its name and a salt.\"\"\"\n"
	"    return hashlib.sha256(salt + user.encode()).hexdigest()\n";

static const char api_py[] =
	"from auth import verify, legacy_check\n"
	"\n"
	"\n"
	"def login(request):\n"
	"    user = request.user\n"
	"    if not verify(user, request.token):\n"
	"        return 401\n"
	"    return 200\n"
	"\n"
	"\n"
	"def old(request):\n"
	"    return legacy_check(request.user)\n";

static const char test_py[] =
	"from auth import verify\n"
	"\n"
	"\n"
	"def test_verify():\n"
	"    assert not verify(\"ana\", \"x\")\n";

static int setup(void **state)
{
	char *tmp;

	(void)state;
	dir = test_repo_new("pack");
	test_write_str(dir, "app/auth.py", auth_py);
	test_write_str(dir, "app/tokens.py", tokens_py);
	test_write_str(dir, "web/api.py", api_py);
	test_write_str(dir, "tests/test_auth.py", test_py);
	test_commit(dir, "first");
	tmp = test_tmpdir("pack-db");
	db_path = test_store_location(tmp, "revline.db");
	free(tmp);
	store = test_store_open(db_path);
	if (repo_open(&repo, dir) < 0)
		fail_msg("repo_open: %s", error_message());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	repo_free(repo);
	store_close(store);
	test_rmtree(dir);
	free(dir);
	free(db_path);
	return 0;
}

struct sides {
	struct target target;
	struct diff *diff;
	struct index *now, *before;
};

static struct index *side(struct sides *s, bool old)
{
	struct index_options opts = { .repo = repo, .target = &s->target, .old_side = old, .store = store };

	return test_index_build(&opts);
}

/* The working tree against HEAD, both sides indexed. */
static void sides_open(struct sides *s)
{
	struct target_spec spec = { .base = "HEAD" };

	memset(s, 0, sizeof(*s));
	if (repo_resolve(&s->target, repo, &spec) < 0 || repo_diff(&s->diff, repo, &s->target) < 0)
		fail_msg("diff: %s", error_message());
	s->now = side(s, false);
	s->before = side(s, true);
}

static void sides_close(struct sides *s)
{
	index_free(s->now);
	index_free(s->before);
	diff_free(s->diff);
	target_release(&s->target);
}

static const struct pack_item *find(const struct pack *p, enum pack_kind kind, const char *symbol, const char *path)
{
	size_t i;

	for (i = 0; i < p->count; i++)
		if (p->items[i].kind == kind && !strcmp(p->items[i].symbol, symbol) && !strcmp(p->items[i].path, path))
			return &p->items[i];
	return NULL;
}

static size_t file_index(const struct diff *diff, const char *path)
{
	size_t i;

	for (i = 0; i < diff->nfiles; i++)
		if (!strcmp(diff->files[i].path, path))
			return i;
	fail_msg("%s is not in the diff", path);
	return 0;
}

/* verify() takes a third parameter: its callers in web/ and tests/ are stale and come first. */
static void test_signature_callers(void **state)
{
	struct sides s;
	struct pack pack;
	struct pack_use use;
	struct buf text = BUF_INIT;
	const struct pack_item *api, *test, *tokens;
	size_t auth;
	char *changed;

	(void)state;
	changed = strdup(auth_py);
	test_write_str(dir, "app/auth.py", "import hmac\n\nfrom tokens import make_token\n\n\n"
		       "def verify(user, token, now):\n"
		       "    \"\"\"True when the token is the user's, and not expired at now.\"\"\"\n"
		       "    expected = make_token(user, b\"pepper\")\n"
		       "    return hmac.compare_digest(expected, token) and now < 10\n"
		       "\n\ndef legacy_check(user):\n    return user is not None\n");
	sides_open(&s);
	assert_int_equal(pack_build(&pack, s.diff, s.now, s.before, NULL), 0);
	assert_true(pack.changed >= 1);
	api = find(&pack, PACK_CALLERS, "verify", "web/api.py");
	test = find(&pack, PACK_CALLERS, "verify", "tests/test_auth.py");
	assert_non_null(api);
	assert_non_null(test);
	assert_int_equal(api->rank, 0);
	/* The stale call site, with its line number, and the lines around it. */
	assert_non_null(strstr(api->text, "    6      if not verify(user, request.token):"));
	assert_non_null(strstr(api->text, "    4  def login(request):"));
	assert_non_null(strstr(api->text, "its signature changed"));
	/* The import of verify is a reference too; the file's other function is not shown. */
	assert_null(strstr(api->text, "legacy_check(request.user)"));
	/* Tests after the code that calls it. */
	assert_true(api->order < test->order);
	/* What the changed lines use from elsewhere: make_token's signature and docstring. */
	tokens = find(&pack, PACK_DEFINITION, "make_token", "app/tokens.py");
	assert_non_null(tokens);
	assert_non_null(strstr(tokens->text, "def make_token(user, salt=b\"revline\"):"));
	assert_non_null(strstr(tokens->text, "A token for the user"));
	/* The part of auth.py: callers first, then the rest, within the budget. */
	auth = file_index(s.diff, "app/auth.py");
	assert_int_equal(pack_text(&text, &use, &pack, &auth, 1, 100000), 0);
	assert_int_equal(use.left, 0);
	assert_true(strstr(text.ptr, "## Where the definitions this change touches are used") <
		    strstr(text.ptr, "## Definitions the changed lines use"));
	assert_non_null(strstr(text.ptr, "```python\n"));
	pack_use_release(&use);
	/* A budget for the first item only: the rest is counted and said. */
	assert_int_equal(pack_text(&text, &use, &pack, &auth, 1, api->bytes), 0);
	assert_int_equal(use.count, 1);
	assert_true(use.left >= 1);
	assert_non_null(strstr(text.ptr, "Left out for the budget"));
	pack_use_release(&use);
	/* Another part's files take nothing of it. */
	{
		size_t none = s.diff->nfiles + 7;

		assert_int_equal(pack_text(&text, &use, &pack, &none, 1, 100000), 0);
		assert_int_equal(text.len, 0);
		pack_use_release(&use);
	}
	buf_release(&text);
	pack_release(&pack);
	sides_close(&s);
	test_write_str(dir, "app/auth.py", changed);
	free(changed);
}

/* legacy_check() is removed: its callers are shown as what the change breaks. */
static void test_removed(void **state)
{
	struct sides s;
	struct pack pack;
	const struct pack_item *api;

	(void)state;
	test_write_str(dir, "app/auth.py", "import hmac\n\nfrom tokens import make_token\n\n\n"
		       "def verify(user, token):\n"
		       "    \"\"\"True when the token is the user's.\"\"\"\n"
		       "    expected = make_token(user)\n"
		       "    return hmac.compare_digest(expected, token)\n");
	sides_open(&s);
	assert_int_equal(pack_build(&pack, s.diff, s.now, s.before, NULL), 0);
	api = find(&pack, PACK_CALLERS, "legacy_check", "web/api.py");
	assert_non_null(api);
	assert_int_equal(api->rank, 0);
	assert_non_null(strstr(api->text, "it is gone or renamed"));
	assert_non_null(strstr(api->text, "return legacy_check(request.user)"));
	pack_release(&pack);
	sides_close(&s);
	test_write_str(dir, "app/auth.py", auth_py);
}

/* A line changed inside login(): the whole function, since the diff shows only some of it. */
static void test_enclosing(void **state)
{
	struct sides s;
	struct pack pack;
	const struct pack_item *login;
	char *bigger;
	size_t i;

	(void)state;
	/* login() grows long enough that its hunk does not show all of it. */
	bigger = malloc(8192);
	strcpy(bigger, "from auth import verify, legacy_check\n\n\ndef login(request):\n    user = request.user\n");
	for (i = 0; i < 20; i++)
		sprintf(bigger + strlen(bigger), "    step%zu = %zu\n", i, i);
	strcat(bigger, "    if not verify(user, request.token):\n        return 401\n    return 200\n");
	test_write_str(dir, "web/api.py", bigger);
	test_commit(dir, "a longer login");
	bigger[strlen(bigger) - strlen("    return 200\n")] = '\0';
	strcat(bigger, "    return 204\n");
	test_write_str(dir, "web/api.py", bigger);
	sides_open(&s);
	assert_int_equal(pack_build(&pack, s.diff, s.now, s.before, NULL), 0);
	login = find(&pack, PACK_ENCLOSING, "login", "web/api.py");
	assert_non_null(login);
	assert_int_equal(login->first, 4);
	assert_non_null(strstr(login->text, "    4  def login(request):"));
	assert_non_null(strstr(login->text, "step0 = 0"));
	assert_non_null(strstr(login->text, "return 204"));
	pack_release(&pack);
	sides_close(&s);
	free(bigger);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signature_callers),
		cmocka_unit_test(test_removed),
		cmocka_unit_test(test_enclosing),
	};

	test_env_private();
	return cmocka_run_group_tests(tests, setup, teardown);
}
