/* Where the store is: a file or PostgreSQL, told as libpq tells them; passwords never shown. */
#include "testlib.h"
#include "testlib/pg.h"

#include "status.h"
#include "store.h"
#include "store_location.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int reset(void **state)
{
	(void)state;
	unsetenv("REVLINE_DB");
	error_clear();
	return 0;
}

static void assert_display(const char *in, const char *want)
{
	struct buf b = BUF_INIT;

	assert_int_equal(store_location_display(&b, in), 0);
	assert_non_null(b.ptr);
	if (strcmp(b.ptr, want))
		fail_msg("display of [%s]: [%s], expected [%s]", in, b.ptr, want);
	buf_release(&b);
}

static void test_kinds(void **state)
{
	static const char *const files[] = {
		"/home/me/.local/share/revline/revline.db", "revline.db", ":memory:", "~/x.db",
		"postgresql:", "postgresql:/x", "POSTGRESQL://db/x", "postgres:/db", "./postgres//x", " postgresql://x",
	};
	static const char *const servers[] = {
		"postgresql://", "postgres://", "postgresql://db/revline", "postgres://u@db:5433/x?sslmode=require",
		"host=db dbname=revline", "dbname=x", "=", "/tmp/a=b.db", "service=team",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(*files); i++)
		if (store_location_kind(files[i]) != STORE_LOCATION_FILE)
			fail_msg("[%s] taken for PostgreSQL", files[i]);
	for (i = 0; i < sizeof(servers) / sizeof(*servers); i++)
		if (store_location_kind(servers[i]) != STORE_LOCATION_POSTGRES)
			fail_msg("[%s] taken for a file", servers[i]);
	assert_int_equal(store_location_kind(NULL), STORE_LOCATION_FILE);
	/* A file path is shown as it is. */
	assert_display("/tmp/my password.db", "/tmp/my password.db");
}

static void test_uri_passwords(void **state)
{
	(void)state;
	assert_display("postgres://alice@db/revline", "postgres://alice@db/revline");
	assert_display("postgresql://alice:s3cret@db.example.com:5432/revline?sslmode=require",
		       "postgresql://alice:***@db.example.com:5432/revline?sslmode=require");
	assert_display("postgresql://:s3cret@db/x", "postgresql://:***@db/x");
	assert_display("postgresql://alice:@db/x", "postgresql://alice:@db/x");
	/* Percent-encoded, or an '@' left unencoded: everything up to the last '@' of the authority. */
	assert_display("postgresql://alice:p%40ss%3Aw0rd@db/x", "postgresql://alice:***@db/x");
	assert_display("postgresql://alice:p@ss@w0rd@db/x", "postgresql://alice:***@db/x");
	assert_display("postgresql://alice:s3cret@h1:5432,h2:5433/x", "postgresql://alice:***@h1:5432,h2:5433/x");
	/* A '/' or a '?' left unencoded in the password: libpq misreads it, the display hides it. */
	assert_display("postgresql://alice:s3/cret@db/x", "postgresql://alice:***@db/x");
	assert_display("postgresql://alice:s3?cret@db/x", "postgresql://alice:***@db/x");
	assert_display("postgresql://alice:1234/5678@db", "postgresql://alice:***@db");
	/* An '@' in the query is no userinfo. */
	assert_display("postgresql://db:5432/x?user=alice@corp&application_name=a@b",
		       "postgresql://db:5432/x?user=alice@corp&application_name=a@b");
	/* Parameters, any case, percent-encoded names, several, sslpassword. */
	assert_display("postgresql://db/x?password=s3cret", "postgresql://db/x?password=***");
	assert_display("postgresql://db/x?sslmode=require&password=s3cret&connect_timeout=5",
		       "postgresql://db/x?sslmode=require&password=***&connect_timeout=5");
	assert_display("postgresql://db/x?pass%77ord=s3cret", "postgresql://db/x?pass%77ord=***");
	assert_display("postgresql://db/x?%70%61%73%73%77%6F%72%64=s3cret", "postgresql://db/x?%70%61%73%73%77%6F%72%64=***");
	assert_display("postgresql://db/x?PASSWORD=s3cret", "postgresql://db/x?PASSWORD=***");
	assert_display("postgresql://db/x?sslpassword=k3y&password=s3cret", "postgresql://db/x?sslpassword=***&password=***");
	assert_display("postgresql://db?password=s3cret", "postgresql://db?password=***");
	assert_display("postgresql://db/x?password=", "postgresql://db/x?password=");
	assert_display("postgresql://db/x?password", "postgresql://db/x?password");
	/* What libpq would read as a password wherever its parser puts the query. */
	assert_display("postgresql://u@h?password=s3cret@x/db", "postgresql://u@h?password=***");
	assert_display("postgresql://u?a@h?password=s3cret", "postgresql://u?a@h?password=***");
	assert_display("postgresql://h?password=a:b@c/db", "postgresql://h?password=***");
	assert_display("postgresql://db/x?password=s3?cret&password=again", "postgresql://db/x?password=***&password=***");
}

