/* test_parse_fields.c - the field table (core/include/fields.h) against hand-built packets.
 *
 * A native CM REQ (LRH at 0, BTH 8, DETH 20, MAD 28, IP CM header at
 * 28 + 164 = 192) is decoded and fields are read through the table: the
 * values and frame offsets are worked out by hand from IBA Vol. 1 (chapters
 * 5, 9, 12, 13) and Annex A11.  Then, for several packets, every
 * present field's wire bytes (frame offset, wire_len, wire_mask) must hold
 * the value the field reports, and lie inside the captured bytes.
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
#include "packet.h"
#include "test_support.h"
#include "vectors.h"

#define MAD_AT 28

/* Native GMP frame to QP1 around a 256-byte MAD that fill() writes at mad. */
static size_t native(uint8_t *f, void (*fill)(uint8_t *mad))
{
    memset(f, 0, 290);
    struct ts_lrh l = {
        .vl = 0xA, .lver = 0, .sl = 5, .lnh = 2, .dlid = 0x1234, .pktlen = 72, .slid = 0x0BCD
    };
    struct ts_bth t = { .opcode = 0x64, .se = true, .pkey = 0xFFFF, .destqp = 1, .psn = 0x00BEEF };
    size_t at = ts_put_lrh(f, 0, &l);
    at = ts_put_bth(f, at, &t);
    at = ts_put_deth(f, at, 0x80010000u, 1);
    fill(f + at);
    ts_put32(f, at + 256, 0xC1C2C3C4u);
    ts_put16(f, at + 260, 0xD1D2);
    return at + 262;
}

/* The CM messages: the shared vectors of vectors.c (every field distinct;
 * REQ LocalCommID 0x11223344, LocalQPN 0xABCDEF, IP CM sport 50000, ...). */
static void fill_rej(uint8_t *m)
{
    ts_build_cm_rej(m, 24); /* port and CM redirect: ARI is ClassPortInfo */
}

/* SA GetResp, redirect status, ClassPortInfo at 56. */
static void fill_sa_cpi(uint8_t *m)
{
    struct ts_mad_hdr h = { .base_version = 1,
                            .mgmt_class = 0x03,
                            .class_version = 2,
                            .method = 0x81,
                            .status = 0xA51E,
                            .class_specific = 0xBEEF,
                            .tid = 0x0102030405060708ull,
                            .attr_id = 0x0001,
                            .attr_mod = 0x89ABCDEFu };
    ts_put_mad_hdr(m, 0, &h);
    ts_hex(ts_cpi_hex, m + 56, 72);
}

static const struct ib_field *field(const char *abbrev)
{
    for (size_t i = 0; i < ib_field_count; i++)
        if (strcmp(ib_fields[i].abbrev, abbrev) == 0)
            return &ib_fields[i];
    fail_msg("no field %s", abbrev);
    return NULL;
}

static void decode(const uint8_t *f, size_t len, struct ib_packet *p)
{
    uint8_t *b = ts_exact_copy(f, len);
    assert_int_equal(ib_parse_frame(NULL, IB_DLT_INFINIBAND, b, len, len, p), IB_FRAME_IB);
    free(b);
}

/* The field's value and frame offset, and the frame's byte there. */
static void check_uint(const struct ib_packet *p, const uint8_t *f, const char *abbrev,
                       uint64_t want, uint32_t want_off, uint8_t want_byte)
{
    const struct ib_field *fd = field(abbrev);
    struct ib_field_value v;
    if (!ib_field_get(fd, p, &v))
        fail_msg("%s not present", abbrev);
    if (v.u != want)
        fail_msg("%s = 0x%llx, expected 0x%llx", abbrev, (unsigned long long)v.u,
                 (unsigned long long)want);
    uint32_t off = ib_field_frame_offset(fd, p);
    if (off != want_off)
        fail_msg("%s at frame offset %u, expected %u", abbrev, off, want_off);
    assert_int_equal(f[off], want_byte);
}

