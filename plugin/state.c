/* state.c - per-file engine, first-pass analysis and its replay on every later pass.
 *
 * The engine must see frames once, in order, as the offline analyzer does:
 * so it is fed only on the first pass (!PINFO_FD_VISITED).  What it said,
 * and how the packet was found, is stored with p_add_proto_data in file
 * scope; later passes (tshark -2, clicking in the GUI) re-parse the same
 * bytes and replay the stored verdict, so every pass shows the same thing.
 * The engine lives from one file's init routine to its cleanup routine.
 */
#include "ibscope_plugin.h"

#include <epan/prefs.h>
#include <epan/proto_data.h>
#include <wiretap/wtap.h>

/* How the first pass found the packet, so replays parse it identically. */
enum ibs_how {
    IBS_NOT_IB,
    IBS_BY_LINKTYPE, /* ib_parse_frame on the whole Ethernet/SLL frame */
    IBS_AT_OFFSET,   /* ib_parse_at where the built-in dissector's item starts */
};

struct ibs_stored {
    uint8_t how;        /* enum ibs_how */
    uint8_t encap;      /* enum ib_encap, IBS_AT_OFFSET */
    bool mad_qp;        /* the engine called the destination QP a MAD QP */
    bool first_of_chain; /* set by a later frame (join_chain) */
    uint32_t conn1;     /* connection index + 1; 0: none */
    uint32_t chain1;    /* redirect chain index + 1; 0: none */
    uint16_t rocev2_port;
    uint32_t linktype;  /* IBS_BY_LINKTYPE */
    uint32_t ib_off;    /* IBS_AT_OFFSET */
    const struct ibs_result *result;
};

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
static int proto_infiniband = -1;
static uint16_t rocev2_port = IB_ROCEV2_UDP_PORT; /* the built-in's preference, per file */

static void state_init(void)
{
    struct ib_engine_config cfg;
    ib_engine_config_init(&cfg);
    if (ibs_prefs.pool_low <= ibs_prefs.pool_high && ibs_prefs.pool_high <= 65535) {
        cfg.pool_low = (uint16_t)ibs_prefs.pool_low;
        cfg.pool_high = (uint16_t)ibs_prefs.pool_high;
    }
    cfg.threshold_pct = ibs_prefs.threshold_pct;
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
}

void ibs_state_register(void)
{
    register_init_routine(state_init);
    register_cleanup_routine(state_cleanup);
}

