/* scen_addressing.c - clean frames, then one frame per addressing rule of the
 * IBA Vol. 1 chapter 4 (and the VL15 / LRH / GRH header rules), native IB in ERF.
 * Each rule frame breaks exactly one rule and is otherwise a well-formed GMP
 * (PerfMgt Get(PortCounters), LID 0x0005 -> LID 0x0012 QP1) unless noted. */
#include <stdio.h>
#include <string.h>

#include "scenarios.h"

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (d))

typedef struct ad {
    gen_t *g;
    host_t mon, sm, cl, sv;
    mad_t perf;
    uint32_t tid;
} ad_t;

static const uint8_t MGID[16] = { 0xFF, 0x12, 0x40, 0x1B, 0xFF, 0xFF, 0,    0,
                                  0,    0,    0,    0,    0xFF, 0xFF, 0xFF, 0xFF };
static const uint8_t MGID_BADFLAGS[16] = { 0xFF, 0x32, 0x40, 0x1B, 0xFF, 0xFF, 0, 0,
                                           0,    0,    0,    0,    0,    0,    0, 0x01 };
static const uint8_t GID_ZERO[16] = { 0 };
static const uint8_t GID_LOOP[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };

/* A PerfMgt Get(PortCounters) GMP from the monitor to server1, fresh TID. */
static void gmp(ad_t *a, ib_pkt_t *p, bool grh)
{
    mad_init(&a->perf, MAD_CLASS_PERF, 1, MAD_METHOD_GET, 0,
             ((uint64_t)a->mon.hi_tid << 32) | (0x3000u + a->tid++), MAD_ATTR_PORTCOUNTERS, 0);
    perf_put_port_counters(a->perf.b + MAD_OFF_PERF_DATA, 1, 0xFFFF, false, 0);
    ib_pkt_ud(p, a->mon.lid, a->sv.lid, 1, 1, IB_QKEY_GSI, a->perf.b, MAD_LEN);
    p->psn = a->mon.gsi_psn++ & 0xFFFFFF;
    if (grh) {
        p->grh = true;
        p->hoplmt = 1;
        memcpy(p->sgid, a->mon.gid, 16);
        memcpy(p->dgid, a->sv.gid, 16);
    }
}

static uint32_t emit(ad_t *a, ib_pkt_t *p)
{
    return gen_emit_ib(a->g, p, &a->mon, &a->sv);
}

