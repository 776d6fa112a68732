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

/* Extended header bytes after the BTH for the RC/UC/XRC operations,
 * indexed by the low 5 bits of the opcode (IBA Vol. 1 Table 38). */
static const int8_t connected_ext_len[32] = {
    [0x00] = 0,  [0x01] = 0,  [0x02] = 0,  [0x03] = 4, /* SEND first/middle/last/last+imm */
    [0x04] = 0,  [0x05] = 4,                           /* SEND only, only+imm */
    [0x06] = 16, [0x07] = 0,  [0x08] = 0,  [0x09] = 4, /* WRITE first/middle/last/last+imm */
    [0x0A] = 16, [0x0B] = 20,                          /* WRITE only, only+imm */
    [0x0C] = 16,                                       /* READ request: RETH */
    [0x0D] = 4,  [0x0E] = 0,  [0x0F] = 4,  [0x10] = 4, /* READ response: AETH */
    [0x11] = 4,  [0x12] = 12,                          /* ACK, ATOMIC ACK */
    [0x13] = 28, [0x14] = 28,                          /* CmpSwap, FetchAdd: AtomicETH */
    [0x15] = -1, [0x16] = 4,  [0x17] = 4,              /* SEND with invalidate: IETH */
    [0x18] = -1, [0x19] = -1, [0x1A] = -1, [0x1B] = -1,
    [0x1C] = -1, [0x1D] = -1, [0x1E] = -1, [0x1F] = -1,
};

int ib_opcode_ext_header_len(uint8_t opcode)
{
    uint8_t op = opcode & 0x1F;
    switch (opcode >> 5) {
    case IB_TRANSPORT_RC: return connected_ext_len[op];
    case IB_TRANSPORT_UC:
        /* UC has SEND and RDMA WRITE only. */
        return op <= 0x0B ? connected_ext_len[op] : -1;
    case IB_TRANSPORT_XRC: {
        int n = connected_ext_len[op];
        /* Requests carry an XRCETH; responses (read response .. atomic ACK) do not. */
        bool response = op >= 0x0D && op <= 0x12;
        return n < 0 ? -1 : response ? n : n + 4;
    }
    case IB_TRANSPORT_UD:
        if (opcode == IB_OPCODE_UD_SEND_ONLY)
            return IB_DETH_SIZE;
        if (opcode == IB_OPCODE_UD_SEND_ONLY_IMM)
            return IB_DETH_SIZE + 4;
        return -1;
    default:
        /* RD, CNP and vendor opcodes: not decoded beyond the BTH. */
        return -1;
    }
}

bool ib_opcode_has_deth(uint8_t opcode)
{
    return opcode == IB_OPCODE_UD_SEND_ONLY || opcode == IB_OPCODE_UD_SEND_ONLY_IMM;
}
