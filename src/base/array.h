#ifndef REVLINE_ARRAY_H
#define REVLINE_ARRAY_H

#include <stddef.h>

/*
 * The one way to grow an array: items (a pointer to the array's pointer)
 * holds *alloc elements of size bytes; make room for at least need of them,
 * doubling so that appending one at a time costs amortised O(1). On failure
 * nothing changes and the error is set (error_nomem).
 *
 *	if (ARRAY_GROW(list->items, list->alloc, list->count + 1) < 0)
 *		return -1;
 *	list->items[list->count++] = item;
 */
int array_grow(void *items, size_t *alloc, size_t need, size_t size);

#define ARRAY_GROW(items, alloc, need) \
	array_grow(&(items), &(alloc), (need), sizeof(*(items)))

/* A list of strings the list owns. */
struct strings {
	char **items;
	size_t count;
	size_t alloc;
};

#define STRINGS_INIT { NULL, 0, 0 }

/* Append a copy of s. */
int strings_add(struct strings *list, const char *s);
/* Append a copy of s unless an equal string is there already. */
int strings_add_unique(struct strings *list, const char *s);
/* Append s itself: the list takes it (and frees it when this fails). */
int strings_take(struct strings *list, char *s);
/* Whether an equal string is in the list. */
int strings_has(const struct strings *list, const char *s);
void strings_free(struct strings *list);

#endif
