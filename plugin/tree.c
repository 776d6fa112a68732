/* tree.c - the ibscope subtree: items from a parsed packet and its stored analysis.
 *
 * Only turns structs into items: values come from struct ib_packet through
 * ib_fields[] (never re-read from the wire here), findings from the stored
 * result.  Nothing in this file decides anything.
 */
#include "ibscope_plugin.h"

#include "classportinfo.h"
#include "ext_headers.h"
#include "headers.h"
#include "mad.h"

#include "names.h"

static guint clip(tvbuff_t *tvb, guint off, guint len)
{
    guint cap = tvb_captured_length(tvb);
    if (off >= cap)
        return 0;
    return MIN(len, cap - off);
}

struct group {
    const char *prefix;
    int ett;
    uint32_t layer; /* IB_HAS_ bit without which no field of it is present */
};

static const struct group groups[] = {
    { "eth", IBS_ETT_ETH, IB_HAS_ETH },
    { "vlan", IBS_ETT_VLAN, IB_HAS_VLAN },
    { "ip", IBS_ETT_IP, IB_HAS_IP },
    { "ipv6", IBS_ETT_IPV6, IB_HAS_IP },
    { "macc", IBS_ETT_MACC, IB_HAS_MAC_CONTROL },
    { "pfc", IBS_ETT_PFC, IB_HAS_MAC_CONTROL },
    { "lrh", IBS_ETT_LRH, IB_HAS_LRH },
    { "grh", IBS_ETT_GRH, IB_HAS_GRH },
    { "gid", IBS_ETT_GID, IB_HAS_GIDS },
    { "bth", IBS_ETT_BTH, IB_HAS_BTH },
    { "deth", IBS_ETT_DETH, IB_HAS_DETH },
    { "xrceth", IBS_ETT_XRCETH, IB_HAS_XRCETH },
    { "reth", IBS_ETT_RETH, IB_HAS_RETH },
    { "atomiceth", IBS_ETT_ATOMICETH, IB_HAS_ATOMICETH },
    { "aeth", IBS_ETT_AETH, IB_HAS_AETH },
    { "atomicacketh", IBS_ETT_ATOMICACKETH, IB_HAS_ATOMICACKETH },
    { "immdt", IBS_ETT_IMMDT, IB_HAS_IMMDT },
    { "ieth", IBS_ETT_IETH, IB_HAS_IETH },
    { "payload", IBS_ETT_PAYLOAD, IB_HAS_PAYLOAD },
    { "mad", IBS_ETT_MAD, IB_HAS_MAD },
    { "cpi", IBS_ETT_CPI, IB_HAS_CPI },
    { "cm", IBS_ETT_CM, IB_HAS_CM },
};
#define GROUP_COUNT G_N_ELEMENTS(groups)

static const struct group *group_of(const char *abbrev)
{
    for (size_t i = 0; i < GROUP_COUNT; i++) {
        size_t n = strlen(groups[i].prefix);
        if (strncmp(abbrev, groups[i].prefix, n) == 0 && abbrev[n] == '.')
            return &groups[i];
    }
    return NULL;
}

/* Per field of ib_fields[]: its shift, and per group the fields in it,
 * worked out once: a frame then visits only the fields of the layers it
 * has (string work or a walk of all 156 fields per frame cost more than
 * the items themselves). */
struct field_plan {
    bool cm_detail; /* cm.<message>.*: left out under IBS_TREE_NO_CM_DETAILS */
    bool added;     /* the built-in dissector lacks it: in IBS_TREE_ADDED */
    uint8_t shift;  /* of wire_mask: the core's value is already shifted */
};
static struct field_plan *plan;
static size_t *group_fields[GROUP_COUNT];
static size_t group_size[GROUP_COUNT];
/* The CM group's fields again, per message (by attribute ID from IB_CM_REQ). */
#define CM_MSG_COUNT (IB_CM_APR - IB_CM_REQ + 1)
static size_t *cm_fields[CM_MSG_COUNT];
static size_t cm_size[CM_MSG_COUNT];

static unsigned mask_shift(guint64 mask)
{
    unsigned s = 0;
    while (mask && !(mask & 1)) {
        mask >>= 1;
        s++;
    }
    return s;
}

