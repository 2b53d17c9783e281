/*
 * Linter output read into signals. Each format has one reader. The text
 * readers share the location prefix ("path:line:col:") and the way notes
 * join the diagnostic they belong to; the JSON readers share typed field
 * access that turns a bad field into a problem naming its path, so that one
 * odd item never costs the others.
 */
#include "signals.h"
#include "signals_read.h"
#include "buf.h"
#include "status.h"

#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Detection looks at this many lines of text; the shape shows long before. */
#define DETECT_LINES 500

static int format_list_error(const char *why)
{
	struct buf names = BUF_INIT;
	size_t i;
	int error;

	for (i = 0; i < SIGNAL_FORMAT_COUNT; i++)
		buf_printf(&names, "%s%s", i ? ", " : "", signal_format_name((enum signal_format)i));
	error = error_set(RL_EPARSE, "cannot tell the format of the linter output: %s (known formats: %s)",
			  why, names.ptr ? names.ptr : "");
	buf_release(&names);
	return error;
}

/* ------------------------------------------------------------ detection */

static bool is_blank(const char *text, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!isspace((unsigned char)text[i]))
			return false;
	return true;
}

static bool mypy_json_shaped(json_t *obj)
{
	return json_is_object(obj) && json_has(obj, "file") && json_has(obj, "line") && json_has(obj, "message");
}

static int detect_json(enum signal_format *out, json_t *root)
{
	json_t *v;
	size_t i;

	if (json_is_array(root)) {
		json_array_foreach(root, i, v) {
			if (ruff_shaped(v)) {
				*out = SIGNAL_RUFF;
				return 0;
			}
			if (json_has(v, "file") && (json_has(v, "level") || json_has(v, "endLine"))) {
				*out = SIGNAL_SHELLCHECK;
				return 0;
			}
		}
		if (json_array_size(root))
			return format_list_error("a JSON list whose items are neither ruff's nor shellcheck's diagnostics");
		/* ruff and shellcheck both write [] when all is well: either reads no signals. */
		*out = SIGNAL_RUFF;
		return 0;
	}
	if (json_has(root, "runs") || (json_string_value(json_object_get(root, "$schema")) &&
				  strstr(json_string_value(json_object_get(root, "$schema")), "sarif")))
		*out = SIGNAL_SARIF;
	else if (json_is_array(json_object_get(root, "comments")))
		*out = SIGNAL_SHELLCHECK;
	else if (json_has(root, "results") && (json_has(root, "metrics") || json_has(root, "generated_at") || json_has(root, "errors")))
		*out = SIGNAL_BANDIT;
	else if (mypy_json_shaped(root))
		*out = SIGNAL_MYPY_JSON;
	else if (ruff_shaped(root))
		*out = SIGNAL_RUFF;     /* json-lines with one diagnostic */
	else
		return format_list_error("a JSON object of none of the known shapes");
	return 0;
}

/* Evidence for each text format; the format with the most wins. */
struct votes {
	int n[SIGNAL_FORMAT_COUNT];
};

static bool python_path(const char *path)
{
	const char *dot = strrchr(path, '.');

	return dot && (!strcmp(dot, ".py") || !strcmp(dot, ".pyi") || !strcmp(dot, ".pyw"));
}

static void vote_unlocated(struct votes *v, const char *line)
{
	const char *p;

	if (!strncmp(line, "Found ", 6) || !strncmp(line, "Success: no issues found", 24) ||
	    strstr(line, ": note: In function") || strstr(line, ": note: At top level:"))
		v->n[SIGNAL_MYPY]++;
	else if (strstr(line, ": In function") || strstr(line, ": At top level:") ||
		 !strncmp(line, "In file included from ", 22) || strstr(line, " generated."))
		v->n[SIGNAL_GCC]++;
	else if (isspace((unsigned char)*line)) {
		/* gcc's source echo: "   13 |   if (x)" and "      |   ^" */
		for (p = line; isspace((unsigned char)*p) || isdigit((unsigned char)*p); p++)
			;
		if (*p == '|')
			v->n[SIGNAL_GCC]++;
	}
}

/*
 * What only ruff's text shows: "[*]" after a code, "invalid-syntax:", the
 * " --> path:row:col" of its full output, its "help:" and caret lines, its
 * summary. One such mark outweighs any number of source lines, which look
 * like gcc's echo.
 */
#define RUFF_MARK 10000

