/* engine_mad.h - MAD transactions and redirect chains (engine_mad.c): their
 * state in the engine, and what the entry points and the CM tell them. */
#ifndef IBSCOPE_ENGINE_MAD_H
#define IBSCOPE_ENGINE_MAD_H

#include "engine.h"
#include "engine_table.h"

struct eng_mad {
    struct et_table txns;   /* (requester, class, TID) -> eng_txn */
    struct et_table chains; /* (requester, class) -> open eng_chain */
    struct et_table madqps; /* (node, QP) named by a redirect */
    struct ep_pool txn_pool, chain_pool, madqp_pool;
    struct el_link pending;  /* unanswered transactions, oldest first */
    struct el_link answered; /* answered ones kept to ignore repeats */
    size_t pending_count, answered_count;
    struct el_link madqp_age;
    size_t madqp_count;
    struct ib_redirect_chain **chain_list; /* for the report */
    size_t chain_count, chain_cap;
};

bool eng_mad_init(struct ib_engine *e);
void eng_mad_destroy(struct ib_engine *e);
/* A MAD other than a CM connection message. */
void eng_mad_feed(struct ib_engine *e, const struct ib_packet *p);

/* What the CM tracker tells the redirect tracker. */
struct eng_redirect_src {
    const struct ib_endpoint *requester; /* who must follow it */
    uint8_t mgmt_class;
    const struct ib_endpoint *agent; /* who redirected */
    uint32_t agent_qp;
    struct ib_frame_ref request; /* the request redirected, frame 0 unknown */
    uint16_t cm_attr;            /* IB_CM_REJ or IB_CM_SIDR_REP for a CM redirect */
    uint16_t reject_reason;      /* with IB_CM_REJ */
};
void eng_mad_redirect(struct ib_engine *e, const struct eng_redirect_src *src,
                      const struct ib_cpi *cpi);
/* A request of this class from p->src: does it follow a redirect? */
void eng_mad_follow(struct ib_engine *e, const struct ib_packet *p, uint8_t mgmt_class);
/* A non-redirect answer from p->src to p->dst: ends a chain there. */
void eng_mad_answer(struct ib_engine *e, const struct ib_packet *p, uint8_t mgmt_class);

#endif
