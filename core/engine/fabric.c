/* fabric.c - the frames of several captures as one analysis: repeat
 * sightings, and management packets that never arrived (fabric.h, step 2). */
#include "fabric.h"

#include <stdlib.h>
#include <string.h>

#include "clock_sync.h"
#include "identity.h"
#include "seen_at.h"
#include "sightings.h"

struct ib_fabric {
    const struct ib_clock_sync *cs;
    struct ib_sightings window;
    struct seen_at seen;
    struct ib_fabric_stats stats;
    struct ib_delivery *dirs;
    size_t dir_count, dir_cap;
    struct step_figures *steps; /* one per gap of step 1 */
};

struct ib_fabric *ib_fabric_new(const struct ib_clock_sync *cs)
{
    struct ib_fabric *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->cs = cs;
    bool seen = seen_at_init(&f->seen);
    f->steps = calloc(cs->steps.gap_count ? cs->steps.gap_count : 1, sizeof *f->steps);
    if (!ib_sightings_init(&f->window, IB_SIGHTINGS_MAX, IB_DELIVERY_WINDOW_NS) || !seen ||
        !f->steps) {
        ib_fabric_free(f);
        return NULL;
    }
    return f;
}

void ib_fabric_free(struct ib_fabric *f)
{
    if (!f)
        return;
    ib_sightings_destroy(&f->window);
    seen_at_destroy(&f->seen);
    free(f->dirs);
    free(f->steps);
    free(f);
}

int64_t ib_fabric_corrected(const struct ib_fabric *f, uint32_t capture, int64_t time_ns)
{
    const struct ib_capture_clock *c = ib_clock_sync_capture(f->cs, capture);
    return c && c->linked ? time_ns - c->offset_ns : time_ns;
}

/* The direction from -> to, made when first needed; NULL without memory. */
static struct ib_delivery *direction(struct ib_fabric *f, uint32_t from, uint32_t to)
{
    for (size_t i = 0; i < f->dir_count; i++)
        if (f->dirs[i].from == from && f->dirs[i].to == to)
            return &f->dirs[i];
    if (f->dir_count == f->dir_cap) {
        size_t cap = f->dir_cap ? f->dir_cap * 2 : 8;
        struct ib_delivery *d = realloc(f->dirs, cap * sizeof *d);
        if (!d)
            return NULL;
        f->dirs = d;
        f->dir_cap = cap;
    }
    struct ib_delivery *d = &f->dirs[f->dir_count++];
    memset(d, 0, sizeof *d);
    d->from = from;
    d->to = to;
    return d;
}

/* Whether capture c, on the corrected clock, showed frames from t to the
 * window's end (fabric.h: IB_WATCH_GAP_NS). */
static bool capturing(const struct ib_fabric *f, uint32_t c, int64_t t)
{
    const struct ib_capture_clock *k = ib_clock_sync_capture(f->cs, c);
    if (!k || !k->has_span)
        return false;
    int64_t own = k->linked ? t + k->offset_ns : t; /* on c's own clock */
    return ib_clock_sync_watching(f->cs, c, own, own + IB_DELIVERY_WINDOW_NS);
}

/* A management packet seen on its sender's capture (at), to a host that
 * another capture of the same clock group covers then: watched, whichever
 * capture saw it first (a mirror may have), and reached if that host's
 * capture saw it already. */
static void watch(struct ib_fabric *f, struct ib_sighting *g, struct ib_frame_ref at,
                  const struct ib_packet *p)
{
    if (g->watched || !ib_packet_has(p, IB_HAS_MAD))
        return;
    int64_t sender = ib_clock_sync_owner(f->cs, g->src_key);
    int64_t to = ib_clock_sync_owner(f->cs, g->dst_key);
    if (sender != (int64_t)at.capture || to < 0 || to == sender)
        return;
    const struct ib_capture_clock *a = ib_clock_sync_capture(f->cs, at.capture);
    const struct ib_capture_clock *b = ib_clock_sync_capture(f->cs, (uint32_t)to);
    if (!a->linked || !b->linked || a->reference != b->reference ||
        !capturing(f, (uint32_t)to, g->first.time_ns))
        return;
    struct ib_delivery *d = direction(f, at.capture, (uint32_t)to);
    if (!d) {
        f->stats.allocation_failures++;
        return;
    }
    d->sent++;
    g->watched = true;
    g->reached = ib_sighting_seen_by(g, (uint32_t)to);
    g->watch_capture = (uint32_t)to;
    g->sent = at;
    g->from = p->src;
    g->to = p->dst;
    g->mgmt_class = p->mad.mgmt_class;
    g->method = p->mad.method;
    g->attr_id = p->mad.attr_id;
}

