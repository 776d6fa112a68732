/* test_support.c - helpers shared by the unit tests. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint8_t *ts_exact_copy(const void *data, size_t len)
{
    uint8_t *p = malloc(len ? len : 1);
    if (!p)
        abort();
    if (len)
        memcpy(p, data, len);
    return p;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

size_t ts_hex(const char *hex, uint8_t *buf, size_t size)
{
    size_t n = 0;
    int hi = -1;
    for (; *hex; hex++) {
        if (*hex == ' ' || *hex == '\n' || *hex == ':')
            continue;
        int d = hex_digit(*hex);
        if (d < 0 || n >= size) {
            fprintf(stderr, "ts_hex: bad input at '%c'\n", *hex);
            abort();
        }
        if (hi < 0) {
            hi = d;
        } else {
            buf[n++] = (uint8_t)(hi << 4 | d);
            hi = -1;
        }
    }
    if (hi >= 0)
        abort();
    return n;
}

/* ---- Wire builders for the test_parse_* tests. ---- */

void ts_put8(uint8_t *b, size_t off, uint8_t v)
{
    b[off] = v;
}

void ts_put16(uint8_t *b, size_t off, uint16_t v)
{
    b[off] = (uint8_t)(v >> 8);
    b[off + 1] = (uint8_t)v;
}

void ts_put24(uint8_t *b, size_t off, uint32_t v)
{
    b[off] = (uint8_t)(v >> 16);
    b[off + 1] = (uint8_t)(v >> 8);
    b[off + 2] = (uint8_t)v;
}

void ts_put32(uint8_t *b, size_t off, uint32_t v)
{
    ts_put16(b, off, (uint16_t)(v >> 16));
    ts_put16(b, off + 2, (uint16_t)v);
}

void ts_put64(uint8_t *b, size_t off, uint64_t v)
{
    ts_put32(b, off, (uint32_t)(v >> 32));
    ts_put32(b, off + 4, (uint32_t)v);
}

/* LRH: byte 0 VL[7:4] LVer[3:0]; byte 1 SL[7:4] rsv[3:2] LNH[1:0]; 2-3 DLID;
 * 4-5 rsv[15:11] PktLen[10:0]; 6-7 SLID. */
size_t ts_put_lrh(uint8_t *b, size_t off, const struct ts_lrh *l)
{
    b[off] = (uint8_t)((l->vl & 0x0F) << 4 | (l->lver & 0x0F));
    b[off + 1] = (uint8_t)((l->sl & 0x0F) << 4 | (l->lnh & 0x03));
    ts_put16(b, off + 2, l->dlid);
    ts_put16(b, off + 4, l->pktlen & 0x07FF);
    ts_put16(b, off + 6, l->slid);
    return off + 8;
}

/* GRH: IPVer[31:28] TClass[27:20] FlowLabel[19:0]; 4-5 PayLen; 6 NxtHdr;
 * 7 HopLmt; 8-23 SGID; 24-39 DGID. */
size_t ts_put_grh(uint8_t *b, size_t off, const struct ts_grh *g)
{
    ts_put32(b, off, (uint32_t)(g->ipver & 0x0F) << 28 | (uint32_t)g->tclass << 20 |
                         (g->flowlabel & 0xFFFFF));
    ts_put16(b, off + 4, g->paylen);
    b[off + 6] = g->nxthdr;
    b[off + 7] = g->hoplmt;
    memcpy(b + off + 8, g->sgid, 16);
    memcpy(b + off + 24, g->dgid, 16);
    return off + 40;
}

/* BTH: 0 OpCode; 1 SE[7] M[6] PadCnt[5:4] TVer[3:0]; 2-3 P_Key; 4 rsv;
 * 5-7 DestQP; 8 AckReq[7]; 9-11 PSN. */
size_t ts_put_bth(uint8_t *b, size_t off, const struct ts_bth *t)
{
    b[off] = t->opcode;
    b[off + 1] = (uint8_t)((t->se ? 0x80 : 0) | (t->m ? 0x40 : 0) | (t->padcnt & 3) << 4 |
                           (t->tver & 0x0F));
    ts_put16(b, off + 2, t->pkey);
    b[off + 4] = 0;
    ts_put24(b, off + 5, t->destqp);
    b[off + 8] = t->ackreq ? 0x80 : 0;
    ts_put24(b, off + 9, t->psn);
    return off + 12;
}

/* DETH: 0-3 Q_Key; 4 rsv; 5-7 SrcQP. */
size_t ts_put_deth(uint8_t *b, size_t off, uint32_t qkey, uint32_t srcqp)
{
    ts_put32(b, off, qkey);
    b[off + 4] = 0;
    ts_put24(b, off + 5, srcqp);
    return off + 8;
}

/* MAD common header, 24 bytes. */
size_t ts_put_mad_hdr(uint8_t *b, size_t off, const struct ts_mad_hdr *m)
{
    b[off] = m->base_version;
    b[off + 1] = m->mgmt_class;
    b[off + 2] = m->class_version;
    b[off + 3] = m->method;
    ts_put16(b, off + 4, m->status);
    ts_put16(b, off + 6, m->class_specific);
    ts_put64(b, off + 8, m->tid);
    ts_put16(b, off + 16, m->attr_id);
    ts_put16(b, off + 18, 0);
    ts_put32(b, off + 20, m->attr_mod);
    return off + 24;
}

