#ifndef REVLINE_SCOPE_H
#define REVLINE_SCOPE_H

#include <stdbool.h>
#include <stddef.h>

#include "diff.h"
#include "glob.h"

/*
 * What of a change is reviewed. Generated and vendored files are left out
 * of every rule by default (the check says so); revline.ignore names a
 * file of gitignore patterns that keeps paths out of every review.
 */

/* A line longer than this marks a minified bundle. */
#define SCOPE_MINIFIED_LINE 5000
/* How many first lines of a file are searched for a generated marker. */
#define SCOPE_MARKER_LINES 5

/*
 * The patterns of an ignore file's text, in gitignore syntax: one a line,
 * blank lines and '#' comments skipped, "\#" and "\!" for a literal first
 * character, trailing unescaped spaces dropped. A bad pattern is
 * RL_EPARSE naming its line. *out holds count strings; scope_patterns_free.
 */
int scope_patterns_parse(char ***out, size_t *count, const char *text, size_t len);
void scope_patterns_free(char **patterns, size_t count);

/*
 * The same patterns compiled, to be matched against every file
 * (glob_list_matches): what revline.ignore's file leaves out.
 */
int scope_ignore_parse(struct glob_list **out, const char *text, size_t len);

/*
 * Why a loaded file is generated or minified from its name and its lines
 * ("minified (a line of 12,000 characters)", "generated (\"@generated\" in
 * its first lines)"), or NULL. The text is static or in out (size n).
 */
const char *scope_generated(char *out, size_t n, const struct diff_file *file);

/* The same of a path alone ("minified (by its name)"), or NULL. */
const char *scope_minified_name(const char *path);

/*
 * The same of a whole file's content, its name aside (the repository
 * index's files: a blob is the same whatever its name), or NULL.
 */
const char *scope_generated_text(char *out, size_t n, const char *text, size_t len);

#endif
