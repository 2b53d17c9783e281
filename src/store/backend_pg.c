/*
 * The store on a PostgreSQL server, through libpq: the location is a
 * connection URI or key/value string as libpq reads it (store_location.h),
 * and the PG* variables, a service file and ~/.pgpass count as they do for
 * psql. With its statement cache (backend_pg_cache.c), the only files of
 * revline that include libpq-fe.h (tests/structure/layers.py).
 *
 * - Connecting: connect_timeout 10 unless the location or PGCONNECT_TIMEOUT
 *   gives one; libpq's own sslmode (prefer: TLS whenever the server offers
 *   it) unless the location says otherwise; client_encoding UTF8. The
 *   password is never shown: messages name the location's display form
 *   and the setting (revline.db or REVLINE_DB), and the password is added
 *   to the secrets every message is scrubbed of (secret.h).
 * - Statements: the store's :name parameters become $1, $2, ... when a
 *   statement is prepared; each run sends the values with the types they
 *   were bound with (int8, float8, text, bytea in binary; NULL untyped)
 *   and fetches the result whole, so that another statement may run while
 *   this one's rows are read.
 * - Prepared statements (backend_pg_cache.c): the connection keeps up to PG_CACHE_SIZE, one per
 *   SQL text and parameter types, named revline_N (N never reused). The
 *   first run sends the Parse with the run, in one round trip (pipeline
 *   mode), later runs the run alone: the server parses once, and plans
 *   once a statement has run a few times (its generic plan). A new one
 *   takes the least recently run one's place, deallocated first, outside a
 *   transaction only (in one it runs unnamed: a failed DEALLOCATE would
 *   fail the transaction). A rollback, or a savepoint's (refusable
 *   statements), keeps them; one whose Parse failed is not kept. One the
 *   server lost or has already (DISCARD ALL, a pooler that moves the
 *   session: 26000, 42P05) or whose plan cannot follow its tables (0A000)
 *   turns the cache off: unnamed statements from then on, the failed one
 *   run again at once outside a transaction. exec (a migration's script)
 *   deallocates them all first.
 * - Write transactions: BEGIN, then a transaction-scoped advisory lock
 *   (LOCK_KEY) that every revline client takes, so that write transactions
 *   run one at a time as they do on SQLite (BEGIN IMMEDIATE), waited for at
 *   most LOCK_WAIT; the migrations run under it too, so two clients that
 *   start at once migrate once. The start is sent with the transaction's
 *   first statement, in its round trip (the pipeline: the statement runs
 *   only once the lock is held), or on its own before anything else (a
 *   script, a savepoint); a transaction that ran nothing sends nothing. A
 *   start that fails on a serialization failure or a deadlock is tried
 *   again, up to BEGIN_TRIES times.
 * - The data version (store_history_version): the sequence
 *   revline_data_version, advanced by nextval() after every commit of a
 *   transaction that changed rows (sent with the COMMIT, in its round trip)
 *   and after every such statement outside a transaction: an INSERT,
 *   UPDATE or DELETE sends it in the statement's round trip (a pipeline,
 *   the nextval after the statement's own commit), which advances it even
 *   when nothing matched. Sequences are not transactional and take no lock, so
 *   this costs one short statement per write and no contention; it moves
 *   only after the change is visible, so a reader that sees it move reads
 *   the change. A client killed between its commit and the nextval leaves
 *   the counter behind until the next write.
 */
#include "store_backend.h"
#include "backend_pg_cache.h"
#include "store_schema.h"
#include "store_location.h"
#include "secret.h"
#include "status.h"
#include "utf8.h"

#include <errno.h>
#include <inttypes.h>
#include "backend_pg_lib.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define CONNECT_TIMEOUT "10"
/* The advisory lock of revline's write transactions: a number of its own, the same in every revline. */
#define LOCK_KEY "7310598736549989"
#define LOCK_WAIT "30s"
#define BEGIN_TRIES 5

/* The types of the values sent (pg_type.h's OIDs, stable since forever). */
#define OID_BYTEA 17
#define OID_INT8 20
#define OID_TEXT 25
#define OID_FLOAT8 701
#define OID_BOOL 16

/* The mark of a statement whose failure as it runs is its input refused (store_dialect.feedback_match). */
#define REFUSABLE "/* refusable */"

/* The statements a connection keeps prepared on the server. */
#define DATA_VERSION_NEXT "SELECT nextval('revline_data_version')"

struct store_conn {
	PGconn *pg;
	/* The location as messages name it, and the setting that named it. */
	char *display;
	const char *setting;
	bool in_tx;
	/* The transaction's start, not sent yet: it goes with the first statement. */
	bool begin_pending;
	/* A statement changed rows in the open transaction: advance the data version at commit. */
	bool tx_wrote;
	int64_t last_changes;
	int64_t total_changes;
	struct pg_cache cache;
};

/* A bound value: its type, its bytes (text form, or the raw bytes of a bytea). */
struct param {
	char *name;
	unsigned int type;
	char *value;
	int length;
	bool is_null;
};

