/* icrc.h - Invariant CRC over the invariant fields (IBA Vol. 1 7.8.1, RoCEv2 annex A17).
 *
 * Variant fields are replaced by ones before the CRC runs:
 *   local packet (no GRH): LRH.VL, BTH.Resv8a
 *   global packet (GRH):   the whole LRH, GRH.TClass, GRH.FlowLabel, GRH.HopLmt, BTH.Resv8a
 *   RoCEv1:                as global, with 8 bytes of ones standing in for the LRH
 *   RoCEv2:                8 bytes of ones for the LRH; IPv4 TOS, TTL, header checksum;
 *                          IPv6 TClass, FlowLabel, HopLimit; UDP checksum; BTH.Resv8a
 * The result is sent least significant byte first.
 */
#ifndef IBSCOPE_GEN_ICRC_H
#define IBSCOPE_GEN_ICRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* pkt: LRH .. last pad byte; grh: whether a GRH follows the LRH. */
uint32_t icrc_native(const uint8_t *pkt, size_t len, bool grh);
/* pkt: GRH .. last pad byte. */
uint32_t icrc_rocev1(const uint8_t *pkt, size_t len);
/* l3: IP header (ip_hlen bytes) + UDP (8) + BTH .. last pad byte. */
uint32_t icrc_rocev2(const uint8_t *l3, size_t len, int ipver, size_t ip_hlen);

#endif
