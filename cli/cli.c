#include "cli.h"
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
