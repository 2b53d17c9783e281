#ifndef REVLINE_SCRIPT_H
#define REVLINE_SCRIPT_H

#include <stdbool.h>

#include "buf.h"

struct tui;
struct script;

/*
 * Headless runs for screen-dump tests, as tig does them. A script is a
 * text file; each line is either keys or a command:
 *
 *   jjk<Down><Enter>        keys: characters, and <Name> for special keys
 *                           (<Up> <PgDn> <Tab> <Esc> <Enter> <Space> <C-l>
 *                           <WheelDown> <LT> ...)
 *   :save-display FILE      write the screen's text to FILE
 *   :save-attrs FILE        write a style letter per cell to FILE (the
 *                           letters of STYLE_LIST; without colour, the
 *                           attributes: R r b u d i .)
 *   :resize COLS ROWS       resize the screen as a terminal would
 *   :wait-rule ID           run until the check's rule ID has settled
 *   :wait-check             run until the check is done (report included)
 *   :wait-fixes             run until fix detection after the check is done
 *   :wait-fix               run until no fix is being asked for or rechecked
 *   :wait-lint              run until the linters (L) are done
 *   :sleep MS               run the loop for MS milliseconds
 *   :append PATH TEXT       a line added to a file of the working tree
 *   :rewrite PATH N TEXT    line N of a file of the working tree made TEXT
 *   :wait-reload            run until the diff was read again after the
 *                           last append or rewrite
 *   :settle MS              how long the watcher lets a burst of events
 *                           settle before it reads the diff again (150)
 *   :sample FILE            append "RSS_KIB ANON_KIB HEAP_BYTES SQLITE_BYTES
 *                           FDS CLOCK_US" to FILE (the soak test's figures)
 *   # comment
 *
 * The screen size starts at REVLINE_SCREEN_SIZE (COLSxROWS, default 80x24).
 */
int script_load(struct script **out, const char *path);
/* Run the next line; false when the script is done. */
bool script_step(struct script *script, struct tui *tui);
void script_free(struct script *script);

/* Write the screen as text (or style letters) to a file. */
int screen_dump(const char *path, bool attrs);

#endif
