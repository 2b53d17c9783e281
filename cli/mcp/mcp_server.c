/*
 * The MCP session: read the client's lines, keep its messages in order,
 * answer them, and run one long tool call at a time in the poll group
 * while pings and cancellations are still answered.
 */
#include "mcp_state.h"
#include "array.h"
#include "fix.h"
#include "proc_sample.h"
#include "status.h"
#include "store.h"
#include "utf8.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const mcp_versions[] = { "2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", NULL };
/* The modern revisions: stateless, each request says its version in _meta; the rest open with initialize. */
#define MCP_MODERN "2026-07-28"
#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CAPABILITIES "io.modelcontextprotocol/clientCapabilities"
#define META_SERVER "io.modelcontextprotocol/serverInfo"
#define MCP_UNSUPPORTED_VERSION (-32022)
/* How long a client may keep tools/list and server/discover: the tools change only with revline. */
#define MCP_LIST_TTL_MS 3600000

/* Messages waiting while a tool call runs; more are refused. */
#define MCP_QUEUE_MAX 256

static const char instructions[] =
	"revline reviews the local git change against the team's rules. Call review "
	"before you say a change is done; act on its findings (each says where, what is "
	"wrong, the code as revline found it, and what to change), then review again. "
	"propose_fix and apply_fix fix a finding or a linter signal (undo_fix takes it "
	"back); mark_finding records a false positive so it is not reported again.";

bool mcp_since(const struct mcp_server *server, const char *version)
{
	return server->current && strcmp(server->current, version) >= 0;
}

const char *mcp_version_known(const char *version)
{
	size_t i;

	for (i = 0; version && mcp_versions[i]; i++)
		if (!strcmp(version, mcp_versions[i]))
			return mcp_versions[i];
	return NULL;
}

static bool modern(const char *version)
{
	return version && strcmp(version, MCP_MODERN) >= 0;
}

static json_t *server_info(const struct mcp_server *server)
{
	json_t *info = json_pack("{s:s, s:s}", "name", "revline", "version", REVLINE_VERSION);

	if (info && mcp_since(server, "2025-06-18"))
		json_object_set_new(info, "title", json_string("revline code review"));
	return info;
}

/* A result in the request's revision: a modern one says its type and who answered. */
static json_t *result_for(struct mcp_server *server, const struct mcp_call *call, json_t *result)
{
	if (!result)
		result = json_object();
	if (result && modern(call->version)) {
		json_object_set_new(result, "resultType", json_string("complete"));
		json_object_set_new(result, "_meta", json_pack("{s:o}", META_SERVER, server_info(server)));
	}
	return mcp_response(call->id, result);
}

void mcp_send(struct mcp_server *server, json_t *message)
{
	if (server->gone || !message) {
		json_decref(message);
		return;
	}
	if (mcp_write(server->out, message) < 0)
		server->gone = true;
}

static void batch_settle(struct mcp_server *server, struct mcp_batch *batch)
{
	if (--batch->pending)
		return;
	if (json_array_size(batch->responses))
		mcp_send(server, batch->responses);
	else
		json_decref(batch->responses);
	free(batch);
}

void mcp_answer(struct mcp_server *server, struct mcp_call *call, json_t *message)
{
	if (!call->batch) {
		mcp_send(server, message);
		return;
	}
	json_array_append_new(call->batch->responses, message);
	batch_settle(server, call->batch);
}

void mcp_progress(struct mcp_server *server, struct mcp_call *call, double progress, double total,
		  const char *message)
{
	json_t *params;

	/* A cancelled call is over for the client: nothing more about it, not even the rules it stops. */
	if (!call->progress_token || progress <= call->progress ||
	    (server->job && call == &server->job->call && server->job->cancelled))
		return;
	call->progress = progress;
	params = json_pack("{s:O, s:f}", "progressToken", call->progress_token, "progress", progress);
	if (params && total > 0)
		json_object_set_new(params, "total", json_real(total));
	if (params && message)
		json_object_set_new(params, "message", utf8_json(message));
	mcp_send(server, mcp_notification("notifications/progress", params));
}

int mcp_workspace(struct mcp_server *server, struct workspace **out)
{
	int error;

	*out = NULL;
	if (!server->opened) {
		if ((error = workspace_load(&server->ws)) < 0)
			return error;
		server->opened = true;
	}
	*out = &server->ws;
	return 0;
}

