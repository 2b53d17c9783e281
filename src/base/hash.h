#ifndef REVLINE_HASH_H
#define REVLINE_HASH_H

#include <stddef.h>

/* A piece of the bytes hashed. */
struct hash_part {
	const char *ptr;        /* NULL: no bytes */
	size_t len;
};

#define HASH_HEX_SIZE 41

/*
 * The id git gives a blob of the parts' bytes, one after the other (what
 * `git hash-object` prints, and git_odb_hash with GIT_OBJECT_BLOB), in
 * lower-case hex: hashed as they are, without being copied together, by
 * libcrypto's SHA-1 (the CPU's SHA instructions where it has them). For
 * the ids revline makes of its own texts (cache keys, data tags), not for
 * the repository's objects. Only RL_ERROR fails (libcrypto refused).
 */
int hash_blob(char out[HASH_HEX_SIZE], const struct hash_part *parts, size_t n);

#endif
