/* revline: dispatch to the terminal UI or to a command. */
#include "commands.h"
#include "options.h"
#include "request.h"
#include "datadir.h"
#include "term.h"
#include "utf8.h"

#include <stdint.h>

#include <locale.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define UNPAREN(...) __VA_ARGS__

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const struct opt_table *const *tables;
	const char *usage;
	const char *summary;
	const char *description;
};

#define COMMAND_TABLES(name, tables, usage, summary, description) \
	static const struct opt_table *const name##_tables[] = { UNPAREN tables, NULL };
COMMAND_LIST(COMMAND_TABLES)
#undef COMMAND_TABLES

static const struct command commands[] = {
#define COMMAND_ENTRY(name, tables, usage, summary, description) \
	{ #name, cmd_##name, name##_tables, usage, summary, description },
	COMMAND_LIST(COMMAND_ENTRY)
#undef COMMAND_ENTRY
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

const struct opt_table *const tui_tables[] = { &target_options, &tui_options, &global_options, NULL };

/* Command names are C identifiers in the table: detect_fixes is typed detect-fixes. */
static bool name_is(const char *table_name, const char *typed)
{
	for (; *table_name && *typed; table_name++, typed++)
		if (*table_name != *typed && !(*table_name == '_' && *typed == '-'))
			return false;
	return !*table_name && !*typed;
}

static const struct command *command_find(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (name_is(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* "'chek' is not a revline command; did you mean check?" when one is close. */
static void unknown_command(const char *name)
{
	size_t i, d, best = SIZE_MAX, len = strlen(name);
	const char *guess = NULL;
	char shown[32];

	for (i = 0; i < NCOMMANDS; i++)
		if ((d = text_distance(name, len, commands[i].name)) < best) {
			best = d;
			guess = commands[i].name;
		}
	if (!guess || best > (len > 4 ? 2u : 1u)) {
		cli_error("'%s' is not a revline command (see 'revline --help')", name);
		return;
	}
	snprintf(shown, sizeof(shown), "%s", guess);
	for (i = 0; shown[i]; i++)
		shown[i] = shown[i] == '_' ? '-' : shown[i];
	cli_error("'%s' is not a revline command; did you mean %s? (see 'revline --help')", name, shown);
}

const struct opt_table *const *command_options(const char *name)
{
	const struct command *cmd = name ? command_find(name) : NULL;

	return cmd ? cmd->tables : tui_tables;
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

static void overview(void)
{
	size_t i;

	printf("usage: revline [TARGET] [--staged | --base REF] [--untracked]\n"
	       "       revline COMMAND [OPTIONS]\n\n"
	       "revline reviews the local diff of a git repository before you push.\n"
	       "Without a command it opens the terminal UI on the diff.\n\n"
	       "TARGET is what to review; by default the merge base with the upstream\n"
	       "branch (or HEAD) against the working tree, index included:\n"
	       "  A..B                       the tree of A against the tree of B\n"
	       "  A...B                      the merge base of A and B against B\n");
	opt_print_help(tui_tables);
	printf("\nCommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
	{
		char name[32];
		size_t k;

		snprintf(name, sizeof(name), "%s", commands[i].name);
		for (k = 0; name[k]; k++)
			name[k] = name[k] == '_' ? '-' : name[k];
		printf("  %-13s %s\n", name, commands[i].summary);
	}
	printf("\nSee 'revline help COMMAND' for one command, 'revline help keys' for the keys\n"
	       "of the terminal UI, and the manual: ");
	man_line();
}

int help_show(const char *name)
{
	const struct command *cmd;

	if (!name) {
		overview();
		return 0;
	}
	if (!(cmd = command_find(name))) {
		unknown_command(name);
		return 2;
	}
	printf("usage: %s\n\n%s\n%s", cmd->usage, cmd->summary, cmd->description);
	printf("\nOptions:\n");
	opt_print_help(cmd->tables);
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

int cmd_help(int argc, char **argv)
{
	if (argc > 2) {
		cli_error("help takes one command name");
		return 2;
	}
	if (argc == 2 && !strcmp(argv[1], "keys"))
		return help_keys();
	return help_show(argc == 2 ? argv[1] : NULL);
}

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
		return help_show(NULL);
	if (argc >= 2 && argv[1][0] != '-' && !strstr(argv[1], "..")) {
		if (!(cmd = command_find(argv[1]))) {
			unknown_command(argv[1]);
			return 2;
		}
		trust_note_before(cmd->name);
		return cmd->run(argc - 1, argv + 1);
	}
	/* The terminal UI says it in its status bar. */
	return cmd_tui(argc, argv);
}
