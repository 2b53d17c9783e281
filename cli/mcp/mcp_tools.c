/*
 * The MCP tools: one table (name, title, what the model reads, hints,
 * input schema, handler), tools/list made from it for the negotiated
 * revision, and the arguments checked against the schema before a tool
 * runs, so every handler gets the types it expects.
 */
#include "mcp_state.h"
#include "utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ID_PROP(what) "{\"type\": \"integer\", \"minimum\": 1, \"description\": \"" what "\"}"

/* name, title, read-only, destructive, idempotent, open world (an LLM), description, input schema */
#define MCP_TOOLS(X) \
	X(review, "Review the change", 1, 0, 0, 1, \
	  "Review the local git change against the team's rules (one LLM call per rule, cached). " \
	  "By default the working tree and index against the merge base with the upstream branch (or HEAD). " \
	  "Returns each finding with its id, where, what is wrong, the code as revline found it in the file " \
	  "(verified or not), what to change and the rule. Call it before saying a change is done.", \
	  "{\"type\": \"object\", \"additionalProperties\": false, \"properties\": {" \
	  "\"target\": {\"type\": \"string\", \"description\": \"A..B (the tree of A against B) or A...B (their merge base against B)\"}," \
	  "\"staged\": {\"type\": \"boolean\", \"description\": \"review the index against HEAD (or base)\"}," \
	  "\"base\": {\"type\": \"string\", \"description\": \"review the working tree against this ref\"}," \
	  "\"untracked\": {\"type\": \"boolean\", \"description\": \"include untracked files as additions\"}," \
	  "\"rules\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}, \"description\": \"run only these rule ids\"}," \
	  "\"no_cache\": {\"type\": \"boolean\", \"description\": \"ask the LLM again even when the answer is cached\"}}}") \
	X(findings, "List the findings", 1, 0, 1, 0, \
	  "The findings of a review (check_id, as review returned it; default the repository's latest), " \
	  "filtered, the most severe first, with their ids for propose_fix and mark_finding.", \
	  "{\"type\": \"object\", \"additionalProperties\": false, \"properties\": {" \
	  "\"check_id\": " ID_PROP("the review's check id (default: the latest)") "," \
	  "\"severity\": {\"type\": \"string\", \"enum\": [\"critical\", \"major\", \"minor\", \"nitpick\"], \"description\": \"this severe or more\"}," \
	  "\"file\": {\"type\": \"string\", \"description\": \"only findings in this file (path in the repository)\"}," \
	  "\"show_unverified\": {\"type\": \"boolean\", \"description\": \"also findings whose evidence was not found in the file\"}}}") \
	X(signals, "List the linter signals", 1, 0, 1, 0, \
	  "The linters' signals (ruff, flake8, mypy, gcc, shellcheck, ...) on the changed lines, with their ids " \
	  "for propose_fix. With run, runs the configured linters on the changed files first.", \
	  "{\"type\": \"object\", \"additionalProperties\": false, \"properties\": {" \
	  "\"run\": {\"type\": \"boolean\", \"description\": \"run the linters on the changed files first\"}," \
	  "\"all\": {\"type\": \"boolean\", \"description\": \"also signals outside the changed lines\"}}}") \
	X(propose_fix, "Propose a fix", 1, 0, 0, 1, \
	  "Ask the LLM for a fix of a finding or of a linter signal; returns the fix's id, the diff and why. " \
	  "Nothing is written: apply_fix writes it.", \
	  "{\"type\": \"object\", \"additionalProperties\": false, \"properties\": {" \
	  "\"finding_id\": " ID_PROP("a finding's id, from review or findings") "," \
	  "\"signal_id\": " ID_PROP("a signal's id, from signals") "}}") \
	X(apply_fix, "Apply a fix", 0, 1, 0, 0, \
	  "Write a fix propose_fix proposed (in this session or an earlier one) to its file, keeping " \
	  "indentation and line endings; refused " \
	  "when the file changed since. Then runs the signal's linter again and says whether the problem is gone. " \
	  "undo_fix takes it back.", \
	  "{\"type\": \"object\", \"additionalProperties\": false, \"required\": [\"fix_id\"], \"properties\": {" \
	  "\"fix_id\": " ID_PROP("the id propose_fix returned") "}}") \
	X(undo_fix, "Undo a fix", 0, 1, 0, 0, \
	  "Put a file back exactly as it was before an applied fix (the latest one when no fix_id is given); " \
	  "refused when the file changed since.", \
	  "{\"type\": \"object\", \"additionalProperties\": false, \"properties\": {" \
	  "\"fix_id\": " ID_PROP("an applied fix's id") "}}") \
	X(mark_finding, "Mark a finding", 0, 0, 1, 0, \
	  "Record what a finding was worth: false_positive hides it when it comes back (same rule, file and " \
	  "code) and teaches the rule; accept keeps reporting problems like it; reject records it (still shown).", \
	  "{\"type\": \"object\", \"additionalProperties\": false, \"required\": [\"finding_id\", \"verdict\"], \"properties\": {" \
	  "\"finding_id\": " ID_PROP("the finding's id") "," \
	  "\"verdict\": {\"type\": \"string\", \"enum\": [\"false_positive\", \"accept\", \"reject\"]}," \
	  "\"note\": {\"type\": \"string\", \"description\": \"why, in a few words (the rule's prompt shows it)\"}}}")

