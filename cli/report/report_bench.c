/* revline bench's outputs: the cases, a run's figures, two runs side by side; text and JSON. */
#include "report_bench.h"
#include "commands.h"
#include "term.h"
#include "usage.h"
#include "utf8.h"

#include <jansson.h>
#include <string.h>
#include <time.h>

const struct bench_case *bench_report_case(const struct bench_cases *cases, int64_t id)
{
	size_t i;

	for (i = 0; i < cases->count; i++)
		if (cases->items[i].id == id)
			return &cases->items[i];
	return NULL;
}

static void date_text(char *out, size_t size, int64_t seconds)
{
	time_t t = (time_t)seconds;
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(out, size, "%Y-%m-%d", &tm))
		snprintf(out, size, "-");
}

static void mined_text(FILE *out, const struct mine_stats *m)
{
	fprintf(out, "Mined %zu commits in %.2f s: %zu fix%s (%zu merges and %zu bots' commits skipped); of the fixes, "
	       "%zu typo/docs/style, %zu too large, %zu only tests or docs%s",
	       m->commits, (double)m->ms / 1000.0, m->fixes, m->fixes == 1 ? "" : "es", m->merges, m->bots,
	       m->style, m->large, m->no_code, m->outside ? "," : ";");
	if (m->outside)
		fprintf(out, " %zu outside --paths;", m->outside);
	fprintf(out, " %zu make a case.\n", m->found);
}

void report_bench_list_text(FILE *out, const struct bench_cases *cases, const struct mine_stats *mined,
			    const char *mined_with)
{
	struct buf where = BUF_INIT;
	size_t i, excluded = 0;

	if (mined)
		mined_text(out, mined);
	for (i = 0; i < cases->count; i++)
		excluded += cases->items[i].excluded;
	fprintf(out, "%zu case%s (%zu excluded), mined with %s\n\n", cases->count, cases->count == 1 ? "" : "s",
		excluded, mined_with && *mined_with ? mined_with : "the defaults");
	for (i = 0; i < cases->count; i++) {
		const struct bench_case *c = &cases->items[i];
		char date[16];

		buf_clear(&where);
		bench_case_where(&where, c);
		date_text(date, sizeof(date), c->time);
		fprintf(out, "%.7s  %s  %-12s %4d lines  %s", c->commit, date, fixcommit_why_name(c->why), c->lines,
			c->excluded ? "(excluded)  " : "");
		term_puts(out, c->subject ? c->subject : "");
		fprintf(out, "\n         ");
		term_puts(out, where.ptr ? where.ptr : "");
		fputc('\n', out);
	}
	buf_release(&where);
}

static json_t *case_json(const struct bench_case *c)
{
	struct buf where = BUF_INIT;
	json_t *o;

	bench_case_where(&where, c);
	o = json_pack("{s:s, s:s, s:o, s:s, s:I, s:i, s:b, s:o}", "commit", c->commit, "parent", c->parent,
		      "subject", utf8_json(c->subject ? c->subject : ""), "why", fixcommit_why_name(c->why),
		      "committed_at", (json_int_t)c->time, "lines", c->lines, "excluded", c->excluded,
		      "expected", utf8_json(where.ptr ? where.ptr : ""));
	buf_release(&where);
	return o;
}

int report_bench_list_json(FILE *out, const struct bench_cases *cases, const struct mine_stats *m,
			   const char *mined_with)
{
	json_t *list = json_array(), *doc;
	size_t i;

	(void)out;
	for (i = 0; list && i < cases->count; i++)
		json_array_append_new(list, case_json(&cases->items[i]));
	doc = json_pack("{s:o, s:s, s:o}", "cases", list, "mined_with", mined_with ? mined_with : "",
			"mining", m ? json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
						"commits", (json_int_t)m->commits, "merges", (json_int_t)m->merges,
						"bots", (json_int_t)m->bots, "fixes", (json_int_t)m->fixes,
						"style", (json_int_t)m->style, "too_large", (json_int_t)m->large,
						"no_code", (json_int_t)m->no_code, "outside_paths",
						(json_int_t)m->outside, "found", (json_int_t)m->found,
						"ms", (json_int_t)m->ms) : json_null());
	return history_json_out(doc);
}

void report_bench_case_text(FILE *out, const struct bench_case *c, const struct score_case *r, size_t n, size_t of)
{
	fprintf(out, "%4zu/%zu  %.7s  %-7s", n, of, c->commit, score_outcome_name(r->outcome));
	if (r->outcome == SCORE_ERROR) {
		fputs("  ", out);
		term_puts(out, r->error ? r->error : "not reviewed");
	} else {
		fprintf(out, "  %d on the fix's lines, %d elsewhere, %d unverified", r->hits, r->noise, r->unverified);
	}
	fputs("  ", out);
	term_puts(out, c->subject ? c->subject : "");
	fputc('\n', out);
}

