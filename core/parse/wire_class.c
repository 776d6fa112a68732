/* wire_class.c - VLAN priority, DSCP/ECN, TTL and GID kinds (wire_class.h). */
#include "wire_class.h"

#include <string.h>

#include "names.h"

bool ib_parse_vlan_tag(struct ib_span s, unsigned i, struct ib_wire *w)
{
    if (!ib_span_has(s, 0, 2) || i >= 2)
        return false;
    uint16_t tci = ib_rd16(s, 0);
    w->vlan_pcp[i] = (uint8_t)(tci >> 13);
    w->vlan_dei[i] = (uint8_t)(tci >> 12 & 1);
    return true;
}

static void split_class(struct ib_wire *w, uint8_t tclass)
{
    w->ip_tclass = tclass;
    w->ip_dscp = tclass >> 2;
    w->ip_ecn = tclass & 3;
}

bool ib_parse_ipv4_class(struct ib_span s, struct ib_wire *w)
{
    if (!ib_span_has(s, 0, 9))
        return false;
    split_class(w, ib_rd8(s, 1));
    w->ip_ttl = ib_rd8(s, 8);
    return true;
}

bool ib_parse_ipv6_class(struct ib_span s, struct ib_wire *w)
{
    if (!ib_span_has(s, 0, 8))
        return false;
    split_class(w, (uint8_t)(ib_rd16(s, 0) >> 4));
    w->ip_ttl = ib_rd8(s, 7);
    return true;
}

enum ib_gid_kind ib_gid_kind(const uint8_t gid[16])
{
    /* Every packet with a GID asks, twice: two word compares, not memcmp.
     * Link-local: fe80::/64; IPv4-mapped: ::ffff:0:0/96 (RFC 4291 2.5.5.2). */
    uint64_t prefix;
    uint32_t next;
    memcpy(&prefix, gid, 8);
    memcpy(&next, gid + 8, 4);
    static const uint8_t link_local[8] = { 0xFE, 0x80 }, mapped_next[4] = { 0, 0, 0xFF, 0xFF };
    uint64_t ll;
    uint32_t mapped;
    memcpy(&ll, link_local, 8);
    memcpy(&mapped, mapped_next, 4);
    if (prefix == ll)
        return IB_GID_KIND_LINK_LOCAL;
    if (prefix == 0 && next == mapped)
        return IB_GID_KIND_IPV4_MAPPED;
    return IB_GID_KIND_GLOBAL;
}

const char *ib_gid_kind_name(enum ib_gid_kind kind)
{
    const char *name = ib_name_lookup(ib_gid_kind_names, kind);
    return name ? name : "unknown";
}
