/* identity.c - a packet's identity across captures (identity.h). */
#include "identity.h"

#include <string.h>

#include "crc.h"
#include "packet.h"

bool ib_packet_identity(const struct ib_hash_key *key, const uint8_t *frame, size_t caplen,
                        const struct ib_packet *p, struct ib_identity *identity)
{
    uint8_t head[IB_ICRC_MASKED_MAX + 1];
    size_t n = ib_icrc_masked_headers(frame, caplen, p, head + 1);
    if (n == 0)
        return false;
    head[0] = (uint8_t)p->encap; /* the same bytes over another carrier: another packet */
    size_t rest = (size_t)p->off.bth + IB_BTH_SIZE;
    size_t end = (size_t)p->off.ib + p->ib_len;
    if (end > caplen)
        end = caplen;
    if (rest > end)
        rest = end;
    /* The headers' length first, so that no split of the same bytes
     * between headers and the rest hashes alike. */
    uint8_t len = (uint8_t)n;
    struct ib_siphash s;
    ib_siphash_init(&s, key);
    ib_siphash_update(&s, &len, 1);
    ib_siphash_update(&s, head, n + 1);
    ib_siphash_update(&s, frame + rest, end - rest);
    struct ib_hash128 h = ib_siphash_final(&s);
    identity->hash = h.lo;
    identity->check = h.hi;
    return true;
}

uint64_t ib_endpoint_key(const struct ib_hash_key *key, const struct ib_endpoint *ep)
{
    uint8_t b[17] = { ep->has_gid };
    if (ep->has_gid)
        memcpy(b + 1, ep->gid, 16);
    else
        memcpy(b + 1, &ep->lid, sizeof ep->lid);
    struct ib_siphash s;
    ib_siphash_init(&s, key);
    ib_siphash_update(&s, b, sizeof b);
    return ib_siphash_final(&s).lo;
}
