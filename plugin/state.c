/* state.c - per-file engine, first-pass analysis and its replay on every later pass.
 *
 * The engine must see frames once, in order, as the offline analyzer does:
 * so it is fed only on the first pass (!PINFO_FD_VISITED).  What it said of
 * a frame, when it said anything, goes into the file's frame table; later
 * passes (tshark -2, clicking in the GUI) find and parse the packet the same
 * way, without a tree, and replay the stored verdict, so every pass shows
 * the same thing.  The engine and the table live from one file's init
 * routine to its cleanup routine.
 */
#include "ibscope_plugin.h"

#include <epan/prefs.h>
#include <wiretap/wtap.h>

#include "frame_table.h"
#include "place.h"

static struct ib_engine *engine;
/* Stored results of redirect responses by frame number: the request that
 * follows a redirect names itself in the response's result.  That is a
 * forward reference, so like Wireshark's own "Response in" links it shows
 * from the second pass on (tshark -2, the GUI), not in a single pass. */
static GHashTable *redirect_results;
/* A chain's first request by frame number -> its chain + 1: written into
 * that frame's result on a later pass (join_chain). */
static GHashTable *chain_starts;
/* struct ibs_conn by connection index, for the whole file. */
static GArray *conns;
/* What each frame left for later passes, if anything: where the packet is
 * and how to parse it are found again from the frame on every pass. */
static struct ibs_frame_table stored;
static uint16_t rocev2_port = IB_ROCEV2_UDP_PORT; /* the built-in's preference, per file */

static void state_init(void)
{
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    cfg.pool_low = (uint16_t)ibs_prefs.pool_low;
    cfg.pool_high = (uint16_t)ibs_prefs.pool_high;
    /* A preference is a plain unsigned or text: a port past 16 bits is
     * refused here, before the configuration's type would cut it, and the
     * threshold and horizon are read as the analyzer reads its options; the
     * rest is the core's rule. */
    const char *threshold = ibs_prefs.threshold ? ibs_prefs.threshold : "";
    const char *horizon = ibs_prefs.forecast_horizon ? ibs_prefs.forecast_horizon : "";
    const char *problem;
    if (ibs_prefs.pool_low > 65535 || ibs_prefs.pool_high > 65535)
        problem = "a port of the pool is above 65535";
    else if (!ib_text_percent(threshold, &cfg.threshold_pct))
        problem = "the threshold is not " IB_TEXT_PERCENT_RULE;
    else if (!ib_text_seconds(horizon, &cfg.forecast_horizon_s))
        problem = "the forecast horizon is not " IB_TEXT_SECONDS_RULE;
    else
        problem = ib_engine_config_problem(&cfg);
    if (problem) {
        /* The analyzer's rule; said once per file, and the defaults used. */
        g_warning("ibscope: port pool %u-%u, threshold %s %%, forecast horizon %s s: %s; "
                  "using %u-%u, %u %% and %u s",
                  ibs_prefs.pool_low, ibs_prefs.pool_high, threshold, horizon, problem,
                  IB_POOL_LOW_DEFAULT, IB_POOL_HIGH_DEFAULT, IB_THRESHOLD_PCT_DEFAULT,
                  IB_FORECAST_HORIZON_DEFAULT);
        ib_engine_config_init(&cfg);
    }
    for (int k = 0; k < IB_FIND_COUNT; k++)
        cfg.enabled[k] = ibs_prefs.enabled[k] != FALSE;
    engine = ib_engine_new(&cfg);
    redirect_results = g_hash_table_new(g_direct_hash, g_direct_equal);
    chain_starts = g_hash_table_new(g_direct_hash, g_direct_equal);
    conns = g_array_new(FALSE, TRUE, sizeof(struct ibs_conn));
    /* Read once per file, not per frame: a preference lookup is a string search. */
    unsigned port = ibs_pref_uint("infiniband", "rroce.port", IB_ROCEV2_UDP_PORT);
    rocev2_port = port > 0 && port <= 65535 ? (uint16_t)port : IB_ROCEV2_UDP_PORT;
}

