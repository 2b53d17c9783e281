#ifndef REVLINE_FUZZ_LOCK_H
#define REVLINE_FUZZ_LOCK_H

/*
 * What the lock file fuzz targets share: arbitrary bytes cut at their
 * first NUL byte (none: the middle) into an old and a new side of the
 * lock file at path, each read, the manifest beside it read from the old
 * side's bytes, and the two sides matched into transitions (lock.h).
 * Nothing may crash, read out of bounds or leak, and what comes out must
 * hold together: every package named and keyed, its edges within the
 * lock's, every transition named with a side.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lock.h"

static void fuzz_lock_check(const struct lock *lock)
{
	size_t i;

	for (i = 0; !lock->malformed && i < lock->n; i++)
		if (!lock->items[i].name || !lock->items[i].key || lock->items[i].edges + lock->items[i].nedges > lock->nedges)
			abort();
}

/* Both sides of path from text, with prefix (may be "") before each side. */
static void fuzz_lock_read(const char *path, const char *prefix, const char *text, size_t size)
{
	const char *nul = memchr(text, '\0', size);
	size_t cut = nul ? (size_t)(nul - text) : size / 2, plen = strlen(prefix);
	size_t rest = size - cut - (nul != NULL), k;
	char *old_side = malloc(plen + cut + 1), *new_side = malloc(plen + rest + 1);
	struct lock_changes changes;
	struct lock old, new;
	enum deps_ecosystem eco;

	if (!old_side || !new_side || !lock_file_known(path, &eco))
		abort();
	memcpy(old_side, prefix, plen);
	memcpy(old_side + plen, text, cut);
	memcpy(new_side, prefix, plen);
	memcpy(new_side + plen, text + cut + (nul != NULL), rest);
	lock_init(&old, eco);
	lock_init(&new, eco);
	lock_read(&old, path, old_side, plen + cut);
	lock_read(&new, path, new_side, plen + rest);
	if (lock_manifest_name(path))
		lock_read_manifest(&new, lock_manifest_name(path), text, cut);
	fuzz_lock_check(&old);
	fuzz_lock_check(&new);
	if (!old.malformed && !new.malformed && lock_diff(&changes, &old, &new) == 0) {
		for (k = 0; k < changes.n; k++)
			if (!changes.items[k].name || (!changes.items[k].from && !changes.items[k].to))
				abort();
		lock_changes_release(&changes);
	}
	lock_release(&old);
	lock_release(&new);
	free(old_side);
	free(new_side);
}

#endif
