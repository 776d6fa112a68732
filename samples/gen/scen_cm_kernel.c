/* scen_cm_kernel.c - the rows of ibscope-gen cm-kernel (cm_kernel.h): issue
 * 34's table played on the Linux kernel's timing.
 *
 * Timing (cm.c): a REQ carries LocalCMResponseTimeout = RemoteCMResponse-
 * Timeout = 20 and MaxCMRetries 15 (rdma_cm's defaults) and
 * PrimaryLocalACKTimeout = packet lifetime + 1 (cm_ack_timeout).  The MAD
 * layer sends a message at most 1 + 15 times, one wait apart, and gives up
 * one wait after the last.  Passive sides here accept inside their
 * CONNECT_REQUEST handler (kernel ULPs: nvmet-rdma, ko2iblnd) unless a row
 * says its server accepts late; either way no MRA goes out: for a later
 * accept cma_ib_req_handler only marks the id MRA_REQ_SENT (ib_send_cm_mra
 * with IB_CM_MRA_FLAG_DELAY, ib_prepare_cm_mra in 2025 trees) and
 * cm_dup_req_handler sends the MRA if a duplicate REQ comes before the
 * accept, which no row lets happen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_kernel.h"
#include "encap.h"

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (d))
#define MS              1000ull
#define S               1000000ull
#define GAP             150ull /* a host's answer to a message, in us */

/* Linux's default ip_local_port_range, ibscope's default pool */
#define LINUX_LO 32768
#define LINUX_HI 60999

static void require(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "ibscope-gen: cm-kernel: timing does not hold: %s (bug)\n", what);
        abort();
    }
}

static void conn(cmk_t *k, cmk_conn_t *kc, host_t *act, host_t *pas, uint16_t sport, uint16_t dport,
                 uint8_t packet_life)
{
    memset(kc, 0, sizeof(*kc));
    cm_conn_init(k->g, &kc->c, act, pas, RDMA_PS_TCP, sport, dport, false);
    kc->c.pkt_life = packet_life;
}

/* REQ, REP, RTU from t: a passive side that accepts in its handler. */
static void connect3(cmk_t *k, cmk_conn_t *kc, uint64_t t)
{
    cmk_at(k, t);
    cmk_send(k, kc, CMK_REQ, true, 0);
    cmk_at(k, t + GAP);
    cmk_send(k, kc, CMK_REP, false, 0);
    cmk_at(k, t + 2 * GAP);
    cmk_send(k, kc, CMK_RTU, true, 0);
}

/* An ARP request from h: a last frame after everything the row waits for,
 * so that the capture ends after the give-ups it counts. */
static void arp_probe(cmk_t *k, const host_t *h, uint32_t target)
{
    uint8_t f[60];
    memset(f, 0, sizeof f);
    memset(f, 0xFF, 6);
    memcpy(f + 6, h->mac, 6);
    f[12] = 0x08;
    f[13] = 0x06;
    uint8_t *a = f + 14;
    a[1] = 1;    /* Ethernet */
    a[2] = 0x08; /* IPv4 */
    a[4] = 6;
    a[5] = 4;
    a[7] = 1; /* request */
    memcpy(a + 8, h->mac, 6);
    for (int i = 0; i < 4; i++) {
        a[14 + i] = (uint8_t)(h->ip4 >> (24 - 8 * i));
        a[24 + i] = (uint8_t)(target >> (24 - 8 * i));
    }
    gen_emit_raw(k->g, f, sizeof f, sizeof f);
}

