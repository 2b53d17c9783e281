#ifndef REVLINE_QUEUE_H
#define REVLINE_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A first-in first-out queue of items of one size: the events a check, a
 * fix detection and the request cycle hand to their front end.
 */
struct queue {
	char *items;
	size_t size;            /* of an item */
	size_t head, count, cap;
};

#define QUEUE_INIT(type) { NULL, sizeof(type), 0, 0, 0 }

/* Room for extra more items, so that as many pushes cannot fail; 0 or RL_ENOMEM. */
int queue_reserve(struct queue *q, size_t extra);
/* A new item at the tail, zeroed, or NULL when memory ran out. */
void *queue_push(struct queue *q);
/* The item at the head copied to out and taken off; false when empty. */
bool queue_pop(struct queue *q, void *out);
/* The i-th waiting item from the head. */
void *queue_at(const struct queue *q, size_t i);
void queue_release(struct queue *q);

#endif
