/* scen_redirect.c - ClassPortInfo redirection (IBA Vol. 1 chapter 13, ClassPortInfo), native IB in
 * ERF.
 *
 * A monitoring host (LID 0x0005) reads PortCounters from PerfMgt agents; a
 * client (LID 0x0011) queries the SA (LID 0x0001) and opens CM connections.
 * Redirect responses are GetResp with Status 0x0002 and AttributeID
 * ClassPortInfo; the ClassPortInfo sits at MAD offset 64 (PerfMgt) or 56 (SA),
 * and in the ARI (MAD offset 36) of a CM REJ, or the Info (MAD offset 48) of a
 * SIDR_REP.  Every follow-up gets a new TID; responses echo their request's.
 * This file's subnet prefix is fec0:0:0:1::/64 (the GID-only redirect leaves
 * the subnet through a router at LID 0x0051).
 */
#include <stdio.h>
#include <string.h>

#include "cm_flow.h"
#include "scenarios.h"

#define IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (d))
#define SUBNET_PREFIX   0xFEC0000000000001ull
#define REMOTE_PREFIX   0xFEC0000000000002ull

typedef struct rd {
    gen_t *g;
    host_t mon;
    uint32_t tid_lo;
} rd_t;

static uint64_t next_tid(rd_t *r, const host_t *h)
{
    return ((uint64_t)h->hi_tid << 32) | (0x00001000u + r->tid_lo++);
}

static void agent(host_t *h, const char *name, uint16_t lid)
{
    host_init(h, name, lid, 0x98039B0300B00000ull | lid, IP4(10, 0, 9, lid & 0xFF), lid);
    gid_from_guid(h->gid, SUBNET_PREFIX, h->port_guid);
}

static void cpi_redirect(cpi_t *c, uint8_t class_ver, uint16_t lid, uint32_t qp, uint32_t qkey,
                         const uint8_t *gid)
{
    memset(c, 0, sizeof(*c));
    c->base_ver = 1;
    c->class_ver = class_ver;
    c->cap_mask = 0x0000;
    c->resp_time = 18;
    if (gid)
        memcpy(c->redirect_gid, gid, 16);
    c->redirect_lid = lid;
    c->redirect_pkey = IB_PKEY_DEFAULT;
    c->redirect_qp = qp;
    c->redirect_qkey = qkey;
}

/* PerfMgt Get(PortCounters) from the monitor to tgt at dqp. */
static uint32_t perf_get(rd_t *r, host_t *tgt, uint32_t dqp, uint32_t qkey, uint64_t tid,
                         const ib_pkt_t *tmpl)
{
    mad_t m;
    mad_init(&m, MAD_CLASS_PERF, 1, MAD_METHOD_GET, 0, tid, MAD_ATTR_PORTCOUNTERS, 0);
    perf_put_port_counters(m.b + MAD_OFF_PERF_DATA, 1, 0xFFFF, false, 0);
    if (!tmpl)
        return gen_emit_mad(r->g, &r->mon, tgt, 1, dqp, qkey, &m);
    ib_pkt_t p = *tmpl;
    p.payload = m.b;
    p.payload_len = MAD_LEN;
    p.dqp = dqp;
    p.qkey = qkey;
    p.sqp = 1;
    p.psn = r->mon.gsi_psn++ & 0xFFFFFF;
    return gen_emit_ib(r->g, &p, &r->mon, tgt);
}

/* GetResp(ClassPortInfo), Status 0x0002, from tgt's QP sqp to the monitor. */
static uint32_t perf_redirect(rd_t *r, host_t *tgt, uint32_t sqp, uint64_t tid, const cpi_t *c)
{
    mad_t m;
    mad_init(&m, MAD_CLASS_PERF, 1, MAD_METHOD_GETRESP, MAD_STATUS_REDIRECT, tid,
             MAD_ATTR_CLASSPORTINFO, 0);
    cpi_put(m.b + MAD_OFF_PERF_DATA, c);
    return gen_emit_mad(r->g, tgt, &r->mon, sqp, 1, IB_QKEY_GSI, &m);
}

