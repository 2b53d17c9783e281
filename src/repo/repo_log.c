/* The history read from the object database: commits from HEAD, and one commit's change against its parent. */
#include "repo_log.h"
#include "array.h"
#include "status.h"

#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct repo_log {
	struct repo *repo;
	git_revwalk *walk;
	git_commit *commit;     /* the one last returned: its texts are borrowed by the caller */
	int64_t since;
};

int repo_log_open(struct repo_log **out, struct repo *repo, int64_t since)
{
	struct repo_log *log = calloc(1, sizeof(*log));
	git_oid head;
	int error = 0;

	*out = NULL;
	if (!log)
		return error_nomem();
	log->repo = repo;
	log->since = since;
	if (git_reference_name_to_id(&head, repo->git, "HEAD") < 0) {
		error = error_set(RL_ENOTFOUND, "%s: HEAD has no commit yet: there is no history to read",
				  repo->workdir ? repo->workdir : repo->gitdir);
		goto done;
	}
	if (git_revwalk_new(&log->walk, repo->git) < 0 ||
	    git_revwalk_sorting(log->walk, GIT_SORT_TIME) < 0 || git_revwalk_push(log->walk, &head) < 0) {
		error = error_set(RL_EIO, "cannot walk the history from HEAD: %s",
				  git_error_last() ? git_error_last()->message : "libgit2 failed");
		goto done;
	}
	*out = log;
	log = NULL;
done:
	repo_log_free(log);
	return error;
}

void repo_log_free(struct repo_log *log)
{
	if (!log)
		return;
	git_commit_free(log->commit);
	git_revwalk_free(log->walk);
	free(log);
}

static const char *text_or_empty(const char *s)
{
	return s ? s : "";
}

/*
 * Sorted by time, the walk may still return an older commit before a
 * newer one (clock skew); only a run of old commits ends it, so a skewed
 * one does not cut the history short.
 */
#define OLD_RUN_END 100

int repo_log_next(struct repo_log_commit *out, struct repo_log *log)
{
	const git_signature *author;
	git_oid oid;
	int old_run = 0;

	for (;;) {
		int rc = git_revwalk_next(&oid, log->walk);

		if (rc == GIT_ITEROVER)
			return 0;
		if (rc < 0)
			return error_set(RL_EIO, "cannot walk the history: %s",
					 git_error_last() ? git_error_last()->message : "libgit2 failed");
		git_commit_free(log->commit);
		log->commit = NULL;
		if (git_commit_lookup(&log->commit, log->repo->git, &oid) < 0)
			return error_set(RL_EIO, "cannot read commit %s", git_oid_tostr_s(&oid));
		out->time = (int64_t)git_commit_time(log->commit);
		if (log->since && out->time < log->since) {
			if (++old_run >= OLD_RUN_END)
				return 0;
			continue;
		}
		break;
	}
	git_oid_tostr(out->oid, sizeof(out->oid), &oid);
	out->nparents = git_commit_parentcount(log->commit);
	out->parent[0] = '\0';
	if (out->nparents)
		git_oid_tostr(out->parent, sizeof(out->parent), git_commit_parent_id(log->commit, 0));
	author = git_commit_author(log->commit);
	out->author_name = text_or_empty(author ? author->name : NULL);
	out->author_email = text_or_empty(author ? author->email : NULL);
	out->message = text_or_empty(git_commit_message(log->commit));
	return 1;
}

/* --- one commit's change ---------------------------------------------------- */

static int file_cb(const git_diff_delta *delta, float progress, void *payload)
{
	struct repo_change *c = payload;
	struct repo_change_file *f;
	const char *path;

	(void)progress;
	if (ARRAY_GROW(c->files, c->files_alloc, c->nfiles + 1) < 0)
		return -1;
	f = &c->files[c->nfiles];
	memset(f, 0, sizeof(*f));
	f->added = delta->status == GIT_DELTA_ADDED;
	f->deleted = delta->status == GIT_DELTA_DELETED;
	f->binary = (delta->flags & GIT_DIFF_FLAG_BINARY) != 0;
	path = f->added ? delta->new_file.path : delta->old_file.path;
	if (!(f->path = strdup(path ? path : "")))
		return error_nomem();
	c->nfiles++;
	return 0;
}

static int binary_cb(const git_diff_delta *delta, const git_diff_binary *binary, void *payload)
{
	struct repo_change *c = payload;

	(void)delta;
	(void)binary;
	if (c->nfiles)
		c->files[c->nfiles - 1].binary = true;
	return 0;
}

static int hunk_cb(const git_diff_delta *delta, const git_diff_hunk *hunk, void *payload)
{
	struct repo_change *c = payload;
	struct repo_change_file *f;

	(void)delta;
	if (!c->nfiles)
		return 0;
	f = &c->files[c->nfiles - 1];
	if (ARRAY_GROW(f->hunks, f->hunks_alloc, f->nhunks + 1) < 0)
		return -1;
	f->hunks[f->nhunks++] = (struct repo_change_hunk){ hunk->old_start, hunk->old_lines,
							   hunk->new_start, hunk->new_lines };
	f->additions += hunk->new_lines;
	f->deletions += hunk->old_lines;
	return 0;
}

static int trees_of(git_tree **old_tree, git_tree **new_tree, git_commit **commit, git_repository *git,
		    const char *oid)
{
	git_commit *parent = NULL;
	git_oid id;
	int error = 0;

	if (git_oid_fromstr(&id, oid) < 0 || git_commit_lookup(commit, git, &id) < 0 ||
	    git_commit_tree(new_tree, *commit) < 0)
		return error_set(RL_EBADREF, "cannot read commit %s", oid);
	if (git_commit_parentcount(*commit) &&
	    (git_commit_parent(&parent, *commit, 0) < 0 || git_commit_tree(old_tree, parent) < 0))
		error = error_set(RL_EIO, "cannot read the parent of commit %.12s", oid);
	git_commit_free(parent);
	return error;
}

int repo_change_read(struct repo_change *out, bool *over, struct repo *repo, const char *oid, size_t max_files)
{
	git_diff_options opts;
	git_commit *commit = NULL;
	git_tree *old_tree = NULL, *new_tree = NULL;
	git_diff *diff = NULL;
	int error;

	memset(out, 0, sizeof(*out));
	*over = false;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	if ((error = trees_of(&old_tree, &new_tree, &commit, repo->git, oid)) < 0)
		goto done;
	opts.context_lines = 0;
	opts.interhunk_lines = 0;
	if (git_diff_tree_to_tree(&diff, repo->git, old_tree, new_tree, &opts) < 0) {
		error = error_set(RL_EIO, "cannot diff commit %.12s: %s", oid,
				  git_error_last() ? git_error_last()->message : "libgit2 failed");
		goto done;
	}
	if (max_files && git_diff_num_deltas(diff) > max_files) {
		*over = true;
		goto done;
	}
	if (git_diff_foreach(diff, file_cb, binary_cb, hunk_cb, NULL, out) < 0)
		error = error_set(RL_EIO, "cannot read the change of commit %.12s: %s", oid,
				  git_error_last() ? git_error_last()->message : "out of memory");
done:
	git_diff_free(diff);
	git_tree_free(old_tree);
	git_tree_free(new_tree);
	git_commit_free(commit);
	if (error < 0)
		repo_change_release(out);
	return error;
}

void repo_change_release(struct repo_change *change)
{
	size_t i;

	for (i = 0; i < change->nfiles; i++) {
		free(change->files[i].path);
		free(change->files[i].hunks);
	}
	free(change->files);
	memset(change, 0, sizeof(*change));
}
