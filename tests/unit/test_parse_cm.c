/* test_parse_cm.c - every Communication Manager message, Service IDs, the IP CM
 * header, the RDMA CM tuple and address formatting.
 *
 * Offsets are inside the 256-byte MAD, as IBA Vol. 1 chapter 12 (CM
 * messages) and Annex A11 (the RDMA IP CM service) lay them out.  Every message
 * has a distinct value in each field (the shared vectors of vectors.c, or
 * written here with ts_put*) and is parsed from an exact-size heap copy.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cm.h"
#include "ipcm.h"
#include "test_support.h"
#include "vectors.h"

#define MAD 256

static struct ib_cm parse_copy(const uint8_t *m, size_t len, uint16_t attr, bool *ok)
{
    uint8_t *b = ts_exact_copy(m, len);
    struct ib_cm cm;
    memset(&cm, 0xEE, sizeof cm);
    *ok = ib_parse_cm(ib_span_make(b, len), attr, &cm);
    free(b);
    return cm;
}

/* ---- REQ ---- */

static void test_req_every_field(void **state)
{
    (void)state;
    uint8_t m[MAD];
    ts_build_cm_req(m);
    bool ok;
    struct ib_cm cm = parse_copy(m, MAD, IB_CM_REQ, &ok);
    assert_true(ok);
    const struct ib_cm_req *r = &cm.u.req;
    assert_int_equal(cm.attr, IB_CM_REQ);
    assert_int_equal(cm.local_comm_id, 0x11223344u);
    assert_true(r->service_id == 0x0000000001063039ull);
    assert_true(r->local_ca_guid == 0x0002C90300A1B2C3ull);
    assert_int_equal(r->local_qkey, 0x1A2B3C4Du);
    assert_int_equal(r->local_qpn, 0xABCDEF);
    assert_int_equal(r->responder_resources, 0x07);
    assert_int_equal(r->local_eecn, 0x123456);
    assert_int_equal(r->initiator_depth, 0x09);
    assert_int_equal(r->remote_eecn, 0x654321);
    assert_int_equal(r->remote_cm_resp_timeout, 0x15);
    assert_int_equal(r->transport_service_type, 2);
    assert_true(r->eefc);
    assert_int_equal(r->starting_psn, 0x789ABC);
    assert_int_equal(r->local_cm_resp_timeout, 0x13);
    assert_int_equal(r->retry_count, 6);
    assert_int_equal(r->pkey, 0xBEEF);
    assert_int_equal(r->path_mtu, 5);
    assert_true(r->rdc_exists);
    assert_int_equal(r->rnr_retry_count, 3);
    assert_int_equal(r->max_cm_retries, 0xC);
    assert_true(r->srq);
    assert_int_equal(r->ext_transport, 5);
    assert_int_equal(cm.private_offset, 164);
    assert_int_equal(cm.private_len, 92);
    assert_false(cm.has_cpi);
}

static void test_req_primary_path(void **state)
{
    (void)state;
    uint8_t m[MAD], gid[16];
    ts_build_cm_req(m);
    bool ok;
    struct ib_cm cm = parse_copy(m, MAD, IB_CM_REQ, &ok);
    assert_true(ok);
    const struct ib_cm_path *p = &cm.u.req.primary;
    assert_int_equal(p->local_lid, 0x0101);
    assert_int_equal(p->remote_lid, 0x0202);
    ts_gid(gid, "fe80000000000000 0002c90300a1b2c3");
    assert_memory_equal(p->local_gid, gid, 16);
    ts_gid(gid, "fe80000000000000 0002c90300d4e5f6");
    assert_memory_equal(p->remote_gid, gid, 16);
    /* The two Wireshark 4.0 gets wrong: FlowLabel bits 31:12 of MAD 112,
     * PacketRate bits 5:0 of MAD 115. */
    assert_int_equal(p->flow_label, 0xABCDE);
    assert_int_equal(p->packet_rate, 0x2A);
    assert_int_equal(p->tclass, 0x5C);
    assert_int_equal(p->hop_limit, 0x3F);
    assert_int_equal(p->sl, 0xB);
    assert_true(p->subnet_local);
    assert_int_equal(p->local_ack_timeout, 0x11);
}