static void usage_rows(FILE *out, const struct score_summary *s)
{
	char in[32], cached[32], tokens_out[32], cost[32];

	usage_count_text(in, sizeof(in), s->usage.tokens_in);
	usage_count_text(cached, sizeof(cached), s->usage.tokens_cached);
	usage_count_text(tokens_out, sizeof(tokens_out), s->usage.tokens_out);
	usage_cost_text(cost, sizeof(cost), s->cost_unknown ? -1 : s->usage.cost_usd);
	fprintf(out, "%-20s %s", "tokens in", in);
	if (s->usage.tokens_in)
		fprintf(out, "  (%s cached, %.0f%%)", cached,
			100.0 * (double)s->usage.tokens_cached / (double)s->usage.tokens_in);
	fprintf(out, "\n%-20s %s\n%-20s %s%s\n", "tokens out", tokens_out, "estimated cost", cost,
		s->cost_unknown ? " (a model's price is not in the model table)" : "");
	fprintf(out, "%-20s %.1f s", "time", (double)s->ms / 1000.0);
	if (s->cases)
		fprintf(out, " (%.1f s a case)", (double)s->ms / 1000.0 / (double)s->cases);
	fputc('\n', out);
}

static void tally_row(FILE *out, const char *name, int width, const struct score_tally *t)
{
	char rate[16], noise[16], precision[16];

	score_percent_text(rate, sizeof(rate), score_catch_rate(t));
	score_number_text(noise, sizeof(noise), score_noise_per_case(t));
	score_percent_text(precision, sizeof(precision), score_precision(t));
	term_pad(out, name, width);
	fprintf(out, "  %5ld  %6ld  %10s  %10s  %9s  %10ld\n", t->cases, t->caught, rate, noise, precision,
		t->unverified);
}

static void breakdown_text(FILE *out, const struct score_summary *s)
{
	int width = 8;
	size_t i;

	for (i = 0; i < s->nrules; i++)
		if (term_width(s->rules[i].rule_id) > width)
			width = term_width(s->rules[i].rule_id);
	fputc('\n', out);
	term_pad(out, "rule", width);
	fprintf(out, "  %5s  %6s  %10s  %10s  %9s  %10s\n", "cases", "caught", "catch rate", "noise/case",
		"precision", "unverified");
	for (i = 0; i < s->nrules; i++)
		tally_row(out, s->rules[i].rule_id, width, &s->rules[i].t);
	fputc('\n', out);
	term_pad(out, "severity", width);
	fprintf(out, "  %5s  %6s  %10s  %10s  %9s  %10s\n", "cases", "caught", "catch rate", "noise/case",
		"precision", "unverified");
	for (i = SEV_COUNT; i-- > 0;)
		tally_row(out, severity_name((enum severity)i), width, &s->severities[i]);
}

void report_bench_run_text(FILE *out, const struct bench_report_run *run, int tolerance)
{
	const struct score_summary *s = &run->summary;
	char rate[16], noise[16], precision[16];

	score_percent_text(rate, sizeof(rate), score_catch_rate(&s->all));
	score_number_text(noise, sizeof(noise), score_noise_per_case(&s->all));
	score_percent_text(precision, sizeof(precision), score_precision(&s->all));
	fprintf(out, "\nBenchmark run %lld: ", (long long)run->run_id);
	term_puts(out, run->config);
	fprintf(out, "\nA case is caught when a verified finding lies within %d lines of the fix's lines in its "
		"file.\n\n", tolerance);
	fprintf(out, "%-20s %ld of %ld cases  %s\n", "caught", s->all.caught, s->all.cases, rate);
	fprintf(out, "%-20s %s  (%ld verified finding%s elsewhere)\n", "noise per case", noise, s->all.noise,
		s->all.noise == 1 ? "" : "s");
	fprintf(out, "%-20s %s  (%ld of %ld verified findings on the fix's lines)\n", "precision", precision,
		s->all.hits, s->all.hits + s->all.noise);
	fprintf(out, "%-20s %ld  (counted apart, in no figure above)\n", "unverified", s->all.unverified);
	if (s->errors)
		fprintf(out, "%-20s %ld case%s not scored (a rule failed or timed out: revline history shows it)\n",
			"errors", s->errors, s->errors == 1 ? "" : "s");
	usage_rows(out, s);
	breakdown_text(out, s);
}

