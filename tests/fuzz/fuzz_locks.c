/*
 * libFuzzer target: every lock file reader (lock.h) on arbitrary bytes.
 * The input is cut at its first NUL byte (none: the middle) into an old
 * and a new side, read as each lock file format with the other side as
 * the manifest beside it, and the two sides matched into transitions.
 * Nothing may crash, read out of bounds or leak, and what comes out must
 * hold together.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const paths[] = {
	"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock", "poetry.lock", "uv.lock", "pdm.lock",
	"Pipfile.lock", "Cargo.lock", "go.sum", "Gemfile.lock", "composer.lock",
};

static void check(const struct lock *lock)
{
	size_t i;

	for (i = 0; !lock->malformed && i < lock->n; i++)
		if (!lock->items[i].name || !lock->items[i].key || lock->items[i].edges + lock->items[i].nedges > lock->nedges)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *nul = memchr(data, '\0', size);
	size_t cut = nul ? (size_t)(nul - text) : size / 2, i, k;
	struct lock_changes changes;
	struct lock old, new;
	enum deps_ecosystem eco;

	for (i = 0; i < sizeof(paths) / sizeof(*paths); i++) {
		lock_file_known(paths[i], &eco);
		lock_init(&old, eco);
		lock_init(&new, eco);
		lock_read(&old, paths[i], text, cut);
		lock_read(&new, paths[i], text + cut + (nul != NULL), size - cut - (nul != NULL));
		if (lock_manifest_name(paths[i]))
			lock_read_manifest(&new, lock_manifest_name(paths[i]), text, cut);
		check(&old);
		check(&new);
		if (!old.malformed && !new.malformed && lock_diff(&changes, &old, &new) == 0) {
			for (k = 0; k < changes.n; k++)
				if (!changes.items[k].name || (!changes.items[k].from && !changes.items[k].to))
					abort();
			lock_changes_release(&changes);
		}
		lock_release(&old);
		lock_release(&new);
	}
	return 0;
}
