#ifndef REVLINE_CONFIG_H
#define REVLINE_CONFIG_H

#include "repo.h"

#include <stdbool.h>

/*
 * Settings: git config ([revline] in ~/.gitconfig or the repository's
 * config), a .revline file in git-config syntax at the repository's root,
 * then environment variables, which win. X(git config key, environment).
 */
#define CONFIG_KEYS(X) \
	X("revline.theme",    "REVLINE_THEME") \
	X("revline.db",       "REVLINE_DB") \
	X("revline.provider", "REVLINE_PROVIDER") \
	X("revline.baseUrl",  "REVLINE_BASE_URL") \
	X("revline.model",    "REVLINE_MODEL") \
	X("revline.concurrency", "REVLINE_CONCURRENCY") \
	X("revline.timeout",  "REVLINE_TIMEOUT") \
	X("revline.retries",  "REVLINE_RETRIES")

struct config;

/* repo may be NULL (outside a repository: global config only). */
int config_open(struct config **out, struct repo *repo);
void config_free(struct config *config);

/* A setting as a new string, or RL_ENOTFOUND when it is not set. */
int config_get(char **out, struct config *config, const char *key);

/*
 * A number setting: RL_ENOTFOUND when it is not set, RL_ECONFIG (naming
 * the key and where to change it) when it is not a number from min to max.
 */
int config_get_number(double *out, struct config *config, const char *key, double min, double max);
int config_get_integer(long *out, struct config *config, const char *key, long min, long max);
/* true, yes, on, 1 or false, no, off, 0, in any case. */
int config_get_bool(bool *out, struct config *config, const char *key);

#endif
