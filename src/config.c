#include "config.h"
#include "status.h"

#include <git2.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

struct config {
	git_config *git;
};

static const struct {
	const char *key;
	const char *env;
} env_keys[] = {
#define CONFIG_ENTRY(key, env) { key, env },
	CONFIG_KEYS(CONFIG_ENTRY)
#undef CONFIG_ENTRY
};

static int add_revline_file(git_config *cfg, struct repo *repo)
{
	struct buf path = BUF_INIT;
	struct stat st;
	int error = 0;

	if (!repo || !repo->workdir)
		return 0;
	if ((error = buf_printf(&path, "%s.revline", repo->workdir)) < 0)
		return error;
	if (stat(path.ptr, &st) == 0 && S_ISREG(st.st_mode) &&
	    git_config_add_file_ondisk(cfg, path.ptr, GIT_CONFIG_LEVEL_APP, NULL, 0) < 0) {
		const git_error *e = git_error_last();

		error = error_set(RL_ECONFIG, "%s: %s", path.ptr, e && e->message ? e->message : "bad config file");
	}
	buf_release(&path);
	return error;
}

static int add_repo_config(git_config *cfg, struct repo *repo)
{
	git_buf path = { 0 };
	struct stat st;
	int rc = 0;

	if (git_repository_item_path(&path, repo->git, GIT_REPOSITORY_ITEM_CONFIG) == 0 &&
	    stat(path.ptr, &st) == 0)
		rc = git_config_add_file_ondisk(cfg, path.ptr, GIT_CONFIG_LEVEL_LOCAL, repo->git, 0);
	git_buf_dispose(&path);
	return rc;
}

int config_open(struct config **out, struct repo *repo)
{
	struct config *config = calloc(1, sizeof(*config));
	int error = 0, rc;

	*out = NULL;
	if (!config)
		return error_nomem();
	git_libgit2_init();
	/* A config of our own, so that .revline never changes how libgit2 treats the repository. */
	rc = git_config_open_default(&config->git);
	if (rc == 0 && repo)
		rc = add_repo_config(config->git, repo);
	if (rc < 0) {
		const git_error *e = git_error_last();

		error = error_set(RL_ECONFIG, "cannot read git config: %s", e && e->message ? e->message : "");
		goto done;
	}
	if ((error = add_revline_file(config->git, repo)) < 0)
		goto done;
	*out = config;
	config = NULL;
done:
	config_free(config);
	return error;
}

void config_free(struct config *config)
{
	if (!config)
		return;
	git_config_free(config->git);
	free(config);
	git_libgit2_shutdown();
}

int config_get(char **out, struct config *config, const char *key)
{
	git_buf value = { 0 };
	size_t i;

	*out = NULL;
	for (i = 0; i < sizeof(env_keys) / sizeof(env_keys[0]); i++) {
		const char *env = getenv(env_keys[i].env);

		if (!strcmp(env_keys[i].key, key) && env && *env) {
			*out = strdup(env);
			return *out ? 0 : error_nomem();
		}
	}
	if (!config || git_config_get_string_buf(&value, config->git, key) < 0)
		return RL_ENOTFOUND;
	*out = strdup(value.ptr);
	git_buf_dispose(&value);
	return *out ? 0 : error_nomem();
}

static const char *env_of(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(env_keys) / sizeof(env_keys[0]); i++)
		if (!strcmp(env_keys[i].key, key))
			return env_keys[i].env;
	return "";
}

static int get_number(double *out, struct config *config, const char *key, double min, double max,
		      bool integer)
{
	char *value = NULL, *end;
	int error;

	*out = 0;
	if ((error = config_get(&value, config, key)) < 0)
		return error;
	*out = strtod(value, &end);
	if (end == value || *end || !(*out >= min && *out <= max) || (integer && *out != (long)*out))
		error = error_set(RL_ECONFIG, "%s is '%s': it takes %s from %g to %g "
				  "(git config %s, or %s in the environment)", key, value,
				  integer ? "a whole number" : "a number", min, max, key, env_of(key));
	free(value);
	return error;
}

int config_get_number(double *out, struct config *config, const char *key, double min, double max)
{
	return get_number(out, config, key, min, max, false);
}

int config_get_integer(long *out, struct config *config, const char *key, long min, long max)
{
	double d;
	int error = get_number(&d, config, key, (double)min, (double)max, true);

	*out = error < 0 ? 0 : (long)d;
	return error;
}

int config_get_bool(bool *out, struct config *config, const char *key)
{
	static const char *const yes[] = { "true", "yes", "on", "1" }, *const no[] = { "false", "no", "off", "0" };
	char *value = NULL;
	size_t i;
	int error;

	*out = false;
	if ((error = config_get(&value, config, key)) < 0)
		return error;
	error = RL_ECONFIG;
	for (i = 0; i < 4 && error; i++) {
		if (!strcasecmp(value, yes[i]))
			*out = true, error = 0;
		else if (!strcasecmp(value, no[i]))
			error = 0;
	}
	if (error)
		error = error_set(RL_ECONFIG, "%s is '%s': it takes true or false (git config %s)",
				  key, value, key);
	free(value);
	return error;
}
