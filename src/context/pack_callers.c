/*
 * The context pack's callers (pack.h): where the definitions a change
 * touches are used. One word search (refs.h) for all of them; the
 * references grouped by file, a file an item holding the windows of lines
 * around its references of every touched definition (calls first, what the
 * change can break first); the files nearest the definitions first: the
 * same file, the same folder, by path, tests after the code, files of
 * another language (a document, a build file) last.
 */
#include "pack_state.h"
#include "prompt.h"
#include "refs.h"
#include "status.h"
#include "words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lines shown around a reference, before and after it. */
#define AROUND 2
/* Windows of lines shown in one file. */
#define WINDOWS_PER_FILE 6
/* Files of references shown in all. */
#define FILES_MAX 24
/* References sought per touched definition and in all: the nearest are picked from them. */
#define REFS_PER_NAME 400
#define REFS_ALL 4000

/* A file's references, and how near it is. */
struct file_refs {
	const struct index_file *file;
	size_t first, count;    /* in the references sorted by file and line */
	size_t distance;        /* the least from any of its names' definitions */
	int rank;               /* 0: it uses a definition that is gone or whose signature changed */
	size_t stale;           /* its references that use what the change took out of a header */
};

/* Lines after a reference where a call's arguments may still be. */
#define ARGUMENT_LINES 4

static bool test_path(const char *path)
{
	return strstr(path, "test") || strstr(path, "spec/") || strstr(path, "__tests__");
}

static size_t common_dirs(const char *a, const char *b)
{
	size_t n = 0;

	for (; *a && *a == *b; a++, b++)
		n += *a == '/';
	return n;
}

static size_t distance(const char *from, const char *path)
{
	const char *fs = strrchr(from, '/'), *ps = strrchr(path, '/');
	size_t fdir = fs ? (size_t)(fs - from) : 0, pdir = ps ? (size_t)(ps - path) : 0, common;
	size_t d;

	if (!strcmp(from, path))
		d = 0;
	else if (fdir == pdir && !strncmp(from, path, fdir))
		d = 1;
	else
		d = 2 + 32 - ((common = common_dirs(from, path)) < 32 ? common : 31);
	return d + (test_path(path) ? 100 : 0) + (pack_same_language(from, path) ? 0 : 200);
}

static int change_rank(enum pack_change change)
{
	return change <= CHANGE_SIGNATURE ? 0 : 1;
}

/* A reference that calls the name: '(' follows it. */
static bool is_call(const struct ref *r, size_t name_len)
{
	size_t len = strlen(r->text), at;
	const char *p;

	if (!r->column || (at = r->column - 1 + name_len) > len)
		return false;
	for (p = r->text + at; *p == ' ' || *p == '\t'; p++)
		;
	return *p == '(';
}

