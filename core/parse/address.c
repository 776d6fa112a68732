/* address.c - LID kinds and GID scopes (IBA Vol. 1 §4.1), and how GIDs are written. */
#include "names.h"
#include "packet.h"

#include <stdio.h>
#include <string.h>

enum ib_lid_type ib_lid_type(uint16_t lid)
{
    if (lid == IB_LID_RESERVED)
        return IB_LIDT_RESERVED;
    if (lid == IB_LID_PERMISSIVE)
        return IB_LIDT_PERMISSIVE;
    if (lid >= IB_LID_MCAST_LOW)
        return IB_LIDT_MULTICAST;
    return IB_LIDT_UNICAST;
}

const char *ib_lid_type_name(enum ib_lid_type type)
{
    const char *name = ib_name_lookup(ib_lid_type_names, type);
    return name ? name : "unknown";
}

enum ib_gid_scope ib_gid_scope(const uint8_t gid[16])
{
    static const uint8_t zero[16];
    if (gid[0] == 0xFF)
        return IB_GID_MULTICAST;
    if (memcmp(gid, zero, 15) == 0 && gid[15] <= 1)
        return gid[15] ? IB_GID_LOOPBACK : IB_GID_RESERVED;
    /* Link-local is the whole default prefix fe80:0:0:0::/64. */
    if (gid[0] == 0xFE && gid[1] == 0x80 && memcmp(gid + 2, zero, 6) == 0)
        return IB_GID_LINK_LOCAL;
    if (gid[0] == 0xFE && (gid[1] & 0xC0) == 0xC0)
        return IB_GID_SITE_LOCAL;
    return IB_GID_GLOBAL;
}

const char *ib_gid_scope_name(enum ib_gid_scope scope)
{
    const char *name = ib_name_lookup(ib_gid_scope_names, scope);
    return name ? name : "unknown";
}

void ib_format_gid(const uint8_t gid[16], char *buf, size_t size)
{
    ib_format_ip(6, gid, buf, size);
}

void ib_format_endpoint(const struct ib_endpoint *ep, char *buf, size_t size)
{
    if (ep->lid != 0) {
        snprintf(buf, size, "LID %u", (unsigned)ep->lid);
    } else if (ep->has_gid) {
        char gid[64];
        ib_format_gid(ep->gid, gid, sizeof(gid));
        snprintf(buf, size, "GID %s", gid);
    } else {
        snprintf(buf, size, "no address");
    }
}

void ib_format_node(const struct ib_endpoint *ep, char *buf, size_t size)
{
    static const uint8_t v4_mapped[12] = { [10] = 0xFF, [11] = 0xFF };
    if (ep->lid == 0 && ep->has_gid && memcmp(ep->gid, v4_mapped, sizeof v4_mapped) == 0)
        snprintf(buf, size, "%u.%u.%u.%u", ep->gid[12], ep->gid[13], ep->gid[14], ep->gid[15]);
    else if (ep->lid == 0 && ep->has_gid)
        ib_format_gid(ep->gid, buf, size);
    else
        ib_format_endpoint(ep, buf, size);
}
