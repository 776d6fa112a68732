/* finding_text.c - a finding in words, from its values: one sentence per kind. */
#include "finding.h"

#include <stdio.h>
#include <string.h>

#include "cm.h"
#include "engine.h"
#include "names.h"

#define ADDR_MAX 48

static bool gid_is_zero(const uint8_t gid[16])
{
    static const uint8_t zero[16];
    return memcmp(gid, zero, 16) == 0;
}

/* "ip:port", or "[ipv6]:port". */
static void ip_port(uint8_t ip_version, const uint8_t ip[16], uint16_t port, char *buf, size_t size)
{
    char a[ADDR_MAX];
    ib_format_ip(ip_version, ip, a, sizeof a);
    snprintf(buf, size, ip_version == 4 ? "%s:%u" : "[%s]:%u", a, port);
}

static const char *port_space(uint16_t ps, char buf[8])
{
    const char *name = ib_name_lookup(ib_port_space_names, ps);
    if (name)
        return name;
    snprintf(buf, 8, "0x%04x", ps);
    return buf;
}

static const char *class_name(uint8_t c, char buf[16])
{
    const char *name = ib_mgmt_class_name(c);
    if (name)
        return name;
    snprintf(buf, 16, "class 0x%02x", c);
    return buf;
}

/* Who redirected: "PerfMgt", "CM REJ 24", "CM SIDR_REP". */
static const char *redirector(const struct ib_finding_data *d, char buf[24])
{
    if (d->cm_attr == IB_CM_REJ)
        snprintf(buf, 24, "CM REJ %u", d->reject_reason);
    else if (d->cm_attr == IB_CM_SIDR_REP)
        snprintf(buf, 24, "CM SIDR_REP");
    else
        return class_name(d->mgmt_class, buf);
    return buf;
}

/* "LID 7 QP 0x000010", or "GID fe80::1 QP 0x000010" when only a GID names it. */
static void target(const struct ib_redirect_hop *h, char *buf, size_t size)
{
    char g[ADDR_MAX];
    if (h->lid || gid_is_zero(h->gid)) {
        snprintf(buf, size, "LID %u QP 0x%06x", h->lid, h->qp);
    } else {
        ib_format_gid(h->gid, g, sizeof g);
        snprintf(buf, size, "GID %s QP 0x%06x", g, h->qp);
    }
}

static void endpoint(const struct ib_endpoint *ep, uint32_t qp, char *buf, size_t size)
{
    char g[ADDR_MAX];
    if (ep->lid || !ep->has_gid) {
        snprintf(buf, size, "LID %u QP 0x%06x", ep->lid, qp);
    } else {
        ib_format_gid(ep->gid, g, sizeof g);
        snprintf(buf, size, "GID %s QP 0x%06x", g, qp);
    }
}

/* A pool's host: its source address, and how many more its host has. */
static void host_of(const struct ib_tuple *t, uint32_t addresses, char *buf, size_t size)
{
    char ip[ADDR_MAX];
    ib_format_ip(t->ip_version, t->src_ip, ip, sizeof ip);
    if (addresses > 2)
        snprintf(buf, size, "%s and %u other addresses of its host", ip, addresses - 1);
    else if (addresses == 2)
        snprintf(buf, size, "%s and 1 other address of its host", ip);
    else
        snprintf(buf, size, "%s", ip);
}

/* "REQ", "DREP", ...: a CM message's name. */
static const char *cm_message(uint16_t attr, char buf[ADDR_MAX + 8])
{
    const char *name = ib_name_lookup(ib_cm_attr_names, attr);
    if (name)
        return name;
    snprintf(buf, ADDR_MAX + 8, "CM attribute 0x%04x", attr);
    return buf;
}

