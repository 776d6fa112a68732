/* test_engine.c - the analysis engine on hand-built packets: CM connections,
 * ports, transactions, redirect chains, addressing, caps. */
#include <setjmp.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "engine.h"

/* ---- packet builders ---- */

static struct ib_endpoint lid(uint16_t l)
{
    struct ib_endpoint ep;
    memset(&ep, 0, sizeof ep);
    ep.lid = l;
    return ep;
}

static struct ib_endpoint lid_gid(uint16_t l, uint8_t last)
{
    struct ib_endpoint ep = lid(l);
    static const uint8_t prefix[8] = { 0xfe, 0x80 };
    ep.has_gid = true;
    memcpy(ep.gid, prefix, 8);
    ep.gid[15] = last;
    return ep;
}

static struct ib_packet base(struct ib_endpoint src, struct ib_endpoint dst, uint32_t destqp)
{
    struct ib_packet p;
    memset(&p, 0, sizeof p);
    p.encap = IB_ENCAP_NATIVE;
    p.present = IB_HAS_LRH | IB_HAS_BTH | IB_HAS_DETH | IB_HAS_MAD;
    p.src = src;
    p.dst = dst;
    p.lrh.slid = src.lid;
    p.lrh.dlid = dst.lid;
    if (src.has_gid && dst.has_gid) {
        p.present |= IB_HAS_GRH;
        memcpy(p.grh.sgid, src.gid, 16);
        memcpy(p.grh.dgid, dst.gid, 16);
    }
    p.bth.opcode = IB_OPCODE_UD_SEND_ONLY;
    p.bth.pkey = 0xffff;
    p.bth.destqp = destqp;
    p.deth.qkey = IB_GSI_QKEY;
    p.deth.srcqp = 1;
    p.mad.base_version = 1;
    return p;
}

struct tup {
    uint32_t sip;
    uint16_t sport;
    uint32_t dip;
    uint16_t dport;
};

static void put_ip4(uint8_t ip[16], uint32_t a)
{
    memset(ip, 0, 16);
    ip[12] = (uint8_t)(a >> 24);
    ip[13] = (uint8_t)(a >> 16);
    ip[14] = (uint8_t)(a >> 8);
    ip[15] = (uint8_t)a;
}

static struct ib_packet cm(struct ib_endpoint src, struct ib_endpoint dst, uint16_t attr,
                           uint32_t local, uint32_t remote)
{
    struct ib_packet p = base(src, dst, 1);
    p.present |= IB_HAS_CM;
    p.mad.mgmt_class = IB_CLASS_CM;
    p.mad.class_version = 2;
    p.mad.method = IB_METHOD_SEND;
    p.mad.attr_id = attr;
    p.mad.tid = local;
    p.cm.attr = attr;
    p.cm.local_comm_id = local;
    p.cm.remote_comm_id = remote;
    return p;
}

static struct ib_packet req_to(struct ib_endpoint src, struct ib_endpoint dst, uint32_t destqp,
                               uint32_t comm, struct tup t)
{
    struct ib_packet p = cm(src, dst, IB_CM_REQ, comm, 0);
    p.bth.destqp = destqp;
    p.cm.has_service_id = true;
    p.cm.sid.raw = IB_IPCM_SID_PREFIX | (uint64_t)IB_PS_TCP << 16 | t.dport;
    p.cm.sid.ip_cm = true;
    p.cm.sid.port_space = IB_PS_TCP;
    p.cm.sid.dport = t.dport;
    p.cm.u.req.service_id = p.cm.sid.raw;
    /* rdma_cm's timing on RoCE (cma.c: CMA_CM_RESPONSE_TIMEOUT 20,
     * CMA_MAX_CM_RETRIES 15, packet life 16): the active side waits
     * 2 x 256 + 4096 ms a try. */
    p.cm.u.req.remote_cm_resp_timeout = 20;
    p.cm.u.req.local_cm_resp_timeout = 20;
    p.cm.u.req.max_cm_retries = 15;
    p.cm.u.req.primary.local_ack_timeout = 17;
    p.cm.has_ipcm = true;
    p.cm.ipcm.ipv = 4;
    p.cm.ipcm.valid = true;
    p.cm.ipcm.src_port = t.sport;
    put_ip4(p.cm.ipcm.src_ip, t.sip);
    put_ip4(p.cm.ipcm.dst_ip, t.dip);
    return p;
}

static struct ib_packet req(uint16_t a, uint16_t b, uint32_t comm, struct tup t)
{
    return req_to(lid(a), lid(b), 1, comm, t);
}

static struct ib_cpi cpi_to(uint16_t l, uint32_t qp, uint32_t qkey, uint16_t pkey)
{
    struct ib_cpi c;
    memset(&c, 0, sizeof c);
    c.base_version = 1;
    c.redirect_lid = l;
    c.redirect_qp = qp;
    c.redirect_qkey = qkey;
    c.redirect_pkey = pkey;
    return c;
}

static struct ib_packet mad_get(struct ib_endpoint src, struct ib_endpoint dst, uint32_t destqp,
                                uint8_t cls, uint64_t tid)
{
    struct ib_packet p = base(src, dst, destqp);
    p.mad.mgmt_class = cls;
    p.mad.method = IB_METHOD_GET;
    p.mad.tid = tid;
    p.mad.attr_id = 0x12;
    return p;
}

static struct ib_packet mad_resp(struct ib_endpoint src, struct ib_endpoint dst, uint8_t cls,
                                 uint64_t tid, const struct ib_cpi *redirect)
{
    struct ib_packet p = base(src, dst, 1);
    p.mad.mgmt_class = cls;
    p.mad.method = IB_METHOD_GET_RESP;
    p.mad.response = true;
    p.mad.tid = tid;
    if (redirect) {
        p.mad.status = IB_MAD_STATUS_REDIRECT;
        p.mad.status_redirect = true;
        p.mad.attr_id = IB_ATTR_CLASS_PORT_INFO;
        p.present |= IB_HAS_CPI;
        p.cpi = *redirect;
    }
    return p;
}

/* A pointer to a temporary packet. */
#define PK(x) (&(struct ib_packet[1]){ x }[0])

/* ---- fixture ---- */

#define SINK_MAX 64
#define TEN(x)   (0x0a000000u | (x)) /* 10.0.0.x */

static struct ib_engine *E;
static int64_t time_base; /* later() moves the clock on */
/* A live LocalCommID is never used again (cm.c allocates them
 * cyclically): each connection its own, and the one holding each port. */
static uint32_t next_comm = 1;
static uint32_t comm_of_port[65536];
/* The passive side's comm ID for the connection of LocalCommID comm. */
#define PASSIVE_ID(comm) ((comm) ^ 0x5a5a0000u)

static struct ib_connection_stats conn_stats(void)
{
    struct ib_connection_stats cs;
    ib_engine_connections(E, &cs);
    return cs;
}
static uint64_t frame_no;
static struct ib_frame_analysis A;
static struct ib_connection_record sink_recs[SINK_MAX];
static unsigned sink_n;

static void sink(void *ctx, const struct ib_connection_record *rec)
{
    (void)ctx;
    if (sink_n < SINK_MAX)
        sink_recs[sink_n] = *rec;
    sink_n++;
}

static void start(const struct ib_engine_config *cfg)
{
    E = ib_engine_new(cfg);
    assert_non_null(E);
    ib_engine_set_connection_sink(E, sink, NULL);
    frame_no = 0;
    sink_n = 0;
    time_base = 0;
    next_comm = 1;
}

static int setup(void **state)
{
    (void)state;
    start(NULL);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ib_engine_free(E);
    E = NULL;
    return 0;
}

/* Feeds the next frame (times: frame number in microseconds). */
static const struct ib_frame_analysis *feed(const struct ib_packet *p)
{
    frame_no++;
    struct ib_frame_ref at = { 0, frame_no, time_base + (int64_t)frame_no * 1000 };
    ib_engine_feed(E, at, p, &A);
    return &A;
}

/* An InfiniBand frame with nothing for the CM, this long after the last:
 * the timers of every connection ran out before it (ended ones reported). */
#define LATER_NS (1000LL * 1000000000)

static void later(void)
{
    frame_no++;
    time_base += LATER_NS;
    struct ib_frame_ref at = { 0, frame_no, time_base + (int64_t)frame_no * 1000 };
    struct ib_packet q = base(lid(9), lid(8), 5);
    q.present &= ~(uint32_t)IB_HAS_MAD;
    ib_engine_feed(E, at, &q, &A);
}

static const struct ib_frame_analysis *feed_at(const struct ib_packet *p, int64_t t_ns)
{
    frame_no++;
    struct ib_frame_ref at = { 0, frame_no, t_ns };
    ib_engine_feed(E, at, p, &A);
    return &A;
}

static unsigned count_of(enum ib_finding_kind k)
{
    unsigned n = 0;
    for (unsigned i = 0; i < A.count; i++)
        n += A.findings[i].kind == k;
    return n;
}

static const struct ib_finding *get(enum ib_finding_kind k)
{
    for (unsigned i = 0; i < A.count; i++)
        if (A.findings[i].kind == k)
            return &A.findings[i];
    fail_msg("no %s finding in frame %llu", ib_finding_kind_name(k), (unsigned long long)frame_no);
    return NULL;
}

/* The finding in words, as every view words it. */
static const char *text(const struct ib_finding *f)
{
    static char buf[IB_FINDING_TEXT_MAX];
    return ib_finding_format(f, buf, sizeof buf);
}

static void feed_quiet(const struct ib_packet *p)
{
    feed(p);
    assert_int_equal(A.count, 0);
}

static const struct ib_source_stats *source0(void)
{
    assert_true(ib_engine_source_count(E) >= 1);
    return ib_engine_source(E, 0);
}

/* ---- ports in use over time (the usage sink) ---- */

#define USAGE_MAX 16
static struct ib_usage_change usage[USAGE_MAX];
static unsigned usage_n;

static void usage_sink(void *ctx, const struct ib_usage_change *u)
{
    (void)ctx;
    if (usage_n < USAGE_MAX)
        usage[usage_n] = *u;
    usage_n++;
}

/* Opens a connection from 10.0.0.1:sport to 10.0.0.<d>:7471 (REQ, REP, RTU). */
static void open_to(uint32_t comm, uint16_t sport, unsigned d)
{
    struct tup t = { TEN(1), sport, TEN(d), 7471 };
    feed_quiet(PK(req(1, (uint16_t)(10 + d), comm, t)));
    feed_quiet(PK(cm(lid((uint16_t)(10 + d)), lid(1), IB_CM_REP, comm + 1000, comm)));
    feed_quiet(PK(cm(lid(1), lid((uint16_t)(10 + d)), IB_CM_RTU, comm, comm + 1000)));
}

static void close_conn(uint32_t comm, unsigned d)
{
    feed_quiet(PK(cm(lid(1), lid((uint16_t)(10 + d)), IB_CM_DREQ, comm, comm + 1000)));
    feed_quiet(PK(cm(lid((uint16_t)(10 + d)), lid(1), IB_CM_DREP, comm + 1000, comm)));
}

static void test_usage_busiest_destination(void **state)
{
    (void)state;
    ib_engine_set_usage_sink(E, usage_sink, NULL);
    usage_n = 0;
    /* Two ports to destination 2, one to destination 3: the busiest holds 2. */
    open_to(100, 40000, 2);
    open_to(101, 40001, 2);
    open_to(102, 40002, 3);
    assert_int_equal(usage_n, 3);
    assert_int_equal(usage[2].ports_in_use, 3);
    assert_int_equal(usage[2].destination_ports_in_use, 2);
    assert_int_equal(usage[2].at.frame, 7);
    /* Destination 3 gives its port back: 2 is still the busiest count. */
    close_conn(102, 3);
    assert_int_equal(usage_n, 4);
    assert_int_equal(usage[3].ports_in_use, 2);
    assert_int_equal(usage[3].destination_ports_in_use, 2);
    assert_int_equal(usage[3].at.frame, 11);
    /* One to destination 3 again, then destination 2 drops to 1: two
     * destinations at 1, the busiest holds 1; then 2 drops to 0: still 1. */
    open_to(103, 40003, 3);
    close_conn(100, 2);
    assert_int_equal(usage[5].ports_in_use, 2);
    assert_int_equal(usage[5].destination_ports_in_use, 1);
    close_conn(101, 2);
    assert_int_equal(usage[6].ports_in_use, 1);
    assert_int_equal(usage[6].destination_ports_in_use, 1);
    close_conn(103, 3);
    assert_int_equal(usage_n, 8);
    assert_int_equal(usage[7].ports_in_use, 0);
    assert_int_equal(usage[7].destination_ports_in_use, 0);
    assert_int_equal(usage[0].source, 0);
    assert_int_equal(source0()->peak_ports_per_destination, 2);
}

/* ---- vocabulary ---- */

static void test_kind_names(void **state)
{
    (void)state;
    for (unsigned k = 0; k < IB_FIND_COUNT; k++)
        assert_int_equal(ib_finding_kind_by_name(ib_finding_kind_name(k)), k);
    assert_int_equal(ib_finding_kind_by_name("nope"), IB_FIND_COUNT);
    assert_string_equal(ib_finding_kind_name(IB_FIND_REDIRECT_NOT_FOLLOWED),
                        "redirect_not_followed");
    assert_int_equal(ib_finding_kind_severity(IB_FIND_RETRANSMISSION), IB_SEV_NOTE);
    assert_int_equal(ib_finding_kind_severity(IB_FIND_DUPLICATE_TUPLE), IB_SEV_WARN);
    assert_int_equal(ib_finding_kind_severity(IB_FIND_REDIRECT_FOLLOWED), IB_SEV_CHAT);
    assert_int_equal(ib_finding_kind_severity(IB_FIND_POOL_HIGH), IB_SEV_WARN);
    assert_int_equal(ib_finding_kind_group(IB_FIND_PORT_REUSED), IB_GROUP_SEQUENCE);
    assert_int_equal(ib_finding_kind_group(IB_FIND_ADDRESSING), IB_GROUP_PROTOCOL);
    assert_int_equal(ib_finding_kind_group(IB_FIND_MALFORMED), IB_GROUP_MALFORMED);
    assert_string_equal(ib_conn_state_name(IB_CONN_CLOSING), "closing");
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    assert_int_equal(cfg.pool_low, 32768);
    assert_int_equal(cfg.pool_high, 60999);
    assert_int_equal(cfg.threshold_pct, 90);
    assert_true(cfg.forecast_horizon_s == 300);
    assert_int_equal(ib_finding_kind_severity(IB_FIND_POOL_FORECAST), IB_SEV_WARN);
    assert_int_equal(ib_finding_kind_by_name("pool_forecast"), IB_FIND_POOL_FORECAST);
    assert_true(cfg.enabled[IB_FIND_MALFORMED]);
}

/* One rule for the pool and the threshold, whoever sets them; an engine is
 * refused a configuration that breaks it, instead of guessing. */