/* What Wireshark's InfiniBand dissector does not show: the MAD status
 * bits, ClassPortInfo of every class, and the IP CM data of REQ and
 * SIDR_REQ (the port space and port in the ServiceID, the IP CM header).
 * The LID types and GID scopes are derived items (add_derived_*).  The
 * payload length is left to `all`: Wireshark shows the payload's bytes. */
static bool lacking_in_builtin(const struct ib_field *f)
{
    return f->role == IB_FR_STATUS || f->role == IB_FR_STATUS_BIT || f->layer == IB_LAYER_CPI ||
           f->layer == IB_LAYER_IPCM || f->cond == IB_COND_CM_IPSID;
}

static void prepare(void)
{
    plan = g_new0(struct field_plan, ib_field_count);
    for (size_t g = 0; g < GROUP_COUNT; g++)
        group_fields[g] = g_new(size_t, ib_field_count);
    for (size_t i = 0; i < ib_field_count; i++) {
        const char *a = ib_fields[i].abbrev;
        plan[i].shift = (uint8_t)mask_shift(ib_fields[i].wire_mask);
        plan[i].cm_detail = strncmp(a, "cm.", 3) == 0 && strchr(a + 3, '.') != NULL;
        plan[i].added = lacking_in_builtin(&ib_fields[i]);
        const struct group *g = group_of(a);
        if (g) {
            size_t gi = (size_t)(g - groups);
            group_fields[gi][group_size[gi]++] = i;
        }
    }
    size_t cm = (size_t)(group_of("cm.msg") - groups);
    for (size_t m = 0; m < CM_MSG_COUNT; m++) {
        cm_fields[m] = g_new(size_t, group_size[cm]);
        for (size_t k = 0; k < group_size[cm]; k++) {
            size_t i = group_fields[cm][k];
            if (ib_field_may_apply_to_cm(&ib_fields[i], (uint16_t)(IB_CM_REQ + m)))
                cm_fields[m][cm_size[m]++] = i;
        }
    }
}

static void group_range(const struct group *g, const struct ib_packet *p, guint *off, guint *len)
{
    switch (g->ett) {
    case IBS_ETT_LRH:
        *off = p->off.lrh;
        *len = IB_LRH_SIZE;
        break;
    case IBS_ETT_GRH:
        *off = p->off.grh;
        *len = IB_GRH_SIZE;
        break;
    case IBS_ETT_BTH:
        *off = p->off.bth;
        *len = IB_BTH_SIZE;
        break;
    case IBS_ETT_DETH:
        *off = p->off.deth;
        *len = IB_DETH_SIZE;
        break;
    case IBS_ETT_XRCETH: *off = p->off.xrceth, *len = IB_XRCETH_SIZE; break;
    case IBS_ETT_RETH: *off = p->off.reth, *len = IB_RETH_SIZE; break;
    case IBS_ETT_ATOMICETH: *off = p->off.atomiceth, *len = IB_ATOMICETH_SIZE; break;
    case IBS_ETT_AETH: *off = p->off.aeth, *len = IB_AETH_SIZE; break;
    case IBS_ETT_ATOMICACKETH: *off = p->off.atomicacketh, *len = IB_ATOMICACKETH_SIZE; break;
    case IBS_ETT_IMMDT: *off = p->off.immdt, *len = IB_IMMDT_SIZE; break;
    case IBS_ETT_IETH: *off = p->off.ieth, *len = IB_IETH_SIZE; break;
    case IBS_ETT_PAYLOAD: *off = p->off.payload, *len = p->payload_len; break;
    case IBS_ETT_ETH: *off = p->off.eth_payload, *len = 0; break;
    case IBS_ETT_VLAN:
        *off = p->off.vlan, *len = IB_VLAN_TAG_SIZE * (p->vlan_count > 1 ? 2 : 1);
        break;
    case IBS_ETT_IP: *off = p->off.ip, *len = 20; break;
    case IBS_ETT_IPV6: *off = p->off.ip, *len = 40; break;
    case IBS_ETT_MACC: *off = p->off.mac_control, *len = 2; break;
    case IBS_ETT_PFC: *off = p->off.mac_control, *len = IB_MACC_PFC_SIZE; break;
    case IBS_ETT_GID: *off = p->off.ib, *len = 0; break;
    case IBS_ETT_MAD:
        *off = p->off.mad;
        *len = IB_MAD_HEADER_SIZE;
        break;
    case IBS_ETT_CPI:
        *off = p->off.cpi;
        *len = IB_CPI_SIZE;
        break;
    default:
        *off = p->off.mad + IB_MAD_HEADER_SIZE;
        *len = IB_MAD_SIZE - IB_MAD_HEADER_SIZE;
        break;
    }
}

