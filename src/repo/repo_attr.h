#ifndef REVLINE_REPO_ATTR_H
#define REVLINE_REPO_ATTR_H

#include "array.h"

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>

/* An attributes file larger than this is not read: it may say anything. */
#define REPO_ATTR_MAX (1u << 20)

struct repo;

/*
 * The repository-wide files of attributes, as libgit2 reads them:
 * $GIT_DIR/info/attributes, core.attributesFile (or its XDG default), the
 * system's. Appended to out.
 */
int repo_attr_global(struct strings *out, git_repository *git);

/*
 * Whether no file of attributes that libgit2 reads for the paths (the
 * repository-wide ones, and each of their folders' .gitattributes in the
 * work tree and in the index) holds any of the words (NULL-terminated):
 * then no attribute a word names, nor a macro that sets one (its
 * definition holds the word), applies to any of the paths. *out is false
 * whenever a file cannot be read. NULL paths are skipped.
 */
int repo_attr_silent(bool *out, git_repository *git, const char *const *paths, size_t n,
		     const char *const *words);

/* Whether attributes text holds none of the words (NULL-terminated); NULL text is silent. */
bool repo_attr_text_silent(const char *text, size_t len, const char *const *words);

/*
 * Whether .gitattributes marks a path linguist-generated or
 * linguist-vendored (as GitHub reads them): *out is "linguist-generated",
 * "linguist-vendored" or NULL.
 */
int repo_linguist(const char **out, struct repo *repo, const char *path);

#endif
