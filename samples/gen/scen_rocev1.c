/* scen_rocev1.c - rdma_cm over RoCEv1: Ethernet, ethertype 0x8915, GRH first.
 * One connection with link-local GIDs built from the MACs (EUI-64), one with
 * IPv4-mapped GIDs (::ffff:a.b.c.d), as RoCE stacks with IP-based GIDs use. */
#include <string.h>

#include "cm_flow.h"
#include "scenarios.h"

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (d))

static void gid_from_mac(uint8_t gid[16], const uint8_t mac[6])
{
    memset(gid, 0, 16);
    gid[0] = 0xFE;
    gid[1] = 0x80;
    gid[8] = (uint8_t)(mac[0] ^ 0x02);
    gid[9] = mac[1];
    gid[10] = mac[2];
    gid[11] = 0xFF;
    gid[12] = 0xFE;
    gid[13] = mac[3];
    gid[14] = mac[4];
    gid[15] = mac[5];
}

void story_rocev1(gen_t *g)
{
    host_t cl, sv;
    host_init(&cl, "client", 0x0011, 0x98039B0300A1B211ull, IP4(10, 0, 0, 11), 0x11);
    host_init(&sv, "server1", 0x0012, 0x98039B0300A1B212ull, IP4(10, 0, 0, 12), 0x12);
    gid_from_mac(cl.gid, cl.mac);
    gid_from_mac(sv.gid, sv.mac);
    char t[128];
    uint32_t f;

    cm_conn_t r1;
    cm_conn_init(g, &r1, &cl, &sv, RDMA_PS_TCP, 45001, 7471, false);
    r1.name = "R1";
    f = cm_req(g, &r1);
    gen_note(g, f,
             "REQ, connection R1 over RoCEv1: %s; GRH SGID/DGID are link-local GIDs from the "
             "MACs (fe80::9a03:9bff:fea1:b211 -> fe80::9a03:9bff:fea1:b212); REQ LIDs 0xFFFF",
             cm_conn_tuple(&r1, t, sizeof(t)));
    cm_rep(g, &r1);
    f = cm_rtu(g, &r1);
    gen_note(g, f, "RTU: R1 established");

    host_t cl4 = cl, sv4 = sv;
    gid_v4_mapped(cl4.gid, cl.ip4);
    gid_v4_mapped(sv4.gid, sv.ip4);
    cm_conn_t r2;
    cm_conn_init(g, &r2, &cl4, &sv4, RDMA_PS_TCP, 45002, 7471, false);
    r2.name = "R2";
    f = cm_req(g, &r2);
    gen_note(g, f,
             "REQ, connection R2 over RoCEv1: %s; GRH GIDs are IPv4-mapped (::ffff:10.0.0.11 -> "
             "::ffff:10.0.0.12)",
             cm_conn_tuple(&r2, t, sizeof(t)));
    cm_rep(g, &r2);
    f = cm_rtu(g, &r2);
    gen_note(g, f, "RTU: R2 established");

    gen_wait(g, 250000);
    f = cm_dreq(g, &r1, true);
    gen_note(g, f, "DREQ: R1 closing");
    f = cm_drep(g, &r1, false);
    gen_note(g, f, "DREP: R1 closed; R2 stays open to the end");
}
