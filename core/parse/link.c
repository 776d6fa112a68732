/* link.c - capture front ends: find the InfiniBand packet inside a frame of each link type.
 *
 * ERF type 21 and link types 247/147 carry the packet from its LRH; Ethernet
 * (also behind Linux cooked headers) carries RoCEv1 under ethertype 0x8915
 * (from the GRH) and RoCEv2 in UDP to port 4791 (from the BTH).  On the way
 * the carriers' settings are kept (wire_class.h: VLAN priority, DSCP, ECN,
 * TTL), and Ethernet PAUSE and PFC frames (mac_control.h) are recognised
 * as what they are rather than passed over.
 */
#include "packet.h"

#include <string.h>

#define ETH_HEADER         14
#define ETHERTYPE_IPV4     0x0800
#define ETHERTYPE_IPV6     0x86DD
#define ETHERTYPE_VLAN     0x8100
#define ETHERTYPE_QINQ     0x88A8
#define ETHERTYPE_QINQ_OLD 0x9100
#define IPPROTO_UDP_       17
#define UDP_HEADER         8
#define ERF_HEADER         16

void ib_parse_opts_init(struct ib_parse_opts *opts)
{
    *opts = (struct ib_parse_opts){ .rocev2_port = IB_ROCEV2_UDP_PORT, .verify_crc = true };
}

/* The caller's options, or the defaults (kept in *store) for NULL. */
static const struct ib_parse_opts *opts_or_defaults(const struct ib_parse_opts *opts,
                                                    struct ib_parse_opts *store)
{
    if (opts)
        return opts;
    ib_parse_opts_init(store);
    return store;
}

/* An IP address as a RoCE GID: IPv6 as it is, IPv4 as ::ffff:a.b.c.d. */
static void endpoint_from_ip(struct ib_endpoint *ep, uint8_t ip_version, const uint8_t *ip)
{
    memset(ep, 0, sizeof *ep);
    ep->has_gid = true;
    if (ip_version == 4) {
        ep->gid[10] = ep->gid[11] = 0xFF;
        memcpy(ep->gid + 12, ip, 4);
    } else {
        memcpy(ep->gid, ip, 16);
    }
}

static void endpoint_from_ipv4(struct ib_endpoint *ep, struct ib_span s, size_t off)
{
    uint8_t ip[4] = { 0 };
    ib_rdbytes(s, off, ip, 4);
    endpoint_from_ip(ep, 4, ip);
}

static void endpoint_from_ipv6(struct ib_endpoint *ep, struct ib_span s, size_t off)
{
    uint8_t ip[16] = { 0 };
    ib_rdbytes(s, off, ip, 16);
    endpoint_from_ip(ep, 6, ip);
}

/* The UDP length bounds a RoCEv2 packet: len bytes of frame, udp_len on the wire. */
static size_t udp_payload(size_t udp_len, size_t len)
{
    if (udp_len < UDP_HEADER)
        return 0;
    return udp_len - UDP_HEADER < len ? udp_len - UDP_HEADER : len;
}

/* An ERF record's wlen bounds a native packet of len bytes at off: a shorter
 * wlen is record padding, a longer one the card's own snap length. */
static size_t erf_bound(struct ib_packet *p, size_t off, size_t len, size_t wlen)
{
    if (wlen < len)
        return wlen;
    if (wlen > len && !ib_packet_snapped(p))
        ib_diag_add(&p->diags, IB_DIAG_SNAPLEN, off + len, 0);
    return len;
}

/* Every frame starts the same way: sizes kept, a snaplen cut noted. */
static void frame_begin(struct ib_packet *p, uint32_t linktype, size_t caplen, size_t wirelen)
{
    memset(p, 0, sizeof *p);
    p->linktype = linktype;
    p->caplen = caplen > UINT32_MAX ? UINT32_MAX : (uint32_t)caplen;
    p->wirelen = wirelen > UINT32_MAX ? UINT32_MAX : (uint32_t)wirelen;
    if (wirelen > caplen)
        ib_diag_add(&p->diags, IB_DIAG_SNAPLEN, caplen, 0);
}

