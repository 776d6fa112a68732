/* scen_fabric.c - the exchanges of ibscope-gen fabric: two and three hosts
 * captured on each, through a router, with clock offsets, losses in each
 * direction, retransmissions after them, and a capture that starts late. */
#include <stdio.h>
#include <string.h>

#include "cm_flow.h"
#include "fabric.h"
#include "scen_fabric.h"

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (d))
#define RETRY_US        20000  /* a CM response timeout, as ib_cm might have it */
#define QUIET_US        200000 /* every capture runs this long past the last loss */

/* REQ, REP, RTU; lose: 'q' the first REQ, 'p' the first REP (the client
 * then sends the REQ again, and the server answers it again). */
static void fab_connect(gen_t *g, fabric_t *f, cm_conn_t *c, char lose)
{
    if (lose == 'q')
        fabric_lose_next(f, "REQ");
    cm_req(g, c);
    if (lose == 'q') {
        gen_wait(g, RETRY_US);
        cm_req(g, c);
    }
    if (lose == 'p')
        fabric_lose_next(f, "REP");
    cm_rep(g, c);
    if (lose == 'p') {
        gen_wait(g, RETRY_US);
        cm_req(g, c);
        cm_rep(g, c);
    }
    cm_rtu(g, c);
    gen_wait(g, 1000);
}

/* DREQ from the client, DREP; lose 'd': the first DREP. */
static void disconnect(gen_t *g, fabric_t *f, cm_conn_t *c, char lose)
{
    cm_dreq(g, c, true);
    if (lose == 'd')
        fabric_lose_next(f, "DREP");
    cm_drep(g, c, false);
    if (lose == 'd') {
        gen_wait(g, RETRY_US);
        cm_dreq(g, c, true);
        cm_drep(g, c, false);
    }
    gen_wait(g, 500);
}

#define TWO_CONNS 20

/* Client A, server B (clock 3.2 ms ahead): 20 connections, connection 7
 * takes connection 3's source port to another service (port_reused); the
 * REP of connection 5 and the REQ of connection 12 are lost. */
int story_fabric_two(gen_t *g, const char *outdir)
{
    host_t a, b;
    host_init(&a, "A", 0x11, 0x0002c90300001111ull, IP4(10, 0, 0, 11), 0x11);
    host_init(&b, "B", 0x12, 0x0002c90300001212ull, IP4(10, 0, 1, 12), 0x12);
    host_t *hosts[] = { &a, &b };
    const int64_t offsets[] = { 0, 3200 };
    const uint64_t starts[] = { 0, 0 };
    fabric_t f;
    if (fabric_open(&f, g, outdir, hosts, offsets, starts, 2) != 0)
        return -1;
    static cm_conn_t c[TWO_CONNS];
    for (int i = 0; i < TWO_CONNS; i++) {
        uint16_t sport = (uint16_t)(i == 7 ? 40003 : 40000 + i);
        cm_conn_init(g, &c[i], &a, &b, RDMA_PS_TCP, sport, i == 7 ? 7472 : 7471, false);
        fab_connect(g, &f, &c[i], i == 5 ? 'p' : i == 12 ? 'q' : 0);
    }
    gen_wait(g, QUIET_US);
    for (int i = 0; i < TWO_CONNS / 2; i++)
        disconnect(g, &f, &c[i], 0);
    return fabric_close(&f, outdir, TWO_CONNS);
}

#define THREE_CONNS 16

/* Client A; servers B (3.2 ms ahead) and C (1.7 ms behind, its capture
 * starting 30 ms in: connections 1 and 3 are on A's capture only).  Lost:
 * A -> B the REQ of connection 6, C -> A the REP of connection 9, A -> C
 * the REQ of connection 11, B -> A the first DREP of connection 4. */
int story_fabric_three(gen_t *g, const char *outdir)
{
    host_t a, b, c3;
    host_init(&a, "A", 0x11, 0x0002c90300001111ull, IP4(10, 0, 0, 11), 0x11);
    host_init(&b, "B", 0x12, 0x0002c90300001212ull, IP4(10, 0, 1, 12), 0x12);
    host_init(&c3, "C", 0x13, 0x0002c90300001313ull, IP4(10, 0, 2, 13), 0x13);
    host_t *hosts[] = { &a, &b, &c3 };
    const int64_t offsets[] = { 0, 3200, -1700 };
    const uint64_t starts[] = { 0, 0, GEN_EPOCH_US + 30000 };
    fabric_t f;
    if (fabric_open(&f, g, outdir, hosts, offsets, starts, 3) != 0)
        return -1;
    static cm_conn_t c[THREE_CONNS + 1];
    for (int i = 0; i < THREE_CONNS; i++) {
        if (i == 4)
            gen_wait(g, 40000);
        cm_conn_init(g, &c[i], &a, i % 2 ? &c3 : &b, RDMA_PS_TCP, (uint16_t)(40000 + i), 7471,
                     false);
        fab_connect(g, &f, &c[i], i == 6 ? 'q' : i == 9 ? 'p' : i == 11 ? 'q' : 0);
    }
    gen_wait(g, QUIET_US);
    for (int i = 4; i < THREE_CONNS; i++)
        disconnect(g, &f, &c[i], i == 4 ? 'd' : 0);
    gen_wait(g, QUIET_US);
    /* the last: every capture runs on past the DREP lost above */
    cm_conn_init(g, &c[THREE_CONNS], &a, &b, RDMA_PS_TCP, 40100, 7471, false);
    fab_connect(g, &f, &c[THREE_CONNS], 0);
    cm_conn_init(g, &c[0], &a, &c3, RDMA_PS_TCP, 40101, 7471, false);
    fab_connect(g, &f, &c[0], 0);
    return fabric_close(&f, outdir, THREE_CONNS + 2);
}