static void test_req_alternate_path(void **state)
{
    (void)state;
    uint8_t m[MAD], gid[16];
    ts_build_cm_req(m);
    bool ok;
    struct ib_cm cm = parse_copy(m, MAD, IB_CM_REQ, &ok);
    assert_true(ok);
    const struct ib_cm_path *p = &cm.u.req.alternate;
    assert_int_equal(p->local_lid, 0x0303);
    assert_int_equal(p->remote_lid, 0x0404);
    ts_gid(gid, "fec0000000000000 0001000200030004");
    assert_memory_equal(p->local_gid, gid, 16);
    ts_gid(gid, "20010db800000000 0000000000000099");
    assert_memory_equal(p->remote_gid, gid, 16);
    assert_int_equal(p->flow_label, 0x12345); /* reserved bits 11:6 set, ignored */
    assert_int_equal(p->packet_rate, 0x15);
    assert_int_equal(p->tclass, 0x6D);
    assert_int_equal(p->hop_limit, 0x40);
    assert_int_equal(p->sl, 0x4);
    assert_false(p->subnet_local);
    assert_int_equal(p->local_ack_timeout, 0x0E);
}

static void test_req_service_id_and_ipcm(void **state)
{
    (void)state;
    uint8_t m[MAD];
    ts_build_cm_req(m);
    bool ok;
    struct ib_cm cm = parse_copy(m, MAD, IB_CM_REQ, &ok);
    assert_true(ok);
    assert_true(cm.has_service_id);
    assert_true(cm.sid.raw == 0x0000000001063039ull);
    assert_true(cm.sid.ip_cm);
    assert_int_equal(cm.sid.port_space, IB_PS_TCP);
    assert_int_equal(cm.sid.dport, 12345);
    assert_true(cm.has_ipcm);
    assert_true(cm.ipcm.valid);
    assert_int_equal(cm.ipcm.majv, 0);
    assert_int_equal(cm.ipcm.minv, 0);
    assert_int_equal(cm.ipcm.ipv, 4);
    assert_int_equal(cm.ipcm.src_port, 50000);
    static const uint8_t src[16] = { [12] = 192, [13] = 168, [14] = 1, [15] = 10 };
    static const uint8_t dst[16] = { [12] = 10, [13] = 0, [14] = 0, [15] = 20 };
    assert_memory_equal(cm.ipcm.src_ip, src, 16);
    assert_memory_equal(cm.ipcm.dst_ip, dst, 16);
}

/* A REQ whose Service ID is not IP CM carries no IP CM header. */
static void test_req_non_ipcm_sid(void **state)
{
    (void)state;
    uint8_t m[MAD];
    ts_build_cm_req(m);
    ts_put64(m, 32, 0x1000000000000404ull);
    bool ok;
    struct ib_cm cm = parse_copy(m, MAD, IB_CM_REQ, &ok);
    assert_true(ok);
    assert_true(cm.has_service_id);
    assert_true(cm.sid.raw == 0x1000000000000404ull);
    assert_false(cm.sid.ip_cm);
    assert_false(cm.has_ipcm);
}

static void test_req_lengths(void **state)
{
    (void)state;
    uint8_t m[MAD];
    ts_build_cm_req(m);
    bool ok;
    (void)parse_copy(m, 163, IB_CM_REQ, &ok);
    assert_false(ok); /* the fixed part ends at 164 */
    struct ib_cm cm = parse_copy(m, 164, IB_CM_REQ, &ok);
    assert_true(ok);
    assert_int_equal(cm.u.req.alternate.local_ack_timeout, 0x0E);
    assert_false(cm.has_ipcm); /* IP CM SID but the header is not there */
    assert_int_equal(cm.private_len, 0);
    cm = parse_copy(m, 199, IB_CM_REQ, &ok);
    assert_true(ok);
    assert_false(cm.has_ipcm);
    assert_int_equal(cm.private_len, 35);
    cm = parse_copy(m, 200, IB_CM_REQ, &ok);
    assert_true(ok);
    assert_true(cm.has_ipcm);
    assert_int_equal(cm.private_len, 36);
}

