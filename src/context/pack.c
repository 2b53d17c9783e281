/* The context pack of a check: callers, definitions used, enclosing functions, ranked and rendered (pack.h). */
#include "pack.h"
#include "pack_state.h"
#include "array.h"
#include "clock.h"
#include "diff.h"
#include "index.h"
#include "prompt.h"
#include "refs.h"
#include "status.h"
#include "words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A definition used: its first lines at most. */
#define DEFINITION_LINES 10
/* Definitions of one name past which it is too common to say which is meant. */
#define AMBIGUOUS 3

const char *pack_kind_name(enum pack_kind kind)
{
	return kind == PACK_CALLERS ? "callers" : kind == PACK_ENCLOSING ? "enclosing" : "definition";
}

const char *pack_change_words(enum pack_change change)
{
	static const char *const words[] = {
		[CHANGE_REMOVED] = "it is gone or renamed", [CHANGE_SIGNATURE] = "its signature changed",
		[CHANGE_ADDED] = "it is new", [CHANGE_BODY] = "its body changed",
	};

	return words[change];
}

/* --- files' lines ---------------------------------------------------------- */

/* starts[k] is where line k + 1 begins, starts[nlines] where the last ends. */
static int text_split(struct pack_text_file *t)
{
	size_t n = 0, alloc = 0, len = t->content.len;
	const char *p = t->content.ptr, *end = len ? p + len : p, *nl;

	if (ARRAY_GROW(t->starts, alloc, 1) < 0)
		return RL_ENOMEM;
	t->starts[n++] = 0;
	for (; len && (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1) {
		if (ARRAY_GROW(t->starts, alloc, n + 1) < 0)
			return RL_ENOMEM;
		t->starts[n++] = (uint32_t)(nl + 1 - t->content.ptr);
	}
	if (len && t->content.ptr[len - 1] != '\n') {
		if (ARRAY_GROW(t->starts, alloc, n + 1) < 0)
			return RL_ENOMEM;
		t->starts[n++] = (uint32_t)len;
	}
	t->nlines = (uint32_t)(n - 1);
	return 0;
}

static void text_release(struct pack_text_file *t)
{
	buf_release(&t->content);
	free(t->starts);
	memset(t, 0, sizeof(*t));
}

/*
 * The file's lines, read now or before; NULL when it cannot be read (not
 * readable, changed since). PACK_TEXTS_MAX are kept, the least recently
 * used given up first: the diff's files are visited in turn, each asking
 * for its old and its new side line after line.
 */
const struct pack_text_file *pack_text_of(struct pack_builder *b, const struct index *index,
					   const struct index_file *f)
{
	struct pack_text_file *t = NULL;
	size_t i;

	for (i = 0; i < b->ntexts; i++)
		if (b->texts[i].file == f) {
			b->texts[i].used = ++b->clock;
			return &b->texts[i];
		}
	if (!index_file_readable(f))
		return NULL;
	/* A free slot (one whose file could not be read), a new one, or the least recently used. */
	for (i = 0; i < b->ntexts && !t; i++)
		if (!b->texts[i].file)
			t = &b->texts[i];
	if (!t && b->ntexts < PACK_TEXTS_MAX)
		t = &b->texts[b->ntexts++];
	if (!t)
		for (t = &b->texts[0], i = 1; i < b->ntexts; i++)
			if (b->texts[i].used < t->used)
				t = &b->texts[i];
	text_release(t);
	if (index_file_read(&t->content, index, f) < 0 || text_split(t) < 0) {
		error_clear();
		text_release(t);
		return NULL;
	}
	t->file = f;
	t->used = ++b->clock;
	return t;
}

/* Lines first..last (from 1, clamped) with their numbers; "...": a gap before them. */
int pack_lines_put(struct buf *out, const struct pack_text_file *t, uint32_t first, uint32_t last, bool gap)
{
	uint32_t l;
	int error = 0;

	if (last > t->nlines)
		last = t->nlines;
	if (gap)
		error = buf_puts(out, "...\n");
	for (l = first ? first : 1; l <= last && !error; l++) {
		size_t len = t->starts[l] - t->starts[l - 1];
		const char *p = t->content.ptr + t->starts[l - 1];

		while (len && (p[len - 1] == '\n' || p[len - 1] == '\r'))
			len--;
		error = buf_printf(out, "%5u  %.*s\n", l, (int)len, p);
	}
	return error;
}

/* --- the definitions the change touches --------------------------------------- */

/* A definition of a type, a class, a macro, a constant: what other code names. */
static bool names_a_type(const struct def *d)
{
	static const char *const kinds[] = { "class", "struct", "union", "enum", "interface", "trait", "typedef",
					     "type", "macro", "module", "namespace", "constant", "define" };
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(d->kind, kinds[i]))
			return true;
	return false;
}

