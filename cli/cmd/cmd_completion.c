/*
 * revline completion bash|zsh|fish: shell completions made from the same
 * command and option tables as --help (each command's table is read by
 * running it with --help while parse_options hands tables over instead of
 * printing them, as git's completion helper does).
 */
#include "array.h"
#include "commands.h"
#include "complete_ids.h"
#include "severity.h"
#include "status.h"
#include "cli.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct command_help completion_help = {
	"completion",
	"revline completion (bash | zsh | fish)",
	"print the shell's completion script",
	"Prints a completion script for the shell, made from the commands' option\n"
	"tables: commands, options, their values, rule ids (from 'revline rules'),\n"
	"git refs, and the ids of this repository's findings, signals and fixes\n"
	"(from its database; zsh and fish show what each is) where an argument\n"
	"takes one. Load it in the shell's startup file, e.g. for bash: eval\n"
	"\"$(revline completion bash)\"; zsh: put 'revline completion zsh' in a\n"
	"file _revline on $fpath; fish: revline completion fish >\n"
	"~/.config/fish/completions/revline.fish. 'cmake --install' installs all\n"
	"three in the usual places.\n",
};

/* One command's name, summary, options ("" for the terminal UI) and the ids its argument is. */
struct comp_command {
	const char *name;
	const char *summary;
	const struct option *options;
	enum option_ids argument;
};

struct comp_table {
	struct comp_command *commands;
	size_t count, alloc;
	const char *collecting;         /* the command whose --help runs now */
	int error;
};

/* The command line words that name what a value is. */
enum value_kind { VALUE_NONE, VALUE_WORDS, VALUE_RULE, VALUE_REF, VALUE_DIR, VALUE_FILE, VALUE_IDS, VALUE_ANY };

/* --fail-on SEVERITY takes a severity's name or none. */
static const char *const severities[] = {
#define SEVERITY_WORD(id, name, sarif) name,
	SEVERITY_LIST(SEVERITY_WORD)
#undef SEVERITY_WORD
	"none", NULL
};

static const char *const *choices_of(const struct option *o)
{
	if (o->choices)
		return o->choices;
	return o->argh && !strcmp(o->argh, "SEVERITY") ? severities : NULL;
}

static enum value_kind value_kind(const struct option *o)
{
	if (!o->argh)
		return VALUE_NONE;
	if (choices_of(o))
		return VALUE_WORDS;
	if (o->ids != IDS_NONE)
		return VALUE_IDS;
	if (!strcmp(o->long_name, "rule"))
		return VALUE_RULE;
	if (!strcmp(o->argh, "REF"))
		return VALUE_REF;
	if (!strcmp(o->argh, "DIR"))
		return VALUE_DIR;
	if (!strcmp(o->argh, "FILE") || !strcmp(o->argh, "PATH"))
		return VALUE_FILE;
	return VALUE_ANY;
}

/*
 * The tables live in static storage or in the command's frame: copied
 * before it returns, with the common options after the command's own.
 */
static void collect(void *arg, const struct option *options, const struct command_help *help)
{
	struct comp_table *t = arg;
	struct option *copy;
	size_t n = 0, ncommon = 3;   /* parse_options_common with its end */

	while (options[n].type != OPTION_END)
		n++;
	if (t->error || ARRAY_GROW(t->commands, t->alloc, t->count + 1) < 0 ||
	    !(copy = calloc(n + ncommon, sizeof(*copy)))) {
		t->error = RL_ENOMEM;
		return;
	}
	memcpy(copy, options, n * sizeof(*copy));
	memcpy(copy + n, parse_options_common, ncommon * sizeof(*copy));
	t->commands[t->count++] =
		(struct comp_command){ t->collecting, help->summary, copy, parse_options_argument_ids(help) };
}

static void table_free(struct comp_table *t)
{
	size_t i;

	for (i = 0; i < t->count; i++)
		free((void *)t->commands[i].options);
	free(t->commands);
}

/* Run each command with --help: its table comes to collect(). */
static int table_load(struct comp_table *t)
{
	const struct command *cmd;
	char *argv[3] = { NULL, (char *)"--help", NULL };
	size_t i;

	parse_options_on_help(collect, t);
	t->collecting = "";
	argv[0] = (char *)"revline";
	cmd_tui(2, argv);
	for (i = 0; (cmd = command_at(i)); i++) {
		t->collecting = cmd->help->name;
		argv[0] = (char *)cmd->help->name;
		cmd->run(2, argv);
	}
	parse_options_on_help(NULL, NULL);
	return t->error;
}