/* ---- MRA, REJ, REP, RTU, DREQ, DREP ---- */

/* The vectors (ts_build_cm_*) and their layouts are in vectors.c. */

static void test_mra(void **state)
{
    (void)state;
    uint8_t m[MAD];
    ts_build_cm_mra(m);
    bool ok;
    struct ib_cm cm = parse_copy(m, MAD, IB_CM_MRA, &ok);
    assert_true(ok);
    assert_int_equal(cm.local_comm_id, 0xA1A2A3A4u);
    assert_int_equal(cm.remote_comm_id, 0xB1B2B3B4u);
    assert_int_equal(cm.u.mra.msg_mraed, 1);
    assert_int_equal(cm.u.mra.service_timeout, 0x1D);
    assert_int_equal(cm.private_offset, 34);
    assert_int_equal(cm.private_len, 222);
    m[32] = 0x80; /* MsgMRAed 2 (LAP) */
    cm = parse_copy(m, MAD, IB_CM_MRA, &ok);
    assert_int_equal(cm.u.mra.msg_mraed, 2);
}

static void test_rej_redirect_cpi(void **state)
{
    (void)state;
    uint8_t m[MAD];
    ts_build_cm_rej(m, 24);
    bool ok;
    struct ib_cm cm = parse_copy(m, MAD, IB_CM_REJ, &ok);
    assert_true(ok);
    assert_int_equal(cm.local_comm_id, 0x01020304u);
    assert_int_equal(cm.remote_comm_id, 0x05060708u);
    assert_int_equal(cm.u.rej.msg_rejected, 2);
    assert_int_equal(cm.u.rej.rej_info_len, 72);
    assert_int_equal(cm.u.rej.reason, 24);
    assert_int_equal(cm.u.rej.ari_offset, 36);
    assert_true(cm.u.rej.ari_has_cpi);
    assert_true(cm.has_cpi);
    assert_int_equal(cm.cpi_offset, 36);
    ts_check_cpi(&cm.cpi);
    assert_int_equal(cm.private_offset, 108);
    assert_int_equal(cm.private_len, 148);
    assert_false(cm.has_service_id);
}

static void test_rej_other_reasons(void **state)
{
    (void)state;
    uint8_t m[MAD];
    bool ok;
    ts_build_cm_rej(m, 25); /* port redirect: ARI is ClassPortInfo too */
    struct ib_cm cm = parse_copy(m, MAD, IB_CM_REJ, &ok);
    assert_true(ok);
    assert_int_equal(cm.u.rej.reason, 25);
    assert_true(cm.has_cpi);
    assert_int_equal(cm.cpi.redirect_lid, 0x4321);
    ts_build_cm_rej(m, 28); /* consumer reject: no ClassPortInfo */
    m[32] = 0x40;           /* MsgRejected 1 (REP) */
    m[33] = 0x00;
    cm = parse_copy(m, MAD, IB_CM_REJ, &ok);
    assert_true(ok);
    assert_int_equal(cm.u.rej.reason, 28);
    assert_int_equal(cm.u.rej.msg_rejected, 1);
    assert_int_equal(cm.u.rej.rej_info_len, 0);
    assert_false(cm.u.rej.ari_has_cpi);
    assert_false(cm.has_cpi);
    ts_build_cm_rej(m, 0x0108); /* a reason whose low byte is 8: read as 16 bits */
    cm = parse_copy(m, MAD, IB_CM_REJ, &ok);
    assert_int_equal(cm.u.rej.reason, 0x0108);
}

