/* merge_finding.c - a report's finding read back into the engine's typed
 * finding (struct ib_finding), so that every view words it and renders it
 * as the analysis would have.  The members and each kind's details are
 * read by their tables (report_schema.c's rs_finding and
 * rs_finding_details, through merge_schema.c); here are the details' odd
 * values (a tuple, a redirect target, problems, a chain renumbered in the
 * merge) and the checks across members: kind, severity and rule against
 * the core's tables, the related frame's two keys, a comm ID given once. */
#include <string.h>

#include "cm.h"
#include "merge_fabric.h"
#include "merge_schema.h"

static bool read_tuple(struct rd *r, struct ib_tuple *t)
{
    static const char *const keys[] = { "port_space", "src_ip",   "src_port",
                                        "dst_ip",     "dst_port", NULL };
    size_t base = r->path_len;
    uint64_t seen = 0;
    uint8_t dst_version = 0;
    enum jp_type type;
    memset(t, 0, sizeof *t);
    if (!jp_value(r->jp, &type))
        return false;
    if (type == JP_NULL)
        return true;
    if (type != JP_OBJECT)
        return rd_not(r, type, "a tuple or null");
    for (int k; (k = rd_member(r, base, keys, &seen)) != RD_END;) {
        bool ok = k == 0   ? rd_port_space(r, &t->port_space)
                  : k == 1 ? rd_ip(r, &t->ip_version, t->src_ip)
                  : k == 2 ? rd_u16(r, "a port", &t->src_port)
                  : k == 3 ? rd_ip(r, &dst_version, t->dst_ip)
                  : k == 4 ? rd_u16(r, "a port", &t->dst_port)
                           : k == RD_OTHER && rd_skip(r);
        if (!ok)
            return false;
    }
    if (!rd_required(r, base, keys, seen, 0x1F))
        return false;
    return dst_version == t->ip_version || rd_fail(r, "its addresses are not of one IP version");
}

/* "problems": the names of what makes a redirect target unusable. */
static bool read_problems(struct rd *r, uint8_t *bits)
{
    size_t base = r->path_len;
    bool more;
    if (!rd_open(r, JP_ARRAY, "a list of problems"))
        return false;
    for (size_t i = 0; rd_item(r, base, i, &more) && more; i++) {
        const char *s;
        if (!rd_string(r, false, &s))
            return false;
        unsigned p = 0;
        while (p < RS_TARGET_PROBLEMS && strcmp(s, rs_target_problem_names[p]) != 0)
            p++;
        if (p == RS_TARGET_PROBLEMS)
            return rd_not(r, JP_STRING, "a problem (no_address, qp0, no_pkey)");
        *bits |= (uint8_t)(1u << p);
    }
    rd_path_back(r, base);
    return !r->jp->error[0];
}

/* A chain number, renumbered in the merge; null: past the chain cap. */
static bool read_chain(struct merge_report *mr, struct ib_finding_data *d)
{
    struct rd *r = &mr->rd;
    uint64_t c;
    bool null;
    if (!rd_uint_or_null(r, UINT32_MAX - 1, "a chain number or null", &c, &null))
        return false;
    if (null)
        return true;
    if (c + 1 > mr->chain_refs) {
        mr->chain_refs = c + 1;
        snprintf(mr->chain_ref_at, sizeof mr->chain_ref_at, "%s", r->path);
    }
    d->has_chain = true;
    d->chain = (uint32_t)(c + mr->chain_base);
    return true;
}

/* The details' codecs (report_schema.h), for merge_schema.c's reader. */
static bool read_codec(struct rd *r, const struct rs_member *mb, void *obj,
                       struct ms_scratch *scratch)
{
    struct ib_finding_data *d = obj;
    void *p = (char *)obj + mb->at;
    switch (mb->codec) {
    case RS_CODEC_TUPLE: return read_tuple(r, p);
    case RS_CODEC_TARGET: return rd_hop(r, p, false);
    case RS_CODEC_PROBLEMS: return read_problems(r, p);
    case RS_CODEC_CHAIN: return read_chain(scratch->codec_ctx, d);
    default: return rd_skip(r);
    }
}

