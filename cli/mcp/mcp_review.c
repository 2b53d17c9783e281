/*
 * The review tool: a check of the change, run in the server's poll group;
 * each rule that settles is a progress notification; the result is the
 * findings as instructions an agent can act on, and the report as JSON.
 */
#include "mcp_state.h"
#include "array.h"
#include "check.h"
#include "cli.h"
#include "commands.h"
#include "config.h"
#include "llm.h"
#include "report.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mcp_review {
	struct workspace *ws;
	struct target target;
	struct diff *diff;
	struct check *check;
	struct check_options opts;
	struct strings rule_ids;
	size_t settled;
	bool store_failed;
	bool kept;              /* the session's latest review now (server->last) */
};

void mcp_review_free(struct mcp_review *r)
{
	if (!r)
		return;
	check_free(r->check);
	diff_free(r->diff);
	target_release(&r->target);
	strings_free(&r->rule_ids);
	free(r);
}

struct check *mcp_review_check(const struct mcp_review *review)
{
	return review->check;
}

static void review_free(void *ctx)
{
	struct mcp_review *r = ctx;

	if (!r->kept)
		mcp_review_free(r);
}

static void review_cancel(void *ctx)
{
	check_cancel(((struct mcp_review *)ctx)->check);
}

/* "rule injection: attention; app.py:5 critical: Shell injection in run() (finding 12); ..." */
static void rule_progress(struct mcp_server *server, struct mcp_review *r, size_t rule)
{
	const struct rule_result *res = check_result(r->check, rule);
	struct buf text = BUF_INIT;
	size_t i;

	r->settled++;
	buf_printf(&text, "rule %s: %s", res->rule->id, rule_status_name(res->status));
	for (i = 0; i < res->nfindings && text.len < 4096; i++) {
		const struct finding *f = &res->findings[i];

		buf_printf(&text, "; %s:%d %s: %s", f->file ? f->file : "?", f->line, severity_name(f->severity),
			   f->title ? f->title : "");
		if (finding_shown_id(f) > 0)
			buf_printf(&text, " (finding %lld)", (long long)finding_shown_id(f));
	}
	if (i < res->nfindings)
		buf_printf(&text, "; and %zu more", res->nfindings - i);
	mcp_progress(server, &server->job->call, (double)r->settled, (double)check_nresults(r->check) + 1,
		     text.ptr ? text.ptr : "");
	buf_release(&text);
}

static const struct mcp_job_ops review_ops;

/* "review partial: 0 findings; 8 of 14 rules did not run: review incomplete" */
static void done_progress(struct mcp_server *server, const struct mcp_review *r, double total)
{
	struct buf text = BUF_INIT, incomplete = BUF_INIT;
	size_t n = check_report(r->check)->nfindings;

	buf_printf(&text, "review %s: %zu finding%s", check_status(r->check), n, n == 1 ? "" : "s");
	if (check_incomplete_text(&incomplete, r->check) == 0 && incomplete.len)
		buf_printf(&text, "; %s", incomplete.ptr);
	mcp_progress(server, &server->job->call, total, total, text.ptr ? text.ptr : check_status(r->check));
	buf_release(&text);
	buf_release(&incomplete);
}

static bool review_step(struct mcp_server *server, void *ctx)
{
	struct mcp_review *r = ctx;
	struct check_event ev;
	double total = (double)check_nresults(r->check) + 1;

	while (check_next_event(r->check, &ev)) {
		if (ev.kind == CHECK_RULE_SETTLED)
			rule_progress(server, r, ev.rule);
		if (ev.kind == CHECK_REDUCE_STARTED)
			mcp_progress(server, &server->job->call, (double)r->settled + 0.5, total,
				     "every rule settled: merging the findings");
		if (ev.kind == CHECK_STORE_FAILED)
			r->store_failed = true;
	}
	if (!check_done(r->check))
		return false;
	/* The last notification says the whole is done, before the answer. */
	done_progress(server, r, total);
	return true;
}

const struct check *mcp_review_running(const struct mcp_server *server)
{
	return server->job && server->job->ops == &review_ops ?
		((const struct mcp_review *)server->job->ctx)->check : NULL;
}

const char mcp_env_hint[] =
	"revline mcp sees only the environment its client starts it with: name the variables in this "
	"server's entry, then restart it. Codex: env_vars = [\"OPENAI_API_KEY\"] under [mcp_servers.revline] "
	"(~/.codex/config.toml); Claude Code: \"env\": {\"OPENAI_API_KEY\": \"${OPENAI_API_KEY}\"} (.mcp.json); "
	"Cursor: \"env\": {\"OPENAI_API_KEY\": \"${env:OPENAI_API_KEY}\"} (.cursor/mcp.json). ANTHROPIC_API_KEY, "
	"REVLINE_BASE_URL and REVLINE_MODEL go the same way; git config revline.baseUrl, revline.model and "
	"revline.apiKeyCommand need no environment.";

