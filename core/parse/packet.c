/* packet.c - decode one InfiniBand packet from its first header: lengths, headers, MAD, class data.
 *
 * The length of the packet comes from the header that states it: LRH PktLen
 * (native), GRH PayLen (RoCEv1) or the UDP length (RoCEv2).  From that we
 * work out whether the ICRC (and, native, the VCRC) were captured, so that
 * the payload ends where the sender's payload ended.
 */
#include "addressing.h"
#include "packet.h"

#include <string.h>

/* Bytes of the packet from its first header through the ICRC, and which
 * CRCs are in the frame.  *cut is set when the frame holds less than that. */
static size_t native_length(struct ib_packet *p, size_t avail, bool *cut)
{
    size_t stated = (size_t)p->lrh.pktlen * 4;
    *cut = false;
    if (stated < IB_LRH_SIZE + IB_ICRC_SIZE) {
        ib_diag_add(&p->diags, IB_DIAG_PKTLEN_MISMATCH, p->off.lrh + 4, 2);
        return avail;
    }
    if (avail >= stated) {
        p->present |= IB_HAS_ICRC;
        if (avail >= stated + IB_VCRC_SIZE)
            p->present |= IB_HAS_VCRC;
        /* More than the packet and its VCRC: PktLen is short of what was sent. */
        if (avail > stated + IB_VCRC_SIZE)
            ib_diag_add(&p->diags, IB_DIAG_PKTLEN_MISMATCH, p->off.lrh + 4, 2);
        return stated;
    }
    if (avail == stated - IB_ICRC_SIZE)
        return avail; /* captured without CRCs: nothing missing but the ICRC */
    *cut = true;
    if (!ib_packet_snapped(p))
        ib_diag_add(&p->diags, IB_DIAG_PKTLEN_MISMATCH, p->off.lrh + 4, 2);
    return avail;
}

static void parse_transport(const struct ib_parse_opts *opts, struct ib_span f, size_t at,
                            size_t limit, bool cut, struct ib_packet *p);
static void parse_mad(struct ib_span f, struct ib_packet *p);

/* Where the headers before the transport leave the packet. */
struct link_layers {
    size_t at;    /* next header, frame offset */
    size_t total; /* packet bytes through the ICRC, as far as captured */
    bool cut;     /* the packet is not all there */
    bool bth_next;
};

/* What parsing the headers before the transport came to. */
enum layers_result {
    LAYERS_OK,    /* go on to the transport */
    LAYERS_CHECK, /* stop, but check the addressing rules of what was read */
    LAYERS_STOP,  /* nothing to check: not even the first header was there */
};

/* Native: LRH, then a GRH when LNH says so. */
static enum layers_result native_layers(struct ib_span ib, size_t ib_len, struct link_layers *l,
                                        struct ib_packet *p)
{
    p->off.lrh = (uint32_t)l->at;
    if (!ib_parse_lrh(ib, &p->lrh)) {
        ib_diag_add(&p->diags, IB_DIAG_TRUNC_LRH, l->at, ib_len);
        return LAYERS_STOP;
    }
    p->present |= IB_HAS_LRH;
    p->src.lid = p->lrh.slid;
    p->dst.lid = p->lrh.dlid;
    l->total = native_length(p, ib_len, &l->cut);
    l->at += IB_LRH_SIZE;
    if (p->lrh.lnh != IB_LNH_GRH) {
        l->bth_next = p->lrh.lnh == IB_LNH_BTH;
        return LAYERS_OK;
    }
    p->off.grh = (uint32_t)l->at;
    if (!ib_parse_grh(ib_span_from(ib, IB_LRH_SIZE), &p->grh)) {
        ib_diag_add(&p->diags, IB_DIAG_TRUNC_GRH, l->at, ib_len - IB_LRH_SIZE);
        return LAYERS_CHECK;
    }
    p->present |= IB_HAS_GRH;
    size_t stated = (size_t)p->lrh.pktlen * 4;
    if (stated >= IB_LRH_SIZE + IB_GRH_SIZE && p->grh.paylen != stated - IB_LRH_SIZE - IB_GRH_SIZE)
        ib_diag_add(&p->diags, IB_DIAG_PAYLEN_MISMATCH, l->at + 4, 2);
    l->at += IB_GRH_SIZE;
    l->bth_next = p->grh.nxthdr == IB_GRH_NXTHDR_BTH;
    return LAYERS_OK;
}

