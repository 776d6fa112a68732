/* live_capture.h - frames from a network interface through libpcap.
 *
 * RoCEv1 and RoCEv2 on Ethernet, and native InfiniBand where libpcap lists
 * an RDMA interface.  On Ethernet the default filter keeps RoCE only; other
 * link types are captured whole unless a filter is given.  Frames are
 * handed over in batches as the kernel delivers them (at least every
 * LIVE_CAPTURE_TIMEOUT_MS), stamped in nanoseconds. */
#ifndef IBSCOPE_LIVE_CAPTURE_H
#define IBSCOPE_LIVE_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "capture_reader.h"

#define LIVE_CAPTURE_TIMEOUT_MS 100
#define LIVE_CAPTURE_SNAPLEN    262144
#define LIVE_CAPTURE_ERROR_MAX  512

struct live_capture_config {
    const char *iface;
    const char *filter; /* NULL: the default for the link type */
    uint16_t rocev2_port;
};

struct live_capture;

/* Opens and activates the interface.  NULL with a one-line reason in err
 * (no such interface, no permission, a filter that does not compile). */
struct live_capture *live_capture_open(const struct live_capture_config *cfg,
                                       char err[LIVE_CAPTURE_ERROR_MAX]);
void live_capture_close(struct live_capture *lc);

int live_capture_linktype(const struct live_capture *lc);
/* The filter in use ("" for none). */
const char *live_capture_filter(const struct live_capture *lc);
/* A descriptor to poll for frames. */
int live_capture_fd(const struct live_capture *lc);

typedef void (*live_frame_fn)(void *ctx, const struct capture_frame *fr);

/* Hands every frame waiting now to fn (at most max, 0 = all), without
 * blocking.  Returns the count, or -1 with the reason in err. */
int live_capture_dispatch(struct live_capture *lc, int max, live_frame_fn fn, void *ctx,
                          char err[LIVE_CAPTURE_ERROR_MAX]);

/* libpcap's counts since opening: frames the kernel passed the filter
 * (received), dropped for want of buffer space, dropped by the interface. */
struct live_capture_stats {
    uint64_t received, dropped, if_dropped;
};
void live_capture_stats(struct live_capture *lc, struct live_capture_stats *st);

#endif