static void test_rep(void **state)
{
    (void)state;
    uint8_t m[MAD];
    ts_build_cm_rep(m);
    bool ok;
    struct ib_cm cm = parse_copy(m, MAD, IB_CM_REP, &ok);
    assert_true(ok);
    const struct ib_cm_rep *r = &cm.u.rep;
    assert_int_equal(cm.local_comm_id, 0xC1C2C3C4u);
    assert_int_equal(cm.remote_comm_id, 0xD1D2D3D4u);
    assert_int_equal(r->local_qkey, 0x0A0B0C0Du);
    assert_int_equal(r->local_qpn, 0x3C4D5E);
    assert_int_equal(r->local_eecn, 0x6F7081);
    assert_int_equal(r->starting_psn, 0x92A3B4);
    assert_int_equal(r->responder_resources, 0x10);
    assert_int_equal(r->initiator_depth, 0x20);
    assert_int_equal(r->target_ack_delay, 0x1B);
    assert_int_equal(r->failover_accepted, 2);
    assert_true(r->eefc);
    assert_int_equal(r->rnr_retry_count, 6);
    assert_true(r->srq);
    assert_true(r->local_ca_guid == 0x0002C90300FEDCBAull);
    assert_int_equal(cm.private_offset, 60);
    assert_int_equal(cm.private_len, 196);
    (void)parse_copy(m, 59, IB_CM_REP, &ok);
    assert_false(ok);
}

static void test_rtu_drep(void **state)
{
    (void)state;
    static const uint16_t attrs[2] = { IB_CM_RTU, IB_CM_DREP };
    for (int i = 0; i < 2; i++) {
        uint8_t m[MAD];
        ts_cm_header(m, attrs[i]);
        ts_put32(m, 24, 0x13579BDFu);
        ts_put32(m, 28, 0x2468ACE0u);
        bool ok;
        struct ib_cm cm = parse_copy(m, MAD, attrs[i], &ok);
        assert_true(ok);
        assert_int_equal(cm.attr, attrs[i]);
        assert_int_equal(cm.local_comm_id, 0x13579BDFu);
        assert_int_equal(cm.remote_comm_id, 0x2468ACE0u);
        assert_int_equal(cm.private_offset, 32);
        assert_int_equal(cm.private_len, 224);
        (void)parse_copy(m, 31, attrs[i], &ok);
        assert_false(ok);
        cm = parse_copy(m, 32, attrs[i], &ok);
        assert_true(ok);
        assert_int_equal(cm.private_len, 0);
    }
}

static void test_dreq(void **state)
{
    (void)state;
    uint8_t m[MAD];
    ts_build_cm_dreq(m);
    bool ok;
    struct ib_cm cm = parse_copy(m, MAD, IB_CM_DREQ, &ok);
    assert_true(ok);
    assert_int_equal(cm.local_comm_id, 0x0BADF00Du);
    assert_int_equal(cm.remote_comm_id, 0x0DEFACEDu);
    assert_int_equal(cm.u.dreq.remote_qpn_eecn, 0x7A8B9C);
    assert_int_equal(cm.private_offset, 36);
    assert_int_equal(cm.private_len, 220);
}

/* ---- SIDR ---- */

static void test_sidr_req_ipcm_v6(void **state)
{
    (void)state;
    uint8_t m[MAD], ip[16];
    ts_build_cm_sidr_req(m);
    bool ok;
    struct ib_cm cm = parse_copy(m, MAD, IB_CM_SIDR_REQ, &ok);
    assert_true(ok);
    assert_int_equal(cm.local_comm_id, 0x99887766u);
    assert_int_equal(cm.u.sidr_req.pkey, 0x8123);
    assert_true(cm.u.sidr_req.service_id == 0x0000000001110FA0ull);
    assert_true(cm.has_service_id);
    assert_true(cm.sid.ip_cm);
    assert_int_equal(cm.sid.port_space, IB_PS_UDP);
    assert_int_equal(cm.sid.dport, 4000);
    assert_int_equal(cm.private_offset, 40);
    assert_int_equal(cm.private_len, 216);
    assert_true(cm.has_ipcm);
    assert_true(cm.ipcm.valid);
    assert_int_equal(cm.ipcm.ipv, 6);
    assert_int_equal(cm.ipcm.src_port, 5001);
    ts_gid(ip, "20010db8000000000000000000000010");
    assert_memory_equal(cm.ipcm.src_ip, ip, 16);
    ts_gid(ip, "20010db8000000000000000000000020");
    assert_memory_equal(cm.ipcm.dst_ip, ip, 16);
    (void)parse_copy(m, 39, IB_CM_SIDR_REQ, &ok);
    assert_false(ok);
}

