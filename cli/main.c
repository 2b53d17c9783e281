/* revline: dispatch to the terminal UI or to a command. */
#include "commands.h"

#include <locale.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	const struct command *cmd;

	setlocale(LC_ALL, "");
	/*
	 * A write past the file size limit (ulimit -f) fails with EFBIG, said
	 * like a full disk, instead of killing revline with what it had.
	 */
	signal(SIGXFSZ, SIG_IGN);
	if (argc >= 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		printf("revline %s\n", REVLINE_VERSION);
		return 0;
	}
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return help_overview();
	if (argc >= 2 && argv[1][0] != '-' && !strstr(argv[1], "..")) {
		if (!(cmd = command_find(argv[1])))
			return 2;
		trust_note_before(cmd->help->name);
		return cmd->run(argc - 1, argv + 1);
	}
	/* The terminal UI says it in its status bar. */
	return cmd_tui(argc, argv);
}
