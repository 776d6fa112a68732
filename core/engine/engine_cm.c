/* engine_cm.c - CM connections by comm ID and tuple, and the ports they hold.
 *
 * A connection is keyed by (active node, its LocalCommID); every later
 * message of the exchange names that ID either as its LocalCommID (sent by
 * the active side) or as its RemoteCommID (sent by the passive side, to the
 * active node), so one index serves REQ through DREP from either side.
 * Ports: per (source IP, port space) the distinct source ports held by open
 * connections (legacy model), and per (source, dst IP, dst port) the same
 * (4-tuple model); each held (source, port) and each (tuple) keeps the open
 * connections holding it in REQ order, which gives the "latest holder" links.
 */
#include "engine_priv.h"

#include <stdio.h>
#include <stdlib.h>

struct eng_source {
    struct ib_source_stats st;
    uint32_t self;    /* its index in its pool (ep_alloc) */
    uint32_t index;   /* in source_list */
    uint32_t busiest; /* pool ports toward its busiest destination now */
    uint64_t hash;
    bool pool_high_armed;
    bool forecast_armed;
    bool forecast_stale; /* st.forecast not yet made for the latest port event */
    struct eng_forecast forecast;
};

/* A source port held by open connections of one source. */
struct eng_port {
    struct eng_source *src;
    struct el_link conns;
    uint32_t hash; /* the low 32 bits: enough to find its slot */
    uint32_t self;
    uint32_t holders;
    uint16_t port;
    bool in_pool; /* counts toward the pool; a port outside it never does */
};

/* One destination (IP, port) of one source. */
struct eng_dest {
    struct eng_source *src;
    uint8_t ip[16];
    uint16_t port;
    uint64_t hash;
    uint32_t self;
    uint32_t held;  /* distinct source ports held towards it: its lifetime */
    uint32_t ports; /* those of them in the pool: the 4-tuple model's count */
};

/* How many destinations of a source hold `ports` pool ports, so that when
 * the busiest one gives a port back the next busiest count is known. */
struct eng_level {
    struct eng_source *src;
    uint32_t ports;
    uint32_t dests;
    uint64_t hash;
    uint32_t self;
};

/* One full tuple: a destination and a source port. */
struct eng_tuple {
    struct eng_dest *dest;
    struct el_link conns;
    uint32_t hash; /* the low 32 bits: enough to find its slot */
    uint32_t self;
    uint32_t holders;
    uint16_t src_port;
};

struct conn_key {
    struct eng_node node;
    uint32_t comm_id;
    uint32_t sidr;
};

/* A frame reference in 16 bytes rather than 24: the capture's index in the
 * top 24 bits of `where`, the frame number in the low 40 (2^40 frames of at
 * least 16 bytes each would be a 17 TB capture; 2^24 captures open at once
 * would need as many descriptors and reader buffers). */
struct eng_ref {
    int64_t time_ns;
    uint64_t where;
};
#define ENG_REF_FRAME_BITS 40

#define ENG_REF_FRAME_MASK ((UINT64_C(1) << ENG_REF_FRAME_BITS) - 1)

static struct eng_ref ref_pack(struct ib_frame_ref r)
{
    struct eng_ref c = { r.time_ns, (uint64_t)r.capture << ENG_REF_FRAME_BITS |
                                        (r.frame & ENG_REF_FRAME_MASK) };
    return c;
}

static struct ib_frame_ref ref_unpack(struct eng_ref c)
{
    struct ib_frame_ref r = { (uint32_t)(c.where >> ENG_REF_FRAME_BITS),
                              c.where & ENG_REF_FRAME_MASK, c.time_ns };
    return r;
}

/* How a connection ended, for the record: the frame being fed is its REJ or
 * DREP when it does. */
enum conn_end_by { END_NONE, END_REJ, END_DREP };

/* An open connection, kept compact (a capture may hold millions open): the
 * frames of its exchange that can still be followed by more, and the record
 * built from it only when it is reported (conn_record).  Its key is
 * (node of `active`, local_comm_id, sidr). */
struct eng_conn {
    struct eng_ref req, mra, rep, rtu, dreq;
    struct ib_tuple ip_tuple; /* valid with has_tuple */
    struct ib_endpoint active, passive;
    uint64_t service_id;
    struct el_link age;
    struct el_link port_link, tuple_link;
    struct eng_port *port;
    struct eng_tuple *tuple;
    uint32_t port_hash, tuple_hash; /* theirs, enough to find their slots */
    uint32_t hash;                  /* its own key's, low 32 bits */
    uint32_t self;                  /* its index in the pool */
    uint32_t index;                 /* ib_connection_record.index */
    uint32_t local_comm_id, remote_comm_id;
    uint32_t retransmissions;
    uint32_t frames_from_active, frames_from_passive;
    uint32_t req_qp; /* DestQP of the REQ */
    uint16_t reject_reason;
    uint8_t state;  /* enum ib_conn_state */
    uint8_t end_by; /* enum conn_end_by */
    bool sidr;
    bool has_tuple;
    bool answered;   /* REP, REJ or SIDR_REP seen */
    bool has_remote; /* remote_comm_id known */
    bool counted_closed;
};