/* What completes a value of each kind, in each shell; ids: a format of the kind's --list word. */
struct shell_values {
	const char *rule, *ref, *dir, *file, *any, *ids;
};

/* --- bash --------------------------------------------------------------- */

static const char bash_head[] =
	"# bash completion for revline, made by 'revline completion bash' from its option tables.\n"
	"_revline_rules() {\n"
	"\trevline rules 2>/dev/null | awk 'NR > 1 && !NF { exit } NR > 1 && $1 ~ /^[A-Za-z0-9._-]+$/ { print $1 }'\n"
	"}\n"
	"_revline_refs() {\n"
	"\tgit for-each-ref --format='%(refname:short)' refs/heads refs/tags refs/remotes 2>/dev/null |\n"
	"\t\tgrep -E '^[A-Za-z0-9._/@+-]+$'\n"
	"}\n"
	"# A target: the refs for the word, or after A.. (A...) the refs for B, with A.. before them.\n"
	"_revline_targets() {\n"
	"\tlocal pre=\n"
	"\t[[ $cur == *..* ]] && pre=${cur%\"${cur##*..}\"}\n"
	"\tcompgen -P \"$pre\" -W \"$(_revline_refs)\" -- \"${cur#\"$pre\"}\"\n"
	"}\n"
	"# The ids of this repository's findings, signals, fixes or applied fixes, newest first\n"
	"# (kept so: bash would sort them as words).\n"
	"_revline_ids() {\n"
	"\trevline completion --list \"$1\" 2>/dev/null | cut -f1\n"
	"}\n"
	"_revline() {\n"
	"\tlocal words=(\"${COMP_WORDS[@]}\") cword=$COMP_CWORD\n"
	"\t_revline_words\n"
	"}\n"
	"# git revline: the same, after git's own word.\n"
	"_git_revline() {\n"
	"\tlocal words=(revline \"${COMP_WORDS[@]:2}\") cword=$((COMP_CWORD - 1))\n"
	"\t_revline_words\n"
	"}\n"
	"_revline_words() {\n"
	"\tlocal cur=${words[cword]} prev=${words[cword - 1]} cmd= i\n"
	"\tif [[ $cur == = ]]; then cur=; elif [[ $prev == = ]]; then prev=${words[cword - 2]}; fi\n"
	"\tif [[ $cur == --*=* ]]; then prev=${cur%%=*}; cur=${cur#*=}; fi\n"
	"\tfor ((i = 1; i < cword; i++)); do\n"
	"\t\tcase ${words[i]} in\n";

static const struct shell_values bash_values = {
	"COMPREPLY=($(compgen -W \"$(_revline_rules)\" -- \"$cur\"))",
	"COMPREPLY=($(compgen -W \"$(_revline_refs)\" -- \"$cur\"))",
	"COMPREPLY=($(compgen -d -- \"$cur\"))",
	"COMPREPLY=($(compgen -f -- \"$cur\"))",
	"COMPREPLY=()",
	"COMPREPLY=($(compgen -W \"$(_revline_ids %s)\" -- \"$cur\")); compopt -o nosort 2>/dev/null",
};

static const char *kind_text(const struct shell_values *v, enum value_kind kind)
{
	switch (kind) {
	case VALUE_RULE: return v->rule;
	case VALUE_REF: return v->ref;
	case VALUE_DIR: return v->dir;
	case VALUE_FILE: return v->file;
	default: return v->any;
	}
}

/* What completes ids of this kind (the format filled with its --list word). */
static void ids_print(const struct shell_values *v, enum option_ids ids)
{
	printf(v->ids, complete_ids_name(ids));
}

/* What completes the option's value (not for VALUE_WORDS). */
static void value_print(const struct shell_values *v, const struct option *o)
{
	enum value_kind kind = value_kind(o);

	if (kind == VALUE_IDS)
		ids_print(v, o->ids);
	else
		fputs(kind_text(v, kind), stdout);
}

/* The words a command takes as its first argument (NULL: none of its own). */
static const char *first_words(const struct comp_command *c)
{
	static const struct { const char *command, *words; } table[] = {
		{ "hook", "install uninstall" },
		{ "completion", "bash zsh fish" },
	};
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcmp(c->name, table[i].command))
			return table[i].words;
	return NULL;
}