static bool ruff_marked_line(const char *line)
{
	const char *p = line;
	struct location loc;
	char copy[512];

	if (!strncmp(line, "[*] ", 4) && strstr(line, " fixable with the "))
		return true;
	if (!strncmp(line, "Found ", 6) && isdigit((unsigned char)line[6]) && !strstr(line, " in ") &&
	    (strstr(line, " error.") || strstr(line, " errors.") || strstr(line, " errors (")))
		return true;
	while (*p == ' ')
		p++;
	if (p != line && (!strncmp(p, "= help: ", 8) || !strncmp(p, "-->", 3))) {
		snprintf(copy, sizeof(copy), "%s", line);
		return *p == '=' || ruff_arrow(&loc, copy);
	}
	return false;
}

static void vote_located(struct votes *v, struct location *loc)
{
	char *msg, *code;
	const char *sev;
	bool python = python_path(loc->path);
	size_t n;

	if (!loc->rest)
		return;
	if (!strncmp(loc->rest, RUFF_SYNTAX ": ", strlen(RUFF_SYNTAX) + 2)) {
		v->n[SIGNAL_RUFF_TEXT] += RUFF_MARK;
	} else if ((n = flake8_code_len(loc->rest))) {
		v->n[SIGNAL_FLAKE8] += 2;
		if (!strncmp(loc->rest + n, " [*] ", 5))
			v->n[SIGNAL_RUFF_TEXT] += RUFF_MARK;
	} else if ((sev = severity_prefix(loc->rest, mypy_severities, &msg)) && (python || loc->n != 2)) {
		v->n[SIGNAL_MYPY] += 2;
		v->n[SIGNAL_MYPY] += trailing_code(msg, mypy_code_ok) != NULL;
	} else if ((sev = severity_prefix(loc->rest, gcc_severities, &msg))) {
		code = trailing_code(msg, gcc_code_ok);
		if (code && shellcheck_code(code)) {
			/* shellcheck -f gcc: every line ends with its code. */
			v->n[SIGNAL_SHELLCHECK_GCC] += 3;
			return;
		}
		v->n[python ? SIGNAL_MYPY : SIGNAL_GCC] += 2;
		if (code)
			v->n[*code == '-' ? SIGNAL_GCC : python ? SIGNAL_MYPY : SIGNAL_GCC]++;
	}
}

static void vote_line(struct votes *v, char *line)
{
	struct location loc;
	json_t *obj;

	if (*line == '{') {
		if ((obj = json_loads(line, 0, NULL)) && mypy_json_shaped(obj))
			v->n[SIGNAL_MYPY_JSON] += 3;
		else if (obj && ruff_shaped(obj))
			v->n[SIGNAL_RUFF] += 3;         /* ruff's json-lines */
		json_decref(obj);
	} else if (ruff_marked_line(line)) {
		v->n[SIGNAL_RUFF_TEXT] += RUFF_MARK;
	} else if (location_parse(&loc, line)) {
		vote_located(v, &loc);
	} else {
		vote_unlocated(v, line);
	}
}

static int detect_text(enum signal_format *out, const char *text, size_t len)
{
	struct buf line = BUF_INIT;
	struct votes v = { { 0 } };
	const char *p = text, *end = text + len, *nl;
	int lines = 0, best = -1, i, error = 0;

	while (!error && p < end && lines++ < DETECT_LINES) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			nl = end;
		buf_clear(&line);
		if ((error = line_clean(&line, p, (size_t)(nl - p), true)) == 0)
			vote_line(&v, line.ptr);
		p = nl + 1;
	}
	buf_release(&line);
	if (error)
		return error;
	for (i = 0; i < SIGNAL_FORMAT_COUNT; i++)
		if (v.n[i] && (best < 0 || v.n[i] > v.n[best]))
			best = i;
	if (best < 0)
		return format_list_error("no line looks like a diagnostic");
	*out = (enum signal_format)best;
	return 0;
}

static const char *skip_bom(const char *text, size_t *len)
{
	if (*len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
		*len -= 3;
		return text + 3;
	}
	return text;
}

int signals_detect(enum signal_format *out, const char *text, size_t len)
{
	json_error_t err;
	json_t *root;
	char why[256];
	size_t skip = 0;
	int error;

	text = skip_bom(text, &len);
	while (skip < len && isspace((unsigned char)text[skip]))
		skip++;
	if (skip == len)
		return format_list_error("the input is empty");
	if (text[skip] == '{' || text[skip] == '[') {
		if ((root = json_loadb(text + skip, len - skip, 0, &err))) {
			error = detect_json(out, root);
			json_decref(root);
			return error;
		}
		/* Not one document: mypy's JSON lines, or text after all. */
		if (detect_text(out, text, len) == 0)
			return 0;
		snprintf(why, sizeof(why), "it starts like JSON but does not parse (line %d, column %d: %s)",
			 err.line, err.column, err.text);
		return format_list_error(why);
	}
	return detect_text(out, text, len);
}

