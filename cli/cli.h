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
 * A word typed where a command or a target goes that names a revision of
 * the repository here ("HEAD", "main"): true, and out says how to compare
 * it ("to compare HEAD with the working tree, use --base HEAD; a range is
 * A..B or A...B"; the index with staged). False when it names none.
 */
struct buf;
bool cli_revision_hint(struct buf *out, const char *word, bool staged);

/*
 * The positionals of a command that takes a TARGET: each a range into
 * spec. Else the first that is not is named in one line (with the hint
 * above when it is a revision) and false.
 */
struct command_help;
bool cli_targets(struct target_spec *spec, int count, char **argv, const struct command_help *help);

/*
 * An id typed on the command line: a positive decimal number, nothing else
 * (no sign, no blanks, no "12abc"). Else "'x' is not a WHAT id (a number, as
 * 'WHERE' shows)" and false.
 */
bool cli_id(int64_t *out, const char *value, const char *what, const char *where);

/* Open the repository and resolve the target; prints the error and returns 2 on failure. */
int cli_open(struct repo **repo, struct target *target, const struct target_spec *spec);

#endif
