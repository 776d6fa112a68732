/* packet.h - one captured frame decoded as an InfiniBand packet.
 *
 * ib_parse_frame() is the entry point the analyzer uses: given a capture's
 * link type and a frame it finds where the InfiniBand packet starts
 * (link.c), then decodes LRH/GRH/BTH/DETH, the MAD and its class data, and
 * checks the addressing rules.  ib_parse_at() is the entry point for a caller
 * that already knows where the packet starts (the Wireshark plugin).
 *
 * Contract: never allocates, never reads outside [frame, frame + caplen),
 * and fills a complete struct ib_packet whatever the input; problems become
 * diagnostics in pkt->diags.  All offsets stored are from the frame's start.
 */
#ifndef IBSCOPE_PACKET_H
#define IBSCOPE_PACKET_H

#include "cm.h"
#include "crc.h"
#include "diag.h"
#include "ext_headers.h"
#include "headers.h"
#include "mac_control.h"
#include "mad.h"
#include "wire_class.h"

/* pcap link types ibscope reads. */
enum ib_linktype {
    IB_DLT_EN10MB = 1,
    IB_DLT_LINUX_SLL = 113,
    IB_DLT_USER0 = 147,
    IB_DLT_ERF = 197,
    IB_DLT_INFINIBAND = 247,
    IB_DLT_LINUX_SLL2 = 276,
};

#define IB_ERF_TYPE_INFINIBAND      21
#define IB_ERF_TYPE_INFINIBAND_LINK 25
#define IB_ETHERTYPE_ROCEV1         0x8915
#define IB_ROCEV2_UDP_PORT          4791

/* How the InfiniBand packet was carried, and so which header comes first. */
enum ib_encap {
    IB_ENCAP_NONE,   /* no InfiniBand packet in the frame */
    IB_ENCAP_NATIVE, /* LRH first: link types 247, 147, ERF type 21 */
    IB_ENCAP_ROCEV1, /* GRH first, Ethernet type 0x8915 */
    IB_ENCAP_ROCEV2, /* BTH first, UDP */
};

enum ib_frame_result {
    IB_FRAME_NOT_IB,      /* a frame of a supported link type, not InfiniBand */
    IB_FRAME_IB,          /* decoded (maybe partly: see the diagnostics) */
    IB_FRAME_LINK_RECORD, /* ERF type 25 InfiniBand link record: skipped */
    IB_FRAME_BAD_LINKTYPE,
    IB_FRAME_MAC_CONTROL, /* an Ethernet PAUSE or PFC frame: in pkt->macc, not InfiniBand */
};

/* An end point as the network sees it: a LID for native IB, a GID when
 * a GRH is present; on RoCE the IP address in GID form (IPv4 mapped as
 * ::ffff:a.b.c.d, as RoCE GIDs are).  lid is 0 when unknown. */
struct ib_endpoint {
    uint16_t lid;
    bool has_gid;
    uint8_t gid[16];
};

enum ib_present {
    IB_HAS_LRH = 1u << 0,
    IB_HAS_GRH = 1u << 1,
    IB_HAS_BTH = 1u << 2,
    IB_HAS_DETH = 1u << 3,
    IB_HAS_MAD = 1u << 4,
    IB_HAS_CPI = 1u << 5, /* ClassPortInfo attribute in a MAD's data */
    IB_HAS_CM = 1u << 6,
    IB_HAS_ICRC = 1u << 7,
    IB_HAS_VCRC = 1u << 8,
    /* The extended transport headers besides the DETH (ext_headers.h). */
    IB_HAS_XRCETH = 1u << 9,
    IB_HAS_RETH = 1u << 10,
    IB_HAS_ATOMICETH = 1u << 11,
    IB_HAS_AETH = 1u << 12,
    IB_HAS_ATOMICACKETH = 1u << 13,
    IB_HAS_IMMDT = 1u << 14,
    IB_HAS_IETH = 1u << 15,
    /* The transport headers were all known and read: payload_len holds. */
    IB_HAS_PAYLOAD = 1u << 16,
    /* The carriers' settings (wire_class.h): read whatever the frame carries. */
    IB_HAS_ETH = 1u << 17,         /* an Ethernet or Linux cooked header: wire.eth_payload_len */
    IB_HAS_VLAN = 1u << 18,        /* at least one 802.1Q/802.1ad tag */
    IB_HAS_IP = 1u << 19,          /* RoCEv2's IP header: wire.ip_* */
    IB_HAS_GIDS = 1u << 20,        /* both endpoints have a GID: wire.*_gid_kind */
    IB_HAS_MAC_CONTROL = 1u << 21, /* an IB_FRAME_MAC_CONTROL frame: macc */
};

