/* Linter output as text: flake8, ruff, mypy, gcc and clang (and what reads like them: cppcheck, shellcheck -f gcc). */
#include "signals.h"
#include "array.h"
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

/* ------------------------------------------------------------ text formats */




/*
 * One line without its end, CR and terminal escapes (colour, and the
 * OSC 8 hyperlinks gcc writes around option names): what a user sees.
 * trim also drops the spaces at its end.
 */
int line_clean(struct buf *out, const char *p, size_t len, bool trim)
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

int lines_each(struct text_reader *r, const char *text, size_t len, line_fn fn)
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


void text_lines_release(struct text_lines *t)
{
	size_t i;

	for (i = 0; i < t->count; i++)
		free(t->at[i]);
	free(t->at);
	memset(t, 0, sizeof(*t));
}

int text_lines_split(struct text_lines *out, const char *text, size_t len)
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
		    (error = ARRAY_GROW(out->at, out->alloc, out->count + 1)) < 0)
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


int blocks_each(struct text_reader *r, const struct text_lines *t, block_fn fn)
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


/*
 * The path ends at the first colon followed by numbers and a colon (or the
 * end), so that "C:\x.c" and paths with other colons still read. Lines that
 * do not start this way (context, source echo, summaries) are not locations.
 */
bool location_parse(struct location *loc, char *line)
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
			return signals_line_problem(r->list, number, "the line or column number is too large");
	if (!(counts & (1u << loc->n)))
		return signals_line_problem(r->list, number, "%d numbers after the path; this format has %s", loc->n,
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
const char *severity_prefix(char *rest, const char *const *severities, char **msg)
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
	if ((error = signals_draft_keep(r->list, r->tool, d)) < 0)
		return error;
	r->parent = note ? -1 : (long)r->list->count - 1;
	return 0;
}

/* The trailing "[code]" of gcc and mypy, cut off the message; NULL when there is none. */
char *trailing_code(char *msg, bool (*accept)(const char *code))
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
size_t flake8_code_len(const char *s)
{
	size_t letters = 0, digits = 0;

	while (isalpha((unsigned char)s[letters]))
		letters++;
	while (isdigit((unsigned char)s[letters + digits]))
		digits++;
	return letters && digits && (s[letters + digits] == ' ' || !s[letters + digits]) ? letters + digits : 0;
}

int flake8_line(struct text_reader *r, char *line, int number)
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
		return signals_line_problem(r->list, number,
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
		return signals_line_problem(r->list, number, "no message after the code %s", d.code);
	d.message = msg;
	/* flake8 gives no severity; pycodestyle's W codes are warnings, the rest errors. */
	d.severity = d.code[0] == 'W' ? "warning" : "error";
	return signals_draft_keep(r->list, r->tool, &d);
}



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
bool ruff_arrow(struct location *loc, char *line)
{
	char *p = line;

	while (*p == ' ')
		p++;
	if (strncmp(p, "--> ", 4))
		return false;
	return location_parse(loc, p + 4) && loc->n == 2 && !loc->rest;
}

int ruff_text_line(struct text_reader *tr, char *line, int number)
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
			return signals_line_problem(tr->list, number, "a location with no diagnostic line before it");
		if ((error = location_check(tr, &loc, 1u << 2, number, &ok)) < 0 || !ok)
			return error;
		draft_at(&d, &loc);
		if (!ruff_diagnostic_text(&d, rr->header.ptr))
			return signals_line_problem(tr->list, header_line, "not a diagnostic: expected CODE message");
		d.severity = "error";
		return signals_draft_keep(tr->list, tr->tool, &d);
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
		return signals_line_problem(tr->list, number,
				    "no code after the location (expected path:row:column: CODE message)");
	d.severity = "error";   /* as ruff's JSON says of every diagnostic */
	return signals_draft_keep(tr->list, tr->tool, &d);
}

/* ---- mypy: path:line[:col[:end_line:end_col]]: error: message  [code] */

const char *const mypy_severities[] = { "error", "warning", "note", NULL };

bool mypy_code_ok(const char *code)
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
		error = signals_line_problem(r->list, number, "no message after %s:", d->severity);
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

int mypy_block(struct text_reader *r, const struct text_lines *t, size_t *i)
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
		return signals_line_problem(r->list, number,
				    "no error:, warning: or note: after the location (expected path:line: error: message)");
	if (loc.n == 4) {
		d.end_line = (int)loc.nums[2];
		/* mypy's end column is the last character; ours is just past it. */
		d.end_column = loc.nums[3] > 0 ? (int)loc.nums[3] + 1 : 0;
	}
	return mypy_keep(r, t, i, number, &d, msg);
}

/* ---- gcc and clang (and cppcheck's gcc-like template): path:line:col: warning: message [-Wflag] */

const char *const gcc_severities[] = {
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
bool gcc_code_ok(const char *code)
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

/* shellcheck's codes: "SC" and four digits ("SC2086"); every one has its page on the wiki. */
bool shellcheck_code(const char *code)
{
	size_t i;

	if (!code || strncmp(code, "SC", 2))
		return false;
	for (i = 2; i < 6; i++)
		if (!isdigit((unsigned char)code[i]))
			return false;
	return !code[6];
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
 * signal the notes after it join. shellcheck -f gcc writes its info and
 * style levels as notes, each a diagnostic with its code: those stand
 * alone (a compiler's notes carry no code).
 */
static int gcc_add(struct text_reader *r, const struct draft *d)
{
	int error;

	if (strcmp(d->severity, "note") || r->parent < 0 || shellcheck_code(d->code)) {
		if ((error = gcc_group_end(r)) < 0 || (error = signals_draft_keep(r->list, r->tool, d)) < 0)
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
	char *line = t->at[*i], *msg, *code = NULL, url[96];
	int number = (int)++*i, error;
	size_t end;
	bool ok;

	if (!strncmp(line, "In file included from ", 22) || !location_parse(&loc, line))
		return 0;       /* context, source echo, carets, fix-it hints, summaries */
	if ((error = location_check(r, &loc, 1u << 1 | 1u << 2, number, &ok)) < 0 || !ok)
		return error;
	draft_at(&d, &loc);
	if (!loc.rest || !(d.severity = severity_prefix(loc.rest, gcc_severities, &msg)))
		return signals_line_problem(r->list, number, "no error:, warning: or note: after the location "
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
		error = signals_line_problem(r->list, number, "no message after %s:", d.severity);
		goto done;
	}
	if ((code = trailing_code(msg, gcc_code_ok)) && shellcheck_code(code)) {
		d.code = code;
		d.url = shellcheck_url(url, sizeof(url), code);
	} else if (code) {
		d.code = gcc_code_pick(code);
	}
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

int gcc_parse(struct signal_list *list, const char *text, size_t len, const char *tool)
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

