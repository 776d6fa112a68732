/* ext_headers.h - the extended transport headers that follow the BTH.
 *
 * IBA Vol. 1 §9.3 and Annex A14 (XRC), and Annex A17 for the RoCEv2 CNP.
 * Which headers an opcode carries is one table (ext_headers.c), in wire
 * order: XRCETH, DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH.
 * Each parse function reads exactly its header and returns false when the
 * span is too short.
 *
 *   AETH   0        1        2        3
 *        +--------+--------+--------+--------+
 *        |Syndrome|          MSN             |   Syndrome: 0 kk vvvvv
 *        +--------+--------+--------+--------+   kk: ACK, RNR NAK, -, NAK
 */
#ifndef IBSCOPE_EXT_HEADERS_H
#define IBSCOPE_EXT_HEADERS_H

#include "reader.h"

#define IB_XRCETH_SIZE       4
#define IB_RETH_SIZE         16
#define IB_ATOMICETH_SIZE    28
#define IB_AETH_SIZE         4
#define IB_ATOMICACKETH_SIZE 8
#define IB_IMMDT_SIZE        4
#define IB_IETH_SIZE         4
#define IB_CNP_SIZE          16 /* reserved bytes after a CNP's BTH */

/* One bit per extended header, in the order the headers follow the BTH. */
enum ib_ext_header {
    IB_EXT_XRCETH = 1u << 0,
    IB_EXT_DETH = 1u << 1,
    IB_EXT_RETH = 1u << 2,
    IB_EXT_ATOMICETH = 1u << 3,
    IB_EXT_AETH = 1u << 4,
    IB_EXT_ATOMICACKETH = 1u << 5,
    IB_EXT_IMMDT = 1u << 6,
    IB_EXT_IETH = 1u << 7,
    IB_EXT_CNP = 1u << 8,
};
#define IB_EXT_UNKNOWN 0xFFFFu /* an opcode whose headers are not known */

/* What a connected (RC, UC, XRC) opcode asks or answers. */
enum ib_op {
    IB_OP_UNKNOWN,
    IB_OP_SEND,
    IB_OP_WRITE,
    IB_OP_READ_REQUEST,
    IB_OP_READ_RESPONSE,
    IB_OP_ACK,
    IB_OP_ATOMIC_ACK,
    IB_OP_CMP_SWAP,
    IB_OP_FETCH_ADD,
    IB_OP_CNP,
    IB_OP_UD_SEND,
};

/* Where a packet falls in its message. */
enum ib_op_segment { IB_SEG_ONLY, IB_SEG_FIRST, IB_SEG_MIDDLE, IB_SEG_LAST };

/* An opcode as the transport analysis reads it: its operation, the packet's
 * place in the message, and the extended headers it carries. */
struct ib_opcode_info {
    uint16_t headers; /* enum ib_ext_header bits, or IB_EXT_UNKNOWN */
    uint8_t op;       /* enum ib_op */
    uint8_t segment;  /* enum ib_op_segment */
};

struct ib_opcode_info ib_opcode_info(uint8_t opcode);
/* True for the operations a responder answers with (ACK, READ response,
 * atomic ACK): their PSN is the request's they answer. */
bool ib_op_is_response(uint8_t op);

/* The extended headers an opcode carries (enum ib_ext_header bits), or
 * IB_EXT_UNKNOWN for RD, reserved and vendor opcodes. */
uint16_t ib_opcode_ext_headers(uint8_t opcode);
/* Bytes of one extended header (a single enum ib_ext_header bit). */
size_t ib_ext_header_size(uint16_t header);
/* Bytes of all the extended headers in headers (enum ib_ext_header bits). */
size_t ib_ext_headers_size(uint16_t headers);
/* Bytes of all the extended headers an opcode carries, before the payload;
 * -1 when the opcode's headers are not known (no payload is decoded then). */
int ib_opcode_ext_header_len(uint8_t opcode);
/* True when the opcode carries a DETH right after the BTH (UD). */
bool ib_opcode_has_deth(uint8_t opcode);

/* RDMA Extended Transport Header, §9.3.3. */
struct ib_reth {
    uint64_t va;
    uint32_t rkey;
    uint32_t dma_len;
};

/* The AETH syndrome's kind, bits 6:5. */
enum ib_aeth_kind {
    IB_AETH_ACK = 0,
    IB_AETH_RNR_NAK = 1,
    IB_AETH_RESERVED = 2,
    IB_AETH_NAK = 3,
};

/* NAK codes, the syndrome's low 5 bits when the kind is NAK (§9.7.5.2.8). */
enum ib_nak_code {
    IB_NAK_PSN_SEQUENCE = 0,
    IB_NAK_INVALID_REQUEST = 1,
    IB_NAK_REMOTE_ACCESS = 2,
    IB_NAK_REMOTE_OPERATIONAL = 3,
    IB_NAK_INVALID_RD_REQUEST = 4,
};
#define IB_NAK_CODES 5 /* the codes defined; 5 to 31 are reserved */

/* ACK Extended Transport Header, §9.3.5.  Of credit_count, rnr_timer and
 * nak_code, the one the kind names holds the syndrome's low 5 bits; the
 * others are 0. */
struct ib_aeth {
    uint8_t syndrome;
    uint8_t kind; /* enum ib_aeth_kind */
    uint8_t credit_count;
    uint8_t rnr_timer; /* a code: ib_rnr_timer_us gives the wait */
    uint8_t nak_code;  /* enum ib_nak_code */
    uint32_t msn;
};

/* Atomic Extended Transport Header, §9.3.4. */
struct ib_atomiceth {
    uint64_t va;
    uint32_t rkey;
    uint64_t swap_add;
    uint64_t compare;
};

/* The extended headers of one packet besides the DETH, and which are there. */
struct ib_ext {
    uint32_t xrc_srqn; /* XRCETH */
    struct ib_reth reth;
    struct ib_atomiceth atomic;
    struct ib_aeth aeth;
    uint64_t atomic_orig; /* AtomicAckETH: the remote data before the operation */
    uint32_t immdt;       /* ImmDt, as the four bytes read big-endian */
    uint32_t ieth_rkey;   /* IETH: the R_Key to invalidate */
};

bool ib_parse_xrceth(struct ib_span s, uint32_t *srqn);
bool ib_parse_reth(struct ib_span s, struct ib_reth *out);
bool ib_parse_aeth(struct ib_span s, struct ib_aeth *out);
bool ib_parse_atomiceth(struct ib_span s, struct ib_atomiceth *out);

/* The time an RNR NAK's timer code asks the requester to wait, in
 * microseconds (IBA Vol. 1 Table 45: code 0 is the longest, 655.36 ms). */
uint32_t ib_rnr_timer_us(uint8_t code);

#endif
