/* rc_frames.c - RC transport packets (IBA Vol. 1 9.2-9.3): a message's
 * request packets by its kind and place (first, middle, last, only) with
 * their extended headers (RETH, AtomicETH, ImmDt, IETH), and the
 * responder's ACKs, NAKs, READ responses and atomic ACKs (AETH,
 * AtomicAckETH). See rc.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rc.h"

#define EXT_MAX 64
#define PKT_MAX (EXT_MAX + 4096)

/* RC opcodes (IBA Vol. 1 Table 38), transport 000. */
enum {
    OP_SEND_FIRST = 0x00,
    OP_SEND_MIDDLE = 0x01,
    OP_SEND_LAST = 0x02,
    OP_SEND_LAST_IMM = 0x03,
    OP_SEND_ONLY = 0x04,
    OP_SEND_ONLY_IMM = 0x05,
    OP_WRITE_FIRST = 0x06,
    OP_WRITE_MIDDLE = 0x07,
    OP_WRITE_LAST = 0x08,
    OP_WRITE_LAST_IMM = 0x09,
    OP_WRITE_ONLY = 0x0A,
    OP_WRITE_ONLY_IMM = 0x0B,
    OP_READ_REQUEST = 0x0C,
    OP_READ_RESP_FIRST = 0x0D,
    OP_READ_RESP_MIDDLE = 0x0E,
    OP_READ_RESP_LAST = 0x0F,
    OP_READ_RESP_ONLY = 0x10,
    OP_ACK = 0x11,
    OP_ATOMIC_ACK = 0x12,
    OP_CMP_SWAP = 0x13,
    OP_FETCH_ADD = 0x14,
    OP_SEND_LAST_INV = 0x16,
    OP_SEND_ONLY_INV = 0x17,
};

uint32_t rc_psn_add(uint32_t psn, uint32_t n)
{
    return (psn + n) & 0xFFFFFFu;
}

rc_msg_t rc_post(rc_qp_t *qp, rc_kind_t kind, uint32_t len)
{
    rc_msg_t m;
    memset(&m, 0, sizeof m);
    m.qp = qp;
    m.kind = kind;
    m.len = len;
    m.psn = qp->next_psn;
    m.npsn = kind == RC_CMP_SWAP || kind == RC_FETCH_ADD ? 1 : (len + qp->mtu - 1) / qp->mtu;
    if (m.npsn == 0)
        m.npsn = 1;
    if (kind == RC_CMP_SWAP || kind == RC_FETCH_ADD)
        m.len = 8;
    m.msn = (qp->msn + 1) & 0xFFFFFFu;
    m.va = qp->va;
    qp->msn = m.msn;
    qp->va += (len + 63) & ~63ull;
    qp->next_psn = rc_psn_add(qp->next_psn, m.npsn);
    return m;
}

/* Payload bytes of packet i of a message split at the MTU. */
static uint32_t seg_len(uint32_t len, uint32_t mtu, uint32_t i, uint32_t n)
{
    return i + 1 < n ? mtu : len - (n - 1) * mtu;
}

/* The packet's bytes after the BTH: its headers, then payload bytes that
 * say which PSN they ride in. */
static size_t body(uint8_t *out, const uint8_t *ext, size_t ext_len, uint32_t psn, uint32_t plen)
{
    /* bytes psn * 7 + j (mod 256): a slice of a ramp, copied (rc-bulk's speed) */
    static uint8_t ramp[PKT_MAX + 256];
    if (ramp[1] == 0)
        for (size_t j = 0; j < sizeof ramp; j++)
            ramp[j] = (uint8_t)j;
    memcpy(out, ext, ext_len);
    memcpy(out + ext_len, ramp + ((psn * 7u) & 0xFF), plen);
    return ext_len + plen;
}

