#ifndef REVLINE_STORE_BACKEND_H
#define REVLINE_STORE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A database the store can be kept in: one table of operations per
 * backend, one file each (backend_sqlite.c), as curl's lib/vtls has one
 * per TLS library. store.c picks the backend, holds its connection and
 * speaks to it only through these; the statements of store_sql.h wrap its
 * statements. Only the backend's file includes its library's header.
 *
 * Every operation that can fail returns 0 or a negative status and sets
 * the message itself (error_set), naming the database as `where` was
 * given to open, with what the user can do about it.
 *
 * What is each dialect's own, SQLite's (backend_sqlite.c) and PostgreSQL's
 * (backend_pg.c):
 *
 * - the schema (store_schema.c, one section per backend): SQLite's
 *   INTEGER PRIMARY KEY / AUTOINCREMENT, BLOB, REAL, json_type() CHECKs,
 *   migrated one version at a time (the table rebuilt in version 2);
 *   PostgreSQL's BIGINT identity columns, BYTEA, DOUBLE PRECISION,
 *   json_typeof() CHECKs, made at once at the latest version
 *   (store_dialect.create). The version is kept by schema_version_get/set
 *   (SQLite: PRAGMA user_version; PostgreSQL: revline_schema_version);
 * - what surrounds a migration: SQLite turns foreign keys off meanwhile
 *   and checks them after each step (migrate_begin/end/check); PostgreSQL
 *   checks them as each statement runs. Each step is a write transaction,
 *   whose lock (BEGIN IMMEDIATE; an advisory lock) keeps two clients that
 *   start at once from migrating twice;
 * - full-text retrieval of feedback examples (store_dialect.feedback_match):
 *   FTS5's MATCH and bm25(), kept in step by triggers; a generated tsvector
 *   column with a GIN index, websearch_to_tsquery and -ts_rank. Which
 *   failure means the query was refused (step_refused): SQLite's
 *   SQLITE_ERROR as the statement runs; on PostgreSQL a statement marked
 *   refusable runs under a savepoint, so that the transaction goes on;
 * - the write transaction's start: SQLite's BEGIN IMMEDIATE, waited for up
 *   to the busy timeout (WAL: setup); PostgreSQL's BEGIN and an advisory
 *   lock every revline takes, waited for up to a lock timeout, the start
 *   tried again on a serialization failure or a deadlock; and the advice
 *   an error gives;
 * - the counters behind store_history_version (data_version): SQLite's
 *   PRAGMA data_version and sqlite3_total_changes; a sequence PostgreSQL's
 *   backend advances after each write, and the rows its connection wrote;
 * - parameters are :name in the SQL: PostgreSQL's backend numbers them ($1)
 *   when it prepares and sends each value with its type; where the SQL
 *   leaves a type open and the value may be NULL (":repo IS NULL") the
 *   SQL says it (CAST(:repo AS TEXT));
 * - a statement may be prepared and stepped while another one's rows are
 *   being read (a violation's files, store_violations.c): PostgreSQL's
 *   backend fetches each result whole first;
 * - the catalogue the copy of `revline db migrate` reads (store_migrate.c;
 *   store_dialect.tables and .columns): sqlite_master without FTS5's
 *   virtual table and its shadow tables, pragma_table_info's declared
 *   types; information_schema's base tables and columns, the generated
 *   one (feedback.search) left out;
 * - identifiers a dialect reserves are quoted ("window" of signal_fixes);
 *   a subquery in FROM has an alias; an ON CONFLICT update names its
 *   table's columns (repos.name).
 *
 * Portable already: INSERT ... ON CONFLICT DO UPDATE instead of INSERT OR
 * REPLACE, RETURNING id instead of the last rowid, CASE instead of boolean
 * results and sums of booleans, coalesce(x, '') <> 'y' instead of IS NOT,
 * JSON read in C instead of json_extract() and json_group_array(), a
 * largest LIMIT instead of LIMIT -1, times as unix milliseconds in
 * integers.
 */

struct store_dialect;

/* One backend's connection and statement, opaque to everything but its file. */
struct store_conn;
struct store_conn_stmt;

/* A step's outcome: a row, the end, or a negative status. */
#define STORE_BACKEND_DONE 0
#define STORE_BACKEND_ROW 1

struct store_backend {
	const char *name;
	/* The schema and the SQL that differ (store_schema.h). */
	const struct store_dialect *dialect;

	/* Connect, making what must exist; nothing persistent changes yet. */
	int (*open)(struct store_conn **out, const char *where);
	/* Persistent settings (SQLite: the WAL journal), once the schema is known not to be newer. */
	int (*setup)(struct store_conn *conn);
	/* Before a close of a store that opened whole (SQLite: PRAGMA optimize); best effort. */
	void (*optimize)(struct store_conn *conn);
	void (*close)(struct store_conn *conn);
	int (*exec)(struct store_conn *conn, const char *sql);

	int (*begin)(struct store_conn *conn);
	int (*commit)(struct store_conn *conn);
	/* Roll back when a transaction is open; never fails. */
	void (*rollback)(struct store_conn *conn);

	int (*schema_version_get)(struct store_conn *conn, int *version);
	int (*schema_version_set)(struct store_conn *conn, int version);
	/* Around all the steps of a migration, and after each step's script, inside its transaction. */
	int (*migrate_begin)(struct store_conn *conn);
	int (*migrate_end)(struct store_conn *conn);
	int (*migrate_check)(struct store_conn *conn);

	int (*data_version)(struct store_conn *conn, int64_t *data, int64_t *changes);

	int (*prepare)(struct store_conn *conn, struct store_conn_stmt **out, const char *sql);
	void (*finalize)(struct store_conn_stmt *stmt);
	bool (*param_has)(struct store_conn_stmt *stmt, const char *name);
	int (*bind_text)(struct store_conn_stmt *stmt, const char *name, const char *value);
	int (*bind_int)(struct store_conn_stmt *stmt, const char *name, int64_t value);
	int (*bind_double)(struct store_conn_stmt *stmt, const char *name, double value);
	int (*bind_null)(struct store_conn_stmt *stmt, const char *name);
	/* Never NULL: data is valid for len bytes. */
	int (*bind_blob)(struct store_conn_stmt *stmt, const char *name, const void *data, size_t len);
	int (*step)(struct store_conn_stmt *stmt);
	void (*reset)(struct store_conn_stmt *stmt);
	/* Rows changed by the statement that last finished on the connection. */
	int64_t (*changes)(struct store_conn *conn);
	/* Whether the statement's last failure was its SQL refused as it ran. */
	bool (*step_refused)(struct store_conn_stmt *stmt);

	int64_t (*column_int64)(struct store_conn_stmt *stmt, int col);
	double (*column_double)(struct store_conn_stmt *stmt, int col);
	bool (*column_is_null)(struct store_conn_stmt *stmt, int col);
	const char *(*column_text)(struct store_conn_stmt *stmt, int col);
	const void *(*column_blob)(struct store_conn_stmt *stmt, int col, size_t *len);

	/*
	 * The columns of the statement's result once it has run (its first
	 * step, a row or the end): how many, and each one's name (borrowed
	 * until the statement is reset or finalized; NULL past the last).
	 */
	int (*column_count)(struct store_conn_stmt *stmt);
	const char *(*column_name)(struct store_conn_stmt *stmt, int col);
};

extern const struct store_backend store_backend_sqlite;
extern const struct store_backend store_backend_pg;

/*
 * The SQLite handle behind a store opened on SQLite, NULL on another
 * backend: for tests that look into the file with SQLite itself.
 */
struct sqlite3;
struct store;
struct sqlite3 *backend_sqlite_handle(struct store_conn *conn);
struct sqlite3 *store_db(struct store *store);
/* The bytes SQLite holds in this process (store_memory). */
int64_t backend_sqlite_memory(void);

#endif