/* --- the queue ------------------------------------------------------------- */

static void cancelled(struct mcp_server *server, json_t *params);

static void queue_push(struct mcp_server *server, json_t *message, struct mcp_batch *batch, bool reply)
{
	struct mcp_message m;

	if (!message)
		return;
	mcp_message_decode(&m, message);
	/* A cancellation does not wait its turn: it is for what waits or runs. */
	if (m.kind == MCP_NOTIFICATION && !strcmp(m.method, "notifications/cancelled")) {
		cancelled(server, m.params);
		json_decref(message);
		return;
	}
	if (server->nqueue >= MCP_QUEUE_MAX || ARRAY_GROW(server->queue, server->queue_alloc, server->nqueue + 1) < 0) {
		struct mcp_call call = { m.id, NULL, batch, 0, NULL };

		if (m.kind == MCP_REQUEST || m.kind == MCP_INVALID)
			mcp_answer(server, &call, mcp_error(m.id, MCP_INTERNAL_ERROR,
							    "too many messages waiting: send fewer at once"));
		json_decref(message);
		return;
	}
	server->queue[server->nqueue].message = message;
	server->queue[server->nqueue].batch = batch;
	server->queue[server->nqueue].reply = reply;
	server->nqueue++;
}

static void queue_drop(struct mcp_server *server, size_t index)
{
	json_decref(server->queue[index].message);
	memmove(&server->queue[index], &server->queue[index + 1],
		(server->nqueue - index - 1) * sizeof(*server->queue));
	server->nqueue--;
}

/* Whether an item of a batch needs an answer (requests, and what is not a message). */
static bool wants_answer(json_t *item)
{
	struct mcp_message m;

	mcp_message_decode(&m, item);
	return m.kind == MCP_REQUEST || m.kind == MCP_INVALID;
}

static void batch_take(struct mcp_server *server, json_t *array)
{
	struct mcp_batch *batch;
	size_t i;

	/* Only 2025-03-26 has batches: later revisions took them out. */
	if (!json_array_size(array) || !server->version || strcmp(server->version, "2025-06-18") >= 0) {
		queue_push(server, mcp_error(NULL, MCP_INVALID_REQUEST, json_array_size(array) ?
					     "JSON-RPC batches are not part of this protocol revision: send one message a line" :
					     "an empty batch"), NULL, true);
		json_decref(array);
		return;
	}
	if (!(batch = calloc(1, sizeof(*batch))) || !(batch->responses = json_array())) {
		free(batch);
		json_decref(array);
		return;
	}
	for (i = 0; i < json_array_size(array); i++)
		batch->pending += wants_answer(json_array_get(array, i));
	batch->pending++;       /* held until every item is queued */
	for (i = 0; i < json_array_size(array); i++)
		queue_push(server, json_incref(json_array_get(array, i)), batch, false);
	json_decref(array);
	batch_settle(server, batch);
}

static void on_line(void *ctx, const char *line, size_t len, const struct mcp_idscan *dropped)
{
	struct mcp_server *server = ctx;
	json_t *message;

	if (dropped) {
		/* To its id, read as it went by, so that the call waiting for it ends now; a response gets nothing. */
		if (!dropped->response)
			queue_push(server, mcp_error(dropped->id, MCP_INVALID_REQUEST, "the message is over "
						     MCP_LINE_MAX_TEXT ", the most a line may hold: dropped; send less "
						     "at once"), NULL, true);
		return;
	}
	if (!(message = mcp_line_parse(line, len))) {
		queue_push(server, mcp_error(NULL, MCP_PARSE_ERROR, "not JSON: a message is one JSON object a line"),
			   NULL, true);
		return;
	}
	if (json_is_array(message))
		batch_take(server, message);
	else
		queue_push(server, message, NULL, false);
}

/* --- stdin in the poll group ------------------------------------------------ */

static int input_fds(void *ctx, struct pollfd *out, int max)
{
	struct mcp_server *server = ctx;

	if (server->eof || max < 1)
		return 0;
	out[0].fd = server->in;
	out[0].events = POLLIN;
	return 1;
}

