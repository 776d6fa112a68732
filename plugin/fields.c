/* fields.c - hf, ett and expert registration, generated from the core's tables.
 *
 * Every decoded field comes from ib_fields[] (so the plugin and the analyzer
 * name and describe fields identically); the few derived and analysis fields
 * are listed here; expert infos come from the engine's finding kinds and the
 * diagnostics table.
 */
#include "ibscope_plugin.h"

#include "names.h"

int *ibs_hf_core;
gint ibs_ett[IBS_ETT_COUNT];
int ibs_hf_heading[IBS_ETT_COUNT];
int ibs_hf_cm_msg[IB_CM_APR - IB_CM_REQ + 1];
struct ibs_hf_extra ibs_hf; /* every id -1 before registration (ibs_register_fields) */
expert_field ibs_ei_kind[IB_FIND_COUNT];
expert_field ibs_ei_rule[IB_DIAG_COUNT];
expert_field ibs_ei_not_placed = EI_INIT, ibs_ei_not_kept = EI_INIT;

/* The core's {value, name} tables as Wireshark value_strings (same layout
 * in spirit, different types: copy once at registration). */
static const value_string *to_vals(const struct ib_value_name *t)
{
    size_t n = 0;
    while (t[n].name)
        n++;
    value_string *vs = g_new0(value_string, n + 1);
    for (size_t i = 0; i < n; i++) {
        vs[i].value = t[i].value;
        vs[i].strptr = t[i].name;
    }
    return vs;
}

static enum ftenum uint_type(unsigned width)
{
    switch (width) {
    case 1: return FT_UINT8;
    case 2: return FT_UINT16;
    case 3: return FT_UINT24;
    case 4: return FT_UINT32;
    default: return FT_UINT64;
    }
}

static header_field_info hfi(const char *name, const char *abbrev, enum ftenum type, int display,
                             const void *strings, guint64 mask, const char *blurb)
{
    header_field_info h = {
        .name = name,
        .abbrev = abbrev,
        .type = type,
        .display = display,
        .strings = strings,
        .bitmask = mask,
        .blurb = blurb,
        .id = -1,
        .parent = 0,
        .ref_type = HF_REF_TYPE_NONE,
        .same_name_prev_id = -1,
        .same_name_next = NULL,
    };
    return h;
}

static hf_register_info core_hf(const struct ib_field *f, int *id)
{
    const char *abbrev = g_strconcat("ibscope.", f->abbrev, NULL);
    int base = f->base == IB_BASE_HEX ? BASE_HEX : BASE_DEC;
    hf_register_info r = { id, { 0 } };
    switch (f->type) {
    case IB_FT_BOOL:
        r.hfinfo = hfi(f->name, abbrev, FT_BOOLEAN, f->wire_mask ? f->wire_len * 8 : BASE_NONE,
                       NULL, f->wire_mask, f->blurb);
        break;
    case IB_FT_GID:
    case IB_FT_IPV6: r.hfinfo = hfi(f->name, abbrev, FT_IPv6, BASE_NONE, NULL, 0, f->blurb); break;
    case IB_FT_IPV4: r.hfinfo = hfi(f->name, abbrev, FT_IPv4, BASE_NONE, NULL, 0, f->blurb); break;
    default: {
        /* The wire width, so that a bitmask shows over the bytes it sits in. */
        const value_string *vs = f->names ? to_vals(f->names) : NULL;
        unsigned width = f->wire_len ? f->wire_len : f->member_size;
        r.hfinfo = hfi(f->name, abbrev, uint_type(width), base, vs, f->wire_mask, f->blurb);
        break;
    }
    }
    return r;
}

#define X(idp, name, abbrev, type, disp, strs, blurb)                  \
    {                                                                  \
        idp,                                                           \
        {                                                              \
            name, "ibscope." abbrev, type, disp, strs, 0, blurb, HFILL \
        }                                                              \
    }

