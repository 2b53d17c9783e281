#ifndef REVLINE_PACK_H
#define REVLINE_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "buf.h"

/*
 * The context pack of a check: what the model is shown of the repository
 * besides the diff, built locally from the repository index (index.h) and
 * its word search (refs.h) of both sides of the target:
 *
 *   - the callers of what the change defines anew: for each function,
 *     method, class or macro whose definition the change removes, renames,
 *     changes the signature of, adds or edits, its references elsewhere
 *     (call sites, imports, overrides), a few lines around each, nearest
 *     first (the same file, the same folder, then by path; tests last);
 *   - the definitions the changed lines use that the repository has
 *     elsewhere: their signature and first lines (a docstring);
 *   - the whole function around each hunk, where it fits.
 *
 * Each item is rendered once (a heading and the lines, fenced, with the
 * file's line numbers) and ranked: the callers of a definition whose
 * signature changed or that is gone first (what the change can break),
 * then the functions around the hunks, the definitions used, and the
 * callers of a definition whose body changed. A part of the change (its
 * files) takes the items of its files in that order while they fit its
 * share of the budget; what is left out is counted and said.
 *
 * The pack is the same for every rule of a part, so it goes in the shared,
 * cached part of the prompt.
 */

struct diff;
struct index;

enum pack_kind {
	PACK_CALLERS,           /* references of a changed definition, in one file */
	PACK_ENCLOSING,         /* the whole function around a hunk */
	PACK_DEFINITION,        /* a definition the changed lines use */
};

const char *pack_kind_name(enum pack_kind kind);     /* "callers", "enclosing", "definition" */

struct pack_item {
	enum pack_kind kind;
	int rank;               /* lower first */
	size_t order;           /* within a rank: nearer first */
	size_t origin;          /* the diff's file it is for */
	const char *symbol;     /* whose callers, which definition, which function */
	const char *path;       /* the file shown */
	uint32_t first, last;   /* its lines shown (callers: the first and last of its windows) */
	uint32_t sites;         /* callers: how many references in that file */
	const char *text;       /* the rendered block */
	size_t bytes;
};

struct pack {
	struct pack_item *items;
	size_t count, alloc;
	struct arena arena;     /* the items' strings */
	size_t changed;         /* definitions the change touches */
	bool refs_complete;     /* false: a bound of the word search left references out */
	int64_t build_ms;       /* finding and rendering, after the indexes were built */
};

struct pack_options {
	size_t enclosing_max_lines;     /* a function longer than this is not shown whole; 0: 150 */
	int64_t deadline_ms;            /* on clock_ms(): the word search's; 0 none */
};

/*
 * The pack of a change. now is the index of the target's new side (done);
 * before that of its base (done), or NULL (a definition that is gone is then
 * not known). The diff's files are loaded as needed.
 */
int pack_build(struct pack *out, struct diff *diff, const struct index *now, const struct index *before,
	       const struct pack_options *opts);
void pack_release(struct pack *pack);

/* What a part took of the pack, for the report. */
struct pack_use {
	size_t *items;          /* indexes into pack->items, in the order sent */
	size_t count;
	size_t left;            /* items of its files left out for the budget */
	size_t bytes;
};

void pack_use_release(struct pack_use *use);

/*
 * The pack's text for a part of the change (files, the diff's indexes),
 * its items in rank order while they fit budget bytes, and how much of it
 * was left out said at its end; empty when the part has no item.
 */
int pack_text(struct buf *out, struct pack_use *use, const struct pack *pack, const size_t *files,
	      size_t nfiles, size_t budget);
/* The same with the items another text took (taken) left out: more for a rule that asks for it. */
int pack_text_more(struct buf *out, struct pack_use *use, const struct pack *pack, const size_t *files,
		   size_t nfiles, size_t budget, const struct pack_use *taken);

/*
 * The definitions a text of a file uses, for a request that is not about a
 * diff (a fix's edit window and the lines around it): each word of text
 * that index defines (at most three times, in a file it may read, not
 * file-scoped in another file) becomes a PACK_DEFINITION item of out, as
 * the pack's "definitions the changed lines use" are found and rendered,
 * in the order the text uses them (origin 0). A definition of path whose
 * first line is in one of shown's ranges (the lines the reader has
 * already) is not shown again.
 */
struct pack_shown {
	uint32_t first, last;
};

int pack_definitions(struct pack *out, const struct index *index, const char *path,
		     const struct pack_shown *shown, size_t nshown, const char *text, size_t len);
/*
 * Its items one after the other in that order while they fit budget bytes
 * (no heading), and how many were left out said at the end; use lists
 * those sent. Empty when there is none.
 */
int pack_definitions_text(struct buf *out, struct pack_use *use, const struct pack *pack, size_t budget);

#endif