/* 1. A REP lost: the REQ again, dropped, the REP on its own MAD retry. */
static void row_lost_rep(cmk_t *k)
{
    host_t cl, sv;
    host_init(&cl, "client", 0x0011, 0x0002C90300A10011ull, IP4(10, 0, 0, 11), 0x11);
    host_init(&sv, "server", 0x0012, 0x0002C90300A10012ull, IP4(10, 0, 0, 12), 0x12);
    static portspace_t ps;
    portspace_init(&ps, LINUX_LO, LINUX_HI);
    cmk_conn_t a;
    conn(k, &a, &cl, &sv, portspace_alloc(&ps, &k->g->rng), 7471, IB_PACKET_LIFETIME);
    const uint64_t wa = cm_active_wait_us(IB_PACKET_LIFETIME), wp = cm_passive_wait_us();
    /* a user-space server accepting 2.5 s after the REQ (no MRA: the
     * duplicate REQ comes after the REP); a REP sooner than 2 x 1024 ms
     * would be retried before the REQ is */
    const uint64_t accept = 2500 * MS;
    require(accept < wa && wa < accept + wp, "REQ retry between the REP and its retry");
    cmk_at(k, 0);
    cmk_send(k, &a, CMK_REQ, true, 0);
    cmk_at(k, accept);
    cmk_send(k, &a, CMK_REP, false, 0); /* lost past the mirror */
    cmk_at(k, wa);
    cmk_send(k, &a, CMK_REQ, true, 0); /* cm_dup_req_handler, REP_SENT: nothing */
    cmk_at(k, accept + wp);
    cmk_send(k, &a, CMK_REP, false, 0);
    cmk_at(k, accept + wp + GAP);
    cmk_send(k, &a, CMK_RTU, true, 0);
    cmk_at(k, accept + wp + 10 * S);
    cmk_send(k, &a, CMK_DREQ, true, 0);
    cmk_at(k, cmk_now(k) + GAP);
    cmk_send(k, &a, CMK_DREP, false, 0);
    portspace_release(&ps, a.c.sport);

    k->vantage = "mirror port";
    k->vantage_why = "a switch port mirror between the hosts: it sees the first REP before "
                     "it is lost";
    cmk_set(k, K_REQUESTS, 1,
            "cm_req_handler -> cm_match_req -> cm_insert_remote_id: the second REQ has the "
            "first's (LocalCommID, LocalCAGUID) -> cm_dup_req_handler");
    cmk_set(k, K_ESTABLISHED, 1, "cm_rep_handler -> RTU; cm_rtu_handler");
    cmk_set(k, K_CLOSED, 1, "cm_dreq_handler -> ib_send_cm_drep; cm_drep_handler");
    cmk_why(k, K_RETX_FIRST + CMK_REQ,
            "ib_send_cm_req: timeout_ms 2 x 1024 + 4096 ms, the REQ again at 6.144 s; "
            "cm_dup_req_handler (IB_CM_REP_SENT) answers nothing");
    cmk_why(k, K_RETX_FIRST + CMK_REP,
            "ib_send_cm_rep: MAD retry 4.096 s (cm_req_handler: LocalCMResponseTimeout 20) "
            "after the lost REP, at 6.596 s");
    cmk_ports(k, &ps, "_destroy_id -> cma_release_port after the DREP",
              "cma_alloc_any_port: one id, one port");
}

/* 2. The return path broken: 16 REQs, 16 REPs, both give up. */
static void row_broken_return(cmk_t *k)
{
    host_t cl, sv;
    host_init(&cl, "client", 0x0011, 0x98039B0300B20011ull, IP4(10, 0, 0, 11), 0x11);
    host_init(&sv, "server", 0x0012, 0x98039B0300B20012ull, IP4(10, 0, 0, 12), 0x12);
    static portspace_t ps;
    portspace_init(&ps, LINUX_LO, LINUX_HI);
    cmk_conn_t a;
    conn(k, &a, &cl, &sv, portspace_alloc(&ps, &k->g->rng), 7471, CMA_IBOE_PACKET_LIFETIME);
    const uint64_t wa = cm_active_wait_us(CMA_IBOE_PACKET_LIFETIME), wp = cm_passive_wait_us();
    /* A user-space server accepting 4 s after the REQ (no MRA: the first
     * duplicate REQ comes after the REP).  Any sooner and the passive side gives
     * up (accept + 16 x 4.096 s) before the 16th REQ (15 x 4.608 s) and takes
     * that one for a new request. */
    const uint64_t accept = 4000 * MS;
    require(accept < wa, "the second REQ finds the REP sent");
    require(accept + CM_SENDS * wp > (CM_SENDS - 1) * wa, "the passive side holds the 16th REQ");
    int q = 0, p = 0;
    while (q < CM_SENDS || p < CM_SENDS) {
        uint64_t tq = q < CM_SENDS ? q * wa : UINT64_MAX;
        uint64_t tp = p < CM_SENDS ? accept + p * wp : UINT64_MAX;
        if (tq <= tp) {
            cmk_at(k, tq);
            cmk_send(k, &a, CMK_REQ, true, 0); /* after the first: REP_SENT, dropped */
            q++;
        } else {
            cmk_at(k, tp);
            cmk_send(k, &a, CMK_REP, false, 0); /* never arrives */
            p++;
        }
    }
    /* the active side gives up at 16 x 4.608 s: IB_CM_REQ_ERROR, the id
     * destroyed, its port free; the passive side at 4 + 16 x 4.096 s */
    portspace_release(&ps, a.c.sport);
    cmk_at(k, CM_SENDS * wa + 1 * S);
    arp_probe(k, &cl, sv.ip4);

    k->vantage = "mirror port";
    k->vantage_why = "a mirror of the server's switch port: the REQs arrive, the REPs leave "
                     "and are lost beyond it";
    cmk_set(k, K_REQUESTS, 1,
            "cm_match_req -> cm_dup_req_handler (IB_CM_REP_SENT): REQs 2-16 are the first's "
            "(LocalCommID, LocalCAGUID)");
    cmk_set(k, K_UNREACHABLE, 1,
            "cm_process_send_error (IB_CM_REQ_SENT) -> cm_reset_to_idle, IB_CM_REQ_ERROR -> "
            "cma_ib_handler: RDMA_CM_EVENT_UNREACHABLE at 73.728 s, before the last frame");
    cmk_set(k, K_F_UNREACHABLE, 1,
            "cm_process_send_error: the one attempt given up (the passive side's "
            "IB_CM_REP_ERROR is the same connection)");
    cmk_set(k, K_WAITING_AT_END, 0,
            "the last frame (an ARP request) is 1 s after the active side's give-up");
    cmk_why(k, K_RETX_FIRST + CMK_REQ,
            "ib_send_cm_req: 15 MAD retries (MaxCMRetries) 2 x 256 + 4096 ms apart");
    cmk_why(k, K_RETX_FIRST + CMK_REP,
            "ib_send_cm_rep: 15 MAD retries 4096 ms apart (LocalCMResponseTimeout 20)");
    cmk_ports(k, &ps, "IB_CM_REQ_ERROR -> rdma_destroy_id -> cma_release_port",
              "cma_alloc_any_port: one id, one port");
}

