#ifndef REVLINE_STORE_SQL_H
#define REVLINE_STORE_SQL_H

#include <stdint.h>

#include "store.h"

struct sqlite3;
struct sqlite3_stmt;

/*
 * The SQL layer's own tools, for the files of src/store only: the rest of
 * the engine calls the typed functions of store.h and of the headers of
 * src/store named after each concern (store_signals.h, store_fixes.h,
 * store_history.h, ...) and never sees SQL: tests/structure/layers.py
 * holds it so.
 *
 * The SQLite handle, a write transaction under the store's lock (BEGIN
 * IMMEDIATE; store_end commits, or rolls back when error is set, and
 * returns the first failure), a prepared statement, an error that names
 * the database file with SQLite's message, and the clock the store uses.
 */
struct sqlite3 *store_db(struct store *store);
int store_begin(struct store *store);
int store_end(struct store *store, int error);
int store_prepare(struct store *store, struct sqlite3_stmt **out, const char *sql);
/*
 * Binding by parameter name with a sticky status: *rc keeps the first
 * failure and later binds do nothing, so a statement is checked once.
 * NULL text binds NULL.
 */
void store_bind_text(int *rc, struct sqlite3_stmt *stmt, const char *name, const char *value);
void store_bind_int(int *rc, struct sqlite3_stmt *stmt, const char *name, int64_t value);
/* An estimated cost (usage.h): NULL when negative, not known; and read back, NULL as -1. */
void store_bind_cost(int *rc, struct sqlite3_stmt *stmt, const char *name, double cost_usd);
double store_column_cost(struct sqlite3_stmt *stmt, int col);
int store_fail(struct store *store, int rc);
/*
 * Run a statement that returns no rows, once its binds' sticky status rc
 * says SQLITE_OK (else that failure), leaving it ready to run again.
 */
int store_step_done(struct store *store, struct sqlite3_stmt *stmt, int rc);
/* A text column as a new string; NULL stays NULL. */
int store_column_dup(char **out, struct sqlite3_stmt *stmt, int col);

#endif
