#ifndef REVLINE_RENAME_H
#define REVLINE_RENAME_H

#include <git2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Rename detection as git does it (diffcore-rename), so that the pairs and
 * their scores are git's: deleted files (sources) are paired with added
 * files (destinations)
 *   1. by identical content (same blob id; a non-regular file must keep its
 *      mode), preferring a source not used yet and then one with the same
 *      file name;
 *   2. by file name: a name found once among the sources left and once
 *      among the destinations left pairs when git's score (similarity.h)
 *      is at least halfway between the minimum and 100%;
 *   3. by score: each destination keeps its best four sources (a tie goes
 *      to the same file name, then to the earlier source), all kept
 *      candidates are sorted by score and taken best first, each file used
 *      once, down to the minimum score (50%). Only regular files are
 *      scored, and never two whose sizes differ by more than the minimum
 *      allows. This step is skipped when sources x destinations exceed
 *      limit x limit (git's diff.renameLimit, 1000).
 *
 * The work goes in slices (rename_step) so that a screen can be drawn
 * between them; the exact pairs are known after the first slice.
 */

struct rename;

/* The content of a side as git hashes it (a working-tree file filtered). */
typedef int (*rename_read_fn)(void *ctx, git_buf *out, const git_diff_file *file);

struct rename_options {
	unsigned min_score;     /* out of SIMILARITY_MAX; 0: git's 50% */
	size_t limit;           /* 0: git's 1000 */
	rename_read_fn read;
	void *ctx;
};

#define RENAME_NONE SIZE_MAX

/*
 * srcs and dsts must stay valid while the detection lives; the paths are
 * in git's order (sorted), as a diff lists them.
 */
int rename_new(struct rename **out, git_repository *git, const git_diff_file *const *srcs, size_t nsrc,
	       const git_diff_file *const *dsts, size_t ndst, const struct rename_options *opts);
void rename_free(struct rename *r);

/*
 * One slice of work of about budget_us microseconds (the exact pairs are
 * always found in one slice). Returns 1 when detection is complete, 0 when
 * work remains, < 0 on error.
 */
int rename_step(struct rename *r, int64_t budget_us);
/* All of it. */
int rename_run(struct rename *r);
/* Whether every pair is known (rename_step returned 1). */
bool rename_done(const struct rename *r);
/* Whether the exact pairs are known. */
bool rename_exact_done(const struct rename *r);

/* Whether source src is paired. */
bool rename_used(const struct rename *r, size_t src);
/* The source paired with destination dst (RENAME_NONE: none), and its score. */
size_t rename_source(const struct rename *r, size_t dst, unsigned *score);

#endif