/* Only what others use by name is looked up: a callable, a type, a macro; a plain variable when it is gone. */
static bool worth_callers(const struct def *d, enum pack_change change)
{
	if (strlen(d->name) < 3)
		return false;
	if (d->flags & DEF_CALLABLE)
		return true;
	if (names_a_type(d))
		return change != CHANGE_BODY;
	return change == CHANGE_REMOVED;
}

bool pack_same_language(const char *a, const char *b)
{
	const char *la = prompt_language(a);

	return strcmp(la, "text") && !strcmp(la, prompt_language(b));
}

/*
 * A definition worth showing to a line that names it: a callable or a type
 * (not a struct's member, a local, a variable of the same name), in the
 * line's own language (not a shell script's variable for a C file).
 */
static bool worth_showing(const struct def *d, const char *path)
{
	return ((d->flags & DEF_CALLABLE) || names_a_type(d)) && pack_same_language(d->file->path, path);
}

static bool defined_in(const struct index *index, const char *name, const char *path)
{
	const struct def *const *defs;
	size_t i, n = 0;

	if (!index)
		return false;
	defs = index_lookup(index, name, &n);
	for (i = 0; i < n; i++)
		if (!strcmp(defs[i]->file->path, path))
			return true;
	return false;
}

/* A touched definition, kept with the change that matters most (the lowest); *out NULL when it is not kept. */
static int changed_add(struct pack_changed **out, struct pack_builder *b, const struct def *d,
		       enum pack_change change, size_t origin)
{
	size_t i;

	*out = NULL;
	if (!worth_callers(d, change))
		return 0;
	for (i = 0; i < b->nchanged; i++)
		if (!strcmp(b->changed[i].name, d->name)) {
			if (change < b->changed[i].change)
				b->changed[i].change = change;
			*out = &b->changed[i];
			return 0;
		}
	if (b->nchanged == PACK_CHANGED_MAX)
		return 0;
	if (ARRAY_GROW(b->changed, b->changed_alloc, b->nchanged + 1) < 0)
		return RL_ENOMEM;
	b->changed[b->nchanged] = (struct pack_changed){ d->name, d->file->path, change, origin,
							 (d->flags & DEF_FILE_SCOPE) != 0, STRINGS_INIT, STRINGS_INIT };
	*out = &b->changed[b->nchanged++];
	return 0;
}

/* A header line's words, kept as removed or added ones. */
static int header_words(struct strings *into, const struct diff_line *line)
{
	const char *p = line->text, *e = p + line->len, *word;
	char one[WORDS_MAX + 1];
	size_t len;
	int error = 0;

	while (!error && into->count < 64 && (len = words_next(&p, e, &word))) {
		if (len < 3)
			continue;
		memcpy(one, word, len);
		one[len] = '\0';
		error = strings_add_unique(into, one);
	}
	return error;
}

bool pack_changed_gone(const struct pack_changed *c, const char *word, size_t len)
{
	size_t i;

	for (i = 0; i < c->removed.count; i++)
		if (strlen(c->removed.items[i]) == len && !memcmp(c->removed.items[i], word, len) &&
		    !strings_has(&c->added, c->removed.items[i]) && strcmp(c->removed.items[i], c->name))
			return true;
	return false;
}

/* A line in a touched definition: the change kept, and a header's words. */
static int touched(struct pack_builder *b, const struct def *d, enum pack_change change, size_t origin,
		   const struct diff_line *line, bool header)
{
	struct pack_changed *c;
	int error = changed_add(&c, b, d, change, origin);

	if (error < 0 || !c || !header)
		return error;
	return header_words(line->origin == '-' ? &c->removed : &c->added, line);
}

