/* report_text.c - the text report for people: fits 80 columns.
 *
 * Sections: captures, summary, CM connections, sources (ports in use against
 * the pool in both models), redirect chains drawn as arrows, addressing
 * rules, findings grouped by kind.  With --frames each finding is listed
 * under its kind; they are streamed into one temporary file per kind while
 * the capture is read, so the grouping costs no memory.  The --connections
 * table is streamed the same way.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "printable.h"
#include "report_format.h"
#include "report_model.h"
#include "temp_file.h"
#include "text_wrap.h"

#define WIDTH 80

struct text_state {
    FILE *out;
    FILE *by_kind[IB_FIND_COUNT]; /* --frames: lines per kind, made on first use */
    FILE *conns;                  /* --connections: the table's rows */
    uint8_t worst[IB_FIND_COUNT]; /* most severe seen per kind, plus one (0: none) */
    int host_width;               /* a merge: the host column's */
    int error;                    /* errno of the first scratch-file failure */
};

#define NB TEXT_WRAP_NB

/* Wrapped at the report's width. */
static void wrap(FILE *out, const char *text, size_t first, size_t indent)
{
    text_wrap(out, text, first, indent, WIDTH);
}

static void fail(struct text_state *st)
{
    if (!st->error)
        st->error = errno ? errno : EIO;
}

/* A merge's host column: as wide as the longest label, within reason. */
static int host_width(const struct report_model *m)
{
    size_t w = 4;
    for (size_t h = 0; h < m->host_count; h++) {
        char name[PRINTABLE_MAX];
        printable(m->hosts[h].name, name, sizeof name);
        size_t len = display_width(name);
        w = len > w ? len : w;
    }
    return (int)(w > 21 ? 21 : w); /* the nearest-exhaustion table stays within 80 */
}

static void *text_begin(const struct report_model *m, FILE *out)
{
    struct text_state *st = calloc(1, sizeof(*st));
    if (!st)
        return NULL;
    st->out = out;
    st->host_width = host_width(m);
    if (m->render.connections) {
        st->conns = temp_file();
        if (!st->conns)
            fail(st);
    }
    return st;
}

static void text_finding(void *p, const struct report_model *m, const struct ib_finding *f)
{
    struct text_state *st = p;
    if ((unsigned)f->kind >= IB_FIND_COUNT)
        return;
    /* addressing and malformed take their rule's severity: show the worst seen */
    if ((unsigned)f->severity + 1 > st->worst[f->kind])
        st->worst[f->kind] = (uint8_t)(f->severity + 1);
    if (!m->render.frames)
        return;
    FILE **tmp = &st->by_kind[f->kind];
    if (!*tmp) {
        *tmp = temp_file();
        if (!*tmp) {
            fail(st);
            return;
        }
    }
    char at[32], when[32];
    char line[FINDING_TEXT_MAX];
    fmt_frame(&f->at, m->capture_count, at, sizeof(at));
    fmt_seconds(f->at.time_ns - (m->have_time ? m->first_ns : f->at.time_ns), when, sizeof(when));
    fmt_finding_text(f, m->capture_count, line, sizeof line);
    const struct report_host *h = report_capture_host(m, f->at.capture);
    fputs("    ", *tmp);
    if (h) { /* a merge: the host in place of the word */
        char name[PRINTABLE_MAX];
        printable(h->name, name, sizeof name);
        print_column(*tmp, name, (size_t)st->host_width);
    } else {
        fputs("frame", *tmp);
    }
    int n = fprintf(*tmp, " %-7s %10s s  ", at, when);
    wrap(*tmp, line, 4 + (h ? (size_t)st->host_width : 5) + (n > 0 ? (size_t)n : 0), 8);
}

/* "  seen at 0,1" with captures correlated, else nothing. */
static void seen_at_words(uint64_t mask, char *buf, size_t size)
{
    size_t len = 0;
    for (unsigned i = 0; i < 64 && len < size; i++) {
        if (!(mask & (1ull << i)))
            continue;
        int n = snprintf(buf + len, size - len, "%s%u", len ? "," : "  seen at ", i);
        if (n < 0)
            break;
        len += (size_t)n;
    }
}

