/* test_parse_frame.c - ib_parse_frame end to end, for every link type.
 *
 * A GMP (UD SEND_ONLY to QP1, Q_Key 0x80010000, a 256-byte CM REQ MAD) is
 * wrapped in each carrier ibscope reads (core/parse/linktype.c; RoCE per IBA Annexes
 * A16 and A17): native LRH first (247, 147, ERF type 21), RoCEv1 (GRH first),
 * RoCEv2 over IPv4/IPv6 (BTH first), with VLAN tags and Linux cooked headers.
 * Frame offsets are worked out from the header sizes: Ethernet 14, VLAN 4,
 * IPv4 20, IPv6 40, UDP 8, ERF 16 (+8 per extension), SLL 16, SLL2 20,
 * LRH 8, GRH 40, BTH 12, DETH 8, MAD 256, ICRC 4, VCRC 2.
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

#define TID           0x0102030405060708ull
#define COMM_ID       0xCAFEBABEu
#define TRANSPORT_LEN (12 + 8 + 256) /* BTH + DETH + MAD */
#define NATIVE_LEN    (8 + TRANSPORT_LEN + 4 + 2)
#define PKTLEN_WORDS  ((8 + TRANSPORT_LEN + 4) / 4) /* 72 */

static const uint8_t ip4_src[4] = { 192, 168, 1, 10 };
static const uint8_t ip4_dst[4] = { 10, 0, 0, 20 };

/* A 256-byte CM REQ (IP CM, TCP port 12345). */
static void put_req_mad(uint8_t *b, size_t off)
{
    uint8_t *m = b + off;
    memset(m, 0, 256);
    struct ts_mad_hdr h = { .base_version = 1,
                            .mgmt_class = 0x07,
                            .class_version = 2,
                            .method = 0x03,
                            .tid = TID,
                            .attr_id = 0x0010 };
    ts_put_mad_hdr(m, 0, &h);
    ts_put32(m, 24, COMM_ID);
    ts_put64(m, 32, 0x0000000001063039ull);
    ts_put24(m, 56, 0x000ABC);
    ts_put16(m, 76, 0x0BCD);
    ts_put16(m, 78, 0x1234);
    ts_put32(m, 112, 0xABCDE02Au);
    ts_hex("00 40 c350 000000000000000000000000 c0a8010a 000000000000000000000000 0a000014",
           m + 164, 36);
}

/* BTH (UD SEND_ONLY) + DETH + MAD at off; returns the offset past the MAD. */
static size_t put_transport(uint8_t *b, size_t off, uint32_t destqp, uint32_t qkey, uint32_t srcqp)
{
    struct ts_bth t = { .opcode = 0x64, .pkey = 0xFFFF, .destqp = destqp, .psn = 0x00BEEF };
    off = ts_put_bth(b, off, &t);
    off = ts_put_deth(b, off, qkey, srcqp);
    put_req_mad(b, off);
    return off + 256;
}

static size_t put_crcs(uint8_t *b, size_t off, bool vcrc)
{
    ts_put32(b, off, 0xC1C2C3C4u); /* ICRC */
    off += 4;
    if (vcrc) {
        ts_put16(b, off, 0xD1D2); /* VCRC */
        off += 2;
    }
    return off;
}

/* Native: LRH (VL 0xA, SL 5, LNH 2, DLID 0x1234, PktLen 72, SLID 0x0BCD) + GMP + ICRC + VCRC. */
static size_t put_native(uint8_t *b, size_t off)
{
    struct ts_lrh l = { .vl = 0xA,
                        .lver = 0,
                        .sl = 5,
                        .lnh = 2,
                        .dlid = 0x1234,
                        .pktlen = PKTLEN_WORDS,
                        .slid = 0x0BCD };
    off = ts_put_lrh(b, off, &l);
    off = put_transport(b, off, 1, 0x80010000u, 1);
    return put_crcs(b, off, true);
}

static size_t put_eth(uint8_t *b, uint16_t ethertype)
{
    ts_hex("020000000002 020000000001", b, 12);
    ts_put16(b, 12, ethertype);
    return 14;
}

static size_t put_ipv4(uint8_t *b, size_t off, uint16_t total)
{
    b[off] = 0x45;
    b[off + 1] = 0x00;
    ts_put16(b, off + 2, total);
    ts_put16(b, off + 4, 0x1234);
    ts_put16(b, off + 6, 0x4000); /* DF */
    b[off + 8] = 64;
    b[off + 9] = 17;
    ts_put16(b, off + 10, 0);
    memcpy(b + off + 12, ip4_src, 4);
    memcpy(b + off + 16, ip4_dst, 4);
    return off + 20;
}

static size_t put_ipv6(uint8_t *b, size_t off, uint16_t payload)
{
    ts_put32(b, off, 0x60000000u);
    ts_put16(b, off + 4, payload);
    b[off + 6] = 17;
    b[off + 7] = 64;
    ts_gid(b + off + 8, "20010db8000000000000000000000010");
    ts_gid(b + off + 24, "20010db8000000000000000000000020");
    return off + 40;
}

static size_t put_udp(uint8_t *b, size_t off, uint16_t dport, uint16_t len)
{
    ts_put16(b, off, 0xC0DE);
    ts_put16(b, off + 2, dport);
    ts_put16(b, off + 4, len);
    ts_put16(b, off + 6, 0);
    return off + 8;
}

/* RoCEv2 IPv4 from off: IPv4 + UDP + GMP + ICRC. */
static size_t put_rocev2_v4(uint8_t *b, size_t off, uint16_t dport)
{
    off = put_ipv4(b, off, 20 + 8 + TRANSPORT_LEN + 4);
    off = put_udp(b, off, dport, 8 + TRANSPORT_LEN + 4);
    off = put_transport(b, off, 1, 0x80010000u, 1);
    return put_crcs(b, off, false);
}

static enum ib_frame_result parse(const struct ib_parse_opts *o, uint32_t lt, const uint8_t *f,
                                  size_t caplen, size_t wirelen, struct ib_packet *p)
{
    uint8_t *b = ts_exact_copy(f, caplen);
    enum ib_frame_result r = ib_parse_frame(o, lt, b, caplen, wirelen, p);
    free(b);
    return r;
}

