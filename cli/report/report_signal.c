/* A linter's signal as JSON, with the latest fix asked for it: `revline signals --json` and the MCP server. */
#include "report.h"
#include "fix.h"
#include "signals.h"
#include "utf8.h"

json_t *report_signal_json(const struct signal *s, struct store *store)
{
	struct fix_summary sum;
	json_t *o = json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:i, s:i, s:o}", "id", (json_int_t)s->id,
			      "tool", utf8_json(s->tool), "code", utf8_json(s->code), "message", utf8_json(s->message),
			      "severity", utf8_json(s->severity), "file", utf8_json(s->file), "line", s->line,
			      "column", s->column, "end_line", s->end_line, "end_column", s->end_column,
			      "url", utf8_json(s->url));

	if (o && fix_latest(&sum, store, s->id, 0) == 0)
		json_object_set_new(o, "fix", json_pack("{s:I, s:s, s:s}", "id", (json_int_t)sum.id, "state",
							fix_state_name(sum.state), "recheck",
							fix_recheck_name(sum.recheck)));
	return o;
}
