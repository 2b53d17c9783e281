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

#define EDITWIN_MIN_EDIT        2       /* the edit window: at least +-2 lines */
#define EDITWIN_MIN_CONTEXT     10      /* the context window: at least +-10 lines */
#define EDITWIN_DEFAULT_LINES   3       /* a code not in the table; a scope that is not there */

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

/*
 * What every signal is shown whatever its row says (the seed's standard
 * context): the imports, the enclosing function and the enclosing try
 * block, each when there is one.
 */
#define EDITWIN_STANDARD_CONTEXT (CTX_IMPORTS | CTX_FUNCTION | CTX_TRY)

/* What the table says of one code. */
struct editwin_spec {
	enum editwin_kind kind;
	int lines;              /* for EDITWIN_LINES: N of +-N (before the minimum) */
	unsigned context;       /* enum editwin_context flags, the standard context included */
	const char *why;        /* the table's rationale (the table owns it); NULL for the +-3 default */
	bool deletes;           /* the fix may delete the signal's own lines (an unused import) */
	bool known;             /* false: the code is not in the table */
	bool ends_file;         /* the fix is of how the file ends (W292, W391): the window reaches the end */
};

struct editwin_table;

/*
 * Load a table file; RL_EPARSE names the file and line of the first bad
 * row ("edit-windows.tsv:12: unknown window 'block' ..."). The format is
 * described at the top of share/signals/edit-windows.tsv.
 */
int editwin_table_load(struct editwin_table **out, const char *path);
/* The same from text in memory; path only names it in messages. */
int editwin_table_parse(struct editwin_table **out, const char *text, size_t len, const char *path);
/* The table revline ships (signals/edit-windows.tsv from the data directory). */
int editwin_table_default(struct editwin_table **out);
void editwin_table_free(struct editwin_table *table);
size_t editwin_table_count(const struct editwin_table *table);

/*
 * The spec of a tool's code. Rows name tools (a ruff row serves flake8
 * too: they share the pyflakes/pycodestyle/bugbear codes) and codes, or a
 * code prefix ending in '*' ("UP*"); an exact code wins over a prefix, a
 * longer prefix over a shorter one. Tools and codes compare without case;
 * a NULL tool matches any row. Conditional context (class when the
 * message mentions "self.", type aliases when it names a CamelCase type:
 * a capitalised name with a second capital, UserID, or any capitalised
 * name in quotes, "User", typing's own names aside) is kept only when the
 * message calls for it. The standard context is always added. A NULL
 * table, code or message is allowed (the default, no conditions).
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
 * The windows for lines line..end_line (end_line 0: just line; an end past
 * the file is cut to its last line) of a file's text under spec (NULL: the
 * default). RL_EUSAGE for a skipped kind or a line outside the file.
 *
 * The edit window: lines +-N around line..end_line (to the end of the file
 * when spec->ends_file); the enclosing function
 * (Python: from its decorators to the last line of its body, blank lines
 * and comments after it left out; brace languages: from the signature to
 * the closing brace); the import block at the top of the file (with the
 * signal's own import statements when they are further down); the
 * enclosing try statement, every clause. A scope that is not there falls
 * back to +-spec->lines (+-3 when the spec has none) and kind says so.
 * The context window holds the edit window and +-10 lines around the
 * signal, cut to the file.
 *
 * The parts: each context flag's lines (a class is its decorators and
 * signature, docstring and class-level annotations; type aliases and
 * module constants are module-level statements; the previous definition
 * is the def, class, import or assignment the message names, at the line
 * it names if any). A part is cut where it meets the edit window, a part
 * wholly inside another is left out (its lines are there already), and
 * touching parts of one kind are joined. Class, type aliases, constants
 * and previous definition are Python's; brace languages give imports,
 * function, try and signature.
 */
int editwin_build(struct editwin *out, const struct editwin_spec *spec, const char *path,
		  const char *text, size_t len, int line, int end_line, const char *message);
void editwin_release(struct editwin *win);

const char *editwin_kind_name(enum editwin_kind kind);
/* "type-aliases", as in the table; "Type aliases", as shown in prompts. */
const char *editwin_context_name(enum editwin_context what);
const char *editwin_context_label(enum editwin_context what);

#endif
