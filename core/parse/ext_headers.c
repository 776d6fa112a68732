/* ext_headers.c - which extended transport headers an opcode carries, and their fields
 * (IBA Vol. 1 §9.3, Table 38; Annex A14 for XRC, Annex A17 for the RoCEv2 CNP). */
#include "ext_headers.h"

#include "headers.h"

/* One row of the connected opcodes' table: headers, operation, segment. */
#define ROW(h, op, seg)               \
    {                                 \
        (h), IB_OP_##op, IB_SEG_##seg \
    }
#define NONE   0
#define IMM    IB_EXT_IMMDT
#define RETH   IB_EXT_RETH
#define AETH   IB_EXT_AETH
#define ATOMIC IB_EXT_ATOMICETH
#define UNKNOWN_ROW                                \
    {                                              \
        IB_EXT_UNKNOWN, IB_OP_UNKNOWN, IB_SEG_ONLY \
    }

/* The RC operations, by the opcode's low 5 bits (IBA Vol. 1 Table 38); UC
 * and XRC use the same rows (UC only the SEND and RDMA WRITE ones). */
static const struct ib_opcode_info connected[32] = {
    [0x00] = ROW(NONE, SEND, FIRST),
    [0x01] = ROW(NONE, SEND, MIDDLE),
    [0x02] = ROW(NONE, SEND, LAST),
    [0x03] = ROW(IMM, SEND, LAST),
    [0x04] = ROW(NONE, SEND, ONLY),
    [0x05] = ROW(IMM, SEND, ONLY),
    [0x06] = ROW(RETH, WRITE, FIRST),
    [0x07] = ROW(NONE, WRITE, MIDDLE),
    [0x08] = ROW(NONE, WRITE, LAST),
    [0x09] = ROW(IMM, WRITE, LAST),
    [0x0A] = ROW(RETH, WRITE, ONLY),
    [0x0B] = ROW(RETH | IMM, WRITE, ONLY),
    [0x0C] = ROW(RETH, READ_REQUEST, ONLY),
    [0x0D] = ROW(AETH, READ_RESPONSE, FIRST),
    [0x0E] = ROW(NONE, READ_RESPONSE, MIDDLE),
    [0x0F] = ROW(AETH, READ_RESPONSE, LAST),
    [0x10] = ROW(AETH, READ_RESPONSE, ONLY),
    [0x11] = ROW(AETH, ACK, ONLY),
    [0x12] = ROW(AETH | IB_EXT_ATOMICACKETH, ATOMIC_ACK, ONLY),
    [0x13] = ROW(ATOMIC, CMP_SWAP, ONLY),
    [0x14] = ROW(ATOMIC, FETCH_ADD, ONLY),
    [0x15] = UNKNOWN_ROW,
    [0x16] = ROW(IB_EXT_IETH, SEND, LAST), /* with Invalidate */
    [0x17] = ROW(IB_EXT_IETH, SEND, ONLY), /* with Invalidate */
    [0x18] = UNKNOWN_ROW,
    [0x19] = UNKNOWN_ROW,
    [0x1A] = UNKNOWN_ROW,
    [0x1B] = UNKNOWN_ROW,
    [0x1C] = UNKNOWN_ROW,
    [0x1D] = UNKNOWN_ROW,
    [0x1E] = UNKNOWN_ROW,
    [0x1F] = UNKNOWN_ROW,
};

struct ib_opcode_info ib_opcode_info(uint8_t opcode)
{
    static const struct ib_opcode_info unknown = UNKNOWN_ROW;
    struct ib_opcode_info i = connected[opcode & 0x1F];
    switch (opcode >> 5) {
    case IB_TRANSPORT_RC: return i;
    case IB_TRANSPORT_UC: /* SEND and RDMA WRITE only */
        return (opcode & 0x1F) <= 0x0B ? i : unknown;
    case IB_TRANSPORT_XRC: /* requests carry an XRCETH; responses do not */
        if (i.headers != IB_EXT_UNKNOWN && !ib_op_is_response(i.op))
            i.headers |= IB_EXT_XRCETH;
        return i;
    case IB_TRANSPORT_UD:
        if (opcode == IB_OPCODE_UD_SEND_ONLY)
            return (struct ib_opcode_info){ IB_EXT_DETH, IB_OP_UD_SEND, IB_SEG_ONLY };
        if (opcode == IB_OPCODE_UD_SEND_ONLY_IMM)
            return (struct ib_opcode_info){ IB_EXT_DETH | IMM, IB_OP_UD_SEND, IB_SEG_ONLY };
        return unknown;
    case IB_TRANSPORT_CNP:
        if (opcode == IB_OPCODE_CNP)
            return (struct ib_opcode_info){ IB_EXT_CNP, IB_OP_CNP, IB_SEG_ONLY };
        return unknown;
    default: return unknown; /* RD and manufacturer-specific opcodes */
    }
}

bool ib_op_is_response(uint8_t op)
{
    return op == IB_OP_READ_RESPONSE || op == IB_OP_ACK || op == IB_OP_ATOMIC_ACK;
}

uint16_t ib_opcode_ext_headers(uint8_t opcode)
{
    return ib_opcode_info(opcode).headers;
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

size_t ib_ext_headers_size(uint16_t headers)
{
    size_t n = 0; /* a walk of the bits set, of which a packet has two at most */
    for (; headers; headers &= (uint16_t)(headers - 1))
        n += ib_ext_header_size(headers & (uint16_t)-headers);
    return n;
}

int ib_opcode_ext_header_len(uint8_t opcode)
{
    uint16_t h = ib_opcode_ext_headers(opcode);
    return h == IB_EXT_UNKNOWN ? -1 : (int)ib_ext_headers_size(h);
}

bool ib_opcode_has_deth(uint8_t opcode)
{
    uint16_t h = ib_opcode_ext_headers(opcode);
    return h != IB_EXT_UNKNOWN && (h & IB_EXT_DETH);
}
