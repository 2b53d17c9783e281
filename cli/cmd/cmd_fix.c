/* revline fix: ask for a fix of a signal or a finding; show it, or apply it. */
#include "commands.h"
#include "fix.h"
#include "lint.h"
#include "patch.h"
#include "signals.h"
#include "status.h"
#include "term.h"
#include "workspace.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fix_args {
	const char *signal, *finding;
	int64_t id;
	bool apply, yes, json;
};

const struct command_help fix_help = {
	"fix",
	"revline fix SIGNAL_ID [--apply [--yes]] [--json]\n"
	"       revline fix --finding FINDING_ID [--apply [--yes]] [--json]",
	"ask the LLM for a fix of a signal or a finding; show it, or apply it",
	"Takes the edit window the signal calls for (a few lines, the whole function,\n"
	"the import block or the try block), sends it dedented with its context and\n"
	"the definitions of the repository its lines use (not with revline.context\n"
	"none), and shows the answer as a diff with the model's explanation. With\n"
	"--apply, writes it (after asking, unless --yes), keeping the file's\n"
	"indentation and line endings, refusing when the file changed since; then\n"
	"runs the signal's linter on the file again and says whether the signal is\n"
	"gone. 'revline undo' takes it back. Exit status: 0 when a fix was proposed\n"
	"(and applied if asked), 1 when applying was declined or refused, 2 for\n"
	"usage errors, 3 when no fix came.\n",
};

static int parse_args(struct fix_args *a, int argc, char **argv)
{
	const struct option options[] = {
		OPT_ID(0, "finding", &a->finding, "FINDING_ID", IDS_FINDING, "fix a finding of a check instead of a signal"),
		OPT_BOOL(0, "apply", &a->apply, "write the fix to the file (asks first on a terminal)"),
		OPT_BOOL('y', "yes", &a->yes, "with --apply: do not ask"),
		OPT_JSON(&a->json),
		OPT_END(),
	};
	int n = parse_options(argc, argv, options, &fix_help);

	if (n < 0)
		return n == PARSE_OPT_HELP ? -1 : 2;
	if (!parse_options_at_most(n, argv, 1, &fix_help))
		return 2;
	a->signal = n ? argv[0] : NULL;
	if (!!a->signal == !!a->finding) {
		cli_error(a->signal ? "give a SIGNAL_ID or --finding FINDING_ID, not both" :
			  "which signal? give its id (see 'revline signals'), or --finding FINDING_ID");
		return 2;
	}
	if (a->yes && !a->apply) {
		cli_error("--yes goes with --apply");
		return 2;
	}
	if (a->signal)
		return cli_id(&a->id, a->signal, "signal", "revline signals") ? 0 : 2;
	return cli_id(&a->id, a->finding, "finding", "revline check") ? 0 : 2;
}

/* --- asking --------------------------------------------------------------- */

static int fix_make(struct fix **out, struct workspace *ws, const struct fix_args *a)
{
	struct fix_options opts = { .workdir = ws->workdir, .store = ws->store, .llm = &ws->llm,
				    .config = ws->config };
	struct signal signal;
	int error;

	if ((error = sched_options_load(&opts.sched, ws->config)) < 0 ||
	    (error = asker_options_load(&opts.ask, ws->config)) < 0)
		return error;
	if (a->finding)
		return fix_new_finding(out, &opts, a->id);
	if ((error = lint_signal(&signal, ws->store, ws->workdir, a->id)) < 0)
		return error;
	error = fix_new_signal(out, &opts, &signal);
	signal_release(&signal);
	return error;
}

static void progress(const struct fix *fix, bool clear)
{
	if (!isatty(STDERR_FILENO))
		return;
	fputs("\r\033[K", stderr);
	if (!clear)
		term_printf(stderr, "asking for a fix of %s (%s)...", fix_file(fix), fix_window(fix));
}

/* Until the answer (or the recheck) is in. */
static void wait_idle(struct fix *fix)
{
	while (fix_busy(fix))
		fix_wait(fix, 1000);
}

/* --- applying ------------------------------------------------------------- */

/* y or n from the terminal (not from stdin, which may be a pipe). */
static bool confirm(const char *path)
{
	FILE *tty = fopen("/dev/tty", "r+");
	char answer[16] = "";

	if (!tty)
		return false;
	term_printf(tty, "Apply this fix to %s? [y/N] ", path);
	fflush(tty);
	if (!fgets(answer, sizeof(answer), tty))
		answer[0] = '\0';
	fclose(tty);
	return answer[0] == 'y' || answer[0] == 'Y';
}

static int apply(struct fix *fix, const struct fix_args *a)
{
	if (!a->yes && !confirm(fix_file(fix))) {
		fix_reject(fix);
		fprintf(stderr, "revline: not applied (fix %lld is kept as rejected)\n", (long long)fix_id(fix));
		return 1;
	}
	if (fix_apply(fix) < 0) {
		if (error_status() == RL_ECONFLICT)
			cli_error("%s; run 'revline fix %s%s' again for a fix of the file as it is now",
				  error_message(), a->finding ? "--finding " : "", a->finding ? a->finding : a->signal);
		else
			cli_error("%s", error_message());
		return 1;
	}
	wait_idle(fix);
	return 0;
}

