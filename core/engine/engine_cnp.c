/* engine_cnp.c - ECN congestion marks and the CNPs that answer them: DCQCN
 * as the wire shows it (docs/wire-audit.md; RoCEv2 CNP: IBA Vol. 1 Annex
 * A17.9.3).
 *
 * A switch marks a RoCEv2 packet CE; its receiver answers with a CNP to the
 * packet's sender, addressed to the sender's own QP: the QP of the direction
 * paired with the marked packet's, which the transport analysis knows
 * (eng_transport_paired_qpn).  A mark waits in its flow (sender, receiver,
 * sender's QPN) for the flow's next CNP: within the window it is answered;
 * past it, that CNP is the first after its window and names the finding's
 * related frame.  A mark no CNP follows is found ENG_CNP_LATE_WAIT_NS after
 * its window, or at the end of the capture; one whose window reaches past
 * the end is not judged (open_at_end).
 */
#include <stdlib.h>
#include <string.h>

#include "engine_cnp.h"
#include "engine_state.h"
#include "engine_transport.h"

#define NO_DEADLINE INT64_MAX

struct flow_key {
    struct eng_node sender, receiver;
    uint32_t sender_qpn;
};

static bool flow_eq(const void *item, const void *key)
{
    const struct eng_cnp_flow *f = item;
    const struct flow_key *k = key;
    return f->sender_qpn == k->sender_qpn && eng_node_eq(&f->sender, &k->sender) &&
           eng_node_eq(&f->receiver, &k->receiver);
}

bool eng_cnp_init(struct ib_engine *e)
{
    struct eng_cnp *c = &e->cnp;
    c->window_ns = (int64_t)e->cfg.cnp_window_us * 1000;
    ep_init(&c->flow_pool, sizeof(struct eng_cnp_flow));
    ep_init(&c->ce_pool, sizeof(struct eng_ce));
    el_init(&c->ce_age);
    c->first_deadline = NO_DEADLINE;
    return et_init(&c->flows, 16, &c->flow_pool);
}

void eng_cnp_destroy(struct ib_engine *e)
{
    struct eng_cnp *c = &e->cnp;
    et_destroy(&c->flows);
    ep_destroy(&c->flow_pool);
    ep_destroy(&c->ce_pool);
}

static struct eng_cnp_flow *flow_at(const struct eng_cnp *c, uint32_t index)
{
    return ep_item(&c->flow_pool, index);
}

/* The flow of a sender's QP to a receiver, made at its first CE mark or CNP;
 * NULL past the cap (counted) or out of memory. */
static struct eng_cnp_flow *flow_get(struct ib_engine *e, const struct ib_endpoint *sender,
                                     const struct ib_endpoint *receiver, uint32_t sender_qpn)
{
    struct eng_cnp *c = &e->cnp;
    struct flow_key k;
    memset(&k, 0, sizeof k);
    k.sender = eng_node_of(sender);
    k.receiver = eng_node_of(receiver);
    k.sender_qpn = sender_qpn;
    uint64_t h = et_hash(&k, sizeof k);
    struct eng_cnp_flow *f = et_find(&c->flows, h, flow_eq, &k);
    if (f)
        return f;
    if (c->flow_count >= e->cfg.max_cnp_flows) {
        e->stats.cnp_flows_dropped++;
        return NULL;
    }
    uint32_t self;
    if (!(f = ep_alloc(&c->flow_pool, &self)))
        return eng_oom(e);
    f->sender = k.sender;
    f->receiver = k.receiver;
    f->sender_qpn = sender_qpn;
    f->self = self;
    f->sender_ep = *sender;
    f->receiver_ep = *receiver;
    el_init(&f->pending);
    if (!et_insert(&c->flows, h, self)) {
        ep_release(&c->flow_pool, f, self);
        return eng_oom(e);
    }
    c->flow_count++;
    return f;
}

static void flow_seen(struct ib_engine *e, struct eng_cnp_flow *f)
{
    struct eng_ref now = ref_pack(e->at);
    if (!f->first.where)
        f->first = now;
    f->last = now;
}

