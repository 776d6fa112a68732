/* engine_ref.h - what the engine's records refer to: a node as a hash key,
 * a frame in 16 bytes.  Private to the engine. */
#ifndef IBSCOPE_ENGINE_REF_H
#define IBSCOPE_ENGINE_REF_H

#include <string.h>

#include "engine.h"

/* A node as a hash key: its LID when known, else its GID (RoCE: the IP as a
 * GID), else nothing (kind 0), in which case the comm ID alone identifies. */
enum { ENG_NODE_NONE, ENG_NODE_LID, ENG_NODE_GID };

struct eng_node {
    uint8_t kind;
    uint8_t pad;
    uint16_t lid;
    uint8_t gid[16];
};

static inline struct eng_node eng_node_of(const struct ib_endpoint *ep)
{
    struct eng_node n;
    memset(&n, 0, sizeof n);
    if (ep->lid) {
        n.kind = ENG_NODE_LID;
        n.lid = ep->lid;
    } else if (ep->has_gid) {
        n.kind = ENG_NODE_GID;
        memcpy(n.gid, ep->gid, 16);
    }
    return n;
}

static inline bool eng_node_eq(const struct eng_node *a, const struct eng_node *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* A frame reference in 16 bytes rather than 24: the capture's index in the
 * top 24 bits of `where`, the frame number in the low 40 (2^40 frames of at
 * least 16 bytes each would be a 17 TB capture; 2^24 captures open at once
 * would need as many descriptors and reader buffers).  where 0: none. */
struct eng_ref {
    int64_t time_ns;
    uint64_t where;
};
#define ENG_REF_FRAME_BITS 40
#define ENG_REF_FRAME_MASK ((UINT64_C(1) << ENG_REF_FRAME_BITS) - 1)

static inline struct eng_ref ref_pack(struct ib_frame_ref r)
{
    struct eng_ref c = { r.time_ns, (uint64_t)r.capture << ENG_REF_FRAME_BITS |
                                        (r.frame & ENG_REF_FRAME_MASK) };
    return c;
}

static inline struct ib_frame_ref ref_unpack(struct eng_ref c)
{
    struct ib_frame_ref r = { (uint32_t)(c.where >> ENG_REF_FRAME_BITS),
                              c.where & ENG_REF_FRAME_MASK, c.time_ns };
    return r;
}

#endif
