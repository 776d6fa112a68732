/* encap.h - how a capture frames an IBA packet (core/parse/linktype.c lists the carriers).
 *
 *   native   LRH .. ICRC VCRC                       (link types 247, 147; ERF type 21)
 *   ERF      16-byte ERF header [+ extension headers] + record body (link type 197)
 *   RoCEv1   Ethernet [802.1ad] [802.1Q] 0x8915 | GRH .. ICRC
 *   RoCEv2   Ethernet/SLL [tags] IPv4|IPv6 | UDP dport 4791 | BTH .. ICRC
 *
 * Each function writes into a caller-owned buffer and returns the bytes written
 * (0 if it did not fit).
 */
#ifndef IBSCOPE_GEN_ENCAP_H
#define IBSCOPE_GEN_ENCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ib_headers.h"

#define ROCEV2_UDP_PORT  4791
#define ETHERTYPE_IPV4   0x0800
#define ETHERTYPE_IPV6   0x86DD
#define ETHERTYPE_ROCEV1 0x8915
#define ETHERTYPE_VLAN   0x8100
#define ETHERTYPE_QINQ   0x88A8

#define ERF_TYPE_INFINIBAND      21
#define ERF_TYPE_INFINIBAND_LINK 25
#define ERF_HDR_LEN              16
#define ERF_FLAGS_VLEN           0x04 /* varying-length record, interface 0 */

typedef struct eth_opts {
    uint8_t dst[6], src[6];
    int ntags; /* 0..2, outermost first */
    uint16_t tpid[2], tci[2];
} eth_opts_t;

typedef struct roce_ip_opts {
    int ver; /* 4 or 6 */
    uint32_t src4, dst4;
    uint8_t src6[16], dst6[16];
    uint8_t tos, ttl; /* tos = IPv6 traffic class too */
    uint16_t id;
    uint16_t sport;     /* UDP source port */
    uint8_t ihl;        /* 0: 5 (malformed samples set less) */
    int udp_len_adjust; /* added to the correct UDP length */
} ip_opts_t;

/* LRH .. ICRC + VCRC (ICRC/VCRC computed). */
size_t encap_ib_native(uint8_t *out, size_t cap, const ib_pkt_t *p);
/* GRH .. ICRC. */
size_t encap_ib_rocev1(uint8_t *out, size_t cap, const ib_pkt_t *p);
/* IP + UDP + BTH .. ICRC. */
size_t encap_ib_rocev2(uint8_t *out, size_t cap, const ip_opts_t *ip, const ib_pkt_t *p);

/* Ethernet II header with tags; returns header length. */
size_t encap_eth_header(uint8_t *out, size_t cap, const eth_opts_t *e, uint16_t ethertype);
/* Linux cooked (SLL) header, 16 bytes. pkttype 0 = to us, 4 = outgoing. */
size_t encap_sll_header(uint8_t *out, size_t cap, uint16_t pkttype, const uint8_t mac[6],
                        uint16_t protocol);
/* ERF header; ext adds one 8-byte extension header (Flow ID). rlen counts the
 * header, extension headers and captured body; wlen is the wire length. */
size_t encap_erf_header(uint8_t *out, size_t cap, uint64_t ts_us, uint8_t type, bool ext,
                        uint16_t rlen, uint16_t wlen);

uint16_t inet_checksum(const uint8_t *p, size_t n, uint32_t sum);

#endif
