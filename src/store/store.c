/*
 * The store: the backend it is kept in (store_backend.h), its lock, the
 * migrations, the statements of store_sql.h over the backend's own, and
 * the checks a killed process left running.
 */
#include "store.h"
#include "array.h"
#include "store_backend.h"
#include "store_sql.h"
#include "store_schema.h"
#include "store_process.h"
#include "store_location.h"
#include "clock.h"
#include "config.h"
#include "datadir.h"
#include "secret.h"
#include "status.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <threads.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct store {
	const struct store_backend *backend;
	struct store_conn *conn;
	/* As messages name it: a PostgreSQL location's display form, never its password. */
	char *path;
	/* The setting that named it (revline.db, REVLINE_DB). */
	const char *setting;
	/* One connection per process; this keeps each transaction whole when threads share it. */
	mtx_t lock;
	/* Who writes (git's user.email, NULL when not known) and on which machine. */
	char *author;
	char host[256];
};

struct store_stmt {
	struct store *store;
	struct store_conn_stmt *impl;
	/* The binds' first failure, returned by the next step. */
	int error;
	int64_t changes;
};

/* The schema version this revline knows (the number of migrations). */
static int schema_known(const struct store *store)
{
	return (int)store->backend->dialect->nmigrations;
}

/* Begin a write transaction under the lock. */
static int tx_begin(struct store *store)
{
	int error;

	mtx_lock(&store->lock);
	if ((error = store->backend->begin(store->conn)) < 0)
		mtx_unlock(&store->lock);
	return error;
}

/* Commit, or roll back on error keeping the first failure's message. */
static int tx_end(struct store *store, int error)
{
	if (!error)
		error = store->backend->commit(store->conn);
	if (error)
		store->backend->rollback(store->conn);
	mtx_unlock(&store->lock);
	return error;
}

static int read_version(struct store *store, int *out)
{
	return store->backend->schema_version_get(store->conn, out);
}

static int refuse_newer(struct store *store, int version)
{
	return error_set(RL_EIO, "%s: made by a newer revline (schema version %d; this one knows "
			 "up to %d); upgrade revline or choose another database with %s",
			 store->path, version, schema_known(store), store->setting);
}

/*
 * Apply the step from version `from`, unless another process did it first
 * (the write transaction's lock keeps two from migrating at once): the
 * next migration, or a new database made at once at the version the
 * backend's schema is (store_dialect.create).
 */
static int migrate_step(struct store *store, int from)
{
	const struct store_backend *b = store->backend;
	const char *script = b->dialect->migrations[from];
	int version = 0, to = from + 1, error;

	if (from == 0 && b->dialect->create)
		script = b->dialect->create, to = b->dialect->create_version;
	if (!script)
		return error_set(RL_EIO, "%s: schema version %d is unknown to this %s backend", store->path,
				 from, b->name);
	if ((error = tx_begin(store)) < 0)
		return error;
	if ((error = read_version(store, &version)) < 0 || version != from)
		goto done;
	if ((error = b->exec(store->conn, script)) < 0 || (error = b->migrate_check(store->conn)) < 0)
		goto done;
	error = b->schema_version_set(store->conn, to);
done:
	return tx_end(store, error);
}

/* Before anything persistent (the journal mode) is changed: the version the database says it is at. */
static int refuse_if_newer(struct store *store, int *version)
{
	int error;

	*version = 0;
	if ((error = read_version(store, version)) < 0)
		return error;
	return *version > schema_known(store) ? refuse_newer(store, *version) : 0;
}

/*
 * Each step in its own transaction; another process may be migrating too.
 * `version` as read when the store opened: one up to date is left at that.
 */
static int migrate(struct store *store, int version)
{
	int known = schema_known(store), error;

	if (version >= known)
		return 0;
	if ((error = store->backend->migrate_begin(store->conn)) < 0)
		return error;
	for (;;) {
		if ((error = read_version(store, &version)) < 0)
			break;
		if (version > known) {
			error = refuse_newer(store, version);
			break;
		}
		if (version == known || (error = migrate_step(store, version)) < 0)
			break;
	}
	if (store->backend->migrate_end(store->conn) < 0 && !error)
		error = error_status();
	return error;
}

/*
 * Whether the process that ran a check is gone: no pid recorded (a check
 * from before schema version 2), no such process, or a process that
 * started at another time (the pid was reused). A process we may not
 * signal (EPERM) still exists.
 */
static bool process_gone(struct store_stmt *row)
{
	int64_t pid = store_column_int64(row, 1), start, now;

	if (store_column_is_null(row, 1) || pid <= 0 || pid > INT_MAX)
		return true;
	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return true;
	if (store_column_is_null(row, 2))
		return false;
	start = store_column_int64(row, 2);
	now = process_start((pid_t)pid);
	return now >= 0 && now != start;
}

