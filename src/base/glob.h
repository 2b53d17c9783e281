#ifndef REVLINE_GLOB_H
#define REVLINE_GLOB_H

#include <stdbool.h>
#include <stddef.h>

/*
 * gitignore-style matching of repository-relative paths ("src/a/b.c", no
 * leading slash, '/' separated):
 *
 *   *        any run of characters except '/'
 *   ?        one character except '/'
 *   [...]    a class: ranges, '!' or '^' to negate, [:alpha:] and friends
 *   {a,b}    alternatives, nested, each may hold wildcards and slashes
 *   **       as a whole segment ("**" + "/", "/" + "**" + "/", "/" + "**"):
 *            zero or more directories; elsewhere any run of characters
 *            including '/'
 *   \x       a literal x
 *   /x       a leading slash anchors the pattern at the repository root
 *   x/       a trailing slash matches a directory: every path below it
 *
 * A pattern with no slash but a trailing one matches the base name at any
 * depth ("*.ts" matches "src/a.ts"); one with a slash is anchored at the
 * root. As in gitignore, a pattern that matches a directory matches every
 * path below it ("docs" matches "docs/a.md"). A malformed pattern (a
 * trailing backslash, a '[' never closed, an unknown "[:name:]") matches
 * nothing, as in git's wildmatch; glob_check says what is wrong with it.
 */
bool glob_match(const char *pattern, const char *path);

/*
 * Whether a path is selected by a list of patterns. A pattern starting
 * with '!' excludes what it matches; the last pattern that matches wins,
 * so ["**" "/" "*.ts", "!**" "/" "*.test.ts"] selects TypeScript files but
 * tests. An empty list selects nothing; NULL entries are skipped.
 */
bool glob_match_list(const char *const *patterns, size_t count, const char *path);

/*
 * glob_match and glob_match_list compile their patterns at each call: use
 * them for a pattern used once. A pattern matched against many paths is
 * compiled once (its braces expanded, its syntax checked, its tokens made)
 * and then matched, with the same answers; a list is matched in one pass
 * over the path. A malformed pattern compiles to one that matches nothing.
 * Only RL_ENOMEM fails.
 */
struct glob;
struct glob_list;

int glob_new(struct glob **out, const char *pattern);
bool glob_matches(const struct glob *glob, const char *path);
void glob_free(struct glob *glob);

int glob_list_new(struct glob_list **out, const char *const *patterns, size_t count);
/* NULL (no list) selects nothing. */
bool glob_list_matches(const struct glob_list *list, const char *path);
void glob_list_free(struct glob_list *list);

/*
 * 0 when the pattern is well formed; otherwise RL_EPARSE with a message
 * that says what is wrong and at which column ("unclosed '[' at column 4").
 */
int glob_check(const char *pattern);

#endif
