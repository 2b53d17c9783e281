#ifndef REVLINE_OPTIONS_H
#define REVLINE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "repo.h"

/*
 * Command line options. Each list is an X-macro table: X(ID, long name,
 * short letter or 0, argument name or NULL, help). The parser, the help
 * text and the man page's option lists come from the same tables.
 */
#define GLOBAL_OPTIONS(X) \
	X(OPT_HELP,    "help",    'h', NULL, "show help and exit") \
	X(OPT_VERSION, "version", 'V', NULL, "show the version and exit")

#define TARGET_OPTIONS(X) \
	X(OPT_STAGED,    "staged",    0, NULL,  "review the index against HEAD (or --base REF)") \
	X(OPT_CACHED,    "cached",    0, NULL,  "the same as --staged") \
	X(OPT_BASE,      "base",      0, "REF", "review the working tree against REF") \
	X(OPT_UNTRACKED, "untracked", 0, NULL,  "include untracked files as additions")

#define DIFF_OPTIONS(X) \
	X(OPT_STAT,        "stat",        0, NULL, "a line per file with a bar of its changes") \
	X(OPT_NAME_STATUS, "name-status", 0, NULL, "a status letter and the path(s) per file")

#define JSON_OPTIONS(X) \
	X(OPT_JSON, "json", 0, NULL, "print JSON")

#define RULES_OPTIONS(X) \
	X(OPT_LINT, "lint", 0, NULL, "check the rule files: print every problem, exit 1 if any")

#define RULE_DIR_OPTIONS(X) \
	X(OPT_RULES,      "rules",      0, "DIR", "also read rules from DIR (repeatable; searched first)") \
	X(OPT_NO_BUILTIN, "no-builtin", 0, NULL,  "no built-in rule (as revline.builtinRules=none)")

#define HISTORY_OPTIONS(X) \
	X(OPT_LIMIT, "limit", 0, "N", "show the N newest checks (default 20; 0: all)")

/* Not check's --rule (which runs a rule): this one filters what is listed. */
#define FIXES_OPTIONS(X) \
	X(OPT_FILTER_RULE, "rule", 0, "ID", "only the fixes of this rule")

#define CHECK_OPTIONS(X) \
	X(OPT_FORMAT,          "format",          0, "FORMAT", "text (streams), json, sarif or markdown") \
	X(OPT_OUTPUT,          "output",          0, "FILE",   "write the report to FILE (replaced when complete)") \
	X(OPT_FAIL_ON,         "fail-on",         0, "SEVERITY", "exit 1 when a finding is this severe or more (default major; none)") \
	X(OPT_SHOW_UNVERIFIED, "show-unverified", 0, NULL,     "also show findings whose evidence was not found") \
	X(OPT_RULE,            "rule",            0, "ID",     "run only this rule (repeatable)") \
	X(OPT_NO_CACHE,        "no-cache",        0, NULL,     "ask the LLM again even when the answer is cached") \
	X(OPT_CONCURRENCY,     "concurrency",     0, "N",      "requests at once (default 5)") \
	X(OPT_TIMEOUT,         "timeout",         0, "S",      "seconds a streamed answer may stall (no byte); grows with the request (default 120)") \
	X(OPT_RETRIES,         "retries",         0, "N",      "further attempts after a failed request (default 2)") \
	X(OPT_DEADLINE,        "deadline",        0, "S",      "end the check after S seconds: what is still running times out, what arrived is kept") \
	X(OPT_ALLOW_PARTIAL,   "allow-partial",   0, NULL,     "an incomplete review (a rule that did not run) does not exit 6") \
	X(OPT_CHECK_YES,       "yes",             'y', NULL,    "run even when the estimate is over revline.confirmTokens") \
	X(OPT_SHOW_SUPPRESSED, "show-suppressed", 0, NULL,     "also show findings marked false positive before") \
	X(OPT_WAIT_FIX_DETECTION, "wait-fix-detection", 0, NULL, "run fix detection before exiting and report it") \
	X(OPT_NO_FIX_DETECTION, "no-fix-detection", 0, NULL,   "do not look for fixes of the previous check's violations")

#define FEEDBACK_OPTIONS(X) \
	X(OPT_FALSE_POSITIVE, "false-positive", 0, NULL,     "the finding is wrong: hide it when it comes back") \
	X(OPT_ACCEPT,         "accept",         0, NULL,     "the finding is right: keep reporting problems like it") \
	X(OPT_REJECT,         "reject",         0, NULL,     "the finding is not worth acting on (still shown)") \
	X(OPT_NOTE,           "note",           0, "TEXT",   "why, in a few words (the rule's prompt shows it)") \
	X(OPT_FIX_ID,         "fix",            0, "FIX_ID", "feedback on a detected fix instead of a finding") \
	X(OPT_CORRECT,        "correct",        0, NULL,     "the fix was detected rightly") \
	X(OPT_INCORRECT,      "incorrect",      0, NULL,     "the fix was detected wrongly")

