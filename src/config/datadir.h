#ifndef REVLINE_DATADIR_H
#define REVLINE_DATADIR_H

#include "array.h"
#include "buf.h"

#include <stdbool.h>

/*
 * revline's data files (themes, rules, prompts) are found, in order:
 *   $REVLINE_DATADIR/KIND
 *   the program's own DIR/../share/revline/KIND (an install, or the build
 *   tree, which stages the same layout)
 *   the install prefix chosen at build time
 * and the user's own in $XDG_CONFIG_HOME/revline/KIND (~/.config/...).
 */

/* The first existing revline data directory of a kind ("themes"). */
int datadir_find(struct buf *out, const char *kind);
/* The user's directory of a kind (which need not exist). */
int datadir_user(struct buf *out, const char *kind);
/*
 * What revline keeps for the user (the database, the trust records):
 * $XDG_DATA_HOME/revline/NAME, or ~/.local/share/revline/NAME when that is
 * not set or not absolute (the XDG spec ignores a relative one).
 */
int datadir_state(struct buf *out, const char *name);
/* The path of a named file of a kind: the user's first, then revline's. */
int datadir_file(struct buf *out, const char *kind, const char *name);
/* The names datadir_file finds of a kind ("default-dark", ...), sorted, each once; none is not an error. */
int datadir_names(struct strings *out, const char *kind);
/*
 * The manual, revline.1: beside the program (DIR/../share/man/man1, an
 * install or the build tree, which stages it there), else where the
 * install prefix puts it; *installed: it is the one the install put
 * (where `man revline` finds it). RL_ENOTFOUND when neither has it.
 */
int datadir_man(struct buf *out, bool *installed);

#endif