static void test_config_problems(void **state)
{
    (void)state;
    static const struct {
        unsigned low, high;
        double pct;
        const char *problem; /* NULL: accepted */
    } cases[] = {
        { 1, 65535, 100, NULL },
        { 40000, 40000, 0.01, NULL },
        { 0, 100, 90, "the pool's first port is 0" },
        { 200, 100, 90, "the pool's first port is above its last" },
        { 1000, 2000, 0, "the threshold is not above 0 and at most 100 percent" },
        { 1000, 2000, 100.5, "the threshold is not above 0 and at most 100 percent" },
        { 1000, 2000, -1, "the threshold is not above 0 and at most 100 percent" },
        { 1000, 2000, NAN, "the threshold is not above 0 and at most 100 percent" },
    };
    static const struct {
        double horizon;
        bool ok;
    } horizons[] = { { 300, true }, { 0.001, true },    { 1e9, true },  { 0, false },
                     { -5, false }, { 1e9 + 1, false }, { NAN, false }, { INFINITY, false } };
    for (size_t i = 0; i < sizeof horizons / sizeof horizons[0]; i++) {
        struct ib_engine_config cfg;
        ib_engine_config_init(&cfg);
        cfg.forecast_horizon_s = horizons[i].horizon;
        const char *problem = ib_engine_config_problem(&cfg);
        struct ib_engine *e = ib_engine_new(&cfg);
        if (horizons[i].ok) {
            assert_null(problem);
            assert_non_null(e);
        } else {
            assert_string_equal(problem,
                                "the forecast horizon is not above 0 and at most 1e9 seconds");
            assert_null(e);
        }
        ib_engine_free(e);
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ib_engine_config cfg;
        ib_engine_config_init(&cfg);
        cfg.pool_low = (uint16_t)cases[i].low;
        cfg.pool_high = (uint16_t)cases[i].high;
        cfg.threshold_pct = cases[i].pct;
        const char *problem = ib_engine_config_problem(&cfg);
        struct ib_engine *e = ib_engine_new(&cfg);
        if (cases[i].problem) {
            assert_non_null(problem);
            assert_string_equal(problem, cases[i].problem);
            assert_null(e);
        } else {
            assert_null(problem);
            assert_non_null(e);
        }
        ib_engine_free(e);
    }
}

static void test_non_ib_frame(void **state)
{
    (void)state;
    feed(NULL);
    assert_int_equal(A.count, 0);
    assert_int_equal(ib_engine_stats(E)->frames, 1);
    assert_int_equal(ib_engine_stats(E)->ib_frames, 0);
}

/* ---- connections ---- */

static const struct tup T1 = { TEN(1), 40000, TEN(2), 7174 };

static void test_retransmission(void **state)
{
    (void)state;
    feed_quiet(PK(req(1, 2, 0x30ab0075, T1)));
    assert_true(A.links.has_ports);
    assert_int_equal(A.links.ports_in_use, 1);
    struct ib_packet again = req(1, 2, 0x30ab0075, T1);
    feed(&again);
    assert_int_equal(A.count, 1);
    const struct ib_finding *f = get(IB_FIND_RETRANSMISSION);
    assert_int_equal(f->related.frame, 1);
    assert_int_equal(f->severity, IB_SEV_NOTE);
    assert_int_equal(A.links.retransmission_of.frame, 1);
    assert_non_null(strstr(text(f), "0x30ab0075"));
    assert_non_null(strstr(text(f), "frame 1"));
    assert_int_equal(A.links.ports_in_use, 1); /* not a new holder */
    feed(&again);
    assert_int_equal(get(IB_FIND_RETRANSMISSION)->related.frame, 1);
    const struct ib_connection_stats cs_now = conn_stats(), *cs = &cs_now;
    assert_int_equal(cs->requests, 1);
    assert_int_equal(cs->retransmissions, 2);
    assert_int_equal(source0()->ports_in_use, 1);
    assert_int_equal(source0()->connections, 1);
    ib_engine_finish(E);
    assert_int_equal(sink_n, 1);
    assert_int_equal(sink_recs[0].retransmissions, 2);
    /* Each retransmission is a frame of the connection, from its active side. */
    assert_int_equal(sink_recs[0].frames_from_active, 3);
    assert_int_equal(sink_recs[0].frames_from_passive, 0);
}

static void test_same_id_other_node_not_retransmission(void **state)
{
    (void)state;
    feed_quiet(PK(req(1, 2, 7, T1)));
    struct tup t = { TEN(3), 40000, TEN(2), 7174 };
    feed_quiet(PK(req(3, 2, 7, t)));
    assert_int_equal(conn_stats().requests, 2);
}

/* A REQ again after the REP is a copy (the REP was lost: cm_match_req finds
 * the same LocalCommID and LocalCAGUID, cm_dup_req_handler drops it), not a
 * new connection; once the connection gave up and its copies can no longer
 * come, the same ID is a new attempt. */
static void test_req_again_after_reply_is_a_copy(void **state)
{
    (void)state;
    feed_quiet(PK(req(1, 2, 7, T1)));
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_REP, 99, 7)));
    feed(PK(req(1, 2, 7, T1)));
    assert_int_equal(A.count, 1);
    const struct ib_finding *f = get(IB_FIND_RETRANSMISSION);
    assert_int_equal(f->related.frame, 1);
    assert_int_equal(f->data.cm_attr, IB_CM_REQ);
    assert_int_equal(A.links.retransmission_of.frame, 1);
    assert_int_equal(conn_stats().requests, 1);
    assert_int_equal(conn_stats().retransmissions_by_message[IB_CM_REQ - IB_CM_MSG_FIRST], 1);
    assert_int_equal(sink_n, 0);
    /* no RTU: given up (the REQ was sent twice: the active side never heard) */
    later();
    assert_int_equal(A.count, 1);
    f = get(IB_FIND_UNREACHABLE);
    assert_int_equal(f->at.frame, 3);      /* on the last REQ */
    assert_int_equal(f->related.frame, 1); /* since the first */
    assert_int_equal(f->data.sent, 2);
    assert_int_equal(f->data.tried_ns, 2000);
    assert_int_equal(conn_stats().unreachable, 1);
    assert_int_equal(source0()->ports_in_use, 0);
    later();
    assert_int_equal(sink_n, 1);
    assert_int_equal(sink_recs[0].state, IB_CONN_UNREACHABLE);
    assert_int_equal(sink_recs[0].rep.frame, 2);
    assert_int_equal(sink_recs[0].retransmissions, 1);
    feed_quiet(PK(req(1, 2, 7, T1)));
    assert_int_equal(conn_stats().requests, 2);
}

/* The same LocalCommID from another CA (its LocalCAGUID) is another
 * connection. */
static void test_req_key_has_ca_guid(void **state)
{
    (void)state;
    struct ib_packet a = req(1, 2, 7, T1), b = a;
    a.cm.u.req.local_ca_guid = 0x1111;
    b.cm.u.req.local_ca_guid = 0x2222;
    b.cm.ipcm.src_port = 40001;
    feed_quiet(&a);
    feed_quiet(&b);
    assert_int_equal(conn_stats().requests, 2);
    feed(&a);
    assert_int_equal(get(IB_FIND_RETRANSMISSION)->related.frame, 1);
}

static void test_duplicate_tuple(void **state)
{
    (void)state;
    feed_quiet(PK(req(1, 2, 100, T1)));
    feed(PK(req(1, 2, 101, T1)));
    assert_int_equal(A.count, 1);
    const struct ib_finding *f = get(IB_FIND_DUPLICATE_TUPLE);
    assert_int_equal(f->related.frame, 1);
    assert_int_equal(f->severity, IB_SEV_WARN);
    assert_int_equal(A.links.duplicate_tuple_of.frame, 1);
    assert_non_null(strstr(text(f), "10.0.0.1:40000 -> 10.0.0.2:7174"));
    assert_int_equal(A.links.ports_in_use, 1);
    assert_int_equal(A.links.tuple_ports_in_use, 1);
    /* a third links to the latest */
    feed(PK(req(1, 2, 102, T1)));
    assert_int_equal(get(IB_FIND_DUPLICATE_TUPLE)->related.frame, 2);
    assert_int_equal(count_of(IB_FIND_PORT_REUSED), 0);
}

static void test_port_reused_links_latest(void **state)
{
    (void)state;
    feed_quiet(PK(req(1, 2, 100, T1)));
    struct tup t2 = { TEN(1), 40000, TEN(3), 7174 };
    feed(PK(req(1, 3, 101, t2)));
    assert_int_equal(A.count, 1);
    const struct ib_finding *f = get(IB_FIND_PORT_REUSED);
    assert_int_equal(f->related.frame, 1);
    assert_int_equal(f->severity, IB_SEV_NOTE);
    assert_string_equal(text(f), "source port 40000 of 10.0.0.1 (TCP port space) reused for "
                                 "10.0.0.3:7174 while held by the connection of frame 1");
    assert_int_equal(A.links.port_reused_from.frame, 1);
    assert_int_equal(A.links.ports_in_use, 1);
    assert_int_equal(A.links.tuple_ports_in_use, 1);
    struct tup t3 = { TEN(1), 40000, TEN(2), 7175 }; /* other dst port */
    feed(PK(req(1, 2, 102, t3)));
    assert_int_equal(get(IB_FIND_PORT_REUSED)->related.frame, 2);
    /* the same tuple as frame 1 again: duplicate of 1, reuse of the latest other (3) */
    feed(PK(req(1, 2, 103, T1)));
    assert_int_equal(A.count, 2);
    assert_int_equal(A.findings[0].kind, IB_FIND_DUPLICATE_TUPLE);
    assert_int_equal(A.findings[0].related.frame, 1);
    assert_int_equal(A.findings[1].kind, IB_FIND_PORT_REUSED);
    assert_int_equal(A.findings[1].related.frame, 3);
    /* other port space or other source IP: no reuse */
    struct tup t4 = { TEN(9), 40000, TEN(3), 7174 };
    feed_quiet(PK(req(1, 3, 104, t4)));
    struct ib_packet udp = req(1, 3, 105, t2);
    udp.cm.sid.port_space = IB_PS_UDP;
    feed_quiet(&udp);
    assert_int_equal(ib_engine_source_count(E), 3);
}

static void test_reuse_after_close_no_finding(void **state)
{
    (void)state;
    feed_quiet(PK(req(1, 2, 100, T1)));
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_REP, 200, 100)));
    feed_quiet(PK(cm(lid(1), lid(2), IB_CM_RTU, 100, 200)));
    feed_quiet(PK(cm(lid(1), lid(2), IB_CM_DREQ, 100, 200)));
    assert_int_equal(source0()->ports_in_use, 1); /* closing still holds */
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_DREP, 200, 100)));
    assert_int_equal(source0()->ports_in_use, 0);
    /* same tuple, new comm ID: no duplicate, no reuse */
    feed_quiet(PK(req(1, 2, 101, T1)));
    assert_int_equal(A.links.ports_in_use, 1);
    /* rejected: ends too */
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_REJ, 0, 101)));
    assert_int_equal(source0()->ports_in_use, 0);
    feed_quiet(PK(req(1, 2, 102, T1)));
    struct tup t2 = { TEN(1), 40000, TEN(3), 7174 };
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_REJ, 0, 102)));
    feed_quiet(PK(req(1, 3, 103, t2))); /* port free again */
}

static void test_connection_record_lifecycle(void **state)
{
    (void)state;
    feed_at(PK(req(1, 2, 100, T1)), 1000);
    feed_at(PK(cm(lid(2), lid(1), IB_CM_MRA, 200, 100)), 2000);
    feed_at(PK(cm(lid(2), lid(1), IB_CM_REP, 200, 100)), 3000);
    feed_at(PK(cm(lid(1), lid(2), IB_CM_RTU, 100, 200)), 4000);
    feed_at(PK(cm(lid(2), lid(1), IB_CM_DREQ, 200, 100)), 5000);
    assert_true(A.links.has_conn);
    assert_true(A.links.conn_from_passive); /* the passive side closes */
    assert_int_equal(sink_n, 0);
    feed_at(PK(cm(lid(1), lid(2), IB_CM_DREP, 100, 200)), 6000);
    assert_false(A.links.conn_from_passive);
    assert_int_equal(sink_n, 0); /* findable while a DREQ copy may come */
    later();
    assert_int_equal(sink_n, 1);
    const struct ib_connection_record *r = &sink_recs[0];
    assert_int_equal(r->state, IB_CONN_CLOSED);
    assert_false(r->evicted);
    assert_true(r->has_tuple);
    assert_int_equal(r->tuple.src_port, 40000);
    assert_int_equal(r->tuple.dst_port, 7174);
    assert_int_equal(r->tuple.port_space, IB_PS_TCP);
    assert_int_equal(r->local_comm_id, 100);
    assert_int_equal(r->remote_comm_id, 200);
    assert_int_equal(r->active.lid, 1);
    assert_int_equal(r->passive.lid, 2);
    assert_int_equal(r->req.frame, 1);
    assert_int_equal(r->mra.frame, 2);
    assert_int_equal(r->rep.frame, 3);
    assert_int_equal(r->rtu.frame, 4);
    assert_int_equal(r->dreq.frame, 5);
    assert_int_equal(r->drep.frame, 6);
    assert_int_equal(r->rej.frame, 0);
    /* REQ, RTU, DREP from the active side; MRA, REP, DREQ from the passive. */
    assert_int_equal(r->frames_from_active, 3);
    assert_int_equal(r->frames_from_passive, 3);
    assert_int_equal(r->service_id, 0x0000000001061c06ull);
    const struct ib_connection_stats cs_now = conn_stats(), *cs = &cs_now;
    assert_int_equal(cs->requests, 1);
    assert_int_equal(cs->established, 1);
    assert_int_equal(cs->closed, 1);
    assert_int_equal(cs->setup.count, 1);
    assert_int_equal(cs->setup.min_ns, 3000);
    assert_int_equal(cs->req_rep.median_ns, 2000);
    ib_engine_finish(E);
    assert_int_equal(sink_n, 1);
}

static void test_reject_record_and_reasons(void **state)
{
    (void)state;
    feed_quiet(PK(req(1, 2, 100, T1)));
    struct ib_packet rej = cm(lid(2), lid(1), IB_CM_REJ, 0, 100);
    rej.cm.u.rej.reason = 28;
    feed_quiet(&rej);
    later();
    assert_int_equal(sink_n, 1);
    assert_int_equal(sink_recs[0].state, IB_CONN_REJECTED);
    assert_int_equal(sink_recs[0].reject_reason, 28);
    assert_int_equal(sink_recs[0].rej.frame, 2);
    struct tup t2 = { TEN(1), 40001, TEN(2), 7174 };
    feed_quiet(PK(req(1, 2, 101, t2)));
    rej = cm(lid(2), lid(1), IB_CM_REJ, 0, 101);
    rej.cm.u.rej.reason = 200; /* past the table: lands in 63 */
    feed_quiet(&rej);
    const struct ib_connection_stats cs_now = conn_stats(), *cs = &cs_now;
    assert_int_equal(cs->rejected, 2);
    assert_int_equal(cs->reject_reasons[28], 1);
    assert_int_equal(cs->reject_reasons[63], 1);
    /* a REJ for an unknown connection changes nothing */
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_REJ, 0, 555)));
    assert_int_equal(conn_stats().rejected, 2);
}

/* ---- the kernel's CM rules (cm.c, cma.c) ---- */

/* REQ 100 from LID 1 to LID 2, REP 200, RTU: established. */
static void establish(uint32_t comm, uint32_t pas, struct tup t)
{
    feed_quiet(PK(req(1, 2, comm, t)));
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_REP, pas, comm)));
    feed_quiet(PK(cm(lid(1), lid(2), IB_CM_RTU, comm, pas)));
}

