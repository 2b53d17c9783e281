/*
 * revline check --format prompt: for each finding, a self-contained
 * instruction a coding agent can act on (where, what is wrong, the code
 * revline checked against the file, what to change, the rule), as
 * CodeRabbit's --prompt-only gives an agent its review.
 */
#include "report.h"
#include "llm.h"
#include "rules.h"
#include "term.h"

#include "buf.h"

#include <string.h>

/* Text indented by prefix, a line each. */
static void indented(FILE *out, const char *prefix, const char *text)
{
	const char *p = text, *nl;

	while (p && *p) {
		nl = strchr(p, '\n');
		term_printf(out, "%s%.*s\n", prefix, nl ? (int)(nl - p) : (int)strlen(p), p);
		p = nl ? nl + 1 : NULL;
	}
}

/* The most of a rule's statement an instruction carries; the file has the rest. */
#define RULE_TEXT_MAX 1500

static const char *skip_blank_lines(const char *p)
{
	const char *q = p;

	while (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n') {
		if (*q == '\n')
			p = q + 1;
		q++;
	}
	return p;
}

static bool list_item(const char *line)
{
	while (*line == ' ')
		line++;
	return ((*line == '-' || *line == '*' || *line == '+') && line[1] == ' ') ||
	       (*line >= '0' && *line <= '9' && (line[1] == '.' || line[1] == ')'));
}

/* Whether the paragraph [p, end) leads into a list: it ends with a colon. */
static bool leads_into_list(const char *p, const char *end)
{
	while (end > p && strchr(" \t\r", end[-1]))
		end--;
	return end > p && end[-1] == ':';
}

/*
 * The rule's statement: its first paragraph after the headings, and when
 * that paragraph leads into a list ("...the shape of a credential:"), the
 * list with it, each block of it up to a blank line, its items separated by
 * blank lines or not. Its length.
 */
static size_t statement_len(const char *body)
{
	const char *end = strstr(body, "\n\n"), *next;

	if (!end)
		return strlen(body);
	if (!leads_into_list(body, end))
		return (size_t)(end - body);
	while (list_item(next = skip_blank_lines(end)))
		if (!(end = strstr(next, "\n\n")))
			return strlen(body);
	return (size_t)(end - body);
}

/* The rule's name and its statement: what the team asks; cut at a line when long, the file named. */
static void rule_put(FILE *out, const struct check *check, const char *id)
{
	const struct rule *r = rules_find(check_rules(check), id);
	const char *body = r && r->body ? r->body : "";
	bool named = r && r->name && strcmp(r->name, id), cut = false;
	size_t len;

	while (*body == '#' || *body == '\n' || *body == ' ') {
		const char *end;

		if (*body == '#' && (end = strchr(body, '\n')))
			body = end;
		else
			body++;
	}
	len = statement_len(body);
	if (len > RULE_TEXT_MAX) {
		for (len = RULE_TEXT_MAX; len && body[len - 1] != '\n'; len--)
			;
		cut = true;
	}
	while (len > 0 && strchr(" \t\r\n", body[len - 1]))
		len--;
	term_printf(out, "The rule (%s%s%s): %.*s\n", id, named ? ", " : "", named ? r->name : "", (int)len, body);
	if (cut && r && r->path)
		term_printf(out, "  ... (the whole rule: %s)\n", r->path);
}

static void finding_put(FILE *out, const struct check *check, const struct finding *f, size_t n,
			const char *again)
{
	const char *rule = f->nfrom ? f->from_rules[0] : f->rule_id;
	int last = f->end_line > f->line ? f->end_line : f->line;

	term_printf(out, "%s%zu. In %s, line%s %d", n > 1 ? "\n---\n\n" : "", n, f->file ? f->file : "?",
		    last > f->line ? "s" : "", f->line);
	if (last > f->line)
		fprintf(out, "-%d", last);
	fprintf(out, " (%s", severity_name(f->severity));
	if (finding_shown_id(f) > 0)
		fprintf(out, ", finding %lld", (long long)finding_shown_id(f));
	term_printf(out, "): %s\n\n", f->title ? f->title : "");
	if (f->issue && *f->issue) {
		fputs("What is wrong:\n", out);
		indented(out, "  ", f->issue);
	}
	if (f->evidence.code_examined && *f->evidence.code_examined) {
		fprintf(out, "The code, as revline found it in the file%s:\n",
			f->verified ? "" : " (NOT verified: check it before acting)");
		indented(out, "    ", f->evidence.code_examined);
	}
	if (f->suggestion && *f->suggestion) {
		fputs("What to change:\n", out);
		indented(out, "  ", f->suggestion);
	}
	if (rule)
		rule_put(out, check, rule);
	term_printf(out, "\nChange %s so that this is no longer true, keep the rest of the file as it is, "
		    "then %s.\n", f->file ? f->file : "the file", again ? again : "run `revline check` again");
}

static bool skipped_for_no_llm(const struct check *check)
{
	size_t i;

	for (i = 0; i < check_nresults(check); i++) {
		const struct rule_result *r = check_result(check, i);

		if (r->status == RULE_SKIPPED && r->error && !strcmp(r->error, llm_setup_hint))
			return true;
	}
	return false;
}

bool report_prompt_incomplete(FILE *out, const struct check *check, const struct report_options *o)
{
	bool cancelled = !strcmp(check_status(check), "cancelled");
	size_t total, n = check_not_run(check, &total);
	struct buf lines = BUF_INIT;

	if (!n && !cancelled)
		return false;
	if (!n)
		fputs("Review cancelled after every rule answered: the findings were merged by revline, "
		      "not by the model.\n\n", out);
	if (!n)
		return true;
	fprintf(out, "Review %s: %zu of %zu rule%s did not run, so this is no verdict on the change.\n",
		cancelled ? "cancelled" : "incomplete", n, total, total == 1 ? "" : "s");
	if (check_not_run_lines(&lines, check) == 0)
		term_printf(out, "%s", lines.ptr);
	if (o->setup_hint && skipped_for_no_llm(check))
		term_printf(out, "What to set: %s\n", o->setup_hint);
	fprintf(out, "Do not take what follows for the whole review: once what kept these rules from running is "
		"fixed, %s (the rules that ran are answered from the cache).\n\n",
		o->again ? o->again : "run `revline check` again");
	buf_release(&lines);
	return true;
}

int report_prompt_findings(FILE *out, const struct check *check, const struct report_options *o)
{
	const struct report *rep = check_report(check);
	size_t i, total, n = 0;
	bool whole = !check_not_run(check, &total) && strcmp(check_status(check), "cancelled");

	for (i = 0; i < rep->nfindings; i++)
		if (report_shows(&rep->findings[i], o))
			finding_put(out, check, &rep->findings[i], ++n, o->again);
	if (!n)
		fputs(whole ? "revline found nothing to change in this change.\n" :
		      "revline found nothing to change in the rules that ran.\n", out);
	return ferror(out) ? -1 : 0;
}

int report_prompt(FILE *out, const struct check *check, const struct report_options *o)
{
	if (report_prompt_incomplete(out, check, o))
		fputs("---\n\n", out);
	return report_prompt_findings(out, check, o);
}
