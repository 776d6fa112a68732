/* engine_transport.c - the transport analysis of reliable-connected queue
 * pairs: what tcp.analysis is for TCP (docs/transport.md).
 *
 * A queue pair is followed one requester direction at a time, keyed by
 * where its requests go (destination and QPN): the PSN due next, the oldest
 * PSN not yet acknowledged, a few sends waiting for their ACK, the last
 * thing the responder said.  Answers travel the other way, addressed to the
 * requester's node and QPN, which the CM REQ/REP names (the peers table);
 * without a CM exchange an answer finds its queue pair by its PSN among the
 * queue pairs between the same two nodes.  The CM also gives each direction
 * its budget: retry count, RNR retry count, local ACK timeout, starting PSN
 * and path MTU (IBA Vol. 1 §12.7.1, §9.7.6).
 */
#include <stdlib.h>
#include <string.h>

#include "engine_state.h"
#include "engine_transport.h"
#include "psn.h"

/* REQs kept waiting for their REP: past this, the oldest is forgotten. */
#define ENG_QP_REQS_MAX 4096u
/* Queue pairs between two nodes searched for an answer's PSN. */
#define ENG_PAIR_SCAN_MAX 64u
/* A requester gives up after its last retry's timeout; the hardware's
 * timer may run up to four times the value asked (IBA Vol. 1 §9.7.6.1.3). */
#define ENG_EXHAUSTED_TIMEOUTS 4
/* RNR retry count 7: retry for ever (IBA Vol. 1 §9.7.5.2.8). */
#define ENG_RNR_RETRY_FOREVER 7
#define NO_DEADLINE           INT64_MAX

/* ---- the tables ---- */

static bool qp_eq(const void *item, const void *key)
{
    return memcmp(&((const struct eng_qp *)item)->key, key, sizeof(struct eng_qp_key)) == 0;
}

static bool peer_eq(const void *item, const void *key)
{
    return memcmp(&((const struct eng_qp_peer *)item)->key, key, sizeof(struct eng_qp_key)) == 0;
}

struct pair_key {
    struct eng_node dst;
    uint32_t requester_tag;
};

static bool pair_eq(const void *item, const void *key)
{
    const struct eng_qp_pair *p = item;
    const struct pair_key *k = key;
    return p->requester_tag == k->requester_tag && eng_node_eq(&p->dst, &k->dst);
}

struct req_key {
    struct eng_node active;
    uint32_t comm_id;
};

static bool req_eq(const void *item, const void *key)
{
    const struct eng_qp_req *r = item;
    const struct req_key *k = key;
    return r->comm_id == k->comm_id && eng_node_eq(&r->active, &k->active);
}

static struct eng_qp_key qp_key(const struct ib_endpoint *ep, uint32_t qpn)
{
    struct eng_qp_key k;
    memset(&k, 0, sizeof k);
    k.node = eng_node_of(ep);
    k.qpn = qpn;
    return k;
}

static uint32_t node_tag(const struct eng_node *n)
{
    return (uint32_t)et_hash(n, sizeof *n);
}

bool eng_transport_init(struct ib_engine *e)
{
    struct eng_transport *t = &e->transport;
    ep_init(&t->qp_pool, sizeof(struct eng_qp));
    ep_init(&t->peer_pool, sizeof(struct eng_qp_peer));
    ep_init(&t->pair_pool, sizeof(struct eng_qp_pair));
    ep_init(&t->req_pool, sizeof(struct eng_qp_req));
    el_init(&t->req_age);
    t->first_deadline = NO_DEADLINE;
    bool ok = et_init(&t->qps, 16, &t->qp_pool);
    ok = et_init(&t->peers, 16, &t->peer_pool) && ok;
    ok = et_init(&t->pairs, 16, &t->pair_pool) && ok;
    return et_init(&t->reqs, 16, &t->req_pool) && ok;
}

void eng_transport_destroy(struct ib_engine *e)
{
    struct eng_transport *t = &e->transport;
    et_destroy(&t->qps);
    et_destroy(&t->peers);
    et_destroy(&t->pairs);
    et_destroy(&t->reqs);
    ep_destroy(&t->qp_pool);
    ep_destroy(&t->peer_pool);
    ep_destroy(&t->pair_pool);
    ep_destroy(&t->req_pool);
    free(t->suspects);
}

