/* test_parse_mad.c - MAD common header, class data offsets and ClassPortInfo.
 *
 * Expected values come from IBA Vol. 1 chapter 13 (the MAD common header
 * and ClassPortInfo), worked out by hand below each byte array.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "classportinfo.h"
#include "mad.h"
#include "packet.h"
#include "test_support.h"
#include "vectors.h"

/* BaseVersion 1, MgmtClass 0x03 (SA), ClassVersion 2, R=1 Method 0x12
 * (GetTableResp 0x92), Status 0xA51E, ClassSpecific 0xBEEF,
 * TID 0x0102030405060708, AttributeID 0xFF10, reserved 0x5A5A,
 * AttributeModifier 0x89ABCDEF.
 * Status 0xA51E = 1010 0101 0001 1110: busy (bit 0) 0, redirect (bit 1) 1,
 * invalid field (bits 4:2 = 111) 7, class-specific (15:8) 0xA5. */
static const char mad_hdr_hex[] = "01 03 02 92 a51e beef 0102030405060708 ff10 5a5a 89abcdef";

static void test_mad_header(void **state)
{
    (void)state;
    uint8_t raw[24];
    assert_int_equal(ts_hex(mad_hdr_hex, raw, sizeof raw), 24);
    uint8_t *b = ts_exact_copy(raw, 24);
    struct ib_mad m;
    memset(&m, 0xEE, sizeof m);
    assert_true(ib_parse_mad_header(ib_span_make(b, 24), &m));
    assert_int_equal(m.base_version, 1);
    assert_int_equal(m.mgmt_class, 0x03);
    assert_int_equal(m.class_version, 2);
    assert_int_equal(m.method, 0x92);
    assert_true(m.response);
    assert_int_equal(m.status, 0xA51E);
    assert_false(m.status_busy);
    assert_true(m.status_redirect);
    assert_int_equal(m.status_invalid_field, 7);
    assert_int_equal(m.status_class_specific, 0xA5);
    assert_int_equal(m.class_specific, 0xBEEF);
    assert_true(m.tid == 0x0102030405060708ull);
    assert_int_equal(m.attr_id, 0xFF10);
    assert_int_equal(m.reserved, 0x5A5A);
    assert_true(m.attr_mod == 0x89ABCDEFu);
    assert_int_equal(m.data_offset, 56);
    free(b);
}

/* Request (R = 0): method byte 0x12 -> response false. */
static void test_mad_request_r_bit(void **state)
{
    (void)state;
    uint8_t raw[24];
    ts_hex(mad_hdr_hex, raw, sizeof raw);
    raw[3] = 0x12;
    uint8_t *b = ts_exact_copy(raw, 24);
    struct ib_mad m;
    assert_true(ib_parse_mad_header(ib_span_make(b, 24), &m));
    assert_int_equal(m.method, 0x12);
    assert_false(m.response);
    b[3] = 0x81; /* GetResp */
    assert_true(ib_parse_mad_header(ib_span_make(b, 24), &m));
    assert_int_equal(m.method, 0x81);
    assert_true(m.response);
    free(b);
}

static void test_mad_status_split(void **state)
{
    (void)state;
    static const struct {
        uint16_t status;
        bool busy, redirect;
        uint8_t invalid, cs;
    } table[] = {
        { 0x0000, false, false, 0, 0 },
        { 0x0001, true, false, 0, 0 },  /* busy */
        { 0x0002, false, true, 0, 0 },  /* redirect required */
        { 0x0004, false, false, 1, 0 }, /* bad version */
        { 0x0008, false, false, 2, 0 }, /* method unsupported */
        { 0x000C, false, false, 3, 0 }, /* method/attribute unsupported */
        { 0x001C, false, false, 7, 0 }, /* invalid value */
        { 0x0005, true, false, 1, 0 },
        { 0x00E0, false, false, 0, 0 }, /* bits 7:5 reserved: no code */
        { 0x0100, false, false, 0, 0x01 },
        { 0xFF03, true, true, 0, 0xFF },
        { 0x7F1F, true, true, 7, 0x7F },
    };
    uint8_t raw[24];
    ts_hex(mad_hdr_hex, raw, sizeof raw);
    uint8_t *b = ts_exact_copy(raw, 24);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        ts_put16(b, 4, table[i].status);
        struct ib_mad m;
        assert_true(ib_parse_mad_header(ib_span_make(b, 24), &m));
        assert_int_equal(m.status, table[i].status);
        assert_int_equal(m.status_busy, table[i].busy);
        assert_int_equal(m.status_redirect, table[i].redirect);
        assert_int_equal(m.status_invalid_field, table[i].invalid);
        assert_int_equal(m.status_class_specific, table[i].cs);
        /* the neighbours are untouched */
        assert_int_equal(m.method, 0x92);
        assert_int_equal(m.class_specific, 0xBEEF);
    }
    free(b);
}

