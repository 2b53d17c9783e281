/* The index's blobs the store does not have: read, sorted out, tagged by ctags, stored in batches. */
#include "index_state.h"
#include "array.h"
#include "clock.h"
#include "repo_files.h"
#include "scope.h"
#include "status.h"
#include "words.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEND_FILES 64           /* blobs with ctags at once */
#define PENDING_BYTES (8u << 20)        /* their contents, kept until their tags come (the end lines) */
#define SEND_BYTES (4u << 20)   /* bytes written to ctags it has not taken yet */
#define BATCH 64                /* blobs stored in one transaction */

/* --- definitions ------------------------------------------------------------------- */

/* Functions and methods: the kinds that are called, in the languages where they mean it. */
static bool callable(const char *kind, const char *language)
{
	static const char *const kinds[] = {
		"function", "method", "func", "subroutine", "procedure", "singletonMethod", "constructor",
		"generator", "getter", "setter", NULL,
	};
	size_t i;

	for (i = 0; kinds[i]; i++)
		if (!strcmp(kinds[i], kind))
			return true;
	/* Python's methods are "member"s; C's function-like macros are called as functions are. */
	return (!strcmp(kind, "member") && !strcmp(language, "Python")) ||
	       (!strcmp(kind, "macro") && (!strcmp(language, "C") || !strcmp(language, "C++")));
}

int index_proto_add(struct index *index, struct blob_slot *slot, const struct tag *tag)
{
	struct def *d;

	if (ARRAY_GROW(index->protos, index->protos_alloc, index->nprotos + 1) < 0)
		return -1;
	d = &index->protos[index->nprotos];
	memset(d, 0, sizeof(*d));
	if (!(d->name = index_strdup(index, tag->name)) || !(d->kind = index_strdup(index, tag->kind)) ||
	    !(d->scope = index_strdup(index, tag->scope)) || !(d->signature = index_strdup(index, tag->signature)) ||
	    !(d->language = index_strdup(index, tag->language)))
		return error_nomem();
	d->line = tag->line;
	d->end = tag->end;
	d->flags = (tag->flags & TAG_FILE_SCOPE ? DEF_FILE_SCOPE : 0) |
		   (callable(d->kind, d->language) && (strcmp(d->kind, "macro") || *d->signature) ? DEF_CALLABLE : 0);
	if (!slot->count)
		slot->first = index->nprotos;
	slot->count++;
	index->nprotos++;
	return 0;
}

/* --- the store, in batches ------------------------------------------------------------- */

static const char *state_name(enum index_file_state state)
{
	switch (state) {
	case INDEX_TAGGED: return "tagged";
	case INDEX_BINARY: return "binary";
	case INDEX_LARGE: return "large";
	case INDEX_GENERATED: return "generated";
	default: return "failed";
	}
}

int index_batch_flush(struct index *index)
{
	size_t i;
	int error = 0;

	for (i = 0; i < index->nbatch; i++)
		index->batch[i].tags = &index->batch_tags[i];   /* the array may have moved as it grew */
	if (index->nbatch && index->opts.store)
		error = store_context_put(index->opts.store, index->indexer, index->batch, index->nbatch);
	for (i = 0; i < index->nbatch; i++)
		tag_list_release(&index->batch_tags[i]);
	index->nbatch = 0;
	return error;
}

/* The filter of the slot's words, kept in the arena. */
static int slot_words(struct index *index, struct blob_slot *slot, const struct buf *words)
{
	void *copy;

	if (!words || !words->len)
		return 0;
	if (!(copy = arena_alloc(&index->arena, words->len, 1)))
		return error_nomem();
	memcpy(copy, words->ptr, words->len);
	slot->words = copy;
	slot->words_len = words->len;
	return 0;
}

/* The slot is done: its state, and what the store keeps of it (tags taken from *tags). */
static int slot_done(struct index *index, struct blob_slot *slot, enum index_file_state state, const char *why,
		     struct tag_list *tags)
{
	struct store_context_blob *b;

