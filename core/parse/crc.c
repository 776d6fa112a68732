/* crc.c - ICRC and VCRC of a parsed packet (crc.h).
 *
 * The CRC-32 is zlib's: the Ethernet CRC the ICRC uses, table-driven and
 * tuned, already linked by every Wireshark; ibscope-gen keeps a bitwise one
 * of its own, so the samples are made and checked by two implementations.
 * The CRC-16 of the VCRC is not zlib's to give: tables here, eight bytes at
 * a time.
 */
#include "crc.h"

#include <string.h>
#include <zlib.h>

#include "names.h"
#include "packet.h"

#define PSEUDO_LRH 8           /* the ones that stand for an LRH */
#define IPV4_MIN_HEADER 20
#define IPV6_HEADER 40
#define UDP_HEADER 8
#define VCRC_POLY_REFLECTED 0xD008 /* 0x100B, bits reversed */

/* The masked headers before the payload: at most ones, IPv6 and UDP, BTH. */
#define MASKED_MAX (PSEUDO_LRH + 60 + UDP_HEADER + IB_BTH_SIZE)

static uint32_t crc32_of(uint32_t crc, const uint8_t *p, size_t n)
{
    /* zlib takes uInt lengths: feed it in pieces it can take. */
    while (n > 0) {
        uInt piece = n > 0x40000000u ? 0x40000000u : (uInt)n;
        crc = (uint32_t)crc32(crc, p, piece);
        p += piece;
        n -= piece;
    }
    return crc;
}

/* Slicing by 8: table t[k][b] is the CRC of byte b followed by k zero
 * bytes, so eight bytes take eight lookups and no loop-carried shifts. */
static uint16_t vcrc_table[8][256];
static int vcrc_ready;

static void vcrc_init(void)
{
    for (unsigned i = 0; i < 256; i++) {
        uint16_t c = (uint16_t)i;
        for (int b = 0; b < 8; b++)
            c = (uint16_t)(c & 1 ? (c >> 1) ^ VCRC_POLY_REFLECTED : c >> 1);
        vcrc_table[0][i] = c;
    }
    for (unsigned k = 1; k < 8; k++)
        for (unsigned i = 0; i < 256; i++) {
            uint16_t c = vcrc_table[k - 1][i];
            vcrc_table[k][i] = (uint16_t)((c >> 8) ^ vcrc_table[0][c & 0xFF]);
        }
    vcrc_ready = 1;
}