/* ---- keys ---- */

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
    const struct conn_key *k = key;
    if (c->local_comm_id != k->comm_id || c->sidr != k->sidr)
        return false;
    struct eng_node n = eng_node_of(&c->active);
    return eng_node_eq(&n, &k->node);
}

/* The public record of c; rej or drep is the frame being fed when that
 * message ends it. */
static void conn_record(const struct ib_engine *e, const struct eng_conn *c, bool evicted,
                        struct ib_connection_record *r)
{
    memset(r, 0, sizeof *r);
    r->index = c->index;
    r->has_tuple = c->has_tuple;
    if (c->has_tuple)
        r->tuple = c->ip_tuple;
    r->service_id = c->service_id;
    r->local_comm_id = c->local_comm_id;
    r->remote_comm_id = c->remote_comm_id;
    r->active = c->active;
    r->passive = c->passive;
    r->state = (enum ib_conn_state)c->state;
    r->reject_reason = c->reject_reason;
    r->retransmissions = c->retransmissions;
    r->frames_from_active = c->frames_from_active;
    r->frames_from_passive = c->frames_from_passive;
    r->req = ref_unpack(c->req);
    r->mra = ref_unpack(c->mra);
    r->rep = ref_unpack(c->rep);
    r->rtu = ref_unpack(c->rtu);
    r->dreq = ref_unpack(c->dreq);
    if (c->end_by == END_REJ)
        r->rej = e->at;
    else if (c->end_by == END_DREP)
        r->drep = e->at;
    r->evicted = evicted;
}

struct source_key {
    uint16_t port_space;
    uint8_t ip_version;
    uint8_t pad;
    uint8_t ip[16];
};

static bool source_eq(const void *item, const void *key)
{
    const struct ib_source_stats *s = &((const struct eng_source *)item)->st;
    const struct source_key *k = key;
    return s->port_space == k->port_space && s->ip_version == k->ip_version &&
           memcmp(s->ip, k->ip, 16) == 0;
}

struct port_key {
    struct eng_source *src;
    uint64_t port;
};

static bool port_eq(const void *item, const void *key)
{
    const struct eng_port *p = item;
    const struct port_key *k = key;
    return p->src == k->src && p->port == k->port;
}

struct dest_key {
    const struct eng_source *src;
    uint8_t ip[16];
    uint64_t port;
};

static bool dest_eq(const void *item, const void *key)
{
    const struct eng_dest *d = item;
    const struct dest_key *k = key;
    return d->src == k->src && d->port == k->port && memcmp(d->ip, k->ip, 16) == 0;
}

struct tuple_key {
    struct eng_dest *dest;
    uint64_t port;
};

static bool tuple_eq(const void *item, const void *key)
{
    const struct eng_tuple *t = item;
    const struct tuple_key *k = key;
    return t->dest == k->dest && t->src_port == k->port;
}

/* ---- setup ---- */

bool eng_cm_init(struct ib_engine *e)
{
    struct eng_cm *cm = &e->cm;
    ep_init(&cm->conn_pool, sizeof(struct eng_conn));
    ep_init(&cm->source_pool, sizeof(struct eng_source));
    ep_init(&cm->port_pool, sizeof(struct eng_port));
    ep_init(&cm->dest_pool, sizeof(struct eng_dest));
    ep_init(&cm->tuple_pool, sizeof(struct eng_tuple));
    ep_init(&cm->level_pool, sizeof(struct eng_level));
    el_init(&cm->age);
    return et_init(&cm->conns, 64, &cm->conn_pool) && et_init(&cm->sources, 64, &cm->source_pool) &&
           et_init(&cm->ports, 64, &cm->port_pool) && et_init(&cm->dests, 64, &cm->dest_pool) &&
           et_init(&cm->tuples, 64, &cm->tuple_pool) && et_init(&cm->levels, 64, &cm->level_pool);
}

void eng_cm_destroy(struct ib_engine *e)
{
    struct eng_cm *cm = &e->cm;
    et_destroy(&cm->conns);
    et_destroy(&cm->sources);
    et_destroy(&cm->ports);
    et_destroy(&cm->dests);
    et_destroy(&cm->tuples);
    et_destroy(&cm->levels);
    ep_destroy(&cm->conn_pool);
    ep_destroy(&cm->source_pool);
    ep_destroy(&cm->port_pool);
    ep_destroy(&cm->dest_pool);
    ep_destroy(&cm->tuple_pool);
    ep_destroy(&cm->level_pool);
    free(cm->source_list);
    cm->source_list = NULL;
}

