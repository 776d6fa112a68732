/* engine_pfc.c - the pauses PFC (IEEE 802.1Qbb) and PAUSE (IEEE 802.3 Annex
 * 31B) frames put on a link, per priority (docs/wire-audit.md).
 *
 * A PFC frame's enable vector names the priorities its times apply to; a
 * time is in quanta of 512 bit times (802.1Qbb clause 36.1.3.1) and
 * restarts the priority's pause (a renewal), zero releases it (XON).  The
 * frames are those of the link the capture is on, so the pauses are kept
 * per capture.  pfc_storm when one pause of a priority, renewed again and
 * again, has lasted --pfc-storm at a frame that renews it.  A PAUSE frame
 * stops the whole link: kept as IB_PFC_ALL, counted, no finding (the
 * wire audit's contract names PFC storms only).
 */
#include <stdlib.h>
#include <string.h>

#include "engine_pfc.h"
#include "engine_state.h"

bool eng_pfc_init(struct ib_engine *e)
{
    e->pfc.storm_ns = (int64_t)e->cfg.pfc_storm_ms * 1000000;
    return true;
}

void eng_pfc_destroy(struct ib_engine *e)
{
    free(e->pfc.links);
    free(e->pfc.listed);
}

/* A time of q quanta in ns, rounded down: the frames' times are whole ns,
 * so "before it runs out" compares the same as with the exact time. */
static int64_t quanta_ns(uint16_t q)
{
    return (int64_t)q * 512 / IB_PFC_LINK_GBPS;
}

/* The capture's link, grown to hold it; NULL past IB_PFC_CAPTURES_MAX. */
static struct eng_pfc_link *link_of(struct ib_engine *e, uint32_t capture)
{
    struct eng_pfc *pf = &e->pfc;
    if (capture >= IB_PFC_CAPTURES_MAX) {
        e->stats.pfc_links_dropped++;
        return NULL;
    }
    if (capture >= pf->link_count) {
        uint32_t n = capture + 1;
        struct eng_pfc_link *l = realloc(pf->links, n * sizeof *l);
        if (!l)
            return eng_oom(e);
        memset(l + pf->link_count, 0, (n - pf->link_count) * sizeof *l);
        pf->links = l;
        pf->link_count = n;
    }
    return &pf->links[capture];
}

static void event(struct ib_engine *e, enum ib_congestion_event what, int64_t t, unsigned cls,
                  int64_t start)
{
    if (e->congestion_sink)
        e->congestion_sink(e->congestion_ctx, &(struct ib_congestion_change){
                                                  what, t, e->at.capture, (uint8_t)cls, start });
}

static void pause_end(struct ib_engine *e, struct eng_pause *ps, unsigned cls, int64_t end)
{
    int64_t d = end - ps->start.time_ns;
    if (d < 0)
        d = 0;
    ps->paused_ns += d;
    if (d > ps->longest_ns || !ps->longest_at.where) {
        ps->longest_ns = d;
        ps->longest_at = ps->start;
    }
    ps->paused = false;
    event(e, IB_EVENT_PAUSE_END, end, cls, ps->start.time_ns);
}

/* Lists a class at its first frame, for the report's order. */
static void list(struct ib_engine *e, struct eng_pause *ps, unsigned cls)
{
    struct eng_pfc *pf = &e->pfc;
    if (ps->listed)
        return;
    if (pf->listed_count == pf->listed_cap) {
        size_t cap = pf->listed_cap ? pf->listed_cap * 2 : 16;
        uint32_t *l = realloc(pf->listed, cap * sizeof *l);
        if (!l) {
            eng_oom(e);
            return;
        }
        pf->listed = l;
        pf->listed_cap = cap;
    }
    ps->listed = true;
    pf->listed[pf->listed_count++] = e->at.capture * IB_PFC_CLASSES + cls;
}

static void storm(struct ib_engine *e, struct eng_pause *ps, unsigned cls, int64_t lasted)
{
    ps->storm_said = true;
    ps->storms++;
    struct ib_finding *f = eng_emit(e, IB_FIND_PFC_STORM, ref_unpack(ps->start));
    if (!f)
        return;
    f->data.priority = (uint8_t)cls;
    f->data.paused_us = (uint64_t)lasted / 1000;
    f->data.roce = (e->pfc.roce_priorities >> cls & 1) != 0;
}

/* One priority's time from a frame at now. */
static void pause_time(struct ib_engine *e, struct eng_pause *ps, unsigned cls, uint16_t quanta)
{
    int64_t now = e->at.time_ns;
    list(e, ps, cls);
    ps->frames++;
    if (ps->paused && now > ps->until)
        pause_end(e, ps, cls, ps->until); /* it ran out before this frame */
    if (quanta == 0) {
        if (ps->paused) {
            ps->xons++;
            pause_end(e, ps, cls, now);
        }
        return;
    }
    ps->until = now + quanta_ns(quanta);
    if (!ps->paused) {
        ps->paused = true;
        ps->storm_said = false;
        ps->start = ref_pack(e->at);
        ps->pauses++;
        event(e, IB_EVENT_PAUSE_START, now, cls, now);
        return;
    }
    int64_t lasted = now - ps->start.time_ns;
    if (cls != IB_PFC_ALL && !ps->storm_said && lasted >= e->pfc.storm_ns)
        storm(e, ps, cls, lasted);
}

void eng_pfc_frame(struct ib_engine *e, const struct ib_mac_control *m)
{
    struct eng_pfc_link *l = link_of(e, e->at.capture);
    if (!l)
        return;
    if (m->opcode == IB_MACC_OPCODE_PAUSE) {
        pause_time(e, &l->cls[IB_PFC_ALL], IB_PFC_ALL, m->pause_quanta);
        return;
    }
    for (unsigned p = 0; p < IB_MACC_PRIORITIES; p++)
        if (m->class_enable >> p & 1)
            pause_time(e, &l->cls[p], p, m->quanta[p]);
}

void eng_pfc_drain(struct ib_engine *e)
{
    struct eng_pfc *pf = &e->pfc;
    int64_t end = e->at.time_ns;
    for (uint32_t c = 0; c < pf->link_count; c++)
        for (unsigned cls = 0; cls < IB_PFC_CLASSES; cls++) {
            struct eng_pause *ps = &pf->links[c].cls[cls];
            if (!ps->paused)
                continue;
            ps->paused_at_end = ps->until > end;
            pause_end(e, ps, cls, ps->paused_at_end ? end : ps->until);
        }
}

/* ---- the statistics ---- */

size_t ib_engine_pfc_count(const struct ib_engine *e)
{
    return e->pfc.listed_count;
}

void ib_engine_pfc(const struct ib_engine *e, size_t i, struct ib_pfc_stats *out)
{
    const struct eng_pfc *pf = &e->pfc;
    uint32_t at = pf->listed[i];
    unsigned cls = at % IB_PFC_CLASSES;
    const struct eng_pause *ps = &pf->links[at / IB_PFC_CLASSES].cls[cls];
    memset(out, 0, sizeof *out);
    out->capture = at / IB_PFC_CLASSES;
    out->pfc = cls < IB_MACC_PRIORITIES;
    out->priority = (uint8_t)cls;
    out->roce = cls < IB_MACC_PRIORITIES && (pf->roce_priorities >> cls & 1);
    out->frames = ps->frames;
    out->pauses = ps->pauses;
    out->xons = ps->xons;
    out->storms = ps->storms;
    out->paused_ns = ps->paused_ns;
    out->longest_ns = ps->longest_ns;
    out->longest_at = ref_unpack(ps->longest_at);
    out->paused_at_end = ps->paused_at_end;
}
