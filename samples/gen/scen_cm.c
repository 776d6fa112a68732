/* scen_cm.c - the rdma_cm story: connections, reuse, retries, rejects, SIDR.
 *
 * One story, written against hosts; the link type decides framing, so the
 * same frames appear in cm_ib_erf / cm_ib_lrh / cm_user0 (native IB),
 * cm_rocev2 (Ethernet, with VLAN tags on some connections) and cm_sll.
 */
#include <stdio.h>
#include <string.h>

#include "cm_flow.h"
#include "scenarios.h"

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (d))

static bool is_eth(const gen_t *g)
{
    return g->link == LINK_ETH;
}

static const char *link_word(const gen_t *g)
{
    return (g->link == LINK_ETH || g->link == LINK_SLL) ? "RoCEv2" : "native IB";
}

static void rtu_note(gen_t *g, uint32_t f, const char *name)
{
    gen_note(g, f, "RTU: connection %s established", name);
}

/* The story's hosts, and the connections and frame it comes back to. */
typedef struct {
    gen_t *g;
    host_t cl, s1, s2, s3;
    cm_conn_t a, b, h;
    uint32_t fa; /* A's REQ */
} cm_story_t;

/* A: the reference connection */
static void conn_a(cm_story_t *st)
{
    gen_t *g = st->g;
    char t[128];
    uint32_t f;

    cm_conn_init(g, &st->a, &st->cl, &st->s1, RDMA_PS_TCP, 40001, 7471, false);
    st->a.name = "A";
    st->fa = cm_req(g, &st->a);
    gen_note(g, st->fa,
             "REQ, connection A: %s, port space TCP, ServiceID 0x%016llx, LocalCommID 0x%08x, "
             "%s",
             cm_conn_tuple(&st->a, t, sizeof(t)), (unsigned long long)cm_conn_service_id(&st->a),
             st->a.act_id, link_word(g));
    f = cm_rep(g, &st->a);
    gen_note(g, f, "REP for frame %u (same TID 0x%016llx)", st->fa,
             (unsigned long long)st->a.req_tid);
    rtu_note(g, cm_rtu(g, &st->a), "A");
}

/* B: same source port, different destination address: legal reuse */
static void conn_b(cm_story_t *st)
{
    gen_t *g = st->g;
    char t[128];
    uint32_t f;

    cm_conn_init(g, &st->b, &st->cl, &st->s2, RDMA_PS_TCP, 40001, 7471, false);
    st->b.name = "B";
    if (is_eth(g)) {
        st->b.ntags = 1;
        st->b.tpid[0] = ETHERTYPE_VLAN;
        st->b.tci[0] = (3u << 13) | 100u;
    }
    f = cm_req(g, &st->b);
    gen_note(g, f,
             "REQ, connection B: %s: source port 40001 reused for a second destination while "
             "A (frame %u) is open; legal under the 4-tuple rule%s",
             cm_conn_tuple(&st->b, t, sizeof(t)), st->fa,
             is_eth(g) ? "; B's frames carry 802.1Q VLAN 100 (PCP 3)" : "");
    cm_rep(g, &st->b);
    rtu_note(g, cm_rtu(g, &st->b), "B");
}

/* C: REQ retransmitted, then MRA, REP, RTU */
static void conn_c(cm_story_t *st)
{
    gen_t *g = st->g;
    char t[128];
    uint32_t f, fc;

    cm_conn_t c;
    cm_conn_init(g, &c, &st->cl, &st->s1, RDMA_PS_TCP, 40002, 7471, false);
    c.name = "C";
    fc = cm_req(g, &c);
    gen_note(g, fc, "REQ, connection C: %s, LocalCommID 0x%08x", cm_conn_tuple(&c, t, sizeof(t)),
             c.act_id);
    gen_wait(g, 4295000); /* CM response timeout 20: 4.295 s */
    f = cm_req(g, &c);
    gen_note(g, f,
             "REQ retransmission of frame %u (same LocalCommID 0x%08x and TID 0x%016llx, "
             "4.295 s later): a retry, not a new connection",
             fc, c.act_id, (unsigned long long)c.req_tid);
    f = cm_mra(g, &c, 0, 23);
    gen_note(g, f, "MRA for the REQ of frame %u (MsgMRAed 0 = REQ, ServiceTimeout 23)", fc);
    gen_wait(g, 20000);
    cm_rep(g, &c);
    rtu_note(g, cm_rtu(g, &c), "C");
}

