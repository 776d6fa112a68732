/* wire_class.h - the settings a packet's carriers give it on the way: VLAN
 * priority, DSCP and ECN (IP or GRH), TTL or hop limit, the kind of its GIDs,
 * and the size of the Ethernet payload it travels in.
 *
 * These are what a host's configuration decides (the RoCE priority, the
 * traffic class, the GID index) and what a queue pair's two directions
 * should agree on; the wire audit (issue 38) compares them.  The parsers
 * here read one header each from a span and return false when it is short.
 */
#ifndef IBSCOPE_WIRE_CLASS_H
#define IBSCOPE_WIRE_CLASS_H

#include <stdbool.h>
#include <stdint.h>

#include "reader.h"

#define IB_VLAN_TAG_SIZE 4

/* The two bits of ECN (RFC 3168) below the six of DSCP. */
enum ib_ecn {
    IB_ECN_NOT_ECT,
    IB_ECN_ECT1,
    IB_ECN_ECT0,
    IB_ECN_CE,
};

/* What a GID is to a router: link-local GIDs and RoCEv1's IPv4-mapped ones
 * must not leave their link or subnet. */
enum ib_gid_kind {
    IB_GID_KIND_GLOBAL,      /* any other address */
    IB_GID_KIND_LINK_LOCAL,  /* fe80::/64 */
    IB_GID_KIND_IPV4_MAPPED, /* ::ffff:0:0/96 */
};

struct ib_wire {
    uint8_t vlan_pcp[2]; /* priority of the first two tags, outermost first */
    uint8_t vlan_dei[2]; /* drop eligible indicator of the same tags */
    uint8_t ip_tclass;   /* RoCEv2: the IPv4 DS field or the IPv6 traffic class */
    uint8_t ip_dscp, ip_ecn;
    uint8_t ip_ttl;                     /* RoCEv2: the IPv4 TTL or the IPv6 hop limit */
    uint8_t grh_dscp, grh_ecn;          /* the GRH traffic class split the same way */
    uint8_t src_gid_kind, dst_gid_kind; /* enum ib_gid_kind of the endpoints' GIDs */
    uint32_t eth_payload_len;           /* bytes on the wire after the link header and its tags */
};

/* One 802.1Q/802.1ad tag's TCI at s: its priority and DEI into slot i of w. */
bool ib_parse_vlan_tag(struct ib_span s, unsigned i, struct ib_wire *w);
/* The IPv4 header at s: DS field and TTL. */
bool ib_parse_ipv4_class(struct ib_span s, struct ib_wire *w);
/* The IPv6 header at s: traffic class and hop limit. */
bool ib_parse_ipv6_class(struct ib_span s, struct ib_wire *w);

enum ib_gid_kind ib_gid_kind(const uint8_t gid[16]);
const char *ib_gid_kind_name(enum ib_gid_kind kind);

#endif
