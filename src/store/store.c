#include "store.h"
#include "store_sql.h"
#include "store_schema.h"
#include "clock.h"
#include "config.h"
#include "datadir.h"
#include "secret.h"
#include "status.h"
#include "usage.h"
#include "utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
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

/* A rowid, or NULL for 0 (a merged finding has no rule row). */
static void bind_id(int *rc, sqlite3_stmt *stmt, const char *name, int64_t id)
{
	if (*rc == SQLITE_OK && !id)
		*rc = sqlite3_bind_null(stmt, sqlite3_bind_parameter_index(stmt, name));
	else
		store_bind_int(rc, stmt, name, id);
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

/* Run one statement with a single :id parameter. */
static int exec_id(struct store *store, const char *sql, int64_t id)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc = SQLITE_OK;

	if ((error = prepare(store, &stmt, sql)) < 0)
		return error;
	store_bind_int(&rc, stmt, ":id", id);
	error = rc != SQLITE_OK ? db_error(store, rc) : step_done(store, stmt);
	sqlite3_finalize(stmt);
	return error;
}

int store_check_timeout(struct store *store, int64_t check_id, double base, double chosen, const char *reason)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc = SQLITE_OK;

	if ((error = prepare(store, &stmt, "UPDATE checks SET timeout_base = :base, timeout_chosen = :chosen, "
			     "timeout_reason = :reason WHERE id = :id")) < 0)
		return error;
	store_bind_int(&rc, stmt, ":id", check_id);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_double(stmt, sqlite3_bind_parameter_index(stmt, ":base"), base);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_double(stmt, sqlite3_bind_parameter_index(stmt, ":chosen"), chosen);
	store_bind_text(&rc, stmt, ":reason", reason);
	error = rc != SQLITE_OK ? db_error(store, rc) : step_done(store, stmt);
	sqlite3_finalize(stmt);
	return error;
}

int store_rule_timeout(struct store *store, int64_t rule_row, long timeout_ms)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc = SQLITE_OK;

	if ((error = prepare(store, &stmt, "UPDATE check_threadlines SET timeout_ms = :ms WHERE id = :id")) < 0)
		return error;
	store_bind_int(&rc, stmt, ":id", rule_row);
	store_bind_int(&rc, stmt, ":ms", timeout_ms);
	error = rc != SQLITE_OK ? db_error(store, rc) : step_done(store, stmt);
	sqlite3_finalize(stmt);
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
 * When a process started (field 22 of /proc/PID/stat, clock ticks since
 * boot), or -1 when it cannot be read. The command name (field 2) is in
 * parentheses and may hold spaces and parentheses itself, so fields are
 * counted from the last ')'.
 */
