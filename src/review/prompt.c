#include "prompt.h"
#include "utf8.h"
#include "datadir.h"
#include "hash.h"
#include "status.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* The hex digits of a data block's tag, and how many tags are tried before giving up. */
#define DATA_TAG_HEX 12
#define DATA_TAG_TRIES 1000

struct render {
	const char *path;
	const char *text, *end;
	const struct prompt_var *vars;
	size_t count;
};

static const struct prompt_var *var_find(const struct render *r, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < r->count; i++)
		if (strlen(r->vars[i].name) == len && !memcmp(r->vars[i].name, name, len))
			return &r->vars[i];
	return NULL;
}

static bool var_empty(const struct prompt_var *v)
{
	return !v || !v->value || !*v->value;
}

static size_t line_of(const struct render *r, const char *at)
{
	size_t line = 1;
	const char *p;

	for (p = r->text; p < at; p++)
		if (*p == '\n')
			line++;
	return line;
}

static int render_error(const struct render *r, const char *at, const char *what, const char *name,
			size_t len)
{
	return error_set(RL_EPARSE, "%s:%zu: %s {{%.*s}}", r->path, line_of(r, at), what, (int)len, name);
}

/* The matching {{/name}} for a section opened before p, or NULL. */
static const char *section_end(const char *p, const char *end, const char *name, size_t len)
{
	int depth = 1;

	while ((p = memmem(p, (size_t)(end - p), "{{", 2))) {
		if ((p[2] == '#' || p[2] == '/') && (size_t)(end - p) >= len + 5 &&
		    !memcmp(p + 3, name, len) && !memcmp(p + 3 + len, "}}", 2)) {
			depth += p[2] == '#' ? 1 : -1;
			if (!depth)
				return p;
		}
		p += 2;
	}
	return NULL;
}

static int render_span(const struct render *r, struct buf *out, const char *p, const char *end);

/* Outside text in running text: one line, its line breaks and hidden characters made visible. */
static int data_inline(struct buf *out, const char *text)
{
	const char *p = text;
	size_t n;
	int error = 0;

	while (*p && !error) {
		n = strcspn(p, "\r\n");
		if ((error = utf8_reveal(out, p, n)) < 0 || !p[n])
			break;
		error = buf_puts(out, p[n] == '\n' ? "<U+000A>" : "<U+000D>");
		p += n + 1;
	}
	return error;
}

/* {{name}} of a variable: its value, or its outside text as a block (alone on its line) or inline. */
static int render_value(struct buf *out, const struct prompt_var *v, const char *next, const char *end)
{
	bool alone = (out->len == 0 || out->ptr[out->len - 1] == '\n') && (next == end || *next == '\n');

	if (var_empty(v))
		return 0;
	if (!v->data)
		return buf_puts(out, v->value);
	return alone ? prompt_data(out, v->data, v->value, strlen(v->value)) : data_inline(out, v->value);
}

/* {{name}}, {{#name}}...{{/name}} at p; *next is where the text goes on. */
static int render_tag(const struct render *r, struct buf *out, const char *p, const char *end,
		      const char **next)
{
	const char *close = memmem(p + 2, (size_t)(end - p - 2), "}}", 2), *name = p + 2, *stop;
	const struct prompt_var *v;
	bool section = *name == '#';
	size_t len;
	int error;

	if (!close)
		return render_error(r, p, "unclosed", "", 0);
	if (section || *name == '/')
		name++;
	len = (size_t)(close - name);
	v = var_find(r, name, len);
	if (!v)
		return render_error(r, p, "unknown placeholder", name, len);
	if (name[-1] == '/')
		return render_error(r, p, "no section opened for", name, len);
	if (!section) {
		*next = close + 2;
		return render_value(out, v, *next, end);
	}
	if (!(stop = section_end(close + 2, end, name, len)))
		return render_error(r, p, "unclosed section", name, len);
	*next = stop + len + 5;
	/* A section on lines of its own leaves no blank line behind. */
	if (**next == '\n' && (out->len == 0 || out->ptr[out->len - 1] == '\n'))
		(*next)++;
	if (var_empty(v))
		return 0;
	close += 2;
	if (*close == '\n')
		close++;
	if ((error = render_span(r, out, close, stop)) < 0)
		return error;
	return 0;
}