bool ib_fabric_packet(struct ib_fabric *f, struct ib_frame_ref at, const uint8_t *frame,
                      size_t caplen, const struct ib_packet *p, struct ib_frame_ref *first)
{
    const struct ib_hash_key *key = ib_clock_sync_key(f->cs);
    struct ib_identity id;
    if (!ib_packet_identity(key, frame, caplen, p, &id))
        return false;
    if (ib_packet_has(p, IB_HAS_MAD)) {
        const struct ib_capture_clock *c = ib_clock_sync_capture(f->cs, at.capture);
        int64_t own = c && c->linked ? at.time_ns + c->offset_ns : at.time_ns;
        cst_seen(&f->cs->steps, f->steps, at.capture, at.frame, own, id);
    }
    struct ib_sighting *g = ib_sightings_find(&f->window, id);
    if (g && ib_sighting_seen_by(g, at.capture)) {
        /* The same bytes twice on one capture are two packets: the first
         * stays due (and judged) in its time, the new one takes the key. */
        ib_sightings_detach(&f->window, g);
        g = NULL;
    }
    if (g) {
        ib_sighting_add_capture(g, at.capture, at.time_ns);
        if (g->watched && g->watch_capture == at.capture)
            g->reached = true;
        watch(f, g, at, p);
        f->stats.repeats++;
        *first = g->first;
        if (ib_packet_has(p, IB_HAS_CM) && !seen_at_add(&f->seen, g->first, at.capture))
            f->stats.allocation_failures++;
        return true;
    }
    g = ib_sightings_insert(&f->window, id, at);
    if (!g) {
        f->stats.allocation_failures++;
        return false;
    }
    g->src_key = ib_endpoint_key(key, &p->src);
    g->dst_key = ib_endpoint_key(key, &p->dst);
    watch(f, g, at, p);
    return false;
}

static void not_delivered(struct ib_fabric *f, const struct ib_sighting *g, struct ib_finding *out)
{
    memset(out, 0, sizeof *out);
    out->kind = IB_FIND_NOT_DELIVERED;
    out->severity = ib_finding_kind_severity(IB_FIND_NOT_DELIVERED);
    out->at = g->sent; /* the sender's frame */
    out->data.mgmt_class = g->mgmt_class;
    out->data.method = g->method;
    out->data.attr_id = g->attr_id;
    out->data.from = g->from;
    out->data.to = g->to;
    out->data.to_capture = g->watch_capture;
    struct ib_delivery *d = direction(f, g->sent.capture, g->watch_capture);
    if (d)
        d->not_delivered++;
}

static void unwatch(struct ib_fabric *f, const struct ib_sighting *g)
{
    struct ib_delivery *d = direction(f, g->sent.capture, g->watch_capture);
    if (d && d->sent)
        d->sent--;
}

size_t ib_fabric_due(struct ib_fabric *f, int64_t now_ns, struct ib_finding *out, size_t max)
{
    size_t n = 0;
    bool early = false;
    struct ib_sighting *g;
    while (n < max) {
        g = now_ns == INT64_MAX ? ib_sightings_next_left(&f->window)
                                : ib_sightings_due(&f->window, now_ns, &early);
        if (!g)
            break;
        /* one pushed out early by the cap is not judged, nor counted as watched */
        if (g->watched && !g->reached && !early)
            not_delivered(f, g, &out[n++]);
        else if (g->watched && early)
            unwatch(f, g);
        f->stats.sightings_evicted = f->window.evicted;
        ib_sightings_release(&f->window, g);
    }
    return n;
}

uint64_t ib_fabric_seen_at(struct ib_fabric *f, const struct ib_connection_record *rec)
{
    const struct ib_frame_ref *refs[] = { &rec->req,  &rec->mra,  &rec->rep, &rec->rtu,
                                          &rec->dreq, &rec->drep, &rec->rej };
    uint64_t mask = 0;
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
        mask |= seen_at_take(&f->seen, *refs[i]);
    return mask;
}

const struct ib_fabric_stats *ib_fabric_stats(const struct ib_fabric *f)
{
    return &f->stats;
}

size_t ib_fabric_delivery_count(const struct ib_fabric *f)
{
    return f->dir_count;
}

const struct ib_delivery *ib_fabric_delivery(const struct ib_fabric *f, size_t i)
{
    return i < f->dir_count ? &f->dirs[i] : NULL;
}

size_t ib_fabric_gap_count(const struct ib_fabric *f)
{
    return f->cs->steps.gap_count;
}

bool ib_fabric_clock_step(const struct ib_fabric *f, size_t i, struct ib_clock_step *out)
{
    return cst_step(&f->cs->steps, f->steps, i, out);
}
