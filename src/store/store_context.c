/* The repository index's cache: context_indexers, context_blobs, context_tags. */
#include "store_context.h"
#include "buf.h"
#include "clock.h"
#include "status.h"
#include "store_sql.h"
#include "tags.h"

#include <stdio.h>
#include <string.h>

#define CHUNK 200               /* blobs asked about in one statement */
#define ROWS 8                  /* tags written in one statement (a round trip on PostgreSQL; binding by name costs with more) */
#define TAG_COLUMNS "seq, name, kind, line, end_line, scope, signature, language, flags"

int store_context_indexer(struct store *store, const char *indexer, const char *identity)
{
	struct store_stmt *stmt = NULL;
	int error;

	if ((error = store_prepare(store, &stmt, "INSERT INTO context_indexers (id, identity, created_at) "
				   "VALUES (:id, :identity, :now) ON CONFLICT (id) DO NOTHING")) < 0)
		return error;
	store_bind_text(stmt, ":id", indexer);
	store_bind_text(stmt, ":identity", identity);
	store_bind_int(stmt, ":now", clock_wall_ms());
	error = store_step_done(stmt);
	store_finalize(stmt);
	return error;
}

/* --- writing ------------------------------------------------------------------ */

/* INSERT ... VALUES for rows tags at once, each row's parameters numbered. */
static int tags_sql(struct buf *sql, size_t rows)
{
	size_t i;

	buf_puts(sql, "INSERT INTO context_tags (indexer, blob, " TAG_COLUMNS ") VALUES ");
	for (i = 0; i < rows; i++)
		buf_printf(sql, "%s(:indexer, :blob, :s%zu, :n%zu, :k%zu, :l%zu, :e%zu, :c%zu, :g%zu, :a%zu, :f%zu)",
			   i ? ", " : "", i, i, i, i, i, i, i, i, i);
	return sql->ptr ? 0 : error_nomem();
}

static void tag_bind(struct store_stmt *stmt, size_t row, size_t seq, const struct tag *t)
{
	char name[16];

#define BIND(letter) (snprintf(name, sizeof(name), ":%c%zu", letter, row), name)
	store_bind_int(stmt, BIND('s'), (int64_t)seq);
	store_bind_text(stmt, BIND('n'), t->name);
	store_bind_text(stmt, BIND('k'), t->kind);
	store_bind_int(stmt, BIND('l'), t->line);
	if (t->end)
		store_bind_int(stmt, BIND('e'), t->end);
	else
		store_bind_null(stmt, BIND('e'));
	store_bind_text(stmt, BIND('c'), t->scope);
	store_bind_text(stmt, BIND('g'), t->signature);
	store_bind_text(stmt, BIND('a'), t->language);
	store_bind_int(stmt, BIND('f'), t->flags);
#undef BIND
}

struct writer {
	struct store_stmt *blob, *many, *one;
};

static int writer_prepare(struct writer *w, struct store *store, const char *indexer)
{
	struct buf many = BUF_INIT, one = BUF_INIT;
	int error;

	if ((error = store_prepare(store, &w->blob, "INSERT INTO context_blobs (indexer, blob, size, state, detail, "
				   "tags, words, indexed_at) VALUES (:indexer, :blob, :size, :state, :detail, :tags, "
				   ":words, :now) ON CONFLICT (indexer, blob) DO NOTHING")) < 0 ||
	    (error = tags_sql(&many, ROWS)) < 0 || (error = tags_sql(&one, 1)) < 0 ||
	    (error = store_prepare(store, &w->many, many.ptr)) < 0 || (error = store_prepare(store, &w->one, one.ptr)) < 0)
		goto done;
	store_bind_text(w->blob, ":indexer", indexer);
	store_bind_text(w->many, ":indexer", indexer);
	store_bind_text(w->one, ":indexer", indexer);
done:
	buf_release(&many);
	buf_release(&one);
	return error;
}

static int tags_put(struct writer *w, const char *blob, const struct tag_list *tags)
{
	size_t i = 0, k;
	int error = 0;

	store_bind_text(w->many, ":blob", blob);
	store_bind_text(w->one, ":blob", blob);
	for (; !error && tags && i + ROWS <= tags->count; i += ROWS) {
		for (k = 0; k < ROWS; k++)
			tag_bind(w->many, k, i + k, &tags->items[i + k]);
		error = store_step_done(w->many);
	}
	for (; !error && tags && i < tags->count; i++) {
		tag_bind(w->one, 0, i, &tags->items[i]);
		error = store_step_done(w->one);
	}
	return error;
}

