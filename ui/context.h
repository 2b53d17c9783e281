#ifndef REVLINE_UI_CONTEXT_H
#define REVLINE_UI_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "check.h"
#include "pack.h"

/*
 * What a rule of the check was shown of the repository besides the diff
 * (the context pack's items its requests carried) and what its model read
 * with the tools, said in the panes' words: the findings pane's rule row,
 * the evidence pane's sections for a rule and for a finding. The engine
 * decides what was sent and what concerns a finding (check.h); this only
 * says it.
 */

/* An item in a few words: "callers of verify in web/api.py:1-8 (2 references)". */
int context_item_text(struct buf *out, const struct pack_item *item);

/*
 * A rule's row: "context: 3 items, 1 read: callers of verify in web/api.py,
 * web/admin.py; function main in src/main.c", "context: off", "context:
 * nothing found"; empty for a rule that was not asked with the pack (a
 * local rule, or one not planned yet).
 */
int context_rule_row(struct buf *out, const struct check *check, size_t rule);

/* How many of the pack's items the rule's requests carried. */
size_t context_rule_items(const struct check *check, size_t rule);

/* Why the rule was given none: "revline.context is none", "its front matter says context: none". */
const char *context_off_reason(const struct check *check, size_t rule);

/* Whether a finding is the rule's: its own, or merged from it (a report's finding). */
bool context_finding_of(const struct finding *finding, const struct rule_result *result);

#endif