/* UDP at udp_off, ip_payload bytes long according to the IP header. */
static enum ib_frame_result parse_udp(const struct ib_parse_opts *opts, struct ib_span f,
                                      size_t udp_off, size_t ip_payload, struct ib_packet *p)
{
    if (!ib_span_has(f, udp_off, UDP_HEADER)) {
        /* Only a port we cannot see could make this RoCE: not ours to flag. */
        return IB_FRAME_NOT_IB;
    }
    p->off.udp = (uint32_t)udp_off;
    p->udp_sport = ib_rd16(f, udp_off);
    p->udp_dport = ib_rd16(f, udp_off + 2);
    if (p->udp_dport != opts->rocev2_port)
        return IB_FRAME_NOT_IB;
    size_t udp_len = ib_rd16(f, udp_off + 4);
    if (udp_len < UDP_HEADER || udp_len > ip_payload) {
        ib_diag_add(&p->diags, IB_DIAG_UDP_LEN_MISMATCH, udp_off + 4, 2);
        udp_len = ip_payload >= UDP_HEADER ? ip_payload : UDP_HEADER;
    } else if (udp_len < ip_payload) {
        /* Bytes inside the IP packet but outside the UDP datagram. */
        ib_diag_add(&p->diags, IB_DIAG_UDP_LEN_MISMATCH, udp_off + 4, 2);
    }
    ib_parse_at(opts, IB_ENCAP_ROCEV2, f.data, f.len, udp_off + UDP_HEADER, udp_len - UDP_HEADER,
                p);
    return IB_FRAME_IB;
}

static enum ib_frame_result parse_ipv4(const struct ib_parse_opts *opts, struct ib_span f,
                                       size_t off, struct ib_packet *p)
{
    if (!ib_span_has(f, off, 20))
        return IB_FRAME_NOT_IB;
    uint8_t vihl = ib_rd8(f, off);
    size_t ihl = (size_t)(vihl & 0x0F) * 4;
    if (vihl >> 4 != 4)
        return IB_FRAME_NOT_IB;
    if (ib_rd8(f, off + 9) != IPPROTO_UDP_)
        return IB_FRAME_NOT_IB;
    if ((ib_rd16(f, off + 6) & 0x1FFF) != 0)
        return IB_FRAME_NOT_IB; /* a later fragment: no UDP header here */
    if (ihl < 20) {
        /* Decide whether it was meant for RoCE before complaining. */
        if (ib_rd16(f, off + 22) != opts->rocev2_port)
            return IB_FRAME_NOT_IB;
        ib_diag_add(&p->diags, IB_DIAG_IPV4_BAD_IHL, off, 1);
        p->encap = IB_ENCAP_ROCEV2;
        p->ip_version = 4;
        return IB_FRAME_IB;
    }
    size_t total = ib_rd16(f, off + 2);
    size_t present = f.len - off;
    p->ip_version = 4;
    p->off.ip = (uint32_t)off;
    if (ib_parse_ipv4_class(ib_span_from(f, off), &p->wire))
        p->present |= IB_HAS_IP;
    endpoint_from_ipv4(&p->src, f, off + 12);
    endpoint_from_ipv4(&p->dst, f, off + 16);
    if (total < ihl || total > present) {
        if (ib_rd16(f, off + ihl + 2) == opts->rocev2_port &&
            !(total > present && ib_packet_snapped(p)))
            ib_diag_add(&p->diags, IB_DIAG_IP_LEN_MISMATCH, off + 2, 2);
        total = total < ihl ? present : total;
    }
    return parse_udp(opts, f, off + ihl, total - ihl, p);
}

