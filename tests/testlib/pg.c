/* A throw-away PostgreSQL server for a cmocka test, through pg.sh (see pg.h). */
#include "testlib.h"
#include "testlib/pg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG_SH "bash '" TEST_SOURCE_DIR "/tests/testlib/pg.sh'"

static const char *const pg_vars[] = {
	"PGHOST", "PGPORT", "PGDATABASE", "PGUSER", "PGPASSFILE", "PGSYSCONFDIR", "PGCONNECT_TIMEOUT",
};
static const char *const foreign_vars[] = {
	"PGHOSTADDR", "PGSERVICE", "PGSERVICEFILE", "PGPASSWORD", "PGOPTIONS", "PGSSLMODE", "PGREQUIRESSL",
	"PGSSLCERT", "PGSSLKEY", "PGSSLROOTCERT", "PGTARGETSESSIONATTRS", "PGREQUIREAUTH", "PGGSSENCMODE",
	"PGAPPNAME",
};

static int exit_status(int status)
{
	return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool pg_server_available(void)
{
	char why[512] = "";
	FILE *fp = popen(PG_SH " available", "r");
	size_t n;

	if (!fp) {
		printf("SKIP: cannot run pg.sh\n");
		return false;
	}
	n = fread(why, 1, sizeof(why) - 1, fp);
	why[n] = '\0';
	if (exit_status(pclose(fp)) == 0)
		return true;
	printf("SKIP: %s%s", why, n && why[n - 1] == '\n' ? "" : "\n");
	return false;
}

static void set_line(struct pg_server *pg, char *line)
{
	char *eq = strchr(line, '=');

	line[strcspn(line, "\n")] = '\0';
	if (!eq)
		return;
	*eq = '\0';
	if (!strcmp(line, "PG_DIR"))
		pg->dir = strdup(eq + 1);
	else if (!strcmp(line, "PG_URL"))
		pg->url = strdup(eq + 1);
	else if (!strcmp(line, "PG_CONNINFO"))
		pg->conninfo = strdup(eq + 1);
	else if (!strncmp(line, "PG", 2))
		setenv(line, eq + 1, 1);
	if (!strcmp(line, "PGPORT"))
		pg->port = atoi(eq + 1);
}

void pg_server_start(struct pg_server *pg)
{
	char cmd[4096], *line = NULL;
	size_t cap = 0, i;
	FILE *fp;
	int status;

	memset(pg, 0, sizeof(*pg));
	for (i = 0; i < sizeof(foreign_vars) / sizeof(*foreign_vars); i++)
		unsetenv(foreign_vars[i]);
	snprintf(cmd, sizeof(cmd), PG_SH " start %ld", (long)getpid());
	if (!(fp = popen(cmd, "r")))
		fail_msg("popen: %s", cmd);
	while (getline(&line, &cap, fp) > 0)
		set_line(pg, line);
	free(line);
	status = exit_status(pclose(fp));
	if (status != 0 || !pg->dir || !pg->url || !pg->conninfo || pg->port <= 0)
		fail_msg("pg.sh start failed (exit status %d; its reason is above)", status);
}

void pg_server_stop(struct pg_server *pg)
{
	char cmd[4096];
	size_t i;

	if (pg->dir) {
		snprintf(cmd, sizeof(cmd), PG_SH " stop '%s'", pg->dir);
		if (exit_status(system(cmd)) != 0)
			print_message("pg.sh stop %s failed\n", pg->dir);
	}
	for (i = 0; i < sizeof(pg_vars) / sizeof(*pg_vars); i++)
		unsetenv(pg_vars[i]);
	free(pg->dir);
	free(pg->url);
	free(pg->conninfo);
	memset(pg, 0, sizeof(*pg));
}

void pg_server_add_password_user(const struct pg_server *pg, const char *name, const char *password)
{
	char cmd[4096];

	(void)pg;
	if (strchr(name, '\'') || strchr(password, '\''))
		fail_msg("pg_server_add_password_user: no quote in a name or password, please");
	snprintf(cmd, sizeof(cmd), PG_SH " add-password-user '%s' '%s'", name, password);
	if (exit_status(system(cmd)) != 0)
		fail_msg("pg.sh add-password-user %s failed", name);
}
