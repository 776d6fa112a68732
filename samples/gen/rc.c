/* rc.c - ibscope-gen rc's driver (rc.h): the clock, connections set up by
 * the CM, the findings each case names, and truth.tsv. */
#include "rc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CM_GAP 150 /* us between REQ, REP and RTU */

void rc_default_budget(cm_budget_t *b)
{
    memset(b, 0, sizeof *b);
    b->retry_count = 3;
    b->req_rnr_retry = 6; /* the passive side's requests */
    b->rep_rnr_retry = 7; /* the active side's: 7 retries for ever */
    b->ack_timeout = 14;
    b->mtu = 3; /* 1024 */
    b->target_ack_delay = 0;
}

uint32_t rc_rnr_timer_us(uint8_t code)
{
    static const uint32_t us[32] = {
        655360, 10,    20,    30,    40,    60,     80,     120,    160,    240,    320,
        480,    640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240,  15360,
        20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
    };
    return us[code & 0x1F];
}

const char *rc_nak_name(uint8_t code)
{
    static const char *const names[] = { "psn_sequence_error", "invalid_request",
                                         "remote_access_error", "remote_operational_error",
                                         "invalid_rd_request" };
    return code < 5 ? names[code] : "reserved";
}

const char *rc_us_text(uint64_t ns, char *buf, size_t len)
{
    if (ns % 1000 == 0)
        snprintf(buf, len, "%" PRIu64, ns / 1000);
    else
        snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
    return buf;
}

uint64_t rc_now(const rc_t *k)
{
    return k->g->t_us - GEN_EPOCH_US;
}

void rc_at(rc_t *k, uint64_t t_us)
{
    if (GEN_EPOCH_US + t_us < k->g->t_us) {
        fprintf(stderr, "ibscope-gen: rc: time going back to %" PRIu64 " us (bug)\n", t_us);
        abort();
    }
    k->g->t_us = GEN_EPOCH_US + t_us;
}

uint64_t rc_time(const rc_t *k, uint32_t frame)
{
    return frame && frame <= RC_MAX_FRAMES ? k->ft[frame] : 0;
}

void rc_after(rc_t *k, uint32_t frame, uint64_t us)
{
    rc_at(k, rc_time(k, frame) + us);
}

static uint32_t mtu_bytes(uint8_t code)
{
    return 128u << (code & 7);
}

void rc_conn_init(rc_t *k, rc_conn_t *c, host_t *a, host_t *b, uint16_t sport,
                  const cm_budget_t *bud)
{
    memset(c, 0, sizeof *c);
    if (bud)
        c->budget = *bud;
    else
        rc_default_budget(&c->budget);
    cm_conn_init(k->g, &c->cm, a, b, RDMA_PS_TCP, sport, 7471, false);
    c->cm.budget = &c->budget;
    rc_qp_t *q[2] = { &c->ab, &c->ba };
    for (int i = 0; i < 2; i++) {
        q[i]->req = i == 0 ? a : b;
        q[i]->rsp = i == 0 ? b : a;
        q[i]->dqp = i == 0 ? c->cm.pas_qpn : c->cm.act_qpn;
        q[i]->rqp = i == 0 ? c->cm.act_qpn : c->cm.pas_qpn;
        q[i]->mtu = mtu_bytes(c->budget.mtu);
        q[i]->rkey = (uint32_t)prng_next(&k->g->rng);
        q[i]->va = 0x00007F0000000000ull | ((prng_next(&k->g->rng) & 0xFFFFFull) << 12);
    }
    rc_conn_psns(c, c->cm.pas_psn, c->cm.act_psn);
}

void rc_conn_psns(rc_conn_t *c, uint32_t a_psn, uint32_t b_psn)
{
    c->ab.next_psn = a_psn & 0xFFFFFFu;
    c->ba.next_psn = b_psn & 0xFFFFFFu;
    /* The REQ's StartingPSN is the passive side's first request's, the
     * REP's the active side's (Linux cm.c: the active side's rq_psn is the
     * REQ's, its sq_psn the REP's).  cm_flow writes act_psn into the REQ. */
    c->cm.act_psn = c->ba.next_psn;
    c->cm.pas_psn = c->ab.next_psn;
}

uint32_t rc_cm(rc_t *k, rc_conn_t *c, uint32_t (*send)(gen_t *, cm_conn_t *))
{
    uint64_t t = rc_now(k);
    uint32_t f = send(k->g, &c->cm);
    if (f <= RC_MAX_FRAMES)
        k->ft[f] = t;
    return f;
}

static uint32_t dreq_active(gen_t *g, cm_conn_t *c)
{
    return cm_dreq(g, c, true);
}

static uint32_t drep_passive(gen_t *g, cm_conn_t *c)
{
    return cm_drep(g, c, false);
}