/* 3. A dead target, reconnected to 60 times. */
static void row_dead_target(cmk_t *k)
{
    host_t cl, dead;
    /* through a router: rdma_resolve_addr resolves the router, not the target */
    host_init(&cl, "client", 0x0011, 0x98039B0300C30011ull, IP4(10, 0, 1, 11), 0x11);
    host_init(&dead, "dead", 0x0012, 0x98039B0300C30012ull, IP4(10, 0, 2, 12), 0x12);
    static portspace_t ps;
    portspace_init(&ps, 40000, 40063);
    snprintf(k->options, sizeof k->options, "--pool 40000-40063");
    const uint64_t wa = cm_active_wait_us(CMA_IBOE_PACKET_LIFETIME);
    const int attempts = 60;
    uint64_t t = 0;
    int given_up = 0;
    for (int i = 0; i < attempts; i++) {
        static cmk_conn_t a;
        conn(k, &a, &cl, &dead, portspace_alloc(&ps, &k->g->rng), 4420, CMA_IBOE_PACKET_LIFETIME);
        for (int s = 0; s < CM_SENDS; s++) {
            cmk_at(k, t + s * wa);
            cmk_send(k, &a, CMK_REQ, true, 0);
        }
        if (i == attempts - 1)
            break; /* the capture ends at the last REQ, inside its wait */
        /* 16 x 4.608 s: IB_CM_REQ_ERROR; rdma_destroy_id frees the port; a
         * new id 1 s later */
        portspace_release(&ps, a.c.sport);
        given_up++;
        t += CM_SENDS * wa + 1 * S;
    }

    k->vantage = "active host";
    k->vantage_why = "the client's own capture: every REQ it sends";
    cmk_set(k, K_REQUESTS, attempts,
            "cm_alloc_id (xa_alloc_cyclic): each new id a new LocalCommID; its 16 REQs one "
            "attempt (cm_match_req key)");
    cmk_set(k, K_UNREACHABLE, given_up,
            "cm_process_send_error (IB_CM_REQ_SENT) -> IB_CM_REQ_ERROR: attempts 1-59 given up "
            "73.728 s after their first REQ");
    cmk_set(k, K_F_UNREACHABLE, given_up, "cm_process_send_error: one per attempt given up");
    cmk_set(k, K_WAITING_AT_END, 1,
            "the capture ends at attempt 60's 16th REQ: its 4.608 s wait (ib_send_cm_req "
            "timeout_ms) runs past the last frame");
    cmk_why(k, K_RETX_FIRST + CMK_REQ, "ib_send_cm_req: 15 MAD retries per attempt, 60 x 15");
    cmk_why(k, K_DUPLICATE_TUPLE,
            "_destroy_id -> cma_release_port: each attempt's port is free before "
            "cma_alloc_any_port picks the next (ports do repeat across attempts)");
    cmk_ports(k, &ps, "the last attempt's id still holds its port (cma_get_port at resolve)",
              "rdma_destroy_id -> cma_release_port before each new id's cma_alloc_any_port");
}

#define DT_CONNS 8

