/*
 * Feedback on findings and fixes, the suppression of findings marked false
 * positive, and the retrieval of past feedback for a rule's prompt: the
 * retrieval seed's multi-signal query, ranked by SQLite FTS5's BM25 instead
 * of embeddings, so that it works offline and with no model.
 */
#include "feedback.h"
#include "store_feedback.h"
#include "array.h"
#include "check.h"
#include "deps.h"
#include "prompt.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * The query's limits: terms enough to rank by, few enough that BM25 over
 * them stays cheap and a huge change does not make a huge query.
 */
#define QUERY_MAX 1024          /* bytes */
#define QUERY_TERMS 64
#define TERM_MAX 64             /* a longer word is generated or minified code, not a name */
#define PATH_TERMS 16
#define IDENT_TERMS 12
#define WORDS_MAX 100000        /* identifiers looked at over all added lines */

#define FP_EXAMPLES 3
#define ACCEPT_EXAMPLES 2

static bool kind_on_finding(enum feedback_kind kind)
{
	return kind == FEEDBACK_FALSE_POSITIVE || kind == FEEDBACK_ACCEPT || kind == FEEDBACK_REJECT;
}

/* An empty note is no note. */
static const char *note_or_null(const char *note)
{
	return note && *note ? note : NULL;
}

int feedback_on_finding(int64_t *id, struct store *store, int64_t finding_id,
			enum feedback_kind kind, const char *note)
{
	*id = 0;
	if (!kind_on_finding(kind))
		return error_set(RL_EUSAGE, "feedback on a finding is false_positive, accept or reject, "
				 "not %s", feedback_kind_name(kind));
	return store_feedback_on_finding(id, store, finding_id, kind, note_or_null(note));
}

int feedback_on_fix(int64_t *id, struct store *store, int64_t fix_id, bool correct,
		    const char *note)
{
	enum feedback_kind kind = correct ? FEEDBACK_FIX_CORRECT : FEEDBACK_FIX_INCORRECT;

	return store_feedback_on_fix(id, store, fix_id, kind, note_or_null(note));
}

int feedback_describe(struct buf *out, struct store *store, int64_t id)
{
	return store_feedback_describe(out, store, id);
}

int feedback_suppressed(bool *out, struct store *store, const char *fingerprint)
{
	*out = false;
	if (!fingerprint || !*fingerprint)
		return 0;
	return store_feedback_false_positives(out, store, &fingerprint, 1);
}

int feedback_suppress(struct store *store, struct finding *findings, size_t count)
{
	const char **fps = calloc(count ? count : 1, sizeof(*fps));
	bool *fp = calloc(count ? count : 1, sizeof(*fp));
	size_t *at = calloc(count ? count : 1, sizeof(*at));
	size_t i, n = 0;
	int error = 0;

	if (!fps || !fp || !at) {
		error = error_nomem();
		goto done;
	}
	for (i = 0; i < count; i++)
		if (!findings[i].suppressed && findings[i].fingerprint[0]) {
			fps[n] = findings[i].fingerprint;
			at[n++] = i;
		}
	if (n && (error = store_feedback_false_positives(fp, store, fps, n)) == 0)
		for (i = 0; i < n; i++)
			findings[at[i]].suppressed = fp[i];
done:
	free(fps);
	free(fp);
	free(at);
	return error;
}

/* Languages by extension: signal 2 of the query, and the fence of an example's code. */
static const struct language {
	const char *ext, *name;
} languages[] = {
	{ "c", "c" }, { "h", "c" }, { "cc", "cpp" }, { "cpp", "cpp" }, { "cxx", "cpp" },
	{ "hh", "cpp" }, { "hpp", "cpp" }, { "hxx", "cpp" }, { "py", "python" }, { "pyi", "python" },
	{ "ts", "typescript" }, { "tsx", "typescript" }, { "mts", "typescript" },
	{ "js", "javascript" }, { "jsx", "javascript" }, { "mjs", "javascript" },
	{ "cjs", "javascript" }, { "go", "go" }, { "rs", "rust" }, { "java", "java" },
	{ "kt", "kotlin" }, { "kts", "kotlin" }, { "scala", "scala" }, { "rb", "ruby" },
	{ "sh", "shell" }, { "bash", "shell" }, { "zsh", "shell" }, { "php", "php" },
	{ "cs", "csharp" }, { "swift", "swift" }, { "m", "objc" }, { "mm", "objc" },
	{ "lua", "lua" }, { "pl", "perl" }, { "pm", "perl" }, { "ex", "elixir" },
	{ "exs", "elixir" }, { "erl", "erlang" }, { "hs", "haskell" }, { "ml", "ocaml" },
	{ "dart", "dart" }, { "sql", "sql" }, { "html", "html" }, { "css", "css" },
	{ "scss", "css" }, { "vue", "vue" }, { "yaml", "yaml" }, { "yml", "yaml" },
	{ "json", "json" }, { "toml", "toml" }, { "md", "markdown" },
};

