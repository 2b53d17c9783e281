/*
 * Edit windows (the signal-context seed): the table of linter codes, and
 * the scopes a window or a piece of context is cut from, found by scanning
 * the file's text without parsing it.
 *
 * Python is read line by line with just enough of its lexical rules
 * (strings, triple-quoted strings, brackets, backslash continuations) to
 * know which physical lines start a statement: a "def" inside a docstring
 * starts nothing. Scopes then follow from the statements' indentation.
 *
 * Brace languages are read once for their braces, skipping comments and
 * literals the way each language writes them. Every block keeps what came
 * before its '{' since the last ';', '{' or '}' (its head), which tells a
 * function from an if, a struct or an object literal.
 */
#include "editwin.h"
#include "array.h"
#include "editwin_braces.h"
#include "editwin_python.h"
#include "buf.h"
#include "datadir.h"
#include "status.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A value quoted in a message is cut to this many bytes. */
#define SHOWN_MAX 40

/* ------------------------------------------------------------------------
 * Languages
 */


static const struct extension {
	const char *ext;
	enum dialect dialect;
} extensions[] = {
	{ "py", D_PYTHON }, { "pyi", D_PYTHON }, { "pyw", D_PYTHON },
	{ "c", D_C }, { "h", D_C }, { "cc", D_C }, { "cpp", D_C }, { "cxx", D_C }, { "c++", D_C },
	{ "hh", D_C }, { "hpp", D_C }, { "hxx", D_C }, { "h++", D_C }, { "ipp", D_C }, { "inl", D_C },
	{ "java", D_JAVA },
	{ "js", D_JS }, { "jsx", D_JS }, { "mjs", D_JS }, { "cjs", D_JS },
	{ "ts", D_JS }, { "tsx", D_JS }, { "mts", D_JS }, { "cts", D_JS },
	{ "go", D_GO }, { "rs", D_RUST },
};

static enum dialect dialect_of(const char *path)
{
	const char *name, *dot;
	size_t i;

	if (!path)
		return D_NONE;
	name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (!(dot = strrchr(name, '.')) || dot == name)
		return D_NONE;
	for (i = 0; i < sizeof(extensions) / sizeof(extensions[0]); i++)
		if (!strcasecmp(dot + 1, extensions[i].ext))
			return extensions[i].dialect;
	return D_NONE;
}

enum editwin_language editwin_language(const char *path)
{
	switch (dialect_of(path)) {
	case D_NONE:
		return LANG_OTHER;
	case D_PYTHON:
		return LANG_PYTHON;
	default:
		return LANG_BRACES;
	}
}

/* ------------------------------------------------------------------------
 * Windows and parts
 */

struct job {
	const struct text *t;
	struct py *py;          /* Python's statements, or NULL */
	struct braces *br;      /* a brace language's blocks, or NULL */
	int line, end;          /* the signal's lines */
	const char *message;
	struct editwin_part *parts;
	size_t nparts, alloc;
};

static bool function_range(const struct job *job, int *first, int *last)
{
	return job->py ? py_function(job->py, job->line, first, last)
		: job->br ? brace_function(job->br, job->line, first, last) : false;
}

static bool signature_range(const struct job *job, int *first, int *last)
{
	return job->py ? py_signature(job->py, job->line, first, last)
		: job->br ? brace_signature(job->br, job->line, first, last) : false;
}

static bool try_range(const struct job *job, int *first, int *last)
{
	return job->py ? py_try(job->py, job->line, first, last)
		: job->br ? brace_try(job->br, job->line, first, last) : false;
}

static bool top_imports(const struct job *job, int *first, int *last)
{
	return job->py ? py_top_imports(job->py, first, last)
		: job->br ? brace_top_imports(job->br, first, last) : false;
}

static bool imports_window(const struct job *job, int *first, int *last)
{
	return job->py ? py_imports_window(job->py, job->line, first, last)
		: job->br ? brace_imports_window(job->br, job->line, first, last) : false;
}

