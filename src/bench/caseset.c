/* A repository's set of benchmark cases, kept in the store. */
#include "caseset.h"
#include "array.h"
#include "status.h"
#include "store_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void record_free(struct store_bench_case *recs, char **texts, size_t n)
{
	size_t i;

	for (i = 0; texts && i < n; i++)
		free(texts[i]);
	free(texts);
	free(recs);
}

int caseset_save(struct store *store, int64_t repo_id, struct bench_cases *cases, const char *mined_with)
{
	size_t n = cases->count, i;
	struct store_bench_case *recs = calloc(n ? n : 1, sizeof(*recs));
	char **texts = calloc(n ? n : 1, sizeof(*texts));
	int64_t *ids = calloc(n ? n : 1, sizeof(*ids));
	int error = 0;

	if (!recs || !texts || !ids) {
		error = error_nomem();
		goto done;
	}
	for (i = 0; i < n && !error; i++) {
		const struct bench_case *c = &cases->items[i];

		error = bench_case_lines_json(&texts[i], c);
		recs[i] = (struct store_bench_case){ 0, c->commit, c->parent, c->subject, fixcommit_why_name(c->why),
						     c->time, c->lines, texts[i], c->excluded };
	}
	if (!error && (error = store_bench_cases_put(store, ids, repo_id, recs, n, mined_with)) == 0)
		for (i = 0; i < n; i++)
			cases->items[i].id = ids[i];
done:
	record_free(recs, texts, n);
	free(ids);
	return error;
}

static int why_parse(enum fixcommit_why *out, const char *name)
{
	int i;

	for (i = FIXCOMMIT_WORD; i <= FIXCOMMIT_REVERT; i++)
		if (name && !strcmp(name, fixcommit_why_name((enum fixcommit_why)i))) {
			*out = (enum fixcommit_why)i;
			return 0;
		}
	*out = FIXCOMMIT_WORD;
	return 0;
}

static int case_take(const struct store_bench_case *r, void *ctx)
{
	struct bench_cases *out = ctx;
	struct bench_case *c;
	int error;

	if (ARRAY_GROW(out->items, out->alloc, out->count + 1) < 0)
		return RL_ENOMEM;
	c = &out->items[out->count++];
	memset(c, 0, sizeof(*c));
	c->id = r->id;
	snprintf(c->commit, sizeof(c->commit), "%s", r->commit);
	snprintf(c->parent, sizeof(c->parent), "%s", r->parent);
	why_parse(&c->why, r->why);
	c->time = r->committed_at;
	c->lines = r->lines;
	c->excluded = r->excluded;
	if (!(c->subject = strdup(r->subject ? r->subject : "")))
		return error_nomem();
	if ((error = bench_case_lines_parse(c, r->expected, strlen(r->expected))) < 0) {
		char why[512];

		snprintf(why, sizeof(why), "%s", error_message());
		return error_set(error, "the stored case of commit %.12s: %s (mine them again: bench --list --max N)",
				 r->commit, why);
	}
	return 0;
}

int caseset_load(struct bench_cases *out, char **mined_with, struct store *store, int64_t repo_id)
{
	int error;

	memset(out, 0, sizeof(*out));
	if ((error = store_bench_cases_get(store, repo_id, mined_with, case_take, out)) < 0) {
		bench_cases_release(out);
		if (mined_with) {
			free(*mined_with);
			*mined_with = NULL;
		}
	}
	return error;
}
