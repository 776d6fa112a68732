/* engine_ports.h - the port pool (engine_ports.c): its state in the engine,
 * the hold a connection keeps on a port, and what the connections ask of it. */
#ifndef IBSCOPE_ENGINE_PORTS_H
#define IBSCOPE_ENGINE_PORTS_H

#include "engine.h"
#include "engine_forecast.h"
#include "engine_ref.h"
#include "engine_table.h"

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
    uint32_t pool_size;       /* pool_high - pool_low + 1 */
    uint32_t threshold_ports; /* ports in use that trigger pool_high */
    uint32_t rearm_ports;     /* at or below this, pool_high may fire again */
    struct ef_clock forecast_clock;
    double forecast_rearm_s; /* above this (or no estimate), pool_forecast may fire again */
    ib_usage_sink usage_sink;
    void *usage_ctx;
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

#endif