static int64_t process_start(pid_t pid)
{
	char path[64], text[1024], *p, *end;
	ssize_t len;
	int fd, field;
	long long value;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	len = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	text[len] = '\0';
	if (!(p = strrchr(text, ')')))
		return -1;
	/* p is at the end of field 2; each space starts the next field. */
	for (field = 2; field < 22 && p; field++)
		if ((p = strchr(p, ' ')))
			p++;
	if (!p)
		return -1;
	errno = 0;
	value = strtoll(p, &end, 10);
	return errno || end == p || value < 0 ? -1 : (int64_t)value;
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
	int64_t *grown;
	int error, rc;

	if ((error = prepare(store, &stmt, "SELECT id, pid, pid_start FROM checks "
			     "WHERE status = 'running'")) < 0)
		return error;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (!process_gone(stmt))
			continue;
		if (!(grown = realloc(*ids, (*count + 1) * sizeof(**ids)))) {
			error = error_nomem();
			goto done;
		}
		*ids = grown;
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

/* Serialise and release a value built by the helpers below (NULL: memory ran out). */
static int json_out(char **out, json_t *value)
{
	*out = value ? json_dumps(value, JSON_COMPACT) : NULL;
	json_decref(value);
	return *out ? 0 : error_nomem();
}

static int json_strings(char **out, char *const *items, size_t count)
{
	json_t *array = json_array();
	size_t i;

	for (i = 0; array && i < count; i++)
		if (json_array_append_new(array, utf8_json(items[i])) < 0) {
			json_decref(array);
			array = NULL;
		}
	return json_out(out, array);
}

/* line_range_examined: [start, end], or null when the model gave none. */
static json_t *json_range(const struct evidence *ev)
{
	if (!ev->range_start && !ev->range_end)
		return json_null();
	return json_pack("[ii]", ev->range_start, ev->range_end);
}

static int json_evidence(char **out, const struct evidence *ev)
{
	json_t *object = json_object();

	/* json_object_set_new takes the value even when it fails. */
	if (object &&
	    (json_object_set_new(object, "code_examined", utf8_json(ev->code_examined)) < 0 ||
	     json_object_set_new(object, "line_range_examined", json_range(ev)) < 0 ||
	     json_object_set_new(object, "verification_method", utf8_json(ev->method)) < 0 ||
	     json_object_set_new(object, "checked_for_handling_elsewhere",
				 json_boolean(ev->checked_elsewhere)) < 0 ||
	     json_object_set_new(object, "where_checked", utf8_json(ev->where_checked)) < 0 ||
	     json_object_set_new(object, "is_impact_finding", json_boolean(ev->impact)) < 0)) {
		json_decref(object);
		object = NULL;
	}
	return json_out(out, object);
}

/*
 * The repository's row, made on first sight. The path is the key; a
 * trailing slash (libgit2's workdir has one) does not make another repo.
 */
static int repo_id(struct store *store, int64_t *id, const char *path, const char *name, int64_t now)
{
	sqlite3_stmt *ins = NULL, *sel = NULL;
	size_t len = strlen(path);
	char *key = NULL, *base;
	int error, rc = SQLITE_OK;

	while (len > 1 && path[len - 1] == '/')
		len--;
	if (!(key = strndup(path, len)))
		return error_nomem();
	base = strrchr(key, '/');
	if (!name)
		name = base && base[1] ? base + 1 : key;
	if ((error = prepare(store, &ins,
			     "INSERT INTO repos (path, name, created_at) VALUES (:path, :name, :now) "
			     "ON CONFLICT (path) DO UPDATE SET name = excluded.name "
			     "WHERE name IS NOT excluded.name")) < 0 ||
	    (error = prepare(store, &sel, "SELECT id FROM repos WHERE path = :path")) < 0)
		goto done;
	store_bind_text(&rc, ins, ":path", key);
	store_bind_text(&rc, ins, ":name", name);
	store_bind_int(&rc, ins, ":now", now);
	store_bind_text(&rc, sel, ":path", key);
	if (rc != SQLITE_OK) {
		error = db_error(store, rc);
		goto done;
	}
	if ((error = step_done(store, ins)) < 0)
		goto done;
	if ((rc = sqlite3_step(sel)) != SQLITE_ROW) {
		error = db_error(store, rc);
		goto done;
	}
	*id = sqlite3_column_int64(sel, 0);
done:
	sqlite3_finalize(ins);
	sqlite3_finalize(sel);
	free(key);
	return error;
}

int store_repo_id(struct store *store, int64_t *id, const char *path, const char *name)
{
	int error;

	if ((error = store_begin(store)) < 0)
		return error;
	return store_end(store, repo_id(store, id, path, name, clock_wall_ms()));
}

/* A check records its process, so a later run can tell whether it still runs. */
static void bind_process(int *rc, sqlite3_stmt *stmt)
{
	int64_t start = process_start(getpid());

	store_bind_int(rc, stmt, ":pid", getpid());
	if (start >= 0)         /* unbound is NULL: no /proc, no start time */
		store_bind_int(rc, stmt, ":pid_start", start);
}

static int check_insert(struct store *store, int64_t *id, int64_t repo, const struct check_record *r,
			int64_t created)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc = SQLITE_OK;

	if ((error = prepare(store, &stmt,
			     "INSERT INTO checks (repo_id, branch, environment, base_label, base_oid, "
			     "head_label, head_oid, target, status, created_at, pid, pid_start) VALUES "
			     "(:repo, :branch, coalesce(:environment, 'local'), :base_label, :base_oid, "
			     ":head_label, :head_oid, :target, 'running', :created, :pid, :pid_start)")) < 0)
		return error;
	bind_process(&rc, stmt);
	store_bind_int(&rc, stmt, ":repo", repo);
	store_bind_text(&rc, stmt, ":branch", r->branch);
	store_bind_text(&rc, stmt, ":environment", r->environment);
	store_bind_text(&rc, stmt, ":base_label", r->base_label);
	store_bind_text(&rc, stmt, ":base_oid", r->base_oid);
	store_bind_text(&rc, stmt, ":head_label", r->head_label);
	store_bind_text(&rc, stmt, ":head_oid", r->head_oid);
	store_bind_text(&rc, stmt, ":target", r->target);
	store_bind_int(&rc, stmt, ":created", created);
	error = rc != SQLITE_OK ? db_error(store, rc) : step_done(store, stmt);
	if (!error)
		*id = sqlite3_last_insert_rowid(store->db);
	sqlite3_finalize(stmt);
	return error;
}

