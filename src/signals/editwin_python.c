/* Edit windows: Python, read line by line with just enough of its lexical rules. */
#include "editwin_python.h"

/* The lexical state between lines: an open string, open brackets, a backslash. */
struct py_state {
	char quote;
	bool triple;
	int depth;
	bool joined;
};

static const struct py_keyword {
	const char *word;
	enum py_kind kind;
} py_keywords[] = {
	{ "def", PY_DEF }, { "class", PY_CLASS }, { "try", PY_TRY }, { "except", PY_EXCEPT },
	{ "else", PY_ELSE }, { "finally", PY_FINALLY }, { "if", PY_IF }, { "elif", PY_ELIF },
	{ "import", PY_IMPORT }, { "from", PY_IMPORT }, { "pass", PY_PASS },
};

bool py_is_code(unsigned char kind)
{
	return kind >= PY_CODE;
}

static bool rest_is_blank(const char *p, const char *e)
{
	return skip_blanks(p, e) == e;
}

static const char *py_in_string(struct py_state *st, const char *p, const char *e)
{
	if (*p == '\\') {
		if (rest_is_blank(p + 1, e)) {
			st->joined = true;
			return e;
		}
		return p + 2;
	}
	if (*p != st->quote)
		return p + 1;
	if (!st->triple) {
		st->quote = 0;
		return p + 1;
	}
	if (e - p >= 3 && p[1] == st->quote && p[2] == st->quote) {
		st->quote = 0;
		return p + 3;
	}
	return p + 1;
}

static void py_scan_line(struct py_state *st, const char *p, const char *e)
{
	st->joined = false;
	while (p < e) {
		char c = *p;

		if (st->quote) {
			p = py_in_string(st, p, e);
			continue;
		}
		if (c == '#')
			break;
		if (c == '"' || c == '\'') {
			st->quote = c;
			st->triple = e - p >= 3 && p[1] == c && p[2] == c;
			p += st->triple ? 3 : 1;
			continue;
		}
		if (c == '\\' && rest_is_blank(p + 1, e)) {
			st->joined = true;
			break;
		}
		if (c == '(' || c == '[' || c == '{')
			st->depth++;
		else if ((c == ')' || c == ']' || c == '}') && st->depth > 0)
			st->depth--;
		p++;
	}
	/* A one-quote string ends with its line unless a backslash carries it on. */
	if (st->quote && !st->triple && !st->joined)
		st->quote = 0;
}

static int py_indent(const char *p, const char *e)
{
	int width = 0;

	for (; p < e; p++) {
		if (*p == ' ')
			width++;
		else if (*p == '\t')
			width = (width / 8 + 1) * 8;
		else if (*p == '\f')
			width = 0;
		else
			break;
		if (width > INT_MAX / 2)
			break;
	}
	return width;
}

static bool py_string_start(const char *p, const char *e)
{
	int prefix = 0;

	while (p < e && prefix < 2 && *p && strchr("rRbBuUfF", *p)) {
		p++;
		prefix++;
	}
	return p < e && (*p == '"' || *p == '\'');
}

static enum py_kind py_classify(const char *p, const char *e)
{
	const char *w = skip_blanks(p, e), *we;
	size_t i;

	if (w == e)
		return PY_BLANK;
	if (*w == '#')
		return PY_COMMENT;
	if (*w == '@')
		return PY_DECORATOR;
	if (py_string_start(w, e))
		return PY_STRING;
	we = word_end(w, e);
	if (word_is(w, e, "async")) {
		const char *next = skip_blanks(we, e);

		return word_is(next, e, "def") ? PY_DEF : PY_CODE;
	}
	for (i = 0; i < sizeof(py_keywords) / sizeof(py_keywords[0]); i++)
		if (word_is(w, e, py_keywords[i].word))
			return py_keywords[i].kind;
	return PY_CODE;
}

/*
 * A def, class or decorator in column 0 inside open brackets: the brackets
 * were left open by mistake (the file is being fixed, after all), and
 * Python's own recovery would be no better than starting again here.
 */