static void test_mad_header_short(void **state)
{
    (void)state;
    uint8_t raw[24];
    ts_hex(mad_hdr_hex, raw, sizeof raw);
    struct ib_mad m;
    for (size_t n = 0; n < 24; n++) {
        uint8_t *b = ts_exact_copy(raw, n);
        assert_false(ib_parse_mad_header(ib_span_make(b, n), &m));
        free(b);
    }
}

static void test_class_data_offsets(void **state)
{
    (void)state;
    static const struct {
        uint8_t cls;
        uint16_t off;
    } table[] = {
        { 0x01, 24 }, { 0x81, 24 }, { 0x03, 56 }, { 0x04, 64 }, { 0x05, 24 },
        { 0x06, 64 }, { 0x07, 24 }, { 0x08, 24 }, { 0x09, 24 }, { 0x0F, 24 },
        { 0x10, 24 }, { 0x12, 24 }, { 0x21, 24 }, { 0x2F, 24 }, { 0x30, 40 },
        { 0x3A, 40 }, { 0x4F, 40 }, { 0x50, 24 }, { 0x83, 24 }, { 0xFF, 24 },
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        uint16_t got = ib_mad_class_data_offset(table[i].cls);
        if (got != table[i].off)
            fail_msg("class 0x%02X: expected %u, got %u", table[i].cls, table[i].off, got);
    }
    /* the header parse fills the same offset in */
    uint8_t raw[24];
    ts_hex(mad_hdr_hex, raw, sizeof raw);
    uint8_t *b = ts_exact_copy(raw, 24);
    struct ib_mad m;
    b[1] = 0x04;
    assert_true(ib_parse_mad_header(ib_span_make(b, 24), &m));
    assert_int_equal(m.data_offset, 64);
    b[1] = 0x07;
    assert_true(ib_parse_mad_header(ib_span_make(b, 24), &m));
    assert_int_equal(m.data_offset, 24);
    b[1] = 0x33;
    assert_true(ib_parse_mad_header(ib_span_make(b, 24), &m));
    assert_int_equal(m.data_offset, 40);
    free(b);
}

static void test_class_smp_redirectable(void **state)
{
    (void)state;
    assert_true(ib_mad_class_is_smp(0x01));
    assert_true(ib_mad_class_is_smp(0x81));
    assert_false(ib_mad_class_is_smp(0x03));
    assert_false(ib_mad_class_is_smp(0x07));
    assert_false(ib_mad_class_is_smp(0x80));
    assert_false(ib_mad_class_is_redirectable(0x01));
    assert_false(ib_mad_class_is_redirectable(0x81));
    assert_true(ib_mad_class_is_redirectable(0x03));
    assert_true(ib_mad_class_is_redirectable(0x04));
    assert_true(ib_mad_class_is_redirectable(0x07));
    assert_true(ib_mad_class_is_redirectable(0x30));
}

/* ClassPortInfo: ts_cpi_hex and ts_check_cpi (vectors.c). */

static void test_cpi_every_field(void **state)
{
    (void)state;
    uint8_t raw[72];
    assert_int_equal(ts_hex(ts_cpi_hex, raw, sizeof raw), 72);
    uint8_t *b = ts_exact_copy(raw, 72);
    struct ib_cpi c;
    memset(&c, 0xEE, sizeof c);
    assert_true(ib_parse_cpi(ib_span_make(b, 72), &c));
    ts_check_cpi(&c);
    free(b);
}