typedef int mcp_tool_fn(struct mcp_server *server, json_t *args, json_t **out, struct mcp_job **job);

struct mcp_tool {
	const char *name, *title;
	bool read_only, destructive, idempotent, open_world;
	const char *description, *schema;
	mcp_tool_fn *call;
};

#define mcp_mark_finding_call mcp_feedback_call
#define TOOL_ENTRY(name, title, ro, de, id, ow, desc, schema) \
	{ #name, title, ro, de, id, ow, desc, schema, mcp_##name##_call },
static const struct mcp_tool tools[] = { MCP_TOOLS(TOOL_ENTRY) };
#undef TOOL_ENTRY

static json_t *tool_json(const struct mcp_server *server, const struct mcp_tool *t)
{
	json_t *o = json_pack("{s:s, s:s, s:o, s:{s:b, s:b, s:b, s:b}}", "name", t->name, "description",
			      t->description, "inputSchema", json_loads(t->schema, 0, NULL), "annotations",
			      "readOnlyHint", t->read_only, "destructiveHint", t->destructive, "idempotentHint",
			      t->idempotent, "openWorldHint", t->open_world);

	if (o && mcp_since(server, "2025-06-18"))
		json_object_set_new(o, "title", json_string(t->title));
	else if (o)
		json_object_set_new(json_object_get(o, "annotations"), "title", json_string(t->title));
	return o;
}

json_t *mcp_tools_list(const struct mcp_server *server)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		json_array_append_new(list, tool_json(server, &tools[i]));
	return json_pack("{s:o}", "tools", list);
}

/* --- the arguments, against the schema -------------------------------------- */

static bool type_is(const char *type, json_t *value, json_t *items)
{
	size_t i;

	if (!strcmp(type, "string"))
		return json_is_string(value);
	if (!strcmp(type, "boolean"))
		return json_is_boolean(value);
	if (!strcmp(type, "integer"))
		return json_is_integer(value) && json_integer_value(value) >= 1;
	if (!json_is_array(value))
		return false;
	for (i = 0; i < json_array_size(value); i++)
		if (!type_is(json_string_value(json_object_get(items, "type")), json_array_get(value, i), NULL))
			return false;
	return true;
}

static bool in_enum(json_t *choices, json_t *value)
{
	size_t i;

	for (i = 0; choices && i < json_array_size(choices); i++)
		if (json_equal(json_array_get(choices, i), value))
			return true;
	return !choices;
}

static char *type_problem(const char *key, json_t *prop)
{
	json_t *choices = json_object_get(prop, "enum");
	char *list = choices ? json_dumps(choices, JSON_COMPACT) : NULL, *why = NULL;
	const char *type = json_string_value(json_object_get(prop, "type"));

	if (asprintf(&why, "argument \"%s\" must be %s%s", key, list ? "one of " : "",
		     list ? list : !strcmp(type, "integer") ? "a positive integer" :
		     !strcmp(type, "array") ? "an array of strings" : type) < 0)
		why = NULL;
	free(list);
	return why;
}