/* ---- budgets ---- */

/* 4.096 us x 2^timeout (IBA Vol. 1 §9.7.6.1.3); 0 means no timer. */
static int64_t timeout_ns(uint8_t code)
{
    return code == 0 ? 0 : (int64_t)4096 << code;
}

/* The path MTU's bytes from its code (1: 256 ... 5: 4096), 0 unknown. */
static uint32_t mtu_bytes(uint8_t code)
{
    return code >= 1 && code <= 5 ? 128u << code : 0;
}

/* ---- queue pairs ---- */

static struct eng_qp *qp_at(const struct eng_transport *t, uint32_t index)
{
    return ep_item(&t->qp_pool, index);
}

/* Links a new QP to the others from its requester to its destination. */
static void pair_link(struct ib_engine *e, struct eng_qp *qp, uint32_t self)
{
    struct eng_transport *t = &e->transport;
    struct pair_key k;
    memset(&k, 0, sizeof k);
    k.dst = qp->key.node;
    k.requester_tag = qp->requester_tag;
    uint64_t h = et_hash(&k, sizeof k);
    struct eng_qp_pair *pair = et_find(&t->pairs, h, pair_eq, &k);
    if (!pair) {
        uint32_t pi;
        if (!(pair = ep_alloc(&t->pair_pool, &pi))) {
            eng_oom(e);
            return;
        }
        pair->dst = k.dst;
        pair->requester_tag = k.requester_tag;
        if (!et_insert(&t->pairs, h, pi)) {
            ep_release(&t->pair_pool, pair, pi);
            eng_oom(e);
            return;
        }
    }
    qp->pair_next = pair->head;
    pair->head = self + 1;
}

static struct eng_qp *qp_get(struct ib_engine *e, const struct eng_qp_key *k,
                             const struct eng_node *requester)
{
    struct eng_transport *t = &e->transport;
    uint64_t h = et_hash(k, sizeof *k);
    struct eng_qp *qp = et_find(&t->qps, h, qp_eq, k);
    if (qp)
        return qp;
    if (t->qps.count >= e->cfg.max_qps) {
        e->stats.qps_dropped++;
        return NULL;
    }
    uint32_t self;
    if (!(qp = ep_alloc(&t->qp_pool, &self)))
        return eng_oom(e);
    qp->key = *k;
    qp->self = self;
    qp->requester_tag = requester ? node_tag(requester) : 0;
    if (!et_insert(&t->qps, h, self)) {
        ep_release(&t->qp_pool, qp, self);
        return eng_oom(e);
    }
    if (requester)
        pair_link(e, qp, self);
    return qp;
}

static void peer_add(struct ib_engine *e, const struct eng_qp_key *k, uint32_t qp)
{
    struct eng_transport *t = &e->transport;
    uint64_t h = et_hash(k, sizeof *k);
    struct eng_qp_peer *peer = et_find(&t->peers, h, peer_eq, k);
    if (peer) {
        peer->qp = qp; /* a new connection on a QP number used before */
        return;
    }
    uint32_t self;
    if (!(peer = ep_alloc(&t->peer_pool, &self))) {
        eng_oom(e);
        return;
    }
    peer->key = *k;
    peer->qp = qp;
    if (!et_insert(&t->peers, h, self)) {
        ep_release(&t->peer_pool, peer, self);
        eng_oom(e);
    }
}

/* ---- findings ---- */

static struct ib_finding *emit(struct ib_engine *e, enum ib_finding_kind kind,
                               const struct eng_qp *qp, struct eng_ref related, uint32_t psn)
{
    struct ib_finding *f =
        eng_emit(e, kind, related.where ? ref_unpack(related) : (struct ib_frame_ref){ 0, 0, 0 });
    if (!f)
        return NULL;
    f->data.qp_index = qp->index;
    f->data.qp.qpn = qp->key.qpn;
    const struct eng_node *n = &qp->key.node;
    f->data.qp.dst.lid = n->lid;
    f->data.qp.dst.has_gid = n->kind == ENG_NODE_GID;
    memcpy(f->data.qp.dst.gid, n->gid, 16);
    f->data.psn = psn;
    return f;
}

