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
 * Names
 */

static const char *const kind_names[] = {
#define KIND_NAME(id, name) [id] = name,
	EDITWIN_KINDS(KIND_NAME)
#undef KIND_NAME
};
#define NKINDS (sizeof(kind_names) / sizeof(kind_names[0]))

struct context_info {
	enum editwin_context what;
	const char *name, *label;
};

static const struct context_info contexts[] = {
#define CONTEXT_INFO(id, bit, name, label) { id, name, label },
	EDITWIN_CONTEXTS(CONTEXT_INFO)
#undef CONTEXT_INFO
};
#define NCONTEXTS (sizeof(contexts) / sizeof(contexts[0]))

const char *editwin_kind_name(enum editwin_kind kind)
{
	return (unsigned)kind < NKINDS ? kind_names[kind] : "?";
}

static const struct context_info *context_info(enum editwin_context what)
{
	size_t i;

	for (i = 0; i < NCONTEXTS; i++)
		if (contexts[i].what == what)
			return &contexts[i];
	return NULL;
}

const char *editwin_context_name(enum editwin_context what)
{
	const struct context_info *info = context_info(what);

	return info ? info->name : "?";
}

const char *editwin_context_label(enum editwin_context what)
{
	const struct context_info *info = context_info(what);

	return info ? info->label : "?";
}

/* ------------------------------------------------------------------------
 * Characters and words
 */

static bool is_ident(char c)
{
	/* Bytes of UTF-8 sequences count: Python and JavaScript allow them in names. */
	return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static const char *skip_blanks(const char *p, const char *e)
{
	while (p < e && is_blank(*p))
		p++;
	return p;
}

static const char *word_end(const char *p, const char *e)
{
	while (p < e && is_ident(*p))
		p++;
	return p;
}

/* Whether [p, e) starts with the whole word w. */
static bool word_is(const char *p, const char *e, const char *w)
{
	size_t n = strlen(w);

	return (size_t)(e - p) >= n && !memcmp(p, w, n) && (p + n == e || !is_ident(p[n]));
}

/* Whether [s, e) holds w as a whole word. */
static bool has_word_in(const char *s, const char *e, const char *w)
{
	size_t n = strlen(w);
	const char *p;

	for (p = s; (size_t)(e - p) >= n; p++)
		if (!memcmp(p, w, n) && (p == s || !is_ident(p[-1])) && (p + n == e || !is_ident(p[n])))
			return true;
	return false;
}

static bool has_word(const char *s, const char *w)
{
	return has_word_in(s, s + strlen(s), w);
}

static bool in_list(const char *p, size_t len, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == len && !memcmp(*list, p, len))
			return true;
	return false;
}

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* ------------------------------------------------------------------------
 * The table
 */

struct editwin_row {
	char *tools;            /* "ruff,flake8" */
	char *code;             /* a prefix without its '*' */
	bool prefix;
	enum editwin_kind kind;
	int lines;
	unsigned context;       /* always */
	unsigned conditional;   /* only when the message calls for it */
	char *why;
	bool deletes;           /* the fix may delete the signal's own lines */
	bool ends_file;         /* the fix is of how the file ends */
	int line;               /* in the table's file */
};

struct editwin_table {
	struct editwin_row *rows;
	size_t count, alloc;
};

enum { COL_TOOLS, COL_CODE, COL_WINDOW, COL_CONTEXT, COL_WHY, COL_FIX, NCOLS };

struct field {
	const char *p, *e;
};

struct reader {
	const char *path;
	int line;
};

static bool mentions_self(const char *message);
static bool names_camel_type(const char *message);

/* The contexts a row may mark with '?', and when they are kept. */
static const struct condition {
	enum editwin_context what;
	bool (*holds)(const char *message);
} conditions[] = {
	{ CTX_CLASS, mentions_self },
	{ CTX_TYPE_ALIASES, names_camel_type },
};
#define NCONDITIONS (sizeof(conditions) / sizeof(conditions[0]))

