/* mac_control.h - Ethernet MAC Control frames that pause a link: IEEE 802.3x
 * PAUSE (opcode 0x0001, one pause time for all traffic) and IEEE 802.1Qbb
 * priority flow control (opcode 0x0101, one pause time per priority).
 *
 * Lossless RoCE depends on PFC; a pause storm stalls every queue pair of the
 * paused priority.  The times are in quanta of 512 bit times.
 */
#ifndef IBSCOPE_MAC_CONTROL_H
#define IBSCOPE_MAC_CONTROL_H

#include <stdbool.h>
#include <stdint.h>

#include "reader.h"

#define IB_ETHERTYPE_MAC_CONTROL 0x8808
#define IB_MACC_OPCODE_PAUSE     0x0001
#define IB_MACC_OPCODE_PFC       0x0101
#define IB_MACC_PRIORITIES       8
/* Opcode, then PAUSE's one time or PFC's enable vector and eight times. */
#define IB_MACC_PAUSE_SIZE 4
#define IB_MACC_PFC_SIZE   20

struct ib_mac_control {
    uint16_t opcode;
    bool complete;                       /* the whole body was captured: the times hold */
    uint16_t class_enable;               /* PFC: bit n set, priority n's time applies */
    uint16_t pause_quanta;               /* PAUSE */
    uint16_t quanta[IB_MACC_PRIORITIES]; /* PFC: priority 0 first */
};

/* True for the opcodes read here (PAUSE and PFC). */
bool ib_mac_control_known(uint16_t opcode);
/* The MAC Control frame body at s (from its opcode): false when it is too
 * short for its opcode's fields (the opcode is still read when present). */
bool ib_parse_mac_control(struct ib_span s, struct ib_mac_control *out);

#endif
