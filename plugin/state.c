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
/* Wireshark's protocols whose place in a frame's layers says where its
 * InfiniBand dissector found the packet. */
static int proto_infiniband = -1, proto_udp = -1, proto_ethertype = -1, proto_eth = -1,
           proto_vlan = -1;
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
    proto_infiniband = proto_get_id_by_filter_name("infiniband");
    proto_udp = proto_get_id_by_filter_name("udp");
    proto_ethertype = proto_get_id_by_filter_name("ethertype");
    proto_eth = proto_get_id_by_filter_name("eth");
    proto_vlan = proto_get_id_by_filter_name("vlan");
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

/* What Wireshark's own InfiniBand dissector was called from, if it ran. */
enum ibs_under {
    IBS_UNDER_NONE,     /* it did not run: no InfiniBand as far as Wireshark knows */
    IBS_UNDER_UDP,      /* RoCEv2 */
    IBS_UNDER_ETHERNET, /* RoCEv1: an Ethernet header, VLAN tags or not */
    IBS_UNDER_LINK,     /* the capture's link layer: ERF, link type 247 */
};

static enum ibs_under infiniband_under(packet_info *pinfo)
{
    int prev = -1;
    for (wmem_list_frame_t *f = wmem_list_head(pinfo->layers); f; f = wmem_list_frame_next(f)) {
        int id = GPOINTER_TO_INT(wmem_list_frame_data(f));
        if (id == proto_infiniband) {
            if (prev == -1)
                return IBS_UNDER_LINK;
            if (prev == proto_udp)
                return IBS_UNDER_UDP;
            if (prev == proto_ethertype || prev == proto_eth || prev == proto_vlan)
                return IBS_UNDER_ETHERNET;
            return IBS_UNDER_LINK;
        }
        prev = id;
    }
    return IBS_UNDER_NONE;
}

/* An address Wireshark's IP dissector set, for the carrier. */
static void carrier_ip(const address *a, uint8_t ip[16], uint8_t *version)
{
    if (a->type == AT_IPv4 && a->len == 4) {
        memcpy(ip, a->data, 4);
        *version = 4;
    } else if (a->type == AT_IPv6 && a->len == 16) {
        memcpy(ip, a->data, 16);
        *version = 6;
    }
}

/* Where in the frame an address Wireshark set points, at least back bytes
 * in: its dissectors point addresses into the frame's bytes (not so for
 * reassembled or decrypted data, which the frame does not hold). */
static bool address_at(const uint8_t *frame, size_t caplen, const address *a, size_t back,
                       size_t *at)
{
    const uint8_t *p = a->data;
    if (!frame || !p || p < frame || p >= frame + caplen || (size_t)(p - frame) < back)
        return false;
    *at = (size_t)(p - frame) - back;
    return true;
}

/* Whether an IP header of version v that carries UDP starts at ip: false
 * for the bytes of an IP address that only look like one. */
static bool udp_ip_header_at(const uint8_t *frame, size_t caplen, size_t ip, bool v4)
{
    size_t hdr = v4 ? (size_t)(frame[ip] & 0x0F) * 4 : 40;
    return ip + (v4 ? 20 : 40) <= caplen && frame[ip] >> 4 == (v4 ? 4 : 6) && hdr >= 20 &&
           frame[ip + (v4 ? 9 : 6)] == 17 && ip + hdr + 8 <= caplen;
}

/* The last IP header Wireshark dissected, by its addresses: the IPv4
 * dissector points pinfo's source address into the frame; the IPv6 one
 * copies it, so its source and destination are looked for side by side. */
static bool ip_header_of(const uint8_t *frame, size_t caplen, packet_info *pinfo, bool v4,
                         size_t *ip)
{
    const address *src = &pinfo->net_src, *dst = &pinfo->net_dst;
    size_t n = v4 ? 4 : 16, at = v4 ? 12 : 8;
    if (address_at(frame, caplen, src, at, ip) && udp_ip_header_at(frame, caplen, *ip, v4))
        return true;
    if (!frame || src->len != (int)n || dst->len != (int)n)
        return false;
    for (size_t i = at; i + 2 * n <= caplen; i++) {
        if (memcmp(frame + i, src->data, n) == 0 && memcmp(frame + i + n, dst->data, n) == 0 &&
            udp_ip_header_at(frame, caplen, i - at, v4)) {
            *ip = i - at;
            return true;
        }
    }
    return false;
}

/* RoCEv2 wherever Wireshark found it (Decode As onto another port, a
 * tunnel): after the UDP header that follows the last IP header Wireshark
 * dissected.  (Its InfiniBand dissector sets pinfo's ports to QPs, so the
 * UDP ports are read here.) */
static bool locate_udp(const uint8_t *frame, size_t caplen, packet_info *pinfo,
                       struct ib_carrier *c)
{
    bool v4 = pinfo->net_src.type == AT_IPv4;
    size_t ip;
    if ((!v4 && pinfo->net_src.type != AT_IPv6) || !ip_header_of(frame, caplen, pinfo, v4, &ip))
        return false;
    size_t udp = ip + (v4 ? (size_t)(frame[ip] & 0x0F) * 4 : 40);
    memset(c, 0, sizeof *c);
    c->encap = IB_ENCAP_ROCEV2;
    c->ib_off = udp + 8;
    c->has_ip_off = true;
    c->ip_off = ip;
    c->has_udp_len = true;
    c->udp_len = (uint16_t)(frame[udp + 4] << 8 | frame[udp + 5]);
    carrier_ip(&pinfo->net_src, c->src_ip, &c->ip_version);
    carrier_ip(&pinfo->net_dst, c->dst_ip, &c->ip_version);
    c->udp_sport = (uint16_t)(frame[udp] << 8 | frame[udp + 1]);
    c->udp_dport = (uint16_t)(frame[udp + 2] << 8 | frame[udp + 3]);
    return true;
}

