/*
 * A rule's answer, parsed within the bounds of answer.h: each bound is
 * applied as the answer is read, so nothing is built larger first and
 * nothing is copied per finding from a text that may be long.
 */
#include "answer.h"
#include "buf.h"
#include "llm.h"
#include "status.h"
#include "array.h"

#include <ctype.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most a line number may be: larger digits are no line (and would overflow). */
#define LINE_MAX_NUMBER 100000000

/* Where a cut at max bytes falls without splitting a UTF-8 character. */
static size_t cut_point(const char *s, size_t len, size_t max)
{
	size_t n, back;

	if (len <= max)
		return len;
	n = max;
	for (back = 0; back < 3 && n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80; back++)
		n--;
	return n;
}

/* A copy of s[0..len) of at most max bytes (and the marker) that says what was cut. */
static char *text_cut(const char *s, size_t len, size_t max)
{
	struct buf out = BUF_INIT;
	size_t n = cut_point(s, len, max);

	if (buf_put(&out, s, n) < 0 ||
	    (n < len && buf_printf(&out, " [... %zu bytes cut]", len - n) < 0)) {
		buf_release(&out);
		return NULL;
	}
	return buf_detach(&out);
}

/* A string field within ANSWER_FIELD_MAX; NULL when it is no string. */
static char *str_of(json_t *v)
{
	if (json_is_string(v))
		return text_cut(json_string_value(v), json_string_length(v), ANSWER_FIELD_MAX);
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
static char *clean_path(const char *path, size_t len)
{
	while (len >= 2 && !strncmp(path, "./", 2)) {
		path += 2;
		len -= 2;
	}
	return text_cut(path, len, ANSWER_FIELD_MAX);
}

static int finding_from(struct finding *f, json_t *v, const struct rule *rule)
{
	json_t *file = GET(v, "file", "path", "filename");

	memset(f, 0, sizeof(*f));
	if (!json_is_object(v) || !json_is_string(file) || !*json_string_value(file))
		return error_set(RL_EPARSE, "a finding has no \"file\"");
	f->file = clean_path(json_string_value(file), json_string_length(file));
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

/* The first ANSWER_FINDINGS_MAX findings; the others are only counted. */
static int findings_from(struct map_answer *a, json_t *list, const struct rule *rule)
{
	size_t i, n = json_array_size(list);
	int error;

	if (!n)
		return 0;
	if (n > ANSWER_FINDINGS_MAX) {
		a->findings_dropped = n - ANSWER_FINDINGS_MAX;
		n = ANSWER_FINDINGS_MAX;
	}
	if (!(a->findings = calloc(n, sizeof(*a->findings))))
		return error_nomem();
	for (i = 0; i < n; i++) {
		if ((error = finding_from(&a->findings[a->nfindings], json_array_get(list, i), rule)) < 0) {
			finding_release(&a->findings[a->nfindings]);
			return error;
		}
		a->nfindings++;
	}
	return 0;
}

/* The first ANSWER_REFS_MAX references, each within ANSWER_REF_BYTES; the others are only counted. */
static int refs_from(struct map_answer *a, json_t *list)
{
	size_t i, n = json_array_size(list);

	if (!json_is_array(list) || !n)
		return 0;
	if (!(a->file_references = calloc(n < ANSWER_REFS_MAX ? n : ANSWER_REFS_MAX, sizeof(char *))))
		return error_nomem();
	for (i = 0; i < n; i++) {
		json_t *ref = json_array_get(list, i);

		if (json_is_object(ref))
			ref = GET(ref, "file", "path");
		if (!json_is_string(ref))
			continue;
		if (a->nrefs == ANSWER_REFS_MAX) {
			a->refs_dropped++;
			continue;
		}
		if (!(a->file_references[a->nrefs] = text_cut(json_string_value(ref), json_string_length(ref),
							       ANSWER_REF_BYTES)))
			return error_nomem();
		a->nrefs++;
	}
	return 0;
}

static bool path_char(char c)
{
	return isalnum((unsigned char)c) || strchr("._-/+@~", c);
}

/* A "path:line" or "path:line-end" reference somewhere in a text. */
struct ref {
	const char *path;
	size_t len;
	int line, end_line;
	const char *text;       /* the text it is in, and where */
	size_t at;
	size_t order;           /* found n-th */
	bool first;             /* the first of its path and line */
};

struct refs {
	struct ref *items;
	size_t count, alloc;
};

/* Digits as a line number, 0 when there are none or too many. */
static int line_number(const char **p)
{
	long n = 0;

	if (!isdigit((unsigned char)**p))
		return 0;
	for (; isdigit((unsigned char)**p); (*p)++)
		if (n <= LINE_MAX_NUMBER)
			n = n * 10 + (**p - '0');
	return n <= LINE_MAX_NUMBER ? (int)n : 0;
}

static int refs_add(struct refs *r, const struct ref *ref)
{
	int error;

	if ((error = ARRAY_GROW(r->items, r->alloc, r->count + 1)) < 0)
		return error;
	r->items[r->count] = *ref;
	r->items[r->count].order = r->count;
	r->count++;
	return 0;
}

/*
 * The "path:line" references in text ("src/db.c:42", "`src/db.c:42-44`"):
 * a path holds a '.', and it ends at the colon. One pass: each step back
 * stops at the previous colon, and each look for the '.' stays in the path.
 */
static int refs_scan(struct refs *r, const char *text)
{
	const char *p;
	int error = 0;

	for (p = text; !error && p && (p = strchr(p, ':')); p++) {
		const char *start = p, *end = p + 1;
		struct ref ref = { 0 };

		while (start > text && path_char(start[-1]))
			start--;
		ref.line = line_number(&end);
		if (start == p || !ref.line || !memchr(start, '.', (size_t)(p - start)))
			continue;
		ref.end_line = ref.line;
		if (*end == '-') {
			const char *q = end + 1;
			int last = line_number(&q);

			if (last >= ref.line)
				ref.end_line = last;
		}
		ref.path = start;
		ref.len = (size_t)(p - start);
		ref.text = text;
		ref.at = (size_t)(start - text);
		error = refs_add(r, &ref);
	}
	return error;
}

static int ref_compare(const void *x, const void *y)
{
	const struct ref *a = *(const struct ref *const *)x, *b = *(const struct ref *const *)y;
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->path, b->path, n);

	if (c)
		return c;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Marks the first reference to each path and line: sorted, not compared pairwise. */
static int refs_mark_first(struct refs *r)
{
	struct ref **sorted;
	size_t i;

	if (!r->count)
		return 0;
	if (!(sorted = malloc(r->count * sizeof(*sorted))))
		return error_nomem();
	for (i = 0; i < r->count; i++)
		sorted[i] = &r->items[i];
	qsort(sorted, r->count, sizeof(*sorted), ref_compare);
	for (i = 0; i < r->count; i++)
		sorted[i]->first = i == 0 || sorted[i - 1]->len != sorted[i]->len ||
			sorted[i - 1]->line != sorted[i]->line ||
			memcmp(sorted[i - 1]->path, sorted[i]->path, sorted[i]->len);
	free(sorted);
	return 0;
}

/*
 * The issue of a finding made from a reference: the reasoning when it is
 * short; else the line of it that holds the reference, starting at most
 * half the bound before it (the reasoning's start for a reference from
 * file_references), at most ANSWER_REF_ISSUE_MAX bytes.
 */
static char *ref_issue(const char *reasoning, const struct ref *ref)
{
	size_t len = strlen(reasoning), from = 0, to, i;
	bool inside = ref->text == reasoning;
	struct buf out = BUF_INIT;
	const char *nl;

	if (len <= ANSWER_REF_ISSUE_MAX)
		return strdup(reasoning);
	if (inside) {
		from = ref->at > ANSWER_REF_ISSUE_MAX / 2 ? ref->at - ANSWER_REF_ISSUE_MAX / 2 : 0;
		for (i = ref->at; i > from; i--)
			if (reasoning[i - 1] == '\n')
				break;
		for (from = i; from < ref->at && ((unsigned char)reasoning[from] & 0xc0) == 0x80; from++)
			;
	}
	to = from + cut_point(reasoning + from, len - from, ANSWER_REF_ISSUE_MAX);
	if (inside && (nl = memchr(reasoning + ref->at, '\n', to - ref->at)))
		to = (size_t)(nl - reasoning);
	/* "..." where a line was cut, not where it ends. */
	if ((from && reasoning[from - 1] != '\n' && buf_puts(&out, "...") < 0) ||
	    buf_put(&out, reasoning + from, to - from) < 0 ||
	    (to < len && reasoning[to] != '\n' && buf_puts(&out, "...") < 0)) {
		buf_release(&out);
		return NULL;
	}
	return buf_detach(&out);
}

static int finding_from_ref(struct finding *f, const struct ref *ref, const char *reasoning,
			    const struct rule *rule)
{
	memset(f, 0, sizeof(*f));
	f->file = text_cut(ref->path, ref->len, ANSWER_FIELD_MAX);
	f->line = ref->line;
	f->end_line = ref->end_line;
	f->rule_id = strdup(rule->id);
	f->title = strdup(rule->name);
	f->issue = reasoning ? ref_issue(reasoning, ref) : NULL;
	f->severity = rule->severity;
	f->category = rule->category ? strdup(rule->category) : NULL;
	if (!f->file || !f->rule_id || !f->title || (reasoning && !f->issue) ||
	    (rule->category && !f->category))
		return error_nomem();
	return 0;
}

/*
 * Threadline-style: the references in the reasoning, then in
 * file_references, each path and line once, become the findings (without
 * quoted code); past ANSWER_FINDINGS_MAX they are counted.
 */
static int refs_to_findings(struct map_answer *a, const struct rule *rule)
{
	struct refs r = { 0 };
	size_t i, n = 0;
	int error = 0;

	if (a->reasoning)
		error = refs_scan(&r, a->reasoning);
	for (i = 0; !error && i < a->nrefs; i++)
		error = refs_scan(&r, a->file_references[i]);
	if (error || (error = refs_mark_first(&r)) < 0)
		goto done;
	for (i = 0; i < r.count; i++)
		n += r.items[i].first;
	if (n > ANSWER_FINDINGS_MAX) {
		a->findings_dropped = n - ANSWER_FINDINGS_MAX;
		n = ANSWER_FINDINGS_MAX;
	}
	if (n && !(a->findings = calloc(n, sizeof(*a->findings)))) {
		error = error_nomem();
		goto done;
	}
	for (i = 0; i < r.count && a->nfindings < n && !error; i++) {
		if (!r.items[i].first)
			continue;
		error = finding_from_ref(&a->findings[a->nfindings], &r.items[i], a->reasoning, rule);
		a->nfindings++;     /* a half-made finding is released with the rest */
	}
done:
	free(r.items);
	return error;
}

/* What the bounds left out, said at the end of the reasoning (itself within its bound). */
static int note_dropped(struct map_answer *a)
{
	struct buf text = BUF_INIT;
	int error = 0;

	if (!a->findings_dropped && !a->refs_dropped)
		return 0;
	if (a->reasoning && (error = buf_puts(&text, a->reasoning)) < 0)
		goto done;
	if (a->findings_dropped)
		error = buf_printf(&text, "%s%zu more finding%s not shown (an answer keeps its first %d)",
				   text.len ? "\n\n" : "", a->findings_dropped,
				   a->findings_dropped == 1 ? "" : "s", ANSWER_FINDINGS_MAX);
	if (!error && a->refs_dropped)
		error = buf_printf(&text, "%s%zu more file reference%s not shown (an answer keeps its first %d)",
				   text.len ? "\n\n" : "", a->refs_dropped,
				   a->refs_dropped == 1 ? "" : "s", ANSWER_REFS_MAX);
	if (!error) {
		free(a->reasoning);
		a->reasoning = buf_detach(&text);
	}
done:
	buf_release(&text);
	return error;
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

int answer_size_check(size_t len)
{
	if (len <= ANSWER_TEXT_MAX)
		return 0;
	return error_set(RL_EPARSE, "the answer is %zu bytes, more than revline reads (%zu); "
			 "ask the rule for fewer, shorter findings", len, ANSWER_TEXT_MAX);
}

int answer_parse(struct map_answer *out, const char *text, size_t len, const struct rule *rule)
{
	json_t *root = NULL, *list;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = answer_size_check(len)) < 0 || (error = llm_extract_json(&root, text, len)) < 0)
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
	/* Threadline-style: the references are the findings. */
	if (out->status == RULE_ATTENTION && !list)
		error = refs_to_findings(out, rule);
done:
	if (!error)
		error = note_dropped(out);
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
