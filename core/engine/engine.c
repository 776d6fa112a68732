/* engine.c - the engine's entry points: setup, per-frame dispatch, summary.
 *
 * Findings of one frame come in this fixed order:
 *   1. addressing and malformed, in the order of the packet's diagnostics,
 *      then icrc_mismatch and vcrc_mismatch;
 *   2. CM: unreachable for connections given up before this frame (each on
 *      its own last frame), then retransmission, or else duplicate_tuple or
 *      explicit_port_shared, port_reused, pool_high, pool_forecast;
 *      then redirect findings of the CM (REJ 24/25, SIDR_REP 4, a REQ that
 *      follows one);
 *   3. other MADs: on a request redirect_followed, redirect_key_mismatch or
 *      redirect_not_followed; on a response redirect, redirect_gid_only,
 *      redirect_bad_target, redirect_loop;
 *   4. the transport: retries_exhausted for queue pairs given up before this
 *      frame (each on its last resend; made with the CM's unreachable, before
 *      the frame's own); on a request psn_start_mismatch, psn_gap,
 *      out_of_order or transport_retransmission; on an answer rnr_nak, nak,
 *      or ack_timeout then capture_loss;
 *   5. the wire audit: on a CM REQ mtu_exceeded (link); on a data packet
 *      asymmetric_class, not_ect, mtu_exceeded (path), roce_version_mix,
 *      link_local_gid_routed.
 *   6. congestion: ce_without_cnp for CE marks whose wait for a CNP ended
 *      before this frame (each on its own frame); on a CNP, those of the
 *      marks it comes too late for (naming it); on a PFC frame, pfc_storm.
 */
#include "engine_cm.h"
#include "engine_hosts.h"
#include "engine_mad.h"
#include "engine_ports.h"
#include "engine_state.h"
#include "engine_transport.h"
#include "engine_wire.h"

#include <stdio.h>
#include <stdlib.h>

const char *ib_conn_state_name(enum ib_conn_state state)
{
    switch (state) {
    case IB_CONN_REQ_SENT: return "req_sent";
    case IB_CONN_REPLIED: return "replied";
    case IB_CONN_ESTABLISHED: return "established";
    case IB_CONN_REJECTED: return "rejected";
    case IB_CONN_CLOSING: return "closing";
    case IB_CONN_CLOSED: return "closed";
    case IB_CONN_SIDR: return "sidr";
    case IB_CONN_UNREACHABLE: return "unreachable";
    }
    return "unknown";
}

struct ib_engine *ib_engine_new(const struct ib_engine_config *cfg)
{
    if (cfg && ib_engine_config_problem(cfg))
        return NULL;
    struct ib_engine *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    if (cfg)
        e->cfg = *cfg;
    else
        ib_engine_config_init(&e->cfg);
    bool ok = eng_cm_init(e);
    ok = eng_ports_init(e) && ok;
    ok = eng_hosts_init(e) && ok;
    ok = eng_mad_init(e) && ok;
    ok = eng_transport_init(e) && ok;
    ok = eng_wire_init(e) && ok;
    ok = eng_cnp_init(e) && ok;
    ok = eng_pfc_init(e) && ok;
    if (!ok) {
        ib_engine_free(e);
        return NULL;
    }
    return e;
}

void ib_engine_free(struct ib_engine *e)
{
    if (!e)
        return;
    eng_cm_destroy(e);
    eng_ports_destroy(e);
    eng_hosts_destroy(e);
    eng_mad_destroy(e);
    eng_transport_destroy(e);
    eng_wire_destroy(e);
    eng_cnp_destroy(e);
    eng_pfc_destroy(e);
    free(e);
}

void ib_engine_set_connection_sink(struct ib_engine *e, ib_connection_sink sink, void *ctx)
{
    e->sink = sink;
    e->sink_ctx = ctx;
}

void ib_engine_finish(struct ib_engine *e)
{
    if (e->finished)
        return;
    e->finished = true;
    eng_cm_finish(e);
}

/* Core diagnostics as findings: addressing rules as addressing, errors (cut
 * or inconsistent lengths, unknown MAD or IP CM versions) as malformed; the
 * snaplen note stays in the tree. */
static void diag_findings(struct ib_engine *e, const struct ib_packet *p)
{
    static const struct ib_frame_ref none;
    bool counted[IB_DIAG_COUNT] = { false }; /* a packet counts once per diagnostic */
    for (unsigned i = 0; i < p->diags.count && i < IB_DIAG_MAX; i++) {
        uint16_t id = p->diags.items[i].id;
        const struct ib_diag_info *info = ib_diag_info((enum ib_diag_id)id);
        if (id < IB_DIAG_COUNT && !counted[id]) {
            counted[id] = true;
            e->stats.diagnostics[id]++;
        }
        enum ib_finding_kind kind;
        if (info->addressing)
            kind = IB_FIND_ADDRESSING;
        else if (info->severity == IB_SEV_ERROR)
            kind = IB_FIND_MALFORMED;
        else
            continue;
        struct ib_finding *f = eng_emit(e, kind, none);
        if (!f)
            continue;
        f->severity = info->severity;
        f->rule = id;
    }
}

bool ib_frame_links_empty(const struct ib_frame_links *l)
{
    /* ib_engine_feed clears the whole struct, padding included. */
    static const struct ib_frame_links none;
    return memcmp(l, &none, sizeof none) == 0;
}

