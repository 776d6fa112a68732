/* test_engine_congestion.c - CE marks and CNPs, PFC and PAUSE pauses, on
 * hand-built packets: each ce_without_cnp and pfc_storm at its frame with
 * its related frame, the statistics worked out by hand, and the edges
 * (a CNP at exactly the window's end, a pause renewed at exactly its run-out
 * time, XON, run-out, the end of the capture). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "engine.h"
#include "test_support.h"

enum { SEND_ONLY = 0x04, ACK = 0x11 };

/* Host A (10.0.0.1) and host B (10.0.0.2) on RoCEv2; the CM pairs A's QP
 * 0x200 with B's QP 0x100. */
#define QP_A 0x200
#define QP_B 0x100

static struct ib_packet rc(uint8_t from, uint8_t to, uint32_t destqp, uint8_t opcode, uint32_t psn)
{
    struct ib_packet p;
    memset(&p, 0, sizeof p);
    p.encap = IB_ENCAP_ROCEV2;
    p.present = IB_HAS_BTH | IB_HAS_IP | IB_HAS_VLAN;
    p.src = ts_rocev2_host(from);
    p.dst = ts_rocev2_host(to);
    p.bth.opcode = opcode;
    p.bth.destqp = destqp;
    p.bth.psn = psn;
    p.wire.ip_ecn = IB_ECN_ECT0;
    p.wire.vlan_pcp[0] = 3;
    return p;
}

/* A's next request to B (PSNs from the REP's 100 on), marked CE or not. */
static uint32_t next_psn;

static struct ib_packet rq(bool ce)
{
    struct ib_packet p = rc(1, 2, QP_B, SEND_ONLY, next_psn++);
    if (ce)
        p.wire.ip_ecn = IB_ECN_CE;
    return p;
}

/* B's CNP to A's QP. */
static struct ib_packet cnp(void)
{
    struct ib_packet p = rc(2, 1, QP_A, IB_OPCODE_CNP, 0);
    p.wire.ip_ecn = IB_ECN_NOT_ECT;
    p.wire.vlan_pcp[0] = 6;
    return p;
}

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

static struct ib_packet cm_req(void)
{
    struct ib_packet p = cm_msg(1, 2, IB_CM_REQ);
    p.mad.tid = 7;
    p.cm.local_comm_id = 7;
    p.cm.u.req.local_qpn = QP_A;
    p.cm.u.req.starting_psn = 500;
    p.cm.u.req.retry_count = 7;
    p.cm.u.req.primary.local_ack_timeout = 14;
    p.cm.u.req.path_mtu = 3;
    p.cm.u.req.remote_cm_resp_timeout = p.cm.u.req.local_cm_resp_timeout = 20;
    p.cm.u.req.max_cm_retries = 15;
    return p;
}

static struct ib_packet cm_rep(void)
{
    struct ib_packet p = cm_msg(2, 1, IB_CM_REP);
    p.mad.tid = 7;
    p.cm.local_comm_id = 8;
    p.cm.remote_comm_id = 7;
    p.cm.u.rep.local_qpn = QP_B;
    p.cm.u.rep.starting_psn = 100;
    return p;
}

/* A PFC frame: priority prio's time quanta (enable bit set), or a PAUSE. */
static struct ib_packet pfc(unsigned prio, uint16_t quanta)
{
    struct ib_packet p;
    memset(&p, 0, sizeof p);
    p.present = IB_HAS_ETH | IB_HAS_MAC_CONTROL;
    p.macc.opcode = IB_MACC_OPCODE_PFC;
    p.macc.complete = true;
    p.macc.class_enable = (uint16_t)(1u << prio);
    p.macc.quanta[prio] = quanta;
    return p;
}

static struct ib_packet pause_frame(uint16_t quanta)
{
    struct ib_packet p = pfc(0, 0);
    p.macc.opcode = IB_MACC_OPCODE_PAUSE;
    p.macc.class_enable = 0;
    p.macc.pause_quanta = quanta;
    return p;
}

