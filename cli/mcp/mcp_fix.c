/*
 * The fix tools: ask the LLM for a fix of a finding or a signal (kept for
 * the session), apply one to its file (then the linter's recheck), undo
 * an applied fix. Asking and rechecking run in the server's poll group.
 */
#include "mcp_state.h"
#include "array.h"
#include "fix.h"
#include "lint.h"
#include "llm.h"
#include "signals.h"
#include "status.h"
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fix_job {
	struct fix *fix;        /* the session's (server->fixes) */
	bool applying;
};

static void fix_job_free(void *ctx)
{
	free(ctx);
}

static void fix_job_cancel(void *ctx)
{
	fix_cancel(((struct fix_job *)ctx)->fix);
}

static bool fix_job_step(struct mcp_server *server, void *ctx)
{
	(void)server;
	return !fix_busy(((struct fix_job *)ctx)->fix);
}

static json_t *fix_json(const struct fix *fix)
{
	json_t *o = json_pack("{s:I, s:s, s:o, s:o, s:o, s:o}", "fix_id", (json_int_t)fix_id(fix), "state",
			      fix_state_name(fix_state(fix)), "file", utf8_json(fix_file(fix)), "window",
			      utf8_json(fix_window(fix)), "explanation", utf8_json(fix_explanation(fix)), "diff",
			      utf8_json(fix_preview(fix)));

	if (o && fix_state(fix) == FIX_APPLIED)
		json_object_set_new(o, "recheck", json_pack("{s:s, s:o}", "result", fix_recheck_name(fix_recheck(fix)),
							    "detail", utf8_json(fix_recheck_detail(fix))));
	return o;
}

static json_t *proposed(struct mcp_server *server, const struct fix *fix)
{
	char *text = NULL;
	json_t *r;

	if (fix_state(fix) == FIX_FAILED)
		return mcp_tool_error("no fix for %s: %s", fix_file(fix), fix_error(fix));
	if (asprintf(&text, "%s\n%s\n\nfix %lld proposed for %s (%s): apply_fix writes it", fix_preview(fix),
		     fix_explanation(fix) ? fix_explanation(fix) : "", (long long)fix_id(fix), fix_file(fix),
		     fix_window(fix)) < 0)
		return mcp_tool_error("out of memory");
	r = mcp_tool_result(server, text, fix_json(fix));
	free(text);
	return r;
}

static json_t *applied(struct mcp_server *server, const struct fix *fix)
{
	const char *detail = fix_recheck_detail(fix);
	char *text = NULL;
	json_t *r;

	if (asprintf(&text, "fix %lld applied to %s%s%s (undo_fix with fix_id %lld takes it back)", (long long)fix_id(fix),
		     fix_file(fix), detail ? "; the linter again: " : "", detail ? detail : "",
		     (long long)fix_id(fix)) < 0)
		return mcp_tool_error("out of memory");
	r = mcp_tool_result(server, text, fix_json(fix));
	free(text);
	return r;
}

static json_t *fix_job_result(struct mcp_server *server, void *ctx)
{
	struct fix_job *j = ctx;

	return j->applying ? applied(server, j->fix) : proposed(server, j->fix);
}

static const struct mcp_job_ops fix_ops = { fix_job_step, fix_job_result, fix_job_cancel, fix_job_free };

static int job_for(struct mcp_job **job, struct fix *fix, bool applying)
{
	struct fix_job *j = calloc(1, sizeof(*j));

	if (!j)
		return MCP_INTERNAL_ERROR;
	j->fix = fix;
	j->applying = applying;
	*job = mcp_job_new(&fix_ops, j);
	return *job ? 0 : MCP_INTERNAL_ERROR;
}

void mcp_fixes_free(struct mcp_server *server)
{
	size_t i;

	for (i = 0; i < server->nfixes; i++)
		fix_free(server->fixes[i]);
	free(server->fixes);
	server->fixes = NULL;
	server->nfixes = server->fixes_alloc = 0;
}

/*
 * The session keeps its latest fixes; older ones that are not running go
 * (apply_fix reads a fix back from the store, undo_fix works from the
 * store), so that a day of fixes does not keep every file they read. A
 * call that writes runs alone: no job holds one of them.
 */
#define MCP_FIXES_KEPT 8

static void fixes_bound(struct mcp_server *server)
{
	size_t i, kept = 0, over = server->nfixes >= MCP_FIXES_KEPT ? server->nfixes - MCP_FIXES_KEPT + 1 : 0;

	for (i = 0; i < server->nfixes; i++) {
		if (over && !fix_busy(server->fixes[i])) {
			fix_free(server->fixes[i]);
			over--;
			continue;
		}
		server->fixes[kept++] = server->fixes[i];
	}
	server->nfixes = kept;
}

/* --- propose_fix -------------------------------------------------------------- */

