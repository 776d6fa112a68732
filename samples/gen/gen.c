/* gen.c - scenario context: framing per link type, clock, notes (see gen.h). */
#include "gen.h"

#include "crc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FRAME_MAX 4096

int gen_open(gen_t *g, const char *path, link_t link, int roce, uint64_t seed)
{
    memset(g, 0, sizeof(*g));
    g->link = link;
    g->roce = roce;
    g->t_us = GEN_EPOCH_US;
    g->step_us = 120;
    g->keep_notes = true;
    g->fallback_notes = true;
    prng_seed(&g->rng, seed);
    return sink_open(&g->sink, path, (int)link);
}

int gen_close(gen_t *g)
{
    int rc = sink_close(&g->sink);
    free(g->notes);
    g->notes = NULL;
    g->nnotes = g->notes_cap = 0;
    return rc;
}

void gen_wait(gen_t *g, uint64_t us)
{
    g->t_us += us;
}

__attribute__((format(printf, 4, 0))) static void gen_vnote(gen_t *g, uint32_t frame, bool fallback,
                                                            const char *fmt, va_list ap)
{
    if (!g->keep_notes || (fallback && !g->fallback_notes))
        return;
    if (g->nnotes == g->notes_cap) {
        size_t cap = g->notes_cap ? g->notes_cap * 2 : 64;
        note_t *n = realloc(g->notes, cap * sizeof(*n));
        if (!n) {
            fprintf(stderr, "ibscope-gen: out of memory\n");
            exit(1);
        }
        g->notes = n;
        g->notes_cap = cap;
    }
    note_t *n = &g->notes[g->nnotes++];
    n->frame = frame;
    n->fallback = fallback;
    vsnprintf(n->text, sizeof(n->text), fmt, ap);
}

void gen_note(gen_t *g, uint32_t frame, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gen_vnote(g, frame, false, fmt, ap);
    va_end(ap);
}

void gen_note_fallback(gen_t *g, uint32_t frame, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gen_vnote(g, frame, true, fmt, ap);
    va_end(ap);
}

static uint32_t gen_put(gen_t *g, const uint8_t *data, size_t caplen, size_t len)
{
    sink_write(&g->sink, g->t_us, data, caplen, len);
    if (g->tap && g->tap_src)
        g->tap(g->tap_ctx, data, caplen, len, g->t_us, g->tap_src, g->tap_dst);
    g->tap_src = g->tap_dst = NULL;
    g->t_us += g->step_us;
    memset(&g->next, 0, sizeof(g->next));
    return g->sink.frames;
}

uint32_t gen_emit_raw(gen_t *g, const uint8_t *data, size_t caplen, size_t len)
{
    return gen_put(g, data, caplen, len);
}

static size_t cut_len(const gen_t *g, size_t full)
{
    return g->next.cut && g->next.cut < full ? g->next.cut : full;
}

static void host_eth(const gen_t *g, const host_t *src, const host_t *dst, eth_opts_t *e)
{
    memset(e, 0, sizeof(*e));
    memcpy(e->src, src->mac, 6);
    memcpy(e->dst, dst->mac, 6);
    e->ntags = g->next.ntags;
    for (int i = 0; i < 2; i++) {
        e->tpid[i] = g->next.tpid[i];
        e->tci[i] = g->next.tci[i];
    }
}

/* The sender's traffic class with this frame's ECN. */
static uint8_t host_tclass(const gen_t *g, const host_t *src)
{
    uint8_t tc = src->wire.set ? src->wire.tclass : 0;
    return g->next.ce ? tc | 3 : tc;
}

/* A GRH from the hosts' GIDs (their IP addresses, IPv4-mapped, when asked)
 * with the sender's class and hop limit, for a packet that has none. */
static void host_grh(const gen_t *g, ib_pkt_t *q, const host_t *src, const host_t *dst)
{
    q->grh = true;
    q->hoplmt = src->wire.set ? src->wire.hops : 1;
    q->tclass = host_tclass(g, src);
    if (src->wire.v4_mapped_gid) {
        gid_v4_mapped(q->sgid, src->ip4);
        gid_v4_mapped(q->dgid, dst->ip4);
    } else {
        memcpy(q->sgid, src->gid, 16);
        memcpy(q->dgid, dst->gid, 16);
    }
}

