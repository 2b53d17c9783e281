#ifndef REVLINE_TUI_H
#define REVLINE_TUI_H

#include <stdbool.h>

#include "buf.h"
#include "diff.h"
#include "fixes.h"
#include "loop.h"
#include "repo.h"
#include "review.h"
#include "theme.h"
#include "view.h"

/* The views. X(ID, ops). */
#define VIEW_LIST(X) \
	X(VIEW_FILES,    files_view_ops) \
	X(VIEW_DIFF,     diff_view_ops) \
	X(VIEW_FINDINGS, findings_view_ops) \
	X(VIEW_EVIDENCE, evidence_view_ops) \
	X(VIEW_SIGNALS,  signals_view_ops) \
	X(VIEW_FIX,      fix_view_ops) \
	X(VIEW_HELP,     help_view_ops) \
	X(VIEW_HISTORY,  history_view_ops) \
	X(VIEW_STATS,    stats_view_ops) \
	X(VIEW_DEPS,     deps_view_ops) \
	X(VIEW_APPLIED,  applied_view_ops) \
	X(VIEW_EMPTY,    empty_view_ops)

enum view_id {
#define VIEW_ENUM(id, ops) id,
	VIEW_LIST(VIEW_ENUM)
#undef VIEW_ENUM
	VIEW_COUNT
};

#define VIEW_OPS_DECL(id, ops) extern const struct view_ops ops;
VIEW_LIST(VIEW_OPS_DECL)
#undef VIEW_OPS_DECL

struct script;

struct search {
	char needle[256];
	bool active;
	bool icase;             /* smart case: no capitals in the needle */
};

/* What the status-bar prompt is for. */
enum prompt_kind {
	PROMPT_SEARCH,
	PROMPT_NOTE,            /* a note for a false positive */
};

struct tui {
	struct repo *repo;
	struct target *target;
	struct diff *diff;      /* on screen: the UI's reference (a check holds its own) */
	struct theme theme;
	struct view views[VIEW_COUNT];
	struct view *focus;     /* a pane: files, findings, diff or evidence */
	struct view *overlay;   /* a full-screen view (help, history, stats), or NULL */
	struct review review;
	struct fixes fixes;
	unsigned diff_serial;   /* goes up when tui->diff is replaced */
	/* Called when tui->diff was replaced (set by tui_run: the watcher follows the new diff). */
	void (*diff_changed)(struct tui *tui);
	bool quit;
	int exit_status;        /* what tui_run returns (2 when a script failed) */
	size_t file;            /* the file shown in the diff pane */
	/* The untracked files an empty diff leaves out (tui_untracked_count), -1 when not known. */
	long untracked;
	int goto_line;          /* a new line for the diff pane to show next, or 0 */
	int goto_row;           /* the screen row to show it on, plus 1 (0: a third down) */
	size_t counted;         /* background counting: next file to count */
	struct search search;
	struct loop loop;
	struct loop_source *input;
	struct loop_source *counter;
	struct loop_source *renamer;    /* rename pairing (repo_diff_start) */
	struct watch *watch;    /* of the working tree (watch.c) */
	struct script *script;
	WINDOW *status_win;     /* the status bar, the last line */
	struct view *wheel_view;        /* where the mouse wheel last turned (the pane under the pointer) */
	/* The status bar's transient message and the search prompt. */
	char message[512];
	bool message_error;
	bool prompting;
	enum prompt_kind prompt_kind;
	const struct finding *prompt_finding;   /* what a note is for */
	struct buf prompt;
	bool status_dirty;
};

struct tui_options {
	const char *theme;      /* name or path; NULL for config/env/default */
	bool check;             /* start a check at once (revline --check) */
	int64_t fixes_left;     /* out: the check whose fix detection was cut short by quitting */
};

/*
 * Run the terminal UI on a diff until the user quits. With REVLINE_SCRIPT
 * set, runs headless: keys come from that file and nothing is drawn to a
 * terminal (screen-dump tests). Returns a process exit status.
 */
int tui_run(struct repo *repo, struct target *target, struct diff *diff,
	    struct tui_options *options);