static void clean_frames(ad_t *a)
{
    gen_t *g = a->g;
    ib_pkt_t p;
    mad_t m;
    uint32_t f;

    gmp(a, &p, false);
    f = emit(a, &p);
    gen_note(g, f, "clean: PerfMgt Get(PortCounters) LID 0x0005 -> 0x0012 QP1, VL 0, no GRH");
    mad_init(&m, MAD_CLASS_PERF, 1, MAD_METHOD_GETRESP, 0,
             get_be16(a->perf.b + 14) | ((uint64_t)a->mon.hi_tid << 32), MAD_ATTR_PORTCOUNTERS, 0);
    memcpy(m.b + 8, a->perf.b + 8, 8);
    perf_put_port_counters(m.b + MAD_OFF_PERF_DATA, 1, 0xFFFF, true, 7);
    f = gen_emit_mad(g, &a->sv, &a->mon, 1, 1, IB_QKEY_GSI, &m);
    gen_note(g, f, "clean: its GetResp, LID 0x0012 -> 0x0005");

    uint64_t tid = 0x0000000100000001ull;
    mad_init(&m, MAD_CLASS_SMP_LID, 1, MAD_METHOD_GET, 0, tid, MAD_ATTR_NODEINFO, 0);
    f = gen_emit_mad(g, &a->sm, &a->cl, 0, 0, 0, &m);
    gen_note(g, f, "clean: LID-routed SMP Get(NodeInfo) SM LID 0x0001 -> 0x0011 QP0 on VL 15");
    mad_init(&m, MAD_CLASS_SMP_LID, 1, MAD_METHOD_GETRESP, 0, tid, MAD_ATTR_NODEINFO, 0);
    smp_put_node_info(m.b + MAD_OFF_SMP_DATA, 1, 1, a->cl.node_guid, a->cl.node_guid,
                      a->cl.port_guid, 1, 0x02C9);
    f = gen_emit_mad(g, &a->cl, &a->sm, 0, 0, 0, &m);
    gen_note(g, f, "clean: its GetResp on VL 15");

    /* directed-route SMP to the permissive LID */
    mad_init(&m, MAD_CLASS_SMP_DR, 1, MAD_METHOD_GET, 0, tid + 1, MAD_ATTR_NODEINFO, 0);
    m.b[6] = 0;                 /* hop pointer */
    m.b[7] = 1;                 /* hop count */
    put_be16(m.b + 32, 0xFFFF); /* DrSLID */
    put_be16(m.b + 34, 0xFFFF); /* DrDLID */
    m.b[128 + 1] = 3;           /* initial path: out port 3 */
    ib_pkt_ud(&p, a->sm.lid, 0xFFFF, 0, 0, 0, m.b, MAD_LEN);
    p.psn = a->sm.gsi_psn++ & 0xFFFFFF;
    f = gen_emit_ib(g, &p, &a->sm, &a->cl);
    gen_note(g, f,
             "clean: directed-route SMP Get(NodeInfo) to the permissive DLID 0xFFFF, QP0, VL 15 "
             "(the one legal use of 0xFFFF)");

    /* UD multicast with GRH: an IPoIB ARP request to the broadcast group */
    uint8_t ipoib[4 + 56];
    memset(ipoib, 0, sizeof(ipoib));
    put_be16(ipoib, 0x0806);     /* IPoIB header: EtherType ARP */
    put_be16(ipoib + 4, 0x0020); /* htype InfiniBand */
    put_be16(ipoib + 6, 0x0800);
    ipoib[8] = 20; /* hlen: QPN + GID */
    ipoib[9] = 4;
    put_be16(ipoib + 10, 1);          /* request */
    put_be32(ipoib + 12, 0x00000048); /* sender QPN */
    memcpy(ipoib + 16, a->cl.gid, 16);
    put_be32(ipoib + 32, a->cl.ip4);
    put_be32(ipoib + 56, a->sv.ip4);
    ib_pkt_ud(&p, a->cl.lid, 0xC001, 0x000048, 0xFFFFFF, 0x0000000B, ipoib, sizeof(ipoib));
    p.grh = true;
    p.hoplmt = 1;
    memcpy(p.sgid, a->cl.gid, 16);
    memcpy(p.dgid, MGID, 16);
    p.psn = 0x10;
    f = gen_emit_ib(g, &p, &a->cl, &a->sv);
    gen_note(g, f,
             "clean: UD multicast send to DLID 0xC001 with GRH DGID ff12:401b:ffff::ffff:ffff "
             "(multicast DGID with multicast DLID), DestQP 0xFFFFFF");

    gmp(a, &p, true);
    f = emit(a, &p);
    gen_note(g, f, "clean: GMP with GRH, SGID/DGID link-local (fe80::/64), HopLmt 1");
}

/* LID rules: the SLID must be unicast, the DLID never 0. */
static void lid_rules(ad_t *a)
{
    gen_t *g = a->g;
    ib_pkt_t p;
    uint32_t f;

    gmp(a, &p, false);
    p.slid = 0x0000;
    f = emit(a, &p);
    gen_note(g, f, "rule: SLID 0x0000 (reserved): SLID must be unicast");

    gmp(a, &p, false);
    p.slid = 0xC001;
    f = emit(a, &p);
    gen_note(g, f, "rule: SLID 0xC001 is multicast: SLID must be unicast");

    gmp(a, &p, false);
    p.slid = 0xFFFF;
    f = emit(a, &p);
    gen_note(g, f, "rule: SLID 0xFFFF (permissive): SLID must be unicast");

    gmp(a, &p, false);
    p.dlid = 0x0000;
    f = emit(a, &p);
    gen_note(g, f, "rule: DLID 0x0000 is never valid");
}

