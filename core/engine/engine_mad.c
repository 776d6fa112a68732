/* engine_mad.c - MAD transactions and ClassPortInfo redirect chains.
 *
 * A transaction is a request (R bit clear; not Send, which expects no
 * answer) keyed by (requester node, class, TID) until its response (R bit
 * set, or TrapRepress for a Trap) arrives at the requester.  A redirecting
 * response adds a hop to the chain of (requester, class); the requester's
 * next request of that class shows whether it followed.  CM redirects (REJ
 * 24/25, SIDR_REP 4) come in through eng_mad_redirect() from engine_cm.c.
 */
#include "engine_mad.h"
#include "engine_ref.h"
#include "engine_state.h"
#include "names.h"

#include <stdio.h>
#include <stdlib.h>

static bool gid_is_zero(const uint8_t gid[16])
{
    static const uint8_t zero[16];
    return memcmp(gid, zero, 16) == 0;
}

/* Answered transactions kept to recognise repeated responses. */
#define ENG_ANSWERED_KEEP 4096
/* (node, QP) redirect targets remembered for ib_engine_is_mad_qp(). */
#define ENG_MADQP_MAX 4096

struct txn_key {
    struct eng_node req;
    uint32_t cls;
    uint64_t tid;
};

struct eng_txn {
    struct txn_key key;
    uint64_t hash;
    uint32_t self;      /* its index in its pool (ep_alloc) */
    struct el_link age; /* on the pending or the answered list */
    bool answered;
    struct ib_frame_ref req;
    struct ib_endpoint dst;
    uint32_t dst_qp;
};

struct chain_key {
    struct eng_node req;
    uint32_t cls;
};

struct eng_chain {
    struct ib_redirect_chain pub;
    struct chain_key key;
    uint64_t hash;
    uint32_t self;
    bool awaiting;               /* the latest redirect is not followed yet */
    bool not_followed_reported;  /* once per redirect */
    struct ib_redirect_hop last; /* the latest target (kept past IB_CHAIN_HOPS_MAX) */
    struct ib_endpoint agent;    /* who issued the latest redirect */
    uint32_t agent_qp;
    uint32_t index; /* in chain_list: the report's order */
};

struct madqp_key {
    struct eng_node node;
    uint32_t qp;
};

struct eng_madqp {
    struct madqp_key key;
    uint64_t hash;
    uint32_t self;
    struct el_link age;
};

static bool txn_eq(const void *item, const void *key)
{
    const struct txn_key *a = &((const struct eng_txn *)item)->key, *b = key;
    return a->tid == b->tid && a->cls == b->cls && eng_node_eq(&a->req, &b->req);
}

static bool chain_eq(const void *item, const void *key)
{
    const struct chain_key *a = &((const struct eng_chain *)item)->key, *b = key;
    return a->cls == b->cls && eng_node_eq(&a->req, &b->req);
}

static bool madqp_eq(const void *item, const void *key)
{
    const struct madqp_key *a = &((const struct eng_madqp *)item)->key, *b = key;
    return a->qp == b->qp && eng_node_eq(&a->node, &b->node);
}

bool eng_mad_init(struct ib_engine *e)
{
    struct eng_mad *m = &e->mad;
    ep_init(&m->txn_pool, sizeof(struct eng_txn));
    ep_init(&m->chain_pool, sizeof(struct eng_chain));
    ep_init(&m->madqp_pool, sizeof(struct eng_madqp));
    el_init(&m->pending);
    el_init(&m->answered);
    el_init(&m->madqp_age);
    return et_init(&m->txns, 64, &m->txn_pool) && et_init(&m->chains, 64, &m->chain_pool) &&
           et_init(&m->madqps, 64, &m->madqp_pool);
}

void eng_mad_destroy(struct ib_engine *e)
{
    struct eng_mad *m = &e->mad;
    et_destroy(&m->txns);
    et_destroy(&m->chains);
    et_destroy(&m->madqps);
    ep_destroy(&m->txn_pool);
    ep_destroy(&m->chain_pool);
    ep_destroy(&m->madqp_pool);
    free(m->chain_list);
    m->chain_list = NULL;
}

