/* test_parse_headers.c - LRH, GRH, BTH, DETH and the extended-header table.
 *
 * Each header is written out byte by byte from IBA Vol. 1 chapters 5 and 9
 * (LRH, GRH; BTH, DETH and the extended headers), with a distinct value in
 * every field so that a shifted or swapped field shows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ext_headers.h"
#include "headers.h"
#include "names.h"
#include "test_support.h"

/* LRH: VL 0xA, LVer 0, SL 0x5, rsv 0, LNH 2, DLID 0x1234, PktLen 0x123, SLID 0x0BCD.
 * byte 0 = A<<4|0 = 0xA0; byte 1 = 5<<4|0<<2|2 = 0x52; bytes 4-5 = 0x0123. */
static const uint8_t lrh_bytes[8] = { 0xA0, 0x52, 0x12, 0x34, 0x01, 0x23, 0x0B, 0xCD };

static void test_lrh(void **state)
{
    (void)state;
    uint8_t *b = ts_exact_copy(lrh_bytes, 8);
    struct ib_lrh l;
    memset(&l, 0xEE, sizeof l);
    assert_true(ib_parse_lrh(ib_span_make(b, 8), &l));
    assert_int_equal(l.vl, 0xA);
    assert_int_equal(l.lver, 0);
    assert_int_equal(l.sl, 0x5);
    assert_int_equal(l.reserved2, 0);
    assert_int_equal(l.lnh, IB_LNH_BTH);
    assert_int_equal(l.dlid, 0x1234);
    assert_int_equal(l.reserved5, 0);
    assert_int_equal(l.pktlen, 0x123);
    assert_int_equal(l.slid, 0x0BCD);
    free(b);
}

/* The reserved bits set, LVer 7, LNH 3, PktLen with its top bit (0x400) set:
 * byte 0 = 0x37 (VL 3, LVer 7); byte 1 = 0xEF (SL 0xE, rsv 3, LNH 3);
 * bytes 4-5 = 0xFD 0x01: rsv = 0xFD>>3 = 0x1F, PktLen = 0x501. */
static void test_lrh_reserved_bits_masked(void **state)
{
    (void)state;
    static const uint8_t raw[8] = { 0x37, 0xEF, 0xFF, 0xFF, 0xFD, 0x01, 0xC0, 0x00 };
    uint8_t *b = ts_exact_copy(raw, 8);
    struct ib_lrh l;
    assert_true(ib_parse_lrh(ib_span_make(b, 8), &l));
    assert_int_equal(l.vl, 3);
    assert_int_equal(l.lver, 7);
    assert_int_equal(l.sl, 0xE);
    assert_int_equal(l.reserved2, 3);
    assert_int_equal(l.lnh, IB_LNH_GRH);
    assert_int_equal(l.dlid, 0xFFFF);
    assert_int_equal(l.reserved5, 0x1F);
    assert_int_equal(l.pktlen, 0x501);
    assert_int_equal(l.slid, 0xC000);
    free(b);
}

/* GRH: IPVer 6, TClass 0xB7, FlowLabel 0xACE15 -> word 0x6B7ACE15;
 * PayLen 0x0118, NxtHdr 0x1B, HopLmt 0x40, SGID fe80::2:c903:1:2345,
 * DGID ff12:601b:ffff::1. */
static void test_grh(void **state)
{
    (void)state;
    uint8_t raw[40];
    ts_hex("6b7ace15 0118 1b 40"
           "fe80000000000000 0002c90300012345"
           "ff12601bffff0000 0000000000000001",
           raw, sizeof raw);
    uint8_t *b = ts_exact_copy(raw, 40);
    struct ib_grh g;
    assert_true(ib_parse_grh(ib_span_make(b, 40), &g));
    assert_int_equal(g.ipver, 6);
    assert_int_equal(g.tclass, 0xB7);
    assert_int_equal(g.flowlabel, 0xACE15);
    assert_int_equal(g.paylen, 0x0118);
    assert_int_equal(g.nxthdr, 0x1B);
    assert_int_equal(g.hoplmt, 0x40);
    assert_memory_equal(g.sgid, raw + 8, 16);
    assert_int_equal(g.sgid[0], 0xFE);
    assert_int_equal(g.sgid[15], 0x45);
    assert_memory_equal(g.dgid, raw + 24, 16);
    assert_int_equal(g.dgid[1], 0x12);
    assert_int_equal(g.dgid[15], 0x01);
    free(b);
}

/* BTH: OpCode 0x64; SE 1, M 0, PadCnt 2, TVer 9 -> 0x80|0x20|0x09 = 0xA9;
 * P_Key 0xC1D2; rsv 0x5A; DestQP 0xABCDEF; AckReq 1 + rsv 0x15 -> 0x95; PSN 0x123456. */
