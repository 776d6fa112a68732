/* mac_control.c - IEEE 802.3x PAUSE and 802.1Qbb PFC frames (mac_control.h). */
#include "mac_control.h"

#include <string.h>

bool ib_mac_control_known(uint16_t opcode)
{
    return opcode == IB_MACC_OPCODE_PAUSE || opcode == IB_MACC_OPCODE_PFC;
}

bool ib_parse_mac_control(struct ib_span s, struct ib_mac_control *out)
{
    memset(out, 0, sizeof *out);
    if (!ib_span_has(s, 0, 2))
        return false;
    out->opcode = ib_rd16(s, 0);
    if (out->opcode == IB_MACC_OPCODE_PAUSE) {
        if (!ib_span_has(s, 0, IB_MACC_PAUSE_SIZE))
            return false;
        out->pause_quanta = ib_rd16(s, 2);
    } else if (out->opcode == IB_MACC_OPCODE_PFC) {
        if (!ib_span_has(s, 0, IB_MACC_PFC_SIZE))
            return false;
        out->class_enable = ib_rd16(s, 2);
        for (unsigned i = 0; i < IB_MACC_PRIORITIES; i++)
            out->quanta[i] = ib_rd16(s, 4 + 2 * i);
    } else {
        return false;
    }
    out->complete = true;
    return true;
}