static void side_row(FILE *out, const char *name, const char *a, const char *b, const char *diff)
{
	fprintf(out, "%-16s %-18s %-18s %s\n", name, a, b, diff);
}

static void compare_rows(FILE *out, const struct score_summary *a, const struct score_summary *b,
			 const struct compare *cmp)
{
	char x[48], y[48], d[160], ca[32], cb[32];

	snprintf(x, sizeof(x), "%ld/%ld %.1f%%", a->all.caught, a->all.cases, 100 * score_catch_rate(&a->all));
	snprintf(y, sizeof(y), "%ld/%ld %.1f%%", b->all.caught, b->all.cases, 100 * score_catch_rate(&b->all));
	snprintf(d, sizeof(d), "%+.1f points (95%% interval %+.1f to %+.1f)", 100 * cmp->catch_diff,
		 100 * cmp->catch_low, 100 * cmp->catch_high);
	side_row(out, "caught", x, y, cmp->pairs ? d : "-");
	score_number_text(x, sizeof(x), score_noise_per_case(&a->all));
	score_number_text(y, sizeof(y), score_noise_per_case(&b->all));
	snprintf(d, sizeof(d), "%+.2f (95%% interval %+.2f to %+.2f)", cmp->noise_diff, cmp->noise_low,
		 cmp->noise_high);
	side_row(out, "noise per case", x, y, cmp->pairs ? d : "-");
	score_percent_text(x, sizeof(x), score_precision(&a->all));
	score_percent_text(y, sizeof(y), score_precision(&b->all));
	side_row(out, "precision", x, y, "");
	snprintf(x, sizeof(x), "%ld", a->all.unverified);
	snprintf(y, sizeof(y), "%ld", b->all.unverified);
	side_row(out, "unverified", x, y, "");
	usage_cost_text(ca, sizeof(ca), a->cost_unknown ? -1 : a->usage.cost_usd);
	usage_cost_text(cb, sizeof(cb), b->cost_unknown ? -1 : b->usage.cost_usd);
	side_row(out, "estimated cost", ca, cb, "");
	usage_count_text(ca, sizeof(ca), a->usage.tokens_in);
	usage_count_text(cb, sizeof(cb), b->usage.tokens_in);
	side_row(out, "tokens in", ca, cb, "");
	snprintf(x, sizeof(x), "%.1f s", (double)a->ms / 1000.0);
	snprintf(y, sizeof(y), "%.1f s", (double)b->ms / 1000.0);
	side_row(out, "time", x, y, "");
}

void report_bench_compare_text(FILE *out, const struct bench_report_run *a, const struct bench_report_run *b,
			       const struct compare *cmp)
{
	size_t differ = cmp->only_a + cmp->only_b;

	fprintf(out, "\nA: ");
	term_puts(out, a->label);
	fprintf(out, " (run %lld)\nB: ", (long long)a->run_id);
	term_puts(out, b->label);
	fprintf(out, " (run %lld)\n\n", (long long)b->run_id);
	side_row(out, "", "A", "B", "B - A");
	compare_rows(out, &a->summary, &b->summary, cmp);
	fprintf(out, "\nPaired over the %zu cases both reviewed: both caught %zu, neither %zu; B caught %zu that A "
		"missed, A caught %zu that B missed.\n", cmp->pairs, cmp->both, cmp->neither, cmp->only_b, cmp->only_a);
	if (!differ)
		fprintf(out, "They caught the same cases: these cases cannot tell them apart.\n");
	else
		fprintf(out, "Sign test over the %zu case%s they disagree on: p = %.3g, %s.\n", differ,
			differ == 1 ? "" : "s", cmp->p_value, cmp->p_value < 0.05 ?
			"a difference unlikely to be chance (p < 0.05)" :
			"not a clear difference: it could be chance (p >= 0.05); more cases would tell");
	fprintf(out, "The intervals are bootstrap intervals over the cases (%d resamples, a fixed seed).\n",
		COMPARE_RESAMPLES);
}

static json_t *rate_json(double v)
{
	return v < 0 ? json_null() : json_real(v);
}

static json_t *tally_json(const char *key, const char *name, const struct score_tally *t)
{
	return json_pack("{s:o, s:I, s:I, s:o, s:o, s:o, s:I, s:I, s:I}", key, utf8_json(name),
			 "cases", (json_int_t)t->cases, "caught", (json_int_t)t->caught, "catch_rate", rate_json(score_catch_rate(t)), "noise_per_case",
			 rate_json(score_noise_per_case(t)), "precision", rate_json(score_precision(t)),
			 "hits", (json_int_t)t->hits, "noise", (json_int_t)t->noise, "unverified",
			 (json_int_t)t->unverified);
}