/* Frame offsets of each layer found (valid when its IB_HAS_ bit is set). */
struct ib_layer_offsets {
    uint32_t ib; /* first InfiniBand header */
    uint32_t lrh, grh, bth, deth, mad, cpi;
    uint32_t xrceth, reth, atomiceth, aeth, atomicacketh, immdt, ieth;
    uint32_t payload;     /* first byte after the transport headers */
    uint32_t ip, udp;     /* RoCEv2: the IP and UDP headers before the BTH */
    uint32_t vlan;        /* the first tag's TCI */
    uint32_t eth_payload; /* the first byte after the link header and its tags */
    uint32_t mac_control; /* a MAC Control frame's opcode */
};

struct ib_packet {
    enum ib_encap encap;
    uint32_t linktype;
    uint32_t caplen;
    uint32_t wirelen;
    uint8_t vlan_count; /* 802.1Q/802.1ad tags skipped */
    uint16_t vlan_id[2];
    uint8_t ip_version; /* RoCEv2: 4 or 6 */
    uint16_t udp_sport;
    uint16_t udp_dport;
    uint32_t ib_len;      /* bytes of the IB packet, LRH/GRH/BTH through ICRC */
    uint32_t payload_len; /* bytes from offsets.payload to the ICRC */
    uint32_t present;     /* enum ib_present bits */
    struct ib_layer_offsets off;
    struct ib_endpoint src, dst;
    struct ib_lrh lrh;
    struct ib_grh grh;
    struct ib_bth bth;
    struct ib_deth deth;
    struct ib_ext ext; /* the other extended transport headers */
    struct ib_mad mad;
    struct ib_cpi cpi;
    struct ib_cm cm;
    struct ib_crc_check crc;    /* with ib_parse_opts.verify_crc */
    struct ib_wire wire;        /* the carriers' settings */
    struct ib_mac_control macc; /* IB_FRAME_MAC_CONTROL only */
    struct ib_diag_list diags;
};

struct ib_parse_opts {
    uint16_t rocev2_port; /* UDP destination port of RoCEv2, default 4791 */
    /* Optional: answers whether QP qp at dst is a redirect target that
     * carries MADs (beyond QP0 and QP1).  May be NULL. */
    bool (*is_mad_qp)(void *ctx, const struct ib_endpoint *dst, uint32_t qp);
    void *ctx;
    bool verify_crc; /* check the ICRC and VCRC into out->crc, default on */
    /* Stop after the transport headers: no MAD or class data.  Enough for
     * the CRCs, which cover the packet whatever it carries, so a reader
     * thread can check them ahead of the analysis.  Default off. */
    bool headers_only;
};

void ib_parse_opts_init(struct ib_parse_opts *opts);

enum ib_frame_result ib_parse_frame(const struct ib_parse_opts *opts, uint32_t linktype,
                                    const uint8_t *frame, size_t caplen, size_t wirelen,
                                    struct ib_packet *out);

/* Decodes a frame as ib_parse_frame decodes an Ethernet one, but from an
 * Ethernet header at eth_off inside it (a tunnel's inner frame, which a
 * host such as Wireshark has already found); offsets stay the frame's. */
enum ib_frame_result ib_parse_ethernet_at(const struct ib_parse_opts *opts, const uint8_t *frame,
                                          size_t caplen, size_t wirelen, size_t eth_off,
                                          struct ib_packet *out);

/* What a host that already took the link layer apart (Wireshark's own
 * dissectors) knows about the carrier of an InfiniBand packet: where the
 * packet starts and what the layers around it say about its length and its
 * ends.  The members that do not apply stay zero. */
