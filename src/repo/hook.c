/* revline as a git hook: the scripts, where git runs them, installing and removing (hook.h). */
#include "hook.h"
#include "repo.h"
#include "status.h"

#include <errno.h>
#include <git2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The first lines of every hook revline writes: how it knows its own. */
#define MARK "# revline-hook:"
#define CHAINED ".revline-chained"

const char *hook_name(enum hook_kind kind)
{
	return kind == HOOK_PRE_COMMIT ? "pre-commit" : "pre-push";
}

/* Whether path is dir or below it (both real paths). */
static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/* core.hooksPath as git reads it, relative to the working tree (or the git directory when bare). */
static int configured_dir(struct buf *out, struct repo *repo)
{
	git_config *config = NULL;
	git_buf value = { NULL, 0, 0 };
	int error = 0;

	if (git_repository_config_snapshot(&config, repo->git) < 0)
		return error_set(RL_ECONFIG, "cannot read the repository's config: %s",
				 git_error_last() ? git_error_last()->message : "unknown error");
	if (git_config_get_path(&value, config, "core.hooksPath") == 0 && value.ptr && *value.ptr) {
		if (value.ptr[0] != '/')
			error = buf_puts(out, repo->workdir ? repo->workdir : repo->gitdir);
		if (!error)
			error = buf_puts(out, value.ptr);
	}
	git_buf_dispose(&value);
	git_config_free(config);
	return error;
}

int hook_dir(struct buf *out, struct repo *repo)
{
	char real[PATH_MAX], top[PATH_MAX], git[PATH_MAX];
	int error;

	buf_clear(out);
	if ((error = configured_dir(out, repo)) < 0)
		return error;
	if (!out->len && (error = buf_printf(out, "%shooks", git_repository_commondir(repo->git))) < 0)
		return error;
	/* The directory as it will be: made when missing, its parent must be real. */
	if (mkdir(out->ptr, 0755) < 0 && errno != EEXIST)
		return error_set(RL_EIO, "cannot make the hooks directory %s: %s", out->ptr, strerror(errno));
	if (!realpath(out->ptr, real) || !realpath(git_repository_commondir(repo->git), git) ||
	    (repo->workdir && !realpath(repo->workdir, top)))
		return error_set(RL_EIO, "cannot resolve %s: %s", out->ptr, strerror(errno));
	if (!below(real, git) && !(repo->workdir && below(real, top)))
		return error_set(RL_ECONFIG, "core.hooksPath is %s, outside this repository: revline writes "
				 "nothing there; print the hook with 'revline hook install --print' and put it "
				 "there yourself", real);
	buf_clear(out);
	return buf_puts(out, real);
}

/* A path as one single-quoted shell word. */
static int shell_quoted(struct buf *out, const char *s)
{
	int error = buf_putc(out, '\'');

	for (; !error && *s; s++)
		error = *s == '\'' ? buf_puts(out, "'\\''") : buf_putc(out, *s);
	return error ? error : buf_putc(out, '\'');
}

/*
 * What both hooks do with the check's exit status (see revline check --help):
 * 0 passes; 1, a finding at --fail-on, refuses whatever else failed; 4 (the
 * results not stored) passes and says so; anything else is a review that
 * did not complete, which refuses: 'revline.allowPartial true' makes the
 * check accept an incomplete review (it exits 0 or 1 then), and --no-verify
 * skips the hook once.
 */
