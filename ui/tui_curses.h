#ifndef REVLINE_TUI_CURSES_H
#define REVLINE_TUI_CURSES_H

/* The one place the UI includes curses, with its wide-character API. */
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#include <curses.h>

#endif