/* Whether the command takes a TARGET (a revision range) as its argument. */
static bool takes_target(const struct comp_command *c)
{
	const struct option *o;

	for (o = c->options; o->type != OPTION_END; o++)
		if (!strcmp(o->long_name, "staged"))
			return true;
	return false;
}

/* Options whose value is the next word: that word is no command. */
/* Whether an earlier command's table has an option of this name that takes a value. */
static bool value_seen(const struct comp_table *t, size_t upto, const struct option *last)
{
	const struct option *o;
	size_t i;

	for (i = 0; i <= upto; i++)
		for (o = t->commands[i].options; o->type != OPTION_END && o != last; o++)
			if (o->argh && !strcmp(o->long_name, last->long_name))
				return true;
	return false;
}

static void bash_skip_values(const struct comp_table *t)
{
	const struct option *o;
	size_t i;
	bool any = false;

	for (i = 0; i < t->count; i++)
		for (o = t->commands[i].options; o->type != OPTION_END; o++)
			if (o->argh && !value_seen(t, i, o)) {
				printf("%s--%s", any ? "|" : "\t\t", o->long_name);
				if (o->short_name)
					printf("|-%c", o->short_name);
				any = true;
			}
	printf(") ((i++)) ;;\n\t\t-*) ;;\n\t\t*) cmd=${words[i]}; break ;;\n\t\tesac\n\tdone\n\tcase $cmd in\n\t");
	for (any = false, i = 0; i < t->count; i++)
		if (*t->commands[i].name) {
			printf("%s%s", any ? "|" : "", t->commands[i].name);
			any = true;
		}
	printf(") ;;\n\t*) cmd= ;;\n\tesac\n");
}

static void bash_value_cases(const struct comp_table *t)
{
	const struct option *o;
	size_t i, k;

	printf("\tcase \"$cmd $prev\" in\n");
	for (i = 0; i < t->count; i++)
		for (o = t->commands[i].options; o->type != OPTION_END; o++) {
			enum value_kind kind = value_kind(o);

			if (kind == VALUE_NONE)
				continue;
			printf("\t\"%s --%s\"", t->commands[i].name, o->long_name);
			if (o->short_name)
				printf(" | \"%s -%c\"", t->commands[i].name, o->short_name);
			if (kind != VALUE_WORDS) {
				printf(")\n\t\t");
				value_print(&bash_values, o);
				printf("\n\t\treturn ;;\n");
				continue;
			}
			printf(")\n\t\tCOMPREPLY=($(compgen -W \"");
			for (k = 0; choices_of(o)[k]; k++)
				printf("%s%s", k ? " " : "", choices_of(o)[k]);
			printf("\" -- \"$cur\"))\n\t\treturn ;;\n");
		}
	printf("\tesac\n");
}

/* A command's options as words for compgen -W ("--format=" for one that takes a value). */
static void bash_option_words(const struct comp_command *c)
{
	const struct option *o;

	for (o = c->options; o->type != OPTION_END; o++)
		printf("%s--%s%s", o == c->options ? "" : " ", o->long_name, o->argh ? "=" : "");
}

/*
 * `revline WORD`: its options after a dash; else a command, and the refs
 * (a target for the terminal UI) only for a word no command begins, so that
 * `revline <Tab>` offers the commands and not every tag of the repository.
 */
static void bash_first_word(const struct comp_table *t, const struct comp_command *c)
{
	const char *sep = "";
	size_t k;

	printf("\t\"\")\n\t\tif [[ $cur == -* ]]; then\n\t\t\tCOMPREPLY=($(compgen -W \"");
	bash_option_words(c);
	printf("\" -- \"$cur\"))\n\t\telse\n\t\t\tCOMPREPLY=($(compgen -W \"");
	for (k = 0; k < t->count; k++)
		if (*t->commands[k].name) {
			printf("%s%s", sep, t->commands[k].name);
			sep = " ";
		}
	printf("\" -- \"$cur\"))\n\t\t\t[[ -z $cur || ${#COMPREPLY[@]} -gt 0 ]] || COMPREPLY=($(_revline_targets))\n"
	       "\t\tfi\n\t\t[[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null\n\t\t;;\n");
}

