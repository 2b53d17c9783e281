/*
 * The tools that read or mark: the latest review's findings, the linters'
 * signals (running the linters first when asked, in the poll group), and a
 * verdict on a finding.
 */
#include "mcp_state.h"
#include "check.h"
#include "feedback.h"
#include "finding.h"
#include "history.h"
#include "store.h"
#include "lint.h"
#include "report.h"
#include "signals.h"
#include "status.h"
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- findings ----------------------------------------------------------------- */

struct finding_filter {
	int severity;                   /* the least, or -1 */
	const char *file;
	bool show_unverified;
};

static bool filter_keeps(const struct finding_filter *f, const struct finding *finding)
{
	struct report_options ro = { .show_unverified = f->show_unverified };

	return report_shows(finding, &ro) && (int)finding->severity >= f->severity &&
	       (!f->file || (finding->file && !strcmp(finding->file, f->file)));
}

static void finding_line(FILE *out, const struct finding *f)
{
	/* One line a finding: its id, where, how severe, what (control characters shown as '?'). */
	char title[256];
	size_t i;

	snprintf(title, sizeof(title), "%s", f->title ? f->title : "");
	for (i = 0; title[i]; i++)
		if ((unsigned char)title[i] < 0x20 || title[i] == 0x7f)
			title[i] = '?';
	fprintf(out, "finding %lld: %s:%d: %s: %s [%s]%s\n", (long long)finding_shown_id(f), f->file ? f->file : "?",
		f->line, severity_name(f->severity), title, f->rule_id ? f->rule_id : "?",
		f->verified ? "" : " (not verified)");
}

static json_t *findings_list(const struct finding *findings, size_t n, const struct finding_filter *filter,
			     FILE *out)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < n; i++) {
		if (!filter_keeps(filter, &findings[i]))
			continue;
		json_array_append_new(list, report_json_finding(&findings[i]));
		finding_line(out, &findings[i]);
	}
	if (!json_array_size(list))
		fputs("no findings match\n", out);
	return list;
}

static int findings_copy(struct finding **out, size_t *n, const struct finding *from, size_t count)
{
	int error;

	if (!(*out = calloc(count ? count : 1, sizeof(**out))))
		return error_nomem();
	for (*n = 0; *n < count; (*n)++)
		if ((error = finding_copy(&(*out)[*n], &from[*n])) < 0)
			return error;
	return 0;
}

/*
 * The check's findings as stored, so that any process (or client) can ask
 * by id; the session's latest review from memory only when it could not
 * be stored.
 */
static int findings_load(struct finding **out, size_t *n, int64_t *check, struct mcp_server *server)
{
	const struct check *last = server->last ? mcp_review_check(server->last) : NULL;
	struct workspace *ws;
	char *key;
	int error;

	*out = NULL;
	*n = 0;
	if (last && !check_stored(last) && (!*check || *check == check_id(last))) {
		*check = check_id(last);
		return findings_copy(out, n, check_report(last)->findings, check_report(last)->nfindings);
	}
	if ((error = mcp_workspace(server, &ws)) < 0)
		return error;
	if (!(key = history_repo_key(ws->workdir)))
		return error_nomem();
	error = store_check_findings(out, n, check, ws->store, key);
	free(key);
	return error;
}

int mcp_findings_call(struct mcp_server *server, json_t *args, json_t **out, struct mcp_job **job)
{
	struct finding_filter filter = { -1, json_string_value(json_object_get(args, "file")),
					 json_is_true(json_object_get(args, "show_unverified")) };
	const char *severity = json_string_value(json_object_get(args, "severity"));
	int64_t check = json_integer_value(json_object_get(args, "check_id"));
	struct finding *findings = NULL;
	size_t n = 0, len = 0;
	enum severity least;
	char *text = NULL;
	bool running;
	FILE *mem;
	json_t *list;

	(void)job;
	if (findings_load(&findings, &n, &check, server) < 0) {
		*out = mcp_tool_error("%s%s", error_message(), check ? "" : ": call review first");
		return 0;
	}
	if (severity && severity_parse(&least, severity))
		filter.severity = (int)least;
	if (!(mem = open_memstream(&text, &len))) {
		findings_free(findings, n);
		return MCP_INTERNAL_ERROR;
	}
	running = mcp_review_running(server) && check_id(mcp_review_running(server)) == check;
	if (running)
		fprintf(mem, "check %lld, still running: the findings of the rules settled so far (review answers "
			"with them all):\n", (long long)check);
	else
		fprintf(mem, "check %lld:\n", (long long)check);
	list = findings_list(findings, n, &filter, mem);
	fclose(mem);
	*out = mcp_tool_result(server, text, json_pack("{s:I, s:b, s:o}", "check_id", (json_int_t)check, "running",
						       running, "findings", list));
	free(text);
	findings_free(findings, n);
	return 0;
}

