#ifndef REVLINE_INDEX_H
#define REVLINE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "poll_group.h"

/*
 * The repository index of one side of a target: its files, and the
 * definitions in them, by name, by file and by line. What the context pack
 * (the callers of a change's definitions, the definitions it uses, the
 * whole function around a hunk) and the models' read-only tools stand on.
 *
 * The side: the working tree with the index (untracked files too with
 * --untracked), the index (--staged), or a commit's tree (A..B; the old
 * side is the base tree). Its files are those git tracks (repo_files.h:
 * each with its blob id, from git's stat cache where it vouches for the
 * file), less everything that may not be read: a path through .git, a
 * symbolic link, a submodule, a FIFO or anything else that is not a
 * regular file, a path revline.ignore names, a file .gitattributes marks
 * linguist-generated or linguist-vendored, a minified name. Their
 * contents, once per blob, decide the rest: binary, larger than
 * file_max, generated (scope.h: "@generated" in the first lines, a line of
 * minified code) are listed but not read for definitions or references.
 *
 * Definitions come from universal-ctags (tags.h), per blob: a blob the
 * store has from the same ctags is not read again; the others are read,
 * tagged in one ctags process and stored (store_context.h) in batches, so
 * that the next build of any side that shares them reads only the store.
 * Without ctags (or a store) the index still lists the files and their
 * words (refs.h works), with no definitions; index_note says why.
 *
 * Building never blocks: the index is a poll-group member that does a
 * slice of a few milliseconds per step (ctags a child process stepped with
 * it), until index_done. A deadline stops it where it is: the definitions
 * of the blobs stored or tagged by then are there, index_complete is false
 * and index_note says what was left. index_cancel stops it at once.
 */

/* Files larger than this are listed, not read. */
#define INDEX_FILE_MAX (1u << 20)
/*
 * The store's cache of the index is kept bounded: what no build has recorded or
 * found in use for this many days is removed when a build records something new.
 */
#define INDEX_KEEP_DAYS 30
/* Milliseconds of work per step. */
#define INDEX_SLICE_MS 8

struct repo;
struct target;
struct store;

/* The repository and the store must outlive the index; the target and the strings are copied. */
struct index_options {
	struct repo *repo;
	const struct target *target;
	bool old_side;                  /* the target's base tree instead of its new side */
	struct store *store;            /* NULL: nothing kept, every blob tagged */
	const char *ctags;              /* revline.ctags (trusted only); NULL or "": ctags on PATH */
	const char *ignore_file;        /* revline.ignore, a path in the working tree; NULL: none */
	int64_t deadline_ms;            /* on clock_ms(): stop there; 0: none */
	size_t file_max;                /* 0: INDEX_FILE_MAX */
};

enum index_file_state {
	INDEX_TAGGED,           /* read; its definitions are known (it may have none) */
	INDEX_UNTAGGED,         /* read, but its definitions are not known: why says why */
	INDEX_BINARY,           /* not read: */
	INDEX_LARGE,
	INDEX_GENERATED,
};

struct index_file {
	const char *path;
	char blob[41];          /* "" for a file too large to be read at all */
	uint64_t size;
	enum index_file_state state;
	const char *why;        /* "ctags crashed on this file (...)", "generated (...)"; NULL for INDEX_TAGGED */
	const void *words;      /* the filter of its words (words.h); NULL: not known (any word may be there) */
	size_t words_len;
	size_t first_def, ndefs;        /* its definitions, by line: index_defs(index)[first_def ...] */
	bool workdir;           /* its content is the working tree's file (else a blob) */
	bool untracked;
};

enum def_flags {
	DEF_FILE_SCOPE = 1,     /* visible in its file only (C's static): TAG_FILE_SCOPE */
	DEF_CALLABLE = 2,       /* a function, a method, a function-like macro */
};

/* A definition, as ctags said it (tags.h), in a file of the side. */
struct def {
	const char *name, *kind, *scope, *signature, *language;        /* "" when none */
	const struct index_file *file;
	uint32_t line, end;     /* end 0: not known */
	unsigned flags;
};

struct index_stats {
	size_t files;           /* listed and readable or not */
	size_t excluded;        /* left out by path: revline.ignore, linguist attributes, minified names */
	size_t blobs;           /* distinct contents */
	size_t stored;          /* of those, read from the store */
	size_t tagged;          /* of those, tagged by ctags in this build */
	size_t renewed;         /* stored ones found in use after a day or more: their time renewed */
	size_t pruned;          /* blobs of any indexer neither recorded nor found for INDEX_KEEP_DAYS, removed */
	size_t defs;
	int64_t list_ms;        /* from the start to the files listed (ctags asked its version meanwhile) */
	int64_t store_ms;       /* reading the store */
	int64_t tag_ms;         /* tagging and storing what it lacked */
	int64_t total_ms;
};

struct index;

/*
 * A new index of the options' side (not started). revline.ignore that
 * cannot be read or parsed is RL_ECONFIG naming it, as a check says it.
 */
int index_new(struct index **out, const struct index_options *opts);
/* Start: it joins group (NULL: a group of its own, which index_wait waits on). */
int index_start(struct index *index, struct poll_group *group);
/* Wait up to max_ms (-1: until it is done) on its group, stepping it. */
int index_wait(struct index *index, int max_ms);
bool index_done(const struct index *index);
/* Stop now (ctags killed): done, incomplete, with what it had. */
void index_cancel(struct index *index);
void index_free(struct index *index);

/* Once done: 0, or the failure that stopped it (its message in index_message). */
int index_status(const struct index *index);
const char *index_message(const struct index *index);
/* Whether every file's definitions are known that could be (no deadline, cancel, or failure cut it short). */
bool index_complete(const struct index *index);
/*
 * What the user should hear, one line or NULL: ctags missing
 * (TAGS_MISSING) or unusable, the store failing, a deadline or a cancel
 * that cut the index short, files ctags failed on.
 */
const char *index_note(const struct index *index);
const struct index_stats *index_stats(const struct index *index);

/* --- once done: the side ------------------------------------------------------------- */

/* The files, by path. */
const struct index_file *index_files(const struct index *index, size_t *count);
/* A file by its path, or NULL. */
const struct index_file *index_file(const struct index *index, const char *path);
/* Whether refs (and a tool) may read it: INDEX_TAGGED or INDEX_UNTAGGED. */
bool index_file_readable(const struct index_file *file);
/* Its content as this side has it; RL_EPARSE when it is not readable (file->why). */
int index_file_read(struct buf *out, const struct index *index, const struct index_file *file);

/* Every definition, file by file (by path), each file's by line. */
const struct def *index_defs(const struct index *index, size_t *count);
/* The definitions of a name (exact, case-sensitive), in file and line order; *count 0 when none. */
const struct def *const *index_lookup(const struct index *index, const char *name, size_t *count);
/*
 * The innermost definition in path whose lines (ctags's end, or the
 * closing brace of its block) hold line, or NULL; callable_only: only
 * functions and methods.
 */
const struct def *index_enclosing(const struct index *index, const char *path, uint32_t line, bool callable_only);

#endif