static uint64_t retransmitted_of(uint16_t attr)
{
    return conn_stats().retransmissions_by_message[attr - IB_CM_MSG_FIRST];
}

/* A DREQ never answered: cm_process_send_error (IB_CM_DREQ_SENT) ->
 * cm_enter_timewait, DREQ_ERROR; the port is free (cma_release_port at
 * destroy), the unreachable finding on its last copy. */
static void test_dreq_unanswered_gives_up(void **state)
{
    (void)state;
    establish(100, 200, T1);
    feed_quiet(PK(cm(lid(1), lid(2), IB_CM_DREQ, 100, 200)));
    feed(PK(cm(lid(1), lid(2), IB_CM_DREQ, 100, 200)));
    assert_int_equal(get(IB_FIND_RETRANSMISSION)->data.cm_attr, IB_CM_DREQ);
    assert_int_equal(get(IB_FIND_RETRANSMISSION)->related.frame, 4);
    assert_int_equal(source0()->ports_in_use, 1);
    later();
    const struct ib_finding *f = get(IB_FIND_UNREACHABLE);
    assert_int_equal(f->at.frame, 5);
    assert_int_equal(f->data.cm_attr, IB_CM_DREQ);
    assert_int_equal(f->data.sent, 2);
    assert_non_null(strstr(text(f), "DREQ sent 2 times"));
    assert_int_equal(conn_stats().disconnect_timeouts, 1);
    assert_int_equal(conn_stats().unreachable, 0);
    assert_int_equal(retransmitted_of(IB_CM_DREQ), 1);
    assert_int_equal(source0()->ports_in_use, 0);
    later();
    assert_int_equal(sink_n, 1);
    assert_int_equal(sink_recs[0].state, IB_CONN_CLOSED);
    assert_true(sink_recs[0].timed_out);
}

/* A DREP lost: the DREQ again, answered again (cm_dreq_handler in
 * TIMEWAIT, or cm_issue_drep): one connection, a copy of each.  DREQs that
 * cross and their two DREPs are no copies. */
static void test_drep_lost_and_crossing_dreqs(void **state)
{
    (void)state;
    establish(100, 200, T1);
    feed_quiet(PK(cm(lid(1), lid(2), IB_CM_DREQ, 100, 200)));
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_DREP, 200, 100)));
    feed(PK(cm(lid(1), lid(2), IB_CM_DREQ, 100, 200)));
    assert_int_equal(get(IB_FIND_RETRANSMISSION)->data.cm_attr, IB_CM_DREQ);
    assert_true(A.links.has_conn);
    feed(PK(cm(lid(2), lid(1), IB_CM_DREP, 200, 100)));
    assert_int_equal(get(IB_FIND_RETRANSMISSION)->related.frame, 5);
    assert_int_equal(conn_stats().closed, 1);
    struct tup t2 = { TEN(1), 40001, TEN(2), 7174 };
    establish(101, 201, t2);
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_DREQ, 201, 101)));
    feed_quiet(PK(cm(lid(1), lid(2), IB_CM_DREQ, 101, 201)));
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_DREP, 201, 101)));
    feed_quiet(PK(cm(lid(1), lid(2), IB_CM_DREP, 101, 201)));
    assert_true(A.links.has_conn);
    assert_int_equal(conn_stats().retransmissions, 2);
    assert_int_equal(conn_stats().closed, 2);
}

/* A REJ lost: with no listener cm_match_req rejects each copy of the REQ
 * and keeps no state; one attempt, rejected once. */
static void test_rej_lost_one_attempt(void **state)
{
    (void)state;
    struct ib_packet rej = cm(lid(2), lid(1), IB_CM_REJ, 0, 100);
    rej.cm.u.rej.reason = 8;
    feed_quiet(PK(req(1, 2, 100, T1)));
    feed_quiet(&rej);
    feed(PK(req(1, 2, 100, T1)));
    assert_int_equal(get(IB_FIND_RETRANSMISSION)->related.frame, 1);
    feed(&rej);
    assert_int_equal(get(IB_FIND_RETRANSMISSION)->related.frame, 2);
    assert_int_equal(get(IB_FIND_RETRANSMISSION)->data.cm_attr, IB_CM_REJ);
    assert_int_equal(conn_stats().requests, 1);
    assert_int_equal(conn_stats().rejected, 1);
    assert_int_equal(retransmitted_of(IB_CM_REQ), 1);
    assert_int_equal(retransmitted_of(IB_CM_REJ), 1);
}

/* Path migration: cm_migrate swaps the primary and alternate paths, so the
 * DREQ and DREP leave from the alternate LIDs the REQ named (or a LAP
 * loaded), and cm_acquire_id finds the connection by its comm IDs. */
static void test_messages_after_path_migration(void **state)
{
    (void)state;
    struct ib_packet r = req(1, 2, 100, T1);
    r.cm.u.req.alternate.local_lid = 11;
    r.cm.u.req.alternate.remote_lid = 12;
    feed_quiet(&r);
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_REP, 200, 100)));
    feed_quiet(PK(cm(lid(1), lid(2), IB_CM_RTU, 100, 200)));
    feed_quiet(PK(cm(lid(11), lid(12), IB_CM_DREQ, 100, 200)));
    assert_true(A.links.has_conn);
    feed_quiet(PK(cm(lid(12), lid(11), IB_CM_DREP, 200, 100)));
    assert_true(A.links.has_conn);
    assert_true(A.links.conn_from_passive);
    assert_int_equal(conn_stats().closed, 1);
    assert_int_equal(source0()->ports_in_use, 0);
    /* a LAP names a new alternate path: LID 21 after the next migration */
    struct tup t2 = { TEN(1), 40001, TEN(2), 7174 };
    establish(101, 201, t2);
    struct ib_packet lap = cm(lid(1), lid(2), IB_CM_LAP, 101, 201);
    lap.cm.u.lap.alternate.local_lid = 21;
    feed_quiet(&lap);
    feed_quiet(PK(cm(lid(2), lid(21), IB_CM_DREQ, 201, 101)));
    assert_true(A.links.has_conn);
    assert_int_equal(conn_stats().closed, 2);
    /* from a LID the connection never named: not linked */
    struct tup t3 = { TEN(1), 40002, TEN(2), 7174 };
    establish(102, 202, t3);
    feed_quiet(PK(cm(lid(31), lid(2), IB_CM_DREQ, 102, 202)));
    assert_false(A.links.has_conn);
}

/* A port outside the pool, shared: an explicit bind that
 * rdma_set_reuseaddr allows (cma_check_port), Lustre's 1023. */
static void test_explicit_port_shared(void **state)
{
    (void)state;
    struct tup lnet = { TEN(1), 1023, TEN(2), 987 };
    feed_quiet(PK(req(1, 2, 100, lnet)));
    feed(PK(req(1, 2, 101, lnet)));
    assert_int_equal(A.count, 1);
    const struct ib_finding *f = get(IB_FIND_EXPLICIT_PORT_SHARED);
    assert_int_equal(f->related.frame, 1);
    assert_int_equal(f->severity, IB_SEV_NOTE);
    assert_non_null(strstr(text(f), "rdma_set_reuseaddr"));
    struct tup other = { TEN(1), 1023, TEN(3), 987 };
    feed(PK(req(1, 2, 102, other)));
    assert_int_equal(count_of(IB_FIND_EXPLICIT_PORT_SHARED), 1);
    assert_int_equal(count_of(IB_FIND_PORT_REUSED), 0);
    assert_int_equal(ib_engine_stats(E)->findings[IB_FIND_DUPLICATE_TUPLE], 0);
}

/* LAP and APR on RoCE: cm_lap_handler and cm_apr_handler refuse them
 * (-EINVAL), so no path changes; a LAP sent again is a copy.  On native
 * InfiniBand they are only linked. */
static void test_path_messages_on_roce(void **state)
{
    (void)state;
    establish(100, 200, T1);
    struct ib_packet lap = cm(lid(1), lid(2), IB_CM_LAP, 100, 200);
    feed_quiet(&lap);
    assert_true(A.links.has_conn);
    lap.encap = IB_ENCAP_ROCEV2;
    struct tup t2 = { TEN(1), 40001, TEN(2), 7174 };
    establish(101, 201, t2);
    lap.cm.local_comm_id = 101;
    lap.cm.remote_comm_id = 201;
    feed(&lap);
    const struct ib_finding *f = get(IB_FIND_PATH_IGNORED);
    assert_int_equal(f->data.cm_attr, IB_CM_LAP);
    assert_non_null(strstr(text(f), "LAP on RoCE (LocalCommID 0x00000065)"));
    feed(&lap);
    assert_int_equal(get(IB_FIND_RETRANSMISSION)->data.cm_attr, IB_CM_LAP);
    assert_int_equal(count_of(IB_FIND_PATH_IGNORED), 0);
    assert_int_equal(ib_engine_stats(E)->findings[IB_FIND_PATH_IGNORED], 1);
}

/* Thousands opened and closed at once: at most IB_CM_ENDED_KEPT ended ones are kept
 * (none is open), the rest let go oldest first and counted, each reported
 * once; the timers stay right through the heap's compactions. */
static void test_ended_kept_under_a_cap(void **state)
{
    (void)state;
    for (uint32_t k = 0; k < 20000; k++) {
        struct tup t = { TEN(1), (uint16_t)(40000 + k % 20000), TEN(2), 7174 };
        uint32_t comm = 1000 + k;
        feed(PK(req(1, 2, comm, t)));
        feed(PK(cm(lid(2), lid(1), IB_CM_REP, PASSIVE_ID(comm), comm)));
        feed(PK(cm(lid(1), lid(2), IB_CM_RTU, comm, PASSIVE_ID(comm))));
        feed(PK(cm(lid(1), lid(2), IB_CM_DREQ, comm, PASSIVE_ID(comm))));
        feed(PK(cm(lid(2), lid(1), IB_CM_DREP, PASSIVE_ID(comm), comm)));
    }
    assert_int_equal(ib_engine_stats(E)->ended_forgotten, 20000 - IB_CM_ENDED_KEPT);
    assert_int_equal(sink_n, 20000 - IB_CM_ENDED_KEPT);
    feed_quiet(PK(req(1, 2, 99, T1)));
    later();
    assert_int_equal(conn_stats().unreachable, 1);
    assert_int_equal(sink_n, 20000);
    assert_int_equal(conn_stats().closed, 20000);
    assert_int_equal(source0()->ports_in_use, 0);
}

/* An MRA for the REQ: the active side waits the MRA's ServiceTimeout plus
 * the path's ACK timeout (cm_mra_handler), here 2^20 + 512 ms, past the
 * REQ's 16 tries of 4.6 s; without it the REP 200 s later is too late. */
static void test_mra_extends_the_wait(void **state)
{
    (void)state;
    const int64_t s = 1000000000;
    feed_at(PK(req(1, 2, 100, T1)), s);
    struct ib_packet mra = cm(lid(2), lid(1), IB_CM_MRA, 200, 100);
    mra.cm.u.mra.msg_mraed = 0;
    mra.cm.u.mra.service_timeout = 28;
    feed_at(&mra, s + 1000);
    feed_at(PK(cm(lid(2), lid(1), IB_CM_REP, 200, 100)), 201 * s);
    assert_int_equal(A.count, 0);
    assert_int_equal(conn_stats().unreachable, 0);
    struct tup t2 = { TEN(1), 40001, TEN(2), 7174 };
    feed_at(PK(req(1, 2, 101, t2)), 202 * s);
    feed_at(PK(cm(lid(2), lid(1), IB_CM_REP, 201, 101)), 402 * s);
    assert_int_equal(get(IB_FIND_UNREACHABLE)->at.frame, 4);
    assert_int_equal(conn_stats().unreachable, 1);
}

/* A wait runs out whatever the next frame carries: a frame with no
 * InfiniBand in it too. */
static void test_timer_on_any_frame(void **state)
{
    (void)state;
    feed_quiet(PK(req(1, 2, 100, T1)));
    frame_no++;
    struct ib_frame_ref at = { 0, frame_no, LATER_NS };
    ib_engine_feed(E, at, NULL, &A);
    assert_int_equal(A.count, 1);
    assert_int_equal(get(IB_FIND_UNREACHABLE)->at.frame, 1);
    assert_int_equal(conn_stats().unreachable, 1);
}

/* A live capture gone quiet: time passes with no frame, and a wait runs
 * out then (cm_req_handler's peer never answers: 16 tries of 4.608 s). */
static void test_advance_without_frames(void **state)
{
    (void)state;
    const int64_t s = 1000000000;
    feed_at(PK(req(1, 2, 100, T1)), s);
    ib_engine_advance(E, s + 73 * s, &A);
    assert_int_equal(A.count, 0);
    assert_int_equal(source0()->ports_in_use, 1);
    assert_true(ib_engine_has_timers(E));
    ib_engine_advance(E, s + 74 * s, &A);
    assert_int_equal(A.count, 1);
    assert_int_equal(get(IB_FIND_UNREACHABLE)->at.frame, 1);
    assert_int_equal(get(IB_FIND_UNREACHABLE)->data.sent, 1);
    assert_int_equal(conn_stats().unreachable, 1);
    assert_int_equal(source0()->ports_in_use, 0);
    assert_int_equal(ib_engine_stats(E)->frames, 1);
    /* Earlier than the last time seen: nothing. */
    ib_engine_advance(E, s, &A);
    assert_int_equal(A.count, 0);
    /* A frame after it goes on as usual. */
    struct tup t2 = { TEN(1), 40001, TEN(2), 7174 };
    feed_at(PK(req(1, 2, 101, t2)), s + 75 * s);
    assert_int_equal(A.count, 0);
    assert_int_equal(ib_engine_stats(E)->frames, 2);
}

/* The capture ends within a REQ's timeout: waiting, not given up. */
static void test_waiting_at_end(void **state)
{
    (void)state;
    feed_quiet(PK(req(1, 2, 100, T1)));
    ib_engine_finish(E);
    assert_int_equal(conn_stats().waiting_at_end, 1);
    assert_int_equal(conn_stats().unreachable, 0);
    assert_int_equal(sink_n, 1);
    assert_true(sink_recs[0].waiting);
}

static void test_dreq_from_either_side(void **state)
{
    (void)state;
    /* passive side closes, active answers */
    feed_quiet(PK(req(1, 2, 100, T1)));
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_REP, 200, 100)));
    feed_quiet(PK(cm(lid(1), lid(2), IB_CM_RTU, 100, 200)));
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_DREQ, 200, 100)));
    feed_quiet(PK(cm(lid(1), lid(2), IB_CM_DREP, 100, 200)));
    later();
    assert_int_equal(sink_n, 1);
    assert_int_equal(sink_recs[0].dreq.frame, 4);
    assert_int_equal(sink_recs[0].drep.frame, 5);
    /* both sides send DREQ, then a DREP ends it */
    struct tup t2 = { TEN(1), 40001, TEN(2), 7174 };
    feed_quiet(PK(req(1, 2, 101, t2)));
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_REP, 201, 101)));
    feed_quiet(PK(cm(lid(1), lid(2), IB_CM_RTU, 101, 201)));
    feed_quiet(PK(cm(lid(1), lid(2), IB_CM_DREQ, 101, 201)));
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_DREQ, 201, 101)));
    assert_int_equal(sink_n, 1);
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_DREP, 201, 101)));
    later();
    assert_int_equal(sink_n, 2);
    assert_int_equal(sink_recs[1].dreq.frame, 10);
    assert_int_equal(sink_recs[1].drep.frame, 12);
    assert_int_equal(sink_recs[1].state, IB_CONN_CLOSED);
    assert_int_equal(conn_stats().closed, 2);
    assert_int_equal(source0()->ports_in_use, 0);
}