static uint32_t emit(rc_t *k, host_t *src, host_t *dst, uint32_t dqp, uint8_t opcode, uint32_t psn,
                     bool ackreq, const uint8_t *bytes, size_t len)
{
    ib_pkt_t p;
    memset(&p, 0, sizeof p);
    p.lnh = -1;
    p.slid = src->lid;
    p.dlid = dst->lid;
    p.ipver = 6;
    p.nxthdr = IB_GRH_NXTHDR_BTH;
    p.opcode = opcode;
    p.pkey = IB_PKEY_DEFAULT;
    p.dqp = dqp;
    p.psn = psn & 0xFFFFFFu;
    p.ackreq = ackreq;
    p.payload = bytes;
    p.payload_len = len;
    uint64_t t = rc_now(k);
    uint32_t f = gen_emit_ib(k->g, &p, src, dst);
    if (f <= RC_MAX_FRAMES) {
        k->ft[f] = t;
    } else if (!k->untimed) {
        fprintf(stderr, "ibscope-gen: rc: more than %d frames in a case (bug)\n", RC_MAX_FRAMES);
        abort();
    }
    return f;
}

static size_t put_reth(uint8_t *b, uint64_t va, uint32_t rkey, uint32_t len)
{
    put_be64(b, va);
    put_be32(b + 8, rkey);
    put_be32(b + 12, len);
    return 16;
}

static size_t put_aeth(uint8_t *b, uint8_t syndrome, uint32_t msn)
{
    put_be32(b, ((uint32_t)syndrome << 24) | (msn & 0xFFFFFFu));
    return 4;
}

/* The opcode of packet i of n of a SEND or WRITE; first/middle/last/only. */
static uint8_t seg_opcode(rc_kind_t kind, uint32_t i, uint32_t n)
{
    bool send = kind == RC_SEND || kind == RC_SEND_IMM || kind == RC_SEND_INV;
    if (n == 1) {
        static const uint8_t only[] = { [RC_SEND] = OP_SEND_ONLY,
                                        [RC_SEND_IMM] = OP_SEND_ONLY_IMM,
                                        [RC_SEND_INV] = OP_SEND_ONLY_INV,
                                        [RC_WRITE] = OP_WRITE_ONLY,
                                        [RC_WRITE_IMM] = OP_WRITE_ONLY_IMM };
        return only[kind];
    }
    if (i == 0)
        return send ? OP_SEND_FIRST : OP_WRITE_FIRST;
    if (i + 1 < n)
        return send ? OP_SEND_MIDDLE : OP_WRITE_MIDDLE;
    static const uint8_t last[] = { [RC_SEND] = OP_SEND_LAST,
                                    [RC_SEND_IMM] = OP_SEND_LAST_IMM,
                                    [RC_SEND_INV] = OP_SEND_LAST_INV,
                                    [RC_WRITE] = OP_WRITE_LAST,
                                    [RC_WRITE_IMM] = OP_WRITE_LAST_IMM };
    return last[kind];
}

uint32_t rc_request(rc_t *k, const rc_msg_t *m, uint32_t i)
{
    const rc_qp_t *qp = m->qp;
    uint8_t ext[EXT_MAX], pkt[PKT_MAX];
    size_t e = 0;
    uint32_t psn = rc_psn_add(m->psn, i), plen = 0;
    uint8_t op;
    bool last = true;
    switch (m->kind) {
    case RC_READ:
        op = OP_READ_REQUEST;
        e += put_reth(ext, m->va, qp->rkey, m->len);
        break;
    case RC_CMP_SWAP:
    case RC_FETCH_ADD:
        op = m->kind == RC_CMP_SWAP ? OP_CMP_SWAP : OP_FETCH_ADD;
        put_be64(ext, m->va);
        put_be32(ext + 8, qp->rkey);
        put_be64(ext + 12, m->kind == RC_CMP_SWAP ? 0x2 : 0x1); /* swap, or add */
        put_be64(ext + 20, m->kind == RC_CMP_SWAP ? 0x1 : 0);   /* compare */
        e = 28;
        break;
    default:
        op = seg_opcode(m->kind, i, m->npsn);
        last = i + 1 == m->npsn;
        plen = seg_len(m->len, qp->mtu, i, m->npsn);
        if ((m->kind == RC_WRITE || m->kind == RC_WRITE_IMM) && i == 0)
            e += put_reth(ext, m->va, qp->rkey, m->len);
        if ((m->kind == RC_SEND_IMM || m->kind == RC_WRITE_IMM) && last) {
            put_be32(ext + e, 0xC0DE0000u | (psn & 0xFFFF)); /* ImmDt */
            e += 4;
        }
        if (m->kind == RC_SEND_INV && last) {
            put_be32(ext + e, qp->rkey ^ 0x100); /* IETH: the R_Key to invalidate */
            e += 4;
        }
        break;
    }
    size_t n = body(pkt, ext, e, psn, plen);
    /* AckReq on a message's last packet, as rxe and mlx5 set it */
    return emit(k, qp->req, qp->rsp, qp->dqp, op, psn, last, pkt, n);
}