static bool window_scope(const struct job *job, enum editwin_kind kind, int *first, int *last)
{
	switch (kind) {
	case EDITWIN_FUNCTION:
		return function_range(job, first, last);
	case EDITWIN_IMPORTS:
		return imports_window(job, first, last);
	case EDITWIN_TRY:
		return try_range(job, first, last);
	default:
		return false;
	}
}

static int part_add(struct job *job, enum editwin_context what, int first, int last)
{
	int error;

	if (first < 1 || last < first)
		return 0;
	if ((error = ARRAY_GROW(job->parts, job->alloc, job->nparts + 1)) < 0)
		return error;
	job->parts[job->nparts].what = what;
	job->parts[job->nparts].first = first;
	job->parts[job->nparts].last = min_int(last, job->t->n);
	job->nparts++;
	return 0;
}

typedef bool (*range_fn)(const struct job *job, int *first, int *last);

static int gather_range(struct job *job, enum editwin_context what, range_fn range)
{
	int first, last;

	return range(job, &first, &last) ? part_add(job, what, first, last) : 0;
}

static int gather_imports(struct job *job, enum editwin_context what)
{
	return gather_range(job, what, top_imports);
}

static int gather_function(struct job *job, enum editwin_context what)
{
	return gather_range(job, what, function_range);
}

static int gather_try(struct job *job, enum editwin_context what)
{
	return gather_range(job, what, try_range);
}

static int gather_signature(struct job *job, enum editwin_context what)
{
	return gather_range(job, what, signature_range);
}

/* "name: type" at the start of statement j (a class-level annotation). */
static bool py_annotation(const struct py *py, int j)
{
	const char *p = skip_blanks(line_start(py->t, j), line_end(py->t, j)), *e = line_end(py->t, j);
	const char *q = word_end(p, e);

	if (py->kind[j] != PY_CODE || q == p)
		return false;
	q = skip_blanks(q, e);
	return q < e && *q == ':' && (q + 1 == e || q[1] != '=');
}

/* The class: decorators and signature, docstring, class-level annotations. */
static int gather_class(struct job *job, enum editwin_context what)
{
	const struct py *py = job->py;
	int c, end, j, body = -1, error;

	if (!py || !(c = py_enclosing(py, job->line, PY_CLASS)))
		return 0;
	if ((error = part_add(job, what, py_decorators_start(py, c), py->end[c])) < 0)
		return error;
	end = py_block_end(py, c);
	for (j = py->end[c] + 1; j <= end && !error; j = py->end[j] + 1) {
		if (!py_is_code(py->kind[j]))
			continue;
		if (body < 0) {
			body = py->indent[j];
			if (py->kind[j] == PY_STRING) {
				error = part_add(job, what, j, py->end[j]);
				continue;
			}
		}
		if (py->indent[j] == body && py_annotation(py, j))
			error = part_add(job, what, j, py->end[j]);
	}
	return error;
}

static const char *const alias_calls[] = {
	"TypeVar", "NewType", "ParamSpec", "TypeVarTuple", "TypedDict", NULL,
};

static const char *const alias_subscripts[] = {
	"Union", "Optional", "Literal", "Callable", "Annotated", "Dict", "List", "Tuple", "Set",
	"FrozenSet", "Type", "Mapping", "Sequence", "Iterable", NULL,
};

/* Whether the right side at p is a typing construct: [typing.]Union[...], TypeVar(...)... */
static bool py_alias_value(const char *p, const char *e)
{
	const char *w = skip_blanks(p, e), *we = word_end(w, e);

	while (we < e && *we == '.' && we > w) {
		w = we + 1;
		we = word_end(w, e);
	}
	if (we == w || we >= e)
		return false;
	return (*we == '[' && in_list(w, (size_t)(we - w), alias_subscripts)) ||
		(*we == '(' && in_list(w, (size_t)(we - w), alias_calls));
}

