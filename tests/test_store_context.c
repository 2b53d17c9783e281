/*
 * The repository index's cache (store_context.h), on a real SQLite file
 * and, as unit/test_store_context-pg, on a PostgreSQL server: blobs
 * recorded with and without tags, read back by a set of blob ids (more
 * than one statement's worth) and by name, per indexer, bytes kept, a
 * blob recorded twice kept as it was first.
 */
#include "testlib.h"
#include "testlib/store.h"

#include "status.h"
#include "store.h"
#include "clock.h"
#include "store_context.h"
#include "tags.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *tmp, *db_path;
static struct store *store;

static int setup(void **state)
{
	(void)state;
	tmp = test_tmpdir("store_context");
	db_path = test_store_location(tmp, "revline.db");
	store = test_store_open(db_path);
	assert_int_equal(store_context_indexer(store, "idx1", "ctags one"), 0);
	assert_int_equal(store_context_indexer(store, "idx2", "ctags two"), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	store_close(store);
	test_rmtree(tmp);
	free(tmp);
	free(db_path);
	return 0;
}

/* What the callbacks saw, as text: "blob:state:ntags:wordsbytes" and "blob:name/kind/line-end/scope/sig/lang/flags". */
struct seen {
	struct buf text;
	size_t count;
};

static int blob_seen(void *ctx, const struct store_context_blob *b)
{
	struct seen *s = ctx;
	size_t i;

	buf_printf(&s->text, "%s:%s:%s:%zu:", b->blob, b->state, b->detail ? b->detail : "-", b->ntags);
	for (i = 0; i < b->words_len; i++)
		buf_printf(&s->text, "%02x", ((const unsigned char *)b->words)[i]);
	buf_puts(&s->text, "\n");
	s->count++;
	return 0;
}

static int tag_seen(void *ctx, const char *blob, const struct tag *t)
{
	struct seen *s = ctx;

	if (s->count < 8)
		buf_printf(&s->text, "%s:%s/%s/%u-%u/%s/%s/%s/%u\n", blob, t->name, t->kind, t->line, t->end, t->scope,
			   t->signature, t->language, t->flags);
	s->count++;
	return 0;
}

static struct tag_list tags_of(size_t n, const char *prefix)
{
	struct tag_list list = { 0 };
	char name[64];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s%zu", prefix, i);
		assert_int_equal(tag_list_add(&list, name, "function", i ? "" : "Outer", i ? "" : "(int a)", "C",
					      (uint32_t)(i + 1), i % 2 ? 0 : (uint32_t)(i + 3), i ? 0 : TAG_FILE_SCOPE), 0);
	}
	return list;
}

