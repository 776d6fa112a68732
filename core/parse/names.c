/* names.c - value strings for classes, methods, attributes, CM messages, reasons and port spaces.
 */
#include "names.h"

#include "crc.h"
#include "engine.h"
#include "packet.h"

#include <stddef.h>

const struct ib_value_name ib_mgmt_class_names[] = {
    { 0x01, "SubnMgt (LID routed)" },
    { 0x03, "SubnAdm" },
    { 0x04, "PerfMgt" },
    { 0x05, "BaseboardMgt" },
    { 0x06, "DevMgt" },
    { 0x07, "ComMgt" },
    { 0x08, "SNMP" },
    { 0x10, "DevAdm" },
    { 0x12, "BIS" },
    { 0x21, "CongestionMgt" },
    { 0x81, "SubnMgt (directed route)" },
    { 0, NULL },
};

const struct ib_value_name ib_method_names[] = {
    { 0x01, "Get" },          { 0x02, "Set" },
    { 0x03, "Send" },         { 0x05, "Trap" },
    { 0x06, "Report" },       { 0x07, "TrapRepress" },
    { 0x12, "GetTable" },     { 0x13, "GetTraceTable" },
    { 0x14, "GetMulti" },     { 0x15, "Delete" },
    { 0x81, "GetResp" },      { 0x86, "ReportResp" },
    { 0x92, "GetTableResp" }, { 0x94, "GetMultiResp" },
    { 0x95, "DeleteResp" },   { 0, NULL },
};

const struct ib_value_name ib_cm_attr_names[] = {
    { 0x0001, "ClassPortInfo" },
    { 0x0010, "REQ" },
    { 0x0011, "MRA" },
    { 0x0012, "REJ" },
    { 0x0013, "REP" },
    { 0x0014, "RTU" },
    { 0x0015, "DREQ" },
    { 0x0016, "DREP" },
    { 0x0017, "SIDR_REQ" },
    { 0x0018, "SIDR_REP" },
    { 0x0019, "LAP" },
    { 0x001A, "APR" },
    { 0, NULL },
};

const struct ib_value_name ib_rej_reason_names[] = {
    { 1, "no QP available" },
    { 2, "no EEC available" },
    { 3, "no resources available" },
    { 4, "timeout" },
    { 5, "unsupported request" },
    { 6, "invalid communication ID" },
    { 7, "invalid communication instance" },
    { 8, "invalid service ID" },
    { 9, "invalid transport service type" },
    { 10, "stale connection" },
    { 11, "RDC does not exist" },
    { 12, "primary remote port GID rejected" },
    { 13, "primary remote port LID rejected" },
    { 14, "invalid primary SL" },
    { 15, "invalid primary traffic class" },
    { 16, "invalid primary hop limit" },
    { 17, "invalid primary packet rate" },
    { 18, "alternate remote port GID rejected" },
    { 19, "alternate remote port LID rejected" },
    { 20, "invalid alternate SL" },
    { 21, "invalid alternate traffic class" },
    { 22, "invalid alternate hop limit" },
    { 23, "invalid alternate packet rate" },
    { 24, "port and CM redirect" },
    { 25, "port redirect" },
    { 26, "invalid path MTU" },
    { 27, "insufficient responder resources" },
    { 28, "consumer reject" },
    { 29, "invalid RNR NAK retry count" },
    { 30, "duplicate local comm ID" },
    { 31, "invalid class version" },
    { 32, "invalid primary flow label" },
    { 33, "invalid alternate flow label" },
    { 35, "vendor option not supported" },
    { 0, NULL },
};

const struct ib_value_name ib_port_space_names[] = {
    { 0x0002, "IPoIB" }, { 0x0106, "TCP" }, { 0x0111, "UDP" }, { 0x013F, "IB" }, { 0, NULL },
};

const struct ib_value_name ib_sidr_status_names[] = {
    { 0, "QP valid" },
    { 1, "service ID not supported" },
    { 2, "rejected by the service" },
    { 3, "no QP available" },
    { 4, "redirect" },
    { 5, "class version not supported" },
    { 0, NULL },
};

const struct ib_value_name ib_crc_status_names[] = {
    { IB_CRC_NOT_PRESENT, "not present" },
    { IB_CRC_VERIFIED, "verified" },
    { IB_CRC_MISMATCH, "mismatch" },
    { 0, NULL },
};

const struct ib_value_name ib_lid_type_names[] = {
    { IB_LIDT_RESERVED, "reserved" },
    { IB_LIDT_UNICAST, "unicast" },
    { IB_LIDT_MULTICAST, "multicast" },
    { IB_LIDT_PERMISSIVE, "permissive" },
    { 0, NULL },
};