/* ---- endpoints and targets ---- */

static bool hop_is(const struct ib_redirect_hop *h, const struct ib_endpoint *ep, uint32_t qp)
{
    struct ib_endpoint t = ib_hop_endpoint(h);
    return h->qp == qp && ib_endpoint_same(&t, ep);
}

/* ---- redirect targets that carry MADs ---- */

static void madqp_add_node(struct ib_engine *e, const struct eng_node *n, uint32_t qp)
{
    struct eng_mad *m = &e->mad;
    struct madqp_key k;
    memset(&k, 0, sizeof k);
    k.node = *n;
    k.qp = qp;
    uint64_t h = et_hash(&k, sizeof k);
    if (et_find(&m->madqps, h, madqp_eq, &k))
        return;
    if (m->madqp_count >= ENG_MADQP_MAX) {
        struct eng_madqp *old = EL_ENTRY(m->madqp_age.next, struct eng_madqp, age);
        et_remove(&m->madqps, old->hash, old->self);
        el_unlink(&old->age);
        ep_release(&m->madqp_pool, old, old->self);
        m->madqp_count--;
    }
    uint32_t self;
    struct eng_madqp *q = ep_alloc(&m->madqp_pool, &self);
    if (!q) {
        eng_oom(e);
        return;
    }
    if (!et_insert(&m->madqps, h, self)) {
        ep_release(&m->madqp_pool, q, self);
        eng_oom(e);
        return;
    }
    q->self = self;
    q->key = k;
    q->hash = h;
    el_append(&m->madqp_age, &q->age);
    m->madqp_count++;
}

static void madqp_add(struct ib_engine *e, const struct ib_redirect_hop *h)
{
    struct ib_endpoint ep;
    memset(&ep, 0, sizeof ep);
    if (h->lid) {
        ep.lid = h->lid;
        struct eng_node n = eng_node_of(&ep);
        madqp_add_node(e, &n, h->qp);
    }
    if (!gid_is_zero(h->gid)) {
        ep.lid = 0;
        ep.has_gid = true;
        memcpy(ep.gid, h->gid, 16);
        struct eng_node n = eng_node_of(&ep);
        madqp_add_node(e, &n, h->qp);
    }
}

static bool madqp_has(const struct ib_engine *e, const struct eng_node *n, uint32_t qp)
{
    struct madqp_key k;
    memset(&k, 0, sizeof k);
    k.node = *n;
    k.qp = qp;
    return et_find(&e->mad.madqps, et_hash(&k, sizeof k), madqp_eq, &k) != NULL;
}

bool ib_engine_is_mad_qp(void *engine, const struct ib_endpoint *dst, uint32_t qp)
{
    const struct ib_engine *e = engine;
    if (!e || !dst)
        return false;
    struct ib_endpoint ep;
    memset(&ep, 0, sizeof ep);
    if (dst->lid) {
        ep.lid = dst->lid;
        struct eng_node n = eng_node_of(&ep);
        if (madqp_has(e, &n, qp))
            return true;
    }
    if (dst->has_gid) {
        ep.lid = 0;
        ep.has_gid = true;
        memcpy(ep.gid, dst->gid, 16);
        struct eng_node n = eng_node_of(&ep);
        if (madqp_has(e, &n, qp))
            return true;
    }
    return false;
}

/* ---- chains ---- */

static struct chain_key chain_key_make(const struct ib_endpoint *requester, uint8_t cls)
{
    struct chain_key k;
    memset(&k, 0, sizeof k);
    k.req = eng_node_of(requester);
    k.cls = cls;
    return k;
}

static struct eng_chain *chain_find(struct ib_engine *e, const struct ib_endpoint *requester,
                                    uint8_t cls)
{
    struct chain_key k = chain_key_make(requester, cls);
    return et_find(&e->mad.chains, et_hash(&k, sizeof k), chain_eq, &k);
}

