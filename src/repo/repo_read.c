/* Reading files on either side of a target, and the commits' messages. */
#include "repo.h"
#include "repo_content.h"
#include "array.h"
#include "status.h"

#include <errno.h>
#include <git2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int blob_at(struct buf *out, git_repository *git, const char *commit_hex, const char *path)
{
	git_oid oid;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	git_blob *blob = NULL;
	int error = RL_ENOTFOUND;

	if (!*commit_hex)
		return error_set(RL_ENOTFOUND, "%s: not in the empty tree", path);
	if (git_oid_fromstr(&oid, commit_hex) < 0 || git_commit_lookup(&commit, git, &oid) < 0 ||
	    git_commit_tree(&tree, commit) < 0) {
		error = error_set(RL_EIO, "cannot read commit %s", commit_hex);
		goto done;
	}
	if (git_tree_entry_bypath(&entry, tree, path) < 0 ||
	    git_blob_lookup(&blob, git, git_tree_entry_id(entry)) < 0) {
		error = error_set(RL_ENOTFOUND, "%s: not in %.7s", path, commit_hex);
		goto done;
	}
	error = buf_put(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
done:
	git_blob_free(blob);
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_commit_free(commit);
	return error;
}

static int blob_in_index(struct buf *out, git_repository *git, const char *path)
{
	git_index *index = NULL;
	const git_index_entry *entry;
	git_blob *blob = NULL;
	int error = 0;

	if (git_repository_index(&index, git) < 0)
		return error_set(RL_EIO, "cannot read the index");
	if (!(entry = git_index_get_bypath(index, path, 0)) ||
	    git_blob_lookup(&blob, git, &entry->id) < 0)
		error = error_set(RL_ENOTFOUND, "%s: not in the index", path);
	else
		error = buf_put(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	git_index_free(index);
	return error;
}

/* Whether a path relative to the working tree goes through a ".git" (the repository's own files). */
bool repo_path_in_git(const char *rel)
{
	const char *p = rel;

	while (p) {
		if (!strncasecmp(p, ".git", 4) && (p[4] == '/' || !p[4]))
			return true;
		p = strchr(p, '/');
		if (p)
			p++;
	}
	return false;
}

/*
 * Symbolic links are followed only while they stay in the working tree: what
 * a file of the change says goes to the model, and a link committed on a
 * branch must not make it carry ~/.ssh/id_rsa, /dev/zero or .git/config.
 */
int repo_read_workdir(struct buf *out, struct repo *repo, const char *path, size_t max)
{
	char real[PATH_MAX], root[PATH_MAX];
	struct buf full = BUF_INIT;
	size_t n;
	int error;

	if (!repo->workdir)
		return error_set(RL_ENOTFOUND, "%s: a bare repository has no working tree", path);
	if (!repo_path_safe(path))
		return error_set(RL_EUSAGE, "%s: not a path inside the repository", path);
	if ((error = buf_printf(&full, "%s%s", repo->workdir, path)) < 0)
		return error;
	if (!realpath(full.ptr, real)) {
		error = error_set(errno == ENOENT || errno == ENOTDIR ? RL_ENOTFOUND : RL_EIO,
				  "%s: %s", path, strerror(errno));
		goto done;
	}
	if (!realpath(repo->workdir, root)) {
		error = error_set(RL_EIO, "%s: %s", repo->workdir, strerror(errno));
		goto done;
	}
	n = strlen(root);
	if (strncmp(real, root, n) || (real[n] != '/' && real[n])) {
		error = error_set(RL_EUSAGE, "%s: leads outside the working tree (to %s): skipped",
				  path, real);
		goto done;
	}
	if (real[n] && repo_path_in_git(real + n + 1)) {
		error = error_set(RL_EUSAGE, "%s: leads into the repository's .git: skipped", path);
		goto done;
	}
	error = buf_read_regular(out, real, path, max);
done:
	buf_release(&full);
	return error;
}

int repo_read(struct buf *out, struct repo *repo, const struct target *target,
	      const char *path, bool old_side)
{
	if (old_side)
		return blob_at(out, repo->git, target->base_oid, path);
	switch (target->side) {
	case SIDE_TREE: return blob_at(out, repo->git, target->head_oid, path);
	case SIDE_INDEX: return blob_in_index(out, repo->git, path);
	default: return repo_read_workdir(out, repo, path, 0);
	}
}

/*
 * Each commit between the base and the head, newest first, with the
 * abbreviated id and message: how many, or RL_ENOTFOUND (no message set)
 * when there is no head to walk from (no commits yet).
 */
static int commits_walk(struct repo *repo, const struct target *target, int max,
			int (*each)(const char *id, const char *message, void *ctx), void *ctx)
{
	git_revwalk *walk = NULL;
	git_oid oid, base;
	int n = 0, error = 0;

	if (git_revwalk_new(&walk, repo->git) < 0)
		return RL_ENOTFOUND;
	if ((target->side == SIDE_TREE ? git_oid_fromstr(&oid, target->head_oid) :
	     git_reference_name_to_id(&oid, repo->git, "HEAD")) < 0 || git_revwalk_push(walk, &oid) < 0) {
		error = RL_ENOTFOUND;
		goto done;
	}
	if (*target->base_oid && git_oid_fromstr(&base, target->base_oid) == 0)
		git_revwalk_hide(walk, &base);
	while (!error && n < max && git_revwalk_next(&oid, walk) == 0) {
		git_commit *commit = NULL;
		char id[8];

		if (git_commit_lookup(&commit, repo->git, &oid) < 0)
			continue;
		snprintf(id, sizeof(id), "%.7s", git_oid_tostr_s(&oid));
		error = each(id, git_commit_message(commit), ctx);
		git_commit_free(commit);
		n++;
	}
done:
	git_revwalk_free(walk);
	return error < 0 ? error : n;
}

static int intent_put(const char *id, const char *message, void *ctx)
{
	buf_printf(ctx, "\nCommit %s: %s", id, message);
	return 0;
}

int repo_intent(struct buf *out, struct repo *repo, const struct target *target, int max)
{
	buf_printf(out, "Branch: %s\n", repo->branch);
	if (commits_walk(repo, target, max, intent_put, out) == 0 && !*target->base_oid)
		buf_puts(out, "(no commits yet)\n");
	return 0;
}

static int commit_put(const char *id, const char *message, void *ctx)
{
	struct repo_commits *list = ctx;
	struct repo_commit *c;

	if (ARRAY_GROW(list->items, list->alloc, list->count + 1) < 0)
		return RL_ENOMEM;
	c = &list->items[list->count];
	memcpy(c->id, id, sizeof(c->id));
	if (!(c->message = strdup(message ? message : "")))
		return error_nomem();
	list->count++;
	return 0;
}

int repo_commits(struct repo_commits *out, struct repo *repo, const struct target *target, int max)
{
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = commits_walk(repo, target, max, commit_put, out)) < 0 && error != RL_ENOTFOUND) {
		repo_commits_release(out);
		return error;
	}
	return 0;
}

void repo_commits_release(struct repo_commits *list)
{
	size_t i;

	for (i = 0; i < list->count; i++)
		free(list->items[i].message);
	free(list->items);
	memset(list, 0, sizeof(*list));
}
