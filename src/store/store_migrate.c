/*
 * `revline db migrate`'s engine (store_migrate.h): every table of one store
 * copied into another, row by row, by column name, the references
 * rewritten through the map of what was copied that the target keeps
 * (migrated_rows), in transactions of BATCH_ROWS rows.
 */
#include "store_migrate.h"
#include "array.h"
#include "clock.h"
#include "store.h"
#include "store_location.h"
#include "store_schema.h"
#include "store_sql.h"
#include "status.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Rows written in one transaction of the target, each with its entry in migrated_rows. */
#define BATCH_ROWS 200
#define MAX_REFS 3

/* A column that refers to another table's row by its id. */
struct ref {
	const char *column, *parent;
};

/*
 * How a table is copied. Every table of the schema is here or in
 * not_copied (tables_check refuses a schema that has another): a table
 * added to the schema is added here, parents before the tables that refer
 * to them.
 */
struct table {
	const char *name;
	/*
	 * What a row is known by in migrated_rows: its id, which the target
	 * assigns (so not copied) when `assigned`, or its parent's id (a
	 * check's one row of check_diffs). NULL: the row is known by its
	 * natural primary key alone, and one there already is kept (INSERT
	 * ... ON CONFLICT DO NOTHING).
	 */
	const char *key;
	bool assigned;
	/* The column that finds the same row in the target already: a repository by its path. */
	const char *natural;
	/* Which rows are copied: a check still running is left for a later run. */
	const char *where;
	struct ref refs[MAX_REFS];
};

static const struct table tables[] = {
	{ "repos", "id", true, "path", NULL, { { NULL, NULL } } },
	{ "checks", "id", true, NULL, "status <> 'running'", { { "repo_id", "repos" } } },
	{ "check_diffs", "check_id", false, NULL, NULL, { { "check_id", "checks" } } },
	{ "check_threadlines", "id", true, NULL, NULL, { { "check_id", "checks" } } },
	{ "check_results", "id", true, NULL, NULL, { { "check_threadline_id", "check_threadlines" } } },
	{ "findings", "id", true, NULL, NULL,
	  { { "check_id", "checks" }, { "check_threadline_id", "check_threadlines" } } },
	{ "violation_fixes", "id", true, NULL, NULL,
	  { { "violation_check_id", "checks" }, { "fix_check_id", "checks" },
	    { "violation_threadline_id", "check_threadlines" } } },
	{ "fix_detection_runs", "id", true, NULL, NULL,
	  { { "check_id", "checks" }, { "previous_check_id", "checks" } } },
	{ "fix_detection_claims", NULL, false, NULL, NULL,
	  { { "check_id", "checks" }, { "previous_check_id", "checks" }, { "run_id", "fix_detection_runs" } } },
	{ "feedback", "id", true, NULL, NULL,
	  { { "finding_id", "findings" }, { "fix_id", "violation_fixes" }, { "repo_id", "repos" } } },
	{ "signal_runs", "id", true, NULL, NULL, { { "repo_id", "repos" } } },
	{ "signals", "id", true, NULL, NULL, { { "run_id", "signal_runs" } } },
	{ "signal_fixes", "id", true, NULL, NULL,
	  { { "repo_id", "repos" }, { "signal_id", "signals" }, { "finding_id", "findings" } } },
	{ "check_dependencies", "check_id", false, NULL, NULL, { { "check_id", "checks" } } },
	{ "check_packages", "id", true, NULL, NULL, { { "check_id", "checks" } } },
	{ "llm_cache", NULL, false, NULL, NULL, { { NULL, NULL } } },
	{ "llm_refusals", NULL, false, NULL, NULL, { { NULL, NULL } } },
	{ "context_indexers", NULL, false, NULL, NULL, { { NULL, NULL } } },
	{ "context_blobs", NULL, false, NULL, NULL, { { NULL, NULL } } },
	{ "context_tags", NULL, false, NULL, NULL, { { NULL, NULL } } },
	{ "context_sent", NULL, false, NULL, NULL, { { "check_id", "checks" } } },
	{ "context_reads", NULL, false, NULL, NULL, { { "check_threadline_id", "check_threadlines" } } },
	{ "bench_cases", "id", true, NULL, NULL, { { "repo_id", "repos" } } },
	{ "bench_runs", "id", true, NULL, NULL, { { "repo_id", "repos" } } },
	{ "bench_results", NULL, false, NULL, NULL,
	  { { "run_id", "bench_runs" }, { "case_id", "bench_cases" }, { "check_id", "checks" } } },
};

