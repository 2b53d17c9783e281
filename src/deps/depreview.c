/* A check's dependency phase: manifests and lock files read and analysed, advisories looked up, the result kept. */
#include "depreview.h"
#include "diff.h"
#include "lock.h"
#include "repo.h"
#include "status.h"
#include "store_deps.h"

#include <stdlib.h>
#include <string.h>

struct depreview {
	struct repo *repo;
	const struct target *target;
	struct diff *diff;
	struct depreview_options opts;
	struct deps_analysis analysis;
	struct advisory *advisory;
	struct poll_member member;      /* finishes when the lookup is done */
	char *section;
	char *error;
	size_t checked;
	bool started, done;
};

int depreview_new(struct depreview **out, struct repo *repo, const struct target *target,
		  struct diff *diff, const struct depreview_options *options)
{
	struct depreview *dr = calloc(1, sizeof(*dr));

	*out = NULL;
	if (!dr)
		return error_nomem();
	dr->repo = repo;
	dr->target = target;
	dr->diff = diff_dup(diff);
	dr->opts = *options;
	*out = dr;
	return 0;
}

void depreview_free(struct depreview *dr)
{
	if (!dr)
		return;
	poll_group_leave(&dr->member);
	advisory_free(dr->advisory);
	deps_analysis_release(&dr->analysis);
	free(dr->section);
	free(dr->error);
	diff_free(dr->diff);
	free(dr);
}

/* --- reading the manifests ------------------------------------------------- */

struct texts {
	struct deps_file *files;
	struct buf *bufs;               /* four per file: old, new, and a lock file's manifest's old and new */
	char **whys;                    /* two per file: why that side could not be read */
	size_t n;
};

static void texts_release(struct texts *t)
{
	size_t i;

	for (i = 0; i < 4 * t->n; i++)
		buf_release(&t->bufs[i]);
	for (i = 0; i < 2 * t->n; i++)
		free(t->whys[i]);
	free(t->bufs);
	free(t->whys);
	free(t->files);
}

/*
 * A side of a manifest, or NULL when it cannot be read (a FIFO, a link out
 * of the tree, too large): *why says so, and the analysis names it.
 */
static const char *side_read(struct depreview *dr, struct buf *out, char **why, const char *path,
			     bool old_side, size_t *len)
{
	if (repo_read(out, dr->repo, dr->target, path, old_side) < 0) {
		*len = 0;
		*why = strdup(error_message());
		return NULL;
	}
	*len = out->len;
	return out->ptr ? out->ptr : "";
}

/*
 * The manifest beside a lock file (lock_manifest_name), on both sides,
 * for which packages are direct: left out where it cannot be read (the
 * packages' relation is then unknown), never a problem of its own.
 */
static void manifest_beside(struct depreview *dr, struct texts *t, const struct diff_file *f, struct deps_file *d)
{
	const char *name = lock_manifest_name(f->path);
	struct buf path = BUF_INIT;
	struct buf *b = &t->bufs[4 * t->n + 2];

	if (!name || buf_printf(&path, "%.*s%s", (int)(strrchr(f->path, '/') ? strrchr(f->path, '/') + 1 - f->path : 0),
				f->path, name) < 0) {
		buf_release(&path);
		return;
	}
	if (f->status != DIFF_ADDED && repo_read(&b[0], dr->repo, dr->target, path.ptr, true) == 0)
		d->manifest_old = b[0].ptr ? b[0].ptr : "", d->manifest_old_len = b[0].len;
	if (f->status != DIFF_DELETED && repo_read(&b[1], dr->repo, dr->target, path.ptr, false) == 0)
		d->manifest_new = b[1].ptr ? b[1].ptr : "", d->manifest_new_len = b[1].len;
	buf_release(&path);
}

/* Every changed path; manifests and the lock files revline reads with both texts. */
static int texts_read(struct texts *t, struct depreview *dr)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	if (!(t->files = calloc(dr->diff->nfiles + 1, sizeof(*t->files))) ||
	    !(t->bufs = calloc(4 * dr->diff->nfiles + 4, sizeof(*t->bufs))) ||
	    !(t->whys = calloc(2 * dr->diff->nfiles + 2, sizeof(*t->whys))))
		return error_nomem();
	for (i = 0; i < dr->diff->nfiles; i++) {
		const struct diff_file *f = &dr->diff->files[i];
		struct deps_file *d = &t->files[t->n];
		enum deps_ecosystem eco;
		bool lock = lock_file_known(f->path, &eco);

		d->path = f->path;
		if (lock || deps_file_kind(f->path, &eco) == DEPS_FILE_MANIFEST) {
			if (f->status != DIFF_ADDED)
				d->old_text = side_read(dr, &t->bufs[4 * t->n], &t->whys[2 * t->n], f->old_path,
							true, &d->old_len);
			if (f->status != DIFF_DELETED)
				d->new_text = side_read(dr, &t->bufs[4 * t->n + 1], &t->whys[2 * t->n + 1],
							f->path, false, &d->new_len);
			/* Half a manifest would make every dependency look added or removed. */
			if (t->whys[2 * t->n] || t->whys[2 * t->n + 1])
				d->old_text = d->new_text = NULL;
			else if (lock)
				manifest_beside(dr, t, f, d);
		}
		t->n++;
	}
	return 0;
}

