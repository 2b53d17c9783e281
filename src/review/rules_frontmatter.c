/*
 * rules_frontmatter: one rule file read, its YAML front matter parsed and
 * every field validated with a message that names the file and line.
 */
#include "rules.h"
#include "rules_internal.h"
#include "glob.h"
#include "models.h"
#include "status.h"
#include "utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define RULE_ID_MAX 128
/* Flow collections in the front matter nest at most this deep. */
#define RULE_FLOW_DEPTH_MAX 32

#define KNOWN_KEYS "id, name, version, severity, category, patterns (or applies-to), " \
	"context_files (or context-files), context, model, reasoning_effort, pattern, check"

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
	KEY_CONTEXT, KEY_MODEL, KEY_EFFORT, KEY_PATTERN, KEY_REPO_CONTEXT, KEY_CHECK, KEY_COUNT
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
	{ "context", KEY_REPO_CONTEXT }, { "check", KEY_CHECK },
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

/* context: none (the diff alone) or deep (more of the repository); another word is noted and left out. */
static void set_repo_context(struct parse *ps, const yaml_node_t *node)
{
	char *text;

	if (!scalar_text(ps, "context", node, &text) || !text)
		return;
	if (!strcmp(text, "none"))
		ps->rule->context = RULE_CONTEXT_NONE;
	else if (!strcmp(text, "deep"))
		ps->rule->context = RULE_CONTEXT_DEEP;
	else if (strcmp(text, "normal"))
		note(ps, node_line(ps, node), false, "context '%s' is not one of none, normal or deep: "
		     "the repository's context is shown as for every rule", CLIP(text));
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
	char *text;
	int error;

	if (!scalar_text(ps, "pattern", node, &text))
		return;
	if (!text || !*text) {
		note(ps, node_line(ps, node), true, "pattern is empty: give a PCRE2 expression, or "
		     "remove the key to have the LLM review the rule");
		free(text);
		return;
	}
	ps->rule->pattern = text;
	if ((error = rule_pattern_compile(ps->rule)) == RL_ENOMEM)
		ps->error = error;
	else if (error < 0)
		note(ps, node_line(ps, node), true, "pattern does not compile: %s: fix "
		     "the PCRE2 expression (in YAML, put it in single quotes so that backslashes stay "
		     "as written)", error_message());
}

/* check: one of revline's own local checks (RULE_CHECK_LIST), by name. */
static void set_check(struct parse *ps, const yaml_node_t *node)
{
	struct text_guess guess;
	const char *near;
	char *text;
	int i;

	if (!scalar_text(ps, "check", node, &text) || !text)
		return;
	if ((ps->rule->check = rule_check_find(text)) == RULE_CHECK_NONE) {
		text_guess_init(&guess, text, strlen(text));
		for (i = RULE_CHECK_NONE + 1; i < RULE_CHECK_COUNT; i++)
			text_guess_try(&guess, rule_check_name((enum rule_check)i), (size_t)i);
		if ((near = text_guess_result(&guess)))
			note(ps, node_line(ps, node), true, "check '%s' is not one of revline's checks (did you "
			     "mean '%s'?): they are " RULE_CHECK_NAMES, CLIP(text), near);
		else
			note(ps, node_line(ps, node), true, "check '%s' is not one of revline's checks: they "
			     "are " RULE_CHECK_NAMES, CLIP(text));
	}
	free(text);
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
	case KEY_REPO_CONTEXT: set_repo_context(ps, node); break;
	case KEY_CHECK: set_check(ps, node); break;
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
	size_t len = key->data.scalar.length, i;
	struct text_guess guess;
	char shown[64];

	text_guess_init(&guess, name, len);
	for (i = 0; i < NKEYS; i++)
		text_guess_try(&guess, key_names[i].name, i);
	clip(shown, sizeof(shown), memchr(name, '\0', len) ? "?" : name);
	if (text_guess_result(&guess))
		note(ps, line, false, "unknown key '%s' (did you mean '%s'?), ignored; known keys: %s",
		     shown, text_guess_result(&guess), KNOWN_KEYS);
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
	const char *local;
	size_t i;

	if (!rule->id && !ps->seen[KEY_ID])
		note(ps, 1, true, "no id: add one to the front matter, such as 'id: error-handling' "
		     "(letters, digits, '-', '_' and '.')");
	if (!rule->name && rule->id && !(rule->name = strdup(rule->id)))
		ps->error = error_nomem();
	rule->kind = ps->seen[KEY_PATTERN] || ps->seen[KEY_CHECK] ? RULE_LOCAL : RULE_LLM;
	local = ps->seen[KEY_PATTERN] ? "pattern" : "check";
	if (rule->kind == RULE_LOCAL && rule->model)
		note(ps, ps->seen[KEY_MODEL], false, "model is not used: a rule with a %s runs "
		     "locally, without the LLM", local);
	if (rule->kind == RULE_LOCAL && ps->seen[KEY_EFFORT])
		note(ps, ps->seen[KEY_EFFORT], false, "reasoning_effort is not used: a rule with a "
		     "%s runs locally, without the LLM", local);
	if (rule->kind == RULE_LOCAL && rule->ncontext)
		note(ps, ps->seen[KEY_CONTEXT], false, "%s is not used: a rule with a %s runs "
		     "locally, without the LLM", ps->seen_as[KEY_CONTEXT], local);
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

int rule_parse_at(struct rule *out, const char *path, const char *text, size_t len,
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
	/* Compiled once here, matched against every file of every check. */
	if (!ps.error && !ps.fatal && rule.npatterns)
		ps.error = glob_list_new(&rule.globs, (const char *const *)rule.patterns, rule.npatterns);
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
	return rule_parse_at(out, path, text, len, problems, NULL);
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
	glob_list_free(rule->globs);
	for (i = 0; i < rule->ncontext; i++)
		free(rule->context_files[i]);
	free(rule->context_files);
	free(rule->model);
	free(rule->reasoning_effort);
	free(rule->pattern);
	rule_pattern_free(rule);
	free(rule->body);
	free(rule->content);
	free(rule->path);
	memset(rule, 0, sizeof(*rule));
}
