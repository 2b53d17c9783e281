/* The models' read-only tools over a side's index: the set, the executor, the arguments, the paths, the log. */
#include "repo_tools_state.h"
#include "array.h"
#include "clock.h"
#include "glob.h"
#include "index.h"
#include "repo_files.h"
#include "status.h"
#include "words.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <xxhash.h>

/* --- the set ---------------------------------------------------------------------------------- */

static const struct ask_tool tool_defs[] = {
	{ "read_file",
	  "Read lines of a file of the repository under review (as the reviewed side has it), each line "
	  "prefixed with its number. path is from the repository's root (src/main.c); start and end are line "
	  "numbers from 1, both included (default: from the first line). At most 400 lines a call: ask again "
	  "with a later start for more. The path of a directory lists its files and folders (\".\" the root; "
	  "start and end then count entries). Only files "
	  "git tracks are readable: not ignored, binary, generated or vendored files.",
	  "{\"type\": \"object\", \"properties\": {"
	  "\"path\": {\"type\": \"string\", \"description\": \"A file's path from the repository's root, "
	  "e.g. src/main.c\"}, "
	  "\"start\": {\"type\": [\"integer\", \"null\"], \"minimum\": 1, \"description\": \"The first line "
	  "to read, from 1 (default 1)\"}, "
	  "\"end\": {\"type\": [\"integer\", \"null\"], \"minimum\": 1, \"description\": \"The last line to "
	  "read, included (default: 400 lines on)\"}}, "
	  "\"required\": [\"path\"], \"additionalProperties\": false}" },
	{ "search",
	  "Search the repository's files for a regular expression (PCRE2, matched line by line; (?i) makes "
	  "it case-insensitive), in the files path_glob selects if given (gitignore-style: *.py at any depth, "
	  "src/**/*.c, tests/). Gives path:line: text for each matching line, at most 50: narrow it with "
	  "path_glob or a more precise pattern when there are more. For an identifier as a whole word write "
	  "\\bname\\b: only the files that hold the word are read, which is much faster.",
	  "{\"type\": \"object\", \"properties\": {"
	  "\"pattern\": {\"type\": \"string\", \"description\": \"A PCRE2 regular expression, e.g. "
	  "\\\\bparse_config\\\\b or TODO|FIXME\"}, "
	  "\"path_glob\": {\"type\": [\"string\", \"null\"], \"description\": \"Only files matching this "
	  "gitignore-style pattern, e.g. *.go or src/net/**\"}}, "
	  "\"required\": [\"pattern\"], \"additionalProperties\": false}" },
	{ "references",
	  "Where a symbol is defined (file, lines, kind and signature, from universal-ctags) and where it is "
	  "used: each line of the repository's files where it appears as a whole word (calls, comments and "
	  "strings too, in every language), at most 50. symbol is one identifier: a function, type, "
	  "variable or macro name, without its class or module (parse, not Config.parse).",
	  "{\"type\": \"object\", \"properties\": {"
	  "\"symbol\": {\"type\": \"string\", \"description\": \"One identifier, e.g. parse_config\"}}, "
	  "\"required\": [\"symbol\"], \"additionalProperties\": false}" },
};

#define NTOOLS (sizeof(tool_defs) / sizeof(tool_defs[0]))

const struct ask_tool *repo_tools_defs(size_t *count)
{
	*count = NTOOLS;
	return tool_defs;
}

static size_t bound(size_t value, size_t fallback, size_t max)
{
	return value == 0 ? fallback : value > max ? max : value;
}