/* The diff as a BLOB: it is bytes from the files, not necessarily UTF-8. */
static int diff_insert(struct store *store, int64_t check_id, const struct check_record *r)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc = SQLITE_OK;

	if ((error = prepare(store, &stmt,
			     "INSERT INTO check_diffs (check_id, diff, files, additions, deletions) "
			     "VALUES (:id, :diff, :files, :additions, :deletions)")) < 0)
		return error;
	store_bind_int(&rc, stmt, ":id", check_id);
	if (rc == SQLITE_OK)
		rc = r->diff_len ? sqlite3_bind_blob64(stmt, sqlite3_bind_parameter_index(stmt, ":diff"),
						       r->diff, r->diff_len, SQLITE_STATIC) :
			sqlite3_bind_zeroblob(stmt, sqlite3_bind_parameter_index(stmt, ":diff"), 0);
	store_bind_int(&rc, stmt, ":files", (int64_t)r->files);
	store_bind_int(&rc, stmt, ":additions", (int64_t)r->additions);
	store_bind_int(&rc, stmt, ":deletions", (int64_t)r->deletions);
	error = rc != SQLITE_OK ? db_error(store, rc) : step_done(store, stmt);
	sqlite3_finalize(stmt);
	return error;
}

int store_check_begin(struct store *store, int64_t *id, const struct check_record *record)
{
	int64_t created = record->created_ms ? record->created_ms : clock_wall_ms(), repo = 0, check = 0;
	int error;

	*id = 0;
	if (!record->repo_path || !record->branch)
		return error_set(RL_EUSAGE, "%s: a check needs a repository path and a branch", store->path);
	if (record->diff_len && !record->diff)
		return error_set(RL_EUSAGE, "%s: a diff length without a diff", store->path);
	if ((error = tx_begin(store)) < 0)
		return error;
	if (!(error = repo_id(store, &repo, record->repo_path, record->repo_name, created)) &&
	    !(error = check_insert(store, &check, repo, record, created)))
		error = diff_insert(store, check, record);
	if (!(error = tx_end(store, error)))
		*id = check;
	return error;
}