/* D and D2: the same tuple twice while D is open */
static void conn_d(cm_story_t *st)
{
    gen_t *g = st->g;
    char t[128];
    uint32_t f, fd;

    cm_conn_t d, d2;
    cm_conn_init(g, &d, &st->cl, &st->s1, RDMA_PS_TCP, 40003, 7471, false);
    d.name = "D";
    fd = cm_req(g, &d);
    gen_note(g, fd, "REQ, connection D: %s, LocalCommID 0x%08x", cm_conn_tuple(&d, t, sizeof(t)),
             d.act_id);
    cm_rep(g, &d);
    rtu_note(g, cm_rtu(g, &d), "D");
    cm_conn_init(g, &d2, &st->cl, &st->s1, RDMA_PS_TCP, 40003, 7471, false);
    d2.name = "D2";
    f = cm_req(g, &d2);
    gen_note(g, f,
             "REQ, connection D2: duplicate tuple (TCP, %s) of D (frame %u) with a different "
             "LocalCommID 0x%08x while D is still open: the 4-tuple rule forbids this",
             cm_conn_tuple(&d2, t, sizeof(t)), fd, d2.act_id);
    cm_rep(g, &d2);
    rtu_note(g, cm_rtu(g, &d2), "D2");
}

/* E: consumer reject */
static void conn_e(cm_story_t *st)
{
    gen_t *g = st->g;
    char t[128];
    uint32_t f, fc;

    cm_conn_t e;
    cm_conn_init(g, &e, &st->cl, &st->s3, RDMA_PS_TCP, 40004, 7471, false);
    e.name = "E";
    if (is_eth(g)) {
        e.ntags = 2;
        e.tpid[0] = ETHERTYPE_QINQ;
        e.tci[0] = 200u;
        e.tpid[1] = ETHERTYPE_VLAN;
        e.tci[1] = 100u;
    }
    f = cm_req(g, &e);
    gen_note(g, f, "REQ, connection E: %s%s", cm_conn_tuple(&e, t, sizeof(t)),
             is_eth(g) ? "; E's frames carry stacked 802.1ad S-VLAN 200 + 802.1Q C-VLAN 100" : "");
    fc = cm_rej(g, &e, 28, NULL, 0);
    gen_note(g, fc, "REJ reason 28 (consumer reject) of the REQ in frame %u: E never opens", f);
}

/* F: no listener */
static void conn_f(cm_story_t *st)
{
    gen_t *g = st->g;
    char t[128];
    uint32_t f, fc;

    cm_conn_t fl;
    cm_conn_init(g, &fl, &st->cl, &st->s3, RDMA_PS_TCP, 40005, 9999, false);
    fl.name = "F";
    f = cm_req(g, &fl);
    gen_note(g, f, "REQ, connection F: %s (nobody listens on 9999)",
             cm_conn_tuple(&fl, t, sizeof(t)));
    fc = cm_rej(g, &fl, 8, NULL, 0);
    gen_note(g, fc,
             "REJ reason 8 (invalid service ID) of the REQ in frame %u, LocalCommID 0: F never "
             "opens",
             f);
}

/* A closes; its tuple is used again */
static void reuse_a(cm_story_t *st)
{
    gen_t *g = st->g;
    uint32_t f, fc;

    f = cm_dreq(g, &st->a, true);
    gen_note(g, f, "DREQ from the active side: connection A closing");
    fc = cm_drep(g, &st->a, false);
    gen_note(g, fc, "DREP: connection A closed");
    cm_conn_t a2;
    cm_conn_init(g, &a2, &st->cl, &st->s1, RDMA_PS_TCP, 40001, 7471, false);
    a2.name = "A2";
    uint32_t fa2 = cm_req(g, &a2);
    gen_note(g, fa2,
             "REQ, connection A2: tuple of A (frame %u) reused after A was closed by DREQ/DREP "
             "(frames %u-%u), new LocalCommID 0x%08x: legal, a new connection",
             st->fa, f, fc, a2.act_id);
    cm_rep(g, &a2);
    rtu_note(g, cm_rtu(g, &a2), "A2");
}

/* H: IPv6 */
static void conn_h(cm_story_t *st)
{
    gen_t *g = st->g;
    char t[128];
    uint32_t f;

    cm_conn_init(g, &st->h, &st->cl, &st->s1, RDMA_PS_TCP, 40007, 7471, true);
    st->h.name = "H";
    f = cm_req(g, &st->h);
    gen_note(g, f, "REQ, connection H: %s, IP CM IPV 6%s", cm_conn_tuple(&st->h, t, sizeof(t)),
             (g->link == LINK_ETH || g->link == LINK_SLL) ? ", carried over IPv6" : "");
    cm_rep(g, &st->h);
    rtu_note(g, cm_rtu(g, &st->h), "H");
}

