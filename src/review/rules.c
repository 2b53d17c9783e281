/*
 * rules: find rule files, parse their YAML front matter, validate every
 * field with a message that names the file and line, and run the local
 * pattern check on added lines.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include "rules.h"
#include "utf8.h"
#include "config.h"
#include "datadir.h"
#include "diff.h"
#include "glob.h"
#include "models.h"
#include "status.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

/* A rule is a page of text; anything bigger is a mistake (or a binary). */
#define RULE_FILE_MAX (1024 * 1024)
#define RULE_ID_MAX 128
/* Rule directories are shallow; the bound only stops a pathological tree. */
#define RULE_DEPTH_MAX 16
/* Flow collections in the front matter nest at most this deep. */
#define RULE_FLOW_DEPTH_MAX 32
/*
 * Backtracking steps per line: a pattern that blows up on one long line
 * (minified code) gives up on that line instead of stalling the check.
 */
#define RULE_MATCH_LIMIT 1000000

#define KNOWN_KEYS "id, name, version, severity, category, patterns (or applies-to), " \
	"context_files (or context-files), model, reasoning_effort, pattern"

/* -------------------------------------------------------------------------
 * Problems
 */

static int problem_vadd(struct rule_set *set, const char *path, int line, bool fatal,
			const char *fmt, va_list ap)
{
	struct buf msg = BUF_INIT;
	struct rule_problem *grown;
	char *copy = NULL;

	if (buf_vprintf(&msg, fmt, ap) < 0 || !(copy = strdup(path)))
		goto nomem;
	grown = realloc(set->problems, (set->nproblems + 1) * sizeof(*grown));
	if (!grown)
		goto nomem;
	set->problems = grown;
	grown[set->nproblems++] = (struct rule_problem){ copy, line, buf_detach(&msg), fatal };
	return 0;
nomem:
	free(copy);
	buf_release(&msg);
	return error_nomem();
}

