/*
 * libFuzzer target: every lock file reader (lock.h) on arbitrary bytes,
 * each format in turn (fuzz_lock.h: an old and a new side, the manifest
 * beside them, the transitions). The formats whose grammar a combined
 * target reaches poorly have targets of their own: fuzz_lock_yarn_classic,
 * fuzz_lock_yarn_berry, fuzz_lock_bun, fuzz_lock_pnpm, fuzz_lock_npm.
 */
#include "fuzz_lock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const paths[] = {
	"package-lock.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock", "poetry.lock", "uv.lock", "pdm.lock",
	"Pipfile.lock", "Cargo.lock", "go.sum", "Gemfile.lock", "composer.lock",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i;

	for (i = 0; i < sizeof(paths) / sizeof(*paths); i++)
		fuzz_lock_read(paths[i], "", (const char *)data, size);
	return 0;
}
