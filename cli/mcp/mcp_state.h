#ifndef REVLINE_MCP_STATE_H
#define REVLINE_MCP_STATE_H

/*
 * The MCP server's insides, shared by the files of cli/mcp: the session
 * (mcp_server.c: the loop, the life cycle, the queue of messages), the
 * tools' table (mcp_tools.c) and the tools (mcp_review.c, mcp_fix.c,
 * mcp_query.c).
 */
#include "mcp.h"
#include "mcp_rpc.h"
#include "poll_group.h"
#include "repo.h"
#include "workspace.h"

#include <jansson.h>
#include <stdbool.h>

/* A batch (protocol 2025-03-26 only): its responses go out together, once every call in it is answered. */
struct mcp_batch {
	json_t *responses;      /* an array */
	size_t pending;         /* requests of it not answered yet */
};

/* A message waiting its turn: the queue keeps the order the client sent. */
struct mcp_item {
	json_t *message;
	struct mcp_batch *batch;        /* NULL when it came alone */
	bool reply;                     /* message is revline's answer to a line that was no message: sent in turn */
};

/* A request being answered: what the response needs. */
struct mcp_call {
	json_t *id;
	json_t *progress_token;         /* params._meta.progressToken, or NULL */
	struct mcp_batch *batch;
	double progress;                /* the last progress sent (it only grows) */
	const char *version;            /* the revision it speaks: its _meta's (modern), or the session's */
};

/*
 * A tool call that takes a while (a review, a fix asked for or applied):
 * its engine objects join the server's poll group, and the loop asks it
 * after each wait whether it is done, so the server keeps reading the
 * client (pings, cancellations) meanwhile.
 */
struct mcp_job_ops {
	/* Take the engine's events (and send progress); true once it is done. */
	bool (*step)(struct mcp_server *server, void *ctx);
	/* The tools/call result, once done. */
	json_t *(*result)(struct mcp_server *server, void *ctx);
	void (*cancel)(void *ctx);
	void (*free)(void *ctx);
};

struct mcp_job {
	const struct mcp_job_ops *ops;
	void *ctx;
	struct mcp_call call;
	bool cancelled;         /* the client cancelled it: no response */
};

/* The fixes proposed in this session, kept so that apply_fix can write them. */
struct fix;

struct mcp_server {
	int in, out;
	const struct mcp_options *options;
	struct poll_group group;
	struct poll_member input;
	struct mcp_reader reader;
	bool eof, gone;                 /* stdin closed; stdout closed (the client left) */
	const char *version;            /* the revision initialize chose (legacy); NULL before */
	const char *current;            /* the revision of the request being answered */
	struct mcp_item *queue;
	size_t nqueue, queue_alloc;
	struct mcp_job *job;            /* the tool call running, or NULL */
	/* The repository and what it works with, opened at the first tool call that needs them. */
	bool opened;
	struct workspace ws;
	/* The latest review of this session: findings lists it. */
	struct mcp_review *last;
	struct fix **fixes;
	size_t nfixes, fixes_alloc;
};

/* --- mcp_server.c ---------------------------------------------------------- */

/* The list's entry for a revision revline speaks, or NULL. */
const char *mcp_version_known(const char *version);
/* Whether the revision of the request being answered is at least this one ("2025-06-18"). */
bool mcp_since(const struct mcp_server *server, const char *version);
/* Send a message (stolen); marks the client gone when it cannot be written. */
void mcp_send(struct mcp_server *server, json_t *message);
/* Answer a call, alone or in its batch (result or error stolen). */
void mcp_answer(struct mcp_server *server, struct mcp_call *call, json_t *message);
/* notifications/progress for the call, when it asked for progress. */
void mcp_progress(struct mcp_server *server, struct mcp_call *call, double progress, double total,
		  const char *message);
/* The repository, settings, LLM and database; -1 with error_message() set. */
int mcp_workspace(struct mcp_server *server, struct workspace **out);

/* --- mcp_tools.c ----------------------------------------------------------- */

json_t *mcp_tools_list(const struct mcp_server *server);
/*
 * Run a tool: a result now (*out), or a job started (*job) whose result
 * comes later. Returns 0, or a JSON-RPC error code with *out the error's
 * message (a string) for an unknown tool.
 */
int mcp_tools_call(struct mcp_server *server, const char *name, json_t *arguments, json_t **out,
		   struct mcp_job **job);

/*
 * Whether a call only reads and is answered at once (findings, signals
 * without run), so that it need not wait behind a running review.
 */
bool mcp_tools_reads_now(const char *name, json_t *arguments);

/*
 * A tool's result: text, then the structured form as JSON text too (the
 * spec's advice, and all a client before 2025-06-18 gets of it), and from
 * 2025-06-18 as structuredContent. An error the model reads.
 */
json_t *mcp_tool_result(const struct mcp_server *server, const char *text, json_t *structured);
json_t *mcp_tool_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A job for the running call (ctx is freed with ops->free when it cannot be made). */
struct mcp_job *mcp_job_new(const struct mcp_job_ops *ops, void *ctx);

/* --- the tools ------------------------------------------------------------- */

int mcp_review_call(struct mcp_server *server, json_t *args, json_t **out, struct mcp_job **job);
int mcp_findings_call(struct mcp_server *server, json_t *args, json_t **out, struct mcp_job **job);
int mcp_signals_call(struct mcp_server *server, json_t *args, json_t **out, struct mcp_job **job);
int mcp_feedback_call(struct mcp_server *server, json_t *args, json_t **out, struct mcp_job **job);
int mcp_propose_fix_call(struct mcp_server *server, json_t *args, json_t **out, struct mcp_job **job);
int mcp_apply_fix_call(struct mcp_server *server, json_t *args, json_t **out, struct mcp_job **job);
int mcp_undo_fix_call(struct mcp_server *server, json_t *args, json_t **out, struct mcp_job **job);
void mcp_review_free(struct mcp_review *review);
/* The check of the review running now, or NULL. */
const struct check *mcp_review_running(const struct mcp_server *server);
/* What to set when revline mcp has no LLM: its client passes only some variables (each client's way). */
extern const char mcp_env_hint[];
struct check *mcp_review_check(const struct mcp_review *review);
void mcp_fixes_free(struct mcp_server *server);

#endif
