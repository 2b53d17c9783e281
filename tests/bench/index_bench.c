/*
 * The driver of bench_index.py: one build of the repository index of a
 * side (src/context/index.h) with a store, then a references search
 * (refs.h), timed, as one line of JSON.
 *
 *     index_bench REPO STORE [--staged | --range A..B] [--untracked] [--refs N]
 *
 * STORE is the store's location (a file: the cold build is the first on a
 * new file, the warm one the next). --refs N searches the references of N
 * functions of the side, picked evenly through its definitions (what a
 * context pack asks: the callers of a change's functions).
 */
#include "clock.h"
#include "index.h"
#include "refs.h"
#include "repo.h"
#include "status.h"
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void json_str(const char *s)
{
	putchar('"');
	for (; s && *s; s++)
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	putchar('"');
}

/* n callable definitions' names, evenly through the index, each once. */
static size_t pick(const struct index *index, const char **names, size_t n)
{
	size_t count, i, k = 0, step;
	const struct def *defs = index_defs(index, &count);

	step = count / (n ? n * 2 : 1) + 1;
	for (i = 0; i < count && k < n; i += step) {
		size_t j, m;
		bool again = false;

		for (j = i; j < count && !(defs[j].flags & DEF_CALLABLE); j++)
			;
		if (j >= count)
			break;
		for (m = 0; m < k; m++)
			again |= !strcmp(names[m], defs[j].name);
		if (!again && strlen(defs[j].name) > 3)
			names[k++] = defs[j].name;
	}
	return k;
}

static int refs_run(const struct index *index, size_t n)
{
	const char **names = calloc(n + 1, sizeof(*names));
	struct refs refs;
	int64_t start;
	size_t k = names ? pick(index, names, n) : 0;

	/* The best of three: the first also pays for the files' pages. */
	int64_t best = -1;

	for (int run = 0; run < (getenv("REFS_RUNS") ? atoi(getenv("REFS_RUNS")) : 3); run++) {
		start = clock_us();
		if (run)
			refs_release(&refs);
		if (refs_find(&refs, index, names, k, NULL) < 0) {
			fprintf(stderr, "refs: %s\n", error_message());
			return 1;
		}
		if (best < 0 || clock_us() - start < best)
			best = clock_us() - start;
	}
	printf(", \"refs_ms\": %.1f, \"refs_names\": %zu, \"refs\": %zu, \"refs_files_read\": %zu, "
	       "\"refs_bytes_read\": %zu", (double)best / 1000.0, k, refs.count, refs.files_read,
	       refs.bytes_read);
	refs_release(&refs);
	free(names);
	return 0;
}

int main(int argc, char **argv)
{
	struct target_spec spec = { 0 };
	struct index_options opts = { 0 };
	struct repo *repo = NULL;
	struct store *store = NULL;
	struct target target = { 0 };
	struct index *index = NULL;
	const struct index_stats *st;
	size_t nrefs = 0;
	int i, rc = 1;
	int64_t start;

	if (argc < 3) {
		fprintf(stderr, "usage: index_bench REPO STORE [--staged | --range A..B] [--untracked] [--refs N]\n");
		return 2;
	}
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--staged"))
			spec.staged = true;
		else if (!strcmp(argv[i], "--untracked"))
			spec.untracked = true;
		else if (!strcmp(argv[i], "--range") && i + 1 < argc)
			spec.range = argv[++i];
		else if (!strcmp(argv[i], "--refs") && i + 1 < argc)
			nrefs = (size_t)atoi(argv[++i]);
	}
	if (repo_open(&repo, argv[1]) < 0 || repo_resolve(&target, repo, &spec) < 0 ||
	    store_open(&store, argv[2]) < 0) {
		fprintf(stderr, "index_bench: %s\n", error_message());
		goto done;
	}
	opts.repo = repo;
	opts.target = &target;
	opts.store = store;
	start = clock_us();
	if (index_new(&index, &opts) < 0 || index_start(index, NULL) < 0 || index_wait(index, -1) < 0 ||
	    index_status(index) < 0) {
		fprintf(stderr, "index_bench: %s\n", index && index_message(index) ? index_message(index) : error_message());
		goto done;
	}
	st = index_stats(index);
	printf("{\"ms\": %.1f, \"list_ms\": %lld, \"store_ms\": %lld, \"tag_ms\": %lld, \"files\": %zu, "
	       "\"excluded\": %zu, \"blobs\": %zu, \"stored\": %zu, \"tagged\": %zu, \"defs\": %zu, \"complete\": %s, "
	       "\"note\": ", (double)(clock_us() - start) / 1000.0, (long long)st->list_ms, (long long)st->store_ms,
	       (long long)st->tag_ms, st->files, st->excluded, st->blobs, st->stored, st->tagged, st->defs,
	       index_complete(index) ? "true" : "false");
	json_str(index_note(index));
	rc = nrefs ? refs_run(index, nrefs) : 0;
	printf("}\n");
done:
	index_free(index);
	store_close(store);
	target_release(&target);
	repo_free(repo);
	return rc;
}
