#ifndef REVLINE_PATCH_H
#define REVLINE_PATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "patch_text.h"

/*
 * Fixes applied to files: a snippet's replacement (patch_text.h) written
 * to the file, and undone.
 *
 * patch_apply writes the replacement only when the file is still the one
 * the snippet was taken from (RL_ECONFLICT otherwise), atomically: a
 * temporary file in the same directory, fsync, the file's mode, rename,
 * fsync of the directory. It refuses symlinks and any path that leads
 * outside the working tree (RL_EUSAGE). What it returns undoes the change
 * byte for byte. It reads the file once and hashes it twice (the check,
 * the id of the result) with a fast hash (XXH64, libxxhash), and writes the
 * result from three pieces, without copying it whole.
 */

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

/*
 * Read a working-tree file for a fix: regular files inside workdir only;
 * *executable (when not NULL): whether it has its owner's exec bit.
 * RL_EUSAGE for an absolute path, '..', a path into .git, a symbolic link,
 * a directory on the way that leads outside the tree, or not a regular file;
 * RL_ENOTFOUND when there is no such file.
 */
int patch_read(struct buf *out, bool *executable, const char *workdir, const char *path);

#endif
