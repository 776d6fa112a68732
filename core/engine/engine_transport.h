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
 * are never freed: the pool index is the number the report gives it).
 *
 * Four cache lines, laid out by what a packet touches, since with thousands
 * of queue pairs open each record is out of cache when its packet comes:
 * the first line serves requests and answers alike, a request then needs
 * the sends and its counters (the next line and a half), an answer the
 * sends, its counters and the last line (found by its peer key). */
struct eng_qp {
    /* Every packet. */
    struct eng_qp_key key;                  /* where its requests go */
    uint32_t next_psn;                      /* the PSN due next */
    uint32_t una;                           /* the oldest PSN not acknowledged */
    uint32_t self;                          /* its pool index, its number */
    uint32_t trouble;                       /* its eng_qp_trouble's pool index + 1, 0: none yet */
    uint8_t retry, rnr_retry, timeout, mtu; /* the CM's budget (from_cm) */
    uint8_t answer;                         /* ENG_ANSWER_* */
    uint8_t send_count;
    bool started : 1, from_cm : 1, span_unknown : 1, acked_ever : 1, died : 1, has_peer : 1;
    int64_t last_ns;
    uint64_t last_where;
    /* Requests and answers. */
    struct eng_send sends[ENG_QP_SENDS];
    uint64_t last_req; /* eng_ref.where of the previous request */
    uint32_t requests[IB_QP_OP_COUNT];
    uint64_t payload_bytes; /* of new requests and READ responses */
    uint64_t una_at;        /* eng_ref.where of the answer that last moved una on */
    uint32_t answers;
    uint32_t rtt_count;
    uint32_t rtt_min_ns, rtt_max_ns; /* saturating at about 4.29 s */
    /* Answers. */
    struct eng_qp_key peer; /* who answers: the requester's node and QPN (has_peer) */
    uint8_t rtt_hist[ENG_RTT_BUCKETS];
    struct eng_ref first;
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

/* The QPs from one node to another, for answers without a known peer to
 * find theirs by PSN. */
struct eng_qp_pair {
    struct eng_node dst;
    uint32_t requester_tag;
    uint32_t head; /* the newest QP's pool index + 1 */
};

/* A connection the CM set up whose requester directions have not both
 * sent yet: a direction's record is made by its first request (many never
 * send: ib_send_bw's answering side), which this gives its budget,
 * starting PSN and answerer.  One record serves both directions, found
 * under either QP (two table entries), and lives until both have sent. */
enum { ENG_SIDE_ACTIVE, ENG_SIDE_PASSIVE };

struct eng_qp_announced {
    /* Requests to side[s] come from side[!s]. */
    struct eng_qp_key side[2];
    uint32_t start_psn[2]; /* of the requests to side[s] */
    uint64_t at[2];        /* eng_ref.where of the REQ or REP that gave start_psn[s] */
    uint32_t self;         /* its pool index */
    uint8_t rnr_retry[2];
    uint8_t retry, timeout, mtu;
    uint8_t waiting; /* bit s: the requests to side[s] have not begun */
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
    struct et_table peers;     /* (requester, QPN) -> eng_qp, by its peer key */
    struct et_table pairs;     /* (destination, requester) -> eng_qp_pair */
    struct et_table reqs;      /* (active node, LocalCommID) -> eng_qp_req */
    struct et_table announced; /* (destination, QPN) of a waiting side -> eng_qp_announced */
    struct ep_pool qp_pool, trouble_pool, pair_pool, req_pool, announced_pool;
    uint32_t qp_count; /* made, never freed: pool indexes 0 .. qp_count - 1 */
    /* By pool index: the next QP of the same two nodes (index + 1), for
     * answers without a known peer; apart, as only they need it. */
    uint32_t *pair_next;
    size_t pair_next_cap;
    struct el_link req_age; /* REQs waiting, oldest first */
    size_t req_count;
    struct el_link announced_age; /* oldest first */
    /* Queue pairs whose last allowed resend waits for an answer. */
    uint32_t *suspects; /* pool indexes */
    size_t suspect_count, suspect_cap;
    int64_t first_deadline; /* the earliest suspect's, INT64_MAX: none */
};

/* A path MTU's bytes from its code (1: 256 ... 5: 4096; IBA Vol. 1
 * §9.7.6.1.5), 0 unknown. */
static inline uint32_t eng_mtu_bytes(uint8_t code)
{
    return code >= 1 && code <= 5 ? 128u << code : 0;
}

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
