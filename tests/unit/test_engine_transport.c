/* test_engine_transport.c - the transport analysis on hand-built RC packets:
 * each finding of docs/transport.md at the frame it belongs to, with the
 * values worked out by hand, and silence where nothing went wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "engine.h"
#include "test_support.h"

/* RC opcodes (IBA Vol. 1 Table 39). */
enum {
    SEND_ONLY = 0x04,
    WRITE_ONLY = 0x0A,
    READ_REQUEST = 0x0C,
    READ_RESPONSE_ONLY = 0x10,
    ACK = 0x11,
    UC_SEND_ONLY = 0x24,
};

/* Host A (10.0.0.1) and host B (10.0.0.2) on RoCEv2; A's QP 0x200 sends
 * to B's QP 0x100 and back. */
#define QP_A 0x200
#define QP_B 0x100

static struct ib_packet rc(uint8_t from, uint8_t to, uint32_t destqp, uint8_t opcode, uint32_t psn)
{
    struct ib_packet p;
    memset(&p, 0, sizeof p);
    p.encap = IB_ENCAP_ROCEV2;
    p.present = IB_HAS_BTH;
    p.src = ts_rocev2_host(from);
    p.dst = ts_rocev2_host(to);
    p.bth.opcode = opcode;
    p.bth.destqp = destqp;
    p.bth.psn = psn;
    return p;
}

/* A's request to B. */
static struct ib_packet rq(uint32_t psn)
{
    return rc(1, 2, QP_B, SEND_ONLY, psn);
}

static struct ib_packet aeth(uint32_t psn, uint8_t kind, uint8_t low)
{
    struct ib_packet p = rc(2, 1, QP_A, ACK, psn);
    p.present |= IB_HAS_AETH;
    p.ext.aeth.kind = kind;
    if (kind == IB_AETH_NAK)
        p.ext.aeth.nak_code = low;
    else if (kind == IB_AETH_RNR_NAK)
        p.ext.aeth.rnr_timer = low;
    else
        p.ext.aeth.credit_count = low;
    return p;
}

static struct ib_packet ack(uint32_t psn)
{
    return aeth(psn, IB_AETH_ACK, 31);
}

/* The CM exchange that sets the QPs up: A's REQ (comm ID 7) and B's REP. */
struct budget {
    uint32_t a_start, b_start; /* A's first request's PSN (the REP's), B's (the REQ's) */
    uint8_t retry, rnr_retry_a, rnr_retry_b, timeout, mtu;
};

static struct ib_packet cm_msg(uint8_t from, uint8_t to, uint16_t attr)
{
    struct ib_packet p = rc(from, to, 1, 0x64, 0);
    p.present = IB_HAS_BTH | IB_HAS_DETH | IB_HAS_MAD | IB_HAS_CM;
    p.mad.base_version = 1;
    p.mad.mgmt_class = IB_CLASS_CM;
    p.mad.class_version = 2;
    p.mad.method = IB_METHOD_SEND;
    p.mad.attr_id = attr;
    p.cm.attr = attr;
    return p;
}

static struct ib_packet cm_req(const struct budget *b)
{
    struct ib_packet p = cm_msg(1, 2, IB_CM_REQ);
    p.mad.tid = 7;
    p.cm.local_comm_id = 7;
    struct ib_cm_req *q = &p.cm.u.req;
    q->local_qpn = QP_A;
    q->starting_psn = b->b_start;
    q->retry_count = b->retry;
    q->rnr_retry_count = b->rnr_retry_b; /* B's requests: the REQ's */
    q->primary.local_ack_timeout = b->timeout;
    q->path_mtu = b->mtu;
    q->remote_cm_resp_timeout = q->local_cm_resp_timeout = 20;
    q->max_cm_retries = 15;
    return p;
}

static struct ib_packet cm_rep(const struct budget *b)
{
    struct ib_packet p = cm_msg(2, 1, IB_CM_REP);
    p.mad.tid = 7;
    p.cm.local_comm_id = 8;
    p.cm.remote_comm_id = 7;
    p.cm.u.rep.local_qpn = QP_B;
    p.cm.u.rep.starting_psn = b->a_start;
    p.cm.u.rep.rnr_retry_count = b->rnr_retry_a; /* A's requests: the REP's */
    return p;
}

/* ---- the engine, fed a frame at a time ---- */