/* The extension of a path's base name (after its last dot, a leading dot excepted), or NULL. */
static const char *path_ext(const char *path, size_t *len)
{
	const char *base = strrchr(path, '/'), *dot;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (!dot || dot == base || !dot[1])
		return NULL;
	*len = strlen(dot + 1);
	return dot + 1;
}

static const struct language *language_of(const char *path)
{
	size_t i, len = 0;
	const char *ext = path ? path_ext(path, &len) : NULL;

	for (i = 0; ext && i < sizeof(languages) / sizeof(languages[0]); i++)
		if (strlen(languages[i].ext) == len && !strncasecmp(ext, languages[i].ext, len))
			return &languages[i];
	return NULL;
}

/*
 * Keywords of the common languages and words too common to tell one change
 * from another (three letters or more: shorter words are never terms).
 */
static const char *const stop_words[] = {
	/* C and C++ */
	"auto", "bool", "break", "case", "char", "const", "continue", "default", "define",
	"double", "else", "endif", "enum", "extern", "float", "for", "goto", "ifdef", "ifndef",
	"include", "inline", "int", "long", "null", "register", "restrict", "return", "short",
	"signed", "size_t", "sizeof", "static", "struct", "switch", "typedef", "uint", "union",
	"unsigned", "void", "volatile", "while", "nullptr", "namespace", "template", "typename",
	"virtual", "delete", "new", "std", "pragma", "undef",
	/* Python */
	"and", "assert", "async", "await", "class", "cls", "def", "del", "elif", "except",
	"false", "finally", "from", "global", "import", "lambda", "none", "nonlocal", "not",
	"pass", "print", "raise", "self", "true", "try", "with", "yield", "len", "str", "dict",
	"list", "tuple", "object", "kwargs", "args",
	/* JavaScript and TypeScript */
	"abstract", "any", "boolean", "catch", "console", "constructor", "debugger", "declare",
	"export", "extends", "function", "get", "implements", "instanceof", "interface", "keyof",
	"let", "module", "never", "number", "private", "protected", "public", "readonly",
	"require", "set", "string", "super", "symbol", "this", "throw", "type", "typeof",
	"undefined", "unknown", "var", "log",
	/* Go */
	"chan", "defer", "err", "error", "fallthrough", "func", "map", "nil", "package",
	"range", "rune", "byte", "select", "fmt",
	/* Rust */
	"crate", "dyn", "impl", "loop", "match", "mod", "move", "mut", "pub", "ref", "trait",
	"unsafe", "use", "where", "some", "box", "vec", "usize", "isize", "u16", "u32", "u64",
	"i16", "i32", "i64", "f32", "f64", "u128", "i128", "unwrap",
	/* Java */
	"final", "native", "override", "strictfp", "synchronized", "throws", "transient",
	/* Ruby */
	"alias", "begin", "defined", "end", "ensure", "elsif", "next", "puts", "redo", "rescue",
	"retry", "then", "unless", "until", "when", "attr_accessor", "attr_reader",
	/* Shell */
	"done", "esac", "echo", "exit", "local", "shift", "unset",
	/* Common words */
	"the", "that", "are", "was", "but", "you", "your", "all", "can", "has", "have", "into",
	"its", "our", "out", "used", "using", "old", "add", "one", "two", "than", "also", "only",
	"just", "more", "most", "other", "each", "which", "will", "would", "should", "could",
	"there", "their", "they", "them", "these", "those", "what", "who", "why", "how", "may",
	"must", "about", "after", "before", "over", "under", "between", "because", "been",
	"being", "does", "here", "like", "make", "made", "need", "via", "per", "etc", "todo",
	"fixme", "xxx", "http", "https", "www", "com", "value", "data", "result", "tmp",
};

static bool stop_word(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(stop_words) / sizeof(stop_words[0]); i++)
		if (strlen(stop_words[i]) == len && !strncasecmp(s, stop_words[i], len))
			return true;
	return false;
}