static void test_roce_without_lids(void **state)
{
    (void)state;
    /* RoCE: no LIDs, the IPs as GIDs */
    struct ib_endpoint a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.has_gid = b.has_gid = true;
    a.gid[10] = a.gid[11] = b.gid[10] = b.gid[11] = 0xff;
    put_ip4(a.gid, TEN(1));
    a.gid[10] = a.gid[11] = 0xff;
    put_ip4(b.gid, TEN(2));
    b.gid[10] = b.gid[11] = 0xff;
    feed_quiet(PK(req_to(a, b, 1, 100, T1)));
    feed_quiet(PK(cm(b, a, IB_CM_REP, 200, 100)));
    feed_quiet(PK(cm(a, b, IB_CM_RTU, 100, 200)));
    feed_quiet(PK(cm(b, a, IB_CM_DREQ, 200, 100)));
    feed_quiet(PK(cm(a, b, IB_CM_DREP, 100, 200)));
    later();
    assert_int_equal(sink_n, 1);
    assert_int_equal(sink_recs[0].state, IB_CONN_CLOSED);
    assert_int_equal(conn_stats().established, 1);
}

static void test_latency(void **state)
{
    (void)state;
    /* REQ->REP 2, 5, 9 us; REQ->RTU 4, 10, 30 us */
    const int64_t rep[3] = { 2000, 5000, 9000 }, rtu[3] = { 4000, 10000, 30000 };
    for (uint32_t i = 0; i < 3; i++) {
        int64_t t0 = 1000000 * (int64_t)(i + 1);
        struct tup t = { TEN(1), (uint16_t)(40000 + i), TEN(2), 7174 };
        feed_at(PK(req(1, 2, 100 + i, t)), t0);
        feed_at(PK(cm(lid(2), lid(1), IB_CM_REP, 200 + i, 100 + i)), t0 + rep[2 - i]);
        feed_at(PK(cm(lid(1), lid(2), IB_CM_RTU, 100 + i, 200 + i)), t0 + rtu[(i + 1) % 3]);
    }
    const struct ib_connection_stats cs_now = conn_stats(), *cs = &cs_now;
    assert_int_equal(cs->req_rep.count, 3);
    assert_int_equal(cs->req_rep.min_ns, 2000);
    assert_int_equal(cs->req_rep.median_ns, 5000);
    assert_int_equal(cs->req_rep.max_ns, 9000);
    assert_int_equal(cs->setup.count, 3);
    assert_int_equal(cs->setup.min_ns, 4000);
    assert_int_equal(cs->setup.median_ns, 10000);
    assert_int_equal(cs->setup.max_ns, 30000);
}

static void test_latency_many_samples(void **state)
{
    (void)state;
    /* 10001 connections with REQ->REP = i microseconds: median 5000 us,
     * from the histogram within 1%. */
    for (uint32_t i = 0; i <= 10000; i++) {
        int64_t t0 = 100000000 * (int64_t)(i + 1);
        struct tup t = { TEN(1), (uint16_t)(1000 + i), TEN(2), 7174 };
        feed_at(PK(req(1, 2, 100 + i, t)), t0);
        feed_at(PK(cm(lid(2), lid(1), IB_CM_REP, 50000 + i, 100 + i)), t0 + (int64_t)i * 1000);
        struct ib_packet rej = cm(lid(1), lid(2), IB_CM_REJ, 100 + i, 50000 + i);
        rej.cm.u.rej.msg_rejected = 1;
        feed(&rej);
    }
    const struct ib_connection_stats cs_now = conn_stats(), *cs = &cs_now;
    assert_int_equal(cs->req_rep.count, 10001);
    assert_int_equal(cs->req_rep.min_ns, 0);
    assert_int_equal(cs->req_rep.max_ns, 10000000);
    int64_t med = cs->req_rep.median_ns;
    assert_true(med > 4950000 && med < 5050000);
    assert_int_equal(cs->rejected, 10001);
    assert_int_equal(source0()->ports_in_use, 0);
}

/* ---- ports and the pool ---- */

static void test_pool_high_once_per_crossing(void **state)
{
    (void)state;
    ib_engine_free(E);
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.pool_low = 1000;
    cfg.pool_high = 1009;   /* 10 ports */
    cfg.threshold_pct = 50; /* 5 ports */
    start(&cfg);
    for (uint32_t i = 0; i < 4; i++) {
        struct tup t = { TEN(1), (uint16_t)(1000 + i), TEN(2), 7174 };
        feed_quiet(PK(req(1, 2, 100 + i, t)));
    }
    struct tup t5 = { TEN(1), 1004, TEN(2), 7174 };
    feed(PK(req(1, 2, 104, t5)));
    assert_int_equal(A.count, 1);
    const struct ib_finding *f = get(IB_FIND_POOL_HIGH);
    assert_string_equal(text(f), "ports in use by 10.0.0.1 (TCP) reached 50.0% of the pool "
                                 "(5 of 10)");
    assert_int_equal(f->related.frame, 0);
    assert_int_equal(A.links.ports_in_use, 5);
    assert_true(A.links.pool_utilization > 49.9 && A.links.pool_utilization < 50.1);
    struct tup t6 = { TEN(1), 1005, TEN(2), 7174 };
    feed_quiet(PK(req(1, 2, 105, t6))); /* still above: quiet */
    /* fall to 5 (still at the threshold), then 4 (below) */
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_REJ, 0, 105)));
    struct tup t7 = { TEN(1), 1006, TEN(2), 7174 };
    feed_quiet(PK(req(1, 2, 106, t7))); /* 6 again: not re-armed */
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_REJ, 0, 106)));
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_REJ, 0, 104)));
    assert_int_equal(source0()->ports_in_use, 4);
    feed(PK(req(1, 2, 107, t7)));
    assert_int_equal(count_of(IB_FIND_POOL_HIGH), 1);
    assert_int_equal(ib_engine_stats(E)->findings[IB_FIND_POOL_HIGH], 2);
    assert_int_equal(source0()->peak_ports_in_use, 6);
    assert_int_equal(source0()->peak_at.frame, 6);
    assert_false(source0()->exhausted);
}

/* A source hovering at the threshold raises one finding; only a fall of 5% of
 * the pool below it re-arms the check. */
static void test_pool_high_hysteresis(void **state)
{
    (void)state;
    ib_engine_free(E);
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.pool_low = 2000;
    cfg.pool_high = 2099; /* 100 ports: threshold 90, re-armed at 85 */
    start(&cfg);
    for (uint32_t i = 0; i < 90; i++) {
        struct tup t = { TEN(1), (uint16_t)(2000 + i), TEN(2), 7174 };
        feed(PK(req(1, 2, 0x100 + i, t)));
    }
    assert_int_equal(ib_engine_stats(E)->findings[IB_FIND_POOL_HIGH], 1);
    /* 89, then 90 again: still the same crossing */
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_REJ, 0, 0x100 + 89)));
    struct tup again = { TEN(1), 2089, TEN(2), 7174 };
    feed_quiet(PK(req(1, 2, 0x200, again)));
    assert_int_equal(source0()->ports_in_use, 90);
    assert_int_equal(ib_engine_stats(E)->findings[IB_FIND_POOL_HIGH], 1);
    /* down to 85 re-arms; back up to 90 fires again */
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_REJ, 0, 0x200)));
    for (uint32_t i = 85; i < 89; i++)
        feed_quiet(PK(cm(lid(2), lid(1), IB_CM_REJ, 0, 0x100 + i)));
    assert_int_equal(source0()->ports_in_use, 85);
    for (uint32_t i = 85; i < 90; i++) {
        struct tup t = { TEN(1), (uint16_t)(2000 + i), TEN(2), 7174 };
        feed(PK(req(1, 2, 0x300 + i, t)));
    }
    assert_int_equal(ib_engine_stats(E)->findings[IB_FIND_POOL_HIGH], 2);
}

static void exhaust(unsigned destinations)
{
    for (uint32_t i = 0; i < 28232; i++) {
        struct tup t = { TEN(1), (uint16_t)(32768 + i), TEN(2 + i % destinations), 7174 };
        feed(PK(req(1, 2, 0x1000 + i, t)));
        assert_int_equal(A.links.ports_in_use, i + 1);
        unsigned want = i + 1 == 25409; /* ceil(90% of 28232) */
        assert_int_equal(count_of(IB_FIND_POOL_HIGH), want);
        assert_int_equal(A.count, want);
    }
}

/* ---- hosts: one port pool per network namespace (cma_ps_find) ---- */

/* A REQ from LID a with LocalCAGUID guid and tuple t. */
static struct ib_packet req_guid(uint16_t a, uint64_t guid, uint32_t comm, struct tup t)
{
    struct ib_packet p = req(a, 2, comm, t);
    p.cm.u.req.local_ca_guid = guid;
    return p;
}

static void test_host_by_ca_guid(void **state)
{
    (void)state;
    /* Two addresses of one HCA: one source, both listed, one pool. */
    struct tup a = { TEN(1), 40000, TEN(9), 4420 }, b = { TEN(2), 40001, TEN(9), 4420 };
    feed_quiet(PK(req_guid(1, 0x77, 1, a)));
    feed_quiet(PK(req_guid(3, 0x77, 2, b)));
    assert_int_equal(ib_engine_source_count(E), 1);
    const struct ib_source_stats *s = source0();
    assert_int_equal(s->host_from, IB_HOST_FROM_CA_GUID);
    assert_true(s->ca_guid == 0x77);
    assert_null(s->host_name);
    assert_int_equal(s->address_count, 2);
    assert_int_equal(s->addresses_listed, 2);
    assert_int_equal(s->addresses[0].ip[15], 1);
    assert_int_equal(s->addresses[1].ip[15], 2);
    assert_int_equal(s->ports_in_use, 2);
    assert_int_equal(A.links.ports_in_use, 2);
    /* 4-tuple (cma_port_is_unique): the same port from the other address
     * to the same destination is another tuple, but the host's port. */
    struct tup b2 = { TEN(2), 40000, TEN(9), 4420 };
    feed(PK(req_guid(3, 0x77, 3, b2)));
    assert_int_equal(count_of(IB_FIND_DUPLICATE_TUPLE), 0);
    assert_int_equal(count_of(IB_FIND_PORT_REUSED), 1);
    assert_int_equal(source0()->ports_in_use, 2);
    assert_int_equal(source0()->peak_ports_per_destination, 2);
    assert_string_equal(ib_host_from_name(IB_HOST_FROM_CA_GUID), "ca_guid");
    assert_int_equal(ib_host_from_by_name("capture"), IB_HOST_FROM_CAPTURE);
    assert_int_equal(ib_host_from_by_name("nothing"), IB_HOST_FROM_COUNT);
}

static void test_host_without_guid_is_its_address(void **state)
{
    (void)state;
    struct tup a = { TEN(1), 40000, TEN(9), 4420 }, b = { TEN(2), 40001, TEN(9), 4420 };
    feed_quiet(PK(req_guid(1, 0, 1, a)));
    feed_quiet(PK(req_guid(3, 0, 2, b)));
    assert_int_equal(ib_engine_source_count(E), 2);
    for (size_t i = 0; i < 2; i++) {
        const struct ib_source_stats *s = ib_engine_source(E, i);
        assert_int_equal(s->host_from, IB_HOST_FROM_ADDRESS);
        assert_int_equal(s->address_count, 1);
        assert_int_equal(s->ports_in_use, 1);
        assert_true(s->ca_guid == 0);
    }
}

static void test_host_declared_wins(void **state)
{
    (void)state;
    /* Two HCAs of one host (declared), and an address of one of them
     * declared a host of its own (a container's namespace). */
    uint8_t ip[16];
    int other;
    int h = ib_engine_host_add(E, "node1", IB_HOST_FROM_OPTION);
    int c = ib_engine_host_add(E, "pod", IB_HOST_FROM_OPTION);
    assert_true(h == 0 && c == 1);
    put_ip4(ip, TEN(1));
    assert_true(ib_engine_host_address(E, h, 4, ip, &other));
    put_ip4(ip, TEN(2));
    assert_true(ib_engine_host_address(E, h, 4, ip, &other));
    assert_false(ib_engine_host_address(E, c, 4, ip, &other)); /* node1's */
    assert_int_equal(other, h);
    assert_true(ib_engine_host_address(E, h, 4, ip, &other)); /* again: no harm */
    put_ip4(ip, TEN(3));
    assert_true(ib_engine_host_address(E, c, 4, ip, &other));
    struct tup a = { TEN(1), 40000, TEN(9), 4420 }, b = { TEN(2), 40001, TEN(9), 4420 },
               p = { TEN(3), 40002, TEN(9), 4420 };
    feed_quiet(PK(req_guid(1, 0x11, 1, a)));
    feed_quiet(PK(req_guid(3, 0x22, 2, b)));
    feed_quiet(PK(req_guid(4, 0x11, 3, p)));
    assert_int_equal(ib_engine_source_count(E), 2);
    const struct ib_source_stats *s = source0(), *t = ib_engine_source(E, 1);
    assert_int_equal(s->host_from, IB_HOST_FROM_OPTION);
    assert_string_equal(s->host_name, "node1");
    assert_true(s->ca_guid == 0);
    assert_int_equal(s->address_count, 2);
    assert_int_equal(s->ports_in_use, 2);
    assert_string_equal(t->host_name, "pod");
    assert_int_equal(t->ports_in_use, 1);
}

static int sender_is_lid_5(void *ctx, const struct ib_packet *p)
{
    return p->src.lid == 5 ? *(const int *)ctx : -1;
}

static void test_host_of_sender(void **state)
{
    (void)state;
    /* With several hosts' captures, the capture owning the sender. */
    static int host;
    host = ib_engine_host_add(E, "a.pcap", IB_HOST_FROM_CAPTURE);
    ib_engine_set_sender_host(E, sender_is_lid_5, &host);
    struct tup a = { TEN(1), 40000, TEN(9), 4420 }, b = { TEN(2), 40001, TEN(9), 4420 };
    feed_quiet(PK(req_guid(5, 0x11, 1, a)));
    feed_quiet(PK(req_guid(5, 0x22, 2, b)));
    feed_quiet(PK(req_guid(6, 0x22, 3, b)));
    assert_int_equal(ib_engine_source_count(E), 2);
    assert_int_equal(source0()->host_from, IB_HOST_FROM_CAPTURE);
    assert_string_equal(source0()->host_name, "a.pcap");
    assert_int_equal(source0()->address_count, 2);
    assert_int_equal(ib_engine_source(E, 1)->host_from, IB_HOST_FROM_CA_GUID);
}

