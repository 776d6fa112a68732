/* engine_text.c - addresses and names as the engine's messages print them. */
#include "engine_text.h"

#include <stdio.h>
#include <string.h>

bool eng_gid_is_zero(const uint8_t gid[16])
{
    for (int i = 0; i < 16; i++)
        if (gid[i])
            return false;
    return true;
}

static void fmt_ipv6(const uint8_t a[16], char *buf, size_t size)
{
    unsigned w[8];
    for (int i = 0; i < 8; i++)
        w[i] = (unsigned)a[2 * i] << 8 | a[2 * i + 1];
    /* The longest run of two or more zero words becomes "::" (RFC 5952). */
    int best = -1, best_len = 0;
    for (int i = 0; i < 8;) {
        if (w[i]) {
            i++;
            continue;
        }
        int j = i;
        while (j < 8 && !w[j])
            j++;
        if (j - i > best_len && j - i >= 2) {
            best = i;
            best_len = j - i;
        }
        i = j;
    }
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < 8 && n < size; i++) {
        if (i == best) {
            n += (size_t)snprintf(buf + n, size - n, "::");
            i += best_len - 1;
            continue;
        }
        bool sep = i > 0 && i != best + best_len;
        n += (size_t)snprintf(buf + n, size - n, "%s%x", sep ? ":" : "", w[i]);
    }
}

void eng_fmt_ip(uint8_t ip_version, const uint8_t ip[16], char *buf, size_t size)
{
    if (!size)
        return;
    if (ip_version == 4)
        snprintf(buf, size, "%u.%u.%u.%u", ip[12], ip[13], ip[14], ip[15]);
    else
        fmt_ipv6(ip, buf, size);
}

void eng_fmt_gid(const uint8_t gid[16], char *buf, size_t size)
{
    if (size)
        fmt_ipv6(gid, buf, size);
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
    switch (ps) {
    case 0x0106: return "TCP";
    case 0x0111: return "UDP";
    case 0x013F: return "IB";
    case 0x0002: return "IPoIB";
    }
    snprintf(buf, 8, "0x%04x", ps);
    return buf;
}

const char *eng_class_name(uint8_t c, char buf[16])
{
    switch (c) {
    case 0x01: return "SubnMgt";
    case 0x81: return "SubnMgt(DR)";
    case 0x03: return "SubnAdm";
    case 0x04: return "PerfMgt";
    case 0x05: return "BM";
    case 0x06: return "DevMgt";
    case 0x07: return "CM";
    case 0x08: return "SNMP";
    case 0x10: return "DevAdm";
    case 0x12: return "BIS";
    case 0x21: return "CC";
    }
    snprintf(buf, 16, "class 0x%02x", c);
    return buf;
}
