/* fuzz_check.h - invariants a decoded packet must keep, checked by every fuzz target. */
#ifndef IBSCOPE_FUZZ_CHECK_H
#define IBSCOPE_FUZZ_CHECK_H

#include "packet.h"

/* Prints what broke and aborts. */
_Noreturn void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Like fuzz_fail, unless key (e.g. "diag:trunc_class_data") is named in the
 * environment variable IBSCOPE_FUZZ_ALLOW (separated by commas or spaces):
 * a way to keep fuzzing past a known, reported problem until it is fixed. */
void fuzz_fail_unless(const char *key, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Checks p, decoded from a frame of caplen bytes: every present field of
 * ib_fields[] lies inside the frame and formats to a terminated string,
 * every diagnostic is a known id inside the frame, and the layer offsets
 * of present layers are inside the frame. */
void fuzz_check_packet(const struct ib_packet *p, size_t caplen);

/* The link type a selector's bits 0-2 pick: 0-5 the link types ibscope
 * reads, 6 none (0: the target's own case), 7 one it does not read. */
uint32_t fuzz_linktype(unsigned selector);

#endif
