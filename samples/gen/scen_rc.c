/* scen_rc.c - the cases of ibscope-gen rc (rc.h), each with the findings the
 * transport contract gives it, named where the case makes them.
 *
 * Where the capture is taken decides what a loss looks like: a request lost
 * before the capture point never shows (a PSN gap), one lost after it shows
 * and is never answered. Every case but no_cm sets its connection up with
 * the CM first (retry 3, local ACK timeout 14 unless it says otherwise), and
 * its responder answers 6 us after a request; a requester whose local ACK
 * timer runs out sends again 2 timeouts after its last send (the timer
 * fires between 1 and 4 timeouts, IBA Vol. 1 9.7.6.1.3).
 */
#include <stdio.h>
#include <string.h>

#include "rc.h"

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (d))
#define ANSWER          6    /* us from a request to its answer */
#define START           1000 /* us: the first request, after the CM exchange */
#define MS              1000ull

static void wait_us(rc_t *k, uint64_t us)
{
    rc_at(k, rc_now(k) + us);
}

/* client A, servers B and C (samples/README.md's conventions) */
static void hosts(host_t *a, host_t *b, host_t *c)
{
    host_init(a, "client", 0x0011, 0x98039B0300A1B211ull, IP4(10, 0, 0, 11), 0x11);
    host_init(b, "server1", 0x0012, 0x98039B0300A1B212ull, IP4(10, 0, 0, 12), 0x12);
    if (c)
        host_init(c, "server2", 0x0013, 0x98039B0300A1B213ull, IP4(10, 0, 0, 13), 0x13);
}

/* The local ACK timeout in us, rounded up: a timer never fires sooner. */
static uint64_t tmo_us(const rc_conn_t *c)
{
    return (rc_timeout_ns(c->budget.ack_timeout) + 999) / 1000;
}

/* Sends all of m and answers it; the answer's frame. */
static uint32_t acked(rc_t *k, const rc_msg_t *m)
{
    rc_request_from(k, m, 0);
    wait_us(k, ANSWER);
    if (m->kind == RC_READ)
        return rc_read_responses(k, m);
    if (m->kind == RC_CMP_SWAP || m->kind == RC_FETCH_ADD)
        return rc_atomic_ack(k, m, 0x1);
    return rc_ack(k, m);
}

static uint32_t msn_before(const rc_msg_t *m)
{
    return (m->msn - 1) & 0xFFFFFFu;
}

/* ---- the findings, details in the contract's order ----------------------- */

/* A connection between a and b set up from time 0 (REQ, REP, RTU), its
 * traffic to start at START. */
static void connect_at_start(rc_t *k, rc_conn_t *c, host_t *a, host_t *b, uint16_t sport,
                             const cm_budget_t *budget)
{
    rc_conn_init(k, c, a, b, sport, budget);
    rc_at(k, 0);
    rc_establish(k, c);
    rc_at(k, START);
}

/* The connection torn down: DREQ, and its DREP 150 us later. */
static void disconnect(rc_t *k, rc_conn_t *c)
{
    rc_cm_dreq(k, c);
    wait_us(k, 150);
    rc_cm_drep(k, c);
}

static void f_gap(rc_t *k, uint32_t at, uint32_t prev, uint32_t expected, uint32_t psn)
{
    rc_find(k, at, "psn_gap", prev, "expected_psn=%u;psn=%u;missing=%u", expected, psn,
            (psn - expected) & 0xFFFFFFu);
}

static void f_retx(rc_t *k, uint32_t at, uint32_t related, uint32_t psn, const char *cause)
{
    rc_find(k, at, "transport_retransmission", related, "psn=%u;cause=%s", psn, cause);
}

static void f_retx_rnr(rc_t *k, uint32_t at, uint32_t rnr, uint32_t psn)
{
    rc_find(k, at, "transport_retransmission", rnr, "psn=%u;cause=rnr_nak;wait_us=%llu", psn,
            (unsigned long long)(rc_time(k, at) - rc_time(k, rnr)));
}

static void f_nak(rc_t *k, uint32_t at, uint8_t code, uint32_t psn)
{
    rc_find(k, at, "nak", 0, "code=%s;psn=%u", rc_nak_name(code), psn);
}

static void f_rnr(rc_t *k, uint32_t at, uint8_t timer)
{
    rc_find(k, at, "rnr_nak", 0, "timer=%u;timer_us=%u", timer, rc_rnr_timer_us(timer));
}