struct run {
    struct ib_engine *e;
    uint64_t frame;
    struct ib_frame_analysis out;
};

static int setup(void **state)
{
    static struct run r;
    memset(&r, 0, sizeof r);
    /* The budgets' path MTU 4096 on RoCEv2 is the wire audit's link-form
     * mtu_exceeded (test_engine_wire, analyzer.wire_audit): not this test's. */
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.enabled[IB_FIND_MTU_EXCEEDED] = false;
    r.e = ib_engine_new(&cfg);
    assert_non_null(r.e);
    *state = &r;
    return 0;
}

static int teardown(void **state)
{
    struct run *r = *state;
    ib_engine_free(r->e);
    return 0;
}

/* Feeds p as the next frame at time_us; returns its findings' count. */
static unsigned feed(struct run *r, int64_t time_us, const struct ib_packet *p)
{
    struct ib_frame_ref at = { 0, ++r->frame, time_us * 1000 };
    ib_engine_feed(r->e, at, p, &r->out);
    return r->out.count;
}

static unsigned feed_silent(struct run *r, int64_t time_us, const struct ib_packet *p)
{
    unsigned n = feed(r, time_us, p);
    for (unsigned i = 0; i < n; i++)
        print_error("frame %llu: unexpected %s\n", (unsigned long long)r->frame,
                    ib_finding_kind_name(r->out.findings[i].kind));
    assert_int_equal(n, 0);
    return n;
}

static const struct ib_finding *only(struct run *r, enum ib_finding_kind kind)
{
    assert_int_equal(r->out.count, 1);
    const struct ib_finding *f = &r->out.findings[0];
    assert_string_equal(ib_finding_kind_name(f->kind), ib_finding_kind_name(kind));
    return f;
}

/* REQ, REP, RTU: frames 1 to 3. */
static void handshake(struct run *r, const struct budget *b)
{
    struct ib_packet q = cm_req(b), p = cm_rep(b), u = cm_msg(1, 2, IB_CM_RTU);
    u.cm.local_comm_id = 7;
    u.cm.remote_comm_id = 8;
    feed_silent(r, 0, &q);
    feed_silent(r, 10, &p);
    feed_silent(r, 20, &u);
}

/* ---- the tests ---- */

static void test_clean_without_cm(void **state)
{
    struct run *r = *state;
    struct ib_packet p;
    for (uint32_t psn = 100; psn < 103; psn++)
        feed_silent(r, 100 + psn, (p = rq(psn), &p));
    feed_silent(r, 300, (p = ack(102), &p)); /* one ACK for three: coalesced */
    feed_silent(r, 301, (p = ack(102), &p)); /* a repeat says nothing */
    feed_silent(r, 400, (p = rq(103), &p));
    feed_silent(r, 450, (p = ack(103), &p));
    assert_int_equal(ib_engine_stats(r->e)->findings[IB_FIND_TRANSPORT_RETRANSMISSION], 0);
}

static void test_psn_wraps(void **state)
{
    struct run *r = *state;
    struct ib_packet p;
    uint32_t psns[] = { 0xFFFFFE, 0xFFFFFF, 0, 1 };
    for (unsigned i = 0; i < 4; i++)
        feed_silent(r, 10 * i, (p = rq(psns[i]), &p));
    feed_silent(r, 100, (p = ack(1), &p));
}

static void test_gap_then_capture_loss(void **state)
{
    struct run *r = *state;
    struct ib_packet p;
    feed_silent(r, 0, (p = rq(100), &p));
    feed_silent(r, 10, (p = rq(101), &p));
    feed(r, 20, (p = rq(104), &p)); /* 102 and 103 not seen */
    const struct ib_finding *f = only(r, IB_FIND_PSN_GAP);
    assert_int_equal(f->data.psn, 104);
    assert_int_equal(f->data.expected_psn, 102);
    assert_int_equal(f->data.missing, 2);
    assert_int_equal(f->related.frame, 2);
    assert_int_equal(f->data.qp.qpn, QP_B);
    assert_int_equal(f->data.qp.dst.gid[15], 2);
    feed(r, 50, (p = ack(104), &p));
    f = only(r, IB_FIND_CAPTURE_LOSS);
    assert_int_equal(f->data.psn, 102);
    assert_int_equal(f->data.missing, 2);
    assert_int_equal(f->related.frame, 3);
}