/* One item of ib_fields[i], whose value is v.  Wireshark masks and shifts
 * a value added to a bitmask field, so the core's value is shifted back. */
static proto_item *add_core_item(proto_tree *t, tvbuff_t *tvb, size_t i, const struct ib_packet *p,
                                 const struct ib_field_value *v)
{
    const struct ib_field *f = &ib_fields[i];
    guint off = ib_field_frame_offset(f, p);
    guint len = clip(tvb, off, f->wire_len);
    int hf = ibs_hf_core[i];
    unsigned sh = plan[i].shift;
    switch (f->type) {
    case IB_FT_BOOL:
        return proto_tree_add_boolean(t, hf, tvb, off, len,
                                      v->u ? (f->wire_mask ? f->wire_mask : 1) : 0);
    case IB_FT_GID:
    case IB_FT_IPV6:
        return proto_tree_add_ipv6(t, hf, tvb, off, len, (const ws_in6_addr *)v->bytes);
    case IB_FT_IPV4: {
        guint32 a;
        memcpy(&a, v->bytes, 4); /* network order, as Wireshark wants it */
        return proto_tree_add_ipv4(t, hf, tvb, off, len, a);
    }
    default: break;
    }
    if (f->wire_len > 4 || f->member_size > 4)
        return proto_tree_add_uint64(t, hf, tvb, off, len, v->u << sh);
    if (ib_fields[i].role == IB_FR_ATTR_ID) {
        const char *name = ib_attr_name(p->mad.mgmt_class, (uint16_t)v->u);
        return proto_tree_add_uint_format_value(t, hf, tvb, off, len, (guint32)v->u, "%s (0x%04x)",
                                                name ? name : "Unknown", (unsigned)v->u);
    }
    return proto_tree_add_uint(t, hf, tvb, off, len, (guint32)(v->u << sh));
}

static void add_derived_lrh(proto_tree *t, tvbuff_t *tvb, const struct ib_packet *p)
{
    guint o = p->off.lrh;
    guint d = o + IB_LRH_DLID_OFF, s = o + IB_LRH_SLID_OFF;
    proto_item *it =
        proto_tree_add_uint(t, ibs_hf.dlid_type, tvb, d, clip(tvb, d, 2), ib_lid_type(p->lrh.dlid));
    proto_item_set_generated(it);
    it =
        proto_tree_add_uint(t, ibs_hf.slid_type, tvb, s, clip(tvb, s, 2), ib_lid_type(p->lrh.slid));
    proto_item_set_generated(it);
}

static void add_derived_grh(proto_tree *t, tvbuff_t *tvb, const struct ib_packet *p)
{
    guint o = p->off.grh;
    guint sg = o + IB_GRH_SGID_OFF, dg = o + IB_GRH_DGID_OFF;
    proto_item *it = proto_tree_add_uint(t, ibs_hf.sgid_scope, tvb, sg, clip(tvb, sg, IB_GID_SIZE),
                                         ib_gid_scope(p->grh.sgid));
    proto_item_set_generated(it);
    it = proto_tree_add_uint(t, ibs_hf.dgid_scope, tvb, dg, clip(tvb, dg, IB_GID_SIZE),
                             ib_gid_scope(p->grh.dgid));
    proto_item_set_generated(it);
    /* Multicast flags and scope: of the DGID, or of an (illegal) multicast SGID. */
    const uint8_t *mgid = NULL;
    guint at = 0;
    if (ib_gid_scope(p->grh.dgid) == IB_GID_MULTICAST) {
        mgid = p->grh.dgid;
        at = dg + 1; /* flags and scope share the second byte */
    } else if (ib_gid_scope(p->grh.sgid) == IB_GID_MULTICAST) {
        mgid = p->grh.sgid;
        at = sg + 1;
    }
    if (mgid) {
        it = proto_tree_add_uint(t, ibs_hf.mcast_flags, tvb, at, clip(tvb, at, 1), mgid[1] >> 4);
        proto_item_set_generated(it);
        it = proto_tree_add_uint(t, ibs_hf.mcast_scope, tvb, at, clip(tvb, at, 1), mgid[1] & 0x0F);
        proto_item_set_generated(it);
    }
}