static void test_host_many_addresses(void **state)
{
    (void)state;
    /* Past the listed addresses, counted: each address once however
     * often it comes back. */
    for (int round = 0; round < 2; round++)
        for (uint32_t i = 0; i < 100; i++) {
            struct tup t = { TEN(100 + i), (uint16_t)(40000 + round * 100 + i), TEN(9), 4420 };
            feed(PK(req_guid(1, 0x33, 1 + round * 100 + i, t)));
        }
    const struct ib_source_stats *s = source0();
    assert_int_equal(ib_engine_source_count(E), 1);
    assert_int_equal(s->address_count, 100);
    assert_int_equal(s->addresses_listed, IB_HOST_ADDRESSES_MAX);
    assert_int_equal(s->addresses[IB_HOST_ADDRESSES_MAX - 1].ip[15],
                     100 + IB_HOST_ADDRESSES_MAX - 1);
    assert_int_equal(s->ports_in_use, 200);
}

static void test_host_addresses_capped(void **state)
{
    (void)state;
    /* One host of ever new addresses (a crafted capture): those past the
     * cap are counted as dropped, not kept. */
    ib_engine_free(E);
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.max_sources = 4;
    start(&cfg);
    for (uint32_t i = 0; i < 20; i++) {
        struct tup t = { TEN(100 + i), (uint16_t)(40000 + i), TEN(9), 4420 };
        feed(PK(req_guid(1, 0x33, 1 + i, t)));
    }
    assert_int_equal(source0()->address_count, 8 + 4);
    assert_int_equal(ib_engine_stats(E)->sources_dropped, 20 - 12);
    assert_int_equal(source0()->ports_in_use, 20);
}

static void test_host_pool_high_names_host(void **state)
{
    (void)state;
    ib_engine_free(E);
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.pool_low = 40000;
    cfg.pool_high = 40009; /* 10 ports: pool_high at 9 */
    start(&cfg);
    for (uint32_t i = 0; i < 9; i++) {
        struct tup t = { TEN(1 + i % 2), (uint16_t)(40000 + i), TEN(9), 4420 };
        feed(PK(req_guid(1, 0x44, 1 + i, t)));
    }
    const struct ib_finding *f = get(IB_FIND_POOL_HIGH);
    assert_int_equal(f->data.host_addresses, 2);
    assert_string_equal(text(f), "ports in use by 10.0.0.1 and 1 other address of its host (TCP) "
                                 "reached 90.0% of the pool (9 of 10)");
}

static void test_exhaustion_default_pool(void **state)
{
    (void)state;
    exhaust(1);
    const struct ib_source_stats *s = source0();
    assert_int_equal(s->peak_ports_in_use, 28232);
    assert_int_equal(s->peak_at.frame, 28232);
    assert_true(s->exhausted);
    assert_true(s->pool_utilization > 99.99);
    assert_int_equal(s->peak_ports_per_destination, 28232);
    assert_true(s->exhausted_per_destination);
    assert_int_equal(s->ports_outside_pool, 0);
    assert_int_equal(s->connections, 28232);
    assert_int_equal(ib_engine_stats(E)->findings[IB_FIND_POOL_HIGH], 1);
}

static void test_exhaustion_spread_over_destinations(void **state)
{
    (void)state;
    exhaust(100);
    const struct ib_source_stats *s = source0();
    assert_true(s->exhausted);
    assert_int_equal(s->peak_ports_in_use, 28232);
    assert_false(s->exhausted_per_destination);
    assert_int_equal(s->peak_ports_per_destination, 283); /* ceil(28232 / 100) */
    assert_int_equal(A.links.tuple_ports_in_use, 283);    /* i = 28231 went to 10.0.0.33 */
    assert_int_equal(s->peak_dst_port, 7174);
    assert_int_equal(s->peak_dst_ip[15], 2); /* the first to reach 283: i = 28200 */
}

/* A port outside the pool is counted as such and never toward the pool:
 * utilization cannot pass 100 %, however many outside ports are held. */
static void test_ports_outside_pool(void **state)
{
    (void)state;
    struct tup t = { TEN(1), 1234, TEN(2), 7174 };
    feed_quiet(PK(req(1, 2, 100, t)));
    assert_int_equal(A.links.ports_in_use, 0);
    assert_int_equal(A.links.tuple_ports_in_use, 0);
    assert_int_equal(source0()->ports_outside_pool, 1);
    assert_int_equal(source0()->ports_in_use, 0);
    assert_int_equal(source0()->peak_ports_in_use, 0);

    /* A one-port pool, 40000-40000: one port inside, two outside. */
    ib_engine_free(E);
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.pool_low = cfg.pool_high = 40000;
    E = ib_engine_new(&cfg);
    assert_non_null(E);
    struct tup in = { TEN(1), 40000, TEN(2), 7174 }, out1 = { TEN(1), 1234, TEN(2), 7174 },
               out2 = { TEN(1), 1235, TEN(2), 7174 };
    feed_quiet(PK(req(1, 2, 101, out1)));
    feed(PK(req(1, 2, 102, in))); /* pool_high: 1 of 1 port */
    feed_quiet(PK(req(1, 2, 103, out2)));
    const struct ib_source_stats *s = source0();
    assert_int_equal(s->ports_outside_pool, 2);
    assert_int_equal(s->ports_in_use, 1);
    assert_int_equal(s->peak_ports_in_use, 1);
    assert_true(s->pool_utilization == 100.0);
    assert_true(A.links.pool_utilization == 100.0);
    assert_int_equal(s->peak_ports_per_destination, 1);
    assert_true(s->exhausted);
    assert_int_equal(ib_engine_stats(E)->findings[IB_FIND_POOL_HIGH], 1);
}

/* --threshold 50.5 of a 200-port pool: ceil(101.0) = 101 ports, not 100. */
static void test_decimal_threshold(void **state)
{
    (void)state;
    ib_engine_free(E);
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.pool_low = 40000;
    cfg.pool_high = 40199;
    cfg.threshold_pct = 50.5;
    E = ib_engine_new(&cfg);
    assert_non_null(E);
    for (unsigned i = 0; i < 101; i++) {
        struct tup t = { TEN(1), (uint16_t)(40000 + i), TEN(2), 7174 };
        feed(PK(req(1, 2, 200 + i, t)));
        assert_int_equal(ib_engine_stats(E)->findings[IB_FIND_POOL_HIGH], i == 100);
    }
}

/* ---- caps ---- */

static void test_connection_eviction(void **state)
{
    (void)state;
    ib_engine_free(E);
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.max_connections = 2;
    start(&cfg);
    for (uint32_t i = 0; i < 5; i++) {
        struct tup t = { TEN(1), (uint16_t)(40000 + i), TEN(2), 7174 };
        feed_quiet(PK(req(1, 2, 100 + i, t)));
    }
    assert_int_equal(ib_engine_stats(E)->connections_evicted, 3);
    assert_int_equal(sink_n, 3);
    for (unsigned i = 0; i < 3; i++) {
        assert_true(sink_recs[i].evicted);
        assert_int_equal(sink_recs[i].req.frame, i + 1);
        assert_int_equal(sink_recs[i].state, IB_CONN_REQ_SENT);
    }
    assert_int_equal(source0()->ports_in_use, 2); /* evicted ones released theirs */
    assert_int_equal(source0()->peak_ports_in_use, 2);
    /* an evicted connection's answer is ignored */
    feed_quiet(PK(cm(lid(2), lid(1), IB_CM_REP, 200, 100)));
    ib_engine_finish(E);
    assert_int_equal(sink_n, 5);
    assert_false(sink_recs[3].evicted);
    assert_int_equal(sink_recs[3].req.frame, 4);
    ib_engine_finish(E);
    assert_int_equal(sink_n, 5);
}

static void test_source_cap(void **state)
{
    (void)state;
    ib_engine_free(E);
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.max_sources = 1;
    start(&cfg);
    feed_quiet(PK(req(1, 2, 100, T1)));
    struct tup t = { TEN(5), 40000, TEN(2), 7174 };
    feed_quiet(PK(req(1, 2, 101, t)));
    assert_false(A.links.has_ports);
    assert_int_equal(ib_engine_source_count(E), 1);
    assert_int_equal(ib_engine_stats(E)->sources_dropped, 1);
}

static void test_transaction_eviction(void **state)
{
    (void)state;
    ib_engine_free(E);
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.max_transactions = 2;
    start(&cfg);
    for (uint64_t tid = 1; tid <= 5; tid++)
        feed_quiet(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, tid)));
    assert_int_equal(ib_engine_stats(E)->transactions_evicted, 3);
    /* the response to an evicted request still reports its redirect */
    struct ib_cpi c = cpi_to(7, 0x10, IB_GSI_QKEY, 0xffff);
    feed(PK(mad_resp(lid(5), lid(1), IB_CLASS_PERF, 1, &c)));
    assert_int_equal(get(IB_FIND_REDIRECT)->related.frame, 0);
    feed(PK(mad_resp(lid(5), lid(1), IB_CLASS_PERF, 5, NULL)));
    assert_int_equal(A.count, 0);
}

/* ---- redirects ---- */

static void test_redirect_chain_two_hops(void **state)
{
    (void)state;
    struct ib_cpi c1 = cpi_to(7, 0x10, IB_GSI_QKEY, 0xffff);
    struct ib_cpi c2 = cpi_to(9, 0x20, 0x11111111, 0x8001);
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, 42)));
    feed(PK(mad_resp(lid(5), lid(1), IB_CLASS_PERF, 42, &c1)));
    assert_int_equal(A.count, 1);
    const struct ib_finding *f = get(IB_FIND_REDIRECT);
    assert_string_equal(text(f),
                        "PerfMgt redirect to LID 7 QP 0x000010 Q_Key 0x80010000 P_Key 0xffff SL 0");
    assert_int_equal(f->related.frame, 1);
    assert_int_equal(f->severity, IB_SEV_NOTE);
    assert_true(A.links.has_redirect_depth);
    assert_int_equal(A.links.redirect_depth, 1);
    assert_true(ib_engine_is_mad_qp(E, &(struct ib_endpoint){ .lid = 7 }, 0x10));
    assert_false(ib_engine_is_mad_qp(E, &(struct ib_endpoint){ .lid = 7 }, 0x11));
    assert_false(ib_engine_is_mad_qp(E, &(struct ib_endpoint){ .lid = 8 }, 0x10));

    feed(PK(mad_get(lid(1), lid(7), 0x10, IB_CLASS_PERF, 43)));
    assert_int_equal(A.count, 1);
    f = get(IB_FIND_REDIRECT_FOLLOWED);
    assert_int_equal(f->related.frame, 2);
    assert_int_equal(f->severity, IB_SEV_CHAT);
    assert_int_equal(A.links.redirected_by.frame, 2);
    assert_int_equal(A.links.redirect_depth, 1);
    /* a second request to the target is ordinary traffic */
    feed_quiet(PK(mad_get(lid(1), lid(7), 0x10, IB_CLASS_PERF, 44)));

    feed(PK(mad_resp(lid(7), lid(1), IB_CLASS_PERF, 43, &c2)));
    assert_int_equal(get(IB_FIND_REDIRECT)->related.frame, 3);
    assert_int_equal(A.links.redirect_depth, 2);
    struct ib_packet follow = mad_get(lid(1), lid(9), 0x20, IB_CLASS_PERF, 45);
    follow.deth.qkey = 0x11111111;
    follow.bth.pkey = 0x0001; /* limited member of 0x8001's partition: same key */
    feed(&follow);
    assert_int_equal(A.count, 1);
    assert_int_equal(get(IB_FIND_REDIRECT_FOLLOWED)->related.frame, 5);
    assert_int_equal(A.links.redirect_depth, 2);
    feed_quiet(PK(mad_resp(lid(9), lid(1), IB_CLASS_PERF, 45, NULL)));

    assert_int_equal(ib_engine_chain_count(E), 1);
    const struct ib_redirect_chain *ch = ib_engine_chain(E, 0);
    assert_int_equal(ch->requester.lid, 1);
    assert_int_equal(ch->mgmt_class, IB_CLASS_PERF);
    assert_int_equal(ch->origin.lid, 5);
    assert_int_equal(ch->origin_qp, 1);
    assert_int_equal(ch->first_request.frame, 1);
    assert_int_equal(ch->hop_count, 2);
    assert_int_equal(ch->hops[0].lid, 7);
    assert_int_equal(ch->hops[0].qp, 0x10);
    assert_int_equal(ch->hops[0].frame.frame, 2);
    assert_int_equal(ch->hops[1].lid, 9);
    assert_int_equal(ch->hops[1].qkey, 0x11111111);
    assert_int_equal(ch->hops[1].pkey, 0x8001);
    assert_int_equal(ch->hops[1].frame.frame, 5);
    assert_int_equal(ch->final_answer.frame, 7);
    assert_false(ch->loop);
    assert_true(ch->followed);
    assert_int_equal(ch->end, IB_CHAIN_ANSWERED);
    /* a later redirect of the same class starts a new chain */
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, 46)));
    feed(PK(mad_resp(lid(5), lid(1), IB_CLASS_PERF, 46, &c1)));
    assert_int_equal(A.links.redirect_depth, 1);
    assert_int_equal(ib_engine_chain_count(E), 2);
    assert_int_equal(ib_engine_stats(E)->findings[IB_FIND_REDIRECT], 3);
}

static void test_redirect_loop_length_1(void **state)
{
    (void)state;
    struct ib_cpi self = cpi_to(5, 1, IB_GSI_QKEY, 0xffff);
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_SA, 1)));
    feed(PK(mad_resp(lid(5), lid(1), IB_CLASS_SA, 1, &self)));
    assert_int_equal(A.count, 2);
    assert_int_equal(A.findings[0].kind, IB_FIND_REDIRECT);
    assert_int_equal(A.findings[1].kind, IB_FIND_REDIRECT_LOOP);
    assert_int_equal(A.findings[1].related.frame, 1);
    assert_int_equal(A.findings[1].severity, IB_SEV_WARN);
    assert_int_equal(A.links.redirect_loop_to.frame, 1);
    assert_true(ib_engine_chain(E, 0)->loop);
    /* same agent, other QP: not a loop */
    struct ib_cpi other_qp = cpi_to(5, 2, IB_GSI_QKEY, 0xffff);
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, 2)));
    feed(PK(mad_resp(lid(5), lid(1), IB_CLASS_PERF, 2, &other_qp)));
    assert_int_equal(count_of(IB_FIND_REDIRECT_LOOP), 0);
}

static void test_redirect_loop_length_2(void **state)
{
    (void)state;
    struct ib_cpi to_b = cpi_to(7, 0x10, IB_GSI_QKEY, 0xffff);
    struct ib_cpi to_a = cpi_to(5, 1, IB_GSI_QKEY, 0xffff);
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, 1)));
    feed(PK(mad_resp(lid(5), lid(1), IB_CLASS_PERF, 1, &to_b)));
    assert_int_equal(count_of(IB_FIND_REDIRECT_LOOP), 0);
    feed(PK(mad_get(lid(1), lid(7), 0x10, IB_CLASS_PERF, 2)));
    feed(PK(mad_resp(lid(7), lid(1), IB_CLASS_PERF, 2, &to_a)));
    assert_int_equal(get(IB_FIND_REDIRECT_LOOP)->related.frame, 1);
    assert_non_null(strstr(text(get(IB_FIND_REDIRECT_LOOP)), "2 redirects"));
    assert_int_equal(A.links.redirect_depth, 2);
    /* following back to A and being sent to B again: loops to hop 1 */
    feed(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, 3)));
    assert_int_equal(count_of(IB_FIND_REDIRECT_FOLLOWED), 1);
    feed(PK(mad_resp(lid(5), lid(1), IB_CLASS_PERF, 3, &to_b)));
    assert_int_equal(get(IB_FIND_REDIRECT_LOOP)->related.frame, 2);
    const struct ib_redirect_chain *ch = ib_engine_chain(E, 0);
    assert_true(ch->loop);
    assert_int_equal(ch->hop_count, 3);
    assert_int_equal(ch->final_answer.frame, 0);
    assert_int_equal(ch->end, IB_CHAIN_LOOP);
}

