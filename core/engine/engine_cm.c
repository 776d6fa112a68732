/* engine_cm.c - CM connections as the Linux kernel's CM keeps them.
 *
 * Identity (cm.c: cm_req_handler, cm_match_req, cm_acquire_id): a REQ is a
 * copy of an earlier one with the same (LocalCommID, LocalCAGUID) from the
 * same node while that connection is findable; every later message names
 * the connection by its comm IDs, the active side's (sent from the active
 * node, or to it) and, once an answer told it, the passive side's.  After
 * path migration (cm_migrate) the messages travel the alternate path,
 * which the REQ (or a LAP) names.  So one table keys connections by (active
 * node, LocalCommID), and another, for those with an alternate path, by
 * (its active LID, LocalCommID).
 *
 * Life: each message that awaits an answer (REQ, REP, DREQ) gives its sender
 * a timeout, carried in the REQ; a copy of it restarts the wait; when the
 * wait runs out the kernel gives up (cm_process_send_error: REQ_ERROR,
 * REP_ERROR, DREQ_ERROR) and the connection's port is free again.  An ended
 * connection (REJ, DREP, given up) stays findable until the last copy its
 * peers may still send could have come, so that a late REQ or DREQ and the
 * answer to it are linked to it, not taken for new connections; then it is
 * reported and forgotten.  The timers are a binary heap of due times, one
 * entry a connection, checked as each frame's time passes them.
 */
#include "engine_cm.h"
#include "engine_latency.h"
#include "engine_mad.h"
#include "engine_ports.h"
#include "engine_ref.h"
#include "engine_state.h"

#include <stdlib.h>

#include "cm.h"

/* What a connection waits for. */
enum conn_wait {
    W_NONE,   /* established, or nothing to wait for */
    W_ANSWER, /* its REQ sent: a REP, REJ or MRA */
    W_RTU,    /* its REP sent: the RTU */
    W_DREP,   /* its DREQ sent: the DREP */
    W_ENDED,  /* over: kept until its peers' last copies could have come */
};

/* How a connection ended, for the record and for copies of the last message. */
enum conn_end_by { END_NONE, END_REJ, END_DREP, END_SIDR_REP, END_GAVE_UP };

#define NO_TIME INT64_MAX

/* What few connections need, apart (cm.extra_pool) so that the records
 * every message touches stay small: the rare messages, the latest copy of
 * a message sent more than once, the alternate path, a REQ's DestQP other
 * than 1. */
struct conn_extra {
    struct eng_ref mra, lap, apr;
    struct eng_ref last_req; /* the latest copy of its REQ, with req_copies > 1 */
    struct eng_ref last;     /* the latest copy of its REP or DREQ, with copies > 1 */
    uint32_t req_qp;         /* DestQP of the REQ */
    uint32_t alt_hash;       /* with in_alts */
    uint16_t alt_lid;        /* the alternate path's LID on the active side */
    bool in_alts;
};

/* A connection, kept compact (a capture may hold millions open): the frames
 * of its exchange that copies can link to, and the record built from it
 * only when it is reported (conn_record).  Its key is (node of `active`,
 * hold.comm_id, sidr) and, with an alternate path, (alt_lid, hold.comm_id). */
struct eng_conn {
    /* What the timers' heap checks (due_live) in its first line, but not in
     * its first 16 bytes, which the pool's free list takes once it is freed. */
    int64_t deadline; /* its wait runs out (NO_TIME: none) */
    uint32_t remote_comm_id;
    uint32_t frames_from_active;
    uint32_t index;      /* ib_connection_record.index */
    uint16_t wait : 3;   /* enum conn_wait */
    uint16_t end_by : 3; /* enum conn_end_by */
    uint16_t live : 1;   /* 0 once freed: the heap's stale entries see it */
    uint16_t sidr : 1;
    uint16_t has_tuple : 1;
    uint16_t has_remote : 1; /* remote_comm_id known */
    uint16_t last_dreq : 1;  /* with copies 1, the latest copy is `dreq`, else `rep` */
    uint16_t counted_closed : 1;
    uint16_t dreq_by_passive : 1;
    uint16_t drep_by_passive : 1;
    uint16_t timed_out : 1;
    uint8_t state;       /* enum ib_conn_state */
    uint8_t max_retries; /* the REQ's MaxCMRetries */
    int64_t due;         /* its earliest entry in the timers' heap (NO_TIME: none) */
    /* Then what every message of it reads or writes: its key and what
     * links a frame to it (link_conn), the frames its messages' copies
     * link to. */
    struct ib_endpoint active; /* the key's node */
    uint32_t frames_from_passive;
    uint16_t req_copies, copies; /* of its REQ; of its REP or DREQ (last_of) */
    uint8_t ack_t;               /* the REQ's timeouts as sent: LocalACKTimeout */
    uint8_t rresp_t;             /* (PacketLifeTime + 1), RemoteCMResponseTimeout, */
    uint8_t lresp_t;             /* LocalCMResponseTimeout */
    struct ib_tuple ip_tuple;    /* valid with has_tuple */
    uint64_t service_id;
    struct eng_ref rep, rtu, dreq;
    struct eng_hold hold; /* hold.req: its first REQ; hold.comm_id: LocalCommID */
    /* What its start, its end and its report need. */
    struct eng_ref end; /* the REJ or DREP that ended it */
    struct ib_endpoint passive;
    uint32_t hash; /* its key's, low 32 bits */
    uint64_t ca_guid;
    struct el_link age; /* in cm.age while open, cm.ended after */
    uint32_t self;      /* its index in the pool */
    uint32_t retransmissions;
    uint32_t extra; /* its conn_extra's pool index + 1; 0: none */
    uint16_t reject_reason;
};

static bool is_waiting(unsigned wait)
{
    return wait == W_ANSWER || wait == W_RTU || wait == W_DREP;
}

/* c now waits for this (cm.waiting counts the open ones that wait). */
static void set_wait(struct ib_engine *e, struct eng_conn *c, enum conn_wait wait)
{
    e->cm.waiting += is_waiting(wait);
    e->cm.waiting -= is_waiting(c->wait);
    c->wait = wait;
}

/* Asks for all of c's cache lines. */
static void conn_prefetch(const struct eng_conn *c)
{
    for (size_t o = 0; o < sizeof *c; o += 64)
        __builtin_prefetch((const char *)c + o);
    __builtin_prefetch((const char *)c + sizeof *c - 1);
}