/* GetResp(PortCounters), Status 0. */
static uint32_t perf_answer(rd_t *r, host_t *tgt, uint32_t sqp, uint64_t tid, const ib_pkt_t *tmpl)
{
    mad_t m;
    mad_init(&m, MAD_CLASS_PERF, 1, MAD_METHOD_GETRESP, 0, tid, MAD_ATTR_PORTCOUNTERS, 0);
    perf_put_port_counters(m.b + MAD_OFF_PERF_DATA, 1, 0xFFFF, true, tgt->lid);
    if (!tmpl)
        return gen_emit_mad(r->g, tgt, &r->mon, sqp, 1, IB_QKEY_GSI, &m);
    ib_pkt_t p = *tmpl;
    p.payload = m.b;
    p.payload_len = MAD_LEN;
    p.dqp = 1;
    p.qkey = IB_QKEY_GSI;
    p.sqp = sqp;
    p.psn = tgt->gsi_psn++ & 0xFFFFFF;
    return gen_emit_ib(r->g, &p, tgt, &r->mon);
}

static const char *gid_str(const uint8_t *gid, char *buf, size_t len)
{
    snprintf(buf, len, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
             gid[0], gid[1], gid[2], gid[3], gid[4], gid[5], gid[6], gid[7], gid[8], gid[9],
             gid[10], gid[11], gid[12], gid[13], gid[14], gid[15]);
    return buf;
}

/* One redirect, followed */
static void perf_followed(rd_t *r)
{
    gen_t *g = r->g;
    cpi_t c;
    uint64_t t1, t2;
    uint32_t f1, f2, f3, f4;

    host_t a20, a21;
    agent(&a20, "perf-0x20", 0x0020);
    agent(&a21, "perf-0x21", 0x0021);
    t1 = next_tid(r, &r->mon);
    f1 = perf_get(r, &a20, 1, IB_QKEY_GSI, t1, NULL);
    gen_note(g, f1, "PerfMgt Get(PortCounters) LID 0x0005 -> LID 0x0020 QP1, TID 0x%016llx",
             (unsigned long long)t1);
    cpi_redirect(&c, 1, 0x0021, 0x000055, IB_QKEY_GSI, NULL);
    f2 = perf_redirect(r, &a20, 1, t1, &c);
    gen_note(g, f2,
             "GetResp(ClassPortInfo) Status 0x0002 (redirect required) for frame %u: "
             "ClassPortInfo at MAD offset 64 names RedirectLID 0x0021, RedirectQP 0x000055, "
             "RedirectQ_Key 0x80010000, RedirectP_Key 0xFFFF",
             f1);
    t2 = next_tid(r, &r->mon);
    f3 = perf_get(r, &a21, 0x55, IB_QKEY_GSI, t2, NULL);
    gen_note(g, f3,
             "Get(PortCounters) to LID 0x0021 QP 0x000055 with Q_Key 0x80010000, DETH SrcQP 1, "
             "new TID 0x%016llx: follows the redirect of frame %u correctly",
             (unsigned long long)t2, f2);
    f4 = perf_answer(r, &a21, 0x55, t2, NULL);
    gen_note(g, f4,
             "GetResp(PortCounters) Status 0 from LID 0x0021 QP 0x000055 for frame %u: "
             "redirect chain 0x0020 -> 0x0021 complete (1 hop)",
             f3);
}