static void test_redirect_self_loop_at_second_hop(void **state)
{
    (void)state;
    struct ib_cpi to_b = cpi_to(7, 0x10, IB_GSI_QKEY, 0xffff);
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, 1)));
    feed(PK(mad_resp(lid(5), lid(1), IB_CLASS_PERF, 1, &to_b)));
    feed(PK(mad_get(lid(1), lid(7), 0x10, IB_CLASS_PERF, 2)));
    feed(PK(mad_resp(lid(7), lid(1), IB_CLASS_PERF, 2, &to_b)));
    assert_int_equal(get(IB_FIND_REDIRECT_LOOP)->related.frame, 2);
}

static void test_redirect_repeated_is_not_a_loop(void **state)
{
    (void)state;
    struct ib_cpi c = cpi_to(7, 0x10, IB_GSI_QKEY, 0xffff);
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, 1)));
    feed(PK(mad_resp(lid(5), lid(1), IB_CLASS_PERF, 1, &c)));
    feed(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, 2)));
    assert_int_equal(count_of(IB_FIND_REDIRECT_NOT_FOLLOWED), 1);
    /* the agent says the same again: a redirect, but no hop and no loop */
    feed(PK(mad_resp(lid(5), lid(1), IB_CLASS_PERF, 2, &c)));
    assert_int_equal(A.count, 1);
    assert_int_equal(count_of(IB_FIND_REDIRECT), 1);
    assert_int_equal(A.links.redirect_depth, 1);
    assert_int_equal(ib_engine_chain(E, 0)->hop_count, 1);
    /* not reported twice for the same redirect */
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, 3)));
}

static void test_redirect_elsewhere_starts_new_chain(void **state)
{
    (void)state;
    struct ib_cpi c1 = cpi_to(7, 0x10, IB_GSI_QKEY, 0xffff);
    struct ib_cpi c2 = cpi_to(5, 1, IB_GSI_QKEY, 0xffff);
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, 1)));
    feed(PK(mad_resp(lid(5), lid(1), IB_CLASS_PERF, 1, &c1)));
    /* the requester turns to another agent, which redirects back to the
     * first one: a new chain, not a loop */
    feed_quiet(PK(mad_get(lid(1), lid(9), 1, IB_CLASS_PERF, 2)));
    feed(PK(mad_resp(lid(9), lid(1), IB_CLASS_PERF, 2, &c2)));
    assert_int_equal(count_of(IB_FIND_REDIRECT_LOOP), 0);
    assert_int_equal(A.links.redirect_depth, 1);
    assert_int_equal(ib_engine_chain_count(E), 2);
    assert_int_equal(ib_engine_chain(E, 1)->origin.lid, 9);
    assert_int_equal(ib_engine_chain(E, 1)->first_request.frame, 3);
    assert_int_equal(ib_engine_chain(E, 0)->final_answer.frame, 0);
}

static void test_redirect_gid_only(void **state)
{
    (void)state;
    struct ib_endpoint target = lid_gid(3, 0x77);
    struct ib_cpi c = cpi_to(0, 0x10, IB_GSI_QKEY, 0xffff);
    memcpy(c.redirect_gid, target.gid, 16);
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, 1)));
    feed(PK(mad_resp(lid(5), lid(1), IB_CLASS_PERF, 1, &c)));
    assert_int_equal(A.count, 2);
    assert_int_equal(A.findings[0].kind, IB_FIND_REDIRECT);
    assert_non_null(strstr(text(&A.findings[0]), "LID 0 GID fe80::77 QP 0x000010"));
    assert_int_equal(A.findings[1].kind, IB_FIND_REDIRECT_GID_ONLY);
    assert_int_equal(A.findings[1].severity, IB_SEV_NOTE);
    assert_int_equal(count_of(IB_FIND_REDIRECT_BAD_TARGET), 0);
    assert_true(ib_engine_is_mad_qp(E, &target, 0x10));
    /* to the right LID without a GRH: no DGID to compare, not followed */
    feed(PK(mad_get(lid(1), lid(3), 0x10, IB_CLASS_PERF, 2)));
    assert_int_equal(count_of(IB_FIND_REDIRECT_FOLLOWED), 0);
    /* with a GRH naming the GID (the requester is still LID 1): followed */
    feed(PK(mad_get(lid_gid(1, 1), target, 0x10, IB_CLASS_PERF, 3)));
    assert_int_equal(A.count, 1);
    assert_int_equal(get(IB_FIND_REDIRECT_FOLLOWED)->related.frame, 2);
}

static void test_redirect_gid_only_followed(void **state)
{
    (void)state;
    struct ib_endpoint target = lid_gid(3, 0x77);
    struct ib_endpoint me = lid_gid(1, 0x01);
    struct ib_cpi c = cpi_to(0, 0x10, IB_GSI_QKEY, 0xffff);
    memcpy(c.redirect_gid, target.gid, 16);
    feed_quiet(PK(mad_get(me, lid_gid(5, 0x05), 1, IB_CLASS_PERF, 1)));
    feed(PK(mad_resp(lid_gid(5, 0x05), me, IB_CLASS_PERF, 1, &c)));
    feed(PK(mad_get(me, target, 0x10, IB_CLASS_PERF, 2)));
    assert_int_equal(A.count, 1);
    assert_int_equal(get(IB_FIND_REDIRECT_FOLLOWED)->related.frame, 2);
    feed_quiet(PK(mad_resp(target, me, IB_CLASS_PERF, 2, NULL)));
    assert_int_equal(ib_engine_chain(E, 0)->final_answer.frame, 4);
}

static void test_redirect_bad_targets(void **state)
{
    (void)state;
    struct {
        struct ib_cpi c;
        const char *why;
    } cases[] = {
        { cpi_to(0, 0x10, IB_GSI_QKEY, 0xffff), "RedirectLID and RedirectGID both 0" },
        { cpi_to(7, 0, IB_GSI_QKEY, 0xffff), "RedirectQP 0" },
        { cpi_to(7, 0x10, IB_GSI_QKEY, 0), "RedirectP_Key 0" },
        { cpi_to(7, 0x10, IB_GSI_QKEY, 0x8000), "RedirectP_Key 0" },
    };
    for (unsigned i = 0; i < 4; i++) {
        uint8_t cls = (uint8_t)(0x30 + i); /* one chain each */
        feed_quiet(PK(mad_get(lid(1), lid(5), 1, cls, i)));
        feed(PK(mad_resp(lid(5), lid(1), cls, i, &cases[i].c)));
        const struct ib_finding *f = get(IB_FIND_REDIRECT_BAD_TARGET);
        assert_int_equal(f->severity, IB_SEV_WARN);
        assert_non_null(strstr(text(f), cases[i].why));
        assert_int_equal(count_of(IB_FIND_REDIRECT_GID_ONLY), 0);
    }
    /* a good target: none */
    struct ib_cpi good = cpi_to(7, 0x10, 0x1234, 0x7fff);
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_BM, 9)));
    feed(PK(mad_resp(lid(5), lid(1), IB_CLASS_BM, 9, &good)));
    assert_int_equal(A.count, 1);
    assert_int_equal(count_of(IB_FIND_REDIRECT), 1);
}

static void test_redirect_key_mismatch(void **state)
{
    (void)state;
    struct ib_cpi c = cpi_to(7, 0x10, 0x22222222, 0x8005);
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, 1)));
    feed(PK(mad_resp(lid(5), lid(1), IB_CLASS_PERF, 1, &c)));
    struct ib_packet f = mad_get(lid(1), lid(7), 0x10, IB_CLASS_PERF, 2);
    f.bth.pkey = 0x8005; /* right P_Key, GSI Q_Key instead of the redirect's */
    feed(&f);
    assert_int_equal(A.count, 2);
    assert_int_equal(A.findings[0].kind, IB_FIND_REDIRECT_FOLLOWED);
    assert_int_equal(A.findings[1].kind, IB_FIND_REDIRECT_KEY_MISMATCH);
    assert_int_equal(A.findings[1].related.frame, 2);
    assert_non_null(strstr(text(&A.findings[1]), "Q_Key 0x80010000 (not 0x22222222)"));
    assert_null(strstr(text(&A.findings[1]), "P_Key"));

    /* P_Key mismatch only (other class, fresh chain) */
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_SA, 3)));
    feed(PK(mad_resp(lid(5), lid(1), IB_CLASS_SA, 3, &c)));
    f = mad_get(lid(1), lid(7), 0x10, IB_CLASS_SA, 4);
    f.deth.qkey = 0x22222222;
    f.bth.pkey = 0xffff;
    feed(&f);
    assert_int_equal(count_of(IB_FIND_REDIRECT_KEY_MISMATCH), 1);
    assert_non_null(strstr(text(get(IB_FIND_REDIRECT_KEY_MISMATCH)), "P_Key 0xffff (not 0x8005)"));

    /* both right, membership bit differs: no mismatch */
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_BM, 5)));
    feed(PK(mad_resp(lid(5), lid(1), IB_CLASS_BM, 5, &c)));
    f = mad_get(lid(1), lid(7), 0x10, IB_CLASS_BM, 6);
    f.deth.qkey = 0x22222222;
    f.bth.pkey = 0x0005;
    feed(&f);
    assert_int_equal(A.count, 1);
    assert_int_equal(count_of(IB_FIND_REDIRECT_FOLLOWED), 1);
}

static void test_redirect_not_followed(void **state)
{
    (void)state;
    struct ib_cpi c = cpi_to(5, 0x10, IB_GSI_QKEY, 0xffff); /* same port, other QP */
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, 1)));
    feed(PK(mad_resp(lid(5), lid(1), IB_CLASS_PERF, 1, &c)));
    feed(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, 2)));
    assert_int_equal(A.count, 1);
    const struct ib_finding *f = get(IB_FIND_REDIRECT_NOT_FOLLOWED);
    assert_int_equal(f->related.frame, 2);
    assert_int_equal(f->severity, IB_SEV_WARN);
    assert_non_null(strstr(text(f), "LID 5 QP 0x000001"));
    /* reported once per redirect */
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, 3)));
    /* unrelated targets and other classes say nothing */
    feed_quiet(PK(mad_get(lid(1), lid(9), 1, IB_CLASS_PERF, 4)));
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, IB_CLASS_SA, 5)));
    /* it can still follow later */
    feed(PK(mad_get(lid(1), lid(5), 0x10, IB_CLASS_PERF, 6)));
    assert_int_equal(count_of(IB_FIND_REDIRECT_FOLLOWED), 1);
    assert_true(ib_engine_chain(E, 0)->followed);
}

/* How each chain ended, decided by the engine for every view: one chain
 * per class, each a different story. */
static void test_redirect_chain_end(void **state)
{
    (void)state;
    struct ib_cpi to_b = cpi_to(7, 0x10, IB_GSI_QKEY, 0xffff);
    struct ib_cpi to_c = cpi_to(9, 0x20, IB_GSI_QKEY, 0xffff);
    struct ib_cpi to_a = cpi_to(5, 1, IB_GSI_QKEY, 0xffff);
    uint64_t tid = 1;
    /* 0: a redirect, and nothing after it */
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, 0x30, tid)));
    feed(PK(mad_resp(lid(5), lid(1), 0x30, tid++, &to_b)));
    /* 1: followed, never answered */
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, 0x31, tid)));
    feed(PK(mad_resp(lid(5), lid(1), 0x31, tid++, &to_b)));
    assert_int_equal(ib_engine_chain(E, 1)->end, IB_CHAIN_NOT_FOLLOWED);
    feed(PK(mad_get(lid(1), lid(7), 0x10, 0x31, tid++)));
    assert_int_equal(ib_engine_chain(E, 1)->end, IB_CHAIN_NO_ANSWER);
    /* 2: followed and answered */
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, 0x32, tid)));
    feed(PK(mad_resp(lid(5), lid(1), 0x32, tid++, &to_b)));
    feed(PK(mad_get(lid(1), lid(7), 0x10, 0x32, tid)));
    feed_quiet(PK(mad_resp(lid(7), lid(1), 0x32, tid++, NULL)));
    /* 3: the first hop followed, the second not: the requester asks the
     * origin again (a redirect_not_followed).  The chain was followed once,
     * and still its last redirect was not. */
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, 0x33, tid)));
    feed(PK(mad_resp(lid(5), lid(1), 0x33, tid++, &to_b)));
    feed(PK(mad_get(lid(1), lid(7), 0x10, 0x33, tid)));
    feed(PK(mad_resp(lid(7), lid(1), 0x33, tid++, &to_c)));
    feed(PK(mad_get(lid(1), lid(5), 1, 0x33, tid++)));
    assert_int_equal(count_of(IB_FIND_REDIRECT_NOT_FOLLOWED), 1);
    /* 4: the first hop followed, the second redirect the last frame */
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, 0x34, tid)));
    feed(PK(mad_resp(lid(5), lid(1), 0x34, tid++, &to_b)));
    feed(PK(mad_get(lid(1), lid(7), 0x10, 0x34, tid)));
    feed(PK(mad_resp(lid(7), lid(1), 0x34, tid++, &to_c)));
    /* 5: not followed at first, then followed: no answer */
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, 0x35, tid)));
    feed(PK(mad_resp(lid(5), lid(1), 0x35, tid++, &to_b)));
    feed(PK(mad_get(lid(1), lid(5), 1, 0x35, tid++)));
    assert_int_equal(count_of(IB_FIND_REDIRECT_NOT_FOLLOWED), 1);
    feed(PK(mad_get(lid(1), lid(7), 0x10, 0x35, tid++)));
    assert_int_equal(count_of(IB_FIND_REDIRECT_FOLLOWED), 1);
    /* 6: the agent repeats its redirect to a requester that came back */
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, 0x36, tid)));
    feed(PK(mad_resp(lid(5), lid(1), 0x36, tid++, &to_b)));
    feed(PK(mad_get(lid(1), lid(5), 1, 0x36, tid)));
    feed(PK(mad_resp(lid(5), lid(1), 0x36, tid++, &to_b)));
    /* 7: A -> B -> A, then A answers: still a loop */
    feed_quiet(PK(mad_get(lid(1), lid(5), 1, 0x37, tid)));
    feed(PK(mad_resp(lid(5), lid(1), 0x37, tid++, &to_b)));
    feed(PK(mad_get(lid(1), lid(7), 0x10, 0x37, tid)));
    feed(PK(mad_resp(lid(7), lid(1), 0x37, tid++, &to_a)));
    assert_int_equal(count_of(IB_FIND_REDIRECT_LOOP), 1);
    feed(PK(mad_get(lid(1), lid(5), 1, 0x37, tid)));
    feed_quiet(PK(mad_resp(lid(5), lid(1), 0x37, tid++, NULL)));

    static const struct {
        enum ib_chain_end end;
        bool followed;
        uint64_t answer;
    } want[] = {
        { IB_CHAIN_NOT_FOLLOWED, false, 0 }, { IB_CHAIN_NO_ANSWER, true, 0 },
        { IB_CHAIN_ANSWERED, true, 9 },      { IB_CHAIN_NOT_FOLLOWED, true, 0 },
        { IB_CHAIN_NOT_FOLLOWED, true, 0 },  { IB_CHAIN_NO_ANSWER, true, 0 },
        { IB_CHAIN_NOT_FOLLOWED, false, 0 }, { IB_CHAIN_LOOP, true, 0 },
    };
    assert_int_equal(ib_engine_chain_count(E), 8);
    for (size_t i = 0; i < 8; i++) {
        const struct ib_redirect_chain *ch = ib_engine_chain(E, i);
        assert_int_equal(ch->end, want[i].end);
        assert_int_equal(ch->followed, want[i].followed);
        if (want[i].answer)
            assert_int_equal(ch->final_answer.frame, want[i].answer);
    }
    assert_true(ib_engine_chain(E, 7)->loop);
    assert_int_not_equal(ib_engine_chain(E, 7)->final_answer.frame, 0);
}