static void test_wire_loss_nak_go_back(void **state)
{
    struct run *r = *state;
    struct ib_packet p;
    feed_silent(r, 0, (p = rq(100), &p));
    feed(r, 10, (p = rq(102), &p)); /* 101 lost before the capture */
    only(r, IB_FIND_PSN_GAP);
    feed(r, 20, (p = aeth(101, IB_AETH_NAK, IB_NAK_PSN_SEQUENCE), &p));
    const struct ib_finding *f = only(r, IB_FIND_NAK);
    assert_int_equal(f->severity, IB_SEV_WARN);
    assert_int_equal(f->data.code, IB_NAK_PSN_SEQUENCE);
    assert_int_equal(f->data.psn, 101);
    for (uint32_t psn = 101; psn <= 102; psn++) {
        feed(r, 30 + psn, (p = rq(psn), &p));
        f = only(r, IB_FIND_TRANSPORT_RETRANSMISSION);
        assert_int_equal(f->data.psn, psn);
        assert_int_equal(f->data.cause, IB_RESEND_NAK);
        assert_int_equal(f->related.frame, 3); /* the NAK */
    }
    feed_silent(r, 200, (p = ack(102), &p)); /* no capture_loss: the NAK told */
}

static void test_nak_codes_are_errors(void **state)
{
    struct run *r = *state;
    struct ib_packet p;
    feed_silent(r, 0, (p = rq(5), &p));
    feed(r, 10, (p = aeth(5, IB_AETH_NAK, IB_NAK_REMOTE_ACCESS), &p));
    const struct ib_finding *f = only(r, IB_FIND_NAK);
    assert_int_equal(f->severity, IB_SEV_ERROR);
    assert_int_equal(f->data.code, IB_NAK_REMOTE_ACCESS);
}

static void test_reorder(void **state)
{
    struct run *r = *state;
    struct ib_packet p;
    feed_silent(r, 0, (p = rq(100), &p));
    feed(r, 10, (p = rq(102), &p));
    only(r, IB_FIND_PSN_GAP);
    feed(r, 11, (p = rq(101), &p)); /* before any answer */
    const struct ib_finding *f = only(r, IB_FIND_OUT_OF_ORDER);
    assert_int_equal(f->data.psn, 101);
    assert_int_equal(f->related.frame, 2);
    feed_silent(r, 50, (p = ack(102), &p));
}

static void test_rnr_nak_and_wait(void **state)
{
    struct run *r = *state;
    struct ib_packet p;
    feed_silent(r, 0, (p = rq(100), &p));
    feed(r, 10, (p = aeth(100, IB_AETH_RNR_NAK, 14), &p));
    const struct ib_finding *f = only(r, IB_FIND_RNR_NAK);
    assert_int_equal(f->data.code, 14);
    assert_int_equal(f->data.wait_ns, 1280000); /* Table 45: 1.28 ms */
    feed(r, 10 + 1500, (p = rq(100), &p));
    f = only(r, IB_FIND_TRANSPORT_RETRANSMISSION);
    assert_int_equal(f->data.cause, IB_RESEND_RNR_NAK);
    assert_int_equal(f->data.wait_ns, 1500000);
    assert_int_equal(f->related.frame, 2);
    feed_silent(r, 1600, (p = ack(100), &p));
}

static void test_spurious(void **state)
{
    struct run *r = *state;
    struct ib_packet p;
    feed_silent(r, 0, (p = rq(100), &p));
    feed_silent(r, 10, (p = ack(100), &p));
    feed(r, 70000, (p = rq(100), &p));
    const struct ib_finding *f = only(r, IB_FIND_TRANSPORT_RETRANSMISSION);
    assert_int_equal(f->data.cause, IB_RESEND_SPURIOUS);
    assert_int_equal(f->related.frame, 2); /* the ACK that had covered it */
}

static void test_start_mismatch(void **state)
{
    struct run *r = *state;
    struct budget b = { 1000, 5000, 7, 7, 7, 14, 5 };
    struct ib_packet p;
    handshake(r, &b);
    feed(r, 100, (p = rq(1005), &p));
    const struct ib_finding *f = only(r, IB_FIND_PSN_START_MISMATCH);
    assert_int_equal(f->data.psn, 1005);
    assert_int_equal(f->data.expected_psn, 1000);
    assert_int_equal(f->related.frame, 2); /* the REP announced A's */
    /* B's first request carries the REQ's starting PSN: nothing to say. */
    feed_silent(r, 200, (p = rc(2, 1, QP_A, WRITE_ONLY, 5000), &p));
}

