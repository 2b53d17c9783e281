/* The benchmark's cases mined from the history: fixes, reversed. */
#include "mine.h"
#include "array.h"
#include "clock.h"
#include "glob.h"
#include "repo_log.h"
#include "status.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The fix's code files: tracked text, code by its name, inside --paths when given. */
static bool wanted(const struct repo_change_file *f, const struct mine_options *o)
{
	return !f->binary && fixcommit_path_kind(f->path) == PATH_CODE &&
	       (!o->npaths || glob_match_list(o->paths, o->npaths, f->path));
}

/*
 * The case's lines on the new side (the parent's): what the fix changed or
 * removed there; where it only added, the line before and the one after.
 */
static int case_ranges(struct bench_case *c, const struct repo_change_file *f)
{
	size_t i;
	int error;

	for (i = 0; i < f->nhunks; i++) {
		const struct repo_change_hunk *h = &f->hunks[i];
		int start = h->old_count ? h->old_start : (h->old_start > 0 ? h->old_start : 1);
		int end = h->old_count ? h->old_start + h->old_count - 1 : h->old_start + 1;

		if ((error = bench_case_add_range(c, f->path, start, end)) < 0)
			return error;
	}
	return 0;
}

enum verdict { TAKE, NO_CODE, LARGE, OUTSIDE };

/* Whether the change makes a case, and its lines when it does. */
static int case_fill(enum verdict *v, struct bench_case *c, const struct repo_change *ch,
		     const struct mine_options *o)
{
	size_t i, files = 0, outside = 0;
	int lines = 0, error;

	for (i = 0; i < ch->nfiles; i++) {
		const struct repo_change_file *f = &ch->files[i];

		if (!wanted(f, o)) {
			outside += !f->binary && fixcommit_path_kind(f->path) == PATH_CODE;
			continue;
		}
		files++;
		lines += f->additions + f->deletions;
		if (!f->added && (error = case_ranges(c, f)) < 0)
			return error;
	}
	c->lines = lines;
	if (!files)
		*v = outside ? OUTSIDE : NO_CODE;
	else if (files > MINE_MAX_FILES || lines > MINE_MAX_LINES)
		*v = LARGE;
	else
		*v = c->nfiles ? TAKE : NO_CODE;
	return 0;
}

static int subject_dup(char **out, const char *message)
{
	size_t n = strcspn(message, "\r\n");

	if (n > 200)
		n = 200;
	if (!(*out = strndup(message, n)))
		return error_nomem();
	return 0;
}

/* One commit: a case appended, or counted where it went. */
static int commit_take(struct bench_cases *out, struct mine_stats *st, struct repo *repo,
		       const struct repo_log_commit *rc, const struct mine_options *o)
{
	struct repo_change ch;
	struct bench_case c = { 0 };
	struct fixcommit fx;
	enum verdict v = TAKE;
	bool over;
	int error;

	if (rc->nparents != 1) {
		st->merges += rc->nparents > 1;
		return 0;
	}
	if (fixcommit_bot(rc->author_name, rc->author_email)) {
		st->bots++;
		return 0;
	}
	fixcommit_classify(&fx, rc->message, strlen(rc->message));
	if (fx.why == FIXCOMMIT_NONE)
		return 0;
	st->fixes++;
	if (fx.skip) {
		st->style++;
		return 0;
	}
	if ((error = repo_change_read(&ch, &over, repo, rc->oid, MINE_MAX_DELTAS)) < 0)
		return error;
	if (!over && (error = case_fill(&v, &c, &ch, o)) < 0)
		goto done;
	if (over || v == LARGE)
		st->large++;
	else if (v == NO_CODE)
		st->no_code++;
	else if (v == OUTSIDE)
		st->outside++;
	if (over || v != TAKE)
		goto done;
	memcpy(c.commit, rc->oid, sizeof(c.commit));
	memcpy(c.parent, rc->parent, sizeof(c.parent));
	c.why = fx.why;
	c.time = rc->time;
	if ((error = subject_dup(&c.subject, rc->message)) < 0 ||
	    (error = ARRAY_GROW(out->items, out->alloc, out->count + 1)) < 0)
		goto done;
	out->items[out->count++] = c;
	memset(&c, 0, sizeof(c));
	st->found++;
done:
	bench_case_release(&c);
	repo_change_release(&ch);
	return error;
}

