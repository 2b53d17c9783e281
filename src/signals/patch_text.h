#ifndef REVLINE_PATCH_TEXT_H
#define REVLINE_PATCH_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/*
 * The text of a fix. A snippet is some whole lines of a file as read;
 * the LLM sees it dedented, with LF line ends; its answer is put back into
 * the file's shape (patch_reindent): the base indentation again, with the
 * file's own indent characters (tabs stay tabs), the file's line ends
 * (CRLF stays CRLF), exactly the snippet's trailing newlines (a snippet at
 * the end of a file without a final newline keeps none), code fences and
 * an indentation the answer already carries handled. Writing it to the
 * file is patch.h's.
 *
 * How an answer is put back (patch_reindent), where it had to be decided:
 * - The code is the inside of the answer's first fenced block (``` or ~~~,
 *   any language tag) when it has one; prose around the fence is dropped.
 * - Indentation: when the answer indents with another unit than the file
 *   (4 spaces in a tab file, tabs or 2 spaces in a 4-space file), each
 *   line's whole units become the file's and what is left over (alignment)
 *   stays. Then the base indentation is added to every line, unless the
 *   model sent it back: the lines it kept from the snippet show it (as
 *   they were shown, or with the base in front; so an answer that keeps
 *   only a nested line is still indented), or, when it kept none, every
 *   non-blank line starts with the base.
 * - Blank lines: an empty line stays empty, unless most of the snippet's
 *   blank lines carried whitespace; then it gets the indentation of the
 *   line after it. A line of whitespace only is indented like code.
 * - The end: the snippet's own end is put back, byte for byte (its blank
 *   lines and final line end, or none at the end of a file without a final
 *   newline), unless the answer ends with more blank lines than the snippet
 *   did because its window's last lines moved away: a fix that moves them
 *   up (E402 moving an import) leaves blank lines there that separate what
 *   follows. It is told by the snippet's last non-blank line: among the
 *   answer's lines (its spaces and tabs aside) but not its last. Those
 *   blank lines are kept as the answer gives them while that stays safe:
 *   not at the end of the file, and never a longer run of blank lines,
 *   with those just after the window, than the file already has somewhere
 *   (its own practice: two between Python's top-level definitions; an
 *   answer with three stray newlines in a file of none gets none). Any
 *   other difference is a model's slip, and the snippet's end is kept: an
 *   answer whose last line is still the window's (fixed or not: an E261
 *   fix inside a function) with one line end more, or fewer blank lines
 *   than the snippet's.
 * - A fix of how the file ends (ends_file: W292 no newline at end of file,
 *   W391 blank lines at its end), of a snippet that reaches the end: the
 *   last line gets exactly one line end, the blank lines after it go.
 * - An answer with no code deletes the lines. Deleting the last lines of a
 *   file without a final newline also takes the line end before them, so
 *   the file still ends without one (patch_preview and patch_apply do it).
 */

/*
 * A file's id: "xxh64:HEX:SIZE" (XXH64 of libxxhash, seed 0), what revline compares a file
 * with before it writes or undoes. Never shown to users and not a git id.
 * A record stored by an older revline holds the file's git blob id (40 hex
 * digits) instead; both kinds are understood wherever an id is checked.
 */
#define PATCH_ID_SIZE 48
#define PATCH_UNIT_TABS (-1)    /* struct patch_snippet's unit: the file indents with tabs */

struct patch_snippet {
	char *path;             /* relative to the working tree, '/'-separated */
	int first, last;        /* 1-based lines, inclusive */
	size_t start, end;      /* byte offsets in the file: first line's start, just after last's line end */
	char *text;             /* the file's bytes start..end, exactly */
	size_t len;
	char *dedented;         /* what the LLM sees: base indentation removed, LF line ends */
	char *indent;           /* the base indentation removed (the common prefix of non-blank lines) */
	bool crlf;              /* the snippet's lines end in CRLF (most of them; the file's when it has none) */
	int unit;               /* the file's indentation step: PATCH_UNIT_TABS, N spaces, 0 when unknown */
	char file_id[PATCH_ID_SIZE];    /* the whole file's id when the snippet was taken */
	bool at_end;            /* the snippet reaches the end of the file */
	bool executable;        /* the file has its owner's exec bit: its preview says 100755, as git does */
	int blank_after;        /* the blank lines just after the snippet in the file */
	int blank_run;          /* the longest run of blank lines in the file */
	/*
	 * Set by the caller: the fix is of how the file ends (W292, W391). When
	 * the snippet reaches the end, the answer's last line ends with exactly
	 * one line end and nothing follows it.
	 */
	bool ends_file;
};

/*
 * Take lines first..last of a file's bytes (RL_EUSAGE when outside the
 * file). A UTF-8 byte order mark stays out of the snippet: a model drops it.
 */
int patch_snippet_take(struct patch_snippet *out, const char *path, const char *text, size_t len,
		       int first, int last);
void patch_snippet_release(struct patch_snippet *snippet);

/*
 * The model's code, back in the snippet's shape: what replaces
 * snippet->text, appended to out (nothing when the answer deletes the lines).
 */
int patch_reindent(struct buf *out, const struct patch_snippet *snippet, const char *code, size_t len);

/* The id of some bytes (PATCH_ID_SIZE). */
void patch_file_id(char out[PATCH_ID_SIZE], const char *data, size_t len);

/* The byte offsets of lines first..last (1-based, inclusive); false when outside the text. */
bool patch_lines(size_t *start, size_t *end, const char *text, size_t len, int first, int last);

#endif