static void assert_no_diags(const struct ib_packet *p)
{
    if (p->diags.count) {
        ts_diag_dump(&p->diags);
        fail_msg("expected no diagnostics, got %u", p->diags.count);
    }
}

static void assert_diag(const struct ib_packet *p, enum ib_diag_id id, uint32_t off, uint16_t len)
{
    const struct ib_diag *d = ts_diag_find(&p->diags, id);
    if (!d) {
        ts_diag_dump(&p->diags);
        fail_msg("diagnostic %s not raised", ib_diag_info(id)->name);
    }
    if (d->offset != off || d->length != len)
        fail_msg("%s at offset %u length %u, expected offset %u length %u", ib_diag_info(id)->name,
                 d->offset, d->length, off, len);
}

/* The GMP decoded with its BTH at frame offset bth. */
static void check_gmp(const struct ib_packet *p, uint32_t bth)
{
    assert_true(ib_packet_has(p, IB_HAS_BTH | IB_HAS_DETH | IB_HAS_MAD | IB_HAS_CM));
    assert_int_equal(p->off.bth, bth);
    assert_int_equal(p->off.deth, bth + 12);
    assert_int_equal(p->off.payload, bth + 20);
    assert_int_equal(p->off.mad, bth + 20);
    assert_int_equal(p->payload_len, 256);
    assert_int_equal(p->bth.opcode, 0x64);
    assert_int_equal(p->bth.pkey, 0xFFFF);
    assert_int_equal(p->bth.destqp, 1);
    assert_int_equal(p->bth.psn, 0x00BEEF);
    assert_int_equal(p->deth.qkey, 0x80010000u);
    assert_int_equal(p->deth.srcqp, 1);
    assert_int_equal(p->mad.base_version, 1);
    assert_int_equal(p->mad.mgmt_class, 0x07);
    assert_true(p->mad.tid == TID);
    assert_int_equal(p->mad.attr_id, 0x0010);
    assert_int_equal(p->cm.attr, 0x0010);
    assert_int_equal(p->cm.local_comm_id, COMM_ID);
    assert_int_equal(p->cm.u.req.local_qpn, 0x000ABC);
    assert_int_equal(p->cm.u.req.primary.flow_label, 0xABCDE);
    assert_int_equal(p->cm.u.req.primary.packet_rate, 0x2A);
    assert_true(p->cm.has_ipcm);
    assert_int_equal(p->cm.ipcm.src_port, 50000);
    assert_int_equal(p->cm.sid.dport, 12345);
}

static void check_native(const struct ib_packet *p, uint32_t lrh)
{
    assert_int_equal(p->encap, IB_ENCAP_NATIVE);
    assert_int_equal(p->off.ib, lrh);
    assert_int_equal(p->off.lrh, lrh);
    assert_true(ib_packet_has(p, IB_HAS_LRH));
    assert_false(ib_packet_has(p, IB_HAS_GRH));
    assert_int_equal(p->lrh.vl, 0xA);
    assert_int_equal(p->lrh.sl, 5);
    assert_int_equal(p->lrh.lnh, 2);
    assert_int_equal(p->lrh.dlid, 0x1234);
    assert_int_equal(p->lrh.pktlen, 72);
    assert_int_equal(p->lrh.slid, 0x0BCD);
    assert_int_equal(p->src.lid, 0x0BCD);
    assert_int_equal(p->dst.lid, 0x1234);
    assert_false(p->src.has_gid);
    check_gmp(p, lrh + 8);
}

/* ---- native ---- */

static void test_native_247_full_gmp(void **state)
{
    (void)state;
    uint8_t f[NATIVE_LEN];
    assert_int_equal(put_native(f, 0), 290);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_INFINIBAND, f, 290, 290, &p), IB_FRAME_IB);
    check_native(&p, 0);
    assert_true(ib_packet_has(&p, IB_HAS_ICRC | IB_HAS_VCRC));
    assert_int_equal(p.ib_len, 288);
    assert_int_equal(p.linktype, 247);
    assert_int_equal(p.caplen, 290);
    assert_int_equal(p.wirelen, 290);
    assert_no_diags(&p);
}

static void test_native_147(void **state)
{
    (void)state;
    uint8_t f[NATIVE_LEN];
    put_native(f, 0);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_USER0, f, 290, 290, &p), IB_FRAME_IB);
    check_native(&p, 0);
    assert_true(ib_packet_has(&p, IB_HAS_ICRC | IB_HAS_VCRC));
    assert_no_diags(&p);
}

static void test_native_icrc_only(void **state)
{
    (void)state;
    uint8_t f[NATIVE_LEN];
    put_native(f, 0);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_INFINIBAND, f, 288, 288, &p), IB_FRAME_IB);
    check_native(&p, 0);
    assert_true(ib_packet_has(&p, IB_HAS_ICRC));
    assert_false(ib_packet_has(&p, IB_HAS_VCRC));
    assert_int_equal(p.ib_len, 288);
    assert_no_diags(&p);
}

/* Captured without either CRC: 284 bytes, PktLen still says 288. */
static void test_native_no_crcs(void **state)
{
    (void)state;
    uint8_t f[NATIVE_LEN];
    put_native(f, 0);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_INFINIBAND, f, 284, 284, &p), IB_FRAME_IB);
    assert_true(ib_packet_has(&p, IB_HAS_BTH | IB_HAS_DETH | IB_HAS_MAD | IB_HAS_CM));
    assert_false(ib_packet_has(&p, IB_HAS_ICRC));
    assert_false(ib_packet_has(&p, IB_HAS_VCRC));
    assert_true(p.mad.tid == TID);
    assert_int_equal(p.off.mad, 28);
    assert_no_diags(&p);
}

/* Regression (was a bug in core/parse/packet.c, fixed in 0761bb0): when a frame
 * holds the packet without its CRCs (avail == PktLen*4 - 4), the payload must
 * end where the frame does: 288 - 8 - 12 - 8 - 4 = 256 bytes (IBA Vol. 1
 * chapter 7: PktLen counts LRH through ICRC), not 260. */
