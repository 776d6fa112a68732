/* test_support.h - small helpers shared by the cmocka unit tests. */
#ifndef IBSCOPE_TEST_SUPPORT_H
#define IBSCOPE_TEST_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

/* Copies len bytes into a fresh allocation of exactly len bytes, so that
 * AddressSanitizer catches any read past the end; free with free(). */
uint8_t *ts_exact_copy(const void *data, size_t len);

/* Parses a hex string ("0a 1b..." or "0a1b..."), spaces ignored, into buf;
 * returns the byte count. Aborts the test on bad input. */
size_t ts_hex(const char *hex, uint8_t *buf, size_t size);

#endif
