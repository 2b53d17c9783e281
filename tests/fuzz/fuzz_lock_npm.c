/*
 * libFuzzer target: package-lock.json, lockfile versions 1, 2 and 3, JSON
 * pulled value by value (fuzz_lock.h: an old and a new side, the manifest
 * beside them, the transitions).
 */
#include "fuzz_lock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_lock_read("package-lock.json", "", (const char *)data, size);
	return 0;
}