/* ---- the sends waiting for their ACK ---- */

/* A send of PSNs first..last.  A resend replaces the sends it repeats (the
 * timeout runs from the last copy); when full, the newest slot is taken, so
 * that the oldest sends (the first to time out) stay. */
static void send_push(struct eng_qp *qp, struct eng_ref at, uint32_t first, uint32_t last)
{
    unsigned n = 0;
    for (unsigned i = 0; i < qp->send_count; i++) {
        const struct eng_send *s = &qp->sends[i];
        if (ib_psn_before(s->last_psn, first) || ib_psn_before(last, s->first_psn))
            qp->sends[n++] = *s;
    }
    qp->send_count = (uint8_t)n;
    unsigned slot = n < ENG_QP_SENDS ? n : ENG_QP_SENDS - 1;
    qp->sends[slot] = (struct eng_send){ at, first, last };
    qp->send_count = (uint8_t)(slot + 1);
}

/* The first send of psn still kept, or none. */
static struct eng_ref send_of(const struct eng_qp *qp, uint32_t psn)
{
    for (unsigned i = 0; i < qp->send_count; i++) {
        const struct eng_send *s = &qp->sends[i];
        if (!ib_psn_before(psn, s->first_psn) && !ib_psn_before(s->last_psn, psn))
            return s->at;
    }
    return (struct eng_ref){ 0, 0 };
}

/* An answer covers every PSN up to psn: the sends it covers leave; the
 * oldest of them, sent longer ago than the timeout, is an ack_timeout. */
static void sends_covered(struct ib_engine *e, struct eng_qp *qp, uint32_t psn)
{
    const struct eng_send *oldest = NULL;
    unsigned n = 0;
    struct eng_send keep[ENG_QP_SENDS];
    for (unsigned i = 0; i < qp->send_count; i++) {
        const struct eng_send *s = &qp->sends[i];
        if (ib_psn_before(psn, s->last_psn)) {
            keep[n++] = *s;
            continue;
        }
        if (!oldest || s->at.time_ns < oldest->at.time_ns)
            oldest = s;
    }
    int64_t limit = qp->has_budget ? timeout_ns(qp->timeout) : 0;
    if (oldest && limit > 0 && e->at.time_ns - oldest->at.time_ns > limit) {
        struct ib_finding *f = emit(e, IB_FIND_ACK_TIMEOUT, qp, oldest->at, oldest->first_psn);
        if (f) {
            f->data.wait_ns = e->at.time_ns - oldest->at.time_ns;
            f->data.limit_ns = limit;
        }
    }
    memcpy(qp->sends, keep, n * sizeof keep[0]);
    qp->send_count = (uint8_t)n;
}

/* ---- retries exhausted ---- */

static void suspect_add(struct ib_engine *e, struct eng_qp *qp)
{
    struct eng_transport *t = &e->transport;
    if (qp->suspect)
        return;
    if (t->suspect_count == t->suspect_cap) {
        size_t cap = t->suspect_cap ? t->suspect_cap * 2 : 16;
        uint32_t *s = realloc(t->suspects, cap * sizeof *s);
        if (!s) {
            eng_oom(e);
            return;
        }
        t->suspects = s;
        t->suspect_cap = cap;
    }
    t->suspects[t->suspect_count++] = qp->self;
    qp->suspect = true;
    int64_t due = qp->resend_last.time_ns + ENG_EXHAUSTED_TIMEOUTS * timeout_ns(qp->timeout);
    if (due < t->first_deadline)
        t->first_deadline = due;
}

static void exhausted(struct ib_engine *e, struct eng_qp *qp)
{
    struct ib_finding *f = emit(e, IB_FIND_RETRIES_EXHAUSTED, qp, qp->resend_first, qp->resend_psn);
    if (!f)
        return;
    f->at = ref_unpack(qp->resend_last);
    f->data.sent = (unsigned)qp->rounds + 1;
    f->data.cause = !qp->acked_ever      ? IB_EXHAUSTED_NEVER_ACKED
                    : qp->naks_in_rounds ? IB_EXHAUSTED_NAKS
                                         : IB_EXHAUSTED_LATE_ACKS;
}

