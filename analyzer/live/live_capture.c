/* live_capture.c - libpcap's live capture, set up for watching RoCE. */
#include "live_capture.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A big kernel ring: bursts of CM traffic are short and dense. */
#define LIVE_CAPTURE_BUFFER_BYTES (64 << 20)

struct live_capture {
    pcap_t *pcap;
    int linktype;
    uint64_t frame_no;
    char *filter;                   /* the filter in use, "" for none */
    bool nanoseconds;               /* tv_usec holds nanoseconds */
    struct live_capture_stats last; /* libpcap's 32-bit counters, widened */
    uint32_t raw_received, raw_dropped, raw_if_dropped;
    live_frame_fn fn;
    void *ctx;
};

static void say(char err[LIVE_CAPTURE_ERROR_MAX], const char *iface, const char *what)
{
    snprintf(err, LIVE_CAPTURE_ERROR_MAX, "%.100s: %.400s", iface, what);
}

/* libpcap's activate codes in words a user can act on. */
static void say_activate_error(char err[LIVE_CAPTURE_ERROR_MAX], pcap_t *p, const char *iface,
                               int rc)
{
    char what[LIVE_CAPTURE_ERROR_MAX];
    const char *detail = pcap_geterr(p);
    switch (rc) {
    case PCAP_ERROR_NO_SUCH_DEVICE:
        snprintf(what, sizeof what, "no such interface (see 'ip link')");
        break;
    case PCAP_ERROR_PERM_DENIED:
        snprintf(what, sizeof what, "permission denied: capturing needs root or CAP_NET_RAW (%s)",
                 detail);
        break;
    case PCAP_ERROR_IFACE_NOT_UP:
        snprintf(what, sizeof what, "the interface is down (ip link set %s up)", iface);
        break;
    default: snprintf(what, sizeof what, "%s", *detail ? detail : pcap_statustostr(rc));
    }
    say(err, iface, what);
}

static bool is_ethernet(int linktype)
{
    return linktype == DLT_EN10MB;
}

/* RoCEv2 (UDP to port) and RoCEv1 (ethertype 0x8915), untagged, under one
 * VLAN tag, or under two.  Linux takes the outer tag off before the filter
 * runs (libpcap puts it back in the frame), so a single tag is matched with
 * libpcap's "vlan", and the inner tag of a double-tagged frame by offset.
 * "vlan" shifts the offsets of everything after it, so it comes last. */
#define DEFAULT_FILTER_MAX 512

static void default_roce_filter(char *buf, size_t size, unsigned port)
{
    char roce[64];
    snprintf(roce, sizeof roce, "udp port %u or ether proto 0x8915", port);
    snprintf(buf, size,
             "%s or (ether[12:2] = 0x8100 and ("
             "(ether[16:2] = 0x0800 and ether[27] = 17 and "
             "ether[20 + (ether[18] & 15) * 4:2] = %u) or "
             "(ether[16:2] = 0x86dd and ether[24] = 17 and ether[60:2] = %u) or "
             "ether[16:2] = 0x8915)) or (vlan and (%s))",
             roce, port, port, roce);
}

static bool set_filter(struct live_capture *lc, const struct live_capture_config *cfg,
                       char err[LIVE_CAPTURE_ERROR_MAX])
{
    size_t size = cfg->filter ? strlen(cfg->filter) + 1 : DEFAULT_FILTER_MAX;
    lc->filter = malloc(size);
    if (!lc->filter) {
        say(err, cfg->iface, "out of memory");
        return false;
    }
    lc->filter[0] = '\0';
    if (cfg->filter)
        memcpy(lc->filter, cfg->filter, size);
    else if (is_ethernet(lc->linktype))
        default_roce_filter(lc->filter, size, cfg->rocev2_port);
    if (!lc->filter[0])
        return true;
    /* libpcap 1.10's optimizer turns the default filter into a program
     * Linux refuses (EINVAL), and libpcap then filters in user space, after
     * putting the VLAN tag back, where the offsets differ.  Unoptimized it
     * is a few instructions longer and runs in the kernel. */
    int optimize = cfg->filter != NULL;
    struct bpf_program prog;
    if (pcap_compile(lc->pcap, &prog, lc->filter, optimize, PCAP_NETMASK_UNKNOWN) != 0) {
        char what[LIVE_CAPTURE_ERROR_MAX];
        snprintf(what, sizeof what, "filter '%.200s%s': %s", lc->filter,
                 strlen(lc->filter) > 200 ? "..." : "", pcap_geterr(lc->pcap));
        say(err, cfg->iface, what);
        return false;
    }
    int rc = pcap_setfilter(lc->pcap, &prog);
    pcap_freecode(&prog);
    if (rc != 0) {
        say(err, cfg->iface, pcap_geterr(lc->pcap));
        return false;
    }
    return true;
}