static void test_chain_end_names(void **state)
{
    (void)state;
    /* The JSON report's words: merge reads them back, so they never change. */
    assert_string_equal(ib_chain_end_name(IB_CHAIN_NOT_FOLLOWED), "not followed");
    assert_string_equal(ib_chain_end_name(IB_CHAIN_NO_ANSWER), "no answer");
    assert_string_equal(ib_chain_end_name(IB_CHAIN_ANSWERED), "answered");
    assert_string_equal(ib_chain_end_name(IB_CHAIN_LOOP), "loop");
    assert_string_equal(ib_chain_end_name(IB_CHAIN_END_COUNT), "unknown");
    for (int e = 0; e < IB_CHAIN_END_COUNT; e++)
        assert_int_equal(ib_chain_end_by_name(ib_chain_end_name((enum ib_chain_end)e)), e);
    assert_int_equal(ib_chain_end_by_name("unknown"), IB_CHAIN_END_COUNT);
    assert_int_equal(ib_chain_end_by_name("Loop"), IB_CHAIN_END_COUNT);
    assert_int_equal(ib_chain_end_by_name(""), IB_CHAIN_END_COUNT);
    assert_int_equal(ib_chain_end_by_name(NULL), IB_CHAIN_END_COUNT);
}

static void test_out_of_order_responses(void **state)
{
    (void)state;
    struct ib_cpi c = cpi_to(7, 0x10, IB_GSI_QKEY, 0xffff);
    /* a redirect whose request was never seen */
    feed(PK(mad_resp(lid(5), lid(1), IB_CLASS_PERF, 77, &c)));
    assert_int_equal(A.count, 1);
    assert_int_equal(get(IB_FIND_REDIRECT)->related.frame, 0);
    const struct ib_redirect_chain *ch = ib_engine_chain(E, 0);
    assert_int_equal(ch->origin.lid, 5);
    assert_int_equal(ch->requester.lid, 1);
    assert_int_equal(ch->first_request.frame, 0);
    /* two requests answered in reverse order */
    feed_quiet(PK(mad_get(lid(2), lid(5), 1, IB_CLASS_SA, 10)));
    feed_quiet(PK(mad_get(lid(2), lid(5), 1, IB_CLASS_SA, 11)));
    feed(PK(mad_resp(lid(5), lid(2), IB_CLASS_SA, 11, &c)));
    assert_int_equal(get(IB_FIND_REDIRECT)->related.frame, 3);
    feed_quiet(PK(mad_resp(lid(5), lid(2), IB_CLASS_SA, 10, NULL)));
    /* a repeated answer to TID 11 is ignored */
    feed_quiet(PK(mad_resp(lid(5), lid(2), IB_CLASS_SA, 11, &c)));
    assert_int_equal(ib_engine_stats(E)->findings[IB_FIND_REDIRECT], 2);
    /* a response nobody asked for, without redirect: nothing */
    feed_quiet(PK(mad_resp(lid(6), lid(3), IB_CLASS_SA, 1, NULL)));
    /* SMPs are never redirected */
    feed_quiet(PK(mad_resp(lid(6), lid(3), IB_CLASS_SMP_LID, 2, &c)));
}

static void test_cm_rej_redirect(void **state)
{
    (void)state;
    feed_quiet(PK(req(1, 5, 100, T1)));
    struct ib_packet rej = cm(lid(5), lid(1), IB_CM_REJ, 0, 100);
    rej.cm.u.rej.reason = IB_CM_REJ_PORT_CM_REDIRECT;
    rej.cm.u.rej.ari_has_cpi = true;
    rej.cm.has_cpi = true;
    rej.cm.cpi = cpi_to(8, 0x30, IB_GSI_QKEY, 0xffff);
    feed(&rej);
    assert_int_equal(A.count, 1);
    const struct ib_finding *f = get(IB_FIND_REDIRECT);
    assert_int_equal(f->related.frame, 1);
    assert_string_equal(
        text(f), "CM REJ 24 redirect to LID 8 QP 0x000030 Q_Key 0x80010000 P_Key 0xffff SL 0");
    const struct ib_connection_stats cs_now = conn_stats(), *cs = &cs_now;
    assert_int_equal(cs->rejected, 1);
    assert_int_equal(cs->reject_reasons[24], 1);
    assert_true(ib_engine_is_mad_qp(E, &(struct ib_endpoint){ .lid = 8 }, 0x30));
    /* the REQ again to the target */
    feed(PK(req_to(lid(1), lid(8), 0x30, 101, T1)));
    assert_int_equal(A.count, 1);
    assert_int_equal(get(IB_FIND_REDIRECT_FOLLOWED)->related.frame, 2);
    feed_quiet(PK(cm(lid(8), lid(1), IB_CM_REP, 300, 101)));
    const struct ib_redirect_chain *ch = ib_engine_chain(E, 0);
    assert_int_equal(ch->mgmt_class, IB_CLASS_CM);
    assert_int_equal(ch->origin.lid, 5);
    assert_int_equal(ch->first_request.frame, 1);
    assert_int_equal(ch->final_answer.frame, 4);
    /* REJ 25 without ClassPortInfo: just a rejection */
    struct tup t2 = { TEN(1), 40001, TEN(2), 7174 };
    feed_quiet(PK(req(1, 5, 102, t2)));
    rej = cm(lid(5), lid(1), IB_CM_REJ, 0, 102);
    rej.cm.u.rej.reason = IB_CM_REJ_PORT_REDIRECT;
    feed_quiet(&rej);
    ib_engine_finish(E); /* the ended ones first, then the open one */
    assert_int_equal(sink_n, 3);
    assert_int_equal(sink_recs[0].state, IB_CONN_REJECTED);
    assert_int_equal(sink_recs[0].req.frame, 1);
    assert_int_equal(sink_recs[2].state, IB_CONN_REPLIED);
}

static void test_sidr_redirect(void **state)
{
    (void)state;
    struct ib_packet sreq = cm(lid(1), lid(5), IB_CM_SIDR_REQ, 0x55, 0);
    feed_quiet(&sreq);
    feed(&sreq);
    assert_int_equal(get(IB_FIND_RETRANSMISSION)->related.frame, 1);
    struct ib_packet srep = cm(lid(5), lid(1), IB_CM_SIDR_REP, 0x55, 0);
    srep.cm.u.sidr_rep.status = IB_CM_SIDR_STATUS_REDIRECT;
    srep.cm.u.sidr_rep.info_has_cpi = true;
    srep.cm.has_cpi = true;
    srep.cm.cpi = cpi_to(8, 0x30, IB_GSI_QKEY, 0xffff);
    feed(&srep);
    assert_int_equal(A.count, 1);
    assert_int_equal(get(IB_FIND_REDIRECT)->related.frame, 1);
    assert_non_null(strstr(text(get(IB_FIND_REDIRECT)), "CM SIDR_REP redirect to LID 8"));
    const struct ib_connection_stats cs_now = conn_stats(), *cs = &cs_now;
    assert_int_equal(cs->sidr_requests, 1);
    assert_int_equal(cs->sidr_replies, 1);
    assert_int_equal(cs->requests, 0);
    assert_int_equal(cs->retransmissions, 1);
    assert_int_equal(cs->retransmissions_by_message[IB_CM_SIDR_REQ - IB_CM_MSG_FIRST], 1);
    /* asking the redirecting CM again */
    sreq.cm.local_comm_id = 0x56;
    feed(&sreq);
    assert_int_equal(A.count, 1);
    assert_int_equal(get(IB_FIND_REDIRECT_NOT_FOLLOWED)->related.frame, 3);
    /* status 0: no redirect */
    srep.cm.local_comm_id = 0x56;
    srep.cm.u.sidr_rep.status = 0;
    srep.cm.has_cpi = false;
    feed_quiet(&srep);
    later();
    assert_int_equal(sink_n, 2);
    assert_int_equal(sink_recs[0].state, IB_CONN_SIDR);
    assert_int_equal(sink_recs[0].req.frame, 1);
    assert_int_equal(sink_recs[0].rep.frame, 3);
}

/* ---- addressing, malformed, switches ---- */

static void test_addressing_and_malformed(void **state)
{
    (void)state;
    struct ib_packet p = mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, 1);
    ib_diag_add(&p.diags, IB_DIAG_SLID_RESERVED, 6, 2);
    ib_diag_add(&p.diags, IB_DIAG_SNAPLEN, 0, 0);
    ib_diag_add(&p.diags, IB_DIAG_TRUNC_MAD, 28, 100);
    ib_diag_add(&p.diags, IB_DIAG_IPCM_VERSION, 164, 1);
    ib_diag_add(&p.diags, IB_DIAG_LNH_NOT_IBA, 1, 1);
    feed(&p);
    assert_int_equal(A.count, 4);
    assert_int_equal(A.findings[0].kind, IB_FIND_ADDRESSING);
    assert_int_equal(A.findings[0].rule, IB_DIAG_SLID_RESERVED);
    assert_int_equal(A.findings[0].severity, IB_SEV_WARN);
    assert_string_equal(text(&A.findings[0]), "SLID is the reserved LID 0 (slid_reserved)");
    assert_int_equal(A.findings[1].kind, IB_FIND_MALFORMED);
    assert_int_equal(A.findings[1].rule, IB_DIAG_TRUNC_MAD);
    assert_int_equal(A.findings[1].severity, IB_SEV_ERROR);
    /* an IP CM header of unknown version cannot be read: malformed too */
    assert_int_equal(A.findings[2].kind, IB_FIND_MALFORMED);
    assert_int_equal(A.findings[2].rule, IB_DIAG_IPCM_VERSION);
    assert_int_equal(A.findings[3].kind, IB_FIND_ADDRESSING);
    assert_int_equal(A.findings[3].rule, IB_DIAG_LNH_NOT_IBA);
    assert_int_equal(A.findings[3].severity, IB_SEV_NOTE);
    assert_int_equal(A.findings[3].at.frame, 1);
    const struct ib_engine_stats *st = ib_engine_stats(E);
    assert_int_equal(st->diagnostics[IB_DIAG_SLID_RESERVED], 1);
    assert_int_equal(st->diagnostics[IB_DIAG_LNH_NOT_IBA], 1);
    /* every diagnostic is counted by name, not only the addressing rules */
    assert_int_equal(st->diagnostics[IB_DIAG_TRUNC_MAD], 1);
    assert_int_equal(st->diagnostics[IB_DIAG_IPCM_VERSION], 1);
    assert_int_equal(st->findings[IB_FIND_ADDRESSING], 2);
    assert_int_equal(st->findings[IB_FIND_MALFORMED], 2);
    /* a snaplen note alone is not malformed, but it is counted */
    struct ib_packet q = mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, 2);
    ib_diag_add(&q.diags, IB_DIAG_SNAPLEN, 0, 0);
    ib_diag_add(&q.diags, IB_DIAG_SNAPLEN, 4, 0); /* twice in one packet: one packet */
    uint64_t before = st->diagnostics[IB_DIAG_SNAPLEN];
    feed_quiet(&q);
    assert_int_equal(st->diagnostics[IB_DIAG_SNAPLEN], before + 1);
}

static void test_disabled_kind_still_tracks(void **state)
{
    (void)state;
    ib_engine_free(E);
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.enabled[IB_FIND_PORT_REUSED] = false;
    cfg.enabled[IB_FIND_ADDRESSING] = false;
    start(&cfg);
    feed_quiet(PK(req(1, 2, 100, T1)));
    struct tup t2 = { TEN(1), 40000, TEN(3), 7174 };
    feed_quiet(PK(req(1, 3, 101, t2)));
    assert_int_equal(A.links.port_reused_from.frame, 0);
    assert_int_equal(ib_engine_stats(E)->findings[IB_FIND_PORT_REUSED], 0);
    feed(PK(req(1, 2, 102, T1)));
    assert_int_equal(A.count, 1);
    assert_int_equal(get(IB_FIND_DUPLICATE_TUPLE)->related.frame, 1);
    struct ib_packet p = mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, 1);
    ib_diag_add(&p.diags, IB_DIAG_DLID_RESERVED, 2, 2);
    feed_quiet(&p);
    assert_int_equal(ib_engine_stats(E)->diagnostics[IB_DIAG_DLID_RESERVED], 1);
}

static void test_frame_findings_overflow(void **state)
{
    (void)state;
    struct ib_packet p = mad_get(lid(1), lid(5), 1, IB_CLASS_PERF, 1);
    for (unsigned i = 0; i < IB_DIAG_MAX; i++)
        ib_diag_add(&p.diags, IB_DIAG_SLID_MULTICAST, i, 1);
    feed(&p);
    assert_int_equal(A.count, IB_DIAG_MAX);
    assert_int_equal(A.dropped, 0);
}

/* ---- the exhaustion forecast ---- */

#define SEC   INT64_C(1000000000)
#define FC_T0 (1000 * SEC) /* a capture that does not start at 0 */

/* An engine with pool 40000-40999 (1000 ports) and this horizon. */
static void start_forecast(double horizon_s)
{
    ib_engine_free(E);
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.pool_low = 40000;
    cfg.pool_high = 40999;
    cfg.forecast_horizon_s = horizon_s;
    start(&cfg);
}

/* A REQ from 10.0.0.1 on pool port `port` to 10.0.0.<dst>:7471 at t;
 * its LocalCommID is the port. */

/* A connection that holds its port until it ends: REQ, REP and RTU at
 * once; A is the REQ's analysis. */
static void established_at(uint16_t port, unsigned dst, uint32_t comm, int64_t t)
{
    struct tup tp = { TEN(1), port, TEN(dst), 7471 };
    feed_at(PK(req(1, 2, comm, tp)), t);
    static struct ib_frame_analysis req_analysis;
    req_analysis = A;
    feed_at(PK(cm(lid(2), lid(1), IB_CM_REP, PASSIVE_ID(comm), comm)), t);
    feed_at(PK(cm(lid(1), lid(2), IB_CM_RTU, comm, PASSIVE_ID(comm))), t);
    A = req_analysis;
}

/* The same with its own LocalCommID. */
static void req_comm_at(uint16_t port, unsigned dst, uint32_t comm, int64_t t)
{
    comm_of_port[port] = comm;
    established_at(port, dst, comm, t);
}

static void req_at(uint16_t port, unsigned dst, int64_t t)
{
    req_comm_at(port, dst, next_comm++, t);
}

