#ifndef REVLINE_FIX_H
#define REVLINE_FIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ask.h"
#include "buf.h"
#include "llm.h"
#include "sched.h"

/*
 * A fix of one linter signal or one review finding. fix_start reads the
 * file, takes the edit window the signal calls for (editwin), builds the
 * prompt (share/prompts/fix.md) with the dedented snippet and its context,
 * and, once the repository index of the working tree is built (a few
 * seconds at most, in the poll group), the definitions the code uses that
 * the repository has elsewhere (fix_definitions; none with revline.context
 * none), and asks the LLM through the scheduler, without blocking; the answer
 * ({"fixed_code", "explanation"}) is put back into the file's shape (patch)
 * and shown as a diff; an answer that deletes the whole edit window fails,
 * unless the signal's row says delete and the window holds only the
 * signal's lines. fix_apply writes it (refused when the file changed
 * since, RL_ECONFLICT) and then runs the signal's linter on the file again,
 * also without blocking, to tell whether the signal is gone and what is
 * new anywhere in the file. Every step is
 * a row of signal_fixes: asked, proposed or failed, applied, rejected,
 * undone; an applied fix is undone byte for byte from that row.
 *
 * The row and the file cannot disagree: the undo record is committed
 * before the file is replaced (status 'applied', applied_at not set yet:
 * pending) and completed after, and the write happens under the store's
 * write lock. A kill at any instant leaves the old file, or the new file
 * with a record that fix_recover completes, so that undo works. A
 * database locked past its busy timeout refuses the apply (and the undo)
 * before the file is touched.
 */

/* X(ID, name as stored) */
#define FIX_STATES(X) \
	X(FIX_ASKING,   "asking") \
	X(FIX_PROPOSED, "proposed") \
	X(FIX_FAILED,   "failed") \
	X(FIX_APPLIED,  "applied") \
	X(FIX_REJECTED, "rejected") \
	X(FIX_UNDONE,   "undone")

enum fix_state {
#define FIX_STATE_ENUM(id, name) id,
	FIX_STATES(FIX_STATE_ENUM)
#undef FIX_STATE_ENUM
};

/* After an apply: what the linter says now. X(ID, name as stored, or NULL) */
#define FIX_RECHECKS(X) \
	X(RECHECK_NONE,    NULL)            /* not applied yet */ \
	X(RECHECK_RUNNING, NULL) \
	X(RECHECK_GONE,    "gone")          /* the signal is gone, nothing new */ \
	X(RECHECK_STILL,   "still_present") /* the same code is still reported there */ \
	X(RECHECK_NEW,     "new_signals")   /* gone, but the fix brought new signals */ \
	X(RECHECK_NOT_RUN, "not_run")       /* a finding's fix, or the linter is not installed */

enum fix_recheck {
#define FIX_RECHECK_ENUM(id, name) id,
	FIX_RECHECKS(FIX_RECHECK_ENUM)
#undef FIX_RECHECK_ENUM
};

struct store;
struct config;
struct signal;
struct editwin_table;
struct patch_snippet;

struct fix_options {
	const char *workdir;            /* the working tree; nothing is written outside it */
	struct store *store;
	struct llm_config *llm;
	struct sched_options sched;
	struct asker_options ask;
	struct config *config;          /* linter commands (revline.lint.NAME); may be NULL */
	const struct editwin_table *table;      /* NULL: the shipped table */
	struct poll_group *group;       /* the front end's poll group (NULL: one of its own) */
};

struct fix;

int fix_new_signal(struct fix **out, const struct fix_options *options, const struct signal *signal);
/* A stored finding of this repository's checks; RL_ENOTFOUND names it. */
int fix_new_finding(struct fix **out, const struct fix_options *options, int64_t finding_id);
void fix_free(struct fix *fix);
/*
 * A fix proposed before (by this process or another), read back from the
 * store to be applied: RL_ENOTFOUND for no such fix of the repository,
 * RL_EUSAGE when it holds no proposal (asking, failed, applied). fix_apply
 * refuses it when the file changed since it was asked for.
 */
int fix_open(struct fix **out, const struct fix_options *options, int64_t fix_id);

/*
 * Read the file, take the window, store the request and send it. RL_EUSAGE
 * when the signal's code is one revline does not fix (the table says skip)
 * or its line is not in the file; RL_ECONFIG without an LLM.
 */
int fix_start(struct fix *fix);
/* Wait up to max_ms on its poll group and step it. */
int fix_wait(struct fix *fix, int max_ms);
/* Asking, or rechecking after an apply. */
bool fix_busy(const struct fix *fix);
/* Stop asking (the fix fails as cancelled) or rechecking. */
void fix_cancel(struct fix *fix);

