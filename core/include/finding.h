/* finding.h - what ibscope concludes about a frame, as data: the finding
 * kinds, one table of everything said about each, and the findings the
 * engine returns.
 *
 * A finding carries typed values (frames, tuple, ports, pool, redirect
 * target, keys), never text: every view words it from the same values with
 * ib_finding_format, and the tables below are the one place a kind's name,
 * severity, group, Info tag, summary and description are written.  The
 * plugin's expert infos, tags and statistics, the analyzer's --help and
 * its reports are all generated from them.
 */
#ifndef IBSCOPE_FINDING_H
#define IBSCOPE_FINDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "ipcm.h"
#include "packet.h"

enum ib_finding_kind {
    IB_FIND_RETRANSMISSION,
    IB_FIND_PORT_REUSED,
    IB_FIND_DUPLICATE_TUPLE,
    IB_FIND_EXPLICIT_PORT_SHARED,
    IB_FIND_POOL_HIGH,
    IB_FIND_POOL_FORECAST,
    IB_FIND_UNREACHABLE,
    IB_FIND_PATH_IGNORED,
    IB_FIND_REDIRECT,
    IB_FIND_REDIRECT_FOLLOWED,
    IB_FIND_REDIRECT_LOOP,
    IB_FIND_REDIRECT_GID_ONLY,
    IB_FIND_REDIRECT_BAD_TARGET,
    IB_FIND_REDIRECT_KEY_MISMATCH,
    IB_FIND_REDIRECT_NOT_FOLLOWED,
    IB_FIND_ADDRESSING,
    IB_FIND_MALFORMED,
    IB_FIND_ICRC_MISMATCH,
    IB_FIND_VCRC_MISMATCH,
    IB_FIND_NOT_DELIVERED,
    /* The transport analysis of reliable-connected queue pairs
     * (engine_transport.c). */
    IB_FIND_PSN_GAP,
    IB_FIND_CAPTURE_LOSS,
    IB_FIND_OUT_OF_ORDER,
    IB_FIND_TRANSPORT_RETRANSMISSION,
    IB_FIND_NAK,
    IB_FIND_RNR_NAK,
    IB_FIND_RETRIES_EXHAUSTED,
    IB_FIND_ACK_TIMEOUT,
    IB_FIND_PSN_START_MISMATCH,
    /* The wire audit of the settings packets carry (engine_wire.c). */
    IB_FIND_ASYMMETRIC_CLASS,
    IB_FIND_NOT_ECT,
    IB_FIND_MTU_EXCEEDED,
    IB_FIND_ROCE_VERSION_MIX,
    IB_FIND_LINK_LOCAL_GID_ROUTED,
    /* Congestion notification and flow control (engine_cnp.c, engine_pfc.c). */
    IB_FIND_CE_WITHOUT_CNP,
    IB_FIND_PFC_STORM,
    IB_FIND_COUNT
};

/* Everything said about one kind.  The row of kind k is ib_finding_kinds[k]. */
struct ib_finding_kind_info {
    const char *name;          /* --fail-on, JSON, ibscope.expert.<name> */
    enum ib_severity severity; /* addressing and malformed take their rule's */
    enum ib_diag_group group;  /* Wireshark's expert group */
    const char *tag;           /* the plugin's Info column tag */
    const char *summary;       /* the expert info's summary */
    const char *redirect_stat; /* its node under "Redirect chains", NULL for none */
    const char *description;   /* one sentence: --help and docs/analyzer.md */
    bool names_related;        /* its message names the related frame itself */
};

extern const struct ib_finding_kind_info ib_finding_kinds[IB_FIND_COUNT];

const char *ib_finding_kind_name(enum ib_finding_kind kind);
/* Looks a name up; IB_FIND_COUNT when there is none. */
enum ib_finding_kind ib_finding_kind_by_name(const char *name);
enum ib_severity ib_finding_kind_severity(enum ib_finding_kind kind);
enum ib_diag_group ib_finding_kind_group(enum ib_finding_kind kind);

/* Every time ibscope holds is within +-IB_TIME_NS_LIMIT ns of the epoch
 * (1823-11-12 to 2116-02-20): the readers clamp to it and `merge` refuses past
 * it, so the difference of any two times fits an int64_t. */
#define IB_TIME_NS_LIMIT (INT64_MAX / 2)

/* A frame: which capture (0-based index of the input file), which frame of
 * it (1-based, as Wireshark numbers them) and when (ns since the epoch).
 * frame == 0 means "none". */