/* The heading of a group: an FT_NONE item, labelled only when shown. */
static proto_tree *add_heading(proto_tree *root, tvbuff_t *tvb, const struct group *g,
                               const struct ib_packet *p)
{
    guint off, len;
    group_range(g, p, &off, &len);
    int hf = ibs_hf_heading[g->ett];
    if (g->ett == IBS_ETT_CM && p->cm.attr >= IB_CM_REQ && p->cm.attr <= IB_CM_APR)
        hf = ibs_hf_cm_msg[p->cm.attr - IB_CM_REQ];
    proto_item *it = proto_tree_add_item(root, hf, tvb, off, clip(tvb, off, len), ENC_NA);
    return proto_item_add_subtree(it, ibs_ett[g->ett]);
}

static void add_fields(proto_tree *root, tvbuff_t *tvb, const struct ib_packet *p)
{
    if (ibs_prefs.tree_fields == IBS_TREE_ANALYSIS_ONLY)
        return;
    bool details = ibs_prefs.tree_fields != IBS_TREE_NO_CM_DETAILS;
    bool added_only = ibs_prefs.tree_fields == IBS_TREE_ADDED;
    for (size_t g = 0; g < GROUP_COUNT; g++) {
        if (!ib_packet_has(p, groups[g].layer))
            continue;
        const size_t *list = group_fields[g];
        size_t n = group_size[g];
        if (groups[g].ett == IBS_ETT_CM && p->cm.attr >= IB_CM_REQ && p->cm.attr <= IB_CM_APR) {
            list = cm_fields[p->cm.attr - IB_CM_REQ];
            n = cm_size[p->cm.attr - IB_CM_REQ];
        }
        proto_tree *sub = NULL, *status = NULL;
        for (size_t k = 0; k < n; k++) {
            size_t i = list[k];
            struct ib_field_value v;
            if ((plan[i].cm_detail && !details) || (added_only && !plan[i].added) ||
                !ib_field_get(&ib_fields[i], p, &v))
                continue;
            if (!sub)
                sub = add_heading(root, tvb, &groups[g], p);
            proto_tree *into = ib_fields[i].role == IB_FR_STATUS_BIT && status ? status : sub;
            proto_item *it = add_core_item(into, tvb, i, p, &v);
            if (ib_fields[i].role == IB_FR_DERIVED)
                proto_item_set_generated(it);
            if (ib_fields[i].role == IB_FR_STATUS)
                status = proto_item_add_subtree(it, ibs_ett[IBS_ETT_MAD_STATUS]);
        }
        /* The derived items are new in every mode: their heading comes too. */
        if (groups[g].ett == IBS_ETT_LRH || groups[g].ett == IBS_ETT_GRH) {
            if (!sub)
                sub = add_heading(root, tvb, &groups[g], p);
            if (groups[g].ett == IBS_ETT_LRH)
                add_derived_lrh(sub, tvb, p);
            else
                add_derived_grh(sub, tvb, p);
        }
    }
}

static void add_frame(proto_tree *t, int hf, tvbuff_t *tvb, const struct ib_frame_ref *r)
{
    if (r->frame == 0)
        return;
    proto_item *it = proto_tree_add_uint(t, hf, tvb, 0, 0, (guint32)r->frame);
    proto_item_set_generated(it);
}

/* The connection a CM message belongs to, and its REQ's tuple: the
 * built-in dissector shows the tuple on the REQ only. */
