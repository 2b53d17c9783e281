#ifndef REVLINE_LINT_H
#define REVLINE_LINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "poll_group.h"
#include "signals.h"

/*
 * Linters: running the installed ones on files, and keeping what they say
 * (signals) in the store, by the run or import that brought them. The
 * signals of a tool that count are those of its latest run or import in
 * the repository.
 *
 * Running never blocks: like the scheduler, a lint is driven from the
 * caller's loop (lint_fds, lint_timeout, lint_step), or waited for
 * (lint_wait). Each linter is one child process, with the files as its
 * arguments, in the working tree; its command can be replaced with git
 * config revline.lint.NAME (a shell command; the files are appended, or
 * put where it says {files}).
 *
 * X(ID, name, output format, default command, file patterns, reads stderr)
 */
#define LINTERS(X) \
	X(LINT_RUFF,       "ruff",       SIGNAL_RUFF,       "ruff check --output-format json --exit-zero --no-cache", \
	  "**/*.py,**/*.pyi", false) \
	X(LINT_FLAKE8,     "flake8",     SIGNAL_FLAKE8,     "flake8 --exit-zero", "**/*.py", false) \
	X(LINT_MYPY,       "mypy",       SIGNAL_MYPY,       \
	  "mypy --show-column-numbers --no-error-summary --no-color-output --hide-error-context " \
	  "--no-pretty --show-error-codes --follow-imports silent", "**/*.py,**/*.pyi", false) \
	X(LINT_BANDIT,     "bandit",     SIGNAL_BANDIT,     "bandit -q -f json", "**/*.py", false) \
	X(LINT_SHELLCHECK, "shellcheck", SIGNAL_SHELLCHECK, "shellcheck -f json1", "**/*.sh,**/*.bash", false) \
	X(LINT_CPPCHECK,   "cppcheck",   SIGNAL_GCC,        \
	  "cppcheck --quiet --enable=warning,style,performance,portability " \
	  "--template='{file}:{line}:{column}: {severity}: {message} [{id}]'", \
	  "**/*.c,**/*.h,**/*.cc,**/*.cpp,**/*.cxx,**/*.hpp", true)

enum linter {
#define LINTER_ENUM(id, name, format, command, patterns, err) id,
	LINTERS(LINTER_ENUM)
#undef LINTER_ENUM
	LINTER_COUNT
};

const char *linter_name(enum linter linter);
/* From a name ("ruff"; a signal's tool), or -1. */
int linter_of_name(const char *name);

struct config;

/*
 * The command a linter runs with: git config revline.lint.NAME when set
 * (*user true), else revline's own; NULL when out of memory. Whether its
 * program is on PATH (a user's command is taken as given).
 */
char *linter_command(struct config *config, enum linter linter, bool *user);
bool linter_installed(const char *command);

enum lint_status {
	LINT_PENDING,
	LINT_RUNNING,
	LINT_DONE,              /* it ran; its signals are read (problems may be listed) */
	LINT_NOT_INSTALLED,     /* its program is not on PATH */
	LINT_NO_FILES,          /* none of the files is for it */
	LINT_FAILED,            /* it could not start, died, or said nothing readable */
	LINT_TIMEOUT,
};

struct lint_result {
	enum linter linter;
	enum lint_status status;
	char *command;          /* as run (the files not included) */
	size_t nfiles;
	int exit_code;          /* -1 when it did not exit by itself */
	char *message;          /* why it failed; NULL when it ran */
	struct signal_list signals;
	int64_t duration_ms;
};

struct lint;

/*
 * A lint of files (relative to workdir) by every installed linter they
 * concern (flake8 only when ruff is not installed), or only by the linter
 * named (which must then be installed). config may be NULL.
 */
int lint_new(struct lint **out, const char *workdir, struct config *config,
	     const char *const *files, size_t nfiles, const char *only);
void lint_free(struct lint *lint);
/*
 * Start the processes; a linter that cannot start is LINT_FAILED, the
 * others go on. Their pipes join group (poll_group.h; NULL: its own).
 */
int lint_start(struct lint *lint, struct poll_group *group);
/* Wait up to max_ms for its processes alone (not the rest of its group) and step them. */
int lint_wait(struct lint *lint, int max_ms);
bool lint_done(const struct lint *lint);
/* Stop the processes still running (killed; their results are LINT_FAILED). */
void lint_cancel(struct lint *lint);
size_t lint_count(const struct lint *lint);
const struct lint_result *lint_result(const struct lint *lint, size_t index);

struct store;

/*
 * Keep a tool's signals: a new signal_runs row (source "import" or "run",
 * origin a path or a command) and its signals, whose ids are set in list.
 * repo is the working tree's path (history_repo_key is applied).
 */
int lint_store(int64_t *run_id, struct store *store, const char *repo, const char *tool,
	       const char *source, const char *origin, struct signal_list *list);

/*
 * Keep an import: one run per tool the list names (a SARIF file may hold
 * several); *count is how many runs were stored. An empty list is stored
 * as a run of tool (NULL: the format's tool), which then has no signals.
 */
int lint_import(size_t *count, struct store *store, const char *repo, const char *origin,
		const char *tool, struct signal_list *list);

/* The repository's current signals (each tool's latest run), by file and line. */
int lint_current(struct signal_list *out, struct store *store, const char *repo);
/* One stored signal of the repository by id; RL_ENOTFOUND names it. */
int lint_signal(struct signal *out, struct store *store, const char *repo, int64_t id);

#endif
