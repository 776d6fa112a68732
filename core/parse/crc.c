/* crc.c - ICRC and VCRC of a parsed packet (crc.h).
 *
 * The CRCs run over every byte of every frame, so they are computed by
 * carry-less folding where the CPU has it (crc_fast.c): about 3 to 5 GB/s
 * here, where zlib's crc32 does 1.5 GB/s and a CRC-16 from tables 1.8 GB/s
 * (docs/crc.md has the figures).  Three implementations agree on every test
 * capture: this one, ibscope-gen's bitwise one and the tests' Python.
 */
#include "crc.h"

#include <string.h>
#include <stdatomic.h>

#include "crc_fast.h"
#include "names.h"
#include "packet.h"

#define PSEUDO_LRH      8 /* the ones that stand for an LRH */
#define IPV4_MIN_HEADER 20
#define IPV6_HEADER     40
#define UDP_HEADER      8
#define ICRC_POLY       0x04C11DB7u /* the Ethernet CRC-32 */
#define VCRC_POLY       0x100Bu

/* The masked headers before the payload: at most ones, IPv6 and UDP, BTH. */
#define MASKED_MAX IB_ICRC_MASKED_MAX
_Static_assert(IB_ICRC_MASKED_MAX == PSEUDO_LRH + 60 + UDP_HEADER + IB_BTH_SIZE,
               "crc.h's bound is the masked headers' largest size");
/* Masked headers and a payload up to the largest IB MTU, joined. */
#define ICRC_JOINED_MAX (MASKED_MAX + 4096 + 64)

static struct crc_fast icrc_engine, vcrc_engine;
/* Made once, by whichever thread checks first (the analyzer's reader thread
 * and its analysis both check); the others wait the few microseconds it
 * takes.  C11 atomics, which ThreadSanitizer follows (glibc's call_once it
 * does not). */
enum { ENGINES_NONE, ENGINES_MAKING, ENGINES_READY };
static atomic_int engines_state;

static void engines_init(void)
{
    if (atomic_load_explicit(&engines_state, memory_order_acquire) == ENGINES_READY)
        return;
    int none = ENGINES_NONE;
    if (atomic_compare_exchange_strong(&engines_state, &none, ENGINES_MAKING)) {
        crc_fast_init(&icrc_engine, 32, ICRC_POLY);
        crc_fast_init(&vcrc_engine, 16, VCRC_POLY);
        atomic_store_explicit(&engines_state, ENGINES_READY, memory_order_release);
        return;
    }
    while (atomic_load_explicit(&engines_state, memory_order_acquire) != ENGINES_READY)
        ;
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
            ip[0] |= 0x0F;                        /* traffic class */
            ip[1] = ip[2] = ip[3] = ip[7] = 0xFF; /* and flow label, hop limit */
        }
        uint8_t *udp = buf + *len;
        if (!take(buf, len, frame, caplen, p->off.udp, UDP_HEADER))
            return false;
        udp[6] = udp[7] = 0xFF; /* checksum */
        break;
    }
    default: return false;
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
    case IB_ENCAP_NATIVE: return !ib_diag_has(d, IB_DIAG_PKTLEN_MISMATCH);
    case IB_ENCAP_ROCEV1: return !ib_diag_has(d, IB_DIAG_PAYLEN_MISMATCH);
    default:
        return !ib_diag_has(d, IB_DIAG_UDP_LEN_MISMATCH) &&
               !ib_diag_has(d, IB_DIAG_IP_LEN_MISMATCH);
    }
}

size_t ib_icrc_masked_headers(const uint8_t *frame, size_t caplen, const struct ib_packet *p,
                              uint8_t buf[IB_ICRC_MASKED_MAX])
{
    size_t len;
    if (!ib_packet_has(p, IB_HAS_BTH) || !masked_headers(frame, caplen, p, buf, &len))
        return 0;
    return len;
}

static void check_icrc(const uint8_t *frame, size_t caplen, const struct ib_packet *p,
                       struct ib_crc_check *out)
{
    uint8_t buf[ICRC_JOINED_MAX];
    size_t len;
    size_t icrc_at = (size_t)p->off.ib + p->ib_len - IB_ICRC_SIZE;
    size_t rest = (size_t)p->off.bth + IB_BTH_SIZE;
    if (!ib_packet_has(p, IB_HAS_ICRC) || !ib_packet_has(p, IB_HAS_BTH) ||
        p->ib_len < IB_ICRC_SIZE || icrc_at + IB_ICRC_SIZE > caplen || rest > icrc_at ||
        !masked_headers(frame, caplen, p, buf, &len))
        return;
    uint32_t reg;
    size_t payload = icrc_at - rest;
    if (payload <= ICRC_JOINED_MAX - len) {
        /* Headers and payload in one run: one fold, no table steps for
         * the headers (a copy of an MTU-sized packet costs less). */
        memcpy(buf + len, frame + rest, payload);
        reg = crc_fast_update(&icrc_engine, 0xFFFFFFFFu, buf, len + payload);
    } else {
        reg = crc_fast_update(&icrc_engine, 0xFFFFFFFFu, buf, len);
        reg = crc_fast_update(&icrc_engine, reg, frame + rest, payload);
    }
    uint32_t crc = ~reg;
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
    out->vcrc_computed =
        (uint16_t)(crc_fast_update(&vcrc_engine, 0xFFFF, frame + start, p->ib_len) ^ 0xFFFF);
    out->vcrc = out->vcrc_computed == out->vcrc_carried ? IB_CRC_VERIFIED : IB_CRC_MISMATCH;
}

void ib_crc_check(const uint8_t *frame, size_t caplen, const struct ib_packet *p,
                  struct ib_crc_check *out)
{
    memset(out, 0, sizeof *out);
    engines_init();
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
