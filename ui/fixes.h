#ifndef REVLINE_FIXES_H
#define REVLINE_FIXES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fix.h"
#include "loop.h"
#include "signals.h"
#include "theme.h"

/*
 * Signals and fixes in the terminal UI: the repository's current linter
 * signals, a run of the linters (L), and the fixes asked for this session,
 * of signals (Enter in the signals pane) and of findings (F), driven from
 * the UI's loop as the review is. The engine (lint, fix) does the work;
 * this keeps what the signals and fix panes show.
 */
struct tui;
struct lint;
struct finding;

struct fixes_entry {
	int64_t signal;                 /* the signal fixed, or 0 */
	int64_t finding;                /* the finding fixed, or 0 */
	struct fix *fix;
	int64_t started_us;             /* when it was asked or applied, for the spinner */
	enum fix_state seen;            /* what the status bar last said of it */
	enum fix_recheck seen_recheck;
};

struct fixes {
	struct tui *tui;
	struct signal_list signals;     /* each tool's latest run or import */
	struct fix_summary *stored;     /* per signal: its latest stored fix (id 0: none) */
	size_t *shown;                  /* the signals on show, as indexes */
	size_t nshown;
	bool show_all;                  /* every signal, not only those on changed lines */
	bool pane;                      /* the signals and fix panes replace findings and evidence */
	bool fix_pane;                  /* after F: the fix pane replaces evidence */
	struct lint *lint;              /* the linters running (L), or NULL */
	int64_t lint_started_us;
	struct fixes_entry *entries;
	size_t nentries, entries_alloc;
	struct loop_source *source;
};

int fixes_init(struct fixes *fixes, struct tui *tui);
void fixes_release(struct fixes *fixes);

/* Read the signals again (and their stored fixes); the diff or the store changed. */
void fixes_reload(struct fixes *fixes);
/* Which signals are on show, after the diff changed or show_all did. */
void fixes_refilter(struct fixes *fixes);

/* Run the installed linters on the diff's files (only: one linter, or NULL). */
int fixes_lint(struct fixes *fixes, const char *only);
bool fixes_linting(const struct fixes *fixes);
/* Whether a fix is being asked for or rechecked. */
bool fixes_busy(const struct fixes *fixes);
/* Stop the linters and the fixes being asked for. */
void fixes_cancel(struct fixes *fixes);

/* Ask for a fix of a signal or of a finding, without blocking. */
int fixes_ask_signal(struct fixes *fixes, const struct signal *signal);
int fixes_ask_finding(struct fixes *fixes, const struct finding *finding);
/* This session's latest fix of a signal or a finding, or NULL. */
struct fixes_entry *fixes_entry_of(struct fixes *fixes, int64_t signal, int64_t finding);
/* A signal's latest stored fix (id 0 when none); index into signals. */
const struct fix_summary *fixes_stored(const struct fixes *fixes, size_t index);

/* Apply, reject or undo a fix; the status bar says how it went. */
int fixes_apply(struct fixes *fixes, struct fixes_entry *entry);
int fixes_reject(struct fixes *fixes, struct fixes_entry *entry);
int fixes_undo(struct fixes *fixes, struct fixes_entry *entry);
/* Undo a fix applied in an earlier session (from the store). */
int fixes_undo_stored(struct fixes *fixes, int64_t fix_id);
/* Undo a fix by id: this session's through its entry, an earlier one's from the store. */
int fixes_undo_id(struct fixes *fixes, int64_t fix_id);
/* The repository's applied fixes, newest first (fix_applied). */
int fixes_applied(struct fixes *fixes, struct fix_record **out, size_t *count);

/*
 * A fix's state in a word or two ("proposed", "⠋ asking 3s", "fixed",
 * "still there"), from this session's entry or else the stored summary,
 * and its style; "" when there is no fix.
 */
const char *fixes_label(char *out, size_t size, const struct fixes_entry *entry,
			const struct fix_summary *stored, enum style *style);

/* Whether a signal is reported at this new line of a file (the diff pane's gutter). */
bool fixes_signal_at(const struct fixes *fixes, const char *path, int line);

#endif
