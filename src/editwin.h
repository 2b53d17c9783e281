#ifndef REVLINE_EDITWIN_H
#define REVLINE_EDITWIN_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Edit windows (the signal-context seed): for a signal, which lines the
 * LLM is given to rewrite (the edit window) and what it is shown besides
 * (the context). The table is a data file, share/signals/edit-windows.tsv,
 * with every row of the seed's tables; a code it does not know gets +-3
 * lines. The seed's minimums always hold: the edit window is at least +-2
 * lines around the signal, the context window at least +-10.
 *
 * Scopes are found without parsing: Python by indentation (a scope never
 * crosses a def or class at the same or a lower indentation; a try block
 * counts only when the line is inside it), brace languages (C, C++, Java,
 * JavaScript, TypeScript, Go, Rust) by braces, skipping strings and
 * comments. Other languages get line windows only.
 */

/* X(ID, name in the table) */
#define EDITWIN_KINDS(X) \
	X(EDITWIN_LINES,    "lines")    /* +-N lines */ \
	X(EDITWIN_FUNCTION, "function") /* the whole enclosing function */ \
	X(EDITWIN_IMPORTS,  "imports")  /* the import block at the top */ \
	X(EDITWIN_TRY,      "try")      /* the enclosing try/except block */ \
	X(EDITWIN_SKIP,     "skip")     /* not fixed: too wide for one window */

enum editwin_kind {
#define EDITWIN_KIND_ENUM(id, name) id,
	EDITWIN_KINDS(EDITWIN_KIND_ENUM)
#undef EDITWIN_KIND_ENUM
};

/* Extra context, as flags. X(ID, bit, name in the table, label shown in prompts) */
#define EDITWIN_CONTEXTS(X) \
	X(CTX_IMPORTS,      0x001, "imports",      "Imports") \
	X(CTX_FUNCTION,     0x002, "function",     "Enclosing function") \
	X(CTX_TRY,          0x004, "try",          "Enclosing try block") \
	X(CTX_CLASS,        0x008, "class",        "Class definition") /* when the message mentions self. */ \
	X(CTX_TYPE_ALIASES, 0x010, "type-aliases", "Type aliases")     /* when it mentions CamelCase types */ \
	X(CTX_CONSTANTS,    0x020, "constants",    "Module constants") \
	X(CTX_SIGNATURE,    0x040, "signature",    "Function signature") \
	X(CTX_PREVIOUS_DEF, 0x080, "previous-definition", "Previous definition")

enum editwin_context {
#define EDITWIN_CONTEXT_ENUM(id, bit, name, label) id = bit,
	EDITWIN_CONTEXTS(EDITWIN_CONTEXT_ENUM)
#undef EDITWIN_CONTEXT_ENUM
};

/* What the table says of one code. */
struct editwin_spec {
	enum editwin_kind kind;
	int lines;              /* for EDITWIN_LINES: N of +-N (before the minimum) */
	unsigned context;       /* enum editwin_context flags */
	const char *why;        /* the table's rationale; NULL for the +-3 default */
	bool known;             /* false: the code is not in the table */
};

struct editwin_table;

/* Load a table file; RL_EPARSE names the file and line of a bad row. */
int editwin_table_load(struct editwin_table **out, const char *path);
/* The table revline ships (signals/edit-windows.tsv from the data directory). */
int editwin_table_default(struct editwin_table **out);
void editwin_table_free(struct editwin_table *table);
size_t editwin_table_count(const struct editwin_table *table);

/*
 * The spec of a tool's code. Rows name tools (a ruff row serves flake8
 * too: they share the pyflakes/pycodestyle/bugbear codes) and codes, or a
 * code prefix ending in '*' ("UP*"). Conditional context (class when the
 * message mentions "self.", type aliases when it names a CamelCase type)
 * is kept only when the message calls for it.
 */
void editwin_lookup(struct editwin_spec *out, const struct editwin_table *table, const char *tool,
		    const char *code, const char *message);

enum editwin_language { LANG_OTHER, LANG_PYTHON, LANG_BRACES };
enum editwin_language editwin_language(const char *path);

/* One piece of extra context, by lines of the file. */
struct editwin_part {
	enum editwin_context what;
	int first, last;        /* 1-based, inclusive */
};

struct editwin {
	enum editwin_kind kind;         /* as applied: a function window with no function is lines */
	int first, last;                /* the edit window, 1-based inclusive */
	int context_first, context_last;        /* the context window */
	struct editwin_part *parts;     /* extra context, in file order, none overlapping the edit window */
	size_t nparts;
};

/*
 * The windows for lines line..end_line (end_line 0: just line) of a file's
 * text under spec. RL_EUSAGE for a skipped kind or a line outside the file.
 */
int editwin_build(struct editwin *out, const struct editwin_spec *spec, const char *path,
		  const char *text, size_t len, int line, int end_line, const char *message);
void editwin_release(struct editwin *win);

const char *editwin_kind_name(enum editwin_kind kind);
const char *editwin_context_label(enum editwin_context what);

#endif