static int blob_put(struct writer *w, const struct store_context_blob *b)
{
	int error;

	store_bind_text(w->blob, ":blob", b->blob);
	store_bind_int(w->blob, ":size", b->size);
	store_bind_text(w->blob, ":state", b->state);
	store_bind_text(w->blob, ":detail", b->detail);
	store_bind_int(w->blob, ":tags", b->tags ? (int64_t)b->tags->count : 0);
	if (b->words)
		store_bind_blob(w->blob, ":words", b->words, b->words_len);
	else
		store_bind_null(w->blob, ":words");
	store_bind_int(w->blob, ":now", clock_wall_ms());
	if ((error = store_step_done(w->blob)) < 0)
		return error;
	/* Recorded already, by another process: its tags are there too. */
	return store_changes(w->blob) ? tags_put(w, b->blob, b->tags) : 0;
}

int store_context_put(struct store *store, const char *indexer, const struct store_context_blob *blobs, size_t n)
{
	struct writer w = { NULL, NULL, NULL };
	size_t i;
	int error;

	if (!n)
		return 0;
	if ((error = store_begin(store)) < 0)
		return error;
	error = writer_prepare(&w, store, indexer);
	for (i = 0; i < n && !error; i++)
		error = blob_put(&w, &blobs[i]);
	store_finalize(w.blob);
	store_finalize(w.many);
	store_finalize(w.one);
	return store_end(store, error);
}

/* --- reading ------------------------------------------------------------------ */

/* "SELECT ... WHERE indexer = :indexer AND blob IN (:b0, ..., :bN)" and its tail. */
static int chunk_sql(struct buf *sql, const char *head, const char *tail)
{
	size_t i;

	buf_printf(sql, "%s WHERE indexer = :indexer AND blob IN (", head);
	for (i = 0; i < CHUNK; i++)
		buf_printf(sql, "%s:b%zu", i ? ", " : "", i);
	buf_printf(sql, ")%s", tail);
	return sql->ptr ? 0 : error_nomem();
}

/* The next chunk's blobs bound; the last chunk repeats its last blob (one statement for all). */
static void chunk_bind(struct store_stmt *stmt, const char *const *blobs, size_t n, size_t at)
{
	char name[16];
	size_t i;

	store_reset(stmt);
	for (i = 0; i < CHUNK; i++) {
		snprintf(name, sizeof(name), ":b%zu", i);
		store_bind_text(stmt, name, blobs[at + i < n ? at + i : n - 1]);
	}
}

static int tag_row(struct store_stmt *stmt, int col, struct tag *t)
{
	memset(t, 0, sizeof(*t));
	t->name = (char *)store_column_text(stmt, col);
	t->kind = store_column_text(stmt, col + 1);
	t->line = (uint32_t)store_column_int64(stmt, col + 2);
	t->end = store_column_is_null(stmt, col + 3) ? 0 : (uint32_t)store_column_int64(stmt, col + 3);
	t->scope = store_column_text(stmt, col + 4);
	t->signature = store_column_text(stmt, col + 5);
	t->language = store_column_text(stmt, col + 6);
	t->flags = (unsigned)store_column_int(stmt, col + 7);
	if (!t->name || !t->kind || !t->scope || !t->signature || !t->language)
		return error_set(RL_EIO, "a stored tag lost its text");
	return 0;
}

static int blob_row(struct store_stmt *stmt, store_context_blob_fn *fn, void *ctx)
{
	struct store_context_blob b;
	const char *id = store_column_text(stmt, 0);

	memset(&b, 0, sizeof(b));
	snprintf(b.blob, sizeof(b.blob), "%s", id ? id : "");
	b.size = store_column_int64(stmt, 1);
	b.state = store_column_text(stmt, 2);
	b.detail = store_column_text(stmt, 3);
	b.ntags = (size_t)store_column_int64(stmt, 4);
	b.words = store_column_blob(stmt, 5, &b.words_len);
	b.indexed_at = store_column_int64(stmt, 6);
	if (!b.state)
		return error_set(RL_EIO, "a stored blob lost its state");
	return fn(ctx, &b);
}

/* Who takes the rows: a blob's records, or tags; neither for a write (at now, in one transaction). */
struct rows {
	store_context_blob_fn *blob;
	store_context_tag_fn *tag;
	void *ctx;
	int64_t now;
};