static void add_conn(proto_tree *t, tvbuff_t *tvb, uint32_t index, const struct ibs_conn *c)
{
    proto_item *ci = proto_tree_add_uint(t, ibs_hf.conn, tvb, 0, 0, index);
    proto_item_set_generated(ci);
    proto_tree *ct = proto_item_add_subtree(ci, ibs_ett[IBS_ETT_CONN]);
    proto_item *it = proto_tree_add_uint64(ct, ibs_hf.conn_service_id, tvb, 0, 0, c->service_id);
    proto_item_set_generated(it);
    if (!c->has_tuple)
        return;
    const struct ib_tuple *tu = &c->tuple;
    it = proto_tree_add_uint(ct, ibs_hf.conn_port_space, tvb, 0, 0, tu->port_space);
    proto_item_set_generated(it);
    if (tu->ip_version == 4) {
        guint32 a, b;
        /* The tuple keeps IPv4 in the last 4 bytes (as ::ffff:a.b.c.d);
         * network order, as Wireshark wants it. */
        memcpy(&a, tu->src_ip + 12, 4);
        memcpy(&b, tu->dst_ip + 12, 4);
        it = proto_tree_add_ipv4(ct, ibs_hf.conn_src_ip, tvb, 0, 0, a);
        proto_item_set_generated(it);
        it = proto_tree_add_uint(ct, ibs_hf.conn_src_port, tvb, 0, 0, tu->src_port);
        proto_item_set_generated(it);
        it = proto_tree_add_ipv4(ct, ibs_hf.conn_dst_ip, tvb, 0, 0, b);
    } else {
        it = proto_tree_add_ipv6(ct, ibs_hf.conn_src_ipv6, tvb, 0, 0,
                                 (const ws_in6_addr *)tu->src_ip);
        proto_item_set_generated(it);
        it = proto_tree_add_uint(ct, ibs_hf.conn_src_port, tvb, 0, 0, tu->src_port);
        proto_item_set_generated(it);
        it = proto_tree_add_ipv6(ct, ibs_hf.conn_dst_ipv6, tvb, 0, 0,
                                 (const ws_in6_addr *)tu->dst_ip);
    }
    proto_item_set_generated(it);
    it = proto_tree_add_uint(ct, ibs_hf.conn_dst_port, tvb, 0, 0, tu->dst_port);
    proto_item_set_generated(it);
    const char *ps = ib_name_lookup(ib_port_space_names, tu->port_space);
    if (ps)
        proto_item_append_text(ci, " (%s)", ps);
}