/* 4. A dead target's DREQs, then a live server on the freed ports. */
static void row_dead_target_dreq(cmk_t *k)
{
    host_t cl, s1, s2;
    host_init(&cl, "client", 0x0011, 0x98039B0300D40011ull, IP4(10, 0, 1, 11), 0x11);
    host_init(&s1, "server1", 0x0012, 0x98039B0300D40012ull, IP4(10, 0, 2, 12), 0x12);
    host_init(&s2, "server2", 0x0013, 0x98039B0300D40013ull, IP4(10, 0, 3, 13), 0x13);
    static portspace_t ps;
    portspace_init(&ps, 40000, 40009);
    snprintf(k->options, sizeof k->options, "--pool 40000-40009");
    const uint64_t wa = cm_active_wait_us(CMA_IBOE_PACKET_LIFETIME);
    static cmk_conn_t a[DT_CONNS], b[DT_CONNS];
    for (int i = 0; i < DT_CONNS; i++) {
        conn(k, &a[i], &cl, &s1, portspace_alloc(&ps, &k->g->rng), 4420, CMA_IBOE_PACKET_LIFETIME);
        connect3(k, &a[i], (uint64_t)i * 10 * MS);
    }
    /* server1 dies; the client disconnects each: ib_send_cm_dreq, the
     * REQ's timeout_ms (4.608 s) per try */
    const uint64_t die = 30 * S;
    for (int s = 0; s < CM_SENDS; s++)
        for (int i = 0; i < DT_CONNS; i++) {
            cmk_at(k, die + s * wa + (uint64_t)i * MS);
            cmk_send(k, &a[i], CMK_DREQ, true, 0);
        }
    /* IB_CM_DREQ_ERROR -> cm_enter_timewait, RDMA_CM_EVENT_DISCONNECTED;
     * the ids destroyed, the ports free */
    for (int i = 0; i < DT_CONNS; i++)
        portspace_release(&ps, a[i].c.sport);
    const uint64_t again = die + CM_SENDS * wa + DT_CONNS * MS + 1 * S;
    for (int i = 0; i < DT_CONNS; i++) {
        conn(k, &b[i], &cl, &s2, portspace_alloc(&ps, &k->g->rng), 4420, CMA_IBOE_PACKET_LIFETIME);
        connect3(k, &b[i], again + (uint64_t)i * 10 * MS);
    }

    k->vantage = "active host";
    k->vantage_why = "the client's own capture: every DREQ it sends";
    cmk_set(k, K_REQUESTS, 2 * DT_CONNS, "cm_req_handler: 16 REQs, each a new LocalCommID");
    cmk_set(k, K_ESTABLISHED, 2 * DT_CONNS, "cm_rtu_handler: each REQ answered, RTU sent");
    cmk_set(k, K_CLOSED, DT_CONNS, "ib_send_cm_dreq: a DREQ for each of server1's connections");
    cmk_set(k, K_DISCONNECT_TIMEOUTS, DT_CONNS,
            "cm_process_send_error (IB_CM_DREQ_SENT) -> cm_enter_timewait, IB_CM_DREQ_ERROR "
            "-> RDMA_CM_EVENT_DISCONNECTED (-ETIMEDOUT) 73.728 s after each first DREQ");
    cmk_set(k, K_F_UNREACHABLE, DT_CONNS,
            "cm_process_send_error (IB_CM_DREQ_SENT): one per connection whose DREQ was "
            "given up");
    cmk_why(k, K_RETX_FIRST + CMK_DREQ,
            "ib_send_cm_dreq: 15 MAD retries per connection (MaxCMRetries), 8 x 15");
    cmk_why(k, K_DUPLICATE_TUPLE,
            "_destroy_id -> cma_release_port after IB_CM_DREQ_ERROR: server1's ports are "
            "free before server2's connections take them again");
    cmk_why(k, K_PORT_REUSED,
            "cma_alloc_any_port: a port taken again only after its id was destroyed");
    cmk_ports(k, &ps, "server2's 8 connections hold their ports",
              "cma_release_port frees server1's 8 before server2's 8 are bound");
}