#define NTABLES (sizeof(tables) / sizeof(tables[0]))

/* The schema's tables that hold no history: the map of what was copied, PostgreSQL's schema version. */
static const char *const not_copied[] = { "migrated_rows", "revline_schema_version" };

/* A table's source ids and the target's: sorted up to `sorted`, then those this run added. */
struct pair {
	int64_t from, to;
};

struct map {
	struct pair *items;
	size_t count, alloc, sorted;
};

/* A column of the source's row as it is written to the target. */
struct column {
	int source;             /* its place in the source's row */
	char kind;              /* 'i'nt, 'r'eal, 'b'lob, 't'ext: as the target's column is */
	const struct map *parent;       /* a reference: rewritten to the target's id */
	char param[16];
};

struct migration {
	struct store *target, *source;
	struct buf source_id;
	struct map maps[NTABLES];
	bool in_tx;
	size_t tx_rows;
};

/* One table being copied. */
struct copy {
	const struct table *table;
	struct map *map;
	struct store_stmt *read, *insert, *find;
	struct column *columns;
	/* The rows of the open transaction, for migrated_rows: written in one statement before it commits. */
	struct pair *pending;
	size_t npending, pending_alloc;
	size_t ncolumns;
	int key, natural;       /* their places in the source's row; -1 */
	struct store_migrate_table figures;
};

const char *store_migrate_table_at(size_t index)
{
	return index < NTABLES ? tables[index].name : NULL;
}

/* --- the map of what was copied -------------------------------------------- */

static int pair_cmp(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from;
}

static bool map_find(const struct map *map, int64_t from, int64_t *to)
{
	struct pair key = { from, 0 }, *found;

	if (!map->sorted)
		return false;
	found = bsearch(&key, map->items, map->sorted, sizeof(key), pair_cmp);
	if (found)
		*to = found->to;
	return found != NULL;
}

static int map_add(struct map *map, int64_t from, int64_t to)
{
	if (ARRAY_GROW(map->items, map->alloc, map->count + 1) < 0)
		return -1;
	map->items[map->count].from = from;
	map->items[map->count++].to = to;
	return 0;
}

static void map_sort(struct map *map)
{
	if (map->count)
		qsort(map->items, map->count, sizeof(*map->items), pair_cmp);
	map->sorted = map->count;
}

static int table_index(const char *name)
{
	size_t i;

	for (i = 0; i < NTABLES; i++)
		if (!strcmp(tables[i].name, name))
			return (int)i;
	return -1;
}

/* What the target says was copied of the table from this source before. */
static int map_load(struct migration *m, size_t index)
{
	struct map *map = &m->maps[index];
	struct store_stmt *stmt = NULL;
	int error, rc;

	if ((error = store_prepare(m->target, &stmt, "SELECT source_id, target_id FROM migrated_rows "
				   "WHERE source = :source AND tbl = :tbl")) < 0)
		return error;
	store_bind_text(stmt, ":source", m->source_id.ptr);
	store_bind_text(stmt, ":tbl", tables[index].name);
	store_lock(m->target);
	while ((rc = store_step(stmt)) == STORE_ROW)
		if ((error = map_add(map, store_column_int64(stmt, 0), store_column_int64(stmt, 1))) < 0)
			break;
	store_unlock(m->target);
	store_finalize(stmt);
	map_sort(map);
	return error < 0 ? error : rc < 0 ? rc : 0;
}

/* --- the schema's tables ----------------------------------------------------- */

static bool listed(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(not_copied) / sizeof(not_copied[0]); i++)
		if (!strcmp(not_copied[i], name))
			return true;
	return table_index(name) >= 0;
}

