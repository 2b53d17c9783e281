/* revline history: the repository's checks, newest first; and what fixes and stats share. */
#include "commands.h"
#include "config.h"
#include "history.h"
#include "remote_url.h"
#include "status.h"
#include "store.h"
#include "term.h"
#include "usage.h"
#include "utf8.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_LIMIT 20

/* --repo: a remote in revline's form; "." the repository's own. */
static int filter_remote(char **out, const struct repo *repo, const char *arg)
{
	struct buf id = BUF_INIT;

	*out = NULL;
	if (!strcmp(arg, ".")) {
		if (!repo->remote)
			return error_set(RL_EUSAGE, "--repo .: this repository has no remote (origin, or the "
					 "one its branch follows); give the remote's URL");
		return (*out = strdup(repo->remote)) ? 0 : error_nomem();
	}
	/* The URL is not repeated: it may hold a token. */
	if (remote_url_normalize(&id, arg) < 0)
		return error_set(RL_EUSAGE, "--repo: %s; give a remote URL as git remote -v shows it",
				 error_message());
	*out = buf_detach(&id);
	return 0;
}

static int where_fill(struct history_where *w, const struct repo *repo, const struct history_filter *filter)
{
	int error;

	if (!(w->path = history_repo_key(repo->workdir ? repo->workdir : repo->gitdir)))
		return error_nomem();
	if (filter && filter->repo && (error = filter_remote(&w->remote, repo, filter->repo)) < 0)
		return error;
	w->scope = (struct history_scope){ .path = w->path, .remote = w->remote,
					   .author = filter && filter->author && *filter->author ?
						   filter->author : NULL };
	w->label = w->remote ? w->remote : w->path;
	return 0;
}

int history_open(struct store **store, struct history_where *where, const struct history_filter *filter)
{
	struct repo *repo = NULL;
	struct config *config = NULL;
	struct buf path = BUF_INIT;
	int rc = 2;

	*store = NULL;
	memset(where, 0, sizeof(*where));
	/* The history is the repository's: outside one there is none to show. */
	if (repo_open(&repo, NULL) < 0 || where_fill(where, repo, filter) < 0 ||
	    config_open(&config, repo) < 0 || store_default_path(&path, config) < 0 ||
	    store_open(store, path.ptr) < 0) {
		cli_error("%s", error_message());
		history_where_release(where);
		goto done;
	}
	rc = 0;
done:
	buf_release(&path);
	config_free(config);
	repo_free(repo);
	return rc;
}

void history_where_release(struct history_where *where)
{
	free(where->path);
	free(where->remote);
	memset(where, 0, sizeof(*where));
}

void history_local_time(char *out, size_t size, int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(out, size, "%Y-%m-%d %H:%M", &tm))
		snprintf(out, size, "?");
}

json_t *history_time_json(int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	char text[40], full[48];
	struct tm tm;

	if (!ms || !gmtime_r(&t, &tm) || !strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &tm))
		return json_null();
	snprintf(full, sizeof(full), "%s.%03dZ", text, (int)(ms % 1000));
	return json_string(full);
}

/*
 * The columns of the history, fixes and stats tables: a branch, a rule id
 * or a path may be "fêature" or hold an escape sequence, shown made
 * visible (term.h) and counted as shown. A missing value is "-".
 */
int history_text_width(const char *s)
{
	return term_width(s ? s : "-");
}

void history_put(FILE *fp, const char *s, int width)
{
	term_pad(fp, s ? s : "-", width);
}

int history_json_out(json_t *doc)
{
	int rc = doc && json_dumpf(doc, stdout, JSON_INDENT(2)) == 0 && fputc('\n', stdout) != EOF ? 0 : 2;

	json_decref(doc);
	if (rc)
		cli_error("cannot write the JSON (out of memory or output closed)");
	return rc;
}

