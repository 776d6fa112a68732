/* test_parse_addressing.c - every addressing rule of core/include/diag.h, one packet each.
 *
 * Each packet is a clean SMP or GMP with one field changed to break one rule
 * (IBA Vol. 1 chapter 4 for the rules, chapters 5, 9 and 13 for the headers).  Packets
 * travel in ERF type 21 records, so the LRH starts at frame offset 16 and a
 * diagnostic that counted from the header instead of the frame would show.
 * Frame offsets: LRH 16; without GRH: BTH 24, DETH 36, MAD 44; with GRH:
 * GRH 24 (SGID 32, DGID 48), BTH 64, DETH 76, MAD 84.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "packet.h"
#include "test_support.h"

#define E 16 /* ERF header */

struct desc {
    struct ts_lrh lrh;
    bool grh;
    struct ts_grh g;
    struct ts_bth bth;
    uint32_t qkey, srcqp;
    struct ts_mad_hdr mad;
    bool req_ipcm; /* MAD is a CM REQ with an IP CM header */
    uint64_t sid;
    uint8_t ipcm0, ipcm1; /* MajV|MinV, IPV|rsv */
};

/* SMP: VL15, DLID permissive, SLID 1, QP0, directed-route class 0x81, PortInfo Get. */
static struct desc smp(void)
{
    struct desc d = {
        .lrh = { .vl = 15, .lver = 0, .sl = 0, .lnh = 2, .dlid = 0xFFFF, .slid = 0x0001 },
        .bth = { .opcode = 0x64, .pkey = 0xFFFF, .destqp = 0, .psn = 7 },
        .qkey = 0,
        .srcqp = 0,
        .mad = { .base_version = 1,
                 .mgmt_class = 0x81,
                 .class_version = 1,
                 .method = 0x01,
                 .tid = 0x1111,
                 .attr_id = 0x0015 },
    };
    return d;
}

/* GMP: VL 0, DLID 0x1234, SLID 0x0BCD, QP1, Q_Key 0x80010000, SA Get PathRecord. */
static struct desc gmp(void)
{
    struct desc d = {
        .lrh = { .vl = 0, .lver = 0, .sl = 5, .lnh = 2, .dlid = 0x1234, .slid = 0x0BCD },
        .bth = { .opcode = 0x64, .pkey = 0xFFFF, .destqp = 1, .psn = 8 },
        .qkey = 0x80010000u,
        .srcqp = 1,
        .mad = { .base_version = 1,
                 .mgmt_class = 0x03,
                 .class_version = 2,
                 .method = 0x01,
                 .tid = 0x2222,
                 .attr_id = 0x0035 },
    };
    return d;
}

static struct desc gmp_grh(void)
{
    struct desc d = gmp();
    d.lrh.lnh = 3;
    d.grh = true;
    d.g = (struct ts_grh){
        .ipver = 6, .tclass = 0, .flowlabel = 0x12345, .nxthdr = 0x1B, .hoplmt = 64
    };
    ts_gid(d.g.sgid, "fe80000000000000 0002c90300000001");
    ts_gid(d.g.dgid, "fe80000000000000 0002c90300000002");
    return d;
}

/* CM REQ (IP CM, TCP port 12345) on QP1. */
static struct desc req(void)
{
    struct desc d = gmp();
    d.mad.mgmt_class = 0x07;
    d.mad.method = 0x03;
    d.mad.attr_id = 0x0010;
    d.req_ipcm = true;
    d.sid = 0x0000000001063039ull;
    d.ipcm0 = 0x00;
    d.ipcm1 = 0x40;
    return d;
}