static hf_register_info extra_hf[] = {
    X(&ibs_hf.dlid_type, "DLID Type", "lrh.dlid_type", FT_UINT8, BASE_DEC, NULL,
      "Kind of LID the DLID is: reserved, unicast, multicast or permissive."),
    X(&ibs_hf.slid_type, "SLID Type", "lrh.slid_type", FT_UINT8, BASE_DEC, NULL,
      "Kind of LID the SLID is: reserved, unicast, multicast or permissive."),
    X(&ibs_hf.sgid_scope, "SGID Scope", "grh.sgid_scope", FT_UINT8, BASE_DEC, NULL,
      "Scope of the source GID, from its prefix."),
    X(&ibs_hf.dgid_scope, "DGID Scope", "grh.dgid_scope", FT_UINT8, BASE_DEC, NULL,
      "Scope of the destination GID, from its prefix."),
    X(&ibs_hf.mcast_flags, "Multicast Flags", "grh.mcast_flags", FT_UINT8, BASE_HEX, NULL,
      "Flags nibble of a multicast GID; only T (0x1, transient) may be set."),
    X(&ibs_hf.mcast_scope, "Multicast Scope", "grh.mcast_scope", FT_UINT8, BASE_HEX, NULL,
      "Scope nibble of a multicast GID."),
    X(&ibs_hf.retransmission_of, "Retransmission of", "analysis.retransmission_of", FT_FRAMENUM,
      BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_RETRANS_PREV),
      "Frame of the first REQ this one repeats."),
    X(&ibs_hf.port_reused_from, "Port reused from", "analysis.port_reused_from", FT_FRAMENUM,
      BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_NONE),
      "Frame of the earlier connection that held this source port."),
    X(&ibs_hf.duplicate_tuple_of, "Duplicate tuple of", "analysis.duplicate_tuple_of", FT_FRAMENUM,
      BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_NONE),
      "Frame of the open connection that already uses this whole tuple."),
    X(&ibs_hf.redirected_by, "Redirected by", "analysis.redirected_by", FT_FRAMENUM, BASE_NONE,
      FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), "Frame of the response that redirected this request."),
    X(&ibs_hf.redirect_target_frame, "Redirect followed in", "analysis.redirect_target_frame",
      FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_REQUEST),
      "Frame of the request sent to the target this redirect named."),
    X(&ibs_hf.redirect_loop_to, "Redirect loops back to", "analysis.redirect_loop_to", FT_FRAMENUM,
      BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_NONE),
      "Frame of the earlier redirect in this chain that named the same target."),
    X(&ibs_hf.ports_in_use, "Ports in use", "analysis.ports_in_use", FT_UINT32, BASE_DEC, NULL,
      "Source ports this source address holds in this port space after this REQ."),
    X(&ibs_hf.pool_utilization, "Pool utilization", "analysis.pool_utilization", FT_DOUBLE,
      BASE_NONE, NULL, "Ports in use as a percentage of the configured port pool."),
    X(&ibs_hf.tuple_ports_in_use, "Ports in use to this destination", "analysis.tuple_ports_in_use",
      FT_UINT32, BASE_DEC, NULL,
      "Source ports held towards this destination address and port (the 4-tuple rule)."),
    X(&ibs_hf.exhaustion_eta, "Pool runs out in", "analysis.exhaustion_eta", FT_DOUBLE, BASE_NONE,
      NULL,
      "Seconds until this source's port pool runs out at the net rate it has "
      "taken ports lately (the sooner of the two models; the analyzer's eta_s)."),
    X(&ibs_hf.port_rate, "Ports taken per second", "analysis.port_rate", FT_DOUBLE, BASE_NONE, NULL,
      "Net rate at which this source has taken pool ports lately (taken minus given "
      "back, a second), behind the exhaustion estimate."),
    X(&ibs_hf.redirect_depth, "Redirect depth", "analysis.redirect_depth", FT_UINT32, BASE_DEC,
      NULL, "Redirects so far in this chain."),
    X(&ibs_hf.conn, "Connection", "analysis.conn", FT_UINT32, BASE_DEC, NULL,
      "Index of the CM connection this message belongs to, 0-based in order of first REQ "
      "(like tcp.stream); the analyzer's conn."),
    X(&ibs_hf.qp, "Queue pair", "analysis.qp", FT_UINT32, BASE_DEC, NULL,
      "Number of the RC queue pair's requester direction this request or answer belongs to, "
      "0-based in order of first sight (like tcp.stream); the analyzer's qp index."),
    X(&ibs_hf.acks_frame, "This answers the request in", "analysis.acks_frame", FT_FRAMENUM,
      BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_ACK),
      "Frame of the newest request this ACK, READ response or atomic ACK covers."),
    X(&ibs_hf.ack_rtt, "ACK round trip", "analysis.ack_rtt", FT_RELATIVE_TIME, BASE_NONE, NULL,
      "Time from that request to this answer."),
    X(&ibs_hf.conn_service_id, "ServiceID", "analysis.conn.service_id", FT_UINT64, BASE_HEX, NULL,
      "The ServiceID of the connection's REQ."),
    X(&ibs_hf.conn_port_space, "Port Space", "analysis.conn.port_space", FT_UINT16, BASE_HEX, NULL,
      "RDMA CM port space of the connection."),
    X(&ibs_hf.conn_src_ip, "Source IP", "analysis.conn.src_ip", FT_IPv4, BASE_NONE, NULL,
      "The active side's IPv4 address, from the connection's REQ."),
    X(&ibs_hf.conn_src_ipv6, "Source IPv6", "analysis.conn.src_ipv6", FT_IPv6, BASE_NONE, NULL,
      "The active side's IPv6 address, from the connection's REQ."),
    X(&ibs_hf.conn_src_port, "Source Port", "analysis.conn.src_port", FT_UINT16, BASE_DEC, NULL,
      "The active side's RDMA CM port, from the connection's REQ."),
    X(&ibs_hf.conn_dst_ip, "Destination IP", "analysis.conn.dst_ip", FT_IPv4, BASE_NONE, NULL,
      "The passive side's IPv4 address, from the connection's REQ."),
    X(&ibs_hf.conn_dst_ipv6, "Destination IPv6", "analysis.conn.dst_ipv6", FT_IPv6, BASE_NONE, NULL,
      "The passive side's IPv6 address, from the connection's REQ."),
    X(&ibs_hf.conn_dst_port, "Destination Port", "analysis.conn.dst_port", FT_UINT16, BASE_DEC,
      NULL, "The passive side's port, from the connection's REQ."),
    X(&ibs_hf.chain, "Redirect chain", "analysis.chain", FT_UINT32, BASE_DEC, NULL,
      "Index of the ClassPortInfo redirect chain this frame belongs to (the analyzer's "
      "chain): its first request, the redirects, the requests that follow them, the answer."),
    X(&ibs_hf.chain_first_request, "First request of the chain", "analysis.chain.first_request",
      FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_REQUEST),
      "Frame of the request whose answer started this redirect chain."),
    X(&ibs_hf.icrc_status, "ICRC status", "icrc.status", FT_UINT8, BASE_DEC, NULL,
      "Whether the Invariant CRC verifies: verified, mismatch, or not "
      "present (cut by the snaplen, stripped where captured, or not to be located)."),
    X(&ibs_hf.icrc_computed, "ICRC", "icrc.computed", FT_UINT32, BASE_HEX, NULL,
      "The Invariant CRC computed over the packet's invariant fields."),
    X(&ibs_hf.vcrc_status, "VCRC status", "vcrc.status", FT_UINT8, BASE_DEC, NULL,
      "Whether the Variant CRC of a native packet verifies: verified, "
      "mismatch, or not present."),
    X(&ibs_hf.vcrc_computed, "VCRC", "vcrc.computed", FT_UINT16, BASE_HEX, NULL,
      "The Variant CRC computed over the packet as sent on its last link."),
    X(&ibs_hf.diag, "Diagnostic", "diag", FT_STRING, BASE_NONE, NULL,
      "A remark about the packet's content that is not a finding of the analysis."),
};

