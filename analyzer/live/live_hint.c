/* live_hint.c - why a watched interface may show no RoCE (live_hint.h). */
#include "live_hint.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

bool live_rdma_device(const char *sys_net, const char *iface, char *dev, size_t size)
{
    char path[4096];
    /* an RDMA NIC's PCI function lists its RDMA devices beside its netdevs */
    int n = snprintf(path, sizeof path, "%s/%s/device/infiniband", sys_net, iface);
    if (n < 0 || (size_t)n >= sizeof path || strchr(iface, '/'))
        return false;
    DIR *d = opendir(path);
    if (!d)
        return false;
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(dev, size, "%s", e->d_name);
        found = true;
    }
    closedir(d);
    return found;
}

void live_quiet_hint(const struct live_quiet *q, char *buf, size_t size)
{
    if (q->other_port)
        snprintf(buf, size, "RoCEv2 is on UDP port %u here: watch with --rocev2-port %u",
                 (unsigned)q->other_port, (unsigned)q->other_port);
    else if (q->iwarp)
        snprintf(buf, size, "this is iWARP (MPA over TCP), which ibscope does not analyse");
    else if (q->rdma_dev)
        snprintf(buf, size,
                 "%s is a port of %s, whose RoCE bypasses the kernel: capture it another way "
                 "(docs/live.md, Capturing on real hardware)",
                 q->iface, q->rdma_dev);
    else if (q->default_filter)
        snprintf(buf, size,
                 "no RoCE reached the kernel here (RoCE a NIC offloads bypasses it: "
                 "docs/live.md, Capturing on real hardware)");
    else
        snprintf(buf, size,
                 "none of %" PRIu64 " frames is RoCE (RoCEv2 on another port? a NIC that "
                 "offloads RoCE? docs/live.md)",
                 q->frames);
}
