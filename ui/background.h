#ifndef REVLINE_BACKGROUND_H
#define REVLINE_BACKGROUND_H

#include <stdbool.h>

struct tui;

/*
 * Work on the diff shown that runs in the loop's idle slices, a few
 * milliseconds at a time: counting the +/- lines of its files, and
 * pairing its renames. ctx is the struct tui.
 */
bool background_count(void *ctx);
bool background_renames(void *ctx);

/*
 * Pair the renames the diff shown still waits for (see repo_diff_start), and
 * show them: what a check reads must be the diff git shows.
 */
void tui_renames_finish(struct tui *tui);

#endif