/*
 * A check this machine runs, whose process it can look for: one another
 * machine runs is that machine's to mark (a team's store). A check from
 * before version 7 has no host: it was written here.
 */
#define ON_THIS_HOST "(host IS NULL OR host = CAST(:host AS TEXT))"

/* The running checks of this machine whose process is gone, as a list of ids. */
static int interrupted_find(struct store *store, int64_t **ids, size_t *count)
{
	struct store_stmt *stmt = NULL;
	size_t alloc = 0;
	int error, rc;

	if ((error = store_prepare(store, &stmt, "SELECT id, pid, pid_start FROM checks "
				   "WHERE status = 'running' AND " ON_THIS_HOST)) < 0)
		return error;
	store_bind_writer(stmt);
	while ((rc = store_step(stmt)) == STORE_ROW) {
		if (!process_gone(stmt))
			continue;
		if ((error = ARRAY_GROW(*ids, alloc, *count + 1)) < 0)
			goto done;
		(*ids)[(*count)++] = store_column_int64(stmt, 0);
	}
	if (rc < 0)
		error = rc;
done:
	store_finalize(stmt);
	return error;
}

static int interrupted_set(struct store *store, const int64_t *ids, size_t count, size_t *marked)
{
	struct store_stmt *stmt = NULL;
	int64_t now = clock_wall_ms();
	size_t i;
	int error;

	if ((error = store_prepare(store, &stmt, "UPDATE checks SET status = 'interrupted', "
				   "finished_at = :now WHERE id = :id AND status = 'running'")) < 0)
		return error;
	for (i = 0; i < count && !error; i++) {
		store_bind_int(stmt, ":now", now);
		store_bind_int(stmt, ":id", ids[i]);
		if (!(error = store_step_done(stmt)))
			*marked += (size_t)store_changes(stmt);
	}
	store_finalize(stmt);
	return error;
}

/* Whether any check is 'running': most opens have none, and need no write lock. */
static int running_any(struct store *store, bool *out)
{
	struct store_stmt *stmt = NULL;
	int error, rc;

	if ((error = store_prepare(store, &stmt, "SELECT CASE WHEN EXISTS (SELECT 1 FROM checks "
				   "WHERE status = 'running' AND " ON_THIS_HOST ") THEN 1 ELSE 0 END")) < 0)
		return error;
	store_bind_writer(stmt);
	if ((rc = store_step(stmt)) == STORE_ROW)
		*out = store_column_int(stmt, 0);
	else
		error = rc < 0 ? rc : error_set(RL_ERROR, "%s: no answer to whether a check runs", store->path);
	store_finalize(stmt);
	return error;
}

/*
 * Found and marked in one write transaction, so that a check finishing
 * meanwhile is not marked, and two processes marking at once agree.
 */
int store_mark_interrupted(struct store *store, size_t *count)
{
	int64_t *ids = NULL;
	size_t found = 0, marked = 0;
	bool any = false;
	int error;

	*count = 0;
	store_lock(store);
	error = running_any(store, &any);
	store_unlock(store);
	if (error || !any)
		return error;
	if ((error = tx_begin(store)) < 0)
		return error;
	if (!(error = interrupted_find(store, &ids, &found)))
		error = interrupted_set(store, ids, found, &marked);
	if (!(error = tx_end(store, error)))
		*count = marked;
	free(ids);
	return error;
}