/* Local ACK timeout 14: 4.096 us x 2^14 = 67.108864 ms. */
static void test_timeout_resend_and_ack_timeout(void **state)
{
    struct run *r = *state;
    struct budget b = { 1000, 5000, 7, 7, 7, 14, 5 };
    struct ib_packet p;
    handshake(r, &b);
    feed_silent(r, 100, (p = rq(1000), &p));
    feed(r, 100 + 70000, (p = rq(1000), &p)); /* no answer: the timer ran out */
    const struct ib_finding *f = only(r, IB_FIND_TRANSPORT_RETRANSMISSION);
    assert_int_equal(f->data.cause, IB_RESEND_TIMEOUT);
    feed_silent(r, 100 + 71000, (p = ack(1000), &p)); /* 1 ms after the resend */
    feed_silent(r, 200000, (p = rq(1001), &p));
    feed(r, 200000 + 80000, (p = ack(1001), &p)); /* 80 ms: past the timeout */
    f = only(r, IB_FIND_ACK_TIMEOUT);
    assert_int_equal(f->data.psn, 1001);
    assert_int_equal(f->data.wait_ns, 80000000);
    assert_int_equal(f->data.limit_ns, 67108864);
    assert_int_equal(f->related.frame, 7);
}

/* Retry count 2, timeout 10 (4.194304 ms): sent three times, then nothing
 * answers for four timeouts (16.777 ms after the last). */
static void test_retries_exhausted(void **state)
{
    struct run *r = *state;
    struct budget b = { 1000, 5000, 2, 7, 7, 10, 5 };
    struct ib_packet p;
    handshake(r, &b);
    feed_silent(r, 100, (p = rq(1000), &p)); /* frame 4 */
    feed(r, 100 + 4300, (p = rq(1000), &p)); /* frame 5 */
    feed(r, 100 + 8600, (p = rq(1000), &p)); /* frame 6: the last try */
    struct ib_packet other = rc(1, 3, 0x300, SEND_ONLY, 1);
    feed_silent(r, 100 + 8600 + 16000, &other); /* within four timeouts */
    feed(r, 100 + 8600 + 17000, &other);        /* past them */
    const struct ib_finding *f = NULL;
    for (unsigned i = 0; i < r->out.count; i++)
        if (r->out.findings[i].kind == IB_FIND_RETRIES_EXHAUSTED)
            f = &r->out.findings[i];
    assert_non_null(f);
    assert_int_equal(f->severity, IB_SEV_ERROR);
    assert_int_equal(f->at.frame, 6);
    assert_int_equal(f->related.frame, 4);
    assert_int_equal(f->data.psn, 1000);
    assert_int_equal(f->data.sent, 3);
    assert_int_equal(f->data.cause, IB_EXHAUSTED_NEVER_ACKED);
    feed(r, 200000, &other); /* once */
    assert_int_equal(ib_engine_stats(r->e)->findings[IB_FIND_RETRIES_EXHAUSTED], 1);
}

static void test_last_try_answered_is_not_exhausted(void **state)
{
    struct run *r = *state;
    struct budget b = { 1000, 5000, 1, 7, 7, 10, 5 };
    struct ib_packet p;
    handshake(r, &b);
    feed_silent(r, 100, (p = rq(1000), &p));
    feed(r, 5000, (p = rq(1000), &p)); /* the one retry allowed */
    feed(r, 5100, (p = ack(1000), &p));
    feed_silent(r, 60000, (p = rq(1001), &p));
    assert_int_equal(ib_engine_stats(r->e)->findings[IB_FIND_RETRIES_EXHAUSTED], 0);
}

/* A READ of 4096 bytes at path MTU 1024 takes four PSNs. */
static void test_read_takes_its_responses_psns(void **state)
{
    struct run *r = *state;
    struct budget b = { 1000, 5000, 7, 7, 7, 14, 3 };
    struct ib_packet p;
    handshake(r, &b);
    p = rc(1, 2, QP_B, READ_REQUEST, 1000);
    p.present |= IB_HAS_RETH;
    p.ext.reth.dma_len = 4096;
    feed_silent(r, 100, &p);
    feed_silent(r, 200, (p = rq(1004), &p));
    feed_silent(r, 300, (p = rc(2, 1, QP_A, READ_RESPONSE_ONLY, 1003), &p));
    feed_silent(r, 400, (p = ack(1004), &p));
}

