#ifndef REVLINE_REQUEST_H
#define REVLINE_REQUEST_H

#include <stddef.h>

#include "buf.h"

/*
 * Every action a key can trigger: X(ID, group, help, keys...). The key
 * bindings, the help view and `revline help keys` all come from here, and
 * a test checks that the man page lists every one.
 * Keys are curses key codes or characters; KEY_CTRL('l') for control keys.
 */
#define KEY_CTRL(c) ((c) & 0x1f)
#define KEY_ESC 27
#define KEY_TAB '\t'
#define KEY_WHEEL_UP 0x7f0001     /* mouse wheel, mapped from mouse events */
#define KEY_WHEEL_DOWN 0x7f0002
#define KEY_FOCUS_IN 0x7f0003     /* the terminal got the focus back (xterm's focus events) */

#define REQUEST_LIST(X) \
	X(REQ_MOVE_UP,      "Movement", "Move up one line",                    'k', KEY_UP) \
	X(REQ_MOVE_DOWN,    "Movement", "Move down one line",                  'j', KEY_DOWN) \
	X(REQ_PAGE_UP,      "Movement", "Move up one page",                    KEY_PPAGE, 'b') \
	X(REQ_PAGE_DOWN,    "Movement", "Move down one page",                  KEY_NPAGE, ' ') \
	X(REQ_MOVE_FIRST,   "Movement", "Go to the first line",                'g', KEY_HOME) \
	X(REQ_MOVE_LAST,    "Movement", "Go to the last line",                 'G', KEY_END) \
	X(REQ_SCROLL_LEFT,  "Movement", "Scroll left (diff pane)",             KEY_LEFT, 'h') \
	X(REQ_SCROLL_RIGHT, "Movement", "Scroll right (diff pane)",            KEY_RIGHT, 'l') \
	X(REQ_WHEEL_UP,     "Movement", "Scroll up three lines",               KEY_WHEEL_UP) \
	X(REQ_WHEEL_DOWN,   "Movement", "Scroll down three lines",             KEY_WHEEL_DOWN) \
	X(REQ_NEXT,         "Diff",     "Next hunk, or next match after a search", 'n') \
	X(REQ_PREV,         "Diff",     "Previous hunk, or previous match after a search", 'N') \
	X(REQ_NEXT_FILE,    "Diff",     "Next file",                           ']') \
	X(REQ_PREV_FILE,    "Diff",     "Previous file",                       '[') \
	X(REQ_RELOAD,       "Diff",     "Read the diff again (changes are also seen as they happen)", KEY_F(5)) \
	X(REQ_EDIT,         "Diff",     "Open the file at the line in $VISUAL or $EDITOR", 'e') \
	X(REQ_ENTER,        "Panes",    "Open the selected file's diff, or a finding's line", '\n', '\r', KEY_ENTER) \
	X(REQ_SWITCH_PANE,  "Panes",    "Go to the next pane",                 KEY_TAB) \
	X(REQ_CHECK,        "Review",   "Check the diff on screen against the rules", 'c') \
	X(REQ_RETRY,        "Review",   "Run again the rules that failed or timed out", 'R') \
	X(REQ_UNTRACKED,    "Review",   "Include untracked files in the diff, or leave them out again", 'I') \
	X(REQ_REPORT,       "Review",   "Findings: the merged report or the rules", 'r') \
	X(REQ_TOGGLE_HIDDEN, "Review",  "Show or hide unverified and suppressed findings, or all signals", 'v') \
	X(REQ_COPY,         "Review",   "Copy the finding as Markdown (to the clipboard, OSC 52)", 'y') \
	X(REQ_FALSE_POSITIVE, "Review", "Mark the finding a false positive (a note is asked)", 'f') \
	X(REQ_ACCEPT,       "Review",   "Accept the finding; in the signals or fix pane, apply the fix", 'a') \
	X(REQ_REJECT,       "Review",   "Reject the finding; in the signals or fix pane, reject the fix", 'x') \
	X(REQ_DEPS,         "Review",   "Dependencies: bumps, advisories, merge confidence", 'D') \
	X(REQ_SIGNALS,      "Fixes",    "Signals: linter diagnostics and their fixes (again: back)", 's') \
	X(REQ_LINT,         "Fixes",    "Run the installed linters on the changed files", 'L') \
	X(REQ_FIX_FINDING,  "Fixes",    "Ask for a fix of the finding (Enter does for a signal)", 'F') \
	X(REQ_UNDO,         "Fixes",    "Undo the fix shown, else the one applied last", 'u') \
	X(REQ_APPLIED,      "Fixes",    "Applied fixes of every session: pick one to undo", 'U') \
	X(REQ_HISTORY,      "History",  "History: checks, their violations and fixes", 'H') \
	X(REQ_STATS,        "History",  "Statistics: time to fix, fix types, rules", 'S') \
	X(REQ_BACK,         "History",  "Back a level in history",             KEY_BACKSPACE, 127, KEY_CTRL('h')) \
	X(REQ_FIX_CORRECT,  "History",  "Mark the fix correct",                '+') \
	X(REQ_FIX_INCORRECT, "History", "Mark the fix incorrect",              '-') \
	X(REQ_SEARCH,       "Search",   "Search the focused pane",             '/') \
	X(REQ_CANCEL,       "Search",   "Clear the search; cancel a check, the linters or a fix; close a pane", KEY_ESC) \
	X(REQ_HELP,         "General",  "Show this help",                      '?') \
	X(REQ_REDRAW,       "General",  "Redraw the screen",                   KEY_CTRL('l')) \
	X(REQ_QUIT,         "General",  "Quit, or close help, history, stats, dependencies", 'q')

enum request {
	REQ_NONE,
#define REQUEST_ENUM(id, group, help, ...) id,
	REQUEST_LIST(REQUEST_ENUM)
#undef REQUEST_ENUM
	REQ_COUNT
};

struct request_info {
	enum request request;
	const char *group;
	const char *help;
	const int *keys;
	size_t nkeys;
};

/* The request bound to a key, or REQ_NONE. */
enum request request_of_key(int key);
/* Every request in table order, for help. */
const struct request_info *request_table(size_t *count);
/* A key's name as help shows it ("j", "Down", "PgUp", "^L", "Space"). */
const char *key_name(int key);
/* The keys of a request as help shows them: "j, Down" (Enter and Return once). */
void request_keys_text(struct buf *out, const struct request_info *info);
/* A key from its name in a script ("Down", "C-l", "a"), or -1. */
int key_from_name(const char *name, size_t len);

#endif