/* The estimate of src's latest port event, into its stats. */
static void forecast_make(const struct ib_engine *e, struct eng_source *src)
{
    ef_estimate(&src->forecast, &e->forecast_clock, src->st.forecast_at.time_ns, e->pool_size,
                src->st.forecast);
    src->forecast_stale = false;
}

const struct ib_source_stats *eng_cm_source(const struct ib_engine *e, size_t i)
{
    if (i >= e->cm.source_count)
        return NULL;
    struct eng_source *src = e->cm.source_list[i];
    if (src->forecast_stale) /* made when asked for: the same as at the event */
        forecast_make(e, src);
    return &src->st;
}

void eng_cm_source_forecast(const struct ib_engine *e, size_t i, int64_t now_ns,
                            struct ib_forecast out[IB_MODEL_COUNT])
{
    memset(out, 0, IB_MODEL_COUNT * sizeof *out);
    if (i < e->cm.source_count)
        ef_estimate(&e->cm.source_list[i]->forecast, &e->forecast_clock, now_ns, e->pool_size, out);
}

/* ---- ports ---- */

/* The item with this key in table t, or a new, zeroed one from pool; NULL
 * when memory ran out (counted).  *made says whether it is new, and then
 * *index is its index in the pool. */
static void *find_or_make(struct ib_engine *e, struct et_table *t, struct ep_pool *pool, uint64_t h,
                          et_eq_fn eq, const void *key, bool *made, uint32_t *index)
{
    void *item = et_find(t, h, eq, key);
    *made = false;
    if (item)
        return item;
    if (!(item = ep_alloc(pool, index)))
        return eng_oom(e);
    if (!et_insert(t, h, *index)) {
        ep_release(pool, item, *index);
        return eng_oom(e);
    }
    *made = true;
    return item;
}

static struct eng_source *source_get(struct ib_engine *e, const struct ib_tuple *t)
{
    struct eng_cm *cm = &e->cm;
    struct source_key k;
    memset(&k, 0, sizeof k);
    k.port_space = t->port_space;
    k.ip_version = t->ip_version;
    memcpy(k.ip, t->src_ip, 16);
    uint64_t h = et_hash(&k, sizeof k);
    struct eng_source *s = et_find(&cm->sources, h, source_eq, &k);
    if (s)
        return s;
    if (cm->source_count >= e->cfg.max_sources) {
        e->stats.sources_dropped++;
        return NULL;
    }
    if (cm->source_count == cm->source_cap) {
        size_t cap = cm->source_cap ? cm->source_cap * 2 : 64;
        struct eng_source **l = realloc(cm->source_list, cap * sizeof *l);
        if (!l)
            return eng_oom(e);
        cm->source_list = l;
        cm->source_cap = cap;
    }
    bool made;
    uint32_t self;
    if (!(s = find_or_make(e, &cm->sources, &cm->source_pool, h, source_eq, &k, &made, &self)))
        return NULL;
    s->self = self;
    s->hash = h;
    s->st.port_space = t->port_space;
    s->st.ip_version = t->ip_version;
    memcpy(s->st.ip, t->src_ip, 16);
    s->pool_high_armed = true;
    s->forecast_armed = true;
    s->index = (uint32_t)cm->source_count;
    cm->source_list[cm->source_count++] = s;
    return s;
}

static struct port_key port_key_make(struct eng_source *src, uint16_t port)
{
    struct port_key k;
    memset(&k, 0, sizeof k);
    k.src = src;
    k.port = port;
    return k;
}

/* The port of key k, whose hash is h; made when new. */
static struct eng_port *port_get(struct ib_engine *e, const struct port_key *k, uint64_t h)
{
    bool made;
    uint32_t self;
    struct eng_port *p =
        find_or_make(e, &e->cm.ports, &e->cm.port_pool, h, port_eq, k, &made, &self);
    if (p && made) {
        p->self = self;
        p->src = k->src;
        p->port = (uint16_t)k->port;
        p->hash = (uint32_t)h;
        el_init(&p->conns);
    }
    return p;
}

static struct eng_dest *dest_get(struct ib_engine *e, struct eng_source *src,
                                 const struct ib_tuple *t)
{
    struct dest_key k;
    memset(&k, 0, sizeof k);
    k.src = src;
    memcpy(k.ip, t->dst_ip, 16);
    k.port = t->dst_port;
    uint64_t h = et_hash(&k, sizeof k);
    bool made;
    uint32_t self;
    struct eng_dest *d =
        find_or_make(e, &e->cm.dests, &e->cm.dest_pool, h, dest_eq, &k, &made, &self);
    if (d && made) {
        d->self = self;
        d->src = src;
        memcpy(d->ip, t->dst_ip, 16);
        d->port = t->dst_port;
        d->hash = h;
    }
    return d;
}

static struct tuple_key tuple_key_make(struct eng_dest *d, uint16_t src_port)
{
    struct tuple_key k;
    memset(&k, 0, sizeof k);
    k.dest = d;
    k.port = src_port;
    return k;
}

