/* revline check --format json. */
#include "report.h"
#include "commands.h"
#include "utf8.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static json_t *strings_json(char *const *items, size_t n)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(list, utf8_json(items[i]));
	return list;
}

static json_t *evidence_json(const struct evidence *e)
{
	json_t *range = e->range_start || e->range_end ?
		json_pack("[i, i]", e->range_start, e->range_end) : json_null();

	return json_pack("{s:o, s:o, s:o, s:b, s:o, s:b}", "code_examined", utf8_json(e->code_examined),
			 "line_range_examined", range, "verification_method", utf8_json(e->method),
			 "checked_for_handling_elsewhere", e->checked_elsewhere,
			 "where_checked", utf8_json(e->where_checked), "is_impact_finding", e->impact);
}

json_t *report_json_finding(const struct finding *f)
{
	char *const one[] = { f->rule_id };

	return json_pack("{s:I, s:o, s:o, s:i, s:i, s:s, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:s, s:b, s:o}",
			 "id", (json_int_t)finding_shown_id(f), "rule_id", utf8_json(f->rule_id), "file", utf8_json(f->file),
			 "line", f->line, "end_line", f->end_line, "severity", severity_name(f->severity),
			 "category", utf8_json(f->category), "title", utf8_json(f->title), "issue", utf8_json(f->issue),
			 "suggestion", utf8_json(f->suggestion), "verified", f->verified,
			 "verify_note", utf8_json(f->verify_note), "evidence", evidence_json(&f->evidence),
			 "from_rules", f->nfrom ? strings_json(f->from_rules, f->nfrom) : strings_json(one, 1),
			 "fingerprint", f->fingerprint, "suppressed", f->suppressed,
			 "suppressed_by", utf8_json(f->suppressed_by));
}

/* What tokens_in and tokens_out leave out: cached tokens, cache writes, the cost (null: not known). */
static void usage_set(json_t *object, long cached, long cache_write, double cost_usd)
{
	json_object_set_new(object, "tokens_cached", json_integer(cached));
	json_object_set_new(object, "tokens_cache_write", json_integer(cache_write));
	json_object_set_new(object, "cost_usd", cost_usd >= 0 ? json_real(cost_usd) : json_null());
}

static json_t *rules_json(const struct check *check)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < check_nresults(check); i++) {
		const struct rule_result *r = check_result(check, i);

		json_array_append_new(list, json_pack("{s:o, s:o, s:s, s:b, s:i, s:I, s:o, s:I, s:I, s:s, s:I, s:I, s:I}",
			"id", utf8_json(r->rule->id), "path", utf8_json(r->rule->path), "status", rule_status_name(r->status),
			"cached", r->cached, "attempts", r->attempts, "duration_ms", (json_int_t)r->duration_ms,
			"error", utf8_json(r->error), "findings", (json_int_t)r->nfindings,
			"findings_dropped", (json_int_t)r->findings_dropped,
			"kind", r->rule->kind == RULE_LOCAL ? "local" : "llm",
			"tokens_in", (json_int_t)r->tokens_in, "tokens_out", (json_int_t)r->tokens_out,
			"timeout_ms", (json_int_t)r->timeout_ms));
		usage_set(json_array_get(list, i), r->tokens_cached, r->tokens_cache_write, r->cost_usd);
		report_json_rule_context(json_array_get(list, i), r);
	}
	return list;
}

static json_t *findings_json(const struct check *check, const struct report_options *o)
{
	const struct report *rep = check_report(check);
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < rep->nfindings; i++)
		if (report_shows(&rep->findings[i], o))
			json_array_append_new(list, report_json_finding(&rep->findings[i]));
	return list;
}

/* What the check left out or cut, one sentence each. */
static json_t *notes_json(const struct check *check)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; list && i < check_nnotes(check); i++)
		json_array_append_new(list, utf8_json(check_note(check, i)));
	return list;
}

static json_t *side_json(const char *label, const char *oid)
{
	return json_pack("{s:o, s:o}", "label", utf8_json(label), "oid", *oid ? utf8_json(oid) : json_null());
}