static int tables_read(struct strings *out, struct store *store)
{
	struct store_stmt *stmt = NULL;
	int error, rc;

	if ((error = store_prepare(store, &stmt, store_dialect(store)->tables)) < 0)
		return error;
	store_lock(store);
	while ((rc = store_step(stmt)) == STORE_ROW)
		if ((error = strings_add(out, store_column_text(stmt, 0) ? store_column_text(stmt, 0) : "")) < 0)
			break;
	store_unlock(store);
	store_finalize(stmt);
	return error < 0 ? error : rc < 0 ? rc : 0;
}

/* Every table of the store's schema is one this file copies (or knows holds no history), and each it copies is there. */
static int tables_check(struct store *store)
{
	struct strings names = STRINGS_INIT;
	size_t i;
	int error;

	if ((error = tables_read(&names, store)) < 0)
		goto done;
	for (i = 0; i < names.count && !error; i++)
		if (!listed(names.items[i]))
			error = error_set(RL_ERROR, "%s: this revline does not know how to copy its table %s "
					  "(store_migrate.c lists the tables): nothing was copied",
					  store_path(store), names.items[i]);
	for (i = 0; i < NTABLES && !error; i++)
		if (!strings_has(&names, tables[i].name))
			error = error_set(RL_ERROR, "%s: no table %s, which the copy expects: nothing was copied",
					  store_path(store), tables[i].name);
done:
	strings_free(&names);
	return error;
}

/* --- one table ----------------------------------------------------------------- */

/* The target's columns of the table a row is written with, and their kinds. */
static int target_columns(struct strings *names, struct buf *kinds, struct migration *m, const char *table)
{
	struct store_stmt *stmt = NULL;
	int error, rc;

	if ((error = store_prepare(m->target, &stmt, store_dialect(m->target)->columns)) < 0)
		return error;
	store_bind_text(stmt, ":tbl", table);
	store_lock(m->target);
	while ((rc = store_step(stmt)) == STORE_ROW) {
		const char *name = store_column_text(stmt, 0), *kind = store_column_text(stmt, 1);

		if ((error = strings_add(names, name ? name : "")) < 0 ||
		    (error = buf_putc(kinds, kind && *kind ? *kind : 't')) < 0)
			break;
	}
	store_unlock(m->target);
	store_finalize(stmt);
	return error < 0 ? error : rc < 0 ? rc : 0;
}

static const struct map *ref_parent(struct migration *m, const struct table *table, const char *column)
{
	size_t i;
	int index;

	for (i = 0; i < MAX_REFS && table->refs[i].column; i++)
		if (!strcmp(table->refs[i].column, column) && (index = table_index(table->refs[i].parent)) >= 0)
			return &m->maps[index];
	return NULL;
}

/* The source's column `i` as the target takes it, when it does. */
static int column_plan(struct copy *c, struct migration *m, const struct strings *names, const struct buf *kinds,
		       int i)
{
	const char *name = store_column_name(c->read, i);
	struct column *col;
	size_t j;

	if (!name)
		return 0;
	if (c->table->key && !strcmp(name, c->table->key))
		c->key = i;
	if (c->table->natural && !strcmp(name, c->table->natural))
		c->natural = i;
	if (c->table->assigned && !strcmp(name, c->table->key))
		return 0;
	for (j = 0; j < names->count && strcmp(names->items[j], name); j++)
		;
	if (j == names->count)
		return 0;
	col = &c->columns[c->ncolumns];
	col->source = i;
	col->kind = kinds->ptr[j];
	col->parent = ref_parent(m, c->table, name);
	snprintf(col->param, sizeof(col->param), ":c%zu", c->ncolumns);
	c->ncolumns++;
	return 0;
}

/* A name as SQL quotes it: "window" is a word PostgreSQL keeps. */
static int put_name(struct buf *sql, const char *name)
{
	const char *p;
	int error = buf_putc(sql, '"');

	for (p = name; !error && *p; p++)
		error = *p == '"' ? buf_puts(sql, "\"\"") : buf_putc(sql, *p);
	return error < 0 ? error : buf_putc(sql, '"');
}

