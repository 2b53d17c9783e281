/*
 * The working tree is watched: when a file of the diff changes in another
 * program (an editor), the diff is made again and the diff pane keeps its
 * place. inotify on Linux, on the directories of the diff's files, the top
 * of the working tree, the git directory (the index, HEAD) and the other
 * tracked files' directories (at most WATCH_MAX_DIRS in all); elsewhere,
 * or when inotify cannot be had, a stat of the diff's files on a timer;
 * and, either way, a look when the terminal gets the focus back.
 *
 * Nothing of it holds up the first screen: the stat of every file of the
 * diff and the watches start in the loop's first idle slice, after the
 * first paint (or when something asks whether the tree changed before).
 */
#include "watch.h"
#include "array.h"
#include "clock.h"
#include "repo_files.h"
#include "status.h"
#include "tui.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/inotify.h>
#define HAVE_INOTIFY 1
#endif

#define WATCH_SETTLE_MS 150     /* events come in bursts: an editor's save */
#define WATCH_POLL_MS 2000      /* the stat check without inotify */
#define WATCH_MAX_DIRS 512

struct watch {
	struct tui *tui;
	int fd;                 /* inotify, or -1 */
	int *wds;
	size_t nwds, wds_alloc;
	int git_wd;             /* the git directory's: only its index and HEAD matter */
	bool started;           /* the stamp taken and the directories watched (watch_reset) */
	uint64_t stamp;         /* of the diff's files when the diff was made */
	int64_t due_us;         /* when to look again after events, or 0 */
	int64_t poll_us;        /* the next stat check without inotify */
	int settle_ms;          /* how long a burst of events is let settle */
};

static uint64_t hash_add(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n--)
		h = (h ^ *s++) * 1099511628211ULL;
	return h;
}

static uint64_t hash_stat(uint64_t h, const char *path)
{
	struct stat st;
	int64_t v[4] = { 0, 0, 0, 0 };

	if (stat(path, &st) == 0) {
		v[0] = (int64_t)st.st_mtim.tv_sec;
		v[1] = (int64_t)st.st_mtim.tv_nsec;
		v[2] = (int64_t)st.st_size;
		v[3] = (int64_t)st.st_ino;
	}
	return hash_add(h, v, sizeof(v));
}

/* The size and times of the diff's files (and the index): what a change of them changes. */
static uint64_t stamp_of(const struct tui *tui)
{
	const struct repo *repo = tui->repo;
	uint64_t h = 14695981039346656037ULL;
	struct buf path = BUF_INIT;
	size_t i;

	if (repo->gitdir) {
		buf_printf(&path, "%s/index", repo->gitdir);
		h = hash_stat(h, path.ptr ? path.ptr : "");
	}
	for (i = 0; repo->workdir && tui->target->side == SIDE_WORKDIR && i < tui->diff->nfiles; i++) {
		buf_clear(&path);
		buf_printf(&path, "%s%s", repo->workdir, tui->diff->files[i].path);
		h = hash_stat(h, path.ptr ? path.ptr : "");
	}
	buf_release(&path);
	return h;
}

static bool watched(const struct tui *tui)
{
	return tui->target->side != SIDE_TREE && tui->repo->workdir;
}

#ifdef HAVE_INOTIFY
/* Whether the directory of this watch descriptor is watched already. */
static bool wd_known(const struct watch *w, int wd)
{
	size_t i;

	for (i = 0; i < w->nwds; i++)
		if (w->wds[i] == wd)
			return true;
	return false;
}

static int watch_dir(struct watch *w, const char *dir)
{
	int wd;

	if (w->nwds == WATCH_MAX_DIRS)
		return -1;
	wd = inotify_add_watch(w->fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE |
			       IN_DELETE | IN_ONLYDIR);
	if (wd < 0 || wd_known(w, wd))
		return wd;
	if (ARRAY_GROW(w->wds, w->wds_alloc, w->nwds + 1) < 0)
		return -1;
	w->wds[w->nwds++] = wd;
	return wd;
}

/* A folder of tracked files; the walk stops when the watches are all taken. */
static int tracked_dir(void *ctx, const char *path, size_t len)
{
	struct watch *w = ctx;
	struct buf dir = BUF_INIT;

	if (w->nwds == WATCH_MAX_DIRS)
		return 1;
	buf_printf(&dir, "%s%.*s", w->tui->repo->workdir, (int)len, path);
	watch_dir(w, dir.ptr ? dir.ptr : "");
	buf_release(&dir);
	return 0;
}

/*
 * The directories of the diff's files, the top of the tree and the git
 * directory, each once: inotify gives the same descriptor for a directory
 * watched twice, and the files of one directory mostly come one after the
 * other in the diff's order. Then, while watches are left, the folders of
 * the other tracked files: a save to a file the diff does not hold yet (a
 * clean tree, another folder) makes a new diff too.
 */
static void watch_dirs(struct watch *w)
{
	const struct tui *tui = w->tui;
	struct buf dir = BUF_INIT;
	const char *prev = NULL;
	size_t prev_len = 0, i;

	for (i = 0; i < w->nwds; i++)
		inotify_rm_watch(w->fd, w->wds[i]);
	w->nwds = 0;
	watch_dir(w, tui->repo->workdir);
	w->git_wd = tui->repo->gitdir ? watch_dir(w, tui->repo->gitdir) : -1;
	for (i = 0; i < tui->diff->nfiles; i++) {
		const char *path = tui->diff->files[i].path, *slash = strrchr(path, '/');

		if (!slash || (prev && prev_len == (size_t)(slash - path) && !memcmp(prev, path, prev_len)))
			continue;
		prev = path;
		prev_len = (size_t)(slash - path);
		buf_clear(&dir);
		buf_printf(&dir, "%s%.*s", tui->repo->workdir, (int)prev_len, path);
		watch_dir(w, dir.ptr ? dir.ptr : "");
	}
	buf_release(&dir);
	if (repo_tracked_dirs(tui->repo, tracked_dir, w) < 0)
		error_clear();          /* an unreadable index: the diff's folders are watched */
}

