#ifndef REVLINE_SIGNALS_READ_H
#define REVLINE_SIGNALS_READ_H

/* Inside the signal readers: what the text readers, the JSON readers and the dispatch share. */

#include "signals.h"
#include "buf.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* A signal as read, pointing into the input; draft_keep copies it into the list. */
struct draft {
	const char *file, *code, *message, *severity, *url;
	int line, column, end_line, end_column;
};

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
 * The readers that look ahead (a message over several lines) read the text
 * as an array of lines, cleaned as line_clean does but with the spaces at
 * their ends, which are part of a message that goes on; empty lines are
 * kept, so that index + 1 is the line's number.
 */
struct text_lines {
	char **at;
	size_t count, alloc;
};

/* Reads the line at *i and those that belong to it, leaving *i at the next one to read. */
typedef int (*block_fn)(struct text_reader *r, const struct text_lines *t, size_t *i);

/* "path:line[:column[:end_line:end_column]]: rest", as every text format starts. */
struct location {
	char *path;
	long long nums[4];
	int n;
	char *rest;             /* after the colon and spaces; NULL when the line stops at the numbers */
};

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

/* originalUriBaseIds may refer to each other; a cycle stops here. */
#define SARIF_BASE_DEPTH 8

#define RUFF_SYNTAX "invalid-syntax"

int signals_problem_vadd(struct signal_list *list, int line, const char *field, const char *fmt, va_list ap);

int signals_line_problem(struct signal_list *list, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

int signals_draft_keep(struct signal_list *list, const char *tool, const struct draft *d);

/* A shellcheck code's page on its wiki ("SC2086"), written into out. */
const char *shellcheck_url(char *out, size_t size, const char *code);

/* "SC" and four digits: a shellcheck code. */
bool shellcheck_code(const char *code);

bool json_has(json_t *obj, const char *key);

/* An item of ruff's JSON. */
bool ruff_shaped(json_t *v);

/*
 * One line without its end, CR and terminal escapes (colour, and the
 * OSC 8 hyperlinks gcc writes around option names): what a user sees.
 * trim also drops the spaces at its end.
 */
int line_clean(struct buf *out, const char *p, size_t len, bool trim);

int lines_each(struct text_reader *r, const char *text, size_t len, line_fn fn);

void text_lines_release(struct text_lines *t);

int text_lines_split(struct text_lines *out, const char *text, size_t len);

int blocks_each(struct text_reader *r, const struct text_lines *t, block_fn fn);

/*
 * The path ends at the first colon followed by numbers and a colon (or the
 * end), so that "C:\x.c" and paths with other colons still read. Lines that
 * do not start this way (context, source echo, summaries) are not locations.
 */
bool location_parse(struct location *loc, char *line);

/*
 * "error: text" and the like: the severity, with msg after it; NULL when
 * none of these. The tools put one space after the colon; the spaces after
 * it are the message's own (mypy indents the notes that list overload
 * variants).
 */
const char *severity_prefix(char *rest, const char *const *severities, char **msg);

/* The trailing "[code]" of gcc and mypy, cut off the message; NULL when there is none. */
char *trailing_code(char *msg, bool (*accept)(const char *code));

/* "E501", "F401", "SIM102": letters then digits. */
size_t flake8_code_len(const char *s);

int flake8_line(struct text_reader *r, char *line, int number);

/* " --> path:row:col" of rustc-shaped full output; the location, or false. */
bool ruff_arrow(struct location *loc, char *line);

int ruff_text_line(struct text_reader *tr, char *line, int number);

bool mypy_code_ok(const char *code);

int mypy_block(struct text_reader *r, const struct text_lines *t, size_t *i);

/*
 * "[-Wflag]", clang's "[-Werror,-Wflag]" and "[-Wflag,Category Name]",
 * gcc's "[-Werror=flag]", "[-fpermissive]", cppcheck's "[id]", and
 * clang-tidy's checks, "[bugprone-name]", "[clang-analyzer-core.Name]",
 * "[check,-warnings-as-errors]".
 */
bool gcc_code_ok(const char *code);

int gcc_parse(struct signal_list *list, const char *text, size_t len, const char *tool);

int json_load(json_t **out, const char *text, size_t len, enum signal_format format);

int ruff_parse(struct signal_list *list, json_t *root, const char *tool);

/* ruff --output-format json-lines: one object a line, read as the list's items are. */
int ruff_jsonl_line(struct text_reader *r, char *line, int number);

int bandit_parse(struct signal_list *list, json_t *root, const char *tool);

int shellcheck_parse(struct signal_list *list, json_t *root, const char *tool);

/*
 * A line that is not JSON is read as mypy's text: mypy writes syntax errors
 * that way even with --output json, and its summary line.
 */
int mypy_json_block(struct text_reader *r, const struct text_lines *t, size_t *i);

int sarif_parse(struct signal_list *list, json_t *root, const char *tool);

extern const char *const mypy_severities[];
extern const char *const gcc_severities[];

#endif
