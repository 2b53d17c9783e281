#ifndef REVLINE_CONFIG_TEXT_H
#define REVLINE_CONFIG_TEXT_H

#include <stddef.h>

/*
 * Git config text read for what libgit2 does not say: the line a key is
 * set on, and the name git refuses that a subsection would make right.
 * Headers ([section], [section "sub"], the old [section.sub]), comments,
 * quoted values, values continued with a backslash and a variable after
 * its header on the same line are read as git reads them. Bounded: one
 * pass, no allocation; text need not end in a NUL.
 */

/*
 * The line (from 1) of the last definition of key (the one git takes),
 * named as libgit2 names it (section and name in lower case, a quoted
 * subsection as written, "revline.lint.ruff"); 0 when it is not there.
 */
size_t config_text_line(const char *text, size_t len, const char *key);

/*
 * The first variable whose name has a dot ("lint.flake8" under
 * [revline]), which git refuses: its line, its section ("revline", or
 * "revline.sub") and its name as typed, each cut to its size; 0 when
 * there is none.
 */
size_t config_text_dotted(char *section, size_t ssize, char *name, size_t nsize, const char *text, size_t len);

#endif