const struct ib_source_stats *ibs_state_source(uint32_t source)
{
    return engine ? ib_engine_source(engine, source) : NULL;
}

bool ibs_state_wire_direction(uint32_t index, struct ib_wire_direction *out)
{
    if (!engine || index >= ib_engine_wire_count(engine))
        return false;
    ib_engine_wire_direction(engine, index, out);
    return true;
}

static void state_cleanup(void)
{
    ib_engine_free(engine);
    engine = NULL;
    if (redirect_results)
        g_hash_table_destroy(redirect_results);
    redirect_results = NULL;
    if (chain_starts)
        g_hash_table_destroy(chain_starts);
    chain_starts = NULL;
    if (conns)
        g_array_free(conns, TRUE);
    conns = NULL;
    ibs_frame_table_clear(&stored);
}

void ibs_state_register(void)
{
    register_init_routine(state_init);
    register_cleanup_routine(state_cleanup);
}

void ibs_state_handoff(void)
{
    ibs_place_handoff();
}

/* The MAD-QP question: asked of the engine on the first pass (and the
 * answer remembered), answered from memory on replays. */
struct qp_ctx {
    bool replay;
    bool answer;
};

static bool ask_mad_qp(void *ctx, const struct ib_endpoint *dst, uint32_t qp)
{
    struct qp_ctx *c = ctx;
    if (c->replay)
        return c->answer;
    bool yes = engine && ib_engine_is_mad_qp(engine, dst, qp);
    c->answer = c->answer || yes;
    return yes;
}

/* The link type of a frame the core parses whole, as the analyzer does (0: none). */
static uint32_t pcap_linktype(const packet_info *pinfo)
{
    if (!pinfo->rec || pinfo->rec->rec_type != REC_TYPE_PACKET)
        return 0;
    switch (pinfo->rec->rec_header.packet_header.pkt_encap) {
    case WTAP_ENCAP_ETHERNET: return IB_DLT_EN10MB;
    case WTAP_ENCAP_SLL: return IB_DLT_LINUX_SLL;
    case WTAP_ENCAP_SLL2: return IB_DLT_LINUX_SLL2;
    case WTAP_ENCAP_INFINIBAND: return IB_DLT_INFINIBAND; /* link type 247, where read */
    default: return 0;
    }
}

/* Finds and parses the frame's InfiniBand packet.  Ethernet and SLL frames
 * go through the core's own link parser, so the link-layer length rules are
 * the analyzer's, and a RoCE packet that Wireshark gave to another dissector
 * (too mangled for its own, or taken for TFTP on a conversation's ports, as
 * in one of the real captures) is still seen.  Elsewhere (Decode As,
 * tunnels, ERF) the packet is where Wireshark's own dissector found it, as
 * its layers say (place.c): no tree is needed, so a pass with one and a pass
 * without find the same.  Costs a walk of the frame's layers (and the core's
 * look at an Ethernet header) when there is no InfiniBand. */
