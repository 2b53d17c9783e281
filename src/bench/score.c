/* A benchmark's score without a judge: findings on the fix's lines, elsewhere, unverified. */
#include "score.h"
#include "array.h"
#include "check.h"
#include "status.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const outcome_names[] = {
#define SCORE_OUTCOME_NAME(id, name) name,
	SCORE_OUTCOME_LIST(SCORE_OUTCOME_NAME)
#undef SCORE_OUTCOME_NAME
};

const char *score_outcome_name(enum score_outcome o)
{
	return (size_t)o < sizeof(outcome_names) / sizeof(outcome_names[0]) ? outcome_names[o] : "error";
}

bool score_outcome_parse(enum score_outcome *out, const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(outcome_names) / sizeof(outcome_names[0]); i++)
		if (!strcmp(name, outcome_names[i])) {
			*out = (enum score_outcome)i;
			return true;
		}
	return false;
}

void score_case_release(struct score_case *c)
{
	free(c->error);
	free(c->detail);
	memset(c, 0, sizeof(*c));
}

static json_t *tally_json(const struct score_tally *t)
{
	return json_pack("[I, I, I, I, I]", (json_int_t)t->cases, (json_int_t)t->caught, (json_int_t)t->hits,
			 (json_int_t)t->noise, (json_int_t)t->unverified);
}

/* A rule's findings counted into its tally and the severities'. */
static void rule_count(struct score_tally *rule, struct score_tally *sev, const struct rule_result *r,
		       const struct bench_case *bc, int tolerance)
{
	size_t i;

	for (i = 0; i < r->nfindings; i++) {
		const struct finding *f = &r->findings[i];
		struct score_tally *s = &sev[(size_t)f->severity < SEV_COUNT ? f->severity : SEV_MAJOR];

		if (f->suppressed)
			continue;
		if (!f->verified) {
			rule->unverified++;
			s->unverified++;
		} else if (bench_case_hits(bc, f->file, f->line, f->end_line, tolerance)) {
			rule->hits++;
			s->hits++;
			rule->caught = s->caught = 1;
		} else {
			rule->noise++;
			s->noise++;
		}
	}
}

static bool rule_asked(enum rule_status s)
{
	return s == RULE_COMPLIANT || s == RULE_ATTENTION;
}

static bool rule_failed(enum rule_status s)
{
	return s == RULE_ERROR || s == RULE_TIMEOUT;
}

/* The case's figures from the check's rules; *failed: a rule that should have answered did not. */
static json_t *case_tally(struct score_case *out, bool *failed, const struct bench_case *bc,
			  const struct check *check, int tolerance)
{
	struct score_tally sev[SEV_COUNT] = { { 0 } };
	json_t *rules = json_object(), *sevs = json_object();
	size_t i, n = check_nresults(check);

	*failed = false;
	for (i = 0; i < n; i++) {
		const struct rule_result *r = check_result(check, i);
		struct score_tally t = { rule_asked(r->status), 0, 0, 0, 0 };

		*failed |= rule_failed(r->status);
		if (!r->rule || !r->rule->id || (!t.cases && !r->nfindings))
			continue;
		rule_count(&t, sev, r, bc, tolerance);
		out->hits += (int)t.hits;
		out->noise += (int)t.noise;
		out->unverified += (int)t.unverified;
		json_object_set_new(rules, r->rule->id, tally_json(&t));
	}
	for (i = 0; i < SEV_COUNT; i++)
		if (sev[i].hits || sev[i].noise || sev[i].unverified)
			json_object_set_new(sevs, severity_name((enum severity)i), tally_json(&sev[i]));
	return json_pack("{s:o, s:o}", "rules", rules, "severities", sevs);
}

int score_check(struct score_case *out, const struct bench_case *bc, const struct check *check, int tolerance)
{
	json_t *detail;
	bool failed;

	out->case_id = bc->id;
	out->check_id = check_stored(check) ? check_id(check) : 0;
	out->hits = out->noise = out->unverified = 0;
	usage_of_stats(&out->usage, check_stats(check));
	out->ms = check_duration_ms(check);
	if (!(detail = case_tally(out, &failed, bc, check, tolerance)))
		return error_nomem();
	out->detail = json_dumps(detail, JSON_COMPACT);
	json_decref(detail);
	if (!out->detail)
		return error_nomem();
	if (out->hits)
		out->outcome = SCORE_CAUGHT;
	else if (failed || !strcmp(check_status(check), "failed") || !strcmp(check_status(check), "cancelled"))
		out->outcome = SCORE_ERROR;
	else
		out->outcome = SCORE_MISSED;
	if (out->outcome == SCORE_ERROR && !(out->error = strdup("a rule failed or timed out: the case is "
								    "not scored (revline history shows the check)")))
		return error_nomem();
	return 0;
}

/* --- over many cases --------------------------------------------------------- */