static void test_bth(void **state)
{
    (void)state;
    static const uint8_t raw[12] = { 0x64, 0xA9, 0xC1, 0xD2, 0x5A, 0xAB,
                                     0xCD, 0xEF, 0x95, 0x12, 0x34, 0x56 };
    uint8_t *b = ts_exact_copy(raw, 12);
    struct ib_bth t;
    assert_true(ib_parse_bth(ib_span_make(b, 12), &t));
    assert_int_equal(t.opcode, 0x64);
    assert_true(t.se);
    assert_false(t.m);
    assert_int_equal(t.padcnt, 2);
    assert_int_equal(t.tver, 9);
    assert_int_equal(t.pkey, 0xC1D2);
    assert_int_equal(t.reserved, 0x5A);
    assert_int_equal(t.destqp, 0xABCDEF);
    assert_true(t.ackreq);
    assert_int_equal(t.reserved7, 0x15);
    assert_int_equal(t.psn, 0x123456);
    free(b);
}

/* The other bits: SE 0, M 1, PadCnt 1, TVer 0 -> 0x50; PadCnt 3 -> 0x70;
 * AckReq 0 with reserved bits all set -> 0x7F. */
static void test_bth_bits(void **state)
{
    (void)state;
    static const uint8_t raw[12] = { 0x0A, 0x50, 0xFF, 0xFF, 0x00, 0x00,
                                     0x00, 0x01, 0x7F, 0xFF, 0xFF, 0xFF };
    uint8_t *b = ts_exact_copy(raw, 12);
    struct ib_bth t;
    assert_true(ib_parse_bth(ib_span_make(b, 12), &t));
    assert_int_equal(t.opcode, 0x0A);
    assert_false(t.se);
    assert_true(t.m);
    assert_int_equal(t.padcnt, 1);
    assert_int_equal(t.tver, 0);
    assert_int_equal(t.destqp, 1);
    assert_false(t.ackreq);
    assert_int_equal(t.reserved7, 0x7F);
    assert_int_equal(t.psn, 0xFFFFFF);
    b[1] = 0x70;
    assert_true(ib_parse_bth(ib_span_make(b, 12), &t));
    assert_int_equal(t.padcnt, 3);
    assert_false(t.se);
    assert_true(t.m);
    assert_int_equal(t.tver, 0);
    free(b);
}

/* DETH: Q_Key 0x80010000, rsv 0x77, SrcQP 0x00FEDC. */
static void test_deth(void **state)
{
    (void)state;
    static const uint8_t raw[8] = { 0x80, 0x01, 0x00, 0x00, 0x77, 0x00, 0xFE, 0xDC };
    uint8_t *b = ts_exact_copy(raw, 8);
    struct ib_deth d;
    assert_true(ib_parse_deth(ib_span_make(b, 8), &d));
    assert_int_equal(d.qkey, 0x80010000u);
    assert_int_equal(d.reserved, 0x77);
    assert_int_equal(d.srcqp, 0x00FEDC);
    free(b);
}

static void test_short_spans(void **state)
{
    (void)state;
    uint8_t raw[40];
    memset(raw, 0x5C, sizeof raw);
    struct ib_lrh l;
    struct ib_grh g;
    struct ib_bth t;
    struct ib_deth d;
    for (size_t n = 0; n < 40; n++) {
        uint8_t *b = ts_exact_copy(raw, n);
        struct ib_span s = ib_span_make(b, n);
        assert_int_equal(ib_parse_lrh(s, &l), n >= 8);
        assert_false(ib_parse_grh(s, &g));
        assert_int_equal(ib_parse_bth(s, &t), n >= 12);
        assert_int_equal(ib_parse_deth(s, &d), n >= 8);
        free(b);
    }
    uint8_t *b = ts_exact_copy(raw, 40);
    assert_true(ib_parse_grh(ib_span_make(b, 40), &g));
    free(b);
    assert_false(ib_parse_lrh(ib_span_make(NULL, 8), &l));
}

/* Extended transport header bytes after the BTH (IBA Vol. 1 Table 38):
 * RETH 16, AETH 4, ImmDt 4, AtomicETH 28, AtomicAckETH 8 (+AETH 4),
 * DETH 8, IETH 4, XRCETH 4. */
