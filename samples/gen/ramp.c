/* ramp.c - port-pool ramp (see ramp.h).
 *
 * Port choice follows Linux cma_alloc_any_port(): start at a random port of the
 * pool, walk upward with wrap-around, skip the last port handed out, and take
 * the first port not in use.  Every connection goes to the same destination
 * (address and port), so under the 4-tuple rule a port in use is never
 * reusable: when no port is free the attempt fails with EADDRNOTAVAIL and
 * nothing is sent.  Memory is bounded by the pool size (at most 65,535 ports);
 * frames are streamed to the sink.
 */
#include "ramp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_flow.h"
#include "scenarios.h"

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (d))

void ramp_defaults(ramp_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->pool_lo = 32768;
    o->pool_hi = 60999;
    o->connections = 28232;
    o->link = LINK_ERF;
    o->seed = 1;
    o->disconnect_pct = 0;
    o->gap_us = 1000;
}

typedef struct pool {
    uint32_t n;
    uint64_t *bits; /* 1 = in use */
    uint32_t *act_id, *pas_id, *pas_qpn, *act_qpn;
    uint32_t *open; /* indexes of ports in use */
    uint32_t *pos;  /* index -> position in open[] */
    uint32_t nopen;
} pool_t;

/* First free index >= from (no wrap); n if none. */
static uint32_t next_free(const pool_t *p, uint32_t from)
{
    uint32_t w = from >> 6;
    uint32_t nw = (p->n + 63) >> 6;
    if (from >= p->n)
        return p->n;
    uint64_t m = ~p->bits[w] & (~0ull << (from & 63));
    for (;;) {
        if (m) {
            uint32_t i = (w << 6) + (uint32_t)__builtin_ctzll(m);
            return i < p->n ? i : p->n;
        }
        if (++w >= nw)
            return p->n;
        m = ~p->bits[w];
    }
}

/* cma_alloc_any_port: returns an index or -1 (EADDRNOTAVAIL). */
static int64_t alloc_port(pool_t *p, uint32_t rover, int64_t last)
{
    /* walk rover..n-1, then 0..rover-1, skipping `last` */
    uint32_t i = next_free(p, rover);
    if (i < p->n && (int64_t)i == last)
        i = next_free(p, i + 1);
    if (i < p->n)
        return i;
    i = next_free(p, 0);
    if ((int64_t)i == last)
        i = next_free(p, i + 1);
    if (i < rover && i < p->n)
        return i;
    return -1;
}

static void take(pool_t *p, uint32_t i)
{
    p->bits[i >> 6] |= 1ull << (i & 63);
    p->pos[i] = p->nopen;
    p->open[p->nopen++] = i;
}

static void release(pool_t *p, uint32_t i)
{
    p->bits[i >> 6] &= ~(1ull << (i & 63));
    uint32_t at = p->pos[i], last = p->open[--p->nopen];
    p->open[at] = last;
    p->pos[last] = at;
}

static void pool_init(pool_t *p, uint32_t n)
{
    memset(p, 0, sizeof(*p));
    p->n = n;
    p->bits = calloc((n + 63) / 64, sizeof(uint64_t));
    p->act_id = calloc(n, sizeof(uint32_t));
    p->pas_id = calloc(n, sizeof(uint32_t));
    p->pas_qpn = calloc(n, sizeof(uint32_t));
    p->act_qpn = calloc(n, sizeof(uint32_t));
    p->open = calloc(n, sizeof(uint32_t));
    p->pos = calloc(n, sizeof(uint32_t));
    if (!p->bits || !p->act_id || !p->pas_id || !p->pas_qpn || !p->act_qpn || !p->open || !p->pos) {
        fprintf(stderr, "ibscope-gen: out of memory\n");
        exit(1);
    }
}

static void pool_free(pool_t *p)
{
    free(p->bits);
    free(p->act_id);
    free(p->pas_id);
    free(p->pas_qpn);
    free(p->act_qpn);
    free(p->open);
    free(p->pos);
}

/* The notes of one established connection: the first REQ, and the RTUs at
 * which the pool passes half, 90 % and full. */
static void note_milestones(gen_t *g, const ramp_opts_t *o, const pool_t *p, const cm_conn_t *c,
                            uint32_t freq, uint32_t frtu, bool first, int *next_mark)
{
    uint32_t marks[3] = { p->n / 2, (p->n * 9 + 9) / 10, p->n };
    if (first)
        gen_note(g, freq,
                 "REQ of the first connection: source "
                 "10.0.1.1:%u -> 10.0.2.1:7471 (port space TCP)",
                 c->sport);
    while (*next_mark < 3 && p->nopen >= marks[*next_mark]) {
        gen_note(g, frtu,
                 "RTU: %u of %u pool ports (%u-%u) in use (%u%%), all by "
                 "10.0.1.1 to 10.0.2.1:7471%s",
                 p->nopen, p->n, o->pool_lo, o->pool_hi,
                 (unsigned)((uint64_t)p->nopen * 100 / p->n),
                 p->nopen == p->n ? ": pool exhausted, the next attempt would fail "
                                    "with EADDRNOTAVAIL"
                                  : "");
        (*next_mark)++;
    }
}