static enum ibs_found parse(tvbuff_t *tvb, packet_info *pinfo, struct qp_ctx *qc,
                            struct ib_packet *pkt)
{
    uint32_t linktype = pcap_linktype(pinfo);
    if (linktype == 0 && !ibs_place_has_infiniband(pinfo))
        return IBS_FOUND_NONE;
    struct ib_parse_opts opts;
    ib_parse_opts_init(&opts);
    opts.rocev2_port = rocev2_port;
    opts.is_mad_qp = ask_mad_qp;
    opts.ctx = qc;
    opts.verify_crc = ibs_prefs.verify_crc != FALSE;
    size_t caplen = tvb_captured_length(tvb), wirelen = tvb_reported_length(tvb);
    const uint8_t *data = tvb_get_ptr(tvb, 0, (gint)caplen);
    if (linktype != 0) {
        if (ib_parse_frame(&opts, linktype, data, caplen, wirelen, pkt) == IB_FRAME_IB)
            return IBS_FOUND_IB;
        if (!ibs_place_has_infiniband(pinfo))
            return IBS_FOUND_NONE;
    }
    struct ibs_placement at;
    switch (ibs_place_find(pinfo, data, caplen, &at)) {
    case IBS_PLACE_NO_IB: return IBS_FOUND_NONE;
    case IBS_PLACE_UNKNOWN: return IBS_FOUND_UNPLACED;
    case IBS_PLACE_ETHERNET:
        return ib_parse_ethernet_at(&opts, data, caplen, wirelen, at.eth_off, pkt) == IB_FRAME_IB
                   ? IBS_FOUND_IB
                   : IBS_FOUND_UNPLACED;
    case IBS_PLACE_CARRIED: break;
    }
    ib_parse_carried(&opts, data, caplen, wirelen, &at.carrier, pkt);
    return IBS_FOUND_IB;
}

/* Keeps only what a later pass needs: a frame's analysis is mostly empty. */
static struct ibs_result *keep(const struct ib_frame_analysis *a)
{
    if (a->count == 0 && ib_frame_links_empty(&a->links))
        return NULL;
    struct ibs_result *r = wmem_new0(wmem_file_scope(), struct ibs_result);
    r->links = a->links;
    r->count = a->count;
    if (a->count)
        r->findings = wmem_memdup(wmem_file_scope(), a->findings, a->count * sizeof a->findings[0]);
    return r;
}

/* The frame as the engine names it: this file, its number, its time. */
static struct ib_frame_ref frame_ref(const packet_info *pinfo)
{
    struct ib_frame_ref at = { 0, pinfo->num,
                               (int64_t)pinfo->abs_ts.secs * 1000000000 + pinfo->abs_ts.nsecs };
    return at;
}

/* A finding the engine made for an earlier frame (unreachable, on the last
 * copy of a message never answered: known only once its wait ran out) joins
 * that frame's result, which later passes show (tshark -2, the GUI).  Every
 * CM frame of a connection is stored, so its frame is there. */
static void add_to_earlier(const struct ib_finding *f)
{
    struct ibs_stored *st = ibs_frame_table_find_mut(&stored, (uint32_t)f->at.frame);
    if (!st)
        return;
    struct ibs_result *r = (struct ibs_result *)st->result;
    if (!r) {
        r = wmem_new0(wmem_file_scope(), struct ibs_result);
        st->result = r;
    }
    struct ib_finding *all = wmem_alloc(wmem_file_scope(), (r->count + 1) * sizeof *all);
    if (r->count)
        memcpy(all, r->findings, r->count * sizeof *all);
    all[r->count++] = *f;
    r->findings = all;
}

/* The frame's analysis keeps its own findings; those for earlier frames go
 * to them. */
static void route_findings(struct ib_frame_analysis *a, guint32 num)
{
    unsigned kept = 0;
    for (unsigned i = 0; i < a->count; i++) {
        if (a->findings[i].at.frame != num)
            add_to_earlier(&a->findings[i]);
        else
            a->findings[kept++] = a->findings[i];
    }
    a->count = kept;
}

/* A frame whose redirect started chain n: its first request joins it. */
static void note_chain_start(const struct ib_frame_links *l)
{
    if (!l->has_chain || !engine || !chain_starts)
        return;
    const struct ib_redirect_chain *c = ib_engine_chain(engine, l->chain);
    if (c && c->first_request.frame && c->hop_count + c->hops_dropped == 1)
        g_hash_table_insert(chain_starts, GUINT_TO_POINTER((guint32)c->first_request.frame),
                            GUINT_TO_POINTER(l->chain + 1));
}

/* A chain's first request joins its chain from the second pass on (the
 * redirect that makes it one comes later). */