static int rule_insert(struct store *store, int64_t *id, int64_t check_id, const struct rule *rule)
{
	sqlite3_stmt *stmt = NULL;
	char *patterns = NULL, *context = NULL;
	int error, rc = SQLITE_OK;

	if ((error = json_strings(&patterns, rule->patterns, rule->npatterns)) < 0 ||
	    (error = json_strings(&context, rule->context_files, rule->ncontext)) < 0 ||
	    (error = prepare(store, &stmt,
			     "INSERT INTO check_threadlines (check_id, threadline_id, "
			     "threadline_file_path, threadline_version, threadline_content, "
			     "threadline_patterns, context_files, kind, model, severity, source) "
			     "VALUES (:check, :rule, :path, :version, :content, :patterns, :context, "
			     ":kind, :model, :severity, :source)")) < 0)
		goto done;
	store_bind_int(&rc, stmt, ":check", check_id);
	store_bind_text(&rc, stmt, ":rule", rule->id);
	store_bind_text(&rc, stmt, ":path", rule->path ? rule->path : "");
	store_bind_text(&rc, stmt, ":version", rule->version);
	store_bind_text(&rc, stmt, ":content", rule->content ? rule->content : "");
	store_bind_text(&rc, stmt, ":patterns", patterns);
	store_bind_text(&rc, stmt, ":context", context);
	store_bind_text(&rc, stmt, ":kind", rule->kind == RULE_LOCAL ? "local" : "llm");
	store_bind_text(&rc, stmt, ":model", rule->model);
	store_bind_text(&rc, stmt, ":severity", severity_name(rule->severity));
	store_bind_text(&rc, stmt, ":source", rule->source);
	if ((error = rc != SQLITE_OK ? db_error(store, rc) : step_done(store, stmt)) < 0)
		goto done;
	*id = sqlite3_last_insert_rowid(store->db);
done:
	sqlite3_finalize(stmt);
	free(patterns);
	free(context);
	return error;
}

int store_rule_add(struct store *store, int64_t *id, int64_t check_id, const struct rule *rule)
{
	int64_t row = 0;
	int error;

	*id = 0;
	if (!rule || !rule->id)
		return error_set(RL_EUSAGE, "%s: a rule without an id", store->path);
	if ((error = tx_begin(store)) < 0)
		return error;
	error = rule_insert(store, &row, check_id, rule);
	if (!(error = tx_end(store, error)))
		*id = row;
	return error;
}

static const char finding_sql[] =
	"INSERT INTO findings (check_id, check_threadline_id, rule_id, file, line, end_line, "
	"severity, category, title, issue, suggestion, evidence, verified, verify_note, "
	"fingerprint, suppressed, from_rules, reduced, created_at) VALUES (:check, :threadline, "
	":rule, :file, :line, :end_line, :severity, :category, :title, :issue, :suggestion, "
	":evidence, :verified, :verify_note, :fingerprint, :suppressed, :from_rules, :reduced, :now)";

/* One finding with finding_sql; threadline 0 is the report's merged finding. */
static int finding_insert(struct store *store, sqlite3_stmt *stmt, int64_t check_id,
			  int64_t threadline, struct finding *f, int64_t now)
{
	char *evidence = NULL, *from = NULL;
	int error, rc = SQLITE_OK;

	if ((error = json_evidence(&evidence, &f->evidence)) < 0 ||
	    (error = json_strings(&from, f->from_rules, f->nfrom)) < 0)
		goto done;
	store_bind_int(&rc, stmt, ":check", check_id);
	bind_id(&rc, stmt, ":threadline", threadline);
	store_bind_text(&rc, stmt, ":rule", f->rule_id);
	store_bind_text(&rc, stmt, ":file", f->file);
	store_bind_int(&rc, stmt, ":line", f->line);
	store_bind_int(&rc, stmt, ":end_line", f->end_line);
	store_bind_text(&rc, stmt, ":severity", severity_name(f->severity));
	store_bind_text(&rc, stmt, ":category", f->category);
	store_bind_text(&rc, stmt, ":title", f->title);
	store_bind_text(&rc, stmt, ":issue", f->issue);
	store_bind_text(&rc, stmt, ":suggestion", f->suggestion);
	store_bind_text(&rc, stmt, ":evidence", evidence);
	store_bind_int(&rc, stmt, ":verified", f->verified);
	store_bind_text(&rc, stmt, ":verify_note", f->verify_note);
	store_bind_text(&rc, stmt, ":fingerprint", f->fingerprint[0] ? f->fingerprint : NULL);
	store_bind_int(&rc, stmt, ":suppressed", f->suppressed);
	store_bind_text(&rc, stmt, ":from_rules", from);
	store_bind_int(&rc, stmt, ":reduced", !threadline);
	store_bind_int(&rc, stmt, ":now", now);
	if ((error = rc != SQLITE_OK ? db_error(store, rc) : step_done(store, stmt)) < 0)
		goto done;
	f->id = sqlite3_last_insert_rowid(store->db);
done:
	free(evidence);
	free(from);
	return error;
}