/* Connects on pool index i: REQ, REP, RTU; the port is then held. */
static void ramp_connect(gen_t *g, const ramp_opts_t *o, pool_t *p, uint32_t i, host_t *cl,
                         host_t *sv, ramp_result_t *res, bool first, int *next_mark)
{
    take(p, i);
    cm_conn_t c;
    cm_conn_init(g, &c, cl, sv, RDMA_PS_TCP, (uint16_t)(o->pool_lo + i), 7471, false);
    p->act_id[i] = c.act_id;
    p->pas_id[i] = c.pas_id;
    p->act_qpn[i] = c.act_qpn;
    p->pas_qpn[i] = c.pas_qpn;
    uint32_t freq = cm_req(g, &c);
    cm_rep(g, &c);
    uint32_t frtu = cm_rtu(g, &c);
    res->established++;
    if (p->nopen > res->max_in_use)
        res->max_in_use = p->nopen;
    note_milestones(g, o, p, &c, freq, frtu, first, next_mark);
    if (p->nopen == p->n && !res->first_full_frame)
        res->first_full_frame = frtu;
}

/* Disconnects a connection picked at random: DREQ, DREP; its port is free. */
static void ramp_disconnect(gen_t *g, pool_t *p, host_t *cl, host_t *sv, ramp_result_t *res)
{
    uint32_t i = p->open[prng_below(&g->rng, p->nopen)];
    cm_conn_t c;
    memset(&c, 0, sizeof(c));
    c.act = cl;
    c.pas = sv;
    c.act_id = p->act_id[i];
    c.pas_id = p->pas_id[i];
    c.act_qpn = p->act_qpn[i];
    c.pas_qpn = p->pas_qpn[i];
    cm_dreq(g, &c, true);
    cm_drep(g, &c, false);
    release(p, i);
    res->closed++;
}

int ramp_run(gen_t *g, const ramp_opts_t *o, ramp_result_t *res)
{
    memset(res, 0, sizeof(*res));
    prng_seed(&g->rng, o->seed);
    g->fallback_notes = false; /* one note per milestone, not per frame */

    pool_t p;
    pool_init(&p, (uint32_t)o->pool_hi - o->pool_lo + 1);
    host_t cl, sv;
    host_init(&cl, "client", 0x0101, 0x98039B0300C10101ull, IP4(10, 0, 1, 1), 0x101);
    host_init(&sv, "server", 0x0201, 0x98039B0300C20201ull, IP4(10, 0, 2, 1), 0x201);

    int64_t last = -1;
    int next_mark = 0;
    for (uint64_t k = 0; k < o->connections; k++) {
        uint32_t rover = prng_below(&g->rng, p.n);
        int64_t idx = alloc_port(&p, rover, last);
        if (idx < 0) {
            res->failed++;
        } else {
            last = idx;
            ramp_connect(g, o, &p, (uint32_t)idx, &cl, &sv, res, k == 0, &next_mark);
        }
        if (o->disconnect_pct && p.nopen && prng_below(&g->rng, 100) < o->disconnect_pct)
            ramp_disconnect(g, &p, &cl, &sv, res);
        gen_wait(g, o->gap_us);
    }
    pool_free(&p);
    return 0;
}

void story_port_ramp_small(gen_t *g)
{
    ramp_opts_t o;
    ramp_defaults(&o);
    o.pool_lo = 40000;
    o.pool_hi = 40255;
    o.connections = 256;
    o.link = g->link;
    ramp_result_t r;
    ramp_run(g, &o, &r);
    gen_note(g, 0,
             "Connection k (k = 1..256) is frames 3k-2 (REQ), 3k-1 (REP), 3k (RTU); none is "
             "closed. Ports are taken in the order Linux cma_alloc_any_port() would (random "
             "start, walk up, skip the last port handed out). The same bytes come from "
             "`ibscope-gen ramp --pool 40000-40255 --connections 256 --linktype 197 --seed 1 "
             "OUT`. A port is in use from its REQ (the wire shows nothing earlier), so "
             "analyzed with --pool 40000-40255 the ports in use reach 90%% (231 of 256, "
             "the default --threshold) at frame %u and 100%% at frame %u, the REQs of "
             "connections 231 and 256.",
             3u * 231 - 2, r.first_full_frame - 2);
}
