#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "status.h"

int array_grow(void *items, size_t *alloc, size_t need, size_t size)
{
	size_t n = *alloc ? *alloc : 8;
	void *old, *grown;

	if (need <= *alloc)
		return 0;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return error_nomem();
		n *= 2;
	}
	if (n > SIZE_MAX / size)
		return error_nomem();
	memcpy(&old, items, sizeof(old));
	if (!(grown = realloc(old, n * size)))
		return error_nomem();
	memcpy(items, &grown, sizeof(grown));
	*alloc = n;
	return 0;
}

int strings_take(struct strings *list, char *s)
{
	int error;

	if (!s)
		return error_nomem();
	if ((error = ARRAY_GROW(list->items, list->alloc, list->count + 1)) < 0) {
		free(s);
		return error;
	}
	list->items[list->count++] = s;
	return 0;
}

int strings_add(struct strings *list, const char *s)
{
	return strings_take(list, strdup(s));
}

int strings_has(const struct strings *list, const char *s)
{
	size_t i;

	for (i = 0; i < list->count; i++)
		if (!strcmp(list->items[i], s))
			return 1;
	return 0;
}

int strings_add_unique(struct strings *list, const char *s)
{
	return strings_has(list, s) ? 0 : strings_add(list, s);
}

void strings_free(struct strings *list)
{
	size_t i;

	for (i = 0; i < list->count; i++)
		free(list->items[i]);
	free(list->items);
	memset(list, 0, sizeof(*list));
}
