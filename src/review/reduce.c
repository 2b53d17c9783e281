#include "reduce.h"
#include "llm.h"
#include "prompt.h"
#include "status.h"
#include "array.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *reduce_overall(const struct finding *f, size_t n)
{
	enum severity most = SEV_NITPICK;
	size_t i;

	if (!n)
		return "clean";
	for (i = 0; i < n; i++)
		if (f[i].severity > most)
			most = f[i].severity;
	return most == SEV_CRITICAL ? "critical" : most == SEV_MAJOR ? "needs-work" : "minor-issues";
}

/* Findings grouped by file, each with its id (f1...), rule, line, issue and code. */
static int format_findings(struct buf *out, const struct finding *f, size_t n)
{
	bool *done = calloc(n + 1, sizeof(bool));
	size_t i, k;
	int error = 0;

	if (!done)
		return error_nomem();
	for (i = 0; i < n && !error; i++) {
		if (done[i])
			continue;
		error = buf_printf(out, "## %s\n\n", f[i].file);
		for (k = i; k < n && !error; k++) {
			if (done[k] || strcmp(f[k].file, f[i].file))
				continue;
			done[k] = true;
			error = buf_printf(out, "- f%zu [%s] line %d (%s): %s\n", k + 1, f[k].rule_id,
					   f[k].line, severity_name(f[k].severity),
					   f[k].issue ? f[k].issue : f[k].title);
			if (!error && f[k].suggestion)
				error = buf_printf(out, "  Suggestion: %s\n", f[k].suggestion);
			if (!error && f[k].evidence.code_examined && *f[k].evidence.code_examined) {
				error = buf_puts(out, "  Code:\n\n");
				if (!error)
					error = prompt_fence(out, NULL, f[k].evidence.code_examined,
							     strlen(f[k].evidence.code_examined));
			}
			if (!error)
				error = buf_putc(out, '\n');
		}
	}
	free(done);
	return error;
}

static size_t count_rules(const struct finding *f, size_t n)
{
	size_t i, k, rules = 0;

	for (i = 0; i < n; i++) {
		for (k = 0; k < i && strcmp(f[k].rule_id, f[i].rule_id); k++)
			;
		rules += k == i;
	}
	return rules;
}

int reduce_prompt(struct buf *system, struct buf *user, const struct finding *f, size_t n,
		  const struct reduce_context *ctx)
{
	struct buf list = BUF_INIT;
	char files[32], count[32], rules[32];
	int error;

	snprintf(files, sizeof(files), "%zu", ctx->files);
	snprintf(count, sizeof(count), "%zu", n);
	snprintf(rules, sizeof(rules), "%zu", count_rules(f, n));
	if ((error = format_findings(&list, f, n)) == 0) {
		const struct prompt_var vars[] = {
			{ "files", files, NULL }, { "count", count, NULL }, { "rules", rules, NULL },
			{ "target", ctx->target, "what is compared" },
			{ "intent", ctx->intent, "what the author wrote: the branch name and the commit messages" },
			{ "findings", list.ptr, "the reviewers' findings" },
		};

		error = prompt_render(system, user, "reduce", vars, sizeof(vars) / sizeof(vars[0]));
	}
	buf_release(&list);
	return error;
}

/* Add a rule to a finding's from_rules unless it is there (the array has room for its count). */
static int from_add(struct finding *f, const char *rule)
{
	struct strings list = { f->from_rules, f->nfrom, f->nfrom };
	int error = strings_add_unique(&list, rule);

	f->from_rules = list.items;
	f->nfrom = list.count;
	return error;
}

static int set_str(char **field, json_t *v)
{
	if (!json_is_string(v) || !*json_string_value(v))
		return 0;
	free(*field);
	*field = strdup(json_string_value(v));
	return *field ? 0 : error_nomem();
}

/* Whether a merged finding's fromRules (when it has them) names the rule. */
static bool names_rule(json_t *merged, const char *rule)
{
	json_t *rules = json_object_get(merged, "fromRules");
	size_t i;

	if (!json_is_array(rules) || !json_array_size(rules))
		return true;
	for (i = 0; i < json_array_size(rules); i++)
		if (json_is_string(json_array_get(rules, i)) &&
		    !strcmp(json_string_value(json_array_get(rules, i)), rule))
			return true;
	return false;
}

/* The source indices of an answer's finding ("f3" -> 2), marking them used. */
static size_t sources_of(size_t *out, json_t *merged, const struct finding *f, size_t n, bool *used)
{
	json_t *sources = json_object_get(merged, "sources");
	size_t i, count = 0;

	for (i = 0; json_is_array(sources) && i < json_array_size(sources); i++) {
		const char *id = json_string_value(json_array_get(sources, i));
		long k = id && (id[0] == 'f' || id[0] == 'F') ? strtol(id + 1, NULL, 10) - 1 : -1;

		if (k >= 0 && (size_t)k < n && !used[k]) {
			used[k] = true;
			out[count++] = (size_t)k;
		}
	}
	if (count)
		return count;
	/* No usable sources: the unused findings at that place from its rules. */
	for (i = 0; i < n; i++) {
		json_t *file = json_object_get(merged, "file");
		long line = json_integer_value(json_object_get(merged, "line"));

		if (!used[i] && json_is_string(file) && !strcmp(json_string_value(file), f[i].file) &&
		    labs(line - f[i].line) <= 3 && names_rule(merged, f[i].rule_id)) {
			used[i] = true;
			out[count++] = i;
		}
	}
	return count;
}

