/* cm_flow.c - CM message sequences for one connection (see cm_flow.h). */
#include "cm_flow.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

void cm_conn_init(gen_t *g, cm_conn_t *c, host_t *act, host_t *pas, uint16_t ps, uint16_t sport,
                  uint16_t dport, bool ipv6)
{
    memset(c, 0, sizeof(*c));
    c->act = act;
    c->pas = pas;
    c->ps = ps;
    c->sport = sport;
    c->dport = dport;
    c->ipv6 = ipv6;
    c->act_id = (uint32_t)prng_next(&g->rng);
    c->pas_id = (uint32_t)prng_next(&g->rng);
    c->act_qpn = 0x000100u | (prng_below(&g->rng, 0x3FFFu) << 8);
    c->pas_qpn = 0x000100u | (prng_below(&g->rng, 0x3FFFu) << 8);
    c->act_qpn = (c->act_qpn & 0xFFFF00u) | (uint32_t)(act->lid & 0xFF);
    c->pas_qpn = (c->pas_qpn & 0xFFFF00u) | (uint32_t)(pas->lid & 0xFF);
    c->act_psn = prng_below(&g->rng, 0x1000000u);
    c->pas_psn = prng_below(&g->rng, 0x1000000u);
    c->req_tid = ((uint64_t)act->hi_tid << 32) | c->act_id;
}

uint64_t cm_conn_service_id(const cm_conn_t *c)
{
    return ipcm_service_id(c->ps, c->dport);
}

const char *cm_conn_tuple(const cm_conn_t *c, char *buf, size_t len)
{
    char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
    if (c->ipv6) {
        inet_ntop(AF_INET6, c->act->ip6, s, sizeof(s));
        inet_ntop(AF_INET6, c->pas->ip6, d, sizeof(d));
        snprintf(buf, len, "[%s]:%u -> [%s]:%u", s, c->sport, d, c->dport);
    } else {
        uint32_t a = htonl(c->act->ip4), b = htonl(c->pas->ip4);
        inet_ntop(AF_INET, &a, s, sizeof(s));
        inet_ntop(AF_INET, &b, d, sizeof(d));
        snprintf(buf, len, "%s:%u -> %s:%u", s, c->sport, d, c->dport);
    }
    return buf;
}

static const char *cname(const cm_conn_t *c, char *buf, size_t len)
{
    char t[112];
    if (c->name)
        snprintf(buf, len, "connection %s", c->name);
    else
        snprintf(buf, len, "%s", cm_conn_tuple(c, t, sizeof(t)));
    return buf;
}

static void cm_knobs(gen_t *g, const cm_conn_t *c)
{
    g->next.ipv6 = c->ipv6;
    g->next.ntags = c->ntags;
    for (int i = 0; i < 2; i++) {
        g->next.tpid[i] = c->tpid[i];
        g->next.tci[i] = c->tci[i];
    }
}

static uint32_t cm_send(gen_t *g, const cm_conn_t *c, bool from_active, const mad_t *m)
{
    cm_knobs(g, c);
    host_t *src = from_active ? c->act : c->pas;
    host_t *dst = from_active ? c->pas : c->act;
    return gen_emit_mad(g, src, dst, 1, 1, IB_QKEY_GSI, m);
}

static void cm_ipcm(const cm_conn_t *c, uint8_t *dst)
{
    ipcm_t h;
    memset(&h, 0, sizeof(h));
    h.majv = c->ipcm_majv;
    h.ipv = c->ipcm_ipv ? c->ipcm_ipv : (c->ipv6 ? 6 : 4);
    h.sport = c->sport;
    if (c->ipv6) {
        memcpy(h.sip, c->act->ip6, 16);
        memcpy(h.dip, c->pas->ip6, 16);
    } else {
        ip4_to_16(h.sip, c->act->ip4);
        ip4_to_16(h.dip, c->pas->ip4);
    }
    ipcm_put(dst, &h);
}

/* The path between the hosts' second ports (alt_act, alt_pas): LIDs and
 * GIDs on native IB, GIDs alone on RoCE. */