/* Chain of two hops */
static void perf_two_hops(rd_t *r)
{
    gen_t *g = r->g;
    cpi_t c;
    uint64_t t1, t2, t3;
    uint32_t f1, f2, f3, f4, f5;

    host_t a30, a31, a32;
    agent(&a30, "perf-0x30", 0x0030);
    agent(&a31, "perf-0x31", 0x0031);
    agent(&a32, "perf-0x32", 0x0032);
    t1 = next_tid(r, &r->mon);
    f1 = perf_get(r, &a30, 1, IB_QKEY_GSI, t1, NULL);
    gen_note(g, f1, "Get(PortCounters) -> LID 0x0030 QP1: start of a two-hop chain");
    cpi_redirect(&c, 1, 0x0031, 0x000060, IB_QKEY_GSI, NULL);
    f2 = perf_redirect(r, &a30, 1, t1, &c);
    gen_note(g, f2, "redirect (Status 0x0002) for frame %u to LID 0x0031 QP 0x000060", f1);
    t2 = next_tid(r, &r->mon);
    f3 = perf_get(r, &a31, 0x60, IB_QKEY_GSI, t2, NULL);
    gen_note(g, f3, "follow-up to LID 0x0031 QP 0x000060 (hop 1 of frame %u's redirect)", f2);
    cpi_redirect(&c, 1, 0x0032, 0x000061, IB_QKEY_GSI, NULL);
    f4 = perf_redirect(r, &a31, 0x60, t2, &c);
    gen_note(g, f4, "the second target redirects again (frame %u) to LID 0x0032 QP 0x000061", f3);
    t3 = next_tid(r, &r->mon);
    f5 = perf_get(r, &a32, 0x61, IB_QKEY_GSI, t3, NULL);
    gen_note(g, f5, "follow-up to LID 0x0032 QP 0x000061 (hop 2)");
    f1 = perf_answer(r, &a32, 0x61, t3, NULL);
    gen_note(g, f1,
             "GetResp Status 0 for frame %u: chain 0x0030 -> 0x0031 -> 0x0032 complete, 2 hops",
             f5);
}

/* Loop A -> B -> A */
static void perf_loop(rd_t *r)
{
    gen_t *g = r->g;
    cpi_t c;
    uint64_t t1, t2, t3;
    uint32_t f1, f2, f3, f4, f5;

    host_t a40, a41;
    agent(&a40, "perf-0x40", 0x0040);
    agent(&a41, "perf-0x41", 0x0041);
    t1 = next_tid(r, &r->mon);
    f1 = perf_get(r, &a40, 1, IB_QKEY_GSI, t1, NULL);
    gen_note(g, f1, "Get(PortCounters) -> LID 0x0040 QP1 (A): start of a redirect loop");
    cpi_redirect(&c, 1, 0x0041, 0x000070, IB_QKEY_GSI, NULL);
    f2 = perf_redirect(r, &a40, 1, t1, &c);
    gen_note(g, f2, "A redirects to LID 0x0041 QP 0x000070 (B)");
    t2 = next_tid(r, &r->mon);
    f3 = perf_get(r, &a41, 0x70, IB_QKEY_GSI, t2, NULL);
    gen_note(g, f3, "follow-up to B (LID 0x0041 QP 0x000070)");
    cpi_redirect(&c, 1, 0x0040, 0x000001, IB_QKEY_GSI, NULL);
    f4 = perf_redirect(r, &a41, 0x70, t2, &c);
    gen_note(g, f4,
             "B redirects back to LID 0x0040 QP 0x000001 (A): redirect loop A -> B -> A "
             "(target already visited in frame %u)",
             f1);
    t3 = next_tid(r, &r->mon);
    f5 = perf_get(r, &a40, 1, IB_QKEY_GSI, t3, NULL);
    gen_note(g, f5, "follow-up back to LID 0x0040 QP1: the requester is inside the loop");
    cpi_redirect(&c, 1, 0x0041, 0x000070, IB_QKEY_GSI, NULL);
    f1 = perf_redirect(r, &a40, 1, t3, &c);
    gen_note(g, f1,
             "A redirects to B again: the loop would go on forever; the requester gives up "
             "(no further follow-up)");
}

