/* scen_wire.c - the cases of ibscope-gen wire (wire.h), each with the findings
 * the wire audit's contract (wire_contract.md) gives it, named where the
 * case makes them.
 *
 * The hosts are configured as a RoCE fabric usually is (DSCP 26, ECT(0),
 * VLAN priority 3, TTL 64) except for what the case gets wrong; CNPs go out
 * as NICs send them (DSCP 48, Not-ECT, priority 6); PFC frames come from the
 * switch port the capture sits behind.
 */
#include <stdio.h>
#include <string.h>

#include "wire.h"

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (d))
#define ANSWER          6    /* us from a request to its answer */
#define START           1000 /* us: the first request, after the CM exchange */
#define DSCP_ROCE       26
#define DSCP_CNP        48
#define PRIO_ROCE       3
#define PRIO_CNP        6
#define VID             100
#define ECT0            2
#define NOT_ECT         0
#define PFC_XOFF        0xFFFF /* quanta: 335.5 us at 100 Gb/s */
#define PFC_REPEAT_US   300    /* a switch renews a pause before it runs out */

static void wait_us(rc_t *k, uint64_t us)
{
    rc_at(k, rc_now(k) + us);
}

/* What a host's configuration puts on its packets. */
static void settings(host_t *h, uint8_t dscp, uint8_t ecn, uint8_t prio, uint8_t hops)
{
    h->wire.set = true;
    h->wire.tclass = (uint8_t)(dscp << 2 | ecn);
    h->wire.hops = hops;
    h->wire.tagged = true;
    h->wire.tci = (uint16_t)(prio << 13 | VID);
}

/* client A, servers B and C (samples/README.md's conventions), set up right. */
static void hosts(host_t *a, host_t *b, host_t *c)
{
    host_init(a, "client", 0x0011, 0x98039B0300A1B211ull, IP4(10, 0, 0, 11), 0x11);
    host_init(b, "server1", 0x0012, 0x98039B0300A1B212ull, IP4(10, 0, 0, 12), 0x12);
    settings(a, DSCP_ROCE, ECT0, PRIO_ROCE, 64);
    settings(b, DSCP_ROCE, ECT0, PRIO_ROCE, 64);
    if (c) {
        host_init(c, "server2", 0x0013, 0x98039B0300A1B213ull, IP4(10, 0, 0, 13), 0x13);
        settings(c, DSCP_ROCE, ECT0, PRIO_ROCE, 64);
    }
}

/* A connection between a and b set up from now (REQ, REP, RTU), its
 * traffic to start 700 us later. */
static void connect(rc_t *k, rc_conn_t *c, host_t *a, host_t *b, uint16_t sport, uint8_t mtu)
{
    cm_budget_t budget;
    rc_default_budget(&budget);
    budget.mtu = mtu;
    rc_conn_init(k, c, a, b, sport, &budget);
    rc_establish(k, c);
    wait_us(k, 700);
}

/* A SEND of len bytes on qp, acknowledged; its first frame (the ACK in *ack). */
static uint32_t send_acked(rc_t *k, rc_qp_t *qp, uint32_t len, uint32_t *ack)
{
    rc_msg_t m = rc_post(qp, RC_SEND, len);
    uint32_t f = rc_request(k, &m, 0);
    if (m.npsn > 1)
        rc_request_from(k, &m, 1);
    wait_us(k, ANSWER);
    uint32_t a = rc_ack(k, &m);
    if (ack)
        *ack = a;
    wait_us(k, 20);
    return f;
}

/* A SEND of len bytes marked CE on the way, acknowledged; its frame.  The
 * clock stays at the ACK, for a CNP soon after the SEND. */
static uint32_t send_ce(rc_t *k, rc_qp_t *qp, uint32_t len)
{
    rc_msg_t m = rc_post(qp, RC_SEND, len);
    k->g->next.ce = true;
    uint32_t f = rc_request(k, &m, 0);
    wait_us(k, ANSWER);
    rc_ack(k, &m);
    return f;
}

/* Each side's SENDs of len bytes, n each, answered. */
static void exchange(rc_t *k, rc_conn_t *c, int n, uint32_t len)
{
    for (int i = 0; i < n; i++) {
        send_acked(k, &c->ab, len, NULL);
        send_acked(k, &c->ba, len, NULL);
    }
}

/* A CNP as a NIC sends it, whatever the host's data settings. */
static uint32_t cnp(rc_t *k, host_t *from, host_t *to, uint32_t qpn)
{
    host_wire_t keep = from->wire;
    settings(from, DSCP_CNP, NOT_ECT, PRIO_CNP, 64);
    uint32_t f = rc_cnp(k, from, to, qpn);
    from->wire = keep;
    return f;
}