static void cm_alt_path(const gen_t *g, const cm_conn_t *c, uint8_t ack_timeout, cm_path_t *p)
{
    memset(p, 0, sizeof(*p));
    p->ack_timeout = ack_timeout;
    p->rate = 16;
    p->subnet_local = true;
    if (g->link != LINK_ETH && g->link != LINK_SLL) {
        p->local_lid = c->alt_act->lid;
        p->remote_lid = c->alt_pas->lid;
        memcpy(p->local_gid, c->alt_act->gid, 16);
        memcpy(p->remote_gid, c->alt_pas->gid, 16);
    } else {
        p->local_lid = 0xFFFF;
        p->remote_lid = 0xFFFF;
        host_roce_gid(c->alt_act, c->ipv6, p->local_gid);
        host_roce_gid(c->alt_pas, c->ipv6, p->remote_gid);
        p->hop_limit = 64;
        p->subnet_local = false;
    }
}

void cm_build_req(gen_t *g, const cm_conn_t *c, mad_t *m)
{
    uint8_t priv[CM_REQ_PRIV_LEN];
    memset(priv, 0, sizeof(priv));
    cm_ipcm(c, priv);

    cm_req_t r;
    memset(&r, 0, sizeof(r));
    r.local_comm_id = c->act_id;
    r.service_id = cm_conn_service_id(c);
    r.local_ca_guid = c->act->node_guid;
    r.local_qpn = c->act_qpn;
    r.start_psn = c->act_psn;
    r.resp_res = 16;
    r.init_depth = 16;
    r.remote_cm_timeout = 20;
    r.local_cm_timeout = 20;
    r.retry_count = 7;
    r.tst = 0; /* RC */
    r.pkey = IB_PKEY_DEFAULT;
    r.rnr_retry = 7;
    r.max_cm_retries = 15;
    r.priv = priv;
    r.priv_len = sizeof(priv);

    cm_path_t *p = &r.primary;
    p->sl = 0;
    p->ack_timeout = c->pkt_life ? (uint8_t)(c->pkt_life + 1) : 19;
    if (g->link == LINK_ETH || g->link == LINK_SLL) {
        /* RoCE: no LIDs; the permissive LID is what Linux puts there */
        p->local_lid = 0xFFFF;
        p->remote_lid = 0xFFFF;
        r.mtu = 3; /* 1024 */
        p->rate = 16;
        if (g->link == LINK_ETH && g->roce == 1) {
            memcpy(p->local_gid, c->act->gid, 16);
            memcpy(p->remote_gid, c->pas->gid, 16);
            p->hop_limit = 1;
            p->subnet_local = true;
        } else {
            host_roce_gid(c->act, c->ipv6, p->local_gid);
            host_roce_gid(c->pas, c->ipv6, p->remote_gid);
            p->hop_limit = 64;
            p->subnet_local = false;
        }
    } else {
        p->local_lid = c->act->lid;
        p->remote_lid = c->pas->lid;
        memcpy(p->local_gid, c->act->gid, 16);
        memcpy(p->remote_gid, c->pas->gid, 16);
        r.mtu = 5;    /* 4096 */
        p->rate = 16; /* 100 Gb/s */
        p->hop_limit = 0;
        p->subnet_local = true;
    }
    if (c->budget) {
        r.retry_count = c->budget->retry_count;
        r.rnr_retry = c->budget->req_rnr_retry;
        r.mtu = c->budget->mtu;
        p->ack_timeout = c->budget->ack_timeout;
    }
    if (c->alt_act && c->alt_pas) {
        r.has_alternate = true;
        cm_alt_path(g, c, p->ack_timeout, &r.alternate);
    }
    mad_init(m, MAD_CLASS_CM, CM_CLASS_VERSION, MAD_METHOD_SEND, 0, c->req_tid, CM_ATTR_REQ, 0);
    cm_put_req(m, &r);
}