struct live_capture *live_capture_open(const struct live_capture_config *cfg,
                                       char err[LIVE_CAPTURE_ERROR_MAX])
{
    char errbuf[PCAP_ERRBUF_SIZE] = "";
    struct live_capture *lc = calloc(1, sizeof(*lc));
    if (!lc) {
        say(err, cfg->iface, "out of memory");
        return NULL;
    }
    lc->pcap = pcap_create(cfg->iface, errbuf);
    if (!lc->pcap) {
        say(err, cfg->iface, errbuf);
        free(lc);
        return NULL;
    }
    /* These fail only on an activated handle; say so if they ever do. */
    int rc = pcap_set_snaplen(lc->pcap, LIVE_CAPTURE_SNAPLEN);
    if (rc == 0)
        rc = pcap_set_promisc(lc->pcap, 1);
    if (rc == 0)
        rc = pcap_set_timeout(lc->pcap, LIVE_CAPTURE_TIMEOUT_MS);
    if (rc == 0)
        rc = pcap_set_buffer_size(lc->pcap, LIVE_CAPTURE_BUFFER_BYTES);
    if (rc != 0) {
        say(err, cfg->iface, pcap_statustostr(rc));
        live_capture_close(lc);
        return NULL;
    }
    /* Nanoseconds where the interface has them, else microseconds. */
    lc->nanoseconds = pcap_set_tstamp_precision(lc->pcap, PCAP_TSTAMP_PRECISION_NANO) == 0;
    rc = pcap_activate(lc->pcap);
    if (rc < 0) {
        say_activate_error(err, lc->pcap, cfg->iface, rc);
        live_capture_close(lc);
        return NULL;
    }
    lc->linktype = pcap_datalink(lc->pcap);
    if (!set_filter(lc, cfg, err)) {
        live_capture_close(lc);
        return NULL;
    }
    if (pcap_setnonblock(lc->pcap, 1, errbuf) != 0) {
        say(err, cfg->iface, errbuf);
        live_capture_close(lc);
        return NULL;
    }
    return lc;
}

void live_capture_close(struct live_capture *lc)
{
    if (!lc)
        return;
    if (lc->pcap)
        pcap_close(lc->pcap);
    free(lc->filter);
    free(lc);
}

int live_capture_linktype(const struct live_capture *lc)
{
    return lc->linktype;
}

const char *live_capture_filter(const struct live_capture *lc)
{
    return lc->filter ? lc->filter : "";
}

int live_capture_fd(const struct live_capture *lc)
{
    return pcap_get_selectable_fd(lc->pcap);
}

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *data)
{
    struct live_capture *lc = (struct live_capture *)user;
    struct capture_frame fr = {
        .capture = 0,
        .frame = ++lc->frame_no,
        .time_ns = (int64_t)h->ts.tv_sec * 1000000000 +
                   (int64_t)h->ts.tv_usec * (lc->nanoseconds ? 1 : 1000),
        .linktype = lc->linktype,
        .data = data,
        .caplen = h->caplen,
        .wirelen = h->len,
    };
    lc->fn(lc->ctx, &fr);
}

int live_capture_dispatch(struct live_capture *lc, int max, live_frame_fn fn, void *ctx,
                          char err[LIVE_CAPTURE_ERROR_MAX])
{
    lc->fn = fn;
    lc->ctx = ctx;
    int n = pcap_dispatch(lc->pcap, max > 0 ? max : -1, on_packet, (u_char *)lc);
    if (n == PCAP_ERROR) {
        snprintf(err, LIVE_CAPTURE_ERROR_MAX, "%s", pcap_geterr(lc->pcap));
        return -1;
    }
    return n < 0 ? 0 : n; /* PCAP_ERROR_BREAK: nothing more now */
}

/* libpcap's counters are 32 bits and wrap: add the difference. */
static void widen(uint64_t *total, uint32_t *raw, uint32_t now)
{
    *total += (uint32_t)(now - *raw);
    *raw = now;
}

void live_capture_stats(struct live_capture *lc, struct live_capture_stats *st)
{
    struct pcap_stat ps;
    if (pcap_stats(lc->pcap, &ps) == 0) {
        widen(&lc->last.received, &lc->raw_received, ps.ps_recv);
        widen(&lc->last.dropped, &lc->raw_dropped, ps.ps_drop);
        widen(&lc->last.if_dropped, &lc->raw_if_dropped, ps.ps_ifdrop);
    }
    *st = lc->last;
}
