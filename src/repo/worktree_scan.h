#ifndef REVLINE_WORKTREE_SCAN_H
#define REVLINE_WORKTREE_SCAN_H

/*
 * Inside the engine: which index entries' working-tree files may differ
 * from them, found as git finds them, by one lstat per entry (relative to
 * its folder, no folder read) and a comparison with the stat data the
 * index recorded. Nothing is hashed here.
 */

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

enum scan_state {
	SCAN_CLEAN,     /* the stat data the index has: the file is the index's */
	SCAN_CHANGED,   /* another kind, mode or size: it differs */
	SCAN_UNSURE,    /* same kind, mode and size, other times: only its content can tell */
	SCAN_MISSING,   /* no file there (gone, a folder, or behind a link) */
};

struct scan_entry {
	/* In, from the index entry. */
	const char *path;
	uint32_t mode;
	uint32_t size;
	int32_t mtime, ctime;
	uint32_t mtime_ns, ctime_ns;
	uint32_t ino, uid, gid;
	bool assume_same;       /* assume-unchanged or skip-worktree: not looked at, as libgit2 does */
	/* Out. */
	enum scan_state state;
	uint32_t wt_mode;       /* the file's mode as git writes it (0 when missing) */
};

struct scan_options {
	bool filemode;          /* core.fileMode: the executable bit counts */
	int64_t index_mtime, index_mtime_ns;    /* the index file's: an entry as new is racy */
	/* Run on a second thread before it joins the scan (NULL: one thread). */
	void (*side)(void *ctx);
	void *side_ctx;
};

/* An index entry's stat data, to scan or judge. */
void scan_entry_of(struct scan_entry *out, const git_index_entry *e);
/* The index file's time (opts' index_mtime), the instant after which an entry is racy. */
void scan_index_time(struct scan_options *opts, git_index *index);
/*
 * A file's lstat against its entry, as libgit2 judges it (its diff's
 * maybe_modified; git's ie_match_stat): e->state and e->wt_mode.
 */
void scan_judge(struct scan_entry *e, const struct stat *st, const struct scan_options *opts);

/*
 * Scan entries (in index order) under workdir (absolute, ending in '/').
 * RL_EIO, naming the file, when a stat fails for another reason than the
 * file not being there: the caller then leaves the listing to libgit2.
 */
int worktree_scan(struct scan_entry *entries, size_t n, const char *workdir, const struct scan_options *opts);

#endif
