/* place.c - where Wireshark's own InfiniBand dissector found the packet in a frame.
 *
 * The walk follows pinfo->layers from the frame's first byte: each layer
 * Wireshark dissected before `infiniband` is a header ibscope knows the size
 * of (from its own bytes), or the walk stops and the packet is unplaced.
 * Layers that take no bytes of the frame (frame, erf, ethertype, user_dlt)
 * are passed over.  The UDP header found last must carry a port that
 * Wireshark's `udp.port` table gives to InfiniBand (its default, its
 * preference, or Decode As): the check that the walk landed where
 * Wireshark's dissectors did.
 */
#include "place.h"

#include <wiretap/wtap.h>

enum layer {
    L_OTHER,  /* a layer whose size is not known here */
    L_NONE,   /* takes no bytes of the frame */
    L_SLL,    /* Linux cooked header: 16 bytes, 20 for SLL2 */
    L_ETH,    /* 14 */
    L_VLAN,   /* 4: 802.1Q, 802.1ad */
    L_IP,     /* IHL * 4 */
    L_IPV6,   /* 40 */
    L_IPV6_X, /* hop-by-hop, routing, destination options: (length + 1) * 8 */
    L_UDP,    /* 8 */
    L_VXLAN,  /* 8 */
    L_GENEVE, /* 8 + options */
    L_GRE,    /* 4 + the optional fields its flags announce */
    L_MPLS,   /* 4 a label, to the bottom of the stack */
    L_IB,
};

/* The layers by the filter names of their protocols. */
static const struct {
    const char *name;
    enum layer kind;
} known[] = {
    { "frame", L_NONE },
    { "erf", L_NONE },
    { "user_dlt", L_NONE },
    { "ethertype", L_NONE },
    { "sll", L_SLL },
    { "eth", L_ETH },
    { "vlan", L_VLAN },
    { "ieee8021ad", L_VLAN },
    { "ip", L_IP },
    { "ipv6", L_IPV6 },
    { "ipv6.hopopts", L_IPV6_X },
    { "ipv6.routing", L_IPV6_X },
    { "ipv6.dstopts", L_IPV6_X },
    { "udp", L_UDP },
    { "vxlan", L_VXLAN },
    { "geneve", L_GENEVE },
    { "gre", L_GRE },
    { "mpls", L_MPLS },
    { "infiniband", L_IB },
};
#define KNOWN_COUNT (sizeof known / sizeof known[0])
static int known_ids[KNOWN_COUNT];
static int proto_infiniband = -1;
static dissector_table_t udp_port_table;

void ibs_place_handoff(void)
{
    for (size_t i = 0; i < KNOWN_COUNT; i++)
        known_ids[i] = proto_get_id_by_filter_name(known[i].name);
    proto_infiniband = proto_get_id_by_filter_name("infiniband");
    udp_port_table = find_dissector_table("udp.port");
}

static enum layer layer_of(int id)
{
    for (size_t i = 0; i < KNOWN_COUNT; i++)
        if (known_ids[i] == id && id != -1)
            return known[i].kind;
    return L_OTHER;
}

bool ibs_place_has_infiniband(packet_info *pinfo)
{
    for (wmem_list_frame_t *f = wmem_list_head(pinfo->layers); f; f = wmem_list_frame_next(f))
        if (GPOINTER_TO_INT(wmem_list_frame_data(f)) == proto_infiniband)
            return true;
    return false;
}

static unsigned rd16(const uint8_t *p)
{
    return (unsigned)p[0] << 8 | p[1];
}

/* The size of a Linux cooked header, by the frame's link type (0: none). */
static size_t sll_size(const packet_info *pinfo)
{
    if (!pinfo->rec || pinfo->rec->rec_type != REC_TYPE_PACKET)
        return 0;
    switch (pinfo->rec->rec_header.packet_header.pkt_encap) {
    case WTAP_ENCAP_SLL: return 16;
    case WTAP_ENCAP_SLL2: return 20;
    default: return 0;
    }
}

/* The size of the header of kind k at off in the frame, 0 when it cannot
 * be told (too short, another version, a fragment whose payload Wireshark
 * reassembled elsewhere). */
static size_t header_size(packet_info *pinfo, enum layer k, const uint8_t *d, size_t caplen,
                          size_t off)
{
    size_t left = caplen > off ? caplen - off : 0;
    const uint8_t *h = d + off;
    size_t n = 0;
    switch (k) {
    case L_SLL: n = sll_size(pinfo); break;
    case L_ETH: n = 14; break;
    case L_VLAN: n = 4; break;
    case L_UDP: n = 8; break;
    case L_VXLAN: n = 8; break;
    case L_IP:
        if (left >= 20 && h[0] >> 4 == 4 && (rd16(h + 6) & 0x3FFF) == 0) /* MF, offset */
            n = (size_t)(h[0] & 0x0F) * 4;
        return n >= 20 && n <= left ? n : 0;
    case L_IPV6: n = left >= 1 && h[0] >> 4 == 6 ? 40 : 0; break;
    case L_IPV6_X: n = left >= 2 ? ((size_t)h[1] + 1) * 8 : 0; break;
    case L_GENEVE: n = left >= 1 ? 8 + (size_t)(h[0] & 0x3F) * 4 : 0; break;
    case L_GRE:
        /* Version 0 without source routing: checksum, key, sequence number. */
        if (left >= 4 && (h[1] & 0x07) == 0 && !(h[0] & 0x40))
            n = 4 + (h[0] & 0x80 ? 4 : 0) + (h[0] & 0x20 ? 4 : 0) + (h[0] & 0x10 ? 4 : 0);
        break;
    case L_MPLS:
        while (n + 4 <= left && !(h[n + 2] & 0x01)) /* bottom of stack */
            n += 4;
        n += 4;
        break;
    default: return 0;
    }
    return n <= left ? n : 0;
}

