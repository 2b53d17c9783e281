/* revline signals: run linters or import their output; list their signals. */
#include "commands.h"
#include "report.h"
#include "diff.h"
#include "fix.h"
#include "lint.h"
#include "repo.h"
#include "signals.h"
#include "status.h"
#include "term.h"
#include "workspace.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct signals_args {
	struct target_spec spec;
	const char *import, *tool, *format, *linter;
	bool run, all, json;
};

static const char *args_problem(const struct signals_args *a)
{
	if ((a->tool || a->format) && !a->import)
		return "--tool and --format go with --import FILE";
	if (a->linter && !a->run)
		return "--linter goes with --run";
	return NULL;
}

const struct command_help signals_help = {
	"signals",
	"revline signals [--run [--linter NAME]] [--all] [--json] [TARGET]\n"
	"       revline signals --import FILE [--tool NAME] [--format FORMAT]",
	"run linters or read their output; list their signals with ids",
	"Lists the repository's current linter signals (each tool's latest run or\n"
	"import) on the changed lines of the target (every one with --all): id, tool,\n"
	"code, place, message and the state of its fix. --run runs the installed\n"
	"linters (ruff or flake8, mypy, bandit, shellcheck, cppcheck; git config\n"
	"revline.lint.NAME replaces a command) on the changed files first. --import\n"
	"reads a tool's output (ruff JSON, flake8, mypy text or JSON, bandit JSON,\n"
	"SARIF 2.1.0, gcc/clang, shellcheck JSON; detected from the content); what\n"
	"cannot be read is reported with its line or field, and the rest is kept.\n",
};

/* Returns -1 after --help, 2 on a usage error. */
static int parse_args(struct signals_args *a, int argc, char **argv)
{
	const struct option options[] = {
		OPT_STRING_ONE_OF(1, 0, "import", &a->import, "FILE",
			   "read a linter's output from FILE (- for standard input) and keep its signals"),
		OPT_STRING(0, "tool", &a->tool, "NAME", "with --import: the tool's name, when the output does not say it"),
		OPT_STRING(0, "format", &a->format, "FORMAT",
			   "with --import: ruff, ruff-text, flake8, mypy, mypy-json, bandit, sarif, gcc, shellcheck or "
			   "shellcheck-gcc (default: detected)"),
		OPT_BOOL_ONE_OF(1, 0, "run", &a->run, "run the installed linters on the changed files and keep their signals"),
		OPT_STRING(0, "linter", &a->linter, "NAME",
			   "with --run: only this linter (ruff, flake8, mypy, bandit, shellcheck, cppcheck)"),
		OPT_BOOL(0, "all", &a->all, "list every current signal, not only those on changed lines"),
		OPT_TARGET(&a->spec),
		OPT_JSON(&a->json),
		OPT_END(),
	};
	const char *problem;
	int n = parse_options(argc, argv, options, &signals_help);

	if (n < 0)
		return n == PARSE_OPT_HELP ? -1 : 2;
	if (!cli_targets(&a->spec, n, argv, &signals_help))
		return 2;
	if ((problem = args_problem(a))) {
		cli_error("%s", problem);
		return 2;
	}
	return 0;
}

/* --- --import ------------------------------------------------------------- */

static int read_input(struct buf *out, const char *path)
{
	char chunk[65536];
	size_t n;

	if (strcmp(path, "-"))
		return buf_read_file(out, path);
	while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0)
		if (buf_put(out, chunk, n) < 0)
			return -1;
	return ferror(stdin) ? error_set(RL_EIO, "cannot read standard input") : 0;
}

/* A linter's words, file names and codes reach the terminal through term_* only. */
static void problems_print(const struct signal_list *list, const char *origin)
{
	size_t i;

	for (i = 0; i < list->nproblems; i++) {
		const struct signal_problem *p = &list->problems[i];

		if (p->field)
			term_printf(stderr, "revline: %s: %s: %s (skipped)\n", origin, p->field, p->message);
		else
			term_printf(stderr, "revline: %s:%d: %s (skipped)\n", origin, p->line, p->message);
	}
}

static int do_import(struct workspace *ws, const struct signals_args *a)
{
	struct signal_list list = { 0 };
	struct buf text = BUF_INIT;
	enum signal_format format;
	const char *origin = strcmp(a->import, "-") ? a->import : "standard input";
	char cwd[4096];
	size_t runs = 0;
	int rc = 0;

	if (a->format && !signal_format_parse(&format, a->format)) {
		cli_error("unknown format '%s' (ruff, ruff-text, flake8, mypy, mypy-json, bandit, sarif, gcc, shellcheck, "
			  "shellcheck-gcc)", a->format);
		return 2;
	}
	if (read_input(&text, a->import) < 0 ||
	    signals_parse(&list, text.ptr ? text.ptr : "", text.len, a->format ? (int)format : -1, a->tool) < 0 ||
	    signals_relativize(&list, ws->workdir, getcwd(cwd, sizeof(cwd)) ? cwd : ws->workdir) < 0 ||
	    lint_import(&runs, ws->store, ws->workdir, origin, a->tool, &list) < 0) {
		cli_error("%s: %s", origin, error_message());
		rc = 2;
		goto done;
	}
	problems_print(&list, origin);
	term_printf(stderr, "revline: %zu signal%s from %s (%s)%s\n", list.count, list.count == 1 ? "" : "s",
		    origin, signal_format_name(list.format),
		    list.nproblems ? "; what could not be read is listed above" : "");
done:
	signal_list_release(&list);
	buf_release(&text);
	return rc;
}

/* --- --run ---------------------------------------------------------------- */

