/* vectors.h - wire test vectors shared by the unit tests: a ClassPortInfo
 * and one 256-byte MAD of each CM message, every field a distinct value.
 * The byte-by-byte layouts (what each field holds) are in vectors.c. */
#ifndef IBSCOPE_TEST_VECTORS_H
#define IBSCOPE_TEST_VECTORS_H

#include <stdint.h>

#include "classportinfo.h"

/* 72 bytes of ClassPortInfo as hex (RedirectLID 0x4321, RedirectQP
 * 0xC0FFEE, ...), and the cmocka assertions that a parse of it holds
 * every one of its values. */
extern const char ts_cpi_hex[];
void ts_check_cpi(const struct ib_cpi *c);

/* Each writes the whole MAD (CM header included). */
void ts_build_cm_req(uint8_t m[256]);
void ts_build_cm_mra(uint8_t m[256]);
void ts_build_cm_rej(uint8_t m[256], uint16_t reason); /* ARI = ts_cpi_hex */
void ts_build_cm_rep(uint8_t m[256]);
void ts_build_cm_dreq(uint8_t m[256]);
void ts_build_cm_sidr_req(uint8_t m[256]);
void ts_build_cm_sidr_rep(uint8_t m[256]); /* status 4, Info = ts_cpi_hex */
void ts_build_cm_lap(uint8_t m[256]);
void ts_build_cm_apr(uint8_t m[256]);

#endif
