/* classportinfo.c - ClassPortInfo fields, redirect and trap targets (IBA Vol. 1 §13.4.8.1). */
#include "classportinfo.h"

bool ib_parse_cpi(struct ib_span s, struct ib_cpi *out)
{
    if (!ib_span_has(s, 0, IB_CPI_SIZE))
        return false;
    out->base_version = ib_rd8(s, 0);
    out->class_version = ib_rd8(s, 1);
    out->cap_mask = ib_rd16(s, 2);
    uint32_t w4 = ib_rd32(s, 4);
    out->cap_mask2 = w4 >> 5;
    out->resp_time = w4 & 0x1F;
    ib_rdbytes(s, 8, out->redirect_gid, 16);
    uint32_t w24 = ib_rd32(s, 24);
    out->redirect_tc = (uint8_t)(w24 >> 24);
    out->redirect_sl = (w24 >> 20) & 0x0F;
    out->redirect_fl = w24 & 0xFFFFF;
    out->redirect_lid = ib_rd16(s, 28);
    out->redirect_pkey = ib_rd16(s, 30);
    out->redirect_qp = ib_rd24(s, 33);
    out->redirect_qkey = ib_rd32(s, 36);
    ib_rdbytes(s, 40, out->trap_gid, 16);
    uint32_t w56 = ib_rd32(s, 56);
    out->trap_tc = (uint8_t)(w56 >> 24);
    out->trap_sl = (w56 >> 20) & 0x0F;
    out->trap_fl = w56 & 0xFFFFF;
    out->trap_lid = ib_rd16(s, 60);
    out->trap_pkey = ib_rd16(s, 62);
    out->trap_hl = ib_rd8(s, 64);
    out->trap_qp = ib_rd24(s, 65);
    out->trap_qkey = ib_rd32(s, 68);
    return true;
}
