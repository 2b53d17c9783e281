/* The side's definitions made from its blobs', by file and by name, and the questions asked of them. */
#include "index_state.h"
#include "repo_files.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

static int def_line_cmp(const void *a, const void *b)
{
	const struct def *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	/* The outer of two on one line first (it ends later), then as ctags gave them. */
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int by_name_cmp(const void *a, const void *b)
{
	const struct def *const *x = a, *const *y = b;
	int c = strcmp((*x)->name, (*y)->name);

	/* defs are in file and line order: their addresses keep it. */
	return c ? c : (*x < *y ? -1 : *x > *y);
}

/* Each file's state from its blob's, and its definitions copied from the blob's. */
static void file_settle(struct index *index, size_t i, size_t *n)
{
	struct index_file *f = &index->files[i];
	const struct blob_slot *s = index->file_slot[i] == NO_SLOT ? NULL : &index->slots[index->file_slot[i]];
	size_t k;

	f->first_def = *n;
	if (!s)
		return;
	if (s->done) {
		f->state = s->state;
		f->why = s->why;
		f->words = s->words;
		f->words_len = s->words_len;
		f->size = s->size ? s->size : f->size;
	} else {
		f->why = "not indexed before the index stopped";
	}
	for (k = 0; k < s->count; k++) {
		index->defs[*n] = index->protos[s->first + k];
		index->defs[*n].file = f;
		(*n)++;
	}
	f->ndefs = *n - f->first_def;
	qsort(index->defs + f->first_def, f->ndefs, sizeof(*index->defs), def_line_cmp);
}

int index_build(struct index *index)
{
	size_t i, total = 0, n = 0;

	for (i = 0; i < index->nfiles; i++)
		if (index->file_slot[i] != NO_SLOT)
			total += index->slots[index->file_slot[i]].count;
	if (!(index->defs = calloc(total + 1, sizeof(*index->defs))) ||
	    !(index->by_name = calloc(total + 1, sizeof(*index->by_name))))
		return error_nomem();
	for (i = 0; i < index->nfiles; i++)
		file_settle(index, i, &n);
	index->ndefs = n;
	for (i = 0; i < n; i++)
		index->by_name[i] = &index->defs[i];
	qsort(index->by_name, n, sizeof(*index->by_name), by_name_cmp);
	index->stats.defs = n;
	/* The blobs' definitions are the files' now. */
	free(index->protos);
	index->protos = NULL;
	index->nprotos = index->protos_alloc = 0;
	return 0;
}

void index_built_release(struct index *index)
{
	free(index->defs);
	free(index->by_name);
	index->defs = NULL;
	index->by_name = NULL;
	index->ndefs = 0;
}

/* --- questions ------------------------------------------------------------------------ */

const struct index_file *index_files(const struct index *index, size_t *count)
{
	*count = index->phase == P_DONE ? index->nfiles : 0;
	return index->files;
}

static int file_key_cmp(const void *key, const void *item)
{
	return strcmp(key, ((const struct index_file *)item)->path);
}

const struct index_file *index_file(const struct index *index, const char *path)
{
	if (index->phase != P_DONE || !index->nfiles)
		return NULL;
	return bsearch(path, index->files, index->nfiles, sizeof(*index->files), file_key_cmp);
}

bool index_file_readable(const struct index_file *file)
{
	return file->state == INDEX_TAGGED || file->state == INDEX_UNTAGGED;
}

int index_file_read(struct buf *out, const struct index *index, const struct index_file *file)
{
	struct repo_file rf = { .path = (char *)file->path, .size = file->size, .workdir = file->workdir };

	if (!index_file_readable(file))
		return error_set(RL_EPARSE, "%s: %s", file->path, file->why ? file->why : "not readable");
	memcpy(rf.blob, file->blob, sizeof(rf.blob));
	return repo_file_read(out, index->opts.repo, &rf, index->opts.file_max);
}

const struct def *index_defs(const struct index *index, size_t *count)
{
	*count = index->ndefs;
	return index->defs;
}

const struct def *const *index_lookup(const struct index *index, const char *name, size_t *count)
{
	size_t lo = 0, hi = index->ndefs, first;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(index->by_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	while (lo < index->ndefs && !strcmp(index->by_name[lo]->name, name))
		lo++;
	*count = lo - first;
	return *count ? index->by_name + first : NULL;
}

const struct def *index_enclosing(const struct index *index, const char *path, uint32_t line, bool callable_only)
{
	const struct index_file *f = index_file(index, path);
	const struct def *best = NULL;
	size_t i;

	for (i = 0; f && i < f->ndefs; i++) {
		const struct def *d = &index->defs[f->first_def + i];

		if (d->line > line)
			break;
		if (d->end < line || (callable_only && !(d->flags & DEF_CALLABLE)))
			continue;
		/* Sorted by line, the outer first: a later one that holds the line is inside. */
		best = d;
	}
	return best;
}