/* Writes ERF + LRH [+ GRH] + BTH [+ DETH] + 256-byte payload + ICRC + VCRC. */
static size_t build(uint8_t *f, const struct desc *d)
{
    bool ud = d->bth.opcode == 0x64;
    size_t ib = 8 + (d->grh ? 40 : 0) + 12 + (ud ? 8 : 0) + 256 + 4;
    memset(f, 0, E + ib + 2);
    ts_hex("0102030405060708", f, 8);
    f[8] = 21;
    ts_put16(f, 10, (uint16_t)(E + ib + 2));
    ts_put16(f, 14, (uint16_t)(ib + 2));
    struct ts_lrh l = d->lrh;
    l.pktlen = (uint16_t)(ib / 4);
    size_t at = ts_put_lrh(f, E, &l);
    if (d->grh) {
        struct ts_grh g = d->g;
        g.paylen = (uint16_t)(ib - 48);
        at = ts_put_grh(f, at, &g);
    }
    at = ts_put_bth(f, at, &d->bth);
    if (ud)
        at = ts_put_deth(f, at, d->qkey, d->srcqp);
    ts_put_mad_hdr(f, at, &d->mad);
    if (d->req_ipcm) {
        ts_put32(f, at + 24, 0x01020304u);
        ts_put64(f, at + 32, d->sid);
        f[at + 164] = d->ipcm0;
        f[at + 165] = d->ipcm1;
        ts_put16(f, at + 166, 50000);
        ts_hex("000000000000000000000000 c0a8010a 000000000000000000000000 0a000014", f + at + 168,
               32);
    }
    at += 256;
    ts_put32(f, at, 0xC1C2C3C4u);
    ts_put16(f, at + 4, 0xD1D2);
    return at + 6;
}

static void run(const struct desc *d, struct ib_packet *p)
{
    uint8_t f[E + 8 + 40 + 12 + 8 + 256 + 6];
    size_t n = build(f, d);
    uint8_t *b = ts_exact_copy(f, n);
    assert_int_equal(ib_parse_frame(NULL, IB_DLT_ERF, b, n, n, p), IB_FRAME_IB);
    free(b);
}

static void assert_clean(const struct desc *d)
{
    struct ib_packet p;
    run(d, &p);
    if (p.diags.count) {
        ts_diag_dump(&p.diags);
        fail_msg("expected no diagnostic, got %u", p.diags.count);
    }
}

/* The rule fires, at the offending field's frame offset and length, named
 * as diag.h says, flagged as an addressing rule when it is one; and it is
 * the only diagnostic. */
static void assert_only(const struct desc *d, enum ib_diag_id id, const char *name, bool addressing,
                        uint32_t off, uint16_t len)
{
    struct ib_packet p;
    run(d, &p);
    const struct ib_diag_info *info = ib_diag_info(id);
    assert_string_equal(info->name, name);
    assert_int_equal(ib_diag_by_name(name), id);
    assert_int_equal(info->addressing, addressing);
    assert_int_equal(info->group, IB_GROUP_PROTOCOL);
    const struct ib_diag *g = ts_diag_find(&p.diags, id);
    if (!g || p.diags.count != 1) {
        ts_diag_dump(&p.diags);
        fail_msg("expected exactly %s, got %u diagnostics", name, p.diags.count);
    }
    if (g->offset != off || g->length != len)
        fail_msg("%s at offset %u length %u, expected offset %u length %u", name, g->offset,
                 g->length, off, len);
}

/* ---- clean packets ---- */

static void test_clean_smp(void **state)
{
    (void)state;
    struct desc d = smp();
    struct ib_packet p;
    run(&d, &p);
    assert_true(ib_packet_has(&p, IB_HAS_LRH | IB_HAS_BTH | IB_HAS_DETH | IB_HAS_MAD));
    assert_int_equal(p.off.mad, 44);
    assert_clean(&d);
    d.mad.mgmt_class = 0x01; /* LID-routed SMP, to a unicast DLID */
    d.lrh.dlid = 0x0042;
    assert_clean(&d);
}

static void test_clean_gmp(void **state)
{
    (void)state;
    struct desc d = gmp();
    struct ib_packet p;
    run(&d, &p);
    assert_true(ib_packet_has(&p, IB_HAS_MAD));
    assert_int_equal(p.off.deth, 36);
    assert_clean(&d);
    d = gmp_grh();
    run(&d, &p);
    assert_true(ib_packet_has(&p, IB_HAS_GRH | IB_HAS_MAD));
    assert_int_equal(p.off.grh, 24);
    assert_int_equal(p.off.mad, 84);
    assert_clean(&d);
    d = req();
    run(&d, &p);
    assert_true(p.cm.has_ipcm);
    assert_clean(&d);
    d.lrh.slid = 0xBFFF; /* highest unicast LID */
    d.lrh.dlid = 0x0001;
    assert_clean(&d);
}