struct ib_frame_ref {
    uint32_t capture;
    uint64_t frame;
    int64_t time_ns;
};

/* Where a ClassPortInfo redirect sends the requester. */
struct ib_redirect_hop {
    uint16_t lid;
    uint8_t gid[16];
    uint32_t qp;
    uint32_t qkey;
    uint16_t pkey;
    struct ib_frame_ref frame; /* the redirecting response */
};

/* The endpoint a redirect names: its LID, and its GID when not zero. */
struct ib_endpoint ib_hop_endpoint(const struct ib_redirect_hop *hop);
/* Whether two endpoints are one: by LID when both have one, else by GID
 * when both have one (a redirect may name either); unknown ones are not. */
bool ib_endpoint_same(const struct ib_endpoint *a, const struct ib_endpoint *b);

/* redirect_bad_target: what makes the target unusable. */
#define IB_TARGET_NO_ADDRESS 0x01 /* RedirectLID and RedirectGID both 0 */
#define IB_TARGET_QP0        0x02 /* RedirectQP 0 */
#define IB_TARGET_NO_PKEY    0x04 /* RedirectP_Key 0 */
/* redirect_key_mismatch: which key differs from the redirect's. */
#define IB_KEY_QKEY 0x01
#define IB_KEY_PKEY 0x02

/* Why a request was sent again (transport_retransmission). */
enum ib_resend_cause {
    IB_RESEND_NAK,      /* after a PSN sequence error NAK */
    IB_RESEND_RNR_NAK,  /* after an RNR NAK, once its timer ran */
    IB_RESEND_TIMEOUT,  /* no answer: the local ACK timer ran out */
    IB_RESEND_SPURIOUS, /* the responder had acknowledged it already */
    IB_RESEND_CAUSE_COUNT
};
const char *ib_resend_cause_name(unsigned cause);
unsigned ib_resend_cause_by_name(const char *name); /* IB_RESEND_CAUSE_COUNT: none */

/* What ran a queue pair's retries out (retries_exhausted). */
enum ib_exhausted_cause {
    IB_EXHAUSTED_NEVER_ACKED, /* no ACK ever on the QP: unreachable or misconfigured */
    IB_EXHAUSTED_NAKS,        /* NAKs answered the resends: loss */
    IB_EXHAUSTED_LATE_ACKS,   /* ACKs came, later than the timeout: timeout too short */
    IB_EXHAUSTED_CAUSE_COUNT
};
const char *ib_exhausted_cause_name(unsigned cause);
unsigned ib_exhausted_cause_by_name(const char *name); /* IB_EXHAUSTED_CAUSE_COUNT: none */

/* A queue pair's requester direction: its number (0-based, in order of
 * first sight) and where its requests go. */
struct ib_qp_ref {
    uint32_t index;
    struct ib_endpoint dst;
    uint32_t qpn;
};

/* The NAK codes as reports name them: "psn_sequence_error", ...;
 * IB_NAK_CODES when there is none by that name. */
const char *ib_nak_code_key(unsigned code);
unsigned ib_nak_code_by_key(const char *key);

/* The values a finding is about; each kind fills the members its row in
 * finding_text.c names, the rest stay zero. */