static void cm_text(const struct ib_finding *f, char *buf, size_t size)
{
    const struct ib_finding_data *d = &f->data;
    const struct ib_tuple *t = &d->tuple;
    char ps_buf[8], a[ADDR_MAX + 48], b[ADDR_MAX + 8];
    const char *ps = port_space(t->port_space, ps_buf);
    unsigned long long rel = (unsigned long long)f->related.frame;
    switch (f->kind) {
    case IB_FIND_RETRANSMISSION:
        snprintf(buf, size, "%s retransmitted (%s 0x%08x, first sent in frame %llu)",
                 cm_message(d->cm_attr, a), d->sidr ? "RequestID" : "LocalCommID", d->comm_id, rel);
        break;
    case IB_FIND_UNREACHABLE: {
        char secs[24];
        snprintf(secs, sizeof secs, "%.1f s", (double)d->tried_ns / 1e9);
        snprintf(buf, size,
                 "connection given up: %s sent %u time%s over %s (first in frame %llu), no "
                 "answer within its timeout (%s 0x%08x)",
                 cm_message(d->cm_attr, a), d->sent, d->sent == 1 ? "" : "s", secs, rel,
                 d->sidr ? "RequestID" : "LocalCommID", d->comm_id);
        break;
    }
    case IB_FIND_PATH_IGNORED:
        snprintf(buf, size,
                 "%s on RoCE (LocalCommID 0x%08x): the Linux CM ignores alternate path "
                 "messages there, no path changes",
                 cm_message(d->cm_attr, a), d->comm_id);
        break;
    case IB_FIND_EXPLICIT_PORT_SHARED:
        ip_port(t->ip_version, t->src_ip, t->src_port, a, sizeof a);
        ip_port(t->ip_version, t->dst_ip, t->dst_port, b, sizeof b);
        snprintf(buf, size,
                 "%s %s -> %s: source port outside the pool, shared with the connection of "
                 "frame %llu (explicit bind with rdma_set_reuseaddr)",
                 ps, a, b, rel);
        break;
    case IB_FIND_DUPLICATE_TUPLE:
        ip_port(t->ip_version, t->src_ip, t->src_port, a, sizeof a);
        ip_port(t->ip_version, t->dst_ip, t->dst_port, b, sizeof b);
        snprintf(buf, size, "%s %s -> %s already open under LocalCommID 0x%08x (REQ frame %llu)",
                 ps, a, b, d->comm_id, rel);
        break;
    case IB_FIND_PORT_REUSED:
        ib_format_ip(t->ip_version, t->src_ip, a, sizeof a);
        ip_port(t->ip_version, t->dst_ip, t->dst_port, b, sizeof b);
        snprintf(buf, size,
                 "source port %u of %s (%s port space) reused for %s while held by the "
                 "connection of frame %llu",
                 t->src_port, a, ps, b, rel);
        break;
    case IB_FIND_POOL_FORECAST:
        host_of(t, d->host_addresses, a, sizeof a);
        ib_format_time_left(d->eta_s, b, sizeof b);
        snprintf(buf, size,
                 "port pool of %s (%s) runs out in %s at %.2f ports/s (%u of %u in use, %s)", a, ps,
                 b, d->rate_per_s, d->ports_in_use, d->pool_size,
                 d->model ? "per destination" : "one port each");
        break;
    default: /* IB_FIND_POOL_HIGH */
        host_of(t, d->host_addresses, a, sizeof a);
        snprintf(buf, size, "ports in use by %s (%s) reached %.1f%% of the pool (%u of %u)", a, ps,
                 d->pool_size ? 100.0 * d->ports_in_use / d->pool_size : 0.0, d->ports_in_use,
                 d->pool_size);
        break;
    }
}

/* The findings on a redirecting response. */
static void redirect_text(const struct ib_finding *f, char *buf, size_t size)
{
    const struct ib_finding_data *d = &f->data;
    const struct ib_redirect_hop *h = &d->target;
    char who_buf[24], g[ADDR_MAX] = "", t[96];
    const char *who = redirector(d, who_buf);
    if (!gid_is_zero(h->gid))
        ib_format_gid(h->gid, g, sizeof g);
    switch (f->kind) {
    case IB_FIND_REDIRECT:
        snprintf(buf, size, "%s redirect to LID %u%s%s QP 0x%06x Q_Key 0x%08x P_Key 0x%04x SL %u",
                 who, h->lid, g[0] ? " GID " : "", g, h->qp, h->qkey, h->pkey, d->sl);
        break;
    case IB_FIND_REDIRECT_GID_ONLY:
        snprintf(buf, size,
                 "%s redirect names RedirectLID 0 and GID %s: the requester must resolve a "
                 "path to it",
                 who, g);
        break;
    case IB_FIND_REDIRECT_BAD_TARGET:
        snprintf(buf, size, "%s redirect target is unusable:%s%s%s", who,
                 d->problems & IB_TARGET_NO_ADDRESS ? " RedirectLID and RedirectGID both 0" : "",
                 d->problems & IB_TARGET_QP0 ? " RedirectQP 0" : "",
                 d->problems & IB_TARGET_NO_PKEY ? " RedirectP_Key 0" : "");
        break;
    default: /* IB_FIND_REDIRECT_LOOP */
        target(h, t, sizeof t);
        snprintf(buf, size,
                 "%s redirect to %s loops back to the target of frame %llu (%u redirects in "
                 "the chain)",
                 who, t, (unsigned long long)f->related.frame, d->hops);
        break;
    }
}