uint32_t cm_req(gen_t *g, cm_conn_t *c)
{
    mad_t m;
    cm_build_req(g, c, &m);
    char n[128];
    uint32_t f = cm_send(g, c, true, &m);
    if (c->req_frame)
        gen_note_fallback(g, f, "REQ again for %s (LocalCommID 0x%08x, as in frame %u)",
                          cname(c, n, sizeof(n)), c->act_id, c->req_frame);
    else
        gen_note_fallback(g, f, "REQ, %s, LocalCommID 0x%08x", cname(c, n, sizeof(n)), c->act_id);
    c->req_frame = f;
    return f;
}

uint32_t cm_rep(gen_t *g, cm_conn_t *c)
{
    mad_t m;
    mad_init(&m, MAD_CLASS_CM, CM_CLASS_VERSION, MAD_METHOD_SEND, 0, c->req_tid, CM_ATTR_REP, 0);
    cm_rep_t r;
    memset(&r, 0, sizeof(r));
    r.local_comm_id = c->pas_id;
    r.remote_comm_id = c->act_id;
    r.local_qpn = c->pas_qpn;
    r.start_psn = c->pas_psn;
    r.resp_res = 16;
    r.init_depth = 16;
    r.target_ack_delay = 15;
    r.failover = 1; /* not supported: no alternate path */
    r.rnr_retry = 7;
    if (c->budget) {
        r.target_ack_delay = c->budget->target_ack_delay;
        r.rnr_retry = c->budget->rep_rnr_retry;
    }
    r.local_ca_guid = c->pas->node_guid;
    cm_put_rep(&m, &r);
    char n[128];
    uint32_t f = cm_send(g, c, false, &m);
    gen_note_fallback(g, f,
                      "REP, %s: accepts the REQ of frame %u (LocalCommID 0x%08x, RemoteCommID "
                      "0x%08x, same TID)",
                      cname(c, n, sizeof(n)), c->req_frame, c->pas_id, c->act_id);
    return f;
}

uint32_t cm_rtu(gen_t *g, cm_conn_t *c)
{
    mad_t m;
    mad_init(&m, MAD_CLASS_CM, CM_CLASS_VERSION, MAD_METHOD_SEND, 0, c->req_tid, CM_ATTR_RTU, 0);
    cm_put_rtu(&m, c->act_id, c->pas_id);
    char n[128];
    uint32_t f = cm_send(g, c, true, &m);
    gen_note_fallback(g, f, "RTU, %s: established", cname(c, n, sizeof(n)));
    return f;
}

uint32_t cm_mra(gen_t *g, cm_conn_t *c, uint8_t msg_mraed, uint8_t timeout)
{
    mad_t m;
    mad_init(&m, MAD_CLASS_CM, CM_CLASS_VERSION, MAD_METHOD_SEND, 0, c->req_tid, CM_ATTR_MRA, 0);
    cm_put_mra(&m, c->pas_id, c->act_id, msg_mraed, timeout);
    char n[128];
    uint32_t f = cm_send(g, c, false, &m);
    gen_note_fallback(g, f, "MRA, %s, for frame %u", cname(c, n, sizeof(n)), c->req_frame);
    return f;
}

uint32_t cm_rej(gen_t *g, cm_conn_t *c, uint16_t reason, const uint8_t *ari, uint8_t ari_len)
{
    mad_t m;
    mad_init(&m, MAD_CLASS_CM, CM_CLASS_VERSION, MAD_METHOD_SEND, 0, c->req_tid, CM_ATTR_REJ, 0);
    /* Linux fills LocalCommID only once a cm_id exists; a listener-less REJ has 0 */
    uint32_t local = reason == 8 ? 0 : c->pas_id;
    cm_put_rej(&m, local, c->act_id, 0, reason, ari, ari_len);
    char n[128];
    uint32_t f = cm_send(g, c, false, &m);
    gen_note_fallback(g, f, "REJ reason %u, %s: rejects the REQ of frame %u", reason,
                      cname(c, n, sizeof(n)), c->req_frame);
    return f;
}

