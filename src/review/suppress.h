#ifndef REVLINE_SUPPRESS_H
#define REVLINE_SUPPRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "evidence.h"
#include "finding.h"

/*
 * Inline suppression, as ruff's noqa: a comment "revline: ignore RULE-ID[,
 * RULE-ID]..." (in any comment syntax) on a finding's line or the line
 * above suppresses that rule's finding there; "revline: ignore" alone
 * suppresses every rule's. Rule ids start with a letter or a digit, so
 * what closes a comment ("-->", "*" "/") is not taken for one.
 */

/* Whether the line (len bytes) ignores rule_id. */
bool suppress_line_ignores(const char *line, size_t len, const char *rule_id);

/* The file sides the suppressions of one answer read, each once. */
struct suppress_files;
int suppress_files_new(struct suppress_files **out, const struct file_reader *reader);
void suppress_files_free(struct suppress_files *files);

/*
 * Mark the finding suppressed when its line or the one above ignores its
 * rule (a merged finding: every rule it came from): suppressed_by says
 * where. A file that cannot be read suppresses nothing.
 */
int suppress_inline(struct finding *finding, struct suppress_files *files);

#endif