/* GID-only redirect, followed through an SA PathRecord and a router */
static void perf_gid_only(rd_t *r)
{
    gen_t *g = r->g;
    cpi_t c;
    uint64_t t1, t2;
    uint32_t f1, f2, f3, f4;

    host_t a50, remote, sa;
    agent(&a50, "perf-0x50", 0x0050);
    agent(&sa, "sa", 0x0001);
    agent(&remote, "perf-remote", 0x0090);
    gid_from_guid(remote.gid, REMOTE_PREFIX, remote.port_guid);
    t1 = next_tid(r, &r->mon);
    f1 = perf_get(r, &a50, 1, IB_QKEY_GSI, t1, NULL);
    gen_note(g, f1, "Get(PortCounters) -> LID 0x0050 QP1");
    cpi_redirect(&c, 1, 0x0000, 0x000080, IB_QKEY_GSI, remote.gid);
    char gs[64];
    f2 = perf_redirect(r, &a50, 1, t1, &c);
    gen_note(g, f2,
             "GID-only redirect for frame %u: RedirectLID 0, RedirectGID %s, RedirectQP "
             "0x000080",
             f1, gid_str(remote.gid, gs, sizeof(gs)));
    {
        mad_t m;
        uint64_t ts = next_tid(r, &r->mon);
        mad_init(&m, MAD_CLASS_SA, 2, MAD_METHOD_GET, 0, ts, MAD_ATTR_PATHRECORD, 0);
        sa_put_header(&m, 0, 0, (1ull << 2) | (1ull << 3) | (1ull << 12));
        path_rec_t pr;
        memset(&pr, 0, sizeof(pr));
        memcpy(pr.dgid, remote.gid, 16);
        memcpy(pr.sgid, r->mon.gid, 16);
        pr.numb_path = 1;
        sa_put_path_record(m.b + MAD_OFF_SA_DATA, &pr);
        f3 = gen_emit_mad(g, &r->mon, &sa, 1, 1, IB_QKEY_GSI, &m);
        gen_note(g, f3, "SA Get(PathRecord) for DGID %s (resolving the redirect GID)", gs);
        mad_init(&m, MAD_CLASS_SA, 2, MAD_METHOD_GETRESP, 0, ts, MAD_ATTR_PATHRECORD, 0);
        sa_put_header(&m, 0, 8, 0);
        pr.dlid = 0x0051;
        pr.slid = r->mon.lid;
        pr.hop_limit = 4;
        pr.pkey = IB_PKEY_DEFAULT;
        pr.mtu = 5;
        pr.rate = 16;
        pr.pkt_life = 18;
        pr.reversible = true;
        sa_put_path_record(m.b + MAD_OFF_SA_DATA, &pr);
        f4 = gen_emit_mad(g, &sa, &r->mon, 1, 1, IB_QKEY_GSI, &m);
        gen_note(g, f4, "SA GetResp(PathRecord) for frame %u: DLID 0x0051 (router), HopLimit 4",
                 f3);
    }
    ib_pkt_t tmpl;
    ib_pkt_ud(&tmpl, r->mon.lid, 0x0051, 1, 0x80, IB_QKEY_GSI, NULL, 0);
    tmpl.grh = true;
    tmpl.hoplmt = 4;
    memcpy(tmpl.sgid, r->mon.gid, 16);
    memcpy(tmpl.dgid, remote.gid, 16);
    t2 = next_tid(r, &r->mon);
    f3 = perf_get(r, &remote, 0x80, IB_QKEY_GSI, t2, &tmpl);
    gen_note(g, f3,
             "follow-up of the GID-only redirect (frame %u): LRH DLID 0x0051 (router), GRH DGID "
             "%s, DestQP 0x000080",
             f2, gs);
    ib_pkt_ud(&tmpl, 0x0051, r->mon.lid, 0x80, 1, IB_QKEY_GSI, NULL, 0);
    tmpl.grh = true;
    tmpl.hoplmt = 60;
    memcpy(tmpl.sgid, remote.gid, 16);
    memcpy(tmpl.dgid, r->mon.gid, 16);
    f4 = perf_answer(r, &remote, 0x80, t2, &tmpl);
    gen_note(g, f4, "GetResp Status 0 for frame %u, through the router (SLID 0x0051, GRH)", f3);
}

