#include "answer.h"
#include "llm.h"
#include "status.h"

#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static char *str_of(json_t *v)
{
	if (json_is_string(v))
		return strdup(json_string_value(v));
	return NULL;
}

/* A line number given as a number or as digits in a string. */
static int int_of(json_t *v)
{
	if (json_is_integer(v))
		return json_integer_value(v) > 0 && json_integer_value(v) < INT32_MAX ?
			(int)json_integer_value(v) : 0;
	if (json_is_real(v))
		return json_real_value(v) > 0 && json_real_value(v) < INT32_MAX ? (int)json_real_value(v) : 0;
	if (json_is_string(v))
		return atoi(json_string_value(v)) > 0 ? atoi(json_string_value(v)) : 0;
	return 0;
}

static bool bool_of(json_t *v)
{
	if (json_is_string(v))
		return !strcasecmp(json_string_value(v), "true") || !strcasecmp(json_string_value(v), "yes");
	return json_is_true(v);
}

/* The first of several keys that is present (models vary in naming). */
static json_t *get_any(json_t *obj, const char *const *keys)
{
	json_t *v;

	for (; *keys; keys++)
		if ((v = json_object_get(obj, *keys)) && !json_is_null(v))
			return v;
	return NULL;
}

#define GET(obj, ...) get_any(obj, (const char *const[]){ __VA_ARGS__, NULL })

static void evidence_from(struct evidence *ev, json_t *v)
{
	json_t *range;

	if (!json_is_object(v))
		return;
	ev->code_examined = str_of(GET(v, "code_examined", "code", "snippet"));
	range = GET(v, "line_range_examined", "line_range");
	if (json_is_array(range) && json_array_size(range) >= 2) {
		ev->range_start = int_of(json_array_get(range, 0));
		ev->range_end = int_of(json_array_get(range, 1));
	}
	ev->method = str_of(GET(v, "verification_method", "method", "verification_reasoning"));
	ev->checked_elsewhere = bool_of(GET(v, "checked_for_handling_elsewhere"));
	ev->where_checked = str_of(GET(v, "where_checked"));
	ev->impact = bool_of(GET(v, "is_impact_finding"));
}

/* "./a/src/x.c" or "b/src/x.c" as models write paths: the repository path. */
static char *clean_path(const char *path)
{
	while (!strncmp(path, "./", 2))
		path += 2;
	return strdup(path);
}

static int finding_from(struct finding *f, json_t *v, const struct rule *rule)
{
	json_t *file = GET(v, "file", "path", "filename");

	memset(f, 0, sizeof(*f));
	if (!json_is_object(v) || !json_is_string(file) || !*json_string_value(file))
		return error_set(RL_EPARSE, "a finding has no \"file\"");
	f->file = clean_path(json_string_value(file));
	f->rule_id = strdup(rule->id);
	f->line = int_of(GET(v, "line", "start_line", "line_number"));
	f->end_line = int_of(GET(v, "end_line", "endLine"));
	if (f->end_line < f->line)
		f->end_line = f->line;
	if (!json_is_string(GET(v, "severity")) ||
	    !severity_parse(&f->severity, json_string_value(GET(v, "severity"))))
		f->severity = rule->severity;
	f->category = str_of(GET(v, "category"));
	if (!f->category && rule->category)
		f->category = strdup(rule->category);
	f->issue = str_of(GET(v, "issue", "description", "message"));
	f->title = str_of(GET(v, "title"));
	if (!f->title)
		f->title = strdup(rule->name);
	f->suggestion = str_of(GET(v, "suggestion", "suggested_fix", "fix"));
	evidence_from(&f->evidence, GET(v, "verification", "evidence"));
	if (!f->evidence.code_examined)
		f->evidence.code_examined = str_of(GET(v, "snippet", "code_examined", "code"));
	if (!f->file || !f->rule_id || !f->title)
		return error_nomem();
	return 0;
}

static int findings_from(struct map_answer *a, json_t *list, const struct rule *rule)
{
	size_t i;
	int error;

	if (!json_array_size(list))
		return 0;
	if (!(a->findings = calloc(json_array_size(list), sizeof(*a->findings))))
		return error_nomem();
	for (i = 0; i < json_array_size(list); i++) {
		if ((error = finding_from(&a->findings[a->nfindings], json_array_get(list, i), rule)) < 0) {
			finding_release(&a->findings[a->nfindings]);
			return error;
		}
		a->nfindings++;
	}
	return 0;
}

static int refs_from(struct map_answer *a, json_t *list)
{
	size_t i;

	if (!json_is_array(list) || !json_array_size(list))
		return 0;
	if (!(a->file_references = calloc(json_array_size(list), sizeof(char *))))
		return error_nomem();
	for (i = 0; i < json_array_size(list); i++) {
		json_t *ref = json_array_get(list, i);

		if (json_is_object(ref))
			ref = GET(ref, "file", "path");
		if (json_is_string(ref))
			a->file_references[a->nrefs++] = strdup(json_string_value(ref));
	}
	return 0;
}

