/* cm_flow.h - one rdma_cm connection (or SIDR exchange) as a sequence of CM MADs.
 *
 * TIDs follow Linux ib_cm: the active side's messages carry
 * (agent hi_tid << 32 | LocalCommID); the passive side answers REQ with the
 * REQ's TID; DREP/SIDR_REP reuse the request's TID.
 */
#ifndef IBSCOPE_GEN_CM_FLOW_H
#define IBSCOPE_GEN_CM_FLOW_H

#include "gen.h"

/* The RC budget a REQ and REP announce (ibscope-gen rc); a connection
 * without one carries rdma_cm's: retry 7, RNR retry 7, TargetACKDelay 15,
 * the link's MTU. */
typedef struct cm_budget {
    uint8_t retry_count, req_rnr_retry, rep_rnr_retry; /* 3 bits each */
    uint8_t ack_timeout;                               /* PrimaryLocalACKTimeout */
    uint8_t mtu;                                       /* PathMTU code, 1=256 .. 5=4096 */
    uint8_t target_ack_delay;
} cm_budget_t;

typedef struct cm_conn {
    const char *name; /* for the frame notes, e.g. "A" (may be NULL) */
    host_t *act, *pas;
    bool ipv6; /* IP CM addresses, and the RoCEv2 network, are IPv6 */
    uint16_t ps, sport, dport;
    uint32_t act_id, pas_id;
    uint32_t act_qpn, pas_qpn, act_psn, pas_psn;
    uint64_t req_tid, dreq_tid;
    uint32_t req_frame, dreq_frame; /* last REQ / DREQ sent */
    /* VLAN tags used on Ethernet links */
    int ntags;
    uint16_t tpid[2], tci[2];
    /* Path timing: the REQ's PrimaryLocalACKTimeout is packet_life + 1, as the
     * kernel's cm_ack_timeout() gives it with a CA ACK delay of 0; 0 keeps 19. */
    uint8_t pkt_life;
    /* Native IB: the alternate path of the REQ (automatic path migration),
     * the two hosts' second ports; NULL for none. */
    host_t *alt_act, *alt_pas;
    const cm_budget_t *budget; /* NULL: rdma_cm's defaults */
    /* IP CM header overrides (malformed samples) */
    uint8_t ipcm_majv, ipcm_ipv; /* 0: use 0 / 4-or-6 */
} cm_conn_t;

void cm_conn_init(gen_t *g, cm_conn_t *c, host_t *act, host_t *pas, uint16_t ps, uint16_t sport,
                  uint16_t dport, bool ipv6);
uint64_t cm_conn_service_id(const cm_conn_t *c);
/* "10.0.0.11:40001 -> 10.0.0.12:7471" */
const char *cm_conn_tuple(const cm_conn_t *c, char *buf, size_t len);

/* Each returns the frame number. */
void cm_build_req(gen_t *g, const cm_conn_t *c, mad_t *m);
uint32_t cm_req(gen_t *g, cm_conn_t *c);
uint32_t cm_rep(gen_t *g, cm_conn_t *c);
uint32_t cm_rtu(gen_t *g, cm_conn_t *c);
uint32_t cm_mra(gen_t *g, cm_conn_t *c, uint8_t msg_mraed, uint8_t timeout);
/* passive side rejects the REQ */
uint32_t cm_rej(gen_t *g, cm_conn_t *c, uint16_t reason, const uint8_t *ari, uint8_t ari_len);
uint32_t cm_dreq(gen_t *g, cm_conn_t *c, bool from_active);
uint32_t cm_drep(gen_t *g, cm_conn_t *c, bool from_active);
/* LAP from the active side proposing the path from alt_act to alt_pas. */
uint32_t cm_lap(gen_t *g, cm_conn_t *c);
uint32_t cm_sidr_req(gen_t *g, cm_conn_t *c);
uint32_t cm_sidr_rep(gen_t *g, cm_conn_t *c, uint8_t status, const uint8_t *info, uint8_t info_len,
                     uint32_t qkey);

#endif
