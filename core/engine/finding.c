/* finding.c - the finding kinds: one row each. */
#include "finding.h"

#include <string.h>

#include "fabric.h"

/* The finding table, one row a kind, is laid out by hand. */
/* clang-format off */

#define SEQ IB_GROUP_SEQUENCE
#define IB_STR_(x) #x
#define IB_STR(x) IB_STR_(x)

const struct ib_finding_kind_info ib_finding_kinds[IB_FIND_COUNT] = {
    [IB_FIND_RETRANSMISSION] = {
        "retransmission", IB_SEV_NOTE, SEQ, "CM retransmission",
        "CM message sent again (same comm IDs)", NULL,
        "A CM message (REQ, MRA, REJ, REP, RTU, DREQ, DREP, LAP, APR, SIDR_REQ, SIDR_REP) "
        "sent again for the same connection: a MAD-layer retry, or an answer to one.",
        true },
    [IB_FIND_PORT_REUSED] = {
        "port_reused", IB_SEV_NOTE, SEQ, "RDMA CM port reused",
        "RDMA CM source port reused by a new connection", NULL,
        "A REQ takes a source port that an open connection of the same source holds "
        "towards another destination (legal since the 4-tuple rule).",
        true },
    [IB_FIND_DUPLICATE_TUPLE] = {
        "duplicate_tuple", IB_SEV_WARN, SEQ, "RDMA CM duplicate tuple",
        "RDMA CM tuple already used by an open connection", NULL,
        "A REQ opens a tuple (port space, source and destination address and port) that "
        "an open connection already uses.",
        true },
    [IB_FIND_EXPLICIT_PORT_SHARED] = {
        "explicit_port_shared", IB_SEV_NOTE, SEQ, "RDMA CM explicit port shared",
        "RDMA CM port outside the pool shared (rdma_set_reuseaddr)", NULL,
        "A REQ shares a tuple or source port outside the port pool with an open connection: "
        "an explicit bind that rdma_set_reuseaddr allows (Lustre's port 1023).",
        true },
    [IB_FIND_POOL_HIGH] = {
        "pool_high", IB_SEV_WARN, SEQ, "RDMA CM port pool high",
        "RDMA CM port pool utilization above the threshold", NULL,
        "A source holds the --threshold share of its port pool (fires again after "
        "falling 5% of the pool below).",
        false },
    [IB_FIND_POOL_FORECAST] = {
        "pool_forecast", IB_SEV_WARN, SEQ, "RDMA CM port pool runs out soon",
        "RDMA CM port pool runs out within the forecast horizon", NULL,
        "At the net rate a source has taken ports lately, its pool runs out within "
        "--forecast-horizon (fires again after the estimate rose 10% above it).",
        false },
    [IB_FIND_UNREACHABLE] = {
        "unreachable", IB_SEV_WARN, SEQ, "CM unreachable",
        "CM connection given up: no answer within its timeout", NULL,
        "A connection's REQ (or DREQ) went unanswered, or its handshake never completed, "
        "past its last copy's timeout: the kernel gives up (RDMA_CM_EVENT_UNREACHABLE) and "
        "frees its port.",
        true },
    [IB_FIND_PATH_IGNORED] = {
        "path_ignored", IB_SEV_NOTE, SEQ, "CM path message ignored on RoCE",
        "LAP or APR on RoCE: the kernel ignores it", NULL,
        "A LAP or APR on RoCE, where the Linux CM ignores alternate path messages "
        "(cm_lap_handler, cm_apr_handler): no path changes.",
        false },
    [IB_FIND_REDIRECT] = {
        "redirect", IB_SEV_NOTE, SEQ, "MAD redirect",
        "MAD or CM redirect", "redirects",
        "A ClassPortInfo redirect: a GetResp with MAD status redirect, or a CM REJ 24/25 "
        "or SIDR_REP status 4.",
        false },
    [IB_FIND_REDIRECT_FOLLOWED] = {
        "redirect_followed", IB_SEV_CHAT, SEQ, "Redirect followed",
        "Request follows a redirect", "followed",
        "A request goes where the last redirect of its chain sent it.",
        true },
    [IB_FIND_REDIRECT_LOOP] = {
        "redirect_loop", IB_SEV_WARN, SEQ, "Redirect loop",
        "Redirect chain loops", "loops",
        "A redirect sends the requester back to an agent its chain has already visited.",
        true },
    [IB_FIND_REDIRECT_GID_ONLY] = {
        "redirect_gid_only", IB_SEV_NOTE, SEQ, "Redirect to GID only",
        "Redirect names a GID only (RedirectLID 0)", "to a GID only",
        "A redirect names RedirectLID 0 and a GID: the requester must resolve a path first.",
        false },
    [IB_FIND_REDIRECT_BAD_TARGET] = {
        "redirect_bad_target", IB_SEV_WARN, SEQ, "Redirect bad target",
        "Redirect names an invalid target", "bad targets",
        "A redirect names no address, QP 0 or P_Key 0.",
        false },
    [IB_FIND_REDIRECT_KEY_MISMATCH] = {
        "redirect_key_mismatch", IB_SEV_WARN, SEQ, "Redirect key mismatch",
        "Redirected request uses other keys than named", "key mismatches",
        "A request that follows a redirect carries another Q_Key or P_Key than it named.",
        true },
    [IB_FIND_REDIRECT_NOT_FOLLOWED] = {
        "redirect_not_followed", IB_SEV_WARN, SEQ, "Redirect not followed",
        "Request ignores an earlier redirect", "not followed",
        "A request goes to the agent again instead of where it was redirected.",
        true },
    [IB_FIND_ADDRESSING] = {
        "addressing", IB_SEV_WARN, IB_GROUP_PROTOCOL, "IB addressing",
        "Addressing rule broken", NULL,
        "A packet breaks an addressing rule (reserved or multicast LIDs and GIDs, VL15, "
        "permissive LID); the finding names the rule.",
        false },
    [IB_FIND_MALFORMED] = {
        "malformed", IB_SEV_ERROR, IB_GROUP_MALFORMED, "IB malformed",
        "Malformed InfiniBand packet", NULL,
        "A packet cannot be decoded as it claims (cut short, lengths that disagree, "
        "unknown versions); the finding names the problem.",
        false },
    [IB_FIND_ICRC_MISMATCH] = {
        "icrc_mismatch", IB_SEV_WARN, IB_GROUP_CHECKSUM, "ICRC mismatch",
        "Invariant CRC does not verify", NULL,
        "A packet's ICRC does not match its bytes: corrupted, or rewritten in flight "
        "(the receiving NIC drops it).",
        false },
    [IB_FIND_VCRC_MISMATCH] = {
        "vcrc_mismatch", IB_SEV_WARN, IB_GROUP_CHECKSUM, "VCRC mismatch",
        "Variant CRC does not verify", NULL,
        "A native packet's VCRC does not match its bytes: corrupted on the last link.",
        false },
    [IB_FIND_NOT_DELIVERED] = {
        "not_delivered", IB_SEV_WARN, SEQ, "Not delivered",
        "Management packet never reached its destination's capture", NULL,
        "With captures of several hosts: a CM or MAD packet seen leaving its sender's host "
        "that its destination's capture, running then, never shows (within "
        IB_STR(IB_DELIVERY_WINDOW_MS) " ms).",
        false },
    [IB_FIND_PSN_GAP] = {
        "psn_gap", IB_SEV_WARN, SEQ, "PSN gap",
        "Request PSN past the next expected one", NULL,
        "A queue pair's request skips PSNs: lost before the capture point, or missed by "
        "the capture (capture_loss says which when the responder acknowledges them).",
        false },
    [IB_FIND_CAPTURE_LOSS] = {
        "capture_loss", IB_SEV_NOTE, SEQ, "Capture loss",
        "Responder acknowledged requests the capture did not show", NULL,
        "An ACK or response covers the PSNs of a gap with no NAK and no resend: the "
        "requests crossed the wire and the capture missed them.",
        false },
    [IB_FIND_OUT_OF_ORDER] = {
        "out_of_order", IB_SEV_NOTE, SEQ, "Out-of-order",
        "Request fills a PSN gap before any answer", NULL,
        "A request whose PSN a gap skipped arrives before the responder answered: "
        "reordered on the way, not sent again.",
        false },
    [IB_FIND_TRANSPORT_RETRANSMISSION] = {
        "transport_retransmission", IB_SEV_WARN, SEQ, "Transport retransmission",
        "Request PSN sent again", NULL,
        "A request the queue pair sent before, sent again: after a NAK, after an RNR NAK "
        "and its timer, after the local ACK timeout, or spurious (already acknowledged).",
        false },
    [IB_FIND_NAK] = {
        "nak", IB_SEV_WARN, SEQ, "NAK",
        "Responder NAK", NULL,
        "A responder's NAK: a PSN sequence error (warning: the requester goes back), or an "
        "invalid request, remote access or remote operational error (error: the queue "
        "pair fails).",
        false },
    [IB_FIND_RNR_NAK] = {
        "rnr_nak", IB_SEV_WARN, SEQ, "RNR NAK",
        "Receiver not ready NAK", NULL,
        "A responder had no receive posted: it asks the requester to wait the RNR timer "
        "and send again.",
        false },
    [IB_FIND_RETRIES_EXHAUSTED] = {
        "retries_exhausted", IB_SEV_ERROR, SEQ, "Retries exhausted",
        "Request sent retry count + 1 times, never acknowledged", NULL,
        "A PSN sent as many times as its retry count allows, then nothing acknowledged it "
        "within four timeouts: the requester's work completion is IBV_WC_RETRY_EXC_ERR.",
        false },
    [IB_FIND_ACK_TIMEOUT] = {
        "ack_timeout", IB_SEV_WARN, SEQ, "ACK timeout",
        "ACK later than the queue pair's local ACK timeout", NULL,
        "An ACK or response covers a request sent longer ago than the queue pair's local "
        "ACK timeout (4.096 us x 2^timeout from its CM REQ).",
        false },
    [IB_FIND_PSN_START_MISMATCH] = {
        "psn_start_mismatch", IB_SEV_WARN, SEQ, "PSN start mismatch",
        "First request PSN is not the announced starting PSN", NULL,
        "A queue pair's first request does not carry the starting PSN its CM REQ or REP "
        "announced.",
        false },
    [IB_FIND_ASYMMETRIC_CLASS] = {
        "asymmetric_class", IB_SEV_WARN, SEQ, "Asymmetric class",
        "Queue pair's two directions use different DSCP or priority", NULL,
        "The first data packet of a queue pair's second direction carries another DSCP or "
        "VLAN priority than the other direction's first: one host's traffic class or RoCE "
        "priority is not the other's (lossless on one way only).",
        true },
    [IB_FIND_NOT_ECT] = {
        "not_ect", IB_SEV_WARN, SEQ, "Not ECN-capable",
        "RoCEv2 data sent Not-ECT beside ECN-capable traffic", NULL,
        "A direction's first Not-ECT RoCEv2 data packet after the capture showed an "
        "ECN-capable one: switches cannot mark it, so its sender never slows down for "
        "congestion (DCQCN off on that host).",
        true },
    [IB_FIND_MTU_EXCEEDED] = {
        "mtu_exceeded", IB_SEV_WARN, IB_GROUP_PROTOCOL, "MTU exceeded",
        "Payload above the path MTU, or a path MTU the link cannot carry", NULL,
        "A data packet's payload is larger than the path MTU its CM REQ announced (path "
        "form), or a REQ's path MTU makes a full packet larger than the 1500-byte Ethernet "
        "payload (link form): the frames are dropped, and the queue pair retries until it "
        "fails.",
        false },
    [IB_FIND_ROCE_VERSION_MIX] = {
        "roce_version_mix", IB_SEV_WARN, SEQ, "RoCE version mix",
        "RoCEv1 and RoCEv2 data between the same two endpoints", NULL,
        "A conversation's data packet in the other RoCE version than its first: the hosts "
        "chose GID indexes of different RoCE types.",
        true },
    [IB_FIND_LINK_LOCAL_GID_ROUTED] = {
        "link_local_gid_routed", IB_SEV_WARN, IB_GROUP_PROTOCOL, "Link-local GID routed",
        "Link-local or IPv4-mapped GID on a routed packet", NULL,
        "A data packet from a link-local GID (or an IPv4-mapped one in a RoCEv1 GRH) whose "
        "hop limit or TTL shows a router on the way (not 0, 1, 64, 128 or 255): the wrong GID "
        "index for a routed fabric.",
        false },
    [IB_FIND_CE_WITHOUT_CNP] = {
        "ce_without_cnp", IB_SEV_WARN, SEQ, "CE without CNP",
        "CE-marked packet with no CNP back to its sender within the window", NULL,
        "A RoCEv2 data packet marked CE (congestion) is followed by no CNP from its "
        "receiver to its sender's QP within --cnp-window: DCQCN not enabled at the "
        "receiver, or the CNPs lost; the sender never slows down.",
        false },
    [IB_FIND_PFC_STORM] = {
        "pfc_storm", IB_SEV_WARN, SEQ, "PFC storm",
        "Priority paused by PFC for longer than the storm threshold", NULL,
        "A priority of a link stays paused by PFC frames (IEEE 802.1Qbb), renewed before "
        "each runs out, for --pfc-storm or longer: every queue pair on that priority "
        "stalls.",
        false },
};

