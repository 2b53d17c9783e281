/* revline check --format sarif: SARIF 2.1.0 for code-scanning tools. */
#include "report.h"
#include "pack.h"
#include "utf8.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static json_t *text_of(const char *s)
{
	return json_pack("{s:o}", "text", utf8_json(s ? s : ""));
}

/* A path in a URI: reserved and non-ASCII bytes escaped. */
static void uri_escape(struct buf *uri, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p;

	for (p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p)) {
			buf_putc(uri, (char)*p);
		} else {
			char esc[3] = { '%', hex[*p >> 4], hex[*p & 15] };

			buf_put(uri, esc, 3);
		}
	}
}

static json_t *uri_of(const char *prefix, const char *path)
{
	struct buf uri = BUF_INIT;
	json_t *v;

	buf_puts(&uri, prefix);
	uri_escape(&uri, path);
	v = json_string(uri.ptr ? uri.ptr : "");
	buf_release(&uri);
	return v;
}

static long rule_index(const struct check *check, const char *id)
{
	size_t i;

	for (i = 0; i < check_nresults(check); i++)
		if (!strcmp(check_result(check, i)->rule->id, id))
			return (long)i;
	return -1;
}

static json_t *rules_json(const struct check *check)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; i < check_nresults(check); i++) {
		const struct rule *r = check_result(check, i)->rule;
		json_t *rule = json_pack("{s:s, s:s, s:o, s:{s:s}}", "id", r->id, "name", r->name,
					 "shortDescription", text_of(r->name),
					 "defaultConfiguration", "level", severity_sarif_level(r->severity));

		json_object_set_new(rule, "fullDescription", text_of(r->body));
		json_object_set_new(rule, "properties",
				    json_pack("{s:s, s:s}", "severity", severity_name(r->severity),
					      "kind", r->kind == RULE_LOCAL ? "local" : "llm"));
		json_array_append_new(list, rule);
	}
	return list;
}

static json_t *message_of(const struct finding *f)
{
	struct buf text = BUF_INIT;
	json_t *v;

	buf_printf(&text, "%s", f->title ? f->title : "");
	if (f->issue)
		buf_printf(&text, "%s%s", text.len ? ": " : "", f->issue);
	if (f->suggestion)
		buf_printf(&text, " Suggestion: %s", f->suggestion);
	v = text_of(text.ptr);
	buf_release(&text);
	return v;
}

/* Whether one of the finding's rules (it came from, or was merged from) is the check's rule index. */
static bool finding_rule(const struct check *check, const struct finding *f, size_t index)
{
	const char *id = check_result(check, index)->rule->id;
	size_t i;

	for (i = 0; i < f->nfrom; i++)
		if (!strcmp(f->from_rules[i], id))
			return true;
	return !f->nfrom && f->rule_id && !strcmp(f->rule_id, id);
}

/* The reads of a rule's model (as the JSON report has them) on the finding's files, appended to list. */
static void reads_add(json_t *list, const struct rule_result *res, const struct finding *f)
{
	json_t *rule = json_object();
	struct buf text = BUF_INIT, path = BUF_INIT;
	size_t i;

	if (!rule)
		return;
	report_json_rule_context(rule, res);
	for (i = 0; i < res->nreads; i++) {
		buf_clear(&text);
		if (check_context_read_text(&text, &path, &res->reads[i]) == 0 &&
		    check_context_path_concerns(path.ptr, f))
			json_array_append(list, json_array_get(json_object_get(rule, "reads"), i));
	}
	json_decref(rule);
	buf_release(&text);
	buf_release(&path);
}

/*
 * What the finding's rules were shown of the repository that concerns it:
 * "given" (the first rule's: pack, off, nothing found), "items" (indexes
 * into the run's properties.context.items: the pack's items its rules
 * were given on its file or the files it names), "reads" (their tools'
 * calls on those files). NULL when no rule of it was asked with context.
 */
static json_t *finding_context_json(const struct check *check, const struct finding *f)
{
	struct check_context_view v;
	json_t *items = json_array(), *reads = json_array();
	const char *given = NULL;
	size_t i, r;

	check_context_view(&v, check);
	for (r = 0; r < check_nresults(check); r++)
		if (finding_rule(check, f, r) && check_result(check, r)->context) {
			given = given ? given : check_result(check, r)->context;
			reads_add(reads, check_result(check, r), f);
		}
	for (i = 0; given && v.pack && i < v.pack->count; i++) {
		for (r = 0; r < check_nresults(check) && !(finding_rule(check, f, r) &&
							  check_context_rule_sent(check, r, i)); r++)
			;
		if (r < check_nresults(check) && check_context_item_concerns(check, i, f))
			json_array_append_new(items, json_integer((json_int_t)i));
	}
	if (!given) {
		json_decref(items);
		json_decref(reads);
		return NULL;
	}
	return json_pack("{s:o, s:o, s:o}", "given", utf8_json(given), "items", items ? items : json_array(),
			 "reads", reads ? reads : json_array());
}

