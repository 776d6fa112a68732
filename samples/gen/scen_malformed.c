/* scen_malformed.c - truncated and malformed frames for parser hardening.
 *
 * malformed.pcap (ERF): native IB frames cut by the snap length (the pcap and
 * ERF wire lengths keep the full size), lying length fields, bad CRCs, an ERF
 * extension header, an ERF type 25 link record and an IP CM header of an
 * unknown version.  malformed_roce.pcap (Ethernet): the same ideas for RoCE.
 */
#include <stdio.h>
#include <string.h>

#include "cm_flow.h"
#include "crc.h"
#include "scenarios.h"

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (d))

typedef struct mf {
    host_t mon, cl, sv;
    uint32_t tid;
} mf_t;

static void mf_hosts(mf_t *m)
{
    memset(m, 0, sizeof(*m));
    host_init(&m->mon, "monitor", 0x0005, 0x98039B0300A1B205ull, IP4(10, 0, 0, 5), 0x5);
    host_init(&m->cl, "client", 0x0011, 0x98039B0300A1B211ull, IP4(10, 0, 0, 11), 0x11);
    host_init(&m->sv, "server1", 0x0012, 0x98039B0300A1B212ull, IP4(10, 0, 0, 12), 0x12);
}

static uint32_t perf_get(gen_t *g, mf_t *m)
{
    mad_t d;
    mad_init(&d, MAD_CLASS_PERF, 1, MAD_METHOD_GET, 0,
             ((uint64_t)m->mon.hi_tid << 32) | (0x4000u + m->tid++), MAD_ATTR_PORTCOUNTERS, 0);
    perf_put_port_counters(d.b + MAD_OFF_PERF_DATA, 1, 0xFFFF, false, 0);
    return gen_emit_mad(g, &m->mon, &m->sv, 1, 1, IB_QKEY_GSI, &d);
}

static uint32_t perf_redirect(gen_t *g, mf_t *m)
{
    mad_t d;
    mad_init(&d, MAD_CLASS_PERF, 1, MAD_METHOD_GETRESP, MAD_STATUS_REDIRECT,
             ((uint64_t)m->mon.hi_tid << 32) | (0x4000u + m->tid - 1), MAD_ATTR_CLASSPORTINFO, 0);
    cpi_t c;
    memset(&c, 0, sizeof(c));
    c.base_ver = 1;
    c.class_ver = 1;
    c.redirect_lid = 0x0021;
    c.redirect_qp = 0x55;
    c.redirect_qkey = IB_QKEY_GSI;
    c.redirect_pkey = IB_PKEY_DEFAULT;
    cpi_put(d.b + MAD_OFF_PERF_DATA, &c);
    return gen_emit_mad(g, &m->sv, &m->mon, 1, 1, IB_QKEY_GSI, &d);
}

/* An ERF type 25 record: a flow-control link packet, to be skipped. */
static void erf_link_packet(gen_t *g)
{
    uint32_t f;
    uint8_t rec[ERF_HDR_LEN + 6];
    uint32_t w = (0u << 28) | (0x123u << 16) | (0u << 12) | 0x456u;
    uint8_t lp[4];
    put_be32(lp, w);
    uint16_t lpcrc = crc16_ib_final(crc16_ib_update(CRC16_IB_INIT, lp, 4));
    size_t h = encap_erf_header(rec, sizeof(rec), g->t_us, ERF_TYPE_INFINIBAND_LINK, false,
                                ERF_HDR_LEN + 6, 6);
    memcpy(rec + h, lp, 4);
    rec[h + 4] = (uint8_t)lpcrc;
    rec[h + 5] = (uint8_t)(lpcrc >> 8);
    f = gen_emit_raw(g, rec, h + 6, h + 6);
    gen_note(g, f,
             "ERF type 25 (InfiniBand link) record: a 6-byte flow-control link packet (Op 0, "
             "FCTBS 0x123, VL 0, FCCL 0x456, LPCRC): recognised and skipped, not an IBA "
             "transport packet");
}

/* An LRH PktLen that says more than was sent. */
static void pktlen_over(gen_t *g, mf_t *m)
{
    uint32_t f;
    mad_t d;
    mad_init(&d, MAD_CLASS_PERF, 1, MAD_METHOD_GET, 0,
             ((uint64_t)m->mon.hi_tid << 32) | (0x4000u + m->tid++), MAD_ATTR_PORTCOUNTERS, 0);
    ib_pkt_t p;
    ib_pkt_ud(&p, m->mon.lid, m->sv.lid, 1, 1, IB_QKEY_GSI, d.b, MAD_LEN);
    p.pktlen_adjust = 8;
    f = gen_emit_ib(g, &p, &m->mon, &m->sv);
    gen_note(g, f,
             "length: LRH PktLen 80 words (320 bytes) but only 288 bytes of LRH..ICRC (and "
             "the VCRC) were sent and captured: PktLen says more than captured");
}

