/* classportinfo.h - the ClassPortInfo attribute (0x0001), IBA Vol. 1 §13.4.8.1.
 *
 * 72 bytes; besides the class's capabilities it carries the redirect target
 * (RedirectGID/TC/SL/FL/LID/P_Key/QP/Q_Key) that a class agent names when it
 * answers with the "redirect required" status, and the trap destination.
 */
#ifndef IBSCOPE_CLASSPORTINFO_H
#define IBSCOPE_CLASSPORTINFO_H

#include "reader.h"

#define IB_CPI_SIZE 72

struct ib_cpi {
    uint8_t base_version;
    uint8_t class_version;
    uint16_t cap_mask;
    uint32_t cap_mask2; /* 27 bits */
    uint8_t resp_time;  /* RespTimeValue, 5 bits */
    uint8_t redirect_gid[16];
    uint8_t redirect_tc;
    uint8_t redirect_sl;
    uint32_t redirect_fl;
    uint16_t redirect_lid;
    uint16_t redirect_pkey;
    uint32_t redirect_qp;
    uint32_t redirect_qkey;
    uint8_t trap_gid[16];
    uint8_t trap_tc;
    uint8_t trap_sl;
    uint32_t trap_fl;
    uint16_t trap_lid;
    uint16_t trap_pkey;
    uint8_t trap_hl;
    uint32_t trap_qp;
    uint32_t trap_qkey;
};

bool ib_parse_cpi(struct ib_span s, struct ib_cpi *out);

#endif
