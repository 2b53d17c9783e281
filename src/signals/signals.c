/*
 * Linter output read into signals. Each format has one reader. The text
 * readers share the location prefix ("path:line:col:") and the way notes
 * join the diagnostic they belong to; the JSON readers share typed field
 * access that turns a bad field into a problem naming its path, so that one
 * odd item never costs the others.
 */
#include "signals.h"
#include "buf.h"
#include "status.h"

#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Detection looks at this many lines of text; the shape shows long before. */
#define DETECT_LINES 500
/* originalUriBaseIds may refer to each other; a cycle stops here. */
#define SARIF_BASE_DEPTH 8

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

static int format_list_error(const char *why)
{
	struct buf names = BUF_INIT;
	size_t i;
	int error;

	for (i = 0; i < SIGNAL_FORMAT_COUNT; i++)
		buf_printf(&names, "%s%s", i ? ", " : "", formats[i].name);
	error = error_set(RL_EPARSE, "cannot tell the format of the linter output: %s (known formats: %s)",
			  why, names.ptr ? names.ptr : "");
	buf_release(&names);
	return error;
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

/*
 * Room for one more element. The lists keep no capacity: it is 8 up to 8
 * elements and the next power of two after that, so the count says when
 * the array is full.
 */
static int grow(void **items, size_t count, size_t size)
{
	void *grown;

	if (count && (count < 8 || (count & (count - 1))))
		return 0;
	if (!(grown = realloc(*items, (count ? count * 2 : 8) * size)))
		return error_nomem();
	*items = grown;
	return 0;
}

static int problem_vadd(struct signal_list *list, int line, const char *field, const char *fmt, va_list ap)
{
	struct signal_problem *p;
	struct buf message = BUF_INIT;
	int error;

	if ((error = buf_vprintf(&message, fmt, ap)) < 0 ||
	    (error = grow((void **)&list->problems, list->nproblems, sizeof(*p))) < 0)
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

static int line_problem(struct signal_list *list, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int line_problem(struct signal_list *list, int line, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = problem_vadd(list, line, NULL, fmt, ap);
	va_end(ap);
	return error;
}

/* A signal as read, pointing into the input; draft_keep copies it into the list. */
struct draft {
	const char *file, *code, *message, *severity, *url;
	int line, column, end_line, end_column;
};

static int draft_keep(struct signal_list *list, const char *tool, const struct draft *d)
{
	/* Only read while it is copied: the strings stay the input's. */
	struct signal view = {
		.tool = (char *)tool, .code = (char *)(d->code ? d->code : ""), .message = (char *)d->message,
		.severity = (char *)d->severity, .file = (char *)d->file, .url = (char *)d->url,
		.line = d->line, .column = d->column, .end_line = d->end_line, .end_column = d->end_column,
	};
	int error;

	if ((error = grow((void **)&list->items, list->count, sizeof(view))) < 0 ||
	    (error = signal_copy(&list->items[list->count], &view)) < 0)
		return error;
	list->count++;
	return 0;
}

/* ------------------------------------------------------------ text formats */

/*
 * A gcc note waiting for the macro expansions printed after it, which move
 * it (see gcc_add); its strings are the input's lines.
 */
struct gcc_note {
	const char *file, *text;
	int line, column;
	struct buf related;     /* "\npath:line:column: note: in definition of macro ..." */
};

struct text_reader {
	struct signal_list *list;
	const char *tool;
	/* The last error or warning, which the notes after it may join; -1 for none. */
	long parent;
	/* gcc: the parent's message with its notes so far, and the note being read (when note.text is set). */
	struct buf message;
	struct gcc_note note;
};

typedef int (*line_fn)(struct text_reader *r, char *line, int number);

/*
 * One line without its end, CR and terminal escapes (colour, and the
 * OSC 8 hyperlinks gcc writes around option names): what a user sees.
 * trim also drops the spaces at its end.
 */
static int line_clean(struct buf *out, const char *p, size_t len, bool trim)
{
	const char *end = p + len;
	int error = buf_put(out, "", 0);

	while (!error && p < end) {
		if (*p == '\033' && p + 1 < end && p[1] == '[') {
			for (p += 2; p < end && !(*p >= 0x40 && *p <= 0x7e); p++)
				;
			p += p < end;
		} else if (*p == '\033' && p + 1 < end && p[1] == ']') {
			for (p += 2; p < end && *p != '\a' && !(*p == '\033' && p + 1 < end && p[1] == '\\'); p++)
				;
			if (p < end)
				p += *p == '\033' ? 2 : 1;
		} else {
			error = buf_putc(out, *p++);
		}
	}
	while (!error && out->len && (out->ptr[out->len - 1] == '\r' || (trim && out->ptr[out->len - 1] == ' ')))
		out->ptr[--out->len] = '\0';
	return error;
}

static int lines_each(struct text_reader *r, const char *text, size_t len, line_fn fn)
{
	struct buf line = BUF_INIT;
	const char *p = text, *end = text + len, *nl;
	int number = 0, error = 0;

	while (!error && p < end) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			nl = end;
		number++;
		buf_clear(&line);
		if ((error = line_clean(&line, p, (size_t)(nl - p), true)) == 0 && line.len)
			error = fn(r, line.ptr, number);
		p = nl + 1;
	}
	buf_release(&line);
	return error;
}

/*
 * The readers that look ahead (a message over several lines) read the text
 * as an array of lines, cleaned as line_clean does but with the spaces at
 * their ends, which are part of a message that goes on; empty lines are
 * kept, so that index + 1 is the line's number.
 */
struct text_lines {
	char **at;
	size_t count;
};

static void text_lines_release(struct text_lines *t)
{
	size_t i;

	for (i = 0; i < t->count; i++)
		free(t->at[i]);
	free(t->at);
	memset(t, 0, sizeof(*t));
}

static int text_lines_split(struct text_lines *out, const char *text, size_t len)
{
	struct buf line = BUF_INIT;
	const char *p = text, *end = text + len, *nl;
	int error = 0;

	memset(out, 0, sizeof(*out));
	while (!error && p < end) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			nl = end;
		buf_clear(&line);
		if ((error = line_clean(&line, p, (size_t)(nl - p), false)) < 0 ||
		    (error = grow((void **)&out->at, out->count, sizeof(*out->at))) < 0)
			break;
		if (!(out->at[out->count] = buf_detach(&line))) {
			error = error_nomem();
			break;
		}
		out->count++;
		p = nl + 1;
	}
	buf_release(&line);
	if (error < 0)
		text_lines_release(out);
	return error;
}

/* Reads the line at *i and those that belong to it, leaving *i at the next one to read. */
typedef int (*block_fn)(struct text_reader *r, const struct text_lines *t, size_t *i);

static int blocks_each(struct text_reader *r, const struct text_lines *t, block_fn fn)
{
	size_t i = 0;
	int error = 0;

	while (!error && i < t->count)
		error = fn(r, t, &i);
	return error;
}

static char *rtrim(char *s)
{
	size_t len = strlen(s);

	while (len && s[len - 1] == ' ')
		s[--len] = '\0';
	return s;
}

/* "path:line[:column[:end_line:end_column]]: rest", as every text format starts. */
struct location {
	char *path;
	long long nums[4];
	int n;
	char *rest;             /* after the colon and spaces; NULL when the line stops at the numbers */
};

/*
 * The path ends at the first colon followed by numbers and a colon (or the
 * end), so that "C:\x.c" and paths with other colons still read. Lines that
 * do not start this way (context, source echo, summaries) are not locations.
 */
static bool location_parse(struct location *loc, char *line)
{
	char *colon, *p;

	if (!*line || isspace((unsigned char)*line))
		return false;
	for (colon = strchr(line, ':'); colon; colon = strchr(colon + 1, ':')) {
		if (colon == line || !isdigit((unsigned char)colon[1]))
			continue;
		loc->n = 0;
		for (p = colon; *p == ':' && isdigit((unsigned char)p[1]) && loc->n < 4; ) {
			long long v = 0;

			for (p++; isdigit((unsigned char)*p); p++)
				v = v > INT_MAX ? v : v * 10 + (*p - '0');
			loc->nums[loc->n++] = v;
		}
		if (!*p || *p == ':')
			break;
	}
	if (!colon)
		return false;
	loc->rest = NULL;
	if (*p == ':')
		for (loc->rest = p + 1; *loc->rest == ' '; loc->rest++)
			;
	*colon = '\0';
	loc->path = line;
	return true;
}

/* Check the count of numbers a format allows (a bit mask of counts) and their range. */
static int location_check(struct text_reader *r, const struct location *loc, unsigned counts, int number,
			  bool *ok)
{
	int i;

	*ok = false;
	for (i = 0; i < loc->n; i++)
		if (loc->nums[i] > INT_MAX)
			return line_problem(r->list, number, "the line or column number is too large");
	if (!(counts & (1u << loc->n)))
		return line_problem(r->list, number, "%d numbers after the path; this format has %s", loc->n,
				    counts == (1u << 2 | 1u << 1) ? "a line and a column" :
				    "a line, a line and a column, or both with an end line and column");
	*ok = true;
	return 0;
}

static void draft_at(struct draft *d, const struct location *loc)
{
	memset(d, 0, sizeof(*d));
	d->file = loc->path;
	d->line = (int)loc->nums[0];
	d->column = loc->n > 1 ? (int)loc->nums[1] : 0;
}

/*
 * "error: text" and the like: the severity, with msg after it; NULL when
 * none of these. The tools put one space after the colon; the spaces after
 * it are the message's own (mypy indents the notes that list overload
 * variants).
 */
static const char *severity_prefix(char *rest, const char *const *severities, char **msg)
{
	size_t n;

	for (; *severities; severities++) {
		n = strlen(*severities);
		if (!strncmp(rest, *severities, n) && rest[n] == ':') {
			*msg = rest + n + 1 + (rest[n + 1] == ' ');
			return *severities;
		}
	}
	return NULL;
}

/*
 * A note right after an error or warning at the same file and line is part
 * of it (gcc, clang and mypy print a diagnostic's notes after it; mypy's
 * own JSON output folds them into the error's hint the same way): it is
 * added to that message on a line of its own. Any other note stands alone
 * as a signal with severity "note", since its location is what it is for
 * ("declared here", reveal_type).
 */
static int diagnostic_add(struct text_reader *r, const struct draft *d)
{
	struct signal *parent = r->parent >= 0 ? &r->list->items[r->parent] : NULL;
	bool note = !strcmp(d->severity, "note");
	struct buf joined = BUF_INIT;
	int error;

	if (note && parent && parent->line == d->line && !strcmp(parent->file, d->file)) {
		if ((error = buf_printf(&joined, "%s\n%s", parent->message, d->message)) < 0)
			return error;
		free(parent->message);
		parent->message = buf_detach(&joined);
		return 0;
	}
	if ((error = draft_keep(r->list, r->tool, d)) < 0)
		return error;
	r->parent = note ? -1 : (long)r->list->count - 1;
	return 0;
}

/* The trailing "[code]" of gcc and mypy, cut off the message; NULL when there is none. */
static char *trailing_code(char *msg, bool (*accept)(const char *code))
{
	size_t len = strlen(msg);
	char *open;

	if (!len || msg[len - 1] != ']' || !(open = strrchr(msg, '[')) || open == msg || open[-1] != ' ')
		return NULL;
	msg[len - 1] = '\0';
	if (!open[1] || !accept(open + 1)) {
		msg[len - 1] = ']';
		return NULL;
	}
	*open = '\0';
	for (len = (size_t)(open - msg); len && msg[len - 1] == ' '; len--)
		msg[len - 1] = '\0';
	return open + 1;
}

static bool all_of(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return false;
	return true;
}

/* ---- flake8: path:line:col: CODE message */

/* "E501", "F401", "SIM102": letters then digits. */
static size_t flake8_code_len(const char *s)
{
	size_t letters = 0, digits = 0;

	while (isalpha((unsigned char)s[letters]))
		letters++;
	while (isdigit((unsigned char)s[letters + digits]))
		digits++;
	return letters && digits && (s[letters + digits] == ' ' || !s[letters + digits]) ? letters + digits : 0;
}

static int flake8_line(struct text_reader *r, char *line, int number)
{
	struct location loc;
	struct draft d;
	size_t code_len;
	char *msg;
	bool ok;
	int error;

	if (!location_parse(&loc, line))
		return 0;       /* --show-source echo, carets, --count totals */
	if ((error = location_check(r, &loc, 1u << 1 | 1u << 2, number, &ok)) < 0 || !ok)
		return error;
	if (!loc.rest || !(code_len = flake8_code_len(loc.rest)))
		return line_problem(r->list, number,
				    "no code after the location (expected path:line:column: CODE message)");
	draft_at(&d, &loc);
	d.code = loc.rest;
	for (msg = loc.rest + code_len; *msg == ' '; msg++)
		;
	loc.rest[code_len] = '\0';
	/* ruff's concise text is flake8's with "[*]" on what it can fix. */
	if (!strncmp(msg, "[*] ", 4))
		msg += 4;
	if (!*msg)
		return line_problem(r->list, number, "no message after the code %s", d.code);
	d.message = msg;
	/* flake8 gives no severity; pycodestyle's W codes are warnings, the rest errors. */
	d.severity = d.code[0] == 'W' ? "warning" : "error";
	return draft_keep(r->list, r->tool, &d);
}

/*
 * ---- ruff's text: --output-format concise ("path:row:col: CODE [*] message",
 * flake8's lines; "[*]" marks what ruff can fix; a syntax error is
 * "path:row:col: invalid-syntax: message" in 0.16, "SyntaxError: message"
 * with no code in older versions) and full (the default since 0.5). In
 * 0.0.270 and 0.4.7 full output is the concise line followed by the
 * source; in 0.16 it is rustc's shape, a header line "CODE [*] message"
 * and the place on the next line, " --> path:row:col", then the source,
 * "help:" lines and the summary, which are skipped.
 */
struct ruff_reader {
	struct text_reader r;
	struct buf header;      /* the last line that can be a full diagnostic's header */
	int header_line;        /* its line in the input, 0 when the line before was not one */
};

#define RUFF_SYNTAX "invalid-syntax"

/* "[*] " after the code: ruff can fix it. */
static char *ruff_fixable_skip(char *msg)
{
	return strncmp(msg, "[*] ", 4) ? msg : msg + 4;
}

/* A syntax error's code and message: "invalid-syntax: text"; "SyntaxError: text" has no code. */
static bool ruff_syntax(struct draft *d, char *rest)
{
	size_t n = strlen(RUFF_SYNTAX);

	if (!strncmp(rest, RUFF_SYNTAX ": ", n + 2)) {
		rest[n] = '\0';
		d->code = rest;
		d->message = rest + n + 2;
		return true;
	}
	if (!strncmp(rest, "SyntaxError: ", 13)) {
		d->code = "";
		d->message = rest;
		return true;
	}
	return false;
}

/* "CODE [*] message" or "invalid-syntax: message" into d; false when the text is neither. */
static bool ruff_diagnostic_text(struct draft *d, char *text)
{
	size_t code_len;
	char *msg;

	if (ruff_syntax(d, text))
		return *d->message != '\0';
	if (!(code_len = flake8_code_len(text)))
		return false;
	for (msg = text + code_len; *msg == ' '; msg++)
		;
	text[code_len] = '\0';
	d->code = text;
	d->message = ruff_fixable_skip(msg);
	return *d->message != '\0';
}

/* " --> path:row:col" of rustc-shaped full output; the location, or false. */
static bool ruff_arrow(struct location *loc, char *line)
{
	char *p = line;

	while (*p == ' ')
		p++;
	if (strncmp(p, "--> ", 4))
		return false;
	return location_parse(loc, p + 4) && loc->n == 2 && !loc->rest;
}

static int ruff_text_line(struct text_reader *tr, char *line, int number)
{
	struct ruff_reader *rr = (struct ruff_reader *)tr;
	int header_line = rr->header_line;
	struct location loc;
	struct draft d;
	bool ok;
	int error;

	rr->header_line = 0;
	if (ruff_arrow(&loc, line)) {
		if (!header_line)
			return line_problem(tr->list, number, "a location with no diagnostic line before it");
		if ((error = location_check(tr, &loc, 1u << 2, number, &ok)) < 0 || !ok)
			return error;
		draft_at(&d, &loc);
		if (!ruff_diagnostic_text(&d, rr->header.ptr))
			return line_problem(tr->list, header_line, "not a diagnostic: expected CODE message");
		d.severity = "error";
		return draft_keep(tr->list, tr->tool, &d);
	}
	if (!isspace((unsigned char)*line) && !location_parse(&loc, line)) {
		/* Maybe a full diagnostic's header: the next line tells. */
		buf_clear(&rr->header);
		if ((error = buf_puts(&rr->header, line)) < 0)
			return error;
		rr->header_line = number;
		return 0;
	}
	if (isspace((unsigned char)*line))
		return 0;       /* the source, carets, "= help:" */
	if ((error = location_check(tr, &loc, 1u << 2, number, &ok)) < 0 || !ok)
		return error;
	draft_at(&d, &loc);
	if (!loc.rest || !ruff_diagnostic_text(&d, loc.rest))
		return line_problem(tr->list, number,
				    "no code after the location (expected path:row:column: CODE message)");
	d.severity = "error";   /* as ruff's JSON says of every diagnostic */
	return draft_keep(tr->list, tr->tool, &d);
}

/* ---- mypy: path:line[:col[:end_line:end_col]]: error: message  [code] */

static const char *const mypy_severities[] = { "error", "warning", "note", NULL };

static bool mypy_code_ok(const char *code)
{
	return all_of(code, "-_") && islower((unsigned char)*code);
}

/* The line ends with a "[code]" the format accepts (alone on the line, or after a space). */
static bool line_has_code(const char *line, bool (*accept)(const char *code))
{
	struct buf copy = BUF_INIT;
	char *open;
	bool has = false;

	if (buf_puts(&copy, line) < 0)
		return false;
	rtrim(copy.ptr);
	copy.len = strlen(copy.ptr);
	if (copy.len > 2 && copy.ptr[copy.len - 1] == ']' && (open = strrchr(copy.ptr, '[')) &&
	    (open == copy.ptr || open[-1] == ' ')) {
		copy.ptr[copy.len - 1] = '\0';
		has = open[1] && accept(open + 1);
	}
	buf_release(&copy);
	return has;
}

static bool line_located(const char *line)
{
	struct location loc;
	char *copy = strdup(line);
	bool located = copy && location_parse(&loc, copy);

	free(copy);
	return located;
}

/* A line of mypy's that is not part of an error's message: another diagnostic (text or JSON), the summary. */
static bool mypy_other(const char *line)
{
	return *line == '{' || line_located(line) || strstr(line, ": error: ") || strstr(line, ": note: ") ||
		strstr(line, ": warning: ") || (!strncmp(line, "Found ", 6) && isdigit((unsigned char)line[6])) ||
		!strncmp(line, "Success: ", 9);
}

/* The marker --pretty prints under the source line: "^", "^~~~", cut as "^~~...". */
static bool mypy_marker(const char *line)
{
	while (*line == ' ')
		line++;
	if (*line++ != '^')
		return false;
	while (*line == '~' || *line == '.')
		line++;
	return !*line;
}

/*
 * mypy --pretty wraps an error's message at the terminal's width, breaking
 * at a space, the code last, and prints the source line indented by four
 * spaces and a marker under it (not for an error about a whole file). The
 * lines after an error go on with its message up to the one that ends with
 * a code, the source excerpt, or the next diagnostic or summary: the index
 * just past them, or from when there are none. An indented line that is
 * not that excerpt (a crash's traceback) or an empty line is not mypy's
 * message: then none are.
 */
static size_t mypy_wrapped(const struct text_lines *t, size_t from)
{
	size_t j;

	for (j = from; j < t->count && !mypy_other(t->at[j]); j++) {
		if (!*t->at[j] || !strncmp(t->at[j], "Traceback ", 10))
			return from;
		if (!strncmp(t->at[j], "    ", 4))
			return j + 1 < t->count && mypy_marker(t->at[j + 1]) ? j : from;
		if (line_has_code(t->at[j], mypy_code_ok))
			return j + 1;
	}
	return j;
}

/* The message and what goes on with it, each line after the first where a space was. */
static int mypy_join(struct buf *out, const char *msg, const struct text_lines *t, size_t from, size_t to)
{
	int error = buf_puts(out, msg);

	for (; !error && from < to; from++)
		error = buf_printf(out, " %s", t->at[from]);
	return error;
}

/*
 * The diagnostic read from the line before *i, with msg its message's
 * first line: the lines its message goes on over are read too.
 */
static int mypy_keep(struct text_reader *r, const struct text_lines *t, size_t *i, int number, struct draft *d,
		     char *msg)
{
	struct buf joined = BUF_INIT;
	size_t end;
	int error;

	if (!line_has_code(msg, mypy_code_ok) && (end = mypy_wrapped(t, *i)) > *i) {
		if ((error = mypy_join(&joined, msg, t, *i, end)) < 0)
			goto done;
		msg = joined.ptr;
		*i = end;
	}
	if (!*rtrim(msg)) {
		error = line_problem(r->list, number, "no message after %s:", d->severity);
		goto done;
	}
	d->code = trailing_code(msg, mypy_code_ok);
	d->message = msg;
	error = diagnostic_add(r, d);
done:
	buf_release(&joined);
	return error;
}

/*
 * "path: error: message" is about a whole file (line 0). "path: note: In
 * function "f":" and "At top level:" only say where the next lines are;
 * "mypy: ..." is about the run, not a file.
 */
static int mypy_unlocated(struct text_reader *r, const struct text_lines *t, size_t *i, int number)
{
	char *line = t->at[number - 1], *sep = strstr(line, ": "), *msg;
	struct draft d;

	if (!sep || sep == line || isspace((unsigned char)*line))
		return 0;
	*sep = '\0';
	memset(&d, 0, sizeof(d));
	if (!(d.severity = severity_prefix(sep + 2, mypy_severities, &msg)) || !msg[strspn(msg, " ")] ||
	    !strcmp(line, "mypy"))
		return 0;
	if (!strcmp(d.severity, "note") && rtrim(msg) && msg[strlen(msg) - 1] == ':' &&
	    (!strncmp(msg, "In ", 3) || !strncmp(msg, "At top level", 12)))
		return 0;
	d.file = line;
	return mypy_keep(r, t, i, number, &d, msg);
}

static int mypy_block(struct text_reader *r, const struct text_lines *t, size_t *i)
{
	struct location loc;
	struct draft d;
	char *line = t->at[*i], *msg;
	int number = (int)++*i, error;
	bool ok;

	if (!location_parse(&loc, line))
		return mypy_unlocated(r, t, i, number);
	if ((error = location_check(r, &loc, 1u << 1 | 1u << 2 | 1u << 4, number, &ok)) < 0 || !ok)
		return error;
	draft_at(&d, &loc);
	if (!loc.rest || !(d.severity = severity_prefix(loc.rest, mypy_severities, &msg)))
		return line_problem(r->list, number,
				    "no error:, warning: or note: after the location (expected path:line: error: message)");
	if (loc.n == 4) {
		d.end_line = (int)loc.nums[2];
		/* mypy's end column is the last character; ours is just past it. */
		d.end_column = loc.nums[3] > 0 ? (int)loc.nums[3] + 1 : 0;
	}
	return mypy_keep(r, t, i, number, &d, msg);
}

/* ---- gcc and clang (and cppcheck's gcc-like template): path:line:col: warning: message [-Wflag] */

static const char *const gcc_severities[] = {
	"fatal error", "internal compiler error", "error", "warning", "note", "remark",
	/* cppcheck's {severity} */
	"style", "performance", "portability", "information", "debug",
	NULL
};

/*
 * "[-Wflag]", clang's "[-Werror,-Wflag]" and "[-Wflag,Category Name]",
 * gcc's "[-Werror=flag]", "[-fpermissive]", cppcheck's "[id]", and
 * clang-tidy's checks, "[bugprone-name]", "[clang-analyzer-core.Name]",
 * "[check,-warnings-as-errors]".
 */
static bool gcc_code_ok(const char *code)
{
	return !strncmp(code, "-W", 2) || !strncmp(code, "-f", 2) || all_of(code, "_") ||
		(islower((unsigned char)*code) && strchr(code, '-') && all_of(code, "-._,"));
}

/* The option that names the warning: "-Wflag" out of its list, "-Wflag" for "-Werror=flag". */
static char *gcc_code_pick(char *code)
{
	char *item, *next, *pick = NULL;

	for (item = code; item; item = next) {
		if ((next = strchr(item, ',')))
			*next++ = '\0';
		if (!strncmp(item, "-Werror=", 8)) {
			memmove(item + 2, item + 8, strlen(item + 8) + 1);
			return item;
		}
		if (!pick && !strncmp(item, "-W", 2) && strcmp(item, "-Werror"))
			pick = item;
	}
	return pick ? pick : code;
}

/* "path:line:column", without what is 0. */
static int place_put(struct buf *out, const char *file, int line, int column)
{
	if (line <= 0)
		return buf_puts(out, file);
	return column > 0 ? buf_printf(out, "%s:%d:%d", file, line, column) : buf_printf(out, "%s:%d", file, line);
}

/* Carets and tildes under a source line (after gcc's "   |" margin). */
static bool gcc_caret(const char *line)
{
	bool caret = false;

	for (; *line; line++) {
		if (*line == '^' || *line == '~')
			caret = true;
		else if (*line != ' ' && *line != '|' && !isdigit((unsigned char)*line))
			return false;
	}
	return caret;
}

/*
 * Lines no message goes on over: another diagnostic, context ("In file
 * included from", "f.c: In function 'g':", "At top level:"), source echo
 * with gcc's line numbers, a caret line, clang's summary.
 */
static bool gcc_other(const char *line)
{
	const char *p, *sep = strstr(line, ": ");
	size_t len = strlen(line);

	for (p = line; *p == ' ' || isdigit((unsigned char)*p); p++)
		;
	return line_located(line) || *p == '|' || gcc_caret(line) || !strncmp(line, "In file included from ", 22) ||
		(*line == ' ' && !strncmp(p, "from ", 5)) ||
		(sep && (!strncmp(sep + 2, "In ", 3) || !strncmp(sep + 2, "At ", 3)) && len && line[len - 1] == ':') ||
		strstr(line, " generated.");
}

/*
 * A message over several lines: gcc prints the newlines a message holds (a
 * format string's), clang-tidy the analyzer's multi-line messages (its
 * Padding check's field order); the option or check in brackets ends it. The
 * index just past the line with the code, or from when there is none: a
 * line ending with brackets that a caret line follows is source echo.
 */
static size_t gcc_wrapped(const struct text_lines *t, size_t from)
{
	size_t j;

	for (j = from; j < t->count && !gcc_other(t->at[j]); j++)
		if (line_has_code(t->at[j], gcc_code_ok))
			return j + 1 < t->count && gcc_caret(t->at[j + 1]) ? from : j + 1;
	return from;
}

static bool gcc_expansion(const char *msg)
{
	return !strncmp(msg, "in expansion of macro ", 22);
}

/* The note read last joins its diagnostic's message: its text alone at the same line, else after its place. */
static int gcc_note_flush(struct text_reader *r)
{
	struct gcc_note *n = &r->note;
	const struct signal *s = &r->list->items[r->parent];
	int error = 0;

	if (!n->text)
		return 0;
	if ((error = buf_putc(&r->message, '\n')) == 0 && (s->line != n->line || strcmp(s->file, n->file)) &&
	    (error = place_put(&r->message, n->file, n->line, n->column)) == 0)
		error = buf_puts(&r->message, ": note: ");
	if (error == 0 && (error = buf_puts(&r->message, n->text)) == 0 && n->related.len)
		error = buf_put(&r->message, n->related.ptr, n->related.len);
	n->text = NULL;
	buf_clear(&n->related);
	return error;
}

/* The diagnostic's group ends: its message is what was joined. */
static int gcc_group_end(struct text_reader *r)
{
	struct signal *s;
	int error;

	if (r->parent < 0)
		return 0;
	s = &r->list->items[r->parent];
	error = gcc_note_flush(r);
	r->parent = -1;
	if (error < 0)
		return error;
	free(s->message);
	s->message = buf_detach(&r->message);
	return 0;
}

/*
 * "in expansion of macro 'M'" after a diagnostic (or a note) inside a macro
 * moves it where the macro is expanded, as gcc's JSON output places it; the
 * place it had is kept on a line of the message, "path:line:column: note:
 * in definition of macro 'M'". A chain (a macro expanded in another) moves
 * it out to the last expansion.
 */
static int gcc_expand(struct text_reader *r, const struct draft *d)
{
	struct signal *s = &r->list->items[r->parent];
	struct gcc_note *n = &r->note;
	struct buf *related = n->text ? &n->related : &r->message;
	char *file;
	int error;

	if ((error = buf_putc(related, '\n')) < 0 ||
	    (error = n->text ? place_put(related, n->file, n->line, n->column) :
	     place_put(related, s->file, s->line, s->column)) < 0 ||
	    (error = buf_printf(related, ": note: in definition of macro %s", d->message + 22)) < 0)
		return error;
	if (n->text) {
		n->file = d->file;
		n->line = d->line;
		n->column = d->column;
		return 0;
	}
	if (!(file = strdup(d->file)))
		return error_nomem();
	free(s->file);
	s->file = file;
	s->line = d->line;
	s->column = d->column;
	return 0;
}

/*
 * gcc and clang print a diagnostic's notes after it, before the next error
 * or warning, whatever their place ("declared here" in another file, a
 * "...this statement" or a macro expansion): every note joins the
 * diagnostic before it. A note with none before it stands alone, as a
 * signal the notes after it join.
 */
static int gcc_add(struct text_reader *r, const struct draft *d)
{
	int error;

	if (strcmp(d->severity, "note") || r->parent < 0) {
		if ((error = gcc_group_end(r)) < 0 || (error = draft_keep(r->list, r->tool, d)) < 0)
			return error;
		r->parent = (long)r->list->count - 1;
		buf_clear(&r->message);
		return buf_puts(&r->message, d->message);
	}
	if (gcc_expansion(d->message))
		return gcc_expand(r, d);
	if ((error = gcc_note_flush(r)) < 0)
		return error;
	r->note.file = d->file;
	r->note.text = d->message;
	r->note.line = d->line;
	r->note.column = d->column;
	return 0;
}

static int gcc_block(struct text_reader *r, const struct text_lines *t, size_t *i)
{
	struct buf joined = BUF_INIT;
	struct location loc;
	struct draft d;
	char *line = t->at[*i], *msg, *code = NULL;
	int number = (int)++*i, error;
	size_t end;
	bool ok;

	if (!strncmp(line, "In file included from ", 22) || !location_parse(&loc, line))
		return 0;       /* context, source echo, carets, fix-it hints, summaries */
	if ((error = location_check(r, &loc, 1u << 1 | 1u << 2, number, &ok)) < 0 || !ok)
		return error;
	draft_at(&d, &loc);
	if (!loc.rest || !(d.severity = severity_prefix(loc.rest, gcc_severities, &msg)))
		return line_problem(r->list, number, "no error:, warning: or note: after the location "
				    "(expected path:line:column: warning: message)");
	if (strcmp(d.severity, "note") && !line_has_code(msg, gcc_code_ok) && (end = gcc_wrapped(t, *i)) > *i) {
		if ((error = buf_puts(&joined, msg)) < 0)
			goto done;
		for (; *i < end && !error; ++*i)
			error = buf_printf(&joined, "\n%s", t->at[*i]);
		if (error < 0)
			goto done;
		msg = joined.ptr;
	}
	if (!*rtrim(msg)) {
		error = line_problem(r->list, number, "no message after %s:", d.severity);
		goto done;
	}
	if ((code = trailing_code(msg, gcc_code_ok)))
		d.code = gcc_code_pick(code);
	d.message = msg;
	error = gcc_add(r, &d);
done:
	buf_release(&joined);
	return error;
}

/* Order of signals for finding the same one twice; equal ones by their place in the list. */
struct signal_at {
	const struct signal *s;
	size_t index;
};

static int signal_at_cmp(const void *pa, const void *pb)
{
	const struct signal *a = ((const struct signal_at *)pa)->s, *b = ((const struct signal_at *)pb)->s;
	size_t ia = ((const struct signal_at *)pa)->index, ib = ((const struct signal_at *)pb)->index;
	int c;

	if ((c = strcmp(a->file, b->file)) || (c = (a->line > b->line) - (a->line < b->line)) ||
	    (c = (a->column > b->column) - (a->column < b->column)) || (c = strcmp(a->severity, b->severity)) ||
	    (c = strcmp(a->code, b->code)) || (c = strcmp(a->message, b->message)))
		return c;
	return (ia > ib) - (ia < ib);
}

static bool signal_same(const struct signal *a, const struct signal *b)
{
	return !strcmp(a->file, b->file) && a->line == b->line && a->column == b->column &&
		!strcmp(a->severity, b->severity) && !strcmp(a->code, b->code) && !strcmp(a->message, b->message);
}

/*
 * A header's diagnostics come again for every translation unit that
 * includes it: keep the first of identical ones (place, severity, code,
 * message with its notes), in the order read.
 */
static int signals_dedupe(struct signal_list *list)
{
	struct signal_at *sorted;
	bool *drop;
	size_t i, kept = 0;

	if (list->count < 2)
		return 0;
	sorted = calloc(list->count, sizeof(*sorted));
	drop = calloc(list->count, sizeof(*drop));
	if (!sorted || !drop) {
		free(sorted);
		free(drop);
		return error_nomem();
	}
	for (i = 0; i < list->count; i++)
		sorted[i] = (struct signal_at){ &list->items[i], i };
	qsort(sorted, list->count, sizeof(*sorted), signal_at_cmp);
	for (i = 1; i < list->count; i++)
		drop[sorted[i].index] = signal_same(sorted[i - 1].s, sorted[i].s);
	for (i = 0; i < list->count; i++) {
		if (drop[i])
			signal_release(&list->items[i]);
		else
			list->items[kept++] = list->items[i];
	}
	list->count = kept;
	free(sorted);
	free(drop);
	return 0;
}

static int gcc_parse(struct signal_list *list, const char *text, size_t len, const char *tool)
{
	struct text_reader r = { .list = list, .tool = tool, .parent = -1 };
	struct text_lines t;
	int error;

	if ((error = text_lines_split(&t, text, len)) < 0)
		return error;
	/* The last group ends before the lines its note's strings are in go. */
	if ((error = blocks_each(&r, &t, gcc_block)) == 0)
		error = gcc_group_end(&r);
	buf_release(&r.message);
	buf_release(&r.note.related);
	text_lines_release(&t);
	if (error == 0)
		error = signals_dedupe(list);
	return error;
}

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
		error = problem_vadd(it->list, it->line, path.ptr, fmt, ap);
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
	return it->bad ? 0 : draft_keep(it->list, tool, d);
}

