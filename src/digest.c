/*
 * XXH64 (Yann Collet's xxHash, 64-bit, seed 0), streaming. The constants
 * and steps are the reference's; test_patch checks the published values.
 */
#include "digest.h"

#include <string.h>

#define P1 11400714785074694791ULL
#define P2 14029467366897019727ULL
#define P3 1609587929392839161ULL
#define P4 9650029242287828579ULL
#define P5 2870177450012600261ULL

static uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

/* Little-endian loads, whatever the alignment (memcpy compiles to one load). */
static uint64_t load64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static uint32_t load32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

static uint64_t round64(uint64_t acc, uint64_t input)
{
	acc += input * P2;
	return rotl(acc, 31) * P1;
}

static uint64_t merge(uint64_t acc, uint64_t v)
{
	acc ^= round64(0, v);
	return acc * P1 + P4;
}

/* Whole 32-byte stripes of p; returns how many bytes it took. */
static size_t stripes(uint64_t v[4], const unsigned char *p, size_t len)
{
	const unsigned char *start = p, *end = p + (len & ~(size_t)31);
	uint64_t a = v[0], b = v[1], c = v[2], d = v[3];

	for (; p < end; p += 32) {
		a = round64(a, load64(p));
		b = round64(b, load64(p + 8));
		c = round64(c, load64(p + 16));
		d = round64(d, load64(p + 24));
	}
	v[0] = a;
	v[1] = b;
	v[2] = c;
	v[3] = d;
	return (size_t)(p - start);
}

void digest_init(struct digest *d)
{
	memset(d, 0, sizeof(*d));
	d->v[0] = P1 + P2;
	d->v[1] = P2;
	d->v[2] = 0;
	d->v[3] = -P1;
}

void digest_update(struct digest *d, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t n;

	d->total += len;
	if (d->ntail) {
		n = 32 - d->ntail < len ? 32 - d->ntail : len;
		memcpy(d->tail + d->ntail, p, n);
		d->ntail += n;
		p += n;
		len -= n;
		if (d->ntail < 32)
			return;
		stripes(d->v, d->tail, 32);
		d->ntail = 0;
	}
	n = stripes(d->v, p, len);
	memcpy(d->tail, p + n, len - n);
	d->ntail = len - n;
}

uint64_t digest_final(const struct digest *d)
{
	const unsigned char *p = d->tail, *end = d->tail + d->ntail;
	uint64_t h;

	if (d->total >= 32) {
		h = rotl(d->v[0], 1) + rotl(d->v[1], 7) + rotl(d->v[2], 12) + rotl(d->v[3], 18);
		h = merge(h, d->v[0]);
		h = merge(h, d->v[1]);
		h = merge(h, d->v[2]);
		h = merge(h, d->v[3]);
	} else {
		h = d->v[2] + P5;
	}
	h += d->total;
	for (; p + 8 <= end; p += 8)
		h = rotl(h ^ round64(0, load64(p)), 27) * P1 + P4;
	if (p + 4 <= end) {
		h = rotl(h ^ (uint64_t)load32(p) * P1, 23) * P2 + P3;
		p += 4;
	}
	for (; p < end; p++)
		h = rotl(h ^ *p * P5, 11) * P1;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	return h ^ (h >> 32);
}

uint64_t digest_bytes(const void *data, size_t len)
{
	struct digest d;

	digest_init(&d);
	digest_update(&d, data, len);
	return digest_final(&d);
}