static void test_native_no_crcs_payload_len(void **state)
{
    (void)state;
    uint8_t f[NATIVE_LEN];
    put_native(f, 0);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_INFINIBAND, f, 284, 284, &p), IB_FRAME_IB);
    assert_int_equal(p.payload_len, 256);
}

/* Fewer bytes than PktLen, and the capture says that is all there was. */
static void test_native_pktlen_mismatch(void **state)
{
    (void)state;
    uint8_t f[NATIVE_LEN];
    put_native(f, 0);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_INFINIBAND, f, 200, 200, &p), IB_FRAME_IB);
    assert_diag(&p, IB_DIAG_PKTLEN_MISMATCH, 4, 2);
    assert_false(ib_packet_has(&p, IB_HAS_ICRC));
    assert_false(ib_diag_has(&p.diags, IB_DIAG_SNAPLEN));
    /* MAD cut at 200 - 28 = 172 bytes */
    assert_true(ib_packet_has(&p, IB_HAS_MAD));
    assert_diag(&p, IB_DIAG_TRUNC_MAD, 28, 172);
}

/* Same bytes, but the capture's snaplen cut them: a note, not a mismatch. */
static void test_native_snaplen(void **state)
{
    (void)state;
    uint8_t f[NATIVE_LEN];
    put_native(f, 0);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_INFINIBAND, f, 200, 290, &p), IB_FRAME_IB);
    assert_diag(&p, IB_DIAG_SNAPLEN, 200, 0);
    assert_false(ib_diag_has(&p.diags, IB_DIAG_PKTLEN_MISMATCH));
    assert_int_equal(ib_diag_info(IB_DIAG_SNAPLEN)->severity, IB_SEV_NOTE);
    assert_true(ib_packet_has(&p, IB_HAS_MAD));
}

/* LNH 3: LRH + GRH + GMP; PktLen = (8+40+276+4)/4 = 82; PayLen must be 328-48 = 280. */
static size_t put_native_grh(uint8_t *f, uint16_t paylen)
{
    struct ts_lrh l = { .vl = 0, .sl = 0, .lnh = 3, .dlid = 0x1234, .pktlen = 82, .slid = 0x0BCD };
    struct ts_grh g = { .ipver = 6,
                        .tclass = 0x20,
                        .flowlabel = 0x54321,
                        .paylen = paylen,
                        .nxthdr = 0x1B,
                        .hoplmt = 0xFF };
    ts_gid(g.sgid, "fe80000000000000 0002c90300000001");
    ts_gid(g.dgid, "fe80000000000000 0002c90300000002");
    size_t at = ts_put_lrh(f, 0, &l);
    at = ts_put_grh(f, at, &g);
    at = put_transport(f, at, 1, 0x80010000u, 1);
    return put_crcs(f, at, true);
}

static void test_native_grh(void **state)
{
    (void)state;
    uint8_t f[330];
    assert_int_equal(put_native_grh(f, 280), 330);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_INFINIBAND, f, 330, 330, &p), IB_FRAME_IB);
    assert_true(ib_packet_has(&p, IB_HAS_LRH | IB_HAS_GRH | IB_HAS_ICRC | IB_HAS_VCRC));
    assert_int_equal(p.off.grh, 8);
    assert_int_equal(p.grh.paylen, 280);
    assert_int_equal(p.grh.flowlabel, 0x54321);
    check_gmp(&p, 48);
    assert_true(p.src.has_gid);
    assert_int_equal(p.src.gid[15], 1);
    assert_int_equal(p.dst.gid[15], 2);
    assert_int_equal(p.src.lid, 0x0BCD);
    assert_no_diags(&p);
}

static void test_native_grh_paylen_mismatch(void **state)
{
    (void)state;
    uint8_t f[330];
    put_native_grh(f, 276);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_INFINIBAND, f, 330, 330, &p), IB_FRAME_IB);
    assert_diag(&p, IB_DIAG_PAYLEN_MISMATCH, 8 + 4, 2);
    assert_int_equal(p.diags.count, 1);
}

/* ---- ERF ---- */

/* ERF header: 8 timestamp (LE), type, flags, rlen (BE, incl. header), lctr, wlen (BE). */
static size_t put_erf(uint8_t *f, uint8_t type, uint16_t rlen, uint16_t wlen)
{
    ts_hex("0102030405060708", f, 8);
    f[8] = type;
    f[9] = 0x04;
    ts_put16(f, 10, rlen);
    ts_put16(f, 12, 0);
    ts_put16(f, 14, wlen);
    return 16;
}

static void test_erf_type21(void **state)
{
    (void)state;
    uint8_t f[16 + NATIVE_LEN];
    put_erf(f, 21, 16 + 290, 290);
    put_native(f, 16);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_ERF, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    check_native(&p, 16);
    assert_true(ib_packet_has(&p, IB_HAS_ICRC | IB_HAS_VCRC));
    assert_no_diags(&p);
}

/* Type byte bit 7: one 8-byte extension header follows (its own bit 7 clear). */
static void test_erf_extension_header(void **state)
{
    (void)state;
    uint8_t f[24 + NATIVE_LEN];
    put_erf(f, 0x80 | 21, 24 + 290, 290);
    ts_hex("05 00 00 00 00 00 00 2a", f + 16, 8);
    put_native(f, 24);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_ERF, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    check_native(&p, 24);
    assert_no_diags(&p);
}

/* Two extension headers: the first has bit 7 set. */
static void test_erf_two_extension_headers(void **state)
{
    (void)state;
    uint8_t f[32 + NATIVE_LEN];
    put_erf(f, 0x80 | 21, 32 + 290, 290);
    ts_hex("85 00 00 00 00 00 00 01", f + 16, 8);
    ts_hex("05 00 00 00 00 00 00 02", f + 24, 8);
    put_native(f, 32);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_ERF, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    check_native(&p, 32);
    assert_no_diags(&p);
}