void story_malformed_ib(gen_t *g)
{
    mf_t m;
    mf_hosts(&m);
    char t[128];
    uint32_t f;
    cm_conn_t c;

    f = perf_get(g, &m);
    gen_note(g, f, "clean GMP (PerfMgt Get(PortCounters)), 290 bytes: the reference");

    cm_conn_init(g, &c, &m.cl, &m.sv, RDMA_PS_TCP, 42001, 7471, false);
    g->next.cut = 5;
    f = cm_req(g, &c);
    gen_note(g, f,
             "truncated: CM REQ cut after 5 bytes of the LRH (ERF rlen 21, wlen 290; pcap caplen "
             "21, len 306)");

    cm_conn_init(g, &c, &m.cl, &m.sv, RDMA_PS_TCP, 42002, 7471, false);
    g->next.cut = 8 + 6;
    f = cm_req(g, &c);
    gen_note(g, f, "truncated: CM REQ cut after 6 bytes of the BTH (14 IB bytes captured)");

    cm_conn_init(g, &c, &m.cl, &m.sv, RDMA_PS_TCP, 42003, 7471, false);
    g->next.cut = 8 + 12 + 8 + 10;
    f = cm_req(g, &c);
    gen_note(g, f,
             "truncated: CM REQ cut 10 bytes into the MAD common header (38 IB bytes captured)");

    cm_conn_init(g, &c, &m.cl, &m.sv, RDMA_PS_TCP, 42004, 7471, false);
    g->next.cut = 28 + 180;
    f = cm_req(g, &c);
    gen_note(g, f,
             "truncated: CM REQ %s cut at MAD offset 180, inside the IP CM header of the "
             "private data (SrcIP incomplete, DstIP missing)",
             cm_conn_tuple(&c, t, sizeof(t)));

    f = perf_get(g, &m);
    gen_note(g, f, "clean GMP: PerfMgt Get(PortCounters), the request answered by frame %u", f + 1);
    g->next.cut = 28 + 64 + 20;
    f = perf_redirect(g, &m);
    gen_note(g, f,
             "truncated: PerfMgt GetResp Status 0x0002 cut 20 bytes into the ClassPortInfo "
             "(MAD offset 84: RedirectLID/QP/Q_Key missing); frame %u is its request",
             f - 1);

    g->next.erf_ext = true;
    f = perf_get(g, &m);
    gen_note(g, f,
             "well-formed: ERF type byte 0x95 (extension header present), one 8-byte Flow ID "
             "extension header (type 16), then a clean GMP: the LRH starts at record offset 24");

    erf_link_packet(g);

    pktlen_over(g, &m);

    cm_conn_init(g, &c, &m.cl, &m.sv, RDMA_PS_TCP, 42005, 7471, false);
    c.ipcm_majv = 1;
    c.ipcm_ipv = 5;
    f = cm_req(g, &c);
    gen_note(g, f,
             "semantic: complete CM REQ whose IP CM header has MajV 1 and IPV 5 (receivers "
             "accept only MajV 0 and IPV 4 or 6): addresses must not be trusted");

    g->next.bad_icrc = true;
    f = perf_get(g, &m);
    gen_note(g, f, "CRC: clean GMP with a wrong ICRC (VCRC computed over the wrong ICRC)");
    g->next.bad_vcrc = true;
    f = perf_get(g, &m);
    gen_note(g, f, "CRC: clean GMP with a right ICRC and a wrong VCRC");
}

void story_malformed_roce(gen_t *g)
{
    mf_t m;
    mf_hosts(&m);
    char t[128];
    uint32_t f;
    cm_conn_t c;

    cm_conn_init(g, &c, &m.cl, &m.sv, RDMA_PS_TCP, 43001, 7471, false);
    f = cm_req(g, &c);
    gen_note(g, f, "clean RoCEv2 CM REQ %s over IPv4 (322 bytes): the reference",
             cm_conn_tuple(&c, t, sizeof(t)));

    cm_conn_init(g, &c, &m.cl, &m.sv, RDMA_PS_TCP, 43002, 7471, false);
    g->next.udp_len_adjust = 64;
    f = cm_req(g, &c);
    gen_note(g, f,
             "bad UDP length: 352, but the IPv4 total length leaves 288 bytes for UDP (UDP "
             "length larger than the IP payload)");

    cm_conn_init(g, &c, &m.cl, &m.sv, RDMA_PS_TCP, 43003, 7471, false);
    g->next.udp_len_adjust = -(int)(8 + 12 + 8 + 256 + 4) + 12;
    f = cm_req(g, &c);
    gen_note(g, f,
             "bad UDP length: 12, too short for the UDP header and a 12-byte BTH (the IP "
             "payload holds 288 bytes)");

    cm_conn_init(g, &c, &m.cl, &m.sv, RDMA_PS_TCP, 43004, 7471, false);
    g->next.ihl = 4;
    f = cm_req(g, &c);
    gen_note(g, f, "IPv4 header with IHL 4 (16 bytes, less than the minimum 5): invalid");

    cm_conn_init(g, &c, &m.cl, &m.sv, RDMA_PS_TCP, 43005, 7471, false);
    g->next.cut = 20 + 8 + 6;
    f = cm_req(g, &c);
    gen_note(g, f, "truncated: RoCEv2 frame cut after 6 bytes of the BTH (snap length)");

    cm_conn_init(g, &c, &m.cl, &m.sv, RDMA_PS_TCP, 43006, 7471, false);
    g->next.cut = 20 + 8 + 12 + 8 + 180;
    f = cm_req(g, &c);
    gen_note(g, f, "truncated: RoCEv2 CM REQ cut at MAD offset 180, inside the IP CM header");

    g->roce = 1;
    cm_conn_init(g, &c, &m.cl, &m.sv, RDMA_PS_TCP, 43007, 7471, false);
    g->next.cut = 20;
    f = cm_req(g, &c);
    g->roce = 2;
    gen_note(g, f, "truncated: RoCEv1 (ethertype 0x8915) frame cut 20 bytes into the GRH");

    cm_conn_init(g, &c, &m.cl, &m.sv, RDMA_PS_TCP, 43008, 7471, false);
    g->next.bad_icrc = true;
    f = cm_req(g, &c);
    gen_note(g, f, "CRC: complete RoCEv2 CM REQ with a wrong ICRC");
}
