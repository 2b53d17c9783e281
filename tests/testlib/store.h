#ifndef REVLINE_TESTLIB_STORE_H
#define REVLINE_TESTLIB_STORE_H

/*
 * The backend a store test runs on, from the environment:
 * REVLINE_TEST_DB=postgres runs it on PostgreSQL (a server of its own,
 * tests/testlib/pg.h, started at the first location asked for, one per
 * test binary, stopped at exit; a new database for each location), else
 * on SQLite files. tests/CMakeLists.txt registers each store test twice:
 * unit/NAME and unit/NAME-pg.
 *
 *	int main(void)
 *	{
 *		if (test_store_skip())
 *			return PG_SKIP;     (it printed "SKIP: why")
 *		...
 *	}
 *
 *	char *where = test_store_location(dir, "revline.db");
 *	store_open(&store, where);
 *	test_store_int(store, "SELECT count(*) FROM checks WHERE id = :id", id);
 */
#include <stdbool.h>
#include <stdint.h>

#include "testlib/pg.h"

struct store;

/* Whether the tests run on PostgreSQL (REVLINE_TEST_DB=postgres). */
bool test_store_pg(void);

/* True (having printed "SKIP: why") when PostgreSQL is wanted and no server can run here. */
bool test_store_skip(void);

/*
 * A location for a new, empty store: dir/name on SQLite; on PostgreSQL a
 * new database's URI (name and dir unused but for the database's name).
 * The caller frees it.
 */
char *test_store_location(const char *dir, const char *name);

/*
 * What the store holds, read with its own statements (store_sql.h), so on
 * either backend. The first row of sql, whose only parameter, if any, is
 * :id, for the caller to read and finalize; fails the test when there is
 * no row.
 */
struct store_stmt *test_store_row(struct store *store, const char *sql, int64_t id);
/* Its first column. */
int64_t test_store_int(struct store *store, const char *sql, int64_t id);
/* The same as a new string; NULL for NULL. */
char *test_store_text(struct store *store, const char *sql, int64_t id);
/* Run a statement that returns nothing (:id bound when it has one). */
void test_store_exec(struct store *store, const char *sql, int64_t id);

/* An expression each dialect writes its own way: TEST_SQL("json_extract(x, '$.a')", "x::json->>'a'"). */
#define TEST_SQL(sqlite, postgres) (test_store_pg() ? (postgres) : (sqlite))

/*
 * sql's first column of its first row, as text ("" for NULL, "(none)"
 * without a row), read by a store of its own opened on where (the way
 * another process would see it). The caller frees it.
 */
char *test_store_query(const char *where, const char *sql);

/* A second store on the same location: for a test that reads what another connection wrote. */
struct store *test_store_open(const char *where);

#endif