/* Redirect not followed */
static void perf_not_followed(rd_t *r)
{
    gen_t *g = r->g;
    cpi_t c;
    uint64_t t1, t2;
    uint32_t f1, f2, f3, f4;

    host_t a60;
    agent(&a60, "perf-0x60", 0x0060);
    t1 = next_tid(r, &r->mon);
    f1 = perf_get(r, &a60, 1, IB_QKEY_GSI, t1, NULL);
    gen_note(g, f1, "Get(PortCounters) -> LID 0x0060 QP1");
    cpi_redirect(&c, 1, 0x0061, 0x000090, IB_QKEY_GSI, NULL);
    f2 = perf_redirect(r, &a60, 1, t1, &c);
    gen_note(g, f2, "redirect for frame %u to LID 0x0061 QP 0x000090", f1);
    t2 = next_tid(r, &r->mon);
    gen_wait(g, 500000);
    f3 = perf_get(r, &a60, 1, IB_QKEY_GSI, t2, NULL);
    gen_note(g, f3,
             "redirect of frame %u not followed: the requester asks the original target "
             "(LID 0x0060 QP1) again, new TID",
             f2);
    f4 = perf_redirect(r, &a60, 1, t2, &c);
    gen_note(g, f4, "the original target redirects again (same ClassPortInfo as frame %u)", f2);
}

/* Follow-up with the wrong Q_Key */
static void perf_wrong_qkey(rd_t *r)
{
    gen_t *g = r->g;
    cpi_t c;
    uint64_t t1, t2;
    uint32_t f1, f2, f3;

    host_t a70, a71;
    agent(&a70, "perf-0x70", 0x0070);
    agent(&a71, "perf-0x71", 0x0071);
    t1 = next_tid(r, &r->mon);
    f1 = perf_get(r, &a70, 1, IB_QKEY_GSI, t1, NULL);
    gen_note(g, f1, "Get(PortCounters) -> LID 0x0070 QP1");
    cpi_redirect(&c, 1, 0x0071, 0x0000A0, IB_QKEY_GSI, NULL);
    f2 = perf_redirect(r, &a70, 1, t1, &c);
    gen_note(g, f2, "redirect for frame %u to LID 0x0071 QP 0x0000A0, RedirectQ_Key 0x80010000",
             f1);
    t2 = next_tid(r, &r->mon);
    f3 = perf_get(r, &a71, 0xA0, 0x12345678u, t2, NULL);
    gen_note(g, f3,
             "follow-up of frame %u to the right LID/QP but with Q_Key 0x12345678 instead of "
             "RedirectQ_Key 0x80010000: wrong Q_Key (the target drops it; no answer)",
             f2);
}

/* Bad targets */
static void perf_bad_targets(rd_t *r)
{
    gen_t *g = r->g;
    cpi_t c;
    uint64_t t1;
    uint32_t f1, f2;

    host_t a80, a82;
    agent(&a80, "perf-0x80", 0x0080);
    agent(&a82, "perf-0x82", 0x0082);
    gen_wait(g, 500000);
    t1 = next_tid(r, &r->mon);
    f1 = perf_get(r, &a80, 1, IB_QKEY_GSI, t1, NULL);
    gen_note(g, f1, "Get(PortCounters) -> LID 0x0080 QP1");
    cpi_redirect(&c, 1, 0x0000, 0x0000B0, IB_QKEY_GSI, NULL);
    f2 = perf_redirect(r, &a80, 1, t1, &c);
    gen_note(g, f2,
             "bad redirect target for frame %u: RedirectLID 0 and RedirectGID :: (nowhere to "
             "go); not followed",
             f1);
    t1 = next_tid(r, &r->mon);
    f1 = perf_get(r, &a82, 1, IB_QKEY_GSI, t1, NULL);
    gen_note(g, f1, "Get(PortCounters) -> LID 0x0082 QP1");
    cpi_redirect(&c, 1, 0x0083, 0x000000, IB_QKEY_GSI, NULL);
    f2 = perf_redirect(r, &a82, 1, t1, &c);
    gen_note(g, f2,
             "bad redirect target for frame %u: RedirectLID 0x0083 but RedirectQP 0 (QP0 is "
             "the SMI, never a GSI redirect target); not followed",
             f1);
}

static void perf_stories(rd_t *r)
{
    perf_followed(r);
    perf_two_hops(r);
    perf_loop(r);
    perf_gid_only(r);
    perf_not_followed(r);
    perf_wrong_qkey(r);
    perf_bad_targets(r);
}