static void f_exhausted(rc_t *k, uint32_t at, uint32_t first, uint32_t psn, unsigned sent,
                        const char *cause)
{
    rc_find(k, at, "retries_exhausted", first, "psn=%u;sent=%u;cause=%s", psn, sent, cause);
}

static void f_ack_timeout(rc_t *k, uint32_t at, uint32_t req, uint32_t psn, const rc_conn_t *c)
{
    char t[32];
    rc_find(k, at, "ack_timeout", req, "psn=%u;waited_us=%llu;timeout_us=%s", psn,
            (unsigned long long)(rc_time(k, at) - rc_time(k, req)),
            rc_us_text(rc_timeout_ns(c->budget.ack_timeout), t, sizeof t));
}

/* ---- the cases ----------------------------------------------------------- */

/* Both sides' requests, every operation, coalesced ACKs; B's PSNs wrap. */
static void case_clean(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    rc_conn_t c;
    rc_conn_init(k, &c, &a, &b, 40001, NULL);
    rc_conn_psns(&c, c.ab.next_psn, 0xFFFFF8);
    rc_at(k, 0);
    rc_establish(k, &c);
    rc_at(k, START);
    rc_msg_t m = rc_post(&c.ab, RC_SEND, 250); /* 2 pad bytes */
    acked(k, &m);
    /* SEND first/middle/last and a WRITE only: one ACK covers both */
    m = rc_post(&c.ab, RC_SEND, 3000);
    rc_request_from(k, &m, 0);
    m = rc_post(&c.ab, RC_WRITE, 512);
    acked(k, &m);
    m = rc_post(&c.ab, RC_WRITE_IMM, 2501);
    acked(k, &m);
    m = rc_post(&c.ab, RC_READ, 3000);
    acked(k, &m);
    m = rc_post(&c.ab, RC_CMP_SWAP, 8);
    acked(k, &m);
    /* a READ followed by a SEND before its responses come */
    rc_msg_t r = rc_post(&c.ab, RC_READ, 2048);
    rc_request(k, &r, 0);
    m = rc_post(&c.ab, RC_SEND_IMM, 100);
    rc_request(k, &m, 0);
    wait_us(k, ANSWER);
    rc_read_responses(k, &r);
    rc_ack(k, &m);
    m = rc_post(&c.ab, RC_WRITE, 4096);
    acked(k, &m);

    /* B's requests, PSN 0xFFFFF8 on, past 0xFFFFFF to 0 */
    wait_us(k, 50);
    static const struct {
        rc_kind_t kind;
        uint32_t len;
    } ops[] = { { RC_SEND, 2048 },   { RC_READ, 1024 },    { RC_FETCH_ADD, 8 },
                { RC_SEND_INV, 61 }, { RC_WRITE_IMM, 64 }, { RC_SEND, 2048 },
                { RC_WRITE, 1499 },  { RC_READ, 2048 },    { RC_SEND_IMM, 3000 } };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        m = rc_post(&c.ba, ops[i].kind, ops[i].len);
        acked(k, &m);
        wait_us(k, 20);
    }
    wait_us(k, 10 * MS);
    disconnect(k, &c);
}

/* Two requests the capture missed, acknowledged by the responder. */
static void case_capture_loss(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    rc_conn_t c;
    connect_at_start(k, &c, &a, &b, 40002, NULL);
    rc_msg_t m0 = rc_post(&c.ab, RC_SEND, 512);
    uint32_t f0 = rc_request(k, &m0, 0);
    wait_us(k, ANSWER);
    rc_ack(k, &m0);
    rc_msg_t m1 = rc_post(&c.ab, RC_SEND, 512);
    rc_post(&c.ab, RC_SEND, 512); /* m2: on the wire, not in the capture, as m1 */
    wait_us(k, 4);
    rc_msg_t m3 = rc_post(&c.ab, RC_SEND, 512);
    uint32_t f3 = rc_request(k, &m3, 0);
    rc_msg_t m4 = rc_post(&c.ab, RC_WRITE, 512);
    rc_request(k, &m4, 0);
    wait_us(k, ANSWER);
    uint32_t a4 = rc_ack(k, &m4);
    f_gap(k, f3, f0, m1.psn, m3.psn);
    rc_find(k, a4, "capture_loss", f3, "first_psn=%u;missing=%u", m1.psn, 2u);
    wait_us(k, 100);
    rc_msg_t m5 = rc_post(&c.ab, RC_SEND, 256);
    acked(k, &m5);
}

