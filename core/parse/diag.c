/* diag.c - the one table that names, grades and words every diagnostic. */
#include "diag.h"

#include <string.h>

#define MALFORMED(n, t)                               \
    {                                                 \
        n, IB_SEV_ERROR, IB_GROUP_MALFORMED, false, t \
    }
#define RULE(n, sev, t)                    \
    {                                      \
        n, sev, IB_GROUP_PROTOCOL, true, t \
    }
/* Content that cannot be read as it claims (unknown versions): errors that the
 * engine reports as malformed, in Wireshark's protocol group. */
#define CONTENT(n, sev, t)                  \
    {                                       \
        n, sev, IB_GROUP_PROTOCOL, false, t \
    }

static const struct ib_diag_info diag_table[IB_DIAG_COUNT] = {
    [IB_DIAG_TRUNC_LINK] = MALFORMED("trunc_link", "link-layer header cut short"),
    [IB_DIAG_TRUNC_LRH] = MALFORMED("trunc_lrh", "LRH cut short"),
    [IB_DIAG_TRUNC_GRH] = MALFORMED("trunc_grh", "GRH cut short"),
    [IB_DIAG_TRUNC_BTH] = MALFORMED("trunc_bth", "BTH cut short"),
    [IB_DIAG_TRUNC_DETH] = MALFORMED("trunc_deth", "DETH cut short"),
    [IB_DIAG_TRUNC_MAD] = MALFORMED("trunc_mad", "MAD shorter than 256 bytes"),
    [IB_DIAG_TRUNC_CLASS_DATA] =
        MALFORMED("trunc_class_data", "MAD class data (CM message or ClassPortInfo) cut short"),
    [IB_DIAG_SNAPLEN] = { "snaplen", IB_SEV_NOTE, IB_GROUP_MALFORMED, false,
                          "frame captured shorter than it was on the wire (snaplen)" },
    [IB_DIAG_PKTLEN_MISMATCH] =
        MALFORMED("pktlen_mismatch", "LRH PktLen disagrees with the bytes in the frame"),
    [IB_DIAG_PAYLEN_MISMATCH] =
        MALFORMED("paylen_mismatch", "GRH PayLen disagrees with the packet length"),
    [IB_DIAG_IP_LEN_MISMATCH] =
        MALFORMED("ip_len_mismatch", "IP length disagrees with the bytes in the frame"),
    [IB_DIAG_UDP_LEN_MISMATCH] =
        MALFORMED("udp_len_mismatch", "UDP length disagrees with the IP length or the frame"),
    [IB_DIAG_IPV4_BAD_IHL] = MALFORMED("ipv4_bad_ihl", "IPv4 header length below 20 bytes"),
    [IB_DIAG_ERF_BAD_RLEN] =
        MALFORMED("erf_bad_rlen", "ERF record length disagrees with the frame"),
    [IB_DIAG_BAD_PADCNT] = MALFORMED("bad_padcnt", "BTH PadCnt larger than the payload"),

    [IB_DIAG_SLID_RESERVED] = RULE("slid_reserved", IB_SEV_WARN, "SLID is the reserved LID 0"),
    [IB_DIAG_SLID_MULTICAST] =
        RULE("slid_multicast", IB_SEV_WARN, "SLID is a multicast LID; it must be unicast"),
    [IB_DIAG_SLID_PERMISSIVE] = RULE("slid_permissive", IB_SEV_WARN,
                                     "SLID is the permissive LID 0xFFFF outside an SMP to QP0"),
    [IB_DIAG_DLID_RESERVED] = RULE("dlid_reserved", IB_SEV_WARN, "DLID is the reserved LID 0"),
    [IB_DIAG_MCAST_DGID_UNICAST_DLID] =
        RULE("mcast_dgid_unicast_dlid", IB_SEV_WARN, "multicast DGID sent to a non-multicast DLID"),
    [IB_DIAG_MCAST_DLID_NOT_UD] =
        RULE("mcast_dlid_not_ud", IB_SEV_WARN, "multicast DLID on a transport other than UD"),
    [IB_DIAG_SGID_RESERVED] = RULE("sgid_reserved", IB_SEV_WARN, "SGID is the reserved GID ::"),
    [IB_DIAG_DGID_RESERVED] = RULE("dgid_reserved", IB_SEV_WARN, "DGID is the reserved GID ::"),
    [IB_DIAG_GID_LOOPBACK] = RULE("gid_loopback", IB_SEV_WARN, "loopback GID ::1 in an IBA packet"),
    [IB_DIAG_SGID_MULTICAST] = RULE("sgid_multicast", IB_SEV_WARN, "SGID is a multicast GID"),
    [IB_DIAG_MGID_FLAGS] =
        RULE("mgid_flags", IB_SEV_WARN, "multicast GID sets flag bits other than T"),
    [IB_DIAG_PERMISSIVE_DLID_NOT_SMP] = RULE("permissive_dlid_not_smp", IB_SEV_WARN,
                                             "permissive DLID on a packet that is not an SMP"),
    [IB_DIAG_VL15_NOT_SMP] =
        RULE("vl15_not_smp", IB_SEV_WARN, "packet on VL15 that is not an SMP to QP0"),
    [IB_DIAG_SMP_NOT_VL15] = RULE("smp_not_vl15", IB_SEV_WARN, "SMP to QP0 not on VL15"),
    [IB_DIAG_LVER_UNKNOWN] = RULE("lver_unknown", IB_SEV_WARN, "LRH LVer is not 0"),
    [IB_DIAG_LNH_NOT_IBA] =
        RULE("lnh_not_iba", IB_SEV_NOTE, "LRH LNH says raw or IPv6 packet, not IBA transport"),
    [IB_DIAG_GRH_IPVER] = RULE("grh_ipver", IB_SEV_WARN, "GRH IPVer is not 6"),
    [IB_DIAG_GRH_NXTHDR] = RULE("grh_nxthdr", IB_SEV_WARN, "GRH NxtHdr is not 0x1B (BTH)"),
    [IB_DIAG_GSI_QKEY] =
        RULE("gsi_qkey", IB_SEV_WARN, "MAD to QP1 without the well-known Q_Key 0x80010000"),
    [IB_DIAG_MAD_CLASS_QP] =
        RULE("mad_class_qp", IB_SEV_WARN, "SMP class outside QP0 or GMP class on QP0"),

    [IB_DIAG_MAD_BASE_VERSION] =
        CONTENT("mad_base_version", IB_SEV_ERROR, "MAD BaseVersion is not 1"),
    [IB_DIAG_IPCM_VERSION] =
        CONTENT("ipcm_version", IB_SEV_ERROR, "IP CM header MajV is not 0; receivers reject it"),
    [IB_DIAG_IPCM_IPV] = CONTENT("ipcm_ipv", IB_SEV_ERROR, "IP CM header IPV is neither 4 nor 6"),
    [IB_DIAG_TRUNC_MAC_CONTROL] = MALFORMED(
        "trunc_mac_control", "Ethernet PAUSE or PFC frame cut short before its pause times"),
};

