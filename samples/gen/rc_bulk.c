/* rc_bulk.c - ibscope-gen rc-bulk (see rc_bulk.h).
 *
 * Connection i goes from client i % 64 to server (i / 64) % 16, each set up
 * by REQ/REP/RTU with rc.c's budget (path MTU 1024); the QPNs are numbered
 * per host and the communication IDs per connection, so that no two queue
 * pairs share a key however many there are.  One in 64 starts its PSNs just
 * below 0xFFFFFF, so that the wrap is on the hot path too.
 *
 * Traffic is played in rounds: a round is one queue pair's burst of one to
 * four messages (SEND, WRITE, READ; 256 to 4096 bytes, so one to four
 * packets), then the responder's answers: each READ's responses and one ACK
 * for the burst when its last message is no READ.  A request lost before
 * the capture point (any but the burst's last, so a later one shows the
 * gap) makes the responder NAK it (PSN sequence error) after answering the
 * READs before it, and the requester send everything from it again
 * (go-back-N).  Up to 16 rounds are in flight at once, each on its own
 * queue pair, and each frame is the next of a round drawn at random: the
 * queue pairs' packets interleave, every response after its requests.  The
 * first round of each queue pair (in order: every one carries traffic) is a
 * single message, never lost; the last rounds are cut so that the capture
 * has exactly the frames asked for.  Frames are 1 us apart.
 */
#include "rc_bulk.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_flow.h"

#define CLIENTS     64
#define SERVERS     16
#define SLOTS       16 /* rounds in flight */
#define ROUND_MSGS  4
#define ROUND_STEPS 64 /* at most 4 x 4 requests, as many resent, 16 READ responses, NAK, ACK */
#define TAIL        64 /* frames left below which rounds are cut to fit */
#define TAIL_PKTS   8  /* packets of a cut round's WRITE */
#define MIN_LEN     256
#define MAX_LEN     4096

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (d))

void rc_bulk_defaults(rc_bulk_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->link = LINK_ETH;
    o->qps = 10000;
    o->frames = 5000000;
    o->seed = 1;
    o->loss_ppm = 0;
}

const char *rc_bulk_check(const rc_bulk_opts_t *o)
{
    if (o->qps < 1 || o->qps > RC_BULK_MAX_QPS)
        return "--qps wants 1 to 1000000";
    if (o->frames > 1000000000ull)
        return "--frames wants at most 1000000000";
    /* CM 3, a first round at most 5 frames a queue pair, and room to end */
    if (o->frames < 16ull * o->qps + TAIL)
        return "--frames wants at least 16 x --qps + 64 (every queue pair's setup and first "
               "round)";
    if (o->loss_ppm > 500000)
        return "--loss wants 0 to 50 (percent)";
    return NULL;
}

enum { ST_REQ, ST_RESEND, ST_READ_RESP, ST_ACK, ST_NAK };

typedef struct step {
    uint8_t kind, msg, pkt;
} step_t;

typedef struct round {
    uint32_t qp;
    uint8_t nmsg, nsteps, next;
    rc_msg_t msg[ROUND_MSGS];
    step_t step[ROUND_STEPS];
} round_t;

typedef struct bulk {
    rc_t *k;
    const rc_bulk_opts_t *o;
    rc_bulk_result_t *res;
    host_t client[CLIENTS], server[SERVERS];
    uint32_t client_qps[CLIENTS], server_qps[SERVERS];
    rc_qp_t *qp;   /* each connection's requester side: the client's */
    uint8_t *busy; /* a round of the queue pair's in flight */
    round_t slot[SLOTS];
    uint32_t nslots, max_slots;
    uint64_t rounds; /* rounds planned */
    uint64_t left;   /* frames not yet planned */
} bulk_t;

static void hosts_init(bulk_t *b)
{
    for (uint32_t i = 0; i < CLIENTS; i++)
        host_init(&b->client[i], "client", (uint16_t)(0x100 + i), 0x98039B0300D10000ull + i,
                  IP4(10, 1, 0, i + 1), (uint16_t)(0x100 + i));
    for (uint32_t j = 0; j < SERVERS; j++)
        host_init(&b->server[j], "server", (uint16_t)(0x200 + j), 0x98039B0300D20000ull + j,
                  IP4(10, 2, 0, j + 1), (uint16_t)(0x200 + j));
}

/* A QPN of host h: its n-th, the low byte its LID's as elsewhere in the
 * generator; unique per host up to 62,500 (RC_BULK_MAX_QPS / SERVERS). */
static uint32_t host_qpn(const host_t *h, uint32_t n)
{
    return ((0x100u + n) << 8) | (uint32_t)(h->lid & 0xFF);
}

