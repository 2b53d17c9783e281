#ifndef REVLINE_SCORE_H
#define REVLINE_SCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_case.h"
#include "severity.h"
#include "usage.h"

/*
 * A benchmark's score, without a judge model. A case is caught when a
 * verified finding (not suppressed) lies on the fix's lines in that file,
 * within SCORE_TOLERANCE lines; a verified finding elsewhere is noise;
 * unverified findings are counted apart and in neither. Per rule, per
 * severity and overall: catch rate (cases caught / cases reviewed), noise
 * per case, precision (findings on the fix's lines / verified findings),
 * what the requests billed and how long the cases took.
 */
#define SCORE_TOLERANCE 3

#define SCORE_OUTCOME_LIST(X) \
	X(SCORE_CAUGHT, "caught") \
	X(SCORE_MISSED, "missed") \
	X(SCORE_ERROR,  "error")

enum score_outcome {
#define SCORE_OUTCOME_ENUM(id, name) id,
	SCORE_OUTCOME_LIST(SCORE_OUTCOME_ENUM)
#undef SCORE_OUTCOME_ENUM
};

const char *score_outcome_name(enum score_outcome outcome);
bool score_outcome_parse(enum score_outcome *out, const char *name);

/* What one rule or one severity did in a case, or over many. */
struct score_tally {
	long cases;             /* reviewed (a rule: cases it was asked about) */
	long caught, hits, noise, unverified;
};

/* One case's outcome in a run. */
struct score_case {
	int64_t case_id, check_id;
	enum score_outcome outcome;
	int hits, noise, unverified;
	struct usage usage;
	long ms;
	char *error;            /* why it could not be reviewed (SCORE_ERROR) */
	/* {"rules": {"ID": [asked, caught, hits, noise, unverified]}, "severities": {"major": [...]}} */
	char *detail;
};

void score_case_release(struct score_case *c);

struct check;
/* A finished check of the case, scored (rules that errored or timed out make it an error when no rule caught it). */
int score_check(struct score_case *out, const struct bench_case *bc, const struct check *check, int tolerance);

/* The figures over many cases. */
struct score_rule {
	char *rule_id;
	struct score_tally t;
};

struct score_summary {
	long cases, errors;     /* every case with an outcome; of them, errors (not in the rates) */
	struct score_tally all;
	struct score_tally severities[SEV_COUNT];
	struct score_rule *rules;
	size_t nrules, rules_alloc;
	struct usage usage;
	bool cost_unknown;      /* a case billed tokens at no known price */
	long ms;
};

/* Add a case's outcome (its detail read within bounds: RL_EPARSE when it is not the shape above). */
int score_summary_add(struct score_summary *s, const struct score_case *c);
void score_summary_release(struct score_summary *s);

/* The rates of a tally: -1 when there is nothing to divide by. */
double score_catch_rate(const struct score_tally *t);
double score_noise_per_case(const struct score_tally *t);
double score_precision(const struct score_tally *t);

/* A rate as text: "30.0%" (score_percent_text) or "0.50" (score_number_text); "-" for -1. */
void score_percent_text(char *out, size_t size, double v);
void score_number_text(char *out, size_t size, double v);

/* A summary's figures as the stats show a run: "3/10", its catch rate, noise a case, precision, cost. */
struct score_texts {
	char caught[48], rate[16], noise[16], precision[16], cost[32];
};
void score_texts_make(struct score_texts *out, const struct score_summary *s);

#endif
