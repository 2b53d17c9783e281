/* Linter output as JSON: ruff, bandit, shellcheck, mypy, and SARIF 2.1.0. */
#include "signals.h"
#include "signals_read.h"
#include "buf.h"
#include "status.h"
#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------- JSON formats */

/* One JSON item being read: where it is, for problems, and whether a field was bad. */
struct item {
	struct signal_list *list;
	int line;               /* the input's line for mypy's JSON lines, 0 otherwise */
	const char *where;      /* "results[2]", "" at the top */
	bool bad;
	int error;              /* RL_ENOMEM while recording a problem */
};

static void item_problem(struct item *it, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void item_problem(struct item *it, const char *field, const char *fmt, ...)
{
	struct buf path = BUF_INIT;
	va_list ap;
	int error;

	it->bad = true;
	if (it->error)
		return;
	if ((error = buf_printf(&path, "%s%s%s", it->where, *it->where && *field ? "." : "", field)) == 0) {
		va_start(ap, fmt);
		error = signals_problem_vadd(it->list, it->line, path.ptr, fmt, ap);
		va_end(ap);
	}
	it->error = error;
	buf_release(&path);
}

static const char *json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "a list";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: case JSON_REAL: return "a number";
	case JSON_TRUE: return "true";
	case JSON_FALSE: return "false";
	case JSON_NULL: return "null";
	}
	return "something else";
}

