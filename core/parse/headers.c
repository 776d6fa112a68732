/* headers.c - LRH, GRH, BTH and DETH field extraction (IBA Vol. 1 §5.2, §8.3, §9.2-9.3). */
#include "headers.h"

bool ib_parse_lrh(struct ib_span s, struct ib_lrh *out)
{
    if (!ib_span_has(s, 0, IB_LRH_SIZE))
        return false;
    uint8_t b0 = ib_rd8(s, 0), b1 = ib_rd8(s, 1);
    out->vl = b0 >> 4;
    out->lver = b0 & 0x0F;
    out->sl = b1 >> 4;
    out->reserved2 = (b1 >> 2) & 0x03;
    out->lnh = b1 & 0x03;
    out->dlid = ib_rd16(s, 2);
    out->reserved5 = ib_rd8(s, 4) >> 3;
    out->pktlen = ib_rd16(s, 4) & 0x07FF;
    out->slid = ib_rd16(s, 6);
    return true;
}

bool ib_parse_grh(struct ib_span s, struct ib_grh *out)
{
    if (!ib_span_has(s, 0, IB_GRH_SIZE))
        return false;
    uint32_t w0 = ib_rd32(s, 0);
    out->ipver = (uint8_t)(w0 >> 28);
    out->tclass = (uint8_t)(w0 >> 20);
    out->flowlabel = w0 & 0xFFFFF;
    out->paylen = ib_rd16(s, 4);
    out->nxthdr = ib_rd8(s, 6);
    out->hoplmt = ib_rd8(s, 7);
    ib_rdbytes(s, 8, out->sgid, 16);
    ib_rdbytes(s, 24, out->dgid, 16);
    return true;
}

bool ib_parse_bth(struct ib_span s, struct ib_bth *out)
{
    if (!ib_span_has(s, 0, IB_BTH_SIZE))
        return false;
    uint8_t b1 = ib_rd8(s, 1);
    out->opcode = ib_rd8(s, 0);
    out->se = (b1 & 0x80) != 0;
    out->m = (b1 & 0x40) != 0;
    out->padcnt = (b1 >> 4) & 0x03;
    out->tver = b1 & 0x0F;
    out->pkey = ib_rd16(s, 2);
    out->reserved = ib_rd8(s, 4);
    out->destqp = ib_rd24(s, 5);
    out->ackreq = (ib_rd8(s, 8) & 0x80) != 0;
    out->reserved7 = ib_rd8(s, 8) & 0x7F;
    out->psn = ib_rd24(s, 9);
    return true;
}

bool ib_parse_deth(struct ib_span s, struct ib_deth *out)
{
    if (!ib_span_has(s, 0, IB_DETH_SIZE))
        return false;
    out->qkey = ib_rd32(s, 0);
    out->reserved = ib_rd8(s, 4);
    out->srcqp = ib_rd24(s, 5);
    return true;
}
