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
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine_state.h"
#include "engine_transport.h"
#include "engine_wire.h"
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

_Static_assert(sizeof(struct eng_qp) == 4 * EP_BLOCK_ALIGN &&
                   offsetof(struct eng_qp, sends) == EP_BLOCK_ALIGN &&
                   offsetof(struct eng_qp, peer) == 3 * EP_BLOCK_ALIGN,
               "eng_qp's layout by cache lines");

/* ---- the tables ---- */

static bool qp_eq(const void *item, const void *key)
{
    return memcmp(&((const struct eng_qp *)item)->key, key, sizeof(struct eng_qp_key)) == 0;
}

/* The side of a that waits under key k, or -1. */
static int announced_side(const struct eng_qp_announced *a, const struct eng_qp_key *k)
{
    for (int s = 0; s < 2; s++)
        if (a->waiting & 1u << s && memcmp(&a->side[s], k, sizeof *k) == 0)
            return s;
    return -1;
}

static bool announced_eq(const void *item, const void *key)
{
    return announced_side(item, key) >= 0;
}

static bool peer_eq(const void *item, const void *key)
{
    const struct eng_qp *qp = item;
    return qp->has_peer && memcmp(&qp->peer, key, sizeof qp->peer) == 0;
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
    ep_init(&t->trouble_pool, sizeof(struct eng_qp_trouble));
    ep_init(&t->pair_pool, sizeof(struct eng_qp_pair));
    ep_init(&t->req_pool, sizeof(struct eng_qp_req));
    ep_init(&t->announced_pool, sizeof(struct eng_qp_announced));
    el_init(&t->req_age);
    el_init(&t->announced_age);
    t->first_deadline = NO_DEADLINE;
    bool ok = et_init(&t->qps, 16, &t->qp_pool);
    ok = et_init(&t->peers, 16, &t->qp_pool) && ok;
    ok = et_init(&t->pairs, 16, &t->pair_pool) && ok;
    ok = et_init(&t->announced, 16, &t->announced_pool) && ok;
    return et_init(&t->reqs, 16, &t->req_pool) && ok;
}

void eng_transport_destroy(struct ib_engine *e)
{
    struct eng_transport *t = &e->transport;
    et_destroy(&t->qps);
    et_destroy(&t->peers);
    et_destroy(&t->pairs);
    et_destroy(&t->reqs);
    et_destroy(&t->announced);
    ep_destroy(&t->qp_pool);
    ep_destroy(&t->trouble_pool);
    ep_destroy(&t->pair_pool);
    ep_destroy(&t->req_pool);
    ep_destroy(&t->announced_pool);
    free(t->suspects);
    free(t->pair_next);
}

/* ---- budgets ---- */

/* 4.096 us x 2^timeout (IBA Vol. 1 §9.7.6.1.3); 0 means no timer. */
static int64_t timeout_ns(uint8_t code)
{
    return code == 0 ? 0 : (int64_t)4096 << code;
}

/* ---- queue pairs ---- */

static struct eng_qp *qp_at(const struct eng_transport *t, uint32_t index)
{
    return ep_item(&t->qp_pool, index);
}

/* Room in pair_next for QP index i. */
static bool pair_next_room(struct eng_transport *t, uint32_t i)
{
    if (i < t->pair_next_cap)
        return true;
    size_t cap = t->pair_next_cap ? t->pair_next_cap : 64;
    while (cap <= i)
        cap *= 2;
    uint32_t *grown = realloc(t->pair_next, cap * sizeof *grown);
    if (!grown)
        return false;
    t->pair_next = grown;
    t->pair_next_cap = cap;
    return true;
}

/* Links a new QP to the others from its requester to its destination. */
static void pair_link(struct ib_engine *e, struct eng_qp *qp, uint32_t self,
                      const struct eng_node *requester)
{
    struct eng_transport *t = &e->transport;
    if (!pair_next_room(t, self)) {
        eng_oom(e);
        return;
    }
    t->pair_next[self] = 0;
    struct pair_key k;
    memset(&k, 0, sizeof k);
    k.dst = qp->key.node;
    k.requester_tag = node_tag(requester);
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
    t->pair_next[self] = pair->head;
    pair->head = self + 1;
}

static void peer_add(struct ib_engine *e, struct eng_qp *qp, const struct eng_qp_key *k);
static struct ib_finding *emit(struct ib_engine *e, enum ib_finding_kind kind,
                               const struct eng_qp *qp, struct eng_ref related, uint32_t psn);