uint32_t cm_dreq(gen_t *g, cm_conn_t *c, bool from_active)
{
    mad_t m;
    host_t *src = from_active ? c->act : c->pas;
    uint32_t local = from_active ? c->act_id : c->pas_id;
    uint32_t remote = from_active ? c->pas_id : c->act_id;
    c->dreq_tid = ((uint64_t)src->hi_tid << 32) | local;
    mad_init(&m, MAD_CLASS_CM, CM_CLASS_VERSION, MAD_METHOD_SEND, 0, c->dreq_tid, CM_ATTR_DREQ, 0);
    cm_put_dreq(&m, local, remote, from_active ? c->pas_qpn : c->act_qpn);
    char n[128];
    uint32_t f = cm_send(g, c, from_active, &m);
    gen_note_fallback(g, f, "DREQ from the %s side, %s", from_active ? "active" : "passive",
                      cname(c, n, sizeof(n)));
    c->dreq_frame = f;
    return f;
}

uint32_t cm_drep(gen_t *g, cm_conn_t *c, bool from_active)
{
    mad_t m;
    mad_init(&m, MAD_CLASS_CM, CM_CLASS_VERSION, MAD_METHOD_SEND, 0, c->dreq_tid, CM_ATTR_DREP, 0);
    cm_put_drep(&m, from_active ? c->act_id : c->pas_id, from_active ? c->pas_id : c->act_id);
    char n[128];
    uint32_t f = cm_send(g, c, from_active, &m);
    gen_note_fallback(g, f, "DREP for frame %u: %s closed", c->dreq_frame, cname(c, n, sizeof(n)));
    return f;
}

uint32_t cm_lap(gen_t *g, cm_conn_t *c)
{
    mad_t m;
    cm_path_t alt;
    cm_alt_path(g, c, c->pkt_life ? (uint8_t)(c->pkt_life + 1) : 19, &alt);
    /* cm_form_tid: the agent's hi_tid and the LocalCommID, as the REQ's */
    uint64_t tid = ((uint64_t)c->act->hi_tid << 32) | c->act_id;
    mad_init(&m, MAD_CLASS_CM, CM_CLASS_VERSION, MAD_METHOD_SEND, 0, tid, CM_ATTR_LAP, 0);
    /* RemoteCMResponseTimeout 0x1F: what cm_format_lap wrote ("todo") */
    cm_put_lap(&m, c->act_id, c->pas_id, c->pas_qpn, 0x1F, &alt);
    char n[128];
    uint32_t f = cm_send(g, c, true, &m);
    gen_note_fallback(g, f, "LAP from the active side, %s", cname(c, n, sizeof(n)));
    return f;
}

uint32_t cm_sidr_req(gen_t *g, cm_conn_t *c)
{
    mad_t m;
    mad_init(&m, MAD_CLASS_CM, CM_CLASS_VERSION, MAD_METHOD_SEND, 0, c->req_tid, CM_ATTR_SIDR_REQ,
             0);
    cm_put_sidr_req(&m, c->act_id, IB_PKEY_DEFAULT, cm_conn_service_id(c));
    cm_ipcm(c, m.b + CM_SIDR_REQ_PRIV_OFF);
    char n[128];
    uint32_t f = cm_send(g, c, true, &m);
    gen_note_fallback(g, f, "SIDR_REQ, %s, RequestID 0x%08x", cname(c, n, sizeof(n)), c->act_id);
    c->req_frame = f;
    return f;
}

uint32_t cm_sidr_rep(gen_t *g, cm_conn_t *c, uint8_t status, const uint8_t *info, uint8_t info_len,
                     uint32_t qkey)
{
    mad_t m;
    mad_init(&m, MAD_CLASS_CM, CM_CLASS_VERSION, MAD_METHOD_SEND, 0, c->req_tid, CM_ATTR_SIDR_REP,
             0);
    cm_put_sidr_rep(&m, c->act_id, status, info, info_len, status == 0 ? c->pas_qpn : 0,
                    cm_conn_service_id(c), status == 0 ? qkey : 0);
    uint32_t f = cm_send(g, c, false, &m);
    gen_note_fallback(g, f, "SIDR_REP status %u for frame %u", status, c->req_frame);
    return f;
}