/* A native packet from the capture's link layer starts the frame, whose
 * ERF header Wireshark took off but whose wlen still counts. */
static void native_carrier(packet_info *pinfo, struct ib_carrier *c)
{
    memset(c, 0, sizeof *c);
    c->encap = IB_ENCAP_NATIVE;
    if (pinfo->rec && pinfo->rec->rec_type == REC_TYPE_PACKET &&
        pinfo->rec->rec_header.packet_header.pkt_encap == WTAP_ENCAP_ERF && pinfo->pseudo_header) {
        c->has_erf_wlen = true;
        c->erf_wlen = pinfo->pseudo_header->erf.phdr.wlen;
    }
}

/* Finds and parses the frame's InfiniBand packet; false when it has none.
 * Ethernet and SLL frames go through the core's own link parser, so the
 * link-layer length rules are the analyzer's, and a RoCE packet that
 * Wireshark gave to another dissector (too mangled for its own, or taken
 * for TFTP on a conversation's ports, as in one of the real captures) is
 * still seen.  Elsewhere
 * (Decode As, tunnels, ERF) the packet is where Wireshark's own dissector
 * found it, as the layers and addresses its dissectors set say: no tree is
 * needed, so a pass with one and a pass without find the same.  Costs a
 * walk of the frame's layers (and the core's look at an Ethernet header)
 * when there is no InfiniBand. */
static bool parse(tvbuff_t *tvb, packet_info *pinfo, struct qp_ctx *qc, struct ib_packet *pkt)
{
    uint32_t linktype = pcap_linktype(pinfo);
    enum ibs_under under = linktype == 0 ? infiniband_under(pinfo) : IBS_UNDER_NONE;
    if (under == IBS_UNDER_NONE && linktype == 0)
        return false;
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
            return true;
        under = infiniband_under(pinfo);
    }
    struct ib_carrier carrier;
    size_t eth;
    switch (under) {
    case IBS_UNDER_NONE: return false;
    case IBS_UNDER_ETHERNET:
        /* The last Ethernet header Wireshark dissected: its source MAC
         * points into it. */
        return pinfo->dl_src.type == AT_ETHER &&
               address_at(data, caplen, &pinfo->dl_src, 6, &eth) &&
               ib_parse_ethernet_at(&opts, data, caplen, wirelen, eth, pkt) == IB_FRAME_IB;
    case IBS_UNDER_UDP:
        if (!locate_udp(data, caplen, pinfo, &carrier))
            return false;
        break;
    case IBS_UNDER_LINK: native_carrier(pinfo, &carrier); break;
    }
    ib_parse_carried(&opts, data, caplen, wirelen, &carrier, pkt);
    return true;
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

bool ibs_state_frame(tvbuff_t *tvb, packet_info *pinfo, struct ibs_frame *out)
{
    out->result = NULL;
    out->conn = NULL;
    out->conn_from_passive = false;
    out->has_chain = out->first_of_chain = false;
    if (PINFO_FD_VISITED(pinfo)) {
        /* A later pass: the same parse, and the stored verdict if the
         * first pass had one. */
        const struct ibs_stored *st = ibs_frame_table_find(&stored, pinfo->num);
        struct qp_ctx qc = { true, st && st->mad_qp };
        if (!parse(tvb, pinfo, &qc, &out->pkt))
            return false;
        if (st)
            give_stored(st, out);
        join_chain(pinfo->num, out);
        return true;
    }
    struct qp_ctx qc = { false, false };
    /* A frame's analysis is kilobytes, most of it unused: one for all. */
    static struct ib_frame_analysis a;
    if (!parse(tvb, pinfo, &qc, &out->pkt)) {
        /* The engine counts nothing of a frame without InfiniBand, but its
         * time may pass a connection's timeout. */
        if (engine && ib_engine_has_timers(engine)) {
            ib_engine_feed(engine, frame_ref(pinfo), NULL, &a);
            route_findings(&a, 0);
        }
        return false;
    }
    if (!engine)
        return true;
    struct ib_frame_ref at = frame_ref(pinfo);
    ib_engine_feed(engine, at, &out->pkt, &a);
    route_findings(&a, pinfo->num);
    struct ibs_stored st = { pinfo->num, qc.answer, false, 0, 0, NULL };
    take_conn_and_chain(&st, &a.links, &out->pkt);
    struct ibs_result *r = keep(&a);
    if (r)
        link_redirect(r, pinfo->num, &at);
    st.result = r;
    /* Stored only when a later pass has something to replay. */
    if (st.mad_qp || st.conn1 || st.chain1 || st.result) {
        ibs_frame_table_add(&stored, &st);
        give_stored(&st, out);
    }
    return true;
}

bool ibs_state_conn_of(uint32_t frame, uint32_t *conn)
{
    const struct ibs_stored *st = ibs_frame_table_find(&stored, frame);
    if (!st || !st->conn1)
        return false;
    *conn = st->conn1 - 1;
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
