/* test_engine_wire.c - the wire audit's settings on hand-built packets: a
 * direction's one value kept inline, a mix spilled to the side with a count
 * per value in order of first sight, values past IB_WIRE_VALUES_MAX counted
 * together, and each cap (directions, mixes, conversations) counted in the
 * limits, with the counts worked out by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "engine.h"
#include "engine_wire.h"

#define UD_SEND_ONLY 0x64
#define RC_SEND_ONLY 0x04

/* A RoCEv2 UD SEND from 10.0.0.<from> to QP qpn of 10.0.0.<to>, with this
 * DSCP and ECN, VLAN priority 3: the transport analysis leaves UD alone, so
 * the audit looks its direction up in its own table. */
static struct ib_packet ud(unsigned from, unsigned to, uint32_t qpn, uint8_t dscp, uint8_t ecn)
{
    struct ib_packet p;
    memset(&p, 0, sizeof p);
    p.encap = IB_ENCAP_ROCEV2;
    p.present = IB_HAS_BTH | IB_HAS_IP | IB_HAS_VLAN | IB_HAS_GIDS;
    struct ib_endpoint *ends[2] = { &p.src, &p.dst };
    unsigned last[2] = { from, to };
    for (unsigned i = 0; i < 2; i++) {
        ends[i]->has_gid = true;
        ends[i]->gid[10] = ends[i]->gid[11] = 0xFF;
        ends[i]->gid[12] = 10;
        ends[i]->gid[13] = (uint8_t)(last[i] >> 8);
        ends[i]->gid[15] = (uint8_t)last[i];
    }
    p.bth.opcode = UD_SEND_ONLY;
    p.bth.destqp = qpn;
    p.wire.ip_dscp = dscp;
    p.wire.ip_ecn = ecn;
    p.wire.ip_ttl = 64;
    p.wire.vlan_pcp[0] = 3;
    p.wire.src_gid_kind = p.wire.dst_gid_kind = IB_GID_KIND_IPV4_MAPPED;
    return p;
}

struct run {
    struct ib_engine *e;
    uint64_t frame;
    struct ib_frame_analysis out;
};

static void feed(struct run *r, const struct ib_packet *p)
{
    struct ib_frame_ref at = { 0, ++r->frame, (int64_t)r->frame * 1000 };
    ib_engine_feed(r->e, at, p, &r->out);
}

static void feed_n(struct run *r, const struct ib_packet *p, unsigned n)
{
    while (n--)
        feed(r, p);
}

static struct run *start(const struct ib_engine_config *cfg)
{
    static struct run r;
    memset(&r, 0, sizeof r);
    r.e = ib_engine_new(cfg);
    assert_non_null(r.e);
    return &r;
}

static void assert_values(const struct ib_wire_mix *m, uint32_t count, const uint8_t *values,
                          const uint64_t *packets, uint64_t other)
{
    assert_int_equal(m->count, count);
    for (uint32_t i = 0; i < count; i++) {
        assert_int_equal(m->values[i].value, values[i]);
        assert_int_equal(m->values[i].packets, packets[i]);
        assert_true(m->values[i].known == (values[i] != IB_WIRE_NO_VALUE));
    }
    assert_int_equal(m->other, other);
}

/* The mix's own arithmetic: values in order of first sight, a fifth one
 * counted in other. */
static void test_mix_add(void **state)
{
    (void)state;
    struct ib_wire_mix m;
    memset(&m, 0, sizeof m);
    eng_wire_mix_add(&m, 26, 1000);
    eng_wire_mix_add(&m, 0, 3);
    eng_wire_mix_add(&m, 26, 2);
    eng_wire_mix_add(&m, IB_WIRE_NO_VALUE, 1);
    eng_wire_mix_add(&m, 46, 4);
    eng_wire_mix_add(&m, 10, 5); /* the fifth distinct value */
    eng_wire_mix_add(&m, 12, 6);
    eng_wire_mix_add(&m, 0, 1);
    assert_values(&m, 4, (const uint8_t[]){ 26, 0, IB_WIRE_NO_VALUE, 46 },
                  (const uint64_t[]){ 1002, 4, 1, 4 }, 11);
}