static bool path_char(char c)
{
	return isalnum((unsigned char)c) || strchr("._-/+@~", c);
}

static bool has_finding(const struct map_answer *a, const char *path, size_t len, int line)
{
	size_t i;

	for (i = 0; i < a->nfindings; i++)
		if (a->findings[i].line == line && strlen(a->findings[i].file) == len &&
		    !memcmp(a->findings[i].file, path, len))
			return true;
	return false;
}

/*
 * "path:line" references in text ("src/db.c:42", "`src/db.c:42-44`"),
 * each added as a finding without quoted code.
 */
static int refs_to_findings(struct map_answer *a, const char *text, const struct rule *rule)
{
	const char *p;

	for (p = text; p && (p = strchr(p, ':')); p++) {
		const char *start = p, *end = p + 1;
		struct finding *f, *grown;
		int line = 0;

		while (start > text && path_char(start[-1]))
			start--;
		while (isdigit((unsigned char)*end))
			line = line * 10 + (*end++ - '0');
		if (start == p || end == p + 1 || !strchr(start, '.') || strchr(start, '.') > p || !line ||
		    has_finding(a, start, (size_t)(p - start), line))
			continue;
		if (!(grown = realloc(a->findings, (a->nfindings + 1) * sizeof(*grown))))
			return error_nomem();
		a->findings = grown;
		f = &a->findings[a->nfindings++];
		memset(f, 0, sizeof(*f));
		f->file = strndup(start, (size_t)(p - start));
		f->line = f->end_line = line;
		if (*end == '-' && isdigit((unsigned char)end[1]))
			f->end_line = atoi(end + 1) >= line ? atoi(end + 1) : line;
		f->rule_id = strdup(rule->id);
		f->title = strdup(rule->name);
		f->issue = a->reasoning ? strdup(a->reasoning) : NULL;
		f->severity = rule->severity;
		f->category = rule->category ? strdup(rule->category) : NULL;
		if (!f->file || !f->rule_id || !f->title)
			return error_nomem();
	}
	return 0;
}

static int status_from(struct map_answer *a, json_t *root)
{
	json_t *status = GET(root, "status", "result");
	const char *s = json_is_string(status) ? json_string_value(status) : NULL;

	if (!s) {
		a->status = a->nfindings ? RULE_ATTENTION : RULE_COMPLIANT;
		return 0;
	}
	if (!strcasecmp(s, "compliant") || !strcasecmp(s, "pass") || !strcasecmp(s, "ok"))
		a->status = RULE_COMPLIANT;
	else if (!strcasecmp(s, "attention") || !strcasecmp(s, "fail") || !strcasecmp(s, "violation"))
		a->status = RULE_ATTENTION;
	else if (!strcasecmp(s, "not_relevant") || !strcasecmp(s, "not-relevant") ||
		 !strcasecmp(s, "not relevant") || !strcasecmp(s, "n/a"))
		a->status = RULE_NOT_RELEVANT;
	else
		return error_set(RL_EPARSE, "the answer's status is \"%.40s\" (expected compliant, "
				 "attention or not_relevant)", s);
	return 0;
}

int answer_parse(struct map_answer *out, const char *text, size_t len, const struct rule *rule)
{
	json_t *root = NULL, *list;
	size_t i;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = llm_extract_json(&root, text, len)) < 0)
		return error;
	if (json_is_array(root)) {
		/* The map-reduce seed's answer: a bare array of violations. */
		error = findings_from(out, root, rule);
		out->status = out->nfindings ? RULE_ATTENTION : RULE_COMPLIANT;
		goto done;
	}
	list = GET(root, "findings", "violations", "issues");
	if (list && !json_is_array(list)) {
		error = error_set(RL_EPARSE, "the answer's \"findings\" is not a list");
		goto done;
	}
	out->reasoning = str_of(GET(root, "reasoning", "summary", "explanation"));
	if ((error = findings_from(out, list, rule)) < 0 ||
	    (error = refs_from(out, GET(root, "file_references", "files"))) < 0 ||
	    (error = status_from(out, root)) < 0)
		goto done;
	if (!GET(root, "status", "result") && !list && !out->reasoning) {
		error = error_set(RL_EPARSE, "the answer has none of \"status\", \"findings\" or \"reasoning\"");
		goto done;
	}
	if (out->status == RULE_ATTENTION && !list) {
		/* Threadline-style: the references are the findings. */
		error = refs_to_findings(out, out->reasoning, rule);
		for (i = 0; !error && i < out->nrefs; i++)
			error = refs_to_findings(out, out->file_references[i], rule);
	}
done:
	json_decref(root);
	if (error < 0)
		answer_release(out);
	return error;
}

void answer_release(struct map_answer *a)
{
	size_t i;

	free(a->reasoning);
	for (i = 0; i < a->nrefs; i++)
		free(a->file_references[i]);
	free(a->file_references);
	findings_free(a->findings, a->nfindings);
	memset(a, 0, sizeof(*a));
}
