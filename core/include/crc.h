/* crc.h - the two CRCs of an InfiniBand packet, checked (IBA Vol. 1 7.8;
 * RoCE: Annexes A16 and A17).
 *
 * The Invariant CRC (ICRC, 4 bytes, little-endian) covers what no switch or
 * router may change: a CRC-32 (the Ethernet one) over the packet from its
 * first header to the ICRC, with the variant fields set to ones:
 *   native, no GRH:  LRH VL;
 *   native with GRH: the whole LRH (a router rewrites it), GRH TClass,
 *                    FlowLabel and HopLmt;
 *   RoCEv1:          eight bytes of ones where the LRH would be, the GRH as above;
 *   RoCEv2:          eight bytes of ones, then the IP header (IPv4: TOS, TTL,
 *                    header checksum; IPv6: traffic class, flow label, hop
 *                    limit) and the UDP header (checksum) before the BTH;
 * and in every case the BTH's reserved byte (Resv8a).
 * The Variant CRC (VCRC, 2 bytes, little-endian; native only) covers the
 * packet as sent on that link, ICRC included: CRC-16, polynomial 0x100B,
 * reflected, initial value and final mask 0xFFFF.
 */
#ifndef IBSCOPE_CRC_H
#define IBSCOPE_CRC_H

#include <stddef.h>
#include <stdint.h>

enum ib_crc_status {
    IB_CRC_NOT_PRESENT, /* not in the frame: cut by the snaplen, stripped where it was
                         * captured, a packet that has none (RoCE has no VCRC), or
                         * one that does not verify where a length known to be
                         * wrong places it */
    IB_CRC_VERIFIED,
    IB_CRC_MISMATCH,
};

struct ib_crc_check {
    enum ib_crc_status icrc, vcrc;
    uint32_t icrc_carried, icrc_computed; /* valid unless not present */
    uint16_t vcrc_carried, vcrc_computed;
};

struct ib_packet;

/* Checks the CRCs of a packet parsed from frame[0, caplen). */
void ib_crc_check(const uint8_t *frame, size_t caplen, const struct ib_packet *p,
                  struct ib_crc_check *out);

/* The ICRC's headers, from the first one to the BTH's end, with the variant
 * fields set to ones as the ICRC sees them: at most this many bytes. */
#define IB_ICRC_MASKED_MAX 88

/* Writes them into buf and returns their length; 0 when the frame does not
 * hold them (no BTH, cut short, an IP version the ICRC has no rule for).
 * What a router may rewrite is masked, so two captures of one packet on
 * either side of it give the same bytes (identity.h). */
size_t ib_icrc_masked_headers(const uint8_t *frame, size_t caplen, const struct ib_packet *p,
                              uint8_t buf[IB_ICRC_MASKED_MAX]);

/* The status as reports and the plugin name it: "verified", "mismatch",
 * "not present". */
const char *ib_crc_status_name(enum ib_crc_status s);

#endif
