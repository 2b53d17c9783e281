#ifndef REVLINE_MINE_H
#define REVLINE_MINE_H

#include <stddef.h>
#include <stdint.h>

#include "bench_case.h"
#include "repo.h"

/*
 * The benchmark's cases mined from the history (bench_case.h): commits
 * from HEAD that fix a bug (fixcommit.h), not merges, not a bot's, that
 * touch code (not only tests or docs) and are small. Only the object
 * database is read.
 */
#define MINE_MAX_DEFAULT 50     /* cases, unless --max says */
#define MINE_MAX_FILES 5        /* code files a fix may touch */
#define MINE_MAX_LINES 150      /* code lines it may change, added and removed */
#define MINE_MAX_DELTAS 30      /* files of any kind */

struct mine_options {
	int64_t since;                  /* seconds since the epoch; 0: all */
	const char *const *paths;       /* gitignore-style patterns a code file must match; none: any */
	size_t npaths;
	size_t max;                     /* 0: MINE_MAX_DEFAULT */
	uint64_t seed;                  /* which max of more fixes: the same seed, the same cases */
};

/* What the mining saw, for the listing. */
struct mine_stats {
	size_t commits;                 /* walked */
	size_t merges, bots, fixes;     /* fixes: messages that say so, bots' and merges' apart */
	size_t style, large, no_code, outside;  /* fixes left out: typo/docs, too large, only tests/docs, no file in --paths */
	size_t found;                   /* fixes that make a case, before --max */
	int64_t ms;
};

/*
 * --since: a date, "2025-01-31", or an age, "90 days ago", "6 months"
 * ("ago" optional; days, weeks, months of 30 days, years of 365; "d", "w",
 * "m", "y" too): seconds since the epoch in *out, counted from now (s).
 * RL_EUSAGE saying what is taken.
 */
int mine_since_parse(int64_t *out, const char *text, int64_t now);

/* The cases, newest first; at most max, chosen by the seed when more were found. */
int mine_cases(struct bench_cases *out, struct mine_stats *stats, struct repo *repo,
	       const struct mine_options *options);

#endif