/* --- signals ------------------------------------------------------------------ */

struct signals_job {
	struct workspace *ws;
	struct target target;
	struct diff *diff;
	struct lint *lint;
	bool all;
	struct buf problems;            /* what the linters said went wrong */
	json_t *linters;                /* what became of each linter asked to run */
};

static void signals_job_free(void *ctx)
{
	struct signals_job *j = ctx;

	lint_free(j->lint);
	diff_free(j->diff);
	target_release(&j->target);
	buf_release(&j->problems);
	json_decref(j->linters);
	free(j);
}

static void signals_cancel(void *ctx)
{
	lint_cancel(((struct signals_job *)ctx)->lint);
}

static bool signals_step(struct mcp_server *server, void *ctx)
{
	(void)server;
	return lint_done(((struct signals_job *)ctx)->lint);
}

/* What became of a linter asked to run: "done", "not installed", "failed", "timed out" (NULL: it had no file). */
static const char *lint_outcome(const struct lint_result *r)
{
	switch (r->status) {
	case LINT_DONE: return "done";
	case LINT_NOT_INSTALLED: return r->nfiles ? "not installed" : NULL;
	case LINT_NO_FILES: return NULL;
	case LINT_TIMEOUT: return "timed out";
	default: return "failed";
	}
}

/*
 * Keep what each linter that ran found; say what the others could not do
 * (one not installed is named only when a changed file was for it).
 */
static void runs_store(struct signals_job *j)
{
	size_t i;
	int64_t run;

	for (i = 0; j->lint && i < lint_count(j->lint); i++) {
		const struct lint_result *r = lint_result(j->lint, i);
		const char *name = linter_name(r->linter), *outcome = lint_outcome(r);

		if (!outcome)
			continue;
		json_array_append_new(j->linters, json_pack("{s:s, s:s, s:I}", "name", name, "outcome", outcome,
							    "files", (json_int_t)r->nfiles));
		if (r->status == LINT_DONE) {
			if (lint_store(&run, j->ws->store, j->ws->workdir, name, "run", r->command,
				       (struct signal_list *)&r->signals) < 0)
				buf_printf(&j->problems, "%s: %s\n", name, error_message());
		} else if (r->status == LINT_NOT_INSTALLED) {
			buf_printf(&j->problems, "%s: not installed, %zu changed file%s not checked (install it, or set "
				   "git config revline.lint.%s to its command)\n", name, r->nfiles,
				   r->nfiles == 1 ? "" : "s", name);
		} else {
			buf_printf(&j->problems, "%s: %s\n", name, r->message ? r->message : outcome);
		}
	}
}

static json_t *signals_result(struct mcp_server *server, void *ctx)
{
	struct signals_job *j = ctx;
	struct signal_list list = { 0 };
	json_t *array;
	char *text = NULL;
	size_t len = 0, i;
	FILE *mem;

	runs_store(j);
	if (lint_current(&list, j->ws->store, j->ws->workdir) < 0)
		return mcp_tool_error("%s", error_message());
	if (!(mem = open_memstream(&text, &len)) || !(array = json_array())) {
		signal_list_release(&list);
		return mcp_tool_error("out of memory");
	}
	fputs(j->problems.len ? j->problems.ptr : "", mem);
	for (i = 0; i < list.count; i++) {
		const struct signal *s = &list.items[i];

		if (!j->all && !diff_line_added(j->diff, s->file, s->line))
			continue;
		json_array_append_new(array, report_signal_json(s, j->ws->store));
		fprintf(mem, "signal %lld: %s:%d:%d: %s %s: %s\n", (long long)s->id, s->file, s->line, s->column,
			s->tool, s->code, s->message);
	}
	if (!json_array_size(array))
		fputs(list.count ? "no signals on the changed lines (all: true lists the others)\n" :
		      j->lint ? "no signals: the linters that ran found nothing\n" :
		      "no signals yet: call signals with run: true to run the linters\n", mem);
	fclose(mem);
	signal_list_release(&list);
	array = mcp_tool_result(server, text, j->lint ? json_pack("{s:o, s:O}", "signals", array, "linters", j->linters) :
				json_pack("{s:o}", "signals", array));
	free(text);
	return array;
}