/* An 802.1Qbb PFC frame from the switch: priority prio paused for quanta
 * (0: resumed), the other priorities not named. */
static uint32_t pfc(rc_t *k, unsigned prio, uint16_t quanta)
{
    uint8_t f[60] = { 0x01, 0x80, 0xC2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0xFE };
    put_be16(f + 12, 0x8808);
    put_be16(f + 14, 0x0101);
    put_be16(f + 16, (uint16_t)(1u << prio));
    put_be16(f + 18 + 2 * prio, quanta);
    uint64_t t = rc_now(k);
    uint32_t n = gen_emit_raw(k->g, f, sizeof f, sizeof f);
    if (n <= RC_MAX_FRAMES)
        k->ft[n] = t;
    return n;
}

/* ---- the cases ------------------------------------------------------------ */

/* Everything as it should be: the same class both ways, a CE mark answered
 * by a CNP within the window, a short pause of the RoCE priority. */
static void case_clean(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    rc_conn_t c;
    connect(k, &c, &a, &b, 41001, 3);
    exchange(k, &c, 3, 1024);
    uint32_t f = send_ce(k, &c.ab, 512);
    rc_after(k, f, 20);
    cnp(k, &b, &a, c.ab.rqp);
    wait_us(k, 100);
    pfc(k, PRIO_ROCE, PFC_XOFF);
    wait_us(k, 200);
    pfc(k, PRIO_ROCE, 0);
    wait_us(k, 100);
    exchange(k, &c, 2, 700);
}

static void case_clean_native(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    rc_conn_t c;
    connect(k, &c, &a, &b, 41001, 3);
    exchange(k, &c, 3, 1024);
    exchange(k, &c, 2, 3000); /* three packets each, none over the path MTU */
}

/* The server answers with DSCP 0 (openucx/ucx#10325): its first packet on
 * the queue pair, the client's first SEND's ACK, shows it. */
static void case_asymmetric_dscp(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    settings(&b, 0, ECT0, PRIO_ROCE, 64);
    rc_conn_t c;
    connect(k, &c, &a, &b, 41002, 3);
    uint32_t ack, f = send_acked(k, &c.ab, 512, &ack);
    rc_find(k, ack, "asymmetric_class", f, "qp=0x%06x;field=dscp;value=0;other=%u", c.ab.rqp,
            DSCP_ROCE);
    exchange(k, &c, 3, 800);
}

/* The same on RoCEv1, where DSCP is the GRH traffic class's upper six bits. */
static void case_asymmetric_dscp_rocev1(rc_t *k)
{
    k->g->roce = 1;
    case_asymmetric_dscp(k);
}

/* The server sends on priority 0, the client on the RoCE priority. */
static void case_asymmetric_priority(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    settings(&b, DSCP_ROCE, ECT0, 0, 64);
    rc_conn_t c;
    connect(k, &c, &a, &b, 41003, 3);
    uint32_t ack, f = send_acked(k, &c.ab, 512, &ack);
    rc_find(k, ack, "asymmetric_class", f, "qp=0x%06x;field=priority;value=0;other=%u", c.ab.rqp,
            PRIO_ROCE);
    exchange(k, &c, 3, 800);
}

/* A second client (C) whose RoCE traffic is Not-ECT, beside an ECN-capable
 * queue pair: no switch can mark it, DCQCN never slows it. */
static void case_not_ect(rc_t *k)
{
    host_t a, b, c;
    hosts(&a, &b, &c);
    settings(&c, DSCP_ROCE, NOT_ECT, PRIO_ROCE, 64);
    rc_conn_t ab, cb;
    connect(k, &ab, &a, &b, 41004, 3);
    uint32_t first = send_acked(k, &ab.ab, 512, NULL);
    exchange(k, &ab, 2, 600);
    connect(k, &cb, &c, &b, 41005, 3);
    uint32_t f = send_acked(k, &cb.ab, 512, NULL);
    rc_find(k, f, "not_ect", first, "qp=0x%06x;ecn=Not-ECT", cb.ab.dqp);
    exchange(k, &cb, 2, 600);
    exchange(k, &ab, 1, 600);
}

/* CE marks on the client's SENDs: one answered by a CNP 20 us later, one
 * 80 us later (outside the 50 us window), one never; a CE mark on the
 * server's SEND answered 10 us later. */