/* The tuple of key k, whose hash is h; made when new. */
static struct eng_tuple *tuple_get(struct ib_engine *e, const struct tuple_key *k, uint64_t h)
{
    bool made;
    uint32_t self;
    struct eng_tuple *t =
        find_or_make(e, &e->cm.tuples, &e->cm.tuple_pool, h, tuple_eq, k, &made, &self);
    if (t && made) {
        t->self = self;
        t->dest = k->dest;
        t->src_port = (uint16_t)k->port;
        t->hash = (uint32_t)h;
        el_init(&t->conns);
    }
    return t;
}

static void dest_put(struct ib_engine *e, struct eng_dest *d)
{
    if (d->held)
        return;
    et_remove(&e->cm.dests, d->hash, d->self);
    ep_release(&e->cm.dest_pool, d, d->self);
}

static void fill_port_analysis(struct ib_engine *e, const struct eng_conn *c)
{
    if (!c->port || !c->tuple)
        return;
    struct ib_frame_analysis *out = e->out;
    out->links.has_ports = true;
    out->links.ports_in_use = c->port->src->st.ports_in_use;
    out->links.tuple_ports_in_use = c->tuple->dest->ports;
    out->links.pool_utilization = 100.0 * out->links.ports_in_use / e->pool_size;
}

/* duplicate_tuple and port_reused: what the REQ's tuple and port meet
 * among the open connections, before it takes them. */
static void reuse_findings(struct ib_engine *e, const struct ib_tuple *t,
                           const struct eng_tuple *tu, const struct eng_port *po)
{
    struct ib_finding *f;
    if (tu->holders) {
        const struct eng_conn *o = EL_ENTRY(tu->conns.prev, struct eng_conn, tuple_link);
        struct ib_frame_ref req = ref_unpack(o->req);
        if ((f = eng_emit(e, IB_FIND_DUPLICATE_TUPLE, req))) {
            f->data.tuple = *t;
            f->data.comm_id = o->local_comm_id;
            e->out->links.duplicate_tuple_of = req;
        }
    }
    if (po->holders > tu->holders) {
        /* Latest holder of the port with another tuple; at most
         * tu->holders same-tuple holders are skipped on the way. */
        const struct el_link *l = po->conns.prev;
        const struct eng_conn *o = EL_ENTRY(l, struct eng_conn, port_link);
        while (o->tuple == tu) {
            l = l->prev;
            o = EL_ENTRY(l, struct eng_conn, port_link);
        }
        struct ib_frame_ref req = ref_unpack(o->req);
        if ((f = eng_emit(e, IB_FIND_PORT_REUSED, req))) {
            f->data.tuple = *t;
            e->out->links.port_reused_from = req;
        }
    }
}

/* The source's peaks in both models, and pool_high when it crosses. */
static void pool_figures(struct ib_engine *e, struct eng_source *src, const struct eng_dest *d,
                         const struct ib_tuple *t)
{
    struct ib_source_stats *st = &src->st;
    if (st->ports_in_use > st->peak_ports_in_use) {
        st->peak_ports_in_use = st->ports_in_use;
        st->peak_at = e->at;
        st->pool_utilization = 100.0 * st->peak_ports_in_use / e->pool_size;
        if (st->peak_ports_in_use >= e->pool_size)
            st->exhausted = true;
    }
    if (d->ports > st->peak_ports_per_destination) {
        st->peak_ports_per_destination = d->ports;
        st->peak_per_destination_at = e->at;
        memcpy(st->peak_dst_ip, d->ip, 16);
        st->peak_dst_port = d->port;
        if (d->ports >= e->pool_size)
            st->exhausted_per_destination = true;
    }
    if (src->pool_high_armed && st->ports_in_use >= e->threshold_ports) {
        src->pool_high_armed = false;
        struct ib_frame_ref none = { 0, 0, 0 };
        struct ib_finding *f = eng_emit(e, IB_FIND_POOL_HIGH, none);
        if (f) {
            f->data.tuple = *t;
            f->data.ports_in_use = st->ports_in_use;
            f->data.pool_size = e->pool_size;
        }
    }
}

/* A port event of src (req: the REQ of the frame took a pool port): the
 * estimate made again, and pool_forecast when it crosses the horizon. */
