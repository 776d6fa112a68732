/* not_ib.c - what a capture without InfiniBand holds instead (not_ib.h). */
#include "not_ib.h"

#include <stdint.h>
#include <string.h>

#include "crc.h"
#include "printable.h"

/* MPA's connection setup starts with one of these 16 bytes (RFC 5044 7.1):
 * the key that tells an iWARP stream from other TCP. */
static const char mpa_req[] = "MPA ID Req Frame";
static const char mpa_rep[] = "MPA ID Rep Frame";
#define MPA_KEY_LEN 16

static bool has_bytes(const uint8_t *data, size_t len, const char *key, size_t key_len)
{
    for (size_t i = 0; i + key_len <= len; i++)
        if (data[i] == (uint8_t)key[0] && memcmp(data + i, key, key_len) == 0)
            return true;
    return false;
}

/* The frame read as RoCEv2 on its own UDP destination port: a BTH with
 * nothing wrong, and an ICRC that verifies or a MAD to a management QP
 * (a capture whose port was rewritten keeps the MADs, not the ICRC). */
static bool roce_on_port(const struct ib_parse_opts *popts, uint32_t linktype, const uint8_t *frame,
                         size_t caplen, size_t wirelen, uint16_t port)
{
    struct ib_parse_opts o = *popts;
    struct ib_packet p;
    o.rocev2_port = port;
    o.verify_crc = true;
    o.is_mad_qp = NULL;
    if (ib_parse_frame(&o, linktype, frame, caplen, wirelen, &p) != IB_FRAME_IB ||
        !(p.present & IB_HAS_BTH) || p.diags.count != 0)
        return false;
    bool mad = (p.present & IB_HAS_MAD) && p.mad.base_version == 1 && p.bth.destqp <= 1;
    return p.crc.icrc == IB_CRC_VERIFIED || mad;
}

static unsigned be16(const uint8_t *b)
{
    return (unsigned)b[0] << 8 | b[1];
}

/* The UDP destination port of an IPv4 or IPv6 datagram in an Ethernet or
 * Linux cooked frame, or 0.  The core keeps nothing of a frame that is not
 * InfiniBand, so the walk to the port is this file's own. */
static unsigned udp_port(uint32_t linktype, const uint8_t *f, size_t len)
{
    size_t off = linktype == IB_DLT_EN10MB       ? 12
                 : linktype == IB_DLT_LINUX_SLL  ? 14
                 : linktype == IB_DLT_LINUX_SLL2 ? 0
                                                 : SIZE_MAX;
    if (off == SIZE_MAX || off + 2 > len)
        return 0;
    unsigned type = be16(f + off);
    off = linktype == IB_DLT_LINUX_SLL2 ? 20 : off + 2;
    for (int tags = 0; tags < 2 && (type == 0x8100 || type == 0x88a8) && off + 4 <= len; tags++) {
        type = be16(f + off + 2);
        off += 4;
    }
    if (type == 0x0800 && off + 20 <= len && f[off + 9] == 17 && (f[off] & 0x0F) >= 5)
        off += (size_t)(f[off] & 0x0F) * 4;
    else if (type == 0x86dd && off + 40 <= len && f[off + 6] == 17)
        off += 40;
    else
        return 0;
    return off + 4 <= len ? be16(f + off + 2) : 0;
}

void not_ib_frame(struct not_ib *n, const struct ib_parse_opts *popts, uint32_t linktype,
                  const uint8_t *frame, size_t caplen, size_t wirelen)
{
    if (n->looked >= NOT_IB_LOOK_MAX)
        return;
    n->looked++;
    if (has_bytes(frame, caplen, mpa_req, MPA_KEY_LEN) ||
        has_bytes(frame, caplen, mpa_rep, MPA_KEY_LEN)) {
        n->iwarp++;
        return;
    }
    unsigned port = udp_port(linktype, frame, caplen);
    if (port == 0 || port == popts->rocev2_port || (n->roce && port != n->other_port))
        return;
    if (roce_on_port(popts, linktype, frame, caplen, wirelen, (uint16_t)port)) {
        n->other_port = (uint16_t)port;
        n->roce++;
    }
}

bool not_ib_report(const struct not_ib *n, const char *path, uint64_t frames, FILE *err)
{
    char p[PRINTABLE_MAX];
    printable(path, p, sizeof p);
    if (n->roce) {
        fprintf(err,
                "ibscope: %s: no InfiniBand frames, but %llu of its %llu frames are RoCEv2 on "
                "UDP port %u: analyse it with --rocev2-port %u\n",
                p, (unsigned long long)n->roce, (unsigned long long)frames, (unsigned)n->other_port,
                (unsigned)n->other_port);
        return true;
    }
    if (n->iwarp) {
        fprintf(err,
                "ibscope: %s: no InfiniBand frames: it holds iWARP (%llu frames start an MPA "
                "connection over TCP), RDMA that ibscope does not analyse; it reads "
                "InfiniBand, RoCEv1 and RoCEv2\n",
                p, (unsigned long long)n->iwarp);
        return true;
    }
    return false;
}