/* UD multicast: DLID 0xC010, DGID ff12::1 (T flag), DestQP 0xFFFFFF. */
static void test_clean_multicast(void **state)
{
    (void)state;
    struct desc d = gmp_grh();
    d.lrh.dlid = 0xC010;
    ts_gid(d.g.dgid, "ff12401bffff0000 0000000000000001");
    d.bth.destqp = 0xFFFFFF;
    d.srcqp = 0x000777;
    d.qkey = 0x11111111u;
    struct ib_packet p;
    run(&d, &p);
    assert_false(ib_packet_has(&p, IB_HAS_MAD));
    assert_clean(&d);
    d.lrh.dlid = 0xFFFE; /* top of the multicast range */
    assert_clean(&d);
}

/* ---- LID rules ---- */

static void test_slid_reserved(void **state)
{
    (void)state;
    struct desc d = gmp();
    d.lrh.slid = 0x0000;
    assert_only(&d, IB_DIAG_SLID_RESERVED, "slid_reserved", true, E + 6, 2);
}

static void test_slid_multicast(void **state)
{
    (void)state;
    struct desc d = gmp();
    d.lrh.slid = 0xC001;
    assert_only(&d, IB_DIAG_SLID_MULTICAST, "slid_multicast", true, E + 6, 2);
    d.lrh.slid = 0xC000;
    assert_only(&d, IB_DIAG_SLID_MULTICAST, "slid_multicast", true, E + 6, 2);
}

static void test_slid_permissive(void **state)
{
    (void)state;
    struct desc d = gmp();
    d.lrh.slid = 0xFFFF;
    assert_only(&d, IB_DIAG_SLID_PERMISSIVE, "slid_permissive", true, E + 6, 2);
}

/* A directed-route SMP leaves the subnet manager from the permissive LID, as
 * real captures show (the Wireshark wiki's infiniband.pcap, SMInfo SMPs). */
static void test_slid_permissive_smp_is_clean(void **state)
{
    (void)state;
    struct desc d = smp();
    d.lrh.slid = 0xFFFF;
    assert_clean(&d);
}

static void test_dlid_reserved(void **state)
{
    (void)state;
    struct desc d = gmp();
    d.lrh.dlid = 0x0000;
    assert_only(&d, IB_DIAG_DLID_RESERVED, "dlid_reserved", true, E + 2, 2);
}

static void test_mcast_dgid_unicast_dlid(void **state)
{
    (void)state;
    struct desc d = gmp_grh();
    ts_gid(d.g.dgid, "ff12401bffff0000 0000000000000001");
    d.bth.destqp = 0xFFFFFF;
    d.srcqp = 0x000777;
    d.qkey = 0x11111111u;
    assert_only(&d, IB_DIAG_MCAST_DGID_UNICAST_DLID, "mcast_dgid_unicast_dlid", true, E + 2, 2);
}

/* RC SEND Only (0x04, no DETH) to a multicast DLID. */
static void test_mcast_dlid_not_ud(void **state)
{
    (void)state;
    struct desc d = gmp();
    d.bth.opcode = 0x04;
    d.bth.destqp = 0x000321;
    d.lrh.dlid = 0xC010;
    struct ib_packet p;
    run(&d, &p);
    assert_false(ib_packet_has(&p, IB_HAS_DETH));
    assert_only(&d, IB_DIAG_MCAST_DLID_NOT_UD, "mcast_dlid_not_ud", true, E + 2, 2);
    d.lrh.dlid = 0x0321; /* the same RC packet to a unicast DLID is fine */
    assert_clean(&d);
}

static void test_permissive_dlid_not_smp(void **state)
{
    (void)state;
    struct desc d = gmp();
    d.lrh.dlid = 0xFFFF;
    assert_only(&d, IB_DIAG_PERMISSIVE_DLID_NOT_SMP, "permissive_dlid_not_smp", true, E + 2, 2);
}

/* ---- VL / QP rules ---- */

