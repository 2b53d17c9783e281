#ifndef REVLINE_HIDDEN_TEXT_H
#define REVLINE_HIDDEN_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "severity.h"

/*
 * Text meant to fool a reviewer, human or model, in one line: the
 * hidden-text rule's check (rules/hidden-text.md, `check: hidden-text`).
 * The characters that make code read otherwise than it compiles (Trojan
 * Source, CVE-2021-42574), the invisible ones, and identifiers that look
 * like others are found here; text addressed to AI reviewers is the rule's
 * pattern, matched where every rule's pattern is (rules_pattern.c), and
 * described here as a hit of its own.
 *
 * X(ID, title, what it does, what to do), most severe first.
 */
#define HIDDEN_KIND_LIST(X) \
	X(HIDDEN_BIDI, "Bidirectional control character (Trojan Source)", \
	  "bidirectional controls make the line display in another order than a compiler or " \
	  "a model reads it, so code can hide in a comment or a string (Trojan Source, CVE-2021-42574)", \
	  "Remove the control characters; where right-to-left text is meant, write them as escapes " \
	  "(\\u202E) inside a string.") \
	X(HIDDEN_ZERO_WIDTH, "Zero-width character", \
	  "an invisible character makes names or strings that look the same differ, or hides text", \
	  "Remove the character, or write it as an escape where it is meant.") \
	X(HIDDEN_MIXED_SCRIPT, "Identifier mixing Latin with Cyrillic or Greek letters", \
	  "it looks like another name but is a different identifier (a homoglyph)", \
	  "Write the name in Latin letters only; keep other scripts to whole words.") \
	X(HIDDEN_ADDRESSED, "Text addressed to AI reviewers or agents", \
	  "the text speaks to AI reviewers or agents, or asks for a verdict: a reviewer, human or " \
	  "model, judges the code, not what the change says of itself", \
	  "Remove the text addressed to reviewers; explain the code to people instead.")

enum hidden_kind {
#define HIDDEN_KIND_ENUM(id, title, what, todo) id,
	HIDDEN_KIND_LIST(HIDDEN_KIND_ENUM)
#undef HIDDEN_KIND_ENUM
};

struct hidden_hit {
	enum hidden_kind kind;
	size_t at, len;         /* bytes of the line: the character, the identifier, or the words */
	uint32_t cp;            /* the character; of an identifier, its first Cyrillic or Greek letter */
};

/* The most hits a line keeps (the evidence still shows every hidden character of it). */
#define HIDDEN_HITS_MAX 16

/*
 * The hits of a line, in order, at most max; first: the line begins its
 * file (a byte order mark there is no hit); code: the line is code, not
 * prose (identifiers are looked at in code only: a word of prose that
 * mixes scripts is a typo more often than a trick). A line that is not
 * UTF-8 (Latin-1, bytes that are no text) has no hit. A zero-width joiner
 * or non-joiner between two characters outside ASCII and these scripts'
 * letters (an emoji sequence, Indic or Arabic text) is no hit; nor is an
 * identifier whose Cyrillic or Greek letters do not all look Latin (Δx,
 * θ_max, a visible Ж): only one that passes for Latin deceives.
 */
size_t hidden_text_scan(struct hidden_hit *hits, size_t max, const char *line, size_t len, bool first, bool code);

/* Whether a path is prose (markdown, plain text, translations) rather than code. */
bool hidden_text_prose(const char *path);

/* What a finding says of a line's hits. */
struct hidden_finding {
	enum severity severity;
	struct buf title, issue, code;
	const char *suggestion;
};

/*
 * The finding of a line's hits (n > 0): the most severe kind's title and
 * suggestion; an issue that names each character and identifier; the line
 * as code with its hidden characters and the lookalike letters made
 * visible (<U+202E>, say<U+041D>ello), cut around the hits when the line
 * is long. Severity: base, one step more for a bidirectional control in
 * code.
 */
int hidden_text_describe(struct hidden_finding *out, const char *line, size_t len, const struct hidden_hit *hits,
			 size_t n, enum severity base, bool code);
void hidden_finding_release(struct hidden_finding *f);

#endif
