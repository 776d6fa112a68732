/* engine_transport.h - reliable-connected queue pairs (engine_transport.c):
 * their state in the engine and what the entry points call.
 *
 * Data packets are most of a RoCE capture, so a queue pair's record is
 * kept small: what every packet needs (struct eng_qp), and apart, made on
 * the first trouble, what only gaps, NAKs and resends need (struct
 * eng_qp_trouble).
 */
#ifndef IBSCOPE_ENGINE_TRANSPORT_H
#define IBSCOPE_ENGINE_TRANSPORT_H

#include "engine.h"
#include "engine_ref.h"
#include "engine_table.h"

/* The sends a queue pair keeps for the answers that cover them: the oldest
 * ones (the first to time out) and the newest (the one an ACK measures). */
#define ENG_QP_SENDS 3

struct eng_send {
    struct eng_ref at;
    uint32_t first_psn, last_psn;
};

/* ACK round trips by half-octave from 1 us: bucket b holds [2^(b/2), 2^((b+1)/2)) us,
 * the last one everything longer (about 2.9 s).  Counts halve together when one
 * would overflow, which keeps the proportions the percentiles need. */
#define ENG_RTT_BUCKETS 24

/* What the responder said last, for the cause of the next resend. */
enum { ENG_ANSWER_NONE, ENG_ANSWER_ACK, ENG_ANSWER_NAK, ENG_ANSWER_RNR };

/* A queue pair as packets address it: a node and a QPN. */
struct eng_qp_key {
    struct eng_node node;
    uint32_t qpn;
};

/* One requester direction of a queue pair: where its requests go (records
 * are never freed: the pool index is the number the report gives it). */
struct eng_qp {
    struct eng_qp_key key;
    uint32_t self;          /* its pool index, its number */
    uint32_t pair_next;     /* the next QP of the same two nodes (pool index + 1) */
    uint32_t requester_tag; /* the requester's node, hashed: pairs answers without CM */
    uint32_t trouble;       /* its eng_qp_trouble's pool index + 1, 0: none yet */
    uint32_t peer_qpn;      /* its requester's QPN, when peer_known (answers go there) */
    uint32_t next_psn;      /* the PSN due next */
    uint32_t una;           /* the oldest PSN not acknowledged */
    uint8_t retry, rnr_retry, timeout, mtu; /* the CM's budget (from_cm) */
    uint8_t answer;                         /* ENG_ANSWER_* */
    uint8_t send_count;
    bool started : 1, from_cm : 1, span_unknown : 1, acked_ever : 1, died : 1, peer_known : 1;
    uint64_t last_req; /* eng_ref.where of the previous request */
    uint64_t una_at;   /* eng_ref.where of the answer that last moved una on */
    struct eng_send sends[ENG_QP_SENDS];
    /* Statistics. */
    uint32_t requests[IB_QP_OP_COUNT];
    uint32_t answers;
    uint64_t payload_bytes;
    struct eng_ref first;
    int64_t last_ns;
    uint64_t last_where;
    uint32_t rtt_min_ns, rtt_max_ns; /* saturating at about 4.29 s */
    uint32_t rtt_count;
    uint8_t rtt_hist[ENG_RTT_BUCKETS];
};

/* What only a queue pair with trouble needs. */
struct eng_qp_trouble {
    uint32_t gap_psn, gap_count; /* an open gap: the PSNs skipped (gap_open) */
    uint64_t gap_at;             /* eng_ref.where of the request past the gap */
    struct eng_ref answer_at;    /* the last NAK or RNR NAK */
    uint32_t resend_psn;         /* the PSN being sent again (rounds > 0) */
    uint8_t rounds, rnr_rounds;  /* times resend_psn was sent again, of them after RNR */
    bool gap_open : 1, gap_answered : 1, gap_nak : 1, naks_in_rounds : 1, suspect : 1;
    uint64_t resend_first; /* eng_ref.where of resend_psn's first send */
    struct eng_ref resend_last;
    /* Statistics. */
    uint32_t naks[IB_NAK_CODES];
    uint32_t rnr_naks;
    uint32_t resends[IB_RESEND_CAUSE_COUNT];
    uint32_t psn_gaps, psns_missing;
    int64_t rnr_wait_ns;
};

