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
 * X(ID, name, default tool)
 */
#define SIGNAL_FORMATS(X) \
	X(SIGNAL_RUFF,       "ruff",       "ruff")       /* ruff check --output-format json */ \
	X(SIGNAL_FLAKE8,     "flake8",     "flake8")     /* path:line:col: CODE message */ \
	X(SIGNAL_MYPY,       "mypy",       "mypy")       /* path:line[:col]: error: message  [code] */ \
	X(SIGNAL_MYPY_JSON,  "mypy-json",  "mypy")       /* mypy --output json: one object per line */ \
	X(SIGNAL_BANDIT,     "bandit",     "bandit")     /* bandit -f json */ \
	X(SIGNAL_SARIF,      "sarif",      "sarif")      /* SARIF 2.1.0; the tool is the run's driver */ \
	X(SIGNAL_GCC,        "gcc",        "gcc")        /* gcc/clang: path:line:col: warning: message [-Wflag] */ \
	X(SIGNAL_SHELLCHECK, "shellcheck", "shellcheck") /* shellcheck -f json or -f json1 */

enum signal_format {
#define SIGNAL_FORMAT_ENUM(id, name, tool) id,
	SIGNAL_FORMATS(SIGNAL_FORMAT_ENUM)
#undef SIGNAL_FORMAT_ENUM
	SIGNAL_FORMAT_COUNT
};

struct signal {
	int64_t id;             /* in the store; 0 before it is stored */
	char *tool;             /* "ruff", "mypy", ...; for SARIF the driver's name */
	char *code;             /* "F401", "arg-type", "B101", "SC2086", "-Wunused-variable"; "" when none */
	char *message;
	char *severity;         /* as the tool says it ("error", "warning", "note", "HIGH", "style"...) */
	char *file;             /* as the tool gave it (see signals_relativize) */
	int line, column;       /* 1-based; 0 when the tool gives none */
	int end_line, end_column;       /* 0 when the tool gives none */
	char *url;              /* the code's documentation, or NULL */
};

/* What could not be read: a line of text output, or a JSON field path. */
struct signal_problem {
	int line;               /* 1-based line of the input, 0 for JSON formats */
	char *field;            /* "results[3].location.row", or NULL for text formats */
	char *message;
};

struct signal_list {
	enum signal_format format;
	struct signal *items;
	size_t count;
	struct signal_problem *problems;
	size_t nproblems;
};

/* The format of a tool's output, or RL_EPARSE (with a message saying which formats are known). */
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
 */
int signals_relativize(struct signal_list *list, const char *workdir, const char *cwd);

const char *signal_format_name(enum signal_format format);
const char *signal_format_tool(enum signal_format format);
/* From its name ("ruff", "mypy-json"...); false when unknown. */
bool signal_format_parse(enum signal_format *out, const char *name);

#endif