/* A check's time: tenths of a second while short, as people say it after. */
static void check_duration(char *out, size_t size, int64_t ms)
{
	if (ms < 0)
		snprintf(out, size, "-");
	else if (ms < 10000)
		snprintf(out, size, "%.1f s", (double)ms / 1000);
	else
		history_duration_text(out, size, (double)ms / 1000);
}

json_t *history_usage_json(json_t *object, const struct usage *u)
{
	json_object_set_new(object, "tokens_in", json_integer(u->tokens_in));
	json_object_set_new(object, "tokens_cached", json_integer(u->tokens_cached));
	json_object_set_new(object, "tokens_cache_write", json_integer(u->tokens_cache_write));
	json_object_set_new(object, "tokens_out", json_integer(u->tokens_out));
	json_object_set_new(object, "cost_usd", u->cost_usd >= 0 ? json_real(u->cost_usd) : json_null());
	return object;
}

void history_cost_text(char *out, size_t size, const struct usage *u)
{
	if (!usage_billed(u) && u->cost_usd <= 0)
		snprintf(out, size, "-");
	else if (u->cost_usd < 0)
		snprintf(out, size, "unknown");
	else
		usage_cost_text(out, size, u->cost_usd);
}

/* Who ran it, and where: the clone is the machine and the path on it. */
static json_t *check_writer_json(json_t *object, const struct history_check *c)
{
	struct buf clone = BUF_INIT;

	if (c->host && c->path)
		buf_printf(&clone, "%s:%s", c->host, c->path);
	json_object_set_new(object, "author", utf8_json(c->author));
	json_object_set_new(object, "host", utf8_json(c->host));
	json_object_set_new(object, "clone", utf8_json(clone.ptr));
	buf_release(&clone);
	return object;
}

static json_t *check_json(const struct history_check *c)
{
	return check_writer_json(history_usage_json(json_pack("{s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:s, s:o, s:i, s:i, s:i, s:o}",
			 "id", (json_int_t)c->id, "created_ms", (json_int_t)c->created_ms,
			 "created_at", history_time_json(c->created_ms),
			 "finished_ms", c->finished_ms ? json_integer(c->finished_ms) : json_null(),
			 "finished_at", history_time_json(c->finished_ms),
			 "branch", utf8_json(c->branch), "target", utf8_json(c->target),
			 "status", c->status,
			 "duration_ms", c->duration_ms >= 0 ? json_integer(c->duration_ms) : json_null(),
			 "rules", (int)c->rules, "findings", (int)c->findings,
			 "attention", (int)c->attention,
			 "overall_severity", utf8_json(c->overall_severity)), &c->usage), c);
}

static int checks_json(const struct history_check *checks, size_t count)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; list && i < count; i++)
		if (json_array_append_new(list, check_json(&checks[i])) < 0) {
			json_decref(list);
			list = NULL;
		}
	return history_json_out(list);
}

static int max_width(const struct history_check *checks, size_t count, size_t field, int least)
{
	size_t i;
	int width = least, w;

	for (i = 0; i < count; i++) {
		const char *s = field == 0 ? checks[i].branch : field == 1 ? checks[i].status :
			field == 2 ? checks[i].overall_severity : checks[i].author;

		if ((w = history_text_width(s ? s : "-")) > width)
			width = w;
	}
	return width;
}

/* Whether the checks are by more than one author (a team's store): then each says whose it is. */
static bool authors_many(const struct history_check *checks, size_t count)
{
	size_t i;

	for (i = 1; i < count; i++)
		if (strcmp(checks[i].author ? checks[i].author : "", checks[0].author ? checks[0].author : ""))
			return true;
	return false;
}

