/* ipcm.c - RDMA IP CM Service ID and private-data header (IBA Annex A11), and the tuple. */
#include "ipcm.h"

#include <string.h>

#include <stdio.h>

void ib_parse_service_id(uint64_t raw, struct ib_service_id *out)
{
    out->raw = raw;
    out->ip_cm = (raw & IB_IPCM_SID_MASK) == IB_IPCM_SID_PREFIX;
    out->port_space = out->ip_cm ? (uint16_t)(raw >> 16) : 0;
    out->dport = out->ip_cm ? (uint16_t)raw : 0;
}

bool ib_parse_ipcm(struct ib_span s, struct ib_ipcm *out)
{
    if (!ib_span_has(s, 0, IB_IPCM_HEADER_SIZE))
        return false;
    out->majv = ib_rd8(s, 0) >> 4;
    out->minv = ib_rd8(s, 0) & 0x0F;
    out->ipv = ib_rd8(s, 1) >> 4;
    out->reserved = ib_rd8(s, 1) & 0x0F;
    out->src_port = ib_rd16(s, 2);
    ib_rdbytes(s, 4, out->src_ip, 16);
    ib_rdbytes(s, 20, out->dst_ip, 16);
    out->valid = out->majv == 0 && (out->ipv == 4 || out->ipv == 6);
    return true;
}

bool ib_tuple_make(const struct ib_service_id *sid, const struct ib_ipcm *ipcm,
                   struct ib_tuple *out)
{
    if (!sid->ip_cm || !ipcm->valid)
        return false;
    memset(out, 0, sizeof *out); /* padding too: it is copied into findings whole */
    out->port_space = sid->port_space;
    out->ip_version = ipcm->ipv;
    memcpy(out->src_ip, ipcm->src_ip, 16);
    memcpy(out->dst_ip, ipcm->dst_ip, 16);
    out->src_port = ipcm->src_port;
    out->dst_port = sid->dport;
    return true;
}

/* Digits written by hand: reports format an address per record, and
 * printf's machinery cost ten times the rest. */
static char *dec_u8(char *p, unsigned v)
{
    if (v >= 100)
        *p++ = (char)('0' + v / 100);
    if (v >= 10)
        *p++ = (char)('0' + v / 10 % 10);
    *p++ = (char)('0' + v % 10);
    return p;
}

static char *dotted(char *p, const uint8_t ip[16])
{
    for (int i = 12; i < 16; i++) {
        p = dec_u8(p, ip[i]);
        if (i < 15)
            *p++ = '.';
    }
    return p;
}

static char *hex_u16(char *p, unsigned v)
{
    static const char digits[] = "0123456789abcdef";
    int shift = 12;
    while (shift > 0 && (v >> shift) == 0)
        shift -= 4;
    for (; shift >= 0; shift -= 4)
        *p++ = digits[v >> shift & 0xF];
    return p;
}

void ib_format_ip(uint8_t ip_version, const uint8_t ip[16], char *buf, size_t size)
{
    char text[48]; /* the longest: 8 groups of 4 and 7 colons */
    char *p = text;
    if (ip_version == 4) {
        p = dotted(p, ip);
    } else {
        /* RFC 5952: lower case, longest run of two or more zero groups as "::". */
        uint16_t g[8];
        for (int i = 0; i < 8; i++)
            g[i] = (uint16_t)(ip[2 * i] << 8 | ip[2 * i + 1]);
        int best = -1, best_len = 1;
        for (int i = 0; i < 8;) {
            int j = i;
            while (j < 8 && g[j] == 0)
                j++;
            if (j - i > best_len) {
                best = i;
                best_len = j - i;
            }
            i = j > i ? j : i + 1;
        }
        if (best == 0 && best_len == 5 && g[5] == 0xFFFF) {
            /* IPv4-mapped addresses read better with the dotted tail. */
            memcpy(p, "::ffff:", 7);
            p = dotted(p + 7, ip);
        } else {
            for (int i = 0; i < 8; i++) {
                if (i == best) {
                    *p++ = ':';
                    *p++ = ':';
                    i += best_len - 1;
                    continue;
                }
                if (i > 0 && i != best + best_len)
                    *p++ = ':';
                p = hex_u16(p, g[i]);
            }
        }
    }
    if (size == 0)
        return;
    size_t n = (size_t)(p - text);
    if (n >= size)
        n = size - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
}
