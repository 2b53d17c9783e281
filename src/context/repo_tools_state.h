#ifndef REVLINE_REPO_TOOLS_STATE_H
#define REVLINE_REPO_TOOLS_STATE_H

/*
 * Inside the models' tools (repo_tools.h): repo_tools.c has the set, the
 * executor, the arguments, the paths and the log; repo_tools_read.c runs
 * read_file and references, repo_tools_search.c runs search.
 */
#include "index.h"
#include "repo_tools.h"

/* Room kept at the end of a result for the note that says what was left out. */
#define NOTE_ROOM 240

struct repo_tools {
	struct repo_tools_options opts;         /* the defaults filled in, clamped */
	char *state;
	struct repo_tool_use *log;
	size_t nlog, alloc;
	uint64_t read;                          /* bytes of files read so far */
};

/* One call being run. */
struct call {
	struct repo_tools *rt;
	const struct index *index;
	struct tool_output *out;
	size_t max;                             /* what out may hold */
	int64_t until;                          /* clock_ms(): its time is up */
	struct repo_tool_use *use;
	size_t spans_alloc;                     /* use->spans' */
	char read_max[32];                      /* call_read_max's text */
};

/* A tool error: its text for the model, and the log's message. */
int call_fail(struct call *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether n more bytes fit in the result, leaving the room for a note. */
bool call_fits(const struct call *c, size_t n);
/* A range of lines the model is shown. */
int call_span(struct call *c, const char *path, uint32_t start, uint32_t end);
/* Whether the time is up (the call's or the check's). */
bool call_late(const struct call *c);
/* Bytes of files the question's calls may still read. */
uint64_t call_read_left(const struct call *c);
/* The bytes of files a question's calls may read, as said ("256 MiB"). */
const char *call_read_max(struct call *c);
/* A file of the index read for the call, counted against the question's bytes (RL_EPARSE: binary). */
int call_read(struct buf *out, struct call *c, const struct index_file *file);
/* At most max bytes of s, not cutting a UTF-8 sequence. */
size_t text_cut(const char *s, size_t len, size_t max);
/* A line of a file shown: at most max bytes from s, control characters but tab as spaces. */
int text_line(struct buf *out, const char *s, size_t len, size_t max);

/* repo_tools_read.c */
int tool_read_file(struct call *c, const struct repo_tool_args *a);
int tool_references(struct call *c, const struct repo_tool_args *a);

/* repo_tools_search.c */
int tool_search(struct call *c, const struct repo_tool_args *a);

#endif
