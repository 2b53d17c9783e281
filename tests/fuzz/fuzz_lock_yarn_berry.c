/*
 * libFuzzer target: yarn.lock berry, YAML through libyaml: each side
 * begins with berry's __metadata, so that every input is read as berry
 * (fuzz_lock.h: an old and a new side, the manifest beside them, the
 * transitions).
 */
#include "fuzz_lock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_lock_read("yarn.lock", "__metadata:\n  version: 8\n  cacheKey: 10c0\n\n", (const char *)data, size);
	return 0;
}