/* The CM's set-up of the requester direction to k, if it has one waiting. */
static struct eng_qp_announced *announced_find(struct eng_transport *t, const struct eng_qp_key *k,
                                               uint64_t h)
{
    return t->announced.count ? et_find(&t->announced, h, announced_eq, k) : NULL;
}

/* Side s's requests have begun (or another set-up took its QP): its entry
 * goes, and the record with the last one. */
static void announced_done(struct eng_transport *t, struct eng_qp_announced *a, int s)
{
    et_remove(&t->announced, et_hash(&a->side[s], sizeof a->side[s]), a->self);
    a->waiting &= (uint8_t) ~(1u << s);
    if (a->waiting)
        return;
    el_unlink(&a->age);
    ep_release(&t->announced_pool, a, a->self);
}

/* The queue pair whose requests go to k; made by its first request (of
 * PSN psn, from requester) with what the CM announced for it. */
static struct eng_qp *qp_get(struct ib_engine *e, const struct eng_qp_key *k,
                             const struct ib_endpoint *requester, uint32_t psn)
{
    struct eng_transport *t = &e->transport;
    uint64_t h = et_hash(k, sizeof *k);
    struct eng_qp *qp = et_find(&t->qps, h, qp_eq, k);
    if (qp)
        return qp;
    if (t->qp_count >= e->cfg.max_qps) {
        e->stats.qps_dropped++;
        return NULL;
    }
    uint32_t self;
    if (!(qp = ep_alloc(&t->qp_pool, &self)))
        return eng_oom(e);
    qp->key = *k;
    qp->self = self;
    if (!et_insert(&t->qps, h, self)) {
        ep_release(&t->qp_pool, qp, self);
        return eng_oom(e);
    }
    t->qp_count++;
    struct eng_node from = eng_node_of(requester);
    pair_link(e, qp, self, &from);
    struct eng_qp_announced *a = announced_find(t, k, h);
    if (a) {
        int s = announced_side(a, k);
        qp->from_cm = true;
        qp->retry = a->retry;
        qp->rnr_retry = a->rnr_retry[s];
        qp->timeout = a->timeout;
        qp->mtu = a->mtu;
        peer_add(e, qp, &a->side[!s]);
        if (psn != a->start_psn[s]) {
            struct ib_finding *f =
                emit(e, IB_FIND_PSN_START_MISMATCH, qp, (struct eng_ref){ 0, a->at[s] }, psn);
            if (f)
                f->data.expected_psn = a->start_psn[s];
        }
        announced_done(t, a, s);
    }
    return qp;
}

/* Answers to k are for qp from now on: a new connection on a QP number
 * used before takes them from the queue pair that had them. */
static void peer_add(struct ib_engine *e, struct eng_qp *qp, const struct eng_qp_key *k)
{
    struct eng_transport *t = &e->transport;
    uint64_t h = et_hash(k, sizeof *k);
    struct eng_qp *before = et_find(&t->peers, h, peer_eq, k);
    if (before == qp)
        return;
    if (before) {
        et_remove(&t->peers, h, before->self);
        before->has_peer = false;
    }
    if (qp->has_peer) {
        et_remove(&t->peers, et_hash(&qp->peer, sizeof qp->peer), qp->self);
        qp->has_peer = false;
    }
    qp->peer = *k;
    if (!et_insert(&t->peers, h, qp->self)) {
        eng_oom(e);
        return;
    }
    qp->has_peer = true;
}

/* ---- trouble ---- */

/* The part only gaps, NAKs and resends need, made when first needed; NULL
 * when out of memory (counted: that trouble goes unanalysed). */
static struct eng_qp_trouble *trouble_of(struct ib_engine *e, struct eng_qp *qp)
{
    struct eng_transport *t = &e->transport;
    if (qp->trouble)
        return ep_item(&t->trouble_pool, qp->trouble - 1);
    uint32_t self;
    struct eng_qp_trouble *tr = ep_alloc(&t->trouble_pool, &self);
    if (!tr)
        return eng_oom(e);
    qp->trouble = self + 1;
    return tr;
}

static const struct eng_qp_trouble *trouble_if(const struct eng_transport *t,
                                               const struct eng_qp *qp)
{
    return qp->trouble ? ep_item(&t->trouble_pool, qp->trouble - 1) : NULL;
}

/* ---- findings ---- */

