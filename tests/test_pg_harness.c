/*
 * The PostgreSQL test harness (tests/testlib/pg.h, pg.sh): a real server
 * starts in a temporary directory, answers on its socket only, through the
 * PG* variables, its URI and its key/value string; a role with a password
 * is refused with the wrong one; and it is gone after pg_server_stop.
 */
#include "testlib.h"
#include "testlib/pg.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct pg_server pg;

static int server_up(void **state)
{
	(void)state;
	pg_server_start(&pg);
	return 0;
}

static int server_down(void **state)
{
	(void)state;
	pg_server_stop(&pg);
	return 0;
}

/* The one value of a query on conninfo, as a new string; fails the test when it cannot. */
static char *query_one(const char *conninfo, const char *sql)
{
	PGconn *conn = PQconnectdb(conninfo);
	PGresult *res;
	char *value;

	if (PQstatus(conn) != CONNECTION_OK)
		fail_msg("connect to [%s]: %s", conninfo, PQerrorMessage(conn));
	res = PQexec(conn, sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
		fail_msg("%s: %s", sql, PQerrorMessage(conn));
	value = strdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	PQfinish(conn);
	return value;
}

static void assert_query(const char *conninfo, const char *sql, const char *want)
{
	char *got = query_one(conninfo, sql);

	assert_string_equal(got, want);
	free(got);
}

static void test_select_one(void **state)
{
	char want[64];
	struct stat st;

	(void)state;
	assert_query("", "select 1", "1");
	assert_query(pg.url, "select 2", "2");
	assert_query(pg.conninfo, "select current_database()", "revline_test");
	/* Only the socket in its own directory, no TCP. */
	assert_query("", "show listen_addresses", "");
	assert_query("", "show unix_socket_directories", pg.dir);
	snprintf(want, sizeof(want), "%d", pg.port);
	assert_query("", "show port", want);
	assert_string_equal(getenv("PGHOST"), pg.dir);
	/* As root, the server's files belong to another user. */
	assert_int_equal(stat(pg.dir, &st), 0);
	if (getuid() == 0)
		assert_int_not_equal(st.st_uid, 0);
}

static void test_password(void **state)
{
	char conninfo[1024];
	PGconn *conn;

	(void)state;
	pg_server_add_password_user(&pg, "alice", "s3cret pw");
	snprintf(conninfo, sizeof(conninfo), "%s user=alice password=wrong", pg.conninfo);
	conn = PQconnectdb(conninfo);
	assert_int_equal(PQstatus(conn), CONNECTION_BAD);
	if (!strstr(PQerrorMessage(conn), "password authentication failed for user \"alice\""))
		fail_msg("wrong password: %s", PQerrorMessage(conn));
	PQfinish(conn);
	snprintf(conninfo, sizeof(conninfo), "%s user=alice", pg.conninfo);
	conn = PQconnectdb(conninfo);
	assert_int_equal(PQstatus(conn), CONNECTION_BAD);
	if (!strstr(PQerrorMessage(conn), "password"))
		fail_msg("no password: %s", PQerrorMessage(conn));
	PQfinish(conn);
	snprintf(conninfo, sizeof(conninfo), "%s user=alice password='s3cret pw'", pg.conninfo);
	assert_query(conninfo, "select current_user", "alice");
	assert_query(conninfo, "create table t (x int); insert into t values (7); select x from t", "7");
}

/* Stopped: the directory is gone and nothing answers. */
static void test_stop(void **state)
{
	struct pg_server other;
	char *dir, *conninfo;
	PGconn *conn;
	struct stat st;

	(void)state;
	pg_server_start(&other);
	dir = strdup(other.dir);
	conninfo = strdup(other.conninfo);
	assert_string_not_equal(other.dir, pg.dir);
	assert_query(conninfo, "select 3", "3");
	pg_server_stop(&other);
	assert_null(getenv("PGHOST"));
	assert_int_not_equal(stat(dir, &st), 0);
	conn = PQconnectdb(conninfo);
	assert_int_equal(PQstatus(conn), CONNECTION_BAD);
	PQfinish(conn);
	free(conninfo);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_select_one),
		cmocka_unit_test(test_password),
		cmocka_unit_test(test_stop),
	};

	if (!pg_server_available())
		return PG_SKIP;
	return cmocka_run_group_tests(tests, server_up, server_down);
}
