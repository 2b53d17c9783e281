/*
 * Edit windows: the table of linter codes (share/signals/edit-windows.tsv,
 * the signal-context seed) read and checked, and a signal's row looked up.
 */
#include "editwin.h"
#include "array.h"
#include "editwin_text.h"
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
	if ((error = ARRAY_GROW(table->rows, table->alloc, table->count + 1)) < 0)
		goto done;
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

