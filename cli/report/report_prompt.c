/*
 * revline check --format prompt: for each finding, a self-contained
 * instruction a coding agent can act on (where, what is wrong, the code
 * revline checked against the file, what to change, the rule), as
 * CodeRabbit's --prompt-only gives an agent its review.
 */
#include "report.h"
#include "rules.h"
#include "term.h"

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

/* The rule's name and its first paragraph: what the team asks. */
static void rule_put(FILE *out, const struct check *check, const char *id)
{
	const struct rule *r = rules_find(check_rules(check), id);
	const char *body = r && r->body ? r->body : "", *end;
	bool named = r && r->name && strcmp(r->name, id);
	int len;

	while (*body == '#' || *body == '\n' || *body == ' ') {
		if (*body == '#' && (end = strchr(body, '\n')))
			body = end;
		else
			body++;
	}
	end = strstr(body, "\n\n");
	for (len = end ? (int)(end - body) : (int)strlen(body); len > 0 && strchr(" \t\r\n", body[len - 1]); len--)
		;
	term_printf(out, "The rule (%s%s%s): %.*s\n", id, named ? ", " : "", named ? r->name : "", len, body);
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

int report_prompt(FILE *out, const struct check *check, const struct report_options *o)
{
	const struct report *rep = check_report(check);
	size_t i, n = 0;

	for (i = 0; i < rep->nfindings; i++)
		if (report_shows(&rep->findings[i], o))
			finding_put(out, check, &rep->findings[i], ++n, o->again);
	if (!n)
		fputs("revline found nothing to change in this change.\n", out);
	return ferror(out) ? -1 : 0;
}
