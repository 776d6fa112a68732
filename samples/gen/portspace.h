/* portspace.h - one host's ephemeral ports as Linux rdma_cm hands them out:
 * one bind list per port of a network namespace (cma_ps_find), whatever the
 * local address, drawn by cma_alloc_any_port and freed at rdma_destroy_id
 * (cma_release_port).
 *
 * Every id of ibscope-gen cm-kernel that takes a port here either goes to
 * the same destination (address and port) as the others or was bound with
 * rdma_bind_addr(port 0) before the destination was known, so
 * cma_port_is_unique never lets two of them share a port: a port is free or
 * held by one id.  It also keeps what ibscope reports of the pool: the ports
 * held, their peak and the pool_high findings (at --threshold 90 %, again
 * only after falling 5 % of the pool below).
 */
#ifndef IBSCOPE_GEN_PORTSPACE_H
#define IBSCOPE_GEN_PORTSPACE_H

#include <stdbool.h>
#include <stdint.h>

#include "prng.h"

typedef struct portspace {
    uint16_t lo, hi;           /* ip_local_port_range, inclusive */
    uint32_t last;             /* cma_alloc_any_port's last_used_port; 0: none yet */
    uint64_t held[65536 / 64]; /* by port number */
    uint32_t in_use, peak;
    uint32_t pool_high; /* findings */
    bool high_armed;
} portspace_t;

void portspace_init(portspace_t *ps, uint16_t lo, uint16_t hi);
/* cma_alloc_any_port: a random rover in the range, walking up and wrapping,
 * passing over the last port handed out; the port, or 0 (EADDRNOTAVAIL:
 * the connect fails before anything is sent). */
uint16_t portspace_alloc(portspace_t *ps, prng_t *rng);
/* cma_release_port, at rdma_destroy_id. */
void portspace_release(portspace_t *ps, uint16_t port);

#endif