static int problem_add(struct rule_set *set, const char *path, int line, bool fatal,
		       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int problem_add(struct rule_set *set, const char *path, int line, bool fatal,
		       const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = problem_vadd(set, path, line, fatal, fmt, ap);
	va_end(ap);
	return error;
}

/*
 * Text from a file, fit to quote in a message: control bytes become '?'
 * and a long value is cut (at a character boundary) with "...".
 */
static const char *clip(char *dst, size_t size, const char *s)
{
	size_t n = strlen(s), i;

	if (n > size - 1) {
		n = size - 4;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
		memcpy(dst + n, "...", 4);
	} else {
		dst[n] = '\0';
	}
	for (i = 0; i < n; i++)
		dst[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	return dst;
}

#define CLIP(s) clip((char[64]){ 0 }, 64, (s))

/* -------------------------------------------------------------------------
 * Parsing one file
 */

enum key {
	KEY_ID, KEY_NAME, KEY_VERSION, KEY_SEVERITY, KEY_CATEGORY, KEY_PATTERNS,
	KEY_CONTEXT, KEY_MODEL, KEY_EFFORT, KEY_PATTERN, KEY_COUNT
};

/* Both seed formats' names, and the aliases. */
static const struct {
	const char *name;
	enum key key;
} key_names[] = {
	{ "id", KEY_ID }, { "name", KEY_NAME }, { "version", KEY_VERSION },
	{ "severity", KEY_SEVERITY }, { "category", KEY_CATEGORY },
	{ "patterns", KEY_PATTERNS }, { "applies-to", KEY_PATTERNS },
	{ "context_files", KEY_CONTEXT }, { "context-files", KEY_CONTEXT },
	{ "model", KEY_MODEL }, { "reasoning_effort", KEY_EFFORT }, { "pattern", KEY_PATTERN },
};

#define NKEYS (sizeof(key_names) / sizeof(key_names[0]))

struct parse {
	struct rule *rule;
	struct rule_set *problems;
	const char *path;
	yaml_document_t *doc;
	int yaml_line;          /* the file's line of the YAML's first line */
	int id_line;
	int seen[KEY_COUNT];    /* the line of each key given, 0 when not */
	const char *seen_as[KEY_COUNT];
	bool fatal;
	int error;              /* RL_ENOMEM once memory ran out */
	char first_fatal[512];  /* for error_message() */
};

static void note(struct parse *ps, int line, bool fatal, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void note(struct parse *ps, int line, bool fatal, const char *fmt, ...)
{
	va_list ap;

	if (fatal && !ps->fatal) {
		int n = snprintf(ps->first_fatal, sizeof(ps->first_fatal), "%s:%d: ", ps->path, line);

		va_start(ap, fmt);
		if (n > 0 && (size_t)n < sizeof(ps->first_fatal))
			vsnprintf(ps->first_fatal + n, sizeof(ps->first_fatal) - (size_t)n, fmt, ap);
		va_end(ap);
	}
	ps->fatal |= fatal;
	if (!ps->problems || ps->error)
		return;
	va_start(ap, fmt);
	ps->error = problem_vadd(ps->problems, ps->path, line, fatal, fmt, ap);
	va_end(ap);
}

static int node_line(const struct parse *ps, const yaml_node_t *node)
{
	return (int)node->start_mark.line + ps->yaml_line;
}

static const char *node_kind(const yaml_node_t *node)
{
	return node->type == YAML_SEQUENCE_NODE ? "a list" :
	       node->type == YAML_MAPPING_NODE ? "a mapping (key: value)" : "empty";
}

/* YAML's null: a plain value that is empty, "~" or "null". */
static bool scalar_null(const yaml_node_t *node)
{
	const char *v = (const char *)node->data.scalar.value;

	return node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
		!strcmp(v, "NULL"));
}

/*
 * The text of a scalar value: true with *out set (NULL for YAML's null),
 * false when the value is not text (the problem is recorded).
 */
static bool scalar_text(struct parse *ps, const char *key, const yaml_node_t *node, char **out)
{
	size_t len;

	*out = NULL;
	if (node->type != YAML_SCALAR_NODE) {
		note(ps, node_line(ps, node), true, "%s must be text, not %s", key, node_kind(node));
		return false;
	}
	len = node->data.scalar.length;
	if (memchr(node->data.scalar.value, '\0', len)) {
		note(ps, node_line(ps, node), true, "%s holds a NUL character: remove it", key);
		return false;
	}
	if (scalar_null(node))
		return true;
	if (!(*out = strndup((const char *)node->data.scalar.value, len))) {
		ps->error = error_nomem();
		return false;
	}
	return true;
}

static bool slug_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == '.';
}

/* "Error Handling!" -> "error-handling": what the id probably meant. */
static void slugify(char *dst, size_t size, const char *s)
{
	size_t n = 0;
	bool dash = false;

	for (; *s && n + 2 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (slug_char(c) && c != '-') {
			if (dash && n)
				dst[n++] = '-';
			dst[n++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
			dash = false;
		} else {
			dash = true;
		}
	}
	dst[n] = '\0';
	if (!n)
		snprintf(dst, size, "my-rule");
}

static void set_id(struct parse *ps, const yaml_node_t *node)
{
	int line = node_line(ps, node);
	char *id;
	size_t i;

	if (!scalar_text(ps, "id", node, &id))
		return;
	ps->id_line = line;
	if (!id || !*id) {
		note(ps, line, true, "id is empty: give the rule a short name such as 'id: error-handling'");
		goto bad;
	}
	for (i = 0; id[i] && slug_char((unsigned char)id[i]); i++)
		;
	if (id[i]) {
		char suggestion[64];

		slugify(suggestion, sizeof(suggestion), id);
		note(ps, line, true, "id '%s' is not a plain name: use letters, digits, '-', '_' and '.' "
		     "only, such as '%s'", CLIP(id), suggestion);
		goto bad;
	}
	if (i > RULE_ID_MAX) {
		note(ps, line, true, "id is %zu characters long: keep it under %d, such as '%.20s'",
		     i, RULE_ID_MAX, id);
		goto bad;
	}
	ps->rule->id = id;
	return;
bad:
	free(id);
}

static void set_severity(struct parse *ps, const yaml_node_t *node)
{
	char lower[16];
	char *text;
	size_t i;

	if (!scalar_text(ps, "severity", node, &text))
		return;
	for (i = 0; text && text[i] && i + 1 < sizeof(lower); i++)
		lower[i] = (char)(text[i] >= 'A' && text[i] <= 'Z' ? text[i] + 32 : text[i]);
	lower[i] = '\0';
	if (!text || text[i] || !severity_parse(&ps->rule->severity, lower))
		note(ps, node_line(ps, node), true,
		     "severity '%s' is not one of critical, major, minor, nitpick", CLIP(text ? text : ""));
	free(text);
}

/* An effort the model table knows; another is noted and left out (the configured one counts). */
static void set_effort(struct parse *ps, const yaml_node_t *node)
{
	char *text;

	if (!scalar_text(ps, "reasoning_effort", node, &text) || !text)
		return;
	if (!models_effort_known(text)) {
		note(ps, node_line(ps, node), false, "reasoning_effort '%s' is not one of "
		     MODELS_EFFORTS ": it is left out", CLIP(text));
		free(text);
		return;
	}
	free(ps->rule->reasoning_effort);
	ps->rule->reasoning_effort = text;
}

/* An item of patterns: a well formed glob that can match something. */
static bool check_glob(struct parse *ps, const char *key, const char *glob, int line)
{
	if (!*glob) {
		note(ps, line, true, "%s: an empty glob matches no file: remove it", key);
		return false;
	}
	if (glob_check(glob) < 0) {
		if (error_status() == RL_ENOMEM) {
			ps->error = RL_ENOMEM;
			return false;
		}
		note(ps, line, true, "%s: bad glob '%s': %s", key, CLIP(glob), error_message());
		return false;
	}
	return true;
}

/* An item of context_files: a path that stays inside the repository. */
static bool check_context(struct parse *ps, const char *key, const char *path, int line)
{
	const char *s = path;

	if (!*path) {
		note(ps, line, true, "%s: an empty path: remove it", key);
		return false;
	}
	if (path[0] == '/' || path[0] == '\\' || path[0] == '~' ||
	    (path[0] && path[1] == ':' && (path[2] == '/' || path[2] == '\\'))) {
		note(ps, line, true, "%s: '%s' is an absolute path: context files are inside the "
		     "repository, relative to its root (such as docs/errors.md)", key, CLIP(path));
		return false;
	}
	while (*s) {
		size_t n = strcspn(s, "/\\");

		if (n == 2 && s[0] == '.' && s[1] == '.') {
			note(ps, line, true, "%s: '%s' leaves the repository with '..': context files "
			     "are inside it, relative to its root", key, CLIP(path));
			return false;
		}
		s += n;
		s += *s != '\0';
	}
	return true;
}

typedef bool (*item_check_fn)(struct parse *ps, const char *key, const char *item, int line);

static void add_item(struct parse *ps, const char *key, const yaml_node_t *node,
		     item_check_fn check, char **items, size_t *count)
{
	char *text;

	if (!scalar_text(ps, key, node, &text))
		return;
	if (!check(ps, key, text ? text : "", node_line(ps, node)) || !text) {
		free(text);
		return;
	}
	items[(*count)++] = text;
}

/* A list of strings, or a single string taken as a list of one. */
static void set_list(struct parse *ps, const char *key, const yaml_node_t *node,
		     item_check_fn check, char ***items, size_t *count)
{
	yaml_node_item_t *it, *start = NULL, *top = NULL;
	size_t n = 1;

	if (node->type == YAML_MAPPING_NODE) {
		note(ps, node_line(ps, node), true, "%s must be a list (%s: [\"a\", \"b\"]) or a "
		     "single value, not a mapping", key, key);
		return;
	}
	if (node->type == YAML_SEQUENCE_NODE) {
		start = node->data.sequence.items.start;
		top = node->data.sequence.items.top;
		n = (size_t)(top - start);
	} else if (scalar_null(node)) {
		return;
	}
	if (n && !(*items = calloc(n, sizeof(**items)))) {
		ps->error = error_nomem();
		return;
	}
	if (node->type == YAML_SCALAR_NODE)
		add_item(ps, key, node, check, *items, count);
	for (it = start; it < top && !ps->error; it++) {
		yaml_node_t *item = yaml_document_get_node(ps->doc, *it);

		if (item && item->type != YAML_SCALAR_NODE)
			note(ps, node_line(ps, item), true, "%s: item %zu is %s: write one value per "
			     "item", key, (size_t)(it - start) + 1, node_kind(item));
		else if (item)
			add_item(ps, key, item, check, *items, count);
	}
}

static void set_pattern(struct parse *ps, const yaml_node_t *node)
{
	PCRE2_SIZE offset;
	int code;
	char *text;

	if (!scalar_text(ps, "pattern", node, &text))
		return;
	if (!text || !*text) {
		note(ps, node_line(ps, node), true, "pattern is empty: give a PCRE2 expression, or "
		     "remove the key to have the LLM review the rule");
		free(text);
		return;
	}
	ps->rule->pattern = text;
	/* No PCRE2_UTF: added lines are bytes and need not be UTF-8. */
	ps->rule->regex = pcre2_compile((PCRE2_SPTR)text, strlen(text), 0, &code, &offset, NULL);
	if (!ps->rule->regex) {
		PCRE2_UCHAR message[256];

		if (code == PCRE2_ERROR_NOMEMORY || code == PCRE2_ERROR_HEAPLIMIT) {
			ps->error = error_nomem();
			return;
		}
		pcre2_get_error_message(code, message, sizeof(message));
		note(ps, node_line(ps, node), true, "pattern does not compile: %s at offset %zu: fix "
		     "the PCRE2 expression (in YAML, put it in single quotes so that backslashes stay "
		     "as written)", (const char *)message, (size_t)offset);
	}
}

static bool set_text(struct parse *ps, const char *key, const yaml_node_t *node, char **field)
{
	char *text;

	if (!scalar_text(ps, key, node, &text))
		return false;
	free(*field);
	*field = text;
	return true;
}

static void set_value(struct parse *ps, enum key key, const char *name, const yaml_node_t *node)
{
	struct rule *rule = ps->rule;

	switch (key) {
	case KEY_ID: set_id(ps, node); break;
	case KEY_NAME: set_text(ps, name, node, &rule->name); break;
	case KEY_VERSION: set_text(ps, name, node, &rule->version); break;
	case KEY_SEVERITY: set_severity(ps, node); break;
	case KEY_CATEGORY: set_text(ps, name, node, &rule->category); break;
	case KEY_MODEL: set_text(ps, name, node, &rule->model); break;
	case KEY_EFFORT: set_effort(ps, node); break;
	case KEY_PATTERN: set_pattern(ps, node); break;
	case KEY_PATTERNS:
		set_list(ps, name, node, check_glob, &rule->patterns, &rule->npatterns);
		break;
	case KEY_CONTEXT:
		set_list(ps, name, node, check_context, &rule->context_files, &rule->ncontext);
		break;
	case KEY_COUNT: break;
	}
}

static void unknown_key(struct parse *ps, const yaml_node_t *key, int line)
{
	const char *name = (const char *)key->data.scalar.value;
	size_t len = key->data.scalar.length, best = SIZE_MAX, i;
	const char *guess = NULL;
	char shown[64];

	for (i = 0; i < NKEYS; i++) {
		size_t d = text_distance(name, len, key_names[i].name);

		if (d < best) {
			best = d;
			guess = key_names[i].name;
		}
	}
	clip(shown, sizeof(shown), memchr(name, '\0', len) ? "?" : name);
	if (best <= (len > 4 ? 2u : 1u))
		note(ps, line, false, "unknown key '%s' (did you mean '%s'?), ignored; known keys: %s",
		     shown, guess, KNOWN_KEYS);
	else
		note(ps, line, false, "unknown key '%s', ignored (a typo?); known keys: %s",
		     shown, KNOWN_KEYS);
}

static void read_mapping(struct parse *ps, const yaml_node_t *root)
{
	yaml_node_pair_t *pair;

	for (pair = root->data.mapping.pairs.start; pair < root->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_document_get_node(ps->doc, pair->key);
		yaml_node_t *v = yaml_document_get_node(ps->doc, pair->value);
		const char *name;
		size_t i;
		int line;

		if (!k || !v)
			continue;
		line = node_line(ps, k);
		if (k->type != YAML_SCALAR_NODE) {
			note(ps, line, false, "a key must be a name such as 'severity', not %s; ignored",
			     node_kind(k));
			continue;
		}
		name = (const char *)k->data.scalar.value;
		for (i = 0; i < NKEYS; i++)
			if (strlen(key_names[i].name) == k->data.scalar.length &&
			    !strcmp(key_names[i].name, name))
				break;
		if (i == NKEYS) {
			unknown_key(ps, k, line);
		} else if (ps->seen[key_names[i].key]) {
			enum key key = key_names[i].key;

			if (!strcmp(ps->seen_as[key], name))
				note(ps, line, true, "'%s' is given twice (also on line %d): keep one",
				     name, ps->seen[key]);
			else
				note(ps, line, true, "'%s' is another name for '%s', given on line %d: "
				     "keep one", name, ps->seen_as[key], ps->seen[key]);
		} else {
			ps->seen[key_names[i].key] = line;
			ps->seen_as[key_names[i].key] = key_names[i].name;
			set_value(ps, key_names[i].key, name, v);
		}
		if (ps->error)
			return;
	}
}

/* The file line of a byte offset in the YAML text. */
static int offset_line(const struct parse *ps, const char *yaml, size_t len, size_t offset)
{
	int line = ps->yaml_line;
	size_t i;

	for (i = 0; i < offset && i < len; i++)
		line += yaml[i] == '\n';
	return line;
}

/*
 * The line where flow collections ([ and {) outside quoted scalars and
 * comments nest deeper than RULE_FLOW_DEPTH_MAX, or 0. libyaml walks every
 * open level for each token, so 100,000 levels take it minutes: counted
 * here first, in one pass.
 */
static int flow_too_deep(const char *yaml, size_t len)
{
	const char *p = yaml, *end = yaml + len;
	int depth = 0, line = 1;

	for (; p < end; p++) {
		bool starts = p == yaml || strchr(" \t\n[{,:-", p[-1]);

		if (*p == '\n')
			line++;
		else if (*p == '#' && starts)
			while (p + 1 < end && p[1] != '\n')
				p++;
		else if ((*p == '"' || *p == '\'') && starts) {
			char quote = *p;

			for (p++; p < end && *p != quote; p++) {
				line += *p == '\n';
				if (quote == '"' && *p == '\\' && p + 1 < end)
					p++;
			}
		} else if ((*p == '[' || *p == '{') && ++depth > RULE_FLOW_DEPTH_MAX)
			return line;
		else if ((*p == ']' || *p == '}') && depth > 0)
			depth--;
	}
	return 0;
}

/* Read the fields; false when the YAML is not a mapping of them. */
static bool read_yaml(struct parse *ps, const char *yaml, size_t len)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	bool mapping = false;
	int deep;

	if ((deep = flow_too_deep(yaml, len))) {
		note(ps, deep - 1 + ps->yaml_line, true, "lists or maps nested deeper than %d levels: "
		     "a rule's front matter is a few flat keys", RULE_FLOW_DEPTH_MAX);
		return false;
	}
	if (!yaml_parser_initialize(&parser)) {
		ps->error = error_nomem();
		return false;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)yaml, len);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	if (!yaml_parser_load(&parser, &doc)) {
		if (parser.error == YAML_MEMORY_ERROR)
			ps->error = error_nomem();
		else if (parser.error == YAML_READER_ERROR)
			note(ps, offset_line(ps, yaml, len, parser.problem_offset), true,
			     "the front matter is not valid UTF-8 (%s): save the file as UTF-8",
			     parser.problem ? parser.problem : "bad bytes");
		else
			note(ps, (int)parser.problem_mark.line + ps->yaml_line, true,
			     "invalid YAML: %s%s%s: check the indentation, and quote values that "
			     "contain ': ' or start with one of [ ] { } * & ! | > ' \" %% @ `",
			     parser.problem ? parser.problem : "syntax error",
			     parser.context ? " " : "", parser.context ? parser.context : "");
		yaml_parser_delete(&parser);
		return false;
	}
	ps->doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root || (root->type == YAML_SCALAR_NODE && scalar_null(root)))
		note(ps, 1, true, "the front matter is empty: it needs at least an id "
		     "(id: my-rule)");
	else if (root->type != YAML_MAPPING_NODE)
		note(ps, node_line(ps, root), true, "the front matter must be keys and values "
		     "(id: my-rule), not %s", root->type == YAML_SCALAR_NODE ? "plain text" :
		     node_kind(root));
	else
		mapping = true;
	if (mapping)
		read_mapping(ps, root);
	ps->doc = NULL;
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return mapping;
}

