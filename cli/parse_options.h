#ifndef REVLINE_PARSE_OPTIONS_H
#define REVLINE_PARSE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One option parser for every command, as git's parse_options: a command
 * lists its options in a table of OPT_* entries that point at its own
 * variables; parse_options fills them, takes -h/--help and --version, and
 * leaves the other arguments (positionals) at the front of argv. The same
 * table prints the command's help.
 */
enum option_type {
	OPTION_END,
	OPTION_BOOL,            /* bool: set true */
	OPTION_SET_INT,         /* int: set to `bits` (one of several: another value of the same int is refused) */
	OPTION_STRING,          /* const char *: the value as typed */
	OPTION_STRING_LIST,     /* struct string_list: each value appended */
	OPTION_INTEGER,         /* int: a number from min to max */
	OPTION_SECONDS,         /* double: seconds, more than 0, at most a day */
	OPTION_CHOICE,          /* int: the index of the value in `choices` */
};

/*
 * Which of the database's ids an argument is, so that completion offers
 * this repository's: a finding of a check, a linter's signal, a fix that
 * fix detection found (`revline fixes`), a fix revline applied (`revline
 * undo --list`).
 */
enum option_ids { IDS_NONE, IDS_FINDING, IDS_SIGNAL, IDS_DETECTED_FIX, IDS_APPLIED_FIX };

/* The values of a repeatable option, in order. */
struct string_list {
	const char **items;
	size_t count, alloc;
};

struct option {
	enum option_type type;
	char short_name;
	const char *long_name;
	void *value;
	const char *argh;       /* the value's name in help; NULL: the option takes none */
	const char *help;
	long bits, min, max;
	const char *const *choices;     /* NULL-terminated */
	enum option_ids ids;            /* the value is a stored id of this kind */
	/*
	 * Not 0: the options of the table with the same number exclude each
	 * other, as two OPT_SET_INT of one variable with different values
	 * do: "--stat and --json cannot be used together", exit 2.
	 */
	int one_of;
};

#define OPT_END() { OPTION_END, 0, NULL, NULL, NULL, NULL, 0, 0, 0, NULL, IDS_NONE, 0 }
#define OPT_BOOL(s, l, v, h) { OPTION_BOOL, (s), (l), (v), NULL, (h), 0, 0, 0, NULL, IDS_NONE, 0 }
#define OPT_SET_INT(s, l, v, i, h) { OPTION_SET_INT, (s), (l), (v), NULL, (h), (i), 0, 0, NULL, IDS_NONE, 0 }
#define OPT_STRING(s, l, v, a, h) { OPTION_STRING, (s), (l), (v), (a), (h), 0, 0, 0, NULL, IDS_NONE, 0 }
#define OPT_STRING_LIST(s, l, v, a, h) { OPTION_STRING_LIST, (s), (l), (v), (a), (h), 0, 0, 0, NULL, IDS_NONE, 0 }
#define OPT_INTEGER(s, l, v, a, lo, hi, h) { OPTION_INTEGER, (s), (l), (v), (a), (h), 0, (lo), (hi), NULL, IDS_NONE, 0 }
#define OPT_SECONDS(s, l, v, a, h) { OPTION_SECONDS, (s), (l), (v), (a), (h), 0, 0, 0, NULL, IDS_NONE, 0 }
/* A string that is one of the database's ids (see enum option_ids). */
#define OPT_ID(s, l, v, a, k, h) { OPTION_STRING, (s), (l), (v), (a), (h), 0, 0, 0, NULL, (k), 0 }
#define OPT_CHOICE(s, l, v, a, c, h) { OPTION_CHOICE, (s), (l), (v), (a), (h), 0, 0, 0, (c), IDS_NONE, 0 }
/* A flag, or a string, of a group g of options that exclude each other (see one_of). */
#define OPT_BOOL_ONE_OF(g, s, l, v, h) { OPTION_BOOL, (s), (l), (v), NULL, (h), 0, 0, 0, NULL, IDS_NONE, (g) }
#define OPT_STRING_ONE_OF(g, s, l, v, a, h) { OPTION_STRING, (s), (l), (v), (a), (h), 0, 0, 0, NULL, IDS_NONE, (g) }

/* What `revline help NAME` says of a command, with its table's options. */
struct command_help {
	const char *name;       /* as typed: "detect-fixes" */
	const char *usage;      /* after "usage: ", lines joined with "\n       " */
	const char *summary;    /* one line, also in the overview's list */
	const char *description;
};

#define PARSE_OPT_HELP (-1)     /* help or the version was printed: exit 0 */
#define PARSE_OPT_ERROR (-2)    /* a one-line error was printed: exit 2 */

/*
 * Parse argv[1..argc-1] (argv[0] is the command's name). Returns the number
 * of positionals, now argv[0..n-1] in their order ("--" ends the options),
 * or PARSE_OPT_HELP or PARSE_OPT_ERROR.
 */
int parse_options(int argc, char **argv, const struct option *options, const struct command_help *help);

/* The exit status for parse_options' negative returns: 0 after help, 2 after an error. */
int parse_options_exit(int parsed);

/* What every command takes besides its table: -h/--help, -V/--version. */
extern const struct option parse_options_common[];

/* The command's help: usage, summary, description, then its options. */
void parse_options_help(const struct option *options, const struct command_help *help);

/*
 * Hand the table to hook instead of printing help when --help is parsed
 * (NULL: print again): `revline completion` reads every command's options
 * so, as git's completion helper does, from the same tables as --help.
 */
typedef void (*parse_options_hook)(void *arg, const struct option *options, const struct command_help *help);
void parse_options_on_help(parse_options_hook hook, void *arg);

/*
 * Which of the database's ids the command's first argument is, by its
 * name where a line of the usage puts it first after the command's name:
 * FINDING_ID, SIGNAL_ID, or FIX_ID (a fix revline applied, as `revline
 * undo [FIX_ID]`; an option's value says its kind in its table instead).
 */
enum option_ids parse_options_argument_ids(const struct command_help *help);

/* Every positional after the first `allowed` is an error, named in one line; false then. */
bool parse_options_at_most(int count, char **argv, int allowed, const struct command_help *help);

/*
 * The target options (what the diff is of) of the commands that take one:
 * into a struct target_spec's fields.
 */
#define OPT_TARGET(spec) \
	OPT_BOOL(0, "staged", &(spec)->staged, "review the index against HEAD (or --base REF)"), \
	OPT_BOOL(0, "cached", &(spec)->staged, "the same as --staged"), \
	OPT_STRING(0, "base", &(spec)->base, "REF", "review the working tree against REF"), \
	OPT_BOOL(0, "untracked", &(spec)->untracked, "include untracked files as additions")

/* Where rules come from, for the commands that read them. */
#define OPT_RULE_DIRS(dirs, no_builtin) \
	OPT_STRING_LIST(0, "rules", (dirs), "DIR", "also read rules from DIR (repeatable; searched first)"), \
	OPT_BOOL(0, "no-builtin", (no_builtin), "no built-in rule (as revline.builtinRules=none)")

#define OPT_JSON(v) OPT_BOOL(0, "json", (v), "print JSON")

#endif