static int input_step(void *ctx, const struct pollfd *fds, int n)
{
	struct mcp_server *server = ctx;
	char chunk[65536];
	ssize_t got;

	if (n < 1 || !(fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
		return 0;
	got = read(server->in, chunk, sizeof(chunk));
	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (got <= 0) {
		server->eof = true;
		return 0;
	}
	return mcp_reader_feed(&server->reader, chunk, (size_t)got, on_line, server) < 0 ? error_nomem() : 0;
}

/* --- the methods ------------------------------------------------------------ */

static const char *version_choose(json_t *params)
{
	const char *asked = json_string_value(json_object_get(params, "protocolVersion"));
	size_t i;

	for (i = 0; asked && mcp_versions[i]; i++)
		if (!strcmp(asked, mcp_versions[i]) && !modern(mcp_versions[i]))
			return mcp_versions[i];
	/* Not a revision with initialize: the newest that has it; the client decides whether it goes on. */
	for (i = 0; modern(mcp_versions[i]); i++)
		;
	return mcp_versions[i];
}

static json_t *initialize(struct mcp_server *server, json_t *params)
{
	server->version = server->current = version_choose(params);
	return json_pack("{s:s, s:{s:{s:b}}, s:o, s:s}", "protocolVersion", server->version, "capabilities",
			 "tools", "listChanged", 0, "serverInfo", server_info(server), "instructions", instructions);
}

static json_t *versions_json(void)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; mcp_versions[i]; i++)
		json_array_append_new(list, json_string(mcp_versions[i]));
	return list;
}

/* server/discover (modern): what revline speaks, does and is. */
static json_t *discover(void)
{
	return json_pack("{s:o, s:{s:{}}, s:s, s:i, s:s}", "supportedVersions", versions_json(), "capabilities",
			 "tools", "instructions", instructions, "ttlMs", MCP_LIST_TTL_MS, "cacheScope", "public");
}

static json_t *tools_list(struct mcp_server *server, const struct mcp_call *call)
{
	json_t *list = mcp_tools_list(server);

	if (list && modern(call->version)) {
		json_object_set_new(list, "ttlMs", json_integer(MCP_LIST_TTL_MS));
		json_object_set_new(list, "cacheScope", json_string("public"));
	}
	return list;
}

static json_t *progress_token(json_t *params)
{
	json_t *token = json_object_get(json_object_get(params, "_meta"), "progressToken");

	return json_is_string(token) || json_is_integer(token) ? token : NULL;
}

/* tools/call: answered now, or a job that answers when it is done. */
static void tools_call(struct mcp_server *server, struct mcp_call *call, json_t *params)
{
	const char *name = json_string_value(json_object_get(params, "name"));
	json_t *args = json_object_get(params, "arguments"), *out = NULL;
	struct mcp_job *job = NULL;
	int code;

	if (!name || (args && !json_is_object(args))) {
		mcp_answer(server, call, mcp_error(call->id, MCP_INVALID_PARAMS,
						   "tools/call takes a \"name\" (a string) and \"arguments\" (an object)"));
		return;
	}
	call->progress_token = progress_token(params);
	code = mcp_tools_call(server, name, args, &out, &job);
	if (code) {
		mcp_answer(server, call, mcp_error(call->id, code, json_string_value(out) ? json_string_value(out) :
						   "out of memory"));
		json_decref(out);
	} else if (job) {
		job->call = *call;
		json_incref(job->call.id);
		json_incref(job->call.progress_token);
		server->job = job;
	} else {
		mcp_answer(server, call, result_for(server, call, out));
	}
}

/* The methods every revision has, once the request's revision is known. */
static void serve(struct mcp_server *server, struct mcp_call *call, const struct mcp_message *m)
{
	server->current = call->version;
	if (!strcmp(m->method, "tools/list"))
		return mcp_answer(server, call, result_for(server, call, tools_list(server, call)));
	if (!strcmp(m->method, "tools/call"))
		return tools_call(server, call, m->params);
	mcp_answer(server, call, mcp_error(m->id, MCP_METHOD_NOT_FOUND, "no such method (revline serves tools)"));
}

/*
 * A modern request (2026-07-28): its revision and the client's capabilities
 * in _meta, no session. A revision revline does not speak is refused with
 * the ones it does, so that the client can choose.
 */