/* A module-level type alias: X = Union[...], X: TypeAlias = ..., type X = ..., X = TypeVar(...). */
static bool py_type_alias(const struct py *py, int j)
{
	const char *p = skip_blanks(line_start(py->t, j), line_end(py->t, j)), *e = line_end(py->t, j);
	const char *name, *eq;
	size_t len;

	if (word_is(p, e, "type")) {
		const char *n = skip_blanks(p + 4, e), *ne = word_end(n, e);

		return ne > n && (eq = skip_blanks(ne, e)) < e && (*eq == '=' || *eq == '[');
	}
	if (!py_assigned(py, j, &name, &len))
		return false;
	eq = name + len;
	while (eq < e && *eq != '=')
		eq++;
	if (brace_has_text(name + len, eq, "TypeAlias"))
		return true;
	return eq < e && py_alias_value(eq + 1, e);
}

/* A class whose bases name Protocol or TypedDict. */
static bool py_protocol_class(const struct py *py, int j)
{
	const char *p = line_start(py->t, j), *e = line_end(py->t, py->end[j]);

	if (!(p = memchr(p, '(', (size_t)(e - p))))
		return false;
	return has_word_in(p, e, "Protocol") || has_word_in(p, e, "TypedDict");
}

static int gather_type_aliases(struct job *job, enum editwin_context what)
{
	const struct py *py = job->py;
	int j, error = 0;

	for (j = py ? py_next_code(py, 0) : 0; j && !error; j = py_next_code(py, py->end[j])) {
		if (py->indent[j] != 0)
			continue;
		if (py->kind[j] == PY_CLASS && py_protocol_class(py, j))
			error = part_add(job, what, py_decorators_start(py, j), py_block_end(py, j));
		else if (py->kind[j] == PY_CODE && py_type_alias(py, j))
			error = part_add(job, what, j, py->end[j]);
	}
	return error;
}

static bool upper_name(const char *p, size_t len)
{
	bool letter = false;
	size_t i;

	for (i = 0; i < len; i++) {
		if (islower((unsigned char)p[i]) || (unsigned char)p[i] >= 0x80)
			return false;
		letter |= isupper((unsigned char)p[i]) != 0;
	}
	return letter;
}

static int gather_constants(struct job *job, enum editwin_context what)
{
	const struct py *py = job->py;
	const char *name;
	size_t len;
	int j, error = 0;

	/* T = TypeVar("T") is upper case but no constant. */
	for (j = py ? py_next_code(py, 0) : 0; j && !error; j = py_next_code(py, py->end[j]))
		if (py->indent[j] == 0 && py_assigned(py, j, &name, &len) && upper_name(name, len) &&
		    !py_type_alias(py, j))
			error = part_add(job, what, j, py->end[j]);
	return error;
}

/* The name quoted in a message: `os` (ruff), 'os' (pyflakes), "os". */
static bool quoted_name(const char *message, const char **name, size_t *len)
{
	const char *p = strpbrk(message, "`'\""), *q;

	if (!p)
		return false;
	for (q = p + 1; is_ident(*q) || *q == '.'; q++)
		;
	if (*q != *p || q == p + 1)
		return false;
	*name = p + 1;
	*len = (size_t)(q - p - 1);
	return true;
}

/* "from line 12" in a message; 0 without. */
static int named_line(const char *message)
{
	const char *p = strstr(message, "line ");
	long n = 0;

	if (!p)
		return 0;
	for (p += 5; isdigit((unsigned char)*p) && n < INT_MAX / 10; p++)
		n = n * 10 + (*p - '0');
	return (int)n;
}

/* Whether [p, e) holds name as a whole (dotted) name. */
static bool names(const char *p, const char *e, const char *name, size_t len)
{
	const char *q;

	for (q = p; (size_t)(e - q) >= len; q++)
		if (!memcmp(q, name, len) && (q == p || (!is_ident(q[-1]) && q[-1] != '.')) &&
		    (q + len == e || !is_ident(q[len])))
			return true;
	return false;
}

/* Whether statement j defines name: def, class, import, assignment. */
static bool py_defines(const struct py *py, int j, const char *name, size_t len)
{
	const char *p = skip_blanks(line_start(py->t, j), line_end(py->t, j)), *e = line_end(py->t, j);
	const char *w;
	size_t n;

	switch (py->kind[j]) {
	case PY_DEF:
	case PY_CLASS:
		if (word_is(p, e, "async"))
			p = skip_blanks(word_end(p, e), e);
		w = skip_blanks(word_end(p, e), e);
		return (size_t)(word_end(w, e) - w) == len && !memcmp(w, name, len);
	case PY_IMPORT:
		return names(p, line_end(py->t, py->end[j]), name, len);
	case PY_CODE:
		return py_assigned(py, j, &w, &n) && n == len && !memcmp(w, name, len);
	default:
		return false;
	}
}

