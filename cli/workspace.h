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

/* Open everything; on failure nothing stays open and error_message() says why. */
int workspace_load(struct workspace *ws);
/* The same, printing what is wrong and returning 2; 0 when everything is open. */
int workspace_open(struct workspace *ws);
void workspace_close(struct workspace *ws);

#endif