static void add_analysis(proto_tree *root, tvbuff_t *tvb, packet_info *pinfo,
                         const struct ibs_frame *fr)
{
    static const struct ibs_result none;
    const struct ibs_result *r = fr->result ? fr->result : &none;
    proto_item *ai = proto_tree_add_item(root, ibs_hf_heading[IBS_ETT_ANALYSIS], tvb, 0, 0, ENC_NA);
    proto_item_set_generated(ai);
    proto_tree *t = proto_item_add_subtree(ai, ibs_ett[IBS_ETT_ANALYSIS]);
    add_frame(t, ibs_hf.retransmission_of, tvb, &r->links.retransmission_of);
    add_frame(t, ibs_hf.port_reused_from, tvb, &r->links.port_reused_from);
    add_frame(t, ibs_hf.duplicate_tuple_of, tvb, &r->links.duplicate_tuple_of);
    add_frame(t, ibs_hf.redirected_by, tvb, &r->links.redirected_by);
    add_frame(t, ibs_hf.redirect_target_frame, tvb, &r->redirect_target_frame);
    add_frame(t, ibs_hf.redirect_loop_to, tvb, &r->links.redirect_loop_to);
    proto_item *it;
    if (r->links.has_ports) {
        it = proto_tree_add_uint(t, ibs_hf.ports_in_use, tvb, 0, 0, r->links.ports_in_use);
        proto_item_set_generated(it);
        it = proto_tree_add_double_format_value(t, ibs_hf.pool_utilization, tvb, 0, 0,
                                                r->links.pool_utilization, "%.2f%%",
                                                r->links.pool_utilization);
        proto_item_set_generated(it);
        it = proto_tree_add_uint(t, ibs_hf.tuple_ports_in_use, tvb, 0, 0,
                                 r->links.tuple_ports_in_use);
        proto_item_set_generated(it);
    }
    if (r->links.has_exhaustion_eta) {
        char left[24];
        ib_format_time_left(r->links.exhaustion_eta_s, left, sizeof left);
        it = proto_tree_add_double_format_value(t, ibs_hf.exhaustion_eta, tvb, 0, 0,
                                                r->links.exhaustion_eta_s, "%.3f s (%s)",
                                                r->links.exhaustion_eta_s, left);
        proto_item_set_generated(it);
        it = proto_tree_add_double_format_value(t, ibs_hf.port_rate, tvb, 0, 0,
                                                r->links.port_rate_per_s, "%.3f",
                                                r->links.port_rate_per_s);
        proto_item_set_generated(it);
    }
    if (r->links.has_redirect_depth) {
        it = proto_tree_add_uint(t, ibs_hf.redirect_depth, tvb, 0, 0, r->links.redirect_depth);
        proto_item_set_generated(it);
    }
    if (fr->conn)
        add_conn(t, tvb, fr->conn_index, fr->conn);
    if (fr->qp1) {
        it = proto_tree_add_uint(t, ibs_hf.qp, tvb, 0, 0, fr->qp1 - 1);
        proto_item_set_generated(it);
    }
    if (fr->acks_frame) {
        it = proto_tree_add_uint(t, ibs_hf.acks_frame, tvb, 0, 0, fr->acks_frame);
        proto_item_set_generated(it);
        nstime_t rtt = { (time_t)(fr->ack_rtt_ns / 1000000000),
                         (int)(fr->ack_rtt_ns % 1000000000) };
        it = proto_tree_add_time(t, ibs_hf.ack_rtt, tvb, 0, 0, &rtt);
        proto_item_set_generated(it);
    }
    if (fr->has_chain) {
        it = proto_tree_add_uint(t, ibs_hf.chain, tvb, 0, 0, fr->chain);
        proto_item_set_generated(it);
        if (fr->first_of_chain)
            proto_item_append_text(it, " (its first request)");
    }
    for (unsigned i = 0; i < r->count; i++) {
        const struct ib_finding *f = &r->findings[i];
        expert_field *ei =
            f->kind == IB_FIND_ADDRESSING && f->rule < IB_DIAG_COUNT
                ? &ibs_ei_rule[f->rule]
                : &ibs_ei_kind[f->kind < IB_FIND_COUNT ? f->kind : IB_FIND_MALFORMED];
        /* expert_add_info works without a tree too: -z expert and the
         * expert column still see it. */
        char msg[IB_FINDING_TEXT_MAX];
        expert_add_info_format(pinfo, ai, ei, "%s", ib_finding_format(f, msg, sizeof msg));
    }
}

static void add_diags(proto_tree *root, tvbuff_t *tvb, const struct ib_packet *p)
{
    if (p->diags.count == 0)
        return;
    proto_tree *t = proto_tree_add_subtree_format(root, tvb, 0, 0, ibs_ett[IBS_ETT_DIAGS], NULL,
                                                  "Diagnostics (%u)", p->diags.count);
    for (unsigned i = 0; i < p->diags.count && i < IB_DIAG_MAX; i++) {
        const struct ib_diag *d = &p->diags.items[i];
        const struct ib_diag_info *info = ib_diag_info((enum ib_diag_id)d->id);
        proto_item *it = proto_tree_add_string_format_value(
            t, ibs_hf.diag, tvb, d->offset, clip(tvb, d->offset, d->length), info->name,
            "%s: %s (%s)", info->name, info->text, ib_severity_name(info->severity));
        proto_item_set_generated(it);
    }
}

/* One CRC the way Wireshark shows checksums: the carried value, "[correct]"
 * or "[incorrect, should be 0x...]"; its field's value is the computed one. */
