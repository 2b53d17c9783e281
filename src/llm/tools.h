#ifndef REVLINE_TOOLS_H
#define REVLINE_TOOLS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/*
 * Tools a question offers the model: read-only look-ups (read a file,
 * search, find references) the caller defines and runs, so that the model
 * can see more of the repository than its prompt holds. The request cycle
 * (ask.h) offers them to a model the model table marks as taking tools
 * (models.h), sends the model's calls to the caller's executor, gives the
 * results back and asks again, within bounds, until the model answers:
 *
 *   - turns: the requests that ran tool calls, per question (6 by default);
 *   - calls: those run per turn (8); more in one turn are answered with a
 *     tool error, not run;
 *   - bytes: of one result (32 KiB: longer is cut, saying so) and of all
 *     the results of a question (256 KiB);
 *   - time: the scheduler's deadline (sched.h), which a further turn would
 *     not fit.
 *
 * When one is reached the model is told, in one last request where it may
 * call nothing and must answer; a model that calls tools still fails the
 * question with a message naming the bound. Every call is recorded in the
 * question's event (struct ask_tool_call), whether it ran or not.
 *
 * A caller passes a set with its question (ask_submit_tools, ask.h):
 *
 *	static int run_tool(struct tool_output *out, void *ctx, const char *name,
 *			    const json_t *args, size_t max)
 *	{
 *		struct context *cx = ctx;
 *
 *		if (!strcmp(name, "read_file"))
 *			return context_read_file(out, cx, args, max);
 *		...
 *	}
 *
 *	static const struct ask_tool read_tools[] = {
 *		{ "read_file", "Read lines of a file of the repository.",
 *		  "{\"type\": \"object\", \"properties\": {\"path\": {\"type\": \"string\"},"
 *		  " \"start\": {\"type\": \"integer\"}, \"end\": {\"type\": \"integer\"}},"
 *		  " \"required\": [\"path\"]}" },
 *		...
 *	};
 *	struct ask_tools tools = { read_tools, 3, run_tool, cx, tree_id_and_worktree_hash };
 *	struct ask_spec spec = { SCHEMA_MAP, model, NULL, system, shared, tail, weight, false, rule };
 *
 *	error = ask_submit_tools(asker, &id, &spec, &tools);
 *
 * The executor runs in the poll group's step, so it must be quick and
 * bounded itself (a search with a match limit, a read with max).
 */

/* The bounds' defaults and ceilings (a caller's value is clamped to them). */
#define TOOLS_TURNS_DEFAULT 6
#define TOOLS_TURNS_MAX 32
#define TOOLS_CALLS_DEFAULT 8
#define TOOLS_CALLS_MAX 64
#define TOOLS_RESULT_DEFAULT ((size_t)32 * 1024)
#define TOOLS_BYTES_DEFAULT ((size_t)256 * 1024)
#define TOOLS_BYTES_MAX ((size_t)4 << 20)
/* The most tools in a set, and the longest name (the providers' own limit). */
#define TOOLS_MAX 32
#define TOOLS_NAME_MAX 64
/* One call's arguments are read up to this; a longer call is not run. */
#define TOOLS_ARGS_MAX ((size_t)64 * 1024)
/* What a call's record keeps of its arguments. */
#define TOOLS_ARGS_SHOWN 2048

/* One tool: its name ([A-Za-z0-9_-], 1-64), what it does, its arguments' JSON schema (an object). */
struct ask_tool {
	const char *name;
	const char *description;
	const char *parameters;
};

/* What a call gives the model. */
struct tool_output {
	struct buf text;        /* what the model reads */
	bool error;             /* a tool error: bad arguments, no such file... (the model sees it
				 * as one: Anthropic's is_error) */
};

/*
 * Run one call: args is the arguments (a JSON object, borrowed). Write at
 * most max bytes into out->text (more is cut, and the model told); set
 * out->error for an error the model should see. Return 0, or a negative
 * status when revline itself failed (out of memory): the question fails.
 */
typedef int (*ask_tool_fn)(struct tool_output *out, void *ctx, const char *name, const json_t *args,
			   size_t max);

/* All zero: the defaults. */
struct ask_tool_limits {
	int turns;              /* requests that run calls, per question */
	int calls;              /* calls run per turn */
	size_t result_max;      /* bytes of one result */
	size_t bytes_max;       /* bytes of all the results of a question */
};