/* A request lost on the wire before the capture point: a gap, the
 * responder's PSN sequence error NAK, go-back-N; PSNs wrap past 0xFFFFFF. */
static void case_wire_loss(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    rc_conn_t c;
    rc_conn_init(k, &c, &a, &b, 40003, NULL);
    rc_conn_psns(&c, 0xFFFFFC, c.ba.next_psn);
    rc_at(k, 0);
    rc_establish(k, &c);
    rc_at(k, START);
    rc_msg_t m[6];
    for (int i = 0; i < 6; i++)
        m[i] = rc_post(&c.ab, RC_SEND, 256);
    rc_request(k, &m[0], 0);
    wait_us(k, ANSWER);
    rc_ack(k, &m[0]);
    wait_us(k, 20);
    rc_request(k, &m[1], 0);
    uint32_t f2 = rc_request(k, &m[2], 0);
    wait_us(k, 2); /* m[3], PSN 0xFFFFFF, lost */
    uint32_t f4 = rc_request(k, &m[4], 0);
    rc_request(k, &m[5], 0);
    f_gap(k, f4, f2, m[3].psn, m[4].psn);
    /* the responder NAKs on m[4] and drops m[5] */
    rc_after(k, f4, ANSWER);
    uint32_t nak = rc_nak(k, &c.ab, m[3].psn, msn_before(&m[3]), RC_NAK_PSN_SEQ);
    f_nak(k, nak, RC_NAK_PSN_SEQ, m[3].psn);
    wait_us(k, 4);
    for (int i = 3; i < 6; i++)
        f_retx(k, rc_request(k, &m[i], 0), nak, m[i].psn, "nak");
    wait_us(k, ANSWER);
    rc_ack(k, &m[5]);
    wait_us(k, 100);
    rc_msg_t n = rc_post(&c.ab, RC_WRITE, 1024);
    acked(k, &n);
}

/* Two requests crossing the capture point swapped: a gap, then the PSN it
 * skipped, before any answer. */
static void case_reorder(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    rc_conn_t c;
    connect_at_start(k, &c, &a, &b, 40004, NULL);
    rc_msg_t m0 = rc_post(&c.ab, RC_SEND, 256);
    uint32_t f0 = rc_request(k, &m0, 0);
    wait_us(k, ANSWER);
    rc_ack(k, &m0);
    wait_us(k, 20);
    rc_msg_t m1 = rc_post(&c.ab, RC_SEND, 256);
    rc_msg_t m2 = rc_post(&c.ab, RC_WRITE, 256);
    rc_msg_t m3 = rc_post(&c.ab, RC_SEND, 256);
    uint32_t f2 = rc_request(k, &m2, 0);
    uint32_t f1 = rc_request(k, &m1, 0);
    rc_request(k, &m3, 0);
    f_gap(k, f2, f0, m1.psn, m2.psn);
    rc_find(k, f1, "out_of_order", f2, "psn=%u", m1.psn);
    wait_us(k, ANSWER);
    rc_ack(k, &m3);
}

/* RNR NAKs: timers 14 (1.28 ms) and 18 (5.12 ms) on A's SEND, 0 (655.36 ms,
 * the longest) on B's two-packet SEND; each time the requester waits the
 * timer out and sends again. */
static void case_rnr(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    rc_conn_t c;
    connect_at_start(k, &c, &a, &b, 40005, NULL);
    rc_msg_t m0 = rc_post(&c.ab, RC_SEND, 256);
    acked(k, &m0);
    wait_us(k, 20);
    rc_msg_t m1 = rc_post(&c.ab, RC_SEND, 1024);
    rc_request(k, &m1, 0);
    static const uint8_t timers[] = { 14, 18 };
    for (size_t i = 0; i < sizeof timers; i++) {
        wait_us(k, ANSWER);
        uint32_t rnr = rc_rnr_nak(k, &c.ab, m1.psn, msn_before(&m1), timers[i]);
        f_rnr(k, rnr, timers[i]);
        rc_after(k, rnr, rc_rnr_timer_us(timers[i]) + 15);
        f_retx_rnr(k, rc_request(k, &m1, 0), rnr, m1.psn);
    }
    wait_us(k, ANSWER);
    rc_ack(k, &m1);

    wait_us(k, 100);
    rc_msg_t n = rc_post(&c.ba, RC_SEND, 2048);
    rc_request_from(k, &n, 0);
    wait_us(k, ANSWER);
    uint32_t rnr = rc_rnr_nak(k, &c.ba, n.psn, msn_before(&n), 0);
    f_rnr(k, rnr, 0);
    rc_after(k, rnr, rc_rnr_timer_us(0) + 15);
    for (uint32_t i = 0; i < n.npsn; i++)
        f_retx_rnr(k, rc_request(k, &n, i), rnr, rc_psn_add(n.psn, i));
    wait_us(k, ANSWER);
    rc_ack(k, &n);
    wait_us(k, 100);
    rc_msg_t m2 = rc_post(&c.ab, RC_SEND, 512);
    acked(k, &m2);
}

