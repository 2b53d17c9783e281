/*
 * libFuzzer target: the model table's parser over arbitrary bytes, then a
 * lookup of a few names. Nothing may crash, read out of bounds or leak;
 * every row kept must be well formed and within the table's bounds, and
 * every problem must name the table and a line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_row(const struct model_info *row)
{
	if (!row->pattern || !row->provider || row->line < 1 || !row->path)
		abort();
	if ((unsigned)row->max_param > MODEL_MAX_COMPLETION_TOKENS ||
	    (unsigned)row->structured > MODEL_STRUCTURED_JSON_SCHEMA)
		abort();
	if (row->context_window < 0 || row->cache_min < 0 || row->price_input >= 1e7 ||
	    row->price_cached >= 1e7 || row->price_output >= 1e7)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "gpt-5-mini", "openai/o3", "Qwen2.5:7B", "", "x" };
	struct models *m;
	const struct model_info *info;
	size_t i;

	if (size > MODELS_FILE_MAX || !(m = calloc(1, sizeof(*m))))
		return 0;
	if (models_parse(m, (const char *)data, size, "fuzz.tsv") < 0)
		abort();
	if (m->count > MODELS_ROWS_MAX || m->nproblems > MODELS_PROBLEMS_MAX)
		abort();
	for (i = 0; i < m->count; i++)
		check_row(&m->rows[i]);
	for (i = 0; i < m->nproblems; i++)
		if (strncmp(m->problems[i], "fuzz.tsv:", 9))
			abort();
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		models_lookup(&info, m, i % 2 ? "anthropic" : "openai", names[i]);
		if (!info)
			abort();
		if (info != &models_default)
			check_row(info);
	}
	models_free(m);
	return 0;
}
