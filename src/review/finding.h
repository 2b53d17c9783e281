#ifndef REVLINE_FINDING_H
#define REVLINE_FINDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "severity.h"

/*
 * A finding and the evidence behind it (the evidence-based review seed):
 * what the model says it examined, and revline's own verdict after looking
 * for that code in the real file.
 */
struct evidence {
	char *code_examined;            /* the code the model says it read */
	int range_start, range_end;     /* line_range_examined; 0 when not given */
	char *method;                   /* verification_method */
	bool checked_elsewhere;         /* checked_for_handling_elsewhere */
	char *where_checked;
	bool impact;                    /* is_impact_finding: outside the diff on purpose */
};

struct finding {
	int64_t id;                     /* in the store; 0 until stored */
	int64_t origin;                 /* a report's finding: the rule's own finding it was made from (0: none) */
	char *rule_id;
	char *file;
	int line, end_line;             /* end_line is line when not given */
	enum severity severity;
	char *category;
	char *title;
	char *issue;
	char *suggestion;
	struct evidence evidence;
	bool verified;
	char *verify_note;              /* why verified, or why not */
	char **from_rules;              /* the rules a merged finding came from */
	size_t nfrom;
	char fingerprint[41];           /* rule id + path + normalised code */
	bool suppressed;                /* marked false positive earlier, or ignored inline */
	char *suppressed_by;            /* ignored inline: "revline: ignore at line 12" (NULL: marked false positive) */
};

/*
 * A finding in a commit message (a local rule that reads them): its file
 * is "commit 1a2b3c4", its verify note says so after this.
 */
#define FINDING_IN_MESSAGE "read by revline in the message of "
bool finding_in_message(const struct finding *finding);

void finding_release(struct finding *finding);
void findings_free(struct finding *findings, size_t count);
/*
 * The id a check shows for a finding, one per finding in its output: a
 * report's finding shows the rule's own finding it was made from (origin),
 * as the rule's streamed line did; else its own id (0: not stored).
 */
int64_t finding_shown_id(const struct finding *finding);
/* A deep copy. */
int finding_copy(struct finding *out, const struct finding *from);

/*
 * Set the fingerprint: a hash of the rule id, the path and the examined
 * code with diff markers and all whitespace removed, so that the same
 * finding is recognised after the code moves.
 */
void finding_fingerprint(struct finding *finding);

#endif
