/* revline check --format markdown: a review to paste into a pull request. */
#include "report.h"
#include "prompt.h"
#include "term.h"
#include "usage.h"

#include <string.h>

/*
 * Markdown is read on a terminal as often as pasted into a pull request,
 * where a bidi override misleads as well: every string from outside goes
 * through term_* here too.
 */

static void fenced(FILE *out, const char *code)
{
	struct buf text = BUF_INIT;

	if (prompt_fence(&text, NULL, code, strlen(code)) == 0)
		term_write(out, text.ptr, text.len);
	buf_release(&text);
}

static void rules_of(FILE *out, const struct finding *f)
{
	size_t i;

	if (!f->nfrom) {
		term_printf(out, "`%s`", f->rule_id);
		return;
	}
	for (i = 0; i < f->nfrom; i++)
		term_printf(out, "%s`%s`", i ? ", " : "", f->from_rules[i]);
}

static void finding_md(FILE *out, size_t n, const struct finding *f)
{
	term_printf(out, "### %zu. %s\n\n`%s:%d` · **%s** · from ", n, f->title ? f->title : "",
		    f->file, f->line, severity_name(f->severity));
	rules_of(out, f);
	fputs("\n\n", out);
	if (f->issue)
		term_printf(out, "%s\n\n", f->issue);
	if (f->suggestion)
		term_printf(out, "**Suggestion:** %s\n\n", f->suggestion);
	fputs("<details><summary>Evidence</summary>\n\n", out);
	if (f->evidence.code_examined && *f->evidence.code_examined)
		fenced(out, f->evidence.code_examined);
	if (f->evidence.method)
		term_printf(out, "\n- How it was verified: %s\n", f->evidence.method);
	if (f->evidence.where_checked)
		term_printf(out, "- Checked elsewhere: %s\n", f->evidence.where_checked);
	term_printf(out, "- revline: %s (%s)\n\n</details>\n\n", f->verified ? "verified" : "not verified",
		    f->verify_note ? f->verify_note : "");
}

static void rules_table(FILE *out, const struct check *check)
{
	size_t i;

	fputs("| Rule | Status | Findings | Time |\n|---|---|---|---|\n", out);
	for (i = 0; i < check_nresults(check); i++) {
		const struct rule_result *r = check_result(check, i);

		fputs("| `", out);
		term_md_cell(out, r->rule->id);
		fprintf(out, "` | %s", rule_status_name(r->status));
		if (r->error && r->status != RULE_SKIPPED) {
			fputs(": ", out);
			term_md_cell(out, r->error);
		}
		fprintf(out, " | %zu | %.1f s |\n", r->nfindings, (double)r->duration_ms / 1000.0);
	}
}

/* What the check left out or cut, and the untracked files it did not see. */
static void scope_md(FILE *out, const struct check *check)
{
	size_t i, n = check_untracked(check);

	if (check_nnotes(check) || n)
		fputs("\n**Left out or cut**\n\n", out);
	for (i = 0; i < check_nnotes(check); i++)
		term_printf(out, "- %s\n", check_note(check, i));
	if (n)
		fprintf(out, "- %zu untracked file%s not reviewed (`--untracked`)\n", n, n == 1 ? "" : "s");
}

int report_markdown(FILE *out, const struct check *check, const struct repo *repo,
		    const struct target *target, const struct report_options *o)
{
	const struct report *rep = check_report(check);
	struct buf usage = BUF_INIT, incomplete = BUF_INIT;
	size_t i, n = 0;

	if (check_overall_text(&incomplete, check) == 0)
		term_printf(out, "## revline review: %s\n\n", incomplete.ptr);
	term_printf(out, "%s on `%s`, %s\n\n", repo->name, repo->branch, target->description);
	if (check_incomplete_text(&incomplete, check) == 0 && incomplete.len)
		fprintf(out, "> **%s** (the rules table says which and why)\n\n", incomplete.ptr);
	if (rep->summary)
		term_printf(out, "%s\n\n", rep->summary);
	if (rep->nmust_fix) {
		fputs("**Must fix**\n\n", out);
		for (i = 0; i < rep->nmust_fix; i++)
			term_printf(out, "- %s\n", rep->must_fix[i]);
		fputc('\n', out);
	}
	report_markdown_deps(out, check);
	for (i = 0; i < rep->nfindings; i++)
		if (report_shows(&rep->findings[i], o))
			finding_md(out, ++n, &rep->findings[i]);
	if (!n)
		fputs("No issues found.\n\n", out);
	rules_table(out, check);
	scope_md(out, check);
	if (check_store_error(check))
		term_printf(out, "\n> **Not stored:** %s\n", check_store_error(check));
	if (check_id(check))
		fprintf(out, "\n<sub>check %lld, %s, %.1f s%s", (long long)check_id(check),
			check_status(check), (double)check_duration_ms(check) / 1000.0,
			rep->synthesized ? ", synthesized by the reduce call" : "");
	else
		fprintf(out, "\n<sub>check not stored, %s, %.1f s%s", check_status(check),
			(double)check_duration_ms(check) / 1000.0,
			rep->synthesized ? ", synthesized by the reduce call" : "");
	if (usage_stats_text(&usage, check_stats(check)) == 0)
		fprintf(out, "; %s", usage.ptr);
	fputs("</sub>\n", out);
	buf_release(&usage);
	buf_release(&incomplete);
	return ferror(out) ? -1 : 0;
}
