/* ext_headers.c - which extended transport headers an opcode carries, and their fields
 * (IBA Vol. 1 §9.3, Table 38; Annex A14 for XRC, Annex A17 for the RoCEv2 CNP). */
#include "ext_headers.h"

#include "headers.h"

#define NONE   0
#define IMM    IB_EXT_IMMDT
#define RETH   IB_EXT_RETH
#define AETH   IB_EXT_AETH
#define ATOMIC IB_EXT_ATOMICETH
#define UNK    IB_EXT_UNKNOWN

/* The RC operations, by the opcode's low 5 bits; UC and XRC use the same
 * rows (UC only the SEND and RDMA WRITE ones). */
static const uint16_t connected_ext[32] = {
    [0x00] = NONE,                       /* SEND First */
    [0x01] = NONE,                       /* SEND Middle */
    [0x02] = NONE,                       /* SEND Last */
    [0x03] = IMM,                        /* SEND Last with Immediate */
    [0x04] = NONE,                       /* SEND Only */
    [0x05] = IMM,                        /* SEND Only with Immediate */
    [0x06] = RETH,                       /* RDMA WRITE First */
    [0x07] = NONE,                       /* RDMA WRITE Middle */
    [0x08] = NONE,                       /* RDMA WRITE Last */
    [0x09] = IMM,                        /* RDMA WRITE Last with Immediate */
    [0x0A] = RETH,                       /* RDMA WRITE Only */
    [0x0B] = RETH | IMM,                 /* RDMA WRITE Only with Immediate */
    [0x0C] = RETH,                       /* RDMA READ Request */
    [0x0D] = AETH,                       /* RDMA READ Response First */
    [0x0E] = NONE,                       /* RDMA READ Response Middle */
    [0x0F] = AETH,                       /* RDMA READ Response Last */
    [0x10] = AETH,                       /* RDMA READ Response Only */
    [0x11] = AETH,                       /* Acknowledge */
    [0x12] = AETH | IB_EXT_ATOMICACKETH, /* ATOMIC Acknowledge */
    [0x13] = ATOMIC,                     /* CmpSwap */
    [0x14] = ATOMIC,                     /* FetchAdd */
    [0x15] = UNK,                        /* reserved */
    [0x16] = IB_EXT_IETH,                /* SEND Last with Invalidate */
    [0x17] = IB_EXT_IETH,                /* SEND Only with Invalidate */
    [0x18] = UNK,
    [0x19] = UNK,
    [0x1A] = UNK,
    [0x1B] = UNK,
    [0x1C] = UNK,
    [0x1D] = UNK,
    [0x1E] = UNK,
    [0x1F] = UNK,
};

uint16_t ib_opcode_ext_headers(uint8_t opcode)
{
    uint8_t op = opcode & 0x1F;
    switch (opcode >> 5) {
    case IB_TRANSPORT_RC: return connected_ext[op];
    case IB_TRANSPORT_UC: /* SEND and RDMA WRITE only */
        return op <= 0x0B ? connected_ext[op] : UNK;
    case IB_TRANSPORT_XRC: { /* requests carry an XRCETH; responses (0x0D-0x12) do not */
        uint16_t h = connected_ext[op];
        bool response = op >= 0x0D && op <= 0x12;
        return h == UNK || response ? h : (uint16_t)(h | IB_EXT_XRCETH);
    }
    case IB_TRANSPORT_UD:
        if (opcode == IB_OPCODE_UD_SEND_ONLY)
            return IB_EXT_DETH;
        return opcode == IB_OPCODE_UD_SEND_ONLY_IMM ? IB_EXT_DETH | IMM : UNK;
    case IB_TRANSPORT_CNP: return opcode == IB_OPCODE_CNP ? IB_EXT_CNP : UNK;
    default: return UNK; /* RD and manufacturer-specific opcodes */
    }
}

size_t ib_ext_header_size(uint16_t header)
{
    switch (header) {
    case IB_EXT_XRCETH: return IB_XRCETH_SIZE;
    case IB_EXT_DETH: return IB_DETH_SIZE;
    case IB_EXT_RETH: return IB_RETH_SIZE;
    case IB_EXT_ATOMICETH: return IB_ATOMICETH_SIZE;
    case IB_EXT_AETH: return IB_AETH_SIZE;
    case IB_EXT_ATOMICACKETH: return IB_ATOMICACKETH_SIZE;
    case IB_EXT_IMMDT: return IB_IMMDT_SIZE;
    case IB_EXT_IETH: return IB_IETH_SIZE;
    case IB_EXT_CNP: return IB_CNP_SIZE;
    default: return 0;
    }
}

bool ib_parse_xrceth(struct ib_span s, uint32_t *srqn)
{
    if (!ib_span_has(s, 0, IB_XRCETH_SIZE))
        return false;
    *srqn = ib_rd24(s, 1);
    return true;
}

bool ib_parse_reth(struct ib_span s, struct ib_reth *out)
{
    if (!ib_span_has(s, 0, IB_RETH_SIZE))
        return false;
    out->va = ib_rd64(s, 0);
    out->rkey = ib_rd32(s, 8);
    out->dma_len = ib_rd32(s, 12);
    return true;
}

bool ib_parse_aeth(struct ib_span s, struct ib_aeth *out)
{
    if (!ib_span_has(s, 0, IB_AETH_SIZE))
        return false;
    uint8_t syn = ib_rd8(s, 0), low = syn & 0x1F;
    out->syndrome = syn;
    out->kind = (syn >> 5) & 0x03;
    out->credit_count = out->kind == IB_AETH_ACK ? low : 0;
    out->rnr_timer = out->kind == IB_AETH_RNR_NAK ? low : 0;
    out->nak_code = out->kind == IB_AETH_NAK ? low : 0;
    out->msn = ib_rd24(s, 1);
    return true;
}

bool ib_parse_atomiceth(struct ib_span s, struct ib_atomiceth *out)
{
    if (!ib_span_has(s, 0, IB_ATOMICETH_SIZE))
        return false;
    out->va = ib_rd64(s, 0);
    out->rkey = ib_rd32(s, 8);
    out->swap_add = ib_rd64(s, 12);
    out->compare = ib_rd64(s, 20);
    return true;
}

/* IBA Vol. 1 Table 45: the RNR NAK timer's codes, in microseconds. */
static const uint32_t rnr_timer_us[32] = {
    655360, 10,    20,    30,    40,    60,     80,     120,    160,    240,    320,
    480,    640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240,  15360,
    20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

uint32_t ib_rnr_timer_us(uint8_t code)
{
    return rnr_timer_us[code & 0x1F];
}

int ib_opcode_ext_header_len(uint8_t opcode)
{
    uint16_t h = ib_opcode_ext_headers(opcode);
    if (h == IB_EXT_UNKNOWN)
        return -1;
    size_t n = 0;
    for (uint16_t bit = 1; bit <= IB_EXT_CNP; bit = (uint16_t)(bit << 1))
        if (h & bit)
            n += ib_ext_header_size(bit);
    return (int)n;
}

bool ib_opcode_has_deth(uint8_t opcode)
{
    uint16_t h = ib_opcode_ext_headers(opcode);
    return h != IB_EXT_UNKNOWN && (h & IB_EXT_DETH);
}
