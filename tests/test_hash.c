#include "testlib.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

/* hash_blob: git's blob id of the parts' bytes, as git_odb_hash and `git hash-object` give it. */

static void expect_git(const struct hash_part *parts, size_t n, const char *whole, size_t len)
{
	char ours[HASH_HEX_SIZE], theirs[GIT_OID_HEXSZ + 1];
	git_oid oid;

	assert_int_equal(git_odb_hash(&oid, whole, len, GIT_OBJECT_BLOB), 0);
	git_oid_tostr(theirs, sizeof(theirs), &oid);
	assert_int_equal(hash_blob(ours, parts, n), 0);
	assert_string_equal(ours, theirs);
}

static void test_known_ids(void **state)
{
	char id[HASH_HEX_SIZE];
	struct hash_part hello = { "hello\n", 6 };

	(void)state;
	/* `printf 'hello\n' | git hash-object --stdin`, and `git hash-object /dev/null`. */
	assert_int_equal(hash_blob(id, &hello, 1), 0);
	assert_string_equal(id, "ce013625030ba8dba906f756967f9e9ca394464a");
	assert_int_equal(hash_blob(id, NULL, 0), 0);
	assert_string_equal(id, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
}

static void test_pieces_hash_as_one(void **state)
{
	const size_t size = 300000;
	char *big = malloc(size);
	size_t i;

	(void)state;
	assert_non_null(big);
	for (i = 0; i < size; i++)
		big[i] = (char)(i * 31 + i / 7);
	{
		/* The bytes cut anywhere, with empty and NULL pieces between, NULs inside. */
		const struct hash_part parts[] = { { big, 1 }, { NULL, 5 }, { big + 1, 0 }, { big + 1, 65535 },
						   { big + 65536, size - 65536 } };

		expect_git(parts, 5, big, size);
	}
	{
		const struct hash_part parts[] = { { "a", 1 }, { "", 1 }, { "b", 1 }, { "", 1 } };

		expect_git(parts, 4, "a\0b\0", 4);
	}
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_ids),
		cmocka_unit_test(test_pieces_hash_as_one),
	};

	git_libgit2_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
