#include "parse_options.h"
#include "array.h"
#include "cli.h"
#include "utf8.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct option *find_long(const struct option *options, const char *name, size_t len)
{
	for (; options->type != OPTION_END; options++)
		if (strlen(options->long_name) == len && !strncmp(options->long_name, name, len))
			return options;
	return NULL;
}

static const struct option *find_short(const struct option *options, char letter)
{
	for (; options->type != OPTION_END; options++)
		if (options->short_name == letter)
			return options;
	return NULL;
}

static int string_list_add(struct string_list *list, const char *value)
{
	if (ARRAY_GROW(list->items, list->alloc, list->count + 1) < 0) {
		cli_error("out of memory");
		return PARSE_OPT_ERROR;
	}
	list->items[list->count++] = value;
	return 0;
}

static int integer_set(const struct option *o, const char *value)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(value, &end, 10);
	if (errno || *end || end == value || n < o->min || n > o->max) {
		cli_error("--%s needs a number from %ld to %ld, not '%s'", o->long_name, o->min, o->max, value);
		return PARSE_OPT_ERROR;
	}
	*(int *)o->value = (int)n;
	return 0;
}

static int seconds_set(const struct option *o, const char *value)
{
	char *end;
	double s = strtod(value, &end);

	if (*end || end == value || !(s > 0) || s > 86400) {
		cli_error("--%s needs seconds (more than 0), not '%s'", o->long_name, value);
		return PARSE_OPT_ERROR;
	}
	*(double *)o->value = s;
	return 0;
}

static int choice_set(const struct option *o, const char *value)
{
	char names[256] = "", what[32], guess[64] = "";
	struct text_guess g;
	size_t i, len = 0;

	text_guess_init(&g, value, strlen(value));
	for (i = 0; o->choices[i]; i++) {
		if (!strcmp(value, o->choices[i])) {
			*(int *)o->value = (int)i;
			return 0;
		}
		text_guess_try(&g, o->choices[i], i);
	}
	if (text_guess_result(&g))
		snprintf(guess, sizeof(guess), "; did you mean %s?", text_guess_result(&g));
	for (i = 0; o->choices[i] && len < sizeof(names); i++)
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", i ? (o->choices[i + 1] ? ", " : " or ") : "",
					o->choices[i]);
	for (i = 0; o->argh[i] && i + 1 < sizeof(what); i++)
		what[i] = (char)(o->argh[i] >= 'A' && o->argh[i] <= 'Z' ? o->argh[i] - 'A' + 'a' : o->argh[i]);
	what[i] = '\0';
	cli_error("unknown %s '%s'%s (--%s takes %s)", what, value, guess, o->long_name, names);
	return PARSE_OPT_ERROR;
}

/* The option's value set, or its flag. */
static int option_set(const struct option *o, const char *value)
{
	switch (o->type) {
	case OPTION_BOOL: *(bool *)o->value = true; return 0;
	case OPTION_SET_INT: *(int *)o->value = (int)o->bits; return 0;
	case OPTION_STRING: *(const char **)o->value = value; return 0;
	case OPTION_STRING_LIST: return string_list_add(o->value, value);
	case OPTION_INTEGER: return integer_set(o, value);
	case OPTION_SECONDS: return seconds_set(o, value);
	case OPTION_CHOICE: return choice_set(o, value);
	case OPTION_END: break;
	}
	return PARSE_OPT_ERROR;
}

/* An option found: its value inline ("--x=v"), next in argv, or none. */
static int option_take(const struct option *o, const char *inline_value, int argc, char **argv, int *i)
{
	if (!o->argh) {
		if (inline_value) {
			cli_error("option '--%s' takes no value", o->long_name);
			return PARSE_OPT_ERROR;
		}
		return option_set(o, NULL);
	}
	if (inline_value)
		return option_set(o, inline_value);
	if (*i + 1 >= argc) {
		cli_error("option '--%s' needs a value (%s)", o->long_name, o->argh);
		return PARSE_OPT_ERROR;
	}
	return option_set(o, argv[++*i]);
}

const struct option parse_options_common[] = {
	OPT_BOOL('h', "help", NULL, "show help and exit"),
	OPT_BOOL('V', "version", NULL, "show the version and exit"),
	OPT_END(),
};

static parse_options_hook help_hook;
static void *help_hook_arg;

void parse_options_on_help(parse_options_hook hook, void *arg)
{
	help_hook = hook;
	help_hook_arg = arg;
}

/* Where a command's options are told: 'revline --help' for the terminal UI's. */
static void help_ref(char *out, size_t size, const struct command_help *help)
{
	if (!strcmp(help->name, "revline"))
		snprintf(out, size, "see 'revline --help'");
	else
		snprintf(out, size, "see 'revline help %s'", help->name);
}

/* "unknown option '--fail-of'; did you mean --fail-on?" when a long name is close. */
static void unknown_long(const struct option *options, const struct command_help *help, const char *arg,
			 size_t len)
{
	const struct option *o;
	struct text_guess guess;
	char see[64];

	help_ref(see, sizeof(see), help);
	text_guess_init(&guess, arg + 2, len - 2);
	for (o = options; o->type != OPTION_END; o++)
		text_guess_try(&guess, o->long_name, 0);
	for (o = parse_options_common; o->type != OPTION_END; o++)
		text_guess_try(&guess, o->long_name, 0);
	if (text_guess_result(&guess))
		cli_error("unknown option '%.*s'; did you mean --%s? (%s)", (int)len, arg, text_guess_result(&guess),
			  see);
	else
		cli_error("unknown option '%.*s' (%s)", (int)len, arg, see);
}