/* One value: inline, reported as one value with every packet. */
static void test_one_value(void **state)
{
    (void)state;
    struct run *r = start(NULL);
    struct ib_packet p = ud(1, 2, 0x10, 26, IB_ECN_ECT0);
    feed_n(r, &p, 5);
    assert_int_equal(ib_engine_wire_count(r->e), 1);
    struct ib_wire_direction d;
    ib_engine_wire_direction(r->e, 0, &d);
    assert_int_equal(d.packets, 5);
    assert_int_equal(d.qpn, 0x10);
    assert_int_equal(d.first.frame, 1);
    assert_false(d.has_pair);
    assert_values(&d.fields[IB_WIRE_DSCP], 1, (const uint8_t[]){ 26 }, (const uint64_t[]){ 5 }, 0);
    assert_values(&d.fields[IB_WIRE_ECN], 1, (const uint8_t[]){ IB_ECN_ECT0 },
                  (const uint64_t[]){ 5 }, 0);
    assert_values(&d.fields[IB_WIRE_PRIORITY], 1, (const uint8_t[]){ 3 }, (const uint64_t[]){ 5 },
                  0);
    assert_values(&d.fields[IB_WIRE_VERSION], 1, (const uint8_t[]){ IB_WIRE_ROCEV2 },
                  (const uint64_t[]){ 5 }, 0);
    assert_values(&d.fields[IB_WIRE_GID_KIND], 1, (const uint8_t[]){ IB_GID_KIND_IPV4_MAPPED },
                  (const uint64_t[]){ 5 }, 0);
    assert_int_equal(ib_engine_stats(r->e)->wire_mixes_dropped, 0);
    ib_engine_free(r->e);
}

/* A change of DSCP spills the direction to a mix: the packets before it
 * all counted under the first value, the others each under theirs; the
 * settings that did not change stay one value. */
static void test_spill(void **state)
{
    (void)state;
    struct run *r = start(NULL);
    struct ib_packet a = ud(1, 2, 0x10, 26, IB_ECN_ECT0), b = ud(1, 2, 0x10, 0, IB_ECN_ECT0),
                     ce = ud(1, 2, 0x10, 26, IB_ECN_CE);
    feed_n(r, &a, 1000);
    feed_n(r, &b, 3);
    feed_n(r, &a, 7);
    feed_n(r, &ce, 2);
    struct ib_wire_direction d;
    ib_engine_wire_direction(r->e, 0, &d);
    assert_int_equal(d.packets, 1012);
    assert_values(&d.fields[IB_WIRE_DSCP], 2, (const uint8_t[]){ 26, 0 },
                  (const uint64_t[]){ 1009, 3 }, 0);
    assert_values(&d.fields[IB_WIRE_ECN], 2, (const uint8_t[]){ IB_ECN_ECT0, IB_ECN_CE },
                  (const uint64_t[]){ 1010, 2 }, 0);
    assert_values(&d.fields[IB_WIRE_PRIORITY], 1, (const uint8_t[]){ 3 },
                  (const uint64_t[]){ 1012 }, 0);
    ib_engine_free(r->e);
}

/* Past ENG_WIRE_MIXES_MAX mixed directions, the next one's values are not
 * kept: counted in limits, its packets all in other. */
static void test_mixes_cap(void **state)
{
    (void)state;
    struct run *r = start(NULL);
    for (uint32_t q = 0; q <= ENG_WIRE_MIXES_MAX; q++) {
        struct ib_packet a = ud(1, 2, 0x100 + q, 26, IB_ECN_ECT0),
                         b = ud(1, 2, 0x100 + q, 0, IB_ECN_ECT0);
        feed_n(r, &a, 2);
        feed(r, &b);
    }
    assert_int_equal(ib_engine_stats(r->e)->wire_mixes_dropped, 1);
    struct ib_wire_direction d;
    ib_engine_wire_direction(r->e, ENG_WIRE_MIXES_MAX - 1, &d);
    assert_values(&d.fields[IB_WIRE_DSCP], 2, (const uint8_t[]){ 26, 0 },
                  (const uint64_t[]){ 2, 1 }, 0);
    ib_engine_wire_direction(r->e, ENG_WIRE_MIXES_MAX, &d);
    assert_int_equal(d.packets, 3);
    for (unsigned f = 0; f < IB_WIRE_FIELD_COUNT; f++)
        assert_values(&d.fields[f], 0, NULL, NULL, 3);
    ib_engine_free(r->e);
}

/* Directions past 2 x max_qps and conversations past max_qps are counted,
 * not kept. */
