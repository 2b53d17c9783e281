/*
 * What a check showed its model of the repository besides the diff (the
 * context pack), in every format: a JSON object, a text line, SARIF's run
 * properties take the JSON object.
 */
#include "report.h"
#include "index.h"
#include "pack.h"
#include "term.h"
#include "utf8.h"

#include <stdio.h>

static json_t *items_json(const struct check *check, const struct pack *pack)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; list && pack && i < pack->count; i++) {
		const struct pack_item *it = &pack->items[i];

		json_array_append_new(list, json_pack("{s:s, s:o, s:o, s:I, s:I, s:I, s:I, s:b}",
			"kind", pack_kind_name(it->kind), "symbol", utf8_json(it->symbol), "path", utf8_json(it->path),
			"first_line", (json_int_t)it->first, "last_line", (json_int_t)it->last,
			"references", (json_int_t)it->sites, "bytes", (json_int_t)it->bytes,
			"sent", check_context_sent(check, i)));
	}
	return list;
}

static json_t *index_json(const struct index_stats *st)
{
	if (!st)
		return json_null();
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I}", "files", (json_int_t)st->files,
			 "blobs", (json_int_t)st->blobs, "from_store", (json_int_t)st->stored,
			 "tagged", (json_int_t)st->tagged, "definitions", (json_int_t)st->defs,
			 "ms", (json_int_t)st->total_ms);
}

json_t *report_json_context(const struct check *check)
{
	struct check_context_view v;

	check_context_view(&v, check);
	return json_pack("{s:s, s:b, s:I, s:I, s:I, s:o, s:o, s:I, s:o}",
		"mode", check_context_mode_name(v.mode), "built", v.built,
		"build_ms", (json_int_t)(v.index_ms + v.pack_ms), "index_ms", (json_int_t)v.index_ms,
		"pack_ms", (json_int_t)v.pack_ms, "index", index_json(v.index), "items", items_json(check, v.pack),
		"left_out", (json_int_t)v.left, "note", utf8_json(v.note));
}

void report_text_context(FILE *out, const struct check *check)
{
	struct check_context_view v;
	size_t i, sent = 0, kinds[3] = { 0 };

	check_context_view(&v, check);
	if (v.mode == CONTEXT_NONE || !v.pack)
		return;
	for (i = 0; i < v.pack->count; i++)
		if (check_context_sent(check, i)) {
			sent++;
			kinds[v.pack->items[i].kind]++;
		}
	fprintf(out, "context: %zu item%s of the repository sent (%zu of callers, %zu functions, %zu definitions), "
		"built in %lld ms", sent, sent == 1 ? "" : "s", kinds[PACK_CALLERS], kinds[PACK_ENCLOSING],
		kinds[PACK_DEFINITION], (long long)(v.index_ms + v.pack_ms));
	if (v.left)
		fprintf(out, "; %zu left out for the budget (revline.contextTokens)", v.left);
	fputc('\n', out);
}

void report_json_rule_context(json_t *rule, const struct rule_result *r)
{
	json_t *reads = json_array();
	size_t i;

	for (i = 0; reads && i < r->nreads; i++)
		json_array_append_new(reads, json_pack("{s:i, s:o, s:o, s:I, s:o, s:o}", "turn", r->reads[i].turn,
			"tool", utf8_json(r->reads[i].tool), "arguments", utf8_json(r->reads[i].arguments),
			"bytes", (json_int_t)r->reads[i].result_bytes, "error", utf8_json(r->reads[i].error),
			"shown", utf8_json(r->reads[i].shown)));
	json_object_set_new(rule, "context", utf8_json(r->context));
	json_object_set_new(rule, "reads", reads ? reads : json_array());
}
