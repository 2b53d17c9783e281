/* revline check's text output: a line per rule as it settles, then the report. */
#include "report.h"
#include "answer.h"
#include "timeout.h"
#include "commands.h"
#include "term.h"
#include "usage.h"

#include <string.h>

#define RESET "\033[0m"

static const char *sev_color(enum severity s, const struct report_options *o)
{
	if (!o->color)
		return "";
	switch (s) {
	case SEV_CRITICAL: return "\033[1;31m";
	case SEV_MAJOR: return "\033[31m";
	case SEV_MINOR: return "\033[33m";
	default: return "\033[2m";
	}
}

static const char *status_color(enum rule_status s, const struct report_options *o)
{
	if (!o->color)
		return "";
	switch (s) {
	case RULE_COMPLIANT: return "\033[32m";
	case RULE_ATTENTION: return "\033[1;33m";
	case RULE_ERROR: case RULE_TIMEOUT: return "\033[1;31m";
	case RULE_NOT_RELEVANT: case RULE_SKIPPED: return "\033[2m";
	default: return "";
	}
}

static const char *reset(const struct report_options *o)
{
	return o->color ? RESET : "";
}

bool report_shows(const struct finding *f, const struct report_options *o)
{
	return (!f->suppressed || o->show_suppressed) && (f->verified || o->show_unverified);
}

/*
 * Indented text, one line per input line. The model's words, like every
 * string below from a rule, a file name or a server, go through term_*:
 * only the colours are written as they are.
 */
static void indented(FILE *out, const char *prefix, const char *text)
{
	const char *p = text, *nl;

	while (p && *p) {
		nl = strchr(p, '\n');
		term_printf(out, "%s%.*s\n", prefix, nl ? (int)(nl - p) : (int)strlen(p), p);
		p = nl ? nl + 1 : NULL;
	}
}

static void finding_text(FILE *out, const struct finding *f, const char *number,
			 const struct report_options *o)
{
	size_t i;

	fprintf(out, "  %s%s%-8s%s", number, sev_color(f->severity, o), severity_name(f->severity), reset(o));
	term_printf(out, " %s:%d", f->file, f->line);
	if (f->end_line > f->line)
		fprintf(out, "-%d", f->end_line);
	term_printf(out, "  %s", f->title ? f->title : "");
	/* The id is what `revline feedback` takes. */
	if (finding_shown_id(f))
		fprintf(out, "  #%lld", (long long)finding_shown_id(f));
	/* A problem in code the change did not touch (a caller it breaks): said, as the evidence was checked there. */
	if (f->evidence.impact)
		fputs("  (impact: outside the diff)", out);
	if (f->suppressed && f->suppressed_by)
		term_printf(out, "  (ignored: %s)", f->suppressed_by);
	else if (f->suppressed)
		fputs("  (marked false positive before)", out);
	if (f->nfrom > 1) {
		fputs("  [", out);
		for (i = 0; i < f->nfrom; i++)
			term_printf(out, "%s%s", i ? ", " : "", f->from_rules[i]);
		fputc(']', out);
	}
	fputc('\n', out);
	if (f->issue)
		indented(out, "      ", f->issue);
	if (f->suggestion) {
		fputs("      suggestion: ", out);
		indented(out, "", f->suggestion);
	}
	term_printf(out, "      %s: %s\n", f->verified ? "verified" : "NOT verified",
		    f->verify_note ? f->verify_note : "");
}

/* Why a finding is not shown: unverified, marked false positive before, ignored inline. */
enum hidden { HIDDEN_UNVERIFIED, HIDDEN_FALSE_POSITIVE, HIDDEN_INLINE };

static enum hidden hidden_kind(const struct finding *f)
{
	return !f->suppressed ? HIDDEN_UNVERIFIED : f->suppressed_by ? HIDDEN_INLINE : HIDDEN_FALSE_POSITIVE;
}

/* Findings of a kind that a rule's line does not show. */
static size_t hidden_count(const struct rule_result *r, const struct report_options *o, enum hidden kind)
{
	size_t i, n = 0;

	for (i = 0; i < r->nfindings; i++)
		if (!report_shows(&r->findings[i], o))
			n += hidden_kind(&r->findings[i]) == kind;
	return n;
}

