// libFuzzer's driver, for a program that keeps its own main. libFuzzer comes from the toolchain
// when Swift code is built with -sanitize=fuzzer, so nothing is linked here.
#ifndef CAMRTP_CFUZZER_SHIM_H
#define CAMRTP_CFUZZER_SHIM_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
