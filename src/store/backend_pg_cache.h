#ifndef REVLINE_BACKEND_PG_CACHE_H
#define REVLINE_BACKEND_PG_CACHE_H

#include "backend_pg_lib.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The prepared statements of one PostgreSQL connection (backend_pg_cache.c), for backend_pg.c only. */
#define PG_CACHE_SIZE 64

/* A statement prepared on the connection: its SQL and parameter types, and its name. */
struct pg_prepared {
	char *sql;               /* NULL: a free place */
	uint64_t hash;           /* of the SQL and the types */
	unsigned int *types;
	int ntypes;
	uint64_t used;           /* the cache's run count when it last ran: the least recent goes */
	char name[24];
};

struct pg_cache {
	struct pg_prepared items[PG_CACHE_SIZE];
	int count;
	uint64_t runs;
	unsigned int named;      /* statements named so far: the next name's number */
	bool off;                /* the server lost one: unnamed statements from then on */
};

/* FNV-1a over data, from hash. */
uint64_t pg_hash(uint64_t hash, const void *data, size_t len);

/*
 * The prepared statement to run (sql_hash: pg_hash of the SQL), new
 * (*parse: prepare it first) or not; NULL: run it unnamed (the cache off,
 * full in a transaction, or memory short).
 */
struct pg_prepared *pg_cache_get(struct pg_cache *cache, PGconn *pg, const char *sql, uint64_t sql_hash,
				 const unsigned int *types, int n, bool *parse);
/* One the server did not take (its Parse failed): its place is free again. */
void pg_cache_drop(struct pg_cache *cache, struct pg_prepared *p);
/* Forget them all without a word to the server (it keeps them until DEALLOCATE or the connection closes). */
void pg_cache_forget(struct pg_cache *cache);

#endif
