#include "queue.h"

#include <stdlib.h>
#include <string.h>

void *queue_push(struct queue *q)
{
	void *item;

	if (q->head + q->count == q->cap) {
		if (q->head) {
			memmove(q->items, q->items + q->head * q->size, q->count * q->size);
			q->head = 0;
		} else {
			size_t n = q->cap ? q->cap * 2 : 32;
			char *grown = realloc(q->items, n * q->size);

			if (!grown)
				return NULL;
			q->items = grown;
			q->cap = n;
		}
	}
	item = q->items + (q->head + q->count++) * q->size;
	memset(item, 0, q->size);
	return item;
}

bool queue_pop(struct queue *q, void *out)
{
	if (!q->count)
		return false;
	memcpy(out, q->items + q->head * q->size, q->size);
	q->head = --q->count ? q->head + 1 : 0;
	return true;
}

void *queue_at(const struct queue *q, size_t i)
{
	return q->items + (q->head + i) * q->size;
}

void queue_release(struct queue *q)
{
	free(q->items);
	q->items = NULL;
	q->head = q->count = q->cap = 0;
}
