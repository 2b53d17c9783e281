#ifndef REVLINE_DIGEST_H
#define REVLINE_DIGEST_H

#include <stddef.h>
#include <stdint.h>

/*
 * A fast 64-bit hash of bytes (XXH64, seed 0), fed in pieces. revline uses
 * it where only equality with its own earlier reading of a file matters
 * (is this file still the one a fix was made for, or the one it wrote?):
 * it is not a cryptographic hash, and it is never shown as a git id. It
 * runs at memory speed, about 20 times faster than git's
 * collision-detecting SHA-1.
 */
struct digest {
	uint64_t v[4];
	uint64_t total;
	unsigned char tail[32];
	size_t ntail;
};

void digest_init(struct digest *d);
void digest_update(struct digest *d, const void *data, size_t len);
uint64_t digest_final(const struct digest *d);
/* The hash of some bytes in one call. */
uint64_t digest_bytes(const void *data, size_t len);

#endif