/* ---- the engine, fed a frame at a time (times in ns) ---- */

struct run {
    struct ib_engine *e;
    uint64_t frame;
    struct ib_frame_analysis out;
};

static struct run R;

static int setup(void **state)
{
    memset(&R, 0, sizeof R);
    next_psn = 100;
    R.e = ib_engine_new(NULL);
    assert_non_null(R.e);
    *state = &R;
    return 0;
}

static int teardown(void **state)
{
    struct run *r = *state;
    ib_engine_free(r->e);
    return 0;
}

static unsigned feed(struct run *r, int64_t ns, const struct ib_packet *p)
{
    struct ib_frame_ref at = { 0, ++r->frame, ns };
    if (ib_packet_has(p, IB_HAS_MAC_CONTROL))
        ib_engine_feed_mac_control(r->e, at, p, &r->out);
    else
        ib_engine_feed(r->e, at, p, &r->out);
    return r->out.count;
}

static unsigned feed_rq(struct run *r, int64_t ns, bool ce)
{
    struct ib_packet p = rq(ce);
    return feed(r, ns, &p);
}

/* The CM pairs the queue pair at 0 and 1 us: frames 1 and 2. */
static void connect(struct run *r)
{
    struct ib_packet req = cm_req(), rep = cm_rep();
    assert_int_equal(feed(r, 0, &req), 0);
    assert_int_equal(feed(r, 1000, &rep), 0);
}

static void assert_unanswered(const struct ib_finding *f, uint64_t frame, uint64_t related)
{
    assert_int_equal(f->kind, IB_FIND_CE_WITHOUT_CNP);
    assert_int_equal(f->at.frame, frame);
    assert_int_equal(f->related.frame, related);
    assert_int_equal(f->data.qp.qpn, QP_B);
    assert_int_equal(f->data.sender_qpn, QP_A);
    assert_int_equal(f->data.window_us, IB_CNP_WINDOW_US_DEFAULT);
}

/* A CNP at exactly +50 us answers; one at +50.001 us is the first after the
 * window: the mark is found on its own frame, naming the CNP. */
static void cnp_at_the_window(void **state)
{
    struct run *r = *state;
    connect(r);
    struct ib_packet n = cnp();
    assert_int_equal(feed_rq(r, 10000, true), 0);   /* frame 3 */
    assert_int_equal(feed(r, 60000, &n), 0);        /* frame 4: exactly +50 us */
    assert_int_equal(feed_rq(r, 100000, false), 0); /* frame 5 */
    assert_int_equal(feed_rq(r, 200000, true), 0);  /* frame 6 */
    assert_int_equal(feed(r, 250001, &n), 1);       /* frame 7: 1 ns late */
    assert_unanswered(&r->out.findings[0], 6, 7);
    struct ib_frame_analysis out;
    assert_false(ib_engine_drain(r->e, &out));
    assert_int_equal(out.count, 0);
    assert_int_equal(ib_engine_cnp_count(r->e), 1);
    struct ib_cnp_stats s;
    ib_engine_cnp(r->e, 0, &s);
    assert_int_equal(s.sender_qpn, QP_A);
    assert_true(s.has_qpn);
    assert_int_equal(s.qpn, QP_B);
    assert_int_equal(s.ce_marks, 2);
    assert_int_equal(s.cnps, 2);
    assert_int_equal(s.answered, 1);
    assert_int_equal(s.unanswered, 1);
    assert_true(s.has_delay);
    assert_int_equal(s.delay_min_ns, 50000);
    assert_int_equal(s.delay_max_ns, 50000);
    assert_true(s.has_cnp_gap);
    assert_int_equal(s.cnp_gap_min_ns, 190001);
    assert_true(s.has_cnp_rate);
    assert_true(s.cnp_rate_per_s > 5263.1 && s.cnp_rate_per_s < 5263.2); /* 1 / 190.001 us */
    assert_int_equal(s.first.frame, 3);
    assert_int_equal(s.last.frame, 7);
}

