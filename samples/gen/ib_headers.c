/* ib_headers.c - builders for LRH/GRH/BTH/DETH, MAD, ClassPortInfo, SA, PerfMgt,
 * SMP NodeInfo, CM messages and IP CM private data (see ib_headers.h). */
#include "ib_headers.h"

#include <string.h>

void ib_pkt_ud(ib_pkt_t *p, uint16_t slid, uint16_t dlid, uint32_t sqp, uint32_t dqp, uint32_t qkey,
               const uint8_t *payload, size_t len)
{
    memset(p, 0, sizeof(*p));
    p->vl = dqp == 0 ? 15 : 0;
    p->lnh = -1;
    p->slid = slid;
    p->dlid = dlid;
    p->ipver = 6;
    p->nxthdr = IB_GRH_NXTHDR_BTH;
    p->hoplmt = 0;
    p->opcode = IB_OP_UD_SEND_ONLY;
    p->pkey = IB_PKEY_DEFAULT;
    p->dqp = dqp;
    p->deth = true;
    p->qkey = qkey;
    p->sqp = sqp;
    p->payload = payload;
    p->payload_len = len;
}

uint8_t ib_padcnt(const ib_pkt_t *p)
{
    return (uint8_t)((4 - (p->payload_len & 3)) & 3);
}

size_t ib_after_grh_len(const ib_pkt_t *p)
{
    if (p->no_bth)
        return p->payload_len;
    return IB_BTH_LEN + (p->deth ? IB_DETH_LEN : 0) + p->payload_len + ib_padcnt(p) + IB_ICRC_LEN;
}

size_t ib_pktlen_bytes(const ib_pkt_t *p)
{
    return IB_LRH_LEN + (p->grh ? IB_GRH_LEN : 0) + ib_after_grh_len(p);
}

void ib_put_lrh(fb_t *fb, const ib_pkt_t *p)
{
    int lnh = p->lnh >= 0 ? p->lnh : (p->grh ? IB_LNH_GRH : IB_LNH_BTH);
    int words = (int)((ib_pktlen_bytes(p) + 3) / 4) + p->pktlen_adjust;
    fb_u8(fb, (uint8_t)((p->vl << 4) | (p->lver & 0x0F)));
    fb_u8(fb, (uint8_t)((p->sl << 4) | (lnh & 3)));
    fb_be16(fb, p->dlid);
    fb_be16(fb, (uint16_t)(words & 0x7FF));
    fb_be16(fb, p->slid);
}

void ib_put_grh(fb_t *fb, const ib_pkt_t *p)
{
    int paylen = (int)ib_after_grh_len(p) + p->paylen_adjust;
    fb_be32(fb,
            ((uint32_t)(p->ipver & 0xF) << 28) | ((uint32_t)p->tclass << 20) | (p->flow & 0xFFFFF));
    fb_be16(fb, (uint16_t)paylen);
    fb_u8(fb, p->nxthdr);
    fb_u8(fb, p->hoplmt);
    fb_bytes(fb, p->sgid, 16);
    fb_bytes(fb, p->dgid, 16);
}

void ib_put_transport(fb_t *fb, const ib_pkt_t *p)
{
    if (p->no_bth) {
        fb_bytes(fb, p->payload, p->payload_len);
        return;
    }
    uint8_t pad = ib_padcnt(p);
    fb_u8(fb, p->opcode);
    fb_u8(fb, (uint8_t)((p->se ? 0x80 : 0) | (p->mig ? 0x40 : 0) | (pad << 4) | (p->tver & 0x0F)));
    fb_be16(fb, p->pkey);
    fb_be32(fb, p->dqp & 0xFFFFFF); /* rsv8a = 0 */
    fb_be32(fb, (p->ackreq ? 0x80000000u : 0) | (p->psn & 0xFFFFFF));
    if (p->deth) {
        fb_be32(fb, p->qkey);
        fb_be32(fb, p->sqp & 0xFFFFFF);
    }
    fb_bytes(fb, p->payload, p->payload_len);
    fb_fill(fb, 0, pad);
}

