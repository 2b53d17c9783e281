#ifndef REVLINE_STANDARDS_H
#define REVLINE_STANDARDS_H

#include <stdbool.h>

#include "array.h"

/*
 * The standards a team already wrote for its coding agents, read from the
 * working tree as the project's conventions: AGENTS.md, CLAUDE.md,
 * .cursorrules, the .mdc files of .cursor/rules and .github/copilot-instructions.md.
 * The check gives them to every reviewer as context, in the shared part of
 * the prompt (so the providers' prompt caches keep working); off with
 * revline.projectStandards=false. Bounded: each file at most 16 KB (cut),
 * all of them at most 32 KB, at most 20 rule files of .cursor/rules; a
 * file that is not a regular file of the working tree (a link out of it, a
 * FIFO) is left out and named in problems.
 */
struct repo;
struct config;

struct standards {
	struct strings files;   /* the paths read, in the order given */
	struct strings problems;        /* what was left out or cut, one sentence each */
	char *text;             /* each file under a "## path" heading, or NULL when none */
};

int standards_read(struct standards *out, struct repo *repo);
void standards_release(struct standards *s);
/* revline.projectStandards (default true). */
int standards_enabled(bool *out, struct config *config);

#endif
