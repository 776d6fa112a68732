/* crc.h - the CRCs InfiniBand and Ethernet use (IBA Vol. 1 7.8.1, 7.8.2).
 *
 * Both are reflected CRCs with all-ones preset and complemented result, so a
 * streaming state starts at crc_init and finishes with crc_final.
 *   ICRC:  CRC-32, polynomial 0x04C11DB7 (reflected 0xEDB88320), = Ethernet FCS.
 *   VCRC:  CRC-16, polynomial 0x100B (reflected 0xD008); also the link-packet LPCRC.
 * Both are written to the wire least significant byte first (as the Ethernet
 * FCS and the Linux rxe driver's ICRC are).
 */
#ifndef IBSCOPE_GEN_CRC_H
#define IBSCOPE_GEN_CRC_H

#include <stddef.h>
#include <stdint.h>

#define CRC32_INIT 0xFFFFFFFFu
uint32_t crc32_update(uint32_t state, const uint8_t *p, size_t n);
static inline uint32_t crc32_final(uint32_t state)
{
    return ~state;
}

#define CRC16_IB_INIT 0xFFFFu
uint16_t crc16_ib_update(uint16_t state, const uint8_t *p, size_t n);
static inline uint16_t crc16_ib_final(uint16_t state)
{
    return (uint16_t)~state;
}

#endif