/* INSERT of the planned columns, giving the row's key (or nothing for a row there already). */
static int insert_sql(struct buf *sql, const struct copy *c)
{
	size_t i;
	int error = buf_printf(sql, "INSERT INTO %s (", c->table->name);

	for (i = 0; !error && i < c->ncolumns; i++) {
		if (i)
			error = buf_puts(sql, ", ");
		if (!error)
			error = put_name(sql, store_column_name(c->read, c->columns[i].source));
	}
	if (!error)
		error = buf_puts(sql, ") VALUES (");
	for (i = 0; !error && i < c->ncolumns; i++)
		error = buf_printf(sql, "%s%s", i ? ", " : "", c->columns[i].param);
	if (!error)
		error = c->table->key ? buf_printf(sql, ") RETURNING %s", c->table->key) :
			buf_puts(sql, ") ON CONFLICT DO NOTHING");
	return error;
}

/* The statements that write the table's rows, once the source's columns are known. */
static int copy_prepare(struct copy *c, struct migration *m)
{
	struct strings names = STRINGS_INIT;
	struct buf kinds = BUF_INIT, sql = BUF_INIT;
	int i, count = store_column_count(c->read), error;

	if (!(c->columns = calloc((size_t)count + 1, sizeof(*c->columns)))) {
		error = error_nomem();
		goto done;
	}
	if ((error = target_columns(&names, &kinds, m, c->table->name)) < 0)
		goto done;
	for (i = 0; i < count && !error; i++)
		error = column_plan(c, m, &names, &kinds, i);
	if (!error && c->table->key && c->key < 0)
		error = error_set(RL_ERROR, "%s: table %s has no column %s", store_path(m->source), c->table->name,
				  c->table->key);
	if (error || (error = insert_sql(&sql, c)) < 0 ||
	    (error = store_prepare(m->target, &c->insert, sql.ptr)) < 0)
		goto done;
	if (c->natural >= 0) {
		buf_clear(&sql);
		if ((error = buf_printf(&sql, "SELECT %s FROM %s WHERE %s = :natural", c->table->key, c->table->name,
					c->table->natural)) < 0 ||
		    (error = store_prepare(m->target, &c->find, sql.ptr)) < 0)
			goto done;
	}
done:
	strings_free(&names);
	buf_release(&kinds);
	buf_release(&sql);
	return error;
}

/* The row's values bound; false when a row it refers to is not in the target (yet). */
static bool row_bind(struct copy *c)
{
	size_t i;

	for (i = 0; i < c->ncolumns; i++) {
		const struct column *col = &c->columns[i];
		const void *bytes;
		int64_t to = 0;
		size_t len;

		if (store_column_is_null(c->read, col->source)) {
			store_bind_null(c->insert, col->param);
		} else if (col->parent) {
			if (!map_find(col->parent, store_column_int64(c->read, col->source), &to))
				return false;
			store_bind_int(c->insert, col->param, to);
		} else if (col->kind == 'i') {
			store_bind_int(c->insert, col->param, store_column_int64(c->read, col->source));
		} else if (col->kind == 'r') {
			store_bind_double(c->insert, col->param, store_column_double(c->read, col->source));
		} else if (col->kind == 'b') {
			bytes = store_column_blob(c->read, col->source, &len);
			store_bind_blob(c->insert, col->param, bytes, len);
		} else {
			store_bind_text(c->insert, col->param, store_column_text(c->read, col->source));
		}
	}
	return true;
}

/* The target's transaction, begun at the first write of a batch. */
static int tx_need(struct migration *m)
{
	int error;

	if (m->in_tx)
		return 0;
	if ((error = store_begin(m->target)) < 0)
		return error;
	m->in_tx = true;
	m->tx_rows = 0;
	return 0;
}