const struct ib_diag_info *ib_diag_info(enum ib_diag_id id)
{
    static const struct ib_diag_info unknown = { "unknown", IB_SEV_ERROR, IB_GROUP_MALFORMED, false,
                                                 "unknown diagnostic" };
    if ((unsigned)id >= IB_DIAG_COUNT || !diag_table[id].name)
        return &unknown;
    return &diag_table[id];
}

enum ib_diag_id ib_diag_by_name(const char *name)
{
    for (unsigned i = 0; i < IB_DIAG_COUNT; i++)
        if (diag_table[i].name && strcmp(diag_table[i].name, name) == 0)
            return (enum ib_diag_id)i;
    return IB_DIAG_COUNT;
}

const char *ib_severity_name(enum ib_severity sev)
{
    switch (sev) {
    case IB_SEV_CHAT: return "chat";
    case IB_SEV_NOTE: return "note";
    case IB_SEV_WARN: return "warning";
    case IB_SEV_ERROR: return "error";
    }
    return "unknown";
}

void ib_diag_add(struct ib_diag_list *list, enum ib_diag_id id, size_t offset, size_t length)
{
    if (list->count >= IB_DIAG_MAX) {
        if (list->dropped < UINT8_MAX)
            list->dropped++;
        return;
    }
    struct ib_diag *d = &list->items[list->count++];
    d->id = (uint16_t)id;
    d->offset = offset > UINT32_MAX ? UINT32_MAX : (uint32_t)offset;
    d->length = length > UINT16_MAX ? UINT16_MAX : (uint16_t)length;
}

bool ib_diag_has(const struct ib_diag_list *list, enum ib_diag_id id)
{
    for (unsigned i = 0; i < list->count; i++)
        if (list->items[i].id == id)
            return true;
    return false;
}
