/* rc.h - ibscope-gen rc: reliable-connected (RC) traffic, one capture per
 * case of the transport analysis (issue 37's contract between the engine and
 * this generator), and truth.tsv: exactly the findings that contract gives
 * for each capture, said by the case as it plays them, never by an analyzer.
 *
 * A case sets up its connections with the CM (REQ/REP/RTU: QPNs, starting
 * PSNs, path MTU, retry and RNR retry counts, local ACK timeout), posts
 * messages on a queue pair's requester side (rc_post), sends their packets
 * (rc_request), which it may leave out, repeat or swap, answers them
 * (rc_ack, rc_nak, rc_rnr_nak, rc_read_response, rc_atomic_ack) and names
 * each finding where it makes one (rc_find).
 */
#ifndef IBSCOPE_GEN_RC_H
#define IBSCOPE_GEN_RC_H

#include <stdbool.h>
#include <stdint.h>

#include "cm_flow.h"
#include "gen.h"

#define RC_MAX_FRAMES 2048

/* AETH syndromes: ACK (with "no credit limit", 0x1F), RNR NAK, NAK. */
#define RC_AETH_ACK     0x1F
#define RC_AETH_RNR_NAK 0x20
#define RC_AETH_NAK     0x60

/* NAK codes (IBA Vol. 1 9.7.5.2.8). */
enum {
    RC_NAK_PSN_SEQ,
    RC_NAK_INVALID_REQ,
    RC_NAK_REMOTE_ACCESS,
    RC_NAK_REMOTE_OP,
    RC_NAK_INVALID_RD
};

typedef enum rc_kind {
    RC_SEND,
    RC_SEND_IMM,
    RC_SEND_INV,
    RC_WRITE,
    RC_WRITE_IMM,
    RC_READ,
    RC_CMP_SWAP,
    RC_FETCH_ADD,
} rc_kind_t;

/* One requester direction of a queue pair. */
typedef struct rc_qp {
    host_t *req, *rsp; /* requester, responder */
    uint32_t dqp;      /* the responder's QPN: requests go there */
    uint32_t rqp;      /* the requester's QPN: responses go there */
    uint32_t next_psn; /* the first PSN of the next message posted */
    uint32_t mtu;      /* path MTU, bytes */
    uint32_t msn;      /* messages posted: the responder's MSN once done */
    uint32_t rkey;
    uint64_t va;
} rc_qp_t;

/* A message posted on a queue pair. */
typedef struct rc_msg {
    rc_qp_t *qp;
    rc_kind_t kind;
    uint32_t len;  /* bytes; a READ's DMA length */
    uint32_t psn;  /* its first PSN */
    uint32_t npsn; /* PSNs it takes: its packets, or a READ's responses */
    uint32_t msn;  /* the responder's MSN once it is done */
    uint64_t va;
} rc_msg_t;

/* One row of truth.tsv. */
typedef struct rc_find {
    uint32_t frame, related; /* related 0: none */
    const char *kind;
    char details[192];
} rc_find_t;

typedef struct rc {
    gen_t *g;
    rc_find_t *finds;
    size_t nfinds, finds_cap;
    uint64_t ft[RC_MAX_FRAMES + 1]; /* each frame's time, us after the start */
    bool untimed; /* rc-bulk (rc_bulk.h): frames past RC_MAX_FRAMES, their times not kept */
} rc_t;

/* One RC connection set up by the CM: A (active) and B (passive), each
 * side's requests a queue pair of its own. */
typedef struct rc_conn {
    cm_conn_t cm;
    cm_budget_t budget;
    rc_qp_t ab, ba; /* A's requests to B, B's requests to A */
    uint32_t req_frame, rep_frame, rtu_frame;
} rc_conn_t;

typedef struct rc_case {
    const char *name, *title;
    void (*run)(rc_t *k);
} rc_case_t;

extern const rc_case_t rc_cases[];
extern const size_t n_rc_cases;

/* The budget every case starts from: retry 3, RNR retry 6 (REQ) and 7
 * (REP), local ACK timeout 14 (67.108864 ms), path MTU 1024, TargetACKDelay 0. */
