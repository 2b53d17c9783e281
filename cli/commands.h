#ifndef REVLINE_COMMANDS_H
#define REVLINE_COMMANDS_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "parse_options.h"
#include "store_history.h"

/*
 * The commands, by their C names (detect_fixes is typed detect-fixes). Each
 * cli/cmd_NAME.c defines cmd_NAME and NAME_help, its usage and description;
 * commands.c dispatches through this list and `revline help` prints from it.
 */
#define COMMAND_LIST(X) \
	X(bench) X(check) X(completion) X(db) X(detect_fixes) X(doctor) X(diff) X(feedback) X(fix) X(fixes) X(help) X(hook) \
	X(history) X(init) X(mcp) X(rules) X(signals) X(stats) X(trust) X(undo)

#define COMMAND_DECL(name) \
	int cmd_##name(int argc, char **argv); \
	extern const struct command_help name##_help;
COMMAND_LIST(COMMAND_DECL)
#undef COMMAND_DECL

/* The terminal UI: revline [TARGET] (cmd_tui.c); its help is the overview's first part. */
int cmd_tui(int argc, char **argv);
extern const struct command_help tui_help;

/* A command by the name typed, or NULL after saying so ("did you mean check?"). */
struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const struct command_help *help;
};
const struct command *command_find(const char *name);
/* The commands in the table's order; NULL past the last. */
const struct command *command_at(size_t index);
/* The overview: revline --help. */
int help_overview(void);

/*
 * revline.confirmTokens (limit; 0: none): 1 with why filled when the check's
 * map requests would send more (the estimate and its price), 0 when not,
 * an error status when it cannot be estimated. Shared by `check` and `mcp`.
 */
struct buf;
struct check;
struct llm_config;
int check_budget(struct buf *why, struct check *check, const struct llm_config *llm, long limit);
/* The same for any estimate: what ("this check", "this benchmark") would send tokens (bench too). */
int tokens_budget(struct buf *why, long tokens, const struct llm_config *llm, long limit, const char *what);

/* Fix detection for a check, shared by `check` and `detect-fixes`; once: claim the pair (fixdetect.h). */
struct fixdetect;
struct store;
struct llm_config;
struct sched_options;
int detect_fixes_run(struct fixdetect **out, struct store *store, int64_t check_id,
		     struct llm_config *llm, const struct sched_options *sched, bool once);
void detect_fixes_spawn(int64_t check_id);
void detect_fixes_print(FILE *out, const struct fixdetect *fd);
struct json_t *detect_fixes_json(const struct fixdetect *fd);

/*
 * What history, fixes and stats share: the store and this repository's key
 * in it (prints the error and returns 2 outside a repository or when the
 * database cannot be opened), times (local "2026-11-21 14:03"; JSON ISO
 * 8601 UTC, null for 0), a cell padded to width characters with control
 * bytes shown as '?', and the JSON document written (2 on failure).
 */
struct store;
/*
 * Whose history history, fixes and stats show: this clone's by default;
 * --repo URL every clone of that repository in a team's database (its
 * remote in any form; "." this repository's), --author EMAIL one author's.
 */
struct history_filter {
	const char *repo;
	const char *author;
};
#define OPT_HISTORY_FILTER(f) \
	OPT_STRING(0, "repo", &(f)->repo, "URL", \
		   "every clone of the repository with this remote ('.': this one's)"), \
	OPT_STRING(0, "author", &(f)->author, "EMAIL", "only what this author did (git's user.email)")
/* The scope a filter gives, and its label ("-": the repository's path or remote). */
struct history_where {
	struct history_scope scope;
	char *path, *remote;
	const char *label;
};
int history_open(struct store **store, struct history_where *where, const struct history_filter *filter);
void history_where_release(struct history_where *where);
void history_local_time(char *out, size_t size, int64_t ms);
struct json_t *history_time_json(int64_t ms);
int history_text_width(const char *s);
void history_put(FILE *fp, const char *s, int width);
int history_json_out(struct json_t *doc);
/* A usage's fields set in a JSON object (cost_usd null when not known); the object. */
struct usage;
struct json_t *history_usage_json(struct json_t *object, const struct usage *usage);
/* A cost in a table: "-" when nothing was billed, "unknown", or usage_cost_text's "~$0.0042". */
void history_cost_text(char *out, size_t size, const struct usage *usage);

/*
 * Before a command runs, and before the terminal UI takes the screen: say
 * once on stderr what the repository's .revline sets that does not count
 * until it is trusted (or why it was not read). Not for the commands that
 * show it themselves (trust, doctor) nor for help.
 */
void trust_note_before(const char *command);
struct config;
/* The same note for a config already open; said at most once per process. */
void trust_note(const struct config *config);

/* A rule file's problem as "path:line: message" (cmd_rules.c; check's stderr too). */
struct rule_problem;
void rule_problem_print(FILE *fp, const struct rule_problem *p);

#endif