static void test_uc_is_not_followed(void **state)
{
    struct run *r = *state;
    struct ib_packet p;
    feed_silent(r, 0, (p = rc(1, 2, QP_B, UC_SEND_ONLY, 1), &p));
    feed_silent(r, 10, (p = rc(1, 2, QP_B, UC_SEND_ONLY, 9), &p));
}

static void test_qp_cap(void **state)
{
    struct run *r = *state;
    ib_engine_free(r->e);
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.max_qps = 2;
    r->e = ib_engine_new(&cfg);
    struct ib_packet p;
    for (uint32_t qp = 1; qp <= 3; qp++)
        feed_silent(r, qp, (p = rc(1, 2, qp, SEND_ONLY, 1), &p));
    assert_int_equal(ib_engine_stats(r->e)->qps_dropped, 1);
}

/* With room for one set-up, the REP's second direction pushes out its
 * first (A's requests to B): A's queue pair then runs without a budget. */
static void test_setup_cap(void **state)
{
    struct run *r = *state;
    ib_engine_free(r->e);
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.max_qps = 1;
    r->e = ib_engine_new(&cfg);
    struct budget b = { 1000, 5000, 7, 7, 7, 14, 3 };
    struct ib_packet p;
    handshake(r, &b);
    assert_int_equal(ib_engine_stats(r->e)->qp_setups_forgotten, 1);
    feed_silent(r, 100, (p = rq(1000), &p));
    struct ib_qp_stats q;
    ib_engine_qp(r->e, 0, &q);
    assert_false(q.from_cm);
}

/* One set-up serves both directions, each with its own starting PSN and
 * RNR budget, whichever sends first; a repeated REP changes nothing, and
 * once both have sent, a later REP of the same QPs sets up none. */
static void test_setup_serves_both_directions(void **state)
{
    struct run *r = *state;
    struct budget b = { 1000, 5000, 6, 3, 5, 14, 5 };
    struct ib_packet p;
    handshake(r, &b);
    feed(r, 30, (p = cm_rep(&b), &p)); /* the CM's retransmission: the engine's CM part says so */
    only(r, IB_FIND_RETRANSMISSION);
    feed_silent(r, 100, (p = rc(2, 1, QP_A, WRITE_ONLY, 5000), &p)); /* B's, first */
    feed_silent(r, 200, (p = rq(1000), &p));
    struct ib_qp_stats q;
    ib_engine_qp(r->e, 0, &q);
    assert_true(q.from_cm);
    assert_int_equal(q.qp.qpn, QP_A);
    assert_int_equal(q.rnr_retry_count, 5);
    assert_int_equal(q.retry_count, 6);
    ib_engine_qp(r->e, 1, &q);
    assert_true(q.from_cm);
    assert_int_equal(q.qp.qpn, QP_B);
    assert_int_equal(q.rnr_retry_count, 3);
    assert_int_equal(q.ack_timeout, 14);
    /* Both running: a late REP sets nothing up, and no start is questioned. */
    feed(r, 300, (p = cm_rep(&b), &p));
    only(r, IB_FIND_RETRANSMISSION);
    feed_silent(r, 400, (p = rq(1001), &p));
    assert_int_equal(ib_engine_qp_count(r->e), 2);
    assert_int_equal(ib_engine_stats(r->e)->qp_setups_forgotten, 0);
}

/* Round trips of 10, 20, 30, 40 us and 1 ms: the median falls in
 * [22.6, 32) us, where 30 is; p99 in the bucket of 1 ms, kept at the max. */
