/* The words of any text, and the filter of a file's words. */
#include "words.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define FILTER_MIN 8
#define BITS_PER_WORD 16
#define PROBES 6

/* 1: part of a word; 2: a digit (a word cannot start with it). */
static const unsigned char word_byte[256] = {
	['0'] = 3, ['1'] = 3, ['2'] = 3, ['3'] = 3, ['4'] = 3, ['5'] = 3, ['6'] = 3, ['7'] = 3, ['8'] = 3, ['9'] = 3,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1,
	['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1,
	['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1, ['_'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1,
	['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1,
	['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
	[0x80] = 1, [0x81] = 1, [0x82] = 1, [0x83] = 1, [0x84] = 1, [0x85] = 1, [0x86] = 1, [0x87] = 1,
	[0x88] = 1, [0x89] = 1, [0x8a] = 1, [0x8b] = 1, [0x8c] = 1, [0x8d] = 1, [0x8e] = 1, [0x8f] = 1,
	[0x90] = 1, [0x91] = 1, [0x92] = 1, [0x93] = 1, [0x94] = 1, [0x95] = 1, [0x96] = 1, [0x97] = 1,
	[0x98] = 1, [0x99] = 1, [0x9a] = 1, [0x9b] = 1, [0x9c] = 1, [0x9d] = 1, [0x9e] = 1, [0x9f] = 1,
	[0xa0] = 1, [0xa1] = 1, [0xa2] = 1, [0xa3] = 1, [0xa4] = 1, [0xa5] = 1, [0xa6] = 1, [0xa7] = 1,
	[0xa8] = 1, [0xa9] = 1, [0xaa] = 1, [0xab] = 1, [0xac] = 1, [0xad] = 1, [0xae] = 1, [0xaf] = 1,
	[0xb0] = 1, [0xb1] = 1, [0xb2] = 1, [0xb3] = 1, [0xb4] = 1, [0xb5] = 1, [0xb6] = 1, [0xb7] = 1,
	[0xb8] = 1, [0xb9] = 1, [0xba] = 1, [0xbb] = 1, [0xbc] = 1, [0xbd] = 1, [0xbe] = 1, [0xbf] = 1,
	[0xc0] = 1, [0xc1] = 1, [0xc2] = 1, [0xc3] = 1, [0xc4] = 1, [0xc5] = 1, [0xc6] = 1, [0xc7] = 1,
	[0xc8] = 1, [0xc9] = 1, [0xca] = 1, [0xcb] = 1, [0xcc] = 1, [0xcd] = 1, [0xce] = 1, [0xcf] = 1,
	[0xd0] = 1, [0xd1] = 1, [0xd2] = 1, [0xd3] = 1, [0xd4] = 1, [0xd5] = 1, [0xd6] = 1, [0xd7] = 1,
	[0xd8] = 1, [0xd9] = 1, [0xda] = 1, [0xdb] = 1, [0xdc] = 1, [0xdd] = 1, [0xde] = 1, [0xdf] = 1,
	[0xe0] = 1, [0xe1] = 1, [0xe2] = 1, [0xe3] = 1, [0xe4] = 1, [0xe5] = 1, [0xe6] = 1, [0xe7] = 1,
	[0xe8] = 1, [0xe9] = 1, [0xea] = 1, [0xeb] = 1, [0xec] = 1, [0xed] = 1, [0xee] = 1, [0xef] = 1,
	[0xf0] = 1, [0xf1] = 1, [0xf2] = 1, [0xf3] = 1, [0xf4] = 1, [0xf5] = 1, [0xf6] = 1, [0xf7] = 1,
	[0xf8] = 1, [0xf9] = 1, [0xfa] = 1, [0xfb] = 1, [0xfc] = 1, [0xfd] = 1, [0xfe] = 1, [0xff] = 1,
};

size_t words_next(const char **p, const char *e, const char **word)
{
	const unsigned char *s = (const unsigned char *)*p, *end = (const unsigned char *)e, *start;

	for (;;) {
		while (s < end && !word_byte[*s])
			s++;
		if (s >= end) {
			*p = e;
			return 0;
		}
		start = s;
		while (s < end && word_byte[*s])
			s++;
		if (!(word_byte[*start] & 2) && (size_t)(s - start) <= WORDS_MAX) {
			*p = (const char *)s;
			*word = (const char *)start;
			return (size_t)(s - start);
		}
	}
}

uint64_t words_hash(const char *word, size_t len)
{
	return XXH3_64bits(word, len);
}

/* The distinct hashes of a text: an open-addressing set (0 stands for empty; a hash of 0 is made 1). */
struct hash_set {
	uint64_t *slots;
	size_t mask, count;
};

static int set_add(struct hash_set *set, uint64_t h);

static int set_grow(struct hash_set *set)
{
	struct hash_set bigger = { NULL, set->mask ? set->mask * 2 + 1 : 1023, 0 };
	size_t i;

	if (!(bigger.slots = calloc(bigger.mask + 1, sizeof(uint64_t))))
		return error_nomem();
	for (i = 0; set->slots && i <= set->mask; i++)
		if (set->slots[i])
			set_add(&bigger, set->slots[i]);
	free(set->slots);
	*set = bigger;
	return 0;
}

static int set_add(struct hash_set *set, uint64_t h)
{
	size_t i;

	if (!h)
		h = 1;
	if ((set->count + 1) * 2 > set->mask + 1 && set_grow(set) < 0)
		return -1;
	for (i = (size_t)h & set->mask; set->slots[i]; i = (i + 1) & set->mask)
		if (set->slots[i] == h)
			return 0;
	set->slots[i] = h;
	set->count++;
	return 0;
}

static void filter_set(unsigned char *bits, size_t len, uint64_t h)
{
	uint32_t a = (uint32_t)h, b = (uint32_t)(h >> 32) | 1, m = (uint32_t)(len * 8 - 1);
	int i;

	for (i = 0; i < PROBES; i++) {
		uint32_t bit = (a + (uint32_t)i * b) & m;

		bits[bit >> 3] |= (unsigned char)(1u << (bit & 7));
	}
}

int words_filter(struct buf *out, const char *text, size_t len)
{
	struct hash_set set = { NULL, 0, 0 };
	const char *p = text, *e = text + len, *w;
	size_t n, size = FILTER_MIN, i;
	int error = 0;

	buf_clear(out);
	if (set_grow(&set) < 0)
		return -1;
	while (!error && (n = words_next(&p, e, &w)))
		error = set_add(&set, words_hash(w, n));
	while (!error && size < WORDS_FILTER_MAX && size * 8 < set.count * BITS_PER_WORD)
		size *= 2;
	if (!error && !(error = buf_grow(out, size))) {
		memset(out->ptr, 0, size);
		out->len = size;
		out->ptr[size] = '\0';
		for (i = 0; i <= set.mask; i++)
			if (set.slots[i])
				filter_set((unsigned char *)out->ptr, size, set.slots[i]);
	}
	free(set.slots);
	return error;
}

bool words_filter_has(const void *filter, size_t len, uint64_t hash)
{
	const unsigned char *bits = filter;
	uint32_t a, b, m;
	int i;

	if (!filter || len < FILTER_MIN || (len & (len - 1)))
		return true;
	if (!hash)
		hash = 1;
	a = (uint32_t)hash;
	b = (uint32_t)(hash >> 32) | 1;
	m = (uint32_t)(len * 8 - 1);
	for (i = 0; i < PROBES; i++) {
		uint32_t bit = (a + (uint32_t)i * b) & m;

		if (!(bits[bit >> 3] & (1u << (bit & 7))))
			return false;
	}
	return true;
}