static void test_vl15_not_smp(void **state)
{
    (void)state;
    struct desc d = gmp();
    d.lrh.vl = 15;
    assert_only(&d, IB_DIAG_VL15_NOT_SMP, "vl15_not_smp", true, E, 1);
}

static void test_smp_not_vl15(void **state)
{
    (void)state;
    struct desc d = smp();
    d.lrh.vl = 0;
    assert_only(&d, IB_DIAG_SMP_NOT_VL15, "smp_not_vl15", true, E, 1);
    d.lrh.vl = 14;
    assert_only(&d, IB_DIAG_SMP_NOT_VL15, "smp_not_vl15", true, E, 1);
}

static void test_gsi_qkey(void **state)
{
    (void)state;
    struct desc d = gmp();
    d.qkey = 0x80010001u;
    assert_only(&d, IB_DIAG_GSI_QKEY, "gsi_qkey", true, 36, 4);
}

/* SMP class on QP1; GMP class on QP0 (on VL15, so that only this rule breaks). */
static void test_mad_class_qp(void **state)
{
    (void)state;
    struct desc d = gmp();
    d.mad.mgmt_class = 0x01;
    assert_only(&d, IB_DIAG_MAD_CLASS_QP, "mad_class_qp", true, 44 + 1, 1);
    d.mad.mgmt_class = 0x81;
    assert_only(&d, IB_DIAG_MAD_CLASS_QP, "mad_class_qp", true, 44 + 1, 1);
    d = smp();
    d.mad.mgmt_class = 0x03;
    assert_only(&d, IB_DIAG_MAD_CLASS_QP, "mad_class_qp", true, 44 + 1, 1);
}

/* ---- LRH version / next header ---- */

static void test_lver_unknown(void **state)
{
    (void)state;
    struct desc d = gmp();
    d.lrh.lver = 1;
    assert_only(&d, IB_DIAG_LVER_UNKNOWN, "lver_unknown", true, E, 1);
}

static void test_lnh_not_iba(void **state)
{
    (void)state;
    struct desc d = gmp();
    d.lrh.lnh = 0; /* raw */
    struct ib_packet p;
    run(&d, &p);
    assert_false(ib_packet_has(&p, IB_HAS_BTH));
    assert_only(&d, IB_DIAG_LNH_NOT_IBA, "lnh_not_iba", true, E + 1, 1);
    d.lrh.lnh = 1; /* raw IPv6 */
    assert_only(&d, IB_DIAG_LNH_NOT_IBA, "lnh_not_iba", true, E + 1, 1);
}

/* ---- GRH / GID rules ---- */

static void test_grh_ipver(void **state)
{
    (void)state;
    struct desc d = gmp_grh();
    d.g.ipver = 4;
    assert_only(&d, IB_DIAG_GRH_IPVER, "grh_ipver", true, 24, 1);
}

static void test_grh_nxthdr(void **state)
{
    (void)state;
    struct desc d = gmp_grh();
    d.g.nxthdr = 0x11;
    struct ib_packet p;
    run(&d, &p);
    assert_false(ib_packet_has(&p, IB_HAS_BTH));
    assert_only(&d, IB_DIAG_GRH_NXTHDR, "grh_nxthdr", true, 24 + 6, 1);
}

static void test_sgid_reserved(void **state)
{
    (void)state;
    struct desc d = gmp_grh();
    memset(d.g.sgid, 0, 16);
    assert_only(&d, IB_DIAG_SGID_RESERVED, "sgid_reserved", true, 32, 16);
}

static void test_dgid_reserved(void **state)
{
    (void)state;
    struct desc d = gmp_grh();
    memset(d.g.dgid, 0, 16);
    assert_only(&d, IB_DIAG_DGID_RESERVED, "dgid_reserved", true, 48, 16);
}

static void test_gid_loopback(void **state)
{
    (void)state;
    struct desc d = gmp_grh();
    ts_gid(d.g.sgid, "00000000000000000000000000000001");
    assert_only(&d, IB_DIAG_GID_LOOPBACK, "gid_loopback", true, 32, 16);
    d = gmp_grh();
    ts_gid(d.g.dgid, "00000000000000000000000000000001");
    assert_only(&d, IB_DIAG_GID_LOOPBACK, "gid_loopback", true, 48, 16);
}

