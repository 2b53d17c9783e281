#ifndef REVLINE_TESTLIB_PG_H
#define REVLINE_TESTLIB_PG_H

/*
 * A throw-away PostgreSQL server for a cmocka test: tests/testlib/pg.sh
 * makes it (initdb in a new temporary directory, only a Unix socket there,
 * as `nobody` when run as root; read that file for the rest) and a watcher
 * stops it when the test process is gone, even killed.
 *
 *	int main(void)
 *	{
 *		if (!pg_server_available())
 *			return PG_SKIP;       (it printed "SKIP: why")
 *		...
 *	}
 *
 *	struct pg_server pg;
 *	pg_server_start(&pg);            (PQconnectdb("") now reaches it)
 *	... PQconnectdb(pg.url) or PQconnectdb(pg.conninfo) ...
 *	pg_server_add_password_user(&pg, "alice", "s3cret");
 *	pg_server_stop(&pg);
 */
#include <stdbool.h>

#define PG_SKIP 77  /* CTest's SKIP_RETURN_CODE (tests/CMakeLists.txt) */

struct pg_server {
	char *dir;        /* PG_DIR: data/, the socket, log (the server's log) */
	char *url;        /* postgresql:///revline_test?host=DIR&port=N&user=revline */
	char *conninfo;   /* host=DIR port=N dbname=revline_test user=revline */
	int port;
};

/* Whether a server can be started here; when not, prints "SKIP: why" and returns false. */
bool pg_server_available(void);

/*
 * Start a server and make its database; sets PGHOST, PGPORT, PGDATABASE,
 * PGUSER, PGPASSFILE, PGSYSCONFDIR and PGCONNECT_TIMEOUT in this
 * process's environment (and unsets PGPASSWORD, PGSERVICE, PGSSLMODE, ...).
 * Fails the test when it cannot, with pg.sh's reason.
 */
void pg_server_start(struct pg_server *pg);

/* Stop it, remove its directory, unset what pg_server_start set. */
void pg_server_stop(struct pg_server *pg);

/* A role that can log in only with password (scram-sha-256), owning nothing, allowed the database. */
void pg_server_add_password_user(const struct pg_server *pg, const char *name, const char *password);

#endif
