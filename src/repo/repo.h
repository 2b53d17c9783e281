#ifndef REVLINE_REPO_H
#define REVLINE_REPO_H

#include <stdbool.h>

#include "diff.h"

/*
 * The repository: open it from anywhere inside (linked worktrees too),
 * resolve what to review, and build the diff model with libgit2. This is
 * the one module that walks the repository.
 */

struct git_repository;

struct repo {
	struct git_repository *git;
	char *workdir;          /* absolute, with a trailing '/'; NULL when bare */
	char *gitdir;
	char *name;             /* base name of the working tree */
	char *branch;           /* "main", "detached at 1a2b3c4", "main (no commits yet)" */
	char *remote;           /* the remote's identity (remote_url.h), NULL when none */
	struct git_repository *objects; /* without the work tree, opened on first use (repo_objects) */
	unsigned blob_cache_holds;      /* repo_blob_cache_hold's not released */
};

/* Open the repository that contains path (the current directory when NULL). */
int repo_open(struct repo **out, const char *path);
void repo_free(struct repo *repo);

/*
 * The handle trees are diffed on: the repository without its work tree
 * (libgit2 then looks up no file's attributes on disk), opened once; the
 * work tree's handle when it cannot be opened.
 */
struct git_repository *repo_objects(struct repo *repo);

/*
 * While held (as many releases as holds), libgit2 keeps the blobs it reads,
 * up to 1 MiB each and 64 MiB in all: a check reads each changed file for
 * its diff and again for its context pack (repo_file_read reads through
 * the handle the diffs were made on). Else a blob is not kept: a diff
 * reads each once.
 */
void repo_blob_cache_hold(struct repo *repo);
void repo_blob_cache_release(struct repo *repo);

/* What the user asked to compare. */
struct target_spec {
	const char *base;       /* --base REF */
	const char *range;      /* "A..B" or "A...B" */
	bool staged;            /* --staged: against the index */
	bool untracked;         /* --untracked: untracked files as additions */
};

enum target_side {
	SIDE_TREE,              /* a commit's tree */
	SIDE_INDEX,             /* the index */
	SIDE_WORKDIR,           /* the working tree, index included */
};

/* What is compared, resolved. */
struct target {
	char base_oid[41];      /* empty when the base is the empty tree */
	char head_oid[41];      /* set when the new side is a tree */
	enum target_side side;
	bool untracked;
	char *base_label;       /* "HEAD", "merge base with origin/main", "v1.0" */
	char *head_label;       /* "working tree", "index", "feature" */
	char *description;      /* "merge base with origin/main (1a2b3c4)..working tree" */
};

int repo_resolve(struct target *out, struct repo *repo, const struct target_spec *spec);

/*
 * What git has in progress: "merge", "rebase", "cherry-pick", "revert",
 * "am" (a mailbox being applied) or "bisect"; NULL when nothing.
 */
const char *repo_in_progress(struct repo *repo);
void target_release(struct target *target);

/*
 * The diff of a target, renames detected. The file list is ready at once;
 * hunks and counts are computed per file when first asked for. The diff
 * must be freed before the repository.
 */
int repo_diff(struct diff **out, struct repo *repo, const struct target *target);

/*
 * The same diff without waiting for rename detection (for a screen that
 * shows the files at once): its renames are not paired yet (a deletion and
 * an addition). repo_diff_renames_step does a slice of the pairing (see
 * rename.h; 1 when done, 0 when work remains, < 0 on error); after the
 * first slice the identical-content renames are known. repo_diff_renamed
 * makes a new model of the same diff with the pairs known so far; the
 * models share the pairing and can be freed in any order; what the older
 * one counted is kept.
 */
int repo_diff_start(struct diff **out, struct repo *repo, const struct target *target);
/*
 * The working tree's diff (no untracked files) is listed by repo_diff_start
 * as git lists it, from the index and one lstat per entry (repo_quick.c),
 * when nothing in the repository asks for libgit2's listing (a conflict, a
 * submodule, core.ignoreCase, core.symlinks=false). The first rename step
 * then makes libgit2's listing, and repo_diff_renamed's model is made from
 * it. Whether diff is such a listing, not yet replaced:
 */
bool repo_diff_quick(const struct diff *diff);
int repo_diff_renames_step(struct diff *diff, int64_t budget_us);
bool repo_diff_renames_done(const struct diff *diff);
/*
 * Whether the pairing may still find a rename: it is not done, and the
 * diff has a deletion and an addition to pair. (A quick listing is not
 * done before libgit2's listing replaces it, pairs or not.)
 */
bool repo_diff_renames_pending(const struct diff *diff);
bool repo_diff_renames_exact(struct diff *diff);
int repo_diff_renamed(struct diff **out, struct diff *diff);

/*
 * How many untracked files (not ignored) the working tree holds that the
 * target leaves out: 0 unless the new side is the working tree without
 * --untracked.
 */
int repo_untracked_count(size_t *out, struct repo *repo, const struct target *target);

/*
 * A file as it is on one side of the target: the old side is the base
 * tree; the new side is the head tree, the index, or the working tree.
 * RL_ENOTFOUND when the file does not exist on that side.
 */
int repo_read(struct buf *out, struct repo *repo, const struct target *target,
	      const char *path, bool old_side);

/*
 * A file of the working tree by repository path, refusing absolute paths,
 * ".." and anything (a symlink, say) that resolves outside the tree;
 * RL_EPARSE when it is larger than max bytes (0: any size).
 */
int repo_read_workdir(struct buf *out, struct repo *repo, const char *path, size_t max);

/* Whether a path relative to the working tree goes through a ".git", in any case (the repository's own files). */
bool repo_path_in_git(const char *rel);

/*
 * What the author says about the change: the branch, and the subjects and
 * bodies of the commits between the base and the head (at most max).
 */
int repo_intent(struct buf *out, struct repo *repo, const struct target *target, int max);

/* The same commits (at most max, newest first), each with its abbreviated id and whole message. */
struct repo_commit {
	char id[8];             /* the first 7 hex digits */
	char *message;
};

struct repo_commits {
	struct repo_commit *items;
	size_t count, alloc;
};

int repo_commits(struct repo_commits *out, struct repo *repo, const struct target *target, int max);
void repo_commits_release(struct repo_commits *list);

/*
 * Object ids as git abbreviates them on a diff's "index" line: the length
 * is core.abbrev, or grows with the number of packed objects when that is
 * auto (40 for "no"); an id is then made longer until no other object
 * shares its prefix. repo_abbrev writes the abbreviation of a 40-digit hex
 * id into out (41 bytes) and returns its length, -1 for a malformed id.
 */
int repo_abbrev_len(struct git_repository *git);
int repo_abbrev(char *out, struct git_repository *git, const char *hex, int min_len);

#endif