static bool py_fresh_scope(const char *p, const char *e)
{
	return p < e && (*p == '@' || word_is(p, e, "def") || word_is(p, e, "class") ||
			 word_is(p, e, "async"));
}

static int py_alloc(struct py *py, const struct text *t)
{
	size_t n = (size_t)t->n + 2;

	py->t = t;
	py->n = t->n;
	py->start = calloc(n, sizeof(int));
	py->end = calloc(n, sizeof(int));
	py->indent = calloc(n, sizeof(int));
	py->kind = calloc(n, 1);
	if (!py->start || !py->end || !py->indent || !py->kind)
		return error_nomem();
	return 0;
}

int py_scan(struct py *py, const struct text *t)
{
	struct py_state st = { 0, false, 0, false };
	int i, s = 0, error;

	if ((error = py_alloc(py, t)) < 0)
		return error;
	for (i = 1; i <= t->n; i++) {
		const char *p = line_start(t, i), *e = line_end(t, i);
		bool starts = !st.quote && !st.depth && !st.joined;

		if (!starts && !st.quote && st.depth && py_fresh_scope(p, e)) {
			st.depth = 0;
			starts = true;
		}
		if (starts) {
			if (s)
				py->end[s] = i - 1;
			s = i;
			py->kind[i] = (unsigned char)py_classify(p, e);
			py->indent[i] = py_indent(p, e);
		}
		py->start[i] = s;
		py_scan_line(&st, p, e);
	}
	if (s)
		py->end[s] = t->n;
	return 0;
}

void py_release(struct py *py)
{
	free(py->start);
	free(py->end);
	free(py->indent);
	free(py->kind);
}

/* The next statement above from with an indentation below *limit (which it lowers); 0 if none. */
static int py_outer(const struct py *py, int from, int *limit)
{
	int j;

	for (j = from - 1; j >= 1 && *limit > 0; j = py->start[j] - 1) {
		if (py->start[j] != j)
			j = py->start[j];
		if (py_is_code(py->kind[j]) && py->indent[j] < *limit) {
			*limit = py->indent[j];
			return j;
		}
	}
	return 0;
}

/* The last line of the block a header at h opens: trailing blank lines and comments left out. */
int py_block_end(const struct py *py, int h)
{
	int last = py->end[h], j;

	for (j = py->end[h] + 1; j <= py->n; j = py->end[j] + 1) {
		if (!py_is_code(py->kind[j]))
			continue;
		if (py->indent[j] <= py->indent[h])
			break;
		last = py->end[j];
	}
	return last;
}

/* The next statement after the block of h; 0 at the end of the file. */
int py_next_code(const struct py *py, int after)
{
	int j;

	for (j = after + 1; j <= py->n; j = py->end[j] + 1)
		if (py_is_code(py->kind[j]))
			return j;
	return 0;
}

static bool py_is_clause(enum py_kind head, enum py_kind clause)
{
	if (head == PY_TRY)
		return clause == PY_EXCEPT || clause == PY_ELSE || clause == PY_FINALLY;
	if (head == PY_IF)
		return clause == PY_ELIF || clause == PY_ELSE;
	return false;
}

/* The last line of the compound statement at h: a try or an if with every clause. */
static int py_compound_end(const struct py *py, int h)
{
	int end = py_block_end(py, h), j;

	while ((j = py_next_code(py, end)) && py->indent[j] == py->indent[h] &&
	       py_is_clause(py->kind[h], py->kind[j]))
		end = py_block_end(py, j);
	return end;
}

/* The try an except, else or finally clause belongs to; 0 when it is not a try's. */
static int py_try_of(const struct py *py, int clause)
{
	int c = py->indent[clause], j;

	for (j = clause - 1; j >= 1; j = py->start[j] - 1) {
		j = py->start[j];
		if (!py_is_code(py->kind[j]) || py->indent[j] > c)
			continue;
		if (py->indent[j] < c)
			return 0;
		if (py->kind[j] == PY_TRY)
			return j;
		if (py->kind[j] != PY_EXCEPT && py->kind[j] != PY_ELSE)
			return 0;
	}
	return 0;
}