static int tags_row(struct store_stmt *stmt, store_context_tag_fn *fn, void *ctx)
{
	struct tag t;
	int error;

	if ((error = tag_row(stmt, 1, &t)) < 0)
		return error;
	return fn(ctx, store_column_text(stmt, 0), &t);
}

/* Run a chunked statement over every blob; row handles each row. */
static int chunks_run(struct store *store, const char *indexer, const char *const *blobs, size_t n,
		      const char *head, const char *tail, const struct rows *to)
{
	struct store_stmt *stmt = NULL;
	struct buf sql = BUF_INIT;
	size_t at;
	int error, rc = 0;

	if (!n)
		return 0;
	if ((error = chunk_sql(&sql, head, tail)) < 0 || (error = store_prepare(store, &stmt, sql.ptr)) < 0)
		goto done;
	store_bind_text(stmt, ":indexer", indexer);
	if (to->now && (error = store_begin(store)) < 0)
		goto done;
	if (!to->now)
		store_lock(store);
	for (at = 0; at < n && !error; at += CHUNK) {
		chunk_bind(stmt, blobs, n, at);
		if (to->now)
			store_bind_int(stmt, ":now", to->now);
		while (!error && (rc = store_step(stmt)) == STORE_ROW)
			error = to->tag ? tags_row(stmt, to->tag, to->ctx) : blob_row(stmt, to->blob, to->ctx);
		if (!error && rc < 0)
			error = rc;
	}
	if (to->now)
		error = store_end(store, error);
	else
		store_unlock(store);
done:
	store_finalize(stmt);
	buf_release(&sql);
	return error;
}

int store_context_blobs(struct store *store, const char *indexer, const char *const *blobs, size_t n,
			store_context_blob_fn *fn, void *ctx)
{
	struct rows to = { fn, NULL, ctx, 0 };

	return chunks_run(store, indexer, blobs, n, "SELECT blob, size, state, detail, tags, words, indexed_at "
			  "FROM context_blobs", "", &to);
}

int store_context_tags(struct store *store, const char *indexer, const char *const *blobs, size_t n,
		       store_context_tag_fn *fn, void *ctx)
{
	struct rows to = { NULL, fn, ctx, 0 };

	return chunks_run(store, indexer, blobs, n, "SELECT blob, name, kind, line, end_line, scope, signature, "
			  "language, flags FROM context_tags", " ORDER BY blob, seq", &to);
}

int store_context_by_name(struct store *store, const char *indexer, const char *name, store_context_tag_fn *fn,
			  void *ctx)
{
	struct store_stmt *stmt = NULL;
	int error, rc;

	if ((error = store_prepare(store, &stmt, "SELECT blob, name, kind, line, end_line, scope, signature, language, "
				   "flags FROM context_tags WHERE indexer = :indexer AND name = :name "
				   "ORDER BY blob, seq")) < 0)
		return error;
	store_bind_text(stmt, ":indexer", indexer);
	store_bind_text(stmt, ":name", name);
	store_lock(store);
	while (!error && (rc = store_step(stmt)) == STORE_ROW)
		error = tags_row(stmt, fn, ctx);
	if (!error && rc < 0)
		error = rc;
	store_unlock(store);
	store_finalize(stmt);
	return error;
}

/* --- keeping it bounded --------------------------------------------------------------- */

int store_context_touch(struct store *store, const char *indexer, const char *const *blobs, size_t n)
{
	struct rows to = { NULL, NULL, NULL, clock_wall_ms() };

	return chunks_run(store, indexer, blobs, n, "UPDATE context_blobs SET indexed_at = :now", "", &to);
}

int store_context_prune(struct store *store, int64_t before_ms, int64_t *removed)
{
	struct store_stmt *blobs = NULL, *indexers = NULL;
	int error;

	*removed = 0;
	if ((error = store_prepare(store, &blobs, "DELETE FROM context_blobs WHERE indexed_at < :before")) < 0 ||
	    (error = store_prepare(store, &indexers, "DELETE FROM context_indexers WHERE created_at < :before AND "
				   "NOT EXISTS (SELECT 1 FROM context_blobs b WHERE b.indexer = context_indexers.id)")) < 0)
		goto done;
	store_bind_int(blobs, ":before", before_ms);
	store_bind_int(indexers, ":before", before_ms);
	if ((error = store_begin(store)) < 0)
		goto done;
	if ((error = store_step_done(blobs)) == 0) {
		*removed = store_changes(blobs);
		error = store_step_done(indexers);
	}
	error = store_end(store, error);
done:
	store_finalize(blobs);
	store_finalize(indexers);
	return error;
}