static void test_direction_and_conversation_caps(void **state)
{
    (void)state;
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.max_qps = 2;
    struct run *r = start(&cfg);
    /* Two conversations (1-2, 1-3), four directions; then a fifth
     * direction, and a third conversation (1-4). */
    struct ib_packet p[] = { ud(1, 2, 0x10, 26, 2), ud(2, 1, 0x11, 26, 2), ud(1, 3, 0x12, 26, 2),
                             ud(3, 1, 0x13, 26, 2), ud(1, 2, 0x14, 26, 2), ud(1, 4, 0x15, 26, 2) };
    for (unsigned i = 0; i < 4; i++)
        feed(r, &p[i]);
    assert_int_equal(ib_engine_wire_count(r->e), 4);
    assert_int_equal(ib_engine_stats(r->e)->wire_directions_dropped, 0);
    assert_int_equal(ib_engine_stats(r->e)->wire_conversations_dropped, 0);
    feed(r, &p[4]);
    feed(r, &p[5]);
    feed(r, &p[4]); /* each packet of a direction not kept is counted */
    assert_int_equal(ib_engine_wire_count(r->e), 4);
    assert_int_equal(ib_engine_stats(r->e)->wire_directions_dropped, 3);
    ib_engine_free(r->e);

    /* max_qps 3: room for six directions and three conversations.  Four
     * directions of two conversations, a fifth of a third (1-4), a sixth of
     * a fourth (1-5): kept, but its conversation is not. */
    cfg.max_qps = 3;
    r = start(&cfg);
    for (unsigned i = 0; i < 4; i++)
        feed(r, &p[i]);
    feed(r, &p[5]);
    struct ib_packet q = ud(1, 5, 0x16, 26, 2);
    feed(r, &q);
    assert_int_equal(ib_engine_wire_count(r->e), 6);
    assert_int_equal(ib_engine_stats(r->e)->wire_directions_dropped, 0);
    assert_int_equal(ib_engine_stats(r->e)->wire_conversations_dropped, 1);
    struct ib_wire_direction d;
    ib_engine_wire_direction(r->e, 5, &d);
    assert_int_equal(d.packets, 1); /* its settings are still counted */
    ib_engine_free(r->e);
}

/* A CM REQ (comm ID id) from 10.0.0.1's QP qp_a, path MTU code mtu, and
 * the REP from 10.0.0.2's QP qp_b. */
static void handshake(struct run *r, uint32_t id, uint32_t qp_a, uint32_t qp_b, uint8_t mtu)
{
    struct ib_packet q = ud(1, 2, 1, 0, 0), p = ud(2, 1, 1, 0, 0);
    struct ib_packet *m[2] = { &q, &p };
    for (unsigned i = 0; i < 2; i++) {
        m[i]->present |= IB_HAS_DETH | IB_HAS_MAD | IB_HAS_CM;
        m[i]->mad.base_version = 1;
        m[i]->mad.mgmt_class = IB_CLASS_CM;
        m[i]->mad.class_version = 2;
        m[i]->mad.method = IB_METHOD_SEND;
        m[i]->mad.tid = id;
    }
    q.mad.attr_id = q.cm.attr = IB_CM_REQ;
    q.cm.local_comm_id = id;
    q.cm.u.req.local_qpn = qp_a;
    q.cm.u.req.path_mtu = mtu;
    q.cm.u.req.remote_cm_resp_timeout = q.cm.u.req.local_cm_resp_timeout = 20;
    q.cm.u.req.max_cm_retries = 15;
    p.mad.attr_id = p.cm.attr = IB_CM_REP;
    p.cm.local_comm_id = id + 1000;
    p.cm.remote_comm_id = id;
    p.cm.u.rep.local_qpn = qp_b;
    feed(r, &q);
    feed(r, &p);
}

/* The CM's set-up waits for a direction's first packet: none made by the
 * REP; the first packet each way gets its path MTU, and the two are
 * paired.  Set-ups past max_qps waiting are forgotten, counted. */
static void test_setups(void **state)
{
    (void)state;
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.max_qps = 2;
    struct run *r = start(&cfg);
    handshake(r, 7, 0x200, 0x100, 3); /* 1024 bytes */
    assert_int_equal(ib_engine_wire_count(r->e), 0);
    struct ib_packet a = ud(1, 2, 0x100, 26, IB_ECN_ECT0), b = ud(2, 1, 0x200, 26, IB_ECN_ECT0);
    feed(r, &a);
    feed(r, &b);
    struct ib_wire_direction d[2];
    for (unsigned i = 0; i < 2; i++) {
        ib_engine_wire_direction(r->e, i, &d[i]);
        assert_true(d[i].has_pair);
        assert_int_equal(d[i].pair, 1 - i);
        assert_int_equal(d[i].path_mtu, 1024);
        assert_int_equal(d[i].req.frame, 1);
    }
    /* Two more connections: four set-ups for room for two. */
    handshake(r, 8, 0x201, 0x101, 3);
    handshake(r, 9, 0x202, 0x102, 3);
    assert_int_equal(ib_engine_stats(r->e)->wire_setups_forgotten, 2);
    struct ib_packet c = ud(1, 2, 0x101, 26, IB_ECN_ECT0), e = ud(1, 2, 0x102, 26, IB_ECN_ECT0);
    feed(r, &c);
    feed(r, &e);
    ib_engine_wire_direction(r->e, 2, &d[0]);
    ib_engine_wire_direction(r->e, 3, &d[1]);
    assert_false(d[0].has_pair); /* connection 8's set-ups were forgotten */
    assert_int_equal(d[0].path_mtu, 0);
    assert_int_equal(d[1].path_mtu, 1024);
    ib_engine_free(r->e);
}

