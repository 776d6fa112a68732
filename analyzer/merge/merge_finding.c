/* merge_finding.c - a report's finding read back into the engine's typed
 * finding (struct ib_finding), so that every view words it and renders it
 * as the analysis would have: kind, severity and rule checked against the
 * core's tables, and the details each kind has (docs/report-schema.md)
 * required. */
#include <float.h>
#include <string.h>

#include "cm.h"
#include "merge_fabric.h"
#include "names.h"

enum detail {
    D_TUPLE,
    D_LOCAL_COMM_ID,
    D_REQUEST_ID,
    D_OPEN_LOCAL_COMM_ID,
    D_SOURCE,
    D_PORT_SPACE,
    D_PORTS_IN_USE,
    D_POOL_SIZE,
    D_MGMT_CLASS,
    D_CHAIN,
    D_TARGET,
    D_CM_MESSAGE,
    D_REJECT_REASON,
    D_SL,
    D_PROBLEMS,
    D_CHAIN_LENGTH,
    D_HOP,
    D_CARRIED_QKEY,
    D_CARRIED_PKEY,
    D_SENT_TO,
    D_SENT_TO_QP,
    D_CARRIED,
    D_COMPUTED,
    D_MODEL,
    D_ETA_S,
    D_RATE_PER_S,
    D_METHOD,
    D_ATTR_ID,
    D_FROM,
    D_TO,
    D_TO_CAPTURE,
    D_REPEATED,
    D_UNANSWERED,
    D_SENT,
    D_TRIED_NS,
    D_IGNORED,
    D_HOST_ADDRESSES,
    D_COUNT
};

static const char *const detail_keys[] = { "tuple",
                                           "local_comm_id",
                                           "request_id",
                                           "open_local_comm_id",
                                           "source",
                                           "port_space",
                                           "ports_in_use",
                                           "pool_size",
                                           "mgmt_class",
                                           "chain",
                                           "target",
                                           "cm_message",
                                           "reject_reason",
                                           "sl",
                                           "problems",
                                           "chain_length",
                                           "hop",
                                           "carried_qkey",
                                           "carried_pkey",
                                           "sent_to",
                                           "sent_to_qp",
                                           "carried",
                                           "computed",
                                           "model",
                                           "eta_s",
                                           "rate_per_s",
                                           "method",
                                           "attr_id",
                                           "from",
                                           "to",
                                           "to_capture",
                                           "repeated",
                                           "unanswered",
                                           "sent",
                                           "tried_ns",
                                           "ignored",
                                           "host_addresses",
                                           NULL };
/* The keys are read by position: one name for each D_ value, in order. */
_Static_assert(sizeof detail_keys / sizeof detail_keys[0] == D_COUNT + 1,
               "detail_keys and the D_ values differ");

#define BIT(d) (UINT64_C(1) << (d))

/* What details said, before the kind decides what it means. */
struct details {
    uint64_t seen;
    uint32_t comm_id;
    uint8_t problems; /* IB_TARGET_* from "problems" */
    uint8_t keys;     /* IB_KEY_* : the carried keys that are not null */
    unsigned hops;
};

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
    static const char *const names[] = { "no_address", "qp0", "no_pkey" };
    size_t base = r->path_len;
    bool more;
    if (!rd_open(r, JP_ARRAY, "a list of problems"))
        return false;
    for (size_t i = 0; rd_item(r, base, i, &more) && more; i++) {
        const char *s;
        if (!rd_string(r, false, &s))
            return false;
        unsigned p = 0;
        while (p < 3 && strcmp(s, names[p]) != 0)
            p++;
        if (p == 3)
            return rd_not(r, JP_STRING, "a problem (no_address, qp0, no_pkey)");
        *bits |= (uint8_t)(1u << p);
    }
    rd_path_back(r, base);
    return !r->jp->error[0];
}

static bool read_cm_message(struct rd *r, uint16_t *attr)
{
    const char *s;
    if (!rd_string(r, false, &s))
        return false;
    *attr = strcmp(s, "REJ") == 0 ? IB_CM_REJ : strcmp(s, "SIDR_REP") == 0 ? IB_CM_SIDR_REP : 0;
    return *attr || rd_not(r, JP_STRING, "a CM message (REJ, SIDR_REP)");
}

/* Any CM message by name: what a retransmission repeated, what went
 * unanswered. */