/* -------------------------------------------------------------- parsing */

typedef int (*json_parser)(struct signal_list *list, json_t *root, const char *tool);

static int parse_text(struct signal_list *list, const char *text, size_t len, const char *tool, line_fn fn)
{
	struct text_reader r = { .list = list, .tool = tool, .parent = -1 };

	return lines_each(&r, text, len, fn);
}

static int parse_blocks(struct signal_list *list, const char *text, size_t len, const char *tool, block_fn fn)
{
	struct text_reader r = { .list = list, .tool = tool, .parent = -1 };
	struct text_lines t;
	int error;

	if ((error = text_lines_split(&t, text, len)) < 0)
		return error;
	error = blocks_each(&r, &t, fn);
	text_lines_release(&t);
	return error;
}

static int parse_json(struct signal_list *list, const char *text, size_t len, const char *tool,
		      json_parser fn)
{
	json_t *root;
	int error;

	if (is_blank(text, len))
		return 0;
	if ((error = json_load(&root, text, len, list->format)) < 0)
		return error;
	error = fn(list, root, tool);
	json_decref(root);
	return error;
}

/* ruff's JSON: one list (json), or an object a line (json-lines). */
static int parse_ruff_json(struct signal_list *list, const char *text, size_t len, const char *tool)
{
	size_t skip = 0;
	json_t *one = NULL;
	bool lines;

	while (skip < len && isspace((unsigned char)text[skip]))
		skip++;
	/* Objects a line; one object alone is one document, and another shape a problem. */
	lines = skip < len && text[skip] == '{' &&
		(!(one = json_loadb(text, len, 0, NULL)) || ruff_shaped(one));
	json_decref(one);
	if (lines)
		return parse_text(list, text, len, tool, ruff_jsonl_line);
	return parse_json(list, text, len, tool, ruff_parse);
}

static int parse_ruff_text(struct signal_list *list, const char *text, size_t len, const char *tool)
{
	struct ruff_reader rr = { .r = { .list = list, .tool = tool, .parent = -1 }, .header = BUF_INIT };
	int error = lines_each(&rr.r, text, len, ruff_text_line);

	buf_release(&rr.header);
	buf_release(&rr.r.message);
	return error;
}

static int parse_format(struct signal_list *list, const char *text, size_t len, const char *tool)
{
	switch (list->format) {
	case SIGNAL_RUFF: return parse_ruff_json(list, text, len, tool);
	case SIGNAL_FLAKE8: return parse_text(list, text, len, tool, flake8_line);
	case SIGNAL_MYPY: return parse_blocks(list, text, len, tool, mypy_block);
	case SIGNAL_MYPY_JSON: return parse_blocks(list, text, len, tool, mypy_json_block);
	case SIGNAL_BANDIT: return parse_json(list, text, len, tool, bandit_parse);
	case SIGNAL_SARIF: return parse_json(list, text, len, tool, sarif_parse);
	case SIGNAL_GCC:
	case SIGNAL_SHELLCHECK_GCC: return gcc_parse(list, text, len, tool);      /* gcc's shape, shellcheck's notes */
	case SIGNAL_SHELLCHECK: return parse_json(list, text, len, tool, shellcheck_parse);
	case SIGNAL_RUFF_TEXT: return parse_ruff_text(list, text, len, tool);
	case SIGNAL_FORMAT_COUNT: break;
	}
	return error_set(RL_EUSAGE, "unknown signal format %d", (int)list->format);
}

int signals_parse(struct signal_list *out, const char *text, size_t len, int format, const char *tool)
{
	enum signal_format detected;
	int error;

	memset(out, 0, sizeof(*out));
	if (format >= SIGNAL_FORMAT_COUNT)
		return error_set(RL_EUSAGE, "unknown signal format %d", format);
	text = skip_bom(text, &len);
	if (format < 0 && is_blank(text, len)) {
		/* Nothing to tell the format from, and nothing to read. */
		if (!signal_format_parse(&out->format, tool))
			out->format = SIGNAL_FORMAT_COUNT;
		return 0;
	}
	if (format < 0 && (error = signals_detect(&detected, text, len)) < 0)
		return error;
	out->format = format < 0 ? detected : (enum signal_format)format;
	/* SARIF names its tool in each run; the others are named by their format. */
	if ((!tool || !*tool) && out->format != SIGNAL_SARIF)
		tool = signal_format_tool(out->format);
	if ((error = parse_format(out, text, len, tool && *tool ? tool : NULL)) < 0)
		signal_list_release(out);
	return error;
}