/* Where the front matter and the body are in the text. */
struct layout {
	size_t yaml, yaml_len;
	size_t body;
	int close_line;
};

/* Whether [s, s + n) is a delimiter line: "---", trailing blanks and CR allowed. */
static bool is_delimiter(const char *s, size_t n)
{
	if (n < 3 || memcmp(s, "---", 3))
		return false;
	for (s += 3, n -= 3; n; s++, n--)
		if (*s != ' ' && *s != '\t' && *s != '\r')
			return false;
	return true;
}

static bool split_front_matter(struct parse *ps, struct layout *out, const char *text, size_t len)
{
	size_t pos = 0, eol;
	const char *nul;
	int line = 1;

	if ((nul = memchr(text, '\0', len))) {
		note(ps, offset_line(ps, text, len, (size_t)(nul - text)) - ps->yaml_line + 1, true,
		     "the file has a NUL byte: a rule file is text (UTF-8 markdown)");
		return false;
	}
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		pos = 3;  /* a byte order mark, as some editors write */
	eol = pos;
	while (eol < len && text[eol] != '\n')
		eol++;
	if (!is_delimiter(text + pos, eol - pos)) {
		note(ps, 1, true, "no front matter: a rule file starts with a line '---', then YAML "
		     "(id: my-rule, severity: major, ...), then a line '---' and the standard in "
		     "markdown");
		return false;
	}
	out->yaml = pos = eol + (eol < len);
	while (pos < len) {
		line++;
		for (eol = pos; eol < len && text[eol] != '\n'; eol++)
			;
		if (is_delimiter(text + pos, eol - pos)) {
			out->yaml_len = pos - out->yaml;
			out->body = eol + (eol < len);
			out->close_line = line;
			return true;
		}
		pos = eol + 1;
	}
	note(ps, 1, true, "the front matter is not closed: add a line '---' after the YAML");
	return false;
}

