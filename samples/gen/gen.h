/* gen.h - scenario context: link framing, clock, frame numbers and the notes
 * ("frame N: what an analyzer should conclude") every scenario records.
 *
 * A scenario is written once against hosts and MADs; the context decides how
 * each packet is framed (native IB in ERF / raw LRH / DLT_USER0, RoCEv1,
 * RoCEv2 over Ethernet or Linux cooked), so the same story can be written to
 * several link types.
 */
#ifndef IBSCOPE_GEN_GEN_H
#define IBSCOPE_GEN_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "encap.h"
#include "ib_headers.h"
#include "prng.h"
#include "sink.h"

/* 2026-01-01T00:00:00Z */
#define GEN_EPOCH_US (1767225600ull * 1000000ull)

typedef enum link {
    LINK_ERF = 197,   /* ERF type 21 */
    LINK_LRH = 247,   /* DLT_INFINIBAND, LRH first */
    LINK_USER0 = 147, /* DLT_USER0, LRH first */
    LINK_ETH = 1,     /* RoCEv1 or RoCEv2 */
    LINK_SLL = 113,   /* Linux cooked, RoCEv2 */
} link_t;

/* What a host's configuration puts on every packet it sends (ibscope-gen
 * wire, wire.h); all zero: what the other scenarios send (DSCP 0, Not-ECT,
 * TTL 64, no tag, a RoCEv1 GRH with link-local GIDs and hop limit 1). */
typedef struct host_wire {
    bool set;       /* tclass and hops below apply */
    uint8_t tclass; /* DSCP << 2 | ECN: IP DS field, IPv6 and GRH traffic class */
    uint8_t hops;   /* IP TTL, IPv6 and GRH hop limit */
    bool tagged;    /* one 802.1Q tag of this TCI (priority << 13 | VID) */
    uint16_t tci;
    bool grh;           /* native IB: every packet global (a GRH from the port GIDs) */
    bool v4_mapped_gid; /* RoCEv1: the GRH's GIDs the IPv4-mapped IP addresses */
    bool ipv6;          /* RoCEv2 over IPv6 (the host's ip6) */
} host_wire_t;

typedef struct host {
    const char *name;
    uint16_t lid;
    uint64_t node_guid, port_guid;
    uint8_t gid[16]; /* native IB / RoCEv1 port GID */
    uint8_t mac[6];
    uint32_t ip4;
    uint8_t ip6[16];
    uint32_t hi_tid;  /* MAD agent's TID high half */
    uint32_t gsi_psn; /* next BTH PSN on QP1 */
    uint16_t ip_id;
    uint16_t udp_sport;
    host_wire_t wire;
} host_t;

typedef struct note {
    uint32_t frame;
    bool fallback; /* printed only when the frame has no other note */
    char text[640];
} note_t;

/* Knobs that apply to the next emitted frame only. */
typedef struct frame_knobs {
    int ntags;
    uint16_t tpid[2], tci[2];
    bool ipv6;    /* RoCEv2 over IPv6 */
    size_t cut;   /* captured bytes of the IB part (0 = all) */
    bool erf_ext; /* ERF extension header */
    uint8_t ihl;  /* IPv4 IHL override */
    int udp_len_adjust;
    bool bad_icrc;    /* flip the ICRC (VCRC recomputed over it) */
    bool bad_vcrc;    /* flip the VCRC */
    uint8_t erf_type; /* 0: ERF type 21 */
    bool ce;          /* the ECN field says CE (congestion experienced) */
    int roce;         /* LINK_ETH: 1 or 2 for this frame (0: the context's) */
} frame_knobs_t;

typedef struct gen {
    sink_t sink;
    link_t link;
    int roce;         /* LINK_ETH: 1 or 2 */
    uint64_t t_us;    /* timestamp of the next frame */
    uint32_t step_us; /* default gap between frames */
    prng_t rng;
    note_t *notes;
    size_t nnotes, notes_cap;
    bool keep_notes;
    bool fallback_notes; /* helpers (cm_flow) describe every frame they send */
    frame_knobs_t next;
    /* ibscope-gen fabric (fabric.h): every packet is also handed to the tap
     * with its hosts, which writes each host's own capture of it. */
    void (*tap)(void *ctx, const uint8_t *data, size_t caplen, size_t len, uint64_t t_us,
                const host_t *src, const host_t *dst);
    void *tap_ctx;
    const host_t *tap_src, *tap_dst; /* the packet being emitted */
} gen_t;

/* path NULL: count frames and collect notes only. Returns 0 or -1. */
int gen_open(gen_t *g, const char *path, link_t link, int roce, uint64_t seed);
int gen_close(gen_t *g);

void gen_wait(gen_t *g, uint64_t us);
void gen_note(gen_t *g, uint32_t frame, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A note used only if the scenario gives the frame no note of its own. */
void gen_note_fallback(gen_t *g, uint32_t frame, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Frame an IBA packet from src to dst per g->link.  For RoCE the LRH fields
 * are not on the wire; RoCEv1 gets a GRH from the hosts' GIDs when p has none.
 * Returns the 1-based frame number. */
uint32_t gen_emit_ib(gen_t *g, const ib_pkt_t *p, host_t *src, const host_t *dst);
/* A MAD as UD SEND_ONLY with DETH between (sqp -> dqp). */
uint32_t gen_emit_mad(gen_t *g, host_t *src, const host_t *dst, uint32_t sqp, uint32_t dqp,
                      uint32_t qkey, const mad_t *m);
/* Link-level bytes as they are (caller builds everything). */
uint32_t gen_emit_raw(gen_t *g, const uint8_t *data, size_t caplen, size_t len);

/* Host helpers. */
void host_init(host_t *h, const char *name, uint16_t lid, uint64_t port_guid, uint32_t ip4,
               uint16_t ip6_suffix);
void gid_from_guid(uint8_t gid[16], uint64_t prefix, uint64_t guid);
void gid_v4_mapped(uint8_t gid[16], uint32_t ip4);
/* GID a RoCEv2 REQ carries for this host (IPv4-mapped or the IPv6 address). */
void host_roce_gid(const host_t *h, bool ipv6, uint8_t gid[16]);

#endif