/* Whether a header's line ends it: a block opens (':' in Python, '{'), or a declaration ends (';'). */
static bool header_ends(const char *p, size_t len)
{
	while (len && strchr(" \t\r", p[len - 1]))
		len--;
	return !len || p[len - 1] == ':' || p[len - 1] == ';' || memchr(p, '{', len);
}

/*
 * Whether a line is in a definition's header (its signature, over as many
 * lines as its parameters take): from the definition's line to the one
 * that opens its body, HEADER_MAX lines at most.
 */
#define HEADER_MAX 24
static bool in_header(struct pack_builder *b, const struct index *index, const struct def *d, uint32_t line)
{
	const struct pack_text_file *t;
	uint32_t l;

	if (line == d->line)
		return true;
	if (line < d->line || line >= d->line + HEADER_MAX || !(t = pack_text_of(b, index, d->file)))
		return false;
	for (l = d->line; l < line && l <= t->nlines; l++)
		if (header_ends(t->content.ptr + t->starts[l - 1], t->starts[l] - t->starts[l - 1]))
			return false;
	return line <= t->nlines;
}

/* What an added or removed line tells of the definition around it. */
static int line_touches(struct pack_builder *b, const struct diff_file *f, const struct diff_line *line, size_t origin)
{
	const struct def *d;
	enum pack_change change;

	bool header;

	if (line->origin == '+') {
		if (!(d = index_enclosing(b->now, f->path, (uint32_t)line->new_lineno, false)))
			return 0;
		header = in_header(b, b->now, d, (uint32_t)line->new_lineno);
		change = !header ? CHANGE_BODY :
			 defined_in(b->before, d->name, f->old_path) ? CHANGE_SIGNATURE : CHANGE_ADDED;
		return touched(b, d, change, origin, line, header);
	}
	if (line->origin != '-' || !b->before ||
	    !(d = index_enclosing(b->before, f->old_path, (uint32_t)line->old_lineno, false)))
		return 0;
	header = in_header(b, b->before, d, (uint32_t)line->old_lineno);
	change = !defined_in(b->now, d->name, f->path) ? CHANGE_REMOVED : header ? CHANGE_SIGNATURE : CHANGE_BODY;
	return touched(b, d, change, origin, line, header);
}

static int changed_find(struct pack_builder *b)
{
	size_t i;
	uint32_t l;
	int error = 0;

	for (i = 0; i < b->diff->nfiles && !error; i++) {
		const struct diff_file *f = &b->diff->files[i];

		if ((f->flags & DIFF_FILE_BINARY) || (error = diff_file_load(b->diff, i)) < 0)
			continue;
		for (l = 0; l < f->nlines && !error; l++)
			error = line_touches(b, f, &f->lines[l], i);
	}
	return error;
}

/* --- items ------------------------------------------------------------------ */

int pack_item_add(struct pack_builder *b, const struct pack_item *proto, const struct buf *text)
{
	struct pack *p = b->pack;
	struct pack_item *it;
	char *copy, *symbol, *path;

	/* The item's strings are the pack's own: it may outlive the indexes. */
	if (!(copy = arena_strndup(&p->arena, text->ptr ? text->ptr : "", text->len)) ||
	    !(symbol = arena_strndup(&p->arena, proto->symbol, strlen(proto->symbol))) ||
	    !(path = arena_strndup(&p->arena, proto->path, strlen(proto->path))))
		return error_nomem();
	if (ARRAY_GROW(p->items, p->alloc, p->count + 1) < 0)
		return RL_ENOMEM;
	it = &p->items[p->count++];
	*it = *proto;
	it->text = copy;
	it->symbol = symbol;
	it->path = path;
	it->bytes = text->len;
	it->order = b->sequence++;
	return 0;
}

/* Whether a line of the new side is shown by the diff already (in a hunk of the file). */
bool pack_in_diff(const struct diff_file *f, uint32_t line)
{
	uint32_t h;

	if (!f || !(f->flags & DIFF_FILE_LOADED))
		return false;
	for (h = 0; h < f->nhunks; h++)
		if (line >= f->hunks[h].new_start && line < f->hunks[h].new_start + f->hunks[h].new_lines)
			return true;
	return false;
}

const struct diff_file *pack_diff_file(const struct diff *diff, const char *path)
{
	size_t i;

	for (i = 0; i < diff->nfiles; i++)
		if (diff->files[i].status != DIFF_DELETED && !strcmp(diff->files[i].path, path))
			return &diff->files[i];
	return NULL;
}

