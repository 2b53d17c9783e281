#include "queue.h"
#include "array.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

int queue_reserve(struct queue *q, size_t extra)
{
	if (q->count + extra <= q->cap)
		return 0;
	if (q->head) {
		memmove(q->items, q->items + q->head * q->size, q->count * q->size);
		q->head = 0;
	}
	return array_grow(&q->items, &q->cap, q->count + extra, q->size);
}

void *queue_push(struct queue *q)
{
	void *item;

	if (q->head + q->count == q->cap) {
		if (q->head) {
			memmove(q->items, q->items + q->head * q->size, q->count * q->size);
			q->head = 0;
		} else if (queue_reserve(q, 1) < 0) {
			return NULL;
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