/* ---- MAD ---------------------------------------------------------------- */

void mad_init(mad_t *m, uint8_t mgmt_class, uint8_t class_ver, uint8_t method, uint16_t status,
              uint64_t tid, uint16_t attr, uint32_t attr_mod)
{
    memset(m->b, 0, sizeof(m->b));
    m->b[0] = 1;
    m->b[1] = mgmt_class;
    m->b[2] = class_ver;
    m->b[3] = method;
    put_be16(m->b + 4, status);
    put_be64(m->b + 8, tid);
    put_be16(m->b + 16, attr);
    put_be32(m->b + 20, attr_mod);
}

void cpi_put(uint8_t *d, const cpi_t *c)
{
    memset(d, 0, CPI_LEN);
    d[0] = c->base_ver;
    d[1] = c->class_ver;
    put_be16(d + 2, c->cap_mask);
    put_be32(d + 4, (c->cap_mask2 << 5) | (c->resp_time & 0x1F));
    memcpy(d + 8, c->redirect_gid, 16);
    put_be32(d + 24, ((uint32_t)c->redirect_tc << 24) | ((uint32_t)(c->redirect_sl & 0xF) << 20) |
                         (c->redirect_fl & 0xFFFFF));
    put_be16(d + 28, c->redirect_lid);
    put_be16(d + 30, c->redirect_pkey);
    put_be24(d + 33, c->redirect_qp);
    put_be32(d + 36, c->redirect_qkey);
    memcpy(d + 40, c->trap_gid, 16);
    put_be16(d + 60, c->trap_lid);
    put_be16(d + 62, c->trap_pkey);
    d[64] = c->trap_hl;
    put_be24(d + 65, c->trap_qp);
    put_be32(d + 68, c->trap_qkey);
}

void sa_put_header(mad_t *m, uint64_t sm_key, uint16_t attr_offset, uint64_t comp_mask)
{
    put_be64(m->b + 36, sm_key);
    put_be16(m->b + 44, attr_offset);
    put_be64(m->b + 48, comp_mask);
}

void sa_put_path_record(uint8_t *d, const path_rec_t *pr)
{
    memset(d, 0, 64);
    memcpy(d + 8, pr->dgid, 16);
    memcpy(d + 24, pr->sgid, 16);
    put_be16(d + 40, pr->dlid);
    put_be16(d + 42, pr->slid);
    put_be32(d + 44, ((pr->flow & 0xFFFFF) << 8) | pr->hop_limit);
    d[48] = pr->tclass;
    d[49] = (uint8_t)((pr->reversible ? 0x80 : 0) | (pr->numb_path & 0x7F));
    put_be16(d + 50, pr->pkey);
    put_be16(d + 52, pr->sl & 0xF);
    d[54] = (uint8_t)(0x80 | (pr->mtu & 0x3F)); /* selector 2: exactly */
    d[55] = (uint8_t)(0x80 | (pr->rate & 0x3F));
    d[56] = (uint8_t)(0x80 | (pr->pkt_life & 0x3F));
}

void perf_put_port_counters(uint8_t *d, uint8_t port, uint16_t counter_select, bool with_counters,
                            uint32_t seed)
{
    memset(d, 0, 44);
    d[1] = port;
    put_be16(d + 2, counter_select);
    if (!with_counters)
        return;
    put_be16(d + 4, (uint16_t)(seed & 0x3));      /* SymbolErrorCounter */
    put_be32(d + 24, 0x01000000u + seed * 977u);  /* PortXmitData */
    put_be32(d + 28, 0x00F00000u + seed * 1013u); /* PortRcvData */
    put_be32(d + 32, 0x00040000u + seed * 31u);   /* PortXmitPkts */
    put_be32(d + 36, 0x0003C000u + seed * 29u);   /* PortRcvPkts */
    put_be32(d + 40, seed * 7u);                  /* PortXmitWait */
}