const struct ib_value_name ib_gid_scope_names[] = {
    { IB_GID_RESERVED, "reserved" },
    { IB_GID_LOOPBACK, "loopback" },
    { IB_GID_LINK_LOCAL, "link-local" },
    { IB_GID_SITE_LOCAL, "site-local" },
    { IB_GID_MULTICAST, "multicast" },
    { IB_GID_GLOBAL, "global" },
    { 0, NULL },
};

/* IBA Vol. 1 §4.1.1, as IPv6's. */
const struct ib_value_name ib_mcast_scope_names[] = {
    { 0x2, "link-local" }, { 0x5, "site-local" }, { 0x8, "organization-local" },
    { 0xE, "global" },     { 0, NULL },
};

/* What a router may do with a GID (wire_class.h). */
const struct ib_value_name ib_gid_kind_names[] = {
    { IB_GID_KIND_GLOBAL, "global" },
    { IB_GID_KIND_LINK_LOCAL, "link-local" },
    { IB_GID_KIND_IPV4_MAPPED, "IPv4-mapped" },
    { 0, NULL },
};

/* RFC 3168's codepoints. */
const struct ib_value_name ib_ecn_names[] = {
    { IB_ECN_NOT_ECT, "Not-ECT" },
    { IB_ECN_ECT1, "ECT(1)" },
    { IB_ECN_ECT0, "ECT(0)" },
    { IB_ECN_CE, "CE" },
    { 0, NULL },
};

const struct ib_value_name ib_macc_opcode_names[] = {
    { IB_MACC_OPCODE_PAUSE, "PAUSE" },
    { IB_MACC_OPCODE_PFC, "PFC" },
    { 0, NULL },
};

/* The JSON report's redirect_chains[].end: stable, merge reads them back. */
const struct ib_value_name ib_chain_end_names[] = {
    { IB_CHAIN_NOT_FOLLOWED, "not followed" },
    { IB_CHAIN_NO_ANSWER, "no answer" },
    { IB_CHAIN_ANSWERED, "answered" },
    { IB_CHAIN_LOOP, "loop" },
    { 0, NULL },
};

const struct ib_value_name ib_lnh_names[] = {
    { 0, "raw" }, { 1, "IPv6 (non-IBA)" }, { 2, "IBA local (BTH)" }, { 3, "IBA global (GRH)" },
    { 0, NULL },
};

/* The AETH syndrome, IBA Vol. 1 §9.3.5 and §9.7.5.2. */
const struct ib_value_name ib_aeth_kind_names[] = {
    { 0, "ACK" }, { 1, "RNR NAK" }, { 2, "reserved" }, { 3, "NAK" }, { 0, NULL },
};

const struct ib_value_name ib_nak_code_names[] = {
    { 0, "PSN sequence error" },       { 1, "invalid request" },    { 2, "remote access error" },
    { 3, "remote operational error" }, { 4, "invalid RD request" }, { 0, NULL },
};

/* Table 45; unit.test_parse_headers holds these to ib_rnr_timer_us. */
const struct ib_value_name ib_rnr_timer_names[] = {
    { 0, "655.36 ms" },  { 1, "0.01 ms" },    { 2, "0.02 ms" },    { 3, "0.03 ms" },
    { 4, "0.04 ms" },    { 5, "0.06 ms" },    { 6, "0.08 ms" },    { 7, "0.12 ms" },
    { 8, "0.16 ms" },    { 9, "0.24 ms" },    { 10, "0.32 ms" },   { 11, "0.48 ms" },
    { 12, "0.64 ms" },   { 13, "0.96 ms" },   { 14, "1.28 ms" },   { 15, "1.92 ms" },
    { 16, "2.56 ms" },   { 17, "3.84 ms" },   { 18, "5.12 ms" },   { 19, "7.68 ms" },
    { 20, "10.24 ms" },  { 21, "15.36 ms" },  { 22, "20.48 ms" },  { 23, "30.72 ms" },
    { 24, "40.96 ms" },  { 25, "61.44 ms" },  { 26, "81.92 ms" },  { 27, "122.88 ms" },
    { 28, "163.84 ms" }, { 29, "245.76 ms" }, { 30, "327.68 ms" }, { 31, "491.52 ms" },
    { 0, NULL },
};