static void text_connection(void *p, const struct report_model *m,
                            const struct ib_connection_record *rec)
{
    struct text_state *st = p;
    FILE *out = st->conns;
    char buf[256];
    int64_t lat;
    if (!out)
        return;
    if (rec->has_tuple) {
        char ps[PORT_SPACE_BUF], src[64], dst[64];
        fmt_port_space(rec->tuple.port_space, ps);
        ib_format_ip(rec->tuple.ip_version, rec->tuple.src_ip, src, sizeof(src));
        ib_format_ip(rec->tuple.ip_version, rec->tuple.dst_ip, dst, sizeof(dst));
        bool v6 = rec->tuple.ip_version == 6; /* [addr]:port, as in URLs */
        snprintf(buf, sizeof(buf), "%s %s%s%s:%u -> %s%s%s:%u", ps, v6 ? "[" : "", src,
                 v6 ? "]" : "", (unsigned)rec->tuple.src_port, v6 ? "[" : "", dst, v6 ? "]" : "",
                 (unsigned)rec->tuple.dst_port);
    } else {
        char a[64], b[64];
        fmt_endpoint(&rec->active, a, sizeof(a));
        fmt_endpoint(&rec->passive, b, sizeof(b));
        snprintf(buf, sizeof(buf), "%s -> %s service 0x%016" PRIx64, a, b, rec->service_id);
    }
    fprintf(out, "  %s\n", buf);

    /* Second line: comm IDs, state, latency, then the frames. */
    char state[48];
    snprintf(state, sizeof(state), "%s", ib_conn_state_name(rec->state));
    if (rec->rej.frame != 0)
        snprintf(state, sizeof(state), "%s (reason %u)", ib_conn_state_name(rec->state),
                 (unsigned)rec->reject_reason);
    char latency[32] = "";
    if (report_connection_latency(rec, &lat)) {
        char d[24];
        fmt_duration(lat, d, sizeof(d));
        snprintf(latency, sizeof(latency), "  setup %s", d);
    }
    char seen[96] = "";
    seen_at_words(rec->seen_at, seen, sizeof seen);
    const char *note = rec->evicted     ? "  (evicted)"
                       : rec->timed_out ? "  (DREQ unanswered)"
                       : rec->waiting   ? "  (waiting at the end)"
                                        : "";
    int width = fprintf(out, "    conn %" PRIu32 "  comm 0x%08" PRIx32 "/0x%08" PRIx32 "  %s%s%s",
                        rec->index, rec->local_comm_id, rec->remote_comm_id, state, latency, note);
    /* the report fits 80 columns: a long "seen at" gets a line of its own */
    if (*seen && width > 0 && (size_t)width + strlen(seen) > 80)
        fprintf(out, "\n    %s\n", seen + 2);
    else
        fprintf(out, "%s\n", seen);
    static const char *const names[] = { "REQ", "MRA", "REP", "RTU", "DREQ", "DREP", "REJ" };
    const struct ib_frame_ref *refs[] = { &rec->req,  &rec->mra,  &rec->rep, &rec->rtu,
                                          &rec->dreq, &rec->drep, &rec->rej };
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (refs[i]->frame == 0)
            continue;
        char fr[32];
        fmt_frame(refs[i], m->capture_count, fr, sizeof(fr));
        int n = snprintf(buf + len, sizeof(buf) - len, "%s%s %s", len ? "  " : "", names[i], fr);
        if (n > 0 && (size_t)n < sizeof(buf) - len)
            len += (size_t)n;
    }
    if (rec->retransmissions) {
        int n = snprintf(buf + len, sizeof(buf) - len, "%s(%u retransmission%s)", len ? "  " : "",
                         rec->retransmissions, rec->retransmissions == 1 ? "" : "s");
        if (n > 0 && (size_t)n < sizeof(buf) - len)
            len += (size_t)n;
    }
    if (len) {
        fputs("    frames ", out);
        wrap(out, buf, 11, 6);
    }
}

static void section(FILE *out, const char *title)
{
    fprintf(out, "\n%s\n", title);
}

