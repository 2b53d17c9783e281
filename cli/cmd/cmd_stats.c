/* revline stats: violations, fixes, time to fix and false positives, overall and per rule. */
#include "commands.h"
#include "bench_history.h"
#include "history.h"
#include "status.h"
#include "store.h"
#include "usage.h"
#include "utf8.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The buckets as JSON keys: the names people read have spaces and signs. */
static const char *const bucket_keys[BUCKET_COUNT] = {
	"under_5_min", "5_to_60_min", "1_to_24_h", "over_24_h",
};

/* The most common fix type, or -1 when there is no fix (a tie goes to the first). */
static int most_common_type(const struct history_stats *s)
{
	int i, best = -1;

	for (i = 0; i < FIX_TYPE_COUNT; i++)
		if (s->fix_types[i] && (best < 0 || s->fix_types[i] > s->fix_types[best]))
			best = i;
	return best;
}

static json_t *times_json(const struct history_stats *s)
{
	json_t *buckets = json_object();
	int i;

	for (i = 0; buckets && i < BUCKET_COUNT; i++)
		json_object_set_new(buckets, bucket_keys[i], json_integer(s->buckets[i]));
	return json_pack("{s:i, s:o, s:o, s:o}", "timed_fixes", (int)s->timed,
			 "average_seconds", s->timed ? json_real(s->average_seconds) : json_null(),
			 "p95_seconds", s->timed ? json_integer(s->p95_seconds) : json_null(),
			 "buckets", buckets);
}

static json_t *types_json(const struct history_stats *s)
{
	json_t *types = json_object();
	int i;

	for (i = 0; types && i < FIX_TYPE_COUNT; i++)
		json_object_set_new(types, history_fix_type_name((enum history_fix_type)i),
				    json_integer(s->fix_types[i]));
	return types;
}

static json_t *rules_json(const struct history_stats *s)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; list && i < s->nrules; i++) {
		const struct history_rule_stats *r = &s->rules[i];

		json_array_append_new(list, json_pack("{s:o, s:i, s:i, s:f, s:i, s:i, s:i, s:f}",
			"rule_id", utf8_json(r->rule_id), "violations", (int)r->violations,
			"fixes", (int)r->fixes, "fix_rate", r->fix_rate, "findings", (int)r->findings,
			"unverified", (int)r->unverified, "false_positives", (int)r->false_positives,
			"false_positive_rate", r->false_positive_rate));
	}
	return list;
}

/* What the checks billed; cost_usd over those that know theirs (null when none does). */
static json_t *usage_json(const struct history_stats *s)
{
	json_t *usage = history_usage_json(json_object(), &s->usage);

	json_object_set_new(usage, "checks_cost_unknown", json_integer(s->unpriced));
	return usage;
}

/* The benchmark's newest runs (revline bench): their figures over the cases they reviewed. */
#define BENCH_RUNS_SHOWN 5

static json_t *rate_json(double v)
{
	return v < 0 ? json_null() : json_real(v);
}

static json_t *bench_json(const struct bench_history_run *runs, size_t n)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; list && i < n; i++) {
		const struct score_summary *s = &runs[i].summary;
		json_t *o = json_pack("{s:I, s:o, s:s, s:o, s:i, s:I, s:I, s:I, s:o, s:o, s:o}",
			"run_id", (json_int_t)runs[i].id, "config", utf8_json(runs[i].config), "status", runs[i].status,
			"started_at", history_time_json(runs[i].started_at), "planned", runs[i].cases,
			"cases", (json_int_t)s->all.cases, "caught", (json_int_t)s->all.caught,
			"errors", (json_int_t)s->errors, "catch_rate", rate_json(score_catch_rate(&s->all)),
			"noise_per_case", rate_json(score_noise_per_case(&s->all)),
			"precision", rate_json(score_precision(&s->all)));

		history_usage_json(o, &s->usage);
		if (s->cost_unknown)
			json_object_set_new(o, "cost_usd", json_null());
		json_array_append_new(list, o);
	}
	return list;
}