/* One CNP answers every mark of its window; a mark never answered is found
 * at the end of the capture without a related frame, and one whose window
 * reaches past the end is left open. */
static void never_answered(void **state)
{
    struct run *r = *state;
    connect(r);
    struct ib_packet n = cnp();
    assert_int_equal(feed_rq(r, 10000, true), 0);   /* 3 */
    assert_int_equal(feed_rq(r, 20000, true), 0);   /* 4 */
    assert_int_equal(feed(r, 30000, &n), 0);        /* 5: answers both (20 and 10 us) */
    assert_int_equal(feed_rq(r, 40000, true), 0);   /* 6: never */
    assert_int_equal(feed_rq(r, 500000, false), 0); /* 7: the window has passed */
    assert_int_equal(feed_rq(r, 480000, true), 0);  /* 8: a clock behind; open at the end */
    struct ib_frame_analysis out;
    assert_false(ib_engine_drain(r->e, &out));
    assert_int_equal(out.count, 1);
    assert_unanswered(&out.findings[0], 6, 0);
    struct ib_cnp_stats s;
    ib_engine_cnp(r->e, 0, &s);
    assert_int_equal(s.ce_marks, 4);
    assert_int_equal(s.answered, 2);
    assert_int_equal(s.unanswered, 1);
    assert_int_equal(s.open_at_end, 1);
    assert_int_equal(s.delay_min_ns, 10000);
    assert_int_equal(s.delay_mean_ns, 15000);
    assert_int_equal(s.delay_max_ns, 20000);
    assert_false(s.has_cnp_gap);
    assert_false(s.has_cnp_rate);
}

/* With no CNP at all, a mark is found a second past its window, on the
 * frame that passes that time, without waiting for the end.  No CM here:
 * the ACK pairs the two directions. */
static void found_after_the_late_wait(void **state)
{
    struct run *r = *state;
    struct ib_packet a = rc(2, 1, QP_A, ACK, 100);
    a.present |= IB_HAS_AETH;
    a.ext.aeth.kind = IB_AETH_ACK;
    assert_int_equal(feed_rq(r, 1000, false), 0); /* 1: PSN 100 */
    assert_int_equal(feed(r, 2000, &a), 0);       /* 2 */
    assert_false(ib_engine_has_timers(r->e));
    assert_int_equal(feed_rq(r, 10000, true), 0); /* 3 */
    assert_true(ib_engine_has_timers(r->e));
    assert_int_equal(feed_rq(r, 10000 + 50000 + 1000000000, false), 0); /* exactly then: waits */
    assert_int_equal(feed_rq(r, 10000 + 50000 + 1000000001, false), 1);
    assert_unanswered(&r->out.findings[0], 3, 0);
    assert_false(ib_engine_has_timers(r->e));
}

/* A mark on a packet the transport analysis has not paired (no CM, no
 * answer yet) has no QP for its CNP: not followed. */
static void unpaired_not_followed(void **state)
{
    struct run *r = *state;

    assert_int_equal(feed_rq(r, 10000, true), 0);
    assert_int_equal(ib_engine_cnp_count(r->e), 0);
    assert_false(ib_engine_has_timers(r->e));
}

/* A CNP with no mark seen (the capture is on the sender's side, before the
 * switch that marks) is counted; its flow's QP comes of the pairing. */
static void cnp_alone(void **state)
{
    struct run *r = *state;
    connect(r);
    struct ib_packet first = rq(false), n = cnp();
    assert_int_equal(feed(r, 10000, &first), 0);
    assert_int_equal(feed(r, 20000, &n), 0);
    struct ib_cnp_stats s;
    assert_int_equal(ib_engine_cnp_count(r->e), 1);
    ib_engine_cnp(r->e, 0, &s);
    assert_int_equal(s.ce_marks, 0);
    assert_int_equal(s.cnps, 1);
    assert_true(s.has_qpn);
    assert_int_equal(s.qpn, QP_B);
    assert_false(s.has_delay);
}

/* What the congestion sink was told, in order. */
static struct ib_congestion_change events[16];
static unsigned event_count;

