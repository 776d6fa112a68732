/* report_jsonl.c - the JSON Lines report: one JSON object per line, written
 * as things happen (schema: docs/report-schema.md).
 *
 * A finding is written and flushed the moment the engine determines it, so
 * `tcpdump -U -w - | ibscope --format jsonl -` can alert while the capture
 * runs; a connection record (--connections) the moment the connection
 * ends.  At the end come one record per source, per redirect chain and per
 * capture's CRCs, and a summary.  Every record has "type" first, and
 * otherwise the keys its object has in the JSON report; nothing is held
 * back, so memory stays flat however long the stream.
 */
#include <errno.h>
#include <stdlib.h>

#include "json_writer.h"
#include "report_json_values.h"
#include "report_model.h"

struct jsonl_state {
    FILE *out;
    struct json_writer w; /* one compact document per line */
    bool failed;          /* a record came out wrong (the writer's misuse flag) */
};

/* Starts a record: {"type": type, ... */
static struct json_writer *record(struct jsonl_state *st, const char *type)
{
    json_writer_init(&st->w, st->out, false);
    jw_begin_object(&st->w);
    jw_key(&st->w, "type");
    jw_string(&st->w, type);
    return &st->w;
}

/* Ends it with its line, out at once. */
static void end_record(struct jsonl_state *st)
{
    jw_end_object(&st->w);
    st->failed |= st->w.error;
    fputc('\n', st->out);
    fflush(st->out);
}

static void *jsonl_begin(const struct report_model *m, FILE *out)
{
    struct jsonl_state *st = calloc(1, sizeof *st);
    (void)m;
    if (st)
        st->out = out;
    return st;
}

static void jsonl_finding(void *p, const struct report_model *m, const struct ib_finding *f)
{
    struct jsonl_state *st = p;
    (void)m;
    jv_finding_members(record(st, "finding"), f);
    end_record(st);
}

static void jsonl_connection(void *p, const struct report_model *m,
                             const struct ib_connection_record *rec)
{
    struct jsonl_state *st = p;
    (void)m;
    jv_connection_members(record(st, "connection"), rec);
    end_record(st);
}

static void crc_records(struct jsonl_state *st, const struct report_model *m)
{
    if (!m->render.crc)
        return;
    for (size_t i = 0; i < m->capture_count; i++) {
        jv_crc_capture_members(record(st, "crc"), m, i);
        end_record(st);
    }
}

/* The run in one record: the JSON report's summary, without what the
 * records before it carried. */
static void summary_record(struct jsonl_state *st, const struct report_model *m)
{
    jv_summary_members(record(st, "summary"), m, true, NULL);
    end_record(st);
}

static int jsonl_end(void *p, const struct report_model *m)
{
    struct jsonl_state *st = p;
    for (size_t i = 0; i < m->source_count; i++) {
        jv_source_members(record(st, "source"), m->sources[i]);
        end_record(st);
    }
    for (size_t i = 0; i < m->chain_count; i++) {
        struct json_writer *w = record(st, "chain");
        jv_chain_members(w, m->chains[i], i);
        end_record(st);
    }
    struct report_qp buf;
    for (size_t i = 0; i < m->qp_count; i++) {
        jv_qp_members(record(st, "qp"), report_qp(m, i, &buf));
        end_record(st);
    }
    struct report_wire wbuf;
    for (size_t i = 0; i < m->wire_count; i++) {
        jv_wire_members(record(st, "setting"), report_wire(m, i, &wbuf));
        end_record(st);
    }
    crc_records(st, m);
    summary_record(st, m);
    int error = st->failed ? EIO : 0;
    free(st);
    return error;
}

const struct report_renderer report_jsonl = {
    .begin = jsonl_begin,
    .finding = jsonl_finding,
    .connection = jsonl_connection,
    .end = jsonl_end,
};