static void test_req_field_values(void **state)
{
    (void)state;
    uint8_t f[290];
    size_t n = native(f, ts_build_cm_req);
    struct ib_packet p;
    decode(f, n, &p);
    assert_true(ib_packet_has(&p, IB_HAS_CM));
    check_uint(&p, f, "lrh.vl", 0xA, 0, 0xA0);
    check_uint(&p, f, "lrh.sl", 5, 1, 0x52);
    check_uint(&p, f, "lrh.lnh", 2, 1, 0x52);
    check_uint(&p, f, "lrh.dlid", 0x1234, 2, 0x12);
    check_uint(&p, f, "lrh.pktlen", 72, 4, 0x00);
    check_uint(&p, f, "lrh.slid", 0x0BCD, 6, 0x0B);
    check_uint(&p, f, "bth.opcode", 0x64, 8, 0x64);
    check_uint(&p, f, "bth.se", 1, 9, 0x80);
    check_uint(&p, f, "bth.destqp", 1, 13, 0x00);
    check_uint(&p, f, "bth.psn", 0xBEEF, 17, 0x00);
    check_uint(&p, f, "deth.qkey", 0x80010000u, 20, 0x80);
    check_uint(&p, f, "deth.srcqp", 1, 25, 0x00);
    check_uint(&p, f, "mad.mgmt_class", 0x07, 29, 0x07);
    check_uint(&p, f, "mad.tid", 0x0102030405060708ull, 36, 0x01);
    check_uint(&p, f, "mad.attr_id", 0x0010, 44, 0x00);
    check_uint(&p, f, "cm.local_comm_id", 0x11223344u, 52, 0x11);
    check_uint(&p, f, "cm.service_id", 0x0000000001063039ull, 60, 0x00);
    check_uint(&p, f, "cm.port_space", 0x0106, 64, 0x01);
    check_uint(&p, f, "cm.dport", 12345, 66, 0x30);
    check_uint(&p, f, "cm.req.local_qpn", 0xABCDEF, 84, 0xAB);
    check_uint(&p, f, "cm.req.pkey", 0xBEEF, 100, 0xBE);
    check_uint(&p, f, "cm.req.primary.flow_label", 0xABCDE, MAD_AT + 112, 0xAB);
    check_uint(&p, f, "cm.req.primary.packet_rate", 0x2A, MAD_AT + 115, 0x2A);
    check_uint(&p, f, "cm.req.primary.tclass", 0x5C, MAD_AT + 116, 0x5C);
    check_uint(&p, f, "cm.req.alternate.local_lid", 0x0303, MAD_AT + 120, 0x03);
    check_uint(&p, f, "cm.req.alternate.flow_label", 0x12345, MAD_AT + 156, 0x12);
    check_uint(&p, f, "cm.req.alternate.sl", 0x4, MAD_AT + 162, 0x47);
    check_uint(&p, f, "cm.ipcm_ipv", 4, MAD_AT + 165, 0x40);
    check_uint(&p, f, "cm.sport", 50000, MAD_AT + 166, 0xC3);

    const struct ib_field *src = field("cm.src_ip");
    struct ib_field_value v;
    assert_true(ib_field_get(src, &p, &v));
    static const uint8_t ip[4] = { 192, 168, 1, 10 };
    assert_memory_equal(v.bytes, ip, 4);
    assert_int_equal(ib_field_frame_offset(src, &p), MAD_AT + 164 + 16);
    assert_memory_equal(f + MAD_AT + 164 + 16, ip, 4);
    char buf[64];
    ib_field_format(src, &v, buf, sizeof buf);
    assert_string_equal(buf, "192.168.1.10");
    assert_true(ib_field_get(field("cm.dst_ip"), &p, &v));
    assert_int_equal(v.bytes[0], 10);
    assert_int_equal(v.bytes[3], 20);
    assert_int_equal(ib_field_frame_offset(field("cm.dst_ip"), &p), MAD_AT + 164 + 32);

    /* formatting: decimal and hex */
    assert_true(ib_field_get(field("lrh.dlid"), &p, &v));
    ib_field_format(field("lrh.dlid"), &v, buf, sizeof buf);
    assert_string_equal(buf, "4660");
    assert_true(ib_field_get(field("deth.qkey"), &p, &v));
    ib_field_format(field("deth.qkey"), &v, buf, sizeof buf);
    assert_string_equal(buf, "0x80010000");
    assert_true(ib_field_get(field("mad.tid"), &p, &v));
    ib_field_format(field("mad.tid"), &v, buf, sizeof buf);
    assert_string_equal(buf, "0x0102030405060708");

    /* absent layers and conditions */
    assert_false(ib_field_get(field("grh.sgid"), &p, &v));
    assert_false(ib_field_get(field("cpi.redirect_lid"), &p, &v));
    assert_false(ib_field_get(field("cm.src_ip6"), &p, &v));
    assert_false(ib_field_get(field("cm.rep.local_qpn"), &p, &v));
    assert_false(ib_field_get(field("cm.reject_reason"), &p, &v));
    assert_false(ib_field_get(field("cm.lap.alternate.sl"), &p, &v));
}