static int json_load(json_t **out, const char *text, size_t len, enum signal_format format)
{
	json_error_t err;

	if (!(*out = json_loadb(text, len, 0, &err)))
		return error_set(RL_EPARSE, "the %s output is not valid JSON (line %d, column %d: %s)",
				 formats[format].name, err.line, err.column, err.text);
	return 0;
}

static int root_problem(struct signal_list *list, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int root_problem(struct signal_list *list, const char *field, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = problem_vadd(list, 0, field, fmt, ap);
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

static int ruff_parse(struct signal_list *list, json_t *root, const char *tool)
{
	return items_each(list, root, "", tool, ruff_item);
}

static bool ruff_shaped(json_t *v);

/* ruff --output-format json-lines: one object a line, read as the list's items are. */
static int ruff_jsonl_line(struct text_reader *r, char *line, int number)
{
	json_error_t err;
	json_t *v;
	int error;

	if (!(v = json_loads(line, 0, &err)))
		return line_problem(r->list, number, "not a JSON object: %s (column %d)", err.text, err.column);
	if (json_is_object(v))
		error = ruff_item_at(r->list, v, "", number, r->tool);
	else
		error = line_problem(r->list, number, "expected a JSON object, found %s", json_kind(v));
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

static int bandit_parse(struct signal_list *list, json_t *root, const char *tool)
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
		snprintf(url, sizeof(url), "https://www.shellcheck.net/wiki/%s", code);
		d.url = url;
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

static int shellcheck_parse(struct signal_list *list, json_t *root, const char *tool)
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
static int mypy_json_block(struct text_reader *r, const struct text_lines *t, size_t *i)
{
	char *line = t->at[*i];
	json_error_t err;
	json_t *v;
	int number, error;

	if (*line != '{' && *line != '[')
		return mypy_block(r, t, i);
	number = (int)++*i;
	if (!(v = json_loads(line, 0, &err)))
		return line_problem(r->list, number, "not a JSON object: %s (column %d)", err.text, err.column);
	if (json_is_object(v))
		error = mypy_json_item(r->list, v, number, r->tool);
	else
		error = line_problem(r->list, number, "expected a JSON object, found %s", json_kind(v));
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
		run.tool = formats[SIGNAL_SARIF].tool;
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

static int sarif_parse(struct signal_list *list, json_t *root, const char *tool)
{
	if (!json_is_object(root))
		return root_problem(list, "$", "expected a SARIF log object, found %s", json_kind(root));
	return items_each(list, field_get(root, "runs"), "runs", tool, sarif_run_read);
}

/* ------------------------------------------------------------ detection */

static bool is_blank(const char *text, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!isspace((unsigned char)text[i]))
			return false;
	return true;
}

static bool has(json_t *obj, const char *key)
{
	return json_object_get(obj, key) != NULL;
}

/* An item of ruff's JSON. */
static bool ruff_shaped(json_t *v)
{
	return has(v, "location") || has(v, "end_location") || has(v, "noqa_row") || has(v, "filename");
}

static bool mypy_json_shaped(json_t *obj)
{
	return json_is_object(obj) && has(obj, "file") && has(obj, "line") && has(obj, "message");
}

static int detect_json(enum signal_format *out, json_t *root)
{
	json_t *v;
	size_t i;

	if (json_is_array(root)) {
		json_array_foreach(root, i, v) {
			if (ruff_shaped(v)) {
				*out = SIGNAL_RUFF;
				return 0;
			}
			if (has(v, "file") && (has(v, "level") || has(v, "endLine"))) {
				*out = SIGNAL_SHELLCHECK;
				return 0;
			}
		}
		if (json_array_size(root))
			return format_list_error("a JSON list whose items are neither ruff's nor shellcheck's diagnostics");
		/* ruff and shellcheck both write [] when all is well: either reads no signals. */
		*out = SIGNAL_RUFF;
		return 0;
	}
	if (has(root, "runs") || (json_string_value(json_object_get(root, "$schema")) &&
				  strstr(json_string_value(json_object_get(root, "$schema")), "sarif")))
		*out = SIGNAL_SARIF;
	else if (json_is_array(json_object_get(root, "comments")))
		*out = SIGNAL_SHELLCHECK;
	else if (has(root, "results") && (has(root, "metrics") || has(root, "generated_at") || has(root, "errors")))
		*out = SIGNAL_BANDIT;
	else if (mypy_json_shaped(root))
		*out = SIGNAL_MYPY_JSON;
	else if (ruff_shaped(root))
		*out = SIGNAL_RUFF;     /* json-lines with one diagnostic */
	else
		return format_list_error("a JSON object of none of the known shapes");
	return 0;
}

/* Evidence for each text format; the format with the most wins. */
struct votes {
	int n[SIGNAL_FORMAT_COUNT];
};

static bool python_path(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot && (!strcmp(dot, ".py") || !strcmp(dot, ".pyi") || !strcmp(dot, ".pyw"));
}

static void vote_unlocated(struct votes *v, const char *line)
{
	const char *p;

	if (!strncmp(line, "Found ", 6) || !strncmp(line, "Success: no issues found", 24) ||
	    strstr(line, ": note: In function") || strstr(line, ": note: At top level:"))
		v->n[SIGNAL_MYPY]++;
	else if (strstr(line, ": In function") || strstr(line, ": At top level:") ||
		 !strncmp(line, "In file included from ", 22) || strstr(line, " generated."))
		v->n[SIGNAL_GCC]++;
	else if (isspace((unsigned char)*line)) {
		/* gcc's source echo: "   13 |   if (x)" and "      |   ^" */
		for (p = line; isspace((unsigned char)*p) || isdigit((unsigned char)*p); p++)
			;
		if (*p == '|')
			v->n[SIGNAL_GCC]++;
	}
}

/*
 * What only ruff's text shows: "[*]" after a code, "invalid-syntax:", the
 * " --> path:row:col" of its full output, its "help:" and caret lines, its
 * summary. One such mark outweighs any number of source lines, which look
 * like gcc's echo.
 */
#define RUFF_MARK 10000

static bool ruff_marked_line(const char *line)
{
	const char *p = line;
	struct location loc;
	char copy[512];

	if (!strncmp(line, "[*] ", 4) && strstr(line, " fixable with the "))
		return true;
	if (!strncmp(line, "Found ", 6) && isdigit((unsigned char)line[6]) && !strstr(line, " in ") &&
	    (strstr(line, " error.") || strstr(line, " errors.") || strstr(line, " errors (")))
		return true;
	while (*p == ' ')
		p++;
	if (p != line && (!strncmp(p, "= help: ", 8) || !strncmp(p, "-->", 3))) {
		snprintf(copy, sizeof(copy), "%s", line);
		return *p == '=' || ruff_arrow(&loc, copy);
	}
	return false;
}

static void vote_located(struct votes *v, struct location *loc)
{
	char *msg, *code;
	const char *sev;
	bool python = python_path(loc->path);
	size_t n;

	if (!loc->rest)
		return;
	if (!strncmp(loc->rest, RUFF_SYNTAX ": ", strlen(RUFF_SYNTAX) + 2)) {
		v->n[SIGNAL_RUFF_TEXT] += RUFF_MARK;
	} else if ((n = flake8_code_len(loc->rest))) {
		v->n[SIGNAL_FLAKE8] += 2;
		if (!strncmp(loc->rest + n, " [*] ", 5))
			v->n[SIGNAL_RUFF_TEXT] += RUFF_MARK;
	} else if ((sev = severity_prefix(loc->rest, mypy_severities, &msg)) && (python || loc->n != 2)) {
		v->n[SIGNAL_MYPY] += 2;
		v->n[SIGNAL_MYPY] += trailing_code(msg, mypy_code_ok) != NULL;
	} else if ((sev = severity_prefix(loc->rest, gcc_severities, &msg))) {
		v->n[python ? SIGNAL_MYPY : SIGNAL_GCC] += 2;
		if ((code = trailing_code(msg, gcc_code_ok)))
			v->n[*code == '-' ? SIGNAL_GCC : python ? SIGNAL_MYPY : SIGNAL_GCC]++;
	}
}

static void vote_line(struct votes *v, char *line)
{
	struct location loc;
	json_t *obj;

	if (*line == '{') {
		if ((obj = json_loads(line, 0, NULL)) && mypy_json_shaped(obj))
			v->n[SIGNAL_MYPY_JSON] += 3;
		else if (obj && ruff_shaped(obj))
			v->n[SIGNAL_RUFF] += 3;         /* ruff's json-lines */
		json_decref(obj);
	} else if (ruff_marked_line(line)) {
		v->n[SIGNAL_RUFF_TEXT] += RUFF_MARK;
	} else if (location_parse(&loc, line)) {
		vote_located(v, &loc);
	} else {
		vote_unlocated(v, line);
	}
}

static int detect_text(enum signal_format *out, const char *text, size_t len)
{
	struct buf line = BUF_INIT;
	struct votes v = { { 0 } };
	const char *p = text, *end = text + len, *nl;
	int lines = 0, best = -1, i, error = 0;

	while (!error && p < end && lines++ < DETECT_LINES) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			nl = end;
		buf_clear(&line);
		if ((error = line_clean(&line, p, (size_t)(nl - p), true)) == 0)
			vote_line(&v, line.ptr);
		p = nl + 1;
	}
	buf_release(&line);
	if (error)
		return error;
	for (i = 0; i < SIGNAL_FORMAT_COUNT; i++)
		if (v.n[i] && (best < 0 || v.n[i] > v.n[best]))
			best = i;
	if (best < 0)
		return format_list_error("no line looks like a diagnostic");
	*out = (enum signal_format)best;
	return 0;
}

static const char *skip_bom(const char *text, size_t *len)
{
	if (*len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
		*len -= 3;
		return text + 3;
	}
	return text;
}

int signals_detect(enum signal_format *out, const char *text, size_t len)
{
	json_error_t err;
	json_t *root;
	char why[256];
	size_t skip = 0;
	int error;

	text = skip_bom(text, &len);
	while (skip < len && isspace((unsigned char)text[skip]))
		skip++;
	if (skip == len)
		return format_list_error("the input is empty");
	if (text[skip] == '{' || text[skip] == '[') {
		if ((root = json_loadb(text + skip, len - skip, 0, &err))) {
			error = detect_json(out, root);
			json_decref(root);
			return error;
		}
		/* Not one document: mypy's JSON lines, or text after all. */
		if (detect_text(out, text, len) == 0)
			return 0;
		snprintf(why, sizeof(why), "it starts like JSON but does not parse (line %d, column %d: %s)",
			 err.line, err.column, err.text);
		return format_list_error(why);
	}
	return detect_text(out, text, len);
}

/* -------------------------------------------------------------- parsing */

typedef int (*json_parser)(struct signal_list *list, json_t *root, const char *tool);

static int parse_text(struct signal_list *list, const char *text, size_t len, const char *tool, line_fn fn)
{
	struct text_reader r = { .list = list, .tool = tool, .parent = -1 };

	return lines_each(&r, text, len, fn);
}

static int parse_blocks(struct signal_list *list, const char *text, size_t len, const char *tool, block_fn fn)
{
	struct text_reader r = { .list = list, .tool = tool, .parent = -1 };
	struct text_lines t;
	int error;

	if ((error = text_lines_split(&t, text, len)) < 0)
		return error;
	error = blocks_each(&r, &t, fn);
	text_lines_release(&t);
	return error;
}

static int parse_json(struct signal_list *list, const char *text, size_t len, const char *tool,
		      json_parser fn)
{
	json_t *root;
	int error;

	if (is_blank(text, len))
		return 0;
	if ((error = json_load(&root, text, len, list->format)) < 0)
		return error;
	error = fn(list, root, tool);
	json_decref(root);
	return error;
}

/* ruff's JSON: one list (json), or an object a line (json-lines). */
static int parse_ruff_json(struct signal_list *list, const char *text, size_t len, const char *tool)
{
	size_t skip = 0;
	json_t *one = NULL;
	bool lines;

	while (skip < len && isspace((unsigned char)text[skip]))
		skip++;
	/* Objects a line; one object alone is one document, and another shape a problem. */
	lines = skip < len && text[skip] == '{' &&
		(!(one = json_loadb(text, len, 0, NULL)) || ruff_shaped(one));
	json_decref(one);
	if (lines)
		return parse_text(list, text, len, tool, ruff_jsonl_line);
	return parse_json(list, text, len, tool, ruff_parse);
}

static int parse_ruff_text(struct signal_list *list, const char *text, size_t len, const char *tool)
{
	struct ruff_reader rr = { .r = { .list = list, .tool = tool, .parent = -1 }, .header = BUF_INIT };
	int error = lines_each(&rr.r, text, len, ruff_text_line);

	buf_release(&rr.header);
	buf_release(&rr.r.message);
	return error;
}

static int parse_format(struct signal_list *list, const char *text, size_t len, const char *tool)
{
	switch (list->format) {
	case SIGNAL_RUFF: return parse_ruff_json(list, text, len, tool);
	case SIGNAL_FLAKE8: return parse_text(list, text, len, tool, flake8_line);
	case SIGNAL_MYPY: return parse_blocks(list, text, len, tool, mypy_block);
	case SIGNAL_MYPY_JSON: return parse_blocks(list, text, len, tool, mypy_json_block);
	case SIGNAL_BANDIT: return parse_json(list, text, len, tool, bandit_parse);
	case SIGNAL_SARIF: return parse_json(list, text, len, tool, sarif_parse);
	case SIGNAL_GCC: return gcc_parse(list, text, len, tool);
	case SIGNAL_SHELLCHECK: return parse_json(list, text, len, tool, shellcheck_parse);
	case SIGNAL_RUFF_TEXT: return parse_ruff_text(list, text, len, tool);
	case SIGNAL_FORMAT_COUNT: break;
	}
	return error_set(RL_EUSAGE, "unknown signal format %d", (int)list->format);
}

int signals_parse(struct signal_list *out, const char *text, size_t len, int format, const char *tool)
{
	enum signal_format detected;
	int error;

	memset(out, 0, sizeof(*out));
	if (format >= SIGNAL_FORMAT_COUNT)
		return error_set(RL_EUSAGE, "unknown signal format %d", format);
	text = skip_bom(text, &len);
	if (format < 0 && is_blank(text, len)) {
		/* Nothing to tell the format from, and nothing to read. */
		if (!signal_format_parse(&out->format, tool))
			out->format = SIGNAL_FORMAT_COUNT;
		return 0;
	}
	if (format < 0 && (error = signals_detect(&detected, text, len)) < 0)
		return error;
	out->format = format < 0 ? detected : (enum signal_format)format;
	/* SARIF names its tool in each run; the others are named by their format. */
	if ((!tool || !*tool) && out->format != SIGNAL_SARIF)
		tool = formats[out->format].tool;
	if ((error = parse_format(out, text, len, tool && *tool ? tool : NULL)) < 0)
		signal_list_release(out);
	return error;
}

/* ---------------------------------------------------------- relativize */

/* Fold "." and "a/.." out of a path; ".." that cannot fold stays at the front of a relative one. */
static int path_fold(struct buf *out, const char *path)
{
	size_t start = *path == '/', foldable = 0, len, cut;
	const char *p = path, *end;
	int error = buf_puts(out, start ? "/" : "");

	for (; !error && *p; p = end) {
		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		len = (size_t)(end - p);
		if (!len || (len == 1 && *p == '.'))
			continue;
		if (len == 2 && !strncmp(p, "..", 2) && foldable) {
			for (cut = out->len; cut > start && out->ptr[cut - 1] != '/'; cut--)
				;
			out->len = cut > start ? cut - 1 : start;
			out->ptr[out->len] = '\0';
			foldable--;
		} else if (!(len == 2 && !strncmp(p, "..", 2) && start)) {    /* "/.." is "/" */
			if (out->len > start)
				error = buf_putc(out, '/');
			if (!error)
				error = buf_put(out, p, len);
			foldable += !(len == 2 && !strncmp(p, "..", 2));
		}
	}
	return error;
}

/* The part of path under root ("" for root itself), or NULL when it is not under it. */
static const char *path_under(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (!strcmp(root, "/"))
		return path + 1;
	if (strncmp(path, root, n) || (path[n] && path[n] != '/'))
		return NULL;
	return path[n] ? path + n + 1 : path + n;
}

static bool path_escapes(const char *path)
{
	return !strcmp(path, "..") || !strncmp(path, "../", 3);
}

/* cwd's path from the working tree: "" for the root itself. */
static int cwd_in_tree(struct buf *out, const char *root, const char *cwd)
{
	struct buf folded = BUF_INIT;
	const char *under;
	int error;

	if (!cwd || !*cwd)
		return buf_puts(out, "");
	if ((error = path_fold(&folded, cwd)) < 0)
		goto done;
	under = *cwd == '/' ? path_under(folded.ptr, root) : folded.ptr;
	if (!under || path_escapes(under)) {
		error = error_set(RL_EUSAGE, "the directory the tool ran in (%s) is outside the working tree (%s)",
				  cwd, root);
		goto done;
	}
	error = buf_puts(out, under);
done:
	buf_release(&folded);
	return error;
}

/* A file's path from the working tree; NULL (and 0) when it is outside or empty. */
static int relative_path(char **out, const char *file, const char *root, const char *cwd)
{
	struct buf joined = BUF_INIT, folded = BUF_INIT;
	const char *under;
	int error;

	*out = NULL;
	if (*file == '/')
		error = buf_puts(&joined, file);
	else
		error = buf_printf(&joined, "%s%s%s", cwd, *cwd ? "/" : "", file);
	if (error < 0 || (error = path_fold(&folded, joined.ptr)) < 0)
		goto done;
	under = *file == '/' ? path_under(folded.ptr, root) : folded.ptr;
	if (under && *under && !path_escapes(under) && !(*out = strdup(under)))
		error = error_nomem();
done:
	buf_release(&joined);
	buf_release(&folded);
	return error;
}

int signals_relativize(struct signal_list *list, const char *workdir, const char *cwd)
{
	struct buf root = BUF_INIT, cwd_rel = BUF_INIT;
	char *path;
	size_t i;
	int error;

	if (!workdir || *workdir != '/')
		return error_set(RL_EUSAGE, "the working tree must be an absolute path, not \"%s\"",
				 workdir ? workdir : "");
	if ((error = path_fold(&root, workdir)) < 0 || (error = cwd_in_tree(&cwd_rel, root.ptr, cwd)) < 0)
		goto done;
	for (i = 0; i < list->count; i++) {
		if (!list->items[i].file || !*list->items[i].file)
			continue;
		if ((error = relative_path(&path, list->items[i].file, root.ptr, cwd_rel.ptr)) < 0)
			goto done;
		if (path) {
			free(list->items[i].file);
			list->items[i].file = path;
		}
	}
done:
	buf_release(&root);
	buf_release(&cwd_rel);
	return error;
}