/* The query being built: its text and its terms so far, to skip a term given twice. */
struct query {
	struct buf *out;
	struct { const char *text; size_t len; } terms[QUERY_TERMS];
	size_t nterms;
};

/* Not <ctype.h>: its answers for bytes over 127 depend on the locale. */
static bool ascii_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool ascii_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool ascii_alnum(unsigned char c)
{
	return ascii_alpha(c) || ascii_digit(c);
}

/* Whether FTS5's tokenizer would find a token in it (a letter, a digit, '_' or any non-ASCII). */
static bool has_token(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (ascii_alnum((unsigned char)s[i]) || s[i] == '_' || (unsigned char)s[i] >= 0x80)
			return true;
	return false;
}

static bool query_has(const struct query *q, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < q->nterms; i++)
		if (q->terms[i].len == len && !strncasecmp(q->terms[i].text, s, len))
			return true;
	return false;
}

/*
 * Add a term as an FTS5 string, "term", a double quote in it doubled, so
 * that no term is read as FTS5 syntax. 1 when added, 0 when left out (a
 * repeat, too long, nothing FTS5 would index, or no room left).
 */
static int query_add(struct query *q, const char *s, size_t len)
{
	size_t i, quotes = 0;
	int error;

	if (!len || len > TERM_MAX || !has_token(s, len) || q->nterms == QUERY_TERMS ||
	    query_has(q, s, len))
		return 0;
	for (i = 0; i < len; i++)
		quotes += s[i] == '"';
	if (q->out->len + 4 + len + quotes + 2 > QUERY_MAX)
		return 0;
	if ((q->nterms && (error = buf_puts(q->out, " OR ")) < 0) || (error = buf_putc(q->out, '"')) < 0)
		return error;
	for (i = 0; i < len; i++)
		if ((error = buf_putc(q->out, s[i])) < 0 || (s[i] == '"' && (error = buf_putc(q->out, '"')) < 0))
			return error;
	if ((error = buf_putc(q->out, '"')) < 0)
		return error;
	q->terms[q->nterms].text = s;
	q->terms[q->nterms++].len = len;
	return 1;
}

/* Signal 1: each file's directory names, then its base name without the extension. */
static int paths_signal(struct query *q, struct diff *diff, const size_t *files, size_t n)
{
	size_t i, added = 0, len, elen;
	const char *p, *slash;
	int rc;

	for (i = 0; i < n; i++) {
		for (p = diff->files[files[i]].path; ; p = slash + 1) {
			if (!(slash = strchr(p, '/')))
				break;
			if ((rc = query_add(q, p, (size_t)(slash - p))) < 0)
				return rc;
			if ((added += (size_t)rc) == PATH_TERMS)
				return 0;
		}
		len = strlen(p);
		if (path_ext(p, &elen))
			len -= elen + 1;
		if ((rc = query_add(q, p, len)) < 0)
			return rc;
		if ((added += (size_t)rc) == PATH_TERMS)
			return 0;
	}
	return 0;
}

/* Signal 2: the language of each file and its extension, which is what a stored path holds. */
static int languages_signal(struct query *q, struct diff *diff, const size_t *files, size_t n)
{
	const struct language *lang;
	const char *ext;
	size_t i, len = 0;
	int rc;

	for (i = 0; i < n; i++) {
		if (!(lang = language_of(diff->files[files[i]].path)))
			continue;
		ext = path_ext(diff->files[files[i]].path, &len);
		if ((rc = query_add(q, lang->name, strlen(lang->name))) < 0 ||
		    (rc = query_add(q, ext, len)) < 0)
			return rc;
	}
	return 0;
}

/* One identifier seen on added lines; after counting, one per spelling (case aside). */
struct word {
	const char *text;
	uint32_t len;
	uint32_t first;         /* where it first appeared: ties go to the earlier */
	uint32_t count;
};

struct words {
	struct word *items;
	size_t count, alloc;
};

static int words_add(struct words *w, const char *s, size_t len)
{
	int error;

	if ((error = ARRAY_GROW(w->items, w->alloc, w->count + 1)) < 0)
		return error;
	w->items[w->count] = (struct word){ s, (uint32_t)len, (uint32_t)w->count, 1 };
	w->count++;
	return 0;
}

static bool word_byte(unsigned char c)
{
	return ascii_alnum(c) || c == '_' || c >= 0x80;
}

