/* The terminal: curses, the keys read from it, the mouse and focus events. */
#include "screen.h"
#include "status.h"
#include "tui.h"

#include <stdio.h>
#include <stdlib.h>

static SCREEN *screen;
static FILE *null_out, *null_in;

/*
 * Focus events (xterm's mode 1004, also tmux's and most terminals'): the
 * terminal says ESC [ I when its window gets the focus, ESC [ O when it
 * loses it. The codes curses gives for the two, or 0.
 */
static int focus_codes[2];
static bool focus_reported;

/* The pane under a mouse event, for the wheel. */
static struct view *view_at(struct tui *tui, int y, int x)
{
	int i;

	struct view *list[4];
	size_t n = tui_panes(tui, list);

	for (i = 0; i < (int)n; i++) {
		struct view *v = list[i];
		int top, left;

		if (!v->win)
			continue;
		getbegyx(v->win, top, left);
		if (y >= top - 1 && y < top + v->height && x >= left && x < left + v->width)
			return v;
	}
	return NULL;
}

static int mouse_key(struct tui *tui)
{
	MEVENT event;

	if (getmouse(&event) != OK)
		return -1;
	tui->wheel_view = view_at(tui, event.y, event.x);
	if (event.bstate & BUTTON4_PRESSED)
		return KEY_WHEEL_UP;
#ifdef BUTTON5_PRESSED
	if (event.bstate & BUTTON5_PRESSED)
		return KEY_WHEEL_DOWN;
#endif
	if ((event.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)) && tui->wheel_view && !tui->overlay) {
		int top, left;

		getbegyx(tui->wheel_view->win, top, left);
		(void)left;
		tui_set_focus(tui, tui->wheel_view);
		if (event.y >= top)
			view_select(tui->wheel_view, tui->wheel_view->offset + (size_t)(event.y - top));
	}
	return -1;
}

static int focus_code(const char *seq, int code)
{
	int known = key_defined(seq);

	if (known > 0)
		return known;
	return define_key(seq, code) == OK ? code : 0;
}

void tui_focus_events(bool on)
{
	if (!focus_reported)
		return;
	fputs(on ? "\033[?1004h" : "\033[?1004l", stdout);
	fflush(stdout);
}

int screen_open(bool headless)
{
	const char *term = getenv("TERM");

	if (!term || !*term)
		term = headless ? "xterm-256color" : "vt100";
	if (headless) {
		const char *size = getenv("REVLINE_SCREEN_SIZE");
		int cols = 80, rows = 24;
		char value[16];

		if (size)
			sscanf(size, "%dx%d", &cols, &rows);
		snprintf(value, sizeof(value), "%d", cols);
		setenv("COLUMNS", value, 1);
		snprintf(value, sizeof(value), "%d", rows);
		setenv("LINES", value, 1);
		null_out = fopen("/dev/null", "w");
		null_in = fopen("/dev/null", "r");
		screen = newterm(term, null_out, null_in);
	} else {
		screen = newterm(NULL, stdout, stdin);
	}
	if (!screen)
		return error_set(RL_ERROR, "cannot start the terminal UI (TERM=%s)", term);
	set_term(screen);
	cbreak();
	noecho();
	nonl();
	curs_set(0);
	set_escdelay(25);
	keypad(stdscr, TRUE);
	if (!headless) {
		mousemask(BUTTON4_PRESSED | BUTTON1_CLICKED | BUTTON1_PRESSED
#ifdef BUTTON5_PRESSED
			  | BUTTON5_PRESSED
#endif
			  , NULL);
		mouseinterval(0);
		focus_codes[0] = focus_code("\033[I", KEY_MAX + 101);
		focus_codes[1] = focus_code("\033[O", KEY_MAX + 102);
		focus_reported = focus_codes[0] > 0;
		tui_focus_events(true);
	}
	return 0;
}

void screen_close(struct tui *tui)
{
	if (tui->status_win)
		delwin(tui->status_win);
	tui->status_win = NULL;
	if (screen) {
		tui_focus_events(false);
		focus_reported = false;
		endwin();
		delscreen(screen);
		screen = NULL;
	}
	if (null_out)
		fclose(null_out);
	if (null_in)
		fclose(null_in);
	null_out = null_in = NULL;
}

bool screen_read_key(struct tui *tui, int *key)
{
	wint_t wch;
	int rc = wget_wch(tui->status_win, &wch);

	if (rc == ERR)
		return false;
	*key = (int)wch;
	if (rc == KEY_CODE_YES && *key == KEY_MOUSE)
		*key = mouse_key(tui);
	else if (rc == KEY_CODE_YES && focus_codes[1] > 0 && *key == focus_codes[1])
		*key = -1;
	else if (rc == KEY_CODE_YES && focus_codes[0] > 0 && *key == focus_codes[0])
		*key = KEY_FOCUS_IN;
	return true;
}
