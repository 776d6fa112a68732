/* engine_emit.c - what every part of the engine does the same way: add a
 * finding to the frame being fed, count an allocation that failed.  It calls
 * no part, so that the calls among the engine's files form no circle:
 * engine.c calls the parts, engine_cm.c the port pool and the MAD tracker,
 * the port pool the hosts, and each of them this file. */
#include "engine_state.h"

static struct ib_finding *add_finding(struct ib_engine *e, enum ib_finding_kind kind)
{
    if (!e->cfg.enabled[kind])
        return NULL;
    e->stats.findings[kind]++;
    struct ib_frame_analysis *out = e->out;
    if (out->count >= IB_FRAME_FINDINGS_MAX) {
        out->dropped++;
        return NULL;
    }
    struct ib_finding *f = &out->findings[out->count++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->severity = ib_finding_kinds[kind].severity;
    f->at = e->at;
    return f;
}

void *eng_oom(struct ib_engine *e)
{
    e->stats.allocation_failures++;
    return NULL;
}

struct ib_finding *eng_emit(struct ib_engine *e, enum ib_finding_kind kind,
                            struct ib_frame_ref related)
{
    struct ib_finding *f = add_finding(e, kind);
    if (f)
        f->related = related;
    return f;
}