/* GID rules: reserved, loopback and multicast GIDs where they may not be. */
static void gid_rules(ad_t *a)
{
    gen_t *g = a->g;
    ib_pkt_t p;
    uint32_t f;

    gmp(a, &p, true);
    memcpy(p.dgid, MGID, 16);
    f = emit(a, &p);
    gen_note(g, f,
             "rule: multicast DGID ff12:401b:ffff::ffff:ffff with unicast DLID 0x0012: a "
             "multicast DGID needs a multicast DLID");

    gmp(a, &p, true);
    memcpy(p.sgid, GID_ZERO, 16);
    f = emit(a, &p);
    gen_note(g, f, "rule: SGID :: (reserved, never in a GRH)");

    gmp(a, &p, true);
    memcpy(p.dgid, GID_ZERO, 16);
    f = emit(a, &p);
    gen_note(g, f, "rule: DGID :: (reserved, never a destination, never in a GRH)");

    gmp(a, &p, true);
    memcpy(p.dgid, GID_LOOP, 16);
    f = emit(a, &p);
    gen_note(g, f, "rule: DGID ::1 is the loopback GID: never in an IBA packet");

    gmp(a, &p, true);
    memcpy(p.sgid, MGID, 16);
    f = emit(a, &p);
    gen_note(g, f,
             "rule: SGID ff12:401b:ffff::ffff:ffff is multicast: a multicast GID may never "
             "be an SGID");

    gmp(a, &p, true);
    memcpy(p.dgid, MGID_BADFLAGS, 16);
    p.dlid = 0xC002;
    p.dqp = 0xFFFFFF;
    f = emit(a, &p);
    gen_note(g, f,
             "rule: multicast DGID ff32:401b:ffff::1 has flags 0x3: only the T bit (0x1) may "
             "be set (DLID 0xC002 is multicast, DestQP 0xFFFFFF)");
}

/* The permissive LID and VL 15 are for SMPs only, and SMPs use VL 15. */
static void vl15_rules(ad_t *a)
{
    gen_t *g = a->g;
    ib_pkt_t p;
    uint32_t f;
    mad_t m;

    gmp(a, &p, false);
    p.dlid = 0xFFFF;
    f = emit(a, &p);
    gen_note(g, f,
             "rule: permissive DLID 0xFFFF to QP1 (a GMP): the permissive LID is for SMPs to "
             "QP0 only");

    gmp(a, &p, false);
    p.vl = 15;
    f = emit(a, &p);
    gen_note(g, f, "rule: a GMP (QP1, PerfMgt) on VL 15: only SMPs (QP0) may use VL 15");

    mad_init(&m, MAD_CLASS_SMP_LID, 1, MAD_METHOD_GET, 0, 0x0000000100000010ull, MAD_ATTR_NODEINFO,
             0);
    ib_pkt_ud(&p, a->sm.lid, a->cl.lid, 0, 0, 0, m.b, MAD_LEN);
    p.vl = 0;
    p.psn = a->sm.gsi_psn++ & 0xFFFFFF;
    f = gen_emit_ib(g, &p, &a->sm, &a->cl);
    gen_note(g, f, "rule: an SMP (QP0, class 0x01) on VL 0: SMPs travel on VL 15");
}

/* Header versions and next headers other than IBA transport. */
static void header_rules(ad_t *a)
{
    gen_t *g = a->g;
    ib_pkt_t p;
    uint32_t f;

    gmp(a, &p, false);
    p.lver = 1;
    f = emit(a, &p);
    gen_note(g, f, "header: LRH LVer 1 (only 0 is defined)");

    gmp(a, &p, true);
    p.ipver = 4;
    f = emit(a, &p);
    gen_note(g, f, "header: GRH IPVer 4 (must be 6)");

    gmp(a, &p, true);
    p.nxthdr = 0x11;
    f = emit(a, &p);
    gen_note(g, f,
             "header: GRH NxtHdr 0x11 with LNH 3 and a BTH after the GRH (NxtHdr must be 0x1B "
             "for an IBA transport packet)");
}

