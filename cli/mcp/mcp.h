#ifndef REVLINE_MCP_H
#define REVLINE_MCP_H

#include <stdbool.h>
#include <stddef.h>

/*
 * revline as a Model Context Protocol server on stdio, for coding agents
 * (Claude Code, Codex, Cursor): JSON-RPC 2.0 a message a line; the
 * protocol revision 2026-07-28 (current: stateless, each request says its
 * revision in _meta) and, for clients that open with initialize,
 * 2025-11-25, 2025-06-18 and 2025-03-26; tools to review the change, list
 * its findings and the linters' signals, ask for a fix and apply or undo
 * it, and mark a finding.
 */
struct mcp_server;
struct mcp_review;

struct mcp_options {
	const char *const *rule_dirs;   /* --rules DIR, for every review */
	size_t nrule_dirs;
	bool no_builtin;
};

/*
 * The revisions revline speaks, newest first, NULL-terminated: 2026-07-28
 * (modern: stateless, the revision in each request's _meta) and the legacy
 * ones that open with initialize.
 */
extern const char *const mcp_versions[];

/* Serve until the client closes in (or out); 0, or 1 when the server could not start. */
int mcp_serve(int in, int out, const struct mcp_options *options);

#endif