static struct eng_chain *chain_new(struct ib_engine *e, const struct eng_redirect_src *src)
{
    struct eng_mad *m = &e->mad;
    if (m->chain_count >= e->cfg.max_chains) {
        e->stats.chains_dropped++;
        return NULL;
    }
    if (m->chain_count == m->chain_cap) {
        size_t cap = m->chain_cap ? m->chain_cap * 2 : 16;
        struct ib_redirect_chain **l = realloc(m->chain_list, cap * sizeof *l);
        if (!l)
            return eng_oom(e);
        m->chain_list = l;
        m->chain_cap = cap;
    }
    uint32_t self;
    struct eng_chain *c = ep_alloc(&m->chain_pool, &self);
    if (!c)
        return eng_oom(e);
    c->self = self;
    c->key = chain_key_make(src->requester, src->mgmt_class);
    c->hash = et_hash(&c->key, sizeof c->key);
    if (!et_insert(&m->chains, c->hash, self)) {
        ep_release(&m->chain_pool, c, self);
        return eng_oom(e);
    }
    c->pub.requester = *src->requester;
    c->pub.mgmt_class = src->mgmt_class;
    c->pub.origin = *src->agent;
    c->pub.origin_qp = src->agent_qp;
    c->pub.first_request = src->request;
    c->index = (uint32_t)m->chain_count;
    m->chain_list[m->chain_count++] = &c->pub;
    return c;
}

static bool same_target(const struct ib_redirect_hop *a, const struct ib_redirect_hop *b)
{
    return a->lid == b->lid && a->qp == b->qp && memcmp(a->gid, b->gid, 16) == 0;
}

/* The frame a new target loops back to: the chain's first request for its
 * origin, or the redirect that named an earlier hop.  NULL: no loop. */
static const struct ib_frame_ref *loop_target(const struct eng_chain *c,
                                              const struct ib_redirect_hop *h)
{
    struct ib_endpoint t = ib_hop_endpoint(h);
    if (h->qp == c->pub.origin_qp && ib_endpoint_same(&t, &c->pub.origin))
        return &c->pub.first_request;
    for (unsigned i = 0; i < c->pub.hop_count; i++)
        if (hop_is(&c->pub.hops[i], &t, h->qp))
            return &c->pub.hops[i].frame;
    return NULL;
}

/* A redirect finding with what it is about. */
static struct ib_finding *redirect_emit(struct ib_engine *e, enum ib_finding_kind kind,
                                        struct ib_frame_ref related,
                                        const struct ib_finding_data *about)
{
    struct ib_finding *f = eng_emit(e, kind, related);
    if (f)
        f->data = *about;
    return f;
}

/* redirect, redirect_gid_only, redirect_bad_target: what the target is. */
static void target_findings(struct ib_engine *e, const struct eng_redirect_src *src,
                            struct ib_finding_data *about)
{
    const struct ib_redirect_hop *hop = &about->target;
    bool gid_zero = gid_is_zero(hop->gid);
    redirect_emit(e, IB_FIND_REDIRECT, src->request, about);
    if (hop->lid == 0 && !gid_zero)
        redirect_emit(e, IB_FIND_REDIRECT_GID_ONLY, src->request, about);
    bool no_addr = hop->lid == 0 && gid_zero;
    about->problems = (no_addr ? IB_TARGET_NO_ADDRESS : 0) | (hop->qp == 0 ? IB_TARGET_QP0 : 0) |
                      ((hop->pkey & 0x7fff) == 0 ? IB_TARGET_NO_PKEY : 0);
    if (about->problems)
        redirect_emit(e, IB_FIND_REDIRECT_BAD_TARGET, src->request, about);
    about->problems = 0;
    if (!no_addr && hop->qp > 1)
        madqp_add(e, hop);
}

/* The chain this redirect belongs to (NULL past the cap); *repeat when the
 * same agent only repeats its last redirect (it was not followed). */