void eng_transport_expire(struct ib_engine *e, int64_t now_ns)
{
    struct eng_transport *t = &e->transport;
    if (t->first_deadline >= now_ns)
        return;
    size_t n = 0;
    int64_t next = NO_DEADLINE;
    for (size_t i = 0; i < t->suspect_count; i++) {
        struct eng_qp *qp = qp_at(t, t->suspects[i]);
        if (!qp->suspect)
            continue; /* answered, or moved on */
        int64_t due = qp->resend_last.time_ns + ENG_EXHAUSTED_TIMEOUTS * timeout_ns(qp->timeout);
        if (due < now_ns) {
            qp->suspect = false;
            exhausted(e, qp);
            continue;
        }
        next = due < next ? due : next;
        t->suspects[n++] = t->suspects[i];
    }
    t->suspect_count = n;
    t->first_deadline = next;
}

bool eng_transport_has_timers(const struct ib_engine *e)
{
    return e->transport.suspect_count > 0;
}

/* ---- requests ---- */

/* PSNs a request takes: a READ one per response packet, which takes the
 * path MTU (0: not known, the next request's PSN tells). */
static uint32_t request_span(const struct eng_qp *qp, const struct ib_packet *p, uint8_t op)
{
    if (op != IB_OP_READ_REQUEST)
        return 1;
    uint32_t mtu = qp->has_budget ? mtu_bytes(qp->mtu) : 0;
    if (!ib_packet_has(p, IB_HAS_RETH) || mtu == 0)
        return 0;
    uint32_t len = p->ext.reth.dma_len;
    return len == 0 ? 1 : (uint32_t)(((uint64_t)len + mtu - 1) / mtu);
}

static enum ib_resend_cause resend_cause(const struct eng_qp *qp, uint32_t psn)
{
    if (ib_psn_before(psn, qp->una))
        return IB_RESEND_SPURIOUS;
    if (qp->answer == ENG_ANSWER_NAK)
        return IB_RESEND_NAK;
    if (qp->answer == ENG_ANSWER_RNR)
        return IB_RESEND_RNR_NAK;
    return IB_RESEND_TIMEOUT;
}

/* A PSN sent again: the finding, and the count of rounds that the retry
 * budget allows (each round goes back to the oldest PSN not acknowledged). */
static void resent(struct ib_engine *e, struct eng_qp *qp, uint32_t psn)
{
    enum ib_resend_cause cause = resend_cause(qp, psn);
    bool answered = cause == IB_RESEND_NAK || cause == IB_RESEND_RNR_NAK;
    struct ib_finding *f = emit(e, IB_FIND_TRANSPORT_RETRANSMISSION, qp,
                                answered ? qp->answer_at : (struct eng_ref){ 0, 0 }, psn);
    if (f) {
        f->data.cause = (uint8_t)cause;
        if (cause == IB_RESEND_RNR_NAK)
            f->data.wait_ns = e->at.time_ns - qp->answer_at.time_ns;
    }
    if (cause == IB_RESEND_SPURIOUS || psn != qp->una)
        return;
    struct eng_ref now = ref_pack(e->at);
    if (qp->rounds == 0 || qp->resend_psn != psn) {
        qp->resend_psn = psn;
        qp->rounds = qp->rnr_rounds = 0;
        qp->naks_in_rounds = false;
        qp->resend_first = send_of(qp, psn);
        if (!qp->resend_first.where)
            qp->resend_first = now;
    }
    if (qp->rounds < UINT8_MAX)
        qp->rounds++;
    if (cause == IB_RESEND_RNR_NAK && qp->rnr_rounds < UINT8_MAX)
        qp->rnr_rounds++;
    qp->naks_in_rounds |= cause == IB_RESEND_NAK;
    qp->resend_last = now;
    if (!qp->has_budget || timeout_ns(qp->timeout) == 0)
        return;
    bool last = cause == IB_RESEND_RNR_NAK
                    ? qp->rnr_retry != ENG_RNR_RETRY_FOREVER && qp->rnr_rounds >= qp->rnr_retry
                    : qp->rounds - qp->rnr_rounds >= qp->retry;
    if (last)
        suspect_add(e, qp);
}