/* Each data packet's links name the direction it was counted in, with
 * the path MTU in force then; a CM message names none. */
static void test_links(void **state)
{
    (void)state;
    struct run *r = start(NULL);
    struct ib_packet a = ud(1, 2, 0x10, 26, IB_ECN_ECT0), b = ud(2, 1, 0x11, 0, IB_ECN_NOT_ECT);
    feed(r, &a);
    assert_true(r->out.links.has_wire_dir);
    assert_int_equal(r->out.links.wire_dir, 0);
    assert_int_equal(r->out.links.wire_path_mtu, 0);
    feed(r, &b);
    assert_true(r->out.links.has_wire_dir);
    assert_int_equal(r->out.links.wire_dir, 1);
    struct ib_wire_direction d;
    ib_engine_wire_direction(r->e, r->out.links.wire_dir, &d);
    assert_int_equal(d.qpn, 0x11);
    feed(r, &a); /* the common packet, its direction's first settings again */
    assert_true(r->out.links.has_wire_dir);
    assert_int_equal(r->out.links.wire_dir, 0);
    /* The CM set-up of 0x100 and 0x200: a MAD names no direction, the
     * data after it the new ones with their path MTU. */
    handshake(r, 7, 0x200, 0x100, 3);
    assert_false(r->out.links.has_wire_dir);
    struct ib_packet c = ud(1, 2, 0x100, 26, IB_ECN_ECT0);
    feed(r, &c);
    assert_true(r->out.links.has_wire_dir);
    assert_int_equal(r->out.links.wire_dir, 2);
    assert_int_equal(r->out.links.wire_path_mtu, 1024);
    /* RC SENDs to the same QP, the same direction: the first looked up,
     * the next through the queue pair's slot (the common packet's path). */
    for (uint32_t psn = 0; psn < 3; psn++) {
        struct ib_packet rc = c;
        rc.bth.opcode = RC_SEND_ONLY;
        rc.bth.psn = psn;
        feed(r, &rc);
        assert_true(r->out.links.has_qp);
        assert_true(r->out.links.has_wire_dir);
        assert_int_equal(r->out.links.wire_dir, 2);
        assert_int_equal(r->out.links.wire_path_mtu, 1024);
    }
    /* A packet to QP 1 is no data packet. */
    struct ib_packet gsi = ud(1, 2, 1, 26, IB_ECN_ECT0);
    feed(r, &gsi);
    assert_false(r->out.links.has_wire_dir);
    ib_engine_free(r->e);
}

/* A packet's values, as its direction counts them, and their words. */
static void test_values(void **state)
{
    (void)state;
    struct ib_packet p = ud(1, 2, 0x10, 26, IB_ECN_CE);
    uint8_t v[IB_WIRE_FIELD_COUNT];
    ib_wire_packet_values(&p, v);
    assert_int_equal(v[IB_WIRE_DSCP], 26);
    assert_int_equal(v[IB_WIRE_ECN], IB_ECN_CE);
    assert_int_equal(v[IB_WIRE_PRIORITY], 3);
    assert_int_equal(v[IB_WIRE_VERSION], IB_WIRE_ROCEV2);
    assert_int_equal(v[IB_WIRE_GID_KIND], IB_GID_KIND_IPV4_MAPPED);
    char buf[8];
    assert_string_equal(ib_wire_value_text(IB_WIRE_DSCP, 26, buf), "26");
    assert_string_equal(ib_wire_value_text(IB_WIRE_ECN, IB_ECN_CE, buf), "CE");
    assert_string_equal(ib_wire_value_text(IB_WIRE_VERSION, IB_WIRE_ROCEV2, buf), "RoCEv2");
    assert_string_equal(ib_wire_value_text(IB_WIRE_GID_KIND, IB_GID_KIND_LINK_LOCAL, buf),
                        "link-local");
    assert_string_equal(ib_wire_value_text(IB_WIRE_PRIORITY, IB_WIRE_NO_VALUE, buf), "-");
    p.present &= ~(unsigned)IB_HAS_VLAN;
    ib_wire_packet_values(&p, v);
    assert_int_equal(v[IB_WIRE_PRIORITY], IB_WIRE_NO_VALUE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mix_add),
        cmocka_unit_test(test_one_value),
        cmocka_unit_test(test_spill),
        cmocka_unit_test(test_mixes_cap),
        cmocka_unit_test(test_direction_and_conversation_caps),
        cmocka_unit_test(test_setups),
        cmocka_unit_test(test_links),
        cmocka_unit_test(test_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
