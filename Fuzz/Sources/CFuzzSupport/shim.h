#ifndef CFUZZ_SUPPORT_SHIM_H
#define CFUZZ_SUPPORT_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

// libFuzzer's driver (compiler-rt, linked by -sanitize=fuzzer). SwiftPM renames an
// executable's `main`, which would hide libFuzzer's own; the harness's main calls this.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));
#endif