const char *ib_finding_kind_name(enum ib_finding_kind kind)
{
    return (unsigned)kind < IB_FIND_COUNT ? ib_finding_kinds[kind].name : "unknown";
}

enum ib_finding_kind ib_finding_kind_by_name(const char *name)
{
    for (unsigned i = 0; i < IB_FIND_COUNT; i++)
        if (name && strcmp(ib_finding_kinds[i].name, name) == 0)
            return (enum ib_finding_kind)i;
    return IB_FIND_COUNT;
}

enum ib_severity ib_finding_kind_severity(enum ib_finding_kind kind)
{
    return (unsigned)kind < IB_FIND_COUNT ? ib_finding_kinds[kind].severity : IB_SEV_ERROR;
}

enum ib_diag_group ib_finding_kind_group(enum ib_finding_kind kind)
{
    return (unsigned)kind < IB_FIND_COUNT ? ib_finding_kinds[kind].group : IB_GROUP_PROTOCOL;
}
/* clang-format on */

static const char *const resend_causes[IB_RESEND_CAUSE_COUNT] = { "nak", "rnr_nak", "timeout",
                                                                  "spurious" };
static const char *const exhausted_causes[IB_EXHAUSTED_CAUSE_COUNT] = { "never_acked", "naks",
                                                                        "late_acks" };

