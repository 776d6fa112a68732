/* engine_ports.c - the source ports that open connections hold, against the
 * port pool.
 *
 * A source is a host's port space: Linux draws every address's ports of a
 * network namespace from one bind list per port (cma_ps_find), so the host
 * (engine.h, "Hosts") is what runs out, not an address.  Per source the
 * distinct source ports held (legacy model), and per (source, src IP, dst
 * IP, dst port) the same (4-tuple model: cma_port_is_unique compares the
 * whole tuple); each held (source, port) and each tuple keeps the holds on
 * it in REQ order, which gives the "latest holder" links.  A hold is taken
 * by a REQ and given back when its connection ends (engine_cm.c says when).
 */
#include "engine_hosts.h"
#include "engine_ports.h"
#include "engine_state.h"

#include <stdlib.h>

struct eng_source {
    struct ib_source_stats st;
    uint32_t self;    /* its index in its pool (ep_alloc) */
    uint32_t index;   /* in source_list */
    uint32_t host;    /* a declared host's number (engine_hosts.c) */
    uint32_t busiest; /* pool ports toward its busiest destination now */
    uint64_t hash;
    bool pool_high_armed;
    bool forecast_armed;
    bool forecast_stale; /* st.forecast not yet made for the latest port event */
    struct eng_forecast forecast;
    struct ib_host_address *addr; /* st.addresses */
    uint32_t addr_cap;
};

/* Linear search finds a host's address among this many; past them, the
 * engine's table of (source, address). */
#define ADDR_SCAN 8