static void test_sidr_rep_redirect(void **state)
{
    (void)state;
    uint8_t m[MAD];
    ts_build_cm_sidr_rep(m);
    bool ok;
    struct ib_cm cm = parse_copy(m, MAD, IB_CM_SIDR_REP, &ok);
    assert_true(ok);
    const struct ib_cm_sidr_rep *r = &cm.u.sidr_rep;
    assert_int_equal(cm.local_comm_id, 0x99887766u);
    assert_int_equal(r->status, 4);
    assert_int_equal(r->info_len, 72);
    assert_int_equal(r->qpn, 0x5F6E7D);
    assert_true(r->service_id == 0x00000000013F1234ull);
    assert_int_equal(r->qkey, 0x2B3C4D5Eu);
    assert_true(r->info_has_cpi);
    assert_true(cm.has_service_id);
    assert_true(cm.sid.ip_cm);
    assert_int_equal(cm.sid.port_space, IB_PS_IB);
    assert_int_equal(cm.sid.dport, 0x1234);
    assert_true(cm.has_cpi);
    assert_int_equal(cm.cpi_offset, 48);
    ts_check_cpi(&cm.cpi);
    assert_int_equal(cm.private_offset, 120);
    assert_int_equal(cm.private_len, 136);
    assert_false(cm.has_ipcm);

    m[28] = 0; /* OK: Info is not ClassPortInfo */
    cm = parse_copy(m, MAD, IB_CM_SIDR_REP, &ok);
    assert_true(ok);
    assert_int_equal(cm.u.sidr_rep.status, 0);
    assert_false(cm.u.sidr_rep.info_has_cpi);
    assert_false(cm.has_cpi);
}

/* ---- LAP, APR ---- */

static void test_lap(void **state)
{
    (void)state;
    uint8_t m[MAD], gid[16];
    ts_build_cm_lap(m);
    bool ok;
    struct ib_cm cm = parse_copy(m, MAD, IB_CM_LAP, &ok);
    assert_true(ok);
    assert_int_equal(cm.local_comm_id, 0x31323334u);
    assert_int_equal(cm.remote_comm_id, 0x41424344u);
    assert_int_equal(cm.u.lap.remote_qpn_eecn, 0x1A2B3C);
    assert_int_equal(cm.u.lap.remote_cm_resp_timeout, 0x17);
    const struct ib_cm_path *p = &cm.u.lap.alternate;
    assert_int_equal(p->local_lid, 0x0505);
    assert_int_equal(p->remote_lid, 0x0606);
    ts_gid(gid, "fe80000000000000 0000000000000005");
    assert_memory_equal(p->local_gid, gid, 16);
    ts_gid(gid, "fe80000000000000 0000000000000006");
    assert_memory_equal(p->remote_gid, gid, 16);
    assert_int_equal(p->flow_label, 0x9ABCD);
    assert_int_equal(p->sl, 0x9);
    assert_true(p->subnet_local);
    assert_int_equal(p->local_ack_timeout, 0x12);
    assert_int_equal(cm.private_offset, 88);
    assert_int_equal(cm.private_len, 168);
    (void)parse_copy(m, 87, IB_CM_LAP, &ok);
    assert_false(ok);
}

/* Regression (bug found by this test, fixed in a5db222; core/parse/cm.c parse_path,
 * used for the LAP at 44; core/parse/fields.c PATH for
 * "cm.lap.alternate"): the LAP path was read with the REQ path's shape, so
 * PacketRate came from byte 83 (the TClass byte), TClass from 84 (HopLimit)
 * and HopLimit from 85 (PacketRate).  Expected per IBA Vol. 1 §12.6.14 / Linux
 * struct cm_lap_msg: TClass = MAD byte 83, HopLimit = 84, PacketRate = 85 bits 5:0.
 * The layout only says "44-87 alternate path" (it does not say "same shape"). */