/* Record padded by 6 bytes: rlen covers them, wlen says 290. */
static void test_erf_padding(void **state)
{
    (void)state;
    uint8_t f[16 + NATIVE_LEN + 6];
    put_erf(f, 21, sizeof f, 290);
    put_native(f, 16);
    memset(f + 16 + 290, 0, 6);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_ERF, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    check_native(&p, 16);
    assert_true(ib_packet_has(&p, IB_HAS_ICRC | IB_HAS_VCRC));
    assert_no_diags(&p);
}

static void test_erf_other_types(void **state)
{
    (void)state;
    uint8_t f[16 + NATIVE_LEN];
    put_erf(f, 25, 16 + 290, 290);
    put_native(f, 16);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_ERF, f, sizeof f, sizeof f, &p), IB_FRAME_LINK_RECORD);
    f[8] = 2; /* Ethernet */
    assert_int_equal(parse(NULL, IB_DLT_ERF, f, sizeof f, sizeof f, &p), IB_FRAME_NOT_IB);
    assert_int_equal(p.present, 0);
    assert_int_equal(p.encap, IB_ENCAP_NONE);
    f[8] = 0x80 | 25; /* link record behind an extension header */
    f[16] = 0x00;
    assert_int_equal(parse(NULL, IB_DLT_ERF, f, sizeof f, sizeof f, &p), IB_FRAME_LINK_RECORD);
}

/* ---- Ethernet: RoCEv1, RoCEv2 ---- */

static void test_rocev1(void **state)
{
    (void)state;
    uint8_t f[14 + 40 + TRANSPORT_LEN + 4];
    size_t at = put_eth(f, 0x8915);
    struct ts_grh g = { .ipver = 6,
                        .tclass = 0x00,
                        .flowlabel = 0x00ABC,
                        .paylen = TRANSPORT_LEN + 4,
                        .nxthdr = 0x1B,
                        .hoplmt = 1 };
    ts_gid(g.sgid, "fe80000000000000 020000fffe000001");
    ts_gid(g.dgid, "fe80000000000000 020000fffe000002");
    at = ts_put_grh(f, at, &g);
    at = put_transport(f, at, 1, 0x80010000u, 1);
    at = put_crcs(f, at, false);
    assert_int_equal(at, sizeof f);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_EN10MB, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    assert_int_equal(p.encap, IB_ENCAP_ROCEV1);
    assert_int_equal(p.off.ib, 14);
    assert_int_equal(p.off.grh, 14);
    assert_true(ib_packet_has(&p, IB_HAS_GRH | IB_HAS_ICRC));
    assert_false(ib_packet_has(&p, IB_HAS_LRH));
    assert_int_equal(p.ib_len, 40 + 280);
    check_gmp(&p, 54);
    assert_true(p.src.has_gid && p.dst.has_gid);
    assert_memory_equal(p.src.gid, g.sgid, 16);
    assert_memory_equal(p.dst.gid, g.dgid, 16);
    assert_no_diags(&p);
}

static void test_rocev1_paylen_too_long(void **state)
{
    (void)state;
    uint8_t f[14 + 40 + TRANSPORT_LEN + 4];
    size_t at = put_eth(f, 0x8915);
    struct ts_grh g = {
        .ipver = 6, .paylen = TRANSPORT_LEN + 4 + 100, .nxthdr = 0x1B, .hoplmt = 1
    };
    ts_gid(g.sgid, "fe80000000000000 020000fffe000001");
    ts_gid(g.dgid, "fe80000000000000 020000fffe000002");
    at = ts_put_grh(f, at, &g);
    at = put_transport(f, at, 1, 0x80010000u, 1);
    put_crcs(f, at, false);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_EN10MB, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    assert_diag(&p, IB_DIAG_PAYLEN_MISMATCH, 14 + 4, 2);
}

static void check_rocev2_v4(const struct ib_packet *p, uint32_t ip)
{
    static const uint8_t src[16] = {
        [10] = 0xFF, [11] = 0xFF, [12] = 192, [13] = 168, [14] = 1, [15] = 10
    };
    static const uint8_t dst[16] = {
        [10] = 0xFF, [11] = 0xFF, [12] = 10, [13] = 0, [14] = 0, [15] = 20
    };
    assert_int_equal(p->encap, IB_ENCAP_ROCEV2);
    assert_int_equal(p->ip_version, 4);
    assert_int_equal(p->udp_sport, 0xC0DE);
    assert_int_equal(p->udp_dport, 4791);
    assert_int_equal(p->off.ib, ip + 28);
    assert_false(ib_packet_has(p, IB_HAS_LRH));
    assert_false(ib_packet_has(p, IB_HAS_GRH));
    assert_true(ib_packet_has(p, IB_HAS_ICRC));
    assert_int_equal(p->ib_len, 280);
    assert_true(p->src.has_gid && p->dst.has_gid);
    assert_memory_equal(p->src.gid, src, 16);
    assert_memory_equal(p->dst.gid, dst, 16);
    assert_int_equal(p->src.lid, 0);
    check_gmp(p, ip + 28);
}

static void test_rocev2_ipv4(void **state)
{
    (void)state;
    uint8_t f[14 + 20 + 8 + 280];
    size_t at = put_eth(f, 0x0800);
    assert_int_equal(put_rocev2_v4(f, at, 4791), sizeof f);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_EN10MB, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    check_rocev2_v4(&p, 14);
    assert_int_equal(p.vlan_count, 0);
    assert_no_diags(&p);
}

static void test_rocev2_ipv6(void **state)
{
    (void)state;
    uint8_t f[14 + 40 + 8 + 280], gid[16];
    size_t at = put_eth(f, 0x86DD);
    at = put_ipv6(f, at, 8 + 280);
    at = put_udp(f, at, 4791, 8 + 280);
    at = put_transport(f, at, 1, 0x80010000u, 1);
    assert_int_equal(put_crcs(f, at, false), sizeof f);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_EN10MB, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    assert_int_equal(p.encap, IB_ENCAP_ROCEV2);
    assert_int_equal(p.ip_version, 6);
    assert_int_equal(p.off.ib, 62);
    assert_true(ib_packet_has(&p, IB_HAS_ICRC));
    ts_gid(gid, "20010db8000000000000000000000010");
    assert_memory_equal(p.src.gid, gid, 16);
    ts_gid(gid, "20010db8000000000000000000000020");
    assert_memory_equal(p.dst.gid, gid, 16);
    check_gmp(&p, 62);
    assert_no_diags(&p);
}