static void sa_story(rd_t *r, host_t *cl)
{
    gen_t *g = r->g;
    host_t sa, sa2, dst;
    agent(&sa, "sa", 0x0001);
    agent(&sa2, "sa-redirect", 0x0002);
    agent(&dst, "server1", 0x0012);
    mad_t m;
    path_rec_t pr;
    memset(&pr, 0, sizeof(pr));
    memcpy(pr.dgid, dst.gid, 16);
    memcpy(pr.sgid, cl->gid, 16);
    pr.numb_path = 1;
    uint64_t comp = (1ull << 2) | (1ull << 3) | (1ull << 12);

    uint64_t t1 = ((uint64_t)cl->hi_tid << 32) | 0x00002001u;
    mad_init(&m, MAD_CLASS_SA, 2, MAD_METHOD_GET, 0, t1, MAD_ATTR_PATHRECORD, 0);
    sa_put_header(&m, 0, 0, comp);
    sa_put_path_record(m.b + MAD_OFF_SA_DATA, &pr);
    uint32_t f1 = gen_emit_mad(g, cl, &sa, 1, 1, IB_QKEY_GSI, &m);
    gen_note(g, f1, "SA Get(PathRecord) LID 0x0011 -> SA LID 0x0001 QP1, TID 0x%016llx",
             (unsigned long long)t1);

    cpi_t c;
    cpi_redirect(&c, 2, 0x0002, 0x00000A, IB_QKEY_GSI, NULL);
    mad_init(&m, MAD_CLASS_SA, 2, MAD_METHOD_GETRESP, MAD_STATUS_REDIRECT, t1,
             MAD_ATTR_CLASSPORTINFO, 0);
    cpi_put(m.b + MAD_OFF_SA_DATA, &c);
    uint32_t f2 = gen_emit_mad(g, &sa, cl, 1, 1, IB_QKEY_GSI, &m);
    gen_note(g, f2,
             "SA GetResp(ClassPortInfo) Status 0x0002 for frame %u: ClassPortInfo at MAD offset "
             "56 (after RMPP and SA headers) names RedirectLID 0x0002, RedirectQP 0x00000A, "
             "RedirectQ_Key 0x80010000",
             f1);

    uint64_t t2 = ((uint64_t)cl->hi_tid << 32) | 0x00002002u;
    mad_init(&m, MAD_CLASS_SA, 2, MAD_METHOD_GET, 0, t2, MAD_ATTR_PATHRECORD, 0);
    sa_put_header(&m, 0, 0, comp);
    sa_put_path_record(m.b + MAD_OFF_SA_DATA, &pr);
    uint32_t f3 = gen_emit_mad(g, cl, &sa2, 1, 0x0A, IB_QKEY_GSI, &m);
    gen_note(g, f3,
             "follow-up Get(PathRecord) to LID 0x0002 QP 0x00000A, new TID 0x%016llx: "
             "follows frame %u",
             (unsigned long long)t2, f2);

    mad_init(&m, MAD_CLASS_SA, 2, MAD_METHOD_GETRESP, 0, t2, MAD_ATTR_PATHRECORD, 0);
    sa_put_header(&m, 0, 8, 0);
    pr.dlid = dst.lid;
    pr.slid = cl->lid;
    pr.pkey = IB_PKEY_DEFAULT;
    pr.mtu = 5;
    pr.rate = 16;
    pr.pkt_life = 18;
    pr.reversible = true;
    sa_put_path_record(m.b + MAD_OFF_SA_DATA, &pr);
    uint32_t f4 = gen_emit_mad(g, &sa2, cl, 0x0A, 1, IB_QKEY_GSI, &m);
    gen_note(g, f4, "SA GetResp(PathRecord) Status 0 from LID 0x0002 QP 0x00000A for frame %u", f3);
}

