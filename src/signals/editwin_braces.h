#ifndef REVLINE_EDITWIN_BRACES_H
#define REVLINE_EDITWIN_BRACES_H

/* Inside the edit windows: brace languages' blocks and their heads. */

#include "editwin.h"
#include "editwin_text.h"

/* How a language writes comments and literals (brace languages), or Python. */
enum dialect { D_NONE, D_PYTHON, D_C, D_JAVA, D_JS, D_GO, D_RUST };

/* ------------------------------------------------------------------------
 * Brace languages: blocks and their heads
 */

enum head_kind { HEAD_OTHER, HEAD_FUNC, HEAD_TRY, HEAD_CATCH };

struct block {
	int head, open, close;  /* lines: the head's first, the '{', the '}' */
	enum head_kind kind;
	int depth;
	int parent;             /* the block around it, -1 at the top */
	int next_clause;        /* a try's or catch's following catch or finally block, -1 */
};

struct braces {
	const struct text *t;
	enum dialect d;
	struct block *blocks;
	int count;
	size_t alloc;
	bool *code;             /* code[i]: line i holds more than comments and blanks */
};

int braces_scan(struct braces *b, const struct text *t, enum dialect d);

void braces_release(struct braces *b);

bool brace_function(const struct braces *b, int line, int *first, int *last);

bool brace_signature(const struct braces *b, int line, int *first, int *last);

/* The try that holds line L, with its catch and finally blocks, inside L's function. */
bool brace_try(const struct braces *b, int line, int *first, int *last);

bool brace_has_text(const char *p, const char *e, const char *needle);

/*
 * The import block at the top: #include, import, use lines (and their
 * multi-line forms) from the first to the last, with comments, blank
 * lines and preprocessor conditionals between; a package line, include
 * guard or "use strict" may come before.
 */
bool brace_top_imports(const struct braces *b, int *first, int *last);

bool brace_imports_window(const struct braces *b, int line, int *first, int *last);

#endif