/* --- output --------------------------------------------------------------- */

/*
 * The preview is the model's code and the explanation its words: both are
 * shown with control characters made visible, as the file name is. The
 * preview is for reading (the explanation follows it); --apply writes the
 * fix's real bytes.
 */
static void text_out(const struct fix *fix)
{
	if (fix_state(fix) == FIX_FAILED)
		return;
	term_puts(stdout, fix_preview(fix));
	if (fix_explanation(fix) && *fix_explanation(fix))
		term_printf(stdout, "\n%s\n", fix_explanation(fix));
	if (fix_state(fix) == FIX_PROPOSED) {
		size_t n;

		fix_definitions(fix, &n);
		term_printf(stdout, "\nfix %lld proposed for %s (%s)", (long long)fix_id(fix), fix_file(fix),
			    fix_window(fix));
		if (n)
			printf(", given %zu definition%s from the repository", n, n == 1 ? "" : "s");
		puts("; --apply writes it");
	}
}

/* The definitions of the repository the request carried: name, path, line. */
static json_t *definitions_json(const struct fix *fix)
{
	size_t i, n;
	const struct fix_definition *d = fix_definitions(fix, &n);
	json_t *list = json_array();

	for (i = 0; list && i < n; i++)
		json_array_append_new(list, json_pack("{s:s, s:s, s:i}", "name", d[i].name, "path", d[i].path,
						      "line", d[i].line));
	return list;
}

static int json_out(const struct fix *fix)
{
	json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:s?, s:s?, s:s?, s:o, s:s?}", "id", (json_int_t)fix_id(fix),
			      "state", fix_state_name(fix_state(fix)), "file", fix_file(fix),
			      "window", fix_window(fix), "explanation", fix_explanation(fix),
			      "diff", fix_preview(fix), "error", fix_error(fix), "definitions",
			      definitions_json(fix), "context_note", fix_context_note(fix));

	if (o && fix_state(fix) == FIX_APPLIED)
		json_object_set_new(o, "recheck", json_pack("{s:s, s:s?}", "result",
							    fix_recheck_name(fix_recheck(fix)), "detail",
							    fix_recheck_detail(fix)));
	return history_json_out(o);
}

/* Not a success when the linter says the file got worse. */
static const char *applied_how(const struct fix *fix)
{
	if (!fix_recheck_detail(fix))
		return "";
	switch (fix_recheck(fix)) {
	case RECHECK_NEW: return ", but the file got worse: ";
	case RECHECK_STILL: return ", but the problem is not fixed: ";
	default: return "; ";
	}
}

int cmd_fix(int argc, char **argv)
{
	struct fix_args a = { 0 };
	struct workspace ws;
	struct fix *fix = NULL;
	int rc;

	if ((rc = parse_args(&a, argc, argv)) != 0)
		return rc < 0 ? 0 : rc;
	/* Said before asking: the answer would be thrown away. */
	if (a.apply && !a.yes && !isatty(STDIN_FILENO)) {
		cli_error("--apply asks before writing, and there is no terminal to ask on: add --yes");
		return 1;
	}
	if ((rc = workspace_open(&ws)) != 0)
		goto done;
	if (fix_make(&fix, &ws, &a) < 0 || fix_start(fix) < 0) {
		cli_error("%s", error_message());
		rc = 2;
		goto done;
	}
	progress(fix, false);
	wait_idle(fix);
	progress(fix, true);
	/* What the repository index said: the fix was asked without (some of) its definitions. */
	if (fix_context_note(fix))
		term_printf(stderr, "revline: context: %s\n", fix_context_note(fix));
	if (fix_state(fix) == FIX_FAILED) {
		cli_error("no fix for %s: %s", fix_file(fix), fix_error(fix));
		rc = 3;
	} else if (a.apply) {
		if (!a.json)
			term_puts(stdout, fix_preview(fix));
		fflush(stdout);
		rc = apply(fix, &a);
	}
	if (a.json) {
		if (json_out(fix) != 0 && !rc)
			rc = 2;
	} else if (a.apply && rc == 0) {
		if (fix_explanation(fix) && *fix_explanation(fix))
			term_printf(stdout, "\n%s\n", fix_explanation(fix));
		term_printf(stdout, "\nfix %lld applied to %s%s%s (undo: revline undo %lld)\n", (long long)fix_id(fix),
			    fix_file(fix), applied_how(fix), fix_recheck_detail(fix) ? fix_recheck_detail(fix) : "",
			    (long long)fix_id(fix));
	} else if (!a.apply) {
		text_out(fix);
	}
done:
	fix_free(fix);
	workspace_close(&ws);
	return rc;
}