/* CapMask2 at its widest (all 27 bits) and RespTimeValue 0; then the reverse. */
static void test_cpi_capmask2_resptime_split(void **state)
{
    (void)state;
    uint8_t raw[72];
    ts_hex(ts_cpi_hex, raw, sizeof raw);
    uint8_t *b = ts_exact_copy(raw, 72);
    struct ib_cpi c;
    ts_put32(b, 4, 0xFFFFFFE0u);
    assert_true(ib_parse_cpi(ib_span_make(b, 72), &c));
    assert_int_equal(c.cap_mask2, 0x7FFFFFF);
    assert_int_equal(c.resp_time, 0);
    ts_put32(b, 4, 0x0000001Fu);
    assert_true(ib_parse_cpi(ib_span_make(b, 72), &c));
    assert_int_equal(c.cap_mask2, 0);
    assert_int_equal(c.resp_time, 0x1F);
    /* RedirectQP ignores the reserved byte 32 */
    b[32] = 0xFF;
    ts_put24(b, 33, 0x000001);
    assert_true(ib_parse_cpi(ib_span_make(b, 72), &c));
    assert_int_equal(c.redirect_qp, 1);
    free(b);
}

static void test_cpi_short(void **state)
{
    (void)state;
    uint8_t raw[72];
    ts_hex(ts_cpi_hex, raw, sizeof raw);
    struct ib_cpi c;
    uint8_t *b = ts_exact_copy(raw, 71);
    assert_false(ib_parse_cpi(ib_span_make(b, 71), &c));
    free(b);
    b = ts_exact_copy(raw, 0);
    assert_false(ib_parse_cpi(ib_span_make(b, 0), &c));
    free(b);
}

/* A GetResp with the redirect status carrying ClassPortInfo, on QP1 in a
 * native frame (LRH 8 + BTH 12 + DETH 8 + MAD 256 + ICRC 4 + VCRC 2): the
 * ClassPortInfo must be found at the class's data offset. */
static void check_cpi_in_frame(uint8_t mgmt_class, uint16_t data_off)
{
    uint8_t f[290];
    memset(f, 0, sizeof f);
    struct ts_lrh l = { .vl = 0, .sl = 0, .lnh = 2, .dlid = 0x0011, .pktlen = 72, .slid = 0x0022 };
    struct ts_bth t = { .opcode = 0x64, .pkey = 0xFFFF, .destqp = 1, .psn = 0x10 };
    struct ts_mad_hdr m = { .base_version = 1,
                            .mgmt_class = mgmt_class,
                            .class_version = 1,
                            .method = 0x81,
                            .status = 0x0002,
                            .tid = 0x1122334455667788ull,
                            .attr_id = 0x0001 };
    size_t at = ts_put_lrh(f, 0, &l);
    at = ts_put_bth(f, at, &t);
    at = ts_put_deth(f, at, 0x80010000u, 1);
    assert_int_equal(at, 28);
    ts_put_mad_hdr(f, at, &m);
    ts_hex(ts_cpi_hex, f + 28 + data_off, 72);
    uint8_t *b = ts_exact_copy(f, sizeof f);
    struct ib_packet p;
    assert_int_equal(ib_parse_frame(NULL, IB_DLT_INFINIBAND, b, sizeof f, sizeof f, &p),
                     IB_FRAME_IB);
    assert_true(ib_packet_has(&p, IB_HAS_MAD | IB_HAS_CPI));
    assert_int_equal(p.mad.mgmt_class, mgmt_class);
    assert_true(p.mad.status_redirect);
    assert_int_equal(p.off.mad, 28);
    assert_int_equal(p.off.cpi, 28 + data_off);
    ts_check_cpi(&p.cpi);
    free(b);
}

static void test_cpi_offset_per_class(void **state)
{
    (void)state;
    check_cpi_in_frame(0x07, 24); /* CM */
    check_cpi_in_frame(0x03, 56); /* SA */
    check_cpi_in_frame(0x04, 64); /* PerfMgt */
    check_cpi_in_frame(0x06, 64); /* DevMgt */
    check_cpi_in_frame(0x05, 24); /* BM */
    check_cpi_in_frame(0x21, 24); /* CC */
    check_cpi_in_frame(0x30, 40); /* vendor range 2 */
    check_cpi_in_frame(0x4F, 40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mad_header),
        cmocka_unit_test(test_mad_request_r_bit),
        cmocka_unit_test(test_mad_status_split),
        cmocka_unit_test(test_mad_header_short),
        cmocka_unit_test(test_class_data_offsets),
        cmocka_unit_test(test_class_smp_redirectable),
        cmocka_unit_test(test_cpi_every_field),
        cmocka_unit_test(test_cpi_capmask2_resptime_split),
        cmocka_unit_test(test_cpi_short),
        cmocka_unit_test(test_cpi_offset_per_class),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