static void on_event(void *ctx, const struct ib_congestion_change *c)
{
    (void)ctx;
    if (event_count < 16)
        events[event_count] = *c;
    event_count++;
}

/* 0xFFFF quanta at 100 Gb/s: 65535 x 512 / 100 = 335539.2 ns, so a renewal
 * at +335539 ns continues the pause and one at +335540 ns starts another. */
static void pause_run_out(void **state)
{
    struct run *r = *state;
    event_count = 0;
    ib_engine_set_congestion_sink(r->e, on_event, NULL);
    struct ib_packet x = pfc(3, 0xFFFF);
    assert_int_equal(feed(r, 1000000, &x), 0);          /* 1: starts */
    assert_int_equal(feed(r, 1000000 + 335539, &x), 0); /* 2: just in time: renews */
    int64_t until = 1000000 + 335539 + 335539;
    assert_int_equal(feed(r, until + 1, &x), 0); /* 3: ran out 1 ns ago: a new pause */
    struct ib_packet xon = pfc(3, 0);
    assert_int_equal(feed(r, until + 1 + 1000, &xon), 0); /* 4: XON after 1 us */
    assert_int_equal(feed(r, until + 5000, &xon), 0);     /* 5: XON while not paused */
    struct ib_frame_analysis out;
    assert_false(ib_engine_drain(r->e, &out));
    assert_int_equal(ib_engine_pfc_count(r->e), 1);
    struct ib_pfc_stats s;
    ib_engine_pfc(r->e, 0, &s);
    assert_int_equal(s.capture, 0);
    assert_int_equal(s.priority, 3);
    assert_false(s.roce); /* no data packet had priority 3 */
    assert_int_equal(s.frames, 5);
    assert_int_equal(s.pauses, 2);
    assert_int_equal(s.xons, 1);
    assert_int_equal(s.storms, 0);
    assert_int_equal(s.paused_ns, 2 * 335539 + 1000);
    assert_int_equal(s.longest_ns, 2 * 335539);
    assert_int_equal(s.longest_at.frame, 1);
    assert_false(s.paused_at_end);
    /* Start, the run-out (at the time it ran out, learned at frame 3), a
     * start, the XON's end. */
    assert_int_equal(event_count, 4);
    const int64_t times[4][3] = { { IB_EVENT_PAUSE_START, 1000000, 1000000 },
                                  { IB_EVENT_PAUSE_END, until, 1000000 },
                                  { IB_EVENT_PAUSE_START, until + 1, until + 1 },
                                  { IB_EVENT_PAUSE_END, until + 1001, until + 1 } };
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(events[i].event, times[i][0]);
        assert_int_equal(events[i].time_ns, times[i][1]);
        assert_int_equal(events[i].start_ns, times[i][2]);
        assert_int_equal(events[i].priority, 3);
    }
}

/* Renewed every 300 us: the first renewal 100 ms or more after the start
 * is the storm, once per pause, naming the start; RoCE uses the priority. */
static void storm(void **state)
{
    struct run *r = *state;
    connect(r);
    struct ib_packet data = rq(false), x = pfc(3, 0xFFFF);
    assert_int_equal(feed(r, 2000, &data), 0); /* 3: priority 3 */
    int64_t t0 = 1000000;
    unsigned storms = 0;
    uint64_t storm_frame = 0;
    for (int64_t t = t0; t <= t0 + 150000000; t += 300000) {
        if (feed(r, t, &x)) {
            storms++;
            storm_frame = r->frame;
            const struct ib_finding *f = &r->out.findings[0];
            assert_int_equal(f->kind, IB_FIND_PFC_STORM);
            assert_int_equal(f->related.frame, 4);
            assert_int_equal(f->data.priority, 3);
            assert_int_equal(f->data.paused_us, 100200); /* 334 x 300 us */
            assert_true(f->data.roce);
        }
    }
    assert_int_equal(storms, 1);
    assert_int_equal(storm_frame, 4 + 334);
    struct ib_frame_analysis out;
    assert_false(ib_engine_drain(r->e, &out)); /* the last renewal runs past the end */
    struct ib_pfc_stats s;
    ib_engine_pfc(r->e, 0, &s);
    assert_true(s.roce);
    assert_int_equal(s.pauses, 1);
    assert_int_equal(s.storms, 1);
    assert_true(s.paused_at_end);
    assert_int_equal(s.paused_ns, 150000000);
}