/* Who answers for a queue pair: the requester's node and QPN, as responses
 * address them, from the CM or learned from the PSNs. */
struct eng_qp_peer {
    struct eng_qp_key key;
    uint32_t qp; /* the eng_qp's pool index */
};

/* The QPs from one node to another, for answers without a known peer to
 * find theirs by PSN. */
struct eng_qp_pair {
    struct eng_node dst;
    uint32_t requester_tag;
    uint32_t head; /* the newest QP's pool index + 1 */
};

/* A requester direction the CM set up that has not sent yet: its record
 * is made by its first request (many never send: ib_send_bw's answering
 * side), which this gives its budget, starting PSN and answerer. */
struct eng_qp_announced {
    struct eng_qp_key to;   /* where its requests will go */
    struct eng_qp_key from; /* its requester, as answers address it */
    uint32_t self;          /* its pool index */
    uint32_t start_psn;
    uint8_t retry, rnr_retry, timeout, mtu;
    uint64_t at; /* eng_ref.where of the REQ or REP that gave start_psn */
    struct el_link age;
};

/* A REQ waiting for its REP: what the two directions' budgets need. */
struct eng_qp_req {
    struct eng_node active, passive;
    uint32_t comm_id;
    uint32_t self; /* its pool index */
    uint32_t qpn, start_psn;
    uint8_t retry, rnr_retry, timeout, mtu;
    struct eng_ref at;
    struct el_link age;
};

struct eng_transport {
    struct et_table qps;       /* (destination, QPN) -> eng_qp */
    struct et_table peers;     /* (requester, QPN) -> eng_qp_peer */
    struct et_table pairs;     /* (destination, requester) -> eng_qp_pair */
    struct et_table reqs;      /* (active node, LocalCommID) -> eng_qp_req */
    struct et_table announced; /* (destination, QPN) -> eng_qp_announced */
    struct ep_pool qp_pool, trouble_pool, peer_pool, pair_pool, req_pool, announced_pool;
    uint32_t qp_count;      /* made, never freed: pool indexes 0 .. qp_count - 1 */
    struct el_link req_age; /* REQs waiting, oldest first */
    size_t req_count;
    struct el_link announced_age; /* oldest first */
    size_t announced_count;
    /* Queue pairs whose last allowed resend waits for an answer. */
    uint32_t *suspects; /* pool indexes */
    size_t suspect_count, suspect_cap;
    int64_t first_deadline; /* the earliest suspect's, INT64_MAX: none */
};

bool eng_transport_init(struct ib_engine *e);
void eng_transport_destroy(struct ib_engine *e);
/* A packet with a BTH: the reliable ones (RC, XRC) are followed. */
void eng_transport_feed(struct ib_engine *e, const struct ib_packet *p);
/* A CM REQ or REP: the budgets and starting PSNs of the QPs it sets up. */
void eng_transport_cm(struct ib_engine *e, const struct ib_packet *p);
/* Suspects whose wait ran out before now: retries exhausted. */
void eng_transport_expire(struct ib_engine *e, int64_t now_ns);
/* Whether a queue pair waits for its last retry's answer. */
bool eng_transport_has_timers(const struct ib_engine *e);
/* The QPN of the direction paired with the one of packets to QPN qpn at
 * dst: the other end's QP, as the CM named it or the answers showed it.
 * False when the transport analysis has not paired it. */
bool eng_transport_paired_qpn(const struct ib_engine *e, const struct ib_endpoint *dst,
                              uint32_t qpn, uint32_t *paired);

#endif