static enum ib_frame_result parse_ipv6(const struct ib_parse_opts *opts, struct ib_span f,
                                       size_t off, struct ib_packet *p)
{
    if (!ib_span_has(f, off, 40) || ib_rd8(f, off) >> 4 != 6)
        return IB_FRAME_NOT_IB;
    size_t payload = ib_rd16(f, off + 4);
    uint8_t next = ib_rd8(f, off + 6);
    size_t at = off + 40;
    p->ip_version = 6;
    p->off.ip = (uint32_t)off;
    if (ib_parse_ipv6_class(ib_span_from(f, off), &p->wire))
        p->present |= IB_HAS_IP;
    endpoint_from_ipv6(&p->src, f, off + 8);
    endpoint_from_ipv6(&p->dst, f, off + 24);
    /* Skip hop-by-hop, routing and destination options headers. */
    for (int hops = 0; hops < 8 && (next == 0 || next == 43 || next == 60); hops++) {
        if (!ib_span_has(f, at, 8))
            return IB_FRAME_NOT_IB;
        size_t len = ((size_t)ib_rd8(f, at + 1) + 1) * 8;
        next = ib_rd8(f, at);
        at += len;
        if (payload < len)
            return IB_FRAME_NOT_IB;
        payload -= len;
    }
    if (next != IPPROTO_UDP_)
        return IB_FRAME_NOT_IB;
    size_t present = f.len > at ? f.len - at : 0;
    if (payload > present) {
        if (ib_rd16(f, at + 2) == opts->rocev2_port && !ib_packet_snapped(p))
            ib_diag_add(&p->diags, IB_DIAG_IP_LEN_MISMATCH, off + 4, 2);
    }
    return parse_udp(opts, f, at, payload, p);
}

static bool is_tag(uint16_t type)
{
    return type == ETHERTYPE_VLAN || type == ETHERTYPE_QINQ || type == ETHERTYPE_QINQ_OLD;
}

/* The tag at off: its ID and settings kept for the first two. */
static void keep_tag(struct ib_span f, size_t off, struct ib_packet *p)
{
    if (p->vlan_count == 0) {
        p->off.vlan = (uint32_t)off;
        p->present |= IB_HAS_VLAN;
    }
    if (p->vlan_count < 2) {
        p->vlan_id[p->vlan_count] = ib_rd16(f, off) & 0x0FFF;
        ib_parse_vlan_tag(ib_span_from(f, off), p->vlan_count, &p->wire);
    }
    if (p->vlan_count < UINT8_MAX)
        p->vlan_count++;
}

/* The link header ends at off: what follows is the Ethernet payload, as long
 * on the wire as the frame's original length leaves (what an MTU bounds). */
static void ethernet_payload_at(size_t off, struct ib_packet *p)
{
    p->present |= IB_HAS_ETH;
    p->off.eth_payload = (uint32_t)off;
    p->wire.eth_payload_len = p->wirelen > off ? p->wirelen - (uint32_t)off : 0;
}

/* A MAC Control frame from its opcode at off: PAUSE and PFC are reported, the
 * other opcodes (EPON's, ...) are none of ibscope's business. */
static enum ib_frame_result parse_mac_control(struct ib_span f, size_t off, struct ib_packet *p)
{
    size_t left = f.len > off ? f.len - off : 0;
    if (!ib_span_has(f, off, 2)) {
        ib_diag_add(&p->diags, IB_DIAG_TRUNC_MAC_CONTROL, off, left);
        return IB_FRAME_MAC_CONTROL;
    }
    bool whole = ib_parse_mac_control(ib_span_from(f, off), &p->macc);
    if (!ib_mac_control_known(p->macc.opcode))
        return IB_FRAME_NOT_IB;
    p->present |= IB_HAS_MAC_CONTROL;
    p->off.mac_control = (uint32_t)off;
    if (!whole)
        ib_diag_add(&p->diags, IB_DIAG_TRUNC_MAC_CONTROL, off, left);
    return IB_FRAME_MAC_CONTROL;
}

/* Ethernet payload from off on, of the given ethertype (VLAN tags still to skip). */
static enum ib_frame_result parse_ethertype(const struct ib_parse_opts *opts, struct ib_span f,
                                            size_t off, uint16_t type, struct ib_packet *p)
{
    while (is_tag(type)) {
        if (!ib_span_has(f, off, 4))
            return IB_FRAME_NOT_IB;
        keep_tag(f, off, p);
        type = ib_rd16(f, off + 2);
        off += 4;
    }
    ethernet_payload_at(off, p);
    switch (type) {
    case IB_ETHERTYPE_MAC_CONTROL: return parse_mac_control(f, off, p);
    case IB_ETHERTYPE_ROCEV1:
        ib_parse_at(opts, IB_ENCAP_ROCEV1, f.data, f.len, off, f.len - off, p);
        return IB_FRAME_IB;
    case ETHERTYPE_IPV4: return parse_ipv4(opts, f, off, p);
    case ETHERTYPE_IPV6: return parse_ipv6(opts, f, off, p);
    default: return IB_FRAME_NOT_IB;
    }
}