void report_text_rule(FILE *out, const struct check *check, size_t index,
		      const struct report_options *o)
{
	const struct rule_result *r = check_result(check, index);
	size_t hidden = hidden_count(r, o, HIDDEN_UNVERIFIED), suppressed = hidden_count(r, o, HIDDEN_FALSE_POSITIVE);
	size_t ignored = hidden_count(r, o, HIDDEN_INLINE), i;
	char time[32] = "";

	if (r->status != RULE_NOT_RELEVANT && r->status != RULE_SKIPPED)
		snprintf(time, sizeof(time), "%.1fs", (double)r->duration_ms / 1000.0);
	fprintf(out, "%s%-13s%s ", status_color(r->status, o), rule_status_name(r->status), reset(o));
	term_printf(out, "%-30s %7s", r->rule->id, time);
	if (r->cached)
		fputs("  cached (no cost)", out);
	if (r->nfindings)
		fprintf(out, "  %zu finding%s", r->nfindings, r->nfindings == 1 ? "" : "s");
	if (hidden)
		fprintf(out, " (%zu unverified, hidden)", hidden);
	if (suppressed)
		fprintf(out, " (%zu marked false positive before, hidden)", suppressed);
	if (ignored)
		fprintf(out, " (%zu ignored by a revline: ignore comment, hidden)", ignored);
	if (r->findings_dropped)
		fprintf(out, " (%zu more in the answer, not kept: an answer keeps its first %d)",
			r->findings_dropped, ANSWER_FINDINGS_MAX);
	if (r->status == RULE_SKIPPED)
		fputs("  no LLM configured", out);
	else if (r->error)
		term_printf(out, "  %s", r->error);
	/* The scheduler's message of a failed request says its attempts already. */
	if (r->attempts > (int)r->chunks && r->chunks && !(r->error && strstr(r->error, " attempts)")))
		fprintf(out, "  (%d attempts)", r->attempts);
	fputc('\n', out);
	for (i = 0; i < r->nfindings; i++)
		if (report_shows(&r->findings[i], o))
			finding_text(out, &r->findings[i], "", o);
	fflush(out);
}

static void counts_line(FILE *out, const struct check *check)
{
	size_t counts[RULE_SKIPPED + 1] = { 0 }, i;
	bool first = true;
	int s;

	for (i = 0; i < check_nresults(check); i++)
		counts[check_result(check, i)->status]++;
	fprintf(out, "%zu rules (", check_nresults(check));
	for (s = RULE_COMPLIANT; s <= RULE_SKIPPED; s++) {
		if (!counts[s])
			continue;
		fprintf(out, "%s%zu %s", first ? "" : ", ", counts[s], rule_status_name((enum rule_status)s));
		first = false;
	}
	fputs(first ? "none)" : ")", out);
}

static bool any_skipped(const struct check *check)
{
	size_t i;

	for (i = 0; i < check_nresults(check); i++)
		if (check_result(check, i)->status == RULE_SKIPPED)
			return true;
	return false;
}

/* The requests' timeout, when the change made it other than the configured one. */
static void timeout_line(FILE *out, const struct check *check)
{
	const struct timeout_choice *t = check_timeout_choice(check);

	if (t->chosen != t->base)
		term_printf(out, "\nrequests' timeout: %.0f s (%s)\n", t->chosen, t->reason);
}

/* What the check left out or cut, and the untracked files it did not see. */
static void scope_lines(FILE *out, const struct check *check)
{
	size_t i, n = check_untracked(check);

	if (check_nnotes(check))
		fputs("\nLeft out or cut:\n", out);
	for (i = 0; i < check_nnotes(check); i++)
		term_printf(out, "  %s\n", check_note(check, i));
	if (n)
		fprintf(out, "%s%zu untracked file%s not reviewed (--untracked)\n",
			check_nnotes(check) ? "" : "\n", n, n == 1 ? "" : "s");
}

static void usage_line(FILE *out, const struct check_stats *st)
{
	struct buf text = BUF_INIT;

	if (usage_stats_text(&text, st) == 0)
		fprintf(out, "; %s", text.ptr);
	fputc('\n', out);
	buf_release(&text);
}