/* ---------------------------------------------------------- relativize */

/* Fold "." and "a/.." out of a path; ".." that cannot fold stays at the front of a relative one. */
static int path_fold(struct buf *out, const char *path)
{
	size_t start = *path == '/', foldable = 0, len, cut;
	const char *p = path, *end;
	int error = buf_puts(out, start ? "/" : "");

	for (; !error && *p; p = end) {
		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		len = (size_t)(end - p);
		if (!len || (len == 1 && *p == '.'))
			continue;
		if (len == 2 && !strncmp(p, "..", 2) && foldable) {
			for (cut = out->len; cut > start && out->ptr[cut - 1] != '/'; cut--)
				;
			out->len = cut > start ? cut - 1 : start;
			out->ptr[out->len] = '\0';
			foldable--;
		} else if (!(len == 2 && !strncmp(p, "..", 2) && start)) {    /* "/.." is "/" */
			if (out->len > start)
				error = buf_putc(out, '/');
			if (!error)
				error = buf_put(out, p, len);
			foldable += !(len == 2 && !strncmp(p, "..", 2));
		}
	}
	return error;
}

/* The part of path under root ("" for root itself), or NULL when it is not under it. */
static const char *path_under(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (!strcmp(root, "/"))
		return path + 1;
	if (strncmp(path, root, n) || (path[n] && path[n] != '/'))
		return NULL;
	return path[n] ? path + n + 1 : path + n;
}

static bool path_escapes(const char *path)
{
	return !strcmp(path, "..") || !strncmp(path, "../", 3);
}

/* cwd's path from the working tree: "" for the root itself. */
static int cwd_in_tree(struct buf *out, const char *root, const char *cwd)
{
	struct buf folded = BUF_INIT;
	const char *under;
	int error;

	if (!cwd || !*cwd)
		return buf_puts(out, "");
	if ((error = path_fold(&folded, cwd)) < 0)
		goto done;
	under = *cwd == '/' ? path_under(folded.ptr, root) : folded.ptr;
	if (!under || path_escapes(under)) {
		error = error_set(RL_EUSAGE, "the directory the tool ran in (%s) is outside the working tree (%s)",
				  cwd, root);
		goto done;
	}
	error = buf_puts(out, under);
done:
	buf_release(&folded);
	return error;
}

/* A file's path from the working tree; NULL (and 0) when it is outside or empty. */
static int relative_path(char **out, const char *file, const char *root, const char *cwd)
{
	struct buf joined = BUF_INIT, folded = BUF_INIT;
	const char *under;
	int error;

	*out = NULL;
	if (*file == '/')
		error = buf_puts(&joined, file);
	else
		error = buf_printf(&joined, "%s%s%s", cwd, *cwd ? "/" : "", file);
	if (error < 0 || (error = path_fold(&folded, joined.ptr)) < 0)
		goto done;
	under = *file == '/' ? path_under(folded.ptr, root) : folded.ptr;
	if (under && *under && !path_escapes(under) && !(*out = strdup(under)))
		error = error_nomem();
done:
	buf_release(&joined);
	buf_release(&folded);
	return error;
}

int signals_relativize(struct signal_list *list, const char *workdir, const char *cwd)
{
	struct buf root = BUF_INIT, cwd_rel = BUF_INIT;
	char *path;
	size_t i;
	int error;

	if (!workdir || *workdir != '/')
		return error_set(RL_EUSAGE, "the working tree must be an absolute path, not \"%s\"",
				 workdir ? workdir : "");
	if ((error = path_fold(&root, workdir)) < 0 || (error = cwd_in_tree(&cwd_rel, root.ptr, cwd)) < 0)
		goto done;
	for (i = 0; i < list->count; i++) {
		if (!list->items[i].file || !*list->items[i].file)
			continue;
		if ((error = relative_path(&path, list->items[i].file, root.ptr, cwd_rel.ptr)) < 0)
			goto done;
		if (path) {
			free(list->items[i].file);
			list->items[i].file = path;
		}
	}
done:
	buf_release(&root);
	buf_release(&cwd_rel);
	return error;
}
