#ifndef REVLINE_STORE_SQL_H
#define REVLINE_STORE_SQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store.h"

/*
 * The SQL layer's own tools, for the files of src/store only: the rest of
 * the engine calls the typed functions of store.h and of the headers of
 * src/store named after each concern (store_signals.h, store_fixes.h,
 * store_history.h, ...) and never sees SQL: tests/structure/layers.py
 * holds it so.
 *
 * The statements speak to whichever backend the store was opened on
 * (store_backend.h); nothing here names one. A failure sets the message
 * (error_set), naming the database as the user wrote it, and comes back
 * as a negative status.
 */

/*
 * A write transaction under the store's lock (SQLite: BEGIN IMMEDIATE,
 * the write lock taken or waited for now; PostgreSQL: an advisory lock
 * every revline takes); store_end commits, or rolls
 * back when error is set, and returns the first failure.
 */
int store_begin(struct store *store);
int store_end(struct store *store, int error);

/* The store's lock alone, for reads that want no transaction. */
void store_lock(struct store *store);
void store_unlock(struct store *store);

/* A prepared statement, with :name parameters. */
struct store_stmt;

int store_prepare(struct store *store, struct store_stmt **out, const char *sql);
void store_finalize(struct store_stmt *stmt);
/* Whether the statement has the parameter: an UPDATE made from pieces may not. */
bool store_param_has(struct store_stmt *stmt, const char *name);

/*
 * Binding by parameter name with a sticky status: the statement keeps the
 * first failure, later binds do nothing, and the next step returns it, so
 * a statement is checked once. A parameter left unbound is NULL. NULL
 * text binds NULL; text is scrubbed of the API key (secret.h).
 */
void store_bind_text(struct store_stmt *stmt, const char *name, const char *value);
void store_bind_int(struct store_stmt *stmt, const char *name, int64_t value);
void store_bind_double(struct store_stmt *stmt, const char *name, double value);
void store_bind_null(struct store_stmt *stmt, const char *name);
/* Bytes as they are, never scrubbed (a file's own); NULL binds zero bytes, not NULL. */
void store_bind_blob(struct store_stmt *stmt, const char *name, const void *data, size_t len);
/* An estimated cost (usage.h): NULL when negative, not known. */
void store_bind_cost(struct store_stmt *stmt, const char *name, double cost_usd);

/*
 * Run the statement to its next row: STORE_ROW, STORE_DONE, or a negative
 * status with its message set (the binds' first failure, if any).
 */
#define STORE_DONE 0
#define STORE_ROW 1
int store_step(struct store_stmt *stmt);
/* Run a statement that returns no rows, leaving it ready to run again. */
int store_step_done(struct store_stmt *stmt);
/*
 * Run an INSERT ... RETURNING id: the new row's id in *id, the statement
 * ready to run again. Inserting nothing is a failure.
 */
int store_step_id(struct store_stmt *stmt, int64_t *id);
/* :author and :host, those the statement has: who writes and on which machine (store_author_load), NULL when not known. */
void store_bind_writer(struct store_stmt *stmt);

/* Ready to run again; the binds stay. */
void store_reset(struct store_stmt *stmt);
/* The rows the statement's last run inserted, changed or deleted. */
int64_t store_changes(struct store_stmt *stmt);
/* Whether the last failure was the statement's own SQL refused when it ran (a bad MATCH query). */
bool store_step_refused(struct store_stmt *stmt);

/* The current row's columns, from 0. */
int64_t store_column_int64(struct store_stmt *stmt, int col);
int store_column_int(struct store_stmt *stmt, int col);
double store_column_double(struct store_stmt *stmt, int col);
bool store_column_is_null(struct store_stmt *stmt, int col);
/* Borrowed until the next step; NULL for NULL (or memory running out: see store_column_dup). */
const char *store_column_text(struct store_stmt *stmt, int col);
/* Borrowed bytes and their length; NULL (length 0) for NULL or no bytes. */
const void *store_column_blob(struct store_stmt *stmt, int col, size_t *len);
/* A text column as a new string; NULL stays NULL. */
int store_column_dup(char **out, struct store_stmt *stmt, int col);
/* A cost read back: NULL as -1. */
double store_column_cost(struct store_stmt *stmt, int col);
/*
 * The result's columns, once the statement has run (its first step, a row
 * or the end): how many, and each one's name (NULL past the last),
 * borrowed until the statement is reset or finalized.
 */
int store_column_count(struct store_stmt *stmt);
const char *store_column_name(struct store_stmt *stmt, int col);

/* What differs between the backends' SQL (store_schema.h). */
const struct store_dialect *store_dialect(struct store *store);

/* Counters that move when the database changes (store_history_version). */
int store_data_version(struct store *store, int64_t *data, int64_t *changes);

/*
 * A violation, over a check's rule (check_threadlines t) and its result
 * (check_results r): a result 'attention' that stands on something. It has
 * no finding at all (the model's word alone, as before findings were
 * stored), or a finding revline verified against the file (its quoted code
 * was found there) that was neither suppressed (marked false positive
 * before the check, or ignored inline) nor marked false positive since (the
 * latest finding feedback on it, or on a finding with its fingerprint: the
 * report's merged copy, a later check's). A result whose findings are all
 * unverified or all false positive is no violation: history, stats and fix
 * detection read this one definition.
 */
#define STORE_VIOLATION \
	"(r.status = 'attention' AND (NOT EXISTS (SELECT 1 FROM findings f WHERE " \
	"f.check_threadline_id = t.id) OR EXISTS (SELECT 1 FROM findings f WHERE " \
	"f.check_threadline_id = t.id AND f.verified = 1 AND f.suppressed = 0 AND " \
	"coalesce((SELECT l.kind FROM feedback l " \
	"WHERE (l.finding_id = f.id OR l.fingerprint = f.fingerprint) AND " \
	"l.kind IN ('false_positive', 'accept', 'reject') " \
	"ORDER BY l.created_at DESC, l.id DESC LIMIT 1), '') <> 'false_positive')))"

#endif
