/* A configuration of the benchmark: "model=...,context=...,effort=...", read and applied. */
#include "bench_config.h"
#include "status.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define SPEC_MAX 512

static const char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x21 || *s == 0x7f || *s == ',' || *s == '=')
			return false;
	return true;
}

static int context_parse(int *out, const char *value)
{
	int i;

	for (i = CONTEXT_TOOLS; i <= CONTEXT_NONE; i++)
		if (!strcmp(value, check_context_mode_name((enum context_mode)i))) {
			*out = i;
			return 0;
		}
	return error_set(RL_EUSAGE, "configuration: context takes tools, pack or none, not '%s'", value);
}

static int provider_take(int *out, const char *value)
{
	enum provider p;

	if (!provider_parse(&p, value) || p == PROVIDER_NONE)
		return error_set(RL_EUSAGE, "configuration: provider takes openai or anthropic, not '%s'", value);
	*out = (int)p;
	return 0;
}

static int url_take(char *out, const char *value)
{
	const char *host = strstr(value, "://");

	if (strncmp(value, "http://", 7) && strncmp(value, "https://", 8))
		return error_set(RL_EUSAGE, "configuration: url '%s' is not an http:// or https:// address", value);
	/* The URL goes into the run's key, stored and shown: never a credential. */
	host += 3;
	if (memchr(host, '@', strcspn(host, "/?#")))
		return error_set(RL_EUSAGE, "configuration: url holds a user or password (user:password@host): "
				 "give the key in OPENAI_API_KEY or ANTHROPIC_API_KEY instead");
	strcpy(out, value);
	return 0;
}

static int pair_take(struct bench_config *out, const char *key, const char *value, unsigned *seen)
{
	static const char *const keys[] = { "model", "context", "effort", "provider", "url" };
	size_t i, n = sizeof(keys) / sizeof(keys[0]);

	for (i = 0; i < n && strcmp(key, keys[i]); i++)
		;
	if (i == n)
		return error_set(RL_EUSAGE, "configuration: unknown key '%s' (model, context, effort, provider "
				 "or url: \"model=gpt-5-mini,context=pack\")", key);
	if (*seen & (1u << i))
		return error_set(RL_EUSAGE, "configuration: %s is given twice", key);
	*seen |= 1u << i;
	if (!*value || !printable(value) || strlen(value) >= (i == 4 ? sizeof(out->url) : sizeof(out->model)))
		return error_set(RL_EUSAGE, "configuration: %s needs a value of printable characters "
				 "(at most %zu, no spaces, commas or '='): \"%s=...\"", key,
				 (i == 4 ? sizeof(out->url) : sizeof(out->model)) - 1, key);
	switch (i) {
	case 0:
		strcpy(out->model, value);
		return 0;
	case 1:
		return context_parse(&out->context, value);
	case 2:
		if (strlen(value) >= sizeof(out->effort))
			return error_set(RL_EUSAGE, "configuration: effort '%s' is too long", value);
		strcpy(out->effort, value);
		return 0;
	case 3:
		return provider_take(&out->provider, value);
	default:
		return url_take(out->url, value);
	}
}

int bench_config_parse(struct bench_config *out, const char *spec)
{
	char copy[SPEC_MAX], *save = NULL, *part;
	unsigned seen = 0;
	int error = 0;

	memset(out, 0, sizeof(*out));
	out->context = -1;
	out->provider = -1;
	if (!spec || strlen(spec) >= sizeof(copy))
		return error_set(RL_EUSAGE, "configuration: at most %d characters", SPEC_MAX - 1);
	strcpy(copy, spec);
	for (part = strtok_r(copy, ",", &save); part && !error; part = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(part, '=');

		if (!eq)
			return error_set(RL_EUSAGE, "configuration: '%s' is not key=value (\"model=gpt-5-mini,"
					 "context=pack\")", trim(part));
		*eq = '\0';
		error = pair_take(out, trim(part), trim(eq + 1), &seen);
	}
	if (!error && !seen)
		error = error_set(RL_EUSAGE, "configuration: empty; give model=, context=, effort=, provider= or url=");
	return error;
}

int bench_config_apply(const struct bench_config *cfg, struct llm_config *llm, struct check_options *opts,
		       struct config *settings)
{
	int error = 0;

	if (cfg->provider >= 0 && (enum provider)cfg->provider != llm->provider &&
	    (error = llm_config_switch(llm, (enum provider)cfg->provider, *cfg->url ? cfg->url : NULL, settings)) < 0)
		return error;
	if (*cfg->url && (error = llm_config_set(&llm->base_url, cfg->url)) < 0)
		return error;
	if (*cfg->model && ((error = llm_config_set(&llm->model, cfg->model)) < 0 ||
			    (error = llm_config_set(&llm->map_model, cfg->model)) < 0 ||
			    (error = llm_config_set(&llm->reduce_model, cfg->model)) < 0))
		return error;
	if (*cfg->effort && (error = llm_config_set(&llm->reasoning_effort, cfg->effort)) < 0)
		return error;
	if (cfg->context >= 0)
		opts->context = (enum context_mode)cfg->context;
	return 0;
}

int bench_config_key(struct buf *out, const struct bench_config *cfg, const struct llm_config *llm,
		     const struct check_options *opts)
{
	size_t i;

	if (buf_printf(out, "provider=%s", provider_name(llm->provider)) < 0 ||
	    (cfg && *cfg->url && buf_printf(out, " url=%s", cfg->url) < 0) ||
	    buf_printf(out, " model=%s context=%s effort=%s rules=", llm->map_model ? llm->map_model : "",
		       check_context_mode_name(opts->context),
		       llm->reasoning_effort ? llm->reasoning_effort : "default") < 0)
		return error_nomem();
	for (i = 0; i < opts->nrule_ids; i++)
		if (buf_printf(out, "%s%s", i ? "+" : "", opts->rule_ids[i]) < 0)
			return error_nomem();
	if (!opts->nrule_ids && buf_puts(out, "all") < 0)
		return error_nomem();
	for (i = 0; i < opts->nrule_dirs; i++)
		if (buf_printf(out, "%s%s", i ? "+" : " rule-dirs=", opts->rule_dirs[i]) < 0)
			return error_nomem();
	if (opts->no_builtin && buf_puts(out, " no-builtin") < 0)
		return error_nomem();
	return 0;
}