static void request(struct ib_engine *e, const struct ib_packet *p, uint8_t op)
{
    struct eng_qp_key k = qp_key(&p->dst, p->bth.destqp);
    struct eng_node requester = eng_node_of(&p->src);
    struct eng_qp *qp = qp_get(e, &k, &requester);
    if (!qp)
        return;
    if (!qp->has_index) {
        qp->has_index = true;
        qp->index = e->transport.next_index++;
    }
    struct eng_ref now = ref_pack(e->at);
    uint32_t psn = p->bth.psn;
    uint32_t span = request_span(qp, p, op);
    uint32_t last = ib_psn_add(psn, span ? (int32_t)span - 1 : 0);
    if (!qp->started) {
        qp->started = true;
        qp->una = psn;
        qp->next_psn = ib_psn_add(last, 1);
        qp->span_unknown = span == 0;
        if (qp->has_start && psn != qp->start_psn) {
            struct ib_finding *f = emit(e, IB_FIND_PSN_START_MISMATCH, qp, qp->announced, psn);
            if (f)
                f->data.expected_psn = qp->start_psn;
        }
        send_push(qp, now, psn, last);
        qp->last_req = now;
        return;
    }
    int32_t d = ib_psn_diff(psn, qp->next_psn);
    if (d > 0 && qp->span_unknown)
        d = 0; /* the READ before took these PSNs */
    if (d >= 0) {
        if (d > 0) {
            struct ib_finding *f = emit(e, IB_FIND_PSN_GAP, qp, qp->last_req, psn);
            if (f) {
                f->data.expected_psn = qp->next_psn;
                f->data.missing = (uint32_t)d;
            }
            qp->gap_open = true;
            qp->gap_psn = qp->next_psn;
            qp->gap_count = (uint32_t)d;
            qp->gap_at = now;
            qp->gap_answered = qp->gap_nak = false;
        }
        qp->next_psn = ib_psn_add(last, 1);
        qp->span_unknown = span == 0;
        qp->suspect = false; /* new work: the requester lives */
    } else if (qp->gap_open && !ib_psn_before(psn, qp->gap_psn) &&
               ib_psn_diff(psn, qp->gap_psn) < (int32_t)qp->gap_count) {
        /* A PSN the gap skipped, seen for the first time. */
        if (!qp->gap_answered)
            emit(e, IB_FIND_OUT_OF_ORDER, qp, qp->gap_at, psn);
        else
            resent(e, qp, psn);
        if (psn == qp->gap_psn) {
            qp->gap_psn = ib_psn_add(psn, 1);
            qp->gap_count--;
        } else {
            qp->gap_count = (uint32_t)ib_psn_diff(psn, qp->gap_psn);
        }
        qp->gap_open = qp->gap_count > 0;
    } else {
        resent(e, qp, psn);
    }
    send_push(qp, now, psn, last);
    qp->last_req = now;
}

/* ---- answers ---- */

/* The queue pair an answer is for: named by the CM, or found among the
 * queue pairs from its destination to its source by the PSN it answers. */
static struct eng_qp *answered_qp(struct ib_engine *e, const struct ib_packet *p)
{
    struct eng_transport *t = &e->transport;
    struct eng_qp_key k = qp_key(&p->dst, p->bth.destqp);
    uint64_t h = et_hash(&k, sizeof k);
    struct eng_qp_peer *peer = et_find(&t->peers, h, peer_eq, &k);
    if (peer)
        return qp_at(t, peer->qp);
    struct pair_key pk;
    memset(&pk, 0, sizeof pk);
    pk.dst = eng_node_of(&p->src);
    pk.requester_tag = node_tag(&k.node);
    struct eng_qp_pair *pair = et_find(&t->pairs, et_hash(&pk, sizeof pk), pair_eq, &pk);
    if (!pair)
        return NULL;
    uint32_t psn = p->bth.psn;
    unsigned scanned = 0;
    for (uint32_t i = pair->head; i && scanned < ENG_PAIR_SCAN_MAX; scanned++) {
        struct eng_qp *qp = qp_at(t, i - 1);
        /* An answer's PSN is one sent and not long acknowledged: from just
         * before the oldest not acknowledged to the last sent. */
        if (qp->started && !ib_psn_before(psn, ib_psn_add(qp->una, -1)) &&
            ib_psn_before(psn, qp->next_psn)) {
            peer_add(e, &k, i - 1);
            return qp;
        }
        i = qp->pair_next;
    }
    return NULL;
}

