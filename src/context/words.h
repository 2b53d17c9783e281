#ifndef REVLINE_WORDS_H
#define REVLINE_WORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/*
 * The words of any text, without knowing its language: an identifier is a
 * run of ASCII letters, digits, '_' and bytes from 0x80 (UTF-8 sequences:
 * Python, JavaScript, Go, Rust, Java and Ruby allow letters of any script)
 * that does not start with a digit (a number) and is at most WORDS_MAX
 * bytes (a longer run is no name anyone calls). The index's references
 * search (refs.c) reads files with it; the index keeps, per file, a filter
 * of its words (words_filter), so that a search reads only the files that
 * may hold one of the words sought.
 */
#define WORDS_MAX 128

/*
 * The next word in [*p, e): its start in *word and its length returned,
 * *p moved past it; 0 when there is none left (*p == e).
 */
size_t words_next(const char **p, const char *e, const char **word);

/* A word's hash, the one the filter and the search share. */
uint64_t words_hash(const char *word, size_t len);

/*
 * A Bloom filter of a text's distinct words: 2^k bytes (8 to
 * WORDS_FILTER_MAX), about ten bits a word, four bits set per word, so
 * that a word the text does not hold passes it about once in a hundred
 * times (a text with more words than the largest filter holds passes
 * more). Written into out (emptied first).
 */
#define WORDS_FILTER_MAX (64u << 10)
int words_filter(struct buf *out, const char *text, size_t len);

/*
 * Whether the filter (as words_filter made it; len a power of two) may
 * hold the word of this hash: false is sure, true may be wrong. A filter
 * of another shape (NULL, a length that is no power of two) may hold
 * anything.
 */
bool words_filter_has(const void *filter, size_t len, uint64_t hash);

#endif
