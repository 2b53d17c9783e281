#include "arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct arena_block {
	struct arena_block *next;
	size_t size;
	size_t used;
	max_align_t data[];
};

void arena_init(struct arena *arena, size_t block_size)
{
	memset(arena, 0, sizeof(*arena));
	arena->block_size = block_size ? block_size : 64 * 1024;
}

static struct arena_block *block_new(struct arena *arena, size_t need)
{
	size_t size = arena->block_size;
	struct arena_block *block;

	if (need > size)
		size = need;
	block = malloc(sizeof(*block) + size);
	if (!block)
		return NULL;
	block->size = size;
	block->used = 0;
	/* A large object gets a block of its own behind the current one, so
	 * the current block's free tail is not wasted. */
	if (need > arena->block_size / 4 && arena->head) {
		block->next = arena->head->next;
		arena->head->next = block;
	} else {
		block->next = arena->head;
		arena->head = block;
	}
	arena->reserved += size;
	return block;
}

void *arena_alloc(struct arena *arena, size_t size, size_t align)
{
	struct arena_block *block = arena->head;
	size_t offset;

	if (!align)
		align = 1;
	if (block) {
		offset = (block->used + align - 1) & ~(align - 1);
		if (offset + size <= block->size) {
			block->used = offset + size;
			arena->used += size;
			return (char *)block->data + offset;
		}
	}
	block = block_new(arena, size);
	if (!block)
		return NULL;
	block->used = size;
	arena->used += size;
	return (void *)block->data;
}

char *arena_strndup(struct arena *arena, const char *s, size_t n)
{
	char *copy = arena_alloc(arena, n + 1, 1);

	if (!copy)
		return NULL;
	memcpy(copy, s, n);
	copy[n] = '\0';
	return copy;
}

void arena_release(struct arena *arena)
{
	struct arena_block *block = arena->head, *next;

	for (; block; block = next) {
		next = block->next;
		free(block);
	}
	arena->head = NULL;
	arena->used = arena->reserved = 0;
}
