/*
 * Rename detection with git's rules (see rename.h): the same steps, the
 * same score, the same order and tie-breaking as git's diffcore-rename, so
 * that revline pairs the files git pairs.
 */
#include "rename.h"
#include "similarity.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CANDIDATES 4            /* git's NUM_CANDIDATE_PER_DST */
#define IDENTICAL_MAX 100       /* identical sources looked at per destination */

enum phase { PHASE_EXACT, PHASE_BASENAME, PHASE_MATRIX, PHASE_DONE };

struct side {
	const git_diff_file *file;
	git_oid id;
	bool has_id;
	bool size_known, sig_known, unreadable;
	size_t size;
	struct similarity_sig sig;
	bool used;              /* a source already renamed / a destination paired */
	size_t src;             /* a destination's source */
	unsigned score;
};

struct candidate {
	long src, dst;          /* -1: unused slot */
	unsigned score;
	int name_score;
};

struct named {
	const char *base;
	size_t index;
};

struct rename {
	git_repository *git;
	git_odb *odb;
	struct rename_options opts;
	struct side *srcs, *dsts;
	size_t nsrc, ndst;
	enum phase phase;
	size_t cursor;          /* basename: next source; matrix: next destination */
	struct named *src_names, *dst_names;
	size_t nsrc_names, ndst_names;
	size_t *left;           /* matrix: the sources left */
	size_t nleft;
	struct candidate *mx;
	size_t nmx;
};

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static bool is_regular(uint32_t mode)
{
	return (mode & 0170000) == 0100000;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static bool same_base_name(const char *a, const char *b)
{
	return !strcmp(base_name(a), base_name(b));
}

/* Read a side once: its size, and git's chunk counts for a regular file. */
static int side_read(struct rename *r, struct side *s)
{
	git_buf text = { 0 };
	int error = 0;

	if (s->sig_known || s->unreadable)
		return 0;
	if (r->opts.read(r->opts.ctx, &text, s->file) < 0) {
		s->unreadable = true;
		return 0;
	}
	s->size = text.size;
	s->size_known = true;
	if (similarity_sig_of(&s->sig, text.ptr, text.size) < 0)
		error = error_nomem();
	else
		s->sig_known = true;
	git_buf_dispose(&text);
	return error;
}

/* The size, from the object database when the blob is there (nothing inflated). */
static int side_size(struct rename *r, struct side *s)
{
	git_object_t type;
	size_t len;

	if (s->size_known || s->unreadable)
		return 0;
	if (s->has_id && r->odb && git_odb_read_header(&len, &type, r->odb, &s->id) == 0) {
		s->size = len;
		s->size_known = true;
		return 0;
	}
	return side_read(r, s);
}

/* A working-tree side's blob id, as git hashes a file that was never added. */
static int side_hash(struct rename *r, struct side *s)
{
	git_buf text = { 0 };

	if (s->has_id)
		return 0;
	if (r->opts.read(r->opts.ctx, &text, s->file) == 0 &&
	    git_odb_hash(&s->id, text.ptr, text.size, GIT_OBJECT_BLOB) == 0)
		s->has_id = true;
	git_buf_dispose(&text);
	return 0;
}

/* git's estimate_similarity: 0 for what may not pair, else the score. */
static int estimate(unsigned *out, struct rename *r, struct side *src, struct side *dst)
{
	size_t max, base;
	int error;

	*out = 0;
	if (!is_regular(src->file->mode) || !is_regular(dst->file->mode))
		return 0;
	if ((error = side_size(r, src)) < 0 || (error = side_size(r, dst)) < 0)
		return error;
	if (!src->size_known || !dst->size_known)
		return 0;
	max = src->size > dst->size ? src->size : dst->size;
	base = src->size < dst->size ? src->size : dst->size;
	if ((uint64_t)max * (SIMILARITY_MAX - r->opts.min_score) < (uint64_t)(max - base) * SIMILARITY_MAX)
		return 0;
	if ((error = side_read(r, src)) < 0 || (error = side_read(r, dst)) < 0)
		return error;
	if (src->sig_known && dst->sig_known && dst->size)
		*out = similarity_score(&src->sig, &dst->sig);
	return 0;
}

static void pair(struct rename *r, size_t dst, size_t src, unsigned score)
{
	r->dsts[dst].used = true;
	r->dsts[dst].src = src;
	r->dsts[dst].score = score;
	r->srcs[src].used = true;
}

static int oid_order(const void *a, const void *b, void *ctx)
{
	const struct rename *r = ctx;
	const size_t *x = a, *y = b;
	int c = git_oid_cmp(&r->srcs[*x].id, &r->srcs[*y].id);

	return c ? c : (*x > *y) - (*x < *y);
}

/* The sources by blob id (then by their order), for the identical-content step. */
static int sources_by_id(size_t **out, size_t *count, struct rename *r)
{
	size_t i, n = 0, *order = malloc((r->nsrc ? r->nsrc : 1) * sizeof(*order));

	if (!order)
		return error_nomem();
	for (i = 0; i < r->nsrc; i++)
		if (r->srcs[i].has_id)
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), oid_order, r);
	*out = order;
	*count = n;
	return 0;
}

