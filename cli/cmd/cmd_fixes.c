/* revline fixes: the fixes fix detection found, newest first. */
#include "commands.h"
#include "history.h"
#include "status.h"
#include "store.h"
#include "term.h"
#include "utf8.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fix_time(char *out, size_t size, const struct history_fix *f)
{
	if (f->timed)
		history_duration_text(out, size, (double)f->seconds);
	else
		snprintf(out, size, "-");
}

static json_t *files_json(const struct history_fix *f)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; list && i < f->nfiles; i++)
		json_array_append_new(list, utf8_json(f->files[i]));
	return list;
}

static json_t *fix_json(const struct history_fix *f)
{
	char took[32];

	fix_time(took, sizeof(took), f);
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:o, s:o}",
			 "id", (json_int_t)f->id, "rule_id", utf8_json(f->rule_id),
			 "rule_file", utf8_json(f->rule_file), "files", files_json(f),
			 "fix_type", utf8_json(f->fix_type), "explanation", utf8_json(f->explanation),
			 "seconds_between_checks", f->timed ? json_integer(f->seconds) : json_null(),
			 "time_between_checks", f->timed ? json_string(took) : json_null(),
			 "detection_method", utf8_json(f->method),
			 "violation_check_id", (json_int_t)f->violation_check_id,
			 "fix_check_id", (json_int_t)f->fix_check_id,
			 "created_ms", (json_int_t)f->created_ms,
			 "created_at", history_time_json(f->created_ms),
			 "feedback", f->feedback == HISTORY_FIX_UNRATED ? json_null() :
			 json_string(history_fix_feedback_name(f->feedback)));
}

static int fixes_json(const struct history_fix *fixes, size_t count)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; list && i < count; i++)
		if (json_array_append_new(list, fix_json(&fixes[i])) < 0) {
			json_decref(list);
			list = NULL;
		}
	return history_json_out(list);
}

/* The explanation (the model's words) under its label, each of its lines indented alike. */
static void explanation_print(const char *text)
{
	const char *line = text ? text : "", *end;

	printf("  explanation: ");
	for (;;) {
		end = strchr(line, '\n');
		term_write(stdout, line, end ? (size_t)(end - line) : strlen(line));
		if (!end || !end[1])
			break;
		printf("\n%15s", "");
		line = end + 1;
	}
	printf("\n");
}

static void fix_print(const struct history_fix *f)
{
	char took[32], when[32];
	size_t i;

	fix_time(took, sizeof(took), f);
	history_local_time(when, sizeof(when), f->created_ms);
	printf("fix %lld  ", (long long)f->id);
	history_put(stdout, f->rule_id, 0);
	term_printf(stdout, "  %s  %s  %s\n", f->fix_type ? f->fix_type : "-", took, f->method ? f->method : "-");
	printf("  rule file:   ");
	history_put(stdout, f->rule_file, 0);
	printf("\n  files:       ");
	for (i = 0; i < f->nfiles; i++) {
		history_put(stdout, f->files[i], 0);
		printf("%s", i + 1 < f->nfiles ? ", " : "");
	}
	printf("%s\n", f->nfiles ? "" : "-");
	printf("  checks:      %lld -> %lld (found %s)\n", (long long)f->violation_check_id,
	       (long long)f->fix_check_id, when);
	printf("  feedback:    %s\n", history_fix_feedback_name(f->feedback));
	explanation_print(f->explanation);
}

const struct command_help fixes_help = {
	"fixes",
	"revline fixes [--rule ID] [--repo URL] [--author EMAIL] [--json]",
	"list the violations that were fixed, and how",
	"Lists the fixes fix detection found in this repository, newest first: the\n"
	"rule and its file, the files, how it was fixed (CODE_CHANGE,\n"
	"THREADLINE_CHANGED, THREADLINE_DELETED), the explanation, the time between\n"
	"the two checks, how it was detected, the two checks, and the feedback on it\n"
	"(a fix marked incorrect is shown, and left out of revline stats). --repo\n"
	"and --author choose as for revline history (the author of the check that\n"
	"showed the fix).\n",
};

static int parse_args(int argc, char **argv, const char **rule, bool *json, struct history_filter *filter)
{
	const struct option options[] = {
		OPT_STRING(0, "rule", rule, "ID", "only the fixes of this rule"),
		OPT_HISTORY_FILTER(filter),
		OPT_JSON(json),
		OPT_END(),
	};
	int n = parse_options(argc, argv, options, &fixes_help);

	if (n < 0)
		return n == PARSE_OPT_HELP ? -1 : 2;
	return parse_options_at_most(n, argv, 0, &fixes_help) ? 0 : 2;
}

int cmd_fixes(int argc, char **argv)
{
	struct history_fix *fixes = NULL;
	struct history_filter filter = { 0 };
	struct history_where where;
	struct store *store = NULL;
	const char *rule = NULL;
	size_t count = 0, i;
	bool json = false;
	int rc;

	if ((rc = parse_args(argc, argv, &rule, &json, &filter)) != 0)
		return rc < 0 ? 0 : rc;
	if ((rc = history_open(&store, &where, &filter)) != 0)
		return rc;
	if (history_fixes(&fixes, &count, store, &where.scope, rule) < 0) {
		cli_error("%s", error_message());
		rc = 2;
	} else if (json) {
		rc = fixes_json(fixes, count);
	} else if (!count) {
		printf("No fixes detected yet%s", rule ? " for rule " : "");
		history_put(stdout, rule ? rule : "", 0);
		printf(".\n");
	} else {
		for (i = 0; i < count; i++) {
			printf("%s", i ? "\n" : "");
			fix_print(&fixes[i]);
		}
	}
	history_fixes_free(fixes, count);
	store_close(store);
	history_where_release(&where);
	return rc;
}
