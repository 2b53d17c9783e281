#include "similarity.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SCORE 60000ULL
#define HASHBASE 107927u
#define CHUNK_MAX 64

struct span {
	uint32_t hash;
	uint32_t bytes;
};

static int span_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct span *)a)->hash, y = ((const struct span *)b)->hash;

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
static struct span *spans_of(const char *s, size_t len, size_t *count)
{
	struct span *spans = malloc((len + 1) * sizeof(*spans));
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
		spans[k++] = (struct span){ (a1 + a2 * 0x61) % HASHBASE, n };
		n = a1 = a2 = 0;
	}
	if (n)
		spans[k++] = (struct span){ (a1 + a2 * 0x61) % HASHBASE, n };
	qsort(spans, k, sizeof(*spans), span_cmp);
	for (i = 0; i < k; i++) {
		if (out && spans[out - 1].hash == spans[i].hash)
			spans[out - 1].bytes += spans[i].bytes;
		else
			spans[out++] = spans[i];
	}
	*count = out;
	return spans;
}

/* Bytes of the new version that the old one accounts for. */
static uint64_t copied_bytes(const struct span *a, size_t na, const struct span *b, size_t nb)
{
	uint64_t copied = 0;
	size_t i = 0, j = 0;

	while (i < na && j < nb) {
		if (a[i].hash < b[j].hash) {
			i++;
		} else if (a[i].hash > b[j].hash) {
			j++;
		} else {
			copied += a[i].bytes < b[j].bytes ? a[i].bytes : b[j].bytes;
			i++;
			j++;
		}
	}
	return copied;
}

unsigned similarity_percent(const char *old, size_t old_len, const char *new, size_t new_len)
{
	size_t na = 0, nb = 0, max = old_len > new_len ? old_len : new_len;
	struct span *a, *b;
	uint64_t score;

	if (!max)
		return 100;
	if (old_len == new_len && !memcmp(old, new, old_len))
		return 100;
	a = spans_of(old, old_len, &na);
	b = spans_of(new, new_len, &nb);
	if (!a || !b) {
		free(a);
		free(b);
		return 0;
	}
	score = copied_bytes(a, na, b, nb) * MAX_SCORE / max;
	free(a);
	free(b);
	return (unsigned)(score * 100 / MAX_SCORE);
}