static uint16_t crc16_of(const uint8_t *p, size_t n)
{
    if (!vcrc_ready)
        vcrc_init();
    uint16_t c = 0xFFFF;
    for (; n >= 8; p += 8, n -= 8) {
        uint16_t x = (uint16_t)(c ^ (p[0] | p[1] << 8));
        c = (uint16_t)(vcrc_table[7][x & 0xFF] ^ vcrc_table[6][x >> 8] ^ vcrc_table[5][p[2]] ^
                       vcrc_table[4][p[3]] ^ vcrc_table[3][p[4]] ^ vcrc_table[2][p[5]] ^
                       vcrc_table[1][p[6]] ^ vcrc_table[0][p[7]]);
    }
    for (; n > 0; p++, n--)
        c = (uint16_t)((c >> 8) ^ vcrc_table[0][(c ^ *p) & 0xFF]);
    return (uint16_t)(c ^ 0xFFFF);
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* GRH: TClass, FlowLabel and HopLmt are variant. */
static void mask_grh(uint8_t *g)
{
    g[0] |= 0x0F;
    g[1] = g[2] = g[3] = 0xFF;
    g[7] = 0xFF;
}

/* Appends n bytes of the frame to the masked buffer; false if they are not there. */
static bool take(uint8_t *buf, size_t *len, const uint8_t *frame, size_t caplen, size_t off,
                 size_t n)
{
    if (off > caplen || n > caplen - off || *len + n > MASKED_MAX)
        return false;
    memcpy(buf + *len, frame + off, n);
    *len += n;
    return true;
}

/* The masked bytes before the BTH's end; false when they cannot be had. */
static bool masked_headers(const uint8_t *frame, size_t caplen, const struct ib_packet *p,
                           uint8_t *buf, size_t *len)
{
    *len = 0;
    switch (p->encap) {
    case IB_ENCAP_NATIVE:
        if (!take(buf, len, frame, caplen, p->off.lrh, IB_LRH_SIZE))
            return false;
        if (ib_packet_has(p, IB_HAS_GRH)) {
            memset(buf, 0xFF, IB_LRH_SIZE); /* a router rewrites all of it */
            if (!take(buf, len, frame, caplen, p->off.grh, IB_GRH_SIZE))
                return false;
            mask_grh(buf + IB_LRH_SIZE);
        } else {
            buf[0] |= 0xF0; /* VL */
        }
        break;
    case IB_ENCAP_ROCEV1:
        memset(buf, 0xFF, PSEUDO_LRH);
        *len = PSEUDO_LRH;
        if (!take(buf, len, frame, caplen, p->off.grh, IB_GRH_SIZE))
            return false;
        mask_grh(buf + PSEUDO_LRH);
        break;
    case IB_ENCAP_ROCEV2: {
        if (p->ip_version != 4 && p->ip_version != 6)
            return false;
        memset(buf, 0xFF, PSEUDO_LRH);
        *len = PSEUDO_LRH;
        size_t ip_len = p->ip_version == 6 ? IPV6_HEADER : 0;
        if (p->ip_version == 4 && p->off.ip < caplen)
            ip_len = (size_t)(frame[p->off.ip] & 0x0F) * 4;
        uint8_t *ip = buf + *len;
        if (ip_len < (p->ip_version == 4 ? IPV4_MIN_HEADER : IPV6_HEADER) ||
            !take(buf, len, frame, caplen, p->off.ip, ip_len))
            return false;
        if (p->ip_version == 4) {
            ip[1] = ip[8] = ip[10] = ip[11] = 0xFF; /* TOS, TTL, checksum */
        } else {
            ip[0] |= 0x0F;                          /* traffic class */
            ip[1] = ip[2] = ip[3] = ip[7] = 0xFF;   /* and flow label, hop limit */
        }
        uint8_t *udp = buf + *len;
        if (!take(buf, len, frame, caplen, p->off.udp, UDP_HEADER))
            return false;
        udp[6] = udp[7] = 0xFF; /* checksum */
        break;
    }
    default:
        return false;
    }
    uint8_t *bth = buf + *len;
    if (!take(buf, len, frame, caplen, p->off.bth, IB_BTH_SIZE))
        return false;
    bth[4] = 0xFF; /* Resv8a */
    return true;
}

/* The CRCs sit where the length that bounds the packet says (native PktLen,
 * RoCEv1 PayLen, RoCEv2 the UDP and IP lengths).  When that length is known
 * to be wrong, a CRC that does not verify there is no evidence of anything:
 * it counts as not present (one that verifies still does). */
static bool located(const struct ib_packet *p)
{
    const struct ib_diag_list *d = &p->diags;
    switch (p->encap) {
    case IB_ENCAP_NATIVE:
        return !ib_diag_has(d, IB_DIAG_PKTLEN_MISMATCH);
    case IB_ENCAP_ROCEV1:
        return !ib_diag_has(d, IB_DIAG_PAYLEN_MISMATCH);
    default:
        return !ib_diag_has(d, IB_DIAG_UDP_LEN_MISMATCH) &&
               !ib_diag_has(d, IB_DIAG_IP_LEN_MISMATCH);
    }
}

static void check_icrc(const uint8_t *frame, size_t caplen, const struct ib_packet *p,
                       struct ib_crc_check *out)
{
    uint8_t buf[MASKED_MAX];
    size_t len;
    size_t icrc_at = (size_t)p->off.ib + p->ib_len - IB_ICRC_SIZE;
    size_t rest = (size_t)p->off.bth + IB_BTH_SIZE;
    if (!ib_packet_has(p, IB_HAS_ICRC) || !ib_packet_has(p, IB_HAS_BTH) ||
        p->ib_len < IB_ICRC_SIZE || icrc_at + IB_ICRC_SIZE > caplen || rest > icrc_at ||
        !masked_headers(frame, caplen, p, buf, &len))
        return;
    uint32_t crc = crc32_of((uint32_t)crc32(0, Z_NULL, 0), buf, len);
    crc = crc32_of(crc, frame + rest, icrc_at - rest);
    out->icrc_carried = le32(frame + icrc_at);
    out->icrc_computed = crc;
    out->icrc = crc == out->icrc_carried ? IB_CRC_VERIFIED : IB_CRC_MISMATCH;
}

static void check_vcrc(const uint8_t *frame, size_t caplen, const struct ib_packet *p,
                       struct ib_crc_check *out)
{
    size_t start = p->off.ib, end = start + p->ib_len;
    if (p->encap != IB_ENCAP_NATIVE || !ib_packet_has(p, IB_HAS_VCRC) ||
        end + IB_VCRC_SIZE > caplen)
        return;
    out->vcrc_carried = (uint16_t)(frame[end] | frame[end + 1] << 8);
    out->vcrc_computed = crc16_of(frame + start, p->ib_len);
    out->vcrc = out->vcrc_computed == out->vcrc_carried ? IB_CRC_VERIFIED : IB_CRC_MISMATCH;
}

void ib_crc_check(const uint8_t *frame, size_t caplen, const struct ib_packet *p,
                  struct ib_crc_check *out)
{
    memset(out, 0, sizeof *out);
    check_icrc(frame, caplen, p, out);
    check_vcrc(frame, caplen, p, out);
    if (!located(p)) {
        if (out->icrc == IB_CRC_MISMATCH)
            out->icrc = IB_CRC_NOT_PRESENT;
        if (out->vcrc == IB_CRC_MISMATCH)
            out->vcrc = IB_CRC_NOT_PRESENT;
    }
}

const char *ib_crc_status_name(enum ib_crc_status s)
{
    const char *name = ib_name_lookup(ib_crc_status_names, s);
    return name ? name : "not present";
}
