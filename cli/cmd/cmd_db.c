/* revline db migrate: copy a history into another database (a team's PostgreSQL one). */
#include "commands.h"
#include "config.h"
#include "repo.h"
#include "status.h"
#include "store.h"
#include "store_location.h"
#include "store_migrate.h"
#include "term.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

const struct command_help db_help = {
	"db",
	"revline db migrate --to LOCATION [--from LOCATION]",
	"copy the history into another database, such as a team's",
	"migrate copies everything the database holds (checks, rules, results,\n"
	"findings, feedback, fixes, signals, the answer cache) from the revline.db\n"
	"setting's database, or --from's, into the database --to names (a\n"
	"PostgreSQL location as revline.db takes one, or a file), then says per\n"
	"table how many rows it copied and how many were there already. Rows get\n"
	"the target's ids; a repository already there (the same path) is the same.\n"
	"The copy goes in transactions of a few hundred rows: stopped anywhere, it\n"
	"leaves the target whole, and run again it copies only what is missing. A\n"
	"check still running is left for a later run. Point revline.db at the\n"
	"target afterwards to use it.\n",
};

struct totals {
	uint64_t copied, present, left;
};

static void table_line(void *arg, const struct store_migrate_table *t)
{
	struct totals *totals = arg;

	printf("%-22s %8llu copied, %llu there already", t->name, (unsigned long long)t->copied,
	       (unsigned long long)t->present);
	if (t->left)
		printf(", %llu left for a later run", (unsigned long long)t->left);
	printf("\n");
	fflush(stdout);
	totals->copied += t->copied;
	totals->present += t->present;
	totals->left += t->left;
}

static void summary(const struct totals *totals, struct store *target)
{
	printf("%-22s %8llu copied, %llu there already", "total", (unsigned long long)totals->copied,
	       (unsigned long long)totals->present);
	if (totals->left)
		printf(", %llu left for a later run", (unsigned long long)totals->left);
	printf("\n");
	if (!totals->copied)
		term_printf(stdout, "Nothing to copy: every row is in %s already.\n", store_path(target));
	if (totals->left)
		printf("A check was still running: run 'revline db migrate' again once it is done.\n");
}

/* The database to copy from: --from, else revline.db (REVLINE_DB, git config, the default file). */
static int source_location(struct buf *out, const char *from)
{
	struct repo *repo = NULL;
	struct config *config = NULL;
	int error;

	if (from)
		return buf_puts(out, from);
	if (repo_open(&repo, NULL) < 0)
		error_clear();
	if ((error = config_open(&config, repo)) == 0)
		error = store_default_path(out, config);
	config_free(config);
	repo_free(repo);
	return error;
}

/* The source is opened only when it is there: opening a file that is not would make an empty one. */
static int open_source(struct store **out, const char *location)
{
	struct buf shown = BUF_INIT;
	int rc = 2;

	if (store_location_kind(location) == STORE_LOCATION_FILE && access(location, F_OK) != 0) {
		if (store_location_display(&shown, location) == 0)
			cli_error("no database to copy from at %s (give it with --from, or set revline.db)", shown.ptr);
		else
			cli_error("%s", error_message());
	} else if (store_open(out, location) < 0) {
		cli_error("the database to copy from: %s", error_message());
	} else {
		rc = 0;
	}
	buf_release(&shown);
	return rc;
}

static int migrate(const char *to, const char *from)
{
	struct store *source = NULL, *target = NULL;
	struct buf location = BUF_INIT;
	struct totals totals = { 0 };
	int rc = 2;

	if (source_location(&location, from) < 0) {
		cli_error("%s", error_message());
		goto done;
	}
	if (open_source(&source, location.ptr))
		goto done;
	if (store_open(&target, to) < 0) {
		cli_error("the database to copy into: %s", error_message());
		goto done;
	}
	term_printf(stdout, "Copying %s to %s\n", store_path(source), store_path(target));
	if (store_migrate(target, source, table_line, &totals) < 0) {
		cli_error("%s", error_message());
		if (error_status() != RL_EUSAGE)
			cli_error("what was copied stays in the target: run the same command again to copy the rest");
		goto done;
	}
	summary(&totals, target);
	rc = 0;
done:
	store_close(target);
	store_close(source);
	buf_release(&location);
	return rc;
}

int cmd_db(int argc, char **argv)
{
	const char *to = NULL, *from = NULL;
	const struct option options[] = {
		OPT_STRING(0, "to", &to, "LOCATION", "the database to copy into (a PostgreSQL location, or a file)"),
		OPT_STRING(0, "from", &from, "LOCATION", "the database to copy from (default: revline.db's)"),
		OPT_END(),
	};
	int n = parse_options(argc, argv, options, &db_help);

	if (n < 0)
		return parse_options_exit(n);
	if (!n) {
		cli_error("db needs a command: 'revline db migrate --to LOCATION' (see 'revline help db')");
		return 2;
	}
	if (strcmp(argv[0], "migrate")) {
		cli_error("'%s' is not a db command: 'migrate' is (see 'revline help db')", argv[0]);
		return 2;
	}
	if (!parse_options_at_most(n, argv, 1, &db_help))
		return 2;
	if (!to || !*to) {
		cli_error("migrate needs --to LOCATION: the database to copy into (see 'revline help db')");
		return 2;
	}
	/* A message about either names the option, not revline.db. */
	store_location_named(to, "--to");
	if (from)
		store_location_named(from, "--from");
	return migrate(to, from);
}