/* One 802.1Q tag, TCI 0x2064 (PCP 1, VID 100). */
static void test_rocev2_one_vlan(void **state)
{
    (void)state;
    uint8_t f[14 + 4 + 20 + 8 + 280];
    put_eth(f, 0x8100);
    ts_put16(f, 14, 0x2064);
    ts_put16(f, 16, 0x0800);
    assert_int_equal(put_rocev2_v4(f, 18, 4791), sizeof f);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_EN10MB, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    assert_int_equal(p.vlan_count, 1);
    assert_int_equal(p.vlan_id[0], 100);
    check_rocev2_v4(&p, 18);
    assert_no_diags(&p);
}

/* 802.1ad outer tag VID 200 (TCI 0xE0C8: PCP 7), then 802.1Q VID 100. */
static void test_rocev2_two_vlans(void **state)
{
    (void)state;
    uint8_t f[14 + 8 + 20 + 8 + 280];
    put_eth(f, 0x88A8);
    ts_put16(f, 14, 0xE0C8);
    ts_put16(f, 16, 0x8100);
    ts_put16(f, 18, 0x0064);
    ts_put16(f, 20, 0x0800);
    assert_int_equal(put_rocev2_v4(f, 22, 4791), sizeof f);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_EN10MB, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    assert_int_equal(p.vlan_count, 2);
    assert_int_equal(p.vlan_id[0], 200);
    assert_int_equal(p.vlan_id[1], 100);
    check_rocev2_v4(&p, 22);
    assert_no_diags(&p);
}

static void test_udp_other_port_not_ib(void **state)
{
    (void)state;
    uint8_t f[14 + 20 + 8 + 280];
    put_rocev2_v4(f, put_eth(f, 0x0800), 53);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_EN10MB, f, sizeof f, sizeof f, &p), IB_FRAME_NOT_IB);
    assert_int_equal(p.present, 0);
    assert_int_equal(p.encap, IB_ENCAP_NONE);
    assert_int_equal(p.diags.count, 0);
    /* also a plain non-IP ethertype */
    put_eth(f, 0x0806);
    assert_int_equal(parse(NULL, IB_DLT_EN10MB, f, sizeof f, sizeof f, &p), IB_FRAME_NOT_IB);
}

static void test_rocev2_custom_port(void **state)
{
    (void)state;
    uint8_t f[14 + 20 + 8 + 280];
    put_rocev2_v4(f, put_eth(f, 0x0800), 1234);
    struct ib_parse_opts o;
    ib_parse_opts_init(&o);
    assert_int_equal(o.rocev2_port, 4791);
    assert_null(o.is_mad_qp);
    struct ib_packet p;
    assert_int_equal(parse(&o, IB_DLT_EN10MB, f, sizeof f, sizeof f, &p), IB_FRAME_NOT_IB);
    o.rocev2_port = 1234;
    assert_int_equal(parse(&o, IB_DLT_EN10MB, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    assert_int_equal(p.udp_dport, 1234);
    check_gmp(&p, 42);
    /* and 4791 is then not RoCE */
    put_rocev2_v4(f, 14, 4791);
    assert_int_equal(parse(&o, IB_DLT_EN10MB, f, sizeof f, sizeof f, &p), IB_FRAME_NOT_IB);
}

/* UDP length 300 > IP payload 288 (the IP total matches the frame). */
static void test_rocev2_udp_len_mismatch(void **state)
{
    (void)state;
    uint8_t f[14 + 20 + 8 + 280];
    put_rocev2_v4(f, put_eth(f, 0x0800), 4791);
    ts_put16(f, 14 + 20 + 4, 300);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_EN10MB, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    assert_diag(&p, IB_DIAG_UDP_LEN_MISMATCH, 38, 2);
    assert_false(ib_diag_has(&p.diags, IB_DIAG_IP_LEN_MISMATCH));
    assert_true(ib_packet_has(&p, IB_HAS_MAD));
}

/* IP total 400 and UDP 380: both larger than the 322-byte frame holds. */
static void test_rocev2_ip_len_mismatch(void **state)
{
    (void)state;
    uint8_t f[14 + 20 + 8 + 280];
    put_rocev2_v4(f, put_eth(f, 0x0800), 4791);
    ts_put16(f, 14 + 2, 400);
    ts_put16(f, 14 + 20 + 4, 380);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_EN10MB, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    assert_diag(&p, IB_DIAG_IP_LEN_MISMATCH, 16, 2);
    assert_true(ib_packet_has(&p, IB_HAS_MAD));
    /* the same frame cut by the snaplen is only a note */
    assert_int_equal(parse(NULL, IB_DLT_EN10MB, f, sizeof f, 14 + 400, &p), IB_FRAME_IB);
    assert_true(ib_diag_has(&p.diags, IB_DIAG_SNAPLEN));
    assert_false(ib_diag_has(&p.diags, IB_DIAG_IP_LEN_MISMATCH));
    assert_false(ib_diag_has(&p.diags, IB_DIAG_UDP_LEN_MISMATCH));
}

static void test_rocev2_ipv6_len_mismatch(void **state)
{
    (void)state;
    uint8_t f[14 + 40 + 8 + 280];
    size_t at = put_eth(f, 0x86DD);
    at = put_ipv6(f, at, 8 + 280 + 64);
    at = put_udp(f, at, 4791, 8 + 280 + 64);
    at = put_transport(f, at, 1, 0x80010000u, 1);
    put_crcs(f, at, false);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_EN10MB, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    assert_diag(&p, IB_DIAG_IP_LEN_MISMATCH, 14 + 4, 2);
}

static void test_ipv4_bad_ihl(void **state)
{
    (void)state;
    uint8_t f[14 + 20 + 8 + 280];
    put_rocev2_v4(f, put_eth(f, 0x0800), 4791);
    f[14] = 0x44; /* IHL 4 = 16 bytes */
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_EN10MB, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    assert_diag(&p, IB_DIAG_IPV4_BAD_IHL, 14, 1);
    assert_int_equal(p.encap, IB_ENCAP_ROCEV2);
}

/* IPv4 with 4 bytes of options (IHL 6): UDP at 14 + 24, BTH at 46. */
static void test_rocev2_ipv4_options(void **state)
{
    (void)state;
    uint8_t f[14 + 24 + 8 + 280];
    put_eth(f, 0x0800);
    put_ipv4(f, 14, 24 + 8 + 280);
    f[14] = 0x46;
    ts_put32(f, 34, 0x01010100u); /* NOP NOP NOP EOL */
    size_t at = put_udp(f, 38, 4791, 8 + 280);
    at = put_transport(f, at, 1, 0x80010000u, 1);
    assert_int_equal(put_crcs(f, at, false), sizeof f);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_EN10MB, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    assert_int_equal(p.off.ib, 46);
    check_gmp(&p, 46);
    assert_no_diags(&p);
}

/* IPv6 with an 8-byte hop-by-hop options header (NextHdr 0) before UDP. */
static void test_rocev2_ipv6_hop_by_hop(void **state)
{
    (void)state;
    uint8_t f[14 + 40 + 8 + 8 + 280];
    size_t at = put_eth(f, 0x86DD);
    at = put_ipv6(f, at, 8 + 8 + 280);
    f[14 + 6] = 0;                             /* hop-by-hop */
    ts_hex("11 00 01 04 00000000", f + at, 8); /* next UDP, len (0+1)*8, PadN */
    at = put_udp(f, at + 8, 4791, 8 + 280);
    at = put_transport(f, at, 1, 0x80010000u, 1);
    assert_int_equal(put_crcs(f, at, false), sizeof f);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_EN10MB, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    assert_int_equal(p.off.ib, 70);
    check_gmp(&p, 70);
    assert_no_diags(&p);
}

/* A later IPv4 fragment carries no UDP header: not RoCE whatever its bytes. */
static void test_ipv4_fragment_not_ib(void **state)
{
    (void)state;
    uint8_t f[14 + 20 + 8 + 280];
    put_rocev2_v4(f, put_eth(f, 0x0800), 4791);
    ts_put16(f, 14 + 6, 0x00B9); /* fragment offset 185 * 8 */
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_EN10MB, f, sizeof f, sizeof f, &p), IB_FRAME_NOT_IB);
    /* a runt Ethernet frame */
    assert_int_equal(parse(NULL, IB_DLT_EN10MB, f, 13, 13, &p), IB_FRAME_NOT_IB);
}