/* What was reviewed and what came of it (of the rules that ran, when not all did). */
static void headline(FILE *out, const struct mcp_review *r)
{
	const struct report *rep = check_report(r->check);
	size_t total, n = check_not_run(r->check, &total), i;

	if (n)
		fprintf(out, "revline reviewed %s (check %lld, %s): the %zu rule%s that ran found %zu finding%s.\n",
			r->target.description, (long long)check_id(r->check), check_status(r->check), total - n,
			total - n == 1 ? "" : "s", rep->nfindings, rep->nfindings == 1 ? "" : "s");
	else
		fprintf(out, "revline reviewed %s: %s, check %lld, %s.\n", r->target.description,
			rep->overall_severity ? rep->overall_severity : "clean", (long long)check_id(r->check),
			check_status(r->check));
	if (!check_stored(r->check))
		fprintf(out, "The results were not stored: %s\n",
			check_store_error(r->check) ? check_store_error(r->check) : "the database failed");
	for (i = 0; i < check_nnotes(r->check); i++)
		fprintf(out, "Note: %s\n", check_note(r->check, i));
	fputc('\n', out);
}

static json_t *review_result(struct mcp_server *server, void *ctx)
{
	struct mcp_review *r = ctx;
	struct report_options ro = { .again = "call the review tool again", .setup_hint = mcp_env_hint };
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	json_t *result;

	if (!out)
		return mcp_tool_error("out of memory");
	report_prompt_incomplete(out, r->check, &ro);
	headline(out, r);
	report_prompt_findings(out, r->check, &ro);
	fclose(out);
	if (!strcmp(check_status(r->check), "failed"))
		result = mcp_tool_error("%s", text);
	else
		result = mcp_tool_result(server, text, report_json_doc(r->check, r->ws->repo, &r->target, &ro));
	free(text);
	/* Fix detection of the previous check's violations goes on without holding the answer. */
	if (check_stored(r->check))
		detect_fixes_spawn(check_id(r->check));
	mcp_review_free(server->last);
	server->last = r;
	r->kept = true;
	return result;
}

static const struct mcp_job_ops review_ops = { review_step, review_result, review_cancel, review_free };

static int spec_take(struct target_spec *spec, json_t *args, json_t **out)
{
	const char *range = json_string_value(json_object_get(args, "target"));

	spec->base = json_string_value(json_object_get(args, "base"));
	spec->staged = json_is_true(json_object_get(args, "staged"));
	spec->untracked = json_is_true(json_object_get(args, "untracked"));
	if (range && !cli_target_range(spec, range)) {
		*out = mcp_tool_error("target \"%s\" is not a range: give A..B or A...B (or base, or staged)", range);
		return -1;
	}
	if (spec->range && (spec->base || spec->staged)) {
		*out = mcp_tool_error("target is a range: it does not go with base or staged");
		return -1;
	}
	return 0;
}

static int options_take(struct mcp_review *r, struct mcp_server *server, json_t *args)
{
	json_t *rules = json_object_get(args, "rules"), *id;
	size_t i;
	int error;

	if ((error = check_options_load(&r->opts, r->ws->config)) < 0)
		return error;
	json_array_foreach(rules, i, id)
		if (strings_add(&r->rule_ids, json_string_value(id)) < 0)
			return error_nomem();
	r->opts.llm = &r->ws->llm;
	r->opts.store = r->ws->store;
	r->opts.group = &server->group;
	r->opts.rule_dirs = (const char *const *)server->options->rule_dirs;
	r->opts.nrule_dirs = server->options->nrule_dirs;
	r->opts.no_builtin |= server->options->no_builtin;
	r->opts.rule_ids = (const char *const *)r->rule_ids.items;
	r->opts.nrule_ids = r->rule_ids.count;
	r->opts.no_cache = json_is_true(json_object_get(args, "no_cache"));
	return 0;
}

/* The check made and started; a tool error in *out when it cannot be. */
static int review_begin(struct mcp_review *r, struct mcp_server *server, json_t *args, json_t **out)
{
	struct target_spec spec = { 0 };
	struct buf why = BUF_INIT;
	int over;

	if (spec_take(&spec, args, out) < 0)
		return -1;
	if (repo_resolve(&r->target, r->ws->repo, &spec) < 0 || repo_diff(&r->diff, r->ws->repo, &r->target) < 0 ||
	    options_take(r, server, args) < 0 ||
	    check_new(&r->check, r->ws->repo, &r->target, r->diff, &r->opts) < 0)
		goto failed;
	if ((over = check_budget(&why, r->check, &r->ws->llm, r->opts.confirm_tokens)) < 0)
		goto failed;
	if (over) {
		*out = mcp_tool_error("%s; raise revline.confirmTokens (or run `revline check --yes` yourself)", why.ptr);
		buf_release(&why);
		return -1;
	}
	if (check_start(r->check) < 0)
		goto failed;
	return 0;
failed:
	*out = mcp_tool_error("%s", error_message());
	return -1;
}

int mcp_review_call(struct mcp_server *server, json_t *args, json_t **out, struct mcp_job **job)
{
	struct mcp_review *r;
	struct workspace *ws;

	if (mcp_workspace(server, &ws) < 0) {
		*out = mcp_tool_error("%s", error_message());
		return 0;
	}
	if (!(r = calloc(1, sizeof(*r))))
		return MCP_INTERNAL_ERROR;
	r->ws = ws;
	if (review_begin(r, server, args, out) < 0) {
		mcp_review_free(r);
		return 0;
	}
	if (!(*job = mcp_job_new(&review_ops, r))) {
		mcp_review_free(r);
		return MCP_INTERNAL_ERROR;
	}
	return 0;
}