int repo_tools_new(struct repo_tools **out, const struct repo_tools_options *opts)
{
	struct repo_tools *rt;
	struct buf state = BUF_INIT;
	int error;

	*out = NULL;
	if (!opts->index || !index_done(opts->index))
		return error_set(RL_EUSAGE, "the repository's tools need a done index");
	if (!opts->state && (error = repo_tools_identity(&state, opts->index)) < 0)
		return error;
	if (!(rt = calloc(1, sizeof(*rt))) || !(rt->state = opts->state ? strdup(opts->state) : buf_detach(&state))) {
		free(rt);
		buf_release(&state);
		return error_nomem();
	}
	rt->opts = *opts;
	rt->opts.state = rt->state;
	rt->opts.call_ms = (int)bound(opts->call_ms > 0 ? (size_t)opts->call_ms : 0, REPO_TOOLS_CALL_MS,
				      REPO_TOOLS_CALL_MS_MAX);
	rt->opts.lines = bound(opts->lines, REPO_TOOLS_LINES, REPO_TOOLS_LINES_MAX);
	rt->opts.hits = bound(opts->hits, REPO_TOOLS_HITS, REPO_TOOLS_HITS_MAX);
	rt->opts.refs = bound(opts->refs, REPO_TOOLS_REFS, REPO_TOOLS_REFS_MAX);
	rt->opts.read_max = opts->read_max ? opts->read_max : REPO_TOOLS_READ;
	*out = rt;
	return 0;
}

static void use_release(struct repo_tool_use *u)
{
	free(u->subject);
	free(u->glob);
	free(u->message);
	free(u->spans);
}

void repo_tools_free(struct repo_tools *rt)
{
	size_t i;

	if (!rt)
		return;
	for (i = 0; i < rt->nlog; i++)
		use_release(&rt->log[i]);
	free(rt->log);
	free(rt->state);
	free(rt);
}

void repo_tools_ask(struct ask_tools *out, struct repo_tools *rt)
{
	memset(out, 0, sizeof(*out));
	out->tools = tool_defs;
	out->ntools = NTOOLS;
	out->run = repo_tools_run;
	out->ctx = rt;
	out->state = rt->state;
}

const struct repo_tool_use *repo_tools_log(const struct repo_tools *rt, size_t *count)
{
	*count = rt->nlog;
	return rt->log;
}

uint64_t repo_tools_read(const struct repo_tools *rt)
{
	return rt->read;
}

int repo_tools_identity(struct buf *out, const struct index *index)
{
	XXH3_state_t *h = XXH3_createState();
	const struct index_file *files;
	XXH128_hash_t sum;
	char bounds[160];
	size_t i, n;
	int error;

	if (!h)
		return error_nomem();
	XXH3_128bits_reset(h);
	files = index_files(index, &n);
	for (i = 0; i < n; i++) {
		char state = (char)('0' + files[i].state);

		XXH3_128bits_update(h, files[i].path, strlen(files[i].path) + 1);
		XXH3_128bits_update(h, files[i].blob, strlen(files[i].blob) + 1);
		XXH3_128bits_update(h, &state, 1);
	}
	snprintf(bounds, sizeof(bounds), "repo_tools 1: lines %d, hits %d, refs %d, entries %d, match %d, depth %d, "
		 "heap %d", REPO_TOOLS_LINES, REPO_TOOLS_HITS, REPO_TOOLS_REFS, REPO_TOOLS_ENTRIES,
		 REPO_TOOLS_MATCH_LIMIT, REPO_TOOLS_DEPTH_LIMIT, REPO_TOOLS_HEAP_LIMIT);
	XXH3_128bits_update(h, bounds, strlen(bounds));
	sum = XXH3_128bits_digest(h);
	XXH3_freeState(h);
	error = buf_printf(out, "files %zu, %016llx%016llx", n, (unsigned long long)sum.high64,
			   (unsigned long long)sum.low64);
	return error;
}

/* --- the paths ----------------------------------------------------------------------------- */