static void test_cpi_field_values(void **state)
{
    (void)state;
    uint8_t f[290];
    size_t n = native(f, fill_sa_cpi);
    struct ib_packet p;
    decode(f, n, &p);
    assert_true(ib_packet_has(&p, IB_HAS_CPI));
    uint32_t cpi = MAD_AT + 56;
    check_uint(&p, f, "mad.status", 0xA51E, MAD_AT + 4, 0xA5);
    check_uint(&p, f, "mad.status.redirect", 1, MAD_AT + 4, 0xA5);
    check_uint(&p, f, "mad.status.invalid_field", 7, MAD_AT + 4, 0xA5);
    check_uint(&p, f, "mad.status.class_specific", 0xA5, MAD_AT + 4, 0xA5);
    check_uint(&p, f, "cpi.cap_mask2", 0x7468ACE, cpi + 4, 0xE8);
    check_uint(&p, f, "cpi.resp_time", 0x13, cpi + 4, 0xE8);
    check_uint(&p, f, "cpi.redirect_tc", 0x9C, cpi + 24, 0x9C);
    check_uint(&p, f, "cpi.redirect_sl", 0xD, cpi + 24, 0x9C);
    check_uint(&p, f, "cpi.redirect_fl", 0xB1234, cpi + 24, 0x9C);
    check_uint(&p, f, "cpi.redirect_lid", 0x4321, cpi + 28, 0x43);
    check_uint(&p, f, "cpi.redirect_qp", 0xC0FFEE, cpi + 33, 0xC0);
    check_uint(&p, f, "cpi.redirect_qkey", 0x11223344, cpi + 36, 0x11);
    check_uint(&p, f, "cpi.trap_hl", 0x3E, cpi + 64, 0x3E);
    check_uint(&p, f, "cpi.trap_qp", 0x1ABCDE, cpi + 65, 0x1A);
    assert_false(ib_packet_has(&p, IB_HAS_CM));
}

static void test_field_table_shape(void **state)
{
    (void)state;
    assert_true(ib_field_count > 50);
    for (size_t i = 0; i < ib_field_count; i++) {
        const struct ib_field *a = &ib_fields[i];
        assert_non_null(a->abbrev);
        if (!a->abbrev[0] || !a->name || !a->name[0])
            fail_msg("field %zu has an empty abbrev or name", i);
        size_t bl = a->blurb ? strlen(a->blurb) : 0;
        if (bl == 0 || a->blurb[bl - 1] != '.')
            fail_msg("%s: blurb does not end with '.'", a->abbrev);
        if ((a->wire_len == 0) != (a->role == IB_FR_DERIVED))
            fail_msg("%s: wire_len 0 is for derived fields, and only for them", a->abbrev);
        for (size_t j = i + 1; j < ib_field_count; j++)
            if (strcmp(a->abbrev, ib_fields[j].abbrev) == 0)
                fail_msg("abbrev %s used twice", a->abbrev);
    }
}

static uint64_t mask_shift(uint64_t w, uint64_t mask)
{
    if (!mask)
        return w;
    w &= mask;
    while (!(mask & 1)) {
        mask >>= 1;
        w >>= 1;
    }
    return w;
}