/* The transaction's rows in migrated_rows, in one statement (a few hundred rows: within SQLite's 999 parameters). */
static int record(struct copy *c, struct migration *m)
{
	struct store_stmt *stmt = NULL;
	struct buf sql = BUF_INIT;
	char name[32];
	size_t i;
	int error = buf_puts(&sql, "INSERT INTO migrated_rows (source, tbl, source_id, target_id) VALUES ");

	for (i = 0; !error && i < c->npending; i++)
		error = buf_printf(&sql, "%s(:source, :tbl, :f%zu, :t%zu)", i ? ", " : "", i, i);
	if (error || (error = store_prepare(m->target, &stmt, sql.ptr)) < 0)
		goto done;
	store_bind_text(stmt, ":source", m->source_id.ptr);
	store_bind_text(stmt, ":tbl", c->table->name);
	for (i = 0; i < c->npending; i++) {
		snprintf(name, sizeof(name), ":f%zu", i);
		store_bind_int(stmt, name, c->pending[i].from);
		snprintf(name, sizeof(name), ":t%zu", i);
		store_bind_int(stmt, name, c->pending[i].to);
	}
	error = store_step_done(stmt);
done:
	store_finalize(stmt);
	buf_release(&sql);
	return error;
}

/* Commit the batch with its rows' map, or roll it back when error is set. */
static int tx_done(struct migration *m, struct copy *c, int error)
{
	if (!m->in_tx)
		return error;
	if (!error && c->npending)
		error = record(c, m);
	c->npending = 0;
	m->in_tx = false;
	return store_end(m->target, error);
}

/* The same row in the target already (a repository by its path): its key in *to, or 0 when none. */
static int row_find(struct copy *c, int64_t *to)
{
	int rc;

	*to = 0;
	if (!c->find)
		return 0;
	store_bind_text(c->find, ":natural", store_column_text(c->read, c->natural));
	if ((rc = store_step(c->find)) == STORE_ROW)
		*to = store_column_int64(c->find, 0);
	store_reset(c->find);
	return rc < 0 ? rc : 0;
}

/* Write the source's current row, unless it was copied before or refers to a row not copied. */
static int row_copy(struct copy *c, struct migration *m)
{
	int64_t from = 0, to = 0;
	int error;

	if (c->key >= 0 && map_find(c->map, from = store_column_int64(c->read, c->key), &to)) {
		c->figures.present++;
		return 0;
	}
	if (!row_bind(c)) {
		c->figures.left++;
		return 0;
	}
	if ((error = tx_need(m)) < 0 || (error = row_find(c, &to)) < 0)
		return error;
	if (to)
		c->figures.present++;
	else if (c->table->key && (error = store_step_id(c->insert, &to)) == 0)
		c->figures.copied++;
	else if (!c->table->key && (error = store_step_done(c->insert)) == 0)
		store_changes(c->insert) ? c->figures.copied++ : c->figures.present++;
	if (error < 0)
		return error;
	if (c->table->key) {
		if (ARRAY_GROW(c->pending, c->pending_alloc, c->npending + 1) < 0 ||
		    map_add(c->map, from, to) < 0)
			return error_status();
		c->pending[c->npending].from = from;
		c->pending[c->npending++].to = to;
	}
	if (++m->tx_rows >= BATCH_ROWS)
		return tx_done(m, c, 0);
	return 0;
}

static int read_prepare(struct copy *c, struct migration *m)
{
	struct buf sql = BUF_INIT;
	int error = buf_printf(&sql, "SELECT * FROM %s", c->table->name);

	if (!error && c->table->where)
		error = buf_printf(&sql, " WHERE %s", c->table->where);
	if (!error && c->table->key)
		error = buf_printf(&sql, " ORDER BY %s", c->table->key);
	if (!error)
		error = store_prepare(m->source, &c->read, sql.ptr);
	buf_release(&sql);
	return error;
}

static void copy_release(struct copy *c)
{
	store_finalize(c->read);
	store_finalize(c->insert);
	store_finalize(c->find);
	free(c->columns);
	free(c->pending);
}

/* A failure's message, with the table it stopped in. */
static int copy_failed(const struct copy *c, int error)
{
	char *message = strdup(error_message());

	if (!message)
		return error_nomem();
	error = error_set(error, "copying %s: %s", c->table->name, message);
	free(message);
	return error;
}

