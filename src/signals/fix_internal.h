#ifndef REVLINE_FIX_INTERNAL_H
#define REVLINE_FIX_INTERNAL_H

/*
 * A fix's insides, shared by the files of one concept: fix.c (ask,
 * propose, apply, recheck, undo), fix_open.c (a fix another process
 * proposed, read back from the store to be applied here) and
 * fix_context.c (the definitions of the repository its code uses).
 */
#include "editwin.h"
#include "fix.h"
#include "pack.h"
#include "patch.h"

struct repo;
struct index;

/*
 * What a fix is shown of the repository besides its own file (fix_context.c):
 * the definitions its code uses, from the index of the working tree.
 */
struct fix_context {
	struct repo *repo;
	struct index *index;            /* building, then done; NULL: none (off, failed, or used and freed) */
	size_t budget;                  /* bytes of the request the definitions may take */
	bool found;                     /* looked for (once the index is done) */
	struct pack pack;               /* the definitions found */
	struct pack_use sent;           /* those the request carries */
	struct buf text;                /* and their text, for the prompt */
	struct fix_definition *defs;    /* the same for the front ends */
	char *note;                     /* the index's note, or why there is no index; NULL */
};

/* What is fixed: a signal, or a finding (tool NULL). */
struct fix_target {
	char *file;
	int line, end_line, column;
	char *tool, *code, *message;            /* a signal */
	char *rule, *severity, *title, *issue, *suggestion;     /* a finding */
	int64_t signal_id, finding_id;
};

struct fix {
	struct fix_options opts;
	struct editwin_table *own_table;
	struct fix_target target;
	struct editwin win;
	struct patch_snippet snippet;
	struct buf text;                /* the file when the snippet was taken */
	char window[96];
	enum fix_state state;
	int64_t id;
	char *error, *explanation, *preview;
	struct buf replacement;
	char *system, *user;
	struct asker *asker;
	struct lint *lint;
	struct lint *base;              /* the linter on the file as it was, while asking */
	struct poll_group *own_group;   /* made when the options gave none */
	struct poll_member member;      /* takes the asker's and the linters' results */
	bool deletes;                   /* the signal's row says its fix may delete its lines */
	bool ends_file;                 /* the signal's row says its fix is of how the file ends */
	bool executable;                /* the file has its owner's exec bit (patch_read) */
	enum fix_recheck recheck;
	char *recheck_detail;
	struct patch_undo undo;
	struct fix_context context;
	bool asked;                     /* the request is sent (or failed to be) */
};

/* fix_context.c */

/*
 * The settings (revline.context, revline.contextTokens, revline.ctags,
 * revline.ignore) read and, unless the context is off, the index of the
 * working tree started in the fix's poll group (joined), at most
 * FIX_CONTEXT_MS. What goes wrong leaves the fix without definitions, its
 * note saying why; only memory fails it.
 */
int fix_context_begin(struct fix *fix);
/* Whether the index is still being built: the fix waits for it before it asks. */
bool fix_context_waiting(const struct fix *fix);
/* Once it is not: the definitions the window and the lines shown with it use, found and rendered. */
int fix_context_find(struct fix *fix);
/* Stop the index where it is. */
void fix_context_cancel(struct fix *fix);
void fix_context_release(struct fix_context *context);

#endif