static void test_opcode_ext_header_len(void **state)
{
    (void)state;
    static const struct {
        uint8_t op;
        int len;
    } table[] = {
        { 0x00, 0 },  /* RC SEND First */
        { 0x01, 0 },  /* RC SEND Middle */
        { 0x02, 0 },  /* RC SEND Last */
        { 0x03, 4 },  /* RC SEND Last with Immediate */
        { 0x04, 0 },  /* RC SEND Only */
        { 0x05, 4 },  /* RC SEND Only with Immediate */
        { 0x06, 16 }, /* RC RDMA WRITE First: RETH */
        { 0x07, 0 },  /* RC RDMA WRITE Middle */
        { 0x08, 0 },  /* RC RDMA WRITE Last */
        { 0x09, 4 },  /* RC RDMA WRITE Last with Immediate */
        { 0x0A, 16 }, /* RC RDMA WRITE Only: RETH */
        { 0x0B, 20 }, /* RC RDMA WRITE Only with Immediate: RETH + ImmDt */
        { 0x0C, 16 }, /* RC RDMA READ Request: RETH */
        { 0x0D, 4 },  /* RC RDMA READ Response First: AETH */
        { 0x0E, 0 },  /* RC RDMA READ Response Middle */
        { 0x0F, 4 },  /* RC RDMA READ Response Last: AETH */
        { 0x10, 4 },  /* RC RDMA READ Response Only: AETH */
        { 0x11, 4 },  /* RC Acknowledge: AETH */
        { 0x12, 12 }, /* RC ATOMIC Acknowledge: AETH + AtomicAckETH */
        { 0x13, 28 }, /* RC CmpSwap: AtomicETH */
        { 0x14, 28 }, /* RC FetchAdd: AtomicETH */
        { 0x16, 4 },  /* RC SEND Last with Invalidate: IETH */
        { 0x17, 4 },  /* RC SEND Only with Invalidate: IETH */
        { 0x20, 0 },  /* UC SEND First */
        { 0x25, 4 },  /* UC SEND Only with Immediate */
        { 0x26, 16 }, /* UC RDMA WRITE First */
        { 0x2B, 20 }, /* UC RDMA WRITE Only with Immediate */
        { 0x2C, -1 }, /* UC has no RDMA READ */
        { 0x31, -1 }, /* UC has no Acknowledge */
        { 0x64, 8 },  /* UD SEND Only: DETH */
        { 0x65, 12 }, /* UD SEND Only with Immediate: DETH + ImmDt */
        { 0x60, -1 }, /* UD has SEND Only only */
        { 0xA0, 4 },  /* XRC SEND First: XRCETH */
        { 0xA5, 8 },  /* XRC SEND Only with Immediate: XRCETH + ImmDt */
        { 0xA6, 20 }, /* XRC RDMA WRITE First: XRCETH + RETH */
        { 0xAC, 20 }, /* XRC RDMA READ Request */
        { 0xB3, 32 }, /* XRC CmpSwap: XRCETH + AtomicETH */
        { 0x40, -1 }, /* RD: not decoded */
        { 0x46, -1 }, /* RD range / vendor DC (Wireshark) */
        { 0x4A, -1 }, { 0x5F, -1 }, { 0x80, -1 }, /* 0x80: CNP transport, no operation */
        { 0x81, 16 }, { 0xC0, -1 },               /* CNP: 16 reserved; manufacturer */
        { 0xFF, -1 }, { 0x18, -1 },               /* RC reserved */
        { 0x1F, -1 },
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        int got = ib_opcode_ext_header_len(table[i].op);
        if (got != table[i].len)
            fail_msg("opcode 0x%02X: expected %d, got %d", table[i].op, table[i].len, got);
    }
}

/* Regression (bug found by this test, fixed in a5db222; core/parse/headers.c
 * ib_opcode_ext_header_len): XRCETH is carried by XRC
 * *request* packets only (IBA Vol. 1 Annex A14; Linux rxe_opcode.c gives
 * XRC_ACKNOWLEDGE = BTH + AETH and XRC_RDMA_READ_RESPONSE_* = BTH + AETH);
 * the responses 0xAD-0xB2 have the same headers as their RC counterparts.
 * The core added 4 to every XRC opcode, skipping 4 payload bytes of each XRC
 * read response. */
static void test_xrc_responses_no_xrceth(void **state)
{
    (void)state;
    static const struct {
        uint8_t op;
        int len;
    } table[] = {
        { 0xAD, 4 },  /* XRC RDMA READ Response First: AETH */
        { 0xAE, 0 },  /* XRC RDMA READ Response Middle */
        { 0xAF, 4 },  /* XRC RDMA READ Response Last: AETH */
        { 0xB0, 4 },  /* XRC RDMA READ Response Only: AETH */
        { 0xB1, 4 },  /* XRC Acknowledge: AETH */
        { 0xB2, 12 }, /* XRC ATOMIC Acknowledge: AETH + AtomicAckETH */
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        int got = ib_opcode_ext_header_len(table[i].op);
        if (got != table[i].len)
            fail_msg("opcode 0x%02X: expected %d, got %d", table[i].op, table[i].len, got);
    }
}

static void test_opcode_has_deth(void **state)
{
    (void)state;
    assert_true(ib_opcode_has_deth(0x64));
    assert_true(ib_opcode_has_deth(0x65));
    assert_false(ib_opcode_has_deth(0x04));
    assert_false(ib_opcode_has_deth(0x24));
    assert_false(ib_opcode_has_deth(0xA4));
    assert_false(ib_opcode_has_deth(0x46));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lrh),
        cmocka_unit_test(test_lrh_reserved_bits_masked),
        cmocka_unit_test(test_grh),
        cmocka_unit_test(test_bth),
        cmocka_unit_test(test_bth_bits),
        cmocka_unit_test(test_deth),
        cmocka_unit_test(test_short_spans),
        cmocka_unit_test(test_opcode_ext_header_len),
        cmocka_unit_test(test_xrc_responses_no_xrceth),
        cmocka_unit_test(test_opcode_has_deth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