void ibs_state_handoff(void)
{
    proto_infiniband = proto_get_id_by_filter_name("infiniband");
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

static uint32_t pcap_linktype(const packet_info *pinfo)
{
    if (!pinfo->rec || pinfo->rec->rec_type != REC_TYPE_PACKET)
        return 0;
    switch (pinfo->rec->rec_header.packet_header.pkt_encap) {
    case WTAP_ENCAP_ETHERNET: return IB_DLT_EN10MB;
    case WTAP_ENCAP_SLL: return IB_DLT_LINUX_SLL;
    case WTAP_ENCAP_SLL2: return IB_DLT_LINUX_SLL2;
    default: return 0;
    }
}

/* Where the built-in dissector put its protocol item: the first byte of
 * the InfiniBand packet in this frame. */
static bool builtin_item(proto_tree *tree, tvbuff_t *tvb, uint32_t *off, uint32_t *len)
{
    if (!tree || proto_infiniband == -1)
        return false;
    GPtrArray *found = proto_get_finfo_ptr_array(tree, proto_infiniband);
    GPtrArray *owned = NULL;
    if (!found || found->len == 0)
        found = owned = proto_find_first_finfo(tree, proto_infiniband);
    bool ok = false;
    if (found && found->len > 0) {
        field_info *fi = g_ptr_array_index(found, 0);
        if (fi->ds_tvb == tvb && fi->start >= 0 && fi->length > 0) {
            *off = (uint32_t)fi->start;
            *len = (uint32_t)fi->length;
            ok = true;
        }
    }
    if (owned)
        g_ptr_array_free(owned, TRUE);
    return ok;
}

/* The protocol the built-in InfiniBand dissector was called from. */
static const char *layer_before_infiniband(packet_info *pinfo)
{
    int prev = -1;
    for (wmem_list_frame_t *f = wmem_list_head(pinfo->layers); f; f = wmem_list_frame_next(f)) {
        int id = GPOINTER_TO_INT(wmem_list_frame_data(f));
        if (id == proto_infiniband)
            return prev == -1 ? "" : proto_get_protocol_filter_name(prev);
        prev = id;
    }
    return NULL;
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

/* Where the IP header before the UDP header at udp_off starts: Wireshark's
 * IP dissector points the network source address into the frame's bytes.
 * Checked against the header itself; false when it does not hold. */
static bool ip_header_at(tvbuff_t *tvb, const packet_info *pinfo, guint udp_off, size_t *ip_off)
{
    const address *a = &pinfo->net_src;
    guint len = tvb_captured_length(tvb);
    const guint8 *base = tvb_get_ptr(tvb, 0, len);
    const guint8 *src = a->data;
    if (!base || !src || src < base || src >= base + len)
        return false;
    guint at = (guint)(src - base);
    guint back = a->type == AT_IPv4 ? 12 : a->type == AT_IPv6 ? 8 : 0;
    if (back == 0 || at < back)
        return false;
    guint ip = at - back;
    uint8_t v = base[ip];
    guint hdr = a->type == AT_IPv4 ? (guint)(v & 0x0F) * 4 : 40;
    if (v >> 4 != (a->type == AT_IPv4 ? 4 : 6) || ip + hdr != udp_off)
        return false;
    *ip_off = ip;
    return true;
}

/* What the layers Wireshark dissected say about the packet at st->ib_off:
 * the core applies the analyzer's length rules to it (ib_parse_carried). */
static void carrier_of(tvbuff_t *tvb, packet_info *pinfo, const struct ibs_stored *st,
                       struct ib_carrier *c)
{
    memset(c, 0, sizeof *c);
    c->encap = (enum ib_encap)st->encap;
    c->ib_off = st->ib_off;
    if (c->encap == IB_ENCAP_NATIVE && pinfo->rec && pinfo->rec->rec_type == REC_TYPE_PACKET &&
        pinfo->rec->rec_header.packet_header.pkt_encap == WTAP_ENCAP_ERF && pinfo->pseudo_header) {
        /* Wireshark stripped the ERF header; its wlen still counts. */
        c->has_erf_wlen = true;
        c->erf_wlen = pinfo->pseudo_header->erf.phdr.wlen;
    }
    if (c->encap == IB_ENCAP_ROCEV2) {
        if (st->ib_off >= 8) {
            c->has_udp_len = true;
            c->udp_len = tvb_get_ntohs(tvb, st->ib_off - 4);
        }
        carrier_ip(&pinfo->net_src, c->src_ip, &c->ip_version);
        carrier_ip(&pinfo->net_dst, c->dst_ip, &c->ip_version);
        if (st->ib_off >= 8)
            c->has_ip_off = ip_header_at(tvb, pinfo, st->ib_off - 8, &c->ip_off);
        c->udp_sport = (uint16_t)pinfo->srcport;
        c->udp_dport = (uint16_t)pinfo->destport;
    }
}

/* First pass: decide how to parse this frame.  Ethernet and SLL frames go
 * through the core's own link parser, so the link-layer length checks are
 * the analyzer's; anything else is parsed where the built-in item starts. */
static void locate(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, struct ibs_stored *st)
{
    st->how = IBS_NOT_IB;
    st->rocev2_port = rocev2_port;
    st->linktype = pcap_linktype(pinfo);
    if (st->linktype != 0) {
        st->how = IBS_BY_LINKTYPE;
        return; /* checked against the item in parse() */
    }
    uint32_t off = 0, len = 0;
    const char *before = layer_before_infiniband(pinfo);
    if (builtin_item(tree, tvb, &off, &len)) {
        /* The item's length includes CRCs and padding; the core bounds it
         * by PktLen, PayLen or the UDP length. */
    } else if (before) {
        off = 0; /* no tree on this pass: native packets start the frame */
        len = tvb_captured_length(tvb);
    } else {
        return;
    }
    st->how = IBS_AT_OFFSET;
    st->ib_off = off;
    if (before && strcmp(before, "udp") == 0)
        st->encap = IB_ENCAP_ROCEV2;
    else if (off == 0)
        st->encap = IB_ENCAP_NATIVE;
    else
        st->encap = IB_ENCAP_ROCEV1;
}

static bool parse(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, struct ibs_stored *st,
                  struct qp_ctx *qc, struct ib_packet *pkt)
{
    struct ib_parse_opts opts;
    ib_parse_opts_init(&opts);
    opts.rocev2_port = st->rocev2_port;
    opts.is_mad_qp = ask_mad_qp;
    opts.ctx = qc;
    opts.verify_crc = ibs_prefs.verify_crc != FALSE;
    guint caplen = tvb_captured_length(tvb);
    const uint8_t *data = tvb_get_ptr(tvb, 0, caplen);
    memset(pkt, 0, sizeof *pkt);

    if (st->how == IBS_BY_LINKTYPE) {
        enum ib_frame_result r = ib_parse_frame(&opts, st->linktype, data, caplen,
                                                tvb_reported_length(tvb), pkt);
        if (r == IB_FRAME_IB)
            return true;
        /* The core did not see InfiniBand where the built-in dissector did
         * (a heuristic or Decode As): parse at the built-in item instead. */
        uint32_t off, len;
        const char *before = layer_before_infiniband(pinfo);
        if (qc->replay || !before || !builtin_item(tree, tvb, &off, &len))
            return false;
        st->how = IBS_AT_OFFSET;
        st->ib_off = off;
        st->encap = strcmp(before, "udp") == 0 ? IB_ENCAP_ROCEV2 : IB_ENCAP_ROCEV1;
    }
    if (st->how != IBS_AT_OFFSET)
        return false;
    struct ib_carrier carrier;
    carrier_of(tvb, pinfo, st, &carrier);
    ib_parse_carried(&opts, data, caplen, tvb_reported_length(tvb), &carrier, pkt);
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
        r->findings = wmem_memdup(wmem_file_scope(), a->findings,
                                  a->count * sizeof a->findings[0]);
    return r;
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

/* A later pass of a chain's first request: it joins its chain. */
static void join_chain(struct ibs_stored *st, guint32 num)
{
    gpointer v = chain_starts ? g_hash_table_lookup(chain_starts, GUINT_TO_POINTER(num)) : NULL;
    if (!v || st->first_of_chain)
        return;
    st->first_of_chain = true;
    st->chain1 = GPOINTER_TO_UINT(v);
}

/* The connection and chain of the frame are kept in st (and the tuple once
 * per connection), not in the result: out of the links before keep(). */
static void take_conn_and_chain(struct ibs_stored *st, struct ib_frame_links *l)
{
    if (l->has_conn && conns) {
        if (l->conn >= conns->len) {
            struct ibs_conn c = { l->conn_service_id, l->has_conn_tuple, l->conn_tuple };
            g_array_set_size(conns, l->conn + 1);
            g_array_index(conns, struct ibs_conn, l->conn) = c;
        }
        st->conn1 = l->conn + 1;
    }
    if (l->has_chain)
        st->chain1 = l->chain + 1;
    note_chain_start(l);
    l->has_conn = l->has_conn_tuple = l->has_chain = false;
    l->conn = l->chain = 0;
    l->conn_service_id = 0;
    memset(&l->conn_tuple, 0, sizeof l->conn_tuple);
}

/* What st says of the frame's connection and chain, into out. */
static void give_conn_and_chain(const struct ibs_stored *st, struct ibs_frame *out)
{
    out->conn = st->conn1 && conns && st->conn1 <= conns->len
                    ? &g_array_index(conns, struct ibs_conn, st->conn1 - 1)
                    : NULL;
    out->conn_index = st->conn1 ? st->conn1 - 1 : 0;
    out->has_chain = st->chain1 != 0;
    out->chain = st->chain1 ? st->chain1 - 1 : 0;
    out->first_of_chain = st->first_of_chain;
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

bool ibs_state_frame(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree, struct ibs_frame *out)
{
    out->result = NULL;
    out->conn = NULL;
    out->has_chain = out->first_of_chain = false;
    struct ibs_stored *st = p_get_proto_data(wmem_file_scope(), pinfo, ibs_proto, 0);
    if (st) {
        /* A later pass: same parse, stored verdict. */
        struct qp_ctx qc = { true, st->mad_qp };
        if (st->how == IBS_NOT_IB || !parse(tvb, pinfo, tree, st, &qc, &out->pkt))
            return false;
        join_chain(st, pinfo->num);
        out->result = st->result;
        give_conn_and_chain(st, out);
        return true;
    }
    if (PINFO_FD_VISITED(pinfo))
        return false; /* visited without stored data: the file was not opened by us */

    st = wmem_new0(wmem_file_scope(), struct ibs_stored);
    locate(tvb, pinfo, tree, st);
    struct qp_ctx qc = { false, false };
    bool ib = st->how != IBS_NOT_IB && parse(tvb, pinfo, tree, st, &qc, &out->pkt);
    if (!ib)
        st->how = IBS_NOT_IB;
    st->mad_qp = qc.answer;

    struct ib_frame_ref at = {
        0, pinfo->num,
        (int64_t)pinfo->abs_ts.secs * 1000000000 + pinfo->abs_ts.nsecs,
    };
    if (engine) {
        struct ib_frame_analysis *a = wmem_new(pinfo->pool, struct ib_frame_analysis);
        ib_engine_feed(engine, at, ib ? &out->pkt : NULL, a);
        take_conn_and_chain(st, &a->links);
        struct ibs_result *r = keep(a);
        if (r)
            link_redirect(r, pinfo->num, &at);
        st->result = r;
    }
    p_add_proto_data(wmem_file_scope(), pinfo, ibs_proto, 0, st);
    out->result = st->result;
    give_conn_and_chain(st, out);
    return ib;
}
