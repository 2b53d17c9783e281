#ifndef REVLINE_COMMANDS_H
#define REVLINE_COMMANDS_H

#include "options.h"

/*
 * The commands: X(name, option tables, usage, summary, description).
 * main() dispatches through this table and `revline help` prints from it.
 */
#define COMMAND_LIST(X) \
	X(diff, (&target_options, &diff_options, &json_options, &global_options), \
	  "revline diff [TARGET] [--stat | --name-status | --json]", \
	  "print the diff that revline reviews", \
	  "Prints the diff of the target as unified text (the default), as a stat, as\n" \
	  "name-status lines or as JSON (per file: path, old_path, status, binary,\n" \
	  "additions, deletions and hunks with their lines and line numbers).\n") \
	X(help, (&global_options), \
	  "revline help [COMMAND]", \
	  "show help for revline or for one command", \
	  "With a command name, shows that command's usage and options.\n")

#define COMMAND_DECL(name, tables, usage, summary, description) \
	int cmd_##name(int argc, char **argv);
COMMAND_LIST(COMMAND_DECL)
#undef COMMAND_DECL

/* The terminal UI: revline [TARGET]. */
int cmd_tui(int argc, char **argv);

/* The options of the terminal UI (revline without a command). */
extern const struct opt_table *const tui_tables[];

/* Help for one command (or the overview when name is NULL); 2 when unknown. */
int help_show(const char *name);

/* The option tables a command accepts, NULL-terminated. */
const struct opt_table *const *command_options(const char *name);

#endif
