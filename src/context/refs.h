#ifndef REVLINE_REFS_H
#define REVLINE_REFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"

/*
 * References: where a side's files use some names, by a word search (no
 * parser, no regular expression): one pass over the files, each read as
 * the words of words.h, a word compared with the names sought by its hash
 * and then its bytes; so a name is found as a whole word, never inside a
 * longer one ("Curl_easy" is not in "Curl_easy_init"), and in any language.
 * A file whose filter of words (kept by the index) says it holds none of
 * the names still sought is not read at all: a search for a few names
 * reads a few files. A line where the index says the name is defined is no
 * reference (unless asked). Comments and strings are words too: a name in
 * a comment is found (a reviewer wants those as well).
 *
 * Bounded: at most per_symbol references of each name (then it is no
 * longer sought) and total in all, a line's text cut to REFS_TEXT_MAX
 * bytes, a deadline; complete says whether a bound cut the search.
 */
#define REFS_PER_SYMBOL 50
#define REFS_TOTAL 500
#define REFS_TEXT_MAX 240
#define REFS_SYMBOLS_MAX 256

struct index;
struct index_file;

struct refs_options {
	size_t per_symbol;              /* 0: REFS_PER_SYMBOL */
	size_t total;                   /* 0: REFS_TOTAL */
	bool definitions;               /* the definitions' own lines count too */
	int64_t deadline_ms;            /* on clock_ms(); 0: none */
};

struct ref {
	size_t symbol;                  /* which of the names asked */
	const struct index_file *file;  /* the index's: valid while it is */
	uint32_t line, column;          /* from 1; column in bytes */
	const char *text;               /* the line, cut, no newline, control characters as spaces */
};

struct refs {
	struct ref *items;              /* by file (by path), then line */
	size_t count;
	size_t *per_symbol;             /* how many of each name were found */
	size_t nsymbols;
	size_t files_read, bytes_read;
	bool complete;                  /* false: a bound or the deadline left some out */
	struct arena arena;
};

/*
 * The references of the names in the index's side (which must be done). A
 * name that is not one word (empty, "a.b", longer than WORDS_MAX) is never
 * found; more than REFS_SYMBOLS_MAX names is RL_EUSAGE. A file that cannot
 * be read now (changed since the index listed it) is passed over.
 */
int refs_find(struct refs *out, const struct index *index, const char *const *symbols, size_t n,
	      const struct refs_options *opts);
void refs_release(struct refs *refs);

#endif