/* RoCEv1: a GRH, whose PayLen bounds the packet. */
static enum layers_result rocev1_layers(struct ib_span ib, size_t ib_len, struct link_layers *l,
                                        struct ib_packet *p)
{
    p->off.grh = (uint32_t)l->at;
    if (!ib_parse_grh(ib, &p->grh)) {
        ib_diag_add(&p->diags, IB_DIAG_TRUNC_GRH, l->at, ib_len);
        return LAYERS_STOP;
    }
    p->present |= IB_HAS_GRH;
    l->total = IB_GRH_SIZE + (size_t)p->grh.paylen;
    if (ib_len >= l->total) {
        p->present |= IB_HAS_ICRC; /* what follows is Ethernet padding or FCS */
    } else {
        l->cut = true;
        l->total = ib_len;
        if (!ib_packet_snapped(p))
            ib_diag_add(&p->diags, IB_DIAG_PAYLEN_MISMATCH, l->at + 4, 2);
    }
    l->at += IB_GRH_SIZE;
    l->bth_next = p->grh.nxthdr == IB_GRH_NXTHDR_BTH;
    return LAYERS_OK;
}

/* The settings the IB headers themselves carry: the GRH traffic class split
 * as RoCEv2's IP header splits it (DSCP, ECN), and the kinds of the GIDs. */
static void wire_settings(struct ib_packet *p)
{
    if (ib_packet_has(p, IB_HAS_GRH)) {
        p->wire.grh_dscp = p->grh.tclass >> 2;
        p->wire.grh_ecn = p->grh.tclass & 3;
    }
    if (p->src.has_gid && p->dst.has_gid) {
        p->present |= IB_HAS_GIDS;
        p->wire.src_gid_kind = (uint8_t)ib_gid_kind(p->src.gid);
        p->wire.dst_gid_kind = (uint8_t)ib_gid_kind(p->dst.gid);
    }
}

void ib_parse_at(const struct ib_parse_opts *opts, enum ib_encap encap, const uint8_t *frame,
                 size_t caplen, size_t ib_off, size_t ib_len, struct ib_packet *p)
{
    struct ib_parse_opts defaults;
    if (!opts) {
        ib_parse_opts_init(&defaults);
        opts = &defaults;
    }
    struct ib_span f = ib_span_make(frame, caplen);
    size_t avail = ib_off <= f.len ? f.len - ib_off : 0;
    bool carrier_cut = ib_len > avail;
    if (carrier_cut) {
        ib_len = avail;
        /* The carrier promised more than the frame holds. */
        if (encap == IB_ENCAP_ROCEV2 && !ib_packet_snapped(p) &&
            !ib_diag_has(&p->diags, IB_DIAG_IP_LEN_MISMATCH) &&
            !ib_diag_has(&p->diags, IB_DIAG_UDP_LEN_MISMATCH))
            ib_diag_add(&p->diags, IB_DIAG_UDP_LEN_MISMATCH, ib_off, 0);
    }
    p->encap = encap;
    p->off.ib = (uint32_t)ib_off;
    struct ib_span ib = ib_span_make(f.data + (ib_off <= f.len ? ib_off : f.len), ib_len);
    struct link_layers l = { ib_off, ib_len, carrier_cut, false };
    enum layers_result r;
    switch (encap) {
    case IB_ENCAP_NATIVE: r = native_layers(ib, ib_len, &l, p); break;
    case IB_ENCAP_ROCEV1: r = rocev1_layers(ib, ib_len, &l, p); break;
    case IB_ENCAP_ROCEV2: /* the BTH first; the UDP length bounds it */
        if (!l.cut)
            p->present |= IB_HAS_ICRC;
        l.bth_next = true;
        r = LAYERS_OK;
        break;
    default: return;
    }
    if (r == LAYERS_STOP)
        return;
    if (r == LAYERS_OK) {
        if (ib_packet_has(p, IB_HAS_GRH)) {
            p->src.has_gid = p->dst.has_gid = true;
            memcpy(p->src.gid, p->grh.sgid, 16);
            memcpy(p->dst.gid, p->grh.dgid, 16);
        }
        p->ib_len = (uint32_t)l.total;
        if (l.bth_next) {
            size_t end = ib_off + l.total;
            if (ib_packet_has(p, IB_HAS_ICRC) && l.total >= IB_ICRC_SIZE)
                end -= IB_ICRC_SIZE;
            parse_transport(opts, f, l.at, end, l.cut, p);
        }
    }
    wire_settings(p);
    ib_check_addressing(p);
}