/* A field by its dotted path ("location.row"); NULL when absent or null. */
static json_t *field_get(json_t *obj, const char *path)
{
	char key[64];
	const char *dot;

	while (obj && (dot = strchr(path, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		obj = json_object_get(obj, key);
		path = dot + 1;
	}
	obj = json_object_get(obj, path);
	return json_is_null(obj) ? NULL : obj;
}

/* A field of one type; NULL when absent (a problem when required) or of another type (always one). */
static json_t *item_typed(struct item *it, json_t *obj, const char *field, bool required, json_type type,
			  const char *expected)
{
	json_t *v = field_get(obj, field);

	if (!v && required)
		item_problem(it, field, "missing");
	if (!v || json_typeof(v) == type)
		return v;
	item_problem(it, field, "expected %s, found %s", expected, json_kind(v));
	return NULL;
}

static const char *item_str(struct item *it, json_t *obj, const char *field, bool required)
{
	return json_string_value(item_typed(it, obj, field, required, JSON_STRING, "a string"));
}

/* A whole number from min; false when absent or bad. */
static bool item_int(struct item *it, json_t *obj, const char *field, bool required, long min, int *out)
{
	json_t *v = item_typed(it, obj, field, required, JSON_INTEGER, "a whole number");
	json_int_t n;

	*out = 0;
	if (!v)
		return false;
	n = json_integer_value(v);
	if (n < min || n > INT_MAX - 1) {
		item_problem(it, field, "out of range: %lld", (long long)n);
		return false;
	}
	*out = (int)n;
	return true;
}

/* What an item ends with: an error, skipped for a bad field, or kept. */
static int item_keep(struct item *it, const char *tool, const struct draft *d)
{
	if (it->error)
		return it->error;
	return it->bad ? 0 : signals_draft_keep(it->list, tool, d);
}

int json_load(json_t **out, const char *text, size_t len, enum signal_format format)
{
	json_error_t err;

	if (!(*out = json_loadb(text, len, 0, &err)))
		return error_set(RL_EPARSE, "the %s output is not valid JSON (line %d, column %d: %s)",
				 signal_format_name(format), err.line, err.column, err.text);
	return 0;
}

static int root_problem(struct signal_list *list, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int root_problem(struct signal_list *list, const char *field, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = signals_problem_vadd(list, 0, field, fmt, ap);
	va_end(ap);
	return error;
}

/* The items of a list the format is made of; a problem and NULL when it is something else. */
static json_t *list_at(struct signal_list *list, json_t *v, const char *field, int *error)
{
	if (json_is_array(v))
		return v;
	if (v)
		*error = root_problem(list, field, "expected a list, found %s", json_kind(v));
	else
		*error = root_problem(list, field, "missing");
	return NULL;
}

typedef int (*item_fn)(struct signal_list *list, json_t *v, const char *where, const char *tool);

/*
 * Each object of the list named name ("results"; "" for the document),
 * known by its place in problems ("results[2]").
 */
static int items_each(struct signal_list *list, json_t *v, const char *name, const char *tool, item_fn fn)
{
	char where[48];
	json_t *items;
	size_t i;
	int error = 0;

	if (!(items = list_at(list, v, *name ? name : "$", &error)))
		return error;
	for (i = 0; !error && i < json_array_size(items); i++) {
		json_t *item = json_array_get(items, i);

		snprintf(where, sizeof(where), "%s[%zu]", name, i);
		if (json_is_object(item))
			error = fn(list, item, where, tool);
		else
			error = root_problem(list, where, "expected an object, found %s", json_kind(item));
	}
	return error;
}

/* ---- ruff check --output-format json */

/*
 * One diagnostic of ruff's JSON, the same object in --output-format json
 * (a list) and json-lines (one a line). Its "fix" (ruff's own edits) is not
 * read: revline asks for its fixes.
 */
static int ruff_item_at(struct signal_list *list, json_t *v, const char *where, int line, const char *tool)
{
	struct item it = { list, line, where, false, 0 };
	struct draft d = { 0 };

	/* Older ruff gives no severity (0.4.7 none, 0.16.4 "error"); its SARIF output said error. */
	if (!(d.severity = item_str(&it, v, "severity", false)))
		d.severity = "error";
	d.file = item_str(&it, v, "filename", true);
	d.message = item_str(&it, v, "message", true);
	d.code = item_str(&it, v, "code", false);   /* null for syntax errors */
	d.url = item_str(&it, v, "url", false);
	item_int(&it, v, "location.row", true, 0, &d.line);
	item_int(&it, v, "location.column", false, 0, &d.column);
	item_int(&it, v, "end_location.row", false, 0, &d.end_line);
	item_int(&it, v, "end_location.column", false, 0, &d.end_column);
	return item_keep(&it, tool, &d);
}

static int ruff_item(struct signal_list *list, json_t *v, const char *where, const char *tool)
{
	return ruff_item_at(list, v, where, 0, tool);
}

int ruff_parse(struct signal_list *list, json_t *root, const char *tool)
{
	return items_each(list, root, "", tool, ruff_item);
}


/* ruff --output-format json-lines: one object a line, read as the list's items are. */
int ruff_jsonl_line(struct text_reader *r, char *line, int number)
{
	json_error_t err;
	json_t *v;
	int error;

	if (!(v = json_loads(line, 0, &err)))
		return signals_line_problem(r->list, number, "not a JSON object: %s (column %d)", err.text, err.column);
	if (json_is_object(v))
		error = ruff_item_at(r->list, v, "", number, r->tool);
	else
		error = signals_line_problem(r->list, number, "expected a JSON object, found %s", json_kind(v));
	json_decref(v);
	return error;
}

/* ---- bandit -f json */

/* line_range: the lines the issue spans; its end is the last. */
static void bandit_end_line(struct item *it, json_t *v, struct draft *d)
{
	json_t *range = field_get(v, "line_range"), *n;
	char field[48];
	size_t i;

	if (!range)
		return;
	if (!json_is_array(range)) {
		item_problem(it, "line_range", "expected a list, found %s", json_kind(range));
		return;
	}
	json_array_foreach(range, i, n) {
		if (!json_is_integer(n) || json_integer_value(n) < 0 || json_integer_value(n) > INT_MAX - 1) {
			snprintf(field, sizeof(field), "line_range[%zu]", i);
			item_problem(it, field, "expected a line number, found %s", json_kind(n));
			return;
		}
		d->end_line = (int)json_integer_value(n);
	}
}

static int bandit_item(struct signal_list *list, json_t *v, const char *where, const char *tool)
{
	struct item it = { list, 0, where, false, 0 };
	struct draft d = { 0 };

	d.file = item_str(&it, v, "filename", true);
	d.message = item_str(&it, v, "issue_text", true);
	d.code = item_str(&it, v, "test_id", false);
	d.severity = item_str(&it, v, "issue_severity", false);
	d.url = item_str(&it, v, "more_info", false);
	item_int(&it, v, "line_number", true, 0, &d.line);
	/* Newer bandits give the AST's 0-based offsets; ours are 1-based. */
	if (item_int(&it, v, "col_offset", false, 0, &d.column))
		d.column++;
	if (item_int(&it, v, "end_col_offset", false, 0, &d.end_column))
		d.end_column++;
	bandit_end_line(&it, v, &d);
	if (!d.severity)
		d.severity = "UNDEFINED";
	return item_keep(&it, tool, &d);
}

/* Files bandit could not scan: not signals, but the user should hear of them. */
static int bandit_errors(struct signal_list *list, json_t *root)
{
	json_t *errors = field_get(root, "errors"), *e;
	char where[32];
	size_t i;
	int error = 0;

	json_array_foreach(errors, i, e) {
		const char *file = json_string_value(json_object_get(e, "filename"));
		const char *reason = json_string_value(json_object_get(e, "reason"));

		snprintf(where, sizeof(where), "errors[%zu]", i);
		if ((error = root_problem(list, where, "bandit could not scan %s: %s", file ? file : "a file",
					  reason ? reason : "no reason given")) < 0)
			break;
	}
	return error;
}

int bandit_parse(struct signal_list *list, json_t *root, const char *tool)
{
	int error;

	if (!json_is_object(root))
		return root_problem(list, "$", "expected bandit's report object, found %s", json_kind(root));
	if ((error = items_each(list, field_get(root, "results"), "results", tool, bandit_item)) < 0)
		return error;
	return bandit_errors(list, root);
}

/* ---- shellcheck -f json (a list) and -f json1 ({"comments": [...]}) */

static int shellcheck_item(struct signal_list *list, json_t *v, const char *where, const char *tool)
{
	struct item it = { list, 0, where, false, 0 };
	struct draft d = { 0 };
	char code[32] = "", url[96] = "";
	json_t *c;

	d.file = item_str(&it, v, "file", true);
	d.message = item_str(&it, v, "message", true);
	d.severity = item_str(&it, v, "level", false);
	item_int(&it, v, "line", true, 0, &d.line);
	item_int(&it, v, "column", false, 0, &d.column);
	item_int(&it, v, "endLine", false, 0, &d.end_line);
	item_int(&it, v, "endColumn", false, 0, &d.end_column);
	c = field_get(v, "code");
	if (json_is_integer(c) && json_integer_value(c) >= 0 && json_integer_value(c) <= INT_MAX) {
		/* Every code has its page on the wiki. */
		snprintf(code, sizeof(code), "SC%d", (int)json_integer_value(c));
		d.url = shellcheck_url(url, sizeof(url), code);
	} else if (json_is_string(c)) {
		snprintf(code, sizeof(code), "%s", json_string_value(c));
	} else if (c) {
		item_problem(&it, "code", "expected a number, found %s", json_kind(c));
	}
	d.code = code;
	if (!d.severity)
		d.severity = "warning";
	return item_keep(&it, tool, &d);
}

int shellcheck_parse(struct signal_list *list, json_t *root, const char *tool)
{
	if (json_is_object(root))
		return items_each(list, field_get(root, "comments"), "comments", tool, shellcheck_item);
	return items_each(list, root, "", tool, shellcheck_item);
}

/* ---- mypy --output json: one object per line */

static int mypy_json_item(struct signal_list *list, json_t *v, int number, const char *tool)
{
	struct item it = { list, number, "", false, 0 };
	struct draft d = { 0 };
	struct buf message = BUF_INIT;
	const char *hint;
	int error;

	d.file = item_str(&it, v, "file", true);
	d.message = item_str(&it, v, "message", true);
	hint = item_str(&it, v, "hint", false);
	d.code = item_str(&it, v, "code", false);
	d.severity = item_str(&it, v, "severity", false);   /* absent in the first versions: all errors */
	/* mypy writes -1 for what it does not know, and 0-based columns. */
	item_int(&it, v, "line", true, -1, &d.line);
	if (item_int(&it, v, "column", false, -1, &d.column))
		d.column = d.column >= 0 ? d.column + 1 : 0;
	item_int(&it, v, "end_line", false, -1, &d.end_line);
	if (item_int(&it, v, "end_column", false, -1, &d.end_column))
		d.end_column = d.end_column >= 0 ? d.end_column + 1 : 0;
	d.line = d.line > 0 ? d.line : 0;
	d.end_line = d.end_line > 0 ? d.end_line : 0;
	if (!d.severity)
		d.severity = "error";
	/* The notes of an error come as its hint; the text format's are joined the same way. */
	if (hint && *hint && d.message && !it.bad) {
		if ((error = buf_printf(&message, "%s\n%s", d.message, hint)) < 0)
			return error;
		d.message = message.ptr;
	}
	error = item_keep(&it, tool, &d);
	buf_release(&message);
	return error;
}

/*
 * A line that is not JSON is read as mypy's text: mypy writes syntax errors
 * that way even with --output json, and its summary line.
 */
int mypy_json_block(struct text_reader *r, const struct text_lines *t, size_t *i)
{
	char *line = t->at[*i];
	json_error_t err;
	json_t *v;
	int number, error;

	if (*line != '{' && *line != '[')
		return mypy_block(r, t, i);
	number = (int)++*i;
	if (!(v = json_loads(line, 0, &err)))
		return signals_line_problem(r->list, number, "not a JSON object: %s (column %d)", err.text, err.column);
	if (json_is_object(v))
		error = mypy_json_item(r->list, v, number, r->tool);
	else
		error = signals_line_problem(r->list, number, "expected a JSON object, found %s", json_kind(v));
	json_decref(v);
	r->parent = -1;
	return error;
}

/* ---- SARIF 2.1.0 */

struct sarif_run {
	struct signal_list *list;
	json_t *rules, *artifacts, *bases;
	const char *tool;
};

static json_t *sarif_rule(const struct sarif_run *run, json_t *result)
{
	json_t *index = field_get(result, "ruleIndex"), *rule;
	const char *id = json_string_value(field_get(result, "ruleId"));
	size_t i;

	if (!index)
		index = field_get(result, "rule.index");
	if (!id)
		id = json_string_value(field_get(result, "rule.id"));
	if (json_is_integer(index) && json_integer_value(index) >= 0 &&
	    (rule = json_array_get(run->rules, (size_t)json_integer_value(index))))
		return rule;
	json_array_foreach(run->rules, i, rule)
		if (id && json_string_value(json_object_get(rule, "id")) &&
		    !strcmp(id, json_string_value(json_object_get(rule, "id"))))
			return rule;
	return NULL;
}

/* "{0}" placeholders filled from the message's arguments; "{{" and "}}" are braces. */
static int sarif_format(struct buf *out, const char *text, json_t *arguments)
{
	const char *p, *arg;
	char *end;
	unsigned long n;
	int error = 0;

	for (p = text; !error && *p; p++) {
		if ((*p == '{' && p[1] == '{') || (*p == '}' && p[1] == '}')) {
			error = buf_putc(out, *p++);
		} else if (*p == '{' && isdigit((unsigned char)p[1]) && (n = strtoul(p + 1, &end, 10), *end == '}') &&
			   (arg = json_string_value(json_array_get(arguments, n)))) {
			error = buf_puts(out, arg);
			p = end;
		} else {
			error = buf_putc(out, *p);
		}
	}
	return error;
}

/* message.text, or the rule's message string it names by id. */
static int sarif_message(struct buf *out, struct item *it, json_t *result, json_t *rule)
{
	const char *text = item_str(it, result, "message.text", false), *id;
	json_t *strings;

	if (!text)
		text = item_str(it, result, "message.markdown", false);
	if (text)
		return buf_puts(out, text);
	if ((id = item_str(it, result, "message.id", false))) {
		strings = field_get(rule, "messageStrings");
		text = json_string_value(field_get(json_object_get(strings, id), "text"));
		if (text)
			return sarif_format(out, text, field_get(result, "message.arguments"));
		item_problem(it, "message.id", "\"%s\" is not among the rule's messageStrings", id);
		return 0;
	}
	if (!it->bad)
		item_problem(it, "message.text", "missing");
	return 0;
}

static int hex_value(char c)
{
	if (isdigit((unsigned char)c))
		return c - '0';
	return isxdigit((unsigned char)c) ? tolower((unsigned char)c) - 'a' + 10 : -1;
}

/* A URI reference as a path: "file:///a/b%20c" is "/a/b c"; %00 stays as it is. */
static int uri_to_path(struct buf *out, const char *uri)
{
	const char *p = uri;
	size_t start = out->len;
	int error = 0, hi, lo;

	if (!strncasecmp(p, "file:", 5)) {
		p += 5;
		if (!strncmp(p, "//", 2)) {
			const char *path = strchr(p + 2, '/');

			if (!path)
				path = p + strlen(p);
			/* "file://localhost/x" is "/x"; "file://host/share" a UNC path. */
			if (path != p + 2 && !(path - p - 2 == 9 && !strncasecmp(p + 2, "localhost", 9)))
				error = buf_put(out, p, (size_t)(path - p));
			p = path;
		}
		/* "file:///C:/x" is "C:/x". */
		if (out->len == start && p[0] == '/' && isalpha((unsigned char)p[1]) && p[2] == ':')
			p++;
	}
	for (; !error && *p; p++) {
		if (*p == '%' && (hi = hex_value(p[1])) >= 0 && (lo = hex_value(p[2])) >= 0 && (hi || lo)) {
			error = buf_putc(out, (char)(hi * 16 + lo));
			p += 2;
		} else {
			error = buf_putc(out, *p);
		}
	}
	return error;
}

static bool uri_has_scheme(const char *uri)
{
	const char *p = uri;

	if (!isalpha((unsigned char)*p))
		return false;
	while (isalnum((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.')
		p++;
	/* "C:/x" is a drive, not a scheme. */
	return *p == ':' && p - uri > 1;
}

/*
 * An artifactLocation's path: its uri, or the uri of the artifact it points
 * to by index; a relative one joined to its uriBaseId's URI when the run
 * defines it (originalUriBaseIds), and as it is when it does not (most
 * tools leave %SRCROOT% to the reader: the repository).
 */
static int sarif_path(struct buf *out, const struct sarif_run *run, json_t *location, int depth)
{
	const char *uri = json_string_value(field_get(location, "uri"));
	const char *base = json_string_value(field_get(location, "uriBaseId"));
	json_t *index = field_get(location, "index"), *artifact;
	int error;

	if (depth > SARIF_BASE_DEPTH)
		return 0;
	if (!uri && json_is_integer(index) && json_integer_value(index) >= 0 &&
	    (artifact = json_array_get(run->artifacts, (size_t)json_integer_value(index))))
		return sarif_path(out, run, field_get(artifact, "location"), depth + 1);
	if (!uri)
		return 0;
	if (base && !uri_has_scheme(uri) && *uri != '/') {
		if ((error = sarif_path(out, run, json_object_get(run->bases, base), depth + 1)) < 0)
			return error;
		if (out->len && out->ptr[out->len - 1] != '/' && (error = buf_putc(out, '/')) < 0)
			return error;
	}
	return uri_to_path(out, uri);
}

/* locations[0].physicalLocation: the file and the region. */
static int sarif_location(struct buf *file, struct item *it, const struct sarif_run *run, json_t *result,
			  struct draft *d)
{
	json_t *locations = field_get(result, "locations");
	json_t *physical = field_get(json_array_get(locations, 0), "physicalLocation");
	struct item at = { it->list, 0, NULL, false, 0 };
	char where[96];
	int error;

	if (!json_array_size(locations) || !json_is_object(physical)) {
		item_problem(it, json_array_size(locations) ? "locations[0].physicalLocation" : "locations",
			     "no file location: a signal needs one");
		return 0;
	}
	snprintf(where, sizeof(where), "%s.locations[0].physicalLocation", it->where);
	at.where = where;
	item_str(&at, physical, "artifactLocation.uri", false);
	item_str(&at, physical, "artifactLocation.uriBaseId", false);
	item_int(&at, physical, "region.startLine", false, 1, &d->line);
	item_int(&at, physical, "region.startColumn", false, 1, &d->column);
	item_int(&at, physical, "region.endLine", false, 1, &d->end_line);
	item_int(&at, physical, "region.endColumn", false, 1, &d->end_column);
	if (!at.bad && (error = sarif_path(file, run, field_get(physical, "artifactLocation"), 0)) < 0)
		return error;
	if (!at.bad && !file->len)
		item_problem(&at, "artifactLocation.uri", "missing");
	it->bad |= at.bad;
	return at.error;
}

static int sarif_result(const struct sarif_run *run, json_t *result, const char *where)
{
	struct item it = { run->list, 0, where, false, 0 };
	struct buf message = BUF_INIT, file = BUF_INIT;
	const char *kind;
	struct draft d = { 0 };
	json_t *rule;
	int error;

	if (!json_is_object(result)) {
		item_problem(&it, "", "expected an object, found %s", json_kind(result));
		return it.error;
	}
	rule = sarif_rule(run, result);
	/* Passing checks and rules that did not apply are no diagnostics. */
	kind = item_str(&it, result, "kind", false);
	if (kind && (!strcmp(kind, "pass") || !strcmp(kind, "notApplicable")))
		return it.error;
	d.code = item_str(&it, result, "ruleId", false);
	if (!d.code)
		d.code = json_string_value(field_get(result, "rule.id"));
	if (!d.code)
		d.code = json_string_value(field_get(rule, "id"));
	d.severity = item_str(&it, result, "level", false);
	if (!d.severity)
		d.severity = json_string_value(field_get(rule, "defaultConfiguration.level"));
	if (!d.severity)
		d.severity = "warning";     /* SARIF's default level */
	d.url = json_string_value(field_get(rule, "helpUri"));
	if ((error = sarif_message(&message, &it, result, rule)) < 0 ||
	    (error = sarif_location(&file, &it, run, result, &d)) < 0)
		goto done;
	d.message = message.ptr;
	d.file = file.ptr;
	error = item_keep(&it, run->tool, &d);
done:
	buf_release(&message);
	buf_release(&file);
	return error;
}

static int sarif_run_read(struct signal_list *list, json_t *v, const char *at, const char *tool)
{
	struct sarif_run run = { list, NULL, NULL, NULL, tool };
	json_t *results = field_get(v, "results");
	char where[64];
	size_t i;
	int error = 0;

	run.rules = field_get(v, "tool.driver.rules");
	run.artifacts = field_get(v, "artifacts");
	run.bases = field_get(v, "originalUriBaseIds");
	if (!run.tool)
		run.tool = json_string_value(field_get(v, "tool.driver.name"));
	if (!run.tool)
		run.tool = signal_format_tool(SIGNAL_SARIF);
	if (results && !json_is_array(results)) {
		snprintf(where, sizeof(where), "%s.results", at);
		return root_problem(list, where, "expected a list, found %s", json_kind(results));
	}
	for (i = 0; !error && i < json_array_size(results); i++) {
		snprintf(where, sizeof(where), "%s.results[%zu]", at, i);
		error = sarif_result(&run, json_array_get(results, i), where);
	}
	return error;
}

int sarif_parse(struct signal_list *list, json_t *root, const char *tool)
{
	if (!json_is_object(root))
		return root_problem(list, "$", "expected a SARIF log object, found %s", json_kind(root));
	return items_each(list, field_get(root, "runs"), "runs", tool, sarif_run_read);
}