/* The def or class a decorator at s decorates; 0 if none follows. */
int py_decorated(const struct py *py, int s)
{
	int j;

	for (j = s; j && py->kind[j] == PY_DECORATOR; j = py_next_code(py, py->end[j]))
		;
	return j && (py->kind[j] == PY_DEF || py->kind[j] == PY_CLASS) ? j : 0;
}

/* The first line of the decorators of h (h itself without). */
int py_decorators_start(const struct py *py, int h)
{
	int first = h, j;

	for (j = h - 1; j >= 1; j = py->start[j] - 1) {
		int s = py->start[j];

		if (py->kind[s] == PY_DECORATOR && py->indent[s] == py->indent[h])
			first = s;
		else if (py->kind[s] != PY_BLANK && py->kind[s] != PY_COMMENT)
			break;
		j = s;
	}
	return first;
}

/* The statement line L belongs to, a decorator standing for what it decorates. */
static int py_statement(const struct py *py, int line)
{
	int s = py->start[line], d;

	if (py->kind[s] == PY_DECORATOR && (d = py_decorated(py, s)))
		return d;
	return s;
}

/* The innermost def (or class) that holds line L; 0 if none. */
int py_enclosing(const struct py *py, int line, enum py_kind want)
{
	int s = py_statement(py, line), limit, h;

	if (py->kind[s] == want)
		return s;
	limit = py_is_code(py->kind[s]) ? py->indent[s] : INT_MAX;
	for (h = s; (h = py_outer(py, h, &limit));)
		if (py->kind[h] == want && py_block_end(py, h) >= line)
			return h;
	return 0;
}

bool py_function(const struct py *py, int line, int *first, int *last)
{
	int f = py_enclosing(py, line, PY_DEF);

	if (!f)
		return false;
	*first = py_decorators_start(py, f);
	*last = py_block_end(py, f);
	return true;
}

bool py_signature(const struct py *py, int line, int *first, int *last)
{
	int f = py_enclosing(py, line, PY_DEF);

	if (!f)
		return false;
	*first = f;
	*last = py->end[f];
	return true;
}

/*
 * The try statement that holds line L, from "try:" to its last clause. The
 * search goes out through the blocks around L but not out of a def or a
 * class that holds it: a try around a whole function is not the one a line
 * in it is in (a def that ended above a blank line is passed by).
 */
bool py_try(const struct py *py, int line, int *first, int *last)
{
	int s = py_statement(py, line), limit, h, t, end;

	limit = py_is_code(py->kind[s]) ? py->indent[s] : INT_MAX;
	for (h = py_is_code(py->kind[s]) ? s : py_outer(py, s, &limit); h; h = py_outer(py, h, &limit)) {
		if (h != s && (py->kind[h] == PY_DEF || py->kind[h] == PY_CLASS)) {
			if (py_block_end(py, h) >= line)
				return false;
			continue;
		}
		t = py->kind[h] == PY_TRY ? h : py->kind[h] == PY_EXCEPT || py->kind[h] == PY_ELSE ||
			py->kind[h] == PY_FINALLY ? py_try_of(py, h) : 0;
		if (t && (end = py_compound_end(py, t)) >= line) {
			*first = t;
			*last = end;
			return true;
		}
	}
	return false;
}

/* An identifier at the start of statement j, assigned to ("X = ...", "X: int = ..."). */
bool py_assigned(const struct py *py, int j, const char **name, size_t *len)
{
	const char *p = skip_blanks(line_start(py->t, j), line_end(py->t, j)), *e = line_end(py->t, j);
	const char *q = word_end(p, e), *r;

	if (py->kind[j] != PY_CODE || q == p || isdigit((unsigned char)*p))
		return false;
	*name = p;
	*len = (size_t)(q - p);
	r = skip_blanks(q, e);
	if (r < e && *r == ':' && (r + 1 == e || r[1] != '=')) {
		for (r++; r < e && *r != '#'; r++)
			if (*r == '=' && (r + 1 == e || r[1] != '=') && !strchr("!<>=", r[-1]))
				return true;
		return false;
	}
	return r < e && *r == '=' && (r + 1 == e || r[1] != '=');
}