uint32_t rc_request_from(rc_t *k, const rc_msg_t *m, uint32_t i)
{
    uint32_t n = m->kind == RC_READ ? 1 : m->npsn, f = 0;
    for (; i < n; i++) {
        f = rc_request(k, m, i);
    }
    return f;
}

static uint32_t answer(rc_t *k, rc_qp_t *qp, uint8_t op, uint32_t psn, const uint8_t *b, size_t n)
{
    return emit(k, qp->rsp, qp->req, qp->rqp, op, psn, false, b, n);
}

uint32_t rc_ack_psn(rc_t *k, rc_qp_t *qp, uint32_t psn, uint32_t msn)
{
    uint8_t b[4];
    put_aeth(b, RC_AETH_ACK, msn);
    return answer(k, qp, OP_ACK, psn, b, 4);
}

uint32_t rc_ack(rc_t *k, const rc_msg_t *m)
{
    return rc_ack_psn(k, m->qp, rc_psn_add(m->psn, m->npsn - 1), m->msn);
}

uint32_t rc_cnp(rc_t *k, host_t *from, host_t *to, uint32_t dqp)
{
    static const uint8_t reserved[16];
    return emit(k, from, to, dqp, 0x81, 0, false, reserved, sizeof reserved);
}

uint32_t rc_nak(rc_t *k, rc_qp_t *qp, uint32_t psn, uint32_t msn, uint8_t code)
{
    uint8_t b[4];
    put_aeth(b, (uint8_t)(RC_AETH_NAK | (code & 0x1F)), msn);
    return answer(k, qp, OP_ACK, psn, b, 4);
}

uint32_t rc_rnr_nak(rc_t *k, rc_qp_t *qp, uint32_t psn, uint32_t msn, uint8_t timer)
{
    uint8_t b[4];
    put_aeth(b, (uint8_t)(RC_AETH_RNR_NAK | (timer & 0x1F)), msn);
    return answer(k, qp, OP_ACK, psn, b, 4);
}

uint32_t rc_read_response(rc_t *k, const rc_msg_t *m, uint32_t i)
{
    uint8_t ext[4], pkt[PKT_MAX];
    uint32_t n = m->npsn, psn = rc_psn_add(m->psn, i);
    uint8_t op = n == 1      ? OP_READ_RESP_ONLY
                 : i == 0    ? OP_READ_RESP_FIRST
                 : i + 1 < n ? OP_READ_RESP_MIDDLE
                             : OP_READ_RESP_LAST;
    /* the middle responses carry no AETH (IBA 9.3.5) */
    size_t e = op == OP_READ_RESP_MIDDLE ? 0 : put_aeth(ext, RC_AETH_ACK, m->msn);
    size_t len = body(pkt, ext, e, psn, seg_len(m->len, m->qp->mtu, i, n));
    return answer(k, m->qp, op, psn, pkt, len);
}

uint32_t rc_read_responses(rc_t *k, const rc_msg_t *m)
{
    uint32_t f = 0;
    for (uint32_t i = 0; i < m->npsn; i++) {
        f = rc_read_response(k, m, i);
    }
    return f;
}

uint32_t rc_atomic_ack(rc_t *k, const rc_msg_t *m, uint64_t orig)
{
    uint8_t b[12];
    put_aeth(b, RC_AETH_ACK, m->msn);
    put_be64(b + 4, orig);
    return answer(k, m->qp, OP_ATOMIC_ACK, m->psn, b, sizeof b);
}