/* The source whose evidence the merged finding keeps: the first verified one. */
static size_t primary_of(const size_t *src, size_t count, const struct finding *f)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (f[src[i]].verified)
			return src[i];
	return src[0];
}

static int merged_from(struct finding *out, json_t *m, const size_t *src, size_t count,
		       const struct finding *f)
{
	size_t p = primary_of(src, count, f), i;
	json_t *rules = json_object_get(m, "fromRules"), *sev = json_object_get(m, "severity");
	int error;

	/* The verified place and the evidence are the source's; the words are the synthesis'. */
	if ((error = finding_copy(out, &f[p])) < 0)
		return error;
	out->origin = finding_shown_id(&f[p]);
	out->id = 0;
	if ((error = set_str(&out->title, json_object_get(m, "title"))) < 0 ||
	    (error = set_str(&out->issue, json_object_get(m, "issue"))) < 0 ||
	    (error = set_str(&out->suggestion, json_object_get(m, "suggestion"))) < 0 ||
	    (error = set_str(&out->category, json_object_get(m, "category"))) < 0)
		return error;
	if (json_is_string(sev))
		severity_parse(&out->severity, json_string_value(sev));
	for (i = 0; i < out->nfrom; i++)
		free(out->from_rules[i]);
	free(out->from_rules);
	out->from_rules = NULL;
	out->nfrom = 0;
	for (i = 0; i < count && !error; i++)
		error = from_add(out, f[src[i]].rule_id);
	for (i = 0; json_is_array(rules) && i < json_array_size(rules) && !error; i++)
		if (json_is_string(json_array_get(rules, i)))
			error = from_add(out, json_string_value(json_array_get(rules, i)));
	return error;
}

static int cmp_severity(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	return 0;
}

/* A stable sort by severity (qsort is not stable): insertion sort, n is small. */
static void sort_by_severity(struct finding *f, size_t n)
{
	size_t i, k;

	for (i = 1; i < n; i++) {
		struct finding tmp = f[i];

		for (k = i; k > 0 && cmp_severity(&f[k - 1], &tmp) > 0; k--)
			f[k] = f[k - 1];
		f[k] = tmp;
	}
}

static int report_add(struct report *r, struct finding *f)
{
	int error;

	if ((error = ARRAY_GROW(r->findings, r->findings_alloc, r->nfindings + 1)) < 0)
		return error;
	r->findings[r->nfindings++] = *f;
	return 0;
}

static int copy_into(struct report *r, const struct finding *from)
{
	struct finding f;
	int error = finding_copy(&f, from);

	f.origin = finding_shown_id(from);
	if (!error && !f.nfrom)
		error = from_add(&f, f.rule_id);
	if (!error && (error = report_add(r, &f)) < 0)
		finding_release(&f);
	return error;
}

static int header_from(struct report *out, json_t *root)
{
	json_t *sev = json_object_get(root, "overallSeverity"), *must = json_object_get(root, "mustFix");
	const char *s = json_string_value(sev);
	struct strings must_fix = STRINGS_INIT;
	size_t i;
	int error;

	if ((error = set_str(&out->summary, json_object_get(root, "summary"))) < 0)
		return error;
	if (!out->summary)
		return error_set(RL_EPARSE, "the reduce answer has no \"summary\"");
	if (s && (!strcmp(s, "clean") || !strcmp(s, "minor-issues") || !strcmp(s, "needs-work") ||
		  !strcmp(s, "critical")))
		out->overall_severity = strdup(s);
	for (i = 0; json_is_array(must) && i < json_array_size(must) && !error; i++)
		if (json_is_string(json_array_get(must, i)))
			error = strings_add_unique(&must_fix, json_string_value(json_array_get(must, i)));
	out->must_fix = must_fix.items;
	out->nmust_fix = must_fix.count;
	return error;
}

int reduce_parse(struct report *out, const char *text, size_t len, const struct finding *f, size_t n)
{
	json_t *root = NULL, *list;
	size_t *src = calloc(n + 1, sizeof(size_t)), i, count;
	bool *used = calloc(n + 1, sizeof(bool));
	int error;

	memset(out, 0, sizeof(*out));
	if (!src || !used) {
		error = error_nomem();
		goto done;
	}
	if ((error = llm_extract_json(&root, text, len)) < 0)
		goto done;
	list = json_object_get(root, "findings");
	if (!json_is_object(root) || !json_is_array(list)) {
		error = error_set(RL_EPARSE, "the reduce answer has no \"findings\" list");
		goto done;
	}
	if ((error = header_from(out, root)) < 0)
		goto done;
	for (i = 0; i < json_array_size(list) && !error; i++) {
		struct finding merged;

		if (!(count = sources_of(src, json_array_get(list, i), f, n, used)))
			continue;  /* a finding from nowhere: the reduce must not invent */
		if ((error = merged_from(&merged, json_array_get(list, i), src, count, f)) == 0 &&
		    (error = report_add(out, &merged)) < 0)
			finding_release(&merged);
	}
	/* Nothing is lost: findings the answer left out are kept as they are. */
	for (i = 0; i < n && !error; i++)
		if (!used[i])
			error = copy_into(out, &f[i]);
	if (!error) {
		sort_by_severity(out->findings, out->nfindings);
		if (!out->overall_severity)
			out->overall_severity = strdup(reduce_overall(out->findings, out->nfindings));
		out->synthesized = true;
	}
done:
	json_decref(root);
	free(src);
	free(used);
	if (error < 0)
		report_release(out);
	return error;
}