/* An Ethernet header at eth_off, then its payload. */
static enum ib_frame_result parse_ethernet(const struct ib_parse_opts *opts, struct ib_span f,
                                           size_t eth_off, struct ib_packet *p)
{
    if (!ib_span_has(f, eth_off, ETH_HEADER))
        return IB_FRAME_NOT_IB;
    return parse_ethertype(opts, f, eth_off + ETH_HEADER, ib_rd16(f, eth_off + 12), p);
}

static enum ib_frame_result parse_erf(const struct ib_parse_opts *opts, struct ib_span f,
                                      struct ib_packet *p)
{
    if (!ib_span_has(f, 0, ERF_HEADER)) {
        ib_diag_add(&p->diags, IB_DIAG_TRUNC_LINK, 0, f.len);
        p->encap = IB_ENCAP_NATIVE;
        return IB_FRAME_IB;
    }
    uint8_t type = ib_rd8(f, 8);
    size_t rlen = ib_rd16(f, 10);
    size_t wlen = ib_rd16(f, 14);
    size_t off = ERF_HEADER;
    /* Extension headers: 8 bytes each, bit 7 of the first byte says another follows. */
    for (bool more = (type & 0x80) != 0; more; off += 8) {
        if (!ib_span_has(f, off, 8)) {
            ib_diag_add(&p->diags, IB_DIAG_TRUNC_LINK, off, f.len - off);
            p->encap = IB_ENCAP_NATIVE;
            return IB_FRAME_IB;
        }
        more = (ib_rd8(f, off) & 0x80) != 0;
    }
    switch (type & 0x7F) {
    case IB_ERF_TYPE_INFINIBAND: break;
    case IB_ERF_TYPE_INFINIBAND_LINK: return IB_FRAME_LINK_RECORD;
    default: return IB_FRAME_NOT_IB;
    }
    size_t len = f.len - off;
    if (rlen < off) {
        ib_diag_add(&p->diags, IB_DIAG_ERF_BAD_RLEN, 10, 2);
    } else if (rlen - off < len) {
        len = rlen - off; /* bytes past rlen belong to no record */
    }
    len = erf_bound(p, off, len, wlen);
    ib_parse_at(opts, IB_ENCAP_NATIVE, f.data, off + len, off, len, p);
    return IB_FRAME_IB;
}

/* Every frame ends the same way: the CRCs of a packet checked, or a clean
 * slate when the frame says nothing about InfiniBand. */
static enum ib_frame_result frame_end(const struct ib_parse_opts *opts, const uint8_t *frame,
                                      size_t caplen, enum ib_frame_result r, struct ib_packet *p)
{
    if (r == IB_FRAME_IB && opts->verify_crc)
        ib_crc_check(frame, caplen, p, &p->crc);
    if (r != IB_FRAME_IB && r != IB_FRAME_MAC_CONTROL) {
        uint32_t lt = p->linktype, cl = p->caplen, wl = p->wirelen;
        memset(p, 0, sizeof *p);
        p->linktype = lt;
        p->caplen = cl;
        p->wirelen = wl;
    }
    return r;
}

/* What the host's layers in front of a RoCEv2 packet say of its settings:
 * the IP header's, and the tags of the Ethernet header before it when they
 * lead straight to it (nothing in between that the walk cannot see). */
static void carried_settings(struct ib_span f, const struct ib_carrier *c, struct ib_packet *p)
{
    struct ib_span ip = ib_span_from(f, c->ip_off);
    if ((c->ip_version == 4 && ib_parse_ipv4_class(ip, &p->wire)) ||
        (c->ip_version == 6 && ib_parse_ipv6_class(ip, &p->wire)))
        p->present |= IB_HAS_IP;
    if (!c->has_eth_off || !ib_span_has(f, c->eth_off, ETH_HEADER))
        return;
    size_t first = c->eth_off + ETH_HEADER, off = first;
    uint16_t type = ib_rd16(f, c->eth_off + 12);
    for (; is_tag(type) && ib_span_has(f, off, 4) && off < c->ip_off; off += 4)
        type = ib_rd16(f, off + 2);
    if (off != c->ip_off || (type != ETHERTYPE_IPV4 && type != ETHERTYPE_IPV6))
        return;
    for (off = first; off < c->ip_off; off += 4)
        keep_tag(f, off, p);
    ethernet_payload_at(off, p);
}

