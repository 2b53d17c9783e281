#include "store.h"
#include "array.h"
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
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <threads.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SCHEMA_VERSION ((int)store_nmigrations)

/* Long enough for another revline writing a whole result, short enough to tell the user. */
#define BUSY_TIMEOUT_MS 5000
#define STORE_BUSY_TEXT "5 s"

struct store {
	sqlite3 *db;
	char *path;
	/* One connection per process; this keeps each transaction whole when threads share it. */
	mtx_t lock;
};

#define ADVICE_FULL " (the disk is full: free some space, or point REVLINE_DB at another disk)"
#define ADVICE_WRITABLE " (make the file and its directory writable, or point REVLINE_DB elsewhere)"

/* What the user can do when the system refused a file operation with errno sys. */
static const char *errno_advice(int sys)
{
	switch (sys) {
	case ENOSPC:
	case EDQUOT:
		return ADVICE_FULL;
	case EFBIG:
		return " (the file size limit, ulimit -f, was reached: raise it, or point REVLINE_DB elsewhere)";
	case EROFS:
	case EACCES:
	case EPERM:
		return ADVICE_WRITABLE;
	}
	return " (check the disk and the file, or point REVLINE_DB elsewhere)";
}

/*
 * What the user can do about a fault of the file, from SQLite's code and
 * the system's errno; "" for a failure that is revline's own (a
 * constraint, a misuse), where no advice helps.
 */
static const char *fault_advice(int rc, int sys)
{
	switch (rc & 0xff) {
	case SQLITE_FULL:
		return ADVICE_FULL;
	case SQLITE_READONLY:
	case SQLITE_CANTOPEN:
	case SQLITE_PERM:
		return ADVICE_WRITABLE;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return " (another process held it longer than " STORE_BUSY_TEXT "; let it finish and run again)";
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return " (the file is damaged or not revline's: move it aside and revline starts a new one, "
		       "or point REVLINE_DB elsewhere)";
	case SQLITE_IOERR:
		/* errno is read after the fact and may be gone; a failed write is still a write. */
		if (!sys && (rc == SQLITE_IOERR_WRITE || rc == SQLITE_IOERR_TRUNCATE || rc == SQLITE_IOERR_FSYNC))
			return " (a write failed: the disk may be full or the file size limit, ulimit -f, "
			       "reached; free space, or point REVLINE_DB at another disk)";
		return errno_advice(sys);
	}
	return "";
}

/* SQLite's failure as ours, naming the file and what to do: "PATH: database is locked (...)". */
static int db_error(struct store *store, int rc)
{
	const char *message;
	int sys = sqlite3_system_errno(store->db), code = rc;

	if (rc == SQLITE_NOMEM)
		return error_nomem();
	/* A bind error leaves no message on the connection; its code still reads well. */
	if (sqlite3_errcode(store->db) == rc) {
		message = sqlite3_errmsg(store->db);
		code = sqlite3_extended_errcode(store->db);
	} else {
		message = sqlite3_errstr(rc);
	}
	if ((rc & 0xff) == SQLITE_IOERR && sys)
		return error_set(RL_EIO, "%s: %s: %s%s", store->path, message, strerror(sys),
				 fault_advice(code, sys));
	return error_set(RL_EIO, "%s: %s%s", store->path, message, fault_advice(code, sys));
}