struct store_conn_stmt {
	struct store_conn *conn;
	char *sql;               /* with $n in place of :name */
	uint64_t hash;           /* of sql */
	/* An INSERT, UPDATE or DELETE: outside a transaction, the data version's nextval goes with it. */
	bool writes;
	struct param *params;
	int nparams;
	PGresult *res;
	int row;                 /* the current row; -1 before the first step */
	bool ran;
	/* Marked REFUSABLE: run under a savepoint in a transaction; refused when its SQL failed. */
	bool refusable, refused;
	int64_t changes;
	/* column_blob's bytes, one per column of the row, until the next step. */
	unsigned char **blobs;
	int nblobs;
};

/* --- messages ------------------------------------------------------------- */

/* The first line of libpq's message, without "connection to server ... failed: ". */
static void first_line(char *out, size_t size, const char *message)
{
	const char *p = message ? message : "", *failed = strstr(p, " failed: ");
	size_t len;

	if (!strncmp(p, "connection to server", 20) && failed && failed < p + strcspn(p, "\n"))
		p = failed + 9;
	/* The server's own words come with their severity: "FATAL:  password authentication failed". */
	if (!strncmp(p, "FATAL:  ", 8) || !strncmp(p, "ERROR:  ", 8))
		p += 8;
	len = strcspn(p, "\n");
	while (len && (p[len - 1] == ' ' || p[len - 1] == '.'))
		len--;
	snprintf(out, size, "%.*s", (int)len, p);
}

/*
 * What to do about a connection that failed with libpq's message (libpq's
 * and the server's English; in another language the advice is general).
 */
static const char *connect_advice(PGconn *pg, const char *message)
{
	if (libpq.connectionNeedsPassword(pg) || strstr(message, "password authentication failed") ||
	    strstr(message, "no password supplied") ||
	    (libpq.connectionUsedPassword(pg) && strstr(message, "authentication")))
		return "the password was refused: give the right one in the location, PGPASSWORD or ~/.pgpass";
	if (strstr(message, "SSL") || strstr(message, "GSSAPI") || strstr(message, "certificate"))
		return "TLS was refused: let the server offer TLS, or change sslmode in the location";
	if (strstr(message, "does not exist") && strstr(message, "database"))
		return "the database does not exist: create it (createdb), or name another";
	if (strstr(message, "timeout expired"))
		return "the server did not answer in time: check that it runs and is reachable";
	if (strstr(message, "Connection refused") || strstr(message, "No such file") ||
	    strstr(message, "Is the server running") || strstr(message, "could not translate host name"))
		return "the server is down or unreachable: start it, or check the host and port";
	if (strstr(message, "authentication") || strstr(message, "role") || strstr(message, "pg_hba"))
		return "the server refused the login: check the user and the server's pg_hba.conf";
	return "check the server and the location";
}

static int connect_error(struct store_conn *conn)
{
	char line[512];
	const char *message = libpq.errorMessage(conn->pg);

	first_line(line, sizeof(line), message);
	return error_set(RL_EIO, "%s (%s): cannot connect: %s (%s; or set %s to a file path to keep "
			 "the store locally)", conn->setting, conn->display, line,
			 connect_advice(conn->pg, message), conn->setting);
}

/* What the user can do about a statement's failure, by its SQLSTATE; "" when nothing helps. */
static const char *sqlstate_advice(const char *state)
{
	if (!state)
		return "";
	if (!strcmp(state, "55P03") || !strcmp(state, "57014"))
		return " (another revline held the database's lock too long; let it finish and run again)";
	if (!strncmp(state, "53", 2))
		return " (the server is out of a resource: disk, memory or connections; ask its administrator)";
	if (!strncmp(state, "42501", 5))
		return " (the user may not do this: grant it the privileges on the database's tables)";
	if (!strcmp(state, "26000"))
		return " (the session's prepared statements were reset, as by a pooler in transaction mode; run again)";
	if (!strncmp(state, "08", 2) || !strncmp(state, "57P", 3))
		return " (the connection to the server was lost; run again)";
	return "";
}

/* A failed statement's message: "DISPLAY: MESSAGE (advice)". */
static int result_error(struct store_conn *conn, PGresult *res)
{
	char line[1024];
	const char *state = res ? libpq.resultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *primary = res ? libpq.resultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;

	if (!res && libpq.status(conn->pg) != CONNECTION_OK)
		state = "08006";
	first_line(line, sizeof(line), primary ? primary : libpq.errorMessage(conn->pg));
	if (!*line)
		snprintf(line, sizeof(line), "the server gave no answer");
	return error_set(RL_EIO, "%s: %s%s", conn->display, line, sqlstate_advice(state));
}

static bool result_ok(PGresult *res)
{
	ExecStatusType st = res ? libpq.resultStatus(res) : PGRES_FATAL_ERROR;

	return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
}

/* The rows a statement inserted, changed or deleted: a SELECT's rows (PQcmdTuples gives them too) are none. */
static int64_t cmd_tuples(PGresult *res)
{
	const char *n = libpq.cmdTuples(res);

	if (!strncmp(libpq.cmdStatus(res), "SELECT", 6))
		return 0;
	return n && *n ? strtoll(n, NULL, 10) : 0;
}

/* The data version moves after a change is visible (see the top of this file); best effort. */
static void data_version_bump(struct store_conn *conn)
{
	libpq.clear(libpq.exec(conn->pg, DATA_VERSION_NEXT));
}

static int begin_flush(struct store_conn *conn);