static void case_ce_without_cnp(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    rc_conn_t c;
    connect(k, &c, &a, &b, 41006, 3);
    exchange(k, &c, 1, 512);
    uint32_t f = send_ce(k, &c.ab, 512);
    rc_after(k, f, 20);
    cnp(k, &b, &a, c.ab.rqp);
    wait_us(k, 200);
    f = send_ce(k, &c.ab, 512);
    rc_after(k, f, 80);
    uint32_t late = cnp(k, &b, &a, c.ab.rqp);
    rc_find(k, f, "ce_without_cnp", late, "qp=0x%06x;sender_qp=0x%06x;window_us=50", c.ab.dqp,
            c.ab.rqp);
    wait_us(k, 1000);
    f = send_ce(k, &c.ab, 512);
    rc_find(k, f, "ce_without_cnp", 0, "qp=0x%06x;sender_qp=0x%06x;window_us=50", c.ab.dqp,
            c.ab.rqp);
    wait_us(k, 1000);
    f = send_ce(k, &c.ba, 512);
    rc_after(k, f, 10);
    cnp(k, &a, &b, c.ba.rqp);
    wait_us(k, 100);
    exchange(k, &c, 1, 512);
}

/* The client's QP was set to a 2048-byte MTU, the CM announced 1024. */
static void case_mtu_over_path(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    rc_conn_t c;
    connect(k, &c, &a, &b, 41007, 3);
    exchange(k, &c, 1, 1024);
    c.ab.mtu = 2048;
    uint32_t f = send_acked(k, &c.ab, 2048, NULL);
    rc_find(k, f, "mtu_exceeded", c.req_frame, "qp=0x%06x;payload=2048;path_mtu=1024", c.ab.dqp);
    send_acked(k, &c.ab, 4000, NULL); /* over it again: the direction is said once */
    exchange(k, &c, 1, 1024);
}

/* Path MTU 4096 announced where the Ethernet MTU is 1500 (tensorflow#9432):
 * a full packet needs 4156 bytes of Ethernet payload.  Only small messages
 * go, so nothing else is wrong. */
static void case_mtu_over_link(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    rc_conn_t c;
    connect(k, &c, &a, &b, 41008, 5);
    rc_find(k, c.req_frame, "mtu_exceeded", 0, "path_mtu=4096;link_mtu=1500;needed=%u",
            4096 + 20 + 8 + 12 + 16 + 4);
    exchange(k, &c, 3, 1000);
}

/* The client's GID index switches from a RoCEv2 GID to a RoCEv1 one on the
 * same queue pair: its third SEND goes as RoCEv1. */
static void case_roce_version_mix(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    a.wire.v4_mapped_gid = b.wire.v4_mapped_gid = true;
    rc_conn_t c;
    connect(k, &c, &a, &b, 41009, 3);
    uint32_t first = send_acked(k, &c.ab, 512, NULL);
    send_acked(k, &c.ab, 512, NULL);
    k->g->next.roce = 1;
    uint32_t f = send_acked(k, &c.ab, 512, NULL);
    rc_find(k, f, "roce_version_mix", first, "qp=0x%06x;version=1;other=2", c.ab.dqp);
    k->g->next.roce = 1;
    send_acked(k, &c.ab, 512, NULL);
    exchange(k, &c, 1, 512);
}

/* Link-local GIDs across routers: the client's packets arrive with hop
 * limit 62, two routers on; the server's with 64.  No CM in the capture. */
static void link_local_routed(rc_t *k, bool native)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    static const uint8_t a6[16] = {
        0xFE, 0x80, [8] = 0x9A, 0x03, 0x9B, 0xFF, 0xFE, 0xA1, 0xB2, 0x11
    };
    static const uint8_t b6[16] = {
        0xFE, 0x80, [8] = 0x9A, 0x03, 0x9B, 0xFF, 0xFE, 0xA1, 0xB2, 0x12
    };
    memcpy(a.ip6, a6, 16);
    memcpy(b.ip6, b6, 16);
    a.wire.ipv6 = b.wire.ipv6 = a.wire.grh = b.wire.grh = true;
    a.wire.hops = 62;
    rc_qp_t ab, ba;
    rc_qp_nocm(k, &ab, &a, &b, 1024);
    rc_qp_nocm(k, &ba, &b, &a, 1024);
    ba.dqp = ab.rqp;
    ba.rqp = ab.dqp;
    rc_at(k, START);
    uint32_t f = send_acked(k, &ab, 512, NULL);
    rc_find(k, f, "link_local_gid_routed", 0, "gid_kind=link-local;hop_limit=62");
    send_acked(k, &ba, 512, NULL);
    send_acked(k, &ab, native ? 2048 : 1024, NULL); /* native: two packets */
}

static void case_link_local_routed(rc_t *k)
{
    link_local_routed(k, false);
}

static void case_link_local_routed_native(rc_t *k)
{
    link_local_routed(k, true);
}

