#ifndef REVLINE_STORE_FIXES_H
#define REVLINE_STORE_FIXES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "fix.h"
#include "patch_text.h"

struct store;
struct finding;
struct patch_snippet;
struct patch_undo;

/*
 * Fixes (signal_fixes): a row per fix, from the ask to the undo. repo is
 * a repository's key (history_repo_key of its working tree). Each function
 * is one transaction unless it says otherwise.
 */

/* A fix as it is asked for: its row starts with status 'asking'. */
struct fix_row {
	int64_t signal_id, finding_id;          /* what is fixed: one of them, the other 0 */
	const char *tool, *code;                /* a signal's (NULL for a finding) */
	const char *message;                    /* the signal's message, or the finding's title */
	const char *file;
	int first, last;                        /* the window's lines */
	const char *window;                     /* the window in words: "lines 3-5" */
	const struct patch_snippet *snippet;    /* the window's bytes, where, and the file's id */
	const char *model;                      /* NULL when not known */
};

int store_fix_add(int64_t *id, struct store *store, const char *repo, const struct fix_row *row);

/* The ask's outcome: failed (why), or the proposed code (after) with its explanation and diff. */
int store_fix_failed(struct store *store, int64_t id, const char *why);
int store_fix_proposed(struct store *store, int64_t id, const char *after, size_t after_len,
		       const char *explanation, const char *preview);
int store_fix_rejected(struct store *store, int64_t id);
/* What the linter said after the apply (detail NULL: nothing to say). */
int store_fix_recheck(struct store *store, int64_t id, enum fix_recheck recheck, const char *detail);

/*
 * An apply, so that the row and the file cannot disagree. First the undo
 * record, committed before the file is touched: status 'applied' without
 * applied_at (pending). Then store_fix_write runs write(payload) under the
 * store's write lock when the row is still pending (else RL_ECONFLICT,
 * write not called): written, the row gets its applied_at; not, it goes
 * back to status back. A failure to lock returns before write is called.
 */
int store_fix_pending(struct store *store, int64_t id, const struct patch_undo *undo);
int store_fix_write(struct store *store, int64_t id, enum fix_state back, int (*write)(void *payload),
		    void *payload);
/* An undo: undo(payload) under the store's write lock; done, the row is 'undone'. */
int store_fix_undo(struct store *store, int64_t id, int (*undo)(void *payload), void *payload);

/*
 * What a pending apply's file says: the fix is in it (why left empty), or
 * why the fix failed. workdir is the row's repository's working tree.
 */
typedef int (*store_fix_judge)(struct buf *why, const char *workdir, const struct patch_undo *undo);

/*
 * Settle the pending applies (fix id; 0: all of repo; repo NULL: of every
 * repository) by what judge says of each, under the store's write lock;
 * *settled is how many were.
 */
int store_fixes_settle(size_t *settled, struct store *store, int64_t id, const char *repo,
		       store_fix_judge judge);

/* The repository's latest applied fix (wanted 0), or fix wanted if applied; RL_ENOTFOUND (no message). */
int store_fix_applied_find(int64_t *id, struct store *store, const char *repo, int64_t wanted);
/* A fix's undo record. */
int store_fix_undo_get(struct patch_undo *out, struct store *store, int64_t id);
/* The repository's applied fixes (not pending), newest first; freed by store_fix_records_free. */
int store_fixes_applied(struct fix_record **out, size_t *count, struct store *store, const char *repo);
void store_fix_records_free(struct fix_record *records, size_t count);
/*
 * The latest fix of a signal (finding_id 0) or of a finding (signal_id 0);
 * RL_ENOTFOUND (no message) when none. *pending: an apply not settled yet.
 */
int store_fix_latest(struct fix_summary *out, bool *pending, struct store *store, int64_t signal_id,
		     int64_t finding_id);

/*
 * The latest fix asked for finding id, or for a finding of an earlier check
 * with its fingerprint (the same finding found again), when that fix is
 * proposed (not applied, rejected, undone or failed): its lines and its
 * record (file, offset, the bytes it replaces and the proposed ones, the
 * file's id when it was asked for; id_after empty). RL_ENOTFOUND (no
 * message) when there is none such; the record is freed with
 * patch_undo_release.
 */
int store_fix_proposal(struct patch_undo *out, int *first, int *last, struct store *store, const char *repo,
		       int64_t id);

/*
 * A finding of the repository's checks, what a fix needs of it: id, file,
 * line, end_line, rule_id, severity, title, issue, suggestion, verify_note (the other
 * fields are left empty); RL_ENOTFOUND (no message) when it has none such.
 */
int store_fix_finding(struct finding *out, struct store *store, const char *repo, int64_t id);

/* A fix's row as it was asked for and answered, to apply it from another process. */
struct fix_stored {
	int64_t signal_id, finding_id;  /* one of them; 0 for the other (or a signal since deleted) */
	char *file, *window, *state;
	int first, last;
	size_t offset;                  /* the window's first byte */
	char file_id[PATCH_ID_SIZE];    /* the file's id when the fix was asked for */
	char *before, *after;           /* the window's bytes, and the proposed ones (NULL: none yet) */
	size_t before_len, after_len;
	char *explanation, *preview;
};

/* Fix id of the repository; RL_ENOTFOUND names it. Freed by fix_stored_release. */
int store_fix_stored(struct fix_stored *out, struct store *store, const char *repo, int64_t id);
void fix_stored_release(struct fix_stored *stored);

#endif