/* NULL when the arguments fit the schema, else what is wrong (freed by the caller). */
static char *args_problem(json_t *schema, json_t *args)
{
	json_t *props = json_object_get(schema, "properties"), *required = json_object_get(schema, "required");
	json_t *value, *prop;
	const char *key;
	char *why = NULL;
	size_t i;

	json_object_foreach(args, key, value) {
		if (!(prop = json_object_get(props, key))) {
			if (asprintf(&why, "unknown argument \"%s\"", key) < 0)
				why = NULL;
			return why;
		}
		if (!type_is(json_string_value(json_object_get(prop, "type")), value, json_object_get(prop, "items")) ||
		    !in_enum(json_object_get(prop, "enum"), value))
			return type_problem(key, prop);
	}
	json_array_foreach(required, i, value)
		if (!json_object_get(args, json_string_value(value))) {
			if (asprintf(&why, "argument \"%s\" is required", json_string_value(value)) < 0)
				why = NULL;
			return why;
		}
	return NULL;
}

static const struct mcp_tool *tool_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
		if (!strcmp(tools[i].name, name))
			return &tools[i];
	return NULL;
}

bool mcp_tools_reads_now(const char *name, json_t *arguments)
{
	return !strcmp(name, "findings") ||
	       (!strcmp(name, "signals") && !json_is_true(json_object_get(arguments, "run")));
}

int mcp_tools_call(struct mcp_server *server, const char *name, json_t *args, json_t **out,
		   struct mcp_job **job)
{
	const struct mcp_tool *t = tool_find(name);
	json_t *schema, *empty = NULL;
	char *why;
	int rc;

	*out = NULL;
	*job = NULL;
	if (!t) {
		*out = json_sprintf("unknown tool \"%s\" (tools/list names them)", name);
		return MCP_INVALID_PARAMS;
	}
	if (!args)
		args = empty = json_object();
	schema = json_loads(t->schema, 0, NULL);
	why = args_problem(schema, args);
	json_decref(schema);
	if (why) {
		/* From 2025-11-25 the model reads it and corrects the call; before, a protocol error. */
		if (mcp_since(server, "2025-11-25"))
			*out = mcp_tool_error("%s: %s", name, why);
		else
			*out = json_sprintf("%s: %s", name, why);
		free(why);
		json_decref(empty);
		return mcp_since(server, "2025-11-25") ? 0 : MCP_INVALID_PARAMS;
	}
	rc = t->call(server, args, out, job);
	json_decref(empty);
	return rc;
}

/* --- results ------------------------------------------------------------------ */

json_t *mcp_tool_result(const struct mcp_server *server, const char *text, json_t *structured)
{
	json_t *r = json_pack("{s:[{s:s, s:o}], s:b}", "content", "type", "text", "text", utf8_json(text),
			      "isError", 0);
	char *serialized;

	if (r && structured && (serialized = json_dumps(structured, JSON_COMPACT))) {
		json_array_append_new(json_object_get(r, "content"),
				      json_pack("{s:s, s:o}", "type", "text", "text", utf8_json(serialized)));
		free(serialized);
	}
	if (r && structured && mcp_since(server, "2025-06-18"))
		json_object_set(r, "structuredContent", structured);
	json_decref(structured);
	return r;
}

json_t *mcp_tool_error(const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	json_t *r;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	r = json_pack("{s:[{s:s, s:o}], s:b}", "content", "type", "text", "text",
		      utf8_json(text ? text : "out of memory"), "isError", 1);
	free(text);
	return r;
}

struct mcp_job *mcp_job_new(const struct mcp_job_ops *ops, void *ctx)
{
	struct mcp_job *job = calloc(1, sizeof(*job));

	if (!job) {
		ops->free(ctx);
		return NULL;
	}
	job->ops = ops;
	job->ctx = ctx;
	return job;
}