#define SIGNALS_OPTIONS(X) \
	X(OPT_IMPORT,        "import", 0, "FILE",   "read a linter's output from FILE (- for standard input) and keep its signals") \
	X(OPT_TOOL,          "tool",   0, "NAME",   "with --import: the tool's name, when the output does not say it") \
	X(OPT_SIGNAL_FORMAT, "format", 0, "FORMAT", "with --import: ruff, ruff-text, flake8, mypy, mypy-json, bandit, sarif, gcc, shellcheck or shellcheck-gcc (default: detected)") \
	X(OPT_RUN,           "run",    0, NULL,     "run the installed linters on the changed files and keep their signals") \
	X(OPT_LINTER,        "linter", 0, "NAME",   "with --run: only this linter (ruff, flake8, mypy, bandit, shellcheck, cppcheck)") \
	X(OPT_ALL,           "all",    0, NULL,     "list every current signal, not only those on changed lines")

#define UNDO_OPTIONS(X) \
	X(OPT_LIST, "list", 0, NULL, "list the applied fixes (of every session), newest first, instead of undoing one")

#define FIX_OPTIONS(X) \
	X(OPT_FINDING, "finding", 0,   "FINDING_ID", "fix a finding of a check instead of a signal") \
	X(OPT_APPLY,   "apply",   0,   NULL,         "write the fix to the file (asks first on a terminal)") \
	X(OPT_YES,     "yes",     'y', NULL,         "with --apply: do not ask")

#define TRUST_OPTIONS(X) \
	X(OPT_TRUST_SHOW,   "show",   0, NULL, "say whether the .revline is trusted and what it sets that needs trust") \
	X(OPT_TRUST_REVOKE, "revoke", 0, NULL, "stop trusting the .revline: its sensitive settings no longer count")

#define TUI_OPTIONS(X) \
	X(OPT_TUI_CHECK, "check", 0, NULL, "start a check of the diff as soon as the UI opens")

enum opt_id {
	OPT_END = 0,
	OPT_POSITIONAL,
#define OPT_ENUM(id, name, letter, arg, help) id,
	GLOBAL_OPTIONS(OPT_ENUM)
	TARGET_OPTIONS(OPT_ENUM)
	DIFF_OPTIONS(OPT_ENUM)
	JSON_OPTIONS(OPT_ENUM)
	RULES_OPTIONS(OPT_ENUM)
	RULE_DIR_OPTIONS(OPT_ENUM)
	CHECK_OPTIONS(OPT_ENUM)
	FEEDBACK_OPTIONS(OPT_ENUM)
	HISTORY_OPTIONS(OPT_ENUM)
	FIXES_OPTIONS(OPT_ENUM)
	SIGNALS_OPTIONS(OPT_ENUM)
	FIX_OPTIONS(OPT_ENUM)
	UNDO_OPTIONS(OPT_ENUM)
	TRUST_OPTIONS(OPT_ENUM)
	TUI_OPTIONS(OPT_ENUM)
#undef OPT_ENUM
};

struct opt {
	enum opt_id id;
	const char *name;
	char letter;
	const char *arg;
	const char *help;
};

#define OPT_ENTRY(id, name, letter, arg, help) { id, name, letter, arg, help },

struct opt_table {
	const struct opt *opts;
	size_t count;
};

struct opt_parser {
	int argc;
	char **argv;
	int index;
	bool only_positional;   /* after "--" */
	const struct opt_table *const *tables;  /* NULL-terminated */
};

/*
 * The next option: its id with *value set for options that take one, or
 * OPT_POSITIONAL with *value the argument, or OPT_END. On an unknown option
 * or a missing value, prints a one-line error and returns -1.
 */
int opt_next(struct opt_parser *p, const char **value);

/* The options of the tables as help lines. */
void opt_print_help(const struct opt_table *const *tables);

extern const struct opt_table global_options, target_options, diff_options, json_options;
extern const struct opt_table rules_options, rule_dir_options, check_options, tui_options;
extern const struct opt_table feedback_options;
extern const struct opt_table history_options, fixes_options;
extern const struct opt_table signals_options, fix_options, trust_options, undo_options;

/* Take a target option or a range into spec; false when id is not one. */
bool target_option(struct target_spec *spec, int id, const char *value);

/* Print "revline: message" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Open the repository and resolve the target; prints the error and returns 2 on failure. */
int cli_open(struct repo **repo, struct target *target, const struct target_spec *spec);

#endif
