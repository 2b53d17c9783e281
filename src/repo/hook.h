#ifndef REVLINE_HOOK_H
#define REVLINE_HOOK_H

#include <stdbool.h>

#include "buf.h"

/*
 * revline as a git hook: a pre-push hook that reviews what is pushed (the
 * ranges git gives on its standard input), or a pre-commit hook that
 * reviews the index, each refusing on a finding at the chosen severity or
 * worse. Hooks go where git runs them: core.hooksPath (relative to the
 * working tree) or the git directory's hooks/, and never outside the
 * repository. A hook that is not revline's is left alone, unless forced:
 * then it is kept beside revline's (NAME.revline-chained) and runs first.
 */
struct repo;

enum hook_kind { HOOK_PRE_PUSH, HOOK_PRE_COMMIT };

struct hook_options {
	enum hook_kind kind;
	const char *fail_on;    /* a severity's name or "none" (NULL: major) */
	bool force;             /* keep a foreign hook and run it first */
	const char *program;    /* revline's absolute path (NULL: revline on PATH) */
};

const char *hook_name(enum hook_kind kind);

/* Where git runs the repository's hooks. RL_ECONFIG when that is outside the repository. */
int hook_dir(struct buf *out, struct repo *repo);

/* The hook's script. */
int hook_script(struct buf *out, const struct hook_options *options);

/*
 * Write the hook (its path into path). *chained: a foreign hook was kept
 * to run first. RL_ECONFLICT when a foreign hook is there and not forced.
 */
int hook_install(struct buf *path, bool *chained, struct repo *repo, const struct hook_options *options);

/*
 * Remove revline's hook; a chained one goes back to its place (*restored).
 * RL_ENOTFOUND when there is none, RL_ECONFLICT when the hook is not revline's.
 */
int hook_uninstall(struct buf *path, bool *restored, struct repo *repo, enum hook_kind kind);

#endif
