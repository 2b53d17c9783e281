/* revline [TARGET]: open the terminal UI on the diff. */
#include "commands.h"
#include "status.h"
#include "tui.h"

int cmd_tui(int argc, char **argv)
{
	struct opt_parser p = { argc, argv, 1, false, tui_tables };
	struct target_spec spec = { 0 };
	struct target target = { 0 };
	struct tui_options options = { 0 };
	struct repo *repo = NULL;
	struct diff *diff = NULL;
	const char *value;
	int id, rc;

	while ((id = opt_next(&p, &value)) != OPT_END) {
		if (id < 0)
			return 2;
		if (id == OPT_HELP)
			return help_show(NULL);
		if (id == OPT_TUI_CHECK) {
			options.check = true;
			continue;
		}
		if (!target_option(&spec, id, value)) {
			cli_error("'%s' is not a revline command or a range (see 'revline --help')", value);
			return 2;
		}
	}
	if ((rc = cli_open(&repo, &target, &spec)) != 0)
		return rc;
	/* The renames are paired while the files are on screen (tui.c). */
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
