#ifndef REVLINE_FIX_INTERNAL_H
#define REVLINE_FIX_INTERNAL_H

/*
 * A fix's insides, shared by the files of one concept: fix.c (ask,
 * propose, apply, recheck, undo) and fix_open.c (a fix another process
 * proposed, read back from the store to be applied here).
 */
#include "editwin.h"
#include "fix.h"
#include "patch.h"

/* What is fixed: a signal, or a finding (tool NULL). */
struct target {
	char *file;
	int line, end_line, column;
	char *tool, *code, *message;            /* a signal */
	char *rule, *severity, *title, *issue, *suggestion;     /* a finding */
	int64_t signal_id, finding_id;
};

struct fix {
	struct fix_options opts;
	struct editwin_table *own_table;
	struct target target;
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
	enum fix_recheck recheck;
	char *recheck_detail;
	struct patch_undo undo;
};

#endif