/* One of the NAK codes that end a QP: a request, its NAK, the connection
 * torn down. */
static void nak_case(rc_t *k, uint16_t sport, uint8_t code, rc_kind_t kind)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    rc_conn_t c;
    rc_conn_init(k, &c, &a, &b, sport, NULL);
    rc_at(k, 0);
    rc_establish(k, &c);
    rc_at(k, START);
    rc_msg_t m0 = rc_post(&c.ab, RC_SEND, 256);
    acked(k, &m0);
    wait_us(k, 20);
    rc_msg_t m1 = rc_post(&c.ab, kind, 512);
    rc_request(k, &m1, 0);
    wait_us(k, ANSWER);
    f_nak(k, rc_nak(k, &c.ab, m1.psn, msn_before(&m1), code), code, m1.psn);
    wait_us(k, 2 * MS);
    disconnect(k, &c);
}

/* a CmpSwap to a QP without atomic access */
static void case_nak_invalid_request(rc_t *k)
{
    nak_case(k, 40006, RC_NAK_INVALID_REQ, RC_CMP_SWAP);
}

/* a WRITE with an R_Key the responder does not know */
static void case_nak_remote_access(rc_t *k)
{
    nak_case(k, 40007, RC_NAK_REMOTE_ACCESS, RC_WRITE);
}

/* a SEND the responder failed to place */
static void case_nak_remote_operational(rc_t *k)
{
    nak_case(k, 40008, RC_NAK_REMOTE_OP, RC_SEND);
}

/* a READ answered with the RD code, which no RC responder should send */
static void case_nak_invalid_rd(rc_t *k)
{
    nak_case(k, 40009, RC_NAK_INVALID_RD, RC_READ);
}

/* A request lost after the capture point, sent again when the local ACK
 * timer runs out. */
static void case_timeout_retransmission(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    rc_conn_t c;
    connect_at_start(k, &c, &a, &b, 40010, NULL);
    rc_msg_t m0 = rc_post(&c.ab, RC_WRITE, 512);
    acked(k, &m0);
    wait_us(k, 20);
    rc_msg_t m1 = rc_post(&c.ab, RC_SEND, 512);
    uint32_t f1 = rc_request(k, &m1, 0);
    rc_after(k, f1, 2 * tmo_us(&c));
    f_retx(k, rc_request(k, &m1, 0), 0, m1.psn, "timeout");
    wait_us(k, ANSWER);
    rc_ack(k, &m1);
    wait_us(k, 100);
    rc_msg_t m2 = rc_post(&c.ab, RC_SEND, 512);
    acked(k, &m2);
}

/* An ACK lost after the capture point: the request sent again though the
 * capture saw it acknowledged; the duplicate ACK that answers is silent. */
static void case_spurious(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    rc_conn_t c;
    connect_at_start(k, &c, &a, &b, 40011, NULL);
    rc_msg_t m0 = rc_post(&c.ab, RC_SEND, 256);
    acked(k, &m0);
    wait_us(k, 20);
    rc_msg_t m1 = rc_post(&c.ab, RC_SEND, 512);
    uint32_t f1 = rc_request(k, &m1, 0);
    wait_us(k, ANSWER);
    uint32_t ack = rc_ack(k, &m1);
    rc_after(k, f1, 2 * tmo_us(&c));
    f_retx(k, rc_request(k, &m1, 0), ack, m1.psn, "spurious");
    wait_us(k, ANSWER);
    rc_ack(k, &m1);
    wait_us(k, 100);
    rc_msg_t m2 = rc_post(&c.ab, RC_SEND, 512);
    acked(k, &m2);
}