static int exec(struct store *store, const char *sql)
{
	int rc = sqlite3_exec(store->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : db_error(store, rc);
}

static int prepare(struct store *store, sqlite3_stmt **out, const char *sql)
{
	int rc = sqlite3_prepare_v2(store->db, sql, -1, out, NULL);

	return rc == SQLITE_OK ? 0 : db_error(store, rc);
}

/* Run a statement that returns no rows, leaving it ready to run again. */
static int step_done(struct store *store, sqlite3_stmt *stmt)
{
	int rc = sqlite3_step(stmt);

	sqlite3_reset(stmt);
	return rc == SQLITE_DONE ? 0 : db_error(store, rc);
}

/*
 * Binding by name, with a sticky status, so that a long insert reads as
 * one list of columns and is checked once.
 */
void store_bind_text(int *rc, sqlite3_stmt *stmt, const char *name, const char *value)
{
	int i = sqlite3_bind_parameter_index(stmt, name);
	struct buf scrubbed = BUF_INIT;

	if (*rc != SQLITE_OK)
		return;
	/* No row keeps the API key, whatever text brought it (secret.h). */
	*rc = value ? sqlite3_bind_text(stmt, i, secret_scrub(&scrubbed, value), -1, SQLITE_TRANSIENT) :
		sqlite3_bind_null(stmt, i);
	buf_release(&scrubbed);
}

void store_bind_int(int *rc, sqlite3_stmt *stmt, const char *name, int64_t value)
{
	if (*rc == SQLITE_OK)
		*rc = sqlite3_bind_int64(stmt, sqlite3_bind_parameter_index(stmt, name), value);
}

void store_bind_cost(int *rc, sqlite3_stmt *stmt, const char *name, double cost_usd)
{
	int i = sqlite3_bind_parameter_index(stmt, name);

	if (*rc != SQLITE_OK)
		return;
	/* Negative (or NaN): not known. */
	*rc = cost_usd >= 0 ? sqlite3_bind_double(stmt, i, cost_usd) : sqlite3_bind_null(stmt, i);
}

double store_column_cost(sqlite3_stmt *stmt, int col)
{
	return sqlite3_column_type(stmt, col) == SQLITE_NULL ? -1 : sqlite3_column_double(stmt, col);
}

/* BEGIN IMMEDIATE: the write lock is taken (or waited for) now, never half-way. */
static int tx_begin(struct store *store)
{
	int error;

	mtx_lock(&store->lock);
	if ((error = exec(store, "BEGIN IMMEDIATE")) < 0)
		mtx_unlock(&store->lock);
	return error;
}

/* Commit, or roll back on error keeping the first failure's message. */
static int tx_end(struct store *store, int error)
{
	if (!error)
		error = exec(store, "COMMIT");
	if (error && !sqlite3_get_autocommit(store->db))
		sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
	mtx_unlock(&store->lock);
	return error;
}

static int read_version(struct store *store, int *out)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	if ((error = prepare(store, &stmt, "PRAGMA user_version")) < 0)
		return error;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int(stmt, 0);
	else
		error = db_error(store, rc);
	sqlite3_finalize(stmt);
	return error;
}

static int refuse_newer(struct store *store, int version)
{
	return error_set(RL_EIO, "%s: made by a newer revline (schema version %d; this one knows "
			 "up to %d); upgrade revline or choose another database with REVLINE_DB",
			 store->path, version, SCHEMA_VERSION);
}

/* PRAGMA foreign_key_check: a migration must leave no dangling reference. */
static int foreign_keys_hold(struct store *store)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	if ((error = prepare(store, &stmt, "PRAGMA foreign_key_check")) < 0)
		return error;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		error = error_set(RL_EIO, "%s: migrating left a broken reference in table %s",
				  store->path, (const char *)sqlite3_column_text(stmt, 0));
	else if (rc != SQLITE_DONE)
		error = db_error(store, rc);
	sqlite3_finalize(stmt);
	return error;
}

/* Apply the step from version `from`, unless another process did it first. */
static int migrate_step(struct store *store, int from)
{
	char pragma[64];
	int version = 0, error;

	if ((error = tx_begin(store)) < 0)
		return error;
	if ((error = read_version(store, &version)) < 0 || version != from)
		goto done;
	/* PRAGMA takes no parameters; the number is our own constant. */
	snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", from + 1);
	if ((error = exec(store, store_migrations[from])) < 0 || (error = foreign_keys_hold(store)) < 0)
		goto done;
	error = exec(store, pragma);
done:
	return tx_end(store, error);
}

/* Before anything persistent (the journal mode) is changed. */
static int refuse_if_newer(struct store *store)
{
	int version = 0, error;

	if ((error = read_version(store, &version)) < 0)
		return error;
	return version > SCHEMA_VERSION ? refuse_newer(store, version) : 0;
}

/*
 * Each step in its own transaction; another process may be migrating too.
 * Foreign keys are off meanwhile (a pragma that only works outside a
 * transaction) so that dropping a rebuilt table cascades nowhere.
 */
