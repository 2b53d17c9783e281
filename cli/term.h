#ifndef REVLINE_TERM_H
#define REVLINE_TERM_H

#include <stdarg.h>
#include <stdio.h>

/*
 * The output boundary of the text the CLI writes (text and markdown
 * reports, error lines, listings). Everything written through these has
 * control characters made visible (utf8_visible), so a string from the
 * model, a server, a rule, a manifest, a file name, a commit message or a
 * linter can never drive the terminal. revline's own colours and progress
 * lines are constants written with fputs around them. JSON and SARIF do
 * not come here: jansson escapes what they carry.
 */
void term_write(FILE *out, const char *s, size_t len);
void term_puts(FILE *out, const char *s);
void term_printf(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void term_vprintf(FILE *out, const char *fmt, va_list ap);

/*
 * Columns of s as term_puts shows it: characters of its visible form (an
 * ESC is the two columns of "^["), so tables stay aligned. term_pad shows
 * s and pads it with spaces to width columns.
 */
int term_width(const char *s);
void term_pad(FILE *out, const char *s, int width);

/*
 * Text of several lines as a table's last column (mypy's note under its
 * error): the first line where the cursor is, each other on a line of its
 * own after column spaces, so that the rows stay aligned; empty lines and
 * a trailing newline are left out, no newline after the last line.
 */
void term_column(FILE *out, const char *s, int column);

/* s as a cell of a Markdown table: line breaks as spaces, '|' escaped. */
void term_md_cell(FILE *out, const char *s);

#endif