static int table_copy(struct migration *m, size_t index, struct store_migrate_table *figures)
{
	struct copy c = { .table = &tables[index], .map = &m->maps[index], .key = -1, .natural = -1 };
	int error, rc;

	c.figures.name = tables[index].name;
	if ((error = map_load(m, index)) < 0 || (error = read_prepare(&c, m)) < 0)
		goto done;
	store_lock(m->source);
	for (rc = store_step(c.read); rc == STORE_ROW; rc = store_step(c.read))
		if ((!c.insert && (error = copy_prepare(&c, m)) < 0) || (error = row_copy(&c, m)) < 0)
			break;
	store_unlock(m->source);
	if (!error && rc < 0)
		error = rc;
	error = tx_done(m, &c, error);
	map_sort(c.map);
done:
	*figures = c.figures;
	copy_release(&c);
	return error < 0 ? copy_failed(&c, error) : 0;
}

/* --- the whole copy ------------------------------------------------------------ */

/* Run sql on store with :probe bound, in a write transaction when write; *count its first column. */
static int probe_run(struct store *store, const char *sql, const char *probe, bool write, int64_t *count)
{
	struct store_stmt *stmt = NULL;
	int error, rc;

	if ((error = store_prepare(store, &stmt, sql)) < 0)
		return error;
	store_bind_text(stmt, ":probe", probe);
	if (!write)
		store_lock(store);
	else if ((error = store_begin(store)) < 0)
		goto done;
	if ((rc = store_step(stmt)) == STORE_ROW)
		*count = store_column_int64(stmt, 0);
	error = rc < 0 ? rc : 0;
	if (write)
		error = store_end(store, error);
	else
		store_unlock(store);
done:
	store_finalize(stmt);
	return error;
}

/*
 * Whether the two are one database however their locations are spelt (a
 * file by a link, a server by two names): a row the target is given is
 * seen in the source. Taken back at once; one left by a copy killed
 * meanwhile names no source.
 */
static int same_database(bool *same, struct store *target, struct store *source)
{
	char probe[96];
	int64_t count = 0, ignored = 0;
	int error;

	*same = false;
	snprintf(probe, sizeof(probe), "revline db migrate probe %ld %lld", (long)getpid(),
		 (long long)clock_wall_ms());
	if ((error = probe_run(target, "INSERT INTO migrated_rows (source, tbl, source_id, target_id) "
			       "VALUES (:probe, 'probe', 0, 0)", probe, true, &ignored)) < 0)
		return error;
	error = probe_run(source, "SELECT count(*) FROM migrated_rows WHERE source = :probe", probe, false, &count);
	if (probe_run(target, "DELETE FROM migrated_rows WHERE source = :probe", probe, true, &ignored) < 0 && !error)
		error = error_status();
	*same = count > 0;
	return error;
}

int store_migrate_source(struct buf *out, struct store *source)
{
	const char *path = store_path(source);
	char host[256], *real = NULL;
	int error;

	buf_clear(out);
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	if (store_location_kind(path) == STORE_LOCATION_FILE && !(real = realpath(path, NULL)))
		return error_set(RL_EIO, "%s: %s", path, strerror(errno));
	error = buf_printf(out, "%s:%s", host, real ? real : path);
	free(real);
	return error;
}

int store_migrate(struct store *target, struct store *source, store_migrate_progress progress, void *arg)
{
	struct migration m = { .target = target, .source = source, .source_id = BUF_INIT };
	struct store_migrate_table figures;
	struct buf target_id = BUF_INIT;
	bool same = false;
	size_t i;
	int error;

	if ((error = store_migrate_source(&m.source_id, source)) < 0 ||
	    (error = store_migrate_source(&target_id, target)) < 0)
		goto done;
	if (!strcmp(m.source_id.ptr, target_id.ptr) || (error = same_database(&same, target, source)) < 0 || same) {
		if (error)
			goto done;
		error = error_set(RL_EUSAGE, "%s is the database to copy from: choose another to copy to",
				  store_path(target));
		goto done;
	}
	if ((error = tables_check(source)) < 0 || (error = tables_check(target)) < 0)
		goto done;
	for (i = 0; i < NTABLES && !error; i++)
		if (!(error = table_copy(&m, i, &figures)) && progress)
			progress(arg, &figures);
done:
	for (i = 0; i < NTABLES; i++)
		free(m.maps[i].items);
	buf_release(&m.source_id);
	buf_release(&target_id);
	return error;
}