static void test_put_and_read(void **state)
{
	struct tag_list forty = tags_of(40, "f"), two = tags_of(2, "g");
	static const unsigned char words[] = { 0x00, 0x80, 0xff, 0x00, 0x01, 0x02, 0x03, 0x04 };
	struct store_context_blob blobs[3] = {
		{ "aaaa", 100, "tagged", NULL, 0, words, sizeof(words), &forty, 0 },
		{ "bbbb", 7, "failed", "ctags crashed on this file (Segmentation fault)", 0, NULL, 0, NULL, 0 },
		{ "cccc", 50, "tagged", NULL, 0, words, 8, &two, 0 },
	};
	const char *const ask[] = { "bbbb", "zzzz", "aaaa" };
	struct seen seen = { BUF_INIT, 0 };

	(void)state;
	assert_int_equal(store_context_put(store, "idx1", blobs, 3), 0);
	assert_int_equal(store_context_blobs(store, "idx1", ask, 3, blob_seen, &seen), 0);
	assert_int_equal(seen.count, 2);
	assert_non_null(strstr(seen.text.ptr, "aaaa:tagged:-:40:0080ff0001020304\n"));
	assert_non_null(strstr(seen.text.ptr, "bbbb:failed:ctags crashed on this file (Segmentation fault):0:\n"));
	buf_clear(&seen.text);
	seen.count = 0;

	/* Tags of the blobs asked, each blob's in order: 40 written as 32 at once and 8 one by one. */
	assert_int_equal(store_context_tags(store, "idx1", ask, 3, tag_seen, &seen), 0);
	assert_int_equal(seen.count, 40);
	assert_string_equal(seen.text.ptr, "aaaa:f0/function/1-3/Outer/(int a)/C/1\n"
			    "aaaa:f1/function/2-0///C/0\naaaa:f2/function/3-5///C/0\naaaa:f3/function/4-0///C/0\n"
			    "aaaa:f4/function/5-7///C/0\naaaa:f5/function/6-0///C/0\naaaa:f6/function/7-9///C/0\n"
			    "aaaa:f7/function/8-0///C/0\n");
	buf_clear(&seen.text);
	seen.count = 0;

	/* Another indexer knows none of them. */
	assert_int_equal(store_context_blobs(store, "idx2", ask, 3, blob_seen, &seen), 0);
	assert_int_equal(seen.count, 0);

	/* By name, in any blob. */
	assert_int_equal(store_context_by_name(store, "idx1", "g1", tag_seen, &seen), 0);
	assert_int_equal(seen.count, 1);
	assert_string_equal(seen.text.ptr, "cccc:g1/function/2-0///C/0\n");
	buf_clear(&seen.text);
	seen.count = 0;
	assert_int_equal(store_context_by_name(store, "idx2", "g1", tag_seen, &seen), 0);
	assert_int_equal(seen.count, 0);

	/* Recorded again (another process was first): kept as it was. */
	blobs[0].tags = &two;
	blobs[0].state = "large";
	assert_int_equal(store_context_put(store, "idx1", blobs, 1), 0);
	assert_int_equal(test_store_int(store, "SELECT count(*) FROM context_tags WHERE blob = 'aaaa'", 0), 40);
	assert_int_equal(test_store_int(store, "SELECT count(*) FROM context_blobs WHERE state = 'large'", 0), 0);

	tag_list_release(&forty);
	tag_list_release(&two);
	buf_release(&seen.text);
}

/* More blobs than one statement asks about, and a set that ends mid-chunk. */
static void test_many_blobs(void **state)
{
	struct store_context_blob *blobs = calloc(450, sizeof(*blobs));
	struct tag_list one = tags_of(1, "h");
	const char **ask = calloc(450, sizeof(*ask));
	struct seen seen = { BUF_INIT, 0 };
	size_t i;

	(void)state;
	for (i = 0; i < 450; i++) {
		snprintf(blobs[i].blob, sizeof(blobs[i].blob), "%040zx", i);
		blobs[i].state = "tagged";
		blobs[i].tags = &one;
		ask[i] = blobs[i].blob;
	}
	if (store_context_put(store, "idx2", blobs, 450) < 0)
		fail_msg("store_context_put: %s", error_message());
	if (store_context_blobs(store, "idx2", ask, 450, blob_seen, &seen) < 0)
		fail_msg("store_context_blobs: %s", error_message());
	assert_int_equal(seen.count, 450);
	seen.count = 0;
	assert_int_equal(store_context_tags(store, "idx2", ask + 10, 401, tag_seen, &seen), 0);
	assert_int_equal(seen.count, 401);
	seen.count = 0;
	assert_int_equal(store_context_blobs(store, "idx2", ask, 0, blob_seen, &seen), 0);
	assert_int_equal(seen.count, 0);
	tag_list_release(&one);
	buf_release(&seen.text);
	free(blobs);
	free(ask);
}