/* Whether an event's name may change the diff: not an editor's swap or backup file. */
static bool name_matters(const struct watch *w, const struct inotify_event *ev)
{
	const char *name = ev->len ? ev->name : "";
	size_t len = strlen(name);

	if (ev->wd == w->git_wd)
		return !strcmp(name, "index") || !strcmp(name, "HEAD");
	if (!len || name[len - 1] == '~' || !strncmp(name, ".#", 2) || !strcmp(name, "4913"))
		return false;
	return !(len > 4 && name[0] == '.' && (!strcmp(name + len - 4, ".swp") ||
					       !strcmp(name + len - 4, ".swx")));
}

static void events_read(struct watch *w)
{
	char events[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(w->fd, events, sizeof(events))) > 0) {
		char *p = events;

		while (p < events + n) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			if (name_matters(w, ev) && !w->due_us)
				w->due_us = clock_us() + (int64_t)w->settle_ms * 1000;
			p += sizeof(*ev) + ev->len;
		}
	}
}
#endif

static int watch_fds(void *ctx, struct pollfd *out, int max)
{
	struct watch *w = ctx;

	if (w->fd < 0 || max < 1)
		return 0;
	out->fd = w->fd;
	out->events = POLLIN;
	return 1;
}

static int watch_timeout(void *ctx)
{
	struct watch *w = ctx;
	int64_t at = w->due_us ? w->due_us : w->fd < 0 && watched(w->tui) ? w->poll_us : 0;
	int64_t left;

	if (!at)
		return -1;
	left = (at - clock_us() + 999) / 1000;
	return left < 0 ? 0 : (int)left;
}

/* The same files with the same status: nothing to show again. */
static bool same_files(const struct diff *a, const struct diff *b)
{
	size_t i;

	if (a->nfiles != b->nfiles)
		return false;
	for (i = 0; i < a->nfiles; i++)
		if (strcmp(a->files[i].path, b->files[i].path) || a->files[i].status != b->files[i].status)
			return false;
	return true;
}

static void changed(struct tui *tui, struct diff *diff)
{
	if (tui_diff_refresh(tui, diff) == 0)
		tui_message(tui, false, "The working tree changed: the diff is read again%s",
			    tui_review_shown(tui) ? " (c checks it)" : "");
}

/* Events came: the diff is made again when its files or their content changed. */
static void events_settled(struct watch *w)
{
	struct tui *tui = w->tui;
	struct diff *diff = NULL;

	w->due_us = 0;
	if (w->stamp != stamp_of(tui)) {
		changed(tui, NULL);
		return;
	}
	/* A file outside the diff changed: only a new list of files shows it. */
	if (repo_diff(&diff, tui->repo, tui->target) < 0) {
		error_clear();
		return;
	}
	if (same_files(diff, tui->diff)) {
		diff_free(diff);
		/* Nothing to review still; the untracked files the screen counts may have come or gone. */
		tui_untracked_count(tui);
	} else {
		changed(tui, diff);
	}
}

static void watch_dispatch(void *ctx, const struct pollfd *fds, int n)
{
	struct watch *w = ctx;
	int64_t now = clock_us();

#ifdef HAVE_INOTIFY
	if (n > 0 && (fds[0].revents & POLLIN))
		events_read(w);
#else
	(void)fds;
	(void)n;
#endif
	if (!watched(w->tui))
		return;
	if (w->due_us && now >= w->due_us) {
		events_settled(w);
	} else if (w->fd < 0 && now >= w->poll_us) {
		w->poll_us = now + WATCH_POLL_MS * 1000;
		if (watch_stale(w))
			changed(w->tui, NULL);
	}
}

int watch_new(struct watch **out, struct tui *tui)
{
	struct watch *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (!w)
		return -1;
	w->tui = tui;
	w->fd = -1;
	w->settle_ms = WATCH_SETTLE_MS;
#ifdef HAVE_INOTIFY
	if (watched(tui) && !getenv("REVLINE_NO_INOTIFY"))
		w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
#endif
	*out = w;
	return 0;
}

/* The first idle slice: the stamp and the watches, after the first paint. */
static bool watch_start(void *ctx)
{
	struct watch *w = ctx;

	if (!w->started)
		watch_reset(w);
	return false;
}

struct loop_source watch_source(struct watch *w)
{
	struct loop_source source = { watch_fds, watch_timeout, watch_dispatch, watch_start, w, true };

	return source;
}

void watch_reset(struct watch *w)
{
	if (!w)
		return;
	w->started = true;
	w->stamp = stamp_of(w->tui);
	w->poll_us = clock_us() + WATCH_POLL_MS * 1000;
#ifdef HAVE_INOTIFY
	if (w->fd >= 0)
		watch_dirs(w);
#endif
}

void watch_settle(struct watch *w, int ms)
{
	if (w)
		w->settle_ms = ms;
}

void watch_look(struct watch *w)
{
	/* inotify has seen it all already. */
	if (w && !w->started)
		watch_reset(w);
	else if (w && w->fd < 0 && watched(w->tui))
		events_settled(w);
}

bool watch_stale(struct watch *w)
{
	/* Asked before the first idle slice: the diff was just made. */
	if (w && !w->started) {
		watch_reset(w);
		return false;
	}
	return w && watched(w->tui) && w->stamp != stamp_of(w->tui);
}

void watch_free(struct watch *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	free(w->wds);
	free(w);
}
