#ifndef REVLINE_SIMILARITY_H
#define REVLINE_SIMILARITY_H

#include <stddef.h>

/*
 * How similar two versions of a file are, the way git scores a rename
 * (diffcore-delta): the contents are cut into chunks at each newline or
 * every 64 bytes (a CR before LF is not counted in a text file), chunks are
 * hashed, and the score is the bytes of the new version that come from the
 * old one over the larger size, out of SIMILARITY_MAX (git's MAX_SCORE);
 * "similarity index N%" is score * 100 / SIMILARITY_MAX, rounded down.
 */
#define SIMILARITY_MAX 60000u

/* A file's chunk counts, kept to score it against many others. */
struct similarity_sig {
	struct similarity_span *spans;
	size_t count;
	size_t size;            /* the file's size in bytes */
};

int similarity_sig_of(struct similarity_sig *out, const char *data, size_t len);
void similarity_sig_release(struct similarity_sig *sig);
/* git's score (0..SIMILARITY_MAX) of new as an edit of old. */
unsigned similarity_score(const struct similarity_sig *old, const struct similarity_sig *new);

#endif