/* ---- the rare parts ---- */

static struct conn_extra *extra_of(const struct ib_engine *e, const struct eng_conn *c)
{
    return c->extra ? ep_item(&e->cm.extra_pool, c->extra - 1) : NULL;
}

/* c's conn_extra, made when it has none; NULL when memory ran out (counted:
 * what it would have held is then lost). */
static struct conn_extra *extra_need(struct ib_engine *e, struct eng_conn *c)
{
    if (c->extra)
        return ep_item(&e->cm.extra_pool, c->extra - 1);
    uint32_t i;
    struct conn_extra *x = ep_alloc(&e->cm.extra_pool, &i);
    if (!x)
        return eng_oom(e);
    x->req_qp = 1;
    c->extra = i + 1;
    return x;
}

/* The latest copy of c's REQ. */
static struct eng_ref last_req_of(const struct ib_engine *e, const struct eng_conn *c)
{
    const struct conn_extra *x = extra_of(e, c);
    return c->req_copies > 1 && x ? x->last_req : c->hold.req;
}

/* The latest copy of c's REP or DREQ, whichever `copies` counts. */
static struct eng_ref last_of(const struct ib_engine *e, const struct eng_conn *c)
{
    const struct conn_extra *x = extra_of(e, c);
    if (c->copies > 1 && x)
        return x->last;
    return c->last_dreq ? c->dreq : c->rep;
}

/* The frame of c's first message of this kind (MRA, LAP, APR), where 0: none. */
static struct eng_ref rare_of(const struct ib_engine *e, const struct eng_conn *c, uint16_t attr)
{
    static const struct eng_ref none;
    const struct conn_extra *x = extra_of(e, c);
    if (!x)
        return none;
    return attr == IB_CM_MRA ? x->mra : attr == IB_CM_LAP ? x->lap : x->apr;
}

/* ---- the kernel's timing ---- */

/* cm_convert_to_ms: 4.096 us x 2^t, taken as 2^(t - 8) ms, at least 1. */
static uint32_t cm_ms(unsigned t)
{
    return 1u << (t > 8 ? (t > 31 ? 23 : t - 8) : 0);
}

/* rdma_cm's SIDR: cma_resolve_ib_udp's timeout (CMA_CM_RESPONSE_TIMEOUT 20)
 * and CMA_MAX_CM_RETRIES, which no SIDR_REQ carries. */
#define SIDR_WAIT_MS  4096u
#define SIDR_RETRIES  15u
#define LINGER_MIN_MS 1000u /* an answer's copy can trail its request's */

/* A sender waits this long for the answer before it sends again or, its
 * retries spent, gives up: exactly, as the kernel's timer does.  Seen from
 * elsewhere than the sender, the path delay only makes the wait look
 * longer, never shorter. */
static int64_t wait_ns(uint32_t ms)
{
    return (int64_t)ms * 1000000;
}

/* When the sender of a message gives up, `copies` of it seen, the latest
 * at last_ns: one wait after its last send, 1 + MaxCMRetries sends in all.
 * Copies the capture missed (lost before it, or filtered) still count:
 * the sender gives up only when its retries are spent. */
static int64_t give_up_at(const struct eng_conn *c, int64_t last_ns, unsigned copies,
                          uint32_t wait_ms)
{
    unsigned sends = c->max_retries + 1u;
    unsigned left = copies < sends ? sends - copies : 0;
    return last_ns + (int64_t)(left + 1) * wait_ns(wait_ms);
}

/* The REQ's timing: the active side's wait (ib_send_cm_req: 2 x
 * PacketLifeTime + RemoteCMResponseTimeout; the REQ carries PacketLifeTime
 * + 1 as its LocalACKTimeout, cm_ack_timeout), the passive side's
 * (cm_req_handler: LocalCMResponseTimeout), and MaxCMRetries. */
static void timing_of(struct eng_conn *c, const struct ib_cm *cm)
{
    if (c->sidr) {
        c->max_retries = SIDR_RETRIES;
        return;
    }
    const struct ib_cm_req *r = &cm->u.req;
    c->ack_t = r->primary.local_ack_timeout;
    c->rresp_t = r->remote_cm_resp_timeout;
    c->lresp_t = r->local_cm_resp_timeout;
    c->max_retries = r->max_cm_retries;
}

/* The active side's wait, in ms. */
static uint32_t act_wait_ms(const struct eng_conn *c)
{
    if (c->sidr)
        return SIDR_WAIT_MS;
    return 2 * cm_ms(c->ack_t ? c->ack_t - 1u : 0) + cm_ms(c->rresp_t);
}

/* The passive side's wait, in ms. */
static uint32_t pas_wait_ms(const struct eng_conn *c)
{
    return c->sidr ? SIDR_WAIT_MS : cm_ms(c->lresp_t);
}

/* ---- the timers: a binary min-heap of due times ---- */

static bool due_before(const struct eng_due *a, const struct eng_due *b)
{
    return a->at_ns < b->at_ns;
}