/* S: SIDR in the UDP port space */
static void sidr_s(cm_story_t *st)
{
    gen_t *g = st->g;
    char t[128];
    uint32_t f, fc;

    cm_conn_t s;
    cm_conn_init(g, &s, &st->cl, &st->s2, RDMA_PS_UDP, 40008, 5000, false);
    s.name = "S";
    f = cm_sidr_req(g, &s);
    gen_note(g, f,
             "SIDR_REQ: %s, port space UDP, ServiceID 0x%016llx, RequestID 0x%08x, IP CM header "
             "at MAD offset 40",
             cm_conn_tuple(&s, t, sizeof(t)), (unsigned long long)cm_conn_service_id(&s), s.act_id);
    fc = cm_sidr_rep(g, &s, 0, NULL, 0, 0x01234567u);
    gen_note(g, fc, "SIDR_REP status 0 for frame %u: QPN 0x%06x, Q_Key 0x01234567", f, s.pas_qpn);
}

/* H closes from the passive side, then B */
static void close_h_b(cm_story_t *st)
{
    gen_t *g = st->g;
    uint32_t f;

    gen_wait(g, 1000000);
    f = cm_dreq(g, &st->h, false);
    gen_note(g, f, "DREQ from the passive side of H");
    f = cm_drep(g, &st->h, true);
    gen_note(g, f, "DREP: connection H closed");
    f = cm_dreq(g, &st->b, false);
    gen_note(g, f, "DREQ from the passive side of B");
    f = cm_drep(g, &st->b, true);
    gen_note(g, f, "DREP: connection B closed");
}

void story_cm(gen_t *g)
{
    cm_story_t st = { .g = g };
    host_init(&st.cl, "client", 0x0011, 0x98039B0300A1B211ull, IP4(10, 0, 0, 11), 0x11);
    host_init(&st.s1, "server1", 0x0012, 0x98039B0300A1B212ull, IP4(10, 0, 0, 12), 0x12);
    host_init(&st.s2, "server2", 0x0013, 0x98039B0300A1B213ull, IP4(10, 0, 0, 13), 0x13);
    host_init(&st.s3, "server3", 0x0014, 0x98039B0300A1B214ull, IP4(10, 0, 0, 14), 0x14);
    conn_a(&st);
    conn_b(&st);
    conn_c(&st);
    conn_d(&st);
    conn_e(&st);
    conn_f(&st);
    reuse_a(&st);
    conn_h(&st);
    sidr_s(&st);
    close_h_b(&st);
    gen_note(g, 0,
             "Open at the end of the capture: C, D, D2, A2. Closed: A, B, H. Rejected: E (28), "
             "F (8). Ports of 10.0.0.11 in port space TCP: 40001-40005 (IPv4), 40007 (IPv6); "
             "UDP (SIDR): 40008.");
}

/* Port space IB (0x013F) with an IP CM header, in a file of its own: Wireshark
 * 4.0's SDP heuristic claims any CM conversation whose ServiceID has bit 16
 * set and then marks the REQ malformed (its bug, not the frame's). */
void story_ps_ib(gen_t *g)
{
    host_t cl, s2;
    host_init(&cl, "client", 0x0011, 0x98039B0300A1B211ull, IP4(10, 0, 0, 11), 0x11);
    host_init(&s2, "server2", 0x0013, 0x98039B0300A1B213ull, IP4(10, 0, 0, 13), 0x13);
    char t[128];
    cm_conn_t gc;
    cm_conn_init(g, &gc, &cl, &s2, RDMA_PS_IB, 40006, 18515, false);
    gc.name = "G";
    uint32_t f = cm_req(g, &gc);
    gen_note(g, f,
             "REQ: %s, port space IB, ServiceID 0x%016llx, IP CM header present (MajV 0, IPV "
             "4: the application used AF_INET), LocalCommID 0x%08x",
             cm_conn_tuple(&gc, t, sizeof(t)), (unsigned long long)cm_conn_service_id(&gc),
             gc.act_id);
    cm_rep(g, &gc);
    rtu_note(g, cm_rtu(g, &gc), "G");
    gen_wait(g, 500000);
    f = cm_dreq(g, &gc, true);
    gen_note(g, f, "DREQ from the active side");
    f = cm_drep(g, &gc, false);
    gen_note(g, f, "DREP: connection closed");
}
