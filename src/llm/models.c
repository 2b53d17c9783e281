/* The model table: what each model takes (temperature, which token cap, ...) and costs. */
#include "models.h"
#include "array.h"
#include "buf.h"
#include "datadir.h"
#include "glob.h"
#include "status.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum column {
	COL_PATTERN, COL_PROVIDER, COL_TEMPERATURE, COL_MAX, COL_STRUCTURED, COL_EFFORT,
	COL_CONTEXT, COL_CACHE, COL_PRICE_IN, COL_PRICE_CACHED, COL_PRICE_OUT, COL_TOOLS, NCOLS
};

/* The columns a row must have: the last (tools) may be left out, as rows written before it do. */
#define NCOLS_NEEDED COL_TOOLS

/* The longest pattern, and the longest model name matched (longer names match no row). */
#define PATTERN_MAX 200
#define NAME_MAX_LEN 512
/* A value shown in a message is cut here. */
#define SHOWN_MAX 40

const struct model_info models_default = {
	.pattern = "*", .provider = "any", .temperature = true, .max_param = MODEL_MAX_TOKENS,
	.structured = MODEL_STRUCTURED_JSON_OBJECT, .reasoning_effort = false,
	.price_input = -1, .price_cached = -1, .price_output = -1, .path = "built-in",
};

static const char *const efforts[] = { "minimal", "low", "medium", "high" };

bool models_effort_known(const char *value)
{
	size_t i;

	for (i = 0; value && i < sizeof(efforts) / sizeof(efforts[0]); i++)
		if (!strcmp(value, efforts[i]))
			return true;
	return false;
}

struct field {
	const char *p, *e;
};

struct reader {
	struct models *m;
	const char *path;
	int line;
};

