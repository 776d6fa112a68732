/* identity.c - a packet's identity across captures (identity.h). */
#include "identity.h"

#include <string.h>

#include "crc.h"
#include "packet.h"

#define K1 0x9e3779b97f4a7c15ull
#define K2 0xc2b2ae3d27d4eb4full

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= K2;
    h ^= h >> 33;
    return h;
}

/* A word at a time; not a cryptographic hash: the captures are the user's. */
static uint64_t absorb(uint64_t h, const uint8_t *p, size_t len)
{
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * K1;
        h ^= h >> 29;
        p += 8;
        len -= 8;
    }
    if (len) {
        uint64_t w = 0;
        memcpy(&w, p, len);
        h = (h ^ w ^ (uint64_t)len << 56) * K2;
    }
    return h;
}

bool ib_packet_identity(const uint8_t *frame, size_t caplen, const struct ib_packet *p,
                        uint64_t *identity)
{
    uint8_t head[IB_ICRC_MASKED_MAX];
    size_t n = ib_icrc_masked_headers(frame, caplen, p, head);
    if (n == 0)
        return false;
    size_t rest = (size_t)p->off.bth + IB_BTH_SIZE;
    size_t end = (size_t)p->off.ib + p->ib_len;
    if (end > caplen)
        end = caplen;
    if (rest > end)
        rest = end;
    uint64_t h = absorb(K1 ^ (uint64_t)p->encap, head, n);
    h = absorb(h, frame + rest, end - rest);
    *identity = mix(h ^ (end - rest));
    return true;
}

uint64_t ib_endpoint_key(const struct ib_endpoint *ep)
{
    if (ep->has_gid)
        return mix(absorb(K2, ep->gid, 16));
    return mix(K1 ^ ep->lid);
}