static bool copy_file(FILE *src, FILE *out)
{
    char buf[65536];
    size_t n;
    if (fflush(src) != 0 || fseek(src, 0, SEEK_SET) != 0)
        return false;
    while ((n = fread(buf, 1, sizeof(buf), src)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            return false;
    return !ferror(src);
}

/* A live capture's filter, how it ended and what the kernel dropped. */
static void write_live(FILE *out, const struct report_live *l)
{
    char filter[PRINTABLE_MAX], ended[PRINTABLE_MAX], line[2 * PRINTABLE_MAX + 256];
    if (l->default_filter) /* glued after printable(), which escapes NB */
        snprintf(filter, sizeof filter, "RoCE" NB "(the" NB "default)");
    else
        printable(l->filter[0] ? l->filter : "none", filter, sizeof filter);
    printable(l->ended_by ? l->ended_by : "-", ended, sizeof ended); /* a merge read it */
    snprintf(line, sizeof line,
             "live capture, filter:" NB "%s; ended by %s; kernel: %" PRIu64
             " frames passed the filter, %" PRIu64 " dropped," NB "%" PRIu64
             " dropped by the interface",
             filter, ended, l->received, l->dropped, l->if_dropped);
    fputs("     ", out);
    wrap(out, line, 5, 7);
}

static void write_captures(FILE *out, const struct report_model *m)
{
    section(out, "Captures");
    fprintf(out, "  %-2s %-32s %-16s %9s %9s %3s\n", "#", "file", "link type", "frames",
            "IB frames", "err");
    for (size_t i = 0; i < m->capture_count; i++) {
        const struct report_capture *c = &m->captures[i];
        char lt[24] = "-", path[PRINTABLE_MAX], error[PRINTABLE_MAX];
        if (c->info.linktype >= 0) {
            const char *name = linktype_name(c->info.linktype);
            snprintf(lt, sizeof(lt), "%d %s", c->info.linktype, name ? name : "?");
        }
        /* Names come from the command line: escaped, measured in columns. */
        printable(c->info.path, path, sizeof path);
        fprintf(out, "  %-2zu ", i);
        print_column(out, path, 32);
        fprintf(out, " %-16s %9" PRIu64 " %9" PRIu64 " %3" PRIu64 "\n", lt, c->info.frames,
                c->ib_frames, c->info.errors);
        if (c->info.error[0]) {
            printable(c->info.error, error, sizeof error);
            fputs("     error: ", out);
            wrap(out, error, 12, 7);
        }
        if (c->info.snaplen_cut && c->info.first_cut)
            fprintf(out, "     %" PRIu64 " frames cut by the snaplen (first: frame %" PRIu64 ")\n",
                    c->info.snaplen_cut, c->info.first_cut);
        else if (c->info.snaplen_cut) /* a merge: reports do not say which was first */
            fprintf(out, "     %" PRIu64 " frames cut by the snaplen\n", c->info.snaplen_cut);
        if (c->live.on)
            write_live(out, &c->live);
    }
}

/* Captures of several hosts (fabric.h): each capture's clock, and the
 * management packets watched per direction. */
static void write_clocks(FILE *out, const struct report_model *m)
{
    section(out, "Clocks and delivery (captures of several hosts, each packet once)");
    fprintf(out, "  %-2s %-18s %-14s %s\n", "#", "clock offset", "error (+-)", "against");
    for (size_t i = 0; i < m->capture_count; i++) {
        const struct report_capture *c = &m->captures[i];
        if (!c->clock_linked) {
            fprintf(out, "  %-2zu %-18s %-14s %s\n", i, "-", "-", "shares no packet both ways");
            continue;
        }
        char off[32], err[32];
        snprintf(off, sizeof off, "%+.6f ms", (double)c->clock_offset_ns / 1e6);
        snprintf(err, sizeof err, "%.3f us", (double)c->clock_error_ns / 1e3);
        if (c->clock_reference == i)
            fprintf(out, "  %-2zu %-18s %-14s %s\n", i, "0", "-", "its own clock: the reference");
        else
            fprintf(out, "  %-2zu %-18s %-14s capture %u\n", i, off, err, c->clock_reference);
    }
    for (size_t i = 0; i < ib_fabric_gap_count(m->fabric); i++) {
        struct ib_clock_step s;
        if (ib_fabric_clock_step(m->fabric, i, &s))
            fprintf(out,
                    "  clock step: capture %u at frame %" PRIu64 ", %+.6f s (+- %.3f us, by "
                    "capture %u)\n",
                    s.capture, s.frame, (double)s.step_ns / 1e9, (double)s.error_ns / 1e3,
                    s.against);
    }
    const struct ib_fabric_stats *fs = ib_fabric_stats(m->fabric);
    fprintf(out, "  packets seen on two captures, counted once: %" PRIu64 "\n", fs->repeats);
    fprintf(out, "  management packets not delivered (within %lld ms):\n",
            (long long)IB_DELIVERY_WINDOW_MS);
    for (size_t i = 0; i < ib_fabric_delivery_count(m->fabric); i++) {
        const struct ib_delivery *d = ib_fabric_delivery(m->fabric, i);
        fprintf(out, "    capture %u -> %u: %" PRIu64 " of %" PRIu64 "\n", d->from, d->to,
                d->not_delivered, d->sent);
    }
    if (fs->sightings_evicted || m->clock_dropped)
        fprintf(out,
                "  limits hit: %" PRIu64 " packets left the window early (not judged), %" PRIu64
                "\n    sightings not used for the clocks\n",
                fs->sightings_evicted, m->clock_dropped);
}

static void write_summary(FILE *out, const struct report_model *m)
{
    const struct ib_engine_stats *es = &m->stats;
    section(out, "Summary");
    fprintf(out, "  frames %" PRIu64 ", InfiniBand %" PRIu64, m->frames, m->ib_frames);
    if (m->link_records)
        fprintf(out, ", link records %" PRIu64, m->link_records);
    if (m->mac_control_frames)
        fprintf(out, ", PAUSE/PFC %" PRIu64, m->mac_control_frames);
    fputc('\n', out);
    if (m->have_time) {
        char t[48], d[32];
        /* The span from the earliest to the latest frame: never negative. */
        fmt_time_rfc3339(m->min_ns, t, sizeof(t));
        fmt_duration(m->max_ns - m->min_ns, d, sizeof(d));
        fprintf(out, "  from %s, %s\n", t, d);
    }
    if (report_one_pool(m))
        fprintf(out, "  port pool %u-%u (%u ports), pool_high at %g%%\n", (unsigned)m->pool.low,
                (unsigned)m->pool.high, (unsigned)m->pool.size, m->pool.threshold_pct);
    else
        fputs("  port pools: each host's own (Hosts)\n", out);
    uint64_t total = 0;
    for (int k = 0; k < IB_FIND_COUNT; k++)
        total += es->findings[k];
    fprintf(out, "  findings %" PRIu64 "\n", total);
    if (m->findings_dropped || es->connections_evicted || es->transactions_evicted ||
        es->chains_dropped || es->sources_dropped)
        fprintf(out,
                "  limits hit: %" PRIu64 " findings dropped, %" PRIu64
                " connections evicted,\n    %" PRIu64 " transactions evicted, %" PRIu64
                " chains and %" PRIu64 " sources dropped\n",
                m->findings_dropped, es->connections_evicted, es->transactions_evicted,
                es->chains_dropped, es->sources_dropped);
    if (es->ended_forgotten)
        fprintf(out,
                "  %" PRIu64 " ended connections let go before their messages' copies could no\n"
                "    longer come (the latest %u are kept, docs/cm-model.md)\n",
                es->ended_forgotten, (unsigned)IB_CM_ENDED_KEPT);
    if (es->allocation_failures)
        fprintf(out,
                "  out of memory: %" PRIu64 " connections, transactions or chains not tracked;\n"
                "    the analysis is incomplete\n",
                es->allocation_failures);
}

static void write_crc(FILE *out, const struct report_model *m)
{
    section(out, "CRCs of InfiniBand frames");
    if (!m->render.crc) {
        fputs("  not checked (--no-crc)\n", out);
        return;
    }
    fprintf(out, "  %-2s %-4s %8s %8s %11s | %-4s %8s %8s %11s\n", "#", "", "verified", "mismatch",
            "not present", "", "verified", "mismatch", "not present");
    for (size_t i = 0; i < m->capture_count; i++) {
        const struct report_crc_counts *c = &m->captures[i].crc;
        fprintf(out,
                "  %-2zu ICRC %8" PRIu64 " %8" PRIu64 " %11" PRIu64 " | VCRC %8" PRIu64 " %8" PRIu64
                " %11" PRIu64 "\n",
                i, c->icrc[IB_CRC_VERIFIED], c->icrc[IB_CRC_MISMATCH], c->icrc[IB_CRC_NOT_PRESENT],
                c->vcrc[IB_CRC_VERIFIED], c->vcrc[IB_CRC_MISMATCH], c->vcrc[IB_CRC_NOT_PRESENT]);
    }
}

/* median: false where it is unknown (a merge's): "-". */
static void latency_line(FILE *out, const char *what, const struct ib_latency *l, bool median)
{
    char a[24], b[24] = "-", c[24];
    if (l->count == 0)
        return;
    fmt_duration(l->min_ns, a, sizeof(a));
    if (median)
        fmt_duration(l->median_ns, b, sizeof(b));
    fmt_duration(l->max_ns, c, sizeof(c));
    fprintf(out, "  %-14s min %s, median %s, max %s (%" PRIu64 ")\n", what, a, b, c, l->count);
}

/* "  by message: REQ 15, REP 15": the messages sent again, when any was. */
static void retransmission_line(FILE *out, const struct ib_connection_stats *cs)
{
    char buf[256];
    size_t len = 0;
    for (unsigned i = 0; i < IB_CM_MSG_COUNT; i++) {
        if (!cs->retransmissions_by_message[i])
            continue;
        int n = snprintf(buf + len, sizeof buf - len, "%s%s %" PRIu64, len ? ", " : "",
                         ib_name_lookup(ib_cm_attr_names, IB_CM_MSG_FIRST + i),
                         cs->retransmissions_by_message[i]);
        if (n > 0 && (size_t)n < sizeof buf - len)
            len += (size_t)n;
    }
    if (len)
        fprintf(out, "  retransmitted: %s\n", buf);
}

static void write_connections(FILE *out, struct text_state *st, const struct report_model *m)
{
    const struct ib_connection_stats *cs = &m->connections;
    section(out, "CM connections");
    fprintf(out,
            "  requests %" PRIu64 ", established %" PRIu64 ", rejected %" PRIu64 ", closed %" PRIu64
            ",\n  retransmissions %" PRIu64,
            cs->requests, cs->established, cs->rejected, cs->closed, cs->retransmissions);
    if (cs->sidr_requests || cs->sidr_replies)
        fprintf(out, ", SIDR requests %" PRIu64 ", replies %" PRIu64, cs->sidr_requests,
                cs->sidr_replies);
    fputc('\n', out);
    retransmission_line(out, cs);
    if (cs->unreachable || cs->disconnect_timeouts)
        fprintf(out, "  given up: %" PRIu64 " unreachable, %" PRIu64 " DREQ%s unanswered\n",
                cs->unreachable, cs->disconnect_timeouts, cs->disconnect_timeouts == 1 ? "" : "s");
    if (cs->waiting_at_end)
        fprintf(out, "  waiting for an answer at the end of the capture: %" PRIu64 "\n",
                cs->waiting_at_end);
    for (unsigned r = 0; r < IB_REJ_REASON_MAX; r++) {
        if (cs->reject_reasons[r] == 0)
            continue;
        const char *name = rej_reason_name(r);
        fprintf(out, "  reject reason %2u %-34s %8" PRIu64 "\n", r,
                name ? name : (r == IB_REJ_REASON_MAX - 1 ? "(63 or more)" : "?"),
                cs->reject_reasons[r]);
    }
    latency_line(out, "REQ to RTU", &cs->setup, m->medians);
    latency_line(out, "REQ to REP", &cs->req_rep, m->medians);
    if (st->conns) {
        fprintf(out, "\n  Connections (%" PRIu64 ")\n", m->connections_listed);
        if (!copy_file(st->conns, out))
            fail(st);
    }
}

/* Keeps "LID 7", "QP 0x10" and "4m 05s" whole when a line is wrapped. */
static void glue(char *s)
{
    for (; *s; s++)
        if (*s == ' ')
            *s = TEXT_WRAP_NBSP;
}

/* A rate for the forecast table: as many decimals as fit its column. */
static void fmt_rate(const struct ib_forecast *fc, char *buf, size_t size)
{
    double r = fabs(fc->rate_per_s) < 0.005 ? 0 : fc->rate_per_s; /* no "-0.00" */
    if (!fc->has_rate)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.*f", fabs(r) < 100 ? 2 : fabs(r) < 10000 ? 1 : 0, r);
}

/* A merge: the host of source i above it, when it is the first of its
 * host's. */
static void source_host_line(FILE *out, const struct report_model *m, size_t i)
{
    if (!m->host_count || (i > 0 && m->source_host[i] == m->source_host[i - 1]))
        return;
    char name[PRINTABLE_MAX];
    printable(m->hosts[m->source_host[i]].name, name, sizeof name);
    fprintf(out, "  %s:\n", name);
}

/* When each source's pool runs out at its recent rate, in both models: the
 * last estimate, made at the source's last port event (in a merge, each
 * host's report's). */
static void write_forecast(FILE *out, const struct report_model *m)
{
    bool one = report_one_pool(m);
    char window[24], horizon[24], age[24], head[256], foot[192];
    ib_format_time_left(m->pool.forecast_window_s, window, sizeof window);
    ib_format_time_left(m->pool.forecast_horizon_s, horizon, sizeof horizon);
    ib_format_time_left(m->pool.forecast_window_s / IB_FORECAST_MIN_AGE_DIVISOR, age, sizeof age);
    glue(window);
    glue(horizon);
    glue(age);
    if (one)
        snprintf(head, sizeof head,
                 "Runs out in: at the net rate of ports taken over the last %s before each "
                 "source's last port event (pool_forecast within %s)",
                 window, horizon);
    else
        snprintf(head, sizeof head,
                 "Runs out in: at the net rate of ports taken over the last fifth of its "
                 "host's forecast horizon before each source's last port event");
    fputs("\n  ", out);
    wrap(out, head, 2, 2);
    fprintf(out, "  %-16s %-5s | %-19s | %-19s |\n", "", "", "one port each", "per destination");
    fprintf(out, "  %-16s %-5s | %7s %11s | %7s %11s | %7s\n", "source", "space", "ports/s",
            "runs out in", "ports/s", "runs out in", "frame");
    for (size_t i = 0; i < m->source_count; i++) {
        const struct ib_source_stats *s = m->sources[i];
        char ip[PRINTABLE_MAX], ps[PORT_SPACE_BUF], fr[32] = "-", rate[IB_MODEL_COUNT][24],
                                                    left[IB_MODEL_COUNT][24];
        source_host_line(out, m, i);
        fmt_source_label(s, ip, sizeof(ip));
        fmt_port_space(s->port_space, ps);
        if (s->forecast_at.frame)
            fmt_frame(&s->forecast_at, m->capture_count, fr, sizeof(fr));
        for (unsigned k = 0; k < IB_MODEL_COUNT; k++) {
            fmt_rate(&s->forecast[k], rate[k], sizeof rate[k]);
            if (s->forecast[k].has_eta)
                ib_format_time_left(s->forecast[k].eta_s, left[k], sizeof left[k]);
            else
                snprintf(left[k], sizeof left[k], "-");
        }
        if (strlen(ip) > 16)
            fprintf(out, "  %s\n  %-16s", ip, "");
        else
            fprintf(out, "  %-16s", ip);
        fprintf(out, " %-5s | %7s %11s | %7s %11s | %7s\n", ps, rate[0], left[0], rate[1], left[1],
                fr);
    }
    if (one)
        snprintf(foot, sizeof foot,
                 "- = too little seen (fewer than %u port events, or less than %s since the "
                 "first), or the count is not growing",
                 IB_FORECAST_MIN_EVENTS, age);
    else
        snprintf(foot, sizeof foot,
                 "- = too little seen (fewer than %u port events, or less than a quarter of "
                 "the window since the first), or the count is not growing",
                 IB_FORECAST_MIN_EVENTS);
    fputs("  ", out);
    wrap(out, foot, 2, 4);
}

/* Under a source's row, when its host is more than its address: how its
 * addresses share the pool, and which they are. */
static void host_lines(FILE *out, const struct ib_source_stats *s)
{
    if (!report_host_shown(s))
        return;
    char line[PRINTABLE_MAX + 1100];
    fmt_host_line(s, line, sizeof line);
    fprintf(out, "  %-16s ", "");
    wrap(out, line, 19, 21);
}

static void write_sources(FILE *out, const struct report_model *m)
{
    size_t n = m->source_count;
    section(out, "Sources: source ports in use against the pool");
    if (n == 0) {
        fputs("  no IP CM connection requests\n", out);
        return;
    }
    /* Legacy: one port per connection.  4-tuple: Linux since 2016 shares a
     * port among connections to different destinations. */
    fprintf(out, "  %-16s %-5s %6s | %-21s | %s\n", "", "", "", "one port each", "per destination");
    fprintf(out, "  %-16s %-5s %6s | %6s %6s %7s | %6s %6s %7s\n", "source", "space", "conns",
            "peak", "pool%", "frame", "peak", "pool%", "frame");
    for (size_t i = 0; i < n; i++) {
        const struct ib_source_stats *s = m->sources[i];
        double size = report_source_pool(m, i)->size;
        source_host_line(out, m, i);
        char ip[PRINTABLE_MAX], ps[PORT_SPACE_BUF], f1[32] = "-", f2[32] = "-", p1[16], p2[16];
        fmt_source_label(s, ip, sizeof(ip));
        fmt_port_space(s->port_space, ps);
        if (s->peak_at.frame)
            fmt_frame(&s->peak_at, m->capture_count, f1, sizeof(f1));
        if (s->peak_per_destination_at.frame)
            fmt_frame(&s->peak_per_destination_at, m->capture_count, f2, sizeof(f2));
        snprintf(p1, sizeof(p1), "%.1f%s", s->pool_utilization, s->exhausted ? "!" : "");
        snprintf(p2, sizeof(p2), "%.1f%s", 100.0 * s->peak_ports_per_destination / size,
                 s->exhausted_per_destination ? "!" : "");
        if (strlen(ip) > 16)
            fprintf(out, "  %s\n  %-16s", ip, "");
        else
            fprintf(out, "  %-16s", ip);
        fprintf(out, " %-5s %6" PRIu64 " | %6" PRIu32 " %6s %7s | %6" PRIu32 " %6s %7s\n", ps,
                s->connections, s->peak_ports_in_use, p1, f1, s->peak_ports_per_destination, p2,
                f2);
        if (s->ports_outside_pool) {
            fprintf(out, "  %-16s %" PRIu64 " request%s used a source port outside the pool\n", "",
                    s->ports_outside_pool, s->ports_outside_pool == 1 ? "" : "s");
        }
        host_lines(out, s);
    }
    fputs("  ! = pool exhausted in that model\n", out);
    write_forecast(out, m);
}

/* "chain 3: PerfMgt (class 0x04) from LID 5, request frame 12:", with its
 * host after the number in a merge. */
static void chain_heading(FILE *out, const struct report_model *m, size_t i)
{
    const struct ib_redirect_chain *c = m->chains[i];
    char req[80], fr[32], host[PRINTABLE_MAX + 4] = "", line[PRINTABLE_MAX + 192];
    const char *cls = ib_mgmt_class_name(c->mgmt_class);
    fmt_endpoint(&c->requester, req, sizeof(req));
    fmt_frame(&c->first_request, m->capture_count, fr, sizeof(fr));
    if (m->host_count) {
        char name[PRINTABLE_MAX];
        printable(m->hosts[m->chain_host[i]].name, name, sizeof name);
        snprintf(host, sizeof host, " (%s)", name);
    }
    snprintf(line, sizeof line, "chain %zu%s: %s (class 0x%02x) from %s, request frame %s:", i,
             host, cls ? cls : "MAD", (unsigned)c->mgmt_class, req, fr);
    if (!m->host_count) {
        fprintf(out, "  %s\n", line);
        return;
    }
    fputs("  ", out);
    wrap(out, line, 2, 6); /* a host's label can be long */
}

static void write_chains(FILE *out, const struct report_model *m)
{
    size_t n = m->chain_count;
    if (n == 0)
        return;
    section(out, "Redirect chains");
    for (size_t i = 0; i < n; i++) {
        const struct ib_redirect_chain *c = m->chains[i];
        char fr[32], ep[80], qp[24], text[2048];
        chain_heading(out, m, i);
        fmt_endpoint(&c->origin, ep, sizeof(ep));
        fmt_qp(c->origin_qp, qp, sizeof(qp));
        glue(ep);
        glue(qp);
        size_t len = (size_t)snprintf(text, sizeof(text), "%s" NB "%s", ep, qp);
        unsigned hops = c->hop_count < IB_CHAIN_HOPS_MAX ? c->hop_count : IB_CHAIN_HOPS_MAX;
        for (unsigned h = 0; h < hops && len < sizeof(text); h++) {
            const struct ib_redirect_hop *hop = &c->hops[h];
            struct ib_endpoint target = ib_hop_endpoint(hop);
            fmt_frame(&hop->frame, m->capture_count, fr, sizeof(fr));
            fmt_endpoint(&target, ep, sizeof(ep));
            fmt_qp(hop->qp, qp, sizeof(qp));
            glue(ep);
            glue(qp);
            len += (size_t)snprintf(text + len, sizeof(text) - len,
                                    " --(frame" NB "%s)--> %s" NB "%s", fr, ep, qp);
        }
        if (c->hops_dropped && len < sizeof(text))
            len += (size_t)snprintf(text + len, sizeof(text) - len,
                                    " ..." NB "(%u" NB "more" NB "hops)", c->hops_dropped);
        if (len < sizeof(text)) {
            char end[32];
            snprintf(end, sizeof end, "%s", ib_chain_end_name(c->end));
            glue(end);
            if (c->end == IB_CHAIN_ANSWERED) {
                fmt_frame(&c->final_answer, m->capture_count, fr, sizeof(fr));
                snprintf(text + len, sizeof(text) - len, " [%s," NB "frame" NB "%s]", end, fr);
            } else {
                snprintf(text + len, sizeof(text) - len, " [%s]", end);
            }
        }
        fputs("    ", out);
        wrap(out, text, 4, 6);
    }
}

static void write_addressing(FILE *out, const struct report_model *m)
{
    const struct ib_engine_stats *es = &m->stats;
    bool any = false;
    for (int d = 0; d < IB_DIAG_COUNT; d++) {
        const struct ib_diag_info *info = ib_diag_info((enum ib_diag_id)d);
        if (!info->addressing || es->diagnostics[d] == 0)
            continue;
        if (!any) {
            section(out, "Addressing rules broken (packets)");
            any = true;
        }
        int n = fprintf(out, "  %-24s %8" PRIu64 "  ", info->name, es->diagnostics[d]);
        wrap(out, info->text, n > 0 ? (size_t)n : 0, 37);
    }
}

/* A merge: the hosts a kind's findings came from ("node1 3, node2 1"). */
static void kind_hosts(FILE *out, const struct report_model *m, int k)
{
    char text[8192];
    size_t len = 0;
    text[0] = '\0';
    for (size_t h = 0; h < m->host_count && len < sizeof text; h++) {
        if (!m->hosts[h].findings[k])
            continue;
        char name[PRINTABLE_MAX];
        printable(m->hosts[h].name, name, sizeof name);
        int n = snprintf(text + len, sizeof text - len, "%s%s" NB "%" PRIu64, len ? ", " : "", name,
                         m->hosts[h].findings[k]);
        len = n < 0 ? sizeof text : len + (size_t)n;
    }
    fputs("  ", out);
    wrap(out, text, 47, 8);
}

static void write_findings(FILE *out, struct text_state *st, const struct report_model *m)
{
    const struct ib_engine_stats *es = &m->stats;
    section(out, "Findings by kind");
    bool any = false;
    for (int k = 0; k < IB_FIND_COUNT; k++) {
        enum ib_finding_kind kind = (enum ib_finding_kind)k;
        uint64_t count = es->findings[k] > m->findings[k] ? es->findings[k] : m->findings[k];
        if (count == 0)
            continue;
        any = true;
        enum ib_severity sev =
            st->worst[k] ? (enum ib_severity)(st->worst[k] - 1) : ib_finding_kind_severity(kind);
        fprintf(out, "  %-24s %-7s %10" PRIu64 "%s", ib_finding_kind_name(kind),
                ib_severity_name(sev), count, m->host_count ? "" : "\n");
        if (m->host_count)
            kind_hosts(out, m, k);
        if (st->by_kind[k] && !copy_file(st->by_kind[k], out))
            fail(st);
    }
    if (!any)
        fputs("  none\n", out);
}

/* A merge: its hosts, with their captures, frames, sources, findings and
 * pools. */
/* The queue pairs listed with their numbers, the rest counted. */
#define TEXT_QPS_LISTED 10

static void qp_line(FILE *out, const struct ib_qp_stats *q)
{
    char dst[64], median[24] = "-", p99[24] = "-";
    fmt_node(&q->qp.dst, dst, sizeof dst);
    uint64_t requests = 0, naks = 0, resends = 0;
    for (unsigned op = 0; op < IB_QP_OP_COUNT; op++)
        requests += q->requests[op];
    for (unsigned c = 0; c < IB_NAK_CODES; c++)
        naks += q->naks[c];
    for (unsigned c = 0; c < IB_RESEND_CAUSE_COUNT; c++)
        resends += q->resends[c];
    if (q->ack_rtt.count) {
        fmt_duration(q->ack_rtt.median_ns, median, sizeof median);
        fmt_duration(q->ack_rtt.p99_ns, p99, sizeof p99);
    }
    fprintf(out,
            "  %4" PRIu32 "  %-16s 0x%06" PRIx32 " %8" PRIu64 " %10s %10s %7" PRIu64 " %5" PRIu64
            " %5" PRIu64 " %5" PRIu64 "%s\n",
            q->qp.index, dst, q->qp.qpn, requests, median, p99, resends, naks, q->rnr_naks,
            q->psn_gaps, q->died ? "  died" : "");
}

static void write_qps(FILE *out, const struct report_model *m)
{
    if (m->qp_count == 0)
        return;
    size_t troubled = 0;
    struct report_qp buf;
    const struct ib_qp_stats *q;
    while (troubled < m->qp_count &&
           ((q = &report_qp(m, troubled, &buf)->stats)->died || report_qp_trouble(q)))
        troubled++;
    section(out, "Queue pairs (RC): each requester direction");
    fprintf(out, "  %zu followed, %zu with problems\n", m->qp_count, troubled);
    if (troubled == 0)
        return;
    fprintf(out, "     #  destination      QPN        requests ACK median    ACK p99 resends  NAKs"
                 "   RNR  gaps\n");
    for (size_t i = 0; i < troubled && i < TEXT_QPS_LISTED; i++)
        qp_line(out, &report_qp(m, i, &buf)->stats);
    if (troubled > TEXT_QPS_LISTED)
        fprintf(out, "  and %zu more with problems (the JSON report lists every queue pair)\n",
                troubled - TEXT_QPS_LISTED);
}

/* The wire audit's directions listed, the rest counted. */
#define TEXT_WIRE_LISTED 20

/* A direction's line under its endpoints' heading; a setting whose values
 * mix shows "mix" there and its values on a line of its own. */
static void wire_line(FILE *out, const struct report_wire *w)
{
    const struct ib_wire_direction *d = &w->dir;
    char mtu[16] = "-", v[IB_WIRE_FIELD_COUNT][WIRE_VALUES_BUF];
    if (d->has_pair)
        snprintf(mtu, sizeof mtu, "%" PRIu32, d->path_mtu);
    bool mixed[IB_WIRE_FIELD_COUNT];
    for (unsigned f = 0; f < IB_WIRE_FIELD_COUNT; f++) {
        fmt_wire_values(f, &d->fields[f], w->values[f], v[f], sizeof v[f]);
        mixed[f] = d->fields[f].count != 1 || d->fields[f].other != 0;
    }
#define CELL(f) (mixed[f] ? "mix" : v[f])
    fprintf(
        out,
        "  %4" PRIu32 " 0x%06" PRIx32 " %8" PRIu64 " %-5s %-8s %-5s %-7s %-11s %5s %7" PRIu32 "\n",
        d->index, d->qpn, d->packets, CELL(IB_WIRE_DSCP), CELL(IB_WIRE_ECN), CELL(IB_WIRE_PRIORITY),
        CELL(IB_WIRE_VERSION), CELL(IB_WIRE_GID_KIND), mtu, d->max_payload);
#undef CELL
    for (unsigned f = 0; f < IB_WIRE_FIELD_COUNT; f++)
        if (mixed[f])
            fprintf(out, "         %s: %s\n", ib_wire_field_name(f), v[f]);
}

static void write_settings(FILE *out, const struct report_model *m)
{
    if (m->wire_count == 0)
        return;
    struct report_wire buf;
    size_t carried = 0, listed = 0;
    for (size_t i = 0; i < m->wire_count; i++)
        carried += report_wire(m, i, &buf)->dir.packets != 0;
    section(out, "Wire settings: each direction's data packets");
    fputs("     # QPN       packets DSCP  ECN      prio  version GID kind      MTU payload\n", out);
    struct ib_endpoint src, dst;
    for (size_t i = 0; i < m->wire_count && listed < TEXT_WIRE_LISTED; i++) {
        const struct report_wire *w = report_wire(m, i, &buf);
        if (w->dir.packets == 0)
            continue;
        if (listed == 0 || memcmp(&src, &w->dir.src, sizeof src) != 0 ||
            memcmp(&dst, &w->dir.dst, sizeof dst) != 0) {
            char a[64], b[64];
            src = w->dir.src;
            dst = w->dir.dst;
            fmt_node(&src, a, sizeof a);
            fmt_node(&dst, b, sizeof b);
            fprintf(out, "  %s -> %s\n", a, b);
        }
        wire_line(out, w);
        listed++;
    }
    if (carried > listed)
        fprintf(out, "  and %zu more (the JSON report lists every direction)\n", carried - listed);
}

/* The CE/CNP flows and paused priorities listed; the JSON report has all. */
#define TEXT_CONGESTION_LISTED 10

static void cnp_line(FILE *out, const struct ib_cnp_stats *c)
{
    char sender[64], receiver[64], lo[24] = "-", mean[24] = "-", hi[24] = "-", rate[24] = "-";
    fmt_node(&c->sender, sender, sizeof sender);
    fmt_node(&c->receiver, receiver, sizeof receiver);
    if (c->has_delay) {
        fmt_duration(c->delay_min_ns, lo, sizeof lo);
        fmt_duration(c->delay_mean_ns, mean, sizeof mean);
        fmt_duration(c->delay_max_ns, hi, sizeof hi);
    }
    if (c->has_cnp_rate)
        snprintf(rate, sizeof rate, "%.0f/s", c->cnp_rate_per_s);
    fprintf(
        out,
        "  %-16s 0x%06" PRIx32 " %-16s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %9s %9s %9s %9s\n",
        sender, c->sender_qpn, receiver, c->ce_marks, c->cnps, c->unanswered, lo, mean, hi, rate);
}

static void pfc_line(FILE *out, const struct report_model *m, const struct ib_pfc_stats *p)
{
    char prio[8], total[24], longest[24], fr[32] = "-";
    if (!p->pfc)
        snprintf(prio, sizeof prio, "all");
    else
        snprintf(prio, sizeof prio, "%u", p->priority);
    fmt_duration(p->paused_ns, total, sizeof total);
    fmt_duration(p->longest_ns, longest, sizeof longest);
    if (p->longest_at.frame)
        fmt_frame(&p->longest_at, m->capture_count, fr, sizeof fr);
    fprintf(out, "  %7" PRIu32 " %-8s %-4s %7" PRIu64 " %10s %10s %9s %6" PRIu64 "%s\n", p->capture,
            prio, p->roce ? "yes" : "no", p->pauses, total, longest, fr, p->storms,
            p->paused_at_end ? "  paused at end" : "");
}

/* CE marks and CNPs per (sender, QP), and the pauses per link and priority:
 * only when the capture has any (docs/wire-audit.md). */
static void write_congestion(FILE *out, const struct report_model *m)
{
    const struct report_congestion *g = &m->congestion;
    if (g->cnp_count) {
        section(out, "Congestion notification: CE marks and CNPs per sender QP");
        fprintf(out, "  window %" PRIu32 " us; %" PRIu32 " flows\n", g->cnp_window_us,
                g->cnp_count);
        fprintf(out, "  %-16s %-8s %-16s %8s %8s %8s %9s %9s %9s %9s\n", "sender", "QP", "receiver",
                "CE marks", "CNPs", "no CNP", "delay min", "mean", "max", "CNP rate");
        for (uint32_t i = 0; i < g->cnp_count && i < TEXT_CONGESTION_LISTED; i++)
            cnp_line(out, &g->cnps[i]);
        if (g->cnp_count > TEXT_CONGESTION_LISTED)
            fprintf(out, "  and %" PRIu32 " more (the JSON report lists every one)\n",
                    g->cnp_count - TEXT_CONGESTION_LISTED);
    }
    if (g->pfc_count) {
        section(out, "PFC and PAUSE: pauses per link and priority");
        fprintf(out, "  storm at %" PRIu32 " ms; quanta at %" PRIu32 " Gb/s\n", g->pfc_storm_ms,
                g->pfc_link_gbps);
        fprintf(out, "  %7s %-8s %-4s %7s %10s %10s %9s %6s\n", "capture", "priority", "RoCE",
                "pauses", "paused", "longest", "frame", "storms");
        for (uint32_t i = 0; i < g->pfc_count && i < TEXT_CONGESTION_LISTED; i++)
            pfc_line(out, m, &g->pfcs[i]);
        if (g->pfc_count > TEXT_CONGESTION_LISTED)
            fprintf(out, "  and %" PRIu32 " more (the JSON report lists every one)\n",
                    g->pfc_count - TEXT_CONGESTION_LISTED);
    }
}

static void write_hosts(FILE *out, const struct report_model *m, int hw)
{
    section(out, "Hosts");
    fprintf(out, "  %-*s %8s %10s %8s %9s  %s\n", hw, "host", "captures", "frames", "sources",
            "findings", "pool");
    for (size_t i = 0; i < m->host_count; i++) {
        const struct report_host *h = &m->hosts[i];
        char name[PRINTABLE_MAX];
        printable(h->name, name, sizeof name);
        fputs("  ", out);
        print_column(out, name, (size_t)hw);
        fprintf(out, " %8" PRIu32 " %10" PRIu64 " %8" PRIu64 " %9" PRIu64 "  %u-%u\n",
                h->capture_count, h->frames, h->source_count, h->findings_total,
                (unsigned)h->pool.low, (unsigned)h->pool.high);
    }
    if (m->capture_count > 1)
        fputs("  Frames are written capture:frame, captures numbered across the fabric.  Each\n"
              "  host's capture is seen on its own: a source captured on two hosts is two\n"
              "  sources here.\n",
              out);
    else /* frames are written as in one capture */
        fputs("  Each host's capture is seen on its own: a source captured on two hosts is two\n"
              "  sources here.\n",
              out);
}

/* A merge: the sources with the largest share of their own host's pool in
 * use at their peak. */
static void write_nearest(FILE *out, const struct report_model *m, int hw)
{
    section(out, "Sources nearest exhaustion (share of each host's own pool)");
    if (!m->nearest_count) {
        fputs("  no IP CM connection requests\n", out);
        return;
    }
    fprintf(out, "  %-*s %-16s %-5s %6s %7s %9s %8s\n", hw, "host", "source", "space", "peak",
            "pool%", "frame", "per dest");
    for (size_t k = 0; k < m->nearest_count; k++) {
        size_t i = m->nearest[k];
        const struct ib_source_stats *s = m->sources[i];
        char ip[PRINTABLE_MAX], ps[PORT_SPACE_BUF], fr[32] = "-", name[PRINTABLE_MAX];
        fmt_source_label(s, ip, sizeof ip);
        fmt_port_space(s->port_space, ps);
        if (s->peak_at.frame)
            fmt_frame(&s->peak_at, m->capture_count, fr, sizeof fr);
        printable(m->hosts[m->source_host[i]].name, name, sizeof name);
        fputs("  ", out);
        print_column(out, name, (size_t)hw);
        fprintf(out, " %-16s %-5s %6" PRIu32 " %6.1f%s %9s %8" PRIu32 "\n", ip, ps,
                s->peak_ports_in_use, s->pool_utilization, s->exhausted ? "!" : " ", fr,
                s->peak_ports_per_destination);
    }
    if (m->source_count > m->nearest_count)
        fprintf(out, "  (the %zu of %zu sources with the most of their pool in use)\n",
                m->nearest_count, m->source_count);
}

static int text_end(void *p, const struct report_model *m)
{
    struct text_state *st = p;
    FILE *out = st->out;
    if (m->host_count) {
        fprintf(out, "ibscope %s fabric report: %zu host%s\n", m->version, m->host_count,
                m->host_count == 1 ? "" : "s");
        write_hosts(out, m, st->host_width);
    } else {
        fprintf(out, "ibscope %s report\n", m->version);
    }
    write_captures(out, m);
    if (m->fabric)
        write_clocks(out, m);
    write_summary(out, m);
    write_crc(out, m);
    write_connections(out, st, m);
    write_sources(out, m);
    if (m->host_count)
        write_nearest(out, m, st->host_width);
    write_chains(out, m);
    write_qps(out, m);
    write_settings(out, m);
    write_congestion(out, m);
    write_addressing(out, m);
    write_findings(out, st, m);
    int error = st->error;
    for (int k = 0; k < IB_FIND_COUNT; k++)
        if (st->by_kind[k])
            fclose(st->by_kind[k]);
    if (st->conns)
        fclose(st->conns);
    free(st);
    return error;
}

const struct report_renderer report_text = {
    .begin = text_begin,
    .finding = text_finding,
    .connection = text_connection,
    .end = text_end,
};
