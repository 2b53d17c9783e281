/* revline mcp: the Model Context Protocol server on stdio, for coding agents. */
#include "commands.h"
#include "mcp.h"

#include <stdlib.h>
#include <unistd.h>

const struct command_help mcp_help = {
	"mcp",
	"revline mcp [--rules DIR] [--no-builtin]",
	"serve coding agents over the Model Context Protocol (stdio)",
	"Runs an MCP server on stdin and stdout (JSON-RPC 2.0, a message a line;\n"
	"protocol revisions 2025-11-25, 2025-06-18 and 2025-03-26) for Claude Code,\n"
	"Codex, Cursor and other agents, in the repository of the directory it is\n"
	"started in. Its tools: review (the change, as 'revline check'; a progress\n"
	"notification as each rule settles), findings, signals, propose_fix,\n"
	"apply_fix, undo_fix and mark_finding. Settings, rules, the cache and the\n"
	"database are the same as the other commands'. Logs go to stderr. See the\n"
	"README's 'Coding agents' for each agent's configuration.\n",
};

int cmd_mcp(int argc, char **argv)
{
	struct string_list dirs = { 0 };
	bool no_builtin = false;
	const struct option options[] = {
		OPT_RULE_DIRS(&dirs, &no_builtin),
		OPT_END(),
	};
	struct mcp_options opts;
	int rc, n = parse_options(argc, argv, options, &mcp_help);

	if (n < 0)
		return n == PARSE_OPT_HELP ? 0 : 2;
	if (!parse_options_at_most(n, argv, 0, &mcp_help)) {
		free(dirs.items);
		return 2;
	}
	opts = (struct mcp_options){ dirs.items, dirs.count, no_builtin };
	rc = mcp_serve(STDIN_FILENO, STDOUT_FILENO, &opts);
	free(dirs.items);
	return rc;
}