static int cmp_refs(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	int c = strcmp(x->file->path, y->file->path);

	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int cmp_files(const void *a, const void *b)
{
	const struct file_refs *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (!x->stale != !y->stale)
		return x->stale ? -1 : 1;
	if (x->distance != y->distance)
		return x->distance < y->distance ? -1 : 1;
	return strcmp(x->file->path, y->file->path);
}

/*
 * Whether a reference still uses what the change took out of its
 * definition's header (a parameter renamed or gone), on its line or the
 * lines after it that a call's arguments may take: the stale callers.
 */
static bool is_stale(struct pack_builder *b, const struct ref *r)
{
	const struct pack_changed *c = &b->changed[r->symbol];
	const struct pack_text_file *t;
	const char *p, *e, *word;
	size_t len;

	if (!c->removed.count || !(t = pack_text_of(b, b->now, r->file)) || r->line > t->nlines)
		return false;
	p = t->content.ptr + t->starts[r->line - 1];
	e = t->content.ptr + t->starts[r->line + ARGUMENT_LINES <= t->nlines ? r->line + ARGUMENT_LINES : t->nlines];
	while ((len = words_next(&p, e, &word)))
		if (pack_changed_gone(c, word, len))
			return true;
	return false;
}

/*
 * A reference's priority in its file: a stale caller first (0), then the
 * calls of what can break (1), then mentions, the rest last (4).
 */
static int ref_priority(struct pack_builder *b, const struct ref *r)
{
	const struct pack_changed *c = &b->changed[r->symbol];

	if (is_stale(b, r))
		return 0;
	return 1 + change_rank(c->change) * 2 + !is_call(r, strlen(c->name));
}

/*
 * The references of a file worth showing, at most WINDOWS_PER_FILE: by
 * priority, going round the names within one, in line order in picked.
 */
static size_t windows_pick(const struct ref **picked, struct pack_builder *b, const struct ref *refs, size_t n)
{
	size_t i, k = 0, round;
	int priority;

	for (priority = 0; priority < 5 && k < WINDOWS_PER_FILE; priority++)
		for (round = 0; round < WINDOWS_PER_FILE && k < WINDOWS_PER_FILE; round++) {
			bool any = false;
			size_t per[PACK_CHANGED_MAX] = { 0 };

			for (i = 0; i < n && k < WINDOWS_PER_FILE; i++) {
				if (ref_priority(b, &refs[i]) != priority)
					continue;
				if (per[refs[i].symbol]++ != round)
					continue;
				picked[k++] = &refs[i];
				any = true;
			}
			if (!any)
				break;
		}
	for (i = 1; i < k; i++) {
		size_t j;

		for (j = i; j > 0 && picked[j]->line < picked[j - 1]->line; j--) {
			const struct ref *tmp = picked[j];

			picked[j] = picked[j - 1];
			picked[j - 1] = tmp;
		}
	}
	return k;
}

/* "`verify` (defined in app/auth.py: its signature changed), `make` (...)": the names whose windows are shown. */
static int names_put(struct buf *out, struct buf *symbols, const struct pack_builder *b, const struct ref *const *picked,
		     size_t k)
{
	bool seen[PACK_CHANGED_MAX] = { false };
	size_t i, n = 0;
	int error = 0;

	for (i = 0; i < k && !error; i++) {
		const struct pack_changed *c = &b->changed[picked[i]->symbol];

		if (seen[picked[i]->symbol])
			continue;
		seen[picked[i]->symbol] = true;
		error = buf_printf(out, "%s`%s` (defined in %s: %s)", n ? ", " : "", c->name, c->path,
				   pack_change_words(c->change));
		if (!error)
			error = buf_printf(symbols, "%s%s", n ? ", " : "", c->name);
		n++;
	}
	return error;
}

/* One file's windows as an item. */
static int file_item(struct pack_builder *b, const struct file_refs *fr, const struct ref *refs, size_t order)
{
	const struct pack_text_file *t = pack_text_of(b, b->now, fr->file);
	const struct ref *picked[WINDOWS_PER_FILE];
	struct buf body = BUF_INIT, text = BUF_INIT, names = BUF_INIT, symbols = BUF_INIT;
	uint32_t from = 0, to = 0, first = 0;
	size_t i, k;
	int error = 0;

	if (!t)
		return 0;
	k = windows_pick(picked, b, refs + fr->first, fr->count);
	for (i = 0; i < k && !error; i++) {
		uint32_t a = picked[i]->line > AROUND ? picked[i]->line - AROUND : 1, z = picked[i]->line + AROUND;

		if (to && a <= to + 1) {
			to = z;
			continue;
		}
		if (to)
			error = pack_lines_put(&body, t, from, to, first != from);
		first = first ? first : a;
		from = a;
		to = z;
	}
	if (!error && to)
		error = pack_lines_put(&body, t, from, to, first != from);
	if (!error && body.len && !(error = names_put(&names, &symbols, b, picked, k)) &&
	    !(error = buf_printf(&text, "### %s: %zu reference%s of %s\n\n", fr->file->path, fr->count,
				 fr->count == 1 ? "" : "s", names.ptr)) &&
	    !(error = prompt_fence(&text, prompt_language(fr->file->path), body.ptr, body.len))) {
		const struct pack_item it = {
			.kind = PACK_CALLERS, .rank = fr->rank ? 3 : 0, .origin = b->changed[picked[0]->symbol].origin,
			.symbol = symbols.ptr, .path = fr->file->path, .first = first,
			.last = to < t->nlines ? to : t->nlines, .sites = (uint32_t)fr->count,
		};

		if ((error = pack_item_add(b, &it, &text)) == 0)
			b->pack->items[b->pack->count - 1].order = order;
	}
	buf_release(&body);
	buf_release(&text);
	buf_release(&names);
	buf_release(&symbols);
	return error;
}

/* The references kept: not a line the diff shows, not a static C function's outside its file. */
static size_t refs_keep(const struct pack_builder *b, struct ref *refs, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		const struct pack_changed *c = &b->changed[refs[i].symbol];

		if ((c->file_scope && strcmp(refs[i].file->path, c->path)) ||
		    pack_in_diff(pack_diff_file(b->diff, refs[i].file->path), refs[i].line))
			continue;
		refs[k++] = refs[i];
	}
	return k;
}

/* The files of the kept references (sorted by file), each with its distance and rank, nearest first. */
static int files_group(struct file_refs **out, size_t *count, struct pack_builder *b, const struct ref *refs,
		       size_t n)
{
	struct file_refs *files;
	size_t i, k = 0;

	*out = NULL;
	*count = 0;
	if (!n)
		return 0;
	if (!(files = calloc(n, sizeof(*files))))
		return error_nomem();
	for (i = 0; i < n; i++) {
		const struct pack_changed *c = &b->changed[refs[i].symbol];
		size_t d = distance(c->path, refs[i].file->path);

		if (!i || refs[i].file != refs[i - 1].file)
			files[k++] = (struct file_refs){ refs[i].file, i, 0, d, change_rank(c->change), 0 };
		files[k - 1].count++;
		files[k - 1].stale += is_stale(b, &refs[i]);
		if (d < files[k - 1].distance)
			files[k - 1].distance = d;
		if (change_rank(c->change) < files[k - 1].rank)
			files[k - 1].rank = change_rank(c->change);
	}
	qsort(files, k, sizeof(*files), cmp_files);
	*out = files;
	*count = k;
	return 0;
}

int pack_callers(struct pack_builder *b)
{
	const char *names[PACK_CHANGED_MAX];
	struct refs_options ro = { .per_symbol = REFS_PER_NAME, .total = REFS_ALL, .deadline_ms = b->opts->deadline_ms };
	struct refs refs = { 0 };
	struct file_refs *files = NULL;
	size_t i, n, nfiles = 0;
	int error;

	if (!b->nchanged)
		return 0;
	for (i = 0; i < b->nchanged; i++)
		names[i] = b->changed[i].name;
	if ((error = refs_find(&refs, b->now, names, b->nchanged, &ro)) < 0)
		return error;
	b->pack->refs_complete = refs.complete;
	n = refs_keep(b, refs.items, refs.count);
	if (n)
		qsort(refs.items, n, sizeof(*refs.items), cmp_refs);
	if ((error = files_group(&files, &nfiles, b, refs.items, n)) == 0)
		for (i = 0; i < nfiles && i < FILES_MAX && !error; i++)
			error = file_item(b, &files[i], refs.items, i);
	free(files);
	refs_release(&refs);
	return error;
}