/* 5. No listener; the REJ lost twice, the REQ rejected three times. */
static void row_lost_rej(cmk_t *k)
{
    host_t cl, sv;
    host_init(&cl, "client", 0x0011, 0x98039B0300E50011ull, IP4(10, 0, 0, 11), 0x11);
    host_init(&sv, "server", 0x0012, 0x98039B0300E50012ull, IP4(10, 0, 0, 12), 0x12);
    static portspace_t ps;
    portspace_init(&ps, LINUX_LO, LINUX_HI);
    cmk_conn_t a;
    conn(k, &a, &cl, &sv, portspace_alloc(&ps, &k->g->rng), 7474, CMA_IBOE_PACKET_LIFETIME);
    const uint64_t wa = cm_active_wait_us(CMA_IBOE_PACKET_LIFETIME);
    for (int s = 0; s < 3; s++) {
        cmk_at(k, s * wa);
        cmk_send(k, &a, CMK_REQ, true, 0);
        cmk_at(k, s * wa + GAP);
        cmk_send(k, &a, CMK_REJ, false, 8); /* the first two lost on the way back */
    }
    /* RDMA_CM_EVENT_REJECTED at the third: the id destroyed */
    portspace_release(&ps, a.c.sport);

    k->vantage = "passive host";
    k->vantage_why = "the server's capture: its REJs leave, two are lost on the way back";
    cmk_set(k, K_REQUESTS, 1,
            "cm_match_req: no listener, cm_issue_rej and no state kept: the REQ's MAD "
            "retries, one attempt (same LocalCommID, LocalCAGUID)");
    cmk_set(k, K_REJECTED, 1,
            "cm_rej_handler (IB_CM_REQ_SENT): the attempt ends at the first REJ received");
    cmk_why(k, K_RETX_FIRST + CMK_REQ, "ib_send_cm_req: MAD retries 4.608 s apart, two REJs lost");
    cmk_why(k, K_RETX_FIRST + CMK_REJ,
            "cm_match_req -> cm_issue_rej: each repeated REQ rejected again (reason 8)");
    cmk_ports(k, &ps, "RDMA_CM_EVENT_REJECTED -> rdma_destroy_id -> cma_release_port",
              "cma_alloc_any_port: one id, one port");
}

/* 6. The DREP lost; the DREQ again, answered again. */
static void row_lost_drep(cmk_t *k)
{
    host_t cl, sv;
    host_init(&cl, "client", 0x0011, 0x98039B0300F60011ull, IP4(10, 0, 0, 11), 0x11);
    host_init(&sv, "server", 0x0012, 0x98039B0300F60012ull, IP4(10, 0, 0, 12), 0x12);
    static portspace_t ps;
    portspace_init(&ps, LINUX_LO, LINUX_HI);
    cmk_conn_t a;
    conn(k, &a, &cl, &sv, portspace_alloc(&ps, &k->g->rng), 4420, CMA_IBOE_PACKET_LIFETIME);
    const uint64_t wa = cm_active_wait_us(CMA_IBOE_PACKET_LIFETIME);
    connect3(k, &a, 0);
    const uint64_t t = 5 * S;
    cmk_at(k, t);
    cmk_send(k, &a, CMK_DREQ, true, 0);
    cmk_at(k, t + GAP);
    cmk_send(k, &a, CMK_DREP, false, 0); /* lost */
    /* the server's id: timewait ms(17) = 512 ms (cm_enter_timewait, av.timeout
     * from the REQ's ACK timeout), then destroyed; the DREQ again at 4.608 s */
    require(cm_ms(CMA_IBOE_PACKET_LIFETIME + 1) * MS < wa, "timewait over before the retry");
    cmk_at(k, t + wa);
    cmk_send(k, &a, CMK_DREQ, true, 0);
    cmk_at(k, t + wa + GAP);
    cmk_send(k, &a, CMK_DREP, false, 0); /* cm_issue_drep */
    portspace_release(&ps, a.c.sport);

    k->vantage = "passive host";
    k->vantage_why = "the server's capture: its first DREP leaves and is lost";
    cmk_set(k, K_REQUESTS, 1, "cm_req_handler: one REQ");
    cmk_set(k, K_ESTABLISHED, 1, "cm_rtu_handler");
    cmk_set(k, K_CLOSED, 1,
            "cm_dreq_handler; the repeated DREQ matched by comm IDs (cm_acquire_id), "
            "cm_drep_handler at the second DREP");
    cmk_why(k, K_RETX_FIRST + CMK_DREQ, "ib_send_cm_dreq: the MAD retry 4.608 s after the first");
    cmk_why(k, K_RETX_FIRST + CMK_DREP,
            "cm_dreq_handler: id gone after its 512 ms timewait -> cm_issue_drep (IB_CM_TIMEWAIT "
            "-> the DREP again, had it still been there)");
    cmk_ports(k, &ps, "cm_drep_handler -> timewait; rdma_destroy_id -> cma_release_port",
              "cma_alloc_any_port: one id, one port");
}

#define LU_CLIENTS 3
#define LU_SERVERS 2