static bool item_shown(const struct pack *p, enum pack_kind kind, const char *path, uint32_t first)
{
	size_t i;

	for (i = 0; i < p->count; i++)
		if (p->items[i].kind == kind && p->items[i].first == first && !strcmp(p->items[i].path, path))
			return true;
	return false;
}

/* A definition's lines first..last as one item, under its heading. */
static int lines_item(struct pack_builder *b, const struct pack_item *proto, const char *heading)
{
	const struct index_file *f = index_file(b->now, proto->path);
	const struct pack_text_file *t = f ? pack_text_of(b, b->now, f) : NULL;
	struct buf body = BUF_INIT, text = BUF_INIT;
	struct pack_item it = *proto;
	int error;

	if (!t)
		return 0;
	it.last = proto->last < t->nlines ? proto->last : t->nlines;
	if ((error = pack_lines_put(&body, t, it.first, it.last, false)) == 0 && body.len &&
	    (error = buf_printf(&text, "### %s\n\n", heading)) == 0 &&
	    (error = prompt_fence(&text, prompt_language(it.path), body.ptr, body.len)) == 0)
		error = pack_item_add(b, &it, &text);
	buf_release(&body);
	buf_release(&text);
	return error;
}

/* The whole function around a hunk, unless the diff shows all of it. */
static int enclosing_item(struct pack_builder *b, const struct def *d, const struct diff_file *f, size_t origin)
{
	const struct pack_item it = { .kind = PACK_ENCLOSING, .rank = 1, .origin = origin, .symbol = d->name,
				      .path = d->file->path, .first = d->line, .last = d->end };
	char heading[512];

	if (item_shown(b->pack, PACK_ENCLOSING, it.path, it.first) || (pack_in_diff(f, d->line) && pack_in_diff(f, d->end)))
		return 0;
	snprintf(heading, sizeof(heading), "`%s`, the whole %s around the change in %s (lines %u-%u)", d->name,
		 *d->kind ? d->kind : "definition", d->file->path, d->line, d->end);
	return lines_item(b, &it, heading);
}

/* The whole function around each hunk, once each, where it fits and the diff does not show it all. */
static int enclosing_find(struct pack_builder *b)
{
	size_t i, max = b->opts->enclosing_max_lines ? b->opts->enclosing_max_lines : 150;
	uint32_t h, l;
	int error = 0;

	for (i = 0; i < b->diff->nfiles && !error; i++) {
		const struct diff_file *f = &b->diff->files[i];
		const struct def *seen = NULL;

		if (!(f->flags & DIFF_FILE_LOADED) || f->status == DIFF_DELETED)
			continue;
		for (h = 0; h < f->nhunks && !error; h++)
			for (l = 0; l < f->hunks[h].nlines && !error; l++) {
				const struct diff_line *line = &f->lines[f->hunks[h].first_line + l];
				const struct def *d;

				if (line->origin != '+' ||
				    !(d = index_enclosing(b->now, f->path, (uint32_t)line->new_lineno, true)) ||
				    d == seen || !d->end || d->end - d->line + 1 > max)
					continue;
				seen = d;
				error = enclosing_item(b, d, f, i);
			}
	}
	return error;
}

/* --- the definitions the changed lines use -------------------------------------- */

static bool is_changed(const struct pack_builder *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->nchanged; i++)
		if (!strcmp(b->changed[i].name, name))
			return true;
	return false;
}

/* A definition a changed line uses, found elsewhere: its signature and first lines. */
static int definition_item(struct pack_builder *b, const struct def *d, size_t origin)
{
	uint32_t last = d->end && d->end < d->line + DEFINITION_LINES ? d->end : d->line + DEFINITION_LINES - 1;
	const struct pack_item it = { .kind = PACK_DEFINITION, .rank = 2, .origin = origin, .symbol = d->name,
				      .path = d->file->path, .first = d->line, .last = last };
	char heading[512];

	if (item_shown(b->pack, PACK_DEFINITION, it.path, it.first))
		return 0;
	snprintf(heading, sizeof(heading), "`%s`, %s %s in %s (line %u%s)", d->name,
		 strchr("aeiou", *d->kind) && *d->kind ? "an" : "a", *d->kind ? d->kind : "definition",
		 d->file->path, d->line, d->end > last ? ", its first lines" : "");
	return lines_item(b, &it, heading);
}