/* A's first request to B sent retry + 1 times, a timeout's wait apart,
 * never answered; A's connection to C goes on past 4 timeouts after. */
static void case_exhausted_never_acked(rc_t *k)
{
    host_t a, b, s2;
    hosts(&a, &b, &s2);
    rc_conn_t c, d;
    rc_conn_init(k, &c, &a, &b, 40012, NULL);
    rc_conn_init(k, &d, &a, &s2, 40013, NULL);
    rc_at(k, 0);
    rc_establish(k, &c);
    rc_at(k, 500);
    rc_establish(k, &d);
    rc_at(k, START);
    rc_msg_t m = rc_post(&c.ab, RC_SEND, 512);
    uint32_t first = rc_request(k, &m, 0), last = first;
    unsigned sends = 1u + c.budget.retry_count;
    uint64_t t = rc_time(k, first);
    for (unsigned i = 1; i < sends; i++) {
        /* C's traffic in between */
        rc_at(k, t + tmo_us(&c));
        rc_msg_t o = rc_post(&d.ab, RC_WRITE, 1024);
        acked(k, &o);
        t += 2 * tmo_us(&c);
        rc_at(k, t);
        last = rc_request(k, &m, 0);
        f_retx(k, last, 0, m.psn, "timeout");
    }
    f_exhausted(k, last, first, m.psn, sends, "never_acked");
    for (int i = 1; i <= 5; i++) {
        rc_after(k, last, (uint64_t)i * tmo_us(&c) + 100);
        rc_msg_t o = rc_post(&d.ab, RC_SEND, 256);
        acked(k, &o);
    }
}

/* A request lost after the capture point each time it is sent: the next
 * one draws a PSN sequence error NAK, go-back-N, retry + 1 rounds; the
 * connection torn down after. */
static void case_exhausted_naks(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    rc_conn_t c;
    connect_at_start(k, &c, &a, &b, 40014, NULL);
    rc_msg_t m0 = rc_post(&c.ab, RC_SEND, 256);
    acked(k, &m0);
    wait_us(k, 20);
    rc_msg_t m1 = rc_post(&c.ab, RC_SEND, 512);
    rc_msg_t m2 = rc_post(&c.ab, RC_SEND, 512);
    unsigned sends = 1u + c.budget.retry_count;
    uint32_t first = 0, last = 0, nak = 0;
    for (unsigned i = 0; i < sends; i++) {
        if (i)
            wait_us(k, 4);
        last = rc_request(k, &m1, 0);
        uint32_t f2 = rc_request(k, &m2, 0);
        if (i) {
            f_retx(k, last, nak, m1.psn, "nak");
            f_retx(k, f2, nak, m2.psn, "nak");
        } else {
            first = last;
        }
        wait_us(k, ANSWER);
        nak = rc_nak(k, &c.ab, m1.psn, m0.msn, RC_NAK_PSN_SEQ);
        f_nak(k, nak, RC_NAK_PSN_SEQ, m1.psn);
    }
    f_exhausted(k, last, first, m1.psn, sends, "naks");
    rc_after(k, last, 5 * tmo_us(&c));
    disconnect(k, &c);
}

/* A receiver out of buffers: the REP allows RNR retry 2, so the SEND is sent
 * 3 times, each answered by an RNR NAK (timer 14), then the requester gives
 * up (IBV_WC_RNR_RETRY_EXC_ERR); torn down 5 timeouts later. */
static void case_exhausted_rnr(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    cm_budget_t bud;
    rc_default_budget(&bud);
    bud.rep_rnr_retry = 2;
    rc_conn_t c;
    connect_at_start(k, &c, &a, &b, 40018, &bud);
    rc_msg_t m0 = rc_post(&c.ab, RC_SEND, 256);
    acked(k, &m0);
    wait_us(k, 20);
    rc_msg_t m = rc_post(&c.ab, RC_SEND, 512);
    unsigned sends = 1u + c.budget.rep_rnr_retry;
    uint32_t first = 0, last = 0, rnr = 0;
    for (unsigned i = 0; i < sends; i++) {
        if (i)
            rc_after(k, rnr, rc_rnr_timer_us(14) + 15);
        last = rc_request(k, &m, 0);
        if (i)
            f_retx_rnr(k, last, rnr, m.psn);
        else
            first = last;
        wait_us(k, ANSWER);
        rnr = rc_rnr_nak(k, &c.ab, m.psn, m0.msn, 14);
        f_rnr(k, rnr, 14);
    }
    f_exhausted(k, last, first, m.psn, sends, "naks");
    rc_after(k, last, 5 * tmo_us(&c));
    disconnect(k, &c);
}

