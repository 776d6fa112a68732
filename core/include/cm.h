/* cm.h - Communication Manager messages (MgmtClass 0x07), IBA Vol. 1 §12.6.
 *
 * Offsets in the parse functions are inside the 256-byte MAD, as in the
 * specification's tables.  Every message starts its class data at MAD
 * offset 24; the private data is kept as an offset and length so callers
 * can look into it (IP CM header, consumer data) without copying.
 */
#ifndef IBSCOPE_CM_H
#define IBSCOPE_CM_H

#include "classportinfo.h"
#include "ipcm.h"
#include "reader.h"

enum ib_cm_attr {
    IB_CM_CLASS_PORT_INFO = 0x0001,
    IB_CM_REQ = 0x0010,
    IB_CM_MRA = 0x0011,
    IB_CM_REJ = 0x0012,
    IB_CM_REP = 0x0013,
    IB_CM_RTU = 0x0014,
    IB_CM_DREQ = 0x0015,
    IB_CM_DREP = 0x0016,
    IB_CM_SIDR_REQ = 0x0017,
    IB_CM_SIDR_REP = 0x0018,
    IB_CM_LAP = 0x0019,
    IB_CM_APR = 0x001A,
};

#define IB_CM_REJ_PORT_CM_REDIRECT 24
#define IB_CM_REJ_PORT_REDIRECT    25
#define IB_CM_SIDR_STATUS_REDIRECT 4

/* A path as a REQ (primary at 76, alternate at 120) or LAP (44) carries it. */
struct ib_cm_path {
    uint16_t local_lid;
    uint16_t remote_lid;
    uint8_t local_gid[16];
    uint8_t remote_gid[16];
    uint32_t flow_label; /* 20 bits */
    uint8_t packet_rate; /* 6 bits */
    uint8_t tclass;
    uint8_t hop_limit;
    uint8_t sl;
    bool subnet_local;
    uint8_t local_ack_timeout; /* 5 bits */
};

struct ib_cm_req {
    uint64_t service_id;
    uint64_t local_ca_guid;
    uint32_t local_qkey;
    uint32_t local_qpn;
    uint8_t responder_resources;
    uint32_t local_eecn;
    uint8_t initiator_depth;
    uint32_t remote_eecn;
    uint8_t remote_cm_resp_timeout;
    uint8_t transport_service_type;
    bool eefc;
    uint32_t starting_psn;
    uint8_t local_cm_resp_timeout;
    uint8_t retry_count;
    uint16_t pkey;
    uint8_t path_mtu;
    bool rdc_exists;
    uint8_t rnr_retry_count;
    uint8_t max_cm_retries;
    bool srq;
    uint8_t ext_transport;
    struct ib_cm_path primary;
    struct ib_cm_path alternate;
};

struct ib_cm_mra {
    uint8_t msg_mraed;       /* 0 REQ, 1 REP, 2 LAP */
    uint8_t service_timeout; /* 5 bits */
};

struct ib_cm_rej {
    uint8_t msg_rejected; /* 0 REQ, 1 REP, 2 other */
    uint8_t rej_info_len; /* 7 bits */
    uint16_t reason;
    uint16_t ari_offset; /* MAD offset of the ARI (36) */
    bool ari_has_cpi;    /* reasons 24 and 25: ARI is ClassPortInfo */
};

struct ib_cm_rep {
    uint32_t local_qkey;
    uint32_t local_qpn;
    uint32_t local_eecn;
    uint32_t starting_psn;
    uint8_t responder_resources;
    uint8_t initiator_depth;
    uint8_t target_ack_delay;
    uint8_t failover_accepted;
    bool eefc;
    uint8_t rnr_retry_count;
    bool srq;
    uint64_t local_ca_guid;
};

struct ib_cm_dreq {
    uint32_t remote_qpn_eecn;
};

struct ib_cm_lap {
    uint32_t remote_qpn_eecn;
    uint8_t remote_cm_resp_timeout;
    struct ib_cm_path alternate;
};

struct ib_cm_apr {
    uint8_t info_len;
    uint8_t ap_status;
};

struct ib_cm_sidr_req {
    uint16_t pkey;
    uint64_t service_id;
};

struct ib_cm_sidr_rep {
    uint8_t status;
    uint8_t info_len;
    uint32_t qpn;
    uint64_t service_id;
    uint32_t qkey;
    bool info_has_cpi; /* status 4: Info is ClassPortInfo */
};

/* One CM message.  local_comm_id is the RequestID for SIDR messages. */
struct ib_cm {
    uint16_t attr; /* enum ib_cm_attr */
    uint32_t local_comm_id;
    uint32_t remote_comm_id;
    uint16_t private_offset; /* MAD offset of the private data */
    uint16_t private_len;
    union {
        struct ib_cm_req req;
        struct ib_cm_mra mra;
        struct ib_cm_rej rej;
        struct ib_cm_rep rep;
        struct ib_cm_dreq dreq;
        struct ib_cm_lap lap;
        struct ib_cm_apr apr;
        struct ib_cm_sidr_req sidr_req;
        struct ib_cm_sidr_rep sidr_rep;
    } u;
    bool has_service_id;
    struct ib_service_id sid; /* REQ, SIDR_REQ, SIDR_REP */
    bool has_ipcm;            /* REQ and SIDR_REQ with an IP CM service ID */
    struct ib_ipcm ipcm;
    bool has_cpi;        /* REJ 24/25 ARI or SIDR_REP status 4 Info */
    uint16_t cpi_offset; /* MAD offset of that ClassPortInfo */
    struct ib_cpi cpi;
};

/* Parses the CM message in a whole MAD (span starts at MAD byte 0).
 * Returns false when the MAD is shorter than the message needs. */
bool ib_parse_cm(struct ib_span mad, uint16_t attr_id, struct ib_cm *out);

/* True for the messages whose private data opens with an IP CM header when
 * their Service ID is an IP CM one: REQ and SIDR_REQ. */
bool ib_cm_carries_ipcm(uint16_t attr_id);

/* Bytes of the MAD a CM message needs, up to the end of its fixed fields. */
size_t ib_cm_fixed_len(uint16_t attr_id);

#endif