static struct eng_ref at_frame(uint64_t where)
{
    return (struct eng_ref){ 0, where };
}

static struct ib_finding *emit(struct ib_engine *e, enum ib_finding_kind kind,
                               const struct eng_qp *qp, struct eng_ref related, uint32_t psn)
{
    struct ib_finding *f =
        eng_emit(e, kind, related.where ? ref_unpack(related) : (struct ib_frame_ref){ 0, 0, 0 });
    if (!f)
        return NULL;
    f->data.qp.index = qp->self;
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
    unsigned slot = n < ENG_QP_SENDS ? n : ENG_QP_SENDS - 1;
    qp->sends[slot] = (struct eng_send){ at, first, last };
    qp->send_count = (uint8_t)(slot + 1);
}

/* The send of psn still kept, or none. */
static struct eng_ref send_of(const struct eng_qp *qp, uint32_t psn)
{
    for (unsigned i = 0; i < qp->send_count; i++) {
        const struct eng_send *s = &qp->sends[i];
        if (!ib_psn_before(psn, s->first_psn) && !ib_psn_before(s->last_psn, psn))
            return s->at;
    }
    return (struct eng_ref){ 0, 0 };
}

/* Half-octave bucket of a round trip (ENG_RTT_BUCKETS). */
static unsigned rtt_bucket(int64_t ns)
{
    int64_t us = ns / 1000;
    if (us < 1)
        return 0;
    unsigned octave = (unsigned)(63 - __builtin_clzll((unsigned long long)us));
    /* The upper half of the octave: at or past 2^octave * sqrt(2). */
    unsigned half = (uint64_t)us * (uint64_t)us >= (UINT64_C(2) << (2 * octave)) ? 1 : 0;
    unsigned b = 2 * octave + half;
    return b < ENG_RTT_BUCKETS ? b : ENG_RTT_BUCKETS - 1;
}