/* Never removed (a source lives as long as the engine): no hash kept. */
struct eng_addr {
    const struct eng_source *src;
    struct ib_host_address a;
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

/* One destination (IP, port) of one source address. */
struct eng_dest {
    struct eng_source *src;
    uint8_t src_ip[16];
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

/* A host's port space: by declared host, by LocalCAGUID, or by address
 * (from says which; the other fields are zero). */
struct source_key {
    uint16_t port_space;
    uint8_t from;
    uint8_t ip_version;
    uint32_t host;
    uint64_t guid;
    uint8_t ip[16];
};

static bool source_eq(const void *item, const void *key)
{
    const struct eng_source *s = item;
    const struct source_key *k = key;
    if (s->st.port_space != k->port_space || s->st.host_from != k->from)
        return false;
    switch (k->from) {
    case IB_HOST_FROM_ADDRESS:
        return s->st.ip_version == k->ip_version && memcmp(s->st.ip, k->ip, 16) == 0;
    case IB_HOST_FROM_CA_GUID: return s->st.ca_guid == k->guid;
    default: return s->host == k->host;
    }
}

struct addr_key {
    const struct eng_source *src;
    struct ib_host_address a;
    uint8_t zero[7]; /* no padding bytes in the hashed key */
};

static bool addr_eq(const void *item, const void *key)
{
    const struct eng_addr *a = item;
    const struct addr_key *k = key;
    return a->src == k->src && memcmp(&a->a, &k->a, sizeof a->a) == 0;
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
    uint8_t src_ip[16];
    uint8_t ip[16];
    uint64_t port;
};

static bool dest_eq(const void *item, const void *key)
{
    const struct eng_dest *d = item;
    const struct dest_key *k = key;
    return d->src == k->src && d->port == k->port && memcmp(d->ip, k->ip, 16) == 0 &&
           memcmp(d->src_ip, k->src_ip, 16) == 0;
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

bool eng_ports_init(struct ib_engine *e)
{
    struct eng_ports *ps = &e->ports;
    ps->pool_size = (uint32_t)e->cfg.pool_high - e->cfg.pool_low + 1;
    ps->threshold_ports = ib_engine_config_threshold_ports(&e->cfg);
    /* Re-arm only after falling 5% of the pool below the threshold, so that a
     * source hovering at the threshold raises one finding, not one per REQ. */
    uint32_t margin = ps->pool_size / 20 ? ps->pool_size / 20 : 1;
    ps->rearm_ports = ps->threshold_ports > margin ? ps->threshold_ports - margin : 0;
    ef_clock_init(&ps->forecast_clock, e->cfg.forecast_horizon_s);
    ps->forecast_rearm_s = e->cfg.forecast_horizon_s * IB_FORECAST_REARM_FACTOR;
    ep_init(&ps->source_pool, sizeof(struct eng_source));
    ep_init(&ps->port_pool, sizeof(struct eng_port));
    ep_init(&ps->dest_pool, sizeof(struct eng_dest));
    ep_init(&ps->tuple_pool, sizeof(struct eng_tuple));
    ep_init(&ps->level_pool, sizeof(struct eng_level));
    ep_init(&ps->addr_pool, sizeof(struct eng_addr));
    return et_init(&ps->sources, 64, &ps->source_pool) && et_init(&ps->ports, 64, &ps->port_pool) &&
           et_init(&ps->dests, 64, &ps->dest_pool) && et_init(&ps->tuples, 64, &ps->tuple_pool) &&
           et_init(&ps->levels, 64, &ps->level_pool) && et_init(&ps->addrs, 16, &ps->addr_pool);
}

void eng_ports_destroy(struct ib_engine *e)
{
    struct eng_ports *ps = &e->ports;
    for (size_t i = 0; i < ps->source_count; i++)
        free(ps->source_list[i]->addr);
    et_destroy(&ps->addrs);
    ep_destroy(&ps->addr_pool);
    et_destroy(&ps->sources);
    et_destroy(&ps->ports);
    et_destroy(&ps->dests);
    et_destroy(&ps->tuples);
    et_destroy(&ps->levels);
    ep_destroy(&ps->source_pool);
    ep_destroy(&ps->port_pool);
    ep_destroy(&ps->dest_pool);
    ep_destroy(&ps->tuple_pool);
    ep_destroy(&ps->level_pool);
    free(ps->source_list);
    ps->source_list = NULL;
}

/* The estimate of src's latest port event, into its stats. */
static void forecast_make(const struct ib_engine *e, struct eng_source *src)
{
    ef_estimate(&src->forecast, &e->ports.forecast_clock, src->st.forecast_at.time_ns,
                e->ports.pool_size, src->st.forecast);
    src->forecast_stale = false;
}

const struct ib_source_stats *ib_engine_source(const struct ib_engine *e, size_t i)
{
    if (i >= e->ports.source_count)
        return NULL;
    struct eng_source *src = e->ports.source_list[i];
    if (src->forecast_stale) /* made when asked for: the same as at the event */
        forecast_make(e, src);
    return &src->st;
}

void ib_engine_source_forecast(const struct ib_engine *e, size_t i, int64_t now_ns,
                               struct ib_forecast out[IB_MODEL_COUNT])
{
    memset(out, 0, IB_MODEL_COUNT * sizeof *out);
    if (i < e->ports.source_count)
        ef_estimate(&e->ports.source_list[i]->forecast, &e->ports.forecast_clock, now_ns,
                    e->ports.pool_size, out);
}

size_t ib_engine_source_count(const struct ib_engine *e)
{
    return e->ports.source_count;
}

uint32_t ib_engine_pool_size(const struct ib_engine *e)
{
    return e->ports.pool_size;
}

uint32_t ib_engine_threshold_ports(const struct ib_engine *e)
{
    return e->ports.threshold_ports;
}

void ib_engine_set_usage_sink(struct ib_engine *e, ib_usage_sink sink, void *ctx)
{
    e->ports.usage_sink = sink;
    e->ports.usage_ctx = ctx;
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

/* The key of the host that sent REQ p (tuple t, LocalCAGUID ca_guid). */
static struct source_key source_key_of(const struct ib_engine *e, const struct ib_packet *p,
                                       const struct ib_tuple *t, uint64_t ca_guid)
{
    struct source_key k;
    memset(&k, 0, sizeof k);
    k.port_space = t->port_space;
    int host = eng_hosts_of(e, p, t->ip_version, t->src_ip);
    if (host >= 0) {
        k.from = e->hosts.list[host].from;
        k.host = (uint32_t)host;
    } else if (ca_guid) {
        k.from = IB_HOST_FROM_CA_GUID;
        k.guid = ca_guid;
    } else {
        k.from = IB_HOST_FROM_ADDRESS;
        k.ip_version = t->ip_version;
        memcpy(k.ip, t->src_ip, 16);
    }
    return k;
}

/* t's source address among src's: listed (up to IB_HOST_ADDRESSES_MAX) and
 * counted when new. */
static void address_seen(struct ib_engine *e, struct eng_source *src, const struct ib_tuple *t)
{
    struct ib_source_stats *st = &src->st;
    struct addr_key k;
    memset(&k, 0, sizeof k);
    k.src = src;
    k.a = eng_host_address(t->ip_version, t->src_ip);
    uint32_t scan = st->addresses_listed < ADDR_SCAN ? st->addresses_listed : ADDR_SCAN;
    for (uint32_t i = 0; i < scan; i++)
        if (memcmp(&src->addr[i], &k.a, sizeof k.a) == 0)
            return;
    uint64_t h = 0;
    if (st->address_count > ADDR_SCAN) {
        h = et_hash(&k, sizeof k);
        if (et_find(&e->ports.addrs, h, addr_eq, &k))
            return;
    }
    if (st->address_count >= ADDR_SCAN) {
        /* Past the scanned few: every new one into the table, as many in
         * all as sources may be (a host of a million addresses is a crafted
         * capture: what is past the cap is counted, not kept). */
        if (e->ports.addr_count >= e->cfg.max_sources) {
            e->stats.sources_dropped++;
            return;
        }
        if (!h)
            h = et_hash(&k, sizeof k);
        uint32_t self;
        struct eng_addr *a = ep_alloc(&e->ports.addr_pool, &self);
        if (!a || !et_insert(&e->ports.addrs, h, self)) {
            if (a)
                ep_release(&e->ports.addr_pool, a, self);
            eng_oom(e);
            return;
        }
        a->src = src;
        a->a = k.a;
        e->ports.addr_count++;
    }
    st->address_count++;
    if (st->addresses_listed >= IB_HOST_ADDRESSES_MAX)
        return;
    if (st->addresses_listed == src->addr_cap) {
        uint32_t cap = src->addr_cap ? src->addr_cap * 2 : 2;
        struct ib_host_address *l = realloc(src->addr, cap * sizeof *l);
        if (!l) {
            eng_oom(e);
            return;
        }
        src->addr = l;
        src->addr_cap = cap;
        st->addresses = l;
    }
    src->addr[st->addresses_listed++] = k.a;
}

static struct eng_source *source_get(struct ib_engine *e, const struct ib_packet *p,
                                     const struct ib_tuple *t, uint64_t ca_guid)
{
    struct eng_ports *cm = &e->ports;
    struct source_key k = source_key_of(e, p, t, ca_guid);
    uint64_t h = et_hash(&k, sizeof k);
    struct eng_source *s = et_find(&cm->sources, h, source_eq, &k);
    if (s) {
        address_seen(e, s, t);
        return s;
    }
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
    s->host = k.host;
    s->st.port_space = t->port_space;
    s->st.ip_version = t->ip_version;
    memcpy(s->st.ip, t->src_ip, 16);
    s->st.host_from = k.from;
    s->st.ca_guid = k.guid;
    if (k.from == IB_HOST_FROM_OPTION || k.from == IB_HOST_FROM_CAPTURE)
        s->st.host_name = e->hosts.list[k.host].name;
    s->pool_high_armed = true;
    s->forecast_armed = true;
    s->index = (uint32_t)cm->source_count;
    cm->source_list[cm->source_count++] = s;
    address_seen(e, s, t);
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
        find_or_make(e, &e->ports.ports, &e->ports.port_pool, h, port_eq, k, &made, &self);
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
    memcpy(k.src_ip, t->src_ip, 16);
    memcpy(k.ip, t->dst_ip, 16);
    k.port = t->dst_port;
    uint64_t h = et_hash(&k, sizeof k);
    bool made;
    uint32_t self;
    struct eng_dest *d =
        find_or_make(e, &e->ports.dests, &e->ports.dest_pool, h, dest_eq, &k, &made, &self);
    if (d && made) {
        d->self = self;
        d->src = src;
        memcpy(d->src_ip, t->src_ip, 16);
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
        find_or_make(e, &e->ports.tuples, &e->ports.tuple_pool, h, tuple_eq, k, &made, &self);
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
    et_remove(&e->ports.dests, d->hash, d->self);
    ep_release(&e->ports.dest_pool, d, d->self);
}

void eng_ports_fill(struct ib_engine *e, const struct eng_hold *h)
{
    if (!h->port || !h->tuple)
        return;
    struct ib_frame_analysis *out = e->out;
    out->links.has_ports = true;
    out->links.source = h->port->src->index;
    out->links.ports_in_use = h->port->src->st.ports_in_use;
    out->links.tuple_ports_in_use = h->tuple->dest->ports;
    out->links.pool_utilization = 100.0 * out->links.ports_in_use / e->ports.pool_size;
}

/* What the REQ's tuple and port meet among the open connections, before it
 * takes them: duplicate_tuple and port_reused on a pool port; on a port
 * outside the pool, which only an explicit bind gives (rdma_bind_addr with a
 * port, as Lustre's 1023 with rdma_set_reuseaddr), explicit_port_shared:
 * cma_check_port lets two reuseaddr ids share it. */
static void reuse_findings(struct ib_engine *e, const struct ib_tuple *t, bool in_pool,
                           const struct eng_tuple *tu, const struct eng_port *po)
{
    struct ib_finding *f;
    if (tu->holders) {
        const struct eng_hold *o = EL_ENTRY(tu->conns.prev, struct eng_hold, tuple_link);
        struct ib_frame_ref req = ref_unpack(o->req);
        if (!in_pool) {
            if ((f = eng_emit(e, IB_FIND_EXPLICIT_PORT_SHARED, req)))
                f->data.tuple = *t;
            return;
        }
        if ((f = eng_emit(e, IB_FIND_DUPLICATE_TUPLE, req))) {
            f->data.tuple = *t;
            f->data.comm_id = o->comm_id;
            e->out->links.duplicate_tuple_of = req;
        }
    }
    if (po->holders > tu->holders) {
        /* Latest holder of the port with another tuple; at most
         * tu->holders same-tuple holders are skipped on the way. */
        const struct el_link *l = po->conns.prev;
        const struct eng_hold *o = EL_ENTRY(l, struct eng_hold, port_link);
        while (o->tuple == tu) {
            l = l->prev;
            o = EL_ENTRY(l, struct eng_hold, port_link);
        }
        struct ib_frame_ref req = ref_unpack(o->req);
        enum ib_finding_kind kind = in_pool ? IB_FIND_PORT_REUSED : IB_FIND_EXPLICIT_PORT_SHARED;
        if ((f = eng_emit(e, kind, req))) {
            f->data.tuple = *t;
            if (in_pool)
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
        st->pool_utilization = 100.0 * st->peak_ports_in_use / e->ports.pool_size;
        if (st->peak_ports_in_use >= e->ports.pool_size)
            st->exhausted = true;
    }
    if (d->ports > st->peak_ports_per_destination) {
        st->peak_ports_per_destination = d->ports;
        st->peak_per_destination_at = e->at;
        st->peak_dst_ip_version = t->ip_version;
        memcpy(st->peak_dst_ip, d->ip, 16);
        st->peak_dst_port = d->port;
        if (d->ports >= e->ports.pool_size)
            st->exhausted_per_destination = true;
    }
    if (src->pool_high_armed && st->ports_in_use >= e->ports.threshold_ports) {
        src->pool_high_armed = false;
        struct ib_frame_ref none = { 0, 0, 0 };
        struct ib_finding *f = eng_emit(e, IB_FIND_POOL_HIGH, none);
        if (f) {
            f->data.tuple = *t;
            f->data.ports_in_use = st->ports_in_use;
            f->data.pool_size = e->ports.pool_size;
            f->data.host_addresses = st->address_count;
        }
    }
}

/* A port event of src (req: the REQ of the frame took a pool port): the
 * estimate made again, and pool_forecast when it crosses the horizon. */
static void forecast_event(struct ib_engine *e, struct eng_source *src, bool req)
{
    struct ib_source_stats *st = &src->st;
    uint32_t after[IB_MODEL_COUNT] = { st->ports_in_use, src->busiest };
    ef_event(&src->forecast, &e->ports.forecast_clock, e->at.time_ns, after);
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
    if (!any || fc->eta_s > e->ports.forecast_rearm_s)
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
        f->data.pool_size = e->ports.pool_size;
        f->data.eta_s = fc->eta_s;
        f->data.rate_per_s = fc->rate_per_s;
        f->data.model = (uint8_t)m;
        f->data.host_addresses = st->address_count;
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
            find_or_make(e, &e->ports.levels, &e->ports.level_pool, h, level_eq, &k, &made, &self);
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
    struct eng_level *l = et_find(&e->ports.levels, h, level_eq, &k);
    if (l && --l->dests == 0) {
        et_remove(&e->ports.levels, l->hash, l->self);
        ep_release(&e->ports.level_pool, l, l->self);
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
    if (!e->ports.usage_sink)
        return;
    struct ib_usage_change u = { src->index, e->at, src->st.ports_in_use, src->busiest };
    e->ports.usage_sink(e->ports.usage_ctx, &u);
}

/* The REQ of hold c takes its source port: findings, counts and peaks. */
void eng_ports_take(struct ib_engine *e, struct eng_hold *c, const struct ib_packet *p,
                    const struct ib_tuple *t, uint64_t ca_guid)
{
    struct eng_source *src = source_get(e, p, t, ca_guid);
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
        et_prefetch(&e->ports.tuples, th);
        et_prefetch(&e->ports.ports, ph);
        if ((tu = tuple_get(e, &tk, th)))
            po = port_get(e, &pk, ph);
    }
    if (!po) {
        /* Out of memory: leave no half-built entries behind. */
        if (tu && !tu->holders) {
            et_remove(&e->ports.tuples, tu->hash, tu->self);
            ep_release(&e->ports.tuple_pool, tu, tu->self);
        }
        if (d)
            dest_put(e, d);
        return;
    }
    reuse_findings(e, t, in_pool, tu, po);
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
    eng_ports_fill(e, c);
    if (in_pool) {
        usage_changed(e, src);
        forecast_event(e, src, true);
    }
}

void eng_ports_release(struct ib_engine *e, struct eng_hold *c)
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
        et_remove(&e->ports.ports, po->hash, po->self);
        ep_release(&e->ports.port_pool, po, po->self);
        if (src->st.ports_in_use <= e->ports.rearm_ports)
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
        et_remove(&e->ports.tuples, tu->hash, tu->self);
        ep_release(&e->ports.tuple_pool, tu, tu->self);
        dest_put(e, d);
    }
    if (moved)
        forecast_event(e, src, false);
}

void eng_ports_prefetch(const struct ib_engine *e, const struct eng_hold *h)
{
    if (!h->port)
        return;
    __builtin_prefetch(h->port);
    __builtin_prefetch(h->tuple);
    et_prefetch(&e->ports.ports, h->port_hash);
    et_prefetch(&e->ports.tuples, h->tuple_hash);
}