/* 7. Lustre ko2iblnd: every node from port 1023 to each peer's 987. */
static void row_lustre(cmk_t *k)
{
    static host_t cl[LU_CLIENTS], sv[LU_SERVERS];
    static const char *const cn[] = { "client1", "client2", "client3" };
    static const char *const sn[] = { "oss1", "oss2" };
    for (int i = 0; i < LU_CLIENTS; i++)
        host_init(&cl[i], cn[i], (uint16_t)(0x0021 + i), 0x0002C90300A70021ull + (uint64_t)i * 2,
                  IP4(192, 168, 1, 21 + i), (uint16_t)(0x21 + i));
    for (int i = 0; i < LU_SERVERS; i++)
        host_init(&sv[i], sn[i], (uint16_t)(0x0031 + i), 0x0002C90300A70031ull + (uint64_t)i * 2,
                  IP4(192, 168, 1, 31 + i), (uint16_t)(0x31 + i));
    /* conns_per_peer: 2 towards some peers, the same tuple twice at once */
    static const int per_peer[LU_CLIENTS][LU_SERVERS] = { { 2, 2 }, { 1, 1 }, { 2, 1 } };
    static cmk_conn_t c[LU_CLIENTS * LU_SERVERS * 2];
    static portspace_t ps; /* the pool is not touched: 1023 is bound explicitly */
    portspace_init(&ps, LINUX_LO, LINUX_HI);
    int n = 0, shared = 0, same_tuple = 0;
    uint64_t t = 0;
    for (int i = 0; i < LU_CLIENTS; i++) {
        int held = 0; /* this node's open connections on 1023 */
        for (int j = 0; j < LU_SERVERS; j++)
            for (int r = 0; r < per_peer[i][j]; r++) {
                /* kiblnd_resolve_addr: rdma_set_reuseaddr, rdma_bind_addr(1023);
                 * cma_check_port lets two reuseaddr ids share it */
                conn(k, &c[n], &cl[i], &sv[j], 1023, 987, IB_PACKET_LIFETIME);
                shared += held > 0;
                same_tuple += r > 0;
                connect3(k, &c[n], t);
                held++;
                n++;
                t += 20 * MS;
            }
    }
    (void)same_tuple;

    k->vantage = "mirror port";
    k->vantage_why = "a mirror of the fabric's core switch port: every node's CM traffic";
    cmk_set(k, K_REQUESTS, n, "cm_req_handler: each REQ a new LocalCommID");
    cmk_set(k, K_ESTABLISHED, n, "kiblnd_passive_connect accepts in the handler; cm_rtu_handler");
    cmk_set(k, K_EXPLICIT_PORT_SHARED, shared,
            "cma_use_port -> cma_check_port (reuseaddr && cur_id->reuseaddr: continue): REQs "
            "whose node's port 1023 an open connection holds (3 of them on the very same tuple, "
            "conns_per_peer 2)");
    cmk_why(k, K_DUPLICATE_TUPLE,
            "cma_check_port: a tuple shared by reuseaddr ids on an explicit port is legal");
    cmk_why(k, K_PORT_REUSED, "cma_check_port: port 1023 is explicit, outside the pool");
    cmk_ports(k, &ps, "port 1023 is outside the pool (ip_local_port_range 32768-60999)",
              "port 1023 is outside the pool: no pool port is held");
}

#define TA_POOL_LO 40000
#define TA_POOL_HI 40099

