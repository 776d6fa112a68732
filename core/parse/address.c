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
