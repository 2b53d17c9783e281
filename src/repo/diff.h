#ifndef REVLINE_DIFF_H
#define REVLINE_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "buf.h"

struct diff;

/*
 * The diff model: files -> hunks -> lines with old and new line numbers.
 *
 * Line text lives in one arena. The file list is known first; a file's
 * hunks are built when first asked for (diff_file_load), so the first
 * screen of a huge change never waits for the whole diff. A model parsed
 * from text is loaded at once.
 *
 * Printing the model gives back git's text byte for byte: a file keeps its
 * header lines verbatim (from "diff --git" up to "+++" or the "Binary
 * files" line), a hunk keeps its "@@" line verbatim, a line keeps its bytes
 * (a CR of a CRLF ending included) and whether a newline followed it.
 */

#define DIFF_STATUS_LIST(X) \
	X(DIFF_ADDED,      'A', "added") \
	X(DIFF_MODIFIED,   'M', "modified") \
	X(DIFF_DELETED,    'D', "deleted") \
	X(DIFF_RENAMED,    'R', "renamed") \
	X(DIFF_COPIED,     'C', "copied") \
	X(DIFF_TYPECHANGE, 'T', "typechange")

enum diff_status {
#define DIFF_STATUS_ENUM(name, letter, text) name,
	DIFF_STATUS_LIST(DIFF_STATUS_ENUM)
#undef DIFF_STATUS_ENUM
};

char diff_status_letter(enum diff_status status);
const char *diff_status_name(enum diff_status status);

/*
 * A path git could not merge (a merge, rebase, cherry-pick or revert
 * stopped on it), named as `git status --short` names it. The value is the
 * mask of the stages the index holds: 1 the common ancestor's, 2 ours
 * (HEAD's), 4 theirs, so the order is git's (wt-status.c).
 */
#define DIFF_CONFLICT_LIST(X) \
	X(DIFF_CONFLICT_NONE,   "",   "") \
	X(DIFF_BOTH_DELETED,    "DD", "both deleted") \
	X(DIFF_ADDED_BY_US,     "AU", "added by us") \
	X(DIFF_DELETED_BY_THEM, "UD", "deleted by them") \
	X(DIFF_ADDED_BY_THEM,   "UA", "added by them") \
	X(DIFF_DELETED_BY_US,   "DU", "deleted by us") \
	X(DIFF_BOTH_ADDED,      "AA", "both added") \
	X(DIFF_BOTH_MODIFIED,   "UU", "both modified")

enum diff_conflict {
#define DIFF_CONFLICT_ENUM(name, code, text) name,
	DIFF_CONFLICT_LIST(DIFF_CONFLICT_ENUM)
#undef DIFF_CONFLICT_ENUM
};

/* "UU", and "both modified" ("" for DIFF_CONFLICT_NONE). */
const char *diff_conflict_code(enum diff_conflict conflict);
const char *diff_conflict_name(enum diff_conflict conflict);

enum diff_line_flags {
	DIFF_LINE_NO_EOL = 1 << 0,  /* "\ No newline at end of file" follows */
};

struct diff_line {
	const char *text;       /* without the origin and without the '\n' */
	uint32_t len;
	int32_t old_lineno;     /* -1 on an added line */
	int32_t new_lineno;     /* -1 on a removed line */
	char origin;            /* ' ', '+' or '-' */
	uint8_t flags;
};

struct diff_hunk {
	const char *header;     /* the "@@ ... @@ context" line, no '\n' */
	uint32_t header_len;
	uint32_t old_start, old_lines;
	uint32_t new_start, new_lines;
	uint32_t first_line;    /* index into the file's lines */
	uint32_t nlines;
};

enum diff_file_flags {
	DIFF_FILE_BINARY = 1 << 0,
	DIFF_FILE_LOADED = 1 << 1,  /* header, hunks and lines are present */
	DIFF_FILE_COUNTED = 1 << 2, /* additions and deletions are known */
	DIFF_FILE_BINARY_KNOWN = 1 << 3,
};

struct diff_file {
	const char *path;       /* the new path (the old one when deleted) */
	const char *old_path;   /* the old path (same as path unless renamed or copied) */
	enum diff_status status;
	uint32_t old_mode, new_mode;  /* 0 when that side is absent */
	uint32_t similarity;    /* percent, for renames and copies */
	uint32_t additions, deletions;
	/*
	 * A binary file's sides' sizes in bytes once counted (git's "Bin X ->
	 * Y bytes"); both 0 when their contents are the same.
	 */
	uint64_t old_size, new_size;
	uint32_t flags;
	/*
	 * Unmerged: the kind of conflict. Its text is then the working tree's
	 * file (markers and all) against the target's base, as `git diff
	 * <base>` shows it, or a "* Unmerged path" line when that shows
	 * nothing (the index as the new side, or no difference).
	 */
	enum diff_conflict conflict;
	const char *header;     /* verbatim header lines, each ending in '\n' */
	size_t header_len;
	/*
	 * git shows a type change (file to symlink, say) as a deletion then a
	 * creation; the model keeps one entry. The creation's header is printed
	 * before hunk split_hunk.
	 */
	const char *header2;
	size_t header2_len;
	uint32_t split_hunk;
	struct diff_hunk *hunks;
	uint32_t nhunks;
	struct diff_line *lines;
	uint32_t nlines;
};