/* CRCs that do not verify (checked by the parser, ib_parse_opts.verify_crc). */
static void crc_findings(struct ib_engine *e, const struct ib_packet *p)
{
    static const struct ib_frame_ref none;
    struct ib_finding *f;
    if (p->crc.icrc == IB_CRC_MISMATCH && (f = eng_emit(e, IB_FIND_ICRC_MISMATCH, none))) {
        f->data.crc_carried = p->crc.icrc_carried;
        f->data.crc_computed = p->crc.icrc_computed;
    }
    if (p->crc.vcrc == IB_CRC_MISMATCH && (f = eng_emit(e, IB_FIND_VCRC_MISMATCH, none))) {
        f->data.crc_carried = p->crc.vcrc_carried;
        f->data.crc_computed = p->crc.vcrc_computed;
    }
}

/* A frame comes: what it is, the waits that ran out before it. */
static void frame_begin(struct ib_engine *e, struct ib_frame_ref at, struct ib_frame_analysis *out)
{
    /* Everything but the findings array, which eng_emit fills entry by
     * entry: clearing its kilobytes on every frame would dominate the cost. */
    memset(out, 0, offsetof(struct ib_frame_analysis, findings));
    e->stats.frames++;
    e->at = at;
    e->out = out;
    /* Connections whose wait ran out before this frame, of any kind, gave
     * up first: their ports are free for it. */
    eng_cm_expire(e, at.time_ns);
    eng_transport_expire(e, at.time_ns);
    eng_cnp_expire(e, &e->cnp, at.time_ns);
}

void ib_engine_feed(struct ib_engine *e, struct ib_frame_ref at, const struct ib_packet *pkt,
                    struct ib_frame_analysis *out)
{
    frame_begin(e, at, out);
    if (!pkt) {
        e->out = NULL;
        return;
    }
    e->stats.ib_frames++;
    if (pkt->diags.count) /* most packets have none: no call */
        diag_findings(e, pkt);
    crc_findings(e, pkt);
    if (ib_packet_has(pkt, IB_HAS_MAD)) {
        if (pkt->mad.mgmt_class == IB_CLASS_CM && ib_packet_has(pkt, IB_HAS_CM) &&
            pkt->cm.attr != IB_CM_CLASS_PORT_INFO) {
            eng_cm_feed(e, pkt);
            eng_transport_cm(e, pkt);
            if (pkt->cm.attr == IB_CM_REQ)
                eng_wire_cm_req(e, pkt);
        } else {
            eng_mad_feed(e, pkt);
        }
    } else if (ib_packet_has(pkt, IB_HAS_BTH)) {
        eng_transport_feed(e, pkt);
        eng_wire_feed(e, pkt);
        eng_cnp_feed(e, pkt);
        eng_pfc_data(&e->pfc, pkt);
    }
    e->out = NULL;
}

void ib_engine_feed_mac_control(struct ib_engine *e, struct ib_frame_ref at,
                                const struct ib_packet *pkt, struct ib_frame_analysis *out)
{
    frame_begin(e, at, out);
    e->stats.mac_control_frames++;
    if (pkt->diags.count)
        diag_findings(e, pkt);
    if (ib_packet_has(pkt, IB_HAS_MAC_CONTROL) && pkt->macc.complete)
        eng_pfc_frame(e, &pkt->macc);
    e->out = NULL;
}

bool ib_engine_drain(struct ib_engine *e, struct ib_frame_analysis *out)
{
    memset(out, 0, offsetof(struct ib_frame_analysis, findings));
    e->out = out;
    bool done = eng_cnp_drain(e);
    if (done)
        eng_pfc_drain(e);
    e->out = NULL;
    return !done;
}

void ib_engine_set_congestion_sink(struct ib_engine *e, ib_congestion_sink sink, void *ctx)
{
    e->congestion_sink = sink;
    e->congestion_ctx = ctx;
}

void ib_engine_advance(struct ib_engine *e, int64_t now_ns, struct ib_frame_analysis *out)
{
    memset(out, 0, offsetof(struct ib_frame_analysis, findings));
    if (now_ns <= e->at.time_ns)
        return;
    /* Ports given back now are given back at the last frame's place, at
     * this time: the next frame comes after both. */
    e->at.time_ns = now_ns;
    e->out = out;
    eng_cm_expire(e, now_ns);
    eng_transport_expire(e, now_ns);
    eng_cnp_expire(e, &e->cnp, now_ns);
    e->out = NULL;
}

bool ib_engine_has_timers(const struct ib_engine *e)
{
    return e->cm.heap_count > 0 || eng_transport_has_timers(e) || eng_cnp_has_timers(e);
}

bool ib_engine_count_finding(struct ib_engine *e, enum ib_finding_kind kind)
{
    if ((unsigned)kind >= IB_FIND_COUNT || !e->cfg.enabled[kind])
        return false;
    e->stats.findings[kind]++;
    return true;
}

/* ---- summary ---- */

const struct ib_engine_stats *ib_engine_stats(const struct ib_engine *e)
{
    return &e->stats;
}

static void latency_fill(struct ib_latency *out, const struct eng_latency *l)
{
    out->count = l->count;
    out->min_ns = l->count ? l->min : 0;
    out->max_ns = l->count ? l->max : 0;
    out->median_ns = eng_latency_median(l);
}

void ib_engine_connections(const struct ib_engine *e, struct ib_connection_stats *out)
{
    *out = e->conn;
    latency_fill(&out->setup, &e->lat_setup);
    latency_fill(&out->req_rep, &e->lat_req_rep);
}

const struct ib_engine_config *ib_engine_get_config(const struct ib_engine *e)
{
    return &e->cfg;
}