static bool blank(const char *s)
{
	for (; *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
			return false;
	return true;
}

/* After the fields are read: defaults and the checks across fields. */
static void finish(struct parse *ps, int close_line)
{
	struct rule *rule = ps->rule;
	size_t i;

	if (!rule->id && !ps->seen[KEY_ID])
		note(ps, 1, true, "no id: add one to the front matter, such as 'id: error-handling' "
		     "(letters, digits, '-', '_' and '.')");
	if (!rule->name && rule->id && !(rule->name = strdup(rule->id)))
		ps->error = error_nomem();
	rule->kind = ps->seen[KEY_PATTERN] ? RULE_LOCAL : RULE_LLM;
	if (rule->kind == RULE_LOCAL && rule->model)
		note(ps, ps->seen[KEY_MODEL], false, "model is not used: a rule with a pattern runs "
		     "locally, without the LLM");
	if (rule->kind == RULE_LOCAL && ps->seen[KEY_EFFORT])
		note(ps, ps->seen[KEY_EFFORT], false, "reasoning_effort is not used: a rule with a "
		     "pattern runs locally, without the LLM");
	if (rule->kind == RULE_LOCAL && rule->ncontext)
		note(ps, ps->seen[KEY_CONTEXT], false, "%s is not used: a rule with a pattern runs "
		     "locally, without the LLM", ps->seen_as[KEY_CONTEXT]);
	for (i = 0; i < rule->npatterns && rule->patterns[i][0] == '!'; i++)
		;
	if (rule->npatterns && i == rule->npatterns)
		note(ps, ps->seen[KEY_PATTERNS], false, "%s has only exclusions ('!...'), so the rule "
		     "applies to no file: start the list with what to include, such as '**'",
		     ps->seen_as[KEY_PATTERNS]);
	if (rule->kind == RULE_LLM && blank(rule->body))
		note(ps, close_line, true, "the rule has no body: write the standard below the "
		     "front matter (what to look for, good and bad examples); the LLM reviews "
		     "against it");
}

static int parse_rule(struct rule *out, const char *path, const char *text, size_t len,
		      struct rule_set *problems, int *id_line)
{
	struct rule rule = { 0 };
	struct parse ps = { 0 };
	struct layout layout = { 0 };

	memset(out, 0, sizeof(*out));
	ps.rule = &rule;
	ps.problems = problems;
	ps.path = path;
	ps.yaml_line = 2;
	ps.id_line = 1;
	rule.severity = SEV_MAJOR;
	if (!(rule.path = strdup(path)) || !(rule.content = strndup(text, len))) {
		ps.error = error_nomem();
		goto done;
	}
	if (!split_front_matter(&ps, &layout, text, len))
		goto done;
	if (!(rule.body = strndup(text + layout.body, len - layout.body))) {
		ps.error = error_nomem();
		goto done;
	}
	/* Past a YAML syntax error the fields are unknown: "no id" would be noise. */
	if (read_yaml(&ps, text + layout.yaml, layout.yaml_len) && !ps.error)
		finish(&ps, layout.close_line);
done:
	if (id_line)
		*id_line = ps.id_line;
	if (ps.error || ps.fatal) {
		rule_release(&rule);
		return ps.error ? ps.error : error_set(RL_EPARSE, "%s", ps.first_fatal);
	}
	*out = rule;
	return 0;
}

int rule_parse(struct rule *out, const char *path, const char *text, size_t len,
	       struct rule_set *problems)
{
	return parse_rule(out, path, text, len, problems, NULL);
}

void rule_release(struct rule *rule)
{
	size_t i;

	if (!rule)
		return;
	free(rule->id);
	free(rule->name);
	free(rule->version);
	free(rule->category);
	for (i = 0; i < rule->npatterns; i++)
		free(rule->patterns[i]);
	free(rule->patterns);
	for (i = 0; i < rule->ncontext; i++)
		free(rule->context_files[i]);
	free(rule->context_files);
	free(rule->model);
	free(rule->reasoning_effort);
	free(rule->pattern);
	pcre2_code_free(rule->regex);
	free(rule->body);
	free(rule->content);
	free(rule->path);
	memset(rule, 0, sizeof(*rule));
}

/* -------------------------------------------------------------------------
 * Loading the directories
 */

struct loader {
	struct rule_set *set;
	const char *source;
	size_t dir_start;       /* the rules read from the current directory start here */
	int depth;
};

static int rule_append(struct rule_set *set, struct rule *rule)
{
	struct rule *grown = realloc(set->rules, (set->count + 1) * sizeof(*grown));

	if (!grown)
		return error_nomem();
	set->rules = grown;
	grown[set->count++] = *rule;
	memset(rule, 0, sizeof(*rule));
	return 0;
}

/*
 * Keep a parsed rule unless its id is taken. Across the tiers (--rules,
 * repository, user, built-in) that is the override users ask for, so it
 * is silent; within a tier it is likely an accident, so it is noted; within
 * one directory the second file is an error.
 */
static int loader_keep(struct loader *ld, struct rule *rule, int id_line)
{
	struct rule_set *set = ld->set;
	size_t i;
	int error = 0;

	for (i = 0; i < set->count && strcmp(set->rules[i].id, rule->id); i++)
		;
	if (i == set->count) {
		rule->source = ld->source;
		return rule_append(set, rule);
	}
	if (i >= ld->dir_start)
		error = problem_add(set, rule->path, id_line, true, "id '%s' is already used by %s: "
				    "give this rule another id", rule->id, set->rules[i].path);
	else if (set->rules[i].source == ld->source)
		error = problem_add(set, rule->path, id_line, false, "id '%s' is also used by %s, "
				    "which wins (it is searched first), so this file is left out: "
				    "give one of them another id", rule->id, set->rules[i].path);
	rule_release(rule);
	return error;
}

/* Read a rule file: 0, 1 when a problem was recorded instead, or RL_ENOMEM. */
static int read_rule_file(struct loader *ld, struct buf *text, const char *file, const char *shown)
{
	int error = buf_read_regular(text, file, "", RULE_FILE_MAX);

	if (!error || error == RL_ENOMEM)
		return error;
	if (error == RL_EPARSE)
		error = problem_add(ld->set, shown, 0, true, "%s; keep the standard to a page, and "
				    "put long material in context_files", error_message());
	else
		error = problem_add(ld->set, shown, 0, true, "%s", error_message());
	return error < 0 ? error : 1;
}

static int load_file(struct loader *ld, const char *file, const char *shown)
{
	struct buf text = BUF_INIT;
	struct rule rule;
	int id_line, error;

	if ((error = read_rule_file(ld, &text, file, shown)) != 0)
		goto done;
	error = parse_rule(&rule, shown, text.ptr, text.len, ld->set, &id_line);
	if (error == RL_ENOMEM)
		goto done;
	error = error < 0 ? 0 : loader_keep(ld, &rule, id_line);
done:
	buf_release(&text);
	return error < 0 ? error : 0;
}

static bool is_rule_name(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && !strcasecmp(name + n - 3, ".md") && strcasecmp(name, "README.md");
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of a directory that may hold rules, sorted; hidden ones left out. */
static int list_dir(char ***out, size_t *count, DIR *dir)
{
	struct dirent *entry;
	char **names = NULL, **grown;
	size_t n = 0;

	while ((entry = readdir(dir))) {
		if (entry->d_name[0] == '.')
			continue;
		if (!(grown = realloc(names, (n + 1) * sizeof(*names))) ||
		    !(grown[n] = strdup(entry->d_name))) {
			names = grown ? grown : names;
			while (n)
				free(names[--n]);
			free(names);
			return error_nomem();
		}
		names = grown;
		n++;
	}
	if (n)
		qsort(names, n, sizeof(*names), compare_names);
	*out = names;
	*count = n;
	return 0;
}

static int load_tree(struct loader *ld, struct buf *file, struct buf *shown);

/* One entry of a directory: a rule file, or a directory to go into. */
static int load_entry(struct loader *ld, struct buf *file, struct buf *shown, const char *name)
{
	size_t flen = file->len, slen = shown->len;
	struct stat st;
	bool link;
	int error;

	if ((error = buf_printf(file, "/%s", name)) < 0 ||
	    (error = buf_printf(shown, "/%s", name)) < 0)
		goto done;
	if (lstat(file->ptr, &st) < 0)
		goto done;
	/*
	 * Symbolic links to files are followed; to directories not, so no loop.
	 * Anything else named like a rule (a FIFO, a socket, a link to a device)
	 * is refused by the reader, which says so, without being opened.
	 */
	if ((link = S_ISLNK(st.st_mode)) && stat(file->ptr, &st) < 0)
		goto done;  /* a dangling link: nothing there */
	if (S_ISDIR(st.st_mode) && !link)
		error = load_tree(ld, file, shown);
	else if (is_rule_name(name) && !S_ISDIR(st.st_mode))
		error = load_file(ld, file->ptr, shown->ptr);
done:
	file->len = flen;
	file->ptr[flen] = '\0';
	shown->len = slen;
	shown->ptr[slen] = '\0';
	return error;
}

static int load_tree(struct loader *ld, struct buf *file, struct buf *shown)
{
	char **names = NULL;
	size_t count = 0, i;
	DIR *dir;
	int error = 0;

	if (ld->depth >= RULE_DEPTH_MAX)
		return problem_add(ld->set, shown->ptr, 0, false, "directories nested deeper than "
				   "%d are not read", RULE_DEPTH_MAX);
	if (!(dir = opendir(file->ptr)))
		return problem_add(ld->set, shown->ptr, 0, true, "cannot read the directory: %s",
				   strerror(errno));
	error = list_dir(&names, &count, dir);
	closedir(dir);
	ld->depth++;
	for (i = 0; i < count && !error; i++)
		error = load_entry(ld, file, shown, names[i]);
	ld->depth--;
	for (i = 0; i < count; i++)
		free(names[i]);
	free(names);
	return error;
}

/*
 * One place to look: a directory read recursively (or, for --rules, a
 * single file). A missing directory is fine unless the user named it.
 */
static int load_root(struct loader *ld, const char *source, const char *path,
		     const char *shown_path, bool named)
{
	struct buf file = BUF_INIT, shown = BUF_INIT;
	struct stat st;
	int error = 0;

	ld->source = source;
	ld->dir_start = ld->set->count;
	ld->depth = 0;
	if (stat(path, &st) < 0) {
		/* ENOTDIR: .revline is the settings file, so .revline/rules cannot be there. */
		if (named || (errno != ENOENT && errno != ENOTDIR))
			error = problem_add(ld->set, shown_path, 0, true, "%s%s", named ? "--rules: " : "",
					    errno == ENOENT ? "no such directory" : strerror(errno));
		return error;
	}
	if (named && S_ISREG(st.st_mode))
		return load_file(ld, path, shown_path);
	if (!S_ISDIR(st.st_mode))
		return named ? problem_add(ld->set, shown_path, 0, true, "--rules: not a directory") : 0;
	if ((error = buf_puts(&file, path)) < 0 || (error = buf_puts(&shown, shown_path)) < 0)
		goto done;
	/* "dir/" and "dir" name the same place; children are joined with '/'. */
	while (file.len > 1 && file.ptr[file.len - 1] == '/')
		file.ptr[--file.len] = '\0';
	while (shown.len > 1 && shown.ptr[shown.len - 1] == '/')
		shown.ptr[--shown.len] = '\0';
	error = load_tree(ld, &file, &shown);
done:
	buf_release(&file);
	buf_release(&shown);
	return error;
}

/*
 * How a --rules path is shown: relative to the working tree's root when
 * it is inside it (as the repository's own rules are), else absolute.
 */
static int shown_path(struct buf *out, const char *path, const char *workdir)
{
	char *real = realpath(path, NULL), *root = workdir ? realpath(workdir, NULL) : NULL;
	size_t n = root ? strlen(root) : 0;
	int error;

	buf_clear(out);
	if (real && root && !strncmp(real, root, n) && real[n] == '/' && real[n + 1])
		error = buf_puts(out, real + n + 1);
	else
		error = buf_puts(out, real ? real : path);
	free(real);
	free(root);
	return error;
}

/* A data directory shown as a full path, without resolving its links. */
static int absolute_path(struct buf *out, const char *path)
{
	char cwd[PATH_MAX];
	struct buf tmp = BUF_INIT;
	int error;

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return 0;
	if ((error = buf_printf(&tmp, "%s/%s", cwd, path)) == 0) {
		buf_release(out);
		*out = tmp;
	}
	return error;
}

static const char *const repository_dirs[] = { "threadlines", ".revline/rules", ".github/cr-rules" };

/* -------------------------------------------------------------------------
 * Which built-in rules run
 */

static const char *const builtin_names[] = { "auto", "all", "local", "none" };

const char *rules_builtin_name(enum rules_builtin builtin)
{
	return builtin_names[builtin];
}

int rules_builtin_load(enum rules_builtin *out, struct config *config)
{
	char *value = NULL;
	size_t i;
	int error;

	*out = RULES_BUILTIN_AUTO;
	if ((error = config_get(&value, config, "revline.builtinRules")) == RL_ENOTFOUND)
		return 0;
	if (error < 0)
		return error;
	for (i = 0; i < 4 && strcasecmp(value, builtin_names[i]); i++)
		;
	if (i < 4)
		*out = (enum rules_builtin)i;
	else
		error = error_set(RL_ECONFIG, "revline.builtinRules is '%.40s': it takes "
				  RULES_BUILTIN_VALUES " (git config revline.builtinRules, or .revline)",
				  value);
	free(value);
	return error;
}

static bool is_builtin(const struct rule *rule)
{
	return rule->source && !strcmp(rule->source, "built-in");
}

static bool is_named(const struct rule *rule, const struct rules_options *options)
{
	size_t i;

	for (i = 0; i < options->nnamed; i++)
		if (!strcmp(options->named[i], rule->id))
			return true;
	return false;
}

enum rule_why rules_policy(const struct rule *rule, const struct rules_options *options, bool own)
{
	if (!is_builtin(rule))
		return RULE_ON;
	if (is_named(rule, options))
		return RULE_ON_NAMED;
	if (options->no_builtin)
		return RULE_OFF_FLAG;
	switch (options->builtin) {
	case RULES_BUILTIN_ALL:
		return RULE_ON_ALL;
	case RULES_BUILTIN_NONE:
		return RULE_OFF_NONE;
	case RULES_BUILTIN_LOCAL:
		return rule->kind == RULE_LOCAL ? RULE_ON_LOCAL : RULE_OFF_LOCAL;
	case RULES_BUILTIN_AUTO:
		break;
	}
	if (!own)
		return RULE_ON_NO_OWN;
	return rule->kind == RULE_LOCAL ? RULE_ON_LOCAL : RULE_OFF_OWN;
}

bool rule_why_on(enum rule_why why)
{
	return why < RULE_OFF_OWN;
}

const char *rule_why_text(enum rule_why why)
{
	switch (why) {
	case RULE_ON: return "on";
	case RULE_ON_NAMED: return "on: named by --rule";
	case RULE_ON_NO_OWN: return "built-in, on: the repository has no rules of its own";
	case RULE_ON_LOCAL: return "built-in local pattern rule, on (it needs no LLM)";
	case RULE_ON_ALL: return "built-in, on: revline.builtinRules=all";
	case RULE_OFF_OWN:
		return "built-in LLM rule, off: the repository has rules of its own "
		       "(revline.builtinRules=all to run it)";
	case RULE_OFF_LOCAL: return "built-in LLM rule, off: revline.builtinRules=local";
	case RULE_OFF_NONE: return "built-in rule, off: revline.builtinRules=none";
	case RULE_OFF_FLAG: return "built-in rule, off: --no-builtin";
	}
	return "";
}

const char *rules_policy_text(const struct rules_options *options, bool own)
{
	if (options->no_builtin)
		return "--no-builtin: no built-in rule runs";
	switch (options->builtin) {
	case RULES_BUILTIN_ALL: return "revline.builtinRules=all: every built-in rule runs";
	case RULES_BUILTIN_LOCAL:
		return "revline.builtinRules=local: only the built-in local pattern rules run";
	case RULES_BUILTIN_NONE: return "revline.builtinRules=none: no built-in rule runs";
	case RULES_BUILTIN_AUTO: break;
	}
	return own ? "the repository has rules of its own, so the built-in LLM rules are off "
		     "(revline.builtinRules=all runs them)" :
		     "the repository has no rules of its own, so every built-in rule runs";
}

/* Whether the repository gave a rule: from its folders, or --rules. */
static bool rules_own(const struct rule_set *set)
{
	size_t i;

	for (i = 0; i < set->count; i++)
		if (!strcmp(set->rules[i].source, "repository") || !strcmp(set->rules[i].source, "--rules"))
			return true;
	return false;
}

/* Mark every rule; leave out the ones turned off unless they are to be listed. */
static void policy_apply(struct rule_set *set, const struct rules_options *options)
{
	size_t i, n = 0;

	set->own = rules_own(set);
	set->off = 0;
	for (i = 0; i < set->count; i++) {
		struct rule *rule = &set->rules[i];

		rule->why = rules_policy(rule, options, set->own);
		if (!rule_why_on(rule->why))
			set->off++;
		if (!rule_why_on(rule->why) && !options->keep_off)
			rule_release(rule);
		else
			set->rules[n++] = *rule;
	}
	set->count = n;
}

int rules_load(struct rule_set *out, const struct rules_options *options)
{
	struct loader ld = { out, NULL, 0, 0 };
	struct buf path = BUF_INIT, shown = BUF_INIT;
	size_t i;
	int error = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < options->nextra && !error; i++) {
		if (!(error = shown_path(&shown, options->extra_dirs[i], options->workdir)))
			error = load_root(&ld, "--rules", options->extra_dirs[i], shown.ptr, true);
	}
	for (i = 0; options->workdir && *options->workdir && i < 3 && !error; i++) {
		const char *wd = options->workdir;
		size_t n = strlen(wd);

		buf_clear(&path);
		if (!(error = buf_printf(&path, "%s%s%s", wd, n && wd[n - 1] == '/' ? "" : "/",
					 repository_dirs[i])))
			error = load_root(&ld, "repository", path.ptr, repository_dirs[i], false);
	}
	if (!error && !options->no_user && datadir_user(&path, "rules") == 0)
		error = load_root(&ld, "user", path.ptr, path.ptr, false);
	if (!error && datadir_find(&path, "rules") == 0 && !(error = absolute_path(&path, path.ptr)))
		error = load_root(&ld, "built-in", path.ptr, path.ptr, false);
	if (!error) {
		policy_apply(out, options);
		error_clear();  /* a missing user or built-in directory is not a failure */
	}
	buf_release(&path);
	buf_release(&shown);
	return error;
}

void rules_release(struct rule_set *set)
{
	size_t i;

	if (!set)
		return;
	for (i = 0; i < set->count; i++)
		rule_release(&set->rules[i]);
	free(set->rules);
	for (i = 0; i < set->nproblems; i++) {
		free(set->problems[i].path);
		free(set->problems[i].message);
	}
	free(set->problems);
	memset(set, 0, sizeof(*set));
}

/* -------------------------------------------------------------------------
 * Using the rules
 */

bool rule_applies(const struct rule *rule, const char *path)
{
	if (!rule->npatterns)
		return true;
	return glob_match_list((const char *const *)rule->patterns, rule->npatterns, path);
}

const struct rule *rules_find(const struct rule_set *set, const char *id)
{
	size_t i;

	for (i = 0; i < set->count; i++)
		if (!strcmp(set->rules[i].id, id))
			return &set->rules[i];
	return NULL;
}

int rule_match_local(const struct rule *rule, const struct diff_file *file,
		     void (*found)(int line, const char *text, size_t len, void *ctx), void *ctx)
{
	pcre2_match_data *data = NULL;
	pcre2_match_context *limits = NULL;
	uint32_t i;
	int count = 0;

	if (!rule->regex)
		return error_set(RL_EUSAGE, "rule '%s' has no pattern to check locally", rule->id);
	if (!(data = pcre2_match_data_create_from_pattern(rule->regex, NULL)) ||
	    !(limits = pcre2_match_context_create(NULL))) {
		count = error_nomem();
		goto done;
	}
	pcre2_set_match_limit(limits, RULE_MATCH_LIMIT);
	for (i = 0; i < file->nlines; i++) {
		const struct diff_line *line = &file->lines[i];
		const char *text = line->text ? line->text : "";
		size_t len = line->len;

		if (line->origin != '+')
			continue;
		/* A CRLF file's lines end in '\r'; '$' should still mean the end of the line. */
		if (len && text[len - 1] == '\r')
			len--;
		/*
		 * Any failure is "no match": a line too costly for the pattern, or one
		 * that is not UTF-8 for a pattern that asked for (*UTF).
		 */
		if (pcre2_match(rule->regex, (PCRE2_SPTR)text, len, 0, 0, data, limits) < 0)
			continue;
		count++;
		if (found)
			found(line->new_lineno, text, len, ctx);
	}
done:
	pcre2_match_data_free(data);
	pcre2_match_context_free(limits);
	return count;
}

/*
 * The starter rule `revline init` writes: a real standard, every field
 * explained, so that a team can copy it to write its own.
 */
const char rules_example[] =
	"---\n"
	"# A rule (\"threadline\"): one standard your team agrees on. On every change\n"
	"# to the files it applies to, the LLM reviews the diff against the text\n"
	"# below the front matter. Edit this one, or copy it to write more:\n"
	"# `revline rules` lists the rules and `revline rules --lint` checks them.\n"
	"\n"
	"# A short, unique name: letters, digits, '-', '_' and '.'. A rule with the\n"
	"# id of a built-in rule (see `revline rules`) replaces that rule.\n"
	"id: error-messages\n"
	"\n"
	"# Your own version of the standard; raise it when you change the rule.\n"
	"version: 1.0.0\n"
	"\n"
	"# How much a finding matters: critical, major (the default), minor, nitpick.\n"
	"severity: minor\n"
	"\n"
	"# A free word to group findings in reports.\n"
	"category: maintainability\n"
	"\n"
	"# The files it applies to, gitignore-style; '!' leaves files out and the\n"
	"# last match wins. Without patterns a rule applies to every file.\n"
	"patterns:\n"
	"  - \"**/*.{c,h,cc,cpp,go,rs,py,js,ts,java,kt,rb,php,cs,swift}\"\n"
	"  - \"!**/{test,tests,testdata}/**\"\n"
	"\n"
	"# Files of the repository sent with the rule as background (paths from the\n"
	"# repository's root), such as the module that defines your error types.\n"
	"context_files: []\n"
	"\n"
	"# A model for this rule alone, instead of the configured one:\n"
	"# model: gpt-5-mini\n"
	"\n"
	"# A PCRE2 expression here would make this a local rule, checked on added\n"
	"# lines without the LLM (see the built-in conflict-markers rule):\n"
	"# pattern: '^(<{7}|={7}|>{7})( |$)'\n"
	"---\n"
	"\n"
	"# Error messages say what failed, with what, and what to do\n"
	"\n"
	"An error message is read by someone who cannot see the code: a user at a\n"
	"terminal, or an engineer reading logs at night. It must let them act\n"
	"without opening the source.\n"
	"\n"
	"## What to look for\n"
	"\n"
	"- A new or changed error message that does not name the operation that\n"
	"  failed (\"error\", \"failed\", \"invalid input\", \"something went wrong\").\n"
	"- A message that leaves out the value that was wrong: the path that was not\n"
	"  found, the key that was missing, the limit that was exceeded.\n"
	"- A message that drops the underlying cause: the system error, the\n"
	"  exception being wrapped, the status code of the response.\n"
	"- A user-facing message that gives no next step when one exists (\"set\n"
	"  DATABASE_URL\", \"run `make migrate`\", \"the file must be UTF-8\").\n"
	"- The same message text used for two different failures, so that a report\n"
	"  cannot tell which one happened.\n"
	"\n"
	"## Good\n"
	"\n"
	"```python\n"
	"raise ConfigError(\n"
	"    f\"cannot read {path}: {err.strerror}; \"\n"
	"    \"set APP_CONFIG to the configuration file or create it with `app init`\"\n"
	") from err\n"
	"```\n"
	"\n"
	"```go\n"
	"return fmt.Errorf(\"load user %d from %s: %w\", id, table, err)\n"
	"```\n"
	"\n"
	"## Bad\n"
	"\n"
	"```python\n"
	"raise ConfigError(\"Invalid configuration\")\n"
	"```\n"
	"\n"
	"```go\n"
	"return errors.New(\"failed\")\n"
	"```\n"
	"\n"
	"## Do not flag\n"
	"\n"
	"- Messages in tests, and assertion messages that only a developer reads.\n"
	"- Errors passed up unchanged where the caller adds the context.\n"
	"- Messages that must not carry the value for security reasons (a password,\n"
	"  a token): saying which field was wrong is enough there.\n"
	"- Wording and style alone, when the message already says what failed and why.\n";
