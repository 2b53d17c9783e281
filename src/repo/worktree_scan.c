/*
 * The working tree's files against the index's stat data, as git's
 * refresh does: an lstat per entry, relative to an open descriptor of its
 * folder (a folder that is a symbolic link is not followed: what is
 * behind it is not in the working tree). Two threads take the entries
 * 64 at a time; the second first runs the caller's side job.
 */
#include "worktree_scan.h"
#include "status.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCAN_CHUNK 64
#define SCAN_DEPTH 64

struct scan_run {
	struct scan_entry *entries;
	size_t n;
	const char *workdir;
	const struct scan_options *opts;
	atomic_size_t next;
	atomic_size_t failed;   /* the first entry a stat failed on, or n */
	atomic_int failed_errno;
};

/* The open folders from the working tree's root down to one folder. */
struct dir_chain {
	int fd[SCAN_DEPTH + 1];         /* fd[0]: the root */
	size_t len[SCAN_DEPTH + 1];     /* the folder's path length (fd[k]'s) in the entry's path */
	size_t depth;
	char path[4096];        /* the deepest folder's path, relative */
	size_t broken_len;      /* a folder that could not be opened: its path's length, or 0 */
	char broken[4096];
};

static void chain_close_to(struct dir_chain *c, size_t depth)
{
	while (c->depth > depth)
		close(c->fd[c->depth--]);
}

/* Whether the folder path, len long, is dir (dir_len long) or one of its parents. */
static bool dir_within(const char *path, size_t len, const char *dir, size_t dir_len)
{
	return len <= dir_len && !memcmp(path, dir, len) && (len == dir_len || dir[len] == '/');
}

/*
 * Open the folders of dir down from what the chain already has. Returns
 * the descriptor of dir, -1 when a component is missing, not a folder or
 * a link (the entry is missing), -2 on another failure (errno set).
 */
static int chain_open(struct dir_chain *c, const char *dir, size_t dir_len)
{
	size_t k = c->depth;

	if (c->broken_len && dir_within(c->broken, c->broken_len, dir, dir_len))
		return -1;
	c->broken_len = 0;
	while (k > 0 && !dir_within(c->path, c->len[k], dir, dir_len))
		k--;
	chain_close_to(c, k);
	while (c->len[c->depth] < dir_len) {
		size_t start = c->depth ? c->len[c->depth] + 1 : 0, end = start;
		char name[256];
		int fd;

		while (end < dir_len && dir[end] != '/')
			end++;
		if (end - start >= sizeof(name) || c->depth >= SCAN_DEPTH || dir_len >= sizeof(c->path)) {
			errno = ENAMETOOLONG;
			return -2;
		}
		memcpy(name, dir + start, end - start);
		name[end - start] = '\0';
		fd = openat(c->fd[c->depth], name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno != ENOENT && errno != ENOTDIR && errno != ELOOP)
			return -2;
		if (fd < 0) {
			memcpy(c->broken, dir, end);
			c->broken_len = end;
			return -1;
		}
		c->fd[++c->depth] = fd;
		c->len[c->depth] = end;
		memcpy(c->path, dir, end);
	}
	return c->fd[c->depth];
}

static bool time_same(int32_t sec, uint32_t ns, const struct timespec *t)
{
	return sec == (int32_t)t->tv_sec && ns == (uint32_t)t->tv_nsec;
}

static bool racy(const struct stat *st, const struct scan_entry *e, const struct scan_options *o)
{
	return st->st_mtim.tv_sec > o->index_mtime ||
		(st->st_mtim.tv_sec == o->index_mtime && st->st_mtim.tv_nsec >= o->index_mtime_ns) ||
		e->mtime > o->index_mtime || (e->mtime == o->index_mtime && e->mtime_ns >= o->index_mtime_ns);
}

void scan_entry_of(struct scan_entry *out, const git_index_entry *e)
{
	*out = (struct scan_entry){
		.path = e->path, .mode = e->mode, .size = e->file_size,
		.mtime = e->mtime.seconds, .mtime_ns = e->mtime.nanoseconds,
		.ctime = e->ctime.seconds, .ctime_ns = e->ctime.nanoseconds,
		.ino = e->ino, .uid = e->uid, .gid = e->gid,
		.assume_same = (e->flags & GIT_INDEX_ENTRY_VALID) ||
			(e->flags_extended & GIT_INDEX_ENTRY_SKIP_WORKTREE),
	};
}

