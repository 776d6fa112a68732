/* test_parse_ext_headers.c - RETH, AETH, AtomicETH, XRCETH, ImmDt, IETH and the CNP,
 * alone and in whole packets.
 *
 * Each header is written out byte by byte from IBA Vol. 1 §9.3 (and Annex
 * A14, A17), with a distinct value in every field, so that a shifted or
 * swapped field shows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fields.h"
#include "names.h"
#include "packet.h"
#include "psn.h"
#include "test_support.h"

/* RETH: VA 0x0102030405060708, R_Key 0x11223344, DMA length 0x00010203. */
static const uint8_t reth_bytes[16] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
                                        0x11, 0x22, 0x33, 0x44, 0x00, 0x01, 0x02, 0x03 };

static void test_reth(void **state)
{
    (void)state;
    uint8_t *b = ts_exact_copy(reth_bytes, 16);
    struct ib_reth r;
    assert_true(ib_parse_reth(ib_span_make(b, 16), &r));
    assert_true(r.va == 0x0102030405060708ull);
    assert_int_equal(r.rkey, 0x11223344u);
    assert_int_equal(r.dma_len, 0x00010203u);
    assert_false(ib_parse_reth(ib_span_make(b, 15), &r));
    free(b);
}

/* AETH syndromes: 0x1F = ACK with credit code 31; 0x2E = RNR NAK, timer 14
 * (1.28 ms); 0x62 = NAK code 2 (remote access error); MSN 0xABCDEF. */
