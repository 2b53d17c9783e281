#ifndef REVLINE_STORE_MIGRATE_H
#define REVLINE_STORE_MIGRATE_H

#include <stdint.h>

#include "buf.h"

/*
 * `revline db migrate`: every row of one store (the source, a local SQLite
 * file as a rule) copied into another (the target, a team's PostgreSQL
 * database), both opened with store_open and so at the same schema
 * version.
 *
 * Rows are copied by column name, the columns the source's row has that
 * the target's table has too; ids are the target's own, and each
 * reference is rewritten through the map the target keeps of what was
 * copied (migrated_rows: the source's identity, the table, the source's
 * id, the target's). A repository already in the target (the same path)
 * is the same row; the answer cache and the refusals are copied by their
 * keys, a row that is there already kept. A check still running in the
 * source, and the rows that depend on it, are left for a later run.
 *
 * The copy goes in transactions of a few hundred rows, each with the
 * map's entries for its rows, so that a copy stopped anywhere (killed, the
 * server gone, a permission refused) leaves the target whole, and running
 * it again copies only what is missing: a second run copies nothing.
 */

struct store;

/* One table's figures, when it is done. */
struct store_migrate_table {
	const char *name;
	uint64_t copied;        /* rows written to the target by this run */
	uint64_t present;       /* rows there already: copied before, the same repository, the same key */
	uint64_t left;          /* rows left for a later run: a check still running, or what depends on one */
};

typedef void (*store_migrate_progress)(void *arg, const struct store_migrate_table *table);

/*
 * Copy everything from source into target; progress (may be NULL) is told
 * of each table when it is done, in the order they are copied (parents
 * first). Refused, copying nothing: the same database on both sides (the
 * same file, or a row given to the target seen in the source), or a
 * table of the source's schema this revline does not know how to copy. A
 * failure names the database and the table, and what was committed stays.
 */
int store_migrate(struct store *target, struct store *source, store_migrate_progress progress, void *arg);

/* The source's identity in migrated_rows.source: "HOST:/real/path/revline.db" (a server's location without its password). */
int store_migrate_source(struct buf *out, struct store *source);

/* Each table the migration copies, in its order (NULL past the last): for the tests. */
const char *store_migrate_table_at(size_t index);

#endif
