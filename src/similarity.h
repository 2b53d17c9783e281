#ifndef REVLINE_SIMILARITY_H
#define REVLINE_SIMILARITY_H

#include <stddef.h>

/*
 * How similar two versions of a file are, in percent, the way git scores a
 * rename ("similarity index N%"): the contents are cut into chunks at each
 * newline or every 64 bytes, chunks are hashed, and the score is the bytes
 * of the new version that come from the old one over the larger size.
 * libgit2 scores renames its own way; revline prints git's number.
 */
unsigned similarity_percent(const char *old, size_t old_len, const char *new, size_t new_len);

#endif