static void test_lap_path_tclass_hoplimit_rate(void **state)
{
    (void)state;
    uint8_t m[MAD];
    ts_build_cm_lap(m);
    bool ok;
    struct ib_cm cm = parse_copy(m, MAD, IB_CM_LAP, &ok);
    assert_true(ok);
    const struct ib_cm_path *p = &cm.u.lap.alternate;
    assert_int_equal(p->tclass, 0x7E);
    assert_int_equal(p->hop_limit, 0x21);
    assert_int_equal(p->packet_rate, 0x0C);
}

static void test_apr(void **state)
{
    (void)state;
    uint8_t m[MAD];
    ts_build_cm_apr(m);
    bool ok;
    struct ib_cm cm = parse_copy(m, MAD, IB_CM_APR, &ok);
    assert_true(ok);
    assert_int_equal(cm.local_comm_id, 0x51525354u);
    assert_int_equal(cm.remote_comm_id, 0x61626364u);
    assert_int_equal(cm.u.apr.info_len, 16);
    assert_int_equal(cm.u.apr.ap_status, 11);
    assert_int_equal(cm.private_offset, 108);
    assert_int_equal(cm.private_len, 148);
    (void)parse_copy(m, 107, IB_CM_APR, &ok);
    assert_false(ok);
}

/* End of each message's fixed part (IBA Vol. 1 chapter 12: where private data starts). */
static void test_fixed_len(void **state)
{
    (void)state;
    assert_int_equal(ib_cm_fixed_len(IB_CM_REQ), 164);
    assert_int_equal(ib_cm_fixed_len(IB_CM_MRA), 34);
    assert_int_equal(ib_cm_fixed_len(IB_CM_REJ), 108);
    assert_int_equal(ib_cm_fixed_len(IB_CM_REP), 60);
    assert_int_equal(ib_cm_fixed_len(IB_CM_RTU), 32);
    assert_int_equal(ib_cm_fixed_len(IB_CM_DREQ), 36);
    assert_int_equal(ib_cm_fixed_len(IB_CM_DREP), 32);
    assert_int_equal(ib_cm_fixed_len(IB_CM_SIDR_REQ), 40);
    assert_int_equal(ib_cm_fixed_len(IB_CM_SIDR_REP), 120);
    assert_int_equal(ib_cm_fixed_len(IB_CM_LAP), 88);
    assert_int_equal(ib_cm_fixed_len(IB_CM_APR), 108);
    assert_int_equal(ib_cm_fixed_len(IB_CM_CLASS_PORT_INFO), 24);
    assert_int_equal(ib_cm_fixed_len(0x0020), 24);
}

/* A CM ClassPortInfo (or unknown attribute): nothing CM-specific, true with a header. */
static void test_cm_other_attribute(void **state)
{
    (void)state;
    uint8_t m[MAD];
    ts_cm_header(m, IB_CM_CLASS_PORT_INFO);
    bool ok;
    struct ib_cm cm = parse_copy(m, MAD, IB_CM_CLASS_PORT_INFO, &ok);
    assert_true(ok);
    assert_int_equal(cm.attr, IB_CM_CLASS_PORT_INFO);
    assert_false(cm.has_service_id);
    assert_false(cm.has_ipcm);
    assert_false(cm.has_cpi);
    (void)parse_copy(m, 23, IB_CM_CLASS_PORT_INFO, &ok);
    assert_false(ok);
}

/* ---- Service ID, IP CM header, tuple, formatting ---- */