/* One argument that starts with a dash: -h, --help, --version, or the table's (*o: which). */
static int option_parse(const struct option **o, const struct option *options, const struct command_help *help,
			int argc, char **argv, int *i)
{
	const char *arg = argv[*i], *eq;
	char see[64];

	if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
		if (help_hook)
			help_hook(help_hook_arg, options, help);
		else
			parse_options_help(options, help);
		return PARSE_OPT_HELP;
	}
	if (!strcmp(arg, "-V") || !strcmp(arg, "--version")) {
		printf("revline %s\n", REVLINE_VERSION);
		return PARSE_OPT_HELP;
	}
	if (arg[1] == '-') {
		eq = strchr(arg + 2, '=');
		if (!(*o = find_long(options, arg + 2, eq ? (size_t)(eq - arg - 2) : strlen(arg + 2)))) {
			unknown_long(options, help, arg, eq ? (size_t)(eq - arg) : strlen(arg));
			return PARSE_OPT_ERROR;
		}
		return option_take(*o, eq ? eq + 1 : NULL, argc, argv, i);
	}
	if (arg[2] || !(*o = find_short(options, arg[1]))) {
		help_ref(see, sizeof(see), help);
		cli_error("unknown option '%s' (%s)", arg, see);
		return PARSE_OPT_ERROR;
	}
	return option_take(*o, NULL, argc, argv, i);
}

/* Whether two options given exclude each other: one group, or two values of one OPT_SET_INT variable. */
static bool options_conflict(const struct option *a, const struct option *b)
{
	if (a == b)
		return false;
	if (a->one_of && a->one_of == b->one_of)
		return true;
	return a->type == OPTION_SET_INT && b->type == OPTION_SET_INT && a->value == b->value &&
	       a->bits != b->bits;
}

/* The options given so far that may exclude others, each once. */
struct options_given {
	const struct option *at[32];
	size_t count;
};

/* An option taken: refused when it excludes one given before. */
static int option_given(struct options_given *given, const struct option *o)
{
	size_t i;

	if (!o->one_of && o->type != OPTION_SET_INT)
		return 0;
	for (i = 0; i < given->count; i++) {
		if (given->at[i] == o)
			return 0;
		if (options_conflict(given->at[i], o)) {
			cli_error("--%s and --%s cannot be used together", given->at[i]->long_name, o->long_name);
			return PARSE_OPT_ERROR;
		}
	}
	if (given->count < sizeof(given->at) / sizeof(given->at[0]))
		given->at[given->count++] = o;
	return 0;
}

int parse_options(int argc, char **argv, const struct option *options, const struct command_help *help)
{
	struct options_given given = { .count = 0 };
	bool only_positional = false;
	const struct option *o;
	int i, n = 0, rc;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (only_positional || arg[0] != '-' || !arg[1]) {
			argv[n++] = argv[i];
			continue;
		}
		if (!strcmp(arg, "--")) {
			only_positional = true;
			continue;
		}
		if ((rc = option_parse(&o, options, help, argc, argv, &i)) < 0 || (rc = option_given(&given, o)) < 0)
			return rc;
	}
	return n;
}

int parse_options_exit(int parsed)
{
	return parsed == PARSE_OPT_HELP ? 0 : 2;
}

bool parse_options_at_most(int count, char **argv, int allowed, const struct command_help *help)
{
	char see[64];

	if (count <= allowed)
		return true;
	help_ref(see, sizeof(see), help);
	cli_error("unexpected argument '%s' (%s)", argv[allowed], see);
	return false;
}

static void option_help(const struct option *o)
{
	char left[64];

	snprintf(left, sizeof(left), "%c%c%s--%s%s%s", o->short_name ? '-' : ' ',
		 o->short_name ? o->short_name : ' ', o->short_name ? ", " : "  ", o->long_name,
		 o->argh ? " " : "", o->argh ? o->argh : "");
	printf("  %-26s %s\n", left, o->help);
}

void parse_options_help(const struct option *options, const struct command_help *help)
{
	const struct option *o;

	printf("usage: %s\n\n", help->usage);
	if (help->summary)
		printf("%s\n", help->summary);
	printf("%s\nOptions:\n", help->description);
	for (o = options; o->type != OPTION_END; o++)
		option_help(o);
	for (o = parse_options_common; o->type != OPTION_END; o++)
		option_help(o);
}

/* The names of ids a usage gives a command's first argument. */
static const struct {
	const char *name;
	enum option_ids ids;
} argument_names[] = {
	{ "FINDING_ID", IDS_FINDING },
	{ "SIGNAL_ID", IDS_SIGNAL },
	{ "FIX_ID", IDS_APPLIED_FIX },
};

/* The word after "revline NAME " on one line of the usage, brackets dropped; its length. */
static size_t first_argument(const char **word, const char *line, const char *name)
{
	size_t n = strlen(name);

	line += strspn(line, " ");
	if (strncmp(line, "revline ", 8) || strncmp(line + 8, name, n) || line[8 + n] != ' ')
		return 0;
	line += 9 + n;
	line += strspn(line, "[(");
	*word = line;
	return strcspn(line, " ]|)\n");
}

enum option_ids parse_options_argument_ids(const struct command_help *help)
{
	const char *line, *word = NULL;
	size_t i, len;

	for (line = help->usage; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (!(len = first_argument(&word, line, help->name)))
			continue;
		for (i = 0; i < sizeof(argument_names) / sizeof(argument_names[0]); i++)
			if (strlen(argument_names[i].name) == len && !strncmp(word, argument_names[i].name, len))
				return argument_names[i].ids;
	}
	return IDS_NONE;
}
