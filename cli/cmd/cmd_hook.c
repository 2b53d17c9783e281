/* revline hook install|uninstall: revline as a git pre-push or pre-commit hook. */
#include "commands.h"
#include "hook.h"
#include "severity.h"
#include "status.h"
#include "term.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const struct command_help hook_help = {
	"hook",
	"revline hook install [--pre-push | --pre-commit] [--fail-on SEVERITY] [--force] [--print]\n"
	"       revline hook uninstall [--pre-push | --pre-commit]",
	"run revline from git: review what is pushed, or what is committed",
	"install writes a pre-push hook (the default), which reviews each pushed\n"
	"ref against what the remote has of it, or a pre-commit hook, which reviews\n"
	"the index; either refuses on a finding at --fail-on (default major) or\n"
	"worse, whatever else failed, and on a review that did not complete (no\n"
	"LLM, no network, a rule that failed) unless revline.allowPartial is\n"
	"true; results that only could not be stored let git go on. It goes where\n"
	"git runs hooks (core.hooksPath, or .git/hooks), never outside the\n"
	"repository.\n"
	"A hook that is not revline's is left alone; --force keeps it and runs it\n"
	"first. --print prints the hook instead. 'git push --no-verify' (or 'git\n"
	"commit --no-verify') skips it once; uninstall removes it and puts a kept\n"
	"hook back. A re-run on the same change is answered from the cache.\n",
};

/* The running program, so that the hook runs this revline whatever PATH git has. */
static const char *program(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

static int run_install(struct repo *repo, const struct hook_options *o, bool print)
{
	struct buf path = BUF_INIT;
	bool chained = false;
	int rc = 0;

	if (print) {
		if (hook_script(&path, o) < 0)
			rc = 3;
		else
			fputs(path.ptr, stdout);
	} else if (hook_install(&path, &chained, repo, o) < 0) {
		cli_error("%s", error_message());
		rc = error_status() == RL_ECONFLICT || error_status() == RL_ECONFIG ? 1 : 3;
	} else {
		term_printf(stdout, "installed the %s hook: %s\n", hook_name(o->kind), path.ptr);
		if (chained)
			term_printf(stdout, "the hook that was there runs first (%s.revline-chained)\n", path.ptr);
		printf("it refuses on a finding at %s or worse, and on a review that did not complete "
		       "(git config revline.allowPartial true lets that pass); 'git %s --no-verify' skips it once\n",
		       o->fail_on, o->kind == HOOK_PRE_COMMIT ? "commit" : "push");
	}
	buf_release(&path);
	return rc;
}

static int run_uninstall(struct repo *repo, enum hook_kind kind)
{
	struct buf path = BUF_INIT;
	bool restored = false;
	int rc = 0;

	if (hook_uninstall(&path, &restored, repo, kind) < 0) {
		if (error_status() == RL_ENOTFOUND)
			cli_error("there is no %s hook of revline's to remove", hook_name(kind));
		else
			cli_error("%s", error_message());
		rc = 1;
	} else {
		term_printf(stdout, "removed the %s hook: %s\n", hook_name(kind), path.ptr);
		if (restored)
			printf("the hook that was there before is back\n");
	}
	buf_release(&path);
	return rc;
}

/* --fail-on as check takes it: a severity's name or none. */
static bool fail_on_ok(const char *value)
{
	enum severity s;

	if (!strcmp(value, "none") || severity_parse(&s, value))
		return true;
	cli_error("--fail-on takes critical, major, minor, nitpick or none, not '%s'", value);
	return false;
}

int cmd_hook(int argc, char **argv)
{
	struct hook_options o = { HOOK_PRE_PUSH, "major", false, NULL };
	char exe[PATH_MAX];
	bool print = false;
	int kind = HOOK_PRE_PUSH, n, rc;
	struct repo *repo = NULL;
	const struct option options[] = {
		OPT_SET_INT(0, "pre-push", &kind, HOOK_PRE_PUSH, "the pre-push hook: review what is pushed (default)"),
		OPT_SET_INT(0, "pre-commit", &kind, HOOK_PRE_COMMIT, "the pre-commit hook: review the index"),
		OPT_STRING(0, "fail-on", &o.fail_on, "SEVERITY", "refuse on a finding this severe or more (default major)"),
		OPT_BOOL(0, "force", &o.force, "keep a hook that is not revline's and run it first"),
		OPT_BOOL(0, "print", &print, "print the hook instead of installing it"),
		OPT_END(),
	};

	if ((n = parse_options(argc, argv, options, &hook_help)) < 0)
		return parse_options_exit(n);
	if (!parse_options_at_most(n, argv, 1, &hook_help))
		return 2;
	if (!n || (strcmp(argv[0], "install") && strcmp(argv[0], "uninstall"))) {
		cli_error("say what to do: revline hook install, or revline hook uninstall");
		return 2;
	}
	if (!fail_on_ok(o.fail_on))
		return 2;
	o.kind = (enum hook_kind)kind;
	o.program = program(exe, sizeof(exe));
	if (!print && repo_open(&repo, NULL) < 0) {
		cli_error("%s", error_message());
		return 2;
	}
	rc = !strcmp(argv[0], "install") ? run_install(repo, &o, print) : run_uninstall(repo, o.kind);
	repo_free(repo);
	return rc;
}