static int findings_insert(struct store *store, int64_t check_id, int64_t threadline,
			   struct finding *findings, size_t count, int64_t now)
{
	sqlite3_stmt *stmt = NULL;
	size_t i;
	int error;

	if (!count)
		return 0;
	if ((error = prepare(store, &stmt, finding_sql)) < 0)
		return error;
	for (i = 0; i < count && !error; i++)
		error = finding_insert(store, stmt, check_id, threadline, &findings[i], now);
	sqlite3_finalize(stmt);
	return error;
}

/* After a rollback the ids handed out are not real. */
static void findings_forget(struct finding *findings, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		findings[i].id = 0;
}

/* The rule's row in this check: result->id when set, else found by the rule's id. */
static int threadline_find(struct store *store, int64_t *out, int64_t check_id,
			   const struct rule_result *result)
{
	const char *rule = result->rule ? result->rule->id : NULL;
	sqlite3_stmt *stmt = NULL;
	int error, rc = SQLITE_OK;

	if ((error = prepare(store, &stmt,
			     "SELECT id FROM check_threadlines WHERE check_id = :check AND "
			     "(id = :id OR (:id = 0 AND threadline_id = :rule))")) < 0)
		return error;
	store_bind_int(&rc, stmt, ":check", check_id);
	store_bind_int(&rc, stmt, ":id", result->id);
	store_bind_text(&rc, stmt, ":rule", rule);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(stmt, 0);
	else if (rc == SQLITE_DONE)
		error = error_set(RL_ENOTFOUND, "%s: check %lld has no rule %s", store->path,
				  (long long)check_id, rule ? rule : "(no id)");
	else
		error = db_error(store, rc);
	sqlite3_finalize(stmt);
	return error;
}

static int result_insert(struct store *store, int64_t threadline, const struct rule_result *r,
			 int64_t now)
{
	sqlite3_stmt *stmt = NULL;
	char *refs = NULL;
	int error, rc = SQLITE_OK;

	if ((error = json_strings(&refs, r->file_references, r->nrefs)) < 0)
		return error;
	if ((error = prepare(store, &stmt,
			     "INSERT INTO check_results (check_threadline_id, status, reasoning, "
			     "file_references, error, cached, attempts, duration_ms, tokens_in, "
			     "tokens_out, tokens_cached, tokens_cache_write, cost_usd, chunks, "
			     "created_at) VALUES (:threadline, :status, :reasoning, :refs, :error, "
			     ":cached, :attempts, :duration, :tokens_in, :tokens_out, :tokens_cached, "
			     ":tokens_cache_write, :cost_usd, :chunks, :now)")) < 0)
		goto done;
	store_bind_int(&rc, stmt, ":threadline", threadline);
	store_bind_text(&rc, stmt, ":status", rule_status_name(r->status));
	store_bind_text(&rc, stmt, ":reasoning", r->reasoning);
	store_bind_text(&rc, stmt, ":refs", refs);
	store_bind_text(&rc, stmt, ":error", r->error);
	store_bind_int(&rc, stmt, ":cached", r->cached);
	store_bind_int(&rc, stmt, ":attempts", r->attempts);
	store_bind_int(&rc, stmt, ":duration", r->duration_ms);
	store_bind_int(&rc, stmt, ":tokens_in", r->tokens_in);
	store_bind_int(&rc, stmt, ":tokens_out", r->tokens_out);
	store_bind_int(&rc, stmt, ":tokens_cached", r->tokens_cached);
	store_bind_int(&rc, stmt, ":tokens_cache_write", r->tokens_cache_write);
	store_bind_cost(&rc, stmt, ":cost_usd", r->cost_usd);
	store_bind_int(&rc, stmt, ":chunks", r->chunks);
	store_bind_int(&rc, stmt, ":now", now);
	error = rc != SQLITE_OK ? db_error(store, rc) : step_done(store, stmt);
done:
	sqlite3_finalize(stmt);
	free(refs);
	return error;
}

/*
 * Putting a rule's result again (a retried rule) replaces the earlier
 * result and its findings: the latest settling is the one that counts.
 */
