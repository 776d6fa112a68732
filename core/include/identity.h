/* identity.h - one packet, whichever capture saw it.
 *
 * A packet captured on two hosts (sender and receiver) differs only in what
 * the fabric may rewrite on the way: MACs, VLAN tags, IP TTL, TOS and
 * checksum, the LRH behind a router, GRH hop limit, the BTH's reserved
 * byte.  Those are exactly the fields the ICRC leaves out, so the identity
 * of a packet is a hash of what the ICRC covers (with those fields masked,
 * crc.h) and of the ICRC itself: equal on every sighting of one packet, and
 * different for a retransmission (another PSN, IP ID).
 *
 * Whoever writes a capture chooses its bytes, so the hash is keyed
 * (keyed_hash.h) with a key drawn for the run, and 128 bits of it are
 * compared: without the key no packet can be made to share another's
 * identity, nor its home in a table, except by chance (2^-128 for the
 * identity).  Two packets of the same identity are the same bytes, as far
 * as those fields go.
 */
#ifndef IBSCOPE_IDENTITY_H
#define IBSCOPE_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keyed_hash.h"

struct ib_packet;
struct ib_endpoint;

/* hash: the key of the tables that hold packets; check: the rest of the
 * 128 bits, compared on every match. */
struct ib_identity {
    uint64_t hash, check;
};

static inline bool ib_identity_equal(struct ib_identity a, struct ib_identity b)
{
    return a.hash == b.hash && a.check == b.check;
}

/* The identity of a packet parsed from frame[0, caplen): the masked
 * headers, then the bytes after the BTH as far as the packet and the frame
 * go (the ICRC included when captured).  False when the frame holds no BTH
 * the ICRC rule applies to: such a packet has no identity and is never
 * taken for another capture's. */
bool ib_packet_identity(const struct ib_hash_key *key, const uint8_t *frame, size_t caplen,
                        const struct ib_packet *p, struct ib_identity *identity);

/* A 64-bit key for an end point (its GID when it has one, else its LID),
 * keyed as the identity is: what the clock estimate groups packets by, and
 * who owns an address. */
uint64_t ib_endpoint_key(const struct ib_hash_key *key, const struct ib_endpoint *ep);

#endif
