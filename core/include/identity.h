/* identity.h - one packet, whichever capture saw it.
 *
 * A packet captured on two hosts (sender and receiver) differs only in what
 * the fabric may rewrite on the way: MACs, VLAN tags, IP TTL, TOS and
 * checksum, the LRH behind a router, GRH hop limit, the BTH's reserved
 * byte.  Those are exactly the fields the ICRC leaves out, so the identity
 * of a packet is a 64-bit hash of what the ICRC covers (with those fields
 * masked, crc.h) and of the ICRC itself: equal on every sighting of one
 * packet, and different for a retransmission (another PSN, IP ID).
 */
#ifndef IBSCOPE_IDENTITY_H
#define IBSCOPE_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ib_packet;
struct ib_endpoint;

/* The identity of a packet parsed from frame[0, caplen): the masked
 * headers, then the bytes after the BTH as far as the packet and the frame
 * go (the ICRC included when captured).  False when the frame holds no BTH
 * the ICRC rule applies to: such a packet has no identity and is never
 * taken for another capture's. */
bool ib_packet_identity(const uint8_t *frame, size_t caplen, const struct ib_packet *p,
                        uint64_t *identity);

/* A 64-bit key for an end point (its GID when it has one, else its LID):
 * what the clock estimate groups packets by, and who owns an address. */
uint64_t ib_endpoint_key(const struct ib_endpoint *ep);

#endif