static void bash_command_cases(const struct comp_table *t)
{
	size_t i, k;

	printf("\tcase $cmd in\n");
	for (i = 0; i < t->count; i++) {
		const struct comp_command *c = &t->commands[i];

		if (!*c->name) {
			bash_first_word(t, c);
			continue;
		}
		printf("\t\"%s\")\n\t\tCOMPREPLY=($(compgen -W \"", c->name);
		bash_option_words(c);
		if (!strcmp(c->name, "help"))
			for (k = 0; k < t->count; k++)
				if (*t->commands[k].name)
					printf(" %s", t->commands[k].name);
		if (!strcmp(c->name, "help"))
			printf(" keys");
		if (first_words(c))
			printf(" %s", first_words(c));
		printf("\" -- \"$cur\"))\n");
		if (takes_target(c))
			printf("\t\t[[ $cur == -* ]] || COMPREPLY+=($(_revline_targets))\n");
		/* Newest first, as --list gives them: not sorted as words. */
		if (c->argument != IDS_NONE)
			printf("\t\tif [[ $cur != -* ]]; then\n\t\t\tCOMPREPLY+=($(compgen -W \"$(_revline_ids %s)\" -- \"$cur\"))\n"
			       "\t\t\tcompopt -o nosort 2>/dev/null\n\t\tfi\n", complete_ids_name(c->argument));
		printf("\t\t[[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null\n\t\t;;\n");
	}
	printf("\tesac\n}\ncomplete -F _revline revline git-revline\n");
}

static void bash_print(const struct comp_table *t)
{
	fputs(bash_head, stdout);
	bash_skip_values(t);
	bash_value_cases(t);
	bash_command_cases(t);
}

/* --- zsh ---------------------------------------------------------------- */

static const char zsh_head[] =
	"#compdef revline git-revline\n"
	"# zsh completion for revline, made by 'revline completion zsh' from its option tables.\n"
	"_revline_rules() {\n"
	"\tlocal -a ids\n"
	"\tids=(${(f)\"$(revline rules 2>/dev/null | awk 'NR > 1 && !NF { exit } NR > 1 && $1 ~ /^[A-Za-z0-9._-]+$/ { print $1 }')\"})\n"
	"\t_describe -t rules 'rule' ids\n"
	"}\n"
	"_revline_refs() {\n"
	"\tlocal -a refs\n"
	"\trefs=(${(f)\"$(git for-each-ref --format='%(refname:short)' refs/heads refs/tags refs/remotes 2>/dev/null)\"})\n"
	"\t_describe -t refs 'ref' refs\n"
	"}\n"
	"# A target: a ref, or after A.. (A...) a ref for B.\n"
	"_revline_targets() {\n"
	"\tcompset -P '*..'\n"
	"\t_revline_refs\n"
	"}\n"
	"# The ids of this repository's findings, signals, fixes or applied fixes, with what each is.\n"
	"# The kind is the last argument: _arguments puts its own options (-J -default-) before it.\n"
	"# Newest first, as --list gives them (-V: not sorted).\n"
	"_revline_ids() {\n"
	"\tlocal kind=${@[-1]}\n"
	"\tlocal -a ids\n"
	"\tids=(${(f)\"$(revline completion --list $kind 2>/dev/null)\"})\n"
	"\tids=(\"${(@)ids/$'\\t'/:}\")\n"
	"\t_describe -V -t $kind $kind ids\n"
	"}\n";

static const struct shell_values zsh_values = {
	"_revline_rules", "_revline_refs", "_files -/", "_files", " ", "_revline_ids %s",
};

/* Text inside a single-quoted _arguments spec: no quote, no bracket, no unescaped colon. */
static void zsh_text(const char *s)
{
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", stdout);
		else if (*s == '[' || *s == ']')
			putchar(*s == '[' ? '(' : ')');
		else if (*s == ':')
			fputs("\\:", stdout);
		else
			putchar(*s);
	}
}

static void zsh_spec(const struct option *o, bool short_form)
{
	enum value_kind kind = value_kind(o);
	size_t k;

	printf(" \\\n\t\t'%s", o->type == OPTION_STRING_LIST ? "*" : "");
	if (short_form)
		printf("-%c", o->short_name);
	else
		printf("--%s%s", o->long_name, o->argh ? "=" : "");
	putchar('[');
	zsh_text(o->help);
	putchar(']');
	if (kind != VALUE_NONE) {
		printf(":%s:", o->argh);
		if (kind == VALUE_WORDS) {
			putchar('(');
			for (k = 0; choices_of(o)[k]; k++)
				printf("%s%s", k ? " " : "", choices_of(o)[k]);
			putchar(')');
		} else {
			value_print(&zsh_values, o);
		}
	}
	putchar('\'');
}

