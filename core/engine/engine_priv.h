/* engine_priv.h - the engine's state, shared by engine.c, engine_cm.c,
 * engine_ports.c and engine_mad.c; not part of the API. */
#ifndef IBSCOPE_ENGINE_PRIV_H
#define IBSCOPE_ENGINE_PRIV_H

#include <string.h>

#include "engine.h"
#include "engine_forecast.h"
#include "engine_latency.h"
#include "engine_table.h"

/* A node as a hash key: its LID when known, else its GID (RoCE: the IP as a
 * GID), else nothing (kind 0), in which case the comm ID alone identifies. */
enum { ENG_NODE_NONE, ENG_NODE_LID, ENG_NODE_GID };

struct eng_node {
    uint8_t kind;
    uint8_t pad;
    uint16_t lid;
    uint8_t gid[16];
};

static inline struct eng_node eng_node_of(const struct ib_endpoint *ep)
{
    struct eng_node n;
    memset(&n, 0, sizeof n);
    if (ep->lid) {
        n.kind = ENG_NODE_LID;
        n.lid = ep->lid;
    } else if (ep->has_gid) {
        n.kind = ENG_NODE_GID;
        memcpy(n.gid, ep->gid, 16);
    }
    return n;
}

static inline bool eng_node_eq(const struct eng_node *a, const struct eng_node *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* A frame reference in 16 bytes rather than 24: the capture's index in the
 * top 24 bits of `where`, the frame number in the low 40 (2^40 frames of at
 * least 16 bytes each would be a 17 TB capture; 2^24 captures open at once
 * would need as many descriptors and reader buffers).  where 0: none. */
struct eng_ref {
    int64_t time_ns;
    uint64_t where;
};
#define ENG_REF_FRAME_BITS 40
#define ENG_REF_FRAME_MASK ((UINT64_C(1) << ENG_REF_FRAME_BITS) - 1)

static inline struct eng_ref ref_pack(struct ib_frame_ref r)
{
    struct eng_ref c = { r.time_ns, (uint64_t)r.capture << ENG_REF_FRAME_BITS |
                                        (r.frame & ENG_REF_FRAME_MASK) };
    return c;
}

static inline struct ib_frame_ref ref_unpack(struct eng_ref c)
{
    struct ib_frame_ref r = { (uint32_t)(c.where >> ENG_REF_FRAME_BITS),
                              c.where & ENG_REF_FRAME_MASK, c.time_ns };
    return r;
}

/* ---- declared hosts (engine_hosts.c) ---- */

/* An address as a host's table keys it: every byte set. */
static inline struct ib_host_address eng_host_address(uint8_t ip_version, const uint8_t ip[16])
{
    struct ib_host_address a;
    memset(&a, 0, sizeof a);
    a.ip_version = ip_version;
    memcpy(a.ip, ip, 16);
    return a;
}

struct eng_host {
    char *name;
    uint8_t from; /* enum ib_host_from */
};

struct eng_hosts {
    struct eng_host *list; /* ib_engine_host_add's numbers */
    size_t count, cap;
    struct et_table addrs; /* declared address -> host */
    struct ep_pool addr_pool;
    size_t addr_count;
    ib_sender_host_fn sender;
    void *sender_ctx;
};

bool eng_hosts_init(struct ib_engine *e);
void eng_hosts_destroy(struct ib_engine *e);
/* The declared host of a REQ's source address (p: the REQ, for the sender
 * callback), or -1. */
int eng_hosts_of(const struct ib_engine *e, const struct ib_packet *p, uint8_t ip_version,
                 const uint8_t ip[16]);

/* ---- the port pool (engine_ports.c) ---- */

struct eng_source;
struct eng_port;
struct eng_tuple;

/* A connection's hold on its source port and tuple, from its REQ until the
 * connection ends. */
struct eng_hold {
    struct eng_ref req;             /* the REQ that took it */
    uint32_t comm_id;               /* that REQ's LocalCommID */
    uint32_t port_hash, tuple_hash; /* their slots, to prefetch */
    struct eng_port *port;          /* NULL: no port held */
    struct eng_tuple *tuple;
    struct el_link port_link, tuple_link; /* the holds of one port, of one tuple */
};

struct eng_ports {
    struct et_table sources; /* (port space, host) -> eng_source */
    struct et_table ports;   /* (source, source port) -> eng_port */
    struct et_table dests;   /* (source, src IP, dst IP, dst port) -> eng_dest */
    struct et_table addrs;   /* (source, src IP) of hosts past a few addresses */
    struct ep_pool addr_pool;
    size_t addr_count;      /* in addrs, at most max_sources */
    struct et_table tuples; /* (dest, source port) -> eng_tuple */
    struct et_table levels; /* (source, ports toward one destination) -> eng_level */
    struct ep_pool source_pool, port_pool, dest_pool, tuple_pool, level_pool;
    struct eng_source **source_list; /* first seen first */
    size_t source_count, source_cap;
};

bool eng_ports_init(struct ib_engine *e);
void eng_ports_destroy(struct ib_engine *e);
/* The REQ p of the frame being fed, whose tuple is t and LocalCAGUID
 * ca_guid, takes its source port into h (h->req and h->comm_id set, h's
 * links initialized) from its host's pool: reuse findings, pool_high,
 * pool_forecast, the frame's port figures. */
void eng_ports_take(struct ib_engine *e, struct eng_hold *h, const struct ib_packet *p,
                    const struct ib_tuple *t, uint64_t ca_guid);
/* The connection of h ended: its port given back (nothing when none held). */
void eng_ports_release(struct ib_engine *e, struct eng_hold *h);
/* The frame's port figures (links.ports_in_use ...) from h. */
void eng_ports_fill(struct ib_engine *e, const struct eng_hold *h);
/* Starts loading what a release of h touches. */
void eng_ports_prefetch(const struct ib_engine *e, const struct eng_hold *h);
const struct ib_source_stats *eng_ports_source(const struct ib_engine *e, size_t i);
void eng_ports_source_forecast(const struct ib_engine *e, size_t i, int64_t now_ns,
                               struct ib_forecast out[IB_MODEL_COUNT]);

/* ---- connections (engine_cm.c) ---- */

/* A due time of the connection timers (FIFO or heap): the connection of pool index
 * self and record index `index` (stale once that connection is gone). */
struct eng_due {
    int64_t at_ns;
    uint32_t self, index;
};

struct eng_cm {
    struct et_table conns; /* (active node, LocalCommID, SIDR?) -> eng_conn */
    struct et_table alts;  /* (alternate path's active LID, LocalCommID) -> eng_conn, for
                            * connections whose REQ or LAP names an alternate path */
    struct ep_pool conn_pool;
    struct ep_pool extra_pool; /* the rarely needed parts of connections (conn_extra) */
    struct el_link age;        /* open connections, oldest REQ first */
    struct el_link ended;      /* ended ones still findable for late copies, oldest end first */
    size_t conn_count;         /* open and ended ones */
    size_t ended_count;        /* of them ended */
    size_t waiting;            /* open ones waiting for an answer (REQ, REP, DREQ sent) */
    uint32_t next_conn_index;
    struct eng_due *ring; /* the connections' timers set in order of due time, a FIFO */
    size_t ring_head, ring_count, ring_cap; /* ring_cap: 0 or a power of two */
    struct eng_due *heap;                   /* the others, a binary min-heap */
    size_t heap_len, heap_cap;
    size_t heap_count; /* the timers pending, heap_len + ring_count (ib_engine_has_timers) */
    int64_t first_due; /* the earliest of them (INT64_MAX: none) */
};

bool eng_cm_init(struct ib_engine *e);
void eng_cm_destroy(struct ib_engine *e);
/* The timers of connections due before now: gave up, or forgotten. */
void eng_cm_expire(struct ib_engine *e, int64_t now_ns);
void eng_cm_feed(struct ib_engine *e, const struct ib_packet *p);
void eng_cm_finish(struct ib_engine *e);

/* ---- MAD transactions and redirects (engine_mad.c) ---- */

struct eng_mad {
    struct et_table txns;   /* (requester, class, TID) -> eng_txn */
    struct et_table chains; /* (requester, class) -> open eng_chain */
    struct et_table madqps; /* (node, QP) named by a redirect */
    struct ep_pool txn_pool, chain_pool, madqp_pool;
    struct el_link pending;  /* unanswered transactions, oldest first */
    struct el_link answered; /* answered ones kept to ignore repeats */
    size_t pending_count, answered_count;
    struct el_link madqp_age;
    size_t madqp_count;
    struct ib_redirect_chain **chain_list; /* for the report */
    size_t chain_count, chain_cap;
};

bool eng_mad_init(struct ib_engine *e);
void eng_mad_destroy(struct ib_engine *e);
/* A MAD other than a CM connection message. */
void eng_mad_feed(struct ib_engine *e, const struct ib_packet *p);

/* What the CM tracker tells the redirect tracker. */
struct eng_redirect_src {
    const struct ib_endpoint *requester; /* who must follow it */
    uint8_t mgmt_class;
    const struct ib_endpoint *agent; /* who redirected */
    uint32_t agent_qp;
    struct ib_frame_ref request; /* the request redirected, frame 0 unknown */
    uint16_t cm_attr;            /* IB_CM_REJ or IB_CM_SIDR_REP for a CM redirect */
    uint16_t reject_reason;      /* with IB_CM_REJ */
};
void eng_mad_redirect(struct ib_engine *e, const struct eng_redirect_src *src,
                      const struct ib_cpi *cpi);
/* A request of this class from p->src: does it follow a redirect? */
void eng_mad_follow(struct ib_engine *e, const struct ib_packet *p, uint8_t mgmt_class);
/* A non-redirect answer from p->src to p->dst: ends a chain there. */
void eng_mad_answer(struct ib_engine *e, const struct ib_packet *p, uint8_t mgmt_class);

/* ---- the engine ---- */

struct ib_engine {
    struct ib_engine_config cfg;
    struct ib_engine_stats stats;
    struct ib_connection_stats conn;
    uint32_t pool_size;       /* pool_high - pool_low + 1 */
    uint32_t threshold_ports; /* ports in use that trigger pool_high */
    uint32_t rearm_ports;     /* at or below this, pool_high may fire again */
    struct ef_clock forecast_clock;
    double forecast_rearm_s; /* above this (or no estimate), pool_forecast may fire again */
    ib_connection_sink sink;
    void *sink_ctx;
    ib_usage_sink usage_sink;
    void *usage_ctx;
    bool finished;
    struct eng_latency lat_setup, lat_req_rep;
    struct eng_cm cm;
    struct eng_hosts hosts;
    struct eng_ports ports;
    struct eng_mad mad;
    /* The frame being fed. */
    struct ib_frame_ref at;
    struct ib_frame_analysis *out;
};

/* Memory ran out for an entry: counted, never silent.  Returns NULL for
 * the caller to return. */
void *eng_oom(struct ib_engine *e);

/* Adds a finding of this kind to the current frame unless the kind is
 * switched off or the frame is full; returns it, for the caller to fill in
 * its data, or NULL. */
struct ib_finding *eng_emit(struct ib_engine *e, enum ib_finding_kind kind,
                            struct ib_frame_ref related);

#endif