static const char verdict_functions[] =
	"why() {\n"
	"\tcase $1 in\n"
	"\t2) echo 'revline could not start it, see above' ;;\n"
	"\t3) echo 'no rule could run' ;;\n"
	"\t5) echo \"the check's deadline passed\" ;;\n"
	"\t6) echo 'some rules did not run' ;;\n"
	"\t129|130|143) echo 'it was interrupted' ;;\n"
	"\t*) echo 'see above' ;;\n"
	"\tesac\n"
	"}\n"
	"found=0 incomplete=0\n"
	"verdict() {\n"
	"\tcase $1 in\n"
	"\t0) ;;\n"
	"\t1) found=1 ;;\n"
	"\t4) echo \"revline: $2: the results are not stored (exit 4); nothing in the review refuses it\" >&2 ;;\n"
	"\t*) echo \"revline: $2: the review did not complete (exit $1: $(why \"$1\"))\" >&2\n"
	"\t   incomplete=1 ;;\n"
	"\tesac\n"
	"}\n"
	"refuse() {\n"
	"\tif [ $found -ne 0 ]; then\n"
	"\t\techo \"revline: $1 refused: a finding at $fail_on or worse (git $1 --no-verify skips the review)\" >&2\n"
	"\telif [ $incomplete -ne 0 ]; then\n"
	"\t\techo \"revline: $1 refused: the review did not complete; 'git config revline.allowPartial true'\" \\\n"
	"\t\t\"lets an incomplete review pass a hook (a finding at $fail_on still refuses),\" \\\n"
	"\t\t\"and git $1 --no-verify skips the review once\" >&2\n"
	"\telse\n"
	"\t\texit 0\n"
	"\tfi\n"
	"\texit 1\n"
	"}\n";

static const char push_body[] =
	"# Each pushed ref is reviewed against what the remote has of it.\n"
	"input=$(cat)\n"
	"if [ -x \"$0" CHAINED "\" ]; then\n"
	"\tprintf '%s\\n' \"$input\" | \"$0" CHAINED "\" \"$@\" || exit $?\n"
	"fi\n"
	"while read -r local_ref local_sha remote_ref remote_sha; do\n"
	"\tcase $local_sha in *[!0]*) ;; *) continue ;; esac\n"
	"\tbase=\n"
	"\tcase $remote_sha in *[!0]*) git cat-file -e \"$remote_sha^{commit}\" 2>/dev/null && base=$remote_sha ;; esac\n"
	"\tif [ -z \"$base\" ]; then\n"
	"\t\tfirst=$(git rev-list \"$local_sha\" --not --remotes=\"$1\" | tail -n 1)\n"
	"\t\t[ -n \"$first\" ] && base=$(git rev-parse -q --verify \"$first^\" 2>/dev/null)\n"
	"\tfi\n"
	"\tif [ -z \"$base\" ]; then\n"
	"\t\techo \"revline: $local_ref: no commit of the remote to compare with: not reviewed\" >&2\n"
	"\t\tcontinue\n"
	"\tfi\n"
	"\t\"$revline\" check \"$base..$local_sha\" --fail-on \"$fail_on\"\n"
	"\tverdict $? \"$local_ref\"\n"
	"done <<EOF\n"
	"$input\n"
	"EOF\n"
	"refuse push\n";

static const char commit_body[] =
	"# The index is reviewed, as 'git commit' would record it.\n"
	"if [ -x \"$0" CHAINED "\" ]; then\n"
	"\t\"$0" CHAINED "\" \"$@\" || exit $?\n"
	"fi\n"
	"\"$revline\" check --staged --fail-on \"$fail_on\"\n"
	"verdict $? 'the index'\n"
	"refuse commit\n";

int hook_script(struct buf *out, const struct hook_options *o)
{
	const char *name = hook_name(o->kind);
	int error;

	buf_clear(out);
	if ((error = buf_printf(out, "#!/bin/sh\n" MARK " %s, written by 'revline hook install'; "
				"'revline hook uninstall' removes it.\n"
				"# It reviews with 'revline check' and refuses the %s on a finding at --fail-on or\n"
				"# worse, whatever else failed, and on a review that did not complete (no LLM, no\n"
				"# network) unless revline.allowPartial is true.\n"
				"revline=", name, o->kind == HOOK_PRE_COMMIT ? "commit" : "push")) < 0 ||
	    (error = shell_quoted(out, o->program ? o->program : "revline")) < 0 ||
	    (error = buf_puts(out, "\ncommand -v \"$revline\" >/dev/null 2>&1 || revline=revline\nfail_on=")) < 0 ||
	    (error = shell_quoted(out, o->fail_on ? o->fail_on : "major")) < 0 ||
	    (error = buf_putc(out, '\n')) < 0 || (error = buf_puts(out, verdict_functions)) < 0)
		return error;
	return buf_puts(out, o->kind == HOOK_PRE_COMMIT ? commit_body : push_body);
}

