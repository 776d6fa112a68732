/* trend.c - one source's ports in use following a shape (see trend.h).
 *
 * Source 10.0.1.1 (LID 0x0101) connects to 10.0.2.1:7471 (LID 0x0201), port
 * space TCP, REQ/REP/RTU per connection, DREQ/DREP to close one, frames
 * 120 us apart.  The connections opened before the first step (--start)
 * come first, one every 360 us; then step i (from 0) begins at
 * start * 360 us + i * period after 2026-01-01T00:00:00Z, or when the step
 * before it has sent its last frame if that is later.  Ports are taken
 * upward from the last one handed out, wrapping round, skipping those in
 * use: with one destination a port in use is never shared, so both of
 * ibscope's models count the same.  A connection that finds the pool full
 * sends nothing (counted as failed).
 */
#include "trend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_flow.h"

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (d))
#define CONN_US         360 /* REQ, REP, RTU */

void trend_defaults(trend_opts_t *o, trend_shape_t shape)
{
    memset(o, 0, sizeof(*o));
    o->shape = shape;
    o->pool_lo = 40000;
    o->pool_hi = 40999;
    o->start = TREND_UNSET;
    o->steps = 0;
    o->period_us = 200000;
    o->burst = TREND_UNSET;
    o->every = 300;
    o->hold = TREND_UNSET;
    o->link = LINK_ERF;
    o->seed = 1;
}

void trend_resolve(trend_opts_t *o)
{
    uint32_t pool = (uint32_t)o->pool_hi - o->pool_lo + 1;
    if (o->start == TREND_UNSET)
        o->start = o->shape == TREND_RAMP ? 0 : o->shape == TREND_SHRINK ? pool / 2 : pool / 4;
    if (o->burst == TREND_UNSET)
        o->burst = pool / 4;
    if (o->hold == TREND_UNSET)
        o->hold = o->shape == TREND_BURST ? 50 : 0;
    if (o->steps == 0)
        o->steps = o->shape == TREND_RAMP     ? (o->start < pool ? pool - o->start : 1)
                   : o->shape == TREND_SHRINK ? (o->start ? o->start : 1)
                                              : 1000;
}

const char *trend_check(const trend_opts_t *o)
{
    uint32_t pool = (uint32_t)o->pool_hi - o->pool_lo + 1;
    if (o->start > pool)
        return "--start wants at most the pool's size";
    if (o->shape == TREND_BURST && (uint64_t)o->start + o->burst > pool)
        return "--start and --burst together want at most the pool's size";
    if (o->shape == TREND_BURST && (o->every == 0 || o->hold == 0 || o->hold >= o->every))
        return "burst: --hold wants 1 to --every - 1 steps";
    if ((o->shape == TREND_FLAT || o->shape == TREND_SHRINK) && o->hold)
        return "--hold is for ramp and burst";
    if (o->shape == TREND_FLAT && o->start == 0)
        return "flat wants --start 1 or more: a step closes a connection first";
    return NULL;
}

/* An open connection: what its DREQ and DREP need. */
typedef struct trend_conn {
    uint32_t port, act_id, pas_id, act_qpn, pas_qpn;
} trend_conn_t;

typedef struct trend_state {
    gen_t *g;
    const trend_opts_t *o;
    trend_result_t *res;
    host_t cl, sv;
    uint32_t pool, rover, in_use;
    uint8_t *used;      /* a byte per pool port */
    trend_conn_t *fifo; /* the steady connections, oldest first (a ring) */
    uint32_t head, count;
    trend_conn_t *burst; /* the open burst's connections */
    uint32_t nburst;
} trend_state_t;

