#ifndef REVLINE_REPO_TOOLS_H
#define REVLINE_REPO_TOOLS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "tools.h"

/*
 * The models' read-only tools over one side of the repository (a done
 * index, index.h), for a rule's question (ask_submit_tools, tools.h):
 *
 *   read_file(path, start, end)   lines start to end of a file (1-based,
 *                                 both included; 400 at most a call), each
 *                                 with its number as the pack shows them; a
 *                                 directory lists its files;
 *   search(pattern, path_glob)    a PCRE2 regular expression, line by line,
 *                                 over the files path_glob (gitignore-style)
 *                                 selects: "path:line: text", 50 at most;
 *   references(symbol)            where a name is defined (ctags: kind,
 *                                 signature, lines) and used (a word search).
 *
 * What they read is what the index lists as readable and nothing else: the
 * files git tracks (the change's untracked ones with --untracked), never an
 * ignored file, .git, a link, a submodule, a FIFO, a binary, generated or
 * vendored file, or one revline.ignore names. A path is checked before it
 * is looked up (relative, no "..", no ".git", no control character, at most
 * REPO_TOOLS_PATH_MAX bytes); a path not in the index gets the same error
 * whether it exists or not (an ignored .env is not told from a missing
 * file), with the readable files it may be a typo of.
 *
 * Every call is bounded: by the bytes the request cycle lets it return
 * (cut at a line, saying what was left out), by its own time
 * (REPO_TOOLS_CALL_MS) and the check's deadline, by the bytes of files
 * the question's calls may read in all, and a search by PCRE2's match,
 * depth and heap limits (a pattern that backtracks fails at once with a
 * tool error). Bad arguments (unknown ones, wrong types, an invalid
 * pattern or glob) are tool errors that say what to give instead.
 *
 * One set of tools is made per question (its log is the question's); many
 * may share an index. For a check:
 *
 *	struct repo_tools_options o = { .index = now, .deadline_ms = deadline, .state = state };
 *	struct repo_tools *rt;
 *	struct ask_tools tools;
 *
 *	error = repo_tools_new(&rt, &o);
 *	repo_tools_ask(&tools, rt);
 *	error = ask_submit_tools(asker, &id, &spec, &tools);
 *	... when the question settles:
 *	log = repo_tools_log(rt, &n);       (what the model read, call by call)
 *	repo_tools_free(rt);
 *
 * The executor runs in the poll group's step: each call ends within its
 * time, so that the other questions' transfers wait at most that long.
 */

/* The defaults (0 in the options) and the ceilings. */
#define REPO_TOOLS_LINES 400                    /* read_file: lines a call shows */
#define REPO_TOOLS_LINES_MAX 2000
#define REPO_TOOLS_HITS 50                      /* search: matching lines a call gives */
#define REPO_TOOLS_HITS_MAX 500
#define REPO_TOOLS_REFS 50                      /* references: references a call gives */
#define REPO_TOOLS_REFS_MAX 500
#define REPO_TOOLS_CALL_MS 1000                 /* one call's time */
#define REPO_TOOLS_CALL_MS_MAX 10000
#define REPO_TOOLS_READ ((uint64_t)256 << 20)   /* bytes of files a question's calls read in all */
/* What a call may ask for. */
#define REPO_TOOLS_PATH_MAX 1024
#define REPO_TOOLS_PATTERN_MAX 1024
#define REPO_TOOLS_ENTRIES 200                  /* a directory's entries listed */
/* A search's limits on one line (PCRE2): backtracking steps, nested depth, heap (KiB). */
#define REPO_TOOLS_MATCH_LIMIT 200000
#define REPO_TOOLS_DEPTH_LIMIT 10000
#define REPO_TOOLS_HEAP_LIMIT 8192
/* Bytes of a line a search shows (around the match) and of a line read_file shows. */
#define REPO_TOOLS_HIT_SHOWN 240
#define REPO_TOOLS_LINE_SHOWN 2000

struct index;