enum fix_state fix_state(const struct fix *fix);
const char *fix_state_name(enum fix_state state);
int64_t fix_id(const struct fix *fix);
const char *fix_file(const struct fix *fix);
/* What went wrong (a failed ask, a refused apply), or NULL. */
const char *fix_error(const struct fix *fix);
const char *fix_explanation(const struct fix *fix);
/* The unified diff of the proposal, or NULL before one. */
const char *fix_preview(const struct fix *fix);
const struct patch_snippet *fix_snippet(const struct fix *fix);
/* The window's kind and the lines it covers, for messages ("function, lines 10-24"). */
const char *fix_window(const struct fix *fix);

/*
 * The definitions of the repository the request carried, in the order
 * sent (the window's first): what a call in the window must match. NULL
 * (count 0) before the request is sent, with revline.context none, or
 * when none was found.
 */
struct fix_definition {
	const char *name;
	const char *path;
	int line;
};
const struct fix_definition *fix_definitions(const struct fix *fix, size_t *count);
/*
 * What the repository index said (universal-ctags missing, the index cut
 * short at its bound) or why there was none, in one line; NULL when
 * nothing is to be said.
 */
const char *fix_context_note(const struct fix *fix);

/* Write the proposal; then the recheck starts. RL_ECONFLICT when the file changed. */
int fix_apply(struct fix *fix);
int fix_reject(struct fix *fix);
/* Undo this fix (after fix_apply). */
int fix_undo(struct fix *fix);

enum fix_recheck fix_recheck(const struct fix *fix);
const char *fix_recheck_name(enum fix_recheck recheck);
/* fix_state.c: the names as stored (a recheck not run yet: NULL), and back (unknown: the first). */
const char *fix_recheck_stored(enum fix_recheck recheck);
enum fix_state fix_state_parse(const char *name);
enum fix_recheck fix_recheck_parse(const char *name);
/*
 * The linter's words after the apply, or NULL: "flake8 no longer reports
 * F401 at line 3, but reports 2 new problems: F821 at line 51 (undefined
 * name 'm40'), ...". The whole file's signals are compared with those of
 * a run before the apply (started with the ask; an apply waits for it).
 */
const char *fix_recheck_detail(const struct fix *fix);

/* The latest fix of a signal (finding_id 0) or of a finding (signal_id 0); RL_ENOTFOUND when none. */
struct fix_summary {
	int64_t id;
	enum fix_state state;
	enum fix_recheck recheck;
};
int fix_latest(struct fix_summary *out, struct store *store, int64_t signal_id, int64_t finding_id);

/*
 * What a finding's proposed fix would change, for a report's suggestion
 * (fix_suggest.c): lines first..last of the file become text (the last
 * line's end left off; "" when the fix deletes them). Found when the
 * latest fix asked for the finding, or for the same finding in an earlier
 * check (its fingerprint), is proposed, and the file in workdir is still
 * byte for byte as it was when the fix was asked for; RL_ENOTFOUND (no
 * message) otherwise.
 */
struct fix_suggestion {
	int first, last;
	struct buf text;
};
int fix_suggestion_find(struct fix_suggestion *out, struct store *store, const char *workdir, int64_t finding_id);
void fix_suggestion_release(struct fix_suggestion *suggestion);

/*
 * Undo a stored, applied fix of the repository at workdir (fix_id 0: the
 * latest applied one); *undone is the fix's id. RL_ENOTFOUND when there is
 * none to undo, RL_ECONFLICT when the file changed since.
 */
int fix_undo_stored(int64_t *undone, struct store *store, const char *workdir, int64_t fix_id);

/* An applied fix of the store, as fix_applied lists it. */
struct fix_record {
	int64_t id;
	char *file, *tool, *code, *message, *window;
	int first, last;        /* the lines the fix rewrote (before it) */
	int64_t applied_at;     /* ms since the epoch */
	enum fix_recheck recheck;
	char *recheck_detail;
};

/*
 * The fixes of the repository at workdir that are applied (across
 * sessions: what fix_undo_stored can take back), newest first. Pending
 * applies are settled first.
 */
int fix_applied(struct fix_record **out, size_t *count, struct store *store, const char *workdir);
void fix_records_free(struct fix_record *records, size_t count);

/*
 * Settle the applies a kill left pending (of the repository at workdir;
 * NULL: of every repository) from their files: a file that holds the fix
 * completes the record (undo works); one that is as it was makes the fix
 * failed, "interrupted before the file was written"; one that is neither
 * makes it failed, saying so. Temporary files left beside them go.
 * fix_undo_stored and fix_latest do it themselves, so what they show is
 * settled; *settled is how many were.
 */
int fix_recover(size_t *settled, struct store *store, const char *workdir);

#endif