int store_result_put(struct store *store, int64_t check_id, struct rule_result *result)
{
	int64_t threadline = 0, now = clock_wall_ms();
	int error;

	if (!rule_status_settled(result->status))
		return error_set(RL_EUSAGE, "%s: rule %s has not settled (%s)", store->path,
				 result->rule && result->rule->id ? result->rule->id : "(no id)",
				 rule_status_name(result->status));
	if ((error = tx_begin(store)) < 0)
		return error;
	if (!(error = threadline_find(store, &threadline, check_id, result)) &&
	    !(error = exec_id(store, "DELETE FROM findings WHERE check_threadline_id = :id",
			      threadline)) &&
	    !(error = exec_id(store, "DELETE FROM check_results WHERE check_threadline_id = :id",
			      threadline)) &&
	    !(error = result_insert(store, threadline, result, now)))
		error = findings_insert(store, check_id, threadline, result->findings,
					result->nfindings, now);
	if ((error = tx_end(store, error)) < 0)
		findings_forget(result->findings, result->nfindings);
	else
		result->id = threadline;
	return error;
}

static bool one_of(const char *s, const char *const *names, size_t count)
{
	size_t i;

	for (i = 0; s && i < count; i++)
		if (!strcmp(s, names[i]))
			return true;
	return false;
}

static int finish_check_args(struct store *store, const char *status, const struct report *report)
{
	static const char *const statuses[] = { "complete", "partial", "failed", "cancelled" };
	static const char *const overall[] = { "clean", "minor-issues", "needs-work", "critical" };

	if (!one_of(status, statuses, sizeof(statuses) / sizeof(statuses[0])))
		return error_set(RL_EUSAGE, "%s: a check cannot finish as '%s'", store->path,
				 status ? status : "(null)");
	if (report && report->overall_severity &&
	    !one_of(report->overall_severity, overall, sizeof(overall) / sizeof(overall[0])))
		return error_set(RL_EUSAGE, "%s: unknown overall severity '%s'", store->path,
				 report->overall_severity);
	return 0;
}

/*
 * finding_count is the report's findings when there is a report, else the
 * rules' own findings (a failed or cancelled check).
 */
static int check_update(struct store *store, int64_t check_id, const char *status, long duration_ms,
			const struct check_stats *stats, const struct report *report, int64_t now)
{
	/* No statistics: nothing is known of what was billed. */
	static const struct check_stats none = { .cost_usd = -1 };
	sqlite3_stmt *stmt = NULL;
	char *must_fix = NULL;
	int error, rc = SQLITE_OK;

	if (!stats)
		stats = &none;
	if (report && (error = json_strings(&must_fix, report->must_fix, report->nmust_fix)) < 0)
		return error;
	if ((error = prepare(store, &stmt,
			     "UPDATE checks SET status = :status, finished_at = :now, "
			     "duration_ms = :duration, rule_count = (SELECT count(*) FROM "
			     "check_threadlines WHERE check_id = :id), finding_count = CASE WHEN "
			     ":has_report THEN :nfindings ELSE (SELECT count(*) FROM findings WHERE "
			     "check_id = :id AND reduced = 0) END, summary = :summary, "
			     "overall_severity = :overall, must_fix = coalesce(:must_fix, '[]'), "
			     "synthesized = :synthesized, fallback_reason = :fallback, "
			     "requests = :requests, cache_hits = :cache_hits, tokens_in = :tokens_in, "
			     "tokens_out = :tokens_out, tokens_cached = :tokens_cached, "
			     "tokens_cache_write = :tokens_cache_write, cost_usd = :cost_usd "
			     "WHERE id = :id")) < 0)
		goto done;
	store_bind_int(&rc, stmt, ":id", check_id);
	store_bind_text(&rc, stmt, ":status", status);
	store_bind_int(&rc, stmt, ":now", now);
	store_bind_int(&rc, stmt, ":duration", duration_ms);
	store_bind_int(&rc, stmt, ":has_report", report != NULL);
	store_bind_int(&rc, stmt, ":nfindings", report ? (int64_t)report->nfindings : 0);
	store_bind_text(&rc, stmt, ":summary", report ? report->summary : NULL);
	store_bind_text(&rc, stmt, ":overall", report ? report->overall_severity : NULL);
	store_bind_text(&rc, stmt, ":must_fix", must_fix);
	if (report)     /* unbound is NULL: no report, no synthesis either way */
		store_bind_int(&rc, stmt, ":synthesized", report->synthesized);
	store_bind_text(&rc, stmt, ":fallback", report ? report->fallback_reason : NULL);
	store_bind_int(&rc, stmt, ":requests", stats->requests);
	store_bind_int(&rc, stmt, ":cache_hits", stats->cache_hits);
	store_bind_int(&rc, stmt, ":tokens_in", stats->tokens_in);
	store_bind_int(&rc, stmt, ":tokens_out", stats->tokens_out);
	store_bind_int(&rc, stmt, ":tokens_cached", stats->tokens_cached);
	store_bind_int(&rc, stmt, ":tokens_cache_write", stats->tokens_cache_write);
	store_bind_cost(&rc, stmt, ":cost_usd", stats->cost_usd);
	if ((error = rc != SQLITE_OK ? db_error(store, rc) : step_done(store, stmt)) < 0)
		goto done;
	if (!sqlite3_changes(store->db))
		error = error_set(RL_ENOTFOUND, "%s: no check %lld", store->path, (long long)check_id);
done:
	sqlite3_finalize(stmt);
	free(must_fix);
	return error;
}