/* The findings on a request that a redirect concerns. */
static void request_text(const struct ib_finding *f, char *buf, size_t size)
{
    const struct ib_finding_data *d = &f->data;
    char cls_buf[16], t[96], o[96], qk[40] = "", pk[40] = "";
    const char *name = class_name(d->mgmt_class, cls_buf);
    unsigned long long rel = (unsigned long long)f->related.frame;
    target(&d->target, t, sizeof t);
    switch (f->kind) {
    case IB_FIND_REDIRECT_FOLLOWED:
        snprintf(buf, size, "%s request follows the redirect of frame %llu to %s (hop %u)", name,
                 rel, t, d->hops);
        break;
    case IB_FIND_REDIRECT_KEY_MISMATCH:
        if (d->problems & IB_KEY_QKEY)
            snprintf(qk, sizeof qk, " Q_Key 0x%08x (not 0x%08x)", d->qkey, d->target.qkey);
        if (d->problems & IB_KEY_PKEY)
            snprintf(pk, sizeof pk, " P_Key 0x%04x (not 0x%04x)", d->pkey, d->target.pkey);
        snprintf(buf, size, "%s request redirected by frame %llu uses%s%s", name, rel, qk, pk);
        break;
    default: /* IB_FIND_REDIRECT_NOT_FOLLOWED */
        endpoint(&d->sent_to, d->sent_to_qp, o, sizeof o);
        snprintf(buf, size,
                 "%s request sent to %s again instead of %s named by the redirect of frame %llu",
                 name, o, t, rel);
        break;
    }
}

/* "10.0.0.11" for a RoCE address, a GID, or "LID 7". */
static void address(const struct ib_endpoint *ep, char *buf, size_t size)
{
    static const uint8_t v4_mapped[12] = { [10] = 0xFF, [11] = 0xFF };
    if (!ep->has_gid)
        snprintf(buf, size, "LID %u", ep->lid);
    else if (memcmp(ep->gid, v4_mapped, sizeof v4_mapped) == 0)
        snprintf(buf, size, "%u.%u.%u.%u", ep->gid[12], ep->gid[13], ep->gid[14], ep->gid[15]);
    else
        ib_format_gid(ep->gid, buf, size);
}

static void not_delivered_text(const struct ib_finding *f, char *buf, size_t size)
{
    const struct ib_finding_data *d = &f->data;
    char cls_buf[16], attr_buf[24], a[ADDR_MAX], b[ADDR_MAX];
    const char *cls = class_name(d->mgmt_class, cls_buf);
    const char *attr = ib_attr_name(d->mgmt_class, d->attr_id);
    if (!attr) {
        snprintf(attr_buf, sizeof attr_buf, "attribute 0x%04x", d->attr_id);
        attr = attr_buf;
    }
    address(&d->from, a, sizeof a);
    address(&d->to, b, sizeof b);
    snprintf(buf, size, "%s %s from %s to %s never reached capture %u, which was capturing then",
             cls, attr, a, b, d->to_capture);
}

/* Milliseconds, to the microsecond. */
static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