/* Whether Wireshark's udp.port table gives one of the UDP header's ports to InfiniBand. */
static bool udp_port_is_infiniband(const uint8_t *udp)
{
    for (int i = 0; i < 2; i++) {
        dissector_handle_t h =
            udp_port_table ? dissector_get_uint_handle(udp_port_table, rd16(udp + 2 * i)) : NULL;
        if (h && dissector_handle_get_protocol_index(h) == proto_infiniband)
            return true;
    }
    return false;
}

/* Where the walk is: the offset reached, the last header with bytes and
 * the last Ethernet and IP headers passed. */
struct walk {
    size_t off;
    enum layer last; /* L_NONE while no header took bytes */
    size_t eth, ip, udp;
    bool has_eth; /* eth holds an Ethernet header */
};

/* RoCEv2: the UDP header the walk passed last, behind its IP header. */
static bool rocev2_carrier(const uint8_t *d, size_t caplen, const struct walk *w,
                           struct ib_carrier *c)
{
    size_t ip = w->ip, udp = w->udp;
    if (udp + 8 > caplen || !udp_port_is_infiniband(d + udp))
        return false;
    memset(c, 0, sizeof *c);
    c->encap = IB_ENCAP_ROCEV2;
    c->ib_off = udp + 8;
    c->has_ip_off = true;
    c->ip_off = ip;
    c->has_udp_len = true;
    c->udp_len = (uint16_t)rd16(d + udp + 4);
    c->udp_sport = (uint16_t)rd16(d + udp);
    c->udp_dport = (uint16_t)rd16(d + udp + 2);
    c->ip_version = (uint8_t)(d[ip] >> 4);
    size_t n = c->ip_version == 4 ? 4 : 16, at = c->ip_version == 4 ? 12 : 8;
    memcpy(c->src_ip, d + ip + at, n);
    memcpy(c->dst_ip, d + ip + at + n, n);
    /* The core takes the tags' settings only if they lead to this IP header. */
    c->has_eth_off = w->has_eth;
    c->eth_off = w->eth;
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

/* What the layer before infiniband says about the packet. */
static enum ibs_place arrive(packet_info *pinfo, const uint8_t *d, size_t caplen,
                             const struct walk *w, struct ibs_placement *out)
{
    switch (w->last) {
    case L_NONE: native_carrier(pinfo, &out->carrier); return IBS_PLACE_CARRIED;
    case L_ETH:
    case L_VLAN: out->eth_off = w->eth; return IBS_PLACE_ETHERNET;
    case L_UDP:
        return rocev2_carrier(d, caplen, w, &out->carrier) ? IBS_PLACE_CARRIED : IBS_PLACE_UNKNOWN;
    default: return IBS_PLACE_UNKNOWN;
    }
}

/* Wireshark 4.4 and 4.6 leave the IP header an MPLS label stack carries out
 * of the layers (4.0 lists it: mpls:ip:udp): a UDP layer right after MPLS is
 * behind an IP header of the version its first nibble says, as MPLS chose. */
static bool implied_ip(packet_info *pinfo, const uint8_t *data, size_t caplen, struct walk *w)
{
    if (!data || w->off >= caplen)
        return false;
    enum layer k = data[w->off] >> 4 == 4 ? L_IP : data[w->off] >> 4 == 6 ? L_IPV6 : L_OTHER;
    size_t n = k == L_OTHER ? 0 : header_size(pinfo, k, data, caplen, w->off);
    if (n == 0 || data[w->off + (k == L_IP ? 9 : 6)] != 17) /* UDP, no extension header */
        return false;
    w->ip = w->off;
    w->off += n;
    return true;
}

enum ibs_place ibs_place_find(packet_info *pinfo, const uint8_t *data, size_t caplen,
                              struct ibs_placement *out)
{
    struct walk w = { 0, L_NONE, 0, 0, 0, false };
    bool ip_before = false; /* the header before is IP: UDP needs one */
    for (wmem_list_frame_t *f = wmem_list_head(pinfo->layers); f; f = wmem_list_frame_next(f)) {
        enum layer k = layer_of(GPOINTER_TO_INT(wmem_list_frame_data(f)));
        if (k == L_IB)
            return arrive(pinfo, data, caplen, &w, out);
        if (k == L_NONE)
            continue;
        if (k == L_UDP && w.last == L_MPLS) {
            if (!implied_ip(pinfo, data, caplen, &w))
                return IBS_PLACE_UNKNOWN;
            ip_before = true;
        }
        if (k == L_OTHER || (k == L_UDP && !ip_before) || !data)
            return IBS_PLACE_UNKNOWN;
        size_t n = header_size(pinfo, k, data, caplen, w.off);
        if (n == 0)
            return IBS_PLACE_UNKNOWN;
        if (k == L_ETH) {
            w.eth = w.off;
            w.has_eth = true;
        } else if (k == L_IP || k == L_IPV6) {
            w.ip = w.off;
        } else if (k == L_UDP) {
            w.udp = w.off;
        }
        ip_before = k == L_IP || k == L_IPV6 || k == L_IPV6_X;
        w.last = k;
        w.off += n;
    }
    return IBS_PLACE_NO_IB;
}