enum ib_frame_result ib_parse_carried(const struct ib_parse_opts *opts, const uint8_t *frame,
                                      size_t caplen, size_t wirelen, const struct ib_carrier *c,
                                      struct ib_packet *p)
{
    struct ib_parse_opts defaults;
    opts = opts_or_defaults(opts, &defaults);
    frame_begin(p, 0, caplen, wirelen);
    size_t len = caplen > c->ib_off ? caplen - c->ib_off : 0;
    if (c->encap == IB_ENCAP_NATIVE && c->has_erf_wlen)
        len = erf_bound(p, c->ib_off, len, c->erf_wlen);
    if (c->encap == IB_ENCAP_ROCEV2) {
        if (c->has_udp_len)
            len = udp_payload(c->udp_len, len);
        if (c->ip_version == 4 || c->ip_version == 6) {
            p->ip_version = c->ip_version;
            endpoint_from_ip(&p->src, c->ip_version, c->src_ip);
            endpoint_from_ip(&p->dst, c->ip_version, c->dst_ip);
        }
        p->udp_sport = c->udp_sport;
        p->udp_dport = c->udp_dport;
        if (c->has_ip_off && c->ib_off >= UDP_HEADER) {
            p->off.ip = (uint32_t)c->ip_off;
            p->off.udp = (uint32_t)(c->ib_off - UDP_HEADER);
            carried_settings(ib_span_make(frame, caplen), c, p);
        }
    }
    ib_parse_at(opts, c->encap, frame, caplen, c->ib_off, len, p);
    if (opts->verify_crc)
        ib_crc_check(frame, caplen, p, &p->crc);
    return IB_FRAME_IB;
}

enum ib_frame_result ib_parse_frame(const struct ib_parse_opts *opts, uint32_t linktype,
                                    const uint8_t *frame, size_t caplen, size_t wirelen,
                                    struct ib_packet *p)
{
    struct ib_parse_opts defaults;
    opts = opts_or_defaults(opts, &defaults);
    frame_begin(p, linktype, caplen, wirelen);
    struct ib_span f = ib_span_make(frame, caplen);

    enum ib_frame_result r;
    switch (linktype) {
    case IB_DLT_INFINIBAND:
    case IB_DLT_USER0:
        ib_parse_at(opts, IB_ENCAP_NATIVE, f.data, f.len, 0, f.len, p);
        r = IB_FRAME_IB;
        break;
    case IB_DLT_ERF: r = parse_erf(opts, f, p); break;
    case IB_DLT_EN10MB: r = parse_ethernet(opts, f, 0, p); break;
    case IB_DLT_LINUX_SLL:
        if (!ib_span_has(f, 0, 16))
            return IB_FRAME_NOT_IB;
        r = parse_ethertype(opts, f, 16, ib_rd16(f, 14), p);
        break;
    case IB_DLT_LINUX_SLL2:
        if (!ib_span_has(f, 0, 20))
            return IB_FRAME_NOT_IB;
        r = parse_ethertype(opts, f, 20, ib_rd16(f, 0), p);
        break;
    default: return IB_FRAME_BAD_LINKTYPE;
    }
    return frame_end(opts, frame, caplen, r, p);
}

enum ib_frame_result ib_parse_ethernet_at(const struct ib_parse_opts *opts, const uint8_t *frame,
                                          size_t caplen, size_t wirelen, size_t eth_off,
                                          struct ib_packet *p)
{
    struct ib_parse_opts defaults;
    opts = opts_or_defaults(opts, &defaults);
    frame_begin(p, IB_DLT_EN10MB, caplen, wirelen);
    enum ib_frame_result r = parse_ethernet(opts, ib_span_make(frame, caplen), eth_off, p);
    return frame_end(opts, frame, caplen, r, p);
}
