#include "cli.h"
#include "buf.h"
#include "parse_options.h"
#include "status.h"
#include "term.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

bool cli_target_range(struct target_spec *spec, const char *arg)
{
	if (!strstr(arg, "..") || spec->range)
		return false;
	spec->range = arg;
	return true;
}

bool cli_revision_hint(struct buf *out, const char *word, bool staged)
{
	struct target_spec spec = { .base = word, .staged = staged };
	struct target target = { 0 };
	struct repo *repo = NULL;
	bool named = false;

	buf_clear(out);
	if (*word != '-' && repo_open(&repo, NULL) == 0 && repo_resolve(&target, repo, &spec) == 0)
		named = buf_printf(out, "to compare %s with the %s, use --base %s; a range is A..B or A...B",
				   word, staged ? "index" : "working tree", word) == 0;
	error_clear();
	target_release(&target);
	repo_free(repo);
	return named;
}

bool cli_targets(struct target_spec *spec, int count, char **argv, const struct command_help *help)
{
	struct buf hint = BUF_INIT;
	bool tui = !strcmp(help->name, "revline");
	int i;

	for (i = 0; i < count && cli_target_range(spec, argv[i]); i++)
		;
	if (i == count)
		return true;
	if (spec->range && strstr(argv[i], ".."))
		cli_error("one range at a time: '%s' and '%s'", spec->range, argv[i]);
	else if (cli_revision_hint(&hint, argv[i], spec->staged))
		cli_error(tui ? "'%s' is not a revline command: %s" : "unexpected argument '%s': %s", argv[i],
			  hint.ptr);
	else if (tui)
		cli_error("'%s' is not a revline command or a range (see 'revline --help')", argv[i]);
	else
		cli_error("unexpected argument '%s' (a target is A..B or A...B; see 'revline help %s')", argv[i],
			  help->name);
	buf_release(&hint);
	return false;
}

bool cli_id(int64_t *out, const char *value, const char *what, const char *where)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(value, &end, 10);
	if (errno || *end || *value < '0' || *value > '9' || n <= 0) {
		cli_error("'%s' is not a %s id (a number, as '%s' shows)", value, what, where);
		return false;
	}
	*out = n;
	return true;
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
