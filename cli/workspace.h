#ifndef REVLINE_WORKSPACE_H
#define REVLINE_WORKSPACE_H

#include "llm.h"

/*
 * What the signal and fix commands work in: the repository (it must have
 * a working tree: fixes are written there), its settings, the LLM and the
 * database.
 */
struct workspace {
	struct repo *repo;
	struct config *config;
	struct llm_config llm;
	struct store *store;
	const char *workdir;
};

/* Prints what is wrong and returns 2; 0 when everything is open. */
int workspace_open(struct workspace *ws);
void workspace_close(struct workspace *ws);

#endif