static json_t *outcomes_json(const struct bench_cases *cases, const struct bench_report_run *run)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; list && i < run->nresults; i++) {
		const struct score_case *r = &run->results[i];
		const struct bench_case *c = bench_report_case(cases, r->case_id);

		json_array_append_new(list, json_pack("{s:s, s:o, s:s, s:i, s:i, s:i, s:o, s:o, s:I, s:o}",
			"commit", c ? c->commit : "", "subject", utf8_json(c && c->subject ? c->subject : ""),
			"outcome", score_outcome_name(r->outcome), "hits", r->hits, "noise", r->noise,
			"unverified", r->unverified, "check_id", r->check_id ? json_integer(r->check_id) : json_null(),
			"error", r->error ? utf8_json(r->error) : json_null(), "ms", (json_int_t)r->ms,
			"cost_usd", r->usage.cost_usd < 0 ? json_null() : json_real(r->usage.cost_usd)));
	}
	return list;
}

static json_t *run_json(const struct bench_cases *cases, const struct bench_report_run *run)
{
	const struct score_summary *s = &run->summary;
	json_t *rules = json_array(), *sevs = json_array(), *doc;
	size_t i;

	for (i = 0; rules && i < s->nrules; i++)
		json_array_append_new(rules, tally_json("rule_id", s->rules[i].rule_id, &s->rules[i].t));
	for (i = SEV_COUNT; sevs && i-- > 0;)
		json_array_append_new(sevs, tally_json("severity", severity_name((enum severity)i), &s->severities[i]));
	doc = json_pack("{s:I, s:o, s:o, s:I, s:I, s:I, s:o, s:o, s:o, s:I, s:I, s:I}",
		"run_id", (json_int_t)run->run_id, "label", utf8_json(run->label), "config", utf8_json(run->config),
		"cases", (json_int_t)s->all.cases, "caught", (json_int_t)s->all.caught, "errors", (json_int_t)s->errors,
		"catch_rate", rate_json(score_catch_rate(&s->all)), "noise_per_case",
		rate_json(score_noise_per_case(&s->all)), "precision", rate_json(score_precision(&s->all)),
		"hits", (json_int_t)s->all.hits, "noise", (json_int_t)s->all.noise,
		"unverified", (json_int_t)s->all.unverified);
	history_usage_json(doc, &s->usage);
	if (s->cost_unknown)
		json_object_set_new(doc, "cost_usd", json_null());
	json_object_set_new(doc, "cached_share", s->usage.tokens_in ?
			    json_real((double)s->usage.tokens_cached / (double)s->usage.tokens_in) : json_null());
	json_object_set_new(doc, "seconds", json_real((double)s->ms / 1000.0));
	json_object_set_new(doc, "rules", rules);
	json_object_set_new(doc, "severities", sevs);
	json_object_set_new(doc, "outcomes", outcomes_json(cases, run));
	return doc;
}

static json_t *compare_json(const struct compare *c)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:f, s:s, s:{s:f, s:f, s:f}, s:{s:f, s:f, s:f}}",
		"pairs", (json_int_t)c->pairs, "only_a", (json_int_t)c->only_a, "only_b", (json_int_t)c->only_b,
		"both", (json_int_t)c->both, "neither", (json_int_t)c->neither, "sign_test_p", c->p_value,
		"interval", "95% bootstrap over the cases",
		"catch_rate_diff", "value", c->catch_diff, "low", c->catch_low, "high", c->catch_high,
		"noise_per_case_diff", "value", c->noise_diff, "low", c->noise_low, "high", c->noise_high);
}

int report_bench_json(FILE *out, const struct bench_cases *cases, const struct bench_report_run *runs, size_t nruns,
		      const struct compare *cmp, int tolerance)
{
	json_t *doc, *list;
	size_t i;

	(void)out;
	if (nruns == 1) {
		doc = run_json(cases, &runs[0]);
		json_object_set_new(doc, "tolerance", json_integer(tolerance));
		return history_json_out(doc);
	}
	list = json_array();
	for (i = 0; list && i < nruns; i++)
		json_array_append_new(list, run_json(cases, &runs[i]));
	doc = json_pack("{s:i, s:o, s:o}", "tolerance", tolerance, "runs", list, "compare", compare_json(cmp));
	return history_json_out(doc);
}