/*
 * The UI's state (state.c), which every part of the UI may change; it
 * calls none of them (review, fixes, the watcher, the views' own code).
 */
/* Show a file in the diff pane (and select it in the files pane). */
void tui_open_file(struct tui *tui, size_t index);
/* A message in the status bar until the next key. */
void tui_message(struct tui *tui, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Draw everything again (after another program had the terminal, or panes came or went). */
void tui_redraw(struct tui *tui);
/* Lay the windows out for the current terminal size. */
void tui_layout(struct tui *tui);
void tui_set_focus(struct tui *tui, struct view *view);
/* The focus stays on a pane that is on screen. */
void tui_focus_keep(struct tui *tui);
/* The panes on screen, in the order Tab visits them (at most 4). */
size_t tui_panes(struct tui *tui, struct view **out);
/* The view that takes keys now: a full-screen view, or the focused pane. */
struct view *tui_active_view(struct tui *tui);
/* Whether panes beside the files and the diff are on screen (a review, or signals). */
bool tui_lower_shown(const struct tui *tui);
/* Open or close a full-screen view (help, history, stats). */
void tui_overlay(struct tui *tui, struct view *view);
/* Whether the findings and evidence panes are on screen (after a check started). */
bool tui_review_shown(const struct tui *tui);
/* Whether the signals pane is on screen (s), in the findings pane's place. */
bool tui_signals_shown(const struct tui *tui);
/* Whether the fix pane is on screen, in the evidence pane's place. */
bool tui_fix_shown(const struct tui *tui);
/*
 * The working tree changed (a fix applied or undone): the diff is made
 * again and the diff pane shows path (NULL: the file it shows) at line.
 */
void tui_diff_reload(struct tui *tui, const char *path, int line);
/*
 * The working tree changed under the UI (an editor): the diff is made again
 * (diff: one already made, or NULL) and the diff pane keeps its place, the
 * same file and the nearest line.
 */
int tui_diff_refresh(struct tui *tui, struct diff *diff);
/*
 * While the diff is empty, count the untracked files it leaves out again
 * (after the diff was made again, or the working tree changed); the screens
 * that say the diff is empty are drawn again when the count changed.
 */
void tui_untracked_count(struct tui *tui);
/*
 * What an empty diff leaves out, when its new side is the working tree:
 * "2 untracked files (I adds them)", "no untracked files"; nothing else.
 */
void tui_untracked_text(struct tui *tui, struct buf *out);
/*
 * What an empty diff compared and what it leaves out, for the panes and
 * messages that say there is nothing to review: "HEAD (1a2b3c4)..working
 * tree: no changes; 2 untracked files (I adds them)".
 */
void tui_empty_summary(struct tui *tui, struct buf *out);
/* Show a file's line in the diff pane (a finding's place), focusing it. */
void tui_show_line(struct tui *tui, const char *path, int line);
/* The same without the focus: the diff pane follows a selection (a signal); nothing when not in the diff. */
void tui_peek_line(struct tui *tui, const char *path, int line);
/* Ask for text in the status bar: a search, or a note (tui_prompt_note). */
void tui_prompt_start(struct tui *tui, enum prompt_kind kind);
/* Ask for a note on a finding in the status bar; the key handling (app.c) judges it. */
void tui_prompt_note(struct tui *tui, const struct finding *finding);

/* What views tell others (views/); state.c reaches the diff view's place through its ops. */
/* The new-side line at the diff pane's cursor (0: none) and its screen row (diff_view_ops.place). */
int diff_view_place(struct view *view, int *row);
/*
 * The finding under the findings pane's cursor, or NULL; *rule is the
 * index of its rule's result ((size_t)-1 for a report finding).
 */
const struct finding *findings_current(struct tui *tui, size_t *rule);

/* The signal under the signals pane's cursor, or NULL; *index is its index in tui->fixes.signals. */
const struct signal *signals_current(struct tui *tui, size_t *index);

/* The status bar (statusbar.c). */
void statusbar_draw(struct tui *tui, WINDOW *win, int width);
/* Whether the focused view's keys do not all fit in the bar (Tab then says them). */
bool statusbar_keys_cut(struct tui *tui, int width);

#endif
