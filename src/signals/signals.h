#ifndef REVLINE_SIGNALS_H
#define REVLINE_SIGNALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Linter signals: one diagnostic of a tool (tool, code, message, file,
 * line, column), read from the tools' own output. The format is detected
 * from the content unless given. A malformed part of the input is reported
 * as a problem naming its line (text formats) or field (JSON formats) and
 * skipped; every signal that could be read is kept.
 *
 * Text formats: only lines that start "path:line" are read; the rest
 * (gcc's "In function" and "In file included from" context, source echo
 * with carets, mypy's --pretty source lines, summaries, cc1:/collect2:
 * lines) is skipped without a problem (but ruff's full text, whose place
 * is on the line after its "CODE message" header: " --> path:row:col").
 * Terminal colours and gcc's OSC 8
 * links are ignored. A message over several lines is read whole: mypy
 * --pretty's wrapped lines (joined where it broke them, at a space), a gcc
 * message holding newlines and clang-tidy's multi-line analyzer messages
 * (up to the line with the code). The text after the severity's colon and
 * one space is the message as printed (mypy's notes keep their indent).
 *
 * A mypy note right after an error at the same file and line is part of
 * it: its text is added to that message after a newline, as mypy's JSON
 * output does with the "hint"; other mypy notes are signals of their own
 * with severity "note". gcc and clang print a diagnostic's notes after it:
 * every note up to the next error or warning is part of it, its text
 * alone when at the signal's file and line, else as "path:line:column:
 * note: text". A diagnostic inside a macro, which gcc places in the macro's
 * definition followed by "in expansion of macro" notes, is placed where the
 * (outermost) macro is expanded, as gcc's JSON output does, with the places
 * it passes through kept as "path:line:column: note: in definition of macro
 * 'M'" lines (clang places it there itself, with "expanded from macro"
 * notes). Identical diagnostics (a header's, repeated for each translation
 * unit that includes it) are kept once. shellcheck's -f gcc output is
 * gcc's shape, but its notes are its info and style levels, diagnostics of
 * their own: a note whose code is shellcheck's ("[SC2086]") never joins
 * the diagnostic before it, whatever the format or tool was said to be.
 *
 * X(ID, name, default tool)
 */
#define SIGNAL_FORMATS(X) \
	X(SIGNAL_RUFF,       "ruff",       "ruff")       /* ruff check --output-format json or json-lines */ \
	X(SIGNAL_FLAKE8,     "flake8",     "flake8")     /* path:line:col: CODE message */ \
	X(SIGNAL_MYPY,       "mypy",       "mypy")       /* path:line[:col]: error: message  [code] */ \
	X(SIGNAL_MYPY_JSON,  "mypy-json",  "mypy")       /* mypy --output json: one object per line */ \
	X(SIGNAL_BANDIT,     "bandit",     "bandit")     /* bandit -f json */ \
	X(SIGNAL_SARIF,      "sarif",      "sarif")      /* SARIF 2.1.0; the tool is the run's driver */ \
	X(SIGNAL_GCC,        "gcc",        "gcc")        /* gcc/clang: path:line:col: warning: message [-Wflag] */ \
	X(SIGNAL_SHELLCHECK, "shellcheck", "shellcheck") /* shellcheck -f json or -f json1 */ \
	X(SIGNAL_RUFF_TEXT,  "ruff-text",  "ruff")       /* ruff check --output-format concise or full */ \
	X(SIGNAL_SHELLCHECK_GCC, "shellcheck-gcc", "shellcheck") /* shellcheck -f gcc: gcc's lines, [SC2086] */

enum signal_format {
#define SIGNAL_FORMAT_ENUM(id, name, tool) id,
	SIGNAL_FORMATS(SIGNAL_FORMAT_ENUM)
#undef SIGNAL_FORMAT_ENUM
	SIGNAL_FORMAT_COUNT
};

struct signal {
	int64_t id;             /* in the store; 0 before it is stored */
	char *tool;             /* "ruff", "mypy", ...; for SARIF the driver's name */
	/*
	 * "F401", "arg-type", "B101", "SC2086", "-Wunused-variable"; "" when
	 * none. gcc's "-Werror=flag" and clang's "-Werror,-Wflag" are "-Wflag".
	 */
	char *code;
	char *message;
	/*
	 * As the tool says it ("error", "warning", "note", "fatal error",
	 * "HIGH", "style"...). Where it says none: ruff "error" (as in its own
	 * SARIF), flake8 "warning" for W codes and "error" for the others,
	 * SARIF the rule's default level or "warning".
	 */
	char *severity;
	char *file;             /* as the tool gave it, file:// URIs as paths (see signals_relativize) */
	/*
	 * 1-based; 0 when the tool gives none. Columns count as the tool
	 * counts them: gcc a tab up to the next multiple of 8, clang bytes,
	 * shellcheck -f json a tab as 8, -f json1 and -f gcc as 1.
	 */
	int line, column;
	/* 0 when the tool gives none; end_column is just past the last character, as in SARIF. */
	int end_line, end_column;
	/* The code's documentation (ruff's url, bandit's more_info, SARIF's helpUri, shellcheck's wiki), or NULL. */
	char *url;
};

/* What could not be read: a line of text output, or a JSON field path. */
struct signal_problem {
	int line;               /* 1-based line of the input, 0 for JSON formats (but mypy's JSON lines) */
	char *field;            /* "results[3].line_number", "$" for the whole document, or NULL for text */
	char *message;          /* what is wrong, without the line or field */
};

struct signal_list {
	/* What was read; SIGNAL_FORMAT_COUNT for an empty input of a format neither given nor named by tool. */
	enum signal_format format;
	struct signal *items;
	size_t count, alloc;
	struct signal_problem *problems;
	size_t nproblems, problems_alloc;
};

/*
 * The format of a tool's output, or RL_EPARSE (with a message saying which
 * formats are known). An empty JSON list, which ruff and shellcheck both
 * write when all is well, is ruff's.
 */
int signals_detect(enum signal_format *out, const char *text, size_t len);

/*
 * Read a tool's output. format < 0 detects it. tool, when not NULL,
 * overrides the tool name the format implies (flake8's format from
 * pycodestyle, say). RL_EPARSE only when the format cannot be told or the
 * whole input is unreadable (JSON that does not parse); otherwise 0, with
 * the problems in out->problems. An empty input is 0 signals.
 */
int signals_parse(struct signal_list *out, const char *text, size_t len, int format, const char *tool);
void signal_list_release(struct signal_list *list);
void signal_release(struct signal *signal);
int signal_copy(struct signal *out, const struct signal *from);

/*
 * Make every file path relative to the repository's working tree: absolute
 * paths under workdir lose that prefix, paths relative to cwd (the
 * directory the tool ran in, inside workdir) gain cwd's path from workdir,
 * "./" and "a/../" are folded. Paths outside the working tree stay as they
 * are (they match no file of the diff).
 *
 * workdir is absolute; cwd is absolute or relative to workdir, NULL for
 * workdir itself (RL_EUSAGE when either is not so). Nothing is read from
 * the file system: symbolic links are not followed.
 */
int signals_relativize(struct signal_list *list, const char *workdir, const char *cwd);

/* "unknown" for SIGNAL_FORMAT_COUNT. */
const char *signal_format_name(enum signal_format format);
const char *signal_format_tool(enum signal_format format);
/*
 * From its name ("ruff", "mypy-json"...), case ignored, or from a tool
 * that writes one of them: clang and cppcheck (gcc), pycodestyle and
 * pyflakes (flake8). False when unknown.
 */
bool signal_format_parse(enum signal_format *out, const char *name);

#endif
