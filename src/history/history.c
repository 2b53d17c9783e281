#include "history.h"
#include "store_history.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const bucket_names[BUCKET_COUNT] = {
	"< 5 min", "5-60 min", "1-24 h", "> 24 h",
};

static const char *const fix_type_names[FIX_TYPE_COUNT] = {
	"CODE_CHANGE", "THREADLINE_CHANGED", "THREADLINE_DELETED",
};

const char *history_bucket_name(enum history_bucket bucket)
{
	return bucket < BUCKET_COUNT ? bucket_names[bucket] : "?";
}

const char *history_fix_type_name(enum history_fix_type type)
{
	return type < FIX_TYPE_COUNT ? fix_type_names[type] : "?";
}

const char *history_fix_feedback_name(enum history_fix_feedback feedback)
{
	switch (feedback) {
	case HISTORY_FIX_CORRECT: return "correct";
	case HISTORY_FIX_INCORRECT: return "incorrect";
	case HISTORY_FIX_UNRATED: break;
	}
	return "none";
}

char *history_repo_key(const char *path)
{
	size_t len = strlen(path);

	/* As the store keys repos: "/" alone stays. */
	while (len > 1 && path[len - 1] == '/')
		len--;
	return strndup(path, len);
}

/* One decimal without a trailing ".0": 2.5, 3. The value is not negative. */
static void tenths(char *out, size_t size, double value, const char *unit)
{
	long t = (long)(value * 10 + 0.5);

	if (t % 10)
		snprintf(out, size, "%ld.%ld %s", t / 10, t % 10, unit);
	else
		snprintf(out, size, "%ld %s", t / 10, unit);
}

void history_duration_text(char *out, size_t size, double seconds)
{
	if (seconds < 0)
		seconds = 0;
	if (seconds < 59.5)
		snprintf(out, size, "%.0f s", seconds);
	else if (seconds < 3570)        /* what would round to 60 min is 1 h */
		snprintf(out, size, "%.0f min", seconds / 60);
	else if (seconds < 86400)
		tenths(out, size, seconds / 3600, "h");
	else
		tenths(out, size, seconds / 86400, "d");
}

int history_checks(struct history_check **out, size_t *count, struct store *store,
		   const struct history_scope *scope, size_t limit)
{
	return store_history_checks(out, count, store, scope, limit);
}

int history_fixes(struct history_fix **out, size_t *count, struct store *store,
		  const struct history_scope *scope, const char *rule_id)
{
	return store_history_fixes(out, count, store, scope, rule_id);
}

int history_findings(struct history_finding **out, size_t *count, struct store *store,
		     const char *repo, size_t limit)
{
	return store_history_findings(out, count, store, repo, limit);
}

int history_fix_lookup(struct history_fix **out, struct store *store, int64_t fix_id)
{
	return store_history_fix(out, store, fix_id);
}

int history_violations(struct history_violation **out, size_t *count, struct store *store,
		       int64_t check_id)
{
	return store_history_violations(out, count, store, check_id);
}

/* A failure to tell counts as a change (data -1). */
bool history_changed(struct history_version *version, struct store *store)
{
	struct history_version now = { -1, 0 };
	bool changed;

	store_history_version(&now, store);
	changed = now.data < 0 || now.data != version->data || now.changes != version->changes;
	*version = now;
	return changed;
}

static int compare_seconds(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static enum history_bucket bucket_of(int64_t seconds)
{
	if (seconds < 300)
		return BUCKET_5MIN;
	if (seconds < 3600)
		return BUCKET_1H;
	if (seconds < 86400)
		return BUCKET_24H;
	return BUCKET_MORE;
}

void history_times(struct history_stats *out, int64_t *seconds, size_t count)
{
	double sum = 0;
	size_t i, rank;

	out->timed = (long)count;
	out->average_seconds = 0;
	out->p95_seconds = 0;
	memset(out->buckets, 0, sizeof(out->buckets));
	if (!count)
		return;
	qsort(seconds, count, sizeof(*seconds), compare_seconds);
	for (i = 0; i < count; i++) {
		sum += (double)seconds[i];
		out->buckets[bucket_of(seconds[i])]++;
	}
	out->average_seconds = sum / (double)count;
	/* Nearest rank: ceil(0.95 n), in integers so that 0.95 * 20 is exactly 19. */
	rank = (95 * count + 99) / 100;
	out->p95_seconds = seconds[rank - 1];
}

static enum history_fix_type fix_type_of(const char *name)
{
	int i;

	for (i = 0; i < FIX_TYPE_COUNT; i++)
		if (name && !strcmp(name, fix_type_names[i]))
			return (enum history_fix_type)i;
	return FIX_TYPE_COUNT;
}

/* The fixes' figures: counts, types, times, and each rule's fixes. */
static int fix_figures(struct history_stats *stats, const struct history_fix *fixes, size_t count)
{
	struct history_rule_stats *r;
	enum history_fix_type type;
	int64_t *seconds = NULL;
	size_t i, timed = 0;

	if (count && !(seconds = calloc(count, sizeof(*seconds))))
		return error_nomem();
	for (i = 0; i < count; i++) {
		if (fixes[i].feedback == HISTORY_FIX_INCORRECT) {
			stats->incorrect++;
			continue;
		}
		stats->fixes++;
		if ((type = fix_type_of(fixes[i].fix_type)) < FIX_TYPE_COUNT)
			stats->fix_types[type]++;
		if (fixes[i].timed)
			seconds[timed++] = fixes[i].seconds;
		if (!(r = history_rule_entry(stats, fixes[i].rule_id))) {
			free(seconds);
			return error_nomem();
		}
		r->fixes++;
	}
	history_times(stats, seconds, timed);
	free(seconds);
	return 0;
}

static double rate(long part, long whole)
{
	return whole > 0 ? (double)part / (double)whole : 0;
}

static int compare_rules(const void *a, const void *b)
{
	const struct history_rule_stats *x = a, *y = b;

	if (x->violations != y->violations)
		return x->violations > y->violations ? -1 : 1;
	return strcmp(x->rule_id, y->rule_id);
}

static void rates_compute(struct history_stats *stats)
{
	size_t i;

	stats->fix_rate = rate(stats->fixes, stats->violations);
	for (i = 0; i < stats->nrules; i++) {
		struct history_rule_stats *r = &stats->rules[i];

		r->fix_rate = rate(r->fixes, r->violations);
		r->false_positive_rate = rate(r->false_positives, r->findings);
	}
	if (stats->nrules)
		qsort(stats->rules, stats->nrules, sizeof(*stats->rules), compare_rules);
}

/* The store's counts, and from its fixes the figures of fixes and times. */
int history_stats(struct history_stats *out, struct store *store, const struct history_scope *scope)
{
	struct history_fix *fixes = NULL;
	size_t nfixes = 0;
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = store_history_counts(out, &fixes, &nfixes, store, scope)) < 0 ||
	    (error = fix_figures(out, fixes, nfixes)) < 0) {
		history_fixes_free(fixes, nfixes);
		history_stats_release(out);
		return error;
	}
	history_fixes_free(fixes, nfixes);
	rates_compute(out);
	return 0;
}

void history_stats_release(struct history_stats *stats)
{
	size_t i;

	for (i = 0; i < stats->nrules; i++)
		free(stats->rules[i].rule_id);
	free(stats->rules);
	memset(stats, 0, sizeof(*stats));
}
