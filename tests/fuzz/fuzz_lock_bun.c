/*
 * libFuzzer target: bun.lock, JSONC (comments, trailing commas) pulled
 * value by value (fuzz_lock.h: an old and a new side, the manifest beside
 * them, the transitions).
 */
#include "fuzz_lock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_lock_read("bun.lock", "", (const char *)data, size);
	return 0;
}