/* The transport kinds: "QP 0x000123 of 10.0.0.2: " and what happened. */
static void transport_text(const struct ib_finding *f, char *buf, size_t size)
{
    static const char *const resend_why[IB_RESEND_CAUSE_COUNT] = {
        "after a NAK", "after an RNR NAK", "after the local ACK timeout",
        "though already acknowledged (spurious)"
    };
    static const char *const exhausted_why[IB_EXHAUSTED_CAUSE_COUNT] = {
        "no ACK ever on this queue pair", "NAKs answered the resends",
        "its ACKs came later than the timeout"
    };
    const struct ib_finding_data *d = &f->data;
    char a[ADDR_MAX], qp[ADDR_MAX + 24];
    address(&d->qp.dst, a, sizeof a);
    snprintf(qp, sizeof qp, "QP 0x%06x of %s", d->qp.qpn, a);
    const char *nak = ib_name_lookup(ib_nak_code_names, d->code);
    switch (f->kind) {
    case IB_FIND_PSN_GAP:
        snprintf(buf, size, "%s: PSN %u where %u was next (%u not seen)", qp, d->psn,
                 d->expected_psn, d->missing);
        break;
    case IB_FIND_CAPTURE_LOSS:
        snprintf(buf, size,
                 "%s: the responder acknowledged %u PSNs from %u that the capture "
                 "never showed",
                 qp, d->missing, d->psn);
        break;
    case IB_FIND_OUT_OF_ORDER:
        snprintf(buf, size, "%s: PSN %u after a later one, before any answer (reordered)", qp,
                 d->psn);
        break;
    case IB_FIND_TRANSPORT_RETRANSMISSION:
        if (d->cause == IB_RESEND_RNR_NAK)
            snprintf(buf, size, "%s: PSN %u sent again %.3f ms after an RNR NAK", qp, d->psn,
                     ms(d->wait_ns));
        else
            snprintf(buf, size, "%s: PSN %u sent again %s", qp, d->psn,
                     resend_why[d->cause % IB_RESEND_CAUSE_COUNT]);
        break;
    case IB_FIND_NAK:
        snprintf(buf, size, "%s: NAK (%s) at PSN %u", qp, nak ? nak : "reserved code", d->psn);
        break;
    case IB_FIND_RNR_NAK:
        snprintf(buf, size, "%s: RNR NAK at PSN %u: wait %.3f ms (timer %u)", qp, d->psn,
                 ms(d->wait_ns), d->code);
        break;
    case IB_FIND_RETRIES_EXHAUSTED:
        snprintf(buf, size, "%s: PSN %u sent %u times, never acknowledged: retries exhausted (%s)",
                 qp, d->psn, d->sent, exhausted_why[d->cause % IB_EXHAUSTED_CAUSE_COUNT]);
        break;
    case IB_FIND_ACK_TIMEOUT:
        snprintf(buf, size,
                 "%s: PSN %u acknowledged %.3f ms after it was sent, past the %.3f ms "
                 "local ACK timeout",
                 qp, d->psn, ms(d->wait_ns), ms(d->limit_ns));
        break;
    case IB_FIND_PSN_START_MISMATCH:
        snprintf(buf, size, "%s: first PSN %u, where the CM announced %u", qp, d->psn,
                 d->expected_psn);
        break;
    default: break;
    }
}

/* A setting's value as the reports name it: "26", "untagged", "Not-ECT". */
static const char *setting(unsigned field, uint8_t value, bool known, char buf[16])
{
    if (!known)
        return field == IB_WIRE_PRIORITY ? "untagged" : "none";
    snprintf(buf, 16, "%u", value);
    return buf;
}

/* The wire audit's kinds. */
static void wire_text(const struct ib_finding *f, char *buf, size_t size)
{
    const struct ib_finding_data *d = &f->data;
    unsigned long long rel = (unsigned long long)f->related.frame;
    char a[16], b[16];
    switch (f->kind) {
    case IB_FIND_ASYMMETRIC_CLASS:
        snprintf(buf, size,
                 "QP 0x%06x: %s %s, where the other direction's first packet (frame %llu) has %s",
                 d->dest_qp, d->class_field == IB_WIRE_PRIORITY ? "priority" : "DSCP",
                 setting(d->class_field, d->value, d->known & IB_KNOWN_VALUE, a), rel,
                 setting(d->class_field, d->other, d->known & IB_KNOWN_OTHER, b));
        break;
    case IB_FIND_NOT_ECT:
        snprintf(buf, size,
                 "QP 0x%06x: RoCEv2 data sent Not-ECT, where frame %llu is ECN-capable: no switch "
                 "can mark it",
                 d->dest_qp, rel);
        break;
    case IB_FIND_MTU_EXCEEDED:
        if (d->link_mtu)
            snprintf(buf, size,
                     "path MTU %u needs %u bytes of Ethernet payload, above the link's %u: full "
                     "packets cannot pass",
                     d->path_mtu, d->needed, d->link_mtu);
        else
            snprintf(buf, size, "QP 0x%06x: payload of %u bytes, above the path MTU %u of the REQ",
                     d->dest_qp, d->payload, d->path_mtu);
        break;
    case IB_FIND_ROCE_VERSION_MIX:
        snprintf(buf, size,
                 "QP 0x%06x: RoCEv%u data, where the conversation began in RoCEv%u (frame %llu)",
                 d->dest_qp, d->value, d->other, rel);
        break;
    default: /* IB_FIND_LINK_LOCAL_GID_ROUTED */
        snprintf(buf, size,
                 "%s source GID with hop limit %u: routed, where it must stay on its link",
                 ib_gid_kind_name((enum ib_gid_kind)d->value), d->other);
        break;
    }
}