static int migrate(struct store *store)
{
	int version = 0, error;

	if ((error = read_version(store, &version)) < 0 || version >= SCHEMA_VERSION)
		return error < 0 ? error : version > SCHEMA_VERSION ? refuse_newer(store, version) : 0;
	if ((error = exec(store, "PRAGMA foreign_keys = OFF")) < 0)
		return error;
	for (;;) {
		if ((error = read_version(store, &version)) < 0)
			break;
		if (version > SCHEMA_VERSION) {
			error = refuse_newer(store, version);
			break;
		}
		if (version == SCHEMA_VERSION || (error = migrate_step(store, version)) < 0)
			break;
	}
	if (exec(store, "PRAGMA foreign_keys = ON") < 0 && !error)
		error = error_status();
	return error;
}

/* mkdir -p of the file's directory; the directories made are private (0700). */
static int make_parent_dirs(const char *path)
{
	char *dir = strdup(path), *p, *slash;
	int error = 0;

	if (!dir)
		return error_nomem();
	if (!(slash = strrchr(dir, '/')) || slash == dir)
		goto done;
	*slash = '\0';
	for (p = dir + 1; ; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
			error = error_set(RL_EIO, "cannot create %s: %s%s", dir, strerror(errno),
					  errno_advice(errno));
			goto done;
		}
		*p = c;
		if (!c)
			break;
	}
done:
	free(dir);
	return error;
}

/*
 * Create the file ourselves, readable by its owner only: it holds diffs of
 * private code. SQLite gives the -wal and -shm files the same mode.
 */
static int create_private(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0)
		return error_set(RL_EIO, "%s: %s%s", path, strerror(errno), errno_advice(errno));
	close(fd);
	return 0;
}

static int set_journal_wal(struct store *store)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc, waited;

	if ((error = prepare(store, &stmt, "PRAGMA journal_mode = WAL")) < 0)
		return error;
	/*
	 * The answer is the mode in force; a file system without shared memory
	 * keeps the rollback journal, which is slower under contention but safe.
	 * Changing the mode of a new database that another process has open
	 * fails busy without calling the busy handler: wait here instead.
	 */
	for (waited = 0; ; waited += 20) {
		rc = sqlite3_step(stmt);
		sqlite3_reset(stmt);
		if (rc != SQLITE_BUSY || waited >= BUSY_TIMEOUT_MS)
			break;
		sqlite3_sleep(20);
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		error = db_error(store, rc);
	sqlite3_finalize(stmt);
	return error;
}

/* The connection's own settings; none of them changes the file. */
static int configure(struct store *store)
{
	/* First, so that everything below waits for a writer too (same as PRAGMA busy_timeout). */
	sqlite3_busy_timeout(store->db, BUSY_TIMEOUT_MS);
	return exec(store, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;");
}

/*
 * Whether the process that ran a check is gone: no pid recorded (a check
 * from before schema version 2), no such process, or a process that
 * started at another time (the pid was reused). A process we may not
 * signal (EPERM) still exists.
 */
static bool process_gone(sqlite3_stmt *row)
{
	int64_t pid = sqlite3_column_int64(row, 1), start, now;

	if (sqlite3_column_type(row, 1) == SQLITE_NULL || pid <= 0 || pid > INT_MAX)
		return true;
	if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
		return true;
	if (sqlite3_column_type(row, 2) == SQLITE_NULL)
		return false;
	start = sqlite3_column_int64(row, 2);
	now = process_start((pid_t)pid);
	return now >= 0 && now != start;
}

/* The running checks whose process is gone, as a list of ids. */
static int interrupted_find(struct store *store, int64_t **ids, size_t *count)
{
	sqlite3_stmt *stmt = NULL;
	size_t alloc = 0;
	int error, rc;

	if ((error = prepare(store, &stmt, "SELECT id, pid, pid_start FROM checks "
			     "WHERE status = 'running'")) < 0)
		return error;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (!process_gone(stmt))
			continue;
		if ((error = ARRAY_GROW(*ids, alloc, *count + 1)) < 0)
			goto done;
		(*ids)[(*count)++] = sqlite3_column_int64(stmt, 0);
	}
	if (rc != SQLITE_DONE)
		error = db_error(store, rc);
done:
	sqlite3_finalize(stmt);
	return error;
}

