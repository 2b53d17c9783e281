#ifndef REVLINE_CLI_H
#define REVLINE_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "repo.h"

/* What every command shares: the error line, the repository and its target. */

/* Print "revline: message" to stderr (the message's outside words made safe for the terminal). */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A positional that names a range (A..B, A...B) taken into spec; false when it is not one. */
bool cli_target_range(struct target_spec *spec, const char *arg);

/*
 * An id typed on the command line: a positive decimal number, nothing else
 * (no sign, no blanks, no "12abc"). Else "'x' is not a WHAT id (a number, as
 * 'WHERE' shows)" and false.
 */
bool cli_id(int64_t *out, const char *value, const char *what, const char *where);

/* Open the repository and resolve the target; prints the error and returns 2 on failure. */
int cli_open(struct repo **repo, struct target *target, const struct target_spec *spec);

#endif