/* LNH 1 and 0: packets after the LRH that are not IBA transport. */
static void non_iba_rules(ad_t *a)
{
    gen_t *g = a->g;
    ib_pkt_t p;
    uint32_t f;

    /* LNH 1: IPv6 non-IBA; no BTH, no ICRC */
    uint8_t v6[40 + 8 + 8];
    memset(v6, 0, sizeof(v6));
    put_be32(v6, 0x60000000u);
    put_be16(v6 + 4, 16);
    v6[6] = 17;
    v6[7] = 64;
    memcpy(v6 + 8, a->mon.gid, 16);
    memcpy(v6 + 24, a->sv.gid, 16);
    put_be16(v6 + 40, 50000);
    put_be16(v6 + 42, 9); /* discard */
    put_be16(v6 + 44, 16);
    memcpy(v6 + 48, "ibscope!", 8);
    {
        uint32_t sum = 0;
        for (int i = 8; i < 40; i += 2)
            sum += (uint32_t)((v6[i] << 8) | v6[i + 1]);
        sum += 16 + 17;
        uint16_t ck = inet_checksum(v6 + 40, 16, sum);
        put_be16(v6 + 46, ck ? ck : 0xFFFF);
    }
    ib_pkt_ud(&p, a->mon.lid, a->sv.lid, 0, 0, 0, v6, sizeof(v6));
    p.no_bth = true;
    p.lnh = IB_LNH_IPV6;
    f = emit(a, &p);
    gen_note(g, f,
             "header: LNH 1 (IPv6 non-IBA): a raw IPv6/UDP datagram after the LRH, no BTH, no "
             "ICRC; not an IBA transport packet");

    /* LNH 0: raw, RWH (reserved 16, EtherType 16) + data */
    uint8_t raw[4 + 28];
    memset(raw, 0, sizeof(raw));
    put_be16(raw + 2, 0x88B5); /* local experimental EtherType */
    memcpy(raw + 4, "ibscope raw packet payload..", 28);
    ib_pkt_ud(&p, a->mon.lid, a->sv.lid, 0, 0, 0, raw, sizeof(raw));
    p.no_bth = true;
    p.lnh = IB_LNH_RAW;
    f = emit(a, &p);
    gen_note(g, f,
             "header: LNH 0 (raw): RWH with EtherType 0x88B5 after the LRH, no BTH, no ICRC; "
             "not an IBA transport packet");
}

/* Lengths that disagree: LRH PktLen, GRH PayLen. */
static void length_rules(ad_t *a)
{
    gen_t *g = a->g;
    ib_pkt_t p;
    uint32_t f;

    gmp(a, &p, false);
    p.pktlen_adjust = -2;
    f = emit(a, &p);
    gen_note(g, f,
             "length: LRH PktLen 70 words (280 bytes) but LRH..ICRC is 72 words (288 bytes) in "
             "the capture; the MAD that PktLen bounds is then short too (trunc_mad)");

    gmp(a, &p, true);
    p.paylen_adjust = 8;
    f = emit(a, &p);
    gen_note(g, f,
             "length: GRH PayLen 288 but 280 bytes follow the GRH up to the end of the ICRC "
             "(LRH PktLen is right: 82 words)");
}

void story_addressing(gen_t *g)
{
    ad_t a;
    memset(&a, 0, sizeof(a));
    a.g = g;
    host_init(&a.sm, "sm", 0x0001, 0x98039B0300A1B201ull, IP4(10, 0, 0, 1), 0x1);
    host_init(&a.mon, "monitor", 0x0005, 0x98039B0300A1B205ull, IP4(10, 0, 0, 5), 0x5);
    host_init(&a.cl, "client", 0x0011, 0x98039B0300A1B211ull, IP4(10, 0, 0, 11), 0x11);
    host_init(&a.sv, "server1", 0x0012, 0x98039B0300A1B212ull, IP4(10, 0, 0, 12), 0x12);
    clean_frames(&a);

    lid_rules(&a);
    gid_rules(&a);
    vl15_rules(&a);
    header_rules(&a);
    non_iba_rules(&a);
    length_rules(&a);

    gen_note(g, 0,
             "Not covered: the base-LID/LMC rule (needs the SM's LMC) and the link-local "
             "'must not cross a router' rule (not visible in one capture point); IBA states "
             "no hop-limit rule for link-local GIDs, so no frame tests one.");
}
