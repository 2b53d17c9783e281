/* What the signal readers share: the list they fill, its problems, a signal as read. */
#include "signals.h"
#include "array.h"
#include "signals_read.h"
#include "status.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---------------------------------------------------------------- formats */

static const struct {
	const char *name, *tool;
} formats[] = {
#define SIGNAL_FORMAT_ROW(id, name, tool) [id] = { name, tool },
	SIGNAL_FORMATS(SIGNAL_FORMAT_ROW)
#undef SIGNAL_FORMAT_ROW
};

/* Tools whose output is one of the formats under another tool's name. */
static const struct {
	const char *tool;
	enum signal_format format;
} format_aliases[] = {
	{ "clang", SIGNAL_GCC },
	{ "cppcheck", SIGNAL_GCC },
	{ "pycodestyle", SIGNAL_FLAKE8 },
	{ "pyflakes", SIGNAL_FLAKE8 },
};

const char *signal_format_name(enum signal_format format)
{
	return (unsigned)format < SIGNAL_FORMAT_COUNT ? formats[format].name : "unknown";
}

const char *signal_format_tool(enum signal_format format)
{
	return (unsigned)format < SIGNAL_FORMAT_COUNT ? formats[format].tool : "unknown";
}

bool signal_format_parse(enum signal_format *out, const char *name)
{
	size_t i;

	if (!name)
		return false;
	for (i = 0; i < SIGNAL_FORMAT_COUNT; i++)
		if (!strcasecmp(formats[i].name, name)) {
			*out = (enum signal_format)i;
			return true;
		}
	for (i = 0; i < sizeof(format_aliases) / sizeof(*format_aliases); i++)
		if (!strcasecmp(format_aliases[i].tool, name)) {
			*out = format_aliases[i].format;
			return true;
		}
	return false;
}

/* ------------------------------------------------------------------ lists */

void signal_release(struct signal *signal)
{
	free(signal->tool);
	free(signal->code);
	free(signal->message);
	free(signal->severity);
	free(signal->file);
	free(signal->url);
	memset(signal, 0, sizeof(*signal));
}

void signal_list_release(struct signal_list *list)
{
	size_t i;

	for (i = 0; i < list->count; i++)
		signal_release(&list->items[i]);
	free(list->items);
	for (i = 0; i < list->nproblems; i++) {
		free(list->problems[i].field);
		free(list->problems[i].message);
	}
	free(list->problems);
	memset(list, 0, sizeof(*list));
}

static char *dup_or_null(const char *s, bool *failed)
{
	char *copy;

	if (!s)
		return NULL;
	if (!(copy = strdup(s)))
		*failed = true;
	return copy;
}

int signal_copy(struct signal *out, const struct signal *from)
{
	bool failed = false;

	*out = *from;
	out->tool = dup_or_null(from->tool, &failed);
	out->code = dup_or_null(from->code, &failed);
	out->message = dup_or_null(from->message, &failed);
	out->severity = dup_or_null(from->severity, &failed);
	out->file = dup_or_null(from->file, &failed);
	out->url = dup_or_null(from->url, &failed);
	if (failed) {
		signal_release(out);
		return error_nomem();
	}
	return 0;
}

int signals_problem_vadd(struct signal_list *list, int line, const char *field, const char *fmt, va_list ap)
{
	struct signal_problem *p;
	struct buf message = BUF_INIT;
	int error;

	if ((error = buf_vprintf(&message, fmt, ap)) < 0 ||
	    (error = ARRAY_GROW(list->problems, list->problems_alloc, list->nproblems + 1)) < 0)
		goto done;
	p = &list->problems[list->nproblems];
	p->line = line;
	p->field = field ? strdup(field) : NULL;
	p->message = buf_detach(&message);
	if ((field && !p->field) || !p->message) {
		free(p->field);
		free(p->message);
		error = error_nomem();
		goto done;
	}
	list->nproblems++;
done:
	buf_release(&message);
	return error;
}

int signals_line_problem(struct signal_list *list, int line, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = signals_problem_vadd(list, line, NULL, fmt, ap);
	va_end(ap);
	return error;
}


int signals_draft_keep(struct signal_list *list, const char *tool, const struct draft *d)
{
	/* Only read while it is copied: the strings stay the input's. */
	struct signal view = {
		.tool = (char *)tool, .code = (char *)(d->code ? d->code : ""), .message = (char *)d->message,
		.severity = (char *)d->severity, .file = (char *)d->file, .url = (char *)d->url,
		.line = d->line, .column = d->column, .end_line = d->end_line, .end_column = d->end_column,
	};
	int error;

	if ((error = ARRAY_GROW(list->items, list->alloc, list->count + 1)) < 0 ||
	    (error = signal_copy(&list->items[list->count], &view)) < 0)
		return error;
	list->count++;
	return 0;
}

const char *shellcheck_url(char *out, size_t size, const char *code)
{
	snprintf(out, size, "https://www.shellcheck.net/wiki/%s", code);
	return out;
}

bool json_has(json_t *obj, const char *key)
{
	return json_object_get(obj, key) != NULL;
}

/* An item of ruff's JSON. */
bool ruff_shaped(json_t *v)
{
	return json_has(v, "location") || json_has(v, "end_location") || json_has(v, "noqa_row") || json_has(v, "filename");
}