/* 8. Two RoCE addresses of one HCA fill one port range. */
static void row_two_addresses(cmk_t *k)
{
    host_t a, b, s1, s2;
    host_init(&a, "client-a", 0x0011, 0x98039B0300A80011ull, IP4(10, 0, 1, 1), 0x11);
    host_init(&b, "client-b", 0x0012, 0x98039B0300A80012ull, IP4(10, 0, 2, 1), 0x12);
    b.node_guid = a.node_guid; /* one HCA, two ports: one LocalCAGUID */
    host_init(&s1, "server1", 0x0021, 0x98039B0300A80021ull, IP4(10, 0, 1, 100), 0x21);
    host_init(&s2, "server2", 0x0022, 0x98039B0300A80022ull, IP4(10, 0, 2, 100), 0x22);
    static portspace_t ps;
    portspace_init(&ps, TA_POOL_LO, TA_POOL_HI);
    snprintf(k->options, sizeof k->options, "--pool %u-%u", TA_POOL_LO, TA_POOL_HI);
    static cmk_conn_t c[TA_POOL_HI - TA_POOL_LO + 2];
    int n = 0, failed = 0;
    for (int i = 0; i <= TA_POOL_HI - TA_POOL_LO + 1; i++) {
        /* rdma_bind_addr(any, 0) before resolving: the destination unknown,
         * cma_port_is_unique refuses any port in use, whatever the address */
        uint16_t port = portspace_alloc(&ps, &k->g->rng);
        if (!port) {
            failed++; /* EADDRNOTAVAIL: nothing on the wire */
            continue;
        }
        conn(k, &c[n], i % 2 ? &b : &a, i % 2 ? &s2 : &s1, port, 4420, CMA_IBOE_PACKET_LIFETIME);
        connect3(k, &c[n], (uint64_t)i * 2 * MS);
        n++;
    }
    require(failed == 1 && n == TA_POOL_HI - TA_POOL_LO + 1, "the 101st attempt fails");

    k->vantage = "active host";
    k->vantage_why = "the client's capture of both its ports";
    cmk_set(k, K_REQUESTS, n, "cm_req_handler: 100 REQs; the 101st connect fails before any");
    cmk_set(k, K_ESTABLISHED, n, "cm_rtu_handler");
    cmk_set(k, K_POOL_HIGH, ps.pool_high,
            "cma_ps_find: one bind list per port for the namespace, both addresses: the host "
            "reaches 90 of 100 once");
    cmk_ports(k, &ps, "all 100 connections open: 50 ports per address, one range",
              "(not written for this row)");
    k->omit[K_PEAK_PORTS_IN_USE] = true;
    cmk_set(k, K_HOST_PEAK_PORTS_IN_USE, ps.peak,
            "cma_alloc_any_port over one port space per namespace (cma_ps_find): 100, then "
            "EADDRNOTAVAIL");
    cmk_set(k, K_HOST_ADDRESSES, 2,
            "cma_ps_find: both addresses bind in the namespace's one port space, one host");
}

/* 9. Automatic path migration: the teardown from the alternate ports. */
static void row_apm(cmk_t *k)
{
    host_t cl, sv, cl2, sv2;
    host_init(&cl, "client", 0x0011, 0x0002C90300A90011ull, IP4(10, 0, 0, 11), 0x11);
    host_init(&sv, "server", 0x0012, 0x0002C90300A90012ull, IP4(10, 0, 0, 12), 0x12);
    host_init(&cl2, "client-p2", 0x0041, 0x0002C90300A90041ull, IP4(10, 0, 0, 11), 0x11);
    host_init(&sv2, "server-p2", 0x0042, 0x0002C90300A90042ull, IP4(10, 0, 0, 12), 0x12);
    cl2.node_guid = cl.node_guid;
    sv2.node_guid = sv.node_guid;
    static portspace_t ps;
    portspace_init(&ps, LINUX_LO, LINUX_HI);
    cmk_conn_t a;
    conn(k, &a, &cl, &sv, portspace_alloc(&ps, &k->g->rng), 4420, IB_PACKET_LIFETIME);
    a.c.alt_act = &cl2;
    a.c.alt_pas = &sv2;
    connect3(k, &a, 0);
    /* the primary path fails at 3 s: the QPs migrate, IB_EVENT_PATH_MIG ->
     * cm_migrate swaps av and alt_av on both sides (nothing on the wire) */
    a.c.act = &cl2;
    a.c.pas = &sv2;
    cmk_at(k, 8 * S);
    cmk_send(k, &a, CMK_DREQ, true, 0);
    cmk_at(k, 8 * S + GAP);
    cmk_send(k, &a, CMK_DREP, false, 0);
    portspace_release(&ps, a.c.sport);

    k->vantage = "active host";
    k->vantage_why = "the client's capture of both its HCA ports (LIDs 0x0011 and 0x0041)";
    cmk_set(k, K_REQUESTS, 1, "cm_req_handler: one REQ, with an alternate path");
    cmk_set(k, K_ESTABLISHED, 1, "cm_rtu_handler");
    cmk_set(k, K_CLOSED, 1,
            "cm_migrate swaps av/alt_av; cm_dreq_handler and cm_drep_handler find the id by "
            "comm IDs (cm_acquire_id), whatever LIDs the DREQ/DREP came between");
    cmk_why(k, K_WAITING_AT_END, "cm_drep_handler: the DREQ was answered");
    cmk_ports(k, &ps, "_destroy_id -> cma_release_port after the DREP",
              "cma_alloc_any_port: one id, one port");
}