int repo_tool_path_clean(struct buf *out, const char *path, size_t len)
{
	/* The path as messages show it: its first 200 bytes (it need not end in a NUL). */
	int shown = len > 200 ? 200 : (int)len;
	size_t i = 0;

	buf_clear(out);
	if (len > REPO_TOOLS_PATH_MAX)
		return error_set(RL_EUSAGE, "the path is %zu bytes long: at most %d", len, REPO_TOOLS_PATH_MAX);
	if (len && path[0] == '/')
		return error_set(RL_EUSAGE, "'%.*s' is an absolute path: give the path from the repository's "
				 "root, e.g. src/main.c", shown, path);
	for (i = 0; i < len; i++)
		if ((unsigned char)path[i] < 0x20 || path[i] == 0x7f)
			return error_set(RL_EUSAGE, "the path has a control character (byte %zu): no file of the "
					 "repository is read by such a path", i + 1);
	for (i = 0; i < len;) {
		const char *c = path + i, *slash = memchr(c, '/', len - i);
		size_t n = slash ? (size_t)(slash - c) : len - i;

		i += n + (slash != NULL);
		if (!n || (n == 1 && c[0] == '.'))
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.')
			return error_set(RL_EUSAGE, "'%.*s' has a '..' component: give the path from the "
					 "repository's root, without '..'", shown, path);
		if (n == 4 && !strncasecmp(c, ".git", 4))
			return error_set(RL_EUSAGE, "'%.*s' is under .git: git's own files are never read", shown,
					 path);
		if ((out->len && buf_putc(out, '/') < 0) || buf_put(out, c, n) < 0)
			return error_nomem();
	}
	if (!out->ptr && buf_puts(out, "") < 0)
		return error_nomem();
	return 0;
}

/* --- the arguments --------------------------------------------------------------------------- */

static const char *const tool_args[][3] = {
	[REPO_TOOL_READ_FILE] = { "path", "start", "end" },
	[REPO_TOOL_SEARCH] = { "pattern", "path_glob", NULL },
	[REPO_TOOL_REFERENCES] = { "symbol", NULL, NULL },
};

static const char *const takes[] = {
	[REPO_TOOL_READ_FILE] = "path, and start and end (line numbers)",
	[REPO_TOOL_SEARCH] = "pattern, and path_glob",
	[REPO_TOOL_REFERENCES] = "symbol",
};

static const char *json_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number with a fraction";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* Every key one the tool takes. */
static int args_known(enum repo_tool tool, const json_t *args)
{
	const char *key;
	json_t *v;
	size_t i;

	json_object_foreach((json_t *)args, key, v) {
		bool known = false;

		for (i = 0; i < 3 && !known; i++)
			known = tool_args[tool][i] && !strcmp(tool_args[tool][i], key);
		if (!known)
			return error_set(RL_EUSAGE, "unknown argument '%.80s': %s takes %s", key, tool_defs[tool].name,
					 takes[tool]);
	}
	return 0;
}