static const char *const nak_code_keys[] = { "psn_sequence_error", "invalid_request",
                                             "remote_access_error", "remote_operational_error",
                                             "invalid_rd_request" };

static unsigned name_index(const char *const *names, unsigned count, const char *name)
{
    unsigned i = 0;
    while (i < count && !(name && strcmp(names[i], name) == 0))
        i++;
    return i;
}

const char *ib_resend_cause_name(unsigned cause)
{
    return cause < IB_RESEND_CAUSE_COUNT ? resend_causes[cause] : "unknown";
}

unsigned ib_resend_cause_by_name(const char *name)
{
    return name_index(resend_causes, IB_RESEND_CAUSE_COUNT, name);
}

const char *ib_exhausted_cause_name(unsigned cause)
{
    return cause < IB_EXHAUSTED_CAUSE_COUNT ? exhausted_causes[cause] : "unknown";
}

unsigned ib_exhausted_cause_by_name(const char *name)
{
    return name_index(exhausted_causes, IB_EXHAUSTED_CAUSE_COUNT, name);
}

const char *ib_nak_code_key(unsigned code)
{
    return code < sizeof nak_code_keys / sizeof nak_code_keys[0] ? nak_code_keys[code] : "reserved";
}

unsigned ib_nak_code_by_key(const char *key)
{
    return name_index(nak_code_keys, sizeof nak_code_keys / sizeof nak_code_keys[0], key);
}

struct ib_endpoint ib_hop_endpoint(const struct ib_redirect_hop *hop)
{
    static const uint8_t zero[16];
    struct ib_endpoint ep;
    memset(&ep, 0, sizeof ep);
    ep.lid = hop->lid;
    ep.has_gid = memcmp(hop->gid, zero, 16) != 0;
    memcpy(ep.gid, hop->gid, 16);
    return ep;
}

bool ib_endpoint_same(const struct ib_endpoint *a, const struct ib_endpoint *b)
{
    if (a->lid && b->lid)
        return a->lid == b->lid;
    if (a->has_gid && b->has_gid)
        return memcmp(a->gid, b->gid, 16) == 0;
    return false;
}
