/* The backend of a store test (see store.h). */
#include "testlib.h"
#include "testlib/store.h"

#include "status.h"
#include "store.h"
#include "store_sql.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct pg_server pg;
static bool pg_started;
static int databases;

bool test_store_pg(void)
{
	const char *db = getenv("REVLINE_TEST_DB");

	return db && (!strcmp(db, "postgres") || !strcmp(db, "postgresql"));
}

bool test_store_skip(void)
{
	return test_store_pg() && !pg_server_available();
}

static void server_stop(void)
{
	if (pg_started)
		pg_server_stop(&pg);
	pg_started = false;
}

static void server_start(void)
{
	if (pg_started)
		return;
	pg_server_start(&pg);
	pg_started = true;
	atexit(server_stop);
}

/* CREATE DATABASE on the test's server. */
static void database_create(const char *name)
{
	PGconn *conn = PQconnectdb(pg.conninfo);
	PGresult *res;
	char sql[256];

	if (PQstatus(conn) != CONNECTION_OK)
		fail_msg("connect to the test server: %s", PQerrorMessage(conn));
	snprintf(sql, sizeof(sql), "CREATE DATABASE %s", name);
	res = PQexec(conn, sql);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		fail_msg("%s: %s", sql, PQerrorMessage(conn));
	PQclear(res);
	PQfinish(conn);
}

char *test_store_location(const char *dir, const char *name)
{
	char *out, db[64];
	const char *query;

	if (!test_store_pg()) {
		if (asprintf(&out, "%s/%s", dir, name) < 0)
			fail_msg("out of memory");
		return out;
	}
	server_start();
	snprintf(db, sizeof(db), "rt_%ld_%d", (long)getpid(), ++databases);
	database_create(db);
	/* pg.url is postgresql:///revline_test?host=...: the same with this database. */
	if (!(query = strchr(pg.url, '?')) || asprintf(&out, "postgresql:///%s%s", db, query) < 0)
		fail_msg("no query in %s", pg.url);
	return out;
}

struct store_stmt *test_store_row(struct store *store, const char *sql, int64_t id)
{
	struct store_stmt *stmt = NULL;
	int rc;

	if (store_prepare(store, &stmt, sql) < 0)
		fail_msg("%s: %s", sql, error_message());
	if (store_param_has(stmt, ":id"))
		store_bind_int(stmt, ":id", id);
	if ((rc = store_step(stmt)) != STORE_ROW)
		fail_msg("no row for %s (%lld): %s", sql, (long long)id, rc < 0 ? error_message() : "none");
	return stmt;
}

int64_t test_store_int(struct store *store, const char *sql, int64_t id)
{
	struct store_stmt *stmt;
	int64_t value;

	store_lock(store);
	stmt = test_store_row(store, sql, id);
	value = store_column_int64(stmt, 0);
	store_finalize(stmt);
	store_unlock(store);
	return value;
}

char *test_store_text(struct store *store, const char *sql, int64_t id)
{
	struct store_stmt *stmt;
	const char *text;
	char *value;

	store_lock(store);
	stmt = test_store_row(store, sql, id);
	text = store_column_text(stmt, 0);
	value = text ? strdup(text) : NULL;
	store_finalize(stmt);
	store_unlock(store);
	return value;
}

void test_store_exec(struct store *store, const char *sql, int64_t id)
{
	struct store_stmt *stmt = NULL;
	int rc;

	store_lock(store);
	if (store_prepare(store, &stmt, sql) < 0)
		fail_msg("%s: %s", sql, error_message());
	if (store_param_has(stmt, ":id"))
		store_bind_int(stmt, ":id", id);
	while ((rc = store_step(stmt)) == STORE_ROW)
		;
	if (rc < 0)
		fail_msg("%s: %s", sql, error_message());
	store_finalize(stmt);
	store_unlock(store);
}

struct store *test_store_open(const char *where)
{
	struct store *store = NULL;

	if (store_open(&store, where) < 0)
		fail_msg("store_open %s: %s", where, error_message());
	return store;
}

char *test_store_query(const char *where, const char *sql)
{
	struct store *store = test_store_open(where);
	struct store_stmt *stmt = NULL;
	const char *text;
	char *out = NULL;
	int rc;

	if (store_prepare(store, &stmt, sql) < 0)
		fail_msg("%s: %s", sql, error_message());
	if ((rc = store_step(stmt)) == STORE_ROW)
		out = strdup((text = store_column_text(stmt, 0)) ? text : "");
	else if (rc == STORE_DONE)
		out = strdup("(none)");
	else
		fail_msg("%s: %s", sql, error_message());
	store_finalize(stmt);
	store_close(store);
	return out;
}