static void zsh_specs(const struct comp_command *c)
{
	const struct option *o;

	for (o = c->options; o->type != OPTION_END; o++) {
		zsh_spec(o, false);
		if (o->short_name)
			zsh_spec(o, true);
	}
}

static void zsh_print(const struct comp_table *t)
{
	size_t i;

	fputs(zsh_head, stdout);
	printf("_revline_commands() {\n\tlocal -a cmds\n\tcmds=(");
	for (i = 0; i < t->count; i++)
		if (*t->commands[i].name) {
			printf("\n\t\t'%s:", t->commands[i].name);
			zsh_text(t->commands[i].summary ? t->commands[i].summary : "");
			putchar('\'');
		}
	printf("\n\t)\n\t_describe -t commands 'revline command' cmds\n}\n");
	printf("_revline() {\n\tlocal curcontext=$curcontext state line\n\ttypeset -A opt_args\n\t_arguments -C");
	zsh_specs(&t->commands[0]);
	printf(" \\\n\t\t'1: :->first' \\\n\t\t'*:: :->rest' && return\n\tcase $state in\n");
	/* A command first: refs only for a word no command begins (revline feat, revline main..). */
	printf("\tfirst) _revline_commands || { [[ -n $PREFIX ]] && _revline_targets } ;;\n");
	printf("\trest)\n\t\tcase $words[1] in\n");
	for (i = 1; i < t->count; i++) {
		printf("\t\t%s) _arguments", t->commands[i].name);
		zsh_specs(&t->commands[i]);
		if (!strcmp(t->commands[i].name, "help"))
			printf(" \\\n\t\t'1: :_revline_commands'");
		else if (first_words(&t->commands[i]))
			printf(" \\\n\t\t'1: :(%s)'", first_words(&t->commands[i]));
		else if (takes_target(&t->commands[i]))
			printf(" \\\n\t\t'*: :_revline_targets'");
		else if (t->commands[i].argument != IDS_NONE)
			printf(" \\\n\t\t'1: :_revline_ids %s'", complete_ids_name(t->commands[i].argument));
		printf(" ;;\n");
	}
	printf("\t\t*) _arguments");
	zsh_specs(&t->commands[0]);
	printf(" ;;\n\t\tesac ;;\n\tesac\n}\n");
	/* Autoloaded from $fpath it runs; sourced, it registers. */
	printf("if [ \"$funcstack[1]\" = _revline ]; then\n\t_revline \"$@\"\nelse\n"
	       "\tcompdef _revline revline git-revline\nfi\n");
}

/* --- fish --------------------------------------------------------------- */

static const char fish_head[] =
	"# fish completion for revline, made by 'revline completion fish' from its option tables.\n"
	"function __revline_rules\n"
	"\trevline rules 2>/dev/null | awk 'NR > 1 && !NF { exit } NR > 1 && $1 ~ /^[A-Za-z0-9._-]+$/ { print $1 }'\n"
	"end\n"
	"# The refs for a target; after A.. (A...) the refs for B, with A.. before them.\n"
	"function __revline_refs\n"
	"\tset -l pre (string match -r -- '^.*\\.\\.' (commandline -ct) | string replace -a % %%)\n"
	"\tgit for-each-ref --format=\"$pre%(refname:short)\" refs/heads refs/tags refs/remotes 2>/dev/null\n"
	"end\n"
	"# The ids of this repository's findings, signals, fixes or applied fixes, with what each is.\n"
	"function __revline_ids\n"
	"\trevline completion --list $argv[1] 2>/dev/null\n"
	"end\n"
	"complete -c revline -f\n";

static const struct shell_values fish_values = {
	"-x -a '(__revline_rules)'", "-x -a '(__revline_refs)'", "-x -a '(__fish_complete_directories)'",
	"-r -F", "-x", "-x -k -a '(__revline_ids %s)'",
};

