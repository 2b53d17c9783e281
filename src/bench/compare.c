/* Two configurations over the same cases: the sign test and bootstrap intervals. */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double compare_sign_test(size_t k, size_t n)
{
	size_t i, low = k < n - k ? k : n - k;
	double tail = 0, log_half = n * log(0.5);

	if (!n)
		return 1;
	/* P(X <= low) by the binomial's terms in logs (lgamma), doubled, at most 1. */
	for (i = 0; i <= low; i++)
		tail += exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) + log_half);
	tail *= 2;
	return tail > 1 ? 1 : tail;
}

/* xorshift64*: the resamples' fixed sequence. */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The 2.5th and 97.5th percentiles of the resampled differences. */
static void interval(double *low, double *high, double *values)
{
	qsort(values, COMPARE_RESAMPLES, sizeof(*values), by_value);
	*low = values[(size_t)(COMPARE_RESAMPLES * 0.025)];
	*high = values[(size_t)(COMPARE_RESAMPLES * 0.975) - 1];
}

static void bootstrap(struct compare *out, const struct compare_pair *pairs, size_t n, uint64_t seed)
{
	double *catch = malloc(COMPARE_RESAMPLES * sizeof(double));
	double *noise = malloc(COMPARE_RESAMPLES * sizeof(double));
	uint64_t state = seed ? seed : 0x9e3779b97f4a7c15ULL;
	size_t r, i;

	if (!catch || !noise) {         /* no interval: the point itself */
		out->catch_low = out->catch_high = out->catch_diff;
		out->noise_low = out->noise_high = out->noise_diff;
		goto done;
	}
	for (r = 0; r < COMPARE_RESAMPLES; r++) {
		long dc = 0, dn = 0;

		for (i = 0; i < n; i++) {
			const struct compare_pair *p = &pairs[next_random(&state) % n];

			dc += (long)p->caught_b - (long)p->caught_a;
			dn += (long)p->noise_b - (long)p->noise_a;
		}
		catch[r] = (double)dc / (double)n;
		noise[r] = (double)dn / (double)n;
	}
	interval(&out->catch_low, &out->catch_high, catch);
	interval(&out->noise_low, &out->noise_high, noise);
done:
	free(catch);
	free(noise);
}

void compare_pairs(struct compare *out, const struct compare_pair *pairs, size_t n, uint64_t seed)
{
	long noise = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->pairs = n;
	out->p_value = 1;
	if (!n)
		return;
	for (i = 0; i < n; i++) {
		out->only_a += pairs[i].caught_a && !pairs[i].caught_b;
		out->only_b += pairs[i].caught_b && !pairs[i].caught_a;
		out->both += pairs[i].caught_a && pairs[i].caught_b;
		out->neither += !pairs[i].caught_a && !pairs[i].caught_b;
		noise += (long)pairs[i].noise_b - (long)pairs[i].noise_a;
	}
	out->catch_diff = ((double)out->only_b - (double)out->only_a) / (double)n;
	out->noise_diff = (double)noise / (double)n;
	out->p_value = compare_sign_test(out->only_b, out->only_a + out->only_b);
	bootstrap(out, pairs, n, seed);
}