static int render_span(const struct render *r, struct buf *out, const char *p, const char *end)
{
	const char *tag;
	int error;

	while (p < end && (tag = memmem(p, (size_t)(end - p), "{{", 2))) {
		if ((error = buf_put(out, p, (size_t)(tag - p))) < 0 ||
		    (error = render_tag(r, out, tag, end, &p)) < 0)
			return error;
	}
	return p < end ? buf_put(out, p, (size_t)(end - p)) : 0;
}

static const char *marker(const char *text, size_t len, const char *name)
{
	const char *p = text, *end = text + len;
	size_t n = strlen(name);

	while ((p = memmem(p, (size_t)(end - p), name, n))) {
		if ((p == text || p[-1] == '\n') && (p + n == end || p[n] == '\n'))
			return p;
		p += n;
	}
	return NULL;
}

static void trim_blank_lines(struct buf *b)
{
	size_t start = 0;

	while (b->len && (b->ptr[b->len - 1] == '\n' || b->ptr[b->len - 1] == ' '))
		b->len--;
	while (start < b->len && b->ptr[start] == '\n')
		start++;
	if (start)
		memmove(b->ptr, b->ptr + start, b->len - start);
	b->len -= start;
	if (b->ptr)
		b->ptr[b->len] = '\0';
}

/*
 * A request is JSON, which takes only UTF-8: a diff of a Latin-1 file, or a
 * template saved so, is sent with its invalid bytes as U+FFFD rather than
 * failing the rule.
 */
static int make_valid(struct buf *b)
{
	struct buf clean = BUF_INIT;
	int error;

	if (!b->len || utf8_valid(b->ptr, b->len))
		return 0;
	if ((error = utf8_sanitize(&clean, b->ptr, b->len)) < 0) {
		buf_release(&clean);
		return error;
	}
	buf_release(b);
	*b = clean;
	return 0;
}

static int render_parts(struct buf *system, struct buf *user, struct buf *tail, const char *text,
			size_t len, const char *path, const struct prompt_var *vars, size_t count)
{
	struct render r = { path, text, text + len, vars, count };
	const char *sys = marker(text, len, "<<<system>>>"), *usr = marker(text, len, "<<<user>>>");
	const char *rule = marker(text, len, "<<<rule>>>"), *end = text + len;
	int error;

	if (!sys || !usr || usr < sys)
		return error_set(RL_EPARSE, "%s: a template needs a <<<system>>> line and then a "
				 "<<<user>>> line", path);
	if (rule && rule < usr)
		return error_set(RL_EPARSE, "%s: the <<<rule>>> line must come after the <<<user>>> line",
				 path);
	sys += strlen("<<<system>>>");
	if ((error = render_span(&r, system, sys, usr)) < 0 ||
	    (error = render_span(&r, user, usr + strlen("<<<user>>>"), rule ? rule : end)) < 0 ||
	    (rule && (error = render_span(&r, tail, rule + strlen("<<<rule>>>"), end)) < 0))
		return error;
	trim_blank_lines(system);
	trim_blank_lines(user);
	trim_blank_lines(tail);
	if ((error = make_valid(system)) < 0 || (error = make_valid(user)) < 0)
		return error;
	return make_valid(tail);
}

int prompt_render_text(struct buf *system, struct buf *user, const char *text, size_t len,
		       const char *path, const struct prompt_var *vars, size_t count)
{
	struct buf tail = BUF_INIT;
	int error = render_parts(system, user, &tail, text, len, path, vars, count);

	if (!error && tail.len)
		error = buf_printf(user, "%s%s", user->len ? "\n\n" : "", tail.ptr);
	buf_release(&tail);
	return error;
}

static int template_read(struct buf *text, struct buf *path, const char *name)
{
	struct buf file = BUF_INIT;
	int error;

	if ((error = buf_printf(&file, "%s.md", name)) == 0 &&
	    (error = datadir_file(path, "prompts", file.ptr)) == 0)
		error = buf_read_file(text, path->ptr);
	buf_release(&file);
	return error;
}

int prompt_render(struct buf *system, struct buf *user, const char *name,
		  const struct prompt_var *vars, size_t count)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	int error;

	if ((error = template_read(&text, &path, name)) == 0)
		error = prompt_render_text(system, user, text.ptr, text.len, path.ptr, vars, count);
	buf_release(&path);
	buf_release(&text);
	return error;
}

int prompt_render_parts(struct buf *system, struct buf *shared, struct buf *tail, const char *name,
			const struct prompt_var *vars, size_t count)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	int error;

	if ((error = template_read(&text, &path, name)) == 0)
		error = render_parts(system, shared, tail, text.ptr, text.len, path.ptr, vars, count);
	buf_release(&path);
	buf_release(&text);
	return error;
}

