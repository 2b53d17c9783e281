#ifndef REVLINE_PACK_STATE_H
#define REVLINE_PACK_STATE_H

/*
 * Inside the context pack (pack.h): the builder the files of its parts
 * share: pack.c (what the change touches, the functions around it, the
 * definitions it uses, a part's text) and pack_callers.c (where what it
 * touches is used).
 */

#include "array.h"
#include "buf.h"
#include "diff.h"
#include "index.h"
#include "pack.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Files of the repository read at once for their lines. */
#define PACK_TEXTS_MAX 64
/* Definitions the change touches whose references are sought (refs.h takes at most REFS_SYMBOLS_MAX). */
#define PACK_CHANGED_MAX 64

/* How a definition was touched, what matters most first. */
enum pack_change { CHANGE_REMOVED, CHANGE_SIGNATURE, CHANGE_ADDED, CHANGE_BODY };

/* "its signature changed", for a heading. */
const char *pack_change_words(enum pack_change change);

struct pack_changed {
	const char *name;
	const char *path;       /* where it is (was) defined */
	enum pack_change change;
	size_t origin;          /* the diff's file */
	bool file_scope;        /* C's static: its references are in its own file */
	/*
	 * The words of its header's removed lines and of its added ones; a
	 * word removed and not added back (a parameter renamed or gone) marks
	 * the callers that still use it as the stale ones (pack_changed_gone).
	 */
	struct strings removed, added;
};

/* Whether word is one the change took out of the definition's header. */
bool pack_changed_gone(const struct pack_changed *c, const char *word, size_t len);

/* A file's text split into lines, read once while the pack is built. */
struct pack_text_file {
	const struct index_file *file;
	struct buf content;
	uint32_t *starts;       /* starts[k]: where line k + 1 begins; starts[nlines]: where the last ends */
	uint32_t nlines;
	uint64_t used;          /* the builder's clock when it was last asked for */
};

struct pack_builder {
	struct pack *pack;
	struct diff *diff;
	const struct index *now, *before;
	const struct pack_options *opts;
	struct pack_changed *changed;
	size_t nchanged, changed_alloc;
	struct pack_text_file texts[PACK_TEXTS_MAX];
	size_t ntexts;
	uint64_t clock;         /* texts' uses counted: the least recently used one goes first */
	size_t sequence;
};

/* pack.c */

/* A file's lines (of the index's side), read now or before; NULL when it cannot be read. */
const struct pack_text_file *pack_text_of(struct pack_builder *b, const struct index *index,
					   const struct index_file *f);
/* Lines first..last with their numbers; gap: "..." before them. */
int pack_lines_put(struct buf *out, const struct pack_text_file *t, uint32_t first, uint32_t last, bool gap);
/* An item made of proto and its rendered text (its order: the next in sequence). */
int pack_item_add(struct pack_builder *b, const struct pack_item *proto, const struct buf *text);
/* Whether a line of the new side is in a hunk of the diff's file (NULL: no). */
bool pack_in_diff(const struct diff_file *f, uint32_t line);
const struct diff_file *pack_diff_file(const struct diff *diff, const char *path);
/* Whether two files are in one language (by what a fence would call them; not when it is not known). */
bool pack_same_language(const char *a, const char *b);

/* pack_callers.c */

/* The references of the definitions the change touches, a file an item, nearest first. */
int pack_callers(struct pack_builder *b);

#endif
