#ifndef REVLINE_SCREEN_H
#define REVLINE_SCREEN_H

#include <stdbool.h>

struct tui;

/*
 * The terminal: curses set up and torn down, keys read from it (the mouse
 * and the terminal's focus events turned into keys), focus events on and
 * off. Headless (screen-dump tests) draws to /dev/null at
 * REVLINE_SCREEN_SIZE.
 */
int screen_open(bool headless);
/* End curses (tui->status_win goes first: windows before their screen). */
void screen_close(struct tui *tui);
/*
 * The next key waiting: false when none; *key is -1 for an event that is
 * no key (a click, which focuses a pane, or the focus going away).
 */
bool screen_read_key(struct tui *tui, int *key);
/* Turn the terminal's focus events on or off (off while an editor runs). */
void tui_focus_events(bool on);

#endif