static struct eng_chain *chain_for(struct ib_engine *e, const struct eng_redirect_src *src,
                                   const struct ib_redirect_hop *hop, bool *repeat)
{
    struct eng_chain *c = chain_find(e, src->requester, src->mgmt_class);
    *repeat = false;
    if (c && c->pub.hop_count + c->pub.hops_dropped > 0) {
        if (same_target(&c->last, hop) && src->agent_qp == c->agent_qp &&
            ib_endpoint_same(&c->agent, src->agent)) {
            *repeat = true;
            return c;
        }
        /* A redirect extends the chain only when it comes from where the
         * chain led; otherwise the requester started over elsewhere. */
        if (!hop_is(&c->last, src->agent, src->agent_qp)) {
            et_remove(&e->mad.chains, c->hash, c->self);
            c = NULL;
        }
    }
    return c ? c : chain_new(e, src);
}

/* Called after every change to the chain, so that the report's end is
 * what the engine saw last. */
static void chain_set_end(struct eng_chain *c)
{
    c->pub.end = c->pub.loop                 ? IB_CHAIN_LOOP
                 : c->pub.final_answer.frame ? IB_CHAIN_ANSWERED
                 : c->awaiting               ? IB_CHAIN_NOT_FOLLOWED
                                             : IB_CHAIN_NO_ANSWER;
}

static void link_chain(struct ib_engine *e, const struct eng_chain *c)
{
    e->out->links.has_chain = true;
    e->out->links.chain = c->index;
}

static void set_depth(struct ib_engine *e, const struct eng_chain *c)
{
    e->out->links.has_redirect_depth = true;
    e->out->links.redirect_depth = c->pub.hop_count + c->pub.hops_dropped;
    link_chain(e, c);
}

void eng_mad_redirect(struct ib_engine *e, const struct eng_redirect_src *src,
                      const struct ib_cpi *cpi)
{
    struct ib_redirect_hop hop;
    memset(&hop, 0, sizeof hop);
    hop.lid = cpi->redirect_lid;
    memcpy(hop.gid, cpi->redirect_gid, 16);
    hop.qp = cpi->redirect_qp;
    hop.qkey = cpi->redirect_qkey;
    hop.pkey = cpi->redirect_pkey;
    hop.frame = e->at;
    bool repeat;
    struct eng_chain *c = chain_for(e, src, &hop, &repeat);
    struct ib_finding_data about;
    memset(&about, 0, sizeof about);
    about.mgmt_class = src->mgmt_class;
    about.cm_attr = src->cm_attr;
    about.reject_reason = src->reject_reason;
    about.target = hop;
    about.sl = cpi->redirect_sl;
    about.has_chain = c != NULL;
    about.chain = c ? c->index : 0;
    target_findings(e, src, &about);
    if (repeat) { /* no new hop, nothing loops */
        c->awaiting = true;
        chain_set_end(c);
        set_depth(e, c);
        return;
    }
    const struct ib_frame_ref *loop = NULL;
    struct ib_frame_ref agent_frame = src->request;
    if (c) {
        loop = loop_target(c, &hop);
    } else {
        /* Untracked (chain cap): a target equal to its agent is still a loop. */
        struct ib_endpoint t = ib_hop_endpoint(&hop);
        if (hop.qp == src->agent_qp && ib_endpoint_same(&t, src->agent))
            loop = &agent_frame;
    }
    if (loop) {
        about.hops = c ? c->pub.hop_count + c->pub.hops_dropped + 1 : 1;
        if (redirect_emit(e, IB_FIND_REDIRECT_LOOP, *loop, &about))
            e->out->links.redirect_loop_to = *loop;
        if (c)
            c->pub.loop = true;
    }
    if (!c)
        return;
    if (c->pub.hop_count < IB_CHAIN_HOPS_MAX)
        c->pub.hops[c->pub.hop_count++] = hop;
    else
        c->pub.hops_dropped++;
    c->last = hop;
    c->awaiting = true;
    c->not_followed_reported = false;
    c->agent = *src->agent;
    c->agent_qp = src->agent_qp;
    chain_set_end(c);
    set_depth(e, c);
}