static bool has_letter(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (ascii_alpha((unsigned char)s[i]))
			return true;
	return false;
}

/*
 * The identifiers of a line: [A-Za-z_][A-Za-z0-9_]{2,} taken as whole
 * words, so that no piece of a longer word (a number's tail, a name with
 * non-ASCII letters) counts as one.
 */
static int words_scan(struct words *w, const char *s, size_t len)
{
	size_t i = 0, start;
	bool ascii;
	int error;

	while (i < len && w->count < WORDS_MAX) {
		if (!word_byte((unsigned char)s[i])) {
			i++;
			continue;
		}
		for (start = i, ascii = true; i < len && word_byte((unsigned char)s[i]); i++)
			ascii &= (unsigned char)s[i] < 0x80;
		if (ascii && i - start >= 3 && i - start <= TERM_MAX && !ascii_digit((unsigned char)s[start]) &&
		    has_letter(s + start, i - start) && (error = words_add(w, s + start, i - start)) < 0)
			return error;
	}
	return 0;
}

static int word_text_cmp(const struct word *a, const struct word *b)
{
	int c = strncasecmp(a->text, b->text, a->len < b->len ? a->len : b->len);

	return c ? c : (a->len > b->len) - (a->len < b->len);
}

static int cmp_text(const void *x, const void *y)
{
	const struct word *a = x, *b = y;
	int c = word_text_cmp(a, b);

	return c ? c : (a->first > b->first) - (a->first < b->first);
}

static int cmp_count(const void *x, const void *y)
{
	const struct word *a = x, *b = y;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return (a->first > b->first) - (a->first < b->first);
}

/* Occurrences into counts, most used first; FTS5 folds case, so counting does too. */
static void words_count(struct words *w)
{
	size_t i, k = 0;

	if (!w->count)
		return;
	qsort(w->items, w->count, sizeof(*w->items), cmp_text);
	for (i = 1; i < w->count; i++) {
		if (!word_text_cmp(&w->items[k], &w->items[i]))
			w->items[k].count++;
		else
			w->items[++k] = w->items[i];
	}
	w->count = k + 1;
	qsort(w->items, w->count, sizeof(*w->items), cmp_count);
}

/* Signal 3: the identifiers most used on the added lines, keywords and common words aside. */
static int identifiers_signal(struct query *q, struct diff *diff, const size_t *files, size_t n)
{
	struct words w = { 0 };
	size_t i, l, added = 0;
	int error = 0, rc;

	for (i = 0; i < n && !error; i++) {
		const struct diff_file *f = &diff->files[files[i]];

		for (l = 0; l < f->nlines && !error; l++)
			if (f->lines[l].origin == '+')
				error = words_scan(&w, f->lines[l].text, f->lines[l].len);
	}
	if (error)
		goto done;
	words_count(&w);
	for (i = 0; i < w.count && added < IDENT_TERMS; i++) {
		if (stop_word(w.items[i].text, w.items[i].len))
			continue;
		if ((rc = query_add(q, w.items[i].text, w.items[i].len)) < 0) {
			error = rc;
			goto done;
		}
		added += (size_t)rc;
	}
done:
	free(w.items);
	return error;
}

static bool applies(const struct rule *rule, const struct diff_file *f)
{
	if (!rule)
		return true;
	return rule_applies(rule, f->path) ||
		(f->old_path && strcmp(f->old_path, f->path) && rule_applies(rule, f->old_path));
}

/*
 * The files the rule looks at, as a check sends them: those it applies to,
 * neither lock files nor binary (known once the file is loaded).
 */
static int wanted_files(size_t **out, size_t *count, struct diff *diff, const struct rule *rule)
{
	size_t i;
	int error;

	*count = 0;
	if (!(*out = calloc(diff->nfiles ? diff->nfiles : 1, sizeof(**out))))
		return error_nomem();
	for (i = 0; i < diff->nfiles; i++) {
		if (deps_is_lock_file(diff->files[i].path) || !applies(rule, &diff->files[i]))
			continue;
		if ((error = diff_file_load(diff, i)) < 0)
			return error;
		if (!(diff->files[i].flags & DIFF_FILE_BINARY))
			(*out)[(*count)++] = i;
	}
	return 0;
}