/* 10. A LAP on RoCE: ignored, retried, given up; the connection stays. */
static void row_lap_roce(cmk_t *k)
{
    host_t cl, sv, cl2, sv2;
    host_init(&cl, "client", 0x0011, 0x98039B0300AA0011ull, IP4(10, 0, 0, 11), 0x11);
    host_init(&sv, "server", 0x0012, 0x98039B0300AA0012ull, IP4(10, 0, 0, 12), 0x12);
    host_init(&cl2, "client-p2", 0x0041, 0x98039B0300AA0041ull, IP4(10, 0, 4, 11), 0x41);
    host_init(&sv2, "server-p2", 0x0042, 0x98039B0300AA0042ull, IP4(10, 0, 4, 12), 0x42);
    static portspace_t ps;
    portspace_init(&ps, LINUX_LO, LINUX_HI);
    cmk_conn_t a;
    conn(k, &a, &cl, &sv, portspace_alloc(&ps, &k->g->rng), 4420, CMA_IBOE_PACKET_LIFETIME);
    const uint64_t wa = cm_active_wait_us(CMA_IBOE_PACKET_LIFETIME);
    connect3(k, &a, 0);
    a.c.alt_act = &cl2; /* after the REQ: rdma_cm's REQs carry no alternate path */
    a.c.alt_pas = &sv2;
    const uint64_t t = 2 * S;
    for (int s = 0; s < CM_SENDS; s++) {
        cmk_at(k, t + s * wa);
        cmk_send(k, &a, CMK_LAP, true, 0); /* cm_lap_handler: -EINVAL on RoCE */
        /* the sender's LAP times out (IB_CM_LAP_ERROR), the connection stays */
    }
    const uint64_t end = t + CM_SENDS * wa + 1 * S;
    cmk_at(k, end);
    cmk_send(k, &a, CMK_DREQ, true, 0);
    cmk_at(k, end + GAP);
    cmk_send(k, &a, CMK_DREP, false, 0);
    portspace_release(&ps, a.c.sport);

    k->vantage = "active host";
    k->vantage_why = "the client's capture: every LAP it sends";
    cmk_set(k, K_REQUESTS, 1, "cm_req_handler");
    cmk_set(k, K_ESTABLISHED, 1, "cm_rtu_handler; the LAP changes nothing on RoCE");
    cmk_set(k, K_PATH_IGNORED, 1,
            "cm_lap_handler: -EINVAL on RoCE, one connection's LAP (its copies are retries)");
    cmk_set(k, K_CLOSED, 1, "cm_dreq_handler in IB_CM_ESTABLISHED; cm_drep_handler");
    cmk_why(k, K_RETX_FIRST + CMK_LAP,
            "cm_lap_handler returns -EINVAL on RoCE (no APR, no MRA); ib_send_cm_lap (removed "
            "from later kernels): cm_alloc_msg retries = max_cm_retries, timeout_ms the REQ's "
            "4.608 s: 15 repeats");
    cmk_why(k, K_RETX_FIRST + CMK_APR, "cm_lap_handler: RoCE, no APR is ever sent");
    cmk_why(k, K_UNREACHABLE, "a LAP given up (IB_CM_LAP_ERROR) leaves the connection as it was");
    cmk_ports(k, &ps, "_destroy_id -> cma_release_port after the DREP",
              "cma_alloc_any_port: one id, one port");
}

const cmk_row_t cmk_rows[] = {
    { "lost_rep", "a REP lost: the REQ again (dropped), the REP on its MAD retry; native IB",
      LINK_ERF, row_lost_rep },
    { "broken_return", "return path broken: 16 REQs, 16 REPs, both give up; RoCEv2", LINK_ETH,
      row_broken_return },
    { "dead_target", "60 attempts at a dead target, each REQ sent 16 times; RoCEv2", LINK_ETH,
      row_dead_target },
    { "dead_target_dreq",
      "8 connections' DREQs to a dead target unanswered, then a live server; RoCEv2", LINK_ETH,
      row_dead_target_dreq },
    { "lost_rej", "no listener: the REJ lost twice, the REQ rejected three times; RoCEv2", LINK_ETH,
      row_lost_rej },
    { "lost_drep", "a DREP lost: the DREQ again, answered again; RoCEv2", LINK_ETH, row_lost_drep },
    { "lustre", "ko2iblnd: source port 1023 with rdma_set_reuseaddr to each peer's 987; native IB",
      LINK_ERF, row_lustre },
    { "two_addresses", "one HCA, two RoCE addresses fill one 100-port range; RoCEv2", LINK_ETH,
      row_two_addresses },
    { "apm", "automatic path migration: DREQ/DREP from the alternate LIDs; native IB", LINK_ERF,
      row_apm },
    { "lap_roce", "a LAP on RoCE, ignored and retried 15 times; RoCEv2", LINK_ETH, row_lap_roce },
};
const size_t n_cmk_rows = sizeof(cmk_rows) / sizeof(cmk_rows[0]);