/* This machine's name, as the records of a team's store say where they were written; "" when not known. */
static void host_read(char *out, size_t size)
{
	size_t i;

	if (gethostname(out, size - 1) < 0)
		out[0] = '\0';
	out[size - 1] = '\0';
	for (i = 0; out[i]; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			out[i] = '?';
}

int store_author_load(struct store *store, struct config *config)
{
	char *email = NULL;
	int error = config_get(&email, config, "user.email");

	if (error == RL_ENOTFOUND || (!error && !*email)) {
		free(email);
		return 0;
	}
	if (error < 0)
		return error;
	free(store->author);
	store->author = email;
	return 0;
}

void store_bind_writer(struct store_stmt *stmt)
{
	if (store_param_has(stmt, ":author"))
		store_bind_text(stmt, ":author", stmt->store->author);
	if (store_param_has(stmt, ":host"))
		store_bind_text(stmt, ":host", *stmt->store->host ? stmt->store->host : NULL);
}

/* Without the backend's tidying: a store that failed to open may be a newer revline's. */
static void store_free(struct store *store)
{
	if (!store)
		return;
	if (store->conn)
		store->backend->close(store->conn);
	mtx_destroy(&store->lock);
	free(store->path);
	free(store->author);
	free(store);
}

/* The backend for a database: a PostgreSQL location (store_location.h), else a SQLite file. */
static const struct store_backend *backend_for(const char *path)
{
	if (store_location_kind(path) == STORE_LOCATION_POSTGRES)
		return &store_backend_pg;
	return &store_backend_sqlite;
}

int store_open(struct store **out, const char *path)
{
	struct buf display = BUF_INIT;
	struct store *store = NULL;
	size_t marked = 0;
	int error = 0, version = 0;

	*out = NULL;
	if (!path || !*path)
		return error_set(RL_EUSAGE, "no database path");
	if (!(store = calloc(1, sizeof(*store))))
		return error_nomem();
	if (mtx_init(&store->lock, mtx_plain) != thrd_success) {
		free(store);
		return error_nomem();
	}
	store->backend = backend_for(path);
	store->setting = store_location_setting(path);
	host_read(store->host, sizeof(store->host));
	if ((error = store_location_display(&display, path)) < 0)
		goto done;
	if (!(store->path = buf_detach(&display)) && !(store->path = strdup(""))) {
		error = error_nomem();
		goto done;
	}
	if ((error = store->backend->open(&store->conn, path)) < 0 ||
	    (error = refuse_if_newer(store, &version)) < 0 || (error = store->backend->setup(store->conn)) < 0 ||
	    (error = migrate(store, version)) < 0)
		goto done;
	/* Best effort: a store that cannot mark them now still opens; the next open tries again. */
	if (store_mark_interrupted(store, &marked) < 0)
		error_clear();
	*out = store;
	store = NULL;
done:
	buf_release(&display);
	store_free(store);
	return error;
}

void store_close(struct store *store)
{
	if (store)
		store->backend->optimize(store->conn);
	store_free(store);
}

const char *store_path(const struct store *store)
{
	return store->path;
}

int store_version(struct store *store)
{
	int version = 0, error;

	store_lock(store);
	error = read_version(store, &version);
	store_unlock(store);
	return error < 0 ? error : version;
}

int64_t store_memory(void)
{
	return backend_sqlite_memory();
}

struct sqlite3 *store_db(struct store *store)
{
	return store->backend == &store_backend_sqlite ? backend_sqlite_handle(store->conn) : NULL;
}

/* "~/x" from git config means the home directory, as git's own paths do. */
static int put_configured(struct buf *out, const char *value)
{
	const char *home = getenv("HOME");

	if (!strncmp(value, "~/", 2) && home && *home)
		return buf_printf(out, "%s/%s", home, value + 2);
	return buf_puts(out, value);
}

int store_default_path(struct buf *out, struct config *config)
{
	char *value = NULL;
	int error;

	buf_clear(out);
	error = config_get(&value, config, "revline.db");
	if (!error) {
		error = put_configured(out, value);
		free(value);
		return error;
	}
	if (error != RL_ENOTFOUND)
		return error;
	if (datadir_state(out, "revline.db") < 0)
		return error_set(RL_ENOTFOUND, "no place for the database: neither XDG_DATA_HOME nor HOME "
				 "is set (set REVLINE_DB)");
	return 0;
}

int store_begin(struct store *store)
{
	return tx_begin(store);
}

int store_end(struct store *store, int error)
{
	return tx_end(store, error);
}

void store_lock(struct store *store)
{
	mtx_lock(&store->lock);
}

void store_unlock(struct store *store)
{
	mtx_unlock(&store->lock);
}

const struct store_dialect *store_dialect(struct store *store)
{
	return store->backend->dialect;
}

int store_data_version(struct store *store, int64_t *data, int64_t *changes)
{
	return store->backend->data_version(store->conn, data, changes);
}

/* --- statements ----------------------------------------------------------- */

int store_prepare(struct store *store, struct store_stmt **out, const char *sql)
{
	struct store_stmt *stmt;
	int error;

	*out = NULL;
	if (!(stmt = calloc(1, sizeof(*stmt))))
		return error_nomem();
	stmt->store = store;
	if ((error = store->backend->prepare(store->conn, &stmt->impl, sql)) < 0) {
		free(stmt);
		return error;
	}
	*out = stmt;
	return 0;
}

void store_finalize(struct store_stmt *stmt)
{
	if (!stmt)
		return;
	stmt->store->backend->finalize(stmt->impl);
	free(stmt);
}

bool store_param_has(struct store_stmt *stmt, const char *name)
{
	return stmt->store->backend->param_has(stmt->impl, name);
}

/*
 * Binding by name, with a sticky status, so that a long insert reads as
 * one list of columns and is checked once.
 */
void store_bind_text(struct store_stmt *stmt, const char *name, const char *value)
{
	struct buf scrubbed = BUF_INIT;

	if (stmt->error)
		return;
	if (!value) {
		store_bind_null(stmt, name);
		return;
	}
	/* No row keeps the API key, whatever text brought it (secret.h). */
	stmt->error = stmt->store->backend->bind_text(stmt->impl, name, secret_scrub(&scrubbed, value));
	buf_release(&scrubbed);
}

void store_bind_int(struct store_stmt *stmt, const char *name, int64_t value)
{
	if (!stmt->error)
		stmt->error = stmt->store->backend->bind_int(stmt->impl, name, value);
}

void store_bind_double(struct store_stmt *stmt, const char *name, double value)
{
	if (!stmt->error)
		stmt->error = stmt->store->backend->bind_double(stmt->impl, name, value);
}

void store_bind_null(struct store_stmt *stmt, const char *name)
{
	if (!stmt->error)
		stmt->error = stmt->store->backend->bind_null(stmt->impl, name);
}

void store_bind_blob(struct store_stmt *stmt, const char *name, const void *data, size_t len)
{
	if (!stmt->error)
		stmt->error = stmt->store->backend->bind_blob(stmt->impl, name, data ? data : "",
							      data ? len : 0);
}

void store_bind_cost(struct store_stmt *stmt, const char *name, double cost_usd)
{
	/* Negative (or NaN): not known. */
	if (cost_usd >= 0)
		store_bind_double(stmt, name, cost_usd);
	else
		store_bind_null(stmt, name);
}

int store_step(struct store_stmt *stmt)
{
	const struct store_backend *b = stmt->store->backend;
	int rc;

	if (stmt->error)
		return stmt->error;
	if ((rc = b->step(stmt->impl)) == STORE_BACKEND_DONE)
		stmt->changes = b->changes(stmt->store->conn);
	return rc == STORE_BACKEND_ROW ? STORE_ROW : rc == STORE_BACKEND_DONE ? STORE_DONE : rc;
}

int store_step_done(struct store_stmt *stmt)
{
	int rc = store_step(stmt);

	store_reset(stmt);
	if (rc == STORE_ROW)
		return error_set(RL_ERROR, "%s: a statement gave a row where none was expected",
				 stmt->store->path);
	return rc;
}

int store_step_id(struct store_stmt *stmt, int64_t *id)
{
	int rc = store_step(stmt);

	if (rc == STORE_ROW)
		*id = store_column_int64(stmt, 0);
	store_reset(stmt);
	if (rc == STORE_DONE)
		return error_set(RL_ERROR, "%s: an insert gave no id", stmt->store->path);
	return rc < 0 ? rc : 0;
}

void store_reset(struct store_stmt *stmt)
{
	stmt->store->backend->reset(stmt->impl);
}

int64_t store_changes(struct store_stmt *stmt)
{
	return stmt->changes;
}

bool store_step_refused(struct store_stmt *stmt)
{
	return !stmt->error && stmt->store->backend->step_refused(stmt->impl);
}

int64_t store_column_int64(struct store_stmt *stmt, int col)
{
	return stmt->store->backend->column_int64(stmt->impl, col);
}

int store_column_int(struct store_stmt *stmt, int col)
{
	return (int)store_column_int64(stmt, col);
}

double store_column_double(struct store_stmt *stmt, int col)
{
	return stmt->store->backend->column_double(stmt->impl, col);
}

bool store_column_is_null(struct store_stmt *stmt, int col)
{
	return stmt->store->backend->column_is_null(stmt->impl, col);
}

const char *store_column_text(struct store_stmt *stmt, int col)
{
	return stmt->store->backend->column_text(stmt->impl, col);
}

const void *store_column_blob(struct store_stmt *stmt, int col, size_t *len)
{
	return stmt->store->backend->column_blob(stmt->impl, col, len);
}

double store_column_cost(struct store_stmt *stmt, int col)
{
	return store_column_is_null(stmt, col) ? -1 : store_column_double(stmt, col);
}

int store_column_dup(char **out, struct store_stmt *stmt, int col)
{
	const char *text = store_column_text(stmt, col);

	*out = NULL;
	/* NULL from a column that is not NULL: the backend ran out of memory converting it. */
	if (!text)
		return store_column_is_null(stmt, col) ? 0 : error_nomem();
	return (*out = strdup(text)) ? 0 : error_nomem();
}

int store_column_count(struct store_stmt *stmt)
{
	return stmt->store->backend->column_count(stmt->impl);
}

const char *store_column_name(struct store_stmt *stmt, int col)
{
	return col >= 0 && col < store_column_count(stmt) ? stmt->store->backend->column_name(stmt->impl, col) : NULL;
}
