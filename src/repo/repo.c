#include "repo.h"
#include "remote_url.h"
#include "status.h"

#include <git2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int git_fail(int status, const char *what)
{
	const git_error *e = git_error_last();

	return error_set(status, "%s: %s", what, e && e->message ? e->message : "libgit2 error");
}

static void short_oid(char out[8], const git_oid *oid)
{
	git_oid_tostr(out, 8, oid);
}

static char *branch_describe(git_repository *git)
{
	git_reference *head = NULL;
	char *text = NULL;
	char oid[8];

	if (git_repository_head_unborn(git) == 1) {
		git_reference *sym = NULL;
		const char *target = NULL;

		if (git_reference_lookup(&sym, git, "HEAD") == 0)
			target = git_reference_symbolic_target(sym);
		if (target && !strncmp(target, "refs/heads/", 11))
			target += 11;
		if (asprintf(&text, "%s (no commits yet)", target ? target : "HEAD") < 0)
			text = NULL;
		git_reference_free(sym);
		return text;
	}
	if (git_repository_head(&head, git) < 0)
		return strdup("HEAD");
	if (git_reference_is_branch(head)) {
		text = strdup(git_reference_shorthand(head));
	} else {
		short_oid(oid, git_reference_target(head));
		if (asprintf(&text, "detached at %s", oid) < 0)
			text = NULL;
	}
	git_reference_free(head);
	return text;
}

static int name_from(struct repo *repo)
{
	const char *dir = repo->workdir ? repo->workdir : repo->gitdir;
	size_t len = strlen(dir);
	const char *start;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	for (start = dir + len; start > dir && start[-1] != '/'; start--)
		;
	repo->name = strndup(start, (size_t)(dir + len - start));
	return repo->name ? 0 : error_nomem();
}

static void remote_read(struct repo *repo);

int repo_open(struct repo **out, const char *path)
{
	struct repo *repo = NULL;
	git_buf found = { 0 };
	char *cwd = NULL;
	int error;

	*out = NULL;
	git_libgit2_init();
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	/* libgit2's object cache, blobs in it while a check runs (repo_blob_cache_hold). */
	git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, (ssize_t)64 << 20);
	if (!path)
		path = cwd = getcwd(NULL, 0);
	if (!path)
		return error_set(RL_EIO, "cannot read the current directory");
	if (git_repository_discover(&found, path, 0, NULL) < 0) {
		error = error_set(RL_ENOTREPO, "not a git repository (or any parent up to /): %s", path);
		goto done;
	}
	if (!(repo = calloc(1, sizeof(*repo)))) {
		error = error_nomem();
		goto done;
	}
	if (git_repository_open(&repo->git, found.ptr) < 0) {
		error = git_fail(RL_ENOTREPO, found.ptr);
		goto done;
	}
	if (git_repository_workdir(repo->git) &&
	    !(repo->workdir = strdup(git_repository_workdir(repo->git)))) {
		error = error_nomem();
		goto done;
	}
	repo->gitdir = strdup(git_repository_path(repo->git));
	repo->branch = branch_describe(repo->git);
	if (!repo->gitdir || !repo->branch) {
		error = error_nomem();
		goto done;
	}
	if ((error = name_from(repo)) < 0)
		goto done;
	remote_read(repo);
	*out = repo;
	repo = NULL;
done:
	git_buf_dispose(&found);
	free(cwd);
	repo_free(repo);
	return error;
}

void repo_free(struct repo *repo)
{
	if (!repo)
		return;
	if (repo->objects != repo->git)
		git_repository_free(repo->objects);
	git_repository_free(repo->git);
	free(repo->workdir);
	free(repo->gitdir);
	free(repo->name);
	free(repo->branch);
	free(repo->remote);
	free(repo);
	git_libgit2_shutdown();
}

git_repository *repo_objects(struct repo *repo)
{
	if (repo->objects)
		return repo->objects;
	if (!repo->workdir || git_repository_open_bare(&repo->objects, git_repository_path(repo->git)) < 0) {
		git_error_clear();
		repo->objects = repo->git;
	}
	return repo->objects;
}

void repo_blob_cache_hold(struct repo *repo)
{
	if (!repo->blob_cache_holds++)
		git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_BLOB, (size_t)1 << 20);
}

void repo_blob_cache_release(struct repo *repo)
{
	if (repo->blob_cache_holds && !--repo->blob_cache_holds)
		git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_BLOB, (size_t)0);
}

static int commit_of(git_oid *out, git_repository *git, const char *ref)
{
	git_object *obj = NULL, *commit = NULL;

	if (git_revparse_single(&obj, git, ref) < 0)
		return error_set(RL_EBADREF, "unknown revision '%s'", ref);
	if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0) {
		git_object_free(obj);
		return error_set(RL_EBADREF, "'%s' does not name a commit", ref);
	}
	git_oid_cpy(out, git_object_id(commit));
	git_object_free(commit);
	git_object_free(obj);
	return 0;
}