/* Every present field lies inside the captured bytes, and its wire bytes
 * (under its mask) hold the value it reports. */
static void check_fields_skip(const uint8_t *f, size_t len, const struct ib_packet *p,
                              const char *what, const char *skip)
{
    for (size_t i = 0; i < ib_field_count; i++) {
        const struct ib_field *fd = &ib_fields[i];
        struct ib_field_value v;
        if (!ib_field_get(fd, p, &v))
            continue;
        if ((skip && strcmp(fd->abbrev, skip) == 0) || fd->role == IB_FR_DERIVED)
            continue;
        uint64_t off = ib_field_frame_offset(fd, p);
        if (off + fd->wire_len > len)
            fail_msg("%s: %s ends at %llu past caplen %zu", what, fd->abbrev,
                     (unsigned long long)(off + fd->wire_len), len);
        if (fd->type == IB_FT_GID || fd->type == IB_FT_IPV6) {
            if (memcmp(f + off, v.bytes, 16) != 0)
                fail_msg("%s: %s value differs from its wire bytes", what, fd->abbrev);
            continue;
        }
        if (fd->type == IB_FT_IPV4) {
            if (memcmp(f + off, v.bytes, 4) != 0)
                fail_msg("%s: %s value differs from its wire bytes", what, fd->abbrev);
            continue;
        }
        uint64_t w = 0;
        for (unsigned k = 0; k < fd->wire_len; k++)
            w = w << 8 | f[off + k];
        uint64_t wire = mask_shift(w, fd->wire_mask);
        uint64_t val = fd->type == IB_FT_BOOL ? (v.u != 0) : v.u;
        if (fd->type == IB_FT_BOOL)
            wire = wire != 0;
        if (wire != val)
            fail_msg("%s: %s reports 0x%llx but its wire bytes at %llu hold 0x%llx", what,
                     fd->abbrev, (unsigned long long)val, (unsigned long long)off,
                     (unsigned long long)wire);
    }
}

static void check_all_fields(const uint8_t *f, size_t len, const struct ib_packet *p,
                             const char *what)
{
    check_fields_skip(f, len, p, what, NULL);
}

static void check_packet_skip(void (*fill)(uint8_t *), const char *what, const char *skip)
{
    uint8_t f[290];
    size_t n = native(f, fill);
    struct ib_packet p;
    decode(f, n, &p);
    assert_true(ib_packet_has(&p, IB_HAS_MAD));
    check_fields_skip(f, n, &p, what, skip);
}

static void check_packet(void (*fill)(uint8_t *), const char *what)
{
    check_packet_skip(fill, what, NULL);
}

static void test_fields_match_wire(void **state)
{
    (void)state;
    check_packet(ts_build_cm_req, "REQ");
    check_packet(fill_rej, "REJ");
    check_packet(ts_build_cm_rep, "REP");
    check_packet(ts_build_cm_mra, "MRA");
    check_packet(ts_build_cm_dreq, "DREQ");
    check_packet(ts_build_cm_apr, "APR");
    check_packet(ts_build_cm_lap, "LAP");
    check_packet(fill_sa_cpi, "SA ClassPortInfo");
    /* SIDR: every field but cm.remote_comm_id (see the next test) */
    check_packet_skip(ts_build_cm_sidr_req, "SIDR_REQ", "cm.remote_comm_id");
    check_packet_skip(ts_build_cm_sidr_rep, "SIDR_REP", "cm.remote_comm_id");
}

/* Regression (bug found by this test, fixed in a5db222; core/parse/fields.c,
 * "cm.remote_comm_id"): the field applied to every CM message
 * (IB_COND_CM_COMM_IDS, 0x10-0x1A) and highlighted MAD bytes 28-31,
 * but SIDR messages have no RemoteCommID there (IBA Vol. 1 chapter 12: SIDR_REQ
 * 28-29 P_Key; SIDR_REP 28 Status, 29 InfoLen) and the core reported 0: the
 * field showed RemoteCommID 0 over bytes holding 0x81230000 (SIDR_REQ) or
 * 0x04480000 (SIDR_REP).  The field should not apply to SIDR_REQ/SIDR_REP
 * (nor, strictly, to REQ, where 28-31 are reserved). */
