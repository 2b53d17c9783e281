/*
 * The store on SQLite: one file (WAL, foreign keys, a busy timeout, the
 * schema version in PRAGMA user_version), or ":memory:". The only file of
 * revline that includes sqlite3.h (tests/structure/layers.py).
 */
#include "store_backend.h"
#include "store_schema.h"
#include "status.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Long enough for another revline writing a whole result, short enough to tell the user. */
#define BUSY_TIMEOUT_MS 5000
#define STORE_BUSY_TEXT "5 s"

struct store_conn {
	sqlite3 *db;
	/* The file, as the messages name it. */
	char *where;
};

struct store_conn_stmt {
	sqlite3_stmt *stmt;
	struct store_conn *conn;
	/* The last step failed on the statement's own SQL (an FTS5 query it could not read). */
	bool refused;
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
static int db_error(struct store_conn *conn, int rc)
{
	const char *message;
	int sys = sqlite3_system_errno(conn->db), code = rc;

	if (rc == SQLITE_NOMEM)
		return error_nomem();
	/* A bind error leaves no message on the connection; its code still reads well. */
	if (sqlite3_errcode(conn->db) == rc) {
		message = sqlite3_errmsg(conn->db);
		code = sqlite3_extended_errcode(conn->db);
	} else {
		message = sqlite3_errstr(rc);
	}
	if ((rc & 0xff) == SQLITE_IOERR && sys)
		return error_set(RL_EIO, "%s: %s: %s%s", conn->where, message, strerror(sys),
				 fault_advice(code, sys));
	return error_set(RL_EIO, "%s: %s%s", conn->where, message, fault_advice(code, sys));
}

static int sqlite_exec(struct store_conn *conn, const char *sql)
{
	int rc = sqlite3_exec(conn->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : db_error(conn, rc);
}

/* --- opening -------------------------------------------------------------- */

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

/* The connection's own settings; none of them changes the file. */
static int configure(struct store_conn *conn)
{
	/* First, so that everything below waits for a writer too (same as PRAGMA busy_timeout). */
	sqlite3_busy_timeout(conn->db, BUSY_TIMEOUT_MS);
	return sqlite_exec(conn, "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;");
}

static void sqlite_close(struct store_conn *conn)
{
	if (!conn)
		return;
	sqlite3_close_v2(conn->db);
	free(conn->where);
	free(conn);
}

static int sqlite_open(struct store_conn **out, const char *path)
{
	struct store_conn *conn = NULL;
	int error = 0, rc;

	*out = NULL;
	if (strcmp(path, ":memory:") &&
	    ((error = make_parent_dirs(path)) < 0 || (error = create_private(path)) < 0))
		return error;
	if (!(conn = calloc(1, sizeof(*conn))) || !(conn->where = strdup(path))) {
		error = error_nomem();
		goto done;
	}
	/* FULLMUTEX: the store's statements may run on other threads than the one that opened it. */
	rc = sqlite3_open_v2(path, &conn->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			     SQLITE_OPEN_FULLMUTEX, NULL);
	if (rc != SQLITE_OK) {
		error = conn->db ? db_error(conn, rc) : error_nomem();
		goto done;
	}
	if ((error = configure(conn)) < 0)
		goto done;
	*out = conn;
	conn = NULL;
done:
	sqlite_close(conn);
	return error;
}

static int sqlite_setup(struct store_conn *conn)
{
	sqlite3_stmt *stmt = NULL;
	int rc, waited;

	if ((rc = sqlite3_prepare_v2(conn->db, "PRAGMA journal_mode = WAL", -1, &stmt, NULL)) != SQLITE_OK)
		return db_error(conn, rc);
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
	rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_error(conn, rc);
	sqlite3_finalize(stmt);
	return rc;
}

/* SQLite's advice for a closing connection: refresh the planner's statistics if useful. */
static void sqlite_optimize(struct store_conn *conn)
{
	sqlite3_exec(conn->db, "PRAGMA optimize", NULL, NULL, NULL);
}

/* --- transactions and the schema ------------------------------------------ */

/* BEGIN IMMEDIATE: the write lock is taken (or waited for) now, never half-way. */
static int sqlite_begin(struct store_conn *conn)
{
	return sqlite_exec(conn, "BEGIN IMMEDIATE");
}

static int sqlite_commit(struct store_conn *conn)
{
	return sqlite_exec(conn, "COMMIT");
}

static void sqlite_rollback(struct store_conn *conn)
{
	if (!sqlite3_get_autocommit(conn->db))
		sqlite3_exec(conn->db, "ROLLBACK", NULL, NULL, NULL);
}

/* The first column of a pragma's first row as a number (*out unchanged when it gives none). */
static int pragma_int(struct store_conn *conn, const char *sql, int64_t *out)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	if ((rc = sqlite3_prepare_v2(conn->db, sql, -1, &stmt, NULL)) != SQLITE_OK)
		return db_error(conn, rc);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(stmt, 0);
	rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : db_error(conn, rc);
	sqlite3_finalize(stmt);
	return rc;
}

static int sqlite_version_get(struct store_conn *conn, int *version)
{
	int64_t value = 0;
	int error = pragma_int(conn, "PRAGMA user_version", &value);

	*version = (int)value;
	return error;
}

static int sqlite_version_set(struct store_conn *conn, int version)
{
	char pragma[64];

	/* PRAGMA takes no parameters; the number is the store's own. */
	snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", version);
	return sqlite_exec(conn, pragma);
}

/*
 * Foreign keys are off while migrating (a pragma that only works outside a
 * transaction) so that dropping a rebuilt table cascades nowhere.
 */
static int sqlite_migrate_begin(struct store_conn *conn)
{
	return sqlite_exec(conn, "PRAGMA foreign_keys = OFF");
}

static int sqlite_migrate_end(struct store_conn *conn)
{
	return sqlite_exec(conn, "PRAGMA foreign_keys = ON");
}

/* PRAGMA foreign_key_check: a migration must leave no dangling reference. */
static int sqlite_migrate_check(struct store_conn *conn)
{
	sqlite3_stmt *stmt = NULL;
	int error = 0, rc;

	if ((rc = sqlite3_prepare_v2(conn->db, "PRAGMA foreign_key_check", -1, &stmt, NULL)) != SQLITE_OK)
		return db_error(conn, rc);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		error = error_set(RL_EIO, "%s: migrating left a broken reference in table %s",
				  conn->where, (const char *)sqlite3_column_text(stmt, 0));
	else if (rc != SQLITE_DONE)
		error = db_error(conn, rc);
	sqlite3_finalize(stmt);
	return error;
}

/* Other connections' commits (PRAGMA data_version), and the rows this one wrote. */
static int sqlite_data_version(struct store_conn *conn, int64_t *data, int64_t *changes)
{
	*changes = sqlite3_total_changes(conn->db);
	return pragma_int(conn, "PRAGMA data_version", data);
}

/* --- statements ----------------------------------------------------------- */

static int sqlite_prepare(struct store_conn *conn, struct store_conn_stmt **out, const char *sql)
{
	struct store_conn_stmt *stmt;
	int rc;

	*out = NULL;
	if (!(stmt = calloc(1, sizeof(*stmt))))
		return error_nomem();
	stmt->conn = conn;
	if ((rc = sqlite3_prepare_v2(conn->db, sql, -1, &stmt->stmt, NULL)) != SQLITE_OK) {
		free(stmt);
		return db_error(conn, rc);
	}
	*out = stmt;
	return 0;
}

static void sqlite_finalize(struct store_conn_stmt *stmt)
{
	if (!stmt)
		return;
	sqlite3_finalize(stmt->stmt);
	free(stmt);
}

static bool sqlite_param_has(struct store_conn_stmt *stmt, const char *name)
{
	return sqlite3_bind_parameter_index(stmt->stmt, name) != 0;
}

static int bound(struct store_conn_stmt *stmt, int rc)
{
	return rc == SQLITE_OK ? 0 : db_error(stmt->conn, rc);
}

#define INDEX(stmt, name) sqlite3_bind_parameter_index((stmt)->stmt, name)

static int sqlite_bind_text(struct store_conn_stmt *stmt, const char *name, const char *value)
{
	return bound(stmt, sqlite3_bind_text(stmt->stmt, INDEX(stmt, name), value, -1, SQLITE_TRANSIENT));
}

static int sqlite_bind_int(struct store_conn_stmt *stmt, const char *name, int64_t value)
{
	return bound(stmt, sqlite3_bind_int64(stmt->stmt, INDEX(stmt, name), value));
}

static int sqlite_bind_double(struct store_conn_stmt *stmt, const char *name, double value)
{
	return bound(stmt, sqlite3_bind_double(stmt->stmt, INDEX(stmt, name), value));
}

static int sqlite_bind_null(struct store_conn_stmt *stmt, const char *name)
{
	return bound(stmt, sqlite3_bind_null(stmt->stmt, INDEX(stmt, name)));
}

static int sqlite_bind_blob(struct store_conn_stmt *stmt, const char *name, const void *data, size_t len)
{
	return bound(stmt, sqlite3_bind_blob64(stmt->stmt, INDEX(stmt, name), data, len, SQLITE_TRANSIENT));
}

static int sqlite_step(struct store_conn_stmt *stmt)
{
	int rc = sqlite3_step(stmt->stmt);

	stmt->refused = rc == SQLITE_ERROR;
	if (rc == SQLITE_ROW)
		return STORE_BACKEND_ROW;
	return rc == SQLITE_DONE ? STORE_BACKEND_DONE : db_error(stmt->conn, rc);
}

static void sqlite_reset(struct store_conn_stmt *stmt)
{
	sqlite3_reset(stmt->stmt);
}

static int64_t sqlite_changes(struct store_conn *conn)
{
	return sqlite3_changes(conn->db);
}

static bool sqlite_step_refused(struct store_conn_stmt *stmt)
{
	return stmt->refused;
}

static int64_t sqlite_column_int64(struct store_conn_stmt *stmt, int col)
{
	return sqlite3_column_int64(stmt->stmt, col);
}

static double sqlite_column_double(struct store_conn_stmt *stmt, int col)
{
	return sqlite3_column_double(stmt->stmt, col);
}

static bool sqlite_column_is_null(struct store_conn_stmt *stmt, int col)
{
	return sqlite3_column_type(stmt->stmt, col) == SQLITE_NULL;
}

static const char *sqlite_column_text(struct store_conn_stmt *stmt, int col)
{
	return (const char *)sqlite3_column_text(stmt->stmt, col);
}

/* The pointer first, then the length: SQLite's order. */
static const void *sqlite_column_blob(struct store_conn_stmt *stmt, int col, size_t *len)
{
	const void *data = sqlite3_column_blob(stmt->stmt, col);

	*len = data ? (size_t)sqlite3_column_bytes(stmt->stmt, col) : 0;
	return data;
}

/* The SQLite connection of a conn of this backend (for tests: the file's own settings). */
struct sqlite3 *backend_sqlite_handle(struct store_conn *conn)
{
	return conn->db;
}

int64_t backend_sqlite_memory(void)
{
	return (int64_t)sqlite3_memory_used();
}

static int sqlite_column_count(struct store_conn_stmt *stmt)
{
	return sqlite3_column_count(stmt->stmt);
}

static const char *sqlite_column_name(struct store_conn_stmt *stmt, int col)
{
	return sqlite3_column_name(stmt->stmt, col);
}

const struct store_backend store_backend_sqlite = {
	.name = "sqlite",
	.dialect = &store_dialect_sqlite,
	.open = sqlite_open,
	.setup = sqlite_setup,
	.optimize = sqlite_optimize,
	.close = sqlite_close,
	.exec = sqlite_exec,
	.begin = sqlite_begin,
	.commit = sqlite_commit,
	.rollback = sqlite_rollback,
	.schema_version_get = sqlite_version_get,
	.schema_version_set = sqlite_version_set,
	.migrate_begin = sqlite_migrate_begin,
	.migrate_end = sqlite_migrate_end,
	.migrate_check = sqlite_migrate_check,
	.data_version = sqlite_data_version,
	.prepare = sqlite_prepare,
	.finalize = sqlite_finalize,
	.param_has = sqlite_param_has,
	.bind_text = sqlite_bind_text,
	.bind_int = sqlite_bind_int,
	.bind_double = sqlite_bind_double,
	.bind_null = sqlite_bind_null,
	.bind_blob = sqlite_bind_blob,
	.step = sqlite_step,
	.reset = sqlite_reset,
	.changes = sqlite_changes,
	.step_refused = sqlite_step_refused,
	.column_int64 = sqlite_column_int64,
	.column_double = sqlite_column_double,
	.column_is_null = sqlite_column_is_null,
	.column_text = sqlite_column_text,
	.column_blob = sqlite_column_blob,
	.column_count = sqlite_column_count,
	.column_name = sqlite_column_name,
};
