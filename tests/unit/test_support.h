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

#include "packet.h"

/* A RoCEv2 host as the parser names it: 10.0.0.last as an IPv4-mapped GID
 * (the engine tests' packets go between such hosts). */
struct ib_endpoint ts_rocev2_host(uint8_t last);

#endif

/* ---- Wire builders for the test_parse_* tests (big-endian, IBA Vol. 1). ---- */
#ifndef IBSCOPE_TEST_SUPPORT_BUILDERS
#define IBSCOPE_TEST_SUPPORT_BUILDERS
#include <stdbool.h>

#include "diag.h"

void ts_put8(uint8_t *b, size_t off, uint8_t v);
void ts_put16(uint8_t *b, size_t off, uint16_t v);
void ts_put24(uint8_t *b, size_t off, uint32_t v);
void ts_put32(uint8_t *b, size_t off, uint32_t v);
void ts_put64(uint8_t *b, size_t off, uint64_t v);

/* Header descriptions; the put functions write the header at b + off and
 * return the offset just past it. */
struct ts_lrh {
    uint8_t vl, lver, sl, lnh;
    uint16_t dlid, pktlen, slid;
};
struct ts_grh {
    uint8_t ipver, tclass;
    uint32_t flowlabel;
    uint16_t paylen;
    uint8_t nxthdr, hoplmt;
    uint8_t sgid[16], dgid[16];
};
struct ts_bth {
    uint8_t opcode;
    bool se, m;
    uint8_t padcnt, tver;
    uint16_t pkey;
    uint32_t destqp;
    bool ackreq;
    uint32_t psn;
};
struct ts_mad_hdr {
    uint8_t base_version, mgmt_class, class_version, method;
    uint16_t status, class_specific;
    uint64_t tid;
    uint16_t attr_id;
    uint32_t attr_mod;
};

size_t ts_put_lrh(uint8_t *b, size_t off, const struct ts_lrh *l);
size_t ts_put_grh(uint8_t *b, size_t off, const struct ts_grh *g);
size_t ts_put_bth(uint8_t *b, size_t off, const struct ts_bth *t);
size_t ts_put_deth(uint8_t *b, size_t off, uint32_t qkey, uint32_t srcqp);
size_t ts_put_mad_hdr(uint8_t *b, size_t off, const struct ts_mad_hdr *m);
/* Writes 16 bytes parsed from hex ("fe80 0000 ..."; must be 32 digits). */
void ts_gid(uint8_t gid[16], const char *hex);

/* Zeroes a 256-byte MAD and writes a CM header (Send, TID 0x0102030405060708). */
void ts_cm_header(uint8_t m[256], uint16_t attr);

/* The first diagnostic with this id, or NULL. */
const struct ib_diag *ts_diag_find(const struct ib_diag_list *list, enum ib_diag_id id);
/* Prints a diagnostic list to stderr (for failing tests). */
void ts_diag_dump(const struct ib_diag_list *list);
#endif
