/* ib_headers.h - InfiniBand header and management-datagram builders.
 *
 * Wire formats from IBA Vol. 1 chapters 5, 9, 12, 13 and 16 and Annex A11.
 * All fields big-endian.
 *
 *   LRH  8  | VL LVer | SL rsv LNH | DLID | rsv PktLen | SLID |
 *   GRH 40  | IPVer TClass FlowLabel | PayLen | NxtHdr | HopLmt | SGID | DGID |
 *   BTH 12  | OpCode | SE M Pad TVer | P_Key | rsv8a | DestQP | A rsv | PSN |
 *   DETH 8  | Q_Key | rsv | SrcQP |
 *   MAD 256 | common header 24 | class data ... |
 */
#ifndef IBSCOPE_GEN_IB_HEADERS_H
#define IBSCOPE_GEN_IB_HEADERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frame_builder.h"

#define IB_LRH_LEN  8
#define IB_GRH_LEN  40
#define IB_BTH_LEN  12
#define IB_DETH_LEN 8
#define IB_ICRC_LEN 4
#define IB_VCRC_LEN 2
#define MAD_LEN     256

#define IB_QKEY_GSI        0x80010000u
#define IB_PKEY_DEFAULT    0xFFFFu
#define IB_OP_UD_SEND_ONLY 0x64
#define IB_LNH_RAW         0
#define IB_LNH_IPV6        1
#define IB_LNH_BTH         2
#define IB_LNH_GRH         3
#define IB_GRH_NXTHDR_BTH  0x1B

/* One IBA packet, independent of how a capture frames it. */
typedef struct ib_pkt {
    /* LRH */
    uint8_t vl, lver, sl;
    int lnh; /* -1: 3 when grh, else 2 */
    uint16_t dlid, slid;
    int pktlen_adjust; /* added to the correct PktLen (words) */
    /* GRH */
    bool grh;
    uint8_t ipver, tclass, nxthdr, hoplmt;
    uint32_t flow;
    uint8_t sgid[16], dgid[16];
    int paylen_adjust; /* added to the correct PayLen (bytes) */
    /* BTH; with no_bth the payload follows the LRH/GRH and there is no ICRC */
    bool no_bth;
    uint8_t opcode, tver;
    bool se, mig, ackreq;
    uint16_t pkey;
    uint32_t dqp, psn;
    /* DETH */
    bool deth;
    uint32_t qkey, sqp;
    /* payload (not owned) */
    const uint8_t *payload;
    size_t payload_len;
} ib_pkt_t;

/* A UD SEND_ONLY packet with DETH and GSI defaults; VL 15 when dqp is 0. */
void ib_pkt_ud(ib_pkt_t *p, uint16_t slid, uint16_t dlid, uint32_t sqp, uint32_t dqp, uint32_t qkey,
               const uint8_t *payload, size_t len);

/* Bytes after the GRH up to the end of the ICRC (0 ICRC bytes when no_bth). */
size_t ib_after_grh_len(const ib_pkt_t *p);
/* Bytes from the first LRH byte to the end of the ICRC (the PktLen span). */
size_t ib_pktlen_bytes(const ib_pkt_t *p);
uint8_t ib_padcnt(const ib_pkt_t *p);

void ib_put_lrh(fb_t *fb, const ib_pkt_t *p);
void ib_put_grh(fb_t *fb, const ib_pkt_t *p);
/* BTH + DETH + payload + pad bytes (or just payload when no_bth). */
void ib_put_transport(fb_t *fb, const ib_pkt_t *p);

/* ---- MAD ---------------------------------------------------------------- */

#define MAD_CLASS_SMP_LID 0x01
#define MAD_CLASS_SA      0x03
#define MAD_CLASS_PERF    0x04
#define MAD_CLASS_CM      0x07
#define MAD_CLASS_SMP_DR  0x81

#define MAD_METHOD_GET     0x01
#define MAD_METHOD_SET     0x02
#define MAD_METHOD_SEND    0x03
#define MAD_METHOD_GETRESP 0x81

#define MAD_STATUS_REDIRECT 0x0002

#define MAD_ATTR_CLASSPORTINFO 0x0001
#define MAD_ATTR_NODEINFO      0x0011
#define MAD_ATTR_PORTCOUNTERS  0x0012
#define MAD_ATTR_PATHRECORD    0x0035

#define MAD_OFF_CM_DATA   24
#define MAD_OFF_SA_DATA   56
#define MAD_OFF_PERF_DATA 64
#define MAD_OFF_SMP_DATA  64

typedef struct mad {
    uint8_t b[MAD_LEN];
} mad_t;

void mad_init(mad_t *m, uint8_t mgmt_class, uint8_t class_ver, uint8_t method, uint16_t status,
              uint64_t tid, uint16_t attr, uint32_t attr_mod);

/* ClassPortInfo, 72 bytes (IBA Vol. 1 chapter 13, ClassPortInfo). */
#define CPI_LEN 72
typedef struct cpi {
    uint8_t base_ver, class_ver;
    uint16_t cap_mask;
    uint32_t cap_mask2; /* 27 bits */
    uint8_t resp_time;  /* 5 bits */
    uint8_t redirect_gid[16];
    uint8_t redirect_tc, redirect_sl;
    uint32_t redirect_fl;
    uint16_t redirect_lid, redirect_pkey;
    uint32_t redirect_qp, redirect_qkey;
    uint8_t trap_gid[16];
    uint16_t trap_lid, trap_pkey;
    uint8_t trap_hl;
    uint32_t trap_qp, trap_qkey;
} cpi_t;
void cpi_put(uint8_t *dst, const cpi_t *c);