/* The verdict, then "8 of 14 rules did not run: review incomplete" under it. */
static void overall_lines(FILE *out, const struct check *check)
{
	struct buf text = BUF_INIT;

	if (check_overall_text(&text, check) == 0)
		term_printf(out, "  overall: %s\n", text.ptr);
	if (check_incomplete_text(&text, check) == 0 && text.len)
		fprintf(out, "  %s\n", text.ptr);
	buf_release(&text);
}

/* The unmerged paths a state line names; the rest are counted. */
#define STATE_PATHS_MAX 5

/*
 * What git had in progress when the change was taken ("merge in progress:
 * 2 unmerged paths, reviewed as the working tree has them: a.c (both
 * modified), ..."); nothing when nothing was, or when both sides are
 * commits.
 */
void report_text_state(FILE *out, const struct diff *diff)
{
	size_t i, n = diff_unmerged(diff), named = 0;

	if (!diff->in_progress)
		return;
	fprintf(out, "  %s in progress", diff->in_progress);
	if (n)
		fprintf(out, ": %zu unmerged path%s, %s: ", n, n == 1 ? "" : "s",
			diff->unmerged_text ? "reviewed as the working tree has them" :
			"not in the index, not reviewed (review the working tree)");
	for (i = 0; i < diff->nfiles && named < STATE_PATHS_MAX; i++) {
		if (!diff->files[i].conflict)
			continue;
		term_printf(out, "%s%s (%s)", named++ ? ", " : "", diff->files[i].path,
			    diff_conflict_name(diff->files[i].conflict));
	}
	if (n > named)
		fprintf(out, ", and %zu more", n - named);
	fputc('\n', out);
}

void report_text_end(FILE *out, const struct check *check, const struct report_options *o)
{
	const struct report *rep = check_report(check);
	const struct check_stats *st = check_stats(check);
	size_t i, shown = 0, hidden = 0, suppressed = 0, ignored = 0;
	char number[16];

	fputc('\n', out);
	if (rep->synthesized)
		fputs("Report (synthesized by the reduce call)\n", out);
	else if (rep->fallback_reason)
		term_printf(out, "Report (merged by revline: %s)\n", rep->fallback_reason);
	else
		fputs("Report\n", out);
	report_text_state(out, check_diff(check));
	if (rep->summary)
		indented(out, "  ", rep->summary);
	overall_lines(out, check);
	if (rep->nmust_fix) {
		fputs("  must fix:\n", out);
		for (i = 0; i < rep->nmust_fix; i++)
			term_printf(out, "    - %s\n", rep->must_fix[i]);
	}
	for (i = 0; i < rep->nfindings; i++) {
		if (!report_shows(&rep->findings[i], o))
			continue;
		snprintf(number, sizeof(number), "%zu. ", ++shown);
		finding_text(out, &rep->findings[i], number, o);
	}
	for (i = 0; i < check_nresults(check); i++) {
		hidden += hidden_count(check_result(check, i), o, HIDDEN_UNVERIFIED);
		suppressed += hidden_count(check_result(check, i), o, HIDDEN_FALSE_POSITIVE);
		ignored += hidden_count(check_result(check, i), o, HIDDEN_INLINE);
	}
	timeout_line(out, check);
	report_text_context(out, check);
	scope_lines(out, check);
	if (check_id(check))
		fprintf(out, "\ncheck %lld %s in %.1fs: ", (long long)check_id(check), check_status(check),
			(double)check_duration_ms(check) / 1000.0);
	else
		fprintf(out, "\ncheck (not stored) %s in %.1fs: ", check_status(check),
			(double)check_duration_ms(check) / 1000.0);
	counts_line(out, check);
	fprintf(out, "; %zu finding%s", shown, shown == 1 ? "" : "s");
	if (hidden)
		fprintf(out, ", %zu unverified hidden (--show-unverified shows them)", hidden);
	if (suppressed)
		fprintf(out, ", %zu suppressed as false positives (--show-suppressed shows them)",
			suppressed);
	if (ignored)
		fprintf(out, ", %zu ignored by revline: ignore comments (--show-suppressed shows them)", ignored);
	usage_line(out, st);
	if (o->fixes)
		detect_fixes_print(out, o->fixes);
	if (any_skipped(check))
		fprintf(out, "LLM rules were skipped: %s\n", llm_setup_hint);
	if (check_store_error(check))
		term_printf(out, "warning: the results could not all be stored: %s\n", check_store_error(check));
	fflush(out);
}