static void test_fields_match_wire_sidr(void **state)
{
    (void)state;
    check_packet(ts_build_cm_sidr_req, "SIDR_REQ");
    check_packet(ts_build_cm_sidr_rep, "SIDR_REP");
}

/* Regression (bug found by this test, fixed in a5db222; core/parse/fields.c
 * PATH("cm.lap.alternate", ..., 44) and core/parse/cm.c parse_path):
 * the LAP path is laid out differently from the REQ path (IBA Vol. 1 §12.6.14,
 * Linux struct cm_lap_msg): MAD 80-83 FlowLabel:20 rsv:4 TClass:8, 84 HopLimit,
 * 85 rsv:2 PacketRate:6.  The table put TClass at 84, HopLimit at 85 and
 * PacketRate at 83 (REQ shape), and the parser read the same wrong bytes. */
static void test_lap_path_fields(void **state)
{
    (void)state;
    uint8_t f[290];
    size_t n = native(f, ts_build_cm_lap);
    struct ib_packet p;
    decode(f, n, &p);
    check_uint(&p, f, "cm.lap.alternate.flow_label", 0x9ABCD, MAD_AT + 80, 0x9A);
    check_uint(&p, f, "cm.lap.alternate.sl", 0x9, MAD_AT + 86, 0x98);
    check_uint(&p, f, "cm.lap.alternate.local_ack_timeout", 0x12, MAD_AT + 87, 0x90);
    check_uint(&p, f, "cm.lap.alternate.tclass", 0x7E, MAD_AT + 83, 0x7E);
    check_uint(&p, f, "cm.lap.alternate.hop_limit", 0x21, MAD_AT + 84, 0x21);
    check_uint(&p, f, "cm.lap.alternate.packet_rate", 0x0C, MAD_AT + 85, 0x0C);
}

/* A GRH packet (LNH 3) checks the GRH fields' masks. */
static void test_fields_match_wire_grh(void **state)
{
    (void)state;
    uint8_t f[330];
    memset(f, 0, sizeof f);
    struct ts_lrh l = {
        .vl = 0x3, .sl = 0xC, .lnh = 3, .dlid = 0x00AB, .pktlen = 82, .slid = 0x00CD
    };
    struct ts_grh g = { .ipver = 6,
                        .tclass = 0xB7,
                        .flowlabel = 0xACE15,
                        .paylen = 280,
                        .nxthdr = 0x1B,
                        .hoplmt = 0x40 };
    ts_gid(g.sgid, "fe80000000000000 0002c90300012345");
    ts_gid(g.dgid, "fe80000000000000 0002c90300054321");
    struct ts_bth t = { .opcode = 0x64,
                        .m = true,
                        .padcnt = 0,
                        .pkey = 0x8001,
                        .destqp = 1,
                        .ackreq = true,
                        .psn = 0xFEDCBA };
    size_t at = ts_put_lrh(f, 0, &l);
    at = ts_put_grh(f, at, &g);
    at = ts_put_bth(f, at, &t);
    at = ts_put_deth(f, at, 0x80010000u, 1);
    ts_build_cm_req(f + at);
    ts_put32(f, at + 256, 0xC1C2C3C4u);
    ts_put16(f, at + 260, 0xD1D2);
    size_t n = at + 262;
    assert_int_equal(n, 330);
    struct ib_packet p;
    decode(f, n, &p);
    assert_true(ib_packet_has(&p, IB_HAS_GRH | IB_HAS_CM));
    assert_int_equal(p.diags.count, 0);
    check_uint(&p, f, "grh.tclass", 0xB7, 8, 0x6B);
    check_uint(&p, f, "grh.flowlabel", 0xACE15, 9, 0x7A);
    check_uint(&p, f, "grh.paylen", 280, 12, 0x01);
    check_uint(&p, f, "bth.m", 1, 49, 0x40);
    check_uint(&p, f, "bth.ackreq", 1, 56, 0x80);
    check_all_fields(f, n, &p, "GRH REQ");
}