void scan_index_time(struct scan_options *opts, git_index *index)
{
	struct stat st;

	opts->index_mtime = opts->index_mtime_ns = 0;
	if (git_index_path(index) && stat(git_index_path(index), &st) == 0) {
		opts->index_mtime = st.st_mtim.tv_sec;
		opts->index_mtime_ns = st.st_mtim.tv_nsec;
	}
}

void scan_judge(struct scan_entry *e, const struct stat *st, const struct scan_options *o)
{
	uint32_t mode;

	if (S_ISLNK(st->st_mode))
		mode = 0120000;
	else if (S_ISREG(st->st_mode))
		mode = st->st_mode & 0100 ? 0100755 : 0100644;
	else
		mode = 0;
	if (mode && !o->filemode && S_ISREG(st->st_mode) && (e->mode & 0170000) == 0100000)
		mode = e->mode;
	e->wt_mode = mode;
	if (!mode)
		e->state = SCAN_MISSING;
	else if (mode != e->mode || e->size != (uint32_t)st->st_size)
		e->state = !e->size && st->st_size > 0 && mode == e->mode ? SCAN_UNSURE : SCAN_CHANGED;
	else if (!time_same(e->mtime, e->mtime_ns, &st->st_mtim) || !time_same(e->ctime, e->ctime_ns, &st->st_ctim) ||
		 e->ino != (uint32_t)st->st_ino || e->uid != (uint32_t)st->st_uid ||
		 e->gid != (uint32_t)st->st_gid || racy(st, e, o))
		e->state = SCAN_UNSURE;
	else
		e->state = SCAN_CLEAN;
}

/* One entry; false (errno set) when its stat failed for another reason than its absence. */
static bool entry_scan(struct dir_chain *c, struct scan_entry *e, const struct scan_options *o)
{
	const char *slash = strrchr(e->path, '/');
	size_t dir_len = slash ? (size_t)(slash - e->path) : 0;
	struct stat st;
	int fd;

	e->state = SCAN_MISSING;
	e->wt_mode = 0;
	if (e->assume_same) {
		e->state = SCAN_CLEAN;
		e->wt_mode = e->mode;
		return true;
	}
	if ((fd = chain_open(c, e->path, dir_len)) == -2)
		return false;
	if (fd == -1)
		return true;
	if (fstatat(fd, slash ? slash + 1 : e->path, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT || errno == ENOTDIR;
	scan_judge(e, &st, o);
	return true;
}

static void fail(struct scan_run *run, size_t at, int err)
{
	size_t was = atomic_load(&run->failed);

	while (at < was && !atomic_compare_exchange_weak(&run->failed, &was, at))
		;
	if (atomic_load(&run->failed) == at)
		atomic_store(&run->failed_errno, err);
}

static void scan_chunks(struct scan_run *run)
{
	struct dir_chain chain = { .depth = 0 };
	size_t start, i;

	chain.fd[0] = open(run->workdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (chain.fd[0] < 0) {
		fail(run, run->n, errno);
		return;
	}
	while ((start = atomic_fetch_add(&run->next, SCAN_CHUNK)) < run->n) {
		size_t end = start + SCAN_CHUNK < run->n ? start + SCAN_CHUNK : run->n;

		for (i = start; i < end; i++)
			if (!entry_scan(&chain, &run->entries[i], run->opts))
				fail(run, i, errno);
	}
	chain_close_to(&chain, 0);
	close(chain.fd[0]);
}

static void *scan_thread(void *ctx)
{
	struct scan_run *run = ctx;

	if (run->opts->side)
		run->opts->side(run->opts->side_ctx);
	scan_chunks(run);
	return NULL;
}

int worktree_scan(struct scan_entry *entries, size_t n, const char *workdir, const struct scan_options *opts)
{
	struct scan_run run = { entries, n, workdir, opts, 0, n, 0 };
	pthread_t thread;
	bool threaded = n > SCAN_CHUNK || opts->side;

	if (threaded && pthread_create(&thread, NULL, scan_thread, &run) != 0)
		threaded = false;
	if (!threaded && opts->side)
		opts->side(opts->side_ctx);
	scan_chunks(&run);
	if (threaded)
		pthread_join(thread, NULL);
	if (run.failed < n || (run.failed == n && run.failed_errno))
		return error_set(RL_EIO, "%s: cannot read its status: %s",
				 run.failed < n ? entries[run.failed].path : workdir, strerror(run.failed_errno));
	return 0;
}
