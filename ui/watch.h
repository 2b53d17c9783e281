#ifndef REVLINE_WATCH_H
#define REVLINE_WATCH_H

#include <stdbool.h>

#include "loop.h"

struct tui;
struct watch;

/* Watch the working tree of the UI's target (nothing for a range of commits). */
int watch_new(struct watch **out, struct tui *tui);
/* The loop source that reloads the diff when the tree changed. */
struct loop_source watch_source(struct watch *watch);
/* The diff was made again: watch its files from now on. */
void watch_reset(struct watch *watch);
/* Whether the diff's files changed since the diff was made (a stat of each). */
bool watch_stale(struct watch *watch);
/* Look now (the terminal got the focus back): reload when the tree changed. */
void watch_look(struct watch *watch);
/* How long a burst of events is let settle before the diff is read (150 ms; the script's :settle). */
void watch_settle(struct watch *watch, int ms);
void watch_free(struct watch *watch);

#endif