/* A single-quoted fish string. */
static void fish_quoted(const char *s)
{
	putchar('\'');
	for (; *s; s++) {
		if (*s == '\'' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('\'');
}

static void fish_condition(const struct comp_command *c)
{
	if (*c->name)
		printf("complete -c revline -n '__fish_seen_subcommand_from %s'", c->name);
	else
		printf("complete -c revline -n __fish_use_subcommand");
}

static void fish_option(const struct comp_command *c, const struct option *o)
{
	enum value_kind kind = value_kind(o);
	size_t k;

	fish_condition(c);
	printf(" -l %s", o->long_name);
	if (o->short_name)
		printf(" -s %c", o->short_name);
	if (kind == VALUE_WORDS) {
		printf(" -x -a '");
		for (k = 0; choices_of(o)[k]; k++)
			printf("%s%s", k ? " " : "", choices_of(o)[k]);
		putchar('\'');
	} else if (kind != VALUE_NONE) {
		putchar(' ');
		value_print(&fish_values, o);
	}
	printf(" -d ");
	fish_quoted(o->help);
	putchar('\n');
}

static void fish_print(const struct comp_table *t)
{
	const struct option *o;
	size_t i;

	fputs(fish_head, stdout);
	/* The terminal UI's target only for a word that no command begins (not every ref at `revline <Tab>`). */
	printf("function __revline_ref_wanted\n\tset -l word (commandline -ct)\n\ttest -n \"$word\"; or return 1\n"
	       "\tstring match -q -- '-*' $word; and return 1\n\tfor c in");
	for (i = 0; i < t->count; i++)
		if (*t->commands[i].name)
			printf(" %s", t->commands[i].name);
	printf("\n\t\tstring match -q -- \"$word*\" $c; and return 1\n\tend\n\treturn 0\nend\n");
	for (i = 0; i < t->count; i++) {
		const struct comp_command *c = &t->commands[i];

		if (*c->name) {
			printf("complete -c revline -n __fish_use_subcommand -a %s -d ", c->name);
			fish_quoted(c->summary ? c->summary : "");
			putchar('\n');
		}
		for (o = c->options; o->type != OPTION_END; o++)
			fish_option(c, o);
		if (takes_target(c) && !*c->name)
			printf("complete -c revline -n '__fish_use_subcommand; and __revline_ref_wanted' -a '(__revline_refs)'\n");
		else if (takes_target(c)) {
			fish_condition(c);
			printf(" -a '(__revline_refs)'\n");
		}
		if (first_words(c)) {
			fish_condition(c);
			printf(" -a '%s'\n", first_words(c));
		}
		if (c->argument != IDS_NONE) {
			fish_condition(c);
			printf(" -k -a '(__revline_ids %s)'\n", complete_ids_name(c->argument));
		}
	}
	printf("complete -c revline -n '__fish_seen_subcommand_from help' -a 'keys' -d 'the keys of the terminal UI'\n");
}

/* --- the command -------------------------------------------------------- */

static const char *const shells[] = { "bash", "zsh", "fish", NULL };

/*
 * The scripts' own call, not in the help (as git's --git-completion-helper):
 * `revline completion --list KIND` prints the ids of KIND, or nothing.
 */
static int list_ids(int argc, char **argv)
{
	enum option_ids ids;

	if (argc == 3 && complete_ids_parse(&ids, argv[2]))
		complete_ids_print(stdout, ids);
	fflush(stdout);
	return 0;
}

int cmd_completion(int argc, char **argv)
{
	static void (*const print[])(const struct comp_table *) = { bash_print, zsh_print, fish_print };
	struct comp_table table = { NULL, 0, 0, NULL, 0 };
	int shell = -1, n;
	const struct option options[] = { OPT_END() };

	if (argc >= 2 && !strcmp(argv[1], "--list"))
		return list_ids(argc, argv);
	if ((n = parse_options(argc, argv, options, &completion_help)) < 0)
		return parse_options_exit(n);
	if (!parse_options_at_most(n, argv, 1, &completion_help))
		return 2;
	for (shell = 0; n && shells[shell] && strcmp(argv[0], shells[shell]); shell++)
		;
	if (!n || !shells[shell]) {
		cli_error("%s: say which shell: revline completion (bash | zsh | fish)",
			  n ? "unknown shell" : "no shell");
		return 2;
	}
	if (table_load(&table) < 0 || table.count < 2) {
		cli_error("the option tables could not be read: %s", error_message());
		table_free(&table);
		return 3;
	}
	print[shell](&table);
	table_free(&table);
	return fflush(stdout) ? 3 : 0;
}