static void modern_request(struct mcp_server *server, struct mcp_call *call, const struct mcp_message *m,
			   json_t *version)
{
	json_t *meta = json_object_get(m->params, "_meta"), *error;
	const char *asked = json_string_value(version);

	if (!asked || !json_is_object(json_object_get(meta, META_CAPABILITIES)))
		return mcp_answer(server, call, mcp_error(m->id, MCP_INVALID_PARAMS, "_meta needs \"" META_VERSION
							  "\" (a string) and \"" META_CAPABILITIES "\" (an object)"));
	if (!modern(asked) || !mcp_version_known(asked)) {
		error = mcp_error(m->id, MCP_UNSUPPORTED_VERSION, "Unsupported protocol version");
		json_object_set_new(json_object_get(error, "error"), "data", json_pack("{s:o, s:s}", "supported",
						versions_json(), "requested", asked));
		return mcp_answer(server, call, error);
	}
	call->version = mcp_version_known(asked);
	if (!strcmp(m->method, "server/discover")) {
		server->current = call->version;
		return mcp_answer(server, call, result_for(server, call, discover()));
	}
	serve(server, call, m);
}

/*
 * REVLINE_SAMPLE=FILE (the soak test, tests/soak/soak.py): a ping appends
 * what the process holds then (proc_sample.h), at the points the client
 * chooses, so that a long session's growth can be fitted.
 */
static void ping_sample(void)
{
	const char *path = getenv("REVLINE_SAMPLE");

	if (path && *path && proc_sample_write(path, store_memory()) < 0)
		error_clear();
}

static void request(struct mcp_server *server, const struct mcp_message *m, struct mcp_batch *batch)
{
	json_t *version = json_object_get(json_object_get(m->params, "_meta"), META_VERSION);
	struct mcp_call call = { m->id, NULL, batch, 0, server->version };

	if (version)
		return modern_request(server, &call, m, version);
	server->current = server->version;
	if (!strcmp(m->method, "ping")) {
		ping_sample();
		return mcp_answer(server, &call, mcp_response(m->id, NULL));
	}
	if (!strcmp(m->method, "initialize")) {
		if (server->version)
			return mcp_answer(server, &call, mcp_error(m->id, MCP_INVALID_REQUEST, "already initialized"));
		return mcp_answer(server, &call, mcp_response(m->id, initialize(server, m->params)));
	}
	if (!server->version)
		return mcp_answer(server, &call, mcp_error(m->id, MCP_INVALID_REQUEST,
							   "not initialized: send initialize first, or give the "
							   "protocol version in _meta (" META_VERSION ", "
							   MCP_MODERN ")"));
	serve(server, &call, m);
}

/* notifications/cancelled: the running call stops (its results so far are kept), a waiting one goes. */
static void cancelled(struct mcp_server *server, json_t *params)
{
	json_t *id = json_object_get(params, "requestId");
	struct mcp_message m;
	size_t i;

	if (!id)
		return;
	if (server->job && json_equal(server->job->call.id, id) && !server->job->cancelled) {
		server->job->cancelled = true;
		server->job->ops->cancel(server->job->ctx);
		return;
	}
	for (i = 0; i < server->nqueue; i++) {
		mcp_message_decode(&m, server->queue[i].message);
		if (m.kind == MCP_REQUEST && json_equal(m.id, id) && strcmp(m.method, "initialize")) {
			struct mcp_batch *batch = server->queue[i].batch;

			queue_drop(server, i);
			if (batch)
				batch_settle(server, batch);
			return;
		}
	}
}

/*
 * Whether a request is answered while a tool call runs: every method but
 * tools/call (ping, the lists), and the tool calls that only read and
 * answer at once, unless another tool call waits before them (tool calls
 * keep the client's order).
 */
static bool goes_by(const struct mcp_message *m, bool call_waits)
{
	json_t *name;

	if (strcmp(m->method, "tools/call"))
		return true;
	name = json_object_get(m->params, "name");
	return !call_waits && json_is_string(name) &&
	       mcp_tools_reads_now(json_string_value(name), json_object_get(m->params, "arguments"));
}