static const struct mcp_job_ops signals_ops = { signals_step, signals_result, signals_cancel, signals_job_free };

static int lint_begin(struct signals_job *j, struct mcp_server *server)
{
	char **files = NULL;
	size_t nfiles = 0;
	int error;

	if ((error = diff_text_files(&files, &nfiles, j->diff)) < 0)
		return error;
	if ((error = lint_new(&j->lint, j->ws->workdir, j->ws->config, (const char *const *)files, nfiles, NULL)) == 0)
		error = lint_start(j->lint, &server->group);
	diff_free_paths(files, nfiles);
	return error;
}

int mcp_signals_call(struct mcp_server *server, json_t *args, json_t **out, struct mcp_job **job)
{
	struct target_spec spec = { 0 };
	struct signals_job *j;
	struct workspace *ws;

	if (mcp_workspace(server, &ws) < 0) {
		*out = mcp_tool_error("%s", error_message());
		return 0;
	}
	if (!(j = calloc(1, sizeof(*j))) || !(j->linters = json_array())) {
		free(j);
		return MCP_INTERNAL_ERROR;
	}
	j->ws = ws;
	j->all = json_is_true(json_object_get(args, "all"));
	if (repo_resolve(&j->target, ws->repo, &spec) < 0 || repo_diff(&j->diff, ws->repo, &j->target) < 0 ||
	    (json_is_true(json_object_get(args, "run")) && lint_begin(j, server) < 0)) {
		*out = mcp_tool_error("%s", error_message());
		signals_job_free(j);
		return 0;
	}
	/* Without run it only reads what is stored: answered now (beside a running review too). */
	if (!j->lint) {
		*out = signals_result(server, j);
		signals_job_free(j);
		return 0;
	}
	*job = mcp_job_new(&signals_ops, j);
	return *job ? 0 : MCP_INTERNAL_ERROR;
}

/* --- a verdict on a finding ------------------------------------------------------ */

static const char *verdict_said(enum feedback_kind kind)
{
	switch (kind) {
	case FEEDBACK_FALSE_POSITIVE: return "marked false positive: it is hidden when it comes back";
	case FEEDBACK_ACCEPT: return "accepted: the rule keeps reporting problems like it";
	default: return "rejected: recorded; it is still shown when it comes back";
	}
}

int mcp_feedback_call(struct mcp_server *server, json_t *args, json_t **out, struct mcp_job **job)
{
	const char *verdict = json_string_value(json_object_get(args, "verdict"));
	int64_t finding = json_integer_value(json_object_get(args, "finding_id")), id = 0;
	enum feedback_kind kind = !strcmp(verdict, "false_positive") ? FEEDBACK_FALSE_POSITIVE :
				  !strcmp(verdict, "accept") ? FEEDBACK_ACCEPT : FEEDBACK_REJECT;
	struct buf about = BUF_INIT;
	struct workspace *ws;
	char *text = NULL;

	(void)job;
	if (mcp_workspace(server, &ws) < 0 ||
	    feedback_on_finding(&id, ws->store, finding, kind, json_string_value(json_object_get(args, "note"))) < 0 ||
	    feedback_describe(&about, ws->store, id) < 0) {
		*out = mcp_tool_error("%s", error_message());
		buf_release(&about);
		return 0;
	}
	if (asprintf(&text, "finding %lld (%s) %s", (long long)finding, about.ptr ? about.ptr : "", verdict_said(kind)) < 0)
		text = NULL;
	*out = text ? mcp_tool_result(server, text, json_pack("{s:I, s:s, s:I}", "finding_id", (json_int_t)finding,
							       "verdict", verdict, "feedback_id", (json_int_t)id)) :
		      mcp_tool_error("out of memory");
	free(text);
	buf_release(&about);
	return 0;
}