/* RoCEv1 with IPv4-mapped GIDs (a RoCEv1 GID of an IPv4 address), one
 * router on: RoCEv1 is not routable. */
static void case_ipv4_mapped_routed(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    a.wire.v4_mapped_gid = b.wire.v4_mapped_gid = true;
    a.wire.hops = 63;
    k->g->roce = 1;
    rc_qp_t ab, ba;
    rc_qp_nocm(k, &ab, &a, &b, 1024);
    rc_qp_nocm(k, &ba, &b, &a, 1024);
    ba.dqp = ab.rqp;
    ba.rqp = ab.dqp;
    rc_at(k, START);
    uint32_t f = send_acked(k, &ab, 512, NULL);
    rc_find(k, f, "link_local_gid_routed", 0, "gid_kind=IPv4-mapped;hop_limit=63");
    send_acked(k, &ba, 512, NULL);
    send_acked(k, &ab, 512, NULL);
}

/* The RoCE priority paused for 150 ms by XOFFs renewed every 300 us (a
 * storm from 100 ms on), and priority 5 for 10 ms in the middle of it. */
static void case_pfc_storm(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    rc_conn_t c;
    connect(k, &c, &a, &b, 41010, 3);
    exchange(k, &c, 2, 1024);
    uint64_t t0 = rc_now(k) + 100;
    uint32_t first = 0;
    bool found = false;
    for (uint64_t t = 0; t < 150000; t += PFC_REPEAT_US) {
        rc_at(k, t0 + t);
        uint32_t f = pfc(k, PRIO_ROCE, PFC_XOFF);
        first = first ? first : f;
        if (t >= 100000 && !found) {
            rc_find(k, f, "pfc_storm", first, "priority=%u;paused_us=%llu;roce=yes", PRIO_ROCE,
                    (unsigned long long)t);
            found = true;
        }
        if (t >= 20000 && t <= 30000)
            pfc(k, 5, t < 30000 ? PFC_XOFF : 0);
    }
    rc_at(k, t0 + 150000);
    pfc(k, PRIO_ROCE, 0);
    wait_us(k, 50);
    exchange(k, &c, 2, 1024);
}

const rc_case_t wire_cases_roce[] = {
    { "clean", "the same class both ways, a CE mark answered in time, a short pause", case_clean },
    { "asymmetric_dscp", "the server answers with DSCP 0, the client sends DSCP 26",
      case_asymmetric_dscp },
    { "asymmetric_dscp_rocev1", "the same on RoCEv1: the GRH traffic class's DSCP",
      case_asymmetric_dscp_rocev1 },
    { "asymmetric_priority", "the server sends on VLAN priority 0, the client on 3",
      case_asymmetric_priority },
    { "not_ect", "a client's traffic Not-ECT beside an ECN-capable queue pair", case_not_ect },
    { "ce_without_cnp", "CE marks answered by a CNP in 20 us, in 80 us, and never",
      case_ce_without_cnp },
    { "mtu_over_path", "2048-byte payloads where the CM announced a 1024-byte path MTU",
      case_mtu_over_path },
    { "mtu_over_link", "path MTU 4096 announced on a 1500-byte Ethernet link", case_mtu_over_link },
    { "roce_version_mix", "a queue pair's SENDs as RoCEv2, then as RoCEv1", case_roce_version_mix },
    { "link_local_routed", "RoCEv2 between link-local IPv6 addresses, two routers on",
      case_link_local_routed },
    { "ipv4_mapped_routed", "RoCEv1 with IPv4-mapped GIDs, one router on",
      case_ipv4_mapped_routed },
    { "pfc_storm", "the RoCE priority paused 150 ms by PFC, priority 5 for 10 ms", case_pfc_storm },
};
const size_t n_wire_cases_roce = sizeof wire_cases_roce / sizeof wire_cases_roce[0];

const rc_case_t wire_cases_native[] = {
    { "clean", "the same settings both ways, payloads within the path MTU", case_clean_native },
    { "mtu_over_path", "2048-byte payloads where the CM announced a 1024-byte path MTU",
      case_mtu_over_path },
    { "link_local_routed", "GRHs between link-local GIDs, two routers on",
      case_link_local_routed_native },
};
const size_t n_wire_cases_native = sizeof wire_cases_native / sizeof wire_cases_native[0];

int wire_write(const char *outdir, link_t link)
{
    if (link == LINK_ETH)
        return rc_write_cases(outdir, link, wire_cases_roce, n_wire_cases_roce, 0x5C0038ull);
    return rc_write_cases(outdir, link, wire_cases_native, n_wire_cases_native, 0x5C0038ull);
}
