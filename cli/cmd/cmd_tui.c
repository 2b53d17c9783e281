/* revline [TARGET]: open the terminal UI on the diff. */
#include "commands.h"
#include "status.h"
#include "tui.h"

const struct command_help tui_help = {
	"revline",
	"revline [TARGET] [--staged | --base REF] [--untracked] [--check]\n"
	"       revline COMMAND [OPTIONS]",
	"revline reviews the local diff of a git repository before you push.",
	"Without a command it opens the terminal UI on the diff.\n\n"
	"TARGET is what to review; by default the merge base with the upstream\n"
	"branch (or HEAD) against the working tree, index included:\n"
	"  A..B                       the tree of A against the tree of B\n"
	"  A...B                      the merge base of A and B against B\n",
};

int cmd_tui(int argc, char **argv)
{
	struct target_spec spec = { 0 };
	struct target target = { 0 };
	struct tui_options options = { 0 };
	const struct option table[] = {
		OPT_TARGET(&spec),
		OPT_BOOL(0, "check", &options.check, "start a check of the diff as soon as the UI opens"),
		OPT_END(),
	};
	struct repo *repo = NULL;
	struct diff *diff = NULL;
	int n, rc;

	if ((n = parse_options(argc, argv, table, &tui_help)) < 0)
		return parse_options_exit(n);
	if (!cli_targets(&spec, n, argv, &tui_help))
		return 2;
	if ((rc = cli_open(&repo, &target, &spec)) != 0)
		return rc;
	/* The renames are paired while the files are on screen (ui/background.c). */
	if (repo_diff_start(&diff, repo, &target) < 0) {
		cli_error("%s", error_message());
		rc = 3;
	} else {
		rc = tui_run(repo, &target, diff, &options);
	}
	/* Fix detection goes on without the UI, as after 'revline check'. */
	if (options.fixes_left)
		detect_fixes_spawn(options.fixes_left);
	diff_free(diff);
	target_release(&target);
	repo_free(repo);
	return rc;
}
