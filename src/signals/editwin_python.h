#ifndef REVLINE_EDITWIN_PYTHON_H
#define REVLINE_EDITWIN_PYTHON_H

/* Inside the edit windows: Python's statements and their indentation. */

#include "editwin_text.h"

/* ------------------------------------------------------------------------
 * Python: statements and their indentation
 */

enum py_kind {
	PY_CONT,        /* continues the statement of a line above */
	PY_BLANK,
	PY_COMMENT,
	PY_CODE,        /* this and what follows start a statement */
	PY_DEF, PY_CLASS, PY_DECORATOR, PY_TRY, PY_EXCEPT, PY_ELSE, PY_FINALLY,
	PY_IF, PY_ELIF, PY_IMPORT, PY_PASS, PY_STRING,
};

struct py {
	const struct text *t;
	int n;
	int *start;             /* the line that starts line i's statement */
	int *end;               /* for a statement's first line: its last line */
	int *indent;            /* a statement's indentation, tabs to multiples of 8 */
	unsigned char *kind;
};

bool py_is_code(unsigned char kind);

int py_scan(struct py *py, const struct text *t);

void py_release(struct py *py);

/* The last line of the block a header at h opens: trailing blank lines and comments left out. */
int py_block_end(const struct py *py, int h);

/* The next statement after the block of h; 0 at the end of the file. */
int py_next_code(const struct py *py, int after);

/* The def or class a decorator at s decorates; 0 if none follows. */
int py_decorated(const struct py *py, int s);

/* The first line of the decorators of h (h itself without). */
int py_decorators_start(const struct py *py, int h);

/* The innermost def (or class) that holds line L; 0 if none. */
int py_enclosing(const struct py *py, int line, enum py_kind want);

bool py_function(const struct py *py, int line, int *first, int *last);

bool py_signature(const struct py *py, int line, int *first, int *last);

/*
 * The try statement that holds line L, from "try:" to its last clause. The
 * search goes out through the blocks around L but not out of a def or a
 * class that holds it: a try around a whole function is not the one a line
 * in it is in (a def that ended above a blank line is passed by).
 */
bool py_try(const struct py *py, int line, int *first, int *last);

/* An identifier at the start of statement j, assigned to ("X = ...", "X: int = ..."). */
bool py_assigned(const struct py *py, int j, const char **name, size_t *len);

/*
 * The import block at the top: imports at the module's level, from the
 * first to the last, with the comments, blank lines and module dunders
 * (__all__) between; before it the module's docstring and dunders; within
 * it, "try: import x except ImportError:" and "if TYPE_CHECKING:" blocks
 * that only import.
 */
bool py_top_imports(const struct py *py, int *first, int *last);

/*
 * The imports window: the top block when the signal is in it; an import
 * further down with the imports around it, and with the top block too when
 * it is at the module's level (an E402 import is moved up into it).
 */
bool py_imports_window(const struct py *py, int line, int *first, int *last);

#endif
