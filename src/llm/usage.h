#ifndef REVLINE_USAGE_H
#define REVLINE_USAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/*
 * What LLM requests billed, and how every front end says it:
 *
 *   12,345 tokens in (9,984 cached, 1,024 cache writes), 1,234 out, ~$0.0042
 *
 * tokens_in is every input token; tokens_cached are those of them read
 * from the provider's prompt cache (OpenAI's cached_tokens, Anthropic's
 * cache_read_input_tokens), tokens_cache_write those written to it
 * (Anthropic's cache_creation_input_tokens). The cost is estimated from
 * the model table's prices (models_cost), negative when not known.
 */
struct usage {
	long tokens_in;
	long tokens_cached;
	long tokens_cache_write;
	long tokens_out;
	double cost_usd;
};

struct rule_result;
struct check_stats;

/* A rule's usage (of a cached answer: when it was asked), and a check's. */
void usage_of_result(struct usage *out, const struct rule_result *result);
void usage_of_stats(struct usage *out, const struct check_stats *stats);

/* Whether any token was billed. */
bool usage_billed(const struct usage *usage);

/* A count with thousands separators: "12,345" (no locale). */
void usage_count_text(char *out, size_t size, long count);

/*
 * An estimate in USD: "~$0.0042" below a dollar, "~$12.35" above,
 * "<$0.0001", "$0" for nothing, "cost unknown" when negative.
 */
void usage_cost_text(char *out, size_t size, double cost_usd);

/* The whole line, appended: tokens in (cached, cache writes when any), out, cost. */
int usage_text(struct buf *out, const struct usage *usage);
/* The same without the cost: "12,345 tokens in (9,984 cached), 1,234 out". */
int usage_tokens_text(struct buf *out, const struct usage *usage);

/*
 * A check's requests and what they billed, appended: "14 requests, 2
 * answers from the cache (no cost); 12,345 tokens in (9,984 cached),
 * 1,234 out, ~$0.0042" (cached tokens: the provider's prompt cache;
 * answers from the cache: revline's own, which bill nothing), or "no LLM
 * request" when there was none.
 */
int usage_stats_text(struct buf *out, const struct check_stats *stats);

#endif
