/* ctags's JSON lines read within bounds, and the end lines ctags does not give. */
#include "tags.h"
#include "array.h"
#include "editwin_braces.h"
#include "status.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* --- tags ---------------------------------------------------------------------------- */

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* At most max bytes of s, cut where no UTF-8 sequence is split; control characters become spaces. */
static size_t text_len(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max)
		return n;
	while (max && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

static char *text_put(char *at, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		at[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? ' ' : s[i];
	at[n] = '\0';
	return at + n + 1;
}

int tag_list_add(struct tag_list *list, const char *name, const char *kind, const char *scope,
		 const char *signature, const char *language, uint32_t line, uint32_t end, unsigned flags)
{
	size_t nn, nk, ns, nsig, nl;
	struct tag *t;
	char *at;

	if (!name || !*name || strlen(name) > TAGS_NAME_MAX || has_control(name) || !kind || !*kind ||
	    strlen(kind) > TAGS_WORD_MAX || has_control(kind) || (language && strlen(language) > TAGS_WORD_MAX) ||
	    line < 1 || line > TAGS_LINE_NO_MAX)
		return error_set(RL_EPARSE, "not a tag within bounds");
	if (list->count >= TAGS_PER_FILE_MAX) {
		list->dropped++;
		return 0;
	}
	nn = strlen(name);
	nk = strlen(kind);
	ns = text_len(scope ? scope : "", TAGS_TEXT_MAX);
	nsig = text_len(signature ? signature : "", TAGS_TEXT_MAX);
	nl = text_len(language ? language : "", TAGS_WORD_MAX);
	if (ARRAY_GROW(list->items, list->alloc, list->count + 1) < 0)
		return -1;
	t = &list->items[list->count];
	if (!(t->name = malloc(nn + nk + ns + nsig + nl + 5)))
		return error_nomem();
	at = text_put(t->name, name, nn);
	t->kind = at;
	at = text_put(at, kind, nk);
	t->scope = at;
	at = text_put(at, scope ? scope : "", ns);
	t->signature = at;
	at = text_put(at, signature ? signature : "", nsig);
	t->language = at;
	text_put(at, language ? language : "", nl);
	t->line = line;
	t->end = end >= line && end <= TAGS_LINE_NO_MAX ? end : 0;
	t->flags = flags & TAG_FILE_SCOPE;
	list->count++;
	return 0;
}

void tag_list_release(struct tag_list *list)
{
	size_t i;

	for (i = 0; i < list->count; i++)
		free(list->items[i].name);
	free(list->items);
	memset(list, 0, sizeof(*list));
}

/* --- the reader ---------------------------------------------------------------------- */

static const char *string_of(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static uint32_t number_of(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	json_int_t n = json_is_integer(v) ? json_integer_value(v) : 0;

	return n > 0 && n <= TAGS_LINE_NO_MAX ? (uint32_t)n : 0;
}

static void tag_read(struct tags_reader *r, json_t *obj)
{
	const char *name = string_of(obj, "name");
	json_t *file = json_object_get(obj, "file");
	int error;

	error = tag_list_add(&r->tags, name, string_of(obj, "kind"), string_of(obj, "scope"),
			     string_of(obj, "signature"), string_of(obj, "language"), number_of(obj, "line"),
			     number_of(obj, "end"), json_is_true(file) ? TAG_FILE_SCOPE : 0);
	if (error < 0) {
		error_clear();
		r->tags.dropped++;
	}
}

/* One whole line of ctags. */
static int line_read(struct tags_reader *r, const char *s, size_t n, tags_done_fn *done, void *ctx)
{
	json_error_t jerr;
	json_t *obj = json_loadb(s, n, JSON_REJECT_DUPLICATES, &jerr);
	const char *type = json_is_object(obj) ? string_of(obj, "_type") : NULL;
	int error = 0;

	if (!type) {
		r->tags.dropped += n > 0;
	} else if (!strcmp(type, "tag")) {
		tag_read(r, obj);
	} else if (!strcmp(type, "completed")) {
		error = done(ctx, &r->tags, NULL);
		tag_list_release(&r->tags);
	} else if (!strcmp(type, "error")) {
		const char *message = string_of(obj, "message");
		char said[200];

		snprintf(said, sizeof(said), "ctags: %s", message ? message : "an error");
		error = done(ctx, &r->tags, said);
		tag_list_release(&r->tags);
	}
	json_decref(obj);
	return error;
}

int tags_reader_feed(struct tags_reader *r, const char *data, size_t len, tags_done_fn *done, void *ctx)
{
	const char *p = data, *e = data + len, *nl;
	int error = 0;

	while (p < e && !error) {
		nl = memchr(p, '\n', (size_t)(e - p));
		if (r->skipping) {
			p = nl ? nl + 1 : e;
			r->skipping = !nl;
			continue;
		}
		if (r->line.len + (size_t)((nl ? nl : e) - p) > TAGS_LINE_MAX) {
			buf_clear(&r->line);
			r->tags.dropped++;
			r->skipping = true;
			continue;
		}
		if (!nl) {
			error = buf_put(&r->line, p, (size_t)(e - p));
			break;
		}
		if (r->line.len) {
			if ((error = buf_put(&r->line, p, (size_t)(nl - p))) == 0)
				error = line_read(r, r->line.ptr, r->line.len, done, ctx);
			buf_clear(&r->line);
		} else {
			error = line_read(r, p, (size_t)(nl - p), done, ctx);
		}
		p = nl + 1;
	}
	return error;
}

void tags_reader_release(struct tags_reader *r)
{
	buf_release(&r->line);
	tag_list_release(&r->tags);
	r->skipping = false;
}

/* --- end lines -------------------------------------------------------------------------- */

static enum dialect dialect_of_language(const char *language)
{
	static const struct {
		const char *language;
		enum dialect dialect;
	} table[] = {
		{ "JavaScript", D_JS }, { "TypeScript", D_JS }, { "Rust", D_RUST }, { "C#", D_JAVA },
		{ "Kotlin", D_JAVA }, { "Scala", D_JAVA }, { "Swift", D_JAVA }, { "PHP", D_JAVA },
	};
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(*table); i++)
		if (!strcmp(table[i].language, language))
			return table[i].dialect;
	return D_NONE;
}

/* Kinds that have a body: a function's, a class's. */
static bool has_body(const char *kind)
{
	static const char *const kinds[] = {
		"function", "method", "class", "struct", "enum", "interface", "implementation", "trait", "module",
		"namespace", "constructor", "getter", "setter", "generator", "union", "object", "macro", NULL,
	};
	size_t i;

	for (i = 0; kinds[i]; i++)
		if (!strcmp(kinds[i], kind))
			return true;
	return false;
}

/*
 * The block a definition on line L opens: its head starts on L or before
 * and its '{' is on L or at most a few lines after (a signature over
 * several lines); the one that opens first, the outermost of those (of
 * the first 64 that open there). The scanner lists blocks in the order
 * they open.
 */
static int block_end(const struct braces *b, uint32_t line)
{
	int lo = 0, hi = b->count, i, best = -1;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (b->blocks[mid].open < (int)line)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < b->count && i < lo + 64 && b->blocks[i].open <= (int)line + 8; i++) {
		const struct block *k = &b->blocks[i];

		if (k->head > (int)line)
			continue;
		if (best < 0 || k->open < b->blocks[best].open ||
		    (k->open == b->blocks[best].open && k->close > b->blocks[best].close))
			best = i;
	}
	return best < 0 ? 0 : b->blocks[best].close;
}

int tags_fill_ends(struct tag_list *tags, const char *text, size_t len)
{
	struct text t = { 0 };
	struct braces b = { 0 };
	enum dialect d = D_NONE;
	size_t i;
	int error = 0;

	for (i = 0; i < tags->count && d == D_NONE; i++)
		if (!tags->items[i].end && has_body(tags->items[i].kind))
			d = dialect_of_language(tags->items[i].language);
	if (d == D_NONE)
		return 0;
	if ((error = text_init(&t, text, len)) < 0 || (error = braces_scan(&b, &t, d)) < 0)
		goto done;
	for (i = 0; i < tags->count; i++) {
		struct tag *tag = &tags->items[i];

		if (!tag->end && has_body(tag->kind) && dialect_of_language(tag->language) == d)
			tag->end = (uint32_t)block_end(&b, tag->line);
	}
done:
	braces_release(&b);
	free(t.at);
	return error;
}
