#ifndef REVLINE_BENCH_CONFIG_H
#define REVLINE_BENCH_CONFIG_H

#include "buf.h"
#include "check.h"
#include "llm.h"

/*
 * A configuration the benchmark runs with, written as the user writes it
 * on the command line: "model=gpt-5-mini,context=pack,effort=low" (keys
 * model, context: tools, pack or none, effort: the reasoning effort,
 * provider: openai or anthropic, url: the provider's base URL; each at
 * most once; spaces around them ignored). What it does not name is the
 * configured setting; another provider comes with its own URL, default
 * model and key.
 */
struct bench_config {
	char model[128];        /* "" : the configured one */
	char effort[32];
	char url[256];          /* "": the configured one (or the provider's own) */
	int context;            /* enum context_mode, or -1 */
	int provider;           /* enum provider, or -1 */
};

/* RL_EUSAGE naming the key or value that is wrong and what is allowed. */
int bench_config_parse(struct bench_config *out, const char *spec);

/*
 * The configuration applied over the settings: the provider (its key read
 * from settings), the base URL, the map and reduce model, the effort, the
 * context.
 */
int bench_config_apply(const struct bench_config *cfg, struct llm_config *llm, struct check_options *opts,
		       struct config *settings);

/*
 * What identifies a configuration's results, from the settings it ends
 * in: "provider=openai model=gpt-5-mini context=pack effort=default
 * rules=a+b rule-dirs=DIR" (the rules' ids when --rule chose them, else
 * "all"; url= after the provider when cfg (NULL: none) names one; the
 * rule directories and --no-builtin when given).
 */
int bench_config_key(struct buf *out, const struct bench_config *cfg, const struct llm_config *llm,
		     const struct check_options *opts);

#endif
