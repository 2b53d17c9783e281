/*
 * revline check --format quickfix: `file:line:col: severity: message [rule]`,
 * one finding a line, as vim's quickfix list (:cfile, :cgetexpr) and emacs's
 * compilation mode read a compiler's errors.
 */
#include "report.h"
#include "term.h"

#include <string.h>

/* One line: the message's newlines become spaces, so that a finding stays one entry. */
static void one_line(struct buf *out, const char *s)
{
	for (; s && *s; s++)
		buf_putc(out, *s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s);
}

static void finding_put(FILE *out, const struct finding *f)
{
	const char *rule = f->nfrom ? f->from_rules[0] : f->rule_id;
	struct buf text = BUF_INIT;

	one_line(&text, f->file);
	buf_printf(&text, ":%d:1: %s: ", f->line > 0 ? f->line : 1,
		   f->severity >= SEV_MAJOR ? "error" : f->severity == SEV_MINOR ? "warning" : "note");
	one_line(&text, f->title);
	if (f->issue && *f->issue) {
		buf_puts(&text, ": ");
		one_line(&text, f->issue);
	}
	buf_puts(&text, " [");
	one_line(&text, rule);
	buf_puts(&text, "]");
	term_printf(out, "%s\n", text.ptr ? text.ptr : "");
	buf_release(&text);
}

int report_quickfix(FILE *out, const struct check *check, const struct report_options *o)
{
	const struct report *rep = check_report(check);
	size_t i;

	for (i = 0; i < rep->nfindings; i++)
		if (report_shows(&rep->findings[i], o))
			finding_put(out, &rep->findings[i]);
	return ferror(out) ? -1 : 0;
}
