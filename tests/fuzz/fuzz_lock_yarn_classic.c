/*
 * libFuzzer target: yarn.lock classic, its own grammar (an input that
 * would be berry's is left to fuzz_lock_yarn_berry) (fuzz_lock.h: an old
 * and a new side, the manifest beside them, the transitions).
 */
#include "fuzz_lock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Berry is told by its "__metadata:" line. */
	if (memmem(data, size, "__metadata", 10))
		return 0;
	fuzz_lock_read("yarn.lock", "", (const char *)data, size);
	return 0;
}