/* ---- Linux cooked ---- */

/* A RoCE frame inside another (VXLAN: outer Ethernet, IPv4, UDP 4789, VXLAN
 * header, 50 bytes), parsed from its Ethernet header as the plugin does for
 * a tunnel: the same packet as the inner frame alone, offsets moved by 50. */
static void test_ethernet_at(void **state)
{
    (void)state;
    enum { OUTER = 50 };
    uint8_t f[OUTER + 14 + 20 + 8 + 280];
    size_t at = put_eth(f, 0x0800);
    at = put_ipv4(f, at, (uint16_t)(sizeof f - 14));
    at = put_udp(f, at, 4789, (uint16_t)(sizeof f - 34));
    ts_hex("0800000000002a00", f + at, 8);
    assert_int_equal(at + 8, OUTER);
    put_eth(f + OUTER, 0x0800);
    assert_int_equal(put_rocev2_v4(f, OUTER + 14, 4791), sizeof f);

    struct ib_packet inner, p;
    assert_int_equal(
        parse(NULL, IB_DLT_EN10MB, f + OUTER, sizeof f - OUTER, sizeof f - OUTER, &inner),
        IB_FRAME_IB);
    uint8_t *b = ts_exact_copy(f, sizeof f);
    assert_int_equal(ib_parse_ethernet_at(NULL, b, sizeof f, sizeof f, OUTER, &p), IB_FRAME_IB);
    check_rocev2_v4(&p, OUTER + 14);
    assert_int_equal(p.off.ib, inner.off.ib + OUTER);
    assert_int_equal(p.crc.icrc, inner.crc.icrc);
    assert_int_equal(p.crc.icrc_computed, inner.crc.icrc_computed);
    assert_no_diags(&p);
    /* The outer frame from its own start is not InfiniBand (UDP 4789). */
    assert_int_equal(ib_parse_ethernet_at(NULL, b, sizeof f, sizeof f, 0, &p), IB_FRAME_NOT_IB);
    /* An Ethernet header that does not fit, or starts past the end. */
    assert_int_equal(ib_parse_ethernet_at(NULL, b, sizeof f, sizeof f, sizeof f - 13, &p),
                     IB_FRAME_NOT_IB);
    assert_int_equal(ib_parse_ethernet_at(NULL, b, sizeof f, sizeof f, sizeof f + 7, &p),
                     IB_FRAME_NOT_IB);
    assert_int_equal(ib_parse_ethernet_at(NULL, b, sizeof f, sizeof f, SIZE_MAX, &p),
                     IB_FRAME_NOT_IB);
    free(b);
}

static void test_sll(void **state)
{
    (void)state;
    uint8_t f[16 + 20 + 8 + 280];
    ts_hex("0000 0001 0006 0200000000010000 0800", f, 16);
    assert_int_equal(put_rocev2_v4(f, 16, 4791), sizeof f);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_LINUX_SLL, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    check_rocev2_v4(&p, 16);
    assert_no_diags(&p);
}

static void test_sll2(void **state)
{
    (void)state;
    uint8_t f[20 + 20 + 8 + 280];
    ts_hex("0800 0000 00000003 0001 00 06 0200000000010000", f, 20);
    assert_int_equal(put_rocev2_v4(f, 20, 4791), sizeof f);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_LINUX_SLL2, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    check_rocev2_v4(&p, 20);
    assert_no_diags(&p);
}

