#ifndef REVLINE_COMMANDS_H
#define REVLINE_COMMANDS_H

#include <stdint.h>
#include <stdio.h>

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
	  "rule (local pattern rules run offline), many at once. When the repository\n" \
	  "has rules of its own, the built-in LLM rules do not run (revline.builtinRules;\n" \
	  "'revline rules' says which run). Text output streams a line per rule as it\n" \
	  "settles, with its findings, then the merged report.\n" \
	  "Exit status: 0 when no finding reaches --fail-on, 1 when one does, 2 for\n" \
	  "usage or configuration errors, 3 when the check failed as a whole, 4 when\n" \
	  "its results could not be stored (full, read-only, damaged or locked\n" \
	  "database: they are printed all the same, and stderr says what to do), 5\n" \
	  "when its --deadline passed before every rule settled, 6 when the review is\n" \
	  "incomplete: a rule errored, timed out or was skipped, or a rule file is\n" \
	  "broken (--allow-partial or revline.allowPartial accepts it) (3 wins over\n" \
	  "4, 4 over 5, 5 over 6, 6 over 1).\n") \
	X(detect_fixes, (&json_options, &global_options), \
	  "revline detect-fixes CHECK_ID [--json]", \
	  "find which violations of the check before CHECK_ID were fixed, and how", \
	  "Compares the check with the previous one on the same branch: for each rule\n" \
	  "that needed attention then, was it fixed by a code change, by changing the\n" \
	  "rule, or by deleting the rule? What needs no judgement is decided without\n" \
	  "the LLM; the rest is asked, in parallel. `revline check` starts this in the\n" \
	  "background after each check; it can be run again by hand.\n") \
	X(doctor, (&global_options), \
	  "revline doctor", \
	  "say what is configured and whether it works", \
	  "Shows the repository, the LLM provider, its models (map, reduce, fix) and\n" \
	  "whether it answers, the database, the rules and which of them a check runs,\n" \
	  "and which linters are installed. Exit 1 when something is broken.\n") \
	X(diff, (&target_options, &diff_options, &json_options, &global_options), \
	  "revline diff [TARGET] [--stat | --name-status | --json]", \
	  "print the diff that revline reviews", \
	  "Prints the diff of the target as unified text (the default), as a stat, as\n" \
	  "name-status lines or as JSON (per file: path, old_path, status, binary,\n" \
	  "additions, deletions and hunks with their lines and line numbers).\n") \
	X(feedback, (&feedback_options, &global_options), \
	  "revline feedback FINDING_ID (--false-positive | --accept | --reject) [--note TEXT]\n" \
	  "       revline feedback --fix FIX_ID (--correct | --incorrect) [--note TEXT]", \
	  "mark a finding false positive, accepted or rejected, or a detected fix", \
	  "Records what a finding was worth (finding ids are in the output of 'revline\n" \
	  "check'). A finding marked false positive is hidden when it comes back (same\n" \
	  "rule, file and code) until a later --accept or --reject; the rule's prompt\n" \
	  "shows its past false positives most like the change as examples not to\n" \
	  "report, and accepted findings as examples to keep. With --fix, says whether\n" \
	  "a detected fix (an id from 'revline fixes') was right. Exit status: 0 when\n" \
	  "recorded, 2 for usage errors, unknown ids and a database that fails.\n") \
	X(fix, (&fix_options, &json_options, &global_options), \
	  "revline fix SIGNAL_ID [--apply [--yes]] [--json]\n" \
	  "       revline fix --finding FINDING_ID [--apply [--yes]] [--json]", \
	  "ask the LLM for a fix of a signal or a finding; show it, or apply it", \
	  "Takes the edit window the signal calls for (a few lines, the whole function,\n" \
	  "the import block or the try block), sends it dedented with its context, and\n" \
	  "shows the answer as a diff with the model's explanation. With --apply, writes\n" \
	  "it (after asking, unless --yes), keeping the file's indentation and line\n" \
	  "endings, refusing when the file changed since; then runs the signal's linter\n" \
	  "on the file again and says whether the signal is gone. 'revline undo' takes\n" \
	  "it back. Exit status: 0 when a fix was proposed (and applied if asked), 1\n" \
	  "when applying was declined or refused, 2 for usage errors, 3 when no fix\n" \
	  "came.\n") \
	X(fixes, (&fixes_options, &json_options, &global_options), \
	  "revline fixes [--rule ID] [--json]", \
	  "list the violations that were fixed, and how", \
	  "Lists the fixes fix detection found in this repository, newest first: the\n" \
	  "rule and its file, the files, how it was fixed (CODE_CHANGE,\n" \
	  "THREADLINE_CHANGED, THREADLINE_DELETED), the explanation, the time between\n" \
	  "the two checks, how it was detected, the two checks, and the feedback on it\n" \
	  "(a fix marked incorrect is shown, and left out of revline stats).\n") \
	X(help, (&global_options), \
	  "revline help [COMMAND]", \
	  "show help for revline or for one command", \
	  "With a command name, shows that command's usage and options.\n") \
	X(history, (&history_options, &json_options, &global_options), \
	  "revline history [--limit N] [--json]", \
	  "list the repository's checks, newest first", \
	  "Lists this repository's checks, newest first: id, time, branch, status,\n" \
	  "duration, rules, findings, rules needing attention, overall severity and\n" \
	  "target. A check whose process died halfway shows as interrupted, with the\n" \
	  "results it had.\n") \
	X(init, (&global_options), \
	  "revline init", \
	  "write a starter rule to threadlines/example.md", \
	  "Writes threadlines/example.md at the root of the working tree: a rule with\n" \
	  "every field explained, to edit or copy. Refuses when the file exists.\n") \
	X(rules, (&rules_options, &rule_dir_options, &json_options, &global_options), \
	  "revline rules [--lint] [--json] [--rules DIR]... [--no-builtin]", \
	  "list the review rules, or check them with --lint", \
	  "Lists every rule revline would use: --rules directories, then threadlines/,\n" \
	  ".revline/rules/ and .github/cr-rules/ in the repository, then\n" \
	  "$XDG_CONFIG_HOME/revline/rules/, then the built-in rules; the first rule\n" \
	  "with an id wins. Each says whether a check runs it and, when not, why:\n" \
	  "when the repository has rules of its own, the built-in LLM rules are off\n" \
	  "unless revline.builtinRules is all. Problems in rule files go to stderr.\n" \
	  "With --lint, prints every problem and exits 1 when there is any.\n") \
	X(signals, (&signals_options, &target_options, &json_options, &global_options), \
	  "revline signals [--run [--linter NAME]] [--all] [--json] [TARGET]\n" \
	  "       revline signals --import FILE [--tool NAME] [--format FORMAT]", \
	  "run linters or read their output; list their signals with ids", \
	  "Lists the repository's current linter signals (each tool's latest run or\n" \
	  "import) on the changed lines of the target (every one with --all): id, tool,\n" \
	  "code, place, message and the state of its fix. --run runs the installed\n" \
	  "linters (ruff or flake8, mypy, bandit, shellcheck, cppcheck; git config\n" \
	  "revline.lint.NAME replaces a command) on the changed files first. --import\n" \
	  "reads a tool's output (ruff JSON, flake8, mypy text or JSON, bandit JSON,\n" \
	  "SARIF 2.1.0, gcc/clang, shellcheck JSON; detected from the content); what\n" \
	  "cannot be read is reported with its line or field, and the rest is kept.\n") \
	X(stats, (&json_options, &global_options), \
	  "revline stats [--json]", \
	  "how often violations get fixed, how fast, and false positives", \
	  "Figures for this repository: violations (rules needing attention), fixes,\n" \
	  "fix rate, average and p95 time to fix with the time buckets, fix types,\n" \
	  "and per rule violations, fixes, fix rate, findings, false positives and\n" \
	  "false-positive rate. See revline(1) for the exact definitions.\n") \
	X(trust, (&trust_options, &global_options), \
	  "revline trust [--show | --revoke]", \
	  "let this repository's .revline set what sends data, runs or names a path", \
	  "A .revline comes with the repository, so whoever wrote the branch wrote it.\n" \
	  "Until you trust it, its settings that send data, run commands or name paths\n" \
	  "(revline.baseUrl, provider, model, mapModel, reduceModel, apiKeyCommand,\n" \
	  "lint.NAME, db, osvUrl, advisories, allowPartial, ignore, a theme given as a\n" \
	  "path) are ignored, and\n" \
	  "said so once on stderr; the rest count. 'revline trust' records the SHA-256\n" \
	  "of the file as it is now with its path in $XDG_CONFIG_HOME/revline/trust/;\n" \
	  "when the file changes it is untrusted again. --show says the state, --revoke\n" \
	  "forgets it. Exit status: 0 when done (--show: when trusted), 1 when there is\n" \
	  "no .revline to trust (--show: when not trusted), 2 for usage errors.\n") \
	X(undo, (&undo_options, &json_options, &global_options), \
	  "revline undo [FIX_ID] | --list", \
	  "take back an applied fix, byte for byte", \
	  "Puts the file back exactly as it was before the fix (the latest applied fix\n" \
	  "of this repository without FIX_ID). Refuses when the file changed since the\n" \
	  "fix was applied. --list lists the applied fixes of every session, newest\n" \
	  "first, with their ids, to pick one.\n")

#define COMMAND_DECL(name, tables, usage, summary, description) \
	int cmd_##name(int argc, char **argv);
COMMAND_LIST(COMMAND_DECL)
#undef COMMAND_DECL

/* Fix detection for a check, shared by `check` and `detect-fixes`. */
struct fixdetect;
struct store;
struct llm_config;
struct sched_options;
int detect_fixes_run(struct fixdetect **out, struct store *store, int64_t check_id,
		     struct llm_config *llm, const struct sched_options *sched);
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
int history_open(struct store **store, char **repo_key);
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

/* The terminal UI: revline [TARGET]. */
/* A rule file's problem as "path:line: message" (cmd_rules.c; check's stderr too). */
struct rule_problem;
void rule_problem_print(FILE *fp, const struct rule_problem *p);

int cmd_tui(int argc, char **argv);

/* The options of the terminal UI (revline without a command). */
extern const struct opt_table *const tui_tables[];

/* Help for one command (or the overview when name is NULL); 2 when unknown. */
int help_show(const char *name);

/* The option tables a command accepts, NULL-terminated. */
const struct opt_table *const *command_options(const char *name);

#endif
