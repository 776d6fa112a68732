/* fabric.c - each host's capture of one exchange (fabric.h). */
#include "fabric.h"

#include <stdio.h>
#include <string.h>

#include "crc.h"
#include "encap.h"

#define ETH_HDR 14

static int host_of(const fabric_t *f, const host_t *h)
{
    for (int i = 0; i < f->nhosts; i++)
        if (f->hosts[i].host == h)
            return i;
    return -1;
}

/* Native IB (LRH first): the switch puts the packet on another VL (SL to
 * VL mapping), and the VCRC, which covers the LRH, is made again. */
static void switch_native(uint8_t *fr, size_t caplen)
{
    if (caplen < 8 + 2)
        return;
    if (fr[0] >> 4 != 15) /* VL15 (subnet management) stays */
        fr[0] ^= 0x10;
    uint16_t v = crc16_ib_final(crc16_ib_update(CRC16_IB_INIT, fr, caplen - 2));
    fr[caplen - 2] = (uint8_t)v;
    fr[caplen - 1] = (uint8_t)(v >> 8);
}

/* What the router changes: its own source MAC, TTL - 1, ECN on every third
 * packet; the IPv4 header checksum follows.  Native IB: the switch's VL. */
static void route(fabric_t *f, uint8_t *fr, size_t caplen)
{
    if (f->link == LINK_LRH) {
        switch_native(fr, caplen);
        return;
    }
    if (caplen < ETH_HDR + 20)
        return;
    memcpy(fr + 6, f->router_mac, 6);
    uint8_t *ip = fr + ETH_HDR;
    uint16_t type = (uint16_t)(fr[12] << 8 | fr[13]);
    bool ecn = f->forwarded++ % 3 == 0;
    if (type == ETHERTYPE_IPV4) {
        ip[8]--;
        if (ecn)
            ip[1] |= 0x03;
        ip[10] = ip[11] = 0;
        uint16_t sum = inet_checksum(ip, (size_t)(ip[0] & 0x0F) * 4, 0);
        ip[10] = (uint8_t)(sum >> 8);
        ip[11] = (uint8_t)sum;
    } else if (type == ETHERTYPE_IPV6 && caplen >= ETH_HDR + 40) {
        ip[7]--;
        if (ecn)
            ip[1] |= 0x30;
    }
}

static void tap(void *ctx, const uint8_t *data, size_t caplen, size_t len, uint64_t t_us,
                const host_t *src, const host_t *dst)
{
    fabric_t *f = ctx;
    int s = host_of(f, src), d = host_of(f, dst);
    uint32_t sent = 0;
    if (s >= 0 && t_us >= f->hosts[s].start_us) {
        sink_write(&f->hosts[s].sink, t_us + (uint64_t)f->hosts[s].offset_us, data, caplen, len);
        sent = f->hosts[s].sink.frames;
    }
    uint64_t arrive = t_us + f->delay_us + prng_below(&f->rng, f->jitter_us + 1);
    bool capturing = d >= 0 && arrive >= f->hosts[d].start_us;
    if (f->lose_next) {
        f->lose_next = false;
        if (f->nlosses < FABRIC_LOSSES_MAX && s >= 0 && d >= 0) {
            fabric_loss_t *l = &f->losses[f->nlosses++];
            l->from = (uint32_t)s;
            l->to = (uint32_t)d;
            l->frame = sent;
            l->seen = capturing;
            snprintf(l->what, sizeof l->what, "%s", f->lose_what);
        }
        return;
    }
    if (!capturing)
        return;
    uint8_t fr[4200];
    if (caplen > sizeof fr)
        return;
    memcpy(fr, data, caplen);
    route(f, fr, caplen);
    sink_write(&f->hosts[d].sink, arrive + (uint64_t)f->hosts[d].offset_us, fr, caplen, len);
}

int fabric_open(fabric_t *f, gen_t *g, const char *outdir, host_t *const *hosts,
                const int64_t *offsets_us, const uint64_t *starts_us, int n)
{
    static const char *const names[FABRIC_HOSTS_MAX] = { "a", "b", "c" };
    memset(f, 0, sizeof *f);
    f->nhosts = n;
    f->delay_us = 20;
    f->jitter_us = 15;
    memcpy(f->router_mac, (const uint8_t[6]){ 0x02, 0x00, 0x5E, 0x00, 0x00, 0xFE }, 6);
    prng_seed(&f->rng, 28);
    static char paths[FABRIC_HOSTS_MAX][4096];
    for (int i = 0; i < n; i++) {
        fabric_host_t *h = &f->hosts[i];
        h->host = hosts[i];
        h->offset_us = offsets_us[i];
        h->start_us = starts_us[i];
        snprintf(paths[i], sizeof paths[i], "%s/%s.pcap", outdir, names[i]);
        if (sink_open(&h->sink, paths[i], (int)g->link) != 0)
            return -1;
    }
    f->link = g->link;
    g->tap = tap;
    g->tap_ctx = f;
    return 0;
}

void fabric_lose_next(fabric_t *f, const char *what)
{
    f->lose_next = true;
    f->lose_what = what;
}

int fabric_close(fabric_t *f, const char *outdir, uint64_t connections)
{
    int rc = 0;
    for (int i = 0; i < f->nhosts; i++)
        rc |= sink_close(&f->hosts[i].sink);
    char path[4200];
    snprintf(path, sizeof path, "%s/truth.tsv", outdir);
    FILE *t = fopen(path, "w");
    if (!t) {
        perror(path);
        return -1;
    }
    fprintf(t, "connections\t%llu\n", (unsigned long long)connections);
    fprintf(t, "delay_us\t%u\t%u\n", f->delay_us, f->delay_us + f->jitter_us);
    for (int i = 0; i < f->nhosts; i++)
        fprintf(t, "capture\t%d\t%lld\t%llu\t%u\n", i, (long long)f->hosts[i].offset_us,
                (unsigned long long)f->hosts[i].start_us, f->hosts[i].sink.frames);
    for (int i = 0; i < f->nlosses; i++) {
        const fabric_loss_t *l = &f->losses[i];
        fprintf(t, "lost\t%u\t%u\t%u\t%d\t%s\n", l->from, l->frame, l->to, l->frame && l->seen,
                l->what);
    }
    if (fclose(t) != 0) {
        perror(path);
        rc = -1;
    }
    return rc;
}