static void test_keyword_passwords(void **state)
{
	(void)state;
	assert_display("host=db dbname=revline", "host=db dbname=revline");
	assert_display("host=db dbname=revline password=s3cret", "host=db dbname=revline password=***");
	assert_display("password = s3cret host=db", "password = *** host=db");
	assert_display("\tpassword=s3cret\nhost=db", "\tpassword=***\nhost=db");
	assert_display("host=db password='s3 cr\\'et' user=alice", "host=db password=*** user=alice");
	assert_display("password=s3\\ cret host=db", "password=*** host=db");
	assert_display("password='' host=db", "password=*** host=db");
	assert_display("PASSWORD=s3cret sslpassword=k3y", "PASSWORD=*** sslpassword=***");
	/* A dbname that is itself a connection string (libpq can expand it). */
	assert_display("dbname=postgresql://u:s3cret@h/db host=x", "dbname=*** host=x");
	assert_display("dbname='host=h password=s3cret' port=5", "dbname=*** port=5");
	assert_display("dbname=revline", "dbname=revline");
}

static void test_malformed_keywords(void **state)
{
	(void)state;
	/* What libpq refuses to parse is hidden from where it stops. */
	assert_display("host=db password='s3cret", "host=db password=***");
	assert_display("host='db password=s3cret", "host=***");
	assert_display("host x password=s3cret", "***");
	assert_display("host=db oops password=s3cret", "host=db ***");
	assert_display("=s3cret", "***");
	assert_display("host=db =", "host=db ***");
	assert_display("password=s3cret\\", "password=***");
	assert_display("host=db \\", "host=db ***");
}

/* No input shows the password it carries: many shapes around one secret. */
static void test_hostile(void **state)
{
	static const char *const shapes[] = {
		"postgresql://u:%s@h/db", "postgresql://u:%s@@h", "postgres://u:%s@", "postgresql://x?password=%s",
		"postgresql://x/?a=b&password=%s&c", "postgresql://@@:%s@h", "password=%s", "password='%s'",
		"password = '%s' x", "a=b password=%s", "a='b' password=\"%s\"", "a=b\\ c password=%s",
		"x=\x01\x7f password=%s", "dbname='password=%s'", "postgresql://h/d?sslpassword=%s",
		"postgresql://h/d?pa%%73sword=%s", "postgresql://h/d??&&password=%s",
	};
	struct buf b = BUF_INIT;
	char *in, *big;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(shapes) / sizeof(*shapes); i++) {
		if (asprintf(&in, shapes[i], "Zq9s3cretQz") < 0)
			fail_msg("out of memory");
		buf_clear(&b);
		assert_int_equal(store_location_display(&b, in), 0);
		if (strstr(b.ptr, "s3cret"))
			fail_msg("[%s] shown as [%s]", in, b.ptr);
		free(in);
	}
	/* Long input, many parameters: linear, and still hidden. */
	big = malloc(1 << 20);
	assert_non_null(big);
	strcpy(big, "postgresql://h/d?");
	for (i = strlen(big); i + 32 < 1 << 20; i += 16)
		memcpy(big + i, "&password=s3cret", 16);
	big[i] = '\0';
	buf_clear(&b);
	assert_int_equal(store_location_display(&b, big), 0);
	assert_null(strstr(b.ptr, "s3cret"));
	free(big);
	buf_release(&b);
}

static void test_parse(void **state)
{
	struct store_location loc;

	(void)state;
	assert_int_equal(store_location_parse(&loc, "postgresql://alice:s3cret@db/revline"), 0);
	assert_int_equal(loc.kind, STORE_LOCATION_POSTGRES);
	assert_string_equal(loc.conninfo, "postgresql://alice:s3cret@db/revline");
	assert_string_equal(loc.display, "postgresql://alice:***@db/revline");
	store_location_release(&loc);
	assert_int_equal(store_location_parse(&loc, "/var/lib/revline.db"), 0);
	assert_int_equal(loc.kind, STORE_LOCATION_FILE);
	assert_string_equal(loc.conninfo, "/var/lib/revline.db");
	assert_string_equal(loc.display, "/var/lib/revline.db");
	store_location_release(&loc);
	assert_int_equal(store_location_parse(&loc, NULL), RL_EUSAGE);
	assert_null(loc.conninfo);
	store_location_release(&loc);
}