/* One message; false when it must wait for the running call (call_waits: a tool call waits before it). */
static bool handle(struct mcp_server *server, const struct mcp_item *item, bool call_waits)
{
	struct mcp_message m;
	struct mcp_call call;

	if (item->reply) {
		mcp_send(server, json_incref(item->message));
		return true;
	}
	mcp_message_decode(&m, item->message);
	switch (m.kind) {
	case MCP_NOTIFICATION:
		return true;    /* notifications/initialized and the like; a cancellation never waits here */
	case MCP_RESPONSE:
		return true;    /* revline sends no requests: nothing waits for one */
	case MCP_INVALID:
		call = (struct mcp_call){ m.id, NULL, item->batch, 0, NULL };
		mcp_answer(server, &call, mcp_error(m.id, MCP_INVALID_REQUEST, m.invalid));
		return true;
	case MCP_REQUEST:
		if (server->job && !goes_by(&m, call_waits))
			return false;
		request(server, &m, item->batch);
		return true;
	}
	return true;
}

/* The queue in order; while a call runs, what must wait stays (pings, reads and notifications go by). */
static void dispatch(struct mcp_server *server)
{
	bool call_waits = false;
	size_t i = 0;

	while (i < server->nqueue && !server->gone) {
		struct mcp_item item = server->queue[i];

		server->queue[i].message = json_incref(item.message);
		if (handle(server, &item, call_waits)) {
			/* handle may have dropped items (a cancellation): find it again. */
			size_t at;

			for (at = 0; at < server->nqueue && server->queue[at].message != item.message; at++)
				;
			if (at < server->nqueue)
				queue_drop(server, at);
			if (at < i)
				i = at;
		} else {
			call_waits = true;
			i++;
		}
		json_decref(item.message);
	}
}

/* --- the running call -------------------------------------------------------- */

static void job_end(struct mcp_server *server)
{
	struct mcp_job *job = server->job;

	server->job = NULL;
	if (job->cancelled) {
		/* A cancelled request gets no answer; its batch still goes when the rest is answered. */
		if (job->call.batch)
			batch_settle(server, job->call.batch);
	} else {
		server->current = job->call.version;
		mcp_answer(server, &job->call, result_for(server, &job->call, job->ops->result(server, job->ctx)));
	}
	job->ops->free(job->ctx);
	json_decref(job->call.id);
	json_decref(job->call.progress_token);
	free(job);
}

static void job_step(struct mcp_server *server)
{
	if (server->job && server->job->ops->step(server, server->job->ctx))
		job_end(server);
}

/* --- the session ------------------------------------------------------------ */

static void server_release(struct mcp_server *server)
{
	size_t i;

	if (server->job) {
		/* Cancelled, the call settles at once (what arrived is kept); 30 s at most. */
		int waits = 0;

		server->gone = true;
		server->job->cancelled = true;
		server->job->ops->cancel(server->job->ctx);
		while (!server->job->ops->step(server, server->job->ctx) && waits++ < 120)
			if (poll_group_wait(&server->group, 250) < 0)
				error_clear();
		job_end(server);
	}
	for (i = 0; i < server->nqueue; i++)
		json_decref(server->queue[i].message);
	free(server->queue);
	mcp_review_free(server->last);
	mcp_fixes_free(server);
	poll_group_leave(&server->input);
	poll_group_release(&server->group);
	mcp_reader_release(&server->reader);
	if (server->opened)
		workspace_close(&server->ws);
}

int mcp_serve(int in, int out, const struct mcp_options *options)
{
	struct mcp_server server = { .in = in, .out = out, .options = options, .group = POLL_GROUP_INIT };

	server.input = (struct poll_member){ .fds = input_fds, .step = input_step, .ctx = &server };
	signal(SIGPIPE, SIG_IGN);
	if (poll_group_join(&server.group, &server.input) < 0)
		return 1;
	while (!server.gone) {
		dispatch(&server);
		job_step(&server);
		if (server.job || server.nqueue)
			dispatch(&server);
		if (server.eof && !server.job && !server.nqueue)
			break;
		if (server.eof && server.job && !server.job->cancelled) {
			/* The client left: stop (what arrived is kept), nobody reads the answer. */
			server.job->cancelled = true;
			server.job->ops->cancel(server.job->ctx);
		}
		if (!server.job && server.nqueue)
			continue;
		if (poll_group_wait(&server.group, server.job ? 250 : -1) < 0)
			error_clear();
	}
	server_release(&server);
	return 0;
}