	slot->done = true;
	slot->state = state;
	if (why && !(slot->why = index_strdup(index, why)))
		return error_nomem();
	if (!index->opts.store)
		return 0;
	if (ARRAY_GROW(index->batch, index->batch_alloc, index->nbatch + 1) < 0 ||
	    !(index->batch_tags = realloc(index->batch_tags, index->batch_alloc * sizeof(*index->batch_tags))))
		return error_nomem();
	b = &index->batch[index->nbatch];
	memset(b, 0, sizeof(*b));
	memcpy(b->blob, slot->id, sizeof(b->blob));
	b->size = (int64_t)slot->size;
	b->state = state_name(state);
	b->detail = slot->why;
	b->words = slot->words;
	b->words_len = slot->words_len;
	memset(&index->batch_tags[index->nbatch], 0, sizeof(*index->batch_tags));
	if (tags) {
		index->batch_tags[index->nbatch] = *tags;
		memset(tags, 0, sizeof(*tags));
	}
	index->nbatch++;
	return 0;
}

/* --- reading a blob ------------------------------------------------------------------------ */

static int pending_push(struct index *index, size_t slot, struct buf *text)
{
	struct pending *p;

	if (index->pending_first == index->npending)
		index->pending_first = index->npending = 0;
	if (ARRAY_GROW(index->pending, index->pending_alloc, index->npending + 1) < 0)
		return -1;
	p = &index->pending[index->npending++];
	p->slot = slot;
	p->text = *text;
	index->pending_bytes += text->len;
	memset(text, 0, sizeof(*text));
	return 0;
}

/* What a readable content is: text for ctags (0), or done here (1): binary, generated. */
static int blob_sort_out(struct index *index, struct blob_slot *slot, const struct buf *text)
{
	char why[160];
	const char *generated;

	slot->size = text->len;
	if (repo_blob_binary(text->ptr, text->len))
		return slot_done(index, slot, INDEX_BINARY, "binary", NULL) < 0 ? -1 : 1;
	generated = scope_generated_text(why, sizeof(why), text->ptr ? text->ptr : "", text->len);
	if (generated)
		return slot_done(index, slot, INDEX_GENERATED, generated, NULL) < 0 ? -1 : 1;
	return 0;
}

/* Read the slot's content; settle what it is, or send it to ctags. */
static int blob_take(struct index *index, struct blob_slot *slot)
{
	const struct index_file *f = &index->files[slot->file];
	struct repo_file rf = { .path = (char *)f->path, .size = f->size, .workdir = f->workdir };
	struct buf text = BUF_INIT, words = BUF_INIT;
	char why[160];
	int error;

	memcpy(rf.blob, slot->id, sizeof(rf.blob));
	error = repo_file_read(&text, index->opts.repo, &rf, index->opts.file_max);
	if (error == RL_EPARSE) {
		error_clear();
		snprintf(why, sizeof(why), "larger than %zu KiB: not read", index->opts.file_max >> 10);
		error = slot_done(index, slot, INDEX_LARGE, why, NULL);
	} else if (error < 0) {
		/* Gone or changed since it was listed: not known, and not stored. */
		slot->done = true;
		slot->state = INDEX_UNTAGGED;
		slot->why = index_strdup(index, error_message());
		error_clear();
		error = 0;
	} else if ((error = blob_sort_out(index, slot, &text)) != 0) {
		error = error < 0 ? error : 0;
	} else if ((error = words_filter(&words, text.ptr ? text.ptr : "", text.len)) == 0 &&
		   (error = slot_words(index, slot, &words)) == 0) {
		if (!index->session)
			error = slot_done(index, slot, INDEX_UNTAGGED, index->note.len ? index->note.ptr : "no ctags",
					  NULL);
		else if ((error = tags_session_send(index->session, (uint64_t)(slot - index->slots), f->path,
						    text.ptr ? text.ptr : "", text.len)) == 0)
			error = pending_push(index, (size_t)(slot - index->slots), &text);
	}
	buf_release(&text);
	buf_release(&words);
	return error;
}