/* The DREQ and DREP that end the connection of req_at(port, ...). */
static void end_at(uint16_t port, int64_t t)
{
    uint32_t comm = comm_of_port[port];
    feed_at(PK(cm(lid(1), lid(2), IB_CM_DREQ, comm, PASSIVE_ID(comm))), t);
    feed_at(PK(cm(lid(2), lid(1), IB_CM_DREP, PASSIVE_ID(comm), comm)), t);
}

static uint64_t forecasts(void)
{
    return ib_engine_stats(E)->findings[IB_FIND_POOL_FORECAST];
}

/* A steady ramp, one port every 100 ms into 1000: every estimate past the
 * warm-up within 2 % of the truth, none before it; one pool_forecast, where
 * 0.9 to 1.1 times the horizon is truly left, with its figures. */
static void test_forecast_steady_ramp(void **state)
{
    (void)state;
    start_forecast(60); /* window 12 s, a rate after 16 events and 3 s */
    uint64_t fired_at = 0;
    for (uint32_t k = 0; k < 1000; k++) {
        req_at((uint16_t)(40000 + k), 2, FC_T0 + k * SEC / 10);
        uint32_t n = k + 1;
        double truth = (1000 - n) * 0.1;
        bool warm = k >= 30; /* 3 s after the first */
        assert_int_equal(A.links.has_exhaustion_eta, warm);
        if (warm && n < 1000) {
            double err = fabs(A.links.exhaustion_eta_s - truth) / truth;
            assert_true(err < 0.02);
            assert_true(fabs(A.links.port_rate_per_s - 10) < 0.2);
        }
        if (count_of(IB_FIND_POOL_FORECAST)) {
            assert_int_equal(fired_at, 0);
            fired_at = frame_no;
            const struct ib_finding *f = get(IB_FIND_POOL_FORECAST);
            assert_true(truth >= 54 && truth <= 66);
            assert_true(f->data.eta_s < 60 && fabs(f->data.eta_s - truth) / truth < 0.02);
            assert_int_equal(f->data.ports_in_use, n);
            assert_int_equal(f->data.pool_size, 1000);
            assert_int_equal(f->data.model, IB_MODEL_ONE_PORT);
            assert_true(fabs(f->data.rate_per_s - 10) < 0.2);
            assert_int_equal(f->related.frame, 0);
            char want[IB_FINDING_TEXT_MAX];
            snprintf(want, sizeof want,
                     "port pool of 10.0.0.1 (TCP) runs out in %u s at "
                     "%.2f ports/s (%u of 1000 in use, one port each)",
                     (unsigned)f->data.eta_s, f->data.rate_per_s, n);
            assert_string_equal(text(f), want);
        }
    }
    assert_true(fired_at > 0);
    assert_int_equal(forecasts(), 1);
    const struct ib_source_stats *s = source0();
    assert_int_equal(s->forecast_at.frame, frame_no - 2); /* the last REQ */
    assert_true(s->forecast[IB_MODEL_ONE_PORT].has_eta);
    assert_true(s->forecast[IB_MODEL_ONE_PORT].eta_s == 0); /* full */
    assert_int_equal(s->forecast[IB_MODEL_PER_DESTINATION].ports_in_use, 1000);
}

/* No rate before 16 port events, nor before a quarter of the window (3 s
 * at horizon 60) has passed since the first. */
static void test_forecast_too_little_seen(void **state)
{
    (void)state;
    start_forecast(60);
    for (uint32_t k = 0; k < 15; k++) {
        req_at((uint16_t)(40000 + k), 2, FC_T0 + k * SEC / 2);
        assert_false(source0()->forecast[IB_MODEL_ONE_PORT].has_rate);
        assert_false(A.links.has_exhaustion_eta);
    }
    req_at(40015, 2, FC_T0 + 15 * SEC / 2);
    assert_true(source0()->forecast[IB_MODEL_ONE_PORT].has_rate);
    assert_true(A.links.has_exhaustion_eta);
    /* Another source: 30 REQs within a second are not yet 3 s of it. */
    for (uint32_t k = 0; k < 30; k++) {
        struct tup tp = { TEN(9), (uint16_t)(40000 + k), TEN(2), 7471 };
        feed_at(PK(req(9, 2, 0x9000 + k, tp)), FC_T0 + 200 * SEC + k * SEC / 30);
        assert_false(A.links.has_exhaustion_eta);
    }
    struct tup tp = { TEN(9), 40030, TEN(2), 7471 };
    feed_at(PK(req(9, 2, 0x9030, tp)), FC_T0 + 202 * SEC + SEC * 9 / 10);
    assert_false(A.links.has_exhaustion_eta); /* 2.9 s */
    tp.sport = 40031;
    feed_at(PK(req(9, 2, 0x9031, tp)), FC_T0 + 203 * SEC + SEC / 10);
    assert_true(A.links.has_exhaustion_eta);
    assert_true(ib_engine_source(E, 1)->forecast[IB_MODEL_ONE_PORT].has_rate);
}

/* A source that closes one connection and opens another each step is flat,
 * however near the pool's end (no pool_forecast at 996 of 1000); one that
 * only closes has a negative rate and no estimate. */
static void test_forecast_flat_and_shrinking(void **state)
{
    (void)state;
    for (uint32_t level = 200; level <= 996; level += 796) {
        start_forecast(60);
        for (uint32_t k = 0; k < level; k++)
            req_at((uint16_t)(40000 + k), 2, FC_T0 + k * SEC / 1000);
        for (uint32_t k = 0; k < 2000; k++) { /* the oldest out, a new one in */
            int64_t t = FC_T0 + 30 * SEC + k * SEC / 10;
            end_at((uint16_t)(40000 + (k % 1000)), t);
            req_at((uint16_t)(40000 + (k + level) % 1000), 2, t + SEC / 1000);
        }
        assert_int_equal(source0()->ports_in_use, level);
        assert_int_equal(forecasts(), 0);
        const struct ib_forecast *fc = &source0()->forecast[IB_MODEL_ONE_PORT];
        assert_true(fc->has_rate && fabs(fc->rate_per_s) < 0.05);
        assert_true(!fc->has_eta || fc->eta_s > 3600);
    }
    start_forecast(60);
    for (uint32_t k = 0; k < 900; k++)
        req_at((uint16_t)(40000 + k), 2, FC_T0 + k * SEC / 1000);
    for (uint32_t k = 0; k < 800; k++) {
        end_at((uint16_t)(40000 + k), FC_T0 + 30 * SEC + k * SEC / 10);
        assert_false(source0()->forecast[IB_MODEL_ONE_PORT].has_eta);
    }
    const struct ib_forecast *fc = &source0()->forecast[IB_MODEL_ONE_PORT];
    assert_true(fc->has_rate && fabs(fc->rate_per_s + 10) < 0.2);
    assert_int_equal(forecasts(), 0);
}

/* One finding per crossing: an estimate that rises above the horizon by
 * less than a tenth does not re-arm it; one that rises further (or goes
 * away) does, and the next crossing fires again. */
static void test_forecast_hysteresis(void **state)
{
    (void)state;
    start_forecast(60);
    uint32_t n = 0;
    int64_t t = FC_T0;
    /* 10 ports a second until it fires (about 400 in use, 60 s left). */
    while (forecasts() == 0) {
        req_at((uint16_t)(40000 + n++), 2, t);
        t += SEC / 10;
    }
    assert_true(n > 390 && n < 420);
    /* 9 a second for 4 s: the estimate rises above 60 s, not above 66. */
    double most = 0;
    for (int k = 0; k < 36; k++) {
        req_at((uint16_t)(40000 + n++), 2, t);
        t += SEC / 9;
        most = A.links.exhaustion_eta_s > most ? A.links.exhaustion_eta_s : most;
    }
    assert_true(most > 60 && most < 66);
    /* 10 a second again: below 60 s again, and quiet. */
    for (int k = 0; k < 50; k++) {
        req_at((uint16_t)(40000 + n++), 2, t);
        t += SEC / 10;
    }
    assert_true(A.links.exhaustion_eta_s < 60);
    assert_int_equal(forecasts(), 1);
    /* 100 ports given back in a second: the estimate rises past 66 s,
     * re-armed; 10 a second fires again. */
    for (int k = 0; k < 100; k++) {
        end_at((uint16_t)(40000 + k), t);
        t += SEC / 100;
    }
    const struct ib_forecast *fc = &source0()->forecast[IB_MODEL_ONE_PORT];
    assert_true(!fc->has_eta || fc->eta_s > 66);
    uint32_t next = n;
    while (forecasts() == 1 && next < 1000) {
        req_at((uint16_t)(40000 + next++), 2, t);
        t += SEC / 10;
    }
    assert_int_equal(forecasts(), 2);
}

/* Connections move from one destination to another: one port each stays
 * flat, per destination grows, and the forecast is the per-destination
 * model's. */
static void test_forecast_per_destination(void **state)
{
    (void)state;
    start_forecast(60);
    for (uint32_t k = 0; k < 600; k++) /* 600 to destination 3 */
        req_at((uint16_t)(40000 + k), 3, FC_T0 + k * SEC / 1000);
    for (uint32_t k = 0; k < 600 && forecasts() == 0; k++) {
        int64_t t = FC_T0 + 30 * SEC + k * SEC / 10;
        end_at((uint16_t)(40000 + k), t);
        req_comm_at((uint16_t)(40000 + k), 4, 0x10000 + k, t + SEC / 1000);
    }
    assert_int_equal(forecasts(), 1);
    const struct ib_finding *f = get(IB_FIND_POOL_FORECAST);
    assert_int_equal(f->data.model, IB_MODEL_PER_DESTINATION);
    assert_true(f->data.ports_in_use > 395 && f->data.ports_in_use < 420);
    assert_true(strstr(text(f), "in use, per destination)") != NULL);
    const struct ib_source_stats *s = source0();
    assert_int_equal(s->ports_in_use, 600);
    assert_false(s->forecast[IB_MODEL_ONE_PORT].has_eta);
    assert_true(s->forecast[IB_MODEL_PER_DESTINATION].has_eta);
    enum ib_pool_model m = IB_MODEL_ONE_PORT;
    assert_true(ib_forecast_soonest(s->forecast, &m));
    assert_int_equal(m, IB_MODEL_PER_DESTINATION);
}

/* Asked later with nothing new, the window slides on: a quiet source's
 * estimate grows, and a window's length later there is none. */
static void test_forecast_window_slides(void **state)
{
    (void)state;
    start_forecast(60);
    int64_t t = FC_T0;
    for (uint32_t k = 0; k < 300; k++, t += SEC / 10)
        req_at((uint16_t)(40000 + k), 2, t);
    int64_t last = t - SEC / 10;
    struct ib_forecast fc[IB_MODEL_COUNT];
    ib_engine_source_forecast(E, 0, last, fc);
    double at_last = fc[IB_MODEL_ONE_PORT].eta_s;
    assert_true(fabs(at_last - source0()->forecast[IB_MODEL_ONE_PORT].eta_s) < 1e-9);
    ib_engine_source_forecast(E, 0, last - 5 * SEC, fc); /* earlier: as at the last */
    assert_true(fabs(fc[IB_MODEL_ONE_PORT].eta_s - at_last) < 1e-9);
    ib_engine_source_forecast(E, 0, last + 3 * SEC, fc);
    assert_true(fc[IB_MODEL_ONE_PORT].has_eta && fc[IB_MODEL_ONE_PORT].eta_s > at_last * 1.1);
    ib_engine_source_forecast(E, 0, last + 13 * SEC, fc);
    assert_true(fc[IB_MODEL_ONE_PORT].has_rate && !fc[IB_MODEL_ONE_PORT].has_eta);
    ib_engine_source_forecast(E, 7, last, fc); /* no such source */
    assert_false(fc[IB_MODEL_ONE_PORT].has_rate);
}

static void test_format_time_left(void **state)
{
    (void)state;
    static const struct {
        double s;
        const char *text;
    } cases[] = {
        { 0, "0.0 s" },
        { 4.24, "4.2 s" },
        { 57.9, "57 s" },
        { 245, "4m 05s" },
        { 3599.9, "59m 59s" },
        { 3 * 3600 + 7 * 60 + 59, "3h 07m" },
        { 2 * 86400 + 5 * 3600, "2d 05h" },
        { 412 * 86400.0, "412 d" },
        { -1, "0.0 s" },
        { NAN, "0.0 s" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[24];
        assert_string_equal(ib_format_time_left(cases[i].s, buf, sizeof buf), cases[i].text);
    }
    assert_string_equal(ib_pool_model_name(IB_MODEL_PER_DESTINATION), "per_destination");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
        T(test_kind_names),
        T(test_non_ib_frame),
        T(test_retransmission),
        T(test_same_id_other_node_not_retransmission),
        T(test_req_again_after_reply_is_a_copy),
        T(test_req_key_has_ca_guid),
        T(test_host_by_ca_guid),
        T(test_host_without_guid_is_its_address),
        T(test_host_declared_wins),
        T(test_host_of_sender),
        T(test_host_many_addresses),
        T(test_host_addresses_capped),
        T(test_host_pool_high_names_host),
        T(test_duplicate_tuple),
        T(test_port_reused_links_latest),
        T(test_reuse_after_close_no_finding),
        T(test_connection_record_lifecycle),
        T(test_reject_record_and_reasons),
        T(test_dreq_from_either_side),
        T(test_dreq_unanswered_gives_up),
        T(test_drep_lost_and_crossing_dreqs),
        T(test_rej_lost_one_attempt),
        T(test_messages_after_path_migration),
        T(test_explicit_port_shared),
        T(test_timer_on_any_frame),
        T(test_advance_without_frames),
        T(test_mra_extends_the_wait),
        T(test_ended_kept_under_a_cap),
        T(test_path_messages_on_roce),
        T(test_waiting_at_end),
        T(test_roce_without_lids),
        T(test_latency),
        T(test_latency_many_samples),
        T(test_config_problems),
        T(test_pool_high_once_per_crossing),
        T(test_pool_high_hysteresis),
        T(test_exhaustion_default_pool),
        T(test_exhaustion_spread_over_destinations),
        T(test_usage_busiest_destination),
        T(test_ports_outside_pool),
        T(test_decimal_threshold),
        T(test_connection_eviction),
        T(test_source_cap),
        T(test_transaction_eviction),
        T(test_redirect_chain_two_hops),
        T(test_redirect_loop_length_1),
        T(test_redirect_loop_length_2),
        T(test_redirect_self_loop_at_second_hop),
        T(test_redirect_repeated_is_not_a_loop),
        T(test_redirect_elsewhere_starts_new_chain),
        T(test_redirect_gid_only),
        T(test_redirect_gid_only_followed),
        T(test_redirect_bad_targets),
        T(test_redirect_key_mismatch),
        T(test_redirect_not_followed),
        T(test_redirect_chain_end),
        T(test_chain_end_names),
        T(test_out_of_order_responses),
        T(test_cm_rej_redirect),
        T(test_sidr_redirect),
        T(test_addressing_and_malformed),
        T(test_disabled_kind_still_tracks),
        T(test_frame_findings_overflow),
        T(test_forecast_steady_ramp),
        T(test_forecast_too_little_seen),
        T(test_forecast_flat_and_shrinking),
        T(test_forecast_hysteresis),
        T(test_forecast_per_destination),
        T(test_forecast_window_slides),
        T(test_format_time_left),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