static void run_report(const struct lint_result *r)
{
	switch (r->status) {
	case LINT_DONE:
		fprintf(stderr, "revline: %-10s %zu signal%s in %zu file%s (%.1f s)\n", linter_name(r->linter),
			r->signals.count, r->signals.count == 1 ? "" : "s", r->nfiles, r->nfiles == 1 ? "" : "s",
			r->duration_ms / 1000.0);
		break;
	case LINT_NOT_INSTALLED:
		fprintf(stderr, "revline: %-10s not installed\n", linter_name(r->linter));
		break;
	case LINT_NO_FILES:
		break;
	default:
		term_printf(stderr, "revline: %-10s %s\n", linter_name(r->linter), r->message ? r->message : "failed");
		break;
	}
}

static int do_run(struct workspace *ws, const struct signals_args *a, struct diff *diff)
{
	struct lint *lint = NULL;
	char **files = NULL;
	size_t nfiles = 0, i;
	int64_t run;
	int rc = 0;

	if (diff_text_files(&files, &nfiles, diff) < 0 ||
	    lint_new(&lint, ws->workdir, ws->config, (const char *const *)files, nfiles, a->linter) < 0 ||
	    lint_start(lint, NULL) < 0) {
		cli_error("%s", error_message());
		rc = 2;
		goto done;
	}
	while (!lint_done(lint))
		lint_wait(lint, 1000);
	for (i = 0; i < lint_count(lint); i++) {
		const struct lint_result *r = lint_result(lint, i);

		run_report(r);
		problems_print(&r->signals, linter_name(r->linter));
		if (r->status == LINT_DONE &&
		    lint_store(&run, ws->store, ws->workdir, linter_name(r->linter), "run", r->command,
			       (struct signal_list *)&r->signals) < 0) {
			cli_error("%s", error_message());
			rc = 2;
		}
	}
done:
	lint_free(lint);
	diff_free_paths(files, nfiles);
	return rc;
}

/* --- the list ------------------------------------------------------------- */

static const char *fix_text(char *out, size_t size, struct workspace *ws, int64_t signal_id)
{
	struct fix_summary sum;

	*out = '\0';
	if (fix_latest(&sum, ws->store, signal_id, 0) < 0)
		return out;
	if (sum.state == FIX_APPLIED && sum.recheck >= RECHECK_GONE)
		snprintf(out, size, "fix %lld applied, %s", (long long)sum.id, fix_recheck_name(sum.recheck));
	else
		snprintf(out, size, "fix %lld %s", (long long)sum.id, fix_state_name(sum.state));
	return out;
}

static int wider(int a, int b)
{
	return a > b ? a : b;
}

/* A signal's row: id, tool, code, place, then its message, whose other lines (mypy's notes) go under it. */
static void signal_print(const struct signal *s, struct workspace *ws)
{
	char place[512], fix[96];
	int column;

	snprintf(place, sizeof(place), s->column > 0 ? "%s:%d:%d" : "%s:%d", s->file, s->line, s->column);
	column = printf("#%-5lld ", (long long)s->id);
	term_pad(stdout, s->tool, 10);
	putchar(' ');
	term_pad(stdout, s->code, 16);
	term_printf(stdout, " %s  ", place);
	column += wider(term_width(s->tool), 10) + 1 + wider(term_width(s->code), 16) + 1 + term_width(place) + 2;
	fix_text(fix, sizeof(fix), ws, s->id);
	term_column(stdout, s->message, column);
	printf("%s%s%s\n", *fix ? "  [" : "", fix, *fix ? "]" : "");
}

static int do_list(struct workspace *ws, const struct signals_args *a, struct diff *diff)
{
	struct signal_list list = { 0 };
	json_t *array = a->json ? json_array() : NULL;
	size_t i, shown = 0, hidden = 0;
	int rc = 0;

	if (lint_current(&list, ws->store, ws->workdir) < 0) {
		cli_error("%s", error_message());
		json_decref(array);
		return 2;
	}
	for (i = 0; i < list.count; i++) {
		const struct signal *s = &list.items[i];

		if (!a->all && !diff_line_added(diff, s->file, s->line)) {
			hidden++;
			continue;
		}
		shown++;
		if (array)
			json_array_append_new(array, report_signal_json(s, ws->store));
		else
			signal_print(s, ws);
	}
	if (array)
		rc = history_json_out(array);
	else if (!list.count)
		fprintf(stderr, "revline: no signals yet: 'revline signals --run' runs the linters, "
			"'revline signals --import FILE' reads their output\n");
	else if (hidden)
		fprintf(stderr, "revline: %zu signal%s on changed lines; %zu more elsewhere (--all shows them)\n",
			shown, shown == 1 ? "" : "s", hidden);
	signal_list_release(&list);
	return rc;
}

int cmd_signals(int argc, char **argv)
{
	struct signals_args a = { 0 };
	struct workspace ws;
	struct target target = { 0 };
	struct diff *diff = NULL;
	int rc;

	if ((rc = parse_args(&a, argc, argv)) != 0)
		return rc < 0 ? 0 : rc;
	if ((rc = workspace_open(&ws)) != 0)
		goto done;
	if (a.import) {
		rc = do_import(&ws, &a);
		goto done;
	}
	if (repo_resolve(&target, ws.repo, &a.spec) < 0 || repo_diff(&diff, ws.repo, &target) < 0) {
		cli_error("%s", error_message());
		rc = 2;
		goto done;
	}
	if (a.run && (rc = do_run(&ws, &a, diff)) != 0)
		goto done;
	rc = do_list(&ws, &a, diff);
done:
	diff_free(diff);
	target_release(&target);
	workspace_close(&ws);
	return rc;
}