void ts_gid(uint8_t gid[16], const char *hex)
{
    if (ts_hex(hex, gid, 16) != 16)
        abort();
}

const struct ib_diag *ts_diag_find(const struct ib_diag_list *list, enum ib_diag_id id)
{
    for (unsigned i = 0; i < list->count; i++)
        if (list->items[i].id == id)
            return &list->items[i];
    return NULL;
}

void ts_diag_dump(const struct ib_diag_list *list)
{
    for (unsigned i = 0; i < list->count; i++)
        fprintf(stderr, "  diag %s offset %u length %u\n",
                ib_diag_info((enum ib_diag_id)list->items[i].id)->name,
                (unsigned)list->items[i].offset, (unsigned)list->items[i].length);
}

void ts_cm_header(uint8_t m[256], uint16_t attr)
{
    memset(m, 0, 256);
    struct ts_mad_hdr h = { .base_version = 1, .mgmt_class = 0x07, .class_version = 2,
                            .method = 0x03, .tid = 0x0102030405060708ull, .attr_id = attr };
    ts_put_mad_hdr(m, 0, &h);
}

/* Every REQ field distinct:
 *  24 LocalCommID 0x11223344; 28-31 reserved
 *  32 ServiceID 0x0000000001063039 (IP CM, TCP, port 12345)
 *  40 LocalCA GUID 0x0002C90300A1B2C3; 52 LocalQ_Key 0x1A2B3C4D
 *  56 LocalQPN 0xABCDEF; 59 ResponderResources 0x07
 *  60 LocalEECN 0x123456; 63 InitiatorDepth 0x09; 64 RemoteEECN 0x654321
 *  67 RemoteCMRespTimeout 0x15, TST 2, EEFC 1: 0x15<<3 | 2<<1 | 1 = 0xAD
 *  68 StartingPSN 0x789ABC; 71 LocalCMRespTimeout 0x13, RetryCount 6: 0x98|6 = 0x9E
 *  72 P_Key 0xBEEF; 74 PathMTU 5, RDC 1, RNRRetry 3: 0x50|0x08|3 = 0x5B
 *  75 MaxCMRetries 0xC, SRQ 1, ExtTransport 5: 0xC0|0x08|5 = 0xCD
 *  primary (76..119): LIDs 0x0101/0x0202, GIDs fe80::2:c903:a1:b2c3 / fe80::2:c903:d4:e5f6,
 *    112 FlowLabel 0xABCDE (bits 31:12), reserved 11:6 = 0, PacketRate 0x2A:
 *    word 0xABCDE02A -> bytes AB CD E0 2A
 *    116 TClass 0x5C; 117 HopLimit 0x3F; 118 SL 0xB, SubnetLocal 1 -> 0xB8;
 *    119 LocalAckTimeout 0x11 -> 0x88
 *  alternate (120..163): LIDs 0x0303/0x0404, GIDs fec0::1:2:3:4 / 2001:db8::99,
 *    156 FlowLabel 0x12345, reserved bits all set, PacketRate 0x15:
 *    0x12345000 | 0xFC0 | 0x15 = 0x12345FD5
 *    160 TClass 0x6D; 161 HopLimit 0x40; 162 SL 0x4, SubnetLocal 0, rsv 111 -> 0x47;
 *    163 LocalAckTimeout 0x0E, rsv 111 -> 0x77
 *  164 IP CM: 00 40 c350 (sport 50000), SrcIP ::192.168.1.10, DstIP ::10.0.0.20 */
void ts_build_cm_req(uint8_t m[256])
{
    ts_cm_header(m, 0x0010);
    ts_put32(m, 24, 0x11223344u);
    ts_put64(m, 32, 0x0000000001063039ull);
    ts_put64(m, 40, 0x0002C90300A1B2C3ull);
    ts_put32(m, 52, 0x1A2B3C4Du);
    ts_put24(m, 56, 0xABCDEF);
    m[59] = 0x07;
    ts_put24(m, 60, 0x123456);
    m[63] = 0x09;
    ts_put24(m, 64, 0x654321);
    m[67] = 0xAD;
    ts_put24(m, 68, 0x789ABC);
    m[71] = 0x9E;
    ts_put16(m, 72, 0xBEEF);
    m[74] = 0x5B;
    m[75] = 0xCD;
    ts_put16(m, 76, 0x0101);
    ts_put16(m, 78, 0x0202);
    ts_gid(m + 80, "fe80000000000000 0002c90300a1b2c3");
    ts_gid(m + 96, "fe80000000000000 0002c90300d4e5f6");
    ts_put32(m, 112, 0xABCDE02Au);
    m[116] = 0x5C;
    m[117] = 0x3F;
    m[118] = 0xB8;
    m[119] = 0x88;
    ts_put16(m, 120, 0x0303);
    ts_put16(m, 122, 0x0404);
    ts_gid(m + 124, "fec0000000000000 0001000200030004");
    ts_gid(m + 140, "20010db800000000 0000000000000099");
    ts_put32(m, 156, 0x12345FD5u);
    m[160] = 0x6D;
    m[161] = 0x40;
    m[162] = 0x47;
    m[163] = 0x77;
    ts_hex("00 40 c350 000000000000000000000000 c0a8010a"
           "000000000000000000000000 0a000014",
           m + 164, 36);
    memset(m + 200, 0xCD, 56); /* consumer private data */
}
