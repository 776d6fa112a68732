/* crc.c - table-driven reflected CRC-32 (ICRC, FCS) and CRC-16/0x100B (VCRC). */
#include "crc.h"

#include <stdbool.h>

static uint32_t crc32_tab[256];
static uint16_t crc16_tab[256];
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
        crc32_tab[n] = c;
        crc16_tab[n] = d;
    }
    tables_ready = true;
}

uint32_t crc32_update(uint32_t state, const uint8_t *p, size_t n)
{
    if (!tables_ready)
        make_tables();
    while (n--)
        state = crc32_tab[(state ^ *p++) & 0xFF] ^ (state >> 8);
    return state;
}

uint16_t crc16_ib_update(uint16_t state, const uint8_t *p, size_t n)
{
    if (!tables_ready)
        make_tables();
    while (n--)
        state = (uint16_t)(crc16_tab[(state ^ *p++) & 0xFF] ^ (state >> 8));
    return state;
}
