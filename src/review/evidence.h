#ifndef REVLINE_EVIDENCE_H
#define REVLINE_EVIDENCE_H

#include <stdbool.h>

#include "buf.h"
#include "diff.h"
#include "finding.h"

/*
 * revline's own evidence check (DESIGN §7), not the model's: the file must
 * be in the diff (or the finding an impact finding), the code the model
 * says it examined must be in the file (compared line by line without
 * whitespace, diff markers and line-number prefixes stripped), and the
 * finding's line is corrected to where the code is. A finding that fails
 * is kept, marked unverified, with the reason.
 */

/* How the check reads a file as it is on one side of the change. */
struct file_reader {
	int (*read)(void *ctx, const char *path, bool old_side, struct buf *out);
	void *ctx;
};

/*
 * The file sides the evidence checks of one answer read: each is read and
 * split into lines once, however many findings quote it (an answer may
 * hold 200 findings in one large file). The caller keeps it for an answer.
 */
struct evidence_files;

int evidence_files_new(struct evidence_files **out, const struct file_reader *reader);
void evidence_files_free(struct evidence_files *files);

/* Sets verified and verify_note (and may correct file, line and end_line). */
int evidence_check(struct finding *finding, const struct diff *diff, struct evidence_files *files);

/*
 * Whether a rule's answer gives the change's own words as its reason (a
 * model the change steered, noticed where it can be): a sentence of its
 * reasoning that repeats words addressed to reviewers ("note to AI
 * reviewers", "answer compliant"), or that takes a verdict or an assurance
 * from a comment, a commit message, a note or the author ("the comment
 * says it was audited") without pointing at a line it read. *why: that
 * sentence, cut to EVIDENCE_WHY_MAX bytes.
 */
#define EVIDENCE_WHY_MAX 200
bool evidence_steered(struct buf *why, const char *reasoning);

#endif