static int options_load(struct fix_options *opts, struct mcp_server *server, struct workspace *ws)
{
	int error;

	*opts = (struct fix_options){ .workdir = ws->workdir, .store = ws->store, .llm = &ws->llm,
				      .config = ws->config, .group = &server->group };
	if ((error = sched_options_load(&opts->sched, ws->config)) < 0)
		return error;
	return asker_options_load(&opts->ask, ws->config);
}

static int fix_make(struct fix **out, struct mcp_server *server, struct workspace *ws, json_t *args)
{
	int64_t finding = json_integer_value(json_object_get(args, "finding_id"));
	int64_t signal_id = json_integer_value(json_object_get(args, "signal_id"));
	struct fix_options opts;
	struct signal signal;
	int error;

	if ((error = options_load(&opts, server, ws)) < 0)
		return error;
	if (finding)
		return fix_new_finding(out, &opts, finding);
	if ((error = lint_signal(&signal, ws->store, ws->workdir, signal_id)) < 0)
		return error;
	error = fix_new_signal(out, &opts, &signal);
	signal_release(&signal);
	return error;
}

int mcp_propose_fix_call(struct mcp_server *server, json_t *args, json_t **out, struct mcp_job **job)
{
	struct workspace *ws = NULL;
	struct fix *fix = NULL;

	if (!json_object_get(args, "finding_id") == !json_object_get(args, "signal_id")) {
		*out = mcp_tool_error("give finding_id (from review) or signal_id (from signals), one of them");
		return 0;
	}
	fixes_bound(server);
	if (ARRAY_GROW(server->fixes, server->fixes_alloc, server->nfixes + 1) < 0)
		return MCP_INTERNAL_ERROR;
	if (mcp_workspace(server, &ws) == 0 && ws->llm.provider == PROVIDER_NONE) {
		*out = mcp_tool_error("asking for a fix needs an LLM: %s\nWhat to set: %s", llm_setup_hint, mcp_env_hint);
		return 0;
	}
	if (!ws || fix_make(&fix, server, ws, args) < 0 || fix_start(fix) < 0) {
		*out = mcp_tool_error("%s", error_message());
		fix_free(fix);
		return 0;
	}
	server->fixes[server->nfixes++] = fix;
	return job_for(job, fix, false);
}

/* --- apply_fix, undo_fix --------------------------------------------------------- */

static struct fix *session_fix(struct mcp_server *server, int64_t id)
{
	size_t i;

	for (i = 0; i < server->nfixes; i++)
		if (fix_id(server->fixes[i]) == id)
			return server->fixes[i];
	return NULL;
}

/*
 * The fix: the one this server asked for, or one proposed before (another
 * server, `revline fix`), read back from the store: a client need not keep
 * to one process.
 */
static int fix_find(struct fix **out, struct mcp_server *server, int64_t id)
{
	struct fix_options opts;
	struct workspace *ws;
	int error;

	if ((*out = session_fix(server, id)))
		return 0;
	fixes_bound(server);
	if (ARRAY_GROW(server->fixes, server->fixes_alloc, server->nfixes + 1) < 0)
		return error_nomem();
	if ((error = mcp_workspace(server, &ws)) < 0 || (error = options_load(&opts, server, ws)) < 0 ||
	    (error = fix_open(out, &opts, id)) < 0)
		return error;
	server->fixes[server->nfixes++] = *out;
	return 0;
}

int mcp_apply_fix_call(struct mcp_server *server, json_t *args, json_t **out, struct mcp_job **job)
{
	int64_t id = json_integer_value(json_object_get(args, "fix_id"));
	struct fix *fix;

	if (fix_find(&fix, server, id) < 0) {
		*out = mcp_tool_error("%s: propose_fix asks for one", error_message());
		return 0;
	}
	if (fix_state(fix) != FIX_PROPOSED && fix_state(fix) != FIX_REJECTED && fix_state(fix) != FIX_UNDONE) {
		*out = mcp_tool_error("fix %lld is %s: there is no proposal to apply", (long long)id,
				      fix_state_name(fix_state(fix)));
		return 0;
	}
	if (fix_apply(fix) < 0) {
		*out = error_status() == RL_ECONFLICT ?
			mcp_tool_error("%s: call propose_fix again for a fix of the file as it is now", error_message()) :
			mcp_tool_error("%s", error_message());
		return 0;
	}
	return job_for(job, fix, true);
}

int mcp_undo_fix_call(struct mcp_server *server, json_t *args, json_t **out, struct mcp_job **job)
{
	int64_t id = json_integer_value(json_object_get(args, "fix_id")), undone = 0;
	struct workspace *ws;
	char text[128];

	(void)job;
	if (mcp_workspace(server, &ws) < 0 || fix_undo_stored(&undone, ws->store, ws->workdir, id) < 0) {
		*out = mcp_tool_error("%s", error_message());
		return 0;
	}
	snprintf(text, sizeof(text), "fix %lld undone: the file is as it was before it", (long long)undone);
	*out = mcp_tool_result(server, text, json_pack("{s:I, s:s}", "fix_id", (json_int_t)undone, "state", "undone"));
	return 0;
}