static int pg_exec(struct store_conn *conn, const char *sql)
{
	PGresult *res;
	int error;

	if ((error = begin_flush(conn)) < 0)
		return error;
	res = libpq.exec(conn->pg, sql);
	error = result_ok(res) ? 0 : result_error(conn, res);

	libpq.clear(res);
	return error;
}

/* --- prepared statements (see the top of this file) ---------------------- */

/* FNV-1a. */
/* A script through exec (a migration), which may change the tables under the prepared statements. */
static int pg_exec_script(struct store_conn *conn, const char *sql)
{
	int error = 0;

	if (conn->cache.count) {
		pg_cache_forget(&conn->cache);
		error = pg_exec(conn, "DEALLOCATE ALL");
	}
	return error < 0 ? error : pg_exec(conn, sql);
}

/* --- opening -------------------------------------------------------------- */

/* Nothing on stderr: the engine never prints (a NOTICE would). */
static void notice_ignore(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* The password the location holds, among the secrets no message may show. */
static int password_guard(const char *conninfo)
{
	PQconninfoOption *options = libpq.conninfoParse(conninfo, NULL), *o;
	int error = 0;

	for (o = options; o && o->keyword && !error; o++)
		if (o->val && *o->val && (!strcmp(o->keyword, "password") || !strcmp(o->keyword, "sslpassword")))
			error = secret_add(o->val);
	libpq.conninfoFree(options);
	return error;
}

static void pg_close(struct store_conn *conn)
{
	if (!conn)
		return;
	pg_cache_forget(&conn->cache);
	libpq.finish(conn->pg);
	free(conn->display);
	free(conn);
}

static PGconn *pg_connect(const char *conninfo)
{
	/* Before dbname, so that the location's own setting wins; after it, what must be so. */
	/*
	 * A server gone silent on a network ends a wait: TCP keepalives, and
	 * data unacknowledged for 60 s (tcp_user_timeout); the location's own
	 * settings win. A statement's own time is bounded once connected (pg_open).
	 */
	const char *keys[] = { "connect_timeout", "fallback_application_name", "keepalives", "keepalives_idle",
			       "keepalives_interval", "keepalives_count", "tcp_user_timeout", "dbname",
			       "client_encoding", NULL };
	const char *values[] = { CONNECT_TIMEOUT, "revline", "1", "30", "10", "3", "60000", conninfo, "UTF8",
				 NULL };
	const char *env = getenv("PGCONNECT_TIMEOUT");

	if (env && *env)
		values[0] = env;
	return libpq.connectdbParams(keys, values, 1);
}

static int pg_open(struct store_conn **out, const char *where)
{
	struct store_location location;
	struct store_conn *conn = NULL;
	int error;

	*out = NULL;
	if ((error = pg_lib_load()) < 0 || (error = store_location_parse(&location, where)) < 0)
		return error;
	if ((error = password_guard(location.conninfo)) < 0)
		goto done;
	if (!(conn = calloc(1, sizeof(*conn)))) {
		error = error_nomem();
		goto done;
	}
	conn->display = location.display;
	location.display = NULL;
	conn->setting = store_location_setting(where);
	if (!(conn->pg = pg_connect(location.conninfo))) {
		error = error_nomem();
		goto done;
	}
	if (libpq.status(conn->pg) != CONNECTION_OK) {
		error = connect_error(conn);
		goto done;
	}
	libpq.setNoticeProcessor(conn->pg, notice_ignore, NULL);
	/* A statement the server works on for more than 2 minutes is cancelled by it. */
	if ((error = pg_exec(conn, "SET statement_timeout = '120s'")) < 0)
		goto done;
	*out = conn;
	conn = NULL;
done:
	pg_close(conn);
	store_location_release(&location);
	return error;
}

static int pg_setup(struct store_conn *conn)
{
	(void)conn;
	return 0;
}

/* The server keeps its own statistics (autovacuum's ANALYZE). */
static void pg_optimize(struct store_conn *conn)
{
	(void)conn;
}

/* --- transactions and the schema ------------------------------------------ */

static bool state_is(PGresult *res, const char *a, const char *b)
{
	const char *state = res ? libpq.resultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

	return state && (!strcmp(state, a) || !strcmp(state, b));
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The start of a write transaction, one statement at a time as the pipeline sends it. */
#define BEGIN_STEPS 3
static const char *const begin_steps[BEGIN_STEPS] = {
	"BEGIN", "SET LOCAL lock_timeout = '" LOCK_WAIT "'", "SELECT pg_advisory_xact_lock(" LOCK_KEY ")"
};

/*
 * After a start that failed, rolled back: whether to go again (40001
 * serialization failure, 40P01 deadlock: the other side won).
 */
static bool begin_again(struct store_conn *conn, PGresult *res, int tries)
{
	libpq.clear(libpq.exec(conn->pg, "ROLLBACK"));
	if (tries >= BEGIN_TRIES || !state_is(res, "40001", "40P01"))
		return false;
	pause_ms(20L * tries);
	return true;
}

/* The pending start, sent now on its own: what comes next is no statement of the pipeline's. */
static int begin_flush(struct store_conn *conn)
{
	static const char sql[] = "BEGIN; SET LOCAL lock_timeout = '" LOCK_WAIT "'; "
				  "SELECT pg_advisory_xact_lock(" LOCK_KEY ")";
	PGresult *res = NULL;
	int tries, error = 0;

	if (!conn->begin_pending)
		return 0;
	conn->begin_pending = false;
	for (tries = 1; ; tries++) {
		res = libpq.exec(conn->pg, sql);
		if (result_ok(res))
			break;
		if (!begin_again(conn, res, tries)) {
			error = result_error(conn, res);
			break;
		}
		libpq.clear(res);
	}
	libpq.clear(res);
	return error;
}

/* Nothing is sent yet: the start goes with the first statement (see the top of this file). */
static int pg_begin(struct store_conn *conn)
{
	conn->in_tx = true;
	conn->tx_wrote = false;
	conn->begin_pending = true;
	return 0;
}

/*
 * COMMIT, and when the transaction changed rows the data version's
 * nextval() right after it in the same round trip (a simple query of two
 * statements: the second runs once the first has committed). The result
 * of the COMMIT is the one that counts.
 */
static PGresult *commit_send(struct store_conn *conn)
{
	PGresult *res = NULL, *next;

	if (!conn->tx_wrote)
		return libpq.exec(conn->pg, "COMMIT");
	if (!libpq.sendQuery(conn->pg, "COMMIT; SELECT nextval('revline_data_version')"))
		return NULL;
	while ((next = libpq.getResult(conn->pg))) {
		if (!res)
			res = next;
		else
			libpq.clear(next);
	}
	return res;
}

static int pg_commit(struct store_conn *conn)
{
	PGresult *res;
	int error = 0;

	/* A transaction that ran nothing was never started. */
	if (conn->begin_pending) {
		conn->begin_pending = false;
		conn->in_tx = false;
		return 0;
	}
	res = commit_send(conn);
	if (!result_ok(res))
		error = result_error(conn, res);
	/* The server answers ROLLBACK to the COMMIT of a transaction that failed. */
	else if (!strcmp(libpq.cmdStatus(res), "ROLLBACK"))
		error = error_set(RL_EIO, "%s: the transaction failed and was rolled back", conn->display);
	libpq.clear(res);

	/* A COMMIT of a failed transaction is a ROLLBACK that succeeds: the transaction is over either way. */
	conn->in_tx = false;
	conn->tx_wrote = false;
	return error;
}

static void pg_rollback(struct store_conn *conn)
{
	conn->begin_pending = false;
	if (libpq.transactionStatus(conn->pg) != PQTRANS_IDLE)
		libpq.clear(libpq.exec(conn->pg, "ROLLBACK"));
	conn->in_tx = false;
	conn->tx_wrote = false;
}

/* The single value of a query, NULL for none; *value unchanged then. */
static int query_int(struct store_conn *conn, const char *sql, int64_t *value, bool *found)
{
	PGresult *res;
	int error;

	*found = false;
	if ((error = begin_flush(conn)) < 0)
		return error;
	res = libpq.exec(conn->pg, sql);
	if (libpq.resultStatus(res) != PGRES_TUPLES_OK)
		error = result_error(conn, res);
	else if (libpq.ntuples(res) > 0 && !libpq.getisnull(res, 0, 0))
		*value = strtoll(libpq.getvalue(res, 0, 0), NULL, 10), *found = true;
	libpq.clear(res);
	return error;
}

/*
 * revline_schema_version, made with the schema: a database without it is
 * new (version 0). Whether it exists is read from pg_class, which each
 * statement reads afresh, not by name (to_regclass): a name the session
 * looked up before it existed stays unknown, from the session's catalog
 * cache, in a transaction begun before another client made it, as one
 * waiting for the lock to migrate is, which would make the schema again.
 */
static int pg_version_get(struct store_conn *conn, int *version)
{
	int64_t value = 0;
	bool found;
	int error;

	*version = 0;
	if ((error = query_int(conn, "SELECT count(*) FROM pg_catalog.pg_class c "
			       "WHERE c.relname = 'revline_schema_version' AND c.relkind = 'r' "
			       "AND pg_catalog.pg_table_is_visible(c.oid)", &value, &found)) < 0 || !value)
		return error;
	value = 0;
	error = query_int(conn, "SELECT version FROM revline_schema_version WHERE id = 1", &value, &found);
	*version = (int)value;
	return error;
}

static int pg_version_set(struct store_conn *conn, int version)
{
	char sql[160];

	snprintf(sql, sizeof(sql), "INSERT INTO revline_schema_version (id, version) VALUES (1, %d) "
		 "ON CONFLICT (id) DO UPDATE SET version = excluded.version", version);
	return pg_exec(conn, sql);
}

/* Constraints are checked as each statement runs: nothing to do around a migration. */
static int pg_migrate_nothing(struct store_conn *conn)
{
	(void)conn;
	return 0;
}

static int pg_data_version(struct store_conn *conn, int64_t *data, int64_t *changes)
{
	bool found;

	*changes = conn->total_changes;
	return query_int(conn, "SELECT last_value FROM revline_data_version", data, &found);
}

/* --- statements ----------------------------------------------------------- */

static bool name_char(char c, bool first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
}

/* The parameter's number (from 1), adding it when new; 0 when memory runs out. */
static int param_index(struct store_conn_stmt *stmt, const char *name, size_t len)
{
	struct param *grown;
	int i;

	for (i = 0; i < stmt->nparams; i++)
		if (strlen(stmt->params[i].name) == len && !strncmp(stmt->params[i].name, name, len))
			return i + 1;
	if (!(grown = realloc(stmt->params, (size_t)(stmt->nparams + 1) * sizeof(*grown))))
		return 0;
	stmt->params = grown;
	memset(&grown[stmt->nparams], 0, sizeof(*grown));
	grown[stmt->nparams].is_null = true;
	if (!(grown[stmt->nparams].name = strndup(name, len)))
		return 0;
	return ++stmt->nparams;
}

/* The end of a quoted run that starts at s[i] (quote q), the quote doubled inside. */
static size_t quoted_end(const char *s, size_t i, char q)
{
	for (i++; s[i]; i++) {
		if (s[i] == q) {
			if (s[i + 1] != q)
				return i + 1;
			i++;
		}
	}
	return i;
}

/* The SQL with :name made $n, outside quotes and comments; the names in stmt->params. */
static int sql_number(struct store_conn_stmt *stmt, const char *sql)
{
	size_t i = 0, n = strlen(sql), start, len = 0, cap = n * 2 + 16;
	char *out = malloc(cap);
	int index;

	if (!out)
		return error_nomem();
	while (i < n) {
		start = i;
		if (sql[i] == '\'' || sql[i] == '"') {
			i = quoted_end(sql, i, sql[i]);
		} else if (sql[i] == '-' && sql[i + 1] == '-') {
			i += strcspn(sql + i, "\n");
		} else if (sql[i] == ':' && sql[i + 1] == ':') {
			i += 2;
		} else if (sql[i] == ':' && name_char(sql[i + 1], true)) {
			for (i++; name_char(sql[i], false); i++)
				;
			/* The name keeps its colon, as the store binds it. */
			if (!(index = param_index(stmt, sql + start, i - start))) {
				free(out);
				return error_nomem();
			}
			len += (size_t)snprintf(out + len, cap - len, "$%d", index);
			continue;
		} else {
			i++;
		}
		memcpy(out + len, sql + start, i - start);
		len += i - start;
	}
	out[len] = '\0';
	stmt->sql = out;
	return 0;
}

static void blobs_free(struct store_conn_stmt *stmt)
{
	int i;

	for (i = 0; i < stmt->nblobs; i++) {
		libpq.freemem(stmt->blobs[i]);
		stmt->blobs[i] = NULL;
	}
}

static void params_clear(struct store_conn_stmt *stmt)
{
	int i;

	for (i = 0; i < stmt->nparams; i++) {
		free(stmt->params[i].value);
		stmt->params[i].value = NULL;
		stmt->params[i].is_null = true;
		stmt->params[i].type = 0;
	}
}

static void pg_finalize(struct store_conn_stmt *stmt)
{
	int i;

	if (!stmt)
		return;
	params_clear(stmt);
	for (i = 0; i < stmt->nparams; i++)
		free(stmt->params[i].name);
	free(stmt->params);
	blobs_free(stmt);
	free(stmt->blobs);
	libpq.clear(stmt->res);
	free(stmt->sql);
	free(stmt);
}

/* Whether the SQL's first word is INSERT, UPDATE or DELETE. */
static bool sql_writes(const char *sql)
{
	sql += strspn(sql, " \t\r\n");
	return (!strncasecmp(sql, "INSERT", 6) || !strncasecmp(sql, "UPDATE", 6) ||
		!strncasecmp(sql, "DELETE", 6)) && !name_char(sql[6], false);
}

/* Nothing reaches the server yet: the SQL is checked when it first runs. */
static int pg_prepare(struct store_conn *conn, struct store_conn_stmt **out, const char *sql)
{
	struct store_conn_stmt *stmt;
	int error;

	*out = NULL;
	if (!(stmt = calloc(1, sizeof(*stmt))))
		return error_nomem();
	stmt->conn = conn;
	stmt->row = -1;
	stmt->refusable = strstr(sql, REFUSABLE) != NULL;
	stmt->writes = sql_writes(sql);
	if ((error = sql_number(stmt, sql)) < 0) {
		pg_finalize(stmt);
		return error;
	}
	stmt->hash = pg_hash(14695981039346656037ULL, stmt->sql, strlen(stmt->sql));
	*out = stmt;
	return 0;
}

static struct param *param_find(struct store_conn_stmt *stmt, const char *name)
{
	int i;

	for (i = 0; i < stmt->nparams; i++)
		if (!strcmp(stmt->params[i].name, name))
			return &stmt->params[i];
	return NULL;
}

static bool pg_param_has(struct store_conn_stmt *stmt, const char *name)
{
	return param_find(stmt, name) != NULL;
}

/* Keep len bytes of value as the parameter's, of the type; a name the SQL lacks is an error. */
static int param_set(struct store_conn_stmt *stmt, const char *name, unsigned int type,
		     const void *value, size_t len)
{
	struct param *p = param_find(stmt, name);
	char *copy = NULL;

	if (!p)
		return error_set(RL_ERROR, "%s: no parameter %s in the statement", stmt->conn->display, name);
	if (len > INT32_MAX)
		return error_set(RL_EIO, "%s: a value of %zu bytes is too large to store", stmt->conn->display, len);
	if (value && !(copy = malloc(len + 1)))
		return error_nomem();
	if (value) {
		memcpy(copy, value, len);
		copy[len] = '\0';
	}
	free(p->value);
	p->value = copy;
	p->length = (int)len;
	p->type = type;
	p->is_null = !value;
	return 0;
}

/* The server takes UTF-8 only: an invalid byte becomes U+FFFD (SQLite keeps it as it is). */
static int pg_bind_text(struct store_conn_stmt *stmt, const char *name, const char *value)
{
	struct buf valid = BUF_INIT;
	size_t len = strlen(value);
	int error;

	if (utf8_valid(value, len))
		return param_set(stmt, name, OID_TEXT, value, len);
	if ((error = utf8_sanitize(&valid, value, len)) == 0)
		error = param_set(stmt, name, OID_TEXT, valid.ptr ? valid.ptr : "", valid.len);
	buf_release(&valid);
	return error;
}

static int pg_bind_int(struct store_conn_stmt *stmt, const char *name, int64_t value)
{
	char text[32];

	snprintf(text, sizeof(text), "%" PRId64, value);
	return param_set(stmt, name, OID_INT8, text, strlen(text));
}

static int pg_bind_double(struct store_conn_stmt *stmt, const char *name, double value)
{
	char text[64];

	if (isnan(value))
		snprintf(text, sizeof(text), "NaN");
	else if (isinf(value))
		snprintf(text, sizeof(text), "%sInfinity", value < 0 ? "-" : "");
	else
		snprintf(text, sizeof(text), "%.17g", value);
	return param_set(stmt, name, OID_FLOAT8, text, strlen(text));
}

static int pg_bind_null(struct store_conn_stmt *stmt, const char *name)
{
	return param_set(stmt, name, 0, NULL, 0);
}

static int pg_bind_blob(struct store_conn_stmt *stmt, const char *name, const void *data, size_t len)
{
	return param_set(stmt, name, OID_BYTEA, data, len);
}

/* SQLSTATE classes 22 (data exception) and 42 (syntax or access rule): what the statement's input made fail. */
static bool refused_state(PGresult *res)
{
	const char *state = res ? libpq.resultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

	return state && (!strncmp(state, "22", 2) || (!strncmp(state, "42", 2) && strcmp(state, "42501")));
}

/* One run of a statement as the pipeline sends it. */
struct run {
	const char *name;        /* the prepared statement's; NULL: the unnamed statement */
	bool begin;              /* the transaction's start first (begin_steps) */
	bool parse;              /* prepare it first, in the same round trip */
	bool bump;               /* the data version's nextval after the statement's commit */
	int n;
	const unsigned int *types;
	const char *const *values;
	const int *lengths, *formats;
};

/* Queue the run: the number of syncs sent, each the end of a part (the nextval's part runs after the statement's commit). */
static int pipeline_send(struct store_conn_stmt *stmt, const struct run *r)
{
	PGconn *pg = stmt->conn->pg;
	int ok = 1, i;

	for (i = 0; r->begin && ok && i < BEGIN_STEPS; i++)
		ok = libpq.sendQueryParams(pg, begin_steps[i], 0, NULL, NULL, NULL, NULL, 0);
	if (ok && r->parse)
		ok = libpq.sendPrepare(pg, r->name, stmt->sql, r->n, r->types);
	if (ok && r->name)
		ok = libpq.sendQueryPrepared(pg, r->name, r->n, r->values, r->lengths, r->formats, 0);
	else if (ok)
		ok = libpq.sendQueryParams(pg, stmt->sql, r->n, r->types, r->values, r->lengths, r->formats, 0);
	if (!libpq.pipelineSync(pg))
		return 0;
	if (ok && r->bump && libpq.sendQueryParams(pg, DATA_VERSION_NEXT, 0, NULL, NULL, NULL, NULL, 0) &&
	    libpq.pipelineSync(pg))
		return 2;
	return 1;
}

/* The results of the pipeline's statements in order, up to its last sync; fewer when the connection is lost. */
static int pipeline_read(PGconn *pg, int syncs, PGresult **got, int max)
{
	PGresult *res;
	int n = 0, nulls = 0, left = 16;

	while (syncs > 0 && nulls < 2 && left-- > 0) {
		if (!(res = libpq.getResult(pg))) {
			nulls++;
			continue;
		}
		nulls = 0;
		if (libpq.resultStatus(res) == PGRES_PIPELINE_SYNC)
			syncs--, libpq.clear(res);
		else if (n < max)
			got[n++] = res;
		else
			libpq.clear(res);
	}
	return n;
}

/* Where the run's own results start: after the start's, all of which went through (*begun), or at the one that failed. */
static int begin_read(PGresult **got, int n, bool begin, bool *begun)
{
	int i;

	*begun = true;
	for (i = 0; begin && i < BEGIN_STEPS; i++)
		if (i >= n || !result_ok(got[i])) {
			*begun = false;
			return i;
		}
	return begin ? BEGIN_STEPS : 0;
}

/*
 * Send the run in one round trip: the statement's result, or its Parse's
 * failure, or the start's; NULL when the connection failed (*parsed: the
 * Parse went through; *begun: the start did, or there was none).
 */
static PGresult *pipeline_run(struct store_conn_stmt *stmt, const struct run *r, bool *parsed, bool *begun)
{
	PGconn *pg = stmt->conn->pg;
	PGresult *got[BEGIN_STEPS + 3] = { NULL }, *res = NULL;
	int n = 0, syncs, i, mine;

	*parsed = false;
	*begun = false;
	if (!libpq.enterPipelineMode(pg))
		return NULL;
	if ((syncs = pipeline_send(stmt, r)) > 0)
		n = pipeline_read(pg, syncs, got, BEGIN_STEPS + 3);
	if (libpq.exitPipelineMode(pg)) {
		mine = begin_read(got, n, r->begin, begun);
		if (*begun && r->parse)
			*parsed = mine < n && libpq.resultStatus(got[mine]) == PGRES_COMMAND_OK;
		mine += *parsed ? 1 : 0;
		res = mine < n ? got[mine] : NULL;
	}
	for (i = 0; i < n; i++)
		if (got[i] != res)
			libpq.clear(got[i]);
	return res;
}

/* The run, with the transaction's start when it is pending: sent again when the start lost to another client. */
static PGresult *begin_run(struct store_conn_stmt *stmt, struct run *r, bool *parsed)
{
	struct store_conn *conn = stmt->conn;
	PGresult *res;
	bool begun;
	int tries;

	for (tries = 1; ; tries++) {
		r->begin = conn->begin_pending;
		conn->begin_pending = false;
		res = pipeline_run(stmt, r, parsed, &begun);
		if (begun || !begin_again(conn, res, tries))
			return res;
		libpq.clear(res);
		conn->begin_pending = true;
	}
}

/*
 * Run the statement, prepared on the connection when the cache has it or
 * a place for it. A prepared statement gone stale (see the top of this
 * file) turns the cache off, and outside a transaction, where the failed
 * run changed nothing, the statement runs again unnamed.
 */
static PGresult *stmt_send(struct store_conn_stmt *stmt, struct run *r)
{
	struct store_conn *conn = stmt->conn;
	struct pg_prepared *p = pg_cache_get(&conn->cache, conn->pg, stmt->sql, stmt->hash, r->types, r->n,
					     &r->parse);
	bool parsed, reused = p && !r->parse;
	PGresult *res;

	r->name = p ? p->name : NULL;
	res = begin_run(stmt, r, &parsed);
	if (p && r->parse && !parsed)
		pg_cache_drop(&conn->cache, p);
	if (p && (state_is(res, "26000", "42P05") || (reused && state_is(res, "0A000", "0A000")))) {
		pg_cache_forget(&conn->cache);
		conn->cache.off = true;
		if (libpq.transactionStatus(conn->pg) == PQTRANS_IDLE) {
			libpq.clear(res);
			r->name = NULL;
			r->parse = false;
			res = begin_run(stmt, r, &parsed);
		}
	}
	return res;
}

/* Run the statement with its values and keep its whole result. */
static int stmt_run(struct store_conn_stmt *stmt)
{
	struct store_conn *conn = stmt->conn;
	int size = stmt->nparams ? stmt->nparams : 1, lengths[size], formats[size], i;
	unsigned int types[size];
	const char *values[size];
	struct run r = { .n = stmt->nparams, .types = types, .values = values, .lengths = lengths,
			 .formats = formats, .bump = !conn->in_tx && stmt->writes };

	for (i = 0; i < stmt->nparams; i++) {
		struct param *p = &stmt->params[i];

		types[i] = p->type;
		values[i] = p->is_null ? NULL : p->value;
		lengths[i] = p->length;
		formats[i] = p->type == OID_BYTEA;
	}
	stmt->res = stmt_send(stmt, &r);
	stmt->ran = true;
	stmt->row = -1;
	if (!result_ok(stmt->res))
		return result_error(conn, stmt->res);
	stmt->changes = cmd_tuples(stmt->res);
	if (stmt->changes > 0 || (libpq.resultStatus(stmt->res) == PGRES_COMMAND_OK &&
				  strncmp(libpq.cmdStatus(stmt->res), "SELECT", 6))) {
		conn->total_changes += stmt->changes;
		if (conn->in_tx)
			conn->tx_wrote = true;
		else if (!r.bump)
			data_version_bump(conn);
	}
	return 0;
}

/*
 * A refusable statement inside a transaction runs under a savepoint: when
 * its input is refused, the transaction goes back to before it and goes on.
 */
static int stmt_run_refusable(struct store_conn_stmt *stmt)
{
	struct store_conn *conn = stmt->conn;
	bool savepoint = stmt->refusable && conn->in_tx;
	int error;

	stmt->refused = false;
	if (savepoint && (error = pg_exec(conn, "SAVEPOINT revline_refusable")) < 0)
		return error;
	if ((error = stmt_run(stmt)) < 0) {
		stmt->refused = stmt->refusable && refused_state(stmt->res);
		if (savepoint && pg_exec(conn, "ROLLBACK TO SAVEPOINT revline_refusable") < 0)
			stmt->refused = false;
		/* The statement's own message, not the rollback's. */
		return stmt->refused ? result_error(conn, stmt->res) : error;
	}
	return savepoint ? pg_exec(conn, "RELEASE SAVEPOINT revline_refusable") : 0;
}

static int pg_step(struct store_conn_stmt *stmt)
{
	int error;

	blobs_free(stmt);
	if (!stmt->ran && (error = stmt_run_refusable(stmt)) < 0)
		return error;
	if (!stmt->res || libpq.resultStatus(stmt->res) != PGRES_TUPLES_OK ||
	    stmt->row + 1 >= libpq.ntuples(stmt->res)) {
		stmt->row = stmt->res ? libpq.ntuples(stmt->res) : 0;
		stmt->conn->last_changes = stmt->changes;
		return STORE_BACKEND_DONE;
	}
	stmt->row++;
	return STORE_BACKEND_ROW;
}

static void pg_reset(struct store_conn_stmt *stmt)
{
	libpq.clear(stmt->res);
	stmt->res = NULL;
	blobs_free(stmt);
	stmt->ran = false;
	stmt->row = -1;
	stmt->changes = 0;
}

static int64_t pg_changes(struct store_conn *conn)
{
	return conn->last_changes;
}

static bool pg_step_refused(struct store_conn_stmt *stmt)
{
	return stmt->refused;
}

static bool has_value(struct store_conn_stmt *stmt, int col)
{
	return stmt->res && stmt->row >= 0 && stmt->row < libpq.ntuples(stmt->res) && col >= 0 &&
	       col < libpq.nfields(stmt->res) && !libpq.getisnull(stmt->res, stmt->row, col);
}

static int64_t pg_column_int64(struct store_conn_stmt *stmt, int col)
{
	const char *v;

	if (!has_value(stmt, col))
		return 0;
	v = libpq.getvalue(stmt->res, stmt->row, col);
	if (libpq.ftype(stmt->res, col) == OID_BOOL)
		return *v == 't';
	/* A numeric or float8 (sum(), avg()) reads as its integer part, as SQLite's would. */
	if (strpbrk(v, ".eE"))
		return (int64_t)strtod(v, NULL);
	return strtoll(v, NULL, 10);
}

static double pg_column_double(struct store_conn_stmt *stmt, int col)
{
	if (!has_value(stmt, col))
		return 0;
	if (libpq.ftype(stmt->res, col) == OID_BOOL)
		return *libpq.getvalue(stmt->res, stmt->row, col) == 't';
	return strtod(libpq.getvalue(stmt->res, stmt->row, col), NULL);
}

static bool pg_column_is_null(struct store_conn_stmt *stmt, int col)
{
	return !has_value(stmt, col);
}

/* A boolean reads as SQLite's would, 1 or 0. */
static const char *pg_column_text(struct store_conn_stmt *stmt, int col)
{
	const char *v;

	if (!has_value(stmt, col))
		return NULL;
	v = libpq.getvalue(stmt->res, stmt->row, col);
	if (libpq.ftype(stmt->res, col) == OID_BOOL)
		return *v == 't' ? "1" : "0";
	return v;
}

/* A bytea arrives in text (hex) form: unescaped here, kept until the next step. */
static const void *pg_column_blob(struct store_conn_stmt *stmt, int col, size_t *len)
{
	const char *v;

	*len = 0;
	if (!has_value(stmt, col))
		return NULL;
	v = libpq.getvalue(stmt->res, stmt->row, col);
	if (libpq.ftype(stmt->res, col) != OID_BYTEA) {
		*len = (size_t)libpq.getlength(stmt->res, stmt->row, col);
		return *len ? v : NULL;
	}
	if (col >= stmt->nblobs) {
		unsigned char **grown = realloc(stmt->blobs, (size_t)(col + 1) * sizeof(*grown));

		if (!grown)
			return NULL;
		memset(grown + stmt->nblobs, 0, (size_t)(col + 1 - stmt->nblobs) * sizeof(*grown));
		stmt->blobs = grown;
		stmt->nblobs = col + 1;
	}
	libpq.freemem(stmt->blobs[col]);
	if (!(stmt->blobs[col] = libpq.unescapeBytea((const unsigned char *)v, len)))
		*len = 0;
	return *len ? stmt->blobs[col] : NULL;
}

/* The result's columns: known once the statement ran (whole results, fetched at the first step). */
static int pg_column_count(struct store_conn_stmt *stmt)
{
	return stmt->res ? libpq.nfields(stmt->res) : 0;
}

static const char *pg_column_name(struct store_conn_stmt *stmt, int col)
{
	return stmt->res && col >= 0 && col < libpq.nfields(stmt->res) ? libpq.fname(stmt->res, col) : NULL;
}

const struct store_backend store_backend_pg = {
	.name = "postgresql",
	.dialect = &store_dialect_pg,
	.open = pg_open,
	.setup = pg_setup,
	.optimize = pg_optimize,
	.close = pg_close,
	.exec = pg_exec_script,
	.begin = pg_begin,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.schema_version_get = pg_version_get,
	.schema_version_set = pg_version_set,
	.migrate_begin = pg_migrate_nothing,
	.migrate_end = pg_migrate_nothing,
	.migrate_check = pg_migrate_nothing,
	.data_version = pg_data_version,
	.prepare = pg_prepare,
	.finalize = pg_finalize,
	.param_has = pg_param_has,
	.bind_text = pg_bind_text,
	.bind_int = pg_bind_int,
	.bind_double = pg_bind_double,
	.bind_null = pg_bind_null,
	.bind_blob = pg_bind_blob,
	.step = pg_step,
	.reset = pg_reset,
	.changes = pg_changes,
	.step_refused = pg_step_refused,
	.column_int64 = pg_column_int64,
	.column_double = pg_column_double,
	.column_is_null = pg_column_is_null,
	.column_text = pg_column_text,
	.column_blob = pg_column_blob,
	.column_count = pg_column_count,
	.column_name = pg_column_name,
};