/* No server where the location points: one line naming the setting and the problem, no password, nothing created. */
static void test_store_open_unreachable(void **state)
{
	char *dir = test_tmpdir("location"), cwd[4096], *where[4], *want;
	struct store *store = (struct store *)1;
	struct stat st;
	size_t i;

	(void)state;
	/* A socket directory with no server in it: refused at once, whatever the machine runs. */
	assert_true(asprintf(&where[0], "postgresql://alice:s3cret@/revline?host=%s&port=5999", dir) > 0);
	assert_true(asprintf(&where[1], "postgres:///revline?host=%s&port=5999", dir) > 0);
	assert_true(asprintf(&where[2], "host=%s port=5999 password=s3cret", dir) > 0);
	assert_true(asprintf(&where[3], "host=%s port=5999 dbname=revline", dir) > 0);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	for (i = 0; i < sizeof(where) / sizeof(*where); i++) {
		assert_int_equal(store_open(&store, where[i]), RL_EIO);
		assert_null(store);
		if (!strstr(error_message(), "revline.db (") || !strstr(error_message(), "cannot connect") ||
		    !strstr(error_message(), "the server is down or unreachable") ||
		    !strstr(error_message(), "set revline.db to a file path"))
			fail_msg("unexpected: %s", error_message());
		assert_null(strstr(error_message(), "s3cret"));
		assert_null(strchr(error_message(), '\n'));
	}
	assert_int_not_equal(lstat("postgresql:", &st), 0);
	assert_int_not_equal(lstat("postgres:", &st), 0);
	assert_int_not_equal(lstat("revline.db", &st), 0);
	/* From the environment, it is REVLINE_DB that is named, with the display form. */
	setenv("REVLINE_DB", where[0], 1);
	assert_string_equal(store_location_setting(where[0]), "REVLINE_DB");
	assert_string_equal(store_location_setting("other"), "revline.db");
	assert_int_equal(store_open(&store, where[0]), RL_EIO);
	assert_true(asprintf(&want, "REVLINE_DB (postgresql://alice:***@/revline?host=%s&port=5999): "
			     "cannot connect: ", dir) > 0);
	if (strncmp(error_message(), want, strlen(want)))
		fail_msg("expected [%s...], got [%s]", want, error_message());
	free(want);
	assert_int_equal(chdir(cwd), 0);
	for (i = 0; i < sizeof(where) / sizeof(*where); i++)
		free(where[i]);
	test_rmtree(dir);
	free(dir);
}

/* A real server: a wrong password, a missing database, the server gone; the password never shown. */
static void test_store_open_refused_by_server(void **state)
{
	struct pg_server pg;
	struct store *store = NULL;
	char *query, *where;

	(void)state;
	if (!pg_server_available())
		skip();
	pg_server_start(&pg);
	pg_server_add_password_user(&pg, "alice", "s3cretPW");
	query = strchr(pg.url, '?');
	assert_true(asprintf(&where, "postgresql://alice:wrongPW@/revline_test%s", query) > 0);
	/* The URL's own user=revline would win over alice: drop it. */
	*strstr(where, "&user=") = '\0';
	assert_int_equal(store_open(&store, where), RL_EIO);
	if (!strstr(error_message(), "the password was refused"))
		fail_msg("unexpected: %s", error_message());
	assert_null(strstr(error_message(), "wrongPW"));
	free(where);

	assert_true(asprintf(&where, "postgresql:///no_such_db%s", query) > 0);
	assert_int_equal(store_open(&store, where), RL_EIO);
	if (!strstr(error_message(), "the database does not exist"))
		fail_msg("unexpected: %s", error_message());
	free(where);

	/* The right password opens it; the password is among the secrets no message may show. */
	assert_true(asprintf(&where, "postgresql://alice:s3cretPW@/revline_test%s", query) > 0);
	*strstr(where, "&user=") = '\0';
	if (store_open(&store, where) < 0)
		fail_msg("store_open: %s", error_message());
	assert_null(strstr(store_path(store), "s3cretPW"));
	store_close(store);
	store = NULL;

	pg_server_stop(&pg);
	assert_int_equal(store_open(&store, where), RL_EIO);
	if (!strstr(error_message(), "the server is down or unreachable"))
		fail_msg("unexpected: %s", error_message());
	assert_null(strstr(error_message(), "s3cretPW"));
	free(where);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_kinds, reset),
		cmocka_unit_test_setup(test_uri_passwords, reset),
		cmocka_unit_test_setup(test_keyword_passwords, reset),
		cmocka_unit_test_setup(test_malformed_keywords, reset),
		cmocka_unit_test_setup(test_hostile, reset),
		cmocka_unit_test_setup(test_parse, reset),
		cmocka_unit_test_setup(test_store_open_unreachable, reset),
		cmocka_unit_test_setup(test_store_open_refused_by_server, reset),
	};

	return cmocka_run_group_tests(tests, NULL, reset);
}