/* Text from a hostile file is kept as it is (bound and scrubbed only by the reader and the store's usual rules). */
static void test_text_kept(void **state)
{
	struct tag_list list = { 0 };
	struct store_context_blob b = { "dddd", 1, "tagged", NULL, 0, NULL, 0, &list, 0 };
	const char *const ask[] = { "dddd" };
	struct seen seen = { BUF_INIT, 0 };

	(void)state;
	assert_int_equal(tag_list_add(&list, "caf\xc3\xa9", "function", "a'b\"c", "(x; DROP TABLE context_tags)", "Go",
				      3, 2, 0), 0);
	assert_int_equal(store_context_put(store, "idx1", &b, 1), 0);
	assert_int_equal(store_context_tags(store, "idx1", ask, 1, tag_seen, &seen), 0);
	assert_string_equal(seen.text.ptr, "dddd:caf\xc3\xa9/function/3-0/a'b\"c/(x; DROP TABLE context_tags)/Go/0\n");
	tag_list_release(&list);
	buf_release(&seen.text);
}

static int oldest_seen(void *ctx, const struct store_context_blob *b)
{
	int64_t *oldest = ctx;

	if (!*oldest || b->indexed_at < *oldest)
		*oldest = b->indexed_at;
	return 0;
}

/*
 * The cache stays bounded: what was neither recorded nor found in use since the cut goes, tags
 * with it, and an indexer left with nothing; a blob found in use again is renewed and stays.
 */
static void test_prune(void **state)
{
	struct tag_list three = tags_of(3, "p");
	struct store_context_blob blobs[3] = {
		{ "old1", 1, "tagged", NULL, 0, NULL, 0, &three, 0 },
		{ "old2", 1, "tagged", NULL, 0, NULL, 0, &three, 0 },
		{ "new1", 1, "tagged", NULL, 0, NULL, 0, &three, 0 },
	};
	const char *const used[] = { "old2" };
	int64_t now = clock_wall_ms(), day = 24 * 3600 * 1000LL, removed = -1, oldest = 0;

	(void)state;
	assert_int_equal(store_context_put(store, "idx1", blobs, 3), 0);
	assert_int_equal(store_context_put(store, "idx2", blobs, 1), 0);
	/* Forty days ago: both old blobs of idx1, idx2 and its one blob. */
	test_store_exec(store, "UPDATE context_blobs SET indexed_at = indexed_at - 3456000000 WHERE blob LIKE 'old%'", 0);
	test_store_exec(store, "UPDATE context_indexers SET created_at = created_at - 3456000000 WHERE id = 'idx2'", 0);
	assert_int_equal(store_context_blobs(store, "idx1", used, 1, oldest_seen, &oldest), 0);
	assert_true(oldest < now - 39 * day && oldest > now - 41 * day);

	/* old2 is found in use again. */
	assert_int_equal(store_context_touch(store, "idx1", used, 1), 0);
	oldest = 0;
	assert_int_equal(store_context_blobs(store, "idx1", used, 1, oldest_seen, &oldest), 0);
	assert_true(oldest >= now);

	assert_int_equal(store_context_prune(store, now - 30 * day, &removed), 0);
	assert_int_equal(removed, 2);
	assert_int_equal(test_store_int(store, "SELECT count(*) FROM context_blobs", 0), 2);
	assert_int_equal(test_store_int(store, "SELECT count(*) FROM context_blobs WHERE blob = 'old1'", 0), 0);
	assert_int_equal(test_store_int(store, "SELECT count(*) FROM context_tags WHERE blob = 'old1'", 0), 0);
	assert_int_equal(test_store_int(store, "SELECT count(*) FROM context_tags WHERE indexer = 'idx1'", 0), 6);
	assert_int_equal(test_store_int(store, "SELECT count(*) FROM context_indexers WHERE id = 'idx2'", 0), 0);
	/* idx1, new this run, has blobs: it stays. Nothing more goes a second time. */
	assert_int_equal(test_store_int(store, "SELECT count(*) FROM context_indexers WHERE id = 'idx1'", 0), 1);
	assert_int_equal(store_context_prune(store, now - 30 * day, &removed), 0);
	assert_int_equal(removed, 0);
	tag_list_release(&three);
}

int main(void)
{
	if (test_store_skip())
		return PG_SKIP;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_put_and_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prune, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_blobs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_kept, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