uint32_t rc_cm_dreq(rc_t *k, rc_conn_t *c)
{
    return rc_cm(k, c, dreq_active);
}

uint32_t rc_cm_drep(rc_t *k, rc_conn_t *c)
{
    return rc_cm(k, c, drep_passive);
}

void rc_establish(rc_t *k, rc_conn_t *c)
{
    c->req_frame = rc_cm(k, c, cm_req);
    rc_after(k, c->req_frame, CM_GAP);
    c->rep_frame = rc_cm(k, c, cm_rep);
    rc_after(k, c->rep_frame, CM_GAP);
    c->rtu_frame = rc_cm(k, c, cm_rtu);
}

void rc_qp_nocm(rc_t *k, rc_qp_t *qp, host_t *req, host_t *rsp, uint32_t mtu)
{
    memset(qp, 0, sizeof *qp);
    qp->req = req;
    qp->rsp = rsp;
    qp->dqp = 0x000100u | (prng_below(&k->g->rng, 0x3FFFu) << 8) | (rsp->lid & 0xFF);
    qp->rqp = 0x000100u | (prng_below(&k->g->rng, 0x3FFFu) << 8) | (req->lid & 0xFF);
    qp->next_psn = prng_below(&k->g->rng, 0x1000000u);
    qp->mtu = mtu;
    qp->rkey = (uint32_t)prng_next(&k->g->rng);
    qp->va = 0x00007F0000000000ull | ((prng_next(&k->g->rng) & 0xFFFFFull) << 12);
}

void rc_find(rc_t *k, uint32_t frame, const char *kind, uint32_t related, const char *fmt, ...)
{
    if (k->nfinds == k->finds_cap) {
        size_t cap = k->finds_cap ? 2 * k->finds_cap : 32;
        rc_find_t *n = realloc(k->finds, cap * sizeof *n);
        if (!n) {
            fprintf(stderr, "ibscope-gen: out of memory\n");
            exit(1);
        }
        k->finds = n;
        k->finds_cap = cap;
    }
    rc_find_t *r = &k->finds[k->nfinds++];
    r->frame = frame;
    r->related = related;
    r->kind = kind;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->details, sizeof r->details, fmt, ap);
    va_end(ap);
}

/* The rows of one case, by frame (a frame's in the order the case named them). */
static void write_case(FILE *t, const rc_case_t *c, rc_t *k)
{
    for (size_t i = 1; i < k->nfinds; i++) {
        rc_find_t r = k->finds[i];
        size_t j = i;
        for (; j > 0 && k->finds[j - 1].frame > r.frame; j--)
            k->finds[j] = k->finds[j - 1];
        k->finds[j] = r;
    }
    if (k->nfinds == 0)
        fprintf(t, "%s\t-\tnone\t-\t-\n", c->name);
    for (size_t i = 0; i < k->nfinds; i++) {
        const rc_find_t *r = &k->finds[i];
        char rel[16] = "-";
        if (r->related)
            snprintf(rel, sizeof rel, "%u", r->related);
        fprintf(t, "%s\t%u\t%s\t%s\t%s\n", c->name, r->frame, r->kind, rel,
                r->details[0] ? r->details : "-");
    }
}

static int run_case(const char *outdir, link_t link, const rc_case_t *c, uint64_t seed, FILE *t)
{
    char pcap[4200];
    snprintf(pcap, sizeof pcap, "%s/%s.pcap", outdir, c->name);
    gen_t g;
    if (gen_open(&g, pcap, link, 2, seed) != 0)
        return -1;
    g.keep_notes = false;
    g.step_us = 2; /* back to back; the cases wait longer where they say */
    static rc_t k;
    memset(&k, 0, sizeof k);
    k.g = &g;
    c->run(&k);
    write_case(t, c, &k);
    free(k.finds);
    return gen_close(&g); /* says its own error */
}

int rc_write(const char *outdir, link_t link)
{
    return rc_write_cases(outdir, link, rc_cases, n_rc_cases, 0x5C0037ull);
}

int rc_write_cases(const char *outdir, link_t link, const rc_case_t *cases, size_t n, uint64_t seed)
{
    if (mkdir(outdir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "ibscope-gen: %s: %s\n", outdir, strerror(errno));
        return -1;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/truth.tsv", outdir);
    FILE *t = fopen(path, "w");
    if (!t) {
        fprintf(stderr, "ibscope-gen: %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(t, "capture\tframe\tkind\trelated\tdetails\n");
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = run_case(outdir, link, &cases[i], seed + i, t);
    int werr = ferror(t);
    errno = 0;
    if (fclose(t) != 0 || werr) {
        fprintf(stderr, "ibscope-gen: %s: %s\n", path, strerror(errno ? errno : EIO));
        return -1;
    }
    return rc;
}