static void test_sgid_multicast(void **state)
{
    (void)state;
    struct desc d = gmp_grh();
    ts_gid(d.g.sgid, "ff12401bffff0000 0000000000000001");
    assert_only(&d, IB_DIAG_SGID_MULTICAST, "sgid_multicast", true, 32, 16);
}

/* Flags 0x3 (bit 5 set besides T): only 000T is allowed. */
static void test_mgid_flags(void **state)
{
    (void)state;
    struct desc d = gmp_grh();
    d.lrh.dlid = 0xC010;
    ts_gid(d.g.dgid, "ff32401bffff0000 0000000000000001");
    d.bth.destqp = 0xFFFFFF;
    d.srcqp = 0x000777;
    d.qkey = 0x11111111u;
    assert_only(&d, IB_DIAG_MGID_FLAGS, "mgid_flags", true, 48 + 1, 1);
    ts_gid(d.g.dgid, "ff82000000000000 0000000000000001"); /* flag bit 7 */
    assert_only(&d, IB_DIAG_MGID_FLAGS, "mgid_flags", true, 48 + 1, 1);
    ts_gid(d.g.dgid, "ff02000000000000 0000000000000001"); /* permanent: fine */
    assert_clean(&d);
}

/* ---- MAD / IP CM content ---- */

static void test_mad_base_version(void **state)
{
    (void)state;
    struct desc d = gmp();
    d.mad.base_version = 2;
    assert_only(&d, IB_DIAG_MAD_BASE_VERSION, "mad_base_version", false, 44, 1);
}

static void test_ipcm_version(void **state)
{
    (void)state;
    struct desc d = req();
    d.ipcm0 = 0x10; /* MajV 1 */
    assert_only(&d, IB_DIAG_IPCM_VERSION, "ipcm_version", false, 44 + 164, 1);
    d.ipcm0 = 0x05; /* MinV alone is fine */
    assert_clean(&d);
    /* port space IB (AF_IB) carries no IP CM header: nothing checked */
    d = req();
    d.sid = 0x00000000013F3039ull;
    d.ipcm0 = 0x10;
    assert_clean(&d);
}

static void test_ipcm_ipv(void **state)
{
    (void)state;
    struct desc d = req();
    d.ipcm1 = 0x50; /* IPV 5 */
    assert_only(&d, IB_DIAG_IPCM_IPV, "ipcm_ipv", false, 44 + 165, 1);
    d.ipcm1 = 0x60;
    assert_clean(&d);
}

/* ---- scope and LID helpers ---- */

static void test_gid_scope(void **state)
{
    (void)state;
    static const struct {
        const char *hex;
        enum ib_gid_scope scope;
    } table[] = {
        { "00000000000000000000000000000000", IB_GID_RESERVED },
        { "00000000000000000000000000000001", IB_GID_LOOPBACK },
        { "fe800000000000000002c90300012345", IB_GID_LINK_LOCAL },
        { "fe800000000000000000000000000000", IB_GID_LINK_LOCAL },
        { "fec00000000000000000000000000001", IB_GID_SITE_LOCAL },
        { "fed00000000000000000000000000001", IB_GID_SITE_LOCAL },
        { "feff0000000000000000000000000001", IB_GID_SITE_LOCAL },
        { "ff020000000000000000000000000001", IB_GID_MULTICAST },
        { "ff12401bffff00000000000000000001", IB_GID_MULTICAST },
        { "ff000000000000000000000000000000", IB_GID_MULTICAST },
        { "20010db8000000000000000000000001", IB_GID_GLOBAL },
        { "00000000000000000000ffffc0a8010a", IB_GID_GLOBAL }, /* RoCE IPv4-mapped */
        { "00000000000000000000000000000002", IB_GID_GLOBAL },
        { "01000000000000000000000000000000", IB_GID_GLOBAL },
        /* outside the default prefix fe80::/64 and outside fec0::/10 */
        { "fe800000000000010000000000000001", IB_GID_GLOBAL },
        { "febf0000000000000000000000000001", IB_GID_GLOBAL },
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        uint8_t gid[16];
        ts_gid(gid, table[i].hex);
        enum ib_gid_scope got = ib_gid_scope(gid);
        if (got != table[i].scope)
            fail_msg("%s: expected %s, got %s", table[i].hex, ib_gid_scope_name(table[i].scope),
                     ib_gid_scope_name(got));
    }
    assert_string_equal(ib_gid_scope_name(IB_GID_LINK_LOCAL), "link-local");
    assert_string_equal(ib_gid_scope_name(IB_GID_MULTICAST), "multicast");
}

