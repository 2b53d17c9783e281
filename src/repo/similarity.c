#include "similarity.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HASHBASE 107927u
#define CHUNK_MAX 64

struct similarity_span {
	uint32_t hash;
	uint32_t bytes;
};

static int span_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct similarity_span *)a)->hash, y = ((const struct similarity_span *)b)->hash;

	return x < y ? -1 : x > y;
}

/* git treats a file with a NUL in its first 8000 bytes as binary. */
static bool is_binary(const char *s, size_t len)
{
	return memchr(s, '\0', len < 8000 ? len : 8000) != NULL;
}

/*
 * The chunks of a file as (hash, bytes) pairs, sorted by hash with equal
 * hashes merged. A CR before LF is not counted in text.
 */
static struct similarity_span *spans_of(const char *s, size_t len, size_t *count)
{
	struct similarity_span *spans = malloc((len + 1) * sizeof(*spans)), *shrunk;
	bool text = !is_binary(s, len);
	uint32_t a1 = 0, a2 = 0, n = 0;
	size_t i, k = 0, out = 0;

	if (!spans)
		return NULL;
	for (i = 0; i < len; i++) {
		uint32_t c = (unsigned char)s[i], old1 = a1;

		if (text && c == '\r' && i + 1 < len && s[i + 1] == '\n')
			continue;
		a1 = (a1 << 7) ^ (a2 >> 25);
		a2 = (a2 << 7) ^ (old1 >> 25);
		a1 += c;
		if (++n < CHUNK_MAX && c != '\n')
			continue;
		spans[k++] = (struct similarity_span){ (a1 + a2 * 0x61) % HASHBASE, n };
		n = a1 = a2 = 0;
	}
	if (n)
		spans[k++] = (struct similarity_span){ (a1 + a2 * 0x61) % HASHBASE, n };
	qsort(spans, k, sizeof(*spans), span_cmp);
	for (i = 0; i < k; i++) {
		if (out && spans[out - 1].hash == spans[i].hash)
			spans[out - 1].bytes += spans[i].bytes;
		else
			spans[out++] = spans[i];
	}
	*count = out;
	shrunk = realloc(spans, (out ? out : 1) * sizeof(*spans));
	return shrunk ? shrunk : spans;
}

/*
 * Bytes of the new version that the old one accounts for: a merge of the
 * two sorted lists, written without branches on the hashes (which are
 * random, so a branch would be mispredicted at every other step).
 */
static uint64_t copied_bytes(const struct similarity_span *a, size_t na, const struct similarity_span *b, size_t nb)
{
	uint64_t copied = 0;
	size_t i = 0, j = 0;

	while (i < na && j < nb) {
		uint32_t x = a[i].hash, y = b[j].hash;
		uint32_t least = a[i].bytes < b[j].bytes ? a[i].bytes : b[j].bytes;

		copied += x == y ? least : 0;
		i += x <= y;
		j += y <= x;
	}
	return copied;
}

int similarity_sig_of(struct similarity_sig *out, const char *s, size_t len)
{
	out->size = len;
	out->count = 0;
	if (!(out->spans = spans_of(s ? s : "", len, &out->count)))
		return -1;
	return 0;
}

void similarity_sig_release(struct similarity_sig *sig)
{
	free(sig->spans);
	sig->spans = NULL;
	sig->count = 0;
}

unsigned similarity_score(const struct similarity_sig *old, const struct similarity_sig *new)
{
	size_t max = old->size > new->size ? old->size : new->size;

	if (!max)
		return 0;
	return (unsigned)(copied_bytes(old->spans, old->count, new->spans, new->count) *
			  SIMILARITY_MAX / max);
}
