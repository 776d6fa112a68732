/* fuzz_engine.c - libFuzzer target: the analysis engine fed a sequence of parsed frames.
 *
 * Input: one config byte, then frames, each as a 2-byte big-endian length,
 * one selector byte and the frame bytes (a last frame cut short keeps what
 * is there).  Config bit 0 shrinks the port pool to 64 ports so exhaustion
 * is reachable; bit 1 switches off the finding kind that bits 2-7 name.  Selector bits 0-2 pick
 * the link type as in fuzz_parse, bit 3 moves the clock back, bit 4 starts
 * the frame's capture index at 1, bit 7 marks the frame cut by the snap
 * length.  The engine's caps are small so that every eviction path runs.
 */
#include "engine.h"
#include "fuzz_check.h"
#include "fuzz_target.h"

#include <stdlib.h>
#include <string.h>

static void configure(struct ib_engine_config *cfg, uint8_t bits)
{
    ib_engine_config_init(cfg);
    cfg->max_connections = 64;
    cfg->max_transactions = 64;
    cfg->max_chains = 16;
    cfg->max_sources = 16;
    cfg->max_qps = 8;
    cfg->max_ce_pending = 4;
    cfg->max_cnp_flows = 4;
    cfg->cnp_window_us = 1 + (bits >> 4); /* short windows: marks that time out */
    if (bits & 1) {
        cfg->pool_low = 32768;
        cfg->pool_high = 32768 + 63;
        cfg->threshold_pct = 50;
    }
    if (bits & 2)
        cfg->enabled[(bits >> 2) % IB_FIND_COUNT] = false;
}

static void check_ref(const char *what, struct ib_frame_ref ref, uint64_t frames)
{
    if (ref.frame > frames)
        fuzz_fail("%s refers to frame %llu of %llu", what, (unsigned long long)ref.frame,
                  (unsigned long long)frames);
}

static void check_analysis(const struct ib_frame_analysis *a, uint64_t frames)
{
    if (a->count > IB_FRAME_FINDINGS_MAX)
        fuzz_fail("%u findings > %d", a->count, IB_FRAME_FINDINGS_MAX);
    for (unsigned i = 0; i < a->count; i++) {
        const struct ib_finding *f = &a->findings[i];
        if ((unsigned)f->kind >= IB_FIND_COUNT)
            fuzz_fail("finding kind %d", (int)f->kind);
        /* Every finding can be worded, within the room the views give it. */
        char msg[IB_FINDING_TEXT_MAX];
        ib_finding_format(f, msg, sizeof msg);
        if (strlen(msg) == 0 || strlen(msg) >= sizeof msg - 1)
            fuzz_fail("finding %s: message of %zu bytes", ib_finding_kind_name(f->kind),
                      strlen(msg));
        check_ref("finding", f->at, frames);
        check_ref("finding's related frame", f->related, frames);
    }
    check_ref("retransmission_of", a->links.retransmission_of, frames);
    check_ref("port_reused_from", a->links.port_reused_from, frames);
    check_ref("duplicate_tuple_of", a->links.duplicate_tuple_of, frames);
    check_ref("redirected_by", a->links.redirected_by, frames);
    check_ref("redirect_loop_to", a->links.redirect_loop_to, frames);
    check_ref("acks", a->links.acks, frames);
}

struct sink_state {
    uint64_t frames;
    uint64_t records;
};

static void on_connection(void *ctx, const struct ib_connection_record *rec)
{
    struct sink_state *st = ctx;
    st->records++;
    if (ib_conn_state_name(rec->state) == NULL)
        fuzz_fail("connection state %d without a name", (int)rec->state);
    const struct ib_frame_ref *refs[] = { &rec->req,  &rec->mra,  &rec->rep, &rec->rtu,
                                          &rec->dreq, &rec->drep, &rec->rej };
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
        check_ref("connection record", *refs[i], st->frames);
}