static void heap_up(struct eng_due *h, size_t i)
{
    struct eng_due x = h[i];
    while (i > 0 && due_before(&x, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = x;
}

static void heap_down(struct eng_due *h, size_t n, size_t i)
{
    struct eng_due x = h[i];
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        const struct eng_due *best = &x;
        if (l < n && due_before(&h[l], best))
            best = &h[m = l];
        if (l + 1 < n && due_before(&h[l + 1], best))
            m = l + 1;
        if (m == i)
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = x;
}

/* Whether a heap entry is still its connection's earliest. */
static bool due_live(const struct eng_cm *cm, const struct eng_due *d)
{
    const struct eng_conn *c = ep_item(&cm->conn_pool, d->self);
    return c->live && c->index == d->index && c->due == d->at_ns;
}

/* ---- the timers: most come due in the order they are set ---- */

/* Entry i of the FIFO. */
static struct eng_due *ring_at(const struct eng_cm *cm, size_t i)
{
    return &cm->ring[(cm->ring_head + i) & (cm->ring_cap - 1)];
}

/* Entries outlive their connections (freed, or their deadline moved
 * earlier): past twice the connections kept, the stale ones go, so that
 * the timers are bounded by the connection caps, not by how many were
 * opened within the longest wait. */
static void timers_compact(struct eng_cm *cm)
{
    size_t n = 0;
    for (size_t i = 0; i < cm->heap_len; i++)
        if (due_live(cm, &cm->heap[i]))
            cm->heap[n++] = cm->heap[i];
    cm->heap_len = n;
    for (size_t i = n / 2; i-- > 0;)
        heap_down(cm->heap, n, i);
    n = 0;
    for (size_t i = 0; i < cm->ring_count; i++)
        if (due_live(cm, ring_at(cm, i)))
            *ring_at(cm, n++) = *ring_at(cm, i);
    cm->ring_count = n;
}

/* Appends d to the FIFO, false when memory ran out. */
static bool ring_push(struct eng_cm *cm, struct eng_due d)
{
    if (cm->ring_count == cm->ring_cap) {
        size_t cap = cm->ring_cap ? cm->ring_cap * 2 : 256;
        struct eng_due *r = malloc(cap * sizeof *r);
        if (!r)
            return false;
        for (size_t i = 0; i < cm->ring_count; i++)
            r[i] = *ring_at(cm, i);
        free(cm->ring);
        cm->ring = r;
        cm->ring_cap = cap;
        cm->ring_head = 0;
    }
    cm->ring_count++;
    *ring_at(cm, cm->ring_count - 1) = d;
    return true;
}

/* After a change to the FIFO or the heap: how many, and the earliest. */
static void timers_counted(struct eng_cm *cm)
{
    cm->heap_count = cm->heap_len + cm->ring_count;
    int64_t t = cm->ring_count ? ring_at(cm, 0)->at_ns : NO_TIME;
    if (cm->heap_len && cm->heap[0].at_ns < t)
        t = cm->heap[0].at_ns;
    cm->first_due = t;
}

static bool heap_push(struct eng_cm *cm, struct eng_due d)
{
    if (cm->heap_len == cm->heap_cap) {
        size_t cap = cm->heap_cap ? cm->heap_cap * 2 : 256;
        struct eng_due *h = realloc(cm->heap, cap * sizeof *h);
        if (!h)
            return false;
        cm->heap = h;
        cm->heap_cap = cap;
    }
    cm->heap[cm->heap_len] = d;
    heap_up(cm->heap, cm->heap_len++);
    return true;
}

/* c's wait runs out at t (NO_TIME: none).  The timers hold one entry per
 * connection at its earliest due time; a later deadline is found when that
 * entry comes up, so moving a deadline on costs nothing.  An entry due no
 * earlier than the FIFO's last goes at its end (most do: a REQ's wait is
 * its time plus the same timeouts as the REQs before it); others go to the
 * heap. */
static void set_deadline(struct ib_engine *e, struct eng_conn *c, int64_t t)
{
    struct eng_cm *cm = &e->cm;
    c->deadline = t;
    if (t == NO_TIME || t >= c->due)
        return;
    if (cm->heap_len + cm->ring_count >= 2 * cm->conn_count + 1024)
        timers_compact(cm);
    struct eng_due d = { t, c->self, c->index };
    bool in_order = cm->ring_count == 0 || t >= ring_at(cm, cm->ring_count - 1)->at_ns;
    bool pushed = in_order ? ring_push(cm, d) : heap_push(cm, d);
    timers_counted(cm);
    if (!pushed) {
        /* Without a timer the connection waits to the end: counted. */
        eng_oom(e);
        return;
    }
    c->due = t;
}

static void extend_deadline(struct ib_engine *e, struct eng_conn *c, int64_t t)
{
    if (c->deadline == NO_TIME || t > c->deadline)
        set_deadline(e, c, t);
}

/* ---- keys ---- */

struct conn_key {
    struct eng_node node;
    uint32_t comm_id;
    uint32_t sidr;
};

/* A lookup: the key, and for a REQ the LocalCAGUID that must match too. */
struct conn_find {
    struct conn_key k;
    bool by_guid;
    uint64_t guid;
};

static struct conn_key conn_key_make(const struct ib_endpoint *node, uint32_t comm_id, bool sidr)
{
    struct conn_key k;
    memset(&k, 0, sizeof k);
    k.node = eng_node_of(node);
    k.comm_id = comm_id;
    k.sidr = sidr;
    return k;
}

static bool conn_eq(const void *item, const void *key)
{
    const struct eng_conn *c = item;
    const struct conn_find *f = key;
    if (c->hold.comm_id != f->k.comm_id || c->sidr != f->k.sidr)
        return false;
    if (f->by_guid && c->ca_guid != f->guid)
        return false;
    struct eng_node n = eng_node_of(&c->active);
    return eng_node_eq(&n, &f->k.node);
}

struct alt_key {
    uint32_t comm_id;
    uint32_t lid;
};

struct alt_find {
    struct alt_key k;
    const struct ep_pool *extras;
};

static bool alt_eq(const void *item, const void *key)
{
    const struct eng_conn *c = item;
    const struct alt_find *f = key;
    if (c->hold.comm_id != f->k.comm_id || !c->extra)
        return false;
    const struct conn_extra *x = ep_item(f->extras, c->extra - 1);
    return x->in_alts && x->alt_lid == f->k.lid;
}

static uint64_t alt_hash(uint32_t comm_id, uint16_t lid)
{
    struct alt_key k = { comm_id, lid };
    return et_hash(&k, sizeof k);
}

/* ---- setup ---- */

bool eng_cm_init(struct ib_engine *e)
{
    struct eng_cm *cm = &e->cm;
    ep_init(&cm->conn_pool, sizeof(struct eng_conn));
    ep_init(&cm->extra_pool, sizeof(struct conn_extra));
    el_init(&cm->age);
    el_init(&cm->ended);
    cm->first_due = NO_TIME;
    return et_init(&cm->conns, 64, &cm->conn_pool) && et_init(&cm->alts, 64, &cm->conn_pool);
}

void eng_cm_destroy(struct ib_engine *e)
{
    struct eng_cm *cm = &e->cm;
    et_destroy(&cm->conns);
    et_destroy(&cm->alts);
    ep_destroy(&cm->conn_pool);
    ep_destroy(&cm->extra_pool);
    free(cm->heap);
    cm->heap = NULL;
    free(cm->ring);
    cm->ring = NULL;
}

/* ---- records ---- */

static void conn_record(const struct ib_engine *e, const struct eng_conn *c, bool evicted,
                        bool waiting, struct ib_connection_record *r)
{
    memset(r, 0, sizeof *r);
    r->index = c->index;
    r->has_tuple = c->has_tuple;
    if (c->has_tuple)
        r->tuple = c->ip_tuple;
    r->service_id = c->service_id;
    r->local_comm_id = c->hold.comm_id;
    r->remote_comm_id = c->remote_comm_id;
    r->active = c->active;
    r->passive = c->passive;
    r->state = (enum ib_conn_state)c->state;
    r->reject_reason = c->reject_reason;
    r->retransmissions = c->retransmissions;
    r->frames_from_active = c->frames_from_active;
    r->frames_from_passive = c->frames_from_passive;
    r->req = ref_unpack(c->hold.req);
    r->mra = ref_unpack(rare_of(e, c, IB_CM_MRA));
    r->rep = ref_unpack(c->rep);
    r->rtu = ref_unpack(c->rtu);
    r->dreq = ref_unpack(c->dreq);
    if (c->end_by == END_REJ)
        r->rej = ref_unpack(c->end);
    else if (c->end_by == END_DREP)
        r->drep = ref_unpack(c->end);
    r->evicted = evicted;
    r->timed_out = c->timed_out;
    r->waiting = waiting;
}

static void report(struct ib_engine *e, const struct eng_conn *c, bool evicted, bool waiting)
{
    if (!e->sink)
        return;
    struct ib_connection_record r;
    conn_record(e, c, evicted, waiting, &r);
    e->sink(e->sink_ctx, &r);
}

/* ---- connections ---- */

/* The frame being fed is a message of connection c, sent by its passive
 * side or not: linked and counted once per frame. */
static void link_conn(struct ib_engine *e, struct eng_conn *c, bool by_passive)
{
    struct ib_frame_links *l = &e->out->links;
    if (by_passive)
        c->frames_from_passive++;
    else
        c->frames_from_active++;
    l->has_conn = true;
    l->conn = c->index;
    l->conn_from_passive = by_passive;
    l->has_conn_tuple = c->has_tuple;
    if (c->has_tuple)
        l->conn_tuple = c->ip_tuple;
    l->conn_service_id = c->service_id;
}

/* Gone from the tables, reported before (or evicted now). */
static void conn_free(struct ib_engine *e, struct eng_conn *c)
{
    struct eng_cm *cm = &e->cm;
    cm->ended_count -= c->wait == W_ENDED;
    cm->waiting -= is_waiting(c->wait);
    et_prefetch(&cm->conns, c->hash);
    eng_ports_release(e, &c->hold);
    et_remove(&cm->conns, c->hash, c->self);
    if (c->extra) {
        struct conn_extra *x = ep_item(&cm->extra_pool, c->extra - 1);
        if (x->in_alts)
            et_remove(&cm->alts, x->alt_hash, c->self);
        ep_release(&cm->extra_pool, x, c->extra - 1);
    }
    el_unlink(&c->age);
    cm->conn_count--;
    c->live = false;
    ep_release(&cm->conn_pool, c, c->self);
}

/* When the last copy c's peers may still send could have come: each
 * sender of a message not yet answered for sure sends it at most 1 +
 * MaxCMRetries times, a wait apart. */
static int64_t linger_until(const struct ib_engine *e, const struct eng_conn *c)
{
    int64_t t = e->at.time_ns + wait_ns(LINGER_MIN_MS);
    unsigned sends = c->max_retries + 1u;
    if (!c->rtu.where && c->req_copies < sends) {
        int64_t req =
            last_req_of(e, c).time_ns + (int64_t)(sends - c->req_copies) * wait_ns(act_wait_ms(c));
        t = req > t ? req : t;
    }
    if (c->dreq.where && c->copies < sends) {
        uint32_t ms = c->dreq_by_passive ? pas_wait_ms(c) : act_wait_ms(c);
        int64_t dreq = last_of(e, c).time_ns + (int64_t)(sends - c->copies) * wait_ns(ms);
        t = dreq > t ? dreq : t;
    }
    return t;
}

/* Ended connections kept for their copies: the latest IB_CM_ENDED_KEPT.  A
 * capture that opens and closes thousands a second keeps its memory and its
 * tables to what is open; the oldest go first, reported whole, and a copy of
 * theirs that still came would start a new connection (counted:
 * ended_forgotten). */
static void forget_ended(struct ib_engine *e)
{
    struct eng_cm *cm = &e->cm;
    while (cm->ended_count > IB_CM_ENDED_KEPT) {
        struct eng_conn *c = EL_ENTRY(cm->ended.next, struct eng_conn, age);
        /* The next to go (asked for by the one before) and its slot, and
         * the one after it, long out of cache, asked for now. */
        if (c->age.next != &cm->ended) {
            const struct eng_conn *next = EL_ENTRY(c->age.next, struct eng_conn, age);
            et_prefetch(&cm->conns, next->hash);
            if (next->age.next != &cm->ended)
                conn_prefetch(EL_ENTRY(next->age.next, struct eng_conn, age));
        }
        e->stats.ended_forgotten++;
        report(e, c, false, false);
        conn_free(e, c);
    }
}

/* c is over (REJ, DREP, SIDR_REP, given up): its port is free; it stays
 * findable for the copies that may still come. */
static void conn_end(struct ib_engine *e, struct eng_conn *c, enum conn_end_by by)
{
    /* Its neighbours in age, long out of cache when many are open. */
    __builtin_prefetch(c->age.prev);
    __builtin_prefetch(c->age.next);
    eng_ports_prefetch(e, &c->hold);
    c->end_by = by;
    if (by == END_REJ || by == END_DREP)
        c->end = ref_pack(e->at);
    set_wait(e, c, W_ENDED);
    eng_ports_release(e, &c->hold);
    el_unlink(&c->age);
    el_append(&e->cm.ended, &c->age);
    e->cm.ended_count++;
    set_deadline(e, c, linger_until(e, c));
    forget_ended(e);
}

/* One out for a new one: the ended ones first (their records are whole),
 * then the oldest open one (counted: the analysis lost it). */
static void make_room(struct ib_engine *e)
{
    struct eng_cm *cm = &e->cm;
    while (cm->conn_count > 0 && cm->conn_count >= e->cfg.max_connections) {
        bool ended = !el_empty(&cm->ended);
        struct eng_conn *c = EL_ENTRY(ended ? cm->ended.next : cm->age.next, struct eng_conn, age);
        if (!ended)
            e->stats.connections_evicted++;
        report(e, c, !ended, false);
        conn_free(e, c);
    }
}

static struct eng_conn *conn_new(struct ib_engine *e, const struct conn_key *k, uint64_t h)
{
    struct eng_cm *cm = &e->cm;
    make_room(e);
    uint32_t self;
    struct eng_conn *c = ep_alloc(&cm->conn_pool, &self);
    if (!c)
        return eng_oom(e);
    if (!et_insert(&cm->conns, h, self)) {
        ep_release(&cm->conn_pool, c, self);
        return eng_oom(e);
    }
    c->self = self;
    c->live = true;
    c->hold.comm_id = k->comm_id;
    c->sidr = k->sidr;
    c->hash = (uint32_t)h;
    c->index = cm->next_conn_index++;
    c->deadline = c->due = NO_TIME;
    el_init(&c->hold.port_link);
    el_init(&c->hold.tuple_link);
    el_append(&cm->age, &c->age);
    cm->conn_count++;
    return c;
}

/* The passive side's comm ID, from its answer or a message that names it. */
static void set_remote(struct eng_conn *c, uint32_t id)
{
    if (c->has_remote || c->sidr)
        return;
    c->has_remote = true;
    c->remote_comm_id = id;
}

/* The alternate path's LID on the active side (a REQ's, a LAP's): after
 * migration the connection's messages leave from it and go to it. */
static void set_alternate(struct ib_engine *e, struct eng_conn *c, uint16_t lid)
{
    if (!lid || c->sidr)
        return;
    struct conn_extra *x = extra_need(e, c);
    if (!x || (x->in_alts && x->alt_lid == lid))
        return;
    if (x->in_alts) {
        et_remove(&e->cm.alts, x->alt_hash, c->self);
        x->in_alts = false;
    }
    uint64_t h = alt_hash(c->hold.comm_id, lid);
    x->alt_lid = lid;
    if (et_insert(&e->cm.alts, h, c->self)) {
        x->in_alts = true;
        x->alt_hash = (uint32_t)h;
    } else {
        eng_oom(e);
    }
}

static struct eng_conn *by_node(struct ib_engine *e, const struct ib_endpoint *node,
                                uint32_t comm_id, bool sidr)
{
    struct conn_find f = { conn_key_make(node, comm_id, sidr), false, 0 };
    return et_find(&e->cm.conns, et_hash(&f.k, sizeof f.k), conn_eq, &f);
}

/* A message after the REQ, by its comm IDs (cm_acquire_id).  Sent by the
 * active side it names the connection by its LocalCommID from the active
 * node, sent by the passive side by its RemoteCommID to that node: the
 * node tells apart connections of several hosts that drew the same comm
 * IDs.  After path migration the active node is the alternate path's.
 * from_passive says which reading to try first; a match whose other comm
 * ID contradicts what we know is skipped. */
static struct eng_conn *conn_match(struct ib_engine *e, const struct ib_packet *p,
                                   bool from_passive, bool *sent_by_passive)
{
    const struct ib_cm *cm = &p->cm;
    for (int alt = 0; alt < 2; alt++) {
        if (alt && e->cm.alts.count == 0)
            break;
        for (int pass = 0; pass < 2; pass++) {
            bool passive = (pass == 0) == from_passive;
            const struct ib_endpoint *node = passive ? &p->dst : &p->src;
            uint32_t id = passive ? cm->remote_comm_id : cm->local_comm_id;
            struct eng_conn *c;
            if (!alt) {
                c = by_node(e, node, id, false);
            } else {
                struct alt_find k = { { id, node->lid }, &e->cm.extra_pool };
                c = node->lid ? et_find(&e->cm.alts, alt_hash(id, node->lid), alt_eq, &k) : NULL;
            }
            if (c && c->has_remote &&
                (passive ? cm->local_comm_id : cm->remote_comm_id) != c->remote_comm_id)
                c = NULL;
            if (c) {
                *sent_by_passive = passive;
                return c;
            }
        }
    }
    return NULL;
}

/* The frame is a copy of a message c already had, first seen at `first`. */
static void retransmitted(struct ib_engine *e, struct eng_conn *c, uint16_t attr,
                          struct eng_ref first)
{
    c->retransmissions++;
    e->conn.retransmissions++;
    if (attr >= IB_CM_MSG_FIRST && attr < IB_CM_MSG_FIRST + IB_CM_MSG_COUNT)
        e->conn.retransmissions_by_message[attr - IB_CM_MSG_FIRST]++;
    struct ib_frame_ref rel = ref_unpack(first);
    struct ib_finding *f = eng_emit(e, IB_FIND_RETRANSMISSION, rel);
    if (!f)
        return;
    f->data.cm_attr = attr;
    f->data.sidr = c->sidr;
    f->data.comm_id = c->hold.comm_id;
    if (c->has_tuple)
        f->data.tuple = c->ip_tuple;
    e->out->links.retransmission_of = rel;
}

static bool tuple_of(const struct ib_packet *p, struct ib_tuple *t)
{
    const struct ib_cm *cm = &p->cm;
    return cm->has_service_id && cm->has_ipcm && ib_tuple_make(&cm->sid, &cm->ipcm, t);
}

/* One more copy of c's REQ (of_req), or of the REP or DREQ `copies` counts:
 * the frame being fed, the latest. */
static void copy_seen(struct ib_engine *e, struct eng_conn *c, bool of_req)
{
    uint16_t *copies = of_req ? &c->req_copies : &c->copies;
    if (*copies < UINT16_MAX)
        (*copies)++;
    struct conn_extra *x = extra_need(e, c);
    if (x)
        *(of_req ? &x->last_req : &x->last) = ref_pack(e->at);
}

/* A copy of c's REQ: the wait starts again; an ended connection stays
 * findable for the copies still to come. */
static void request_again(struct ib_engine *e, struct eng_conn *c, uint16_t attr)
{
    retransmitted(e, c, attr, c->hold.req);
    copy_seen(e, c, true);
    if (c->wait == W_ANSWER || c->wait == W_RTU)
        extend_deadline(e, c, give_up_at(c, e->at.time_ns, c->req_copies, act_wait_ms(c)));
    else if (c->wait == W_ENDED)
        extend_deadline(e, c, linger_until(e, c));
    eng_ports_fill(e, &c->hold);
    link_conn(e, c, false);
}

static void cm_request(struct ib_engine *e, const struct ib_packet *p, bool sidr)
{
    struct conn_find f = { conn_key_make(&p->src, p->cm.local_comm_id, sidr), !sidr,
                           sidr ? 0 : p->cm.u.req.local_ca_guid };
    uint64_t h = et_hash(&f.k, sizeof f.k);
    struct eng_conn *c = et_find(&e->cm.conns, h, conn_eq, &f);
    if (c) {
        request_again(e, c, sidr ? IB_CM_SIDR_REQ : IB_CM_REQ);
        return;
    }
    if (sidr)
        e->conn.sidr_requests++;
    else
        e->conn.requests++;
    c = conn_new(e, &f.k, h);
    if (!c)
        return;
    c->ca_guid = f.guid;
    c->has_tuple = tuple_of(p, &c->ip_tuple);
    c->service_id = p->cm.has_service_id ? p->cm.sid.raw
                    : sidr               ? p->cm.u.sidr_req.service_id
                                         : p->cm.u.req.service_id;
    c->active = p->src;
    c->passive = p->dst;
    c->state = sidr ? IB_CONN_SIDR : IB_CONN_REQ_SENT;
    c->hold.req = ref_pack(e->at);
    c->req_copies = 1;
    uint32_t qp = ib_packet_has(p, IB_HAS_BTH) ? p->bth.destqp : 1;
    if (qp != 1) {
        struct conn_extra *x = extra_need(e, c);
        if (x)
            x->req_qp = qp;
    }
    timing_of(c, &p->cm);
    if (!sidr)
        set_alternate(e, c, p->cm.u.req.alternate.local_lid);
    set_wait(e, c, W_ANSWER);
    set_deadline(e, c, give_up_at(c, e->at.time_ns, 1, act_wait_ms(c)));
    link_conn(e, c, false);
    if (!sidr && c->has_tuple)
        eng_ports_take(e, &c->hold, p, &c->ip_tuple, c->ca_guid);
}

static void cm_redirect(struct ib_engine *e, const struct ib_packet *p, const struct eng_conn *c,
                        uint16_t cm_attr)
{
    struct eng_redirect_src rs;
    memset(&rs, 0, sizeof rs);
    rs.requester = &p->dst;
    rs.mgmt_class = IB_CLASS_CM;
    rs.agent = &p->src;
    const struct conn_extra *x = c ? extra_of(e, c) : NULL;
    rs.agent_qp = x ? x->req_qp : c ? 1 : ib_packet_has(p, IB_HAS_DETH) ? p->deth.srcqp : 1;
    if (c)
        rs.request = ref_unpack(c->hold.req);
    rs.cm_attr = cm_attr;
    if (cm_attr == IB_CM_REJ)
        rs.reject_reason = p->cm.u.rej.reason;
    eng_mad_redirect(e, &rs, &p->cm.cpi);
}

/* A REJ ends the connection; reasons 24 and 25 also redirect it.  A REJ
 * again (the answer to a copy of the REQ) is a copy of the first. */
static void cm_reject(struct ib_engine *e, const struct ib_packet *p, struct eng_conn *c,
                      bool by_passive)
{
    const struct ib_cm *cm = &p->cm;
    bool again = c && c->end_by == END_REJ;
    /* The parser read the ARI as ClassPortInfo for reasons 24 and 25. */
    if (!again && cm->u.rej.ari_has_cpi && cm->has_cpi)
        cm_redirect(e, p, c, IB_CM_REJ);
    else if (!again)
        eng_mad_answer(e, p, IB_CLASS_CM);
    if (!c)
        return;
    if (again) {
        retransmitted(e, c, IB_CM_REJ, c->end);
        return;
    }
    if (c->wait == W_ENDED)
        return;
    if (by_passive)
        set_remote(c, cm->local_comm_id);
    c->state = IB_CONN_REJECTED;
    c->reject_reason = cm->u.rej.reason;
    e->conn.rejected++;
    e->conn.reject_reasons[cm->u.rej.reason < IB_REJ_REASON_MAX ? cm->u.rej.reason
                                                                : IB_REJ_REASON_MAX - 1]++;
    conn_end(e, c, END_REJ);
}

static void count_closed(struct ib_engine *e, struct eng_conn *c)
{
    if (!c->counted_closed) {
        c->counted_closed = true;
        e->conn.closed++;
    }
}

/* DREQ: the connection closes; its sender waits for the DREP, sending the
 * DREQ again meanwhile.  A DREQ from the other side crossing it is not a
 * copy (cm_dreq_handler answers both). */
static void cm_dreq(struct ib_engine *e, struct eng_conn *c, bool by_passive)
{
    if (c->dreq.where && by_passive == c->dreq_by_passive) {
        retransmitted(e, c, IB_CM_DREQ, c->dreq);
        copy_seen(e, c, false);
        uint32_t ms = by_passive ? pas_wait_ms(c) : act_wait_ms(c);
        if (c->wait == W_DREP)
            extend_deadline(e, c, give_up_at(c, e->at.time_ns, c->copies, ms));
        else if (c->wait == W_ENDED)
            extend_deadline(e, c, linger_until(e, c));
        return;
    }
    if (c->dreq.where || c->wait == W_ENDED)
        return;
    c->dreq = ref_pack(e->at);
    c->last_dreq = true;
    c->dreq_by_passive = by_passive;
    c->copies = 1;
    c->state = IB_CONN_CLOSING;
    count_closed(e, c);
    set_wait(e, c, W_DREP);
    set_deadline(e, c,
                 give_up_at(c, e->at.time_ns, 1, by_passive ? pas_wait_ms(c) : act_wait_ms(c)));
}

/* DREP: the connection is over; a DREP again from the same side answers a
 * copy of the DREQ (cm_dreq_handler in TIMEWAIT, or cm_issue_drep once the
 * id is gone); from the other side, a DREQ that crossed the first. */
static void cm_drep(struct ib_engine *e, struct eng_conn *c, bool by_passive)
{
    if (c->end_by == END_DREP) {
        if (by_passive == c->drep_by_passive)
            retransmitted(e, c, IB_CM_DREP, c->end);
        return;
    }
    if (c->wait == W_ENDED)
        return;
    c->drep_by_passive = by_passive;
    c->state = IB_CONN_CLOSED;
    count_closed(e, c);
    conn_end(e, c, END_DREP);
}

static void cm_rep(struct ib_engine *e, const struct ib_packet *p, struct eng_conn *c)
{
    if (c->rep.where) {
        retransmitted(e, c, IB_CM_REP, c->rep);
        copy_seen(e, c, false);
        if (c->wait == W_RTU)
            extend_deadline(e, c, give_up_at(c, e->at.time_ns, c->copies, pas_wait_ms(c)));
        return;
    }
    set_remote(c, p->cm.local_comm_id);
    c->rep = ref_pack(e->at);
    c->last_dreq = false;
    c->copies = 1;
    if (c->state == IB_CONN_REQ_SENT)
        c->state = IB_CONN_REPLIED;
    eng_latency_add(&e->lat_req_rep, e->at.time_ns - c->hold.req.time_ns);
    if (c->wait == W_ANSWER) {
        /* The active side may still be sending its REQ (it missed the REP):
         * whichever side waits longer decides. */
        set_wait(e, c, W_RTU);
        extend_deadline(e, c, give_up_at(c, e->at.time_ns, 1, pas_wait_ms(c)));
    }
}

static void cm_rtu(struct ib_engine *e, struct eng_conn *c)
{
    if (c->rtu.where) {
        retransmitted(e, c, IB_CM_RTU, c->rtu);
        return;
    }
    c->rtu = ref_pack(e->at);
    if (c->state == IB_CONN_REPLIED || c->state == IB_CONN_REQ_SENT)
        c->state = IB_CONN_ESTABLISHED;
    e->conn.established++;
    eng_latency_add(&e->lat_setup, e->at.time_ns - c->hold.req.time_ns);
    if (c->wait == W_ANSWER || c->wait == W_RTU) {
        set_wait(e, c, W_NONE);
        c->deadline = NO_TIME;
    }
}

/* MRA: the receiver needs longer; for the REQ the active side waits its
 * ServiceTimeout plus the path's ACK timeout (cm_mra_handler: av.timeout). */
static void cm_mra(struct ib_engine *e, const struct ib_packet *p, struct eng_conn *c)
{
    struct eng_ref first = rare_of(e, c, IB_CM_MRA);
    if (first.where) {
        retransmitted(e, c, IB_CM_MRA, first);
        return;
    }
    struct conn_extra *x = extra_need(e, c);
    if (x)
        x->mra = ref_pack(e->at);
    const struct ib_cm_mra *m = &p->cm.u.mra;
    if (m->msg_mraed == 0 && c->wait == W_ANSWER && !c->sidr) {
        uint32_t ms = cm_ms(m->service_timeout) + cm_ms(c->ack_t);
        extend_deadline(e, c, e->at.time_ns + wait_ns(ms));
    }
}

/* A LAP or APR, first of its kind for c.  On RoCE the kernel rejects it
 * (cm_lap_handler, cm_apr_handler: "Alternate path messages are not
 * supported for RoCE link layer"): no path changes. */
static void path_message(struct ib_engine *e, const struct ib_packet *p, struct eng_conn *c)
{
    struct conn_extra *x = extra_need(e, c);
    if (x)
        *(p->cm.attr == IB_CM_LAP ? &x->lap : &x->apr) = ref_pack(e->at);
    if (p->encap != IB_ENCAP_ROCEV1 && p->encap != IB_ENCAP_ROCEV2)
        return;
    static const struct ib_frame_ref none;
    struct ib_finding *f = eng_emit(e, IB_FIND_PATH_IGNORED, none);
    if (!f)
        return;
    f->data.cm_attr = p->cm.attr;
    f->data.comm_id = c->hold.comm_id;
    if (c->has_tuple)
        f->data.tuple = c->ip_tuple;
}

/* Whether a message of an ended connection repeats one it already had (a
 * copy of the REQ is handled with REQs). */
static bool is_copy(const struct ib_engine *e, const struct eng_conn *c, uint16_t attr,
                    bool by_passive)
{
    switch (attr) {
    case IB_CM_MRA:
    case IB_CM_LAP:
    case IB_CM_APR: return rare_of(e, c, attr).where != 0;
    case IB_CM_REP: return c->rep.where != 0;
    case IB_CM_RTU: return c->rtu.where != 0;
    case IB_CM_REJ: return c->end_by == END_REJ;
    case IB_CM_DREQ: return c->dreq.where != 0;
    case IB_CM_DREP: return c->end_by == END_DREP && by_passive == c->drep_by_passive;
    default: return false;
    }
}

static void cm_reply(struct ib_engine *e, const struct ib_packet *p)
{
    const struct ib_cm *cm = &p->cm;
    bool by_passive = false;
    bool prefer_passive =
        cm->attr == IB_CM_REP || (cm->attr == IB_CM_REJ && cm->u.rej.msg_rejected != 1) ||
        (cm->attr == IB_CM_MRA && cm->u.mra.msg_mraed == 0) || cm->attr == IB_CM_APR;
    struct eng_conn *c = conn_match(e, p, prefer_passive, &by_passive);
    if (c) {
        link_conn(e, c, by_passive);
        if (cm->remote_comm_id && cm->attr != IB_CM_REJ)
            set_remote(c, by_passive ? cm->local_comm_id : cm->remote_comm_id);
        if (c->wait == W_ENDED && !is_copy(e, c, cm->attr, by_passive))
            return; /* late: the connection was over (given up, rejected) */
    }
    switch (cm->attr) {
    case IB_CM_MRA:
        if (c)
            cm_mra(e, p, c);
        return;
    case IB_CM_REP:
        if (!c || !c->rep.where)
            eng_mad_answer(e, p, IB_CLASS_CM);
        if (c)
            cm_rep(e, p, c);
        return;
    case IB_CM_RTU:
        if (c)
            cm_rtu(e, c);
        return;
    case IB_CM_REJ: cm_reject(e, p, c, by_passive); return;
    case IB_CM_DREQ:
        if (c)
            cm_dreq(e, c, by_passive);
        return;
    case IB_CM_DREP:
        if (c)
            cm_drep(e, c, by_passive);
        return;
    case IB_CM_LAP:
    case IB_CM_APR:
        /* They change a connection's alternate path, not its life. */
        if (c && cm->attr == IB_CM_LAP && !by_passive)
            set_alternate(e, c, cm->u.lap.alternate.local_lid);
        if (c) {
            struct eng_ref first = rare_of(e, c, cm->attr);
            if (first.where)
                retransmitted(e, c, cm->attr, first);
            else
                path_message(e, p, c);
        }
        return;
    default: return;
    }
}

static void cm_sidr_reply(struct ib_engine *e, const struct ib_packet *p)
{
    const struct ib_cm *cm = &p->cm;
    struct eng_conn *c = by_node(e, &p->dst, cm->local_comm_id, true);
    if (c)
        link_conn(e, c, true);
    if (c && c->rep.where) {
        retransmitted(e, c, IB_CM_SIDR_REP, c->rep);
        return;
    }
    e->conn.sidr_replies++;
    if (cm->u.sidr_rep.status == IB_CM_SIDR_STATUS_REDIRECT && cm->has_cpi)
        cm_redirect(e, p, c, IB_CM_SIDR_REP);
    else
        eng_mad_answer(e, p, IB_CLASS_CM);
    if (!c)
        return;
    c->rep = ref_pack(e->at);
    conn_end(e, c, END_SIDR_REP);
}

void eng_cm_feed(struct ib_engine *e, const struct ib_packet *p)
{
    switch (p->cm.attr) {
    case IB_CM_REQ:
        cm_request(e, p, false);
        eng_mad_follow(e, p, IB_CLASS_CM);
        break;
    case IB_CM_SIDR_REQ:
        cm_request(e, p, true);
        eng_mad_follow(e, p, IB_CLASS_CM);
        break;
    case IB_CM_SIDR_REP: cm_sidr_reply(e, p); break;
    case IB_CM_MRA:
    case IB_CM_REJ:
    case IB_CM_REP:
    case IB_CM_RTU:
    case IB_CM_DREQ:
    case IB_CM_DREP:
    case IB_CM_LAP:
    case IB_CM_APR: cm_reply(e, p); break;
    default: break;
    }
}

/* ---- giving up ---- */

/* c's wait ran out: the kernel gave up (cm_process_send_error).  The
 * finding belongs to the last copy of the message never answered. */
static void give_up(struct ib_engine *e, struct eng_conn *c)
{
    uint16_t attr;
    struct eng_ref first, last;
    unsigned sent;
    if (c->wait == W_DREP) {
        attr = IB_CM_DREQ;
        first = c->dreq;
        last = last_of(e, c);
        sent = c->copies;
        c->state = IB_CONN_CLOSED;
        c->timed_out = true;
        e->conn.disconnect_timeouts++;
    } else {
        /* A REQ sent more than once was not heard (REQ_ERROR); one heard
         * and answered whose REP was never acknowledged is the passive
         * side's REP_ERROR. */
        bool rep = c->wait == W_RTU && c->req_copies <= 1;
        attr = c->sidr ? IB_CM_SIDR_REQ : rep ? IB_CM_REP : IB_CM_REQ;
        first = rep ? c->rep : c->hold.req;
        last = rep ? last_of(e, c) : last_req_of(e, c);
        sent = rep ? c->copies : c->req_copies;
        c->state = IB_CONN_UNREACHABLE;
        e->conn.unreachable++;
    }
    struct ib_finding *f = eng_emit(e, IB_FIND_UNREACHABLE, ref_unpack(first));
    if (f) {
        f->at = ref_unpack(last);
        f->data.cm_attr = attr;
        f->data.sent = sent;
        f->data.tried_ns = last.time_ns - first.time_ns;
        f->data.sidr = c->sidr;
        f->data.comm_id = c->hold.comm_id;
        if (c->has_tuple)
            f->data.tuple = c->ip_tuple;
    }
    conn_end(e, c, END_GAVE_UP);
}

void eng_cm_expire(struct ib_engine *e, int64_t now_ns)
{
    struct eng_cm *cm = &e->cm;
    if (cm->first_due >= now_ns)
        return;
    while (cm->first_due < now_ns) {
        /* The earlier of the FIFO's first and the heap's (the heap's when
         * both are due at once). */
        bool ring =
            cm->ring_count > 0 && (cm->heap_len == 0 || ring_at(cm, 0)->at_ns < cm->heap[0].at_ns);
        struct eng_due d = ring ? *ring_at(cm, 0) : cm->heap[0];
        if (ring) {
            cm->ring_head = (cm->ring_head + 1) & (cm->ring_cap - 1);
            cm->ring_count--;
        } else {
            cm->heap[0] = cm->heap[--cm->heap_len];
            if (cm->heap_len)
                heap_down(cm->heap, cm->heap_len, 0);
        }
        timers_counted(cm);
        if (!due_live(cm, &d))
            continue; /* gone, or an entry since overtaken */
        struct eng_conn *c = ep_item(&cm->conn_pool, d.self);
        c->due = NO_TIME;
        if (c->deadline == NO_TIME)
            continue;
        if (c->deadline >= now_ns) {
            set_deadline(e, c, c->deadline); /* moved on: its entry again */
            continue;
        }
        if (c->wait == W_ENDED) {
            report(e, c, false, false);
            conn_free(e, c);
        } else if (c->wait != W_NONE) {
            give_up(e, c);
        }
    }
    /* The next to come up, for its check then to find it in cache. */
    if (cm->heap_len > 0)
        __builtin_prefetch(ep_item(&cm->conn_pool, cm->heap[0].self));
    if (cm->ring_count > 0)
        __builtin_prefetch(ep_item(&cm->conn_pool, ring_at(cm, 0)->self));
}

void eng_cm_finish(struct ib_engine *e)
{
    /* The ended ones in order of their ends, then the open ones in REQ
     * order; the connections stay so the summary still shows the ports in
     * use at the end of the capture.  Without a sink the count is enough
     * (a walk of the open ones would miss the cache at each of them). */
    if (!e->sink) {
        e->conn.waiting_at_end += e->cm.waiting;
        return;
    }
    for (struct el_link *l = e->cm.ended.next; l != &e->cm.ended; l = l->next)
        report(e, EL_ENTRY(l, struct eng_conn, age), false, false);
    for (struct el_link *l = e->cm.age.next; l != &e->cm.age; l = l->next) {
        const struct eng_conn *c = EL_ENTRY(l, struct eng_conn, age);
        bool waiting = c->wait == W_ANSWER || c->wait == W_RTU || c->wait == W_DREP;
        e->conn.waiting_at_end += waiting;
        report(e, c, false, waiting);
    }
}