static int merge_base(git_oid *out, git_repository *git, const git_oid *a, const git_oid *b,
		      const char *what)
{
	if (git_merge_base(out, git, a, b) < 0)
		return error_set(RL_EBADREF, "%s have no common ancestor", what);
	return 0;
}

/* What one fetch refspec of the remote makes of the branch's merge ref. */
struct upstream_find {
	const char *merge;
	git_buf ref;
	bool found;
};

static int refspec_try(const git_config_entry *entry, void *payload)
{
	struct upstream_find *f = payload;
	git_refspec *spec = NULL;

	if (f->found || git_refspec_parse(&spec, entry->value, 1) < 0)
		return 0;
	if (git_refspec_src_matches(spec, f->merge) && git_refspec_transform(&f->ref, spec, f->merge) == 0)
		f->found = true;
	git_refspec_free(spec);
	return 0;
}

static int config_text(git_buf *out, git_config *config, const char *section, const char *name,
		       const char *key)
{
	char *full = NULL;
	int error;

	if (asprintf(&full, "%s.%s.%s", section, name, key) < 0)
		return -1;
	error = git_config_get_string_buf(out, config, full);
	free(full);
	return error;
}

/*
 * The ref HEAD's branch follows, as git reads it: branch.NAME.remote and
 * branch.NAME.merge, through the remote's fetch refspecs ("." is this
 * repository). Read here rather than with git_branch_upstream: libgit2 1.5
 * leaks PCRE2 match data in the config patterns that one uses.
 */
static int upstream_ref(git_buf *out, git_repository *git, const char *branch)
{
	git_buf remote = GIT_BUF_INIT, merge = GIT_BUF_INIT;
	struct upstream_find f = { NULL, GIT_BUF_INIT, false };
	git_config *config = NULL;
	char *key = NULL;
	int error = -1;

	if (git_repository_config_snapshot(&config, git) < 0 ||
	    config_text(&remote, config, "branch", branch, "remote") < 0 ||
	    config_text(&merge, config, "branch", branch, "merge") < 0)
		goto done;
	if (!strcmp(remote.ptr, ".")) {
		error = git_buf_set(out, merge.ptr, merge.size);
		goto done;
	}
	f.merge = merge.ptr;
	if (asprintf(&key, "remote.%s.fetch", remote.ptr) < 0)
		goto done;
	if (git_config_get_multivar_foreach(config, key, NULL, refspec_try, &f) == 0 && f.found)
		error = git_buf_set(out, f.ref.ptr, f.ref.size);
done:
	free(key);
	git_buf_dispose(&f.ref);
	git_buf_dispose(&remote);
	git_buf_dispose(&merge);
	git_config_free(config);
	return error;
}

/*
 * The remote that identifies the repository (remote_url.h): the one HEAD's
 * branch follows, else origin; none for a repository without one, or with
 * one revline cannot read (never said: it is only a tag).
 */
static void remote_read(struct repo *repo)
{
	git_buf name = GIT_BUF_INIT, url = GIT_BUF_INIT;
	git_reference *head = NULL;
	git_config *config = NULL;
	struct buf id = BUF_INIT;

	if (git_repository_config_snapshot(&config, repo->git) < 0)
		goto done;
	if (git_repository_head(&head, repo->git) < 0 || !git_reference_is_branch(head) ||
	    config_text(&name, config, "branch", git_reference_shorthand(head), "remote") < 0 ||
	    !strcmp(name.ptr, "."))
		git_buf_set(&name, "origin", 6);
	if (config_text(&url, config, "remote", name.ptr, "url") == 0 && remote_url_normalize(&id, url.ptr) == 0)
		repo->remote = buf_detach(&id);
done:
	error_clear();
	git_error_clear();
	buf_release(&id);
	git_buf_dispose(&name);
	git_buf_dispose(&url);
	git_reference_free(head);
	git_config_free(config);
}

/* The upstream of HEAD's branch, as "origin/main", or NULL. */
static char *upstream_name(git_repository *git, git_oid *oid)
{
	git_reference *head = NULL, *up = NULL;
	git_buf ref = GIT_BUF_INIT;
	char *name = NULL;

	if (git_repository_head(&head, git) == 0 && git_reference_is_branch(head) &&
	    upstream_ref(&ref, git, git_reference_shorthand(head)) == 0 &&
	    git_reference_lookup(&up, git, ref.ptr) == 0 && git_reference_target(up)) {
		name = strdup(git_reference_shorthand(up));
		git_oid_cpy(oid, git_reference_target(up));
	}
	git_buf_dispose(&ref);
	git_reference_free(up);
	git_reference_free(head);
	return name;
}

static int set_labels(struct target *t, const char *base, const git_oid *base_oid,
		      const char *head)
{
	char oid[8] = "";

	if (base_oid)
		short_oid(oid, base_oid);
	t->base_label = strdup(base);
	t->head_label = strdup(head);
	if (!t->base_label || !t->head_label)
		return error_nomem();
	if (base_oid && strcmp(base, oid) != 0) {
		if (asprintf(&t->description, "%s (%s)..%s", base, oid, head) < 0)
			t->description = NULL;
	} else if (asprintf(&t->description, "%s..%s", base, head) < 0) {
		t->description = NULL;
	}
	return t->description ? 0 : error_nomem();
}