/* A local ACK timeout too short for the responder (code 10, 4.194 ms): its
 * ACKs come 5 ms after, then it answers no more; retry + 1 sends, torn down. */
static void case_exhausted_late_acks(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    cm_budget_t bud;
    rc_default_budget(&bud);
    bud.ack_timeout = 10;
    rc_conn_t c;
    connect_at_start(k, &c, &a, &b, 40015, &bud);
    static const uint64_t late[] = { 5000, 5500 };
    for (size_t i = 0; i < 2; i++) {
        rc_msg_t m = rc_post(&c.ab, i ? RC_WRITE : RC_SEND, 512);
        uint32_t f = rc_request(k, &m, 0);
        rc_after(k, f, late[i]);
        f_ack_timeout(k, rc_ack(k, &m), f, m.psn, &c);
        wait_us(k, 20);
    }
    rc_msg_t m = rc_post(&c.ab, RC_SEND, 512);
    uint32_t first = rc_request(k, &m, 0), last = first;
    unsigned sends = 1u + c.budget.retry_count;
    for (unsigned i = 1; i < sends; i++) {
        rc_after(k, last, 2 * tmo_us(&c));
        last = rc_request(k, &m, 0);
        f_retx(k, last, 0, m.psn, "timeout");
    }
    f_exhausted(k, last, first, m.psn, sends, "late_acks");
    rc_after(k, last, 5 * tmo_us(&c));
    disconnect(k, &c);
}

/* Answers later than the local ACK timeout (code 12, 16.777 ms) with no
 * resend: an ACK and a READ response (a responder held by PFC pauses). */
static void case_ack_timeout(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    cm_budget_t bud;
    rc_default_budget(&bud);
    bud.ack_timeout = 12;
    rc_conn_t c;
    connect_at_start(k, &c, &a, &b, 40016, &bud);
    rc_msg_t m0 = rc_post(&c.ab, RC_SEND, 256);
    acked(k, &m0);
    wait_us(k, 20);
    rc_msg_t m1 = rc_post(&c.ab, RC_SEND, 1024);
    uint32_t f1 = rc_request(k, &m1, 0);
    rc_after(k, f1, 20 * MS);
    f_ack_timeout(k, rc_ack(k, &m1), f1, m1.psn, &c);
    wait_us(k, 20);
    rc_msg_t m2 = rc_post(&c.ab, RC_SEND, 512);
    acked(k, &m2);
    wait_us(k, 20);
    rc_msg_t m3 = rc_post(&c.ab, RC_READ, 512);
    uint32_t f3 = rc_request(k, &m3, 0);
    rc_after(k, f3, 18 * MS);
    f_ack_timeout(k, rc_read_response(k, &m3, 0), f3, m3.psn, &c);
    wait_us(k, 20);
    rc_msg_t m4 = rc_post(&c.ab, RC_WRITE, 512);
    acked(k, &m4);
}

/* QPs moved to RTS with other PSNs than the REQ and REP announced (set up
 * out of band): both sides' first requests differ; the responders agree
 * with their requesters, so nothing else is wrong. */
static void case_psn_start_mismatch(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    rc_conn_t c;
    connect_at_start(k, &c, &a, &b, 40017, NULL);
    uint32_t want_a = c.ab.next_psn, want_b = c.ba.next_psn;
    c.ab.next_psn = rc_psn_add(want_a, 5);
    c.ba.next_psn = want_b ^ 0x5A5A5u;
    rc_msg_t m = rc_post(&c.ab, RC_SEND, 256);
    uint32_t f = rc_request(k, &m, 0);
    rc_find(k, f, "psn_start_mismatch", c.rep_frame, "expected_psn=%u;psn=%u", want_a, m.psn);
    wait_us(k, ANSWER);
    rc_ack(k, &m);
    wait_us(k, 20);
    rc_msg_t n = rc_post(&c.ba, RC_SEND, 256);
    f = rc_request(k, &n, 0);
    rc_find(k, f, "psn_start_mismatch", c.req_frame, "expected_psn=%u;psn=%u", want_b, n.psn);
    wait_us(k, ANSWER);
    rc_ack(k, &n);
    for (int i = 0; i < 3; i++) {
        wait_us(k, 20);
        m = rc_post(i % 2 ? &c.ba : &c.ab, RC_WRITE, 700);
        acked(k, &m);
    }
}