void smp_put_node_info(uint8_t *d, uint8_t node_type, uint8_t nports, uint64_t sys_guid,
                       uint64_t node_guid, uint64_t port_guid, uint8_t local_port,
                       uint32_t vendor_id)
{
    memset(d, 0, 40);
    d[0] = 1;
    d[1] = 1;
    d[2] = node_type;
    d[3] = nports;
    put_be64(d + 4, sys_guid);
    put_be64(d + 12, node_guid);
    put_be64(d + 20, port_guid);
    put_be16(d + 28, 0x0040);     /* PartitionCap */
    put_be16(d + 30, 0x101B);     /* DeviceID (ConnectX-6) */
    put_be32(d + 32, 0x00000000); /* Revision */
    d[36] = local_port;
    put_be24(d + 37, vendor_id);
}

/* ---- CM ----------------------------------------------------------------- */

static void cm_put_path(uint8_t *d, const cm_path_t *p)
{
    put_be16(d + 0, p->local_lid);
    put_be16(d + 2, p->remote_lid);
    memcpy(d + 4, p->local_gid, 16);
    memcpy(d + 20, p->remote_gid, 16);
    put_be32(d + 36, ((p->flow & 0xFFFFF) << 12) | (p->rate & 0x3F));
    d[40] = p->tclass;
    d[41] = p->hop_limit;
    d[42] = (uint8_t)(((p->sl & 0xF) << 4) | (p->subnet_local ? 0x08 : 0));
    d[43] = (uint8_t)((p->ack_timeout & 0x1F) << 3);
}

void cm_put_req(mad_t *m, const cm_req_t *r)
{
    uint8_t *b = m->b;
    put_be32(b + 24, r->local_comm_id);
    put_be64(b + 32, r->service_id);
    put_be64(b + 40, r->local_ca_guid);
    put_be32(b + 52, r->local_qkey);
    put_be24(b + 56, r->local_qpn);
    b[59] = r->resp_res;
    b[63] = r->init_depth;
    b[67] = (uint8_t)(((r->remote_cm_timeout & 0x1F) << 3) | ((r->tst & 3) << 1));
    put_be24(b + 68, r->start_psn);
    b[71] = (uint8_t)(((r->local_cm_timeout & 0x1F) << 3) | (r->retry_count & 7));
    put_be16(b + 72, r->pkey);
    b[74] = (uint8_t)(((r->mtu & 0xF) << 4) | (r->rnr_retry & 7));
    b[75] = (uint8_t)(((r->max_cm_retries & 0xF) << 4) | (r->srq ? 0x08 : 0));
    cm_put_path(b + 76, &r->primary);
    if (r->has_alternate)
        cm_put_path(b + 120, &r->alternate);
    size_t n = r->priv_len > CM_REQ_PRIV_LEN ? CM_REQ_PRIV_LEN : r->priv_len;
    if (n)
        memcpy(b + CM_REQ_PRIV_OFF, r->priv, n);
}

void cm_put_rep(mad_t *m, const cm_rep_t *r)
{
    uint8_t *b = m->b;
    put_be32(b + 24, r->local_comm_id);
    put_be32(b + 28, r->remote_comm_id);
    put_be32(b + 32, r->local_qkey);
    put_be24(b + 36, r->local_qpn);
    put_be24(b + 44, r->start_psn);
    b[48] = r->resp_res;
    b[49] = r->init_depth;
    b[50] = (uint8_t)(((r->target_ack_delay & 0x1F) << 3) | ((r->failover & 3) << 1));
    b[51] = (uint8_t)(((r->rnr_retry & 7) << 5) | (r->srq ? 0x10 : 0));
    put_be64(b + 52, r->local_ca_guid);
}

static void cm_put_ids(mad_t *m, uint32_t local, uint32_t remote)
{
    put_be32(m->b + 24, local);
    put_be32(m->b + 28, remote);
}

