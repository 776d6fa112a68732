/* fuzz_target.h - the libFuzzer entry point every target defines and the replay driver calls. */
#ifndef IBSCOPE_FUZZ_TARGET_H
#define IBSCOPE_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

/* Runs one input; returns 0 (libFuzzer's convention).  Aborts on a broken
 * invariant so that libFuzzer and the replay driver both see a failure. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