static void mark_layer(struct ib_packet *p, uint32_t bit, uint32_t *off, size_t at)
{
    p->present |= bit;
    *off = (uint32_t)at;
}

/* The extended headers of h but the DETH, from at on, all in the span. */
static void read_ext_headers(struct ib_span t, size_t at, uint16_t h, struct ib_packet *p)
{
    struct ib_ext *x = &p->ext;
    for (; h; h &= (uint16_t)(h - 1)) {
        uint16_t bit = h & (uint16_t)-h;
        struct ib_span s = ib_span_from(t, at);
        switch (bit) {
        case IB_EXT_XRCETH:
            if (ib_parse_xrceth(s, &x->xrc_srqn))
                mark_layer(p, IB_HAS_XRCETH, &p->off.xrceth, at);
            break;
        case IB_EXT_RETH:
            if (ib_parse_reth(s, &x->reth))
                mark_layer(p, IB_HAS_RETH, &p->off.reth, at);
            break;
        case IB_EXT_ATOMICETH:
            if (ib_parse_atomiceth(s, &x->atomic))
                mark_layer(p, IB_HAS_ATOMICETH, &p->off.atomiceth, at);
            break;
        case IB_EXT_AETH:
            if (ib_parse_aeth(s, &x->aeth))
                mark_layer(p, IB_HAS_AETH, &p->off.aeth, at);
            break;
        case IB_EXT_ATOMICACKETH:
            x->atomic_orig = ib_rd64(s, 0);
            mark_layer(p, IB_HAS_ATOMICACKETH, &p->off.atomicacketh, at);
            break;
        case IB_EXT_IMMDT:
            x->immdt = ib_rd32(s, 0);
            mark_layer(p, IB_HAS_IMMDT, &p->off.immdt, at);
            break;
        case IB_EXT_IETH:
            x->ieth_rkey = ib_rd32(s, 0);
            mark_layer(p, IB_HAS_IETH, &p->off.ieth, at);
            break;
        default: break; /* the DETH, read before; a CNP's reserved bytes */
        }
        at += ib_ext_header_size(bit);
    }
}