void rc_default_budget(cm_budget_t *b);
/* 4.096 us x 2^t, in nanoseconds. */
static inline uint64_t rc_timeout_ns(unsigned t)
{
    return 4096ull << t;
}
/* IBA Vol. 1 Table 45: an RNR NAK timer code's wait, us. */
uint32_t rc_rnr_timer_us(uint8_t code);
const char *rc_nak_name(uint8_t code);
uint32_t rc_psn_add(uint32_t psn, uint32_t n);

/* The clock: us after the capture's start (never backwards), and the time
 * of a frame already written. */
void rc_at(rc_t *k, uint64_t t_us);
uint64_t rc_now(const rc_t *k);
uint64_t rc_time(const rc_t *k, uint32_t frame);
/* rc_at(time of frame + us). */
void rc_after(rc_t *k, uint32_t frame, uint64_t us);

/* A connection between a and b (rc_default_budget when budget is NULL);
 * random QPNs and starting PSNs (rc_conn_psns sets them), then
 * rc_establish sends REQ, REP, RTU from now. */
void rc_conn_init(rc_t *k, rc_conn_t *c, host_t *a, host_t *b, uint16_t sport,
                  const cm_budget_t *budget);
/* Each side's first request PSN: a's (the active side's, which the REP
 * announces) and b's (which the REQ announces). */
void rc_conn_psns(rc_conn_t *c, uint32_t a_psn, uint32_t b_psn);
void rc_establish(rc_t *k, rc_conn_t *c);
/* A queue pair with no CM in the capture: its QPNs and PSN at random. */
void rc_qp_nocm(rc_t *k, rc_qp_t *qp, host_t *req, host_t *rsp, uint32_t mtu);

/* Posts a message: takes its PSNs. */
rc_msg_t rc_post(rc_qp_t *qp, rc_kind_t kind, uint32_t len);
/* Request packet i of m (a READ has one); returns the frame. */
uint32_t rc_request(rc_t *k, const rc_msg_t *m, uint32_t i);
/* Every request packet of m from packet i on, back to back (each frame
 * moves the clock 2 us); the last frame. */
uint32_t rc_request_from(rc_t *k, const rc_msg_t *m, uint32_t i);
/* Responses, to the requester's QPN. */
uint32_t rc_ack(rc_t *k, const rc_msg_t *m); /* m's last PSN, m's MSN */
uint32_t rc_ack_psn(rc_t *k, rc_qp_t *qp, uint32_t psn, uint32_t msn);
uint32_t rc_nak(rc_t *k, rc_qp_t *qp, uint32_t psn, uint32_t msn, uint8_t code);
uint32_t rc_rnr_nak(rc_t *k, rc_qp_t *qp, uint32_t psn, uint32_t msn, uint8_t timer);
uint32_t rc_read_response(rc_t *k, const rc_msg_t *m, uint32_t i);
/* All of a READ's responses, back to back; the last frame. */
uint32_t rc_read_responses(rc_t *k, const rc_msg_t *m);
uint32_t rc_atomic_ack(rc_t *k, const rc_msg_t *m, uint64_t orig);
/* A RoCEv2 CNP (Annex A17: opcode 0x81, 16 reserved bytes) from the host that
 * saw congestion to the sender of the marked packets, at that sender's QPN. */
uint32_t rc_cnp(rc_t *k, host_t *from, host_t *to, uint32_t dqp);
/* A CM message of c's, its frame's time kept. */
uint32_t rc_cm(rc_t *k, rc_conn_t *c, uint32_t (*send)(gen_t *, cm_conn_t *));
uint32_t rc_cm_dreq(rc_t *k, rc_conn_t *c);
uint32_t rc_cm_drep(rc_t *k, rc_conn_t *c);

/* A finding at frame (related 0: none), details key=value;... */
void rc_find(rc_t *k, uint32_t frame, const char *kind, uint32_t related, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* timeout_us as truth.tsv writes it: exact, to the nanosecond. */
const char *rc_us_text(uint64_t ns, char *buf, size_t len);

/* OUTDIR/<case>.pcap for each case and OUTDIR/truth.tsv; link is LINK_ETH
 * (RoCEv2) or LINK_LRH. 0, or -1 said. */
int rc_write(const char *outdir, link_t link);
/* The same for another set of cases (ibscope-gen wire), case i's random
 * numbers from seed + i. */
int rc_write_cases(const char *outdir, link_t link, const rc_case_t *cases, size_t n,
                   uint64_t seed);

#endif