static void answer(struct ib_engine *e, const struct ib_packet *p)
{
    struct eng_qp *qp = answered_qp(e, p);
    if (!qp || !qp->started)
        return;
    struct eng_ref now = ref_pack(e->at);
    uint32_t psn = p->bth.psn;
    qp->gap_answered = true;
    if (ib_packet_has(p, IB_HAS_AETH) && p->ext.aeth.kind == IB_AETH_RNR_NAK) {
        struct ib_finding *f = emit(e, IB_FIND_RNR_NAK, qp, (struct eng_ref){ 0, 0 }, psn);
        if (f) {
            f->data.code = p->ext.aeth.rnr_timer;
            f->data.wait_ns = (int64_t)ib_rnr_timer_us(p->ext.aeth.rnr_timer) * 1000;
        }
        qp->answer = ENG_ANSWER_RNR;
        qp->answer_at = now;
        return;
    }
    if (ib_packet_has(p, IB_HAS_AETH) && p->ext.aeth.kind == IB_AETH_NAK) {
        uint8_t code = p->ext.aeth.nak_code;
        struct ib_finding *f = emit(e, IB_FIND_NAK, qp, (struct eng_ref){ 0, 0 }, psn);
        if (f) {
            f->data.code = code;
            if (code != IB_NAK_PSN_SEQUENCE)
                f->severity = IB_SEV_ERROR;
        }
        qp->answer = ENG_ANSWER_NAK;
        qp->answer_at = now;
        if (code == IB_NAK_PSN_SEQUENCE) {
            qp->gap_nak = true;
            /* The PSNs before the one it expects arrived. */
            if (ib_psn_before(qp->una, psn))
                qp->una = psn;
        }
        return;
    }
    /* An ACK, a READ response or an atomic ACK: every PSN up to psn done. */
    qp->answer = ENG_ANSWER_ACK;
    qp->acked_ever = true;
    sends_covered(e, qp, psn);
    if (qp->gap_open && !ib_psn_before(psn, qp->gap_psn)) {
        if (!qp->gap_nak) {
            struct ib_finding *f = emit(e, IB_FIND_CAPTURE_LOSS, qp, qp->gap_at, qp->gap_psn);
            if (f)
                f->data.missing = qp->gap_count;
        }
        qp->gap_open = false;
    }
    uint32_t after = ib_psn_add(psn, 1);
    if (ib_psn_before(qp->una, after)) {
        qp->una = after;
        if (qp->rounds && !ib_psn_before(psn, qp->resend_psn)) {
            qp->rounds = qp->rnr_rounds = 0;
            qp->suspect = false;
        }
    }
}

/* ---- the CM exchange ---- */

static void req_forget(struct eng_transport *t, struct eng_qp_req *r)
{
    struct req_key k;
    memset(&k, 0, sizeof k);
    k.active = r->active;
    k.comm_id = r->comm_id;
    uint32_t self = r->self;
    et_remove(&t->reqs, et_hash(&k, sizeof k), self);
    el_unlink(&r->age);
    ep_release(&t->req_pool, r, self);
    t->req_count--;
}

