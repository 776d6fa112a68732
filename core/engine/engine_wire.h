/* engine_wire.h - the wire audit (engine_wire.c): the settings each
 * direction's data packets carry, and the findings that compare them.
 *
 * A direction is the data packets of one (source, destination, destination
 * QP) (samples/gen/wire_contract.md).  Its record keeps the first packet's
 * settings inline as one word, which is all most directions ever need; a
 * direction whose settings change gets a mix record on the side, with a
 * count per value.  An RC packet finds its direction through the queue pair
 * the transport analysis found for it (a dense array by the queue pair's
 * number, requests and answers apart), any other through the table.
 */
#ifndef IBSCOPE_ENGINE_WIRE_H
#define IBSCOPE_ENGINE_WIRE_H

#include "engine.h"
#include "engine_ref.h"
#include "engine_table.h"

/* Directions whose settings mix, past which their packets are counted in
 * the inline value only (limits.wire_mixes_dropped). */
#define ENG_WIRE_MIXES_MAX 4096u

/* One direction, as packets address it. */
struct eng_wire_key {
    struct eng_node src, dst;
    uint32_t qpn;
};

/* The settings of a packet in one word: a byte each for DSCP, ECN,
 * priority and (version << 4 | GID kind), IB_WIRE_NO_VALUE (a kind of 0xF)
 * where the packet has no such setting.  Equal words: equal settings.
 *
 * A direction's record is two cache lines (the pool's blocks are aligned to
 * one): the first holds all that a packet like its first reads and writes,
 * the second what only a lookup or a finding needs.  Its key is split
 * between them (src and qpn, then dst): a packet's slot is checked against
 * src and qpn alone. */
struct eng_wire_dir {
    /* Every packet. */
    struct eng_node src;
    uint32_t qpn;
    /* The first packet's settings while a packet that has them takes the
     * fast path, NO_WORD once the direction mixes or its GID must be
     * watched (gid_suspect): one compare for the three. */
    uint32_t fast_word;
    uint32_t mtu_limit; /* path_mtu while mtu_exceeded may fire, else UINT32_MAX */
    uint32_t max_payload;
    bool seen : 1, not_ect_said : 1, mtu_said : 1, forward : 1, mix_lost : 1;
    bool gid_suspect : 1; /* its first packet's source GID must stay on its link */
    uint16_t path_mtu;    /* bytes the CM REQ announced, 0: unknown (every frame's links) */
    uint64_t packets;
    uint32_t self;       /* its number, in order of first packet */
    uint32_t mix;        /* its eng_wire_mix's pool index + 1, 0: none */
    uint32_t first_word; /* the first packet's settings, NO_WORD before */
    uint32_t pair;       /* the other direction of its queue pair (CM) + 1, 0: none */
    /* Lookups and findings. */
    struct eng_node dst;
    struct eng_wire_conv *conv; /* its conversation, NULL past the cap */
    struct eng_ref first, req;  /* its first data packet; the CM REQ that set it up */
};

/* The CM's set-up of a direction that has sent nothing yet: its record is
 * made by its first packet (the side that never sends holds none), which
 * this gives its pair, path MTU and REQ. */
struct eng_wire_setup {
    struct eng_wire_key key, other; /* the direction, and the other of its queue pair */
    uint32_t self;                  /* its pool index */
    uint16_t path_mtu;
    struct eng_ref req;
    struct el_link age;
};

/* A direction's settings with a count per value (IB_WIRE_VALUES_MAX each;
 * more distinct values are counted in other). */
struct eng_wire_mix {
    struct ib_wire_mix fields[IB_WIRE_FIELD_COUNT];
};

/* Two endpoints, either way: RoCE versions and routed link-local GIDs are
 * checked once per conversation (per way, for the latter). */
struct eng_wire_conv {
    struct eng_node a, b; /* a sorts before b */
    uint32_t self;
    struct eng_ref first; /* its first RoCE data packet */
    uint8_t version;      /* that packet's: 1 or 2, 0 while none */
    bool mix_said : 1, routed_said_ab : 1, routed_said_ba : 1;
};

struct eng_wire {
    struct et_table dirs;   /* eng_wire_key -> eng_wire_dir */
    struct et_table convs;  /* (a, b) -> eng_wire_conv */
    struct et_table setups; /* eng_wire_key -> eng_wire_setup */
    /* Directions and set-ups, one size: a set-up's item, released when its
     * direction's first packet comes, is the next direction's, so a capture
     * whose connections all set up before they send holds one or the
     * other, not both. */
    struct ep_pool dir_pool;
    struct ep_pool mix_pool, conv_pool;
    uint32_t *dir_items; /* by direction number: its item in dir_pool */
    size_t dir_items_cap;
    uint32_t dir_count, mix_count, conv_count;
    struct el_link setup_age; /* set-ups waiting, oldest first */
    size_t setup_count;
    /* By queue pair number q: 2q its requests' direction, 2q + 1 its
     * answers'; NULL until looked up. */
    struct eng_wire_dir **by_qp;
    size_t by_qp_cap;
    struct eng_ref first_ect; /* the capture's first ECN-capable RoCEv2 data packet */
};

bool eng_wire_init(struct ib_engine *e);
void eng_wire_destroy(struct ib_engine *e);
/* A data packet (BTH, no MAD), after the transport analysis saw it. */
void eng_wire_feed(struct ib_engine *e, const struct ib_packet *p);
/* A CM REQ: its path MTU against the link's. */
void eng_wire_cm_req(struct ib_engine *e, const struct ib_packet *p);
/* A CM REP paired a queue pair's two directions: src's requests to dst's
 * QP dst_qpn and back to src_qpn, with the REQ's path MTU (its code) and
 * frame. */
void eng_wire_cm_pair(struct ib_engine *e, const struct eng_node *src, uint32_t src_qpn,
                      const struct eng_node *dst, uint32_t dst_qpn, uint8_t mtu_code,
                      struct eng_ref req);

/* A mix's count of one more packet of value v (IB_WIRE_VALUES_MAX kept). */
void eng_wire_mix_add(struct ib_wire_mix *m, uint8_t v, uint64_t packets);

#endif
