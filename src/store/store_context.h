#ifndef REVLINE_STORE_CONTEXT_H
#define REVLINE_STORE_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

struct store;
struct tag;
struct tag_list;

/*
 * The repository index's cache (src/context/index.h): what an indexer (a
 * ctags with its options and revline's reading, known by a short key)
 * found in a blob (a file's content, by its git id): the blob's record,
 * with its state and the filter of its words, and its tags. A blob is
 * recorded once per indexer and never changes; another indexer records it
 * again. Tables context_indexers, context_blobs, context_tags.
 */

/* A blob's record. */
struct store_context_blob {
	char blob[41];
	int64_t size;
	/* "tagged", or why its definitions are not known: "failed" (ctags), "binary", "large", "generated" */
	const char *state;
	const char *detail;     /* what the state says more ("generated (\"@generated\" in its first lines)"); NULL */
	size_t ntags;
	const void *words;      /* its words' filter (words.h); NULL when it has none */
	size_t words_len;
	const struct tag_list *tags;    /* for store_context_put: its tags (NULL: none) */
	int64_t indexed_at;             /* from store_context_blobs: when it was recorded or last found in use */
};

/* The indexer's row (its identity said in full), made when there is none. */
int store_context_indexer(struct store *store, const char *indexer, const char *identity);

/*
 * Records blobs and their tags, in one transaction. A blob the indexer has
 * recorded already (another process got there first) is kept as it is.
 */
int store_context_put(struct store *store, const char *indexer, const struct store_context_blob *blobs, size_t n);

/*
 * What the indexer recorded of these blobs (those it has not are left
 * out), one call each, its strings and words borrowed for the call; the
 * blobs are asked about a few hundred at a time. A callback's negative
 * return stops the reading and is returned; a callback may not use the
 * store.
 */
typedef int store_context_blob_fn(void *ctx, const struct store_context_blob *blob);
int store_context_blobs(struct store *store, const char *indexer, const char *const *blobs, size_t n,
			store_context_blob_fn *fn, void *ctx);

/* Their tags, a blob's in the order ctags gave them, each borrowed for its call. */
typedef int store_context_tag_fn(void *ctx, const char *blob, const struct tag *tag);
int store_context_tags(struct store *store, const char *indexer, const char *const *blobs, size_t n,
		       store_context_tag_fn *fn, void *ctx);

/*
 * The cache is kept bounded: a blob found in use has its time renewed
 * (store_context_touch, asked only for those whose time is old, so a check
 * writes little), and store_context_prune removes, of every indexer, the
 * blobs (and their tags) not recorded or found since before_ms (ms since
 * the epoch), and the indexers left with none, saying how many blobs went.
 */
int store_context_touch(struct store *store, const char *indexer, const char *const *blobs, size_t n);
int store_context_prune(struct store *store, int64_t before_ms, int64_t *removed);

/* Every tag of that name the indexer recorded, in any blob. */
int store_context_by_name(struct store *store, const char *indexer, const char *name, store_context_tag_fn *fn,
			  void *ctx);

#endif