/* The default: the merge base with the upstream, or HEAD, against the working tree. */
static int resolve_default(struct target *t, git_repository *git, const char *head_label)
{
	git_oid head, up, base;
	char *upstream;
	char *label = NULL;
	int error;

	if (git_repository_head_unborn(git) == 1)
		return set_labels(t, "empty tree", NULL, head_label);
	if ((error = commit_of(&head, git, "HEAD")) < 0)
		return error;
	upstream = upstream_name(git, &up);
	if (!upstream || git_merge_base(&base, git, &head, &up) < 0) {
		free(upstream);
		git_oid_tostr(t->base_oid, sizeof(t->base_oid), &head);
		return set_labels(t, "HEAD", &head, head_label);
	}
	git_oid_tostr(t->base_oid, sizeof(t->base_oid), &base);
	if (asprintf(&label, "merge base with %s", upstream) < 0)
		label = NULL;
	free(upstream);
	if (!label)
		return error_nomem();
	error = set_labels(t, label, &base, head_label);
	free(label);
	return error;
}

static int resolve_ref(char out[41], git_oid *oid, git_repository *git, const char *ref)
{
	int error = commit_of(oid, git, ref);

	if (!error)
		git_oid_tostr(out, 41, oid);
	return error;
}

static int resolve_range(struct target *t, git_repository *git, const char *range)
{
	const char *dots = strstr(range, "..");
	bool symmetric = dots && dots[2] == '.';
	char *a = NULL, *b = NULL, *what = NULL;
	git_oid oa, ob, base;
	int error;

	if (!dots)
		return error_set(RL_EUSAGE, "'%s' is not a range (A..B or A...B)", range);
	a = strndup(range, (size_t)(dots - range));
	b = strdup(dots + (symmetric ? 3 : 2));
	if (!a || !b) {
		error = error_nomem();
		goto done;
	}
	if ((error = resolve_ref(t->base_oid, &oa, git, *a ? a : "HEAD")) < 0 ||
	    (error = resolve_ref(t->head_oid, &ob, git, *b ? b : "HEAD")) < 0)
		goto done;
	t->side = SIDE_TREE;
	if (!symmetric) {
		error = set_labels(t, *a ? a : "HEAD", &oa, *b ? b : "HEAD");
		goto done;
	}
	if (asprintf(&what, "'%s' and '%s'", *a ? a : "HEAD", *b ? b : "HEAD") < 0) {
		error = error_nomem();
		goto done;
	}
	if ((error = merge_base(&base, git, &oa, &ob, what)) < 0)
		goto done;
	git_oid_tostr(t->base_oid, sizeof(t->base_oid), &base);
	free(what);
	if (asprintf(&what, "merge base of %s and %s", *a ? a : "HEAD", *b ? b : "HEAD") < 0) {
		what = NULL;
		error = error_nomem();
		goto done;
	}
	error = set_labels(t, what, &base, *b ? b : "HEAD");
done:
	free(a);
	free(b);
	free(what);
	return error;
}

static int resolve_base(struct target *t, git_repository *git, const char *ref, const char *head)
{
	git_oid oid;
	int error = resolve_ref(t->base_oid, &oid, git, ref);

	return error < 0 ? error : set_labels(t, ref, &oid, head);
}

int repo_resolve(struct target *out, struct repo *repo, const struct target_spec *spec)
{
	int error;

	memset(out, 0, sizeof(*out));
	out->side = spec->staged ? SIDE_INDEX : SIDE_WORKDIR;
	out->untracked = spec->untracked;
	if (spec->range && (spec->base || spec->staged))
		return error_set(RL_EUSAGE, "a range (%s) cannot be combined with --base or --staged",
				 spec->range);
	if (spec->range)
		error = resolve_range(out, repo->git, spec->range);
	else if (!repo->workdir)
		return error_set(RL_EUSAGE, "%s is a bare repository: give a range A..B to review",
				 repo->gitdir);
	else if (spec->base)
		error = resolve_base(out, repo->git, spec->base, spec->staged ? "index" : "working tree");
	else if (spec->staged && git_repository_head_unborn(repo->git) != 1)
		error = resolve_base(out, repo->git, "HEAD", "index");
	else
		error = resolve_default(out, repo->git, spec->staged ? "index" : "working tree");
	if (!error && spec->untracked && out->side != SIDE_WORKDIR)
		error = error_set(RL_EUSAGE, "--untracked needs the working tree as the new side "
				  "(not --staged or a range)");
	if (error < 0)
		target_release(out);
	return error;
}

void target_release(struct target *target)
{
	free(target->base_label);
	free(target->head_label);
	free(target->description);
	target->base_label = target->head_label = target->description = NULL;
}