/* A PAUSE frame pauses the whole link ("all"): counted, never a storm. */
static void pause_all(void **state)
{
    struct run *r = *state;
    struct ib_packet x = pause_frame(0xFFFF);
    for (int64_t t = 0; t <= 200000000; t += 300000)
        assert_int_equal(feed(r, t, &x), 0);
    struct ib_packet cut = pfc(2, 100);
    cut.macc.complete = false; /* cut short: its times are not read */
    assert_int_equal(feed(r, 300000000, &cut), 0);
    struct ib_frame_analysis out;
    assert_false(ib_engine_drain(r->e, &out));
    assert_int_equal(ib_engine_pfc_count(r->e), 1);
    struct ib_pfc_stats s;
    ib_engine_pfc(r->e, 0, &s);
    assert_int_equal(s.priority, IB_PFC_ALL);
    assert_false(s.pfc);
    assert_int_equal(s.pauses, 1);
    assert_int_equal(s.storms, 0);
    assert_int_equal(s.paused_ns, 199800000 + 335539); /* ran out before the last frame */
    assert_false(s.paused_at_end);
    assert_int_equal(ib_engine_stats(r->e)->mac_control_frames, 668);
}

/* Pauses are per link: the same priority on two captures is two. */
static void per_capture(void **state)
{
    struct run *r = *state;
    struct ib_packet x = pfc(5, 1000);
    struct ib_frame_ref at = { 1, 1, 0 };
    ib_engine_feed_mac_control(r->e, at, &x, &r->out);
    at = (struct ib_frame_ref){ 0, 1, 10000 };
    ib_engine_feed_mac_control(r->e, at, &x, &r->out);
    struct ib_frame_analysis out;
    assert_false(ib_engine_drain(r->e, &out));
    assert_int_equal(ib_engine_pfc_count(r->e), 2);
    struct ib_pfc_stats s;
    ib_engine_pfc(r->e, 0, &s);
    assert_int_equal(s.capture, 1);
    assert_int_equal(s.paused_ns, 5120); /* 1000 x 5.12 ns, run out */
    ib_engine_pfc(r->e, 1, &s);
    assert_int_equal(s.capture, 0);
}

/* The settings' rule. */
static void config_rule(void **state)
{
    (void)state;
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    assert_null(ib_engine_config_problem(&cfg));
    cfg.cnp_window_us = 0;
    assert_non_null(ib_engine_config_problem(&cfg));
    cfg.cnp_window_us = IB_CNP_WINDOW_US_MAX + 1;
    assert_non_null(ib_engine_config_problem(&cfg));
    cfg.cnp_window_us = IB_CNP_WINDOW_US_MAX;
    cfg.pfc_storm_ms = 0;
    assert_non_null(ib_engine_config_problem(&cfg));
    cfg.pfc_storm_ms = 1;
    assert_null(ib_engine_config_problem(&cfg));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(cnp_at_the_window, setup, teardown),
        cmocka_unit_test_setup_teardown(never_answered, setup, teardown),
        cmocka_unit_test_setup_teardown(found_after_the_late_wait, setup, teardown),
        cmocka_unit_test_setup_teardown(unpaired_not_followed, setup, teardown),
        cmocka_unit_test_setup_teardown(cnp_alone, setup, teardown),
        cmocka_unit_test_setup_teardown(pause_run_out, setup, teardown),
        cmocka_unit_test_setup_teardown(storm, setup, teardown),
        cmocka_unit_test_setup_teardown(pause_all, setup, teardown),
        cmocka_unit_test_setup_teardown(per_capture, setup, teardown),
        cmocka_unit_test(config_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
