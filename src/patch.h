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
 * temporary file in the same directory, fsync, the file's mode, rename. It
 * refuses symlinks and any path that leads outside the working tree
 * (RL_EUSAGE). What it returns undoes the change byte for byte.
 */

#define PATCH_ID_SIZE 41        /* a git blob id in hex, NUL-terminated */

struct patch_snippet {
	char *path;             /* relative to the working tree, '/'-separated */
	int first, last;        /* 1-based lines, inclusive */
	size_t start, end;      /* byte offsets in the file: first line's start, just after last's line end */
	char *text;             /* the file's bytes start..end, exactly */
	size_t len;
	char *dedented;         /* what the LLM sees: base indentation removed, LF line ends */
	char *indent;           /* the base indentation removed (the common prefix of non-blank lines) */
	bool crlf;              /* the snippet's lines end in CRLF */
	char file_id[PATCH_ID_SIZE];    /* the whole file's blob id when the snippet was taken */
};

/* Take lines first..last of a file's bytes (RL_EUSAGE when outside the file). */
int patch_snippet_take(struct patch_snippet *out, const char *path, const char *text, size_t len,
		       int first, int last);
void patch_snippet_release(struct patch_snippet *snippet);

/* The model's code, back in the snippet's shape: what replaces snippet->text. */
int patch_reindent(struct buf *out, const struct patch_snippet *snippet, const char *code, size_t len);

/*
 * The change as a unified diff (a/PATH b/PATH, 3 lines of context) of the
 * file's text with the snippet's bytes replaced.
 */
int patch_preview(struct buf *out, const struct patch_snippet *snippet, const char *text, size_t len,
		  const char *replacement, size_t rlen);

/* What patch_apply did, to undo it. */
struct patch_undo {
	char *path;
	size_t offset;                  /* where the change starts */
	char *before, *after;           /* the bytes replaced, and what replaced them */
	size_t before_len, after_len;
	char id_before[PATCH_ID_SIZE], id_after[PATCH_ID_SIZE];   /* the whole file's blob ids */
};

int patch_apply(struct patch_undo *out, const char *workdir, const struct patch_snippet *snippet,
		const char *replacement, size_t len);
/* Put the file back as it was; RL_ECONFLICT when it changed since the fix. */
int patch_undo(const char *workdir, const struct patch_undo *undo);
void patch_undo_release(struct patch_undo *undo);

/* The git blob id of some bytes. */
void patch_blob_id(char out[PATCH_ID_SIZE], const char *data, size_t len);

/* Read a working-tree file for a fix: regular files inside workdir only. */
int patch_read(struct buf *out, const char *workdir, const char *path);

#endif