/* The congestion kinds. */
static void congestion_text(const struct ib_finding *f, char *buf, size_t size)
{
    const struct ib_finding_data *d = &f->data;
    if (f->kind == IB_FIND_PFC_STORM) {
        snprintf(buf, size, "priority %u paused for %.3f ms and renewed (%s)", d->priority,
                 (double)d->paused_us / 1000,
                 d->roce ? "RoCE traffic uses it" : "no RoCE traffic seen on it");
        return;
    }
    char from[ADDR_MAX], to[ADDR_MAX];
    address(&d->from, from, sizeof from);
    address(&d->to, to, sizeof to);
    snprintf(buf, size, "CE mark to QP 0x%06x of %s: no CNP back to QP 0x%06x of %s within %u us",
             d->qp.qpn, to, d->sender_qpn, from, d->window_us);
}

const char *ib_finding_format(const struct ib_finding *f, char *buf, size_t size)
{
    if (size == 0)
        return buf;
    buf[0] = '\0';
    switch (f->kind) {
    case IB_FIND_RETRANSMISSION:
    case IB_FIND_UNREACHABLE:
    case IB_FIND_PATH_IGNORED:
    case IB_FIND_DUPLICATE_TUPLE:
    case IB_FIND_EXPLICIT_PORT_SHARED:
    case IB_FIND_PORT_REUSED:
    case IB_FIND_POOL_HIGH:
    case IB_FIND_POOL_FORECAST: cm_text(f, buf, size); break;
    case IB_FIND_REDIRECT:
    case IB_FIND_REDIRECT_GID_ONLY:
    case IB_FIND_REDIRECT_BAD_TARGET:
    case IB_FIND_REDIRECT_LOOP: redirect_text(f, buf, size); break;
    case IB_FIND_REDIRECT_FOLLOWED:
    case IB_FIND_REDIRECT_KEY_MISMATCH:
    case IB_FIND_REDIRECT_NOT_FOLLOWED: request_text(f, buf, size); break;
    case IB_FIND_ADDRESSING:
    case IB_FIND_MALFORMED: {
        const struct ib_diag_info *info = ib_diag_info((enum ib_diag_id)f->rule);
        snprintf(buf, size, "%s (%s)", info->text, info->name);
        break;
    }
    case IB_FIND_ICRC_MISMATCH:
        snprintf(buf, size, "ICRC 0x%08x does not verify: the packet's bytes give 0x%08x",
                 f->data.crc_carried, f->data.crc_computed);
        break;
    case IB_FIND_VCRC_MISMATCH:
        snprintf(buf, size, "VCRC 0x%04x does not verify: the packet's bytes give 0x%04x",
                 f->data.crc_carried, f->data.crc_computed);
        break;
    case IB_FIND_NOT_DELIVERED: not_delivered_text(f, buf, size); break;
    case IB_FIND_PSN_GAP:
    case IB_FIND_CAPTURE_LOSS:
    case IB_FIND_OUT_OF_ORDER:
    case IB_FIND_TRANSPORT_RETRANSMISSION:
    case IB_FIND_NAK:
    case IB_FIND_RNR_NAK:
    case IB_FIND_RETRIES_EXHAUSTED:
    case IB_FIND_ACK_TIMEOUT:
    case IB_FIND_PSN_START_MISMATCH: transport_text(f, buf, size); break;
    case IB_FIND_ASYMMETRIC_CLASS:
    case IB_FIND_NOT_ECT:
    case IB_FIND_MTU_EXCEEDED:
    case IB_FIND_ROCE_VERSION_MIX:
    case IB_FIND_LINK_LOCAL_GID_ROUTED: wire_text(f, buf, size); break;
    case IB_FIND_CE_WITHOUT_CNP:
    case IB_FIND_PFC_STORM: congestion_text(f, buf, size); break;
    case IB_FIND_COUNT: break;
    }
    return buf;
}

const char *ib_format_time_left(double seconds, char *buf, size_t size)
{
    if (!(seconds >= 0)) /* NaN too */
        seconds = 0;
    /* Whole seconds, rounded down, past 10: "59m 60s" cannot come out. */
    unsigned long long t = seconds < 1e15 ? (unsigned long long)seconds : 999999999999999ULL;
    if (seconds < 10)
        snprintf(buf, size, "%.1f s", seconds);
    else if (t < 100)
        snprintf(buf, size, "%llu s", t);
    else if (t < 3600)
        snprintf(buf, size, "%llum %02llus", t / 60, t % 60);
    else if (t < 86400)
        snprintf(buf, size, "%lluh %02llum", t / 3600, t / 60 % 60);
    else if (t < 100 * 86400ULL)
        snprintf(buf, size, "%llud %02lluh", t / 86400, t / 3600 % 24);
    else
        snprintf(buf, size, "%llu d", t / 86400);
    return buf;
}
