#ifndef REVLINE_MODELS_H
#define REVLINE_MODELS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * What each model takes and costs: share/models.tsv (its header explains
 * every column), with the user's own rows from
 * $XDG_CONFIG_HOME/revline/models.tsv tried first. A row's pattern is a
 * glob (glob.h) on the model's name in lower case; the first row that
 * matches the name and the provider wins. A model no row names gets
 * models_default: temperature, max_tokens, JSON mode, no reasoning effort,
 * no price, no tools. The last column (tools) may be left out: rows of
 * eleven columns, written before it, take no tools.
 */

/* Bounds on one file: a bigger file is not read, rows past the cap are not. */
#define MODELS_FILE_MAX (256 * 1024)
#define MODELS_ROWS_MAX 1000
/* Problems kept per table; the rest are counted in the last one. */
#define MODELS_PROBLEMS_MAX 50

/* The values revline.reasoningEffort and a rule's reasoning_effort take. */
#define MODELS_EFFORTS "minimal, low, medium or high"
bool models_effort_known(const char *value);

enum model_max_param {
	MODEL_MAX_TOKENS,               /* "max_tokens" */
	MODEL_MAX_COMPLETION_TOKENS,    /* "max_completion_tokens" (OpenAI's reasoning models) */
};

enum model_structured {
	MODEL_STRUCTURED_NONE,          /* no response_format: the prompt asks for JSON */
	MODEL_STRUCTURED_JSON_OBJECT,   /* response_format json_object */
	MODEL_STRUCTURED_JSON_SCHEMA,   /* json_schema (Anthropic: a forced tool's input_schema) */
};

struct glob;

struct model_info {
	char *pattern;
	struct glob *glob;              /* the pattern compiled, when the row was read */
	char *provider;                 /* "openai", "anthropic" or "any" */
	bool temperature;               /* false: only the default is accepted, send none */
	enum model_max_param max_param;
	enum model_structured structured;
	bool reasoning_effort;          /* takes reasoning_effort */
	bool tools;                     /* takes tools (function calling, tool use): the column
					 * after the prices, "no" when a row leaves it out */
	long context_window;            /* tokens; 0 when not known */
	long cache_min;                 /* the shortest prefix cached, tokens; 0 when not known */
	/* USD per million tokens; negative when not known. */
	double price_input, price_cached, price_output;
	const char *path;               /* where the row was read ("built-in" for the default) */
	int line;
};

struct models {
	struct model_info *rows;
	size_t count, alloc;
	/* "path:line: message" for each row left out, in file order. */
	char **problems;
	size_t nproblems;
	size_t problems_alloc;
	size_t dropped;                 /* problems past MODELS_PROBLEMS_MAX */
	char **paths;                   /* the tables read (the rows' path) */
	size_t npaths;
	size_t paths_alloc;
};

/*
 * Append the rows of one table's text. A bad row is recorded as a problem
 * naming path:line and skipped; the others still count. Returns 0 unless
 * memory ran out.
 */
int models_parse(struct models *m, const char *text, size_t len, const char *path);

/*
 * The user's table, then revline's, into a new set. A table that is not
 * there is no problem; one that cannot be read or is too big is. Returns 0
 * unless memory ran out.
 */
int models_load(struct models **out);
void models_free(struct models *m);

/*
 * The first row for this provider ("openai", "anthropic") whose pattern
 * matches the model, or models_default when none does (m may be NULL).
 * Always 0.
 */
int models_lookup(const struct model_info **out, const struct models *m, const char *provider,
		  const char *model);

/*
 * What a request billed, in USD, at the row's prices: the uncached input
 * (tokens_in less the cached tokens and the cache writes, which tokens_in
 * includes) at price_input, tokens read from the prompt cache at
 * price_cached, tokens written to it at 1.25 x price_input, the output at
 * price_output. Negative when a price that is needed (for a count that is
 * not 0) is not known.
 */
double models_cost(const struct model_info *info, long tokens_in, long tokens_cached,
		   long tokens_cache_write, long tokens_out);

/* The row of a model no row names. */
extern const struct model_info models_default;

#endif