static void cm_req(struct ib_engine *e, const struct ib_packet *p)
{
    struct eng_transport *t = &e->transport;
    const struct ib_cm_req *q = &p->cm.u.req;
    if (q->transport_service_type != 0) /* RC only */
        return;
    struct req_key k;
    memset(&k, 0, sizeof k);
    k.active = eng_node_of(&p->src);
    k.comm_id = p->cm.local_comm_id;
    uint64_t h = et_hash(&k, sizeof k);
    struct eng_qp_req *r = et_find(&t->reqs, h, req_eq, &k);
    if (!r) {
        if (t->req_count >= ENG_QP_REQS_MAX)
            req_forget(t, EL_ENTRY(t->req_age.next, struct eng_qp_req, age));
        uint32_t self;
        if (!(r = ep_alloc(&t->req_pool, &self))) {
            eng_oom(e);
            return;
        }
        if (!et_insert(&t->reqs, h, self)) {
            ep_release(&t->req_pool, r, self);
            eng_oom(e);
            return;
        }
        r->self = self;
        el_append(&t->req_age, &r->age);
        t->req_count++;
        r->at = ref_pack(e->at); /* the first copy announced it */
    }
    r->active = k.active;
    r->comm_id = k.comm_id;
    r->passive = eng_node_of(&p->dst);
    r->qpn = q->local_qpn;
    r->start_psn = q->starting_psn;
    r->retry = q->retry_count;
    r->rnr_retry = q->rnr_retry_count;
    r->timeout = q->primary.local_ack_timeout;
    r->mtu = q->path_mtu;
}

/* Sets up one requester direction from the CM: where its requests go, who
 * answers them, its starting PSN and budget. */
static void cm_direction(struct ib_engine *e, const struct eng_qp_key *to,
                         const struct eng_qp_key *from, uint32_t start_psn, uint8_t rnr_retry,
                         const struct eng_qp_req *r, struct eng_ref announced)
{
    struct eng_qp *qp = qp_get(e, to, &from->node);
    if (!qp)
        return;
    if (qp->started)
        return; /* already running: a late or repeated REP */
    qp->has_start = true;
    qp->start_psn = start_psn;
    qp->announced = announced;
    qp->has_budget = true;
    qp->retry = r->retry;
    qp->rnr_retry = rnr_retry;
    qp->timeout = r->timeout;
    qp->mtu = r->mtu;
    peer_add(e, from, qp->self);
}

static void cm_rep(struct ib_engine *e, const struct ib_packet *p)
{
    struct eng_transport *t = &e->transport;
    struct req_key k;
    memset(&k, 0, sizeof k);
    k.active = eng_node_of(&p->dst);
    k.comm_id = p->cm.remote_comm_id;
    struct eng_qp_req *r = et_find(&t->reqs, et_hash(&k, sizeof k), req_eq, &k);
    if (!r)
        return;
    const struct ib_cm_rep *rep = &p->cm.u.rep;
    struct eng_qp_key active = { r->active, r->qpn }, passive = { r->passive, rep->local_qpn };
    /* The active side's requests go to the passive QP, starting at the
     * REP's StartingPSN, with the REP's RNR retry count; the passive side's
     * start at the REQ's, with the REQ's (Linux cm.c: the active side's
     * rq_psn is the REQ's StartingPSN, its sq_psn the REP's). */
    cm_direction(e, &passive, &active, rep->starting_psn, rep->rnr_retry_count, r, ref_pack(e->at));
    cm_direction(e, &active, &passive, r->start_psn, r->rnr_retry, r, r->at);
    req_forget(t, r);
}

void eng_transport_cm(struct ib_engine *e, const struct ib_packet *p)
{
    if (p->cm.attr == IB_CM_REQ)
        cm_req(e, p);
    else if (p->cm.attr == IB_CM_REP)
        cm_rep(e, p);
}

/* ---- the entry point ---- */

/* The transports with ACKs and resends: RC and XRC (the opcode's top
 * three bits, IBA Vol. 1 §9.2.1, Annex A14). */
#define TRANSPORT_RC  0
#define TRANSPORT_XRC 5

void eng_transport_feed(struct ib_engine *e, const struct ib_packet *p)
{
    unsigned transport = p->bth.opcode >> 5;
    if (transport != TRANSPORT_RC && transport != TRANSPORT_XRC)
        return;
    struct ib_opcode_info info = ib_opcode_info(p->bth.opcode);
    switch (info.op) {
    case IB_OP_SEND:
    case IB_OP_WRITE:
    case IB_OP_READ_REQUEST:
    case IB_OP_CMP_SWAP:
    case IB_OP_FETCH_ADD: request(e, p, info.op); break;
    case IB_OP_ACK:
    case IB_OP_READ_RESPONSE:
    case IB_OP_ATOMIC_ACK: answer(e, p); break;
    default: break;
    }
}
