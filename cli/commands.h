#ifndef REVLINE_COMMANDS_H
#define REVLINE_COMMANDS_H

#include "options.h"

/*
 * The commands: X(name, option tables, usage, summary, description).
 * main() dispatches through this table and `revline help` prints from it.
 */
#define COMMAND_LIST(X) \
	X(check, (&target_options, &check_options, &rule_dir_options, &global_options), \
	  "revline check [TARGET] [--format FORMAT] [--output FILE] [--fail-on SEVERITY] ...", \
	  "review the diff against the rules, headless", \
	  "Reviews the target's diff against every rule that applies, one LLM call per\n" \
	  "rule (local pattern rules run offline), many at once. Text output streams a\n" \
	  "line per rule as it settles, with its findings, then the merged report.\n" \
	  "Exit status: 0 when no finding reaches --fail-on, 1 when one does, 2 for\n" \
	  "usage or configuration errors, 3 when the check failed as a whole.\n") \
	X(doctor, (&global_options), \
	  "revline doctor", \
	  "say what is configured and whether it works", \
	  "Shows the repository, the LLM provider and whether it answers, the database,\n" \
	  "the rules, and which linters are installed. Exit 1 when something is broken.\n") \
	X(diff, (&target_options, &diff_options, &json_options, &global_options), \
	  "revline diff [TARGET] [--stat | --name-status | --json]", \
	  "print the diff that revline reviews", \
	  "Prints the diff of the target as unified text (the default), as a stat, as\n" \
	  "name-status lines or as JSON (per file: path, old_path, status, binary,\n" \
	  "additions, deletions and hunks with their lines and line numbers).\n") \
	X(help, (&global_options), \
	  "revline help [COMMAND]", \
	  "show help for revline or for one command", \
	  "With a command name, shows that command's usage and options.\n") \
	X(init, (&global_options), \
	  "revline init", \
	  "write a starter rule to threadlines/example.md", \
	  "Writes threadlines/example.md at the root of the working tree: a rule with\n" \
	  "every field explained, to edit or copy. Refuses when the file exists.\n") \
	X(rules, (&rules_options, &rule_dir_options, &json_options, &global_options), \
	  "revline rules [--lint] [--json] [--rules DIR]...", \
	  "list the review rules, or check them with --lint", \
	  "Lists every rule revline would use: --rules directories, then threadlines/,\n" \
	  ".revline/rules/ and .github/cr-rules/ in the repository, then\n" \
	  "$XDG_CONFIG_HOME/revline/rules/, then the built-in rules; the first rule\n" \
	  "with an id wins. Problems in rule files go to stderr. With --lint, prints\n" \
	  "every problem and exits 1 when there is any.\n")

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