static bool read_any_cm_message(struct rd *r, uint16_t *attr)
{
    const char *s;
    if (!rd_string(r, false, &s))
        return false;
    for (unsigned m = 0; m < IB_CM_MSG_COUNT; m++) {
        const char *n = ib_name_lookup(ib_cm_attr_names, IB_CM_MSG_FIRST + m);
        if (n && strcmp(n, s) == 0)
            return *attr = (uint16_t)(IB_CM_MSG_FIRST + m), true;
    }
    return rd_not(r, JP_STRING, "a CM message (REQ, MRA, REJ, REP, ...)");
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

/* A carried key: its value, or null when it matched (no bit). */
static bool read_carried(struct rd *r, uint64_t max, uint32_t *v, uint8_t *bits, uint8_t bit)
{
    uint64_t x;
    bool null;
    if (!rd_uint_or_null(r, max, max == UINT16_MAX ? "a P_Key or null" : "a Q_Key or null", &x,
                         &null))
        return false;
    if (!null) {
        *v = (uint32_t)x;
        *bits |= bit;
    }
    return true;
}

/* pool_forecast's model: one of ib_pool_model_name's words. */
static bool read_model(struct rd *r, uint8_t *model)
{
    const char *s;
    if (!rd_string(r, false, &s))
        return false;
    for (int m = 0; m < IB_MODEL_COUNT; m++)
        if (strcmp(s, ib_pool_model_name((enum ib_pool_model)m)) == 0)
            return *model = (uint8_t)m, true;
    return rd_not(r, JP_STRING, "a model (one_port, per_destination)");
}

/* A narrow member through a wider reader. */
static bool read_u8(struct rd *r, uint8_t max, const char *noun, uint8_t *v)
{
    uint32_t x;
    if (!rd_u32(r, max, noun, &x))
        return false;
    *v = (uint8_t)x;
    return true;
}

static bool read_detail(struct merge_report *mr, int k, struct ib_finding_data *d,
                        struct details *dd)
{
    struct rd *r = &mr->rd;
    uint32_t pkey = 0;
    switch (k) {
    case D_TUPLE: return read_tuple(r, &d->tuple);
    case D_LOCAL_COMM_ID:
    case D_REQUEST_ID:
    case D_OPEN_LOCAL_COMM_ID: return rd_u32(r, UINT32_MAX, "a comm ID", &dd->comm_id);
    case D_SOURCE: return rd_ip(r, &d->tuple.ip_version, d->tuple.src_ip);
    case D_PORT_SPACE: return rd_port_space(r, &d->tuple.port_space);
    case D_PORTS_IN_USE: return rd_u32(r, UINT32_MAX, "a count of ports", &d->ports_in_use);
    case D_POOL_SIZE: return rd_u32(r, 65535, "a pool size", &d->pool_size);
    case D_MGMT_CLASS: return read_u8(r, UINT8_MAX, "a management class", &d->mgmt_class);
    case D_CHAIN: return read_chain(mr, d);
    case D_TARGET: return rd_hop(r, &d->target, false);
    case D_CM_MESSAGE: return read_cm_message(r, &d->cm_attr);
    case D_REJECT_REASON: return rd_u16(r, "a reject reason", &d->reject_reason);
    case D_SL: return read_u8(r, 15, "a service level", &d->sl);
    case D_PROBLEMS: return read_problems(r, &dd->problems);
    case D_CHAIN_LENGTH:
    case D_HOP: return rd_u32(r, UINT32_MAX, "a number of redirects", &dd->hops);
    case D_CARRIED_QKEY: return read_carried(r, UINT32_MAX, &d->qkey, &dd->keys, IB_KEY_QKEY);
    case D_CARRIED_PKEY:
        if (!read_carried(r, UINT16_MAX, &pkey, &dd->keys, IB_KEY_PKEY))
            return false;
        d->pkey = (uint16_t)pkey;
        return true;
    case D_SENT_TO: return rd_endpoint(r, &d->sent_to);
    case D_SENT_TO_QP: return rd_u32(r, RD_QP_MAX, "a QP number", &d->sent_to_qp);
    case D_CARRIED: return rd_u32(r, UINT32_MAX, "a CRC", &d->crc_carried);
    case D_COMPUTED: return rd_u32(r, UINT32_MAX, "a CRC", &d->crc_computed);
    case D_MODEL: return read_model(r, &d->model);
    case D_ETA_S: return rd_real(r, 0, DBL_MAX, "a number of seconds", &d->eta_s);
    /* above 0 when it fired, but written to 6 decimals */
    case D_RATE_PER_S: return rd_real(r, 0, DBL_MAX, "a rate (ports a second)", &d->rate_per_s);
    case D_METHOD: return read_u8(r, UINT8_MAX, "a MAD method", &d->method);
    case D_ATTR_ID: return rd_u16(r, "an attribute ID", &d->attr_id);
    case D_FROM: return rd_endpoint(r, &d->from);
    case D_TO: return rd_endpoint(r, &d->to);
    case D_TO_CAPTURE: return rd_capture(r, &d->to_capture); /* numbered across the merge */
    case D_REPEATED:
    case D_UNANSWERED:
    case D_IGNORED: return read_any_cm_message(r, &d->cm_attr);
    case D_HOST_ADDRESSES: return rd_u32(r, UINT32_MAX, "a count of addresses", &d->host_addresses);
    case D_SENT: return rd_u32(r, UINT32_MAX, "a number of copies", &d->sent);
    case D_TRIED_NS: {
        int64_t t;
        bool null;
        if (!rd_int(r, "a time in ns", &t, &null))
            return false;
        d->tried_ns = null ? 0 : t;
        return !null || rd_not(r, JP_NULL, "a time in ns");
    }
    default: return k == RD_OTHER && rd_skip(r);
    }
}

static bool read_details(struct merge_report *mr, struct ib_finding_data *d, struct details *dd)
{
    struct rd *r = &mr->rd;
    size_t base = r->path_len;
    if (!rd_open(r, JP_OBJECT, "an object of details"))
        return false;
    for (int k; (k = rd_member(r, base, detail_keys, &dd->seen)) != RD_END;)
        if (!read_detail(mr, k, d, dd))
            return false;
    rd_path_back(r, base);
    return true;
}

/* The details a kind always has (docs/report-schema.md). */
static uint64_t details_required(enum ib_finding_kind kind)
{
    const uint64_t redirect = BIT(D_MGMT_CLASS) | BIT(D_CHAIN) | BIT(D_TARGET);
    switch (kind) {
    case IB_FIND_RETRANSMISSION:
    case IB_FIND_EXPLICIT_PORT_SHARED:
    case IB_FIND_PORT_REUSED: return BIT(D_TUPLE);
    case IB_FIND_UNREACHABLE:
        return BIT(D_TUPLE) | BIT(D_UNANSWERED) | BIT(D_SENT) | BIT(D_TRIED_NS);
    case IB_FIND_PATH_IGNORED: return BIT(D_TUPLE) | BIT(D_LOCAL_COMM_ID) | BIT(D_IGNORED);
    case IB_FIND_DUPLICATE_TUPLE: return BIT(D_TUPLE) | BIT(D_OPEN_LOCAL_COMM_ID);
    case IB_FIND_POOL_HIGH:
        return BIT(D_SOURCE) | BIT(D_PORT_SPACE) | BIT(D_PORTS_IN_USE) | BIT(D_POOL_SIZE);
    case IB_FIND_POOL_FORECAST:
        return BIT(D_SOURCE) | BIT(D_PORT_SPACE) | BIT(D_MODEL) | BIT(D_PORTS_IN_USE) |
               BIT(D_POOL_SIZE) | BIT(D_ETA_S) | BIT(D_RATE_PER_S);
    case IB_FIND_REDIRECT: return redirect | BIT(D_SL);
    case IB_FIND_REDIRECT_FOLLOWED: return redirect | BIT(D_HOP);
    case IB_FIND_REDIRECT_LOOP: return redirect | BIT(D_CHAIN_LENGTH);
    case IB_FIND_REDIRECT_GID_ONLY: return redirect;
    case IB_FIND_REDIRECT_BAD_TARGET: return redirect | BIT(D_PROBLEMS);
    case IB_FIND_REDIRECT_KEY_MISMATCH: return redirect | BIT(D_CARRIED_QKEY) | BIT(D_CARRIED_PKEY);
    case IB_FIND_REDIRECT_NOT_FOLLOWED: return redirect | BIT(D_SENT_TO) | BIT(D_SENT_TO_QP);
    case IB_FIND_ICRC_MISMATCH:
    case IB_FIND_VCRC_MISMATCH: return BIT(D_CARRIED) | BIT(D_COMPUTED);
    case IB_FIND_NOT_DELIVERED:
        return BIT(D_MGMT_CLASS) | BIT(D_METHOD) | BIT(D_ATTR_ID) | BIT(D_FROM) | BIT(D_TO) |
               BIT(D_TO_CAPTURE);
    default: return 0;
    }
}

/* The details as the kind means them; false when one it needs is missing. */
static bool apply_details(struct rd *r, size_t base, struct ib_finding *f, const struct details *dd)
{
    struct ib_finding_data *d = &f->data;
    uint64_t need = details_required(f->kind);
    if (d->cm_attr == IB_CM_REJ && f->kind != IB_FIND_RETRANSMISSION)
        need |= BIT(D_REJECT_REASON); /* a REJ's redirect */
    rd_path_key(r, "details");
    if ((f->kind == IB_FIND_RETRANSMISSION || f->kind == IB_FIND_UNREACHABLE) &&
        !(dd->seen & BIT(D_LOCAL_COMM_ID)) == !(dd->seen & BIT(D_REQUEST_ID)))
        return rd_fail(r, "a %s has one of local_comm_id and request_id",
                       ib_finding_kind_name(f->kind));
    if (!rd_required(r, r->path_len, detail_keys, dd->seen, need))
        return false;
    rd_path_back(r, base);
    d->sidr = dd->seen & BIT(D_REQUEST_ID);
    /* A retransmission of a report from before other messages were
     * followed: its REQ. */
    if (f->kind == IB_FIND_RETRANSMISSION && !(dd->seen & BIT(D_REPEATED)))
        d->cm_attr = d->sidr ? IB_CM_SIDR_REQ : IB_CM_REQ;
    d->comm_id = dd->comm_id;
    d->hops = dd->hops;
    d->problems = f->kind == IB_FIND_REDIRECT_BAD_TARGET     ? dd->problems
                  : f->kind == IB_FIND_REDIRECT_KEY_MISMATCH ? dd->keys
                                                             : 0;
    if (f->kind == IB_FIND_VCRC_MISMATCH && (d->crc_carried > 0xFFFF || d->crc_computed > 0xFFFF))
        return rd_fail(r, "a VCRC has 16 bits");
    return true;
}

static bool read_name(struct rd *r, int *out, int count, const char *(*name)(int), const char *noun)
{
    const char *s;
    if (!rd_string(r, false, &s))
        return false;
    for (int i = 0; i < count; i++)
        if (strcmp(s, name(i)) == 0)
            return *out = i, true;
    return rd_not(r, JP_STRING, noun);
}

static const char *kind_name(int k)
{
    return ib_finding_kind_name((enum ib_finding_kind)k);
}

static const char *severity_name(int s)
{
    return ib_severity_name((enum ib_severity)s);
}

static const char *rule_name(int d)
{
    return ib_diag_info((enum ib_diag_id)d)->name;
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
        return rd_fail(r, "given for a finding of kind %s", kind_name(f->kind));
    if (ruled && (info->addressing != (f->kind == IB_FIND_ADDRESSING) ||
                  (f->kind == IB_FIND_MALFORMED && info->severity != IB_SEV_ERROR)))
        return rd_fail(r, "%s is not a rule of %s findings", info->name, kind_name(f->kind));
    enum ib_severity want = ruled ? info->severity : ib_finding_kind_severity(f->kind);
    rd_path_back(r, base);
    rd_path_key(r, "severity");
    if (f->severity != want)
        return rd_fail(r, "%s is not the severity of this finding (%s)", severity_name(f->severity),
                       severity_name(want));
    rd_path_back(r, base);
    return true;
}

static const char *const finding_keys[] = {
    "capture",         "frame",         "time", "kind",    "severity", "message",
    "related_capture", "related_frame", "rule", "details", NULL
};

static bool read_finding_member(struct merge_report *mr, int k, struct ib_finding *f,
                                struct details *dd)
{
    struct rd *r = &mr->rd;
    int v = 0;
    const char *s;
    bool ok;
    switch (k) {
    case 0: return rd_capture(r, &f->at.capture);
    case 1: return rd_frame_number(r, &f->at.frame);
    case 2: return rd_time(r, &f->at.time_ns, NULL);
    case 3: ok = read_name(r, &v, IB_FIND_COUNT, kind_name, "a finding kind"); break;
    case 4: ok = read_name(r, &v, IB_SEV_ERROR + 1, severity_name, "a severity"); break;
    case 5: return rd_string(r, false, &s); /* worded again from the details */
    case 6: return rd_capture(r, &f->related.capture);
    case 7: return rd_frame_number(r, &f->related.frame);
    case 8: ok = read_name(r, &v, IB_DIAG_COUNT, rule_name, "a rule"); break;
    case 9: return read_details(mr, &f->data, dd);
    default: return k == RD_OTHER && rd_skip(r);
    }
    if (k == 3)
        f->kind = (enum ib_finding_kind)v;
    else if (k == 4)
        f->severity = (enum ib_severity)v;
    else
        f->rule = (uint16_t)v;
    return ok;
}

bool merge_read_finding(struct merge_report *mr, struct ib_finding *f)
{
    struct rd *r = &mr->rd;
    size_t base = r->path_len;
    uint64_t seen = 0;
    struct details dd = { 0 };
    memset(f, 0, sizeof *f);
    if (!rd_open(r, JP_OBJECT, "a finding"))
        return false;
    for (int k; (k = rd_member(r, base, finding_keys, &seen)) != RD_END;)
        if (!read_finding_member(mr, k, f, &dd))
            return false;
    if (!rd_required(r, base, finding_keys, seen, 0x23F))
        return false;
    if (!(seen & 0x40) != !(seen & 0x80)) {
        rd_path_key(r, seen & 0x40 ? "related_frame" : "related_capture");
        return rd_fail(r, "missing (related_capture and related_frame go together)");
    }
    return check_kind(r, base, f, seen & 0x100) && apply_details(r, base, f, &dd);
}
