/* ipcm.h - the RDMA IP CM service (IBA Annex A11) and the RDMA CM tuple.
 *
 * An rdma_cm connection over IB/RoCE names itself by a Service ID
 * 0x00000000_01 | protocol (8) | destination port (16) and carries a 36-byte
 * IP CM header at the start of its REQ (and SIDR_REQ) private data:
 *
 *   0 MajV|MinV  1 IPV|rsv  2-3 SrcPort  4-19 SrcIP  20-35 DstIP
 *
 * IPv4 addresses sit in the last 4 bytes of their 16 (12 zero bytes first).
 */
#ifndef IBSCOPE_IPCM_H
#define IBSCOPE_IPCM_H

#include "reader.h"

#define IB_IPCM_HEADER_SIZE 36
#define IB_IPCM_SID_MASK    0xFFFFFFFFFF000000ull
#define IB_IPCM_SID_PREFIX  0x0000000001000000ull

/* Linux RDMA CM port spaces (rdma_cm.h), as they appear in the Service ID. */
enum ib_port_space {
    IB_PS_IPOIB = 0x0002,
    IB_PS_IB = 0x013F,
    IB_PS_TCP = 0x0106,
    IB_PS_UDP = 0x0111,
};

struct ib_service_id {
    uint64_t raw;
    bool ip_cm;          /* has the IP CM prefix */
    uint16_t port_space; /* 0x01pp: (raw >> 16) & 0xFFFF when ip_cm */
    uint16_t dport;
};

struct ib_ipcm {
    uint8_t majv;
    uint8_t minv;
    uint8_t ipv; /* 4 or 6 when valid */
    uint8_t reserved;
    uint16_t src_port;
    uint8_t src_ip[16];
    uint8_t dst_ip[16];
    bool valid; /* MajV 0 and IPV 4 or 6 */
};

/* The identity of an RDMA CM connection attempt. */
struct ib_tuple {
    uint16_t port_space;
    uint8_t ip_version; /* 4 or 6 */
    uint8_t src_ip[16];
    uint16_t src_port;
    uint8_t dst_ip[16];
    uint16_t dst_port;
};

void ib_parse_service_id(uint64_t raw, struct ib_service_id *out);
bool ib_parse_ipcm(struct ib_span s, struct ib_ipcm *out);
/* Builds the tuple; false unless both parts are IP CM and the header valid. */
bool ib_tuple_make(const struct ib_service_id *sid, const struct ib_ipcm *ipcm,
                   struct ib_tuple *out);
/* Formats a 16-byte address as IPv4 dotted quad (ip_version 4) or IPv6. */
void ib_format_ip(uint8_t ip_version, const uint8_t ip[16], char *buf, size_t size);

#endif
