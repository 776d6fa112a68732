/* frame_table.h - what the first pass left for later passes, by frame number.
 *
 * The first pass meets frames in increasing order, so the frames that have
 * something to replay are appended to one array, sorted by construction:
 * no per-frame allocation, no per-frame list in Wireshark's proto data.
 * A later pass finds a frame by a cursor (the next frame in order, the
 * common case: tshark -2, a GUI redissection) or by binary search (a click).
 * Frames with nothing to replay have no entry and cost nothing.
 */
#ifndef IBSCOPE_FRAME_TABLE_H
#define IBSCOPE_FRAME_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ibs_result;

/* What one frame leaves for later passes. */
struct ibs_stored {
    uint32_t frame;         /* its number */
    bool mad_qp;            /* the engine called the destination QP a MAD QP */
    bool conn_from_passive; /* sent by its connection's passive side */
    uint16_t wire_path_mtu; /* the path MTU its wire direction had then, 0: none */
    uint32_t conn1;         /* connection index + 1; 0: none */
    uint32_t chain1;        /* redirect chain index + 1; 0: none */
    uint32_t qp1;           /* RC queue pair (requester direction) + 1; 0: none */
    uint32_t acks_frame;    /* an answer: the newest request it covers; 0: none */
    uint32_t wire1;         /* the wire audit's direction + 1; 0: none */
    int64_t ack_rtt_ns;     /* the time since that request */
    const struct ibs_result *result;
};

struct ibs_frame_table {
    struct ibs_stored *items;
    size_t count, capacity;
    size_t cursor; /* where the last lookup ended */
};

/* Appends st for a frame numbered above every frame already in the table;
 * false (and nothing stored) otherwise, or when out of memory. */
bool ibs_frame_table_add(struct ibs_frame_table *t, const struct ibs_stored *st);

/* The entry of frame, or NULL when it left nothing. */
const struct ibs_stored *ibs_frame_table_find(struct ibs_frame_table *t, uint32_t frame);
/* The same, to change what an earlier frame left (a finding made later). */
struct ibs_stored *ibs_frame_table_find_mut(struct ibs_frame_table *t, uint32_t frame);

void ibs_frame_table_clear(struct ibs_frame_table *t);

#endif