static void test_lid_type(void **state)
{
    (void)state;
    assert_int_equal(ib_lid_type(0x0000), IB_LIDT_RESERVED);
    assert_int_equal(ib_lid_type(0x0001), IB_LIDT_UNICAST);
    assert_int_equal(ib_lid_type(0x1234), IB_LIDT_UNICAST);
    assert_int_equal(ib_lid_type(0xBFFF), IB_LIDT_UNICAST);
    assert_int_equal(ib_lid_type(0xC000), IB_LIDT_MULTICAST);
    assert_int_equal(ib_lid_type(0xC001), IB_LIDT_MULTICAST);
    assert_int_equal(ib_lid_type(0xFFFE), IB_LIDT_MULTICAST);
    assert_int_equal(ib_lid_type(0xFFFF), IB_LIDT_PERMISSIVE);
    assert_string_equal(ib_lid_type_name(IB_LIDT_PERMISSIVE), "permissive");
    assert_string_equal(ib_lid_type_name(IB_LIDT_UNICAST), "unicast");
}

/* Every diagnostic has a unique stable name and a sentence. */
static void test_diag_table(void **state)
{
    (void)state;
    for (unsigned i = 0; i < IB_DIAG_COUNT; i++) {
        const struct ib_diag_info *a = ib_diag_info((enum ib_diag_id)i);
        assert_non_null(a->name);
        assert_true(strcmp(a->name, "unknown") != 0);
        assert_true(a->text && a->text[0]);
        assert_int_equal(ib_diag_by_name(a->name), i);
        for (unsigned j = i + 1; j < IB_DIAG_COUNT; j++)
            assert_true(strcmp(a->name, ib_diag_info((enum ib_diag_id)j)->name) != 0);
    }
    assert_int_equal(ib_diag_by_name("no_such_rule"), IB_DIAG_COUNT);
    assert_string_equal(ib_diag_info(IB_DIAG_COUNT)->name, "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_smp),
        cmocka_unit_test(test_clean_gmp),
        cmocka_unit_test(test_clean_multicast),
        cmocka_unit_test(test_slid_reserved),
        cmocka_unit_test(test_slid_multicast),
        cmocka_unit_test(test_slid_permissive),
        cmocka_unit_test(test_slid_permissive_smp_is_clean),
        cmocka_unit_test(test_dlid_reserved),
        cmocka_unit_test(test_mcast_dgid_unicast_dlid),
        cmocka_unit_test(test_mcast_dlid_not_ud),
        cmocka_unit_test(test_permissive_dlid_not_smp),
        cmocka_unit_test(test_vl15_not_smp),
        cmocka_unit_test(test_smp_not_vl15),
        cmocka_unit_test(test_gsi_qkey),
        cmocka_unit_test(test_mad_class_qp),
        cmocka_unit_test(test_lver_unknown),
        cmocka_unit_test(test_lnh_not_iba),
        cmocka_unit_test(test_grh_ipver),
        cmocka_unit_test(test_grh_nxthdr),
        cmocka_unit_test(test_sgid_reserved),
        cmocka_unit_test(test_dgid_reserved),
        cmocka_unit_test(test_gid_loopback),
        cmocka_unit_test(test_sgid_multicast),
        cmocka_unit_test(test_mgid_flags),
        cmocka_unit_test(test_mad_base_version),
        cmocka_unit_test(test_ipcm_version),
        cmocka_unit_test(test_ipcm_ipv),
        cmocka_unit_test(test_gid_scope),
        cmocka_unit_test(test_lid_type),
        cmocka_unit_test(test_diag_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
