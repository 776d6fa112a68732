/* qp_trace.c - the frames of the queue pairs with problems (qp_trace.h). */
#include "qp_trace.h"

#include <stdlib.h>
#include <string.h>

#include "ext_headers.h"

/* slot_of's values besides a slot's number + 1. */
#define NOT_TRACED 0xFF /* had a transport finding when every slot was taken */
_Static_assert(REPORT_TRACED_QPS_MAX < NOT_TRACED, "a slot's number + 1 fits a byte");
/* Queue pair numbers the map grows to: the engine's are below its max_qps. */
#define QP_NUMBER_LIMIT (1u << 24)

/* A frame of the ring, as the packet said it: what it is to its chart is
 * worked out only for the frames of a trace (point_of). */
struct ring_entry {
    int64_t time_ns;
    uint64_t frame;
    uint32_t capture;
    uint32_t qp;
    uint32_t psn;
    uint8_t opcode;
    uint8_t aeth_kind; /* enum ib_aeth_kind, IB_AETH_RESERVED without an AETH */
};

struct trace_slot {
    uint32_t qp;
    uint32_t count;
    uint64_t dropped;
    struct report_trace_point *points; /* REPORT_TRACE_POINTS_MAX */
};

struct qp_trace {
    struct ring_entry ring[QP_TRACE_RING];
    uint64_t written; /* frames into the ring, ever */
    uint8_t *slot_of; /* by queue pair number: 0, a slot + 1, or NOT_TRACED */
    size_t slot_len;
    unsigned slots_used;
    struct trace_slot slots[REPORT_TRACED_QPS_MAX];
    uint64_t not_traced;
};

struct qp_trace *qp_trace_new(void)
{
    return calloc(1, sizeof(struct qp_trace));
}

void qp_trace_free(struct qp_trace *t)
{
    if (!t)
        return;
    for (unsigned i = 0; i < t->slots_used; i++)
        free(t->slots[i].points);
    free(t->slot_of);
    free(t);
}

/* What the frame is to its queue pair's chart (a resend is told by its
 * finding, later). */
static uint8_t point_kind(const struct ring_entry *e)
{
    struct ib_opcode_info info = ib_opcode_info(e->opcode);
    if (!ib_op_is_response(info.op))
        return REPORT_TRACE_REQUEST;
    if (e->aeth_kind == IB_AETH_NAK)
        return REPORT_TRACE_NAK;
    if (e->aeth_kind == IB_AETH_RNR_NAK)
        return REPORT_TRACE_RNR_NAK;
    return info.op == IB_OP_ACK ? REPORT_TRACE_ACK : REPORT_TRACE_RESPONSE;
}

static void append(struct trace_slot *s, const struct ring_entry *e)
{
    if (s->count == REPORT_TRACE_POINTS_MAX) {
        s->dropped++;
        return;
    }
    s->points[s->count++] = (struct report_trace_point){ .time_ns = e->time_ns,
                                                         .frame = e->frame,
                                                         .capture = e->capture,
                                                         .psn = e->psn,
                                                         .kind = point_kind(e) };
}

/* Every frame linked to a queue pair comes here: one ring write, and one
 * look at the map unless nothing is traced yet. */
void qp_trace_frame(struct qp_trace *t, struct ib_frame_ref at, const struct ib_packet *pkt,
                    uint32_t qp)
{
    struct ring_entry *e = &t->ring[t->written++ % QP_TRACE_RING];
    e->time_ns = at.time_ns;
    e->frame = at.frame;
    e->capture = at.capture;
    e->qp = qp;
    e->psn = pkt->bth.psn;
    e->opcode = pkt->bth.opcode;
    e->aeth_kind = (pkt->present & IB_HAS_AETH) ? pkt->ext.aeth.kind : IB_AETH_RESERVED;
    uint8_t s;
    if (t->slots_used && qp < t->slot_len && (s = t->slot_of[qp]) != 0 && s != NOT_TRACED)
        append(&t->slots[s - 1], e);
}

/* Room in slot_of for queue pair qp. */
static bool map_room(struct qp_trace *t, uint32_t qp)
{
    if (qp < t->slot_len)
        return true;
    if (qp >= QP_NUMBER_LIMIT)
        return false;
    size_t len = t->slot_len ? t->slot_len : 64;
    while (len <= qp)
        len *= 2;
    uint8_t *map = realloc(t->slot_of, len);
    if (!map)
        return false;
    memset(map + t->slot_len, 0, len - t->slot_len);
    t->slot_of = map;
    t->slot_len = len;
    return true;
}

/* Queue pair qp's trace, started with what the ring holds of it; NULL when
 * it is not traced (every slot taken, or no memory). */
static struct trace_slot *trace_of(struct qp_trace *t, uint32_t qp)
{
    if (!map_room(t, qp)) {
        t->not_traced++;
        return NULL;
    }
    uint8_t s = t->slot_of[qp];
    if (s == NOT_TRACED)
        return NULL;
    if (s)
        return &t->slots[s - 1];
    struct trace_slot *slot = &t->slots[t->slots_used];
    if (t->slots_used == REPORT_TRACED_QPS_MAX ||
        !(slot->points = malloc(REPORT_TRACE_POINTS_MAX * sizeof *slot->points))) {
        t->slot_of[qp] = NOT_TRACED;
        t->not_traced++;
        return NULL;
    }
    slot->qp = qp;
    t->slot_of[qp] = (uint8_t)++t->slots_used;
    uint64_t first = t->written > QP_TRACE_RING ? t->written - QP_TRACE_RING : 0;
    for (uint64_t i = first; i < t->written; i++)
        if (t->ring[i % QP_TRACE_RING].qp == qp)
            append(slot, &t->ring[i % QP_TRACE_RING]);
    return slot;
}

static bool is_transport(enum ib_finding_kind k)
{
    return k >= IB_FIND_PSN_GAP && k <= IB_FIND_PSN_START_MISMATCH;
}

void qp_trace_finding(struct qp_trace *t, const struct ib_finding *f)
{
    if (!is_transport(f->kind))
        return;
    struct trace_slot *s = trace_of(t, f->data.qp.index);
    if (!s)
        return;
    /* Its frame is most often the last point: look from the end. */
    for (uint32_t i = s->count; i-- > 0;) {
        struct report_trace_point *p = &s->points[i];
        if (p->frame != f->at.frame || p->capture != f->at.capture)
            continue;
        if (f->kind == IB_FIND_TRANSPORT_RETRANSMISSION && p->kind == REPORT_TRACE_REQUEST)
            p->kind = REPORT_TRACE_RESEND;
        /* A frame with several findings is labelled with its most severe. */
        if (!p->has_finding ||
            f->severity > ib_finding_kind_severity((enum ib_finding_kind)p->finding)) {
            p->has_finding = true;
            p->finding = (uint8_t)f->kind;
        }
        return;
    }
}

void qp_trace_report(const struct qp_trace *t, struct report_model *m)
{
    m->qps_not_traced = t->not_traced;
    m->trace_points_dropped = 0;
    for (unsigned s = 0; s < t->slots_used; s++)
        m->trace_points_dropped += t->slots[s].dropped;
    m->qp_traces = t;
}

void qp_trace_fill(const struct qp_trace *t, struct report_qp *q)
{
    uint32_t qp = q->stats.qp.index;
    uint8_t s = qp < t->slot_len ? t->slot_of[qp] : 0;
    if (s == 0 || s == NOT_TRACED)
        return;
    const struct trace_slot *slot = &t->slots[s - 1];
    q->traced = true;
    q->trace = slot->points;
    q->trace_count = slot->count;
    q->trace_dropped = slot->dropped;
}