/* BTH, extended transport headers, then the MAD when this is management traffic. */
static void parse_transport(const struct ib_parse_opts *opts, struct ib_span f, size_t at,
                            size_t limit, bool cut, struct ib_packet *p)
{
    struct ib_span t = ib_span_head(f, limit); /* nothing past the ICRC */
    p->off.bth = (uint32_t)at;
    if (!ib_parse_bth(ib_span_from(t, at), &p->bth)) {
        ib_diag_add(&p->diags, IB_DIAG_TRUNC_BTH, at, limit > at ? limit - at : 0);
        return;
    }
    p->present |= IB_HAS_BTH;
    at += IB_BTH_SIZE;
    uint16_t headers = ib_opcode_ext_headers(p->bth.opcode);
    if (headers == IB_EXT_UNKNOWN)
        return; /* an opcode whose headers we do not know: stop at the BTH */
    if (headers & IB_EXT_DETH) {
        p->off.deth = (uint32_t)at;
        if (!ib_parse_deth(ib_span_from(t, at), &p->deth)) {
            ib_diag_add(&p->diags, IB_DIAG_TRUNC_DETH, at, limit > at ? limit - at : 0);
            return;
        }
        p->present |= IB_HAS_DETH;
    }
    size_t ext = ib_ext_headers_size(headers);
    if (!ib_span_has(t, at, ext)) {
        ib_diag_add(&p->diags, IB_DIAG_TRUNC_BTH, at, limit > at ? limit - at : 0);
        return;
    }
    read_ext_headers(t, at, headers, p);
    at += ext;
    p->off.payload = (uint32_t)at;
    p->present |= IB_HAS_PAYLOAD;
    size_t payload = limit - at;
    if (!cut) {
        if (p->bth.padcnt > payload)
            ib_diag_add(&p->diags, IB_DIAG_BAD_PADCNT, p->off.bth + 1, 1);
        else
            payload -= p->bth.padcnt;
    }
    p->payload_len = (uint32_t)payload;

    if (!ib_packet_has(p, IB_HAS_DETH) || opts->headers_only)
        return;
    /* Management traffic: QP0/QP1, or a QP that a redirect named. */
    uint32_t dqp = p->bth.destqp, sqp = p->deth.srcqp;
    bool mad = dqp <= IB_QP1 || sqp <= IB_QP1 ||
               (opts->is_mad_qp && opts->is_mad_qp(opts->ctx, &p->dst, dqp));
    if (mad)
        parse_mad(ib_span_head(t, at + payload), p);
}

static void parse_mad(struct ib_span f, struct ib_packet *p)
{
    size_t at = p->off.payload;
    struct ib_span m = ib_span_from(f, at);
    p->off.mad = (uint32_t)at;
    if (!ib_parse_mad_header(m, &p->mad)) {
        ib_diag_add(&p->diags, IB_DIAG_TRUNC_MAD, at, m.len);
        return;
    }
    p->present |= IB_HAS_MAD;
    if (m.len < IB_MAD_SIZE)
        ib_diag_add(&p->diags, IB_DIAG_TRUNC_MAD, at, m.len);
    m = ib_span_head(m, IB_MAD_SIZE);

    if (p->mad.mgmt_class == IB_CLASS_CM) {
        if (!ib_parse_cm(m, p->mad.attr_id, &p->cm)) {
            ib_diag_add(&p->diags, IB_DIAG_TRUNC_CLASS_DATA, at + IB_MAD_HEADER_SIZE,
                        m.len - IB_MAD_HEADER_SIZE);
            return;
        }
        p->present |= IB_HAS_CM;
        const struct ib_cm *cm = &p->cm;
        bool ipcm_missing = cm->sid.ip_cm && !cm->has_ipcm && ib_cm_carries_ipcm(cm->attr);
        bool cpi_missing =
            (cm->attr == IB_CM_REJ && cm->u.rej.ari_has_cpi && !cm->has_cpi) ||
            (cm->attr == IB_CM_SIDR_REP && cm->u.sidr_rep.info_has_cpi && !cm->has_cpi);
        if (ipcm_missing || cpi_missing) {
            size_t from = cm->private_offset < m.len ? cm->private_offset : m.len;
            ib_diag_add(&p->diags, IB_DIAG_TRUNC_CLASS_DATA, at + from, m.len - from);
        }
        if (cm->has_cpi) {
            p->cpi = cm->cpi;
            p->off.cpi = (uint32_t)(at + cm->cpi_offset);
            p->present |= IB_HAS_CPI;
        }
    }
    if (p->mad.attr_id == IB_ATTR_CLASS_PORT_INFO && !ib_mad_class_is_smp(p->mad.mgmt_class)) {
        size_t data = p->mad.data_offset;
        p->off.cpi = (uint32_t)(at + data);
        if (ib_parse_cpi(ib_span_from(m, data), &p->cpi))
            p->present |= IB_HAS_CPI;
        else /* point at what is there: the cut may fall before the data starts */
            ib_diag_add(&p->diags, IB_DIAG_TRUNC_CLASS_DATA, at + (data < m.len ? data : m.len),
                        m.len > data ? m.len - data : 0);
    }
}