/* The manifest sides that could not be read, among the analysis's problems. */
static int unreadable_add(struct deps_analysis *analysis, const struct texts *t)
{
	size_t i;
	int error = 0;

	for (i = 0; i < 2 * t->n && !error; i++)
		if (t->whys[i])
			error = deps_problem_add(analysis, t->files[i / 2].path, i % 2 ? "new" : "old",
						 t->whys[i]);
	return error;
}

/* --- the phase ------------------------------------------------------------ */

static int finish(struct depreview *dr)
{
	struct buf section = BUF_INIT;
	int error;

	poll_group_leave(&dr->member);
	if (dr->advisory) {
		dr->checked = advisory_checked(dr->advisory);
		if (advisory_error(dr->advisory) && !(dr->error = strdup(advisory_error(dr->advisory))))
			return error_nomem();
		advisory_free(dr->advisory);
		dr->advisory = NULL;
	}
	if ((error = deps_confidence_compute(&dr->analysis)) < 0 ||
	    (error = deps_prompt_section(&section, &dr->analysis)) < 0) {
		buf_release(&section);
		return error;
	}
	dr->section = section.ptr ? buf_detach(&section) : strdup("");
	dr->done = true;
	return dr->section ? 0 : error_nomem();
}

static int member_step(void *ctx, const struct pollfd *fds, int n)
{
	struct depreview *dr = ctx;

	(void)fds;
	(void)n;
	if (!dr->advisory || dr->done || !advisory_done(dr->advisory))
		return 0;
	return finish(dr);
}

/* After the lookup, in its group. */
static int member_join(struct depreview *dr)
{
	dr->member.step = member_step;
	dr->member.ctx = dr;
	return poll_group_join(advisory_group(dr->advisory), &dr->member);
}

/*
 * The commit messages of the change, as their authors wrote them (a bot's
 * subject names its bumps, its body carries the release notes), each
 * after a blank line; none when they cannot be read.
 */
static int messages_read(struct buf *out, struct depreview *dr)
{
	struct repo_commits commits;
	size_t i;
	int error = 0;

	if (repo_commits(&commits, dr->repo, dr->target, 20) < 0) {
		if (error_status() == RL_ENOMEM)
			return RL_ENOMEM;
		error_clear();
		return 0;
	}
	for (i = 0; i < commits.count; i++)
		buf_printf(out, "%s%s\n", i ? "\n" : "", commits.items[i].message);
	if (commits.count && !out->ptr)
		error = error_nomem();
	repo_commits_release(&commits);
	return error;
}

int depreview_start(struct depreview *dr)
{
	struct buf messages = BUF_INIT;
	struct texts t;
	int error;

	dr->started = true;
	if ((error = messages_read(&messages, dr)) < 0)
		return error;
	if ((error = texts_read(&t, dr)) < 0 ||
	    (error = deps_analyze(&dr->analysis, t.files, t.n, dr->repo->branch, messages.ptr)) < 0 ||
	    (error = unreadable_add(&dr->analysis, &t)) < 0) {
		texts_release(&t);
		buf_release(&messages);
		return error;
	}
	texts_release(&t);
	buf_release(&messages);
	if (!dr->analysis.npackages || !dr->opts.advisories) {
		if (dr->analysis.npackages && !(dr->error = strdup("advisories not looked up (revline.advisories is false)")))
			return error_nomem();
		return finish(dr);
	}
	if ((error = advisory_new(&dr->advisory, &dr->analysis, &dr->opts.advisory, dr->opts.group)) < 0 ||
	    (error = advisory_start(dr->advisory)) < 0 ||
	    (!advisory_done(dr->advisory) && (error = member_join(dr)) < 0)) {
		/* Fail-open: the review goes on without advisories. */
		dr->error = strdup(error_message());
		advisory_free(dr->advisory);
		dr->advisory = NULL;
		return finish(dr);
	}
	return advisory_done(dr->advisory) ? finish(dr) : 0;
}

int depreview_wait(struct depreview *dr, int max_ms)
{
	if (!dr->advisory || dr->done)
		return 0;
	return poll_group_wait(advisory_group(dr->advisory), max_ms);
}

bool depreview_done(const struct depreview *dr)
{
	return dr->done;
}

void depreview_cancel(struct depreview *dr)
{
	if (dr->done || !dr->started)
		return;
	if (dr->advisory)
		advisory_cancel(dr->advisory);
	finish(dr);
}

const struct deps_analysis *depreview_analysis(const struct depreview *dr)
{
	return &dr->analysis;
}

bool depreview_found(const struct depreview *dr)
{
	return dr->analysis.npackages || dr->analysis.bot || dr->analysis.nproblems || dr->analysis.nclaims;
}

bool depreview_dependency_only(const struct depreview *dr)
{
	return depreview_found(dr) && dr->analysis.dependency_only;
}

const char *depreview_section(const struct depreview *dr)
{
	return dr->section ? dr->section : "";
}

size_t depreview_checked(const struct depreview *dr)
{
	return dr->checked;
}

const char *depreview_error(const struct depreview *dr)
{
	return dr->error;
}

/* --- storing -------------------------------------------------------------- */

int depreview_store(struct depreview *dr, struct store *store, int64_t check_id)
{
	if (!store || !check_id || !depreview_found(dr))
		return 0;
	return store_deps_put(store, check_id, &dr->analysis, dr->checked, dr->error);
}