/* Whether the file at path is a hook revline wrote (RL_ENOTFOUND: no file). */
static int ours(bool *out, const char *path)
{
	struct buf text = BUF_INIT;
	int error = buf_read_regular(&text, path, NULL, 1 << 20);

	*out = error == 0 && text.ptr && strstr(text.ptr, "\n" MARK " ") != NULL;
	if (error == RL_EPARSE)
		error = 0;      /* larger than any hook of revline's: foreign */
	buf_release(&text);
	return error;
}

static int hook_paths(struct buf *path, struct buf *chained, struct repo *repo, enum hook_kind kind)
{
	int error;

	if ((error = hook_dir(path, repo)) < 0 || (error = buf_printf(path, "/%s", hook_name(kind))) < 0)
		return error;
	buf_clear(chained);
	return buf_printf(chained, "%s" CHAINED, path->ptr);
}

/* A foreign hook at path: refused, or kept as the chained one when forced. */
static int keep_foreign(bool *chained, const char *path, const char *chained_path, bool force)
{
	struct stat st;

	if (!force)
		return error_set(RL_ECONFLICT, "%s is a hook that is not revline's: it is left alone; "
				 "--force keeps it and runs it before revline's review", path);
	if (lstat(chained_path, &st) == 0)
		return error_set(RL_ECONFLICT, "%s is there already: remove it, or this hook, first", chained_path);
	if (rename(path, chained_path) < 0)
		return error_set(RL_EIO, "cannot move %s to %s: %s", path, chained_path, strerror(errno));
	*chained = true;
	return 0;
}

int hook_install(struct buf *path, bool *chained, struct repo *repo, const struct hook_options *o)
{
	struct buf chained_path = BUF_INIT, script = BUF_INIT;
	bool mine = false;
	int error;

	*chained = false;
	if ((error = hook_paths(path, &chained_path, repo, o->kind)) < 0 ||
	    (error = hook_script(&script, o)) < 0)
		goto done;
	error = ours(&mine, path->ptr);
	if (error == 0 && !mine)
		error = keep_foreign(chained, path->ptr, chained_path.ptr, o->force);
	else if (error == RL_ENOTFOUND) {
		error_clear();
		error = 0;
	}
	if (error == 0)
		error = buf_write_file(path->ptr, script.ptr, script.len, 0755);
done:
	buf_release(&chained_path);
	buf_release(&script);
	return error;
}

int hook_uninstall(struct buf *path, bool *restored, struct repo *repo, enum hook_kind kind)
{
	struct buf chained_path = BUF_INIT;
	bool mine = false;
	struct stat st;
	int error;

	*restored = false;
	if ((error = hook_paths(path, &chained_path, repo, kind)) < 0 || (error = ours(&mine, path->ptr)) < 0)
		goto done;
	if (!mine) {
		error = error_set(RL_ECONFLICT, "%s is not revline's hook: it is left alone", path->ptr);
		goto done;
	}
	if (unlink(path->ptr) < 0) {
		error = error_set(RL_EIO, "cannot remove %s: %s", path->ptr, strerror(errno));
		goto done;
	}
	if (lstat(chained_path.ptr, &st) == 0) {
		if (rename(chained_path.ptr, path->ptr) < 0)
			error = error_set(RL_EIO, "cannot move %s back: %s", chained_path.ptr, strerror(errno));
		else
			*restored = true;
	}
done:
	buf_release(&chained_path);
	return error;
}