/*
 * Where the hunks of a lazily built diff come from. load() fills the file
 * (header, hunks, lines, counts) using diff_file_parse() or the builder
 * below; count() only fills additions, deletions and the binary flag.
 */
struct diff_source {
	int (*load)(void *ctx, struct diff *diff, size_t index);
	int (*count)(void *ctx, struct diff *diff, size_t index);
	void (*free)(void *ctx);
	void *ctx;
};

struct diff {
	struct diff_file *files;
	size_t nfiles;
	size_t files_alloc;
	size_t counted;         /* files whose counts are known */
	uint64_t additions, deletions;  /* over the counted files */
	/*
	 * What git had in progress when the diff was taken from the working
	 * tree or the index: "merge", "rebase", "cherry-pick", "revert", "am"
	 * or "bisect"; NULL when nothing, or when both sides are commits.
	 * unmerged_text: whether the unmerged files hold their working-tree
	 * text (false when the new side is the index, which has none of them).
	 */
	const char *in_progress;
	bool unmerged_text;
	struct arena arena;
	struct diff_source source;
	int refs;               /* diff_dup's, and the maker's */
};

/* An empty diff (with no source); files are added with diff_file_add. */
int diff_new(struct diff **out);
/*
 * Another reference to the diff, for what outlives its maker's use (a
 * check, a dependency review): the diff, its arena with it, goes with the
 * last diff_free.
 */
struct diff *diff_dup(struct diff *diff);
void diff_free(struct diff *diff);

/* A new file entry at the end of the list; strings are copied. */
int diff_file_add(struct diff_file **out, struct diff *diff, enum diff_status status,
		  const char *old_path, const char *path, uint32_t old_mode, uint32_t new_mode);

/*
 * Parse unified diff text (git's extended format or plain "--- / +++"
 * diffs). Fails with RL_EPARSE and a message naming the line on text that
 * is not a diff.
 */
int diff_from_text(struct diff **out, const char *text, size_t len);

/*
 * Parse the text of exactly one file's diff into an existing entry (used
 * by lazy sources): header, hunks, lines and counts.
 */
int diff_file_parse(struct diff *diff, struct diff_file *file, const char *text, size_t len);

/* Make sure a file's hunks are present; cheap when they already are. */
int diff_file_load(struct diff *diff, size_t index);
/* Make sure a file's line counts are known. */
int diff_file_count(struct diff *diff, size_t index);
/*
 * A file's counts known from the same file in another model of the diff
 * (from counted): the diff's totals with them. Nothing when already counted.
 */
void diff_file_counts_copy(struct diff *diff, struct diff_file *file, const struct diff_file *from);
/* Whether every file has been counted, so the totals are final. */
bool diff_counted(const struct diff *diff);

/* Append the unified text of one file, or of the whole diff, to out. */
int diff_file_print(struct buf *out, struct diff *diff, size_t index);
int diff_print(struct buf *out, struct diff *diff);
/* One file's header and only hunks [first, first + count). */
int diff_file_print_hunks(struct buf *out, struct diff *diff, size_t index,
			  uint32_t first, uint32_t count);

/*
 * One file's header and one hunk of it cut to its first keep lines (what
 * fits a request; the caller says what was cut).
 */
int diff_file_print_hunk_cut(struct buf *out, struct diff *diff, size_t index, uint32_t hunk, uint32_t keep);

/* The changed paths (new paths; old paths too for renames when both is set). */
int diff_extract_files(char ***out, size_t *count, const struct diff *diff, bool both);
void diff_free_paths(char **paths, size_t count);
/*
 * The new paths of the text files still in the tree (neither deleted nor
 * binary, nor a symbolic link or a submodule): what linters read.
 */
int diff_text_files(char ***out, size_t *count, const struct diff *diff);

/* A new diff holding copies of the files whose path (or old path) is listed. */
int diff_filter_files(struct diff **out, struct diff *diff,
		      const char *const *paths, size_t count);
/* The seed's filterDiffByPatterns: files matched by the glob patterns. */
int diff_filter_patterns(struct diff **out, struct diff *diff,
			 const char *const *patterns, size_t count);

/* How many files are unmerged (diff_file.conflict). */
size_t diff_unmerged(const struct diff *diff);

/* Index of the file with this path (new or old), or -1. */
long diff_find_file(const struct diff *diff, const char *path);

/* Whether line (new side) of the file at path is an added line of the diff (loads the file). */
bool diff_line_added(struct diff *diff, const char *path, int line);

#endif