static int tally_read(struct score_tally *t, json_t *a, const char *what)
{
	json_int_t v[5];
	size_t i;

	if (!json_is_array(a) || json_array_size(a) != 5)
		return error_set(RL_EPARSE, "a bench result's detail: %s is not [asked, caught, hits, noise, unverified]",
				 what);
	for (i = 0; i < 5; i++) {
		json_t *x = json_array_get(a, i);

		if (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) > 1000000)
			return error_set(RL_EPARSE, "a bench result's detail: %s holds a count that is not 0 to 1000000",
					 what);
		v[i] = json_integer_value(x);
	}
	t->cases += v[0];
	t->caught += v[1] > 0;
	t->hits += v[2];
	t->noise += v[3];
	t->unverified += v[4];
	return 0;
}

static struct score_tally *rule_of(struct score_summary *s, const char *id)
{
	size_t i;

	for (i = 0; i < s->nrules; i++)
		if (!strcmp(s->rules[i].rule_id, id))
			return &s->rules[i].t;
	if (s->nrules >= 1000 || ARRAY_GROW(s->rules, s->rules_alloc, s->nrules + 1) < 0)
		return NULL;
	memset(&s->rules[s->nrules], 0, sizeof(s->rules[0]));
	if (!(s->rules[s->nrules].rule_id = strdup(id)))
		return NULL;
	return &s->rules[s->nrules++].t;
}

static int detail_add(struct score_summary *s, const char *text)
{
	json_t *root = json_loads(text ? text : "{}", JSON_REJECT_DUPLICATES, NULL), *v;
	const char *key;
	int error = 0;

	if (!json_is_object(root)) {
		json_decref(root);
		return error_set(RL_EPARSE, "a bench result's detail is not a JSON object");
	}
	json_object_foreach(json_object_get(root, "rules"), key, v) {
		struct score_tally *t = rule_of(s, key);

		if (!t) {
			error = error_set(RL_EPARSE, "a bench result's detail: over 1000 rules");
			break;
		}
		if ((error = tally_read(t, v, key)) < 0)
			break;
	}
	json_object_foreach(json_object_get(root, "severities"), key, v) {
		enum severity sev;

		if (error < 0 || !severity_parse(&sev, key))
			continue;
		if ((error = tally_read(&s->severities[sev], v, key)) < 0)
			break;
	}
	json_decref(root);
	return error;
}

int score_summary_add(struct score_summary *s, const struct score_case *c)
{
	size_t i;
	int error;

	s->cases++;
	s->ms += c->ms;
	s->usage.tokens_in += c->usage.tokens_in;
	s->usage.tokens_cached += c->usage.tokens_cached;
	s->usage.tokens_cache_write += c->usage.tokens_cache_write;
	s->usage.tokens_out += c->usage.tokens_out;
	if (c->usage.cost_usd >= 0)
		s->usage.cost_usd += c->usage.cost_usd;
	else if (usage_billed(&c->usage))
		s->cost_unknown = true;
	if (c->outcome == SCORE_ERROR) {
		s->errors++;
		return 0;
	}
	s->all.cases++;
	s->all.caught += c->outcome == SCORE_CAUGHT;
	s->all.hits += c->hits;
	s->all.noise += c->noise;
	s->all.unverified += c->unverified;
	if ((error = detail_add(s, c->detail)) < 0)
		return error;
	/* Every severity is asked in every case reviewed. */
	for (i = 0; i < SEV_COUNT; i++)
		s->severities[i].cases = s->all.cases;
	return 0;
}

void score_summary_release(struct score_summary *s)
{
	size_t i;

	for (i = 0; i < s->nrules; i++)
		free(s->rules[i].rule_id);
	free(s->rules);
	memset(s, 0, sizeof(*s));
}

double score_catch_rate(const struct score_tally *t)
{
	return t->cases ? (double)t->caught / (double)t->cases : -1;
}

double score_noise_per_case(const struct score_tally *t)
{
	return t->cases ? (double)t->noise / (double)t->cases : -1;
}

double score_precision(const struct score_tally *t)
{
	return t->hits + t->noise ? (double)t->hits / (double)(t->hits + t->noise) : -1;
}

void score_percent_text(char *out, size_t size, double v)
{
	if (v < 0)
		snprintf(out, size, "-");
	else
		snprintf(out, size, "%.1f%%", v * 100);
}

void score_number_text(char *out, size_t size, double v)
{
	if (v < 0)
		snprintf(out, size, "-");
	else
		snprintf(out, size, "%.2f", v);
}

void score_texts_make(struct score_texts *out, const struct score_summary *s)
{
	snprintf(out->caught, sizeof(out->caught), "%ld/%ld", s->all.caught, s->all.cases);
	score_percent_text(out->rate, sizeof(out->rate), score_catch_rate(&s->all));
	score_number_text(out->noise, sizeof(out->noise), score_noise_per_case(&s->all));
	score_percent_text(out->precision, sizeof(out->precision), score_precision(&s->all));
	usage_cost_text(out->cost, sizeof(out->cost), s->cost_unknown ? -1 : s->usage.cost_usd);
}
