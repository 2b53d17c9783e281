/* revline undo: take back an applied fix, byte for byte. */
#include "commands.h"
#include "fix.h"
#include "status.h"
#include "term.h"
#include "workspace.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

const struct command_help undo_help = {
	"undo",
	"revline undo [FIX_ID] | --list",
	"take back an applied fix, byte for byte",
	"Puts the file back exactly as it was before the fix (the latest applied fix\n"
	"of this repository without FIX_ID). Refuses when the file changed since the\n"
	"fix was applied. --list lists the applied fixes of every session, newest\n"
	"first, with their ids, to pick one.\n",
};

static int parse_args(int64_t *id, bool *json, bool *list, int argc, char **argv)
{
	const struct option options[] = {
		OPT_BOOL(0, "list", list,
			 "list the applied fixes (of every session), newest first, instead of undoing one"),
		OPT_JSON(json),
		OPT_END(),
	};
	const char *given;
	int n = parse_options(argc, argv, options, &undo_help);

	if (n < 0)
		return n == PARSE_OPT_HELP ? -1 : 2;
	if (!parse_options_at_most(n, argv, 1, &undo_help))
		return 2;
	given = n ? argv[0] : NULL;
	if (given && *list) {
		cli_error("--list lists the fixes; undo one with 'revline undo FIX_ID'");
		return 2;
	}
	if (given && !cli_id(id, given, "fix", "revline undo --list"))
		return 2;
	return 0;
}

static json_t *record_json(const struct fix_record *r)
{
	return json_pack("{s:I, s:s, s:s?, s:s?, s:s?, s:s?, s:i, s:i, s:o, s:s?, s:s?}", "id", (json_int_t)r->id,
			 "file", r->file, "tool", r->tool, "code", r->code, "message", r->message, "window", r->window,
			 "first_line", r->first, "last_line", r->last, "applied_at", history_time_json(r->applied_at),
			 "recheck", r->recheck >= RECHECK_GONE ? fix_recheck_name(r->recheck) : NULL,
			 "recheck_detail", r->recheck_detail);
}

/* The applied fixes, newest first: what 'revline undo FIX_ID' takes. */
static int list_out(const struct fix_record *records, size_t count, bool json)
{
	struct buf head = BUF_INIT;
	json_t *doc;
	char when[32];
	size_t i;

	if (json) {
		doc = json_array();
		for (i = 0; doc && i < count; i++)
			json_array_append_new(doc, record_json(&records[i]));
		return history_json_out(doc);
	}
	for (i = 0; i < count; i++) {
		const struct fix_record *r = &records[i];

		history_local_time(when, sizeof(when), r->applied_at);
		/* A message of several lines (mypy's notes) goes on under its first line. */
		buf_clear(&head);
		buf_printf(&head, "#%-5lld %s  %s:%d-%d  %s %s  ", (long long)r->id, when, r->file, r->first, r->last,
			   r->tool ? r->tool : "finding", r->code ? r->code : "");
		term_puts(stdout, head.ptr);
		term_column(stdout, r->message, term_width(head.ptr));
		putchar('\n');
		if (r->recheck_detail)
			term_printf(stdout, "       %s\n", r->recheck_detail);
	}
	buf_release(&head);
	if (!count)
		fprintf(stderr, "revline: no applied fix in this repository\n");
	else
		fprintf(stderr, "%zu applied fix%s: 'revline undo FIX_ID' takes one back\n", count,
			count == 1 ? "" : "es");
	return 0;
}

static const struct fix_record *record_of(const struct fix_record *records, size_t count, int64_t id)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (records[i].id == id)
			return &records[i];
	return NULL;
}

/* "undid fix 12: restored src/app.py (lines 3-5 as they were before it)". */
static int undone_out(const struct fix_record *r, int64_t id, bool json)
{
	if (json)
		return history_json_out(json_pack("{s:I, s:s, s:s?}", "id", (json_int_t)id, "state", "undone",
						  "file", r ? r->file : NULL));
	if (r && r->file)
		term_printf(stdout, "undid fix %lld: restored %s (lines %d-%d as they were before it)\n",
			    (long long)id, r->file, r->first, r->last);
	else
		printf("undid fix %lld: the file is as it was before it\n", (long long)id);
	return 0;
}

int cmd_undo(int argc, char **argv)
{
	struct workspace ws;
	int64_t id = 0, undone = 0;
	struct fix_record *records = NULL;
	size_t count = 0;
	bool json = false, list = false;
	int rc;

	if ((rc = parse_args(&id, &json, &list, argc, argv)) != 0)
		return rc < 0 ? 0 : rc;
	if ((rc = workspace_open(&ws)) != 0)
		goto done;
	if (list) {
		if (fix_applied(&records, &count, ws.store, ws.workdir) < 0) {
			cli_error("%s", error_message());
			rc = 2;
		} else {
			rc = list_out(records, count, json);
		}
		goto done;
	}
	/* The applied fixes first: the one undone names its file. */
	if (fix_applied(&records, &count, ws.store, ws.workdir) < 0 ||
	    fix_undo_stored(&undone, ws.store, ws.workdir, id) < 0) {
		cli_error("%s", error_message());
		rc = error_status() == RL_ECONFLICT || error_status() == RL_ENOTFOUND ? 1 : 2;
		goto done;
	}
	rc = undone_out(record_of(records, count, undone), undone, json);
done:
	fix_records_free(records, count);
	workspace_close(&ws);
	return rc;
}