static int problem(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Record a problem with the current row; 0, or RL_ENOMEM. */
static int problem(struct reader *rd, const char *fmt, ...)
{
	struct models *m = rd->m;
	struct buf msg = BUF_INIT;
	va_list ap;
	int error;

	if (m->nproblems >= MODELS_PROBLEMS_MAX) {
		m->dropped++;
		return 0;
	}
	if ((error = ARRAY_GROW(m->problems, m->problems_alloc, m->nproblems + 1)) < 0)
		return error;
	if ((error = buf_printf(&msg, "%s:%d: ", rd->path, rd->line)) == 0) {
		va_start(ap, fmt);
		error = buf_vprintf(&msg, fmt, ap);
		va_end(ap);
	}
	if (error < 0) {
		buf_release(&msg);
		return error;
	}
	m->problems[m->nproblems++] = buf_detach(&msg);
	return 0;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int shown(const struct field *f)
{
	return (int)(f->e - f->p < SHOWN_MAX ? f->e - f->p : SHOWN_MAX);
}

static bool field_is(const struct field *f, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(f->e - f->p) == n && !memcmp(f->p, word, n);
}

/* Columns are separated by runs of tabs or spaces; the number of them is checked (*n: how many). */
static int split_row(struct field cols[NCOLS], int *count, struct reader *rd, const char *p, const char *e)
{
	int n = 0;

	for (;;) {
		while (p < e && is_blank(*p))
			p++;
		if (p == e)
			break;
		if (n == NCOLS)
			return problem(rd, "more than %d columns: the row is left out", NCOLS) < 0 ?
				RL_ENOMEM : RL_EPARSE;
		cols[n].p = p;
		while (p < e && !is_blank(*p))
			p++;
		cols[n++].e = p;
	}
	*count = n;
	if (n < NCOLS_NEEDED)
		return problem(rd, "%d column%s where %d are needed (pattern, provider, temperature, "
			       "max-tokens, structured, effort, context, cache-min, input, cached, "
			       "output; '-' for a value not known; then tools, yes or no, which may be "
			       "left out): the row is left out",
			       n, n == 1 ? "" : "s", NCOLS_NEEDED) < 0 ? RL_ENOMEM : RL_EPARSE;
	return 0;
}

/* One of words (the index in *out), or a problem naming the column. */
static int parse_word(int *out, struct reader *rd, const struct field *f, const char *column,
		      const char *const *words, size_t nwords)
{
	struct buf list = BUF_INIT;
	size_t i;
	int error = 0;

	for (i = 0; i < nwords; i++)
		if (field_is(f, words[i])) {
			*out = (int)i;
			return 0;
		}
	for (i = 0; i < nwords && !error; i++)
		error = buf_printf(&list, "%s%s", i == 0 ? "" : i + 1 == nwords ? " or " : ", ", words[i]);
	if (!error)
		error = problem(rd, "%s is '%.*s': use %s: the row is left out", column, shown(f), f->p,
				list.ptr);
	buf_release(&list);
	return error < 0 ? RL_ENOMEM : RL_EPARSE;
}

/* A count of tokens, or '-' (0: not known). */
static int parse_tokens(long *out, struct reader *rd, const struct field *f, const char *column)
{
	const char *p;
	long n = 0;

	*out = 0;
	if (field_is(f, "-"))
		return 0;
	for (p = f->p; p < f->e && isdigit((unsigned char)*p) && n <= 100000000; p++)
		n = n * 10 + (*p - '0');
	if (p == f->p || p < f->e || n <= 0 || n > 100000000)
		return problem(rd, "%s is '%.*s': give a number of tokens from 1 to 100000000, "
			       "or '-': the row is left out", column, shown(f), f->p) < 0 ?
			RL_ENOMEM : RL_EPARSE;
	*out = n;
	return 0;
}

/*
 * USD per million tokens ("0.25", "10"), or '-' (negative: not known).
 * Read by hand: strtod follows the locale's decimal point.
 */
static int parse_price(double *out, struct reader *rd, const struct field *f, const char *column)
{
	const char *p = f->p;
	double value = 0, scale = 1;
	int digits = 0, decimals = 0;

	*out = -1;
	if (field_is(f, "-"))
		return 0;
	for (; p < f->e && isdigit((unsigned char)*p) && digits < 7; p++, digits++)
		value = value * 10 + (*p - '0');
	if (p < f->e && *p == '.')
		for (p++; p < f->e && isdigit((unsigned char)*p) && decimals < 6; p++, decimals++)
			value += (*p - '0') * (scale /= 10);
	if (!digits || p < f->e)
		return problem(rd, "%s is '%.*s': give USD per million tokens (0.25, up to 7 digits "
			       "and 6 decimals), or '-': the row is left out", column, shown(f), f->p) < 0 ?
			RL_ENOMEM : RL_EPARSE;
	*out = value;
	return 0;
}

static int parse_pattern(struct model_info *row, struct reader *rd, const struct field *f)
{
	size_t len = (size_t)(f->e - f->p);

	if (len > PATTERN_MAX)
		return problem(rd, "the pattern is longer than %d characters: the row is left out",
			       PATTERN_MAX) < 0 ? RL_ENOMEM : RL_EPARSE;
	if (!(row->pattern = strndup(f->p, len)))
		return error_nomem();
	if (glob_check(row->pattern) < 0)
		return problem(rd, "pattern '%.*s': %s: the row is left out", shown(f), f->p,
			       error_message()) < 0 ? RL_ENOMEM : RL_EPARSE;
	/* Compiled once: every request looks its model up, row after row. */
	return glob_new(&row->glob, row->pattern);
}

static int parse_row(struct model_info *row, struct reader *rd, const char *p, const char *e)
{
	static const char *const providers[] = { "openai", "anthropic", "any" };
	static const char *const yes_no[] = { "no", "yes" };
	static const char *const max_params[] = { "max_tokens", "max_completion_tokens" };
	static const char *const structured[] = { "none", "json_object", "json_schema" };
	struct field cols[NCOLS];
	int provider, temperature, max_param, form, effort, tools = 0, ncols = 0, error;

	memset(row, 0, sizeof(*row));
	row->path = rd->path;
	row->line = rd->line;
	if ((error = split_row(cols, &ncols, rd, p, e)) < 0 ||
	    (error = parse_pattern(row, rd, &cols[COL_PATTERN])) < 0 ||
	    (error = parse_word(&provider, rd, &cols[COL_PROVIDER], "provider", providers, 3)) < 0 ||
	    (error = parse_word(&temperature, rd, &cols[COL_TEMPERATURE], "temperature", yes_no, 2)) < 0 ||
	    (error = parse_word(&max_param, rd, &cols[COL_MAX], "max-tokens", max_params, 2)) < 0 ||
	    (error = parse_word(&form, rd, &cols[COL_STRUCTURED], "structured", structured, 3)) < 0 ||
	    (error = parse_word(&effort, rd, &cols[COL_EFFORT], "effort", yes_no, 2)) < 0 ||
	    (error = parse_tokens(&row->context_window, rd, &cols[COL_CONTEXT], "context")) < 0 ||
	    (error = parse_tokens(&row->cache_min, rd, &cols[COL_CACHE], "cache-min")) < 0 ||
	    (error = parse_price(&row->price_input, rd, &cols[COL_PRICE_IN], "input")) < 0 ||
	    (error = parse_price(&row->price_cached, rd, &cols[COL_PRICE_CACHED], "cached")) < 0 ||
	    (error = parse_price(&row->price_output, rd, &cols[COL_PRICE_OUT], "output")) < 0 ||
	    (ncols > COL_TOOLS && (error = parse_word(&tools, rd, &cols[COL_TOOLS], "tools", yes_no, 2)) < 0))
		return error;
	if (!(row->provider = strdup(providers[provider])))
		return error_nomem();
	row->temperature = temperature;
	row->max_param = (enum model_max_param)max_param;
	row->structured = (enum model_structured)form;
	row->reasoning_effort = effort;
	row->tools = tools;
	return 0;
}

static void row_release(struct model_info *row)
{
	free(row->pattern);
	glob_free(row->glob);
	free(row->provider);
}

static int row_add(struct reader *rd, const char *p, const char *e)
{
	struct models *m = rd->m;
	struct model_info row;
	int error;

	if ((error = parse_row(&row, rd, p, e)) < 0)
		goto done;
	if ((error = ARRAY_GROW(m->rows, m->alloc, m->count + 1)) < 0)
		goto done;
	m->rows[m->count++] = row;
	return 0;
done:
	row_release(&row);
	/* A bad row is a problem already recorded; only memory stops the table. */
	return error == RL_ENOMEM ? error : 0;
}

static bool is_comment_or_blank(const char *p, const char *e)
{
	while (p < e && is_blank(*p))
		p++;
	return p == e || *p == '#';
}

/* A copy of a table's path that lives as long as the set, for its rows. */
static const char *path_keep(struct models *m, const char *path)
{
	if (ARRAY_GROW(m->paths, m->paths_alloc, m->npaths + 1) < 0)
		return NULL;
	if (!(m->paths[m->npaths] = strdup(path)))
		return NULL;
	return m->paths[m->npaths++];
}

int models_parse(struct models *m, const char *text, size_t len, const char *path)
{
	struct reader rd = { m, NULL, 0 };
	size_t at = 0, rows = 0;
	int error = 0;

	if (!(rd.path = path_keep(m, path ? path : "models.tsv")))
		return error_nomem();
	while (at < len && !error) {
		const char *p = text + at, *nl = memchr(p, '\n', len - at), *e = nl ? nl : text + len;

		at = (size_t)(e - text) + 1;
		rd.line++;
		if (e > p && e[-1] == '\r')
			e--;
		if (is_comment_or_blank(p, e))
			continue;
		if (memchr(p, '\0', (size_t)(e - p))) {
			error = problem(&rd, "a NUL byte: the row is left out");
			continue;
		}
		if (++rows > MODELS_ROWS_MAX)
			return problem(&rd, "more than %d rows: this one and the rest are left out",
				       MODELS_ROWS_MAX);
		error = row_add(&rd, p, e);
	}
	return error;
}

/* One table file into m; a file that is not there is not a problem. */
static int load_file(struct models *m, const char *path)
{
	struct reader rd = { m, path, 0 };
	struct buf text = BUF_INIT;
	int error = buf_read_regular(&text, path, NULL, MODELS_FILE_MAX);

	if (error == RL_ENOTFOUND)
		error = 0;
	else if (error == RL_EPARSE)
		error = problem(&rd, "larger than %d KB: the table is not read", MODELS_FILE_MAX / 1024);
	else if (error < 0 && error != RL_ENOMEM)
		error = problem(&rd, "%s: the table is not read", error_message());
	else if (error == 0)
		error = models_parse(m, text.ptr ? text.ptr : "", text.len, path);
	buf_release(&text);
	return error;
}

int models_load(struct models **out)
{
	struct models *m = calloc(1, sizeof(*m));
	struct buf path = BUF_INIT;
	int error = 0;

	*out = NULL;
	if (!m)
		return error_nomem();
	/* The user's rows come first, so that they win. */
	if (datadir_user(&path, "models.tsv") == 0)
		error = load_file(m, path.ptr);
	/* revline's own table sits at the top of its data directory (share/revline/models.tsv). */
	if (!error && datadir_find(&path, ".") == 0 && (error = buf_puts(&path, "/models.tsv")) == 0)
		error = load_file(m, path.ptr);
	buf_release(&path);
	if (error < 0) {
		models_free(m);
		return error;
	}
	error_clear();
	*out = m;
	return 0;
}

void models_free(struct models *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->count; i++)
		row_release(&m->rows[i]);
	for (i = 0; i < m->nproblems; i++)
		free(m->problems[i]);
	for (i = 0; i < m->npaths; i++)
		free(m->paths[i]);
	free(m->paths);
	free(m->rows);
	free(m->problems);
	free(m);
}

int models_lookup(const struct model_info **out, const struct models *m, const char *provider,
		  const char *model)
{
	char name[NAME_MAX_LEN + 1];
	size_t i, len = model ? strlen(model) : 0;

	*out = &models_default;
	if (!m || !model || !len || len > NAME_MAX_LEN)
		return 0;
	/* Names differ in case between servers ("Qwen/Qwen2.5-Coder" on vLLM); patterns are lower case. */
	for (i = 0; i <= len; i++)
		name[i] = (char)tolower((unsigned char)model[i]);
	for (i = 0; i < m->count; i++) {
		const struct model_info *row = &m->rows[i];

		if ((strcmp(row->provider, "any") && (!provider || strcmp(row->provider, provider))))
			continue;
		if (glob_matches(row->glob, name)) {
			*out = row;
			return 0;
		}
	}
	return 0;
}

/*
 * Anthropic bills a write to its prompt cache at 1.25 times the input
 * price (the 5-minute cache, which a cache_control breakpoint asks for by
 * default; the 1-hour cache costs twice the input price). OpenAI's
 * automatic cache writes nothing billed apart.
 */
#define CACHE_WRITE_FACTOR 1.25

/* The price of count tokens at per_million USD; 0 for none, negative when needed and not known. */
static double priced(long count, double per_million)
{
	if (count <= 0)
		return 0;
	return per_million < 0 ? -1 : (double)count * per_million / 1e6;
}

double models_cost(const struct model_info *info, long tokens_in, long tokens_cached,
		   long tokens_cache_write, long tokens_out)
{
	long uncached = tokens_in - tokens_cached - tokens_cache_write;
	double parts[4], sum = 0;
	size_t i;

	/* A server that counts the cache apart from the input (or badly) leaves no uncached part. */
	if (uncached < 0)
		uncached = 0;
	parts[0] = priced(uncached, info->price_input);
	parts[1] = priced(tokens_cached, info->price_cached);
	parts[2] = priced(tokens_cache_write, info->price_input < 0 ? -1 :
			  info->price_input * CACHE_WRITE_FACTOR);
	parts[3] = priced(tokens_out, info->price_output);
	for (i = 0; i < 4; i++) {
		if (parts[i] < 0)
			return -1;
		sum += parts[i];
	}
	return sum;
}