static void test_statistics(void **state)
{
    struct run *r = *state;
    struct ib_packet p;
    static const int rtt_us[] = { 10, 20, 30, 40, 1000 };
    int64_t t = 0;
    for (unsigned i = 0; i < 5; i++) {
        feed_silent(r, t, (p = rq(100 + i), &p));
        assert_true(r->out.links.has_qp);
        assert_int_equal(r->out.links.qp, 0);
        uint64_t sent = r->frame;
        t += rtt_us[i];
        feed_silent(r, t, (p = ack(100 + i), &p));
        assert_true(r->out.links.has_qp);
        assert_int_equal(r->out.links.acks.frame, sent);
        assert_int_equal(r->out.links.ack_rtt_ns, rtt_us[i] * 1000);
        t += 5;
    }
    feed(r, t, (p = rq(106), &p)); /* 105 lost before the capture */
    feed(r, t + 1, (p = aeth(105, IB_AETH_NAK, IB_NAK_PSN_SEQUENCE), &p));
    feed(r, t + 2, (p = rq(105), &p));
    feed(r, t + 3, (p = rq(106), &p));
    feed(r, t + 4, (p = aeth(106, IB_AETH_RNR_NAK, 1), &p));
    feed(r, t + 504, (p = rq(106), &p));
    feed(r, t + 600, (p = aeth(106, IB_AETH_NAK, IB_NAK_REMOTE_ACCESS), &p));
    assert_int_equal(ib_engine_qp_count(r->e), 1);
    struct ib_qp_stats q;
    ib_engine_qp(r->e, 0, &q);
    assert_int_equal(q.qp.index, 0);
    assert_int_equal(q.qp.qpn, QP_B);
    assert_false(q.from_cm);
    assert_int_equal(q.requests[IB_QP_SEND], 9);
    assert_int_equal(q.answers, 5);
    assert_int_equal(q.ack_rtt.count, 5);
    assert_int_equal(q.ack_rtt.min_ns, 10000);
    assert_int_equal(q.ack_rtt.max_ns, 1000000);
    assert_true(q.ack_rtt.median_ns >= 22627 && q.ack_rtt.median_ns < 32000);
    assert_int_equal(q.ack_rtt.p99_ns, 1000000);
    assert_int_equal(q.psn_gaps, 1);
    assert_int_equal(q.psns_missing, 1);
    assert_int_equal(q.naks[IB_NAK_PSN_SEQUENCE], 1);
    assert_int_equal(q.naks[IB_NAK_REMOTE_ACCESS], 1);
    assert_int_equal(q.resends[IB_RESEND_NAK], 2);
    assert_int_equal(q.resends[IB_RESEND_RNR_NAK], 1);
    assert_int_equal(q.rnr_naks, 1);
    assert_int_equal(q.rnr_wait_ns, 500000);
    assert_true(q.died);
    assert_int_equal(q.first.frame, 1);
    assert_int_equal(q.last.frame, r->frame);
    assert_string_equal(ib_qp_op_name(IB_QP_ATOMIC), "atomic");
}

static void test_messages(void **state)
{
    struct run *r = *state;
    struct ib_packet p;
    feed_silent(r, 0, (p = rq(100), &p));
    feed(r, 10, (p = rq(103), &p));
    char buf[IB_FINDING_TEXT_MAX];
    assert_string_equal(ib_finding_format(&r->out.findings[0], buf, sizeof buf),
                        "QP 0x000100 of 10.0.0.2: PSN 103 where 101 was next (2 not seen)");
    assert_string_equal(ib_resend_cause_name(IB_RESEND_RNR_NAK), "rnr_nak");
    assert_int_equal(ib_resend_cause_by_name("spurious"), IB_RESEND_SPURIOUS);
    assert_int_equal(ib_exhausted_cause_by_name("late_acks"), IB_EXHAUSTED_LATE_ACKS);
    assert_int_equal(ib_exhausted_cause_by_name("x"), IB_EXHAUSTED_CAUSE_COUNT);
    assert_string_equal(ib_nak_code_key(IB_NAK_REMOTE_OPERATIONAL), "remote_operational_error");
    assert_int_equal(ib_nak_code_by_key("invalid_rd_request"), IB_NAK_INVALID_RD_REQUEST);
    assert_int_equal(ib_nak_code_by_key("psn sequence error"), IB_NAK_CODES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
        T(test_clean_without_cm),
        T(test_psn_wraps),
        T(test_gap_then_capture_loss),
        T(test_wire_loss_nak_go_back),
        T(test_nak_codes_are_errors),
        T(test_reorder),
        T(test_rnr_nak_and_wait),
        T(test_spurious),
        T(test_start_mismatch),
        T(test_timeout_resend_and_ack_timeout),
        T(test_retries_exhausted),
        T(test_last_try_answered_is_not_exhausted),
        T(test_read_takes_its_responses_psns),
        T(test_uc_is_not_followed),
        T(test_qp_cap),
        T(test_setup_cap),
        T(test_setup_serves_both_directions),
        T(test_statistics),
        T(test_messages),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
