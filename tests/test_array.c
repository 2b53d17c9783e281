#include "testlib.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"

/* array_grow: the one way an array grows; strings: the one string list. */

static void test_grow_keeps_items(void **state)
{
	struct { uint32_t a; char b[5]; } *items = NULL;
	size_t alloc = 0, count, i;

	(void)state;
	for (count = 0; count < 1000; count++) {
		assert_int_equal(ARRAY_GROW(items, alloc, count + 1), 0);
		assert_true(alloc >= count + 1);
		items[count].a = (uint32_t)count * 7;
		memcpy(items[count].b, "abcd", 5);
	}
	for (i = 0; i < count; i++) {
		assert_int_equal(items[i].a, i * 7);
		assert_string_equal(items[i].b, "abcd");
	}
	/* Doubling: 1000 items in 128 * 2^3 slots, not one realloc each. */
	assert_int_equal(alloc, 1024);
	/* Asking for less than there is changes nothing. */
	assert_int_equal(ARRAY_GROW(items, alloc, 10), 0);
	assert_int_equal(alloc, 1024);
	free(items);
}

static void test_grow_refuses_overflow(void **state)
{
	double *items = NULL;
	size_t alloc = 0;

	(void)state;
	assert_int_equal(ARRAY_GROW(items, alloc, 4), 0);
	items[3] = 1.5;
	assert_true(ARRAY_GROW(items, alloc, SIZE_MAX / 4) < 0);
	assert_int_equal(alloc, 8);           /* nothing changed */
	assert_true(items[3] == 1.5);
	free(items);
}

static void test_strings(void **state)
{
	struct strings list = STRINGS_INIT;
	char word[16];
	int i;

	(void)state;
	for (i = 0; i < 50; i++) {
		snprintf(word, sizeof(word), "w%d", i % 20);
		assert_int_equal(strings_add_unique(&list, word), 0);
	}
	assert_int_equal(list.count, 20);
	assert_string_equal(list.items[19], "w19");
	assert_true(strings_has(&list, "w7"));
	assert_false(strings_has(&list, "w20"));
	assert_int_equal(strings_add(&list, "w7"), 0);
	assert_int_equal(list.count, 21);
	assert_int_equal(strings_take(&list, strdup("taken")), 0);
	assert_string_equal(list.items[21], "taken");
	assert_true(strings_take(&list, NULL) < 0);
	assert_int_equal(list.count, 22);
	strings_free(&list);
	assert_null(list.items);
	assert_int_equal(list.count, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_keeps_items),
		cmocka_unit_test(test_grow_refuses_overflow),
		cmocka_unit_test(test_strings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