static void test_aeth_kinds(void **state)
{
    (void)state;
    static const struct {
        uint8_t syndrome, kind, credit, timer, nak;
    } rows[] = {
        { 0x1F, IB_AETH_ACK, 31, 0, 0 },
        { 0x2E, IB_AETH_RNR_NAK, 0, 14, 0 },
        { 0x62, IB_AETH_NAK, 0, 0, IB_NAK_REMOTE_ACCESS },
        { 0x40, IB_AETH_RESERVED, 0, 0, 0 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint8_t raw[4] = { rows[i].syndrome, 0xAB, 0xCD, 0xEF };
        uint8_t *b = ts_exact_copy(raw, 4);
        struct ib_aeth a;
        memset(&a, 0xEE, sizeof a);
        assert_true(ib_parse_aeth(ib_span_make(b, 4), &a));
        assert_int_equal(a.syndrome, rows[i].syndrome);
        assert_int_equal(a.kind, rows[i].kind);
        assert_int_equal(a.credit_count, rows[i].credit);
        assert_int_equal(a.rnr_timer, rows[i].timer);
        assert_int_equal(a.nak_code, rows[i].nak);
        assert_int_equal(a.msn, 0xABCDEFu);
        assert_false(ib_parse_aeth(ib_span_make(b, 3), &a));
        free(b);
    }
}

/* AtomicETH: VA 0x1111222233334444, R_Key 0x55667788, Swap 0x99AABBCCDDEEFF00,
 * Compare 0x0123456789ABCDEF. */
static void test_atomiceth(void **state)
{
    (void)state;
    static const uint8_t raw[28] = { 0x11, 0x11, 0x22, 0x22, 0x33, 0x33, 0x44, 0x44, 0x55, 0x66,
                                     0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x00,
                                     0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF };
    uint8_t *b = ts_exact_copy(raw, 28);
    struct ib_atomiceth a;
    assert_true(ib_parse_atomiceth(ib_span_make(b, 28), &a));
    assert_true(a.va == 0x1111222233334444ull);
    assert_int_equal(a.rkey, 0x55667788u);
    assert_true(a.swap_add == 0x99AABBCCDDEEFF00ull);
    assert_true(a.compare == 0x0123456789ABCDEFull);
    assert_false(ib_parse_atomiceth(ib_span_make(b, 27), &a));
    free(b);
}

/* XRCETH: a reserved byte, then the XRC SRQ number 0x0A0B0C. */
static void test_xrceth(void **state)
{
    (void)state;
    static const uint8_t raw[4] = { 0xFF, 0x0A, 0x0B, 0x0C };
    uint8_t *b = ts_exact_copy(raw, 4);
    uint32_t srqn = 0;
    assert_true(ib_parse_xrceth(ib_span_make(b, 4), &srqn));
    assert_int_equal(srqn, 0x0A0B0Cu);
    assert_false(ib_parse_xrceth(ib_span_make(b, 3), &srqn));
    free(b);
}

/* Table 45 twice: the names the views print and the microseconds the
 * analysis waits must say the same. */
static void test_rnr_timer_names_agree(void **state)
{
    (void)state;
    assert_int_equal(ib_rnr_timer_us(0), 655360);
    assert_int_equal(ib_rnr_timer_us(1), 10);
    assert_int_equal(ib_rnr_timer_us(14), 1280);
    assert_int_equal(ib_rnr_timer_us(31), 491520);
    for (uint8_t code = 0; code < 32; code++) {
        const char *name = ib_name_lookup(ib_rnr_timer_names, code);
        assert_non_null(name);
        unsigned ms, hundredths;
        assert_int_equal(sscanf(name, "%u.%u ms", &ms, &hundredths), 2);
        assert_int_equal(ms * 1000 + hundredths * 10, ib_rnr_timer_us(code));
    }
}

/* A native IB packet: LRH (LNH BTH) + BTH + the extended headers + payload
 * + ICRC + VCRC, PktLen from its length. */
static size_t build_native(uint8_t *f, uint8_t opcode, uint8_t padcnt, const uint8_t *ext,
                           size_t ext_len, size_t payload)
{
    size_t n = 8 + 12 + ext_len + payload + padcnt + 4;
    memset(f, 0, n + 2);
    f[0] = 0x00; /* VL 0 */
    f[1] = 0x02; /* LNH BTH */
    f[2] = 0x00, f[3] = 0x05;
    f[4] = (uint8_t)((n / 4) >> 8), f[5] = (uint8_t)(n / 4);
    f[6] = 0x00, f[7] = 0x07;
    f[8] = opcode;
    f[9] = (uint8_t)(padcnt << 4);
    f[10] = 0xFF, f[11] = 0xFF;                             /* P_Key */
    f[13] = 0x00, f[14] = 0x12, f[15] = 0x34;               /* DestQP 0x1234 */
    f[16] = 0x80, f[17] = 0x00, f[18] = 0x00, f[19] = 0x2A; /* AckReq, PSN 42 */
    memcpy(f + 20, ext, ext_len);
    for (size_t i = 0; i < payload; i++)
        f[20 + ext_len + i] = (uint8_t)i;
    return n + 2;
}

static void parse_native(const uint8_t *f, size_t n, struct ib_packet *p)
{
    struct ib_parse_opts o;
    ib_parse_opts_init(&o);
    o.verify_crc = false;
    assert_int_equal(ib_parse_frame(&o, IB_DLT_INFINIBAND, f, n, n, p), IB_FRAME_IB);
}

/* RC RDMA WRITE Only with Immediate (0x0B): RETH, then ImmDt 0xCAFEF00D,
 * then 10 payload bytes and 2 pad bytes. */
static void test_write_only_imm_packet(void **state)
{
    (void)state;
    uint8_t ext[20];
    memcpy(ext, reth_bytes, 16);
    ext[16] = 0xCA, ext[17] = 0xFE, ext[18] = 0xF0, ext[19] = 0x0D;
    uint8_t f[128];
    size_t n = build_native(f, 0x0B, 2, ext, 20, 10);
    struct ib_packet p;
    parse_native(f, n, &p);
    assert_true(ib_packet_has(&p, IB_HAS_BTH | IB_HAS_RETH | IB_HAS_IMMDT | IB_HAS_PAYLOAD));
    assert_false(ib_packet_has(&p, IB_HAS_AETH));
    assert_int_equal(p.off.reth, 20);
    assert_int_equal(p.off.immdt, 36);
    assert_int_equal(p.off.payload, 40);
    assert_int_equal(p.payload_len, 10);
    assert_int_equal(p.ext.reth.rkey, 0x11223344u);
    assert_int_equal(p.ext.immdt, 0xCAFEF00Du);
    assert_int_equal(p.diags.count, 0);
}

/* RC ATOMIC Acknowledge (0x12): AETH (ACK, credit 5, MSN 7), then the
 * original remote data 0x8877665544332211; no payload. */
static void test_atomic_ack_packet(void **state)
{
    (void)state;
    static const uint8_t ext[12] = { 0x05, 0x00, 0x00, 0x07, 0x88, 0x77,
                                     0x66, 0x55, 0x44, 0x33, 0x22, 0x11 };
    uint8_t f[128];
    size_t n = build_native(f, 0x12, 0, ext, 12, 0);
    struct ib_packet p;
    parse_native(f, n, &p);
    assert_true(ib_packet_has(&p, IB_HAS_AETH | IB_HAS_ATOMICACKETH | IB_HAS_PAYLOAD));
    assert_int_equal(p.off.aeth, 20);
    assert_int_equal(p.off.atomicacketh, 24);
    assert_int_equal(p.ext.aeth.kind, IB_AETH_ACK);
    assert_int_equal(p.ext.aeth.credit_count, 5);
    assert_int_equal(p.ext.aeth.msn, 7);
    assert_true(p.ext.atomic_orig == 0x8877665544332211ull);
    assert_int_equal(p.payload_len, 0);
}

/* RC SEND Only with Invalidate (0x17): IETH R_Key 0x0BADCAFE, 4 payload bytes. */
static void test_send_invalidate_packet(void **state)
{
    (void)state;
    static const uint8_t ext[4] = { 0x0B, 0xAD, 0xCA, 0xFE };
    uint8_t f[128];
    size_t n = build_native(f, 0x17, 0, ext, 4, 4);
    struct ib_packet p;
    parse_native(f, n, &p);
    assert_true(ib_packet_has(&p, IB_HAS_IETH | IB_HAS_PAYLOAD));
    assert_int_equal(p.ext.ieth_rkey, 0x0BADCAFEu);
    assert_int_equal(p.payload_len, 4);
}

/* The AETH's conditional fields: a NAK shows its code and no credit count. */
static void test_aeth_fields(void **state)
{
    (void)state;
    static const uint8_t ext[4] = { 0x60, 0x00, 0x01, 0x00 }; /* NAK, PSN sequence error */
    uint8_t f[128];
    size_t n = build_native(f, 0x11, 0, ext, 4, 0);
    struct ib_packet p;
    parse_native(f, n, &p);
    bool saw_code = false;
    for (size_t i = 0; i < ib_field_count; i++) {
        const struct ib_field *fl = &ib_fields[i];
        struct ib_field_value v;
        bool has = ib_field_get(fl, &p, &v);
        if (strcmp(fl->abbrev, "aeth.credit_count") == 0 ||
            strcmp(fl->abbrev, "aeth.rnr_timer") == 0)
            assert_false(has);
        if (strcmp(fl->abbrev, "aeth.nak_code") == 0) {
            assert_true(has);
            assert_int_equal(v.u, IB_NAK_PSN_SEQUENCE);
            assert_string_equal(ib_name_lookup(fl->names, (uint32_t)v.u), "PSN sequence error");
            assert_int_equal(ib_field_frame_offset(fl, &p), 20);
            saw_code = true;
        }
        if (strcmp(fl->abbrev, "aeth.msn") == 0)
            assert_int_equal(v.u, 256);
    }
    assert_true(saw_code);
}

/* An ACK cut inside its AETH: the BTH stays, no AETH, no payload length. */
static void test_cut_aeth(void **state)
{
    (void)state;
    static const uint8_t ext[4] = { 0x00, 0x00, 0x00, 0x01 };
    uint8_t f[128];
    size_t n = build_native(f, 0x11, 0, ext, 4, 0);
    struct ib_packet p;
    parse_native(f, 22, &p);
    (void)n;
    assert_true(ib_packet_has(&p, IB_HAS_BTH));
    assert_false(ib_packet_has(&p, IB_HAS_AETH));
    assert_false(ib_packet_has(&p, IB_HAS_PAYLOAD));
}

/* A RoCEv2 CNP (0x81) has 16 reserved bytes and no payload. */
static void test_cnp_packet(void **state)
{
    (void)state;
    static const uint8_t ext[16] = { 0 };
    uint8_t f[128];
    size_t n = build_native(f, IB_OPCODE_CNP, 0, ext, 16, 0);
    struct ib_packet p;
    parse_native(f, n, &p);
    assert_true(ib_packet_has(&p, IB_HAS_BTH | IB_HAS_PAYLOAD));
    assert_int_equal(p.payload_len, 0);
    assert_int_equal(p.off.payload, 36);
}

/* Table 38 read back as operations: every RC opcode's operation and place,
 * the XRC request's XRCETH, UC's missing READ, UD, the CNP, the unknown. */
static void test_opcode_info(void **state)
{
    (void)state;
    static const struct {
        uint8_t opcode, op, segment;
        uint16_t headers;
    } rows[] = {
        { 0x00, IB_OP_SEND, IB_SEG_FIRST, 0 },
        { 0x03, IB_OP_SEND, IB_SEG_LAST, IB_EXT_IMMDT },
        { 0x06, IB_OP_WRITE, IB_SEG_FIRST, IB_EXT_RETH },
        { 0x07, IB_OP_WRITE, IB_SEG_MIDDLE, 0 },
        { 0x0B, IB_OP_WRITE, IB_SEG_ONLY, IB_EXT_RETH | IB_EXT_IMMDT },
        { 0x0C, IB_OP_READ_REQUEST, IB_SEG_ONLY, IB_EXT_RETH },
        { 0x0E, IB_OP_READ_RESPONSE, IB_SEG_MIDDLE, 0 },
        { 0x0F, IB_OP_READ_RESPONSE, IB_SEG_LAST, IB_EXT_AETH },
        { 0x11, IB_OP_ACK, IB_SEG_ONLY, IB_EXT_AETH },
        { 0x12, IB_OP_ATOMIC_ACK, IB_SEG_ONLY, IB_EXT_AETH | IB_EXT_ATOMICACKETH },
        { 0x13, IB_OP_CMP_SWAP, IB_SEG_ONLY, IB_EXT_ATOMICETH },
        { 0x14, IB_OP_FETCH_ADD, IB_SEG_ONLY, IB_EXT_ATOMICETH },
        { 0x17, IB_OP_SEND, IB_SEG_ONLY, IB_EXT_IETH },
        { 0x2A, IB_OP_WRITE, IB_SEG_ONLY, IB_EXT_RETH },
        { 0x2C, IB_OP_UNKNOWN, IB_SEG_ONLY, IB_EXT_UNKNOWN },
        { 0x65, IB_OP_UD_SEND, IB_SEG_ONLY, IB_EXT_DETH | IB_EXT_IMMDT },
        { 0x81, IB_OP_CNP, IB_SEG_ONLY, IB_EXT_CNP },
        { 0xA4, IB_OP_SEND, IB_SEG_ONLY, IB_EXT_XRCETH },
        { 0xB1, IB_OP_ACK, IB_SEG_ONLY, IB_EXT_AETH },
        { 0x46, IB_OP_UNKNOWN, IB_SEG_ONLY, IB_EXT_UNKNOWN },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct ib_opcode_info info = ib_opcode_info(rows[i].opcode);
        if (info.op != rows[i].op || info.segment != rows[i].segment ||
            info.headers != rows[i].headers)
            fail_msg("opcode 0x%02X: op %u segment %u headers 0x%x", rows[i].opcode, info.op,
                     info.segment, info.headers);
    }
    assert_true(ib_op_is_response(IB_OP_ACK));
    assert_true(ib_op_is_response(IB_OP_READ_RESPONSE));
    assert_false(ib_op_is_response(IB_OP_READ_REQUEST));
}

/* 24-bit PSNs on their circle: 0 comes after 0xFFFFFF, and half the circle
 * away is behind. */
static void test_psn_arithmetic(void **state)
{
    (void)state;
    assert_int_equal(ib_psn_diff(5, 3), 2);
    assert_int_equal(ib_psn_diff(3, 5), -2);
    assert_int_equal(ib_psn_diff(0, 0xFFFFFF), 1);
    assert_int_equal(ib_psn_diff(0xFFFFFF, 0), -1);
    assert_int_equal(ib_psn_diff(0x7FFFFF, 0), 0x7FFFFF);
    assert_int_equal(ib_psn_diff(0x800000, 0), -0x800000);
    assert_int_equal(ib_psn_add(0xFFFFFE, 3), 1);
    assert_int_equal(ib_psn_add(1, -2), 0xFFFFFF);
    assert_true(ib_psn_before(0xFFFFF0, 0x10));
    assert_false(ib_psn_before(0x10, 0xFFFFF0));
    assert_false(ib_psn_before(7, 7));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reth),
        cmocka_unit_test(test_aeth_kinds),
        cmocka_unit_test(test_atomiceth),
        cmocka_unit_test(test_xrceth),
        cmocka_unit_test(test_rnr_timer_names_agree),
        cmocka_unit_test(test_write_only_imm_packet),
        cmocka_unit_test(test_atomic_ack_packet),
        cmocka_unit_test(test_send_invalidate_packet),
        cmocka_unit_test(test_aeth_fields),
        cmocka_unit_test(test_cut_aeth),
        cmocka_unit_test(test_cnp_packet),
        cmocka_unit_test(test_opcode_info),
        cmocka_unit_test(test_psn_arithmetic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