/* Every prefix of the REQ frame: whatever is present lies inside the prefix. */
/* ib_field_may_apply_to_cm: never false for a field a message of that kind
 * carries (a decoder that skips by it would lose the field), and false
 * for fields of other messages. */
static void test_may_apply_to_cm(void **state)
{
    (void)state;
    static const struct {
        void (*fill)(uint8_t *);
        uint16_t attr;
    } msgs[] = {
        { ts_build_cm_req, 0x0010 },
        { ts_build_cm_mra, 0x0011 },
        { fill_rej, 0x0012 },
        { ts_build_cm_rep, 0x0013 },
        { ts_build_cm_dreq, 0x0015 },
        { ts_build_cm_sidr_req, 0x0017 },
        { ts_build_cm_sidr_rep, 0x0018 },
        { ts_build_cm_lap, 0x0019 },
        { ts_build_cm_apr, 0x001A },
    };
    for (size_t m = 0; m < sizeof msgs / sizeof msgs[0]; m++) {
        uint8_t f[300];
        size_t len = native(f, msgs[m].fill);
        struct ib_packet p;
        decode(f, len, &p);
        assert_int_equal(p.cm.attr, msgs[m].attr);
        unsigned present = 0;
        for (size_t i = 0; i < ib_field_count; i++) {
            struct ib_field_value v;
            if (!ib_field_get(&ib_fields[i], &p, &v))
                continue;
            present++;
            if (!ib_field_may_apply_to_cm(&ib_fields[i], msgs[m].attr))
                fail_msg("%s is present in CM 0x%04x but said not to apply", ib_fields[i].abbrev,
                         msgs[m].attr);
        }
        assert_true(present > 20);
    }
    assert_true(ib_field_may_apply_to_cm(field("lrh.dlid"), 0x0013));
    assert_true(ib_field_may_apply_to_cm(field("cm.sport"), 0x0010));
    assert_true(ib_field_may_apply_to_cm(field("cm.sport"), 0x0017));
    assert_false(ib_field_may_apply_to_cm(field("cm.sport"), 0x0013));
    assert_false(ib_field_may_apply_to_cm(field("cm.req.local_qpn"), 0x0013));
    assert_true(ib_field_may_apply_to_cm(field("cm.reject_reason"), 0x0012));
    assert_false(ib_field_may_apply_to_cm(field("cm.reject_reason"), 0x0014));
    assert_false(ib_field_may_apply_to_cm(field("cm.remote_comm_id"), 0x0010));
    assert_true(ib_field_may_apply_to_cm(field("cm.remote_comm_id"), 0x0014));
}

static void test_fields_inside_every_prefix(void **state)
{
    (void)state;
    uint8_t f[290];
    size_t n = native(f, ts_build_cm_req);
    for (size_t len = 0; len <= n; len++) {
        uint8_t *b = ts_exact_copy(f, len);
        struct ib_packet p;
        enum ib_frame_result r = ib_parse_frame(NULL, IB_DLT_INFINIBAND, b, len, n, &p);
        assert_int_equal(r, IB_FRAME_IB);
        for (size_t i = 0; i < ib_field_count; i++) {
            struct ib_field_value v;
            if (!ib_field_get(&ib_fields[i], &p, &v))
                continue;
            uint64_t end =
                (uint64_t)ib_field_frame_offset(&ib_fields[i], &p) + ib_fields[i].wire_len;
            if (end > len)
                fail_msg("prefix %zu: %s ends at %llu", len, ib_fields[i].abbrev,
                         (unsigned long long)end);
        }
        free(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_req_field_values),           cmocka_unit_test(test_cpi_field_values),
        cmocka_unit_test(test_field_table_shape),          cmocka_unit_test(test_fields_match_wire),
        cmocka_unit_test(test_fields_match_wire_sidr),     cmocka_unit_test(test_lap_path_fields),
        cmocka_unit_test(test_fields_match_wire_grh),      cmocka_unit_test(test_may_apply_to_cm),
        cmocka_unit_test(test_fields_inside_every_prefix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