/* A string argument: *out NULL when absent or null and not required. */
static int arg_string(const char **out, const json_t *args, const char *key, bool required, size_t max)
{
	const json_t *v = json_object_get(args, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return required ? error_set(RL_EUSAGE, "%s is required (a string)", key) : 0;
	if (!json_is_string(v))
		return error_set(RL_EUSAGE, "%s must be a string, not %s", key, json_kind(v));
	if (json_string_length(v) != strlen(json_string_value(v)))
		return error_set(RL_EUSAGE, "%s has a NUL character", key);
	if (json_string_length(v) > max)
		return error_set(RL_EUSAGE, "%s is %zu bytes long: at most %zu", key, json_string_length(v), max);
	*out = json_string_value(v);
	return 0;
}

/* A line number: 0 when absent or null. */
static int arg_line(int64_t *out, const json_t *args, const char *key)
{
	const json_t *v = json_object_get(args, key);
	double d;

	*out = 0;
	if (!v || json_is_null(v))
		return 0;
	if (json_is_real(v) && (d = json_real_value(v)) >= 1 && d <= 1e15 && d == (double)(int64_t)d) {
		*out = (int64_t)d;
		return 0;
	}
	if (!json_is_integer(v))
		return error_set(RL_EUSAGE, "%s must be an integer (a line number from 1), not %s", key, json_kind(v));
	if (json_integer_value(v) < 1)
		return error_set(RL_EUSAGE, "%s is %lld: lines are numbered from 1", key,
				 (long long)json_integer_value(v));
	*out = json_integer_value(v);
	return 0;
}

/* Whether s is one word of words.h, as references finds it. */
static bool one_word(const char *s)
{
	const char *p = s, *e = s + strlen(s), *w;
	size_t n = words_next(&p, e, &w);

	return n && w == s && n == (size_t)(e - s);
}

static int args_search(struct repo_tool_args *out, const json_t *args)
{
	int error;

	if ((error = arg_string(&out->pattern, args, "pattern", true, REPO_TOOLS_PATTERN_MAX)) < 0 ||
	    (error = arg_string(&out->glob, args, "path_glob", false, REPO_TOOLS_PATH_MAX)) < 0)
		return error;
	if (!*out->pattern)
		return error_set(RL_EUSAGE, "pattern is empty: give a regular expression");
	if (out->glob && !*out->glob)
		out->glob = NULL;
	if (out->glob && glob_check(out->glob) < 0)
		return error_set(RL_EUSAGE, "path_glob '%.200s' is malformed: %s", out->glob, error_message());
	return 0;
}

static int args_references(struct repo_tool_args *out, const json_t *args)
{
	int error;

	if ((error = arg_string(&out->symbol, args, "symbol", true, REPO_TOOLS_PATTERN_MAX)) < 0)
		return error;
	if (!one_word(out->symbol))
		return error_set(RL_EUSAGE, "'%.200s' is not one identifier: give a single name (letters, digits, "
				 "'_'; at most %d bytes), without its class, module or arguments", out->symbol,
				 WORDS_MAX);
	return 0;
}

int repo_tool_args_read(struct repo_tool_args *out, const char *name, const json_t *args)
{
	size_t t;
	int error;

	memset(out, 0, sizeof(*out));
	for (t = 0; t < NTOOLS && (!name || strcmp(tool_defs[t].name, name)); t++)
		;
	if (t == NTOOLS)
		return error_set(RL_ENOTFOUND, "no tool named '%.80s'", name ? name : "");
	out->tool = (enum repo_tool)t;
	if (!json_is_object(args))
		return error_set(RL_EUSAGE, "the arguments must be a JSON object");
	if ((error = args_known(out->tool, args)) < 0)
		return error;
	if (out->tool == REPO_TOOL_SEARCH)
		return args_search(out, args);
	if (out->tool == REPO_TOOL_REFERENCES)
		return args_references(out, args);
	if ((error = arg_string(&out->path, args, "path", true, (size_t)-1)) < 0 ||
	    (error = arg_line(&out->start, args, "start")) < 0 || (error = arg_line(&out->end, args, "end")) < 0)
		return error;
	if (!*out->path)
		return error_set(RL_EUSAGE, "path is empty: give a file's path from the repository's root, or "
				 "\".\" for its files");
	if (out->end && out->end < (out->start ? out->start : 1))
		return error_set(RL_EUSAGE, "end (%lld) is before start (%lld)", (long long)out->end,
				 (long long)(out->start ? out->start : 1));
	return 0;
}

/* --- a call ---------------------------------------------------------------------------------- */

int call_fail(struct call *c, const char *fmt, ...)
{
	va_list ap;
	int error;

	buf_clear(&c->out->text);
	c->out->error = true;
	va_start(ap, fmt);
	error = buf_vprintf(&c->out->text, fmt, ap);
	va_end(ap);
	c->use->error = true;
	c->use->complete = false;
	/* The model sees the error alone. */
	c->use->nspans = 0;
	c->use->start = c->use->end = 0;
	free(c->use->message);
	if (error < 0 || !(c->use->message = strdup(c->out->text.ptr)))
		return error_nomem();
	return 0;
}

bool call_fits(const struct call *c, size_t n)
{
	return c->out->text.len + n + NOTE_ROOM <= c->max;
}

int call_span(struct call *c, const char *path, uint32_t start, uint32_t end)
{
	struct repo_tool_use *u = c->use;

	if (ARRAY_GROW(u->spans, c->spans_alloc, u->nspans + 1) < 0)
		return error_nomem();
	u->spans[u->nspans].path = path;
	u->spans[u->nspans].start = start;
	u->spans[u->nspans++].end = end;
	return 0;
}

bool call_late(const struct call *c)
{
	int64_t now = clock_ms();

	return now >= c->until || (c->rt->opts.deadline_ms && now >= c->rt->opts.deadline_ms);
}

uint64_t call_read_left(const struct call *c)
{
	return c->rt->read < c->rt->opts.read_max ? c->rt->opts.read_max - c->rt->read : 0;
}

int call_read(struct buf *out, struct call *c, const struct index_file *file)
{
	int error;

	buf_clear(out);
	if ((error = index_file_read(out, c->index, file)) < 0)
		return error;
	c->rt->read += out->len;
	c->use->files_read++;
	c->use->bytes_read += out->len;
	/* Changed into a binary since the index read it (the working tree), or never sorted out (cut short). */
	if (repo_blob_binary(out->ptr, out->len))
		return error_set(RL_EPARSE, "%s: binary", file->path);
	return 0;
}

const char *call_read_max(struct call *c)
{
	uint64_t max = c->rt->opts.read_max;

	if (max >= (1u << 20) && !(max & ((1u << 20) - 1)))
		snprintf(c->read_max, sizeof(c->read_max), "%llu MiB", (unsigned long long)(max >> 20));
	else
		snprintf(c->read_max, sizeof(c->read_max), "%llu bytes", (unsigned long long)max);
	return c->read_max;
}

size_t text_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	return max;
}