/* A word of an added line that the repository defines elsewhere, at most AMBIGUOUS times. */
static int word_used(struct pack_builder *b, const struct diff_file *f, size_t origin, const char *word, size_t len)
{
	char name[WORDS_MAX + 1];
	const struct def *const *defs;
	size_t i, n = 0;
	int error = 0;

	if (len < 3 || len > WORDS_MAX)
		return 0;
	memcpy(name, word, len);
	name[len] = '\0';
	if (!(defs = index_lookup(b->now, name, &n)) || !n || n > AMBIGUOUS || is_changed(b, name))
		return 0;
	for (i = 0; i < n && !error; i++) {
		const struct def *d = defs[i];

		if ((!strcmp(d->file->path, f->path) && pack_in_diff(f, d->line)) ||
		    ((d->flags & DEF_FILE_SCOPE) && strcmp(d->file->path, f->path)) || !worth_showing(d, f->path))
			continue;
		error = definition_item(b, d, origin);
	}
	return error;
}

static int definitions_find(struct pack_builder *b)
{
	size_t i;
	uint32_t l;
	int error = 0;

	for (i = 0; i < b->diff->nfiles && !error; i++) {
		const struct diff_file *f = &b->diff->files[i];

		if (!(f->flags & DIFF_FILE_LOADED) || f->status == DIFF_DELETED)
			continue;
		for (l = 0; l < f->nlines && !error; l++) {
			const char *p = f->lines[l].text, *e = p + f->lines[l].len, *word;
			size_t len;

			if (f->lines[l].origin != '+')
				continue;
			while (!error && (len = words_next(&p, e, &word)))
				error = word_used(b, f, i, word, len);
		}
	}
	return error;
}

/* --- the definitions a text uses (a fix's code) ---------------------------------- */

/* The lines the reader has already stand for the diff's hunks: word_used shows none of theirs again. */
int pack_definitions(struct pack *out, const struct index *index, const char *path,
		     const struct pack_shown *shown, size_t nshown, const char *text, size_t len)
{
	static const struct pack_options none;
	struct pack_builder b = { .pack = out, .now = index, .opts = &none };
	struct diff_file f = { .path = path, .old_path = path, .status = DIFF_MODIFIED, .flags = DIFF_FILE_LOADED };
	const char *p = text, *e = text + len, *word;
	size_t i, wlen;
	int error = 0;

	memset(out, 0, sizeof(*out));
	arena_init(&out->arena, 16384);
	out->refs_complete = true;
	if (nshown && !(f.hunks = calloc(nshown, sizeof(*f.hunks))))
		error = error_nomem();
	for (i = 0; i < nshown && !error; i++)
		if (shown[i].first && shown[i].last >= shown[i].first)
			f.hunks[f.nhunks++] = (struct diff_hunk){ .new_start = shown[i].first,
								  .new_lines = shown[i].last - shown[i].first + 1 };
	while (!error && (wlen = words_next(&p, e, &word)))
		error = word_used(&b, &f, 0, word, wlen);
	for (i = 0; i < b.ntexts; i++)
		text_release(&b.texts[i]);
	free(f.hunks);
	if (error < 0)
		pack_release(out);
	return error;
}

int pack_definitions_text(struct buf *out, struct pack_use *use, const struct pack *pack, size_t budget)
{
	size_t i;
	int error = 0;

	buf_clear(out);
	memset(use, 0, sizeof(*use));
	if (!pack->count)
		return 0;
	if (!(use->items = calloc(pack->count, sizeof(size_t))))
		return error_nomem();
	for (i = 0; i < pack->count && !error; i++) {
		if (out->len + pack->items[i].bytes > budget) {
			use->left++;
			continue;
		}
		error = buf_printf(out, "%s%s", use->count ? "\n" : "", pack->items[i].text);
		use->items[use->count++] = i;
	}
	if (!error && use->left)
		error = buf_printf(out, "%sLeft out for the budget: %zu more definition%s.\n", use->count ? "\n" : "",
				   use->left, use->left == 1 ? "" : "s");
	use->bytes = out->len;
	return error;
}

/* --- the whole ---------------------------------------------------------------- */