/* --- ctags's answers --------------------------------------------------------------------------- */

static int result_take(struct index *index, struct tags_result *r)
{
	struct pending *p;
	struct blob_slot *slot;
	size_t i;
	int error = 0;

	if (index->pending_first == index->npending || index->pending[index->pending_first].slot != r->id)
		return error_set(RL_ERROR, "ctags answered for a file it was not waiting on");
	p = &index->pending[index->pending_first++];
	slot = &index->slots[p->slot];
	if (r->error) {
		index->failed++;
		error = slot_done(index, slot, INDEX_UNTAGGED, r->error, NULL);
	} else {
		if (tags_fill_ends(&r->tags, p->text.ptr ? p->text.ptr : "", p->text.len) < 0)
			error_clear();  /* no end lines where ctags gave none: still its tags */
		for (i = 0; i < r->tags.count && !error; i++)
			error = index_proto_add(index, slot, &r->tags.items[i]);
		index->stats.tagged++;
		if (!error)
			error = slot_done(index, slot, INDEX_TAGGED, NULL, &r->tags);
	}
	index->pending_bytes -= p->text.len;
	buf_release(&p->text);
	return error;
}

static bool can_send(const struct index *index)
{
	return !index->session || (index->npending - index->pending_first < SEND_FILES &&
				   index->pending_bytes < PENDING_BYTES &&
				   tags_session_queued(index->session) < SEND_BYTES);
}

/* The next slot the store did not have, or NULL when every one was taken. */
static struct blob_slot *next_unknown(struct index *index)
{
	while (index->at < index->nslots && index->slots[index->at].done)
		index->at++;
	return index->at < index->nslots ? &index->slots[index->at++] : NULL;
}

static int session_open(struct index *index)
{
	if (index->session || !index->have_ctags)
		return 0;
	if (tags_session_start(&index->session, &index->program) < 0) {
		index_note_add(index, "%s", error_message());
		error_clear();
		index->have_ctags = false;
	}
	return 0;
}

int index_tag_step(struct index *index, int64_t until_us)
{
	struct tags_result r;
	struct blob_slot *slot;
	bool moved = true;
	int error = 0;

	while (!error && moved && clock_us() < until_us) {
		moved = false;
		if (index->session && (error = tags_session_step(index->session)) < 0)
			break;
		while (!error && index->session && tags_session_next(index->session, &r) == 1) {
			error = result_take(index, &r);
			tags_result_release(&r);
			moved = true;
		}
		if (!error && can_send(index) && (slot = next_unknown(index))) {
			/* ctags starts with the first blob it is needed for. */
			if ((error = session_open(index)) == 0)
				error = blob_take(index, slot);
			moved = true;
		}
		if (!error && index->nbatch >= BATCH && index_batch_flush(index) < 0)
			index_store_lost(index);
	}
	if (error < 0)
		return error;
	if (index->at < index->nslots || index->pending_first < index->npending)
		return 0;
	if (index_batch_flush(index) < 0)
		index_store_lost(index);
	index_tag_release(index);
	if (index->failed)
		index_note_add(index, "ctags failed on %zu files (their definitions are not known)", index->failed);
	return 1;
}

bool index_tag_waiting(const struct index *index)
{
	return index->session && index->pending_first < index->npending &&
	       (!can_send(index) || index->at >= index->nslots);
}

void index_tag_release(struct index *index)
{
	size_t i;

	tags_session_free(index->session);
	index->session = NULL;
	for (i = index->pending_first; i < index->npending; i++)
		buf_release(&index->pending[i].text);
	index->pending_first = index->npending = 0;
	index->pending_bytes = 0;
	for (i = 0; i < index->nbatch; i++)
		tag_list_release(&index->batch_tags[i]);
	index->nbatch = 0;
}
