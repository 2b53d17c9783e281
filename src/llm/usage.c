/* What LLM requests billed, and how it is said. */
#include "usage.h"
#include "result.h"

#include <stdio.h>

void usage_of_result(struct usage *out, const struct rule_result *r)
{
	out->tokens_in = r->tokens_in;
	out->tokens_cached = r->tokens_cached;
	out->tokens_cache_write = r->tokens_cache_write;
	out->tokens_out = r->tokens_out;
	out->cost_usd = r->cost_usd;
}

void usage_of_stats(struct usage *out, const struct check_stats *s)
{
	out->tokens_in = s->tokens_in;
	out->tokens_cached = s->tokens_cached;
	out->tokens_cache_write = s->tokens_cache_write;
	out->tokens_out = s->tokens_out;
	out->cost_usd = s->cost_usd;
}

bool usage_billed(const struct usage *u)
{
	return u->tokens_in > 0 || u->tokens_out > 0;
}

void usage_count_text(char *out, size_t size, long count)
{
	char digits[32];
	size_t len, i, at = 0;
	int n = snprintf(digits, sizeof(digits), "%ld", count);
	const char *p = digits;

	if (!size)
		return;
	len = n > 0 ? (size_t)n : 0;
	if (*p == '-') {
		if (at + 1 < size)
			out[at++] = '-';
		p++;
		len--;
	}
	for (i = 0; i < len && at + 1 < size; i++) {
		if (i && (len - i) % 3 == 0) {
			out[at++] = ',';
			if (at + 1 >= size)
				break;
		}
		out[at++] = p[i];
	}
	out[at] = '\0';
}

void usage_cost_text(char *out, size_t size, double cost)
{
	if (cost < 0)
		snprintf(out, size, "cost unknown");
	else if (cost == 0)
		snprintf(out, size, "$0");
	else if (cost < 0.00005)
		snprintf(out, size, "<$0.0001");
	else if (cost < 0.99995)
		snprintf(out, size, "~$%.4f", cost);
	else
		snprintf(out, size, "~$%.2f", cost);
}

int usage_tokens_text(struct buf *out, const struct usage *u)
{
	char in[32], cached[32], written[32], tokens_out[32];
	int error;

	usage_count_text(in, sizeof(in), u->tokens_in);
	usage_count_text(cached, sizeof(cached), u->tokens_cached);
	usage_count_text(written, sizeof(written), u->tokens_cache_write);
	usage_count_text(tokens_out, sizeof(tokens_out), u->tokens_out);
	if ((error = buf_printf(out, "%s tokens in", in)) < 0)
		return error;
	if (u->tokens_cache_write > 0)
		error = buf_printf(out, " (%s cached, %s cache write%s)", cached, written,
				   u->tokens_cache_write == 1 ? "" : "s");
	else if (u->tokens_in > 0)
		error = buf_printf(out, " (%s cached)", cached);
	return error < 0 ? error : buf_printf(out, ", %s out", tokens_out);
}

int usage_text(struct buf *out, const struct usage *u)
{
	char cost[32];
	int error;

	usage_cost_text(cost, sizeof(cost), u->cost_usd);
	if ((error = usage_tokens_text(out, u)) < 0)
		return error;
	return buf_printf(out, ", %s", cost);
}

int usage_stats_text(struct buf *out, const struct check_stats *st)
{
	struct usage usage;
	int error;

	usage_of_stats(&usage, st);
	if (!st->requests && !st->cache_hits && !usage_billed(&usage))
		return buf_puts(out, "no LLM request");
	if ((error = buf_printf(out, "%ld request%s, ", st->requests, st->requests == 1 ? "" : "s")) < 0)
		return error;
	if (st->cache_hits)
		error = buf_printf(out, "%ld answer%s from the cache (no cost); ", st->cache_hits,
				   st->cache_hits == 1 ? "" : "s");
	else
		error = buf_puts(out, "none from the cache; ");
	return error < 0 ? error : usage_text(out, &usage);
}