static void test_sll2_rocev1(void **state)
{
    (void)state;
    uint8_t f[20 + 40 + TRANSPORT_LEN + 4];
    ts_hex("8915 0000 00000003 0001 00 06 0200000000010000", f, 20);
    struct ts_grh g = { .ipver = 6, .paylen = TRANSPORT_LEN + 4, .nxthdr = 0x1B, .hoplmt = 1 };
    ts_gid(g.sgid, "fe80000000000000 020000fffe000001");
    ts_gid(g.dgid, "fe80000000000000 020000fffe000002");
    size_t at = ts_put_grh(f, 20, &g);
    at = put_transport(f, at, 1, 0x80010000u, 1);
    put_crcs(f, at, false);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_LINUX_SLL2, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    assert_int_equal(p.encap, IB_ENCAP_ROCEV1);
    assert_int_equal(p.off.grh, 20);
    check_gmp(&p, 60);
    assert_no_diags(&p);
}

static void test_bad_linktype(void **state)
{
    (void)state;
    uint8_t f[NATIVE_LEN];
    put_native(f, 0);
    struct ib_packet p;
    assert_int_equal(parse(NULL, 105, f, sizeof f, sizeof f, &p), IB_FRAME_BAD_LINKTYPE);
    assert_int_equal(parse(NULL, 0, f, sizeof f, sizeof f, &p), IB_FRAME_BAD_LINKTYPE);
}

/* ---- MAD and class data problems ---- */

/* A PerfMgt Get on QP1 whose MAD is only 100 bytes; PktLen agrees
 * ((8+12+8+100+4)/4 = 33), so only the MAD is short. */
static void test_trunc_mad(void **state)
{
    (void)state;
    uint8_t f[8 + 20 + 100 + 4 + 2];
    struct ts_lrh l = { .vl = 0, .lnh = 2, .dlid = 0x1234, .pktlen = 33, .slid = 0x0BCD };
    size_t at = ts_put_lrh(f, 0, &l);
    struct ts_bth t = { .opcode = 0x64, .pkey = 0xFFFF, .destqp = 1 };
    at = ts_put_bth(f, at, &t);
    at = ts_put_deth(f, at, 0x80010000u, 1);
    memset(f + at, 0, 100);
    struct ts_mad_hdr m = { .base_version = 1,
                            .mgmt_class = 0x04,
                            .class_version = 1,
                            .method = 0x01,
                            .tid = TID,
                            .attr_id = 0x0012 };
    ts_put_mad_hdr(f, at, &m);
    put_crcs(f, at + 100, true);
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_INFINIBAND, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    assert_true(ib_packet_has(&p, IB_HAS_MAD | IB_HAS_ICRC | IB_HAS_VCRC));
    assert_int_equal(p.mad.attr_id, 0x0012);
    assert_diag(&p, IB_DIAG_TRUNC_MAD, 28, 100);
    assert_false(ib_diag_has(&p.diags, IB_DIAG_PKTLEN_MISMATCH));
    assert_int_equal(p.diags.count, 1);
}

/* A CM REQ with an IP CM Service ID whose MAD ends at 180 bytes: the fixed
 * part (164) is there, the 36-byte IP CM header at 164 is not. */
static void test_trunc_class_data_ipcm(void **state)
{
    (void)state;
    uint8_t f[8 + 20 + 256 + 6];
    struct ts_lrh l = {
        .vl = 0, .lnh = 2, .dlid = 0x1234, .pktlen = (8 + 20 + 180 + 4) / 4, .slid = 0x0BCD
    };
    size_t at = ts_put_lrh(f, 0, &l);
    at = put_transport(f, at, 1, 0x80010000u, 1);
    size_t len = 8 + 20 + 180;
    put_crcs(f, len, true);
    len += 6;
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_INFINIBAND, f, len, len, &p), IB_FRAME_IB);
    assert_true(ib_packet_has(&p, IB_HAS_MAD | IB_HAS_CM));
    assert_false(p.cm.has_ipcm);
    assert_true(p.cm.sid.ip_cm);
    assert_diag(&p, IB_DIAG_TRUNC_CLASS_DATA, 28 + 164, 16);
    assert_diag(&p, IB_DIAG_TRUNC_MAD, 28, 180);
    assert_false(ib_diag_has(&p.diags, IB_DIAG_PKTLEN_MISMATCH));
}

/* ---- MAD on a redirected QP ---- */

struct qp_ctx {
    int calls;
    uint32_t qp;
    uint16_t lid;
    bool answer;
};

static bool is_mad_qp(void *ctx, const struct ib_endpoint *dst, uint32_t qp)
{
    struct qp_ctx *c = ctx;
    c->calls++;
    c->qp = qp;
    c->lid = dst->lid;
    return c->answer && qp == 0x000123;
}