/*
 * Finishing again (a check resumed and finished later) replaces the
 * earlier report's merged findings.
 */
int store_check_finish(struct store *store, int64_t check_id, const char *status,
		       long duration_ms, const struct check_stats *stats, struct report *report)
{
	int64_t now = clock_wall_ms();
	int error;

	if ((error = finish_check_args(store, status, report)) < 0)
		return error;
	if ((error = tx_begin(store)) < 0)
		return error;
	if (!(error = check_update(store, check_id, status, duration_ms, stats, report, now)) &&
	    !(error = exec_id(store, "DELETE FROM findings WHERE check_id = :id AND reduced = 1",
			      check_id)) && report)
		error = findings_insert(store, check_id, 0, report->findings, report->nfindings, now);
	if ((error = tx_end(store, error)) < 0 && report)
		findings_forget(report->findings, report->nfindings);
	return error;
}

static int cache_read(struct store *store, const char *key, char **answer, struct usage *usage)
{
	sqlite3_stmt *stmt = NULL;
	const unsigned char *text;
	int error, rc = SQLITE_OK;

	if ((error = prepare(store, &stmt, "SELECT answer, tokens_in, tokens_out, tokens_cached, "
			     "tokens_cache_write FROM llm_cache WHERE key = :key")) < 0)
		return error;
	store_bind_text(&rc, stmt, ":key", key);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc == SQLITE_DONE) {
		error = error_set(RL_ENOTFOUND, "no cached answer");
		goto done;
	}
	if (rc != SQLITE_ROW) {
		error = db_error(store, rc);
		goto done;
	}
	text = sqlite3_column_text(stmt, 0);
	if (!(*answer = strdup(text ? (const char *)text : ""))) {
		error = error_nomem();
		goto done;
	}
	usage->tokens_in = (long)sqlite3_column_int64(stmt, 1);
	usage->tokens_out = (long)sqlite3_column_int64(stmt, 2);
	usage->tokens_cached = (long)sqlite3_column_int64(stmt, 3);
	usage->tokens_cache_write = (long)sqlite3_column_int64(stmt, 4);
	/* Not kept: the model table prices the tokens (the row names the model). */
	usage->cost_usd = -1;
done:
	sqlite3_finalize(stmt);
	return error;
}

static int cache_touch(struct store *store, const char *key, int64_t now)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc = SQLITE_OK;

	if ((error = prepare(store, &stmt, "UPDATE llm_cache SET hits = hits + 1, "
			     "last_used_at = :now WHERE key = :key")) < 0)
		return error;
	store_bind_int(&rc, stmt, ":now", now);
	store_bind_text(&rc, stmt, ":key", key);
	error = rc != SQLITE_OK ? db_error(store, rc) : step_done(store, stmt);
	sqlite3_finalize(stmt);
	return error;
}