uint32_t gen_emit_ib(gen_t *g, const ib_pkt_t *p, host_t *src, const host_t *dst)
{
    uint8_t ib[FRAME_MAX], frame[FRAME_MAX + 64];
    size_t n = 0, hdr = 0;

    g->tap_src = src;
    g->tap_dst = dst;

    switch (g->link) {
    case LINK_ERF:
    case LINK_LRH:
    case LINK_USER0: {
        ib_pkt_t q = *p;
        if (!q.grh && src->wire.grh)
            host_grh(g, &q, src, dst);
        n = encap_ib_native(ib, sizeof(ib), &q);
        if (n >= 8 && g->next.bad_icrc && !p->no_bth) {
            ib[n - 6] ^= 0xFF;
            uint16_t v = crc16_ib_final(crc16_ib_update(CRC16_IB_INIT, ib, n - 2));
            ib[n - 2] = (uint8_t)v;
            ib[n - 1] = (uint8_t)(v >> 8);
        }
        if (n >= 2 && g->next.bad_vcrc)
            ib[n - 1] ^= 0xFF;
        size_t keep = cut_len(g, n);
        if (g->link == LINK_ERF) {
            size_t ext = g->next.erf_ext ? 8 : 0;
            hdr = encap_erf_header(frame, sizeof(frame), g->t_us, ERF_TYPE_INFINIBAND,
                                   g->next.erf_ext, (uint16_t)(ERF_HDR_LEN + ext + keep),
                                   (uint16_t)n);
        }
        memcpy(frame + hdr, ib, keep);
        return gen_put(g, frame, hdr + keep, hdr + n);
    }
    case LINK_ETH:
    case LINK_SLL: break;
    }

    uint16_t ethertype;
    if (g->link == LINK_ETH && (g->next.roce ? g->next.roce : g->roce) == 1) {
        ib_pkt_t q = *p;
        if (!q.grh)
            host_grh(g, &q, src, dst);
        n = encap_ib_rocev1(ib, sizeof(ib), &q);
        ethertype = ETHERTYPE_ROCEV1;
    } else {
        ip_opts_t ip;
        memset(&ip, 0, sizeof(ip));
        ip.ver = g->next.ipv6 || src->wire.ipv6 ? 6 : 4;
        ip.src4 = src->ip4;
        ip.dst4 = dst->ip4;
        memcpy(ip.src6, src->ip6, 16);
        memcpy(ip.dst6, dst->ip6, 16);
        ip.tos = host_tclass(g, src);
        ip.ttl = src->wire.set ? src->wire.hops : 64;
        ip.id = src->ip_id++;
        ip.sport = src->udp_sport;
        ip.ihl = g->next.ihl;
        ip.udp_len_adjust = g->next.udp_len_adjust;
        n = encap_ib_rocev2(ib, sizeof(ib), &ip, p);
        ethertype = ip.ver == 6 ? ETHERTYPE_IPV6 : ETHERTYPE_IPV4;
    }
    if (g->link == LINK_SLL) {
        /* captured on the sending host: outgoing */
        hdr = encap_sll_header(frame, sizeof(frame), 4, src->mac, ethertype);
    } else {
        eth_opts_t e;
        host_eth(g, src, dst, &e);
        if (e.ntags == 0 && src->wire.tagged) {
            e.ntags = 1;
            e.tpid[0] = ETHERTYPE_VLAN;
            e.tci[0] = src->wire.tci;
        }
        hdr = encap_eth_header(frame, sizeof(frame), &e, ethertype);
    }
    if (n >= 4 && g->next.bad_icrc)
        ib[n - 4] ^= 0xFF;
    size_t keep = cut_len(g, n);
    memcpy(frame + hdr, ib, keep);
    return gen_put(g, frame, hdr + keep, hdr + n);
}

uint32_t gen_emit_mad(gen_t *g, host_t *src, const host_t *dst, uint32_t sqp, uint32_t dqp,
                      uint32_t qkey, const mad_t *m)
{
    ib_pkt_t p;
    ib_pkt_ud(&p, src->lid, dst->lid, sqp, dqp, qkey, m->b, MAD_LEN);
    p.psn = src->gsi_psn++ & 0xFFFFFF;
    return gen_emit_ib(g, &p, src, dst);
}

void gid_from_guid(uint8_t gid[16], uint64_t prefix, uint64_t guid)
{
    put_be64(gid, prefix);
    put_be64(gid + 8, guid);
}

void gid_v4_mapped(uint8_t gid[16], uint32_t ip4)
{
    memset(gid, 0, 16);
    gid[10] = gid[11] = 0xFF;
    put_be32(gid + 12, ip4);
}

void host_roce_gid(const host_t *h, bool ipv6, uint8_t gid[16])
{
    if (ipv6)
        memcpy(gid, h->ip6, 16);
    else
        gid_v4_mapped(gid, h->ip4);
}

void host_init(host_t *h, const char *name, uint16_t lid, uint64_t port_guid, uint32_t ip4,
               uint16_t ip6_suffix)
{
    memset(h, 0, sizeof(*h));
    h->name = name;
    h->lid = lid;
    h->port_guid = port_guid;
    h->node_guid = port_guid - 1;
    gid_from_guid(h->gid, 0xFE80000000000000ull, port_guid);
    /* MAC: OUI from the GUID's top 24 bits, low 24 bits of the GUID */
    h->mac[0] = (uint8_t)(port_guid >> 56);
    h->mac[1] = (uint8_t)(port_guid >> 48);
    h->mac[2] = (uint8_t)(port_guid >> 40);
    h->mac[3] = (uint8_t)(port_guid >> 16);
    h->mac[4] = (uint8_t)(port_guid >> 8);
    h->mac[5] = (uint8_t)port_guid;
    h->ip4 = ip4;
    /* fd00:10::<suffix> */
    memset(h->ip6, 0, 16);
    h->ip6[0] = 0xFD;
    h->ip6[3] = 0x10;
    put_be16(h->ip6 + 14, ip6_suffix);
    h->hi_tid = (uint32_t)(0x0000002Au + (lid & 0xFF));
    h->gsi_psn = (uint32_t)(lid * 0x1000u) & 0xFFFFFF;
    h->ip_id = (uint16_t)(0x4000u + lid * 0x100u);
    h->udp_sport = (uint16_t)(0xC000u | ((lid * 0x0101u) & 0x3FFF));
}
