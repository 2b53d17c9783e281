#ifndef REVLINE_TRUST_H
#define REVLINE_TRUST_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Which .revline files the user trusts, the way direnv's `allow` works:
 * `revline trust` records the SHA-256 of the file's content together with
 * the file's real path, one record per path, in the user's own revline
 * data directory ($XDG_DATA_HOME/revline/trust/, named by the SHA-256 of the
 * path). A file whose content changed since is untrusted again; nothing in
 * a repository can make itself trusted.
 */
enum trust_state {
	TRUST_NONE,     /* never trusted, or revoked */
	TRUST_CHANGED,  /* trusted once, with other content */
	TRUST_TRUSTED,  /* trusted, as it is now */
};

/* 64 hex digits and a NUL. */
#define TRUST_HASH_SIZE 65

/* The SHA-256 of data, in lowercase hex. */
int trust_hash(char out[TRUST_HASH_SIZE], const void *data, size_t len);

/*
 * The state of the file at path (its real path) whose content hashes to
 * hash. A record that cannot be read or makes no sense trusts nothing.
 */
int trust_check(enum trust_state *out, const char *path, const char *hash);

/* Trust the file at path with this content hash (replacing its record). */
int trust_record(const char *path, const char *hash);

/* Forget the file's record; *had says whether there was one. */
int trust_revoke(bool *had, const char *path);

/* Where the file's record is kept, for messages. */
int trust_record_path(struct buf *out, const char *path);

#endif