static void test_service_id_decode(void **state)
{
    (void)state;
    static const struct {
        uint64_t raw;
        bool ip_cm;
        uint16_t ps, dport;
    } table[] = {
        { 0x0000000001063039ull, true, 0x0106, 12345 }, /* TCP */
        { 0x0000000001114E20ull, true, 0x0111, 20000 }, /* UDP */
        { 0x00000000013F0001ull, true, 0x013F, 1 },     /* IB */
        { 0x000000000106FFFFull, true, 0x0106, 65535 },
        { 0x1000000000000404ull, false, 0, 0 }, /* not IP CM */
        { 0x0000000000021234ull, false, 0, 0 }, /* IPoIB port space: no prefix */
        { 0x0000000002063039ull, false, 0, 0 }, /* wrong prefix byte */
        { 0x0000000101063039ull, false, 0, 0 }, /* bit 32 set */
        { 0x8000000001063039ull, false, 0, 0 },
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        struct ib_service_id sid;
        memset(&sid, 0xEE, sizeof sid);
        ib_parse_service_id(table[i].raw, &sid);
        assert_true(sid.raw == table[i].raw);
        assert_int_equal(sid.ip_cm, table[i].ip_cm);
        if (table[i].ip_cm) {
            assert_int_equal(sid.port_space, table[i].ps);
            assert_int_equal(sid.dport, table[i].dport);
        }
    }
}

static void test_ipcm_header(void **state)
{
    (void)state;
    uint8_t raw[36];
    ts_hex("00 40 c350 000000000000000000000000 c0a8010a 000000000000000000000000 0a000014", raw,
           36);
    uint8_t *b = ts_exact_copy(raw, 36);
    struct ib_ipcm h;
    assert_true(ib_parse_ipcm(ib_span_make(b, 36), &h));
    assert_int_equal(h.majv, 0);
    assert_int_equal(h.minv, 0);
    assert_int_equal(h.ipv, 4);
    assert_int_equal(h.reserved, 0);
    assert_int_equal(h.src_port, 0xC350);
    assert_int_equal(h.src_ip[15], 10);
    assert_int_equal(h.src_ip[12], 192);
    assert_int_equal(h.dst_ip[12], 10);
    assert_int_equal(h.dst_ip[15], 20);
    assert_true(h.valid);

    /* MajV 1, MinV 2: not valid; IPV 4 with reserved bits 0xA */
    b[0] = 0x12;
    b[1] = 0x4A;
    assert_true(ib_parse_ipcm(ib_span_make(b, 36), &h));
    assert_int_equal(h.majv, 1);
    assert_int_equal(h.minv, 2);
    assert_int_equal(h.ipv, 4);
    assert_int_equal(h.reserved, 0xA);
    assert_false(h.valid);

    /* MinV alone does not invalidate; IPV 6 */
    b[0] = 0x03;
    b[1] = 0x60;
    assert_true(ib_parse_ipcm(ib_span_make(b, 36), &h));
    assert_int_equal(h.majv, 0);
    assert_int_equal(h.minv, 3);
    assert_int_equal(h.ipv, 6);
    assert_true(h.valid);

    b[1] = 0x50; /* IPV 5 */
    assert_true(ib_parse_ipcm(ib_span_make(b, 36), &h));
    assert_int_equal(h.ipv, 5);
    assert_false(h.valid);
    b[1] = 0x00; /* IPV 0 */
    assert_true(ib_parse_ipcm(ib_span_make(b, 36), &h));
    assert_false(h.valid);
    free(b);

    b = ts_exact_copy(raw, 35);
    assert_false(ib_parse_ipcm(ib_span_make(b, 35), &h));
    free(b);
}

static void test_tuple_make(void **state)
{
    (void)state;
    struct ib_service_id sid;
    struct ib_ipcm h;
    struct ib_tuple t;
    uint8_t raw[36];
    ts_hex("00 40 c350 000000000000000000000000 c0a8010a 000000000000000000000000 0a000014", raw,
           36);
    uint8_t *b = ts_exact_copy(raw, 36);
    assert_true(ib_parse_ipcm(ib_span_make(b, 36), &h));
    free(b);
    ib_parse_service_id(0x0000000001063039ull, &sid);
    memset(&t, 0xEE, sizeof t);
    assert_true(ib_tuple_make(&sid, &h, &t));
    assert_int_equal(t.port_space, 0x0106);
    assert_int_equal(t.ip_version, 4);
    assert_int_equal(t.src_port, 50000);
    assert_int_equal(t.dst_port, 12345);
    assert_memory_equal(t.src_ip, raw + 4, 16);
    assert_memory_equal(t.dst_ip, raw + 20, 16);

    /* not an IP CM Service ID */
    ib_parse_service_id(0x1000000000000404ull, &sid);
    assert_false(ib_tuple_make(&sid, &h, &t));
    /* invalid header: MajV 1 */
    ib_parse_service_id(0x0000000001063039ull, &sid);
    h.majv = 1;
    h.valid = false;
    assert_false(ib_tuple_make(&sid, &h, &t));
}