static int row_error(const struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int row_error(const struct reader *rd, const char *fmt, ...)
{
	struct buf msg = BUF_INIT;
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	if (error == 0)
		error = error_set(RL_EPARSE, "%s:%d: %s", rd->path, rd->line, msg.ptr);
	buf_release(&msg);
	return error;
}

static int shown(const struct field *f)
{
	return (int)(f->e - f->p < SHOWN_MAX ? f->e - f->p : SHOWN_MAX);
}

static struct field trimmed(const char *p, const char *e)
{
	struct field f;

	p = skip_blanks(p, e);
	while (e > p && is_blank(e[-1]))
		e--;
	f.p = p;
	f.e = e;
	return f;
}

/* The next comma-separated item of *f, trimmed; false at the end. */
static bool next_item(struct field *item, struct field *f)
{
	const char *comma;

	if (f->p > f->e)
		return false;
	comma = memchr(f->p, ',', (size_t)(f->e - f->p));
	*item = trimmed(f->p, comma ? comma : f->e);
	f->p = comma ? comma + 1 : f->e + 1;
	return true;
}

static int split_row(struct field cols[NCOLS], const struct reader *rd, const char *p, const char *e)
{
	static const char none[] = "-";
	const char *tab;
	int n = 1, i;

	for (tab = p; (tab = memchr(tab, '\t', (size_t)(e - tab))); tab++)
		n++;
	if (n != NCOLS && n != NCOLS - 1)
		return row_error(rd, "expected 5 or 6 columns separated by tabs (tools, code, window, "
				 "context, why, and fix when it says delete), found %d", n);
	/* The fix column is optional: none is "-". */
	cols[COL_FIX].p = none;
	cols[COL_FIX].e = none + 1;
	for (i = 0; i < n; i++) {
		tab = i + 1 < n ? memchr(p, '\t', (size_t)(e - p)) : e;
		cols[i] = trimmed(p, tab);
		p = tab + 1;
	}
	return 0;
}

static int parse_tools(char **out, const struct reader *rd, struct field f)
{
	struct buf tools = BUF_INIT;
	struct field item;
	const char *c;
	int error = 0;

	while (!error && next_item(&item, &f)) {
		for (c = item.p; c < item.e && !error; c++)
			if (!is_ident(*c) && *c != '-' && *c != '.' && *c != '+')
				error = row_error(rd, "bad tool name '%.*s'", shown(&item), item.p);
		if (!error && item.p == item.e)
			error = row_error(rd, "an empty tool name in the tools column");
		if (!error && tools.len)
			error = buf_putc(&tools, ',');
		if (!error)
			error = buf_put(&tools, item.p, (size_t)(item.e - item.p));
	}
	if (error) {
		buf_release(&tools);
		return error;
	}
	*out = buf_detach(&tools);
	return 0;
}

static int parse_code(struct editwin_row *row, const struct reader *rd, struct field f)
{
	const char *c;

	if (f.p == f.e)
		return row_error(rd, "the code column is empty");
	for (c = f.p; c < f.e; c++)
		if (is_blank(*c) || *c == ',' || (*c == '*' && c + 1 != f.e))
			return row_error(rd, "bad code '%.*s' (a code, or a prefix ending in *)",
					 shown(&f), f.p);
	row->prefix = f.e[-1] == '*';
	row->code = strndup(f.p, (size_t)(f.e - f.p) - row->prefix);
	return row->code ? 0 : error_nomem();
}

static int parse_window(struct editwin_row *row, const struct reader *rd, struct field f)
{
	size_t k, len = (size_t)(f.e - f.p);
	const char *c;
	long n = 0;

	if (len > 6 && !memcmp(f.p, "lines:", 6)) {
		for (c = f.p + 6; c < f.e && isdigit((unsigned char)*c) && n <= 999; c++)
			n = n * 10 + (*c - '0');
		if (c < f.e || n < 1 || n > 999)
			return row_error(rd, "bad line count in '%.*s' (lines:N, N from 1 to 999)",
					 shown(&f), f.p);
		row->kind = EDITWIN_LINES;
		row->lines = (int)n;
		return 0;
	}
	for (k = 0; k < NKINDS; k++)
		if (k != EDITWIN_LINES && strlen(kind_names[k]) == len && !memcmp(kind_names[k], f.p, len)) {
			row->kind = (enum editwin_kind)k;
			return 0;
		}
	return row_error(rd, "unknown window '%.*s' (lines:N, function, imports, try or skip)",
			 shown(&f), f.p);
}

static int context_unknown(const struct reader *rd, const struct field *item)
{
	struct buf known = BUF_INIT;
	size_t i;
	int error = 0;

	for (i = 0; i < NCONTEXTS && !error; i++)
		error = buf_printf(&known, "%s%s", i ? ", " : "", contexts[i].name);
	if (!error)
		error = row_error(rd, "unknown context '%.*s' (%s, or -)", shown(item), item->p, known.ptr);
	buf_release(&known);
	return error;
}

static bool may_be_conditional(enum editwin_context what)
{
	size_t i;

	for (i = 0; i < NCONDITIONS; i++)
		if (conditions[i].what == what)
			return true;
	return false;
}

static int parse_context_item(struct editwin_row *row, const struct reader *rd, struct field item)
{
	bool conditional = item.e > item.p && item.e[-1] == '?';
	size_t i, len = (size_t)(item.e - item.p) - conditional;

	for (i = 0; i < NCONTEXTS; i++) {
		if (strlen(contexts[i].name) != len || memcmp(contexts[i].name, item.p, len))
			continue;
		if (conditional && !may_be_conditional(contexts[i].what))
			return row_error(rd, "'%.*s' cannot be conditional: only class? (when the message "
					 "mentions self.) and type-aliases? (when it names a CamelCase "
					 "type) can", shown(&item), item.p);
		if (conditional)
			row->conditional |= contexts[i].what;
		else
			row->context |= contexts[i].what;
		return 0;
	}
	return context_unknown(rd, &item);
}

static int parse_context(struct editwin_row *row, const struct reader *rd, struct field f)
{
	struct field item;
	int error = 0;

	if (f.e - f.p == 1 && *f.p == '-')
		return 0;
	if (f.p == f.e)
		return row_error(rd, "the context column is empty (write - for none)");
	while (!error && next_item(&item, &f))
		error = parse_context_item(row, rd, item);
	return error;
}

static bool tools_share(const char *a, const char *b)
{
	const char *p, *q;
	size_t n, m;

	for (p = a; *p; p += n + (p[n] == ',')) {
		n = strcspn(p, ",");
		for (q = b; *q; q += m + (q[m] == ',')) {
			m = strcspn(q, ",");
			if (n == m && !strncasecmp(p, q, n))
				return true;
		}
	}
	return false;
}

static int check_duplicate(const struct editwin_table *table, const struct editwin_row *row,
			   const struct reader *rd)
{
	size_t i;

	for (i = 0; i < table->count; i++) {
		const struct editwin_row *old = &table->rows[i];

		if (old->prefix == row->prefix && !strcasecmp(old->code, row->code) &&
		    tools_share(old->tools, row->tools))
			return row_error(rd, "%s%s is already on line %d", row->code,
					 row->prefix ? "*" : "", old->line);
	}
	return 0;
}

static void row_release(struct editwin_row *row)
{
	free(row->tools);
	free(row->code);
	free(row->why);
}

/*
 * The fix column: delete (the fix may delete the signal's own lines),
 * final-newline (the fix is of how the file ends), or -.
 */
static int parse_fix(struct editwin_row *row, const struct reader *rd, struct field f)
{
	size_t len = (size_t)(f.e - f.p);

	if ((len == 1 && *f.p == '-') || !len)
		return 0;
	if (len == 6 && !strncmp(f.p, "delete", 6)) {
		row->deletes = true;
		return 0;
	}
	if (len == 13 && !strncmp(f.p, "final-newline", 13)) {
		row->ends_file = true;
		return 0;
	}
	return row_error(rd, "unknown fix '%.*s' (delete, final-newline or -)", shown(&f), f.p);
}

static int parse_row(struct editwin_row *row, const struct reader *rd, const char *p, const char *e)
{
	struct field cols[NCOLS];
	int error;

	memset(row, 0, sizeof(*row));
	row->line = rd->line;
	if (memchr(p, '\0', (size_t)(e - p)))
		return row_error(rd, "the row holds a NUL byte");
	if ((error = split_row(cols, rd, p, e)) < 0 ||
	    (error = parse_tools(&row->tools, rd, cols[COL_TOOLS])) < 0 ||
	    (error = parse_code(row, rd, cols[COL_CODE])) < 0 ||
	    (error = parse_window(row, rd, cols[COL_WINDOW])) < 0 ||
	    (error = parse_context(row, rd, cols[COL_CONTEXT])) < 0)
		return error;
	if (cols[COL_WHY].p == cols[COL_WHY].e)
		return row_error(rd, "the why column is empty: say why this window");
	if ((error = parse_fix(row, rd, cols[COL_FIX])) < 0)
		return error;
	row->why = strndup(cols[COL_WHY].p, (size_t)(cols[COL_WHY].e - cols[COL_WHY].p));
	return row->why ? 0 : error_nomem();
}

static int table_add(struct editwin_table *table, const struct reader *rd, const char *p, const char *e)
{
	struct editwin_row row;
	int error;

	if ((error = parse_row(&row, rd, p, e)) < 0 || (error = check_duplicate(table, &row, rd)) < 0)
		goto done;
	if (table->count == table->alloc) {
		size_t alloc = table->alloc ? table->alloc * 2 : 64;
		struct editwin_row *rows = realloc(table->rows, alloc * sizeof(*rows));

		if (!rows) {
			error = error_nomem();
			goto done;
		}
		table->rows = rows;
		table->alloc = alloc;
	}
	table->rows[table->count++] = row;
	return 0;
done:
	row_release(&row);
	return error;
}

static bool is_comment_or_blank(const char *p, const char *e)
{
	p = skip_blanks(p, e);
	return p == e || *p == '#';
}

int editwin_table_parse(struct editwin_table **out, const char *text, size_t len, const char *path)
{
	struct editwin_table *table = calloc(1, sizeof(*table));
	struct reader rd = { path ? path : "edit-windows.tsv", 0 };
	size_t at = 0;
	int error = 0;

	*out = NULL;
	if (!table)
		return error_nomem();
	while (at < len && !error) {
		const char *p = text + at, *nl = memchr(p, '\n', len - at), *e = nl ? nl : text + len;

		at = (size_t)(e - text) + 1;
		rd.line++;
		if (e > p && e[-1] == '\r')
			e--;
		if (!is_comment_or_blank(p, e))
			error = table_add(table, &rd, p, e);
	}
	if (error) {
		editwin_table_free(table);
		return error;
	}
	*out = table;
	return 0;
}

int editwin_table_load(struct editwin_table **out, const char *path)
{
	struct buf text = BUF_INIT;
	int error;

	*out = NULL;
	if ((error = buf_read_file(&text, path)) == 0)
		error = editwin_table_parse(out, text.ptr ? text.ptr : "", text.len, path);
	buf_release(&text);
	return error;
}

int editwin_table_default(struct editwin_table **out)
{
	struct buf path = BUF_INIT;
	int error;

	*out = NULL;
	if ((error = datadir_file(&path, "signals", "edit-windows.tsv")) == 0)
		error = editwin_table_load(out, path.ptr);
	buf_release(&path);
	return error;
}

void editwin_table_free(struct editwin_table *table)
{
	size_t i;

	if (!table)
		return;
	for (i = 0; i < table->count; i++)
		row_release(&table->rows[i]);
	free(table->rows);
	free(table);
}

size_t editwin_table_count(const struct editwin_table *table)
{
	return table ? table->count : 0;
}

/* ------------------------------------------------------------------------
 * Looking a code up
 */

static bool mentions_self(const char *message)
{
	return strstr(message, "self.") != NULL;
}

/* typing's and the builtins' own capitalised names: no alias of the file's explains them. */
static const char *const typing_names[] = {
	"Any", "Annotated", "AsyncGenerator", "AsyncIterator", "Awaitable", "Callable", "ChainMap",
	"ClassVar", "Coroutine", "Counter", "DefaultDict", "Deque", "Dict", "False", "Final",
	"FrozenSet", "Generator", "Generic", "Iterable", "Iterator", "List", "Literal", "Mapping",
	"MutableMapping", "MutableSequence", "MutableSet", "NamedTuple", "Never", "NewType",
	"NoReturn", "None", "NotImplemented", "Optional", "OrderedDict", "ParamSpec", "Protocol",
	"Self", "Sequence", "Set", "True", "Tuple", "Type", "TypeAlias", "TypeGuard", "TypeVar",
	"TypedDict", "Union", NULL,
};

/*
 * A CamelCase type: a capitalised name with a lower case letter and a
 * second capital (UserID, MyType); in quotes, where mypy and ruff put the
 * names of types, one capital is enough ("User").
 */
static bool camel_type(const char *w, size_t len, bool quoted)
{
	bool lower = false, hump = false;
	size_t i;

	if (!isupper((unsigned char)w[0]) || in_list(w, len, typing_names))
		return false;
	for (i = 1; i < len; i++) {
		lower |= islower((unsigned char)w[i]) != 0;
		hump |= isupper((unsigned char)w[i]) != 0;
	}
	return lower && (hump || quoted);
}

static bool names_camel_type(const char *message)
{
	const char *p = message, *q;
	bool quoted = false, first = true;

	while (*p) {
		if (*p == '"' || *p == '`') {
			quoted = !quoted;
			p++;
			continue;
		}
		if (!is_ident(*p) || isdigit((unsigned char)*p)) {
			p++;
			continue;
		}
		for (q = p; is_ident(*q); q++)
			;
		/* Outside quotes the first word is the sentence's ("Incompatible ..."). */
		if ((quoted || !first) && camel_type(p, (size_t)(q - p), quoted))
			return true;
		first = false;
		p = q;
	}
	return false;
}

static bool row_has_tool(const struct editwin_row *row, const char *tool)
{
	return !tool || tools_share(row->tools, tool);
}

static const struct editwin_row *row_find(const struct editwin_table *table, const char *tool,
					  const char *code)
{
	const struct editwin_row *best = NULL;
	size_t i;

	for (i = 0; i < table->count; i++) {
		const struct editwin_row *row = &table->rows[i];

		if (!row_has_tool(row, tool))
			continue;
		if (!row->prefix && !strcasecmp(row->code, code))
			return row;
		if (row->prefix && !strncasecmp(row->code, code, strlen(row->code)) &&
		    (!best || strlen(row->code) > strlen(best->code)))
			best = row;
	}
	return best;
}

void editwin_lookup(struct editwin_spec *out, const struct editwin_table *table, const char *tool,
		    const char *code, const char *message)
{
	const struct editwin_row *row = table && code && *code ? row_find(table, tool, code) : NULL;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->kind = EDITWIN_LINES;
	out->lines = EDITWIN_DEFAULT_LINES;
	out->context = EDITWIN_STANDARD_CONTEXT;
	if (!row)
		return;
	out->kind = row->kind;
	out->lines = row->lines;
	out->why = row->why;
	out->deletes = row->deletes;
	out->ends_file = row->ends_file;
	out->known = true;
	out->context |= row->context;
	for (i = 0; i < NCONDITIONS && message; i++)
		if ((row->conditional & conditions[i].what) && conditions[i].holds(message))
			out->context |= conditions[i].what;
}

/* ------------------------------------------------------------------------
 * Languages
 */

/* How a language writes comments and literals (brace languages), or Python. */
enum dialect { D_NONE, D_PYTHON, D_C, D_JAVA, D_JS, D_GO, D_RUST };

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
 * Lines of the text
 */

struct text {
	const char *s;
	size_t len;
	int n;
	size_t *at;     /* at[i]: where line i starts (1-based); at[n + 1]: one past line n's end */
};

static int text_init(struct text *t, const char *s, size_t len)
{
	const char *p, *e = s + len;
	size_t count = 0;
	int line = 1;

	t->s = s;
	t->len = len;
	for (p = s; p < e && (p = memchr(p, '\n', (size_t)(e - p))); p++)
		count++;
	count += len && s[len - 1] != '\n';
	if (count > INT_MAX / 2)
		return error_set(RL_EUSAGE, "the file has too many lines for an edit window");
	t->n = (int)count;
	if (!(t->at = malloc((count + 2) * sizeof(size_t))))
		return error_nomem();
	t->at[1] = 0;
	for (p = s; p < e && (p = memchr(p, '\n', (size_t)(e - p))); p++)
		t->at[++line] = (size_t)(p - s) + 1;
	if (len && s[len - 1] != '\n')
		t->at[t->n + 1] = len + 1;
	return 0;
}

static const char *line_start(const struct text *t, int i)
{
	return t->s + t->at[i];
}

/* Just past the line's last character, before its newline. */
static const char *line_end(const struct text *t, int i)
{
	return t->s + t->at[i + 1] - 1;
}

/* The line that holds offset off. */
static int line_of(const struct text *t, size_t off)
{
	int lo = 1, hi = t->n;

	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;

		if (t->at[mid] <= off)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

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

static bool is_code(unsigned char kind)
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

static int py_scan(struct py *py, const struct text *t)
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

static void py_release(struct py *py)
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
		if (is_code(py->kind[j]) && py->indent[j] < *limit) {
			*limit = py->indent[j];
			return j;
		}
	}
	return 0;
}

