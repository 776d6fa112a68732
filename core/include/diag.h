/* diag.h - diagnostics as data: what a parser found wrong with a packet.
 *
 * A parser records (id, offset, length); everything else about a diagnostic
 * (its stable name, severity, group and wording) lives in one table in
 * diag.c, so the Wireshark plugin's expert infos and the analyzer's report
 * cannot drift apart.  Stable names never change once released: scripts,
 * filters (ibscope.expert.addressing.<name>) and JSON reports use them.
 */
#ifndef IBSCOPE_DIAG_H
#define IBSCOPE_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ib_severity {
    IB_SEV_CHAT,  /* worth knowing, nothing wrong */
    IB_SEV_NOTE,  /* unusual but legal */
    IB_SEV_WARN,  /* a rule is broken or something went wrong */
    IB_SEV_ERROR, /* the packet cannot be decoded as it claims */
};

/* Wireshark's expert groups, as far as ibscope uses them. */
enum ib_diag_group {
    IB_GROUP_MALFORMED, /* truncated or inconsistent lengths */
    IB_GROUP_PROTOCOL,  /* a field violates a rule of the specification */
    IB_GROUP_SEQUENCE,  /* an exchange between packets */
    IB_GROUP_CHECKSUM,  /* a CRC that does not verify */
};

enum ib_diag_id {
    /* Truncation and length consistency (group malformed). */
    IB_DIAG_TRUNC_LINK, /* link-layer header cut short */
    IB_DIAG_TRUNC_LRH,
    IB_DIAG_TRUNC_GRH,
    IB_DIAG_TRUNC_BTH,
    IB_DIAG_TRUNC_DETH,
    IB_DIAG_TRUNC_MAD,
    IB_DIAG_TRUNC_CLASS_DATA, /* ClassPortInfo or CM message cut short */
    IB_DIAG_SNAPLEN,          /* frame captured shorter than on the wire */
    IB_DIAG_PKTLEN_MISMATCH,  /* LRH PktLen disagrees with the bytes present */
    IB_DIAG_PAYLEN_MISMATCH,  /* GRH PayLen disagrees with PktLen or bytes */
    IB_DIAG_IP_LEN_MISMATCH,  /* IPv4 total / IPv6 payload length */
    IB_DIAG_UDP_LEN_MISMATCH,
    IB_DIAG_IPV4_BAD_IHL,
    IB_DIAG_ERF_BAD_RLEN,
    IB_DIAG_BAD_PADCNT, /* BTH PadCnt larger than the payload */
    /* Addressing rules, IBA Vol. 1 ch. 4 (group protocol). */
    IB_DIAG_SLID_RESERVED,
    IB_DIAG_SLID_MULTICAST,
    IB_DIAG_SLID_PERMISSIVE,
    IB_DIAG_DLID_RESERVED,
    IB_DIAG_MCAST_DGID_UNICAST_DLID,
    IB_DIAG_MCAST_DLID_NOT_UD,
    IB_DIAG_SGID_RESERVED,
    IB_DIAG_DGID_RESERVED,
    IB_DIAG_GID_LOOPBACK,
    IB_DIAG_SGID_MULTICAST,
    IB_DIAG_MGID_FLAGS,
    IB_DIAG_PERMISSIVE_DLID_NOT_SMP,
    IB_DIAG_VL15_NOT_SMP,
    IB_DIAG_SMP_NOT_VL15,
    IB_DIAG_LVER_UNKNOWN,
    IB_DIAG_LNH_NOT_IBA,
    IB_DIAG_GRH_IPVER,
    IB_DIAG_GRH_NXTHDR,
    IB_DIAG_GSI_QKEY,
    IB_DIAG_MAD_CLASS_QP,
    /* MAD and CM content (group protocol). */
    IB_DIAG_MAD_BASE_VERSION,
    IB_DIAG_IPCM_VERSION,
    IB_DIAG_IPCM_IPV,
    /* An Ethernet PAUSE or PFC frame too short for its pause times (group malformed). */
    IB_DIAG_TRUNC_MAC_CONTROL,
    IB_DIAG_COUNT
};

struct ib_diag_info {
    const char *name; /* stable snake_case id */
    enum ib_severity severity;
    enum ib_diag_group group;
    bool addressing;  /* one of the addressing rules */
    const char *text; /* one sentence, for reports and expert infos */
};

struct ib_diag {
    uint16_t id;     /* enum ib_diag_id */
    uint16_t length; /* bytes concerned (0 when the field is missing) */
    uint32_t offset; /* from the first byte of the frame */
};

#define IB_DIAG_MAX 16

/* A packet's diagnostics; a fixed array so that parsing never allocates. */
struct ib_diag_list {
    uint8_t count;
    uint8_t dropped; /* diagnostics past IB_DIAG_MAX, counted not stored */
    struct ib_diag items[IB_DIAG_MAX];
};

const struct ib_diag_info *ib_diag_info(enum ib_diag_id id);
/* Looks a stable name up; returns IB_DIAG_COUNT when there is none. */
enum ib_diag_id ib_diag_by_name(const char *name);
const char *ib_severity_name(enum ib_severity sev);

void ib_diag_add(struct ib_diag_list *list, enum ib_diag_id id, size_t offset, size_t length);
bool ib_diag_has(const struct ib_diag_list *list, enum ib_diag_id id);

#endif