/* Connection i, set up by the CM; its client's requester side kept. */
static void connect_qp(bulk_t *b, uint32_t i)
{
    gen_t *g = b->k->g;
    uint32_t c = i % CLIENTS, s = (i / CLIENTS) % SERVERS;
    host_t *a = &b->client[c], *p = &b->server[s];
    uint32_t an = b->client_qps[c]++, pn = b->server_qps[s]++;
    rc_conn_t conn;
    rc_conn_init(b->k, &conn, a, p, (uint16_t)(0x8000u + an), NULL);
    conn.cm.act_qpn = host_qpn(a, an);
    conn.cm.pas_qpn = host_qpn(p, pn);
    /* odd multipliers: distinct and nonzero for every i */
    conn.cm.act_id = (i + 1) * 0x9E3779B1u;
    conn.cm.pas_id = (i + 1) * 0x85EBCA77u;
    conn.cm.req_tid = ((uint64_t)a->hi_tid << 32) | conn.cm.act_id;
    conn.ab.dqp = conn.ba.rqp = conn.cm.pas_qpn;
    conn.ab.rqp = conn.ba.dqp = conn.cm.act_qpn;
    if (i % 64 == 0)
        rc_conn_psns(&conn, 0xFFFFFFu - prng_below(&g->rng, 256), conn.ba.next_psn);
    else
        rc_conn_psns(&conn, conn.ab.next_psn, conn.ba.next_psn);
    cm_req(g, &conn.cm);
    cm_rep(g, &conn.cm);
    cm_rtu(g, &conn.cm);
    b->res->cm_frames += 3;
    b->qp[i] = conn.ab;
}

static void add(round_t *r, uint8_t kind, uint32_t msg, uint32_t pkt)
{
    r->step[r->nsteps++] = (step_t){ kind, (uint8_t)msg, (uint8_t)pkt };
}

static uint32_t request_pkts(const rc_msg_t *m)
{
    return m->kind == RC_READ ? 1 : m->npsn;
}

/* The responder's answers to messages [from, to): each READ's responses,
 * and with ack one ACK for the last when it is no READ (coalesced: it
 * covers those before). */
static void answers(round_t *r, uint32_t from, uint32_t to, bool ack)
{
    for (uint32_t m = from; m < to; m++)
        if (r->msg[m].kind == RC_READ)
            for (uint32_t p = 0; p < r->msg[m].npsn; p++)
                add(r, ST_READ_RESP, m, p);
    if (ack && to > from && r->msg[to - 1].kind != RC_READ)
        add(r, ST_ACK, to - 1, 0);
}

/* Requests of messages [from, to) from packet pkt of the first. */
static void requests(round_t *r, uint8_t kind, uint32_t from, uint32_t pkt, uint32_t to)
{
    for (uint32_t m = from; m < to; m++, pkt = 0)
        for (uint32_t p = pkt; p < request_pkts(&r->msg[m]); p++)
            add(r, kind, m, p);
}

static rc_kind_t draw_kind(prng_t *rng)
{
    uint32_t x = prng_below(rng, 100);
    return x < 40   ? RC_SEND
           : x < 45 ? RC_SEND_IMM
           : x < 85 ? RC_WRITE
           : x < 90 ? RC_WRITE_IMM
                    : RC_READ;
}

/* A round of nmsg messages on queue pair q (tail_pkts: one WRITE of that
 * many packets instead), its requests lost as the options say unless
 * lossless. */
static void plan(bulk_t *b, round_t *r, uint32_t q, uint32_t nmsg, uint32_t tail_pkts,
                 bool lossless)
{
    prng_t *rng = &b->k->g->rng;
    rc_qp_t *qp = &b->qp[q];
    memset(r, 0, offsetof(round_t, msg));
    r->qp = q;
    r->nmsg = (uint8_t)nmsg;
    uint32_t total = 0;
    for (uint32_t m = 0; m < nmsg; m++) {
        if (tail_pkts)
            r->msg[m] = rc_post(qp, RC_WRITE, tail_pkts * qp->mtu);
        else
            r->msg[m] =
                rc_post(qp, draw_kind(rng), MIN_LEN + prng_below(rng, MAX_LEN - MIN_LEN + 1));
        total += request_pkts(&r->msg[m]);
    }
    /* the first request lost, if any: never the last, so a later one shows the gap */
    uint32_t lost_msg = nmsg, lost_pkt = 0;
    for (uint32_t m = 0, n = 0; m < nmsg && !lossless && b->o->loss_ppm && lost_msg == nmsg; m++)
        for (uint32_t p = 0; p < request_pkts(&r->msg[m]) && n + 1 < total; p++, n++)
            if (prng_below(rng, 1000000) < b->o->loss_ppm) {
                lost_msg = m;
                lost_pkt = p;
                break;
            }
    if (lost_msg == nmsg) {
        requests(r, ST_REQ, 0, 0, nmsg);
        answers(r, 0, nmsg, true);
        return;
    }
    /* every request but the lost one; the NAK; go-back-N from the lost one */
    requests(r, ST_REQ, 0, 0, lost_msg);
    for (uint32_t p = 0; p < lost_pkt; p++)
        add(r, ST_REQ, lost_msg, p);
    requests(r, ST_REQ, lost_msg, lost_pkt + 1, nmsg);
    answers(r, 0, lost_msg, false);
    add(r, ST_NAK, lost_msg, lost_pkt);
    requests(r, ST_RESEND, lost_msg, lost_pkt, nmsg);
    answers(r, lost_msg, nmsg, true);
}