/* Subtree headings. */
static const struct {
    enum ibs_ett ett;
    const char *abbrev, *name, *blurb;
} headings[] = {
    { IBS_ETT_ETH, "ibscope.eth", "Ethernet", "The Ethernet payload's size on the wire." },
    { IBS_ETT_VLAN, "ibscope.vlan", "VLAN Tags", "The 802.1Q/802.1ad tags' settings." },
    { IBS_ETT_IP, "ibscope.ip", "IPv4 Settings", "The DSCP, ECN and TTL of the IPv4 header." },
    { IBS_ETT_IPV6, "ibscope.ipv6", "IPv6 Settings",
      "The traffic class and hop limit of the IPv6 header." },
    { IBS_ETT_MACC, "ibscope.macc", "MAC Control", "An Ethernet PAUSE or PFC frame." },
    { IBS_ETT_PFC, "ibscope.pfc", "Priority Flow Control", "An IEEE 802.1Qbb PFC frame's times." },
    { IBS_ETT_GID, "ibscope.gid", "GID Kinds", "What a router may do with the endpoints' GIDs." },
    { IBS_ETT_LRH, "ibscope.lrh", "Local Route Header", "The LRH, as ibscope decodes it." },
    { IBS_ETT_GRH, "ibscope.grh", "Global Route Header", "The GRH, as ibscope decodes it." },
    { IBS_ETT_BTH, "ibscope.bth", "Base Transport Header", "The BTH, as ibscope decodes it." },
    { IBS_ETT_DETH, "ibscope.deth", "Datagram Extended Transport Header",
      "The DETH, as ibscope decodes it." },
    { IBS_ETT_XRCETH, "ibscope.xrceth", "XRC Extended Transport Header",
      "The XRCETH, as ibscope decodes it." },
    { IBS_ETT_RETH, "ibscope.reth", "RDMA Extended Transport Header",
      "The RETH, as ibscope decodes it." },
    { IBS_ETT_ATOMICETH, "ibscope.atomiceth", "Atomic Extended Transport Header",
      "The AtomicETH, as ibscope decodes it." },
    { IBS_ETT_AETH, "ibscope.aeth", "ACK Extended Transport Header",
      "The AETH, as ibscope decodes it." },
    { IBS_ETT_ATOMICACKETH, "ibscope.atomicacketh", "Atomic ACK Extended Transport Header",
      "The AtomicAckETH, as ibscope decodes it." },
    { IBS_ETT_IMMDT, "ibscope.immdt", "Immediate Data", "The ImmDt, as ibscope decodes it." },
    { IBS_ETT_IETH, "ibscope.ieth", "Invalidate Extended Transport Header",
      "The IETH, as ibscope decodes it." },
    { IBS_ETT_PAYLOAD, "ibscope.payload", "Payload", "The data the packet carries." },
    { IBS_ETT_MAD, "ibscope.mad", "MAD Header", "The common MAD header, as ibscope decodes it." },
    { IBS_ETT_CPI, "ibscope.cpi", "ClassPortInfo",
      "A ClassPortInfo attribute, where redirects are named." },
    { IBS_ETT_CM, "ibscope.cm", "Communication Manager", "A Communication Manager message." },
    { IBS_ETT_ANALYSIS, "ibscope.analysis", "Analysis",
      "What ibscope's analysis concluded about this frame." },
};