static void py_definition(const struct py *py, int s, int *first, int *last)
{
	int d = py->kind[s] == PY_DECORATOR ? py_decorated(py, s) : s;

	if (d && (py->kind[d] == PY_DEF || py->kind[d] == PY_CLASS)) {
		*first = py_decorators_start(py, d);
		*last = py_block_end(py, d);
	} else {
		*first = s;
		*last = py->end[s];
	}
}

/* F811: the earlier definition of the name the message quotes, at the line it names if any. */
static int gather_previous(struct job *job, enum editwin_context what)
{
	const struct py *py = job->py;
	const char *name;
	size_t len;
	int at = named_line(job->message), first, last, j;

	if (!py || !quoted_name(job->message, &name, &len))
		return 0;
	if (at >= 1 && at <= py->n && at < job->line) {
		py_definition(py, py->start[at], &first, &last);
		return part_add(job, what, first, last);
	}
	for (j = py->start[job->line] - 1; j >= 1; j = py->start[j] - 1) {
		j = py->start[j];
		if (py_is_code(py->kind[j]) && py_defines(py, j, name, len)) {
			py_definition(py, j, &first, &last);
			return part_add(job, what, first, last);
		}
	}
	return 0;
}

/* Each context flag's gatherer; the ones only Python has return nothing for the others. */
static const struct gatherer {
	enum editwin_context what;
	int (*gather)(struct job *job, enum editwin_context what);
} gatherers[] = {
	{ CTX_IMPORTS, gather_imports },
	{ CTX_FUNCTION, gather_function },
	{ CTX_TRY, gather_try },
	{ CTX_CLASS, gather_class },
	{ CTX_TYPE_ALIASES, gather_type_aliases },
	{ CTX_CONSTANTS, gather_constants },
	{ CTX_SIGNATURE, gather_signature },
	{ CTX_PREVIOUS_DEF, gather_previous },
};

static int part_order(const void *a, const void *b)
{
	const struct editwin_part *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	if (x->last != y->last)
		return x->last > y->last ? -1 : 1;
	return x->what < y->what ? -1 : x->what > y->what;
}

/* Cut the parts around the edit window: a part across it leaves a piece on each side. */
static int parts_cut(struct job *job, int first, int last)
{
	size_t i, n = job->nparts;
	int error = 0;

	for (i = 0; i < n && !error; i++) {
		struct editwin_part *p = &job->parts[i];

		if (p->last < first || p->first > last)
			continue;
		if (p->last > last)
			error = part_add(job, p->what, last + 1, job->parts[i].last);
		p = &job->parts[i];
		p->last = first - 1;
	}
	return error;
}

/* In file order; a part inside another left out; touching parts of one kind joined. */
static void parts_tidy(struct job *job)
{
	size_t i, kept = 0;
	int reach = 0;

	if (job->nparts)
		qsort(job->parts, job->nparts, sizeof(*job->parts), part_order);
	for (i = 0; i < job->nparts; i++) {
		struct editwin_part p = job->parts[i], *prev = kept ? &job->parts[kept - 1] : NULL;

		if (p.last < p.first || p.last <= reach)
			continue;
		if (prev && prev->what == p.what && p.first <= prev->last + 1)
			prev->last = max_int(prev->last, p.last);
		else
			job->parts[kept++] = p;
		reach = max_int(reach, p.last);
	}
	job->nparts = kept;
}

static int gather(struct job *job, unsigned context, int first, int last)
{
	size_t i;
	int error = 0;

	for (i = 0; i < sizeof(gatherers) / sizeof(gatherers[0]) && !error; i++)
		if (context & gatherers[i].what)
			error = gatherers[i].gather(job, gatherers[i].what);
	if (!error)
		error = parts_cut(job, first, last);
	if (!error)
		parts_tidy(job);
	return error;
}