/* FNV-1a over the seed and the commit: a fixed order that the seed shuffles. */
static uint64_t case_key(uint64_t seed, const char *commit)
{
	uint64_t h = 1469598103934665603ULL;
	int i;

	for (i = 0; i < 8; i++) {
		h ^= (seed >> (8 * i)) & 0xff;
		h *= 1099511628211ULL;
	}
	for (; *commit; commit++) {
		h ^= (unsigned char)*commit;
		h *= 1099511628211ULL;
	}
	return h;
}

struct keyed {
	uint64_t key;
	size_t index;
};

static int by_key(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key ? 1 : (x->index > y->index) - (x->index < y->index);
}

static int by_index(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

/* More than max: the max first in the seed's order, kept newest first. */
static int choose(struct bench_cases *cases, size_t max, uint64_t seed)
{
	struct keyed *k;
	struct bench_case *kept;
	size_t i;

	if (cases->count <= max)
		return 0;
	if (!(k = calloc(cases->count, sizeof(*k))) || !(kept = calloc(max, sizeof(*kept)))) {
		free(k);
		return error_nomem();
	}
	for (i = 0; i < cases->count; i++)
		k[i] = (struct keyed){ case_key(seed, cases->items[i].commit), i };
	qsort(k, cases->count, sizeof(*k), by_key);
	for (i = max; i < cases->count; i++)
		bench_case_release(&cases->items[k[i].index]);
	qsort(k, max, sizeof(*k), by_index);
	for (i = 0; i < max; i++)
		kept[i] = cases->items[k[i].index];
	free(cases->items);
	free(k);
	cases->items = kept;
	cases->count = cases->alloc = max;
	return 0;
}

int mine_cases(struct bench_cases *out, struct mine_stats *st, struct repo *repo, const struct mine_options *o)
{
	struct repo_log *log = NULL;
	struct repo_log_commit rc;
	int64_t start = clock_ms();
	int rc_next, error;

	memset(out, 0, sizeof(*out));
	memset(st, 0, sizeof(*st));
	if ((error = repo_log_open(&log, repo, o->since)) < 0)
		return error;
	while ((rc_next = repo_log_next(&rc, log)) > 0) {
		st->commits++;
		if ((error = commit_take(out, st, repo, &rc, o)) < 0)
			goto done;
	}
	if ((error = rc_next) < 0)
		goto done;
	error = choose(out, o->max ? o->max : MINE_MAX_DEFAULT, o->seed);
done:
	repo_log_free(log);
	st->ms = clock_ms() - start;
	if (error < 0)
		bench_cases_release(out);
	return error;
}

static int64_t days_from_civil(int y, int m, int d)
{
	int era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (int64_t)era * 146097 + doe - 719468;
}

static bool date_parse(int64_t *out, const char *text)
{
	int y, m, d, n = 0;

	if (sscanf(text, "%4d-%2d-%2d%n", &y, &m, &d, &n) != 3 || text[n] || n != 10 || y < 1970 || y > 9999 ||
	    m < 1 || m > 12 || d < 1 || d > 31)
		return false;
	*out = days_from_civil(y, m, d) * 86400;
	return true;
}

static bool age_parse(int64_t *out, const char *text, int64_t now)
{
	static const struct { const char *word; int64_t seconds; } units[] = {
		{ "d", 86400 }, { "day", 86400 }, { "days", 86400 }, { "w", 7 * 86400 }, { "week", 7 * 86400 },
		{ "weeks", 7 * 86400 }, { "m", 30 * 86400 }, { "month", 30 * 86400 }, { "months", 30 * 86400 },
		{ "y", 365 * 86400 }, { "year", 365 * 86400 }, { "years", 365 * 86400 },
	};
	char unit[16] = "", ago[8] = "";
	long count;
	int n = 0;
	size_t i;

	if (!isdigit((unsigned char)*text) ||
	    sscanf(text, "%9ld %15[a-z] %7s%n", &count, unit, ago, &n) < 2)
		return false;
	if (!n && sscanf(text, "%9ld %15[a-z]%n", &count, unit, &n) != 2)
		return false;
	if (text[n] || (*ago && strcmp(ago, "ago")) || count < 0 || count > 100000)
		return false;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].word)) {
			*out = now - count * units[i].seconds;
			if (*out < 0)
				*out = 0;
			return true;
		}
	return false;
}

int mine_since_parse(int64_t *out, const char *text, int64_t now)
{
	if (text && (date_parse(out, text) || age_parse(out, text, now)))
		return 0;
	return error_set(RL_EUSAGE, "--since takes a date (2025-01-31) or an age (\"90 days ago\", \"6 months\", "
			 "\"1y\"), not '%s'", text ? text : "");
}
