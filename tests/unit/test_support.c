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
    ts_put32(b, off,
             (uint32_t)(g->ipver & 0x0F) << 28 | (uint32_t)g->tclass << 20 |
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
    b[off + 1] =
        (uint8_t)((t->se ? 0x80 : 0) | (t->m ? 0x40 : 0) | (t->padcnt & 3) << 4 | (t->tver & 0x0F));
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
    struct ts_mad_hdr h = { .base_version = 1,
                            .mgmt_class = 0x07,
                            .class_version = 2,
                            .method = 0x03,
                            .tid = 0x0102030405060708ull,
                            .attr_id = attr };
    ts_put_mad_hdr(m, 0, &h);
}

struct ib_endpoint ts_rocev2_host(uint8_t last)
{
    struct ib_endpoint ep;
    memset(&ep, 0, sizeof ep);
    ep.has_gid = true;
    ep.gid[10] = ep.gid[11] = 0xFF;
    ep.gid[12] = 10;
    ep.gid[15] = last;
    return ep;
}
