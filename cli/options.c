#include "options.h"
#include "status.h"
#include "term.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct opt global_list[] = { GLOBAL_OPTIONS(OPT_ENTRY) };
static const struct opt target_list[] = { TARGET_OPTIONS(OPT_ENTRY) };
static const struct opt diff_list[] = { DIFF_OPTIONS(OPT_ENTRY) };
static const struct opt json_list[] = { JSON_OPTIONS(OPT_ENTRY) };
static const struct opt check_list[] = { CHECK_OPTIONS(OPT_ENTRY) };
static const struct opt tui_list[] = { TUI_OPTIONS(OPT_ENTRY) };
static const struct opt rules_list[] = { RULES_OPTIONS(OPT_ENTRY) };
static const struct opt rule_dir_list[] = { RULE_DIR_OPTIONS(OPT_ENTRY) };
static const struct opt feedback_list[] = { FEEDBACK_OPTIONS(OPT_ENTRY) };
static const struct opt history_list[] = { HISTORY_OPTIONS(OPT_ENTRY) };
static const struct opt fixes_list[] = { FIXES_OPTIONS(OPT_ENTRY) };
static const struct opt signals_list[] = { SIGNALS_OPTIONS(OPT_ENTRY) };
static const struct opt fix_list[] = { FIX_OPTIONS(OPT_ENTRY) };
static const struct opt undo_list[] = { UNDO_OPTIONS(OPT_ENTRY) };
static const struct opt trust_list[] = { TRUST_OPTIONS(OPT_ENTRY) };

#define TABLE(list) { list, sizeof(list) / sizeof(list[0]) }
const struct opt_table global_options = TABLE(global_list);
const struct opt_table target_options = TABLE(target_list);
const struct opt_table diff_options = TABLE(diff_list);
const struct opt_table json_options = TABLE(json_list);
const struct opt_table check_options = TABLE(check_list);
const struct opt_table tui_options = TABLE(tui_list);
const struct opt_table rules_options = TABLE(rules_list);
const struct opt_table rule_dir_options = TABLE(rule_dir_list);
const struct opt_table feedback_options = TABLE(feedback_list);
const struct opt_table history_options = TABLE(history_list);
const struct opt_table fixes_options = TABLE(fixes_list);
const struct opt_table signals_options = TABLE(signals_list);
const struct opt_table fix_options = TABLE(fix_list);
const struct opt_table undo_options = TABLE(undo_list);
const struct opt_table trust_options = TABLE(trust_list);

/* Every error line: its message often carries a server's, a rule's or a file's words. */
void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("revline: ", stderr);
	va_start(ap, fmt);
	term_vprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const struct opt *find_long(const struct opt_parser *p, const char *name, size_t len)
{
	size_t t, i;

	for (t = 0; p->tables[t]; t++)
		for (i = 0; i < p->tables[t]->count; i++) {
			const struct opt *o = &p->tables[t]->opts[i];

			if (strlen(o->name) == len && !strncmp(o->name, name, len))
				return o;
		}
	return NULL;
}

static const struct opt *find_short(const struct opt_parser *p, char letter)
{
	size_t t, i;

	for (t = 0; p->tables[t]; t++)
		for (i = 0; i < p->tables[t]->count; i++)
			if (p->tables[t]->opts[i].letter == letter)
				return &p->tables[t]->opts[i];
	return NULL;
}

static int take_value(struct opt_parser *p, const struct opt *o, const char *inline_value,
		      const char **value)
{
	if (!o->arg) {
		if (inline_value) {
			cli_error("option '--%s' takes no value", o->name);
			return -1;
		}
		return (int)o->id;
	}
	if (inline_value) {
		*value = inline_value;
		return (int)o->id;
	}
	if (p->index >= p->argc) {
		cli_error("option '--%s' needs a value (%s)", o->name, o->arg);
		return -1;
	}
	*value = p->argv[p->index++];
	return (int)o->id;
}

int opt_next(struct opt_parser *p, const char **value)
{
	const struct opt *o;
	const char *arg, *eq;

	*value = NULL;
	if (p->index >= p->argc)
		return OPT_END;
	arg = p->argv[p->index++];
	if (p->only_positional || arg[0] != '-' || !arg[1]) {
		*value = arg;
		return OPT_POSITIONAL;
	}
	if (!strcmp(arg, "--")) {
		p->only_positional = true;
		return opt_next(p, value);
	}
	if (arg[1] == '-') {
		eq = strchr(arg + 2, '=');
		o = find_long(p, arg + 2, eq ? (size_t)(eq - arg - 2) : strlen(arg + 2));
		if (!o) {
			cli_error("unknown option '%.*s' (see 'revline --help')",
				  eq ? (int)(eq - arg) : (int)strlen(arg), arg);
			return -1;
		}
		return take_value(p, o, eq ? eq + 1 : NULL, value);
	}
	if (arg[2] || !(o = find_short(p, arg[1]))) {
		cli_error("unknown option '%s' (see 'revline --help')", arg);
		return -1;
	}
	return take_value(p, o, NULL, value);
}

void opt_print_help(const struct opt_table *const *tables)
{
	size_t t, i;

	for (t = 0; tables[t]; t++)
		for (i = 0; i < tables[t]->count; i++) {
			const struct opt *o = &tables[t]->opts[i];
			char left[64];

			snprintf(left, sizeof(left), "%c%c%s--%s%s%s",
				 o->letter ? '-' : ' ', o->letter ? o->letter : ' ',
				 o->letter ? ", " : "  ", o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
			printf("  %-26s %s\n", left, o->help);
		}
}

bool target_option(struct target_spec *spec, int id, const char *value)
{
	switch (id) {
	case OPT_STAGED: case OPT_CACHED: spec->staged = true; return true;
	case OPT_BASE: spec->base = value; return true;
	case OPT_UNTRACKED: spec->untracked = true; return true;
	case OPT_POSITIONAL:
		if (!strstr(value, "..") || spec->range)
			return false;
		spec->range = value;
		return true;
	}
	return false;
}

int cli_open(struct repo **repo, struct target *target, const struct target_spec *spec)
{
	if (repo_open(repo, NULL) < 0) {
		cli_error("%s", error_message());
		return 2;
	}
	if (repo_resolve(target, *repo, spec) < 0) {
		cli_error("%s", error_message());
		repo_free(*repo);
		*repo = NULL;
		return 2;
	}
	return 0;
}