/* git's find_identical_files for one destination. */
static void exact_one(struct rename *r, const size_t *order, size_t n, size_t d)
{
	struct side *dst = &r->dsts[d];
	size_t lo = 0, hi = n, best = RENAME_NONE;
	int best_score = -1, looked = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (git_oid_cmp(&r->srcs[order[mid]].id, &dst->id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && git_oid_equal(&r->srcs[order[lo]].id, &dst->id); lo++) {
		struct side *src = &r->srcs[order[lo]];
		int score;

		if ((!is_regular(src->file->mode) || !is_regular(dst->file->mode)) &&
		    src->file->mode != dst->file->mode)
			continue;
		if (src->used)
			continue;
		score = 1 + same_base_name(src->file->path, dst->file->path);
		if (score > best_score) {
			best = order[lo];
			best_score = score;
			if (score == 2)
				break;
		}
		if (++looked == IDENTICAL_MAX)
			break;
	}
	if (best != RENAME_NONE)
		pair(r, d, best, SIMILARITY_MAX);
}

static int exact_renames(struct rename *r)
{
	size_t *order = NULL, n = 0, d;
	int error;

	for (d = 0; d < r->ndst; d++)
		side_hash(r, &r->dsts[d]);
	if ((error = sources_by_id(&order, &n, r)) < 0)
		return error;
	for (d = 0; d < r->ndst; d++)
		if (r->dsts[d].has_id)
			exact_one(r, order, n, d);
	free(order);
	return 0;
}

static int named_order(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->base, y->base);

	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/*
 * The destinations left, by file name; a name found more than once is kept
 * once with RENAME_NONE as its index.
 */
static int names_of(struct named **out, size_t *count, struct side *sides, size_t n)
{
	struct named *list = malloc((n ? n : 1) * sizeof(*list));
	size_t i, k = 0, w = 0;

	if (!list)
		return error_nomem();
	for (i = 0; i < n; i++)
		if (!sides[i].used)
			list[k++] = (struct named){ base_name(sides[i].file->path), i };
	qsort(list, k, sizeof(*list), named_order);
	for (i = 0; i < k; i++) {
		if (w && !strcmp(list[w - 1].base, list[i].base))
			list[w - 1].index = RENAME_NONE;
		else
			list[w++] = list[i];
	}
	*out = list;
	*count = w;
	return 0;
}

static const struct named *name_find(const struct named *list, size_t n, const char *base)
{
	struct named key = { base, 0 };
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(list[mid].base, key.base);

		if (!c)
			return &list[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * git's find_basename_matches: the file names are those of the sources and
 * destinations left after the identical ones, taken once before any pair.
 */
static int basename_start(struct rename *r)
{
	int error;

	if ((error = names_of(&r->src_names, &r->nsrc_names, r->srcs, r->nsrc)) < 0 ||
	    (error = names_of(&r->dst_names, &r->ndst_names, r->dsts, r->ndst)) < 0)
		return error;
	r->cursor = 0;
	return 0;
}

static int basename_renames(struct rename *r, int64_t deadline)
{
	unsigned min = r->opts.min_score + (SIMILARITY_MAX - r->opts.min_score) / 2;
	int error = 0;

	while (r->cursor < r->nsrc && !error) {
		size_t s = r->cursor++;
		const char *base = base_name(r->srcs[s].file->path);
		const struct named *src = name_find(r->src_names, r->nsrc_names, base), *dst;
		unsigned score;

		if (r->srcs[s].used || !src || src->index != s ||
		    !(dst = name_find(r->dst_names, r->ndst_names, base)) || dst->index == RENAME_NONE ||
		    r->dsts[dst->index].used)
			continue;
		error = estimate(&score, r, &r->srcs[s], &r->dsts[dst->index]);
		if (!error && score >= min)
			pair(r, dst->index, s, score);
		if (now_us() >= deadline)
			break;
	}
	return error;
}

/* git's score_compare: the better candidate first, unused slots last. */
static int candidate_cmp(const struct candidate *a, const struct candidate *b)
{
	if (a->dst < 0)
		return b->dst >= 0;
	if (b->dst < 0)
		return -1;
	if (a->score == b->score)
		return b->name_score - a->name_score;
	return a->score < b->score ? 1 : -1;
}

/* git's record_if_better: o replaces the worst kept when strictly better. */
static void keep_if_better(struct candidate *m, const struct candidate *o)
{
	int i, worst = 0;

	for (i = 1; i < CANDIDATES; i++)
		if (candidate_cmp(&m[i], &m[worst]) > 0)
			worst = i;
	if (candidate_cmp(&m[worst], o) > 0)
		m[worst] = *o;
}

static int matrix_start(struct rename *r)
{
	size_t i, ndst = 0;

	if (!(r->left = malloc((r->nsrc ? r->nsrc : 1) * sizeof(*r->left))))
		return error_nomem();
	for (i = 0; i < r->nsrc; i++)
		if (!r->srcs[i].used)
			r->left[r->nleft++] = i;
	for (i = 0; i < r->ndst; i++)
		ndst += !r->dsts[i].used;
	r->cursor = 0;
	if (!ndst || !r->nleft || (uint64_t)ndst * r->nleft > (uint64_t)r->opts.limit * r->opts.limit) {
		r->phase = PHASE_DONE;
		return 1;
	}
	if (!(r->mx = malloc(ndst * CANDIDATES * sizeof(*r->mx))))
		return error_nomem();
	return 0;
}

static int matrix_row(struct rename *r, size_t d)
{
	struct candidate *m = &r->mx[r->nmx];
	size_t j;
	int i, error = 0;

	for (i = 0; i < CANDIDATES; i++)
		m[i] = (struct candidate){ -1, -1, 0, 0 };
	for (j = 0; j < r->nleft && !error; j++) {
		size_t s = r->left[j];
		struct candidate c = { (long)s, (long)d, 0, 0 };

		error = estimate(&c.score, r, &r->srcs[s], &r->dsts[d]);
		c.name_score = same_base_name(r->srcs[s].file->path, r->dsts[d].file->path);
		keep_if_better(m, &c);
	}
	r->nmx += CANDIDATES;
	return error;
}

static int candidate_qsort(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;
	int c = candidate_cmp(x, y);

	/* Stable, as git's STABLE_QSORT: ties keep their order. */
	return c ? c : (x < y ? -1 : x > y);
}

static void matrix_finish(struct rename *r)
{
	size_t i;

	qsort(r->mx, r->nmx, sizeof(*r->mx), candidate_qsort);
	for (i = 0; i < r->nmx; i++) {
		const struct candidate *c = &r->mx[i];

		if (c->dst < 0 || c->score < r->opts.min_score)
			break;
		if (r->dsts[c->dst].used || r->srcs[c->src].used)
			continue;
		pair(r, (size_t)c->dst, (size_t)c->src, c->score);
	}
	r->phase = PHASE_DONE;
}

/* Once every pair is known, the signatures are not needed any more. */
static void sigs_release(struct rename *r)
{
	size_t i;

	for (i = 0; i < r->nsrc; i++)
		similarity_sig_release(&r->srcs[i].sig);
	for (i = 0; i < r->ndst; i++)
		similarity_sig_release(&r->dsts[i].sig);
}

int rename_step(struct rename *r, int64_t budget_us)
{
	int64_t deadline = now_us() + budget_us;
	int error = 0;

	switch (r->phase) {
	case PHASE_EXACT:
		if ((error = exact_renames(r)) < 0)
			return error;
		r->phase = PHASE_BASENAME;
		return basename_start(r);
	case PHASE_BASENAME:
		if ((error = basename_renames(r, deadline)) < 0)
			return error;
		if (r->cursor < r->nsrc)
			return 0;
		r->phase = PHASE_MATRIX;
		if ((error = matrix_start(r)) != 0) {
			sigs_release(r);
			return error;
		}
		/* fall through */
	case PHASE_MATRIX:
		while (r->cursor < r->ndst && !error) {
			size_t d = r->cursor++;

			if (r->dsts[d].used)
				continue;
			error = matrix_row(r, d);
			if (now_us() >= deadline)
				break;
		}
		if (error < 0)
			return error;
		if (r->cursor < r->ndst)
			return 0;
		matrix_finish(r);
		sigs_release(r);
		/* fall through */
	case PHASE_DONE:
		return 1;
	}
	return 1;
}

int rename_run(struct rename *r)
{
	int rc;

	while ((rc = rename_step(r, INT64_MAX / 4)) == 0)
		;
	return rc < 0 ? rc : 0;
}

bool rename_done(const struct rename *r)
{
	return r->phase == PHASE_DONE;
}

bool rename_exact_done(const struct rename *r)
{
	return r->phase != PHASE_EXACT;
}

bool rename_used(const struct rename *r, size_t src)
{
	return src < r->nsrc && r->srcs[src].used;
}

size_t rename_source(const struct rename *r, size_t dst, unsigned *score)
{
	if (dst >= r->ndst || !r->dsts[dst].used) {
		*score = 0;
		return RENAME_NONE;
	}
	*score = r->dsts[dst].score;
	return r->dsts[dst].src;
}

static void sides_init(struct side *sides, const git_diff_file *const *files, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		sides[i].file = files[i];
		sides[i].src = RENAME_NONE;
		if (files[i]->flags & GIT_DIFF_FLAG_VALID_ID && !git_oid_is_zero(&files[i]->id)) {
			sides[i].id = files[i]->id;
			sides[i].has_id = true;
		}
	}
}

int rename_new(struct rename **out, git_repository *git, const git_diff_file *const *srcs, size_t nsrc,
	       const git_diff_file *const *dsts, size_t ndst, const struct rename_options *opts)
{
	struct rename *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return error_nomem();
	r->git = git;
	r->opts = *opts;
	if (!r->opts.min_score)
		r->opts.min_score = SIMILARITY_MAX / 2;
	if (!r->opts.limit)
		r->opts.limit = 1000;
	r->srcs = calloc(nsrc ? nsrc : 1, sizeof(*r->srcs));
	r->dsts = calloc(ndst ? ndst : 1, sizeof(*r->dsts));
	if (!r->srcs || !r->dsts) {
		rename_free(r);
		return error_nomem();
	}
	r->nsrc = nsrc;
	r->ndst = ndst;
	sides_init(r->srcs, srcs, nsrc);
	sides_init(r->dsts, dsts, ndst);
	if (git_repository_odb(&r->odb, git) < 0)
		r->odb = NULL;
	if (!nsrc || !ndst)
		r->phase = PHASE_DONE;
	*out = r;
	return 0;
}

void rename_free(struct rename *r)
{
	if (!r)
		return;
	sigs_release(r);
	git_odb_free(r->odb);
	free(r->srcs);
	free(r->dsts);
	free(r->src_names);
	free(r->dst_names);
	free(r->left);
	free(r->mx);
	free(r);
}