static void forecast_event(struct ib_engine *e, struct eng_source *src, bool req)
{
    struct ib_source_stats *st = &src->st;
    uint32_t after[IB_MODEL_COUNT] = { st->ports_in_use, src->busiest };
    ef_event(&src->forecast, &e->forecast_clock, e->at.time_ns, after);
    st->forecast_at = e->at;
    /* An end that gives a port back matters now only to re-arm the
     * finding; otherwise the estimate is made when the stats are read. */
    src->forecast_stale = true;
    if (!req && src->forecast_armed)
        return;
    forecast_make(e, src);
    enum ib_pool_model m = IB_MODEL_ONE_PORT;
    bool any = ib_forecast_soonest(st->forecast, &m);
    const struct ib_forecast *fc = &st->forecast[m];
    /* Hysteresis: one finding per crossing, re-armed only well above it. */
    if (!any || fc->eta_s > e->forecast_rearm_s)
        src->forecast_armed = true;
    if (!req || !any)
        return;
    struct ib_frame_links *l = &e->out->links;
    l->has_exhaustion_eta = true;
    l->exhaustion_eta_s = fc->eta_s;
    l->port_rate_per_s = fc->rate_per_s;
    if (!src->forecast_armed || !(fc->eta_s < e->cfg.forecast_horizon_s))
        return;
    src->forecast_armed = false;
    struct ib_frame_ref none = { 0, 0, 0 };
    struct ib_finding *f = eng_emit(e, IB_FIND_POOL_FORECAST, none);
    if (f) {
        f->data.tuple.port_space = st->port_space;
        f->data.tuple.ip_version = st->ip_version;
        memcpy(f->data.tuple.src_ip, st->ip, 16);
        f->data.ports_in_use = fc->ports_in_use;
        f->data.pool_size = e->pool_size;
        f->data.eta_s = fc->eta_s;
        f->data.rate_per_s = fc->rate_per_s;
        f->data.model = (uint8_t)m;
    }
}

struct level_key {
    const struct eng_source *src;
    uint32_t ports;
    uint32_t zero; /* no padding bytes in the hashed key */
};

static bool level_eq(const void *item, const void *key)
{
    const struct eng_level *l = item;
    const struct level_key *k = key;
    return l->src == k->src && l->ports == k->ports;
}

/* One more (delta 1) or one fewer (-1) destination of src holding `ports`;
 * whether any destination of src still holds that many. */
static bool level_add(struct ib_engine *e, struct eng_source *src, uint32_t ports, int delta)
{
    if (ports == 0)
        return false;
    struct level_key k = { src, ports, 0 };
    uint64_t h = et_hash(&k, sizeof k);
    if (delta > 0) {
        bool made;
        uint32_t self;
        struct eng_level *l =
            find_or_make(e, &e->cm.levels, &e->cm.level_pool, h, level_eq, &k, &made, &self);
        if (l && made) {
            l->self = self;
            l->src = src;
            l->ports = ports;
            l->hash = h;
        }
        if (l)
            l->dests++;
        return l != NULL;
    }
    struct eng_level *l = et_find(&e->cm.levels, h, level_eq, &k);
    if (l && --l->dests == 0) {
        et_remove(&e->cm.levels, l->hash, l->self);
        ep_release(&e->cm.level_pool, l, l->self);
        return false;
    }
    return l != NULL;
}

/* A destination of src went from `from` pool ports to `to`, one apart: the
 * busiest count follows.  When the last destination at the top gives a
 * port back, the top is one lower, exactly: that destination holds it. */
static void dest_ports_moved(struct ib_engine *e, struct eng_source *src, uint32_t from,
                             uint32_t to)
{
    bool from_held = level_add(e, src, from, -1);
    level_add(e, src, to, 1);
    if (to > src->busiest || (from == src->busiest && !from_held))
        src->busiest = to;
}

static void usage_changed(struct ib_engine *e, const struct eng_source *src)
{
    if (!e->usage_sink)
        return;
    struct ib_usage_change u = { src->index, e->at, src->st.ports_in_use, src->busiest };
    e->usage_sink(e->usage_ctx, &u);
}

/* The REQ of c takes its source port: findings, counts and peaks. */
static void ports_take(struct ib_engine *e, struct eng_conn *c)
{
    const struct ib_tuple *t = &c->ip_tuple;
    struct eng_source *src = source_get(e, t);
    if (!src)
        return;
    src->st.connections++;
    bool in_pool = t->src_port >= e->cfg.pool_low && t->src_port <= e->cfg.pool_high;
    if (!in_pool)
        src->st.ports_outside_pool++;
    struct eng_dest *d = dest_get(e, src, t);
    struct eng_tuple *tu = NULL;
    struct eng_port *po = NULL;
    if (d) {
        /* Both slots asked for before either is probed (et_prefetch). */
        struct tuple_key tk = tuple_key_make(d, t->src_port);
        struct port_key pk = port_key_make(src, t->src_port);
        uint64_t th = et_hash(&tk, sizeof tk), ph = et_hash(&pk, sizeof pk);
        et_prefetch(&e->cm.tuples, th);
        et_prefetch(&e->cm.ports, ph);
        if ((tu = tuple_get(e, &tk, th)))
            po = port_get(e, &pk, ph);
    }
    if (!po) {
        /* Out of memory: leave no half-built entries behind. */
        if (tu && !tu->holders) {
            et_remove(&e->cm.tuples, tu->hash, tu->self);
            ep_release(&e->cm.tuple_pool, tu, tu->self);
        }
        if (d)
            dest_put(e, d);
        return;
    }
    reuse_findings(e, t, tu, po);
    c->port = po;
    c->tuple = tu;
    c->port_hash = po->hash;
    c->tuple_hash = tu->hash;
    el_append(&po->conns, &c->port_link);
    el_append(&tu->conns, &c->tuple_link);
    po->in_pool = in_pool;
    if (po->holders++ == 0 && in_pool)
        src->st.ports_in_use++;
    if (tu->holders++ == 0) {
        d->held++;
        d->ports += in_pool;
        if (in_pool)
            dest_ports_moved(e, src, d->ports - 1, d->ports);
    }
    pool_figures(e, src, d, t);
    fill_port_analysis(e, c);
    if (in_pool) {
        usage_changed(e, src);
        forecast_event(e, src, true);
    }
}