static void add_crc(proto_tree *t, tvbuff_t *tvb, int hf_status, int hf_value, guint off, guint len,
                    enum ib_crc_status st, uint32_t carried, uint32_t computed)
{
    proto_item *it = proto_tree_add_uint(t, hf_status, tvb, 0, 0, st);
    proto_item_set_generated(it);
    if (st == IB_CRC_NOT_PRESENT)
        return;
    int digits = (int)len * 2;
    if (st == IB_CRC_VERIFIED)
        it = proto_tree_add_uint_format_value(t, hf_value, tvb, off, clip(tvb, off, len), computed,
                                              "0x%0*x [correct]", digits, carried);
    else
        it = proto_tree_add_uint_format_value(t, hf_value, tvb, off, clip(tvb, off, len), computed,
                                              "0x%0*x [incorrect, should be 0x%0*x]", digits,
                                              carried, digits, computed);
    proto_item_set_generated(it);
}

/* The CRCs the built-in dissector shows unchecked: after the ICRC's bytes
 * come the VCRC's (native). */
static void add_crcs(proto_tree *t, tvbuff_t *tvb, const struct ib_packet *p)
{
    const struct ib_crc_check *c = &p->crc;
    guint icrc_at = p->off.ib + p->ib_len - IB_ICRC_SIZE;
    add_crc(t, tvb, ibs_hf.icrc_status, ibs_hf.icrc_computed, icrc_at, IB_ICRC_SIZE, c->icrc,
            c->icrc_carried, c->icrc_computed);
    add_crc(t, tvb, ibs_hf.vcrc_status, ibs_hf.vcrc_computed, p->off.ib + p->ib_len, IB_VCRC_SIZE,
            c->vcrc, c->vcrc_carried, c->vcrc_computed);
}

void ibs_tree_add(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, const struct ibs_frame *fr)
{
    const struct ib_packet *p = &fr->pkt;
    if (!plan)
        prepare();
    /* Nothing of ours is shown or filtered on (tshark -T fields of other
     * fields, plain -r): the expert infos are all that must be added. */
    if (!proto_field_is_referenced(tree, ibs_proto)) {
        if (fr->result)
            add_analysis(NULL, tvb, pinfo, fr);
        return;
    }
    proto_item *ti = proto_tree_add_item(tree, ibs_proto, tvb, p->off.ib,
                                         clip(tvb, p->off.ib, p->ib_len ? p->ib_len : 1), ENC_NA);
    proto_tree *root = proto_item_add_subtree(ti, ibs_ett[IBS_ETT_ROOT]);
    if (root)
        add_fields(root, tvb, p);
    if (root)
        add_diags(root, tvb, p);
    if (root && ibs_prefs.verify_crc)
        add_crcs(root, tvb, p);
    /* A frame linked to anything has the Analysis subtree: a data packet's
     * queue pair is all most have (ibscope.analysis.qp on every one, as
     * tcp.stream, so that its conversation filter selects them all). */
    if (fr->result || fr->conn || fr->has_chain || fr->qp1 || fr->acks_frame)
        add_analysis(root, tvb, pinfo, fr);
}

void ibs_tree_note(proto_tree *tree, tvbuff_t *tvb, packet_info *pinfo, expert_field *ei)
{
    proto_item *ti = NULL;
    if (proto_field_is_referenced(tree, ibs_proto))
        ti = proto_tree_add_item(tree, ibs_proto, tvb, 0, 0, ENC_NA);
    expert_add_info(pinfo, ti, ei);
}

const char *ibs_info_tag(packet_info *pinfo, const struct ibs_result *res)
{
    if (!res || res->count == 0)
        return NULL;
    /* The most severe finding; the engine's order breaks ties. */
    const struct ib_finding *best = &res->findings[0];
    for (unsigned i = 1; i < res->count; i++)
        if (res->findings[i].severity > best->severity)
            best = &res->findings[i];
    const char *tag =
        (unsigned)best->kind < IB_FIND_COUNT ? ib_finding_kinds[best->kind].tag : "ibscope";
    if (best->kind == IB_FIND_ADDRESSING || best->kind == IB_FIND_MALFORMED)
        return wmem_strdup_printf(pinfo->pool, "%s: %s", tag,
                                  ib_diag_info((enum ib_diag_id)best->rule)->name);
    return tag;
}
