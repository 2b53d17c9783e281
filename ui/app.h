#ifndef REVLINE_APP_H
#define REVLINE_APP_H

struct tui;

/* Handle one key: the focused view's request, else the whole UI's. */
void tui_key(struct tui *tui, int key);
/* Redraw what is dirty and update the terminal. */
void tui_draw(struct tui *tui);

#endif