/* Words of three letters or more, lower-cased, for title similarity. */
static size_t words_of(char words[][32], size_t max, const char *s)
{
	size_t n = 0, len;

	while (s && *s && n < max) {
		while (*s && !isalnum((unsigned char)*s))
			s++;
		for (len = 0; isalnum((unsigned char)s[len]); len++)
			;
		if (len >= 3 && len < 32) {
			size_t i;

			for (i = 0; i < len; i++)
				words[n][i] = (char)tolower((unsigned char)s[i]);
			words[n++][len] = '\0';
		}
		s += len;
	}
	return n;
}

/* Jaccard similarity of the titles' words. */
static double title_similarity(const char *a, const char *b)
{
	char wa[24][32], wb[24][32];
	size_t na = words_of(wa, 24, a), nb = words_of(wb, 24, b), i, k, common = 0;

	if (!na || !nb)
		return 0;
	for (i = 0; i < na; i++)
		for (k = 0; k < nb; k++)
			if (!strcmp(wa[i], wb[k])) {
				common++;
				break;
			}
	return (double)common / (double)(na + nb - common);
}

static bool same_issue(const struct finding *a, const struct finding *b)
{
	if (strcmp(a->file, b->file))
		return false;
	/* Overlapping lines, or within three lines of each other. */
	if (a->line > b->end_line + 3 || b->line > a->end_line + 3)
		return false;
	/* At one place, a third of the words in common is the same problem told twice. */
	return !strcmp(a->rule_id, b->rule_id) || title_similarity(a->title, b->title) >= 1.0 / 3;
}

static int absorb(struct finding *into, const struct finding *from)
{
	size_t i;
	int error = 0;

	if (from->severity > into->severity)
		into->severity = from->severity;
	if (from->line && from->line < into->line)
		into->line = from->line;
	if (from->end_line > into->end_line)
		into->end_line = from->end_line;
	for (i = 0; i < from->nfrom && !error; i++)
		error = from_add(into, from->from_rules[i]);
	if (!error)
		error = from_add(into, from->rule_id);
	return error;
}

static int cmp_fallback(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	int c;

	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	if ((c = strcmp(x->file, y->file)))
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

static size_t count_files(const struct finding *f, size_t n)
{
	size_t i, k, files = 0;

	for (i = 0; i < n; i++) {
		for (k = 0; k < i && strcmp(f[k].file, f[i].file); k++)
			;
		files += k == i;
	}
	return files;
}

static int fallback_summary(struct report *out)
{
	size_t by[SEV_COUNT] = { 0 }, i;
	struct buf text = BUF_INIT;
	bool first = true;
	int s;

	if (!out->nfindings) {
		out->summary = strdup("No issues found.");
		return out->summary ? 0 : error_nomem();
	}
	for (i = 0; i < out->nfindings; i++)
		by[out->findings[i].severity]++;
	buf_printf(&text, "Found %zu issue%s across %zu file%s (", out->nfindings,
		   out->nfindings == 1 ? "" : "s", count_files(out->findings, out->nfindings),
		   count_files(out->findings, out->nfindings) == 1 ? "" : "s");
	for (s = SEV_COUNT - 1; s >= 0; s--) {
		if (!by[s])
			continue;
		buf_printf(&text, "%s%zu %s", first ? "" : ", ", by[s], severity_name((enum severity)s));
		first = false;
	}
	buf_puts(&text, ").");
	out->summary = buf_detach(&text);
	return out->summary ? 0 : error_nomem();
}

int reduce_fallback(struct report *out, const struct finding *f, size_t n, const char *reason)
{
	size_t i, k;
	int error = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n && !error; i++) {
		for (k = 0; k < out->nfindings; k++)
			if (same_issue(&out->findings[k], &f[i]))
				break;
		error = k < out->nfindings ? absorb(&out->findings[k], &f[i]) : copy_into(out, &f[i]);
	}
	if (!error) {
		if (out->nfindings)
			qsort(out->findings, out->nfindings, sizeof(*out->findings), cmp_fallback);
		out->overall_severity = strdup(reduce_overall(out->findings, out->nfindings));
		error = fallback_summary(out);
	}
	if (!error && reason && !(out->fallback_reason = strdup(reason)))
		error = error_nomem();
	if (!error && !out->overall_severity)
		error = error_nomem();
	if (error < 0)
		report_release(out);
	return error;
}