static void bench_text(const struct bench_history_run *runs, size_t n)
{
	size_t i;

	if (!n)
		return;
	printf("\nBenchmark runs (revline bench; the newest %zu)\n", n);
	printf("  %5s  %-9s  %11s  %6s  %10s  %9s  %10s  %s\n", "run", "status", "caught", "rate", "noise/case",
	       "precision", "cost", "configuration");
	for (i = 0; i < n; i++) {
		struct score_texts t;

		score_texts_make(&t, &runs[i].summary);
		printf("  %5lld  %-9s  %11s  %6s  %10s  %9s  %10s  ", (long long)runs[i].id, runs[i].status, t.caught,
		       t.rate, t.noise, t.precision, t.cost);
		history_put(stdout, runs[i].config, 0);
		printf("\n");
	}
}

static int stats_json(const struct history_stats *s, const struct history_where *where,
		      const struct bench_history_run *runs, size_t nruns)
{
	int common = most_common_type(s);

	return history_json_out(json_pack("{s:o, s:o, s:o, s:i, s:i, s:i, s:i, s:i, s:f, s:o, s:o, s:o, s:o, s:o, s:o}",
		"repo", utf8_json(where->label), "remote", utf8_json(where->scope.remote),
		"author", utf8_json(where->scope.author), "checks", (int)s->checks, "violations", (int)s->violations,
		"unverified_findings", (int)s->unverified,
		"fixes", (int)s->fixes, "incorrect_fixes", (int)s->incorrect, "fix_rate", s->fix_rate,
		"time_to_fix", times_json(s), "fix_types", types_json(s),
		"most_common_fix_type", common < 0 ? json_null() :
		json_string(history_fix_type_name((enum history_fix_type)common)),
		"rules", rules_json(s), "usage", usage_json(s), "bench", bench_json(runs, nruns)));
}

static void times_text(const struct history_stats *s)
{
	char average[32], p95[32];
	int i;

	if (!s->timed) {
		printf("%-22s %6s\n", "time to fix", "-");
		return;
	}
	history_duration_text(average, sizeof(average), s->average_seconds);
	history_duration_text(p95, sizeof(p95), (double)s->p95_seconds);
	printf("%-22s average %s, p95 %s (%ld fix%s with a time)\n", "time to fix", average, p95,
	       s->timed, s->timed == 1 ? "" : "es");
	for (i = 0; i < BUCKET_COUNT; i++)
		printf("  %-20s %6ld\n", history_bucket_name((enum history_bucket)i), s->buckets[i]);
}

static int rule_width(const struct history_stats *s)
{
	size_t i;
	int width = 4;

	for (i = 0; i < s->nrules; i++)
		if (history_text_width(s->rules[i].rule_id) > width)
			width = history_text_width(s->rules[i].rule_id);
	return width;
}

static void rules_text(const struct history_stats *s)
{
	int width = rule_width(s);
	size_t i;

	if (!s->nrules)
		return;
	printf("\n");
	history_put(stdout, "rule", width);
	printf("  %10s  %5s  %8s  %8s  %15s  %7s\n", "violations", "fixes", "fix rate", "findings",
	       "false positives", "fp rate");
	for (i = 0; i < s->nrules; i++) {
		const struct history_rule_stats *r = &s->rules[i];

		history_put(stdout, r->rule_id, width);
		printf("  %10ld  %5ld  %7.1f%%  %8ld  %15ld  %6.1f%%\n", r->violations, r->fixes,
		       r->fix_rate * 100, r->findings, r->false_positives, r->false_positive_rate * 100);
	}
}

static void usage_text_rows(const struct history_stats *s)
{
	const struct usage *u = &s->usage;
	char in[32], cached[32], written[32], out[32], cost[32];

	usage_count_text(in, sizeof(in), u->tokens_in);
	usage_count_text(cached, sizeof(cached), u->tokens_cached);
	usage_count_text(written, sizeof(written), u->tokens_cache_write);
	usage_count_text(out, sizeof(out), u->tokens_out);
	printf("%-22s %6s", "tokens in", in);
	if (u->tokens_cache_write)
		printf("  (%s cached, %s cache writes)", cached, written);
	else if (u->tokens_in)
		printf("  (%s cached)", cached);
	printf("\n%-22s %6s\n", "tokens out", out);
	usage_cost_text(cost, sizeof(cost), u->cost_usd);
	if (u->cost_usd < 0)
		printf("%-22s unknown (%ld check%s billed tokens at no known price)\n", "estimated cost",
		       s->unpriced, s->unpriced == 1 ? "" : "s");
	else if (s->unpriced)
		printf("%-22s %6s  (and %ld check%s of unknown cost)\n", "estimated cost", cost,
		       s->unpriced, s->unpriced == 1 ? "" : "s");
	else
		printf("%-22s %6s\n", "estimated cost", cost);
}

