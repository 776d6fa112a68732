/* engine_state.h - struct ib_engine, which holds every part's state in
 * place (no pointer to follow on each frame), and the two helpers every part
 * uses (engine_emit.c, which calls no part).  Private to the engine. */
#ifndef IBSCOPE_ENGINE_STATE_H
#define IBSCOPE_ENGINE_STATE_H

#include "engine.h"
#include "engine_cm.h"
#include "engine_cnp.h"
#include "engine_hosts.h"
#include "engine_latency.h"
#include "engine_mad.h"
#include "engine_pfc.h"
#include "engine_ports.h"
#include "engine_transport.h"
#include "engine_wire.h"

struct ib_engine {
    struct ib_engine_config cfg;
    struct ib_engine_stats stats;
    struct ib_connection_stats conn;
    ib_connection_sink sink;
    void *sink_ctx;
    bool finished;
    struct eng_latency lat_setup, lat_req_rep;
    struct eng_cm cm;
    struct eng_hosts hosts;
    struct eng_ports ports;
    struct eng_mad mad;
    struct eng_transport transport;
    struct eng_wire wire;
    struct eng_cnp cnp;
    struct eng_pfc pfc;
    ib_congestion_sink congestion_sink;
    void *congestion_ctx;
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
