/* icrc.c - ICRC masking rules (see icrc.h). */
#include "icrc.h"

#include <string.h>

#include "crc.h"

static const uint8_t ones8[8] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };

/* CRC over [BTH .. end) with BTH.Resv8a masked. */
static uint32_t crc_bth_rest(uint32_t c, const uint8_t *bth, size_t len)
{
    uint8_t h[12];
    size_t n = len < sizeof(h) ? len : sizeof(h);
    memcpy(h, bth, n);
    if (n > 4)
        h[4] = 0xFF;
    c = crc32_update(c, h, n);
    return crc32_update(c, bth + n, len - n);
}

static uint32_t crc_grh(uint32_t c, const uint8_t *grh)
{
    uint8_t h[40];
    memcpy(h, grh, sizeof(h));
    h[0] |= 0x0F;              /* TClass high nibble */
    h[1] = h[2] = h[3] = 0xFF; /* TClass low nibble, FlowLabel */
    h[7] = 0xFF;               /* HopLmt */
    return crc32_update(c, h, sizeof(h));
}

uint32_t icrc_native(const uint8_t *pkt, size_t len, bool grh)
{
    uint32_t c = CRC32_INIT;
    if (len < 8)
        return crc32_final(crc32_update(c, pkt, len));
    if (grh && len >= 48) {
        c = crc32_update(c, ones8, 8);
        c = crc_grh(c, pkt + 8);
        return crc32_final(crc_bth_rest(c, pkt + 48, len - 48));
    }
    uint8_t lrh[8];
    memcpy(lrh, pkt, 8);
    lrh[0] |= 0xF0; /* VL */
    c = crc32_update(c, lrh, 8);
    return crc32_final(crc_bth_rest(c, pkt + 8, len - 8));
}

uint32_t icrc_rocev1(const uint8_t *pkt, size_t len)
{
    uint32_t c = crc32_update(CRC32_INIT, ones8, 8);
    if (len < 40)
        return crc32_final(crc32_update(c, pkt, len));
    c = crc_grh(c, pkt);
    return crc32_final(crc_bth_rest(c, pkt + 40, len - 40));
}

uint32_t icrc_rocev2(const uint8_t *l3, size_t len, int ipver, size_t ip_hlen)
{
    uint8_t h[60 + 8];
    uint32_t c = crc32_update(CRC32_INIT, ones8, 8);
    size_t hl = ip_hlen + 8;
    if (hl > sizeof(h) || len < hl)
        return crc32_final(crc32_update(c, l3, len));
    memcpy(h, l3, hl);
    if (ipver == 4) {
        h[1] = 0xFF;          /* TOS */
        h[8] = 0xFF;          /* TTL */
        h[10] = h[11] = 0xFF; /* header checksum */
    } else {
        h[0] |= 0x0F; /* TClass, FlowLabel */
        h[1] = h[2] = h[3] = 0xFF;
        h[7] = 0xFF; /* HopLimit */
    }
    h[ip_hlen + 6] = h[ip_hlen + 7] = 0xFF; /* UDP checksum */
    c = crc32_update(c, h, hl);
    return crc32_final(crc_bth_rest(c, l3 + hl, len - hl));
}