void cm_put_rtu(mad_t *m, uint32_t local, uint32_t remote)
{
    cm_put_ids(m, local, remote);
}

void cm_put_drep(mad_t *m, uint32_t local, uint32_t remote)
{
    cm_put_ids(m, local, remote);
}

void cm_put_dreq(mad_t *m, uint32_t local, uint32_t remote, uint32_t remote_qpn)
{
    cm_put_ids(m, local, remote);
    put_be24(m->b + 32, remote_qpn);
}

void cm_put_lap(mad_t *m, uint32_t local, uint32_t remote, uint32_t remote_qpn,
                uint8_t remote_cm_timeout, const cm_path_t *alt)
{
    uint8_t *b = m->b;
    cm_put_ids(m, local, remote);
    put_be24(b + 36, remote_qpn);
    b[39] = (uint8_t)((remote_cm_timeout & 0x1F) << 3);
    put_be16(b + 44, alt->local_lid);
    put_be16(b + 46, alt->remote_lid);
    memcpy(b + 48, alt->local_gid, 16);
    memcpy(b + 64, alt->remote_gid, 16);
    put_be32(b + 80, ((alt->flow & 0xFFFFF) << 12) | alt->tclass);
    b[84] = alt->hop_limit;
    b[85] = (uint8_t)(alt->rate & 0x3F);
    b[86] = (uint8_t)(((alt->sl & 0xF) << 4) | (alt->subnet_local ? 0x08 : 0));
    b[87] = (uint8_t)((alt->ack_timeout & 0x1F) << 3);
}

void cm_put_mra(mad_t *m, uint32_t local, uint32_t remote, uint8_t msg_mraed,
                uint8_t service_timeout)
{
    cm_put_ids(m, local, remote);
    m->b[32] = (uint8_t)((msg_mraed & 3) << 6);
    m->b[33] = (uint8_t)((service_timeout & 0x1F) << 3);
}

void cm_put_rej(mad_t *m, uint32_t local, uint32_t remote, uint8_t msg_rejected, uint16_t reason,
                const uint8_t *ari, uint8_t ari_len)
{
    cm_put_ids(m, local, remote);
    m->b[32] = (uint8_t)((msg_rejected & 3) << 6);
    if (ari_len > 72)
        ari_len = 72;
    m->b[33] = (uint8_t)(ari_len << 1);
    put_be16(m->b + 34, reason);
    if (ari && ari_len)
        memcpy(m->b + 36, ari, ari_len);
}

void cm_put_sidr_req(mad_t *m, uint32_t request_id, uint16_t pkey, uint64_t service_id)
{
    put_be32(m->b + 24, request_id);
    put_be16(m->b + 28, pkey);
    put_be64(m->b + 32, service_id);
}

void cm_put_sidr_rep(mad_t *m, uint32_t request_id, uint8_t status, const uint8_t *info,
                     uint8_t info_len, uint32_t qpn, uint64_t service_id, uint32_t qkey)
{
    put_be32(m->b + 24, request_id);
    m->b[28] = status;
    if (info_len > 72)
        info_len = 72;
    m->b[29] = info_len;
    put_be24(m->b + 32, qpn);
    put_be64(m->b + 36, service_id);
    put_be32(m->b + 44, qkey);
    if (info && info_len)
        memcpy(m->b + 48, info, info_len);
}

void ipcm_put(uint8_t *d, const ipcm_t *h)
{
    memset(d, 0, IPCM_LEN);
    d[0] = (uint8_t)((h->majv << 4) | (h->minv & 0xF));
    d[1] = (uint8_t)(h->ipv << 4);
    put_be16(d + 2, h->sport);
    memcpy(d + 4, h->sip, 16);
    memcpy(d + 20, h->dip, 16);
}

void ip4_to_16(uint8_t dst[16], uint32_t ip4)
{
    memset(dst, 0, 12);
    put_be32(dst + 12, ip4);
}
