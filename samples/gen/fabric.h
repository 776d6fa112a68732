/* fabric.h - one exchange captured on every host it involves (ibscope-gen
 * fabric): the ground truth a correlation of the captures must find.
 *
 * The story is written once, in true time, to truth.pcap (every packet
 * once, when it was sent: what one capture of the whole fabric would show).
 * Each packet is also written to its sender's capture, at the sender's
 * clock (true time + that host's offset), and, unless it is lost, to its
 * receiver's, a path delay later at the receiver's clock, as a router
 * between them forwards it: source MAC its own, IP TTL one less, ECN marked
 * on every third packet (the IPv4 checksum made again); on native IB (link
 * type 247), a switch that puts it on another VL (the VCRC made again).  A host's capture
 * holds nothing before its start time.  truth.tsv says each capture's
 * offset and every packet lost where both captures ran.
 */
#ifndef IBSCOPE_GEN_FABRIC_H
#define IBSCOPE_GEN_FABRIC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gen.h"

#define FABRIC_HOSTS_MAX  3
#define FABRIC_LOSSES_MAX 16

typedef struct fabric_host {
    host_t *host;
    sink_t sink;
    int64_t offset_us; /* its clock minus the true time */
    uint64_t start_us; /* its capture starts (true time) */
} fabric_host_t;

typedef struct fabric_loss {
    uint32_t from, to; /* captures */
    uint32_t frame;    /* in the sender's capture; 0: it was not capturing */
    bool seen;         /* the receiver's capture ran then */
    char what[48];
} fabric_loss_t;

typedef struct fabric {
    fabric_host_t hosts[FABRIC_HOSTS_MAX];
    int nhosts;
    uint32_t delay_us, jitter_us; /* path delay: delay + [0, jitter] */
    uint8_t router_mac[6];
    prng_t rng;
    bool lose_next; /* the next packet does not arrive */
    const char *lose_what;
    fabric_loss_t losses[FABRIC_LOSSES_MAX];
    int nlosses;
    uint64_t forwarded;
    link_t link; /* LINK_ETH (RoCEv2) or LINK_LRH (native IB) */
} fabric_t;

/* Opens OUTDIR/<name>.pcap for each host (names "a", "b", "c") and hooks
 * the tap into g (whose own sink is truth.pcap).  0, or -1 said. */
int fabric_open(fabric_t *f, gen_t *g, const char *outdir, host_t *const *hosts,
                const int64_t *offsets_us, const uint64_t *starts_us, int n);
/* The next packet emitted is lost on the way (said in truth.tsv). */
void fabric_lose_next(fabric_t *f, const char *what);
/* Closes the captures and writes OUTDIR/truth.tsv.  0, or -1 said. */
int fabric_close(fabric_t *f, const char *outdir, uint64_t connections);

#endif
