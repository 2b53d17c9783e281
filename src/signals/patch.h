#ifndef REVLINE_PATCH_H
#define REVLINE_PATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/*
 * Fixes applied to files. A snippet is some whole lines of a file as read;
 * the LLM sees it dedented, with LF line ends; its answer is put back into
 * the file's shape (patch_reindent): the base indentation again, with the
 * file's own indent characters (tabs stay tabs), the file's line ends
 * (CRLF stays CRLF), exactly the snippet's trailing newlines (a snippet at
 * the end of a file without a final newline keeps none), code fences and
 * an indentation the answer already carries handled.
 *
 * patch_apply writes the replacement only when the file is still the one
 * the snippet was taken from (RL_ECONFLICT otherwise), atomically: a
 * temporary file in the same directory, fsync, the file's mode, rename,
 * fsync of the directory. It refuses symlinks and any path that leads
 * outside the working tree (RL_EUSAGE). What it returns undoes the change
 * byte for byte. It reads the file once and hashes it twice (the check,
 * the id of the result) with a fast hash (XXH64, libxxhash), and writes the
 * result from three pieces, without copying it whole.
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
 *   did: a fix that moves its window's last lines away (E402 moving an
 *   import up) leaves blank lines there that separate what follows. Those
 *   are kept as the answer gives them while that stays safe: not at the
 *   end of the file, and never a longer run of blank lines, with those just
 *   after the window, than the file already has somewhere (its own
 *   practice: two between Python's top-level definitions; an answer with
 *   three stray newlines in a file of none gets none). Fewer blank lines
 *   than the snippet's are a model's slip: the snippet's are kept.
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

/*
 * The change as a unified diff (a/PATH b/PATH, 3 lines of context) of the
 * file's text with the snippet's bytes replaced, appended to out (empty
 * when nothing changes). RL_ECONFLICT when the text is not the one the
 * snippet was taken from. It uses libgit2's diff, initialising it itself: a
 * caller that does not hold it initialised pays libgit2's start-up.
 */
int patch_preview(struct buf *out, const struct patch_snippet *snippet, const char *text, size_t len,
		  const char *replacement, size_t rlen);

/* What patch_apply did, to undo it. */
struct patch_undo {
	char *path;
	size_t offset;                  /* where the change starts */
	char *before, *after;           /* the bytes replaced, and what replaced them */
	size_t before_len, after_len;
	char id_before[PATCH_ID_SIZE], id_after[PATCH_ID_SIZE];   /* the whole file's ids */
};

/* RL_EUSAGE, writing nothing, when the replacement is the bytes it replaces: the fix changes nothing. */
int patch_apply(struct patch_undo *out, const char *workdir, const struct patch_snippet *snippet,
		const char *replacement, size_t len);

/*
 * patch_apply in two steps, so that the undo record can be stored before
 * the file is replaced (fix.c does): patch_prepare reads and checks the
 * file and fills *undo, writing nothing; patch_pending_write replaces the
 * file. A kill between them leaves the file as it was.
 */
struct patch_pending;
int patch_prepare(struct patch_pending **out, struct patch_undo *undo, const char *workdir,
		  const struct patch_snippet *snippet, const char *replacement, size_t len);
int patch_pending_write(struct patch_pending *pending);
void patch_pending_free(struct patch_pending *pending);

/*
 * Put the file back as it was; RL_ECONFLICT when it changed since the fix
 * (it is left alone), RL_EUSAGE when the record does not fit the file. A
 * file that is already as it was (an undo interrupted after its write) is
 * left alone and the undo succeeds.
 */
int patch_undo(const char *workdir, const struct patch_undo *undo);
void patch_undo_release(struct patch_undo *undo);

/* Which side of an apply a file is on: as it was, with the fix, or neither. */
enum patch_side {
	PATCH_NEITHER,
	PATCH_BEFORE,
	PATCH_AFTER,
};

/*
 * Read the record's file and tell (the bytes at the offset, and the whole
 * file's id); the errors of patch_read when it cannot be read.
 */
int patch_side(enum patch_side *out, const char *workdir, const struct patch_undo *undo);

/*
 * Remove the temporary files an apply or undo killed before its rename
 * left beside the file (".NAME.revline-XXXXXX", regular files only).
 */
int patch_leftovers_remove(size_t *removed, const char *workdir, const char *path);

/* The id of some bytes (PATCH_ID_SIZE). */
void patch_file_id(char out[PATCH_ID_SIZE], const char *data, size_t len);

/* The byte offsets of lines first..last (1-based, inclusive); false when outside the text. */
bool patch_lines(size_t *start, size_t *end, const char *text, size_t len, int first, int last);

/*
 * Read a working-tree file for a fix: regular files inside workdir only.
 * RL_EUSAGE for an absolute path, '..', a path into .git, a symbolic link,
 * a directory on the way that leads outside the tree, or not a regular file;
 * RL_ENOTFOUND when there is no such file.
 */
int patch_read(struct buf *out, const char *workdir, const char *path);

#endif
