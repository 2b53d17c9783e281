#ifndef REVLINE_GLOB_STATE_H
#define REVLINE_GLOB_STATE_H

/*
 * Inside the glob matcher (glob.h): what glob.c (characters, classes, the
 * tokens and their NFA, compiling, matching, checking) and glob_braces.c
 * (expanding "{a,b}") share.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Beyond these a pattern matches nothing (glob_check says why). Without a
 * bound "{a,b}" written twenty times would be a million matches per path;
 * the bound on the length of all alternatives together keeps a few long
 * alternatives from costing as much (the cost of a match grows with it).
 */
#define GLOB_MAX_ALTERNATIVES 1024
#define GLOB_MAX_EXPANDED 65536

#define GLOB_NONE SIZE_MAX

/*
 * Where the class opened by s[i] == '[' is closed: the index of its ']',
 * or 0 when it never is (and the '[' is a literal).
 */
size_t glob_class_end(const char *s, size_t i, size_t n);

/* Counting a group's alternatives and their length (glob_braces.c). */
struct glob_count_frame {
	size_t alts, len;
	size_t sum_alts, sum_len;
};

/*
 * The groups of a pattern, found once, and the state of the expansion. A
 * '{' with its '}' and a comma between them is a group; one without a '}'
 * or without a comma is text. Arrays are indexed by byte offset and only
 * read at the offsets of a group's '{', ',' and '}'.
 */
struct glob_braces {
	const char *pat;
	size_t n;
	unsigned char *kind;	/* enum brace_kind */
	size_t *link;		/* '{' and ',': the next ',' or '}' of the group */
	size_t *close;		/* '{' and ',': the '}' of the group */
	size_t *nalt;		/* '{': its number of alternatives */
	size_t *sel;		/* '{': the alternative being expanded */
	size_t *visited;	/* the '{' met by the last expansion, in order */
	size_t nvisited;
	struct glob_count_frame *frames;	/* scratch for counting */
	size_t groups;
	size_t count;		/* alternatives, at most GLOB_MAX_ALTERNATIVES + 1 */
	size_t size;		/* their characters, at most GLOB_MAX_EXPANDED + 1 */
	size_t unclosed;	/* the first '{' without '}', or GLOB_NONE */
	size_t unopened;	/* the first '}' without '{', or GLOB_NONE */
	char *out;		/* the current alternative */
};

/* The groups of pattern found and counted; -1 when out of memory. */
int glob_braces_init(struct glob_braces *b, const char *pattern);
void glob_braces_release(struct glob_braces *b);
/* More alternatives, or longer, than a pattern may expand to. */
bool glob_braces_too_many(const struct glob_braces *b);
/* The current alternative written to b->out; its length. */
size_t glob_braces_expand(struct glob_braces *b);
/* On to the next alternative; false after the last one. */
bool glob_braces_next(struct glob_braces *b);

#endif