int pack_build(struct pack *out, struct diff *diff, const struct index *now, const struct index *before,
	       const struct pack_options *opts)
{
	static const struct pack_options none;
	struct pack_builder b = { .pack = out, .diff = diff, .now = now, .before = before, .opts = opts ? opts : &none };
	int64_t start = clock_ms();
	size_t i;
	int error;

	memset(out, 0, sizeof(*out));
	arena_init(&out->arena, 16384);
	out->refs_complete = true;
	if ((error = changed_find(&b)) == 0 && (error = pack_callers(&b)) == 0 &&
	    (error = enclosing_find(&b)) == 0)
		error = definitions_find(&b);
	out->changed = b.nchanged;
	out->build_ms = clock_ms() - start;
	for (i = 0; i < b.ntexts; i++)
		text_release(&b.texts[i]);
	for (i = 0; i < b.nchanged; i++) {
		strings_free(&b.changed[i].removed);
		strings_free(&b.changed[i].added);
	}
	free(b.changed);
	if (error < 0)
		pack_release(out);
	return error;
}

void pack_release(struct pack *pack)
{
	free(pack->items);
	arena_release(&pack->arena);
	memset(pack, 0, sizeof(*pack));
}

void pack_use_release(struct pack_use *use)
{
	free(use->items);
	memset(use, 0, sizeof(*use));
}

/* --- a part's text ---------------------------------------------------------------- */

static bool part_has(const size_t *files, size_t nfiles, size_t origin)
{
	size_t i;

	for (i = 0; i < nfiles; i++)
		if (files[i] == origin)
			return true;
	return false;
}

static int cmp_rank(const void *a, const void *b, void *ctx)
{
	const struct pack *p = ctx;
	const struct pack_item *x = &p->items[*(const size_t *)a], *y = &p->items[*(const size_t *)b];

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static const char *const section_titles[] = {
	[PACK_CALLERS] = "## Where the definitions this change touches are used",
	[PACK_ENCLOSING] = "## The whole function around each change",
	[PACK_DEFINITION] = "## Definitions the changed lines use",
};

static bool used_by(const struct pack_use *use, size_t item)
{
	size_t i;

	for (i = 0; use && i < use->count; i++)
		if (use->items[i] == item)
			return true;
	return false;
}

int pack_text(struct buf *out, struct pack_use *use, const struct pack *pack, const size_t *files,
	      size_t nfiles, size_t budget)
{
	return pack_text_more(out, use, pack, files, nfiles, budget, NULL);
}

int pack_text_more(struct buf *out, struct pack_use *use, const struct pack *pack, const size_t *files,
		   size_t nfiles, size_t budget, const struct pack_use *taken)
{
	size_t *mine, i, n = 0, used = 0;
	int kind, error = 0;

	buf_clear(out);
	memset(use, 0, sizeof(*use));
	if (!pack->count)
		return 0;
	if (!(mine = calloc(pack->count, sizeof(*mine))) || !(use->items = calloc(pack->count, sizeof(size_t)))) {
		free(mine);
		return error_nomem();
	}
	for (i = 0; i < pack->count; i++)
		if (part_has(files, nfiles, pack->items[i].origin) && !used_by(taken, i))
			mine[n++] = i;
	qsort_r(mine, n, sizeof(*mine), cmp_rank, (void *)pack);
	for (i = 0; i < n; i++) {
		if (used + pack->items[mine[i]].bytes > budget) {
			use->left++;
			continue;
		}
		used += pack->items[mine[i]].bytes;
		use->items[use->count++] = mine[i];
	}
	/* Shown by section, each in rank order. */
	for (kind = PACK_CALLERS; kind <= PACK_DEFINITION && !error; kind++) {
		bool heading = false;

		for (i = 0; i < use->count && !error; i++) {
			const struct pack_item *it = &pack->items[use->items[i]];

			if ((int)it->kind != kind)
				continue;
			if (!heading && (error = buf_printf(out, "%s\n\n", section_titles[kind])) < 0)
				break;
			heading = true;
			error = buf_printf(out, "%s\n", it->text);
		}
	}
	if (!error && use->left)
		error = buf_printf(out, "Left out for the budget: %zu more item%s of the repository's context "
				   "(callers, functions or definitions) for these files.\n", use->left,
				   use->left == 1 ? "" : "s");
	use->bytes = out->len;
	free(mine);
	return error;
}
