/* live_hint.h - why a watched interface may show no RoCE: a NIC that
 * offloads RoCE (its traffic never passes through the kernel, so no packet
 * socket sees it), another RoCEv2 port, iWARP.  Said once when the watch
 * starts and in the status view while no InfiniBand has come. */
#ifndef IBSCOPE_LIVE_HINT_H
#define IBSCOPE_LIVE_HINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where Linux lists network interfaces. */
#define LIVE_SYS_NET "/sys/class/net"

/* The RDMA device (mlx5_0, ...) whose port iface is, from sys_net
 * (LIVE_SYS_NET; a test gives a tree of its own), into dev; false when the
 * interface is no RDMA NIC's (Soft-RoCE's rxe rides on a plain NIC: false). */
bool live_rdma_device(const char *sys_net, const char *iface, char *dev, size_t size);

/* What a watch has seen while no InfiniBand came. */
struct live_quiet {
    const char *iface;
    const char *rdma_dev; /* live_rdma_device's answer, or NULL */
    bool default_filter;  /* only RoCE can pass the filter */
    uint64_t frames;      /* frames that passed it */
    uint16_t other_port;  /* RoCEv2 seen on this UDP port instead; 0: none */
    bool iwarp;           /* frames that start an MPA (iWARP) connection */
};

/* Why there may be no RoCE, in one line (no newline) into buf. */
void live_quiet_hint(const struct live_quiet *q, char *buf, size_t size);

#endif