static void event(struct ib_engine *e, enum ib_congestion_event what)
{
    if (e->congestion_sink)
        e->congestion_sink(
            e->congestion_ctx,
            &(struct ib_congestion_change){ what, e->at.time_ns, e->at.capture, 0, e->at.time_ns });
}

static int64_t deadline_of(const struct eng_cnp *c, const struct eng_ce *ce)
{
    return ce->at.time_ns + c->window_ns + ENG_CNP_LATE_WAIT_NS;
}

static void ce_forget(struct eng_cnp *c, struct eng_ce *ce)
{
    el_unlink(&ce->in_flow);
    el_unlink(&ce->age);
    ep_release(&c->ce_pool, ce, ce->self);
    c->ce_count--;
    c->first_deadline = el_empty(&c->ce_age)
                            ? NO_DEADLINE
                            : deadline_of(c, EL_ENTRY(c->ce_age.next, struct eng_ce, age));
}

/* ce_without_cnp on the mark's own frame; related: the first CNP after its
 * window, or none. */
static void unanswered(struct ib_engine *e, struct eng_cnp_flow *f, const struct eng_ce *ce,
                       struct eng_ref cnp)
{
    f->unanswered++;
    struct ib_finding *fd = eng_emit(e, IB_FIND_CE_WITHOUT_CNP,
                                     cnp.where ? ref_unpack(cnp) : (struct ib_frame_ref){ 0 });
    if (!fd)
        return;
    fd->at = ref_unpack(ce->at);
    fd->data.qp.qpn = ce->qpn;
    fd->data.qp.dst = f->receiver_ep;
    fd->data.from = f->sender_ep;
    fd->data.to = f->receiver_ep;
    fd->data.sender_qpn = f->sender_qpn;
    fd->data.window_us = e->cfg.cnp_window_us;
}

void eng_cnp_marked(struct ib_engine *e, const struct ib_packet *p)
{
    struct eng_cnp *c = &e->cnp;
    uint32_t sender_qpn;
    if (p->bth.destqp <= 1 || !eng_transport_paired_qpn(e, &p->dst, p->bth.destqp, &sender_qpn))
        return; /* a MAD, or a QP the transport analysis has not paired */
    struct eng_cnp_flow *f = flow_get(e, &p->src, &p->dst, sender_qpn);
    if (!f)
        return;
    f->ce_marks++;
    f->has_qpn = true;
    f->qpn = p->bth.destqp;
    flow_seen(e, f);
    event(e, IB_EVENT_CE);
    if (c->ce_count >= e->cfg.max_ce_pending) {
        /* The oldest gives way: found now if its window has passed. */
        struct eng_ce *old = EL_ENTRY(c->ce_age.next, struct eng_ce, age);
        if (e->at.time_ns - old->at.time_ns > c->window_ns)
            unanswered(e, flow_at(c, old->flow), old, (struct eng_ref){ 0, 0 });
        else
            e->stats.ce_pending_dropped++;
        ce_forget(c, old);
    }
    uint32_t self;
    struct eng_ce *ce = ep_alloc(&c->ce_pool, &self);
    if (!ce) {
        eng_oom(e);
        return;
    }
    ce->at = ref_pack(e->at);
    ce->flow = f->self;
    ce->self = self;
    ce->qpn = p->bth.destqp;
    el_append(&f->pending, &ce->in_flow);
    el_append(&c->ce_age, &ce->age);
    if (c->ce_count++ == 0)
        c->first_deadline = deadline_of(c, ce);
}

static void delay_add(struct eng_cnp_flow *f, int64_t d)
{
    if (f->answered == 0 || d < f->delay_min)
        f->delay_min = d;
    if (d > f->delay_max)
        f->delay_max = d;
    f->delay_sum += d;
    f->answered++;
}