/* Whether the compound at h only imports: imports, pass and plain assignments, one import at least. */
static bool py_guards_imports(const struct py *py, int h, int end)
{
	const char *name;
	size_t len;
	int j, imports = 0;

	for (j = py->end[h] + 1; j <= end; j = py->end[j] + 1) {
		if (!py_is_code(py->kind[j]))
			continue;
		if (py->indent[j] == py->indent[h] && py_is_clause(py->kind[h], py->kind[j]))
			continue;
		if (py->kind[j] == PY_IMPORT)
			imports++;
		else if (py->kind[j] != PY_PASS && !py_assigned(py, j, &name, &len))
			return false;
	}
	return imports > 0;
}

/* __all__ = [...], __version__ = "1.0": pycodestyle lets them come before imports. */
static bool py_dunder(const struct py *py, int j)
{
	const char *name;
	size_t len;

	return py_assigned(py, j, &name, &len) && len > 4 && !memcmp(name, "__", 2) &&
		!memcmp(name + len - 2, "__", 2);
}

/*
 * The import block at the top: imports at the module's level, from the
 * first to the last, with the comments, blank lines and module dunders
 * (__all__) between; before it the module's docstring and dunders; within
 * it, "try: import x except ImportError:" and "if TYPE_CHECKING:" blocks
 * that only import.
 */
bool py_top_imports(const struct py *py, int *first, int *last)
{
	bool docstring = false;
	int j, end;

	*first = *last = 0;
	for (j = py_next_code(py, 0); j; j = py_next_code(py, end)) {
		end = py->end[j];
		if (py->indent[j] != 0)
			break;
		if (py->kind[j] == PY_STRING && !*first && !docstring) {
			docstring = true;
			continue;
		}
		if (py_dunder(py, j))
			continue;
		if ((py->kind[j] == PY_TRY || py->kind[j] == PY_IF) &&
		    py_guards_imports(py, j, py_compound_end(py, j)))
			end = py_compound_end(py, j);
		else if (py->kind[j] != PY_IMPORT)
			break;
		if (!*first)
			*first = j;
		*last = end;
	}
	return *first != 0;
}

/* The imports next to the import statement s at its indentation. */
static void py_import_group(const struct py *py, int s, int *first, int *last)
{
	int j;

	*first = s;
	*last = py->end[s];
	for (j = s - 1; j >= 1; j = py->start[j] - 1) {
		j = py->start[j];
		if (py->kind[j] == PY_IMPORT && py->indent[j] == py->indent[s])
			*first = j;
		else if (py_is_code(py->kind[j]))
			break;
	}
	for (j = py_next_code(py, *last); j && py->kind[j] == PY_IMPORT && py->indent[j] == py->indent[s];
	     j = py_next_code(py, py->end[j]))
		*last = py->end[j];
}

/*
 * The imports window: the top block when the signal is in it; an import
 * further down with the imports around it, and with the top block too when
 * it is at the module's level (an E402 import is moved up into it).
 */
bool py_imports_window(const struct py *py, int line, int *first, int *last)
{
	int tf, tl, s = py->start[line];
	bool top = py_top_imports(py, &tf, &tl);

	if (top && line >= tf && line <= tl) {
		*first = tf;
		*last = tl;
		return true;
	}
	if (py->kind[s] != PY_IMPORT)
		return false;
	py_import_group(py, s, first, last);
	if (top && py->indent[s] == 0) {
		*first = min_int(*first, tf);
		*last = max_int(*last, tl);
	}
	return true;
}