/* Opens a connection on the next free port; false when the pool is full. */
static bool open_one(trend_state_t *st, trend_conn_t *out)
{
    if (st->in_use == st->pool) {
        st->res->failed++;
        return false;
    }
    while (st->used[st->rover])
        st->rover = (st->rover + 1) % st->pool;
    uint32_t port = st->rover;
    st->rover = (st->rover + 1) % st->pool;
    st->used[port] = 1;
    st->in_use++;
    cm_conn_t c;
    cm_conn_init(st->g, &c, &st->cl, &st->sv, RDMA_PS_TCP, (uint16_t)(st->o->pool_lo + port), 7471,
                 false);
    cm_req(st->g, &c);
    cm_rep(st->g, &c);
    cm_rtu(st->g, &c);
    *out = (trend_conn_t){ port, c.act_id, c.pas_id, c.act_qpn, c.pas_qpn };
    st->res->opened++;
    if (st->in_use > st->res->max_in_use)
        st->res->max_in_use = st->in_use;
    return true;
}

static void close_one(trend_state_t *st, const trend_conn_t *t)
{
    cm_conn_t c;
    memset(&c, 0, sizeof(c));
    c.act = &st->cl;
    c.pas = &st->sv;
    c.act_id = t->act_id;
    c.pas_id = t->pas_id;
    c.act_qpn = t->act_qpn;
    c.pas_qpn = t->pas_qpn;
    cm_dreq(st->g, &c, true);
    cm_drep(st->g, &c, false);
    st->used[t->port] = 0;
    st->in_use--;
    st->res->closed++;
}

static void push_steady(trend_state_t *st)
{
    trend_conn_t t;
    if (open_one(st, &t))
        st->fifo[(st->head + st->count++) % st->pool] = t;
}

static void close_oldest(trend_state_t *st)
{
    if (st->count == 0)
        return;
    close_one(st, &st->fifo[st->head]);
    st->head = (st->head + 1) % st->pool;
    st->count--;
}

/* Step i of the shape. */
static void step(trend_state_t *st, uint64_t i)
{
    const trend_opts_t *o = st->o;
    switch (o->shape) {
    case TREND_RAMP: /* every --every steps, --hold steps without one */
        if (i % ((uint64_t)o->every + o->hold) < o->every)
            push_steady(st);
        return;
    case TREND_SHRINK: close_oldest(st); return;
    case TREND_FLAT:
    case TREND_BURST:
        close_oldest(st);
        push_steady(st);
        break;
    }
    if (o->shape != TREND_BURST || i < o->every)
        return;
    if (i % o->every == 0 && st->nburst == 0) {
        for (uint32_t k = 0; k < o->burst; k++)
            if (open_one(st, &st->burst[st->nburst]))
                st->nburst++;
    } else if (i % o->every == o->hold) {
        for (uint32_t k = 0; k < st->nburst; k++)
            close_one(st, &st->burst[k]);
        st->nburst = 0;
    }
}

int trend_run(gen_t *g, const trend_opts_t *o, trend_result_t *res)
{
    memset(res, 0, sizeof(*res));
    prng_seed(&g->rng, o->seed);
    g->fallback_notes = false;
    trend_state_t st;
    memset(&st, 0, sizeof(st));
    st.g = g;
    st.o = o;
    st.res = res;
    st.pool = (uint32_t)o->pool_hi - o->pool_lo + 1;
    st.used = calloc(st.pool, 1);
    st.fifo = calloc(st.pool, sizeof(*st.fifo));
    st.burst = calloc(o->burst ? o->burst : 1, sizeof(*st.burst));
    if (!st.used || !st.fifo || !st.burst) {
        fprintf(stderr, "ibscope-gen: out of memory\n");
        exit(1);
    }
    host_init(&st.cl, "client", 0x0101, 0x98039B0300C10101ull, IP4(10, 0, 1, 1), 0x101);
    host_init(&st.sv, "server", 0x0201, 0x98039B0300C20201ull, IP4(10, 0, 2, 1), 0x201);
    for (uint32_t k = 0; k < o->start; k++)
        push_steady(&st);
    uint64_t steps = o->steps;
    uint64_t first = GEN_EPOCH_US + (uint64_t)o->start * CONN_US;
    for (uint64_t i = 0; i < steps; i++) {
        uint64_t at = first + i * o->period_us;
        if (g->t_us < at)
            gen_wait(g, at - g->t_us);
        step(&st, i);
    }
    free(st.used);
    free(st.fifo);
    free(st.burst);
    return 0;
}