static json_t *result_json(const struct check *check, const struct finding *f)
{
	const char *rule = f->nfrom ? f->from_rules[0] : f->rule_id;
	json_t *region = json_pack("{s:i}", "startLine", f->line > 0 ? f->line : 1);
	json_t *result, *props, *context;
	long index = rule_index(check, rule);

	if (f->end_line > f->line)
		json_object_set_new(region, "endLine", json_integer(f->end_line));
	result = json_pack("{s:s, s:s, s:o, s:[{s:{s:{s:o, s:s}, s:o}}], s:{s:s}}",
			   "ruleId", rule, "level", severity_sarif_level(f->severity),
			   "message", message_of(f),
			   "locations", "physicalLocation", "artifactLocation", "uri", uri_of("", f->file),
			   "uriBaseId", "%SRCROOT%", "region", region,
			   "partialFingerprints", "revlineFingerprint/v1", f->fingerprint);
	if (index >= 0)
		json_object_set_new(result, "ruleIndex", json_integer(index));
	/* An impact finding: a problem in code outside the diff, its evidence checked in that file. */
	props = json_pack("{s:s, s:b, s:s?, s:b}", "severity", severity_name(f->severity), "verified", f->verified,
			  "verifyNote", f->verify_note, "impactFinding", f->evidence.impact);
	if (props && (context = finding_context_json(check, f)))
		json_object_set_new(props, "context", context);
	json_object_set_new(result, "properties", props);
	return result;
}

/* What the run's requests billed: the run's property bag (costUsd null when not known). */
static json_t *usage_json(const struct check *check)
{
	const struct check_stats *st = check_stats(check);

	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "requests", (json_int_t)st->requests,
			 "cacheHits", (json_int_t)st->cache_hits, "tokensIn", (json_int_t)st->tokens_in,
			 "tokensCached", (json_int_t)st->tokens_cached,
			 "tokensCacheWrite", (json_int_t)st->tokens_cache_write,
			 "tokensOut", (json_int_t)st->tokens_out,
			 "costUsd", st->cost_usd >= 0 ? json_real(st->cost_usd) : json_null());
}

static void scope_notes(json_t *list, const struct check *check)
{
	size_t i, n = check_untracked(check);
	char text[96];

	for (i = 0; i < check_nnotes(check); i++)
		json_array_append_new(list, json_pack("{s:s, s:{s:s}, s:o}", "level", "note", "descriptor", "id",
						      "scope", "message", text_of(check_note(check, i))));
	if (!n)
		return;
	snprintf(text, sizeof(text), "%zu untracked file%s not reviewed (--untracked)", n, n == 1 ? "" : "s");
	json_array_append_new(list, json_pack("{s:s, s:{s:s}, s:o}", "level", "note", "descriptor", "id",
					      "untracked", "message", text_of(text)));
}

/*
 * What went wrong with the run, said on the invocation as SARIF says it:
 * rules that did not run (also the run's property "incomplete"), results
 * that were not stored, and as notes what the check left out or cut.
 */
static void notifications_set(json_t *doc, const struct check *check)
{
	json_t *run = json_array_get(json_object_get(doc, "runs"), 0);
	json_t *invocation = json_array_get(json_object_get(run, "invocations"), 0);
	json_t *list = json_array();
	struct buf text = BUF_INIT;

	if (!invocation || !list) {
		json_decref(list);
		return;
	}
	if (check_incomplete_text(&text, check) == 0 && text.len) {
		json_object_set_new(json_object_get(run, "properties"), "incomplete", json_string(text.ptr));
		json_object_set_new(invocation, "executionSuccessful", json_false());
		json_array_append_new(list, json_pack("{s:s, s:{s:s}, s:o}", "level", "error", "descriptor", "id",
						      "incomplete", "message", text_of(text.ptr)));
	}
	if (!check_stored(check))
		json_array_append_new(list, json_pack("{s:s, s:{s:s}, s:o}", "level", "error", "descriptor", "id",
						      "store", "message",
						      text_of(check_store_error(check) ? check_store_error(check) :
							      "the results were not stored")));
	scope_notes(list, check);
	if (json_array_size(list))
		json_object_set(invocation, "toolExecutionNotifications", list);
	json_decref(list);
	buf_release(&text);
}

int report_sarif(FILE *out, const struct check *check, const struct repo *repo,
		 const struct report_options *o)
{
	const struct report *rep = check_report(check);
	json_t *results = json_array(), *doc, *root;
	size_t i;
	int rc;

	for (i = 0; i < rep->nfindings; i++)
		if (report_shows(&rep->findings[i], o))
			json_array_append_new(results, result_json(check, &rep->findings[i]));
	root = json_pack("{s:{s:o}}", "%SRCROOT%", "uri",
			 uri_of("file://", repo->workdir ? repo->workdir : repo->gitdir));
	/* No informationUri (it is optional): revline has no page to name. */
	doc = json_pack("{s:s, s:s, s:[{s:{s:{s:s, s:s, s:o}}, s:o, s:o, s:[{s:b}]}]}",
			"$schema", "https://json.schemastore.org/sarif-2.1.0.json", "version", "2.1.0",
			"runs", "tool", "driver", "name", "revline", "version", REVLINE_VERSION, "rules", rules_json(check),
			"results", results, "originalUriBaseIds", root,
			"invocations", "executionSuccessful", strcmp(check_status(check), "failed") != 0);
	if (!doc)
		return -1;
	json_object_set_new(json_array_get(json_object_get(doc, "runs"), 0), "properties", usage_json(check));
	/* What the model was shown of the repository, as the JSON report's "context" says it. */
	json_object_set_new(json_object_get(json_array_get(json_object_get(doc, "runs"), 0), "properties"), "context",
			    report_json_context(check));
	notifications_set(doc, check);
	rc = json_dumpf(doc, out, JSON_INDENT(2)) == 0 && fputc('\n', out) != EOF ? 0 : -1;
	json_decref(doc);
	return rc;
}