static int scan(struct job *job, struct py *py, struct braces *br, const char *path)
{
	enum dialect d = dialect_of(path);
	int error;

	if (d == D_PYTHON) {
		if ((error = py_scan(py, job->t)) < 0)
			return error;
		job->py = py;
	} else if (d != D_NONE) {
		if ((error = braces_scan(br, job->t, d)) < 0)
			return error;
		job->br = br;
	}
	return 0;
}

static int check_lines(const struct text *t, const char *path, int line, int *end_line)
{
	if (line < 1 || line > t->n)
		return error_set(RL_EUSAGE, "line %d is outside %s (%d line%s)", line,
				 path ? path : "the file", t->n, t->n == 1 ? "" : "s");
	if (*end_line == 0)
		*end_line = line;
	if (*end_line < line)
		return error_set(RL_EUSAGE, "the signal ends on line %d, before it starts (line %d)",
				 *end_line, line);
	*end_line = min_int(*end_line, t->n);
	return 0;
}

/* +-n lines, n kept within the file's size so that nothing overflows. */
static int spread(const struct editwin_spec *spec, const struct text *t)
{
	int n = spec->lines;

	/* A scope that is not there: the spec's lines when its maker gave some, else +-3. */
	if (spec->kind != EDITWIN_LINES && n <= 0)
		n = EDITWIN_DEFAULT_LINES;
	return n < 0 ? 0 : min_int(n, t->n);
}

static void window_set(struct editwin *out, const struct editwin_spec *spec, const struct job *job)
{
	int first, last, n = job->t->n, size = spread(spec, job->t);

	if (spec->kind != EDITWIN_LINES && window_scope(job, spec->kind, &first, &last)) {
		out->kind = spec->kind;
	} else {
		out->kind = EDITWIN_LINES;
		first = job->line - size;
		last = job->end + size;
	}
	out->first = max_int(1, min_int(first, job->line - EDITWIN_MIN_EDIT));
	out->last = min_int(n, max_int(last, job->end + EDITWIN_MIN_EDIT));
	if (spec->ends_file)
		out->last = n;
	out->context_first = max_int(1, min_int(out->first, job->line - EDITWIN_MIN_CONTEXT));
	out->context_last = min_int(n, max_int(out->last, job->end + EDITWIN_MIN_CONTEXT));
}

int editwin_build(struct editwin *out, const struct editwin_spec *spec, const char *path,
		  const char *text, size_t len, int line, int end_line, const char *message)
{
	struct editwin_spec fallback;
	struct text t = { NULL, 0, 0, NULL };
	struct py py;
	struct braces br;
	struct job job;
	int error;

	memset(out, 0, sizeof(*out));
	memset(&py, 0, sizeof(py));
	memset(&br, 0, sizeof(br));
	memset(&job, 0, sizeof(job));
	if (!spec) {
		editwin_lookup(&fallback, NULL, NULL, NULL, NULL);
		spec = &fallback;
	}
	if (spec->kind == EDITWIN_SKIP)
		return error_set(RL_EUSAGE, "this signal is not fixed in one window: %s",
				 spec->why ? spec->why : "its row in the table says skip");
	if (!text && len)
		return error_set(RL_EUSAGE, "no text for %s", path ? path : "the file");
	if ((error = text_init(&t, text ? text : "", len)) < 0 ||
	    (error = check_lines(&t, path, line, &end_line)) < 0)
		goto done;
	job.t = &t;
	job.line = line;
	job.end = end_line;
	job.message = message ? message : "";
	if ((error = scan(&job, &py, &br, path)) < 0)
		goto done;
	window_set(out, spec, &job);
	if ((error = gather(&job, spec->context, out->first, out->last)) < 0)
		goto done;
	out->parts = job.parts;
	out->nparts = job.nparts;
	job.parts = NULL;
done:
	free(job.parts);
	py_release(&py);
	braces_release(&br);
	free(t.at);
	return error;
}

void editwin_release(struct editwin *win)
{
	if (!win)
		return;
	free(win->parts);
	memset(win, 0, sizeof(*win));
}