struct ib_finding_data {
    /* retransmission, duplicate_tuple, explicit_port_shared, port_reused,
     * pool_high, pool_forecast, unreachable, path_ignored */
    struct ib_tuple tuple; /* the REQ's (pool_high, pool_forecast: its source and
                            * port space) */
    uint32_t comm_id;      /* retransmission, unreachable: the connection's
                            * LocalCommID (RequestID with sidr); duplicate_tuple:
                            * the open connection's */
    bool sidr;
    /* retransmission: the message sent again (cm_attr below); unreachable:
     * the message never answered (REQ, REP or DREQ), how many times it was
     * sent and how long from its first copy to its last; retries_exhausted:
     * how many times its PSN was sent */
    unsigned sent;
    int64_t tried_ns;
    uint32_t ports_in_use; /* pool_high, pool_forecast: pool ports held when it
                            * fired (pool_forecast: in its model) */
    uint32_t pool_size;
    uint32_t host_addresses; /* pool_high, pool_forecast: the addresses of the
                              * source's host (engine.h, "Hosts") */
    /* pool_forecast: the estimate that fired it, and its model (enum
     * ib_pool_model: the sooner one) */
    double eta_s, rate_per_s;
    uint8_t model;
    /* the redirect kinds */
    uint8_t mgmt_class;
    uint16_t cm_attr;              /* a CM redirect: IB_CM_REJ or IB_CM_SIDR_REP, else 0;
                                    * retransmission, unreachable, path_ignored: the
                                    * message */
    uint16_t reject_reason;        /* with IB_CM_REJ */
    struct ib_redirect_hop target; /* where the redirect sends the requester */
    uint8_t sl;                    /* redirect: RedirectSL */
    uint8_t problems;              /* IB_TARGET_* or IB_KEY_* bits */
    unsigned hops;                 /* redirect_loop: redirects in the chain;
                                    * redirect_followed: the hop followed */
    bool has_chain;                /* the chain is tracked (not past the cap): */
    uint32_t chain;                /* its index in the report's redirect chains */
    struct ib_endpoint sent_to;    /* redirect_not_followed: where the request went */
    uint32_t sent_to_qp;
    uint32_t qkey; /* redirect_key_mismatch: the keys it carried */
    uint16_t pkey;
    /* icrc_mismatch, vcrc_mismatch */
    uint32_t crc_carried, crc_computed;
    /* not_delivered: the packet (mgmt_class too), who sent it where, and the
     * capture of its destination's host that never showed it */
    uint8_t method;
    uint16_t attr_id;
    struct ib_endpoint from, to;
    uint32_t to_capture;
    /* The transport kinds: the queue pair, and the PSN the finding is about:
     * psn_gap, psn_start_mismatch: the request's, expected_psn the one due;
     * capture_loss: the first PSN not seen, missing of them; nak: the NAK's;
     * the others: the request's. */
    struct ib_qp_ref qp;
    uint32_t psn, expected_psn;
    uint32_t missing; /* psn_gap, capture_loss: PSNs not seen */
    uint8_t cause;    /* enum ib_resend_cause or enum ib_exhausted_cause */
    uint8_t code;     /* nak: enum ib_nak_code; rnr_nak: the timer's code */
    int64_t wait_ns;  /* rnr resend: NAK to resend; ack_timeout: request to ACK;
                       * rnr_nak: the timer's wait */
    int64_t limit_ns; /* ack_timeout: the QP's local ACK timeout */
    /* The wire audit's kinds.  dest_qp: the frame's destination QP
     * (asymmetric_class, not_ect, mtu_exceeded's path form,
     * roce_version_mix); value and other: asymmetric_class: the setting
     * (class_field, enum ib_wire_field) of the frame and of the other
     * direction's first packet, known says which it has; not_ect: the ECN
     * codepoint; roce_version_mix: the frame's version and the
     * conversation's first; link_local_gid_routed: the GID kind and the hop
     * value.  mtu_exceeded: path_mtu, and the payload (path form) or the
     * link MTU and the bytes a full packet needs (link form). */
    uint32_t dest_qp;
    uint8_t class_field;
    uint8_t value, other;
    uint8_t known; /* IB_KNOWN_* bits */
    uint32_t payload, path_mtu, link_mtu, needed;
    /* ce_without_cnp: the CE-marked packet's destination QPN (qp.qpn; qp.dst
     * its receiver, from its sender), the QPN a CNP had to address, the
     * window it had */
    uint32_t sender_qpn;
    uint32_t window_us;
    /* pfc_storm: the priority, how long it has been paused at the frame,
     * whether RoCE data used it before */
    uint8_t priority;
    bool roce;
    uint64_t paused_us;
};

/* asymmetric_class: which of value and other the packets had (an untagged
 * packet has no priority). */
#define IB_KNOWN_VALUE 0x01
#define IB_KNOWN_OTHER 0x02

struct ib_finding {
    enum ib_finding_kind kind;
    enum ib_severity severity;
    uint16_t rule; /* enum ib_diag_id for addressing and malformed */
    struct ib_frame_ref at;
    struct ib_frame_ref related; /* frame == 0 when none applies */
    struct ib_finding_data data;
};

/* Room for any message ib_finding_format writes. */
#define IB_FINDING_TEXT_MAX 192

/* The finding in words, one line, the same for every view ("source port
 * 40001 of 10.0.0.11 (TCP port space) reused for ..."); frames are written
 * as numbers within their capture.  Returns buf. */
const char *ib_finding_format(const struct ib_finding *f, char *buf, size_t size);

/* Seconds left as people read them, the same in every view: "4.2 s",
 * "57 s", "4m 05s", "3h 07m", "2d 05h", "412 d".  Returns buf. */
const char *ib_format_time_left(double seconds, char *buf, size_t size);

#endif