void eng_mad_follow(struct ib_engine *e, const struct ib_packet *p, uint8_t cls)
{
    if (e->mad.chains.count == 0)
        return; /* the common case: no redirect in progress */
    struct eng_chain *c = chain_find(e, &p->src, cls);
    if (!c || !c->awaiting)
        return;
    uint32_t qp = ib_packet_has(p, IB_HAS_BTH) ? p->bth.destqp : 1;
    const struct ib_redirect_hop *h = &c->last;
    unsigned depth = c->pub.hop_count + c->pub.hops_dropped;
    struct ib_finding_data about;
    memset(&about, 0, sizeof about);
    about.mgmt_class = cls;
    about.target = *h;
    about.has_chain = true;
    about.chain = c->index;
    if (hop_is(h, &p->dst, qp)) {
        c->awaiting = false;
        c->pub.followed = true;
        chain_set_end(c);
        e->out->links.redirected_by = h->frame;
        e->out->links.has_redirect_depth = true;
        e->out->links.redirect_depth = depth;
        link_chain(e, c);
        about.hops = depth;
        redirect_emit(e, IB_FIND_REDIRECT_FOLLOWED, h->frame, &about);
        bool qkey_bad = ib_packet_has(p, IB_HAS_DETH) && p->deth.qkey != h->qkey;
        bool pkey_bad =
            ib_packet_has(p, IB_HAS_BTH) && (p->bth.pkey & 0x7fff) != (h->pkey & 0x7fff);
        if (qkey_bad || pkey_bad) {
            about.problems = (qkey_bad ? IB_KEY_QKEY : 0) | (pkey_bad ? IB_KEY_PKEY : 0);
            about.qkey = qkey_bad ? p->deth.qkey : 0;
            about.pkey = pkey_bad ? p->bth.pkey : 0;
            redirect_emit(e, IB_FIND_REDIRECT_KEY_MISMATCH, h->frame, &about);
        }
        return;
    }
    if (c->not_followed_reported)
        return;
    if ((qp == c->agent_qp && ib_endpoint_same(&c->agent, &p->dst)) ||
        (qp == c->pub.origin_qp && ib_endpoint_same(&c->pub.origin, &p->dst))) {
        c->not_followed_reported = true;
        about.sent_to = p->dst;
        about.sent_to_qp = qp;
        redirect_emit(e, IB_FIND_REDIRECT_NOT_FOLLOWED, h->frame, &about);
    }
}

void eng_mad_answer(struct ib_engine *e, const struct ib_packet *p, uint8_t cls)
{
    if (e->mad.chains.count == 0)
        return;
    struct eng_chain *c = chain_find(e, &p->dst, cls);
    if (!c)
        return;
    struct ib_endpoint t = ib_hop_endpoint(&c->last);
    if (!ib_endpoint_same(&t, &p->src))
        return;
    c->pub.final_answer = e->at;
    c->awaiting = false;
    chain_set_end(c);
    link_chain(e, c);
    /* The chain is complete: out of the index, kept for the report. */
    et_remove(&e->mad.chains, c->hash, c->self);
}

/* ---- transactions ---- */

static void txn_free(struct ib_engine *e, struct eng_txn *t)
{
    et_remove(&e->mad.txns, t->hash, t->self);
    el_unlink(&t->age);
    if (t->answered)
        e->mad.answered_count--;
    else
        e->mad.pending_count--;
    ep_release(&e->mad.txn_pool, t, t->self);
}

