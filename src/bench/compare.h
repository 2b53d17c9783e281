#ifndef REVLINE_COMPARE_H
#define REVLINE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Two configurations over the same cases, paired case by case: how many
 * cases each caught that the other missed, the exact two-sided sign test
 * over those (the cases both caught or both missed say nothing of which
 * is better), and 95% bootstrap intervals (2,000 resamples of the cases,
 * a fixed seed) of the differences B - A in catch rate and in noise per
 * case. Only cases both reviewed (neither an error) are paired.
 */
struct compare_pair {
	bool caught_a, caught_b;
	int noise_a, noise_b;
};

struct compare {
	size_t pairs;
	size_t only_a, only_b, both, neither;
	double p_value;                 /* the sign test's; 1 when no case differs */
	double catch_diff, catch_low, catch_high;       /* B - A, as fractions */
	double noise_diff, noise_low, noise_high;       /* B - A, findings per case */
};

#define COMPARE_RESAMPLES 2000

void compare_pairs(struct compare *out, const struct compare_pair *pairs, size_t count, uint64_t seed);

/* The exact two-sided binomial test of k successes in n at one half. */
double compare_sign_test(size_t k, size_t n);

#endif
