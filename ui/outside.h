#ifndef REVLINE_OUTSIDE_H
#define REVLINE_OUTSIDE_H

struct tui;

/* e: the file at the line of the focused pane in $VISUAL or $EDITOR; the diff is read again after. */
void outside_edit(struct tui *tui);
/* y: the selected finding as Markdown to the clipboard, through the terminal (OSC 52). */
void outside_copy(struct tui *tui);

#endif