static void register_headings(int proto)
{
    size_t ncm = G_N_ELEMENTS(ibs_hf_cm_msg);
    hf_register_info *hf = g_new0(hf_register_info, G_N_ELEMENTS(headings) + ncm);
    size_t n = 0;
    for (int e = 0; e < IBS_ETT_COUNT; e++)
        ibs_hf_heading[e] = -1;
    for (size_t i = 0; i < G_N_ELEMENTS(headings); i++, n++) {
        hf[n].p_id = &ibs_hf_heading[headings[i].ett];
        hf[n].hfinfo = hfi(headings[i].name, headings[i].abbrev, FT_NONE, BASE_NONE, NULL, 0,
                           headings[i].blurb);
    }
    /* "CM REQ" ... as ibscope.cm.req ..., so the heading names the message. */
    for (size_t i = 0; i < ncm; i++, n++) {
        const char *msg = ib_name_lookup(ib_cm_attr_names, (uint32_t)(IB_CM_REQ + i));
        gchar *lower = g_ascii_strdown(msg, -1);
        ibs_hf_cm_msg[i] = -1;
        hf[n].p_id = &ibs_hf_cm_msg[i];
        hf[n].hfinfo =
            hfi(g_strconcat("CM ", msg, NULL), g_strconcat("ibscope.cm.", lower, NULL), FT_NONE,
                BASE_NONE, NULL, 0, g_strconcat("A CM ", msg, " message.", NULL));
        g_free(lower);
    }
    proto_register_field_array(proto, hf, (int)n);
}

static int map_severity(enum ib_severity s)
{
    switch (s) {
    case IB_SEV_CHAT: return PI_CHAT;
    case IB_SEV_NOTE: return PI_NOTE;
    case IB_SEV_WARN: return PI_WARN;
    default: return PI_ERROR;
    }
}

static int map_group(enum ib_diag_group g)
{
    switch (g) {
    case IB_GROUP_MALFORMED: return PI_MALFORMED;
    case IB_GROUP_SEQUENCE: return PI_SEQUENCE;
    case IB_GROUP_CHECKSUM: return PI_CHECKSUM;
    default: return PI_PROTOCOL;
    }
}

