/* engine_text.c - addresses and names as the engine's messages print them. */
#include "engine_text.h"

#include "names.h"
#include "packet.h"

#include <stdio.h>
#include <string.h>

bool eng_gid_is_zero(const uint8_t gid[16])
{
    for (int i = 0; i < 16; i++)
        if (gid[i])
            return false;
    return true;
}

void eng_fmt_ip(uint8_t ip_version, const uint8_t ip[16], char *buf, size_t size)
{
    if (size)
        ib_format_ip(ip_version, ip, buf, size);
}

void eng_fmt_gid(const uint8_t gid[16], char *buf, size_t size)
{
    if (size)
        ib_format_gid(gid, buf, size);
}

void eng_fmt_ip_port(uint8_t ip_version, const uint8_t ip[16], uint16_t port, char *buf,
                     size_t size)
{
    char a[ENG_ADDR_MAX];
    eng_fmt_ip(ip_version, ip, a, sizeof a);
    if (ip_version == 4)
        snprintf(buf, size, "%s:%u", a, port);
    else
        snprintf(buf, size, "[%s]:%u", a, port);
}

const char *eng_port_space_name(uint16_t ps, char buf[8])
{
    const char *name = ib_name_lookup(ib_port_space_names, ps);
    if (name)
        return name;
    snprintf(buf, 8, "0x%04x", ps);
    return buf;
}

const char *eng_class_name(uint8_t c, char buf[16])
{
    const char *name = ib_mgmt_class_name(c);
    if (name)
        return name;
    snprintf(buf, 16, "class 0x%02x", c);
    return buf;
}