/* The last line of the block a header at h opens: trailing blank lines and comments left out. */
static int py_block_end(const struct py *py, int h)
{
	int last = py->end[h], j;

	for (j = py->end[h] + 1; j <= py->n; j = py->end[j] + 1) {
		if (!is_code(py->kind[j]))
			continue;
		if (py->indent[j] <= py->indent[h])
			break;
		last = py->end[j];
	}
	return last;
}

/* The next statement after the block of h; 0 at the end of the file. */
static int py_next_code(const struct py *py, int after)
{
	int j;

	for (j = after + 1; j <= py->n; j = py->end[j] + 1)
		if (is_code(py->kind[j]))
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
		if (!is_code(py->kind[j]) || py->indent[j] > c)
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
static int py_decorated(const struct py *py, int s)
{
	int j;

	for (j = s; j && py->kind[j] == PY_DECORATOR; j = py_next_code(py, py->end[j]))
		;
	return j && (py->kind[j] == PY_DEF || py->kind[j] == PY_CLASS) ? j : 0;
}

/* The first line of the decorators of h (h itself without). */
static int py_decorators_start(const struct py *py, int h)
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
static int py_enclosing(const struct py *py, int line, enum py_kind want)
{
	int s = py_statement(py, line), limit, h;

	if (py->kind[s] == want)
		return s;
	limit = is_code(py->kind[s]) ? py->indent[s] : INT_MAX;
	for (h = s; (h = py_outer(py, h, &limit));)
		if (py->kind[h] == want && py_block_end(py, h) >= line)
			return h;
	return 0;
}

static bool py_function(const struct py *py, int line, int *first, int *last)
{
	int f = py_enclosing(py, line, PY_DEF);

	if (!f)
		return false;
	*first = py_decorators_start(py, f);
	*last = py_block_end(py, f);
	return true;
}

static bool py_signature(const struct py *py, int line, int *first, int *last)
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
static bool py_try(const struct py *py, int line, int *first, int *last)
{
	int s = py_statement(py, line), limit, h, t, end;

	limit = is_code(py->kind[s]) ? py->indent[s] : INT_MAX;
	for (h = is_code(py->kind[s]) ? s : py_outer(py, s, &limit); h; h = py_outer(py, h, &limit)) {
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
static bool py_assigned(const struct py *py, int j, const char **name, size_t *len)
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
		if (!is_code(py->kind[j]))
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
static bool py_top_imports(const struct py *py, int *first, int *last)
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
		else if (is_code(py->kind[j]))
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
static bool py_imports_window(const struct py *py, int line, int *first, int *last)
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
	int count, alloc;
	bool *code;             /* code[i]: line i holds more than comments and blanks */
};

/* A longer head is no function's: signatures are shorter than this. */
#define HEAD_MAX 1024
/* Template literals nest in JavaScript; past this depth their insides count as text. */
#define TEMPLATE_NESTING 16

/* The last code character, for JavaScript's question: division or regular expression? */
struct cursor {
	char prev;
	size_t prev_at;
};

struct lexer {
	struct braces *b;
	int line;
	int top;                /* the innermost open block, -1 */
	char head[HEAD_MAX];
	size_t head_len;
	int head_line;
	int head_paren;
	bool head_long;
	int head_after;         /* the block whose '}' the head directly follows, -1 */
	bool line_start;        /* only blanks so far on this line (C's preprocessor) */
	struct cursor cur;
};

static size_t utf8_len(unsigned char c)
{
	return c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
}

static size_t skip_line_comment(const struct text *t, size_t i)
{
	const char *nl = memchr(t->s + i, '\n', t->len - i);

	return nl ? (size_t)(nl - t->s) : t->len;
}

/* Rust's block comments nest; the others' end at the first close. */
static size_t skip_block_comment(const struct text *t, size_t i, bool nested)
{
	size_t j = i + 2;
	int depth = 1;

	while (j + 1 < t->len) {
		if (t->s[j] == '*' && t->s[j + 1] == '/') {
			j += 2;
			if (--depth == 0 || !nested)
				return j;
		} else if (nested && t->s[j] == '/' && t->s[j + 1] == '*') {
			depth++;
			j += 2;
		} else {
			j++;
		}
	}
	return t->len;
}

/* A quoted string; one that may not span lines ends, unclosed, at its line's end. */
static size_t skip_quoted(const struct text *t, size_t i, char quote, bool multiline)
{
	size_t j = i + 1;

	while (j < t->len) {
		char c = t->s[j];

		if (c == '\\')
			j += 2;
		else if (c == quote)
			return j + 1;
		else if (c == '\n' && !multiline)
			return j;
		else
			j++;
	}
	return t->len;
}

/* Up to the next occurrence of [close, close + n), past it; the end of the text if none. */
static size_t skip_to(const struct text *t, size_t j, const char *close, size_t n, bool escapes)
{
	while (j < t->len) {
		if (escapes && t->s[j] == '\\') {
			j += 2;
			continue;
		}
		if (t->len - j >= n && !memcmp(t->s + j, close, n))
			return j + n;
		j++;
	}
	return t->len;
}

/* 'x', '\n', '\u{1F600}', or 0: a Rust lifetime or label is no literal. */
static size_t skip_char(const struct text *t, size_t i)
{
	size_t j;

	if (i + 1 >= t->len || t->s[i + 1] == '\n' || t->s[i + 1] == '\'')
		return 0;
	if (t->s[i + 1] == '\\') {
		for (j = i + 3; j < t->len && j < i + 14 && t->s[j] != '\n'; j++)
			if (t->s[j] == '\'')
				return j + 1;
		return 0;
	}
	j = i + 1 + utf8_len((unsigned char)t->s[i + 1]);
	return j < t->len && t->s[j] == '\'' ? j + 1 : 0;
}

/* r"..." or r#"..."# (br too); 0 if i does not start one. */
static size_t skip_rust_raw(const struct text *t, size_t i)
{
	char close[256];
	size_t j = i + 1, hashes = 0;

	if (i > 0 && is_ident(t->s[i - 1]) && !(t->s[i - 1] == 'b' && (i < 2 || !is_ident(t->s[i - 2]))))
		return 0;
	while (j < t->len && t->s[j] == '#' && hashes < sizeof(close) - 1) {
		hashes++;
		j++;
	}
	if (j >= t->len || t->s[j] != '"')
		return 0;
	close[0] = '"';
	memset(close + 1, '#', hashes);
	return skip_to(t, j + 1, close, hashes + 1, false);
}

/* C++'s R"delim(...)delim"; 0 if i does not start one. */
static size_t skip_cpp_raw(const struct text *t, size_t i)
{
	char close[20];
	size_t j, n;

	if (i + 1 >= t->len || t->s[i + 1] != '"')
		return 0;
	if (i > 0 && is_ident(t->s[i - 1]) && !strchr("8uUL", t->s[i - 1]))
		return 0;
	for (j = i + 2; j < t->len && j < i + 18 && t->s[j] != '('; j++)
		if (strchr(" )\\\"\n\t", t->s[j]))
			return 0;
	if (j >= t->len || t->s[j] != '(')
		return 0;
	n = j - (i + 2);
	close[0] = ')';
	memcpy(close + 1, t->s + i + 2, n);
	close[n + 1] = '"';
	return skip_to(t, j + 1, close, n + 2, false);
}

static const char *const regex_after_words[] = {
	"return", "typeof", "case", "do", "else", "in", "of", "delete", "void", "throw", "new",
	"yield", "await", "instanceof", NULL,
};

/* Whether a '/' after cur starts a regular expression rather than a division. */
static bool regex_may_start(const struct text *t, const struct cursor *cur)
{
	size_t w;

	if (!cur->prev || strchr("(,=:[!&|?{};+-*%<>~^", cur->prev))
		return true;
	if (!is_ident(cur->prev))
		return false;
	for (w = cur->prev_at; w > 0 && is_ident(t->s[w - 1]); w--)
		;
	return in_list(t->s + w, cur->prev_at + 1 - w, regex_after_words);
}

static size_t skip_regex(const struct text *t, size_t i)
{
	size_t j = i + 1;
	bool in_class = false;

	while (j < t->len && t->s[j] != '\n') {
		char c = t->s[j];

		if (c == '\\') {
			if (j + 1 < t->len && t->s[j + 1] == '\n')
				return 0;
			j += 2;
			continue;
		}
		if (c == '[')
			in_class = true;
		else if (c == ']')
			in_class = false;
		else if (c == '/' && !in_class)
			return j + 1;
		j++;
	}
	return 0;
}

static size_t literal_end(const struct text *t, enum dialect d, size_t i, const struct cursor *cur,
			  int nesting, bool *comment);

/* The code inside a template's ${...}, past its closing brace. */
static size_t skip_template_code(const struct text *t, size_t i, int nesting)
{
	struct cursor cur = { '{', i };
	size_t j = i, end;
	int depth = 0;
	bool comment;

	while (j < t->len) {
		char c = t->s[j];

		if (nesting < TEMPLATE_NESTING && (end = literal_end(t, D_JS, j, &cur, nesting, &comment))) {
			j = end;
			continue;
		}
		if (c == '{') {
			depth++;
		} else if (c == '}') {
			if (!depth)
				return j + 1;
			depth--;
		}
		if (!isspace((unsigned char)c)) {
			cur.prev = c;
			cur.prev_at = j;
		}
		j++;
	}
	return t->len;
}

static size_t skip_template(const struct text *t, size_t i, int nesting)
{
	size_t j = i + 1;

	while (j < t->len) {
		char c = t->s[j];

		if (c == '\\')
			j += 2;
		else if (c == '`')
			return j + 1;
		else if (c == '$' && j + 1 < t->len && t->s[j + 1] == '{')
			j = skip_template_code(t, j + 2, nesting + 1);
		else
			j++;
	}
	return t->len;
}

static size_t string_end(const struct text *t, enum dialect d, size_t i, int nesting)
{
	char c = t->s[i];

	if (c == '"' && d == D_JAVA && t->len - i >= 3 && t->s[i + 1] == '"' && t->s[i + 2] == '"')
		return skip_to(t, i + 3, "\"\"\"", 3, true);
	if (c == '"')
		return skip_quoted(t, i, '"', d == D_RUST);
	if (c == '\'')
		return d == D_JS ? skip_quoted(t, i, '\'', false) : skip_char(t, i);
	if (c == '`' && d == D_JS)
		return skip_template(t, i, nesting);
	if (c == '`' && d == D_GO)
		return skip_to(t, i + 1, "`", 1, false);
	if ((c == 'r' || c == 'b') && d == D_RUST)
		return skip_rust_raw(t, c == 'b' && i + 1 < t->len && t->s[i + 1] == 'r' ? i + 1 : i);
	if (c == 'R' && d == D_C)
		return skip_cpp_raw(t, i);
	return 0;
}

/* Past the comment or literal that starts at i (*comment says which), or 0. */
static size_t literal_end(const struct text *t, enum dialect d, size_t i, const struct cursor *cur,
			  int nesting, bool *comment)
{
	char next = i + 1 < t->len ? t->s[i + 1] : '\0';

	*comment = t->s[i] == '/' && (next == '/' || next == '*');
	if (t->s[i] == '/' && next == '/')
		return skip_line_comment(t, i);
	if (t->s[i] == '/' && next == '*')
		return skip_block_comment(t, i, d == D_RUST);
	if (t->s[i] == '/' && d == D_JS && regex_may_start(t, cur))
		return skip_regex(t, i);
	return string_end(t, d, i, nesting);
}

/* A preprocessor line and its backslash continuations, up to its newline. */
static size_t skip_directive(const struct text *t, size_t i)
{
	size_t j = i;
	char last = 0;

	while (j < t->len) {
		char c = t->s[j];

		if (c == '\n' && last != '\\')
			return j;
		if (c == '/' && j + 1 < t->len && t->s[j + 1] == '*') {
			j = skip_block_comment(t, j, false);
			last = 0;
			continue;
		}
		if (c != '\r')
			last = c;
		j++;
	}
	return t->len;
}

static void head_reset(struct lexer *lx, int after)
{
	lx->head_len = 0;
	lx->head[0] = '\0';
	lx->head_line = 0;
	lx->head_paren = 0;
	lx->head_long = false;
	lx->head_after = after;
}

static void head_put(struct lexer *lx, char c)
{
	if (!lx->head_len)
		lx->head_line = lx->line;
	if (c == '(')
		lx->head_paren++;
	else if (c == ')')
		lx->head_paren--;
	if (lx->head_len + 1 >= HEAD_MAX) {
		lx->head_long = true;
		return;
	}
	lx->head[lx->head_len++] = c;
	lx->head[lx->head_len] = '\0';
}

static void head_space(struct lexer *lx)
{
	if (lx->head_len && lx->head[lx->head_len - 1] != ' ')
		head_put(lx, ' ');
}

static const char *const control_words[] = {
	"if", "else", "for", "while", "do", "switch", "case", "match", "loop", "unsafe", "select",
	"with", "using", "lock", "foreach", "synchronized", "return", "throw", "when", "new", NULL,
};

static const char *const type_words[] = {
	"class", "struct", "enum", "union", "interface", "namespace", "impl", "trait", NULL,
};

/* The first word of s (after any closing braces and blanks), as a length; 0 if none. */
static size_t first_word(const char **w, const char *s, const char *e)
{
	while (s < e && (is_blank(*s) || *s == '}'))
		s++;
	*w = s;
	return (size_t)(word_end(s, e) - s);
}

static bool starts_with_control(const char *s, const char *e)
{
	const char *w;
	size_t n = first_word(&w, s, e);

	return n && in_list(w, n, control_words);
}

static bool has_any_word(const char *s, const char *const *words)
{
	for (; *words; words++)
		if (has_word(s, *words))
			return true;
	return false;
}

/*
 * A head of C, C++, Java or JavaScript that ends in a parameter list: what
 * follows it has no ',' or '=' (an object literal's value, an initializer)
 * and no type keyword (an annotation before "class"), and no '=' comes
 * before it (a lambda assigned, unless it is an operator== being defined).
 */
static bool head_is_signature(const struct lexer *lx)
{
	const char *h = lx->head, *close = strrchr(h, ')'), *open = strchr(h, '(');
	bool managed = lx->b->d == D_JS || lx->b->d == D_JAVA;

	if (!close || !open || lx->head_paren > 0)
		return false;
	if (strpbrk(close, ",=") || has_any_word(close, type_words))
		return false;
	/* An anonymous class, a record; in C "new" is just a name. */
	if (managed && (has_any_word(h, type_words) || has_word(h, "new") || has_word(h, "record")))
		return false;
	return !memchr(h, '=', (size_t)(open - h)) || has_word(h, "operator");
}

static bool head_ends_with(const struct lexer *lx, const char *tail)
{
	size_t len = lx->head_len, n = strlen(tail);

	while (len && lx->head[len - 1] == ' ')
		len--;
	return len >= n && !memcmp(lx->head + len - n, tail, n);
}

/*
 * Function syntax of its own: Go's func, Rust's fn, an arrow or "function"
 * in JavaScript, a Java lambda. These hold even after "return" or inside a
 * call ("return items.filter((x) => {").
 */
static bool head_is_closure(const struct lexer *lx)
{
	switch (lx->b->d) {
	case D_GO:
		return has_word(lx->head, "func");
	case D_RUST:
		return has_word(lx->head, "fn");
	case D_JS:
		return head_ends_with(lx, "=>") || has_word(lx->head, "function");
	case D_JAVA:
		return head_ends_with(lx, "->");
	default:
		return false;
	}
}

static enum head_kind head_kind(const struct lexer *lx)
{
	const struct text *t = lx->b->t;
	const char *h = lx->head, *w;
	size_t n = first_word(&w, h, h + lx->head_len);

	if (lx->head_long || !lx->head_len)
		return HEAD_OTHER;
	if (n == 3 && !memcmp(w, "try", 3))
		return HEAD_TRY;
	if ((n == 5 && !memcmp(w, "catch", 5)) || (n == 7 && !memcmp(w, "finally", 7)))
		return HEAD_CATCH;
	if (head_is_closure(lx))
		return HEAD_FUNC;
	/* Go's "if x := f(); ok(x) {": the head starts after the ';', the line with the if. */
	if (starts_with_control(h, h + lx->head_len) ||
	    starts_with_control(line_start(t, lx->head_line), line_end(t, lx->head_line)))
		return HEAD_OTHER;
	if (lx->b->d == D_GO || lx->b->d == D_RUST)
		return HEAD_OTHER;
	return head_is_signature(lx) ? HEAD_FUNC : HEAD_OTHER;
}

static int block_open(struct lexer *lx)
{
	struct braces *b = lx->b;
	struct block *k;

	if (b->count == b->alloc) {
		int alloc = b->alloc ? b->alloc * 2 : 64;
		struct block *blocks = alloc > 0 ? realloc(b->blocks, (size_t)alloc * sizeof(*blocks)) : NULL;

		if (!blocks)
			return error_nomem();
		b->blocks = blocks;
		b->alloc = alloc;
	}
	k = &b->blocks[b->count];
	k->head = lx->head_len ? lx->head_line : lx->line;
	k->open = lx->line;
	k->close = 0;
	k->kind = head_kind(lx);
	k->parent = lx->top;
	k->depth = lx->top >= 0 ? b->blocks[lx->top].depth + 1 : 0;
	k->next_clause = -1;
	if (k->kind == HEAD_CATCH && lx->head_after >= 0 &&
	    (b->blocks[lx->head_after].kind == HEAD_TRY || b->blocks[lx->head_after].kind == HEAD_CATCH))
		b->blocks[lx->head_after].next_clause = b->count;
	lx->top = b->count++;
	head_reset(lx, -1);
	return 0;
}

static void block_close(struct lexer *lx)
{
	int k = lx->top;

	if (k < 0) {
		head_reset(lx, -1);
		return;
	}
	lx->b->blocks[k].close = lx->line;
	lx->top = lx->b->blocks[k].parent;
	head_reset(lx, k);
}

static void mark_code(struct lexer *lx, size_t from, size_t to)
{
	int last = line_of(lx->b->t, to > from ? to - 1 : from), i;

	for (i = line_of(lx->b->t, from); i <= last; i++)
		lx->b->code[i] = true;
}

/* Past what was skipped from i to end: on end's line. */
static size_t lex_moved(struct lexer *lx, size_t i, size_t end)
{
	lx->line = line_of(lx->b->t, end > i ? end - 1 : i);
	return end;
}

/* A preprocessor line: code for import blocks, a wall for heads. */
static size_t lex_directive(struct lexer *lx, size_t i)
{
	size_t end = skip_directive(lx->b->t, i);

	mark_code(lx, i, end);
	head_reset(lx, -1);
	return lex_moved(lx, i, end);
}

/* A comment is a blank to the head; a literal is code, one '"' in the head. */
static size_t lex_literal(struct lexer *lx, size_t i, size_t end, bool comment)
{
	if (comment) {
		head_space(lx);
	} else {
		mark_code(lx, i, end);
		head_put(lx, '"');
		lx->cur.prev = '"';
		lx->cur.prev_at = i;
	}
	return lex_moved(lx, i, end);
}

/* One character of code (not blank, not in a comment or literal). */
static int lex_code(struct lexer *lx, char c, size_t i)
{
	lx->b->code[lx->line] = true;
	lx->cur.prev = c;
	lx->cur.prev_at = i;
	if (c == '{')
		return block_open(lx);
	if (c == '}')
		block_close(lx);
	else if (c == ';' && lx->head_paren <= 0)
		head_reset(lx, -1);
	else
		head_put(lx, c);
	return 0;
}

static int lex(struct lexer *lx)
{
	const struct text *t = lx->b->t;
	size_t i = 0, end;
	bool comment;
	int error = 0;

	while (i < t->len && !error) {
		char c = t->s[i];

		if (c == '\n' || is_blank(c)) {
			lx->line += c == '\n';
			lx->line_start |= c == '\n';
			head_space(lx);
			i++;
			continue;
		}
		if (lx->b->d == D_C && c == '#' && lx->line_start)
			i = lex_directive(lx, i);
		else if ((end = literal_end(t, lx->b->d, i, &lx->cur, 0, &comment)))
			i = lex_literal(lx, i, end, comment);
		else
			error = lex_code(lx, c, i++);
		lx->line_start = false;
	}
	return error;
}

static int braces_lex(struct braces *b)
{
	struct lexer *lx = calloc(1, sizeof(*lx));
	int error;

	if (!lx)
		return error_nomem();
	lx->b = b;
	lx->line = 1;
	lx->top = -1;
	lx->line_start = true;
	head_reset(lx, -1);
	error = lex(lx);
	/* Blocks left open run to the end of the file. */
	for (; lx->top >= 0; lx->top = b->blocks[lx->top].parent)
		b->blocks[lx->top].close = b->t->n;
	free(lx);
	return error;
}

static int braces_scan(struct braces *b, const struct text *t, enum dialect d)
{
	b->t = t;
	b->d = d;
	if (!(b->code = calloc((size_t)t->n + 2, sizeof(bool))))
		return error_nomem();
	return braces_lex(b);
}

static void braces_release(struct braces *b)
{
	free(b->blocks);
	free(b->code);
}

static bool contains(const struct block *k, int line)
{
	return k->head <= line && line <= k->close;
}

/*
 * The function block that holds line L: the innermost (a closure, an arrow
 * function, a method), but in C and C++ the outermost, where a macro that
 * takes a block ("list_for_each(p, head) {") would otherwise pass for one.
 */
static int brace_function_block(const struct braces *b, int line)
{
	int best = -1, k;

	for (k = 0; k < b->count; k++) {
		const struct block *bk = &b->blocks[k];

		if (bk->kind != HEAD_FUNC || !contains(bk, line))
			continue;
		if (best < 0 || (b->d == D_C ? bk->depth < b->blocks[best].depth
				 : bk->depth > b->blocks[best].depth))
			best = k;
	}
	return best;
}

static bool brace_function(const struct braces *b, int line, int *first, int *last)
{
	int k = brace_function_block(b, line);

	if (k < 0)
		return false;
	*first = b->blocks[k].head;
	*last = b->blocks[k].close;
	return true;
}

static bool brace_signature(const struct braces *b, int line, int *first, int *last)
{
	int k = brace_function_block(b, line);

	if (k < 0)
		return false;
	*first = b->blocks[k].head;
	*last = b->blocks[k].open;
	return true;
}

/* The try that holds line L, with its catch and finally blocks, inside L's function. */
static bool brace_try(const struct braces *b, int line, int *first, int *last)
{
	int f = brace_function_block(b, line), best = -1, k, c;

	for (k = 0; k < b->count; k++) {
		const struct block *bk = &b->blocks[k];

		if (bk->kind != HEAD_TRY)
			continue;
		for (c = k; b->blocks[c].next_clause >= 0; c = b->blocks[c].next_clause)
			;
		if (line < bk->head || line > b->blocks[c].close)
			continue;
		if (f >= 0 && (bk->head < b->blocks[f].head || b->blocks[c].close > b->blocks[f].close))
			continue;
		if (best < 0 || bk->depth > b->blocks[best].depth) {
			best = k;
			*first = bk->head;
			*last = b->blocks[c].close;
		}
	}
	return best >= 0;
}

enum import_line { IMP_OTHER, IMP_IMPORT, IMP_PREAMBLE, IMP_NEUTRAL, IMP_IF, IMP_ENDIF };

static enum import_line directive_line(const char *p, const char *e)
{
	p = skip_blanks(p + 1, e);
	if (word_is(p, e, "include") || word_is(p, e, "import"))
		return IMP_IMPORT;
	if (word_is(p, e, "if") || word_is(p, e, "ifdef") || word_is(p, e, "ifndef"))
		return IMP_IF;
	if (word_is(p, e, "endif"))
		return IMP_ENDIF;
	if (word_is(p, e, "else") || word_is(p, e, "elif") || word_is(p, e, "pragma") ||
	    word_is(p, e, "define") || word_is(p, e, "undef"))
		return IMP_NEUTRAL;
	return IMP_OTHER;
}

static bool has_text(const char *p, const char *e, const char *needle)
{
	size_t n = strlen(needle);

	for (; (size_t)(e - p) >= n; p++)
		if (!memcmp(p, needle, n))
			return true;
	return false;
}

/* What a line of a brace language is to an import block. */
static enum import_line import_line(const struct braces *b, int i)
{
	const char *p = skip_blanks(line_start(b->t, i), line_end(b->t, i)), *e = line_end(b->t, i);

	if (b->d == D_C && p < e && *p == '#')
		return directive_line(p, e);
	if (word_is(p, e, "extern"))
		return has_text(p, e, "crate") ? IMP_IMPORT : IMP_OTHER;
	if (word_is(p, e, "import") || word_is(p, e, "use") ||
	    (word_is(p, e, "pub") && has_text(p, e, " use ")) ||
	    (word_is(p, e, "export") && has_text(p, e, " from ")) ||
	    ((word_is(p, e, "const") || word_is(p, e, "let") || word_is(p, e, "var")) &&
	     has_text(p, e, "require(")))
		return IMP_IMPORT;
	if (word_is(p, e, "package") || (p < e && (*p == '"' || *p == '\'')))
		return IMP_PREAMBLE;
	if (b->d == D_RUST && (has_text(p, e, "#[") || has_text(p, e, "#![") ||
			       ((word_is(p, e, "mod") || word_is(p, e, "pub")) && e[-1] == ';')))
		return IMP_NEUTRAL;
	return IMP_OTHER;
}

/* The last line of a multi-line import ("import (", "use a::{", "import {"): where its brackets close. */
static int import_end(const struct braces *b, int i)
{
	int depth = 0, j;

	for (j = i; j <= b->t->n; j++) {
		const char *p = line_start(b->t, j), *e = line_end(b->t, j);
		char quote = 0;

		for (; p < e; p++) {
			if (quote) {
				quote = *p == quote ? 0 : quote;
			} else if (*p == '"' || *p == '\'' || *p == '`') {
				quote = *p;
			} else if (*p == '/' && p + 1 < e && p[1] == '/') {
				break;
			} else {
				depth += (*p == '(' || *p == '{') - (*p == ')' || *p == '}');
			}
		}
		if (depth <= 0)
			return j;
	}
	return b->t->n;
}

/*
 * The import block at the top: #include, import, use lines (and their
 * multi-line forms) from the first to the last, with comments, blank
 * lines and preprocessor conditionals between; a package line, include
 * guard or "use strict" may come before.
 */
static bool brace_top_imports(const struct braces *b, int *first, int *last)
{
	int i, depth = 0, pending = -1;

	*first = *last = 0;
	for (i = 1; i <= b->t->n; i++) {
		if (!b->code[i])
			continue;
		switch (import_line(b, i)) {
		case IMP_IMPORT:
			*first = *first ? *first : i;
			i = *last = import_end(b, i);
			pending = depth;
			break;
		case IMP_IF:
			depth++;
			break;
		case IMP_ENDIF:
			/* The #endif that closes an #if the last import is in belongs to the block. */
			if (--depth < pending && *first) {
				*last = i;
				pending = depth;
			}
			break;
		case IMP_PREAMBLE:
			if (*first)
				return true;
			break;
		case IMP_NEUTRAL:
			break;
		default:
			return *first != 0;
		}
	}
	return *first != 0;
}

static bool brace_imports_window(const struct braces *b, int line, int *first, int *last)
{
	int tf, tl, i;
	bool top = brace_top_imports(b, &tf, &tl);

	if (top && line >= tf && line <= tl) {
		*first = tf;
		*last = tl;
		return true;
	}
	if (import_line(b, line) != IMP_IMPORT)
		return false;
	*first = line;
	*last = import_end(b, line);
	for (i = line - 1; i >= 1 && import_line(b, i) == IMP_IMPORT; i--)
		*first = i;
	for (i = *last + 1; i <= b->t->n && import_line(b, i) == IMP_IMPORT; i = *last + 1)
		*last = import_end(b, i);
	if (top) {
		*first = min_int(*first, tf);
		*last = max_int(*last, tl);
	}
	return true;
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
	if (first < 1 || last < first)
		return 0;
	if (job->nparts == job->alloc) {
		size_t alloc = job->alloc ? job->alloc * 2 : 16;
		struct editwin_part *parts = realloc(job->parts, alloc * sizeof(*parts));

		if (!parts)
			return error_nomem();
		job->parts = parts;
		job->alloc = alloc;
	}
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
		if (!is_code(py->kind[j]))
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
	if (has_text(name + len, eq, "TypeAlias"))
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
		if (is_code(py->kind[j]) && py_defines(py, j, name, len)) {
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
