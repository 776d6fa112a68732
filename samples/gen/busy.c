/* busy.c - many connections open at once (see busy.h).
 *
 * Each new connection goes from a source drawn at random to a server drawn
 * at random, on a source port drawn at random among the ports of the pool
 * that source has free (a source's ports are distinct, whatever the
 * server).  Once `open` connections are open, a random open one is closed
 * (DREQ/DREP) before each new one, so the open set stays that size and the
 * analyzer's tables stay that full.  Memory: a bit per pool port per source
 * and a record per open connection.
 */
#include "busy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_flow.h"

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (d))

void busy_defaults(busy_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->pool_lo = 32768;
    o->pool_hi = 60999;
    o->sources = 50;
    o->servers = 4;
    o->open = 10000;
    o->connections = 200000;
    o->link = LINK_ETH;
    o->seed = 1;
    o->gap_us = 10;
}

const char *busy_check(const busy_opts_t *o)
{
    uint64_t pool = (uint64_t)o->pool_hi - o->pool_lo + 1;
    if (o->open < 1 || o->open > pool * o->sources / 4)
        return "--open wants 1 to a quarter of the ports of all sources' pools";
    return NULL;
}

typedef struct open_conn {
    uint32_t src, dst, port;
    uint32_t act_id, pas_id, act_qpn, pas_qpn;
} open_conn_t;

int busy_run(gen_t *g, const busy_opts_t *o, busy_result_t *res)
{
    memset(res, 0, sizeof(*res));
    prng_seed(&g->rng, o->seed);
    g->fallback_notes = false;
    uint32_t pool = (uint32_t)o->pool_hi - o->pool_lo + 1, words = (pool + 63) / 64;
    host_t *src = calloc(o->sources, sizeof(*src)), *dst = calloc(o->servers, sizeof(*dst));
    uint64_t *used = calloc((size_t)o->sources * words, sizeof(uint64_t));
    uint32_t *held = calloc(o->sources, sizeof(uint32_t)); /* ports in use per source */
    open_conn_t *open = calloc(o->open ? o->open : 1, sizeof(*open));
    if (!src || !dst || !used || !held || !open) {
        fprintf(stderr, "ibscope-gen: out of memory\n");
        exit(1);
    }
    for (uint32_t i = 0; i < o->sources; i++)
        host_init(&src[i], "client", (uint16_t)(0x100 + i), 0x98039B0300C10000ull + i,
                  IP4(10, 1, i >> 8, i & 0xFF), (uint16_t)(0x100 + i));
    for (uint32_t j = 0; j < o->servers; j++)
        host_init(&dst[j], "server", (uint16_t)(0x8000 + j), 0x98039B0300C20000ull + j,
                  IP4(10, 2, 0, j + 1), (uint16_t)(0x8000 + j));
    uint64_t nopen = 0;
    for (uint64_t k = 0; k < o->connections; k++) {
        if (nopen == o->open && nopen) {
            uint64_t at = prng_below(&g->rng, (uint32_t)nopen);
            open_conn_t *oc = &open[at];
            cm_conn_t c;
            memset(&c, 0, sizeof(c));
            c.act = &src[oc->src];
            c.pas = &dst[oc->dst];
            c.act_id = oc->act_id;
            c.pas_id = oc->pas_id;
            c.act_qpn = oc->act_qpn;
            c.pas_qpn = oc->pas_qpn;
            cm_dreq(g, &c, true);
            cm_drep(g, &c, false);
            used[(size_t)oc->src * words + oc->port / 64] &= ~(1ull << (oc->port % 64));
            held[oc->src]--;
            *oc = open[--nopen];
            res->closed++;
        }
        /* A source with half its pool (rounded up) in use is passed over,
         * so a free port is found in a few draws; --open allows no more
         * than a quarter of all ports, so some source always has room. */
        uint32_t s, d = prng_below(&g->rng, o->servers), port;
        do
            s = prng_below(&g->rng, o->sources);
        while (held[s] >= (pool + 1) / 2);
        uint64_t *bits = used + (size_t)s * words;
        do
            port = prng_below(&g->rng, pool);
        while (bits[port / 64] & (1ull << (port % 64)));
        bits[port / 64] |= 1ull << (port % 64);
        held[s]++;
        cm_conn_t c;
        cm_conn_init(g, &c, &src[s], &dst[d], RDMA_PS_TCP, (uint16_t)(o->pool_lo + port), 7471,
                     false);
        cm_req(g, &c);
        cm_rep(g, &c);
        cm_rtu(g, &c);
        res->established++;
        open[nopen++] = (open_conn_t){ s, d, port, c.act_id, c.pas_id, c.act_qpn, c.pas_qpn };
        if (nopen > res->max_open)
            res->max_open = nopen;
        gen_wait(g, o->gap_us);
    }
    free(src);
    free(dst);
    free(used);
    free(held);
    free(open);
    return 0;
}