static ei_register_info make_ei(expert_field *id, const char *abbrev, int group, int severity,
                                const char *summary)
{
    ei_register_info r = { id, { abbrev, group, severity, summary, EXPFILL } };
    /* Wireshark leaves the expert's pseudo-field without a description;
     * give it the summary so tshark -G fields shows one. */
    r.eiinfo.hf_info.hfinfo.blurb = summary;
    return r;
}

void ibs_register_fields(int proto)
{
    int *extra_ids = (int *)&ibs_hf; /* a struct of ints only */
    for (size_t i = 0; i < sizeof ibs_hf / sizeof(int); i++)
        extra_ids[i] = -1;
    size_t n = ib_field_count;
    ibs_hf_core = g_new(int, n);
    hf_register_info *hf = g_new0(hf_register_info, n);
    for (size_t i = 0; i < n; i++) {
        ibs_hf_core[i] = -1;
        hf[i] = core_hf(&ib_fields[i], &ibs_hf_core[i]);
    }
    proto_register_field_array(proto, hf, (int)n);
    /* Values are named by the core's tables, as in the analyzer's reports. */
    const struct {
        int *id;
        const struct ib_value_name *names;
    } named[] = {
        { &ibs_hf.icrc_status, ib_crc_status_names },
        { &ibs_hf.vcrc_status, ib_crc_status_names },
        { &ibs_hf.conn_port_space, ib_port_space_names },
        { &ibs_hf.dlid_type, ib_lid_type_names },
        { &ibs_hf.slid_type, ib_lid_type_names },
        { &ibs_hf.sgid_scope, ib_gid_scope_names },
        { &ibs_hf.dgid_scope, ib_gid_scope_names },
        { &ibs_hf.mcast_scope, ib_mcast_scope_names },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(extra_hf); i++)
        for (size_t k = 0; k < G_N_ELEMENTS(named); k++)
            if (extra_hf[i].p_id == named[k].id)
                extra_hf[i].hfinfo.strings = VALS(to_vals(named[k].names));
    proto_register_field_array(proto, extra_hf, G_N_ELEMENTS(extra_hf));
    register_headings(proto);

    gint *ett[IBS_ETT_COUNT];
    for (int i = 0; i < IBS_ETT_COUNT; i++) {
        ibs_ett[i] = -1;
        ett[i] = &ibs_ett[i];
    }
    proto_register_subtree_array(ett, IBS_ETT_COUNT);

    ei_register_info *ei = g_new0(ei_register_info, IB_FIND_COUNT + IB_DIAG_COUNT + 2);
    int nei = 0;
    /* The plugin's own notes: not findings of the engine, so not under
     * ibscope.expert (the analyzer has no such finding to agree with). */
    ei[nei++] = make_ei(&ibs_ei_not_placed, "ibscope.not_placed", PI_UNDECODED, PI_NOTE,
                        "InfiniBand found by Wireshark but not placed: its dissector ran "
                        "behind a layer whose size ibscope does not know");
    ei[nei++] = make_ei(&ibs_ei_not_kept, "ibscope.not_kept", PI_DEBUG, PI_WARN,
                        "ibscope could not store this frame's analysis (out of memory): "
                        "later passes show its decode without it");
    for (int k = 0; k < IB_FIND_COUNT; k++) {
        if (k == IB_FIND_ADDRESSING)
            continue; /* one per rule, below */
        ei[nei++] =
            make_ei(&ibs_ei_kind[k], g_strconcat("ibscope.expert.", ib_finding_kind_name(k), NULL),
                    map_group(ib_finding_kind_group(k)), map_severity(ib_finding_kind_severity(k)),
                    ib_finding_kinds[k].summary);
    }
    for (int d = 0; d < IB_DIAG_COUNT; d++) {
        const struct ib_diag_info *info = ib_diag_info((enum ib_diag_id)d);
        if (!info->addressing)
            continue;
        ei[nei++] =
            make_ei(&ibs_ei_rule[d], g_strconcat("ibscope.expert.addressing.", info->name, NULL),
                    map_group(info->group), map_severity(info->severity), info->text);
    }
    expert_module_t *em = expert_register_protocol(proto);
    expert_register_field_array(em, ei, nei);
}
