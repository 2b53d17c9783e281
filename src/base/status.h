#ifndef REVLINE_STATUS_H
#define REVLINE_STATUS_H

#include <stddef.h>

/*
 * Every engine call returns 0 or one of these negative statuses. The
 * message that goes with a failure is kept per thread (libgit2's model):
 * the caller reads it with error_message() right after the call.
 */
#define STATUS_LIST(X) \
	X(RL_OK,        0, "success") \
	X(RL_ERROR,    -1, "error") \
	X(RL_ENOMEM,   -2, "out of memory") \
	X(RL_EUSAGE,   -3, "invalid usage") \
	X(RL_ENOTREPO, -4, "not a git repository") \
	X(RL_EBADREF,  -5, "unknown revision") \
	X(RL_EIO,      -6, "input/output error") \
	X(RL_EPARSE,   -7, "malformed input") \
	X(RL_ENOTFOUND,-8, "not found") \
	X(RL_ECONFIG,  -9, "configuration error") \
	X(RL_ECONFLICT,-10, "the file changed")

enum status {
#define STATUS_ENUM(name, value, text) name = value,
	STATUS_LIST(STATUS_ENUM)
#undef STATUS_ENUM
};

/* The fixed text of a status ("unknown revision"). */
const char *status_text(int status);

/*
 * What every message goes through before it is kept: secret.c registers its
 * redaction of the API key here when it is given the first one.
 */
typedef size_t error_scrub_fn(char *out, size_t size, const char *s, size_t len);
void error_scrub_set(error_scrub_fn *fn);

/*
 * Record a failure with a message for the user and return the status, so
 * that `return error_set(RL_EBADREF, "unknown revision '%s'", ref);` works.
 */
int error_set(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Record an out-of-memory failure; returns RL_ENOMEM. */
int error_nomem(void);

/* The last recorded message, or the status text when none was recorded. */
const char *error_message(void);
int error_status(void);
void error_clear(void);

#endif
