#ifndef REVLINE_ARENA_H
#define REVLINE_ARENA_H

#include <stddef.h>

/*
 * A bump allocator: many small objects (diff lines, their text) in a few
 * large blocks, all freed at once. A 500k-line diff is a few allocations.
 */
struct arena_block;

struct arena {
	struct arena_block *head;
	size_t block_size;
	size_t used;       /* bytes handed out */
	size_t reserved;   /* bytes held in blocks */
};

void arena_init(struct arena *arena, size_t block_size);
/* NULL when out of memory. */
void *arena_alloc(struct arena *arena, size_t size, size_t align);
/* A NUL-terminated copy of n bytes. */
char *arena_strndup(struct arena *arena, const char *s, size_t n);
void arena_release(struct arena *arena);

#endif
