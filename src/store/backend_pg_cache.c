/*
 * The prepared statements a PostgreSQL connection keeps (backend_pg.c
 * runs them): up to PG_CACHE_SIZE, one per SQL text and parameter types,
 * named revline_N (N never reused). A new one takes a free place, else the
 * least recently run one's, deallocated first, and only outside a
 * transaction: in one, a failed DEALLOCATE would fail the transaction, so
 * the statement runs unnamed instead.
 */
#include "backend_pg_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t pg_hash(uint64_t hash, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < len; i++)
		hash = (hash ^ p[i]) * 1099511628211ULL;
	return hash;
}

void pg_cache_drop(struct pg_cache *cache, struct pg_prepared *p)
{
	free(p->sql);
	free(p->types);
	memset(p, 0, sizeof(*p));
	cache->count--;
}

/* Forget them all without a word to the server (it keeps them until the connection closes). */
void pg_cache_forget(struct pg_cache *cache)
{
	struct pg_prepared *p;

	for (p = cache->items; p < cache->items + PG_CACHE_SIZE; p++)
		if (p->sql)
			pg_cache_drop(cache, p);
}

/* The statement prepared with this SQL and these types, or NULL. */
static struct pg_prepared *cache_find(struct pg_cache *cache, const char *sql, uint64_t hash,
				      const unsigned int *types, int n)
{
	struct pg_prepared *p;

	for (p = cache->items; p < cache->items + PG_CACHE_SIZE; p++)
		if (p->sql && p->hash == hash && p->ntypes == n &&
		    (!n || !memcmp(p->types, types, (size_t)n * sizeof(*types))) && !strcmp(p->sql, sql))
			return p;
	return NULL;
}

/* A place for a new statement: a free one, else the least recently run one's, deallocated; NULL in a transaction. */
static struct pg_prepared *cache_place(struct pg_cache *cache, PGconn *pg)
{
	struct pg_prepared *p, *oldest = cache->items;
	char sql[64];

	for (p = cache->items; p < cache->items + PG_CACHE_SIZE; p++) {
		if (!p->sql)
			return p;
		if (p->used < oldest->used)
			oldest = p;
	}
	if (libpq.transactionStatus(pg) != PQTRANS_IDLE)
		return NULL;
	/* Its name is never used again: one the server no longer had is as good as gone. */
	snprintf(sql, sizeof(sql), "DEALLOCATE %s", oldest->name);
	libpq.clear(libpq.exec(pg, sql));
	pg_cache_drop(cache, oldest);
	return oldest;
}

/* A new statement in the cache, named, to be prepared as it first runs; NULL when there is no place or memory. */
static struct pg_prepared *cache_add(struct pg_cache *cache, PGconn *pg, const char *sql, uint64_t hash,
				     const unsigned int *types, int n)
{
	struct pg_prepared *p = cache_place(cache, pg);

	if (!p || !(p->sql = strdup(sql)))
		return NULL;
	if (!(p->types = malloc((size_t)(n ? n : 1) * sizeof(*types)))) {
		free(p->sql);
		p->sql = NULL;
		return NULL;
	}
	if (n)
		memcpy(p->types, types, (size_t)n * sizeof(*types));
	p->ntypes = n;
	p->hash = hash;
	snprintf(p->name, sizeof(p->name), "revline_%u", ++cache->named);
	cache->count++;
	return p;
}

/* The prepared statement to run, new (*parse: prepare it first) or not; NULL: run it unnamed. */
struct pg_prepared *pg_cache_get(struct pg_cache *cache, PGconn *pg, const char *sql, uint64_t sql_hash,
				 const unsigned int *types, int n, bool *parse)
{
	uint64_t hash = pg_hash(sql_hash, types, (size_t)n * sizeof(*types));
	struct pg_prepared *p;

	*parse = false;
	if (cache->off)
		return NULL;
	if (!(p = cache_find(cache, sql, hash, types, n))) {
		if (!(p = cache_add(cache, pg, sql, hash, types, n)))
			return NULL;
		*parse = true;
	}
	p->used = ++cache->runs;
	return p;
}
