/* revline undo: take back an applied fix, byte for byte. */
#include "commands.h"
#include "fix.h"
#include "status.h"
#include "workspace.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

static int parse_args(int64_t *id, bool *json, int argc, char **argv)
{
	struct opt_parser p = { argc, argv, 1, false, command_options("undo") };
	const char *value, *given = NULL;
	char *end;
	int opt;

	while ((opt = opt_next(&p, &value)) != OPT_END) {
		if (opt < 0)
			return 2;
		if (opt == OPT_HELP)
			return help_show("undo") == 0 ? -1 : 2;
		if (opt == OPT_JSON) {
			*json = true;
			continue;
		}
		if (opt != OPT_POSITIONAL || given) {
			cli_error("unexpected argument '%s' (see 'revline help undo')", value ? value : "");
			return 2;
		}
		given = value;
	}
	if (!given)
		return 0;
	errno = 0;
	*id = strtoll(given, &end, 10);
	if (errno || *end || *given < '0' || *given > '9' || *id <= 0) {
		cli_error("'%s' is not a fix id (a number, as 'revline fix' and 'revline signals' show)", given);
		return 2;
	}
	return 0;
}

int cmd_undo(int argc, char **argv)
{
	struct workspace ws;
	int64_t id = 0, undone = 0;
	bool json = false;
	int rc;

	if ((rc = parse_args(&id, &json, argc, argv)) != 0)
		return rc < 0 ? 0 : rc;
	if ((rc = workspace_open(&ws)) != 0)
		goto done;
	if (fix_undo_stored(&undone, ws.store, ws.workdir, id) < 0) {
		cli_error("%s", error_message());
		rc = error_status() == RL_ECONFLICT || error_status() == RL_ENOTFOUND ? 1 : 2;
		goto done;
	}
	if (json)
		rc = history_json_out(json_pack("{s:I, s:s}", "id", (json_int_t)undone, "state", "undone"));
	else
		printf("fix %lld undone: the file is as it was before it\n", (long long)undone);
done:
	workspace_close(&ws);
	return rc;
}