static void stats_text(const struct history_stats *s, const struct history_where *where)
{
	int i, common = most_common_type(s);

	printf("Statistics for ");
	history_put(stdout, where->label, 0);
	if (where->scope.author) {
		printf(" by ");
		history_put(stdout, where->scope.author, 0);
	}
	printf(" (%ld check%s)\n\n", s->checks, s->checks == 1 ? "" : "s");
	printf("%-22s %6ld", "violations", s->violations);
	if (s->unverified)
		printf("  (%ld finding%s hidden as unverified: no violation, counted apart)", s->unverified,
		       s->unverified == 1 ? "" : "s");
	printf("\n");
	printf("%-22s %6ld", "fixes", s->fixes);
	if (s->incorrect)
		printf("  (and %ld marked incorrect, not counted)", s->incorrect);
	printf("\n%-22s %5.1f%%\n", "fix rate", s->fix_rate * 100);
	times_text(s);
	if (common >= 0)
		printf("%-22s most common: %s\n", "fix types",
		       history_fix_type_name((enum history_fix_type)common));
	else
		printf("fix types\n");
	for (i = 0; i < FIX_TYPE_COUNT; i++)
		printf("  %-20s %6ld\n", history_fix_type_name((enum history_fix_type)i), s->fix_types[i]);
	usage_text_rows(s);
	rules_text(s);
}

const struct command_help stats_help = {
	"stats",
	"revline stats [--repo URL] [--author EMAIL] [--json]",
	"how often violations get fixed, how fast, and false positives",
	"Figures for this repository: violations (rules needing attention on a\n"
	"finding revline verified), fixes, fix rate, average and p95 time to fix\n"
	"with the time buckets, fix types, and per rule violations, fixes, fix\n"
	"rate, verified findings, false positives and false-positive rate; findings\n"
	"hidden as unverified are counted apart and in no other figure. See\n"
	"revline(1) for the exact definitions. --repo and\n"
	"--author choose as for revline history (an author's false positives are\n"
	"the ones they marked).\n",
};

static int parse_args(int argc, char **argv, bool *json, struct history_filter *filter)
{
	const struct option options[] = { OPT_HISTORY_FILTER(filter), OPT_JSON(json), OPT_END() };
	int n = parse_options(argc, argv, options, &stats_help);

	if (n < 0)
		return n == PARSE_OPT_HELP ? -1 : 2;
	return parse_options_at_most(n, argv, 0, &stats_help) ? 0 : 2;
}

int cmd_stats(int argc, char **argv)
{
	struct history_stats stats = { 0 };
	struct history_filter filter = { 0 };
	struct history_where where;
	struct bench_history_run *runs = NULL;
	struct store *store = NULL;
	size_t nruns = 0;
	bool json = false;
	int rc;

	if ((rc = parse_args(argc, argv, &json, &filter)) != 0)
		return rc < 0 ? 0 : rc;
	if ((rc = history_open(&store, &where, &filter)) != 0)
		return rc;
	if (history_stats(&stats, store, &where.scope) < 0 ||
	    bench_history(&runs, &nruns, store, &where.scope, BENCH_RUNS_SHOWN) < 0) {
		cli_error("%s", error_message());
		rc = 2;
	} else if (json) {
		rc = stats_json(&stats, &where, runs, nruns);
	} else {
		stats_text(&stats, &where);
		bench_text(runs, nruns);
	}
	bench_history_free(runs, nruns);
	history_stats_release(&stats);
	store_close(store);
	history_where_release(&where);
	return rc;
}