static void check_fmt(uint8_t v, const char *hex, const char *want)
{
    uint8_t ip[16];
    char buf[64];
    ts_gid(ip, hex);
    memset(buf, 'X', sizeof buf);
    ib_format_ip(v, ip, buf, sizeof buf);
    if (strcmp(buf, want) != 0)
        fail_msg("%s: expected \"%s\", got \"%s\"", hex, want, buf);
}

static void test_format_ip(void **state)
{
    (void)state;
    check_fmt(4, "000000000000000000000000 c0a8010a", "192.168.1.10");
    check_fmt(4, "000000000000000000000000 ffffffff", "255.255.255.255");
    check_fmt(6, "20010db8000000000000000000000010", "2001:db8::10");
    check_fmt(6, "00000000000000000000000000000000", "::");
    check_fmt(6, "00000000000000000000000000000001", "::1");
    check_fmt(6, "fe800000000000000002c90300012345", "fe80::2:c903:1:2345");
    check_fmt(6, "fe800000000000000000000000000000", "fe80::");
    check_fmt(6, "ff02000000000000000000000000 0001", "ff02::1");
    /* one zero group is not compressed (RFC 5952 4.2.2) */
    check_fmt(6, "20010db8000000010001000100010001", "2001:db8:0:1:1:1:1:1");
    /* equal runs: the first one is compressed (RFC 5952 4.2.3) */
    check_fmt(6, "20010db8000000000001000000000001", "2001:db8::1:0:0:1");
    /* the longer run wins */
    check_fmt(6, "20010000000100000000000000000001", "2001:0:1::1");
    check_fmt(6, "00000000000000000000ffff0a000001", "::ffff:10.0.0.1");
    check_fmt(6, "00000000000000000000ffffc0a8010a", "::ffff:192.168.1.10");
    check_fmt(6, "fec00000000000000005000600070008", "fec0::5:6:7:8");
    check_fmt(6, "abcdef0123456789abcdef0123456789", "abcd:ef01:2345:6789:abcd:ef01:2345:6789");
    /* a short buffer is cut, never overrun */
    uint8_t ip[16];
    char small[8];
    ts_gid(ip, "abcdef0123456789abcdef0123456789");
    ib_format_ip(6, ip, small, sizeof small);
    assert_int_equal(strlen(small), 7);
    assert_string_equal(small, "abcd:ef");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_req_every_field),
        cmocka_unit_test(test_req_primary_path),
        cmocka_unit_test(test_req_alternate_path),
        cmocka_unit_test(test_req_service_id_and_ipcm),
        cmocka_unit_test(test_req_non_ipcm_sid),
        cmocka_unit_test(test_req_lengths),
        cmocka_unit_test(test_mra),
        cmocka_unit_test(test_rej_redirect_cpi),
        cmocka_unit_test(test_rej_other_reasons),
        cmocka_unit_test(test_rep),
        cmocka_unit_test(test_rtu_drep),
        cmocka_unit_test(test_dreq),
        cmocka_unit_test(test_sidr_req_ipcm_v6),
        cmocka_unit_test(test_sidr_rep_redirect),
        cmocka_unit_test(test_lap),
        cmocka_unit_test(test_lap_path_tclass_hoplimit_rate),
        cmocka_unit_test(test_apr),
        cmocka_unit_test(test_fixed_len),
        cmocka_unit_test(test_cm_other_attribute),
        cmocka_unit_test(test_service_id_decode),
        cmocka_unit_test(test_ipcm_header),
        cmocka_unit_test(test_tuple_make),
        cmocka_unit_test(test_format_ip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