static uint32_t saturate(int64_t ns)
{
    return ns < 0 ? 0 : ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

static void rtt_add(struct eng_qp *qp, int64_t ns)
{
    uint32_t v = saturate(ns);
    if (qp->rtt_count == 0 || v < qp->rtt_min_ns)
        qp->rtt_min_ns = v;
    if (v > qp->rtt_max_ns)
        qp->rtt_max_ns = v;
    if (qp->rtt_count < UINT32_MAX)
        qp->rtt_count++;
    unsigned b = rtt_bucket(ns);
    if (qp->rtt_hist[b] == UINT8_MAX)
        for (unsigned i = 0; i < ENG_RTT_BUCKETS; i++)
            qp->rtt_hist[i] = (uint8_t)((qp->rtt_hist[i] + 1) / 2);
    qp->rtt_hist[b]++;
}

/* An answer covers every PSN up to psn: the sends it covers leave.  The
 * newest of them gives the round trip; the oldest, sent longer ago than the
 * timeout, is an ack_timeout. */
static void sends_covered(struct ib_engine *e, struct eng_qp *qp, uint32_t psn)
{
    const struct eng_send *oldest = NULL, *newest = NULL;
    unsigned n = 0;
    struct eng_send keep[ENG_QP_SENDS];
    for (unsigned i = 0; i < qp->send_count; i++) {
        const struct eng_send *s = &qp->sends[i];
        /* A READ's first response answers it: its PSN is the READ's first. */
        if (ib_psn_before(psn, s->first_psn)) {
            keep[n++] = *s;
            continue;
        }
        if (!oldest || s->at.time_ns < oldest->at.time_ns)
            oldest = s;
        if (!newest || s->at.time_ns > newest->at.time_ns)
            newest = s;
    }
    if (newest) {
        rtt_add(qp, e->at.time_ns - newest->at.time_ns);
        e->out->links.acks = ref_unpack(newest->at);
        e->out->links.ack_rtt_ns = e->at.time_ns - newest->at.time_ns;
    }
    int64_t limit = qp->from_cm ? timeout_ns(qp->timeout) : 0;
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

static int64_t exhausted_due(const struct eng_qp *qp, const struct eng_qp_trouble *tr)
{
    return tr->resend_last.time_ns + ENG_EXHAUSTED_TIMEOUTS * timeout_ns(qp->timeout);
}

static void suspect_add(struct ib_engine *e, struct eng_qp *qp, struct eng_qp_trouble *tr)
{
    struct eng_transport *t = &e->transport;
    if (tr->suspect)
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
    tr->suspect = true;
    int64_t due = exhausted_due(qp, tr);
    if (due < t->first_deadline)
        t->first_deadline = due;
}

static void exhausted(struct ib_engine *e, struct eng_qp *qp, const struct eng_qp_trouble *tr)
{
    qp->died = true;
    struct ib_finding *f =
        emit(e, IB_FIND_RETRIES_EXHAUSTED, qp, at_frame(tr->resend_first), tr->resend_psn);
    if (!f)
        return;
    f->at = ref_unpack(tr->resend_last);
    f->data.sent = (unsigned)tr->rounds + 1;
    /* NAKs (RNR ones too) answering the resends say the responder was
     * reached: loss, or a receiver that stayed not ready. */
    f->data.cause = tr->naks_in_rounds ? IB_EXHAUSTED_NAKS
                    : !qp->acked_ever  ? IB_EXHAUSTED_NEVER_ACKED
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
        struct eng_qp_trouble *tr = ep_item(&t->trouble_pool, qp->trouble - 1);
        if (!tr->suspect)
            continue; /* answered, or moved on */
        int64_t due = exhausted_due(qp, tr);
        if (due < now_ns) {
            tr->suspect = false;
            exhausted(e, qp, tr);
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

bool eng_transport_paired_qpn(const struct ib_engine *e, const struct ib_endpoint *dst,
                              uint32_t qpn, uint32_t *paired)
{
    const struct eng_transport *t = &e->transport;
    struct eng_qp_key k = qp_key(dst, qpn);
    uint64_t h = et_hash(&k, sizeof k);
    /* Requests go there: its requester's QPN; answers go there: the QPN
     * of the requests they answer. */
    const struct eng_qp *qp = et_find(&t->qps, h, qp_eq, &k);
    if (qp && qp->has_peer) {
        *paired = qp->peer.qpn;
        return true;
    }
    const struct eng_qp *answered = et_find(&t->peers, h, peer_eq, &k);
    if (!answered)
        return false;
    *paired = answered->key.qpn;
    return true;
}

/* ---- requests ---- */

/* PSNs a request takes: a READ one per response packet, which takes the
 * path MTU (0: not known, the next request's PSN tells). */
static uint32_t request_span(const struct eng_qp *qp, const struct ib_packet *p, uint8_t op)
{
    if (op != IB_OP_READ_REQUEST)
        return 1;
    uint32_t mtu = qp->from_cm ? eng_mtu_bytes(qp->mtu) : 0;
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
static void resent(struct ib_engine *e, struct eng_qp *qp, struct eng_qp_trouble *tr, uint32_t psn)
{
    enum ib_resend_cause cause = resend_cause(qp, psn);
    bool answered = cause == IB_RESEND_NAK || cause == IB_RESEND_RNR_NAK;
    int64_t waited = e->at.time_ns - tr->answer_at.time_ns;
    /* Related: the NAK it answers, or the answer that had covered it. */
    struct eng_ref related = answered                      ? tr->answer_at
                             : cause == IB_RESEND_SPURIOUS ? at_frame(qp->una_at)
                                                           : (struct eng_ref){ 0, 0 };
    struct ib_finding *f = emit(e, IB_FIND_TRANSPORT_RETRANSMISSION, qp, related, psn);
    if (f) {
        f->data.cause = (uint8_t)cause;
        if (cause == IB_RESEND_RNR_NAK)
            f->data.wait_ns = waited;
    }
    tr->resends[cause]++;
    if (cause == IB_RESEND_RNR_NAK)
        tr->rnr_wait_ns += waited;
    if (cause == IB_RESEND_SPURIOUS || psn != qp->una)
        return;
    struct eng_ref now = ref_pack(e->at);
    if (tr->rounds == 0 || tr->resend_psn != psn) {
        tr->resend_psn = psn;
        tr->rounds = tr->rnr_rounds = 0;
        tr->naks_in_rounds = false;
        struct eng_ref first = send_of(qp, psn);
        tr->resend_first = first.where ? first.where : now.where;
    }
    if (tr->rounds < UINT8_MAX)
        tr->rounds++;
    if (cause == IB_RESEND_RNR_NAK)
        tr->rnr_rounds += tr->rnr_rounds < UINT8_MAX;
    tr->naks_in_rounds |= answered;
    tr->resend_last = now;
    if (!qp->from_cm || timeout_ns(qp->timeout) == 0)
        return;
    bool last = cause == IB_RESEND_RNR_NAK
                    ? qp->rnr_retry != ENG_RNR_RETRY_FOREVER && tr->rnr_rounds >= qp->rnr_retry
                    : tr->rounds - tr->rnr_rounds >= qp->retry;
    if (last)
        suspect_add(e, qp, tr);
}

/* A PSN past the one due: the gap opens. */
static void gap(struct ib_engine *e, struct eng_qp *qp, uint32_t psn, int32_t missing)
{
    struct ib_finding *f = emit(e, IB_FIND_PSN_GAP, qp, at_frame(qp->last_req), psn);
    if (f) {
        f->data.expected_psn = qp->next_psn;
        f->data.missing = (uint32_t)missing;
    }
    struct eng_qp_trouble *tr = trouble_of(e, qp);
    if (!tr)
        return;
    tr->gap_open = true;
    tr->gap_psn = qp->next_psn;
    tr->gap_count = (uint32_t)missing;
    tr->gap_at = ref_pack(e->at).where;
    tr->gap_answered = tr->gap_nak = false;
    tr->psn_gaps++;
    tr->psns_missing += (uint32_t)missing;
}

static bool in_gap(const struct eng_qp_trouble *tr, uint32_t psn)
{
    return tr && tr->gap_open && !ib_psn_before(psn, tr->gap_psn) &&
           ib_psn_diff(psn, tr->gap_psn) < (int32_t)tr->gap_count;
}

/* A PSN the gap skipped, seen for the first time: reordered when the
 * responder has not answered since, else sent again. */
static void gap_filled(struct ib_engine *e, struct eng_qp *qp, struct eng_qp_trouble *tr,
                       uint32_t psn)
{
    if (!tr->gap_answered)
        emit(e, IB_FIND_OUT_OF_ORDER, qp, at_frame(tr->gap_at), psn);
    else
        resent(e, qp, tr, psn);
    if (psn == tr->gap_psn) {
        tr->gap_psn = ib_psn_add(psn, 1);
        tr->gap_count--;
    } else {
        tr->gap_count = (uint32_t)ib_psn_diff(psn, tr->gap_psn);
    }
    tr->gap_open = tr->gap_count > 0;
}

static unsigned op_counted(uint8_t op)
{
    switch (op) {
    case IB_OP_SEND: return IB_QP_SEND;
    case IB_OP_WRITE: return IB_QP_WRITE;
    case IB_OP_READ_REQUEST: return IB_QP_READ;
    default: return IB_QP_ATOMIC;
    }
}

static void request(struct ib_engine *e, const struct ib_packet *p, uint8_t op)
{
    struct eng_qp_key k = qp_key(&p->dst, p->bth.destqp);
    struct eng_qp *qp = qp_get(e, &k, &p->src, p->bth.psn);
    if (!qp)
        return;
    e->out->links.has_qp = true;
    e->out->links.qp = qp->self;
    struct eng_ref now = ref_pack(e->at);
    uint32_t psn = p->bth.psn;
    uint32_t span = request_span(qp, p, op);
    uint32_t last = ib_psn_add(psn, span ? (int32_t)span - 1 : 0);
    qp->requests[op_counted(op)]++;
    qp->last_ns = now.time_ns;
    qp->last_where = now.where;
    if (!qp->started) {
        qp->started = true;
        qp->first = now;
        qp->una = psn;
        qp->next_psn = ib_psn_add(last, 1);
        qp->span_unknown = span == 0;
        qp->payload_bytes += p->payload_len;
        send_push(qp, now, psn, last);
        qp->last_req = now.where;
        return;
    }
    int32_t d = ib_psn_diff(psn, qp->next_psn);
    if (d > 0 && qp->span_unknown)
        d = 0; /* the READ before took these PSNs */
    struct eng_qp_trouble *tr;
    if (d >= 0) {
        if (d > 0)
            gap(e, qp, psn, d);
        qp->next_psn = ib_psn_add(last, 1);
        qp->span_unknown = span == 0;
        qp->payload_bytes += p->payload_len;
        if ((tr = (struct eng_qp_trouble *)trouble_if(&e->transport, qp)))
            tr->suspect = false; /* new work: the requester lives */
    } else if ((tr = trouble_of(e, qp))) {
        if (in_gap(tr, psn))
            gap_filled(e, qp, tr, psn);
        else
            resent(e, qp, tr, psn);
    }
    send_push(qp, now, psn, last);
    qp->last_req = now.where;
}

/* ---- answers ---- */

/* The queue pair an answer is for: named by the CM, or found among the
 * queue pairs from its destination to its source by the PSN it answers. */
static struct eng_qp *answered_qp(struct ib_engine *e, const struct ib_packet *p)
{
    struct eng_transport *t = &e->transport;
    struct eng_qp_key k = qp_key(&p->dst, p->bth.destqp);
    uint64_t h = et_hash(&k, sizeof k);
    struct eng_qp *known = et_find(&t->peers, h, peer_eq, &k);
    if (known)
        return known;
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
            peer_add(e, qp, &k);
            return qp;
        }
        i = t->pair_next[i - 1];
    }
    return NULL;
}

static void rnr_nak(struct ib_engine *e, struct eng_qp *qp, struct eng_qp_trouble *tr,
                    const struct ib_packet *p)
{
    struct ib_finding *f = emit(e, IB_FIND_RNR_NAK, qp, (struct eng_ref){ 0, 0 }, p->bth.psn);
    if (f) {
        f->data.code = p->ext.aeth.rnr_timer;
        f->data.wait_ns = (int64_t)ib_rnr_timer_us(p->ext.aeth.rnr_timer) * 1000;
    }
    qp->answer = ENG_ANSWER_RNR;
    tr->answer_at = ref_pack(e->at);
    tr->rnr_naks++;
    /* The PSNs before the one it refuses arrived. */
    if (ib_psn_before(qp->una, p->bth.psn))
        qp->una = p->bth.psn;
}

static void nak(struct ib_engine *e, struct eng_qp *qp, struct eng_qp_trouble *tr,
                const struct ib_packet *p)
{
    uint8_t code = p->ext.aeth.nak_code;
    uint32_t psn = p->bth.psn;
    struct ib_finding *f = emit(e, IB_FIND_NAK, qp, (struct eng_ref){ 0, 0 }, psn);
    if (f) {
        f->data.code = code;
        if (code != IB_NAK_PSN_SEQUENCE)
            f->severity = IB_SEV_ERROR;
    }
    qp->answer = ENG_ANSWER_NAK;
    tr->answer_at = ref_pack(e->at);
    if (code < IB_NAK_CODES)
        tr->naks[code]++;
    if (code != IB_NAK_PSN_SEQUENCE) {
        qp->died = true; /* the queue pair moves to the error state */
        return;
    }
    tr->gap_nak = true;
    /* The PSNs before the one it expects arrived. */
    if (ib_psn_before(qp->una, psn))
        qp->una = psn;
}

/* An ACK, a READ response or an atomic ACK: every PSN up to psn done. */
static void acknowledged(struct ib_engine *e, struct eng_qp *qp, const struct ib_packet *p,
                         uint8_t op)
{
    uint32_t psn = p->bth.psn;
    qp->answer = ENG_ANSWER_ACK;
    qp->acked_ever = true;
    qp->answers++;
    if (op == IB_OP_READ_RESPONSE)
        qp->payload_bytes += p->payload_len;
    sends_covered(e, qp, psn);
    struct eng_qp_trouble *tr = qp->trouble ? trouble_of(e, qp) : NULL;
    if (tr && tr->gap_open && !ib_psn_before(psn, tr->gap_psn)) {
        if (!tr->gap_nak) {
            struct ib_finding *f =
                emit(e, IB_FIND_CAPTURE_LOSS, qp, at_frame(tr->gap_at), tr->gap_psn);
            if (f)
                f->data.missing = tr->gap_count;
        }
        tr->gap_open = false;
    }
    uint32_t after = ib_psn_add(psn, 1);
    if (!ib_psn_before(qp->una, after))
        return;
    qp->una = after;
    qp->una_at = ref_pack(e->at).where;
    if (tr && tr->rounds && !ib_psn_before(psn, tr->resend_psn)) {
        tr->rounds = tr->rnr_rounds = 0;
        tr->suspect = false;
    }
}

static void answer(struct ib_engine *e, const struct ib_packet *p, uint8_t op)
{
    struct eng_qp *qp = answered_qp(e, p);
    if (!qp || !qp->started)
        return;
    e->out->links.has_qp = true;
    e->out->links.qp = qp->self;
    qp->last_ns = e->at.time_ns;
    qp->last_where = ref_pack(e->at).where;
    bool aeth = ib_packet_has(p, IB_HAS_AETH);
    uint8_t kind = aeth ? p->ext.aeth.kind : IB_AETH_ACK;
    if (kind == IB_AETH_RNR_NAK || kind == IB_AETH_NAK) {
        struct eng_qp_trouble *tr = trouble_of(e, qp);
        if (!tr)
            return;
        tr->gap_answered = true;
        if (kind == IB_AETH_RNR_NAK)
            rnr_nak(e, qp, tr, p);
        else
            nak(e, qp, tr, p);
        return;
    }
    if (qp->trouble)
        trouble_of(e, qp)->gap_answered = true;
    acknowledged(e, qp, p, op);
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
        if (t->req_count >= ENG_QP_REQS_MAX) {
            req_forget(t, EL_ENTRY(t->req_age.next, struct eng_qp_req, age));
            e->stats.qp_setups_forgotten++;
        }
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

/* The oldest set-up goes, to make room: its waiting sides are forgotten. */
static void announced_evict(struct ib_engine *e)
{
    struct eng_transport *t = &e->transport;
    struct eng_qp_announced *old = EL_ENTRY(t->announced_age.next, struct eng_qp_announced, age);
    for (int s = 0; s < 2; s++)
        if (old->waiting & 1u << s) {
            e->stats.qp_setups_forgotten++;
            announced_done(t, old, s);
        }
}

/* Sets up a connection's two requester directions from the CM: where
 * requests go, who answers them, their starting PSNs and budgets; each
 * direction's record waits for its first request. */
static void announce(struct ib_engine *e, const struct eng_qp_req *r, const struct ib_cm_rep *rep)
{
    struct eng_transport *t = &e->transport;
    struct eng_qp_key side[2] = { { r->active, r->qpn }, { r->passive, rep->local_qpn } };
    uint64_t h[2];
    uint8_t waiting = 0;
    for (int s = 0; s < 2; s++) {
        h[s] = et_hash(&side[s], sizeof side[s]);
        if (et_find(&t->qps, h[s], qp_eq, &side[s]))
            continue; /* already running: a late or repeated REP */
        /* A repeated REP, or a new connection on a QP number set up before:
         * the newest set-up holds. */
        struct eng_qp_announced *before = announced_find(t, &side[s], h[s]);
        if (before)
            announced_done(t, before, announced_side(before, &side[s]));
        waiting |= (uint8_t)(1u << s);
    }
    /* Room for its waiting sides: the oldest set-ups go, and under a cap
     * below two, this one's passive side (the active's requests). */
    size_t need = (size_t)__builtin_popcount(waiting);
    while (t->announced.count && t->announced.count + need > e->cfg.max_qps)
        announced_evict(e);
    for (int s = ENG_SIDE_PASSIVE; s >= 0 && need > e->cfg.max_qps; s--)
        if (waiting & 1u << s) {
            waiting &= (uint8_t) ~(1u << s);
            need--;
            e->stats.qp_setups_forgotten++;
        }
    if (!waiting)
        return;
    uint32_t self;
    struct eng_qp_announced *a = ep_alloc(&t->announced_pool, &self);
    if (!a) {
        eng_oom(e);
        return;
    }
    a->self = self;
    a->side[ENG_SIDE_ACTIVE] = side[ENG_SIDE_ACTIVE];
    a->side[ENG_SIDE_PASSIVE] = side[ENG_SIDE_PASSIVE];
    /* The active side's requests go to the passive QP, starting at the
     * REP's StartingPSN, with the REP's RNR retry count; the passive side's
     * start at the REQ's, with the REQ's (Linux cm.c: the active side's
     * rq_psn is the REQ's StartingPSN, its sq_psn the REP's). */
    a->start_psn[ENG_SIDE_PASSIVE] = rep->starting_psn;
    a->rnr_retry[ENG_SIDE_PASSIVE] = rep->rnr_retry_count;
    a->at[ENG_SIDE_PASSIVE] = ref_pack(e->at).where;
    a->start_psn[ENG_SIDE_ACTIVE] = r->start_psn;
    a->rnr_retry[ENG_SIDE_ACTIVE] = r->rnr_retry;
    a->at[ENG_SIDE_ACTIVE] = r->at.where;
    a->retry = r->retry;
    a->timeout = r->timeout;
    a->mtu = r->mtu;
    for (int s = 0; s < 2; s++) {
        if (!(waiting & 1u << s))
            continue;
        if (!et_insert(&t->announced, h[s], self)) {
            eng_oom(e);
            break;
        }
        a->waiting |= (uint8_t)(1u << s);
    }
    if (!a->waiting) {
        ep_release(&t->announced_pool, a, self);
        return;
    }
    el_append(&t->announced_age, &a->age);
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
    announce(e, r, &p->cm.u.rep);
    eng_wire_cm_pair(e, &r->active, r->qpn, &r->passive, p->cm.u.rep.local_qpn, r->mtu, r->at);
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
    case IB_OP_ATOMIC_ACK: answer(e, p, info.op); break;
    default: break;
    }
}

/* ---- the statistics ---- */

const char *ib_qp_op_name(unsigned op)
{
    static const char *const names[IB_QP_OP_COUNT] = { "send", "write", "read", "atomic" };
    return op < IB_QP_OP_COUNT ? names[op] : "unknown";
}

size_t ib_engine_qp_count(const struct ib_engine *e)
{
    return e->transport.qp_count;
}

/* The bucket's lower bound in ns: 2^(b/2) us; bucket 0 from 0. */
static double bucket_low_ns(unsigned b)
{
    double v = 1000.0 * (double)(UINT64_C(1) << (b / 2));
    return b == 0 ? 0 : b % 2 ? v * 1.4142135623730951 : v;
}

/* The q-quantile of the histogram, linear within its bucket, kept within
 * the minimum and maximum seen. */
static int64_t rtt_quantile(const struct eng_qp *qp, double q)
{
    unsigned total = 0;
    for (unsigned b = 0; b < ENG_RTT_BUCKETS; b++)
        total += qp->rtt_hist[b];
    if (total == 0)
        return 0;
    double rank = q * total, below = 0, v = qp->rtt_max_ns;
    for (unsigned b = 0; b < ENG_RTT_BUCKETS; b++) {
        unsigned n = qp->rtt_hist[b];
        if (n && below + n >= rank) {
            double lo = bucket_low_ns(b), hi = bucket_low_ns(b + 1), f = (rank - below) / n;
            v = lo + (hi - lo) * f;
            break;
        }
        below += n;
    }
    if (v < qp->rtt_min_ns)
        v = qp->rtt_min_ns;
    if (v > qp->rtt_max_ns)
        v = qp->rtt_max_ns;
    return (int64_t)(v + 0.5);
}

void ib_engine_qp(const struct ib_engine *e, size_t i, struct ib_qp_stats *out)
{
    const struct eng_transport *t = &e->transport;
    const struct eng_qp *qp = qp_at(t, (uint32_t)i);
    memset(out, 0, sizeof *out);
    out->qp.index = qp->self;
    out->qp.qpn = qp->key.qpn;
    out->qp.dst.lid = qp->key.node.lid;
    out->qp.dst.has_gid = qp->key.node.kind == ENG_NODE_GID;
    memcpy(out->qp.dst.gid, qp->key.node.gid, 16);
    out->from_cm = qp->from_cm;
    if (qp->from_cm) {
        out->retry_count = qp->retry;
        out->rnr_retry_count = qp->rnr_retry;
        out->ack_timeout = qp->timeout;
    }
    if (qp->started) {
        out->first = ref_unpack(qp->first);
        out->last = ref_unpack((struct eng_ref){ qp->last_ns, qp->last_where });
    }
    for (unsigned op = 0; op < IB_QP_OP_COUNT; op++)
        out->requests[op] = qp->requests[op];
    out->payload_bytes = qp->payload_bytes;
    out->answers = qp->answers;
    out->ack_rtt.count = qp->rtt_count;
    if (qp->rtt_count) {
        out->ack_rtt.min_ns = qp->rtt_min_ns;
        out->ack_rtt.max_ns = qp->rtt_max_ns;
        out->ack_rtt.median_ns = rtt_quantile(qp, 0.5);
        out->ack_rtt.p99_ns = rtt_quantile(qp, 0.99);
    }
    out->died = qp->died;
    const struct eng_qp_trouble *tr = trouble_if(t, qp);
    if (!tr)
        return;
    for (unsigned c = 0; c < IB_NAK_CODES; c++)
        out->naks[c] = tr->naks[c];
    out->rnr_naks = tr->rnr_naks;
    out->rnr_wait_ns = tr->rnr_wait_ns;
    for (unsigned c = 0; c < IB_RESEND_CAUSE_COUNT; c++)
        out->resends[c] = tr->resends[c];
    out->psn_gaps = tr->psn_gaps;
    out->psns_missing = tr->psns_missing;
}