/*
 * The signals, in this order (the retrieval seed's Feature 3, with the
 * change's own text in place of the PR title):
 *
 *   1. paths: for each file, its directory names and its base name without
 *      the extension ("src/auth/jwt_check.py": src, auth, jwt_check), at
 *      most 16 terms, so that feedback on nearby files ranks high;
 *   2. language: for each file of a known language, the language's name
 *      and the file's extension ("python", "py"): the name matches what
 *      feedback says, the extension matches the paths it was given on;
 *   3. identifiers: the 12 words most used on the added lines that look
 *      like identifiers ([A-Za-z_][A-Za-z0-9_]{2,}), keywords of the common
 *      languages and very common words left out; ties go to the first seen.
 *
 * Files are those a check would send with the rule: matching its
 * patterns, neither binary nor lock files. A term appears once (FTS5 folds
 * case, so does the comparison); a term over 64 bytes is left out, and so
 * is any term that would take the query past 1024 bytes.
 */
int feedback_query(struct buf *out, struct diff *diff, const struct rule *rule)
{
	struct query q = { .out = out };
	size_t *files = NULL, n = 0;
	int error;

	buf_clear(out);
	if ((error = buf_put(out, "", 0)) < 0 || !diff)
		return error;
	if (!(error = wanted_files(&files, &n, diff, rule)) &&
	    !(error = paths_signal(&q, diff, files, n)) &&
	    !(error = languages_signal(&q, diff, files, n)))
		error = identifiers_signal(&q, diff, files, n);
	free(files);
	if (error)
		buf_clear(out);
	return error;
}

int feedback_examples(struct feedback_example **out, size_t *count, struct store *store,
		      const char *rule_id, enum feedback_kind kind, const char *query, size_t max)
{
	struct feedback_examples list = { .kind = kind, .max = max };
	int error;

	*out = NULL;
	*count = 0;
	if ((error = store_feedback_similar(&list, 1, store, rule_id, query)) < 0)
		return error;
	*out = list.items;
	*count = list.count;
	return 0;
}

static int example_put(struct buf *out, const struct feedback_example *e)
{
	const struct language *lang = language_of(e->file);
	int error = buf_putc(out, '\n');

	if (!error && e->file)
		error = buf_printf(out, "File: %s\n", e->file);
	if (!error && e->title)
		error = buf_printf(out, "Title: %s\n", e->title);
	if (!error && e->issue)
		error = buf_printf(out, "Issue: %s\n", e->issue);
	if (!error && e->note)
		error = buf_printf(out, "Reviewer's note: %s\n", e->note);
	if (!error && e->code && *e->code)
		error = prompt_fence(out, lang ? lang->name : NULL, e->code, strlen(e->code));
	return error;
}

static int section_put(struct buf *out, const char *heading, const struct feedback_examples *ex)
{
	size_t i;
	int error;

	if (!ex->count)
		return 0;
	if ((out->len && (error = buf_putc(out, '\n')) < 0) || (error = buf_puts(out, heading)) < 0)
		return error;
	for (i = 0; i < ex->count && !error; i++)
		error = example_put(out, &ex->items[i]);
	return error;
}

int feedback_prompt_examples(struct buf *out, struct store *store, struct diff *diff,
			     const struct rule *rule)
{
	struct feedback_examples lists[] = {
		{ .kind = FEEDBACK_FALSE_POSITIVE, .max = FP_EXAMPLES },
		{ .kind = FEEDBACK_ACCEPT, .max = ACCEPT_EXAMPLES },
	};
	struct buf query = BUF_INIT;
	bool any;
	int error;

	buf_clear(out);
	if ((error = buf_put(out, "", 0)) < 0 || !rule || !rule->id)
		return error;
	/* The query reads every added line of the rule's files: not made for a rule nobody gave feedback on. */
	if ((error = store_feedback_any(&any, store, rule->id)) < 0 || !any)
		return error;
	/* Both kinds in one transaction, so that they agree with each other. */
	if ((error = feedback_query(&query, diff, rule)) < 0 ||
	    (error = store_feedback_similar(lists, 2, store, rule->id, query.ptr)) < 0)
		goto done;
	if (!(error = section_put(out, "Findings of this rule that reviewers marked as false "
				  "positives; do not report findings like these:\n", &lists[0])))
		error = section_put(out, "Findings of this rule that reviewers confirmed; keep "
				    "reporting problems like these:\n", &lists[1]);
done:
	feedback_examples_release(&lists[0]);
	feedback_examples_release(&lists[1]);
	buf_release(&query);
	if (error)
		buf_clear(out);
	return error;
}
