/* Edit windows: brace languages, read once for their braces. */
#include "editwin_braces.h"
#include "array.h"

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
	int error;

	if ((error = ARRAY_GROW(b->blocks, b->alloc, (size_t)b->count + 1)) < 0)
		return error;
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

int braces_scan(struct braces *b, const struct text *t, enum dialect d)
{
	b->t = t;
	b->d = d;
	if (!(b->code = calloc((size_t)t->n + 2, sizeof(bool))))
		return error_nomem();
	return braces_lex(b);
}

void braces_release(struct braces *b)
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

bool brace_function(const struct braces *b, int line, int *first, int *last)
{
	int k = brace_function_block(b, line);

	if (k < 0)
		return false;
	*first = b->blocks[k].head;
	*last = b->blocks[k].close;
	return true;
}

bool brace_signature(const struct braces *b, int line, int *first, int *last)
{
	int k = brace_function_block(b, line);

	if (k < 0)
		return false;
	*first = b->blocks[k].head;
	*last = b->blocks[k].open;
	return true;
}

/* The try that holds line L, with its catch and finally blocks, inside L's function. */
bool brace_try(const struct braces *b, int line, int *first, int *last)
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

bool brace_has_text(const char *p, const char *e, const char *needle)
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
		return brace_has_text(p, e, "crate") ? IMP_IMPORT : IMP_OTHER;
	if (word_is(p, e, "import") || word_is(p, e, "use") ||
	    (word_is(p, e, "pub") && brace_has_text(p, e, " use ")) ||
	    (word_is(p, e, "export") && brace_has_text(p, e, " from ")) ||
	    ((word_is(p, e, "const") || word_is(p, e, "let") || word_is(p, e, "var")) &&
	     brace_has_text(p, e, "require(")))
		return IMP_IMPORT;
	if (word_is(p, e, "package") || (p < e && (*p == '"' || *p == '\'')))
		return IMP_PREAMBLE;
	if (b->d == D_RUST && (brace_has_text(p, e, "#[") || brace_has_text(p, e, "#![") ||
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
bool brace_top_imports(const struct braces *b, int *first, int *last)
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

bool brace_imports_window(const struct braces *b, int line, int *first, int *last)
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