const struct ib_value_name ib_opcode_names[] = {
    { 0x00, "RC Send First" },
    { 0x01, "RC Send Middle" },
    { 0x02, "RC Send Last" },
    { 0x03, "RC Send Last with Immediate" },
    { 0x04, "RC Send Only" },
    { 0x05, "RC Send Only with Immediate" },
    { 0x06, "RC RDMA Write First" },
    { 0x07, "RC RDMA Write Middle" },
    { 0x08, "RC RDMA Write Last" },
    { 0x09, "RC RDMA Write Last with Immediate" },
    { 0x0A, "RC RDMA Write Only" },
    { 0x0B, "RC RDMA Write Only with Immediate" },
    { 0x0C, "RC RDMA Read Request" },
    { 0x0D, "RC RDMA Read Response First" },
    { 0x0E, "RC RDMA Read Response Middle" },
    { 0x0F, "RC RDMA Read Response Last" },
    { 0x10, "RC RDMA Read Response Only" },
    { 0x11, "RC Acknowledge" },
    { 0x12, "RC Atomic Acknowledge" },
    { 0x13, "RC CmpSwap" },
    { 0x14, "RC FetchAdd" },
    { 0x16, "RC Send Last with Invalidate" },
    { 0x17, "RC Send Only with Invalidate" },
    { 0x20, "UC Send First" },
    { 0x21, "UC Send Middle" },
    { 0x22, "UC Send Last" },
    { 0x23, "UC Send Last with Immediate" },
    { 0x24, "UC Send Only" },
    { 0x25, "UC Send Only with Immediate" },
    { 0x26, "UC RDMA Write First" },
    { 0x27, "UC RDMA Write Middle" },
    { 0x28, "UC RDMA Write Last" },
    { 0x29, "UC RDMA Write Last with Immediate" },
    { 0x2A, "UC RDMA Write Only" },
    { 0x2B, "UC RDMA Write Only with Immediate" },
    { 0x64, "UD Send Only" },
    { 0x65, "UD Send Only with Immediate" },
    { 0x81, "CNP" },
    { 0, NULL },
};

static const struct ib_value_name sa_attr_names[] = {
    { 0x0001, "ClassPortInfo" },    { 0x0002, "Notice" },
    { 0x0003, "InformInfo" },       { 0x0011, "NodeRecord" },
    { 0x0012, "PortInfoRecord" },   { 0x0013, "SLtoVLMappingTableRecord" },
    { 0x0014, "SwitchInfoRecord" }, { 0x0015, "LinearForwardingTableRecord" },
    { 0x0018, "SMInfoRecord" },     { 0x0019, "P_KeyTableRecord" },
    { 0x0020, "LinkRecord" },       { 0x0030, "GuidInfoRecord" },
    { 0x0031, "ServiceRecord" },    { 0x0033, "PartitionRecord" },
    { 0x0035, "PathRecord" },       { 0x0036, "VLArbitrationTableRecord" },
    { 0x0038, "MCMemberRecord" },   { 0x0039, "TraceRecord" },
    { 0x003A, "MultiPathRecord" },  { 0, NULL },
};

static const struct ib_value_name perf_attr_names[] = {
    { 0x0001, "ClassPortInfo" },        { 0x0010, "PortSamplesControl" },
    { 0x0011, "PortSamplesResult" },    { 0x0012, "PortCounters" },
    { 0x001D, "PortCountersExtended" }, { 0x0016, "PortXmitDataSL" },
    { 0x0017, "PortRcvDataSL" },        { 0, NULL },
};

static const struct ib_value_name smp_attr_names[] = {
    { 0x0002, "Notice" },
    { 0x0010, "NodeDescription" },
    { 0x0011, "NodeInfo" },
    { 0x0012, "SwitchInfo" },
    { 0x0014, "GUIDInfo" },
    { 0x0015, "PortInfo" },
    { 0x0016, "P_KeyTable" },
    { 0x0017, "SLtoVLMappingTable" },
    { 0x0018, "VLArbitrationTable" },
    { 0x0019, "LinearForwardingTable" },
    { 0x001A, "RandomForwardingTable" },
    { 0x001B, "MulticastForwardingTable" },
    { 0x0020, "SMInfo" },
    { 0x0030, "VendorDiag" },
    { 0x0031, "LedInfo" },
    { 0, NULL },
};

const char *ib_name_lookup(const struct ib_value_name *table, uint32_t value)
{
    for (; table->name; table++)
        if (table->value == value)
            return table->name;
    return NULL;
}

const char *ib_attr_name(uint8_t mgmt_class, uint16_t attr_id)
{
    switch (mgmt_class) {
    case 0x07: return ib_name_lookup(ib_cm_attr_names, attr_id);
    case 0x03: return ib_name_lookup(sa_attr_names, attr_id);
    case 0x04: return ib_name_lookup(perf_attr_names, attr_id);
    case 0x01:
    case 0x81: return ib_name_lookup(smp_attr_names, attr_id);
    default: return attr_id == 0x0001 ? "ClassPortInfo" : NULL;
    }
}

const char *ib_mgmt_class_name(uint8_t mgmt_class)
{
    const char *n = ib_name_lookup(ib_mgmt_class_names, mgmt_class);
    if (n)
        return n;
    if ((mgmt_class >= 0x09 && mgmt_class <= 0x0F) || (mgmt_class >= 0x30 && mgmt_class <= 0x4F))
        return "vendor";
    return NULL;
}
