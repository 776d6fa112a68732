/* headers.h - the InfiniBand transport headers: LRH, GRH, BTH, DETH.
 *
 * IBA Vol. 1 §5.2 (LRH), §8.3 (GRH), §9.2-9.3 (BTH, DETH).  Each parse
 * function reads exactly its header from the span given, fills the struct
 * and returns false when the span is too short.
 *
 *   LRH  0        1        2        3        4        5        6        7
 *      +--------+--------+--------+--------+--------+--------+--------+--------+
 *      |VL |LVer|SL |r|LNH|      DLID       |rsv|  PktLen     |      SLID       |
 *      +--------+--------+--------+--------+--------+--------+--------+--------+
 */
#ifndef IBSCOPE_HEADERS_H
#define IBSCOPE_HEADERS_H

#include "reader.h"

/* Field offsets the plugin marks its derived items at. */
#define IB_LRH_DLID_OFF 2
#define IB_LRH_SLID_OFF 6
#define IB_GRH_SGID_OFF 8
#define IB_GRH_DGID_OFF 24
#define IB_GID_SIZE     16

#define IB_LRH_SIZE  8
#define IB_GRH_SIZE  40
#define IB_BTH_SIZE  12
#define IB_DETH_SIZE 8
#define IB_ICRC_SIZE 4
#define IB_VCRC_SIZE 2

/* LRH LNH: what follows the LRH. */
enum ib_lnh {
    IB_LNH_RAW = 0,
    IB_LNH_IPV6 = 1, /* raw IPv6, not IBA transport */
    IB_LNH_BTH = 2,  /* IBA local: BTH follows */
    IB_LNH_GRH = 3,  /* IBA global: GRH follows */
};

#define IB_GRH_NXTHDR_BTH 0x1B

/* LID ranges, IBA Vol. 1 §4.1.3 */
#define IB_LID_RESERVED   0x0000
#define IB_LID_MCAST_LOW  0xC000
#define IB_LID_PERMISSIVE 0xFFFF

#define IB_QP0      0
#define IB_QP1      1
#define IB_GSI_QKEY 0x80010000u

struct ib_lrh {
    uint8_t vl;
    uint8_t lver;
    uint8_t sl;
    uint8_t reserved2; /* byte 1 bits 3:2 */
    uint8_t lnh;
    uint16_t dlid;
    uint8_t reserved5; /* byte 4 bits 7:3 */
    uint16_t pktlen;   /* in 4-byte words, LRH through ICRC */
    uint16_t slid;
};

struct ib_grh {
    uint8_t ipver;
    uint8_t tclass;
    uint32_t flowlabel;
    uint16_t paylen; /* bytes after the GRH through the ICRC */
    uint8_t nxthdr;
    uint8_t hoplmt;
    uint8_t sgid[16];
    uint8_t dgid[16];
};

struct ib_bth {
    uint8_t opcode;
    bool se;
    bool m;
    uint8_t padcnt;
    uint8_t tver;
    uint16_t pkey;
    uint8_t reserved; /* byte 4 */
    uint32_t destqp;
    bool ackreq;
    uint8_t reserved7; /* byte 8 bits 6:0 */
    uint32_t psn;
};

struct ib_deth {
    uint32_t qkey;
    uint8_t reserved;
    uint32_t srcqp;
};

/* BTH opcode transport, top 3 bits. */
enum ib_transport {
    IB_TRANSPORT_RC = 0,
    IB_TRANSPORT_UC = 1,
    IB_TRANSPORT_RD = 2,
    IB_TRANSPORT_UD = 3,
    IB_TRANSPORT_CNP = 4,
    IB_TRANSPORT_XRC = 5,
};

#define IB_OPCODE_UD_SEND_ONLY     0x64
#define IB_OPCODE_UD_SEND_ONLY_IMM 0x65
#define IB_OPCODE_CNP              0x81 /* RoCEv2, Annex A17 */

bool ib_parse_lrh(struct ib_span s, struct ib_lrh *out);
bool ib_parse_grh(struct ib_span s, struct ib_grh *out);
bool ib_parse_bth(struct ib_span s, struct ib_bth *out);
bool ib_parse_deth(struct ib_span s, struct ib_deth *out);

#endif