static int interrupted_set(struct store *store, const int64_t *ids, size_t count, size_t *marked)
{
	sqlite3_stmt *stmt = NULL;
	int64_t now = clock_wall_ms();
	size_t i;
	int error, rc = SQLITE_OK;

	if ((error = prepare(store, &stmt, "UPDATE checks SET status = 'interrupted', "
			     "finished_at = :now WHERE id = :id AND status = 'running'")) < 0)
		return error;
	for (i = 0; i < count && !error; i++) {
		store_bind_int(&rc, stmt, ":now", now);
		store_bind_int(&rc, stmt, ":id", ids[i]);
		error = rc != SQLITE_OK ? db_error(store, rc) : step_done(store, stmt);
		if (!error)
			*marked += (size_t)sqlite3_changes(store->db);
	}
	sqlite3_finalize(stmt);
	return error;
}

/* Whether any check is 'running': most opens have none, and need no write lock. */
static int running_any(struct store *store, bool *out)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc;

	if ((error = prepare(store, &stmt, "SELECT EXISTS (SELECT 1 FROM checks "
			     "WHERE status = 'running')")) < 0)
		return error;
	if ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
		*out = sqlite3_column_int(stmt, 0);
	else
		error = db_error(store, rc);
	sqlite3_finalize(stmt);
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
	mtx_lock(&store->lock);
	error = running_any(store, &any);
	mtx_unlock(&store->lock);
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

/* Without PRAGMA optimize: a store that failed to open may be a newer revline's. */
static void store_free(struct store *store)
{
	if (!store)
		return;
	sqlite3_close_v2(store->db);
	mtx_destroy(&store->lock);
	free(store->path);
	free(store);
}

int store_open(struct store **out, const char *path)
{
	struct store *store = NULL;
	bool memory = path && !strcmp(path, ":memory:");
	size_t marked = 0;
	int error = 0, rc;

	*out = NULL;
	if (!path || !*path)
		return error_set(RL_EUSAGE, "no database path");
	if (store_location_kind(path) == STORE_LOCATION_POSTGRES)
		return store_location_refuse(path);
	if (!memory && ((error = make_parent_dirs(path)) < 0 || (error = create_private(path)) < 0))
		return error;
	if (!(store = calloc(1, sizeof(*store))))
		return error_nomem();
	if (mtx_init(&store->lock, mtx_plain) != thrd_success) {
		free(store);
		return error_nomem();
	}
	if (!(store->path = strdup(path))) {
		error = error_nomem();
		goto done;
	}
	/* FULLMUTEX: the handle is shared with other modules (store_db), maybe from other threads. */
	rc = sqlite3_open_v2(path, &store->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			     SQLITE_OPEN_FULLMUTEX, NULL);
	if (rc != SQLITE_OK) {
		error = store->db ? db_error(store, rc) : error_nomem();
		goto done;
	}
	if ((error = configure(store)) < 0 || (error = refuse_if_newer(store)) < 0 ||
	    (error = set_journal_wal(store)) < 0 || (error = migrate(store)) < 0)
		goto done;
	/* Best effort: a store that cannot mark them now still opens; the next open tries again. */
	if (store_mark_interrupted(store, &marked) < 0)
		error_clear();
	*out = store;
	store = NULL;
done:
	store_free(store);
	return error;
}

void store_close(struct store *store)
{
	/* SQLite's advice for a closing connection: refresh the planner's statistics if useful. */
	if (store)
		sqlite3_exec(store->db, "PRAGMA optimize", NULL, NULL, NULL);
	store_free(store);
}

const char *store_path(const struct store *store)
{
	return store->path;
}

int store_version(struct store *store)
{
	int version = 0, error;

	mtx_lock(&store->lock);
	error = read_version(store, &version);
	mtx_unlock(&store->lock);
	return error < 0 ? error : version;
}

sqlite3 *store_db(struct store *store)
{
	return store->db;
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

int store_prepare(struct store *store, sqlite3_stmt **out, const char *sql)
{
	return prepare(store, out, sql);
}

int store_fail(struct store *store, int rc)
{
	return db_error(store, rc);
}

int store_step_done(struct store *store, sqlite3_stmt *stmt, int rc)
{
	return rc != SQLITE_OK ? db_error(store, rc) : step_done(store, stmt);
}

int store_column_dup(char **out, sqlite3_stmt *stmt, int col)
{
	const unsigned char *text = sqlite3_column_text(stmt, col);

	*out = NULL;
	/* NULL from a column that is not NULL: SQLite ran out of memory converting it. */
	if (!text)
		return sqlite3_column_type(stmt, col) == SQLITE_NULL ? 0 : error_nomem();
	return (*out = strdup((const char *)text)) ? 0 : error_nomem();
}