static void test_mad_on_redirected_qp(void **state)
{
    (void)state;
    uint8_t f[NATIVE_LEN];
    struct ts_lrh l = { .vl = 0, .lnh = 2, .dlid = 0x1234, .pktlen = PKTLEN_WORDS, .slid = 0x0BCD };
    size_t at = ts_put_lrh(f, 0, &l);
    at = put_transport(f, at, 0x000123, 0x12345678u, 0x000456);
    put_crcs(f, at, true);
    struct ib_packet p;

    /* no callback: QP 0x123 is not management traffic */
    assert_int_equal(parse(NULL, IB_DLT_INFINIBAND, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    assert_true(ib_packet_has(&p, IB_HAS_BTH | IB_HAS_DETH));
    assert_false(ib_packet_has(&p, IB_HAS_MAD));
    assert_int_equal(p.deth.srcqp, 0x000456);
    assert_int_equal(p.payload_len, 256);

    struct ib_parse_opts o;
    ib_parse_opts_init(&o);
    struct qp_ctx c = { .answer = false };
    o.is_mad_qp = is_mad_qp;
    o.ctx = &c;
    assert_int_equal(parse(&o, IB_DLT_INFINIBAND, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    assert_false(ib_packet_has(&p, IB_HAS_MAD));
    assert_int_equal(c.calls, 1);

    c = (struct qp_ctx){ .answer = true };
    assert_int_equal(parse(&o, IB_DLT_INFINIBAND, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    assert_int_equal(c.calls, 1);
    assert_int_equal(c.qp, 0x000123);
    assert_int_equal(c.lid, 0x1234);
    assert_true(ib_packet_has(&p, IB_HAS_MAD | IB_HAS_CM));
    assert_true(p.mad.tid == TID);
    assert_int_equal(p.off.mad, 28);
    assert_no_diags(&p);
}

/* Opcode 0x46 (RD range; vendor DC in Wireshark) on QP1: BTH only, no MAD. */
static void test_vendor_dc_no_mad(void **state)
{
    (void)state;
    uint8_t f[NATIVE_LEN];
    struct ts_lrh l = { .vl = 0, .lnh = 2, .dlid = 0x1234, .pktlen = PKTLEN_WORDS, .slid = 0x0BCD };
    size_t at = ts_put_lrh(f, 0, &l);
    at = put_transport(f, at, 1, 0x80010000u, 1);
    put_crcs(f, at, true);
    f[8] = 0x46;
    struct ib_packet p;
    assert_int_equal(parse(NULL, IB_DLT_INFINIBAND, f, sizeof f, sizeof f, &p), IB_FRAME_IB);
    assert_true(ib_packet_has(&p, IB_HAS_LRH | IB_HAS_BTH));
    assert_int_equal(p.bth.opcode, 0x46);
    assert_false(ib_packet_has(&p, IB_HAS_DETH));
    assert_false(ib_packet_has(&p, IB_HAS_MAD));
    assert_false(ib_packet_has(&p, IB_HAS_CM));
}

/* headers_only (a reader thread's CRC pass): no MAD is read, and the CRC
 * verdicts are the full parse's, mismatched and then verified. */
static void test_headers_only_crcs(void **state)
{
    (void)state;
    uint8_t f[NATIVE_LEN];
    put_native(f, 0);
    struct ib_parse_opts o;
    ib_parse_opts_init(&o);
    o.headers_only = true;
    struct ib_packet full, heads;
    for (int round = 0; round < 2; round++) {
        assert_int_equal(parse(NULL, IB_DLT_INFINIBAND, f, sizeof f, sizeof f, &full), IB_FRAME_IB);
        assert_int_equal(parse(&o, IB_DLT_INFINIBAND, f, sizeof f, sizeof f, &heads), IB_FRAME_IB);
        assert_true(ib_packet_has(&full, IB_HAS_MAD | IB_HAS_CM));
        assert_true(ib_packet_has(&heads, IB_HAS_LRH | IB_HAS_BTH | IB_HAS_DETH));
        assert_false(ib_packet_has(&heads, IB_HAS_MAD));
        assert_memory_equal(&full.crc, &heads.crc, sizeof full.crc);
        enum ib_crc_status want = round == 0 ? IB_CRC_MISMATCH : IB_CRC_VERIFIED;
        assert_int_equal(heads.crc.icrc, want);
        assert_int_equal(heads.crc.vcrc, want);
        /* the computed CRCs into the frame: both verify the second time */
        size_t icrc_at = sizeof f - 6;
        for (int i = 0; i < 4; i++)
            f[icrc_at + (size_t)i] = (uint8_t)(heads.crc.icrc_computed >> (8 * i));
        parse(NULL, IB_DLT_INFINIBAND, f, sizeof f, sizeof f, &full);
        f[sizeof f - 2] = (uint8_t)full.crc.vcrc_computed;
        f[sizeof f - 1] = (uint8_t)(full.crc.vcrc_computed >> 8);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_native_247_full_gmp),
        cmocka_unit_test(test_native_147),
        cmocka_unit_test(test_native_icrc_only),
        cmocka_unit_test(test_headers_only_crcs),
        cmocka_unit_test(test_native_no_crcs),
        cmocka_unit_test(test_native_no_crcs_payload_len),
        cmocka_unit_test(test_native_pktlen_mismatch),
        cmocka_unit_test(test_native_snaplen),
        cmocka_unit_test(test_native_grh),
        cmocka_unit_test(test_native_grh_paylen_mismatch),
        cmocka_unit_test(test_erf_type21),
        cmocka_unit_test(test_erf_extension_header),
        cmocka_unit_test(test_erf_two_extension_headers),
        cmocka_unit_test(test_erf_padding),
        cmocka_unit_test(test_erf_other_types),
        cmocka_unit_test(test_rocev1),
        cmocka_unit_test(test_rocev1_paylen_too_long),
        cmocka_unit_test(test_rocev2_ipv4),
        cmocka_unit_test(test_rocev2_ipv6),
        cmocka_unit_test(test_rocev2_one_vlan),
        cmocka_unit_test(test_rocev2_two_vlans),
        cmocka_unit_test(test_udp_other_port_not_ib),
        cmocka_unit_test(test_rocev2_custom_port),
        cmocka_unit_test(test_rocev2_udp_len_mismatch),
        cmocka_unit_test(test_rocev2_ip_len_mismatch),
        cmocka_unit_test(test_rocev2_ipv6_len_mismatch),
        cmocka_unit_test(test_ipv4_bad_ihl),
        cmocka_unit_test(test_rocev2_ipv4_options),
        cmocka_unit_test(test_rocev2_ipv6_hop_by_hop),
        cmocka_unit_test(test_ipv4_fragment_not_ib),
        cmocka_unit_test(test_ethernet_at),
        cmocka_unit_test(test_sll),
        cmocka_unit_test(test_sll2),
        cmocka_unit_test(test_sll2_rocev1),
        cmocka_unit_test(test_bad_linktype),
        cmocka_unit_test(test_trunc_mad),
        cmocka_unit_test(test_trunc_class_data_ipcm),
        cmocka_unit_test(test_mad_on_redirected_qp),
        cmocka_unit_test(test_vendor_dc_no_mad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
