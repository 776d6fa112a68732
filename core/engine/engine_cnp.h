/* engine_cnp.h - CE marks and the CNPs that answer them (engine_cnp.c): their
 * state in the engine and what the entry points call.
 *
 * Every data packet passes eng_cnp_feed, so its test of a packet that is
 * neither marked CE nor a CNP is inline and two comparisons long.
 */
#ifndef IBSCOPE_ENGINE_CNP_H
#define IBSCOPE_ENGINE_CNP_H

#include "engine.h"
#include "engine_ref.h"
#include "engine_table.h"
#include "wire_class.h"

/* An expired CE mark waits this long past its window for a late CNP to name
 * as its related frame before its finding is made without one: a CNP
 * seconds later answers some other mark. */
#define ENG_CNP_LATE_WAIT_NS 1000000000

/* The CE marks of one sender's QP to one receiver, and the CNPs back. */
struct eng_cnp_flow {
    struct eng_node sender, receiver;
    uint32_t sender_qpn;
    uint32_t self; /* its pool index: its number in the report */
    struct ib_endpoint sender_ep, receiver_ep;
    bool has_qpn;
    uint32_t qpn;
    struct el_link pending; /* its CE marks waiting, oldest first */
    /* Statistics. */
    uint64_t ce_marks, cnps, answered, unanswered, open_at_end;
    struct eng_ref first, last;
    int64_t delay_min, delay_max, delay_sum;
    int64_t first_cnp, last_cnp, cnp_gap_min;
};

/* A CE mark waiting for its CNP. */
struct eng_ce {
    struct eng_ref at;
    uint32_t flow; /* its eng_cnp_flow's pool index */
    uint32_t self;
    uint32_t qpn; /* where it went */
    struct el_link in_flow, age;
};

struct eng_cnp {
    int64_t window_ns;
    struct et_table flows; /* (sender, receiver, sender QPN) -> eng_cnp_flow */
    struct ep_pool flow_pool, ce_pool;
    uint32_t flow_count;   /* made, never freed: pool indexes 0 .. flow_count - 1 */
    struct el_link ce_age; /* every CE mark waiting, oldest first */
    size_t ce_count;
    int64_t first_deadline; /* the oldest's window and late wait end, INT64_MAX: none */
};

bool eng_cnp_init(struct ib_engine *e);
void eng_cnp_destroy(struct ib_engine *e);
/* A RoCEv2 data packet marked CE, and a CNP. */
void eng_cnp_marked(struct ib_engine *e, const struct ib_packet *p);
void eng_cnp_notification(struct ib_engine *e, const struct ib_packet *p);
/* CE marks whose window and late wait ran out before now: findings without
 * a related frame.  Every frame calls it: the test that nothing is due is
 * inline (c is the engine's). */
void eng_cnp_expire_due(struct ib_engine *e, int64_t now_ns);
static inline void eng_cnp_expire(struct ib_engine *e, const struct eng_cnp *c, int64_t now_ns)
{
    if (c->first_deadline < now_ns)
        eng_cnp_expire_due(e, now_ns);
}
bool eng_cnp_has_timers(const struct ib_engine *e);
/* The capture is over (ib_engine_drain): the findings of the marks whose
 * window has passed; the others are open at the end.  False while more
 * remain (the frame's findings are full). */
bool eng_cnp_drain(struct ib_engine *e);

/* A packet with a BTH. */
static inline void eng_cnp_feed(struct ib_engine *e, const struct ib_packet *p)
{
    if (p->bth.opcode == IB_OPCODE_CNP)
        eng_cnp_notification(e, p);
    else if (p->wire.ip_ecn == IB_ECN_CE && p->encap == IB_ENCAP_ROCEV2)
        eng_cnp_marked(e, p);
}

#endif
