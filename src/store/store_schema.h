#ifndef REVLINE_STORE_SCHEMA_H
#define REVLINE_STORE_SCHEMA_H

#include <stddef.h>

/*
 * Inside the store: the SQL that is one backend's own (store_backend.h
 * lists it). migrations[i] takes a database from schema version i to
 * i + 1.
 */
struct store_dialect {
	const char *const *migrations;
	size_t nmigrations;
	/*
	 * A schema at once, for a new database (version 0), which it takes to
	 * version create_version, the migrations after it applied next; NULL:
	 * a new database replays every migration. A backend that has one has
	 * no database older than create_version, and NULL migrations up to
	 * there.
	 */
	const char *create;
	int create_version;
	/*
	 * The feedback rows whose text matches :query, as (id, score), the
	 * best match the lowest score (store_feedback.c joins and ranks them).
	 */
	const char *feedback_match;
	/* The schema's tables by name (store_migrate.c): neither the backend's own nor full-text indexes. */
	const char *tables;
	/*
	 * The columns a row of table :tbl is written with, as (name, kind):
	 * kind 'int', 'real', 'blob' or 'text'; generated columns left out.
	 */
	const char *columns;
};

extern const struct store_dialect store_dialect_sqlite;
extern const struct store_dialect store_dialect_pg;

#endif