static void join_chain(guint32 num, struct ibs_frame *out)
{
    if (!chain_starts || g_hash_table_size(chain_starts) == 0)
        return;
    gpointer v = g_hash_table_lookup(chain_starts, GUINT_TO_POINTER(num));
    if (!v)
        return;
    out->first_of_chain = true;
    out->has_chain = true;
    out->chain = GPOINTER_TO_UINT(v) - 1;
}

/* The connection and chain of the frame are kept in st (and what its REQ
 * said once per connection), not in the result: out of the links before
 * keep().  A connection's first frame is its REQ or SIDR_REQ. */
static void take_conn_and_chain(struct ibs_stored *st, struct ib_frame_links *l,
                                const struct ib_packet *p)
{
    if (l->has_conn && conns) {
        if (l->conn >= conns->len) {
            struct ibs_conn c = { l->conn_service_id,
                                  l->has_conn_tuple,
                                  p->cm.attr == IB_CM_SIDR_REQ,
                                  l->conn_tuple,
                                  p->src,
                                  p->dst,
                                  l->has_ports,
                                  l->source };
            g_array_set_size(conns, l->conn + 1);
            g_array_index(conns, struct ibs_conn, l->conn) = c;
        }
        st->conn1 = l->conn + 1;
        st->conn_from_passive = l->conn_from_passive;
    }
    if (l->has_chain)
        st->chain1 = l->chain + 1;
    note_chain_start(l);
    l->has_conn = l->conn_from_passive = l->has_conn_tuple = l->has_chain = false;
    l->conn = l->chain = 0;
    l->conn_service_id = 0;
    memset(&l->conn_tuple, 0, sizeof l->conn_tuple);
}

/* An RC frame's queue pair, and what an answer covers: kept in st, out of
 * the links before keep() (a data frame has no result of its own). */
static void take_qp(struct ibs_stored *st, struct ib_frame_links *l)
{
    if (l->has_qp)
        st->qp1 = l->qp + 1;
    if (l->acks.frame) {
        st->acks_frame = (uint32_t)l->acks.frame;
        st->ack_rtt_ns = l->ack_rtt_ns;
    }
    l->has_qp = false;
    l->qp = 0;
    memset(&l->acks, 0, sizeof l->acks);
    l->ack_rtt_ns = 0;
}

/* A data packet's wire direction: kept in st, out of the links before
 * keep() like its queue pair. */
static void take_wire(struct ibs_stored *st, struct ib_frame_links *l)
{
    if (l->has_wire_dir) {
        st->wire1 = l->wire_dir + 1;
        st->wire_path_mtu = l->wire_path_mtu;
    }
    l->has_wire_dir = false;
    l->wire_dir = 0;
    l->wire_path_mtu = 0;
}

/* What st says of the frame, into out. */
static void give_stored(const struct ibs_stored *st, struct ibs_frame *out)
{
    out->result = st->result;
    out->conn = st->conn1 && conns && st->conn1 <= conns->len
                    ? &g_array_index(conns, struct ibs_conn, st->conn1 - 1)
                    : NULL;
    out->conn_index = st->conn1 ? st->conn1 - 1 : 0;
    out->conn_from_passive = st->conn_from_passive;
    out->has_chain = st->chain1 != 0;
    out->chain = st->chain1 ? st->chain1 - 1 : 0;
    out->qp1 = st->qp1;
    out->acks_frame = st->acks_frame;
    out->ack_rtt_ns = st->ack_rtt_ns;
    out->wire1 = st->wire1;
    out->wire_path_mtu = st->wire_path_mtu;
}

/* A redirect response (it has a chain depth) is remembered; a request that
 * follows one is written into it as its target frame (the first only). */
static void link_redirect(struct ibs_result *r, guint32 num, const struct ib_frame_ref *at)
{
    if (!redirect_results)
        return;
    if (r->links.redirected_by.frame != 0) { /* a frame number of this file: 32 bits */
        struct ibs_result *m = g_hash_table_lookup(
            redirect_results, GUINT_TO_POINTER((guint32)r->links.redirected_by.frame));
        if (m && m->redirect_target_frame.frame == 0)
            m->redirect_target_frame = *at;
    } else if (r->links.has_redirect_depth) {
        g_hash_table_insert(redirect_results, GUINT_TO_POINTER(num), r);
    }
}

