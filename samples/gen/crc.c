/* crc.c - reflected CRC-32 (ICRC, FCS) and CRC-16/0x100B (VCRC), sliced:
 * eight bytes (CRC-32) or four (CRC-16) a step through tables of the
 * byte-at-a-time table's powers, for rc-bulk's gigabytes of frames. */
#include "crc.h"

#include <stdbool.h>

static uint32_t crc32_tab[8][256];
static uint16_t crc16_tab[4][256];
static bool tables_ready;

static void make_tables(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        uint16_t d = (uint16_t)n;
        for (int k = 0; k < 8; k++) {
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            d = (d & 1) ? (uint16_t)(0xD008u ^ (d >> 1)) : (uint16_t)(d >> 1);
        }
        crc32_tab[0][n] = c;
        crc16_tab[0][n] = d;
    }
    /* tab[k][n]: byte n followed by k zero bytes */
    for (uint32_t n = 0; n < 256; n++) {
        for (int k = 1; k < 8; k++) {
            uint32_t c = crc32_tab[k - 1][n];
            crc32_tab[k][n] = (c >> 8) ^ crc32_tab[0][c & 0xFF];
        }
        for (int k = 1; k < 4; k++) {
            uint16_t d = crc16_tab[k - 1][n];
            crc16_tab[k][n] = (uint16_t)((d >> 8) ^ crc16_tab[0][d & 0xFF]);
        }
    }
    tables_ready = true;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t crc32_update(uint32_t state, const uint8_t *p, size_t n)
{
    if (!tables_ready)
        make_tables();
    const uint32_t(*t)[256] = crc32_tab;
    for (; n >= 8; p += 8, n -= 8) {
        uint32_t lo = state ^ le32(p), hi = le32(p + 4);
        state = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^
                t[4][lo >> 24] ^ t[3][hi & 0xFF] ^ t[2][(hi >> 8) & 0xFF] ^
                t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24];
    }
    while (n--)
        state = t[0][(state ^ *p++) & 0xFF] ^ (state >> 8);
    return state;
}

uint16_t crc16_ib_update(uint16_t state, const uint8_t *p, size_t n)
{
    if (!tables_ready)
        make_tables();
    const uint16_t(*t)[256] = crc16_tab;
    for (; n >= 4; p += 4, n -= 4) {
        uint16_t lo = (uint16_t)(state ^ (p[0] | p[1] << 8));
        state = (uint16_t)(t[3][lo & 0xFF] ^ t[2][lo >> 8] ^ t[1][p[2]] ^ t[0][p[3]]);
    }
    while (n--)
        state = (uint16_t)(t[0][(state ^ *p++) & 0xFF] ^ (state >> 8));
    return state;
}