/* A queue pair with no round in flight: in order for the first round of
 * each, then at random. */
static uint32_t pick_qp(bulk_t *b)
{
    uint32_t n = b->o->qps;
    if (b->rounds < n)
        return (uint32_t)b->rounds;
    uint32_t q = prng_below(&b->k->g->rng, n);
    while (b->busy[q])
        q = q + 1 == n ? 0 : q + 1;
    return q;
}

/* The next round, into r: b->left frames are still to plan.  A round that
 * would leave fewer than TAIL is replaced by one WRITE cut so that what is
 * left is 0 or at least 2 (a round takes 2 frames or more). */
static void next_round(bulk_t *b, round_t *r)
{
    prng_t *rng = &b->k->g->rng;
    uint32_t q = pick_qp(b);
    bool first = b->rounds < b->o->qps;
    rc_qp_t saved = b->qp[q];
    plan(b, r, q, first ? 1 : 1 + prng_below(rng, ROUND_MSGS), 0, first);
    if (b->left < (uint64_t)r->nsteps + TAIL) {
        b->qp[q] = saved;
        uint64_t pkts = b->left - 1 < TAIL_PKTS ? b->left - 1 : TAIL_PKTS;
        if (b->left - (pkts + 1) == 1)
            pkts--;
        plan(b, r, q, 1, (uint32_t)pkts, true);
    }
    b->left -= r->nsteps;
    b->busy[q] = 1;
    b->rounds++;
}

/* Linux's RoCEv2 UDP source port of a queue pair: from a flow label
 * hashed from both QPNs, so that ECMP spreads the queue pairs. */
static uint16_t udp_sport(const rc_qp_t *qp)
{
    uint64_t v = (uint64_t)qp->dqp * qp->rqp;
    v ^= v >> 20;
    v ^= v >> 40;
    uint32_t fl = (uint32_t)v & 0xFFFFF;
    return (uint16_t)(0xC000u | ((fl & 0x3FFF) ^ (fl >> 14)));
}

/* The next frame of round r. */
static void play(bulk_t *b, round_t *r)
{
    step_t s = r->step[r->next++];
    rc_msg_t *m = &r->msg[s.msg];
    rc_qp_t *qp = m->qp;
    qp->req->udp_sport = qp->rsp->udp_sport = udp_sport(qp);
    rc_bulk_result_t *res = b->res;
    switch (s.kind) {
    case ST_REQ:
    case ST_RESEND:
        rc_request(b->k, m, s.pkt);
        if (s.kind == ST_RESEND)
            res->resent++;
        else
            res->requests++;
        break;
    case ST_READ_RESP:
        rc_read_response(b->k, m, s.pkt);
        res->read_responses++;
        break;
    case ST_ACK:
        rc_ack(b->k, m);
        res->acks++;
        break;
    case ST_NAK:
        rc_nak(b->k, qp, rc_psn_add(m->psn, s.pkt), (m->msn - 1) & 0xFFFFFFu, RC_NAK_PSN_SEQ);
        res->lost++;
        break;
    }
}

static void run(bulk_t *b)
{
    for (uint32_t i = 0; i < b->o->qps; i++)
        connect_qp(b, i);
    b->left = b->o->frames - b->res->cm_frames;
    b->max_slots = b->o->qps < SLOTS ? b->o->qps : SLOTS;
    for (;;) {
        while (b->nslots < b->max_slots && b->left > 0)
            next_round(b, &b->slot[b->nslots++]);
        if (b->nslots == 0)
            break;
        uint32_t i = prng_below(&b->k->g->rng, b->nslots);
        round_t *r = &b->slot[i];
        play(b, r);
        if (r->next == r->nsteps) {
            for (uint32_t m = 0; m < r->nmsg; m++)
                b->res->messages[r->msg[m].kind]++;
            b->busy[r->qp] = 0;
            *r = b->slot[--b->nslots];
        }
    }
}

int rc_bulk_write(const char *path, const rc_bulk_opts_t *o, rc_bulk_result_t *res)
{
    memset(res, 0, sizeof *res);
    gen_t g;
    if (gen_open(&g, path, o->link, 2, o->seed) != 0)
        return -1;
    g.keep_notes = false;
    g.fallback_notes = false;
    g.step_us = 1;
    bulk_t *b = calloc(1, sizeof *b);
    rc_t *k = calloc(1, sizeof *k);
    if (!b || !k) {
        fprintf(stderr, "ibscope-gen: out of memory\n");
        exit(1);
    }
    k->g = &g;
    k->untimed = true;
    b->k = k;
    b->o = o;
    b->res = res;
    b->qp = calloc(o->qps, sizeof *b->qp);
    b->busy = calloc(o->qps, 1);
    if (!b->qp || !b->busy) {
        fprintf(stderr, "ibscope-gen: out of memory\n");
        exit(1);
    }
    hosts_init(b);
    run(b);
    res->frames = g.sink.frames;
    free(b->qp);
    free(b->busy);
    free(b);
    free(k);
    return gen_close(&g);
}