static void checks_text(const struct history_check *checks, size_t count)
{
	int branch = max_width(checks, count, 0, 6), status = max_width(checks, count, 1, 6);
	int severity = max_width(checks, count, 2, 8);
	int author = authors_many(checks, count) ? max_width(checks, count, 3, 6) : 0;
	char when[32], took[32], in[32], cached[32], out[32], cost[32];
	size_t i;

	printf("%6s  %-16s  ", "ID", "WHEN");
	if (author) {
		history_put(stdout, "AUTHOR", author);
		printf("  ");
	}
	history_put(stdout, "BRANCH", branch);
	printf("  ");
	history_put(stdout, "STATUS", status);
	printf("  %7s  %5s  %8s  %9s  ", "TIME", "RULES", "FINDINGS", "ATTENTION");
	history_put(stdout, "SEVERITY", severity);
	printf("  %9s  %9s  %7s  %8s  TARGET\n", "TOKENS IN", "CACHED", "OUT", "COST");
	for (i = 0; i < count; i++) {
		const struct history_check *c = &checks[i];

		history_local_time(when, sizeof(when), c->created_ms);
		check_duration(took, sizeof(took), c->duration_ms);
		printf("%6lld  %-16s  ", (long long)c->id, when);
		if (author) {
			history_put(stdout, c->author, author);
			printf("  ");
		}
		history_put(stdout, c->branch, branch);
		printf("  ");
		history_put(stdout, c->status, status);
		printf("  %7s  %5ld  %8ld  %9ld  ", took, c->rules, c->findings, c->attention);
		history_put(stdout, c->overall_severity, severity);
		usage_count_text(in, sizeof(in), c->usage.tokens_in);
		usage_count_text(cached, sizeof(cached), c->usage.tokens_cached);
		usage_count_text(out, sizeof(out), c->usage.tokens_out);
		history_cost_text(cost, sizeof(cost), &c->usage);
		printf("  %9s  %9s  %7s  %8s  ", in, cached, out, cost);
		history_put(stdout, c->target, 0);
		printf("\n");
	}
}

const struct command_help history_help = {
	"history",
	"revline history [--limit N] [--repo URL] [--author EMAIL] [--json]",
	"list the repository's checks, newest first",
	"Lists this repository's checks, newest first: id, time, branch, status,\n"
	"duration, rules, findings, rules needing attention, overall severity and\n"
	"target. A check whose process died halfway shows as interrupted, with the\n"
	"results it had. In a team's database, --repo shows every clone's checks\n"
	"of one repository (however each clone reached its remote) and --author\n"
	"one person's; the author is shown when the checks have more than one.\n",
};

static int parse_args(int argc, char **argv, size_t *limit, bool *json, struct history_filter *filter)
{
	int n, count = (int)*limit;
	const struct option options[] = {
		OPT_INTEGER(0, "limit", &count, "N", 0, 1000000, "show the N newest checks (default 20; 0: all)"),
		OPT_HISTORY_FILTER(filter),
		OPT_JSON(json),
		OPT_END(),
	};

	if ((n = parse_options(argc, argv, options, &history_help)) < 0)
		return n == PARSE_OPT_HELP ? -1 : 2;
	*limit = (size_t)count;
	return parse_options_at_most(n, argv, 0, &history_help) ? 0 : 2;
}

int cmd_history(int argc, char **argv)
{
	struct history_check *checks = NULL;
	struct history_filter filter = { 0 };
	struct history_where where;
	struct store *store = NULL;
	size_t limit = DEFAULT_LIMIT, count = 0;
	bool json = false;
	int rc;

	if ((rc = parse_args(argc, argv, &limit, &json, &filter)) != 0)
		return rc < 0 ? 0 : rc;
	if ((rc = history_open(&store, &where, &filter)) != 0)
		return rc;
	if (history_checks(&checks, &count, store, &where.scope, limit) < 0) {
		cli_error("%s", error_message());
		rc = 2;
	} else if (json) {
		rc = checks_json(checks, count);
	} else if (!count) {
		printf("No checks yet in ");
		history_put(stdout, where.label, 0);
		if (where.scope.author) {
			printf(" by ");
			history_put(stdout, where.scope.author, 0);
		}
		printf(".\n");
	} else {
		checks_text(checks, count);
	}
	history_checks_free(checks, count);
	store_close(store);
	history_where_release(&where);
	return rc;
}
