#ifndef REVLINE_CONFIG_H
#define REVLINE_CONFIG_H

#include "array.h"
#include "repo.h"
#include "trust.h"

#include <stdbool.h>

/*
 * Settings: the user's git config ([revline] in the system, global and XDG
 * files and the repository's .git/config, which is not committed), a
 * .revline file in git-config syntax at the working tree's root, then
 * environment variables, which win.
 *
 * A .revline comes with the repository, so whoever wrote the branch wrote
 * it. Every key revline reads is classified here by what such a file may
 * do with it: X(git config key, environment variable or NULL, class). A key
 * ending in ".*" stands for every key under it. config_get refuses a key
 * that is not in this table, so a new setting is classified before it can
 * be read.
 *
 *   CONFIG_HARMLESS  counts from any .revline: it sends nothing anywhere
 *                    new, runs nothing and names no file.
 *   CONFIG_NAME      counts from any .revline as a plain name (no '/'),
 *                    which is looked up in revline's own folders; as a path
 *                    it counts only from a trusted .revline.
 *   CONFIG_SENSITIVE sends data (where, or what), runs a command or names
 *                    a path: counts only from the user's own git config,
 *                    the environment, or a .revline the user trusted
 *                    (`revline trust`, trust.h) as it is now.
 *   CONFIG_IDENTITY  who the user is (the author a team's store records):
 *                    never from a .revline, trusted or not, so that no
 *                    branch can write in someone else's name.
 *
 * The models are sensitive: behind a router (OpenRouter, LiteLLM, a
 * company gateway) the model's name picks the upstream provider that gets
 * the code, and it picks what the user pays.
 */
#define CONFIG_KEYS(X) \
	X("revline.theme",         "REVLINE_THEME",       CONFIG_NAME) \
	X("revline.concurrency",   "REVLINE_CONCURRENCY", CONFIG_HARMLESS) \
	X("revline.timeout",       "REVLINE_TIMEOUT",     CONFIG_HARMLESS) \
	X("revline.retries",       "REVLINE_RETRIES",     CONFIG_HARMLESS) \
	X("revline.deadline",      "REVLINE_DEADLINE",    CONFIG_HARMLESS) \
	X("revline.ceiling",       NULL,                  CONFIG_HARMLESS) \
	X("revline.stream",        NULL,                  CONFIG_HARMLESS) \
	X("revline.warmCache",     NULL,                  CONFIG_HARMLESS) \
	X("revline.tokenBudget",   NULL,                  CONFIG_HARMLESS) \
	X("revline.confirmTokens", NULL,                  CONFIG_HARMLESS) \
	X("revline.reduce",        NULL,                  CONFIG_HARMLESS) \
	X("revline.jsonMode",      NULL,                  CONFIG_HARMLESS) \
	X("revline.maxTokens",     NULL,                  CONFIG_HARMLESS) \
	X("revline.reasoningEffort", NULL,                CONFIG_HARMLESS) \
	X("revline.builtinRules",  NULL,                  CONFIG_HARMLESS) \
	X("revline.allowPartial",  NULL,                  CONFIG_SENSITIVE) \
	X("revline.db",            "REVLINE_DB",          CONFIG_SENSITIVE) \
	X("revline.provider",      "REVLINE_PROVIDER",    CONFIG_SENSITIVE) \
	X("revline.baseUrl",       "REVLINE_BASE_URL",    CONFIG_SENSITIVE) \
	X("revline.apiKeyCommand", NULL,                  CONFIG_SENSITIVE) \
	X("revline.model",         "REVLINE_MODEL",       CONFIG_SENSITIVE) \
	X("revline.mapModel",      NULL,                  CONFIG_SENSITIVE) \
	X("revline.reduceModel",   NULL,                  CONFIG_SENSITIVE) \
	X("revline.advisories",    NULL,                  CONFIG_SENSITIVE) \
	X("revline.osvUrl",        "REVLINE_OSV_URL",     CONFIG_SENSITIVE) \
	X("revline.ignore",        NULL,                  CONFIG_SENSITIVE) \
	X("revline.projectStandards", NULL,               CONFIG_SENSITIVE) \
	X("revline.lint.*",        NULL,                  CONFIG_SENSITIVE) \
	X("revline.ctags",         NULL,                  CONFIG_SENSITIVE) \
	X("revline.context",       "REVLINE_CONTEXT",     CONFIG_SENSITIVE) \
	X("revline.contextTokens", NULL,                  CONFIG_SENSITIVE) \
	X("user.email",            "GIT_AUTHOR_EMAIL",    CONFIG_IDENTITY)

enum config_class {
	CONFIG_HARMLESS,
	CONFIG_NAME,
	CONFIG_SENSITIVE,
	CONFIG_IDENTITY,
};

struct config;

/*
 * repo may be NULL (outside a repository: the user's config only). A
 * .revline that is not a regular file (a symbolic link, a FIFO) or is
 * larger than CONFIG_REVLINE_MAX is not read (config_revline says why); one
 * that is not valid git config is RL_ECONFIG, naming the file.
 */
int config_open(struct config **out, struct repo *repo);
void config_free(struct config *config);

#define CONFIG_REVLINE_MAX (64 * 1024)

/* The working tree's .revline as config_open found it, for the front ends to say. */
struct config_revline {
	char *path;                   /* its real path; NULL when there is none */
	char hash[TRUST_HASH_SIZE];   /* the SHA-256 of its content */
	enum trust_state trust;
	/*
	 * The keys it sets that count only while it is trusted, in the order
	 * of the file ("revline.baseUrl, revline.lint.ruff"); NULL when none.
	 * Unless trust is TRUST_TRUSTED, they are ignored.
	 */
	char *sensitive;
	/* Why it was not read at all ("... is a symbolic link ..."); NULL when it was. */
	char *unread;
};

/* NULL when there is no .revline (or outside a repository, or for a NULL config). */
const struct config_revline *config_revline(const struct config *config);
/*
 * What the user should hear of the settings, in one line (no newline), or
 * nothing (out left empty): why the working tree's .revline was not read,
 * or which of its keys wait for `revline trust`; then the first key of
 * config_unknown (and how many more). The front ends say it once.
 */
int config_revline_note(struct buf *out, const struct config *config);

/*
 * The keys set that revline does not read, one message each, which names
 * where (the file and line; "a file included from FILE" as libgit2 does
 * not say which): a revline.* key that is not in CONFIG_KEYS ("revline.
 * concurency: unknown setting; did you mean revline.concurrency? (set in
 * /home/me/.gitconfig:12)"; the subsection is compared as written, so
 * [revline "Lint"] is not [revline "lint"]), and in a .revline a key of
 * another section. Found once, as the config opens; ignored by
 * config_get. Never NULL.
 */
const struct strings *config_unknown(const struct config *config);

/*
 * Where the value config_get takes from a file is set (the .revline's when
 * it counts, else the git config that wins): "FILE:LINE"; RL_ENOTFOUND when
 * no file sets it (the environment is the caller's to say).
 */
int config_where(struct buf *out, struct config *config, const char *key);

/* The keys set that begin with prefix ("revline.lint."), each once, the .revline's too. */
int config_keys_under(struct strings *out, struct config *config, const char *prefix);

/* Where the working tree's .revline is (or would be): its real path. */
int config_revline_path(struct buf *out, const struct repo *repo);

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