/* A write transaction from the start: a read upgraded to a write may fail busy without waiting. */
int store_cache_fetch(struct store *store, const char *key, char **answer, struct usage *usage)
{
	struct usage unused;
	int error;

	*answer = NULL;
	if (!usage)
		usage = &unused;
	if ((error = tx_begin(store)) < 0)
		return error;
	if (!(error = cache_read(store, key, answer, usage)))
		error = cache_touch(store, key, clock_wall_ms());
	if ((error = tx_end(store, error)) < 0) {
		free(*answer);
		*answer = NULL;
	}
	return error;
}

int store_cache_keep(struct store *store, const char *key, const char *provider,
		     const char *model, const char *answer, const struct usage *usage)
{
	sqlite3_stmt *stmt = NULL;
	int64_t now = clock_wall_ms();
	int error, rc = SQLITE_OK;

	if ((error = tx_begin(store)) < 0)
		return error;
	if ((error = prepare(store, &stmt,
			     "INSERT OR REPLACE INTO llm_cache (key, provider, model, answer, "
			     "tokens_in, tokens_out, tokens_cached, tokens_cache_write, created_at, "
			     "last_used_at, hits) VALUES (:key, :provider, :model, :answer, :tokens_in, "
			     ":tokens_out, :tokens_cached, :tokens_cache_write, :now, :now, 0)")) < 0)
		goto done;
	store_bind_text(&rc, stmt, ":key", key);
	store_bind_text(&rc, stmt, ":provider", provider);
	store_bind_text(&rc, stmt, ":model", model);
	store_bind_text(&rc, stmt, ":answer", answer);
	store_bind_int(&rc, stmt, ":tokens_in", usage->tokens_in);
	store_bind_int(&rc, stmt, ":tokens_out", usage->tokens_out);
	store_bind_int(&rc, stmt, ":tokens_cached", usage->tokens_cached);
	store_bind_int(&rc, stmt, ":tokens_cache_write", usage->tokens_cache_write);
	store_bind_int(&rc, stmt, ":now", now);
	error = rc != SQLITE_OK ? db_error(store, rc) : step_done(store, stmt);
done:
	sqlite3_finalize(stmt);
	return tx_end(store, error);
}

int store_refusal_put(struct store *store, const char *server, const char *model, const char *param)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc = SQLITE_OK;

	if ((error = tx_begin(store)) < 0)
		return error;
	if ((error = prepare(store, &stmt, "INSERT OR REPLACE INTO llm_refusals (server, model, param, "
			     "refused_at) VALUES (:server, :model, :param, :now)")) < 0)
		goto done;
	store_bind_text(&rc, stmt, ":server", server);
	store_bind_text(&rc, stmt, ":model", model);
	store_bind_text(&rc, stmt, ":param", param);
	store_bind_int(&rc, stmt, ":now", clock_wall_ms());
	error = rc != SQLITE_OK ? db_error(store, rc) : step_done(store, stmt);
done:
	sqlite3_finalize(stmt);
	return tx_end(store, error);
}

int store_refusals_get(struct buf *out, struct store *store, const char *server, const char *model)
{
	sqlite3_stmt *stmt = NULL;
	int error, rc = SQLITE_OK;

	if ((error = prepare(store, &stmt, "SELECT param FROM llm_refusals WHERE server = :server AND "
			     "model = :model ORDER BY param")) < 0)
		return error;
	store_bind_text(&rc, stmt, ":server", server);
	store_bind_text(&rc, stmt, ":model", model);
	if (rc != SQLITE_OK)
		error = db_error(store, rc);
	while (!error && (rc = sqlite3_step(stmt)) == SQLITE_ROW)
		error = buf_printf(out, "%s%s", out->len ? "," : "", (const char *)sqlite3_column_text(stmt, 0));
	if (!error && rc != SQLITE_DONE)
		error = db_error(store, rc);
	sqlite3_finalize(stmt);
	return error;
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