static void check_summary(const struct ib_engine *e, uint64_t frames)
{
    const struct ib_engine_stats *s = ib_engine_stats(e);
    const struct ib_engine_config *cfg = ib_engine_get_config(e);
    if (s->frames != frames)
        fuzz_fail("engine counted %llu frames of %llu", (unsigned long long)s->frames,
                  (unsigned long long)frames);
    struct ib_connection_stats stats;
    ib_engine_connections(e, &stats);
    size_t n = ib_engine_source_count(e);
    if (n > cfg->max_sources)
        fuzz_fail("%zu sources kept, cap %zu", n, cfg->max_sources);
    for (size_t i = 0; i < n; i++) {
        const struct ib_source_stats *src = ib_engine_source(e, i);
        check_ref("source peak", src->peak_at, frames);
        check_ref("source peak per destination", src->peak_per_destination_at, frames);
    }
    n = ib_engine_qp_count(e);
    if (n > cfg->max_qps)
        fuzz_fail("%zu queue pairs kept, cap %zu", n, cfg->max_qps);
    for (size_t i = 0; i < n; i++) {
        struct ib_qp_stats q;
        ib_engine_qp(e, i, &q);
        check_ref("queue pair's first packet", q.first, frames);
        check_ref("queue pair's last packet", q.last, frames);
        const struct ib_rtt *r = &q.ack_rtt;
        if (q.qp.index != i || (r->count && !(r->min_ns <= r->median_ns &&
                                              r->median_ns <= r->p99_ns && r->p99_ns <= r->max_ns)))
            fuzz_fail("queue pair %zu: index %u, round trips %lld %lld %lld %lld", i, q.qp.index,
                      (long long)r->min_ns, (long long)r->median_ns, (long long)r->p99_ns,
                      (long long)r->max_ns);
    }
    n = ib_engine_cnp_count(e);
    if (n > cfg->max_cnp_flows)
        fuzz_fail("%zu CE/CNP flows kept, cap %zu", n, cfg->max_cnp_flows);
    for (size_t i = 0; i < n; i++) {
        struct ib_cnp_stats c;
        ib_engine_cnp(e, i, &c);
        check_ref("CE/CNP flow's first frame", c.first, frames);
        check_ref("CE/CNP flow's last frame", c.last, frames);
        if (c.answered + c.unanswered + c.open_at_end > c.ce_marks ||
            (c.has_delay &&
             !(c.delay_min_ns <= c.delay_mean_ns && c.delay_mean_ns <= c.delay_max_ns &&
               c.delay_max_ns <= (int64_t)cfg->cnp_window_us * 1000)))
            fuzz_fail("CE/CNP flow %zu: %llu marks, %llu answered, %llu not, %llu open, delays "
                      "%lld %lld %lld",
                      i, (unsigned long long)c.ce_marks, (unsigned long long)c.answered,
                      (unsigned long long)c.unanswered, (unsigned long long)c.open_at_end,
                      (long long)c.delay_min_ns, (long long)c.delay_mean_ns,
                      (long long)c.delay_max_ns);
    }
    n = ib_engine_pfc_count(e);
    for (size_t i = 0; i < n; i++) {
        struct ib_pfc_stats p;
        ib_engine_pfc(e, i, &p);
        check_ref("pause's longest", p.longest_at, frames);
        if (p.priority > IB_PFC_ALL || p.pfc != (p.priority < IB_PFC_ALL) || p.xons > p.pauses ||
            p.storms > p.pauses || p.paused_ns < 0 || p.longest_ns > p.paused_ns ||
            p.pauses > p.frames)
            fuzz_fail("pauses %zu: priority %u, %llu frames, %llu pauses, %llu XONs, %llu storms, "
                      "%lld ns, longest %lld",
                      i, p.priority, (unsigned long long)p.frames, (unsigned long long)p.pauses,
                      (unsigned long long)p.xons, (unsigned long long)p.storms,
                      (long long)p.paused_ns, (long long)p.longest_ns);
    }
    n = ib_engine_chain_count(e);
    if (n > cfg->max_chains)
        fuzz_fail("%zu chains kept, cap %zu", n, cfg->max_chains);
    for (size_t i = 0; i < n; i++) {
        const struct ib_redirect_chain *c = ib_engine_chain(e, i);
        if (c->hop_count > IB_CHAIN_HOPS_MAX)
            fuzz_fail("chain with %u hops", c->hop_count);
        check_ref("chain request", c->first_request, frames);
        check_ref("chain answer", c->final_answer, frames);
        if ((unsigned)c->end >= IB_CHAIN_END_COUNT || (c->end == IB_CHAIN_LOOP) != c->loop ||
            (c->end == IB_CHAIN_ANSWERED && !c->final_answer.frame))
            fuzz_fail("chain ends %d (loop %d, answer frame %llu)", (int)c->end, (int)c->loop,
                      (unsigned long long)c->final_answer.frame);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct ib_engine_config cfg;
    configure(&cfg, data[0]);
    struct ib_engine *e = ib_engine_new(&cfg);
    if (!e)
        return 0;
    struct sink_state st = { 0, 0 };
    ib_engine_set_connection_sink(e, on_connection, &st);

    struct ib_parse_opts opts;
    ib_parse_opts_init(&opts);
    opts.is_mad_qp = ib_engine_is_mad_qp;
    opts.ctx = e;

    static struct ib_frame_analysis out; /* large: keep it off the stack */
    int64_t clock = 1000000000;
    size_t at = 1;
    while (at + 3 <= size) {
        size_t len = ((size_t)data[at] << 8) | data[at + 1];
        uint8_t sel = data[at + 2];
        at += 3;
        if (len > size - at)
            len = size - at;
        uint8_t *frame = malloc(len ? len : 1);
        if (!frame)
            break;
        memcpy(frame, data + at, len);
        at += len;

        clock += (sel & 0x08) ? -250000 : 1000000;
        st.frames++;
        struct ib_frame_ref ref = { (sel >> 4) & 1, st.frames, clock };
        size_t wirelen = (sel & 0x80) ? len + 32 : len;
        struct ib_packet pkt;
        enum ib_frame_result r =
            ib_parse_frame(&opts, fuzz_linktype(sel), frame, len, wirelen, &pkt);
        fuzz_check_packet(&pkt, len);
        if (r == IB_FRAME_MAC_CONTROL)
            ib_engine_feed_mac_control(e, ref, &pkt, &out);
        else
            ib_engine_feed(e, ref, r == IB_FRAME_IB ? &pkt : NULL, &out);
        free(frame);
        check_analysis(&out, st.frames);
    }
    bool more;
    do {
        more = ib_engine_drain(e, &out);
        check_analysis(&out, st.frames);
    } while (more);
    check_summary(e, st.frames);
    ib_engine_finish(e);
    check_summary(e, st.frames);
    ib_engine_free(e);
    return 0;
}