/* "incomplete": "8 of 14 rules did not run: review incomplete" (null when every rule ran), and the count. */
static void incomplete_set(json_t *doc, const struct check *check)
{
	struct buf text = BUF_INIT;
	size_t total, n = check_not_run(check, &total);

	check_incomplete_text(&text, check);
	json_object_set_new(doc, "incomplete", n && text.ptr ? json_string(text.ptr) : json_null());
	json_object_set_new(doc, "rules_not_run", json_integer((json_int_t)n));
	buf_release(&text);
}

/*
 * "in_progress": what git had in progress when the change was taken from
 * the working tree or the index ("merge", "rebase", "cherry-pick",
 * "revert", "am", "bisect"; null when nothing, or for a range), and
 * "unmerged": its unmerged paths with their kind ("UU", "AA", "DU", ...)
 * and whether their working-tree text was reviewed.
 */
void report_json_state(json_t *doc, const struct diff *diff)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; list && i < diff->nfiles; i++) {
		const struct diff_file *f = &diff->files[i];

		if (f->conflict)
			json_array_append_new(list, json_pack("{s:o, s:s, s:b}", "path", utf8_json(f->path),
							      "kind", diff_conflict_code(f->conflict),
							      "reviewed", diff->unmerged_text));
	}
	json_object_set_new(doc, "in_progress", diff->in_progress ? json_string(diff->in_progress) : json_null());
	json_object_set_new(doc, "unmerged", list);
}

json_t *report_json_doc(const struct check *check, const struct repo *repo, const struct target *target,
			const struct report_options *o)
{
	const struct report *rep = check_report(check);
	const struct check_stats *st = check_stats(check);
	json_t *doc = json_pack("{s:I, s:s, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:s, s:b, s:o, s:{s:I, s:I, s:I, s:I}}",
		"check_id", (json_int_t)check_id(check), "status", check_status(check),
		"repo", utf8_json(repo->name), "branch", utf8_json(repo->branch),
		"base", side_json(target->base_label, target->base_oid),
		"head", side_json(target->head_label, target->head_oid),
		"target", utf8_json(target->description),
		"duration_ms", (json_int_t)check_duration_ms(check),
		"rules", rules_json(check), "findings", findings_json(check, o),
		"summary", utf8_json(rep->summary),
		"overall_severity", rep->overall_severity ? rep->overall_severity : "clean",
		"synthesized", rep->synthesized,
		"must_fix", strings_json(rep->must_fix, rep->nmust_fix),
		"stats", "requests", (json_int_t)st->requests, "cache_hits", (json_int_t)st->cache_hits,
		"tokens_in", (json_int_t)st->tokens_in, "tokens_out", (json_int_t)st->tokens_out);

	if (!doc)
		return NULL;
	usage_set(json_object_get(doc, "stats"), st->tokens_cached, st->tokens_cache_write, st->cost_usd);
	report_json_state(doc, check_diff(check));
	if (rep->fallback_reason)
		json_object_set_new(doc, "reduce_fallback", utf8_json(rep->fallback_reason));
	if (o->fixes)
		json_object_set_new(doc, "fix_detection", detect_fixes_json(o->fixes));
	json_object_set_new(doc, "dependencies", report_json_deps(check));
	json_object_set_new(doc, "timeout", report_json_timeout(check));
	json_object_set_new(doc, "context", report_json_context(check));
	json_object_set_new(doc, "notes", notes_json(check));
	json_object_set_new(doc, "untracked_not_reviewed", json_integer((json_int_t)check_untracked(check)));
	/* The results reach the output either way; these say whether they are also kept. */
	json_object_set_new(doc, "stored", json_boolean(check_stored(check)));
	json_object_set_new(doc, "store_error", utf8_json(check_store_error(check)));
	incomplete_set(doc, check);
	json_object_set_new(doc, "unverified_hidden",
			    json_integer((json_int_t)(o->show_unverified ? 0 : check_unverified(check))));
	return doc;
}

int report_json(FILE *out, const struct check *check, const struct repo *repo,
		const struct target *target, const struct report_options *o)
{
	json_t *doc = report_json_doc(check, repo, target, o);
	int rc;

	if (!doc)
		return -1;
	rc = json_dumpf(doc, out, JSON_INDENT(2)) == 0 && fputc('\n', out) != EOF ? 0 : -1;
	json_decref(doc);
	return rc;
}