/* No CM in the capture: both directions paired by their PSNs; a READ's span
 * learned from the next request; an ACK 150 ms late, with no timeout known. */
static void case_no_cm(rc_t *k)
{
    host_t a, b;
    hosts(&a, &b, NULL);
    rc_qp_t ab, ba;
    rc_qp_nocm(k, &ab, &a, &b, 1024);
    rc_qp_nocm(k, &ba, &b, &a, 1024);
    ba.dqp = ab.rqp; /* one QP on each host */
    ba.rqp = ab.dqp;
    rc_at(k, START);
    rc_msg_t m = rc_post(&ab, RC_SEND, 256);
    acked(k, &m);
    m = rc_post(&ab, RC_WRITE, 2048);
    acked(k, &m);
    rc_msg_t r = rc_post(&ab, RC_READ, 2500);
    rc_request(k, &r, 0);
    m = rc_post(&ab, RC_SEND, 128);
    rc_request(k, &m, 0);
    wait_us(k, ANSWER);
    rc_read_responses(k, &r);
    rc_ack(k, &m);
    m = rc_post(&ab, RC_FETCH_ADD, 8);
    acked(k, &m);
    wait_us(k, 20);
    m = rc_post(&ba, RC_SEND, 512);
    acked(k, &m);
    m = rc_post(&ba, RC_READ, 1024);
    acked(k, &m);
    wait_us(k, 20);
    m = rc_post(&ab, RC_SEND, 601);
    rc_request(k, &m, 0);
    wait_us(k, 150 * MS);
    rc_ack(k, &m);
    wait_us(k, 20);
    m = rc_post(&ab, RC_WRITE_IMM, 64);
    acked(k, &m);
}

const rc_case_t rc_cases[] = {
    { "clean", "both sides' requests, every operation, coalesced ACKs, PSNs past 0xFFFFFF",
      case_clean },
    { "capture_loss", "two requests missing from the capture, acknowledged: capture loss",
      case_capture_loss },
    { "wire_loss", "a request lost before the capture point: NAK, go-back-N, across the PSN wrap",
      case_wire_loss },
    { "reorder", "two requests swapped at the capture point: a gap, then out of order",
      case_reorder },
    { "rnr", "RNR NAKs with timers 14, 18 and 0, each waited out and the request sent again",
      case_rnr },
    { "nak_invalid_request", "NAK invalid request to a CmpSwap: the QP ends",
      case_nak_invalid_request },
    { "nak_remote_access_error", "NAK remote access error to a WRITE: the QP ends",
      case_nak_remote_access },
    { "nak_remote_operational_error", "NAK remote operational error to a SEND: the QP ends",
      case_nak_remote_operational },
    { "nak_invalid_rd_request", "NAK invalid RD request to a READ: the QP ends",
      case_nak_invalid_rd },
    { "timeout_retransmission", "a request unanswered, sent again after the local ACK timeout",
      case_timeout_retransmission },
    { "spurious", "a request sent again after it was acknowledged", case_spurious },
    { "retries_exhausted_never_acked", "a QP's first request sent retry + 1 times, never answered",
      case_exhausted_never_acked },
    { "retries_exhausted_naks", "a request NAKed (PSN sequence error) retry + 1 times",
      case_exhausted_naks },
    { "retries_exhausted_rnr",
      "a SEND answered by an RNR NAK rnr_retry + 1 times (REP RNR retry 2)", case_exhausted_rnr },
    { "retries_exhausted_late_acks", "ACKs later than a short timeout, then none: retry + 1 sends",
      case_exhausted_late_acks },
    { "ack_timeout", "an ACK and a READ response later than the timeout, without a resend",
      case_ack_timeout },
    { "psn_start_mismatch", "both sides' first PSNs differ from the REQ's and REP's",
      case_psn_start_mismatch },
    { "no_cm", "RC traffic with no CM exchange: no budget, no timeout finding", case_no_cm },
};
const size_t n_rc_cases = sizeof rc_cases / sizeof rc_cases[0];
