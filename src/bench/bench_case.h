#ifndef REVLINE_BENCH_CASE_H
#define REVLINE_BENCH_CASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "fixcommit.h"

/*
 * A case of the benchmark: a commit that fixed a bug, reversed. The change
 * under review has the fix's tree as its base and its parent's as the new
 * side: the bug as if it were being introduced. What a review should find
 * is where the fix touched, as those lines stand on the new side (the
 * parent's): the lines it changed or removed there, and for a fix that
 * only added lines, the two lines around the place it added them.
 */
struct bench_range {
	int start, end;         /* lines of the new side, inclusive, from 1 */
};

struct bench_case_file {
	char *path;             /* as on the new side */
	struct bench_range *ranges;
	size_t nranges, ranges_alloc;
};

struct bench_case {
	int64_t id;             /* its row in the store; 0 until stored */
	char commit[41];        /* the fix (the base of the reversed change) */
	char parent[41];        /* before the fix (its new side) */
	char *subject;          /* the fix's subject, for the listing (never shown to the model) */
	enum fixcommit_why why;
	int64_t time;           /* committed, seconds */
	int lines;              /* the lines the fix changed in its code files */
	bool excluded;          /* --exclude: kept, not run */
	struct bench_case_file *files;
	size_t nfiles, files_alloc;
};

struct bench_cases {
	struct bench_case *items;
	size_t count, alloc;
};

void bench_case_release(struct bench_case *c);
void bench_cases_release(struct bench_cases *cases);

/* A range added to the file at path (the file made when new), merged with one it touches. */
int bench_case_add_range(struct bench_case *c, const char *path, int start, int end);

/*
 * Whether lines [line, end_line] of path come within tolerance lines of
 * what the case expects there.
 */
bool bench_case_hits(const struct bench_case *c, const char *path, int line, int end_line, int tolerance);

/* The expected lines as stored: [{"path": "a.c", "lines": [[3, 5], [9, 9]]}, ...]. */
int bench_case_lines_json(char **out, const struct bench_case *c);
/*
 * The same read back into c's files, within bounds (1,000 files, 10,000
 * ranges, lines from 1 to 100,000,000, start <= end): RL_EPARSE naming
 * what is wrong.
 */
int bench_case_lines_parse(struct bench_case *c, const char *json, size_t len);

/* "app.c:3-5,9; lib/x.c:12": where the case's bug is, for the listing. */
int bench_case_where(struct buf *out, const struct bench_case *c);

#endif
