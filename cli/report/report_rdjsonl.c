/*
 * revline check --format rdjsonl: reviewdog's Diagnostic JSON lines, one
 * finding a line, so that `revline check --format rdjsonl | reviewdog
 * -f=rdjsonl -reporter=github-pr-review` comments on a pull request.
 */
#include "report.h"
#include "fix.h"
#include "status.h"
#include "utf8.h"

#include <jansson.h>
#include <string.h>

/* reviewdog has three severities: critical and major are errors. */
static const char *rd_severity(enum severity s)
{
	switch (s) {
	case SEV_CRITICAL: case SEV_MAJOR: return "ERROR";
	case SEV_MINOR: return "WARNING";
	default: return "INFO";
	}
}

/* The finding in words: its title, what is wrong, and what to do. */
static json_t *message_of(const struct finding *f)
{
	struct buf text = BUF_INIT;
	json_t *v;

	buf_puts(&text, f->title ? f->title : "");
	if (f->issue && *f->issue)
		buf_printf(&text, "%s%s", text.len ? "\n\n" : "", f->issue);
	if (f->suggestion && *f->suggestion)
		buf_printf(&text, "%sSuggestion: %s", text.len ? "\n\n" : "", f->suggestion);
	v = utf8_json(text.ptr ? text.ptr : "");
	buf_release(&text);
	return v;
}

/* Line-wise: a range of whole lines, its end included (reviewdog's rule for ranges without columns). */
static json_t *location_of(const struct finding *f)
{
	int first = f->line > 0 ? f->line : 1, last = f->end_line > first ? f->end_line : first;

	return json_pack("{s:o, s:{s:{s:i}, s:{s:i}}}", "path", utf8_json(f->file ? f->file : ""),
			 "range", "start", "line", first, "end", "line", last);
}

/*
 * The finding's proposed fix as reviewdog's suggestion: whole lines (no
 * columns: the end line is included) and what replaces them; none when
 * the finding has no fix proposed that still fits the file.
 */
static int suggestions_add(json_t *d, const struct finding *f, const struct report_options *o)
{
	struct fix_suggestion s;
	json_t *list;

	if (!o->store || !o->workdir || !finding_shown_id(f))
		return 0;
	/* A suggestion is an extra: one that cannot be looked up is left out, the finding is not. */
	if (fix_suggestion_find(&s, o->store, o->workdir, finding_shown_id(f)) < 0) {
		error_clear();
		return 0;
	}
	list = json_pack("[{s:{s:{s:i}, s:{s:i}}, s:o}]", "range", "start", "line", s.first, "end", "line", s.last,
			 "text", utf8_jsonn(s.text.ptr ? s.text.ptr : "", s.text.len));
	fix_suggestion_release(&s);
	return list && json_object_set_new(d, "suggestions", list) == 0 ? 0 : -1;
}

static json_t *diagnostic_of(const struct finding *f, const struct report_options *o)
{
	const char *rule = f->nfrom ? f->from_rules[0] : f->rule_id;
	/* No source.url: reviewdog's schema leaves it out, and revline has no page to name. */
	json_t *d = json_pack("{s:o, s:o, s:s, s:{s:s}, s:{s:o}}", "message", message_of(f),
			      "location", location_of(f), "severity", rd_severity(f->severity),
			      "source", "name", "revline", "code", "value", utf8_json(rule ? rule : ""));

	if (d && suggestions_add(d, f, o) < 0) {
		json_decref(d);
		return NULL;
	}
	return d;
}

int report_rdjsonl(FILE *out, const struct check *check, const struct report_options *o)
{
	const struct report *rep = check_report(check);
	size_t i;
	int rc = 0;

	for (i = 0; i < rep->nfindings && !rc; i++) {
		json_t *d;

		if (!report_shows(&rep->findings[i], o))
			continue;
		if (!(d = diagnostic_of(&rep->findings[i], o)))
			return -1;
		rc = json_dumpf(d, out, JSON_COMPACT) == 0 && fputc('\n', out) != EOF ? 0 : -1;
		json_decref(d);
	}
	return rc || ferror(out) ? -1 : 0;
}