/* SA header at MAD 36 (RMPP header at 24 left inactive). */
void sa_put_header(mad_t *m, uint64_t sm_key, uint16_t attr_offset, uint64_t comp_mask);

/* PathRecord, 64 bytes at MAD 56. */
typedef struct path_rec {
    uint8_t dgid[16], sgid[16];
    uint16_t dlid, slid, pkey;
    uint32_t flow;
    uint8_t hop_limit, tclass, sl, mtu, rate, pkt_life;
    bool reversible;
    uint8_t numb_path;
} path_rec_t;
void sa_put_path_record(uint8_t *dst, const path_rec_t *pr);

/* PerfMgt PortCounters at MAD 64 (request: only PortSelect/CounterSelect). */
void perf_put_port_counters(uint8_t *dst, uint8_t port, uint16_t counter_select, bool with_counters,
                            uint32_t seed);

/* SMP NodeInfo data (40 bytes). */
void smp_put_node_info(uint8_t *dst, uint8_t node_type, uint8_t nports, uint64_t sys_guid,
                       uint64_t node_guid, uint64_t port_guid, uint8_t local_port,
                       uint32_t vendor_id);

/* ---- Communication Manager (IBA Vol. 1 chapter 12) --------------------------- */

#define CM_CLASS_VERSION      2
#define CM_ATTR_CLASSPORTINFO 0x0001
#define CM_ATTR_REQ           0x0010
#define CM_ATTR_MRA           0x0011
#define CM_ATTR_REJ           0x0012
#define CM_ATTR_REP           0x0013
#define CM_ATTR_RTU           0x0014
#define CM_ATTR_DREQ          0x0015
#define CM_ATTR_DREP          0x0016
#define CM_ATTR_SIDR_REQ      0x0017
#define CM_ATTR_SIDR_REP      0x0018
#define CM_ATTR_LAP           0x0019
#define CM_ATTR_APR           0x001A

#define CM_REQ_PRIV_OFF      164
#define CM_REQ_PRIV_LEN      92
#define CM_SIDR_REQ_PRIV_OFF 40

typedef struct cm_path {
    uint16_t local_lid, remote_lid;
    uint8_t local_gid[16], remote_gid[16];
    uint32_t flow;
    uint8_t rate, tclass, hop_limit, sl, ack_timeout;
    bool subnet_local;
} cm_path_t;

typedef struct cm_req {
    uint32_t local_comm_id;
    uint64_t service_id, local_ca_guid;
    uint32_t local_qkey, local_qpn, start_psn;
    uint8_t resp_res, init_depth;
    uint8_t remote_cm_timeout, local_cm_timeout, retry_count, tst;
    uint16_t pkey;
    uint8_t mtu, rnr_retry, max_cm_retries;
    bool srq;
    cm_path_t primary;
    bool has_alternate; /* bytes 120-163: the alternate path (APM) */
    cm_path_t alternate;
    const uint8_t *priv; /* up to 92 bytes */
    size_t priv_len;
} cm_req_t;

typedef struct cm_rep {
    uint32_t local_comm_id, remote_comm_id;
    uint32_t local_qkey, local_qpn, start_psn;
    uint8_t resp_res, init_depth, target_ack_delay, failover, rnr_retry;
    bool srq;
    uint64_t local_ca_guid;
} cm_rep_t;

void cm_put_req(mad_t *m, const cm_req_t *r);
void cm_put_rep(mad_t *m, const cm_rep_t *r);
void cm_put_rtu(mad_t *m, uint32_t local, uint32_t remote);
void cm_put_drep(mad_t *m, uint32_t local, uint32_t remote);
void cm_put_dreq(mad_t *m, uint32_t local, uint32_t remote, uint32_t remote_qpn);
void cm_put_mra(mad_t *m, uint32_t local, uint32_t remote, uint8_t msg_mraed,
                uint8_t service_timeout);
/* msg_rejected: 0 REQ, 1 REP, 2 other.  ari may be NULL. */
void cm_put_rej(mad_t *m, uint32_t local, uint32_t remote, uint8_t msg_rejected, uint16_t reason,
                const uint8_t *ari, uint8_t ari_len);
/* LAP: the alternate path proposed for a connection (its own field order,
 * IBA 12.6.13: flow label and traffic class together, then hop limit, rate). */
void cm_put_lap(mad_t *m, uint32_t local, uint32_t remote, uint32_t remote_qpn,
                uint8_t remote_cm_timeout, const cm_path_t *alt);
void cm_put_sidr_req(mad_t *m, uint32_t request_id, uint16_t pkey, uint64_t service_id);
void cm_put_sidr_rep(mad_t *m, uint32_t request_id, uint8_t status, const uint8_t *info,
                     uint8_t info_len, uint32_t qpn, uint64_t service_id, uint32_t qkey);

/* ---- RDMA IP CM service private data (Annex A11) ------------------------ */

#define IPCM_LEN    36
#define RDMA_PS_TCP 0x0106
#define RDMA_PS_UDP 0x0111
#define RDMA_PS_IB  0x013F

typedef struct ipcm {
    uint8_t majv, minv, ipv;
    uint16_t sport;
    uint8_t sip[16], dip[16]; /* IPv4: 12 zero bytes then the address */
} ipcm_t;
void ipcm_put(uint8_t *dst, const ipcm_t *h);
static inline uint64_t ipcm_service_id(uint16_t ps, uint16_t port)
{
    return ((uint64_t)ps << 16) | port; /* e.g. 0x0000000001060000 | port */
}
void ip4_to_16(uint8_t dst[16], uint32_t ip4);

#endif