struct repo_tools_options {
	const struct index *index;      /* done; must outlive the tools */
	int64_t deadline_ms;            /* on clock_ms(): the check's; 0: none */
	int call_ms;                    /* one call's time; 0: REPO_TOOLS_CALL_MS */
	size_t lines, hits, refs;       /* 0: the defaults above */
	uint64_t read_max;              /* bytes the question's calls read in all; 0: REPO_TOOLS_READ */
	/*
	 * What the tools read, identified (for the result cache: an answer
	 * that used tools is kept under it); NULL: repo_tools_identity of the
	 * index, computed here (a check computes it once for all its rules).
	 */
	const char *state;
};

enum repo_tool {
	REPO_TOOL_READ_FILE,
	REPO_TOOL_SEARCH,
	REPO_TOOL_REFERENCES,
};

/* A range of lines of a file the model was shown. */
struct repo_tool_span {
	const char *path;               /* the index's: valid while it is */
	uint32_t start, end;
};

/* One call, as the log keeps it. */
struct repo_tool_use {
	enum repo_tool tool;
	char *subject;                  /* read_file: the path (cleaned, when it was well formed);
					 * search: the pattern; references: the symbol */
	char *glob;                     /* search: path_glob, or NULL */
	uint32_t start, end;            /* read_file: the lines shown (0, 0: none) */
	size_t found;                   /* search: matching lines; references: definitions and
					 * references (as far as the bounds let it look) */
	size_t files_read;
	uint64_t bytes_read;
	bool complete;                  /* false: a bound left some out (lines, hits, time, bytes) */
	bool error;                     /* answered with a tool error (message says it) */
	char *message;
	struct repo_tool_span *spans;   /* what the model was shown: read_file's lines, each search
					 * hit's line, each definition's and reference's lines */
	size_t nspans;
	int64_t ms;
};

struct repo_tools;

/* RL_EUSAGE when the index is not done. The options are copied (state too). */
int repo_tools_new(struct repo_tools **out, const struct repo_tools_options *opts);
void repo_tools_free(struct repo_tools *rt);

/* The set for ask_submit_tools: the three tools, the executor, rt, its state; valid while rt is. */
void repo_tools_ask(struct ask_tools *out, struct repo_tools *rt);
/* The tools' definitions (names, descriptions, JSON schemas). */
const struct ask_tool *repo_tools_defs(size_t *count);
/* The executor (ask_tool_fn): ctx is a struct repo_tools. */
int repo_tools_run(struct tool_output *out, void *ctx, const char *name, const json_t *args, size_t max);

/* Every call run so far, in order. */
const struct repo_tool_use *repo_tools_log(const struct repo_tools *rt, size_t *count);
/* Bytes of files the calls read so far. */
uint64_t repo_tools_read(const struct repo_tools *rt);

/*
 * What tools over this index can read, identified: a hash of its files'
 * paths, blob ids and states (readable or why not), and of the tools' own
 * bounds ("files 4449, " and 32 hex digits).
 */
int repo_tools_identity(struct buf *out, const struct index *index);

/* --- what a call asks, checked (for the executor and the fuzz target) --------------------------- */

struct repo_tool_args {
	enum repo_tool tool;
	const char *path;               /* read_file (the JSON's, borrowed) */
	int64_t start, end;             /* read_file: 0 when not given */
	const char *pattern, *glob;     /* search: glob NULL when not given (or "") */
	const char *symbol;             /* references */
};

/*
 * A call's arguments read for the tool name: RL_ENOTFOUND for a tool not
 * in the set, RL_EUSAGE with a message the model can act on (an unknown
 * argument, a missing or mistyped one, a line number out of range, a
 * pattern or glob too long or malformed, a symbol that is not one word).
 */
int repo_tool_args_read(struct repo_tool_args *out, const char *name, const json_t *args);
/*
 * A path as a model gives it, made the index's spelling in out: "." and
 * empty components dropped ("./src//a.c" is "src/a.c"; "." is "", the
 * root); RL_EUSAGE, saying why, for an absolute path, a ".." or ".git"
 * component, a control character, or one over REPO_TOOLS_PATH_MAX bytes.
 */
int repo_tool_path_clean(struct buf *out, const char *path, size_t len);

#endif