static void ports_release(struct ib_engine *e, struct eng_conn *c)
{
    struct eng_port *po = c->port;
    struct eng_tuple *tu = c->tuple;
    if (!po)
        return;
    el_unlink(&c->port_link);
    el_unlink(&c->tuple_link);
    c->port = NULL;
    c->tuple = NULL;
    struct eng_source *src = po->src;
    bool in_pool = po->in_pool, moved = false;
    if (--po->holders == 0) {
        moved = in_pool;
        src->st.ports_in_use -= in_pool;
        et_remove(&e->cm.ports, po->hash, po->self);
        ep_release(&e->cm.port_pool, po, po->self);
        if (src->st.ports_in_use <= e->rearm_ports)
            src->pool_high_armed = true;
    }
    if (--tu->holders == 0) {
        struct eng_dest *d = tu->dest;
        d->held--;
        d->ports -= in_pool;
        if (in_pool) {
            dest_ports_moved(e, src, d->ports + 1, d->ports);
            usage_changed(e, src);
            moved = true;
        }
        et_remove(&e->cm.tuples, tu->hash, tu->self);
        ep_release(&e->cm.tuple_pool, tu, tu->self);
        dest_put(e, d);
    }
    if (moved)
        forecast_event(e, src, false);
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

/* The connection is over (or evicted, or superseded): report and free it. */
static void conn_end(struct ib_engine *e, struct eng_conn *c, bool evicted)
{
    /* What an end touches, long out of cache when many are open, asked
     * for at once: its neighbours in age, its port and tuple and their
     * slots, its own slot. */
    __builtin_prefetch(c->age.prev);
    __builtin_prefetch(c->age.next);
    if (c->port) {
        __builtin_prefetch(c->port);
        __builtin_prefetch(c->tuple);
        et_prefetch(&e->cm.ports, c->port_hash);
        et_prefetch(&e->cm.tuples, c->tuple_hash);
    }
    et_prefetch(&e->cm.conns, c->hash);
    ports_release(e, c);
    if (e->sink) {
        struct ib_connection_record r;
        conn_record(e, c, evicted, &r);
        e->sink(e->sink_ctx, &r);
    }
    et_remove(&e->cm.conns, c->hash, c->self);
    el_unlink(&c->age);
    e->cm.conn_count--;
    ep_release(&e->cm.conn_pool, c, c->self);
}

static struct eng_conn *conn_new(struct ib_engine *e, const struct conn_key *k, uint64_t h)
{
    struct eng_cm *cm = &e->cm;
    while (cm->conn_count > 0 && cm->conn_count >= e->cfg.max_connections) {
        e->stats.connections_evicted++;
        conn_end(e, EL_ENTRY(cm->age.next, struct eng_conn, age), true);
    }
    uint32_t self;
    struct eng_conn *c = ep_alloc(&cm->conn_pool, &self);
    if (!c)
        return eng_oom(e);
    if (!et_insert(&cm->conns, h, self)) {
        ep_release(&cm->conn_pool, c, self);
        return eng_oom(e);
    }
    c->self = self;
    c->local_comm_id = k->comm_id;
    c->sidr = k->sidr;
    c->hash = (uint32_t)h;
    c->index = cm->next_conn_index++;
    el_init(&c->port_link);
    el_init(&c->tuple_link);
    el_append(&cm->age, &c->age);
    cm->conn_count++;
    return c;
}

static struct eng_conn *conn_find(struct ib_engine *e, const struct ib_endpoint *node,
                                  uint32_t comm_id, bool sidr)
{
    struct conn_key k = conn_key_make(node, comm_id, sidr);
    return et_find(&e->cm.conns, et_hash(&k, sizeof k), conn_eq, &k);
}

/* A message after the REQ: sent by the active side it names the connection
 * by (source, LocalCommID), sent by the passive side by (destination,
 * RemoteCommID).  from_passive says which reading to try first; a match
 * whose other comm ID contradicts what we know is skipped. */
static struct eng_conn *conn_match(struct ib_engine *e, const struct ib_packet *p,
                                   bool from_passive, bool *sent_by_passive)
{
    /* Both readings' slots asked for at once: the second is often needed
     * (a DREP from the passive side is tried as the active's first). */
    struct conn_key kp = conn_key_make(&p->dst, p->cm.remote_comm_id, false);
    struct conn_key ka = conn_key_make(&p->src, p->cm.local_comm_id, false);
    uint64_t hp = et_hash(&kp, sizeof kp), ha = et_hash(&ka, sizeof ka);
    et_prefetch(&e->cm.conns, hp);
    et_prefetch(&e->cm.conns, ha);
    for (int pass = 0; pass < 2; pass++) {
        bool passive = (pass == 0) == from_passive;
        struct eng_conn *c;
        if (passive) {
            c = et_find(&e->cm.conns, hp, conn_eq, &kp);
            if (c && c->has_remote && p->cm.local_comm_id != c->remote_comm_id)
                c = NULL;
        } else {
            c = et_find(&e->cm.conns, ha, conn_eq, &ka);
            if (c && c->has_remote && p->cm.remote_comm_id != c->remote_comm_id)
                c = NULL;
        }
        if (c) {
            *sent_by_passive = passive;
            return c;
        }
    }
    return NULL;
}

static bool tuple_of(const struct ib_packet *p, struct ib_tuple *t)
{
    const struct ib_cm *cm = &p->cm;
    return cm->has_service_id && cm->has_ipcm && ib_tuple_make(&cm->sid, &cm->ipcm, t);
}

static void cm_request(struct ib_engine *e, const struct ib_packet *p, bool sidr)
{
    struct conn_key k = conn_key_make(&p->src, p->cm.local_comm_id, sidr);
    uint64_t h = et_hash(&k, sizeof k);
    struct eng_conn *c = et_find(&e->cm.conns, h, conn_eq, &k);
    if (c && !c->answered) {
        c->retransmissions++;
        e->conn.retransmissions++;
        struct ib_frame_ref req = ref_unpack(c->req);
        struct ib_finding *f = eng_emit(e, IB_FIND_RETRANSMISSION, req);
        if (f) {
            f->data.sidr = sidr;
            f->data.comm_id = p->cm.local_comm_id;
            if (c->has_tuple)
                f->data.tuple = c->ip_tuple;
            e->out->links.retransmission_of = req;
        }
        fill_port_analysis(e, c);
        link_conn(e, c, false);
        return;
    }
    if (c)
        conn_end(e, c, false); /* the same ID again after an answer: a new attempt */
    if (sidr)
        e->conn.sidr_requests++;
    else
        e->conn.requests++;
    c = conn_new(e, &k, h);
    if (!c)
        return;
    c->has_tuple = tuple_of(p, &c->ip_tuple);
    c->service_id = p->cm.has_service_id ? p->cm.sid.raw
                    : sidr               ? p->cm.u.sidr_req.service_id
                                         : p->cm.u.req.service_id;
    c->active = p->src;
    c->passive = p->dst;
    c->state = sidr ? IB_CONN_SIDR : IB_CONN_REQ_SENT;
    c->req = ref_pack(e->at);
    c->req_qp = ib_packet_has(p, IB_HAS_BTH) ? p->bth.destqp : 1;
    link_conn(e, c, false);
    if (!sidr && c->has_tuple)
        ports_take(e, c);
}

static void set_remote(struct eng_conn *c, uint32_t id)
{
    if (!c->has_remote) {
        c->has_remote = true;
        c->remote_comm_id = id;
    }
}

static void cm_redirect(struct ib_engine *e, const struct ib_packet *p, const struct eng_conn *c,
                        uint16_t cm_attr)
{
    struct eng_redirect_src rs;
    memset(&rs, 0, sizeof rs);
    rs.requester = &p->dst;
    rs.mgmt_class = IB_CLASS_CM;
    rs.agent = &p->src;
    rs.agent_qp = c ? c->req_qp : ib_packet_has(p, IB_HAS_DETH) ? p->deth.srcqp : 1;
    if (c)
        rs.request = ref_unpack(c->req);
    rs.cm_attr = cm_attr;
    if (cm_attr == IB_CM_REJ)
        rs.reject_reason = p->cm.u.rej.reason;
    eng_mad_redirect(e, &rs, &p->cm.cpi);
}

/* A REJ ends the connection; reasons 24 and 25 also redirect it. */
static void cm_reject(struct ib_engine *e, const struct ib_packet *p, struct eng_conn *c,
                      bool by_passive)
{
    const struct ib_cm *cm = &p->cm;
    /* The parser read the ARI as ClassPortInfo for reasons 24 and 25. */
    if (cm->u.rej.ari_has_cpi && cm->has_cpi)
        cm_redirect(e, p, c, IB_CM_REJ);
    else
        eng_mad_answer(e, p, IB_CLASS_CM);
    if (!c)
        return;
    if (by_passive)
        set_remote(c, cm->local_comm_id);
    c->end_by = END_REJ;
    c->state = IB_CONN_REJECTED;
    c->reject_reason = cm->u.rej.reason;
    e->conn.rejected++;
    e->conn.reject_reasons[cm->u.rej.reason < IB_REJ_REASON_MAX ? cm->u.rej.reason
                                                                : IB_REJ_REASON_MAX - 1]++;
    conn_end(e, c, false);
}

/* DREQ closes (a connection counts once as closed); DREP ends it. */
static void cm_disconnect(struct ib_engine *e, struct eng_conn *c, bool drep)
{
    if (drep) {
        c->end_by = END_DREP;
        c->state = IB_CONN_CLOSED;
    } else {
        if (!c->dreq.where)
            c->dreq = ref_pack(e->at);
        if (c->state != IB_CONN_CLOSED)
            c->state = IB_CONN_CLOSING;
    }
    if (!c->counted_closed) {
        c->counted_closed = true;
        e->conn.closed++;
    }
    if (drep)
        conn_end(e, c, false);
}

static void cm_reply(struct ib_engine *e, const struct ib_packet *p)
{
    const struct ib_cm *cm = &p->cm;
    bool by_passive = false;
    bool prefer_passive = cm->attr == IB_CM_REP ||
                          (cm->attr == IB_CM_REJ && cm->u.rej.msg_rejected != 1) ||
                          (cm->attr == IB_CM_MRA && cm->u.mra.msg_mraed == 0);
    struct eng_conn *c = conn_match(e, p, prefer_passive, &by_passive);
    if (c)
        link_conn(e, c, by_passive);

    switch (cm->attr) {
    case IB_CM_MRA:
        if (!c)
            return;
        if (by_passive)
            set_remote(c, cm->local_comm_id);
        if (!c->mra.where)
            c->mra = ref_pack(e->at);
        return;
    case IB_CM_REP:
        eng_mad_answer(e, p, IB_CLASS_CM);
        if (!c || c->rep.where)
            return;
        set_remote(c, cm->local_comm_id);
        c->answered = true;
        c->rep = ref_pack(e->at);
        if (c->state == IB_CONN_REQ_SENT)
            c->state = IB_CONN_REPLIED;
        eng_latency_add(&e->lat_req_rep, e->at.time_ns - c->req.time_ns);
        return;
    case IB_CM_RTU:
        if (!c || c->rtu.where)
            return;
        c->rtu = ref_pack(e->at);
        if (c->state == IB_CONN_REPLIED || c->state == IB_CONN_REQ_SENT)
            c->state = IB_CONN_ESTABLISHED;
        e->conn.established++;
        eng_latency_add(&e->lat_setup, e->at.time_ns - c->req.time_ns);
        return;
    case IB_CM_REJ: cm_reject(e, p, c, by_passive); return;
    case IB_CM_DREQ:
    case IB_CM_DREP:
        if (c)
            cm_disconnect(e, c, cm->attr == IB_CM_DREP);
        return;
    default: return;
    }
}

static void cm_sidr_reply(struct ib_engine *e, const struct ib_packet *p)
{
    const struct ib_cm *cm = &p->cm;
    e->conn.sidr_replies++;
    struct eng_conn *c = conn_find(e, &p->dst, cm->local_comm_id, true);
    if (c)
        link_conn(e, c, true);
    if (cm->u.sidr_rep.status == IB_CM_SIDR_STATUS_REDIRECT && cm->has_cpi)
        cm_redirect(e, p, c, IB_CM_SIDR_REP);
    else
        eng_mad_answer(e, p, IB_CLASS_CM);
    if (!c)
        return;
    c->answered = true;
    c->rep = ref_pack(e->at);
    conn_end(e, c, false);
}

/* LAP (active to passive) and APR (its answer) change a connection's
 * alternate path, not its life: they are only linked to it. */
static void cm_path(struct ib_engine *e, const struct ib_packet *p)
{
    bool by_passive;
    struct eng_conn *c = conn_match(e, p, p->cm.attr == IB_CM_APR, &by_passive);
    if (c)
        link_conn(e, c, by_passive);
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
    case IB_CM_DREP: cm_reply(e, p); break;
    case IB_CM_LAP:
    case IB_CM_APR: cm_path(e, p); break;
    default: break;
    }
}

void eng_cm_finish(struct ib_engine *e)
{
    /* Report in REQ order; the connections stay so the summary still
     * shows the ports in use at the end of the capture. */
    if (!e->sink)
        return;
    for (struct el_link *l = e->cm.age.next; l != &e->cm.age; l = l->next) {
        struct ib_connection_record r;
        conn_record(e, EL_ENTRY(l, struct eng_conn, age), false, &r);
        e->sink(e->sink_ctx, &r);
    }
}