struct ask_tools {
	const struct ask_tool *tools;
	size_t ntools;
	ask_tool_fn run;
	void *ctx;              /* run's; must outlive the question */
	/*
	 * What the tools read, identified (the tree and the work tree's
	 * state): an answer that used tools is kept in the result cache under
	 * it, with the set's definitions and bounds, so that a cached answer
	 * is never one read from other files. NULL: such answers are not
	 * cached at all.
	 */
	const char *state;
	struct ask_tool_limits limits;
};

/* One call the model made, as the question's event records it. */
struct ask_tool_call {
	int turn;               /* 1 for the first request's calls */
	char *name;             /* as the model gave it (cut at TOOLS_NAME_MAX) */
	char *arguments;        /* as the model gave them, cut at TOOLS_ARGS_SHOWN bytes */
	size_t result_bytes;    /* what the model was given back */
	bool ran;               /* the executor ran it */
	bool error;             /* the model got a tool error (the tool's, or revline's) */
	char *message;          /* the error's text, or NULL */
};

/* What became of a question's tools. */
enum ask_tools_use {
	ASK_TOOLS_NONE,         /* none were given */
	ASK_TOOLS_NOT_TAKEN,    /* the model table says the model takes none: asked without */
	ASK_TOOLS_REFUSED,      /* the server refused them (now, or remembered): asked without */
	ASK_TOOLS_OFFERED,
};

const char *ask_tools_use_name(enum ask_tools_use use);

/* --- for the request cycle ----------------------------------------------- */

/* A question's copy of its tools, checked. */
struct tool_def {
	char *name, *description;
	json_t *parameters;
};

struct tool_set {
	struct tool_def *defs;
	size_t count;
	ask_tool_fn run;
	void *ctx;
	char *state;
	struct ask_tool_limits limits;  /* the defaults filled in, clamped */
};

/* One call of a turn, as the conversation keeps it and sends it back. */
struct turn_call {
	char *id;               /* the model's, or revline's when it gave none or one that repeats */
	char *name;
	char *arguments;        /* sent back as given, or "{}" when they were not JSON or too long */
	json_t *input;          /* the arguments parsed (an object; {} when they were not) */
	struct buf result;
	bool error;
};

/* One request's tool calls and their results. */
struct turn {
	char *text;             /* the model's text beside its calls, or NULL */
	struct turn_call *calls;
	size_t ncalls;
};

/* The turns after the prompt, growing only at the end. */
struct conversation {
	struct turn *turns;
	size_t nturns, alloc;
	char *note;             /* after the last results: why the model must answer now, or NULL */
	size_t bytes;           /* what the turns add to the prompt */
};

/* Every call of a question, for its event. */
struct tool_log {
	struct ask_tool_call *calls;
	size_t count, alloc;
	size_t dropped;         /* calls past READING_CALLS_MAX in one answer, not kept */
};

/*
 * Copy and check a caller's set: names well formed and unique, not
 * answer (the answer's own tool's name, where the answer is a tool),
 * schemas JSON objects. RL_EUSAGE names what is wrong.
 */
int tool_set_new(struct tool_set **out, const struct ask_tools *spec, const char *answer);
void tool_set_free(struct tool_set *set);
/* What the set and its bounds are, for the result cache's key. */
int tool_set_identity(struct buf *out, const struct tool_set *set);

struct reading;

/*
 * Run the calls of one answer (r) as turn number turn (1, 2, ...) and add
 * them, with their results, to conv; record them in log. *used counts the
 * results' bytes so far (the bytes' bound is reached when it gets to the
 * set's bytes_max). Calls past the set's calls a turn, of a tool not in
 * the set, with arguments that are not a JSON object or too long, or past
 * the bytes' bound are answered with a tool error and not run. A negative
 * status only when revline failed (memory, or the executor's own failure).
 */
int tool_turn_run(struct conversation *conv, struct tool_log *log, const struct tool_set *set,
		  struct reading *r, int turn, size_t *used);
/* Note, after the last results, why the model must answer now. */
int conversation_note(struct conversation *conv, const char *why);
void conversation_release(struct conversation *conv);

/* The log's calls handed over (*out, *count); the log is empty after. */
void tool_log_take(struct ask_tool_call **out, size_t *count, struct tool_log *log);
void tool_log_release(struct tool_log *log);
void ask_tool_calls_free(struct ask_tool_call *calls, size_t count);

#endif
