/* The command table: finding a command by the name typed, and `revline help`. */
#include "commands.h"
#include "datadir.h"
#include "request.h"
#include "term.h"
#include "utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const struct command commands[] = {
#define COMMAND_ENTRY(name) { #name, cmd_##name, &name##_help },
	COMMAND_LIST(COMMAND_ENTRY)
#undef COMMAND_ENTRY
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/*
 * "'chek' is not a revline command; did you mean check?" when one is close;
 * a word that names a revision gets the hint to compare it instead.
 */
static void unknown_command(const char *name)
{
	struct buf hint = BUF_INIT;
	struct text_guess guess;
	size_t i;

	text_guess_init(&guess, name, strlen(name));
	for (i = 0; i < NCOMMANDS; i++)
		text_guess_try(&guess, commands[i].help->name, i);
	if (cli_revision_hint(&hint, name, false))
		cli_error("'%s' is not a revline command: %s", name, hint.ptr);
	else if (text_guess_result(&guess))
		cli_error("'%s' is not a revline command; did you mean %s? (see 'revline --help')", name,
			  text_guess_result(&guess));
	else
		cli_error("'%s' is not a revline command (see 'revline --help')", name);
	buf_release(&hint);
}

const struct command *command_find(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].help->name, name))
			return &commands[i];
	unknown_command(name);
	return NULL;
}

const struct command *command_at(size_t index)
{
	return index < NCOMMANDS ? &commands[index] : NULL;
}

/* Where the manual is: 'man revline' when man finds the installed one, else its path. */
static void man_line(void)
{
	struct buf path = BUF_INIT;
	bool installed;

	if (datadir_man(&path, &installed) < 0)
		printf("'man revline' (it is share/man/revline.1 in the sources).\n");
	else if (installed)
		printf("'man revline'.\n");
	else
		term_printf(stdout, "'man %s'.\n", path.ptr);
	buf_release(&path);
}

int help_overview(void)
{
	char *argv[] = { (char *)"revline", (char *)"--help", NULL };
	size_t i;

	cmd_tui(2, argv);
	printf("\nCommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		printf("  %-13s %s\n", commands[i].help->name, commands[i].help->summary);
	printf("\nSee 'revline help COMMAND' for one command, 'revline help keys' for the keys\n"
	       "of the terminal UI, and the manual: ");
	man_line();
	return 0;
}

/* The terminal UI's keys, from the same table the UI binds and its help shows. */
static int help_keys(void)
{
	const struct request_info *table = NULL;
	const char *group = NULL;
	size_t n, i;

	table = request_table(&n);
	for (i = 0; i < n; i++) {
		struct buf keys = BUF_INIT;

		if (!group || strcmp(group, table[i].group)) {
			printf("%s%s\n", group ? "\n" : "", table[i].group);
			group = table[i].group;
		}
		request_keys_text(&keys, &table[i]);
		printf("  %-14s %s\n", keys.ptr, table[i].help);
		buf_release(&keys);
	}
	return 0;
}

const struct command_help help_help = {
	"help",
	"revline help [COMMAND | keys]",
	"show help for revline or for one command",
	"With a command name, shows that command's usage and options; with keys,\n"
	"the keys of the terminal UI.\n",
};

/* revline help COMMAND is revline COMMAND --help: the command's own table says its options. */
int cmd_help(int argc, char **argv)
{
	static const struct option options[] = { OPT_END() };
	const struct command *cmd;
	char *help_argv[3];
	int n = parse_options(argc, argv, options, &help_help);

	if (n < 0)
		return parse_options_exit(n);
	if (!parse_options_at_most(n, argv, 1, &help_help))
		return 2;
	if (!n)
		return help_overview();
	if (!strcmp(argv[0], "keys"))
		return help_keys();
	if (!(cmd = command_find(argv[0])))
		return 2;
	help_argv[0] = argv[0];
	help_argv[1] = (char *)"--help";
	help_argv[2] = NULL;
	return cmd->run(2, help_argv);
}