/* Kind, severity and rule as the engine makes them: addressing findings
 * have an addressing rule, malformed ones an error that is not, and each
 * finding its kind's severity or its rule's. */
static bool check_kind(struct rd *r, size_t base, struct ib_finding *f, bool has_rule)
{
    bool ruled = f->kind == IB_FIND_ADDRESSING || f->kind == IB_FIND_MALFORMED;
    const struct ib_diag_info *info = ib_diag_info((enum ib_diag_id)f->rule);
    rd_path_back(r, base);
    rd_path_key(r, "rule");
    if (ruled && !has_rule)
        return rd_fail(r, "missing");
    if (!ruled && has_rule)
        return rd_fail(r, "given for a finding of kind %s", ib_finding_kind_name(f->kind));
    if (ruled && (info->addressing != (f->kind == IB_FIND_ADDRESSING) ||
                  (f->kind == IB_FIND_MALFORMED && info->severity != IB_SEV_ERROR)))
        return rd_fail(r, "%s is not a rule of %s findings", info->name,
                       ib_finding_kind_name(f->kind));
    enum ib_severity want = ruled ? info->severity : ib_finding_kind_severity(f->kind);
    rd_path_back(r, base);
    rd_path_key(r, "severity");
    if (f->severity != want)
        return rd_fail(r, "%s is not the severity of this finding (%s)",
                       ib_severity_name(f->severity), ib_severity_name(want));
    rd_path_back(r, base);
    return true;
}

/* What the details' tables cannot say: a connection named by one ID, a
 * retransmission of an older report (its REQ), a VCRC's 16 bits. */
static bool check_details(struct rd *r, size_t base, struct ib_finding *f, uint64_t seen)
{
    const struct rs_object *t = rs_finding_details[f->kind];
    struct ib_finding_data *d = &f->data;
    rd_path_key(r, "details");
    if (ms_given(t, seen, "local_comm_id") && ms_given(t, seen, "request_id"))
        return rd_fail(r, "a %s has one of local_comm_id and request_id",
                       ib_finding_kind_name(f->kind));
    if (f->kind == IB_FIND_RETRANSMISSION && !ms_given(t, seen, "repeated"))
        d->cm_attr = d->sidr ? IB_CM_SIDR_REQ : IB_CM_REQ;
    if (f->kind == IB_FIND_VCRC_MISMATCH && (d->crc_carried > 0xFFFF || d->crc_computed > 0xFFFF))
        return rd_fail(r, "a VCRC has 16 bits");
    rd_path_back(r, base);
    return true;
}

bool merge_read_finding(struct merge_report *mr, struct ib_finding *f)
{
    struct rd *r = &mr->rd;
    size_t base = r->path_len;
    uint64_t seen = 0;
    struct ms_scratch scratch = { .codec = read_codec, .codec_ctx = mr };
    memset(f, 0, sizeof *f);
    if (!rd_open(r, JP_OBJECT, "a finding") || !ms_read_members(r, &rs_finding, f, &scratch, &seen))
        return false;
    bool capture = ms_given(&rs_finding, seen, "related_capture");
    if (capture != ms_given(&rs_finding, seen, "related_frame")) {
        rd_path_key(r, capture ? "related_frame" : "related_capture");
        return rd_fail(r, "missing (related_capture and related_frame go together)");
    }
    if (!check_kind(r, base, f, ms_given(&rs_finding, seen, "rule")) ||
        !check_details(r, base, f, scratch.variant_seen))
        return false;
    /* A transport finding's queue pair, numbered as the merge numbers qps[]. */
    const struct rs_object *d = rs_finding_details[f->kind];
    if (d->count && d->members[0].object == &rs_qp_ref)
        return merge_qp_number(mr, &f->data.qp.index);
    return true;
}

bool merge_qp_number(struct merge_report *mr, uint32_t *index)
{
    if (*index >= MERGE_REPORT_QPS)
        return rd_fail(&mr->rd, "past the %u queue pairs an analysis keeps", MERGE_REPORT_QPS);
    if (*index + 1 > mr->qp_end)
        mr->qp_end = *index + 1;
    *index += mr->qp_base;
    return true;
}