enum ibs_found ibs_state_frame(tvbuff_t *tvb, packet_info *pinfo, struct ibs_frame *out)
{
    out->result = NULL;
    out->conn = NULL;
    out->conn_from_passive = false;
    out->has_chain = out->first_of_chain = false;
    out->qp1 = out->acks_frame = out->wire1 = 0;
    out->wire_path_mtu = 0;
    out->ack_rtt_ns = 0;
    out->not_kept = false;
    if (PINFO_FD_VISITED(pinfo)) {
        /* A later pass: the same parse, and the stored verdict if the
         * first pass had one. */
        const struct ibs_stored *st = ibs_frame_table_find(&stored, pinfo->num);
        struct qp_ctx qc = { true, st && st->mad_qp };
        enum ibs_found found = parse(tvb, pinfo, &qc, &out->pkt);
        if (found != IBS_FOUND_IB)
            return found;
        if (st)
            give_stored(st, out);
        join_chain(pinfo->num, out);
        return found;
    }
    struct qp_ctx qc = { false, false };
    /* A frame's analysis is kilobytes, most of it unused: one for all. */
    static struct ib_frame_analysis a;
    enum ibs_found found = parse(tvb, pinfo, &qc, &out->pkt);
    if (found != IBS_FOUND_IB) {
        /* The engine counts nothing of a frame without InfiniBand, but its
         * time may pass a connection's timeout. */
        if (engine && ib_engine_has_timers(engine)) {
            ib_engine_feed(engine, frame_ref(pinfo), NULL, &a);
            route_findings(&a, 0);
        }
        return found;
    }
    if (!engine)
        return found;
    struct ib_frame_ref at = frame_ref(pinfo);
    ib_engine_feed(engine, at, &out->pkt, &a);
    route_findings(&a, pinfo->num);
    struct ibs_stored st = { .frame = pinfo->num, .mad_qp = qc.answer };
    take_conn_and_chain(&st, &a.links, &out->pkt);
    take_qp(&st, &a.links);
    take_wire(&st, &a.links);
    struct ibs_result *r = keep(&a);
    if (r)
        link_redirect(r, pinfo->num, &at);
    st.result = r;
    /* Stored only when a later pass has something to replay; shown on this
     * pass even when it could not be stored (said on the frame). */
    if (st.mad_qp || st.conn1 || st.chain1 || st.qp1 || st.wire1 || st.result) {
        out->not_kept = !ibs_frame_table_add(&stored, &st);
        give_stored(&st, out);
    }
    return found;
}

bool ibs_state_conn_of(uint32_t frame, uint32_t *conn)
{
    const struct ibs_stored *st = ibs_frame_table_find(&stored, frame);
    if (!st || !st->conn1)
        return false;
    *conn = st->conn1 - 1;
    return true;
}

bool ibs_state_qp_of(uint32_t frame, uint32_t *qp)
{
    const struct ibs_stored *st = ibs_frame_table_find(&stored, frame);
    if (!st || !st->qp1)
        return false;
    *qp = st->qp1 - 1;
    return true;
}

bool ibs_state_chain_of(uint32_t frame, uint32_t *chain)
{
    const struct ibs_stored *st = ibs_frame_table_find(&stored, frame);
    if (st && st->chain1) {
        *chain = st->chain1 - 1;
        return true;
    }
    /* A chain's first request: known once the redirect that answers it went by. */
    gpointer v = chain_starts ? g_hash_table_lookup(chain_starts, GUINT_TO_POINTER(frame)) : NULL;
    if (!v)
        return false;
    *chain = GPOINTER_TO_UINT(v) - 1;
    return true;
}