static void cm_stories(rd_t *r, host_t *cl)
{
    gen_t *g = r->g;
    host_t s1, s1b, s2, s2b;
    agent(&s1, "server1", 0x0012);
    agent(&s1b, "server1-port2", 0x0015);
    s1.ip4 = s1b.ip4 = IP4(10, 0, 0, 12);
    agent(&s2, "server2", 0x0013);
    agent(&s2b, "server2-port2", 0x0016);
    s2.ip4 = s2b.ip4 = IP4(10, 0, 0, 13);
    char t[128];
    cpi_t c;
    uint8_t ari[CPI_LEN];

    /* REJ 24: port and CM redirect */
    cm_conn_t k;
    cm_conn_init(g, &k, cl, &s1, RDMA_PS_TCP, 41001, 7471, false);
    uint32_t f1 = cm_req(g, &k);
    gen_note(g, f1, "CM REQ %s to LID 0x0012", cm_conn_tuple(&k, t, sizeof(t)));
    cpi_redirect(&c, 2, 0x0015, 0x000001, IB_QKEY_GSI, NULL);
    gid_from_guid(c.redirect_gid, SUBNET_PREFIX, s1b.port_guid);
    cpi_put(ari, &c);
    uint32_t f2 = cm_rej(g, &k, 24, ari, CPI_LEN);
    gen_note(g, f2,
             "CM REJ reason 24 (port and CM redirect) for frame %u: RejInfoLen 72, "
             "ClassPortInfo in the ARI (MAD offset 36) names RedirectLID 0x0015, RedirectQP 1",
             f1);
    cm_conn_t k2;
    cm_conn_init(g, &k2, cl, &s1b, RDMA_PS_TCP, 41001, 7471, false);
    uint32_t f3 = cm_req(g, &k2);
    gen_note(g, f3,
             "CM REQ to LID 0x0015 (same IP CM tuple, new LocalCommID 0x%08x and TID): follows "
             "the REJ 24 redirect of frame %u",
             k2.act_id, f2);
    cm_rep(g, &k2);
    uint32_t f4 = cm_rtu(g, &k2);
    gen_note(g, f4, "RTU: the redirected connection is established");

    /* SIDR_REP status 4 */
    cm_conn_t s;
    cm_conn_init(g, &s, cl, &s2, RDMA_PS_UDP, 41002, 5000, false);
    f1 = cm_sidr_req(g, &s);
    gen_note(g, f1, "SIDR_REQ %s to LID 0x0013", cm_conn_tuple(&s, t, sizeof(t)));
    cpi_redirect(&c, 2, 0x0016, 0x000001, IB_QKEY_GSI, NULL);
    cpi_put(ari, &c);
    f2 = cm_sidr_rep(g, &s, 4, ari, CPI_LEN, 0);
    gen_note(g, f2,
             "SIDR_REP status 4 (redirect) for frame %u: InfoLen 72, ClassPortInfo at MAD "
             "offset 48 names RedirectLID 0x0016, RedirectQP 1",
             f1);
    cm_conn_t s2c;
    cm_conn_init(g, &s2c, cl, &s2b, RDMA_PS_UDP, 41002, 5000, false);
    f3 = cm_sidr_req(g, &s2c);
    gen_note(g, f3, "SIDR_REQ to LID 0x0016 (new RequestID 0x%08x): follows frame %u", s2c.act_id,
             f2);
    f4 = cm_sidr_rep(g, &s2c, 0, NULL, 0, 0x01234567u);
    gen_note(g, f4, "SIDR_REP status 0 for frame %u", f3);
}

void story_redirect(gen_t *g)
{
    rd_t r;
    memset(&r, 0, sizeof(r));
    r.g = g;
    agent(&r.mon, "monitor", 0x0005);
    host_t cl;
    agent(&cl, "client", 0x0011);
    cl.ip4 = IP4(10, 0, 0, 11);
    perf_stories(&r);
    sa_story(&r, &cl);
    cm_stories(&r, &cl);
    gen_note(g, 0,
             "Redirect requests are answered with TIDs equal to their request's; every follow-up "
             "carries a new TID. Hosts: monitor LID 0x0005, client LID 0x0011, SA LID 0x0001, "
             "router LID 0x0051; GIDs use subnet prefix fec0:0:0:1::/64, the GID-only target "
             "fec0:0:0:2::/64.");
}
