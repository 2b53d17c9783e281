/*
 * libFuzzer target: pnpm-lock.yaml, versions 5 to 9, YAML through libyaml
 * (fuzz_lock.h: an old and a new side, the manifest beside them, the
 * transitions).
 */
#include "fuzz_lock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_lock_read("pnpm-lock.yaml", "", (const char *)data, size);
	return 0;
}
