/* revline mcp: the Model Context Protocol server on stdio, for coding agents. */
#include "commands.h"
#include "array.h"
#include "mcp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct command_help mcp_help = {
	"mcp",
	"revline mcp [-C DIR] [--rules DIR] [--no-builtin]",
	"serve coding agents over the Model Context Protocol (stdio)",
	"Runs an MCP server on stdin and stdout (JSON-RPC 2.0, a message a line)\n"
	"for Claude Code, Codex, Cursor and other agents, in the repository of the\n"
	"directory it is started in (or of -C DIR). It speaks the protocol revision\n"
	"2026-07-28 (stateless: the revision in each request) and, for clients that\n"
	"open with initialize, 2025-11-25, 2025-06-18 and 2025-03-26. Its tools:\n"
	"review (the change, as 'revline check'; a progress notification as each\n"
	"rule settles), findings, signals, propose_fix, apply_fix, undo_fix and\n"
	"mark_finding. Settings, rules, the cache and the database are the same as\n"
	"the other commands'. A message is a line of at most 1 MiB. The server sees\n"
	"only the environment its client passes: name the provider's variables\n"
	"(OPENAI_API_KEY, REVLINE_BASE_URL, ...) in the client's entry for it, or\n"
	"set them with git config. Logs go to stderr. See the README's 'Coding\n"
	"agents' for each agent's configuration.\n",
};

/* --rules DIR where it was typed, before -C DIR moves away from there. */
static int dirs_resolve(struct strings *out, const struct string_list *dirs)
{
	size_t i;

	for (i = 0; i < dirs->count; i++) {
		char *abs = realpath(dirs->items[i], NULL);

		if (abs ? strings_take(out, abs) < 0 : strings_add(out, dirs->items[i]) < 0)
			return -1;
	}
	return 0;
}

int cmd_mcp(int argc, char **argv)
{
	struct string_list dirs = { 0 };
	struct strings abs = STRINGS_INIT;
	const char *dir = NULL;
	bool no_builtin = false;
	const struct option options[] = {
		OPT_STRING('C', "dir", &dir, "DIR", "serve the repository of DIR (an editor's workspace folder)"),
		OPT_RULE_DIRS(&dirs, &no_builtin),
		OPT_END(),
	};
	struct mcp_options opts;
	int rc = 2, n = parse_options(argc, argv, options, &mcp_help);

	if (n < 0)
		return n == PARSE_OPT_HELP ? 0 : 2;
	if (!parse_options_at_most(n, argv, 0, &mcp_help))
		goto done;
	if (dirs_resolve(&abs, &dirs) < 0) {
		cli_error("out of memory");
		goto done;
	}
	if (dir && chdir(dir) < 0) {
		cli_error("cannot serve %s: %s", dir, strerror(errno));
		goto done;
	}
	opts = (struct mcp_options){ (const char *const *)abs.items, abs.count, no_builtin };
	rc = mcp_serve(STDIN_FILENO, STDOUT_FILENO, &opts);
done:
	strings_free(&abs);
	free(dirs.items);
	return rc;
}