static void txn_request(struct ib_engine *e, const struct ib_packet *p)
{
    struct eng_mad *m = &e->mad;
    struct txn_key k;
    memset(&k, 0, sizeof k);
    k.req = eng_node_of(&p->src);
    k.cls = p->mad.mgmt_class;
    k.tid = p->mad.tid;
    uint64_t h = et_hash(&k, sizeof k);
    struct eng_txn *t = et_find(&m->txns, h, txn_eq, &k);
    if (t && !t->answered) {
        /* A retry: keep the first request's frame. */
        t->dst = p->dst;
        t->dst_qp = ib_packet_has(p, IB_HAS_BTH) ? p->bth.destqp : 1;
        return;
    }
    if (t)
        txn_free(e, t); /* TID reused after its answer: a new transaction */
    while (m->pending_count > 0 && m->pending_count >= e->cfg.max_transactions) {
        e->stats.transactions_evicted++;
        txn_free(e, EL_ENTRY(m->pending.next, struct eng_txn, age));
    }
    uint32_t self;
    t = ep_alloc(&m->txn_pool, &self);
    if (!t) {
        eng_oom(e);
        return;
    }
    if (!et_insert(&m->txns, h, self)) {
        ep_release(&m->txn_pool, t, self);
        eng_oom(e);
        return;
    }
    t->self = self;
    t->key = k;
    t->hash = h;
    t->req = e->at;
    t->dst = p->dst;
    t->dst_qp = ib_packet_has(p, IB_HAS_BTH) ? p->bth.destqp : 1;
    el_append(&m->pending, &t->age);
    m->pending_count++;
}

static void txn_answered(struct ib_engine *e, struct eng_txn *t)
{
    struct eng_mad *m = &e->mad;
    el_unlink(&t->age);
    m->pending_count--;
    t->answered = true;
    el_append(&m->answered, &t->age);
    m->answered_count++;
    size_t keep =
        e->cfg.max_transactions < ENG_ANSWERED_KEEP ? e->cfg.max_transactions : ENG_ANSWERED_KEEP;
    while (m->answered_count > keep)
        txn_free(e, EL_ENTRY(m->answered.next, struct eng_txn, age));
}

void eng_mad_feed(struct ib_engine *e, const struct ib_packet *p)
{
    const struct ib_mad *mad = &p->mad;
    uint8_t cls = mad->mgmt_class;
    bool response = mad->response || mad->method == IB_METHOD_TRAP_REPRESS;
    if (!response) {
        if (mad->method != IB_METHOD_SEND)
            txn_request(e, p);
        eng_mad_follow(e, p, cls);
        return;
    }
    struct txn_key k;
    memset(&k, 0, sizeof k);
    k.req = eng_node_of(&p->dst);
    k.cls = cls;
    k.tid = mad->tid;
    struct eng_txn *t = et_find(&e->mad.txns, et_hash(&k, sizeof k), txn_eq, &k);
    if (t && t->answered)
        return;                                                         /* a repeated response */
    bool smp = cls == IB_CLASS_SMP_LID || cls == IB_CLASS_SMP_DIRECTED; /* never redirected */
    if (mad->status_redirect && ib_packet_has(p, IB_HAS_CPI) && !smp) {
        struct eng_redirect_src rs;
        memset(&rs, 0, sizeof rs);
        rs.requester = &p->dst;
        rs.mgmt_class = cls;
        rs.agent = t ? &t->dst : &p->src;
        rs.agent_qp = t ? t->dst_qp : ib_packet_has(p, IB_HAS_DETH) ? p->deth.srcqp : 1;
        if (t)
            rs.request = t->req;
        eng_mad_redirect(e, &rs, &p->cpi);
    } else if (!mad->status_redirect && !mad->status_busy) {
        eng_mad_answer(e, p, cls);
    }
    if (t)
        txn_answered(e, t);
}

size_t ib_engine_chain_count(const struct ib_engine *e)
{
    return e->mad.chain_count;
}

const struct ib_redirect_chain *ib_engine_chain(const struct ib_engine *e, size_t i)
{
    return i < e->mad.chain_count ? e->mad.chain_list[i] : NULL;
}

const char *ib_chain_end_name(enum ib_chain_end end)
{
    const char *name = ib_name_lookup(ib_chain_end_names, end);
    return name ? name : "unknown";
}

enum ib_chain_end ib_chain_end_by_name(const char *name)
{
    for (const struct ib_value_name *n = ib_chain_end_names; name && n->name; n++)
        if (strcmp(n->name, name) == 0)
            return (enum ib_chain_end)n->value;
    return IB_CHAIN_END_COUNT;
}