int text_line(struct buf *out, const char *s, size_t len, size_t max)
{
	size_t i, n = text_cut(s, len, max), at = out->len;

	if (buf_put(out, s, n) < 0)
		return error_nomem();
	for (i = at; i < out->len; i++)
		if ((unsigned char)out->ptr[i] < 0x20 && out->ptr[i] != '\t')
			out->ptr[i] = ' ';
	return 0;
}

/* The log's entry for a call, its subject given. */
static int use_add(struct repo_tools *rt, struct repo_tool_use **out, const struct repo_tool_args *a)
{
	struct repo_tool_use *u;
	const char *subject = a->tool == REPO_TOOL_READ_FILE ? a->path :
		a->tool == REPO_TOOL_SEARCH ? a->pattern : a->symbol;

	if (ARRAY_GROW(rt->log, rt->alloc, rt->nlog + 1) < 0)
		return error_nomem();
	u = &rt->log[rt->nlog];
	memset(u, 0, sizeof(*u));
	u->tool = a->tool;
	u->complete = true;
	if (!(u->subject = strdup(subject ? subject : "")) || (a->glob && !(u->glob = strdup(a->glob)))) {
		use_release(u);
		return error_nomem();
	}
	rt->nlog++;
	*out = u;
	return 0;
}

int repo_tools_run(struct tool_output *out, void *ctx, const char *name, const json_t *args, size_t max)
{
	struct repo_tools *rt = ctx;
	struct repo_tool_args a;
	struct call c = { .rt = rt, .index = rt->opts.index, .out = out, .max = max,
			  .until = clock_ms() + rt->opts.call_ms };
	char why[512];
	int error = repo_tool_args_read(&a, name, args);
	int64_t start = clock_ms();

	if (error == RL_ENOTFOUND)
		return error_set(RL_EUSAGE, "the repository's tools have none named '%.80s'", name ? name : "");
	snprintf(why, sizeof(why), "%s", error < 0 ? error_message() : "");
	error_clear();
	if (use_add(rt, &c.use, &a) < 0)
		return error_nomem();
	if (*why)
		error = call_fail(&c, "%s", why);
	else if (rt->opts.deadline_ms && start >= rt->opts.deadline_ms)
		error = call_fail(&c, "not run: the review's time is up; answer from what you have");
	else if (a.tool == REPO_TOOL_READ_FILE)
		error = tool_read_file(&c, &a);
	else if (a.tool == REPO_TOOL_SEARCH)
		error = tool_search(&c, &a);
	else
		error = tool_references(&c, &a);
	c.use->ms = clock_ms() - start;
	return error;
}
