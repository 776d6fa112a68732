/* cm_kernel.h - ibscope-gen cm-kernel: one capture per case of
 * docs/cm-model.md, each sent on the Linux kernel's timing (drivers/infiniband/core
 * cm.c, cma.c), and truth.tsv: what ibscope must report of each, derived
 * here from the kernel's rules as the row plays them, never from ibscope.
 *
 * A row sends its messages through cmk_send(), which counts every message
 * sent again for the same connection (a retransmission, whatever the
 * message), and says its outcomes (established, given up, ...) with
 * cmk_set(), naming the kernel function each follows.
 */
#ifndef IBSCOPE_GEN_CM_KERNEL_H
#define IBSCOPE_GEN_CM_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "cm_flow.h"
#include "gen.h"
#include "portspace.h"

/* rdma_cm's defaults (cma.c) and the path's packet lifetime. */
#define CMA_CM_RESPONSE_TIMEOUT  20
#define CMA_MAX_CM_RETRIES       15
#define CMA_IBOE_PACKET_LIFETIME 16 /* RoCE: cma_resolve_iboe_route */
#define IB_PACKET_LIFETIME       18 /* native IB: the SA's path record, as chosen here */
#define CM_SENDS                 (1 + CMA_MAX_CM_RETRIES) /* ib_post_send_mad: retries */

/* cm_convert_to_ms: 4.096 us x 2^t, rounded to a power of two ms. */
static inline uint64_t cm_ms(unsigned t)
{
    return 1ull << (t > 8 ? t - 8 : 0);
}

/* ib_send_cm_req: the active side's wait for an answer to its REQ, and to
 * its DREQ and LAP (the same cm_id_priv->timeout_ms), in microseconds. */
static inline uint64_t cm_active_wait_us(unsigned packet_life)
{
    return (2 * cm_ms(packet_life) + cm_ms(CMA_CM_RESPONSE_TIMEOUT)) * 1000;
}

/* cm_req_handler: the passive side's wait (its REP, its DREQ), from the
 * REQ's LocalCMResponseTimeout. */
static inline uint64_t cm_passive_wait_us(void)
{
    return cm_ms(CMA_CM_RESPONSE_TIMEOUT) * 1000;
}

typedef enum cmk_msg {
    CMK_REQ,
    CMK_MRA,
    CMK_REJ,
    CMK_REP,
    CMK_RTU,
    CMK_DREQ,
    CMK_DREP,
    CMK_LAP,
    CMK_APR,
    CMK_SIDR_REQ,
    CMK_SIDR_REP,
    CMK_NMSG
} cmk_msg_t;

/* truth.tsv's keys, in the order written. */
typedef enum cmk_key {
    K_REQUESTS,
    K_ESTABLISHED,
    K_REJECTED,
    K_CLOSED,
    K_UNREACHABLE,
    K_DISCONNECT_TIMEOUTS,
    K_WAITING_AT_END,
    K_RETRANSMISSIONS,
    K_RETX_FIRST, /* + cmk_msg_t */
    K_DUPLICATE_TUPLE = K_RETX_FIRST + CMK_NMSG,
    K_PORT_REUSED,
    K_POOL_HIGH,
    K_F_UNREACHABLE,
    K_EXPLICIT_PORT_SHARED,
    K_PATH_IGNORED,
    K_PORTS_IN_USE_AT_END,
    K_PEAK_PORTS_IN_USE,
    K_HOST_PEAK_PORTS_IN_USE,
    K_HOST_ADDRESSES,
    K_NKEYS
} cmk_key_t;

/* A connection and how often each of its messages went out. */
typedef struct cmk_conn {
    cm_conn_t c;
    uint32_t sent[CMK_NMSG];
} cmk_conn_t;

typedef struct cmk {
    gen_t *g;
    uint32_t retx[CMK_NMSG];
    long val[K_NKEYS];
    const char *why[K_NKEYS];
    bool set[K_NKEYS], omit[K_NKEYS];
    char options[64];
    const char *vantage, *vantage_why;
} cmk_t;

typedef struct cmk_row {
    const char *name, *title;
    link_t link;
    void (*run)(cmk_t *k);
} cmk_row_t;

extern const cmk_row_t cmk_rows[];
extern const size_t n_cmk_rows;

/* Sets the clock to t_us after the capture's start (never backwards). */
void cmk_at(cmk_t *k, uint64_t t_us);
uint64_t cmk_now(const cmk_t *k);
/* Sends msg of kc (from_active: DREQ, DREP; reason: REJ) and counts it. */
uint32_t cmk_send(cmk_t *k, cmk_conn_t *kc, cmk_msg_t msg, bool from_active, uint16_t reason);
/* A key's value and the kernel function(s) it follows. */
void cmk_set(cmk_t *k, cmk_key_t key, long value, const char *why);
/* The why of a key whose value is counted (retransmissions, ports). */
void cmk_why(cmk_t *k, cmk_key_t key, const char *why);
/* The pool keys from a host's port space. */
void cmk_ports(cmk_t *k, const portspace_t *ps, const char *why_end, const char *why_peak);

/* OUTDIR/<row>.pcap for each row and OUTDIR/truth.tsv; 0, or -1 said. */
int cm_kernel_write(const char *outdir);

#endif