void eng_cnp_notification(struct ib_engine *e, const struct ib_packet *p)
{
    struct eng_cnp *c = &e->cnp;
    /* From the marked packets' receiver to their sender, at the sender's QP. */
    struct eng_cnp_flow *f = flow_get(e, &p->dst, &p->src, p->bth.destqp);
    if (!f)
        return;
    int64_t now = e->at.time_ns;
    if (!f->has_qpn)
        f->has_qpn = eng_transport_paired_qpn(e, &p->dst, p->bth.destqp, &f->qpn);
    if (f->cnps && (f->cnps == 1 || now - f->last_cnp < f->cnp_gap_min))
        f->cnp_gap_min = now - f->last_cnp;
    if (f->cnps++ == 0)
        f->first_cnp = now;
    f->last_cnp = now;
    flow_seen(e, f);
    event(e, IB_EVENT_CNP);
    struct eng_ref cnp = ref_pack(e->at);
    struct el_link *l = f->pending.next;
    while (l != &f->pending) {
        struct eng_ce *ce = EL_ENTRY(l, struct eng_ce, in_flow);
        l = l->next;
        int64_t d = now - ce->at.time_ns;
        if (d < 0)
            continue; /* a clock stepped back: this CNP came before it */
        if (d <= c->window_ns)
            delay_add(f, d);
        else
            unanswered(e, f, ce, cnp);
        ce_forget(c, ce);
    }
}

void eng_cnp_expire_due(struct ib_engine *e, int64_t now_ns)
{
    struct eng_cnp *c = &e->cnp;
    while (c->first_deadline < now_ns) {
        struct eng_ce *ce = EL_ENTRY(c->ce_age.next, struct eng_ce, age);
        unanswered(e, flow_at(c, ce->flow), ce, (struct eng_ref){ 0, 0 });
        ce_forget(c, ce);
    }
}

bool eng_cnp_has_timers(const struct ib_engine *e)
{
    return e->cnp.ce_count > 0;
}

bool eng_cnp_drain(struct ib_engine *e)
{
    struct eng_cnp *c = &e->cnp;
    int64_t end = e->at.time_ns;
    while (!el_empty(&c->ce_age)) {
        struct eng_ce *ce = EL_ENTRY(c->ce_age.next, struct eng_ce, age);
        struct eng_cnp_flow *f = flow_at(c, ce->flow);
        if (end - ce->at.time_ns <= c->window_ns) {
            f->open_at_end++; /* its CNP may have come after the capture ended */
        } else {
            if (e->out->count >= IB_FRAME_FINDINGS_MAX)
                return false;
            unanswered(e, f, ce, (struct eng_ref){ 0, 0 });
        }
        ce_forget(c, ce);
    }
    return true;
}

/* ---- the statistics ---- */

size_t ib_engine_cnp_count(const struct ib_engine *e)
{
    return e->cnp.flow_count;
}

void ib_engine_cnp(const struct ib_engine *e, size_t i, struct ib_cnp_stats *out)
{
    const struct eng_cnp_flow *f = flow_at(&e->cnp, (uint32_t)i);
    memset(out, 0, sizeof *out);
    out->sender = f->sender_ep;
    out->receiver = f->receiver_ep;
    out->sender_qpn = f->sender_qpn;
    out->has_qpn = f->has_qpn;
    out->qpn = f->has_qpn ? f->qpn : 0;
    out->ce_marks = f->ce_marks;
    out->cnps = f->cnps;
    out->answered = f->answered;
    out->unanswered = f->unanswered;
    out->open_at_end = f->open_at_end;
    out->first = ref_unpack(f->first);
    out->last = ref_unpack(f->last);
    if (f->answered) {
        out->has_delay = true;
        out->delay_min_ns = f->delay_min;
        out->delay_max_ns = f->delay_max;
        out->delay_mean_ns = f->delay_sum / (int64_t)f->answered;
    }
    if (f->cnps >= 2) {
        out->has_cnp_gap = true;
        out->cnp_gap_min_ns = f->cnp_gap_min;
        if (f->last_cnp > f->first_cnp) {
            out->has_cnp_rate = true;
            out->cnp_rate_per_s =
                (double)(f->cnps - 1) * 1e9 / (double)(f->last_cnp - f->first_cnp);
        }
    }
}
