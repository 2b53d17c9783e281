#ifndef REVLINE_REPO_LOG_H
#define REVLINE_REPO_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "repo.h"

/*
 * The history, read: the commits reachable from HEAD, newest first, and
 * what one commit changed against its first parent, line ranges and all.
 * Read from the object database only: the working tree, the index and the
 * branches are never touched.
 */
struct repo_log;

struct repo_log_commit {
	char oid[41];
	char parent[41];        /* the first parent's; empty for a root commit */
	unsigned nparents;
	int64_t time;           /* the committer's, seconds since the epoch */
	const char *author_name;        /* borrowed until the next commit */
	const char *author_email;
	const char *message;
};

/* Commits from HEAD, committed at or after since (0: all). RL_ENOTFOUND when HEAD has no commit. */
int repo_log_open(struct repo_log **out, struct repo *repo, int64_t since);
/* The next commit: 1, 0 at the end, or an error status. */
int repo_log_next(struct repo_log_commit *out, struct repo_log *log);
void repo_log_free(struct repo_log *log);

/*
 * A commit's change against its first parent, without context lines and
 * without renames: each file with the ranges it changed on the parent's
 * side (old) and the commit's (new). A hunk that only adds on one side has
 * count 0 there and start the line it follows (0: the top).
 */
struct repo_change_hunk {
	int old_start, old_count;
	int new_start, new_count;
};

struct repo_change_file {
	char *path;             /* the parent's path, or the commit's when the file is new */
	bool added, deleted, binary;
	int additions, deletions;
	struct repo_change_hunk *hunks;
	size_t nhunks, hunks_alloc;
};

struct repo_change {
	struct repo_change_file *files;
	size_t nfiles, files_alloc;
};

/*
 * What commit oid changed; files past max_files stop the reading with
 * *over set (the change is too large to be wanted), the files read kept.
 */
int repo_change_read(struct repo_change *out, bool *over, struct repo *repo, const char *oid, size_t max_files);
void repo_change_release(struct repo_change *change);

#endif