struct ib_carrier {
    enum ib_encap encap; /* native, RoCEv1 or RoCEv2 */
    size_t ib_off;       /* the packet's first byte in the frame */
    bool has_erf_wlen;   /* native, from an ERF record whose header the */
    uint32_t erf_wlen;   /* host removed: its wlen (bytes on the wire) */
    bool has_udp_len;    /* RoCEv2: the UDP header's length field */
    uint16_t udp_len;
    uint8_t ip_version;             /* RoCEv2: 4 or 6 (0: not known) */
    uint8_t src_ip[16], dst_ip[16]; /* IPv4 in the first 4 bytes */
    bool has_ip_off;                /* RoCEv2: where the IP header starts (for the ICRC, */
    size_t ip_off;                  /* which covers it); the UDP header ends at ib_off */
    uint16_t udp_sport, udp_dport;
    bool has_eth_off; /* RoCEv2: the Ethernet header before the IP one, */
    size_t eth_off;   /* whose tags (if it leads to ip_off) give the VLAN settings */
};

/* Decodes the packet a carrier describes in a frame of caplen captured and
 * wirelen original bytes, with the same length rules as ib_parse_frame:
 * the snaplen, the ERF wlen (record padding or the card's snap length), the
 * UDP length, the IP addresses as RoCE GIDs. */
enum ib_frame_result ib_parse_carried(const struct ib_parse_opts *opts, const uint8_t *frame,
                                      size_t caplen, size_t wirelen,
                                      const struct ib_carrier *carrier, struct ib_packet *out);

/* Decodes an IB packet that starts at frame + ib_off and is carried as
 * encap.  ib_len is how many bytes the carrier says it has (UDP payload for
 * RoCEv2, Ethernet payload for RoCEv1, the rest of the frame for native);
 * it is clipped to the frame.  src/dst in out are kept when already set
 * (RoCEv2 IP addresses). */
void ib_parse_at(const struct ib_parse_opts *opts, enum ib_encap encap, const uint8_t *frame,
                 size_t caplen, size_t ib_off, size_t ib_len, struct ib_packet *out);

static inline bool ib_packet_has(const struct ib_packet *p, uint32_t bits)
{
    return (p->present & bits) == bits;
}

/* True when the capture kept fewer bytes than were on the wire (pcap
 * snaplen, or an ERF record's own wlen): a short packet is then no fault of
 * the sender. */
static inline bool ib_packet_snapped(const struct ib_packet *p)
{
    return ib_diag_has(&p->diags, IB_DIAG_SNAPLEN);
}

/* GID helpers (IBA Vol. 1 §4.1.1). */
enum ib_gid_scope {
    IB_GID_RESERVED,   /* :: */
    IB_GID_LOOPBACK,   /* ::1 */
    IB_GID_LINK_LOCAL, /* fe80::/64 */
    IB_GID_SITE_LOCAL, /* fec0::/10 */
    IB_GID_MULTICAST,  /* ff00::/8 */
    IB_GID_GLOBAL,
};
enum ib_gid_scope ib_gid_scope(const uint8_t gid[16]);
const char *ib_gid_scope_name(enum ib_gid_scope scope);
void ib_format_gid(const uint8_t gid[16], char *buf, size_t size);
/* "LID 12" or, without a LID, "GID fe80::1"; "no address" when neither is known. */
void ib_format_endpoint(const struct ib_endpoint *ep, char *buf, size_t size);
/* A node as the transport names it: "10.0.0.2" (RoCE over IPv4), a GID
 * (RoCE over IPv6, native with a GRH), "LID 12": every view's word for it. */
void ib_format_node(const struct ib_endpoint *ep, char *buf, size_t size);

enum ib_lid_type { IB_LIDT_RESERVED, IB_LIDT_UNICAST, IB_LIDT_MULTICAST, IB_LIDT_PERMISSIVE };
enum ib_lid_type ib_lid_type(uint16_t lid);
const char *ib_lid_type_name(enum ib_lid_type type);

#endif