int prompt_fence(struct buf *out, const char *lang, const char *text, size_t len)
{
	size_t i, run = 0, longest = 0, fence;
	int error = 0;

	for (i = 0; i < len; i++) {
		run = text[i] == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	fence = longest >= 3 ? longest + 1 : 3;
	for (i = 0; i < fence && !error; i++)
		error = buf_putc(out, '`');
	if (!error && lang)
		error = buf_puts(out, lang);
	if (!error)
		error = buf_putc(out, '\n');
	if (!error)
		error = buf_put(out, text, len);
	if (!error && len && text[len - 1] != '\n')
		error = buf_putc(out, '\n');
	for (i = 0; i < fence && !error; i++)
		error = buf_putc(out, '`');
	if (!error)
		error = buf_putc(out, '\n');
	return error;
}

const char *prompt_language(const char *path)
{
	static const struct { const char *ext, *name; } langs[] = {
		{ ".py", "python" }, { ".pyi", "python" }, { ".c", "c" }, { ".h", "c" },
		{ ".cc", "cpp" }, { ".cpp", "cpp" }, { ".cxx", "cpp" }, { ".hpp", "cpp" },
		{ ".go", "go" }, { ".rs", "rust" }, { ".js", "javascript" }, { ".mjs", "javascript" },
		{ ".ts", "typescript" }, { ".tsx", "tsx" }, { ".java", "java" }, { ".sh", "bash" },
		{ ".bash", "bash" }, { ".rb", "ruby" },
	};
	const char *dot = strrchr(path, '.');
	size_t i;

	for (i = 0; dot && i < sizeof(langs) / sizeof(langs[0]); i++)
		if (!strcmp(dot, langs[i].ext))
			return langs[i].name;
	return "text";
}

/*
 * Whether text holds the tag's digits, in any case. The digits are lower
 * case hex: the comparison runs only where the first digit is, in either
 * case, each case found by memchr (the next of each kept, so that a text
 * full of the one never makes the other searched again).
 */
static bool holds_nocase(const char *text, size_t len, const char *digits)
{
	const char lower = digits[0], upper = (char)toupper((unsigned char)lower);
	const char *last, *next_lower, *next_upper, *at;

	if (len < DATA_TAG_HEX)
		return false;
	last = text + len - DATA_TAG_HEX;       /* the last place the digits can start */
	next_lower = memchr(text, lower, (size_t)(last - text) + 1);
	next_upper = upper != lower ? memchr(text, upper, (size_t)(last - text) + 1) : NULL;
	while (next_lower || next_upper) {
		at = !next_upper || (next_lower && next_lower < next_upper) ? next_lower : next_upper;
		if (!strncasecmp(at, digits, DATA_TAG_HEX))
			return true;
		if (at == next_lower)
			next_lower = at < last ? memchr(at + 1, lower, (size_t)(last - at)) : NULL;
		else
			next_upper = at < last ? memchr(at + 1, upper, (size_t)(last - at)) : NULL;
	}
	return false;
}

/* The tag's digits: the text's SHA-1, then the SHA-1 of the digits while the text holds them. */
static int data_tag(char digits[HASH_HEX_SIZE], const char *text, size_t len)
{
	struct hash_part part = { text, len };
	int i;

	if (hash_blob(digits, &part, 1) < 0)
		return error_set(RL_ERROR, "cannot hash a prompt's data block");
	for (i = 0; i < DATA_TAG_TRIES; i++) {
		digits[DATA_TAG_HEX] = '\0';
		if (!holds_nocase(text, len, digits))
			return 0;
		part = (struct hash_part){ digits, DATA_TAG_HEX };
		if (hash_blob(digits, &part, 1) < 0)
			break;
	}
	return error_set(RL_ERROR, "no tag found that a prompt's data block does not hold");
}

int prompt_data(struct buf *out, const char *source, const char *text, size_t len)
{
	char digits[HASH_HEX_SIZE];
	int error;

	if ((error = data_tag(digits, text, len)) < 0 ||
	    (error = buf_printf(out, "<" PROMPT_DATA_TAG "%s source=\"%s\">\n", digits, source)) < 0 ||
	    (error = buf_put(out, text, len)) < 0 ||
	    (len && text[len - 1] != '\n' && (error = buf_putc(out, '\n')) < 0))
		return error;
	return buf_printf(out, "</" PROMPT_DATA_TAG "%s>", digits);
}
