/* engine_pfc.h - PFC and PAUSE frames' pauses per link and priority
 * (engine_pfc.c): their state in the engine and what the entry points call.
 */
#ifndef IBSCOPE_ENGINE_PFC_H
#define IBSCOPE_ENGINE_PFC_H

#include "engine.h"
#include "engine_ref.h"

/* One priority of one link (or the whole link, IB_PFC_ALL). */
struct eng_pause {
    bool paused, storm_said, listed;
    struct eng_ref start; /* the pause's first frame */
    int64_t until;        /* when the last frame's time runs out */
    /* Statistics. */
    uint64_t frames, pauses, xons, storms;
    int64_t paused_ns, longest_ns;
    struct eng_ref longest_at;
    bool paused_at_end;
};

struct eng_pfc_link {
    struct eng_pause cls[IB_PFC_CLASSES];
};

struct eng_pfc {
    int64_t storm_ns;
    struct eng_pfc_link *links; /* by capture, link_count of them */
    uint32_t link_count;
    uint8_t roce_priorities; /* bit n: a data packet with VLAN priority n seen */
    uint32_t *listed;        /* capture * IB_PFC_CLASSES + class, in order of first frame */
    size_t listed_count, listed_cap;
};

bool eng_pfc_init(struct ib_engine *e);
void eng_pfc_destroy(struct ib_engine *e);
/* A PAUSE or PFC frame whose times were captured. */
void eng_pfc_frame(struct ib_engine *e, const struct ib_mac_control *m);
/* The capture is over: pauses still running end at the last frame. */
void eng_pfc_drain(struct ib_engine *e);

/* A data packet (a BTH to a QP above 1, not a CNP): the priority RoCE uses. */
static inline void eng_pfc_data(struct eng_pfc *pfc, const struct ib_packet *p)
{
    if ((p->present & IB_HAS_VLAN) && p->bth.destqp > 1 && p->bth.opcode != IB_OPCODE_CNP)
        pfc->roce_priorities |= (uint8_t)(1u << (p->wire.vlan_pcp[0] & 7));
}

#endif
